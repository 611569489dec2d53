// SPDX-License-Identifier: MIT OR Apache-2.0
// Shape and indexing ops on tensors large enough to take the kernels' parallel paths, against
// references computed on the host (the op semantics themselves are checked against PyTorch on
// small inputs in test_shape*.cpp and test_indexing.cpp).
#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_shape_large {

namespace {

using namespace burn;
using burn::csi::matches;
namespace host = burn::csi::host;

template <class B>
class LargeLayoutTest : public ::testing::Test {};
TYPED_TEST_SUITE(LargeLayoutTest, burn::testing::Backends, burn::testing::BackendNames);

constexpr std::size_t kR = 300, kC = 517;  // 155100 elements, an odd row length

TensorData iota_data(std::size_t r, std::size_t c) {
    std::vector<double> v(r * c);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
    return TensorData(v, Shape{r, c});
}

TYPED_TEST(LargeLayoutTest, ViewsAndCopies) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "integer values above 2^11, exact in f32 only");
    CSI_ALIASES(B);
    const TensorData d = iota_data(kR, kC);
    const auto x = F2::from_data(d);
    EXPECT_TRUE(matches(x.transpose(), host::permute(d, {1, 0})));
    EXPECT_TRUE(matches(x.transpose().template reshape<1>({-1}),
                        TensorData(host::permute(d, {1, 0}).to_vec<double>(), Shape{kR * kC})));
    EXPECT_TRUE(matches(x.flip({0, 1}), host::flip(host::flip(d, 0), 1)));
    EXPECT_TRUE(matches(x.flip({1}).transpose(), host::permute(host::flip(d, 1), {1, 0})));
    // A strided slice view of an interleaved copy reads back the original.
    const auto wide = F2::from_data(host::interleave(d, 1));
    EXPECT_TRUE(matches(wide.slice({Slice::all(), Slice(0, INT64_MAX, 2)}), d));
    // cat of the two halves, along either dim.
    auto halves = x.split(kC / 2 + 1, 1);
    ASSERT_EQ(halves.size(), 2u);
    EXPECT_TRUE(matches(F2::cat(halves, 1), d));
    auto rows = x.transpose().chunk(3, 1);
    EXPECT_TRUE(matches(F2::cat(rows, 1).transpose(), d));
    // repeat_dim and expand.
    auto col = x.narrow(1, 5, 1);  // values 5, 5 + C, ...
    auto rep = col.repeat_dim(1, 3).to_data().template to_vec<double>();
    ASSERT_EQ(rep.size(), kR * 3);
    for (std::size_t i = 0; i < kR; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            ASSERT_EQ(rep[i * 3 + j], static_cast<double>(i * kC + 5));
    auto ex = col.expand({kR, 400}).to_data().template to_vec<double>();
    for (std::size_t i = 0; i < kR; ++i)
        ASSERT_EQ(ex[i * 400 + 399], static_cast<double>(i * kC + 5));
    // slice_assign of a large strided region, from a transposed view.
    auto z = F2::zeros({kR, kC});
    auto src = F2::from_data(iota_data(kC / 2 + 1, kR)).transpose();  // [R, C/2+1]
    auto out = z.slice_assign({Slice::all(), Slice(0, INT64_MAX, 2)}, src)
                   .to_data()
                   .template to_vec<double>();
    for (std::size_t i = 0; i < kR; i += 7)
        for (std::size_t j = 0; j < kC; ++j)
            ASSERT_EQ(out[i * kC + j], j % 2 ? 0.0 : static_cast<double>((j / 2) * kR + i))
                << i << "," << j;
}

TYPED_TEST(LargeLayoutTest, PermutedCopiesAndCasts) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "integer values above 2^8, exact in f32 only");
    CSI_ALIASES(B);
    // A channels-last [2, 33, 40, 35] tensor seen as [2, 35, 33, 40] (its channels dim is the one
    // contiguous in memory, the innermost dim has a stride of 35): made dense as is, with the
    // width flipped (a negative stride), after a cast to Int (values kept) and to Bool (zero
    // only at the first element).
    std::vector<double> v(2 * 33 * 40 * 35);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 1000);
    const TensorData d(v, Shape{2, 33, 40, 35});
    const auto x = Tensor<B, 4>::from_data(d);
    const TensorData want = host::permute(d, {0, 3, 1, 2});
    EXPECT_TRUE(matches(x.permute({0, 3, 1, 2}), want));
    EXPECT_TRUE(matches(x.flip({2}).permute({0, 3, 1, 2}), host::flip(want, 3)));
    const auto as_int =
        x.permute({0, 3, 1, 2}).into_int().to_data().template to_vec<std::int64_t>();
    const auto as_bool = x.permute({0, 3, 1, 2}).into_bool().to_data().template to_vec<bool>();
    const auto w = want.to_vec<double>();
    ASSERT_EQ(as_int.size(), w.size());
    ASSERT_EQ(as_bool.size(), w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
        ASSERT_EQ(static_cast<double>(as_int[i]), w[i]) << i;
        ASSERT_EQ(as_bool[i], w[i] != 0.0) << i;
    }
}

TYPED_TEST(LargeLayoutTest, GatherSelectScatterArgwhere) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "integer values above 2^11, exact in f32 only");
    CSI_ALIASES(B);
    const TensorData d = iota_data(kR, kC);
    const auto x = F2::from_data(d).transpose();  // [C, R], x[i][j] = j * C + i
    // gather along dim 1 with indices (i * 7 + k * 13) % R.
    const std::size_t k = 50;
    std::vector<std::int64_t> gi(kC * k);
    for (std::size_t i = 0; i < kC; ++i)
        for (std::size_t c = 0; c < k; ++c)
            gi[i * k + c] = static_cast<std::int64_t>((i * 7 + c * 13) % kR);
    auto g = x.gather(1, I2::from_data(TensorData(gi, Shape{kC, k})))
                 .to_data()
                 .template to_vec<double>();
    for (std::size_t i = 0; i < kC; ++i)
        for (std::size_t c = 0; c < k; ++c)
            ASSERT_EQ(g[i * k + c],
                      static_cast<double>(gi[i * k + c] * static_cast<std::int64_t>(kC) +
                                          static_cast<std::int64_t>(i)));
    // select rows in reverse order = flip.
    auto rev = I1::arange_step(static_cast<std::int64_t>(kC) - 1, -1, -1);
    EXPECT_TRUE(matches(x.select(0, rev), host::flip(host::permute(d, {1, 0}), 0)));
    // scatter-add of ones at index 0 along dim 0: row 0 gains C.
    auto s = F2::zeros({2, kR}).scatter(0, I2::zeros({kC, kR}), F2::ones({kC, kR}));
    auto sv = s.to_data().template to_vec<double>();
    for (std::size_t j = 0; j < kR; ++j) {
        ASSERT_EQ(sv[j], static_cast<double>(kC));
        ASSERT_EQ(sv[kR + j], 0.0);
    }
    // argwhere of a sparse large mask, on a transposed view.
    auto mask = x.into_int().rem_scalar(1000).equal_elem(0);  // [C, R]
    auto aw = mask.argwhere().to_data().template to_vec<std::int64_t>();
    std::vector<std::int64_t> want;
    for (std::size_t i = 0; i < kC; ++i)
        for (std::size_t j = 0; j < kR; ++j)
            if ((j * kC + i) % 1000 == 0) {
                want.push_back(static_cast<std::int64_t>(i));
                want.push_back(static_cast<std::int64_t>(j));
            }
    EXPECT_EQ(aw, want);
    EXPECT_TRUE(mask.any().into_scalar());
    EXPECT_FALSE(mask.all().into_scalar());
    EXPECT_TRUE(x.greater_equal_elem(0.0).all().into_scalar());
}

}  // namespace

}  // namespace burn_test_shape_large

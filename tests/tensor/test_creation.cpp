// SPDX-License-Identifier: MIT OR Apache-2.0
// Creation ops: empty, zeros, ones, full, eye, arange, from_data / from_floats / from_ints /
// from_bools, the *_like ops, one_hot, cartesian_grid, tril/triu and their masks.
// Random creation is in test_creation_random.cpp.
#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_creation {

namespace {

using namespace burn;
using burn::csi::bools;
using burn::csi::floats;
using burn::csi::ints;
using burn::csi::matches;
using burn::csi::out;

template <class B>
class CreationTest : public ::testing::Test {};
TYPED_TEST_SUITE(CreationTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(CreationTest, EmptyHasShapeAndDtype) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto f = F3::empty({2, 3, 4});
    EXPECT_EQ(f.shape(), Shape({2, 3, 4}));
    EXPECT_EQ(f.to_data().dtype, B::default_float_dtype);
    EXPECT_EQ(f.to_data().num_elements(), 24u);
    auto i = I2::empty({5, 1});
    EXPECT_EQ(i.shape(), Shape({5, 1}));
    EXPECT_EQ(i.to_data().dtype, B::int_dtype);
    auto b = Bo1::empty({7});
    EXPECT_EQ(b.shape(), Shape({7}));
    EXPECT_EQ(b.to_data().dtype, DType::Bool);
    auto z = F2::empty({0, 3});
    EXPECT_EQ(z.num_elements(), 0u);
    EXPECT_EQ(z.to_data().bytes().size(), 0u);
}

TYPED_TEST(CreationTest, ZerosOnesFullAllKinds) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_TRUE(matches(F2::zeros({2, 3}), floats<2>({{0, 0, 0}, {0, 0, 0}})));
    EXPECT_TRUE(matches(F2::ones({3, 1}), floats<2>({{1}, {1}, {1}})));
    EXPECT_TRUE(matches(F1::full({3}, 2.5), floats<1>({2.5, 2.5, 2.5})));
    EXPECT_TRUE(matches(F1::full({2}, 7), floats<1>({7, 7})));  // int scalar
    EXPECT_TRUE(matches(I2::zeros({1, 2}), ints<2>({{0, 0}})));
    EXPECT_TRUE(matches(I2::ones({2, 1}), ints<2>({{1}, {1}})));
    EXPECT_TRUE(matches(I1::full({3}, -4), ints<1>({-4, -4, -4})));
    // A float scalar for an Int tensor truncates toward zero (like torch.full(.., dtype=long)).
    EXPECT_TRUE(matches(I1::full({2}, -2.7), ints<1>({-2, -2})));
    EXPECT_TRUE(matches(Bo2::zeros({2, 2}), bools<2>({{false, false}, {false, false}})));
    EXPECT_TRUE(matches(Bo2::ones({1, 3}), bools<2>({{true, true, true}})));
    EXPECT_TRUE(matches(Bo1::full({2}, true), bools<1>({true, true})));
    EXPECT_TRUE(matches(Bo1::full({2}, false), bools<1>({false, false})));
    // Special float values.
    const double inf = std::numeric_limits<double>::infinity();
    auto n = F1::full({2}, std::numeric_limits<double>::quiet_NaN()).to_data();
    EXPECT_TRUE(std::isnan(n.value_as_double(0)) && std::isnan(n.value_as_double(1)));
    EXPECT_TRUE(matches(F1::full({1}, -inf), floats<1>({-inf})));
    // Empty dims.
    EXPECT_EQ(F3::zeros({2, 0, 3}).shape(), Shape({2, 0, 3}));
    EXPECT_EQ(I2::ones({0, 0}).num_elements(), 0u);
    EXPECT_EQ(Bo1::full({0}, true).shape(), Shape({0}));
}

TYPED_TEST(CreationTest, CreationRejectsWrongRank) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_BURN_ERROR((F2::empty({2, 3, 4})), "Tensor::empty");
    EXPECT_BURN_ERROR((F2::zeros({2})), "Tensor::zeros");
    EXPECT_BURN_ERROR((I2::zeros({2})), "Tensor::zeros");
    EXPECT_BURN_ERROR((F1::ones({2, 2})), "Tensor::ones");
    EXPECT_BURN_ERROR((F3::full({2, 2}, 1.0)), "Tensor::full");
    EXPECT_BURN_ERROR((Bo3::full({2, 2}, true)), "Tensor::full");
    EXPECT_BURN_ERROR((F1::random({2, 2})), "Tensor::random");
    EXPECT_BURN_ERROR((F2::from_data(TensorData::from<float>({1, 2}))), "Tensor::from_data");
    EXPECT_BURN_ERROR((I2::cartesian_grid({2, 2, 2})), "Tensor::cartesian_grid");
    // from_primitive with a primitive of another rank.
    auto p = F3::zeros({1, 2, 3}).into_primitive();
    EXPECT_BURN_ERROR((F2::from_primitive(p)), "Tensor::from_primitive");
}

TYPED_TEST(CreationTest, FromDataConvertsAnyDtype) {
    using B = TypeParam;
    CSI_ALIASES(B);
    // f64 data into a float tensor, i32 into an int tensor, floats into a bool tensor.
    auto f = F2::from_data(TensorData(std::vector<double>{1.5, -2, 3, 4.25}, Shape{2, 2}));
    EXPECT_TRUE(matches(f, floats<2>({{1.5, -2}, {3, 4.25}})));
    auto i = I1::from_data(TensorData::from<std::int32_t>({7, -8, 9}));
    EXPECT_TRUE(matches(i, ints<1>({7, -8, 9})));
    auto i2 = I1::from_data(TensorData::from<float>({2.9f, -2.9f}));
    EXPECT_TRUE(matches(i2, ints<1>({2, -2})));
    auto b = Bo1::from_data(TensorData::from<float>({0.f, 0.5f, -1.f}));
    EXPECT_TRUE(matches(b, bools<1>({false, true, true})));
    auto fb = F1::from_data(TensorData::from<bool>({true, false}));
    EXPECT_TRUE(matches(fb, floats<1>({1, 0})));
    auto fh = F1::from_data(TensorData::from<f16>({f16(0.5f), f16(-3.0f)}));
    EXPECT_TRUE(matches(fh, floats<1>({0.5, -3})));
    auto fbf = F1::from_data(TensorData::from<bf16>({bf16(1.5f), bf16(-0.25f)}));
    EXPECT_TRUE(matches(fbf, floats<1>({1.5, -0.25})));
    auto iu = I1::from_data(TensorData::from<std::uint8_t>({0, 200, 255}));
    EXPECT_TRUE(matches(iu, ints<1>({0, 200, 255})));
    // Round trip keeps the values bit for bit (the data's dtype is the backend's).
    auto r = F3::from_data(csi::in_data("reshape", "x"));
    EXPECT_TRUE(matches(r, csi::in_data("reshape", "x")));
    // Empty.
    auto e = F2::from_data(TensorData(std::vector<float>{}, Shape{0, 4}));
    EXPECT_EQ(e.shape(), Shape({0, 4}));
}

TYPED_TEST(CreationTest, FromFloatsIntsBools) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto f = F2::from_floats({{1, 2, 3}, {4, 5, 6}});
    EXPECT_EQ(f.shape(), Shape({2, 3}));
    EXPECT_TRUE(matches(f, floats<2>({{1, 2, 3}, {4, 5, 6}})));
    auto f3 = F3::from_floats({{{1.25}, {-2}}, {{3}, {4}}});
    EXPECT_EQ(f3.shape(), Shape({2, 2, 1}));
    EXPECT_TRUE(matches(f3, floats<3>({{{1.25}, {-2}}, {{3}, {4}}})));
    if constexpr (burn::testing::int64_backend<B>) {
        auto i = I1::from_ints({-1, 0, 1, 1LL << 40});
        EXPECT_TRUE(matches(i, ints<1>({-1, 0, 1, 1LL << 40})));
    } else {  // 32-bit ints: the extremes of the type survive
        auto i = I1::from_ints({-1, 0, 1, INT32_MAX, INT32_MIN});
        EXPECT_TRUE(matches(i, ints<1>({-1, 0, 1, INT32_MAX, INT32_MIN})));
        EXPECT_EQ(i.to_data().template to_vec<std::int64_t>(),
                  (std::vector<std::int64_t>{-1, 0, 1, INT32_MAX, INT32_MIN}));
    }
    auto b = Bo2::from_bools({{true, false}, {false, true}});
    EXPECT_TRUE(matches(b, bools<2>({{true, false}, {false, true}})));
    // Ragged lists are rejected.
    EXPECT_BURN_ERROR((F2::from_floats({{1, 2}, {3}})), "ragged");
}

TYPED_TEST(CreationTest, LikeOps) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto x = F2::from_floats({{1, 2, 3}, {4, 5, 6}}).transpose();  // [3, 2] view
    EXPECT_TRUE(matches(x.zeros_like(), floats<2>({{0, 0}, {0, 0}, {0, 0}})));
    EXPECT_TRUE(matches(x.ones_like(), floats<2>({{1, 1}, {1, 1}, {1, 1}})));
    EXPECT_TRUE(matches(x.full_like(-0.5), floats<2>({{-0.5, -0.5}, {-0.5, -0.5}, {-0.5, -0.5}})));
    auto r = x.random_like(Distribution::Uniform(2.0, 3.0));
    EXPECT_EQ(r.shape(), Shape({3, 2}));
    EXPECT_TRUE(r.greater_equal_elem(2.0).all().into_scalar());
    EXPECT_TRUE(r.lower_elem(3.0).all().into_scalar());
    auto i = I1::from_ints({5, 6, 7});
    EXPECT_TRUE(matches(i.zeros_like(), ints<1>({0, 0, 0})));
    EXPECT_TRUE(matches(i.ones_like(), ints<1>({1, 1, 1})));
    EXPECT_TRUE(matches(i.full_like(9), ints<1>({9, 9, 9})));
    auto ir = i.random_like(Distribution::Uniform(10, 12));
    EXPECT_TRUE(ir.greater_equal_elem(10).all().into_scalar());
    EXPECT_TRUE(ir.lower_elem(12).all().into_scalar());
    auto b = Bo2::from_bools({{true}, {false}});
    EXPECT_TRUE(matches(b.zeros_like(), bools<2>({{false}, {false}})));
    EXPECT_TRUE(matches(b.ones_like(), bools<2>({{true}, {true}})));
    EXPECT_TRUE(matches(b.full_like(true), bools<2>({{true}, {true}})));
    auto e = F2::zeros({0, 3});
    EXPECT_EQ(e.ones_like().shape(), Shape({0, 3}));
    EXPECT_EQ(e.random_like().shape(), Shape({0, 3}));
}

TYPED_TEST(CreationTest, Eye) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_TRUE(matches(F2::eye(4), out("eye", "n4")));
    EXPECT_TRUE(matches(F2::eye(1), out("eye", "n1")));
    EXPECT_TRUE(matches(I2::eye(3), ints<2>({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})));
}

TYPED_TEST(CreationTest, Arange) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_TRUE(matches(I1::arange(5, 10), out("arange", "a_5_10")));
    EXPECT_TRUE(matches(I1::arange_step(0, 10, 3), out("arange", "s_0_10_3")));
    EXPECT_TRUE(matches(I1::arange_step(10, 0, -3), out("arange", "s_10_0_m3")));
    EXPECT_TRUE(matches(I1::arange_step(-5, 6, 2), out("arange", "s_m5_6_2")));
    EXPECT_TRUE(matches(I1::arange_step(3, 3, 1), out("arange", "s_3_3_1")));
    EXPECT_TRUE(matches(I1::arange_step(0, -7, -2), out("arange", "s_0_m7_m2")));
    // An empty range (Burn's 5..2) gives an empty tensor.
    EXPECT_EQ(I1::arange(5, 2).shape(), Shape({0}));
    EXPECT_EQ(I1::arange_step(0, 5, -1).shape(), Shape({0}));
    if constexpr (burn::testing::int64_backend<B>) {
        // Values beyond 32 bits survive.
        EXPECT_TRUE(matches(I1::arange((1LL << 40), (1LL << 40) + 3),
                            ints<1>({1LL << 40, (1LL << 40) + 1, (1LL << 40) + 2})));
    } else {
        // 32-bit ints: values up to the top of the type survive (and are not rounded to f32).
        constexpr std::int64_t top = INT32_MAX;
        EXPECT_EQ(I1::arange(top - 3, top).to_data().template to_vec<std::int64_t>(),
                  (std::vector<std::int64_t>{top - 3, top - 2, top - 1}));
        EXPECT_EQ(
            I1::arange_step(INT32_MIN, INT32_MIN + 5, 2).to_data().template to_vec<std::int64_t>(),
            (std::vector<std::int64_t>{INT32_MIN, INT32_MIN + 2, INT32_MIN + 4}));
    }
    EXPECT_BURN_ERROR((I1::arange_step(0, 5, 0)), "Tensor::arange_step");
}

TYPED_TEST(CreationTest, OneHotFloatStatic) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_TRUE(matches(F1::one_hot(2, 5), floats<1>({0, 0, 1, 0, 0})));
    EXPECT_TRUE(matches(F1::one_hot(0, 1), floats<1>({1})));
    EXPECT_TRUE(matches(F1::one_hot(3, 4), floats<1>({0, 0, 0, 1})));
    EXPECT_BURN_ERROR((F1::one_hot(5, 5)), "Tensor::one_hot");
    EXPECT_BURN_ERROR((F1::one_hot(0, 0)), "Tensor::one_hot");
}

TYPED_TEST(CreationTest, OneHotIntMethod) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, idx] : csi::in_layouts<B, 2, Int>("one_hot", "idx2")) {
        SCOPED_TRACE(name);
        auto oh = idx.one_hot(5);
        static_assert(decltype(oh)::rank == 3);
        EXPECT_TRUE(matches(oh, out("one_hot", "oh2")));
    }
    auto idx1 = csi::in<B, 1, Int>("one_hot", "idx1");
    EXPECT_TRUE(matches(idx1.one_hot(4), out("one_hot", "oh1")));
    EXPECT_TRUE(matches(idx1.one_hot(7), out("one_hot", "oh1_wide")));
    // Empty input.
    EXPECT_EQ(I1::zeros({0}).one_hot(3).shape(), Shape({0, 3}));
    // Values outside [0, num_classes).
    EXPECT_BURN_ERROR((idx1.one_hot(3)), "Tensor::one_hot");
    EXPECT_BURN_ERROR((I1::from_ints({0, -1}).one_hot(3)), "Tensor::one_hot");
}

TYPED_TEST(CreationTest, CartesianGrid) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto g = I2::cartesian_grid({2, 3});
    static_assert(decltype(g)::rank == 3);
    EXPECT_TRUE(matches(g, out("cartesian_grid", "g_2_3")));
    EXPECT_TRUE(matches(I3::cartesian_grid({2, 3, 4}), out("cartesian_grid", "g_2_3_4")));
    EXPECT_TRUE(matches(I1::cartesian_grid({4}), out("cartesian_grid", "g_4")));
}

std::string dname(std::int64_t d) {
    std::string s = d < 0 ? "m" : "";
    s += std::to_string(d < 0 ? -d : d);
    return s;
}

TYPED_TEST(CreationTest, TrilTriuMatchTorch) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 2>("tril_triu", "x")) {
        SCOPED_TRACE(name);
        for (std::int64_t d : {-5, -2, -1, 0, 1, 3, 6}) {
            SCOPED_TRACE("diagonal " + std::to_string(d));
            EXPECT_TRUE(matches(x.tril(d), out("tril_triu", "tril_" + dname(d))));
            EXPECT_TRUE(matches(x.triu(d), out("tril_triu", "triu_" + dname(d))));
        }
        EXPECT_TRUE(matches(x.tril(), out("tril_triu", "tril_0")));
        EXPECT_TRUE(matches(x.triu(), out("tril_triu", "triu_0")));
    }
    for (auto& [name, xb] : csi::in_layouts<B, 3>("tril_triu", "xb")) {
        SCOPED_TRACE(name);
        for (std::int64_t d : {-1, 1}) {
            EXPECT_TRUE(matches(xb.tril(d), out("tril_triu", "btril_" + dname(d))));
            EXPECT_TRUE(matches(xb.triu(d), out("tril_triu", "btriu_" + dname(d))));
        }
    }
    for (auto& [name, xi] : csi::in_layouts<B, 2, Int>("tril_triu", "xi")) {
        SCOPED_TRACE(name);
        for (std::int64_t d : {-1, 1}) {
            EXPECT_TRUE(matches(xi.tril(d), out("tril_triu", "itril_" + dname(d))));
            EXPECT_TRUE(matches(xi.triu(d), out("tril_triu", "itriu_" + dname(d))));
        }
    }
    EXPECT_EQ(F2::zeros({0, 3}).tril(0).shape(), Shape({0, 3}));
}

TYPED_TEST(CreationTest, TriMasks) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{3, 3}, {3, 5}, {5, 2}}) {
        for (std::int64_t d : {-2, 0, 1}) {
            const std::string tag = std::to_string(r) + "x" + std::to_string(c) + "_" + dname(d);
            SCOPED_TRACE(tag);
            EXPECT_TRUE(matches(Bo2::tril_mask({r, c}, d), out("tri_masks", "tril_" + tag)));
            EXPECT_TRUE(matches(Bo2::triu_mask({r, c}, d), out("tri_masks", "triu_" + tag)));
            EXPECT_TRUE(matches(Bo2::diag_mask({r, c}, d), out("tri_masks", "diag_" + tag)));
        }
    }
    // Default diagonal is 0; tril_mask is true strictly above the diagonal.
    EXPECT_TRUE(matches(Bo2::tril_mask({2, 2}), bools<2>({{false, true}, {false, false}})));
    EXPECT_TRUE(matches(Bo2::triu_mask({2, 2}), bools<2>({{false, false}, {true, false}})));
    EXPECT_TRUE(matches(Bo2::diag_mask({2, 2}), bools<2>({{false, true}, {true, false}})));
    // Batched shapes broadcast the mask over leading dims.
    EXPECT_TRUE(matches(Bo3::tril_mask({2, 3, 4}, 1), out("tri_masks", "tril_b2x3x4_1")));
    EXPECT_TRUE(matches(Bo3::triu_mask({2, 3, 4}, 1), out("tri_masks", "triu_b2x3x4_1")));
    EXPECT_TRUE(matches(Bo3::diag_mask({2, 3, 4}, 1), out("tri_masks", "diag_b2x3x4_1")));
    // Masks with an empty dim.
    EXPECT_EQ(Bo2::tril_mask({0, 3}).shape(), Shape({0, 3}));
    // Wrong rank, and rank 1 (no rows and columns).
    EXPECT_BURN_ERROR((Bo2::tril_mask({2, 2, 2})), "Tensor::tril_mask");
    EXPECT_BURN_ERROR((Bo2::triu_mask({2})), "Tensor::triu_mask");
    EXPECT_BURN_ERROR((Bo2::diag_mask({2, 3, 1})), "Tensor::diag_mask");
}

// Zero-sized results of the composite creation ops (torch.eye(0), an empty grid, masks of a
// [3, 0] matrix). Each is checked separately so that one throwing does not hide the others.
TYPED_TEST(CreationTest, ZeroSizedCompositeCreation) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_TRUE(csi::runs([&] { EXPECT_TRUE(matches(F2::eye(0), out("eye", "n0"))); }));
    EXPECT_TRUE(csi::runs([&] {
        EXPECT_TRUE(matches(I2::cartesian_grid({2, 0}), out("cartesian_grid", "g_2_0")));
    }));
    EXPECT_TRUE(csi::runs([&] { EXPECT_EQ(Bo2::tril_mask({3, 0}).shape(), Shape({3, 0})); }));
    EXPECT_TRUE(csi::runs([&] { EXPECT_EQ(Bo2::triu_mask({3, 0}, 1).shape(), Shape({3, 0})); }));
    EXPECT_TRUE(csi::runs([&] { EXPECT_EQ(Bo2::diag_mask({3, 0}).shape(), Shape({3, 0})); }));
    EXPECT_TRUE(csi::runs([&] { EXPECT_EQ(F2::zeros({3, 0}).tril(1).shape(), Shape({3, 0})); }));
    EXPECT_TRUE(csi::runs([&] { EXPECT_EQ(I2::zeros({3, 0}).triu(0).shape(), Shape({3, 0})); }));
}

}  // namespace

}  // namespace burn_test_creation

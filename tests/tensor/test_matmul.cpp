// SPDX-License-Identifier: MIT OR Apache-2.0
// matmul: 2-D, batched 3-D and 4-D, broadcast batch dims ([2,1,3,4] x [1,5,4,2]), transposed /
// flipped / step-sliced / expanded (non-contiguous) operands, the rank-1 dot product, thin and
// empty shapes, a 256x300x200 product against torch float64, and the shape errors.
// Expected values: tests/fixtures/numeric.json.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "numeric_helpers.hpp"
#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_matmul {

namespace {

using burn::Float;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::Tolerance;
using burn::testing::close_to;

using namespace burn::testing::numeric;

template <class B>
class MatmulTest : public ::testing::Test {};
TYPED_TEST_SUITE(MatmulTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(MatmulTest, TwoDEveryLayoutPair) {
    using B = TypeParam;
    const std::string c = "mm2d";  // [3, 4] x [4, 5]
    auto bs = layouts<B, 2>(c, "b");
    for (auto& [la, a] : layouts<B, 2>(c, "a")) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + " x " + lb);
            auto y = a.matmul(b);
            EXPECT_EQ(y.shape(), burn::Shape({3, 5}));
            EXPECT_TRUE(close_to(y, expected(c, "y")));
        }
    }
    // (a b)^T = b^T a^T, through transposed views of both operands.
    auto a = input<B, 2>(c, "a");
    auto b = input<B, 2>(c, "b");
    EXPECT_TRUE(close_to(b.transpose().matmul(a.transpose()), a.matmul(b).transpose().to_data()));
}

TYPED_TEST(MatmulTest, Batched3DEveryLayoutPair) {
    using B = TypeParam;
    const std::string c = "mm3d";  // [2, 3, 4] x [2, 4, 5]
    auto bs = layouts<B, 3>(c, "b");
    for (auto& [la, a] : layouts<B, 3>(c, "a")) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + " x " + lb);
            EXPECT_TRUE(close_to(a.matmul(b), expected(c, "y")));
        }
    }
}

TYPED_TEST(MatmulTest, Batched4DEveryLayoutPair) {
    using B = TypeParam;
    const std::string c = "mm4d";  // [2, 3, 2, 4] x [2, 3, 4, 3]
    auto bs = layouts<B, 4>(c, "b");
    for (auto& [la, a] : layouts<B, 4>(c, "a")) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + " x " + lb);
            auto y = a.matmul(b);
            EXPECT_EQ(y.shape(), burn::Shape({2, 3, 2, 3}));
            EXPECT_TRUE(close_to(y, expected(c, "y")));
        }
    }
}

TYPED_TEST(MatmulTest, BroadcastBatchDims) {
    using B = TypeParam;
    const std::string c = "mm_bcast";
    auto a = input<B, 4>(c, "a");  // [2, 1, 3, 4]
    auto b = input<B, 4>(c, "b");  // [1, 5, 4, 2]
    auto y = a.matmul(b);
    EXPECT_EQ(y.shape(), burn::Shape({2, 5, 3, 2}));
    EXPECT_TRUE(close_to(y, expected(c, "y")));
    // The same with the batch dims materialised by expand() (zero-stride views).
    EXPECT_TRUE(close_to(a.expand({2, 5, 3, 4}).matmul(b.expand({2, 5, 4, 2})), expected(c, "y")));
    EXPECT_TRUE(close_to(a.expand({2, 5, 3, 4}).matmul(b), expected(c, "y")));
    // Broadcast operand on the left, then on the right with transposed views of both.
    auto a3 = input<B, 3>(c, "a3");  // [1, 3, 4]
    auto b3 = input<B, 3>(c, "b3");  // [2, 4, 5]
    EXPECT_TRUE(close_to(a3.matmul(b3), expected(c, "y3")));
    EXPECT_TRUE(close_to(b3.swap_dims(1, 2).matmul(a3.swap_dims(1, 2)), expected(c, "y3_rev")));
    EXPECT_TRUE(close_to(a3.expand({2, 3, 4}).matmul(b3), expected(c, "y3")));
}

TYPED_TEST(MatmulTest, RankOneDotProduct) {
    using B = TypeParam;
    const std::string c = "mm_dot";
    auto a = input<B, 1>(c, "a");
    auto b = input<B, 1>(c, "b");
    auto y = a.matmul(b);
    EXPECT_EQ(y.shape(), burn::Shape({1}));
    EXPECT_TRUE(close_to(y, expected(c, "y")));
    EXPECT_TRUE(close_to(a.flip({0}).matmul(b.flip({0})), expected(c, "y")));
}

TYPED_TEST(MatmulTest, ThinAndEmptyShapes) {
    using B = TypeParam;
    const std::string c = "mm_thin";
    auto r = input<B, 2>(c, "r");                                // [1, 6]
    auto col = input<B, 2>(c, "c");                              // [6, 1]
    EXPECT_TRUE(close_to(r.matmul(col), expected(c, "inner")));  // [1, 1]
    EXPECT_TRUE(close_to(col.matmul(r), expected(c, "outer")));  // [6, 6], K = 1
    // r^T c^T = (c r)^T, from transposed views of both.
    EXPECT_TRUE(close_to(r.transpose().matmul(col.transpose()).transpose(), expected(c, "outer")));
    // K = 0 gives zeros (an empty sum); M = 0 or N = 0 give empty results.
    using F2 = Tensor<B, 2>;
    EXPECT_TRUE(
        close_to(F2::ones({3, 0}).matmul(F2::ones({0, 4})), TensorData::full<double>({3, 4}, 0.0)));
    EXPECT_EQ(F2::ones({0, 4}).matmul(F2::ones({4, 5})).shape(), burn::Shape({0, 5}));
    EXPECT_EQ(F2::ones({3, 4}).matmul(F2::ones({4, 0})).shape(), burn::Shape({3, 0}));
}

TYPED_TEST(MatmulTest, LargeAgainstTorchFloat64) {
    BURN_REQUIRE_FULL_PRECISION(TypeParam, "products of large k against f64 at f32 tolerance");
    // 256x300 @ 300x200 with the inputs of gen_numeric.py's formula (multiples of 2^-15, exact in
    // f32 and f64; every f64 partial sum is exact, so the f64 backend must match to rounding).
    // f32 (widened, the one place in this file): each entry sums 300 products of |.| <= 1 whose
    // absolute values add up to ~75; BLAS's blocked/FMA f32 summation is typically ~1e-5 off and
    // bounded by ~300 * 6e-8 * 75 = 1.4e-3, so entries get 1e-4 absolute + 1e-4 relative. The row
    // and column sums add 200-256 f32 entries of magnitude ~10 (another ~200 * 10 * 6e-8 = 1.2e-4
    // of rounding, observed 1.2e-4 on results near 2), so they get 1e-3 absolute.
    // The small products above (K <= 6, |terms| <= 4) stay within the default 1e-5.
    using B = TypeParam;
    const std::string c = "mm_large";
    const auto& p = burn::testing::fixture(kFile, c).at("params");
    const auto m = p.at("m").get<std::size_t>(), k = p.at("k").get<std::size_t>(),
               n = p.at("n").get<std::size_t>();
    const auto stride = p.at("stride").get<std::int64_t>();
    auto formula = [](std::size_t rows, std::size_t cols, std::int64_t salt) {
        std::vector<double> v(rows * cols);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) {
                const auto ii = static_cast<std::int64_t>(i);
                const auto jj = static_cast<std::int64_t>(j) + salt;
                v[i * cols + j] =
                    static_cast<double>((ii * 7919 + jj * 104729 + ii * jj * 31) % 65536) /
                        32768.0 -
                    1.0;
            }
        return TensorData(std::move(v), {rows, cols});
    };
    auto a = Tensor<B, 2>::from_data(formula(m, k, p.at("salt_a").get<std::int64_t>()));
    auto b = Tensor<B, 2>::from_data(formula(k, n, p.at("salt_b").get<std::int64_t>()));
    const bool f32 = std::is_same_v<typename B::FloatElem, float>;
    const Tolerance entry = f32 ? Tolerance{1e-4, 1e-4} : burn::testing::tolerance<B>();
    const Tolerance sums = f32 ? Tolerance{1e-3, 1e-4} : burn::testing::tolerance<B>();
    auto check = [&](const Tensor<B, 2>& y, const std::string& label) {
        SCOPED_TRACE(label);
        ASSERT_EQ(y.shape(), burn::Shape({m, n}));
        EXPECT_TRUE(close_to(y.template reshape<1>({-1}).slice({Slice(0, INT64_MAX, stride)}),
                             expected(c, "sampled"), entry));
        EXPECT_TRUE(close_to(y.sum_dim(1), expected(c, "row_sum"), sums));
        EXPECT_TRUE(close_to(y.sum_dim(0), expected(c, "col_sum"), sums));
    };
    check(a.matmul(b), "contiguous");
    // a and b as transposed views of transposed copies (strided operands), then (b^T a^T)^T.
    auto at = a.transpose().to_data(), bt = b.transpose().to_data();
    auto at_t = Tensor<B, 2>::from_data(at).transpose();  // a again, as a strided view
    auto bt_t = Tensor<B, 2>::from_data(bt).transpose();
    check(at_t.matmul(bt_t), "transposed operands");
    check(Tensor<B, 2>::from_data(bt).matmul(Tensor<B, 2>::from_data(at)).transpose(),
          "transposed product");
}

TYPED_TEST(MatmulTest, ShapeErrorsNameTheOp) {
    using B = TypeParam;
    using F1 = Tensor<B, 1>;
    using F2 = Tensor<B, 2>;
    using F3 = Tensor<B, 3>;
    using F4 = Tensor<B, 4>;
    EXPECT_BURN_ERROR(F2::ones({3, 4}).matmul(F2::ones({5, 6})), "Tensor::matmul");
    EXPECT_BURN_ERROR(F2::ones({3, 4}).matmul(F2::ones({3, 4})), "Tensor::matmul");
    EXPECT_BURN_ERROR(F3::ones({2, 3, 4}).matmul(F3::ones({2, 5, 4})), "Tensor::matmul");
    EXPECT_BURN_ERROR(F3::ones({2, 3, 4}).matmul(F3::ones({3, 4, 5})), "Tensor::matmul");  // batch
    EXPECT_BURN_ERROR(F4::ones({2, 2, 3, 4}).matmul(F4::ones({2, 3, 4, 5})), "Tensor::matmul");
    EXPECT_BURN_ERROR(F1::ones({3}).matmul(F1::ones({4})), "Tensor::matmul");
    try {
        (void)F2::ones({3, 4}).matmul(F2::ones({5, 6}));
        ADD_FAILURE() << "expected burn::Error";
    } catch (const burn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("inner dims"), std::string::npos) << e.what();
    }
}

}  // namespace

}  // namespace burn_test_matmul

// SPDX-License-Identifier: MIT OR Apache-2.0
// Reductions: sum/mean/prod/max/min, their _dim forms along every dim (kept with size 1),
// max/min_dim_with_indices and argmax/argmin (first index on ties, NaN counts as the extremum, as
// torch), var/var_bias/var_mean/var_mean_bias against torch.var(unbiased, keepdim=True), Int
// reductions (truncating mean, exact int64 sums), empty dims, dim errors, and the accumulation
// accuracy of a 1M-element f32 sum. Expected values: tests/fixtures/numeric.json.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "numeric_helpers.hpp"
#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_reduce {

namespace {

using burn::Float;
using burn::Int;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;
using burn::testing::equal_to;

using namespace burn::testing::numeric;

template <class B>
class ReduceTest : public ::testing::Test {};
TYPED_TEST_SUITE(ReduceTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(ReduceTest, FullReductionsEveryLayout) {
    using B = TypeParam;
    const std::string c = "reduce";  // [3, 4, 5], values with many ties
    for (auto& [l, x] : layouts<B, 3>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_EQ(x.sum().shape(), burn::Shape({1}));
        EXPECT_TRUE(close_to(x.sum(), expected(c, "sum")));
        EXPECT_TRUE(close_to(x.mean(), expected(c, "mean")));
        EXPECT_TRUE(close_to(x.max(), expected(c, "max")));
        EXPECT_TRUE(close_to(x.min(), expected(c, "min")));
    }
}

TYPED_TEST(ReduceTest, DimReductionsEveryDimEveryLayout) {
    using B = TypeParam;
    const std::string c = "reduce";
    for (auto& [l, x] : layouts<B, 3>(c, "x")) {
        for (std::int64_t d = 0; d < 3; ++d) {
            for (std::int64_t dim : {d, d - 3}) {  // and the same dim counted from the end
                SCOPED_TRACE(l + ", dim " + std::to_string(dim));
                const std::string s = "_d" + std::to_string(d);
                EXPECT_TRUE(close_to(x.sum_dim(dim), expected(c, "sum" + s)));
                EXPECT_TRUE(close_to(x.mean_dim(dim), expected(c, "mean" + s)));
                EXPECT_TRUE(close_to(x.max_dim(dim), expected(c, "max" + s)));
                EXPECT_TRUE(close_to(x.min_dim(dim), expected(c, "min" + s)));
                EXPECT_TRUE(equal_to(x.argmax(dim), expected(c, "argmax" + s)));
                EXPECT_TRUE(equal_to(x.argmin(dim), expected(c, "argmin" + s)));
                auto [mx, imx] = x.max_dim_with_indices(dim);
                EXPECT_TRUE(close_to(mx, expected(c, "max" + s)));
                EXPECT_TRUE(equal_to(imx, expected(c, "argmax" + s)));
                auto [mn, imn] = x.min_dim_with_indices(dim);
                EXPECT_TRUE(close_to(mn, expected(c, "min" + s)));
                EXPECT_TRUE(equal_to(imn, expected(c, "argmin" + s)));
            }
        }
    }
}

TYPED_TEST(ReduceTest, Prod) {
    using B = TypeParam;
    const std::string c = "reduce_prod";  // [2, 3, 4], |x| in [0.5, 1.5], mixed signs
    for (auto& [l, x] : layouts<B, 3>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(close_to(x.prod(), expected(c, "prod")));
        for (std::int64_t d = 0; d < 3; ++d)
            EXPECT_TRUE(close_to(x.prod_dim(d), expected(c, "prod_d" + std::to_string(d)))) << d;
    }
}

TYPED_TEST(ReduceTest, NaNIsTheExtremumAndIndexIsTheFirst) {
    using B = TypeParam;
    const std::string c = "reduce_nan";  // rows: [1 nan 3 nan] [2 -1 2 0] [-inf 5 nan inf]
                                         //       [inf inf -inf -inf]
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        for (std::int64_t d = 0; d < 2; ++d) {
            SCOPED_TRACE(l + ", dim " + std::to_string(d));
            const std::string s = "_d" + std::to_string(d);
            EXPECT_TRUE(close_to(x.max_dim(d), expected(c, "max" + s)));
            EXPECT_TRUE(close_to(x.min_dim(d), expected(c, "min" + s)));
            EXPECT_TRUE(close_to(x.sum_dim(d), expected(c, "sum" + s)));
            EXPECT_TRUE(equal_to(x.argmax(d), expected(c, "argmax" + s)));
            EXPECT_TRUE(equal_to(x.argmin(d), expected(c, "argmin" + s)));
            auto [mx, imx] = x.max_dim_with_indices(d);
            EXPECT_TRUE(close_to(mx, expected(c, "max" + s)));
            EXPECT_TRUE(equal_to(imx, expected(c, "argmax" + s)));
            auto [mn, imn] = x.min_dim_with_indices(d);
            EXPECT_TRUE(close_to(mn, expected(c, "min" + s)));
            EXPECT_TRUE(equal_to(imn, expected(c, "argmin" + s)));
        }
        EXPECT_TRUE(std::isnan(x.max().into_scalar())) << l;
        EXPECT_TRUE(std::isnan(x.min().into_scalar())) << l;
    }
}

TYPED_TEST(ReduceTest, ExpandedInputs) {
    // A [1, 4] row expanded to [3, 4] (stride 0 along dim 0): reducing the expanded dim sees
    // three equal rows; ties give index 0. Reference values from the contiguous row.
    using B = TypeParam;
    auto row = input<B, 2>("var", "x").slice({Slice(1, 2)});  // [1, 4] at an offset
    auto x = row.expand({3, 4});
    const auto zeros_i = TensorData::full<std::int64_t>({1, 4}, 0);
    EXPECT_TRUE(close_to(x.sum_dim(0), row.mul_scalar(3.0).to_data()));
    EXPECT_TRUE(close_to(x.mean_dim(0), row.to_data()));
    EXPECT_TRUE(close_to(x.prod_dim(0), (row * row * row).to_data()));
    EXPECT_TRUE(close_to(x.max_dim(0), row.to_data()));
    EXPECT_TRUE(close_to(x.min_dim(0), row.to_data()));
    EXPECT_TRUE(equal_to(x.argmax(0), zeros_i));
    EXPECT_TRUE(equal_to(x.argmin(0), zeros_i));
    EXPECT_TRUE(close_to(x.var_bias(0), TensorData::full<double>({1, 4}, 0.0)));
    EXPECT_TRUE(close_to(x.sum_dim(1), row.sum_dim(1).expand({3, 1}).to_data()));
    EXPECT_TRUE(equal_to(x.argmax(1), row.argmax(1).expand({3, 1}).to_data()));
    EXPECT_TRUE(close_to(x.sum(), row.sum().mul_scalar(3.0).to_data()));
    EXPECT_TRUE(close_to(x.max(), row.max().to_data()));
    auto xi = input<B, 2, Int>("int_reduce", "x").slice({Slice(0, 1)}).expand({2, 4});
    EXPECT_TRUE(equal_to(xi.sum_dim(0),
                         (input<B, 2, Int>("int_reduce", "x").slice({Slice(0, 1)}) * 2).to_data()));
}

TYPED_TEST(ReduceTest, VarianceMatchesTorch) {
    using B = TypeParam;
    const std::string c = "var";
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        for (std::int64_t d = 0; d < 2; ++d) {
            for (std::int64_t dim : {d, d - 2}) {
                SCOPED_TRACE(l + ", dim " + std::to_string(dim));
                const std::string s = "_d" + std::to_string(d);
                EXPECT_TRUE(close_to(x.var(dim), expected(c, "var" + s)));
                EXPECT_TRUE(close_to(x.var_bias(dim), expected(c, "varb" + s)));
                auto [v, m] = x.var_mean(dim);
                EXPECT_TRUE(close_to(v, expected(c, "var" + s)));
                EXPECT_TRUE(close_to(m, expected(c, "mean" + s)));
                auto [vb, mb] = x.var_mean_bias(dim);
                EXPECT_TRUE(close_to(vb, expected(c, "varb" + s)));
                EXPECT_TRUE(close_to(mb, expected(c, "mean" + s)));
            }
        }
    }
    // One sample: the unbiased variance is NaN (0 / 0, as torch), the biased one 0.
    const std::string s = "var_single";
    EXPECT_TRUE(close_to(input<B, 2>(s, "x").var(1), expected(s, "var")));
    EXPECT_TRUE(close_to(input<B, 2>(s, "x").var_bias(1), expected(s, "varb")));
}

TYPED_TEST(ReduceTest, IntReductions) {
    using B = TypeParam;
    const std::string c = "int_reduce";
    auto ps = layouts<B, 2, Int>(c, "p");
    auto xs = layouts<B, 2, Int>(c, "x");
    for (std::size_t i = 0; i < xs.size(); ++i) {
        auto& [l, x] = xs[i];
        auto& p = ps[i].second;
        SCOPED_TRACE(l);
        EXPECT_TRUE(equal_to(x.sum(), expected(c, "sum")));
        EXPECT_TRUE(equal_to(x.mean(), expected(c, "mean")));
        EXPECT_TRUE(equal_to(x.max(), expected(c, "max")));
        EXPECT_TRUE(equal_to(x.min(), expected(c, "min")));
        EXPECT_TRUE(equal_to(p.prod(), expected(c, "prod")));
        for (std::int64_t d = 0; d < 2; ++d) {
            const std::string s = "_d" + std::to_string(d);
            EXPECT_TRUE(equal_to(x.sum_dim(d), expected(c, "sum" + s))) << d;
            EXPECT_TRUE(equal_to(x.mean_dim(d), expected(c, "mean" + s))) << d;
            EXPECT_TRUE(equal_to(p.prod_dim(d), expected(c, "prod" + s))) << d;
            EXPECT_TRUE(equal_to(x.max_dim(d), expected(c, "max" + s))) << d;
            EXPECT_TRUE(equal_to(x.min_dim(d), expected(c, "min" + s))) << d;
            EXPECT_TRUE(equal_to(x.argmax(d), expected(c, "argmax" + s))) << d;
            EXPECT_TRUE(equal_to(x.argmin(d), expected(c, "argmin" + s))) << d;
            auto [mx, imx] = x.max_dim_with_indices(d);
            EXPECT_TRUE(equal_to(mx, expected(c, "max" + s))) << d;
            EXPECT_TRUE(equal_to(imx, expected(c, "argmax" + s))) << d;
            auto [mn, imn] = x.min_dim_with_indices(d);
            EXPECT_TRUE(equal_to(mn, expected(c, "min" + s))) << d;
            EXPECT_TRUE(equal_to(imn, expected(c, "argmin" + s))) << d;
        }
    }
}

TYPED_TEST(ReduceTest, IntMeanTruncatesTowardZero) {
    using B = TypeParam;
    const std::string c = "int_mean_trunc";  // [[-4, -3], [2, -2]]
    auto x = input<B, 2, Int>(c, "x");
    EXPECT_TRUE(equal_to(x.mean(), expected(c, "mean")));          // -7 / 4 -> -1
    EXPECT_TRUE(equal_to(x.mean_dim(1), expected(c, "mean_d1")));  // -7 / 2 -> -3, 0
    EXPECT_TRUE(equal_to(x.mean_dim(0), expected(c, "mean_d0")));  // -2 / 2, -5 / 2 -> -1, -2
}

TYPED_TEST(ReduceTest, IntSumsAreExactInt64) {
    // With 32-bit ints (Vulkan<>), big = 2^30: 2^30 + 1 is not an f32, and the sums stay within
    // the type.
    using B = TypeParam;
    const std::int64_t big = burn::testing::int64_backend<B>
                                 ? std::int64_t{1} << 60   // 2^60 + 1 is not a double
                                 : std::int64_t{1} << 30;  // 2^30 + 1 is not an f32
    auto x = Tensor<B, 1, Int>::from_ints({big, 1, -big, 3});
    EXPECT_EQ(x.sum().into_scalar(), 4);
    auto m = Tensor<B, 2, Int>::from_ints({{big, 1}, {-big, 1}});
    EXPECT_TRUE(equal_to(m.sum_dim(0), TensorData(std::vector<std::int64_t>{0, 2}, {1, 2})));
    // (equal_to compares through double; compare the int64 values themselves.)
    EXPECT_EQ(m.sum_dim(1).to_data().template to_vec<std::int64_t>(),
              (std::vector<std::int64_t>{big + 1, 1 - big}));
    using I1 = Tensor<B, 1, Int>;
    EXPECT_EQ(I1::from_ints({big + 1, big}).max().into_scalar(), big + 1);
    EXPECT_EQ(I1::from_ints({big, big + 1}).argmax(0).into_scalar(), 1);
}

TYPED_TEST(ReduceTest, EmptyDims) {
    using B = TypeParam;
    using F2 = Tensor<B, 2>;
    auto e = F2::zeros({3, 0});
    // Sums over an empty dim are 0, products 1, means NaN (0 / 0), as torch.
    EXPECT_EQ(e.sum_dim(1).shape(), burn::Shape({3, 1}));
    EXPECT_TRUE(close_to(e.sum_dim(1), TensorData::full<double>({3, 1}, 0.0)));
    EXPECT_TRUE(close_to(e.sum_dim(-1), TensorData::full<double>({3, 1}, 0.0)));
    EXPECT_TRUE(close_to(e.prod_dim(1), TensorData::full<double>({3, 1}, 1.0)));
    EXPECT_TRUE(close_to(e.mean_dim(1), TensorData::full<double>({3, 1}, NAN)));
    EXPECT_TRUE(close_to(e.sum(), TensorData::from<double>({0.0})));
    EXPECT_TRUE(close_to(e.prod(), TensorData::from<double>({1.0})));
    EXPECT_TRUE(std::isnan(e.mean().into_scalar()));
    EXPECT_TRUE(close_to(e.var(1), TensorData::full<double>({3, 1}, NAN)));
    // Reducing a non-empty dim of an empty tensor gives an empty result.
    EXPECT_EQ(e.sum_dim(0).shape(), burn::Shape({1, 0}));
    EXPECT_EQ(e.max_dim(0).shape(), burn::Shape({1, 0}));
    EXPECT_EQ(e.argmin(0).shape(), burn::Shape({1, 0}));
    auto e2 = F2::zeros({0, 3});
    EXPECT_TRUE(close_to(e2.sum_dim(0), TensorData::full<double>({1, 3}, 0.0)));
    EXPECT_EQ(e2.sum_dim(1).shape(), burn::Shape({0, 1}));
    // Int.
    using I2 = Tensor<B, 2, Int>;
    auto ei = I2::zeros({2, 0});
    EXPECT_TRUE(equal_to(ei.sum_dim(1), TensorData::full<std::int64_t>({2, 1}, 0)));
    EXPECT_TRUE(equal_to(ei.prod_dim(1), TensorData::full<std::int64_t>({2, 1}, 1)));
    EXPECT_EQ(ei.sum().into_scalar(), 0);
    EXPECT_EQ(ei.prod().into_scalar(), 1);
}

TYPED_TEST(ReduceTest, MaxOfEmptyDimNamesTheOp) {
    using B = TypeParam;
    using F2 = Tensor<B, 2>;
    using I2 = Tensor<B, 2, Int>;
    auto e = F2::zeros({3, 0});
    EXPECT_BURN_ERROR(e.max_dim(1), "Tensor::max_dim");
    EXPECT_BURN_ERROR(e.min_dim(-1), "Tensor::min_dim");
    EXPECT_BURN_ERROR(e.argmax(1), "Tensor::argmax");
    EXPECT_BURN_ERROR(e.argmin(1), "Tensor::argmin");
    EXPECT_BURN_ERROR(e.max_dim_with_indices(1), "Tensor::max_dim_with_indices");
    EXPECT_BURN_ERROR(e.min_dim_with_indices(1), "Tensor::min_dim_with_indices");
    EXPECT_BURN_ERROR(e.max(), "Tensor::max");
    EXPECT_BURN_ERROR(e.min(), "Tensor::min");
    EXPECT_BURN_ERROR(I2::zeros({0, 2}).max_dim(0), "Tensor::max_dim");
    EXPECT_BURN_ERROR(I2::zeros({0, 2}).max(), "Tensor::max");
}

TYPED_TEST(ReduceTest, BadDimsNameTheOp) {
    using B = TypeParam;
    auto x = Tensor<B, 2>::ones({2, 3});
    auto i = Tensor<B, 2, Int>::ones({2, 3});
    for (std::int64_t d : {2, -3, 100}) {
        SCOPED_TRACE(d);
        EXPECT_BURN_ERROR(x.sum_dim(d), "Tensor::sum_dim");
        EXPECT_BURN_ERROR(x.mean_dim(d), "Tensor::mean_dim");
        EXPECT_BURN_ERROR(x.prod_dim(d), "Tensor::prod_dim");
        EXPECT_BURN_ERROR(x.max_dim(d), "Tensor::max_dim");
        EXPECT_BURN_ERROR(x.min_dim(d), "Tensor::min_dim");
        EXPECT_BURN_ERROR(x.argmax(d), "Tensor::argmax");
        EXPECT_BURN_ERROR(x.argmin(d), "Tensor::argmin");
        EXPECT_BURN_ERROR(x.max_dim_with_indices(d), "Tensor::max_dim_with_indices");
        EXPECT_BURN_ERROR(x.min_dim_with_indices(d), "Tensor::min_dim_with_indices");
        EXPECT_BURN_ERROR(x.var(d), "Tensor::var");
        EXPECT_BURN_ERROR(x.var_bias(d), "Tensor::var");
        EXPECT_BURN_ERROR(x.var_mean(d), "Tensor::var");
        EXPECT_BURN_ERROR(x.var_mean_bias(d), "Tensor::var");
        EXPECT_BURN_ERROR(i.sum_dim(d), "Tensor::sum_dim");
        EXPECT_BURN_ERROR(i.argmin(d), "Tensor::argmin");
    }
}

/// Relative error of a float reduction against a long double reference of the stored values.
template <class B>
double rel_err(double got, long double ref) {
    return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / std::fabs(ref));
}

TYPED_TEST(ReduceTest, SumOfOneMillionValuesIsAccurate) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "the sum exceeds the f16 range");
    using E = typename B::FloatElem;
    // f32 rounding of the result alone is 6e-8; naive sequential f32 accumulation of 2^20 values
    // is off by ~1e-3 or more. 1e-6 relative demands pairwise/blocked or wider accumulation.
    const double bound = std::is_same_v<E, float> ? 1e-6 : 1e-12;
    const std::size_t n = std::size_t{1} << 20;
    for (int pattern = 0; pattern < 2; ++pattern) {
        std::vector<E> v(n);
        long double ref = 0;
        for (std::size_t i = 0; i < n; ++i) {
            v[i] = pattern == 0 ? static_cast<E>(0.1)
                                : static_cast<E>(0.1 + static_cast<double>(i % 1000) * 1e-3);
            ref += static_cast<long double>(v[i]);
        }
        auto x = Tensor<B, 1>::from_data(TensorData(v, {n}));
        SCOPED_TRACE(pattern);
        EXPECT_LE(rel_err<B>(x.sum().into_scalar(), ref), bound);
        EXPECT_LE(rel_err<B>(x.mean().into_scalar(), ref / n), bound);
        // The same values along a long inner dim and along a long outer (strided) dim.
        const auto rows =
            x.template reshape<2>({4, -1}).sum_dim(1).to_data().template to_vec<double>();
        const auto cols =
            x.template reshape<2>({-1, 4}).sum_dim(0).to_data().template to_vec<double>();
        const auto means =
            x.template reshape<2>({4, -1}).mean_dim(1).to_data().template to_vec<double>();
        for (std::size_t r = 0; r < 4; ++r) {
            long double rr = 0, cr = 0;
            for (std::size_t i = 0; i < n / 4; ++i) {
                rr += static_cast<long double>(v[r * (n / 4) + i]);
                cr += static_cast<long double>(v[i * 4 + r]);
            }
            EXPECT_LE(rel_err<B>(rows[r], rr), bound) << "sum_dim(1), row " << r;
            EXPECT_LE(rel_err<B>(cols[r], cr), bound) << "sum_dim(0), column " << r;
            EXPECT_LE(rel_err<B>(means[r], rr / (n / 4)), bound) << "mean_dim(1), row " << r;
        }
    }
}

}  // namespace

}  // namespace burn_test_reduce

// SPDX-License-Identifier: MIT OR Apache-2.0
// neg/abs/sign, powf/powf_scalar/powi/powi_scalar (Float and Int), clamp/clamp_min/clamp_max
// (NaN stays NaN) and max_pair/min_pair (NaN propagates, as torch.maximum), with their errors.
// Expected values: tests/fixtures/numeric.json (torch float64).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "numeric_helpers.hpp"
#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_arith_unary {

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
class ArithUnaryTest : public ::testing::Test {};
TYPED_TEST_SUITE(ArithUnaryTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(ArithUnaryTest, NegAbsSignEveryLayout) {
    using B = TypeParam;
    const std::string c = "unary_signs";
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(close_to(x.neg(), expected(c, "neg")));
        EXPECT_TRUE(close_to(x.abs(), expected(c, "abs")));
        EXPECT_TRUE(close_to(x.sign(), expected(c, "sign")));
    }
    const std::size_t n = layouts<B, 2>(c, "x").size();
    for (std::size_t i = 0; i < n; ++i) {
        auto take = [&] { return std::move(layouts<B, 2>(c, "x")[i].second); };
        EXPECT_TRUE(close_to(take().neg(), expected(c, "neg"))) << i;
        EXPECT_TRUE(close_to(take().abs(), expected(c, "abs"))) << i;
        EXPECT_TRUE(close_to(take().sign(), expected(c, "sign"))) << i;
    }
}

TYPED_TEST(ArithUnaryTest, NegAbsSignSpecialValues) {
    using B = TypeParam;
    const std::string c = "unary_special";
    auto x = input<B, 1>(c, "x");  // nan inf -inf -0 0 3 -2
    EXPECT_TRUE(close_to(x.neg(), expected(c, "neg")));
    EXPECT_TRUE(close_to(x.abs(), expected(c, "abs")));
    // tensor.hpp: "-1, 0 or 1 (NaN stays NaN)". (torch 1.13's sign gives 0 for NaN.)
    EXPECT_TRUE(close_to(x.sign(), expected(c, "sign")));
    const auto abs = x.abs().to_data().template to_vec<double>();
    EXPECT_FALSE(std::signbit(abs[3])) << "abs(-0.0) must be +0.0";
    const auto neg = x.neg().to_data().template to_vec<double>();
    EXPECT_TRUE(std::signbit(neg[4])) << "neg(0.0) must be -0.0";
}

TYPED_TEST(ArithUnaryTest, IntNegAbsSign) {
    using B = TypeParam;
    const std::string c = "int_unary";
    for (auto& [l, x] : layouts<B, 2, Int>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(equal_to(x.neg(), expected(c, "neg")));
        EXPECT_TRUE(equal_to(-x, expected(c, "neg")));
        EXPECT_TRUE(equal_to(x.abs(), expected(c, "abs")));
        EXPECT_TRUE(equal_to(x.sign(), expected(c, "sign")));
    }
}

TYPED_TEST(ArithUnaryTest, PowfEveryLayout) {
    using B = TypeParam;
    const std::string c = "powf";
    auto bs = layouts<B, 2>(c, "b");
    for (auto& [la, a] : layouts<B, 2>(c, "a")) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + " ^ " + lb);
            EXPECT_TRUE(close_to(a.powf(b), expected(c, "powf")));
        }
        SCOPED_TRACE(la);
        EXPECT_TRUE(close_to(a.powf_scalar(2.5), expected(c, "s2_5")));
        EXPECT_TRUE(close_to(a.powf_scalar(-1.5), expected(c, "sm1_5")));
        EXPECT_TRUE(close_to(a.powf_scalar(0.5), expected(c, "s0_5")));
        EXPECT_TRUE(close_to(a.powf_scalar(0.5f), expected(c, "s0_5")));
    }
}

TYPED_TEST(ArithUnaryTest, PowfBroadcastAndSpecialValues) {
    using B = TypeParam;
    const std::string c = "powf_bcast";
    auto a = input<B, 2>(c, "a");  // [3, 1]
    auto b = input<B, 2>(c, "b");  // [1, 4]
    EXPECT_TRUE(close_to(a.powf(b), expected(c, "powf")));
    EXPECT_TRUE(close_to(a.expand({3, 4}).powf(b), expected(c, "powf")));
    // 0^0 = 1, 0^-1 = inf, (-8)^(1/3) = nan, 1^nan = 1, nan^0 = 1, 2^inf = inf, 2^-inf = 0,
    // (-2)^0.5 = nan, inf^-1 = 0, (-0)^-1 = -inf.
    const std::string s = "pow_special";
    EXPECT_TRUE(close_to(input<B, 1>(s, "a").powf(input<B, 1>(s, "b")), expected(s, "powf")));
}

TYPED_TEST(ArithUnaryTest, PowiFloatBase) {
    using B = TypeParam;
    const std::string c = "powi";
    auto e = input<B, 2, Int>(c, "e");  // exponents in [-2, 4], bases of either sign
    for (auto& [l, a] : layouts<B, 2>(c, "a")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(close_to(a.powi(e), expected(c, "powi")));
        EXPECT_TRUE(close_to(a.powi_scalar(3), expected(c, "s3")));
        EXPECT_TRUE(close_to(a.powi_scalar(-2), expected(c, "sm2")));
        EXPECT_TRUE(close_to(a.powi_scalar(0), expected(c, "s0")));
        EXPECT_TRUE(close_to(a.powf_scalar(2.0), expected(c, "s2")));
    }
}

TYPED_TEST(ArithUnaryTest, PowiIntBase) {
    using B = TypeParam;
    const std::string c = "int_powi";
    auto e = input<B, 2, Int>(c, "e");
    for (auto& [l, a] : layouts<B, 2, Int>(c, "a")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(equal_to(a.powi(e), expected(c, "powi")));
        EXPECT_TRUE(equal_to(a.powi_scalar(3), expected(c, "s3")));
        EXPECT_TRUE(equal_to(a.powi_scalar(0), expected(c, "s0")));  // 0^0 = 1
    }
    using I1 = Tensor<B, 1, Int>;
    if constexpr (burn::testing::int64_backend<B>) {
        // Exact beyond the 53-bit mantissa of a double: 3^39 = 4052555153018976267.
        const auto big =
            I1::from_ints({3, -3}).powi_scalar(39).to_data().template to_vec<std::int64_t>();
        EXPECT_EQ(big[0], 4052555153018976267LL);
        EXPECT_EQ(big[1], -4052555153018976267LL);
    } else {
        // 32-bit ints: exact beyond the 24-bit mantissa of an f32: 3^19 = 1162261467 (the largest
        // power of 3 below 2^31).
        const auto big =
            I1::from_ints({3, -3}).powi_scalar(19).to_data().template to_vec<std::int64_t>();
        EXPECT_EQ(big[0], 1162261467LL);
        EXPECT_EQ(big[1], -1162261467LL);
    }
}

TYPED_TEST(ArithUnaryTest, PowShapeErrors) {
    using B = TypeParam;
    using F2 = Tensor<B, 2>;
    using I2 = Tensor<B, 2, Int>;
    EXPECT_BURN_ERROR(F2::ones({3, 4}).powf(F2::ones({4, 3})), "Tensor::powf");
    EXPECT_BURN_ERROR(F2::ones({3, 4}).powi(I2::ones({2, 4})), "Tensor::powi");
    EXPECT_BURN_ERROR(I2::ones({3, 4}).powi(I2::ones({3, 2})), "Tensor::powi");
}

TYPED_TEST(ArithUnaryTest, ClampKeepsNaN) {
    using B = TypeParam;
    const std::string c = "clamp";  // NaN at two places, +inf and -inf elsewhere
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(close_to(x.clamp(-1.0, 2.0), expected(c, "clamp")));
        EXPECT_TRUE(close_to(x.clamp_min(0.5), expected(c, "clamp_min")));
        EXPECT_TRUE(close_to(x.clamp_max(-0.5), expected(c, "clamp_max")));
        EXPECT_TRUE(close_to(x.clamp(1.0, 1.0), expected(c, "clamp_eq")));  // min == max is fine
        EXPECT_TRUE(close_to(x.clamp(-1, 2), expected(c, "clamp")));        // int scalars
    }
    const std::size_t n = layouts<B, 2>(c, "x").size();
    for (std::size_t i = 0; i < n; ++i) {
        auto take = [&] { return std::move(layouts<B, 2>(c, "x")[i].second); };
        EXPECT_TRUE(close_to(take().clamp(-1.0, 2.0), expected(c, "clamp"))) << i;
        EXPECT_TRUE(close_to(take().clamp_min(0.5), expected(c, "clamp_min"))) << i;
        EXPECT_TRUE(close_to(take().clamp_max(-0.5), expected(c, "clamp_max"))) << i;
    }
}

TYPED_TEST(ArithUnaryTest, IntClamp) {
    using B = TypeParam;
    const std::string c = "int_clamp";
    for (auto& [l, x] : layouts<B, 2, Int>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(equal_to(x.clamp(-3, 5), expected(c, "clamp")));
        EXPECT_TRUE(equal_to(x.clamp_min(0), expected(c, "clamp_min")));
        EXPECT_TRUE(equal_to(x.clamp_max(2), expected(c, "clamp_max")));
    }
}

TYPED_TEST(ArithUnaryTest, ClampMinAboveMaxNamesTheOp) {
    using B = TypeParam;
    auto x = Tensor<B, 1>::from_floats({1.0, 2.0});
    EXPECT_BURN_ERROR(x.clamp(2.0, 1.0), "Tensor::clamp");
    EXPECT_BURN_ERROR(std::move(x).clamp(0.5, -0.5), "Tensor::clamp");
    auto i = Tensor<B, 1, Int>::from_ints({1, 2});
    EXPECT_BURN_ERROR(i.clamp(3, 2), "Tensor::clamp");
}

TYPED_TEST(ArithUnaryTest, MaxMinPairPropagateNaN) {
    using B = TypeParam;
    const std::string c = "pair_nan";
    auto bs = layouts<B, 2>(c, "b");
    for (auto& [la, a] : layouts<B, 2>(c, "a")) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + ", " + lb);
            EXPECT_TRUE(close_to(a.max_pair(b), expected(c, "max_pair")));
            EXPECT_TRUE(close_to(a.min_pair(b), expected(c, "min_pair")));
        }
    }
    const std::string s = "arith_same";
    EXPECT_TRUE(
        close_to(input<B, 2>(s, "a").max_pair(input<B, 2>(s, "b")), expected(s, "max_pair")));
    EXPECT_TRUE(
        close_to(input<B, 2>(s, "a").min_pair(input<B, 2>(s, "b")), expected(s, "min_pair")));
}

TYPED_TEST(ArithUnaryTest, MaxMinPairBroadcastAndInt) {
    using B = TypeParam;
    const std::string c = "arith_bcast_2d";
    auto a = input<B, 2>(c, "a");
    auto b = input<B, 2>(c, "b");
    EXPECT_TRUE(close_to(a.max_pair(b), expected(c, "max_pair")));
    EXPECT_TRUE(close_to(a.min_pair(b), expected(c, "min_pair")));
    EXPECT_TRUE(close_to(b.max_pair(a), expected(c, "max_pair")));
    const std::string i = "int_arith";
    auto bs = layouts<B, 2, Int>(i, "b");
    for (auto& [la, x] : layouts<B, 2, Int>(i, "a")) {
        for (auto& [lb, y] : bs) {
            SCOPED_TRACE(la + ", " + lb);
            EXPECT_TRUE(equal_to(x.max_pair(y), expected(i, "max_pair")));
            EXPECT_TRUE(equal_to(x.min_pair(y), expected(i, "min_pair")));
        }
    }
}

TYPED_TEST(ArithUnaryTest, MaxMinPairShapeErrors) {
    using B = TypeParam;
    using F2 = Tensor<B, 2>;
    using I2 = Tensor<B, 2, Int>;
    EXPECT_BURN_ERROR(F2::ones({3, 4}).max_pair(F2::ones({3, 3})), "Tensor::max_pair");
    EXPECT_BURN_ERROR(F2::ones({3, 4}).min_pair(F2::ones({2, 4})), "Tensor::min_pair");
    EXPECT_BURN_ERROR(I2::ones({3, 4}).max_pair(I2::ones({4, 4})), "Tensor::max_pair");
}

}  // namespace

}  // namespace burn_test_arith_unary

// SPDX-License-Identifier: MIT OR Apache-2.0
// Float element-wise math: exp/log/log1p/erf/sqrt/recip/sin/cos/tanh/round/floor/ceil against
// torch float64, on every layout and through the in-place (moved) path, plus special values
// (log(0) = -inf, sqrt(-1) = NaN, exp(1000) = inf, ...) and round's half-to-even ties with the
// sign of zero. Expected values: tests/fixtures/numeric.json.
// f32 uses the default tolerance (1e-5) for every op, the transcendental ones included: the
// inputs are exact in f32 and the backend's f32 results are within a few ulp of torch's float64
// values rounded to f32, far inside 1e-5 (checked; no widening was needed).
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "numeric_helpers.hpp"
#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_math {

namespace {

using burn::Float;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;
using burn::testing::equal_to;

using namespace burn::testing::numeric;

template <class B>
Tensor<B, 2> apply(const std::string& op, Tensor<B, 2> x) {
    if (op == "exp") return std::move(x).exp();
    if (op == "log") return std::move(x).log();
    if (op == "log1p") return std::move(x).log1p();
    if (op == "erf") return std::move(x).erf();
    if (op == "sqrt") return std::move(x).sqrt();
    if (op == "recip") return std::move(x).recip();
    if (op == "sin") return std::move(x).sin();
    if (op == "cos") return std::move(x).cos();
    if (op == "tanh") return std::move(x).tanh();
    if (op == "round") return std::move(x).round();
    if (op == "floor") return std::move(x).floor();
    if (op == "ceil") return std::move(x).ceil();
    ADD_FAILURE() << "unknown op " << op;
    return x;
}

template <class B>
Tensor<B, 1> apply1(const std::string& op, const Tensor<B, 1>& x) {
    return apply<B>(op, x.template reshape<2>({1, -1})).template reshape<1>({-1});
}

const char* const kOps[] = {"exp", "log", "log1p", "erf",   "sqrt",  "recip",
                            "sin", "cos", "tanh",  "round", "floor", "ceil"};

template <class B>
class MathTest : public ::testing::Test {};

/// The default tolerance, loosened on half-precision backends: sin of inputs up to 10 amplifies
/// their rounding.
template <class B>
burn::Tolerance math_tol() {
    return burn::testing::loose_tolerance<B>(burn::testing::tolerance<B>());
}
TYPED_TEST_SUITE(MathTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(MathTest, EveryOpEveryLayoutShared) {
    using B = TypeParam;
    for (const std::string op : kOps) {
        const std::string c = "math_" + op;
        for (auto& [l, x] : layouts<B, 2>(c, "x")) {
            SCOPED_TRACE(op + ", " + l);
            const TensorData before = x.to_data();
            EXPECT_TRUE(close_to(apply<B>(op, x), expected(c, "y"), math_tol<B>()));  // copy
            EXPECT_TRUE(close_to(x, before)) << "the shared input was overwritten";
        }
    }
}

TYPED_TEST(MathTest, EveryOpEveryLayoutMoved) {
    using B = TypeParam;
    for (const std::string op : kOps) {
        const std::string c = "math_" + op;
        const std::size_t n = layouts<B, 2>(c, "x").size();
        for (std::size_t i = 0; i < n; ++i) {
            auto [l, x] = std::move(layouts<B, 2>(c, "x")[i]);  // sole owner of its buffer
            SCOPED_TRACE(op + ", " + l);
            EXPECT_TRUE(close_to(apply<B>(op, std::move(x)), expected(c, "y"), math_tol<B>()));
        }
    }
}

TYPED_TEST(MathTest, MemberSpellings) {
    // The same ops called by name on an lvalue (const&) tensor.
    using B = TypeParam;
    auto t = [](const char* op) { return input<B, 2>(std::string("math_") + op, "x"); };
    auto e = [](const char* op) { return expected(std::string("math_") + op, "y"); };
    EXPECT_TRUE(close_to(t("exp").exp(), e("exp")));
    EXPECT_TRUE(close_to(t("log").log(), e("log")));
    EXPECT_TRUE(close_to(t("log1p").log1p(), e("log1p")));
    EXPECT_TRUE(close_to(t("erf").erf(), e("erf")));
    EXPECT_TRUE(close_to(t("sqrt").sqrt(), e("sqrt")));
    EXPECT_TRUE(close_to(t("recip").recip(), e("recip")));
    EXPECT_TRUE(close_to(t("sin").sin(), e("sin"), math_tol<B>()));
    EXPECT_TRUE(close_to(t("cos").cos(), e("cos")));
    EXPECT_TRUE(close_to(t("tanh").tanh(), e("tanh")));
    EXPECT_TRUE(close_to(t("round").round(), e("round")));
    EXPECT_TRUE(close_to(t("floor").floor(), e("floor")));
    EXPECT_TRUE(close_to(t("ceil").ceil(), e("ceil")));
}

TYPED_TEST(MathTest, SpecialValues) {
    BURN_REQUIRE_FULL_PRECISION(TypeParam, "values beyond the half types' range and resolution");
    // x = [0, -0, 1, -1, inf, -inf, nan, 1000, -1000, 0.5, 1e-30, -1e-30]:
    // log(0) = -inf, log(-1) = nan, log1p(-1) = -inf, sqrt(-1) = nan, exp(1000) = inf,
    // exp(-1000) = 0, recip(0) = inf, recip(-0) = -inf, tanh(+-inf) = +-1, erf(+-inf) = +-1,
    // sin(inf) = nan, round/floor/ceil keep infinities and NaN.
    using B = TypeParam;
    const std::string c = "math_special";
    auto x = input<B, 1>(c, "x");
    for (const std::string op : kOps) {
        SCOPED_TRACE(op);
        EXPECT_TRUE(close_to(apply1<B>(op, x), expected(c, op)));
    }
    const auto r = x.recip().to_data().template to_vec<double>();
    EXPECT_EQ(r[0], INFINITY);
    EXPECT_EQ(r[1], -INFINITY);
    const auto l = x.log().to_data().template to_vec<double>();
    EXPECT_EQ(l[0], -INFINITY);
    EXPECT_EQ(l[1], -INFINITY);
    EXPECT_TRUE(std::isnan(l[3]));
    EXPECT_TRUE(std::isnan(x.sqrt().to_data().template to_vec<double>()[3]));
    EXPECT_EQ(x.exp().to_data().template to_vec<double>()[7], INFINITY);
    EXPECT_TRUE(std::signbit(x.sqrt().to_data().template to_vec<double>()[1])) << "sqrt(-0) = -0";
}

TYPED_TEST(MathTest, RoundHalfToEvenFloorCeil) {
    BURN_REQUIRE_FULL_PRECISION(TypeParam, "values beyond the half types' range and resolution");
    // 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4, -0.5 -> -0, -2.5 -> -2, 4.5 -> 4, 0.49999997 -> 0
    // (x + 0.5 rounds up to 1 in f32), 8388607.5 -> 8388608, 1e30 stays.
    using B = TypeParam;
    const std::string c = "math_round_ties";
    auto x = input<B, 1>(c, "x");
    EXPECT_TRUE(close_to(x.round(), expected(c, "round")));
    EXPECT_TRUE(close_to(x.floor(), expected(c, "floor")));
    EXPECT_TRUE(close_to(x.ceil(), expected(c, "ceil")));
    // The sign of zero results, as torch: round(-0.5) = -0, ceil(-0.25) = -0.
    auto signbits = [](const Tensor<B, 1>& t) {
        std::vector<bool> s;
        for (double v : t.to_data().template to_vec<double>()) s.push_back(std::signbit(v));
        return TensorData(s, t.shape());
    };
    EXPECT_TRUE(equal_to(Tensor<B, 1, burn::Bool>::from_data(signbits(x.round())),
                         expected(c, "round_signbit")));
    EXPECT_TRUE(equal_to(Tensor<B, 1, burn::Bool>::from_data(signbits(x.ceil())),
                         expected(c, "ceil_signbit")));
}

TYPED_TEST(MathTest, ExpandedAndEmptyInputs) {
    using B = TypeParam;
    // exp of a [1, 4] row expanded to [3, 4]: every row is exp(row).
    auto x = input<B, 2>("math_exp", "x");  // [3, 4]
    auto row = x.slice({Slice(1, 2)});      // [1, 4], a view at an offset
    auto y = row.expand({3, 4}).exp();
    const auto e = row.exp().to_data();
    for (std::int64_t i = 0; i < 3; ++i) EXPECT_TRUE(close_to(y.slice({Slice(i, i + 1)}), e)) << i;
    EXPECT_TRUE(close_to(std::move(y).sqrt(), row.exp().sqrt().expand({3, 4}).to_data()));
    // Empty tensors pass through.
    using F2 = Tensor<B, 2>;
    EXPECT_EQ(F2::zeros({0, 3}).exp().shape(), burn::Shape({0, 3}));
    EXPECT_EQ(F2::zeros({2, 0}).round().shape(), burn::Shape({2, 0}));
}

}  // namespace

}  // namespace burn_test_math

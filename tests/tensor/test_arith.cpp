// SPDX-License-Identifier: MIT OR Apache-2.0
// Float arithmetic: add/sub/mul/div/rem tensor-tensor (same shape, broadcast, rank-lifted), the
// _scalar forms, every operator (scalar on either side, compound assignment), remainder signs and
// division by zero. Expected values: tests/fixtures/numeric.json (gen_numeric.py, torch float64).
// Every family runs on contiguous, transposed, flipped and step-2 sliced inputs, and with the
// left or right operand moved in (the in-place path of the backend).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "numeric_helpers.hpp"
#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_arith {

namespace {

using burn::Float;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;

using namespace burn::testing::numeric;

template <class B>
class ArithTest : public ::testing::Test {};
TYPED_TEST_SUITE(ArithTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(ArithTest, SameShapeEveryLayoutPair) {
    using B = TypeParam;
    const std::string c = "arith_same";
    auto as = layouts<B, 2>(c, "a");
    auto bs = layouts<B, 2>(c, "b");
    for (auto& [la, a] : as) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + " op " + lb);
            EXPECT_TRUE(close_to(a.add(b), expected(c, "add")));
            EXPECT_TRUE(close_to(a.sub(b), expected(c, "sub")));
            EXPECT_TRUE(close_to(a.mul(b), expected(c, "mul")));
            EXPECT_TRUE(close_to(a.div(b), expected(c, "div")));
            EXPECT_TRUE(close_to(a.rem(b), expected(c, "rem")));
        }
    }
    // The operands were shared, not consumed: every layout still holds the input values.
    for (auto& [l, a] : as) EXPECT_TRUE(close_to(a, input<B, 2>(c, "a").to_data())) << l;
    for (auto& [l, b] : bs) EXPECT_TRUE(close_to(b, input<B, 2>(c, "b").to_data())) << l;
}

TYPED_TEST(ArithTest, MovedOperandsInEveryLayout) {
    using B = TypeParam;
    const std::string c = "arith_same";
    const char* ops[] = {"add", "sub", "mul", "div", "rem"};
    const std::size_t n = layouts<B, 2>(c, "a").size();
    for (std::size_t i = 0; i < n; ++i) {
        for (const char* op : ops) {
            const std::string o = op;
            auto apply = [&](Tensor<B, 2> a, Tensor<B, 2> b) {
                if (o == "add") return std::move(a).add(std::move(b));
                if (o == "sub") return std::move(a).sub(std::move(b));
                if (o == "mul") return std::move(a).mul(std::move(b));
                if (o == "div") return std::move(a).div(std::move(b));
                return std::move(a).rem(std::move(b));
            };
            // Left operand the only owner of its buffer (the backend may write into it).
            auto la = std::move(layouts<B, 2>(c, "a")[i]);
            SCOPED_TRACE(o + ", lhs " + la.first);
            EXPECT_TRUE(close_to(apply(std::move(la.second), input<B, 2>(c, "b")), expected(c, o)));
            // Right operand the only owner.
            auto lb = std::move(layouts<B, 2>(c, "b")[i]);
            SCOPED_TRACE(o + ", rhs " + lb.first);
            EXPECT_TRUE(close_to(apply(input<B, 2>(c, "a"), std::move(lb.second)), expected(c, o)));
        }
    }
}

TYPED_TEST(ArithTest, BroadcastColumnByRow) {
    using B = TypeParam;
    const std::string c = "arith_bcast_2d";
    auto a = input<B, 2>(c, "a");  // [3, 1]
    auto b = input<B, 2>(c, "b");  // [1, 4]
    EXPECT_EQ(a.add(b).shape(), burn::Shape({3, 4}));
    EXPECT_TRUE(close_to(a.add(b), expected(c, "add")));
    EXPECT_TRUE(close_to(a.sub(b), expected(c, "sub")));
    EXPECT_TRUE(close_to(a.mul(b), expected(c, "mul")));
    EXPECT_TRUE(close_to(a.div(b), expected(c, "div")));
    EXPECT_TRUE(close_to(a.rem(b), expected(c, "rem")));
    EXPECT_TRUE(close_to(b.sub(a), expected(c, "rsub")));
    // Moved operands whose buffers are too small to hold the result.
    EXPECT_TRUE(close_to(input<B, 2>(c, "a") + input<B, 2>(c, "b"), expected(c, "add")));
    EXPECT_TRUE(close_to(input<B, 2>(c, "b") - input<B, 2>(c, "a"), expected(c, "rsub")));
    // The same through expand(): zero-stride views (uniquely owned when moved in).
    auto ae = input<B, 2>(c, "a").expand({3, 4});
    auto be = input<B, 2>(c, "b").expand({3, 4});
    EXPECT_TRUE(close_to(ae.add(be), expected(c, "add")));
    EXPECT_TRUE(close_to(ae.div(b), expected(c, "div")));
    EXPECT_TRUE(close_to(a.rem(be), expected(c, "rem")));
    EXPECT_TRUE(close_to(std::move(ae).mul(std::move(be)), expected(c, "mul")));
    EXPECT_TRUE(close_to(input<B, 2>(c, "a").expand({3, 4}).sub(b), expected(c, "sub")));
    EXPECT_TRUE(close_to(input<B, 2>(c, "b").expand({3, 4}) - a, expected(c, "rsub")));
}

TYPED_TEST(ArithTest, BroadcastRankLifted) {
    using B = TypeParam;
    const std::string c = "arith_bcast_3d";
    auto a = input<B, 3>(c, "a");                          // [2, 1, 4]
    auto b = input<B, 2>(c, "b").template unsqueeze<3>();  // [3, 1] -> [1, 3, 1]
    EXPECT_EQ(a.add(b).shape(), burn::Shape({2, 3, 4}));
    EXPECT_TRUE(close_to(a.add(b), expected(c, "add")));
    EXPECT_TRUE(close_to(a.sub(b), expected(c, "sub")));
    EXPECT_TRUE(close_to(a.mul(b), expected(c, "mul")));
    EXPECT_TRUE(close_to(a.div(b), expected(c, "div")));
    EXPECT_TRUE(close_to(a.rem(b), expected(c, "rem")));
    EXPECT_TRUE(close_to(b.sub(a), expected(c, "rsub")));
    EXPECT_TRUE(close_to(b.div(a), expected(c, "rdiv")));
    EXPECT_TRUE(close_to(b / a, expected(c, "rdiv")));
}

TYPED_TEST(ArithTest, BroadcastRowAndColumnAgainstMatrix) {
    using B = TypeParam;
    const std::string c = "arith_bcast_row";
    auto r = input<B, 2>(c, "r");    // [1, 4]
    auto col = input<B, 2>(c, "c");  // [3, 1]
    for (auto& [l, a] : layouts<B, 2>(c, "a")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(close_to(a.add(r), expected(c, "add_r")));
        EXPECT_TRUE(close_to(a.sub(r), expected(c, "sub_r")));
        EXPECT_TRUE(close_to(a.mul(r), expected(c, "mul_r")));
        EXPECT_TRUE(close_to(a.div(r), expected(c, "div_r")));
        EXPECT_TRUE(close_to(a.rem(r), expected(c, "rem_r")));
        EXPECT_TRUE(close_to(r.sub(a), expected(c, "rsub_r")));
        EXPECT_TRUE(close_to(a.sub(col), expected(c, "sub_c")));
        EXPECT_TRUE(close_to(col.div(a), expected(c, "rdiv_c")));
    }
}

TYPED_TEST(ArithTest, ScalarFormsEveryLayout) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(
        B, "remainders of values within a rounding of a multiple of the divisor");
    const std::string c = "arith_scalar";
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(close_to(x.add_scalar(2.5), expected(c, "add_s")));
        EXPECT_TRUE(close_to(x.sub_scalar(2.5), expected(c, "sub_s")));
        EXPECT_TRUE(close_to(x.mul_scalar(2.5), expected(c, "mul_s")));
        EXPECT_TRUE(close_to(x.div_scalar(2.5), expected(c, "div_s")));
        EXPECT_TRUE(close_to(x.rem_scalar(2.5), expected(c, "rem_s")));
        EXPECT_TRUE(close_to(x.rem_scalar(-1.5), expected(c, "rem_neg_s")));
        EXPECT_TRUE(close_to(x.neg(), expected(c, "neg")));
        EXPECT_TRUE(close_to(x.add_scalar(2.5f), expected(c, "add_s")));  // float scalar type
    }
    // Moved in: the backend may reuse the (possibly strided) buffer.
    const std::size_t n = layouts<B, 2>(c, "x").size();
    for (std::size_t i = 0; i < n; ++i) {
        auto take = [&] { return std::move(layouts<B, 2>(c, "x")[i].second); };
        const std::string label = layouts<B, 2>(c, "x")[i].first;
        SCOPED_TRACE(label);
        EXPECT_TRUE(close_to(take().add_scalar(2.5), expected(c, "add_s")));
        EXPECT_TRUE(close_to(take().sub_scalar(2.5), expected(c, "sub_s")));
        EXPECT_TRUE(close_to(take().mul_scalar(2.5), expected(c, "mul_s")));
        EXPECT_TRUE(close_to(take().div_scalar(2.5), expected(c, "div_s")));
        EXPECT_TRUE(close_to(take().rem_scalar(2.5), expected(c, "rem_s")));
        EXPECT_TRUE(close_to(take().neg(), expected(c, "neg")));
    }
}

TYPED_TEST(ArithTest, OperatorsTensorAndScalar) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(
        B, "remainders of values within a rounding of a multiple of the divisor");
    const std::string s = "arith_same";
    auto a = input<B, 2>(s, "a");
    auto b = input<B, 2>(s, "b");
    EXPECT_TRUE(close_to(a + b, expected(s, "add")));
    EXPECT_TRUE(close_to(a - b, expected(s, "sub")));
    EXPECT_TRUE(close_to(a * b, expected(s, "mul")));
    EXPECT_TRUE(close_to(a / b, expected(s, "div")));
    EXPECT_TRUE(close_to(a % b, expected(s, "rem")));
    EXPECT_TRUE(close_to(a + b, (b + a).to_data()));

    const std::string c = "arith_scalar";
    auto x = input<B, 2>(c, "x");
    EXPECT_TRUE(close_to(x + 2.5, expected(c, "add_s")));
    EXPECT_TRUE(close_to(2.5 + x, expected(c, "add_s")));
    EXPECT_TRUE(close_to(x - 2.5, expected(c, "sub_s")));
    EXPECT_TRUE(close_to(2.5 - x, expected(c, "rsub")));
    EXPECT_TRUE(close_to(x * 2.5, expected(c, "mul_s")));
    EXPECT_TRUE(close_to(2.5 * x, expected(c, "mul_s")));
    EXPECT_TRUE(close_to(x / 2.5, expected(c, "div_s")));
    EXPECT_TRUE(close_to(2.5 / x, expected(c, "rdiv")));
    EXPECT_TRUE(close_to(1.0 / x, expected(c, "recip")));
    EXPECT_TRUE(close_to(x % 2.5, expected(c, "rem_s")));
    EXPECT_TRUE(close_to(x % -1.5, expected(c, "rem_neg_s")));
    EXPECT_TRUE(close_to(2.5 % x, expected(c, "rrem")));
    EXPECT_TRUE(close_to(-x, expected(c, "neg")));
    EXPECT_TRUE(close_to(-(-x), x.to_data()));
    EXPECT_TRUE(close_to(2.5f - x, expected(c, "rsub")));  // float scalar type
    // Scalar on the left with a non-contiguous tensor.
    auto xt = input<B, 2>(c, "x@T").transpose();
    EXPECT_TRUE(close_to(2.5 - xt, expected(c, "rsub")));
    EXPECT_TRUE(close_to(2.5 / xt, expected(c, "rdiv")));
    EXPECT_TRUE(close_to(2.5 % xt, expected(c, "rrem")));
    // The operands of operators are left untouched.
    EXPECT_TRUE(close_to(x, input<B, 2>(c, "x").to_data()));
}

TYPED_TEST(ArithTest, CompoundAssignment) {
    using B = TypeParam;
    const std::string s = "arith_same";
    const auto a = input<B, 2>(s, "a");
    const auto b = input<B, 2>(s, "b");
    const TensorData a0 = a.to_data();
    {
        auto y = a;  // shares a's buffer: += must not write into a
        y += b;
        EXPECT_TRUE(close_to(y, expected(s, "add")));
        EXPECT_TRUE(close_to(a, a0));
    }
    {
        auto y = a;
        y -= b;
        EXPECT_TRUE(close_to(y, expected(s, "sub")));
    }
    {
        auto y = a;
        y *= b;
        EXPECT_TRUE(close_to(y, expected(s, "mul")));
    }
    {
        auto y = a;
        y /= b;
        EXPECT_TRUE(close_to(y, expected(s, "div")));
        EXPECT_TRUE(close_to(a, a0));
    }
    {
        auto y = input<B, 2>(s, "a@T").transpose();  // unique, strided
        y += b;
        EXPECT_TRUE(close_to(y, expected(s, "add")));
    }
    const std::string c = "arith_scalar";
    const auto x = input<B, 2>(c, "x");
    const TensorData x0 = x.to_data();
    auto y = x;
    y += 2.5;
    EXPECT_TRUE(close_to(y, expected(c, "add_s")));
    y = x;
    y -= 2.5;
    EXPECT_TRUE(close_to(y, expected(c, "sub_s")));
    y = x;
    y *= 2.5;
    EXPECT_TRUE(close_to(y, expected(c, "mul_s")));
    y = x;
    y /= 2.5;
    EXPECT_TRUE(close_to(y, expected(c, "div_s")));
    EXPECT_TRUE(close_to(x, x0));
    // Chained compound ops on a uniquely owned tensor.
    auto z = input<B, 2>(c, "x");
    z += 2.5;
    z -= 2.5;
    z *= 2.0;
    z /= 2.0;
    EXPECT_TRUE(close_to(z, x0));
}

TYPED_TEST(ArithTest, RemainderTakesTheDivisorSign) {
    using B = TypeParam;
    const std::string c = "arith_rem_signs";
    auto a = input<B, 1>(c, "a");
    auto b = input<B, 1>(c, "b");
    EXPECT_TRUE(close_to(a.rem(b), expected(c, "rem")));
    EXPECT_TRUE(close_to(a % b, expected(c, "rem")));
    EXPECT_TRUE(close_to(a.div(b), expected(c, "div")));
    EXPECT_TRUE(close_to(a.rem_scalar(3.0), expected(c, "rem_s3")));
    EXPECT_TRUE(close_to(a.rem_scalar(-3.0), expected(c, "rem_sm3")));
    EXPECT_TRUE(close_to(a % -3.0, expected(c, "rem_sm3")));
    // (-5.5) % 2 == 0.5 and 5.5 % -2 == -0.5, as Python and torch.remainder.
    const auto r = a.rem(b).to_data().template to_vec<double>();
    EXPECT_DOUBLE_EQ(r[1], 0.5);
    EXPECT_DOUBLE_EQ(r[2], -0.5);
}

TYPED_TEST(ArithTest, FloatDivisionByZeroFollowsIeee) {
    using B = TypeParam;
    const std::string c = "arith_div_zero";
    auto a = input<B, 1>(c, "a");                         // [1, -1, 0, 2.5, 1]
    auto b = input<B, 1>(c, "b");                         // [0, 0, 0, -0, inf]
    EXPECT_TRUE(close_to(a.div(b), expected(c, "div")));  // inf, -inf, nan, -inf, 0
    EXPECT_TRUE(close_to(a.rem(b), expected(c, "rem")));  // nan for zero divisors, as torch
    EXPECT_TRUE(close_to(a.div_scalar(0.0), expected(c, "div_s0")));
    EXPECT_TRUE(close_to(a / 0.0, expected(c, "div_s0")));
}

TYPED_TEST(ArithTest, DivisionByAPowerOfTwoIsExact) {
    // The CPU backend multiplies by the reciprocal of a power-of-two divisor: the same correctly
    // rounded result as the division, subnormals and overflow included (checked against the host
    // division of the stored values).
    using B = TypeParam;
    if constexpr (!burn::testing::cpu_backend<B>)
        GTEST_SKIP() << "GPU divisions need not be correctly rounded, nor keep subnormals";
    using F = typename B::FloatElem;
    const F tiny = std::numeric_limits<F>::denorm_min(), big = std::numeric_limits<F>::max();
    const std::vector<F> xs = {F(1), F(-3), F(0.1),  tiny * F(3), std::numeric_limits<F>::min(),
                               big,  -big,  F(7e-3), F(-0.0),     F(1e30)};
    const auto x = Tensor<B, 1>::from_data(TensorData(xs, burn::Shape{xs.size()}));
    const auto stored = x.to_data().template to_vec<F>();
    for (const double d : {2.0, 0.5, 1024.0, -0.25, 3.0, 1.0 / 1024.0}) {
        const auto got = x.div_scalar(d).to_data().template to_vec<F>();
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const F want = stored[i] / static_cast<F>(d);
            EXPECT_TRUE(got[i] == want && std::signbit(got[i]) == std::signbit(want))
                << stored[i] << " / " << d << ": got " << got[i] << ", want " << want;
        }
    }
}

TYPED_TEST(ArithTest, LargeStridedOperandsTakeTheParallelPath) {
    // 120000 elements (above the backend's parallel grain) in transposed, flipped and broadcast
    // views, checked against a host loop over the same stored values.
    using B = TypeParam;
    using F2 = Tensor<B, 2>;
    const std::size_t r = 300, c = 400;
    B::seed(11);
    auto base = F2::random({c, r}, burn::Distribution::Uniform(-2.0, 2.0));  // [400, 300]
    auto col = F2::random({r, 1}, burn::Distribution::Uniform(0.5, 2.0));    // [300, 1]
    const auto bv = base.to_data().template to_vec<double>();
    const auto cv = col.to_data().template to_vec<double>();
    auto a = base.transpose();  // a[i][j] = base[j][i]
    // y = a * col + flip(a, 0) - 1.5, i.e. y[i][j] = base[j][i] * col[i] + base[j][r-1-i] - 1.5
    auto y = (a * col + a.flip({0})) - 1.5;
    std::vector<double> e(r * c);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j)
            e[i * c + j] = bv[j * r + i] * cv[i] + bv[j * r + (r - 1 - i)] - 1.5;
    EXPECT_TRUE(close_to(y, TensorData(e, {r, c})));
    // Moved, uniquely owned strided operand (the in-place path on a large view).
    auto unique = F2::from_data(base.to_data()).transpose();
    auto y2 = std::move(unique) * col;
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) e[i * c + j] = bv[j * r + i] * cv[i];
    EXPECT_TRUE(close_to(y2, TensorData(e, {r, c})));
    EXPECT_TRUE(close_to(base, TensorData(bv, {c, r}))) << "base was overwritten";
}

TYPED_TEST(ArithTest, IncompatibleShapesNameTheOp) {
    using B = TypeParam;
    auto a = Tensor<B, 2>::ones({3, 4});
    auto b = Tensor<B, 2>::ones({2, 4});
    auto c = Tensor<B, 2>::ones({3, 2});
    EXPECT_BURN_ERROR(a.add(b), "Tensor::add");
    EXPECT_BURN_ERROR(a.sub(b), "Tensor::sub");
    EXPECT_BURN_ERROR(a.mul(c), "Tensor::mul");
    EXPECT_BURN_ERROR(a.div(c), "Tensor::div");
    EXPECT_BURN_ERROR(a.rem(b), "Tensor::rem");
    EXPECT_BURN_ERROR(a + b, "Tensor::add");
    EXPECT_BURN_ERROR(a - c, "Tensor::sub");
    EXPECT_BURN_ERROR(a * b, "Tensor::mul");
    EXPECT_BURN_ERROR(a / b, "Tensor::div");
    EXPECT_BURN_ERROR(a % c, "Tensor::rem");
    EXPECT_BURN_ERROR(std::move(a) + b, "Tensor::add");
    auto y = Tensor<B, 2>::ones({3, 4});
    EXPECT_BURN_ERROR(y += b, "Tensor::add");
    EXPECT_BURN_ERROR(y -= c, "Tensor::sub");
    EXPECT_BURN_ERROR(y *= b, "Tensor::mul");
    EXPECT_BURN_ERROR(y /= c, "Tensor::div");
    // Broadcasting does not stretch a dim of size > 1, in either direction or in rank 3.
    auto d = Tensor<B, 3>::ones({2, 3, 4});
    auto e = Tensor<B, 3>::ones({2, 4, 3});
    EXPECT_BURN_ERROR(d.add(e), "Tensor::add");
    using T2 = Tensor<B, 2>;
    EXPECT_BURN_ERROR(T2::ones({1, 3}).mul(T2::ones({2, 4})), "Tensor::mul");
    // The message names the shapes too.
    try {
        (void)Tensor<B, 2>::ones({3, 4}).add(Tensor<B, 2>::ones({2, 4}));
        ADD_FAILURE() << "expected burn::Error";
    } catch (const burn::Error& err) {
        EXPECT_NE(std::string(err.what()).find("[3, 4]"), std::string::npos) << err.what();
        EXPECT_NE(std::string(err.what()).find("[2, 4]"), std::string::npos) << err.what();
    }
}

}  // namespace

}  // namespace burn_test_arith

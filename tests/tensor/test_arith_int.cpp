// SPDX-License-Identifier: MIT OR Apache-2.0
// Int arithmetic: truncating division, floor-mod remainder (sign of the divisor, as
// torch.remainder), the scalar forms and operators with int scalars, broadcasting, division by
// zero (burn::Error) and shape errors. Expected values: tests/fixtures/numeric.json.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "numeric_helpers.hpp"
#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_arith_int {

namespace {

using burn::Float;
using burn::Int;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::testing::equal_to;

using namespace burn::testing::numeric;

template <class B>
class IntArithTest : public ::testing::Test {};
TYPED_TEST_SUITE(IntArithTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(IntArithTest, SameShapeEveryLayoutPair) {
    using B = TypeParam;
    const std::string c = "int_arith";
    auto as = layouts<B, 2, Int>(c, "a");
    auto bs = layouts<B, 2, Int>(c, "b");
    for (auto& [la, a] : as) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + " op " + lb);
            EXPECT_TRUE(equal_to(a.add(b), expected(c, "add")));
            EXPECT_TRUE(equal_to(a.sub(b), expected(c, "sub")));
            EXPECT_TRUE(equal_to(a.mul(b), expected(c, "mul")));
            EXPECT_TRUE(equal_to(a.div(b), expected(c, "div")));
            EXPECT_TRUE(equal_to(a.rem(b), expected(c, "rem")));
        }
    }
    for (auto& [l, a] : as) EXPECT_TRUE(equal_to(a, input<B, 2, Int>(c, "a").to_data())) << l;
    // Moved operands (in-place path) in every layout.
    for (std::size_t i = 0; i < as.size(); ++i) {
        auto take_a = [&] { return std::move(layouts<B, 2, Int>(c, "a")[i].second); };
        auto take_b = [&] { return std::move(layouts<B, 2, Int>(c, "b")[i].second); };
        const std::string label = as[i].first;
        SCOPED_TRACE(label);
        EXPECT_TRUE(equal_to(take_a() + input<B, 2, Int>(c, "b"), expected(c, "add")));
        EXPECT_TRUE(equal_to(input<B, 2, Int>(c, "a") - take_b(), expected(c, "sub")));
        EXPECT_TRUE(equal_to(take_a() * take_b(), expected(c, "mul")));
        EXPECT_TRUE(equal_to(take_a() / input<B, 2, Int>(c, "b"), expected(c, "div")));
        EXPECT_TRUE(equal_to(input<B, 2, Int>(c, "a") % take_b(), expected(c, "rem")));
    }
}

TYPED_TEST(IntArithTest, DivisionTruncatesRemainderFloors) {
    using B = TypeParam;
    const std::string c = "int_rem_signs";
    auto a = input<B, 1, Int>(c, "a");  // 7 -7 7 -7 6 -6 0 1 -1 5 -5
    auto b = input<B, 1, Int>(c, "b");  // 3 3 -3 -3 3 -3 5 -5 5 7 7
    EXPECT_TRUE(equal_to(a.div(b), expected(c, "div")));
    EXPECT_TRUE(equal_to(a.rem(b), expected(c, "rem")));
    const auto q = a.div(b).to_data().template to_vec<std::int64_t>();
    const auto r = a.rem(b).to_data().template to_vec<std::int64_t>();
    EXPECT_EQ(q[1], -2);  // -7 / 3 truncates (floor would be -3)
    EXPECT_EQ(r[1], 2);   // -7 % 3 == 2 (C++ would give -1)
    EXPECT_EQ(r[2], -2);  // 7 % -3 == -2
    EXPECT_EQ(r[3], -1);  // -7 % -3 == -1
}

TYPED_TEST(IntArithTest, ScalarFormsAndOperators) {
    using B = TypeParam;
    const std::string c = "int_scalar";
    for (auto& [l, x] : layouts<B, 2, Int>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(equal_to(x.add_scalar(3), expected(c, "add_s")));
        EXPECT_TRUE(equal_to(x.sub_scalar(3), expected(c, "sub_s")));
        EXPECT_TRUE(equal_to(x.mul_scalar(3), expected(c, "mul_s")));
        EXPECT_TRUE(equal_to(x.div_scalar(3), expected(c, "div_s")));
        EXPECT_TRUE(equal_to(x.div_scalar(-3), expected(c, "div_neg_s")));
        EXPECT_TRUE(equal_to(x.rem_scalar(3), expected(c, "rem_s")));
        EXPECT_TRUE(equal_to(x.rem_scalar(-3), expected(c, "rem_neg_s")));
        EXPECT_TRUE(equal_to(x.neg(), expected(c, "neg")));
        EXPECT_TRUE(equal_to(x.abs(), expected(c, "abs")));
        EXPECT_TRUE(equal_to(x.add_scalar(std::int64_t{3}), expected(c, "add_s")));
        EXPECT_TRUE(equal_to(x + 3, expected(c, "add_s")));
        EXPECT_TRUE(equal_to(3 + x, expected(c, "add_s")));
        EXPECT_TRUE(equal_to(x - 3, expected(c, "sub_s")));
        EXPECT_TRUE(equal_to(3 - x, expected(c, "rsub")));
        EXPECT_TRUE(equal_to(x * 3, expected(c, "mul_s")));
        EXPECT_TRUE(equal_to(3 * x, expected(c, "mul_s")));
        EXPECT_TRUE(equal_to(x / 3, expected(c, "div_s")));
        EXPECT_TRUE(equal_to(x / -3, expected(c, "div_neg_s")));
        EXPECT_TRUE(equal_to(3 / x, expected(c, "rdiv")));
        EXPECT_TRUE(equal_to(x % 3, expected(c, "rem_s")));
        EXPECT_TRUE(equal_to(x % -3, expected(c, "rem_neg_s")));
        EXPECT_TRUE(equal_to(3 % x, expected(c, "rrem")));
        EXPECT_TRUE(equal_to(-x, expected(c, "neg")));
    }
    // Moved-in forms.
    const std::size_t n = layouts<B, 2, Int>(c, "x").size();
    for (std::size_t i = 0; i < n; ++i) {
        auto take = [&] { return std::move(layouts<B, 2, Int>(c, "x")[i].second); };
        EXPECT_TRUE(equal_to(take().add_scalar(3), expected(c, "add_s"))) << i;
        EXPECT_TRUE(equal_to(take().div_scalar(-3), expected(c, "div_neg_s"))) << i;
        EXPECT_TRUE(equal_to(take().rem_scalar(-3), expected(c, "rem_neg_s"))) << i;
        EXPECT_TRUE(equal_to(take().neg(), expected(c, "neg"))) << i;
        EXPECT_TRUE(equal_to(take().abs(), expected(c, "abs"))) << i;
        EXPECT_TRUE(equal_to(3 - take(), expected(c, "rsub"))) << i;
    }
}

TYPED_TEST(IntArithTest, CompoundAssignment) {
    using B = TypeParam;
    const std::string c = "int_arith";
    const auto a = input<B, 2, Int>(c, "a");
    const auto b = input<B, 2, Int>(c, "b");
    const TensorData a0 = a.to_data();
    auto y = a;
    y += b;
    EXPECT_TRUE(equal_to(y, expected(c, "add")));
    y = a;
    y -= b;
    EXPECT_TRUE(equal_to(y, expected(c, "sub")));
    y = a;
    y *= b;
    EXPECT_TRUE(equal_to(y, expected(c, "mul")));
    y = a;
    y /= b;
    EXPECT_TRUE(equal_to(y, expected(c, "div")));
    EXPECT_TRUE(equal_to(a, a0));
    const std::string s = "int_scalar";
    auto z = input<B, 2, Int>(s, "x");
    z += 3;
    EXPECT_TRUE(equal_to(z, expected(s, "add_s")));
    z -= 6;
    z += 3;
    z *= 3;
    EXPECT_TRUE(equal_to(z, expected(s, "mul_s")));
    z /= 3;
    z /= -3;
    EXPECT_TRUE(equal_to(z, expected(s, "div_neg_s")));
}

TYPED_TEST(IntArithTest, Broadcasting) {
    using B = TypeParam;
    const std::string c = "int_bcast";
    auto a = input<B, 2, Int>(c, "a");  // [3, 1]
    auto b = input<B, 2, Int>(c, "b");  // [1, 4]
    EXPECT_TRUE(equal_to(a.add(b), expected(c, "add")));
    EXPECT_TRUE(equal_to(a.sub(b), expected(c, "sub")));
    EXPECT_TRUE(equal_to(a.mul(b), expected(c, "mul")));
    EXPECT_TRUE(equal_to(a.div(b), expected(c, "div")));
    EXPECT_TRUE(equal_to(a.rem(b), expected(c, "rem")));
    EXPECT_TRUE(equal_to(a.expand({3, 4}) + b.expand({3, 4}), expected(c, "add")));
    EXPECT_TRUE(equal_to(a.expand({3, 4}) % b, expected(c, "rem")));
    // Rank-lifted: [3, 1] -> [1, 3, 1] against [2, 1, 4].
    auto a3 = a.template unsqueeze<3>();
    auto b3 = b.expand({2, 1, 4});
    auto expect3 = expected(c, "div");
    auto got = a3.div(b3);
    EXPECT_EQ(got.shape(), burn::Shape({2, 3, 4}));
    EXPECT_TRUE(equal_to(got.slice({Slice::index(0)}).template reshape<2>({3, 4}), expect3));
    EXPECT_TRUE(equal_to(got.slice({Slice::index(1)}).template reshape<2>({3, 4}), expect3));
}

TYPED_TEST(IntArithTest, DivisionByZeroThrows) {
    using B = TypeParam;
    using I1 = Tensor<B, 1, Int>;
    auto a = I1::from_ints({4, -3, 0, 7});
    auto z = I1::from_ints({1, 0, 2, 3});  // one zero divisor
    // The error may come from the op or, on asynchronous backends (Vulkan), from the next read.
    EXPECT_THROW((void)a.div(z).to_data(), burn::Error);
    EXPECT_THROW((void)(a / z).to_data(), burn::Error);
    EXPECT_THROW((void)a.div_scalar(0), burn::Error);
    EXPECT_THROW((void)(a / 0), burn::Error);
    EXPECT_THROW((void)(5 / z).to_data(), burn::Error);
    EXPECT_THROW((void)I1::from_ints({1, 2}).div(I1::zeros({1})).to_data(),
                 burn::Error);  // broadcast zero
}

TYPED_TEST(IntArithTest, RemainderByZeroThrows) {
    // torch.remainder on integers raises "ZeroDivisionError"; so must rem.
    using B = TypeParam;
    using I1 = Tensor<B, 1, Int>;
    auto a = I1::from_ints({4, -3, 0, 7});
    auto z = I1::from_ints({1, 0, 2, 3});
    EXPECT_THROW((void)a.rem(z).to_data(), burn::Error);
    EXPECT_THROW((void)(a % z).to_data(), burn::Error);
    EXPECT_THROW((void)a.rem_scalar(0), burn::Error);
    EXPECT_THROW((void)(a % 0), burn::Error);
}

TYPED_TEST(IntArithTest, IncompatibleShapesNameTheOp) {
    using B = TypeParam;
    using I2 = Tensor<B, 2, Int>;
    auto a = I2::ones({3, 4});
    auto b = I2::ones({4, 3});
    EXPECT_BURN_ERROR(a.add(b), "Tensor::add");
    EXPECT_BURN_ERROR(a.sub(b), "Tensor::sub");
    EXPECT_BURN_ERROR(a.mul(b), "Tensor::mul");
    EXPECT_BURN_ERROR(a.div(b), "Tensor::div");
    EXPECT_BURN_ERROR(a.rem(b), "Tensor::rem");
    EXPECT_BURN_ERROR(a % b, "Tensor::rem");
    EXPECT_BURN_ERROR(a.add(I2::ones({2, 1})), "Tensor::add");
}

}  // namespace

}  // namespace burn_test_arith_int

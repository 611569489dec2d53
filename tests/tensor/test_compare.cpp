// SPDX-License-Identifier: MIT OR Apache-2.0
// Comparisons: greater/greater_equal/lower/lower_equal/equal/not_equal and their _elem forms
// (NaN compares false except for not_equal, infinities compare as numbers), is_nan/contains_nan,
// is_close/all_close against torch.isclose/allclose, on Float and Int, every layout, with the
// shape errors. Expected values: tests/fixtures/numeric.json.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "numeric_helpers.hpp"
#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_compare {

namespace {

using burn::Bool;
using burn::Float;
using burn::Int;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::testing::equal_to;

using namespace burn::testing::numeric;

constexpr double kInf = std::numeric_limits<double>::infinity();

template <class B>
class CompareTest : public ::testing::Test {};
TYPED_TEST_SUITE(CompareTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(CompareTest, TensorTensorWithNaNAndInfEveryLayout) {
    using B = TypeParam;
    const std::string c = "cmp";  // includes nan vs nan, inf vs inf, -inf, equal values
    auto bs = layouts<B, 2>(c, "b");
    for (auto& [la, a] : layouts<B, 2>(c, "a")) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + " vs " + lb);
            EXPECT_TRUE(equal_to(a.greater(b), expected(c, "gt")));
            EXPECT_TRUE(equal_to(a.greater_equal(b), expected(c, "ge")));
            EXPECT_TRUE(equal_to(a.lower(b), expected(c, "lt")));
            EXPECT_TRUE(equal_to(a.lower_equal(b), expected(c, "le")));
            EXPECT_TRUE(equal_to(a.equal(b), expected(c, "eq")));
            EXPECT_TRUE(equal_to(a.not_equal(b), expected(c, "ne")));
        }
    }
    // NaN == NaN is false, NaN != NaN is true, inf == inf is true.
    auto a = input<B, 2>(c, "a");
    auto b = input<B, 2>(c, "b");
    const auto eq = a.equal(b).to_data().template to_vec<bool>();
    const auto ne = a.not_equal(b).to_data().template to_vec<bool>();
    EXPECT_FALSE(eq[0]);
    EXPECT_TRUE(ne[0]);
    EXPECT_TRUE(eq[1]);
    EXPECT_EQ(a.equal(b).dtype(), burn::DType::Bool);
}

TYPED_TEST(CompareTest, Broadcasting) {
    using B = TypeParam;
    const std::string c = "cmp_bcast";
    auto a = input<B, 2>(c, "a");  // [3, 1]
    auto b = input<B, 2>(c, "b");  // [1, 4] with a NaN
    EXPECT_TRUE(equal_to(a.greater(b), expected(c, "gt")));
    EXPECT_TRUE(equal_to(a.greater_equal(b), expected(c, "ge")));
    EXPECT_TRUE(equal_to(a.lower(b), expected(c, "lt")));
    EXPECT_TRUE(equal_to(a.lower_equal(b), expected(c, "le")));
    EXPECT_TRUE(equal_to(a.equal(b), expected(c, "eq")));
    EXPECT_TRUE(equal_to(a.not_equal(b), expected(c, "ne")));
    EXPECT_TRUE(equal_to(a.expand({3, 4}).greater(b.expand({3, 4})), expected(c, "gt")));
    // b op a is the mirrored comparison.
    EXPECT_TRUE(equal_to(b.lower(a), expected(c, "gt")));
    EXPECT_TRUE(equal_to(b.greater_equal(a), expected(c, "le")));
}

TYPED_TEST(CompareTest, ElemFormsWithNaNAndInf) {
    using B = TypeParam;
    const std::string c = "cmp_elem";
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(equal_to(x.greater_elem(0.5), expected(c, "gt")));
        EXPECT_TRUE(equal_to(x.greater_equal_elem(0.5), expected(c, "ge")));
        EXPECT_TRUE(equal_to(x.lower_elem(0.5), expected(c, "lt")));
        EXPECT_TRUE(equal_to(x.lower_equal_elem(0.5), expected(c, "le")));
        EXPECT_TRUE(equal_to(x.equal_elem(0.5), expected(c, "eq")));
        EXPECT_TRUE(equal_to(x.not_equal_elem(0.5), expected(c, "ne")));
        EXPECT_TRUE(equal_to(x.equal_elem(kInf), expected(c, "eq_inf")));
        EXPECT_TRUE(equal_to(x.greater_elem(-kInf), expected(c, "gt_ninf")));
        EXPECT_TRUE(equal_to(x.equal_elem(0), expected(c, "eq_zero")));  // -0.0 == 0 too
        EXPECT_TRUE(equal_to(x.greater_elem(0.5f), expected(c, "gt")));
    }
}

TYPED_TEST(CompareTest, IntTensorAndElem) {
    using B = TypeParam;
    const std::string c = "int_cmp";
    auto bs = layouts<B, 2, Int>(c, "b");
    for (auto& [la, a] : layouts<B, 2, Int>(c, "a")) {
        for (auto& [lb, b] : bs) {
            SCOPED_TRACE(la + " vs " + lb);
            EXPECT_TRUE(equal_to(a.greater(b), expected(c, "gt")));
            EXPECT_TRUE(equal_to(a.greater_equal(b), expected(c, "ge")));
            EXPECT_TRUE(equal_to(a.lower(b), expected(c, "lt")));
            EXPECT_TRUE(equal_to(a.lower_equal(b), expected(c, "le")));
            EXPECT_TRUE(equal_to(a.equal(b), expected(c, "eq")));
            EXPECT_TRUE(equal_to(a.not_equal(b), expected(c, "ne")));
        }
        SCOPED_TRACE(la);
        EXPECT_TRUE(equal_to(a.greater_elem(1), expected(c, "gt_e")));
        EXPECT_TRUE(equal_to(a.greater_equal_elem(1), expected(c, "ge_e")));
        EXPECT_TRUE(equal_to(a.lower_elem(1), expected(c, "lt_e")));
        EXPECT_TRUE(equal_to(a.lower_equal_elem(1), expected(c, "le_e")));
        EXPECT_TRUE(equal_to(a.equal_elem(1), expected(c, "eq_e")));
        EXPECT_TRUE(equal_to(a.not_equal_elem(1), expected(c, "ne_e")));
    }
}

TYPED_TEST(CompareTest, IntElemIsExactBeyondDoublePrecision) {
    // Int scalars reach the backend as int64, so 2^53 + 1 is not confused with 2^53.
    // With 32-bit ints, 2^24 + 1 (not an f32) and INT32_MAX - 1 (next to the top) stand in.
    using B = TypeParam;
    std::vector<std::int64_t> bigs;
    if constexpr (burn::testing::int64_backend<B>) bigs = {(std::int64_t{1} << 53) + 1};
    else bigs = {(std::int64_t{1} << 24) + 1, std::int64_t{INT32_MAX} - 1};
    for (const std::int64_t big : bigs) {
        SCOPED_TRACE(big);
        auto x = Tensor<B, 1, Int>::from_ints({big - 1, big, big + 1});
        EXPECT_TRUE(equal_to(x.equal_elem(big), TensorData::from<bool>({false, true, false})));
        EXPECT_TRUE(equal_to(x.greater_elem(big), TensorData::from<bool>({false, false, true})));
        EXPECT_TRUE(equal_to(x.lower_elem(big), TensorData::from<bool>({true, false, false})));
    }
}

TYPED_TEST(CompareTest, IsNanAndContainsNaN) {
    using B = TypeParam;
    const std::string c = "cmp_elem";  // one NaN at [0, 3]
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(equal_to(x.is_nan(), expected(c, "is_nan")));
        EXPECT_TRUE(x.contains_nan());
    }
    auto clean = input<B, 2>("arith_same", "a");
    EXPECT_FALSE(clean.contains_nan());
    EXPECT_TRUE(equal_to(clean.is_nan(), TensorData::full<bool>(clean.shape(), false)));
    // Infinities are not NaN; NaN produced by an op is.
    auto inf = Tensor<B, 1>::from_floats({kInf, -kInf, 0.0});
    EXPECT_FALSE(inf.contains_nan());
    EXPECT_TRUE((inf * 0.0).contains_nan());
    using F2 = Tensor<B, 2>;
    EXPECT_FALSE(F2::zeros({0, 3}).contains_nan());
    // The NaN hidden in the garbage rows of the step-2 view must not be seen.
    auto stepped = input<B, 2>("arith_same", "a@step").slice({Slice(0, INT64_MAX, 2)});
    EXPECT_FALSE(stepped.contains_nan());
}

TYPED_TEST(CompareTest, IsCloseAndAllCloseMatchTorch) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "differences at the edge of the tolerance, exact in f32 only");
    const std::string c = "isclose";
    auto a = input<B, 1>(c, "a");
    auto b = input<B, 1>(c, "b");
    EXPECT_TRUE(equal_to(a.is_close(b), expected(c, "default")));  // rtol 1e-5, atol 1e-8
    EXPECT_TRUE(equal_to(a.is_close(b, 1e-3, 1e-2), expected(c, "loose")));
    EXPECT_TRUE(equal_to(a.is_close(a), expected(c, "self")));  // NaN is never close
    EXPECT_FALSE(a.all_close(b));
    EXPECT_FALSE(a.all_close(a));  // NaN inside
    EXPECT_TRUE(a.slice({Slice(0, 2)}).all_close(b.slice({Slice(0, 2)})));
    EXPECT_TRUE(a.slice({Slice(7, 8)}).all_close(b.slice({Slice(7, 8)})));       // inf vs inf
    EXPECT_FALSE(a.slice({Slice(8, 9)}).all_close(b.slice({Slice(8, 9)})));      // inf vs -inf
    EXPECT_FALSE(a.slice({Slice(15, 16)}).all_close(b.slice({Slice(15, 16)})));  // 1 vs inf
    EXPECT_FALSE(a.slice({Slice(16, 17)}).all_close(b.slice({Slice(16, 17)})));  // inf vs 1
    // Broadcast [3, 1] against [1, 4].
    const std::string s = "isclose_bcast";
    EXPECT_TRUE(equal_to(input<B, 2>(s, "a").is_close(input<B, 2>(s, "b"), 0.0, 0.75),
                         expected(s, "loose")));
    // all_close with default tolerances on nearly equal tensors.
    auto x = input<B, 2>("arith_same", "a");
    EXPECT_TRUE(x.all_close(x + 1e-9));
    EXPECT_FALSE(x.all_close(x + 1e-3));
    EXPECT_TRUE(x.all_close(x + 1e-3, 0.0, 2e-3));
    EXPECT_TRUE(x.all_close(input<B, 2>("arith_same", "a@T").transpose()));
}

TYPED_TEST(CompareTest, IntIsClose) {
    using B = TypeParam;
    const std::string c = "int_isclose";
    auto a = input<B, 1, Int>(c, "a");
    auto b = input<B, 1, Int>(c, "b");
    EXPECT_TRUE(equal_to(a.is_close(b), expected(c, "default")));
    EXPECT_TRUE(equal_to(a.is_close(b, 0.0, 1.0), expected(c, "atol1")));
    EXPECT_FALSE(a.all_close(b));
    EXPECT_TRUE(a.all_close(a));
}

TYPED_TEST(CompareTest, ShapeErrorsNameTheOp) {
    using B = TypeParam;
    using F2 = Tensor<B, 2>;
    using I2 = Tensor<B, 2, Int>;
    auto a = F2::ones({3, 4});
    auto b = F2::ones({4, 3});
    EXPECT_BURN_ERROR(a.greater(b), "Tensor::greater");
    EXPECT_BURN_ERROR(a.greater_equal(b), "Tensor::greater_equal");
    EXPECT_BURN_ERROR(a.lower(b), "Tensor::lower");
    EXPECT_BURN_ERROR(a.lower_equal(b), "Tensor::lower_equal");
    EXPECT_BURN_ERROR(a.equal(b), "Tensor::equal");
    EXPECT_BURN_ERROR(a.not_equal(b), "Tensor::not_equal");
    EXPECT_BURN_ERROR(a.is_close(b), "Tensor::is_close");
    EXPECT_BURN_ERROR((void)a.all_close(b), "Tensor::is_close");
    EXPECT_BURN_ERROR(I2::ones({2, 2}).greater(I2::ones({3, 2})), "Tensor::greater");
    EXPECT_BURN_ERROR(I2::ones({2, 2}).equal(I2::ones({2, 3})), "Tensor::equal");
}

}  // namespace

}  // namespace burn_test_compare

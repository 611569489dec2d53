// SPDX-License-Identifier: MIT OR Apache-2.0
// Float dtypes per tensor: Tensor::cast to f16 / bf16 / f32 / f64 rounds as PyTorch does (bit
// patterns from tests/fixtures/half.json, written by gen_half.py), ops keep a half tensor's dtype
// and compute as f32 arithmetic rounded once, mixed dtypes promote as in PyTorch (the first
// operand's dtype for the ops that update it), PyTorch's own bf16 results, gradients in the
// dtype of their tensor, and the errors of backends without half-precision tensors.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_half {

namespace {

using burn::Bool;
using burn::DType;
using burn::Float;
using burn::Int;
using burn::Shape;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;

constexpr const char* kFile = "half";

template <class B>
class HalfTest : public ::testing::Test {};
TYPED_TEST_SUITE(HalfTest, burn::testing::Backends, burn::testing::BackendNames);

template <class B>
constexpr bool has_half() {
    return burn::capabilities<B>.float16 && burn::capabilities<B>.bfloat16;
}
#define BURN_REQUIRE_HALF(B) \
    if constexpr (!has_half<B>()) GTEST_SKIP() << B::name() << " has no f16 / bf16 tensors"

/// Whether `bits` is a NaN of the half type `d`.
bool half_nan(std::int64_t bits, DType d) {
    return d == DType::F16 ? (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0
                           : (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
}

/// Compares bit patterns; NaN matches any NaN (PyTorch's own conversions differ on its bits).
::testing::AssertionResult same_bits(const std::vector<std::int64_t>& got,
                                     const std::vector<std::int64_t>& want, DType d) {
    if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i] && !(half_nan(got[i], d) && half_nan(want[i], d)))
            return ::testing::AssertionFailure() << "element " << i << ": got 0x" << std::hex
                                                 << got[i] << ", expected 0x" << want[i];
    return ::testing::AssertionSuccess();
}

/// The stored bits of a half-precision TensorData.
std::vector<std::int64_t> bits_of(const TensorData& d) {
    std::vector<std::int64_t> out;
    if (d.dtype == DType::F16)
        for (auto h : d.as_span<burn::f16>()) out.push_back(h.bits);
    else
        for (auto h : d.as_span<burn::bf16>()) out.push_back(h.bits);
    return out;
}

std::vector<std::int64_t> expected_bits(const std::string& c, const std::string& name) {
    return burn::testing::fixture_output(kFile, c, name).to_vec<std::int64_t>();
}

/// x in f32, on backends whose float tensors are made in f32 or f64 (from_data converts to the
/// backend's default float type; a half-precision backend would round the input first).
#define BURN_REQUIRE_F32_INPUTS(B)                                                \
    if constexpr (burn::testing::half_backend<B>)                                 \
    GTEST_SKIP() << B::name()                                                     \
                 << " makes f16 / bf16 tensors from data: the f32 inputs of the " \
                    "rounding cases would be rounded before the cast"

TYPED_TEST(HalfTest, CastFromF32RoundsAsPyTorch) {
    using B = TypeParam;
    BURN_REQUIRE_HALF(B);
    BURN_REQUIRE_F32_INPUTS(B);
    const auto x = burn::testing::fixture_input<B, 1>(kFile, "casts_f32", "x");
    const auto h = x.cast(DType::F16);
    const auto bh = x.cast(DType::BF16);
    EXPECT_EQ(h.dtype(), DType::F16);
    EXPECT_EQ(bh.dtype(), DType::BF16);
    EXPECT_TRUE(
        same_bits(bits_of(h.to_data()), expected_bits("casts_f32", "f16_bits"), DType::F16));
    EXPECT_TRUE(
        same_bits(bits_of(bh.to_data()), expected_bits("casts_f32", "bf16_bits"), DType::BF16));
    // Back to f32: exact (every half value is an f32 value), NaN stays NaN (its payload bits are
    // the device's: NVIDIA GPUs give the canonical 0x7fffffff).
    const TensorData back = h.cast(DType::F32).to_data();
    EXPECT_EQ(back.dtype, DType::F32);
    EXPECT_TRUE(
        burn::testing::close_to(h.cast(DType::F32), h.to_data().convert(DType::F32), {0.0, 0.0}));
    // A strided view (flipped, step 2) casts its own elements.
    const auto v = x.flip({0}).slice({Slice(0, INT64_MAX, 2)});
    EXPECT_EQ(v.cast(DType::F16).to_data(), v.to_data().convert(DType::F16));
}

TYPED_TEST(HalfTest, CastFromF64AndIntsRoundsAsPyTorch) {
    using B = TypeParam;
    BURN_REQUIRE_HALF(B);
    if constexpr (B::default_float_dtype == DType::F64) {
        const auto x = burn::testing::fixture_input<B, 1>(kFile, "casts_f64", "x");
        EXPECT_EQ(bits_of(x.cast(DType::F16).to_data()), expected_bits("casts_f64", "f16_bits"));
        EXPECT_EQ(bits_of(x.cast(DType::BF16).to_data()), expected_bits("casts_f64", "bf16_bits"));
        EXPECT_TRUE(burn::testing::close_to(
            x.cast(DType::F16).cast(DType::F64),
            burn::testing::fixture_output(kFile, "casts_f64", "f16_f64"), {0.0, 0.0}));
    }
    if constexpr (burn::testing::int64_backend<B>) {
        const auto i = burn::testing::fixture_input<B, 1, Int>(kFile, "casts_int", "i");
        auto f = i.into_float();
        if constexpr (!burn::testing::half_backend<B>) {
            EXPECT_EQ(bits_of(f.cast(DType::F16).to_data()),
                      expected_bits("casts_int", "f16_bits"));
            EXPECT_EQ(bits_of(f.cast(DType::BF16).to_data()),
                      expected_bits("casts_int", "bf16_bits"));
        } else {  // into_float makes the backend's half type directly
            const std::string out = f.dtype() == DType::F16 ? "f16_bits" : "bf16_bits";
            EXPECT_EQ(bits_of(f.to_data()), expected_bits("casts_int", out));
        }
        // Half -> int truncates toward zero, as from f32.
        auto h = Tensor<B, 1>::from_floats({2.75, -2.75, 1000.5}).cast(DType::BF16);
        EXPECT_EQ(h.into_int().to_data().template to_vec<std::int64_t>(),
                  (std::vector<std::int64_t>{2, -2, 1000}));
    }
}

/// op(h) on a half tensor equals op computed in f32 on the same values, rounded once (within one
/// unit in the last place when `exact` is false: a backend's own half-precision kernel, as
/// CUDA's matmul, may accumulate in another order).
template <class B, class Op>
void expect_widened(const Tensor<B, 2>& h, Op op, const char* what, bool exact = true) {
    const auto got = op(h);
    const DType d = h.dtype();
    EXPECT_EQ(got.dtype(), d) << what;
    const auto want = op(h.cast(DType::F32)).cast(d);
    if (exact) {
        EXPECT_EQ(got.to_data(), want.to_data()) << what;
    } else {
        const double ulp = d == DType::F16 ? 1.0 / 1024 : 1.0 / 128;
        EXPECT_TRUE(burn::testing::close_to(got, want.to_data(), {1e-6, ulp})) << what;
    }
}

TYPED_TEST(HalfTest, OpsKeepTheDtypeAndRoundOncePerOp) {
    using B = TypeParam;
    BURN_REQUIRE_HALF(B);
    using T2 = Tensor<B, 2>;
    B::seed(11);
    const auto x = T2::random({6, 8}, burn::Distribution::Uniform(-2.0, 2.0));
    for (DType d : {DType::F16, DType::BF16}) {
        SCOPED_TRACE(burn::dtype_name(d));
        const auto h = x.cast(d);
        expect_widened(
            h, [](T2 t) { return t.exp(); }, "exp");
        // One op per call: a chain rounds after each op, the reference once.
        expect_widened(
            h, [](T2 t) { return t * t.flip({0}); }, "mul");
        expect_widened(
            h, [](T2 t) { return t + 0.1; }, "add_scalar");
        expect_widened(
            h, [](T2 t) { return t.transpose().matmul(t); }, "matmul of a view");
        expect_widened(
            h, [](T2 t) { return t.sum_dim(1); }, "sum_dim");
        expect_widened(
            h, [](T2 t) { return burn::activation::softmax(t, 1); }, "softmax");
        expect_widened(
            h, [](T2 t) { return t.sort(1); }, "sort");
        expect_widened(
            h, [](T2 t) { return t.cumsum(0); }, "cumsum");
        expect_widened(
            h, [](T2 t) { return t.flip({1}).slice({Slice(1, 4)}); }, "views");
        expect_widened(
            h,
            [](T2 t) {
                return T2::cat({t, t.abs()}, 0);
            },
            "cat");
        expect_widened(
            h, [](T2 t) { return t.clamp(-0.5, 0.5); }, "clamp");
        // Reductions with indices and comparisons give ints and bools as on f32.
        EXPECT_EQ(h.argmax(1).to_data(), h.cast(DType::F32).argmax(1).to_data());
        EXPECT_EQ(h.greater_elem(0.25).to_data(), h.cast(DType::F32).greater_elem(0.25).to_data());
        // Scalars of a half tensor read back as numbers.
        EXPECT_DOUBLE_EQ(static_cast<double>(h.sum().into_scalar()),
                         static_cast<double>(h.cast(DType::F32).sum().cast(d).into_scalar()));
    }
}

TYPED_TEST(HalfTest, MatchesPyTorchBf16Ops) {
    using B = TypeParam;
    BURN_REQUIRE_HALF(B);
    const auto a = burn::testing::fixture_input<B, 2>(kFile, "ops_bf16", "a").cast(DType::BF16);
    const auto b = burn::testing::fixture_input<B, 2>(kFile, "ops_bf16", "b").cast(DType::BF16);
    // One bf16 rounding apart at most (sums run in another order).
    const burn::Tolerance tol{1e-6, 8e-3};
    auto check = [&](const Tensor<B, 2>& got, const char* name) {
        EXPECT_EQ(got.dtype(), DType::BF16) << name;
        EXPECT_TRUE(burn::testing::close_to(
            got, burn::testing::fixture_output(kFile, "ops_bf16", name), tol))
            << name;
    };
    check(a + a.flip({0}), "add");
    check(a * a.flip({1}), "mul");
    check(a.exp(), "exp");
    check(a.tanh(), "tanh");
    check(a.sum_dim(1), "sum_dim1");
    check(burn::activation::softmax(a, 1), "softmax_dim1");
    check(a.matmul(b), "matmul");
}

TYPED_TEST(HalfTest, MixedDtypesPromote) {
    using B = TypeParam;
    BURN_REQUIRE_HALF(B);
    using T1 = Tensor<B, 1>;
    const auto x = T1::from_floats({1.0, 2.5, -3.0, 0.125});
    const auto h = x.cast(DType::F16), bh = x.cast(DType::BF16), f = x.cast(DType::F32);
    EXPECT_EQ((h + f).dtype(), DType::F32);
    EXPECT_EQ((f * bh).dtype(), DType::F32);
    EXPECT_EQ((h - bh).dtype(), DType::F32);
    EXPECT_EQ(h.template reshape<2>({1, 4}).matmul(bh.template reshape<2>({4, 1})).dtype(),
              DType::F32);
    EXPECT_EQ((h + h).dtype(), DType::F16);
    EXPECT_TRUE(burn::testing::close_to(h + bh, TensorData::from<float>({2, 5, -6, 0.25})));
    EXPECT_EQ(h.equal(f).to_data().template to_vec<bool>(),
              (std::vector<bool>{true, true, true, true}));
    EXPECT_EQ(T1::cat({h, f}, 0).dtype(), DType::F32);
    if constexpr (burn::capabilities<B>.float64)
        EXPECT_EQ((h * x.cast(DType::F64)).dtype(), DType::F64);
    // Ops that update their first operand keep its dtype.
    const auto mask = Tensor<B, 1, Bool>::from_bools({true, false, true, false});
    EXPECT_EQ(h.mask_where(mask, f * 3.0).dtype(), DType::F16);
    EXPECT_EQ(f.mask_where(mask, h).dtype(), DType::F32);
    EXPECT_EQ(bh.slice_assign({Slice(0, 2)}, f.slice({Slice(2, 4)})).dtype(), DType::BF16);
    EXPECT_TRUE(burn::testing::close_to(bh.slice_assign({Slice(0, 2)}, f.slice({Slice(2, 4)})),
                                        TensorData::from<float>({-3, 0.125, -3, 0.125})));
}

TYPED_TEST(HalfTest, GradientsComeBackInTheTensorsDtype) {
    using B = TypeParam;
    BURN_REQUIRE_HALF(B);
    if constexpr (requires { typename B::Gradients; }) {
        using T2 = Tensor<B, 2>;
        const auto v = T2::from_floats({{1.0, -2.0}, {0.5, 3.0}});
        // A bf16 leaf used in f32 arithmetic: its gradient is bf16.
        auto w = v.cast(DType::BF16).require_grad();
        auto x = T2::from_floats({{0.1, 0.2}, {0.3, 0.4}}).cast(DType::F32);
        auto grads = (w.cast(DType::F32) * x).sum().backward();
        auto gw = w.grad(grads);
        ASSERT_TRUE(gw.has_value());
        EXPECT_EQ(gw->dtype(), DType::BF16);
        EXPECT_TRUE(burn::testing::close_to(*gw, x.cast(DType::BF16).to_data(), {0.0, 0.0}));
        // An f16 leaf mixed with f32 operands (promoted), and an f32 leaf used in f16.
        auto a = v.cast(DType::F16).require_grad();
        auto b = v.cast(DType::F32).require_grad();
        auto g2 = ((a * b) + b.cast(DType::F16).exp()).sum().backward();
        EXPECT_EQ(a.grad(g2)->dtype(), DType::F16);
        EXPECT_EQ(b.grad(g2)->dtype(), DType::F32);
        EXPECT_TRUE(burn::testing::close_to(*a.grad(g2), v.to_data(), {1e-3, 1e-3}));
        // The loss of a half graph seeds its backward in its own dtype.
        auto c = v.cast(DType::F16).require_grad();
        auto g3 = (c * c).sum().backward();
        EXPECT_EQ(c.grad(g3)->dtype(), DType::F16);
        EXPECT_TRUE(burn::testing::close_to(*c.grad(g3), (v * 2.0).to_data(), {1e-3, 1e-3}));
    } else {
        GTEST_SKIP() << "not an autodiff backend";
    }
}

TYPED_TEST(HalfTest, BadCastsThrow) {
    using B = TypeParam;
    const auto x = Tensor<B, 1>::from_floats({1.0, 2.0});
    for (DType d : {DType::I32, DType::I64, DType::Bool, DType::QInt8, DType::U8}) {
        try {
            (void)x.cast(d);
            ADD_FAILURE() << "cast to " << burn::dtype_name(d) << " did not throw";
        } catch (const burn::Error& e) {
            EXPECT_NE(std::string(e.what()).find("Tensor::cast"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("expected a float dtype"), std::string::npos)
                << e.what();
        }
    }
    if constexpr (!has_half<B>()) {
        EXPECT_THROW((void)x.cast(DType::F16), burn::Error);
    } else {
        EXPECT_EQ(x.cast(DType::F32).dtype(), DType::F32);
        EXPECT_EQ(x.cast(DType::F16).cast(DType::BF16).dtype(), DType::BF16);
    }
}

}  // namespace

}  // namespace burn_test_half

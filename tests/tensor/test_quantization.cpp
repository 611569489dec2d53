// SPDX-License-Identifier: MIT OR Apache-2.0
// int8 quantization: QuantizationScheme::compute_q_params against torch.ao's MinMaxObserver /
// PerChannelMinMaxObserver (torch.qint8), q values against torch.quantize_per_tensor /
// quantize_per_channel (int_repr) and dequantize, MinMaxCalibration ranges, quantize_dynamic,
// random round trips within half a step, TensorData of quantized tensors, ops on quantized
// tensors (computed on the dequantized values), printing and errors.
// Expected values: tests/fixtures/quantization.json (tests/fixtures/gen_quantization.py).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_quantization {

namespace {

using burn::DType;
using burn::Int;
using burn::MinMaxCalibration;
using burn::QuantizationInfo;
using burn::QuantizationParameters;
using burn::QuantizationScheme;
using burn::QuantizationType;
using burn::Shape;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;
using burn::testing::equal_to;

constexpr auto QInt8 = QuantizationType::QInt8;
constexpr const char* kFile = "quantization";

template <class B>
class QuantizationTest : public ::testing::Test {};
TYPED_TEST_SUITE(QuantizationTest, burn::testing::Backends, burn::testing::BackendNames);

/// The scheme named in a fixture case's params.
QuantizationScheme case_scheme(const std::string& c) {
    const auto& p = burn::testing::fixture(kFile, c).at("params");
    const auto name = p.at("scheme").get<std::string>();
    const std::size_t axis = p.contains("axis") ? p.at("axis").get<std::size_t>() : 0;
    if (name == "PerTensorAffine") return QuantizationScheme::PerTensorAffine(QInt8);
    if (name == "PerTensorSymmetric") return QuantizationScheme::PerTensorSymmetric(QInt8);
    if (name == "PerChannelAffine") return QuantizationScheme::PerChannelAffine(QInt8, axis);
    return QuantizationScheme::PerChannelSymmetric(QInt8, axis);
}

bool case_calibrated(const std::string& c) {
    return burn::testing::fixture(kFile, c).at("params").at("calibrated").get<bool>();
}

TensorData out(const std::string& c, const std::string& name) {
    return burn::testing::fixture_output(kFile, c, name);
}

/// torch's parameters of a case, as QuantizationParameters.
template <class B>
QuantizationParameters<B> torch_params(const std::string& c, const QuantizationScheme& scheme) {
    std::optional<std::vector<std::int32_t>> offsets;
    if (scheme.is_affine()) offsets = out(c, "offset").to_vec<std::int32_t>();
    return QuantizationParameters<B>::from_values(out(c, "scale").to_vec<float>(), offsets);
}

/// The stored int8 values, widened (for comparisons with int_repr()).
std::vector<std::int64_t> q_values(const TensorData& d) {
    const auto q = d.q_values();
    return {q.begin(), q.end()};
}

const std::vector<std::string>& all_cases() {
    static const std::vector<std::string> cases = {
        "ties_affine",
        "ties_symmetric",
        "observer_PerTensorAffine",
        "observer_PerTensorSymmetric",
        "positive_affine",
        "negative_affine",
        "negative_symmetric",
        "observer_PerChannelAffine_axis0",
        "observer_PerChannelAffine_axis1",
        "observer_PerChannelAffine_axis2",
        "observer_PerChannelSymmetric_axis0",
        "observer_PerChannelSymmetric_axis1",
        "observer_PerChannelSymmetric_axis2",
        "given_per_channel",
    };
    return cases;
}

/// Runs `f` on the case's input `x` reshaped to its own rank (1 to 3).
template <class B, class F>
void with_input(const std::string& c, F&& f) {
    const TensorData x =
        burn::testing::fixture_data(burn::testing::fixture(kFile, c).at("inputs").at("x"));
    switch (x.rank()) {
        case 1: f(Tensor<B, 1>::from_data(x)); break;
        case 2: f(Tensor<B, 2>::from_data(x)); break;
        default: f(Tensor<B, 3>::from_data(x)); break;
    }
}

// ------------------------------------------------------------------ schemes and parameters

TEST(QuantizationSchemeTest, FactoriesAndEquality) {
    const auto a = QuantizationScheme::PerTensorAffine(QInt8);
    const auto s = QuantizationScheme::PerTensorSymmetric(QInt8);
    const auto ca = QuantizationScheme::PerChannelAffine(QInt8, 1);
    const auto cs = QuantizationScheme::PerChannelSymmetric(QInt8, 0);
    EXPECT_TRUE(a.is_affine() && !a.is_per_channel());
    EXPECT_TRUE(s.is_symmetric() && !s.is_per_channel());
    EXPECT_TRUE(ca.is_affine() && ca.is_per_channel() && ca.axis == 1);
    EXPECT_TRUE(cs.is_symmetric() && cs.is_per_channel() && cs.axis == 0);
    EXPECT_EQ(a, QuantizationScheme::PerTensorAffine(QInt8));
    EXPECT_NE(a, s);
    EXPECT_NE(ca, QuantizationScheme::PerChannelAffine(QInt8, 0));
    EXPECT_EQ(a.dtype(), DType::QInt8);
    EXPECT_EQ(a.to_string(), "PerTensorAffine(QInt8)");
    EXPECT_EQ(cs.to_string(), "PerChannelSymmetric(QInt8, axis 0)");
    EXPECT_EQ(ca.num_params(Shape{4, 7}), 7u);
    EXPECT_EQ(a.num_params(Shape{4, 7}), 1u);
}

TEST(QuantizationSchemeTest, ComputeQParamsByHand) {
    const auto a = QuantizationScheme::PerTensorAffine(QInt8);
    const auto s = QuantizationScheme::PerTensorSymmetric(QInt8);
    // [-1, 3]: scale 4/255, offset -128 - round(-63.75) = -64 (torch gives the same, see probe).
    auto p = a.compute_q_params(-1.0f, 3.0f);
    EXPECT_EQ(p.scale, 4.0f / 255.0f);
    EXPECT_EQ(p.offset, -64);
    p = s.compute_q_params(-1.0f, 3.0f);
    EXPECT_EQ(p.scale, 3.0f / 127.5f);
    EXPECT_FALSE(p.offset.has_value());
    // The range is extended to include 0.
    p = a.compute_q_params(2.0f, 5.0f);
    EXPECT_EQ(p.scale, 5.0f / 255.0f);
    EXPECT_EQ(p.offset, -128);
    p = a.compute_q_params(-5.0f, -2.0f);
    EXPECT_EQ(p.scale, 5.0f / 255.0f);
    EXPECT_EQ(p.offset, 127);
    // A zero range: the scale is FLT_EPSILON.
    p = a.compute_q_params(0.0f, 0.0f);
    EXPECT_EQ(p.scale, FLT_EPSILON);
    EXPECT_EQ(p.offset, -128);
    EXPECT_EQ(s.compute_q_params(0.0f, 0.0f).scale, FLT_EPSILON);
}

TEST(QuantizationSchemeTest, ValueFormulas) {
    // Round half to even before the offset is added, then saturation.
    EXPECT_EQ(burn::quantize_value(0.25f, 2.0f, 1), 1);    // 0.5 -> 0, + 1
    EXPECT_EQ(burn::quantize_value(0.75f, 2.0f, 1), 3);    // 1.5 -> 2, + 1
    EXPECT_EQ(burn::quantize_value(-0.75f, 2.0f, 0), -2);  // -1.5 -> -2
    EXPECT_EQ(burn::quantize_value(1e9f, 1.0f, 0), 127);
    EXPECT_EQ(burn::quantize_value(-1e9f, 1.0f, 5), -128);
    EXPECT_EQ(burn::quantize_value(NAN, 1.0f, 7), 7);  // NaN maps to the offset
    EXPECT_EQ(burn::dequantize_value<float>(std::int8_t{-3}, 0.5f, 1), -2.0f);
}

// ------------------------------------------------------------------ against torch

TYPED_TEST(QuantizationTest, QValuesMatchTorchWithTorchParams) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "scales and values computed by PyTorch in f32");
    for (const auto& c : all_cases()) {
        SCOPED_TRACE(c);
        const auto scheme = case_scheme(c);
        with_input<B>(c, [&](auto x) {
            auto q = x.quantize(scheme, torch_params<B>(c, scheme));
            EXPECT_TRUE(q.is_quantized());
            EXPECT_EQ(q.dtype(), DType::QInt8);
            const TensorData d = q.to_data();
            EXPECT_EQ(q_values(d), out(c, "q").to_vec<std::int64_t>());
            // (q - offset) * scale: one rounding in f32 (exact in f64).
            EXPECT_TRUE(close_to(q.dequantize(), out(c, "dq"), {1e-6, 1e-6}));
        });
    }
}

TYPED_TEST(QuantizationTest, MinMaxCalibrationMatchesTorchObservers) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "scales and values computed by PyTorch in f32");
    for (const auto& c : all_cases()) {
        if (!case_calibrated(c)) continue;
        SCOPED_TRACE(c);
        const auto scheme = case_scheme(c);
        with_input<B>(c, [&](auto x) {
            const auto qp = MinMaxCalibration{}.compute_q_params(scheme, x);
            EXPECT_TRUE(equal_to(qp.scale, out(c, "scale")));  // bit-exact f32 arithmetic
            ASSERT_EQ(qp.offset.has_value(), scheme.is_affine());
            if (qp.offset) EXPECT_TRUE(equal_to(*qp.offset, out(c, "offset")));
            // quantize_dynamic = calibration + quantize.
            const auto q = x.quantize_dynamic(scheme);
            EXPECT_EQ(q_values(q.to_data()), out(c, "q").to_vec<std::int64_t>());
            EXPECT_EQ(q.to_data().quantization()->scheme, scheme);
        });
    }
}

TYPED_TEST(QuantizationTest, MinMaxCalibrationRanges) {
    using B = TypeParam;
    auto x = Tensor<B, 2>::from_floats({{1, -2, 3}, {-4, 5, 0.5}});
    MinMaxCalibration cal;
    auto r = cal.compute_range(QuantizationScheme::PerTensorAffine(QInt8), x);
    EXPECT_TRUE(close_to(r.min, TensorData::from<float>({-4})));
    EXPECT_TRUE(close_to(r.max, TensorData::from<float>({5})));
    r = cal.compute_range(QuantizationScheme::PerChannelSymmetric(QInt8, 0), x);
    EXPECT_TRUE(close_to(r.min, TensorData::from<float>({-2, -4})));
    EXPECT_TRUE(close_to(r.max, TensorData::from<float>({3, 5})));
    r = cal.compute_range(QuantizationScheme::PerChannelAffine(QInt8, 1), x);
    EXPECT_TRUE(close_to(r.min, TensorData::from<float>({-4, -2, 0.5})));
    EXPECT_TRUE(close_to(r.max, TensorData::from<float>({1, 5, 3})));
    // Per channel along the last axis of a strided (transposed) view.
    r = cal.compute_range(QuantizationScheme::PerChannelAffine(QInt8, 1), x.transpose());
    EXPECT_TRUE(close_to(r.min, TensorData::from<float>({-2, -4})));
    EXPECT_TRUE(close_to(r.max, TensorData::from<float>({3, 5})));
    // Empty tensors have the range [0, 0].
    auto e = Tensor<B, 2>::zeros({0, 3});
    r = cal.compute_range(QuantizationScheme::PerChannelAffine(QInt8, 1), e);
    EXPECT_TRUE(close_to(r.min, TensorData::from<float>({0, 0, 0})));
    EXPECT_BURN_ERROR((cal.compute_range(QuantizationScheme::PerChannelAffine(QInt8, 2), x)),
                      "MinMaxCalibration::compute_range");
}

// ------------------------------------------------------------------ round trips

/// |dequantize(quantize(x)) - x| <= scale/2 (plus rounding slack) for every element; the
/// calibrated range always contains the values, so none saturates beyond half a step.
template <class B, std::size_t D>
void expect_round_trip(const Tensor<B, D>& x, const QuantizationScheme& scheme) {
    const auto q = x.quantize_dynamic(scheme);
    ASSERT_TRUE(q.is_quantized());
    const TensorData qd = q.to_data();
    const auto& info = *qd.quantization();
    const auto xv = x.to_data().template to_vec<double>();
    const auto dv = q.dequantize().to_data().template to_vec<double>();
    const Shape s = x.shape();
    std::size_t inner = 1;
    for (std::size_t d = scheme.axis + 1; d < s.rank(); ++d) inner *= s[d];
    double max_ratio = 0;
    for (std::size_t i = 0; i < xv.size(); ++i) {
        const std::size_t c = scheme.is_per_channel() ? (i / inner) % s[scheme.axis] : 0;
        const double step = info.scales[c];
        const double err = std::abs(dv[i] - xv[i]);
        max_ratio = std::max(max_ratio, err / step);
        ASSERT_LE(err, step * 0.5 + 1e-5 * std::abs(xv[i]) + 1e-7)
            << "element " << i << ": x " << xv[i] << ", round trip " << dv[i] << ", scale " << step;
    }
    // A uniformly filled range uses (almost) all of the half step.
    EXPECT_GT(max_ratio, 0.4);
}

TYPED_TEST(QuantizationTest, RandomRoundTripsWithinHalfAStep) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "round trips bounded at f32 precision");
    B::seed(7);
    auto x = Tensor<B, 3>::random({6, 7, 9}, burn::Distribution::Uniform(-3.0, 5.0));
    for (const auto& scheme :
         {QuantizationScheme::PerTensorAffine(QInt8), QuantizationScheme::PerTensorSymmetric(QInt8),
          QuantizationScheme::PerChannelAffine(QInt8, 0),
          QuantizationScheme::PerChannelAffine(QInt8, 1),
          QuantizationScheme::PerChannelSymmetric(QInt8, 0),
          QuantizationScheme::PerChannelSymmetric(QInt8, 1),
          QuantizationScheme::PerChannelSymmetric(QInt8, 2)}) {
        SCOPED_TRACE(scheme.to_string());
        expect_round_trip(x, scheme);
    }
    // Channels of very different ranges: per-channel scales follow each channel.
    auto wide = Tensor<B, 2>::random({4, 50}, burn::Distribution::Uniform(-1.0, 1.0)) *
                Tensor<B, 2>::from_floats({{0.01}, {1}, {100}, {1e4}});
    expect_round_trip(wide, QuantizationScheme::PerChannelAffine(QInt8, 0));
    const auto qd =
        wide.quantize_dynamic(QuantizationScheme::PerChannelSymmetric(QInt8, 0)).to_data();
    const auto& sc = qd.quantization()->scales;
    EXPECT_LT(sc[0] * 1e5, sc[3]);
}

TYPED_TEST(QuantizationTest, LargeAndStridedInputs) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "round trips bounded at f32 precision");
    B::seed(11);
    // 65536 elements: the parallel path, runs split between threads.
    auto big = Tensor<B, 2>::random({64, 1024}, burn::Distribution::Normal(0.5, 2.0));
    expect_round_trip(big, QuantizationScheme::PerTensorAffine(QInt8));
    expect_round_trip(big, QuantizationScheme::PerChannelSymmetric(QInt8, 1));
    expect_round_trip(big, QuantizationScheme::PerChannelAffine(QInt8, 0));
    // A transposed view quantizes like its contiguous copy.
    auto x = Tensor<B, 2>::random({5, 8}, burn::Distribution::Uniform(-2.0, 2.0));
    const auto scheme = QuantizationScheme::PerChannelAffine(QInt8, 0);
    const auto view = x.transpose();
    const auto copy = Tensor<B, 2>::from_data(view.to_data());
    EXPECT_EQ(view.quantize_dynamic(scheme).to_data(), copy.quantize_dynamic(scheme).to_data());
}

// ------------------------------------------------------------------ data, dtype, printing

TYPED_TEST(QuantizationTest, TensorDataRoundTrip) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "scales compared exactly as f32 values");
    auto x = Tensor<B, 2>::from_floats({{-1.0, 0.3, 2.6}, {0.49, -0.51, 7.0}});
    const auto scheme = QuantizationScheme::PerChannelAffine(QInt8, 1);
    auto q = x.quantize(scheme,
                        QuantizationParameters<B>::from_values({0.1f, 0.2f, 0.05f}, {{0, -3, 10}}));
    const TensorData d = q.to_data();
    EXPECT_TRUE(d.is_quantized());
    EXPECT_EQ(d.dtype, DType::QInt8);
    EXPECT_EQ(d.shape, Shape({2, 3}));
    EXPECT_EQ(q_values(d), (std::vector<std::int64_t>{-10, -1, 62, 5, -6, 127}));
    const QuantizationInfo& info = *d.quantization();
    EXPECT_EQ(info.scheme, scheme);
    EXPECT_EQ(info.scales, (std::vector<float>{0.1f, 0.2f, 0.05f}));
    EXPECT_EQ(info.offsets, (std::vector<std::int32_t>{0, -3, 10}));

    // from_data keeps the int8 values and the parameters.
    auto back = Tensor<B, 2>::from_data(d);
    EXPECT_TRUE(back.is_quantized());
    EXPECT_EQ(back.dtype(), DType::QInt8);
    EXPECT_EQ(back.to_data(), d);
    // to_device keeps it quantized.
    EXPECT_TRUE(back.to_device(back.device()).is_quantized());

    // Read as numbers, quantized data is its dequantized values.
    const auto expect =
        TensorData::from_nested<float, 2>({{-1.0f, 0.4f, 2.6f}, {0.5f, -0.6f, 5.85f}});
    d.assert_approx_eq(expect, burn::Tolerance{1e-6, 1e-6});
    d.dequantize().assert_approx_eq(expect, burn::Tolerance{1e-6, 1e-6});
    EXPECT_EQ(d.dequantize().dtype, DType::F32);
    EXPECT_EQ(d.convert(DType::F32), d.dequantize());
    EXPECT_EQ(d.convert(DType::F64).dtype, DType::F64);
    EXPECT_NEAR(d.value_as_double(5), 5.85, 1e-6);
    EXPECT_EQ(d.to_vec<float>(), d.dequantize().to_vec<float>());
    EXPECT_TRUE(close_to(q.dequantize(), expect, {1e-6, 1e-6}));
    // Int tensors from quantized data take the dequantized values (truncated).
    EXPECT_TRUE(equal_to(Tensor<B, 2, Int>::from_data(d),
                         TensorData::from_nested<std::int64_t, 2>({{-1, 0, 2}, {0, 0, 5}})));

    // Equality compares the parameters too.
    QuantizationInfo other = info;
    other.scales[0] = 0.25f;
    const auto bytes = std::vector<std::uint8_t>(d.bytes().begin(), d.bytes().end());
    EXPECT_NE(TensorData(bytes, d.shape, other), d);
    EXPECT_EQ(TensorData(bytes, d.shape, info), d);

    // A hand-built quantized TensorData.
    auto h = TensorData::quantized(
        {-2, 0, 4}, Shape{3},
        QuantizationInfo{QuantizationScheme::PerTensorSymmetric(QInt8), {0.5f}, {}});
    EXPECT_EQ(h.to_vec<float>(), (std::vector<float>{-1.0f, 0.0f, 2.0f}));
    auto ht = Tensor<B, 1>::from_data(h);
    EXPECT_TRUE(ht.is_quantized());
    EXPECT_TRUE(close_to(ht.dequantize(), TensorData::from<float>({-1, 0, 2})));
}

TYPED_TEST(QuantizationTest, DtypeAndDequantize) {
    using B = TypeParam;
    auto x = Tensor<B, 1>::from_floats({-1.0, 0.5, 2.0});
    EXPECT_FALSE(x.is_quantized());
    EXPECT_EQ(x.dtype(), B::default_float_dtype);
    EXPECT_EQ(x.dequantize().dtype(), B::default_float_dtype);  // a float tensor is left as it is
    auto q = x.quantize_dynamic(QuantizationScheme::PerTensorSymmetric(QInt8));
    EXPECT_EQ(q.dtype(), DType::QInt8);
    auto y = q.dequantize();
    EXPECT_FALSE(y.is_quantized());
    EXPECT_EQ(y.dtype(), B::default_float_dtype);
    EXPECT_EQ(y.to_data().dtype, B::default_float_dtype);
    // The original tensor is untouched.
    EXPECT_FALSE(x.is_quantized());
    // Re-quantizing the dequantized values with the same parameters gives the same q values.
    const auto qd = q.to_data();
    const auto scale = std::vector<float>{qd.quantization()->scales[0]};
    auto again = y.quantize(QuantizationScheme::PerTensorSymmetric(QInt8),
                            QuantizationParameters<B>::from_values(scale, std::nullopt));
    EXPECT_EQ(again.to_data(), qd);
}

TYPED_TEST(QuantizationTest, Printing) {
    using B = TypeParam;
    auto x = Tensor<B, 2>::from_floats({{-1, 0.5}, {2, 3}});
    auto q = x.quantize(QuantizationScheme::PerTensorSymmetric(QInt8),
                        QuantizationParameters<B>::from_values({0.5f}, std::nullopt));
    const std::string want =
        "Tensor {\n  data:\n[[-1.0, 0.5],\n [2.0, 3.0]],\n  shape:  [2, 2],"
        "\n  device:  " +
        burn::testing::device_name<B>() + ",\n  backend:  \"" + B::name() +
        "\",\n  kind:  \"Float\",\n  dtype:  \"qint8\",\n  qscheme:  "
        "\"PerTensorSymmetric(QInt8)\",\n}";
    EXPECT_EQ(burn::to_string(q), want);
    EXPECT_EQ(q.to_data().to_string(), "[[-1.0, 0.5],\n [2.0, 3.0]]");
}

// ------------------------------------------------------------------ ops on quantized tensors

TYPED_TEST(QuantizationTest, OpsComputeOnDequantizedValues) {
    using B = TypeParam;
    B::seed(3);
    auto x = Tensor<B, 2>::random({4, 6}, burn::Distribution::Uniform(-2.0, 2.0));
    auto w = Tensor<B, 2>::random({6, 3}, burn::Distribution::Uniform(-1.0, 1.0));
    auto q = x.quantize_dynamic(QuantizationScheme::PerTensorAffine(QInt8));
    auto qw = w.quantize_dynamic(QuantizationScheme::PerChannelSymmetric(QInt8, 1));
    const auto dx = q.dequantize();
    const auto dw = qw.dequantize();
    const auto tol = burn::testing::tolerance<B>();

    auto sum = q + 1;
    EXPECT_FALSE(sum.is_quantized());
    EXPECT_EQ(sum.dtype(), B::default_float_dtype);
    EXPECT_TRUE(close_to(sum, (dx + 1).to_data(), tol));
    EXPECT_TRUE(close_to(q.matmul(qw), dx.matmul(dw).to_data(), tol));
    EXPECT_TRUE(close_to(q.matmul(w), dx.matmul(w).to_data(), tol));  // mixed operands
    EXPECT_TRUE(close_to(q * q, (dx * dx).to_data(), tol));
    EXPECT_TRUE(close_to(q.exp(), dx.exp().to_data(), tol));
    EXPECT_TRUE(close_to(q.sum(), dx.sum().to_data(), tol));
    EXPECT_TRUE(close_to(q.mean_dim(1), dx.mean_dim(1).to_data(), tol));
    EXPECT_TRUE(close_to(q.transpose(), dx.transpose().to_data(), tol));
    EXPECT_TRUE(close_to(q.template reshape<1>(std::array<std::int64_t, 1>{24}),
                         dx.template reshape<1>(std::array<std::int64_t, 1>{24}).to_data(), tol));
    EXPECT_TRUE(
        close_to(q.slice({burn::Slice(1, 3)}), dx.slice({burn::Slice(1, 3)}).to_data(), tol));
    EXPECT_TRUE(
        close_to(Tensor<B, 2>::cat({q, x}, 0), Tensor<B, 2>::cat({dx, x}, 0).to_data(), tol));
    EXPECT_TRUE(equal_to(q.greater_elem(0.0), dx.greater_elem(0.0).to_data()));
    EXPECT_TRUE(equal_to(q.argmax(1), dx.argmax(1).to_data()));
    EXPECT_TRUE(close_to(q.clamp(-0.5, 0.5), dx.clamp(-0.5, 0.5).to_data(), tol));
    // The quantized operand is not modified by ops that could reuse a buffer.
    auto moved = std::move(q) + 2;
    EXPECT_TRUE(close_to(moved, (dx + 2).to_data(), tol));
}

// ------------------------------------------------------------------ errors

TYPED_TEST(QuantizationTest, Errors) {
    using B = TypeParam;
    using P = QuantizationParameters<B>;
    auto x = Tensor<B, 2>::from_floats({{1, 2, 3}, {4, 5, 6}});
    const auto pta = QuantizationScheme::PerTensorAffine(QInt8);
    const auto pts = QuantizationScheme::PerTensorSymmetric(QInt8);
    auto q = x.quantize_dynamic(pta);

    EXPECT_BURN_ERROR((q.quantize(pta, P::from_values({0.1f}, {{0}}))), "Tensor::quantize");
    EXPECT_BURN_ERROR((q.quantize(pta, P::from_values({0.1f}, {{0}}))), "already quantized");
    EXPECT_BURN_ERROR((q.quantize_dynamic(pta)), "Tensor::quantize_dynamic");
    // Scale count: 1 per tensor, dims[axis] per channel.
    EXPECT_BURN_ERROR((x.quantize(pta, P::from_values({0.1f, 0.2f}, {{0, 0}}))),
                      "needs 1 scale(s), got 2");
    EXPECT_BURN_ERROR((x.quantize(QuantizationScheme::PerChannelSymmetric(QInt8, 1),
                                  P::from_values({0.1f, 0.2f}, std::nullopt))),
                      "needs 3 scale(s), got 2");
    EXPECT_BURN_ERROR((x.quantize(QuantizationScheme::PerChannelAffine(QInt8, 0),
                                  P::from_values({0.1f, 0.2f}, {{0}}))),
                      "needs 2 offset(s), got 1");
    // Per-channel axis out of range.
    EXPECT_BURN_ERROR(
        (x.quantize(QuantizationScheme::PerChannelAffine(QInt8, 2), P::from_values({0.1f}, {{0}}))),
        "per-channel axis 2 is out of range");
    EXPECT_BURN_ERROR((x.quantize_dynamic(QuantizationScheme::PerChannelSymmetric(QInt8, 5))),
                      "Tensor::quantize_dynamic");
    // Offsets exactly for affine schemes.
    EXPECT_BURN_ERROR((x.quantize(pta, P::from_values({0.1f}, std::nullopt))), "needs an offset");
    EXPECT_BURN_ERROR((x.quantize(pts, P::from_values({0.1f}, {{0}}))), "takes no offset");
    // Parameter values (checked where they are read).
    EXPECT_BURN_ERROR((x.quantize(pts, P::from_values({0.0f}, std::nullopt))),
                      "scales must be positive");
    EXPECT_BURN_ERROR((x.quantize(pta, P::from_values({0.1f}, {{200}}))),
                      "outside the qint8 range");

    // TensorData.
    EXPECT_BURN_ERROR((TensorData(std::vector<std::uint8_t>(3), Shape{3}, DType::QInt8)),
                      "TensorData::quantized");
    EXPECT_BURN_ERROR(
        (TensorData::quantized({1, 2}, Shape{2}, QuantizationInfo{pta, {0.1f, 0.2f}, {0, 0}})),
        "TensorData::quantized");
    EXPECT_BURN_ERROR((TensorData::quantized({1, 2}, Shape{2}, QuantizationInfo{pts, {0.1f}, {0}})),
                      "takes no offsets");
    EXPECT_BURN_ERROR(
        (TensorData::quantized({1, 2, 3}, Shape{2}, QuantizationInfo{pts, {0.1f}, {}})),
        "TensorData::quantized");
    EXPECT_BURN_ERROR((TensorData::from<float>({1, 2}).q_values()), "TensorData::q_values");
    EXPECT_BURN_ERROR((TensorData::from<float>({1, 2}).convert(DType::QInt8)),
                      "TensorData::convert");
    EXPECT_BURN_ERROR((q.to_data().template as_span<std::int8_t>()), "TensorData::as_span");
}

}  // namespace

}  // namespace burn_test_quantization

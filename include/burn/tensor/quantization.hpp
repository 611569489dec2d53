// SPDX-License-Identifier: MIT OR Apache-2.0
// int8 quantization of float tensors (Burn's burn::tensor::quantization):
//
//   using namespace burn;
//   auto scheme = QuantizationScheme::PerTensorAffine(QuantizationType::QInt8);
//   auto q = x.quantize_dynamic(scheme);                 // MinMaxCalibration + quantize
//   auto qp = MinMaxCalibration{}.compute_q_params(scheme, x);
//   auto q2 = x.quantize(scheme, qp);                     // the same, in two steps
//   q.dtype();                                             // DType::QInt8
//   auto y = q.dequantize();                               // (q - offset) * scale
//
// Schemes: per-tensor or per-channel (along `axis`), affine (scale + zero-point offset) or
// symmetric (scale only). The formulas are PyTorch's for torch.qint8, in f32
// (quantization_scheme.hpp):
//   q = clamp(round_half_even(x * (1 / scale)) + offset, -128, 127),   x' = (q - offset) * scale
// Other ops on a quantized tensor dequantize it and compute in float; their results are ordinary
// float tensors (call quantize again to store int8).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "burn/tensor/quantization_scheme.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn {

/// The parameters of a quantization, as tensors: `scale` holds one value per range (1 for
/// per-tensor schemes, dims[axis] for per-channel ones); `offset` the matching zero points for
/// affine schemes (none for symmetric ones).
template <BackendTypes B>
struct QuantizationParameters {
    Tensor<B, 1> scale;
    std::optional<Tensor<B, 1, Int>> offset;

    /// From host values.
    static QuantizationParameters from_values(
        const std::vector<float>& scales, const std::optional<std::vector<std::int32_t>>& offsets,
        const typename B::Device& device = {}) {
        QuantizationParameters p{
            Tensor<B, 1>::from_data(TensorData(scales, Shape{scales.size()}), device),
            std::nullopt};
        if (offsets)
            p.offset = Tensor<B, 1, Int>::from_data(TensorData(*offsets, Shape{offsets->size()}),
                                                    device);
        return p;
    }
};

/// The range of values to represent: one (min, max) pair per range of the scheme.
template <BackendTypes B>
struct CalibrationRange {
    Tensor<B, 1> min;
    Tensor<B, 1> max;
};

/// The parameters of `scheme` for each (min, max) pair of `range`
/// (QuantizationScheme::compute_q_params, in f32).
template <BackendTypes B>
QuantizationParameters<B> compute_q_params(const QuantizationScheme& scheme,
                                           const CalibrationRange<B>& range) {
    const auto lo = range.min.to_data().template to_vec<float>();
    const auto hi = range.max.to_data().template to_vec<float>();
    BURN_CHECK(lo.size() == hi.size(), "compute_q_params: ", lo.size(), " minimums but ",
               hi.size(), " maximums");
    std::vector<float> scales(lo.size());
    std::vector<std::int32_t> offsets(scheme.is_affine() ? lo.size() : 0);
    for (std::size_t i = 0; i < lo.size(); ++i) {
        const QParams p = scheme.compute_q_params(lo[i], hi[i]);
        scales[i] = p.scale;
        if (p.offset) offsets[i] = *p.offset;
    }
    std::optional<std::vector<std::int32_t>> off;
    if (scheme.is_affine()) off = std::move(offsets);
    return QuantizationParameters<B>::from_values(scales, off, range.min.device());
}

/// Calibration by the tensor's minimum and maximum (per tensor, or per index along the axis).
struct MinMaxCalibration {
    /// min and max of `tensor`: shape [1] per tensor, [dims[axis]] per channel. An empty tensor
    /// (or channel) has the range [0, 0].
    template <BackendTypes B, std::size_t D>
    CalibrationRange<B> compute_range(const QuantizationScheme& scheme,
                                      const Tensor<B, D>& tensor) const {
        const auto dev = tensor.device();
        if (!scheme.is_per_channel()) {
            if (tensor.num_elements() == 0)
                return {Tensor<B, 1>::zeros(Shape{1}, dev), Tensor<B, 1>::zeros(Shape{1}, dev)};
            return {tensor.min(), tensor.max()};
        }
        BURN_CHECK(scheme.axis < D, "MinMaxCalibration::compute_range: per-channel axis ",
                   scheme.axis, " is out of range for a tensor of rank ", D);
        const std::size_t n = tensor.dims()[scheme.axis];
        if (tensor.num_elements() == 0)
            return {Tensor<B, 1>::zeros(Shape{n}, dev), Tensor<B, 1>::zeros(Shape{n}, dev)};
        // [n, everything else]: the channel's values in one row.
        const auto rows = tensor.swap_dims(0, static_cast<std::int64_t>(scheme.axis))
                              .template reshape<2>(std::array<std::int64_t, 2>{
                                  static_cast<std::int64_t>(n), -1});
        const std::array<std::int64_t, 1> flat{static_cast<std::int64_t>(n)};
        return {rows.min_dim(1).template reshape<1>(flat),
                rows.max_dim(1).template reshape<1>(flat)};
    }

    /// compute_range, then the parameters of each range.
    template <BackendTypes B, std::size_t D>
    QuantizationParameters<B> compute_q_params(const QuantizationScheme& scheme,
                                               const Tensor<B, D>& tensor) const {
        return burn::compute_q_params(scheme, compute_range(scheme, tensor));
    }
};

// ---------------------------------------------------------------------- Tensor methods

template <BackendTypes B, std::size_t D, class K>
Tensor<B, D, K> Tensor<B, D, K>::quantize(const QuantizationScheme& scheme,
                                          const QuantizationParameters<B>& qparams) const
    requires std::same_as<K, Float>
{
    constexpr const char* op = "Tensor::quantize";
    BURN_CHECK(!is_quantized(), op, ": the tensor is already quantized (dequantize it first)");
    if (scheme.is_per_channel())
        BURN_CHECK(scheme.axis < D, op, ": per-channel axis ", scheme.axis,
                   " is out of range for a tensor of rank ", D);
    const std::size_t n = scheme.num_params(shape());
    BURN_CHECK(qparams.scale.num_elements() == n, op, ": ", scheme.to_string(), " of shape ",
               shape(), " needs ", n, " scale(s), got ", qparams.scale.num_elements());
    check_device(qparams.scale, op);
    if (scheme.is_affine()) {
        BURN_CHECK(qparams.offset.has_value(), op, ": ", scheme.to_string(),
                   " needs an offset (zero point)");
        BURN_CHECK(qparams.offset->num_elements() == n, op, ": ", scheme.to_string(),
                   " of shape ", shape(), " needs ", n, " offset(s), got ",
                   qparams.offset->num_elements());
        check_device(*qparams.offset, op);
    } else {
        BURN_CHECK(!qparams.offset.has_value(), op, ": ", scheme.to_string(),
                   " takes no offset");
    }
    std::optional<typename B::IntTensor> offset;
    if (qparams.offset) offset = qparams.offset->primitive();
    return Tensor(B::quantize(prim_, scheme, qparams.scale.primitive(), std::move(offset)));
}

template <BackendTypes B, std::size_t D, class K>
Tensor<B, D, K> Tensor<B, D, K>::quantize_dynamic(const QuantizationScheme& scheme) const
    requires std::same_as<K, Float>
{
    constexpr const char* op = "Tensor::quantize_dynamic";
    BURN_CHECK(!is_quantized(), op, ": the tensor is already quantized (dequantize it first)");
    if (scheme.is_per_channel())
        BURN_CHECK(scheme.axis < D, op, ": per-channel axis ", scheme.axis,
                   " is out of range for a tensor of rank ", D);
    return quantize(scheme, MinMaxCalibration{}.compute_q_params(scheme, *this));
}

}  // namespace burn

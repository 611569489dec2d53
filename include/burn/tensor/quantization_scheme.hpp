// SPDX-License-Identifier: MIT OR Apache-2.0
// The value types of int8 quantization that TensorData and the backends need: the scheme
// (type, range mapping, granularity) and the parameters of a quantized tensor. This header is
// light (no Tensor); the tensor-level API (QuantizationParameters<B>, MinMaxCalibration,
// Tensor::quantize) is in quantization.hpp.
//
// Formulas (PyTorch's, for torch.qint8):
//   quantize:   q  = clamp(round_half_even(x * (1 / scale)) + offset, -128, 127)
//   dequantize: x' = (q - offset) * scale
// Symmetric schemes have no offset (it is 0).
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "burn/tensor/dtype.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape.hpp"

namespace burn {

/// The quantized element type.
enum class QuantizationType : std::uint8_t {
    QInt8,  ///< signed 8-bit integers in [-128, 127]
};

/// Range mapping: affine (scale and zero-point offset) or symmetric around 0 (scale only).
enum class QuantizationMode : std::uint8_t { Affine, Symmetric };

/// One set of parameters for the whole tensor, or one per index along `axis`.
enum class QuantizationGranularity : std::uint8_t { PerTensor, PerChannel };

/// The parameters of one range, as host values.
struct QParams {
    float scale = 1.0f;
    /// The zero point; none for symmetric schemes.
    std::optional<std::int32_t> offset;
    friend bool operator==(const QParams&, const QParams&) = default;
};

/// How a float tensor is quantized. Build one with the factories, as in Burn:
/// `QuantizationScheme::PerTensorAffine(QuantizationType::QInt8)`.
struct QuantizationScheme {
    QuantizationType type = QuantizationType::QInt8;
    QuantizationMode mode = QuantizationMode::Affine;
    QuantizationGranularity granularity = QuantizationGranularity::PerTensor;
    /// The channel dim of per-channel schemes (0 for per-tensor schemes).
    std::size_t axis = 0;

    /// Smallest and largest quantized value.
    static constexpr std::int32_t q_min = -128;
    static constexpr std::int32_t q_max = 127;

    static constexpr QuantizationScheme PerTensorAffine(QuantizationType t) {
        return {t, QuantizationMode::Affine, QuantizationGranularity::PerTensor, 0};
    }
    static constexpr QuantizationScheme PerTensorSymmetric(QuantizationType t) {
        return {t, QuantizationMode::Symmetric, QuantizationGranularity::PerTensor, 0};
    }
    static constexpr QuantizationScheme PerChannelAffine(QuantizationType t, std::size_t axis) {
        return {t, QuantizationMode::Affine, QuantizationGranularity::PerChannel, axis};
    }
    static constexpr QuantizationScheme PerChannelSymmetric(QuantizationType t, std::size_t axis) {
        return {t, QuantizationMode::Symmetric, QuantizationGranularity::PerChannel, axis};
    }

    constexpr bool is_affine() const { return mode == QuantizationMode::Affine; }
    constexpr bool is_symmetric() const { return mode == QuantizationMode::Symmetric; }
    constexpr bool is_per_channel() const {
        return granularity == QuantizationGranularity::PerChannel;
    }
    /// The DType of tensors quantized with this scheme.
    constexpr DType dtype() const { return DType::QInt8; }

    /// Number of (scale, offset) pairs for a tensor of `shape`: 1, or shape[axis].
    std::size_t num_params(const Shape& shape) const {
        return is_per_channel() ? shape[axis] : 1;
    }

    /// The parameters mapping [min, max] to [-128, 127], as torch.ao's MinMaxObserver computes
    /// them for torch.qint8 (all in f32, round half to even):
    ///   min' = min(min, 0), max' = max(max, 0)          (the range always contains 0)
    ///   affine:    scale  = max((max' - min') / 255, FLT_EPSILON)
    ///              offset = clamp(-128 - round(min' / scale), -128, 127)
    ///   symmetric: scale  = max(max(-min', max') / 127.5, FLT_EPSILON), no offset
    /// The symmetric divisor 127.5 = (127 - (-128)) / 2 is PyTorch's; the value -max maps to
    /// -128 and +max to 127 (its q of 127.5 rounds to 128 and is clamped).
    QParams compute_q_params(float min, float max) const {
        const float lo = std::min(min, 0.0f), hi = std::max(max, 0.0f);
        QParams p;
        if (is_symmetric()) {
            const float amax = std::max(-lo, hi);
            p.scale = std::max(amax / 127.5f, FLT_EPSILON);
        } else {
            p.scale = std::max((hi - lo) / 255.0f, FLT_EPSILON);
            const float z = static_cast<float>(q_min) - std::nearbyint(lo / p.scale);
            p.offset = static_cast<std::int32_t>(
                std::clamp(z, static_cast<float>(q_min), static_cast<float>(q_max)));
        }
        return p;
    }

    /// "PerTensorAffine(QInt8)", "PerChannelSymmetric(QInt8, axis 1)".
    std::string to_string() const {
        std::string s = is_per_channel() ? "PerChannel" : "PerTensor";
        s += is_affine() ? "Affine(QInt8" : "Symmetric(QInt8";
        if (is_per_channel()) s += ", axis " + std::to_string(axis);
        return s + ")";
    }

    friend constexpr bool operator==(const QuantizationScheme&,
                                     const QuantizationScheme&) = default;
};

inline std::ostream& operator<<(std::ostream& os, const QuantizationScheme& s) {
    return os << s.to_string();
}

/// q = clamp(round_half_even(x * (1 / scale)) + offset, -128, 127); NaN maps to the offset.
/// As in PyTorch's int8 kernels, the product is taken in f32 with the f32 reciprocal of the scale
/// (`inv_scale = 1.0f / scale`), so q agrees bit for bit with torch.quantize_per_tensor /
/// quantize_per_channel; f64 values are rounded to f32 first, which makes both precisions give
/// the same q.
inline std::int8_t quantize_value(float x, float inv_scale, std::int32_t offset) {
    float y = x * inv_scale;
    // Saturate first (any |y| > 512 clamps to the same q for every valid offset), NaN -> 0.
    y = y >= -512.0f ? (y <= 512.0f ? y : 512.0f) : (y < -512.0f ? -512.0f : 0.0f);
    const auto q = static_cast<std::int32_t>(std::nearbyint(y)) + offset;
    return static_cast<std::int8_t>(std::clamp(q, QuantizationScheme::q_min,
                                               QuantizationScheme::q_max));
}

/// x' = (q - offset) * scale.
template <class E>
inline E dequantize_value(std::int8_t q, E scale, std::int32_t offset) {
    return static_cast<E>(static_cast<std::int32_t>(q) - offset) * scale;
}

/// The quantization parameters stored with quantized data: the scheme and, per range (one, or
/// one per index along the scheme's axis), an f32 scale and an i32 offset (affine only; empty
/// for symmetric schemes).
struct QuantizationInfo {
    QuantizationScheme scheme;
    std::vector<float> scales;
    std::vector<std::int32_t> offsets;

    /// The parameters of range `i`.
    QParams params(std::size_t i) const {
        QParams p{scales[i], std::nullopt};
        if (scheme.is_affine()) p.offset = offsets[i];
        return p;
    }
    std::int32_t offset(std::size_t i) const { return offsets.empty() ? 0 : offsets[i]; }

    /// Throws burn::Error (naming `op`) unless the counts fit a tensor of `shape`: the axis is in
    /// range, there is one scale per range, and offsets are present exactly for affine schemes.
    void validate(const Shape& shape, const char* op) const {
        if (scheme.is_per_channel())
            BURN_CHECK(scheme.axis < shape.rank(), op, ": per-channel axis ", scheme.axis,
                       " is out of range for shape ", shape);
        const std::size_t n = scheme.num_params(shape);
        BURN_CHECK(scales.size() == n, op, ": ", scheme.to_string(), " of shape ", shape,
                   " needs ", n, " scale(s), got ", scales.size());
        if (scheme.is_affine())
            BURN_CHECK(offsets.size() == n, op, ": ", scheme.to_string(), " of shape ", shape,
                       " needs ", n, " offset(s), got ", offsets.size());
        else
            BURN_CHECK(offsets.empty(), op, ": ", scheme.to_string(),
                       " takes no offsets, got ", offsets.size());
        for (std::int32_t z : offsets)
            BURN_CHECK(z >= QuantizationScheme::q_min && z <= QuantizationScheme::q_max, op,
                       ": offset ", z, " is outside the qint8 range [-128, 127]");
        for (float s : scales)
            BURN_CHECK(std::isfinite(s) && s > 0.0f, op,
                       ": scales must be positive and finite, got ", s);
    }

    friend bool operator==(const QuantizationInfo&, const QuantizationInfo&) = default;
};

}  // namespace burn

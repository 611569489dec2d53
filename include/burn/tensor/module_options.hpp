// SPDX-License-Identifier: MIT OR Apache-2.0
// Options and result types of the module ops (convolution, pooling, interpolation), shared by the
// Backend concept, the backends and the burn::module:: functions. Names mirror Burn; PyTorch
// decides the semantics (weight layouts, output sizes, padding rules).
//
//   burn::ConvOptions<2> opt{.stride = {2, 2}, .padding = {1, 1}};   // dilation 1, groups 1
//   auto y = burn::module::conv2d(x, w, b, opt);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace burn {

namespace detail {
template <std::size_t N>
constexpr std::array<std::size_t, N> filled(std::size_t v) {
    std::array<std::size_t, N> a{};
    for (auto& x : a) x = v;
    return a;
}
}  // namespace detail

/// Convolution over N spatial dims. Weight layout [out_channels, in_channels / groups, k...].
template <std::size_t N>
struct ConvOptions {
    std::array<std::size_t, N> stride = detail::filled<N>(1);
    std::array<std::size_t, N> padding = detail::filled<N>(0);  ///< zeros on both sides
    std::array<std::size_t, N> dilation = detail::filled<N>(1);
    std::size_t groups = 1;
    friend bool operator==(const ConvOptions&, const ConvOptions&) = default;
};

/// Transposed convolution over N spatial dims. Weight layout [in_channels, out_channels / groups,
/// k...] (PyTorch's). Output size: (in - 1) * stride - 2 * padding + dilation * (k - 1) +
/// padding_out + 1; padding_out must be smaller than stride or dilation.
template <std::size_t N>
struct ConvTransposeOptions {
    std::array<std::size_t, N> stride = detail::filled<N>(1);
    std::array<std::size_t, N> padding = detail::filled<N>(0);
    std::array<std::size_t, N> padding_out = detail::filled<N>(0);
    std::array<std::size_t, N> dilation = detail::filled<N>(1);
    std::size_t groups = 1;
    friend bool operator==(const ConvTransposeOptions&, const ConvTransposeOptions&) = default;
};

/// Deformable convolution (torchvision.ops.deform_conv2d). Weight [out, in / weight_groups, kh,
/// kw]; offsets [b, 2 * offset_groups * kh * kw, out_h, out_w] as (dy, dx) pairs; mask [b,
/// offset_groups * kh * kw, out_h, out_w].
template <std::size_t N>
struct DeformConvOptions {
    std::array<std::size_t, N> stride = detail::filled<N>(1);
    std::array<std::size_t, N> padding = detail::filled<N>(0);
    std::array<std::size_t, N> dilation = detail::filled<N>(1);
    std::size_t weight_groups = 1;
    std::size_t offset_groups = 1;
    friend bool operator==(const DeformConvOptions&, const DeformConvOptions&) = default;
};

/// unfold4d (im2col, torch.nn.functional.unfold).
struct UnfoldOptions {
    std::array<std::size_t, 2> stride = {1, 1};
    std::array<std::size_t, 2> padding = {0, 0};
    std::array<std::size_t, 2> dilation = {1, 1};
    friend bool operator==(const UnfoldOptions&, const UnfoldOptions&) = default;
};

/// Interpolation modes of `interpolate` (PyTorch's "nearest", "bilinear", "bicubic").
enum class InterpolateMode { Nearest, Bilinear, Bicubic };

/// Options of `interpolate`. `align_corners` has PyTorch's meaning (ignored by Nearest).
struct InterpolateOptions {
    InterpolateMode mode = InterpolateMode::Nearest;
    bool align_corners = false;
    friend bool operator==(const InterpolateOptions&, const InterpolateOptions&) = default;
};

/// Max pooling options: window, stride, zero-or-more padding (padded cells never win), dilation,
/// and PyTorch's ceil_mode (a last, partial window when it starts inside the input or left padding).
template <std::size_t N>
struct MaxPoolOptions {
    std::array<std::size_t, N> kernel_size;
    std::array<std::size_t, N> stride;
    std::array<std::size_t, N> padding = detail::filled<N>(0);
    std::array<std::size_t, N> dilation = detail::filled<N>(1);
    bool ceil_mode = false;
    friend bool operator==(const MaxPoolOptions&, const MaxPoolOptions&) = default;
};

/// Average pooling options; `count_include_pad` divides by the full window (PyTorch's default
/// true), otherwise by the number of input cells in the window.
template <std::size_t N>
struct AvgPoolOptions {
    std::array<std::size_t, N> kernel_size;
    std::array<std::size_t, N> stride;
    std::array<std::size_t, N> padding = detail::filled<N>(0);
    bool count_include_pad = true;
    bool ceil_mode = false;
    friend bool operator==(const AvgPoolOptions&, const AvgPoolOptions&) = default;
};

/// Output and argmax indices (flattened over the spatial dims of each input plane, as PyTorch).
template <class FloatT, class IntT>
struct MaxPoolWithIndices {
    FloatT output;
    IntT indices;
};

/// Gradients of deform_conv2d; mask_grad and bias_grad are set when mask / bias were given.
template <class FloatT>
struct DeformConv2dBackward {
    FloatT x_grad;
    FloatT offset_grad;
    FloatT weight_grad;
    std::optional<FloatT> mask_grad;
    std::optional<FloatT> bias_grad;
};

/// Output length of a convolution or pooling window sweep along one dim (PyTorch's formula):
/// floor((in + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1, or with ceil_mode the
/// ceiling, dropping a last window that would start in the right padding. 0 when no window fits.
constexpr std::size_t conv_output_size(std::size_t in, std::size_t kernel, std::size_t stride,
                                       std::size_t padding, std::size_t dilation,
                                       bool ceil_mode = false) {
    const std::size_t span = dilation * (kernel - 1) + 1;
    const std::size_t padded = in + 2 * padding;
    if (kernel == 0 || stride == 0 || span > padded) return 0;
    std::size_t out = (padded - span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
    if (ceil_mode && (out - 1) * stride >= in + padding) --out;
    return out;
}

/// Output length of a transposed convolution along one dim:
/// (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + padding_out + 1 (0 if negative).
constexpr std::size_t conv_transpose_output_size(std::size_t in, std::size_t kernel,
                                                 std::size_t stride, std::size_t padding,
                                                 std::size_t padding_out, std::size_t dilation) {
    const std::size_t full = (in - 1) * stride + dilation * (kernel - 1) + padding_out + 1;
    return in == 0 || full <= 2 * padding ? 0 : full - 2 * padding;
}

}  // namespace burn

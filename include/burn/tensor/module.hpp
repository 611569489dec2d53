// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::module:: — the neural-network ops over Tensor (Burn's burn::tensor::module): convolutions,
// transposed and deformable convolutions, pooling, interpolation, embedding and unfold4d.
// Arguments are validated here (ranks, channel counts, groups, window sizes) and bad input
// throws burn::Error naming the op and the shapes; the backend's kernel then runs.
//
//   using namespace burn;
//   auto y = module::conv2d(x, w, b, ConvOptions<2>{.padding = {1, 1}});   // x [b, c, h, w]
//   auto p = module::max_pool2d(y, {2, 2}, {2, 2}, {0, 0}, {1, 1});
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "burn/tensor/autocast.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/module_options.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::module {

namespace detail {

/// A size_t that came from a negative int wraps around to a huge value; report it as negative.
inline void check_size_arg(std::size_t v, const char* op, const char* what) {
    BURN_CHECK(v < (std::size_t{1} << 40), op, ": ", what, " ", static_cast<std::int64_t>(v),
               " is negative or too large");
}

template <std::size_t N>
std::string arr(const std::array<std::size_t, N>& a) {
    std::string s = "[";
    for (std::size_t i = 0; i < N; ++i) s += (i ? ", " : "") + std::to_string(a[i]);
    return s + "]";
}

/// Checks the spatial window of a convolution or pool and returns the output sizes.
template <std::size_t N>
std::array<std::size_t, N> window_output(const char* op, const Shape& x,
                                         const std::array<std::size_t, N>& kernel,
                                         const std::array<std::size_t, N>& stride,
                                         const std::array<std::size_t, N>& padding,
                                         const std::array<std::size_t, N>& dilation,
                                         bool ceil_mode = false) {
    std::array<std::size_t, N> out{};
    for (std::size_t i = 0; i < N; ++i) {
        check_size_arg(padding[i], op, "padding");
        BURN_CHECK(stride[i] > 0, op, ": stride must be positive, got ", arr(stride));
        BURN_CHECK(dilation[i] > 0, op, ": dilation must be positive, got ", arr(dilation));
        BURN_CHECK(kernel[i] > 0, op, ": kernel size must be positive, got ", arr(kernel));
        const std::size_t in = x[2 + i];
        const std::size_t span = dilation[i] * (kernel[i] - 1) + 1;
        BURN_CHECK(span <= in + 2 * padding[i], op, ": kernel ", arr(kernel), " (dilation ",
                   arr(dilation), ") is larger than the padded input ", x, " with padding ",
                   arr(padding));
        out[i] = conv_output_size(in, kernel[i], stride[i], padding[i], dilation[i], ceil_mode);
    }
    return out;
}

template <class B, std::size_t D>
void check_bias(const char* op, const std::optional<Tensor<B, 1>>& bias, std::size_t channels,
                const Tensor<B, D>& x) {
    if (!bias) return;
    BURN_CHECK(bias->dims()[0] == channels, op, ": bias of shape ", bias->shape(), " should be [",
               channels, "]");
    BURN_CHECK(bias->device() == x.device(), op, ": bias is on a different device");
}

template <class B, std::size_t D>
std::optional<typename B::FloatTensor> prim(const std::optional<Tensor<B, D>>& t) {
    if (!t) return std::nullopt;
    return t->primitive();
}

template <class B, std::size_t D>
void check_conv(const char* op, const Tensor<B, D>& x, const Tensor<B, D>& w,
                const std::optional<Tensor<B, 1>>& bias, std::size_t groups,
                const std::array<std::size_t, D - 2>& stride,
                const std::array<std::size_t, D - 2>& padding,
                const std::array<std::size_t, D - 2>& dilation) {
    const Shape xs = x.shape(), ws = w.shape();
    BURN_CHECK(groups > 0, op, ": groups must be positive");
    BURN_CHECK(x.device() == w.device(), op, ": input and weight are on different devices");
    BURN_CHECK(ws[0] % groups == 0, op, ": out channels ", ws[0], " (weight ", ws,
               ") are not divisible by groups ", groups);
    BURN_CHECK(xs[1] == ws[1] * groups, op, ": input ", xs, " has ", xs[1],
               " channels, but weight ", ws, " with groups ", groups, " expects ", ws[1] * groups);
    check_bias(op, bias, ws[0], x);
    std::array<std::size_t, D - 2> k{};
    for (std::size_t i = 0; i < D - 2; ++i) k[i] = ws[2 + i];
    (void)window_output<D - 2>(op, xs, k, stride, padding, dilation);
}

template <class B, std::size_t D>
void check_conv_transpose(const char* op, const Tensor<B, D>& x, const Tensor<B, D>& w,
                          const std::optional<Tensor<B, 1>>& bias,
                          const ConvTransposeOptions<D - 2>& o) {
    const Shape xs = x.shape(), ws = w.shape();
    BURN_CHECK(o.groups > 0, op, ": groups must be positive");
    BURN_CHECK(x.device() == w.device(), op, ": input and weight are on different devices");
    BURN_CHECK(xs[1] == ws[0], op, ": input ", xs, " has ", xs[1], " channels, but weight ", ws,
               " expects ", ws[0]);
    BURN_CHECK(ws[0] % o.groups == 0, op, ": in channels ", ws[0], " are not divisible by groups ",
               o.groups);
    check_bias(op, bias, ws[1] * o.groups, x);
    for (std::size_t i = 0; i < D - 2; ++i) {
        check_size_arg(o.padding[i], op, "padding");
        check_size_arg(o.padding_out[i], op, "padding_out");
        BURN_CHECK(o.stride[i] > 0 && o.dilation[i] > 0, op,
                   ": stride and dilation must be positive");
        BURN_CHECK(o.padding_out[i] < o.stride[i] || o.padding_out[i] < o.dilation[i], op,
                   ": padding_out ", arr(o.padding_out),
                   " must be smaller than the stride or the dilation");
        BURN_CHECK(xs[2 + i] > 0, op, ": input ", xs, " has an empty spatial dim");
        BURN_CHECK(conv_transpose_output_size(xs[2 + i], ws[2 + i], o.stride[i], o.padding[i],
                                              o.padding_out[i], o.dilation[i]) > 0,
                   op, ": padding ", arr(o.padding), " leaves no output for input ", xs,
                   " and weight ", ws);
    }
}

template <std::size_t N>
void check_pool_padding(const char* op, const std::array<std::size_t, N>& kernel,
                        const std::array<std::size_t, N>& padding,
                        const std::array<std::size_t, N>& dilation) {
    for (std::size_t i = 0; i < N; ++i) {
        check_size_arg(padding[i], op, "padding");
        BURN_CHECK(2 * padding[i] <= dilation[i] * (kernel[i] - 1) + 1, op, ": padding ",
                   arr(padding), " should be at most half of the kernel size ", arr(kernel));
    }
}

}  // namespace detail

// ------------------------------------------------------------------------- convolutions

/// 1-d convolution: x [batch, channels_in, length], weight [channels_out, channels_in / groups,
/// kernel], bias [channels_out].
template <Backend B>
Tensor<B, 3> conv1d(const Tensor<B, 3>& x, const Tensor<B, 3>& weight,
                    const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                    const ConvOptions<1>& options) {
    detail::check_conv("conv1d", x, weight, bias, options.groups, options.stride, options.padding,
                       options.dilation);
    return Tensor<B, 3>(B::conv1d(autocast::lower(x).primitive(),
                                  autocast::lower(weight).primitive(),
                                  detail::prim(autocast::lower(bias)), options));
}

/// 2-d convolution: x [batch, channels_in, height, width], weight [channels_out,
/// channels_in / groups, kernel_h, kernel_w], bias [channels_out].
template <Backend B>
Tensor<B, 4> conv2d(const Tensor<B, 4>& x, const Tensor<B, 4>& weight,
                    const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                    const ConvOptions<2>& options) {
    detail::check_conv("conv2d", x, weight, bias, options.groups, options.stride, options.padding,
                       options.dilation);
    return Tensor<B, 4>(B::conv2d(autocast::lower(x).primitive(),
                                  autocast::lower(weight).primitive(),
                                  detail::prim(autocast::lower(bias)), options));
}

/// 3-d convolution: x [batch, channels_in, depth, height, width].
template <Backend B>
Tensor<B, 5> conv3d(const Tensor<B, 5>& x, const Tensor<B, 5>& weight,
                    const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                    const ConvOptions<3>& options) {
    detail::check_conv("conv3d", x, weight, bias, options.groups, options.stride, options.padding,
                       options.dilation);
    return Tensor<B, 5>(B::conv3d(autocast::lower(x).primitive(),
                                  autocast::lower(weight).primitive(),
                                  detail::prim(autocast::lower(bias)), options));
}

/// 1-d transposed convolution: weight [channels_in, channels_out / groups, kernel].
template <Backend B>
Tensor<B, 3> conv_transpose1d(const Tensor<B, 3>& x, const Tensor<B, 3>& weight,
                              const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                              const ConvTransposeOptions<1>& options) {
    detail::check_conv_transpose("conv_transpose1d", x, weight, bias, options);
    return Tensor<B, 3>(B::conv_transpose1d(autocast::lower(x).primitive(),
                                            autocast::lower(weight).primitive(),
                                            detail::prim(autocast::lower(bias)), options));
}

/// 2-d transposed convolution: weight [channels_in, channels_out / groups, kernel_h, kernel_w].
template <Backend B>
Tensor<B, 4> conv_transpose2d(const Tensor<B, 4>& x, const Tensor<B, 4>& weight,
                              const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                              const ConvTransposeOptions<2>& options) {
    detail::check_conv_transpose("conv_transpose2d", x, weight, bias, options);
    return Tensor<B, 4>(B::conv_transpose2d(autocast::lower(x).primitive(),
                                            autocast::lower(weight).primitive(),
                                            detail::prim(autocast::lower(bias)), options));
}

/// 3-d transposed convolution.
template <Backend B>
Tensor<B, 5> conv_transpose3d(const Tensor<B, 5>& x, const Tensor<B, 5>& weight,
                              const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                              const ConvTransposeOptions<3>& options) {
    detail::check_conv_transpose("conv_transpose3d", x, weight, bias, options);
    return Tensor<B, 5>(B::conv_transpose3d(autocast::lower(x).primitive(),
                                            autocast::lower(weight).primitive(),
                                            detail::prim(autocast::lower(bias)), options));
}

/// Deformable 2-d convolution (torchvision.ops.deform_conv2d): offset [batch, 2 * offset_groups *
/// kh * kw, out_h, out_w] holds (dy, dx) pairs; the optional mask [batch, offset_groups * kh * kw,
/// out_h, out_w] scales each sampled value (DCNv2).
template <Backend B>
Tensor<B, 4> deform_conv2d(const Tensor<B, 4>& x, const Tensor<B, 4>& offset,
                           const Tensor<B, 4>& weight,
                           const std::type_identity_t<std::optional<Tensor<B, 4>>>& mask,
                           const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                           const DeformConvOptions<2>& options) {
    const char* op = "deform_conv2d";
    const Shape xs = x.shape(), ws = weight.shape(), os = offset.shape();
    const std::size_t wg = options.weight_groups, og = options.offset_groups;
    BURN_CHECK(wg > 0 && og > 0, op, ": weight_groups and offset_groups must be positive");
    BURN_CHECK(ws[0] % wg == 0, op, ": out channels ", ws[0],
               " are not divisible by weight_groups ", wg);
    BURN_CHECK(xs[1] == ws[1] * wg, op, ": input ", xs, " has ", xs[1], " channels, but weight ",
               ws, " with weight_groups ", wg, " expects ", ws[1] * wg);
    BURN_CHECK(xs[1] % og == 0, op, ": input channels ", xs[1],
               " are not divisible by offset_groups ", og);
    detail::check_bias(op, bias, ws[0], x);
    const auto out = detail::window_output<2>(op, xs, {ws[2], ws[3]}, options.stride,
                                              options.padding, options.dilation);
    const std::size_t kk = ws[2] * ws[3];
    const Shape want_offset{xs[0], 2 * og * kk, out[0], out[1]};
    BURN_CHECK(os == want_offset, op, ": offset of shape ", os, " should be ", want_offset,
               " for input ", xs, " and weight ", ws);
    if (mask) {
        const Shape want_mask{xs[0], og * kk, out[0], out[1]};
        BURN_CHECK(mask->shape() == want_mask, op, ": mask of shape ", mask->shape(), " should be ",
                   want_mask);
    }
    return Tensor<B, 4>(
        B::deform_conv2d(autocast::lower(x).primitive(), autocast::lower(offset).primitive(),
                         autocast::lower(weight).primitive(), detail::prim(autocast::lower(mask)),
                         detail::prim(autocast::lower(bias)), options));
}

/// Extracts sliding local blocks (im2col, torch.nn.functional.unfold): x [batch, channels, h, w]
/// -> [batch, channels * kh * kw, number of blocks].
template <Backend B>
Tensor<B, 3> unfold4d(const Tensor<B, 4>& x, std::array<std::size_t, 2> kernel_size,
                      const UnfoldOptions& options = {}) {
    (void)detail::window_output<2>("unfold4d", x.shape(), kernel_size, options.stride,
                                   options.padding, options.dilation);
    return Tensor<B, 3>(B::unfold4d(x.primitive(), kernel_size, options));
}

// ------------------------------------------------------------------------- pooling

namespace detail {
/// Validated pooling options (window inside the padded input, padding at most half the window).
template <std::size_t N>
AvgPoolOptions<N> avg_pool_options(const char* op, const Shape& x, std::array<std::size_t, N> k,
                                   std::array<std::size_t, N> s, std::array<std::size_t, N> p,
                                   bool count_include_pad, bool ceil_mode) {
    std::array<std::size_t, N> d;
    d.fill(1);
    check_pool_padding<N>(op, k, p, d);
    (void)window_output<N>(op, x, k, s, p, d, ceil_mode);
    return {k, s, p, count_include_pad, ceil_mode};
}

template <std::size_t N>
MaxPoolOptions<N> max_pool_options(const char* op, const Shape& x, std::array<std::size_t, N> k,
                                   std::array<std::size_t, N> s, std::array<std::size_t, N> p,
                                   std::array<std::size_t, N> d, bool ceil_mode) {
    check_pool_padding<N>(op, k, p, d);
    (void)window_output<N>(op, x, k, s, p, d, ceil_mode);
    return {k, s, p, d, ceil_mode};
}
}  // namespace detail

/// Average pooling over the last dim of x [batch, channels, length].
template <Backend B>
Tensor<B, 3> avg_pool1d(const Tensor<B, 3>& x, std::size_t kernel_size, std::size_t stride,
                        std::size_t padding, bool count_include_pad = true,
                        bool ceil_mode = false) {
    return Tensor<B, 3>(B::avg_pool1d(
        x.primitive(), detail::avg_pool_options<1>("avg_pool1d", x.shape(), {kernel_size}, {stride},
                                                   {padding}, count_include_pad, ceil_mode)));
}

/// Average pooling over the last two dims of x [batch, channels, height, width].
template <Backend B>
Tensor<B, 4> avg_pool2d(const Tensor<B, 4>& x, std::array<std::size_t, 2> kernel_size,
                        std::array<std::size_t, 2> stride, std::array<std::size_t, 2> padding,
                        bool count_include_pad = true, bool ceil_mode = false) {
    return Tensor<B, 4>(B::avg_pool2d(
        x.primitive(), detail::avg_pool_options<2>("avg_pool2d", x.shape(), kernel_size, stride,
                                                   padding, count_include_pad, ceil_mode)));
}

/// Max pooling over the last dim of x [batch, channels, length].
template <Backend B>
Tensor<B, 3> max_pool1d(const Tensor<B, 3>& x, std::size_t kernel_size, std::size_t stride,
                        std::size_t padding, std::size_t dilation = 1, bool ceil_mode = false) {
    return Tensor<B, 3>(B::max_pool1d(
        x.primitive(), detail::max_pool_options<1>("max_pool1d", x.shape(), {kernel_size}, {stride},
                                                   {padding}, {dilation}, ceil_mode)));
}

/// Max pooling over the last two dims of x [batch, channels, height, width].
template <Backend B>
Tensor<B, 4> max_pool2d(const Tensor<B, 4>& x, std::array<std::size_t, 2> kernel_size,
                        std::array<std::size_t, 2> stride, std::array<std::size_t, 2> padding,
                        std::array<std::size_t, 2> dilation = {1, 1}, bool ceil_mode = false) {
    return Tensor<B, 4>(B::max_pool2d(
        x.primitive(), detail::max_pool_options<2>("max_pool2d", x.shape(), kernel_size, stride,
                                                   padding, dilation, ceil_mode)));
}

/// max_pool1d plus the position of each maximum in its input row.
template <Backend B>
std::pair<Tensor<B, 3>, Tensor<B, 3, Int>> max_pool1d_with_indices(
    const Tensor<B, 3>& x, std::size_t kernel_size, std::size_t stride, std::size_t padding,
    std::size_t dilation = 1, bool ceil_mode = false) {
    auto r = B::max_pool1d_with_indices(
        x.primitive(),
        detail::max_pool_options<1>("max_pool1d_with_indices", x.shape(), {kernel_size}, {stride},
                                    {padding}, {dilation}, ceil_mode));
    return {Tensor<B, 3>(std::move(r.output)), Tensor<B, 3, Int>(std::move(r.indices))};
}

/// max_pool2d plus the position of each maximum, flattened over its input plane (h * W + w).
template <Backend B>
std::pair<Tensor<B, 4>, Tensor<B, 4, Int>> max_pool2d_with_indices(
    const Tensor<B, 4>& x, std::array<std::size_t, 2> kernel_size,
    std::array<std::size_t, 2> stride, std::array<std::size_t, 2> padding,
    std::array<std::size_t, 2> dilation = {1, 1}, bool ceil_mode = false) {
    auto r = B::max_pool2d_with_indices(
        x.primitive(),
        detail::max_pool_options<2>("max_pool2d_with_indices", x.shape(), kernel_size, stride,
                                    padding, dilation, ceil_mode));
    return {Tensor<B, 4>(std::move(r.output)), Tensor<B, 4, Int>(std::move(r.indices))};
}

namespace detail {
template <std::size_t N>
void check_adaptive(const char* op, const Shape& x, const std::array<std::size_t, N>& out) {
    for (std::size_t i = 0; i < N; ++i) {
        BURN_CHECK(out[i] > 0, op, ": output size ", arr(out), " must be positive");
        BURN_CHECK(x[2 + i] > 0, op, ": input ", x, " has an empty spatial dim");
    }
}
}  // namespace detail

/// Adaptive average pooling of x [batch, channels, length] to `output_size` (PyTorch's bins).
template <Backend B>
Tensor<B, 3> adaptive_avg_pool1d(const Tensor<B, 3>& x, std::size_t output_size) {
    detail::check_adaptive<1>("adaptive_avg_pool1d", x.shape(), {output_size});
    return Tensor<B, 3>(B::adaptive_avg_pool1d(x.primitive(), {output_size}));
}

/// Adaptive average pooling of x [batch, channels, height, width].
template <Backend B>
Tensor<B, 4> adaptive_avg_pool2d(const Tensor<B, 4>& x, std::array<std::size_t, 2> output_size) {
    detail::check_adaptive<2>("adaptive_avg_pool2d", x.shape(), output_size);
    return Tensor<B, 4>(B::adaptive_avg_pool2d(x.primitive(), output_size));
}

/// Adaptive average pooling of x [batch, channels, depth, height, width].
template <Backend B>
Tensor<B, 5> adaptive_avg_pool3d(const Tensor<B, 5>& x, std::array<std::size_t, 3> output_size) {
    detail::check_adaptive<3>("adaptive_avg_pool3d", x.shape(), output_size);
    return Tensor<B, 5>(B::adaptive_avg_pool3d(x.primitive(), output_size));
}

// ------------------------------------------------------------------------- interpolation, lookup

/// Resizes x [batch, channels, height, width] to `output_size` (nearest, bilinear or bicubic).
template <Backend B>
Tensor<B, 4> interpolate(const Tensor<B, 4>& x, std::array<std::size_t, 2> output_size,
                         const InterpolateOptions& options = {}) {
    BURN_CHECK(output_size[0] > 0 && output_size[1] > 0, "interpolate: output size ",
               detail::arr(output_size), " must be positive");
    BURN_CHECK(x.dims()[2] > 0 && x.dims()[3] > 0, "interpolate: input ", x.shape(),
               " has an empty spatial dim");
    return Tensor<B, 4>(B::interpolate(x.primitive(), output_size, options));
}

/// Looks up rows of weights [num_embeddings, dim] for indices [batch, seq] -> [batch, seq, dim].
/// Indices outside [0, num_embeddings) throw.
template <Backend B>
Tensor<B, 3> embedding(const Tensor<B, 2>& weights, const Tensor<B, 2, Int>& indices) {
    const std::size_t n = weights.dims()[0];
    if (indices.num_elements() > 0) {
        const auto lo = indices.min().into_scalar(), hi = indices.max().into_scalar();
        BURN_CHECK(lo >= 0 && static_cast<std::size_t>(hi) < n, "embedding: index ",
                   lo < 0 ? lo : hi, " is out of range for ", n, " embeddings (weights ",
                   weights.shape(), ")");
    }
    return Tensor<B, 3>(B::embedding(weights.primitive(), indices.primitive()));
}

}  // namespace burn::module

// SPDX-License-Identifier: MIT OR Apache-2.0
// unfold4d (im2col) and interpolate / interpolate_backward (nearest, bilinear, bicubic with
// PyTorch's F.interpolate semantics, as the CPU backend's nn_misc.cpp and interpolate.cpp).
//
// Interpolation is separable: the host computes each dim's taps (source indices and weights, the
// kit's tables of burn/backend/interpolate.hpp that the CPU backend uses too) and uploads them;
// the forward kernel (interpolate_f32) combines them per output element, the backward
// (interpolate_backward_f32) gathers per input element through the inverse tap lists (CSR per
// dim), so no atomics are needed.
#include <cstring>
#include <vector>

#include "burn/backend/interpolate.hpp"
#include "ops_common.hpp"

namespace burn::vk {

namespace {

constexpr std::uint32_t kWg = 256;
const std::uint32_t kDummyPush = 0;
using i64 = std::int64_t;

std::int32_t i32(std::size_t v, const char* op) {
    BURN_CHECK(v <= 0x7fffffffu, "Vulkan ", op, ": size ", v,
               " exceeds the kernels' 32-bit indices");
    return static_cast<std::int32_t>(v);
}

void launch(Context& ctx, const char* shader, std::vector<const Buffer*> bufs,
            const std::vector<std::int32_t>& prm, std::size_t total) {
    const Buffer pb = ctx.upload(std::as_bytes(std::span<const std::int32_t>(prm)));
    bufs.push_back(&pb);
    const auto& pl = ctx.pipeline({.shader = shader,
                                   .spec = {kWg},
                                   .bindings = static_cast<std::uint32_t>(bufs.size()),
                                   .push_bytes = 4});
    ctx.dispatch(pl, std::span<const Buffer* const>(bufs.data(), bufs.size()),
                 std::as_bytes(std::span<const std::uint32_t, 1>(&kDummyPush, 1)),
                 grid_1d(total, kWg, ctx.features()));
}

/// The tap tables of the kit (burn/backend/interpolate.hpp), in f32 as the kernels read them.
using Taps = backend::InterpolationTaps<float>;

Taps make_taps(std::size_t in, std::size_t out, const InterpolateOptions& o) {
    return backend::interpolation_taps<float>(in, out, o);
}

std::int32_t bits(float f) {
    std::int32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

/// Header words 0..13 of the interpolation tables.
std::vector<std::int32_t> header(const VulkanTensor& view, std::size_t H, std::size_t W,
                                 std::size_t OH, std::size_t OW, std::size_t K, std::size_t total,
                                 const char* op) {
    check_u32(op, view.num_elements());
    std::vector<std::int32_t> t(20, 0);
    t[0] = i32(view.shape[0] * view.shape[1], op);
    t[1] = i32(view.shape[1], op);
    t[2] = i32(H, op), t[3] = i32(W, op), t[4] = i32(OH, op), t[5] = i32(OW, op);
    t[6] = i32(K, op);
    t[7] = i32(total, op);
    t[8] = static_cast<std::int32_t>(view.offset);
    for (int d = 0; d < 4; ++d) t[9 + d] = static_cast<std::int32_t>(view.strides[d]);
    return t;
}

/// Interpolation takes x [b, c, h, w] with a non-empty plane (the Tensor layer checked), in f32.
void check_input(const VulkanTensor& x, [[maybe_unused]] std::array<std::size_t, 2> out,
                 const char* op) {
    assert(x.rank() == 4 && out[0] > 0 && out[1] > 0 && x.shape[2] > 0 && x.shape[3] > 0);
    BURN_CHECK(x.dtype == DType::F32, "Vulkan ", op, ": expected a float tensor, got ",
               dtype_name(x.dtype));
}

}  // namespace

VulkanTensor Kernels::unfold4d(VulkanTensor x, const SpatialArgs& a) {
    assert(x.rank() == 4 && a.n == 2);
    const char* op = "unfold4d";
    const std::size_t B = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const std::size_t kh = a.kernel[0], kw = a.kernel[1];
    const std::size_t OH = conv_output_size(H, kh, a.stride[0], a.padding[0], a.dilation[0]);
    const std::size_t OW = conv_output_size(W, kw, a.stride[1], a.padding[1], a.dilation[1]);
    const Shape out_shape{B, C * kh * kw, OH * OW};
    check_u32(op, out_shape.num_elements() * 2);
    check_u32(op, x.num_elements() * 2);
    const std::size_t esize = device_element_size(x.dtype);
    assert(esize == 4 || esize == 8);  // quantized tensors are dequantized first
    VulkanTensor y = alloc(out_shape, x.dtype, x.device);
    const std::size_t total = out_shape.num_elements();
    if (total == 0) return y;
    std::vector<std::int32_t> p(21, 0);
    const std::size_t vals[] = {B,
                                C,
                                H,
                                W,
                                kh,
                                kw,
                                OH,
                                OW,
                                a.stride[0],
                                a.stride[1],
                                a.padding[0],
                                a.padding[1],
                                a.dilation[0],
                                a.dilation[1],
                                total,
                                esize / 4};
    for (std::size_t i = 0; i < 16; ++i) p[i] = i32(vals[i], op);
    p[16] = static_cast<std::int32_t>(x.offset);
    for (int d = 0; d < 4; ++d) p[17 + d] = static_cast<std::int32_t>(x.strides[d]);
    launch(context(x), "conv_unfold", {&buffer_of(x), &buffer_of(y)}, p, total);
    return y;
}

VulkanTensor Kernels::interpolate(VulkanTensor x, std::array<std::size_t, 2> output_size,
                                  const InterpolateOptions& options) {
    const char* op = "interpolate";
    check_input(x, output_size, op);
    const std::size_t H = x.shape[2], W = x.shape[3], OH = output_size[0], OW = output_size[1];
    const Shape out_shape{x.shape[0], x.shape[1], OH, OW};
    check_u32(op, out_shape.num_elements());
    VulkanTensor y = alloc(out_shape, x.dtype, x.device);
    const std::size_t total = out_shape.num_elements();
    if (total == 0) return y;
    const Taps th = make_taps(H, OH, options), tw = make_taps(W, OW, options);
    const std::size_t K = th.taps;
    std::vector<std::int32_t> t = header(x, H, W, OH, OW, K, total, op);
    t[14] = static_cast<std::int32_t>(t.size());
    for (i64 v : th.idx) t.push_back(static_cast<std::int32_t>(v));
    t[15] = static_cast<std::int32_t>(t.size());
    for (i64 v : tw.idx) t.push_back(static_cast<std::int32_t>(v));
    t[16] = static_cast<std::int32_t>(t.size());
    for (float v : th.w) t.push_back(bits(v));
    t[17] = static_cast<std::int32_t>(t.size());
    for (float v : tw.w) t.push_back(bits(v));
    launch(context(x), "interpolate_f32", {&buffer_of(x), &buffer_of(y)}, t, total);
    return y;
}

namespace {

/// The inverse of a dim's taps: for each input index, the (output, weight) pairs that read it,
/// in output order. Appends start [in + 1], outputs, weights to `t` and records their offsets.
void append_inverse(std::vector<std::int32_t>& t, const Taps& tp, std::size_t in, std::size_t out,
                    std::size_t slot) {
    std::vector<std::vector<std::pair<std::int32_t, float>>> lists(in);
    for (std::size_t o = 0; o < out; ++o)
        for (std::size_t j = 0; j < tp.taps; ++j) {
            const std::size_t k = tp.taps * o + j;
            lists[static_cast<std::size_t>(tp.idx[k])].emplace_back(static_cast<std::int32_t>(o),
                                                                    tp.w[k]);
        }
    t[slot] = static_cast<std::int32_t>(t.size());
    std::int32_t acc = 0;
    for (std::size_t i = 0; i < in; ++i) {
        t.push_back(acc);
        acc += static_cast<std::int32_t>(lists[i].size());
    }
    t.push_back(acc);
    t[slot + 1] = static_cast<std::int32_t>(t.size());
    for (const auto& l : lists)
        for (const auto& e : l) t.push_back(e.first);
    t[slot + 2] = static_cast<std::int32_t>(t.size());
    for (const auto& l : lists)
        for (const auto& e : l) t.push_back(bits(e.second));
}

}  // namespace

VulkanTensor Kernels::interpolate_backward(VulkanTensor x, VulkanTensor grad,
                                           std::array<std::size_t, 2> output_size,
                                           const InterpolateOptions& options) {
    const char* op = "interpolate_backward";
    check_input(x, output_size, op);
    const std::size_t H = x.shape[2], W = x.shape[3], OH = output_size[0], OW = output_size[1];
    assert(grad.shape == Shape({x.shape[0], x.shape[1], OH, OW}) && grad.dtype == x.dtype);
    check_u32(op, x.num_elements());
    VulkanTensor gx = alloc(x.shape, x.dtype, x.device);
    const std::size_t total = x.num_elements();
    if (total == 0) return gx;
    const Taps th = make_taps(H, OH, options), tw = make_taps(W, OW, options);
    std::vector<std::int32_t> t = header(grad, H, W, OH, OW, th.taps, total, op);
    append_inverse(t, th, H, OH, 14);
    append_inverse(t, tw, W, OW, 17);
    launch(context(x), "interpolate_backward_f32", {&buffer_of(grad), &buffer_of(gx)}, t, total);
    return gx;
}

}  // namespace burn::vk

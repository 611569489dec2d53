// SPDX-License-Identifier: MIT OR Apache-2.0
// Pooling with PyTorch's semantics (the CPU backend's pool.cpp): average pooling
// (count_include_pad, ceil_mode), max pooling (padding never wins, dilation, ceil_mode, argmax
// indices flattened per plane, NaN wins) and adaptive average pooling over 1 to 3 spatial dims,
// each with its backward. Inputs are read in place through their strides; a 1-d pooling is a 2-d
// one over planes of height 1. Forward kernels: one invocation per output element; backward
// kernels gather (one invocation per input element, summing the windows that contain it, in
// output order), so no atomics are needed and results are deterministic.
// Differences from the CPU backend: max_pool_backward cannot throw for an index outside the
// input plane (a kernel cannot fail); such an index (never produced by max_pool) is ignored, as
// is one that points outside the window of its output.
#include <algorithm>
#include <array>
#include <vector>

#include "ops_common.hpp"

namespace burn::vk {

namespace {

constexpr std::uint32_t kWg = 256;
const std::uint32_t kDummyPush = 0;

std::int32_t i32(std::size_t v) {
    BURN_CHECK(v <= 0x7fffffffu, "Vulkan pooling: size ", v,
               " exceeds the kernels' 32-bit indices");
    return static_cast<std::int32_t>(v);
}

/// PoolParams of pool_common.glsl.
struct Params {
    std::vector<std::int32_t> p = std::vector<std::int32_t>(42, 0);
    Params() {
        for (int i = 0; i < 3; ++i) p[2 + i] = p[5 + i] = p[8 + i] = p[11 + i] = p[17 + i] = 1;
    }
    /// The view of a [B, C, spatial...] tensor (spatial dims right-aligned into d, h, w).
    void view(int at, const VulkanTensor& t) {
        check_u32("pooling", t.num_elements());
        p[at] = static_cast<std::int32_t>(t.offset);
        p[at + 1] = static_cast<std::int32_t>(t.strides[0]);
        p[at + 2] = static_cast<std::int32_t>(t.strides[1]);
        const std::size_t ns = t.rank() - 2;
        for (std::size_t i = 0; i < ns; ++i)
            p[at + 3 + (3 - ns) + i] = static_cast<std::int32_t>(t.strides[2 + i]);
    }
};

/// Window geometry of a 1-d or 2-d pooling of x (as the CPU's geometry()).
struct Geom {
    Params prm;
    Shape out_shape;
};

Geom geometry(const Shape& x, const SpatialArgs& a) {
    Geom g;
    g.out_shape = backend::pool_shape(x, a);
    auto& p = g.prm.p;
    p[0] = i32(x[0] * x[1]);
    p[1] = i32(x[1]);
    const std::size_t off = a.n == 2 ? 1 : 0;
    if (a.n == 2) {
        p[3] = i32(x[2]), p[6] = i32(g.out_shape[2]);
        p[9] = i32(a.kernel[0]), p[12] = i32(a.stride[0]), p[15] = i32(a.padding[0]),
        p[18] = i32(a.dilation[0]);
    }
    p[4] = i32(x[x.rank() - 1]), p[7] = i32(g.out_shape[x.rank() - 1]);
    p[10] = i32(a.kernel[off]), p[13] = i32(a.stride[off]), p[16] = i32(a.padding[off]);
    p[19] = i32(a.dilation[off]);
    return g;
}

/// The pooling kernels read f32 (float tensors of another dtype are not supported on Vulkan).
void check_float(const VulkanTensor& t, const char* op) {
    BURN_CHECK(t.dtype == DType::F32, "Vulkan ", op, ": expected a float tensor, got ",
               dtype_name(t.dtype));
}

/// Runs `shader` with bindings {inputs..., out, params} over `total` invocations.
void run(Context& ctx, const char* shader, std::vector<const Buffer*> bufs, Params& prm,
         std::size_t total) {
    prm.p[20] = i32(total);
    const Buffer pb = ctx.upload(std::as_bytes(std::span<const std::int32_t>(prm.p)));
    bufs.push_back(&pb);
    const auto& pl = ctx.pipeline({.shader = shader,
                                   .spec = {kWg},
                                   .bindings = static_cast<std::uint32_t>(bufs.size()),
                                   .push_bytes = 4});
    ctx.dispatch(pl, std::span<const Buffer* const>(bufs.data(), bufs.size()),
                 std::as_bytes(std::span<const std::uint32_t, 1>(&kDummyPush, 1)),
                 grid_1d(total, kWg, ctx.features()));
}

}  // namespace

VulkanTensor Kernels::avg_pool(VulkanTensor x, const SpatialArgs& a) {
    check_float(x, "avg_pool");
    Geom g = geometry(x.shape, a);
    check_u32("avg_pool", g.out_shape.num_elements());
    VulkanTensor y = alloc(g.out_shape, x.dtype, x.device);
    if (y.num_elements() == 0) return y;
    g.prm.view(24, x);
    g.prm.p[21] = a.count_include_pad ? 1 : 0;
    run(context(x), "pool_avg_f32", {&buffer_of(x), &buffer_of(y)}, g.prm, y.num_elements());
    return y;
}

VulkanTensor Kernels::avg_pool_backward(VulkanTensor x, VulkanTensor grad, const SpatialArgs& a) {
    Geom g = geometry(x.shape, a);
    assert(grad.shape == g.out_shape);
    check_float(grad, "avg_pool_backward");
    VulkanTensor gx = alloc(x.shape, grad.dtype, x.device);
    if (gx.num_elements() == 0) return gx;
    if (grad.num_elements() == 0) {
        context(x).fill_u32(buffer_of(gx), 0u, gx.num_elements() * 4);
        return gx;
    }
    g.prm.view(24, grad);
    g.prm.p[21] = a.count_include_pad ? 1 : 0;
    run(context(x), "pool_avg_backward_f32", {&buffer_of(grad), &buffer_of(gx)}, g.prm,
        gx.num_elements());
    return gx;
}

std::pair<VulkanTensor, VulkanTensor> Kernels::max_pool(VulkanTensor x, const SpatialArgs& a,
                                                        bool with_indices, DType index_dtype) {
    check_float(x, "max_pool");
    Geom g = geometry(x.shape, a);
    check_u32("max_pool", g.out_shape.num_elements());
    assert(!with_indices || index_dtype == DType::I32 || index_dtype == DType::I64);
    VulkanTensor y = alloc(g.out_shape, x.dtype, x.device);
    VulkanTensor idx = alloc(with_indices ? g.out_shape : Shape{0}, index_dtype, x.device);
    if (y.num_elements() == 0) return {std::move(y), std::move(idx)};
    g.prm.view(24, x);
    g.prm.p[21] = !with_indices ? 0 : index_dtype == DType::I64 ? 2 : 1;
    const Buffer& ib = with_indices ? buffer_of(idx) : buffer_of(y);
    run(context(x), "pool_max_f32", {&buffer_of(x), &buffer_of(y), &ib}, g.prm, y.num_elements());
    return {std::move(y), std::move(idx)};
}

VulkanTensor Kernels::max_pool_backward(VulkanTensor x, VulkanTensor grad, VulkanTensor indices,
                                        const SpatialArgs& a) {
    const char* op = "max_pool_backward";
    Geom g = geometry(x.shape, a);
    assert(grad.shape == g.out_shape && indices.shape == g.out_shape);
    assert(indices.dtype == DType::I32 || indices.dtype == DType::I64);
    check_float(grad, op);
    VulkanTensor gx = alloc(x.shape, grad.dtype, x.device);
    if (gx.num_elements() == 0) return gx;
    if (grad.num_elements() == 0) {
        context(x).fill_u32(buffer_of(gx), 0u, gx.num_elements() * 4);
        return gx;
    }
    g.prm.view(24, grad);
    g.prm.view(30, indices);
    g.prm.p[21] = indices.dtype == DType::I64 ? 2 : 1;
    // Indices outside their plane are reported through the device error buffer (thrown at the
    // next read): invocation o < outputs checks output o's index.
    Context& ctx = context(x);
    const std::size_t total = gx.num_elements(), outs = grad.num_elements();
    check_u32(op, outs);
    g.prm.p[20] = i32(total);
    g.prm.p[22] = i32(ctx.error_op(op));
    g.prm.p[23] = i32(outs);
    const Buffer pb = ctx.upload(std::as_bytes(std::span<const std::int32_t>(g.prm.p)));
    const auto& pl = ctx.pipeline(
        {.shader = "pool_max_backward_f32", .spec = {kWg}, .bindings = 5, .push_bytes = 4});
    ctx.dispatch(pl,
                 {&buffer_of(grad), &buffer_of(indices), &buffer_of(gx), &pb, &ctx.error_buffer()},
                 kDummyPush, grid_1d(std::max(total, outs), kWg, ctx.features()));
    return gx;
}

namespace {

Params adaptive_params(const Shape& x, std::span<const std::size_t> output_size) {
    const std::size_t n = output_size.size();
    assert(n >= 1 && n <= 3 && x.rank() == n + 2);
    Params prm;
    prm.p[0] = i32(x[0] * x[1]);
    prm.p[1] = i32(x[1]);
    for (std::size_t i = 0; i < n; ++i) {
        assert(output_size[i] > 0 && x[2 + i] > 0);
        prm.p[2 + 3 - n + i] = i32(x[2 + i]);
        prm.p[5 + 3 - n + i] = i32(output_size[i]);
    }
    return prm;
}

}  // namespace

VulkanTensor Kernels::adaptive_avg_pool(VulkanTensor x, std::span<const std::size_t> output_size) {
    check_float(x, "adaptive_avg_pool");
    Params prm = adaptive_params(x.shape, output_size);
    Shape out{x.shape[0], x.shape[1]};
    for (std::size_t s : output_size) out.push_back(s);
    check_u32("adaptive_avg_pool", out.num_elements());
    VulkanTensor y = alloc(out, x.dtype, x.device);
    if (y.num_elements() == 0) return y;
    prm.view(24, x);
    run(context(x), "pool_adaptive_f32", {&buffer_of(x), &buffer_of(y)}, prm, y.num_elements());
    return y;
}

VulkanTensor Kernels::adaptive_avg_pool_backward(VulkanTensor x, VulkanTensor grad) {
    const char* op = "adaptive_avg_pool_backward";
    assert(grad.rank() == x.rank() && grad.shape[0] == x.shape[0] && grad.shape[1] == x.shape[1]);
    check_float(grad, op);
    Params prm = adaptive_params(x.shape, grad.shape.dims().subspan(2));
    VulkanTensor gx = alloc(x.shape, grad.dtype, x.device);
    if (gx.num_elements() == 0) return gx;
    prm.view(24, grad);
    run(context(x), "pool_adaptive_backward_f32", {&buffer_of(grad), &buffer_of(gx)}, prm,
        gx.num_elements());
    return gx;
}

}  // namespace burn::vk

// SPDX-License-Identifier: MIT OR Apache-2.0
// Convolutions over 1 to 3 spatial dims and their backward kernels (the CPU backend's conv.cpp
// semantics), as three implicit GEMMs (kernels/vulkan/conv_gemm_f32.comp, on matmul's tiled loop:
// the im2col panel is gathered in the tile loads, never stored) over a "conv geometry" (input
// [B, Cin, I...], weight [Cout, Cin / G, K...], output [B, Cout, O...], spatial dims padded to 3
// with leading 1s):
//   mode 0 forward   out = W * im2col(in) (+ bias)     conv, conv_transpose x-backward
//   mode 1 input     in' = W^T * out' (col2im folded into the B loads, no scatter)
//                                                      conv x-backward, conv_transpose
//   mode 2 weight    W'  = out' * im2col(in)^T         conv / conv_transpose weight-backward
// As on the CPU, a transposed convolution is the input-gradient of the convolution whose weight
// has its layout, so its three ops map onto the same kernels with input and output swapped.
// Every tensor is read in place through its strides (ConvParams views), outputs are dense.
//
// The weight gradient's reduction runs over batch * output pixels while its product is often
// small: it is split (split-k, partials added in order by conv_splitk_sum).
// Optimisation opportunities (not done yet): strength-reduced index
// arithmetic in the gathers (divisions per element today), vectorised loads for dense inputs.
#include <algorithm>
#include <array>
#include <vector>

#include "ops_common.hpp"
#include "ops_matmul.hpp"

namespace burn::vk {

namespace {

constexpr std::uint32_t kWg = 256;

struct Geo {
    std::int32_t batch = 0, cin = 0, cout = 0, groups = 1;
    std::array<std::int32_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0},
        d{1, 1, 1};
};

std::int32_t i32(std::size_t v) {
    BURN_CHECK(v <= 0x7fffffffu, "Vulkan conv: size ", v, " exceeds the kernels' 32-bit indices");
    return static_cast<std::int32_t>(v);
}

/// The kit's convolution geometry (burn/backend/shapes.hpp) in the kernels' 32-bit integers.
Geo make_geo(const backend::ConvGeometry& c) {
    Geo g;
    g.batch = i32(c.batch), g.cin = i32(c.cin), g.cout = i32(c.cout), g.groups = i32(c.groups);
    auto to_i32 = [](const std::array<std::int64_t, 3>& v) {
        std::array<std::int32_t, 3> r{};
        for (std::size_t i = 0; i < 3; ++i) r[i] = i32(static_cast<std::size_t>(v[i]));
        return r;
    };
    g.in = to_i32(c.in), g.out = to_i32(c.out), g.k = to_i32(c.k);
    g.s = to_i32(c.s), g.p = to_i32(c.p), g.d = to_i32(c.d);
    return g;
}

/// {offset, stride b, stride c, stride s0, s1, s2} of a [B, C, spatial...] view (spatial dims
/// padded to 3 with leading stride-0 dims).
std::array<std::int32_t, 6> view6(const VulkanTensor& t) {
    check_u32("conv", t.num_elements());
    std::array<std::int32_t, 6> v{static_cast<std::int32_t>(t.offset), 0, 0, 0, 0, 0};
    const std::size_t r = t.rank();
    v[1] = static_cast<std::int32_t>(t.strides[0]);
    if (r > 1) v[2] = static_cast<std::int32_t>(t.strides[1]);
    const std::size_t ns = r > 2 ? r - 2 : 0;
    for (std::size_t i = 0; i < ns; ++i)
        v[3 + (3 - ns) + i] = static_cast<std::int32_t>(t.strides[2 + i]);
    return v;
}

/// The ConvParams record of conv_common.glsl.
std::vector<std::int32_t> params(const Geo& g, std::size_t total, bool flag,
                                 std::initializer_list<std::array<std::int32_t, 6>> views) {
    std::vector<std::int32_t> p(42, 0);
    p[0] = g.batch;
    p[1] = g.cin;
    p[2] = g.cout;
    p[3] = g.groups;
    for (int i = 0; i < 3; ++i) {
        p[4 + i] = g.in[i];
        p[7 + i] = g.out[i];
        p[10 + i] = g.k[i];
        p[13 + i] = g.s[i];
        p[16 + i] = g.p[i];
        p[19 + i] = g.d[i];
    }
    p[22] = i32(total);
    p[23] = flag ? 1 : 0;
    std::size_t at = 24;
    for (const auto& v : views) {
        for (int i = 0; i < 6; ++i) p[at + i] = v[i];
        at += 6;
    }
    return p;
}

Buffer upload_params(Context& ctx, const std::vector<std::int32_t>& p) {
    return ctx.upload(std::as_bytes(std::span<const std::int32_t>(p)));
}

void check_f32(const char* op, const VulkanTensor& t) {
    BURN_CHECK(t.dtype == DType::F32, "Vulkan ", op, ": dtype ", dtype_name(t.dtype),
               " is not supported (f32)");
}

/// Workgroups {x, y, 1} for `items` workgroups (one per output element).
Groups groups_for(std::size_t items, const VulkanFeatures& f) {
    const std::size_t xmax = f.max_workgroup_count[0];
    const std::size_t x = std::min(items, xmax);
    const std::size_t y = (items + x - 1) / x;
    BURN_CHECK(y <= f.max_workgroup_count[1], "Vulkan conv: ", items,
               " workgroups exceed the device's limit");
    return Groups{static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 1};
}

const std::uint32_t kDummyPush = 0;

void add_channel_bias(VulkanTensor& y, const VulkanTensor& bias);

/// Dispatches conv_gemm_f32 in `mode` (0 forward, 1 input grad, 2 weight grad) for an m x n
/// product per batch z < zs, with bindings {op0, op1, bias, out, params}.
void gemm(Context& ctx, int mode, std::size_t m, std::size_t n, std::size_t zs, const Buffer& op0,
          const Buffer& op1, const Buffer& bias, const Buffer& out, const Buffer& prm,
          std::uint32_t splits = 1, std::uint32_t chunk = 0 /* whole reduction */) {
    const TileConfig t = choose_tile(m, n);
    std::vector<std::uint32_t> spec = t.spec();
    spec.push_back(static_cast<std::uint32_t>(mode));
    const auto& p =
        ctx.pipeline({.shader = "conv_gemm_f32", .spec = spec, .bindings = 5, .push_bytes = 12});
    const auto& f = ctx.features();
    const std::size_t gx = (n + t.bn - 1) / t.bn, gy = (m + t.bm - 1) / t.bm;
    BURN_CHECK(gx <= f.max_workgroup_count[0] && gy <= f.max_workgroup_count[1], "Vulkan conv: a ",
               m, " x ", n, " product needs more workgroups than the device allows");
    const std::size_t zmax = std::max<std::uint32_t>(1, f.max_workgroup_count[2]);
    for (std::size_t z0 = 0; z0 < zs; z0 += zmax) {
        struct {
            std::uint32_t z_base, splits, chunk;
        } push{static_cast<std::uint32_t>(z0), splits, chunk == 0 ? 0xffffffffu : chunk};
        ctx.dispatch(p, {&op0, &op1, &bias, &out, &prm}, push,
                     Groups{static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy),
                            static_cast<std::uint32_t>(std::min(zmax, zs - z0))});
    }
}

/// out [B, Cout, O...] = conv(in, w) (+ bias).
VulkanTensor run_forward(const Geo& g, const VulkanTensor& in, const VulkanTensor& w,
                         const std::optional<VulkanTensor>& bias, const Shape& out_shape) {
    check_f32("conv", in);
    check_f32("conv", w);
    check_u32("conv", out_shape.num_elements());
    VulkanTensor out = alloc(out_shape, in.dtype, in.device);
    const std::size_t total = out_shape.num_elements();
    if (total == 0) return out;
    Context& ctx = context(in);
    std::array<std::int32_t, 6> bv{};
    if (bias) {
        check_f32("conv", *bias);
        bv = {static_cast<std::int32_t>(bias->offset),
              static_cast<std::int32_t>(bias->strides[0]),
              0,
              0,
              0,
              0};
    }
    const Buffer prm =
        upload_params(ctx, params(g, total, bias.has_value(), {view6(in), view6(w), bv}));
    const Buffer& bb = bias ? buffer_of(*bias) : buffer_of(w);
    const std::size_t og = static_cast<std::size_t>(g.cout / g.groups),
                      cg = static_cast<std::size_t>(g.cin / g.groups);
    const std::size_t kk = static_cast<std::size_t>(g.k[0] * g.k[1] * g.k[2]);
    const std::size_t L = static_cast<std::size_t>(g.out[0] * g.out[1] * g.out[2]);
    if (cg * kk == 0) {  // no input channels: the bias alone
        ctx.fill_u32(buffer_of(out), 0u, total * 4);
        if (bias) add_channel_bias(out, *bias);
        return out;
    }
    gemm(ctx, 0, og, L, static_cast<std::size_t>(g.batch * g.groups), buffer_of(in), buffer_of(w),
         bb, buffer_of(out), prm);
    return out;
}

/// in_grad [B, Cin, I...] = conv^T(out_grad, w).
VulkanTensor run_input(const Geo& g, const VulkanTensor& out_grad, const VulkanTensor& w,
                       const Shape& in_shape) {
    check_f32("conv", out_grad);
    check_f32("conv", w);
    check_u32("conv", in_shape.num_elements());
    VulkanTensor out = alloc(in_shape, out_grad.dtype, out_grad.device);
    const std::size_t total = in_shape.num_elements();
    if (total == 0) return out;
    Context& ctx = context(out_grad);
    const Buffer prm = upload_params(ctx, params(g, total, false, {view6(out_grad), view6(w)}));
    const std::size_t og = static_cast<std::size_t>(g.cout / g.groups),
                      cg = static_cast<std::size_t>(g.cin / g.groups);
    const std::size_t kk = static_cast<std::size_t>(g.k[0] * g.k[1] * g.k[2]);
    const std::size_t il = static_cast<std::size_t>(g.in[0] * g.in[1] * g.in[2]);
    if (og * kk == 0 || out_grad.num_elements() == 0) {
        ctx.fill_u32(buffer_of(out), 0u, total * 4);
        return out;
    }
    gemm(ctx, 1, cg, il, static_cast<std::size_t>(g.batch * g.groups), buffer_of(out_grad),
         buffer_of(w), buffer_of(w), buffer_of(out), prm);
    return out;
}

/// w_grad [Cout, Cin / G, K...] = sum over the batch of out_grad (x) in.
VulkanTensor run_weight(const Geo& g, const VulkanTensor& in, const VulkanTensor& out_grad,
                        const Shape& w_shape) {
    check_f32("conv", in);
    check_f32("conv", out_grad);
    check_u32("conv", w_shape.num_elements());
    VulkanTensor out = alloc(w_shape, in.dtype, in.device);
    const std::size_t total = w_shape.num_elements();
    if (total == 0) return out;
    Context& ctx = context(in);
    const Buffer prm = upload_params(ctx, params(g, total, false, {view6(in), view6(out_grad)}));
    const std::size_t og = static_cast<std::size_t>(g.cout / g.groups),
                      cg = static_cast<std::size_t>(g.cin / g.groups);
    const std::size_t kk = static_cast<std::size_t>(g.k[0] * g.k[1] * g.k[2]);
    if (out_grad.num_elements() == 0 || in.num_elements() == 0) {
        ctx.fill_u32(buffer_of(out), 0u, total * 4);
        return out;
    }
    // Split-k: the reduction runs over batch * output pixels while the product (og x cg*KK per
    // group) is often small: cut it into chunks (at least 256 long) until there are ~256
    // workgroups, each writing a partial product, then add the partials in order.
    const TileConfig t = choose_tile(og, cg * kk);
    const std::size_t red = static_cast<std::size_t>(g.batch) *
                            static_cast<std::size_t>(g.out[0] * g.out[1] * g.out[2]);
    const std::size_t tiles = ((og + t.bm - 1) / t.bm) * ((cg * kk + t.bn - 1) / t.bn) *
                              static_cast<std::size_t>(g.groups);
    std::size_t splits = std::min((256 + tiles - 1) / tiles, std::max<std::size_t>(1, red / 256));
    splits = std::clamp<std::size_t>(splits, 1, 1024);
    std::size_t chunk = (red + splits - 1) / splits;
    chunk = (chunk + t.bk - 1) / t.bk * t.bk;
    splits = (red + chunk - 1) / chunk;
    if (splits <= 1) {
        gemm(ctx, 2, og, cg * kk, static_cast<std::size_t>(g.groups), buffer_of(in),
             buffer_of(out_grad), buffer_of(out_grad), buffer_of(out), prm);
        return out;
    }
    check_u32("conv", splits * total);
    const Buffer part = ctx.allocate(splits * total * sizeof(float));
    gemm(ctx, 2, og, cg * kk, static_cast<std::size_t>(g.groups) * splits, buffer_of(in),
         buffer_of(out_grad), buffer_of(out_grad), part, prm, static_cast<std::uint32_t>(splits),
         static_cast<std::uint32_t>(chunk));
    const auto& sum =
        ctx.pipeline({.shader = "conv_splitk_sum", .spec = {kWg}, .bindings = 2, .push_bytes = 8});
    const std::uint32_t push[2] = {static_cast<std::uint32_t>(total),
                                   static_cast<std::uint32_t>(splits)};
    ctx.dispatch(sum, {&part, &buffer_of(out)},
                 std::as_bytes(std::span<const std::uint32_t>(push, 2)),
                 grid_1d(total, kWg, ctx.features()));
    return out;
}

/// y (dense [B, C, ...]) += bias[c] per channel.
void add_channel_bias(VulkanTensor& y, const VulkanTensor& bias) {
    check_f32("conv", bias);
    Context& ctx = context(y);
    Geo gb;
    gb.batch = i32(y.shape[0]);
    gb.cout = i32(y.shape[1]);
    gb.out = {1, 1, i32(y.num_elements() / std::max<std::size_t>(1, y.shape[0] * y.shape[1]))};
    const std::array<std::int32_t, 6> bv{static_cast<std::int32_t>(bias.offset),
                                         static_cast<std::int32_t>(bias.strides[0]),
                                         0,
                                         0,
                                         0,
                                         0};
    const Buffer prm = upload_params(ctx, params(gb, y.num_elements(), true, {bv}));
    const auto& p = ctx.pipeline(
        {.shader = "conv_bias_add_f32", .spec = {kWg}, .bindings = 3, .push_bytes = 4});
    ctx.dispatch(p, {&buffer_of(bias), &buffer_of(y), &prm}, kDummyPush,
                 grid_1d(y.num_elements(), kWg, ctx.features()));
}

}  // namespace

VulkanTensor Kernels::conv(VulkanTensor x, VulkanTensor w, std::optional<VulkanTensor> bias,
                           const SpatialArgs& a) {
    const Shape out = backend::conv_shape(x.shape, w.shape, a);
    const Geo g = make_geo(backend::conv_geometry(x.shape, w.shape, out, a));
    return run_forward(g, x, w, bias, out);
}

VulkanTensor Kernels::conv_x_backward(VulkanTensor x, VulkanTensor w, VulkanTensor grad,
                                      const SpatialArgs& a) {
    const Geo g = make_geo(backend::conv_geometry(x.shape, w.shape, grad.shape, a));
    return run_input(g, grad, w, x.shape);
}

VulkanTensor Kernels::conv_weight_backward(VulkanTensor x, VulkanTensor w, VulkanTensor grad,
                                           const SpatialArgs& a) {
    const Geo g = make_geo(backend::conv_geometry(x.shape, w.shape, grad.shape, a));
    return run_weight(g, x, grad, w.shape);
}

VulkanTensor Kernels::conv_bias_backward(VulkanTensor grad) {
    check_f32("conv_bias_backward", grad);
    assert(grad.rank() >= 2 && grad.rank() <= 5);
    const std::size_t C = grad.shape[1];
    VulkanTensor out = alloc(Shape{C}, grad.dtype, grad.device);
    if (C == 0) return out;
    Context& ctx = context(grad);
    if (grad.num_elements() == 0) {  // empty batch or spatial extent: the sums are zero
        ctx.fill_u32(buffer_of(out), 0u, C * 4);
        return out;
    }
    Geo g;
    g.batch = i32(grad.shape[0]);
    g.cout = i32(C);
    const std::size_t ns = grad.rank() - 2;
    for (std::size_t i = 0; i < ns; ++i) g.out[3 - ns + i] = i32(grad.shape[2 + i]);
    const Buffer prm = upload_params(ctx, params(g, C, false, {view6(grad)}));
    const auto& p =
        ctx.pipeline({.shader = "conv_bias_f32", .spec = {kWg}, .bindings = 3, .push_bytes = 4});
    ctx.dispatch(p, {&buffer_of(grad), &buffer_of(out), &prm}, kDummyPush,
                 groups_for(C, ctx.features()));
    return out;
}

VulkanTensor Kernels::conv_transpose(VulkanTensor x, VulkanTensor w,
                                     std::optional<VulkanTensor> bias, const SpatialArgs& a) {
    // The input-gradient of the convolution (weight w) that maps the output back onto x.
    const Shape out = backend::conv_transpose_shape(x.shape, w.shape, a);
    const Geo g = make_geo(backend::conv_geometry(out, w.shape, x.shape, a));
    VulkanTensor y = run_input(g, x, w, out);
    if (bias && y.num_elements() > 0) add_channel_bias(y, *bias);
    return y;
}

VulkanTensor Kernels::conv_transpose_x_backward(VulkanTensor x, VulkanTensor w, VulkanTensor grad,
                                                const SpatialArgs& a) {
    const Geo g = make_geo(backend::conv_geometry(grad.shape, w.shape, x.shape, a));
    return run_forward(g, grad, w, std::nullopt, x.shape);
}

VulkanTensor Kernels::conv_transpose_weight_backward(VulkanTensor x, VulkanTensor w,
                                                     VulkanTensor grad, const SpatialArgs& a) {
    const Geo g = make_geo(backend::conv_geometry(grad.shape, w.shape, x.shape, a));
    return run_weight(g, grad, x, w.shape);
}

// ------------------------------------------------------------------------ deformable convolution
// torchvision.ops.deform_conv2d (the CPU backend's deform_conv.cpp semantics), in the steps of
// conv_deform_f32.comp: the deformed im2col panel cols [B, Cin*KK, L] (dense scratch), then the
// per-group product with the weight; the backward computes the panel gradient cg = W^T grad,
// the weight gradient from cols, the offset / mask gradients per sampling point, and the input
// gradient by atomic float adds (compare-and-swap loops: the order of the adds, hence the last
// bits, may vary between runs).
// The two products (W * cols and W^T * grad) run on matmul's tiled kernel through views of the
// weight ([1, G, M, K]) and of grad ([B, G, M, L]) where those views exist (dense weight rows,
// collapsible output plane), else per element in conv_deform_f32.comp.
// Optimisation opportunities: the weight gradient (mode 5) as a split-k GEMM, chunking the panel
// over images for large batches, a deterministic input gradient (gather instead of atomics).

namespace {

struct DeformGeo {
    std::size_t b, c_in, h, w, c_out, kh, kw, oh, ow, wg, og;
};

DeformGeo deform_geometry(const VulkanTensor& x, const VulkanTensor& w, const SpatialArgs& a) {
    DeformGeo g{};
    g.b = x.shape[0], g.c_in = x.shape[1], g.h = x.shape[2], g.w = x.shape[3];
    g.c_out = w.shape[0], g.kh = w.shape[2], g.kw = w.shape[3];
    g.wg = std::max<std::size_t>(1, a.groups), g.og = std::max<std::size_t>(1, a.offset_groups);
    g.oh = conv_output_size(g.h, g.kh, a.stride[0], a.padding[0], a.dilation[0]);
    g.ow = conv_output_size(g.w, g.kw, a.stride[1], a.padding[1], a.dilation[1]);
    return g;
}

/// {offset, s0, s1, s2, s3} of a 4-d view.
void view5(std::vector<std::int32_t>& p, std::size_t at, const VulkanTensor& t) {
    check_u32("deform_conv2d", t.num_elements());
    p[at] = static_cast<std::int32_t>(t.offset);
    for (std::size_t d = 0; d < 4 && d < t.rank(); ++d)
        p[at + 1 + d] = static_cast<std::int32_t>(t.strides[d]);
}

struct DeformRun {
    Context& ctx;
    std::vector<std::int32_t> prm;
    const Buffer* bind[10];

    /// Dispatches step `mode` over `total` items (mode 5: workgroups).
    void step(int mode, std::size_t total) {
        if (total == 0) return;
        prm[17] = i32(total);
        const Buffer pb = upload_params(ctx, prm);
        const auto& p = ctx.pipeline({.shader = "conv_deform_f32",
                                      .spec = {kWg, static_cast<std::uint32_t>(mode)},
                                      .bindings = 11,
                                      .push_bytes = 4});
        ctx.dispatch(
            p,
            {bind[0], bind[1], bind[2], bind[3], bind[4], bind[5], bind[6], bind[7], bind[8],
             bind[9], &pb},
            kDummyPush,
            mode == 5 ? groups_for(total, ctx.features()) : grid_1d(total, kWg, ctx.features()));
    }
};

DeformRun deform_setup(const DeformGeo& g, const SpatialArgs& a, const VulkanTensor& x,
                       const VulkanTensor& offset, const VulkanTensor& w,
                       const std::optional<VulkanTensor>& mask,
                       const std::optional<VulkanTensor>& bias, const VulkanTensor* grad) {
    DeformRun r{context(x), std::vector<std::int32_t>(50, 0), {}};
    auto& p = r.prm;
    const std::size_t vals[] = {
        g.b,         g.c_in,       g.h,          g.w,           g.c_out,      g.kh,
        g.kw,        g.oh,         g.ow,         g.wg,          g.og,         a.stride[0],
        a.stride[1], a.padding[0], a.padding[1], a.dilation[0], a.dilation[1]};
    for (std::size_t i = 0; i < 17; ++i) p[i] = i32(vals[i]);
    p[18] = mask ? 1 : 0;
    p[19] = bias ? 1 : 0;
    view5(p, 20, x);
    view5(p, 25, offset);
    if (mask) view5(p, 30, *mask);
    view5(p, 35, w);
    if (grad) view5(p, 40, *grad);
    if (bias) {
        p[45] = static_cast<std::int32_t>(bias->offset);
        p[46] = static_cast<std::int32_t>(bias->strides[0]);
    }
    const Buffer* xb = &buffer_of(x);
    r.bind[0] = xb;
    r.bind[1] = &buffer_of(offset);
    r.bind[2] = mask ? &buffer_of(*mask) : xb;
    r.bind[3] = &buffer_of(w);
    r.bind[4] = grad ? &buffer_of(*grad) : xb;
    r.bind[5] = bias ? &buffer_of(*bias) : xb;
    for (int i = 6; i < 10; ++i) r.bind[i] = xb;
    return r;
}

/// The weight [Cout, Cin/G, KH, KW] seen as [1, G, M, K] (or transposed, [1, G, K, M]) when its
/// last three dims are dense (a view, no copy); nullopt otherwise.
std::optional<VulkanTensor> grouped_weight(const VulkanTensor& w, const DeformGeo& g,
                                           bool transposed) {
    const std::int64_t kw = w.strides[3];
    if (kw != 1 || w.strides[2] != static_cast<std::int64_t>(g.kw) ||
        w.strides[1] != static_cast<std::int64_t>(g.kh * g.kw) ||
        w.strides[0] != static_cast<std::int64_t>(g.c_in / g.wg * g.kh * g.kw))
        return std::nullopt;
    const std::size_t M = g.c_out / g.wg, K = g.c_in / g.wg * g.kh * g.kw;
    VulkanTensor v = w;
    const auto k = static_cast<std::int64_t>(K), mk = static_cast<std::int64_t>(M * K);
    v.shape = transposed ? Shape{1, g.wg, K, M} : Shape{1, g.wg, M, K};
    v.strides = {};
    v.strides[0] = mk * static_cast<std::int64_t>(g.wg);
    v.strides[1] = mk;
    v.strides[2] = transposed ? 1 : k;
    v.strides[3] = transposed ? k : 1;
    return v;
}

/// grad [B, Cout, OH, OW] seen as [B, G, M, L] when its spatial dims collapse; nullopt otherwise.
std::optional<VulkanTensor> grouped_grad(const VulkanTensor& grad, const DeformGeo& g) {
    if (g.oh > 1 && g.ow > 1 &&
        grad.strides[2] != static_cast<std::int64_t>(g.ow) * grad.strides[3])
        return std::nullopt;
    const std::size_t M = g.c_out / g.wg;
    VulkanTensor v = grad;
    v.shape = Shape{g.b, g.wg, M, g.oh * g.ow};
    v.strides = {};
    v.strides[0] = grad.strides[0];
    v.strides[1] = grad.strides[1] * static_cast<std::int64_t>(M);
    v.strides[2] = grad.strides[1];
    v.strides[3] = g.ow == 1 ? grad.strides[2] : grad.strides[3];
    return v;
}

/// The dense panel cols [B, Cin*KK, L] seen as [B, G, K, L].
VulkanTensor panel(const VulkanTensor& cols, const DeformGeo& g, const VulkanDevice& device) {
    VulkanTensor v = cols;
    v.shape = Shape{g.b, g.wg, g.c_in / g.wg * g.kh * g.kw, g.oh * g.ow};
    v.strides = contiguous_strides(v.shape);
    v.device = device;
    return v;
}

void check_deform(const VulkanTensor& x, const VulkanTensor& offset, const VulkanTensor& w,
                  const std::optional<VulkanTensor>& mask, const std::optional<VulkanTensor>& bias,
                  const char* op) {
    check_f32(op, x);
    check_f32(op, offset);
    check_f32(op, w);
    if (mask) check_f32(op, *mask);
    if (bias) check_f32(op, *bias);
    assert(x.rank() == 4 && w.rank() == 4 && offset.rank() == 4);
}

}  // namespace

VulkanTensor Kernels::deform_conv2d(VulkanTensor x, VulkanTensor offset, VulkanTensor w,
                                    std::optional<VulkanTensor> mask,
                                    std::optional<VulkanTensor> bias, const SpatialArgs& a) {
    const char* op = "deform_conv2d";
    check_deform(x, offset, w, mask, bias, op);
    const DeformGeo g = deform_geometry(x, w, a);
    const Shape out_shape{g.b, g.c_out, g.oh, g.ow};
    check_u32(op, out_shape.num_elements());
    VulkanTensor out = alloc(out_shape, x.dtype, x.device);
    if (out.num_elements() == 0) return out;
    const std::size_t L = g.oh * g.ow, ncols = g.b * g.c_in * g.kh * g.kw * L;
    check_u32(op, ncols);
    if (ncols == 0 || g.h * g.w == 0) {
        // No input channels, or an empty image (every sample outside): the output is the bias.
        context(x).fill_u32(buffer_of(out), 0u, out.num_elements() * 4);
        if (bias) add_channel_bias(out, *bias);
        return out;
    }
    DeformRun r = deform_setup(g, a, x, offset, w, mask, bias, nullptr);
    const VulkanTensor cols = alloc(Shape{ncols}, DType::F32, x.device);
    r.bind[6] = &buffer_of(cols);
    r.step(0, ncols);
    if (auto wv = grouped_weight(w, g, false)) {  // out [B, G, M, L] = W [1, G, M, K] * cols
        VulkanTensor y = matmul(std::move(*wv), panel(cols, g, x.device));
        y.shape = out_shape;
        y.strides = contiguous_strides(out_shape);
        if (bias) add_channel_bias(y, *bias);
        return y;
    }
    r.bind[7] = &buffer_of(out);
    r.step(1, out.num_elements());
    return out;
}

DeformConv2dBackward<VulkanTensor> Kernels::deform_conv2d_backward(
    VulkanTensor x, VulkanTensor offset, VulkanTensor w, std::optional<VulkanTensor> mask,
    std::optional<VulkanTensor> bias, VulkanTensor grad, const SpatialArgs& a) {
    const char* op = "deform_conv2d_backward";
    check_deform(x, offset, w, mask, bias, op);
    check_f32(op, grad);
    const DeformGeo g = deform_geometry(x, w, a);
    const Shape out_shape{g.b, g.c_out, g.oh, g.ow};
    assert(grad.shape == out_shape);
    Context& ctx = context(x);
    auto zeros = [&](const Shape& s) {
        check_u32(op, s.num_elements());
        VulkanTensor t = alloc(s, DType::F32, x.device);
        if (t.num_elements() > 0) ctx.fill_u32(buffer_of(t), 0u, t.num_elements() * 4);
        return t;
    };
    DeformConv2dBackward<VulkanTensor> res{zeros(x.shape), zeros(offset.shape), zeros(w.shape),
                                           std::nullopt, std::nullopt};
    if (mask) res.mask_grad = zeros(mask->shape);
    if (bias) res.bias_grad = conv_bias_backward(grad);
    const std::size_t L = g.oh * g.ow, kk = g.kh * g.kw;
    if (g.b == 0 || L == 0 || g.h * g.w == 0 || g.c_in == 0) return res;
    const std::size_t ncols = g.b * g.c_in * kk * L;
    check_u32(op, ncols);
    DeformRun r = deform_setup(g, a, x, offset, w, mask, bias, &grad);
    const VulkanTensor cols = alloc(Shape{ncols}, DType::F32, x.device);
    r.bind[6] = &buffer_of(cols);
    r.step(0, ncols);  // cols
    // cg = W^T grad: [B, G, K, L] = W^T [1, G, K, M] * grad [B, G, M, L] on the tiled matmul
    // where the views exist, else per element.
    auto wt = grouped_weight(w, g, true);
    auto gv = grouped_grad(grad, g);
    VulkanTensor cg_t;
    if (wt && gv) {
        cg_t = matmul(std::move(*wt), std::move(*gv));
    } else {
        cg_t = alloc(Shape{ncols}, DType::F32, x.device);
        r.bind[7] = &buffer_of(cg_t);
        r.step(2, ncols);
    }
    const VulkanTensor& cg = cg_t;
    r.bind[7] = &buffer_of(res.weight_grad);
    r.step(5, w.num_elements());  // w grad
    r.bind[9] = &buffer_of(cg);
    r.bind[7] = &buffer_of(res.offset_grad);
    if (mask) r.bind[8] = &buffer_of(*res.mask_grad);
    r.step(3, g.b * g.og * kk * L);  // offset / mask grads (dense)
    r.bind[7] = &buffer_of(res.x_grad);
    r.step(4, ncols);  // x grad
    return res;
}

}  // namespace burn::vk

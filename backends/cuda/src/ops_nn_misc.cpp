// SPDX-License-Identifier: MIT OR Apache-2.0
// unfold4d (im2col, torch's F.unfold), interpolate / interpolate_backward (nearest, bilinear,
// bicubic, align_corners: PyTorch's F.interpolate(size=...)) and deform_conv2d /
// deform_conv2d_backward (torchvision.ops.deform_conv2d), as the CPU backend's nn_misc.cpp,
// interpolate.cpp and deform_conv.cpp. Kernels: kernels/cuda/nn.cu and interpolate.cu.
//
// Inputs are read in place through their strides. interpolate uploads the kit's tap tables
// (burn/backend/interpolate.hpp, the CPU backend's) and its backward gathers through their
// inverse (CSR per dim): deterministic, no atomics. deform_conv2d works on chunks of images
// (a column buffer of at most 256 MiB unless one image needs more): deformable im2col, then the
// products out = W * cols, col_grad = W^T * grad and weight_grad = grad * cols^T through
// Kernels::matmul (grouped, batched over the weight groups), offset and mask gradients summed
// per sampling point over the channels of its offset group (deterministic).
// Differences from the CPU backend: deform_conv2d_backward's x_grad scatters the column gradient
// to the sampled corners with atomicAdd (as torchvision's CUDA kernel), so the order of its sums,
// and the last bits of x_grad, may vary from run to run. deform_conv2d skips a sampling corner
// outside the image (the CPU backend multiplies a weight 0 by the plane's first element, which
// gives NaN where that element is infinite or NaN). Accumulation orders of the matrix products
// are cuBLAS's.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "burn/backend/cuda/kernels.hpp"
#include "burn/backend/interpolate.hpp"
#include "ops_common.hpp"

namespace burn::cuda {
namespace {

using i64 = std::int64_t;

i64 s64(std::size_t v) { return static_cast<i64>(v); }

/// Work of `n` items is indexed in 32 bits (the kernels' <name>32 variants) when it stays well
/// below 2^31 (a grid-stride step past the end must not overflow either).
bool narrow(std::uint64_t n) { return n <= (std::uint64_t{1} << 30); }

void check_float(const CudaTensor& t, const char* op, const char* what) {
    BURN_CHECK(t.dtype == DType::F32 || t.dtype == DType::F64, "Cuda ", op, ": ", what,
               " must be a float tensor (f32 or f64), got ", dtype_name(t.dtype), " of shape ",
               t.shape);
}

/// Zeroes `t`'s (dense) buffer on its stream.
void zero_fill(Context& ctx, const CudaTensor& t, const char* op) {
    const std::size_t bytes = t.num_elements() * element_size(t.dtype, op);
    if (bytes == 0) return;
    ctx.activate();
    check(cudaMemsetAsync(first(t), 0, bytes, ctx.stream()), op);
}

CudaTensor zeros(const Shape& shape, DType dtype, const CudaDevice& device, const char* op) {
    CudaTensor t = alloc(shape, dtype, device);
    zero_fill(context(device), t, op);
    return t;
}

/// Host tables packed into one device block (8-byte aligned arrays), uploaded on the stream.
/// The block may go back to the allocator once the kernels reading it are queued (one stream).
class Tables {
public:
    template <class T>
    std::size_t add(const std::vector<T>& v) {
        const std::size_t at = (bytes_.size() + 7) / 8 * 8;
        bytes_.resize(at + v.size() * sizeof(T));
        if (!v.empty()) std::memcpy(bytes_.data() + at, v.data(), v.size() * sizeof(T));
        return at;
    }
    void upload(Context& ctx) {
        block_ = ctx.alloc(bytes_.size());
        ctx.upload(block_->data(), bytes_.data(), bytes_.size());
    }
    const void* at(std::size_t offset) const {
        return static_cast<const char*>(block_->data()) + offset;
    }

private:
    std::vector<std::byte> bytes_;
    std::shared_ptr<Buffer> block_;
};

// ------------------------------------------------------------------------------ unfold4d

/// kernels/cuda/nn.cu's UnfoldArgs.
struct UnfoldArgs {
    i64 B, C, H, W, kh, kw, OH, OW;
    i64 sh, sw, ph, pw, dh, dw;
    i64 xs[4];
};
static_assert(sizeof(UnfoldArgs) == 144);

// ------------------------------------------------------------------------------ interpolate

/// kernels/cuda/interpolate.cu's InterpArgs.
struct InterpArgs {
    i64 planes, C, H, W, OH, OW;
    i64 s[4];
};
static_assert(sizeof(InterpArgs) == 80);

InterpArgs interp_args(const CudaTensor& view, std::size_t H, std::size_t W, std::size_t OH,
                       std::size_t OW) {
    InterpArgs a{};
    a.planes = s64(view.shape[0] * view.shape[1]);
    a.C = s64(view.shape[1]);
    a.H = s64(H), a.W = s64(W), a.OH = s64(OH), a.OW = s64(OW);
    for (int d = 0; d < 4; ++d) a.s[d] = view.strides[d];
    return a;
}

/// interpolate.cu's FwdTables and BwdTables: device addresses of the uploaded tables.
struct FwdTables {
    const void *ih, *wh, *iw, *ww;
};
struct BwdTables {
    const void *hs, *ho, *hw, *ws, *wo, *ww;
};

/// Launches interpolate.cu's kernel `base` over `rows` rows of `cols` elements: the _rows shape
/// (grid y over blocks of columns, grid x over chunks of rows, about two waves of threads) for
/// wide rows, else the flat one. `span`: the most elements a tensor of the op has (the index
/// width).
template <class... A>
void launch_rows(Context& ctx, const char* base, std::uint64_t span, DType dtype,
                 std::uint64_t rows, std::uint64_t cols, const A&... args) {
    const char* width = narrow(span) ? "32_" : "64_";
    const unsigned block = static_cast<unsigned>(std::min<std::uint64_t>(256, cols));
    const std::uint64_t col_blocks = (cols + block - 1) / block;
    if (cols >= 128 && col_blocks <= 65535) {
        const std::string name = std::string(base) + "_rows" + width + dtype_suffix(dtype);
        const std::uint64_t threads =
            static_cast<std::uint64_t>(ctx.properties().multiProcessorCount) * 4096;
        const std::uint64_t chunks = std::clamp<std::uint64_t>(
            threads / (block * col_blocks), 1, std::min<std::uint64_t>(rows, 1u << 30));
        launch(ctx, "interpolate", name,
               dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(col_blocks)), dim3(block),
               0, args...);
        return;
    }
    const std::string name = std::string(base) + "_flat" + width + dtype_suffix(dtype);
    launch_1d(ctx, "interpolate", name, rows * cols, args...);
}

template <class F>
decltype(auto) dispatch_float(DType d, F&& f) {
    if (d == DType::F64) return f(double{});
    return f(float{});
}

/// The inverse of one dim's taps: for each input index, the (output, weight) pairs that read it,
/// in output (then tap) order, as CSR: starts [in + 1], outputs, weights.
template <class E>
struct Inverse {
    std::vector<i64> start, out;
    std::vector<E> w;
};

template <class E>
Inverse<E> inverse_taps(const backend::InterpolationTaps<E>& t, std::size_t in, std::size_t out) {
    Inverse<E> inv;
    inv.start.assign(in + 1, 0);
    for (std::size_t k = 0; k < out * t.taps; ++k)
        ++inv.start[static_cast<std::size_t>(t.idx[k]) + 1];
    for (std::size_t i = 0; i < in; ++i) inv.start[i + 1] += inv.start[i];
    std::vector<i64> fill(inv.start.begin(), inv.start.end() - 1);
    inv.out.resize(out * t.taps);
    inv.w.resize(out * t.taps);
    for (std::size_t o = 0; o < out; ++o)
        for (std::size_t j = 0; j < t.taps; ++j) {
            const std::size_t k = o * t.taps + j;
            const auto at = static_cast<std::size_t>(fill[static_cast<std::size_t>(t.idx[k])]++);
            inv.out[at] = s64(o);
            inv.w[at] = t.w[k];
        }
    return inv;
}

// ------------------------------------------------------------------------------ deform_conv2d

/// kernels/cuda/nn.cu's DeformArgs.
struct DeformArgs {
    i64 B, Cin, H, W, Cout, kh, kw, OH, OW, wg, og;
    i64 sh, sw, ph, pw, dh, dw;
    i64 b0, nb;
    i64 cblock;
    i64 xs[4];
    i64 os[4];
    i64 ms[4];
    i64 gs[4];
    i64 bias_s;
    std::int32_t has_mask;
    std::int32_t pad_;
};
static_assert(sizeof(DeformArgs) == 304);

void strides4(i64 (&s)[4], const CudaTensor& t) {
    for (int d = 0; d < 4; ++d) s[d] = t.strides[d];
}

struct Deform {
    DeformArgs a{};
    std::size_t L = 0, kk = 0, K = 0, M = 0, cpg = 0, chunk = 1;
};

Deform deform_setup(const CudaTensor& x, const CudaTensor& offset, const CudaTensor& w,
                    const std::optional<CudaTensor>& mask, const std::optional<CudaTensor>& bias,
                    const SpatialArgs& a, const char* op) {
    assert(x.rank() == 4 && w.rank() == 4 && offset.rank() == 4);
    check_float(x, op, "x");
    BURN_CHECK(offset.dtype == x.dtype && w.dtype == x.dtype && (!mask || mask->dtype == x.dtype) &&
                   (!bias || bias->dtype == x.dtype),
               "Cuda ", op, ": x, offset, weight, mask and bias must share one dtype (x is ",
               dtype_name(x.dtype), ")");
    Deform d;
    DeformArgs& g = d.a;
    g.B = s64(x.shape[0]), g.Cin = s64(x.shape[1]), g.H = s64(x.shape[2]), g.W = s64(x.shape[3]);
    g.Cout = s64(w.shape[0]), g.kh = s64(w.shape[2]), g.kw = s64(w.shape[3]);
    g.wg = s64(std::max<std::size_t>(1, a.groups));
    g.og = s64(std::max<std::size_t>(1, a.offset_groups));
    g.sh = s64(a.stride[0]), g.sw = s64(a.stride[1]);
    g.ph = s64(a.padding[0]), g.pw = s64(a.padding[1]);
    g.dh = s64(a.dilation[0]), g.dw = s64(a.dilation[1]);
    g.OH = s64(conv_output_size(x.shape[2], w.shape[2], a.stride[0], a.padding[0], a.dilation[0]));
    g.OW = s64(conv_output_size(x.shape[3], w.shape[3], a.stride[1], a.padding[1], a.dilation[1]));
    strides4(g.xs, x);
    strides4(g.os, offset);
    if (mask) strides4(g.ms, *mask);
    g.bias_s = bias ? bias->strides[0] : 0;
    g.has_mask = mask ? 1 : 0;
    d.L = static_cast<std::size_t>(g.OH * g.OW);
    d.kk = static_cast<std::size_t>(g.kh * g.kw);
    d.K = static_cast<std::size_t>(g.Cin / g.wg) * d.kk;
    d.M = static_cast<std::size_t>(g.Cout / g.wg);
    d.cpg = static_cast<std::size_t>(g.Cin / g.og);
    // Images per chunk: the column buffer [Cin * kk, chunk * L] within 256 MiB (at least one).
    const std::size_t per_image =
        std::max<std::size_t>(1, static_cast<std::size_t>(g.Cin) * d.kk * d.L);
    const std::size_t cap = (std::size_t{256} << 20) / element_size(x.dtype, op);
    d.chunk = std::clamp<std::size_t>(cap / per_image, 1, std::max<std::size_t>(1, x.shape[0]));
    return d;
}

/// Channels per thread of the im2col / col2im kernels for a chunk of nb images: enough threads
/// to fill the device (about 2^19), each reusing its sampling point over a block of channels.
void set_channel_block(Deform& d, std::size_t nb) {
    const std::size_t base = static_cast<std::size_t>(d.a.og) * d.kk * nb * d.L;
    const std::size_t want = (d.cpg * base + (std::size_t{1} << 19) - 1) >> 19;
    d.a.cblock = s64(std::clamp<std::size_t>(
        want, 1, std::max<std::size_t>(1, std::min<std::size_t>(d.cpg, 64))));
}

/// Threads of the im2col / col2im kernels for the chunk: (channel blocks, kk, nb, L).
std::uint64_t channel_work(const Deform& d, std::size_t nb) {
    const std::size_t blocks =
        (d.cpg + static_cast<std::size_t>(d.a.cblock) - 1) / static_cast<std::size_t>(d.a.cblock);
    return static_cast<std::uint64_t>(d.a.og) * blocks * d.kk * nb * d.L;
}

/// A view of `t`'s buffer (from its first element) as a dense [a, b, c] tensor, or, when
/// `transposed`, as the transpose [a, b, c] of a dense [a, c, b] tensor.
CudaTensor view3(const CudaTensor& t, std::size_t a, std::size_t b, std::size_t c,
                 bool transposed = false) {
    CudaTensor v = t;
    if (!transposed) {
        v.shape = Shape{a, b, c};
        v.strides = backend::contiguous_strides(v.shape);
    } else {  // the dense [a, c, b] seen as [a, b, c]
        v.shape = Shape{a, b, c};
        v.strides = backend::contiguous_strides(Shape{a, c, b});
        std::swap(v.strides[1], v.strides[2]);
    }
    return v;
}

/// The weight [Cout, Cin / wg, kh, kw] as [wg, M, K] (a view when its layout allows, else a
/// dense copy), or its transpose [wg, K, M].
CudaTensor grouped_weight(const CudaTensor& w, const Deform& d, bool transposed) {
    const std::size_t wg = static_cast<std::size_t>(d.a.wg);
    CudaTensor v = backend::reshape<Kernels>(w, Shape{wg, d.M, d.K});
    if (transposed) {
        v.shape = Shape{wg, d.K, d.M};
        std::swap(v.strides[1], v.strides[2]);
    }
    return v;
}

const void* opt_ptr(const std::optional<CudaTensor>& t) { return t ? first(*t) : nullptr; }

}  // namespace

CudaTensor Kernels::unfold4d(CudaTensor x, const SpatialArgs& a) {
    assert(x.rank() == 4 && a.n == 2);
    const char* op = "unfold4d";
    const std::size_t B = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const std::size_t kh = a.kernel[0], kw = a.kernel[1];
    const std::size_t OH = conv_output_size(H, kh, a.stride[0], a.padding[0], a.dilation[0]);
    const std::size_t OW = conv_output_size(W, kw, a.stride[1], a.padding[1], a.dilation[1]);
    (void)element_size(x.dtype, op);
    CudaTensor y = alloc(Shape{B, C * kh * kw, OH * OW}, x.dtype, x.device);
    if (y.num_elements() == 0) return y;
    UnfoldArgs u{};
    u.B = s64(B), u.C = s64(C), u.H = s64(H), u.W = s64(W), u.kh = s64(kh), u.kw = s64(kw);
    u.OH = s64(OH), u.OW = s64(OW);
    u.sh = s64(a.stride[0]), u.sw = s64(a.stride[1]), u.ph = s64(a.padding[0]);
    u.pw = s64(a.padding[1]), u.dh = s64(a.dilation[0]), u.dw = s64(a.dilation[1]);
    strides4(u.xs, x);
    // x over the pixels of an output row, y over the rows (b, c, ki) (grid-stride past 65535).
    const std::uint64_t L = OH * OW, rows = B * C * kh;
    const unsigned block = static_cast<unsigned>(std::min<std::uint64_t>(256, (L + 31) / 32 * 32));
    const std::uint64_t gx = (L + block - 1) / block;
    BURN_CHECK(gx <= 0x7fffffffu, "Cuda ", op, ": ", L, " output pixels per row are too many");
    const dim3 grid(static_cast<unsigned>(gx),
                    static_cast<unsigned>(std::min<std::uint64_t>(rows, 65535)));
    launch(context(x), "nn", variant("unfold4d", x.dtype), grid, dim3(block), 0, first(x), first(y),
           u);
    return y;
}

CudaTensor Kernels::interpolate(CudaTensor x, std::array<std::size_t, 2> output_size,
                                const InterpolateOptions& options) {
    const char* op = "interpolate";
    assert(x.rank() == 4 && output_size[0] > 0 && output_size[1] > 0 && x.shape[2] > 0 &&
           x.shape[3] > 0);
    check_float(x, op, "x");
    const std::size_t H = x.shape[2], W = x.shape[3], OH = output_size[0], OW = output_size[1];
    CudaTensor y = alloc(Shape{x.shape[0], x.shape[1], OH, OW}, x.dtype, x.device);
    const std::uint64_t n = y.num_elements();
    if (n == 0) return y;
    Context& ctx = context(x);
    dispatch_float(x.dtype, [&](auto e) {
        using E = decltype(e);
        const auto th = backend::interpolation_taps<E>(H, OH, options);
        const auto tw = backend::interpolation_taps<E>(W, OW, options);
        Tables t;
        const std::size_t ih = t.add(th.idx), wh = t.add(th.w), iw = t.add(tw.idx),
                          ww = t.add(tw.w);
        t.upload(ctx);
        const FwdTables tables{t.at(ih), t.at(wh), t.at(iw), t.at(ww)};
        const char* mode = options.mode == InterpolateMode::Nearest    ? "interpolate_nearest"
                           : options.mode == InterpolateMode::Bilinear ? "interpolate_bilinear"
                                                                       : "interpolate_bicubic";
        launch_rows(ctx, mode, std::max<std::uint64_t>(n, x.num_elements()), x.dtype,
                    x.shape[0] * x.shape[1] * OH, OW, first(x), first(y), tables,
                    interp_args(x, H, W, OH, OW));
    });
    return y;
}

CudaTensor Kernels::interpolate_backward(CudaTensor x, CudaTensor grad,
                                         std::array<std::size_t, 2> output_size,
                                         const InterpolateOptions& options) {
    const char* op = "interpolate_backward";
    assert(x.rank() == 4 && output_size[0] > 0 && output_size[1] > 0 && x.shape[2] > 0 &&
           x.shape[3] > 0);
    check_float(grad, op, "grad");
    const std::size_t H = x.shape[2], W = x.shape[3], OH = output_size[0], OW = output_size[1];
    assert(grad.shape == Shape({x.shape[0], x.shape[1], OH, OW}));
    CudaTensor gx = output_for(x, x.shape, grad.dtype);  // x's values are not read
    const std::uint64_t n = gx.num_elements();
    if (n == 0) return gx;
    Context& ctx = context(x);
    dispatch_float(grad.dtype, [&](auto e) {
        using E = decltype(e);
        const Inverse<E> ih = inverse_taps(backend::interpolation_taps<E>(H, OH, options), H, OH);
        const Inverse<E> iw = inverse_taps(backend::interpolation_taps<E>(W, OW, options), W, OW);
        Tables t;
        const std::size_t hs = t.add(ih.start), ho = t.add(ih.out), hw = t.add(ih.w);
        const std::size_t ws = t.add(iw.start), wo = t.add(iw.out), ww = t.add(iw.w);
        t.upload(ctx);
        const BwdTables tables{t.at(hs), t.at(ho), t.at(hw), t.at(ws), t.at(wo), t.at(ww)};
        launch_rows(ctx, "interpolate_backward", std::max<std::uint64_t>(n, grad.num_elements()),
                    grad.dtype, x.shape[0] * x.shape[1] * H, W, first(grad), first(gx), tables,
                    interp_args(grad, H, W, OH, OW));
    });
    return gx;
}

CudaTensor Kernels::deform_conv2d(CudaTensor x, CudaTensor offset, CudaTensor w,
                                  std::optional<CudaTensor> mask, std::optional<CudaTensor> bias,
                                  const SpatialArgs& a) {
    const char* op = "deform_conv2d";
    Deform d = deform_setup(x, offset, w, mask, bias, a, op);
    const DType dt = x.dtype;
    const Shape out_shape{x.shape[0], w.shape[0], static_cast<std::size_t>(d.a.OH),
                          static_cast<std::size_t>(d.a.OW)};
    const std::uint64_t total = out_shape.num_elements();
    if (total == 0) return alloc(out_shape, dt, x.device);
    Context& ctx = context(x);
    const void* bias_ptr = opt_ptr(bias);
    if (d.a.Cin == 0 || d.a.H * d.a.W == 0) {
        // Nothing sampled (no input channel, or an empty image): the output is the bias.
        CudaTensor out = alloc(out_shape, dt, x.device);
        launch_1d(ctx, "nn", variant("deform_fill", dt), total, bias_ptr, first(out), d.a,
                  static_cast<i64>(total));
        return out;
    }
    const std::size_t B = x.shape[0], wg = static_cast<std::size_t>(d.a.wg);
    const CudaTensor wv = grouped_weight(w, d, false);
    CudaTensor cols = alloc(
        Shape{static_cast<std::size_t>(d.a.Cin) * d.kk * std::min(d.chunk, B) * d.L}, dt, x.device);
    std::optional<CudaTensor> out;
    for (std::size_t b0 = 0; b0 < B; b0 += d.chunk) {
        const std::size_t nb = std::min(d.chunk, B - b0), N = nb * d.L;
        d.a.b0 = s64(b0), d.a.nb = s64(nb);
        set_channel_block(d, nb);
        const std::uint64_t work = channel_work(d, nb);
        launch_1d(ctx, "nn", variant("deform_im2col", dt), work, first(x), first(offset),
                  opt_ptr(mask), first(cols), d.a, static_cast<i64>(work));
        // tmp [wg, M, N] = W [wg, M, K] * cols [wg, K, N]
        CudaTensor tmp = matmul(wv, view3(cols, wg, d.K, N));
        const std::uint64_t outs = static_cast<std::uint64_t>(d.a.Cout) * N;
        if (B == 1) {  // [Cout, L] is the output's layout: bias added in place
            if (bias)
                launch_1d(ctx, "nn", variant("deform_output", dt), outs, first(tmp), bias_ptr,
                          first(tmp), d.a, static_cast<i64>(outs));
            tmp.shape = out_shape;
            tmp.strides = backend::contiguous_strides(out_shape);
            return tmp;
        }
        if (!out) out = alloc(out_shape, dt, x.device);
        launch_1d(ctx, "nn", variant("deform_output", dt), outs, first(tmp), bias_ptr, first(*out),
                  d.a, static_cast<i64>(outs));
    }
    return std::move(*out);
}

DeformConv2dBackward<CudaTensor> Kernels::deform_conv2d_backward(
    CudaTensor x, CudaTensor offset, CudaTensor w, std::optional<CudaTensor> mask,
    std::optional<CudaTensor> bias, CudaTensor grad, const SpatialArgs& a) {
    const char* op = "deform_conv2d_backward";
    Deform d = deform_setup(x, offset, w, mask, bias, a, op);
    BURN_CHECK(grad.dtype == x.dtype, "Cuda ", op, ": grad has dtype ", dtype_name(grad.dtype),
               ", x ", dtype_name(x.dtype));
    const DType dt = x.dtype;
    assert(grad.rank() == 4 && grad.shape[0] == x.shape[0] && grad.shape[1] == w.shape[0]);
    strides4(d.a.gs, grad);
    Context& ctx = context(x);
    const std::size_t B = x.shape[0], wg = static_cast<std::size_t>(d.a.wg);

    DeformConv2dBackward<CudaTensor> res{zeros(x.shape, dt, x.device, op),
                                         alloc(offset.shape, dt, x.device),
                                         alloc(w.shape, dt, x.device), std::nullopt, std::nullopt};
    if (mask) res.mask_grad = alloc(mask->shape, dt, x.device);
    if (bias) {
        res.bias_grad = alloc(bias->shape, dt, x.device);
        if (d.a.Cout > 0) {
            const std::uint64_t n = B * d.L;
            const unsigned block = n >= 4096 ? 256 : n >= 512 ? 128 : 32;
            const unsigned blocks = static_cast<unsigned>(std::min<i64>(d.a.Cout, 1 << 30));
            launch(ctx, "nn", variant("deform_bias_grad", dt), dim3(blocks), dim3(block), 0,
                   first(grad), first(*res.bias_grad), d.a);
        }
    }
    if (B == 0 || d.L == 0 || d.a.H * d.a.W == 0 || d.a.Cin == 0 || d.a.Cout == 0) {
        // Nothing sampled, or nothing to propagate: every gradient but the bias's is zero.
        zero_fill(ctx, res.offset_grad, op);
        zero_fill(ctx, res.weight_grad, op);
        if (res.mask_grad) zero_fill(ctx, *res.mask_grad, op);
        return res;
    }
    const std::size_t most = std::min(d.chunk, B);
    const std::size_t Cin = static_cast<std::size_t>(d.a.Cin), Cout = w.shape[0];
    CudaTensor cols = alloc(Shape{Cin * d.kk * most * d.L}, dt, x.device);
    CudaTensor grad_t = alloc(Shape{Cout * most * d.L}, dt, x.device);
    const CudaTensor wt = grouped_weight(w, d, true);
    const void* gmask = res.mask_grad ? first(*res.mask_grad) : nullptr;
    for (std::size_t b0 = 0; b0 < B; b0 += d.chunk) {
        const std::size_t nb = std::min(d.chunk, B - b0), N = nb * d.L;
        d.a.b0 = s64(b0), d.a.nb = s64(nb);
        set_channel_block(d, nb);
        const std::uint64_t work = channel_work(d, nb);
        launch_1d(ctx, "nn", variant("deform_im2col", dt), work, first(x), first(offset),
                  opt_ptr(mask), first(cols), d.a, static_cast<i64>(work));
        const std::uint64_t gt_n = Cout * N;
        launch_1d(ctx, "nn", variant("deform_grad_t", dt), gt_n, first(grad), first(grad_t), d.a,
                  static_cast<i64>(gt_n));
        const CudaTensor gtv = view3(grad_t, wg, d.M, N);
        // col_grad [wg, K, N] = W^T [wg, K, M] * grad_t [wg, M, N]
        const CudaTensor cgrad = matmul(wt, gtv);
        // weight_grad [wg, M, K] += grad_t [wg, M, N] * cols^T [wg, N, K]
        CudaTensor wpart = matmul(gtv, view3(cols, wg, N, d.K, true));
        if (b0 == 0) {
            wpart.shape = w.shape;
            wpart.strides = backend::contiguous_strides(w.shape);
            res.weight_grad = std::move(wpart);
        } else {
            const std::uint64_t wn = res.weight_grad.num_elements();
            launch_1d(ctx, "nn", variant("deform_accumulate", dt), wn, first(res.weight_grad),
                      first(wpart), static_cast<i64>(wn));
        }
        const std::uint64_t coords = static_cast<std::uint64_t>(d.a.og) * d.kk * nb * d.L;
        launch_1d(ctx, "nn", variant("deform_coord_grad", dt), coords, first(x), first(offset),
                  opt_ptr(mask), first(cgrad), first(res.offset_grad), gmask, d.a,
                  static_cast<i64>(coords));
        launch_1d(ctx, "nn", variant("deform_col2im", dt), work, first(offset), opt_ptr(mask),
                  first(cgrad), first(res.x_grad), d.a, static_cast<i64>(work));
    }
    return res;
}

}  // namespace burn::cuda

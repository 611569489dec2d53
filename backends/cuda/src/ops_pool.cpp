// SPDX-License-Identifier: MIT OR Apache-2.0
// Pooling (kernels/cuda/pool.cu) with PyTorch's semantics, as the CPU backend's pool.cpp:
// avg_pool (count_include_pad, ceil_mode) and max_pool (padding never wins, dilation, ceil_mode,
// NaN wins, indices flattened per plane) over 1 or 2 spatial dims, adaptive_avg_pool over 1 to 3,
// each with its backward. Inputs are read in place through their strides (no copies); outputs
// are dense. The backward kernels gather (one thread per input element, summing the outputs that
// read it in the CPU backend's order): deterministic, no atomics, except for max_pool_backward's
// indices that point outside their own window (max_pool makes one only for a window without
// any input cell): those are added atomically after the gather. A backward writes into x's
// buffer when x is its only owner (x's values are never read).
// Difference from the CPU backend: max_pool_backward reports an index outside its plane at the
// next read (the error word), as every value-dependent error of this backend.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>

#include "burn/backend/cuda/kernels.hpp"
#include "ops_common.hpp"

namespace burn::cuda {
namespace {

using i64 = std::int64_t;

/// kernels/cuda/pool.cu's PoolArgs (same layout).
struct PoolArgs {
    i64 planes = 0, C = 1;
    i64 D = 1, H = 1, W = 1;
    i64 OD = 1, OH = 1, OW = 1;
    i64 kd = 1, kh = 1, kw = 1;
    i64 sd = 1, sh = 1, sw = 1;
    i64 pd = 0, ph = 0, pw = 0;
    i64 dd = 1, dh = 1, dw = 1;
    i64 v0[5] = {};
    i64 v1[5] = {};
    std::int32_t count_include_pad = 1;
    std::int32_t pad_ = 0;
};
static_assert(sizeof(PoolArgs) == 248);

i64 s64(std::size_t v) { return static_cast<i64>(v); }

/// The strides (b, c, d, h, w) of a [B, C, spatial...] view, spatial dims right-aligned.
void view_strides(i64 (&v)[5], const CudaTensor& t) {
    const std::size_t ns = t.rank() - 2;
    v[0] = t.strides[0];
    v[1] = t.strides[1];
    v[2] = v[3] = v[4] = 0;
    for (std::size_t i = 0; i < ns; ++i) v[2 + (3 - ns) + i] = t.strides[2 + i];
}

/// The window geometry of a 1-d or 2-d pooling of x (as the CPU's geometry()).
PoolArgs pool_args(const Shape& x, const Shape& out, const SpatialArgs& a) {
    PoolArgs p;
    p.planes = s64(x[0] * x[1]);
    p.C = s64(x[1]);
    const std::size_t off = a.n == 2 ? 1 : 0;  // index of the width in the args
    if (a.n == 2) {
        p.H = s64(x[2]), p.OH = s64(out[2]);
        p.kh = s64(a.kernel[0]), p.sh = s64(a.stride[0]);
        p.ph = s64(a.padding[0]), p.dh = s64(a.dilation[0]);
    }
    p.W = s64(x[x.rank() - 1]), p.OW = s64(out[x.rank() - 1]);
    p.kw = s64(a.kernel[off]), p.sw = s64(a.stride[off]);
    p.pw = s64(a.padding[off]), p.dw = s64(a.dilation[off]);
    p.count_include_pad = a.count_include_pad ? 1 : 0;
    return p;
}

/// Adaptive pooling of x to `output_size` (1 to 3 dims), as [D, H, W] with leading 1s.
PoolArgs adaptive_args(const Shape& x, std::span<const std::size_t> output_size) {
    const std::size_t n = output_size.size();
    assert(n >= 1 && n <= 3 && x.rank() == n + 2);
    PoolArgs p;
    p.planes = s64(x[0] * x[1]);
    p.C = s64(x[1]);
    i64* in[3] = {&p.D, &p.H, &p.W};
    i64* out[3] = {&p.OD, &p.OH, &p.OW};
    for (std::size_t i = 0; i < n; ++i) {
        assert(output_size[i] > 0 && x[2 + i] > 0);
        *in[3 - n + i] = s64(x[2 + i]);
        *out[3 - n + i] = s64(output_size[i]);
    }
    return p;
}

/// The forward kernels also read f16 / bf16 (`half`); the backward ones get f32 (the adapter
/// widens them: Kernels::computes_half).
void check_float(const CudaTensor& t, const char* op, bool half = false) {
    BURN_CHECK(t.dtype == DType::F32 || t.dtype == DType::F64 || (half && is_half(t.dtype)),
               "Cuda ", op, ": expected a float tensor (",
               half ? "f32, f64, f16 or bf16" : "f32 or f64", "), got ", dtype_name(t.dtype),
               " of shape ", t.shape);
}

/// Whether the kernels may index in 32 bits (their <name>32 variants): every count of the op
/// (inputs, outputs; for adaptive pooling also in * out of each dim, which the bins multiply)
/// well below 2^31 (a grid-stride step past the end must not overflow either).
bool narrow(const PoolArgs& p, bool adaptive) {
    const auto u = [](i64 v) { return static_cast<std::uint64_t>(v); };
    std::uint64_t most =
        std::max(u(p.planes) * u(p.D) * u(p.H) * u(p.W), u(p.planes) * u(p.OD) * u(p.OH) * u(p.OW));
    if (adaptive) most = std::max({most, u(p.D) * u(p.OD), u(p.H) * u(p.OH), u(p.W) * u(p.OW)});
    return most <= (std::uint64_t{1} << 30);
}

/// "<base><32|64>_<dtype>".
std::string kernel_name(const char* base, const PoolArgs& p, bool adaptive, DType dtype) {
    return std::string(base) + (narrow(p, adaptive) ? "32_" : "64_") + dtype_suffix(dtype);
}

/// "<base>_<i32|i64>_<32|64>_<dtype>" (kernels that take an index tensor).
std::string indexed_name(const char* base, DType index_dtype, const PoolArgs& p, DType dtype) {
    return std::string(base) + (index_dtype == DType::I64 ? "_i64_" : "_i32_") +
           (narrow(p, false) ? "32_" : "64_") + dtype_suffix(dtype);
}

/// Zeroes `t`'s (dense) buffer on its stream (a gradient no output reaches).
void zero_fill(const CudaTensor& t, const char* op) {
    const std::size_t bytes = t.num_elements() * element_size(t.dtype, op);
    if (bytes == 0) return;
    Context& ctx = context(t);
    ctx.activate();
    check(cudaMemsetAsync(first(t), 0, bytes, ctx.stream()), op);
}

/// The launch shape of the row kernels (*_rows, max_pool_backward_check): blockDim.x threads
/// over the columns (grid y blocks of them, at most 65535: the kernels stride past), grid x
/// contiguous chunks of the rows, about two waves of threads in all.
struct Rows {
    dim3 grid, block;
};
Rows rows_grid(const Context& ctx, std::uint64_t rows, std::uint64_t cols) {
    const std::uint64_t block = std::min<std::uint64_t>(256, (cols + 31) / 32 * 32);
    const std::uint64_t col_blocks = std::min<std::uint64_t>((cols + block - 1) / block, 65535);
    const std::uint64_t threads =
        static_cast<std::uint64_t>(ctx.properties().multiProcessorCount) * 4096;
    const std::uint64_t chunks = std::clamp<std::uint64_t>(threads / (block * col_blocks), 1,
                                                           std::min<std::uint64_t>(rows, 1u << 30));
    return {dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(col_blocks)),
            dim3(static_cast<unsigned>(block))};
}

void check_index_dtype(DType d, const char* op) {
    BURN_CHECK(d == DType::I32 || d == DType::I64, "Cuda ", op,
               ": indices must be I64 or I32, got ", dtype_name(d));
}

}  // namespace

CudaTensor Kernels::avg_pool(CudaTensor x, const SpatialArgs& a) {
    const char* op = "avg_pool";
    check_float(x, op, true);
    const Shape out = backend::pool_shape(x.shape, a);
    PoolArgs p = pool_args(x.shape, out, a);
    view_strides(p.v0, x);
    CudaTensor y = alloc(out, x.dtype, x.device);
    const std::uint64_t n = y.num_elements();
    if (n == 0) return y;
    launch_1d(context(x), "pool", kernel_name("avg_pool", p, false, x.dtype), n, first(x), first(y),
              p);
    return y;
}

CudaTensor Kernels::avg_pool_backward(CudaTensor x, CudaTensor grad, const SpatialArgs& a) {
    const char* op = "avg_pool_backward";
    check_float(grad, op);
    const Shape out = backend::pool_shape(x.shape, a);
    assert(grad.shape == out);
    PoolArgs p = pool_args(x.shape, out, a);
    view_strides(p.v0, grad);
    CudaTensor gx = output_for(x, x.shape, grad.dtype);  // x's values are not read
    const std::uint64_t n = gx.num_elements();
    if (n == 0) return gx;
    if (grad.num_elements() == 0) {  // no window
        zero_fill(gx, op);
        return gx;
    }
    launch_1d(context(x), "pool", kernel_name("avg_pool_backward", p, false, grad.dtype), n,
              first(grad), first(gx), p);
    return gx;
}

std::pair<CudaTensor, CudaTensor> Kernels::max_pool(CudaTensor x, const SpatialArgs& a,
                                                    bool with_indices, DType index_dtype) {
    const char* op = "max_pool";
    check_float(x, op, true);
    if (with_indices) check_index_dtype(index_dtype, op);
    const Shape out = backend::pool_shape(x.shape, a);
    PoolArgs p = pool_args(x.shape, out, a);
    view_strides(p.v0, x);
    CudaTensor y = alloc(out, x.dtype, x.device);
    CudaTensor idx = alloc(with_indices ? out : Shape{0}, index_dtype, x.device);
    const std::uint64_t n = y.num_elements();
    if (n == 0) return {std::move(y), std::move(idx)};
    Context& ctx = context(x);
    if (with_indices)
        launch_1d(ctx, "pool", indexed_name("max_pool_idx", index_dtype, p, x.dtype), n, first(x),
                  first(y), first(idx), p);
    else
        launch_1d(ctx, "pool", kernel_name("max_pool", p, false, x.dtype), n, first(x), first(y),
                  p);
    return {std::move(y), std::move(idx)};
}

CudaTensor Kernels::max_pool_backward(CudaTensor x, CudaTensor grad, CudaTensor indices,
                                      const SpatialArgs& a) {
    const char* op = "max_pool_backward";
    check_float(grad, op);
    check_index_dtype(indices.dtype, op);
    const Shape out = backend::pool_shape(x.shape, a);
    assert(grad.shape == out && indices.shape == out);
    PoolArgs p = pool_args(x.shape, out, a);
    view_strides(p.v0, grad);
    view_strides(p.v1, indices);
    CudaTensor gx = output_for(x, x.shape, grad.dtype);  // x's values are not read
    const std::uint64_t n = gx.num_elements(), outs = grad.num_elements();
    if (n == 0) return gx;
    if (outs == 0) {  // no window
        zero_fill(gx, op);
        return gx;
    }
    Context& ctx = context(x);
    // The gather writes every element; the check (after it on the stream) reports indices
    // outside their plane and adds those outside their window.
    const std::uint64_t cols = static_cast<std::uint64_t>(p.W);
    if (cols >= 32 && (cols + 255) / 256 <= 65535) {
        const Rows r = rows_grid(ctx, static_cast<std::uint64_t>(p.planes * p.H), cols);
        launch(ctx, "pool", indexed_name("max_pool_backward_rows", indices.dtype, p, grad.dtype),
               r.grid, r.block, 0, first(grad), first(indices), first(gx), p);
    } else {
        launch_1d(ctx, "pool", indexed_name("max_pool_backward", indices.dtype, p, grad.dtype), n,
                  first(grad), first(indices), first(gx), p);
    }
    const Rows r = rows_grid(ctx, static_cast<std::uint64_t>(p.planes * p.OH),
                             static_cast<std::uint64_t>(p.OW));
    launch(ctx, "pool", indexed_name("max_pool_backward_check", indices.dtype, p, grad.dtype),
           r.grid, r.block, 0, first(grad), first(indices), first(gx), p, ctx.error_word(),
           ctx.error_tag(op));
    return gx;
}

CudaTensor Kernels::adaptive_avg_pool(CudaTensor x, std::span<const std::size_t> output_size) {
    const char* op = "adaptive_avg_pool";
    check_float(x, op, true);
    PoolArgs p = adaptive_args(x.shape, output_size);
    view_strides(p.v0, x);
    Shape out{x.shape[0], x.shape[1]};
    for (std::size_t s : output_size) out.push_back(s);
    CudaTensor y = alloc(out, x.dtype, x.device);
    const std::uint64_t n = y.num_elements();
    if (n == 0) return y;
    Context& ctx = context(x);
    // Large bins (global pooling, 224 -> 7): a block per output reduces its bin; small ones a
    // thread per output. The largest bin along each dim is ceil(in / out) + 1 at most.
    const std::uint64_t plane_in = static_cast<std::uint64_t>(p.D * p.H * p.W);
    const std::uint64_t plane_out = static_cast<std::uint64_t>(p.OD * p.OH * p.OW);
    const std::uint64_t bin = plane_in / plane_out;
    if (bin >= 64 && plane_in < (std::uint64_t{1} << 31)) {
        const unsigned block = bin >= 2048 ? 256 : bin >= 512 ? 128 : bin >= 128 ? 64 : 32;
        const std::uint64_t blocks = std::min<std::uint64_t>(n, std::uint64_t{1} << 30);
        launch(ctx, "pool", variant("adaptive_avg_pool_block", x.dtype),
               dim3(static_cast<unsigned>(blocks)), dim3(block), 0, first(x), first(y), p);
        return y;
    }
    launch_1d(ctx, "pool", kernel_name("adaptive_avg_pool", p, true, x.dtype), n, first(x),
              first(y), p);
    return y;
}

CudaTensor Kernels::adaptive_avg_pool_backward(CudaTensor x, CudaTensor grad) {
    const char* op = "adaptive_avg_pool_backward";
    check_float(grad, op);
    assert(grad.rank() == x.rank() && grad.shape[0] == x.shape[0] && grad.shape[1] == x.shape[1]);
    PoolArgs p = adaptive_args(x.shape, grad.shape.dims().subspan(2));
    view_strides(p.v0, grad);
    CudaTensor gx = output_for(x, x.shape, grad.dtype);  // x's values are not read
    const std::uint64_t n = gx.num_elements();
    if (n == 0) return gx;
    launch_1d(context(x), "pool", kernel_name("adaptive_avg_pool_backward", p, true, grad.dtype), n,
              first(grad), first(gx), p);
    return gx;
}

}  // namespace burn::cuda

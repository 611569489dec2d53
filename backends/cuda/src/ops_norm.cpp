// SPDX-License-Identifier: MIT OR Apache-2.0
// Layer norm over the last dim in one kernel, and its backward (backend::FusedLayerNormKernel:
// burn::nn::LayerNorm calls them instead of composing ~25 element-wise and reduction kernels).
// Kernels: kernels/cuda/nn.cu (layer_norm_*). The forward computes what the composed ops compute
// (the same f32 roundings, sums in f64); the backward is the analytic gradient, with the row
// statistics recomputed from x and the parameter gradients summed per column over chunks of
// rows, the chunks then added in a fixed order (deterministic).
#include <algorithm>
#include <cstdint>
#include <optional>

#include "burn/backend/cuda/kernels.hpp"
#include "ops_common.hpp"

namespace burn::cuda {
namespace {

using i64 = std::int64_t;

constexpr unsigned kRowsPerBlock = 8;  // a warp per row, 256 threads
constexpr i64 kChunkRows = 16;         // rows per partial sum of the parameter gradients

void check_operands(const char* op, const CudaTensor& x, const CudaTensor& gamma) {
    BURN_CHECK(x.dtype == DType::F32 || x.dtype == DType::F64, "Cuda ", op,
               ": expected an f32 or f64 tensor, got ", x.dtype);
    BURN_CHECK(x.shape.rank() >= 1, "Cuda ", op, ": x must have at least one dim, got ", x.shape);
    const std::size_t d = x.shape[x.shape.rank() - 1];
    BURN_CHECK(gamma.shape.rank() == 1 && gamma.shape[0] == d && gamma.dtype == x.dtype, "Cuda ",
               op, ": gamma must be [", d, "] ", x.dtype, " (x is ", x.shape, "), got ",
               gamma.shape, " ", gamma.dtype);
}

/// `t` (beta or the incoming gradient) has `shape` and x's dtype.
void check_like(const char* op, const char* what, const CudaTensor& t, const Shape& shape,
                DType dt) {
    BURN_CHECK(t.shape == shape && t.dtype == dt, "Cuda ", op, ": ", what, " must be ", shape, " ",
               dt, ", got ", t.shape, " ", t.dtype);
}

/// The kernels' scalar in the element type.
template <class F>
void with_eps(DType dt, double eps, F&& f) {
    if (dt == DType::F32) f(static_cast<float>(eps));
    else f(eps);
}

}  // namespace

CudaTensor Kernels::layer_norm(CudaTensor x, CudaTensor gamma, std::optional<CudaTensor> beta,
                               double epsilon) {
    check_operands("layer_norm", x, gamma);
    if (beta) check_like("layer_norm", "beta", *beta, gamma.shape, x.dtype);
    x = contiguous(std::move(x));
    gamma = contiguous(std::move(gamma));
    if (beta) beta = contiguous(std::move(*beta));
    const i64 d = static_cast<i64>(gamma.shape[0]);
    CudaTensor y = alloc(x.shape, x.dtype, x.device);
    if (y.num_elements() == 0) return y;
    const i64 rows = static_cast<i64>(x.num_elements()) / d;
    const void* b = beta ? first(*beta) : nullptr;
    const dim3 grid(static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock));
    with_eps(x.dtype, epsilon, [&](auto eps) {
        launch(context(x), "nn", variant("layer_norm_fwd", x.dtype), grid, dim3(256), 0, first(x),
               first(gamma), b, first(y), rows, d, eps);
    });
    return y;
}

backend::LayerNormBackward<CudaTensor> Kernels::layer_norm_backward(CudaTensor x, CudaTensor gamma,
                                                                    CudaTensor grad, double epsilon,
                                                                    bool with_beta) {
    check_operands("layer_norm_backward", x, gamma);
    check_like("layer_norm_backward", "grad", grad, x.shape, x.dtype);
    x = contiguous(std::move(x));
    gamma = contiguous(std::move(gamma));
    grad = contiguous(std::move(grad));
    const DType dt = x.dtype;
    const i64 d = static_cast<i64>(gamma.shape[0]);
    backend::LayerNormBackward<CudaTensor> r{alloc(x.shape, dt, x.device),
                                             alloc(gamma.shape, dt, x.device), std::nullopt};
    if (with_beta) r.beta_grad = alloc(gamma.shape, dt, x.device);
    const i64 rows = d == 0 ? 0 : static_cast<i64>(x.num_elements()) / d;
    if (d == 0) return r;
    if (rows == 0) {  // no rows: the parameter gradients are zeros
        r.gamma_grad = full(gamma.shape, ScalarArg::of(0.0), dt, x.device);
        if (with_beta) r.beta_grad = full(gamma.shape, ScalarArg::of(0.0), dt, x.device);
        return r;
    }
    Context& ctx = context(x);
    const CudaTensor row_mean = alloc(Shape{static_cast<std::size_t>(rows)}, dt, x.device);
    const CudaTensor row_s = alloc(Shape{static_cast<std::size_t>(rows)}, dt, x.device);
    // Rows per partial sum: kChunkRows, more when the chunks would not fit the grid's y or the
    // partial sums would take more than 2 x 32 MiB.
    const i64 max_chunks = std::clamp<i64>((i64{1} << 22) / d, 1, 65535);
    const i64 chunk = std::max(kChunkRows, (rows + max_chunks - 1) / max_chunks);
    const i64 chunks = (rows + chunk - 1) / chunk;
    const auto partial = ctx.alloc(static_cast<std::size_t>(2 * chunks * d) * sizeof(double));
    double* part_g = static_cast<double*>(partial->data());
    double* part_b = part_g + chunks * d;
    const dim3 row_grid(static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock));
    with_eps(dt, epsilon, [&](auto eps) {
        launch(ctx, "nn", variant("layer_norm_bwd_x", dt), row_grid, dim3(256), 0, first(x),
               first(gamma), first(grad), first(r.x_grad), first(row_mean), first(row_s), rows, d,
               eps);
    });
    const unsigned col_blocks = static_cast<unsigned>((d + 255) / 256);
    launch(ctx, "nn", variant("layer_norm_bwd_params", dt),
           dim3(col_blocks, static_cast<unsigned>(chunks)), dim3(256), 0, first(x), first(grad),
           first(row_mean), first(row_s), part_g, part_b, rows, d, chunk);
    void* dbeta = with_beta ? first(*r.beta_grad) : nullptr;
    const double* pg = part_g;
    const double* pb = part_b;
    launch(ctx, "nn", variant("layer_norm_bwd_final", dt), dim3(static_cast<unsigned>(d)),
           dim3(128), 0, pg, pb, first(r.gamma_grad), dbeta, d, chunks);
    // `partial`, row_mean and row_s go back to the allocator now: later work on the stream may
    // reuse them.
    return r;
}

}  // namespace burn::cuda

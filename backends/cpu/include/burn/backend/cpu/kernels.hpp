// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU kernels, compiled once in backends/cpu/src and dispatched on the run-time dtype.
// Cpu<F, I> forwards to these; user code never needs them directly.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "burn/backend/cpu/tensor.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/module_options.hpp"

namespace burn::cpu {

/// A scalar operand in both representations, so that int64 values survive exactly.
struct ScalarArg {
    double f = 0.0;
    std::int64_t i = 0;
    static ScalarArg of(double v) { return {v, static_cast<std::int64_t>(v)}; }
    static ScalarArg of(std::int64_t v) { return {static_cast<double>(v), v}; }
};

enum class BinaryOp { Add, Sub, Mul, Div, Rem, Pow, Max, Min, And, Or };
enum class UnaryOp { Neg, Abs, Sign, Exp, Log, Log1p, Erf, Sqrt, Recip, Sin, Cos, Tanh, Round, Floor, Ceil, Not };
enum class CmpOp { Eq, Ne, Gt, Ge, Lt, Le };
enum class ReduceOp { Sum, Prod, Mean, Max, Min };
enum class CumOp { Sum, Prod, Max, Min };

// ---- data and creation (storage.cpp) ----
CpuTensor empty(const Shape& shape, DType dtype);
CpuTensor full(const Shape& shape, ScalarArg value, DType dtype);
CpuTensor from_data(const TensorData& data, DType target);
TensorData into_data(const CpuTensor& t);
/// A dense row-major tensor with the same values (the input itself when already dense).
CpuTensor contiguous(CpuTensor t);
/// Values converted to `dtype` (floats -> ints truncate toward zero; anything -> bool is `!= 0`).
CpuTensor cast(CpuTensor t, DType dtype);

// ---- element-wise (elementwise.cpp); broadcasting both operands ----
CpuTensor unary(UnaryOp op, CpuTensor t);
CpuTensor binary(BinaryOp op, CpuTensor lhs, CpuTensor rhs);
CpuTensor binary_scalar(BinaryOp op, CpuTensor lhs, ScalarArg rhs);
/// Result is a bool tensor.
CpuTensor compare(CmpOp op, CpuTensor lhs, CpuTensor rhs);
CpuTensor compare_scalar(CmpOp op, CpuTensor lhs, ScalarArg rhs);
CpuTensor is_nan(CpuTensor t);
CpuTensor clamp(CpuTensor t, std::optional<ScalarArg> lo, std::optional<ScalarArg> hi);
/// `mask ? value : t`, broadcasting all three to t's shape.
CpuTensor mask_where(CpuTensor t, CpuTensor mask, CpuTensor value);
CpuTensor mask_fill(CpuTensor t, CpuTensor mask, ScalarArg value);

// ---- layout views (layout.cpp): no copy where the strides allow ----
CpuTensor reshape(CpuTensor t, const Shape& shape);
CpuTensor permute(CpuTensor t, std::span<const std::size_t> axes);
CpuTensor swap_dims(CpuTensor t, std::size_t a, std::size_t b);
CpuTensor flip(CpuTensor t, std::span<const std::size_t> axes);
CpuTensor expand(CpuTensor t, const Shape& shape);
CpuTensor slice(CpuTensor t, std::span<const SliceRange> ranges);

// ---- reductions (reduce.cpp) ----
/// Reduces every element into a tensor of shape [1]. Mean of an integer tensor truncates.
CpuTensor reduce_all(ReduceOp op, CpuTensor t);
/// Reduces along `dim`, keeping it with size 1.
CpuTensor reduce_dim(ReduceOp op, CpuTensor t, std::size_t dim);
/// Max or Min along `dim` with the index of the first extremum (NaN counts as the extremum).
std::pair<CpuTensor, CpuTensor> reduce_dim_with_indices(ReduceOp op, CpuTensor t, std::size_t dim,
                                                        DType index_dtype);
/// Bool tensors: any/all over everything (shape [1]) or along dim (kept).
CpuTensor any_all(bool all, CpuTensor t);
CpuTensor any_all_dim(bool all, CpuTensor t, std::size_t dim);

// ---- cumulative ops (cumulative.cpp) ----
/// Running sum / product / max / min along `dim` (torch.cumsum, cumprod, cummax and cummin
/// values): same shape and dtype. f32 sums and products accumulate in f64; ints wrap in their
/// type; max and min propagate NaN (every value after the first NaN of a lane is NaN).
CpuTensor cumulative(CumOp op, CpuTensor t, std::size_t dim);

// ---- indexing and reordering (index.cpp, sort.cpp) ----
CpuTensor slice_assign(CpuTensor t, std::span<const SliceRange> ranges, CpuTensor values);
CpuTensor cat(std::vector<CpuTensor> tensors, std::size_t dim);
CpuTensor repeat_dim(CpuTensor t, std::size_t dim, std::size_t times);
/// out[i][j][k] = t[idx[i][j][k]][j][k] (dim 0), as torch.gather; idx has t's rank.
CpuTensor gather(std::size_t dim, CpuTensor t, CpuTensor indices);
/// Adds values into t at indices along dim, as torch.scatter_add.
CpuTensor scatter_add(std::size_t dim, CpuTensor t, CpuTensor indices, CpuTensor values);
/// Picks the slices `indices` (rank 1) along dim, as torch.index_select.
CpuTensor select(CpuTensor t, std::size_t dim, CpuTensor indices);
/// Adds values into the slices `indices` along dim, as torch.index_add.
CpuTensor select_add(CpuTensor t, std::size_t dim, CpuTensor indices, CpuTensor values);
/// Stable sort along dim; NaN sorts after every number (before them when descending).
/// Returns (values, indices); the indices have `index_dtype`.
std::pair<CpuTensor, CpuTensor> sort(CpuTensor t, std::size_t dim, bool descending,
                                     DType index_dtype);
CpuTensor argsort(CpuTensor t, std::size_t dim, bool descending, DType index_dtype);
/// Coordinates of the true elements, shape [n, rank], row-major order.
CpuTensor argwhere(CpuTensor t, DType index_dtype);
CpuTensor arange(std::int64_t start, std::int64_t end, std::int64_t step, DType dtype);

// ---- random numbers (random.cpp) and matmul (matmul.cpp) ----
/// Philox4x32-10 stream: the same values for a seed whatever the number of threads.
void seed(std::uint64_t seed);
CpuTensor random(const Shape& shape, const Distribution& dist, DType dtype);
/// Batched matrix product over the last two dims, broadcasting batch dims.
CpuTensor matmul(CpuTensor lhs, CpuTensor rhs);

// ---- module ops: convolution (conv.cpp, deform_conv.cpp), pooling (pool.cpp), interpolation
// (interpolate.cpp), embedding and unfold (nn_misc.cpp). Inputs are validated by burn::module::;
// these take any strides. The spatial rank is x.rank() - 2 (1 to 3). ----

/// Spatial parameters of a convolution or pooling over `n` spatial dims (entries >= n unused).
struct SpatialArgs {
    std::size_t n = 0;
    std::array<std::size_t, 3> kernel{};  ///< pooling window (convolutions read the weight)
    std::array<std::size_t, 3> stride{1, 1, 1};
    std::array<std::size_t, 3> padding{};
    std::array<std::size_t, 3> dilation{1, 1, 1};
    std::array<std::size_t, 3> padding_out{};  ///< transposed convolution only
    std::size_t groups = 1;                    ///< weight groups
    std::size_t offset_groups = 1;             ///< deformable convolution only
    bool ceil_mode = false;
    bool count_include_pad = true;
};

/// x [b, c_in, s...] * w [c_out, c_in / groups, k...] (+ bias [c_out]) -> [b, c_out, o...].
CpuTensor conv(CpuTensor x, CpuTensor w, std::optional<CpuTensor> bias, const SpatialArgs& a);
/// Gradient of conv with respect to x (shape of x) and to w (shape of w).
CpuTensor conv_x_backward(CpuTensor x, CpuTensor w, CpuTensor grad, const SpatialArgs& a);
CpuTensor conv_weight_backward(CpuTensor x, CpuTensor w, CpuTensor grad, const SpatialArgs& a);
/// Sum of grad over every dim except dim 1: the bias gradient of conv and conv_transpose.
CpuTensor conv_bias_backward(CpuTensor grad);
/// x [b, c_in, s...], w [c_in, c_out / groups, k...] (+ bias [c_out]) -> [b, c_out, o...].
CpuTensor conv_transpose(CpuTensor x, CpuTensor w, std::optional<CpuTensor> bias,
                         const SpatialArgs& a);
CpuTensor conv_transpose_x_backward(CpuTensor x, CpuTensor w, CpuTensor grad, const SpatialArgs& a);
CpuTensor conv_transpose_weight_backward(CpuTensor x, CpuTensor w, CpuTensor grad,
                                         const SpatialArgs& a);
/// torchvision.ops.deform_conv2d (a.n == 2; a.groups = weight groups).
CpuTensor deform_conv2d(CpuTensor x, CpuTensor offset, CpuTensor w, std::optional<CpuTensor> mask,
                        std::optional<CpuTensor> bias, const SpatialArgs& a);
DeformConv2dBackward<CpuTensor> deform_conv2d_backward(CpuTensor x, CpuTensor offset, CpuTensor w,
                                                       std::optional<CpuTensor> mask,
                                                       std::optional<CpuTensor> bias,
                                                       CpuTensor grad, const SpatialArgs& a);
/// im2col: x [b, c, h, w] -> [b, c * kh * kw, L] (a.kernel is the window).
CpuTensor unfold4d(CpuTensor x, const SpatialArgs& a);

/// Pooling over n = 1 or 2 spatial dims (adaptive: 1 to 3). a.kernel is the window.
CpuTensor avg_pool(CpuTensor x, const SpatialArgs& a);
CpuTensor avg_pool_backward(CpuTensor x, CpuTensor grad, const SpatialArgs& a);
/// Max pooling; the indices (dtype `index_dtype`, flattened over each plane's spatial dims) are
/// only computed when `with_indices`, otherwise the second tensor is empty.
std::pair<CpuTensor, CpuTensor> max_pool(CpuTensor x, const SpatialArgs& a, bool with_indices,
                                         DType index_dtype);
CpuTensor max_pool_backward(CpuTensor x, CpuTensor grad, CpuTensor indices, const SpatialArgs& a);
CpuTensor adaptive_avg_pool(CpuTensor x, std::span<const std::size_t> output_size);
CpuTensor adaptive_avg_pool_backward(CpuTensor x, CpuTensor grad);

/// x [b, c, h, w] resized to output_size (PyTorch's F.interpolate semantics).
CpuTensor interpolate(CpuTensor x, std::array<std::size_t, 2> output_size,
                      const InterpolateOptions& options);
CpuTensor interpolate_backward(CpuTensor x, CpuTensor grad, std::array<std::size_t, 2> output_size,
                               const InterpolateOptions& options);

/// weights [n, d] looked up by indices [...] -> [..., d]; the backward accumulates grad rows.
CpuTensor embedding(CpuTensor weights, CpuTensor indices);
CpuTensor embedding_backward(CpuTensor weights, CpuTensor grad, CpuTensor indices);

// ---- activations (activation.cpp) ----
enum class Activation { Relu, Gelu, Sigmoid, LogSigmoid, HardSigmoid, LeakyRelu };
/// Element-wise activation; HardSigmoid uses (alpha, beta), LeakyRelu alpha as the slope.
CpuTensor activation(Activation op, CpuTensor x, double alpha = 0.0, double beta = 0.0);
/// Backward of Relu and Sigmoid from the forward's output, of Gelu and LogSigmoid from its input.
CpuTensor activation_backward(Activation op, CpuTensor saved, CpuTensor grad);
/// softmax (or log_softmax) along `dim`, max-subtracted.
CpuTensor softmax(CpuTensor x, std::size_t dim, bool log);

// ---- int8 quantization (quantize.cpp) ----
/// A quantized tensor (dtype QInt8, dense, `qinfo` set) from float `t`: q = clamp(round_half_even(
/// x * (1 / scale)) + offset, -128, 127) with `scale` (read as f32) and `offset` (read as i32)
/// holding one value per range of `scheme`. Arguments are valid (checked by Tensor::quantize).
CpuTensor quantize(CpuTensor t, const QuantizationScheme& scheme, CpuTensor scale,
                   std::optional<CpuTensor> offset);
/// The float tensor of dtype `float_dtype` with values (q - offset) * scale.
CpuTensor dequantize(const CpuTensor& t, DType float_dtype);
/// Quantized TensorData <-> quantized tensor (values and parameters kept as they are).
CpuTensor quantized_from_data(const TensorData& data);
TensorData quantized_into_data(const CpuTensor& t);

}  // namespace burn::cpu

// SPDX-License-Identifier: MIT OR Apache-2.0
// The Vulkan kernels: the same API as the CPU backend's (burn/backend/cpu/kernels.hpp), over
// VulkanTensor, implemented in backends/vulkan/src (ops_*.cpp) with GLSL compute shaders from
// kernels/vulkan. Vulkan<F, I> forwards to these; user code never needs them directly.
// Every function records work on the tensor's device and returns at once (asynchronous); only
// into_data (and quantized_into_data) waits. Creation functions take the device.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "burn/backend/vulkan/tensor.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/module_options.hpp"

namespace burn::vk {

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
VulkanTensor empty(const Shape& shape, DType dtype, const VulkanDevice& device);
VulkanTensor full(const Shape& shape, ScalarArg value, DType dtype, const VulkanDevice& device);
VulkanTensor from_data(const TensorData& data, DType target, const VulkanDevice& device);
/// The same values on another device (a copy through the host between two devices).
VulkanTensor to_device(VulkanTensor t, const VulkanDevice& device);
TensorData into_data(const VulkanTensor& t);
/// A dense row-major tensor with the same values (the input itself when already dense).
VulkanTensor contiguous(VulkanTensor t);
/// Values converted to `dtype` (floats -> ints truncate toward zero; anything -> bool is `!= 0`).
VulkanTensor cast(VulkanTensor t, DType dtype);

// ---- element-wise (elementwise.cpp); broadcasting both operands ----
VulkanTensor unary(UnaryOp op, VulkanTensor t);
VulkanTensor binary(BinaryOp op, VulkanTensor lhs, VulkanTensor rhs);
VulkanTensor binary_scalar(BinaryOp op, VulkanTensor lhs, ScalarArg rhs);
/// Result is a bool tensor.
VulkanTensor compare(CmpOp op, VulkanTensor lhs, VulkanTensor rhs);
VulkanTensor compare_scalar(CmpOp op, VulkanTensor lhs, ScalarArg rhs);
VulkanTensor is_nan(VulkanTensor t);
VulkanTensor clamp(VulkanTensor t, std::optional<ScalarArg> lo, std::optional<ScalarArg> hi);
/// `mask ? value : t`, broadcasting all three to t's shape.
VulkanTensor mask_where(VulkanTensor t, VulkanTensor mask, VulkanTensor value);
VulkanTensor mask_fill(VulkanTensor t, VulkanTensor mask, ScalarArg value);

// ---- layout views (layout.cpp): no copy where the strides allow ----
VulkanTensor reshape(VulkanTensor t, const Shape& shape);
VulkanTensor permute(VulkanTensor t, std::span<const std::size_t> axes);
VulkanTensor swap_dims(VulkanTensor t, std::size_t a, std::size_t b);
VulkanTensor flip(VulkanTensor t, std::span<const std::size_t> axes);
VulkanTensor expand(VulkanTensor t, const Shape& shape);
VulkanTensor slice(VulkanTensor t, std::span<const SliceRange> ranges);

// ---- reductions (reduce.cpp) ----
/// Reduces every element into a tensor of shape [1]. Mean of an integer tensor truncates.
VulkanTensor reduce_all(ReduceOp op, VulkanTensor t);
/// Reduces along `dim`, keeping it with size 1.
VulkanTensor reduce_dim(ReduceOp op, VulkanTensor t, std::size_t dim);
/// Max or Min along `dim` with the index of the first extremum (NaN counts as the extremum).
std::pair<VulkanTensor, VulkanTensor> reduce_dim_with_indices(ReduceOp op, VulkanTensor t, std::size_t dim,
                                                        DType index_dtype);
/// Bool tensors: any/all over everything (shape [1]) or along dim (kept).
VulkanTensor any_all(bool all, VulkanTensor t);
VulkanTensor any_all_dim(bool all, VulkanTensor t, std::size_t dim);

// ---- cumulative ops (cumulative.cpp) ----
/// Running sum / product / max / min along `dim` (torch.cumsum, cumprod, cummax and cummin
/// values): same shape and dtype. f32 sums and products accumulate in f64; ints wrap in their
/// type; max and min propagate NaN (every value after the first NaN of a lane is NaN).
VulkanTensor cumulative(CumOp op, VulkanTensor t, std::size_t dim);

// ---- indexing and reordering (index.cpp, sort.cpp) ----
VulkanTensor slice_assign(VulkanTensor t, std::span<const SliceRange> ranges, VulkanTensor values);
VulkanTensor cat(std::vector<VulkanTensor> tensors, std::size_t dim);
VulkanTensor repeat_dim(VulkanTensor t, std::size_t dim, std::size_t times);
/// out[i][j][k] = t[idx[i][j][k]][j][k] (dim 0), as torch.gather; idx has t's rank.
VulkanTensor gather(std::size_t dim, VulkanTensor t, VulkanTensor indices);
/// Adds values into t at indices along dim, as torch.scatter_add.
VulkanTensor scatter_add(std::size_t dim, VulkanTensor t, VulkanTensor indices, VulkanTensor values);
/// Picks the slices `indices` (rank 1) along dim, as torch.index_select.
VulkanTensor select(VulkanTensor t, std::size_t dim, VulkanTensor indices);
/// Adds values into the slices `indices` along dim, as torch.index_add.
VulkanTensor select_add(VulkanTensor t, std::size_t dim, VulkanTensor indices, VulkanTensor values);
/// Stable sort along dim; NaN sorts after every number (before them when descending).
/// Returns (values, indices); the indices have `index_dtype`.
std::pair<VulkanTensor, VulkanTensor> sort(VulkanTensor t, std::size_t dim, bool descending,
                                     DType index_dtype);
VulkanTensor argsort(VulkanTensor t, std::size_t dim, bool descending, DType index_dtype);
/// Coordinates of the true elements, shape [n, rank], row-major order.
VulkanTensor argwhere(VulkanTensor t, DType index_dtype);
VulkanTensor arange(std::int64_t start, std::int64_t end, std::int64_t step, DType dtype,
                    const VulkanDevice& device);

// ---- random numbers (random.cpp) and matmul (matmul.cpp) ----
/// Philox4x32-10 stream: the same values for a seed whatever the number of threads.
void seed(std::uint64_t seed);
VulkanTensor random(const Shape& shape, const Distribution& dist, DType dtype, const VulkanDevice& device);
/// Batched matrix product over the last two dims, broadcasting batch dims.
VulkanTensor matmul(VulkanTensor lhs, VulkanTensor rhs);

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
VulkanTensor conv(VulkanTensor x, VulkanTensor w, std::optional<VulkanTensor> bias, const SpatialArgs& a);
/// Gradient of conv with respect to x (shape of x) and to w (shape of w).
VulkanTensor conv_x_backward(VulkanTensor x, VulkanTensor w, VulkanTensor grad, const SpatialArgs& a);
VulkanTensor conv_weight_backward(VulkanTensor x, VulkanTensor w, VulkanTensor grad, const SpatialArgs& a);
/// Sum of grad over every dim except dim 1: the bias gradient of conv and conv_transpose.
VulkanTensor conv_bias_backward(VulkanTensor grad);
/// x [b, c_in, s...], w [c_in, c_out / groups, k...] (+ bias [c_out]) -> [b, c_out, o...].
VulkanTensor conv_transpose(VulkanTensor x, VulkanTensor w, std::optional<VulkanTensor> bias,
                         const SpatialArgs& a);
VulkanTensor conv_transpose_x_backward(VulkanTensor x, VulkanTensor w, VulkanTensor grad, const SpatialArgs& a);
VulkanTensor conv_transpose_weight_backward(VulkanTensor x, VulkanTensor w, VulkanTensor grad,
                                         const SpatialArgs& a);
/// torchvision.ops.deform_conv2d (a.n == 2; a.groups = weight groups).
VulkanTensor deform_conv2d(VulkanTensor x, VulkanTensor offset, VulkanTensor w, std::optional<VulkanTensor> mask,
                        std::optional<VulkanTensor> bias, const SpatialArgs& a);
DeformConv2dBackward<VulkanTensor> deform_conv2d_backward(VulkanTensor x, VulkanTensor offset, VulkanTensor w,
                                                       std::optional<VulkanTensor> mask,
                                                       std::optional<VulkanTensor> bias,
                                                       VulkanTensor grad, const SpatialArgs& a);
/// im2col: x [b, c, h, w] -> [b, c * kh * kw, L] (a.kernel is the window).
VulkanTensor unfold4d(VulkanTensor x, const SpatialArgs& a);

/// Pooling over n = 1 or 2 spatial dims (adaptive: 1 to 3). a.kernel is the window.
VulkanTensor avg_pool(VulkanTensor x, const SpatialArgs& a);
VulkanTensor avg_pool_backward(VulkanTensor x, VulkanTensor grad, const SpatialArgs& a);
/// Max pooling; the indices (dtype `index_dtype`, flattened over each plane's spatial dims) are
/// only computed when `with_indices`, otherwise the second tensor is empty.
std::pair<VulkanTensor, VulkanTensor> max_pool(VulkanTensor x, const SpatialArgs& a, bool with_indices,
                                         DType index_dtype);
VulkanTensor max_pool_backward(VulkanTensor x, VulkanTensor grad, VulkanTensor indices, const SpatialArgs& a);
VulkanTensor adaptive_avg_pool(VulkanTensor x, std::span<const std::size_t> output_size);
VulkanTensor adaptive_avg_pool_backward(VulkanTensor x, VulkanTensor grad);

/// x [b, c, h, w] resized to output_size (PyTorch's F.interpolate semantics).
VulkanTensor interpolate(VulkanTensor x, std::array<std::size_t, 2> output_size,
                      const InterpolateOptions& options);
VulkanTensor interpolate_backward(VulkanTensor x, VulkanTensor grad, std::array<std::size_t, 2> output_size,
                               const InterpolateOptions& options);

/// weights [n, d] looked up by indices [...] -> [..., d]; the backward accumulates grad rows.
VulkanTensor embedding(VulkanTensor weights, VulkanTensor indices);
VulkanTensor embedding_backward(VulkanTensor weights, VulkanTensor grad, VulkanTensor indices);

// ---- activations (activation.cpp) ----
enum class Activation { Relu, Gelu, Sigmoid, LogSigmoid, HardSigmoid, LeakyRelu };
/// Element-wise activation; HardSigmoid uses (alpha, beta), LeakyRelu alpha as the slope.
VulkanTensor activation(Activation op, VulkanTensor x, double alpha = 0.0, double beta = 0.0);
/// Backward of Relu and Sigmoid from the forward's output, of Gelu and LogSigmoid from its input.
VulkanTensor activation_backward(Activation op, VulkanTensor saved, VulkanTensor grad);
/// softmax (or log_softmax) along `dim`, max-subtracted.
VulkanTensor softmax(VulkanTensor x, std::size_t dim, bool log);

// ---- int8 quantization (quantize.cpp) ----
/// A quantized tensor (dtype QInt8, dense, `qinfo` set) from float `t`: q = clamp(round_half_even(
/// x * (1 / scale)) + offset, -128, 127) with `scale` (read as f32) and `offset` (read as i32)
/// holding one value per range of `scheme`. Arguments are valid (checked by Tensor::quantize).
VulkanTensor quantize(VulkanTensor t, const QuantizationScheme& scheme, VulkanTensor scale,
                   std::optional<VulkanTensor> offset);
/// The float tensor of dtype `float_dtype` with values (q - offset) * scale.
VulkanTensor dequantize(const VulkanTensor& t, DType float_dtype);
/// Quantized TensorData <-> quantized tensor (values and parameters kept as they are).
VulkanTensor quantized_from_data(const TensorData& data, const VulkanDevice& device);
TensorData quantized_into_data(const VulkanTensor& t);

}  // namespace burn::vk

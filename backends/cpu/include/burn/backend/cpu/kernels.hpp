// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU kernels, compiled once in backends/cpu/src and dispatched on the run-time dtype.
// Cpu<F, I> forwards to these; user code never needs them directly.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "burn/backend/cpu/tensor.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"

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

}  // namespace burn::cpu

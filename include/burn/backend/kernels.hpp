// SPDX-License-Identifier: MIT OR Apache-2.0
// The kernel set: what a backend of the kit implements. About sixty enum-driven kernels over one
// strided primitive `T` (StridedTensor<Buffer, Device>, <burn/backend/layout.hpp>) for all three
// kinds, plus creation, data transfer, random numbers and device control. The adapter
// (<burn/backend/adapter.hpp>) builds the whole Backend op table on top of them: views are host
// code, dtypes are chosen by the adapter, quantized inputs are dequantized before a kernel runs.
//
// A backend declares its kernel set as a struct whose members BURN_KERNEL_SET_MEMBERS generates
// from the list (its sources define them), and hands it to the adapter:
//
//   namespace burn::cpu { struct Kernels { BURN_KERNEL_SET_MEMBERS(CpuTensor, CpuDevice) }; }
//   template <class F, class I> struct Cpu : backend::KernelBackend<cpu::Kernels, F, I> { ... };
//
// Conventions every kernel follows:
//  - Arguments are valid: the Tensor layer (and burn::module) checked ranks, shapes, dims,
//    dtypes and devices and threw burn::Error first. Only what depends on values (an index out of
//    range, an integer division by zero) is found by the kernel, reported as burn::Error naming
//    the op (asynchronous backends report it at the next read).
//  - Inputs may be any view (strides 0 or negative, an offset); outputs are new dense tensors, or
//    the input's own buffer when the input is its only owner (in-place reuse).
//  - Creation kernels take the device; every other kernel runs on its inputs' device.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "burn/backend/layout.hpp"
#include "burn/backend/ops.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/module_options.hpp"

/// The kernels, as X(RETURN, NAME, (PARAMETERS)). The names used: T the primitive, Device, and
/// TPair = std::pair<T, T>, OptT = std::optional<T>, OptScalar = std::optional<ScalarArg>,
/// Axes = std::span<const std::size_t>, Ranges = std::span<const SliceRange>,
/// Size2 = std::array<std::size_t, 2>.
#define BURN_KERNELS(X)                                                                         \
    /* ---- data and creation. from_data converts to `dtype`; cast: floats -> ints truncate     \
       toward zero, anything -> bool is != 0; contiguous returns a dense row-major tensor (the  \
       input itself when it is one). */                                                         \
    X(T, empty, (const Shape& shape, DType dtype, const Device& device))                        \
    X(T, full, (const Shape& shape, ScalarArg value, DType dtype, const Device& device))        \
    X(T, from_data, (const TensorData& data, DType dtype, const Device& device))                \
    X(TensorData, into_data, (const T& t))                                                      \
    X(T, to_device, (T t, const Device& device))                                                \
    X(T, contiguous, (T t))                                                                     \
    X(T, cast, (T t, DType dtype))                                                              \
    X(T, arange,                                                                                \
      (std::int64_t start, std::int64_t end, std::int64_t step, DType dtype,                    \
       const Device& device))                                                                   \
    /* ---- element-wise, broadcasting the operands to a common shape. compare* return bool     \
       tensors; mask_where is `mask ? value : t` (all three broadcast to t's shape). */         \
    X(T, unary, (UnaryOp op, T t))                                                              \
    X(T, binary, (BinaryOp op, T lhs, T rhs))                                                   \
    X(T, binary_scalar, (BinaryOp op, T lhs, ScalarArg rhs))                                    \
    X(T, compare, (CmpOp op, T lhs, T rhs))                                                     \
    X(T, compare_scalar, (CmpOp op, T lhs, ScalarArg rhs))                                      \
    X(T, is_nan, (T t))                                                                         \
    X(T, clamp, (T t, OptScalar lo, OptScalar hi))                                              \
    X(T, mask_where, (T t, T mask, T value))                                                    \
    X(T, mask_fill, (T t, T mask, ScalarArg value))                                             \
    /* ---- reductions: over everything (shape [1]; the mean of ints truncates) or along dim    \
       (kept with size 1); with_indices gives the first extremum (NaN counts as one); any_all   \
       reduces bool tensors. */                                                                 \
    X(T, reduce_all, (ReduceOp op, T t))                                                        \
    X(T, reduce_dim, (ReduceOp op, T t, std::size_t dim))                                       \
    X(TPair, reduce_dim_with_indices, (ReduceOp op, T t, std::size_t dim, DType index_dtype))   \
    X(T, any_all, (bool all, T t))                                                              \
    X(T, any_all_dim, (bool all, T t, std::size_t dim))                                         \
    /* ---- running sum / product / max / min along dim (f32 accumulates in f64 where the       \
       backend can; max and min propagate NaN). */                                              \
    X(T, cumulative, (CumOp op, T t, std::size_t dim))                                          \
    /* ---- indexing and reordering, as torch's gather, scatter_add, index_select, index_add;   \
       stable sorts (NaN after every number, before them descending) returning (values,         \
       indices); argwhere gives the coordinates [n, rank] of the true elements. */              \
    X(T, slice_assign, (T t, Ranges ranges, T values))                                          \
    X(T, cat, (std::vector<T> tensors, std::size_t dim))                                        \
    X(T, repeat_dim, (T t, std::size_t dim, std::size_t times))                                 \
    X(T, gather, (std::size_t dim, T t, T indices))                                             \
    X(T, scatter_add, (std::size_t dim, T t, T indices, T values))                              \
    X(T, select, (T t, std::size_t dim, T indices))                                             \
    X(T, select_add, (T t, std::size_t dim, T indices, T values))                               \
    X(TPair, sort, (T t, std::size_t dim, bool descending, DType index_dtype))                  \
    X(T, argsort, (T t, std::size_t dim, bool descending, DType index_dtype))                   \
    X(T, argwhere, (T t, DType index_dtype))                                                    \
    /* ---- random numbers: a Philox4x32-10 stream, the same values for a seed on every         \
       backend and thread count. */                                                             \
    X(void, seed, (std::uint64_t seed))                                                         \
    X(T, random,                                                                                \
      (const Shape& shape, const Distribution& dist, DType dtype, const Device& device))        \
    /* ---- batched matrix product over the last two dims, broadcasting batch dims. */          \
    X(T, matmul, (T lhs, T rhs))                                                                \
    /* ---- convolutions over a.n = x.rank() - 2 spatial dims: x [b, c_in, s...], weights       \
       [c_out, c_in / groups, k...] (transposed: [c_in, c_out / groups, k...]); the backward    \
       kernels give the gradient of x and of w; conv_bias_backward sums grad over every dim but \
       1. deform_conv2d is torchvision's; unfold4d is im2col. */                                \
    X(T, conv, (T x, T w, OptT bias, const SpatialArgs& a))                                     \
    X(T, conv_x_backward, (T x, T w, T grad, const SpatialArgs& a))                             \
    X(T, conv_weight_backward, (T x, T w, T grad, const SpatialArgs& a))                        \
    X(T, conv_bias_backward, (T grad))                                                          \
    X(T, conv_transpose, (T x, T w, OptT bias, const SpatialArgs& a))                           \
    X(T, conv_transpose_x_backward, (T x, T w, T grad, const SpatialArgs& a))                   \
    X(T, conv_transpose_weight_backward, (T x, T w, T grad, const SpatialArgs& a))              \
    X(T, deform_conv2d, (T x, T offset, T w, OptT mask, OptT bias, const SpatialArgs& a))       \
    X(DeformConv2dBackward<T>, deform_conv2d_backward,                                          \
      (T x, T offset, T w, OptT mask, OptT bias, T grad, const SpatialArgs& a))                 \
    X(T, unfold4d, (T x, const SpatialArgs& a))                                                 \
    /* ---- pooling (a.kernel is the window); max_pool's indices (flattened per plane) only     \
       when with_indices, else the second tensor is empty. */                                   \
    X(T, avg_pool, (T x, const SpatialArgs& a))                                                 \
    X(T, avg_pool_backward, (T x, T grad, const SpatialArgs& a))                                \
    X(TPair, max_pool, (T x, const SpatialArgs& a, bool with_indices, DType index_dtype))       \
    X(T, max_pool_backward, (T x, T grad, T indices, const SpatialArgs& a))                     \
    X(T, adaptive_avg_pool, (T x, Axes output_size))                                            \
    X(T, adaptive_avg_pool_backward, (T x, T grad))                                             \
    /* ---- x [b, c, h, w] resized (PyTorch's F.interpolate), embedding lookups. */             \
    X(T, interpolate, (T x, Size2 output_size, const InterpolateOptions& options))              \
    X(T, interpolate_backward,                                                                  \
      (T x, T grad, Size2 output_size, const InterpolateOptions& options))                      \
    X(T, embedding, (T weights, T indices))                                                     \
    X(T, embedding_backward, (T weights, T grad, T indices))                                    \
    /* ---- activations (HardSigmoid uses alpha and beta, LeakyRelu alpha as the slope); the    \
       backward reads the forward's output (Relu, Sigmoid) or input (Gelu, LogSigmoid);         \
       softmax along dim, max-subtracted. */                                                    \
    X(T, activation, (Activation op, T x, double alpha, double beta))                           \
    X(T, activation_backward, (Activation op, T saved, T grad))                                 \
    X(T, softmax, (T x, std::size_t dim, bool log))                                             \
    /* ---- int8 quantization: q = clamp(round_half_even(x / scale) + offset, -128, 127) with   \
       one scale (read as f32) and offset (i32) per range of the scheme. */                     \
    X(T, quantize, (T t, const QuantizationScheme& scheme, T scale, OptT offset))               \
    X(T, dequantize, (const T& t, DType float_dtype))                                           \
    X(T, quantized_from_data, (const TensorData& data, const Device& device))                   \
    X(TensorData, quantized_into_data, (const T& t))                                            \
    /* ---- waits until the device has run every queued op. */                                  \
    X(void, sync, (const Device& device))

/// Defines the names the kernel signatures use, for primitive TT and device DD (in a class).
#define BURN_KERNEL_SIGNATURE_TYPES(TT, DD)                      \
    using T = TT;                                                \
    using Device = DD;                                           \
    using TPair = std::pair<T, T>;                               \
    using OptT = std::optional<T>;                               \
    using OptScalar = std::optional<::burn::backend::ScalarArg>; \
    using Axes = std::span<const std::size_t>;                   \
    using Ranges = std::span<const SliceRange>;                  \
    using Size2 = std::array<std::size_t, 2>;                    \
    using ScalarArg = ::burn::backend::ScalarArg;                \
    using UnaryOp = ::burn::backend::UnaryOp;                    \
    using BinaryOp = ::burn::backend::BinaryOp;                  \
    using CmpOp = ::burn::backend::CmpOp;                        \
    using ReduceOp = ::burn::backend::ReduceOp;                  \
    using CumOp = ::burn::backend::CumOp;                        \
    using Activation = ::burn::backend::Activation;              \
    using SpatialArgs = ::burn::backend::SpatialArgs;

#define BURN_DETAIL_KERNEL_DECLARATION(RET, NAME, PARAMS) static RET NAME PARAMS;

/// The members of a backend's kernel-set struct: the primitive `Tensor` on `Device`, and one
/// static function per kernel of BURN_KERNELS (the backend's sources define them). A backend
/// writes, in its namespace:
///
///   BURN_KERNEL_VOCABULARY
///   struct Kernels {
///       BURN_KERNEL_SET_MEMBERS(CpuTensor, CpuDevice)
///       // optional kernels (FusedAdamKernel, ...)
///   };
#define BURN_KERNEL_SET_MEMBERS(TENSOR, DEVICE) \
    BURN_KERNEL_SIGNATURE_TYPES(TENSOR, DEVICE) \
    using Tensor = TENSOR;                      \
    BURN_KERNELS(BURN_DETAIL_KERNEL_DECLARATION)

/// The op vocabulary, usable unqualified in a backend's namespace (its sources and tests).
#define BURN_KERNEL_VOCABULARY          \
    using ::burn::backend::ScalarArg;   \
    using ::burn::backend::UnaryOp;     \
    using ::burn::backend::BinaryOp;    \
    using ::burn::backend::CmpOp;       \
    using ::burn::backend::ReduceOp;    \
    using ::burn::backend::CumOp;       \
    using ::burn::backend::Activation;  \
    using ::burn::backend::SpatialArgs; \
    using ::burn::backend::Strides;     \
    using ::burn::backend::contiguous_strides;

namespace burn::backend {

/// Names one kernel of BURN_KERNELS (capability queries of a kernel set).
enum class KernelId : std::uint8_t {
#define BURN_DETAIL_KERNEL_ID(RET, NAME, PARAMS) NAME,
    BURN_KERNELS(BURN_DETAIL_KERNEL_ID)
#undef BURN_DETAIL_KERNEL_ID
};

/// Optional trait of a kernel set: which kernels compute on f16 / bf16 tensors themselves
/// (`dtype` is F16 or BF16). Every other kernel, and every kernel of a set without the trait,
/// receives its half-precision float operands converted to f32 and its float results are
/// converted back (burn/backend/widen.hpp). `cast` between f32 and the half types is the one
/// kernel a set must implement to have half-precision tensors at all.
template <class KS>
concept HalfKernels = requires(KernelId k, DType d) {
    { KS::computes_half(k, d) } -> std::same_as<bool>;
};

namespace detail {

template <class KS, class Sig, class Call>
struct has_kernel : std::false_type {};
template <class KS, class R, class... A, class Call>
    struct has_kernel<KS, R(A...), Call> : std::bool_constant < requires(A&&... a) {
    { Call::template call<KS>(static_cast<A&&>(a)...) } -> std::same_as<R>;
} > {};

#define BURN_DETAIL_KERNEL_TAG(RET, NAME, PARAMS)                                \
    struct NAME {                                                                \
        template <class KS, class... A>                                          \
        static auto call(A&&... a) -> decltype(KS::NAME(std::forward<A>(a)...)); \
    };
namespace kernel {
BURN_KERNELS(BURN_DETAIL_KERNEL_TAG)
}  // namespace kernel
#undef BURN_DETAIL_KERNEL_TAG

template <class KS>
struct KernelSetCheck {
    BURN_KERNEL_SIGNATURE_TYPES(typename KS::Tensor, typename KS::Device)
#define BURN_DETAIL_KERNEL_REQ(RET, NAME, PARAMS) &&has_kernel<KS, RET PARAMS, kernel::NAME>::value
    static constexpr bool value = true BURN_KERNELS(BURN_DETAIL_KERNEL_REQ);
#undef BURN_DETAIL_KERNEL_REQ
    /// Instantiated by diagnose_kernel_set: one static_assert per kernel missing.
    struct Diagnose {
#define BURN_DETAIL_KERNEL_ASSERT(RET, NAME, PARAMS)                                             \
    static_assert(has_kernel<KS, RET PARAMS, kernel::NAME>::value,                               \
                  "kernel set: kernel " #NAME " is missing or does not have the signature " #RET \
                  " " #NAME #PARAMS);
        BURN_KERNELS(BURN_DETAIL_KERNEL_ASSERT)
#undef BURN_DETAIL_KERNEL_ASSERT
    };
};

}  // namespace detail

/// A kernel set: the types `Tensor` (a StridedTensor) and `Device`, and every kernel of
/// BURN_KERNELS as a static function with its signature.
template <class KS>
concept KernelSet = requires {
    typename KS::Tensor;
    typename KS::Device;
}
&&std::derived_from<typename KS::Tensor, StridedLayout>&& detail::KernelSetCheck<KS>::value;

/// For a kernel set's source file: static_assert(diagnose_kernel_set<MyKernels>()) names every
/// kernel that is missing or has another signature.
template <class KS>
constexpr bool diagnose_kernel_set() {
    (void)sizeof(typename detail::KernelSetCheck<KS>::Diagnose);
    return KernelSet<KS>;
}

/// The view of `t` as `shape` (same element count): a view where the strides allow it (shape and
/// strides rewritten), otherwise a dense copy through KS::contiguous.
template <class KS>
typename KS::Tensor reshape(typename KS::Tensor t, const Shape& shape) {
    if (auto strides = view::reshape_strides(t, shape)) {
        t.shape = shape;
        t.strides = *strides;
        return t;
    }
    auto c = KS::contiguous(std::move(t));
    c.shape = shape;
    c.strides = contiguous_strides(shape);
    return c;
}

/// Optional kernels a set may add: a one-pass Adam step (read the parameter, its gradient and
/// both moments once, write them once) where composing element-wise ops takes about a dozen
/// passes. Null moments are the first step's zeros; the kernel may write into any buffer it owns
/// alone. burn::optim::Adam uses it through Backend::fused_adam_step when the set has it.
template <class KS>
concept FusedAdamKernel = requires(typename KS::Tensor t, typename KS::Tensor* m,
                                   const AdamHyper& h) {
    { KS::adam_step(t, t, m, m, h) } -> std::same_as<AdamStepResult<typename KS::Tensor>>;
};

/// An optional kernel pair: layer normalisation over the last dim in one pass (mean and biased
/// variance per row, y = (x - mean) / sqrt(var + epsilon) * gamma (+ beta)) and its backward
/// (the row statistics recomputed from x; the gradients of x, gamma and, when asked, beta),
/// instead of the ~25 kernels the composed form takes forward and backward. nn::LayerNorm uses
/// it through Backend::fused_layer_norm when the set has it.
template <class KS>
concept FusedLayerNormKernel = requires(typename KS::Tensor t, std::optional<typename KS::Tensor> o,
                                        double eps) {
    { KS::layer_norm(t, t, o, eps) } -> std::same_as<typename KS::Tensor>;
    {
        KS::layer_norm_backward(t, t, t, eps, true)
        } -> std::same_as<LayerNormBackward<typename KS::Tensor>>;
};

}  // namespace burn::backend

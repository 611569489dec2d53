// SPDX-License-Identifier: MIT OR Apache-2.0
// The Backend op table, listed once. Every op a backend (or a decorator) provides is one entry
// of the X-macro lists below, with its signature; from them are generated:
//  - the Backend concept's checks and diagnose_backend's messages (burn/tensor/backend.hpp),
//  - the per-op tags burn::backend::op::<name> (the op's name, and a call through B),
//  - the kind table of Tensor (KindOps<B, K>::add is B::float_add or B::int_add),
//  - the int/bool forwarding of decorators (BURN_FORWARD_INT_BOOL_OPS, used by Autodiff).
// Nothing else lists the ops by hand.
//
// Per-kind lists are X(P, OP, SIG) with the prefix P (float, int or bool): the op is B::P##_##OP.
// The other lists are Y(NAME, SIG). A signature is a function type over these names, which every
// consumer defines (BURN_OP_SIGNATURE_TYPES): T the kind's primitive and S its scalar type (double
// for floats, std::int64_t for ints, bool for bools); F, I, M the float, int and bool primitives;
// Device; TI = std::pair<T, I>; OptF / OptI optional primitives; Axes, Ranges spans of dims and
// slice ranges; Size1..3 arrays of sizes; MaxPoolIdx and DeformBwd the module result structs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/module_options.hpp"
#include "burn/tensor/quantization_scheme.hpp"
#include "burn/tensor/shape.hpp"

/// Ops every kind has: data in/out, device, views, concatenation, equality.
#define BURN_BASIC_OPS(X, P)                             \
    X(P, from_data, T(const TensorData&, const Device&)) \
    X(P, into_data, TensorData(T))                       \
    X(P, device, Device(const T&))                       \
    X(P, to_device, T(T, const Device&))                 \
    X(P, shape, Shape(const T&))                         \
    X(P, empty, T(const Shape&, const Device&))          \
    X(P, reshape, T(T, const Shape&))                    \
    X(P, swap_dims, T(T, std::size_t, std::size_t))      \
    X(P, permute, T(T, Axes))                            \
    X(P, flip, T(T, Axes))                               \
    X(P, expand, T(T, const Shape&))                     \
    X(P, slice, T(T, Ranges))                            \
    X(P, slice_assign, T(T, Ranges, T))                  \
    X(P, cat, T(std::vector<T>, std::size_t))            \
    X(P, repeat_dim, T(T, std::size_t, std::size_t))     \
    X(P, equal, M(T, T))                                 \
    X(P, not_equal, M(T, T))

/// Ops of the numeric kinds (Float and Int).
#define BURN_NUMERIC_OPS(X, P)                                        \
    X(P, zeros, T(const Shape&, const Device&))                       \
    X(P, ones, T(const Shape&, const Device&))                        \
    X(P, full, T(const Shape&, S, const Device&))                     \
    X(P, random, T(const Shape&, const Distribution&, const Device&)) \
    X(P, add, T(T, T))                                                \
    X(P, sub, T(T, T))                                                \
    X(P, mul, T(T, T))                                                \
    X(P, div, T(T, T))                                                \
    X(P, remainder, T(T, T))                                          \
    X(P, add_scalar, T(T, S))                                         \
    X(P, sub_scalar, T(T, S))                                         \
    X(P, mul_scalar, T(T, S))                                         \
    X(P, div_scalar, T(T, S))                                         \
    X(P, remainder_scalar, T(T, S))                                   \
    X(P, neg, T(T))                                                   \
    X(P, abs, T(T))                                                   \
    X(P, sign, T(T))                                                  \
    X(P, max_pair, T(T, T))                                           \
    X(P, min_pair, T(T, T))                                           \
    X(P, clamp, T(T, S, S))                                           \
    X(P, clamp_min, T(T, S))                                          \
    X(P, clamp_max, T(T, S))                                          \
    X(P, greater, M(T, T))                                            \
    X(P, greater_equal, M(T, T))                                      \
    X(P, lower, M(T, T))                                              \
    X(P, lower_equal, M(T, T))                                        \
    X(P, equal_elem, M(T, S))                                         \
    X(P, not_equal_elem, M(T, S))                                     \
    X(P, greater_elem, M(T, S))                                       \
    X(P, greater_equal_elem, M(T, S))                                 \
    X(P, lower_elem, M(T, S))                                         \
    X(P, lower_equal_elem, M(T, S))                                   \
    X(P, sum, T(T))                                                   \
    X(P, sum_dim, T(T, std::size_t))                                  \
    X(P, prod, T(T))                                                  \
    X(P, prod_dim, T(T, std::size_t))                                 \
    X(P, mean_dim, T(T, std::size_t))                                 \
    X(P, max_dim, T(T, std::size_t))                                  \
    X(P, min_dim, T(T, std::size_t))                                  \
    X(P, max_dim_with_indices, TI(T, std::size_t))                    \
    X(P, min_dim_with_indices, TI(T, std::size_t))                    \
    X(P, argmax, I(T, std::size_t))                                   \
    X(P, argmin, I(T, std::size_t))                                   \
    X(P, gather, T(std::size_t, T, I))                                \
    X(P, scatter, T(std::size_t, T, I, T))                            \
    X(P, select, T(T, std::size_t, I))                                \
    X(P, select_assign, T(T, std::size_t, I, T))                      \
    X(P, mask_where, T(T, M, T))                                      \
    X(P, mask_fill, T(T, M, S))                                       \
    X(P, sort, T(T, std::size_t, bool))                               \
    X(P, sort_with_indices, TI(T, std::size_t, bool))                 \
    X(P, argsort, I(T, std::size_t, bool))                            \
    X(P, cumsum, T(T, std::size_t))                                   \
    X(P, cumprod, T(T, std::size_t))                                  \
    X(P, cummin, T(T, std::size_t))                                   \
    X(P, cummax, T(T, std::size_t))

/// Int-only ops that stay within int primitives.
#define BURN_INT_ONLY_OPS(X, P)                                              \
    X(P, arange, I(std::int64_t, std::int64_t, std::int64_t, const Device&)) \
    X(P, powi, I(I, I))                                                      \
    X(P, powi_scalar, I(I, std::int64_t))

/// Bool-only ops that stay within int and bool primitives.
#define BURN_BOOL_ONLY_OPS(X, P)     \
    X(P, not, M(M))                  \
    X(P, and, M(M, M))               \
    X(P, or, M(M, M))                \
    X(P, into_int, I(M))             \
    X(P, any, M(M))                  \
    X(P, all, M(M))                  \
    X(P, any_dim, M(M, std::size_t)) \
    X(P, all_dim, M(M, std::size_t)) \
    X(P, argwhere, I(M))

/// Float-only ops: math functions, matmul, the float dtype of a tensor (f32, f16, bf16, f64, or
/// QInt8 when quantized) and the conversion to another float dtype, and the conversions between
/// floats and the other kinds.
#define BURN_FLOAT_ONLY_OPS(Y)         \
    Y(float_exp, F(F))                 \
    Y(float_log, F(F))                 \
    Y(float_log1p, F(F))               \
    Y(float_erf, F(F))                 \
    Y(float_sqrt, F(F))                \
    Y(float_recip, F(F))               \
    Y(float_sin, F(F))                 \
    Y(float_cos, F(F))                 \
    Y(float_tanh, F(F))                \
    Y(float_round, F(F))               \
    Y(float_floor, F(F))               \
    Y(float_ceil, F(F))                \
    Y(float_powf, F(F, F))             \
    Y(float_powf_scalar, F(F, double)) \
    Y(float_matmul, F(F, F))           \
    Y(float_is_nan, M(F))              \
    Y(float_dtype, DType(const F&))    \
    Y(float_cast, F(F, DType))         \
    Y(float_into_int, I(F))            \
    Y(int_into_float, F(I))            \
    Y(bool_into_float, F(M))

#define BURN_CONV_OPS(Y, N)                                                             \
    Y(conv##N##d, F(F, F, OptF, const ConvOptions<N>&))                                 \
    Y(conv##N##d_x_backward, F(F, F, F, const ConvOptions<N>&))                         \
    Y(conv##N##d_weight_backward, F(F, F, F, const ConvOptions<N>&))                    \
    Y(conv##N##d_bias_backward, F(F, F, F))                                             \
    Y(conv_transpose##N##d, F(F, F, OptF, const ConvTransposeOptions<N>&))              \
    Y(conv_transpose##N##d_x_backward, F(F, F, F, const ConvTransposeOptions<N>&))      \
    Y(conv_transpose##N##d_weight_backward, F(F, F, F, const ConvTransposeOptions<N>&)) \
    Y(conv_transpose##N##d_bias_backward, F(F, F, F))

#define BURN_POOL_OPS(Y, N)                                                 \
    Y(avg_pool##N##d, F(F, const AvgPoolOptions<N>&))                       \
    Y(avg_pool##N##d_backward, F(F, F, const AvgPoolOptions<N>&))           \
    Y(max_pool##N##d, F(F, const MaxPoolOptions<N>&))                       \
    Y(max_pool##N##d_with_indices, MaxPoolIdx(F, const MaxPoolOptions<N>&)) \
    Y(max_pool##N##d_with_indices_backward, F(F, const MaxPoolOptions<N>&, F, I))

/// Module ops (Burn's ModuleOps) with the backward kernels Autodiff calls.
#define BURN_MODULE_OPS(Y)                                                                    \
    BURN_CONV_OPS(Y, 1)                                                                       \
    BURN_CONV_OPS(Y, 2)                                                                       \
    BURN_CONV_OPS(Y, 3)                                                                       \
    BURN_POOL_OPS(Y, 1)                                                                       \
    BURN_POOL_OPS(Y, 2)                                                                       \
    Y(adaptive_avg_pool1d, F(F, const Size1&))                                                \
    Y(adaptive_avg_pool2d, F(F, const Size2&))                                                \
    Y(adaptive_avg_pool3d, F(F, const Size3&))                                                \
    Y(adaptive_avg_pool1d_backward, F(F, F))                                                  \
    Y(adaptive_avg_pool2d_backward, F(F, F))                                                  \
    Y(adaptive_avg_pool3d_backward, F(F, F))                                                  \
    Y(deform_conv2d, F(F, F, F, OptF, OptF, const DeformConvOptions<2>&))                     \
    Y(deform_conv2d_backward, DeformBwd(F, F, F, OptF, OptF, F, const DeformConvOptions<2>&)) \
    Y(unfold4d, F(F, const Size2&, const UnfoldOptions&))                                     \
    Y(interpolate, F(F, const Size2&, const InterpolateOptions&))                             \
    Y(interpolate_backward, F(F, F, const Size2&, const InterpolateOptions&))                 \
    Y(embedding, F(F, I))                                                                     \
    Y(embedding_backward, F(F, F, I))

/// Activations (Burn's ActivationOps, plus softmax / log_softmax along a dim). The backward
/// helpers take the forward's output (relu, sigmoid) or input (gelu, log_sigmoid), then the
/// output gradient.
#define BURN_ACTIVATION_OPS_LIST(Y)       \
    Y(relu, F(F))                         \
    Y(relu_backward, F(F, F))             \
    Y(gelu, F(F))                         \
    Y(gelu_backward, F(F, F))             \
    Y(sigmoid, F(F))                      \
    Y(sigmoid_backward, F(F, F))          \
    Y(log_sigmoid, F(F))                  \
    Y(log_sigmoid_backward, F(F, F))      \
    Y(hard_sigmoid, F(F, double, double)) \
    Y(leaky_relu, F(F, double))           \
    Y(softmax, F(F, std::size_t))         \
    Y(log_softmax, F(F, std::size_t))

/// Quantization (Burn's QTensorOps, reduced to what the float API needs). `quantize` returns a
/// quantized float primitive (int8 values + parameters): `scale` holds one value per range, the
/// optional int primitive the zero points (affine schemes). Other float ops accept quantized
/// primitives and compute on their dequantized values; float_into_data of a quantized primitive
/// returns QInt8 TensorData and float_from_data of QInt8 data makes a quantized primitive.
#define BURN_QUANTIZATION_OPS(Y)                          \
    Y(quantize, F(F, const QuantizationScheme&, F, OptI)) \
    Y(dequantize, F(F))                                   \
    Y(float_is_quantized, bool(const F&))

/// Backend-wide functions: the random seed, and waiting for a device's queued work.
#define BURN_CONTROL_OPS(Y)      \
    Y(seed, void(std::uint64_t)) \
    Y(sync, void(const Device&))

/// Defines the names the signatures use, in a scope where `B` is the backend (T and S: the kind).
#define BURN_OP_SIGNATURE_TYPES(TT, SS)          \
    using T = TT;                                \
    using S = SS;                                \
    using F = typename B::FloatTensor;           \
    using I = typename B::IntTensor;             \
    using M = typename B::BoolTensor;            \
    using Device = typename B::Device;           \
    using TI = std::pair<T, I>;                  \
    using OptF = std::optional<F>;               \
    using OptI = std::optional<I>;               \
    using Axes = std::span<const std::size_t>;   \
    using Ranges = std::span<const SliceRange>;  \
    using Size1 = std::array<std::size_t, 1>;    \
    using Size2 = std::array<std::size_t, 2>;    \
    using Size3 = std::array<std::size_t, 3>;    \
    using MaxPoolIdx = MaxPoolWithIndices<F, I>; \
    using DeformBwd = DeformConv2dBackward<F>;

/// In a decorator whose int and bool primitives are those of `INNER`: forwards every op that
/// takes and returns only int and bool primitives (and host values) to INNER unchanged.
#define BURN_FORWARD_INT_BOOL_OPS(INNER)                      \
    BURN_BASIC_OPS(BURN_DETAIL_FORWARD_OP_TO_##INNER, int)    \
    BURN_NUMERIC_OPS(BURN_DETAIL_FORWARD_OP_TO_##INNER, int)  \
    BURN_INT_ONLY_OPS(BURN_DETAIL_FORWARD_OP_TO_##INNER, int) \
    BURN_BASIC_OPS(BURN_DETAIL_FORWARD_OP_TO_##INNER, bool)   \
    BURN_BOOL_ONLY_OPS(BURN_DETAIL_FORWARD_OP_TO_##INNER, bool)
/// The forwarding of one op (BURN_FORWARD_INT_BOOL_OPS(B) calls INNER `B`).
#define BURN_DETAIL_FORWARD_OP_TO_B(P, OP, SIG)    \
    template <class... A>                          \
    static decltype(auto) P##_##OP(A&&... a) {     \
        return B::P##_##OP(std::forward<A>(a)...); \
    }

namespace burn::backend {

/// One tag per op of the table: `op::float_add::name` is "float_add", and
/// `op::float_add::call<B>(args...)` calls B::float_add. Decorators that record ops and tools
/// that list them use these.
namespace op {
#define BURN_DETAIL_OP_TAG(NAME, SIG)                                            \
    struct NAME {                                                                \
        static constexpr const char* name = #NAME;                               \
        template <class B, class... A>                                           \
        static auto call(A&&... a) -> decltype(B::NAME(std::forward<A>(a)...)) { \
            return B::NAME(std::forward<A>(a)...);                               \
        }                                                                        \
    };
#define BURN_DETAIL_KIND_OP_TAG(P, OP, SIG) BURN_DETAIL_OP_TAG(P##_##OP, SIG)
BURN_BASIC_OPS(BURN_DETAIL_KIND_OP_TAG, float)
BURN_BASIC_OPS(BURN_DETAIL_KIND_OP_TAG, int)
BURN_BASIC_OPS(BURN_DETAIL_KIND_OP_TAG, bool)
BURN_NUMERIC_OPS(BURN_DETAIL_KIND_OP_TAG, float)
BURN_NUMERIC_OPS(BURN_DETAIL_KIND_OP_TAG, int)
BURN_INT_ONLY_OPS(BURN_DETAIL_KIND_OP_TAG, int)
BURN_BOOL_ONLY_OPS(BURN_DETAIL_KIND_OP_TAG, bool)
BURN_FLOAT_ONLY_OPS(BURN_DETAIL_OP_TAG)
BURN_MODULE_OPS(BURN_DETAIL_OP_TAG)
BURN_ACTIVATION_OPS_LIST(BURN_DETAIL_OP_TAG)
BURN_QUANTIZATION_OPS(BURN_DETAIL_OP_TAG)
BURN_CONTROL_OPS(BURN_DETAIL_OP_TAG)
#undef BURN_DETAIL_OP_TAG
#undef BURN_DETAIL_KIND_OP_TAG
}  // namespace op

namespace detail {

/// Whether B has the op `Op` with the signature `Sig` (arguments of the listed types and value
/// categories accepted, the listed return type exactly).
template <class Op, class B, class Sig>
struct has_op : std::false_type {};
template <class Op, class B, class R, class... A>
    struct has_op<Op, B, R(A...)> : std::bool_constant < requires(A&&... a) {
    { Op::template call<B>(static_cast<A&&>(a)...) } -> std::same_as<R>;
} > {};

}  // namespace detail
}  // namespace burn::backend

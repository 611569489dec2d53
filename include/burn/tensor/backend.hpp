// SPDX-License-Identifier: MIT OR Apache-2.0
// The Backend concept: the compile-time interface every backend (and decorator) implements.
//
// Layered as two concepts:
//  - BackendTypes<B>: cheap (associated types + name); it guards Tensor<B, D, K>.
//  - Backend<B>: the whole op table. A backend checks it once, in its own source file, with
//    `static_assert(burn::Backend<MyBackend>)`; `diagnose_backend<B>()` names the first op missing.
//
// Primitives carry a run-time shape; the rank lives only in Tensor. Data enters and leaves a
// backend only as TensorData, so a backend's memory need not be host-accessible.
#pragma once

#include <array>
#include <concepts>
#include <optional>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/module_options.hpp"
#include "burn/tensor/shape.hpp"

namespace burn {

/// Associated types: devices, the three primitive handles and the element types.
template <class B>
concept BackendTypes = requires {
    typename B::Device;
    typename B::FloatTensor;
    typename B::IntTensor;
    typename B::BoolTensor;
    typename B::FloatElem;
    typename B::IntElem;
    { B::name() } -> std::convertible_to<std::string>;
} && std::copyable<typename B::FloatTensor> && std::copyable<typename B::IntTensor> &&
    std::copyable<typename B::BoolTensor> && std::equality_comparable<typename B::Device> &&
    std::default_initializable<typename B::Device>;

namespace concepts {

using Axes = std::span<const std::size_t>;
using Ranges = std::span<const SliceRange>;

/// Ops every kind has: data in/out, device, shape manipulation, concatenation, equality.
/// Spelled for one prefix through the macro below, once per kind.
#define BURN_BASIC_OPS_CONCEPT(NAME, P, T)                                                       \
    template <class B>                                                                           \
    concept NAME = requires(T t, const T& ct, const typename B::Device& dev, TensorData data,     \
                            Shape shape, Axes axes, Ranges ranges, std::vector<T> many,          \
                            std::size_t d) {                                                     \
        { B::P##_from_data(data, dev) } -> std::same_as<T>;                                      \
        { B::P##_into_data(t) } -> std::same_as<TensorData>;                                     \
        { B::P##_device(ct) } -> std::same_as<typename B::Device>;                               \
        { B::P##_to_device(t, dev) } -> std::same_as<T>;                                         \
        { B::P##_shape(ct) } -> std::same_as<Shape>;                                             \
        { B::P##_empty(shape, dev) } -> std::same_as<T>;                                         \
        { B::P##_reshape(t, shape) } -> std::same_as<T>;                                         \
        { B::P##_swap_dims(t, d, d) } -> std::same_as<T>;                                        \
        { B::P##_permute(t, axes) } -> std::same_as<T>;                                          \
        { B::P##_flip(t, axes) } -> std::same_as<T>;                                             \
        { B::P##_expand(t, shape) } -> std::same_as<T>;                                          \
        { B::P##_slice(t, ranges) } -> std::same_as<T>;                                          \
        { B::P##_slice_assign(t, ranges, t) } -> std::same_as<T>;                                \
        { B::P##_cat(many, d) } -> std::same_as<T>;                                              \
        { B::P##_repeat_dim(t, d, d) } -> std::same_as<T>;                                       \
        { B::P##_equal(t, t) } -> std::same_as<typename B::BoolTensor>;                          \
        { B::P##_not_equal(t, t) } -> std::same_as<typename B::BoolTensor>;                      \
    };

BURN_BASIC_OPS_CONCEPT(FloatBasicOps, float, typename B::FloatTensor)
BURN_BASIC_OPS_CONCEPT(IntBasicOps, int, typename B::IntTensor)
BURN_BASIC_OPS_CONCEPT(BoolBasicOps, bool, typename B::BoolTensor)

/// Ops of the numeric kinds (Float and Int); S is the scalar type at the boundary
/// (double for floats, std::int64_t for ints).
#define BURN_NUMERIC_OPS_CONCEPT(NAME, P, T, S)                                                  \
    template <class B>                                                                           \
    concept NAME = requires(T t, const typename B::Device& dev, Shape shape, S s, std::size_t d, \
                            typename B::IntTensor idx, typename B::BoolTensor mask,              \
                            Distribution dist, bool flag) {                                      \
        { B::P##_zeros(shape, dev) } -> std::same_as<T>;                                         \
        { B::P##_ones(shape, dev) } -> std::same_as<T>;                                          \
        { B::P##_full(shape, s, dev) } -> std::same_as<T>;                                       \
        { B::P##_random(shape, dist, dev) } -> std::same_as<T>;                                  \
        { B::P##_add(t, t) } -> std::same_as<T>;                                                 \
        { B::P##_sub(t, t) } -> std::same_as<T>;                                                 \
        { B::P##_mul(t, t) } -> std::same_as<T>;                                                 \
        { B::P##_div(t, t) } -> std::same_as<T>;                                                 \
        { B::P##_remainder(t, t) } -> std::same_as<T>;                                           \
        { B::P##_add_scalar(t, s) } -> std::same_as<T>;                                          \
        { B::P##_sub_scalar(t, s) } -> std::same_as<T>;                                          \
        { B::P##_mul_scalar(t, s) } -> std::same_as<T>;                                          \
        { B::P##_div_scalar(t, s) } -> std::same_as<T>;                                          \
        { B::P##_remainder_scalar(t, s) } -> std::same_as<T>;                                    \
        { B::P##_neg(t) } -> std::same_as<T>;                                                    \
        { B::P##_abs(t) } -> std::same_as<T>;                                                    \
        { B::P##_sign(t) } -> std::same_as<T>;                                                   \
        { B::P##_max_pair(t, t) } -> std::same_as<T>;                                            \
        { B::P##_min_pair(t, t) } -> std::same_as<T>;                                            \
        { B::P##_clamp(t, s, s) } -> std::same_as<T>;                                            \
        { B::P##_clamp_min(t, s) } -> std::same_as<T>;                                           \
        { B::P##_clamp_max(t, s) } -> std::same_as<T>;                                           \
        { B::P##_greater(t, t) } -> std::same_as<typename B::BoolTensor>;                        \
        { B::P##_greater_equal(t, t) } -> std::same_as<typename B::BoolTensor>;                  \
        { B::P##_lower(t, t) } -> std::same_as<typename B::BoolTensor>;                          \
        { B::P##_lower_equal(t, t) } -> std::same_as<typename B::BoolTensor>;                    \
        { B::P##_equal_elem(t, s) } -> std::same_as<typename B::BoolTensor>;                     \
        { B::P##_not_equal_elem(t, s) } -> std::same_as<typename B::BoolTensor>;                 \
        { B::P##_greater_elem(t, s) } -> std::same_as<typename B::BoolTensor>;                   \
        { B::P##_greater_equal_elem(t, s) } -> std::same_as<typename B::BoolTensor>;             \
        { B::P##_lower_elem(t, s) } -> std::same_as<typename B::BoolTensor>;                     \
        { B::P##_lower_equal_elem(t, s) } -> std::same_as<typename B::BoolTensor>;               \
        { B::P##_sum(t) } -> std::same_as<T>;                                                    \
        { B::P##_sum_dim(t, d) } -> std::same_as<T>;                                             \
        { B::P##_prod(t) } -> std::same_as<T>;                                                   \
        { B::P##_prod_dim(t, d) } -> std::same_as<T>;                                            \
        { B::P##_mean_dim(t, d) } -> std::same_as<T>;                                            \
        { B::P##_max_dim(t, d) } -> std::same_as<T>;                                             \
        { B::P##_min_dim(t, d) } -> std::same_as<T>;                                             \
        { B::P##_max_dim_with_indices(t, d) } -> std::same_as<std::pair<T, typename B::IntTensor>>; \
        { B::P##_min_dim_with_indices(t, d) } -> std::same_as<std::pair<T, typename B::IntTensor>>; \
        { B::P##_argmax(t, d) } -> std::same_as<typename B::IntTensor>;                          \
        { B::P##_argmin(t, d) } -> std::same_as<typename B::IntTensor>;                          \
        { B::P##_gather(d, t, idx) } -> std::same_as<T>;                                         \
        { B::P##_scatter(d, t, idx, t) } -> std::same_as<T>;                                     \
        { B::P##_select(t, d, idx) } -> std::same_as<T>;                                         \
        { B::P##_select_assign(t, d, idx, t) } -> std::same_as<T>;                               \
        { B::P##_mask_where(t, mask, t) } -> std::same_as<T>;                                    \
        { B::P##_mask_fill(t, mask, s) } -> std::same_as<T>;                                     \
        { B::P##_sort(t, d, flag) } -> std::same_as<T>;                                          \
        { B::P##_sort_with_indices(t, d, flag) } -> std::same_as<std::pair<T, typename B::IntTensor>>; \
        { B::P##_argsort(t, d, flag) } -> std::same_as<typename B::IntTensor>;                   \
        { B::P##_cumsum(t, d) } -> std::same_as<T>;                                              \
        { B::P##_cumprod(t, d) } -> std::same_as<T>;                                             \
        { B::P##_cummin(t, d) } -> std::same_as<T>;                                              \
        { B::P##_cummax(t, d) } -> std::same_as<T>;                                              \
    };

BURN_NUMERIC_OPS_CONCEPT(FloatNumericOps, float, typename B::FloatTensor, double)
BURN_NUMERIC_OPS_CONCEPT(IntNumericOps, int, typename B::IntTensor, std::int64_t)

#undef BURN_BASIC_OPS_CONCEPT
#undef BURN_NUMERIC_OPS_CONCEPT

/// Float-only ops: math functions, matmul, conversions.
template <class B>
concept FloatOps = requires(typename B::FloatTensor t, double s, std::int64_t i) {
    { B::float_exp(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_log(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_log1p(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_erf(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_sqrt(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_recip(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_sin(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_cos(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_tanh(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_round(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_floor(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_ceil(t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_powf(t, t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_powf_scalar(t, s) } -> std::same_as<typename B::FloatTensor>;
    { B::float_matmul(t, t) } -> std::same_as<typename B::FloatTensor>;
    { B::float_into_int(t) } -> std::same_as<typename B::IntTensor>;
    { B::float_is_nan(t) } -> std::same_as<typename B::BoolTensor>;
};

/// Int-only ops.
template <class B>
concept IntOps = requires(typename B::IntTensor t, std::int64_t s, const typename B::Device& dev) {
    { B::int_into_float(t) } -> std::same_as<typename B::FloatTensor>;
    { B::int_arange(s, s, s, dev) } -> std::same_as<typename B::IntTensor>;
    { B::int_powi(t, t) } -> std::same_as<typename B::IntTensor>;
    { B::int_powi_scalar(t, s) } -> std::same_as<typename B::IntTensor>;
};

/// Bool-only ops.
template <class B>
concept BoolOps = requires(typename B::BoolTensor t, std::size_t d) {
    { B::bool_not(t) } -> std::same_as<typename B::BoolTensor>;
    { B::bool_and(t, t) } -> std::same_as<typename B::BoolTensor>;
    { B::bool_or(t, t) } -> std::same_as<typename B::BoolTensor>;
    { B::bool_into_int(t) } -> std::same_as<typename B::IntTensor>;
    { B::bool_into_float(t) } -> std::same_as<typename B::FloatTensor>;
    { B::bool_any(t) } -> std::same_as<typename B::BoolTensor>;
    { B::bool_all(t) } -> std::same_as<typename B::BoolTensor>;
    { B::bool_any_dim(t, d) } -> std::same_as<typename B::BoolTensor>;
    { B::bool_all_dim(t, d) } -> std::same_as<typename B::BoolTensor>;
    { B::bool_argwhere(t) } -> std::same_as<typename B::IntTensor>;
};

/// Module ops (Burn's ModuleOps): convolutions, pooling, interpolation, embedding, each with the
/// backward kernels that Autodiff calls. Options are the structs of module_options.hpp; an
/// optional bias or mask is a std::optional primitive.
#define BURN_CONV_OPS_REQ(N)                                                                     \
    { B::conv##N##d(t, t, ob, ConvOptions<N>{}) } -> std::same_as<T>;                           \
    { B::conv##N##d_x_backward(t, t, t, ConvOptions<N>{}) } -> std::same_as<T>;                  \
    { B::conv##N##d_weight_backward(t, t, t, ConvOptions<N>{}) } -> std::same_as<T>;             \
    { B::conv##N##d_bias_backward(t, t, t) } -> std::same_as<T>;                                 \
    { B::conv_transpose##N##d(t, t, ob, ConvTransposeOptions<N>{}) } -> std::same_as<T>;         \
    { B::conv_transpose##N##d_x_backward(t, t, t, ConvTransposeOptions<N>{}) } -> std::same_as<T>; \
    { B::conv_transpose##N##d_weight_backward(t, t, t, ConvTransposeOptions<N>{}) } -> std::same_as<T>; \
    { B::conv_transpose##N##d_bias_backward(t, t, t) } -> std::same_as<T>;

#define BURN_POOL_OPS_REQ(N)                                                                     \
    { B::avg_pool##N##d(t, AvgPoolOptions<N>{}) } -> std::same_as<T>;                            \
    { B::avg_pool##N##d_backward(t, t, AvgPoolOptions<N>{}) } -> std::same_as<T>;                \
    { B::max_pool##N##d(t, MaxPoolOptions<N>{}) } -> std::same_as<T>;                            \
    { B::max_pool##N##d_with_indices(t, MaxPoolOptions<N>{}) }                                   \
        -> std::same_as<MaxPoolWithIndices<T, I>>;                                               \
    { B::max_pool##N##d_with_indices_backward(t, MaxPoolOptions<N>{}, t, idx) } -> std::same_as<T>; \
    { B::adaptive_avg_pool##N##d(t, std::array<std::size_t, N>{}) } -> std::same_as<T>;          \
    { B::adaptive_avg_pool##N##d_backward(t, t) } -> std::same_as<T>;

template <class B, class T = typename B::FloatTensor, class I = typename B::IntTensor>
concept ModuleOps = requires(T t, std::optional<T> ob, I idx, std::array<std::size_t, 2> size2) {
    BURN_CONV_OPS_REQ(1)
    BURN_CONV_OPS_REQ(2)
    BURN_CONV_OPS_REQ(3)
    BURN_POOL_OPS_REQ(1)
    BURN_POOL_OPS_REQ(2)
    { B::adaptive_avg_pool3d(t, std::array<std::size_t, 3>{}) } -> std::same_as<T>;
    { B::adaptive_avg_pool3d_backward(t, t) } -> std::same_as<T>;
    { B::deform_conv2d(t, t, t, ob, ob, DeformConvOptions<2>{}) } -> std::same_as<T>;
    { B::deform_conv2d_backward(t, t, t, ob, ob, t, DeformConvOptions<2>{}) }
        -> std::same_as<DeformConv2dBackward<T>>;
    { B::unfold4d(t, size2, UnfoldOptions{}) } -> std::same_as<T>;
    { B::interpolate(t, size2, InterpolateOptions{}) } -> std::same_as<T>;
    { B::interpolate_backward(t, t, size2, InterpolateOptions{}) } -> std::same_as<T>;
    { B::embedding(t, idx) } -> std::same_as<T>;
    { B::embedding_backward(t, t, idx) } -> std::same_as<T>;
};

#undef BURN_CONV_OPS_REQ
#undef BURN_POOL_OPS_REQ

/// Activation kernels (Burn's ActivationOps, plus softmax / log_softmax along a dim). The
/// backward helpers take the forward's output (relu, sigmoid) or input (gelu, log_sigmoid).
template <class B, class T = typename B::FloatTensor>
concept ActivationOps = requires(T t, double s, std::size_t d) {
    { B::relu(t) } -> std::same_as<T>;
    { B::relu_backward(t, t) } -> std::same_as<T>;
    { B::gelu(t) } -> std::same_as<T>;
    { B::gelu_backward(t, t) } -> std::same_as<T>;
    { B::sigmoid(t) } -> std::same_as<T>;
    { B::sigmoid_backward(t, t) } -> std::same_as<T>;
    { B::log_sigmoid(t) } -> std::same_as<T>;
    { B::log_sigmoid_backward(t, t) } -> std::same_as<T>;
    { B::hard_sigmoid(t, s, s) } -> std::same_as<T>;
    { B::leaky_relu(t, s) } -> std::same_as<T>;
    { B::softmax(t, d) } -> std::same_as<T>;
    { B::log_softmax(t, d) } -> std::same_as<T>;
};

/// Quantization (Burn's QTensorOps, reduced to what the float API needs). `quantize` returns a
/// quantized float primitive (int8 values + the parameters); `scale` holds one value per range
/// (1, or shape[axis] for per-channel schemes) and `offset` the matching zero points (affine
/// schemes only). Other float ops accept quantized primitives and compute on their dequantized
/// values, returning ordinary float primitives; float_into_data of a quantized primitive returns
/// QInt8 TensorData and float_from_data of QInt8 TensorData makes a quantized primitive.
template <class B, class T = typename B::FloatTensor>
concept QuantizationOps = requires(T t, const T& ct, const QuantizationScheme& scheme,
                                   std::optional<typename B::IntTensor> offset) {
    { B::quantize(t, scheme, t, offset) } -> std::same_as<T>;
    { B::dequantize(t) } -> std::same_as<T>;
    { B::float_is_quantized(ct) } -> std::same_as<bool>;
};

/// Backend-wide functions.
template <class B>
concept BackendControl = requires(const typename B::Device& dev, std::uint64_t seed) {
    B::seed(seed);
    B::sync(dev);
};

}  // namespace concepts

/// A complete backend: every op that Tensor<B, D, K> may call.
template <class B>
concept Backend = BackendTypes<B> && concepts::FloatBasicOps<B> && concepts::IntBasicOps<B> &&
                  concepts::BoolBasicOps<B> && concepts::FloatNumericOps<B> &&
                  concepts::IntNumericOps<B> && concepts::FloatOps<B> && concepts::IntOps<B> &&
                  concepts::BoolOps<B> && concepts::ModuleOps<B> && concepts::ActivationOps<B> &&
                  concepts::QuantizationOps<B> && concepts::BackendControl<B>;

/// A backend that records operations and computes gradients (implemented by Autodiff<B>):
/// Burn's AutodiffBackend. Its inner backend computes the values; gradients are primitives of it.
template <class B>
concept AutodiffBackend =
    Backend<B> && requires { typename B::InnerBackend; typename B::Gradients; } &&
    Backend<typename B::InnerBackend> &&
    requires(typename B::FloatTensor t, const typename B::FloatTensor& ct, bool flag,
             typename B::Gradients grads, const typename B::Gradients& cgrads,
             typename B::InnerBackend::FloatTensor inner, typename B::IntTensor it,
             typename B::BoolTensor bt) {
        { B::backward(t) } -> std::same_as<typename B::Gradients>;
        { B::grad(ct, cgrads) } -> std::same_as<std::optional<typename B::InnerBackend::FloatTensor>>;
        { B::grad_remove(ct, grads) } -> std::same_as<std::optional<typename B::InnerBackend::FloatTensor>>;
        B::grad_replace(ct, grads, inner);
        { B::float_set_require_grad(t, flag) } -> std::same_as<typename B::FloatTensor>;
        { B::float_is_require_grad(ct) } -> std::same_as<bool>;
        { B::float_detach(t) } -> std::same_as<typename B::FloatTensor>;
        { B::inner(t) } -> std::same_as<typename B::InnerBackend::FloatTensor>;
        { B::int_inner(it) } -> std::same_as<typename B::InnerBackend::IntTensor>;
        { B::bool_inner(bt) } -> std::same_as<typename B::InnerBackend::BoolTensor>;
        { B::from_inner(inner) } -> std::same_as<typename B::FloatTensor>;
    };

/// Call in a backend's source file: the first unmet group is named by the static_assert.
template <class B>
constexpr bool diagnose_backend() {
    static_assert(BackendTypes<B>, "backend: missing associated types (Device, FloatTensor, "
                                   "IntTensor, BoolTensor, FloatElem, IntElem) or name()");
    static_assert(concepts::FloatBasicOps<B>, "backend: a float_ basic op is missing (from_data, "
                                              "into_data, reshape, slice, cat, ...)");
    static_assert(concepts::IntBasicOps<B>, "backend: an int_ basic op is missing");
    static_assert(concepts::BoolBasicOps<B>, "backend: a bool_ basic op is missing");
    static_assert(concepts::FloatNumericOps<B>, "backend: a float_ numeric op is missing (add, "
                                                "sum_dim, gather, sort, ...)");
    static_assert(concepts::IntNumericOps<B>, "backend: an int_ numeric op is missing");
    static_assert(concepts::FloatOps<B>, "backend: a float-only op is missing (exp, matmul, ...)");
    static_assert(concepts::IntOps<B>, "backend: an int-only op is missing (arange, into_float, ...)");
    static_assert(concepts::BoolOps<B>, "backend: a bool-only op is missing (not, argwhere, ...)");
    static_assert(concepts::ModuleOps<B>, "backend: a module op is missing (conv2d, max_pool2d, "
                                          "interpolate, embedding, their backward, ...)");
    static_assert(concepts::ActivationOps<B>, "backend: an activation op is missing (relu, gelu, "
                                              "sigmoid, softmax, their backward, ...)");
    static_assert(concepts::QuantizationOps<B>, "backend: a quantization op is missing (quantize, "
                                                "dequantize, float_is_quantized)");
    static_assert(concepts::BackendControl<B>, "backend: seed(u64) or sync(device) is missing");
    return true;
}

}  // namespace burn

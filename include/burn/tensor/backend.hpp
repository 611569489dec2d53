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

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
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
                  concepts::BoolOps<B> && concepts::BackendControl<B>;

/// A backend that records operations and computes gradients (implemented by Autodiff<B>).
template <class B>
concept AutodiffBackend = Backend<B> && requires { typename B::InnerBackend; typename B::Gradients; };

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
    static_assert(concepts::BackendControl<B>, "backend: seed(u64) or sync(device) is missing");
    return true;
}

}  // namespace burn

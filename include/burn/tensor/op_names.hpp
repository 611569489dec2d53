// SPDX-License-Identifier: MIT OR Apache-2.0
// The names of the per-kind backend ops, as X-macro lists, so that code which forwards whole op
// groups (the kind table of Tensor, decorators such as Autodiff that pass int and bool ops
// straight through) spells each list once. X(P, OP) is called with the kind prefix P (float, int
// or bool) and the op name OP; the backend function is P##_##OP.
#pragma once

/// Ops every kind has (concepts::FloatBasicOps / IntBasicOps / BoolBasicOps).
#define BURN_BASIC_OP_NAMES(X, P)                                                                \
    X(P, from_data) X(P, into_data) X(P, device) X(P, to_device) X(P, shape) X(P, empty)        \
    X(P, reshape) X(P, swap_dims) X(P, permute) X(P, flip) X(P, expand) X(P, slice)             \
    X(P, slice_assign) X(P, cat) X(P, repeat_dim) X(P, equal) X(P, not_equal)

/// Ops of the numeric kinds (concepts::FloatNumericOps / IntNumericOps).
#define BURN_NUMERIC_OP_NAMES(X, P)                                                              \
    X(P, zeros) X(P, ones) X(P, full) X(P, random) X(P, add) X(P, sub) X(P, mul) X(P, div)      \
    X(P, remainder) X(P, add_scalar) X(P, sub_scalar) X(P, mul_scalar) X(P, div_scalar)         \
    X(P, remainder_scalar) X(P, neg) X(P, abs) X(P, sign) X(P, max_pair) X(P, min_pair)         \
    X(P, clamp) X(P, clamp_min) X(P, clamp_max) X(P, greater) X(P, greater_equal) X(P, lower)   \
    X(P, lower_equal) X(P, equal_elem) X(P, not_equal_elem) X(P, greater_elem)                  \
    X(P, greater_equal_elem) X(P, lower_elem) X(P, lower_equal_elem) X(P, sum) X(P, sum_dim)    \
    X(P, prod) X(P, prod_dim) X(P, mean_dim) X(P, max_dim) X(P, min_dim)                        \
    X(P, max_dim_with_indices) X(P, min_dim_with_indices) X(P, argmax) X(P, argmin)             \
    X(P, gather) X(P, scatter) X(P, select) X(P, select_assign) X(P, mask_where)                \
    X(P, mask_fill) X(P, sort) X(P, sort_with_indices) X(P, argsort) X(P, cumsum)               \
    X(P, cumprod) X(P, cummin) X(P, cummax)

/// Int-only ops that stay within int and bool primitives (int_into_float is not listed).
#define BURN_INT_ONLY_OP_NAMES(X, P) X(P, arange) X(P, powi) X(P, powi_scalar)

/// Bool-only ops that stay within int and bool primitives (bool_into_float is not listed).
#define BURN_BOOL_ONLY_OP_NAMES(X, P)                                                            \
    X(P, not ) X(P, and ) X(P, or ) X(P, into_int) X(P, any) X(P, all) X(P, any_dim)            \
    X(P, all_dim) X(P, argwhere)

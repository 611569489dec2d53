// SPDX-License-Identifier: MIT OR Apache-2.0
// Tensor kinds (Float, Int, Bool) and the table that maps a generic op name to the backend op of
// the kind: KindOps<B, Float>::add is B::float_add, KindOps<B, Int>::add is B::int_add.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "burn/tensor/dtype.hpp"

namespace burn {

/// Tensor kind tags.
struct Float {
    static constexpr std::string_view name = "Float";
};
struct Int {
    static constexpr std::string_view name = "Int";
};
struct Bool {
    static constexpr std::string_view name = "Bool";
};

template <class K>
concept TensorKind = std::same_as<K, Float> || std::same_as<K, Int> || std::same_as<K, Bool>;
/// Float and Int: the kinds with arithmetic.
template <class K>
concept NumericKind = std::same_as<K, Float> || std::same_as<K, Int>;

template <class B, class K>
struct KindOps;

#define BURN_FORWARD(OP, P)                                          \
    template <class... A>                                            \
    static decltype(auto) OP(A&&... a) {                             \
        return B::P##_##OP(std::forward<A>(a)...);                   \
    }

#define BURN_BASIC_FORWARDS(P)                                                                   \
    BURN_FORWARD(from_data, P) BURN_FORWARD(into_data, P) BURN_FORWARD(device, P)               \
    BURN_FORWARD(to_device, P) BURN_FORWARD(shape, P) BURN_FORWARD(empty, P)                    \
    BURN_FORWARD(reshape, P) BURN_FORWARD(swap_dims, P) BURN_FORWARD(permute, P)                \
    BURN_FORWARD(flip, P) BURN_FORWARD(expand, P) BURN_FORWARD(slice, P)                        \
    BURN_FORWARD(slice_assign, P) BURN_FORWARD(cat, P) BURN_FORWARD(repeat_dim, P)              \
    BURN_FORWARD(equal, P) BURN_FORWARD(not_equal, P)

#define BURN_NUMERIC_FORWARDS(P)                                                                 \
    BURN_FORWARD(zeros, P) BURN_FORWARD(ones, P) BURN_FORWARD(full, P) BURN_FORWARD(random, P)  \
    BURN_FORWARD(add, P) BURN_FORWARD(sub, P) BURN_FORWARD(mul, P) BURN_FORWARD(div, P)         \
    BURN_FORWARD(remainder, P) BURN_FORWARD(add_scalar, P) BURN_FORWARD(sub_scalar, P)          \
    BURN_FORWARD(mul_scalar, P) BURN_FORWARD(div_scalar, P) BURN_FORWARD(remainder_scalar, P)   \
    BURN_FORWARD(neg, P) BURN_FORWARD(abs, P) BURN_FORWARD(sign, P) BURN_FORWARD(max_pair, P)   \
    BURN_FORWARD(min_pair, P) BURN_FORWARD(clamp, P) BURN_FORWARD(clamp_min, P)                 \
    BURN_FORWARD(clamp_max, P) BURN_FORWARD(greater, P) BURN_FORWARD(greater_equal, P)          \
    BURN_FORWARD(lower, P) BURN_FORWARD(lower_equal, P) BURN_FORWARD(equal_elem, P)             \
    BURN_FORWARD(not_equal_elem, P) BURN_FORWARD(greater_elem, P)                               \
    BURN_FORWARD(greater_equal_elem, P) BURN_FORWARD(lower_elem, P)                             \
    BURN_FORWARD(lower_equal_elem, P) BURN_FORWARD(sum, P) BURN_FORWARD(sum_dim, P)             \
    BURN_FORWARD(prod, P) BURN_FORWARD(prod_dim, P) BURN_FORWARD(mean_dim, P)                   \
    BURN_FORWARD(max_dim, P) BURN_FORWARD(min_dim, P) BURN_FORWARD(max_dim_with_indices, P)     \
    BURN_FORWARD(min_dim_with_indices, P) BURN_FORWARD(argmax, P) BURN_FORWARD(argmin, P)       \
    BURN_FORWARD(gather, P) BURN_FORWARD(scatter, P) BURN_FORWARD(select, P)                    \
    BURN_FORWARD(select_assign, P) BURN_FORWARD(mask_where, P) BURN_FORWARD(mask_fill, P)       \
    BURN_FORWARD(sort, P) BURN_FORWARD(sort_with_indices, P) BURN_FORWARD(argsort, P)

template <class B>
struct KindOps<B, Float> {
    using Prim = typename B::FloatTensor;
    using Elem = typename B::FloatElem;
    using ScalarT = double;  ///< scalar type at the backend boundary
    BURN_BASIC_FORWARDS(float)
    BURN_NUMERIC_FORWARDS(float)
    static Prim to_float(Prim t) { return t; }
    static typename B::IntTensor to_int(Prim t) { return B::float_into_int(std::move(t)); }
    static typename B::BoolTensor to_bool(Prim t) {
        return B::float_not_equal_elem(std::move(t), 0.0);
    }
};

template <class B>
struct KindOps<B, Int> {
    using Prim = typename B::IntTensor;
    using Elem = typename B::IntElem;
    using ScalarT = std::int64_t;
    BURN_BASIC_FORWARDS(int)
    BURN_NUMERIC_FORWARDS(int)
    static typename B::FloatTensor to_float(Prim t) { return B::int_into_float(std::move(t)); }
    static Prim to_int(Prim t) { return t; }
    static typename B::BoolTensor to_bool(Prim t) {
        return B::int_not_equal_elem(std::move(t), std::int64_t{0});
    }
};

template <class B>
struct KindOps<B, Bool> {
    using Prim = typename B::BoolTensor;
    using Elem = bool;
    using ScalarT = bool;
    BURN_BASIC_FORWARDS(bool)
    static typename B::FloatTensor to_float(Prim t) { return B::bool_into_float(std::move(t)); }
    static typename B::IntTensor to_int(Prim t) { return B::bool_into_int(std::move(t)); }
    static Prim to_bool(Prim t) { return t; }
};

#undef BURN_FORWARD
#undef BURN_BASIC_FORWARDS
#undef BURN_NUMERIC_FORWARDS

/// The DType a kind's elements have on backend B.
template <class B, class K>
constexpr DType kind_dtype() {
    if constexpr (std::same_as<K, Float>) return ElementTraits<typename B::FloatElem>::dtype;
    else if constexpr (std::same_as<K, Int>) return ElementTraits<typename B::IntElem>::dtype;
    else return DType::Bool;
}

}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// Tensor kinds (Float, Int, Bool) and the table that maps a generic op name to the backend op of
// the kind: KindOps<B, Float>::add is B::float_add, KindOps<B, Int>::add is B::int_add.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "burn/backend/op_list.hpp"
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

#define BURN_KIND_FORWARD(P, OP, SIG)              \
    template <class... A>                          \
    static decltype(auto) OP(A&&... a) {           \
        return B::P##_##OP(std::forward<A>(a)...); \
    }

template <class B>
struct KindOps<B, Float> {
    using Prim = typename B::FloatTensor;
    using Elem = typename B::FloatElem;
    using ScalarT = double;  ///< scalar type at the backend boundary
    BURN_BASIC_OPS(BURN_KIND_FORWARD, float)
    BURN_NUMERIC_OPS(BURN_KIND_FORWARD, float)
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
    BURN_BASIC_OPS(BURN_KIND_FORWARD, int)
    BURN_NUMERIC_OPS(BURN_KIND_FORWARD, int)
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
    BURN_BASIC_OPS(BURN_KIND_FORWARD, bool)
    static typename B::FloatTensor to_float(Prim t) { return B::bool_into_float(std::move(t)); }
    static typename B::IntTensor to_int(Prim t) { return B::bool_into_int(std::move(t)); }
    static Prim to_bool(Prim t) { return t; }
};

#undef BURN_KIND_FORWARD

/// The DType a kind's elements have on backend B.
template <class B, class K>
constexpr DType kind_dtype() {
    if constexpr (std::same_as<K, Float>) return ElementTraits<typename B::FloatElem>::dtype;
    else if constexpr (std::same_as<K, Int>) return ElementTraits<typename B::IntElem>::dtype;
    else return DType::Bool;
}

}  // namespace burn

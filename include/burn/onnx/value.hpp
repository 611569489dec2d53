// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::onnx::Value<B>: one tensor flowing through an ONNX graph. It holds a float, int or bool
// primitive of the backend B (dynamic rank: the shape is the primitive's) and the ONNX element
// type it stands for, so that an int32 or float64 output converts back to its own type. Values
// compute in the backend's float, int and bool kinds.
//
//   auto v = Value<B>::from_data(TensorData::from<float>({1, 2}), ElemType::Float, device);
//   TensorData out = v.to_data();   // f32 again
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "burn/onnx/model.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/kind.hpp"

namespace burn::onnx {

/// The backend kind that computes values of an ONNX element type.
enum class ValueKind { Float, Int, Bool };
inline ValueKind kind_of(ElemType t) {
    if (is_float_type(t)) return ValueKind::Float;
    if (t == ElemType::Bool) return ValueKind::Bool;
    if (is_int_type(t)) return ValueKind::Int;
    ::burn::detail::fail("onnx: element type ", elem_type_name(t),
                         " cannot be computed (numbers and bools only)");
}

template <class B>
class Value {
public:
    using F = typename B::FloatTensor;
    using I = typename B::IntTensor;
    using M = typename B::BoolTensor;
    using Device = typename B::Device;

    Value(Float, F p, ElemType t = ElemType::Float) : prim_(FloatBox{std::move(p)}), type_(t) {
        check_type(is_float_type(t), "a float primitive");
    }
    Value(Int, I p, ElemType t = ElemType::Int64) : prim_(IntBox{std::move(p)}), type_(t) {
        check_type(is_int_type(t), "an int primitive");
    }
    Value(Bool, M p) : prim_(BoolBox{std::move(p)}), type_(ElemType::Bool) {}

    /// A value from host data; `type` is the ONNX type it stands for.
    static Value from_data(const TensorData& d, ElemType type, const Device& device) {
        switch (kind_of(type)) {
            case ValueKind::Float: return Value(Float{}, B::float_from_data(d, device), type);
            case ValueKind::Int: return Value(Int{}, B::int_from_data(d, device), type);
            case ValueKind::Bool: break;
        }
        return Value(
            Bool{}, B::bool_from_data(d.dtype == DType::Bool ? d : d.convert(DType::Bool), device));
    }
    static Value from_typed(const TypedData& d, const Device& device) {
        return from_data(d.data, d.type, device);
    }

    ValueKind kind() const { return static_cast<ValueKind>(prim_.index()); }
    ElemType type() const { return type_; }
    bool is_float() const { return kind() == ValueKind::Float; }
    bool is_int() const { return kind() == ValueKind::Int; }
    bool is_bool() const { return kind() == ValueKind::Bool; }

    /// Calls `fn(K{}, prim)` with the kind tag (burn::Float, Int or Bool) and the primitive.
    template <class Fn>
    decltype(auto) visit(Fn&& fn) const {
        switch (prim_.index()) {
            case 0: return fn(Float{}, std::get<0>(prim_).p);
            case 1: return fn(Int{}, std::get<1>(prim_).p);
            default: return fn(Bool{}, std::get<2>(prim_).p);
        }
    }
    /// The same type, another primitive of the same kind (from visit's lambdas).
    template <class K, class P>
    Value with(K, P p) const {
        if constexpr (std::is_same_v<K, Bool>) return Value(Bool{}, std::move(p));
        else return Value(K{}, std::move(p), type_);
    }
    /// Applies `fn(K{}, prim) -> prim of the same kind` and keeps the type.
    template <class Fn>
    Value map(Fn&& fn) const {
        return visit([&](auto k, const auto& p) { return with(k, fn(k, p)); });
    }

    Shape shape() const {
        return visit([](auto k, const auto& p) { return KindOps<B, decltype(k)>::shape(p); });
    }
    std::size_t rank() const { return shape().rank(); }
    Device device() const {
        return visit([](auto k, const auto& p) { return KindOps<B, decltype(k)>::device(p); });
    }

    /// The primitive in another kind (floats to ints truncate, numbers to bools test != 0).
    F to_float() const {
        return visit([](auto k, const auto& p) { return KindOps<B, decltype(k)>::to_float(p); });
    }
    I to_int() const {
        return visit([](auto k, const auto& p) { return KindOps<B, decltype(k)>::to_int(p); });
    }
    M to_bool() const {
        return visit([](auto k, const auto& p) { return KindOps<B, decltype(k)>::to_bool(p); });
    }
    const F& float_prim() const { return std::get<0>(prim_).p; }
    const I& int_prim() const { return std::get<1>(prim_).p; }
    const M& bool_prim() const { return std::get<2>(prim_).p; }
    /// The primitive of kind K (the value must have that kind).
    template <class K>
    const auto& prim() const {
        if constexpr (std::is_same_v<K, Float>) return float_prim();
        else if constexpr (std::is_same_v<K, Int>) return int_prim();
        else return bool_prim();
    }

    /// Host data in the ONNX type's storage dtype (f64 values computed in f32 come back as f64).
    TensorData to_data() const {
        TensorData d =
            visit([](auto k, const auto& p) { return KindOps<B, decltype(k)>::into_data(p); });
        const DType want = storage_dtype(type_);
        return d.dtype == want ? d : d.convert(want);
    }
    TypedData to_typed(std::string name = {}) const { return {std::move(name), type_, to_data()}; }
    /// The values as int64 on the host (for shape-like tensors: shapes, axes, pads, starts).
    std::vector<std::int64_t> to_ints() const {
        TensorData d =
            visit([](auto k, const auto& p) { return KindOps<B, decltype(k)>::into_data(p); });
        return d.to_vec<std::int64_t>();
    }
    std::vector<double> to_doubles() const {
        TensorData d =
            visit([](auto k, const auto& p) { return KindOps<B, decltype(k)>::into_data(p); });
        return d.to_vec<double>();
    }
    /// "float[2, 3]", for messages.
    std::string describe() const {
        return std::string(elem_type_name(type_)) + shape().to_string();
    }

private:
    struct FloatBox {
        F p;
    };
    struct IntBox {
        I p;
    };
    struct BoolBox {
        M p;
    };
    void check_type(bool ok, const char* what) const {
        if (!ok)
            ::burn::detail::fail("onnx::Value: element type ", elem_type_name(type_),
                                 " cannot be held by ", what);
    }
    std::variant<FloatBox, IntBox, BoolBox> prim_;
    ElemType type_;
};

}  // namespace burn::onnx

// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::onnx::Value<B>: one value flowing through an ONNX graph. Usually a tensor: a float, int or
// bool primitive of the backend B (dynamic rank: the shape is the primitive's) and the ONNX
// element type it stands for, so that an int32 or float64 output converts back to its own type.
// Values compute in the backend's float, int and bool kinds. It may also be a sequence of tensors
// of one element type (ONNX's seq(tensor)) or an empty optional; an optional holding an element
// is that element itself.
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
    /// A sequence of tensors of element type `elem` (every item must be a tensor of that type).
    static Value sequence(std::vector<Value> items, ElemType elem) {
        for (const auto& v : items)
            if (!v.is_tensor() || v.type() != elem)
                ::burn::detail::fail("onnx::Value: a sequence of ", elem_type_name(elem),
                                     " tensors cannot hold ", v.describe());
        return Value(SeqBox{std::move(items)}, elem);
    }
    /// An empty optional; `elem` is the declared element type, or Undefined.
    static Value none(ElemType elem = ElemType::Undefined) { return Value(NoneBox{}, elem); }

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

    /// A value from host data: a tensor, a sequence of tensors or an empty optional.
    static Value from_value_data(const ValueData& d, const Device& device) {
        switch (d.kind) {
            case ValueData::Kind::Tensor:
                if (d.items.size() != 1)
                    ::burn::detail::fail("onnx::Value: tensor data must have one item, got ",
                                         d.items.size());
                return from_typed(d.items.front(), device);
            case ValueData::Kind::Sequence: {
                std::vector<Value> items;
                for (const auto& t : d.items) items.push_back(from_typed(t, device));
                return sequence(std::move(items), d.elem);
            }
            case ValueData::Kind::None: break;
        }
        return none(d.elem);
    }
    /// Host data of any value (to_data() is for tensors).
    ValueData to_value_data() const {
        ValueData d;
        d.elem = type_;
        if (is_none()) {
            d.kind = ValueData::Kind::None;
        } else if (is_sequence()) {
            d.kind = ValueData::Kind::Sequence;
            for (const auto& v : items()) d.items.push_back(v.to_typed());
        } else {
            d.items.push_back(to_typed());
        }
        return d;
    }

    /// The kind of a tensor (burn::Error for a sequence or an empty optional).
    ValueKind kind() const {
        if (!is_tensor()) not_a_tensor();
        return static_cast<ValueKind>(prim_.index());
    }
    /// The element type (of the items, for a sequence).
    ElemType type() const { return type_; }
    bool is_tensor() const { return prim_.index() < 3; }
    bool is_sequence() const { return prim_.index() == 3; }
    bool is_none() const { return prim_.index() == 4; }
    /// A sequence's tensors (burn::Error for any other value).
    const std::vector<Value>& items() const {
        if (!is_sequence())
            ::burn::detail::fail("onnx::Value: expected a sequence, got ", describe());
        return std::get<3>(prim_).items;
    }
    bool is_float() const { return prim_.index() == 0; }
    bool is_int() const { return prim_.index() == 1; }
    bool is_bool() const { return prim_.index() == 2; }

    /// Calls `fn(K{}, prim)` with the kind tag (burn::Float, Int or Bool) and the primitive of a
    /// tensor (burn::Error for a sequence or an empty optional).
    template <class Fn>
    decltype(auto) visit(Fn&& fn) const {
        switch (prim_.index()) {
            case 0: return fn(Float{}, std::get<0>(prim_).p);
            case 1: return fn(Int{}, std::get<1>(prim_).p);
            case 2: return fn(Bool{}, std::get<2>(prim_).p);
            default: not_a_tensor();
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
    /// The device of a tensor, of a sequence's first tensor; the default device for an empty
    /// sequence or optional.
    Device device() const {
        if (is_sequence()) {
            const auto& v = std::get<3>(prim_).items;
            return v.empty() ? Device{} : v.front().device();
        }
        if (is_none()) return Device{};
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
    /// "float[2, 3]", "seq(float) of 2 tensors", "optional(float) without a value": for messages.
    std::string describe() const {
        if (is_sequence())
            return "seq(" + std::string(elem_type_name(type_)) + ") of " +
                   std::to_string(std::get<3>(prim_).items.size()) + " tensors";
        if (is_none())
            return "optional(" + std::string(elem_type_name(type_)) + ") without a value";
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
    struct SeqBox {
        std::vector<Value> items;
    };
    struct NoneBox {};
    Value(SeqBox b, ElemType t) : prim_(std::move(b)), type_(t) {}
    Value(NoneBox b, ElemType t) : prim_(b), type_(t) {}
    [[noreturn]] void not_a_tensor() const {
        ::burn::detail::fail("onnx: expected a tensor, got ", describe());
    }
    void check_type(bool ok, const char* what) const {
        if (!ok)
            ::burn::detail::fail("onnx::Value: element type ", elem_type_name(type_),
                                 " cannot be held by ", what);
    }
    std::variant<FloatBox, IntBox, BoolBox, SeqBox, NoneBox> prim_;
    ElemType type_;
};

}  // namespace burn::onnx

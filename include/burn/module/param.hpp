// SPDX-License-Identifier: MIT OR Apache-2.0
// Param<Tensor<B, D, K>>: a module's trainable (or saved) tensor with a stable ParamId.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "burn/record/param_id.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::module {

template <class T>
class Param;

/// A tensor parameter. On an autodiff backend a float parameter that requires a gradient is a
/// leaf of the graph (require_grad() is applied when the Param is made), so `loss.backward()`
/// gives its gradient; set_require_grad(false) keeps it in records but out of training.
template <BackendTypes B, std::size_t D, class K>
class Param<Tensor<B, D, K>> {
public:
    using TensorType = Tensor<B, D, K>;
    using Backend = B;
    static constexpr std::size_t rank = D;

    /// A new parameter with a fresh id (float parameters require a gradient by default).
    Param(TensorType value)  // NOLINT(google-explicit-constructor): `Param p = tensor;` reads well
        : Param(ParamId{}, std::move(value), std::same_as<K, Float>) {}
    Param(ParamId id, TensorType value, bool require_grad = std::same_as<K, Float>)
        : id_(id),
          require_grad_(require_grad && std::same_as<K, Float>),
          value_(prepare(std::move(value), require_grad_)) {}

    /// The tensor (cheap copy). Burn's `param.val()`.
    const TensorType& val() const { return value_; }
    const ParamId& id() const { return id_; }
    /// Whether optimizers update it and backward() computes its gradient.
    bool is_require_grad() const { return require_grad_; }
    /// The same parameter (same id) with require_grad changed.
    Param set_require_grad(bool require) const { return Param(id_, value_, require); }
    /// The same id and require_grad with a new value (e.g. an optimizer step, a device move).
    Param with_value(TensorType value) const { return Param(id_, std::move(value), require_grad_); }
    Shape shape() const { return value_.shape(); }
    std::size_t num_elements() const { return value_.num_elements(); }
    typename B::Device device() const { return value_.device(); }

private:
    static TensorType prepare(TensorType t, bool require_grad) {
        if constexpr (std::same_as<K, Float>) {
            // A fresh leaf: the value may have been computed from tracked tensors.
            t = t.detach();
            if (require_grad) t = t.require_grad();
        }
        return t;
    }

    ParamId id_;
    bool require_grad_;
    TensorType value_;
};

template <class T>
inline constexpr bool is_param_v = false;
template <class T>
inline constexpr bool is_param_v<Param<T>> = true;

}  // namespace burn::module

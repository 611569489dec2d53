// SPDX-License-Identifier: MIT OR Apache-2.0
// Automatic mixed precision (PyTorch's torch.autocast): inside an Autocast scope, on the thread
// that opened it, the ops that gain from half precision (matmul, the convolutions) cast their
// float operands to the scope's half dtype, and the ops that need f32's range or precision
// (softmax, log_softmax, the norms and losses of burn::nn) cast theirs to f32; every other op
// keeps the dtypes of its operands (mixed dtypes promote). Parameters stay in their own dtype
// (f32 for a model left in f32): the casts are recorded by Autodiff, so gradients come back in
// each parameter's dtype. See docs/precision.md.
//
//   {
//       burn::Autocast amp(burn::DType::BF16);
//       auto loss = model.forward(x);   // matmuls in bf16, softmax and the loss in f32
//   }
#pragma once

#include <optional>

#include "burn/backend/capabilities.hpp"
#include "burn/tensor/dtype.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

namespace detail {
/// The half dtype of the innermost Autocast scope of this thread, if any.
inline thread_local std::optional<DType> autocast_scope;
}  // namespace detail

/// A scope of automatic mixed precision on this thread (nested scopes: the innermost wins; a
/// scope with `enabled = false` turns autocast off inside it).
class Autocast {
public:
    explicit Autocast(DType dtype = DType::BF16, bool enabled = true)
        : previous_(detail::autocast_scope) {
        BURN_CHECK(is_half(dtype), "Autocast: expected DType::F16 or DType::BF16, got ",
                   dtype_name(dtype));
        detail::autocast_scope = enabled ? std::optional<DType>(dtype) : std::nullopt;
    }
    ~Autocast() { detail::autocast_scope = previous_; }
    Autocast(const Autocast&) = delete;
    Autocast& operator=(const Autocast&) = delete;

private:
    std::optional<DType> previous_;
};

/// The half dtype of the current Autocast scope on this thread, if any.
inline std::optional<DType> autocast_dtype() { return detail::autocast_scope; }

namespace autocast {

/// The dtype an op on the lower-precision list runs in for backend B: the scope's half dtype
/// where B has it; nullopt outside a scope (or when B lacks the dtype: the op runs as written).
template <class B>
std::optional<DType> lower_dtype() {
    const auto d = detail::autocast_scope;
    if (!d || !has_float_dtype<B>(*d)) return std::nullopt;
    return d;
}

/// A float tensor cast for an op on the lower-precision list (matmul, convolutions).
template <class T>
T lower(T t) {
    using B = typename T::Backend;
    if (const auto d = lower_dtype<B>(); d && t.dtype() != *d && is_float(t.dtype()))
        return t.cast(*d);
    return t;
}

template <class T>
std::optional<T> lower(const std::optional<T>& t) {
    if (!t) return t;
    return lower(*t);
}

/// A float tensor cast for an op on the f32 list (softmax, norms, losses): half tensors become
/// f32 inside a scope; outside, and for other dtypes, unchanged.
template <class T>
T full(T t) {
    if (!detail::autocast_scope) return t;
    return is_half(t.dtype()) ? t.cast(DType::F32) : t;
}

}  // namespace autocast
}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// What a backend can do, as a compile-time value: B::capabilities, read through
// burn::capabilities<B> (conservative defaults for a backend that does not say). Tests and user
// code branch on it instead of on the backend's type.
//
//   if constexpr (!burn::capabilities<B>.float64) GTEST_SKIP() << "needs f64";
#pragma once

#include "burn/tensor/dtype.hpp"

namespace burn {

struct BackendCapabilities {
    /// Float tensors can be f64 (the backend family has an F = double variant).
    bool float64 = false;
    /// Float tensors can be f16 / bf16 (Tensor::cast, or F = f16 / bf16): stored in half
    /// precision, computed in f32 where the backend has no half-precision kernel.
    bool float16 = false;
    bool bfloat16 = false;
    /// Int tensors can be 64-bit on every device (I = std::int64_t).
    bool int64 = false;
    /// Every op gives bit-identical results from run to run (no float atomics whose order varies,
    /// as in the GPU backward of deform_conv2d).
    bool deterministic = false;
    /// Primitives live in host memory and ops complete before they return (no queue to wait for).
    bool host_memory = false;
};

namespace detail {
template <class B>
constexpr BackendCapabilities capabilities_of() {
    if constexpr (requires { B::capabilities; }) return B::capabilities;
    else return {};
}
}  // namespace detail

/// The capabilities of backend B (decorators report their inner backend's).
template <class B>
inline constexpr BackendCapabilities capabilities = detail::capabilities_of<B>();

/// Whether backend B's float tensors can have dtype `d` (f32 always; its own F; f16, bf16, f64
/// as its capabilities say). False for non-float dtypes.
template <class B>
constexpr bool has_float_dtype(DType d) {
    constexpr BackendCapabilities c = capabilities<B>;
    return d == DType::F32 || d == ElementTraits<typename B::FloatElem>::dtype ||
           (d == DType::F16 && c.float16) || (d == DType::BF16 && c.bfloat16) ||
           (d == DType::F64 && c.float64);
}

}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// A backend extension: the fused operation relu(lhs @ rhs + bias) on rank-3 tensors.
//
// Rust's Burn extends a backend with a new trait (`trait Backend: burn::Backend { fn
// fused_matmul_add_relu(..) }`) implemented for each backend. A C++ program cannot add a static
// function to burn::Cpu, so the extension point here is a traits template the program owns:
//
//   FusedOps<B>                      the primary template: the reference composition of basic
//                                    backend ops, so that every backend supports the operation;
//   FusedOps<burn::Cpu<F, I>>        a hand-written CPU kernel (cpu_kernel.cpp);
//   FusedOps<burn::Autodiff<B, C>>   forward with FusedOps<B>, plus a custom backward function
//                                    (fused_autodiff.hpp).
//
// FusedBackend<B> is the concept that names the extended interface; user code constrains on it
// as it would on burn::Backend.
//
// Shapes (checked by the user-facing function, relied on by the implementations):
//   lhs  [bl, m, k]     rhs [br, k, n]     with bl == br, or one of them 1 (broadcast batch)
//   bias [bb, bm, bn]   each dim equal to the output's or 1 (bias [1, 1, n] is a Linear bias)
//   out  [max(bl, br), m, n]
#pragma once

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <concepts>
#include <cstddef>
#include <utility>

namespace fused {

// ---------------------------------------------------------------------------------------------
// The extension point and its reference implementation.

/// Specialise FusedOps for a backend to give it a faster fused_matmul_add_relu. The primary
/// template composes the backend's own matmul, add and relu, so any backend works unchanged.
template <class B>
struct FusedOps {
    using FloatTensor = typename B::FloatTensor;

    static FloatTensor fused_matmul_add_relu(FloatTensor lhs, FloatTensor rhs, FloatTensor bias) {
        // Backend binary ops broadcast their operands themselves: bias may be [1, 1, n].
        return B::relu(
            B::float_add(B::float_matmul(std::move(lhs), std::move(rhs)), std::move(bias)));
    }
};

/// A burn::Backend that has the fused operation (with the exact signature above). Every backend
/// satisfies it through the primary template; a specialisation with a wrong signature does not.
template <class B>
concept FusedBackend = burn::Backend<B> && requires(typename B::FloatTensor t) {
    { FusedOps<B>::fused_matmul_add_relu(t, t, t) } -> std::same_as<typename B::FloatTensor>;
};

// ---------------------------------------------------------------------------------------------
// The CPU kernel. The loop nest lives in cpu_kernel.cpp, compiled once for f32 and f64, so
// including this header instantiates nothing heavy.

/// relu(lhs @ rhs + bias) on CPU primitives of one float dtype; strided views are accepted.
burn::cpu::CpuTensor cpu_fused_matmul_add_relu(burn::cpu::CpuTensor lhs, burn::cpu::CpuTensor rhs,
                                               const burn::cpu::CpuTensor& bias);

template <class F, class I>
struct FusedOps<burn::Cpu<F, I>> {
    using B = burn::Cpu<F, I>;
    using FloatTensor = typename B::FloatTensor;

    static FloatTensor fused_matmul_add_relu(FloatTensor lhs, FloatTensor rhs, FloatTensor bias) {
        // A quantized (int8) operand is turned into floats first, as every Cpu float op does.
        return cpu_fused_matmul_add_relu(B::dequantize(std::move(lhs)),
                                         B::dequantize(std::move(rhs)),
                                         B::dequantize(std::move(bias)));
    }
};

// ---------------------------------------------------------------------------------------------
// The user-facing functions, over burn::Tensor as the rest of the program is.

/// The output shape of relu(lhs @ rhs + bias); burn::Error naming the shapes when they do not fit
/// the rules at the top of this file.
inline burn::Shape fused_output_shape(const burn::Shape& lhs, const burn::Shape& rhs,
                                      const burn::Shape& bias) {
    BURN_CHECK(lhs[2] == rhs[1], "matmul_add_relu: inner dims of ", lhs, " and ", rhs, " differ");
    BURN_CHECK(lhs[0] == rhs[0] || lhs[0] == 1 || rhs[0] == 1, "matmul_add_relu: batch dims of ",
               lhs, " and ", rhs, " cannot be broadcast together");
    const burn::Shape out{lhs[0] == 1 ? rhs[0] : lhs[0], lhs[1], rhs[2]};
    for (std::size_t d = 0; d < 3; ++d)
        BURN_CHECK(bias[d] == out[d] || bias[d] == 1, "matmul_add_relu: bias of shape ", bias,
                   " cannot be broadcast to the product's shape ", out);
    return out;
}

/// relu(lhs @ rhs + bias) through the backend's fused operation.
template <FusedBackend B>
burn::Tensor<B, 3> matmul_add_relu_custom(const burn::Tensor<B, 3>& lhs,
                                          const burn::Tensor<B, 3>& rhs,
                                          const burn::Tensor<B, 3>& bias) {
    fused_output_shape(lhs.shape(), rhs.shape(), bias.shape());
    BURN_CHECK(lhs.device() == rhs.device() && lhs.device() == bias.device(),
               "matmul_add_relu: the operands are on different devices");
    return burn::Tensor<B, 3>::from_primitive(FusedOps<B>::fused_matmul_add_relu(
        lhs.into_primitive(), rhs.into_primitive(), bias.into_primitive()));
}

/// The same operation written with ordinary tensor ops: the reference the kernels are checked
/// against.
template <burn::Backend B>
burn::Tensor<B, 3> matmul_add_relu_reference(const burn::Tensor<B, 3>& lhs,
                                             const burn::Tensor<B, 3>& rhs,
                                             const burn::Tensor<B, 3>& bias) {
    return burn::activation::relu(lhs.matmul(rhs) + bias);
}

}  // namespace fused

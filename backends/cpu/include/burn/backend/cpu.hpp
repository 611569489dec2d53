// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::Cpu<F, I>: the CPU backend (Eigen, OpenBLAS and oneTBB inside compiled sources).
//
//   using B = burn::Cpu<>;                        // f32 floats, i64 ints
//   auto x = burn::Tensor<B, 2>::ones({2, 3});
//
// A kernel set (burn/backend/cpu/kernels.hpp, dtype-dispatched kernels in backends/cpu/src)
// under the kit's adapter, so including this header parses no Eigen or TBB code and instantiates
// no kernels.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "burn/backend/adapter.hpp"
#include "burn/backend/capabilities.hpp"
#include "burn/backend/cpu/kernels.hpp"
#include "burn/backend/cpu/tensor.hpp"
#include "burn/backend/cpu/threads.hpp"

namespace burn {

/// The CPU backend. `F` is the default float element (float or double; f16 or bf16 for
/// half-precision storage computed in f32), `I` the int element (std::int64_t or std::int32_t).
/// Float tensors of any of the four dtypes mix (Tensor::cast). Bool tensors hold one byte per
/// element.
template <class F = float, class I = std::int64_t>
struct Cpu : backend::KernelBackend<cpu::Kernels, F, I> {
    static_assert(std::is_same_v<F, float> || std::is_same_v<F, double> || std::is_same_v<F, f16> ||
                      std::is_same_v<F, bf16>,
                  "Cpu<F, I>: F must be float, double, burn::f16 or burn::bf16");
    static_assert(std::is_same_v<I, std::int64_t> || std::is_same_v<I, std::int32_t>,
                  "Cpu<F, I>: I must be std::int64_t or std::int32_t");

    /// float and double are at least f32, Burn's "full precision"; the half types' is Cpu<float>.
    using FullPrecisionBackend =
        Cpu<std::conditional_t<std::is_same_v<F, double>, double, float>, I>;
    static constexpr BackendCapabilities capabilities{.float64 = true,
                                                      .float16 = true,
                                                      .bfloat16 = true,
                                                      .int64 = true,
                                                      .deterministic = true,
                                                      .host_memory = true};

    static std::string name() {
        return "cpu<" + std::string(dtype_name(ElementTraits<F>::dtype)) + ">";
    }
};

}  // namespace burn

#define BURN_CPU_DEFINED
#include "burn/backend/prebuilt.hpp"

// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU kernel set: the kit's kernels (burn/backend/kernels.hpp) over CpuTensor, compiled once in
// backends/cpu/src (Eigen, OpenBLAS, oneTBB) and dispatched on the run-time dtype. Cpu<F, I>
// forwards to these through the adapter; user code needs them only for its own kernels
// (docs/backend-extension.md): Kernels::contiguous and Kernels::empty are the usual helpers.
#pragma once

#include <span>
#include <vector>

#include "burn/backend/cpu/tensor.hpp"
#include "burn/backend/kernels.hpp"
#include "burn/fusion/program.hpp"

namespace burn::cpu {

BURN_KERNEL_VOCABULARY

/// The CPU kernels. Creation kernels ignore the device (there is one).
struct Kernels {
    BURN_KERNEL_SET_MEMBERS(CpuTensor, CpuDevice)

    /// One Adam step in a single pass over memory (src/optim.cpp), f32 or f64 tensors of one
    /// shape: writes in place into `param` and the moments when they are dense and this is their
    /// only handle, otherwise into new buffers (backend::FusedAdamKernel).
    static backend::AdamStepResult<CpuTensor> adam_step(CpuTensor param, CpuTensor grad,
                                                        CpuTensor* moment_1, CpuTensor* moment_2,
                                                        const backend::AdamHyper& h);
    /// The kernels that work on f16 / bf16 tensors themselves (backend::HalfKernels): data in
    /// and out, allocation, fills, copies and casts from and to every dtype. The others compute
    /// in f32 (backend/widen.hpp).
    static constexpr bool computes_half(backend::KernelId k, DType) {
        using K = backend::KernelId;
        return k == K::empty || k == K::full || k == K::from_data || k == K::into_data ||
               k == K::to_device || k == K::contiguous || k == K::cast;
    }
    /// The fusion part (Fusion<Cpu<F>>, fusion::FusionKernelSet): runs a fused element-wise
    /// program tile by tile through the SIMD kernels, one pass over memory (src/fused.cpp).
    static std::vector<CpuTensor> fused_elementwise(const fusion::Program& p,
                                                    std::span<const CpuTensor> inputs);
    /// A program ending with a reduction (fusion::ReducingFusionKernelSet): computed block by
    /// block into a cache-sized buffer that reduce_all / reduce_dim / softmax then reduce.
    static std::vector<CpuTensor> fused_reduce(const fusion::Program& p,
                                               std::span<const CpuTensor> inputs);
};

}  // namespace burn::cpu

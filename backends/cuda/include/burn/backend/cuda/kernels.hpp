// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA kernel set: the kit's kernels (burn/backend/kernels.hpp) over CudaTensor, implemented
// in backends/cuda/src (ops_*.cpp) with CUDA C++ kernels from kernels/cuda compiled at run time
// by NVRTC, cuBLASLt (matmul) and cuDNN (convolutions). Cuda<F, I> forwards to these through the
// adapter; user code never needs them directly. Every kernel queues work on the tensor's device
// stream and returns (asynchronous); only into_data, quantized_into_data and sync wait.
#pragma once

#include <span>
#include <vector>

#include "burn/backend/cuda/tensor.hpp"
#include "burn/backend/kernels.hpp"
#include "burn/fusion/program.hpp"

namespace burn::cuda {

BURN_KERNEL_VOCABULARY

/// The CUDA kernels (plus the one-pass Adam step and the fusion part).
struct Kernels {
    BURN_KERNEL_SET_MEMBERS(CudaTensor, CudaDevice)
    /// The kernels that run on f16 / bf16 tensors (backend::HalfKernels): storage, copies and
    /// matmul (cuBLASLt, tensor cores, f32 accumulation); `cast` converts them to and from f32.
    /// The others compute in f32 (backend/widen.hpp).
    static constexpr bool computes_half(backend::KernelId k, DType) {
        using K = backend::KernelId;
        return k == K::empty || k == K::from_data || k == K::into_data || k == K::to_device ||
               k == K::contiguous || k == K::matmul;
    }
    static backend::AdamStepResult<CudaTensor> adam_step(CudaTensor param, CudaTensor grad,
                                                         CudaTensor* moment_1, CudaTensor* moment_2,
                                                         const backend::AdamHyper& h);
    /// The fusion part (Fusion<Cuda<F>>, fusion::FusionKernelSet): runs a fused element-wise
    /// program as one CUDA kernel generated for it and compiled by NVRTC on first use (cached in
    /// memory and in the kernel cache on disk; src/ops_fused.cpp).
    static std::vector<CudaTensor> fused_elementwise(const fusion::Program& p,
                                                     std::span<const CudaTensor> inputs);
};

}  // namespace burn::cuda

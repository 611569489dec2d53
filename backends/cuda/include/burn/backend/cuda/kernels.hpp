// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA kernel set: the kit's kernels (burn/backend/kernels.hpp) over CudaTensor, implemented
// in backends/cuda/src (ops_*.cpp) with CUDA C++ kernels from kernels/cuda compiled at run time
// by NVRTC, cuBLASLt (matmul) and cuDNN (convolutions). Cuda<F, I> forwards to these through the
// adapter; user code never needs them directly. Every kernel queues work on the tensor's device
// stream and returns (asynchronous); only into_data, quantized_into_data and sync wait.
#pragma once

#include <optional>
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
    /// The kernels that run on f16 / bf16 tensors (backend::HalfKernels): storage, copies,
    /// casts, matmul (cuBLASLt, tensor cores, f32 accumulation), convolutions and their
    /// gradients (cuDNN, tensor cores, f32 accumulation), random values (the f32 values
    /// rounded), and the element-wise maps, comparisons, masked selects, activations and
    /// reductions, softmax and forward pooling (half values read as f32, the result rounded
    /// once: what the f32 kernels between casts give, in one pass), and the kernels that move
    /// values (slice_assign, cat, repeat_dim, gather, select, embedding). The others compute
    /// in f32 (backend/widen.hpp).
    static constexpr bool computes_half(backend::KernelId k, DType) {
        using K = backend::KernelId;
        switch (k) {
            case K::empty:
            case K::full:
            case K::from_data:
            case K::into_data:
            case K::to_device:
            case K::contiguous:
            case K::cast:
            case K::unary:
            case K::binary:
            case K::binary_scalar:
            case K::compare:
            case K::compare_scalar:
            case K::is_nan:
            case K::clamp:
            case K::mask_where:
            case K::mask_fill:
            case K::reduce_all:
            case K::reduce_dim:
            case K::softmax:
            case K::slice_assign:
            case K::cat:
            case K::repeat_dim:
            case K::gather:
            case K::select:
            case K::embedding:
            case K::avg_pool:
            case K::max_pool:
            case K::adaptive_avg_pool:
            case K::matmul:
            case K::activation:
            case K::activation_backward:
            case K::conv:
            case K::conv_x_backward:
            case K::conv_weight_backward:
            case K::conv_bias_backward:
            case K::conv_transpose:
            case K::conv_transpose_x_backward:
            case K::conv_transpose_weight_backward:
            case K::random: return true;
            default: return false;
        }
    }
    static backend::AdamStepResult<CudaTensor> adam_step(CudaTensor param, CudaTensor grad,
                                                         CudaTensor* moment_1, CudaTensor* moment_2,
                                                         const backend::AdamHyper& h);
    /// Layer norm over the last dim in one kernel, and its backward (backend::
    /// FusedLayerNormKernel; burn::nn::LayerNorm uses them): f32 and f64 (the adapter runs the
    /// half types in f32). src/ops_nn_misc.cpp, kernels/cuda/nn.cu.
    static CudaTensor layer_norm(CudaTensor x, CudaTensor gamma, std::optional<CudaTensor> beta,
                                 double epsilon);
    static backend::LayerNormBackward<CudaTensor> layer_norm_backward(
        CudaTensor x, CudaTensor gamma, CudaTensor grad, double epsilon, bool with_beta);
    /// The fusion part (Fusion<Cuda<F>>, fusion::FusionKernelSet): runs a fused element-wise
    /// program as one CUDA kernel generated for it and compiled by NVRTC on first use (cached in
    /// memory and in the kernel cache on disk; src/ops_fused.cpp).
    static std::vector<CudaTensor> fused_elementwise(const fusion::Program& p,
                                                     std::span<const CudaTensor> inputs);
    /// A program ending with a reduction (fusion::ReducingFusionKernelSet): one generated kernel
    /// computes the program and reduces its first output (partial results of long rows or
    /// columns combined by reduce_dim).
    static std::vector<CudaTensor> fused_reduce(const fusion::Program& p,
                                                std::span<const CudaTensor> inputs);
};

}  // namespace burn::cuda

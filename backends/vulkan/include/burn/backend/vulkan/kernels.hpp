// SPDX-License-Identifier: MIT OR Apache-2.0
// The Vulkan kernel set: the kit's kernels (burn/backend/kernels.hpp) over VulkanTensor,
// implemented in backends/vulkan/src (ops_*.cpp) with GLSL compute shaders from kernels/vulkan.
// Vulkan<F, I> forwards to these through the adapter; user code never needs them directly.
// Every kernel records work on the tensor's device and returns at once (asynchronous); only
// into_data (and quantized_into_data) and sync wait.
#pragma once

#include <span>
#include <vector>

#include "burn/backend/kernels.hpp"
#include "burn/backend/vulkan/tensor.hpp"
#include "burn/fusion/program.hpp"

namespace burn::vk {

BURN_KERNEL_VOCABULARY

/// The Vulkan kernels (plus the fusion part). to_device between two devices copies through the
/// host.
struct Kernels {
    BURN_KERNEL_SET_MEMBERS(VulkanTensor, VulkanDevice)
    /// The kernels that take f16 / bf16 tensors as they are (backend::HalfKernels): allocation
    /// and data in and out (halves are stored two to a 32-bit word); `cast` converts them to and
    /// from f32. Every other kernel computes in f32 (backend/widen.hpp).
    static constexpr bool computes_half(backend::KernelId k, DType) {
        using K = backend::KernelId;
        return k == K::empty || k == K::from_data || k == K::into_data || k == K::to_device;
    }
    /// The fusion part (Fusion<Vulkan<>>, fusion::FusionKernelSet): runs a fused element-wise
    /// program (f32 and bool registers) as one compute shader generated for it, compiled by
    /// shaderc on first use and kept for the process (src/ops_fused.cpp).
    static std::vector<VulkanTensor> fused_elementwise(const fusion::Program& p,
                                                       std::span<const VulkanTensor> inputs);
    /// A program ending with a reduction (fusion::ReducingFusionKernelSet): one shader computes
    /// the program and reduces its first output (partial results of long rows or columns
    /// combined by reduce_dim).
    static std::vector<VulkanTensor> fused_reduce(const fusion::Program& p,
                                                  std::span<const VulkanTensor> inputs);
};

}  // namespace burn::vk

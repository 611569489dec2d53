// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::Vulkan<F, I>: the Vulkan backend. The kit's adapter over the Vulkan kernel set
// (burn/backend/vulkan/kernels.hpp) implemented in backends/vulkan/src with GLSL compute shaders
// (kernels/vulkan), on the runtime there (devices, memory pool, pipelines, batched command
// recording).
//
//   for (const auto& d : burn::vulkan_devices()) std::cout << d << "\n";
//   burn::VulkanDevice dev{};           // index 0: the first discrete GPU, else integrated, ...
//   CPU
//
// This header includes no Vulkan header: handles stay in the compiled sources.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "burn/backend/adapter.hpp"
#include "burn/backend/capabilities.hpp"
#include "burn/backend/vulkan/kernels.hpp"
#include "burn/backend/vulkan/tensor.hpp"
#include "burn/tensor/dtype.hpp"

namespace burn {

enum class VulkanDeviceType { DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu, Other };
const char* to_string(VulkanDeviceType t) noexcept;

/// What a device can do (queried once, at enumeration).
struct VulkanFeatures {
    bool shader_int64 = false;  ///< 64-bit integers in shaders (else Int tensors are i32)
    bool shader_float64 = false;
    bool shader_float16 = false;
    bool shader_int8 = false;
    bool storage_buffer_8bit = false;   ///< 8-bit loads/stores from storage buffers
    bool storage_buffer_16bit = false;  ///< 16-bit loads/stores from storage buffers
    bool push_descriptor = false;       ///< VK_KHR_push_descriptor (not used yet)
    std::uint32_t subgroup_size = 0;
    bool subgroup_in_compute = false;
    bool subgroup_basic = false, subgroup_vote = false, subgroup_arithmetic = false,
         subgroup_ballot = false, subgroup_shuffle = false, subgroup_shuffle_relative = false,
         subgroup_clustered = false, subgroup_quad = false;
    std::array<std::uint32_t, 3> max_workgroup_size{};
    std::uint32_t max_workgroup_invocations = 0;
    std::array<std::uint32_t, 3> max_workgroup_count{};
    std::uint32_t max_shared_memory_bytes = 0;
    std::uint32_t max_push_constant_bytes = 0;
    std::uint64_t max_storage_buffer_range = 0;  ///< largest bindable storage-buffer range
    std::uint64_t min_storage_buffer_offset_alignment = 0;
    std::uint64_t device_local_bytes = 0;  ///< size of the largest device-local heap
};

struct VulkanDeviceInfo {
    std::size_t index = 0;  ///< position in vulkan_devices(): VulkanDevice{index}
    std::string name;       ///< e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
    VulkanDeviceType type = VulkanDeviceType::Other;
    std::uint32_t vendor_id = 0, device_id = 0;
    std::uint32_t api_major = 0, api_minor = 0, api_patch = 0;
    std::string driver;  ///< driver name and info, e.g. "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)"
    VulkanFeatures features;
    /// The dtype Int tensors use on this device: i64 where the device has shaderInt64, else i32.
    DType int_dtype() const { return features.shader_int64 ? DType::I64 : DType::I32; }
    friend std::ostream& operator<<(std::ostream& os, const VulkanDeviceInfo& d);
};

/// Every usable Vulkan device (API version 1.2 or later, with a compute queue), in the order
/// described at VulkanDevice. Empty when there is no Vulkan driver or device: never throws for
/// that (use it to decide whether to run Vulkan code). Enumerates once per process.
const std::vector<VulkanDeviceInfo>& vulkan_devices();

/// The device's description; throws burn::Error when there is no such device (the message names
/// the index and how many devices exist, or says that no Vulkan device was found).
const VulkanDeviceInfo& vulkan_device_info(const VulkanDevice& device);

/// Submits the device's recorded work and waits for it to finish.
void vulkan_sync(const VulkanDevice& device);

/// The compute pipelines of this process (every device) and the shaders made at run time: each
/// program of Fusion<Vulkan> is generated as GLSL and compiled by shaderc once per process for
/// its structure (not its shape or scalar values), and its pipeline created once per device.
struct VulkanKernelStats {
    std::size_t pipelines = 0;            ///< compute pipelines created (every shader)
    std::size_t compiled_shaders = 0;     ///< GLSL shaders compiled by shaderc at run time
    std::size_t generated_pipelines = 0;  ///< pipelines of those shaders (one per device)
};
VulkanKernelStats vulkan_kernel_stats();

/// The Vulkan backend. `F` is the float element (float), `I` the int element: std::int32_t (the
/// default; every device) or std::int64_t (devices with shaderInt64). Bool tensors hold one
/// 32-bit word per element on the device.
template <class F = float, class I = std::int32_t>
struct Vulkan : backend::KernelBackend<vk::Kernels, F, I> {
    static_assert(std::is_same_v<F, float>, "Vulkan<F, I>: F must be float (for now)");
    static_assert(std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>,
                  "Vulkan<F, I>: I must be std::int32_t or std::int64_t");

    /// f32 is Burn's "full precision".
    using FullPrecisionBackend = Vulkan<F, I>;
    /// No f64; i64 only on devices with shaderInt64; the GPU backward of deform_conv2d adds with
    /// float atomics (results vary in the last bits between runs).
    /// f16 and bf16 tensors (Tensor::cast) are stored in half precision and computed in f32.
    static constexpr BackendCapabilities capabilities{.float16 = true, .bfloat16 = true};

    static std::string name() {
        return std::is_same_v<I, std::int32_t> ? "vulkan<f32>" : "vulkan<f32,i64>";
    }
};

}  // namespace burn

#define BURN_VULKAN_DEFINED
#include "burn/backend/prebuilt.hpp"

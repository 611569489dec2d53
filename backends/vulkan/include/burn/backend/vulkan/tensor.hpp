// SPDX-License-Identifier: MIT OR Apache-2.0
// The Vulkan backend's tensor primitive (one type for float, int and bool tensors) and the
// device type. No Vulkan header: the device buffer is an opaque handle of the runtime.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "burn/backend/layout.hpp"
#include "burn/tensor/dtype.hpp"

namespace burn {

/// A Vulkan device: an index into vulkan_devices(), which is ordered discrete GPUs first, then
/// integrated, virtual, CPU (lavapipe) and other devices. The default, index 0, is the "best"
/// device. The environment variable BURN_VULKAN_DEVICE=<n> moves device n of that order to the
/// front (so it becomes the default).
struct VulkanDevice {
    std::size_t index = 0;
    friend bool operator==(const VulkanDevice&, const VulkanDevice&) = default;
    std::string to_string() const { return "Vulkan(" + std::to_string(index) + ")"; }
    friend std::ostream& operator<<(std::ostream& os, const VulkanDevice& d) {
        return os << d.to_string();
    }
};

namespace vk {

/// A pooled device buffer (defined by the runtime, backends/vulkan/src/runtime.hpp).
class Buffer;

/// Bytes per element in device memory. Bool tensors are stored as 32-bit words (0 or 1) so that
/// every device can address them without 8-bit storage; I64 needs shaderInt64; QInt8 values are
/// packed four to a word.
std::size_t device_element_size(DType dtype);

/// The Vulkan primitive for every kind: a strided view (burn::backend::StridedTensor) into a device
/// buffer, with its device. Copying shares the buffer (views only change shape, strides and
/// offset). Work on it is recorded on its device's command stream and runs asynchronously;
/// into_data waits for it.
using VulkanTensor = backend::StridedTensor<Buffer, VulkanDevice>;

}  // namespace vk
}  // namespace burn

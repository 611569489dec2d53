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

#include "burn/tensor/dtype.hpp"
#include "burn/tensor/quantization_scheme.hpp"
#include "burn/tensor/shape.hpp"

namespace burn {

/// A Vulkan device: an index into vulkan_devices(), which is ordered discrete GPUs first, then
/// integrated, virtual, CPU (lavapipe) and other devices. The default, index 0, is the "best"
/// device. The environment variable BURN_VULKAN_DEVICE=<n> moves device n of that order to the
/// front (so it becomes the default).
struct VulkanDevice {
    std::size_t index = 0;
    friend bool operator==(const VulkanDevice&, const VulkanDevice&) = default;
    std::string to_string() const { return "Vulkan(" + std::to_string(index) + ")"; }
    friend std::ostream& operator<<(std::ostream& os, const VulkanDevice& d) { return os << d.to_string(); }
};

namespace vk {

/// A pooled device buffer (defined by the runtime, backends/vulkan/src/runtime.hpp).
class Buffer;

using Strides = std::array<std::int64_t, Shape::max_rank>;

/// Row-major strides of a contiguous tensor of `shape`.
inline Strides contiguous_strides(const Shape& shape) {
    Strides s{};
    std::int64_t acc = 1;
    for (std::size_t i = shape.rank(); i-- > 0;) {
        s[i] = acc;
        acc *= static_cast<std::int64_t>(shape[i]);
    }
    return s;
}

/// Bytes per element in device memory. Bool tensors are stored as 32-bit words (0 or 1) so that
/// every device can address them without 8-bit storage; I64 needs shaderInt64; QInt8 values are
/// packed four to a word.
std::size_t device_element_size(DType dtype);

/// The Vulkan primitive for every kind. Copying shares the buffer (views: reshape, permute,
/// slice, expand and flip only change shape, strides and offset). Strides and offset count
/// elements; strides may be 0 (broadcast) or negative (flip). Work on it is recorded on its
/// device's command stream and runs asynchronously; into_data waits for it.
struct VulkanTensor {
    std::shared_ptr<Buffer> buffer;
    Shape shape;
    Strides strides{};
    std::int64_t offset = 0;
    DType dtype = DType::F32;
    VulkanDevice device{};
    std::shared_ptr<const QuantizationInfo> qinfo;

    std::size_t num_elements() const { return shape.num_elements(); }
    std::size_t rank() const { return shape.rank(); }
    /// Row-major and dense (views with holes, broadcasts or flips are not).
    bool is_contiguous() const {
        std::int64_t acc = 1;
        for (std::size_t i = shape.rank(); i-- > 0;) {
            if (shape[i] != 1 && strides[i] != acc) return false;
            acc *= static_cast<std::int64_t>(shape[i]);
        }
        return true;
    }
    /// This handle is the buffer's only owner: ops may write the result into it.
    bool is_unique() const { return buffer && buffer.use_count() == 1; }
};

}  // namespace vk
}  // namespace burn

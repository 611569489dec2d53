// SPDX-License-Identifier: MIT OR Apache-2.0
// Data in and out: from_data (upload), into_data (the one synchronisation point of the tensor
// API: waits for the tensor's pending work), empty, to_device.
#include <cstring>
#include <span>
#include <vector>

#include "ops_common.hpp"

namespace burn::vk {

namespace {

/// Host bytes in device layout (Bool -> u32 words) of `data` converted to `dtype`.
std::vector<std::byte> device_bytes(const TensorData& data, DType dtype) {
    const TensorData c = data.dtype == dtype ? data : data.convert(dtype);
    if (dtype == DType::Bool) {
        const auto src = c.bytes();
        std::vector<std::byte> out(src.size() * 4);
        for (std::size_t i = 0; i < src.size(); ++i) {
            const std::uint32_t v = src[i] != 0 ? 1u : 0u;
            std::memcpy(out.data() + 4 * i, &v, 4);
        }
        return out;
    }
    const auto src = c.bytes();
    return std::vector<std::byte>(reinterpret_cast<const std::byte*>(src.data()),
                                  reinterpret_cast<const std::byte*>(src.data()) + src.size());
}

}  // namespace

VulkanTensor Kernels::empty(const Shape& shape, DType dtype, const VulkanDevice& device) {
    check_u32("empty", shape.num_elements());
    return alloc(shape, dtype, device);
}

VulkanTensor Kernels::from_data(const TensorData& data, DType target, const VulkanDevice& device) {
    // As the CPU backend: quantized (and f16/bf16) data is read as its (dequantized) values.
    if (data.is_quantized()) return from_data(data.convert(DType::F32), target, device);
    check_u32("from_data", data.num_elements());
    (void)device_element_size(target);  // rejects unsupported dtypes with a clear message
    if (target == DType::I64)
        BURN_CHECK(
            vulkan_device_info(device).features.shader_int64, "Vulkan from_data: ", device,
            " has no 64-bit integers in shaders (shaderInt64): use Vulkan<float, std::int32_t>");
    VulkanTensor t;
    t.shape = data.shape;
    t.strides = contiguous_strides(data.shape);
    t.dtype = target;
    t.device = device;
    const auto bytes = device_bytes(data, target);
    t.buffer = std::make_shared<Buffer>(context(device).upload(bytes));
    return t;
}

TensorData Kernels::into_data(const VulkanTensor& t) {
    assert(!t.qinfo);  // quantized tensors go through quantized_into_data
    const std::size_t esize = device_element_size(t.dtype);
    const std::size_t n = t.num_elements();
    const DType host_dtype = t.dtype;
    std::vector<std::uint8_t> out(n * (t.dtype == DType::Bool ? 1 : esize));
    if (n == 0) return TensorData(std::move(out), t.shape, host_dtype);
    // The span of storage the view touches, read in one go (the wait happens here).
    std::int64_t lo = t.offset, hi = t.offset;
    for (std::size_t d = 0; d < t.rank(); ++d) {
        const std::int64_t reach = static_cast<std::int64_t>(t.shape[d] - 1) * t.strides[d];
        if (reach < 0) lo += reach;
        else hi += reach;
    }
    const auto raw = context(t).read(buffer_of(t), static_cast<std::size_t>(lo) * esize,
                                     static_cast<std::size_t>(hi - lo + 1) * esize);
    // Gather the view's elements in row-major order.
    std::vector<std::size_t> coord(t.rank(), 0);
    std::int64_t pos = t.offset - lo;
    for (std::size_t i = 0; i < n; ++i) {
        const std::byte* src = raw.data() + static_cast<std::size_t>(pos) * esize;
        if (t.dtype == DType::Bool) {
            std::uint32_t v;
            std::memcpy(&v, src, 4);
            out[i] = v != 0 ? 1 : 0;
        } else {
            std::memcpy(out.data() + i * esize, src, esize);
        }
        for (std::size_t d = t.rank(); d-- > 0;) {
            if (++coord[d] < t.shape[d]) {
                pos += t.strides[d];
                break;
            }
            pos -= static_cast<std::int64_t>(t.shape[d] - 1) * t.strides[d];
            coord[d] = 0;
        }
    }
    return TensorData(std::move(out), t.shape, host_dtype);
}

VulkanTensor Kernels::to_device(VulkanTensor t, const VulkanDevice& device) {
    if (t.device == device) return t;
    if (t.qinfo) return quantized_from_data(quantized_into_data(t), device);
    return from_data(into_data(t), t.dtype, device);
}

VulkanTensor Kernels::quantized_from_data(const TensorData& data, const VulkanDevice& device) {
    assert(data.is_quantized());
    check_u32("quantized_from_data", data.num_elements());
    VulkanTensor t;
    t.shape = data.shape;
    t.strides = contiguous_strides(data.shape);
    t.dtype = DType::QInt8;
    t.device = device;
    // One int8 per element, packed four to a 32-bit word (padded to whole words).
    const auto src = data.bytes();
    std::vector<std::byte> bytes((src.size() + 3) / 4 * 4, std::byte{0});
    if (!src.empty()) std::memcpy(bytes.data(), src.data(), src.size());
    t.buffer = std::make_shared<Buffer>(context(device).upload(bytes));
    t.qinfo = std::make_shared<const QuantizationInfo>(*data.quantization());
    return t;
}

TensorData Kernels::quantized_into_data(const VulkanTensor& t) {
    assert(t.is_dense_quantized());
    const std::size_t n = t.num_elements();
    std::vector<std::uint8_t> bytes(n);
    if (n > 0) {
        const auto raw = context(t).read(buffer_of(t), 0, n);
        std::memcpy(bytes.data(), raw.data(), n);
    }
    return TensorData(std::move(bytes), t.shape, *t.qinfo);
}

}  // namespace burn::vk

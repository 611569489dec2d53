// SPDX-License-Identifier: MIT OR Apache-2.0
#include "ops_common.hpp"

#include <limits>
#include <span>

#include "burn/tensor/backend.hpp"

namespace burn::vk {

std::size_t device_element_size(DType dtype) {
    switch (dtype) {
        case DType::F32:
        case DType::I32:
        case DType::Bool: return 4;
        case DType::I64: return 8;
        case DType::F16:
        case DType::BF16: return 2;
        case DType::QInt8: return 1;
        default: break;
    }
    ::burn::detail::fail("Vulkan: dtype ", dtype,
                         " is not supported on Vulkan (f32, f16, bf16, i32, i64, bool)");
}

Context& context(const VulkanDevice& device) {
    // Context::get is a registry lookup under a mutex; ops call it once per op.
    thread_local std::shared_ptr<Context> cached;
    thread_local VulkanDevice cached_device{static_cast<std::size_t>(-1)};
    if (!cached || !(cached_device == device)) {
        cached = Context::get(device);
        cached_device = device;
    }
    return *cached;
}

VulkanTensor alloc(const Shape& shape, DType dtype, const VulkanDevice& device) {
    VulkanTensor t;
    t.shape = shape;
    t.strides = contiguous_strides(shape);
    t.dtype = dtype;
    t.device = device;
    const std::size_t bytes = shape.num_elements() * device_element_size(dtype);
    // QInt8 values are packed four to a word, halves two: round up to whole words.
    const std::size_t rounded = (bytes + 3) / 4 * 4;
    t.buffer = std::make_shared<Buffer>(context(device).allocate(rounded));
    return t;
}

const char* dtype_suffix(DType dtype) {
    switch (dtype) {
        case DType::F32: return "f32";
        case DType::I32: return "i32";
        case DType::I64: return "i64";
        case DType::Bool: return "u32";
        default: break;
    }
    ::burn::detail::fail("Vulkan: no shader variant for dtype ", dtype);
}

void check_u32(const char* op, std::uint64_t n) {
    BURN_CHECK(n <= std::numeric_limits<std::uint32_t>::max(), "Vulkan ", op, ": ", n,
               " elements exceed the kernels' 32-bit indices");
}

TensorMeta meta(const VulkanTensor& t) {
    static_assert(Shape::max_rank <= 8, "TensorMeta holds 8 dims");
    TensorMeta m;
    m.rank = static_cast<std::uint32_t>(t.rank());
    m.offset = static_cast<std::int32_t>(t.offset);
    m.numel = static_cast<std::uint32_t>(t.num_elements());
    for (std::size_t d = 0; d < t.rank(); ++d) {
        m.shape[d] = static_cast<std::uint32_t>(t.shape[d]);
        m.strides[d] = static_cast<std::int32_t>(t.strides[d]);
    }
    return m;
}

TensorMeta meta_broadcast(const VulkanTensor& t, const Shape& as) {
    assert(as.rank() >= t.rank());
    TensorMeta m;
    m.rank = static_cast<std::uint32_t>(as.rank());
    m.offset = static_cast<std::int32_t>(t.offset);
    m.numel = static_cast<std::uint32_t>(as.num_elements());
    const std::size_t lead = as.rank() - t.rank();
    for (std::size_t d = 0; d < as.rank(); ++d) {
        m.shape[d] = static_cast<std::uint32_t>(as[d]);
        if (d < lead) continue;  // stride 0
        const std::size_t td = d - lead;
        assert(t.shape[td] == as[d] || t.shape[td] == 1);
        m.strides[d] = t.shape[td] == as[d] ? static_cast<std::int32_t>(t.strides[td]) : 0;
    }
    return m;
}

Buffer meta_buffer(Context& ctx, std::initializer_list<TensorMeta> metas) {
    return ctx.upload(std::as_bytes(std::span<const TensorMeta>(metas.begin(), metas.size())));
}

const Buffer& buffer_of(const VulkanTensor& t) {
    BURN_CHECK(t.buffer != nullptr, "Vulkan: the tensor has no device buffer (moved from?)");
    return *t.buffer;
}

}  // namespace burn::vk

// The kernel set and the op table, checked once for the instantiations the library ships.
static_assert(burn::backend::diagnose_kernel_set<burn::vk::Kernels>());
static_assert(burn::diagnose_backend<burn::Vulkan<>>());
static_assert(burn::diagnose_backend<burn::Vulkan<float, std::int64_t>>());

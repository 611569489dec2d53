// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by the op families (ops_*.cpp): output allocation, tensor metadata for shaders, dtype
// names for shader variants. Internal (includes the runtime, hence <vulkan/vulkan.h>).
//
// Conventions every op follows:
//  - Inputs may be any view (strides: 0 broadcast, negative flip; element offset): shaders read
//    them through a TensorMeta (tensor_meta.glsl) instead of forcing contiguous copies.
//  - Outputs are new contiguous tensors from alloc() (or the input itself when it is unique,
//    dense and of the output's dtype: in-place reuse, as the CPU backend does).
//  - Device storage per dtype: F32 float, I32 int, I64 int64_t (shaderInt64), Bool uint (0/1),
//    QInt8 packed 4 per word. One shader variant per dtype: <op>_<suffix>.comp with suffix
//    dtype_suffix(dtype) ("f32", "i32", "i64", "u32" for bool), or a generated variant.
//  - Sizes and indices in shaders are 32-bit: check_u32(op, n) before launching.
//  - Errors: burn::Error naming "Vulkan <op>", the shapes and dtypes.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>

#include "burn/backend/shapes.hpp"
#include "burn/backend/vulkan.hpp"
#include "runtime.hpp"

namespace burn::vk {

/// The shared Context of a tensor's (or a device's) device.
Context& context(const VulkanDevice& device);
inline Context& context(const VulkanTensor& t) { return context(t.device); }

/// A new contiguous tensor of `shape` and `dtype` on `device` (uninitialised).
VulkanTensor alloc(const Shape& shape, DType dtype, const VulkanDevice& device);

/// "f32", "i32", "i64", "u32" (bool): the suffix of a shader variant for that storage type.
const char* dtype_suffix(DType dtype);

/// Throws burn::Error("Vulkan <op>: ...") unless n fits the shaders' 32-bit indices.
void check_u32(const char* op, std::uint64_t n);

/// How a shader sees a tensor (std430 layout, matching tensor_meta.glsl): rank, element offset,
/// shape and strides (elements) for up to 8 dims.
struct TensorMeta {
    std::uint32_t rank = 0;
    std::int32_t offset = 0;
    std::uint32_t numel = 0;
    std::uint32_t pad_ = 0;
    std::uint32_t shape[8] = {};
    std::int32_t strides[8] = {};
};
static_assert(sizeof(TensorMeta) == 80);

/// The metadata of `t`, optionally seen with another shape it broadcasts to (`as`: strides 0 on
/// broadcast dims, leading dims added).
TensorMeta meta(const VulkanTensor& t);
TensorMeta meta_broadcast(const VulkanTensor& t, const Shape& as);

/// A device buffer holding these metadata records in order (bind it as a readonly storage
/// buffer `TensorMeta metas[]`).
Buffer meta_buffer(Context& ctx, std::initializer_list<TensorMeta> metas);

/// The device buffer of a tensor (throws burn::Error for an empty handle).
const Buffer& buffer_of(const VulkanTensor& t);

}  // namespace burn::vk

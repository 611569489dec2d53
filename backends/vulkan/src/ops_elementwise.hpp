// SPDX-License-Identifier: MIT OR Apache-2.0
// Helpers shared by ops_elementwise.cpp and ops_activation.cpp (internal): the push-constant
// record of the element-wise shaders (elementwise_common.glsl), output selection with in-place
// reuse, and the 1-D launch.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "ops_common.hpp"

namespace burn::vk::ew {

/// Workgroup size of the element-wise shaders.
inline constexpr std::uint32_t kWorkgroup = 256;
/// Elements per thread of the elementwise kernels on tensors of 2^20 elements or more.
inline constexpr std::uint32_t kItems = 4;

/// The push constants of every element-wise shader (elementwise_common.glsl).
struct Push {
    std::uint32_t n = 0, op = 0, flags = 0, pad0 = 0;
    std::uint32_t param[4] = {};  ///< p0..p3 of the shaders
};
static_assert(sizeof(Push) == 32);

std::uint32_t float_bits(double v);
/// Stores a scalar of dtype dt into param[slot] (i64: two words, low first).
void set_scalar(Push& p, DType dt, ScalarArg s, std::uint32_t slot);
/// burn::Error unless dt is f32, i32, i64 or bool.
void check_dtype(const char* op, DType dt);
/// t is row-major dense with n elements at offset 0 (the shaders read element i at i and skip
/// its TensorMeta).
bool dense_as(const VulkanTensor& t, std::size_t n);

/// The metas binding of a launch: the records uploaded when some operand needs them, else (every
/// operand dense at offset 0, no upload) `fallback`, bound but never read.
struct MetaBinding {
    Buffer owned;
    const Buffer* fallback = nullptr;
    const Buffer* get() const { return owned.empty() ? fallback : &owned; }
};
MetaBinding metas_if(bool needed, Context& ctx, std::initializer_list<TensorMeta> records,
                     const Buffer& fallback);
/// t is unique, dense, at offset 0 and of this shape and dtype: the op may write into it.
bool reusable(const VulkanTensor& t, const Shape& shape, DType dtype);
VulkanTensor output_for(const VulkanTensor& t, const Shape& shape, DType dtype);
/// One invocation per element (n of them; push.n is set here) of the embedded `shader`.
void launch(const char* op, const std::string& shader, std::initializer_list<const Buffer*> buffers,
            Push push, std::uint64_t n, const VulkanDevice& device);

}  // namespace burn::vk::ew

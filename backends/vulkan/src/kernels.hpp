// SPDX-License-Identifier: MIT OR Apache-2.0
// Launch functions of the proof kernels (kernels/vulkan/fill.comp, add_f32.comp). They only
// record work: read the result with Context::read.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime.hpp"

namespace burn::vk {

/// Workgroup size used by the elementwise kernels (a specialization constant of each).
inline constexpr std::uint32_t kElementwiseWorkgroup = 256;

/// out[0, n) = value (floats). out must hold at least n floats.
void fill(Context& ctx, const Buffer& out, std::size_t n, float value);
/// c[0, n) = a + b elementwise (floats); c may be a or b.
void add_f32(Context& ctx, const Buffer& a, const Buffer& b, const Buffer& c, std::size_t n,
             std::uint32_t workgroup = kElementwiseWorkgroup);

}  // namespace burn::vk

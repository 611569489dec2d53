// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide on the vulkan backend (guide --backend vulkan).
#include <burn/backend/vulkan.hpp>

#include "app.hpp"

namespace guide {

int run_vulkan(const Options& o) { return run<burn::Vulkan<>>(o, burn::VulkanDevice{}); }

}  // namespace guide

// SPDX-License-Identifier: MIT OR Apache-2.0
// The mnist example on the vulkan backend (mnist --backend vulkan).
#include <burn/backend/vulkan.hpp>

#include "mnist.hpp"

namespace mnist {

int run_vulkan(const Options& o) {
    return run<burn::Autodiff<burn::Vulkan<>>>(o, burn::VulkanDevice{});
}

}  // namespace mnist

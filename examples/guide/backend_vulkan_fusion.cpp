// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide on the vulkan backend with kernel fusion (guide --backend vulkan-fusion): training
// runs on Autodiff<Fusion<Vulkan<>>>, inference on Fusion<Vulkan<>>; each fused program is one
// GLSL shader generated and compiled by shaderc on first use (docs/fusion.md).
#include <burn/backend/vulkan.hpp>
#include <burn/fusion/fusion.hpp>

#include "app.hpp"

namespace guide {

int run_vulkan_fusion(const Options& o) {
    return run<burn::Fusion<burn::Vulkan<>>>(o, burn::VulkanDevice{});
}

}  // namespace guide

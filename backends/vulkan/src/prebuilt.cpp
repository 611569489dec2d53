// SPDX-License-Identifier: MIT OR Apache-2.0
// The prebuilt instance Autodiff<Vulkan<>> (burn/backend/prebuilt.hpp): compiled here once,
// declared extern in users' files.
#include "burn/autodiff/autodiff.hpp"
#include "burn/backend/vulkan.hpp"

namespace burn {
template struct Autodiff<Vulkan<>>;
}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// The Learner on two Vulkan devices of one process (LearnerBuilder::devices): one replica per
// device on its own thread. CTest runs it with lavapipe listed twice (vulkan_multi_device), so
// two devices exist; with fewer it skips.
#include <gtest/gtest.h>
#include <unistd.h>

#include <burn/backend/vulkan.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "../distributed/multi_device.hpp"

namespace {

using namespace burn;
using B = Vulkan<float>;

std::vector<float> train_on(const std::vector<VulkanDevice>& devices, std::size_t batch,
                            const std::filesystem::path& dir) {
    return regression::train_on_devices<B, float>(devices, batch, dir);
}

TEST(VulkanMultiDevice, TwoDevicesEqualOneDeviceOnTheCombinedBatches) {
    if (vulkan_devices().size() < 2)
        GTEST_SKIP() << "needs 2 Vulkan devices, found " << vulkan_devices().size();
    const auto dir = std::filesystem::temp_directory_path() /
                     ("burn-vk-multi-device-" + std::to_string(::getpid()));
    const auto two = train_on({VulkanDevice{0}, VulkanDevice{1}}, 8, dir / "two");
    const auto one = train_on({VulkanDevice{0}}, 16, dir / "one");
    ASSERT_EQ(two.size(), one.size());
    for (std::size_t i = 0; i < one.size(); ++i)
        EXPECT_NEAR(two[i], one[i], 1e-4 * (1 + std::abs(one[i]))) << "parameter " << i;
    std::filesystem::remove_all(dir);
}

}  // namespace

// SPDX-License-Identifier: MIT OR Apache-2.0
// The Learner on two Vulkan devices of one process (LearnerBuilder::devices): one replica per
// device on its own thread. CTest runs it with lavapipe listed twice (vulkan_multi_device), so
// two devices exist; with fewer it skips.
#include <gtest/gtest.h>
#include <unistd.h>

#include <burn/autodiff/autodiff.hpp>
#include <burn/backend/vulkan.hpp>
#include <burn/optim.hpp>
#include <burn/train.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "../distributed/regression.hpp"

namespace {

using namespace burn;
using B = Vulkan<float>;
using AD = Autodiff<B>;
using regression::Batcher;
using regression::make_data;
using regression::Net;

std::vector<float> train_on(const std::vector<VulkanDevice>& devices, std::size_t batch,
                            const std::filesystem::path& dir) {
    auto train_loader = data::DataLoaderBuilder(Batcher<AD>{})
                            .batch_size(batch)
                            .shuffle(11)
                            .set_device(devices.front())
                            .build(make_data(96, 1));
    auto valid_loader = data::DataLoaderBuilder(Batcher<B>{})
                            .batch_size(batch)
                            .set_device(devices.front())
                            .build(make_data(32, 2));
    AD::seed(5);
    auto model = Net<AD>{nn::LinearConfig{.d_input = 4, .d_output = 1}.init<AD>(devices.front())};
    auto learner = train::LearnerBuilder<Net<AD>>(dir)
                       .metric_train_numeric(train::LossMetric{})
                       .metric_valid_numeric(train::LossMetric{})
                       .num_epochs(3)
                       .renderer(train::silent_renderer())
                       .handle_sigint(false)
                       .devices(devices)
                       .build(model, optim::AdamConfig{}.init<AD, Net<AD>>(), 5e-2);
    const auto trained = learner.fit(train_loader, valid_loader);
    auto v = trained.fc.weight.val().to_data().to_vec<float>();
    const auto b = trained.fc.bias->val().to_data().to_vec<float>();
    v.insert(v.end(), b.begin(), b.end());
    return v;
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

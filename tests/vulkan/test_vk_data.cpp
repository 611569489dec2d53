// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan data in and out: from_data / into_data round trips for every dtype, empty tensors,
// devices.
#include "vk_support.hpp"

using namespace burn;
using namespace burn::vktest;

TEST(VulkanData, RoundTripsEveryKind) {
    BURN_REQUIRE_VULKAN();
    const auto f = TensorData::from_nested<float, 2>({{1.5f, -2.0f, 3.25f}, {0.0f, 7.0f, -8.5f}});
    EXPECT_EQ((Tensor<VB, 2>::from_data(f).to_data()), f);
    const auto i = TensorData::from_nested<std::int32_t, 2>({{1, -2}, {2147483647, -7}});
    EXPECT_EQ((Tensor<VB, 2, Int>::from_data(i).to_data()), i);
    const auto b = TensorData::from_nested<bool, 1>({true, false, true, true});
    EXPECT_EQ((Tensor<VB, 1, Bool>::from_data(b).to_data()), b);
    // f64 input converted to the backend's f32.
    const auto d = TensorData::from_nested<double, 1>({0.5, 1.25});
    EXPECT_EQ((Tensor<VB, 1>::from_data(d).to_data()), (TensorData::from_nested<float, 1>({0.5f, 1.25f})));
}

TEST(VulkanData, EmptyTensorsAndDevice) {
    BURN_REQUIRE_VULKAN();
    const auto t = Tensor<VB, 2>::from_data(TensorData(std::vector<float>{}, Shape{0, 3}));
    EXPECT_EQ(t.dims(), (std::array<std::size_t, 2>{0, 3}));
    EXPECT_EQ(t.to_data().num_elements(), 0u);
    EXPECT_EQ(t.device(), VulkanDevice{});
    const auto big = vk_random(Shape{1000, 257});
    EXPECT_EQ((Tensor<VB, 2>::from_data(big).to_data()), big);
}

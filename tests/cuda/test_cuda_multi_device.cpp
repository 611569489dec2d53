// SPDX-License-Identifier: MIT OR Apache-2.0
// The Learner on two GPUs of one process (LearnerBuilder::devices): one replica per GPU on its own
// thread, gradients averaged through host memory. Skipped with a reason without two GPUs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <burn/backend/cuda.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "../distributed/multi_device.hpp"

namespace {

using namespace burn;
using B = Cuda<double>;

std::vector<double> train_on(const std::vector<CudaDevice>& devices, std::size_t batch,
                             const std::filesystem::path& dir) {
    return regression::train_on_devices<B, double>(devices, batch, dir);
}

TEST(CudaMultiDevice, TwoGpusEqualOneGpuOnTheCombinedBatches) {
    if (cuda_device_count() < 2)
        GTEST_SKIP() << "needs 2 CUDA devices, found " << cuda_device_count() << " ("
                     << cuda_unavailable_reason() << ")";
    const auto dir = std::filesystem::temp_directory_path() /
                     ("burn-cuda-multi-device-" + std::to_string(::getpid()));
    const auto two = train_on({CudaDevice{0}, CudaDevice{1}}, 8, dir / "two");
    const auto one = train_on({CudaDevice{0}}, 16, dir / "one");
    ASSERT_EQ(two.size(), one.size());
    for (std::size_t i = 0; i < one.size(); ++i)
        EXPECT_NEAR(two[i], one[i], 1e-9 * (1 + std::abs(one[i]))) << "parameter " << i;
    EXPECT_EQ(train_on({CudaDevice{0}, CudaDevice{1}}, 8, dir / "again"), two);
    std::filesystem::remove_all(dir);
}

}  // namespace

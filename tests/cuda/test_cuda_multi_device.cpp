// SPDX-License-Identifier: MIT OR Apache-2.0
// The Learner on two GPUs of one process (LearnerBuilder::devices): one replica per GPU on its own
// thread, gradients averaged through host memory. Skipped with a reason without two GPUs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <burn/autodiff/autodiff.hpp>
#include <burn/backend/cuda.hpp>
#include <burn/optim.hpp>
#include <burn/train.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "../distributed/regression.hpp"

namespace {

using namespace burn;
using B = Cuda<double>;
using AD = Autodiff<B>;
using regression::Batcher;
using regression::make_data;
using regression::Net;

/// 3 epochs of Adam over 96 shuffled items: on `devices`, batches of 8 per device.
std::vector<double> train_on(const std::vector<CudaDevice>& devices, std::size_t batch,
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
    EXPECT_EQ(trained.fc.weight.val().device().index, devices.front().index);
    auto v = trained.fc.weight.val().to_data().to_vec<double>();
    const auto b = trained.fc.bias->val().to_data().to_vec<double>();
    v.insert(v.end(), b.begin(), b.end());
    return v;
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

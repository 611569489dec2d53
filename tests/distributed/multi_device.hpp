// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU multi-device Learner tests' run (tests/cuda/test_cuda_multi_device.cpp,
// tests/vulkan/test_vk_multi_device.cpp): the regression model trained 3 epochs with Adam on 96
// shuffled items over `devices` (a replica per device when there are several), batches of
// `batch` per device; checks that the model comes back on the first device and returns its
// weights and bias.
#pragma once

#include <gtest/gtest.h>

#include <burn/autodiff/autodiff.hpp>
#include <burn/optim.hpp>
#include <burn/train.hpp>
#include <filesystem>
#include <vector>

#include "regression.hpp"

namespace regression {

template <Backend B, class E = float>
std::vector<E> train_on_devices(const std::vector<typename B::Device>& devices, std::size_t batch,
                                const std::filesystem::path& dir) {
    using AD = Autodiff<B>;
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
    EXPECT_TRUE(trained.fc.weight.val().device() == devices.front())
        << "fit returns the first device's model";
    auto v = trained.fc.weight.val().to_data().template to_vec<E>();
    const auto b = trained.fc.bias->val().to_data().template to_vec<E>();
    v.insert(v.end(), b.begin(), b.end());
    return v;
}

}  // namespace regression

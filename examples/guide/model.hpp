// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide's model (the Burn book's src/model.rs): two 3x3 convolutions (1 -> 8 -> 16 channels),
// dropout, ReLU, adaptive average pooling to 8x8, then linear 1024 -> hidden -> classes.
// Generic over the backend: Model<Autodiff<Cpu<float>>> trains, Model<Cpu<float>> validates and
// infers. Its learner steps (forward_classification, train_step, valid_step) are declared here and
// defined in training.hpp, as the book adds them in src/training.rs.
#pragma once

#include <array>
#include <cstddef>

#include <burn/burn.hpp>
#include <burn/train.hpp>

#include "data.hpp"

namespace guide {

using burn::Backend;
using burn::Required;
using burn::Tensor;
namespace nn = burn::nn;

template <Backend B>
struct Model {
    nn::Conv2d<B> conv1;
    nn::Conv2d<B> conv2;
    nn::AdaptiveAvgPool2d pool;
    nn::Dropout dropout;
    nn::Linear<B> linear1;
    nn::Linear<B> linear2;
    nn::Relu activation;
    BURN_MODULE(conv1, conv2, pool, dropout, linear1, linear2, activation)

    /// images [batch, height, width] -> logits [batch, num_classes]
    Tensor<B, 2> forward(const Tensor<B, 3>& images) const {
        const auto [batch_size, height, width] = images.dims();
        // Create a channel at the second dimension.
        auto x = images.template reshape<4>(std::array<std::size_t, 4>{batch_size, 1, height, width});
        x = conv1.forward(x);  // [batch_size, 8, _, _]
        x = dropout.forward(x);
        x = conv2.forward(x);  // [batch_size, 16, _, _]
        x = dropout.forward(x);
        x = activation.forward(x);
        x = pool.forward(x);  // [batch_size, 16, 8, 8]
        auto h = x.template reshape<2>(std::array<std::size_t, 2>{batch_size, 16 * 8 * 8});
        h = linear1.forward(h);
        h = dropout.forward(h);
        h = activation.forward(h);
        return linear2.forward(h);  // [batch_size, num_classes]
    }

    // The learner's steps (the book's TrainStep and ValidStep impls), defined in training.hpp.
    burn::train::ClassificationOutput<B> forward_classification(const Tensor<B, 3>& images,
                                                                const Tensor<B, 1, burn::Int>& targets) const;
    burn::train::TrainOutput<burn::train::ClassificationOutput<B>> train_step(const MnistBatch<B>& batch) const
        requires burn::AutodiffBackend<B>;
    burn::train::ClassificationOutput<B> valid_step(const MnistBatch<B>& batch) const;
};

struct ModelConfig {
    Required<std::size_t> num_classes;
    Required<std::size_t> hidden_size;
    double dropout = 0.5;
    BURN_CONFIG(ModelConfig, num_classes, hidden_size, dropout)

    /// Returns the initialized model.
    template <Backend B>
    Model<B> init(const typename B::Device& device = {}) const {
        return Model<B>{
            .conv1 = nn::Conv2dConfig{.channels = {1, 8}, .kernel_size = {3, 3}}.init<B>(device),
            .conv2 = nn::Conv2dConfig{.channels = {8, 16}, .kernel_size = {3, 3}}.init<B>(device),
            .pool = nn::AdaptiveAvgPool2dConfig{.output_size = {8, 8}}.init(),
            .dropout = nn::DropoutConfig{.prob = dropout}.init(),
            .linear1 = nn::LinearConfig{.d_input = 16 * 8 * 8, .d_output = *hidden_size}.init<B>(device),
            .linear2 = nn::LinearConfig{.d_input = *hidden_size, .d_output = *num_classes}.init<B>(device),
            .activation = nn::Relu{},
        };
    }
};

}  // namespace guide

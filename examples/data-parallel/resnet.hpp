// SPDX-License-Identifier: MIT OR Apache-2.0
// ResNet-18 (He et al. 2015; torchvision's resnet18 layer for layer: a 7x7 stride-2 stem, a 3x3
// stride-2 max pool, four stages of two basic blocks with 64, 128, 256 and 512 channels, global
// average pooling, one linear layer), generic over the backend, and a loader of random images:
// the data-parallel example's benchmark model (`--model resnet18`).
#pragma once

#include <array>
#include <burn/burn.hpp>
#include <burn/train.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace resnet {

using burn::Backend;
using burn::Tensor;
namespace nn = burn::nn;

template <Backend B>
nn::Conv2d<B> conv(std::size_t in, std::size_t out, std::size_t kernel, std::size_t stride,
                   const typename B::Device& device) {
    const std::size_t pad = kernel / 2;
    return nn::Conv2dConfig{.channels = {in, out},
                            .kernel_size = {kernel, kernel},
                            .stride = {stride, stride},
                            .padding = nn::PaddingConfig2d::symmetric(pad, pad),
                            .bias = false}
        .init<B>(device);
}

template <Backend B>
nn::BatchNorm<B> norm(std::size_t channels, const typename B::Device& device) {
    return nn::BatchNormConfig{.num_features = channels}.init<B>(device);
}

/// The 1x1 convolution and norm that match the shortcut to a block's output shape.
template <Backend B>
struct Downsample {
    nn::Conv2d<B> conv;
    nn::BatchNorm<B> norm;
    BURN_MODULE(conv, norm)
};

/// conv 3x3 (stride) -> norm -> ReLU -> conv 3x3 -> norm, plus the shortcut, -> ReLU.
template <Backend B>
struct BasicBlock {
    nn::Conv2d<B> conv1;
    nn::BatchNorm<B> norm1;
    nn::Conv2d<B> conv2;
    nn::BatchNorm<B> norm2;
    std::optional<Downsample<B>> downsample;
    nn::Relu relu;
    BURN_MODULE(conv1, norm1, conv2, norm2, downsample, relu)

    static BasicBlock init(std::size_t in, std::size_t out, std::size_t stride,
                           const typename B::Device& device) {
        BasicBlock b{conv<B>(in, out, 3, stride, device),
                     norm<B>(out, device),
                     conv<B>(out, out, 3, 1, device),
                     norm<B>(out, device),
                     std::nullopt,
                     {}};
        if (stride != 1 || in != out)
            b.downsample = Downsample<B>{conv<B>(in, out, 1, stride, device), norm<B>(out, device)};
        return b;
    }

    Tensor<B, 4> forward(const Tensor<B, 4>& x) const {
        auto y = relu.forward(norm1.forward(conv1.forward(x)));
        y = norm2.forward(conv2.forward(y));
        const auto shortcut =
            downsample ? downsample->norm.forward(downsample->conv.forward(x)) : x;
        return relu.forward(y + shortcut);
    }
};

/// A batch of images [batch, 3, size, size] and their classes [batch].
template <Backend B>
struct ImageBatch {
    Tensor<B, 4> images;
    Tensor<B, 1, burn::Int> targets;
};

template <Backend B>
struct ResNet18 {
    nn::Conv2d<B> stem;
    nn::BatchNorm<B> stem_norm;
    nn::MaxPool2d pool;
    std::vector<BasicBlock<B>> blocks;
    nn::AdaptiveAvgPool2d head_pool;
    nn::Linear<B> fc;
    nn::Relu relu;
    BURN_MODULE(stem, stem_norm, pool, blocks, head_pool, fc, relu)

    static ResNet18 init(std::size_t num_classes, const typename B::Device& device = {}) {
        ResNet18 m{conv<B>(3, 64, 7, 2, device),
                   norm<B>(64, device),
                   nn::MaxPool2dConfig{.kernel_size = {3, 3},
                                       .strides = std::array<std::size_t, 2>{2, 2},
                                       .padding = nn::PaddingConfig2d::symmetric(1, 1)}
                       .init(),
                   {},
                   nn::AdaptiveAvgPool2dConfig{.output_size = {1, 1}}.init(),
                   nn::LinearConfig{.d_input = 512, .d_output = num_classes}.init<B>(device),
                   {}};
        std::size_t in = 64;
        for (const std::size_t out : {64, 128, 256, 512}) {
            for (std::size_t i = 0; i < 2; ++i) {
                m.blocks.push_back(
                    BasicBlock<B>::init(in, out, i == 0 && out != 64 ? 2 : 1, device));
                in = out;
            }
        }
        return m;
    }

    /// images [batch, 3, height, width] -> logits [batch, num_classes]
    Tensor<B, 2> forward(const Tensor<B, 4>& images) const {
        auto x = pool.forward(relu.forward(stem_norm.forward(stem.forward(images))));
        for (const auto& block : blocks) x = block.forward(x);
        const auto batch = x.dims()[0];
        return fc.forward(
            head_pool.forward(x).template reshape<2>(std::array<std::size_t, 2>{batch, 512}));
    }

    burn::train::ClassificationOutput<B> forward_classification(const ImageBatch<B>& batch) const {
        auto output = forward(batch.images);
        auto loss =
            nn::CrossEntropyLossConfig{}.init<B>(output.device()).forward(output, batch.targets);
        return {loss, output, batch.targets};
    }
    burn::train::TrainOutput<burn::train::ClassificationOutput<B>> train_step(
        const ImageBatch<B>& batch) const requires burn::AutodiffBackend<B> {
        auto item = forward_classification(batch);
        auto grads = item.loss.backward();
        return {*this, grads, std::move(item)};
    }
    burn::train::ClassificationOutput<B> valid_step(const ImageBatch<B>& batch) const {
        return forward_classification(batch);
    }
};

/// Random images drawn on the device (normal, mean 0, std 1) with the classes item % classes: a
/// throughput benchmark's input, with no host-side decoding or transfer in the way.
template <Backend B>
struct RandomImageBatcher {
    std::size_t image_size = 224;
    std::size_t num_classes = 1000;

    ImageBatch<B> batch(const std::vector<std::size_t>& items,
                        const typename B::Device& device) const {
        const std::size_t n = items.size();
        std::vector<std::int64_t> targets(n);
        for (std::size_t i = 0; i < n; ++i)
            targets[i] = static_cast<std::int64_t>(items[i] % num_classes);
        return {Tensor<B, 4>::random({n, 3, image_size, image_size},
                                     burn::Distribution::Normal(0.0, 1.0), device),
                Tensor<B, 1, burn::Int>::from_data(
                    burn::TensorData(std::move(targets), burn::Shape{n}), device)};
    }
};

/// The indices 0 .. n-1: the items of RandomImageBatcher.
inline burn::data::InMemDataset<std::size_t> indices(std::size_t n) {
    std::vector<std::size_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = i;
    return burn::data::InMemDataset<std::size_t>(std::move(v));
}

}  // namespace resnet

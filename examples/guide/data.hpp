// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide's data (the Burn book's src/data.rs): a batcher turning MnistItems into a batch of
// normalised images [batch, 28, 28] and Int targets [batch].
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <burn/burn.hpp>

namespace guide {

template <burn::Backend B>
struct MnistBatch {
    burn::Tensor<B, 3> images;
    burn::Tensor<B, 1, burn::Int> targets;
};

/// Normalises with MNIST's mean and standard deviation (0.1307, 0.3081), as the book's batcher
/// (and PyTorch's MNIST examples) do.
template <burn::Backend B>
struct MnistBatcher {
    MnistBatch<B> batch(std::vector<burn::data::MnistItem> items, const typename B::Device& device) const {
        constexpr std::size_t side = burn::data::MNIST_WIDTH;
        constexpr std::size_t pixels = side * side;
        const std::size_t n = items.size();
        std::vector<float> images(n * pixels);
        std::vector<std::int64_t> targets(n);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t p = 0; p < pixels; ++p)
                images[i * pixels + p] = (items[i].image[p] / 255.0f - 0.1307f) / 0.3081f;
            targets[i] = items[i].label;
        }
        return MnistBatch<B>{
            burn::Tensor<B, 3>::from_data(burn::TensorData(std::move(images), burn::Shape{n, side, side}),
                                          device),
            burn::Tensor<B, 1, burn::Int>::from_data(burn::TensorData(std::move(targets), burn::Shape{n}),
                                                     device),
        };
    }
};

}  // namespace guide

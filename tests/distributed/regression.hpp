// SPDX-License-Identifier: MIT OR Apache-2.0
// The data-parallel Learner tests' model: a regression y = x . (1, -2, 0.5, 3) + 0.25 + noise,
// fitted by a Linear layer (learner_worker.cpp on the CPU, nccl_worker.cpp on CUDA).
#pragma once

#include <array>
#include <burn/data.hpp>
#include <burn/nn.hpp>
#include <burn/train.hpp>
#include <random>
#include <vector>

namespace regression {

using namespace burn;

struct Item {
    std::array<double, 4> x{};
    double y = 0;
};

template <Backend BB>
struct Batch {
    Tensor<BB, 2> x, y;
};

template <Backend BB>
struct Batcher {
    Batch<BB> batch(std::vector<Item> items, const typename BB::Device& device) const {
        std::vector<double> x, y;
        for (const auto& it : items) {
            x.insert(x.end(), it.x.begin(), it.x.end());
            y.push_back(it.y);
        }
        const std::size_t n = items.size();
        return {Tensor<BB, 2>::from_data(TensorData(std::move(x), Shape{n, 4}), device),
                Tensor<BB, 2>::from_data(TensorData(std::move(y), Shape{n, 1}), device)};
    }
};

data::InMemDataset<Item> make_data(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<Item> items;
    for (std::size_t i = 0; i < n; ++i) {
        Item it;
        for (auto& v : it.x) v = u(rng);
        it.y = it.x[0] - 2 * it.x[1] + 0.5 * it.x[2] + 3 * it.x[3] + 0.25 + 0.05 * u(rng);
        items.push_back(it);
    }
    return data::InMemDataset<Item>(std::move(items));
}

template <Backend BB>
struct Net {
    nn::Linear<BB> fc;
    BURN_MODULE(fc)

    train::RegressionOutput<BB> forward_regression(const Batch<BB>& batch) const {
        auto out = fc.forward(batch.x);
        return {nn::MseLoss{}.forward(out, batch.y, nn::Reduction::Mean), out, batch.y};
    }
    train::TrainOutput<train::RegressionOutput<BB>> train_step(
        const Batch<BB>& batch) const requires AutodiffBackend<BB> {
        auto item = forward_regression(batch);
        auto grads = item.loss.backward();
        return {*this, grads, std::move(item)};
    }
    train::RegressionOutput<BB> valid_step(const Batch<BB>& batch) const {
        return forward_regression(batch);
    }
};

}  // namespace regression

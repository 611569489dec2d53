// SPDX-License-Identifier: MIT OR Apache-2.0
// The MNIST guide model (examples/guide/model.hpp: conv 1->8 3x3, conv 8->16 3x3, dropout 0.5,
// ReLU, adaptive average pool 8x8, linear 1024 -> 512 -> 10) on the CPU backend.
//
//   BM_guide_train_step  one training step on Autodiff<Cpu<float>>, batch 64: forward (dropout
//                        active), CrossEntropyLoss, backward, GradientsParams::from_grads, Adam
//                        (lr 1e-4) step; items/s = images per second
//   BM_guide_train_step_fusion  the same step on Autodiff<Fusion<Cpu<float>>>
//   BM_guide_infer/64    model.valid() forward on Cpu<float>, batch 64 (dropout is the identity)
//   BM_guide_infer/1     the same, one image (latency)
//   BM_guide_batcher     the guide's MnistBatcher on 64 items (normalisation + tensor creation)
//
// The images are random values normalised like the batcher's output ((u - 0.1307) / 0.3081 for
// u uniform in [0, 1)), the labels i * 7 + 3 mod 10. bench/compare_guide.py times the same model
// in PyTorch (and ONNX Runtime when installed); keep the names and shapes in sync with it.
#include <benchmark/benchmark.h>

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <burn/fusion/fusion.hpp>
#include <cstdint>
#include <vector>

#include "data.hpp"
#include "model.hpp"

namespace {

using B = burn::Cpu<float>;
using AD = burn::Autodiff<B>;

constexpr std::size_t kBatch = 64, kSide = 28, kClasses = 10, kHidden = 512;

guide::ModelConfig config() { return {.num_classes = kClasses, .hidden_size = kHidden}; }

template <class Bk>
burn::Tensor<Bk, 3> images(std::size_t batch) {
    return (burn::Tensor<Bk, 3>::random({batch, kSide, kSide}, burn::Distribution::Default()) -
            0.1307) *
           (1.0 / 0.3081);
}

template <class Bk>
burn::Tensor<Bk, 1, burn::Int> labels(std::size_t batch) {
    std::vector<std::int64_t> v(batch);
    for (std::size_t i = 0; i < batch; ++i)
        v[i] = static_cast<std::int64_t>((i * 7 + 3) % kClasses);
    return burn::Tensor<Bk, 1, burn::Int>::from_data(
        burn::TensorData(std::move(v), burn::Shape{batch}));
}

/// One training step (forward, backward, Adam) on Autodiff<Inner>.
template <class Inner>
void guide_train_step(benchmark::State& state) {
    using A = burn::Autodiff<Inner>;
    A::seed(42);
    auto model = config().init<A>();
    auto optim = burn::optim::AdamConfig{}.init<A, guide::Model<A>>();
    const auto x = images<A>(kBatch);
    const auto y = labels<A>(kBatch);
    const auto loss_fn = burn::nn::CrossEntropyLossConfig{}.init<A>();
    for (auto _ : state) {
        const auto output = model.forward(x);
        const auto loss = loss_fn.forward(output, y);
        auto grads = loss.backward();
        auto grads_params = burn::optim::GradientsParams<A>::from_grads(grads, model);
        model = optim.step(1e-4, model, std::move(grads_params));
    }
    benchmark::DoNotOptimize(model);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}

void BM_guide_infer(benchmark::State& state) {
    const auto batch = static_cast<std::size_t>(state.range(0));
    B::seed(42);
    const auto model = config().init<AD>().valid();
    const auto x = images<B>(batch);
    for (auto _ : state) {
        auto out = model.forward(x);
        benchmark::DoNotOptimize(out);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
}

void BM_guide_batcher(benchmark::State& state) {
    std::vector<burn::data::MnistItem> items(kBatch);
    for (std::size_t i = 0; i < kBatch; ++i) {
        for (std::size_t p = 0; p < items[i].image.size(); ++p)
            items[i].image[p] = static_cast<float>((i * 31 + p * 17) % 256);
        items[i].label = static_cast<std::uint8_t>(i % kClasses);
    }
    const guide::MnistBatcher<B> batcher;
    for (auto _ : state) {
        auto batch = batcher.batch(items, {});
        benchmark::DoNotOptimize(batch);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}

}  // namespace

BENCHMARK(guide_train_step<B>)
    ->Name("BM_guide_train_step")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// The same step on Autodiff<Fusion<Cpu<float>>>: the element-wise work of the forward, backward
// and Adam step runs as fused programs (docs/fusion.md). The parameters an Adam step leaves
// pending are computed by the next step's forward, inside the timed loop.
BENCHMARK(guide_train_step<burn::Fusion<B>>)
    ->Name("BM_guide_train_step_fusion")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_guide_infer)->Arg(256)->Arg(64)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_guide_batcher)->UseRealTime()->Unit(benchmark::kMicrosecond);

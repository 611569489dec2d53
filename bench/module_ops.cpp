// SPDX-License-Identifier: MIT OR Apache-2.0
// Benchmarks of the CPU neural-network kernels: the MNIST guide's two convolutions, a ResNet
// layer, pooling and softmax. bench/compare_pytorch.py times the same cases in PyTorch (names
// must match its CASES). "fwd" is the forward op (repeated with the same weights, as inference);
// "fwd_bwd" adds the backward kernels that autodiff runs for it (input, weight and bias
// gradients), like y.backward(gy) in PyTorch, without weights prepared by earlier iterations.
#include <benchmark/benchmark.h>

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <optional>

namespace {

using B = burn::Cpu<float>;
using T1 = burn::Tensor<B, 1>;
using T2 = burn::Tensor<B, 2>;
using T4 = burn::Tensor<B, 4>;

T4 rand4(std::size_t a, std::size_t b, std::size_t c, std::size_t d) {
    return T4::random({a, b, c, d}, burn::Distribution::Uniform(-1, 1));
}

struct ConvCase {
    std::size_t batch, cin, cout, side, padding;
};

double conv_flops(const ConvCase& c) {
    const double out = double(c.side + 2 * c.padding - 2);
    return 2.0 * double(c.batch) * double(c.cout) * out * out * double(c.cin) * 9.0;
}

void conv2d(benchmark::State& state, ConvCase c, bool backward) {
    const T4 x = rand4(c.batch, c.cin, c.side, c.side);
    const T4 w = rand4(c.cout, c.cin, 3, 3);
    const T1 b = T1::random({c.cout}, burn::Distribution::Uniform(-1, 1));
    const burn::ConvOptions<2> opt{.padding = {c.padding, c.padding}};
    const T4 gy = burn::module::conv2d(x, w, b, opt).ones_like();
    for (auto _ : state) {
        // Training changes the weights every step, so the forward cannot use a kept Winograd
        // transform of them (tensor.md): fwd_bwd drops it; fwd times repeated inference.
        if (backward) burn::cpu::release_prepared();
        T4 y = burn::module::conv2d(x, w, b, opt);
        benchmark::DoNotOptimize(y);
        if (backward) {
            auto gx = B::conv2d_x_backward(x.primitive(), w.primitive(), gy.primitive(), opt);
            auto gw = B::conv2d_weight_backward(x.primitive(), w.primitive(), gy.primitive(), opt);
            auto gb = B::conv2d_bias_backward(x.primitive(), b.primitive(), gy.primitive());
            benchmark::DoNotOptimize(gx);
            benchmark::DoNotOptimize(gw);
            benchmark::DoNotOptimize(gb);
        }
    }
    state.counters["GFLOP/s"] = benchmark::Counter(conv_flops(c) * (backward ? 3.0 : 1.0) * 1e-9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

void max_pool2d(benchmark::State& state) {
    const T4 x = rand4(64, 16, 24, 24);
    for (auto _ : state) {
        T4 y = burn::module::max_pool2d(x, {2, 2}, {2, 2}, {0, 0});
        benchmark::DoNotOptimize(y);
    }
}

void adaptive_avg_pool2d(benchmark::State& state) {
    const T4 x = rand4(64, 16, 24, 24);
    for (auto _ : state) {
        T4 y = burn::module::adaptive_avg_pool2d(x, {8, 8});
        benchmark::DoNotOptimize(y);
    }
}

void softmax(benchmark::State& state) {
    const T2 x = T2::random({64, 1000}, burn::Distribution::Uniform(-4, 4));
    for (auto _ : state) {
        T2 y = burn::activation::softmax(x, -1);
        benchmark::DoNotOptimize(y);
    }
}

constexpr ConvCase kGuide1{64, 1, 8, 28, 0};
constexpr ConvCase kGuide2{64, 8, 16, 26, 0};
constexpr ConvCase kResnet{8, 64, 64, 56, 1};
// ResNet-18's four stages (3x3, stride 1, padding 1) at batch 1 and 16.
constexpr ConvCase kResnetS1B1{1, 64, 64, 56, 1}, kResnetS2B1{1, 128, 128, 28, 1},
    kResnetS3B1{1, 256, 256, 14, 1}, kResnetS4B1{1, 512, 512, 7, 1};
constexpr ConvCase kResnetS1B16{16, 64, 64, 56, 1}, kResnetS2B16{16, 128, 128, 28, 1},
    kResnetS3B16{16, 256, 256, 14, 1}, kResnetS4B16{16, 512, 512, 7, 1};

}  // namespace

BENCHMARK_CAPTURE(conv2d, guide1_fwd, kGuide1, false)->Name("conv2d_guide1/fwd")->UseRealTime();
BENCHMARK_CAPTURE(conv2d, guide1_fwd_bwd, kGuide1, true)
    ->Name("conv2d_guide1/fwd_bwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, guide2_fwd, kGuide2, false)->Name("conv2d_guide2/fwd")->UseRealTime();
BENCHMARK_CAPTURE(conv2d, guide2_fwd_bwd, kGuide2, true)
    ->Name("conv2d_guide2/fwd_bwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, resnet_fwd, kResnet, false)->Name("conv2d_resnet/fwd")->UseRealTime();
BENCHMARK_CAPTURE(conv2d, resnet_fwd_bwd, kResnet, true)
    ->Name("conv2d_resnet/fwd_bwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s1b1, kResnetS1B1, false)->Name("conv2d_resnet_s1_b1/fwd")->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s2b1, kResnetS2B1, false)->Name("conv2d_resnet_s2_b1/fwd")->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s3b1, kResnetS3B1, false)->Name("conv2d_resnet_s3_b1/fwd")->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s4b1, kResnetS4B1, false)->Name("conv2d_resnet_s4_b1/fwd")->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s1b16, kResnetS1B16, false)
    ->Name("conv2d_resnet_s1_b16/fwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s2b16, kResnetS2B16, false)
    ->Name("conv2d_resnet_s2_b16/fwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s3b16, kResnetS3B16, false)
    ->Name("conv2d_resnet_s3_b16/fwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s4b16, kResnetS4B16, false)
    ->Name("conv2d_resnet_s4_b16/fwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s1b16b, kResnetS1B16, true)
    ->Name("conv2d_resnet_s1_b16/fwd_bwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s2b16b, kResnetS2B16, true)
    ->Name("conv2d_resnet_s2_b16/fwd_bwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s3b16b, kResnetS3B16, true)
    ->Name("conv2d_resnet_s3_b16/fwd_bwd")
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, s4b16b, kResnetS4B16, true)
    ->Name("conv2d_resnet_s4_b16/fwd_bwd")
    ->UseRealTime();
BENCHMARK(max_pool2d)->Name("max_pool2d/2x2_64x16x24x24")->UseRealTime();
BENCHMARK(adaptive_avg_pool2d)->Name("adaptive_avg_pool2d/8x8_64x16x24x24")->UseRealTime();
BENCHMARK(softmax)->Name("softmax/64x1000")->UseRealTime();

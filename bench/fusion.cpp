// SPDX-License-Identifier: MIT OR Apache-2.0
// Kernel fusion on the CPU: Burn's README GELU written with tensor ops,
// x * (erf(x / sqrt 2) + 1) / 2, over 64M f32 values (256 MiB in, 256 MiB out):
//
//   gelu_custom/64M          Fusion<Cpu<float>>: the five ops run as one fused program (one
//                            read and one write of memory), to_data excluded
//   gelu_custom_unfused/64M  Cpu<float>: five kernels, five trips through memory
//
// The input is made once; each iteration records the five ops and reads one element of the
// result, which computes the whole pending tensor (fused) or nothing more (unfused: the kernels
// ran eagerly). bench/compare_pytorch.py times the same formula in PyTorch eager
// ("gelu_custom/64M") and prints the fused / unfused ratio.
//
// Reductions with element-wise work before them (one program that computes and reduces):
//
//   softmax_scaled/4096x1024   softmax(x * 0.125 + bias, -1), attention-style, bias [1, 1024]
//   mse/16M                    (a - b).powf_scalar(2).mean() over two 16M tensors (a loss)
//
// and their _unfused counterparts on Cpu<float> (two and three kernels).
#include <benchmark/benchmark.h>

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <burn/fusion/fusion.hpp>
#include <cmath>
#include <cstddef>

namespace {

constexpr std::size_t kRows = 16384, kCols = 4096;  // 64M values

template <class B>
burn::Tensor<B, 2> custom_gelu(const burn::Tensor<B, 2>& x) {
    return x * ((x / std::sqrt(2.0)).erf() + 1.0) / 2.0;
}

template <class B>
void gelu_custom(benchmark::State& state) {
    const auto x = burn::Tensor<B, 2>::random(burn::Shape{kRows, kCols},
                                              burn::Distribution::Uniform(-4.0, 4.0));
    for (auto _ : state) {
        auto y = custom_gelu(x);
        benchmark::DoNotOptimize(B::float_into_data(y.slice({{0, 1}, {0, 1}}).primitive()));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kRows * kCols * 8));
}

template <class B>
void softmax_scaled(benchmark::State& state) {
    const auto x =
        burn::Tensor<B, 2>::random(burn::Shape{4096, 1024}, burn::Distribution::Uniform(-4.0, 4.0));
    const auto bias =
        burn::Tensor<B, 2>::random(burn::Shape{1, 1024}, burn::Distribution::Uniform(-1.0, 1.0));
    for (auto _ : state) {
        auto y = burn::activation::softmax(x * 0.125 + bias, -1);
        benchmark::DoNotOptimize(B::float_into_data(y.slice({{0, 1}, {0, 1}}).primitive()));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 4096 * 1024 * 8));
}

template <class B>
void mse(benchmark::State& state) {
    const auto a = burn::Tensor<B, 2>::random(burn::Shape{kRows / 4, kCols},
                                              burn::Distribution::Uniform(-1.0, 1.0));
    const auto b = burn::Tensor<B, 2>::random(burn::Shape{kRows / 4, kCols},
                                              burn::Distribution::Uniform(-1.0, 1.0));
    for (auto _ : state) {
        auto loss = (a - b).powf_scalar(2.0).mean();
        benchmark::DoNotOptimize(loss.into_scalar());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kRows / 4 * kCols * 8));
}

}  // namespace

BENCHMARK(softmax_scaled<burn::Fusion<burn::Cpu<float>>>)
    ->Name("softmax_scaled/4096x1024")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(softmax_scaled<burn::Cpu<float>>)
    ->Name("softmax_scaled_unfused/4096x1024")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(mse<burn::Fusion<burn::Cpu<float>>>)
    ->Name("mse/16M")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(mse<burn::Cpu<float>>)
    ->Name("mse_unfused/16M")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(gelu_custom<burn::Fusion<burn::Cpu<float>>>)
    ->Name("gelu_custom/64M")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(gelu_custom<burn::Cpu<float>>)
    ->Name("gelu_custom_unfused/64M")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

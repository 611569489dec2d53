// SPDX-License-Identifier: MIT OR Apache-2.0
// Benchmarks of the CPU backend through the public Tensor API. bench/compare_pytorch.py times the
// same cases in PyTorch and matches them by name, so keep the names in sync with CASES there.
//
// Every case keeps its result tensor alive until the iteration ends and passes it to
// DoNotOptimize; CPU ops are eager, so nothing else is needed to force evaluation. Times are wall
// clock (UseRealTime): the work runs on TBB worker threads, which CPU time would not count.
#include <benchmark/benchmark.h>

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <cstdint>

namespace {

using B = burn::Cpu<float>;
using T2 = burn::Tensor<B, 2>;
using T3 = burn::Tensor<B, 3>;

constexpr std::size_t kElems = std::size_t{1} << 24;  // 16M f32 for element-wise ops
constexpr std::size_t kSide = 4096;                   // [4096, 4096] for reductions and copies

T2 rand2(std::size_t r, std::size_t c) { return T2::random({r, c}, burn::Distribution::Default()); }

void matmul_square(benchmark::State& state, std::size_t n, burn::DType dtype = burn::DType::F32) {
    const T2 a = rand2(n, n).cast(dtype), b = rand2(n, n).cast(dtype);
    for (auto _ : state) {
        T2 c = a.matmul(b);
        benchmark::DoNotOptimize(c);
    }
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) * 1e-9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

void matmul_batched(benchmark::State& state) {
    const std::size_t b = 32, n = 128;
    const T3 x = T3::random({b, n, n}), y = T3::random({b, n, n});
    for (auto _ : state) {
        T3 c = x.matmul(y);
        benchmark::DoNotOptimize(c);
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * double(b) * double(n) * double(n) * double(n) * 1e-9,
                           benchmark::Counter::kIsIterationInvariantRate);
}

template <class Op>
void elementwise(benchmark::State& state, Op op, int inputs) {
    const T2 a = rand2(kElems / kSide, kSide), b = rand2(kElems / kSide, kSide);
    for (auto _ : state) {
        T2 c = op(a, b);
        benchmark::DoNotOptimize(c);
    }
    // Bytes moved: `inputs` reads and one write of 16M floats.
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>((inputs + 1) * kElems * sizeof(float)));
}

void sum_all(benchmark::State& state) {
    const T2 a = rand2(kSide, kSide);
    for (auto _ : state) {
        auto s = a.sum();
        benchmark::DoNotOptimize(s);
    }
    state.SetBytesProcessed(
        static_cast<std::int64_t>(state.iterations() * kSide * kSide * sizeof(float)));
}

/// A reduction along one dim of a [4096, 4096] tensor (the dim is kept, with size 1).
template <auto Op, int Dim>
void reduce_dim(benchmark::State& state) {
    const T2 a = rand2(kSide, kSide);
    for (auto _ : state) {
        T2 s = (a.*Op)(Dim);
        benchmark::DoNotOptimize(s);
    }
    state.SetBytesProcessed(
        static_cast<std::int64_t>(state.iterations() * kSide * kSide * sizeof(float)));
}

void transpose_contiguous(benchmark::State& state) {
    const T2 a = rand2(kSide, kSide);
    for (auto _ : state) {
        // A transposed view cannot be reshaped without a copy: this is the backend's contiguous
        // copy, as a.t().contiguous() in PyTorch.
        auto c = a.transpose().reshape<1>(burn::Shape{kSide * kSide});
        benchmark::DoNotOptimize(c);
    }
    state.SetBytesProcessed(
        static_cast<std::int64_t>(state.iterations() * 2 * kSide * kSide * sizeof(float)));
}

void random_default(benchmark::State& state) {
    for (auto _ : state) {
        T2 r = T2::random({kElems / kSide, kSide}, burn::Distribution::Default());
        benchmark::DoNotOptimize(r);
    }
}

void random_normal(benchmark::State& state) {
    for (auto _ : state) {
        T2 r = T2::random({kElems / kSide, kSide}, burn::Distribution::Normal(0.0, 1.0));
        benchmark::DoNotOptimize(r);
    }
}

}  // namespace

int main(int argc, char** argv) {
    B::seed(42);
    const auto ms = benchmark::kMillisecond;
    for (std::size_t n : {256, 512, 1024, 2048})
        benchmark::RegisterBenchmark(("matmul/" + std::to_string(n)).c_str(),
                                     [n](benchmark::State& s) { matmul_square(s, n); })
            ->UseRealTime()
            ->Unit(ms);
    // bf16 operands and result (computed in f32), reported against matmul/1024.
    benchmark::RegisterBenchmark(
        "matmul_bf16/1024", [](benchmark::State& s) { matmul_square(s, 1024, burn::DType::BF16); })
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("matmul_batched/32x128x128", matmul_batched)
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("add/16M",
                                 [](benchmark::State& s) {
                                     elementwise(
                                         s, [](const T2& a, const T2& b) { return a + b; }, 2);
                                 })
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("mul/16M",
                                 [](benchmark::State& s) {
                                     elementwise(
                                         s, [](const T2& a, const T2& b) { return a * b; }, 2);
                                 })
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("exp/16M",
                                 [](benchmark::State& s) {
                                     elementwise(
                                         s, [](const T2& a, const T2&) { return a.exp(); }, 1);
                                 })
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("sum/4096x4096", sum_all)->UseRealTime()->Unit(ms);
    benchmark::RegisterBenchmark("sum_dim1/4096x4096", reduce_dim<&T2::sum_dim, 1>)
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("sum_dim0/4096x4096", reduce_dim<&T2::sum_dim, 0>)
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("mean_dim1/4096x4096", reduce_dim<&T2::mean_dim, 1>)
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("transpose_contiguous/4096x4096", transpose_contiguous)
        ->UseRealTime()
        ->Unit(ms);
    benchmark::RegisterBenchmark("random_uniform/16M", random_default)->UseRealTime()->Unit(ms);
    benchmark::RegisterBenchmark("random_normal/16M", random_normal)->UseRealTime()->Unit(ms);

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

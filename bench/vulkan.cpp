// SPDX-License-Identifier: MIT OR Apache-2.0
// burn_bench_vulkan: Google Benchmark cases of the Vulkan backend (burn::Vulkan<> on the default
// device, VulkanDevice{}: BURN_VULKAN_DEVICE=n picks another). bench/compare_vulkan.py runs them
// next to PyTorch on CUDA and reads the sizes from the names (BM_VkMatmul/4096, ...), so keep the
// names and their arguments in sync with CASES there.
//
// Timing an asynchronous backend: ops only record commands, so one benchmark iteration records
// `reps` ops and then waits for the device (B::sync): the time is the GPU's. `reps` is chosen
// once per case so that an iteration holds about kTargetSeconds of device work (the sync's fixed
// cost is then a small part of it); the first op (pipeline creation, pool growth) is not timed.
// Results are dropped at once: the pool hands their buffers to the next op, as in a training
// loop, and the inputs live in the case (shared handles, so no op writes into them in place).
// Rate counters: "TFLOPS" (2 n^3 per matmul, 2 * MACs per convolution) and "GBps" (bytes read
// plus bytes written, 1e9 per GB); "reps" is the number of ops per iteration.
// Fusion<Vulkan<>> runs Burn's README GELU as one generated shader (BM_VkFusionGeluCustom; the
// unfused Vulkan<> in BM_VkGeluCustom, torch.compile and PyTorch eager in compare_vulkan.py).
//
//   burn_bench_vulkan --benchmark_filter='Matmul|Copy'
//   burn_bench_vulkan --small        # small sizes: a quick check on lavapipe (CPU Vulkan device)
//   burn_bench_vulkan --list-devices # the Vulkan devices, the default first
#include <benchmark/benchmark.h>

#include <algorithm>
#include <burn/backend/vulkan.hpp>
#include <burn/fusion/fusion.hpp>
#include <burn/tensor/activation.hpp>
#include <burn/tensor/module.hpp>
#include <burn/tensor/tensor.hpp>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "runtime.hpp"

namespace {

using B = burn::Vulkan<>;
using T1 = burn::Tensor<B, 1>;
using T2 = burn::Tensor<B, 2>;
using T4 = burn::Tensor<B, 4>;

constexpr double kTargetSeconds = 4e-3;  // device work per iteration
constexpr int kMaxReps = 200;

const burn::VulkanDevice kDevice{};

/// Calls `op` (which records one op) `reps` times per iteration, then waits for the device.
/// `work` is the counter's amount per op (TFLOP or GB); `min_reps` is a floor for cheap ops.
template <class Op>
void run_case(benchmark::State& state, const char* counter, double work, Op&& op,
              int min_reps = 1) {
    int reps = 1;
    try {
        op();  // warm-up: pipelines, pool buffers
        B::sync(kDevice);
        const auto t0 = std::chrono::steady_clock::now();
        op();
        op();
        B::sync(kDevice);
        const double per_op =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 2.0;
        reps = static_cast<int>(std::ceil(kTargetSeconds / std::max(per_op, 1e-9)));
        reps = std::clamp(reps, min_reps, kMaxReps);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    for (auto _ : state) {
        try {
            for (int r = 0; r < reps; ++r) op();
            B::sync(kDevice);
        } catch (const std::exception& e) {
            state.SkipWithError(e.what());
            break;
        }
    }
    state.counters[counter] =
        benchmark::Counter(work * reps, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["reps"] = benchmark::Counter(reps);
}

/// Skips the case when there is no Vulkan device; true when it may run.
bool have_device(benchmark::State& state) {
    if (!burn::vulkan_devices().empty()) return true;
    state.SkipWithError("no Vulkan device");
    return false;
}

T2 rand2(std::size_t r, std::size_t c) {
    return T2::random({r, c}, burn::Distribution::Default(), kDevice);
}

// [n / 4096, 4096] (or [1, n] for small n): the element-wise inputs.
T2 rand_flat(std::size_t n) {
    const std::size_t cols = n % 4096 == 0 ? 4096 : n;
    return rand2(n / cols, cols);
}

constexpr double kGB = 1e-9, kTFLOP = 1e-12;

void BM_VkMatmul(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const T2 a = rand2(n, n), b = rand2(n, n);
    const double flops = 2.0 * double(n) * double(n) * double(n);
    run_case(state, "TFLOPS", flops * kTFLOP, [&] {
        T2 c = a.matmul(b);
        benchmark::DoNotOptimize(c);
    });
}

// vkCmdCopyBuffer of n floats between two pool buffers (the runtime's Context::copy).
void BM_VkCopy(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::size_t bytes = n * sizeof(float);
    auto ctx = burn::vk::Context::get(kDevice);
    const burn::vk::Buffer src = ctx->allocate(bytes), dst = ctx->allocate(bytes);
    ctx->fill_u32(src, 0x3f800000u, bytes);  // 1.0f
    run_case(
        state, "GBps", 2.0 * double(bytes) * kGB, [&] { ctx->copy(src, dst, bytes); }, 2);
}

template <int Inputs, class Op>
void elementwise(benchmark::State& state, Op op) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const T2 a = rand_flat(n), b = rand_flat(n);
    const double bytes = double(Inputs + 1) * double(n) * sizeof(float);
    run_case(
        state, "GBps", bytes * kGB,
        [&] {
            T2 c = op(a, b);
            benchmark::DoNotOptimize(c);
        },
        2);
}

void BM_VkAdd(benchmark::State& state) {
    elementwise<2>(state, [](const T2& a, const T2& b) { return a + b; });
}
void BM_VkMulScalar(benchmark::State& state) {
    elementwise<1>(state, [](const T2& a, const T2&) { return a * 2.0f; });
}
void BM_VkExp(benchmark::State& state) {
    elementwise<1>(state, [](const T2& a, const T2&) { return a.exp(); });
}

// Burn's README GELU written with tensor ops, x * (erf(x / sqrt 2) + 1) / 2, on Vulkan<> (five
// shaders, five trips through memory) and on Fusion<Vulkan<>> (one generated shader: one read, one
// write). A fused result is computed when something needs it: each op ends with the sum of its
// first element (a one-element reduction, unfused), which makes Fusion run the pending program
// without a read to the host.
template <class Bk>
burn::Tensor<Bk, 2> custom_gelu(const burn::Tensor<Bk, 2>& x) {
    return x * ((x / std::sqrt(2.0)).erf() + 1.0) / 2.0;
}
template <class Bk>
void gelu_custom(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::size_t cols = n % 4096 == 0 ? 4096 : n;
    const auto x =
        burn::Tensor<Bk, 2>::random({n / cols, cols}, burn::Distribution::Default(), kDevice);
    run_case(
        state, "GBps", 2.0 * double(n) * sizeof(float) * kGB,
        [&] {
            auto y = custom_gelu(x).slice({{0, 1}, {0, 1}}).sum();
            benchmark::DoNotOptimize(y);
        },
        2);
}
void BM_VkGeluCustom(benchmark::State& state) { gelu_custom<B>(state); }
void BM_VkFusionGeluCustom(benchmark::State& state) { gelu_custom<burn::Fusion<B>>(state); }

// cat of two dense halves of n floats: dense device-to-device copies (a kernel on GPUs,
// vkCmdCopyBuffer on CPU devices: strided_copy in ops_layout.cpp).
void BM_VkCat(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto a = burn::Tensor<burn::Vulkan<>, 1>::random(
        burn::Shape{n / 2}, burn::Distribution::Uniform(-1.0, 1.0), kDevice);
    const auto b = burn::Tensor<burn::Vulkan<>, 1>::random(
        burn::Shape{n - n / 2}, burn::Distribution::Uniform(-1.0, 1.0), kDevice);
    run_case(
        state, "GBps", 2.0 * double(n) * sizeof(float) * kGB,
        [&] {
            auto c = burn::Tensor<burn::Vulkan<>, 1>::cat({a, b}, 0);
            benchmark::DoNotOptimize(c);
        },
        2);
}

void BM_VkSoftmax(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto r = static_cast<std::size_t>(state.range(0));
    const auto c = static_cast<std::size_t>(state.range(1));
    const T2 x = rand2(r, c);
    run_case(state, "GBps", 2.0 * double(r * c) * sizeof(float) * kGB, [&] {
        T2 y = burn::activation::softmax(x, -1);
        benchmark::DoNotOptimize(y);
    });
}

void BM_VkSum(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const T2 x = rand_flat(n);
    run_case(
        state, "GBps", double(n) * sizeof(float) * kGB,
        [&] {
            T1 s = x.sum();
            benchmark::DoNotOptimize(s);
        },
        2);
}

void BM_VkSumDim1(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto r = static_cast<std::size_t>(state.range(0));
    const auto c = static_cast<std::size_t>(state.range(1));
    const T2 x = rand2(r, c);
    run_case(
        state, "GBps", double(r * c) * sizeof(float) * kGB,
        [&] {
            T2 s = x.sum_dim(1);
            benchmark::DoNotOptimize(s);
        },
        2);
}

struct Conv {
    std::size_t cin, cout, side, padding;
    std::size_t out() const { return side + 2 * padding - 2; }  // 3x3, stride 1
    double flops(std::size_t batch) const {
        return 2.0 * double(batch) * double(cout) * double(out() * out()) * double(cin) * 9.0;
    }
};

/// Convolutions applied one after the other to a [batch, layers[0].cin, side, side] input.
void conv_chain(benchmark::State& state, std::vector<Conv> layers) {
    if (!have_device(state)) return;
    const auto batch = static_cast<std::size_t>(state.range(0));
    const auto u = burn::Distribution::Uniform(-1, 1);
    const T4 x = T4::random({batch, layers[0].cin, layers[0].side, layers[0].side}, u, kDevice);
    std::vector<T4> w;
    std::vector<T1> b;
    double flops = 0;
    for (const Conv& l : layers) {
        w.push_back(T4::random({l.cout, l.cin, 3, 3}, u, kDevice));
        b.push_back(T1::random({l.cout}, u, kDevice));
        flops += l.flops(batch);
    }
    run_case(state, "TFLOPS", flops * kTFLOP, [&] {
        T4 y = x;
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const burn::ConvOptions<2> opt{.padding = {layers[i].padding, layers[i].padding}};
            y = burn::module::conv2d(y, w[i], b[i], opt);
        }
        benchmark::DoNotOptimize(y);
    });
}

// The MNIST guide model's two convolutions (examples/guide/model.hpp): 1 -> 8 channels on 28x28,
// then 8 -> 16 on 26x26, 3x3, no padding.
void BM_VkConv2dGuide(benchmark::State& state) {
    conv_chain(state, {{1, 8, 28, 0}, {8, 16, 26, 0}});
}
// A ResNet layer: 3x3, 64 -> 64 channels, 56x56, padding 1.
void BM_VkConv2dResnet(benchmark::State& state) { conv_chain(state, {{64, 64, 56, 1}}); }

/// `max_binding`: the device's largest storage-buffer binding in bytes (0: no device). The 64M
/// cases are halved until one tensor fits in it (lavapipe: 128 MiB); the names carry the sizes.
void register_cases(bool small, std::uint64_t max_binding) {
    using benchmark::RegisterBenchmark;
    std::int64_t elems = small ? (1 << 20) : (1 << 26);  // 64M f32: 256 MiB per tensor
    while (max_binding != 0 && std::uint64_t(elems) * sizeof(float) > max_binding && elems > 4096)
        elems /= 2;
    // A failure while setting a case up (e.g. a tensor larger than the device's largest storage
    // buffer binding) skips that case with the message; run_case catches those of the timing.
    auto reg = [](const char* name, void (*fn)(benchmark::State&)) {
        auto guarded = [fn](benchmark::State& state) {
            try {
                fn(state);
            } catch (const std::exception& e) {
                state.SkipWithError(e.what());
            }
        };
        return RegisterBenchmark(name, guarded)->UseRealTime()->Unit(benchmark::kMillisecond);
    };
    auto* mm = reg("BM_VkMatmul", BM_VkMatmul);
    for (std::int64_t n :
         small ? std::vector<std::int64_t>{128, 256} : std::vector<std::int64_t>{1024, 2048, 4096})
        mm->Arg(n);
    reg("BM_VkCopy", BM_VkCopy)->Arg(elems);
    reg("BM_VkAdd", BM_VkAdd)->Arg(elems);
    reg("BM_VkMulScalar", BM_VkMulScalar)->Arg(elems);
    reg("BM_VkExp", BM_VkExp)->Arg(elems);
    reg("BM_VkGeluCustom", BM_VkGeluCustom)->Arg(elems);
    reg("BM_VkFusionGeluCustom", BM_VkFusionGeluCustom)->Arg(elems);
    reg("BM_VkCat", BM_VkCat)->Arg(elems);
    reg("BM_VkSoftmax", BM_VkSoftmax)
        ->Args(small ? std::vector<std::int64_t>{256, 1024}
                     : std::vector<std::int64_t>{4096, 4096});
    reg("BM_VkSum", BM_VkSum)->Arg(elems);
    const std::int64_t cols = small ? 4096 : 16384;
    reg("BM_VkSumDim1", BM_VkSumDim1)->Args({(small ? 256 : elems / cols), cols});
    reg("BM_VkConv2dGuide", BM_VkConv2dGuide)->Arg(small ? 4 : 64);
    reg("BM_VkConv2dResnet", BM_VkConv2dResnet)->Arg(small ? 1 : 32);
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    bool small = false, list_devices = false;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--small") == 0) small = true;
        else if (std::strcmp(argv[i], "--list-devices") == 0) list_devices = true;
        else argv[kept++] = argv[i];
    }
    argc = kept;
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

    const auto& devices = burn::vulkan_devices();
    if (list_devices) {
        for (const auto& d : devices) std::cout << d << "\n";
        if (devices.empty()) std::cout << "no Vulkan device\n";
        return devices.empty() ? 1 : 0;
    }
    std::uint64_t max_binding = 0;
    if (devices.empty()) {
        benchmark::AddCustomContext("vulkan_device", "none");
    } else {
        const auto& info = burn::vulkan_device_info(kDevice);
        max_binding = info.features.max_storage_buffer_range;
        benchmark::AddCustomContext("vulkan_device", info.name);
        benchmark::AddCustomContext("vulkan_driver", info.driver);
        benchmark::AddCustomContext("vulkan_type", burn::to_string(info.type));
    }
    benchmark::AddCustomContext("burn_sizes", small ? "small" : "full");
    register_cases(small, max_binding);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

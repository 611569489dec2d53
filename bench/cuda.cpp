// SPDX-License-Identifier: MIT OR Apache-2.0
// burn_bench_cuda: Google Benchmark cases of the CUDA backend (burn::Cuda<> on CudaDevice{0}:
// CUDA_VISIBLE_DEVICES picks the GPU). bench/compare_cuda.py runs them next to PyTorch on the same
// GPU and reads the sizes from the names (BM_CudaMatmul/4096, BM_CudaSoftmax/4096/4096, ...), so
// keep the names and their arguments in sync with CASES there.
//
// Timing an asynchronous backend: ops only queue work on the device's stream, so one benchmark
// iteration queues `reps` ops and then waits for the device (burn::cuda_sync): the time is the
// GPU's, or the host's where queueing is the bottleneck (the guide's train step). `reps` is chosen
// once per case so that an iteration holds about kTargetSeconds of work (the sync's fixed cost is
// then a small part of it); the first ops (NVRTC compilation, cuDNN's algorithm choice, allocator
// growth) are not timed. Results are dropped at once: the caching allocator hands their blocks to
// the next op, as in a training loop; the inputs live in the case (shared handles, so no op
// writes into them in place).
//
// Fusion<Cuda<>> runs Burn's README GELU as one generated kernel (BM_CudaFusionGeluCustom; the
// unfused Cuda<> in BM_CudaGeluCustom, torch.compile and PyTorch eager in compare_cuda.py).
//
// Counters: "s_per_op" (seconds per op: what compare_cuda.py's ratios use), a rate "TFLOPS"
// (2 n^3 per matmul, 2 * MACs per convolution pass) or "GBps" (bytes read plus bytes written,
// 1e9 per GB), "img_per_s" for the guide model, and "reps" (ops per iteration).
//
//   burn_bench_cuda --benchmark_filter='Matmul|Copy'
//   burn_bench_cuda --small          # small sizes: a quick check
//   burn_bench_cuda --list-devices   # the CUDA devices
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <burn/backend/cuda.hpp>
#include <burn/backend/cuda/graph.hpp>
#include <burn/burn.hpp>
#include <burn/fusion/fusion.hpp>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "data.hpp"
#include "model.hpp"
#include "runtime.hpp"

namespace {

using B = burn::Cuda<>;
using AD = burn::Autodiff<B>;
using T1 = burn::Tensor<B, 1>;
using T2 = burn::Tensor<B, 2>;
using T4 = burn::Tensor<B, 4>;

constexpr double kTargetSeconds = 4e-3;  // work per iteration
constexpr int kMaxReps = 200;

const burn::CudaDevice kDevice{0};

/// Calls `op` (which queues one op) `reps` times per iteration, then waits for the device.
/// `work` is the rate counter's amount per op (TFLOP or GB; `counter` null: none); `min_reps` is a
/// floor for cheap ops; `warmup` untimed ops come first.
template <class Op>
void run_case(benchmark::State& state, const char* counter, double work, Op&& op, int min_reps = 1,
              int warmup = 2) {
    int reps = 1;
    try {
        for (int i = 0; i < warmup; ++i) op();  // NVRTC, cuDNN plans, allocator blocks
        burn::cuda_sync(kDevice);
        const auto t0 = std::chrono::steady_clock::now();
        op();
        op();
        burn::cuda_sync(kDevice);
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
            burn::cuda_sync(kDevice);
        } catch (const std::exception& e) {
            state.SkipWithError(e.what());
            break;
        }
    }
    using C = benchmark::Counter;
    if (counter != nullptr) state.counters[counter] = C(work * reps, C::kIsIterationInvariantRate);
    state.counters["s_per_op"] = C(reps, C::kIsIterationInvariantRate | C::kInvert);
    state.counters["reps"] = C(reps);
}

/// Skips the case when there is no CUDA device; true when it may run.
bool have_device(benchmark::State& state) {
    if (burn::cuda_device_count() > 0) return true;
    state.SkipWithError(("no CUDA device: " + burn::cuda_unavailable_reason()).c_str());
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

/// TF32 on for the case's lifetime (the setting is process-wide), off again afterwards.
struct Tf32Scope {
    explicit Tf32Scope(bool on) : previous(burn::cuda_allow_tf32()) {
        burn::set_cuda_allow_tf32(on);
    }
    ~Tf32Scope() { burn::set_cuda_allow_tf32(previous); }
    Tf32Scope(const Tf32Scope&) = delete;
    Tf32Scope& operator=(const Tf32Scope&) = delete;
    bool previous;
};

void matmul(benchmark::State& state, bool tf32, burn::DType dtype = burn::DType::F32) {
    if (!have_device(state)) return;
    const Tf32Scope scope(tf32);
    const auto n = static_cast<std::size_t>(state.range(0));
    const T2 a = rand2(n, n).cast(dtype), b = rand2(n, n).cast(dtype);
    const double flops = 2.0 * double(n) * double(n) * double(n);
    run_case(state, "TFLOPS", flops * kTFLOP, [&] {
        T2 c = a.matmul(b);
        benchmark::DoNotOptimize(c);
    });
}

// SGEMM, f32 products (TF32 off, the backend's default).
void BM_CudaMatmul(benchmark::State& state) { matmul(state, false); }
// The same with TF32 tensor cores (burn::set_cuda_allow_tf32(true)).
void BM_CudaMatmulTF32(benchmark::State& state) { matmul(state, true); }
// bf16 and f16 operands and result, f32 accumulation (cuBLASLt on tensor cores).
void BM_CudaMatmulBF16(benchmark::State& state) { matmul(state, false, burn::DType::BF16); }
void BM_CudaMatmulF16(benchmark::State& state) { matmul(state, false, burn::DType::F16); }

// cudaMemcpyAsync of n floats between two blocks of the runtime's allocator, on its stream: the
// device-to-device copy (what PyTorch's clone() of a dense tensor does), the bandwidth reference.
// Tensor::from_data of n floats held in host memory (a TensorData's pageable buffer): the upload,
// which goes through the backend's pinned staging blocks, queued on the stream.
void BM_CudaUpload(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const burn::TensorData data(std::vector<float>(n, 1.0f), burn::Shape{n});
    run_case(
        state, "GBps", double(n * sizeof(float)) * kGB,
        [&] {
            auto t = T1::from_data(data, kDevice);
            benchmark::DoNotOptimize(t);
        },
        2);
}

void BM_CudaCopy(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::size_t bytes = n * sizeof(float);
    burn::cuda::Context& ctx = burn::cuda::context(kDevice);
    ctx.activate();
    const auto src = ctx.alloc(bytes), dst = ctx.alloc(bytes);
    burn::cuda::check(cudaMemsetAsync(src->data(), 0, bytes, ctx.stream()), "cudaMemsetAsync");
    run_case(
        state, "GBps", 2.0 * double(bytes) * kGB,
        [&] {
            burn::cuda::check(cudaMemcpyAsync(dst->data(), src->data(), bytes,
                                              cudaMemcpyDeviceToDevice, ctx.stream()),
                              "cudaMemcpyAsync");
        },
        2);
}

// cat of two dense halves of n floats: the backend's own dense device-to-device copy (burn's
// Tensor::clone() shares the data, and contiguous() of a dense tensor returns it).
void BM_CudaCat(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto u = burn::Distribution::Uniform(-1.0, 1.0);
    const T1 a = T1::random(burn::Shape{n / 2}, u, kDevice);
    const T1 b = T1::random(burn::Shape{n - n / 2}, u, kDevice);
    run_case(
        state, "GBps", 2.0 * double(n) * sizeof(float) * kGB,
        [&] {
            T1 c = T1::cat({a, b}, 0);
            benchmark::DoNotOptimize(c);
        },
        2);
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

void BM_CudaAdd(benchmark::State& state) {
    elementwise<2>(state, [](const T2& a, const T2& b) { return a + b; });
}
void BM_CudaMulScalar(benchmark::State& state) {
    elementwise<1>(state, [](const T2& a, const T2&) { return a * 2.0f; });
}
void BM_CudaExp(benchmark::State& state) {
    elementwise<1>(state, [](const T2& a, const T2&) { return a.exp(); });
}

// Burn's README GELU written with tensor ops, x * (erf(x / sqrt 2) + 1) / 2, on Cuda<> (five
// kernels, five trips through memory) and on Fusion<Cuda<>> (one generated kernel: one read, one
// write). A fused result is computed when something needs it: each op ends with the sum of its
// first element (a one-element reduction, unfused), which makes Fusion run the pending program.
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
void BM_CudaGeluCustom(benchmark::State& state) { gelu_custom<B>(state); }
void BM_CudaFusionGeluCustom(benchmark::State& state) { gelu_custom<burn::Fusion<B>>(state); }

// Reductions and softmax of an [r, c] tensor.
void BM_CudaSum(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto r = static_cast<std::size_t>(state.range(0));
    const auto c = static_cast<std::size_t>(state.range(1));
    const T2 x = rand2(r, c);
    run_case(
        state, "GBps", double(r * c) * sizeof(float) * kGB,
        [&] {
            T1 s = x.sum();
            benchmark::DoNotOptimize(s);
        },
        2);
}

void BM_CudaSumDim1(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto r = static_cast<std::size_t>(state.range(0));
    const auto c = static_cast<std::size_t>(state.range(1));
    const T2 x = rand2(r, c);
    run_case(
        state, "GBps", double(r * c + r) * sizeof(float) * kGB,
        [&] {
            T2 s = x.sum_dim(1);
            benchmark::DoNotOptimize(s);
        },
        2);
}

void BM_CudaSoftmax(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto r = static_cast<std::size_t>(state.range(0));
    const auto c = static_cast<std::size_t>(state.range(1));
    const T2 x = rand2(r, c);
    run_case(state, "GBps", 2.0 * double(r * c) * sizeof(float) * kGB, [&] {
        T2 y = burn::activation::softmax(x, 1);
        benchmark::DoNotOptimize(y);
    });
}

// softmax along dim 1 of [r, c] in bf16 (the kernel reads bf16 and computes in f32; bytes: one
// read and one write of 2-byte values).
void BM_CudaSoftmaxBF16(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto r = static_cast<std::size_t>(state.range(0));
    const auto c = static_cast<std::size_t>(state.range(1));
    const T2 x = rand2(r, c).cast(burn::DType::BF16);
    run_case(state, "GBps", 2.0 * double(r * c) * 2.0 * kGB, [&] {
        T2 y = burn::activation::softmax(x, 1);
        benchmark::DoNotOptimize(y);
    });
}

// ResNet's stem pooling in bf16: max_pool2d 3x3, stride 2, padding 1 of [batch, 64, 112, 112]
// (bytes: the input read once, the output written).
void BM_CudaMaxPoolBF16(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto batch = static_cast<std::size_t>(state.range(0));
    const auto u = burn::Distribution::Uniform(-1, 1);
    const T4 x = T4::random({batch, 64, 112, 112}, u, kDevice).cast(burn::DType::BF16);
    const double bytes = double(batch * 64) * (112.0 * 112.0 + 56.0 * 56.0) * 2.0;
    run_case(state, "GBps", bytes * kGB, [&] {
        T4 y = burn::module::max_pool2d(x, {3, 3}, {2, 2}, {1, 1});
        benchmark::DoNotOptimize(y);
    });
}

// Reductions with element-wise work before them: softmax(x * 0.125 + bias) along dim 1 of
// [r, c] (bias [1, c]) and (a - b)^2 summed over [r, c]. Fusion<Cuda> runs each as one generated
// kernel; Cuda<> as two or three kernels.
template <class Bk>
void softmax_scaled(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto r = static_cast<std::size_t>(state.range(0));
    const auto c = static_cast<std::size_t>(state.range(1));
    const auto x = burn::Tensor<Bk, 2>::random({r, c}, burn::Distribution::Default(), kDevice);
    const auto bias = burn::Tensor<Bk, 2>::random({1, c}, burn::Distribution::Default(), kDevice);
    run_case(state, "GBps", 2.0 * double(r * c) * sizeof(float) * kGB, [&] {
        auto y = burn::activation::softmax(x * 0.125 + bias, 1);
        benchmark::DoNotOptimize(y.slice({{0, 1}, {0, 1}}).sum());
    });
}
void BM_CudaSoftmaxScaled(benchmark::State& state) { softmax_scaled<B>(state); }
void BM_CudaFusionSoftmaxScaled(benchmark::State& state) { softmax_scaled<burn::Fusion<B>>(state); }

template <class Bk>
void squared_error(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto r = static_cast<std::size_t>(state.range(0));
    const auto c = static_cast<std::size_t>(state.range(1));
    const auto a = burn::Tensor<Bk, 2>::random({r, c}, burn::Distribution::Default(), kDevice);
    const auto b = burn::Tensor<Bk, 2>::random({r, c}, burn::Distribution::Default(), kDevice);
    run_case(state, "GBps", 2.0 * double(r * c) * sizeof(float) * kGB, [&] {
        auto s = (a - b).powf_scalar(2.0).sum();
        // Summing the result computes it (a Fusion reduction is lazy until something reads it);
        // in a statement of its own, so that the temporaries a - b and its square are gone by
        // then (tensors still referenced when the program runs are written: docs/fusion.md).
        auto total = s.sum();
        benchmark::DoNotOptimize(total);
    });
}
void BM_CudaSquaredError(benchmark::State& state) { squared_error<B>(state); }
void BM_CudaFusionSquaredError(benchmark::State& state) { squared_error<burn::Fusion<B>>(state); }

// A ResNet layer: conv 3x3, 64 -> 64 channels, 56x56, padding 1, stride 1, with bias.
constexpr std::size_t kResC = 64, kResSide = 56;

double resnet_flops(std::size_t batch) {  // one pass: 2 * MACs
    return 2.0 * double(batch) * double(kResC) * double(kResSide * kResSide) * double(kResC) * 9.0;
}

const burn::ConvOptions<2> kResOpt{.padding = {1, 1}};

// Forward only, on Cuda<> (no graph).
void BM_CudaConv2dResnet(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto batch = static_cast<std::size_t>(state.range(0));
    const auto u = burn::Distribution::Uniform(-1, 1);
    const T4 x = T4::random({batch, kResC, kResSide, kResSide}, u, kDevice);
    const T4 w = T4::random({kResC, kResC, 3, 3}, u, kDevice);
    const T1 b = T1::random({kResC}, u, kDevice);
    run_case(state, "TFLOPS", resnet_flops(batch) * kTFLOP, [&] {
        T4 y = burn::module::conv2d(x, w, b, kResOpt);
        benchmark::DoNotOptimize(y);
    });
}

// Forward + backward on Autodiff<Cuda<>>: x and w require grad (the bias does not),
// y = conv2d(x, w, b), y.sum().backward(), both gradients taken out. Three passes of work:
// forward, the input's gradient and the weight's.
// BM_CudaConv2dResnetFwdBwdBF16: the same with x, w and b in bf16 (cuDNN on tensor cores, f32
// accumulation; PyTorch: the same tensors in torch.bfloat16).
void conv_resnet_fwd_bwd(benchmark::State& state, burn::DType dtype) {
    if (!have_device(state)) return;
    using A1 = burn::Tensor<AD, 1>;
    using A4 = burn::Tensor<AD, 4>;
    const auto batch = static_cast<std::size_t>(state.range(0));
    const auto u = burn::Distribution::Uniform(-1, 1);
    const A4 x =
        A4::random({batch, kResC, kResSide, kResSide}, u, kDevice).cast(dtype).require_grad();
    const A4 w = A4::random({kResC, kResC, 3, 3}, u, kDevice).cast(dtype).require_grad();
    const A1 b = A1::random({kResC}, u, kDevice).cast(dtype);
    run_case(state, "TFLOPS", 3.0 * resnet_flops(batch) * kTFLOP, [&] {
        const A4 y = burn::module::conv2d(x, w, b, kResOpt);
        auto grads = y.sum().backward();
        auto gx = x.grad(grads);
        auto gw = w.grad(grads);
        benchmark::DoNotOptimize(gx);
        benchmark::DoNotOptimize(gw);
    });
}
void BM_CudaConv2dResnetFwdBwd(benchmark::State& state) {
    conv_resnet_fwd_bwd(state, burn::DType::F32);
}
void BM_CudaConv2dResnetFwdBwdBF16(benchmark::State& state) {
    conv_resnet_fwd_bwd(state, burn::DType::BF16);
}

// ---- The MNIST guide model (examples/guide/model.hpp), as bench/guide.cpp times it on the CPU:
// conv 1->8 3x3, dropout 0.5, conv 8->16 3x3, dropout, ReLU, adaptive average pool 8x8, linear
// 1024 -> 512, dropout, ReLU, linear 512 -> 10.

constexpr std::size_t kSide = 28, kClasses = 10, kHidden = 512;

guide::ModelConfig guide_config() { return {.num_classes = kClasses, .hidden_size = kHidden}; }

/// Random values normalised like the guide batcher's output ((u - 0.1307) / 0.3081).
template <class Bk>
burn::Tensor<Bk, 3> guide_images(std::size_t batch) {
    const auto u =
        burn::Tensor<Bk, 3>::random({batch, kSide, kSide}, burn::Distribution::Default(), kDevice);
    return (u - 0.1307) * (1.0 / 0.3081);
}

template <class Bk>
burn::Tensor<Bk, 1, burn::Int> guide_labels(std::size_t batch) {
    std::vector<std::int64_t> v(batch);
    for (std::size_t i = 0; i < batch; ++i)
        v[i] = static_cast<std::int64_t>((i * 7 + 3) % kClasses);
    return burn::Tensor<Bk, 1, burn::Int>::from_data(
        burn::TensorData(std::move(v), burn::Shape{batch}), kDevice);
}

// One eager training step on Autodiff<Cuda<>> (BM_CudaGuideTrainStep; on Autodiff<Fusion<Cuda<>>>
// in BM_CudaFusionGuideTrainStep): forward (dropout active), CrossEntropyLoss, backward,
// GradientsParams::from_grads, Adam (lr 1e-4, AdamConfig's defaults) step. The steps of an
// iteration follow each other with no wait; the iteration ends with a sync.
// BM_CudaGuideTrainStepGraph (BM_CudaFusionGuideTrainStepGraph on Autodiff<Fusion<Cuda<>>>): the
// same step through burn::CudaGraphStep (two uncaptured warm-up
// steps, the capture, then one graph launch per step, the batch copied into the graph's inputs).
template <class Inner>
void guide_train_step(benchmark::State& state, bool graphed = false) {
    using AD = burn::Autodiff<Inner>;
    if (!have_device(state)) return;
    const auto batch = static_cast<std::size_t>(state.range(0));
    AD::seed(42);
    auto model = guide_config().init<AD>(kDevice);
    auto optim = burn::optim::AdamConfig{}.init<AD, guide::Model<AD>>();
    const auto x = guide_images<AD>(batch);
    const auto y = guide_labels<AD>(batch);
    const auto loss_fn = burn::nn::CrossEntropyLossConfig{}.init<AD>(kDevice);
    auto body = [&](const burn::Tensor<AD, 3>& images, const burn::Tensor<AD, 1, burn::Int>& t) {
        const auto output = model.forward(images);
        const auto loss = loss_fn.forward(output, t);
        auto grads = loss.backward();
        auto grads_params = burn::optim::GradientsParams<AD>::from_grads(grads, model);
        model = optim.step(1e-4, model, std::move(grads_params));
    };
    if (graphed) {
        burn::CudaGraphStep step(kDevice, body, model, optim);
        run_case(
            state, nullptr, 0.0, [&] { step(x, y); }, 1, 5);
        state.counters["graph_nodes"] = double(step.graph().node_count());
        state.counters["img_per_s"] = benchmark::Counter(
            double(batch) * state.counters["reps"], benchmark::Counter::kIsIterationInvariantRate);
        return;
    }
    run_case(
        state, nullptr, 0.0, [&] { body(x, y); }, 1, 5);
    state.counters["img_per_s"] = benchmark::Counter(double(batch) * state.counters["reps"],
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

void BM_CudaGuideTrainStep(benchmark::State& state) { guide_train_step<B>(state); }
void BM_CudaGuideTrainStepGraph(benchmark::State& state) { guide_train_step<B>(state, true); }
void BM_CudaFusionGuideTrainStep(benchmark::State& state) {
    guide_train_step<burn::Fusion<B>>(state);
}
void BM_CudaFusionGuideTrainStepGraph(benchmark::State& state) {
    guide_train_step<burn::Fusion<B>>(state, true);
}

// Inference on Cuda<> (model.valid(): dropout is the identity), the logits read back to the host
// (into_data waits for the device): the latency of one request at batch 1.
void BM_CudaGuideInfer(benchmark::State& state) {
    if (!have_device(state)) return;
    const auto batch = static_cast<std::size_t>(state.range(0));
    AD::seed(42);
    const auto model = guide_config().init<AD>(kDevice).valid();
    const auto x = guide_images<B>(batch);
    run_case(
        state, nullptr, 0.0,
        [&] {
            burn::TensorData logits = model.forward(x).into_data();
            benchmark::DoNotOptimize(logits);
        },
        1, 5);
    state.counters["img_per_s"] = benchmark::Counter(double(batch) * state.counters["reps"],
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

// ---- Transformer encoder training step (issue 22's AMP case): 6 post-norm layers, d_model 512,
// 8 heads, d_ff 2048, GELU, dropout 0.1 (active), on [batch, 256, 512] inputs; MSE against a
// fixed target, backward, Adam (lr 1e-4). BM_CudaTransformerTrainStep runs it in f32 (TF32 off),
// BM_CudaTransformerTrainStepAmp with the forward and the loss in a burn::Autocast(BF16) scope:
// parameters and Adam stay f32 (PyTorch: torch.autocast("cuda", torch.bfloat16)).
constexpr std::size_t kTfSeq = 256, kTfModel = 512, kTfHeads = 8, kTfFf = 2048, kTfLayers = 6;

void transformer_train_step(benchmark::State& state, std::optional<burn::DType> amp) {
    if (!have_device(state)) return;
    const auto batch = static_cast<std::size_t>(state.range(0));
    AD::seed(7);
    const Tf32Scope tf32(false);
    auto model = burn::nn::TransformerEncoderConfig{.d_model = kTfModel,
                                                    .d_ff = kTfFf,
                                                    .n_heads = kTfHeads,
                                                    .n_layers = kTfLayers,
                                                    .dropout = 0.1}
                     .init<AD>(kDevice);
    auto optim = burn::optim::AdamConfig{}.init<AD, burn::nn::TransformerEncoder<AD>>();
    const auto x = burn::Tensor<AD, 3>::random({batch, kTfSeq, kTfModel},
                                               burn::Distribution::Default(), kDevice);
    const auto target = burn::Tensor<AD, 3>::random({batch, kTfSeq, kTfModel},
                                                    burn::Distribution::Default(), kDevice);
    const burn::nn::MseLoss mse;
    run_case(
        state, nullptr, 0.0,
        [&] {
            auto loss = [&] {
                burn::Autocast scope(amp.value_or(burn::DType::BF16), amp.has_value());
                const auto y = model.forward(burn::nn::TransformerEncoderInput<AD>{x});
                return mse.forward(y, target, burn::nn::Reduction::Mean);
            }();
            auto grads = loss.backward();
            auto grads_params = burn::optim::GradientsParams<AD>::from_grads(grads, model);
            model = optim.step(1e-4, model, std::move(grads_params));
        },
        1, 3);
}
void BM_CudaTransformerTrainStep(benchmark::State& state) {
    transformer_train_step(state, std::nullopt);
}
void BM_CudaTransformerTrainStepAmp(benchmark::State& state) {
    transformer_train_step(state, burn::DType::BF16);
}

void register_cases(bool small) {
    using benchmark::RegisterBenchmark;
    const std::int64_t elems = small ? (1 << 20) : (1 << 26);  // 64M f32: 256 MiB per tensor
    const std::int64_t side = small ? 1024 : 4096;             // the [side, side] reductions
    // A failure while setting a case up (e.g. out of device memory) skips that case with the
    // message; run_case catches those of the timing.
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
    auto* mm = reg("BM_CudaMatmul", BM_CudaMatmul);
    for (std::int64_t n :
         small ? std::vector<std::int64_t>{256, 512} : std::vector<std::int64_t>{1024, 2048, 4096})
        mm->Arg(n);
    reg("BM_CudaMatmulTF32", BM_CudaMatmulTF32)->Arg(small ? 512 : 4096);
    reg("BM_CudaMatmulBF16", BM_CudaMatmulBF16)->Arg(small ? 512 : 4096);
    reg("BM_CudaMatmulF16", BM_CudaMatmulF16)->Arg(small ? 512 : 4096);
    reg("BM_CudaUpload", BM_CudaUpload)->Arg(1024)->Arg(1 << 20)->Arg(small ? 1 << 20 : 1 << 24);
    reg("BM_CudaCopy", BM_CudaCopy)->Arg(elems);
    reg("BM_CudaCat", BM_CudaCat)->Arg(elems);
    reg("BM_CudaAdd", BM_CudaAdd)->Arg(elems);
    reg("BM_CudaMulScalar", BM_CudaMulScalar)->Arg(elems);
    reg("BM_CudaExp", BM_CudaExp)->Arg(elems);
    reg("BM_CudaGeluCustom", BM_CudaGeluCustom)->Arg(elems);
    reg("BM_CudaFusionGeluCustom", BM_CudaFusionGeluCustom)->Arg(elems);
    reg("BM_CudaSum", BM_CudaSum)->Args({side, side});
    reg("BM_CudaSumDim1", BM_CudaSumDim1)->Args({side, side});
    reg("BM_CudaSoftmax", BM_CudaSoftmax)->Args({side, side});
    reg("BM_CudaSoftmaxBF16", BM_CudaSoftmaxBF16)->Args({side, side});
    reg("BM_CudaMaxPoolBF16", BM_CudaMaxPoolBF16)->Arg(small ? 2 : 32);
    reg("BM_CudaSoftmaxScaled", BM_CudaSoftmaxScaled)->Args({side, side});
    reg("BM_CudaFusionSoftmaxScaled", BM_CudaFusionSoftmaxScaled)->Args({side, side});
    reg("BM_CudaSquaredError", BM_CudaSquaredError)->Args({side, side});
    reg("BM_CudaFusionSquaredError", BM_CudaFusionSquaredError)->Args({side, side});
    reg("BM_CudaConv2dResnet", BM_CudaConv2dResnet)->Arg(small ? 2 : 32);
    reg("BM_CudaConv2dResnetFwdBwd", BM_CudaConv2dResnetFwdBwd)->Arg(small ? 2 : 32);
    reg("BM_CudaConv2dResnetFwdBwdBF16", BM_CudaConv2dResnetFwdBwdBF16)->Arg(small ? 2 : 32);
    reg("BM_CudaGuideTrainStep", BM_CudaGuideTrainStep)->Arg(64);
    reg("BM_CudaGuideTrainStepGraph", BM_CudaGuideTrainStepGraph)->Arg(64);
    reg("BM_CudaFusionGuideTrainStep", BM_CudaFusionGuideTrainStep)->Arg(64);
    reg("BM_CudaFusionGuideTrainStepGraph", BM_CudaFusionGuideTrainStepGraph)->Arg(64);
    reg("BM_CudaGuideInfer", BM_CudaGuideInfer)->Arg(1)->Arg(64);
    reg("BM_CudaTransformerTrainStep", BM_CudaTransformerTrainStep)->Arg(small ? 2 : 32);
    reg("BM_CudaTransformerTrainStepAmp", BM_CudaTransformerTrainStepAmp)->Arg(small ? 2 : 32);
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

    const std::size_t count = burn::cuda_device_count();
    if (list_devices) {
        for (std::size_t i = 0; i < count; ++i)
            std::cout << burn::cuda_device_info(burn::CudaDevice{i}) << "\n";
        if (count == 0) std::cout << "no CUDA device: " << burn::cuda_unavailable_reason() << "\n";
        return count == 0 ? 1 : 0;
    }
    if (count == 0) {
        benchmark::AddCustomContext("cuda_device", "none");
        benchmark::AddCustomContext("cuda_unavailable", burn::cuda_unavailable_reason());
    } else {
        const burn::CudaDeviceInfo info = burn::cuda_device_info(kDevice);
        benchmark::AddCustomContext("cuda_device", info.name);
        benchmark::AddCustomContext(
            "cuda_compute_capability",
            std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor));
    }
    benchmark::AddCustomContext("burn_sizes", small ? "small" : "full");
    register_cases(small);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

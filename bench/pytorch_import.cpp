// SPDX-License-Identifier: MIT OR Apache-2.0
// PyTorch import: reading a ResNet-18 state dict (11.7M f32 parameters, 46.8 MB, written by
// compare_pytorch_import.py with random weights under torchvision's names) from the page cache.
//
//   pytorch_import/read        read_pytorch_file: the tensors by key, as TensorData
//   pytorch_import/load        PyTorchFileRecorder::load into a ResNet-18 module + load_record
//   safetensors_import/read    read_safetensors_file of the same tensors
//
// `GB/s` counts the file's tensor bytes per second of wall time. The file comes from
// $BURN_BENCH_PT_FILE (and $BURN_BENCH_ST_FILE); without it the cases are skipped.
//
//   python3 bench/compare_pytorch_import.py   # writes the files, runs these cases and torch.load
#include <benchmark/benchmark.h>

#include <burn/backend/cpu.hpp>
#include <burn/nn.hpp>
#include <burn/record/pytorch.hpp>
#include <cstdlib>
#include <vector>

namespace {

using B = burn::Cpu<float>;
namespace nn = burn::nn;
using burn::record::LoadArgs;

/// torchvision's BasicBlock; its `downsample` Sequential(conv, bn) is remapped to named fields.
struct Downsample {
    nn::Conv2d<B> conv;
    nn::BatchNorm<B> bn;
    BURN_MODULE(conv, bn)
};
struct BasicBlock {
    nn::Conv2d<B> conv1;
    nn::BatchNorm<B> bn1;
    nn::Conv2d<B> conv2;
    nn::BatchNorm<B> bn2;
    std::optional<Downsample> downsample;
    BURN_MODULE(conv1, bn1, conv2, bn2, downsample)
};
struct ResNet18 {
    nn::Conv2d<B> conv1;
    nn::BatchNorm<B> bn1;
    std::vector<BasicBlock> layer1, layer2, layer3, layer4;
    nn::Linear<B> fc;
    BURN_MODULE(conv1, bn1, layer1, layer2, layer3, layer4, fc)
};

nn::Conv2d<B> conv(std::size_t in, std::size_t out, std::size_t k) {
    return nn::Conv2dConfig{.channels = {{in, out}}, .kernel_size = {{k, k}}, .bias = false}
        .init<B>();
}
nn::BatchNorm<B> bn(std::size_t c) { return nn::BatchNormConfig{.num_features = c}.init<B>(); }

std::vector<BasicBlock> stage(std::size_t in, std::size_t out) {
    std::vector<BasicBlock> blocks;
    for (std::size_t i = 0; i < 2; ++i) {
        const std::size_t c = i == 0 ? in : out;
        BasicBlock b{conv(c, out, 3), bn(out), conv(out, out, 3), bn(out), std::nullopt};
        if (c != out) b.downsample = Downsample{conv(c, out, 1), bn(out)};
        blocks.push_back(std::move(b));
    }
    return blocks;
}

const ResNet18& resnet18() {
    static const ResNet18 model{conv(3, 64, 7),
                                bn(64),
                                stage(64, 64),
                                stage(64, 128),
                                stage(128, 256),
                                stage(256, 512),
                                nn::LinearConfig{.d_input = 512, .d_output = 1000}.init<B>()};
    return model;
}

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

void report(benchmark::State& state, double bytes) {
    state.counters["GB/s"] =
        benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["MB"] = bytes / 1e6;
}

double dict_bytes(const burn::record::StateDict& dict) {
    double n = 0;
    for (const auto& t : dict) n += double(t.data.bytes().size());
    return n;
}

void BM_PytorchRead(benchmark::State& state) {
    const char* file = env("BURN_BENCH_PT_FILE");
    if (!file) return state.SkipWithError("set BURN_BENCH_PT_FILE (compare_pytorch_import.py)");
    double bytes = 0;
    for (auto _ : state) {
        auto dict = burn::record::read_pytorch_file(file);
        bytes = dict_bytes(dict);
        benchmark::DoNotOptimize(dict);
    }
    report(state, bytes);
}

void BM_PytorchLoad(benchmark::State& state) {
    const char* file = env("BURN_BENCH_PT_FILE");
    if (!file) return state.SkipWithError("set BURN_BENCH_PT_FILE (compare_pytorch_import.py)");
    const ResNet18& model = resnet18();
    const auto args = LoadArgs(file)
                          .with_key_remap("downsample\\.0\\.", "downsample.conv.")
                          .with_key_remap("downsample\\.1\\.", "downsample.bn.");
    const burn::record::PyTorchFileRecorder<> recorder;
    for (auto _ : state) {
        auto loaded = model.load_record(recorder.load(args, model));
        benchmark::DoNotOptimize(loaded);
    }
    report(state, dict_bytes(burn::record::read_pytorch_file(file)));
}

void BM_SafetensorsRead(benchmark::State& state) {
    const char* file = env("BURN_BENCH_ST_FILE");
    if (!file) return state.SkipWithError("set BURN_BENCH_ST_FILE (compare_pytorch_import.py)");
    double bytes = 0;
    for (auto _ : state) {
        auto st = burn::record::read_safetensors_file(file);
        bytes = dict_bytes(st.tensors);
        benchmark::DoNotOptimize(st);
    }
    report(state, bytes);
}

BENCHMARK(BM_PytorchRead)
    ->Name("pytorch_import/read")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_PytorchLoad)
    ->Name("pytorch_import/load")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SafetensorsRead)
    ->Name("safetensors_import/read")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

// SPDX-License-Identifier: MIT OR Apache-2.0
// ONNX models on Cpu<float>: the code that burn_onnx_generate() writes (burn-onnx) and the
// run-time executor onnx::Graph<Cpu<float>>, on the same .onnx files that bench/compare_onnx.py
// gives ONNX Runtime.
//
//   onnx/<model>/gen/<batch>     Model<B>::forward on a tensor made from host data, result read
//                                back to the host (to_data) inside the timed loop
//   onnx/<model>/graph/<batch>   Graph<B>::run(std::vector<TensorData>): host data in and out
//
// <model> is `mnist` (examples/onnx-inference/mnist.onnx, float[batch, 1, 28, 28] -> [batch, 10])
// and `resnet18` (bench/onnx_models.py, float[batch, 3, 224, 224] -> [batch, 1000]; built when
// CMake found PyTorch to export it). <batch> is 1 (latency) and 64 (throughput: items/s).
// The input is a fixed pseudo-random pattern in [-1, 1) (input_data below).
//
//   burn_bench_onnx [benchmark flags] [--model-dir DIR]
//   burn_bench_onnx --check OUT_DIR [--batches 1,2] [--model-dir DIR]
//
// --model-dir DIR: read DIR/{mnist.onnx, mnist.mpk, resnet18.onnx, resnet18.mpk} instead of the
// paths compiled in (a bundle shipped to another machine, bench/onnx_device.sh); a model whose
// files are missing is left out with a message on stderr.
// --check OUT_DIR: no timing; for each model and batch, writes the input and the outputs of both
// paths as raw little-endian float32 (<model>_b<batch>_{input,gen,graph}.f32) and one line of
// JSON per case on stdout ({"model", "batch", "input_shape", "output_shape", files}), which
// compare_onnx.py feeds to ONNX Runtime to compare the numbers.
#include <benchmark/benchmark.h>

#include <burn/backend/cpu.hpp>
#include <burn/onnx/graph.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "mnist.hpp"
#ifdef BURN_BENCH_RESNET18_ONNX
#include "resnet18.hpp"
#endif

namespace {

using B = burn::Cpu<float>;
namespace fs = std::filesystem;

/// A fixed pseudo-random input in [-1, 1): the same bytes for every run and both paths.
burn::TensorData input_data(const std::vector<std::size_t>& item_shape, std::size_t batch) {
    std::vector<std::size_t> dims{batch};
    dims.insert(dims.end(), item_shape.begin(), item_shape.end());
    std::size_t n = 1;
    for (auto d : dims) n *= d;
    std::vector<float> v(n);
    std::uint32_t s = 12345u;
    for (auto& x : v) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
    return burn::TensorData(std::move(v), burn::Shape(dims));
}

/// One model: its files, input shape (without the batch) and the two ways of running it.
struct Model {
    std::string name;
    fs::path onnx, record;
    std::vector<std::size_t> item_shape;
    /// Loads the generated model (once) and returns host input -> host output.
    std::function<std::function<burn::TensorData(const burn::TensorData&)>()> make_gen;
};

template <template <class> class M, std::size_t In, std::size_t Out>
std::function<std::function<burn::TensorData(const burn::TensorData&)>()> gen_loader(
    fs::path record) {
    return [record] {
        auto model = std::make_shared<const M<B>>(M<B>::from_file(record));
        return std::function<burn::TensorData(const burn::TensorData&)>(
            [model](const burn::TensorData& x) {
                return model->forward(burn::Tensor<B, In>::from_data(x)).to_data();
            });
    };
}

std::vector<Model> models(const fs::path& dir) {
    std::vector<Model> out;
    auto pick = [&](const char* file, const fs::path& compiled) {
        return dir.empty() ? compiled : dir / file;
    };
    {
        const fs::path onnx = pick("mnist.onnx", BURN_BENCH_MNIST_ONNX);
        const fs::path record = pick("mnist.mpk", BURN_ONNX_MNIST_RECORD);
        out.push_back({"mnist", onnx, record, {1, 28, 28}, gen_loader<Mnist, 4, 2>(record)});
    }
#ifdef BURN_BENCH_RESNET18_ONNX
    {
        const fs::path onnx = pick("resnet18.onnx", BURN_BENCH_RESNET18_ONNX);
        const fs::path record = pick("resnet18.mpk", BURN_ONNX_RESNET18_RECORD);
        out.push_back(
            {"resnet18", onnx, record, {3, 224, 224}, gen_loader<Resnet18, 4, 2>(record)});
    }
#else
    std::cerr << "burn_bench_onnx: built without the ResNet-18 model (CMake found no PyTorch to "
                 "export it: set BURN_BENCH_TORCH_PYTHON)\n";
#endif
    std::vector<Model> present;
    for (auto& m : out) {
        if (fs::exists(m.onnx) && fs::exists(m.record)) present.push_back(std::move(m));
        else
            std::cerr << "burn_bench_onnx: " << m.name << " left out: " << m.onnx << " or "
                      << m.record << " is missing\n";
    }
    return present;
}

void set_counters(benchmark::State& state, std::size_t batch) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
    state.counters["batch"] = static_cast<double>(batch);
}

void register_model(const Model& m) {
    for (const std::size_t batch : {std::size_t{1}, std::size_t{64}}) {
        const auto x = std::make_shared<burn::TensorData>(input_data(m.item_shape, batch));
        auto make_gen = m.make_gen;
        benchmark::RegisterBenchmark(("onnx/" + m.name + "/gen/" + std::to_string(batch)).c_str(),
                                     [make_gen, x, batch](benchmark::State& state) {
                                         const auto run = make_gen();
                                         for (auto _ : state) {
                                             auto y = run(*x);
                                             benchmark::DoNotOptimize(y);
                                         }
                                         set_counters(state, batch);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        const fs::path onnx = m.onnx;
        benchmark::RegisterBenchmark(("onnx/" + m.name + "/graph/" + std::to_string(batch)).c_str(),
                                     [onnx, x, batch](benchmark::State& state) {
                                         const auto graph = burn::onnx::Graph<B>::load(onnx);
                                         const std::vector<burn::TensorData> inputs{*x};
                                         for (auto _ : state) {
                                             auto y = graph.run(inputs);
                                             benchmark::DoNotOptimize(y);
                                         }
                                         set_counters(state, batch);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
}

void write_f32(const fs::path& path, const burn::TensorData& d) {
    const auto v = d.to_vec<float>();
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()),
            static_cast<std::streamsize>(v.size() * sizeof(float)));
    if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string json_shape(const burn::Shape& s) {
    std::ostringstream o;
    o << "[";
    for (std::size_t i = 0; i < s.rank(); ++i) o << (i ? ", " : "") << s[i];
    o << "]";
    return o.str();
}

int check(const std::vector<Model>& ms, const fs::path& out,
          const std::vector<std::size_t>& batches) {
    fs::create_directories(out);
    for (const auto& m : ms) {
        const auto gen = m.make_gen();
        const auto graph = burn::onnx::Graph<B>::load(m.onnx);
        for (const auto batch : batches) {
            const auto x = input_data(m.item_shape, batch);
            const auto y_gen = gen(x);
            const auto y_graph = graph.run({x})[0];
            const std::string stem = m.name + "_b" + std::to_string(batch);
            write_f32(out / (stem + "_input.f32"), x);
            write_f32(out / (stem + "_gen.f32"), y_gen);
            write_f32(out / (stem + "_graph.f32"), y_graph);
            std::cout << "{\"model\": \"" << m.name << "\", \"onnx\": " << m.onnx
                      << ", \"batch\": " << batch << ", \"input_shape\": " << json_shape(x.shape)
                      << ", \"output_shape\": " << json_shape(y_gen.shape)
                      << ", \"input\": " << (out / (stem + "_input.f32"))
                      << ", \"gen\": " << (out / (stem + "_gen.f32"))
                      << ", \"graph\": " << (out / (stem + "_graph.f32")) << "}" << std::endl;
        }
    }
    return 0;
}

std::vector<std::size_t> parse_list(const std::string& s) {
    std::vector<std::size_t> v;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) v.push_back(std::stoul(item));
    return v;
}

}  // namespace

int main(int argc, char** argv) try {
    benchmark::Initialize(&argc, argv);
    fs::path model_dir, check_dir;
    std::vector<std::size_t> batches{1, 2};
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) {
            std::cerr << "burn_bench_onnx: unknown flag or missing value: " << flag << "\n";
            return 2;
        }
        const std::string value = argv[++i];
        if (flag == "--model-dir") model_dir = value;
        else if (flag == "--check") check_dir = value;
        else if (flag == "--batches") batches = parse_list(value);
        else {
            std::cerr << "burn_bench_onnx: unknown flag " << flag << "\n";
            return 2;
        }
    }
    const auto ms = models(model_dir);
    if (!check_dir.empty()) return check(ms, check_dir, batches);
    for (const auto& m : ms) register_model(m);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
} catch (const std::exception& e) {
    std::cerr << "burn_bench_onnx: " << e.what() << "\n";
    return 1;
}

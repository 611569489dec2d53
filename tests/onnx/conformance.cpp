// SPDX-License-Identifier: MIT OR Apache-2.0
// burn_onnx_conformance: runs the ONNX backend test suite (libonnx-testdata) through
// burn::onnx::Graph<Cpu<float>> (models with float64 inputs or initializers: Graph<Cpu<double>>)
// and compares every output with the expected one, with the ONNX backend test runner's
// tolerances (rtol 1e-3, atol 1e-7; exact dtype and shape). The same source builds
// burn_onnx_conformance_vulkan (Graph<Vulkan<>>; float64 models fail: the backend has no f64) and
// burn_onnx_conformance_cuda (Graph<Cuda<>>, float64 models on Cuda<double>).
//
//   burn_onnx_conformance [--root DIR] [--folders node,simple,...] [--filter SUBSTR]
//                         [--markdown FILE] [--min FOLDER=RATE ...] [--verbose] [--list-ops]
//
// Prints "FOLDER: N passed, M failed" per folder and a per-op-type table (op, passed, failed,
// first failure; the ops of subgraphs count too). With --min, exits 1 when a folder's pass rate
// is below its floor.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "burn/onnx/graph.hpp"
#include "f64_model.hpp"

#if defined(BURN_CONFORMANCE_VULKAN)
#include "burn/backend/vulkan.hpp"
using B = burn::Vulkan<>;
using B64 = B;  // unused: no float64
constexpr const char* kBackends = "Vulkan<>";
#elif defined(BURN_CONFORMANCE_CUDA)
#include "burn/backend/cuda.hpp"
using B = burn::Cuda<>;
using B64 = burn::Cuda<double>;
constexpr const char* kBackends = "Cuda<double>, the others on Cuda<>";
#else
#include "burn/backend/cpu.hpp"
using B = burn::Cpu<float>;
using B64 = burn::Cpu<double>;
constexpr const char* kBackends = "Cpu<double>, the others on Cpu<float>";
#endif

namespace fs = std::filesystem;
using burn::onnx::ElemType;
using burn::onnx::TypedData;

namespace {

struct OpStats {
    int passed = 0;
    int failed = 0;
    std::string first_failure;
};

std::vector<fs::path> sorted_dirs(const fs::path& p, const std::string& prefix = "") {
    std::vector<fs::path> out;
    if (!fs::is_directory(p)) return out;
    for (const auto& e : fs::directory_iterator(p))
        if (e.is_directory() && e.path().filename().string().rfind(prefix, 0) == 0)
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

/// The data set's input_N.pb or output_N.pb files, each read as the model declares value N (a
/// TensorProto, a SequenceProto or an OptionalProto).
std::vector<burn::onnx::ValueData> read_set(const fs::path& dir, const std::string& stem,
                                            const std::vector<burn::onnx::ValueInfo>& declared) {
    std::vector<burn::onnx::ValueData> out;
    for (std::size_t i = 0;; ++i) {
        const fs::path f = dir / (stem + "_" + std::to_string(i) + ".pb");
        if (!fs::exists(f)) break;
        out.push_back(burn::onnx::load_value_proto(
            f, i < declared.size() ? declared[i].category : burn::onnx::ValueCategory::Tensor));
    }
    return out;
}

/// Empty when `got` matches `want` (numpy.testing.assert_allclose with rtol, atol; NaN == NaN).
std::string compare(const TypedData& got, const TypedData& want, std::size_t index) {
    std::ostringstream msg;
    if (got.type != want.type) {
        msg << "output " << index << ": type " << burn::onnx::elem_type_name(got.type)
            << ", expected " << burn::onnx::elem_type_name(want.type);
        return msg.str();
    }
    if (got.data.shape != want.data.shape) {
        msg << "output " << index << ": shape " << got.data.shape << ", expected "
            << want.data.shape;
        return msg.str();
    }
    const double rtol = 1e-3, atol = 1e-7;
    const std::size_t n = want.data.num_elements();
    for (std::size_t i = 0; i < n; ++i) {
        const double a = got.data.value_as_double(i), b = want.data.value_as_double(i);
        if (std::isnan(a) && std::isnan(b)) continue;
        if (a == b) continue;
        if (!(std::abs(a - b) <= atol + rtol * std::abs(b))) {
            msg << "output " << index << ": element " << i << " is " << a << ", expected " << b;
            return msg.str();
        }
    }
    return {};
}

/// Runs the test's data sets through Graph<Bk>; empty string on success, else the reason.
template <class Bk>
std::string run_sets(const fs::path& dir, const burn::onnx::ModelDesc& model) {
    try {
        burn::onnx::Graph<Bk> graph(model);
        const auto sets = sorted_dirs(dir, "test_data_set_");
        if (sets.empty()) return "no test_data_set_* folder";
        for (const auto& set : sets) {
            const auto inputs = read_set(set, "input", model.inputs);
            const auto expected = read_set(set, "output", model.outputs);
            std::vector<burn::onnx::Value<Bk>> values;
            for (const auto& d : inputs)
                values.push_back(burn::onnx::Value<Bk>::from_value_data(d, {}));
            const auto outs = graph.run(std::move(values));
            if (outs.size() != expected.size())
                return std::to_string(outs.size()) + " outputs, expected " +
                       std::to_string(expected.size());
            using Kind = burn::onnx::ValueData::Kind;
            for (std::size_t i = 0; i < outs.size(); ++i) {
                const auto got = outs[i].to_value_data();
                const auto& want = expected[i];
                std::string why;
                if (got.kind != want.kind || got.items.size() != want.items.size()) {
                    auto name = [](const burn::onnx::ValueData& d) {
                        return std::string(d.kind == Kind::None       ? "an empty optional"
                                           : d.kind == Kind::Sequence ? "a sequence"
                                                                      : "a tensor") +
                               " of " + std::to_string(d.items.size()) + " tensors";
                    };
                    why = "output " + std::to_string(i) + ": " + name(got) + ", expected " +
                          name(want);
                }
                for (std::size_t k = 0; why.empty() && k < want.items.size(); ++k)
                    why = compare(got.items[k], want.items[k], i);
                if (!why.empty()) return set.filename().string() + ": " + why;
            }
        }
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

/// run_test's answer for a float64 model on a backend without float64 tensors (Vulkan): the test
/// is skipped, counted apart from the passed and failed ones.
constexpr const char* kSkipF64 = "skipped: a float64 model, and the backend has no float64 tensors";

/// Runs one test directory; empty string on success, kSkipF64, else the reason.
std::string run_test(const fs::path& dir, std::set<std::string>& op_types, bool& f64) {
    burn::onnx::ModelDesc model;
    try {
        model = burn::onnx::load_model(dir / "model.onnx");
    } catch (const std::exception& e) {
        return std::string("load: ") + e.what();
    }
    burn::onnx::for_each_node(model.nodes, [&](const burn::onnx::Node& n, const std::string&) {
        op_types.insert(n.op_type);
    });
    if (model.nodes.empty()) op_types.insert("Constant");
    f64 = burn::onnx::testing::is_f64_model(model);
    if (!f64) return run_sets<B>(dir, model);
    if constexpr (burn::capabilities<B64>.float64) return run_sets<B64>(dir, model);
    else return kSkipF64;
}

std::string one_line(std::string s, std::size_t max = 160) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::replace(s.begin(), s.end(), '|', '/');
    if (s.size() > max) s = s.substr(0, max) + "...";
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    fs::path root = "/usr/share/libonnx-testdata/data";
    std::vector<std::string> folders = {"node", "simple", "pytorch-converted", "pytorch-operator"};
    std::string filter, markdown;
    std::map<std::string, double> floors;
    bool verbose = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "burn_onnx_conformance: " << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--root") root = next();
        else if (a == "--filter") filter = next();
        else if (a == "--markdown") markdown = next();
        else if (a == "--verbose" || a == "-v") verbose = true;
        else if (a == "--list-ops") {
            // The op registry's table (docs/onnx.md lists it).
            for (const auto& op : burn::onnx::Graph<B>::supported_ops()) {
                std::cout << op.op_type << " (opset " << op.since_opset;
                if (op.until_opset) std::cout << "-" << op.until_opset;
                else std::cout << "+";
                std::cout << ")\n";
            }
            return 0;
        } else if (a == "--folders") {
            folders.clear();
            std::stringstream ss(next());
            for (std::string f; std::getline(ss, f, ',');) folders.push_back(f);
        } else if (a == "--min") {
            const std::string v = next();
            const auto eq = v.find('=');
            if (eq == std::string::npos) {
                std::cerr << "burn_onnx_conformance: --min expects FOLDER=RATE, got " << v << "\n";
                return 2;
            }
            floors[v.substr(0, eq)] = std::stod(v.substr(eq + 1));
        } else {
            std::cerr << "usage: burn_onnx_conformance [--root DIR] [--folders a,b] [--filter S] "
                         "[--markdown FILE] [--min FOLDER=RATE] [--verbose] [--list-ops]\n";
            return 2;
        }
    }
    if (!fs::is_directory(root)) {
        std::cerr << "burn_onnx_conformance: " << root << " does not exist (install "
                  << "libonnx-testdata)\n";
        return 2;
    }

    std::map<std::string, OpStats> ops;
    std::map<std::string, std::pair<int, int>> per_folder;
    std::map<std::string, int> skipped;  // float64 models on a backend without float64
    std::vector<std::pair<std::string, std::string>> failures;
    int f64_tests = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& folder : folders) {
        auto& [pass, fail] = per_folder[folder];
        for (const auto& dir : sorted_dirs(root / folder)) {
            const std::string name = dir.filename().string();
            if (!filter.empty() && name.find(filter) == std::string::npos) continue;
            std::set<std::string> types;
            bool f64 = false;
            const std::string why = run_test(dir, types, f64);
            if (why == kSkipF64) {
                ++skipped[folder];
                if (verbose) std::cout << "SKIP " << folder << "/" << name << "  float64\n";
                continue;
            }
            if (f64) ++f64_tests;
            for (const auto& t : types) {
                auto& s = ops[t];
                if (why.empty()) ++s.passed;
                else {
                    ++s.failed;
                    if (s.first_failure.empty()) s.first_failure = name + ": " + why;
                }
            }
            if (why.empty()) ++pass;
            else {
                ++fail;
                failures.emplace_back(folder + "/" + name, why);
            }
            if (verbose)
                std::cout << (why.empty() ? "PASS " : "FAIL ") << folder << "/" << name
                          << (why.empty() ? "" : "  " + one_line(why, 400)) << "\n";
        }
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::cout << "\nper op type (tests containing the op):\n";
    std::printf("%-28s %6s %6s  %s\n", "op", "passed", "failed", "first failure");
    for (const auto& [op, s] : ops)
        std::printf("%-28s %6d %6d  %s\n", op.c_str(), s.passed, s.failed,
                    one_line(s.first_failure, 110).c_str());
    std::cout << "\n";
    int status = 0;
    for (const auto& folder : folders) {
        const auto [pass, fail] = per_folder[folder];
        const int total = pass + fail;
        const double rate = total ? static_cast<double>(pass) / total : 1.0;
        std::printf("%s: %d passed, %d failed (%.1f%%)", folder.c_str(), pass, fail, 100 * rate);
        if (skipped[folder]) std::printf(", %d float64 models skipped", skipped[folder]);
        std::printf("\n");
        if (auto it = floors.find(folder); it != floors.end() && rate < it->second) {
            std::printf("  below the floor of %.1f%%\n", 100 * it->second);
            status = 1;
        }
    }
    if constexpr (burn::capabilities<B64>.float64)
        std::printf("(%.1f s; %d float64 models ran on %s)\n", secs, f64_tests, kBackends);
    else std::printf("(%.1f s on %s)\n", secs, kBackends);

    if (!markdown.empty()) {
        std::ofstream md(markdown);
        md << "| folder | passed | failed | pass rate |\n|---|---|---|---|\n";
        for (const auto& folder : folders) {
            const auto [pass, fail] = per_folder[folder];
            const int total = pass + fail;
            char rate[32];
            std::snprintf(rate, sizeof rate, "%.1f%%", total ? 100.0 * pass / total : 100.0);
            md << "| " << folder << " | " << pass << " | " << fail << " | " << rate << " |\n";
        }
        md << "\n| op | passed | failed | first failure |\n|---|---|---|---|\n";
        for (const auto& [op, s] : ops)
            md << "| " << op << " | " << s.passed << " | " << s.failed << " | "
               << one_line(s.first_failure, 140) << " |\n";
    }
    return status;
}

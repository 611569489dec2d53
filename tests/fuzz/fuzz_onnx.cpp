// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target for the ONNX model reader (burn/onnx/model.hpp, src/onnx/model.cpp, compiled
// into this target): arbitrary bytes given to parse_model must either load or throw burn::Error;
// they must never crash, hang, read out of bounds (ASan) or trigger undefined behaviour (UBSan) in
// burn-cpp's code. A model that loads must keep the loader's promises: every value a node reads
// is a graph input, an initializer or the output of an earlier node; every initializer's bytes
// fill its shape. External data is resolved against an empty folder of this process, so a model
// that names an external file is refused without reading outside it. libonnx and protobuf are
// Debian's uninstrumented libraries: a crash inside them is reported too. Run with
// tests/fuzz/run.sh.
#include <unistd.h>

#include <burn/onnx/model.hpp>
#include <burn/tensor/error.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <span>
#include <string>

namespace {
namespace fs = std::filesystem;

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "fuzz_onnx: %s\n%s\n", what, detail.c_str());
    std::abort();
}

/// An empty directory of this process (external data is looked up there), removed at exit.
const fs::path& base_dir() {
    static const fs::path dir = [] {
        auto d = fs::temp_directory_path() / ("burn_fuzz_onnx_" + std::to_string(::getpid()));
        fs::create_directories(d);
        std::atexit([] {
            std::error_code ignored;
            fs::remove_all(base_dir(), ignored);
        });
        return d;
    }();
    return dir;
}

void check(std::span<const std::uint8_t> bytes) {
    burn::onnx::ModelDesc model;
    try {
        model = burn::onnx::parse_model(bytes, base_dir(), "<fuzz>");
    } catch (const burn::Error&) {
        return;  // refused with a message: the expected outcome for most inputs
    }
    std::set<std::string> defined;
    for (const auto& in : model.inputs) defined.insert(in.name);
    for (const auto& [name, value] : model.initializers) {
        defined.insert(name);
        const auto& d = value.data;
        if (d.dtype != burn::DType::QInt8 &&
            d.bytes().size() != d.shape.num_elements() * burn::dtype_size(d.dtype))
            die("an initializer's bytes do not fill its shape", name);
    }
    for (const auto& node : model.nodes) {
        for (const auto& in : node.inputs)
            if (!in.empty() && defined.count(in) == 0)
                die("a loaded model reads a value defined nowhere before it", node.describe());
        for (const auto& out : node.outputs) defined.insert(out);
    }
    for (const auto& out : model.outputs)
        if (defined.count(out.name) == 0) die("a graph output is defined nowhere", out.name);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    check(std::span<const std::uint8_t>(data, size));
    return 0;
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target for the ONNX model reader (burn/onnx/model.hpp, src/onnx/model.cpp, compiled
// into this target): arbitrary bytes given to parse_model must either load or throw burn::Error;
// they must never crash, hang, read out of bounds (ASan) or trigger undefined behaviour (UBSan) in
// burn-cpp's code. A model that loads must keep the loader's promises: every value a node reads
// is a graph input, an initializer or the output of an earlier node, of its graph or, in a
// subgraph (If, Loop, Scan), of an enclosing graph; subgraphs nest at most max_subgraph_depth
// deep; every initializer's bytes fill its shape. The structure checks of control-flow nodes
// (check_control_flow) run on every node and may only refuse with burn::Error. External data is
// resolved against an empty folder of this process, so a model that names an external file is
// refused without reading outside it. The same bytes are also read as a test-suite value file
// (parse_value_proto: a TensorProto, SequenceProto or OptionalProto), which must load with the
// kind its category allows or throw burn::Error. libonnx and protobuf are Debian's uninstrumented
// libraries: a crash inside them is reported too. Run with tests/fuzz/run.sh.
#include <unistd.h>

#include <burn/onnx/model.hpp>
#include <burn/onnx/ops_control.hpp>
#include <burn/tensor/error.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

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

/// The names visible in a graph being checked: its own, then the enclosing graphs'.
struct Scope {
    std::set<std::string> names;
    const Scope* outer = nullptr;
    bool has(const std::string& n) const {
        for (const Scope* s = this; s; s = s->outer)
            if (s->names.count(n)) return true;
        return false;
    }
};

void check_initializers(const std::map<std::string, burn::onnx::TypedData>& inits, Scope& scope) {
    for (const auto& [name, value] : inits) {
        scope.names.insert(name);
        const auto& d = value.data;
        if (d.dtype != burn::DType::QInt8 &&
            d.bytes().size() != d.shape.num_elements() * burn::dtype_size(d.dtype))
            die("an initializer's bytes do not fill its shape", name);
    }
}

/// Every value a node reads is defined before it, in its graph or an enclosing one (subgraphs
/// included, at most max_subgraph_depth deep); the control-flow checks refuse with burn::Error.
void check_nodes(const std::vector<burn::onnx::Node>& nodes, Scope& scope, std::int64_t opset,
                 std::size_t depth) {
    if (depth > burn::onnx::max_subgraph_depth) die("subgraphs nested deeper than the limit");
    for (const auto& node : nodes) {
        for (const auto& in : node.inputs)
            if (!in.empty() && !scope.has(in))
                die("a loaded model reads a value defined nowhere before it", node.describe());
        for (const auto& [key, g] : node.subgraphs()) {
            Scope inner{{}, &scope};
            for (const auto& in : g->inputs) inner.names.insert(in.name);
            check_initializers(g->initializers, inner);
            check_nodes(g->nodes, inner, opset, depth + 1);
            for (const auto& out : g->outputs)
                if (!inner.has(out.name)) die("a subgraph output is defined nowhere", out.name);
            for (const auto& name : g->outer_names())
                if (!scope.has(name)) die("a subgraph reads an outer value defined nowhere", name);
        }
        try {
            burn::onnx::check_control_flow(node, opset);
        } catch (const burn::Error&) {
            // a malformed If, Loop or Scan: refused with a message
        }
        for (const auto& out : node.outputs) scope.names.insert(out);
    }
}

/// The same bytes as a test-suite value file of each category: a value that loads has the kind
/// its category allows, and every tensor's bytes fill its shape.
void check_value_proto(std::span<const std::uint8_t> bytes) {
    using burn::onnx::ValueCategory;
    using Kind = burn::onnx::ValueData::Kind;
    for (auto c : {ValueCategory::Tensor, ValueCategory::Sequence, ValueCategory::Optional,
                   ValueCategory::OptionalSequence}) {
        burn::onnx::ValueData v;
        try {
            v = burn::onnx::parse_value_proto(bytes, c, "<fuzz>", base_dir());
        } catch (const burn::Error&) {
            continue;
        }
        const bool ok = c == ValueCategory::Tensor ? v.kind == Kind::Tensor && v.items.size() == 1
                        : c == ValueCategory::Sequence ? v.kind == Kind::Sequence
                                                       : true;
        if (!ok) die("a value file loaded as another kind than its category allows");
        if (v.kind == Kind::None && !v.items.empty()) die("an empty optional holds tensors");
        std::map<std::string, burn::onnx::TypedData> items;
        for (std::size_t i = 0; i < v.items.size(); ++i) items[std::to_string(i)] = v.items[i];
        Scope ignored;
        check_initializers(items, ignored);
    }
}

void check(std::span<const std::uint8_t> bytes) {
    check_value_proto(bytes);
    burn::onnx::ModelDesc model;
    try {
        model = burn::onnx::parse_model(bytes, base_dir(), "<fuzz>");
    } catch (const burn::Error&) {
        return;  // refused with a message: the expected outcome for most inputs
    }
    Scope scope;
    for (const auto& in : model.inputs) scope.names.insert(in.name);
    check_initializers(model.initializers, scope);
    check_nodes(model.nodes, scope, model.opset, 0);
    for (const auto& out : model.outputs)
        if (!scope.has(out.name)) die("a graph output is defined nowhere", out.name);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    check(std::span<const std::uint8_t>(data, size));
    return 0;
}

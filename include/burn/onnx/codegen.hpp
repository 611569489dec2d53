// SPDX-License-Identifier: MIT OR Apache-2.0
// The ONNX code generator (Burn's ModelGen): turns a loaded model (burn/onnx/model.hpp) into a C++
// header with `template <burn::Backend B> struct <Name>`, a module whose float initializers are
// Param fields (recorded, trainable under Autodiff<B>) and whose forward() runs the nodes in order
// through the op registry, and into the weights record. The `burn-onnx` program and the CMake
// function burn_onnx_generate() call it (docs/onnx.md, "Generating code").
//
//   burn::onnx::CodegenOptions o;
//   o.name = "Mnist";
//   const auto m = burn::onnx::load_model("m.onnx", burn::onnx::ShapeInference::On);
//   burn::onnx::GeneratedFiles f = burn::onnx::generate_files(m, o);
//   burn::onnx::write_generated(f, "out");   // out/mnist.hpp, out/mnist.mpk
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "burn/onnx/model.hpp"

namespace burn::onnx {

struct CodegenOptions {
    /// The struct's name: a C++ identifier ("Mnist"); files are named after it in snake case.
    std::string name;
    /// "named-mpk" (default), "named-mpk-gz", "bin", "bin-gz", "json-gz" or "pretty-json".
    std::string record_type = "named-mpk";
    /// "full" (f32, default), "half" (f16) or "double" (f64): the precision of the record.
    std::string precision = "full";
    /// Also write `<snake>_states.cpp` with the weights (Bin format, full precision) as a byte
    /// array, and give the struct from_embedded(device).
    bool embed_states = false;
};

/// The generated files, not yet written.
struct GeneratedFiles {
    std::string header_name;  ///< "mnist.hpp"
    std::string header;
    std::string record_name;  ///< "mnist.mpk" (the record type's extension)
    std::vector<std::uint8_t> record;
    std::string states_source_name;  ///< "mnist_states.cpp"; empty without embed_states
    std::string states_source;
    std::size_t num_params = 0;     ///< float initializers turned into Param fields
    std::size_t num_constants = 0;  ///< other initializers, written into the header
};

/// Generates the files. Throws one burn::Error listing every unsupported op (op type, node name,
/// opset) and for a bad name, record type or precision, or an input of an unsupported type.
GeneratedFiles generate_files(const ModelDesc& model, const CodegenOptions& options);

/// Writes the files into `dir` (created if needed); returns the paths written.
std::vector<std::filesystem::path> write_generated(const GeneratedFiles& files,
                                                   const std::filesystem::path& dir);

/// "Mnist" -> "mnist", "MyNet2D" -> "my_net2_d".
std::string snake_case(std::string_view name);

}  // namespace burn::onnx

// SPDX-License-Identifier: MIT OR Apache-2.0
// burn-onnx: generates a C++ model header and its weights record from an ONNX file (Burn's
// ModelGen as a program; docs/onnx.md, "Generating code").
//
//   burn-onnx model.onnx --name Mnist --out DIR [--record-type named-mpk] [--precision full]
//             [--embed-states]
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "burn/onnx/codegen.hpp"
#include "burn/onnx/model.hpp"

namespace {

constexpr std::string_view usage =
    "usage: burn-onnx MODEL.onnx --name NAME --out DIR [--record-type TYPE]\n"
    "                 [--precision full|half|double] [--embed-states] [--quiet]\n"
    "\n"
    "Writes DIR/<name>.hpp (template <burn::Backend B> struct NAME: Param fields for the\n"
    "float initializers, forward(...), NAME(device), from_file(path, device)) and the weights\n"
    "record DIR/<name>.<ext> (<name> is NAME in snake case).\n"
    "  --record-type   named-mpk (default, .mpk), named-mpk-gz, bin, bin-gz, json-gz,\n"
    "                  pretty-json\n"
    "  --precision     full (f32, default), half (f16) or double (f64) in the record\n"
    "  --embed-states  also write DIR/<name>_states.cpp (the weights as a byte array) and\n"
    "                  give the struct from_embedded(device)\n";

}  // namespace

int main(int argc, char** argv) {
    std::string model, out;
    burn::onnx::CodegenOptions o;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&](std::string_view flag) -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "burn-onnx: " << flag << " needs a value\n" << usage;
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::cout << usage;
            return 0;
        } else if (a == "--name") {
            o.name = value(a);
        } else if (a == "--out") {
            out = value(a);
        } else if (a == "--record-type") {
            o.record_type = value(a);
        } else if (a == "--precision") {
            o.precision = value(a);
        } else if (a == "--embed-states") {
            o.embed_states = true;
        } else if (a == "--quiet") {
            quiet = true;
        } else if (!a.empty() && a[0] == '-') {
            std::cerr << "burn-onnx: unknown option " << a << "\n" << usage;
            return 2;
        } else if (model.empty()) {
            model = a;
        } else {
            std::cerr << "burn-onnx: more than one model given (" << model << ", " << a << ")\n"
                      << usage;
            return 2;
        }
    }
    if (model.empty() || o.name.empty() || out.empty()) {
        std::cerr << "burn-onnx: MODEL, --name and --out are required\n" << usage;
        return 2;
    }
    try {
        const auto files = burn::onnx::generate_files(
            burn::onnx::load_model(model, burn::onnx::ShapeInference::On), o);
        const auto written = burn::onnx::write_generated(files, out);
        if (!quiet) {
            std::cout << "burn-onnx: " << model << " -> " << o.name << " (" << files.num_params
                      << " parameters, " << files.num_constants << " constants)\n";
            for (const auto& p : written) std::cout << "  wrote " << p.string() << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}

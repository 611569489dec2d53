// SPDX-License-Identifier: MIT OR Apache-2.0
// The prebuilt ONNX executor Graph<Cpu<double>> (float64 models) with its op registry, compiled
// once here (declared extern in burn/onnx/graph.hpp).
#include "burn/backend/cpu.hpp"
#include "burn/onnx/graph.hpp"

namespace burn::onnx {
template class OpRegistry<Cpu<double>>;
template class Graph<Cpu<double>>;
}  // namespace burn::onnx

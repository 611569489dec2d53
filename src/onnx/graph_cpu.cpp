// SPDX-License-Identifier: MIT OR Apache-2.0
// The prebuilt ONNX executor Graph<Cpu<float>> with its op registry, compiled once here (declared
// extern in burn/onnx/graph.hpp). Graph<Cpu<double>> is in graph_cpu_f64.cpp, so that the two
// build in parallel.
#include "burn/backend/cpu.hpp"
#include "burn/onnx/graph.hpp"

namespace burn::onnx {
template class OpRegistry<Cpu<float>>;
template class Graph<Cpu<float>>;
}  // namespace burn::onnx

// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide on the cuda backend with its training steps captured as CUDA graphs (guide --backend
// cuda-graph): the Learner's with_step_capture(burn::CudaGraphs{}).
#include <burn/backend/cuda.hpp>
#include <burn/backend/cuda/graph.hpp>

#include "app.hpp"

namespace guide {

int run_cuda_graph(const Options& o) {
    const burn::CudaDevice device{0};
    return run<burn::Cuda<>>(o, device, burn::CudaGraphs{.device = device});
}

}  // namespace guide

// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide on the cuda backend with kernel fusion (guide --backend cuda-fusion): training runs on
// Autodiff<Fusion<Cuda<>>>, inference on Fusion<Cuda<>>; each fused program is one CUDA kernel
// generated and compiled by NVRTC on first use (docs/fusion.md).
#include <burn/backend/cuda.hpp>
#include <burn/fusion/fusion.hpp>

#include "app.hpp"

namespace guide {

int run_cuda_fusion(const Options& o) {
    return run<burn::Fusion<burn::Cuda<>>>(o, burn::CudaDevice{0});
}

}  // namespace guide

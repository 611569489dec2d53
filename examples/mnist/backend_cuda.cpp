// SPDX-License-Identifier: MIT OR Apache-2.0
// The mnist example on the cuda backend (mnist --backend cuda).
#include <burn/backend/cuda.hpp>

#include "mnist.hpp"

namespace mnist {

int run_cuda(const Options& o) { return run<burn::Autodiff<burn::Cuda<>>>(o, burn::CudaDevice{0}); }

}  // namespace mnist

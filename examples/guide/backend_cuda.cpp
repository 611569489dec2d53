// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide on the cuda backend (guide --backend cuda).
#include <burn/backend/cuda.hpp>

#include "app.hpp"

namespace guide {

int run_cuda(const Options& o) { return run<burn::Cuda<>>(o, burn::CudaDevice{0}); }

}  // namespace guide

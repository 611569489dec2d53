// SPDX-License-Identifier: MIT OR Apache-2.0
// The mnist example on the cpu backend (mnist --backend cpu).
#include <burn/backend/cpu.hpp>

#include "mnist.hpp"

namespace mnist {

int run_cpu(const Options& o) {
    return run<burn::Autodiff<burn::Cpu<float>>>(o, burn::CpuDevice{});
}

}  // namespace mnist

// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide on the cpu backend (guide --backend cpu).
#include <burn/backend/cpu.hpp>

#include "app.hpp"

namespace guide {

int run_cpu(const Options& o) { return run<burn::Cpu<float>>(o, burn::CpuDevice{}); }

}  // namespace guide

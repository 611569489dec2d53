// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide on the cpu backend with kernel fusion (guide --backend cpu-fusion): training runs on
// Autodiff<Fusion<Cpu<float>>>, inference on Fusion<Cpu<float>> (docs/fusion.md).
#include <burn/backend/cpu.hpp>
#include <burn/fusion/fusion.hpp>

#include "app.hpp"

namespace guide {

int run_cpu_fusion(const Options& o) {
    return run<burn::Fusion<burn::Cpu<float>>>(o, burn::CpuDevice{});
}

}  // namespace guide

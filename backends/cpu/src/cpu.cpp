// SPDX-License-Identifier: MIT OR Apache-2.0
// The device kernels of the CPU kernel set (one device, nothing queued), and the checks of the
// kernel set and of the op table, once, for every instantiation the library ships.
#include "burn/backend/cpu.hpp"

#include "burn/tensor/backend.hpp"

namespace burn::cpu {

CpuTensor Kernels::to_device(CpuTensor t, const CpuDevice&) { return t; }
void Kernels::sync(const CpuDevice&) {}

}  // namespace burn::cpu

static_assert(burn::backend::diagnose_kernel_set<burn::cpu::Kernels>());
static_assert(burn::backend::FusedAdamKernel<burn::cpu::Kernels>);
static_assert(burn::diagnose_backend<burn::Cpu<float>>());
static_assert(burn::diagnose_backend<burn::Cpu<double>>());
static_assert(burn::diagnose_backend<burn::Cpu<float, std::int32_t>>());

// SPDX-License-Identifier: MIT OR Apache-2.0
// The op table is checked once here, for every instantiation the library ships.
#include "burn/backend/cpu.hpp"

static_assert(burn::diagnose_backend<burn::Cpu<float>>());
static_assert(burn::diagnose_backend<burn::Cpu<double>>());
static_assert(burn::diagnose_backend<burn::Cpu<float, std::int32_t>>());
static_assert(burn::Backend<burn::Cpu<>>);

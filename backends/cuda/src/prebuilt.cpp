// SPDX-License-Identifier: MIT OR Apache-2.0
// The prebuilt instance Autodiff<Cuda<>> (burn/backend/prebuilt.hpp): compiled here once,
// declared extern in users' files.
#include "burn/autodiff/autodiff.hpp"
#include "burn/backend/cuda.hpp"

namespace burn {
template struct Autodiff<Cuda<>>;
}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// Fused optimizer kernels: a backend may have a one-pass Adam update (read param, grad and both
// moments once, write them once) instead of the dozen element-wise passes that composing its ops
// takes. A kit backend has it when its kernel set has `adam_step` (backend::FusedAdamKernel; the
// CPU backend's does): the adapter then provides `B::fused_adam_step`. Adam::step uses it when
// present, and the composed form otherwise.
#pragma once

#include "burn/backend/ops.hpp"

namespace burn::optim {

/// The scalars of one Adam step on one parameter.
using AdamHyper = backend::AdamHyper;

/// A backend with a fused Adam step:
///   B::fused_adam_step(param, grad, moment_1*, moment_2*, hyper) -> {param, moment_1, moment_2}
/// after the step (null moments: the first step, read as zeros). It may move from the moments
/// and write into any buffer it owns alone.
template <class B>
concept FusedAdamBackend = requires(typename B::FloatTensor t, typename B::FloatTensor* m,
                                    const AdamHyper& h) {
    B::fused_adam_step(t, t, m, m, h);
};

}  // namespace burn::optim

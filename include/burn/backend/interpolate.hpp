// SPDX-License-Identifier: MIT OR Apache-2.0
// The source coordinates of PyTorch's F.interpolate(size=...) along one dim, as tap tables that
// every kit backend uses (host code, src/backend/interpolate.cpp, tested in tests/backend):
//   nearest:  src = min(floor(dst * (in / out)), in - 1), the scale in single precision as torch;
//   linear:   align_corners: src = dst * (in - 1) / (out - 1); otherwise
//             src = (dst + 0.5) * in / out - 0.5, clamped at 0 for bilinear (not for bicubic);
//   bilinear: rows floor(src) and the next one (clamped), weights 1 - t and t;
//   bicubic:  Keys' cubic convolution (A = -0.75) over floor(src) - 1 .. floor(src) + 2, each
//             index clamped to the border.
// Weights are computed in E (float or double), so that a backend's f32 and f64 results are
// those of PyTorch's kernels of the same precision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "burn/tensor/module_options.hpp"

namespace burn::backend {

/// The source indices and weights of every output index along one dim: output o reads `taps`
/// input indices idx[o * taps + j] (in [0, in)) with weights w[o * taps + j].
template <class E>
struct InterpolationTaps {
    std::size_t taps = 1;  ///< 1 (nearest), 2 (bilinear) or 4 (bicubic)
    std::vector<std::int64_t> idx;
    std::vector<E> w;
};

/// The taps of `options.mode` from `in` input to `out` output positions (both positive).
template <class E>
InterpolationTaps<E> interpolation_taps(std::size_t in, std::size_t out,
                                        const InterpolateOptions& options);

extern template InterpolationTaps<float> interpolation_taps<float>(std::size_t, std::size_t,
                                                                   const InterpolateOptions&);
extern template InterpolationTaps<double> interpolation_taps<double>(std::size_t, std::size_t,
                                                                     const InterpolateOptions&);

}  // namespace burn::backend

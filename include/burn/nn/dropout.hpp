// SPDX-License-Identifier: MIT OR Apache-2.0
// Dropout (torch.nn.Dropout): during training, zeroes each element with probability `prob` and
// scales the others by 1 / (1 - prob). As in Burn, it is active only on an autodiff backend (a
// model used for training); on a plain backend (inference, `model.valid()`) it is the identity.
//
//   auto dropout = nn::DropoutConfig{.prob = 0.1}.init();
//   x = dropout.forward(x);
#pragma once

#include "burn/config/config.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

struct Dropout;

/// Configuration of Dropout.
struct DropoutConfig {
    Required<double> prob;  ///< probability of zeroing an element, in [0, 1)
    BURN_CONFIG(DropoutConfig, prob)

    Dropout init() const;
};

/// No parameters and no backend: usable in any module.
struct Dropout {
    double prob = 0.5;
    BURN_MODULE(prob)

    /// x with elements dropped (training on an autodiff backend) or x itself.
    template <Backend B, std::size_t D>
    Tensor<B, D> forward(const Tensor<B, D>& x) const {
        if constexpr (!AutodiffBackend<B>) {
            return x;
        } else {
            if (prob == 0.0) return x;
            const double scale = 1.0 / (1.0 - prob);
            const auto keep =
                Tensor<B, D>::random(x.shape(), Distribution::Bernoulli(1.0 - prob), x.device());
            if (is_half(x.dtype())) {
                // f16 / bf16 (autocast): the output keeps x's dtype, and x * scale is rounded
                // once, with the f32 scale (as PyTorch): x * keep is exact (keep is 0 or 1).
                return (x * keep.cast(x.dtype())) * scale;
            }
            // The mask is scaled before it meets x: it is untracked, so `keep * scale` runs on
            // the inner backend with no graph node, and the tracked product is a single mul
            // (one pass forward, one backward) instead of a mul and a mul_scalar. The values
            // are those of x * keep * scale, bit for bit (keep is 0 or 1).
            return x * (keep * scale);
        }
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const { c.add("prob", prob); }
};

inline Dropout DropoutConfig::init() const {
    BURN_CHECK(*prob >= 0.0 && *prob < 1.0, "DropoutConfig::init: prob must be in [0, 1), got ",
               *prob);
    return Dropout{*prob};
}

}  // namespace burn::nn

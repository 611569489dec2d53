// SPDX-License-Identifier: MIT OR Apache-2.0
// AdamW (torch.optim.AdamW): Adam with decoupled weight decay. Each step first shrinks the
// parameter, param *= 1 - lr * weight_decay, then applies the Adam update with bias correction.
//
//   auto optim = optim::AdamWConfig{.weight_decay = 1e-2}.init<AD, Model<AD>>();
#pragma once

#include <optional>

#include "burn/config/config.hpp"
#include "burn/optim/adam.hpp"
#include "burn/optim/grads.hpp"
#include "burn/optim/optimizer.hpp"

namespace burn::optim {

/// The SimpleOptimizer of AdamWConfig. State per parameter: "moment_1", "moment_2", "time".
struct AdamW {
    double beta_1 = 0.9;
    double beta_2 = 0.999;
    double epsilon = 1e-5;
    double weight_decay = 1e-4;

    /// One step on one parameter: the decay, then Adam's update (without L2 penalty) with the
    /// same state, so that a backend's fused Adam kernel (FusedAdamBackend) serves AdamW too.
    template <Backend IB, std::size_t D>
    Tensor<IB, D> step(double lr, Tensor<IB, D> param, Tensor<IB, D> grad,
                       ParamState<IB>& state) const {
        // p = p (1 - lr wd): decoupled from the moments, applied to the parameter before the
        // step (torch.optim.AdamW, Burn's AdamW).
        const double decay = lr * weight_decay;
        if (decay != 0.0) param = std::move(param) * (1.0 - decay);
        // p = p - lr m_hat / (sqrt(v_hat) + eps).
        return Adam{beta_1, beta_2, epsilon, std::nullopt}.step(lr, std::move(param),
                                                                std::move(grad), state);
    }
    /// A step that a captured graph ran (Adam::replayed).
    template <Backend IB>
    void replayed(ParamState<IB>& state) const {
        Adam{}.replayed(state);
    }
};

/// Configuration of AdamW (Burn's defaults: epsilon 1e-5 and weight_decay 1e-4, where PyTorch
/// uses 1e-8 and 1e-2).
struct AdamWConfig {
    double beta_1 = 0.9;
    double beta_2 = 0.999;
    double epsilon = 1e-5;
    /// Decoupled weight decay (a coefficient, not a WeightDecayConfig: it is not an L2 penalty).
    double weight_decay = 1e-4;
    std::optional<GradientClippingConfig> grad_clipping = std::nullopt;
    BURN_CONFIG(AdamWConfig, beta_1, beta_2, epsilon, weight_decay, grad_clipping)

    template <AutodiffBackend B, class M = void>
    OptimizerAdaptor<AdamW, B> init() const {
        BURN_CHECK(beta_1 >= 0 && beta_1 < 1 && beta_2 >= 0 && beta_2 < 1,
                   "AdamWConfig::init: beta_1 and beta_2 must be in [0, 1), got ", beta_1, " and ",
                   beta_2);
        BURN_CHECK(epsilon > 0, "AdamWConfig::init: epsilon must be positive, got ", epsilon);
        BURN_CHECK(weight_decay >= 0, "AdamWConfig::init: weight_decay must be >= 0, got ",
                   weight_decay);
        if (grad_clipping)
            BURN_CHECK(*grad_clipping->threshold > 0,
                       "AdamWConfig::init: grad_clipping.threshold must "
                       "be positive, got ",
                       *grad_clipping->threshold);
        return OptimizerAdaptor<AdamW, B>(AdamW{beta_1, beta_2, epsilon, weight_decay},
                                          grad_clipping);
    }
};

}  // namespace burn::optim

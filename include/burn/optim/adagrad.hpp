// SPDX-License-Identifier: MIT OR Apache-2.0
// AdaGrad (torch.optim.Adagrad): the gradient divided by the root of the sum of all its past
// squares, with an optional learning-rate decay over the steps.
//
//   auto optim = optim::AdaGradConfig{.lr_decay = 1e-3}.init<AD, Model<AD>>();
#pragma once

#include <cstdint>
#include <optional>

#include "burn/config/config.hpp"
#include "burn/optim/decay.hpp"
#include "burn/optim/grads.hpp"
#include "burn/optim/optimizer.hpp"

namespace burn::optim {

/// The SimpleOptimizer of AdaGradConfig. State per parameter: "sum" and "time".
///
///   g = grad (+ penalty * param with weight decay);  sum += g^2  (sum starts at 0)
///   clr = lr / (1 + (t - 1) lr_decay)   (t = 1 on the first step)
///   param = param - clr g / (sqrt(sum) + eps)
struct AdaGrad {
    double lr_decay = 0.0;
    double epsilon = 1e-5;
    std::optional<WeightDecayConfig> weight_decay;

    template <Backend IB, std::size_t D>
    Tensor<IB, D> step(double lr, Tensor<IB, D> param, Tensor<IB, D> grad,
                       ParamState<IB>& state) const {
        if (weight_decay) grad = weight_decay->apply(std::move(grad), param);
        auto sum = state.template take<D>("sum", grad.device());
        auto sum_new = sum ? std::move(*sum) + grad * grad : grad * grad;
        const std::int64_t time = state.counter("time") + 1;
        const double clr = lr / (1.0 + double(time - 1) * lr_decay);
        auto update = (std::move(grad) / (sum_new.sqrt() + epsilon)) * clr;
        state.set("sum", std::move(sum_new));
        state.set_counter("time", time);
        return std::move(param) - std::move(update);
    }
    /// A step that a captured graph ran (OptimizerAdaptor::count_replayed_step): the count
    /// advances. With lr_decay the rate changes at every step, which a graph cannot replay.
    template <Backend IB>
    void replayed(ParamState<IB>& state) const {
        BURN_CHECK(lr_decay == 0.0, "AdaGrad: a captured step cannot be replayed with lr_decay ",
                   lr_decay,
                   " (the rate of each step is computed on the host; capture without "
                   "it, or run the steps uncaptured)");
        state.set_counter("time", state.counter("time") + 1);
    }
};

/// Configuration of AdaGrad (Burn's defaults: epsilon 1e-5, where PyTorch uses 1e-10).
struct AdaGradConfig {
    double lr_decay = 0.0;
    double epsilon = 1e-5;
    std::optional<WeightDecayConfig> weight_decay = std::nullopt;
    std::optional<GradientClippingConfig> grad_clipping = std::nullopt;
    BURN_CONFIG(AdaGradConfig, lr_decay, epsilon, weight_decay, grad_clipping)

    template <AutodiffBackend B, class M = void>
    OptimizerAdaptor<AdaGrad, B> init() const {
        BURN_CHECK(lr_decay >= 0, "AdaGradConfig::init: lr_decay must be >= 0, got ", lr_decay);
        BURN_CHECK(epsilon > 0, "AdaGradConfig::init: epsilon must be positive, got ", epsilon);
        if (weight_decay)
            BURN_CHECK(*weight_decay->penalty >= 0,
                       "AdaGradConfig::init: weight_decay.penalty "
                       "must be >= 0, got ",
                       *weight_decay->penalty);
        if (grad_clipping)
            BURN_CHECK(*grad_clipping->threshold > 0,
                       "AdaGradConfig::init: grad_clipping.threshold must "
                       "be positive, got ",
                       *grad_clipping->threshold);
        return OptimizerAdaptor<AdaGrad, B>(AdaGrad{lr_decay, epsilon, weight_decay},
                                            grad_clipping);
    }
};

}  // namespace burn::optim

// SPDX-License-Identifier: MIT OR Apache-2.0
// Adam (torch.optim.Adam): adaptive moments with bias correction, optional L2 weight decay.
//
//   auto optim = optim::AdamConfig{}.init<AD, Model<AD>>();
#pragma once

#include <cmath>
#include <optional>

#include "burn/config/config.hpp"
#include "burn/optim/decay.hpp"
#include "burn/optim/grads.hpp"
#include "burn/optim/kernels.hpp"
#include "burn/optim/optimizer.hpp"

namespace burn::optim {

/// The SimpleOptimizer of AdamConfig. State per parameter: "moment_1", "moment_2", "time".
struct Adam {
    double beta_1 = 0.9;
    double beta_2 = 0.999;
    double epsilon = 1e-5;
    std::optional<WeightDecayConfig> weight_decay;

    /// One step on one parameter: the backend's fused kernel when it has one
    /// (FusedAdamBackend, <burn/optim/kernels.hpp>; the CPU backend does), else step_composed.
    /// Both paths check the gradient and the state first (check_step) and accept the same
    /// parameters: a quantized one is dequantized, as the composed ops do.
    template <Backend IB, std::size_t D>
    Tensor<IB, D> step(double lr, Tensor<IB, D> param, Tensor<IB, D> grad,
                       ParamState<IB>& state) const {
        if constexpr (FusedAdamBackend<IB>) {
            const auto device = grad.device();
            auto m = state.template take<D>("moment_1", device);
            auto v = state.template take<D>("moment_2", device);
            check_step(param, grad, m, v);
            if (param.is_quantized()) param = param.dequantize();
            const std::int64_t time = state.counter("time") + 1;
            const AdamHyper h = hyper(lr, time);
            std::optional<typename IB::FloatTensor> pm, pv;
            if (m) pm = std::move(*m).into_primitive();
            if (v) pv = std::move(*v).into_primitive();
            auto r = IB::fused_adam_step(std::move(param).into_primitive(),
                                         std::move(grad).into_primitive(), pm ? &*pm : nullptr,
                                         pv ? &*pv : nullptr, h);
            state.set("moment_1", Tensor<IB, D>(std::move(r.moment_1)));
            state.set("moment_2", Tensor<IB, D>(std::move(r.moment_2)));
            state.set_counter("time", time);
            return Tensor<IB, D>(std::move(r.param));
        } else {
            return step_composed(lr, std::move(param), std::move(grad), state);
        }
    }

    /// The same step written with the backend's element-wise ops (any backend).
    template <Backend IB, std::size_t D>
    Tensor<IB, D> step_composed(double lr, Tensor<IB, D> param, Tensor<IB, D> grad,
                                ParamState<IB>& state) const {
        const auto device = grad.device();
        auto m = state.template take<D>("moment_1", device);
        auto v = state.template take<D>("moment_2", device);
        check_step(param, grad, m, v);
        const std::int64_t time = state.counter("time") + 1;
        const AdamHyper h = hyper(lr, time);
        if (weight_decay) grad = weight_decay->apply(std::move(grad), param);
        // m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2 (from zero on the first step).
        auto grad_sq = grad * grad;
        auto m_new = m ? std::move(*m) * beta_1 + std::move(grad) * (1.0 - beta_1)
                       : std::move(grad) * (1.0 - beta_1);
        auto v_new = v ? std::move(*v) * beta_2 + std::move(grad_sq) * (1.0 - beta_2)
                       : std::move(grad_sq) * (1.0 - beta_2);
        // update = m_hat / (sqrt(v_hat) + eps), with m_hat = m / c1 and v_hat = v / c2.
        auto denom = (v_new * (1.0 / h.correction_2)).sqrt() + epsilon;
        auto update = (m_new / std::move(denom)) * (lr / h.correction_1);
        state.set("moment_1", std::move(m_new));
        state.set("moment_2", std::move(v_new));
        state.set_counter("time", time);
        return std::move(param) - std::move(update);
    }

    /// One step that a captured graph ran on the device (OptimizerAdaptor::count_replayed_step):
    /// the step count advances. The device kernels of the graph get the bias corrections of each
    /// replay's count from the backend (AdamHyper::time).
    template <Backend IB>
    void replayed(ParamState<IB>& state) const {
        state.set_counter("time", state.counter("time") + 1);
    }

private:
    /// Throws burn::Error unless the gradient and the moments (both or none: the state of this
    /// parameter) have the parameter's shape.
    template <Backend IB, std::size_t D>
    static void check_step(const Tensor<IB, D>& param, const Tensor<IB, D>& grad,
                           const std::optional<Tensor<IB, D>>& m,
                           const std::optional<Tensor<IB, D>>& v) {
        BURN_CHECK(grad.shape() == param.shape(), "Adam: the gradient (", grad.shape(),
                   ") does not match the parameter (", param.shape(), ")");
        BURN_CHECK(m.has_value() == v.has_value(), "Adam: both moments or none");
        if (m)
            BURN_CHECK(m->shape() == param.shape() && v->shape() == param.shape(),
                       "Adam: the moments ", m->shape(), " and ", v->shape(),
                       " do not match the parameter ", param.shape(),
                       " (a state of another model?)");
    }

    AdamHyper hyper(double lr, std::int64_t time) const {
        return AdamHyper{lr,
                         beta_1,
                         beta_2,
                         epsilon,
                         1.0 - std::pow(beta_1, double(time)),
                         1.0 - std::pow(beta_2, double(time)),
                         weight_decay ? double(*weight_decay->penalty) : 0.0,
                         time};
    }
};

/// Configuration of Adam (Burn's defaults; note epsilon 1e-5, where PyTorch uses 1e-8).
struct AdamConfig {
    double beta_1 = 0.9;
    double beta_2 = 0.999;
    double epsilon = 1e-5;
    std::optional<WeightDecayConfig> weight_decay = std::nullopt;
    std::optional<GradientClippingConfig> grad_clipping = std::nullopt;
    BURN_CONFIG(AdamConfig, beta_1, beta_2, epsilon, weight_decay, grad_clipping)

    template <AutodiffBackend B, class M = void>
    OptimizerAdaptor<Adam, B> init() const {
        BURN_CHECK(beta_1 >= 0 && beta_1 < 1 && beta_2 >= 0 && beta_2 < 1,
                   "AdamConfig::init: beta_1 and beta_2 must be in [0, 1), got ", beta_1, " and ",
                   beta_2);
        BURN_CHECK(epsilon > 0, "AdamConfig::init: epsilon must be positive, got ", epsilon);
        if (weight_decay)
            BURN_CHECK(*weight_decay->penalty >= 0,
                       "AdamConfig::init: weight_decay.penalty must "
                       "be >= 0, got ",
                       *weight_decay->penalty);
        return OptimizerAdaptor<Adam, B>(Adam{beta_1, beta_2, epsilon, weight_decay},
                                         grad_clipping);
    }
};

}  // namespace burn::optim

// SPDX-License-Identifier: MIT OR Apache-2.0
// Dynamic loss scaling for f16 training (torch.cuda.amp.GradScaler): the loss is multiplied by a
// large factor before backward so that small gradients do not flush to zero in f16; the
// gradients are divided by it again before the optimizer step, and a step whose gradients hold
// an infinity or a NaN is skipped while the factor shrinks. See docs/precision.md.
//
//   auto scaler = optim::GradScalerConfig{}.init<AD>();
//   auto grads = scaler.scale(loss).backward();
//   auto gp = optim::GradientsParams<AD>::from_grads(grads, model);
//   model = scaler.step(optim, lr, model, std::move(gp));   // skipped on inf / NaN
//   scaler.update();                                           // grows or shrinks the scale
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

#include "burn/config/config.hpp"
#include "burn/optim/grads.hpp"
#include "burn/optim/optimizer.hpp"

namespace burn::optim {

template <AutodiffBackend B>
class GradScaler;

/// PyTorch's GradScaler defaults.
struct GradScalerConfig {
    double init_scale = 65536.0;          ///< the first scale (2^16)
    double growth_factor = 2.0;           ///< the scale grows by this after growth_interval steps
    double backoff_factor = 0.5;          ///< and shrinks by this after a step with inf / NaN
    std::int64_t growth_interval = 2000;  ///< finite steps in a row before the scale grows
    BURN_CONFIG(GradScalerConfig, init_scale, growth_factor, backoff_factor, growth_interval)

    template <AutodiffBackend B>
    GradScaler<B> init() const {
        return GradScaler<B>(*this);
    }
};

/// The scaler of one training loop (its state: the scale and the count of finite steps).
template <AutodiffBackend B>
class GradScaler {
public:
    explicit GradScaler(GradScalerConfig config = {}) : config_(config), scale_(config.init_scale) {
        BURN_CHECK(std::isfinite(config.init_scale) && config.init_scale > 0.0,
                   "GradScaler: init_scale must be finite and > 0, got ", config.init_scale);
        BURN_CHECK(config.growth_factor > 1.0 && std::isfinite(config.growth_factor),
                   "GradScaler: growth_factor must be > 1, got ", config.growth_factor);
        BURN_CHECK(config.backoff_factor > 0.0 && config.backoff_factor < 1.0,
                   "GradScaler: backoff_factor must be in (0, 1), got ", config.backoff_factor);
        BURN_CHECK(config.growth_interval > 0, "GradScaler: growth_interval must be > 0, got ",
                   config.growth_interval);
    }

    /// The loss multiplied by the current scale (in the loss's dtype).
    template <std::size_t D>
    Tensor<B, D> scale(Tensor<B, D> loss) const {
        return std::move(loss) * scale_;
    }
    /// The current scale.
    double get_scale() const { return scale_; }
    /// Finite steps since the scale last changed.
    std::int64_t growth_tracker() const { return tracker_; }

    /// Divides every gradient by the scale, in f32 for f16 / bf16 gradients (which stay f32:
    /// the optimizer updates half-precision parameters through f32 master weights), and notes
    /// whether any gradient holds an infinity or a NaN. Returns true when all are finite. Once
    /// per step: a second call before update() throws.
    bool unscale(GradientsParams<B>& grads) {
        BURN_CHECK(!unscaled_,
                   "GradScaler::unscale: the gradients of this step were already "
                   "unscaled (call update() after each step)");
        const double inv = 1.0 / scale_;
        bool finite = true;
        grads.transform([&](const ParamId&, auto g) {
            if (is_half(g.dtype())) g = g.cast(DType::F32);
            g = std::move(g) * inv;
            // x * 0 is NaN exactly when x is an infinity or a NaN.
            if (finite && (g * 0.0).is_nan().any().into_scalar()) finite = false;
            return g;
        });
        unscaled_ = true;
        found_inf_ = !finite;
        return finite;
    }

    /// unscale() (unless done already), then the optimizer's step when every gradient is finite;
    /// otherwise `module` unchanged (the step is skipped, as PyTorch's scaler.step). Call
    /// update() afterwards.
    template <class O, class M>
    M step(O& optim, LearningRate lr, const M& module, GradientsParams<B> grads) {
        if (!unscaled_) unscale(grads);
        stepped_ = true;
        if (found_inf_) return module;
        return optim.step(lr, module, std::move(grads));
    }

    /// Adjusts the scale after a step: times backoff_factor if the step found an infinity or a
    /// NaN, times growth_factor after growth_interval finite steps in a row.
    void update() {
        BURN_CHECK(unscaled_ || stepped_,
                   "GradScaler::update: no step was taken since the last update (call "
                   "unscale() or step() first)");
        if (found_inf_) {
            scale_ *= config_.backoff_factor;
            tracker_ = 0;
        } else if (++tracker_ == config_.growth_interval) {
            const double grown = scale_ * config_.growth_factor;
            if (std::isfinite(grown)) scale_ = grown;
            tracker_ = 0;
        }
        unscaled_ = stepped_ = found_inf_ = false;
    }
    /// Whether the last unscale() found an infinity or a NaN (the step was or will be skipped).
    bool found_inf() const { return found_inf_; }

private:
    GradScalerConfig config_;
    double scale_;
    std::int64_t tracker_ = 0;
    bool unscaled_ = false;
    bool stepped_ = false;
    bool found_inf_ = false;
};

}  // namespace burn::optim

// SPDX-License-Identifier: MIT OR Apache-2.0
// RmsNorm (root-mean-square normalisation over the last dimension, as Burn's RmsNorm and
// torch.nn.RMSNorm of PyTorch >= 2.4): y = x / sqrt(mean(x^2) + epsilon) * gamma. No centering
// and no bias.
//
//   auto norm = nn::RmsNormConfig{.d_model = 512}.init<B>(device);
//   auto y = norm.forward(x);  // [..., 512]
#pragma once

#include <cstddef>

#include "burn/config/config.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

template <Backend B>
struct RmsNorm;

/// Configuration of RmsNorm.
struct RmsNormConfig {
    Required<std::size_t> d_model;  ///< size of the normalised (last) dimension
    double epsilon = 1e-5;          ///< added to the mean square (Burn's default)
    BURN_CONFIG(RmsNormConfig, d_model, epsilon)

    template <Backend B>
    RmsNorm<B> init(const typename B::Device& device = {}) const;
};

template <Backend B>
struct RmsNorm {
    module::Param<Tensor<B, 1>> gamma;  ///< [d_model], ones at init
    double epsilon = 1e-5;
    BURN_MODULE(gamma, epsilon)

    std::size_t d_model() const { return gamma.shape()[0]; }

    /// Normalises the last dimension of x ([..., d_model]) by its root mean square.
    template <std::size_t D>
    Tensor<B, D> forward(const Tensor<B, D>& x_in) const {
        const Tensor<B, D> x = autocast::full(x_in);  // on autocast's f32 list
        BURN_CHECK(x.dims()[D - 1] == d_model(),
                   "RmsNorm::forward: expected an input whose "
                   "last dim is ",
                   d_model(), ", got shape ", x.shape());
        const auto rms = ((x * x).mean_dim(D - 1) + epsilon).sqrt();
        return x / rms * gamma.val().template unsqueeze<D>();
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_model", d_model()).add("epsilon", epsilon);
    }
};

template <Backend B>
RmsNorm<B> RmsNormConfig::init(const typename B::Device& device) const {
    BURN_CHECK(*d_model > 0, "RmsNormConfig::init: d_model must be positive, got 0");
    BURN_CHECK(epsilon > 0, "RmsNormConfig::init: epsilon must be positive, got ", epsilon);
    return RmsNorm<B>{module::Param<Tensor<B, 1>>(Tensor<B, 1>::ones({*d_model}, device)), epsilon};
}

}  // namespace burn::nn

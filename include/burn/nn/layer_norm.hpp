// SPDX-License-Identifier: MIT OR Apache-2.0
// LayerNorm (torch.nn.LayerNorm over the last dimension): y = (x - mean) / sqrt(var + epsilon) *
// gamma + beta, with the biased variance of the last dimension.
//
//   auto norm = nn::LayerNormConfig{.d_model = 512}.init<B>(device);
//   auto y = norm.forward(x);  // [..., 512]
#pragma once

#include <cstddef>
#include <optional>

#include "burn/backend/ops.hpp"
#include "burn/config/config.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

template <Backend B>
struct LayerNorm;

/// Configuration of LayerNorm.
struct LayerNormConfig {
    Required<std::size_t> d_model;  ///< size of the normalised (last) dimension
    double epsilon = 1e-5;
    bool bias = true;  ///< learn beta (Burn's and PyTorch's default)
    BURN_CONFIG(LayerNormConfig, d_model, epsilon, bias)

    template <Backend B>
    LayerNorm<B> init(const typename B::Device& device = {}) const;
};

template <Backend B>
struct LayerNorm {
    module::Param<Tensor<B, 1>> gamma;                ///< [d_model], ones at init
    std::optional<module::Param<Tensor<B, 1>>> beta;  ///< [d_model], zeros at init
    double epsilon = 1e-5;
    BURN_MODULE(gamma, beta, epsilon)

    std::size_t d_model() const { return gamma.shape()[0]; }

    /// Normalises the last dimension of x ([..., d_model]).
    template <std::size_t D>
    Tensor<B, D> forward(const Tensor<B, D>& x_in) const {
        const Tensor<B, D> x = autocast::full(x_in);  // on autocast's f32 list
        BURN_CHECK(x.dims()[D - 1] == d_model(),
                   "LayerNorm::forward: expected an input whose "
                   "last dim is ",
                   d_model(), ", got shape ", x.shape());
        if constexpr (backend::FusedLayerNormBackend<B>) {
            // One kernel forward and one backward (the CUDA backend's), computing what the
            // composed ops below compute.
            std::optional<typename B::FloatTensor> b;
            if (beta) b = beta->val().into_primitive();
            return Tensor<B, D>(B::fused_layer_norm(
                x.into_primitive(), gamma.val().into_primitive(), std::move(b), epsilon));
        } else {
            const auto mean = x.mean_dim(D - 1);
            const auto centered = x - mean;
            const auto var = (centered * centered).mean_dim(D - 1);
            auto y = centered / (var + epsilon).sqrt() * gamma.val().template unsqueeze<D>();
            if (beta) y = y + beta->val().template unsqueeze<D>();
            return y;
        }
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_model", d_model()).add("epsilon", epsilon);
    }
};

template <Backend B>
LayerNorm<B> LayerNormConfig::init(const typename B::Device& device) const {
    BURN_CHECK(*d_model > 0, "LayerNormConfig::init: d_model must be positive, got 0");
    BURN_CHECK(epsilon > 0, "LayerNormConfig::init: epsilon must be positive, got ", epsilon);
    LayerNorm<B> out{module::Param<Tensor<B, 1>>(Tensor<B, 1>::ones({*d_model}, device)),
                     std::nullopt, epsilon};
    if (bias) out.beta = module::Param<Tensor<B, 1>>(Tensor<B, 1>::zeros({*d_model}, device));
    return out;
}

}  // namespace burn::nn

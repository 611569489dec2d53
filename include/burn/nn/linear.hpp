// SPDX-License-Identifier: MIT OR Apache-2.0
// Linear: y = x W + b, applied to the last dimension (torch.nn.Linear). The weight is stored as
// [d_input, d_output], as in Burn; PyTorch stores the transpose ([out_features, in_features]).
//
//   auto linear = nn::LinearConfig{.d_input = 784, .d_output = 10}.init<B>(device);
//   Tensor<B, 2> y = linear.forward(x);  // [batch, 784] -> [batch, 10]
#pragma once

#include <cstddef>
#include <optional>

#include "burn/config/config.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/nn/initializer.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

template <Backend B>
struct Linear;

/// Configuration of a Linear layer.
struct LinearConfig {
    Required<std::size_t> d_input;
    Required<std::size_t> d_output;
    bool bias = true;
    /// Weight and bias initializer, with fan_in = d_input and fan_out = d_output.
    Initializer initializer = Initializer::default_weight();
    BURN_CONFIG(LinearConfig, d_input, d_output, bias, initializer)

    template <Backend B>
    Linear<B> init(const typename B::Device& device = {}) const;
};

template <Backend B>
struct Linear {
    module::Param<Tensor<B, 2>> weight;               ///< [d_input, d_output]
    std::optional<module::Param<Tensor<B, 1>>> bias;  ///< [d_output]
    BURN_MODULE(weight, bias)

    std::size_t d_input() const { return weight.shape()[0]; }
    std::size_t d_output() const { return weight.shape()[1]; }

    /// [..., d_input] -> [..., d_output], for inputs of any rank.
    template <std::size_t D>
    Tensor<B, D> forward(const Tensor<B, D>& x) const {
        const auto dims = x.dims();
        BURN_CHECK(dims[D - 1] == d_input(),
                   "Linear::forward: expected an input whose last dim is ", d_input(),
                   ", got shape ", x.shape());
        if constexpr (D == 2) {
            return affine(x);
        } else {
            std::array<std::int64_t, D> out_dims{};
            for (std::size_t i = 0; i + 1 < D; ++i) out_dims[i] = std::int64_t(dims[i]);
            out_dims[D - 1] = std::int64_t(d_output());
            const auto flat =
                x.template reshape<2>(std::array<std::int64_t, 2>{-1, std::int64_t(d_input())});
            return affine(flat).template reshape<D>(out_dims);
        }
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_input", d_input()).add("d_output", d_output()).add("bias", bias.has_value());
    }

private:
    Tensor<B, 2> affine(const Tensor<B, 2>& x) const {
        auto y = x.matmul(weight.val());
        // Under autocast the bias joins the product's half dtype (PyTorch's addmm).
        if (bias) y = y + autocast::lower(bias->val()).template unsqueeze<2>();
        return y;
    }
};

template <Backend B>
Linear<B> LinearConfig::init(const typename B::Device& device) const {
    BURN_CHECK(*d_input > 0 && *d_output > 0,
               "LinearConfig::init: d_input and d_output must be "
               "positive, got d_input = ",
               *d_input, ", d_output = ", *d_output);
    Linear<B> out{initializer.init_param<B, 2>({*d_input, *d_output}, *d_input, *d_output, device),
                  std::nullopt};
    if (bias) out.bias = initializer.init_param<B, 1>({*d_output}, *d_input, *d_output, device);
    return out;
}

}  // namespace burn::nn

// SPDX-License-Identifier: MIT OR Apache-2.0
// GroupNorm (torch.nn.GroupNorm): the channels of an input [batch, channels, ...] are split into
// num_groups groups; each group of each sample is normalised over its channels and positions
// (biased variance), then scaled and shifted per channel by gamma and beta (when affine).
//
//   auto norm = nn::GroupNormConfig{.num_groups = 4, .num_channels = 32}.init<B>(device);
//   auto y = norm.forward(x);  // [batch, 32, ...]
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "burn/config/config.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

namespace detail::norm {

/// [1, channels, 1, ...] (rank D): the shape that broadcasts a per-channel vector over an input
/// [batch, channels, ...].
template <std::size_t D>
std::array<std::int64_t, D> channel_shape(std::size_t channels) {
    std::array<std::int64_t, D> s{};
    s.fill(1);
    s[1] = static_cast<std::int64_t>(channels);
    return s;
}

/// x * gamma + beta with per-channel gamma and beta ([channels]) on x [batch, channels, ...].
template <class B, std::size_t D>
Tensor<B, D> channel_affine(Tensor<B, D> x, const std::optional<module::Param<Tensor<B, 1>>>& gamma,
                            const std::optional<module::Param<Tensor<B, 1>>>& beta) {
    const std::size_t channels = x.dims()[1];
    if (gamma) x = x * gamma->val().template reshape<D>(channel_shape<D>(channels));
    if (beta) x = x + beta->val().template reshape<D>(channel_shape<D>(channels));
    return x;
}

/// Group normalisation of x [batch, channels, ...] (channels divisible by num_groups), without
/// the affine part: each sample's group of channels / num_groups channels is normalised over all
/// its values with the biased variance.
template <class B, std::size_t D>
Tensor<B, D> group_normalize(const Tensor<B, D>& x, std::size_t num_groups, double epsilon) {
    const auto dims = x.dims();
    const auto grouped = x.template reshape<3>(std::array<std::int64_t, 3>{
        static_cast<std::int64_t>(dims[0]), static_cast<std::int64_t>(num_groups), -1});
    const auto centered = grouped - grouped.mean_dim(2);
    const auto var = (centered * centered).mean_dim(2);
    return (centered / (var + epsilon).sqrt()).template reshape<D>(dims);
}

}  // namespace detail::norm

template <Backend B>
struct GroupNorm;

/// Configuration of GroupNorm.
struct GroupNormConfig {
    Required<std::size_t> num_groups;    ///< groups the channels are split into
    Required<std::size_t> num_channels;  ///< channels of the input (divisible by num_groups)
    double epsilon = 1e-5;
    bool affine = true;  ///< learn per-channel gamma (ones) and beta (zeros)
    BURN_CONFIG(GroupNormConfig, num_groups, num_channels, epsilon, affine)

    template <Backend B>
    GroupNorm<B> init(const typename B::Device& device = {}) const;
};

template <Backend B>
struct GroupNorm {
    std::optional<module::Param<Tensor<B, 1>>> gamma;  ///< [num_channels], ones at init (affine)
    std::optional<module::Param<Tensor<B, 1>>> beta;   ///< [num_channels], zeros at init (affine)
    std::size_t num_groups = 1;
    std::size_t num_channels = 1;
    double epsilon = 1e-5;
    bool affine = true;
    BURN_MODULE(gamma, beta, num_groups, num_channels, epsilon, affine)

    /// [batch, num_channels, ...] (rank 2 or more) -> the same shape.
    template <std::size_t D>
    Tensor<B, D> forward(const Tensor<B, D>& x_in) const {
        const Tensor<B, D> x = autocast::full(x_in);  // on autocast's f32 list
        static_assert(D >= 2, "GroupNorm::forward: the input is [batch, channels, ...]");
        BURN_CHECK(x.dims()[1] == num_channels, "GroupNorm::forward: expected an input [batch, ",
                   num_channels, ", ...], got shape ", x.shape());
        BURN_CHECK(!affine || (gamma && beta),
                   "GroupNorm::forward: affine is set but gamma or "
                   "beta is missing");
        return detail::norm::channel_affine(detail::norm::group_normalize(x, num_groups, epsilon),
                                            gamma, beta);
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("num_groups", num_groups)
            .add("num_channels", num_channels)
            .add("epsilon", epsilon)
            .add("affine", affine);
    }
};

template <Backend B>
GroupNorm<B> GroupNormConfig::init(const typename B::Device& device) const {
    BURN_CHECK(*num_groups > 0, "GroupNormConfig::init: num_groups must be positive, got 0");
    BURN_CHECK(*num_channels > 0, "GroupNormConfig::init: num_channels must be positive, got 0");
    BURN_CHECK(*num_channels % *num_groups == 0, "GroupNormConfig::init: num_channels (",
               *num_channels, ") must be divisible by num_groups (", *num_groups, ")");
    BURN_CHECK(epsilon > 0, "GroupNormConfig::init: epsilon must be positive, got ", epsilon);
    GroupNorm<B> out{std::nullopt, std::nullopt, *num_groups, *num_channels, epsilon, affine};
    if (affine) {
        out.gamma = module::Param<Tensor<B, 1>>(Tensor<B, 1>::ones({*num_channels}, device));
        out.beta = module::Param<Tensor<B, 1>>(Tensor<B, 1>::zeros({*num_channels}, device));
    }
    return out;
}

}  // namespace burn::nn

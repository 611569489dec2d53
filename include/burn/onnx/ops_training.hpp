// SPDX-License-Identifier: MIT OR Apache-2.0
// The optimizer ops of ONNX's ai.onnx.preview.training domain (Adagrad, Momentum, Adam): one
// update step of n tensors X_i with gradients G_i and their optimizer states, through B's
// element-wise ops. The learning rate R and the step count T are scalars read on the host.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "burn/onnx/ops_common.hpp"

namespace burn::onnx::ops {

/// The attributes of the three optimizers (each reads its own; the ONNX defaults).
struct OptimizerAttrs {
    double decay_factor = 0.0;           ///< Adagrad
    double epsilon = 0.0;                ///< Adagrad (0), Adam (1e-6)
    double norm_coefficient = 0.0;       ///< all: weight decay added to the gradient
    double norm_coefficient_post = 0.0;  ///< Adam: decay applied after the step
    double alpha = 0.0, beta = 0.0;      ///< Momentum; Adam (0.9, 0.999)
    std::string mode = "standard";       ///< Momentum: "standard" or "nesterov"
};

namespace detail {

/// Splits the inputs after R and T into `groups` lists of n tensors (X, G, then the states).
template <class B>
std::vector<std::vector<typename B::FloatTensor>> optimizer_groups(std::string_view op,
                                                                   const std::vector<Value<B>>& in,
                                                                   std::size_t groups) {
    if (in.size() < 2 || (in.size() - 2) % groups != 0 || in.size() == 2)
        fail(op, "expects R, T and ", groups, " lists of equally many tensors, got ", in.size(),
             " inputs");
    const std::size_t n = (in.size() - 2) / groups;
    std::vector<std::vector<typename B::FloatTensor>> out(groups);
    for (std::size_t g = 0; g < groups; ++g)
        for (std::size_t i = 0; i < n; ++i) {
            const Value<B>& v = in[2 + g * n + i];
            out[g].push_back(require_float(v, op, "every X, G and state"));
            if (v.shape() != in[2 + i].shape())
                fail(op, "input ", 2 + g * n + i, " ", v.describe(), " does not match X_", i, " ",
                     in[2 + i].describe());
        }
    return out;
}

template <class B>
typename B::FloatTensor regularized(const typename B::FloatTensor& x,
                                    const typename B::FloatTensor& g, double norm) {
    return norm == 0 ? g : B::float_add(B::float_mul_scalar(x, norm), g);
}

template <class B>
std::vector<Value<B>> optimizer_outputs(const std::vector<Value<B>>& in,
                                        std::vector<std::vector<typename B::FloatTensor>> groups) {
    std::vector<Value<B>> out;
    const std::size_t n = groups.front().size();
    for (const auto& g : groups)
        for (std::size_t i = 0; i < n; ++i) out.emplace_back(Float{}, g[i], in[2 + i].type());
    return out;
}

}  // namespace detail

/// Adagrad: r = R / (1 + T decay_factor); g = norm_coefficient X + G; H' = H + g^2;
/// X' = X - r g / (sqrt(H') + epsilon). Inputs R, T, X..., G..., H...; outputs X'..., H'....
template <class B>
std::vector<Value<B>> adagrad(const std::vector<Value<B>>& in, const OptimizerAttrs& a) {
    auto grp = detail::optimizer_groups<B>("Adagrad", in, 3);
    const double r = detail::host_scalar(in[0], "Adagrad", "R") /
                     (1 + detail::host_scalar(in[1], "Adagrad", "T") * a.decay_factor);
    std::vector<std::vector<typename B::FloatTensor>> out(2);
    for (std::size_t i = 0; i < grp[0].size(); ++i) {
        auto g = detail::regularized<B>(grp[0][i], grp[1][i], a.norm_coefficient);
        auto h = B::float_add(grp[2][i], B::float_mul(g, g));
        auto step = B::float_div(g, B::float_add_scalar(B::float_sqrt(h), a.epsilon));
        out[0].push_back(B::float_sub(grp[0][i], B::float_mul_scalar(step, r)));
        out[1].push_back(h);
    }
    return detail::optimizer_outputs<B>(in, std::move(out));
}

/// Momentum: g = norm_coefficient X + G; V' = alpha V + beta' g (beta' = 1 at T = 0);
/// standard: X' = X - R V'; nesterov: X' = X - R (g + alpha V'). Outputs X'..., V'....
template <class B>
std::vector<Value<B>> momentum(const std::vector<Value<B>>& in, const OptimizerAttrs& a) {
    if (a.mode != "standard" && a.mode != "nesterov")
        detail::fail("Momentum", "mode must be standard or nesterov, got '", a.mode, "'");
    auto grp = detail::optimizer_groups<B>("Momentum", in, 3);
    const double r = detail::host_scalar(in[0], "Momentum", "R");
    const double beta = detail::host_scalar(in[1], "Momentum", "T") > 0 ? a.beta : 1.0;
    std::vector<std::vector<typename B::FloatTensor>> out(2);
    for (std::size_t i = 0; i < grp[0].size(); ++i) {
        auto g = detail::regularized<B>(grp[0][i], grp[1][i], a.norm_coefficient);
        auto v =
            B::float_add(B::float_mul_scalar(grp[2][i], a.alpha), B::float_mul_scalar(g, beta));
        auto step = a.mode == "standard" ? v : B::float_add(g, B::float_mul_scalar(v, a.alpha));
        out[0].push_back(B::float_sub(grp[0][i], B::float_mul_scalar(step, r)));
        out[1].push_back(v);
    }
    return detail::optimizer_outputs<B>(in, std::move(out));
}

/// Adam: g = norm_coefficient X + G; V' = alpha V + (1 - alpha) g; H' = beta H + (1 - beta) g^2;
/// r = R sqrt(1 - beta^T) / (1 - alpha^T) (R at T = 0); X' = (1 - norm_coefficient_post)
/// (X - r V' / (sqrt(H') + epsilon)). Inputs R, T, X..., G..., V..., H...; outputs X'..., V'...,
/// H'....
template <class B>
std::vector<Value<B>> adam(const std::vector<Value<B>>& in, const OptimizerAttrs& a) {
    auto grp = detail::optimizer_groups<B>("Adam", in, 4);
    const double t = detail::host_scalar(in[1], "Adam", "T");
    double r = detail::host_scalar(in[0], "Adam", "R");
    if (t > 0) r *= std::sqrt(1 - std::pow(a.beta, t)) / (1 - std::pow(a.alpha, t));
    std::vector<std::vector<typename B::FloatTensor>> out(3);
    for (std::size_t i = 0; i < grp[0].size(); ++i) {
        auto g = detail::regularized<B>(grp[0][i], grp[1][i], a.norm_coefficient);
        auto v = B::float_add(B::float_mul_scalar(grp[2][i], a.alpha),
                              B::float_mul_scalar(g, 1 - a.alpha));
        auto h = B::float_add(B::float_mul_scalar(grp[3][i], a.beta),
                              B::float_mul_scalar(B::float_mul(g, g), 1 - a.beta));
        auto step = B::float_div(v, B::float_add_scalar(B::float_sqrt(h), a.epsilon));
        auto x = B::float_sub(grp[0][i], B::float_mul_scalar(step, r));
        if (a.norm_coefficient_post != 0) x = B::float_mul_scalar(x, 1 - a.norm_coefficient_post);
        out[0].push_back(x);
        out[1].push_back(v);
        out[2].push_back(h);
    }
    return detail::optimizer_outputs<B>(in, std::move(out));
}

}  // namespace burn::onnx::ops

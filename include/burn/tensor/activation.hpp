// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::activation:: — the activation functions of Burn's table, generic over the backend.
// relu, leaky_relu, gelu, sigmoid, hard_sigmoid, log_sigmoid, softmax and log_softmax run as one
// backend kernel each; the others are composed from tensor ops in numerically stable forms.
//
//   auto p = burn::activation::softmax(logits, -1);
#pragma once

#include <cstddef>
#include <cstdint>

#include "burn/tensor/autocast.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::activation {

/// max(x, 0).
template <Backend B, std::size_t D>
Tensor<B, D> relu(const Tensor<B, D>& x) {
    return Tensor<B, D>(B::relu(x.primitive()));
}

/// x for x >= 0, negative_slope * x otherwise.
template <Backend B, std::size_t D>
Tensor<B, D> leaky_relu(const Tensor<B, D>& x, double negative_slope) {
    return Tensor<B, D>(B::leaky_relu(x.primitive(), negative_slope));
}

/// Gaussian error linear unit, exact form x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2))) (PyTorch's
/// default, approximate="none").
template <Backend B, std::size_t D>
Tensor<B, D> gelu(const Tensor<B, D>& x) {
    return Tensor<B, D>(B::gelu(x.primitive()));
}

/// 1 / (1 + exp(-x)), without overflow for large |x|.
template <Backend B, std::size_t D>
Tensor<B, D> sigmoid(const Tensor<B, D>& x) {
    return Tensor<B, D>(B::sigmoid(x.primitive()));
}

/// clamp(alpha * x + beta, 0, 1). PyTorch's hardsigmoid is alpha = 1/6, beta = 0.5.
template <Backend B, std::size_t D>
Tensor<B, D> hard_sigmoid(const Tensor<B, D>& x, double alpha, double beta) {
    return Tensor<B, D>(B::hard_sigmoid(x.primitive(), alpha, beta));
}

/// log(sigmoid(x)) = -softplus(-x), finite for every finite x.
template <Backend B, std::size_t D>
Tensor<B, D> log_sigmoid(const Tensor<B, D>& x) {
    return Tensor<B, D>(B::log_sigmoid(x.primitive()));
}

/// exp(x_i) / sum_j exp(x_j) along `dim` (negative dims count from the end), max-subtracted.
template <Backend B, std::size_t D>
Tensor<B, D> softmax(const Tensor<B, D>& x, std::int64_t dim) {
    const std::size_t d = burn::detail::norm_dim(dim, D, "softmax");
    return Tensor<B, D>(B::softmax(autocast::full(x).primitive(), d));
}

/// log(softmax(x)) along `dim`, computed as x - max - log(sum(exp(x - max))).
template <Backend B, std::size_t D>
Tensor<B, D> log_softmax(const Tensor<B, D>& x, std::int64_t dim) {
    const std::size_t d = burn::detail::norm_dim(dim, D, "log_softmax");
    return Tensor<B, D>(B::log_softmax(autocast::full(x).primitive(), d));
}

/// softmax(-x) along `dim`.
template <Backend B, std::size_t D>
Tensor<B, D> softmin(const Tensor<B, D>& x, std::int64_t dim) {
    const std::size_t d = burn::detail::norm_dim(dim, D, "softmin");
    return Tensor<B, D>(B::softmax(B::float_neg(x.primitive()), d));
}

/// "Softmax plus one" (softmax1): exp(x_i) / (1 + sum_j exp(x_j)) along `dim`, so that every
/// output can tend to zero. Computed as exp(x - m) / (exp(-m) + sum exp(x - m)) with m the max
/// clamped at 0, so that neither exponential overflows and a row of -inf gives 0.
template <Backend B, std::size_t D>
Tensor<B, D> quiet_softmax(const Tensor<B, D>& x, std::int64_t dim) {
    const std::size_t d = burn::detail::norm_dim(dim, D, "quiet_softmax");
    const auto m = x.max_dim(static_cast<std::int64_t>(d)).clamp_min(0.0);
    auto e = (x - m).exp();
    auto denom = e.sum_dim(static_cast<std::int64_t>(d)) + m.neg().exp();
    return std::move(e) / denom;
}

/// log(1 + exp(beta * x)) / beta, linear (x) where beta * x > 20 as PyTorch, and evaluated as
/// max(z, 0) + log1p(exp(-|z|)) elsewhere so that it never overflows.
template <Backend B, std::size_t D>
Tensor<B, D> softplus(const Tensor<B, D>& x, double beta = 1.0) {
    BURN_CHECK(beta != 0.0, "softplus: beta must be non-zero");
    auto z = x * beta;
    auto smooth = (z.clamp_min(0.0) + z.abs().neg().exp().log1p()) / beta;
    return smooth.mask_where(z.greater_elem(20.0), x);
}

/// x * sigmoid(x) (swish).
template <Backend B, std::size_t D>
Tensor<B, D> silu(const Tensor<B, D>& x) {
    return x * sigmoid(x);
}

/// x * tanh(softplus(x)).
template <Backend B, std::size_t D>
Tensor<B, D> mish(const Tensor<B, D>& x) {
    return x * softplus(x).tanh();
}

/// tanh(x).
template <Backend B, std::size_t D>
Tensor<B, D> tanh(const Tensor<B, D>& x) {
    return x.tanh();
}

/// x for x >= 0, alpha * x otherwise. `alpha` holds one value, or one per channel (dim 1, as
/// PyTorch's PReLU weight).
template <Backend B, std::size_t D>
Tensor<B, D> prelu(const Tensor<B, D>& x, const Tensor<B, 1>& alpha) {
    const std::size_t n = alpha.dims()[0];
    const std::size_t channels = D >= 2 ? x.dims()[1] : 1;
    BURN_CHECK(n == 1 || (D >= 2 && n == channels), "prelu: alpha of shape ", alpha.shape(),
               " should have 1 value or one per channel (", channels, ") of input ", x.shape());
    Shape s;
    for (std::size_t i = 0; i < D; ++i) s.push_back(D >= 2 && i == 1 ? n : 1);
    const auto a = alpha.template reshape<D>(s);
    return x.mask_where(x.lower_elem(0.0), x * a);
}

}  // namespace burn::activation

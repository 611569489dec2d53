// SPDX-License-Identifier: MIT OR Apache-2.0
// Gradient checks against central finite differences, on Autodiff<F64Backend> (AD: Cpu<double> for
// the CPU suites; test_support.hpp), and ADF, the
// f32 autodiff backend of the nn and autodiff suites (Autodiff<TestFloatBackend>: Cpu<float>, or
// Vulkan<> in their Vulkan instances).
//
//   EXPECT_TRUE(gradcheck([](auto x, auto y) { return x * y; }, rand({2, 3}), rand({1, 3})));
//
// The function may take any number of float tensors (any ranks) and returns a float tensor of any
// shape; the checked scalar is sum(f(inputs) * W) with a fixed random W, so the upstream gradient
// is not uniform. Every input gets an analytic gradient from backward() and a numeric one from
// (L(x + eps) - L(x - eps)) / (2 eps), element by element.
#pragma once

#include <gtest/gtest.h>

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace burn::testing {

using AD = Autodiff<F64Backend>;
using ADF = Autodiff<TestFloatBackend>;

/// A deterministic tensor of uniform values in [lo, hi) (seeded per call site by `seed`).
template <std::size_t D, class B = AD>
Tensor<B, D> uniform(const Shape& shape, double lo = -1.0, double hi = 1.0,
                     std::uint64_t seed = 7) {
    std::vector<double> v(shape.num_elements());
    std::uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (auto& x : v) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x = lo + (hi - lo) * static_cast<double>(s >> 11) / static_cast<double>(1ULL << 53);
    }
    return Tensor<B, D>::from_data(TensorData(std::move(v), shape));
}

namespace detail {

template <std::size_t D>
Tensor<AD, D> rebuilt(const TensorData& d) {
    return Tensor<AD, D>::from_data(d);
}

/// L = sum(out * W) evaluated without a graph.
template <class F, std::size_t... Ds, std::size_t... Is>
double loss_value(F& f, const std::vector<TensorData>& data, const TensorData& w,
                  std::index_sequence<Is...>) {
    auto out = f(rebuilt<Ds>(data[Is])...);
    using Out = decltype(out);
    auto wt = Out::from_data(w);
    return (out * wt).sum().into_scalar();
}

}  // namespace detail

/// Checks the gradients of `f` at `inputs` (Autodiff<F64Backend> tensors).
template <class F, std::size_t... Ds>
::testing::AssertionResult gradcheck(F f, Tensor<AD, Ds>... inputs) {
    constexpr double eps = 1e-6, atol = 1e-6, rtol = 1e-5;
    std::vector<TensorData> data{inputs.to_data()...};
    // Analytic gradients.
    auto tracked = std::make_tuple(inputs.require_grad()...);
    auto out = std::apply(f, tracked);
    using Out = decltype(out);
    const Shape out_shape = out.shape();
    const TensorData w = uniform<Out::rank>(out_shape, 0.5, 1.5, 99).to_data();
    auto grads = (out * Out::from_data(w)).sum().backward();
    std::vector<TensorData> analytic;
    std::apply(
        [&](const auto&... t) {
            (analytic.push_back(t.grad(grads) ? t.grad(grads)->to_data()
                                              : TensorData::zeros(t.shape(), DType::F64)),
             ...);
        },
        tracked);
    // Numeric gradients.
    for (std::size_t i = 0; i < data.size(); ++i) {
        auto base = data[i].template as_span<double>();
        const auto a = analytic[i].convert(DType::F64);
        auto av = a.template as_span<double>();
        for (std::size_t j = 0; j < base.size(); ++j) {
            std::vector<TensorData> plus = data, minus = data;
            plus[i].template as_mut_span<double>()[j] += eps;
            minus[i].template as_mut_span<double>()[j] -= eps;
            const double lp = detail::loss_value<F, Ds...>(
                f, plus, w, std::index_sequence_for<decltype(Ds)...>{});
            const double lm = detail::loss_value<F, Ds...>(
                f, minus, w, std::index_sequence_for<decltype(Ds)...>{});
            const double numeric = (lp - lm) / (2 * eps);
            if (!(std::abs(numeric - av[j]) <= atol + rtol * std::abs(numeric))) {
                std::ostringstream os;
                os << "input " << i << " (shape " << data[i].shape << "), element " << j
                   << ": analytic gradient " << av[j] << ", numeric " << numeric;
                return ::testing::AssertionFailure() << os.str();
            }
        }
    }
    return ::testing::AssertionSuccess();
}

}  // namespace burn::testing

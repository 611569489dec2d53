// SPDX-License-Identifier: MIT OR Apache-2.0
// Helpers shared by the numeric test files: fixture access for tests/fixtures/numeric.json and
// the stored non-contiguous layouts of an input.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace burn::testing::numeric {

using burn::Float;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;

constexpr const char* kFile = "numeric";

template <class B, std::size_t D, class K = Float>
Tensor<B, D, K> input(const std::string& c, const std::string& name) {
    return burn::testing::fixture_input<B, D, K>(kFile, c, name);
}

inline TensorData expected(const std::string& c, const std::string& name) {
    return burn::testing::fixture_output(kFile, c, name);
}

/// The input `name` of case `c` in each stored layout (contiguous, transposed, flipped, step-2).
template <class B, std::size_t D, class K = Float>
std::vector<std::pair<std::string, Tensor<B, D, K>>> layouts(const std::string& c,
                                                             const std::string& name) {
    std::vector<std::pair<std::string, Tensor<B, D, K>>> v;
    v.emplace_back("contiguous", input<B, D, K>(c, name));
    const auto& ins = burn::testing::fixture(kFile, c).at("inputs");
    if (ins.contains(name + "@T"))
        v.emplace_back("transposed", input<B, D, K>(c, name + "@T").transpose());
    if (ins.contains(name + "@flip"))
        v.emplace_back("flipped", input<B, D, K>(c, name + "@flip").flip({0}));
    if (ins.contains(name + "@step"))
        v.emplace_back("step2", input<B, D, K>(c, name + "@step").slice({Slice(0, INT64_MAX, 2)}));
    return v;
}

}  // namespace burn::testing::numeric

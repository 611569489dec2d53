// SPDX-License-Identifier: MIT OR Apache-2.0
// Helpers of the element-wise and activation tests (test_vk_elementwise.cpp,
// test_vk_activation.cpp): special-value data and strided views built directly on the primitive
// (independent of the layout ops).
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "vk_support.hpp"

namespace burn::vktest {

using burn::vk::Strides;

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

/// Random values in [lo, hi) followed by `extra` (shape [n]).
inline std::vector<float> values_with(std::size_t n, float lo, float hi, std::uint64_t seed,
                                      const std::vector<float>& extra = {}) {
    std::vector<float> v = vk_random(Shape{n}, lo, hi, seed).to_vec<float>();
    v.insert(v.end(), extra.begin(), extra.end());
    return v;
}

/// A strided Vulkan view of `storage` (element type E, dtype dt) and the CPU tensor holding the
/// same elements densely.
template <std::size_t D, class K = Float, class E = float>
std::pair<Tensor<VB, D, K>, Tensor<CB, D, K>> strided(const std::vector<E>& storage,
                                                      const Shape& shape, const Strides& strides,
                                                      std::int64_t offset) {
    auto base = Tensor<VB, 1, K>::from_data(TensorData(storage, Shape{storage.size()}));
    vk::VulkanTensor p = base.into_primitive();
    p.shape = shape;
    p.strides = strides;
    p.offset = offset;
    std::vector<E> dense(shape.num_elements());
    std::vector<std::size_t> idx(D, 0);
    for (std::size_t i = 0; i < dense.size(); ++i) {
        std::int64_t pos = offset;
        for (std::size_t d = 0; d < D; ++d) pos += static_cast<std::int64_t>(idx[d]) * strides[d];
        dense[i] = storage[static_cast<std::size_t>(pos)];
        for (std::size_t d = D; d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
    return {Tensor<VB, D, K>(std::move(p)),
            Tensor<CB, D, K>::from_data(TensorData(std::move(dense), shape))};
}

/// The transpose of a [cols, rows] storage with an offset of 3: a [rows, cols] view with strides
/// {1, rows}.
template <class K = Float, class E = float>
std::pair<Tensor<VB, 2, K>, Tensor<CB, 2, K>> transposed(const std::vector<E>& values,
                                                         std::size_t rows, std::size_t cols) {
    std::vector<E> storage(3, E{});
    storage.insert(storage.end(), values.begin(),
                   values.begin() + static_cast<std::ptrdiff_t>(rows * cols));
    return strided<2, K, E>(storage, Shape{rows, cols}, Strides{1, static_cast<std::int64_t>(rows)},
                            3);
}

}  // namespace burn::vktest

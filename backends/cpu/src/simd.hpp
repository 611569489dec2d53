// SPDX-License-Identifier: MIT OR Apache-2.0
// Eigen's SIMD packets as the CPU kernels use them (element-wise ops and reductions), and the
// NaN-propagating max/min they share. Private to backends/cpu/src.
#pragma once

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wignored-attributes"  // Eigen packets (__m512) as template args
#endif
#include <Eigen/Core>
#include <type_traits>

namespace burn::cpu {

namespace ei = Eigen::internal;

/// Eigen's SIMD packet of E on this target.
template <class E>
using Pk = typename ei::packet_traits<E>::type;

/// f32/f64 with a real SIMD packet on this target.
template <class E>
inline constexpr bool kVec = [] {
    if constexpr (std::is_floating_point_v<E>)
        return ei::packet_traits<E>::Vectorizable && ei::unpacket_traits<Pk<E>>::size > 1;
    else
        return false;
}();

/// max / min where a NaN operand wins (PyTorch's semantics).
template <class E>
inline E max_nan(E a, E b) {
    if constexpr (std::is_floating_point_v<E>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return a < b ? b : a;
}
template <class E>
inline E min_nan(E a, E b) {
    if constexpr (std::is_floating_point_v<E>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return b < a ? b : a;
}

}  // namespace burn::cpu

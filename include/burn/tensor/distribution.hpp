// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once

#include <cstdint>
#include <limits>

namespace burn {

/// How `random` fills a tensor. Mirrors Burn's `Distribution` enum.
struct Distribution {
    enum class Kind { Default, Uniform, Bernoulli, Normal };
    Kind kind = Kind::Default;
    double a = 0.0;  ///< Uniform: low; Bernoulli: probability; Normal: mean.
    double b = 1.0;  ///< Uniform: high; Normal: standard deviation.

    /// Uniform on [0, 1).
    static Distribution Default() { return {}; }
    /// Uniform on [low, high).
    static Distribution Uniform(double low, double high) { return {Kind::Uniform, low, high}; }
    /// 1 with probability `p`, else 0.
    static Distribution Bernoulli(double p) { return {Kind::Bernoulli, p, 0.0}; }
    /// Normal with `mean` and standard deviation `std`.
    static Distribution Normal(double mean, double std) { return {Kind::Normal, mean, std}; }
};

/// `v` truncated toward zero and saturated to the int64 range (NaN gives 0). An integer
/// Uniform(low, high) draws from [trunc_to_int64(low), trunc_to_int64(high)), which must not be
/// empty.
inline std::int64_t trunc_to_int64(double v) {
    if (!(v == v)) return 0;
    if (v >= 0x1p63) return std::numeric_limits<std::int64_t>::max();
    if (v < -0x1p63) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(v);
}

}  // namespace burn

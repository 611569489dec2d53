// SPDX-License-Identifier: MIT OR Apache-2.0
// Interpolation tap tables shared by the kit's backends (burn/backend/interpolate.hpp).
#include "burn/backend/interpolate.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace burn::backend {
namespace {

using i64 = std::int64_t;

/// Tables of `taps` entries per output index (weights 1 until set).
template <class E>
InterpolationTaps<E> sized_taps(std::size_t taps, std::size_t out) {
    InterpolationTaps<E> t;
    t.taps = taps;
    t.idx.resize(taps * out), t.w.assign(taps * out, E(1));
    return t;
}

template <class E>
InterpolationTaps<E> nearest_taps(std::size_t in, std::size_t out) {
    InterpolationTaps<E> t = sized_taps<E>(1, out);
    const float scale = static_cast<float>(in) / static_cast<float>(out);
    for (std::size_t o = 0; o < out; ++o) {
        i64 s;
        if (out == in) s = static_cast<i64>(o);
        else if (out == 2 * in) s = static_cast<i64>(o >> 1);
        else s = static_cast<i64>(std::floor(static_cast<float>(o) * scale));
        t.idx[o] = std::min(s, static_cast<i64>(in) - 1);
    }
    return t;
}

/// PyTorch's area_pixel_compute_scale (no scale factor given).
template <class E>
E pixel_scale(std::size_t in, std::size_t out, bool align_corners) {
    if (align_corners) return out > 1 ? static_cast<E>(in - 1) / static_cast<E>(out - 1) : E(0);
    return static_cast<E>(in) / static_cast<E>(out);
}

template <class E>
E source_coord(E scale, std::size_t dst, bool align_corners, bool cubic) {
    if (align_corners) return scale * static_cast<E>(dst);
    const E s = scale * (static_cast<E>(dst) + E(0.5)) - E(0.5);
    return !cubic && s < E(0) ? E(0) : s;
}

template <class E>
InterpolationTaps<E> linear_taps(std::size_t in, std::size_t out, bool align_corners) {
    InterpolationTaps<E> t = sized_taps<E>(2, out);
    const E scale = pixel_scale<E>(in, out, align_corners);
    const i64 last = static_cast<i64>(in) - 1;
    for (std::size_t o = 0; o < out; ++o) {
        i64 i0;
        E l1;
        if (in == out && !align_corners) {
            i0 = static_cast<i64>(o), l1 = E(0);
        } else {
            const E src = source_coord(scale, o, align_corners, false);
            i0 = std::min(static_cast<i64>(src), last);
            l1 = src - static_cast<E>(i0);
        }
        t.idx[2 * o] = i0;
        t.idx[2 * o + 1] = i0 + (i0 < last ? 1 : 0);
        t.w[2 * o] = E(1) - l1;
        t.w[2 * o + 1] = l1;
    }
    return t;
}

template <class E>
InterpolationTaps<E> cubic_taps(std::size_t in, std::size_t out, bool align_corners) {
    constexpr E A = E(-0.75);
    // Keys' kernel for |x| <= 1 and for 1 < |x| < 2.
    auto near = [](E x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
    auto far = [](E x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
    InterpolationTaps<E> t = sized_taps<E>(4, out);
    const E scale = pixel_scale<E>(in, out, align_corners);
    const i64 last = static_cast<i64>(in) - 1;
    for (std::size_t o = 0; o < out; ++o) {
        const E src = source_coord(scale, o, align_corners, true);
        const E fl = std::floor(src);
        const i64 i = static_cast<i64>(fl);
        const E x = src - fl;
        const E w[4] = {far(x + 1), near(x), near(1 - x), far(2 - x)};
        for (int j = 0; j < 4; ++j) {
            t.idx[4 * o + j] = std::clamp<i64>(i - 1 + j, 0, last);
            t.w[4 * o + j] = w[j];
        }
    }
    return t;
}

}  // namespace

template <class E>
InterpolationTaps<E> interpolation_taps(std::size_t in, std::size_t out,
                                        const InterpolateOptions& options) {
    assert(in > 0 && out > 0);
    switch (options.mode) {
        case InterpolateMode::Bilinear: return linear_taps<E>(in, out, options.align_corners);
        case InterpolateMode::Bicubic: return cubic_taps<E>(in, out, options.align_corners);
        case InterpolateMode::Nearest: break;
    }
    return nearest_taps<E>(in, out);
}

template InterpolationTaps<float> interpolation_taps<float>(std::size_t, std::size_t,
                                                            const InterpolateOptions&);
template InterpolationTaps<double> interpolation_taps<double>(std::size_t, std::size_t,
                                                              const InterpolateOptions&);

}  // namespace burn::backend

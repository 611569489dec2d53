// SPDX-License-Identifier: MIT OR Apache-2.0
// interpolate (nearest, bilinear, bicubic) and its backward over x [b, c, h, w], with the source
// coordinates of PyTorch's F.interpolate(size=...):
//   nearest:  src = min(floor(dst * (in / out)), in - 1), the scale in single precision as torch;
//   linear:   align_corners: src = dst * (in - 1) / (out - 1); otherwise
//             src = (dst + 0.5) * in / out - 0.5, clamped at 0 for bilinear (not for bicubic);
//   bilinear: rows floor(src) and the next one (clamped), weights 1 - t and t;
//   bicubic:  Keys' cubic convolution (A = -0.75) over floor(src) - 1 .. floor(src) + 2, each
//             index clamped to the border.
// Per-dim index and weight tables are computed once. Each output row is interpolated vertically
// into a dense row buffer first (vectorised), then horizontally by gathering from that buffer; the
// backward runs the same two steps transposed. Forward is parallel over output rows, backward over
// planes (the rows of one plane scatter into the same input rows).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

using i64 = std::int64_t;

template <class F>
decltype(auto) dispatch_float(DType d, const char* op, F&& f) {
    if (d == DType::F32) return f(float{});
    if (d == DType::F64) return f(double{});
    detail::fail(op, ": expected a float tensor, got ", dtype_name(d));
}

/// Source indices and weights of every output index along one dim: output o reads `taps` input
/// indices idx[o * taps + j] with weights w[o * taps + j].
template <class E>
struct Taps {
    std::size_t taps = 1;
    std::vector<i64> idx;
    std::vector<E> w;
};

template <class E>
Taps<E> nearest_taps(std::size_t in, std::size_t out) {
    Taps<E> t;
    t.idx.resize(out), t.w.assign(out, E(1));
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
Taps<E> linear_taps(std::size_t in, std::size_t out, bool align_corners) {
    Taps<E> t;
    t.taps = 2;
    t.idx.resize(2 * out), t.w.resize(2 * out);
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
Taps<E> cubic_taps(std::size_t in, std::size_t out, bool align_corners) {
    constexpr E A = E(-0.75);
    // Keys' kernel for |x| <= 1 and for 1 < |x| < 2.
    auto near = [](E x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
    auto far = [](E x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
    Taps<E> t;
    t.taps = 4;
    t.idx.resize(4 * out), t.w.resize(4 * out);
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

template <class E>
Taps<E> make_taps(std::size_t in, std::size_t out, const InterpolateOptions& o) {
    switch (o.mode) {
        case InterpolateMode::Nearest: return nearest_taps<E>(in, out);
        case InterpolateMode::Bilinear: return linear_taps<E>(in, out, o.align_corners);
        case InterpolateMode::Bicubic: return cubic_taps<E>(in, out, o.align_corners);
    }
    detail::fail("interpolate: unknown mode");
}

struct Dims {
    std::size_t planes, H, W, OH, OW;
};

template <class E>
void nearest_forward(const E* __restrict x, E* __restrict y, const Dims& d, const Taps<E>& th,
                     const Taps<E>& tw) {
    const i64* __restrict iw = tw.idx.data();
    parallel_for(d.planes * d.OH, std::max<std::size_t>(1, kParallelGrain / d.OW),
                 [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r) {
            const std::size_t p = r / d.OH, oh = r % d.OH;
            E* __restrict out = y + r * d.OW;
            if (r > r0 && oh > 0 && th.idx[oh] == th.idx[oh - 1]) {  // upsampling repeats rows
                std::memcpy(out, out - d.OW, d.OW * sizeof(E));
                continue;
            }
            const E* __restrict row = x + p * d.H * d.W + static_cast<std::size_t>(th.idx[oh]) * d.W;
            for (std::size_t ow = 0; ow < d.OW; ++ow) out[ow] = row[iw[ow]];
        }
    });
}

template <class E>
void nearest_backward(const E* __restrict gy, E* __restrict gx, const Dims& d, const Taps<E>& th,
                      const Taps<E>& tw) {
    const i64* __restrict iw = tw.idx.data();
    parallel_for(d.planes, std::max<std::size_t>(1, kParallelGrain / (d.OH * d.OW)),
                 [&](std::size_t p0, std::size_t p1) {
        for (std::size_t p = p0; p < p1; ++p) {
            E* plane = gx + p * d.H * d.W;
            std::fill(plane, plane + d.H * d.W, E(0));  // zeroed here: in parallel, in cache
            for (std::size_t oh = 0; oh < d.OH; ++oh) {
                E* __restrict row = plane + static_cast<std::size_t>(th.idx[oh]) * d.W;
                const E* __restrict g = gy + (p * d.OH + oh) * d.OW;
                for (std::size_t ow = 0; ow < d.OW; ++ow) row[iw[ow]] += g[ow];
            }
        }
    });
}

/// Bilinear (KH = KW = 2) and bicubic (4) forward: vertical pass into a row buffer, then the
/// horizontal gather.
template <class E, std::size_t K>
void separable_forward(const E* __restrict x, E* __restrict y, const Dims& d, const Taps<E>& th,
                       const Taps<E>& tw) {
    const std::size_t work = K * (d.W + d.OW);
    parallel_for(d.planes * d.OH, std::max<std::size_t>(1, kParallelGrain / work),
                 [&](std::size_t r0, std::size_t r1) {
        std::vector<E> buffer(d.W);
        E* __restrict buf = buffer.data();
        const i64* __restrict iw = tw.idx.data();
        const E* __restrict ww = tw.w.data();
        for (std::size_t r = r0; r < r1; ++r) {
            const std::size_t p = r / d.OH, oh = r % d.OH;
            const E* plane = x + p * d.H * d.W;
            const E* rows[K];
            E wy[K];
            for (std::size_t j = 0; j < K; ++j) {
                rows[j] = plane + static_cast<std::size_t>(th.idx[K * oh + j]) * d.W;
                wy[j] = th.w[K * oh + j];
            }
            {
                const E* __restrict r0p = rows[0];
                const E w0 = wy[0];
                for (std::size_t w = 0; w < d.W; ++w) buf[w] = w0 * r0p[w];
            }
            for (std::size_t j = 1; j < K; ++j) {
                const E* __restrict rj = rows[j];
                const E wj = wy[j];
                for (std::size_t w = 0; w < d.W; ++w) buf[w] += wj * rj[w];
            }
            E* __restrict out = y + r * d.OW;
            for (std::size_t ow = 0; ow < d.OW; ++ow) {
                E s = 0;
                for (std::size_t j = 0; j < K; ++j) s += ww[K * ow + j] * buf[iw[K * ow + j]];
                out[ow] = s;
            }
        }
    });
}

template <class E, std::size_t K>
void separable_backward(const E* __restrict gy, E* __restrict gx, const Dims& d,
                        const Taps<E>& th, const Taps<E>& tw) {
    const std::size_t work = d.OH * K * (d.W + d.OW);
    parallel_for(d.planes, std::max<std::size_t>(1, kParallelGrain / work),
                 [&](std::size_t p0, std::size_t p1) {
        std::vector<E> buffer(d.W);
        E* __restrict buf = buffer.data();
        const i64* __restrict iw = tw.idx.data();
        const E* __restrict ww = tw.w.data();
        for (std::size_t p = p0; p < p1; ++p) {
            E* plane = gx + p * d.H * d.W;
            std::fill(plane, plane + d.H * d.W, E(0));  // zeroed here: in parallel, in cache
            for (std::size_t oh = 0; oh < d.OH; ++oh) {
                const E* __restrict g = gy + (p * d.OH + oh) * d.OW;
                std::fill(buf, buf + d.W, E(0));
                for (std::size_t ow = 0; ow < d.OW; ++ow)
                    for (std::size_t j = 0; j < K; ++j) buf[iw[K * ow + j]] += ww[K * ow + j] * g[ow];
                for (std::size_t j = 0; j < K; ++j) {
                    E* __restrict row = plane + static_cast<std::size_t>(th.idx[K * oh + j]) * d.W;
                    const E wj = th.w[K * oh + j];
                    for (std::size_t w = 0; w < d.W; ++w) row[w] += wj * buf[w];
                }
            }
        }
    });
}

Dims dims_of(const Shape& x, std::array<std::size_t, 2> out, const char* op) {
    BURN_CHECK(x.rank() == 4, op, ": expected a 4-d input [b, c, h, w], got ", x);
    BURN_CHECK(out[0] > 0 && out[1] > 0 && x[2] > 0 && x[3] > 0, op,
               ": empty spatial dim (input ", x, ", output size [", out[0], ", ", out[1], "])");
    return {x[0] * x[1], x[2], x[3], out[0], out[1]};
}

}  // namespace

CpuTensor Kernels::interpolate(CpuTensor x, std::array<std::size_t, 2> output_size,
                      const InterpolateOptions& options) {
    const Dims d = dims_of(x.shape, output_size, "interpolate");
    x = contiguous(std::move(x));
    CpuTensor y = alloc(Shape{x.shape[0], x.shape[1], d.OH, d.OW}, x.dtype);
    dispatch_float(x.dtype, "interpolate", [&](auto e) {
        using E = decltype(e);
        const Taps<E> th = make_taps<E>(d.H, d.OH, options), tw = make_taps<E>(d.W, d.OW, options);
        const E* src = x.data<E>();
        E* dst = y.data<E>();
        switch (options.mode) {
            case InterpolateMode::Nearest: nearest_forward<E>(src, dst, d, th, tw); break;
            case InterpolateMode::Bilinear: separable_forward<E, 2>(src, dst, d, th, tw); break;
            case InterpolateMode::Bicubic: separable_forward<E, 4>(src, dst, d, th, tw); break;
        }
    });
    return y;
}

CpuTensor Kernels::interpolate_backward(CpuTensor x, CpuTensor grad, std::array<std::size_t, 2> output_size,
                               const InterpolateOptions& options) {
    const char* op = "interpolate_backward";
    const Dims d = dims_of(x.shape, output_size, op);
    const Shape want{x.shape[0], x.shape[1], d.OH, d.OW};
    BURN_CHECK(grad.shape == want, op, ": gradient of shape ", grad.shape, " should be ", want);
    BURN_CHECK(grad.dtype == x.dtype, op, ": gradient dtype ", dtype_name(grad.dtype),
               " differs from the input's ", dtype_name(x.dtype));
    grad = contiguous(std::move(grad));
    CpuTensor gx = alloc(x.shape, x.dtype);  // each plane is zeroed by its kernel
    dispatch_float(x.dtype, op, [&](auto e) {
        using E = decltype(e);
        const Taps<E> th = make_taps<E>(d.H, d.OH, options), tw = make_taps<E>(d.W, d.OW, options);
        const E* g = grad.data<E>();
        E* dst = gx.data<E>();
        switch (options.mode) {
            case InterpolateMode::Nearest: nearest_backward<E>(g, dst, d, th, tw); break;
            case InterpolateMode::Bilinear: separable_backward<E, 2>(g, dst, d, th, tw); break;
            case InterpolateMode::Bicubic: separable_backward<E, 4>(g, dst, d, th, tw); break;
        }
    });
    return gx;
}

}  // namespace burn::cpu

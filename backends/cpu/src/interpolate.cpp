// SPDX-License-Identifier: MIT OR Apache-2.0
// interpolate (nearest, bilinear, bicubic) and its backward over x [b, c, h, w], with the source
// coordinates of PyTorch's F.interpolate(size=...) as tap tables (burn/backend/interpolate.hpp),
// computed once per dim. Each output row is interpolated vertically into a dense row buffer first
// (vectorised), then horizontally by gathering from that buffer; the backward runs the same two
// steps transposed. Forward is parallel over output rows, backward over planes (the rows of one
// plane scatter into the same input rows).
#include "burn/backend/interpolate.hpp"

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

template <class E>
using Taps = backend::InterpolationTaps<E>;

struct Dims {
    std::size_t planes, H, W, OH, OW;
};

template <class E>
void nearest_forward(const E* __restrict x, E* __restrict y, const Dims& d, const Taps<E>& th,
                     const Taps<E>& tw) {
    const i64* __restrict iw = tw.idx.data();
    parallel_for(
        d.planes * d.OH, std::max<std::size_t>(1, kParallelGrain / d.OW),
        [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                const std::size_t p = r / d.OH, oh = r % d.OH;
                E* __restrict out = y + r * d.OW;
                if (r > r0 && oh > 0 && th.idx[oh] == th.idx[oh - 1]) {  // upsampling repeats rows
                    std::memcpy(out, out - d.OW, d.OW * sizeof(E));
                    continue;
                }
                const E* __restrict row =
                    x + p * d.H * d.W + static_cast<std::size_t>(th.idx[oh]) * d.W;
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
                         std::fill(plane, plane + d.H * d.W,
                                   E(0));  // zeroed here: in parallel, in cache
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
                             for (std::size_t j = 0; j < K; ++j)
                                 s += ww[K * ow + j] * buf[iw[K * ow + j]];
                             out[ow] = s;
                         }
                     }
                 });
}

template <class E, std::size_t K>
void separable_backward(const E* __restrict gy, E* __restrict gx, const Dims& d, const Taps<E>& th,
                        const Taps<E>& tw) {
    const std::size_t work = d.OH * K * (d.W + d.OW);
    parallel_for(d.planes, std::max<std::size_t>(1, kParallelGrain / work),
                 [&](std::size_t p0, std::size_t p1) {
                     std::vector<E> buffer(d.W);
                     E* __restrict buf = buffer.data();
                     const i64* __restrict iw = tw.idx.data();
                     const E* __restrict ww = tw.w.data();
                     for (std::size_t p = p0; p < p1; ++p) {
                         E* plane = gx + p * d.H * d.W;
                         std::fill(plane, plane + d.H * d.W,
                                   E(0));  // zeroed here: in parallel, in cache
                         for (std::size_t oh = 0; oh < d.OH; ++oh) {
                             const E* __restrict g = gy + (p * d.OH + oh) * d.OW;
                             std::fill(buf, buf + d.W, E(0));
                             for (std::size_t ow = 0; ow < d.OW; ++ow)
                                 for (std::size_t j = 0; j < K; ++j)
                                     buf[iw[K * ow + j]] += ww[K * ow + j] * g[ow];
                             for (std::size_t j = 0; j < K; ++j) {
                                 E* __restrict row =
                                     plane + static_cast<std::size_t>(th.idx[K * oh + j]) * d.W;
                                 const E wj = th.w[K * oh + j];
                                 for (std::size_t w = 0; w < d.W; ++w) row[w] += wj * buf[w];
                             }
                         }
                     }
                 });
}

Dims dims_of(const Shape& x, std::array<std::size_t, 2> out) {
    assert(x.rank() == 4 && out[0] > 0 && out[1] > 0 && x[2] > 0 && x[3] > 0);
    return {x[0] * x[1], x[2], x[3], out[0], out[1]};
}

}  // namespace

CpuTensor Kernels::interpolate(CpuTensor x, std::array<std::size_t, 2> output_size,
                               const InterpolateOptions& options) {
    const Dims d = dims_of(x.shape, output_size);
    x = contiguous(std::move(x));
    CpuTensor y = alloc(Shape{x.shape[0], x.shape[1], d.OH, d.OW}, x.dtype);
    dispatch_float(x.dtype, "interpolate", [&](auto e) {
        using E = decltype(e);
        const Taps<E> th = backend::interpolation_taps<E>(d.H, d.OH, options);
        const Taps<E> tw = backend::interpolation_taps<E>(d.W, d.OW, options);
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

CpuTensor Kernels::interpolate_backward(CpuTensor x, CpuTensor grad,
                                        std::array<std::size_t, 2> output_size,
                                        const InterpolateOptions& options) {
    const char* op = "interpolate_backward";
    const Dims d = dims_of(x.shape, output_size);
    assert(grad.shape == Shape({x.shape[0], x.shape[1], d.OH, d.OW}) && grad.dtype == x.dtype);
    grad = contiguous(std::move(grad));
    CpuTensor gx = alloc(x.shape, x.dtype);  // each plane is zeroed by its kernel
    dispatch_float(x.dtype, op, [&](auto e) {
        using E = decltype(e);
        const Taps<E> th = backend::interpolation_taps<E>(d.H, d.OH, options);
        const Taps<E> tw = backend::interpolation_taps<E>(d.W, d.OW, options);
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

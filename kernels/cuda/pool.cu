// SPDX-License-Identifier: MIT OR Apache-2.0
// Pooling kernels (backends/cuda/src/ops_pool.cpp), PyTorch's semantics as the CPU backend's
// pool.cpp: average pooling (count_include_pad, ceil_mode), max pooling (padding never wins,
// dilation, ceil_mode, NaN wins, argmax flattened per plane) over planes of [H, W] (a 1-d
// pooling has H = 1), adaptive average pooling over [D, H, W] (missing leading dims 1).
//
// Inputs are read in place through the strides of PoolArgs (b, c, d, h, w); outputs are dense.
// Forward kernels: one thread per output (the adaptive one a block per output when the bins are
// large). Backward kernels gather: one thread per input element sums the outputs whose window
// holds it, in the CPU backend's order, so results are deterministic (and equal the CPU's for
// the same rounding). max_pool_backward's gather reads the outputs whose window holds the
// element; max_pool_backward_check then checks every index (one outside its plane is reported
// through the error word) and adds the gradient of an index outside its own window (max_pool
// makes one only for a window without any input cell) atomically, after the gather.
// max_pool_backward has two launch shapes: _rows for rows of at least 32 elements (grid y over
// blocks of columns, each thread's output columns computed once; grid x over contiguous chunks
// of the rows (plane, h), walked without divisions), the flat one otherwise; the check is
// always a row kernel.
//
// Every kernel but the adaptive block one comes in two index widths: <name>32_<dtype> computes
// its indices in 32 bits (the host picks it when every count fits), <name>64_<dtype> in 64.
// Element offsets are always 64-bit.
#include "common.cuh"

/// The geometry and views of a pooling (the host's PoolArgs, same layout).
struct PoolArgs {
    i64 planes, C;   // B * C, C
    i64 D, H, W;     // input spatial dims (leading 1s)
    i64 OD, OH, OW;  // output spatial dims
    i64 kd, kh, kw;  // window
    i64 sd, sh, sw;  // stride
    i64 pd, ph, pw;  // padding
    i64 dd, dh, dw;  // dilation
    i64 v0[5];       // strides (b, c, d, h, w) of the first view read
    i64 v1[5];       // strides of the second view read (max_pool_backward's indices)
    int count_include_pad;
    int pad_;
};

template <class E>
__device__ __forceinline__ E neg_inf();
template <>
__device__ __forceinline__ float neg_inf<float>() {
    return __int_as_float(0xff800000);
}
template <>
__device__ __forceinline__ double neg_inf<double>() {
    return __longlong_as_double(0xfff0000000000000ll);
}

/// The geometry of PoolArgs in the kernel's index type (32-bit where the host allows it: every
/// count, and in * out of each adaptive dim, below 2^31).
template <class Ix>
struct Geo {
    Ix planes, C, D, H, W, OD, OH, OW, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw;
};
template <class Ix>
__device__ __forceinline__ Geo<Ix> geo(const PoolArgs& a) {
    return {(Ix)a.planes, (Ix)a.C,  (Ix)a.D,  (Ix)a.H,  (Ix)a.W,  (Ix)a.OD, (Ix)a.OH,
            (Ix)a.OW,     (Ix)a.kd, (Ix)a.kh, (Ix)a.kw, (Ix)a.sd, (Ix)a.sh, (Ix)a.sw,
            (Ix)a.pd,     (Ix)a.ph, (Ix)a.pw, (Ix)a.dd, (Ix)a.dh, (Ix)a.dw};
}

/// The element offset of plane (b * C + c) in view `v`.
template <class Ix>
__device__ __forceinline__ i64 plane_at(const i64* v, Ix C, Ix plane) {
    const Ix b = plane / C, c = plane - b * C;
    return (i64)b * v[0] + (i64)c * v[1];
}

template <class Ix>
__device__ __forceinline__ Ix imin(Ix a, Ix b) {
    return a < b ? a : b;
}
template <class Ix>
__device__ __forceinline__ Ix imax(Ix a, Ix b) {
    return a > b ? a : b;
}

/// The first input index of a window from `start` reached by whole dilation steps.
template <class Ix>
__device__ __forceinline__ Ix first_valid(Ix start, Ix d) {
    return start < 0 ? start + ((-start + d - 1) / d) * d : start;
}

/// ceil(n / s) for s > 0, clamped below at 0.
template <class Ix>
__device__ __forceinline__ Ix ceil_div_pos(Ix n, Ix s) {
    return n <= 0 ? 0 : (n + s - 1) / s;
}

/// Grid-stride loop over [0, n) with a counter of type Ix.
#define POOL_LOOP(Ix, i, n)                                                     \
    for (Ix i = (Ix)blockIdx.x * (Ix)blockDim.x + (Ix)threadIdx.x; i < (Ix)(n); \
         i += (Ix)blockDim.x * (Ix)gridDim.x)

/// The outputs [lo, hi] whose (dilated) windows along one dim may hold input coordinate c:
/// o * s - p <= c <= o * s - p + (k - 1) * d, clipped to [0, out).
template <class Ix>
__device__ __forceinline__ void covering(Ix c, Ix k, Ix s, Ix p, Ix d, Ix out, Ix* lo, Ix* hi) {
    *lo = ceil_div_pos(c + p - (k - 1) * d, s);
    *hi = imin<Ix>(out - 1, (c + p) / s);
}

// ------------------------------------------------------------------------------ average pooling

/// The window of output o along one dim (the CPU's avg_spans): start, end clipped to in + p,
/// then clipped to the input.
template <class Ix>
struct AvgSpan {
    Ix size, lo, hi;
};
template <class Ix>
__device__ __forceinline__ AvgSpan<Ix> avg_span(Ix o, Ix in, Ix k, Ix s, Ix p) {
    const Ix start = o * s - p;
    const Ix end = imin<Ix>(start + k, in + p);
    return {end - start, imax<Ix>(start, 0), imin<Ix>(end, in)};
}

template <class E, class Ix>
__device__ __forceinline__ E avg_divide(E sum, const AvgSpan<Ix>& h, const AvgSpan<Ix>& w,
                                        int cip) {
    const i64 div = cip ? (i64)h.size * w.size : (i64)(h.hi - h.lo) * (w.hi - w.lo);
    return div > 0 ? sum / (E)div : (E)0;
}

template <class S, class Ix>
__device__ void avg_pool_impl(const S* __restrict__ x, S* __restrict__ y, const PoolArgs& a) {
    typedef typename Val<S>::V E;
    const Geo<Ix> g = geo<Ix>(a);
    const i64 sy = a.v0[3], sx = a.v0[4];
    POOL_LOOP(Ix, i, a.planes * a.OH * a.OW) {
        const Ix ow = i % g.OW, r = i / g.OW;
        const Ix oh = r % g.OH, plane = r / g.OH;
        const AvgSpan<Ix> hs = avg_span<Ix>(oh, g.H, g.kh, g.sh, g.ph);
        const AvgSpan<Ix> ws = avg_span<Ix>(ow, g.W, g.kw, g.sw, g.pw);
        const S* px = x + plane_at<Ix>(a.v0, g.C, plane);
        E s = 0;
        for (Ix h = hs.lo; h < hs.hi; ++h) {
            const S* row = px + (i64)h * sy;
            for (Ix w = ws.lo; w < ws.hi; ++w) s += Val<S>::ld(row[(i64)w * sx]);
        }
        y[i] = Val<S>::st(avg_divide<E, Ix>(s, hs, ws, a.count_include_pad));
    }
}

/// One thread per input element: the outputs whose window holds it, rows ascending and, within
/// a row, columns descending (the CPU backend's order of adding).
template <class E, class Ix>
__device__ void avg_pool_backward_impl(const E* __restrict__ g, E* __restrict__ gx,
                                       const PoolArgs& a) {
    const Geo<Ix> q = geo<Ix>(a);
    const i64 sy = a.v0[3], sx = a.v0[4];
    POOL_LOOP(Ix, i, a.planes * a.H * a.W) {
        const Ix w = i % q.W, r = i / q.W;
        const Ix h = r % q.H, plane = r / q.H;
        Ix oh0, oh1, ow0, ow1;
        covering<Ix>(h, q.kh, q.sh, q.ph, 1, q.OH, &oh0, &oh1);
        covering<Ix>(w, q.kw, q.sw, q.pw, 1, q.OW, &ow0, &ow1);
        const E* pg = g + plane_at<Ix>(a.v0, q.C, plane);
        E s = 0;
        for (Ix oh = oh0; oh <= oh1; ++oh) {
            const AvgSpan<Ix> hs = avg_span<Ix>(oh, q.H, q.kh, q.sh, q.ph);
            const E* row = pg + (i64)oh * sy;
            for (Ix ow = ow1; ow >= ow0; --ow) {
                const AvgSpan<Ix> ws = avg_span<Ix>(ow, q.W, q.kw, q.sw, q.pw);
                s += avg_divide<E, Ix>(row[(i64)ow * sx], hs, ws, a.count_include_pad);
            }
        }
        gx[i] = s;
    }
}

// ------------------------------------------------------------------------------ max pooling

/// WithIdx: also write the argmax (element type I) of each window.
template <class S, class Ix, class I, bool WithIdx>
__device__ void max_pool_impl(const S* __restrict__ x, S* __restrict__ y, I* __restrict__ idx,
                              const PoolArgs& a) {
    typedef typename Val<S>::V E;
    const Geo<Ix> g = geo<Ix>(a);
    const i64 sy = a.v0[3], sx = a.v0[4];
    POOL_LOOP(Ix, i, a.planes * a.OH * a.OW) {
        const Ix ow = i % g.OW, r = i / g.OW;
        const Ix oh = r % g.OH, plane = r / g.OH;
        const Ix hs = oh * g.sh - g.ph, ws = ow * g.sw - g.pw;
        const Ix hend = imin<Ix>(hs + (g.kh - 1) * g.dh + 1, g.H);
        const Ix wend = imin<Ix>(ws + (g.kw - 1) * g.dw + 1, g.W);
        const Ix h0 = first_valid<Ix>(hs, g.dh), w0 = first_valid<Ix>(ws, g.dw);
        const S* px = x + plane_at<Ix>(a.v0, g.C, plane);
        E m = neg_inf<E>();
        Ix best = h0 * g.W + w0;  // a window of -inf keeps its first cell
        for (Ix h = h0; h < hend; h += g.dh) {
            const S* row = px + (i64)h * sy;
            for (Ix w = w0; w < wend; w += g.dw) {
                const E v = Val<S>::ld(row[(i64)w * sx]);
                if (v > m || v != v) {  // PyTorch's rule: greater, or NaN
                    m = v;
                    if (WithIdx) best = h * g.W + w;
                }
            }
        }
        y[i] = Val<S>::st(m);
        if (WithIdx) idx[i] = (I)best;
    }
}

/// The gradient of input (h, w) of a plane (pg, pi: its gradient and indices; [ow0, ow1] the
/// outputs whose window columns may hold w): the outputs whose window holds it and whose index
/// names it, in output order (the CPU's order).
template <class E, class Ix, class I>
__device__ __forceinline__ E max_pool_gather(const E* __restrict__ pg, const I* __restrict__ pi,
                                             const Geo<Ix>& q, const PoolArgs& a, Ix h, Ix w,
                                             Ix ow0, Ix ow1) {
    Ix oh0, oh1;
    covering<Ix>(h, q.kh, q.sh, q.ph, q.dh, q.OH, &oh0, &oh1);
    const I self = (I)(h * q.W + w);
    E s = 0;
    for (Ix oh = oh0; oh <= oh1; ++oh) {
        if (q.dh != 1 && (h + q.ph - oh * q.sh) % q.dh != 0) continue;
        const E* grow = pg + (i64)oh * a.v0[3];
        const I* irow = pi + (i64)oh * a.v1[3];
        for (Ix ow = ow0; ow <= ow1; ++ow) {
            if (q.dw != 1 && (w + q.pw - ow * q.sw) % q.dw != 0) continue;
            if (irow[(i64)ow * a.v1[4]] == self) s += grow[(i64)ow * a.v0[4]];
        }
    }
    return s;
}

/// One thread per input element (a flat grid-stride loop).
template <class E, class Ix, class I>
__device__ void max_pool_backward_impl(const E* __restrict__ g, const I* __restrict__ idx,
                                       E* __restrict__ gx, const PoolArgs& a) {
    const Geo<Ix> q = geo<Ix>(a);
    POOL_LOOP(Ix, i, a.planes * a.H * a.W) {
        const Ix w = i % q.W, r = i / q.W;
        const Ix h = r % q.H, plane = r / q.H;
        Ix ow0, ow1;
        covering<Ix>(w, q.kw, q.sw, q.pw, q.dw, q.OW, &ow0, &ow1);
        gx[i] =
            max_pool_gather<E, Ix, I>(g + plane_at<Ix>(a.v0, q.C, plane),
                                      idx + plane_at<Ix>(a.v1, q.C, plane), q, a, h, w, ow0, ow1);
    }
}

/// Wide rows: grid y * blockDim.x covers the columns w (each thread's output columns computed
/// once), grid x splits the rows (plane, h) into contiguous chunks walked without divisions.
template <class E, class Ix, class I>
__device__ void max_pool_backward_rows_impl(const E* __restrict__ g, const I* __restrict__ idx,
                                            E* __restrict__ gx, const PoolArgs& a) {
    const Geo<Ix> q = geo<Ix>(a);
    const Ix w = (Ix)blockIdx.y * (Ix)blockDim.x + (Ix)threadIdx.x;
    if (w >= q.W) return;
    const Ix rows = q.planes * q.H, per = (rows + (Ix)gridDim.x - 1) / (Ix)gridDim.x;
    Ix row = (Ix)blockIdx.x * per;
    const Ix end = imin<Ix>(rows, row + per);
    if (row >= end) return;
    Ix ow0, ow1;
    covering<Ix>(w, q.kw, q.sw, q.pw, q.dw, q.OW, &ow0, &ow1);
    Ix h = row % q.H, plane = row / q.H;
    Ix b = plane / q.C, c = plane - b * q.C;
    for (; row < end; ++row) {
        const E* pg = g + (i64)b * a.v0[0] + (i64)c * a.v0[1];
        const I* pi = idx + (i64)b * a.v1[0] + (i64)c * a.v1[1];
        gx[(i64)row * q.W + w] = max_pool_gather<E, Ix, I>(pg, pi, q, a, h, w, ow0, ow1);
        if (++h == q.H) {
            h = 0;
            if (++c == q.C) c = 0, ++b;
        }
    }
}

/// Whether offset t from a window's start is one of its k taps of dilation d.
template <class Ix>
__device__ __forceinline__ bool window_tap(Ix t, Ix k, Ix d) {
    return t >= 0 && (d == 1 ? t < k : t % d == 0 && t / d < k);
}

/// One thread per output, after the gather: an index outside its plane is reported; one inside
/// the plane but outside the output's window (which the gather did not see) adds its gradient
/// atomically. Grid y * blockDim.x: output columns (grid-stride); grid x: contiguous chunks of
/// the rows (plane, oh), walked without divisions.
template <class E, class Ix, class I>
__device__ void max_pool_backward_check_impl(const E* __restrict__ g, const I* __restrict__ idx,
                                             E* __restrict__ gx, const PoolArgs& a, u32* err,
                                             u32 tag) {
    const Geo<Ix> q = geo<Ix>(a);
    const i64 plane_in = a.H * a.W;
    const Ix rows = q.planes * q.OH, per = (rows + (Ix)gridDim.x - 1) / (Ix)gridDim.x;
    const Ix row0 = (Ix)blockIdx.x * per;
    const Ix end = imin<Ix>(rows, row0 + per);
    for (Ix ow = (Ix)blockIdx.y * (Ix)blockDim.x + (Ix)threadIdx.x; ow < q.OW;
         ow += (Ix)gridDim.y * (Ix)blockDim.x) {
        const Ix ws = ow * q.sw - q.pw;
        Ix oh = row0 % q.OH, plane = row0 / q.OH;
        Ix b = plane / q.C, c = plane - b * q.C;
        for (Ix row = row0; row < end; ++row) {
            const i64 k = (i64)
                idx[(i64)b * a.v1[0] + (i64)c * a.v1[1] + (i64)oh * a.v1[3] + (i64)ow * a.v1[4]];
            if (k < 0 || k >= plane_in) {
                burn_report_error(err, tag, BURN_ERR_INDEX);
            } else {
                const Ix kx = (Ix)k;  // < H * W: fits Ix
                const Ix h = kx / q.W, w = kx - h * q.W;
                if (!window_tap<Ix>(h - (oh * q.sh - q.ph), q.kh, q.dh) ||
                    !window_tap<Ix>(w - ws, q.kw, q.dw))
                    atomicAdd(gx + (i64)plane * plane_in + k,
                              g[(i64)b * a.v0[0] + (i64)c * a.v0[1] + (i64)oh * a.v0[3] +
                                (i64)ow * a.v0[4]]);
            }
            if (++oh == q.OH) {
                oh = 0, ++plane;
                if (++c == q.C) c = 0, ++b;
            }
        }
    }
}

// ------------------------------------------------------------------------------ adaptive pooling

/// PyTorch's adaptive bin of output o along one dim: [floor(o * in / out), ceil((o+1) * in / out)).
template <class Ix>
__device__ __forceinline__ Ix bin_lo(Ix o, Ix in, Ix out) {
    return o * in / out;
}
template <class Ix>
__device__ __forceinline__ Ix bin_hi(Ix o, Ix in, Ix out) {
    return ((o + 1) * in + out - 1) / out;
}

/// One thread per output: each column's sum over the bin's (d, h) rows, then the columns in
/// order (the CPU backend's order).
template <class S, class Ix>
__device__ void adaptive_avg_pool_impl(const S* __restrict__ x, S* __restrict__ y,
                                       const PoolArgs& a) {
    typedef typename Val<S>::V E;
    const Geo<Ix> g = geo<Ix>(a);
    POOL_LOOP(Ix, i, a.planes * a.OD * a.OH * a.OW) {
        const Ix ow = i % g.OW;
        Ix r = i / g.OW;
        const Ix oh = r % g.OH;
        r /= g.OH;
        const Ix od = r % g.OD, plane = r / g.OD;
        const Ix d0 = bin_lo<Ix>(od, g.D, g.OD), d1 = bin_hi<Ix>(od, g.D, g.OD);
        const Ix h0 = bin_lo<Ix>(oh, g.H, g.OH), h1 = bin_hi<Ix>(oh, g.H, g.OH);
        const Ix w0 = bin_lo<Ix>(ow, g.W, g.OW), w1 = bin_hi<Ix>(ow, g.W, g.OW);
        const S* px = x + plane_at<Ix>(a.v0, g.C, plane);
        E s = 0;
        for (Ix w = w0; w < w1; ++w) {
            const S* pw = px + (i64)w * a.v0[4];
            E col = 0;
            for (Ix d = d0; d < d1; ++d)
                for (Ix h = h0; h < h1; ++h)
                    col += Val<S>::ld(pw[(i64)d * a.v0[2] + (i64)h * a.v0[3]]);
            s += col;
        }
        y[i] = Val<S>::st(s / (E)((i64)(d1 - d0) * (h1 - h0) * (w1 - w0)));
    }
}

/// One block per output (large bins): the block's threads split the bin, a warp-shuffle and
/// shared-memory reduction sums it. blockDim.x is a multiple of 32, at most 1024.
template <class S>
__device__ void adaptive_avg_pool_block_impl(const S* __restrict__ x, S* __restrict__ y,
                                             const PoolArgs& a) {
    typedef typename Val<S>::V E;
    __shared__ E partial[32];
    const i64 outputs = a.planes * a.OD * a.OH * a.OW;
    for (i64 i = blockIdx.x; i < outputs; i += gridDim.x) {
        const i64 ow = i % a.OW;
        i64 r = i / a.OW;
        const i64 oh = r % a.OH;
        r /= a.OH;
        const i64 od = r % a.OD, plane = r / a.OD;
        const i64 d0 = bin_lo<i64>(od, a.D, a.OD), d1 = bin_hi<i64>(od, a.D, a.OD);
        const i64 h0 = bin_lo<i64>(oh, a.H, a.OH), h1 = bin_hi<i64>(oh, a.H, a.OH);
        const i64 w0 = bin_lo<i64>(ow, a.W, a.OW), w1 = bin_hi<i64>(ow, a.W, a.OW);
        const S* px = x + plane_at<i64>(a.v0, a.C, plane);
        const int nw = (int)(w1 - w0), nh = (int)(h1 - h0), nd = (int)(d1 - d0);
        const int n = nw * nh * nd;
        E s = 0;
        if (nw >= 32) {  // threads along the rows (coalesced), rows split over warps
            const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
            for (int row = warp; row < nd * nh; row += warps) {
                const int dd = row / nh, hh = row - dd * nh;
                const S* p = px + (d0 + dd) * a.v0[2] + (h0 + hh) * a.v0[3];
                for (int w = lane; w < nw; w += 32) s += Val<S>::ld(p[(w0 + w) * a.v0[4]]);
            }
        } else {
            for (int e = threadIdx.x; e < n; e += blockDim.x) {
                const int w = e % nw, rr = e / nw;
                const int hh = rr % nh, dd = rr / nh;
                s += Val<S>::ld(px[(d0 + dd) * a.v0[2] + (h0 + hh) * a.v0[3] + (w0 + w) * a.v0[4]]);
            }
        }
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = s;
        __syncthreads();
        if (threadIdx.x < 32) {
            s = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : (E)0;
            for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
            if (threadIdx.x == 0) y[i] = Val<S>::st(s / (E)n);
        }
        __syncthreads();
    }
}

/// One thread per input element: the outputs whose bins hold it (contiguous ranges along each
/// dim), each (d, h) output row's columns summed first (the CPU backend's order). A global
/// pooling (one output per plane) reads its plane's one gradient.
template <class E, class Ix>
__device__ void adaptive_avg_pool_backward_impl(const E* __restrict__ g, E* __restrict__ gx,
                                                const PoolArgs& a) {
    const Geo<Ix> q = geo<Ix>(a);
    if (q.OD == 1 && q.OH == 1 && q.OW == 1) {
        const Ix plane_in = q.D * q.H * q.W;
        const E cnt = (E)((i64)q.D * q.H * q.W);
        POOL_LOOP(Ix, i, a.planes * a.D * a.H * a.W) {
            gx[i] = (E)0 + g[plane_at<Ix>(a.v0, q.C, i / plane_in)] / cnt;
        }
        return;
    }
    POOL_LOOP(Ix, i, a.planes * a.D * a.H * a.W) {
        const Ix w = i % q.W;
        Ix r = i / q.W;
        const Ix h = r % q.H;
        r /= q.H;
        const Ix d = r % q.D, plane = r / q.D;
        // Outputs o with bin_lo(o) <= c < bin_hi(o): floor(c * out / in) .. ceil((c + 1) * out /
        // in) - 1 (checked against the bins, so rounding cannot add one).
        const Ix od0 = d * q.OD / q.D, od1 = ((d + 1) * q.OD + q.D - 1) / q.D;
        const Ix oh0 = h * q.OH / q.H, oh1 = ((h + 1) * q.OH + q.H - 1) / q.H;
        const Ix ow0 = w * q.OW / q.W, ow1 = ((w + 1) * q.OW + q.W - 1) / q.W;
        const E* pg = g + plane_at<Ix>(a.v0, q.C, plane);
        E s = 0;
        for (Ix od = od0; od < od1; ++od) {
            const Ix d0 = bin_lo<Ix>(od, q.D, q.OD), d1 = bin_hi<Ix>(od, q.D, q.OD);
            if (d < d0 || d >= d1) continue;
            for (Ix oh = oh0; oh < oh1; ++oh) {
                const Ix h0 = bin_lo<Ix>(oh, q.H, q.OH), h1 = bin_hi<Ix>(oh, q.H, q.OH);
                if (h < h0 || h >= h1) continue;
                const i64 cnt_dh = (i64)(d1 - d0) * (h1 - h0);
                const E* grow = pg + (i64)od * a.v0[2] + (i64)oh * a.v0[3];
                E row = 0;
                for (Ix ow = ow0; ow < ow1; ++ow) {
                    const Ix w0 = bin_lo<Ix>(ow, q.W, q.OW), w1 = bin_hi<Ix>(ow, q.W, q.OW);
                    if (w < w0 || w >= w1) continue;
                    row += grow[(i64)ow * a.v0[4]] / (E)(cnt_dh * (w1 - w0));
                }
                s += row;
            }
        }
        gx[i] = s;
    }
}

// ------------------------------------------------------------------------------ entry points

#define POOL_WIDTHS(X, E, SUFFIX) X(E, SUFFIX, int, 32) X(E, SUFFIX, i64, 64)

/// The forward kernels (f16 / bf16 too: read as f32, each output rounded once).
#define POOL_FORWARD_KERNELS(S, SUFFIX, Ix, BITS)                                                 \
    extern "C" __global__ void avg_pool##BITS##_##SUFFIX(const S* x, S* y, PoolArgs a) {          \
        avg_pool_impl<S, Ix>(x, y, a);                                                            \
    }                                                                                             \
    extern "C" __global__ void max_pool##BITS##_##SUFFIX(const S* x, S* y, PoolArgs a) {          \
        max_pool_impl<S, Ix, i64, false>(x, y, nullptr, a);                                       \
    }                                                                                             \
    extern "C" __global__ void max_pool_idx_i32_##BITS##_##SUFFIX(const S* x, S* y, i32* idx,     \
                                                                  PoolArgs a) {                   \
        max_pool_impl<S, Ix, i32, true>(x, y, idx, a);                                            \
    }                                                                                             \
    extern "C" __global__ void max_pool_idx_i64_##BITS##_##SUFFIX(const S* x, S* y, i64* idx,     \
                                                                  PoolArgs a) {                   \
        max_pool_impl<S, Ix, i64, true>(x, y, idx, a);                                            \
    }                                                                                             \
    extern "C" __global__ void adaptive_avg_pool##BITS##_##SUFFIX(const S* x, S* y, PoolArgs a) { \
        adaptive_avg_pool_impl<S, Ix>(x, y, a);                                                   \
    }

/// The backward kernels (f32 and f64; the half types run them in f32 between casts, the
/// adapter's widening).
#define POOL_BACKWARD_KERNELS(E, SUFFIX, Ix, BITS)                                                 \
    extern "C" __global__ void avg_pool_backward##BITS##_##SUFFIX(const E* g, E* gx, PoolArgs a) { \
        avg_pool_backward_impl<E, Ix>(g, gx, a);                                                   \
    }                                                                                              \
    extern "C" __global__ void max_pool_backward_i32_##BITS##_##SUFFIX(const E* g, const i32* idx, \
                                                                       E* gx, PoolArgs a) {        \
        max_pool_backward_impl<E, Ix, i32>(g, idx, gx, a);                                         \
    }                                                                                              \
    extern "C" __global__ void max_pool_backward_i64_##BITS##_##SUFFIX(const E* g, const i64* idx, \
                                                                       E* gx, PoolArgs a) {        \
        max_pool_backward_impl<E, Ix, i64>(g, idx, gx, a);                                         \
    }                                                                                              \
    extern "C" __global__ void max_pool_backward_rows_i32_##BITS##_##SUFFIX(                       \
        const E* g, const i32* idx, E* gx, PoolArgs a) {                                           \
        max_pool_backward_rows_impl<E, Ix, i32>(g, idx, gx, a);                                    \
    }                                                                                              \
    extern "C" __global__ void max_pool_backward_rows_i64_##BITS##_##SUFFIX(                       \
        const E* g, const i64* idx, E* gx, PoolArgs a) {                                           \
        max_pool_backward_rows_impl<E, Ix, i64>(g, idx, gx, a);                                    \
    }                                                                                              \
    extern "C" __global__ void max_pool_backward_check_i32_##BITS##_##SUFFIX(                      \
        const E* g, const i32* idx, E* gx, PoolArgs a, u32* err, u32 tag) {                        \
        max_pool_backward_check_impl<E, Ix, i32>(g, idx, gx, a, err, tag);                         \
    }                                                                                              \
    extern "C" __global__ void max_pool_backward_check_i64_##BITS##_##SUFFIX(                      \
        const E* g, const i64* idx, E* gx, PoolArgs a, u32* err, u32 tag) {                        \
        max_pool_backward_check_impl<E, Ix, i64>(g, idx, gx, a, err, tag);                         \
    }                                                                                              \
    extern "C" __global__ void adaptive_avg_pool_backward##BITS##_##SUFFIX(const E* g, E* gx,      \
                                                                           PoolArgs a) {           \
        adaptive_avg_pool_backward_impl<E, Ix>(g, gx, a);                                          \
    }

#define POOL_BLOCK_KERNELS(E, SUFFIX)                                                           \
    extern "C" __global__ void adaptive_avg_pool_block_##SUFFIX(const E* x, E* y, PoolArgs a) { \
        adaptive_avg_pool_block_impl<E>(x, y, a);                                               \
    }

#define POOL_FLOATS(E, SUFFIX)                    \
    POOL_WIDTHS(POOL_FORWARD_KERNELS, E, SUFFIX)  \
    POOL_WIDTHS(POOL_BACKWARD_KERNELS, E, SUFFIX) \
    POOL_BLOCK_KERNELS(E, SUFFIX)
#define POOL_HALVES(S, SUFFIX) \
    POOL_WIDTHS(POOL_FORWARD_KERNELS, S, SUFFIX) POOL_BLOCK_KERNELS(S, SUFFIX)
BURN_FOR_FLOATS(POOL_FLOATS)
BURN_FOR_HALVES(POOL_HALVES)

// SPDX-License-Identifier: MIT OR Apache-2.0
// interpolate and interpolate_backward over x [b, c, h, w] (backends/cuda/src/ops_nn_misc.cpp),
// PyTorch's F.interpolate(size=...) as the CPU backend's interpolate.cpp: the host computes the
// kit's tap tables (burn/backend/interpolate.hpp) and uploads them.
//
// Forward: one thread per output element, K taps per dim (1 nearest, 2 bilinear, 4 bicubic):
// each of the K source columns is interpolated vertically first, then the columns are combined
// (the CPU backend's order). Nearest copies the element (no arithmetic).
// Backward: one thread per input element gathers through the inverse tap lists (CSR per dim:
// for each input index, the (output index, weight) pairs that read it, in output order), each
// output row's columns summed first (the CPU backend's order): deterministic, no atomics.
// Two launch shapes: <name>_rows for wide rows (grid y over blocks of columns, each thread's
// column taps loaded once, the backward's short inverse lists held in registers; grid x over
// contiguous chunks of rows (plane, row), walked without divisions), <name>_flat (a grid-stride
// loop over the elements) for narrow ones. Each in two index widths: <name>32_<dtype> computes
// its indices in 32 bits, <name>64_<dtype> in 64.
#include "common.cuh"

/// The host's InterpArgs (same layout): planes = b * c, the view's strides (b, c, h, w) (x for
/// the forward, grad for the backward).
struct InterpArgs {
    i64 planes, C, H, W, OH, OW;
    i64 s[4];
};

/// Forward tables: source rows / columns and their weights, K per output index.
template <class E>
struct FwdTables {
    const i64* __restrict__ ih;
    const E* __restrict__ wh;
    const i64* __restrict__ iw;
    const E* __restrict__ ww;
};

/// Backward tables (CSR per dim): starts (in + 1), output indices, weights.
template <class E>
struct BwdTables {
    const i64* __restrict__ hs;
    const i64* __restrict__ ho;
    const E* __restrict__ hw;
    const i64* __restrict__ ws;
    const i64* __restrict__ wo;
    const E* __restrict__ ww;
};

/// Output (oh, ow) of plane px (strides sy, sx).
template <class E, int K>
__device__ __forceinline__ E interpolate_one(const E* __restrict__ px, const FwdTables<E>& t,
                                             i64 oh, i64 ow, i64 sy, i64 sx) {
    if (K == 1) return px[t.ih[oh] * sy + t.iw[ow] * sx];
    i64 rows[K];
    E wy[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        rows[j] = t.ih[oh * K + j] * sy;
        wy[j] = t.wh[oh * K + j];
    }
    E s = 0;
#pragma unroll
    for (int jw = 0; jw < K; ++jw) {
        const E* col = px + t.iw[ow * K + jw] * sx;
        E v = wy[0] * col[rows[0]];
#pragma unroll
        for (int j = 1; j < K; ++j) v += wy[j] * col[rows[j]];
        s += t.ww[ow * K + jw] * v;
    }
    return s;
}

/// The gradient of input (h, w) of plane pg (the gradient's strides sy, sx).
template <class E>
__device__ __forceinline__ E gather_one(const E* __restrict__ pg, const BwdTables<E>& t, i64 h,
                                        i64 w, i64 sy, i64 sx) {
    const i64 w0 = t.ws[w], w1 = t.ws[w + 1];
    E s = 0;
    for (i64 e = t.hs[h]; e < t.hs[h + 1]; ++e) {
        const E* row = pg + t.ho[e] * sy;
        E inner = 0;
        for (i64 f = w0; f < w1; ++f) inner += t.ww[f] * row[t.wo[f] * sx];
        s += t.hw[e] * inner;
    }
    return s;
}

template <class Ix>
__device__ __forceinline__ i64 plane_at(const InterpArgs& a, Ix plane) {
    const Ix C = (Ix)a.C;
    const Ix b = plane / C, c = plane - b * C;
    return (i64)b * a.s[0] + (i64)c * a.s[1];
}

#define INTERP_LOOP(Ix, i, n)                                                   \
    for (Ix i = (Ix)blockIdx.x * (Ix)blockDim.x + (Ix)threadIdx.x; i < (Ix)(n); \
         i += (Ix)blockDim.x * (Ix)gridDim.x)

template <class E, class Ix, int K>
__device__ void interpolate_flat(const E* __restrict__ x, E* __restrict__ y, const FwdTables<E>& t,
                                 const InterpArgs& a) {
    const Ix OH = (Ix)a.OH, OW = (Ix)a.OW;
    INTERP_LOOP(Ix, i, a.planes * a.OH * a.OW) {
        const Ix ow = i % OW, r = i / OW;
        const Ix oh = r % OH, plane = r / OH;
        y[i] = interpolate_one<E, K>(x + plane_at<Ix>(a, plane), t, oh, ow, a.s[2], a.s[3]);
    }
}

/// Wide rows: grid y * blockDim.x covers the output columns (each thread's column taps held in
/// registers), grid x splits the rows (plane, oh) into contiguous chunks walked without
/// divisions.
template <class E, class Ix, int K>
__device__ void interpolate_rows(const E* __restrict__ x, E* __restrict__ y, const FwdTables<E>& t,
                                 const InterpArgs& a) {
    const Ix ow = (Ix)blockIdx.y * (Ix)blockDim.x + (Ix)threadIdx.x;
    const Ix OH = (Ix)a.OH, OW = (Ix)a.OW, C = (Ix)a.C;
    if (ow >= OW) return;
    const Ix rows = (Ix)a.planes * OH, per = (rows + (Ix)gridDim.x - 1) / (Ix)gridDim.x;
    Ix row = (Ix)blockIdx.x * per;
    const Ix end = row + per < rows ? row + per : rows;
    if (row >= end) return;
    i64 cols[K];
    E wx[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        cols[j] = t.iw[(i64)ow * K + j] * a.s[3];
        wx[j] = K == 1 ? (E)1 : t.ww[(i64)ow * K + j];
    }
    Ix oh = row % OH, plane = row / OH;
    Ix b = plane / C, c = plane - b * C;
    for (; row < end; ++row) {
        const E* px = x + (i64)b * a.s[0] + (i64)c * a.s[1];
        E out;
        if (K == 1) {
            out = px[t.ih[oh] * a.s[2] + cols[0]];
        } else {
            i64 rws[K];
            E wy[K];
#pragma unroll
            for (int j = 0; j < K; ++j) {
                rws[j] = t.ih[(i64)oh * K + j] * a.s[2];
                wy[j] = t.wh[(i64)oh * K + j];
            }
            out = 0;
#pragma unroll
            for (int jw = 0; jw < K; ++jw) {
                const E* col = px + cols[jw];
                E v = wy[0] * col[rws[0]];
#pragma unroll
                for (int j = 1; j < K; ++j) v += wy[j] * col[rws[j]];
                out += wx[jw] * v;
            }
        }
        y[(i64)row * OW + ow] = out;
        if (++oh == OH) {
            oh = 0;
            if (++c == C) c = 0, ++b;
        }
    }
}

template <class E, class Ix>
__device__ void backward_flat(const E* __restrict__ g, E* __restrict__ gx, const BwdTables<E>& t,
                              const InterpArgs& a) {
    const Ix H = (Ix)a.H, W = (Ix)a.W;
    INTERP_LOOP(Ix, i, a.planes * a.H * a.W) {
        const Ix w = i % W, r = i / W;
        const Ix h = r % H, plane = r / H;
        gx[i] = gather_one<E>(g + plane_at<Ix>(a, plane), t, h, w, a.s[2], a.s[3]);
    }
}

/// Wide rows, as interpolate_rows: grid y * blockDim.x covers the input columns, grid x splits
/// the rows (plane, h) into chunks walked without divisions.
template <class E, class Ix>
__device__ void backward_rows(const E* __restrict__ g, E* __restrict__ gx, const BwdTables<E>& t,
                              const InterpArgs& a) {
    const Ix w = (Ix)blockIdx.y * (Ix)blockDim.x + (Ix)threadIdx.x;
    const Ix H = (Ix)a.H, W = (Ix)a.W, C = (Ix)a.C;
    if (w >= W) return;
    const Ix rows = (Ix)a.planes * H, per = (rows + (Ix)gridDim.x - 1) / (Ix)gridDim.x;
    Ix row = (Ix)blockIdx.x * per;
    const Ix end = row + per < rows ? row + per : rows;
    if (row >= end) return;
    Ix h = row % H, plane = row / H;
    Ix b = plane / C, c = plane - b * C;
    // The column's (output column, weight) list, held in registers when short.
    constexpr int kCache = 8;
    const i64 f0 = t.ws[w], nf = t.ws[w + 1] - f0;
    i64 wcol[kCache];
    E wwt[kCache];
#pragma unroll
    for (int f = 0; f < kCache; ++f) {
        wcol[f] = f < nf ? t.wo[f0 + f] * a.s[3] : 0;
        wwt[f] = f < nf ? t.ww[f0 + f] : (E)0;
    }
    for (; row < end; ++row) {
        const E* pg = g + (i64)b * a.s[0] + (i64)c * a.s[1];
        E s = 0;
        if (nf <= kCache) {
            for (i64 e = t.hs[h]; e < t.hs[h + 1]; ++e) {
                const E* grow = pg + t.ho[e] * a.s[2];
                E inner = 0;
#pragma unroll
                for (int f = 0; f < kCache; ++f)
                    if (f < nf) inner += wwt[f] * grow[wcol[f]];
                s += t.hw[e] * inner;
            }
        } else {
            s = gather_one<E>(pg, t, h, w, a.s[2], a.s[3]);
        }
        gx[(i64)row * W + w] = s;
        if (++h == H) {
            h = 0;
            if (++c == C) c = 0, ++b;
        }
    }
}

#define INTERP_FWD(E, SUFFIX, Ix, BITS, MODE, K, SHAPE)                    \
    extern "C" __global__ void interpolate_##MODE##SHAPE##BITS##_##SUFFIX( \
        const E* x, E* y, FwdTables<E> t, InterpArgs a) {                  \
        interpolate##SHAPE<E, Ix, K>(x, y, t, a);                          \
    }

#define INTERP_KERNELS(E, SUFFIX, Ix, BITS)                                \
    INTERP_FWD(E, SUFFIX, Ix, BITS, nearest, 1, _flat)                     \
    INTERP_FWD(E, SUFFIX, Ix, BITS, nearest, 1, _rows)                     \
    INTERP_FWD(E, SUFFIX, Ix, BITS, bilinear, 2, _flat)                    \
    INTERP_FWD(E, SUFFIX, Ix, BITS, bilinear, 2, _rows)                    \
    INTERP_FWD(E, SUFFIX, Ix, BITS, bicubic, 4, _flat)                     \
    INTERP_FWD(E, SUFFIX, Ix, BITS, bicubic, 4, _rows)                     \
    extern "C" __global__ void interpolate_backward_flat##BITS##_##SUFFIX( \
        const E* g, E* gx, BwdTables<E> t, InterpArgs a) {                 \
        backward_flat<E, Ix>(g, gx, t, a);                                 \
    }                                                                      \
    extern "C" __global__ void interpolate_backward_rows##BITS##_##SUFFIX( \
        const E* g, E* gx, BwdTables<E> t, InterpArgs a) {                 \
        backward_rows<E, Ix>(g, gx, t, a);                                 \
    }

#define INTERP_WIDTHS(E, SUFFIX) \
    INTERP_KERNELS(E, SUFFIX, int, 32) INTERP_KERNELS(E, SUFFIX, i64, 64)
BURN_FOR_FLOATS(INTERP_WIDTHS)

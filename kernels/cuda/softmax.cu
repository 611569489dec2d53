// SPDX-License-Identifier: MIT OR Apache-2.0
// softmax / log_softmax along one dim (host side: Kernels::softmax in
// backends/cuda/src/ops_reduce.cpp), the CPU backend's semantics (backends/cpu/src/activation.cpp):
// the row max is subtracted; a row holding a NaN or whose max is infinite is NaN throughout.
// f32 and f64 compute in their type; f16 and bf16 are read as f32 and each output rounded once.
// Kernels (<kind>_<dtype suffix>):
//  - softmax_warp (rows <= 1024: a warp per row, the row in registers), softmax_block (a block
//    per row in registers, 16-byte accesses when aligned), softmax_online (longer rows: online
//    max and sum, then a second pass), softmax_cols (the dim is not the innermost: threads over
//    the lanes, the dim split over threadIdx.y).
// A program of its own (not reduce.cu's): the first softmax compiles these kernels only.
#include "reduce.cuh"

namespace red {

// ------------------------------------------------------------------------------------------------
// Softmax
// ------------------------------------------------------------------------------------------------

template <class E>
__device__ __forceinline__ E warp_allmax(E v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = max_nan(v, shfl_xor(v, off));
    return v;
}
/// Butterfly sum: every lane ends with the same bits (each step adds the same two values).
template <class E>
__device__ __forceinline__ E warp_allsum(E v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += shfl_xor(v, off);
    return v;
}

/// Max (NaN propagating) or sum over a 1-d block, the same value in every thread. `sh` holds 32
/// values; the block synchronises before returning (sh can be used again).
template <bool IsMax, class E>
__device__ __forceinline__ E block_all(E v, E* sh) {
    v = IsMax ? warp_allmax(v) : warp_allsum(v);
    const int nw = blockDim.x >> 5;
    if (nw == 1) return v;
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = sh[0];
    for (int k = 1; k < nw; ++k) v = IsMax ? max_nan(v, sh[k]) : v + sh[k];
    __syncthreads();
    return v;
}

// Softmax kernels read and write the storage type S and compute in E = Val<S>::V (f32 for the
// half types: each output rounded once).

/// Loads element group k (VEC elements from position i0) of a row, -inf past the end; VEC > 1:
/// one 16-byte access (the row is dense, aligned, n % VEC == 0).
template <class S, int VEC, class E>
__device__ __forceinline__ void load_group(const S* p, i64 s, i64 i0, i64 n, E* v) {
    if (VEC > 1) {
        if (i0 < n) {
            const V16<S> w = load16(p + i0);
#pragma unroll
            for (int u = 0; u < VEC; ++u) v[u] = Val<S>::ld(w.e[u]);
        } else {
#pragma unroll
            for (int u = 0; u < VEC; ++u) v[u] = Lim<E>::lowest();
        }
    } else {
        v[0] = i0 < n ? Val<S>::ld(p[i0 * s]) : Lim<E>::lowest();
    }
}
template <class S, int VEC, class E>
__device__ __forceinline__ void store_group(S* o, i64 i0, i64 n, const E* v) {
    if (i0 >= n) return;
    if (VEC > 1) {
        V16<S> w;
#pragma unroll
        for (int u = 0; u < VEC; ++u) w.e[u] = Val<S>::st(v[u]);
        store16(o + i0, w);
    } else {
        o[i0] = Val<S>::st(v[0]);
    }
}

/// The row's values v (ITEMS groups of VEC; -inf past the end) -> its softmax, given the row max
/// m (finite) and the reduction of the sum: v keeps x for log_softmax, becomes exp(x - m) else.
template <class E, int VEC, int ITEMS>
__device__ __forceinline__ E exp_pass(E* v, const E m, i64 t, int stride, i64 n, int log) {
    E sum = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const bool valid = ((i64)k * stride + t) * VEC < n;
#pragma unroll
        for (int u = 0; u < VEC; ++u) {
            const E e = valid ? exp_of(v[k * VEC + u] - m) : E(0);
            sum += e;
            if (!log) v[k * VEC + u] = e;
        }
    }
    return sum;
}
template <class E, int VEC, int ITEMS>
__device__ __forceinline__ void output_pass(E* v, const E m, const E sum, int log) {
    const E inv = E(1) / sum, ls = log_of(sum);
#pragma unroll
    for (int k = 0; k < ITEMS * VEC; ++k) v[k] = log ? (v[k] - m) - ls : v[k] * inv;
}

/// A warp per row of n <= 32 * ITEMS * VEC elements, held in registers.
template <class S, int VEC, int ITEMS>
__device__ __forceinline__ void softmax_warp(const void* xv, const Meta& lanes, i64 s, i64 n_rows,
                                             i64 n, void* outv, int log) {
    typedef typename Val<S>::V E;
    const int lane = threadIdx.x & 31;
    const i64 row = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= n_rows) return;  // the whole warp
    const S* p = static_cast<const S*>(xv) + strided_offset(lanes, row);
    S* o = static_cast<S*>(outv) + row * n;
    E v[ITEMS * VEC];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
        load_group<S, VEC>(p, s, ((i64)k * 32 + lane) * VEC, n, v + k * VEC);
    E m = Lim<E>::lowest();
#pragma unroll
    for (int k = 0; k < ITEMS * VEC; ++k) m = max_nan(m, v[k]);
    m = warp_allmax(m);
    if (!finite(m)) {
        for (i64 i = lane; i < n; i += 32) o[i] = Val<S>::st(quiet_nan(E(0)));
        return;
    }
    const E sum = warp_allsum(exp_pass<E, VEC, ITEMS>(v, m, lane, 32, n, log));
    output_pass<E, VEC, ITEMS>(v, m, sum, log);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
        store_group<S, VEC>(o, ((i64)k * 32 + lane) * VEC, n, v + k * VEC);
}

/// A block per row of n <= blockDim.x * ITEMS * VEC elements, held in registers.
template <class S, int VEC, int ITEMS>
__device__ __forceinline__ void softmax_block(const void* xv, const Meta& lanes, i64 s, i64 n,
                                              void* outv, int log) {
    typedef typename Val<S>::V E;
    __shared__ E sh[32];
    const int t = threadIdx.x, B = blockDim.x;
    const i64 row = blockIdx.x;
    const S* p = static_cast<const S*>(xv) + strided_offset(lanes, row);
    S* o = static_cast<S*>(outv) + row * n;
    E v[ITEMS * VEC];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
        load_group<S, VEC>(p, s, ((i64)k * B + t) * VEC, n, v + k * VEC);
    E m = Lim<E>::lowest();
#pragma unroll
    for (int k = 0; k < ITEMS * VEC; ++k) m = max_nan(m, v[k]);
    m = block_all<true>(m, sh);
    if (!finite(m)) {
        for (i64 i = t; i < n; i += B) o[i] = Val<S>::st(quiet_nan(E(0)));
        return;
    }
    const E sum = block_all<false>(exp_pass<E, VEC, ITEMS>(v, m, t, B, n, log), sh);
    output_pass<E, VEC, ITEMS>(v, m, sum, log);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) store_group<S, VEC>(o, ((i64)k * B + t) * VEC, n, v + k * VEC);
}

/// Online (max, sum of exp(x - max)) state. A NaN max is sticky; -inf values add nothing (the row
/// is NaN anyway when its max is not finite).
template <class E>
__device__ __forceinline__ void online_add(E& m, E& sum, E x) {
    if (x > m) {
        sum = sum * exp_of(m - x) + E(1);
        m = x;
    } else if (burn_isnan(x)) {
        m = x;
    } else if (x != Lim<E>::lowest()) {
        sum += exp_of(x - m);
    }
}
template <class E>
__device__ __forceinline__ void online_merge(E& m, E& sum, E m2, E s2) {
    if (burn_isnan(m) || burn_isnan(m2)) {
        m = burn_isnan(m) ? m : m2;
        return;
    }
    const E mm = m2 > m ? m2 : m;
    if (mm == Lim<E>::lowest()) {
        sum = 0;
    } else {
        // Written symmetrically: the same bits whichever state comes first.
        const E a = sum * exp_of(m - mm), b = s2 * exp_of(m2 - mm);
        sum = a + b;
    }
    m = mm;
}

/// A block per row of any length: one pass for the online max and sum, one for the output.
template <class S>
__device__ __forceinline__ void softmax_online(const void* xv, const Meta& lanes, i64 s, i64 n,
                                               void* outv, int log) {
    typedef typename Val<S>::V E;
    __shared__ E shm[32], shs[32];
    const int t = threadIdx.x, B = blockDim.x, lane = t & 31, warp = t >> 5, nw = B >> 5;
    const i64 row = blockIdx.x;
    const S* p = static_cast<const S*>(xv) + strided_offset(lanes, row);
    S* o = static_cast<S*>(outv) + row * n;
    E m = Lim<E>::lowest(), sum = 0;
    for (i64 i = t; i < n; i += B) online_add(m, sum, Val<S>::ld(p[i * s]));
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const E m2 = shfl_xor(m, off), s2 = shfl_xor(sum, off);
        online_merge(m, sum, m2, s2);
    }
    if (lane == 0) {
        shm[warp] = m;
        shs[warp] = sum;
    }
    __syncthreads();
    m = shm[0];
    sum = shs[0];
    for (int k = 1; k < nw; ++k) online_merge(m, sum, shm[k], shs[k]);
    if (!finite(m)) {
        for (i64 i = t; i < n; i += B) o[i] = Val<S>::st(quiet_nan(E(0)));
        return;
    }
    const E inv = E(1) / sum, ls = log_of(sum);
    for (i64 i = t; i < n; i += B) {
        const E x = Val<S>::ld(p[i * s]);
        o[i] = Val<S>::st(log ? (x - m) - ls : exp_of(x - m) * inv);
    }
}

/// Threads x over the lanes L = o * inner + i, threads y over interleaved slices of the n
/// elements (x + offset(lanes, L) + r * s); out[o * n * inner + r * inner + i].
template <class S>
__device__ __forceinline__ void softmax_cols(const void* xv, const Meta& lanes, i64 s, i64 n_lanes,
                                             i64 inner, i64 n, void* outv, int log) {
    typedef typename Val<S>::V E;
    __shared__ E shm[1024], shs[1024];
    const int tx = threadIdx.x, ty = threadIdx.y, TX = blockDim.x, TY = blockDim.y;
    const i64 L = (i64)blockIdx.x * TX + tx;
    const bool active = L < n_lanes;
    const S* p = static_cast<const S*>(xv) + (active ? strided_offset(lanes, L) : 0);
    S* o = static_cast<S*>(outv) + (active ? (L / inner) * n * inner + (L % inner) : 0);
    E m = Lim<E>::lowest(), sum = 0;
    if (active)
        for (i64 r = ty; r < n; r += TY) online_add(m, sum, Val<S>::ld(p[r * s]));
    if (TY > 1) {
        shm[ty * TX + tx] = m;
        shs[ty * TX + tx] = sum;
        __syncthreads();
        m = shm[tx];
        sum = shs[tx];
        for (int k = 1; k < TY; ++k) online_merge(m, sum, shm[k * TX + tx], shs[k * TX + tx]);
    }
    if (!active) return;
    if (!finite(m)) {
        for (i64 r = ty; r < n; r += TY) o[r * inner] = Val<S>::st(quiet_nan(E(0)));
        return;
    }
    const E inv = E(1) / sum, ls = log_of(sum);
    for (i64 r = ty; r < n; r += TY) {
        const E x = Val<S>::ld(p[r * s]);
        o[r * inner] = Val<S>::st(log ? (x - m) - ls : exp_of(x - m) * inv);
    }
}

}  // namespace red

// ------------------------------------------------------------------------------------------------
// Entry points
// ------------------------------------------------------------------------------------------------

#define BURN_SOFTMAX_WARP(T, SUF, VNAME, VEC, ITEMS)                               \
    extern "C" __global__ void softmax_warp_##VNAME##ITEMS##_##SUF(                \
        const void* x, Meta lanes, i64 s, i64 n_rows, i64 n, void* out, int log) { \
        red::softmax_warp<T, VEC, ITEMS>(x, lanes, s, n_rows, n, out, log);        \
    }
#define BURN_SOFTMAX_BLOCK(T, SUF, VNAME, VEC, ITEMS)                                        \
    extern "C" __global__ void __launch_bounds__(1024) softmax_block_##VNAME##ITEMS##_##SUF( \
        const void* x, Meta lanes, i64 s, i64 n_rows, i64 n, void* out, int log) {           \
        (void)n_rows;                                                                        \
        red::softmax_block<T, VEC, ITEMS>(x, lanes, s, n, out, log);                         \
    }
#define BURN_SOFTMAX(T, SUF)                                                                   \
    BURN_SOFTMAX_WARP(T, SUF, s, 1, 1)                                                         \
    BURN_SOFTMAX_WARP(T, SUF, s, 1, 2)                                                         \
    BURN_SOFTMAX_WARP(T, SUF, s, 1, 4)                                                         \
    BURN_SOFTMAX_WARP(T, SUF, s, 1, 8)                                                         \
    BURN_SOFTMAX_WARP(T, SUF, s, 1, 16)                                                        \
    BURN_SOFTMAX_WARP(T, SUF, s, 1, 32)                                                        \
    BURN_SOFTMAX_WARP(T, SUF, v, 16 / sizeof(T), 1)                                            \
    BURN_SOFTMAX_WARP(T, SUF, v, 16 / sizeof(T), 2)                                            \
    BURN_SOFTMAX_WARP(T, SUF, v, 16 / sizeof(T), 4)                                            \
    BURN_SOFTMAX_BLOCK(T, SUF, s, 1, 1)                                                        \
    BURN_SOFTMAX_BLOCK(T, SUF, s, 1, 2)                                                        \
    BURN_SOFTMAX_BLOCK(T, SUF, s, 1, 4)                                                        \
    BURN_SOFTMAX_BLOCK(T, SUF, s, 1, 8)                                                        \
    BURN_SOFTMAX_BLOCK(T, SUF, v, 16 / sizeof(T), 1)                                           \
    BURN_SOFTMAX_BLOCK(T, SUF, v, 16 / sizeof(T), 2)                                           \
    BURN_SOFTMAX_BLOCK(T, SUF, v, 16 / sizeof(T), 4)                                           \
    BURN_SOFTMAX_BLOCK(T, SUF, v, 16 / sizeof(T), 8)                                           \
    extern "C" __global__ void __launch_bounds__(1024) softmax_online_##SUF(                   \
        const void* x, Meta lanes, i64 s, i64 n_rows, i64 n, void* out, int log) {             \
        (void)n_rows;                                                                          \
        red::softmax_online<T>(x, lanes, s, n, out, log);                                      \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(1024) softmax_cols_##SUF(                     \
        const void* x, Meta lanes, i64 s, i64 n_lanes, i64 inner, i64 n, void* out, int log) { \
        red::softmax_cols<T>(x, lanes, s, n_lanes, inner, n, out, log);                        \
    }

BURN_FOR_FLOATS(BURN_SOFTMAX)
BURN_FOR_HALVES(BURN_SOFTMAX)
// The warp kernels take rows of up to 1024 elements: 16-byte groups of 4 f32 need up to 8 items
// a lane, groups of 2 f64 up to 16 (groups of 8 halves: 4).
BURN_SOFTMAX_WARP(float, f32, v, 4, 8)
BURN_SOFTMAX_WARP(double, f64, v, 2, 8)
BURN_SOFTMAX_WARP(double, f64, v, 2, 16)

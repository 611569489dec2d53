// SPDX-License-Identifier: MIT OR Apache-2.0
// Reductions (sum, prod, mean, max, min over everything or along a dim; arg-max/min; any/all)
// and cumulative ops (cumsum, cumprod, cummax, cummin), with the CPU backend's semantics
// (backends/cpu/src/reduce.cpp, cumulative.cpp); softmax is softmax.cu:
//  - float sums and products accumulate in f64 (f32 values are added four at a time in f32, then
//    widened: more precise than the CPU's 4096-value f32 blocks), ints wrap in u64, max and min
//    propagate NaN, the mean of ints truncates toward zero;
//  - arg-max/min give the first extremum, a NaN counting as one (its first position);
//  - f32 cumsum/cumprod run in f64; cummax/cummin propagate NaN and take the later element on
//    ties (PyTorch's values).
// Every reduction is deterministic: the work split depends on the shape only, partial results
// are combined in a fixed order (no atomics).
//
// Kernels (<kind>_<op>_<dtype suffix>; host side: backends/cuda/src/ops_reduce.cpp):
//  - reduce_all_partial / reduce_all_final: everything, in two passes (one block per contiguous
//    chunk, 16-byte loads, then one block over the partials);
//  - reduce_rows: the reduced dim has stride 1 (4 to 32 lanes of a warp, or a block, per
//    output; 16-byte loads; optionally split over grid.y into partials);
//  - reduce_cols: any other stride (threads over the outputs, coalesced when the outputs are
//    neighbours in memory, each (x, y) block thread folding a slice of the reduced dim);
//  - reduce_combine: folds the grid.y partials of reduce_rows / reduce_cols in order;
//  - cum_rows (a block scans a contiguous segment chunk by chunk), cum_cols (a thread scans one
//    lane), cum_total (the total of a segment of a row), cum_carry (exclusive scan of segment
//    totals: long lanes are cut into segments).
// Views are read through a Meta of the output positions ("lanes": the input with the reduced
// dim of size 1) plus the reduced dim's stride: any strides work without a copy.
#include "reduce.cuh"

namespace red {

// ------------------------------------------------------------------------------------------------
// Reduction ops: In (element), A (accumulator), identity, lift (element at position r), combine
// (associative; arg-max/min also commutative: ties go to the lower position), store (writes
// output j from the accumulator of `count` values; `mode`: Sum 1 = mean, Arg 1 = i64 indices).
// Step<Op>::run folds one more element into a thread's own accumulator, whose positions are all
// lower (every thread visits its elements in increasing position).
// ------------------------------------------------------------------------------------------------

template <class E>
struct OpSum {
    typedef E In;
    typedef typename Wide<E>::T A;
    static __device__ __forceinline__ A identity() { return A(0); }
    static __device__ __forceinline__ A lift(E v, i64) { return Wide<E>::of(v); }
    static __device__ __forceinline__ A combine(A a, A b) { return a + b; }
    static __device__ __forceinline__ void store(void* out, void*, i64 j, A a, i64 count,
                                                 int mode) {
        E r;
        if constexpr (!Wide<E>::integral) {  // floats: a is f64
            r = from_wide<E>(mode ? (double)a / (double)count : (double)a);
        } else {  // ints: a is the u64 (wrapped) sum; the mean truncates toward zero
            r = mode ? (E)((i64)a / count) : (E)(i64)a;
        }
        static_cast<E*>(out)[j] = r;
    }
};
template <class E>
struct OpProd {
    typedef E In;
    typedef typename Wide<E>::T A;
    static __device__ __forceinline__ A identity() { return A(1); }
    static __device__ __forceinline__ A lift(E v, i64) { return Wide<E>::of(v); }
    static __device__ __forceinline__ A combine(A a, A b) { return a * b; }
    static __device__ __forceinline__ void store(void* out, void*, i64 j, A a, i64, int) {
        if constexpr (Wide<E>::integral) static_cast<E*>(out)[j] = (E)a;
        else static_cast<E*>(out)[j] = from_wide<E>(a);
    }
};
/// Max and min compare values (f32 for the half types, whose values it holds exactly).
template <class E>
struct OpMax {
    typedef E In;
    typedef typename Val<E>::V A;
    static __device__ __forceinline__ A identity() { return Lim<A>::lowest(); }
    static __device__ __forceinline__ A lift(E v, i64) { return Val<E>::ld(v); }
    static __device__ __forceinline__ A combine(A a, A b) { return max_nan(a, b); }
    static __device__ __forceinline__ void store(void* out, void*, i64 j, A a, i64, int) {
        static_cast<E*>(out)[j] = Val<E>::st(a);
    }
};
template <class E>
struct OpMin {
    typedef E In;
    typedef typename Val<E>::V A;
    static __device__ __forceinline__ A identity() { return Lim<A>::highest(); }
    static __device__ __forceinline__ A lift(E v, i64) { return Val<E>::ld(v); }
    static __device__ __forceinline__ A combine(A a, A b) { return min_nan(a, b); }
    static __device__ __forceinline__ void store(void* out, void*, i64 j, A a, i64, int) {
        static_cast<E*>(out)[j] = Val<E>::st(a);
    }
};
template <class E, bool IsMax>
struct OpArg {
    typedef E In;
    typedef ArgAcc<E> A;
    static __device__ __forceinline__ A identity() {
        A a;
        a.v = IsMax ? Lim<E>::lowest() : Lim<E>::highest();
        a.i = Lim<i64>::highest();
        return a;
    }
    static __device__ __forceinline__ A lift(E v, i64 r) {
        A a;
        a.v = v;
        a.i = r;
        return a;
    }
    /// The first extremum of both (NaN is the extremum; ties keep the lower position).
    static __device__ __forceinline__ A combine(A a, A b) {
        const bool an = burn_isnan(a.v), bn = burn_isnan(b.v);
        bool take_b;
        if (an || bn) take_b = (an && bn) ? b.i < a.i : bn;
        else if (IsMax ? b.v > a.v : b.v < a.v) take_b = true;
        else take_b = b.v == a.v && b.i < a.i;
        return take_b ? b : a;
    }
    static __device__ __forceinline__ void store(void* out, void* out2, i64 j, A a, i64, int mode) {
        static_cast<E*>(out)[j] = a.v;
        if (mode) static_cast<i64*>(out2)[j] = a.i;
        else static_cast<i32*>(out2)[j] = (i32)a.i;
    }
};
template <bool All>
struct OpAnyAll {
    typedef u8 In;
    typedef u32 A;
    static __device__ __forceinline__ A identity() { return All ? 1u : 0u; }
    static __device__ __forceinline__ A lift(u8 v, i64) { return v != 0 ? 1u : 0u; }
    static __device__ __forceinline__ A combine(A a, A b) { return All ? (a & b) : (a | b); }
    static __device__ __forceinline__ void store(void* out, void*, i64 j, A a, i64, int) {
        static_cast<u8*>(out)[j] = a != 0u ? 1 : 0;
    }
};

template <class Op>
struct Step {
    static __device__ __forceinline__ typename Op::A run(typename Op::A acc, typename Op::In v,
                                                         i64 r) {
        return Op::combine(acc, Op::lift(v, r));
    }
};
/// Arg-max/min: the later element replaces the extremum only when strictly better (or the first
/// NaN).
template <class E, bool IsMax>
struct Step<OpArg<E, IsMax>> {
    static __device__ __forceinline__ ArgAcc<E> run(ArgAcc<E> acc, E v, i64 r) {
        const bool better = IsMax ? v > acc.v : v < acc.v;
        // (acc.i is the identity's position until the first element.)
        if ((!burn_isnan(acc.v) && (better || burn_isnan(v))) || acc.i == Lim<i64>::highest()) {
            acc.v = v;
            acc.i = r;
        }
        return acc;
    }
};

/// Folds the elements of one 16-byte vector (at position r) into acc, in order.
template <class Op>
struct VecFold {
    typedef typename Op::In E;
    typedef typename Op::A A;
    static __device__ __forceinline__ A run(A acc, const V16<E>& v, i64 r) {
#pragma unroll
        for (int k = 0; k < V16<E>::N; ++k) acc = Step<Op>::run(acc, v.e[k], r + k);
        return acc;
    }
};
/// f32 sums: the four values pairwise in f32, then widened (one conversion per four values).
template <>
struct VecFold<OpSum<float>> {
    static __device__ __forceinline__ double run(double acc, const V16<float>& v, i64) {
        return acc + (double)((v.e[0] + v.e[1]) + (v.e[2] + v.e[3]));
    }
};
/// f16 / bf16 sums: as f32's, four values at a time in f32 (the 16 bytes hold eight).
template <class H>
struct VecFoldHalf {
    static __device__ __forceinline__ double run(double acc, const V16<H>& v, i64) {
        float f[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) f[k] = to_f32(v.e[k]);
        acc = acc + (double)((f[0] + f[1]) + (f[2] + f[3]));
        return acc + (double)((f[4] + f[5]) + (f[6] + f[7]));
    }
};
template <>
struct VecFold<OpSum<h16>> : VecFoldHalf<h16> {};
template <>
struct VecFold<OpSum<bh16>> : VecFoldHalf<bh16> {};

// ---- cooperative folds -------------------------------------------------------------------------

/// The fold of elements [r0, r1) of the run at p (stride s) by thread t of nt:
/// 16-byte loads on a stride-1 run (scalar head up to the alignment, scalar tail).
template <class Op>
__device__ __forceinline__ typename Op::A fold_range(const typename Op::In* p, i64 s, i64 r0,
                                                     i64 r1, int t, int nt) {
    typedef typename Op::In E;
    typedef typename Op::A A;
    A acc = Op::identity();
    if (r1 <= r0) return acc;
    if (s == 1) {
        const int N = V16<E>::N;
        const E* q = p + r0;
        const i64 n = r1 - r0;
        i64 head = (i64)(((16u - (unsigned)((u64)q & 15u)) & 15u) / sizeof(E));
        if (head > n) head = n;
        for (i64 i = t; i < head; i += nt) acc = Step<Op>::run(acc, q[i], r0 + i);
        const i64 nv = (n - head) / N;
        const E* qv = q + head;
        const i64 rv = r0 + head;
        i64 k = t;
        for (; k + 3 * nt < nv; k += 4 * (i64)nt) {
            const V16<E> a = load16(qv + k * N);
            const V16<E> b = load16(qv + (k + nt) * N);
            const V16<E> c = load16(qv + (k + 2 * nt) * N);
            const V16<E> d = load16(qv + (k + 3 * nt) * N);
            acc = VecFold<Op>::run(acc, a, rv + k * N);
            acc = VecFold<Op>::run(acc, b, rv + (k + nt) * N);
            acc = VecFold<Op>::run(acc, c, rv + (k + 2 * nt) * N);
            acc = VecFold<Op>::run(acc, d, rv + (k + 3 * nt) * N);
        }
        for (; k < nv; k += nt) acc = VecFold<Op>::run(acc, load16(qv + k * N), rv + k * N);
        for (i64 i = head + nv * N + t; i < n; i += nt) acc = Step<Op>::run(acc, q[i], r0 + i);
    } else {
#pragma unroll 4
        for (i64 r = r0 + t; r < r1; r += nt) acc = Step<Op>::run(acc, p[r * s], r);
    }
    return acc;
}

template <class Op>
__device__ __forceinline__ typename Op::A warp_reduce(typename Op::A v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = Op::combine(v, shfl_down(v, off));
    return v;
}
/// The fold of each aligned group of `width` lanes (a power of two <= 32), in its first lane.
template <class Op>
__device__ __forceinline__ typename Op::A group_reduce(typename Op::A v, int width) {
    for (int off = width >> 1; off > 0; off >>= 1) v = Op::combine(v, shfl_down(v, off));
    return v;
}

/// The fold of a 1-d block's values, in thread 0 (blockDim.x a multiple of 32, at most 1024).
template <class Op>
__device__ __forceinline__ typename Op::A block_reduce(typename Op::A v) {
    __shared__ typename Op::A sh[32];
    v = warp_reduce<Op>(v);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    if (nw == 1) return v;
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? sh[lane] : Op::identity();
        v = warp_reduce<Op>(v);
    }
    return v;
}

// ------------------------------------------------------------------------------------------------
// Reduction kernels
// ------------------------------------------------------------------------------------------------

/// Pass 1 over everything: block b folds elements [b * per_block, (b + 1) * per_block) into
/// partial[b]. `m` of rank 0: a dense run from x; otherwise the (collapsed) view's metadata.
template <class Op>
__device__ __forceinline__ void all_partial(const void* xv, const Meta& m, i64 n, i64 per_block,
                                            void* partial) {
    typedef typename Op::In E;
    typedef typename Op::A A;
    const E* x = static_cast<const E*>(xv);
    const i64 r0 = (i64)blockIdx.x * per_block;
    const i64 r1 = r0 + per_block < n ? r0 + per_block : n;
    A acc;
    if (m.rank == 0) {
        acc = fold_range<Op>(x, 1, r0, r1, threadIdx.x, blockDim.x);
    } else {
        acc = Op::identity();
        for (i64 i = r0 + threadIdx.x; i < r1; i += blockDim.x)
            acc = Step<Op>::run(acc, x[strided_offset(m, i)], i);
    }
    acc = block_reduce<Op>(acc);
    if (threadIdx.x == 0) static_cast<A*>(partial)[blockIdx.x] = acc;
}

/// Pass 2: one block folds the np partials in a fixed order and stores output 0.
template <class Op>
__device__ __forceinline__ void all_final(const void* partial, i64 np, i64 count, int mode,
                                          void* out) {
    typedef typename Op::A A;
    const A* p = static_cast<const A*>(partial);
    A acc = Op::identity();
    for (i64 i = threadIdx.x; i < np; i += blockDim.x) acc = Op::combine(acc, p[i]);
    acc = block_reduce<Op>(acc);
    if (threadIdx.x == 0) Op::store(out, nullptr, 0, acc, count, mode);
}

/// Output `row` folds the run at x + offset(lanes, row), elements [y * chunk, (y + 1) * chunk)
/// of R with stride s (y = blockIdx.y); `group` threads per output (4 to 32: lanes of a warp,
/// 256 / group outputs per block of 256; or blockDim.x: one output per block). With one split
/// the output is stored, else the partial goes to partial[y * n_rows + row].
template <class Op>
__device__ __forceinline__ void rows(const void* xv, const Meta& lanes, i64 s, i64 n_rows, i64 R,
                                     i64 chunk, int group, void* partial, void* out, void* out2,
                                     int mode) {
    typedef typename Op::In E;
    typedef typename Op::A A;
    const int per_block = blockDim.x / group;
    const int g = threadIdx.x / group, t = threadIdx.x % group;
    const i64 row = (i64)blockIdx.x * per_block + g;
    const i64 r0 = (i64)blockIdx.y * chunk;
    const i64 r1 = r0 + chunk < R ? r0 + chunk : R;
    A acc = Op::identity();
    if (row < n_rows) {
        const E* p = static_cast<const E*>(xv) + strided_offset(lanes, row);
        acc = fold_range<Op>(p, s, r0, r1, t, group);
    }
    acc = group <= 32 ? group_reduce<Op>(acc, group) : block_reduce<Op>(acc);
    if (t != 0 || row >= n_rows) return;
    if (gridDim.y == 1) Op::store(out, out2, row, acc, R, mode);
    else static_cast<A*>(partial)[(i64)blockIdx.y * n_rows + row] = acc;
}

/// Output j (threads x over the outputs) folds elements r of [y * chunk, (y + 1) * chunk) of R
/// at x + offset(lanes, j) + r * s; threads y of the block fold interleaved slices, combined in
/// order through shared memory.
template <class Op>
__device__ __forceinline__ void cols(const void* xv, const Meta& lanes, i64 s, i64 n_out, i64 R,
                                     i64 chunk, void* partial, void* out, void* out2, int mode) {
    typedef typename Op::In E;
    typedef typename Op::A A;
    __shared__ A sh[256];
    const int tx = threadIdx.x, ty = threadIdx.y, TX = blockDim.x, TY = blockDim.y;
    const i64 j = (i64)blockIdx.x * TX + tx;
    const i64 r0 = (i64)blockIdx.y * chunk;
    const i64 r1 = r0 + chunk < R ? r0 + chunk : R;
    A acc = Op::identity();
    if (j < n_out) {
        const E* p = static_cast<const E*>(xv) + strided_offset(lanes, j);
#pragma unroll 4
        for (i64 r = r0 + ty; r < r1; r += TY) acc = Step<Op>::run(acc, p[r * s], r);
    }
    if (TY > 1) {
        sh[ty * TX + tx] = acc;
        __syncthreads();
        if (ty != 0) return;
        for (int k = 1; k < TY; ++k) acc = Op::combine(acc, sh[k * TX + tx]);
    }
    if (ty != 0 || j >= n_out) return;
    if (gridDim.y == 1) Op::store(out, out2, j, acc, R, mode);
    else static_cast<A*>(partial)[(i64)blockIdx.y * n_out + j] = acc;
}

/// Output j folds partial[k * n_out + j] for k < splits in order (a warp per output).
template <class Op>
__device__ __forceinline__ void combine(const void* partial, i64 n_out, i64 splits, i64 count,
                                        void* out, void* out2, int mode) {
    typedef typename Op::A A;
    const A* p = static_cast<const A*>(partial);
    const i64 j = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (j >= n_out) return;
    A acc = Op::identity();
    for (i64 k = lane; k < splits; k += 32) acc = Op::combine(acc, p[k * n_out + j]);
    acc = warp_reduce<Op>(acc);
    if (lane == 0) Op::store(out, out2, j, acc, count, mode);
}

// ------------------------------------------------------------------------------------------------
// Cumulative ops: In, A, identity (-0.0 for float sums, a true identity), lift, combine (earlier,
// later), store.
// ------------------------------------------------------------------------------------------------

template <class E>
struct CumSum {
    typedef E In;
    typedef typename Wide<E>::T A;
    static __device__ __forceinline__ A identity() { return E(0.5) != E(0) ? A(-0.0) : A(0); }
    static __device__ __forceinline__ A lift(E v) { return Wide<E>::of(v); }
    static __device__ __forceinline__ A combine(A a, A b) { return a + b; }
    static __device__ __forceinline__ E store(A a) { return E(0.5) != E(0) ? (E)a : (E)(i64)a; }
};
template <class E>
struct CumProd {
    typedef E In;
    typedef typename Wide<E>::T A;
    static __device__ __forceinline__ A identity() { return A(1); }
    static __device__ __forceinline__ A lift(E v) { return Wide<E>::of(v); }
    static __device__ __forceinline__ A combine(A a, A b) { return a * b; }
    static __device__ __forceinline__ E store(A a) { return E(0.5) != E(0) ? (E)a : (E)(i64)a; }
};
/// The later value when it is >= (max) / <= (min) the earlier or NaN, unless the earlier is NaN.
template <class E, bool IsMax>
struct CumExt {
    typedef E In;
    typedef E A;
    static __device__ __forceinline__ A identity() {
        return IsMax ? Lim<E>::lowest() : Lim<E>::highest();
    }
    static __device__ __forceinline__ A lift(E v) { return v; }
    static __device__ __forceinline__ A combine(A a, A b) {
        const bool take = IsMax ? b >= a : b <= a;
        return (take || burn_isnan(b)) && !burn_isnan(a) ? b : a;
    }
    static __device__ __forceinline__ E store(A a) { return a; }
};

#define BURN_CUM_BLOCK 256
#define BURN_CUM_ITEMS 8
#define BURN_CUM_CHUNK (BURN_CUM_BLOCK * BURN_CUM_ITEMS)

/// Inclusive scan over the warp's lanes (combine(earlier, later)).
template <class Op>
__device__ __forceinline__ typename Op::A warp_scan(typename Op::A v, int lane) {
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const typename Op::A y = shfl_up(v, off);
        if (lane >= off) v = Op::combine(y, v);
    }
    return v;
}

/// The fold of the warp's values in lane order, in lane 0 (ops that are not commutative).
template <class Op>
__device__ __forceinline__ typename Op::A warp_reduce_ordered(typename Op::A v, int lane) {
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const typename Op::A y = shfl_down(v, off);
        if ((lane & (2 * off - 1)) == 0) v = Op::combine(v, y);
    }
    return v;
}

/// mode 0: scan; 2: scan with carry[row * segs + seg] (the fold of the earlier segments) as the
/// starting value. One block of BURN_CUM_BLOCK threads per (row, segment): row = blockIdx.x,
/// seg = blockIdx.y; a chunk of BURN_CUM_CHUNK positions at a time, thread t holding positions
/// t * ITEMS .. t * ITEMS + ITEMS - 1 of it (16-byte accesses where aligned). The output row is
/// dense: out + row * n.
template <class Op>
__device__ __forceinline__ void cum_rows(const void* xv, const Meta& lanes, i64 s, i64 n,
                                         i64 seg_len, void* carry_v, int mode, void* outv) {
    typedef typename Op::In E;
    typedef typename Op::A A;
    enum { NV = 16 / sizeof(E), ITEMS = BURN_CUM_ITEMS };
    __shared__ A wsum[2][BURN_CUM_BLOCK / 32];
    __shared__ A chunk_total[2];
    const i64 row = blockIdx.x, seg = blockIdx.y, segs = gridDim.y;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const E* p = static_cast<const E*>(xv) + strided_offset(lanes, row);
    E* o = static_cast<E*>(outv) + row * n;
    const i64 r0 = seg * seg_len;
    const i64 r1 = r0 + seg_len < n ? r0 + seg_len : n;
    const bool vload = s == 1 && ((u64)(p + r0) & 15u) == 0;
    const bool vstore = ((u64)(o + r0) & 15u) == 0;
    A carry = mode == 2 ? static_cast<const A*>(carry_v)[row * segs + seg] : Op::identity();
    int parity = 0;
    for (i64 c0 = r0; c0 < r1; c0 += BURN_CUM_CHUNK, parity ^= 1) {
        const bool full = r1 - c0 >= BURN_CUM_CHUNK;
        const i64 q = c0 + (i64)t * ITEMS;
        E v[ITEMS];
        if (full && vload) {
#pragma unroll
            for (int k = 0; k < ITEMS / NV; ++k) {
                const V16<E> w = load16(p + q + k * NV);
#pragma unroll
                for (int u = 0; u < NV; ++u) v[k * NV + u] = w.e[u];
            }
        } else {
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) v[i] = q + i < r1 ? p[(q + i) * s] : E(0);
        }
        A loc[ITEMS];
        A run = Op::identity();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            if (q + i < r1) run = Op::combine(run, Op::lift(v[i]));
            loc[i] = run;
        }
        const A inc = warp_scan<Op>(run, lane);
        A excl = shfl_up(inc, 1);
        if (lane == 0) excl = Op::identity();
        if (lane == 31) wsum[parity][warp] = inc;
        __syncthreads();
        if (warp == 0) {
            const int nw = BURN_CUM_BLOCK / 32;
            const A w = lane < nw ? wsum[parity][lane] : Op::identity();
            const A winc = warp_scan<Op>(w, lane);
            A wexcl = shfl_up(winc, 1);
            if (lane == 0) wexcl = Op::identity();
            if (lane < nw) wsum[parity][lane] = wexcl;
            if (lane == nw - 1) chunk_total[parity] = winc;
        }
        __syncthreads();
        const A prefix = Op::combine(carry, Op::combine(wsum[parity][warp], excl));
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) v[i] = Op::store(Op::combine(prefix, loc[i]));
        if (full && vstore) {
#pragma unroll
            for (int k = 0; k < ITEMS / NV; ++k) {
                V16<E> w;
#pragma unroll
                for (int u = 0; u < NV; ++u) w.e[u] = v[k * NV + u];
                store16(o + q + k * NV, w);
            }
        } else {
#pragma unroll
            for (int i = 0; i < ITEMS; ++i)
                if (q + i < r1) o[q + i] = v[i];
        }
        carry = Op::combine(carry, chunk_total[parity]);
        // (The next chunk writes the other parity's shared values: one barrier per chunk
        // suffices between a read here and the write two chunks on.)
    }
}

/// The fold (in order) of segment seg = blockIdx.y of row blockIdx.x into
/// carry[row * segs + seg]: each warp folds a contiguous share tile by tile (lane l holding
/// positions l * ITEMS .. of a tile of 32 * ITEMS, 16-byte loads where aligned), then the block
/// combines the warps in order.
template <class Op>
__device__ __forceinline__ void cum_total(const void* xv, const Meta& lanes, i64 s, i64 n,
                                          i64 seg_len, void* carry_v) {
    typedef typename Op::In E;
    typedef typename Op::A A;
    enum { NV = 16 / sizeof(E), ITEMS = BURN_CUM_ITEMS, TILE = 32 * BURN_CUM_ITEMS };
    __shared__ A sh[32];
    const i64 row = blockIdx.x, seg = blockIdx.y, segs = gridDim.y;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5;
    const E* p = static_cast<const E*>(xv) + strided_offset(lanes, row);
    const i64 r0 = seg * seg_len;
    const i64 r1 = r0 + seg_len < n ? r0 + seg_len : n;
    const i64 share = ((r1 - r0 + nw - 1) / nw + TILE - 1) / TILE * TILE;
    const i64 wa = r0 + warp * share;
    const i64 wb = wa + share < r1 ? wa + share : r1;
    const bool vload = s == 1 && ((u64)(p + r0) & 15u) == 0;
    A acc = Op::identity();
    for (i64 c = wa; c < wb; c += TILE) {
        const i64 q = c + (i64)lane * ITEMS;
        E v[ITEMS];
        if (vload && c + TILE <= wb) {
#pragma unroll
            for (int k = 0; k < ITEMS / NV; ++k) {
                const V16<E> w = load16(p + q + k * NV);
#pragma unroll
                for (int u = 0; u < NV; ++u) v[k * NV + u] = w.e[u];
            }
        } else {
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) v[i] = q + i < wb ? p[(q + i) * s] : E(0);
        }
        A run = Op::identity();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (q + i < wb) run = Op::combine(run, Op::lift(v[i]));
        acc = Op::combine(acc, warp_reduce_ordered<Op>(run, lane));  // lane 0's is the fold
    }
    if (lane == 0) sh[warp] = acc;
    __syncthreads();
    if (warp != 0) return;
    acc = lane < nw ? sh[lane] : Op::identity();
    acc = warp_reduce_ordered<Op>(acc, lane);
    if (lane == 0) static_cast<A*>(carry_v)[row * segs + seg] = acc;
}

/// One thread per lane L (= o * inner + i): scans elements [seg * seg_len, ...) of its lane
/// (x + offset(lanes, L) + r * s) into out[o * n * inner + r * inner + i]. mode 0: scan; 1: only
/// the total into carry[L * segs + seg]; 2: scan from carry[L * segs + seg].
template <class Op>
__device__ __forceinline__ void cum_cols(const void* xv, const Meta& lanes, i64 s, i64 n_lanes,
                                         i64 inner, i64 n, i64 seg_len, void* carry_v, int mode,
                                         void* outv) {
    typedef typename Op::In E;
    typedef typename Op::A A;
    const i64 L = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (L >= n_lanes) return;
    const i64 seg = blockIdx.y, segs = gridDim.y;
    const E* p = static_cast<const E*>(xv) + strided_offset(lanes, L);
    E* o = static_cast<E*>(outv) + (L / inner) * n * inner + (L % inner);
    A* carry_buf = static_cast<A*>(carry_v);
    const i64 r0 = seg * seg_len;
    const i64 r1 = r0 + seg_len < n ? r0 + seg_len : n;
    A acc = mode == 2 ? carry_buf[L * segs + seg] : Op::identity();
    if (mode == 1) {
#pragma unroll 4
        for (i64 r = r0; r < r1; ++r) acc = Op::combine(acc, Op::lift(p[r * s]));
        carry_buf[L * segs + seg] = acc;
        return;
    }
#pragma unroll 4
    for (i64 r = r0; r < r1; ++r) {
        acc = Op::combine(acc, Op::lift(p[r * s]));
        o[r * inner] = Op::store(acc);
    }
}

/// carry[L * segs + k] = fold of the totals of segments < k (in place; a warp per lane).
template <class Op>
__device__ __forceinline__ void cum_carry(void* carry_v, i64 n_lanes, i64 segs) {
    typedef typename Op::A A;
    const i64 L = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (L >= n_lanes) return;  // the whole warp
    A* c = static_cast<A*>(carry_v) + L * segs;
    A run = Op::identity();
    for (i64 k0 = 0; k0 < segs; k0 += 32) {
        const i64 k = k0 + lane;
        const A total = k < segs ? c[k] : Op::identity();
        const A inc = warp_scan<Op>(total, lane);
        A excl = shfl_up(inc, 1);
        if (lane == 0) excl = Op::identity();
        if (k < segs) c[k] = Op::combine(run, excl);
        run = Op::combine(run, shfl_idx(inc, 31));
    }
}

}  // namespace red

// ------------------------------------------------------------------------------------------------
// Entry points
// ------------------------------------------------------------------------------------------------

#define BURN_REDUCE_DIM_KERNELS(NAME, OP, SUF)                                                    \
    extern "C" __global__ void reduce_rows_##NAME##_##SUF(                                        \
        const void* x, Meta lanes, i64 s, i64 n_rows, i64 R, i64 chunk, int group, void* partial, \
        void* out, void* out2, int mode) {                                                        \
        red::rows<OP>(x, lanes, s, n_rows, R, chunk, group, partial, out, out2, mode);            \
    }                                                                                             \
    extern "C" __global__ void reduce_cols_##NAME##_##SUF(                                        \
        const void* x, Meta lanes, i64 s, i64 n_out, i64 R, i64 chunk, void* partial, void* out,  \
        void* out2, int mode) {                                                                   \
        red::cols<OP>(x, lanes, s, n_out, R, chunk, partial, out, out2, mode);                    \
    }                                                                                             \
    extern "C" __global__ void reduce_combine_##NAME##_##SUF(                                     \
        const void* partial, i64 n_out, i64 splits, i64 count, void* out, void* out2, int mode) { \
        red::combine<OP>(partial, n_out, splits, count, out, out2, mode);                         \
    }

#define BURN_REDUCE_ALL_KERNELS(NAME, OP, SUF)                                                   \
    extern "C" __global__ void reduce_all_partial_##NAME##_##SUF(const void* x, Meta m, i64 n,   \
                                                                 i64 per_block, void* partial) { \
        red::all_partial<OP>(x, m, n, per_block, partial);                                       \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(1024) reduce_all_final_##NAME##_##SUF(          \
        const void* partial, i64 np, i64 count, int mode, void* out) {                           \
        red::all_final<OP>(partial, np, count, mode, out);                                       \
    }                                                                                            \
    BURN_REDUCE_DIM_KERNELS(NAME, OP, SUF)

#define BURN_ARG_OP(T, MAX) red::OpArg<T, MAX>
#define BURN_REDUCE_NUMERIC(T, SUF)                            \
    BURN_REDUCE_ALL_KERNELS(sum, red::OpSum<T>, SUF)           \
    BURN_REDUCE_ALL_KERNELS(prod, red::OpProd<T>, SUF)         \
    BURN_REDUCE_ALL_KERNELS(max, red::OpMax<T>, SUF)           \
    BURN_REDUCE_ALL_KERNELS(min, red::OpMin<T>, SUF)           \
    BURN_REDUCE_DIM_KERNELS(argmax, BURN_ARG_OP(T, true), SUF) \
    BURN_REDUCE_DIM_KERNELS(argmin, BURN_ARG_OP(T, false), SUF)

BURN_FOR_NUMBERS(BURN_REDUCE_NUMERIC)
/// f16 / bf16: sum, prod, max, min (read as f32; sums and products accumulate in f64).
#define BURN_REDUCE_HALF(T, SUF)                       \
    BURN_REDUCE_ALL_KERNELS(sum, red::OpSum<T>, SUF)   \
    BURN_REDUCE_ALL_KERNELS(prod, red::OpProd<T>, SUF) \
    BURN_REDUCE_ALL_KERNELS(max, red::OpMax<T>, SUF)   \
    BURN_REDUCE_ALL_KERNELS(min, red::OpMin<T>, SUF)
BURN_FOR_HALVES(BURN_REDUCE_HALF)
BURN_REDUCE_ALL_KERNELS(any, red::OpAnyAll<false>, bool)
BURN_REDUCE_ALL_KERNELS(all, red::OpAnyAll<true>, bool)

#define BURN_CUM_KERNELS(NAME, OP, SUF)                                                            \
    extern "C" __global__ void cum_rows_##NAME##_##SUF(                                            \
        const void* x, Meta lanes, i64 s, i64 n, i64 seg_len, void* carry, int mode, void* out) {  \
        red::cum_rows<OP>(x, lanes, s, n, seg_len, carry, mode, out);                              \
    }                                                                                              \
    extern "C" __global__ void cum_cols_##NAME##_##SUF(const void* x, Meta lanes, i64 s,           \
                                                       i64 n_lanes, i64 inner, i64 n, i64 seg_len, \
                                                       void* carry, int mode, void* out) {         \
        red::cum_cols<OP>(x, lanes, s, n_lanes, inner, n, seg_len, carry, mode, out);              \
    }                                                                                              \
    extern "C" __global__ void cum_total_##NAME##_##SUF(const void* x, Meta lanes, i64 s, i64 n,   \
                                                        i64 seg_len, void* carry) {                \
        red::cum_total<OP>(x, lanes, s, n, seg_len, carry);                                        \
    }                                                                                              \
    extern "C" __global__ void cum_carry_##NAME##_##SUF(void* carry, i64 n_lanes, i64 segs) {      \
        red::cum_carry<OP>(carry, n_lanes, segs);                                                  \
    }

#define BURN_CUM_EXT(T, MAX) red::CumExt<T, MAX>
#define BURN_CUM_NUMERIC(T, SUF)                      \
    BURN_CUM_KERNELS(sum, red::CumSum<T>, SUF)        \
    BURN_CUM_KERNELS(prod, red::CumProd<T>, SUF)      \
    BURN_CUM_KERNELS(max, BURN_CUM_EXT(T, true), SUF) \
    BURN_CUM_KERNELS(min, BURN_CUM_EXT(T, false), SUF)

BURN_FOR_NUMBERS(BURN_CUM_NUMERIC)

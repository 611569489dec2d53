// SPDX-License-Identifier: MIT OR Apache-2.0
// Stable sort / argsort along one dim (backends/cuda/src/ops_sort.cpp launches them).
//
// Every element becomes an unsigned key whose order is the wanted order, as the CPU backend's
// (backends/cpu/src/sort.cpp): floats sign-magnitude flipped, -0.0 folded onto +0.0, every NaN
// above +inf; signed ints sign bit flipped; descending: all bits inverted (NaN first then). A row
// of n elements is sorted as (key, original position) pairs: a total order, hence stable.
//  - sort_small: rows with P = bit_ceil(n) <= one tile (4096 pairs for 32-bit keys, 2048 for
//    64-bit ones): a block loads a tile of whole rows from the input view, padded with (max key,
//    position >= n) after every real element, sorts them with a bitonic network in shared memory
//    and writes the outputs.
//  - longer rows: radix_keys writes the pairs to global memory, an LSD radix sort (8 bits a pass,
//    stable, starting from the positions in order) orders them, sort_out writes the outputs.
// Values are read back from the input through the sorted positions (bit-exact).
#include "index.cuh"

template <class T>
struct KeyOf;
template <>
struct KeyOf<float> {
    typedef u32 type;
};
template <>
struct KeyOf<double> {
    typedef u64 type;
};
template <>
struct KeyOf<i32> {
    typedef u32 type;
};
template <>
struct KeyOf<i64> {
    typedef u64 type;
};
template <>
struct KeyOf<u8> {
    typedef u32 type;
};

__device__ __forceinline__ u32 sort_key(float v) {
    if (v != v) return 0xffffffffu;
    u32 b = __float_as_uint(v);
    if (b == 0x80000000u) b = 0;
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ __forceinline__ u64 sort_key(double v) {
    if (v != v) return ~0ull;
    u64 b = (u64)__double_as_longlong(v);
    if (b == 0x8000000000000000ull) b = 0;
    return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
__device__ __forceinline__ u32 sort_key(i32 v) { return (u32)v ^ 0x80000000u; }
__device__ __forceinline__ u64 sort_key(i64 v) { return (u64)v ^ 0x8000000000000000ull; }
__device__ __forceinline__ u32 sort_key(u8 v) { return (u32)v; }

__device__ __forceinline__ i64 imin_sort(i64 a, i64 b) { return a < b ? a : b; }

/// Orders slots i < l: ascending (asc) or descending by (key, id).
template <class K>
__device__ __forceinline__ void cswap(K* keys, u32* ids, u64 i, u64 l, bool asc) {
    const K ka = keys[i], kb = keys[l];
    const u32 ia = ids[i], ib = ids[l];
    const bool after = ka > kb || (ka == kb && ia > ib);
    if (after == asc) {
        keys[i] = kb;
        keys[l] = ka;
        ids[i] = ib;
        ids[l] = ia;
    }
}

/// The bitonic stages k_lo..k_hi (powers of two) over a shared-memory tile of 2^log_tile slots,
/// steps of distance < tile only. Slot i is at position (g0 + i) & pos_mask of its row (the
/// direction of a block of k slots depends on it).
template <class K>
__device__ __forceinline__ void bitonic_tile(K* keys, u32* ids, u32 log_tile, u64 g0, u64 pos_mask,
                                             u64 k_lo, u64 k_hi) {
    const u32 half = 1u << (log_tile - 1);
    for (u64 k = k_lo; k <= k_hi; k <<= 1) {
        for (u32 j = (u32)(k >> 1 < half ? k >> 1 : half); j > 0; j >>= 1) {
            for (u32 p = threadIdx.x; p < half; p += blockDim.x) {
                const u32 i = 2 * p - (p & (j - 1));
                const bool asc = (((g0 + i) & pos_mask) & k) == 0;
                cswap(keys, ids, i, i + j, asc);
            }
            __syncthreads();
        }
    }
}

/// Rows: row r of the input is at rd(r) (the dims but the sorted one); its element `pos` at
/// + pos * t_step. The dense outputs hold it at (r / inner) * n * inner + pos * inner + r % inner.
__device__ __forceinline__ i64 out_offset(i64 row, i64 pos, i64 n, i64 inner) {
    if (inner == 1) return row * n + pos;
    const i64 q = row / inner;
    return q * n * inner + pos * inner + (row - q * inner);
}

template <class T>
__device__ __forceinline__ void write_out(const T* t, i64 t_row, i64 t_step, i64 o, u32 id,
                                          T* values, void* indices, int idx64) {
    if (idx64) ((i64*)indices)[o] = (i64)id;
    else ((i32*)indices)[o] = (i32)id;
    if (values) values[o] = t[t_row + (i64)id * t_step];
}

/// Rows of P = 2^log_p <= tile slots: each tile holds 2^(log_tile - log_p) whole rows. When the
/// sorted dim is not the innermost, neighbouring rows are neighbours in memory: the tile is then
/// loaded and stored position-major (coalesced).
template <class T>
__device__ __forceinline__ void sort_small_impl(const T* t, const Dims<1>& rd, i64 rows, i64 n,
                                                i64 t_step, i64 inner, u32 log_p, u32 log_tile,
                                                int desc, T* values, void* indices, int idx64,
                                                int small) {
    typedef typename KeyOf<T>::type K;
    extern __shared__ __align__(16) unsigned char smem[];
    const u32 tile = 1u << log_tile;
    K* keys = (K*)smem;
    u32* ids = (u32*)(smem + (u64)tile * sizeof(K));
    const u32 log_r = log_tile - log_p;
    const u32 R = 1u << log_r, P = 1u << log_p;
    const K flip = desc ? (K) ~(K)0 : (K)0;
    const bool across = inner > 1 && R > 1;
    for (i64 row0 = (i64)blockIdx.x * R; row0 < rows; row0 += (i64)gridDim.x * R) {
        for (u32 i = threadIdx.x; i < tile; i += blockDim.x) {
            const u32 rl = across ? (i & (R - 1)) : (i >> log_p);
            const u32 pos = across ? (i >> log_r) : (i & (P - 1));
            const i64 row = row0 + rl;
            const u32 slot = (rl << log_p) + pos;
            K key = (K) ~(K)0;
            if (row < rows && pos < n) {
                i64 off[1];
                dims_offsets_any(rd, row, small, off);
                key = sort_key(t[off[0] + (i64)pos * t_step]) ^ flip;
            }
            keys[slot] = key;
            ids[slot] = pos;
        }
        __syncthreads();
        bitonic_tile(keys, ids, log_tile, 0, (u64)P - 1, 2, P);
        for (u32 i = threadIdx.x; i < tile; i += blockDim.x) {
            const u32 rl = across ? (i & (R - 1)) : (i >> log_p);
            const u32 pos = across ? (i >> log_r) : (i & (P - 1));
            const i64 row = row0 + rl;
            if (row < rows && pos < n) {
                i64 off[1];
                dims_offsets_any(rd, row, small, off);
                write_out(t, off[0], t_step, out_offset(row, pos, n, inner),
                          ids[(rl << log_p) + pos], values, indices, idx64);
            }
        }
        __syncthreads();
    }
}

/// Long rows: the (key, position) pairs of every row, n per row, in global memory.
template <class T>
__device__ __forceinline__ void radix_keys_impl(const T* t, const Dims<1>& rd, i64 rows, i64 n,
                                                i64 t_step, int desc, typename KeyOf<T>::type* keys,
                                                u32* ids, int small) {
    typedef typename KeyOf<T>::type K;
    const K flip = desc ? (K) ~(K)0 : (K)0;
    BURN_GRID_LOOP(g, rows * n) {
        const i64 row = g / n, pos = g - row * n;
        i64 off[1];
        dims_offsets_any(rd, row, small, off);
        keys[g] = sort_key(t[off[0] + pos * t_step]) ^ flip;
        ids[g] = (u32)pos;
    }
}

/// The outputs from the sorted positions (ids, n per row).
template <class T>
__device__ __forceinline__ void sort_out_impl(const T* t, const Dims<1>& rd, i64 rows, i64 n,
                                              i64 t_step, i64 inner, const u32* ids, T* values,
                                              void* indices, int idx64, int small) {
    BURN_GRID_LOOP(g, rows * n) {
        const i64 row = g / n, pos = g - row * n;
        i64 off[1];
        dims_offsets_any(rd, row, small, off);
        write_out(t, off[0], t_step, out_offset(row, pos, n, inner), ids[g], values, indices,
                  idx64);
    }
}

// ---- LSD radix sort of long rows, 8 bits a pass ------------------------------------------------
// Each row is cut into chunks (RadixItems x 256 elements), one block each (block = row * bpr +
// chunk). radix_hist counts the digits of each chunk into hist[(row * 256 + digit) * bpr +
// chunk]; radix_scan turns each (row, digit)'s counts into exclusive offsets among the digit's
// elements and the digit's total; radix_scatter adds the totals of the smaller digits and moves
// the pairs there, each chunk in its order (stable).

#define RADIX_THREADS 256
#define RADIX_WARPS (RADIX_THREADS / 32)

/// Elements per chunk: 4096 for 32-bit keys, 2048 for 64-bit ones (the chunk is staged in
/// shared memory by radix_scatter; the host's kRadixChunk).
template <class K>
struct RadixItems {
    static const int value = sizeof(K) == 8 ? 8 : 16;
};

__device__ __forceinline__ u32 radix_digit(u32 k, u32 shift) { return (k >> shift) & 0xffu; }
__device__ __forceinline__ u32 radix_digit(u64 k, u32 shift) { return (u32)(k >> shift) & 0xffu; }

/// The exclusive prefix of v over the block's RADIX_THREADS threads (`scratch`: RADIX_WARPS
/// words); *total gets the sum. Every thread of the block calls it.
__device__ __forceinline__ u32 block_exclusive_scan(u32 v, u32* scratch, u32* total) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u32 x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const u32 y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= (u32)o) x += y;
    }
    __syncthreads();
    if (lane == 31) scratch[warp] = x;
    __syncthreads();
    u32 before = 0, sum = 0;
#pragma unroll
    for (u32 w = 0; w < RADIX_WARPS; ++w) {
        const u32 c = scratch[w];
        before += w < warp ? c : 0;
        sum += c;
    }
    *total = sum;
    return before + x - v;
}

template <class K>
__device__ __forceinline__ void radix_hist_impl(const K* keys, i64 n, i64 bpr, u32 shift,
                                                u32* hist) {
    const i64 chunk = (i64)RADIX_THREADS * RadixItems<K>::value;
    __shared__ u32 h[256];
    const i64 row = blockIdx.x / bpr, b = blockIdx.x - row * bpr;
    h[threadIdx.x] = 0;
    __syncthreads();
    const K* k = keys + row * n;
    const i64 end = imin_sort(n, (b + 1) * chunk);
    for (i64 i = b * chunk + threadIdx.x; i < end; i += RADIX_THREADS)
        atomicAdd(&h[radix_digit(k[i], shift)], 1u);
    __syncthreads();
    hist[(row * 256 + threadIdx.x) * bpr + b] = h[threadIdx.x];
}

/// Moves the chunk's pairs to their places for this pass: ranks them stably by digit (warp
/// matches, per-warp counts), stages them in shared memory in that order, then writes each
/// digit's run of the chunk contiguously (coalesced).
template <class K>
__device__ __forceinline__ void radix_scatter_impl(const K* kin, const u32* iin, K* kout, u32* iout,
                                                   i64 n, i64 bpr, u32 shift, const u32* offsets,
                                                   const u32* totals) {
    const int items = RadixItems<K>::value;
    const i64 chunk = (i64)RADIX_THREADS * items;
    __shared__ K skeys[RADIX_THREADS * RadixItems<K>::value];
    __shared__ u32 sids[RADIX_THREADS * RadixItems<K>::value];
    __shared__ u32 wcount[RADIX_WARPS][256];
    __shared__ u32 base[256];    // where the chunk's elements of each digit go in the row
    __shared__ u32 cstart[256];  // where each digit's elements start in the staged chunk
    __shared__ u32 run[256];     // the chunk's elements of each digit staged so far
    __shared__ u32 scratch[RADIX_WARPS];
    const i64 row = blockIdx.x / bpr, b = blockIdx.x - row * bpr;
    const u32 tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const K* ki = kin + row * n;
    const u32* ii = iin + row * n;
    const i64 start = b * chunk;
    const i64 count = imin_sort(n - start, chunk);
    u32 total;
    const u32 digit_start = block_exclusive_scan(totals[row * 256 + tid], scratch, &total);
    base[tid] = digit_start + offsets[(row * 256 + tid) * bpr + b];
    run[tid] = 0;
    __syncthreads();
    for (i64 i = tid; i < count; i += RADIX_THREADS)
        atomicAdd(&run[radix_digit(ki[start + i], shift)], 1u);
    __syncthreads();
    cstart[tid] = block_exclusive_scan(run[tid], scratch, &total);
    __syncthreads();
    run[tid] = 0;
    for (int it = 0; it < items; ++it) {
        const i64 first = (i64)it * RADIX_THREADS;
        if (first >= count) break;  // the same for the whole block
#pragma unroll
        for (int w = 0; w < RADIX_WARPS; ++w) wcount[w][tid] = 0;
        __syncthreads();
        const i64 i = first + tid;
        const bool valid = i < count;
        K key = 0;
        u32 d = 256 + lane;  // invalid lanes match nobody
        if (valid) {
            key = ki[start + i];
            d = radix_digit(key, shift);
        }
        const u32 peers = __match_any_sync(0xffffffffu, d);
        const u32 rank = (u32)__popc(peers & ((1u << lane) - 1u));
        if (valid && rank == 0) wcount[warp][d] = (u32)__popc(peers);
        __syncthreads();
        u32 round = 0;  // this round's count of digit tid; wcount becomes the warps' prefixes
#pragma unroll
        for (int w = 0; w < RADIX_WARPS; ++w) {
            const u32 c = wcount[w][tid];
            wcount[w][tid] = round;
            round += c;
        }
        __syncthreads();
        if (valid) {
            const u32 slot = cstart[d] + run[d] + wcount[warp][d] + rank;
            skeys[slot] = key;
            sids[slot] = ii[start + i];
        }
        __syncthreads();
        run[tid] += round;
    }
    __syncthreads();
    K* ko = kout + row * n;
    u32* io = iout + row * n;
    for (i64 i = tid; i < count; i += RADIX_THREADS) {
        const K key = skeys[i];
        const u32 d = radix_digit(key, shift);
        const i64 pos = (i64)base[d] + (i - (i64)cstart[d]);
        ko[pos] = key;
        io[pos] = sids[i];
    }
}

#define BURN_SORT(T, S)                                                                            \
    extern "C" __global__ void sort_small_##S(const T* t, Dims<1> rd, i64 rows, i64 n, i64 t_step, \
                                              i64 inner, u32 log_p, u32 log_tile, int desc,        \
                                              T* values, void* indices, int idx64, int small) {    \
        sort_small_impl<T>(t, rd, rows, n, t_step, inner, log_p, log_tile, desc, values, indices,  \
                           idx64, small);                                                          \
    }                                                                                              \
    extern "C" __global__ void radix_keys_##S(const T* t, Dims<1> rd, i64 rows, i64 n, i64 t_step, \
                                              int desc, KeyOf<T>::type* keys, u32* ids,            \
                                              int small) {                                         \
        radix_keys_impl<T>(t, rd, rows, n, t_step, desc, keys, ids, small);                        \
    }                                                                                              \
    extern "C" __global__ void sort_out_##S(const T* t, Dims<1> rd, i64 rows, i64 n, i64 t_step,   \
                                            i64 inner, const u32* ids, T* values, void* indices,   \
                                            int idx64, int small) {                                \
        sort_out_impl<T>(t, rd, rows, n, t_step, inner, ids, values, indices, idx64, small);       \
    }
BURN_FOR_ALL(BURN_SORT)

#define BURN_RADIX(K, S)                                                                           \
    extern "C" __global__ void radix_hist_##S(const K* keys, i64 n, i64 bpr, u32 shift,            \
                                              u32* hist) {                                         \
        radix_hist_impl<K>(keys, n, bpr, shift, hist);                                             \
    }                                                                                              \
    extern "C" __global__ void radix_scatter_##S(const K* kin, const u32* iin, K* kout, u32* iout, \
                                                 i64 n, i64 bpr, u32 shift, const u32* offsets,    \
                                                 const u32* totals) {                              \
        radix_scatter_impl<K>(kin, iin, kout, iout, n, bpr, shift, offsets, totals);               \
    }
BURN_RADIX(u32, k32)
BURN_RADIX(u64, k64)

/// For each (row, digit) group of `bpr` chunk counts (one warp each): the exclusive scan in
/// place (where each chunk's elements of the digit start among the digit's) and the total.
extern "C" __global__ void radix_scan(u32* hist, u32* totals, i64 groups, i64 bpr) {
    const u32 lane = threadIdx.x & 31;
    const i64 per = (bpr + 31) / 32;  // counts per lane, a contiguous run
    for (i64 g = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; g < groups;
         g += ((i64)gridDim.x * blockDim.x) >> 5) {
        u32* h = hist + g * bpr;
        const i64 lo = imin_sort(bpr, lane * per), hi = imin_sort(bpr, lo + per);
        u32 sum = 0;
        for (i64 i = lo; i < hi; ++i) sum += h[i];
        u32 x = sum;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const u32 y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= (u32)o) x += y;
        }
        u32 run = x - sum;
        for (i64 i = lo; i < hi; ++i) {
            const u32 c = h[i];
            h[i] = run;
            run += c;
        }
        if (lane == 31) totals[g] = x;
    }
}

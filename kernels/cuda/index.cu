// SPDX-License-Identifier: MIT OR Apache-2.0
// Indexing kernels (backends/cuda/src/ops_index.cpp launches them): strided copies (slice_assign,
// cat, repeat_dim), gathers (gather, select, embedding), scatter-adds (scatter_add, select_add,
// embedding_backward) and argwhere. Sorting is sort.cu.
//
// Rows: the row kernels (copy, gather) walk an iteration as rows of its innermost dim. Rows of at
// least 32 elements go one warp per (row, segment of up to 1024 columns), so that the offsets of
// a row are computed once per segment; shorter rows go one thread per element.
//
// Scatter-adds never use float atomics (the CPU backend is deterministic):
//  - scatter_atomic (ints, bools): one thread per value, integer atomics (exact: the sum of ints
//    wrapping around does not depend on the order; bools or);
//  - scatter_direct (floats, index extent <= 32): one thread per column (a position of the values
//    with the indexed dim removed) adds its values in index order, as the CPU backend;
//  - segment_pieces / segment_merge (floats, longer index extents): the indices were sorted
//    (stable, so equal indices keep their order) by sort.cu; the sorted positions are cut into
//    pieces at every change of index and every multiple of PIECE positions. A segment (one index)
//    within one block of PIECE positions is added by one thread in index order, straight into
//    the output (the CPU's order of additions: the same bits); a segment spanning several blocks
//    is summed per piece (partial sums, fixed boundaries), then the pieces are added in order.
//    The result never depends on scheduling: deterministic.
#include "index.cuh"

#define SEG 1024
#define PIECE 64
#define AW_THREADS 256
#define AW_ITERS 16

__device__ __forceinline__ i64 imin(i64 a, i64 b) { return a < b ? a : b; }

/// Calls f(row, c0, c1, step) for the columns c0, c0 + step, .. < c1 of every row of a
/// rows x inner iteration: one warp per (row, segment of SEG columns) when rows are long, one
/// thread per element otherwise. The host sizes the grid with the same rule (row_threads).
template <class F>
__device__ __forceinline__ void for_rows(i64 rows, i64 inner, int small, F&& f) {
    if (inner >= 32) {
        const i64 segs = (inner + SEG - 1) / SEG;
        const i64 items = rows * segs;
        const i64 lane = threadIdx.x & 31;
        const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
        for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < items; w += nwarps) {
            const i64 row = segs == 1 ? w : w / segs;
            const i64 c0 = (w - row * segs) * SEG;
            f(row, c0 + lane, imin(inner, c0 + SEG), (i64)32);
        }
    } else {
        BURN_GRID_LOOP(i, rows * inner) {
            i64 row, c;
            if (small) {
                const u32 q = (u32)i / (u32)inner;
                row = q;
                c = (i64)((u32)i - q * (u32)inner);
            } else {
                row = i / inner;
                c = i - row * inner;
            }
            f(row, c, c + 1, (i64)1);
        }
    }
}

// ---- strided copy ------------------------------------------------------------------------------

/// dst[outer(row)[0] + c * dst_step] = src[outer(row)[1] + c * src_step] for every row of `outer`
/// and column c < inner.
template <class T>
__device__ __forceinline__ void copy_impl(T* dst, const T* src, const Dims<2>& outer, i64 rows,
                                          i64 inner, i64 dst_step, i64 src_step, int small) {
    for_rows(rows, inner, small, [&](i64 row, i64 c0, i64 c1, i64 step) {
        i64 off[2];
        dims_offsets_any(outer, row, small, off);
        T* d = dst + off[0];
        const T* s = src + off[1];
        if (dst_step == 1 && src_step == 1) {
#pragma unroll 4
            for (i64 c = c0; c < c1; c += step) d[c] = s[c];
        } else {
#pragma unroll 4
            for (i64 c = c0; c < c1; c += step) d[c * dst_step] = s[c * src_step];
        }
    });
}

#define BURN_COPY(T, S)                                                                           \
    extern "C" __global__ void copy_##S(T* dst, const T* src, Dims<2> outer, i64 rows, i64 inner, \
                                        i64 dst_step, i64 src_step, int small) {                  \
        copy_impl<T>(dst, src, outer, rows, inner, dst_step, src_step, small);                    \
    }
BURN_FOR_ALL(BURN_COPY)
BURN_COPY(i8, i8)
BURN_COPY(i16, i16)    // f16 / bf16
BURN_COPY(uint4, v16)  // dense rows moved 16 bytes at a time (the host rescales the strides)

// ---- gather / select / embedding ---------------------------------------------------------------

/// out (dense, rows x inner) at (row, c) = t[rd(row)[0] + c * t_last + k * dim_stride] with
/// k = idx[rd(row)[1] + c * i_last]; an index outside [0, size) is reported and gives 0.
template <class T>
__device__ __forceinline__ void gather_impl(T* out, const T* t, const void* idx, int idx64,
                                            const Dims<2>& rd, i64 rows, i64 inner, i64 t_last,
                                            i64 i_last, i64 dim_stride, i64 size, int small,
                                            u32* err, u32 tag) {
    for_rows(rows, inner, small, [&](i64 row, i64 c0, i64 c1, i64 step) {
        i64 off[2];
        dims_offsets_any(rd, row, small, off);
        T* o = out + row * inner;
        for (i64 c = c0; c < c1; c += step) {
            const i64 k = load_index(idx, off[1] + c * i_last, idx64);
            T v = T(0);
            if ((u64)k < (u64)size) v = t[off[0] + c * t_last + k * dim_stride];
            else burn_report_error(err, tag, BURN_ERR_INDEX);
            o[c] = v;
        }
    });
}

#define BURN_GATHER(T, S)                                                                     \
    extern "C" __global__ void gather_##S(                                                    \
        T* out, const T* t, const void* idx, int idx64, Dims<2> rd, i64 rows, i64 inner,      \
        i64 t_last, i64 i_last, i64 dim_stride, i64 size, int small, u32* err, u32 tag) {     \
        gather_impl<T>(out, t, idx, idx64, rd, rows, inner, t_last, i_last, dim_stride, size, \
                       small, err, tag);                                                      \
    }
BURN_FOR_ALL(BURN_GATHER)
BURN_GATHER(i16, i16)  // f16 / bf16 (moved as bits)

// ---- scatter-adds ------------------------------------------------------------------------------
// A scatter is `ncols` columns (positions of the values with the indexed dim removed; `cols`
// holds their offsets: [0] into out, [1] into the indices, [2] into the values) of K values each:
// out[col[0] + k * o_dim] += values[col[2] + j * v_dim] with k = idx[col[1] + j * i_dim], for
// j < K. Distinct columns never write the same output element.

__device__ __forceinline__ void atomic_acc(i32* p, i32 v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_acc(i64* p, i64 v) {
    atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ void atomic_acc(u8* p, u8 v) {
    if (!v) return;
    const u64 a = (u64)p;
    atomicOr((u32*)(a & ~(u64)3), (u32)v << (8 * (u32)(a & 3)));
}

/// Ints and bools: one thread per value (position j of column col), atomics.
template <class T>
__device__ __forceinline__ void scatter_atomic_impl(T* out, const void* idx, int idx64,
                                                    const T* vals, const Dims<3>& cols, i64 ncols,
                                                    i64 K, i64 o_dim, i64 i_dim, i64 v_dim,
                                                    i64 size, int small, u32* err, u32 tag) {
    BURN_GRID_LOOP(w, K * ncols) {
        i64 j, col;
        if (small) {
            const u32 q = (u32)w / (u32)ncols;
            j = q;
            col = (i64)((u32)w - q * (u32)ncols);
        } else {
            j = w / ncols;
            col = w - j * ncols;
        }
        i64 off[3];
        dims_offsets_any(cols, col, small, off);
        const i64 k = load_index(idx, off[1] + j * i_dim, idx64);
        if ((u64)k >= (u64)size) {
            burn_report_error(err, tag, BURN_ERR_INDEX);
            continue;
        }
        atomic_acc(out + off[0] + k * o_dim, vals[off[2] + j * v_dim]);
    }
}

#define BURN_SCATTER_ATOMIC(T, S)                                                                \
    extern "C" __global__ void scatter_atomic_##S(                                               \
        T* out, const void* idx, int idx64, const T* vals, Dims<3> cols, i64 ncols, i64 K,       \
        i64 o_dim, i64 i_dim, i64 v_dim, i64 size, int small, u32* err, u32 tag) {               \
        scatter_atomic_impl<T>(out, idx, idx64, vals, cols, ncols, K, o_dim, i_dim, v_dim, size, \
                               small, err, tag);                                                 \
    }
BURN_FOR_INTS(BURN_SCATTER_ATOMIC)
BURN_SCATTER_ATOMIC(u8, bool)

/// Floats, short index extents: one thread per column adds its K values in index order.
template <class T>
__device__ __forceinline__ void scatter_direct_impl(T* out, const void* idx, int idx64,
                                                    const T* vals, const Dims<3>& cols, i64 ncols,
                                                    i64 K, i64 o_dim, i64 i_dim, i64 v_dim,
                                                    i64 size, int small, u32* err, u32 tag) {
    BURN_GRID_LOOP(col, ncols) {
        i64 off[3];
        dims_offsets_any(cols, col, small, off);
        for (i64 j = 0; j < K; ++j) {
            const i64 k = load_index(idx, off[1] + j * i_dim, idx64);
            if ((u64)k >= (u64)size) {
                burn_report_error(err, tag, BURN_ERR_INDEX);
                continue;
            }
            T* o = out + off[0] + k * o_dim;
            *o = acc_add(*o, vals[off[2] + j * v_dim]);
        }
    }
}

#define BURN_SCATTER_DIRECT(T, S)                                                                \
    extern "C" __global__ void scatter_direct_##S(                                               \
        T* out, const void* idx, int idx64, const T* vals, Dims<3> cols, i64 ncols, i64 K,       \
        i64 o_dim, i64 i_dim, i64 v_dim, i64 size, int small, u32* err, u32 tag) {               \
        scatter_direct_impl<T>(out, idx, idx64, vals, cols, ncols, K, o_dim, i_dim, v_dim, size, \
                               small, err, tag);                                                 \
    }
BURN_FOR_FLOATS(BURN_SCATTER_DIRECT)

/// The indices of a segmented scatter as dense i32 sort keys [S, K] (row s: the indices of column
/// s, or the one shared list when S == 1); an index outside [0, size) is reported and becomes
/// `size` (skipped by the segment kernels), so that every key lies in [0, size].
extern "C" __global__ void index_keys(const void* idx, int idx64, Dims<1> cols, i64 S, i64 K,
                                      i64 i_dim, i64 size, i32* out, int small, u32* err, u32 tag) {
    BURN_GRID_LOOP(g, S * K) {
        i64 sr, r;
        if (small) {
            const u32 q = (u32)g / (u32)K;
            sr = q;
            r = (i64)((u32)g - q * (u32)K);
        } else {
            sr = g / K;
            r = g - sr * K;
        }
        i64 off[1];
        dims_offsets_any(cols, sr, small, off);
        const i64 k = load_index(idx, off[0] + r * i_dim, idx64);
        i32 key = (i32)size;
        if ((u64)k < (u64)size) key = (i32)k;
        else burn_report_error(err, tag, BURN_ERR_INDEX);
        out[g] = key;
    }
}

/// Reports an index of the view `m` outside [0, size) (ops whose output is empty still check
/// their indices, as the CPU backend).
extern "C" __global__ void index_check(const void* idx, int idx64, Meta m, i64 n, i64 size,
                                       u32* err, u32 tag) {
    BURN_GRID_LOOP(i, n) {
        if ((u64)load_index(idx, strided_offset(m, i), idx64) >= (u64)size) {
            burn_report_error(err, tag, BURN_ERR_INDEX);
            return;
        }
    }
}

/// The sorted indices of the segmented scatter: keys (index values, ascending, equal ones in
/// their original order) and perm (their original positions j), `K` per sorted row. With
/// per_row, column col has its own sorted row (scatter_add: indices per column); otherwise every
/// column shares row 0 (select_add, embedding_backward: one index list).
struct Sorted {
    const void* keys;
    const void* perm;
    int key64;
    int perm64;
    int per_row;
    int pad_;
};

/// The first position in [lo, hi) of row `base` whose key is above `key` (hi when none).
__device__ __forceinline__ i64 upper_bound(const Sorted& s, i64 base, i64 lo, i64 hi, i64 key) {
    while (lo < hi) {
        const i64 mid = lo + ((hi - lo) >> 1);
        if (load_index(s.keys, base + mid, s.key64) <= key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/// Decomposes work item w of a K x ncols iteration into (sorted position r, column): positions
/// fastest when every column has its own sorted row (its keys are then read in order), columns
/// fastest when they share one (the values of neighbouring columns are then neighbours).
__device__ __forceinline__ void split_item(i64 w, i64 K, i64 ncols, int per_row, int small, i64& r,
                                           i64& col) {
    const i64 inner = per_row ? K : ncols;
    i64 q, m;
    if (small) {
        const u32 q32 = (u32)w / (u32)inner;
        q = q32;
        m = (i64)((u32)w - q32 * (u32)inner);
    } else {
        q = w / inner;
        m = w - q * inner;
    }
    if (per_row) {
        col = q;
        r = m;
    } else {
        r = q;
        col = m;
    }
}

/// Pass 1: one thread per (piece start r, column). A piece within one segment and block adds
/// into the output; other pieces write their partial sum: partial[(m * 2 + 1) * ncols + col] for
/// the piece that starts a segment in block m (and goes on after it), partial[(m * 2) * ncols +
/// col] for the piece that continues a segment at the start of block m.
template <class T>
__device__ __forceinline__ void segment_pieces_impl(T* out, const T* vals, const Dims<2>& cols,
                                                    i64 ncols, i64 K, i64 o_dim, i64 v_dim,
                                                    i64 size, const Sorted& s, T* partial,
                                                    int small, u32* err, u32 tag) {
    BURN_GRID_LOOP(w, K * ncols) {
        i64 r, col;
        split_item(w, K, ncols, s.per_row, small, r, col);
        const i64 base = s.per_row ? col * K : 0;
        const i64 key = load_index(s.keys, base + r, s.key64);
        const bool head = r == 0 || load_index(s.keys, base + r - 1, s.key64) != key;
        if (!head && r % PIECE != 0) continue;
        const i64 block_end = imin(K, (r / PIECE + 1) * PIECE);
        const i64 e = upper_bound(s, base, r + 1, block_end, key);
        if ((u64)key >= (u64)size) {
            if (head) burn_report_error(err, tag, BURN_ERR_INDEX);
            continue;
        }
        const bool whole =
            head && (e < block_end || e == K || load_index(s.keys, base + e, s.key64) != key);
        i64 off[2];
        dims_offsets_any(cols, col, small, off);
        const T* v = vals + off[1];
        if (whole) {
            T* o = out + off[0] + key * o_dim;
            T acc = *o;
#pragma unroll 4
            for (i64 q = r; q < e; ++q)
                acc = acc_add(acc, v[load_index(s.perm, base + q, s.perm64) * v_dim]);
            *o = acc;
        } else {
            T acc = v[load_index(s.perm, base + r, s.perm64) * v_dim];
#pragma unroll 4
            for (i64 q = r + 1; q < e; ++q)
                acc = acc_add(acc, v[load_index(s.perm, base + q, s.perm64) * v_dim]);
            partial[((r / PIECE) * 2 + (head ? 1 : 0)) * ncols + col] = acc;
        }
    }
}

/// Pass 2: one thread per (segment spanning several blocks, column) adds the output element, the
/// partial sum of its first block and those of the blocks it continues into, in order.
template <class T>
__device__ __forceinline__ void segment_merge_impl(T* out, const Dims<2>& cols, i64 ncols, i64 K,
                                                   i64 o_dim, i64 size, const Sorted& s,
                                                   const T* partial, int small) {
    BURN_GRID_LOOP(w, K * ncols) {
        i64 r, col;
        split_item(w, K, ncols, s.per_row, small, r, col);
        const i64 base = s.per_row ? col * K : 0;
        const i64 block_end = (r / PIECE + 1) * PIECE;
        if (block_end >= K) continue;
        const i64 key = load_index(s.keys, base + r, s.key64);
        if (load_index(s.keys, base + block_end, s.key64) != key) continue;
        if (r > 0 && load_index(s.keys, base + r - 1, s.key64) == key) continue;  // not a head
        if ((u64)key >= (u64)size) continue;  // reported by pass 1
        const i64 e = upper_bound(s, base, block_end + 1, K, key);
        const i64 m0 = r / PIECE, m1 = (e - 1) / PIECE;
        i64 off[2];
        dims_offsets_any(cols, col, small, off);
        T* o = out + off[0] + key * o_dim;
        T acc = acc_add(*o, partial[(m0 * 2 + 1) * ncols + col]);
#pragma unroll 4
        for (i64 m = m0 + 1; m <= m1; ++m) acc = acc_add(acc, partial[(m * 2) * ncols + col]);
        *o = acc;
    }
}

#define BURN_SEGMENT(T, S)                                                                         \
    extern "C" __global__ void segment_pieces_##S(T* out, const T* vals, Dims<2> cols, i64 ncols,  \
                                                  i64 K, i64 o_dim, i64 v_dim, i64 size, Sorted s, \
                                                  T* partial, int small, u32* err, u32 tag) {      \
        segment_pieces_impl<T>(out, vals, cols, ncols, K, o_dim, v_dim, size, s, partial, small,   \
                               err, tag);                                                          \
    }                                                                                              \
    extern "C" __global__ void segment_merge_##S(T* out, Dims<2> cols, i64 ncols, i64 K,           \
                                                 i64 o_dim, i64 size, Sorted s, const T* partial,  \
                                                 int small) {                                      \
        segment_merge_impl<T>(out, cols, ncols, K, o_dim, size, s, partial, small);                \
    }
BURN_FOR_FLOATS(BURN_SEGMENT)

// ---- argwhere ----------------------------------------------------------------------------------
// Blocks of AW_THREADS x AW_ITERS elements in row-major order: counts per block, an exclusive scan
// of the counts (one block), then each block writes the coordinates of its true elements at its
// offset, in order (warp ballots).

template <class T>
__device__ __forceinline__ bool aw_flag(const T* t, const Meta& m, int dense, i64 n, i64 i) {
    if (i >= n) return false;
    return (dense ? t[i] : t[strided_offset(m, i)]) != T(0);
}

template <class T>
__device__ __forceinline__ void argwhere_count_impl(const T* t, const Meta& m, int dense, i64 n,
                                                    u32* counts) {
    const i64 start = (i64)blockIdx.x * (AW_THREADS * AW_ITERS);
    u32 total = 0;
    for (int it = 0; it < AW_ITERS; ++it) {
        const i64 i = start + it * AW_THREADS + threadIdx.x;
        total += (u32)__syncthreads_count(aw_flag(t, m, dense, n, i));
    }
    if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

template <class T>
__device__ __forceinline__ void argwhere_fill_impl(const T* t, const Meta& m, int dense, i64 n,
                                                   const u64* offsets, void* out, int idx64) {
    __shared__ u32 wsum[AW_THREADS / 32];
    u64 base = offsets[blockIdx.x];
    if (offsets[blockIdx.x + 1] == base) return;  // the whole block leaves
    const i64 start = (i64)blockIdx.x * (AW_THREADS * AW_ITERS);
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int rank = m.rank;
    for (int it = 0; it < AW_ITERS; ++it) {
        const i64 i = start + it * AW_THREADS + threadIdx.x;
        const bool flag = aw_flag(t, m, dense, n, i);
        const u32 mask = __ballot_sync(0xffffffffu, flag);
        if (lane == 0) wsum[warp] = (u32)__popc(mask);
        __syncthreads();
        u32 before = 0, total = 0;
#pragma unroll
        for (u32 w = 0; w < AW_THREADS / 32; ++w) {
            const u32 c = wsum[w];
            before += w < warp ? c : 0;
            total += c;
        }
        if (flag) {
            const u64 pos = base + before + (u32)__popc(mask & ((1u << lane) - 1u));
            i64 rem = i;
            for (int d = rank - 1; d >= 0; --d) {
                const i64 s = m.shape[d];
                const i64 c = rem % s;
                rem /= s;
                if (idx64) ((i64*)out)[pos * rank + d] = c;
                else ((i32*)out)[pos * rank + d] = (i32)c;
            }
        }
        base += total;
        __syncthreads();
    }
}

#define BURN_ARGWHERE(T, S)                                                                  \
    extern "C" __global__ void argwhere_count_##S(const T* t, Meta m, int dense, i64 n,      \
                                                  u32* counts) {                             \
        argwhere_count_impl<T>(t, m, dense, n, counts);                                      \
    }                                                                                        \
    extern "C" __global__ void argwhere_fill_##S(const T* t, Meta m, int dense, i64 n,       \
                                                 const u64* offsets, void* out, int idx64) { \
        argwhere_fill_impl<T>(t, m, dense, n, offsets, out, idx64);                          \
    }
BURN_FOR_ALL(BURN_ARGWHERE)

/// offsets[b] = counts[0] + .. + counts[b - 1] for b <= nblocks (offsets[nblocks]: the total).
/// One block of 1024 threads.
extern "C" __global__ void argwhere_scan(const u32* counts, i64 nblocks, u64* offsets) {
    __shared__ u64 wsum[32];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u64 carry = 0;
    for (i64 b0 = 0; b0 < nblocks; b0 += 1024) {
        const i64 i = b0 + threadIdx.x;
        const u64 v = i < nblocks ? (u64)counts[i] : 0;
        u64 x = v;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const u64 y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= (u32)o) x += y;
        }
        if (lane == 31) wsum[warp] = x;
        __syncthreads();
        if (warp == 0) {
            u64 s = wsum[lane];
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const u64 y = __shfl_up_sync(0xffffffffu, s, o);
                if (lane >= (u32)o) s += y;
            }
            wsum[lane] = s;
        }
        __syncthreads();
        if (i < nblocks) offsets[i] = carry + (warp > 0 ? wsum[warp - 1] : 0) + x - v;
        carry += wsum[31];
        __syncthreads();
    }
    if (threadIdx.x == 0) offsets[nblocks] = carry;
}

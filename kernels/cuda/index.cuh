// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by the indexing programs (index.cu, sort.cu): multi-stride iteration metadata and the
// offsets of a linear position in it, index reads, wrap-around accumulation.
#pragma once

#include "common.cuh"

/// A row-major iteration over `shape` with N stride sets (the host's index::Dims<N>, same
/// layout): position (c_0, .., c_{rank-1}) is at sum(c_d * strides[k][d]) in operand k.
template <int N>
struct Dims {
    int rank;
    int pad_;
    i64 shape[8];
    i64 strides[N][8];
};

/// The N offsets of the `linear`-th position of `d` (row-major). U is the type the divisions run
/// in: u32 when every position fits (much cheaper than 64-bit division), else u64.
template <int N, class U>
__device__ __forceinline__ void dims_offsets(const Dims<N>& d, U linear, i64 (&off)[N]) {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int i = d.rank - 1; i >= 0; --i) {
        const U s = (U)d.shape[i];
        const U q = linear / s;
        const i64 c = (i64)(linear - q * s);
        linear = q;
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] += c * d.strides[k][i];
    }
}

template <int N>
__device__ __forceinline__ void dims_offsets_any(const Dims<N>& d, i64 linear, bool small,
                                                 i64 (&off)[N]) {
    if (small) dims_offsets<N, u32>(d, (u32)linear, off);
    else dims_offsets<N, u64>(d, (u64)linear, off);
}

/// An index (an I32 or I64 tensor element) as i64.
__device__ __forceinline__ i64 load_index(const void* p, i64 off, int idx64) {
    return idx64 ? ((const i64*)p)[off] : (i64)((const i32*)p)[off];
}

/// `a + b` as the CPU backend accumulates: floats add, ints wrap around (no overflow UB), bools
/// or.
__device__ __forceinline__ float acc_add(float a, float b) { return a + b; }
__device__ __forceinline__ double acc_add(double a, double b) { return a + b; }
__device__ __forceinline__ i32 acc_add(i32 a, i32 b) { return (i32)((u32)a + (u32)b); }
__device__ __forceinline__ i64 acc_add(i64 a, i64 b) { return (i64)((u64)a + (u64)b); }
__device__ __forceinline__ u8 acc_add(u8 a, u8 b) { return (u8)(a | b); }

// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by every CUDA kernel program (NVRTC, no standard library): element types, the strided
// view metadata, grid-stride loops, kernel-side error reporting, dtype-variant macros.
#pragma once

typedef unsigned char u8;
typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned long long u64;

/// Half-precision storage: the bits of an IEEE binary16 (h16) or a bfloat16 (bh16). Kernels
/// compute in f32: to_f32 / from_f32 convert with round to nearest even, as the host does.
struct __align__(2) h16 {
    unsigned short bits;
};
struct __align__(2) bh16 {
    unsigned short bits;
};
__device__ __forceinline__ float to_f32(h16 h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return f;
}
__device__ __forceinline__ float to_f32(bh16 h) { return __uint_as_float((u32)h.bits << 16); }
template <class H>
__device__ __forceinline__ H from_f32(float f);
template <>
__device__ __forceinline__ h16 from_f32<h16>(float f) {
    h16 h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
    return h;
}
template <>
__device__ __forceinline__ bh16 from_f32<bh16>(float f) {
    const u32 u = __float_as_uint(f);
    bh16 h;
    // NaN: quieted, sign and payload's top bits kept; others: round to nearest even.
    h.bits = (u & 0x7fffffffu) > 0x7f800000u
                 ? (unsigned short)((u >> 16) | 0x40u)
                 : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    return h;
}

/// The type a storage type T computes in: f32 for the half types (loaded exactly, results
/// rounded to nearest even once), T itself for the others.
template <class T>
struct Val {
    typedef T V;
    static __device__ __forceinline__ T ld(T x) { return x; }
    static __device__ __forceinline__ T st(T x) { return x; }
};
template <>
struct Val<h16> {
    typedef float V;
    static __device__ __forceinline__ float ld(h16 x) { return to_f32(x); }
    static __device__ __forceinline__ h16 st(float x) { return from_f32<h16>(x); }
};
template <>
struct Val<bh16> {
    typedef float V;
    static __device__ __forceinline__ float ld(bh16 x) { return to_f32(x); }
    static __device__ __forceinline__ bh16 st(float x) { return from_f32<bh16>(x); }
};

/// A strided view (backends/cuda/src/ops_common.hpp's Meta): element (c_0, .., c_{rank-1}) is at
/// sum(c_d * strides[d]) from the pointer given with it.
struct Meta {
    int rank;
    int pad_;
    i64 shape[8];
    i64 strides[8];
};

/// The element offset of the `linear`-th element (row-major order) of the view.
__device__ __forceinline__ i64 strided_offset(const Meta& m, i64 linear) {
    i64 off = 0;
    for (int d = m.rank - 1; d >= 0; --d) {
        const i64 s = m.shape[d];
        const i64 c = linear % s;
        linear /= s;
        off += c * m.strides[d];
    }
    return off;
}

/// Grid-stride loop over [0, n).
#define BURN_GRID_LOOP(i, n)                                               \
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (i64)(n); \
         i += (i64)blockDim.x * gridDim.x)

/// Kernel-side errors (the host's KernelErrorKind): the first error of the device wins; the next
/// read reports it as burn::Error naming the op of `tag`.
#define BURN_ERR_INDEX 1u
#define BURN_ERR_DIV_ZERO 2u
#define BURN_ERR_NEG_EXPONENT 3u
__device__ __forceinline__ void burn_report_error(u32* word, u32 tag, u32 kind) {
    atomicCAS(word, 0u, tag * 16u + kind);
}

/// Defines a kernel family for every dtype: BURN_FOR_ALL(X) calls X(T, SUFFIX) for each element
/// type; the kernels are named <name>_<SUFFIX> by the family's macro.
#define BURN_FOR_FLOATS(X) X(float, f32) X(double, f64)
#define BURN_FOR_INTS(X) X(i32, i32) X(i64, i64)
#define BURN_FOR_NUMBERS(X) BURN_FOR_FLOATS(X) BURN_FOR_INTS(X)
#define BURN_FOR_ALL(X) BURN_FOR_NUMBERS(X) X(u8, bool)
/// The half types (storage only: their kernels compute in f32 through Val).
#define BURN_FOR_HALVES(X) X(h16, f16) X(bh16, bf16)

/// Float helpers overloaded for float and double.
__device__ __forceinline__ bool burn_isnan(float v) { return v != v; }
__device__ __forceinline__ bool burn_isnan(double v) { return v != v; }
template <class T>
__device__ __forceinline__ bool burn_isnan(T) {
    return false;
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// Device helpers shared by the reduction (reduce.cu) and softmax (softmax.cu) programs: limits,
// NaN-propagating max / min, f64 accumulators, warp shuffles and 16-byte accesses.
#pragma once

#include "common.cuh"

#define BURN_FULL_MASK 0xffffffffu

namespace red {

// ------------------------------------------------------------------------------------------------
// Values and limits
// ------------------------------------------------------------------------------------------------

__device__ __forceinline__ float pos_inf(float) { return __int_as_float(0x7f800000); }
__device__ __forceinline__ double pos_inf(double) {
    return __longlong_as_double(0x7ff0000000000000LL);
}
__device__ __forceinline__ float quiet_nan(float) { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ double quiet_nan(double) {
    return __longlong_as_double(0x7ff8000000000000LL);
}

template <class E>
struct Lim;
template <>
struct Lim<float> {
    static __device__ __forceinline__ float lowest() { return -pos_inf(0.0f); }
    static __device__ __forceinline__ float highest() { return pos_inf(0.0f); }
};
template <>
struct Lim<double> {
    static __device__ __forceinline__ double lowest() { return -pos_inf(0.0); }
    static __device__ __forceinline__ double highest() { return pos_inf(0.0); }
};
template <>
struct Lim<i32> {
    static __device__ __forceinline__ i32 lowest() { return -2147483647 - 1; }
    static __device__ __forceinline__ i32 highest() { return 2147483647; }
};
template <>
struct Lim<i64> {
    static __device__ __forceinline__ i64 lowest() { return -9223372036854775807LL - 1; }
    static __device__ __forceinline__ i64 highest() { return 9223372036854775807LL; }
};

/// Finite (not NaN, not infinite).
template <class E>
__device__ __forceinline__ bool finite(E v) {
    return (v - v) == E(0);
}

template <class E>
__device__ __forceinline__ E max_nan(E a, E b) {
    if (burn_isnan(a)) return a;
    if (burn_isnan(b)) return b;
    return b > a ? b : a;
}
template <class E>
__device__ __forceinline__ E min_nan(E a, E b) {
    if (burn_isnan(a)) return a;
    if (burn_isnan(b)) return b;
    return b < a ? b : a;
}

__device__ __forceinline__ float exp_of(float v) { return expf(v); }
__device__ __forceinline__ double exp_of(double v) { return ::exp(v); }
__device__ __forceinline__ float log_of(float v) { return logf(v); }
__device__ __forceinline__ double log_of(double v) { return ::log(v); }

/// The accumulator of sums and products: f64 for floats (f16 / bf16 values loaded exactly), u64
/// (wrapping) for ints.
template <class E>
struct Wide {
    typedef double T;
    static constexpr bool integral = false;
    static __device__ __forceinline__ double of(E v) { return (double)Val<E>::ld(v); }
};
template <>
struct Wide<i32> {
    typedef u64 T;
    static constexpr bool integral = true;
    static __device__ __forceinline__ u64 of(i32 v) { return (u64)(i64)v; }
};
template <>
struct Wide<i64> {
    typedef u64 T;
    static constexpr bool integral = true;
    static __device__ __forceinline__ u64 of(i64 v) { return (u64)v; }
};

/// A float result of an f64 accumulator in element type E: rounded to f32 first for f32 and the
/// half types (what an f32 reduction followed by a cast to the half type gives).
template <class E>
__device__ __forceinline__ E from_wide(double d) {
    return Val<E>::st((typename Val<E>::V)d);
}

/// A value and its position (arg-max/min).
template <class E>
struct ArgAcc {
    E v;
    i64 i;
};

// ---- shuffles ----------------------------------------------------------------------------------

template <class T>
__device__ __forceinline__ T shfl_down(T v, int off) {
    return __shfl_down_sync(BURN_FULL_MASK, v, off);
}
template <class E>
__device__ __forceinline__ ArgAcc<E> shfl_down(ArgAcc<E> v, int off) {
    ArgAcc<E> r;
    r.v = __shfl_down_sync(BURN_FULL_MASK, v.v, off);
    r.i = __shfl_down_sync(BURN_FULL_MASK, v.i, off);
    return r;
}
template <class T>
__device__ __forceinline__ T shfl_up(T v, int off) {
    return __shfl_up_sync(BURN_FULL_MASK, v, off);
}
template <class T>
__device__ __forceinline__ T shfl_idx(T v, int src) {
    return __shfl_sync(BURN_FULL_MASK, v, src);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int off) {
    return __shfl_xor_sync(BURN_FULL_MASK, v, off);
}

// ---- 16-byte accesses --------------------------------------------------------------------------

template <class E>
struct V16 {
    enum { N = 16 / sizeof(E) };
    union {
        uint4 u;
        E e[16 / sizeof(E)];
    };
};
template <class E>
__device__ __forceinline__ V16<E> load16(const E* p) {
    V16<E> v;
    v.u = __ldg(reinterpret_cast<const uint4*>(p));
    return v;
}
template <class E>
__device__ __forceinline__ void store16(E* p, const V16<E>& v) {
    *reinterpret_cast<uint4*>(p) = v.u;
}

}  // namespace red

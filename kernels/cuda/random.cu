// SPDX-License-Identifier: MIT OR Apache-2.0
// Random numbers: the Philox4x32-10 stream of the CPU backend (backends/cpu/src/random.cpp
// specifies it), one Philox block per thread and grid-stride step. Block j of a call is block
// (first + j) of key (k0, k1); it gives 4 elements of the one-word dtypes (f32, bool) or 2 of the
// two-word ones (f64, i32, i64), written with one vector store. Normal pairs (elements 2k, 2k+1)
// lie in one block, as on the CPU.
//
// Kernels random_<kind>_<suffix>, kind in default, uniform, bernoulli, normal, all with the
// arguments (out, n, blocks, k0, k1, first, a, b, hi, below_hi, guard, ilo, irange):
//   default    a, b unused
//   uniform    floats and bool: a = low, b = high - low (f64), hi = high and below_hi = the largest
//              value below it in the float type (f32 for bool), guard = low < high;
//              ints: ilo = trunc(low), irange = trunc(high) - trunc(low) (as u64)
//   bernoulli  a = p
//   normal     a = mean, b = standard deviation
//
// Bit-exactness with the CPU backend. Every product and sum is written with an explicit rounding
// intrinsic (NVRTC contracts a * b + c into an FMA by default). The CPU backend's `lo + range * u`
// and `mean + sd * z` are single FMAs there (GCC contracts them when the CPU kernels are built
// with -march=native, the default BURN_CPU_ARCH, on any x86-64 with FMA), so they are __fma_rn
// here; every other product is rounded on its own. Default, Uniform and Bernoulli values of every
// dtype (integer Uniform included) are therefore bit-identical to the CPU's (checked on an H200
// against the CPU code built -O3 -march=native: millions of values, no difference).
// Normal values go through log, sin and cos, whose results differ between math libraries:
//  - f32 evaluates log and sincos in f64 and rounds to f32 (the correctly rounded values, which
//    glibc's logf / sincosf give almost always): about 1% of values differ from the CPU's, where
//    one of them rounds the other way (Normal(0.5, 2): largest difference 9.5e-7). With CUDA's
//    logf / sincosf it was 16% (1.75x faster: 0.63 against 1.10 ms for 2^28 values, H200);
//  - f64 uses CUDA's log / sincos (1-2 ulp): about 14% of values differ, by up to 3 ulp;
//  - integer Normal rounds the f64 value: identical unless a value falls within an ulp of
//    k + 0.5 (none seen in 400k values).
#include "common.cuh"

#define BURN_PHILOX_M0 0xD2511F53u
#define BURN_PHILOX_M1 0xCD9E8D57u
#define BURN_PHILOX_W0 0x9E3779B9u
#define BURN_PHILOX_W1 0xBB67AE85u

/// Block `block` of the stream of key (k0, k1): Philox4x32-10 of counter {lo, hi, 0, 0}.
__device__ __forceinline__ void philox(u64 block, u32 k0, u32 k1, u32 w[4]) {
    u32 c0 = (u32)block, c1 = (u32)(block >> 32), c2 = 0u, c3 = 0u;
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        const u32 hi0 = __umulhi(BURN_PHILOX_M0, c0), lo0 = BURN_PHILOX_M0 * c0;
        const u32 hi1 = __umulhi(BURN_PHILOX_M1, c2), lo1 = BURN_PHILOX_M1 * c2;
        const u32 n0 = hi1 ^ c1 ^ k0;
        const u32 n2 = hi0 ^ c3 ^ k1;
        c1 = lo1;
        c3 = lo0;
        c0 = n0;
        c2 = n2;
        k0 += BURN_PHILOX_W0;
        k1 += BURN_PHILOX_W1;
    }
    w[0] = c0;
    w[1] = c1;
    w[2] = c2;
    w[3] = c3;
}

// ------------------------------------------------------------------ words -> numbers (exact)
/// [0, 1) from the top 24 bits of a word, and (0, 1] (the same plus 2^-24).
__device__ __forceinline__ float u24(u32 w) {
    return __fmul_rn(__uint2float_rn(w >> 8), 5.9604644775390625e-08f);
}
__device__ __forceinline__ float u24_open0(u32 w) {
    return __fmul_rn(__uint2float_rn((w >> 8) + 1u), 5.9604644775390625e-08f);
}
/// 53 bits from two words (the element's first word high), [0, 1) and (0, 1].
__device__ __forceinline__ u64 bits53(u32 w0, u32 w1) { return ((u64)w0 << 21) | (u64)(w1 >> 11); }
__device__ __forceinline__ double u53(u32 w0, u32 w1) {
    return __dmul_rn(__ull2double_rn(bits53(w0, w1)), 1.1102230246251565404236316680908203125e-16);
}
__device__ __forceinline__ double u53_open0(u32 w0, u32 w1) {
    return __dmul_rn(__ull2double_rn(bits53(w0, w1) + 1ull),
                     1.1102230246251565404236316680908203125e-16);
}

/// 2 pi in f64 and rounded to f32 (the CPU's `2 * std::numbers::pi` and `E(2 * pi)`).
#define BURN_TWO_PI 6.283185307179586476925286766559
__device__ __forceinline__ float two_pi_f32() { return __double2float_rn(BURN_TWO_PI); }

/// f32 log, sin and cos as the correctly rounded f32 of the f64 functions.
__device__ __forceinline__ float log_f32(float x) { return __double2float_rn(::log((double)x)); }
__device__ __forceinline__ void sincos_f32(float x, float* s, float* c) {
    double sd, cd;
    ::sincos((double)x, &sd, &cd);
    *s = __double2float_rn(sd);
    *c = __double2float_rn(cd);
}

/// burn::trunc_to_int64: truncation toward zero, saturated, NaN -> 0.
__device__ __forceinline__ i64 trunc_to_i64(double v) {
    if (v != v) return 0;
    if (v >= 9223372036854775808.0) return 0x7fffffffffffffffll;
    if (v < -9223372036854775808.0) return -0x7fffffffffffffffll - 1;
    return (i64)v;
}

// ------------------------------------------------------------------ per-distribution values
#define BURN_RANDOM_DEFAULT 0
#define BURN_RANDOM_UNIFORM 1
#define BURN_RANDOM_BERNOULLI 2
#define BURN_RANDOM_NORMAL 3

/// The arguments every random kernel takes (see the header).
struct RandomArgs {
    double a, b, hi, below_hi;
    int guard;
    i64 ilo;
    u64 irange;
};

/// The four f32 values of a block (one word each), as random_float<float> on the CPU.
template <int KIND>
__device__ __forceinline__ void f32_values(const u32 w[4], const RandomArgs& p, float v[4]) {
    if (KIND == BURN_RANDOM_NORMAL) {
        const float tp = two_pi_f32();
#pragma unroll
        for (int k = 0; k < 4; k += 2) {
            const float u1 = u24_open0(w[k]), u2 = u24(w[k + 1]);
            const float r = __fsqrt_rn(__fmul_rn(-2.0f, log_f32(u1)));
            const float t = __fmul_rn(tp, u2);
            float s, c;
            sincos_f32(t, &s, &c);
            const float z0 = __fmul_rn(r, c), z1 = __fmul_rn(r, s);
            v[k] = __double2float_rn(__fma_rn(p.b, (double)z0, p.a));
            v[k + 1] = __double2float_rn(__fma_rn(p.b, (double)z1, p.a));
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const float u = u24(w[k]);
        if (KIND == BURN_RANDOM_DEFAULT) {
            v[k] = u;
        } else if (KIND == BURN_RANDOM_UNIFORM) {
            const float x = __double2float_rn(__fma_rn(p.b, (double)u, p.a));
            v[k] = p.guard && x >= (float)p.hi ? (float)p.below_hi : x;
        } else {
            v[k] = (double)u < p.a ? 1.0f : 0.0f;
        }
    }
}

/// The two f64 values of a block (two words each), as random_float<double> on the CPU.
template <int KIND>
__device__ __forceinline__ void f64_values(const u32 w[4], const RandomArgs& p, double v[2]) {
    if (KIND == BURN_RANDOM_NORMAL) {
        const double u1 = u53_open0(w[0], w[1]), u2 = u53(w[2], w[3]);
        const double r = __dsqrt_rn(__dmul_rn(-2.0, ::log(u1)));
        const double t = __dmul_rn(BURN_TWO_PI, u2);
        double s, c;
        ::sincos(t, &s, &c);
        v[0] = __fma_rn(p.b, __dmul_rn(r, c), p.a);
        v[1] = __fma_rn(p.b, __dmul_rn(r, s), p.a);
        return;
    }
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        const double u = u53(w[2 * k], w[2 * k + 1]);
        if (KIND == BURN_RANDOM_DEFAULT) {
            v[k] = u;
        } else if (KIND == BURN_RANDOM_UNIFORM) {
            const double x = __fma_rn(p.b, u, p.a);
            v[k] = p.guard && x >= p.hi ? p.below_hi : x;
        } else {
            v[k] = u < p.a ? 1.0 : 0.0;
        }
    }
}

/// The two integer values of a block (two words each), as random_int on the CPU (before the
/// conversion to the element type).
template <int KIND>
__device__ __forceinline__ void int_values(const u32 w[4], const RandomArgs& p, i64 v[2]) {
    if (KIND == BURN_RANDOM_NORMAL) {
        const double r = __dsqrt_rn(__dmul_rn(-2.0, ::log(u53_open0(w[0], w[1]))));
        const double t = __dmul_rn(BURN_TWO_PI, u53(w[2], w[3]));
        double s, c;
        ::sincos(t, &s, &c);
        const double sr = __dmul_rn(p.b, r);
        v[0] = trunc_to_i64(::round(__fma_rn(sr, c, p.a)));
        v[1] = trunc_to_i64(::round(__fma_rn(sr, s, p.a)));
        return;
    }
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        const u32 w0 = w[2 * k], w1 = w[2 * k + 1];
        if (KIND == BURN_RANDOM_DEFAULT) {
            v[k] = (i64)(w0 >> 31);
        } else if (KIND == BURN_RANDOM_UNIFORM) {
            // lo + floor(x * range / 2^53), the 128-bit product's bits 53..116.
            const u64 x = bits53(w0, w1);
            const u64 hi = __umul64hi(x, p.irange), lo = x * p.irange;
            v[k] = (i64)((u64)p.ilo + ((hi << 11) | (lo >> 53)));
        } else {
            v[k] = u53(w0, w1) < p.a ? 1 : 0;
        }
    }
}

/// The four bool values of a block (one word each), as random_bool on the CPU.
template <int KIND>
__device__ __forceinline__ void bool_values(const u32 w[4], const RandomArgs& p, u8 v[4]) {
    if (KIND == BURN_RANDOM_DEFAULT || KIND == BURN_RANDOM_BERNOULLI) {
#pragma unroll
        for (int k = 0; k < 4; ++k)
            v[k] = KIND == BURN_RANDOM_DEFAULT ? (u8)(w[k] >> 31) : (u8)((double)u24(w[k]) < p.a);
        return;
    }
    float f[4];  // Uniform and Normal: the f32 values of the same words, != 0
    f32_values<KIND>(w, p, f);
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = f[k] != 0.0f ? 1 : 0;
}

// ------------------------------------------------------------------ stores (elements e, e+1, ..)
__device__ __forceinline__ void store_block(float* out, i64 e, i64 n, const float v[4]) {
    if (e + 4 <= n) {
        *reinterpret_cast<float4*>(out + e) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
        for (int k = 0; k < 4 && e + k < n; ++k) out[e + k] = v[k];
    }
}
__device__ __forceinline__ void store_block(u8* out, i64 e, i64 n, const u8 v[4]) {
    if (e + 4 <= n) {
        *reinterpret_cast<u32*>(out + e) =
            (u32)v[0] | ((u32)v[1] << 8) | ((u32)v[2] << 16) | ((u32)v[3] << 24);
    } else {
        for (int k = 0; k < 4 && e + k < n; ++k) out[e + k] = v[k];
    }
}
__device__ __forceinline__ void store_block(double* out, i64 e, i64 n, const double v[2]) {
    if (e + 2 <= n) *reinterpret_cast<double2*>(out + e) = make_double2(v[0], v[1]);
    else out[e] = v[0];
}
__device__ __forceinline__ void store_block(i64* out, i64 e, i64 n, const i64 v[2]) {
    if (e + 2 <= n) *reinterpret_cast<longlong2*>(out + e) = make_longlong2(v[0], v[1]);
    else out[e] = v[0];
}
__device__ __forceinline__ void store_block(i32* out, i64 e, i64 n, const i64 v[2]) {
    // The CPU's static_cast<std::int32_t>(std::int64_t): modulo 2^32.
    if (e + 2 <= n) *reinterpret_cast<int2*>(out + e) = make_int2((i32)v[0], (i32)v[1]);
    else out[e] = (i32)v[0];
}

/// f16 / bf16: the f32 values of the block rounded once (what f32 values cast to the half type
/// give; Bernoulli's 0 and 1 exactly), four halves in one 8-byte store.
template <class H>
__device__ __forceinline__ void store_block(H* out, i64 e, i64 n, const float v[4]) {
    H h[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) h[k] = from_f32<H>(v[k]);
    if (e + 4 <= n) {
        *reinterpret_cast<uint2*>(out + e) = make_uint2((u32)h[0].bits | ((u32)h[1].bits << 16),
                                                        (u32)h[2].bits | ((u32)h[3].bits << 16));
    } else {
        for (int k = 0; k < 4 && e + k < n; ++k) out[e + k] = h[k];
    }
}

// ------------------------------------------------------------------ kernels
/// Grid-stride over the call's blocks: block j -> elements [j * per_block, ...).
#define BURN_RANDOM_LOOP(VALUES, VT, PER_BLOCK, KIND)           \
    const RandomArgs p{a, b, hi, below_hi, guard, ilo, irange}; \
    BURN_GRID_LOOP(j, blocks) {                                 \
        u32 w[4];                                               \
        philox(first + (u64)j, k0, k1, w);                      \
        VT v[PER_BLOCK];                                        \
        VALUES<KIND>(w, p, v);                                  \
        store_block(o, j* PER_BLOCK, n, v);                     \
    }

#define BURN_RANDOM_PARAMS                                                                  \
    void *out, i64 n, i64 blocks, u32 k0, u32 k1, u64 first, double a, double b, double hi, \
        double below_hi, int guard, i64 ilo, u64 irange

/// random_<NAME>_<SFX>: elements of type STORE from VALUES (each Philox block gives PER values of
/// type V; the half types store the f32 values, rounded).
#define BURN_RANDOM_KERNEL(NAME, KIND, SFX, STORE, VALUES, V, PER)         \
    extern "C" __global__ void random_##NAME##_##SFX(BURN_RANDOM_PARAMS) { \
        STORE* o = (STORE*)out;                                            \
        BURN_RANDOM_LOOP(VALUES, V, PER, KIND)                             \
    }
#define BURN_RANDOM_KERNELS(NAME, KIND)                                \
    BURN_RANDOM_KERNEL(NAME, KIND, f32, float, f32_values, float, 4)   \
    BURN_RANDOM_KERNEL(NAME, KIND, f64, double, f64_values, double, 2) \
    BURN_RANDOM_KERNEL(NAME, KIND, i32, i32, int_values, i64, 2)       \
    BURN_RANDOM_KERNEL(NAME, KIND, i64, i64, int_values, i64, 2)       \
    BURN_RANDOM_KERNEL(NAME, KIND, bool, u8, bool_values, u8, 4)       \
    BURN_RANDOM_KERNEL(NAME, KIND, f16, h16, f32_values, float, 4)     \
    BURN_RANDOM_KERNEL(NAME, KIND, bf16, bh16, f32_values, float, 4)

BURN_RANDOM_KERNELS(default, BURN_RANDOM_DEFAULT)
BURN_RANDOM_KERNELS(uniform, BURN_RANDOM_UNIFORM)
BURN_RANDOM_KERNELS(bernoulli, BURN_RANDOM_BERNOULLI)
BURN_RANDOM_KERNELS(normal, BURN_RANDOM_NORMAL)

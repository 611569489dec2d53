// SPDX-License-Identifier: MIT OR Apache-2.0
// Element-wise machinery shared by the programs elementwise.cu and activation.cu: vector packs,
// type traits, float math overloaded for float and double, the CPU backend's scalar helpers
// (wrapping integer arithmetic, NaN-propagating max / min, x86 float -> int conversion), offsets of
// broadcast operands, and the grid-stride drivers.
//
// Drivers: map1 / map2 / map3 compute o[i] = f(a[i], ...) for i < n over a dense output. The dense
// form reads every operand as a plain array (16-byte vector loads and stores where the pointers
// allow); the strided form reads operand k at the offset of element i in its Meta (the host gives
// the Metas of the operands broadcast to the output shape, with the same collapsed shape), with
// 32-bit index arithmetic when n < 2^32, and N elements at a time when every operand's inner dim
// allows it (stride 1 with aligned rows, or stride 0: a broadcast value).
#pragma once

#include "common.cuh"

namespace ew {

// ------------------------------------------------------------------------------------------------
// Types
// ------------------------------------------------------------------------------------------------

template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
    T v[N];
};

/// Elements per vector access reading A and writing O: at most 16 bytes written and 32 read (two
/// 16-byte loads; wider stores are slower): f32 -> f32 4, f32 -> bool 8, f32 -> f64 2, bool 16.
template <class A, class O>
struct VecWidth {
    static constexpr int value = 16 / sizeof(O) < 32 / sizeof(A) ? 16 / sizeof(O) : 32 / sizeof(A);
};

template <class T>
struct IsFloat {
    static constexpr bool value = false;
};
template <>
struct IsFloat<float> {
    static constexpr bool value = true;
};
template <>
struct IsFloat<double> {
    static constexpr bool value = true;
};

template <class T>
struct Unsigned;
template <>
struct Unsigned<i32> {
    typedef u32 type;
};
template <>
struct Unsigned<i64> {
    typedef u64 type;
};
template <>
struct Unsigned<i8> {
    typedef u32 type;
};
template <>
struct Unsigned<u8> {
    typedef u32 type;
};

/// A functor of f32 values applied to half-precision storage (h16 / bh16): the operands loaded
/// exactly, the result rounded once (Val), as f32 arithmetic rounded back to the half type.
template <class T, class F>
struct Halved {
    F f;
    __device__ __forceinline__ T operator()(T x) const { return Val<T>::st(f(Val<T>::ld(x))); }
    __device__ __forceinline__ T operator()(T x, T y) const {
        return Val<T>::st(f(Val<T>::ld(x), Val<T>::ld(y)));
    }
};
template <class T, class F>
__device__ __forceinline__ Halved<T, F> halved(const F& f) {
    return Halved<T, F>{f};
}

// ------------------------------------------------------------------------------------------------
// Float math (precise CUDA math: no fast-math options)
// ------------------------------------------------------------------------------------------------

#define BURN_EW_MATH1(NAME, F32, F64)                                 \
    __device__ __forceinline__ float NAME(float x) { return F32(x); } \
    __device__ __forceinline__ double NAME(double x) { return F64(x); }
BURN_EW_MATH1(m_exp, expf, exp)
BURN_EW_MATH1(m_log, logf, log)
BURN_EW_MATH1(m_log1p, log1pf, log1p)
BURN_EW_MATH1(m_erf, erff, erf)
BURN_EW_MATH1(m_sqrt, sqrtf, sqrt)
BURN_EW_MATH1(m_sin, sinf, sin)
BURN_EW_MATH1(m_cos, cosf, cos)
BURN_EW_MATH1(m_tanh, tanhf, tanh)
BURN_EW_MATH1(m_rint, rintf, rint)
BURN_EW_MATH1(m_floor, floorf, floor)
BURN_EW_MATH1(m_ceil, ceilf, ceil)
BURN_EW_MATH1(m_fabs, fabsf, fabs)
#undef BURN_EW_MATH1
__device__ __forceinline__ float m_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double m_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float m_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double m_pow(double a, double b) { return pow(a, b); }

// ------------------------------------------------------------------------------------------------
// The CPU backend's scalar helpers
// ------------------------------------------------------------------------------------------------

/// Integer arithmetic wraps (two's complement), as the CPU backend's wrap_add / wrap_mul.
template <class T>
__device__ __forceinline__ T wrap_add(T a, T b) {
    if constexpr (IsFloat<T>::value) return a + b;
    else return (T)((typename Unsigned<T>::type)a + (typename Unsigned<T>::type)b);
}
template <class T>
__device__ __forceinline__ T wrap_sub(T a, T b) {
    if constexpr (IsFloat<T>::value) return a - b;
    else return (T)((typename Unsigned<T>::type)a - (typename Unsigned<T>::type)b);
}
template <class T>
__device__ __forceinline__ T wrap_mul(T a, T b) {
    if constexpr (IsFloat<T>::value) return a * b;
    else return (T)((typename Unsigned<T>::type)a * (typename Unsigned<T>::type)b);
}
template <class T>
__device__ __forceinline__ T wrap_neg(T a) {
    if constexpr (IsFloat<T>::value) return -a;
    else return (T)((typename Unsigned<T>::type)0 - (typename Unsigned<T>::type)a);
}

/// NaN-propagating maximum / minimum (the first NaN operand wins), else the CPU's tie rule.
template <class T>
__device__ __forceinline__ T max_nan(T a, T b) {
    if constexpr (IsFloat<T>::value) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return a < b ? b : a;
}
template <class T>
__device__ __forceinline__ T min_nan(T a, T b) {
    if constexpr (IsFloat<T>::value) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return b < a ? b : a;
}

/// Float -> integer as the CPU backend's static_cast on x86-64 (cvttss2si / cvttsd2si):
/// truncation toward zero, and the "integer indefinite" value (the minimum) for NaN and values
/// outside the destination's range; int8 goes through int32 and keeps the low byte.
template <class To, class F>
__device__ __forceinline__ To float_to_int(F x) {
    if constexpr (sizeof(To) == 8) {
        const F lo = (F)-9223372036854775808.0, hi = (F)9223372036854775808.0;
        return (x >= lo && x < hi) ? (To)x : (To)(-9223372036854775807LL - 1);
    } else {
        const F lo = (F)-2147483648.0, hi = (F)2147483648.0;
        const i32 v = (x >= lo && x < hi) ? (i32)x : (i32)(-2147483647 - 1);
        return (To)v;
    }
}

/// The CPU backend's static_cast<To>(From) between storage types; u8 is bool: any value -> bool is
/// `!= 0`, bool -> number is 0 / 1.
template <class To, class From>
__device__ __forceinline__ To convert(From x) {
    if constexpr (sizeof(To) == 1 && (To)(-1) > (To)0) {
        return (To)(x != (From)0);  // u8: bool
    } else if constexpr (IsFloat<From>::value && !IsFloat<To>::value) {
        return float_to_int<To>(x);
    } else {
        return (To)x;
    }
}

// ------------------------------------------------------------------------------------------------
// Offsets of broadcast operands
// ------------------------------------------------------------------------------------------------

/// Element offsets of the `lin`-th element (row-major over the metas' common shape) in K <= 3
/// operands (metas of the same rank and shape; the unused ones are ignored). The outermost
/// coordinate is what remains of `lin` (no division), so rank-1 views cost a multiplication. The
/// loop stays rolled (the metas are read from the parameter space by index): the host collapses
/// the dims first, so ranks are small, and the code of the many kernels stays small.
template <class Idx, int K>
__device__ __forceinline__ void offsets(const Meta& ma, const Meta& mb, const Meta& mc, Idx lin,
                                        i64& oa, i64& ob, i64& oc) {
    oa = 0, ob = 0, oc = 0;
#pragma unroll 1
    for (int d = ma.rank - 1; d >= 1; --d) {
        const Idx s = (Idx)ma.shape[d];
        const Idx q = lin / s;
        const i64 c = (i64)(lin - q * s);
        lin = q;
        oa += c * ma.strides[d];
        if constexpr (K > 1) ob += c * mb.strides[d];
        if constexpr (K > 2) oc += c * mc.strides[d];
    }
    oa += (i64)lin * ma.strides[0];
    if constexpr (K > 1) ob += (i64)lin * mb.strides[0];
    if constexpr (K > 2) oc += (i64)lin * mc.strides[0];
}

__device__ __forceinline__ i64 grid_start() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ i64 grid_step() { return (i64)blockDim.x * gridDim.x; }

template <int N, class T>
__device__ __forceinline__ bool aligned(const T* p) {
    return ((u64)p % (u64)(N * sizeof(T))) == 0;
}

/// Whether operand p (Meta m, at least one of the collapsed dims) can be read N elements at a time
/// along its innermost dim from element offsets that are multiples of N there: stride 0 (one
/// value, broadcast) or stride 1 with every outer stride a multiple of N and p aligned.
template <int N, class T>
__device__ __forceinline__ bool inner_vec_ok(const T* p, const Meta& m) {
    const i64 s = m.strides[m.rank - 1];
    if (s == 0) return true;
    if (s != 1 || !aligned<N>(p)) return false;
    for (int d = 0; d < m.rank - 1; ++d)
        if (m.strides[d] % N != 0) return false;
    return true;
}

/// N elements from p + off: a vector load, or one value repeated when the inner stride is 0.
template <int N, class T>
__device__ __forceinline__ Pack<T, N> load_pack(const T* p, i64 off, bool repeat) {
    Pack<T, N> r;
    if (repeat) {
        const T v = p[off];
#pragma unroll
        for (int k = 0; k < N; ++k) r.v[k] = v;
    } else {
        r = *reinterpret_cast<const Pack<T, N>*>(p + off);
    }
    return r;
}

// ------------------------------------------------------------------------------------------------
// Drivers
// ------------------------------------------------------------------------------------------------

/// o[i] = f(i) for i < n (dense output).
template <class O, class F>
__device__ __forceinline__ void generate(O* o, i64 n, const F& f) {
    constexpr int N = 16 / sizeof(O);
    const i64 start = grid_start(), step = grid_step();
    i64 head = 0;
    if (aligned<N>(o)) {
        const i64 nv = n / N;
        Pack<O, N>* ov = reinterpret_cast<Pack<O, N>*>(o);
        for (i64 i = start; i < nv; i += step) {
            Pack<O, N> y;
#pragma unroll
            for (int k = 0; k < N; ++k) y.v[k] = f(i * N + k);
            ov[i] = y;
        }
        head = nv * N;
    }
    for (i64 i = head + start; i < n; i += step) o[i] = f(i);
}

/// o[i] = f(a[i]): dense (a is a plain array) or strided (a read through ma). The strided form
/// reads N elements at a time only when VecInner (copies: permuted views with a contiguous inner
/// dim; the many unary kernels keep one strided loop, which keeps the program small).
template <bool VecInner = false, class A, class O, class F>
__device__ __forceinline__ void map1(const A* a, const Meta& ma, O* o, i64 n, int dense,
                                     const F& f) {
    const i64 start = grid_start(), step = grid_step();
    if (dense) {
        constexpr int N = VecWidth<A, O>::value;
        i64 head = 0;
        if (aligned<N>(a) && aligned<N>(o)) {
            const i64 nv = n / N;
            const Pack<A, N>* av = reinterpret_cast<const Pack<A, N>*>(a);
            Pack<O, N>* ov = reinterpret_cast<Pack<O, N>*>(o);
            for (i64 i = start; i < nv; i += step) {
                const Pack<A, N> x = av[i];
                Pack<O, N> y;
#pragma unroll
                for (int k = 0; k < N; ++k) y.v[k] = f(x.v[k]);
                ov[i] = y;
            }
            head = nv * N;
        }
        for (i64 i = head + start; i < n; i += step) o[i] = f(a[i]);
        return;
    }
    i64 oa, ob, oc;
    constexpr int N = VecWidth<A, O>::value;
    if (VecInner && N > 1 && ma.shape[ma.rank - 1] % N == 0 && aligned<N>(o) &&
        inner_vec_ok<N>(a, ma)) {
        // The inner dim N elements at a time (offsets once per N).
        const bool ra = ma.strides[ma.rank - 1] == 0;
        const i64 nv = n / N;
        for (i64 j = start; j < nv; j += step) {
            if (n <= (i64)0xffffffffLL) offsets<u32, 1>(ma, ma, ma, (u32)(j * N), oa, ob, oc);
            else offsets<u64, 1>(ma, ma, ma, (u64)(j * N), oa, ob, oc);
            const Pack<A, N> x = load_pack<N>(a, oa, ra);
            Pack<O, N> y;
#pragma unroll
            for (int k = 0; k < N; ++k) y.v[k] = f(x.v[k]);
            reinterpret_cast<Pack<O, N>*>(o)[j] = y;
        }
        return;
    }
    if (n <= (i64)0xffffffffLL) {
        for (i64 i = start; i < n; i += step) {
            offsets<u32, 1>(ma, ma, ma, (u32)i, oa, ob, oc);
            o[i] = f(a[oa]);
        }
    } else {
        for (i64 i = start; i < n; i += step) {
            offsets<u64, 1>(ma, ma, ma, (u64)i, oa, ob, oc);
            o[i] = f(a[oa]);
        }
    }
}

/// o[i] = f(a[i], b[i]): dense (both plain arrays) or strided (through ma and mb); VecInner as
/// map1's (cheap ops: broadcasts such as bias adds go N elements at a time).
template <bool VecInner = false, class A, class B, class O, class F>
__device__ __forceinline__ void map2(const A* a, const Meta& ma, const B* b, const Meta& mb, O* o,
                                     i64 n, int dense, const F& f) {
    const i64 start = grid_start(), step = grid_step();
    if (dense) {
        constexpr int N = VecWidth<A, O>::value < VecWidth<B, O>::value ? VecWidth<A, O>::value
                                                                        : VecWidth<B, O>::value;
        i64 head = 0;
        if (aligned<N>(a) && aligned<N>(b) && aligned<N>(o)) {
            const i64 nv = n / N;
            const Pack<A, N>* av = reinterpret_cast<const Pack<A, N>*>(a);
            const Pack<B, N>* bv = reinterpret_cast<const Pack<B, N>*>(b);
            Pack<O, N>* ov = reinterpret_cast<Pack<O, N>*>(o);
            for (i64 i = start; i < nv; i += step) {
                const Pack<A, N> x = av[i];
                const Pack<B, N> y = bv[i];
                Pack<O, N> z;
#pragma unroll
                for (int k = 0; k < N; ++k) z.v[k] = f(x.v[k], y.v[k]);
                ov[i] = z;
            }
            head = nv * N;
        }
        for (i64 i = head + start; i < n; i += step) o[i] = f(a[i], b[i]);
        return;
    }
    i64 oa, ob, oc;
    constexpr int N = VecWidth<A, O>::value < VecWidth<B, O>::value ? VecWidth<A, O>::value
                                                                    : VecWidth<B, O>::value;
    if (VecInner && N > 1 && ma.shape[ma.rank - 1] % N == 0 && aligned<N>(o) &&
        inner_vec_ok<N>(a, ma) && inner_vec_ok<N>(b, mb)) {
        // The inner dim N elements at a time (row broadcasts, bias adds, scalar tensors).
        const bool ra = ma.strides[ma.rank - 1] == 0, rb = mb.strides[mb.rank - 1] == 0;
        const i64 nv = n / N;
        for (i64 j = start; j < nv; j += step) {
            if (n <= (i64)0xffffffffLL) offsets<u32, 2>(ma, mb, mb, (u32)(j * N), oa, ob, oc);
            else offsets<u64, 2>(ma, mb, mb, (u64)(j * N), oa, ob, oc);
            const Pack<A, N> x = load_pack<N>(a, oa, ra);
            const Pack<B, N> y = load_pack<N>(b, ob, rb);
            Pack<O, N> z;
#pragma unroll
            for (int k = 0; k < N; ++k) z.v[k] = f(x.v[k], y.v[k]);
            reinterpret_cast<Pack<O, N>*>(o)[j] = z;
        }
        return;
    }
    if (n <= (i64)0xffffffffLL) {
        for (i64 i = start; i < n; i += step) {
            offsets<u32, 2>(ma, mb, mb, (u32)i, oa, ob, oc);
            o[i] = f(a[oa], b[ob]);
        }
    } else {
        for (i64 i = start; i < n; i += step) {
            offsets<u64, 2>(ma, mb, mb, (u64)i, oa, ob, oc);
            o[i] = f(a[oa], b[ob]);
        }
    }
}

/// o[i] = f(a[i], b[i], c[i]): dense or strided (N elements at a time where the inner dims
/// allow).
template <class A, class B, class C, class O, class F>
__device__ __forceinline__ void map3(const A* a, const Meta& ma, const B* b, const Meta& mb,
                                     const C* c, const Meta& mc, O* o, i64 n, int dense,
                                     const F& f) {
    const i64 start = grid_start(), step = grid_step();
    if (dense) {
        constexpr int NA = VecWidth<A, O>::value, NB = VecWidth<B, O>::value,
                      NC = VecWidth<C, O>::value;
        constexpr int NAB = NA < NB ? NA : NB;
        constexpr int N = NAB < NC ? NAB : NC;
        i64 head = 0;
        if (aligned<N>(a) && aligned<N>(b) && aligned<N>(c) && aligned<N>(o)) {
            const i64 nv = n / N;
            const Pack<A, N>* av = reinterpret_cast<const Pack<A, N>*>(a);
            const Pack<B, N>* bv = reinterpret_cast<const Pack<B, N>*>(b);
            const Pack<C, N>* cv = reinterpret_cast<const Pack<C, N>*>(c);
            Pack<O, N>* ov = reinterpret_cast<Pack<O, N>*>(o);
            for (i64 i = start; i < nv; i += step) {
                const Pack<A, N> x = av[i];
                const Pack<B, N> y = bv[i];
                const Pack<C, N> z = cv[i];
                Pack<O, N> r;
#pragma unroll
                for (int k = 0; k < N; ++k) r.v[k] = f(x.v[k], y.v[k], z.v[k]);
                ov[i] = r;
            }
            head = nv * N;
        }
        for (i64 i = head + start; i < n; i += step) o[i] = f(a[i], b[i], c[i]);
        return;
    }
    i64 oa, ob, oc;
    constexpr int NA = VecWidth<A, O>::value, NB = VecWidth<B, O>::value,
                  NC = VecWidth<C, O>::value;
    constexpr int NAB = NA < NB ? NA : NB;
    constexpr int N = NAB < NC ? NAB : NC;
    if (N > 1 && ma.shape[ma.rank - 1] % N == 0 && aligned<N>(o) && inner_vec_ok<N>(a, ma) &&
        inner_vec_ok<N>(b, mb) && inner_vec_ok<N>(c, mc)) {
        const bool ra = ma.strides[ma.rank - 1] == 0, rb = mb.strides[mb.rank - 1] == 0,
                   rc = mc.strides[mc.rank - 1] == 0;
        const i64 nv = n / N;
        for (i64 j = start; j < nv; j += step) {
            if (n <= (i64)0xffffffffLL) offsets<u32, 3>(ma, mb, mc, (u32)(j * N), oa, ob, oc);
            else offsets<u64, 3>(ma, mb, mc, (u64)(j * N), oa, ob, oc);
            const Pack<A, N> x = load_pack<N>(a, oa, ra);
            const Pack<B, N> y = load_pack<N>(b, ob, rb);
            const Pack<C, N> z = load_pack<N>(c, oc, rc);
            Pack<O, N> r;
#pragma unroll
            for (int k = 0; k < N; ++k) r.v[k] = f(x.v[k], y.v[k], z.v[k]);
            reinterpret_cast<Pack<O, N>*>(o)[j] = r;
        }
        return;
    }
    if (n <= (i64)0xffffffffLL) {
        for (i64 i = start; i < n; i += step) {
            offsets<u32, 3>(ma, mb, mc, (u32)i, oa, ob, oc);
            o[i] = f(a[oa], b[ob], c[oc]);
        }
    } else {
        for (i64 i = start; i < n; i += step) {
            offsets<u64, 3>(ma, mb, mc, (u64)i, oa, ob, oc);
            o[i] = f(a[oa], b[ob], c[oc]);
        }
    }
}

}  // namespace ew

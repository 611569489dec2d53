// SPDX-License-Identifier: MIT OR Apache-2.0
// Element-wise kernels (backends/cuda/src/ops_elementwise.cpp launches them): fill, copy, cast,
// arange, unary maps, is_nan, clamp, binary arithmetic (tensor-tensor with broadcasting and
// tensor-scalar), comparisons, and the masked selects. Semantics are the CPU backend's
// (backends/cpu/src/elementwise.hpp): integer arithmetic wraps, integer division truncates and
// remainder floors (the sign of the divisor), integer division / remainder by zero and integer
// powers with a negative exponent are reported through the error word, max / min propagate NaN,
// round is half to even, float -> int casts behave as x86's truncating conversions.
//
// Kernels take (operands with their Metas, output, n, dense, then scalars): `dense` says every
// operand is a plain dense array of n elements (vectorised path); otherwise each operand is read
// through its Meta, which the host gives broadcast to the output shape. Outputs are dense.
// Names: <kernel>_<dtype> or <kernel>_<op>_<dtype>.
//
// f16 and bf16 (h16 / bh16 storage) have the float kernels' families too: each reads the half
// values exactly, computes the f32 functor and rounds the result once (ew::halved), which is what
// f32 kernels between casts compute, in one pass; their scalars are f32.
#include "ops.cuh"

using namespace ew;

// ------------------------------------------------------------------------------------------------
// Fill, copy, cast, arange
// ------------------------------------------------------------------------------------------------

/// fill_<bits>: every element `v` (full; the host memsets patterns of one repeated byte).
#define BURN_FILL(T, SFX)                                     \
    extern "C" __global__ void fill_##SFX(T* o, i64 n, T v) { \
        generate(o, n, [=](i64) { return v; });               \
    }
BURN_FILL(i16, i16)
BURN_FILL(i32, i32)
BURN_FILL(i64, i64)
#undef BURN_FILL

/// copy_<bits>: a dense copy of a view (contiguous), by element size.
#define BURN_COPY(T, SFX)                                                                \
    extern "C" __global__ void copy_##SFX(const T* a, Meta ma, T* o, i64 n, int dense) { \
        map1<true>(a, ma, o, n, dense, [](T x) { return x; });                           \
    }
BURN_COPY(i8, i8)
BURN_COPY(i16, i16)
BURN_COPY(i32, i32)
BURN_COPY(i64, i64)
#undef BURN_COPY

/// arange: start + i * step in wrapping int64 arithmetic, converted (bool: != 0).
#define BURN_ARANGE(T, SFX)                                                     \
    extern "C" __global__ void arange_##SFX(T* o, i64 n, i64 start, i64 step) { \
        generate(o, n, [=](i64 i) {                                             \
            const i64 v = (i64)((u64)start + (u64)i * (u64)step);               \
            return convert<T>(v);                                               \
        });                                                                     \
    }
BURN_FOR_ALL(BURN_ARANGE)
#undef BURN_ARANGE

/// cast_<from>_<to> between f32, f64, i32, i64 and bool (convert: the CPU backend's casts).
#define BURN_CAST(TO, TO_SFX, FROM, FROM_SFX)                                                   \
    extern "C" __global__ void cast_##FROM_SFX##_##TO_SFX(const FROM* a, Meta ma, TO* o, i64 n, \
                                                          int dense) {                          \
        map1(a, ma, o, n, dense, [](FROM x) { return convert<TO>(x); });                        \
    }
// clang-format off
BURN_CAST(double, f64, float, f32)
BURN_CAST(i32, i32, float, f32)
BURN_CAST(i64, i64, float, f32)
BURN_CAST(u8, bool, float, f32)
BURN_CAST(float, f32, double, f64)
BURN_CAST(i32, i32, double, f64)
BURN_CAST(i64, i64, double, f64)
BURN_CAST(u8, bool, double, f64)
BURN_CAST(float, f32, i32, i32)
BURN_CAST(double, f64, i32, i32)
BURN_CAST(i64, i64, i32, i32)
BURN_CAST(u8, bool, i32, i32)
BURN_CAST(float, f32, i64, i64)
BURN_CAST(double, f64, i64, i64)
BURN_CAST(i32, i32, i64, i64)
BURN_CAST(u8, bool, i64, i64)
BURN_CAST(float, f32, u8, bool)
BURN_CAST(double, f64, u8, bool)
BURN_CAST(i32, i32, u8, bool)
BURN_CAST(i64, i64, u8, bool)
// clang-format on
#undef BURN_CAST

/// cast_<f32|f16|bf16>_<...>: f32 to and from the half types (others go through f32).
#define BURN_HALF_CAST(H, SFX)                                                                     \
    extern "C" __global__ void cast_f32_##SFX(const float* a, Meta ma, H* o, i64 n, int dense) {   \
        map1(a, ma, o, n, dense, [](float x) { return from_f32<H>(x); });                          \
    }                                                                                              \
    extern "C" __global__ void cast_##SFX##_f32(const H* a, Meta ma, float* o, i64 n, int dense) { \
        map1(a, ma, o, n, dense, [](H x) { return to_f32(x); });                                   \
    }
BURN_HALF_CAST(h16, f16)
BURN_HALF_CAST(bh16, bf16)
#undef BURN_HALF_CAST

// ------------------------------------------------------------------------------------------------
// Unary maps (the functors are in ops.cuh)
// ------------------------------------------------------------------------------------------------

/// The cheap maps share one kernel per dtype, selected by a code (the host's UnaryCode).
#define BURN_U_NEG 0
#define BURN_U_ABS 1
#define BURN_U_SIGN 2
#define BURN_U_SQUARE 3
#define BURN_U_SQRT 4
#define BURN_U_RECIP 5
#define BURN_U_ROUND 6
#define BURN_U_FLOOR 7
#define BURN_U_CEIL 8
template <class T>
struct Basic {
    int op;
    __device__ T operator()(T x) const {
        switch (op) {
            case BURN_U_NEG: return Neg<T>{}(x);
            case BURN_U_ABS: return Abs<T>{}(x);
            case BURN_U_SIGN: return Sign<T>{}(x);
            default: break;
        }
        if constexpr (IsFloat<T>::value) {
            switch (op) {
                case BURN_U_SQRT: return m_sqrt(x);
                case BURN_U_RECIP: return Recip<T>{}(x);
                case BURN_U_ROUND: return m_rint(x);
                case BURN_U_FLOOR: return m_floor(x);
                case BURN_U_CEIL: return m_ceil(x);
                default: break;
            }
        }
        return Square<T>{}(x);
    }
};
#define BURN_UNARY_BASIC(T, SFX)                                                              \
    extern "C" __global__ void unary_basic_##SFX(const T* a, Meta ma, T* o, i64 n, int dense, \
                                                 int op) {                                    \
        map1(a, ma, o, n, dense, Basic<T>{op});                                               \
    }
BURN_FOR_NUMBERS(BURN_UNARY_BASIC)
#undef BURN_UNARY_BASIC
#define BURN_UNARY_BASIC_HALF(T, SFX)                                                         \
    extern "C" __global__ void unary_basic_##SFX(const T* a, Meta ma, T* o, i64 n, int dense, \
                                                 int op) {                                    \
        map1(a, ma, o, n, dense, halved<T>(Basic<float>{op}));                                \
    }
BURN_FOR_HALVES(BURN_UNARY_BASIC_HALF)
#undef BURN_UNARY_BASIC_HALF

/// The transcendental maps: one kernel each (their own register budgets).
#define BURN_UNARY(NAME, OP, T, SFX)                                                               \
    extern "C" __global__ void unary_##NAME##_##SFX(const T* a, Meta ma, T* o, i64 n, int dense) { \
        map1(a, ma, o, n, dense, OP<T>{});                                                         \
    }
#define BURN_FLOAT_UNARY_OPS(X) \
    X(exp, Exp) X(log, Log) X(log1p, Log1p) X(erf, Erf) X(sin, Sin) X(cos, Cos) X(tanh, Tanh)
#define BURN_UNARY_HALF(NAME, OP, T, SFX)                                                          \
    extern "C" __global__ void unary_##NAME##_##SFX(const T* a, Meta ma, T* o, i64 n, int dense) { \
        map1(a, ma, o, n, dense, halved<T>(OP<float>{}));                                          \
    }
#define BURN_UNARY_HALVES(NAME, OP) \
    BURN_UNARY_HALF(NAME, OP, h16, f16) BURN_UNARY_HALF(NAME, OP, bh16, bf16)
#define BURN_UNARY_FLOATS(NAME, OP) \
    BURN_UNARY(NAME, OP, float, f32) BURN_UNARY(NAME, OP, double, f64) BURN_UNARY_HALVES(NAME, OP)
BURN_FLOAT_UNARY_OPS(BURN_UNARY_FLOATS)
#undef BURN_UNARY_FLOATS
#undef BURN_UNARY_HALVES
#undef BURN_UNARY_HALF
#undef BURN_UNARY

/// Logical not (x == 0) and is_nan, with bool outputs.
#define BURN_NOT(T, SFX)                                                                       \
    extern "C" __global__ void unary_not_##SFX(const T* a, Meta ma, u8* o, i64 n, int dense) { \
        map1(a, ma, o, n, dense, [](T x) { return (u8)(Val<T>::ld(x) == 0); });                \
    }
BURN_FOR_ALL(BURN_NOT)
BURN_FOR_HALVES(BURN_NOT)
#undef BURN_NOT
#define BURN_IS_NAN(T, SFX)                                                                 \
    extern "C" __global__ void is_nan_##SFX(const T* a, Meta ma, u8* o, i64 n, int dense) { \
        map1(a, ma, o, n, dense, [](T x) { return (u8)burn_isnan(Val<T>::ld(x)); });        \
    }
BURN_FOR_FLOATS(BURN_IS_NAN)
BURN_FOR_HALVES(BURN_IS_NAN)
#undef BURN_IS_NAN

/// clamp(x, lo, hi) = min(max(x, lo), hi), NaN propagating.
#define BURN_CLAMP(T, SFX)                                                                    \
    extern "C" __global__ void clamp_##SFX(const T* a, Meta ma, T* o, i64 n, int dense, T lo, \
                                           T hi) {                                            \
        map1(a, ma, o, n, dense, [=](T x) { return min_nan(max_nan(x, lo), hi); });           \
    }
BURN_FOR_NUMBERS(BURN_CLAMP)
#undef BURN_CLAMP
#define BURN_CLAMP_HALF(T, SFX)                                                                    \
    extern "C" __global__ void clamp_##SFX(const T* a, Meta ma, T* o, i64 n, int dense, float lo,  \
                                           float hi) {                                             \
        map1(a, ma, o, n, dense, halved<T>([=](float x) { return min_nan(max_nan(x, lo), hi); })); \
    }
BURN_FOR_HALVES(BURN_CLAMP_HALF)
#undef BURN_CLAMP_HALF

// ------------------------------------------------------------------------------------------------
// Binary arithmetic (div, remainder and pow's functors are in ops.cuh)
// ------------------------------------------------------------------------------------------------

/// add, sub, mul, max, min share one kernel per dtype, selected by a code (the host's
/// ArithCode); and, or share the bool one.
#define BURN_B_ADD 0
#define BURN_B_SUB 1
#define BURN_B_MUL 2
#define BURN_B_MAX 3
#define BURN_B_MIN 4
#define BURN_B_AND 0
#define BURN_B_OR 1
template <class T>
struct Arith : ErrorSink {
    int op;
    __device__ T operator()(T a, T b) const {
        switch (op) {
            case BURN_B_ADD: return wrap_add(a, b);
            case BURN_B_SUB: return wrap_sub(a, b);
            case BURN_B_MUL: return wrap_mul(a, b);
            case BURN_B_MAX: return max_nan(a, b);
            default: return min_nan(a, b);
        }
    }
};
template <class T>
struct Logic : ErrorSink {
    int op;
    __device__ T operator()(T a, T b) const {
        return op == BURN_B_AND ? (T)(a != (T)0 && b != (T)0) : (T)(a != (T)0 || b != (T)0);
    }
};
/// binary_<op>_<dtype>: tensor-tensor; binary_scalar_<op>_<dtype>: tensor-scalar. Every kernel
/// takes the error word, its tag and an op code (used by arith and logic). The half types compute
/// the f32 functor (Val, halved: it never fails) with f32 scalars.
#define BURN_BINARY(NAME, OP, T, SFX, VEC)                                                      \
    extern "C" __global__ void binary_##NAME##_##SFX(const T* a, Meta ma, const T* b, Meta mb,  \
                                                     T* o, i64 n, int dense, u32* err, u32 tag, \
                                                     int code) {                                \
        OP<typename Val<T>::V> op;                                                              \
        op.err = err;                                                                           \
        op.tag = tag;                                                                           \
        set_code(op, code);                                                                     \
        map2<VEC>(a, ma, b, mb, o, n, dense, halved<T>(op));                                    \
    }                                                                                           \
    extern "C" __global__ void binary_scalar_##NAME##_##SFX(const T* a, Meta ma, T* o, i64 n,   \
                                                            int dense, typename Val<T>::V v,    \
                                                            u32* err, u32 tag, int code) {      \
        typedef typename Val<T>::V C;                                                           \
        OP<C> op;                                                                               \
        op.err = err;                                                                           \
        op.tag = tag;                                                                           \
        set_code(op, code);                                                                     \
        map1(a, ma, o, n, dense, halved<T>([=](C x) { return op(x, v); }));                     \
    }
template <class Op>
__device__ __forceinline__ void set_code(Op& op, int code) {
    if constexpr (sizeof(Op) > sizeof(ErrorSink)) op.op = code;
}
/// The cheap ops read broadcast operands N elements at a time (VEC): arithmetic and division
/// (a row divided by its norm, say); remainder and pow keep one strided loop (their bodies are
/// large, and their arithmetic dominates anyway).
#define BURN_NUMERIC_BINARY_OPS(X) \
    X(arith, Arith, true) X(div, Div, true) X(remainder, Rem, false) X(pow, Pow, false)
// clang-format off
#define BURN_BINARY_NUMBERS(NAME, OP, VEC)                                     \
    BURN_BINARY(NAME, OP, float, f32, VEC) BURN_BINARY(NAME, OP, double, f64, VEC) \
    BURN_BINARY(NAME, OP, i32, i32, VEC) BURN_BINARY(NAME, OP, i64, i64, VEC)     \
    BURN_BINARY(NAME, OP, h16, f16, VEC) BURN_BINARY(NAME, OP, bh16, bf16, VEC)
// clang-format on
BURN_NUMERIC_BINARY_OPS(BURN_BINARY_NUMBERS)
BURN_BINARY(logic, Logic, u8, bool, true)
#undef BURN_BINARY_NUMBERS
#undef BURN_BINARY

// ------------------------------------------------------------------------------------------------
// Comparisons (bool outputs; NaN compares false except for ne)
// ------------------------------------------------------------------------------------------------

/// One kernel per dtype, selected by a code (the host's CmpCode).
#define BURN_C_EQ 0
#define BURN_C_NE 1
#define BURN_C_GT 2
#define BURN_C_GE 3
#define BURN_C_LT 4
#define BURN_C_LE 5
struct Cmp {
    int op;
    template <class T>
    __device__ u8 operator()(T a, T b) const {
        switch (op) {
            case BURN_C_EQ: return (u8)(a == b);
            case BURN_C_NE: return (u8)(a != b);
            case BURN_C_GT: return (u8)(a > b);
            case BURN_C_GE: return (u8)(a >= b);
            case BURN_C_LT: return (u8)(a < b);
            default: return (u8)(a <= b);
        }
    }
};

/// The half types compare their f32 values (Val) with an f32 scalar.
#define BURN_COMPARE(T, SFX)                                                                      \
    extern "C" __global__ void compare_##SFX(const T* a, Meta ma, const T* b, Meta mb, u8* o,     \
                                             i64 n, int dense, int op) {                          \
        const Cmp cmp{op};                                                                        \
        map2<true>(a, ma, b, mb, o, n, dense,                                                     \
                   [=](T x, T y) { return cmp(Val<T>::ld(x), Val<T>::ld(y)); });                  \
    }                                                                                             \
    extern "C" __global__ void compare_scalar_##SFX(const T* a, Meta ma, u8* o, i64 n, int dense, \
                                                    typename Val<T>::V v, int op) {               \
        const Cmp cmp{op};                                                                        \
        map1(a, ma, o, n, dense, [=](T x) { return cmp(Val<T>::ld(x), v); });                     \
    }
BURN_FOR_ALL(BURN_COMPARE)
BURN_FOR_HALVES(BURN_COMPARE)
#undef BURN_COMPARE

// ------------------------------------------------------------------------------------------------
// Masked selects: o = mask ? value : t
// ------------------------------------------------------------------------------------------------

/// The half types select the stored values; their scalar comes as f32 and is rounded once (Val).
#define BURN_WHERE(T, SFX)                                                                        \
    extern "C" __global__ void where_##SFX(const T* t, Meta mt, const u8* mask, Meta mm,          \
                                           const T* v, Meta mv, T* o, i64 n, int dense) {         \
        map3(t, mt, mask, mm, v, mv, o, n, dense, [](T x, u8 k, T y) { return k ? y : x; });      \
    }                                                                                             \
    extern "C" __global__ void where_scalar_##SFX(const T* t, Meta mt, const u8* mask, Meta mm,   \
                                                  typename Val<T>::V v, T* o, i64 n, int dense) { \
        const T h = Val<T>::st(v);                                                                \
        map2<true>(t, mt, mask, mm, o, n, dense, [=](T x, u8 k) { return k ? h : x; });           \
    }
BURN_FOR_ALL(BURN_WHERE)
BURN_FOR_HALVES(BURN_WHERE)
#undef BURN_WHERE

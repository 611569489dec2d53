// SPDX-License-Identifier: MIT OR Apache-2.0
// The element functors of the element-wise kernels: unary maps, the binary ops that can fail or
// have float-specific forms (div, remainder, pow), the activations and their backward formulas,
// with the CPU backend's semantics (backends/cpu/src/elementwise.hpp, activation_ops.hpp). Used by
// elementwise.cu and activation.cu, and by the programs Fusion<Cuda> generates at run time
// (backends/cuda/src/ops_fused.cpp), so a fused op computes what its unfused kernel computes.
#pragma once

#include "elementwise.cuh"

namespace ew {

// ------------------------------------------------------------------------------------------------
// Correctly rounded float arithmetic that the compiler never contracts into a fused multiply-add:
// the generated programs chain ops that the unfused kernels run one by one, each rounded.
// ------------------------------------------------------------------------------------------------

__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }

// ------------------------------------------------------------------------------------------------
// Unary maps (elementwise.hpp's U* functors)
// ------------------------------------------------------------------------------------------------

template <class T>
struct Neg {
    __device__ T operator()(T x) const { return wrap_neg(x); }
};
template <class T>
struct Abs {
    __device__ T operator()(T x) const {
        if constexpr (IsFloat<T>::value) return m_fabs(x);
        else return x < (T)0 ? wrap_neg(x) : x;
    }
};
/// (0 < x) - (x < 0); NaN stays NaN.
template <class T>
struct Sign {
    __device__ T operator()(T x) const {
        if constexpr (IsFloat<T>::value)
            if (x != x) return x;
        return (T)((int)((T)0 < x) - (int)(x < (T)0));
    }
};
template <class T>
struct Square {
    __device__ T operator()(T x) const { return wrap_mul(x, x); }
};
template <class T>
struct Recip {
    __device__ T operator()(T x) const { return (T)1 / x; }
};
/// Round is rint: half to even (the default rounding mode).
#define BURN_MATH_FUNCTOR(NAME, FN)                          \
    template <class T>                                       \
    struct NAME {                                            \
        __device__ T operator()(T x) const { return FN(x); } \
    };
BURN_MATH_FUNCTOR(Exp, m_exp)
BURN_MATH_FUNCTOR(Log, m_log)
BURN_MATH_FUNCTOR(Log1p, m_log1p)
BURN_MATH_FUNCTOR(Erf, m_erf)
BURN_MATH_FUNCTOR(Sin, m_sin)
BURN_MATH_FUNCTOR(Cos, m_cos)
BURN_MATH_FUNCTOR(Tanh, m_tanh)
#undef BURN_MATH_FUNCTOR

// ------------------------------------------------------------------------------------------------
// Binary ops (elementwise.hpp's B* functors). Functors that can fail carry the error word and the
// op's tag.
// ------------------------------------------------------------------------------------------------

struct ErrorSink {
    u32* err;
    u32 tag;
};

/// Floats: IEEE division. Ints: truncation toward zero; INT_MIN / -1 wraps.
template <class T>
struct Div : ErrorSink {
    __device__ T operator()(T a, T b) const {
        if constexpr (IsFloat<T>::value) {
            return a / b;
        } else {
            if (b == (T)0) {
                burn_report_error(err, tag, BURN_ERR_DIV_ZERO);
                return (T)0;
            }
            if (b == (T)-1) return wrap_neg(a);
            return a / b;
        }
    }
};
/// Floor modulo (torch.remainder): the result has the sign of the divisor.
template <class T>
struct Rem : ErrorSink {
    __device__ T operator()(T a, T b) const {
        if constexpr (IsFloat<T>::value) {
            T r = m_fmod(a, b);
            if (r != (T)0 && ((b < (T)0) != (r < (T)0))) r += b;
            return r;
        } else {
            if (b == (T)0) {
                burn_report_error(err, tag, BURN_ERR_DIV_ZERO);
                return (T)0;
            }
            if (b == (T)-1) return (T)0;
            T r = a % b;
            if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r = wrap_add(r, b);
            return r;
        }
    }
};
/// Floats: pow. Ints: exact power by squaring (wrapping); a negative exponent is an error.
template <class T>
struct Pow : ErrorSink {
    __device__ T operator()(T a, T b) const {
        if constexpr (IsFloat<T>::value) {
            return m_pow(a, b);
        } else {
            if (b < (T)0) {
                burn_report_error(err, tag, BURN_ERR_NEG_EXPONENT);
                return (T)0;
            }
            typedef typename Unsigned<T>::type U;
            U base = (U)a, r = 1;
            u64 e = (u64)b;
            while (e) {
                if (e & 1u) r *= base;
                base *= base;
                e >>= 1;
            }
            return (T)r;
        }
    }
};

// ------------------------------------------------------------------------------------------------
// Activations (backends/cpu/src/activation_ops.hpp): sigmoid and log_sigmoid go through
// exp(-|x|), gelu is the exact erf form, NaN inputs give NaN.
// ------------------------------------------------------------------------------------------------

template <class T>
struct Consts {
    __device__ static T sqrt1_2() { return (T)0.707106781186547524400844362104849039; }
    __device__ static T inv_sqrt_2pi() { return (T)0.398942280401432677939946059934381868; }
};

/// max(x, 0); NaN stays NaN.
template <class T>
struct Relu {
    T alpha, beta;
    __device__ T operator()(T x) const { return x < (T)0 ? (T)0 : x; }
};
/// x > 0 ? x : alpha * x.
template <class T>
struct LeakyRelu {
    T alpha, beta;
    __device__ T operator()(T x) const { return x > (T)0 ? x : x * alpha; }
};
/// clamp(alpha * x + beta, 0, 1), NaN propagating.
template <class T>
struct HardSigmoid {
    T alpha, beta;
    __device__ T operator()(T x) const { return min_nan(max_nan(alpha * x + beta, (T)0), (T)1); }
};
/// x / 2 * (1 + erf(x / sqrt(2))), PyTorch's exact form.
template <class T>
struct Gelu {
    T alpha, beta;
    __device__ T operator()(T x) const {
        return x * (T)0.5 * ((T)1 + m_erf(x * Consts<T>::sqrt1_2()));
    }
};
/// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: exp only ever sees -|x| (the CPU backend's
/// vectorised form: r = 1 / (1 + e), x < 0 ? e * r : r, with e = exp(-|x|); NaN gives NaN).
template <class T>
struct Sigmoid {
    T alpha, beta;
    __device__ T operator()(T x) const {
        const T e = m_exp(-m_fabs(x));
        const T r = (T)1 / ((T)1 + e);
        return x < (T)0 ? e * r : r;
    }
};
/// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): finite for every finite x.
template <class T>
struct LogSigmoid {
    T alpha, beta;
    __device__ T operator()(T x) const {
        const T lo = (T)0 < x ? (T)0 : x;  // std::min(x, 0): NaN stays
        return lo - m_log1p(m_exp(-m_fabs(x)));
    }
};

// Backward: a = the saved tensor, g = the incoming gradient.

/// From relu's output: 0 where out <= 0, g elsewhere (a NaN output passes g).
template <class T>
struct ReluBackward {
    __device__ T operator()(T out, T g) const { return out <= (T)0 ? (T)0 : g; }
};
/// From sigmoid's output y: g * (1 - y) * y.
template <class T>
struct SigmoidBackward {
    __device__ T operator()(T y, T g) const { return g * ((T)1 - y) * y; }
};
/// From gelu's input: g * (Phi(x) + x * phi(x)).
template <class T>
struct GeluBackward {
    __device__ T operator()(T x, T g) const {
        const T cdf = (T)0.5 * ((T)1 + m_erf(x * Consts<T>::sqrt1_2()));
        const T pdf = m_exp((T)-0.5 * x * x) * Consts<T>::inv_sqrt_2pi();
        return g * (cdf + x * pdf);
    }
};
/// From log_sigmoid's input: g * sigmoid(-x), through exp(-|x|); NaN x gives NaN.
template <class T>
struct LogSigmoidBackward {
    __device__ T operator()(T x, T g) const {
        const T e = m_exp(-m_fabs(x));
        const T r = (T)1 / ((T)1 + e);
        return g * (x >= (T)0 ? e * r : (x < (T)0 ? r : x));
    }
};

}  // namespace ew

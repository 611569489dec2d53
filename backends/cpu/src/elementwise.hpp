// SPDX-License-Identifier: MIT OR Apache-2.0
// Machinery shared by the element-wise kernels (elementwise.cpp, unary.cpp, compare.cpp): the op
// functors, the dense SIMD kernels, row handling of strided operands, and the broadcasting drivers.
// Private to backends/cpu/src; split over several files only to keep each one's compile time low.
//
// Every op is reduced to "rows": runs of elements in which each operand is dense (stride 1),
// broadcast (stride 0) or strided. Strided operands are gathered into a small scratch block, so
// the dense kernels do all the arithmetic; for f32/f64 those use Eigen's packet math (SIMD exp,
// log, tanh, sin, cos, erf, ...). Dense same-shape operands take a flat path split over threads,
// and large fresh outputs are written with non-temporal stores. Ops write their result into an
// input's buffer when that input is the sole owner of a dense buffer of the output's shape/dtype.
#pragma once

#include <unsupported/Eigen/SpecialFunctions>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "internal.hpp"
#include "simd.hpp"

namespace burn::cpu::ew {

using std::int64_t;
using std::size_t;

/// Elements gathered at a time from a strided operand.
constexpr size_t kBlock = 256;

// ------------------------------------------------------------------------------------------------
// SIMD helpers (Pk, kVec, max_nan, min_nan: simd.hpp)
// ------------------------------------------------------------------------------------------------

// Correctly rounded hardware square root (Eigen's fast-math psqrt maps inf to NaN and flushes
// subnormals).
template <class P>
P hw_sqrt(const P&) = delete;
#if defined(__AVX512F__)
[[maybe_unused]] inline __m512 hw_sqrt(const __m512& x) { return _mm512_sqrt_ps(x); }
[[maybe_unused]] inline __m512d hw_sqrt(const __m512d& x) { return _mm512_sqrt_pd(x); }
#endif
#if defined(__AVX__)
[[maybe_unused]] inline __m256 hw_sqrt(const __m256& x) { return _mm256_sqrt_ps(x); }
[[maybe_unused]] inline __m256d hw_sqrt(const __m256d& x) { return _mm256_sqrt_pd(x); }
#endif
#if defined(__SSE2__)
[[maybe_unused]] inline __m128 hw_sqrt(const __m128& x) { return _mm_sqrt_ps(x); }
[[maybe_unused]] inline __m128d hw_sqrt(const __m128d& x) { return _mm_sqrt_pd(x); }
#endif
template <class P>
concept HasHwSqrt = requires(const P& p) {
    { hw_sqrt(p) } -> std::same_as<P>;
};

// ------------------------------------------------------------------------------------------------
// Scalar helpers
// ------------------------------------------------------------------------------------------------

/// Unsigned type wide enough that products of two values do not promote to (overflowing) int.
template <class E>
using Wide = std::conditional_t<(sizeof(E) <= 4), std::uint32_t, std::uint64_t>;

template <class E>
inline E wrap_add(E a, E b) {
    if constexpr (std::is_integral_v<E>) return static_cast<E>(Wide<E>(a) + Wide<E>(b));
    else return a + b;
}
template <class E>
inline E wrap_sub(E a, E b) {
    if constexpr (std::is_integral_v<E>) return static_cast<E>(Wide<E>(a) - Wide<E>(b));
    else return a - b;
}
template <class E>
inline E wrap_mul(E a, E b) {
    if constexpr (std::is_integral_v<E>) return static_cast<E>(Wide<E>(a) * Wide<E>(b));
    else return a * b;
}
template <class E>
inline E wrap_neg(E a) {
    if constexpr (std::is_integral_v<E>) return static_cast<E>(Wide<E>(0) - Wide<E>(a));
    else return -a;
}

// ------------------------------------------------------------------------------------------------
// Unary ops. Each has scalar(x) -> output; those with vec<E> also packet(P) (same type in and out).
// checked(x, y) computes y = packet(x) and returns false when some lane needs the scalar code.
// ------------------------------------------------------------------------------------------------
// The op functors keep one line per member: a table to read across.
// clang-format off

#define BURN_UNCHECKED \
    template <class P> bool checked(const P& x, P& y) const { y = packet(x); return true; }

struct UNeg {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E x) const { return wrap_neg(x); }
    template <class P> P packet(const P& x) const { return ei::pnegate(x); }
};
struct UAbs {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E x) const {
        if constexpr (std::is_floating_point_v<E>) return std::fabs(x);
        else if constexpr (std::is_signed_v<E>) return x < 0 ? wrap_neg(x) : x;
        else return x;
    }
    template <class P> P packet(const P& x) const { return ei::pabs(x); }
};
/// torch.sign: (0 < x) - (x < 0); NaN gives 0 as in PyTorch.
struct USign {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = false;
    template <class E> E scalar(E x) const {
        if constexpr (std::is_floating_point_v<E>)
            if (x != x) return x;  // NaN stays NaN (as NumPy; torch 1.13 returns 0)
        return static_cast<E>(int(E(0) < x) - int(x < E(0)));
    }
    template <class P> P packet(const P& x) const { return x; }
};
struct USquare {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E x) const { return wrap_mul(x, x); }
    template <class P> P packet(const P& x) const { return ei::pmul(x, x); }
};
#if defined(__AVX512F__)
/// exp for 16 floats, within about 1 ulp over the whole range (checked against every float in
/// [-110, 92]): Cody-Waite reduction x = m ln2 + r, Cephes' degree-5 polynomial for exp(r), and
/// vscalefps for 2^m, which overflows to inf and produces subnormals and 0 exactly as IEEE does.
/// The clamp keeps r finite for +-inf (min/max return their second operand, x, when it is NaN).
[[maybe_unused]] inline __m512 exp_avx512(__m512 x) {
    x = _mm512_min_ps(_mm512_set1_ps(89.0f), x);
    x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
    const __m512 m = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(m, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(m, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    const __m512 y = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(y, m);
}
#endif

struct UExp {
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasExp;
    template <class E> E scalar(E x) const { return std::exp(x); }
    template <class P> P packet(const P& x) const { return ei::pexp(x); }
#if defined(__AVX512F__)
    bool checked(const __m512& x, __m512& y) const {
        y = exp_avx512(x);
        return true;
    }
#endif
    // Eigen's packet exp clamps its argument, so it neither overflows to inf nor produces
    // subnormals. Packets inside [-87, 88] (the common case, one compare) use it directly; otherwise
    // lanes beyond the limits are set to inf / 0 and packets with lanes near them use std::exp.
    template <class P> bool checked(const P& x, P& y) const {
        using S = typename ei::unpacket_traits<P>::type;
        constexpr bool f32 = std::is_same_v<S, float>;
        // |x - 0.5| <= 87.5  <=>  -87 <= x <= 88   (f64: |x - 0.5| <= 708.5 <=> -708 <= x <= 709)
        const P centre = ei::pset1<P>(S(0.5)), radius = ei::pset1<P>(f32 ? S(87.5) : S(708.5));
        y = ei::pexp(x);
        if (!ei::predux_any(ei::pcmp_lt_or_nan(radius, ei::pabs(ei::psub(x, centre))))) return true;
        const P zero_below = ei::pset1<P>(f32 ? S(-104) : S(-746));   // exp underflows to 0
        const P inf_above = ei::pset1<P>(f32 ? S(89) : S(710));       // exp overflows to inf
        const P ok_lo = ei::pset1<P>(f32 ? S(-87) : S(-708)), ok_hi = ei::pset1<P>(f32 ? S(88) : S(709));
        const P near = ei::por(ei::pand(ei::pcmp_le(zero_below, x), ei::pcmp_lt(x, ok_lo)),
                               ei::pand(ei::pcmp_lt(ok_hi, x), ei::pcmp_lt(x, inf_above)));
        if (ei::predux_any(near)) return false;
        y = ei::pselect(ei::pcmp_lt(x, zero_below), ei::pzero(x), y);
        y = ei::pselect(ei::pcmp_le(inf_above, x), ei::pset1<P>(std::numeric_limits<S>::infinity()), y);
        return true;
    }
};
struct ULog {
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasLog;
    template <class E> E scalar(E x) const { return std::log(x); }
    template <class P> P packet(const P& x) const { return ei::plog(x); }
    // Eigen's packet log handles 0, negatives, inf and NaN, but not positive subnormals.
    template <class P> bool checked(const P& x, P& y) const {
        using S = typename ei::unpacket_traits<P>::type;
        const P tiny = ei::pset1<P>(std::numeric_limits<S>::min());
        if (ei::predux_any(ei::pand(ei::pcmp_lt(ei::pzero(x), x), ei::pcmp_lt(x, tiny)))) return false;
        y = ei::plog(x);
        return true;
    }
};
struct ULog1p {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasLog1p;
    template <class E> E scalar(E x) const { return std::log1p(x); }
    template <class P> P packet(const P& x) const { return ei::plog1p(x); }
};
struct UErf {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasErf;
    template <class E> E scalar(E x) const { return std::erf(x); }
    template <class P> P packet(const P& x) const { return ei::perf(x); }
};
struct USqrt {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = [] {
        if constexpr (kVec<E>) return HasHwSqrt<Pk<E>>;
        else return false;
    }();
    template <class E> E scalar(E x) const { return std::sqrt(x); }
    template <class P> P packet(const P& x) const { return hw_sqrt(x); }
};
struct URecip {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E x) const { return E(1) / x; }
    template <class P> P packet(const P& x) const {
        using S = typename ei::unpacket_traits<P>::type;
        return ei::pdiv(ei::pset1<P>(S(1)), x);
    }
};
struct USin {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasSin;
    template <class E> E scalar(E x) const { return std::sin(x); }
    template <class P> P packet(const P& x) const { return ei::psin(x); }
};
struct UCos {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasCos;
    template <class E> E scalar(E x) const { return std::cos(x); }
    template <class P> P packet(const P& x) const { return ei::pcos(x); }
};
struct UTanh {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasTanh;
    template <class E> E scalar(E x) const { return std::tanh(x); }
    template <class P> P packet(const P& x) const { return ei::ptanh(x); }
};
/// Round half to even (torch.round): the default rounding mode.
struct URound {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasRint;
    template <class E> E scalar(E x) const { return std::nearbyint(x); }
    template <class P> P packet(const P& x) const { return ei::print(x); }
};
struct UFloor {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasFloor;
    template <class E> E scalar(E x) const { return std::floor(x); }
    template <class P> P packet(const P& x) const { return ei::pfloor(x); }
};
struct UCeil {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = kVec<E> && ei::packet_traits<E>::HasCeil;
    template <class E> E scalar(E x) const { return std::ceil(x); }
    template <class P> P packet(const P& x) const { return ei::pceil(x); }
};
/// Logical not: output is bool.
struct UNot {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = false;
    template <class E> std::uint8_t scalar(E x) const { return x == E(0); }
    template <class P> P packet(const P& x) const { return x; }
};
struct UIsNan {
    BURN_UNCHECKED
    template <class E> static constexpr bool vec = false;
    template <class E> std::uint8_t scalar(E x) const { return x != x; }
    template <class P> P packet(const P& x) const { return x; }
};
/// clamp(x, lo, hi) = min(max(x, lo), hi), NaN propagating (a NaN input stays NaN).
template <class E>
struct UClamp {
    BURN_UNCHECKED
    E lo_, hi_;
    template <class T> static constexpr bool vec = kVec<T>;
    template <class T> E scalar(T x) const { return min_nan<E>(max_nan<E>(x, lo_), hi_); }
    template <class P> P packet(const P& x) const {
        return ei::pmin<Eigen::PropagateNaN>(ei::pmax<Eigen::PropagateNaN>(x, ei::pset1<P>(lo_)),
                                             ei::pset1<P>(hi_));
    }
};

// ------------------------------------------------------------------------------------------------
// Binary ops: scalar(a, b) -> output; vec<E> ones also packet(Pa, Pb).
// ------------------------------------------------------------------------------------------------

struct BAdd {
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E a, E b) const { return wrap_add(a, b); }
    template <class P> P packet(const P& a, const P& b) const { return ei::padd(a, b); }
};
struct BSub {
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E a, E b) const { return wrap_sub(a, b); }
    template <class P> P packet(const P& a, const P& b) const { return ei::psub(a, b); }
};
struct BMul {
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E a, E b) const { return wrap_mul(a, b); }
    template <class P> P packet(const P& a, const P& b) const { return ei::pmul(a, b); }
};
/// Floats: IEEE division. Ints: truncation toward zero; division by zero throws.
struct BDiv {
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E a, E b) const {
        if constexpr (std::is_floating_point_v<E>) {
            return a / b;
        } else {
            if (b == E(0)) detail::fail("div: integer division by zero");
            if constexpr (std::is_signed_v<E>)
                if (b == E(-1)) return wrap_neg(a);  // INT_MIN / -1 would trap
            return static_cast<E>(a / b);
        }
    }
    template <class P> P packet(const P& a, const P& b) const { return ei::pdiv(a, b); }
};
/// Floor modulo (Python's %, torch.remainder): the result has the sign of the divisor.
struct BRem {
    template <class E> static constexpr bool vec = false;
    template <class E> E scalar(E a, E b) const {
        if constexpr (std::is_floating_point_v<E>) {
            E r = std::fmod(a, b);
            if (r != E(0) && ((b < E(0)) != (r < E(0)))) r += b;
            return r;
        } else {
            if (b == E(0)) detail::fail("remainder: integer division by zero");
            if constexpr (std::is_signed_v<E>) {
                if (b == E(-1)) return E(0);
                E r = static_cast<E>(a % b);
                if (r != E(0) && ((r < E(0)) != (b < E(0)))) r = static_cast<E>(r + b);
                return r;
            } else {
                return static_cast<E>(a % b);
            }
        }
    }
    template <class P> P packet(const P& a, const P&) const { return a; }
};
/// Floats: std::pow. Ints: exact power by squaring (wrapping); negative exponents throw.
struct BPow {
    template <class E> static constexpr bool vec = false;
    template <class E> E scalar(E a, E b) const {
        if constexpr (std::is_floating_point_v<E>) {
            return std::pow(a, b);
        } else {
            if constexpr (std::is_signed_v<E>)
                if (b < E(0)) detail::fail("powi: negative integer exponent");
            Wide<E> base = static_cast<Wide<E>>(a), r = 1;
            auto e = static_cast<std::uint64_t>(b);
            while (e) {
                if (e & 1u) r *= base;
                base *= base;
                e >>= 1;
            }
            return static_cast<E>(r);
        }
    }
    template <class P> P packet(const P& a, const P&) const { return a; }
};
/// NaN-propagating maximum/minimum (torch.maximum / torch.minimum).
struct BMax {
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E a, E b) const { return max_nan(a, b); }
    template <class P> P packet(const P& a, const P& b) const {
        return ei::pmax<Eigen::PropagateNaN>(a, b);
    }
};
struct BMin {
    template <class E> static constexpr bool vec = kVec<E>;
    template <class E> E scalar(E a, E b) const { return min_nan(a, b); }
    template <class P> P packet(const P& a, const P& b) const {
        return ei::pmin<Eigen::PropagateNaN>(a, b);
    }
};
struct BAnd {
    template <class E> static constexpr bool vec = false;
    template <class E> E scalar(E a, E b) const { return static_cast<E>(a != E(0) && b != E(0)); }
    template <class P> P packet(const P& a, const P&) const { return a; }
};
struct BOr {
    template <class E> static constexpr bool vec = false;
    template <class E> E scalar(E a, E b) const { return static_cast<E>(a != E(0) || b != E(0)); }
    template <class P> P packet(const P& a, const P&) const { return a; }
};

/// Comparisons produce bool (uint8 0/1); NaN compares false except for Ne.
template <CmpOp C>
struct BCmp {
    template <class E> static constexpr bool vec = false;
    template <class E> std::uint8_t scalar(E a, E b) const {
        if constexpr (C == CmpOp::Eq) return a == b;
        else if constexpr (C == CmpOp::Ne) return a != b;
        else if constexpr (C == CmpOp::Gt) return a > b;
        else if constexpr (C == CmpOp::Ge) return a >= b;
        else if constexpr (C == CmpOp::Lt) return a < b;
        else return a <= b;
    }
    template <class P> P packet(const P& a, const P&) const { return a; }
};

// clang-format on
// ------------------------------------------------------------------------------------------------
// Dense kernels (all operands stride 0 or 1)
// ------------------------------------------------------------------------------------------------

/// Outputs at least this large that do not alias an input are written with non-temporal stores
/// (no read-for-ownership of the destination; the result would not stay in cache anyway).
constexpr size_t kStreamBytes = size_t{16} << 20;

// Non-temporal packet stores (destination aligned to the packet size).
template <class E, class P>
void pstream(E*, const P&) = delete;
#if defined(__AVX512F__)
[[maybe_unused]] inline void pstream(float* p, const __m512& v) { _mm512_stream_ps(p, v); }
[[maybe_unused]] inline void pstream(double* p, const __m512d& v) { _mm512_stream_pd(p, v); }
#endif
#if defined(__AVX__)
[[maybe_unused]] inline void pstream(float* p, const __m256& v) { _mm256_stream_ps(p, v); }
[[maybe_unused]] inline void pstream(double* p, const __m256d& v) { _mm256_stream_pd(p, v); }
#endif
#if defined(__SSE2__)
[[maybe_unused]] inline void pstream(float* p, const __m128& v) { _mm_stream_ps(p, v); }
[[maybe_unused]] inline void pstream(double* p, const __m128d& v) { _mm_stream_pd(p, v); }
#endif
template <class E, class P>
concept HasStream = requires(E* p, const P& v) {
    pstream(p, v);
};

/// Makes non-temporal stores of this thread visible before the work is handed back.
inline void stream_fence() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/// o[i] = scalar(i) for i < n, by packets where Vec: packet(i, y) computes the packet at i and
/// returns false when that packet must be done by the scalar code. NT: non-temporal stores.
template <bool Vec, bool NT, class E, class O, class PF, class SF>
inline void dense_map(O* o, size_t n, PF&& packet, SF&& scalar) {
    size_t i = 0;
    if constexpr (Vec) {
        using P = Pk<E>;
        constexpr size_t L = ei::unpacket_traits<P>::size;
        constexpr bool stream = NT && HasStream<O, P>;
        if constexpr (stream)
            for (; i < n && reinterpret_cast<std::uintptr_t>(o + i) % sizeof(P) != 0; ++i)
                o[i] = scalar(i);
        for (; i + L <= n; i += L) {
            P y;
            if (packet(i, y)) {
                if constexpr (stream) pstream(o + i, y);
                else ei::pstoreu(o + i, y);
            } else {
                for (size_t j = i; j < i + L; ++j) o[j] = scalar(j);
            }
        }
    }
    for (; i < n; ++i) o[i] = scalar(i);
}

template <class E, class O, class Op>
inline constexpr bool kVecOp = std::is_same_v<E, O>&& Op::template vec<E>;

template <bool NT, class E, class O, class Op>
void unary_dense(const E* a, O* o, size_t n, const Op& op) {
    dense_map<kVecOp<E, O, Op>, NT, E>(
        o, n, [&](size_t i, auto& y) { return op.checked(ei::ploadu<Pk<E>>(a + i), y); },
        [&](size_t i) { return op.template scalar<E>(a[i]); });
}

template <bool NT, class E, class O, class Op>
void binary_vv(const E* a, const E* b, O* o, size_t n, const Op& op) {
    dense_map<kVecOp<E, O, Op>, NT, E>(
        o, n,
        [&](size_t i, auto& y) {
            y = op.packet(ei::ploadu<Pk<E>>(a + i), ei::ploadu<Pk<E>>(b + i));
            return true;
        },
        [&](size_t i) { return op.template scalar<E>(a[i], b[i]); });
}

template <bool NT, class E, class O, class Op>
void binary_vs(const E* a, E b, O* o, size_t n, const Op& op) {
    if constexpr (kVecOp<E, O, Op>) {
        const Pk<E> pb = ei::pset1<Pk<E>>(b);
        dense_map<true, NT, E>(
            o, n,
            [&](size_t i, auto& y) {
                y = op.packet(ei::ploadu<Pk<E>>(a + i), pb);
                return true;
            },
            [&](size_t i) { return op.template scalar<E>(a[i], b); });
    } else {
        for (size_t i = 0; i < n; ++i) o[i] = op.template scalar<E>(a[i], b);
    }
}

template <bool NT, class E, class O, class Op>
void binary_sv(E a, const E* b, O* o, size_t n, const Op& op) {
    if constexpr (kVecOp<E, O, Op>) {
        const Pk<E> pa = ei::pset1<Pk<E>>(a);
        dense_map<true, NT, E>(
            o, n,
            [&](size_t i, auto& y) {
                y = op.packet(pa, ei::ploadu<Pk<E>>(b + i));
                return true;
            },
            [&](size_t i) { return op.template scalar<E>(a, b[i]); });
    } else {
        for (size_t i = 0; i < n; ++i) o[i] = op.template scalar<E>(a, b[i]);
    }
}

// ------------------------------------------------------------------------------------------------
// Rows: any strides; strided operands are gathered into a scratch block first.
// ------------------------------------------------------------------------------------------------

template <bool NT = false, class E, class O, class Op>
void unary_row(const E* a, int64_t sa, O* o, size_t n, const Op& op) {
    if (sa == 1) return unary_dense<NT, E, O>(a, o, n, op);
    if (sa == 0) {
        std::fill_n(o, n, op.template scalar<E>(*a));
        return;
    }
    alignas(64) E buf[kBlock];
    for (size_t i = 0; i < n; i += kBlock) {
        const size_t m = std::min(kBlock, n - i);
        const E* p = a + static_cast<int64_t>(i) * sa;
        for (size_t j = 0; j < m; ++j) buf[j] = p[static_cast<int64_t>(j) * sa];
        unary_dense<false, E, O>(buf, o + i, m, op);
    }
}

/// Both strides in {0, 1}.
template <bool NT = false, class E, class O, class Op>
void binary_fast(const E* a, int64_t sa, const E* b, int64_t sb, O* o, size_t n, const Op& op) {
    if (sa == 1 && sb == 1) binary_vv<NT, E, O>(a, b, o, n, op);
    else if (sa == 1) binary_vs<NT, E, O>(a, *b, o, n, op);
    else if (sb == 1) binary_sv<NT, E, O>(*a, b, o, n, op);
    else std::fill_n(o, n, op.template scalar<E>(*a, *b));
}

template <class E, class O, class Op>
void binary_row(const E* a, int64_t sa, const E* b, int64_t sb, O* o, size_t n, const Op& op) {
    const bool ga = sa != 0 && sa != 1, gb = sb != 0 && sb != 1;
    if (!ga && !gb) return binary_fast<false, E, O>(a, sa, b, sb, o, n, op);
    alignas(64) E ta[kBlock];
    alignas(64) E tb[kBlock];
    for (size_t i = 0; i < n; i += kBlock) {
        const size_t m = std::min(kBlock, n - i);
        const E* pa = a + static_cast<int64_t>(i) * sa;
        const E* pb = b + static_cast<int64_t>(i) * sb;
        if (ga) {
            for (size_t j = 0; j < m; ++j) ta[j] = pa[static_cast<int64_t>(j) * sa];
            pa = ta;
        }
        if (gb) {
            for (size_t j = 0; j < m; ++j) tb[j] = pb[static_cast<int64_t>(j) * sb];
            pb = tb;
        }
        binary_fast<false, E, O>(pa, ga ? 1 : sa, pb, gb ? 1 : sb, o + i, m, op);
    }
}

// ------------------------------------------------------------------------------------------------
// Drivers
// ------------------------------------------------------------------------------------------------

/// An operand as seen from the output: broadcast strides, plus whether it can be walked flat.
struct View {
    const std::byte* base = nullptr;  ///< element 0 of the buffer
    int64_t offset = 0;
    Strides strides{};
    bool flat = false;    ///< dense with the output's element count: element i at offset + i
    bool scalar = false;  ///< a single element
};

inline View view_of(const CpuTensor& t, const Shape& out) {
    View v;
    v.base = t.buffer->data();
    v.offset = t.offset;
    v.strides = broadcast_strides(t, out);
    v.flat = t.num_elements() == out.num_elements() && t.is_contiguous();
    v.scalar = t.num_elements() == 1;
    return v;
}

inline View view_scalar(const void* p) {
    View v;
    v.base = static_cast<const std::byte*>(p);
    v.scalar = true;
    return v;
}

template <class E>
const E* ptr(const View& v) {
    return reinterpret_cast<const E*>(v.base);
}

/// Calls row(begin, end) over [0, len), splitting long rows over threads.
template <class F>
void split_row(size_t len, F&& row) {
    if (len >= 2 * kParallelGrain) parallel_for(len, kParallelGrain, row);
    else row(size_t{0}, len);
}

template <class E, class O, class Op>
void run_unary(const View& a, const CpuTensor& out, const Op& op) {
    const size_t n = out.num_elements();
    if (n == 0) return;
    const E* pa = ptr<E>(a);
    O* po = reinterpret_cast<O*>(out.buffer->data());
    if (a.flat || a.scalar) {
        const int64_t sa = a.flat ? 1 : 0;
        const E* a0 = pa + a.offset;
        O* o0 = po + out.offset;
        auto chunk = [&](auto nt) {
            parallel_for(n, kParallelGrain, [&](size_t b, size_t e) {
                unary_row<decltype(nt)::value, E, O>(a0 + static_cast<int64_t>(b) * sa, sa, o0 + b,
                                                     e - b, op);
                if constexpr (decltype(nt)::value) stream_fence();
            });
        };
        const bool nt = n * sizeof(O) >= kStreamBytes && static_cast<const void*>(o0) != a0;
        if constexpr (kVecOp<E, O, Op>) {
            if (nt) return chunk(std::true_type{});
        }
        chunk(std::false_type{});
        return;
    }
    StridedLoop<2> loop(out.shape, {contiguous_strides(out.shape), a.strides});
    loop.run({out.offset, a.offset}, [&](const auto& off, size_t len, const auto& in) {
        split_row(len, [&](size_t b, size_t e) {
            unary_row<false, E, O>(pa + off[1] + static_cast<int64_t>(b) * in[1], in[1],
                                   po + off[0] + static_cast<int64_t>(b) * in[0], e - b, op);
        });
    });
}

template <class E, class O, class Op>
void run_binary(const View& a, const View& b, const CpuTensor& out, const Op& op) {
    const size_t n = out.num_elements();
    if (n == 0) return;
    const E* pa = ptr<E>(a);
    const E* pb = ptr<E>(b);
    O* po = reinterpret_cast<O*>(out.buffer->data());
    if ((a.flat || a.scalar) && (b.flat || b.scalar)) {
        const int64_t sa = a.flat ? 1 : 0, sb = b.flat ? 1 : 0;
        const E* a0 = pa + a.offset;
        const E* b0 = pb + b.offset;
        O* o0 = po + out.offset;
        auto chunk = [&](auto nt) {
            parallel_for(n, kParallelGrain, [&](size_t s, size_t e) {
                const auto i = static_cast<int64_t>(s);
                binary_fast<decltype(nt)::value, E, O>(a0 + i * sa, sa, b0 + i * sb, sb, o0 + s,
                                                       e - s, op);
                if constexpr (decltype(nt)::value) stream_fence();
            });
        };
        const bool nt = n * sizeof(O) >= kStreamBytes && static_cast<const void*>(o0) != a0 &&
                        static_cast<const void*>(o0) != b0;
        if constexpr (kVecOp<E, O, Op>) {
            if (nt) return chunk(std::true_type{});
        }
        chunk(std::false_type{});
        return;
    }
    StridedLoop<3> loop(out.shape, {contiguous_strides(out.shape), a.strides, b.strides});
    loop.run({out.offset, a.offset, b.offset}, [&](const auto& off, size_t len, const auto& in) {
        split_row(len, [&](size_t s, size_t e) {
            const auto i = static_cast<int64_t>(s);
            binary_row<E, O>(pa + off[1] + i * in[1], in[1], pb + off[2] + i * in[2], in[2],
                             po + off[0] + i * in[0], e - s, op);
        });
    });
}

/// out = mask ? value : t (all views broadcast to out's shape).
template <class E>
void run_where(const View& t, const View& m, const View& v, const CpuTensor& out) {
    const size_t n = out.num_elements();
    if (n == 0) return;
    const E* pt = ptr<E>(t);
    const auto* pm = reinterpret_cast<const std::uint8_t*>(m.base);
    const E* pv = ptr<E>(v);
    E* po = reinterpret_cast<E*>(out.buffer->data());
    const bool in_place = pt == po && t.offset == out.offset && t.flat;
    auto row = [&](const E* a, int64_t sa, const std::uint8_t* k, int64_t sk, const E* b,
                   int64_t sb, E* o, size_t len) {
        if (in_place && sa == 1) {
            if (sb == 0) {
                const E val = *b;
                for (size_t i = 0; i < len; ++i)
                    if (k[static_cast<int64_t>(i) * sk]) o[i] = val;
            } else {
                for (size_t i = 0; i < len; ++i)
                    if (k[static_cast<int64_t>(i) * sk]) o[i] = b[static_cast<int64_t>(i) * sb];
            }
            return;
        }
        for (size_t i = 0; i < len; ++i) {
            const auto ii = static_cast<int64_t>(i);
            o[i] = k[ii * sk] ? b[ii * sb] : a[ii * sa];
        }
    };
    auto flat_stride = [](const View& x) -> int64_t { return x.flat ? 1 : 0; };
    if ((t.flat || t.scalar) && (m.flat || m.scalar) && (v.flat || v.scalar)) {
        const int64_t st = flat_stride(t), sm = flat_stride(m), sv = flat_stride(v);
        parallel_for(n, kParallelGrain, [&](size_t s, size_t e) {
            const auto i = static_cast<int64_t>(s);
            row(pt + t.offset + i * st, st, pm + m.offset + i * sm, sm, pv + v.offset + i * sv, sv,
                po + out.offset + i, e - s);
        });
        return;
    }
    StridedLoop<4> loop(out.shape,
                        {contiguous_strides(out.shape), t.strides, m.strides, v.strides});
    loop.run({out.offset, t.offset, m.offset, v.offset},
             [&](const auto& off, size_t len, const auto& in) {
                 split_row(len, [&](size_t s, size_t e) {
                     const auto i = static_cast<int64_t>(s);
                     row(pt + off[1] + i * in[1], in[1], pm + off[2] + i * in[2], in[2],
                         pv + off[3] + i * in[3], in[3], po + off[0] + i * in[0], e - s);
                 });
             });
}

// ------------------------------------------------------------------------------------------------
// Dtype dispatch and output selection
// ------------------------------------------------------------------------------------------------

/// Arithmetic storage types (bool excluded).
template <class F>
void dispatch_numeric(DType d, const char* op, F&& f) {
    switch (d) {
        case DType::F64: f(double{}); return;
        case DType::F32: f(float{}); return;
        case DType::I64: f(std::int64_t{}); return;
        case DType::I32: f(std::int32_t{}); return;
        case DType::I16: f(std::int16_t{}); return;
        case DType::I8: f(std::int8_t{}); return;
        case DType::U8: f(std::uint8_t{}); return;
        default: break;
    }
    detail::fail(op, ": unsupported dtype ", dtype_name(d));
}

template <class F>
void dispatch_float(DType d, const char* op, F&& f) {
    switch (d) {
        case DType::F64: f(double{}); return;
        case DType::F32: f(float{}); return;
        default: break;
    }
    detail::fail(op, ": expected a float tensor, got dtype ", dtype_name(d));
}

/// The op may write its result into t's buffer.
inline bool reusable(const CpuTensor& t, const Shape& shape, DType dtype) {
    return t.dtype == dtype && t.shape == shape && t.is_contiguous() && claim_in_place(t);
}

inline CpuTensor output_for(const CpuTensor& t, const Shape& shape, DType dtype) {
    return reusable(t, shape, dtype) ? t : alloc(shape, dtype);
}

inline CpuTensor output_for(const CpuTensor& a, const CpuTensor& b, const Shape& shape,
                            DType dtype) {
    if (reusable(a, shape, dtype)) return a;
    if (reusable(b, shape, dtype)) return b;
    return alloc(shape, dtype);
}

/// The scalar as a value of E (floats use .f, ints .i; bool is "non-zero").
template <class E>
E scalar_as(ScalarArg s, DType dt) {
    if (dt == DType::Bool) return static_cast<E>(s.f != 0.0 || s.i != 0);
    if constexpr (std::is_floating_point_v<E>) return static_cast<E>(s.f);
    else return static_cast<E>(s.i);
}

}  // namespace burn::cpu::ew

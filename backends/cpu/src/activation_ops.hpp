// SPDX-License-Identifier: MIT OR Apache-2.0
// The element-wise activation functors (relu, leaky_relu, gelu, sigmoid, hard_sigmoid,
// log_sigmoid) and their backward helpers, in the unary / binary op protocol of elementwise.hpp.
// Used by the activation kernels (activation.cpp) and by the fused programs (fused.cpp). Private
// to backends/cpu/src.
#pragma once

#include <cmath>
#include <limits>

#include "elementwise.hpp"

namespace burn::cpu::act {
using namespace ew;  // NOLINT(google-build-using-namespace): private kernel machinery

// ------------------------------------------------------------------------------------------------
// Packet helpers
// ------------------------------------------------------------------------------------------------

template <class P>
using Scalar = typename ei::unpacket_traits<P>::type;

/// exp of every lane, exact at the edges of the range (overflow to inf, subnormal results, 0):
/// the AVX-512 float exp where available, otherwise Eigen's with the lanes near its clamping
/// limits redone by std::exp.
template <class P>
P exp_full(const P& x) {
    P y;
    if (UExp{}.checked(x, y)) return y;
    constexpr std::size_t L = ei::unpacket_traits<P>::size;
    alignas(64) Scalar<P> buf[L];
    ei::pstoreu(buf, x);
    for (std::size_t i = 0; i < L; ++i) buf[i] = std::exp(buf[i]);
    return ei::ploadu<P>(buf);
}

/// log1p(u) for u >= 0 (or NaN): log(1 + u) * u / ((1 + u) - 1), which cancels the rounding of
/// 1 + u (Goldberg's trick), and u itself where 1 + u rounds to 1.
template <class P>
P log1p_pos(const P& u) {
    const P one = ei::pset1<P>(Scalar<P>(1));
    const P w = ei::padd(one, u);
    const P d = ei::psub(w, one);
    const P r = ei::pmul(ei::plog(w), ei::pdiv(u, d));
    return ei::pselect(ei::pcmp_eq(d, ei::pzero(d)), u, r);
}

template <class E>
inline constexpr E kSqrt1_2 = E(0.707106781186547524400844362104849039);
template <class E>
inline constexpr E kInvSqrt2Pi = E(0.398942280401432677939946059934381868);

template <class E>
inline constexpr bool kVecErf = kVec<E>&& ei::packet_traits<E>::HasErf;
template <class E>
inline constexpr bool kVecExpLog =
    kVec<E>&& ei::packet_traits<E>::HasExp&& ei::packet_traits<E>::HasLog;

// ------------------------------------------------------------------------------------------------
// Forward functors (the unary op protocol of elementwise.hpp)
// ------------------------------------------------------------------------------------------------

/// max(x, 0); NaN stays NaN.
struct ARelu {
    BURN_UNCHECKED
    template <class E>
    static constexpr bool vec = kVec<E>;
    template <class E>
    E scalar(E x) const {
        return x < E(0) ? E(0) : x;
    }
    template <class P>
    P packet(const P& x) const {
        return ei::pselect(ei::pcmp_lt(x, ei::pzero(x)), ei::pzero(x), x);
    }
};

/// x > 0 ? x : slope * x.
template <class E>
struct ALeakyRelu {
    BURN_UNCHECKED
    E slope;
    template <class T>
    static constexpr bool vec = kVec<T>;
    template <class T>
    E scalar(T x) const {
        return x > E(0) ? x : x * slope;
    }
    template <class P>
    P packet(const P& x) const {
        return ei::pselect(ei::pcmp_lt(ei::pzero(x), x), x, ei::pmul(x, ei::pset1<P>(slope)));
    }
};

/// clamp(alpha * x + beta, 0, 1), NaN propagating.
template <class E>
struct AHardSigmoid {
    BURN_UNCHECKED
    E alpha, beta;
    template <class T>
    static constexpr bool vec = kVec<T>;
    template <class T>
    E scalar(T x) const {
        return min_nan<E>(max_nan<E>(alpha * x + beta, E(0)), E(1));
    }
    template <class P>
    P packet(const P& x) const {
        const P y = ei::padd(ei::pmul(ei::pset1<P>(alpha), x), ei::pset1<P>(beta));
        return ei::pmin<Eigen::PropagateNaN>(ei::pmax<Eigen::PropagateNaN>(y, ei::pzero(y)),
                                             ei::pset1<P>(Scalar<P>(1)));
    }
};

/// x / 2 * (1 + erf(x / sqrt(2))), PyTorch's exact form.
struct AGelu {
    BURN_UNCHECKED
    template <class E>
    static constexpr bool vec = kVecErf<E>;
    template <class E>
    E scalar(E x) const {
        return x * E(0.5) * (E(1) + std::erf(x * kSqrt1_2<E>));
    }
    template <class P>
    P packet(const P& x) const {
        using S = Scalar<P>;
        const P cdf =
            ei::padd(ei::pset1<P>(S(1)), ei::perf(ei::pmul(x, ei::pset1<P>(kSqrt1_2<S>))));
        return ei::pmul(ei::pmul(x, ei::pset1<P>(S(0.5))), cdf);
    }
};

/// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: exp only ever sees -|x|.
struct ASigmoid {
    BURN_UNCHECKED
    template <class E>
    static constexpr bool vec = kVec<E>&& ei::packet_traits<E>::HasExp;
    template <class E>
    E scalar(E x) const {
        if (x >= E(0)) return E(1) / (E(1) + std::exp(-x));
        const E e = std::exp(x);
        return e / (E(1) + e);
    }
    template <class P>
    P packet(const P& x) const {
        const P e = exp_full(ei::pnegate(ei::pabs(x)));
        const P r = ei::pdiv(ei::pset1<P>(Scalar<P>(1)), ei::padd(ei::pset1<P>(Scalar<P>(1)), e));
        return ei::pselect(ei::pcmp_lt(x, ei::pzero(x)), ei::pmul(e, r), r);
    }
};

/// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): finite for every finite x.
struct ALogSigmoid {
    BURN_UNCHECKED
    template <class E>
    static constexpr bool vec = kVecExpLog<E>;
    template <class E>
    E scalar(E x) const {
        return std::min(x, E(0)) - std::log1p(std::exp(-std::fabs(x)));
    }
    template <class P>
    P packet(const P& x) const {
        const P t = log1p_pos(exp_full(ei::pnegate(ei::pabs(x))));
        return ei::psub(ei::pmin<Eigen::PropagateNaN>(x, ei::pzero(x)), t);
    }
};

// ------------------------------------------------------------------------------------------------
// Backward functors (the binary op protocol): a = saved tensor, b = incoming gradient
// ------------------------------------------------------------------------------------------------

/// From relu's output: 0 where out <= 0, grad elsewhere (a NaN output passes grad, as PyTorch's
/// threshold_backward).
struct BReluBackward {
    template <class E>
    static constexpr bool vec = kVec<E>;
    template <class E>
    E scalar(E out, E g) const {
        return out <= E(0) ? E(0) : g;
    }
    template <class P>
    P packet(const P& out, const P& g) const {
        return ei::pselect(ei::pcmp_le(out, ei::pzero(out)), ei::pzero(g), g);
    }
};

/// From sigmoid's output y: grad * y * (1 - y).
struct BSigmoidBackward {
    template <class E>
    static constexpr bool vec = kVec<E>;
    template <class E>
    E scalar(E y, E g) const {
        return g * (E(1) - y) * y;
    }
    template <class P>
    P packet(const P& y, const P& g) const {
        return ei::pmul(ei::pmul(g, ei::psub(ei::pset1<P>(Scalar<P>(1)), y)), y);
    }
};

/// From gelu's input: grad * (Phi(x) + x * phi(x)).
struct BGeluBackward {
    template <class E>
    static constexpr bool vec = kVecErf<E>&& ei::packet_traits<E>::HasExp;
    template <class E>
    E scalar(E x, E g) const {
        const E cdf = E(0.5) * (E(1) + std::erf(x * kSqrt1_2<E>));
        const E pdf = std::exp(E(-0.5) * x * x) * kInvSqrt2Pi<E>;
        return g * (cdf + x * pdf);
    }
    template <class P>
    P packet(const P& x, const P& g) const {
        using S = Scalar<P>;
        const P half = ei::pset1<P>(S(0.5));
        const P cdf = ei::pmul(
            half, ei::padd(ei::pset1<P>(S(1)), ei::perf(ei::pmul(x, ei::pset1<P>(kSqrt1_2<S>)))));
        const P pdf = ei::pmul(exp_full(ei::pnegate(ei::pmul(half, ei::pmul(x, x)))),
                               ei::pset1<P>(kInvSqrt2Pi<S>));
        return ei::pmul(g, ei::padd(cdf, ei::pmul(x, pdf)));
    }
};

/// From log_sigmoid's input: grad * sigmoid(-x), through exp(-|x|).
struct BLogSigmoidBackward {
    template <class E>
    static constexpr bool vec = kVec<E>&& ei::packet_traits<E>::HasExp;
    template <class E>
    E scalar(E x, E g) const {
        const E e = std::exp(-std::fabs(x));
        const E r = E(1) / (E(1) + e);
        return g * (x >= E(0) ? e * r : (x < E(0) ? r : x));  // NaN x: NaN
    }
    template <class P>
    P packet(const P& x, const P& g) const {
        const P e = exp_full(ei::pnegate(ei::pabs(x)));
        const P r = ei::pdiv(ei::pset1<P>(Scalar<P>(1)), ei::padd(ei::pset1<P>(Scalar<P>(1)), e));
        return ei::pmul(g, ei::pselect(ei::pcmp_lt(x, ei::pzero(x)), r, ei::pmul(e, r)));
    }
};

}  // namespace burn::cpu::act

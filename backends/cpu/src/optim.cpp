// SPDX-License-Identifier: MIT OR Apache-2.0
// Fused optimizer steps: Adam in one pass (read param, grad and both moments once, write param
// and both moments once), where composing element-wise ops takes about twelve passes.
#include <utility>

#include "burn/backend/cpu.hpp"
#include "internal.hpp"
#include "simd.hpp"

namespace burn::cpu {
namespace {

/// A tensor to read from and a dense buffer to write to: the same buffer when `t` is dense and
/// this is its only handle (an in-place update), a new one otherwise.
struct InOut {
    CpuTensor src;
    CpuTensor dst;
};
InOut in_out(CpuTensor t) {
    if (t.is_contiguous() && claim_in_place(t)) {
        CpuTensor same = t;
        return {std::move(t), std::move(same)};
    }
    CpuTensor dst = alloc(t.shape, t.dtype);
    return {contiguous(std::move(t)), std::move(dst)};
}

/// Adam's per-element update on values of type V (a scalar or one of Eigen's SIMD packets): the
/// same operations in the same order for both, so a value's result does not depend on whether it
/// fell in a packet or in the tail of a chunk.
template <bool HasMoments, bool HasDecay, class V>
struct AdamLanes {
    V b1, b2, omb1, omb2, inv_c2, step, eps, wd;

    template <class E>
    explicit AdamLanes(const backend::AdamHyper& h, E)
        : b1(splat(E(h.beta_1))),
          b2(splat(E(h.beta_2))),
          omb1(splat(E(1.0 - h.beta_1))),
          omb2(splat(E(1.0 - h.beta_2))),
          inv_c2(splat(E(1.0 / h.correction_2))),
          step(splat(E(h.lr / h.correction_1))),
          eps(splat(E(h.epsilon))),
          wd(splat(E(h.weight_decay))) {}

    template <class E>
    static V splat(E x) {
        return ei::pset1<V>(x);
    }

    /// (param, grad, moment 1, moment 2) -> (param, moment 1, moment 2)
    void operator()(V& p, V g, V& m, V& v) const {
        if constexpr (HasDecay) g = ei::pmadd(p, wd, g);
        const V gg = ei::pmul(g, g);
        if constexpr (HasMoments) {
            m = ei::pmadd(m, b1, ei::pmul(g, omb1));
            v = ei::pmadd(v, b2, ei::pmul(gg, omb2));
        } else {
            m = ei::pmul(g, omb1);
            v = ei::pmul(gg, omb2);
        }
        const V denom = ei::padd(ei::psqrt(ei::pmul(v, inv_c2)), eps);
        p = ei::psub(p, ei::pmul(ei::pdiv(m, denom), step));
    }
};

/// One fused pass: read param, grad and both moments once, write param and both moments once.
/// `p`/`po` (and the moments) may be the same buffer: every element is read before it is written.
template <class E, bool HasMoments, bool HasDecay>
void adam_loop(const E* p, const E* g, const E* m, const E* v, E* po, E* mo, E* vo, std::size_t n,
               const backend::AdamHyper& h) {
    using P = Pk<E>;
    constexpr std::size_t L = ei::unpacket_traits<P>::size;
    const AdamLanes<HasMoments, HasDecay, P> lanes(h, E{});
    parallel_for(n, kParallelGrain, [&, lanes](std::size_t s, std::size_t e) {
        const P zero = ei::pset1<P>(E(0));
        std::size_t i = s;
        for (; i + L <= e; i += L) {
            P pi = ei::ploadu<P>(p + i), mi = zero, vi = zero;
            if constexpr (HasMoments) {
                mi = ei::ploadu<P>(m + i);
                vi = ei::ploadu<P>(v + i);
            }
            lanes(pi, ei::ploadu<P>(g + i), mi, vi);
            ei::pstoreu(mo + i, mi);
            ei::pstoreu(vo + i, vi);
            ei::pstoreu(po + i, pi);
        }
        if (i == e) return;
        // The tail through the same packet code, staged in packet-sized buffers.
        alignas(64) E tp[L] = {}, tg[L] = {}, tm[L] = {}, tv[L] = {};
        const std::size_t r = e - i;
        for (std::size_t k = 0; k < r; ++k) {
            tp[k] = p[i + k];
            tg[k] = g[i + k];
            if constexpr (HasMoments) {
                tm[k] = m[i + k];
                tv[k] = v[i + k];
            }
        }
        P pi = ei::ploadu<P>(tp), mi = ei::ploadu<P>(tm), vi = ei::ploadu<P>(tv);
        lanes(pi, ei::ploadu<P>(tg), mi, vi);
        ei::pstoreu(tp, pi);
        ei::pstoreu(tm, mi);
        ei::pstoreu(tv, vi);
        for (std::size_t k = 0; k < r; ++k) {
            po[i + k] = tp[k];
            mo[i + k] = tm[k];
            vo[i + k] = tv[k];
        }
    });
}

}  // namespace

backend::AdamStepResult<CpuTensor> Kernels::adam_step(CpuTensor param, CpuTensor grad,
                                                      CpuTensor* moment_1, CpuTensor* moment_2,
                                                      const backend::AdamHyper& h) {
    // burn::optim::Adam::step checked the shapes (and dequantized a quantized parameter).
    assert((param.dtype == DType::F32 || param.dtype == DType::F64) && grad.dtype == param.dtype &&
           grad.shape == param.shape);
    assert((moment_1 == nullptr) == (moment_2 == nullptr));
    const bool has_moments = moment_1 != nullptr;
    assert(!has_moments || (moment_1->shape == param.shape && moment_2->shape == param.shape &&
                            moment_1->dtype == param.dtype && moment_2->dtype == param.dtype));
    const Shape shape = param.shape;
    const DType dtype = param.dtype;
    const std::size_t n = param.num_elements();
    InOut p = in_out(std::move(param));
    const CpuTensor g = contiguous(std::move(grad));
    InOut m, v;
    if (has_moments) {
        m = in_out(std::move(*moment_1));
        v = in_out(std::move(*moment_2));
    } else {
        m.dst = alloc(shape, dtype);
        v.dst = alloc(shape, dtype);
    }
    dispatch(dtype, [&](auto zero) {
        using E = decltype(zero);
        if constexpr (std::is_floating_point_v<E>) {
            const E* mp = has_moments ? m.src.data<E>() : nullptr;
            const E* vp = has_moments ? v.src.data<E>() : nullptr;
            auto run = [&](auto moments, auto decay) {
                adam_loop<E, decltype(moments)::value, decltype(decay)::value>(
                    p.src.data<E>(), g.data<E>(), mp, vp, p.dst.data<E>(), m.dst.data<E>(),
                    v.dst.data<E>(), n, h);
            };
            using T = std::true_type;
            using F = std::false_type;
            if (has_moments) {
                if (h.weight_decay != 0) run(T{}, T{});
                else run(T{}, F{});
            } else {
                if (h.weight_decay != 0) run(F{}, T{});
                else run(F{}, F{});
            }
        }
    });
    return {std::move(p.dst), std::move(m.dst), std::move(v.dst)};
}

}  // namespace burn::cpu

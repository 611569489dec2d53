// SPDX-License-Identifier: MIT OR Apache-2.0
// Fused optimizer steps: Adam in one pass (read param, grad and both moments once, write param
// and both moments once), where composing element-wise ops takes about twelve passes.
#include <cmath>
#include <utility>

#include "burn/backend/cpu.hpp"
#include "internal.hpp"

namespace burn::cpu {
namespace {

/// A tensor to read from and a dense buffer to write to: the same buffer when `t` is dense and
/// this is its only handle (an in-place update), a new one otherwise.
struct InOut {
    CpuTensor src;
    CpuTensor dst;
};
InOut in_out(CpuTensor t) {
    if (t.is_unique() && t.is_contiguous()) {
        CpuTensor same = t;
        return {std::move(t), std::move(same)};
    }
    CpuTensor dst = alloc(t.shape, t.dtype);
    return {contiguous(std::move(t)), std::move(dst)};
}

template <class E, bool HasMoments, bool HasDecay>
void adam_loop(const E* p, const E* g, const E* m, const E* v, E* po, E* mo, E* vo, std::size_t n,
               const backend::AdamHyper& h) {
    const E b1 = E(h.beta_1), b2 = E(h.beta_2);
    const E omb1 = E(1.0 - h.beta_1), omb2 = E(1.0 - h.beta_2);
    const E inv_c2 = E(1.0 / h.correction_2), step = E(h.lr / h.correction_1);
    const E eps = E(h.epsilon), wd = E(h.weight_decay);
    parallel_for(n, kParallelGrain, [&](std::size_t s, std::size_t e) {
        for (std::size_t i = s; i < e; ++i) {
            E gi = g[i];
            if constexpr (HasDecay) gi = gi + p[i] * wd;
            E mi, vi;
            if constexpr (HasMoments) {
                mi = m[i] * b1 + gi * omb1;
                vi = v[i] * b2 + (gi * gi) * omb2;
            } else {
                mi = gi * omb1;
                vi = (gi * gi) * omb2;
            }
            mo[i] = mi;
            vo[i] = vi;
            po[i] = p[i] - (mi / (std::sqrt(vi * inv_c2) + eps)) * step;
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

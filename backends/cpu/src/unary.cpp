// SPDX-License-Identifier: MIT OR Apache-2.0
// Unary element-wise maps (neg, abs, exp, log, tanh, ...), is_nan and clamp.
// The machinery is in elementwise.hpp.
#include "elementwise.hpp"

namespace burn::cpu {
using namespace ew;  // NOLINT(google-build-using-namespace): private kernel machinery

CpuTensor Kernels::unary(UnaryOp op, CpuTensor t) {
    const char* name = backend::op_name(op);
    const DType dt = t.dtype;
    const View a = view_of(t, t.shape);

    if (op == UnaryOp::Not) {
        CpuTensor out = output_for(t, t.shape, DType::Bool);
        dispatch(dt, [&](auto e) {
            using E = decltype(e);
            run_unary<E, std::uint8_t>(a, out, UNot{});
        });
        return out;
    }
    if (!is_float(dt)) {
        assert(dt != DType::Bool);
        if (op == UnaryOp::Round || op == UnaryOp::Floor || op == UnaryOp::Ceil)
            return t;  // integers are already integral
        // The other maps are float-only ops: the Tensor layer gives them float tensors.
        assert(op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Sign);
        CpuTensor out = output_for(t, t.shape, dt);
        dispatch_numeric(dt, name, [&](auto e) {
            using E = decltype(e);
            if (op == UnaryOp::Neg) run_unary<E, E>(a, out, UNeg{});
            else if (op == UnaryOp::Abs) run_unary<E, E>(a, out, UAbs{});
            else run_unary<E, E>(a, out, USign{});
        });
        return out;
    }
    CpuTensor out = output_for(t, t.shape, dt);
    dispatch_float(dt, name, [&](auto e) {
        using E = decltype(e);
        switch (op) {
            case UnaryOp::Neg: run_unary<E, E>(a, out, UNeg{}); break;
            case UnaryOp::Abs: run_unary<E, E>(a, out, UAbs{}); break;
            case UnaryOp::Sign: run_unary<E, E>(a, out, USign{}); break;
            case UnaryOp::Exp: run_unary<E, E>(a, out, UExp{}); break;
            case UnaryOp::Log: run_unary<E, E>(a, out, ULog{}); break;
            case UnaryOp::Log1p: run_unary<E, E>(a, out, ULog1p{}); break;
            case UnaryOp::Erf: run_unary<E, E>(a, out, UErf{}); break;
            case UnaryOp::Sqrt: run_unary<E, E>(a, out, USqrt{}); break;
            case UnaryOp::Recip: run_unary<E, E>(a, out, URecip{}); break;
            case UnaryOp::Sin: run_unary<E, E>(a, out, USin{}); break;
            case UnaryOp::Cos: run_unary<E, E>(a, out, UCos{}); break;
            case UnaryOp::Tanh: run_unary<E, E>(a, out, UTanh{}); break;
            case UnaryOp::Round: run_unary<E, E>(a, out, URound{}); break;
            case UnaryOp::Floor: run_unary<E, E>(a, out, UFloor{}); break;
            case UnaryOp::Ceil: run_unary<E, E>(a, out, UCeil{}); break;
            case UnaryOp::Not: break;
        }
    });
    return out;
}

CpuTensor Kernels::is_nan(CpuTensor t) {
    if (!is_float(t.dtype)) return cpu::full(t.shape, ScalarArg::of(std::int64_t{0}), DType::Bool);
    CpuTensor out = output_for(t, t.shape, DType::Bool);
    const View a = view_of(t, t.shape);
    dispatch_float(t.dtype, "is_nan", [&](auto e) {
        using E = decltype(e);
        run_unary<E, std::uint8_t>(a, out, UIsNan{});
    });
    return out;
}

CpuTensor Kernels::clamp(CpuTensor t, std::optional<ScalarArg> lo, std::optional<ScalarArg> hi) {
    if (!lo && !hi) return t;
    const DType dt = t.dtype;
    CpuTensor out = output_for(t, t.shape, dt);
    const View a = view_of(t, t.shape);
    dispatch_numeric(dt, "clamp", [&](auto e) {
        using E = decltype(e);
        using L = std::numeric_limits<E>;
        UClamp<E> op;
        if constexpr (std::is_floating_point_v<E>) {
            op.lo_ = lo ? static_cast<E>(lo->f) : -L::infinity();
            op.hi_ = hi ? static_cast<E>(hi->f) : L::infinity();
        } else {
            // Bounds outside E's range saturate instead of wrapping.
            auto sat = [](std::int64_t v) {
                return static_cast<E>(
                    std::clamp<std::int64_t>(v, std::int64_t(L::min()), std::int64_t(L::max())));
            };
            op.lo_ = lo ? sat(lo->i) : L::lowest();
            op.hi_ = hi ? sat(hi->i) : L::max();
        }
        run_unary<E, E>(a, out, op);
    });
    return out;
}

}  // namespace burn::cpu

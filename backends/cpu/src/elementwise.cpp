// SPDX-License-Identifier: MIT OR Apache-2.0
// Binary element-wise arithmetic with broadcasting (tensor-tensor and tensor-scalar) and the
// masked selects mask_where / mask_fill. The machinery is in elementwise.hpp.
#include "elementwise.hpp"

namespace burn::cpu {
using namespace ew;  // NOLINT(google-build-using-namespace): private kernel machinery

namespace {

/// Runs a binary arithmetic op (same dtype in and out) on views a, b into out.
void binary_into(BinaryOp op, DType dt, const View& a, const View& b, const CpuTensor& out) {
    const char* name = backend::op_name(op);
    if (op == BinaryOp::And || op == BinaryOp::Or) {
        assert(dt == DType::Bool || dt == DType::U8);
        if (op == BinaryOp::And) run_binary<std::uint8_t, std::uint8_t>(a, b, out, BAnd{});
        else run_binary<std::uint8_t, std::uint8_t>(a, b, out, BOr{});
        return;
    }
    dispatch_numeric(dt, name, [&](auto e) {
        using E = decltype(e);
        switch (op) {
            case BinaryOp::Add: run_binary<E, E>(a, b, out, BAdd{}); break;
            case BinaryOp::Sub: run_binary<E, E>(a, b, out, BSub{}); break;
            case BinaryOp::Mul: run_binary<E, E>(a, b, out, BMul{}); break;
            case BinaryOp::Div: run_binary<E, E>(a, b, out, BDiv{}); break;
            case BinaryOp::Rem: run_binary<E, E>(a, b, out, BRem{}); break;
            case BinaryOp::Pow: run_binary<E, E>(a, b, out, BPow{}); break;
            case BinaryOp::Max: run_binary<E, E>(a, b, out, BMax{}); break;
            case BinaryOp::Min: run_binary<E, E>(a, b, out, BMin{}); break;
            default: break;
        }
    });
}

}  // namespace

CpuTensor Kernels::binary(BinaryOp op, CpuTensor lhs, CpuTensor rhs) {
    if (rhs.dtype != lhs.dtype) rhs = cast(std::move(rhs), lhs.dtype);
    const Shape shape = broadcast_shapes(lhs.shape, rhs.shape, backend::op_name(op));
    const DType dt = lhs.dtype;
    assert(dt != DType::Bool || op == BinaryOp::And || op == BinaryOp::Or);
    CpuTensor out = output_for(lhs, rhs, shape, dt);
    binary_into(op, dt, view_of(lhs, shape), view_of(rhs, shape), out);
    return out;
}

CpuTensor Kernels::binary_scalar(BinaryOp op, CpuTensor lhs, ScalarArg rhs) {
    const char* name = backend::op_name(op);
    const DType dt = lhs.dtype;
    assert(dt != DType::Bool || op == BinaryOp::And || op == BinaryOp::Or);

    // x^p for common float exponents as cheaper (vectorised) maps, as PyTorch does.
    if (op == BinaryOp::Pow && is_float(dt)) {
        const double p = rhs.f;
        if (p == 1.0) return lhs;
        if (p == 0.5) return unary(UnaryOp::Sqrt, std::move(lhs));
        if (p == -1.0) return unary(UnaryOp::Recip, std::move(lhs));
        if (p == 2.0) {
            CpuTensor out = output_for(lhs, lhs.shape, dt);
            const View a = view_of(lhs, lhs.shape);
            dispatch_float(dt, name, [&](auto e) {
                using E = decltype(e);
                run_unary<E, E>(a, out, USquare{});
            });
            return out;
        }
    }
    if (!is_float(dt)) {
        if (op == BinaryOp::Pow && rhs.i < 0) detail::fail("powi: negative integer exponent");
    }

    CpuTensor out = output_for(lhs, lhs.shape, dt);
    const View a = view_of(lhs, lhs.shape);
    if (op == BinaryOp::And || op == BinaryOp::Or) {
        const auto v = scalar_as<std::uint8_t>(rhs, dt);
        binary_into(op, dt, a, view_scalar(&v), out);
        return out;
    }
    dispatch_numeric(dt, name, [&](auto e) {
        using E = decltype(e);
        const E v = scalar_as<E>(rhs, dt);
        if constexpr (std::is_integral_v<E>) {
            if (v == E(0) && op == BinaryOp::Div) detail::fail("div: integer division by zero");
            if (v == E(0) && op == BinaryOp::Rem)
                detail::fail("remainder: integer division by zero");
        }
        if (E r{}; op == BinaryOp::Div && exact_reciprocal(v, r)) {
            binary_into(BinaryOp::Mul, dt, a, view_scalar(&r), out);
            return;
        }
        binary_into(op, dt, a, view_scalar(&v), out);
    });
    return out;
}

namespace {
CpuTensor bool_mask(CpuTensor mask) {
    if (mask.dtype == DType::Bool || mask.dtype == DType::U8) return mask;
    return cast(std::move(mask), DType::Bool);
}
}  // namespace

CpuTensor Kernels::mask_where(CpuTensor t, CpuTensor mask, CpuTensor value) {
    assert(backend::broadcasts_to(mask.shape, t.shape) &&
           backend::broadcasts_to(value.shape, t.shape));
    mask = bool_mask(std::move(mask));
    if (value.dtype != t.dtype) value = cast(std::move(value), t.dtype);
    CpuTensor out = output_for(t, t.shape, t.dtype);
    const View a = view_of(t, t.shape), m = view_of(mask, t.shape), v = view_of(value, t.shape);
    dispatch(t.dtype, [&](auto e) { run_where<decltype(e)>(a, m, v, out); });
    return out;
}

CpuTensor Kernels::mask_fill(CpuTensor t, CpuTensor mask, ScalarArg value) {
    assert(backend::broadcasts_to(mask.shape, t.shape));
    mask = bool_mask(std::move(mask));
    CpuTensor out = output_for(t, t.shape, t.dtype);
    const View a = view_of(t, t.shape), m = view_of(mask, t.shape);
    dispatch(t.dtype, [&](auto e) {
        using E = decltype(e);
        const E v = scalar_as<E>(value, t.dtype);
        run_where<E>(a, m, view_scalar(&v), out);
    });
    return out;
}

}  // namespace burn::cpu

// SPDX-License-Identifier: MIT OR Apache-2.0
// Comparisons (tensor-tensor with broadcasting, tensor-scalar); results are bool tensors.
// The machinery is in elementwise.hpp.
#include "elementwise.hpp"

namespace burn::cpu {
using namespace ew;  // NOLINT(google-build-using-namespace): private kernel machinery

namespace {

template <class E>
void compare_into(CmpOp op, const View& a, const View& b, const CpuTensor& out) {
    using U = std::uint8_t;
    switch (op) {
        case CmpOp::Eq: run_binary<E, U>(a, b, out, BCmp<CmpOp::Eq>{}); break;
        case CmpOp::Ne: run_binary<E, U>(a, b, out, BCmp<CmpOp::Ne>{}); break;
        case CmpOp::Gt: run_binary<E, U>(a, b, out, BCmp<CmpOp::Gt>{}); break;
        case CmpOp::Ge: run_binary<E, U>(a, b, out, BCmp<CmpOp::Ge>{}); break;
        case CmpOp::Lt: run_binary<E, U>(a, b, out, BCmp<CmpOp::Lt>{}); break;
        case CmpOp::Le: run_binary<E, U>(a, b, out, BCmp<CmpOp::Le>{}); break;
    }
}

/// Common dtype of two operands of a comparison: floats win (f64 over f32), bool loses, else the
/// wider integer (the signed one on a tie).
DType promote(DType a, DType b) {
    if (a == b) return a;
    if (is_float(a) || is_float(b)) {
        if (a == DType::F64 || b == DType::F64) return DType::F64;
        return is_float(a) ? a : b;
    }
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    if (dtype_size(a) != dtype_size(b)) return dtype_size(a) > dtype_size(b) ? a : b;
    return a == DType::U8 ? b : a;
}

}  // namespace

CpuTensor Kernels::compare(CmpOp op, CpuTensor lhs, CpuTensor rhs) {
    const DType dt = promote(lhs.dtype, rhs.dtype);
    if (lhs.dtype != dt) lhs = cast(std::move(lhs), dt);
    if (rhs.dtype != dt) rhs = cast(std::move(rhs), dt);
    const Shape shape = broadcast_shapes(lhs.shape, rhs.shape, "compare");
    CpuTensor out = output_for(lhs, rhs, shape, DType::Bool);
    const View a = view_of(lhs, shape), b = view_of(rhs, shape);
    dispatch(dt, [&](auto e) { compare_into<decltype(e)>(op, a, b, out); });
    return out;
}

CpuTensor Kernels::compare_scalar(CmpOp op, CpuTensor lhs, ScalarArg rhs) {
    const DType dt = lhs.dtype;
    std::optional<CpuTensor> result;
    dispatch(dt, [&](auto e) {
        using E = decltype(e);
        E v = scalar_as<E>(rhs, dt);
        if constexpr (std::is_integral_v<E>) {
            // An integer scalar outside E's range compares the same way with every element.
            if (dt != DType::Bool) {
                const bool above = rhs.i > static_cast<std::int64_t>(std::numeric_limits<E>::max());
                const bool below = rhs.i < static_cast<std::int64_t>(std::numeric_limits<E>::min());
                if (above || below) {
                    bool r = false;  // lhs vs rhs, every lhs element lies strictly on one side
                    switch (op) {
                        case CmpOp::Eq: r = false; break;
                        case CmpOp::Ne: r = true; break;
                        case CmpOp::Gt:
                        case CmpOp::Ge: r = below; break;
                        case CmpOp::Lt:
                        case CmpOp::Le: r = above; break;
                    }
                    result = cpu::full(lhs.shape, ScalarArg::of(std::int64_t{r}), DType::Bool);
                    return;
                }
            }
        }
        CpuTensor out = output_for(lhs, lhs.shape, DType::Bool);
        compare_into<E>(op, view_of(lhs, lhs.shape), view_scalar(&v), out);
        result = std::move(out);
    });
    return std::move(*result);
}

}  // namespace burn::cpu

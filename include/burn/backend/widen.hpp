// SPDX-License-Identifier: MIT OR Apache-2.0
// Float dtypes per tensor, settled once for every backend of the kit. The adapter
// (<burn/backend/adapter.hpp>) does not call a kernel set KS directly but Widened<KS>, which
// decides the float dtype of every kernel call from its operands:
//  - promotion: float operands of different dtypes are converted to the dtype they promote to
//    (PyTorch's rule among f64, f32, f16 and bf16: the wider type wins, f16 with bf16 gives
//    f32); the kernels that update their first operand (slice_assign, scatter_add, select_add,
//    mask_where) keep that operand's dtype and convert the values to it;
//  - half precision: a kernel that KS does not run on f16 / bf16 itself (the HalfKernels trait of
//    <burn/backend/kernels.hpp>) receives its operands in f32 and its float results are rounded
//    back to the half dtype: what PyTorch's CPU kernels compute (f32 arithmetic, one rounding
//    per op). Creation kernels asked for a half dtype create f32 values and round them.
// A call whose float operands share one dtype that the kernel computes on goes straight through;
// the only cost then is reading the operands' dtypes. `cast` is never widened: it is the kernel a
// set implements to have half-precision tensors.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/backend/kernels.hpp"
#include "burn/tensor/dtype.hpp"

namespace burn::backend {

/// The float dtype that float operands of dtypes `a` and `b` are computed in.
constexpr DType promote_float(DType a, DType b) {
    if (a == b) return a;
    if (a == DType::F64 || b == DType::F64) return DType::F64;
    return DType::F32;
}

/// The kernel set KS with the float dtypes of every call settled (see the file comment).
template <KernelSet KS>
struct Widened {
    BURN_KERNEL_SIGNATURE_TYPES(typename KS::Tensor, typename KS::Device)
    using Tensor = T;
    using Inner = KS;

    /// Whether KS computes kernel `k` on tensors of the half dtype `d` itself.
    static bool computes_half(KernelId k, DType d) {
        if constexpr (HalfKernels<KS>) return KS::computes_half(k, d);
        else return false;
    }

private:
    /// The float dtypes of one call: the dtype of its float result and the one it runs in.
    struct Plan {
        bool first_wins = false;  ///< the first float operand's dtype is the result's
        bool any = false;         ///< a float operand or float dtype argument was seen
        bool uniform = true;      ///< all of them had one dtype
        DType result = DType::F32;
        DType compute = DType::F32;

        void add(DType d) {
            if (!is_float(d)) return;
            if (!any) {
                any = true;
                result = d;
            } else if (d != result) {
                uniform = false;
                if (!first_wins) result = promote_float(result, d);
            }
        }
        bool direct() const { return !any || (uniform && compute == result); }
    };

    static void note(Plan& p, const T& t) { p.add(t.dtype); }
    static void note(Plan& p, const OptT& t) {
        if (t) p.add(t->dtype);
    }
    static void note(Plan& p, const std::vector<T>& ts) {
        for (const auto& t : ts) p.add(t.dtype);
    }
    static void note(Plan& p, DType d) { p.add(d); }
    template <class A>
    static void note(Plan&, const A&) {}

    template <class... A>
    static Plan plan(KernelId k, const A&... a) {
        Plan p;
        if (k == KernelId::cast) return p;  // converts; never widened
        p.first_wins = k == KernelId::slice_assign || k == KernelId::scatter_add ||
                       k == KernelId::select_add || k == KernelId::mask_where;
        (note(p, a), ...);
        p.compute = is_half(p.result) && !computes_half(k, p.result) ? DType::F32 : p.result;
        return p;
    }

    static T to(T t, DType d) {
        if (!is_float(t.dtype) || t.dtype == d) return t;
        return cast_any(std::move(t), d);
    }
    /// An argument of the call, its float tensors converted to `d`.
    template <class A>
    static decltype(auto) convert(A&& a, DType d) {
        using V = std::remove_cvref_t<A>;
        if constexpr (std::is_same_v<V, T>) {
            return to(T(std::forward<A>(a)), d);
        } else if constexpr (std::is_same_v<V, OptT>) {
            OptT o(std::forward<A>(a));
            if (o) *o = to(std::move(*o), d);
            return o;
        } else if constexpr (std::is_same_v<V, std::vector<T>>) {
            std::vector<T> v(std::forward<A>(a));
            for (auto& t : v) t = to(std::move(t), d);
            return v;
        } else if constexpr (std::is_same_v<V, DType>) {
            return DType(is_float(a) ? d : a);
        } else {
            return std::forward<A>(a);
        }
    }

    /// A result computed in p.compute, its float tensors rounded to p.result.
    static T back(T r, const Plan& p) {
        if (!r.buffer || r.dtype != p.compute) return r;
        return KS::cast(std::move(r), p.result);
    }
    static OptT back(OptT r, const Plan& p) {
        if (r) *r = back(std::move(*r), p);
        return r;
    }
    static TPair back(TPair r, const Plan& p) {
        return {back(std::move(r.first), p), back(std::move(r.second), p)};
    }
    static DeformConv2dBackward<T> back(DeformConv2dBackward<T> r, const Plan& p) {
        return {back(std::move(r.x_grad), p), back(std::move(r.offset_grad), p),
                back(std::move(r.weight_grad), p), back(std::move(r.mask_grad), p),
                back(std::move(r.bias_grad), p)};
    }
    static TensorData back(TensorData r, const Plan& p) {
        return r.dtype == p.compute ? r.convert(p.result) : r;
    }

    template <class R, class F, class... A>
    static R call(KernelId k, F f, A&&... a) {
        const Plan p = plan(k, a...);
        if (p.direct()) return f(std::forward<A>(a)...);
        if constexpr (std::is_void_v<R>) {
            f(convert(std::forward<A>(a), p.compute)...);
        } else {
            R r = f(convert(std::forward<A>(a), p.compute)...);
            if (p.compute == p.result) return r;
            return back(std::move(r), p);
        }
    }

public:
    /// `t` converted to `dtype`. A set whose `cast` converts half types only to and from f32
    /// (computes_half(cast) false) gets the other conversions through f32, which is exact or
    /// rounds as a direct conversion does (f32 holds every f16, bf16 and i16 value; f64 and
    /// 64-bit ints round to f32 first, as PyTorch's conversions to c10::Half do).
    static T cast_any(T t, DType dtype) {
        if (t.dtype == dtype) return t;
        const DType half = is_half(dtype) ? dtype : t.dtype;
        if (is_half(half) && t.dtype != DType::F32 && dtype != DType::F32 &&
            !computes_half(KernelId::cast, half))
            return KS::cast(KS::cast(std::move(t), DType::F32), dtype);
        return KS::cast(std::move(t), dtype);
    }

#define BURN_DETAIL_WIDENED_KERNEL(RET, NAME, PARAMS)                                     \
    template <class... A>                                                                 \
    static RET NAME(A&&... a) {                                                           \
        return call<RET>(                                                                 \
            KernelId::NAME,                                                               \
            [](auto&&... b) -> RET { return KS::NAME(std::forward<decltype(b)>(b)...); }, \
            std::forward<A>(a)...);                                                       \
    }
    BURN_KERNELS(BURN_DETAIL_WIDENED_KERNEL)
#undef BURN_DETAIL_WIDENED_KERNEL

    /// KS's one-pass Adam step, with a half-precision parameter updated in f32 (the moments are
    /// kept in the dtype the step ran in).
    static AdamStepResult<T> adam_step(T param, T grad, T* moment_1, T* moment_2,
                                       const AdamHyper& h) requires FusedAdamKernel<KS> {
        Plan p;
        p.add(param.dtype);
        p.add(grad.dtype);
        p.compute = is_half(p.result) ? DType::F32 : p.result;
        if (p.direct() && (!moment_1 || moment_1->dtype == p.compute))
            return KS::adam_step(std::move(param), std::move(grad), moment_1, moment_2, h);
        const DType out = param.dtype;
        for (T* m : {moment_1, moment_2})
            if (m) *m = to(std::move(*m), p.compute);
        auto r = KS::adam_step(to(std::move(param), p.compute), to(std::move(grad), p.compute),
                               moment_1, moment_2, h);
        r.param = to(std::move(r.param), out);
        return r;
    }

    /// KS's fused layer norm, its operands in one float dtype (f32 for the half types): the
    /// result in the dtype the operands promote to, as the composed ops give.
    static T layer_norm(T x, T gamma, OptT beta, double epsilon) requires FusedLayerNormKernel<KS> {
        Plan p;
        p.add(x.dtype);
        p.add(gamma.dtype);
        if (beta) p.add(beta->dtype);
        p.compute = is_half(p.result) ? DType::F32 : p.result;
        if (beta) beta = to(std::move(*beta), p.compute);
        T y = KS::layer_norm(to(std::move(x), p.compute), to(std::move(gamma), p.compute),
                             std::move(beta), epsilon);
        return to(std::move(y), p.result);
    }
    /// Its backward: the gradients in the dtypes of x and gamma.
    static LayerNormBackward<T> layer_norm_backward(
        T x, T gamma, T grad, double epsilon, bool with_beta) requires FusedLayerNormKernel<KS> {
        Plan p;
        p.add(x.dtype);
        p.add(gamma.dtype);
        p.add(grad.dtype);
        p.compute = is_half(p.result) ? DType::F32 : p.result;
        const DType dx = x.dtype, dg = gamma.dtype;
        auto r =
            KS::layer_norm_backward(to(std::move(x), p.compute), to(std::move(gamma), p.compute),
                                    to(std::move(grad), p.compute), epsilon, with_beta);
        r.x_grad = to(std::move(r.x_grad), dx);
        r.gamma_grad = to(std::move(r.gamma_grad), dg);
        if (r.beta_grad) r.beta_grad = to(std::move(*r.beta_grad), dg);
        return r;
    }
};

}  // namespace burn::backend

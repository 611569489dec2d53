// SPDX-License-Identifier: MIT OR Apache-2.0
// ONNX reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare), ArgMax/ArgMin, TopK and CumSum over
// burn::onnx::Value<B>.
#pragma once

#include <string>
#include <vector>

#include "burn/onnx/ops_common.hpp"

namespace burn::onnx::ops {

enum class ReduceOp { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

struct ReduceAttrs {
    std::vector<std::int64_t> axes;  ///< empty: every axis (unless noop_with_empty_axes)
    bool keepdims = true;
    bool noop_with_empty_axes = false;
};

namespace detail {
template <class P, class Fn>
P reduce_dims(P p, const std::vector<std::size_t>& axes, Fn fn) {
    for (auto a : axes) p = fn(p, a);
    return p;
}
}  // namespace detail

template <class B>
Value<B> reduce(const Value<B>& x, ReduceOp op, const ReduceAttrs& at) {
    const Shape s = x.shape();
    if (at.axes.empty() && at.noop_with_empty_axes) return x;
    std::vector<std::size_t> axes;
    if (at.axes.empty())
        for (std::size_t i = 0; i < s.rank(); ++i) axes.push_back(i);
    else axes = detail::norm_axes(at.axes, s.rank(), "Reduce");
    Shape out;
    for (std::size_t i = 0; i < s.rank(); ++i) {
        const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
        if (!reduced) out.push_back(s[i]);
        else if (at.keepdims) out.push_back(1);
    }
    for (auto a : axes)
        if (s[a] == 0 && (op == ReduceOp::Max || op == ReduceOp::Min))
            detail::fail("ReduceMax/ReduceMin", "reducing an empty dim ", a, " of ", x.describe());
    if (x.is_bool()) detail::fail("Reduce", "input must be numeric, got ", x.describe());
    if (x.is_int() && (op == ReduceOp::Sum || op == ReduceOp::Max || op == ReduceOp::Min ||
                       op == ReduceOp::Prod || op == ReduceOp::SumSquare || op == ReduceOp::L1 ||
                       op == ReduceOp::Mean)) {
        auto p = x.int_prim();
        if (op == ReduceOp::SumSquare) p = B::int_mul(p, p);
        if (op == ReduceOp::L1) p = B::int_abs(p);
        auto r = detail::reduce_dims(p, axes, [&](auto t, std::size_t a) {
            switch (op) {
                case ReduceOp::Max: return B::int_max_dim(t, a);
                case ReduceOp::Min: return B::int_min_dim(t, a);
                case ReduceOp::Prod: return B::int_prod_dim(t, a);
                case ReduceOp::Mean: return B::int_mean_dim(t, a);
                default: return B::int_sum_dim(t, a);
            }
        });
        return Value<B>(Int{}, B::int_reshape(r, out), x.type());
    }
    auto p = x.to_float();
    auto sum_dims = [&](auto t) {
        return detail::reduce_dims(t, axes,
                                   [](auto u, std::size_t a) { return B::float_sum_dim(u, a); });
    };
    typename B::FloatTensor r = p;
    switch (op) {
        case ReduceOp::Sum: r = sum_dims(p); break;
        case ReduceOp::Mean:
            r = detail::reduce_dims(p, axes,
                                    [](auto u, std::size_t a) { return B::float_mean_dim(u, a); });
            break;
        case ReduceOp::Max:
            r = detail::reduce_dims(p, axes,
                                    [](auto u, std::size_t a) { return B::float_max_dim(u, a); });
            break;
        case ReduceOp::Min:
            r = detail::reduce_dims(p, axes,
                                    [](auto u, std::size_t a) { return B::float_min_dim(u, a); });
            break;
        case ReduceOp::Prod:
            r = detail::reduce_dims(p, axes,
                                    [](auto u, std::size_t a) { return B::float_prod_dim(u, a); });
            break;
        case ReduceOp::L1: r = sum_dims(B::float_abs(p)); break;
        case ReduceOp::L2: r = B::float_sqrt(sum_dims(B::float_mul(p, p))); break;
        case ReduceOp::SumSquare: r = sum_dims(B::float_mul(p, p)); break;
        case ReduceOp::LogSum: r = B::float_log(sum_dims(p)); break;
        case ReduceOp::LogSumExp: {
            auto m = detail::reduce_dims(
                p, axes, [](auto u, std::size_t a) { return B::float_max_dim(u, a); });
            // Guard -inf maxima (all -inf slices) so that exp(x - m) stays finite.
            m = B::float_mask_fill(m, B::float_is_nan(B::float_sub(m, m)), 0.0);
            auto e = B::float_exp(B::float_sub(p, B::float_expand(m, s)));
            r = B::float_add(B::float_log(sum_dims(e)), m);
            break;
        }
    }
    Value<B> res(Float{}, B::float_reshape(r, out),
                 is_float_type(x.type()) ? x.type() : ElemType::Float);
    return is_float_type(x.type()) ? res : detail::to_kind(res, x.type());
}

/// ArgMax / ArgMin along axis (int64); ties resolve to the first index, or the last with
/// select_last_index.
template <class B>
Value<B> arg_extreme(const Value<B>& x, std::int64_t axis, bool keepdims, bool select_last,
                     bool is_max) {
    const Shape s = x.shape();
    const char* op = is_max ? "ArgMax" : "ArgMin";
    const std::size_t a = detail::norm_axis(axis, s.rank(), op);
    if (s[a] == 0) detail::fail(op, "empty dim ", a, " of ", x.describe());
    Value<B> in = x.is_bool() ? detail::to_kind(x, ElemType::Int64) : x;
    if (select_last) in = detail::flip(in, std::vector<std::size_t>{a});
    auto idx = in.visit([&](auto k, const auto& p) -> typename B::IntTensor {
        using K = decltype(k);
        if constexpr (std::is_same_v<K, Bool>) {
            return B::int_argmax(B::bool_into_int(p), a);
        } else {
            return is_max ? KindOps<B, K>::argmax(p, a) : KindOps<B, K>::argmin(p, a);
        }
    });
    if (select_last) idx = B::int_neg(B::int_sub_scalar(idx, static_cast<std::int64_t>(s[a]) - 1));
    Shape out = s;
    out[a] = 1;
    if (!keepdims) out = detail::squeeze_shape(out, std::vector<std::size_t>{a});
    return Value<B>(Int{}, B::int_reshape(idx, out), ElemType::Int64);
}

/// TopK: the k largest (or smallest) values along axis and their int64 indices.
template <class B>
std::vector<Value<B>> top_k(const Value<B>& x, std::int64_t k, std::int64_t axis, bool largest) {
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "TopK");
    if (k < 0 || static_cast<std::size_t>(k) > s[a])
        detail::fail("TopK", "k = ", k, " is out of range for dim ", a, " of ", x.describe());
    if (x.is_bool()) detail::fail("TopK", "input must be numeric, got ", x.describe());
    const auto kk = static_cast<std::size_t>(k);
    if (x.is_float()) {
        auto [v, i] = B::float_sort_with_indices(x.float_prim(), a, largest);
        Value<B> vv(Float{}, v, x.type()), ii(Int{}, i, ElemType::Int64);
        return {detail::narrow(vv, a, 0, kk), detail::narrow(ii, a, 0, kk)};
    }
    auto [v, i] = B::int_sort_with_indices(x.int_prim(), a, largest);
    Value<B> vv(Int{}, v, x.type()), ii(Int{}, i, ElemType::Int64);
    return {detail::narrow(vv, a, 0, kk), detail::narrow(ii, a, 0, kk)};
}

/// CumSum along axis; exclusive drops the current element, reverse sums from the end.
template <class B>
Value<B> cum_sum(const Value<B>& x, std::int64_t axis, bool exclusive, bool reverse) {
    const std::size_t a = detail::norm_axis(axis, x.rank(), "CumSum");
    if (x.is_bool()) detail::fail("CumSum", "input must be numeric, got ", x.describe());
    const std::vector<std::size_t> fa{a};
    Value<B> in = reverse ? detail::flip(x, fa) : x;
    Value<B> c = in.map([&](auto k, const auto& p) {
        using K = decltype(k);
        if constexpr (std::is_same_v<K, Bool>) return p;
        else return KindOps<B, K>::cumsum(p, a);
    });
    if (exclusive) {
        c = in.is_float()
                ? Value<B>(Float{}, B::float_sub(c.float_prim(), in.float_prim()), x.type())
                : Value<B>(Int{}, B::int_sub(c.int_prim(), in.int_prim()), x.type());
    }
    return reverse ? detail::flip(c, fa) : c;
}

}  // namespace burn::onnx::ops

// SPDX-License-Identifier: MIT OR Apache-2.0
// ONNX element-wise ops (arithmetic, comparison, logic, unary math, activations, Cast, Where,
// Clip), the softmax family, MatMul and Gemm, over burn::onnx::Value<B>. Binary ops broadcast as
// NumPy does; results keep the first input's ONNX type.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "burn/onnx/ops_common.hpp"

/// A backend op as a callable object: decorators such as Autodiff<B> forward their int and bool
/// ops through variadic templates, which cannot be passed as function pointers.
#define BURN_ONNX_OP_FN(F) \
    [](auto&&... burn_a) -> decltype(auto) { return F(std::forward<decltype(burn_a)>(burn_a)...); }

namespace burn::onnx::ops {

// ------------------------------------------------------------------------------- binary
namespace detail {
/// The ONNX type a binary op computes in: a float type wins, else the first numeric type.
inline ElemType common_type(ElemType a, ElemType b) {
    if (is_float_type(a)) return a;
    if (is_float_type(b)) return b;
    if (a == ElemType::Bool) return b == ElemType::Bool ? ElemType::Int64 : b;
    return a;
}
/// Broadcasts a and b, converts both to their common type's kind, and calls ff (floats) or fi
/// (ints) on the primitives.
template <class B, class FF, class FI>
Value<B> arith(const Value<B>& a, const Value<B>& b, std::string_view op, FF ff, FI fi) {
    const ElemType t = common_type(a.type(), b.type());
    auto [x, y] = broadcast(a, b, op);
    if (kind_of(t) == ValueKind::Float) return Value<B>(Float{}, ff(x.to_float(), y.to_float()), t);
    return Value<B>(Int{}, fi(x.to_int(), y.to_int()), t);
}
/// Comparison: a bool result.
template <class B, class FF, class FI>
Value<B> compare(const Value<B>& a, const Value<B>& b, std::string_view op, FF ff, FI fi) {
    const ElemType t = common_type(a.type(), b.type());
    auto [x, y] = broadcast(a, b, op);
    if (kind_of(t) == ValueKind::Float) return Value<B>(Bool{}, ff(x.to_float(), y.to_float()));
    return Value<B>(Bool{}, fi(x.to_int(), y.to_int()));
}
}  // namespace detail

template <class B>
Value<B> add(const Value<B>& a, const Value<B>& b) {
    return detail::arith(a, b, "Add", BURN_ONNX_OP_FN(B::float_add), BURN_ONNX_OP_FN(B::int_add));
}
template <class B>
Value<B> sub(const Value<B>& a, const Value<B>& b) {
    return detail::arith(a, b, "Sub", BURN_ONNX_OP_FN(B::float_sub), BURN_ONNX_OP_FN(B::int_sub));
}
template <class B>
Value<B> mul(const Value<B>& a, const Value<B>& b) {
    return detail::arith(a, b, "Mul", BURN_ONNX_OP_FN(B::float_mul), BURN_ONNX_OP_FN(B::int_mul));
}
/// Integer division truncates toward zero (C's, as ONNX Runtime).
template <class B>
Value<B> div(const Value<B>& a, const Value<B>& b) {
    return detail::arith(a, b, "Div", BURN_ONNX_OP_FN(B::float_div), BURN_ONNX_OP_FN(B::int_div));
}

/// Mod: with fmod, C's fmod (the dividend's sign); else Python's % (the divisor's sign, integers
/// only, as ONNX requires).
template <class B>
Value<B> mod(const Value<B>& a, const Value<B>& b, bool fmod) {
    if (!fmod && (is_float_type(a.type()) || is_float_type(b.type())))
        detail::fail("Mod", "fmod=0 is only defined for integer inputs, got ", a.describe(),
                     " and ", b.describe());
    if (!fmod)
        return detail::arith(a, b, "Mod", BURN_ONNX_OP_FN(B::float_remainder),
                             BURN_ONNX_OP_FN(B::int_remainder));
    auto trunc_rem_f = [](auto x, auto y) {
        auto q = B::float_div(x, y);
        // trunc(q) = sign(q) * floor(|q|)
        auto t = B::float_mul(B::float_sign(q), B::float_floor(B::float_abs(q)));
        return B::float_sub(x, B::float_mul(t, y));
    };
    auto trunc_rem_i = [](auto x, auto y) {
        return B::int_sub(x, B::int_mul(B::int_div(x, y), y));
    };
    return detail::arith(a, b, "Mod", trunc_rem_f, trunc_rem_i);
}

/// Pow: the result has the base's type (an int base with a float exponent computes in float and
/// truncates back).
template <class B>
Value<B> pow(const Value<B>& a, const Value<B>& b) {
    auto [x, y] = detail::broadcast(a, b, "Pow");
    if (a.is_float()) return Value<B>(Float{}, B::float_powf(x.to_float(), y.to_float()), a.type());
    if (!b.is_float()) return Value<B>(Int{}, B::int_powi(x.to_int(), y.to_int()), a.type());
    return Value<B>(Int{}, B::float_into_int(B::float_powf(x.to_float(), y.to_float())), a.type());
}

template <class B>
Value<B> bit_shift(const Value<B>& a, const Value<B>& b, bool left) {
    if (!a.is_int() || !b.is_int())
        detail::fail("BitShift", "inputs must be integers, got ", a.describe(), " and ",
                     b.describe());
    auto [x, y] = detail::broadcast(a, b, "BitShift");
    auto twos = B::int_powi(B::int_full(y.shape(), 2, y.device()), y.int_prim());
    return Value<B>(Int{}, left ? B::int_mul(x.int_prim(), twos) : B::int_div(x.int_prim(), twos),
                    a.type());
}

template <class B>
Value<B> equal(const Value<B>& a, const Value<B>& b) {
    return detail::compare(a, b, "Equal", BURN_ONNX_OP_FN(B::float_equal),
                           BURN_ONNX_OP_FN(B::int_equal));
}
template <class B>
Value<B> greater(const Value<B>& a, const Value<B>& b) {
    return detail::compare(a, b, "Greater", BURN_ONNX_OP_FN(B::float_greater),
                           BURN_ONNX_OP_FN(B::int_greater));
}
template <class B>
Value<B> greater_or_equal(const Value<B>& a, const Value<B>& b) {
    return detail::compare(a, b, "GreaterOrEqual", BURN_ONNX_OP_FN(B::float_greater_equal),
                           BURN_ONNX_OP_FN(B::int_greater_equal));
}
template <class B>
Value<B> less(const Value<B>& a, const Value<B>& b) {
    return detail::compare(a, b, "Less", BURN_ONNX_OP_FN(B::float_lower),
                           BURN_ONNX_OP_FN(B::int_lower));
}
template <class B>
Value<B> less_or_equal(const Value<B>& a, const Value<B>& b) {
    return detail::compare(a, b, "LessOrEqual", BURN_ONNX_OP_FN(B::float_lower_equal),
                           BURN_ONNX_OP_FN(B::int_lower_equal));
}

namespace detail {
template <class B, class Fn>
Value<B> logic(const Value<B>& a, const Value<B>& b, std::string_view op, Fn fn) {
    if (!a.is_bool() || !b.is_bool())
        fail(op, "inputs must be bool, got ", a.describe(), " and ", b.describe());
    auto [x, y] = broadcast(a, b, op);
    return Value<B>(Bool{}, fn(x.bool_prim(), y.bool_prim()));
}
}  // namespace detail
template <class B>
Value<B> logical_and(const Value<B>& a, const Value<B>& b) {
    return detail::logic(a, b, "And", BURN_ONNX_OP_FN(B::bool_and));
}
template <class B>
Value<B> logical_or(const Value<B>& a, const Value<B>& b) {
    return detail::logic(a, b, "Or", BURN_ONNX_OP_FN(B::bool_or));
}
template <class B>
Value<B> logical_xor(const Value<B>& a, const Value<B>& b) {
    return detail::logic(a, b, "Xor", BURN_ONNX_OP_FN(B::bool_not_equal));
}
template <class B>
Value<B> logical_not(const Value<B>& a) {
    if (!a.is_bool()) detail::fail("Not", "input must be bool, got ", a.describe());
    return Value<B>(Bool{}, B::bool_not(a.bool_prim()));
}

/// Variadic Max / Min / Sum / Mean: a fold of the pairwise op with broadcasting.
template <class B>
Value<B> max(const std::vector<Value<B>>& xs) {
    if (xs.empty()) detail::fail("Max", "at least one input is required");
    Value<B> acc = xs[0];
    for (std::size_t i = 1; i < xs.size(); ++i)
        acc = detail::arith(acc, xs[i], "Max", BURN_ONNX_OP_FN(B::float_max_pair),
                            BURN_ONNX_OP_FN(B::int_max_pair));
    return acc;
}
template <class B>
Value<B> min(const std::vector<Value<B>>& xs) {
    if (xs.empty()) detail::fail("Min", "at least one input is required");
    Value<B> acc = xs[0];
    for (std::size_t i = 1; i < xs.size(); ++i)
        acc = detail::arith(acc, xs[i], "Min", BURN_ONNX_OP_FN(B::float_min_pair),
                            BURN_ONNX_OP_FN(B::int_min_pair));
    return acc;
}
template <class B>
Value<B> sum(const std::vector<Value<B>>& xs) {
    if (xs.empty()) detail::fail("Sum", "at least one input is required");
    Value<B> acc = xs[0];
    for (std::size_t i = 1; i < xs.size(); ++i) acc = add(acc, xs[i]);
    return acc;
}
template <class B>
Value<B> mean(const std::vector<Value<B>>& xs) {
    Value<B> s = sum(xs);
    const auto n = static_cast<double>(xs.size());
    if (s.is_float()) return Value<B>(Float{}, B::float_div_scalar(s.float_prim(), n), s.type());
    return Value<B>(Int{}, B::int_div_scalar(s.int_prim(), static_cast<std::int64_t>(n)), s.type());
}

// ------------------------------------------------------------------------------- unary
namespace detail {
/// A float-only unary op.
template <class B, class Fn>
Value<B> unary_float(const Value<B>& x, std::string_view op, Fn fn) {
    return Value<B>(Float{}, fn(require_float(x, op)), x.type());
}
}  // namespace detail

#define BURN_ONNX_UNARY_FLOAT(NAME, OPNAME, EXPR)                                  \
    template <class B>                                                             \
    Value<B> NAME(const Value<B>& x) {                                             \
        return detail::unary_float(x, OPNAME, [](const auto& t) { return EXPR; }); \
    }
BURN_ONNX_UNARY_FLOAT(exp, "Exp", B::float_exp(t))
BURN_ONNX_UNARY_FLOAT(log, "Log", B::float_log(t))
BURN_ONNX_UNARY_FLOAT(sqrt, "Sqrt", B::float_sqrt(t))
BURN_ONNX_UNARY_FLOAT(reciprocal, "Reciprocal", B::float_recip(t))
BURN_ONNX_UNARY_FLOAT(sin, "Sin", B::float_sin(t))
BURN_ONNX_UNARY_FLOAT(cos, "Cos", B::float_cos(t))
BURN_ONNX_UNARY_FLOAT(tan, "Tan", B::float_div(B::float_sin(t), B::float_cos(t)))
BURN_ONNX_UNARY_FLOAT(tanh, "Tanh", B::float_tanh(t))
BURN_ONNX_UNARY_FLOAT(sigmoid, "Sigmoid", B::sigmoid(t))
BURN_ONNX_UNARY_FLOAT(erf, "Erf", B::float_erf(t))
BURN_ONNX_UNARY_FLOAT(floor, "Floor", B::float_floor(t))
BURN_ONNX_UNARY_FLOAT(ceil, "Ceil", B::float_ceil(t))
BURN_ONNX_UNARY_FLOAT(round, "Round", B::float_round(t))
BURN_ONNX_UNARY_FLOAT(relu, "Relu", B::relu(t))
BURN_ONNX_UNARY_FLOAT(
    sinh, "Sinh",
    B::float_mul_scalar(B::float_sub(B::float_exp(t), B::float_exp(B::float_neg(t))), 0.5))
BURN_ONNX_UNARY_FLOAT(
    cosh, "Cosh",
    B::float_mul_scalar(B::float_add(B::float_exp(t), B::float_exp(B::float_neg(t))), 0.5))
// asinh(x) = sign(x) * log(|x| + sqrt(x^2 + 1)), accurate for negative x too.
BURN_ONNX_UNARY_FLOAT(asinh, "Asinh",
                      B::float_mul(B::float_sign(t),
                                   B::float_log(B::float_add(B::float_abs(t),
                                                             B::float_sqrt(B::float_add_scalar(
                                                                 B::float_mul(t, t), 1.0))))))
BURN_ONNX_UNARY_FLOAT(
    acosh, "Acosh",
    B::float_log(B::float_add(t, B::float_sqrt(B::float_sub_scalar(B::float_mul(t, t), 1.0)))))
BURN_ONNX_UNARY_FLOAT(
    atanh, "Atanh",
    B::float_mul_scalar(B::float_log(B::float_div(B::float_add_scalar(t, 1.0),
                                                  B::float_neg(B::float_sub_scalar(t, 1.0)))),
                        0.5))
BURN_ONNX_UNARY_FLOAT(softplus, "Softplus",
                      // log(1 + e^x) = max(x, 0) + log1p(e^-|x|)
                      B::float_add(B::relu(t),
                                   B::float_log1p(B::float_exp(B::float_neg(B::float_abs(t))))))
BURN_ONNX_UNARY_FLOAT(softsign, "Softsign",
                      B::float_div(t, B::float_add_scalar(B::float_abs(t), 1.0)))
BURN_ONNX_UNARY_FLOAT(gelu, "Gelu", B::gelu(t))
#undef BURN_ONNX_UNARY_FLOAT

namespace detail {
/// atan by Cephes' single-precision method: range reduction to |x| <= tan(pi/8) (through
/// pi/2 - atan(1/x) and pi/4 + atan((x-1)/(x+1))) and a degree-9 odd minimax polynomial; error
/// within a few float ulps.
template <class B>
typename B::FloatTensor atan_prim(const typename B::FloatTensor& t) {
    auto a = B::float_abs(t);
    auto big = B::float_greater_elem(a, 2.414213562373095);
    auto mid = B::bool_and(B::float_greater_elem(a, 0.4142135623730950), B::bool_not(big));
    auto inv = B::float_neg(B::float_recip(a));
    auto red = B::float_div(B::float_sub_scalar(a, 1.0), B::float_add_scalar(a, 1.0));
    auto x = B::float_mask_where(B::float_mask_where(a, mid, red), big, inv);
    auto y0 = B::float_mask_fill(
        B::float_mask_fill(B::float_zeros(B::float_shape(a), B::float_device(a)), mid, M_PI_4), big,
        M_PI_2);
    auto z = B::float_mul(x, x);
    auto p = B::float_add_scalar(B::float_mul_scalar(z, 8.05374449538e-2), -1.38776856032e-1);
    p = B::float_add_scalar(B::float_mul(p, z), 1.99777106478e-1);
    p = B::float_add_scalar(B::float_mul(p, z), -3.33329491539e-1);
    auto y = B::float_add(B::float_mul(B::float_mul(p, z), x), x);
    y = B::float_add(y, y0);
    return B::float_mul(y, B::float_sign(t));
}
}  // namespace detail

template <class B>
Value<B> atan(const Value<B>& x) {
    return Value<B>(Float{}, detail::atan_prim<B>(detail::require_float(x, "Atan")), x.type());
}
/// asin(x) = atan(x / sqrt(1 - x^2)) (NaN outside [-1, 1]).
template <class B>
Value<B> asin(const Value<B>& x) {
    auto t = detail::require_float(x, "Asin");
    auto c = B::float_sqrt(B::float_neg(B::float_sub_scalar(B::float_mul(t, t), 1.0)));
    return Value<B>(Float{}, detail::atan_prim<B>(B::float_div(t, c)), x.type());
}
/// acos(x) = pi/2 - asin(x).
template <class B>
Value<B> acos(const Value<B>& x) {
    auto a = asin(x);
    return Value<B>(Float{}, B::float_add_scalar(B::float_neg(a.float_prim()), M_PI_2), x.type());
}

template <class B>
Value<B> mish(const Value<B>& x) {
    auto sp = softplus(x);
    return Value<B>(Float{}, B::float_mul(x.float_prim(), B::float_tanh(sp.float_prim())),
                    x.type());
}

template <class B>
Value<B> neg(const Value<B>& x) {
    if (x.is_bool()) detail::fail("Neg", "input must be numeric, got ", x.describe());
    return x.is_float() ? Value<B>(Float{}, B::float_neg(x.float_prim()), x.type())
                        : Value<B>(Int{}, B::int_neg(x.int_prim()), x.type());
}
template <class B>
Value<B> abs(const Value<B>& x) {
    if (x.is_bool()) detail::fail("Abs", "input must be numeric, got ", x.describe());
    return x.is_float() ? Value<B>(Float{}, B::float_abs(x.float_prim()), x.type())
                        : Value<B>(Int{}, B::int_abs(x.int_prim()), x.type());
}
template <class B>
Value<B> sign(const Value<B>& x) {
    if (x.is_bool()) detail::fail("Sign", "input must be numeric, got ", x.describe());
    return x.is_float() ? Value<B>(Float{}, B::float_sign(x.float_prim()), x.type())
                        : Value<B>(Int{}, B::int_sign(x.int_prim()), x.type());
}
template <class B>
Value<B> is_nan(const Value<B>& x) {
    return Value<B>(Bool{}, B::float_is_nan(detail::require_float(x, "IsNaN")));
}
template <class B>
Value<B> is_inf(const Value<B>& x, bool detect_positive, bool detect_negative) {
    auto t = detail::require_float(x, "IsInf");
    const double inf = std::numeric_limits<double>::infinity();
    auto pos = B::float_equal_elem(t, inf);
    auto negm = B::float_equal_elem(t, -inf);
    if (detect_positive && detect_negative) return Value<B>(Bool{}, B::bool_or(pos, negm));
    if (detect_positive) return Value<B>(Bool{}, pos);
    if (detect_negative) return Value<B>(Bool{}, negm);
    return Value<B>(Bool{}, B::bool_and(pos, negm));  // all false
}

// ------------------------------------------------------------------------------- activations
template <class B>
Value<B> leaky_relu(const Value<B>& x, double alpha) {
    return Value<B>(Float{}, B::leaky_relu(detail::require_float(x, "LeakyRelu"), alpha), x.type());
}
template <class B>
Value<B> elu(const Value<B>& x, double alpha) {
    auto t = detail::require_float(x, "Elu");
    auto negative = B::float_mul_scalar(B::float_sub_scalar(B::float_exp(t), 1.0), alpha);
    return Value<B>(Float{}, B::float_mask_where(t, B::float_lower_equal_elem(t, 0.0), negative),
                    x.type());
}
template <class B>
Value<B> celu(const Value<B>& x, double alpha) {
    auto t = detail::require_float(x, "Celu");
    auto negative = B::float_mul_scalar(
        B::float_sub_scalar(B::float_exp(B::float_div_scalar(t, alpha)), 1.0), alpha);
    return Value<B>(Float{}, B::float_mask_where(t, B::float_lower_equal_elem(t, 0.0), negative),
                    x.type());
}
template <class B>
Value<B> selu(const Value<B>& x, double alpha, double gamma) {
    auto t = detail::require_float(x, "Selu");
    auto negative = B::float_mul_scalar(B::float_sub_scalar(B::float_exp(t), 1.0), alpha);
    auto y = B::float_mask_where(t, B::float_lower_equal_elem(t, 0.0), negative);
    return Value<B>(Float{}, B::float_mul_scalar(y, gamma), x.type());
}
template <class B>
Value<B> hard_sigmoid(const Value<B>& x, double alpha, double beta) {
    return Value<B>(Float{}, B::hard_sigmoid(detail::require_float(x, "HardSigmoid"), alpha, beta),
                    x.type());
}
template <class B>
Value<B> hard_swish(const Value<B>& x) {
    auto t = detail::require_float(x, "HardSwish");
    return Value<B>(Float{}, B::float_mul(t, B::hard_sigmoid(t, 1.0 / 6.0, 0.5)), x.type());
}
template <class B>
Value<B> thresholded_relu(const Value<B>& x, double alpha) {
    auto t = detail::require_float(x, "ThresholdedRelu");
    return Value<B>(Float{}, B::float_mask_fill(t, B::float_lower_equal_elem(t, alpha), 0.0),
                    x.type());
}
template <class B>
Value<B> shrink(const Value<B>& x, double bias, double lambd) {
    const ElemType t = x.type();
    auto f = x.to_float();
    auto up = B::float_sub_scalar(f, bias);
    auto down = B::float_add_scalar(f, bias);
    auto zero = B::float_zeros(B::float_shape(f), B::float_device(f));
    auto y = B::float_mask_where(zero, B::float_greater_elem(f, lambd), up);
    y = B::float_mask_where(y, B::float_lower_elem(f, -lambd), down);
    return detail::to_kind(Value<B>(Float{}, y, is_float_type(t) ? t : ElemType::Float), t);
}
/// PRelu: slope broadcast against x (unidirectionally).
template <class B>
Value<B> prelu(const Value<B>& x, const Value<B>& slope) {
    auto t = detail::require_float(x, "PRelu");
    Value<B> sl = slope;
    const Shape xs = x.shape(), ss = slope.shape();
    // Opset < 7 (and PyTorch's exports of PReLU(num_parameters=C)): a [C] slope applies along
    // the channel dim 1 of an [N, C, ...] input.
    if (ss.rank() == 1 && xs.rank() >= 2 && ss[0] == xs[1] && ss[0] != xs[xs.rank() - 1]) {
        Shape cs(std::vector<std::size_t>(xs.rank() - 1, 1));
        cs[0] = ss[0];
        sl = detail::reshape(slope, cs);
    }
    auto [xb, sb] = detail::broadcast(x, sl, "PRelu");
    if (xb.shape() != x.shape())
        detail::fail("PRelu", "slope ", slope.describe(), " does not broadcast to ", x.describe());
    auto neg_part = B::float_mul(t, sb.to_float());
    return Value<B>(Float{}, B::float_mask_where(t, B::float_lower_elem(t, 0.0), neg_part),
                    x.type());
}

/// Softmax-like ops: before opset 13 the input is viewed as 2-D [prod(:axis), prod(axis:)] and
/// normalised along the second dim; from 13 along `axis` alone.
template <class B, class Fn>
Value<B> softmax_family(const Value<B>& x, std::int64_t axis, std::int64_t opset,
                        std::string_view op, Fn fn) {
    auto t = detail::require_float(x, op);
    const Shape s = x.shape();
    if (s.rank() == 0) detail::fail(op, "input must have rank >= 1");
    const std::size_t a = detail::norm_axis(axis, s.rank(), op);
    if (opset < 13) {
        const Shape flat{detail::dims_product(s, 0, a), detail::dims_product(s, a, s.rank())};
        auto y = fn(B::float_reshape(t, flat), std::size_t{1});
        return Value<B>(Float{}, B::float_reshape(y, s), x.type());
    }
    return Value<B>(Float{}, fn(t, a), x.type());
}
template <class B>
Value<B> softmax(const Value<B>& x, std::int64_t axis, std::int64_t opset) {
    return softmax_family(x, axis, opset, "Softmax",
                          [](auto t, std::size_t d) { return B::softmax(t, d); });
}
template <class B>
Value<B> log_softmax(const Value<B>& x, std::int64_t axis, std::int64_t opset) {
    return softmax_family(x, axis, opset, "LogSoftmax",
                          [](auto t, std::size_t d) { return B::log_softmax(t, d); });
}
/// Hardmax: 1 at the first maximum along the axis, 0 elsewhere.
template <class B>
Value<B> hardmax(const Value<B>& x, std::int64_t axis, std::int64_t opset) {
    return softmax_family(x, axis, opset, "Hardmax", [](auto t, std::size_t d) {
        const Shape s = B::float_shape(t);
        auto idx = B::float_argmax(t, d);  // size 1 along d
        Shape as(std::vector<std::size_t>(s.rank(), 1));
        as[d] = s[d];
        auto ar = B::int_expand(
            B::int_reshape(B::int_arange(0, static_cast<std::int64_t>(s[d]), 1, B::float_device(t)),
                           as),
            s);
        auto hit = B::int_equal(ar, B::int_expand(idx, s));
        return B::bool_into_float(hit);
    });
}

// ------------------------------------------------------------------------------- others
/// Clip to [lo, hi] (either may be absent).
template <class B>
Value<B> clip(const Value<B>& x, std::optional<double> lo, std::optional<double> hi) {
    if (x.is_bool()) detail::fail("Clip", "input must be numeric, got ", x.describe());
    if (x.is_float()) {
        auto t = x.float_prim();
        if (lo) t = B::float_clamp_min(t, *lo);
        if (hi) t = B::float_clamp_max(t, *hi);
        return Value<B>(Float{}, t, x.type());
    }
    auto t = x.int_prim();
    if (lo) t = B::int_clamp_min(t, static_cast<std::int64_t>(std::ceil(*lo)));
    if (hi) t = B::int_clamp_max(t, static_cast<std::int64_t>(std::floor(*hi)));
    return Value<B>(Int{}, t, x.type());
}

/// Cast to `to`: float -> int truncates toward zero; numbers -> bool test != 0. Casts to float16,
/// bfloat16 and to narrower integers round-trip through host data so that the values are those
/// of the narrow type.
template <class B>
Value<B> cast(const Value<B>& x, ElemType to) {
    if (!is_supported_elem_type(to))
        detail::fail("Cast", "cannot cast ", x.describe(), " to ", elem_type_name(to),
                     " (numbers and bools only)");
    Value<B> y = detail::to_kind(x, to);
    const bool narrow_float = to == ElemType::Float16 || to == ElemType::BFloat16;
    const bool narrow_int = to == ElemType::Int8 || to == ElemType::UInt8 ||
                            to == ElemType::Int16 || to == ElemType::UInt16 ||
                            to == ElemType::Int32 || to == ElemType::UInt32;
    if (narrow_float || (narrow_int && x.type() != to)) {
        TensorData d = y.to_data();
        if (narrow_int) {
            // Wrap around as C's conversions do (value modulo 2^bits).
            const int bits = to == ElemType::Int8 || to == ElemType::UInt8     ? 8
                             : to == ElemType::Int16 || to == ElemType::UInt16 ? 16
                                                                               : 32;
            const bool is_signed =
                to == ElemType::Int8 || to == ElemType::Int16 || to == ElemType::Int32;
            std::vector<std::int64_t> v = y.to_ints();
            for (auto& e : v) {
                const auto mask = (std::uint64_t(1) << bits) - 1;
                std::uint64_t u = static_cast<std::uint64_t>(e) & mask;
                if (is_signed && (u >> (bits - 1)) & 1)
                    e = static_cast<std::int64_t>(u) - (std::int64_t(1) << bits);
                else e = static_cast<std::int64_t>(u);
            }
            d = TensorData(std::move(v), d.shape).convert(storage_dtype(to));
        }
        return Value<B>::from_data(d, to, x.device());
    }
    return y;
}

/// Where(cond, x, y): x where cond is true, y elsewhere; all three broadcast.
template <class B>
Value<B> where(const Value<B>& cond, const Value<B>& x, const Value<B>& y) {
    if (!cond.is_bool()) detail::fail("Where", "condition must be bool, got ", cond.describe());
    const std::size_t r = std::max({cond.rank(), x.rank(), y.rank()});
    Value<B> c = detail::align_rank(cond, r), a = detail::align_rank(x, r),
             b = detail::align_rank(y, r);
    Shape s = broadcast_shapes(broadcast_shapes(c.shape(), a.shape(), "Where"), b.shape(), "Where");
    c = detail::expand(c, s);
    a = detail::expand(a, s);
    b = detail::expand(b, s);
    const ElemType t = detail::common_type(x.type(), y.type());
    if (x.is_bool() && y.is_bool()) {
        auto ai = B::bool_into_int(a.bool_prim()), bi = B::bool_into_int(b.bool_prim());
        return Value<B>(Bool{}, B::int_not_equal_elem(B::int_mask_where(bi, c.bool_prim(), ai), 0));
    }
    if (kind_of(t) == ValueKind::Float)
        return Value<B>(Float{}, B::float_mask_where(b.to_float(), c.bool_prim(), a.to_float()), t);
    return Value<B>(Int{}, B::int_mask_where(b.to_int(), c.bool_prim(), a.to_int()), t);
}

// ------------------------------------------------------------------------------- products
/// MatMul with NumPy semantics: 1-D operands gain (and lose) a dim, batch dims broadcast.
template <class B>
Value<B> matmul(const Value<B>& a, const Value<B>& b) {
    if (a.rank() == 0 || b.rank() == 0)
        detail::fail("MatMul", "operands must have rank >= 1, got ", a.describe(), " and ",
                     b.describe());
    const ElemType t = detail::common_type(a.type(), b.type());
    auto x = a.to_float(), y = b.to_float();
    Shape sa = a.shape(), sb = b.shape();
    const bool va = sa.rank() == 1, vb = sb.rank() == 1;
    if (va) {
        sa = Shape{1, sa[0]};
        x = B::float_reshape(x, sa);
    }
    if (vb) {
        sb = Shape{sb[0], 1};
        y = B::float_reshape(y, sb);
    }
    if (sa[sa.rank() - 1] != sb[sb.rank() - 2])
        detail::fail("MatMul", "inner dims differ: ", a.describe(), " @ ", b.describe());
    const std::size_t r = std::max(sa.rank(), sb.rank());
    Shape ba, bb;
    for (std::size_t i = 0; i + 2 < sa.rank(); ++i) ba.push_back(sa[i]);
    for (std::size_t i = 0; i + 2 < sb.rank(); ++i) bb.push_back(sb[i]);
    Shape batch = broadcast_shapes(ba, bb, "MatMul");
    Shape ea = batch, eb = batch;
    ea.push_back(sa[sa.rank() - 2]);
    ea.push_back(sa[sa.rank() - 1]);
    eb.push_back(sb[sb.rank() - 2]);
    eb.push_back(sb[sb.rank() - 1]);
    auto align = [&](auto p, const Shape& s, const Shape& e) {
        Shape al;
        for (std::size_t i = s.rank(); i < r; ++i) al.push_back(1);
        for (auto d : s) al.push_back(d);
        p = B::float_reshape(p, al);
        return al == e ? p : B::float_expand(p, e);
    };
    auto z = B::float_matmul(align(x, sa, ea), align(y, sb, eb));
    Shape out = batch;
    if (!va) out.push_back(sa[sa.rank() - 2]);
    if (!vb) out.push_back(sb[sb.rank() - 1]);
    z = B::float_reshape(z, out);
    Value<B> res(Float{}, z, kind_of(t) == ValueKind::Float ? t : ElemType::Float);
    return kind_of(t) == ValueKind::Float ? res : detail::to_kind(res, t);
}

struct GemmAttrs {
    double alpha = 1.0;
    double beta = 1.0;
    bool trans_a = false;
    bool trans_b = false;
};
/// Gemm: alpha * A' B' + beta * C (C broadcast, optional).
template <class B>
Value<B> gemm(const Value<B>& a, const Value<B>& b, const OptValue<B>& c, const GemmAttrs& at) {
    if (a.rank() != 2 || b.rank() != 2)
        detail::fail("Gemm", "A and B must be 2-D, got ", a.describe(), " and ", b.describe());
    auto x = a.to_float(), y = b.to_float();
    if (at.trans_a) x = B::float_swap_dims(x, 0, 1);
    if (at.trans_b) y = B::float_swap_dims(y, 0, 1);
    if (B::float_shape(x)[1] != B::float_shape(y)[0])
        detail::fail("Gemm", "inner dims differ: A' ", B::float_shape(x), ", B' ",
                     B::float_shape(y));
    auto z = B::float_matmul(x, y);
    if (at.alpha != 1.0) z = B::float_mul_scalar(z, at.alpha);
    const ElemType t = a.type();
    Value<B> res(Float{}, z, is_float_type(t) ? t : ElemType::Float);
    if (c) {
        Value<B> cc = *c;
        if (at.beta != 1.0)
            cc = Value<B>(Float{}, B::float_mul_scalar(c->to_float(), at.beta), res.type());
        auto [zb, cb] = detail::broadcast(res, cc, "Gemm");
        if (zb.shape() != res.shape())
            detail::fail("Gemm", "C ", c->describe(), " does not broadcast to ", res.describe());
        res = Value<B>(Float{}, B::float_add(zb.float_prim(), cb.to_float()), res.type());
    }
    return is_float_type(t) ? res : detail::to_kind(res, t);
}

}  // namespace burn::onnx::ops

namespace burn::onnx::ops {

/// Einsum: operands aligned on one list of labels (repeated labels within an operand take the
/// diagonal; "..." broadcasts), multiplied with broadcasting and summed over the labels missing
/// from the output.
template <class B>
Value<B> einsum(std::string equation, const std::vector<Value<B>>& xs) {
    equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
    const auto arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    std::vector<std::string> terms;
    {
        std::size_t start = 0;
        for (std::size_t i = 0; i <= lhs.size(); ++i)
            if (i == lhs.size() || lhs[i] == ',') {
                terms.push_back(lhs.substr(start, i - start));
                start = i + 1;
            }
    }
    if (terms.size() != xs.size())
        detail::fail("Einsum", "equation '", equation, "' has ", terms.size(), " operands, got ",
                     xs.size());
    // Labels: letters by their code, ellipsis dims as 256 + position (right-aligned).
    auto letters = [](const std::string& t) {
        std::size_t n = 0;
        for (char c : t)
            if (std::isalpha(static_cast<unsigned char>(c))) ++n;
        return n;
    };
    std::size_t ell = 0;
    for (std::size_t i = 0; i < xs.size(); ++i)
        if (terms[i].find("...") != std::string::npos)
            ell = std::max(ell, xs[i].rank() - letters(terms[i]));
    auto parse = [&](const std::string& t, std::size_t rank) {
        std::vector<int> labels;
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (t.compare(i, 3, "...") == 0) {
                const std::size_t e = rank - letters(t);
                for (std::size_t j = 0; j < e; ++j)
                    labels.push_back(256 + static_cast<int>(ell - e + j));
                i += 2;
            } else if (std::isalpha(static_cast<unsigned char>(t[i]))) {
                labels.push_back(static_cast<unsigned char>(t[i]));
            } else {
                detail::fail("Einsum", "unexpected character '", t[i], "' in '", t, "'");
            }
        }
        if (labels.size() != rank)
            detail::fail("Einsum", "term '", t, "' does not match an operand of rank ", rank);
        return labels;
    };
    std::vector<std::vector<int>> labels;
    std::vector<Value<B>> ops_in;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        auto l = parse(terms[i], xs[i].rank());
        Value<B> v = Value<B>(Float{}, xs[i].to_float(),
                              is_float_type(xs[i].type()) ? xs[i].type() : ElemType::Float);
        // Diagonals of repeated labels.
        for (bool again = true; again;) {
            again = false;
            for (std::size_t a = 0; a < l.size() && !again; ++a)
                for (std::size_t b = a + 1; b < l.size() && !again; ++b) {
                    if (l[a] != l[b]) continue;
                    const Shape s = v.shape();
                    if (s[a] != s[b])
                        detail::fail("Einsum", "label repeated on dims of sizes ", s[a], " and ",
                                     s[b]);
                    std::vector<std::size_t> perm;
                    std::vector<int> nl;
                    Shape ns;
                    for (std::size_t d = 0; d < l.size(); ++d)
                        if (d != a && d != b) {
                            perm.push_back(d);
                            nl.push_back(l[d]);
                            ns.push_back(s[d]);
                        }
                    perm.push_back(a);
                    perm.push_back(b);
                    const std::size_t n = s[a];
                    Shape flat = ns;
                    flat.push_back(n * n);
                    Value<B> p = detail::reshape(detail::permute(v, perm), flat);
                    std::vector<std::int64_t> idx(n);
                    for (std::size_t k = 0; k < n; ++k)
                        idx[k] = static_cast<std::int64_t>(k * (n + 1));
                    auto it = B::int_from_data(TensorData(idx, Shape{n}), v.device());
                    v = Value<B>(Float{}, B::float_select(p.float_prim(), flat.rank() - 1, it),
                                 v.type());
                    nl.push_back(l[a]);
                    l = nl;
                    again = true;
                }
        }
        labels.push_back(l);
        ops_in.push_back(v);
    }
    std::vector<int> out;
    if (arrow != std::string::npos) {
        const std::string rhs = equation.substr(arrow + 2);
        for (std::size_t i = 0; i < rhs.size(); ++i) {
            if (rhs.compare(i, 3, "...") == 0) {
                for (std::size_t j = 0; j < ell; ++j) out.push_back(256 + static_cast<int>(j));
                i += 2;
            } else if (std::isalpha(static_cast<unsigned char>(rhs[i]))) {
                out.push_back(static_cast<unsigned char>(rhs[i]));
            } else {
                detail::fail("Einsum", "unexpected character '", rhs[i], "' in the output '", rhs,
                             "'");
            }
        }
    } else {
        for (std::size_t j = 0; j < ell; ++j) out.push_back(256 + static_cast<int>(j));
        std::map<int, int> count;
        for (const auto& l : labels)
            for (int c : l) ++count[c];
        for (const auto& [c, k] : count)
            if (c < 256 && k == 1) out.push_back(c);
    }
    std::vector<int> all = out;
    for (const auto& l : labels)
        for (int c : l)
            if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
    for (int c : out) {
        bool found = false;
        for (const auto& l : labels) found = found || std::find(l.begin(), l.end(), c) != l.end();
        if (!found)
            detail::fail("Einsum", "output label '", static_cast<char>(c), "' is in no operand");
    }
    std::optional<Value<B>> prod;
    for (std::size_t i = 0; i < ops_in.size(); ++i) {
        const auto& l = labels[i];
        std::vector<std::size_t> perm;
        Shape aligned;
        const Shape s = ops_in[i].shape();
        for (int c : all) {
            auto it = std::find(l.begin(), l.end(), c);
            if (it == l.end()) {
                aligned.push_back(1);
            } else {
                const auto d = static_cast<std::size_t>(it - l.begin());
                perm.push_back(d);
                aligned.push_back(s[d]);
            }
        }
        Value<B> v = detail::reshape(detail::permute(ops_in[i], perm), aligned);
        prod = prod ? mul(*prod, v) : v;
    }
    Value<B> r = *prod;
    const Shape ps = r.shape();
    auto t = r.float_prim();
    for (std::size_t d = out.size(); d < all.size(); ++d) t = B::float_sum_dim(t, d);
    Shape os;
    for (std::size_t d = 0; d < out.size(); ++d) os.push_back(ps[d]);
    Value<B> res(Float{}, B::float_reshape(t, os), r.type());
    return is_float_type(xs[0].type()) ? res : detail::to_kind(res, xs[0].type());
}

/// Det: the determinants of the square matrices in the last two dims of x [..., M, M] (LU with
/// partial pivoting in double precision, on the host), of shape [...].
template <class B>
Value<B> det(const Value<B>& x) {
    const Shape s = x.shape();
    if (s.rank() < 2 || s[s.rank() - 1] != s[s.rank() - 2])
        detail::fail("Det", "input must be [..., M, M], got ", x.describe());
    detail::require_float(x, "Det");
    const std::size_t m = s[s.rank() - 1];
    const std::size_t batch = detail::dims_product(s, 0, s.rank() - 2);
    std::vector<double> a = x.to_doubles(), out(batch);
    for (std::size_t b = 0; b < batch; ++b) {
        double* A = a.data() + b * m * m;
        double d = 1.0;
        for (std::size_t c = 0; c < m && d != 0.0; ++c) {
            std::size_t piv = c;
            for (std::size_t r = c + 1; r < m; ++r)
                if (std::abs(A[r * m + c]) > std::abs(A[piv * m + c])) piv = r;
            if (A[piv * m + c] == 0.0) {
                d = 0.0;
                break;
            }
            if (piv != c) {
                for (std::size_t k = 0; k < m; ++k) std::swap(A[c * m + k], A[piv * m + k]);
                d = -d;
            }
            d *= A[c * m + c];
            for (std::size_t r = c + 1; r < m; ++r) {
                const double f = A[r * m + c] / A[c * m + c];
                for (std::size_t k = c; k < m; ++k) A[r * m + k] -= f * A[c * m + k];
            }
        }
        out[b] = d;
    }
    Shape os;
    for (std::size_t i = 0; i + 2 < s.rank(); ++i) os.push_back(s[i]);
    return Value<B>::from_data(TensorData(out, os).convert(storage_dtype(x.type())), x.type(),
                               x.device());
}

/// BitwiseAnd, BitwiseOr, BitwiseXor (op '&', '|', '^') and BitwiseNot ('~', b absent) of
/// integer tensors, broadcast, on the host; results wrap to the element type's width.
template <class B>
Value<B> bitwise(const Value<B>& a, const OptValue<B>& b, char op) {
    const char* name = op == '&'   ? "BitwiseAnd"
                       : op == '|' ? "BitwiseOr"
                       : op == '^' ? "BitwiseXor"
                                   : "BitwiseNot";
    if (!a.is_int() || (b && !b->is_int()))
        detail::fail(name, "inputs must be integers, got ", a.describe(),
                     b ? " and " + b->describe() : std::string());
    if (b && b->type() != a.type())
        detail::fail(name, "inputs must have one type, got ", a.describe(), " and ", b->describe());
    Value<B> x = a, y = a;
    if (b) std::tie(x, y) = detail::broadcast(a, *b, name);
    std::vector<std::int64_t> u = x.to_ints();
    const std::vector<std::int64_t> v = b ? y.to_ints() : std::vector<std::int64_t>{};
    const ElemType t = a.type();
    const int bits = t == ElemType::Int8 || t == ElemType::UInt8     ? 8
                     : t == ElemType::Int16 || t == ElemType::UInt16 ? 16
                     : t == ElemType::Int32 || t == ElemType::UInt32 ? 32
                                                                     : 64;
    const bool is_unsigned = t == ElemType::UInt8 || t == ElemType::UInt16 || t == ElemType::UInt32;
    for (std::size_t i = 0; i < u.size(); ++i) {
        std::int64_t r = op == '&'   ? (u[i] & v[i])
                         : op == '|' ? (u[i] | v[i])
                         : op == '^' ? (u[i] ^ v[i])
                                     : ~u[i];
        if (is_unsigned) r &= static_cast<std::int64_t>((std::uint64_t(1) << bits) - 1);
        u[i] = r;
    }
    return Value<B>::from_data(TensorData(u, x.shape()).convert(storage_dtype(t)), t, a.device());
}

}  // namespace burn::onnx::ops

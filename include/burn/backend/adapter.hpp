// SPDX-License-Identifier: MIT OR Apache-2.0
// The adapter of the backend kit: KernelBackend<KS, F, I> implements the whole Backend op table
// (<burn/backend/op_list.hpp>) on a kernel set KS (<burn/backend/kernels.hpp>). A backend is a
// short declaration over it:
//
//   template <class F = float, class I = std::int64_t>
//   struct Cpu : backend::KernelBackend<cpu::Kernels, F, I> {
//       static std::string name() { return "cpu<f32>"; }
//       using FullPrecisionBackend = Cpu<F, I>;
//   };
//   static_assert(burn::diagnose_backend<Cpu<float>>());   // in the backend's source
//
// What the adapter does once for every backend:
//  - kinds: new float tensors have F's dtype (float_cast converts a tensor to f32, f16, bf16 or
//    f64, which every later op keeps), int ops run on I's, bool tensors are DType::Bool; one
//    primitive type serves the three kinds. Kernels are called through Widened<KS>
//    (burn/backend/widen.hpp): mixed float dtypes promote, and f16 / bf16 operands of a kernel
//    the set does not run in half precision are computed in f32;
//  - views (reshape, permute, swap_dims, flip, expand, slice) are host code on the layout
//    (burn/backend/layout.hpp); reshape copies through K::contiguous only when the strides
//    cannot describe the new shape;
//  - quantized float primitives (qinfo set) are dequantized before any float op but shape,
//    device, into_data and to_device; results are ordinary float tensors;
//  - each Backend op is mapped to its enum-driven kernel (float_exp -> unary(Exp), int_sum ->
//    reduce_all(Sum), conv2d -> conv(SpatialArgs), ...).
// Arguments are valid: the Tensor layer validated them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "burn/backend/kernels.hpp"
#include "burn/backend/widen.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/dtype.hpp"

namespace burn::backend {

template <KernelSet KS, class F, class I>
struct KernelBackend {
private:
    /// The kernels as the ops call them: float dtypes settled (promotion, half in f32).
    using K = Widened<KS>;

public:
    using Device = typename K::Device;
    using FloatTensor = typename K::Tensor;
    using IntTensor = typename K::Tensor;
    using BoolTensor = typename K::Tensor;
    using FloatElem = F;
    using IntElem = I;
    using Kernels = KS;  ///< the backend's own kernel set

    static constexpr DType default_float_dtype = ElementTraits<F>::dtype;
    static constexpr DType int_dtype = ElementTraits<I>::dtype;
    static constexpr DType bool_dtype = DType::Bool;

    static void seed(std::uint64_t s) { K::seed(s); }
    /// Waits until every op queued on the device has run.
    static void sync(const Device& device) { K::sync(device); }

    /// Present when the kernel set has a fused Adam step (burn::optim::Adam uses it).
    static AdamStepResult<typename K::Tensor> fused_adam_step(
        typename K::Tensor param, typename K::Tensor grad, typename K::Tensor* moment_1,
        typename K::Tensor* moment_2, const AdamHyper& h) requires FusedAdamKernel<KS> {
        return K::adam_step(std::move(param), std::move(grad), moment_1, moment_2, h);
    }

    /// Present when the kernel set has a fused layer norm (burn::nn::LayerNorm uses it).
    static typename K::Tensor fused_layer_norm(typename K::Tensor x, typename K::Tensor gamma,
                                               std::optional<typename K::Tensor> beta,
                                               double epsilon) requires FusedLayerNormKernel<KS> {
        return K::layer_norm(std::move(x), std::move(gamma), std::move(beta), epsilon);
    }
    static LayerNormBackward<typename K::Tensor> fused_layer_norm_backward(
        typename K::Tensor x, typename K::Tensor gamma, typename K::Tensor grad, double epsilon,
        bool with_beta) requires FusedLayerNormKernel<KS> {
        return K::layer_norm_backward(std::move(x), std::move(gamma), std::move(grad), epsilon,
                                      with_beta);
    }

private:
    using T = typename K::Tensor;
    using OptT = std::optional<T>;
    using Axes = std::span<const std::size_t>;
    using Ranges = std::span<const SliceRange>;
    using Size2 = std::array<std::size_t, 2>;
    static ScalarArg fs(double v) { return ScalarArg::of(v); }
    static ScalarArg is(std::int64_t v) { return ScalarArg::of(v); }

    // Quantized float primitives are dequantized before a float op runs (dq); their result is an
    // ordinary float tensor (call quantize again to store int8). The per-kind macros take an
    // input adapter A: Quant for floats, Plain (no work) for ints and bools.
    static T dq(T t) {
        if (t.qinfo) return K::dequantize(t, default_float_dtype);
        return t;  // moved: a unique buffer stays unique, so kernels may still work in place
    }
    static OptT dq(OptT t) {
        if (t) *t = dq(std::move(*t));
        return t;
    }
    static std::vector<T> dq(std::vector<T> ts) {
        for (auto& t : ts) t = dq(std::move(t));
        return ts;
    }
    struct Quant {
        template <class X>
        static X in(X x) {
            return dq(std::move(x));
        }
        static T from_data(const TensorData& d, DType dt, const Device& dev) {
            return d.is_quantized() ? K::quantized_from_data(d, dev) : K::from_data(d, dt, dev);
        }
        static TensorData into_data(const T& t) {
            return t.qinfo ? K::quantized_into_data(t) : K::into_data(t);
        }
    };
    struct Plain {
        template <class X>
        static X&& in(X&& x) noexcept {
            return std::forward<X>(x);
        }
        static T from_data(const TensorData& d, DType dt, const Device& dev) {
            return K::from_data(d, dt, dev);
        }
        static TensorData into_data(const T& t) { return K::into_data(t); }
    };

    /// The largest value of the half type `dt` below `high`.
    static double half_below(double high, DType dt) {
        auto value = [dt](std::uint16_t b) {
            return dt == DType::F16 ? double(f16::to_float(b)) : double(float(bf16::from_bits(b)));
        };
        const auto h = static_cast<float>(high);
        std::uint16_t bits = dt == DType::F16 ? f16(h).bits : bf16(h).bits;
        if (value(bits) < high) return value(bits);
        if (bits == 0) return value(0x8001);           // +0: the negative smallest subnormal
        bits = (bits & 0x8000) ? bits + 1 : bits - 1;  // one unit in the last place down
        return value(bits);
    }
    /// random() in `dt`. Uniform values drawn in f32 and rounded to a half type could reach
    /// `high`: those stay below it, at the largest half value under `high` (at least `low`).
    static T random_of(const Shape& s, const Distribution& d, DType dt, const Device& dev) {
        const bool uniform =
            d.kind == Distribution::Kind::Default || d.kind == Distribution::Kind::Uniform;
        if (!is_half(dt) || !uniform || !(d.a < d.b)) return K::random(s, d, dt, dev);
        T r = K::random(s, d, DType::F32, dev);
        const double top = std::max(half_below(d.b, dt), d.a);
        return K::cast_any(K::clamp(std::move(r), std::nullopt, ScalarArg::of(top)), dt);
    }

    template <class V, class... A>
    static T view_of(T t, V v, A&&... a) {
        v(t, std::forward<A>(a)...);
        return t;
    }

public:
    // ---------------------------------------------------------------- ops of every kind
#define BURN_ADAPTER_BASIC_OPS(P, DT, A)                                                         \
    static T P##_from_data(const TensorData& d, const Device& dev) {                             \
        return A::from_data(d, DT, dev);                                                         \
    }                                                                                            \
    static TensorData P##_into_data(T t) { return A::into_data(t); }                             \
    static Device P##_device(const T& t) { return t.device; }                                    \
    static T P##_to_device(T t, const Device& dev) { return K::to_device(std::move(t), dev); }   \
    static Shape P##_shape(const T& t) { return t.shape; }                                       \
    static T P##_empty(const Shape& s, const Device& dev) { return K::empty(s, DT, dev); }       \
    static T P##_reshape(T t, const Shape& s) {                                                  \
        return backend::reshape<KS>(A::in(std::move(t)), s);                                     \
    }                                                                                            \
    static T P##_swap_dims(T t, std::size_t a, std::size_t b) {                                  \
        return view_of(A::in(std::move(t)), view::swap_dims, a, b);                              \
    }                                                                                            \
    static T P##_permute(T t, Axes axes) {                                                       \
        return view_of(A::in(std::move(t)), view::permute, axes);                                \
    }                                                                                            \
    static T P##_flip(T t, Axes axes) { return view_of(A::in(std::move(t)), view::flip, axes); } \
    static T P##_expand(T t, const Shape& s) {                                                   \
        return view_of(A::in(std::move(t)), view::expand, s);                                    \
    }                                                                                            \
    static T P##_slice(T t, Ranges r) { return view_of(A::in(std::move(t)), view::slice, r); }   \
    static T P##_slice_assign(T t, Ranges r, T v) {                                              \
        return K::slice_assign(A::in(std::move(t)), r, A::in(std::move(v)));                     \
    }                                                                                            \
    static T P##_cat(std::vector<T> ts, std::size_t dim) {                                       \
        return K::cat(A::in(std::move(ts)), dim);                                                \
    }                                                                                            \
    static T P##_repeat_dim(T t, std::size_t dim, std::size_t n) {                               \
        return K::repeat_dim(A::in(std::move(t)), dim, n);                                       \
    }                                                                                            \
    static T P##_equal(T a, T b) {                                                               \
        return K::compare(CmpOp::Eq, A::in(std::move(a)), A::in(std::move(b)));                  \
    }                                                                                            \
    static T P##_not_equal(T a, T b) {                                                           \
        return K::compare(CmpOp::Ne, A::in(std::move(a)), A::in(std::move(b)));                  \
    }

    BURN_ADAPTER_BASIC_OPS(float, default_float_dtype, Quant)
    BURN_ADAPTER_BASIC_OPS(int, int_dtype, Plain)
    BURN_ADAPTER_BASIC_OPS(bool, bool_dtype, Plain)
#undef BURN_ADAPTER_BASIC_OPS

    // ---------------------------------------------------------------- ops of the numeric kinds
#define BURN_ADAPTER_BINARY(P, A, NAME, OP)                                       \
    static T P##_##NAME(T a, T b) {                                               \
        return K::binary(BinaryOp::OP, A::in(std::move(a)), A::in(std::move(b))); \
    }
#define BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, NAME, OP)                  \
    static T P##_##NAME(T a, S s) {                                        \
        return K::binary_scalar(BinaryOp::OP, A::in(std::move(a)), SC(s)); \
    }
#define BURN_ADAPTER_COMPARE(P, A, S, SC, NAME, OP)                             \
    static T P##_##NAME(T a, T b) {                                             \
        return K::compare(CmpOp::OP, A::in(std::move(a)), A::in(std::move(b))); \
    }                                                                           \
    static T P##_##NAME##_elem(T a, S s) {                                      \
        return K::compare_scalar(CmpOp::OP, A::in(std::move(a)), SC(s));        \
    }
#define BURN_ADAPTER_REDUCE_DIM(P, A, NAME, OP)                     \
    static T P##_##NAME(T a, std::size_t d) {                       \
        return K::reduce_dim(ReduceOp::OP, A::in(std::move(a)), d); \
    }
#define BURN_ADAPTER_CUMULATIVE(P, A, NAME, OP)                  \
    static T P##_##NAME(T a, std::size_t d) {                    \
        return K::cumulative(CumOp::OP, A::in(std::move(a)), d); \
    }

#define BURN_ADAPTER_NUMERIC_OPS(P, DT, S, SC, A)                                                 \
    static T P##_zeros(const Shape& s, const Device& dev) { return K::full(s, SC(0), DT, dev); }  \
    static T P##_ones(const Shape& s, const Device& dev) { return K::full(s, SC(1), DT, dev); }   \
    static T P##_full(const Shape& s, S v, const Device& dev) {                                   \
        return K::full(s, SC(v), DT, dev);                                                        \
    }                                                                                             \
    static T P##_random(const Shape& s, const Distribution& d, const Device& dev) {               \
        return random_of(s, d, DT, dev);                                                          \
    }                                                                                             \
    BURN_ADAPTER_BINARY(P, A, add, Add)                                                           \
    BURN_ADAPTER_BINARY(P, A, sub, Sub)                                                           \
    BURN_ADAPTER_BINARY(P, A, mul, Mul)                                                           \
    BURN_ADAPTER_BINARY(P, A, div, Div)                                                           \
    BURN_ADAPTER_BINARY(P, A, remainder, Rem)                                                     \
    BURN_ADAPTER_BINARY(P, A, max_pair, Max)                                                      \
    BURN_ADAPTER_BINARY(P, A, min_pair, Min)                                                      \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, add_scalar, Add)                                      \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, sub_scalar, Sub)                                      \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, mul_scalar, Mul)                                      \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, div_scalar, Div)                                      \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, remainder_scalar, Rem)                                \
    static T P##_neg(T a) { return K::unary(UnaryOp::Neg, A::in(std::move(a))); }                 \
    static T P##_abs(T a) { return K::unary(UnaryOp::Abs, A::in(std::move(a))); }                 \
    static T P##_sign(T a) { return K::unary(UnaryOp::Sign, A::in(std::move(a))); }               \
    static T P##_clamp(T a, S lo, S hi) { return K::clamp(A::in(std::move(a)), SC(lo), SC(hi)); } \
    static T P##_clamp_min(T a, S lo) {                                                           \
        return K::clamp(A::in(std::move(a)), SC(lo), std::nullopt);                               \
    }                                                                                             \
    static T P##_clamp_max(T a, S hi) {                                                           \
        return K::clamp(A::in(std::move(a)), std::nullopt, SC(hi));                               \
    }                                                                                             \
    BURN_ADAPTER_COMPARE(P, A, S, SC, greater, Gt)                                                \
    BURN_ADAPTER_COMPARE(P, A, S, SC, greater_equal, Ge)                                          \
    BURN_ADAPTER_COMPARE(P, A, S, SC, lower, Lt)                                                  \
    BURN_ADAPTER_COMPARE(P, A, S, SC, lower_equal, Le)                                            \
    static T P##_equal_elem(T a, S s) {                                                           \
        return K::compare_scalar(CmpOp::Eq, A::in(std::move(a)), SC(s));                          \
    }                                                                                             \
    static T P##_not_equal_elem(T a, S s) {                                                       \
        return K::compare_scalar(CmpOp::Ne, A::in(std::move(a)), SC(s));                          \
    }                                                                                             \
    static T P##_sum(T a) { return K::reduce_all(ReduceOp::Sum, A::in(std::move(a))); }           \
    static T P##_prod(T a) { return K::reduce_all(ReduceOp::Prod, A::in(std::move(a))); }         \
    BURN_ADAPTER_REDUCE_DIM(P, A, sum_dim, Sum)                                                   \
    BURN_ADAPTER_REDUCE_DIM(P, A, prod_dim, Prod)                                                 \
    BURN_ADAPTER_REDUCE_DIM(P, A, mean_dim, Mean)                                                 \
    BURN_ADAPTER_REDUCE_DIM(P, A, max_dim, Max)                                                   \
    BURN_ADAPTER_REDUCE_DIM(P, A, min_dim, Min)                                                   \
    static std::pair<T, T> P##_max_dim_with_indices(T a, std::size_t d) {                         \
        return K::reduce_dim_with_indices(ReduceOp::Max, A::in(std::move(a)), d, int_dtype);      \
    }                                                                                             \
    static std::pair<T, T> P##_min_dim_with_indices(T a, std::size_t d) {                         \
        return K::reduce_dim_with_indices(ReduceOp::Min, A::in(std::move(a)), d, int_dtype);      \
    }                                                                                             \
    static T P##_argmax(T a, std::size_t d) { return P##_max_dim_with_indices(a, d).second; }     \
    static T P##_argmin(T a, std::size_t d) { return P##_min_dim_with_indices(a, d).second; }     \
    static T P##_gather(std::size_t d, T a, T idx) {                                              \
        return K::gather(d, A::in(std::move(a)), std::move(idx));                                 \
    }                                                                                             \
    static T P##_scatter(std::size_t d, T a, T idx, T v) {                                        \
        return K::scatter_add(d, A::in(std::move(a)), std::move(idx), A::in(std::move(v)));       \
    }                                                                                             \
    static T P##_select(T a, std::size_t d, T idx) {                                              \
        return K::select(A::in(std::move(a)), d, std::move(idx));                                 \
    }                                                                                             \
    static T P##_select_assign(T a, std::size_t d, T idx, T v) {                                  \
        return K::select_add(A::in(std::move(a)), d, std::move(idx), A::in(std::move(v)));        \
    }                                                                                             \
    static T P##_mask_where(T a, T mask, T v) {                                                   \
        return K::mask_where(A::in(std::move(a)), std::move(mask), A::in(std::move(v)));          \
    }                                                                                             \
    static T P##_mask_fill(T a, T mask, S v) {                                                    \
        return K::mask_fill(A::in(std::move(a)), std::move(mask), SC(v));                         \
    }                                                                                             \
    static std::pair<T, T> P##_sort_with_indices(T a, std::size_t d, bool desc) {                 \
        return K::sort(A::in(std::move(a)), d, desc, int_dtype);                                  \
    }                                                                                             \
    static T P##_sort(T a, std::size_t d, bool desc) {                                            \
        return P##_sort_with_indices(std::move(a), d, desc).first;                                \
    }                                                                                             \
    static T P##_argsort(T a, std::size_t d, bool desc) {                                         \
        return K::argsort(A::in(std::move(a)), d, desc, int_dtype);                               \
    }                                                                                             \
    BURN_ADAPTER_CUMULATIVE(P, A, cumsum, Sum)                                                    \
    BURN_ADAPTER_CUMULATIVE(P, A, cumprod, Prod)                                                  \
    BURN_ADAPTER_CUMULATIVE(P, A, cummin, Min)                                                    \
    BURN_ADAPTER_CUMULATIVE(P, A, cummax, Max)

    BURN_ADAPTER_NUMERIC_OPS(float, default_float_dtype, double, fs, Quant)
    BURN_ADAPTER_NUMERIC_OPS(int, int_dtype, std::int64_t, is, Plain)
#undef BURN_ADAPTER_NUMERIC_OPS
#undef BURN_ADAPTER_BINARY
#undef BURN_ADAPTER_BINARY_SCALAR
#undef BURN_ADAPTER_COMPARE
#undef BURN_ADAPTER_REDUCE_DIM
#undef BURN_ADAPTER_CUMULATIVE

    // ---------------------------------------------------------------- float-only ops
#define BURN_ADAPTER_UNARY(NAME, OP) \
    static T float_##NAME(T a) { return K::unary(UnaryOp::OP, dq(std::move(a))); }
    BURN_ADAPTER_UNARY(exp, Exp)
    BURN_ADAPTER_UNARY(log, Log)
    BURN_ADAPTER_UNARY(log1p, Log1p)
    BURN_ADAPTER_UNARY(erf, Erf)
    BURN_ADAPTER_UNARY(sqrt, Sqrt)
    BURN_ADAPTER_UNARY(recip, Recip)
    BURN_ADAPTER_UNARY(sin, Sin)
    BURN_ADAPTER_UNARY(cos, Cos)
    BURN_ADAPTER_UNARY(tanh, Tanh)
    BURN_ADAPTER_UNARY(round, Round)
    BURN_ADAPTER_UNARY(floor, Floor)
    BURN_ADAPTER_UNARY(ceil, Ceil)
#undef BURN_ADAPTER_UNARY
    static T float_powf(T a, T b) {
        return K::binary(BinaryOp::Pow, dq(std::move(a)), dq(std::move(b)));
    }
    static T float_powf_scalar(T a, double s) {
        return K::binary_scalar(BinaryOp::Pow, dq(std::move(a)), fs(s));
    }
    static T float_matmul(T a, T b) { return K::matmul(dq(std::move(a)), dq(std::move(b))); }
    static T float_is_nan(T a) { return K::is_nan(dq(std::move(a))); }
    static DType float_dtype(const T& t) { return t.qinfo ? DType::QInt8 : t.dtype; }
    static T float_cast(T t, DType dtype) { return K::cast_any(dq(std::move(t)), dtype); }
    static T float_into_int(T a) { return K::cast_any(dq(std::move(a)), int_dtype); }
    static T int_into_float(T a) { return K::cast_any(std::move(a), default_float_dtype); }
    static T bool_into_float(T a) { return K::cast_any(std::move(a), default_float_dtype); }

    // ---------------------------------------------------------------- quantization
    static T quantize(T t, const QuantizationScheme& scheme, T scale, OptT offset) {
        return K::quantize(dq(std::move(t)), scheme, dq(std::move(scale)), std::move(offset));
    }
    static T dequantize(T t) { return dq(std::move(t)); }
    static bool float_is_quantized(const T& t) { return t.qinfo != nullptr; }

    // ---------------------------------------------------------------- int-only ops
    static T int_arange(std::int64_t start, std::int64_t end, std::int64_t step, const Device& d) {
        return K::arange(start, end, step, int_dtype, d);
    }
    static T int_powi(T a, T b) { return K::binary(BinaryOp::Pow, std::move(a), std::move(b)); }
    static T int_powi_scalar(T a, std::int64_t s) {
        return K::binary_scalar(BinaryOp::Pow, std::move(a), is(s));
    }

    // ---------------------------------------------------------------- bool-only ops
    static T bool_not(T a) { return K::unary(UnaryOp::Not, std::move(a)); }
    static T bool_and(T a, T b) { return K::binary(BinaryOp::And, std::move(a), std::move(b)); }
    static T bool_or(T a, T b) { return K::binary(BinaryOp::Or, std::move(a), std::move(b)); }
    static T bool_into_int(T a) { return K::cast(std::move(a), int_dtype); }
    static T bool_any(T a) { return K::any_all(false, std::move(a)); }
    static T bool_all(T a) { return K::any_all(true, std::move(a)); }
    static T bool_any_dim(T a, std::size_t d) { return K::any_all_dim(false, std::move(a), d); }
    static T bool_all_dim(T a, std::size_t d) { return K::any_all_dim(true, std::move(a), d); }
    static T bool_argwhere(T a) { return K::argwhere(std::move(a), int_dtype); }

    // ---------------------------------------------------------------- module ops
#define BURN_ADAPTER_CONV_OPS(N)                                                                  \
    static T conv##N##d(T x, T w, OptT b, const ConvOptions<N>& o) {                              \
        return K::conv(dq(std::move(x)), dq(std::move(w)), dq(std::move(b)), spatial_args(o));    \
    }                                                                                             \
    static T conv##N##d_x_backward(T x, T w, T g, const ConvOptions<N>& o) {                      \
        return K::conv_x_backward(dq(std::move(x)), dq(std::move(w)), dq(std::move(g)),           \
                                  spatial_args(o));                                               \
    }                                                                                             \
    static T conv##N##d_weight_backward(T x, T w, T g, const ConvOptions<N>& o) {                 \
        return K::conv_weight_backward(dq(std::move(x)), dq(std::move(w)), dq(std::move(g)),      \
                                       spatial_args(o));                                          \
    }                                                                                             \
    static T conv##N##d_bias_backward(T, T, T g) {                                                \
        return K::conv_bias_backward(dq(std::move(g)));                                           \
    }                                                                                             \
    static T conv_transpose##N##d(T x, T w, OptT b, const ConvTransposeOptions<N>& o) {           \
        return K::conv_transpose(dq(std::move(x)), dq(std::move(w)), dq(std::move(b)),            \
                                 spatial_args(o));                                                \
    }                                                                                             \
    static T conv_transpose##N##d_x_backward(T x, T w, T g, const ConvTransposeOptions<N>& o) {   \
        return K::conv_transpose_x_backward(dq(std::move(x)), dq(std::move(w)), dq(std::move(g)), \
                                            spatial_args(o));                                     \
    }                                                                                             \
    static T conv_transpose##N##d_weight_backward(T x, T w, T g,                                  \
                                                  const ConvTransposeOptions<N>& o) {             \
        return K::conv_transpose_weight_backward(dq(std::move(x)), dq(std::move(w)),              \
                                                 dq(std::move(g)), spatial_args(o));              \
    }                                                                                             \
    static T conv_transpose##N##d_bias_backward(T, T, T g) {                                      \
        return K::conv_bias_backward(dq(std::move(g)));                                           \
    }
    BURN_ADAPTER_CONV_OPS(1)
    BURN_ADAPTER_CONV_OPS(2)
    BURN_ADAPTER_CONV_OPS(3)
#undef BURN_ADAPTER_CONV_OPS

#define BURN_ADAPTER_POOL_OPS(N)                                                                   \
    static T avg_pool##N##d(T x, const AvgPoolOptions<N>& o) {                                     \
        return K::avg_pool(dq(std::move(x)), spatial_args(o));                                     \
    }                                                                                              \
    static T avg_pool##N##d_backward(T x, T g, const AvgPoolOptions<N>& o) {                       \
        return K::avg_pool_backward(dq(std::move(x)), dq(std::move(g)), spatial_args(o));          \
    }                                                                                              \
    static T max_pool##N##d(T x, const MaxPoolOptions<N>& o) {                                     \
        return K::max_pool(dq(std::move(x)), spatial_args(o), false, int_dtype).first;             \
    }                                                                                              \
    static MaxPoolWithIndices<T, T> max_pool##N##d_with_indices(T x, const MaxPoolOptions<N>& o) { \
        auto [out, idx] = K::max_pool(dq(std::move(x)), spatial_args(o), true, int_dtype);         \
        return {std::move(out), std::move(idx)};                                                   \
    }                                                                                              \
    static T max_pool##N##d_with_indices_backward(T x, const MaxPoolOptions<N>& o, T g, T idx) {   \
        return K::max_pool_backward(dq(std::move(x)), dq(std::move(g)), std::move(idx),            \
                                    spatial_args(o));                                              \
    }                                                                                              \
    static T adaptive_avg_pool##N##d(T x, const std::array<std::size_t, N>& s) {                   \
        return K::adaptive_avg_pool(dq(std::move(x)), s);                                          \
    }                                                                                              \
    static T adaptive_avg_pool##N##d_backward(T x, T g) {                                          \
        return K::adaptive_avg_pool_backward(dq(std::move(x)), dq(std::move(g)));                  \
    }
    BURN_ADAPTER_POOL_OPS(1)
    BURN_ADAPTER_POOL_OPS(2)
#undef BURN_ADAPTER_POOL_OPS
    static T adaptive_avg_pool3d(T x, const std::array<std::size_t, 3>& s) {
        return K::adaptive_avg_pool(dq(std::move(x)), s);
    }
    static T adaptive_avg_pool3d_backward(T x, T g) {
        return K::adaptive_avg_pool_backward(dq(std::move(x)), dq(std::move(g)));
    }

    static T deform_conv2d(T x, T offset, T w, OptT mask, OptT b, const DeformConvOptions<2>& o) {
        return K::deform_conv2d(dq(std::move(x)), dq(std::move(offset)), dq(std::move(w)),
                                dq(std::move(mask)), dq(std::move(b)), spatial_args(o));
    }
    static DeformConv2dBackward<T> deform_conv2d_backward(T x, T offset, T w, OptT mask, OptT b,
                                                          T g, const DeformConvOptions<2>& o) {
        return K::deform_conv2d_backward(dq(std::move(x)), dq(std::move(offset)), dq(std::move(w)),
                                         dq(std::move(mask)), dq(std::move(b)), dq(std::move(g)),
                                         spatial_args(o));
    }
    static T unfold4d(T x, const Size2& kernel, const UnfoldOptions& o) {
        return K::unfold4d(dq(std::move(x)), spatial_args(kernel, o));
    }
    static T interpolate(T x, const Size2& s, const InterpolateOptions& o) {
        return K::interpolate(dq(std::move(x)), s, o);
    }
    static T interpolate_backward(T x, T g, const Size2& s, const InterpolateOptions& o) {
        return K::interpolate_backward(dq(std::move(x)), dq(std::move(g)), s, o);
    }
    static T embedding(T w, T idx) { return K::embedding(dq(std::move(w)), std::move(idx)); }
    static T embedding_backward(T w, T g, T idx) {
        return K::embedding_backward(dq(std::move(w)), dq(std::move(g)), std::move(idx));
    }

    // ---------------------------------------------------------------- activations
#define BURN_ADAPTER_ACTIVATION(NAME, OP)                                                      \
    static T NAME(T x) { return K::activation(Activation::OP, dq(std::move(x)), 0.0, 0.0); }   \
    static T NAME##_backward(T saved, T g) {                                                   \
        return K::activation_backward(Activation::OP, dq(std::move(saved)), dq(std::move(g))); \
    }
    BURN_ADAPTER_ACTIVATION(relu, Relu)
    BURN_ADAPTER_ACTIVATION(gelu, Gelu)
    BURN_ADAPTER_ACTIVATION(sigmoid, Sigmoid)
    BURN_ADAPTER_ACTIVATION(log_sigmoid, LogSigmoid)
#undef BURN_ADAPTER_ACTIVATION
    static T hard_sigmoid(T x, double alpha, double beta) {
        return K::activation(Activation::HardSigmoid, dq(std::move(x)), alpha, beta);
    }
    static T leaky_relu(T x, double slope) {
        return K::activation(Activation::LeakyRelu, dq(std::move(x)), slope, 0.0);
    }
    static T softmax(T x, std::size_t dim) { return K::softmax(dq(std::move(x)), dim, false); }
    static T log_softmax(T x, std::size_t dim) { return K::softmax(dq(std::move(x)), dim, true); }
};

}  // namespace burn::backend

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
//  - kinds: float ops run on F's dtype, int ops on I's, bool tensors are DType::Bool; one
//    primitive type serves the three kinds;
//  - views (reshape, permute, swap_dims, flip, expand, slice) are host code on the layout
//    (burn/backend/layout.hpp); reshape copies through KS::contiguous only when the strides
//    cannot describe the new shape;
//  - quantized float primitives (qinfo set) are dequantized before any float op but shape,
//    device, into_data and to_device; results are ordinary float tensors;
//  - each Backend op is mapped to its enum-driven kernel (float_exp -> unary(Exp), int_sum ->
//    reduce_all(Sum), conv2d -> conv(SpatialArgs), ...).
// Arguments are valid: the Tensor layer validated them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "burn/backend/kernels.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/dtype.hpp"

namespace burn::backend {

template <KernelSet KS, class F, class I>
struct KernelBackend {
    using Device = typename KS::Device;
    using FloatTensor = typename KS::Tensor;
    using IntTensor = typename KS::Tensor;
    using BoolTensor = typename KS::Tensor;
    using FloatElem = F;
    using IntElem = I;
    using Kernels = KS;

    static constexpr DType float_dtype = ElementTraits<F>::dtype;
    static constexpr DType int_dtype = ElementTraits<I>::dtype;
    static constexpr DType bool_dtype = DType::Bool;

    static void seed(std::uint64_t s) { KS::seed(s); }
    /// Waits until every op queued on the device has run.
    static void sync(const Device& device) { KS::sync(device); }

    /// Present when the kernel set has a fused Adam step (burn::optim::Adam uses it).
    static AdamStepResult<typename KS::Tensor> fused_adam_step(
        typename KS::Tensor param, typename KS::Tensor grad, typename KS::Tensor* moment_1,
        typename KS::Tensor* moment_2, const AdamHyper& h) requires FusedAdamKernel<KS> {
        return KS::adam_step(std::move(param), std::move(grad), moment_1, moment_2, h);
    }

private:
    using T = typename KS::Tensor;
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
        if (t.qinfo) return KS::dequantize(t, float_dtype);
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
            return d.is_quantized() ? KS::quantized_from_data(d, dev) : KS::from_data(d, dt, dev);
        }
        static TensorData into_data(const T& t) {
            return t.qinfo ? KS::quantized_into_data(t) : KS::into_data(t);
        }
    };
    struct Plain {
        template <class X>
        static X&& in(X&& x) noexcept {
            return std::forward<X>(x);
        }
        static T from_data(const TensorData& d, DType dt, const Device& dev) {
            return KS::from_data(d, dt, dev);
        }
        static TensorData into_data(const T& t) { return KS::into_data(t); }
    };

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
    static T P##_to_device(T t, const Device& dev) { return KS::to_device(std::move(t), dev); }  \
    static Shape P##_shape(const T& t) { return t.shape; }                                       \
    static T P##_empty(const Shape& s, const Device& dev) { return KS::empty(s, DT, dev); }      \
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
        return KS::slice_assign(A::in(std::move(t)), r, A::in(std::move(v)));                    \
    }                                                                                            \
    static T P##_cat(std::vector<T> ts, std::size_t dim) {                                       \
        return KS::cat(A::in(std::move(ts)), dim);                                               \
    }                                                                                            \
    static T P##_repeat_dim(T t, std::size_t dim, std::size_t n) {                               \
        return KS::repeat_dim(A::in(std::move(t)), dim, n);                                      \
    }                                                                                            \
    static T P##_equal(T a, T b) {                                                               \
        return KS::compare(CmpOp::Eq, A::in(std::move(a)), A::in(std::move(b)));                 \
    }                                                                                            \
    static T P##_not_equal(T a, T b) {                                                           \
        return KS::compare(CmpOp::Ne, A::in(std::move(a)), A::in(std::move(b)));                 \
    }

    BURN_ADAPTER_BASIC_OPS(float, float_dtype, Quant)
    BURN_ADAPTER_BASIC_OPS(int, int_dtype, Plain)
    BURN_ADAPTER_BASIC_OPS(bool, bool_dtype, Plain)
#undef BURN_ADAPTER_BASIC_OPS

    // ---------------------------------------------------------------- ops of the numeric kinds
#define BURN_ADAPTER_BINARY(P, A, NAME, OP)                                        \
    static T P##_##NAME(T a, T b) {                                                \
        return KS::binary(BinaryOp::OP, A::in(std::move(a)), A::in(std::move(b))); \
    }
#define BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, NAME, OP)                   \
    static T P##_##NAME(T a, S s) {                                         \
        return KS::binary_scalar(BinaryOp::OP, A::in(std::move(a)), SC(s)); \
    }
#define BURN_ADAPTER_COMPARE(P, A, S, SC, NAME, OP)                              \
    static T P##_##NAME(T a, T b) {                                              \
        return KS::compare(CmpOp::OP, A::in(std::move(a)), A::in(std::move(b))); \
    }                                                                            \
    static T P##_##NAME##_elem(T a, S s) {                                       \
        return KS::compare_scalar(CmpOp::OP, A::in(std::move(a)), SC(s));        \
    }
#define BURN_ADAPTER_REDUCE_DIM(P, A, NAME, OP)                      \
    static T P##_##NAME(T a, std::size_t d) {                        \
        return KS::reduce_dim(ReduceOp::OP, A::in(std::move(a)), d); \
    }
#define BURN_ADAPTER_CUMULATIVE(P, A, NAME, OP)                   \
    static T P##_##NAME(T a, std::size_t d) {                     \
        return KS::cumulative(CumOp::OP, A::in(std::move(a)), d); \
    }

#define BURN_ADAPTER_NUMERIC_OPS(P, DT, S, SC, A)                                                  \
    static T P##_zeros(const Shape& s, const Device& dev) { return KS::full(s, SC(0), DT, dev); }  \
    static T P##_ones(const Shape& s, const Device& dev) { return KS::full(s, SC(1), DT, dev); }   \
    static T P##_full(const Shape& s, S v, const Device& dev) {                                    \
        return KS::full(s, SC(v), DT, dev);                                                        \
    }                                                                                              \
    static T P##_random(const Shape& s, const Distribution& d, const Device& dev) {                \
        return KS::random(s, d, DT, dev);                                                          \
    }                                                                                              \
    BURN_ADAPTER_BINARY(P, A, add, Add)                                                            \
    BURN_ADAPTER_BINARY(P, A, sub, Sub)                                                            \
    BURN_ADAPTER_BINARY(P, A, mul, Mul)                                                            \
    BURN_ADAPTER_BINARY(P, A, div, Div)                                                            \
    BURN_ADAPTER_BINARY(P, A, remainder, Rem)                                                      \
    BURN_ADAPTER_BINARY(P, A, max_pair, Max)                                                       \
    BURN_ADAPTER_BINARY(P, A, min_pair, Min)                                                       \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, add_scalar, Add)                                       \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, sub_scalar, Sub)                                       \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, mul_scalar, Mul)                                       \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, div_scalar, Div)                                       \
    BURN_ADAPTER_BINARY_SCALAR(P, A, S, SC, remainder_scalar, Rem)                                 \
    static T P##_neg(T a) { return KS::unary(UnaryOp::Neg, A::in(std::move(a))); }                 \
    static T P##_abs(T a) { return KS::unary(UnaryOp::Abs, A::in(std::move(a))); }                 \
    static T P##_sign(T a) { return KS::unary(UnaryOp::Sign, A::in(std::move(a))); }               \
    static T P##_clamp(T a, S lo, S hi) { return KS::clamp(A::in(std::move(a)), SC(lo), SC(hi)); } \
    static T P##_clamp_min(T a, S lo) {                                                            \
        return KS::clamp(A::in(std::move(a)), SC(lo), std::nullopt);                               \
    }                                                                                              \
    static T P##_clamp_max(T a, S hi) {                                                            \
        return KS::clamp(A::in(std::move(a)), std::nullopt, SC(hi));                               \
    }                                                                                              \
    BURN_ADAPTER_COMPARE(P, A, S, SC, greater, Gt)                                                 \
    BURN_ADAPTER_COMPARE(P, A, S, SC, greater_equal, Ge)                                           \
    BURN_ADAPTER_COMPARE(P, A, S, SC, lower, Lt)                                                   \
    BURN_ADAPTER_COMPARE(P, A, S, SC, lower_equal, Le)                                             \
    static T P##_equal_elem(T a, S s) {                                                            \
        return KS::compare_scalar(CmpOp::Eq, A::in(std::move(a)), SC(s));                          \
    }                                                                                              \
    static T P##_not_equal_elem(T a, S s) {                                                        \
        return KS::compare_scalar(CmpOp::Ne, A::in(std::move(a)), SC(s));                          \
    }                                                                                              \
    static T P##_sum(T a) { return KS::reduce_all(ReduceOp::Sum, A::in(std::move(a))); }           \
    static T P##_prod(T a) { return KS::reduce_all(ReduceOp::Prod, A::in(std::move(a))); }         \
    BURN_ADAPTER_REDUCE_DIM(P, A, sum_dim, Sum)                                                    \
    BURN_ADAPTER_REDUCE_DIM(P, A, prod_dim, Prod)                                                  \
    BURN_ADAPTER_REDUCE_DIM(P, A, mean_dim, Mean)                                                  \
    BURN_ADAPTER_REDUCE_DIM(P, A, max_dim, Max)                                                    \
    BURN_ADAPTER_REDUCE_DIM(P, A, min_dim, Min)                                                    \
    static std::pair<T, T> P##_max_dim_with_indices(T a, std::size_t d) {                          \
        return KS::reduce_dim_with_indices(ReduceOp::Max, A::in(std::move(a)), d, int_dtype);      \
    }                                                                                              \
    static std::pair<T, T> P##_min_dim_with_indices(T a, std::size_t d) {                          \
        return KS::reduce_dim_with_indices(ReduceOp::Min, A::in(std::move(a)), d, int_dtype);      \
    }                                                                                              \
    static T P##_argmax(T a, std::size_t d) { return P##_max_dim_with_indices(a, d).second; }      \
    static T P##_argmin(T a, std::size_t d) { return P##_min_dim_with_indices(a, d).second; }      \
    static T P##_gather(std::size_t d, T a, T idx) {                                               \
        return KS::gather(d, A::in(std::move(a)), std::move(idx));                                 \
    }                                                                                              \
    static T P##_scatter(std::size_t d, T a, T idx, T v) {                                         \
        return KS::scatter_add(d, A::in(std::move(a)), std::move(idx), A::in(std::move(v)));       \
    }                                                                                              \
    static T P##_select(T a, std::size_t d, T idx) {                                               \
        return KS::select(A::in(std::move(a)), d, std::move(idx));                                 \
    }                                                                                              \
    static T P##_select_assign(T a, std::size_t d, T idx, T v) {                                   \
        return KS::select_add(A::in(std::move(a)), d, std::move(idx), A::in(std::move(v)));        \
    }                                                                                              \
    static T P##_mask_where(T a, T mask, T v) {                                                    \
        return KS::mask_where(A::in(std::move(a)), std::move(mask), A::in(std::move(v)));          \
    }                                                                                              \
    static T P##_mask_fill(T a, T mask, S v) {                                                     \
        return KS::mask_fill(A::in(std::move(a)), std::move(mask), SC(v));                         \
    }                                                                                              \
    static std::pair<T, T> P##_sort_with_indices(T a, std::size_t d, bool desc) {                  \
        return KS::sort(A::in(std::move(a)), d, desc, int_dtype);                                  \
    }                                                                                              \
    static T P##_sort(T a, std::size_t d, bool desc) {                                             \
        return P##_sort_with_indices(std::move(a), d, desc).first;                                 \
    }                                                                                              \
    static T P##_argsort(T a, std::size_t d, bool desc) {                                          \
        return KS::argsort(A::in(std::move(a)), d, desc, int_dtype);                               \
    }                                                                                              \
    BURN_ADAPTER_CUMULATIVE(P, A, cumsum, Sum)                                                     \
    BURN_ADAPTER_CUMULATIVE(P, A, cumprod, Prod)                                                   \
    BURN_ADAPTER_CUMULATIVE(P, A, cummin, Min)                                                     \
    BURN_ADAPTER_CUMULATIVE(P, A, cummax, Max)

    BURN_ADAPTER_NUMERIC_OPS(float, float_dtype, double, fs, Quant)
    BURN_ADAPTER_NUMERIC_OPS(int, int_dtype, std::int64_t, is, Plain)
#undef BURN_ADAPTER_NUMERIC_OPS
#undef BURN_ADAPTER_BINARY
#undef BURN_ADAPTER_BINARY_SCALAR
#undef BURN_ADAPTER_COMPARE
#undef BURN_ADAPTER_REDUCE_DIM
#undef BURN_ADAPTER_CUMULATIVE

    // ---------------------------------------------------------------- float-only ops
#define BURN_ADAPTER_UNARY(NAME, OP) \
    static T float_##NAME(T a) { return KS::unary(UnaryOp::OP, dq(std::move(a))); }
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
        return KS::binary(BinaryOp::Pow, dq(std::move(a)), dq(std::move(b)));
    }
    static T float_powf_scalar(T a, double s) {
        return KS::binary_scalar(BinaryOp::Pow, dq(std::move(a)), fs(s));
    }
    static T float_matmul(T a, T b) { return KS::matmul(dq(std::move(a)), dq(std::move(b))); }
    static T float_is_nan(T a) { return KS::is_nan(dq(std::move(a))); }
    static T float_into_int(T a) { return KS::cast(dq(std::move(a)), int_dtype); }
    static T int_into_float(T a) { return KS::cast(std::move(a), float_dtype); }
    static T bool_into_float(T a) { return KS::cast(std::move(a), float_dtype); }

    // ---------------------------------------------------------------- quantization
    static T quantize(T t, const QuantizationScheme& scheme, T scale, OptT offset) {
        return KS::quantize(dq(std::move(t)), scheme, dq(std::move(scale)), std::move(offset));
    }
    static T dequantize(T t) { return dq(std::move(t)); }
    static bool float_is_quantized(const T& t) { return t.qinfo != nullptr; }

    // ---------------------------------------------------------------- int-only ops
    static T int_arange(std::int64_t start, std::int64_t end, std::int64_t step, const Device& d) {
        return KS::arange(start, end, step, int_dtype, d);
    }
    static T int_powi(T a, T b) { return KS::binary(BinaryOp::Pow, std::move(a), std::move(b)); }
    static T int_powi_scalar(T a, std::int64_t s) {
        return KS::binary_scalar(BinaryOp::Pow, std::move(a), is(s));
    }

    // ---------------------------------------------------------------- bool-only ops
    static T bool_not(T a) { return KS::unary(UnaryOp::Not, std::move(a)); }
    static T bool_and(T a, T b) { return KS::binary(BinaryOp::And, std::move(a), std::move(b)); }
    static T bool_or(T a, T b) { return KS::binary(BinaryOp::Or, std::move(a), std::move(b)); }
    static T bool_into_int(T a) { return KS::cast(std::move(a), int_dtype); }
    static T bool_any(T a) { return KS::any_all(false, std::move(a)); }
    static T bool_all(T a) { return KS::any_all(true, std::move(a)); }
    static T bool_any_dim(T a, std::size_t d) { return KS::any_all_dim(false, std::move(a), d); }
    static T bool_all_dim(T a, std::size_t d) { return KS::any_all_dim(true, std::move(a), d); }
    static T bool_argwhere(T a) { return KS::argwhere(std::move(a), int_dtype); }

    // ---------------------------------------------------------------- module ops
#define BURN_ADAPTER_CONV_OPS(N)                                                                   \
    static T conv##N##d(T x, T w, OptT b, const ConvOptions<N>& o) {                               \
        return KS::conv(dq(std::move(x)), dq(std::move(w)), dq(std::move(b)), spatial_args(o));    \
    }                                                                                              \
    static T conv##N##d_x_backward(T x, T w, T g, const ConvOptions<N>& o) {                       \
        return KS::conv_x_backward(dq(std::move(x)), dq(std::move(w)), dq(std::move(g)),           \
                                   spatial_args(o));                                               \
    }                                                                                              \
    static T conv##N##d_weight_backward(T x, T w, T g, const ConvOptions<N>& o) {                  \
        return KS::conv_weight_backward(dq(std::move(x)), dq(std::move(w)), dq(std::move(g)),      \
                                        spatial_args(o));                                          \
    }                                                                                              \
    static T conv##N##d_bias_backward(T, T, T g) {                                                 \
        return KS::conv_bias_backward(dq(std::move(g)));                                           \
    }                                                                                              \
    static T conv_transpose##N##d(T x, T w, OptT b, const ConvTransposeOptions<N>& o) {            \
        return KS::conv_transpose(dq(std::move(x)), dq(std::move(w)), dq(std::move(b)),            \
                                  spatial_args(o));                                                \
    }                                                                                              \
    static T conv_transpose##N##d_x_backward(T x, T w, T g, const ConvTransposeOptions<N>& o) {    \
        return KS::conv_transpose_x_backward(dq(std::move(x)), dq(std::move(w)), dq(std::move(g)), \
                                             spatial_args(o));                                     \
    }                                                                                              \
    static T conv_transpose##N##d_weight_backward(T x, T w, T g,                                   \
                                                  const ConvTransposeOptions<N>& o) {              \
        return KS::conv_transpose_weight_backward(dq(std::move(x)), dq(std::move(w)),              \
                                                  dq(std::move(g)), spatial_args(o));              \
    }                                                                                              \
    static T conv_transpose##N##d_bias_backward(T, T, T g) {                                       \
        return KS::conv_bias_backward(dq(std::move(g)));                                           \
    }
    BURN_ADAPTER_CONV_OPS(1)
    BURN_ADAPTER_CONV_OPS(2)
    BURN_ADAPTER_CONV_OPS(3)
#undef BURN_ADAPTER_CONV_OPS

#define BURN_ADAPTER_POOL_OPS(N)                                                                   \
    static T avg_pool##N##d(T x, const AvgPoolOptions<N>& o) {                                     \
        return KS::avg_pool(dq(std::move(x)), spatial_args(o));                                    \
    }                                                                                              \
    static T avg_pool##N##d_backward(T x, T g, const AvgPoolOptions<N>& o) {                       \
        return KS::avg_pool_backward(dq(std::move(x)), dq(std::move(g)), spatial_args(o));         \
    }                                                                                              \
    static T max_pool##N##d(T x, const MaxPoolOptions<N>& o) {                                     \
        return KS::max_pool(dq(std::move(x)), spatial_args(o), false, int_dtype).first;            \
    }                                                                                              \
    static MaxPoolWithIndices<T, T> max_pool##N##d_with_indices(T x, const MaxPoolOptions<N>& o) { \
        auto [out, idx] = KS::max_pool(dq(std::move(x)), spatial_args(o), true, int_dtype);        \
        return {std::move(out), std::move(idx)};                                                   \
    }                                                                                              \
    static T max_pool##N##d_with_indices_backward(T x, const MaxPoolOptions<N>& o, T g, T idx) {   \
        return KS::max_pool_backward(dq(std::move(x)), dq(std::move(g)), std::move(idx),           \
                                     spatial_args(o));                                             \
    }                                                                                              \
    static T adaptive_avg_pool##N##d(T x, const std::array<std::size_t, N>& s) {                   \
        return KS::adaptive_avg_pool(dq(std::move(x)), s);                                         \
    }                                                                                              \
    static T adaptive_avg_pool##N##d_backward(T x, T g) {                                          \
        return KS::adaptive_avg_pool_backward(dq(std::move(x)), dq(std::move(g)));                 \
    }
    BURN_ADAPTER_POOL_OPS(1)
    BURN_ADAPTER_POOL_OPS(2)
#undef BURN_ADAPTER_POOL_OPS
    static T adaptive_avg_pool3d(T x, const std::array<std::size_t, 3>& s) {
        return KS::adaptive_avg_pool(dq(std::move(x)), s);
    }
    static T adaptive_avg_pool3d_backward(T x, T g) {
        return KS::adaptive_avg_pool_backward(dq(std::move(x)), dq(std::move(g)));
    }

    static T deform_conv2d(T x, T offset, T w, OptT mask, OptT b, const DeformConvOptions<2>& o) {
        return KS::deform_conv2d(dq(std::move(x)), dq(std::move(offset)), dq(std::move(w)),
                                 dq(std::move(mask)), dq(std::move(b)), spatial_args(o));
    }
    static DeformConv2dBackward<T> deform_conv2d_backward(T x, T offset, T w, OptT mask, OptT b,
                                                          T g, const DeformConvOptions<2>& o) {
        return KS::deform_conv2d_backward(dq(std::move(x)), dq(std::move(offset)), dq(std::move(w)),
                                          dq(std::move(mask)), dq(std::move(b)), dq(std::move(g)),
                                          spatial_args(o));
    }
    static T unfold4d(T x, const Size2& kernel, const UnfoldOptions& o) {
        return KS::unfold4d(dq(std::move(x)), spatial_args(kernel, o));
    }
    static T interpolate(T x, const Size2& s, const InterpolateOptions& o) {
        return KS::interpolate(dq(std::move(x)), s, o);
    }
    static T interpolate_backward(T x, T g, const Size2& s, const InterpolateOptions& o) {
        return KS::interpolate_backward(dq(std::move(x)), dq(std::move(g)), s, o);
    }
    static T embedding(T w, T idx) { return KS::embedding(dq(std::move(w)), std::move(idx)); }
    static T embedding_backward(T w, T g, T idx) {
        return KS::embedding_backward(dq(std::move(w)), dq(std::move(g)), std::move(idx));
    }

    // ---------------------------------------------------------------- activations
#define BURN_ADAPTER_ACTIVATION(NAME, OP)                                                       \
    static T NAME(T x) { return KS::activation(Activation::OP, dq(std::move(x)), 0.0, 0.0); }   \
    static T NAME##_backward(T saved, T g) {                                                    \
        return KS::activation_backward(Activation::OP, dq(std::move(saved)), dq(std::move(g))); \
    }
    BURN_ADAPTER_ACTIVATION(relu, Relu)
    BURN_ADAPTER_ACTIVATION(gelu, Gelu)
    BURN_ADAPTER_ACTIVATION(sigmoid, Sigmoid)
    BURN_ADAPTER_ACTIVATION(log_sigmoid, LogSigmoid)
#undef BURN_ADAPTER_ACTIVATION
    static T hard_sigmoid(T x, double alpha, double beta) {
        return KS::activation(Activation::HardSigmoid, dq(std::move(x)), alpha, beta);
    }
    static T leaky_relu(T x, double slope) {
        return KS::activation(Activation::LeakyRelu, dq(std::move(x)), slope, 0.0);
    }
    static T softmax(T x, std::size_t dim) { return KS::softmax(dq(std::move(x)), dim, false); }
    static T log_softmax(T x, std::size_t dim) { return KS::softmax(dq(std::move(x)), dim, true); }
};

}  // namespace burn::backend

// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::Cpu<F, I>: the CPU backend (Eigen, OpenBLAS and oneTBB inside compiled sources).
//
//   using B = burn::Cpu<>;                        // f32 floats, i64 ints
//   auto x = burn::Tensor<B, 2>::ones({2, 3});
//
// Every op forwards to a dtype-dispatched kernel in backends/cpu/src, so including this header
// parses no Eigen or TBB code and instantiates no kernels.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "burn/backend/cpu/kernels.hpp"
#include "burn/backend/cpu/tensor.hpp"
#include "burn/tensor/backend.hpp"

namespace burn {

/// The CPU backend. `F` is the float element (float or double), `I` the int element
/// (std::int64_t or std::int32_t). Bool tensors hold one byte per element.
template <class F = float, class I = std::int64_t>
struct Cpu {
    static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>,
                  "Cpu<F, I>: F must be float or double");
    static_assert(std::is_same_v<I, std::int64_t> || std::is_same_v<I, std::int32_t>,
                  "Cpu<F, I>: I must be std::int64_t or std::int32_t");

    using Device = CpuDevice;
    using FloatTensor = cpu::CpuTensor;
    using IntTensor = cpu::CpuTensor;
    using BoolTensor = cpu::CpuTensor;
    using FloatElem = F;
    using IntElem = I;
    /// Both float and double are at least f32, Burn's "full precision".
    using FullPrecisionBackend = Cpu<F, I>;

    static constexpr DType float_dtype = ElementTraits<F>::dtype;
    static constexpr DType int_dtype = ElementTraits<I>::dtype;
    static constexpr DType bool_dtype = DType::Bool;

    static std::string name() { return std::is_same_v<F, float> ? "cpu<f32>" : "cpu<f64>"; }
    static void seed(std::uint64_t s) { cpu::seed(s); }
    static void sync(const Device&) {}

private:
    using T = cpu::CpuTensor;
    using Axes = std::span<const std::size_t>;
    using Ranges = std::span<const SliceRange>;
    static cpu::ScalarArg fs(double v) { return cpu::ScalarArg::of(v); }
    static cpu::ScalarArg is(std::int64_t v) { return cpu::ScalarArg::of(v); }

public:
    // ---------------------------------------------------------------- basic ops, per kind
#define BURN_CPU_BASIC_OPS(P, DT)                                                                 \
    static T P##_from_data(const TensorData& d, const Device&) { return cpu::from_data(d, DT); } \
    static TensorData P##_into_data(T t) { return cpu::into_data(t); }                           \
    static Device P##_device(const T&) { return {}; }                                            \
    static T P##_to_device(T t, const Device&) { return t; }                                     \
    static Shape P##_shape(const T& t) { return t.shape; }                                       \
    static T P##_empty(const Shape& s, const Device&) { return cpu::empty(s, DT); }              \
    static T P##_reshape(T t, const Shape& s) { return cpu::reshape(std::move(t), s); }          \
    static T P##_swap_dims(T t, std::size_t a, std::size_t b) {                                  \
        return cpu::swap_dims(std::move(t), a, b);                                               \
    }                                                                                            \
    static T P##_permute(T t, Axes axes) { return cpu::permute(std::move(t), axes); }            \
    static T P##_flip(T t, Axes axes) { return cpu::flip(std::move(t), axes); }                  \
    static T P##_expand(T t, const Shape& s) { return cpu::expand(std::move(t), s); }            \
    static T P##_slice(T t, Ranges r) { return cpu::slice(std::move(t), r); }                    \
    static T P##_slice_assign(T t, Ranges r, T v) {                                              \
        return cpu::slice_assign(std::move(t), r, std::move(v));                                 \
    }                                                                                            \
    static T P##_cat(std::vector<T> ts, std::size_t dim) { return cpu::cat(std::move(ts), dim); } \
    static T P##_repeat_dim(T t, std::size_t dim, std::size_t n) {                               \
        return cpu::repeat_dim(std::move(t), dim, n);                                            \
    }                                                                                            \
    static T P##_equal(T a, T b) { return cpu::compare(cpu::CmpOp::Eq, std::move(a), std::move(b)); } \
    static T P##_not_equal(T a, T b) {                                                           \
        return cpu::compare(cpu::CmpOp::Ne, std::move(a), std::move(b));                         \
    }

    BURN_CPU_BASIC_OPS(float, float_dtype)
    BURN_CPU_BASIC_OPS(int, int_dtype)
    BURN_CPU_BASIC_OPS(bool, bool_dtype)
#undef BURN_CPU_BASIC_OPS

    // ---------------------------------------------------------------- numeric ops, per kind
#define BURN_CPU_NUMERIC_OPS(P, DT, S, SC)                                                        \
    static T P##_zeros(const Shape& s, const Device&) { return cpu::full(s, SC(0), DT); }         \
    static T P##_ones(const Shape& s, const Device&) { return cpu::full(s, SC(1), DT); }          \
    static T P##_full(const Shape& s, S v, const Device&) { return cpu::full(s, SC(v), DT); }     \
    static T P##_random(const Shape& s, const Distribution& d, const Device&) {                  \
        return cpu::random(s, d, DT);                                                            \
    }                                                                                            \
    static T P##_add(T a, T b) { return cpu::binary(cpu::BinaryOp::Add, std::move(a), std::move(b)); } \
    static T P##_sub(T a, T b) { return cpu::binary(cpu::BinaryOp::Sub, std::move(a), std::move(b)); } \
    static T P##_mul(T a, T b) { return cpu::binary(cpu::BinaryOp::Mul, std::move(a), std::move(b)); } \
    static T P##_div(T a, T b) { return cpu::binary(cpu::BinaryOp::Div, std::move(a), std::move(b)); } \
    static T P##_remainder(T a, T b) {                                                           \
        return cpu::binary(cpu::BinaryOp::Rem, std::move(a), std::move(b));                      \
    }                                                                                            \
    static T P##_max_pair(T a, T b) {                                                            \
        return cpu::binary(cpu::BinaryOp::Max, std::move(a), std::move(b));                      \
    }                                                                                            \
    static T P##_min_pair(T a, T b) {                                                            \
        return cpu::binary(cpu::BinaryOp::Min, std::move(a), std::move(b));                      \
    }                                                                                            \
    static T P##_add_scalar(T a, S s) { return cpu::binary_scalar(cpu::BinaryOp::Add, std::move(a), SC(s)); } \
    static T P##_sub_scalar(T a, S s) { return cpu::binary_scalar(cpu::BinaryOp::Sub, std::move(a), SC(s)); } \
    static T P##_mul_scalar(T a, S s) { return cpu::binary_scalar(cpu::BinaryOp::Mul, std::move(a), SC(s)); } \
    static T P##_div_scalar(T a, S s) { return cpu::binary_scalar(cpu::BinaryOp::Div, std::move(a), SC(s)); } \
    static T P##_remainder_scalar(T a, S s) {                                                    \
        return cpu::binary_scalar(cpu::BinaryOp::Rem, std::move(a), SC(s));                      \
    }                                                                                            \
    static T P##_neg(T a) { return cpu::unary(cpu::UnaryOp::Neg, std::move(a)); }               \
    static T P##_abs(T a) { return cpu::unary(cpu::UnaryOp::Abs, std::move(a)); }               \
    static T P##_sign(T a) { return cpu::unary(cpu::UnaryOp::Sign, std::move(a)); }             \
    static T P##_clamp(T a, S lo, S hi) { return cpu::clamp(std::move(a), SC(lo), SC(hi)); }     \
    static T P##_clamp_min(T a, S lo) { return cpu::clamp(std::move(a), SC(lo), std::nullopt); } \
    static T P##_clamp_max(T a, S hi) { return cpu::clamp(std::move(a), std::nullopt, SC(hi)); } \
    static T P##_greater(T a, T b) { return cpu::compare(cpu::CmpOp::Gt, std::move(a), std::move(b)); } \
    static T P##_greater_equal(T a, T b) {                                                       \
        return cpu::compare(cpu::CmpOp::Ge, std::move(a), std::move(b));                         \
    }                                                                                            \
    static T P##_lower(T a, T b) { return cpu::compare(cpu::CmpOp::Lt, std::move(a), std::move(b)); } \
    static T P##_lower_equal(T a, T b) {                                                         \
        return cpu::compare(cpu::CmpOp::Le, std::move(a), std::move(b));                         \
    }                                                                                            \
    static T P##_equal_elem(T a, S s) { return cpu::compare_scalar(cpu::CmpOp::Eq, std::move(a), SC(s)); } \
    static T P##_not_equal_elem(T a, S s) {                                                      \
        return cpu::compare_scalar(cpu::CmpOp::Ne, std::move(a), SC(s));                         \
    }                                                                                            \
    static T P##_greater_elem(T a, S s) {                                                        \
        return cpu::compare_scalar(cpu::CmpOp::Gt, std::move(a), SC(s));                         \
    }                                                                                            \
    static T P##_greater_equal_elem(T a, S s) {                                                  \
        return cpu::compare_scalar(cpu::CmpOp::Ge, std::move(a), SC(s));                         \
    }                                                                                            \
    static T P##_lower_elem(T a, S s) { return cpu::compare_scalar(cpu::CmpOp::Lt, std::move(a), SC(s)); } \
    static T P##_lower_equal_elem(T a, S s) {                                                    \
        return cpu::compare_scalar(cpu::CmpOp::Le, std::move(a), SC(s));                         \
    }                                                                                            \
    static T P##_sum(T a) { return cpu::reduce_all(cpu::ReduceOp::Sum, std::move(a)); }         \
    static T P##_prod(T a) { return cpu::reduce_all(cpu::ReduceOp::Prod, std::move(a)); }       \
    static T P##_sum_dim(T a, std::size_t d) { return cpu::reduce_dim(cpu::ReduceOp::Sum, std::move(a), d); } \
    static T P##_prod_dim(T a, std::size_t d) {                                                  \
        return cpu::reduce_dim(cpu::ReduceOp::Prod, std::move(a), d);                            \
    }                                                                                            \
    static T P##_mean_dim(T a, std::size_t d) {                                                  \
        return cpu::reduce_dim(cpu::ReduceOp::Mean, std::move(a), d);                            \
    }                                                                                            \
    static T P##_max_dim(T a, std::size_t d) { return cpu::reduce_dim(cpu::ReduceOp::Max, std::move(a), d); } \
    static T P##_min_dim(T a, std::size_t d) { return cpu::reduce_dim(cpu::ReduceOp::Min, std::move(a), d); } \
    static std::pair<T, T> P##_max_dim_with_indices(T a, std::size_t d) {                        \
        return cpu::reduce_dim_with_indices(cpu::ReduceOp::Max, std::move(a), d, int_dtype);     \
    }                                                                                            \
    static std::pair<T, T> P##_min_dim_with_indices(T a, std::size_t d) {                        \
        return cpu::reduce_dim_with_indices(cpu::ReduceOp::Min, std::move(a), d, int_dtype);     \
    }                                                                                            \
    static T P##_argmax(T a, std::size_t d) {                                                    \
        return cpu::reduce_dim_with_indices(cpu::ReduceOp::Max, std::move(a), d, int_dtype).second; \
    }                                                                                            \
    static T P##_argmin(T a, std::size_t d) {                                                    \
        return cpu::reduce_dim_with_indices(cpu::ReduceOp::Min, std::move(a), d, int_dtype).second; \
    }                                                                                            \
    static T P##_gather(std::size_t d, T a, T idx) { return cpu::gather(d, std::move(a), std::move(idx)); } \
    static T P##_scatter(std::size_t d, T a, T idx, T v) {                                       \
        return cpu::scatter_add(d, std::move(a), std::move(idx), std::move(v));                  \
    }                                                                                            \
    static T P##_select(T a, std::size_t d, T idx) { return cpu::select(std::move(a), d, std::move(idx)); } \
    static T P##_select_assign(T a, std::size_t d, T idx, T v) {                                 \
        return cpu::select_add(std::move(a), d, std::move(idx), std::move(v));                   \
    }                                                                                            \
    static T P##_mask_where(T a, T mask, T v) {                                                  \
        return cpu::mask_where(std::move(a), std::move(mask), std::move(v));                     \
    }                                                                                            \
    static T P##_mask_fill(T a, T mask, S v) { return cpu::mask_fill(std::move(a), std::move(mask), SC(v)); } \
    static T P##_sort(T a, std::size_t d, bool desc) {                                           \
        return cpu::sort(std::move(a), d, desc, int_dtype).first;                                \
    }                                                                                            \
    static std::pair<T, T> P##_sort_with_indices(T a, std::size_t d, bool desc) {                \
        return cpu::sort(std::move(a), d, desc, int_dtype);                                      \
    }                                                                                            \
    static T P##_argsort(T a, std::size_t d, bool desc) {                                        \
        return cpu::argsort(std::move(a), d, desc, int_dtype);                                   \
    }

    BURN_CPU_NUMERIC_OPS(float, float_dtype, double, fs)
    BURN_CPU_NUMERIC_OPS(int, int_dtype, std::int64_t, is)
#undef BURN_CPU_NUMERIC_OPS

    // ---------------------------------------------------------------- float-only ops
    static T float_exp(T a) { return cpu::unary(cpu::UnaryOp::Exp, std::move(a)); }
    static T float_log(T a) { return cpu::unary(cpu::UnaryOp::Log, std::move(a)); }
    static T float_log1p(T a) { return cpu::unary(cpu::UnaryOp::Log1p, std::move(a)); }
    static T float_erf(T a) { return cpu::unary(cpu::UnaryOp::Erf, std::move(a)); }
    static T float_sqrt(T a) { return cpu::unary(cpu::UnaryOp::Sqrt, std::move(a)); }
    static T float_recip(T a) { return cpu::unary(cpu::UnaryOp::Recip, std::move(a)); }
    static T float_sin(T a) { return cpu::unary(cpu::UnaryOp::Sin, std::move(a)); }
    static T float_cos(T a) { return cpu::unary(cpu::UnaryOp::Cos, std::move(a)); }
    static T float_tanh(T a) { return cpu::unary(cpu::UnaryOp::Tanh, std::move(a)); }
    static T float_round(T a) { return cpu::unary(cpu::UnaryOp::Round, std::move(a)); }
    static T float_floor(T a) { return cpu::unary(cpu::UnaryOp::Floor, std::move(a)); }
    static T float_ceil(T a) { return cpu::unary(cpu::UnaryOp::Ceil, std::move(a)); }
    static T float_powf(T a, T b) { return cpu::binary(cpu::BinaryOp::Pow, std::move(a), std::move(b)); }
    static T float_powf_scalar(T a, double s) {
        return cpu::binary_scalar(cpu::BinaryOp::Pow, std::move(a), fs(s));
    }
    static T float_matmul(T a, T b) { return cpu::matmul(std::move(a), std::move(b)); }
    static T float_into_int(T a) { return cpu::cast(std::move(a), int_dtype); }
    static T float_is_nan(T a) { return cpu::is_nan(std::move(a)); }

    // ---------------------------------------------------------------- int-only ops
    static T int_into_float(T a) { return cpu::cast(std::move(a), float_dtype); }
    static T int_arange(std::int64_t start, std::int64_t end, std::int64_t step, const Device&) {
        return cpu::arange(start, end, step, int_dtype);
    }
    static T int_powi(T a, T b) { return cpu::binary(cpu::BinaryOp::Pow, std::move(a), std::move(b)); }
    static T int_powi_scalar(T a, std::int64_t s) {
        return cpu::binary_scalar(cpu::BinaryOp::Pow, std::move(a), is(s));
    }

    // ---------------------------------------------------------------- bool-only ops
    static T bool_not(T a) { return cpu::unary(cpu::UnaryOp::Not, std::move(a)); }
    static T bool_and(T a, T b) { return cpu::binary(cpu::BinaryOp::And, std::move(a), std::move(b)); }
    static T bool_or(T a, T b) { return cpu::binary(cpu::BinaryOp::Or, std::move(a), std::move(b)); }
    static T bool_into_int(T a) { return cpu::cast(std::move(a), int_dtype); }
    static T bool_into_float(T a) { return cpu::cast(std::move(a), float_dtype); }
    static T bool_any(T a) { return cpu::any_all(false, std::move(a)); }
    static T bool_all(T a) { return cpu::any_all(true, std::move(a)); }
    static T bool_any_dim(T a, std::size_t d) { return cpu::any_all_dim(false, std::move(a), d); }
    static T bool_all_dim(T a, std::size_t d) { return cpu::any_all_dim(true, std::move(a), d); }
    static T bool_argwhere(T a) { return cpu::argwhere(std::move(a), int_dtype); }
};

}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// The op vocabulary of the backend kit (namespace burn::backend): the enums, scalar and spatial
// arguments that describe a kernel call, shared by every backend's kernel set
// (<burn/backend/kernels.hpp>), by the adapter that turns a kernel set into a Backend
// (<burn/backend/adapter.hpp>) and by decorators that record ops. Each enum is spelled once, as an
// X-macro list from which its name table is generated.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>

#include "burn/tensor/module_options.hpp"
#include "burn/tensor/shape.hpp"

namespace burn::backend {

/// A scalar operand in both representations, so that int64 values survive exactly.
struct ScalarArg {
    double f = 0.0;
    std::int64_t i = 0;
    static constexpr ScalarArg of(double v) { return {v, static_cast<std::int64_t>(v)}; }
    static constexpr ScalarArg of(std::int64_t v) { return {static_cast<double>(v), v}; }
};

// The lists are wrapped by hand (clang-format would reflow their entries).
// clang-format off
// Each list gives an enumerator and the name of the tensor op it implements (for messages).
// Element-wise ops of two operands (broadcasting) or of an operand and a scalar.
#define BURN_BINARY_OPS(X)                                                                       \
    X(Add, add) X(Sub, sub) X(Mul, mul) X(Div, div) X(Rem, remainder) X(Pow, pow)               \
    X(Max, max_pair) X(Min, min_pair) X(And, bool_and) X(Or, bool_or)
// Element-wise ops of one operand.
#define BURN_UNARY_OPS(X)                                                                        \
    X(Neg, neg) X(Abs, abs) X(Sign, sign) X(Exp, exp) X(Log, log) X(Log1p, log1p) X(Erf, erf)   \
    X(Sqrt, sqrt) X(Recip, recip) X(Sin, sin) X(Cos, cos) X(Tanh, tanh) X(Round, round)         \
    X(Floor, floor) X(Ceil, ceil) X(Not, bool_not)
// Comparisons (bool results).
#define BURN_CMP_OPS(X)                                                                          \
    X(Eq, equal) X(Ne, not_equal) X(Gt, greater) X(Ge, greater_equal) X(Lt, lower)             \
    X(Le, lower_equal)
// Reductions, over everything or along one dim.
#define BURN_REDUCE_OPS(X) X(Sum, sum) X(Prod, prod) X(Mean, mean) X(Max, max) X(Min, min)
// Running (cumulative) ops along one dim.
#define BURN_CUM_OPS(X) X(Sum, cumsum) X(Prod, cumprod) X(Max, cummax) X(Min, cummin)
// Activations with a fused kernel (and a backward kernel for the first four).
#define BURN_ACTIVATION_OPS(X)                                                                   \
    X(Relu, relu) X(Gelu, gelu) X(Sigmoid, sigmoid) X(LogSigmoid, log_sigmoid)                  \
    X(HardSigmoid, hard_sigmoid) X(LeakyRelu, leaky_relu)
// clang-format on

#define BURN_ENUM_ENTRY(E, NAME) E,
#define BURN_ENUM_NAME(E, NAME) #NAME,
#define BURN_DEFINE_OP_ENUM(TYPE, LIST)                                             \
    enum class TYPE { LIST(BURN_ENUM_ENTRY) };                                      \
    /** The name of the tensor op the enumerator implements ("add", "max_pair"). */ \
    constexpr const char* op_name(TYPE op) noexcept {                               \
        constexpr const char* names[] = {LIST(BURN_ENUM_NAME)};                     \
        const auto i = static_cast<std::size_t>(op);                                \
        return i < std::size(names) ? names[i] : "?";                               \
    }

BURN_DEFINE_OP_ENUM(BinaryOp, BURN_BINARY_OPS)
BURN_DEFINE_OP_ENUM(UnaryOp, BURN_UNARY_OPS)
BURN_DEFINE_OP_ENUM(CmpOp, BURN_CMP_OPS)
BURN_DEFINE_OP_ENUM(ReduceOp, BURN_REDUCE_OPS)
BURN_DEFINE_OP_ENUM(CumOp, BURN_CUM_OPS)
BURN_DEFINE_OP_ENUM(Activation, BURN_ACTIVATION_OPS)

#undef BURN_DEFINE_OP_ENUM
#undef BURN_ENUM_ENTRY
#undef BURN_ENUM_NAME

/// The name of the reduction along one dim ("sum_dim", "max_dim").
constexpr const char* op_dim_name(ReduceOp op) noexcept {
#define BURN_ENUM_DIM_NAME(E, NAME) #NAME "_dim",
    constexpr const char* names[] = {BURN_REDUCE_OPS(BURN_ENUM_DIM_NAME)};
#undef BURN_ENUM_DIM_NAME
    const auto i = static_cast<std::size_t>(op);
    return i < std::size(names) ? names[i] : "?";
}

/// The value of a reduction over no elements: 0 (Sum), 1 (Prod), NaN (Mean, float tensors). The
/// Tensor layer rejects the others (max and min of nothing, the mean of an empty int dim).
constexpr ScalarArg empty_reduction(ReduceOp op) noexcept {
    switch (op) {
        case ReduceOp::Sum: return ScalarArg::of(std::int64_t{0});
        case ReduceOp::Prod: return ScalarArg::of(std::int64_t{1});
        default: return {std::numeric_limits<double>::quiet_NaN(), 0};
    }
}

/// Spatial parameters of a convolution or pooling over `n` spatial dims (entries >= n unused).
struct SpatialArgs {
    std::size_t n = 0;
    std::array<std::size_t, 3> kernel{};  ///< pooling window (convolutions read the weight)
    std::array<std::size_t, 3> stride{1, 1, 1};
    std::array<std::size_t, 3> padding{};
    std::array<std::size_t, 3> dilation{1, 1, 1};
    std::array<std::size_t, 3> padding_out{};  ///< transposed convolution only
    std::size_t groups = 1;                    ///< weight groups
    std::size_t offset_groups = 1;             ///< deformable convolution only
    bool ceil_mode = false;
    bool count_include_pad = true;
};

/// The spatial arguments of the module options (one overload per options struct).
template <std::size_t N>
SpatialArgs spatial_args(const ConvOptions<N>& o) {
    SpatialArgs a;
    a.n = N;
    for (std::size_t i = 0; i < N; ++i) {
        a.stride[i] = o.stride[i], a.padding[i] = o.padding[i], a.dilation[i] = o.dilation[i];
    }
    a.groups = o.groups;
    return a;
}
template <std::size_t N>
SpatialArgs spatial_args(const ConvTransposeOptions<N>& o) {
    SpatialArgs a = spatial_args(ConvOptions<N>{o.stride, o.padding, o.dilation, o.groups});
    for (std::size_t i = 0; i < N; ++i) a.padding_out[i] = o.padding_out[i];
    return a;
}
inline SpatialArgs spatial_args(const DeformConvOptions<2>& o) {
    SpatialArgs a = spatial_args(ConvOptions<2>{o.stride, o.padding, o.dilation, o.weight_groups});
    a.offset_groups = o.offset_groups;
    return a;
}
template <std::size_t N>
SpatialArgs spatial_args(const MaxPoolOptions<N>& o) {
    SpatialArgs a = spatial_args(ConvOptions<N>{o.stride, o.padding, o.dilation, 1});
    for (std::size_t i = 0; i < N; ++i) a.kernel[i] = o.kernel_size[i];
    a.ceil_mode = o.ceil_mode;
    return a;
}
template <std::size_t N>
SpatialArgs spatial_args(const AvgPoolOptions<N>& o) {
    SpatialArgs a;
    a.n = N;
    for (std::size_t i = 0; i < N; ++i) {
        a.kernel[i] = o.kernel_size[i], a.stride[i] = o.stride[i], a.padding[i] = o.padding[i];
    }
    a.ceil_mode = o.ceil_mode;
    a.count_include_pad = o.count_include_pad;
    return a;
}
inline SpatialArgs spatial_args(const std::array<std::size_t, 2>& kernel, const UnfoldOptions& o) {
    SpatialArgs a = spatial_args(ConvOptions<2>{o.stride, o.padding, o.dilation, 1});
    a.kernel[0] = kernel[0], a.kernel[1] = kernel[1];
    return a;
}

/// The scalars of one Adam step on one parameter (the fused-optimizer extension of a kernel set,
/// see <burn/backend/kernels.hpp>; burn::optim::Adam fills it).
struct AdamHyper {
    double lr;
    double beta_1;
    double beta_2;
    double epsilon;
    double correction_1;  ///< 1 - beta_1^t
    double correction_2;  ///< 1 - beta_2^t
    double weight_decay;  ///< L2 penalty added to the gradient (0: none)
    /// The step t of the corrections (1 on the first step): a replayed CUDA graph recomputes
    /// them for each replay's step.
    std::int64_t time = 0;
};

/// The parameter and both moments after a fused Adam step.
template <class T>
struct AdamStepResult {
    T param;
    T moment_1;
    T moment_2;
};

/// The gradients of a fused layer norm (the fused-norm extension of a kernel set, see
/// <burn/backend/kernels.hpp>): of x, of gamma, and of beta when asked for.
template <class T>
struct LayerNormBackward {
    T x_grad;
    T gamma_grad;
    std::optional<T> beta_grad;
};

/// A backend with a fused layer norm over the last dim (nn::LayerNorm uses it when present):
///   B::fused_layer_norm(x, gamma, beta?, epsilon) -> y
///   B::fused_layer_norm_backward(x, gamma, grad, epsilon, with_beta) -> LayerNormBackward
/// with y = (x - mean) / sqrt(var + epsilon) * gamma (+ beta), the mean and the biased variance
/// of each row of the last dim; the backward recomputes them from x.
template <class B>
concept FusedLayerNormBackend = requires(typename B::FloatTensor t,
                                         std::optional<typename B::FloatTensor> o, double eps) {
    { B::fused_layer_norm(t, t, o, eps) } -> std::same_as<typename B::FloatTensor>;
    {
        B::fused_layer_norm_backward(t, t, t, eps, true)
        } -> std::same_as<LayerNormBackward<typename B::FloatTensor>>;
};

}  // namespace burn::backend

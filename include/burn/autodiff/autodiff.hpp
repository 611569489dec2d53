// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::Autodiff<B, Checkpoint>: the backend decorator that records float ops and computes
// gradients by backpropagation, for any backend B.
//
//   using B = burn::Autodiff<burn::Cpu<>>;
//   auto x = burn::Tensor<B, 2>::random({3, 4}).require_grad();
//   auto grads = (x * x).sum().backward();
//   auto dx = x.grad(grads);  // std::optional<Tensor<Cpu<>, 2>>: 2x
//
// Its float primitive is B's primitive plus a graph node (null when the tensor is not tracked);
// int and bool primitives are B's, and their ops pass straight through (the op table of
// <burn/backend/op_list.hpp>). Every float op calls B for the forward value and, when one of its
// inputs is tracked, records a backward step holding only the state that step needs.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "burn/autodiff/graph.hpp"
#include "burn/backend/capabilities.hpp"
#include "burn/backend/op_list.hpp"
#include "burn/backend/ops.hpp"
#include "burn/tensor/backend.hpp"

namespace burn {

namespace autodiff {

/// The float primitive of Autodiff<B>: B's primitive and the node that produced it.
template <class B>
struct AutodiffTensor {
    typename B::FloatTensor primitive;
    NodeRef<B> node;  ///< null when no gradient flows through this tensor
};

/// Sums a gradient over the dims that broadcasting expanded (size-1 dims of `shape`, and leading
/// dims `shape` lacks), back to `shape`. For backward steps of ops that broadcast.
template <Backend B>
typename B::FloatTensor reduce_to(typename B::FloatTensor g, const Shape& shape) {
    const Shape gs = B::float_shape(g);
    if (gs == shape) return g;
    const std::size_t extra = gs.rank() - shape.rank();
    for (std::size_t d = 0; d < gs.rank(); ++d) {
        const std::size_t target = d < extra ? 1 : shape[d - extra];
        if (target == 1 && gs[d] != 1) g = B::float_sum_dim(std::move(g), d);
    }
    return B::float_reshape(std::move(g), shape);
}

/// Keeps `t` for a backward step under checkpointing strategy C: the recipe of a memory-bound op
/// when C recomputes those (its memory is freed now, its value recomputed during backward), the
/// primitive otherwise. For custom ops (docs/backend-extension.md).
template <class C, class B>
Saved<typename B::FloatTensor> save(const AutodiffTensor<B>& t) {
    if constexpr (C::recompute_memory_bound)
        if (t.node && t.node->recipe) return Saved<typename B::FloatTensor>(t.node->recipe);
    return Saved<typename B::FloatTensor>(t.primitive);
}

}  // namespace autodiff

using autodiff::BalancedCheckpointing;
using autodiff::NoCheckpointing;

template <Backend B, class Checkpoint = autodiff::NoCheckpointing>
struct Autodiff {
    static_assert(
        !requires { typename B::Gradients; },
        "Autodiff<Autodiff<B>>: higher-order gradients are not supported (the backward "
        "kernels of activations, convolutions and pooling are not differentiated again)");
    using InnerBackend = B;
    using CheckpointStrategy = Checkpoint;
    using Device = typename B::Device;
    using FloatTensor = autodiff::AutodiffTensor<B>;
    using IntTensor = typename B::IntTensor;
    using BoolTensor = typename B::BoolTensor;
    using FloatElem = typename B::FloatElem;
    using IntElem = typename B::IntElem;
    using Gradients = autodiff::Gradients<B>;
    using FullPrecisionBackend = Autodiff<typename B::FullPrecisionBackend, Checkpoint>;
    static constexpr BackendCapabilities capabilities = burn::capabilities<B>;
    static constexpr DType default_float_dtype = ElementTraits<FloatElem>::dtype;
    static constexpr DType int_dtype = ElementTraits<IntElem>::dtype;
    static constexpr DType bool_dtype = DType::Bool;

    static std::string name() { return "autodiff<" + B::name() + ">"; }
    static void seed(std::uint64_t s) { B::seed(s); }
    static void sync(const Device& d) { B::sync(d); }

private:
    using P = typename B::FloatTensor;
    using T = FloatTensor;
    using I = IntTensor;
    using OptP = std::optional<P>;
    using OptT = std::optional<T>;
    using Node = autodiff::Node<B>;
    using NodeRef = autodiff::NodeRef<B>;
    using Saved = autodiff::Saved<P>;
    using Recipe = typename Saved::Recipe;
    using Bound = autodiff::ComputeProperty;
    using Grads = std::vector<OptP>;
    using Axes = std::span<const std::size_t>;
    using Ranges = std::span<const SliceRange>;
    static constexpr Bound kMemory = Bound::MemoryBound;
    static constexpr Bound kCompute = Bound::ComputeBound;

    static T untracked(P p) { return T{std::move(p), nullptr}; }

    /// What a backward step receives besides the output gradient: the tensors it kept (inputs
    /// and/or output, recomputed on demand under checkpointing), the input shapes, and which
    /// inputs need a gradient.
    struct Ctx {
        std::vector<std::optional<Saved>> inputs;
        std::optional<Saved> output;
        std::vector<Shape> shapes;
        std::vector<char> need;
        P input(std::size_t i) const { return inputs[i]->get(); }
        P out() const { return output->get(); }
        const Shape& shape(std::size_t i) const { return shapes[i]; }
    };

    /// Which tensors a step keeps: a bit per input, and the output.
    struct Keep {
        std::uint32_t inputs = 0;
        bool output = false;
        bool input(std::size_t i) const { return (inputs >> i) & 1u; }
    };
    static constexpr Keep kNone{};
    static constexpr Keep kOut{0, true};
    static constexpr Keep kIn0{1, false};
    static constexpr Keep kIn01{3, false};
    /// Keeps input 0 when input 1 is tracked and input 1 when input 0 is (products).
    static Keep cross(const T& a, const T& b);

    template <class F>
    struct OpStep final : autodiff::Step<B> {
        const char* op;
        Ctx ctx;
        F f;
        OpStep(const char* o, Ctx c, F fn) : op(o), ctx(std::move(c)), f(std::move(fn)) {}
        void backward(const std::vector<NodeRef>& parents, P grad,
                      autodiff::Gradients<B>& grads) override {
            autodiff::accumulate_inputs(grads, parents, f(ctx, std::move(grad)), ctx.shapes, op);
        }
        const char* name() const override { return op; }
    };

    /// A tensor kept for backward: the recipe of a memory-bound op under balanced
    /// checkpointing, the primitive otherwise.
    static Saved save(const T& t) { return autodiff::save<Checkpoint>(t); }

    /// The core of every differentiable op. `fwd(std::vector<P>) -> P` computes the output from
    /// the input primitives; `bwd(const Ctx&, P grad) -> Grads` returns one optional gradient per
    /// input. With no tracked input, only `fwd` runs (inputs moved: buffers can be reused).
    template <class Fwd, class Bwd>
    static T op(const char* name, Bound bound, std::vector<T> in, Keep keep, Fwd fwd, Bwd bwd) {
        const std::size_t n = in.size();
        std::vector<P> prims;
        prims.reserve(n);
        const bool any =
            std::any_of(in.begin(), in.end(), [](const T& t) { return t.node != nullptr; });
        if (!any) {
            for (auto& t : in) prims.push_back(std::move(t.primitive));
            return untracked(fwd(std::move(prims)));
        }
        auto node = std::make_shared<Node>();
        Ctx ctx;
        ctx.inputs.resize(n);
        ctx.shapes.reserve(n);
        ctx.need.resize(n);
        node->parents.reserve(n);
        const bool recompute = Checkpoint::recompute_memory_bound && bound == kMemory;
        std::vector<Saved> recipe_inputs;
        if (recompute) recipe_inputs.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            ctx.shapes.push_back(B::float_shape(in[i].primitive));
            ctx.need[i] = in[i].node != nullptr;
            if (keep.input(i)) ctx.inputs[i] = save(in[i]);
            if (recompute) recipe_inputs.push_back(save(in[i]));
            node->parents.push_back(std::move(in[i].node));
            prims.push_back(std::move(in[i].primitive));
        }
        P out = fwd(std::move(prims));
        node->dtype = B::float_dtype(out);
        if (recompute) {
            node->recipe =
                std::make_shared<Recipe>(Recipe{std::move(recipe_inputs), fwd, std::nullopt});
        }
        if (keep.output) ctx.output = recompute ? Saved(node->recipe) : Saved(out);
        node->step = std::make_unique<OpStep<Bwd>>(name, std::move(ctx), std::move(bwd));
        return T{std::move(out), std::move(node)};
    }

    template <class Fwd, class Bwd>
    static T unary(const char* name, T x, Keep keep, Fwd fwd, Bwd bwd, Bound bound = kMemory) {
        return op(
            name, bound, vec(std::move(x)), keep,
            [fwd](std::vector<P> v) { return fwd(std::move(v[0])); },
            [bwd](const Ctx& c, P g) { return Grads{OptP(bwd(c, std::move(g)))}; });
    }

    static std::vector<T> vec(T a);
    static std::vector<T> vec(T a, T b);

    // ------------------------------------------------------------------ gradient helpers
    static P reduce_to(P g, const Shape& shape) {
        return autodiff::reduce_to<B>(std::move(g), shape);
    }
    /// Broadcasts `g` (whose reduced dims have size 1) to `shape`.
    static P expand_to(P g, const Shape& shape);
    static P zeros(const Shape& s, const P& like) {
        return B::float_zeros(s, B::float_device(like));
    }
    static P zeros_like(const P& t) { return zeros(B::float_shape(t), t); }
    static P ones_shape(const Shape& s, const P& like) {
        return B::float_ones(s, B::float_device(like));
    }
    static BoolTensor expand_mask(BoolTensor m, const Shape& shape);
    /// The last two dims swapped (matmul's transpose).
    static P mT(P t);
    /// The gradient of an op that picked one element per output along `dim` (max/min/sort).
    static P scatter_back(const Shape& shape, std::size_t dim, const I& idx, P g);

public:
    // ================================================================== autodiff API
    /// Marks a tensor as a leaf whose gradient backward() returns (true), or drops its graph
    /// (false). Throws for a tensor computed from tracked tensors: only leaves can be marked.
    static T float_set_require_grad(T t, bool require);
    static bool float_is_require_grad(const T& t) { return t.node != nullptr; }
    static T float_detach(T t) { return untracked(std::move(t.primitive)); }

    static P inner(T t) { return std::move(t.primitive); }
    static I int_inner(I t) { return t; }
    static BoolTensor bool_inner(BoolTensor t) { return t; }
    static T from_inner(P p) { return untracked(std::move(p)); }
    static I int_from_inner(I t) { return t; }
    static BoolTensor bool_from_inner(BoolTensor t) { return t; }

    static std::optional<P> grad(const T& t, const Gradients& grads);
    static std::optional<P> grad_remove(const T& t, Gradients& grads);
    static void grad_replace(const T& t, Gradients& grads, P grad);

    /// Backpropagates from `root`, seeded with ones of its shape (a scalar loss gives the usual
    /// gradient; a larger root gives the gradient of its sum, as Burn and PyTorch's
    /// backward(ones_like(y)) do). Every node walked through is freed afterwards: a second
    /// backward through the same graph throws. Returns the gradients of the leaves marked with
    /// require_grad().
    static Gradients backward(T root);

    // ================================================================== int and bool ops
    // Int and bool primitives are B's: their ops pass straight through.
    BURN_FORWARD_INT_BOOL_OPS(B)
    static T int_into_float(I t) { return untracked(B::int_into_float(std::move(t))); }
    static T bool_into_float(BoolTensor t) { return untracked(B::bool_into_float(std::move(t))); }

    // ================================================================== float: creation, data
    static T float_from_data(const TensorData& d, const Device& dev);
    static TensorData float_into_data(T t) { return B::float_into_data(std::move(t.primitive)); }
    static Device float_device(const T& t) { return B::float_device(t.primitive); }
    static Shape float_shape(const T& t) { return B::float_shape(t.primitive); }
    static T float_empty(const Shape& s, const Device& d) {
        return untracked(B::float_empty(s, d));
    }
    static T float_zeros(const Shape& s, const Device& d) {
        return untracked(B::float_zeros(s, d));
    }
    static T float_ones(const Shape& s, const Device& d) { return untracked(B::float_ones(s, d)); }
    static T float_full(const Shape& s, double v, const Device& d);
    static T float_random(const Shape& s, const Distribution& dist, const Device& d);
    static T float_to_device(T t, const Device& dev);

    // ================================================================== float: shape ops
    static T float_reshape(T t, const Shape& s);
    static T float_swap_dims(T t, std::size_t a, std::size_t b);
    static T float_permute(T t, Axes axes);
    static T float_flip(T t, Axes axes);
    static T float_expand(T t, const Shape& s);
    static T float_slice(T t, Ranges ranges);
    static T float_slice_assign(T t, Ranges ranges, T v);
    static T float_cat(std::vector<T> ts, std::size_t dim);
    static T float_repeat_dim(T t, std::size_t dim, std::size_t times);
    static BoolTensor float_equal(T a, T b);
    static BoolTensor float_not_equal(T a, T b);

    // ================================================================== float: arithmetic
    static T float_add(T a, T b);
    static T float_sub(T a, T b);
    static T float_mul(T a, T b);
    static T float_div(T a, T b);
    static T float_remainder(T a, T b);
    static T float_add_scalar(T a, double s);
    static T float_sub_scalar(T a, double s);
    static T float_mul_scalar(T a, double s);
    static T float_div_scalar(T a, double s);
    static T float_remainder_scalar(T a, double s);
    static T float_neg(T a);
    static T float_abs(T a);
    /// Piecewise-constant ops: the gradient is zero (as PyTorch), not absent.
    template <class F>
    static T zero_grad_op(const char* name, T a, F f) {
        return unary(name, std::move(a), kNone, f, [](const Ctx&, P g) { return zeros_like(g); });
    }
    static T float_sign(T a);
    static T float_round(T a);
    static T float_floor(T a);
    static T float_ceil(T a);

    /// max_pair / min_pair: the gradient goes to the selected input; ties split it in halves,
    /// as torch.maximum / torch.minimum.
    static T pair_op(const char* name, T a, T b, bool is_max);
    static T float_max_pair(T a, T b) {
        return pair_op("max_pair", std::move(a), std::move(b), true);
    }
    static T float_min_pair(T a, T b) {
        return pair_op("min_pair", std::move(a), std::move(b), false);
    }

    /// clamp family: the gradient passes where lo <= x <= hi (bounds included, as PyTorch).
    static T clamp_op(const char* name, T a, std::optional<double> lo, std::optional<double> hi);
    static T float_clamp(T a, double lo, double hi) {
        return clamp_op("clamp", std::move(a), lo, hi);
    }
    static T float_clamp_min(T a, double lo) {
        return clamp_op("clamp_min", std::move(a), lo, std::nullopt);
    }
    static T float_clamp_max(T a, double hi) {
        return clamp_op("clamp_max", std::move(a), std::nullopt, hi);
    }

    // comparisons: bool results, nothing to record
#define BURN_AUTODIFF_CMP(OP)                                                 \
    static BoolTensor float_##OP(T a, T b) {                                  \
        return B::float_##OP(std::move(a.primitive), std::move(b.primitive)); \
    }                                                                         \
    static BoolTensor float_##OP##_elem(T a, double s) {                      \
        return B::float_##OP##_elem(std::move(a.primitive), s);               \
    }
    BURN_AUTODIFF_CMP(greater)
    BURN_AUTODIFF_CMP(greater_equal)
    BURN_AUTODIFF_CMP(lower)
    BURN_AUTODIFF_CMP(lower_equal)
#undef BURN_AUTODIFF_CMP
    static BoolTensor float_equal_elem(T a, double s) {
        return B::float_equal_elem(std::move(a.primitive), s);
    }
    static BoolTensor float_not_equal_elem(T a, double s);

    // ================================================================== float: reductions
    static T float_sum(T a);
    static T float_sum_dim(T a, std::size_t d);
    static T float_mean_dim(T a, std::size_t d);
    /// Product: the gradient of x_i is the product of the other elements, computed without
    /// dividing by zero (one zero: only that element gets a gradient; two or more: none).
    static P prod_backward(P x, P g, std::optional<std::size_t> dim);
    static T float_prod(T a);
    static T float_prod_dim(T a, std::size_t d);
    /// max/min along a dim: the gradient goes to the element the indices name.
    static std::pair<T, I> extreme_with_indices(const char* name, T a, std::size_t d, bool is_max);
    static std::pair<T, I> float_max_dim_with_indices(T a, std::size_t d);
    static std::pair<T, I> float_min_dim_with_indices(T a, std::size_t d);
    static T float_max_dim(T a, std::size_t d);
    static T float_min_dim(T a, std::size_t d);
    static I float_argmax(T a, std::size_t d) { return B::float_argmax(std::move(a.primitive), d); }
    static I float_argmin(T a, std::size_t d) { return B::float_argmin(std::move(a.primitive), d); }
    static I float_argsort(T a, std::size_t d, bool desc);
    static std::pair<T, I> float_sort_with_indices(T a, std::size_t d, bool desc);
    static T float_sort(T a, std::size_t d, bool desc);

    // ================================================================== float: indexing
    static T float_gather(std::size_t d, T a, I idx);
    /// scatter adds `v` into `a` at `idx` (Burn's semantics).
    static T float_scatter(std::size_t d, T a, I idx, T v);
    static T float_select(T a, std::size_t d, I idx);
    /// select_assign adds `v` into `a` at `idx` along `d` (Burn's semantics).
    static T float_select_assign(T a, std::size_t d, I idx, T v);
    static T float_mask_where(T a, BoolTensor mask, T v);
    static T float_mask_fill(T a, BoolTensor mask, double s);

    // ================================================================== float: math
    static T float_exp(T a);
    static T float_log(T a);
    static T float_log1p(T a);
    static T float_erf(T a);
    static T float_sqrt(T a);
    static T float_recip(T a);
    static T float_sin(T a);
    static T float_cos(T a);
    static T float_tanh(T a);
    /// x^y: as PyTorch, y = 0 gives a zero gradient for x, and x = 0 with y >= 0 a zero gradient
    /// for y (instead of 0 * log 0 = NaN).
    static T float_powf(T a, T b);
    static T float_powf_scalar(T a, double s);
    static T float_matmul(T a, T b);
    static I float_into_int(T a) { return B::float_into_int(std::move(a.primitive)); }
    static BoolTensor float_is_nan(T a) { return B::float_is_nan(std::move(a.primitive)); }
    static DType float_dtype(const T& t) { return B::float_dtype(t.primitive); }
    /// The gradient goes back converted to the input's dtype.
    static T float_cast(T a, DType dtype);

    /// Layer norm over the last dim in one kernel, where B has one (FusedLayerNormBackend:
    /// nn::LayerNorm's forward); its backward is B's fused backward kernel.
    static T fused_layer_norm(T x, T gamma, OptT beta,
                              double epsilon) requires backend::FusedLayerNormBackend<B> {
        const bool has_beta = beta.has_value();
        return op(
            "layer_norm", kCompute,
            with_optional(vec(std::move(x), std::move(gamma)), std::move(beta)), kIn01,
            [epsilon, has_beta](std::vector<P> v) {
                OptP b = has_beta ? OptP(std::move(v[2])) : std::nullopt;
                return B::fused_layer_norm(std::move(v[0]), std::move(v[1]), std::move(b), epsilon);
            },
            [epsilon, has_beta](const Ctx& c, P g) {
                auto r = B::fused_layer_norm_backward(c.input(0), c.input(1), std::move(g), epsilon,
                                                      has_beta && c.need[2]);
                Grads out(has_beta ? 3 : 2);
                if (c.need[0]) out[0] = std::move(r.x_grad);
                if (c.need[1]) out[1] = std::move(r.gamma_grad);
                if (has_beta && c.need[2]) out[2] = std::move(r.beta_grad);
                return out;
            });
    }
    static backend::LayerNormBackward<T> fused_layer_norm_backward(
        T x, T gamma, T grad, double epsilon,
        bool with_beta) requires backend::FusedLayerNormBackend<B> {
        auto r = B::fused_layer_norm_backward(std::move(x.primitive), std::move(gamma.primitive),
                                              std::move(grad.primitive), epsilon, with_beta);
        OptT bg;
        if (r.beta_grad) bg = untracked(std::move(*r.beta_grad));
        return {untracked(std::move(r.x_grad)), untracked(std::move(r.gamma_grad)), std::move(bg)};
    }

    // ================================================================== cumulative ops
    /// g summed from each position to the end of `d` (the adjoint of cumsum).
    static P reverse_cumsum(P g, std::size_t d);
    static T float_cumsum(T a, std::size_t d);
    /// d out_i / d x_k = prod_{j <= i, j != k} x_j for i >= k. Before the first zero z of a lane
    /// that is out_i / x_k, so grad_k = reverse_cumsum(g * out)_k / x_k; at z it is the same sum
    /// over the products with x_z left out (cumprod with x_z replaced by 1); after z every
    /// product holds x_z = 0, so the gradient is 0. Exact for lanes with any number of zeros.
    static P cumprod_backward(P x, P out, P g, std::size_t d);
    static T float_cumprod(T a, std::size_t d);
    /// cummax/cummin: output i takes its gradient from the element holding its value, the latest
    /// j <= i with x_j == out_j (a NaN x_j counts: from a NaN on, out is NaN), which is the index
    /// torch.cummax/cummin return (ties go to the latest element).
    static P cum_extreme_backward(P x, P out, P g, std::size_t d);
    static T float_cummax(T a, std::size_t d);
    static T float_cummin(T a, std::size_t d);

    // ================================================================== quantization
    /// Quantization is differentiated as the identity (the straight-through estimator), so
    /// quantization-aware training passes gradients through quantize/dequantize.
    static T quantize(T t, const QuantizationScheme& scheme, T scale, std::optional<I> offset);
    static T dequantize(T t);
    static bool float_is_quantized(const T& t) { return B::float_is_quantized(t.primitive); }

    // ================================================================== activations
    static T relu(T x);
    static T gelu(T x);
    static T sigmoid(T x);
    static T log_sigmoid(T x);
    static T hard_sigmoid(T x, double alpha, double beta);
    static T leaky_relu(T x, double slope);
    static T softmax(T x, std::size_t dim);
    static T log_softmax(T x, std::size_t dim);
    // The backward kernels themselves are computed by B and not differentiated again.
    static T relu_backward(T o, T g) {
        return untracked(B::relu_backward(std::move(o.primitive), std::move(g.primitive)));
    }
    static T gelu_backward(T x, T g) {
        return untracked(B::gelu_backward(std::move(x.primitive), std::move(g.primitive)));
    }
    static T sigmoid_backward(T o, T g);
    static T log_sigmoid_backward(T x, T g);

    // ================================================================== module ops
private:
    static std::vector<T> with_optional(std::vector<T> v, OptT t);
    static OptP prim(const OptT& t) { return t ? OptP(t->primitive) : std::nullopt; }

public:
#define BURN_AUTODIFF_CONV(N, KIND, OPTS)                                                         \
    static T KIND##N##d(T x, T w, OptT b, const OPTS<N>& o);                                      \
    static T KIND##N##d_x_backward(T x, T w, T g, const OPTS<N>& o) {                             \
        return untracked(B::KIND##N##d_x_backward(std::move(x.primitive), std::move(w.primitive), \
                                                  std::move(g.primitive), o));                    \
    }                                                                                             \
    static T KIND##N##d_weight_backward(T x, T w, T g, const OPTS<N>& o) {                        \
        return untracked(B::KIND##N##d_weight_backward(                                           \
            std::move(x.primitive), std::move(w.primitive), std::move(g.primitive), o));          \
    }                                                                                             \
    static T KIND##N##d_bias_backward(T x, T b, T g) {                                            \
        return untracked(B::KIND##N##d_bias_backward(                                             \
            std::move(x.primitive), std::move(b.primitive), std::move(g.primitive)));             \
    }
    BURN_AUTODIFF_CONV(1, conv, ConvOptions)
    BURN_AUTODIFF_CONV(2, conv, ConvOptions)
    BURN_AUTODIFF_CONV(3, conv, ConvOptions)
    BURN_AUTODIFF_CONV(1, conv_transpose, ConvTransposeOptions)
    BURN_AUTODIFF_CONV(2, conv_transpose, ConvTransposeOptions)
    BURN_AUTODIFF_CONV(3, conv_transpose, ConvTransposeOptions)
#undef BURN_AUTODIFF_CONV

#define BURN_AUTODIFF_POOL(N)                                                                     \
    static T avg_pool##N##d(T x, const AvgPoolOptions<N>& o);                                     \
    static MaxPoolWithIndices<T, I> max_pool##N##d_with_indices(T x, const MaxPoolOptions<N>& o); \
    static T avg_pool##N##d_backward(T x, T g, const AvgPoolOptions<N>& o) {                      \
        return untracked(                                                                         \
            B::avg_pool##N##d_backward(std::move(x.primitive), std::move(g.primitive), o));       \
    }                                                                                             \
    static T max_pool##N##d(T x, const MaxPoolOptions<N>& o) {                                    \
        if (!x.node) return untracked(B::max_pool##N##d(std::move(x.primitive), o));              \
        return max_pool##N##d_with_indices(std::move(x), o).output;                               \
    }                                                                                             \
    static T max_pool##N##d_with_indices_backward(T x, const MaxPoolOptions<N>& o, T g, I idx) {  \
        return untracked(B::max_pool##N##d_with_indices_backward(                                 \
            std::move(x.primitive), o, std::move(g.primitive), std::move(idx)));                  \
    }
    BURN_AUTODIFF_POOL(1)
    BURN_AUTODIFF_POOL(2)
#undef BURN_AUTODIFF_POOL

#define BURN_AUTODIFF_ADAPTIVE(N)                                                                 \
    static T adaptive_avg_pool##N##d(T x, const std::array<std::size_t, N>& s);                   \
    static T adaptive_avg_pool##N##d_backward(T x, T g) {                                         \
        return untracked(                                                                         \
            B::adaptive_avg_pool##N##d_backward(std::move(x.primitive), std::move(g.primitive))); \
    }
    BURN_AUTODIFF_ADAPTIVE(1)
    BURN_AUTODIFF_ADAPTIVE(2)
    BURN_AUTODIFF_ADAPTIVE(3)
#undef BURN_AUTODIFF_ADAPTIVE

    static T deform_conv2d(T x, T offset, T w, OptT mask, OptT b, const DeformConvOptions<2>& o);
    static DeformConv2dBackward<T> deform_conv2d_backward(T x, T offset, T w, OptT mask, OptT b,
                                                          T g, const DeformConvOptions<2>& o);
    /// unfold4d is a convolution with a one-hot weight [C*kh*kw, C, kh, kw]; its gradient is that
    /// convolution's input gradient.
    static T unfold4d(T x, const std::array<std::size_t, 2>& k, const UnfoldOptions& o);
    static T interpolate(T x, const std::array<std::size_t, 2>& s, const InterpolateOptions& o);
    static T interpolate_backward(T x, T g, const std::array<std::size_t, 2>& s,
                                  const InterpolateOptions& o);
    static T embedding(T w, I idx);
    static T embedding_backward(T w, T g, I idx);
};

// ---------------------------------------------------------------- definitions of the ops
// Out of the class, so that `extern template struct` (burn/backend/prebuilt.hpp) keeps the
// prebuilt instances out of users' files.

// The convolution and pooling ops, one definition per rank (declared by the macros above).
#define BURN_AUTODIFF_CONV_DEF(N, KIND, OPTS)                                                     \
    template <Backend B, class Checkpoint>                                                        \
    auto Autodiff<B, Checkpoint>::KIND##N##d(T x, T w, OptT b, const OPTS<N>& o)->T {             \
        const bool has_bias = b.has_value();                                                      \
        const bool bias_tracked = has_bias && b->node;                                            \
        /* The backward kernels of x and w each take both tensors (for shapes at least). */       \
        const Keep k{3u | (bias_tracked ? 4u : 0u), false};                                       \
        return op(                                                                                \
            #KIND #N "d", kCompute, with_optional(vec(std::move(x), std::move(w)), std::move(b)), \
            k,                                                                                    \
            [o, has_bias](std::vector<P> v) {                                                     \
                OptP bias = has_bias ? OptP(std::move(v[2])) : std::nullopt;                      \
                return B::KIND##N##d(std::move(v[0]), std::move(v[1]), std::move(bias), o);       \
            },                                                                                    \
            [o, has_bias](const Ctx& c, P g) {                                                    \
                Grads out(has_bias ? 3 : 2);                                                      \
                if (c.need[0]) out[0] = B::KIND##N##d_x_backward(c.input(0), c.input(1), g, o);   \
                if (c.need[1])                                                                    \
                    out[1] = B::KIND##N##d_weight_backward(c.input(0), c.input(1), g, o);         \
                if (has_bias && c.need[2])                                                        \
                    out[2] = B::KIND##N##d_bias_backward(c.input(0), c.input(2), std::move(g));   \
                return out;                                                                       \
            });                                                                                   \
    }
BURN_AUTODIFF_CONV_DEF(1, conv, ConvOptions)
BURN_AUTODIFF_CONV_DEF(2, conv, ConvOptions)
BURN_AUTODIFF_CONV_DEF(3, conv, ConvOptions)
BURN_AUTODIFF_CONV_DEF(1, conv_transpose, ConvTransposeOptions)
BURN_AUTODIFF_CONV_DEF(2, conv_transpose, ConvTransposeOptions)
BURN_AUTODIFF_CONV_DEF(3, conv_transpose, ConvTransposeOptions)
#undef BURN_AUTODIFF_CONV_DEF

#define BURN_AUTODIFF_POOL_DEF(N)                                                               \
    template <Backend B, class Checkpoint>                                                      \
    auto Autodiff<B, Checkpoint>::avg_pool##N##d(T x, const AvgPoolOptions<N>& o)->T {          \
        return unary(                                                                           \
            "avg_pool" #N "d", std::move(x), kIn0,                                              \
            [o](P a) { return B::avg_pool##N##d(std::move(a), o); },                            \
            [o](const Ctx& c, P g) {                                                            \
                return B::avg_pool##N##d_backward(c.input(0), std::move(g), o);                 \
            },                                                                                  \
            kCompute);                                                                          \
    }                                                                                           \
    template <Backend B, class Checkpoint>                                                      \
    auto Autodiff<B, Checkpoint>::max_pool##N##d_with_indices(T x, const MaxPoolOptions<N>& o)  \
        ->MaxPoolWithIndices<T, I> {                                                            \
        if (!x.node) {                                                                          \
            auto r = B::max_pool##N##d_with_indices(std::move(x.primitive), o);                 \
            return {untracked(std::move(r.output)), std::move(r.indices)};                      \
        }                                                                                       \
        auto r = B::max_pool##N##d_with_indices(x.primitive, o);                                \
        P value = std::move(r.output);                                                          \
        I idx = r.indices;                                                                      \
        T out = op(                                                                             \
            "max_pool" #N "d", kCompute, vec(std::move(x)), kIn0,                               \
            [value](std::vector<P>) { return value; },                                          \
            [o, idx](const Ctx& c, P g) {                                                       \
                return Grads{                                                                   \
                    B::max_pool##N##d_with_indices_backward(c.input(0), o, std::move(g), idx)}; \
            });                                                                                 \
        return {std::move(out), std::move(r.indices)};                                          \
    }
BURN_AUTODIFF_POOL_DEF(1)
BURN_AUTODIFF_POOL_DEF(2)
#undef BURN_AUTODIFF_POOL_DEF

#define BURN_AUTODIFF_ADAPTIVE_DEF(N)                                                          \
    template <Backend B, class Checkpoint>                                                     \
    auto Autodiff<B, Checkpoint>::adaptive_avg_pool##N##d(T x,                                 \
                                                          const std::array<std::size_t, N>& s) \
        ->T {                                                                                  \
        return unary(                                                                          \
            "adaptive_avg_pool" #N "d", std::move(x), kIn0,                                    \
            [s](P a) { return B::adaptive_avg_pool##N##d(std::move(a), s); },                  \
            [](const Ctx& c, P g) {                                                            \
                return B::adaptive_avg_pool##N##d_backward(c.input(0), std::move(g));          \
            },                                                                                 \
            kCompute);                                                                         \
    }
BURN_AUTODIFF_ADAPTIVE_DEF(1)
BURN_AUTODIFF_ADAPTIVE_DEF(2)
BURN_AUTODIFF_ADAPTIVE_DEF(3)
#undef BURN_AUTODIFF_ADAPTIVE_DEF

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::cross(const T& a, const T& b) -> Keep {
    return Keep{(b.node ? 1u : 0u) | (a.node ? 2u : 0u), false};
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::vec(T a) -> std::vector<T> {
    std::vector<T> v;
    v.push_back(std::move(a));
    return v;
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::vec(T a, T b) -> std::vector<T> {
    std::vector<T> v;
    v.reserve(2);
    v.push_back(std::move(a));
    v.push_back(std::move(b));
    return v;
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::expand_to(P g, const Shape& shape) -> P {
    if (B::float_shape(g) == shape) return g;
    return B::float_expand(std::move(g), shape);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::expand_mask(BoolTensor m, const Shape& shape) -> BoolTensor {
    if (B::bool_shape(m) == shape) return m;
    return B::bool_expand(std::move(m), shape);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::mT(P t) -> P {
    const std::size_t r = B::float_shape(t).rank();
    return B::float_swap_dims(std::move(t), r - 2, r - 1);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::scatter_back(const Shape& shape, std::size_t dim, const I& idx, P g)
    -> P {
    return B::float_scatter(dim, zeros(shape, g), idx, std::move(g));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_set_require_grad(T t, bool require) -> T {
    if (!require) return untracked(std::move(t.primitive));
    if (t.node) {
        BURN_CHECK(t.node->requirement == autodiff::Requirement::Grad,
                   "require_grad: only a leaf tensor can require a gradient; this tensor is "
                   "the result of tracked ops (call detach() first to make it a new leaf)");
        return t;
    }
    auto node = std::make_shared<Node>();
    node->requirement = autodiff::Requirement::Grad;
    node->dtype = B::float_dtype(t.primitive);
    return T{std::move(t.primitive), std::move(node)};
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::grad(const T& t, const Gradients& grads) -> std::optional<P> {
    if (!t.node) return std::nullopt;
    return grads.get(t.node->id);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::grad_remove(const T& t, Gradients& grads) -> std::optional<P> {
    if (!t.node) return std::nullopt;
    return grads.remove(t.node->id);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::grad_replace(const T& t, Gradients& grads, P grad) -> void {
    BURN_CHECK(t.node != nullptr, "grad_replace: the tensor does not require a gradient");
    const Shape a = B::float_shape(t.primitive), b = B::float_shape(grad);
    BURN_CHECK(a == b, "grad_replace: gradient of shape ", b, " for a tensor of shape ", a);
    grads.replace(t.node->id, std::move(grad));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::backward(T root) -> Gradients {
    Gradients grads;
    if (!root.node) return grads;
    BURN_CHECK(!root.node->released,
               "backward: the graph of this tensor was already freed by an earlier backward()");
    // Collect the nodes reachable through parents.
    std::vector<NodeRef> order;
    std::unordered_set<Node*> seen;
    std::vector<Node*> stack{root.node.get()};
    seen.insert(root.node.get());
    order.push_back(root.node);
    while (!stack.empty()) {
        Node* n = stack.back();
        stack.pop_back();
        for (const auto& p : n->parents) {
            if (!p || !seen.insert(p.get()).second) continue;
            BURN_CHECK(!p->released,
                       "backward: this graph goes through tensors whose graph an earlier "
                       "backward() already freed; run the forward pass again (or detach() the "
                       "shared tensor) before calling backward()");
            order.push_back(p);
            stack.push_back(p.get());
        }
    }
    std::sort(order.begin(), order.end(),
              [](const NodeRef& a, const NodeRef& b) { return a->id > b->id; });
    P seed = ones_shape(B::float_shape(root.primitive), root.primitive);
    if (B::float_dtype(seed) != B::float_dtype(root.primitive))
        seed = B::float_cast(std::move(seed), B::float_dtype(root.primitive));
    grads.replace(root.node->id, std::move(seed));
    // With a leaf-gradient hook: how many steps still add to each require_grad() leaf.
    autodiff::LeafGradientHook<B>* hook = autodiff::detail::leaf_gradient_hook<B>;
    std::unordered_map<Node*, std::size_t> pending;
    if (hook) {
        for (const NodeRef& n : order)
            if (n->step)
                for (const auto& p : n->parents)
                    if (p && !p->step && p->requirement == autodiff::Requirement::Grad)
                        ++pending[p.get()];
    }
    for (const NodeRef& n : order) {
        if (!n->step) continue;  // a leaf: its gradient stays in `grads`
        auto g = grads.remove(n->id);
        if (g) n->step->backward(n->parents, std::move(*g), grads);
        if (hook) {
            for (const auto& p : n->parents) {
                const auto it = p ? pending.find(p.get()) : pending.end();
                if (it == pending.end() || --it->second != 0) continue;
                if (auto leaf = grads.get(p->id)) hook->ready(p->id, *leaf);
            }
        }
        // Free the step, its kept tensors and any recomputed value once it has run.
        n->step.reset();
        n->recipe.reset();
        n->released = true;
    }
    // Unlink the walked graph; leaves are never written to, so threads may share them.
    for (const NodeRef& n : order)
        if (n->released) n->parents.clear();
    return grads;
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_from_data(const TensorData& d, const Device& dev) -> T {
    return untracked(B::float_from_data(d, dev));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_full(const Shape& s, double v, const Device& d) -> T {
    return untracked(B::float_full(s, v, d));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_random(const Shape& s, const Distribution& dist,
                                           const Device& d) -> T {
    return untracked(B::float_random(s, dist, d));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_to_device(T t, const Device& dev) -> T {
    const Device from = B::float_device(t.primitive);
    return unary(
        "to_device", std::move(t), kNone,
        [dev](P a) { return B::float_to_device(std::move(a), dev); },
        [from](const Ctx&, P g) { return B::float_to_device(std::move(g), from); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_cast(T t, DType dtype) -> T {
    const DType from = B::float_dtype(t.primitive);
    if (from == dtype) return t;
    return unary(
        "cast", std::move(t), kNone, [dtype](P a) { return B::float_cast(std::move(a), dtype); },
        [from](const Ctx&, P g) { return is_float(from) ? B::float_cast(std::move(g), from) : g; });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_reshape(T t, const Shape& s) -> T {
    return unary(
        "reshape", std::move(t), kNone, [s](P a) { return B::float_reshape(std::move(a), s); },
        [](const Ctx& c, P g) { return B::float_reshape(std::move(g), c.shape(0)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_swap_dims(T t, std::size_t a, std::size_t b) -> T {
    return unary(
        "swap_dims", std::move(t), kNone,
        [a, b](P x) { return B::float_swap_dims(std::move(x), a, b); },
        [a, b](const Ctx&, P g) { return B::float_swap_dims(std::move(g), a, b); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_permute(T t, Axes axes) -> T {
    std::vector<std::size_t> perm(axes.begin(), axes.end()), inv(axes.size());
    for (std::size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = i;
    return unary(
        "permute", std::move(t), kNone,
        [perm](P x) { return B::float_permute(std::move(x), perm); },
        [inv](const Ctx&, P g) { return B::float_permute(std::move(g), inv); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_flip(T t, Axes axes) -> T {
    std::vector<std::size_t> ax(axes.begin(), axes.end());
    return unary(
        "flip", std::move(t), kNone, [ax](P x) { return B::float_flip(std::move(x), ax); },
        [ax](const Ctx&, P g) { return B::float_flip(std::move(g), ax); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_expand(T t, const Shape& s) -> T {
    return unary(
        "expand", std::move(t), kNone, [s](P x) { return B::float_expand(std::move(x), s); },
        [](const Ctx& c, P g) { return reduce_to(std::move(g), c.shape(0)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_slice(T t, Ranges ranges) -> T {
    std::vector<SliceRange> r(ranges.begin(), ranges.end());
    return unary(
        "slice", std::move(t), kNone, [r](P x) { return B::float_slice(std::move(x), r); },
        [r](const Ctx& c, P g) {
            return B::float_slice_assign(zeros(c.shape(0), g), r, std::move(g));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_slice_assign(T t, Ranges ranges, T v) -> T {
    std::vector<SliceRange> r(ranges.begin(), ranges.end());
    return op(
        "slice_assign", kMemory, vec(std::move(t), std::move(v)), kNone,
        [r](std::vector<P> x) {
            return B::float_slice_assign(std::move(x[0]), r, std::move(x[1]));
        },
        [r](const Ctx& c, P g) {
            Grads out(2);
            if (c.need[1]) out[1] = B::float_slice(g, r);
            if (c.need[0]) out[0] = B::float_slice_assign(std::move(g), r, zeros(c.shape(1), g));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_cat(std::vector<T> ts, std::size_t dim) -> T {
    return op(
        "cat", kMemory, std::move(ts), kNone,
        [dim](std::vector<P> x) { return B::float_cat(std::move(x), dim); },
        [dim](const Ctx& c, P g) {
            Grads out(c.shapes.size());
            std::size_t start = 0;
            const Shape gs = B::float_shape(g);
            for (std::size_t i = 0; i < c.shapes.size(); ++i) {
                const std::size_t len = c.shape(i)[dim];
                if (c.need[i]) {
                    std::vector<SliceRange> r(gs.rank());
                    for (std::size_t d = 0; d < gs.rank(); ++d) r[d] = {0, gs[d], 1};
                    r[dim] = {start, len, 1};
                    out[i] = B::float_slice(g, r);
                }
                start += len;
            }
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_repeat_dim(T t, std::size_t dim, std::size_t times) -> T {
    return unary(
        "repeat_dim", std::move(t), kNone,
        [dim, times](P x) { return B::float_repeat_dim(std::move(x), dim, times); },
        [dim, times](const Ctx& c, P g) {
            // [.., times * n, ..] -> [.., times, n, ..], summed over `times`.
            const Shape& s = c.shape(0);
            Shape split;
            for (std::size_t d = 0; d < s.rank(); ++d) {
                if (d == dim) split.push_back(times);
                split.push_back(s[d]);
            }
            g = B::float_sum_dim(B::float_reshape(std::move(g), split), dim);
            return B::float_reshape(std::move(g), s);
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_equal(T a, T b) -> BoolTensor {
    return B::float_equal(std::move(a.primitive), std::move(b.primitive));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_not_equal(T a, T b) -> BoolTensor {
    return B::float_not_equal(std::move(a.primitive), std::move(b.primitive));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_add(T a, T b) -> T {
    return op(
        "add", kMemory, vec(std::move(a), std::move(b)), kNone,
        [](std::vector<P> x) { return B::float_add(std::move(x[0]), std::move(x[1])); },
        [](const Ctx& c, P g) {
            Grads out(2);
            if (c.need[1]) out[1] = reduce_to(g, c.shape(1));
            if (c.need[0]) out[0] = reduce_to(std::move(g), c.shape(0));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sub(T a, T b) -> T {
    return op(
        "sub", kMemory, vec(std::move(a), std::move(b)), kNone,
        [](std::vector<P> x) { return B::float_sub(std::move(x[0]), std::move(x[1])); },
        [](const Ctx& c, P g) {
            Grads out(2);
            if (c.need[1]) out[1] = reduce_to(B::float_neg(g), c.shape(1));
            if (c.need[0]) out[0] = reduce_to(std::move(g), c.shape(0));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_mul(T a, T b) -> T {
    const Keep k = cross(a, b);
    return op(
        "mul", kMemory, vec(std::move(a), std::move(b)), k,
        [](std::vector<P> x) { return B::float_mul(std::move(x[0]), std::move(x[1])); },
        [](const Ctx& c, P g) {
            Grads out(2);
            if (c.need[0]) out[0] = reduce_to(B::float_mul(g, c.input(1)), c.shape(0));
            if (c.need[1]) out[1] = reduce_to(B::float_mul(std::move(g), c.input(0)), c.shape(1));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_div(T a, T b) -> T {
    const Keep k{b.node ? 3u : 2u, false};
    return op(
        "div", kMemory, vec(std::move(a), std::move(b)), k,
        [](std::vector<P> x) { return B::float_div(std::move(x[0]), std::move(x[1])); },
        [](const Ctx& c, P g) {
            Grads out(2);
            const P rhs = c.input(1);
            if (c.need[1]) {
                // d(a/b)/db = -a / b^2
                P t = B::float_div(B::float_div(B::float_mul(g, c.input(0)), rhs), rhs);
                out[1] = reduce_to(B::float_neg(std::move(t)), c.shape(1));
            }
            if (c.need[0]) out[0] = reduce_to(B::float_div(std::move(g), rhs), c.shape(0));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_remainder(T a, T b) -> T {
    const Keep k{b.node ? 3u : 0u, false};
    return op(
        "remainder", kMemory, vec(std::move(a), std::move(b)), k,
        [](std::vector<P> x) { return B::float_remainder(std::move(x[0]), std::move(x[1])); },
        [](const Ctx& c, P g) {
            Grads out(2);
            if (c.need[1]) {
                // d(a mod b)/db = -floor(a / b)
                P q = B::float_floor(B::float_div(c.input(0), c.input(1)));
                out[1] = reduce_to(B::float_neg(B::float_mul(g, std::move(q))), c.shape(1));
            }
            if (c.need[0]) out[0] = reduce_to(std::move(g), c.shape(0));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_add_scalar(T a, double s) -> T {
    return unary(
        "add_scalar", std::move(a), kNone,
        [s](P x) { return B::float_add_scalar(std::move(x), s); },
        [](const Ctx&, P g) { return g; });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sub_scalar(T a, double s) -> T {
    return unary(
        "sub_scalar", std::move(a), kNone,
        [s](P x) { return B::float_sub_scalar(std::move(x), s); },
        [](const Ctx&, P g) { return g; });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_mul_scalar(T a, double s) -> T {
    return unary(
        "mul_scalar", std::move(a), kNone,
        [s](P x) { return B::float_mul_scalar(std::move(x), s); },
        [s](const Ctx&, P g) { return B::float_mul_scalar(std::move(g), s); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_div_scalar(T a, double s) -> T {
    return unary(
        "div_scalar", std::move(a), kNone,
        [s](P x) { return B::float_div_scalar(std::move(x), s); },
        [s](const Ctx&, P g) { return B::float_div_scalar(std::move(g), s); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_remainder_scalar(T a, double s) -> T {
    return unary(
        "remainder_scalar", std::move(a), kNone,
        [s](P x) { return B::float_remainder_scalar(std::move(x), s); },
        [](const Ctx&, P g) { return g; });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_neg(T a) -> T {
    return unary(
        "neg", std::move(a), kNone, [](P x) { return B::float_neg(std::move(x)); },
        [](const Ctx&, P g) { return B::float_neg(std::move(g)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_abs(T a) -> T {
    return unary(
        "abs", std::move(a), kIn0, [](P x) { return B::float_abs(std::move(x)); },
        [](const Ctx& c, P g) { return B::float_mul(std::move(g), B::float_sign(c.input(0))); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sign(T a) -> T {
    return zero_grad_op("sign", std::move(a), [](P x) { return B::float_sign(std::move(x)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_round(T a) -> T {
    return zero_grad_op("round", std::move(a), [](P x) { return B::float_round(std::move(x)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_floor(T a) -> T {
    return zero_grad_op("floor", std::move(a), [](P x) { return B::float_floor(std::move(x)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_ceil(T a) -> T {
    return zero_grad_op("ceil", std::move(a), [](P x) { return B::float_ceil(std::move(x)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::pair_op(const char* name, T a, T b, bool is_max) -> T {
    const Keep k = (a.node || b.node) ? kIn01 : kNone;
    return op(
        name, kMemory, vec(std::move(a), std::move(b)), k,
        [is_max](std::vector<P> x) {
            return is_max ? B::float_max_pair(std::move(x[0]), std::move(x[1]))
                          : B::float_min_pair(std::move(x[0]), std::move(x[1]));
        },
        [is_max](const Ctx& c, P g) {
            const P x = c.input(0), y = c.input(1);
            P wins = B::bool_into_float(is_max ? B::float_greater(x, y) : B::float_lower(x, y));
            P ties = B::float_mul_scalar(B::bool_into_float(B::float_equal(x, y)), 0.5);
            P wa = B::float_add(std::move(wins), std::move(ties));
            Grads out(2);
            if (c.need[1]) {
                P wb = B::float_add_scalar(B::float_neg(wa), 1.0);
                out[1] = reduce_to(B::float_mul(g, std::move(wb)), c.shape(1));
            }
            if (c.need[0])
                out[0] = reduce_to(B::float_mul(std::move(g), std::move(wa)), c.shape(0));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::clamp_op(const char* name, T a, std::optional<double> lo,
                                       std::optional<double> hi) -> T {
    return unary(
        name, std::move(a), kIn0,
        [lo, hi](P x) {
            if (lo && hi) return B::float_clamp(std::move(x), *lo, *hi);
            if (lo) return B::float_clamp_min(std::move(x), *lo);
            return B::float_clamp_max(std::move(x), *hi);
        },
        [lo, hi](const Ctx& c, P g) {
            const P x = c.input(0);
            if (lo) g = B::float_mask_fill(std::move(g), B::float_lower_elem(x, *lo), 0.0);
            if (hi) g = B::float_mask_fill(std::move(g), B::float_greater_elem(x, *hi), 0.0);
            return g;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_not_equal_elem(T a, double s) -> BoolTensor {
    return B::float_not_equal_elem(std::move(a.primitive), s);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sum(T a) -> T {
    return unary(
        "sum", std::move(a), kNone, [](P x) { return B::float_sum(std::move(x)); },
        [](const Ctx& c, P g) {
            Shape ones;
            ones.resize(c.shape(0).rank(), 1);
            return expand_to(B::float_reshape(std::move(g), ones), c.shape(0));
        },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sum_dim(T a, std::size_t d) -> T {
    return unary(
        "sum_dim", std::move(a), kNone, [d](P x) { return B::float_sum_dim(std::move(x), d); },
        [](const Ctx& c, P g) { return expand_to(std::move(g), c.shape(0)); }, kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_mean_dim(T a, std::size_t d) -> T {
    return unary(
        "mean_dim", std::move(a), kNone, [d](P x) { return B::float_mean_dim(std::move(x), d); },
        [d](const Ctx& c, P g) {
            const auto n = static_cast<double>(std::max<std::size_t>(c.shape(0)[d], 1));
            return expand_to(B::float_div_scalar(std::move(g), n), c.shape(0));
        },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::prod_backward(P x, P g, std::optional<std::size_t> dim) -> P {
    const Shape s = B::float_shape(x);
    Shape ones;
    ones.resize(s.rank(), 1);
    auto reduce = [&](P t, bool prod) {
        if (dim)
            return prod ? B::float_prod_dim(std::move(t), *dim)
                        : B::float_sum_dim(std::move(t), *dim);
        return B::float_reshape(prod ? B::float_prod(std::move(t)) : B::float_sum(std::move(t)),
                                ones);
    };
    const BoolTensor is_zero = B::float_equal_elem(x, 0.0);
    P nonzero = B::float_mask_fill(x, is_zero, 1.0);
    P prod_nonzero = expand_to(reduce(nonzero, true), s);
    P zero_count = expand_to(reduce(B::bool_into_float(is_zero), false), s);
    // The product of the others: prod_nonzero / x without zeros; prod_nonzero at the zero
    // when there is exactly one; 0 elsewhere.
    P other = B::float_div(prod_nonzero, std::move(nonzero));
    other = B::float_mask_fill(std::move(other), B::float_greater_elem(zero_count, 0.0), 0.0);
    const BoolTensor single_zero =
        B::bool_and(is_zero, B::float_equal_elem(std::move(zero_count), 1.0));
    other = B::float_mask_where(std::move(other), single_zero, std::move(prod_nonzero));
    if (!dim) g = B::float_reshape(std::move(g), ones);
    return B::float_mul(expand_to(std::move(g), s), std::move(other));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_prod(T a) -> T {
    return unary(
        "prod", std::move(a), kIn0, [](P x) { return B::float_prod(std::move(x)); },
        [](const Ctx& c, P g) { return prod_backward(c.input(0), std::move(g), std::nullopt); },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_prod_dim(T a, std::size_t d) -> T {
    return unary(
        "prod_dim", std::move(a), kIn0, [d](P x) { return B::float_prod_dim(std::move(x), d); },
        [d](const Ctx& c, P g) { return prod_backward(c.input(0), std::move(g), d); }, kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::extreme_with_indices(const char* name, T a, std::size_t d,
                                                   bool is_max) -> std::pair<T, I> {
    if (!a.node) {
        auto [v, i] = is_max ? B::float_max_dim_with_indices(std::move(a.primitive), d)
                             : B::float_min_dim_with_indices(std::move(a.primitive), d);
        return {untracked(std::move(v)), std::move(i)};
    }
    auto r = is_max ? B::float_max_dim_with_indices(a.primitive, d)
                    : B::float_min_dim_with_indices(a.primitive, d);
    P v = std::move(r.first);
    I idx = std::move(r.second);
    T out = op(
        name, kCompute, vec(std::move(a)), kNone, [v](std::vector<P>) { return v; },
        [d, idx](const Ctx& c, P g) {
            return Grads{scatter_back(c.shape(0), d, idx, std::move(g))};
        });
    return {std::move(out), std::move(idx)};
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_max_dim_with_indices(T a, std::size_t d) -> std::pair<T, I> {
    return extreme_with_indices("max_dim", std::move(a), d, true);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_min_dim_with_indices(T a, std::size_t d) -> std::pair<T, I> {
    return extreme_with_indices("min_dim", std::move(a), d, false);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_max_dim(T a, std::size_t d) -> T {
    if (!a.node) return untracked(B::float_max_dim(std::move(a.primitive), d));
    return float_max_dim_with_indices(std::move(a), d).first;
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_min_dim(T a, std::size_t d) -> T {
    if (!a.node) return untracked(B::float_min_dim(std::move(a.primitive), d));
    return float_min_dim_with_indices(std::move(a), d).first;
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_argsort(T a, std::size_t d, bool desc) -> I {
    return B::float_argsort(std::move(a.primitive), d, desc);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sort_with_indices(T a, std::size_t d, bool desc)
    -> std::pair<T, I> {
    if (!a.node) {
        auto [v, i] = B::float_sort_with_indices(std::move(a.primitive), d, desc);
        return {untracked(std::move(v)), std::move(i)};
    }
    auto r = B::float_sort_with_indices(a.primitive, d, desc);
    P v = std::move(r.first);
    I idx = std::move(r.second);
    T out = op(
        "sort", kCompute, vec(std::move(a)), kNone, [v](std::vector<P>) { return v; },
        [d, idx](const Ctx& c, P g) {
            return Grads{scatter_back(c.shape(0), d, idx, std::move(g))};
        });
    return {std::move(out), std::move(idx)};
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sort(T a, std::size_t d, bool desc) -> T {
    if (!a.node) return untracked(B::float_sort(std::move(a.primitive), d, desc));
    return float_sort_with_indices(std::move(a), d, desc).first;
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_gather(std::size_t d, T a, I idx) -> T {
    return unary(
        "gather", std::move(a), kNone,
        [d, idx](P x) { return B::float_gather(d, std::move(x), idx); },
        [d, idx](const Ctx& c, P g) { return scatter_back(c.shape(0), d, idx, std::move(g)); },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_scatter(std::size_t d, T a, I idx, T v) -> T {
    return op(
        "scatter", kCompute, vec(std::move(a), std::move(v)), kNone,
        [d, idx](std::vector<P> x) {
            return B::float_scatter(d, std::move(x[0]), idx, std::move(x[1]));
        },
        [d, idx](const Ctx& c, P g) {
            Grads out(2);
            if (c.need[1]) {
                // Values may be larger than the indices: only the covered part is used.
                P gv = B::float_gather(d, g, idx);
                const Shape is = B::int_shape(idx);
                if (is != c.shape(1)) {
                    std::vector<SliceRange> r(is.rank());
                    for (std::size_t k = 0; k < is.rank(); ++k) r[k] = {0, is[k], 1};
                    gv = B::float_slice_assign(zeros(c.shape(1), g), r, std::move(gv));
                }
                out[1] = std::move(gv);
            }
            if (c.need[0]) out[0] = std::move(g);
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_select(T a, std::size_t d, I idx) -> T {
    return unary(
        "select", std::move(a), kNone,
        [d, idx](P x) { return B::float_select(std::move(x), d, idx); },
        [d, idx](const Ctx& c, P g) {
            return B::float_select_assign(zeros(c.shape(0), g), d, idx, std::move(g));
        },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_select_assign(T a, std::size_t d, I idx, T v) -> T {
    return op(
        "select_assign", kCompute, vec(std::move(a), std::move(v)), kNone,
        [d, idx](std::vector<P> x) {
            return B::float_select_assign(std::move(x[0]), d, idx, std::move(x[1]));
        },
        [d, idx](const Ctx& c, P g) {
            Grads out(2);
            if (c.need[1]) out[1] = B::float_select(g, d, idx);
            if (c.need[0]) out[0] = std::move(g);
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_mask_where(T a, BoolTensor mask, T v) -> T {
    return op(
        "mask_where", kMemory, vec(std::move(a), std::move(v)), kNone,
        [mask](std::vector<P> x) {
            return B::float_mask_where(std::move(x[0]), mask, std::move(x[1]));
        },
        [mask](const Ctx& c, P g) {
            Grads out(2);
            const BoolTensor m = expand_mask(mask, B::float_shape(g));
            if (c.need[1])
                out[1] = reduce_to(B::float_mask_fill(g, B::bool_not(m), 0.0), c.shape(1));
            if (c.need[0]) out[0] = reduce_to(B::float_mask_fill(std::move(g), m, 0.0), c.shape(0));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_mask_fill(T a, BoolTensor mask, double s) -> T {
    return unary(
        "mask_fill", std::move(a), kNone,
        [mask, s](P x) { return B::float_mask_fill(std::move(x), mask, s); },
        [mask](const Ctx& c, P g) {
            const BoolTensor m = expand_mask(mask, B::float_shape(g));
            return reduce_to(B::float_mask_fill(std::move(g), m, 0.0), c.shape(0));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_exp(T a) -> T {
    return unary(
        "exp", std::move(a), kOut, [](P x) { return B::float_exp(std::move(x)); },
        [](const Ctx& c, P g) { return B::float_mul(std::move(g), c.out()); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_log(T a) -> T {
    return unary(
        "log", std::move(a), kIn0, [](P x) { return B::float_log(std::move(x)); },
        [](const Ctx& c, P g) { return B::float_div(std::move(g), c.input(0)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_log1p(T a) -> T {
    return unary(
        "log1p", std::move(a), kIn0, [](P x) { return B::float_log1p(std::move(x)); },
        [](const Ctx& c, P g) {
            return B::float_div(std::move(g), B::float_add_scalar(c.input(0), 1.0));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_erf(T a) -> T {
    return unary(
        "erf", std::move(a), kIn0, [](P x) { return B::float_erf(std::move(x)); },
        [](const Ctx& c, P g) {
            // 2/sqrt(pi) * exp(-x^2)
            const P x = c.input(0);
            P e = B::float_exp(B::float_neg(B::float_mul(x, x)));
            return B::float_mul(
                std::move(g), B::float_mul_scalar(std::move(e), 2.0 / std::sqrt(std::numbers::pi)));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sqrt(T a) -> T {
    return unary(
        "sqrt", std::move(a), kOut, [](P x) { return B::float_sqrt(std::move(x)); },
        [](const Ctx& c, P g) {
            return B::float_div(std::move(g), B::float_mul_scalar(c.out(), 2.0));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_recip(T a) -> T {
    return unary(
        "recip", std::move(a), kOut, [](P x) { return B::float_recip(std::move(x)); },
        [](const Ctx& c, P g) {
            const P o = c.out();
            return B::float_neg(B::float_mul(std::move(g), B::float_mul(o, o)));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_sin(T a) -> T {
    return unary(
        "sin", std::move(a), kIn0, [](P x) { return B::float_sin(std::move(x)); },
        [](const Ctx& c, P g) { return B::float_mul(std::move(g), B::float_cos(c.input(0))); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_cos(T a) -> T {
    return unary(
        "cos", std::move(a), kIn0, [](P x) { return B::float_cos(std::move(x)); },
        [](const Ctx& c, P g) {
            return B::float_neg(B::float_mul(std::move(g), B::float_sin(c.input(0))));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_tanh(T a) -> T {
    return unary(
        "tanh", std::move(a), kOut, [](P x) { return B::float_tanh(std::move(x)); },
        [](const Ctx& c, P g) {
            const P o = c.out();
            P d = B::float_add_scalar(B::float_neg(B::float_mul(o, o)), 1.0);
            return B::float_mul(std::move(g), std::move(d));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_powf(T a, T b) -> T {
    const bool track_b = b.node != nullptr;
    const Keep k{3u, track_b};
    return op(
        "powf", kMemory, vec(std::move(a), std::move(b)), k,
        [](std::vector<P> x) { return B::float_powf(std::move(x[0]), std::move(x[1])); },
        [](const Ctx& c, P g) {
            Grads out(2);
            const P x = c.input(0), y = c.input(1);
            if (c.need[1]) {
                P d = B::float_mul(c.out(), B::float_log(x));
                const Shape s = B::float_shape(d);
                BoolTensor zero_base =
                    B::bool_and(expand_mask(B::float_equal_elem(x, 0.0), s),
                                expand_mask(B::float_greater_equal_elem(y, 0.0), s));
                d = B::float_mask_fill(std::move(d), zero_base, 0.0);
                out[1] = reduce_to(B::float_mul(g, std::move(d)), c.shape(1));
            }
            if (c.need[0]) {
                P d = B::float_mul(y, B::float_powf(x, B::float_sub_scalar(y, 1.0)));
                d = B::float_mask_fill(
                    std::move(d), expand_mask(B::float_equal_elem(y, 0.0), B::float_shape(d)), 0.0);
                out[0] = reduce_to(B::float_mul(std::move(g), std::move(d)), c.shape(0));
            }
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_powf_scalar(T a, double s) -> T {
    return unary(
        "powf_scalar", std::move(a), kIn0,
        [s](P x) { return B::float_powf_scalar(std::move(x), s); },
        [s](const Ctx& c, P g) {
            if (s == 0.0) return zeros_like(g);
            P d = B::float_mul_scalar(B::float_powf_scalar(c.input(0), s - 1.0), s);
            return B::float_mul(std::move(g), std::move(d));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_matmul(T a, T b) -> T {
    const Keep k = cross(a, b);
    return op(
        "matmul", kCompute, vec(std::move(a), std::move(b)), k,
        [](std::vector<P> x) { return B::float_matmul(std::move(x[0]), std::move(x[1])); },
        [](const Ctx& c, P g) {
            Grads out(2);
            if (c.need[0]) out[0] = reduce_to(B::float_matmul(g, mT(c.input(1))), c.shape(0));
            if (c.need[1])
                out[1] = reduce_to(B::float_matmul(mT(c.input(0)), std::move(g)), c.shape(1));
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::reverse_cumsum(P g, std::size_t d) -> P {
    const std::array<std::size_t, 1> ax{d};
    return B::float_flip(B::float_cumsum(B::float_flip(std::move(g), ax), d), ax);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_cumsum(T a, std::size_t d) -> T {
    return unary(
        "cumsum", std::move(a), kNone, [d](P x) { return B::float_cumsum(std::move(x), d); },
        [d](const Ctx&, P g) { return reverse_cumsum(std::move(g), d); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::cumprod_backward(P x, P out, P g, std::size_t d) -> P {
    const BoolTensor is_zero = B::float_equal_elem(x, 0.0);
    const I zeros_so_far = B::int_cumsum(B::bool_into_int(is_zero), d);
    const BoolTensor before = B::int_equal_elem(zeros_so_far, std::int64_t{0});
    const BoolTensor first_zero =
        B::bool_and(is_zero, B::int_equal_elem(zeros_so_far, std::int64_t{1}));
    P safe_x = B::float_mask_fill(x, is_zero, 1.0);
    P grad = B::float_div(reverse_cumsum(B::float_mul(g, std::move(out)), d), std::move(safe_x));
    grad = B::float_mask_fill(std::move(grad), B::bool_not(before), 0.0);
    P out_without_z = B::float_cumprod(B::float_mask_fill(std::move(x), first_zero, 1.0), d);
    P at_zero = reverse_cumsum(B::float_mul(std::move(g), std::move(out_without_z)), d);
    return B::float_mask_where(std::move(grad), first_zero, std::move(at_zero));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_cumprod(T a, std::size_t d) -> T {
    return unary(
        "cumprod", std::move(a), Keep{1u, true},
        [d](P x) { return B::float_cumprod(std::move(x), d); },
        [d](const Ctx& c, P g) { return cumprod_backward(c.input(0), c.out(), std::move(g), d); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::cum_extreme_backward(P x, P out, P g, std::size_t d) -> P {
    const Shape s = B::float_shape(x);
    const BoolTensor holds = B::bool_or(B::float_equal(x, std::move(out)), B::float_is_nan(x));
    Shape line;
    line.resize(s.rank(), 1);
    line[d] = s[d];
    const Device dev = B::float_device(x);
    I pos = B::int_expand(
        B::int_reshape(B::int_arange(0, static_cast<std::int64_t>(s[d]), 1, dev), line), s);
    I idx = B::int_cummax(B::int_mask_where(B::int_zeros(s, dev), holds, std::move(pos)), d);
    return scatter_back(s, d, idx, std::move(g));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_cummax(T a, std::size_t d) -> T {
    return unary(
        "cummax", std::move(a), Keep{1u, true},
        [d](P x) { return B::float_cummax(std::move(x), d); },
        [d](const Ctx& c, P g) {
            return cum_extreme_backward(c.input(0), c.out(), std::move(g), d);
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::float_cummin(T a, std::size_t d) -> T {
    return unary(
        "cummin", std::move(a), Keep{1u, true},
        [d](P x) { return B::float_cummin(std::move(x), d); },
        [d](const Ctx& c, P g) {
            return cum_extreme_backward(c.input(0), c.out(), std::move(g), d);
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::quantize(T t, const QuantizationScheme& scheme, T scale,
                                       std::optional<I> offset) -> T {
    P sc = std::move(scale.primitive);
    return unary(
        "quantize", std::move(t), kNone,
        [scheme, sc, offset](P x) { return B::quantize(std::move(x), scheme, sc, offset); },
        [](const Ctx&, P g) { return g; });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::dequantize(T t) -> T {
    return unary(
        "dequantize", std::move(t), kNone, [](P x) { return B::dequantize(std::move(x)); },
        [](const Ctx&, P g) { return g; });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::relu(T x) -> T {
    return unary(
        "relu", std::move(x), kOut, [](P a) { return B::relu(std::move(a)); },
        [](const Ctx& c, P g) { return B::relu_backward(c.out(), std::move(g)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::gelu(T x) -> T {
    return unary(
        "gelu", std::move(x), kIn0, [](P a) { return B::gelu(std::move(a)); },
        [](const Ctx& c, P g) { return B::gelu_backward(c.input(0), std::move(g)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::sigmoid(T x) -> T {
    return unary(
        "sigmoid", std::move(x), kOut, [](P a) { return B::sigmoid(std::move(a)); },
        [](const Ctx& c, P g) { return B::sigmoid_backward(c.out(), std::move(g)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::log_sigmoid(T x) -> T {
    return unary(
        "log_sigmoid", std::move(x), kIn0, [](P a) { return B::log_sigmoid(std::move(a)); },
        [](const Ctx& c, P g) { return B::log_sigmoid_backward(c.input(0), std::move(g)); });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::hard_sigmoid(T x, double alpha, double beta) -> T {
    return unary(
        "hard_sigmoid", std::move(x), kIn0,
        [alpha, beta](P a) { return B::hard_sigmoid(std::move(a), alpha, beta); },
        [alpha, beta](const Ctx& c, P g) {
            // alpha where 0 < alpha * x + beta < 1, 0 elsewhere
            P t = B::float_add_scalar(B::float_mul_scalar(c.input(0), alpha), beta);
            BoolTensor outside =
                B::bool_or(B::float_lower_equal_elem(t, 0.0), B::float_greater_equal_elem(t, 1.0));
            return B::float_mask_fill(B::float_mul_scalar(std::move(g), alpha), outside, 0.0);
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::leaky_relu(T x, double slope) -> T {
    return unary(
        "leaky_relu", std::move(x), kIn0,
        [slope](P a) { return B::leaky_relu(std::move(a), slope); },
        [slope](const Ctx& c, P g) {
            BoolTensor pos = B::float_greater_elem(c.input(0), 0.0);
            P neg = B::float_mul_scalar(g, slope);
            return B::float_mask_where(std::move(neg), pos, std::move(g));
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::softmax(T x, std::size_t dim) -> T {
    return unary(
        "softmax", std::move(x), kOut, [dim](P a) { return B::softmax(std::move(a), dim); },
        [dim](const Ctx& c, P g) {
            // y * (g - sum(g * y))
            const P y = c.out();
            P s = B::float_sum_dim(B::float_mul(g, y), dim);
            return B::float_mul(B::float_sub(std::move(g), std::move(s)), y);
        },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::log_softmax(T x, std::size_t dim) -> T {
    return unary(
        "log_softmax", std::move(x), kOut, [dim](P a) { return B::log_softmax(std::move(a), dim); },
        [dim](const Ctx& c, P g) {
            // g - exp(y) * sum(g)
            P s = B::float_sum_dim(g, dim);
            return B::float_sub(std::move(g), B::float_mul(B::float_exp(c.out()), std::move(s)));
        },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::sigmoid_backward(T o, T g) -> T {
    return untracked(B::sigmoid_backward(std::move(o.primitive), std::move(g.primitive)));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::log_sigmoid_backward(T x, T g) -> T {
    return untracked(B::log_sigmoid_backward(std::move(x.primitive), std::move(g.primitive)));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::with_optional(std::vector<T> v, OptT t) -> std::vector<T> {
    if (t) v.push_back(std::move(*t));
    return v;
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::deform_conv2d(T x, T offset, T w, OptT mask, OptT b,
                                            const DeformConvOptions<2>& o) -> T {
    const bool has_mask = mask.has_value(), has_bias = b.has_value();
    std::vector<T> in = vec(std::move(x), std::move(offset));
    in.push_back(std::move(w));
    in = with_optional(std::move(in), std::move(mask));
    in = with_optional(std::move(in), std::move(b));
    const Keep keep{(1u << in.size()) - 1u, false};
    return op(
        "deform_conv2d", kCompute, std::move(in), keep,
        [o, has_mask, has_bias](std::vector<P> v) {
            OptP m = has_mask ? OptP(v[3]) : std::nullopt;
            OptP bias = has_bias ? OptP(v[has_mask ? 4 : 3]) : std::nullopt;
            return B::deform_conv2d(std::move(v[0]), std::move(v[1]), std::move(v[2]), std::move(m),
                                    std::move(bias), o);
        },
        [o, has_mask, has_bias](const Ctx& c, P g) {
            OptP m = has_mask ? OptP(c.input(3)) : std::nullopt;
            const std::size_t bi = has_mask ? 4 : 3;
            OptP bias = has_bias ? OptP(c.input(bi)) : std::nullopt;
            auto r = B::deform_conv2d_backward(c.input(0), c.input(1), c.input(2), std::move(m),
                                               std::move(bias), std::move(g), o);
            Grads out(c.shapes.size());
            out[0] = std::move(r.x_grad);
            out[1] = std::move(r.offset_grad);
            out[2] = std::move(r.weight_grad);
            if (has_mask) out[3] = std::move(r.mask_grad);
            if (has_bias) out[bi] = std::move(r.bias_grad);
            return out;
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::deform_conv2d_backward(T x, T offset, T w, OptT mask, OptT b, T g,
                                                     const DeformConvOptions<2>& o)
    -> DeformConv2dBackward<T> {
    auto r = B::deform_conv2d_backward(std::move(x.primitive), std::move(offset.primitive),
                                       std::move(w.primitive), prim(mask), prim(b),
                                       std::move(g.primitive), o);
    auto wrap = [](OptP p) { return p ? OptT(untracked(std::move(*p))) : std::nullopt; };
    return {untracked(std::move(r.x_grad)), untracked(std::move(r.offset_grad)),
            untracked(std::move(r.weight_grad)), wrap(std::move(r.mask_grad)),
            wrap(std::move(r.bias_grad))};
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::unfold4d(T x, const std::array<std::size_t, 2>& k,
                                       const UnfoldOptions& o) -> T {
    return unary(
        "unfold4d", std::move(x), kNone, [k, o](P a) { return B::unfold4d(std::move(a), k, o); },
        [k, o](const Ctx& c, P g) {
            const Shape& s = c.shape(0);
            const std::size_t ch = s[1], kk = k[0] * k[1];
            std::vector<float> wv(ch * kk * ch * kk, 0.0f);
            for (std::size_t ci = 0; ci < ch; ++ci)
                for (std::size_t j = 0; j < kk; ++j) wv[((ci * kk + j) * ch + ci) * kk + j] = 1.0f;
            const TensorData w(std::move(wv), Shape{ch * kk, ch, k[0], k[1]});
            const ConvOptions<2> co{o.stride, o.padding, o.dilation, 1};
            const std::size_t oh =
                conv_output_size(s[2], k[0], o.stride[0], o.padding[0], o.dilation[0]);
            const std::size_t ow =
                conv_output_size(s[3], k[1], o.stride[1], o.padding[1], o.dilation[1]);
            P gw = B::float_reshape(std::move(g), Shape{s[0], ch * kk, oh, ow});
            P weight = B::float_from_data(w, B::float_device(gw));
            return B::conv2d_x_backward(zeros(s, gw), std::move(weight), std::move(gw), co);
        });
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::interpolate(T x, const std::array<std::size_t, 2>& s,
                                          const InterpolateOptions& o) -> T {
    return unary(
        "interpolate", std::move(x), kIn0,
        [s, o](P a) { return B::interpolate(std::move(a), s, o); },
        [s, o](const Ctx& c, P g) {
            return B::interpolate_backward(c.input(0), std::move(g), s, o);
        },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::interpolate_backward(T x, T g, const std::array<std::size_t, 2>& s,
                                                   const InterpolateOptions& o) -> T {
    return untracked(B::interpolate_backward(std::move(x.primitive), std::move(g.primitive), s, o));
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::embedding(T w, I idx) -> T {
    return unary(
        "embedding", std::move(w), kIn0, [idx](P a) { return B::embedding(std::move(a), idx); },
        [idx](const Ctx& c, P g) { return B::embedding_backward(c.input(0), std::move(g), idx); },
        kCompute);
}

template <Backend B, class Checkpoint>
auto Autodiff<B, Checkpoint>::embedding_backward(T w, T g, I idx) -> T {
    return untracked(
        B::embedding_backward(std::move(w.primitive), std::move(g.primitive), std::move(idx)));
}

}  // namespace burn

#define BURN_AUTODIFF_DEFINED
#include "burn/backend/prebuilt.hpp"

// SPDX-License-Identifier: MIT OR Apache-2.0
// Fusion<B>: the kernel-fusion decorator. Its tensors are lazy: an element-wise kernel (unary,
// binary, scalar and comparison ops, clamp, mask_where / mask_fill, activations and their
// backward) records a node instead of running; any other kernel, a read (into_data), a device move
// or a view the program cannot express computes what it needs first. Computing a pending tensor
// gathers the pending element-wise nodes of its shape that lead to it into one program
// (<burn/fusion/program.hpp>) that the inner backend's fusion part runs in one pass
// (cpu::Kernels::fused_elementwise: tile by tile through the SIMD kernels; cuda:: and vk::Kernels:
// one kernel generated for the program and compiled at run time), writing only the
// tensors still referenced elsewhere. Nodes whose tensors were dropped are never computed.
//
//   using B = burn::Fusion<burn::Cpu<float>>;      // Autodiff<Fusion<Cpu<float>>> trains with it
//
// Fusion<B> wraps a backend of the kit (B::Kernels, a kernel set) whose kernel set models
// FusionKernelSet. The decorator is itself a kernel set over the inner one, turned into a Backend
// by the same adapter (<burn/backend/adapter.hpp>), so views, dtypes and quantization behave as
// in B. Pending chains are bounded (detail::max_program_ops); BURN_FUSION_LOG=1 prints each
// program run, and fusion::stats() counts them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/backend/adapter.hpp"
#include "burn/backend/capabilities.hpp"
#include "burn/backend/kernels.hpp"
#include "burn/fusion/program.hpp"

namespace burn::fusion {

/// A kernel set with a fusion part: runs a fused element-wise program on its inputs (inner
/// tensors of any layout, broadcast to p.shape, of the dtypes p.inputs lists) and returns one new
/// dense tensor per entry of p.outputs.
template <class KS>
concept FusionKernelSet = backend::KernelSet<KS> &&
    requires(const Program& p, std::span<const typename KS::Tensor> in) {
    { KS::fused_elementwise(p, in) } -> std::same_as<std::vector<typename KS::Tensor>>;
};

/// A fusion part that also runs programs ending with a reduction (Program::reduction): returns
/// the reduced tensor (as the kernel the reduction names returns it), then one new dense tensor
/// per further entry of p.outputs. Fusion<B> records reductions of pending element-wise results
/// only for such kernel sets.
template <class KS>
concept ReducingFusionKernelSet = FusionKernelSet<KS> &&
    requires(const Program& p, std::span<const typename KS::Tensor> in) {
    { KS::fused_reduce(p, in) } -> std::same_as<std::vector<typename KS::Tensor>>;
};

/// Counters of this process's fusion work (all threads), for tests and tuning.
struct Stats {
    std::uint64_t programs = 0;     ///< fused programs run
    std::uint64_t fused_ops = 0;    ///< element-wise ops they ran
    std::uint64_t outputs = 0;      ///< tensors they wrote
    std::uint64_t unfused_ops = 0;  ///< kernels that ran on the inner backend as they are
};
Stats stats();
void reset_stats();

namespace detail {
/// The most instructions of one pending chain: recording an op whose chain would be longer first
/// computes its inputs (bounds memory held by pending nodes and the depth of the graph).
inline constexpr std::size_t max_program_ops = 64;
/// Counts the program and prints it when BURN_FUSION_LOG is set.
void note_program(const Program& p);
void note_unfused();
/// Guards every lazy tensor's state (pending node or value): one per process, held while a
/// program is gathered and run (the kernels it runs use the inner backend's threads).
std::recursive_mutex& graph_mutex();
}  // namespace detail

template <class KS>
struct Lazy;

/// A fusion tensor: a strided view into a lazy buffer (the adapter's views work on it as on any
/// kit primitive).
template <class KS>
using LazyTensor = backend::StridedTensor<Lazy<KS>, typename KS::Device>;

/// A recorded op: an element-wise instruction (args: indexes into `inputs`) and its operands, or
/// a reduction (reduction.kind != None) of its one input, a pending element-wise result.
template <class KS>
struct Node {
    Instr instr;
    std::vector<LazyTensor<KS>> inputs;
    Shape shape;           ///< the result's shape (its buffer is dense, row-major)
    std::size_t size = 1;  ///< instructions of the pending chain ending here (an upper bound)
    Reduction reduction;   ///< the reduction this node stands for (Kind::None: element-wise)

    bool elementwise() const { return reduction.kind == Reduction::Kind::None; }
};

/// The buffer of a fusion tensor: the inner tensor once computed, the recorded op before.
template <class KS>
struct Lazy {
    std::optional<typename KS::Tensor> value;
    std::unique_ptr<Node<KS>> node;
};

/// The kernel set of Fusion<B> over B's kernel set KS.
template <FusionKernelSet KS>
struct Kernels {
    using Inner = KS;
    using IT = typename KS::Tensor;
    BURN_KERNEL_SIGNATURE_TYPES(LazyTensor<KS>, typename KS::Device)
    using Tensor = LazyTensor<KS>;

protected:
    using LazyPtr = std::shared_ptr<Lazy<KS>>;

    // ---- computing pending tensors -----------------------------------------------------------
    /// Gathers the pending nodes of the root's shape into one program and runs it.
    struct Builder {
        Program p;
        std::vector<IT> leaves;
        // The fused nodes in instruction order (a node's inputs come before it), and how many
        // operand slots of the program's nodes refer to each. Programs are short (at most
        // detail::max_program_ops): linear searches beat hashing.
        std::vector<LazyPtr> fused;
        std::vector<std::size_t> refs;

        static constexpr std::uint32_t kLeaf = 0x80000000u;

        std::uint32_t operand(const Tensor& x) {
            Lazy<KS>* l = x.buffer.get();
            if (fusable_in_place(x)) {
                std::uint32_t r = 0;
                while (r < fused.size() && fused[r].get() != l) ++r;
                if (r == fused.size()) r = visit(x.buffer);
                ++refs[r];
                return r;
            }
            compute(x.buffer);
            for (std::size_t k = 0; k < leaves.size(); ++k) {
                const IT& o = leaves[k];
                if (o.buffer == x.buffer->value->buffer && o.offset == x.offset &&
                    o.shape == x.shape && o.strides == x.strides && o.dtype == x.dtype)
                    return kLeaf | static_cast<std::uint32_t>(k);
            }
            leaves.push_back(inner_view(x));
            p.inputs.push_back(x.dtype);
            return kLeaf | static_cast<std::uint32_t>(leaves.size() - 1);
        }
        /// A pending element-wise operand joins the program when it is the whole of its
        /// buffer, of the program's shape (a broadcast, reshape or other view of it, and a
        /// pending reduction, are computed first).
        bool fusable_in_place(const Tensor& x) const { return pending_whole(x, p.shape); }
        std::uint32_t visit(const LazyPtr& l) {
            Instr ins = l->node->instr;
            const auto& inputs = l->node->inputs;
            for (std::size_t j = 0; j < inputs.size(); ++j) ins.args[j] = operand(inputs[j]);
            p.instrs.push_back(ins);
            fused.push_back(l);
            refs.push_back(0);
            return static_cast<std::uint32_t>(p.instrs.size() - 1);
        }
        /// Gathers the program computing `root` (of `shape`). Its outputs: the root first, then
        /// each fused tensor referenced from outside the program (handles, nodes not in it): its
        /// count beyond this program's references (`fused` holds one; `root_refs` more hold the
        /// root). Returns the tensors the outputs are, in order.
        std::vector<LazyPtr> gather(const LazyPtr& root, const Shape& shape,
                                    std::size_t root_refs) {
            p.shape = shape;
            visit(root);
            // Registers: inputs first, then the instructions in order.
            const auto n_in = static_cast<std::uint32_t>(leaves.size());
            const auto reg = [&](std::uint32_t c) { return c & kLeaf ? c & ~kLeaf : n_in + c; };
            for (auto& ins : p.instrs)
                for (std::size_t j = 0; j < arity(ins.kind); ++j) ins.args[j] = reg(ins.args[j]);
            std::vector<LazyPtr> outs{root};
            p.outputs.push_back(n_in + static_cast<std::uint32_t>(fused.size() - 1));
            for (std::size_t k = 0; k < fused.size(); ++k) {
                const auto& l = fused[k];
                // `fused` holds each once, `outs` the root once more.
                const std::size_t held = 1 + refs[k] + (l == root ? 1 + root_refs : 0);
                if (static_cast<std::size_t>(l.use_count()) > held && (l != root || root_refs)) {
                    p.outputs.push_back(n_in + static_cast<std::uint32_t>(k));
                    outs.push_back(l);
                }
            }
            return outs;
        }
    };

    /// Whether x is the whole of a pending element-wise result of shape s.
    static bool pending_whole(const Tensor& x, const Shape& s) {
        const Lazy<KS>& l = *x.buffer;
        return !l.value && l.node && l.node->elementwise() && x.shape == s && l.node->shape == s &&
               x.offset == 0 && x.is_contiguous();
    }

    /// Whether x is the whole of a pending element-wise result, in its own shape or reshaped.
    static bool whole_of_pending(const Tensor& x) {
        const Lazy<KS>& l = *x.buffer;
        return !l.value && l.node && l.node->elementwise() && x.offset == 0 && x.is_contiguous() &&
               x.shape.num_elements() == l.node->shape.num_elements();
    }

    /// Stores results [first, ...) into the pending tensors outs[first, ...).
    static void store(const std::vector<LazyPtr>& outs, std::vector<IT>& results,
                      std::size_t first) {
        for (std::size_t k = first; k < outs.size(); ++k) {
            outs[k]->value = std::move(results[k]);
            outs[k]->node.reset();
        }
    }

    /// Computes a pending buffer (nothing when it has its value).
    static void compute(const LazyPtr& l) {
        std::lock_guard<std::recursive_mutex> guard(detail::graph_mutex());
        if (l->value) return;
        if (!l->node->elementwise()) {  // recorded only for kernel sets that reduce
            if constexpr (ReducingFusionKernelSet<KS>) compute_reduction(l);
            return;
        }
        Builder b;
        const auto outs = b.gather(l, l->node->shape, 0);
        detail::note_program(b.p);
        auto results = KS::fused_elementwise(b.p, b.leaves);
        store(outs, results, 0);
    }

    /// Computes a pending reduction: one program computing its input and reducing it (the input
    /// is written as well when something else holds it).
    static void compute_reduction(const LazyPtr& l) requires ReducingFusionKernelSet<KS> {
        const Reduction red = l->node->reduction;
        const Tensor& x = l->node->inputs[0];
        IT result;
        if (whole_of_pending(x)) {
            Builder b;
            b.p.reduction = red;
            // The node's input holds the root once more.
            const auto outs = b.gather(x.buffer, x.buffer->node->shape, 1);
            detail::note_program(b.p);
            auto results = KS::fused_reduce(b.p, b.leaves);
            store(outs, results, 1);
            result = std::move(results[0]);
        } else {  // computed meanwhile (read, or the input of another program)
            detail::note_unfused();
            result = run_reduction(red, inner_view(x));
        }
        l->value = std::move(result);
        l->node.reset();
    }

    /// The reduction `red` of an inner tensor, by the inner set's kernel.
    static IT run_reduction(const Reduction& red, IT x) {
        switch (red.kind) {
            case Reduction::Kind::All: return KS::reduce_all(red.op, std::move(x));
            case Reduction::Kind::Dim: return KS::reduce_dim(red.op, std::move(x), red.dim);
            case Reduction::Kind::Softmax: return KS::softmax(std::move(x), red.dim, false);
            case Reduction::Kind::LogSoftmax: return KS::softmax(std::move(x), red.dim, true);
            case Reduction::Kind::None: break;
        }
        return x;
    }

    /// The inner tensor `r` (a computed buffer) seen through t's layout, dtype and quantization.
    static IT viewed_as(IT r, const Tensor& t) {
        static_cast<backend::StridedLayout&>(r) = static_cast<const backend::StridedLayout&>(t);
        r.dtype = t.dtype;
        r.qinfo = t.qinfo;
        return r;
    }
    /// The inner tensor viewed as `t` (computing it first).
    static IT inner_view(const Tensor& t) {
        compute(t.buffer);
        return viewed_as(*t.buffer->value, t);
    }
    /// As inner_view, moving the inner buffer out when `t` is its only handle (so that the inner
    /// kernel may work in place).
    static IT take(Tensor&& t) {
        compute(t.buffer);
        if (t.buffer.use_count() != 1) return inner_view(t);
        IT r = viewed_as(std::move(*t.buffer->value), t);
        t.buffer.reset();
        return r;
    }

public:
    // ---- the adapter's arguments and results, between fusion and inner tensors ---------------
    static IT unwrap(const Tensor& t) { return inner_view(t); }
    static IT unwrap(Tensor& t) { return inner_view(t); }
    static IT unwrap(Tensor&& t) { return take(std::move(t)); }
    static std::optional<IT> unwrap(const OptT& t) {
        if (!t) return std::nullopt;
        return inner_view(*t);
    }
    static std::optional<IT> unwrap(OptT&& t) {
        if (!t) return std::nullopt;
        return take(std::move(*t));
    }
    static std::vector<IT> unwrap(std::vector<Tensor> ts) {
        std::vector<IT> r;
        r.reserve(ts.size());
        for (auto& t : ts) r.push_back(take(std::move(t)));
        return r;
    }
    template <class X>
    requires(
        !std::is_same_v<std::remove_cvref_t<X>, Tensor> &&
        !std::is_same_v<std::remove_cvref_t<X>, OptT> &&
        !std::is_same_v<std::remove_cvref_t<X>, std::vector<Tensor>>) static X&& unwrap(X&& x) {
        return std::forward<X>(x);
    }

    static Tensor wrap(IT r) {
        Tensor t;
        static_cast<backend::StridedLayout&>(t) = static_cast<const backend::StridedLayout&>(r);
        t.dtype = r.dtype;
        t.device = r.device;
        t.qinfo = r.qinfo;
        t.buffer = std::make_shared<Lazy<KS>>();
        t.buffer->value = std::move(r);
        return t;
    }
    static std::pair<Tensor, Tensor> wrap(std::pair<IT, IT> r) {
        return {wrap(std::move(r.first)), wrap(std::move(r.second))};
    }
    static std::optional<Tensor> wrap(std::optional<IT> r) {
        if (!r) return std::nullopt;
        return wrap(std::move(*r));
    }
    static DeformConv2dBackward<Tensor> wrap(DeformConv2dBackward<IT> r) {
        return {wrap(std::move(r.x_grad)), wrap(std::move(r.offset_grad)),
                wrap(std::move(r.weight_grad)), wrap(std::move(r.mask_grad)),
                wrap(std::move(r.bias_grad))};
    }
    static TensorData wrap(TensorData d) { return d; }

    /// The inner set's one-pass Adam step, where it has one (backend::FusedAdamKernel): already
    /// a single pass over memory, so nothing is left to fuse.
    static backend::AdamStepResult<Tensor> adam_step(
        Tensor param, Tensor grad, Tensor* moment_1, Tensor* moment_2,
        const backend::AdamHyper& h) requires backend::FusedAdamKernel<KS> {
        std::optional<IT> m1, m2;
        if (moment_1) m1 = take(std::move(*moment_1));
        if (moment_2) m2 = take(std::move(*moment_2));
        auto r = KS::adam_step(take(std::move(param)), take(std::move(grad)), m1 ? &*m1 : nullptr,
                               m2 ? &*m2 : nullptr, h);
        return {wrap(std::move(r.param)), wrap(std::move(r.moment_1)), wrap(std::move(r.moment_2))};
    }

    /// The inner set's fused layer norm, where it has one (backend::FusedLayerNormKernel): its
    /// operands are computed first; the kernels run as they are (reductions are not fused).
    static Tensor layer_norm(Tensor x, Tensor gamma, std::optional<Tensor> beta,
                             double epsilon) requires backend::FusedLayerNormKernel<KS> {
        detail::note_unfused();
        std::optional<IT> b;
        if (beta) b = take(std::move(*beta));
        return wrap(
            KS::layer_norm(take(std::move(x)), take(std::move(gamma)), std::move(b), epsilon));
    }
    static backend::LayerNormBackward<Tensor> layer_norm_backward(
        Tensor x, Tensor gamma, Tensor grad, double epsilon,
        bool with_beta) requires backend::FusedLayerNormKernel<KS> {
        detail::note_unfused();
        auto r = KS::layer_norm_backward(take(std::move(x)), take(std::move(gamma)),
                                         take(std::move(grad)), epsilon, with_beta);
        std::optional<Tensor> bg;
        if (r.beta_grad) bg = wrap(std::move(*r.beta_grad));
        return {wrap(std::move(r.x_grad)), wrap(std::move(r.gamma_grad)), std::move(bg)};
    }

    // ---- every kernel runs on the inner set, its tensors computed first ----------------------
#define BURN_DETAIL_FUSION_FORWARD(RET, NAME, PARAMS)             \
    template <class... A>                                         \
    static RET NAME(A&&... a) {                                   \
        detail::note_unfused();                                   \
        if constexpr (std::is_void_v<RET>) {                      \
            KS::NAME(unwrap(std::forward<A>(a))...);              \
        } else {                                                  \
            return wrap(KS::NAME(unwrap(std::forward<A>(a))...)); \
        }                                                         \
    }
    BURN_KERNELS(BURN_DETAIL_FUSION_FORWARD)
#undef BURN_DETAIL_FUSION_FORWARD
};

/// The kernel set of Fusion<B>: Kernels<KS> with the element-wise kernels recorded.
template <FusionKernelSet KS>
struct RecordingKernels : Kernels<KS> {
    using Base = Kernels<KS>;
    using typename Base::Tensor;
    using T = Tensor;
    using UnaryOp = backend::UnaryOp;
    using BinaryOp = backend::BinaryOp;
    using CmpOp = backend::CmpOp;
    using Activation = backend::Activation;
    using ScalarArg = backend::ScalarArg;

    static T unary(UnaryOp op, T t) {
        if (!fusable_float(t.dtype) || op == UnaryOp::Not) return Base::unary(op, std::move(t));
        return record({.kind = OpKind::Unary, .op = code(op), .dtype = t.dtype}, t.shape,
                      {std::move(t)});
    }
    static T binary(BinaryOp op, T lhs, T rhs) {
        if (!fusable_float(lhs.dtype) || rhs.dtype != lhs.dtype || op == BinaryOp::And ||
            op == BinaryOp::Or || lhs.device != rhs.device)
            return Base::binary(op, std::move(lhs), std::move(rhs));
        const Shape s = broadcast_shapes(lhs.shape, rhs.shape, "fusion");
        return record({.kind = OpKind::Binary, .op = code(op), .dtype = lhs.dtype}, s,
                      {std::move(lhs), std::move(rhs)});
    }
    static T binary_scalar(BinaryOp op, T lhs, ScalarArg rhs) {
        if (!fusable_float(lhs.dtype) || op == BinaryOp::And || op == BinaryOp::Or)
            return Base::binary_scalar(op, std::move(lhs), rhs);
        return record(
            {.kind = OpKind::BinaryScalar, .op = code(op), .dtype = lhs.dtype, .scalar = rhs},
            lhs.shape, {std::move(lhs)});
    }
    static T compare(CmpOp op, T lhs, T rhs) {
        if (!fusable_float(lhs.dtype) || rhs.dtype != lhs.dtype || lhs.device != rhs.device)
            return Base::compare(op, std::move(lhs), std::move(rhs));
        const Shape s = broadcast_shapes(lhs.shape, rhs.shape, "fusion");
        return record({.kind = OpKind::Compare, .op = code(op), .dtype = DType::Bool}, s,
                      {std::move(lhs), std::move(rhs)});
    }
    static T compare_scalar(CmpOp op, T lhs, ScalarArg rhs) {
        if (!fusable_float(lhs.dtype)) return Base::compare_scalar(op, std::move(lhs), rhs);
        return record(
            {.kind = OpKind::CompareScalar, .op = code(op), .dtype = DType::Bool, .scalar = rhs},
            lhs.shape, {std::move(lhs)});
    }
    static T clamp(T t, std::optional<ScalarArg> lo, std::optional<ScalarArg> hi) {
        if (!fusable_float(t.dtype) || (!lo && !hi)) return Base::clamp(std::move(t), lo, hi);
        Instr i{.kind = OpKind::Clamp, .dtype = t.dtype};
        if (lo) i.scalar = *lo, i.has_lo = true;
        if (hi) i.scalar2 = *hi, i.has_hi = true;
        return record(i, t.shape, {std::move(t)});
    }
    static T mask_where(T t, T mask, T value) {
        if (!fusable_float(t.dtype) || value.dtype != t.dtype || mask.dtype != DType::Bool ||
            mask.device != t.device || value.device != t.device)
            return Base::mask_where(std::move(t), std::move(mask), std::move(value));
        return record({.kind = OpKind::Where, .dtype = t.dtype}, t.shape,
                      {std::move(t), std::move(mask), std::move(value)});
    }
    static T mask_fill(T t, T mask, ScalarArg value) {
        if (!fusable_float(t.dtype) || mask.dtype != DType::Bool || mask.device != t.device)
            return Base::mask_fill(std::move(t), std::move(mask), value);
        return record({.kind = OpKind::Fill, .dtype = t.dtype, .scalar = value}, t.shape,
                      {std::move(t), std::move(mask)});
    }
    static T activation(Activation op, T x, double alpha, double beta) {
        if (!fusable_float(x.dtype)) return Base::activation(op, std::move(x), alpha, beta);
        return record({.kind = OpKind::Activation,
                       .op = code(op),
                       .dtype = x.dtype,
                       .alpha = alpha,
                       .beta = beta},
                      x.shape, {std::move(x)});
    }
    static T activation_backward(Activation op, T saved, T grad) {
        if (!fusable_float(saved.dtype) || grad.dtype != saved.dtype || saved.device != grad.device)
            return Base::activation_backward(op, std::move(saved), std::move(grad));
        const Shape s = broadcast_shapes(saved.shape, grad.shape, "fusion");
        return record({.kind = OpKind::ActivationBackward, .op = code(op), .dtype = grad.dtype}, s,
                      {std::move(saved), std::move(grad)});
    }

    // Reductions (and softmax) of a pending element-wise result are recorded too: computing one
    // runs a single program that computes the input and reduces it (the inner set's
    // fused_reduce), so the input never reaches memory unless something else holds it.
    static T reduce_all(backend::ReduceOp op, T t) {
        if (auto r = record_reduction({Reduction::Kind::All, op, 0}, Shape{1}, t)) return *r;
        return Base::reduce_all(op, std::move(t));
    }
    static T reduce_dim(backend::ReduceOp op, T t, std::size_t dim) {
        if (dim < t.shape.rank()) {
            Shape s = t.shape;
            s[dim] = 1;
            const Reduction red{Reduction::Kind::Dim, op, static_cast<std::uint32_t>(dim)};
            if (auto r = record_reduction(red, s, t)) return *r;
        }
        return Base::reduce_dim(op, std::move(t), dim);
    }
    static T softmax(T x, std::size_t dim, bool log) {
        if (dim < x.shape.rank()) {
            const Reduction red{log ? Reduction::Kind::LogSoftmax : Reduction::Kind::Softmax,
                                backend::ReduceOp::Sum, static_cast<std::uint32_t>(dim)};
            if (auto r = record_reduction(red, x.shape, x)) return *r;
        }
        return Base::softmax(std::move(x), dim, log);
    }

private:
    static bool fusable_float(DType d) { return d == DType::F32 || d == DType::F64; }
    template <class E>
    static std::uint8_t code(E e) {
        return static_cast<std::uint8_t>(e);
    }
    /// The chain length an operand brings into a program of shape `s`.
    static std::size_t chain(const T& x, const Shape& s) {
        const auto& l = *x.buffer;
        if (l.value || !l.node || !l.node->elementwise() || x.shape != s || l.node->shape != s ||
            x.offset != 0 || !x.is_contiguous())
            return 0;
        return l.node->size;
    }
    /// Records the reduction `red` of x (of result shape `shape`) when x is a pending
    /// element-wise result and the inner set runs fused reductions; nullopt otherwise. The
    /// reduction's dim is one of the pending result's: x is that result, or (reduce_all, or
    /// along the one dim of a flattened view) a reshape of it.
    static std::optional<T> record_reduction(Reduction red, const Shape& shape, const T& x) {
        if constexpr (!ReducingFusionKernelSet<KS>) {
            return std::nullopt;
        } else {
            std::lock_guard<std::recursive_mutex> guard(detail::graph_mutex());
            const auto& l = *x.buffer;
            if (!fusable_float(x.dtype) || !Base::whole_of_pending(x) ||
                x.shape.num_elements() == 0)
                return std::nullopt;
            if (x.shape != l.node->shape) {
                if (red.kind == Reduction::Kind::Dim && x.shape.rank() == 1)
                    red.kind = Reduction::Kind::All;  // along the only dim of a flat view
                else if (red.kind != Reduction::Kind::All) return std::nullopt;
            }
            T out;
            out.shape = shape;
            out.strides = backend::contiguous_strides(shape);
            out.offset = 0;
            out.dtype = x.dtype;
            out.device = x.device;
            out.buffer = std::make_shared<Lazy<KS>>();
            Node<KS> node{.instr = {}, .inputs = {x}, .shape = shape, .size = 1, .reduction = red};
            out.buffer->node = std::make_unique<Node<KS>>(std::move(node));
            return out;
        }
    }
    static T record(Instr ins, const Shape& shape, std::vector<T> inputs) {
        std::lock_guard<std::recursive_mutex> guard(detail::graph_mutex());
        std::size_t size = 1;
        for (const auto& x : inputs) size += chain(x, shape);
        if (size > detail::max_program_ops) {
            for (const auto& x : inputs) (void)Base::unwrap(x);  // computes pending inputs
            size = 1;
        }
        for (std::size_t j = 0; j < inputs.size(); ++j) ins.args[j] = static_cast<std::uint32_t>(j);
        T out;
        out.shape = shape;
        out.strides = backend::contiguous_strides(shape);
        out.offset = 0;
        out.dtype = ins.dtype;
        out.device = inputs[0].device;
        out.buffer = std::make_shared<Lazy<KS>>();
        out.buffer->node =
            std::make_unique<Node<KS>>(Node<KS>{ins, std::move(inputs), shape, size, {}});
        return out;
    }
};

/// Whether the backend B can be wrapped by Fusion: a backend of the kit whose kernel set has a
/// fusion part.
template <class B>
concept FusionBackend = requires {
    typename B::Kernels;
}
&&FusionKernelSet<typename B::Kernels>;

}  // namespace burn::fusion

namespace burn {

/// The kernel-fusion decorator over a backend of the kit (Cpu<F, I>, Cuda<F, I>, Vulkan<>).
template <fusion::FusionBackend B>
struct Fusion : backend::KernelBackend<fusion::RecordingKernels<typename B::Kernels>,
                                       typename B::FloatElem, typename B::IntElem> {
    using Inner = B;
    using FullPrecisionBackend = Fusion<typename B::FullPrecisionBackend>;
    /// B's, except that tensors are lazy: not host-resident values until read.
    static constexpr BackendCapabilities capabilities = [] {
        BackendCapabilities c = burn::capabilities<B>;
        c.host_memory = false;
        return c;
    }();
    static std::string name() { return "fusion<" + B::name() + ">"; }
};

}  // namespace burn

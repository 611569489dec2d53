// SPDX-License-Identifier: MIT OR Apache-2.0
// Custom differentiable ops on Autodiff<B, C>: an op that computes its forward value itself (a
// fused kernel, a whole recurrent sequence) and brings its own backward function records one
// graph node with autodiff::custom_op. docs/backend-extension.md walks through an example.
//
//   using P = typename B::FloatTensor;                 // the inner backend's primitive
//   autodiff::OpInputs<B> in{lhs, rhs, bias};           // the op's inputs, in a fixed order
//   std::optional<autodiff::Saved<P>> kept_rhs;         // only what backward will read
//   if (in.tracked()[0]) kept_rhs = autodiff::save<C>(rhs);
//   P out = my_kernel(lhs.primitive, rhs.primitive, bias.primitive);
//   return autodiff::custom_op("my_op", std::move(in), out,
//       [kept_rhs](P grad, const autodiff::Tracked& tracked) {
//           std::vector<std::optional<P>> d(3);         // one per input
//           if (tracked[0]) d[0] = ...;                 // of shape tracked.shape(0)
//           return d;                                   // nullopt: no gradient
//       });
//
// custom_op records nothing when no input is tracked. Otherwise it keeps the parents and the
// shapes of the tracked inputs, and during backward() it calls the function with the output's
// gradient and adds each returned gradient to its input's, after checking its shape (burn::Error
// naming the op otherwise). An op with several outputs passes them as a vector and receives one
// gradient per output. Custom ops are compute-bound: their outputs are kept, never recomputed.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/autodiff/autodiff.hpp"
#include "burn/autodiff/graph.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape.hpp"

namespace burn::autodiff {

/// The tracked inputs of a custom op: which inputs need a gradient (false for an absent optional
/// input and for a tensor that no gradient flows through), and the shapes of those. The forward
/// pass reads it to keep only the state the needed gradients read; the backward function, to
/// skip the gradients nobody needs and to reduce a gradient to its input's shape.
class Tracked {
public:
    Tracked() = default;
    /// One flag per input, and a shape per input (read for the tracked ones only).
    Tracked(std::vector<bool> flags, std::vector<Shape> shapes)
        : flags_(std::move(flags)), shapes_(std::move(shapes)) {
        BURN_CHECK(flags_.size() == shapes_.size(), "autodiff::Tracked: ", flags_.size(),
                   " flags for ", shapes_.size(), " shapes");
    }

    /// Whether input `i` needs a gradient.
    bool operator[](std::size_t i) const {
        check(i);
        return flags_[i];
    }
    /// The shape of input `i`, which must be tracked (the gradient returned for it must have it).
    const Shape& shape(std::size_t i) const {
        BURN_CHECK((*this)[i], "autodiff::Tracked: input ", i,
                   " is not tracked: only the shapes of tracked inputs are kept");
        return shapes_[i];
    }
    /// Every input's shape (empty for the untracked ones).
    const std::vector<Shape>& shapes() const { return shapes_; }
    std::size_t size() const { return flags_.size(); }
    /// Whether any input needs a gradient (custom_op records a node only then).
    bool any() const { return std::find(flags_.begin(), flags_.end(), true) != flags_.end(); }

private:
    void check(std::size_t i) const {
        BURN_CHECK(i < flags_.size(), "autodiff::Tracked: input ", i, " of an op with ",
                   flags_.size(), " inputs");
    }
    std::vector<bool> flags_;
    std::vector<Shape> shapes_;
};

/// A float tensor of Autodiff<B, C> for any C: its primitive AutodiffTensor<B>, or a
/// burn::Tensor over it.
template <class T, class B>
concept AutodiffTensorOf = std::same_as<T, AutodiffTensor<B>> || requires(const T& t) {
    { t.primitive() } -> std::same_as<const AutodiffTensor<B>&>;
};

/// The inputs of a custom op, in the order its backward function returns their gradients. Each
/// one is a float tensor of Autodiff<B, C> (the primitive or a burn::Tensor, any rank), an
/// std::optional of one, or std::nullopt (an absent optional input, never tracked):
///
///   autodiff::OpInputs<IB> in{x, weight, bias};  // bias: std::optional<Tensor<AD, 1>>
///
/// It keeps each tracked input's node and shape, not its value: what the backward function
/// reads, the op keeps itself (autodiff::save<C>).
template <class B>
class OpInputs {
public:
    /// One input (implicitly converted from the forms above).
    class Input {
    public:
        Input(std::nullopt_t) {}
        template <AutodiffTensorOf<B> T>
        Input(const T& t) : Input(primitive_of(t)) {}
        template <AutodiffTensorOf<B> T>
        Input(const std::optional<T>& t) {
            if (t) *this = Input(primitive_of(*t));
        }

    private:
        friend class OpInputs;
        explicit Input(const AutodiffTensor<B>& t) : node_(t.node) {
            if (node_) shape_ = B::float_shape(t.primitive);
        }
        template <class T>
        static const AutodiffTensor<B>& primitive_of(const T& t) {
            if constexpr (std::same_as<T, AutodiffTensor<B>>) return t;
            else return t.primitive();
        }
        NodeRef<B> node_;  ///< null when the input is absent or not tracked
        Shape shape_;      ///< of a tracked input
    };

    OpInputs(std::initializer_list<Input> inputs) {
        nodes_.reserve(inputs.size());
        std::vector<bool> flags;
        std::vector<Shape> shapes;
        flags.reserve(inputs.size());
        shapes.reserve(inputs.size());
        for (const Input& in : inputs) {
            nodes_.push_back(in.node_);
            flags.push_back(in.node_ != nullptr);
            shapes.push_back(in.shape_);
        }
        tracked_ = Tracked(std::move(flags), std::move(shapes));
    }

    std::size_t size() const { return nodes_.size(); }
    /// Which inputs need a gradient, and their shapes: known before the forward pass runs, so
    /// that it keeps only the state their gradients need (and none at all when
    /// `!tracked().any()`).
    const Tracked& tracked() const { return tracked_; }

private:
    template <class B2, class F>
    friend std::vector<AutodiffTensor<B2>> custom_op(std::string, OpInputs<B2>,
                                                     std::vector<typename B2::FloatTensor>, F);
    std::vector<NodeRef<B>> nodes_;
    Tracked tracked_;
};

namespace detail {

/// The gradients of a multi-output op's outputs, gathered by their relay steps for the op's step.
template <class B>
struct OutputGrads {
    std::string op;
    std::vector<Shape> shapes;
    std::vector<typename B::Device> devices;
    std::vector<std::optional<typename B::FloatTensor>> grads;
};

/// The step of a custom op's node: calls the backward function with one gradient per output
/// (zeros for an output no gradient reached), then adds the inputs' gradients.
template <class B, class F>
struct CustomOpStep final : Step<B> {
    using P = typename B::FloatTensor;
    std::shared_ptr<OutputGrads<B>> outputs;  ///< gradients of the outputs (several outputs only)
    std::string op;
    Tracked tracked;
    F fn;

    CustomOpStep(std::shared_ptr<OutputGrads<B>> o, std::string name, Tracked t, F f)
        : outputs(std::move(o)), op(std::move(name)), tracked(std::move(t)), fn(std::move(f)) {}

    void backward(const std::vector<NodeRef<B>>& parents, P grad, Gradients<B>& grads) override {
        std::vector<P> out_grads;
        if (!outputs) {
            out_grads.push_back(std::move(grad));
        } else {  // `grad` only signals that some output got a gradient
            const std::size_t n = outputs->grads.size();
            out_grads.reserve(n);
            for (std::size_t i = 0; i < n; ++i) {
                auto& g = outputs->grads[i];
                out_grads.push_back(g ? std::move(*g)
                                      : B::float_zeros(outputs->shapes[i], outputs->devices[i]));
                g.reset();
            }
        }
        std::vector<std::optional<P>> d = fn(std::move(out_grads), tracked);
        BURN_CHECK(d.size() == parents.size(), "autodiff: the backward function of ", op,
                   " returned ", d.size(), " gradients for its ", parents.size(),
                   " inputs (one std::optional per input, nullopt for no gradient)");
        accumulate_inputs(grads, parents, std::move(d), tracked.shapes(), op.c_str());
    }
    const char* name() const override { return op.c_str(); }
};

/// The node of one output of a multi-output op: hands its gradient to the op's node (its parent,
/// processed after every output since its id is smaller).
template <class B>
struct RelayStep final : Step<B> {
    std::shared_ptr<OutputGrads<B>> outputs;
    std::size_t index;

    RelayStep(std::shared_ptr<OutputGrads<B>> o, std::size_t i) : outputs(std::move(o)), index(i) {}

    void backward(const std::vector<NodeRef<B>>& parents, typename B::FloatTensor grad,
                  Gradients<B>& grads) override {
        const NodeId op_node = parents[0]->id;
        // The op's node runs when it has a gradient; any tensor marks it (this one is not read).
        if (!grads.contains(op_node)) grads.replace(op_node, grad);
        outputs->grads[index] = std::move(grad);
    }
    const char* name() const override { return outputs->op.c_str(); }
};

}  // namespace detail

/// Records a custom op with several outputs and returns them, in order: one node for the op, and
/// one per output that hands its gradient to it (the outputs can be used or dropped separately).
/// `inputs` are the op's inputs, `outputs` the forward values it computed on the inner backend B.
/// `backward` is called at most once, during backward(), as
///
///   std::vector<std::optional<P>> backward(std::vector<P> output_grads, const Tracked& tracked)
///
/// with one gradient per output (zeros of its shape for an output that no gradient reached) and
/// the tracked inputs (which need a gradient, and their shapes); it returns one optional gradient
/// per input, of that input's shape (nullopt: no contribution). A gradient is added to the
/// input's, so an input passed twice receives the sum of both. A returned gradient of another
/// shape, or a vector of another size, throws burn::Error naming `name`.
///
/// When no input is tracked, nothing is recorded: the outputs are untracked and `backward` is
/// dropped unused. The op is compute-bound: under BalancedCheckpointing its outputs are kept (the
/// nodes get no recipe), and an input the backward function reads is kept with save<C>(input),
/// recomputed during backward when it is the output of a memory-bound op.
template <class B, class F>
std::vector<AutodiffTensor<B>> custom_op(std::string name, OpInputs<B> inputs,
                                         std::vector<typename B::FloatTensor> outputs, F backward) {
    using P = typename B::FloatTensor;
    static_assert(
        std::is_invocable_r_v<std::vector<std::optional<P>>, F&, std::vector<P>, const Tracked&>,
        "custom_op: the backward function of a multi-output op is called as "
        "backward(std::vector<P> output_grads, const Tracked& tracked) and returns "
        "std::vector<std::optional<P>>, one gradient per input");
    BURN_CHECK(!outputs.empty(), "custom_op: ", name, " has no output");
    std::vector<AutodiffTensor<B>> result;
    result.reserve(outputs.size());
    if (!inputs.tracked().any()) {
        for (P& o : outputs) result.push_back(AutodiffTensor<B>{std::move(o), nullptr});
        return result;
    }
    std::shared_ptr<detail::OutputGrads<B>> grads;
    if (outputs.size() > 1) {
        grads = std::make_shared<detail::OutputGrads<B>>();
        grads->op = name;
        for (const P& o : outputs) {
            grads->shapes.push_back(B::float_shape(o));
            grads->devices.push_back(B::float_device(o));
        }
        grads->grads.resize(outputs.size());
    }
    // The op's node: its id is newer than its inputs' (one counter), and older than its
    // outputs' relay nodes, which backward() therefore processes first.
    auto node = std::make_shared<Node<B>>();
    if (!grads) node->dtype = B::float_dtype(outputs[0]);
    node->parents = std::move(inputs.nodes_);
    node->step = std::make_unique<detail::CustomOpStep<B, F>>(
        grads, name, std::move(inputs.tracked_), std::move(backward));
    if (!grads) {
        result.push_back(AutodiffTensor<B>{std::move(outputs[0]), std::move(node)});
        return result;
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        auto relay = std::make_shared<Node<B>>();
        relay->dtype = B::float_dtype(outputs[i]);
        relay->parents.push_back(node);
        relay->step = std::make_unique<detail::RelayStep<B>>(grads, i);
        result.push_back(AutodiffTensor<B>{std::move(outputs[i]), std::move(relay)});
    }
    return result;
}

/// Records a custom op with one output and returns it. As the multi-output form, with `backward`
/// called as
///
///   std::vector<std::optional<P>> backward(P output_grad, const Tracked& tracked)
template <class B, class F>
AutodiffTensor<B> custom_op(std::string name, OpInputs<B> inputs, typename B::FloatTensor output,
                            F backward) {
    using P = typename B::FloatTensor;
    static_assert(std::is_invocable_r_v<std::vector<std::optional<P>>, F&, P, const Tracked&>,
                  "custom_op: the backward function is called as backward(P output_grad, const "
                  "Tracked& tracked) and returns std::vector<std::optional<P>>, one gradient per "
                  "input");
    std::vector<P> outputs;
    outputs.push_back(std::move(output));
    auto r = custom_op(std::move(name), std::move(inputs), std::move(outputs),
                       [f = std::move(backward)](std::vector<P> g, const Tracked& tracked) mutable {
                           return f(std::move(g[0]), tracked);
                       });
    return std::move(r[0]);
}

}  // namespace burn::autodiff

// SPDX-License-Identifier: MIT OR Apache-2.0
// The autodiff graph: nodes owned by the tensors that need gradients, the backward steps that
// ops record, the tensors a step keeps (stored, or recomputed under checkpointing), and the
// Gradients container that backward() returns.
//
// There is no global tape. A tracked tensor holds a reference to its node; a node holds its
// parents and its backward step. Dropping the last tensor of a graph frees the graph (nodes,
// steps and the tensors they kept), and backward() frees every node it walks through.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "burn/tensor/dtype.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape.hpp"

namespace burn::autodiff {

/// Identifies a node. Ids grow monotonically (one atomic counter), so a node always has a larger
/// id than its parents: sorting by id is a topological order.
using NodeId = std::uint64_t;

inline NodeId next_node_id() {
    static std::atomic<NodeId> counter{1};
    return counter.fetch_add(1, std::memory_order_relaxed);
}

namespace detail {
inline std::atomic<std::int64_t>& live_node_counter() {
    static std::atomic<std::int64_t> count{0};
    return count;
}
}  // namespace detail

/// The number of graph nodes alive now, over all threads: a leak check for training loops
/// (it returns to its earlier value once the tensors of a step are gone).
inline std::int64_t live_nodes() {
    return detail::live_node_counter().load(std::memory_order_relaxed);
}

/// Whether a node's gradient is wanted.
enum class Requirement : std::uint8_t {
    Grad,            ///< a leaf marked with require_grad(): its gradient is returned
    GradInBackward,  ///< an op output that depends on a leaf: its gradient flows to the parents
};

/// How an op's output is treated by a checkpointing strategy.
enum class ComputeProperty : std::uint8_t {
    ComputeBound,  ///< expensive to recompute (matmul, convolutions, reductions): kept
    MemoryBound,  ///< cheap to recompute (element-wise, shape ops): recomputed if the strategy says
                  ///< so
};

/// Checkpointing strategies (the `Checkpoint` parameter of Autodiff<B, Checkpoint>).
/// NoCheckpointing keeps every tensor a backward step needs.
struct NoCheckpointing {
    static constexpr bool recompute_memory_bound = false;
    static constexpr const char* name = "no-checkpointing";
};
/// BalancedCheckpointing keeps the outputs of compute-bound ops and recomputes memory-bound ops
/// (element-wise and shape ops) during backward from the nearest kept tensors.
struct BalancedCheckpointing {
    static constexpr bool recompute_memory_bound = true;
    static constexpr const char* name = "balanced-checkpointing";
};

/// A tensor kept for the backward pass: either stored, or a recipe that recomputes it from other
/// kept tensors (BalancedCheckpointing). A recomputed value is cached until the node that owns the
/// recipe has been processed by backward.
template <class P>
class Saved {
public:
    struct Recipe {
        std::vector<Saved> inputs;
        std::function<P(std::vector<P>)> forward;
        std::optional<P> cache;

        const P& get() {
            if (!cache) {
                std::vector<P> values;
                values.reserve(inputs.size());
                for (const auto& in : inputs) values.push_back(in.get());
                cache = forward(std::move(values));
            }
            return *cache;
        }
    };

    explicit Saved(P value) : v_(std::move(value)) {}
    explicit Saved(std::shared_ptr<Recipe> recipe) : v_(std::move(recipe)) {}

    P get() const {
        if (const auto* p = std::get_if<P>(&v_)) return *p;
        return std::get<std::shared_ptr<Recipe>>(v_)->get();
    }

private:
    std::variant<P, std::shared_ptr<Recipe>> v_;
};

template <class B>
class Gradients;
template <class B>
struct Node;
template <class B>
using NodeRef = std::shared_ptr<Node<B>>;

/// A backward step: receives the gradient of its node's output and registers the gradients of
/// the node's tracked parents.
template <class B>
struct Step {
    virtual ~Step() = default;
    virtual void backward(const std::vector<NodeRef<B>>& parents, typename B::FloatTensor grad,
                          Gradients<B>& grads) = 0;
    virtual const char* name() const = 0;
};

/// One vertex of the graph.
template <class B>
struct Node {
    using P = typename B::FloatTensor;

    NodeId id = next_node_id();
    Requirement requirement = Requirement::GradInBackward;
    std::vector<NodeRef<B>> parents;  ///< one per op input; null for inputs that are not tracked
    std::unique_ptr<Step<B>> step;    ///< null for leaves
    /// Under BalancedCheckpointing, how to recompute this node's output (memory-bound ops).
    std::shared_ptr<typename Saved<P>::Recipe> recipe;
    bool released = false;  ///< set by backward() once the step ran and its state was freed
    /// The float dtype of the node's tensor: gradients reaching it are converted to it (an f16
    /// input of an op that computed in f32 gets an f16 gradient). Unset: kept as they come.
    std::optional<DType> dtype;

    Node() { detail::live_node_counter().fetch_add(1, std::memory_order_relaxed); }
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    /// Frees long chains without recursion: parents whose only owner is this node are unlinked
    /// one by one (a graph of a million ops must not overflow the stack when dropped).
    ~Node() {
        detail::live_node_counter().fetch_sub(1, std::memory_order_relaxed);
        if (parents.empty()) return;
        std::vector<NodeRef<B>> stack = std::move(parents);
        while (!stack.empty()) {
            NodeRef<B> n = std::move(stack.back());
            stack.pop_back();
            if (n && n.use_count() == 1) {
                for (auto& p : n->parents) stack.push_back(std::move(p));
                n->parents.clear();
            }
        }
    }
};

/// The gradients computed by backward(), keyed by node. Read them with `tensor.grad(grads)`.
/// Only leaves marked with require_grad() keep a gradient once backward() returns.
template <class B>
class Gradients {
public:
    using P = typename B::FloatTensor;

    Gradients() = default;

    /// The gradient of node `id`, if one was computed.
    std::optional<P> get(NodeId id) const {
        auto it = grads_.find(id);
        if (it == grads_.end()) return std::nullopt;
        return it->second;
    }
    /// Removes and returns the gradient of node `id`.
    std::optional<P> remove(NodeId id) {
        auto it = grads_.find(id);
        if (it == grads_.end()) return std::nullopt;
        P g = std::move(it->second);
        grads_.erase(it);
        return g;
    }
    /// Sets (replacing) the gradient of node `id`.
    void replace(NodeId id, P grad) { grads_.insert_or_assign(id, std::move(grad)); }
    /// Adds `grad` to the gradient of node `id` (used by backward steps), converted to `dtype`
    /// when given.
    void accumulate(NodeId id, P grad, const Shape& expected, const char* op,
                    std::optional<DType> dtype = std::nullopt) {
        const Shape got = B::float_shape(grad);
        BURN_CHECK(got == expected, "autodiff: the backward step of ", op,
                   " produced a gradient of shape ", got, " for an input of shape ", expected);
        if (dtype && B::float_dtype(grad) != *dtype) grad = B::float_cast(std::move(grad), *dtype);
        auto it = grads_.find(id);
        if (it == grads_.end()) grads_.emplace(id, std::move(grad));
        else it->second = B::float_add(std::move(it->second), std::move(grad));
    }
    bool contains(NodeId id) const { return grads_.contains(id); }
    std::size_t size() const { return grads_.size(); }
    bool empty() const { return grads_.empty(); }
    /// Every (node id, gradient) pair, for code that re-keys gradients (optimizers).
    const std::unordered_map<NodeId, P>& items() const { return grads_; }

private:
    std::unordered_map<NodeId, P> grads_;
};

/// Told by backward() when the gradient of a leaf marked require_grad() is final: every step that
/// adds to it has run (the data-parallel Learner starts reducing those gradients while the rest of
/// the backward pass runs, as PyTorch DDP's autograd hooks do). Called on the thread running
/// backward(), at most once per leaf and pass, and only for leaves that received a gradient.
template <class B>
class LeafGradientHook {
public:
    virtual ~LeafGradientHook() = default;
    virtual void ready(NodeId leaf, const typename B::FloatTensor& grad) = 0;
};

namespace detail {
template <class B>
inline thread_local LeafGradientHook<B>* leaf_gradient_hook = nullptr;
}  // namespace detail

/// Installs `hook` for the backward passes of Autodiff<B> run on this thread while the scope
/// lives (nested scopes: the innermost wins).
template <class B>
class LeafGradientHookScope {
public:
    explicit LeafGradientHookScope(LeafGradientHook<B>* hook)
        : previous_(detail::leaf_gradient_hook<B>) {
        detail::leaf_gradient_hook<B> = hook;
    }
    ~LeafGradientHookScope() { detail::leaf_gradient_hook<B> = previous_; }
    LeafGradientHookScope(const LeafGradientHookScope&) = delete;
    LeafGradientHookScope& operator=(const LeafGradientHookScope&) = delete;

private:
    LeafGradientHook<B>* previous_;
};

/// Adds the input gradients a backward step computed: `input_grads[i]` to the gradient of
/// `parents[i]`, checked against `shapes[i]` (burn::Error naming `op` otherwise) and converted to
/// the parent's dtype. Inputs that are
/// not tracked (null parent) and gradients not given (nullopt) are skipped.
template <class B>
void accumulate_inputs(Gradients<B>& grads, const std::vector<NodeRef<B>>& parents,
                       std::vector<std::optional<typename B::FloatTensor>> input_grads,
                       const std::vector<Shape>& shapes, const char* op) {
    const std::size_t n = std::min(parents.size(), input_grads.size());
    for (std::size_t i = 0; i < n; ++i)
        if (parents[i] && input_grads[i])
            grads.accumulate(parents[i]->id, std::move(*input_grads[i]), shapes[i], op,
                             parents[i]->dtype);
}

}  // namespace burn::autodiff

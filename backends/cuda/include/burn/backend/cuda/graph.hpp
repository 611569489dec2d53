// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA graphs: the work of a step captured once and replayed with one launch, so that a step
// whose kernels are short costs one launch instead of hundreds (PyTorch's torch.cuda.CUDAGraph).
//
//   burn::CudaGraphStep step(device, [&](const Tensor<AD, 4>& x, const Tensor<AD, 1, Int>& y) {
//       auto loss = loss_fn.forward(model.forward(x), y);
//       model = optim.step(1e-4, model, GradientsParams<AD>::from_grads(loss.backward(), model));
//       return loss;
//   }, model, optim);                       // the state the step updates
//   for (auto& batch : loader) auto loss = step(batch.images, batch.targets);
//
// The first calls run the step as it is (warm-up: the optimizer creates its state, kernels are
// compiled, cuBLASLt and cuDNN choose their plans); the next one captures it into a graph and
// launches it; later calls copy their inputs into the graph's input blocks and launch the graph
// again. docs/backends-cuda.md ("CUDA graphs") says what a captured step may do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "burn/backend/cuda.hpp"
#include "burn/fusion/fusion.hpp"
#include "burn/module/module.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn {

namespace cuda {
struct GraphExec;
}

/// A captured CUDA graph of one device. `capture` runs `work`, which queues ops on `device` from
/// the calling thread as usual, but nothing runs: the ops are recorded. `replay` queues the
/// recorded work (returns at once, as an op does); each replay reads and writes the same device
/// blocks, so a graph is for work of fixed shapes whose inputs are copied into the blocks it
/// reads (CudaGraphStep does that). Random numbers drawn in the graph continue the backend's
/// stream at every replay, as if the ops ran again.
///
/// During the capture, reading a tensor (into_data, into_scalar), cuda_sync or moving a tensor to
/// another device throws burn::Error; data uploaded (from_data) is copied once and uploaded again
/// by every replay; memory comes from a pool of the graph's own, freed when the graph and the
/// tensors allocated during the capture are gone. Blocks of tensors made before the capture that
/// the graph reads must stay alive while it is replayed (keep the tensors).
class CudaGraph {
public:
    CudaGraph() = default;

    /// Captures what `work` queues on `device`. Throws burn::Error when `work` throws (the
    /// capture is dropped and the exception's message kept), when a capture is already running on
    /// the device, or when CUDA cannot instantiate the graph.
    static CudaGraph capture(const CudaDevice& device, const std::function<void()>& work);

    /// Queues one run of the graph on its device's stream. Throws burn::Error on an empty graph.
    void replay() const;

    bool empty() const noexcept { return !exec_; }
    /// The nodes of the graph (kernels and copies).
    std::size_t node_count() const;
    /// The kernels whose arguments change from one replay to the next (random numbers, Adam).
    std::size_t patched_node_count() const;
    /// Device memory reserved by the graph's private pool.
    std::size_t pool_bytes() const;
    /// Runs queued so far.
    std::int64_t launches() const;

private:
    explicit CudaGraph(std::shared_ptr<cuda::GraphExec> exec) : exec_(std::move(exec)) {}
    std::shared_ptr<cuda::GraphExec> exec_;
};

namespace cuda::graph_detail {

/// A dense copy of `t` in a new block (queued).
CudaTensor dense_copy(const CudaTensor& t);
/// Queues a copy of `src`'s values into `dst` (same shape and dtype, dst dense).
void copy_into(const CudaTensor& dst, const CudaTensor& src);
/// The address of the first element: two tensors with the same one (and shape) are the same
/// values.
const void* address(const CudaTensor& t);
/// Throws the error of a captured step whose state changed its set of tensors.
[[noreturn]] void fail_state(const std::string& what, const std::string& key);

template <class T>
inline constexpr bool is_tensor_v = false;
template <class B, std::size_t D, class K>
inline constexpr bool is_tensor_v<Tensor<B, D, K>> = true;

/// Fusion<Cuda<F, I>>'s primitive: a lazy tensor over a CudaTensor.
using FusedTensor = fusion::LazyTensor<Kernels>;

/// The CUDA tensor of a primitive of Cuda or Fusion<Cuda> (a pending fused tensor is computed:
/// inside a capture, its kernel is recorded).
inline CudaTensor as_cuda(const CudaTensor& p) { return p; }
inline CudaTensor as_cuda(const FusedTensor& p) { return fusion::Kernels<Kernels>::unwrap(p); }

/// The CUDA primitive of a tensor of Cuda<F, I>, Fusion<Cuda<F, I>> or Autodiff of either.
template <class B, std::size_t D, class K>
CudaTensor primitive_of(const Tensor<B, D, K>& t) {
    if constexpr (AutodiffBackend<B>) {
        return primitive_of(t.inner());
    } else {
        static_assert(std::is_same_v<typename B::FloatTensor, CudaTensor> ||
                          std::is_same_v<typename B::FloatTensor, FusedTensor>,
                      "CudaGraphStep: tensors of Cuda<F, I>, Fusion<Cuda<F, I>> or Autodiff of "
                      "either");
        return as_cuda(t.primitive());
    }
}

/// The tensor of type T (Tensor<B, D, K>) over a CUDA primitive (untracked under Autodiff).
template <class T>
T tensor_of(CudaTensor p) {
    return []<class B, std::size_t D, class K>(Tensor<B, D, K>*, CudaTensor q) {
        if constexpr (AutodiffBackend<B>)
            return Tensor<B, D, K>::from_inner(
                tensor_of<Tensor<typename B::InnerBackend, D, K>>(std::move(q)));
        else if constexpr (std::is_same_v<typename B::FloatTensor, FusedTensor>)
            return Tensor<B, D, K>(fusion::Kernels<Kernels>::wrap(std::move(q)));
        else return Tensor<B, D, K>(std::move(q));
    }(static_cast<T*>(nullptr), std::move(p));
}

/// Calls f(tensor) for each tensor in `x`: a tensor; the elements of a pair or tuple; the fields
/// of an aggregate (a batch struct, ClassificationOutput), recursively. Other values are left
/// alone (they are constants of a capture).
template <class T, class F>
void for_each_tensor(T& x, F&& f) {
    using U = std::remove_const_t<T>;
    if constexpr (is_tensor_v<U>) {
        f(x);
    } else if constexpr (requires { std::tuple_size<U>::value; }) {
        std::apply([&](auto&... e) { (for_each_tensor(e, f), ...); }, x);
    } else if constexpr (std::is_aggregate_v<U> && std::is_class_v<U>) {
        constexpr std::size_t n = module::detail::aggregate_arity<U>();
        static_assert(n <= 8, "CudaGraphStep: a batch or result struct has at most 8 fields");
        auto each = [&](auto&... e) { (for_each_tensor(e, f), ...); };
        if constexpr (n == 1) {
            auto& [a] = x;
            each(a);
        } else if constexpr (n == 2) {
            auto& [a, b] = x;
            each(a, b);
        } else if constexpr (n == 3) {
            auto& [a, b, c] = x;
            each(a, b, c);
        } else if constexpr (n == 4) {
            auto& [a, b, c, d] = x;
            each(a, b, c, d);
        } else if constexpr (n == 5) {
            auto& [a, b, c, d, e] = x;
            each(a, b, c, d, e);
        } else if constexpr (n == 6) {
            auto& [a, b, c, d, e, g] = x;
            each(a, b, c, d, e, g);
        } else if constexpr (n == 7) {
            auto& [a, b, c, d, e, g, h] = x;
            each(a, b, c, d, e, g, h);
        } else if constexpr (n == 8) {
            auto& [a, b, c, d, e, g, h, i] = x;
            each(a, b, c, d, e, g, h, i);
        }
    }
}

/// `x` with its tensors replaced, in for_each_tensor's order, by tensors over `prims`.
template <class T>
T with_tensors(const T& x, const std::vector<CudaTensor>& prims, std::size_t& i) {
    T out = x;
    for_each_tensor(out, [&](auto& t) { t = tensor_of<std::decay_t<decltype(t)>>(prims.at(i++)); });
    return out;
}

/// An optimizer of a step's state (OptimizerAdaptor, the Learner's handle on it).
template <class S>
inline constexpr bool is_optimizer_v = requires(S& m) {
    m.count_replayed_step();
};

/// Calls f(key, primitive) for every tensor of a step's state: the parameters and running
/// states of a module (keyed by path), the tensors of an optimizer's state (its
/// `for_each_state_tensor`), a tensor.
template <class S, class F>
void for_each_state(const S& s, const std::string& prefix, F&& f) {
    if constexpr (requires(S & m) { m.count_replayed_step(); }) {
        s.for_each_state_tensor(
            [&](const std::string& key, const auto& p) { f(prefix + key, as_cuda(p)); });
    } else if constexpr (is_tensor_v<S>) {
        f(prefix, primitive_of(s));
    } else {
        static_assert(module::Module<S>,
                      "CudaGraphStep: the state is modules, optimizers and tensors");
        module::for_each_leaf(s, "", [&](std::string_view path, const auto& leaf) {
            using L = std::decay_t<decltype(leaf)>;
            if constexpr (module::is_param_v<L>)
                f(prefix + std::string(path), primitive_of(leaf.val()));
            else f(prefix + std::string(path), primitive_of(leaf.value()));
        });
    }
}

}  // namespace cuda::graph_detail

struct CudaGraphStepOptions {
    /// Calls run as they are before the step is captured (>= 1 when the step has an optimizer:
    /// its state must exist before the capture).
    std::size_t warmup = 2;
};

/// A training (or any) step captured as a CUDA graph; see the top of this file. `Fn` takes the
/// batch (tensors, or structs, pairs or tuples of them) and returns nothing or such a value;
/// `State` are the objects it updates by reference (modules, optimizers, tensors). The tensors of
/// every call must have the shapes and dtypes of the call that was captured (other values in the
/// arguments are those of the captured call). Results are new tensors.
///
/// When the state no longer holds the tensors the last graph left in it (something outside the
/// step replaced them: a record loaded), the next calls warm up and capture again; after reset()
/// the next call captures again. A value the
/// step reads from the host, such as the learning rate, is the one of the captured call: call
/// reset() when it changes. Adam and AdamW count their steps and the random numbers (dropout)
/// continue their stream at every replay, as uncaptured steps do.
template <class Fn, class... State>
class CudaGraphStep {
public:
    CudaGraphStep(CudaDevice device, Fn fn, State&... state)
        : CudaGraphStep(device, CudaGraphStepOptions{}, std::move(fn), state...) {}
    CudaGraphStep(CudaDevice device, CudaGraphStepOptions options, Fn fn, State&... state)
        : device_(device), options_(options), fn_(std::move(fn)), state_(state...) {}

    template <class... In>
    auto operator()(const In&... in) {
        using R = std::invoke_result_t<Fn&, const In&...>;
        if (!graph_.empty() && !state_unchanged()) {
            // Replaced outside the step (a record loaded): new tensors, maybe new parameters
            // without optimizer state yet, so warm up again.
            graph_ = CudaGraph{};
            eager_ = 0;
        }
        if (graph_.empty() && eager_ < options_.warmup) {
            ++eager_;
            return fn_(in...);
        }
        if (graph_.empty()) return capture_and_run<R>(in...);
        BURN_CHECK(arguments_ == &typeid(std::tuple<In...>),
                   "CudaGraphStep: called with other argument types than the captured call (call "
                   "reset() to capture it again)");
        std::size_t i = 0;
        (cuda::graph_detail::for_each_tensor(
             in, [&](const auto& t) { copy_input(i++, cuda::graph_detail::primitive_of(t)); }),
         ...);
        std::apply([](auto&... s) { (count_replayed(s), ...); }, state_);
        graph_.replay();
        return results<R>();
    }

    /// The next call captures the step again.
    void reset() { graph_ = CudaGraph{}; }
    /// Captures so far.
    std::size_t captures() const { return captures_; }
    /// The current graph (empty before the first capture).
    const CudaGraph& graph() const { return graph_; }

private:
    using Prims = std::vector<cuda::CudaTensor>;
    using Keyed = std::vector<std::pair<std::string, cuda::CudaTensor>>;

    Keyed state_tensors() const {
        Keyed out;
        std::size_t n = 0;
        std::apply(
            [&](const auto&... s) {
                ((cuda::graph_detail::for_each_state(
                     s, "state" + std::to_string(n++) + ":",
                     [&](const std::string& k, const cuda::CudaTensor& p) {
                         out.emplace_back(k, p);
                     })),
                 ...);
            },
            state_);
        return out;
    }

    bool state_unchanged() const {
        const Keyed now = state_tensors();
        if (now.size() != state_out_.size()) return false;
        for (std::size_t i = 0; i < now.size(); ++i)
            if (cuda::graph_detail::address(now[i].second) != state_out_[i]) return false;
        return true;
    }

    template <class S>
    static void count_replayed(S& s) {
        if constexpr (requires { s.count_replayed_step(); }) s.count_replayed_step();
    }

    void copy_input(std::size_t i, const cuda::CudaTensor& p) {
        const auto& dst = inputs_[i];
        if (p.shape != dst.shape || p.dtype != dst.dtype)
            ::burn::detail::fail("CudaGraphStep: tensor ", i, " of the arguments has shape ",
                                 p.shape, " and dtype ", dtype_name(p.dtype),
                                 "; the captured step took ", dst.shape, " ", dtype_name(dst.dtype),
                                 " (call reset() to capture it again)");
        cuda::graph_detail::copy_into(dst, p);
    }

    /// The results of a run: the captured result with copies of the graph's output blocks (the
    /// next run overwrites them).
    template <class R>
    R results() const {
        if constexpr (std::is_void_v<R>) {
            return;
        } else {
            std::vector<cuda::CudaTensor> copies;
            for (const auto& p : outputs_) copies.push_back(cuda::graph_detail::dense_copy(p));
            std::size_t i = 0;
            return cuda::graph_detail::with_tensors(*static_cast<const R*>(result_.get()), copies,
                                                    i);
        }
    }

    template <class R, class... In>
    R capture_and_run(const In&... in) {
        // An optimizer creates its state at its first step: inside a capture that state would be
        // tensors the graph makes but never hands back (and a failed capture would leave them
        // uncomputed in the optimizer).
        if ((cuda::graph_detail::is_optimizer_v<State> || ...) && eager_ == 0)
            ::burn::detail::fail(
                "CudaGraphStep: the step's optimizer must have stepped before "
                "the capture (its state is made at its first step): use "
                "CudaGraphStepOptions::warmup >= 1");
        graph_ = CudaGraph{};
        inputs_.clear();
        outputs_.clear();
        state_out_.clear();
        // The state before the step: the graph reads these blocks at every run and copies the
        // state the step makes back into them, so the next run starts from it.
        state_in_ = state_tensors();
        for (const auto& [key, p] : state_in_)
            if (!p.is_contiguous())
                cuda::graph_detail::fail_state("is a strided view (the graph writes it in place)",
                                               key);
        // The blocks the graph reads its inputs from: each call copies its tensors into them.
        (cuda::graph_detail::for_each_tensor(in,
                                             [&](const auto& t) {
                                                 inputs_.push_back(cuda::graph_detail::dense_copy(
                                                     cuda::graph_detail::primitive_of(t)));
                                             }),
         ...);
        result_.reset();
        arguments_ = &typeid(std::tuple<In...>);
        try {
            graph_ = CudaGraph::capture(device_, [&] {
                std::size_t i = 0;
                auto args = std::tuple<In...>{cuda::graph_detail::with_tensors(in, inputs_, i)...};
                if constexpr (std::is_void_v<R>) {
                    std::apply(fn_, args);
                } else {
                    auto result = std::make_shared<R>(std::apply(fn_, args));
                    cuda::graph_detail::for_each_tensor(*result, [&](const auto& t) {
                        outputs_.push_back(cuda::graph_detail::primitive_of(t));
                    });
                    result_ = std::move(result);
                }
                write_back_state();
            });
        } catch (...) {
            restore_state();
            throw;
        }
        ++captures_;
        for (const auto& kv : state_tensors())
            state_out_.push_back(cuda::graph_detail::address(kv.second));
        graph_.replay();
        return results<R>();
    }

    /// After a failed capture: the tensors the step put in the state were never computed; they
    /// get the values the state had before the call.
    void restore_state() noexcept {
        try {
            for (const auto& [k, now] : state_tensors())
                for (const auto& [k0, before] : state_in_)
                    if (k0 == k && now.shape == before.shape && now.dtype == before.dtype &&
                        now.is_contiguous())
                        cuda::graph_detail::copy_into(now, before);
        } catch (...) {  // the capture's error is the one to report
        }
    }

    void write_back_state() {
        const Keyed after = state_tensors();
        std::unordered_map<std::string, const cuda::CudaTensor*> by_key;
        for (const auto& [k, p] : after) by_key.emplace(k, &p);
        for (const auto& [k, p] : state_in_) {
            const auto it = by_key.find(k);
            if (it == by_key.end())
                cuda::graph_detail::fail_state("was dropped by the captured step", k);
            const cuda::CudaTensor& now = *it->second;
            if (now.shape != p.shape || now.dtype != p.dtype)
                cuda::graph_detail::fail_state("changed its shape or dtype in the captured step",
                                               k);
            if (cuda::graph_detail::address(now) != cuda::graph_detail::address(p))
                cuda::graph_detail::copy_into(p, now);
        }
        if (after.size() != state_in_.size())
            for (const auto& [k, p] : after) {
                bool found = false;
                for (const auto& kv : state_in_) found = found || kv.first == k;
                if (!found)
                    cuda::graph_detail::fail_state(
                        "was created by the captured step (run more warm-up steps first: "
                        "CudaGraphStepOptions::warmup)",
                        k);
            }
    }

    CudaDevice device_;
    CudaGraphStepOptions options_;
    Fn fn_;
    std::tuple<State&...> state_;
    std::size_t eager_ = 0, captures_ = 0;
    CudaGraph graph_;
    Keyed state_in_;                      ///< the blocks the graph reads the state from
    std::vector<const void*> state_out_;  ///< where the state is after a run
    Prims inputs_, outputs_;
    std::shared_ptr<const void> result_;         ///< the captured call's result (R)
    const std::type_info* arguments_ = nullptr;  ///< the captured call's argument types
};

template <class Fn, class... State>
CudaGraphStep(CudaDevice, Fn, State&...) -> CudaGraphStep<Fn, State...>;

/// The Learner's training steps as CUDA graphs: LearnerBuilder::with_step_capture(CudaGraphs{})
/// runs each epoch's steps through a CudaGraphStep of the model's `train_step` and the optimizer
/// (warm-up steps, the capture, then one graph launch per batch). The batch struct's tensors are
/// copied into the graph's inputs, so every batch must have the shapes of the captured one: a
/// last, smaller batch is run uncaptured (the data loader's batches otherwise keep their size).
/// A learning rate that differs from the captured step's makes the next step capture again.
struct CudaGraphs {
    CudaDevice device{};
    CudaGraphStepOptions options{};

    template <class Batch, class Item, class Model, class Optim>
    std::function<Item(const Batch&, double)> runner(Model& model, Optim& optim) const {
        auto lr = std::make_shared<double>(-1.0);
        auto body = [&model, &optim, lr](const Batch& batch) {
            auto out = model.train_step(batch);
            model = optim.step(*lr, model, std::move(out.grads));
            return std::move(out.item);
        };
        using Step = CudaGraphStep<decltype(body), Model, Optim>;
        auto step = std::make_shared<Step>(device, options, body, model, optim);
        auto shapes = std::make_shared<std::vector<Shape>>();
        return [step, lr, shapes, body](const Batch& batch, double rate) {
            std::vector<Shape> now;
            cuda::graph_detail::for_each_tensor(batch,
                                                [&](const auto& t) { now.push_back(t.shape()); });
            if (shapes->empty()) *shapes = now;
            if (now != *shapes) {  // another batch size (the last batch): uncaptured
                const double captured_rate = *lr;
                *lr = rate;
                auto item = body(batch);
                *lr = captured_rate;
                return item;
            }
            if (rate != *lr) {
                if (*lr >= 0.0) step->reset();
                *lr = rate;
            }
            return (*step)(batch);
        };
    }
};
template <class Fn, class... State>
CudaGraphStep(CudaDevice, CudaGraphStepOptions, Fn, State&...) -> CudaGraphStep<Fn, State...>;

}  // namespace burn

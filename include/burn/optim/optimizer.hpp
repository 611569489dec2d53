// SPDX-License-Identifier: MIT OR Apache-2.0
// Optimizers (Burn's Optimizer trait and OptimizerAdaptor): an optimizer is a module mapper that
// returns the module with every parameter that has a gradient updated. There is no zero_grad: the
// step consumes the gradients. The state (moments, step counts) is kept per ParamId and saved and
// loaded as a record, so that training resumes exactly.
//
//   auto optim = optim::AdamConfig{}.init<AD, Model<AD>>();
//   auto grads = optim::GradientsParams<AD>::from_grads(loss_grads, model);
//   model = optim.step(1e-3, model, std::move(grads));
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "burn/module/module.hpp"
#include "burn/optim/grads.hpp"
#include "burn/record/record.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::optim {

using LearningRate = double;

/// Burn's Optimizer<M, B>: `step(lr, module, grads)` returns the updated module; the state is a
/// record.
template <class O, class M, class B>
concept Optimizer = requires(O& o, const O& co, const M& m, GradientsParams<B> g,
                             const record::Record& r) {
    { o.step(LearningRate{}, m, std::move(g)) } -> std::same_as<M>;
    { co.to_record() } -> std::same_as<record::Record>;
    { co.load_record(r) } -> std::same_as<O>;
};

/// A per-parameter optimizer state: named tensors (rank-erased primitives of the inner backend,
/// with their ranks) and named integers. SimpleOptimizers keep theirs in it, so that the adaptor
/// can save and load any of them.
template <Backend IB>
struct ParamState {
    struct Item {
        typename IB::FloatTensor primitive;
        std::size_t rank;
    };
    std::vector<std::pair<std::string, Item>> tensors;
    std::vector<std::pair<std::string, std::int64_t>> counters;

    template <std::size_t D>
    void set(const std::string& name, Tensor<IB, D> t) {
        for (auto& [n, item] : tensors)
            if (n == name) {
                item = Item{std::move(t).into_primitive(), D};
                return;
            }
        tensors.emplace_back(name, Item{std::move(t).into_primitive(), D});
    }
    /// The tensor `name` (moved to `device`), or nullopt.
    template <std::size_t D>
    std::optional<Tensor<IB, D>> get(const std::string& name,
                                     const typename IB::Device& device) const {
        for (const auto& [n, item] : tensors)
            if (n == name) {
                BURN_CHECK(item.rank == D, "optimizer state: ", name, " has rank ", item.rank,
                           ", expected ", D, " (a record of another model?)");
                return Tensor<IB, D>(item.primitive).to_device(device);
            }
        return std::nullopt;
    }
    /// Takes the tensor `name` out of the state (moved to `device`), or nullopt: a kernel can
    /// then update it in place, its buffer having no other owner.
    template <std::size_t D>
    std::optional<Tensor<IB, D>> take(const std::string& name, const typename IB::Device& device) {
        for (auto it = tensors.begin(); it != tensors.end(); ++it)
            if (it->first == name) {
                BURN_CHECK(it->second.rank == D, "optimizer state: ", name, " has rank ",
                           it->second.rank, ", expected ", D, " (a record of another model?)");
                Tensor<IB, D> t(std::move(it->second.primitive));
                tensors.erase(it);
                return std::move(t).to_device(device);
            }
        return std::nullopt;
    }
    void set_counter(const std::string& name, std::int64_t v) {
        for (auto& [n, c] : counters)
            if (n == name) {
                c = v;
                return;
            }
        counters.emplace_back(name, v);
    }
    std::int64_t counter(const std::string& name) const {
        for (const auto& [n, c] : counters)
            if (n == name) return c;
        return 0;
    }
};

/// Turns a SimpleOptimizer — a type with
///   template <Backend IB, std::size_t D>
///   Tensor<IB, D> step(double lr, Tensor<IB, D> param, Tensor<IB, D> grad,
///                      ParamState<IB>& state) const;
/// (updating `state` in place; it starts empty) — into an Optimizer over modules of backend B,
/// with optional gradient clipping.
template <class S, AutodiffBackend B>
class OptimizerAdaptor {
public:
    using InnerBackend = typename B::InnerBackend;

    explicit OptimizerAdaptor(S optim,
                              std::optional<GradientClippingConfig> clipping = std::nullopt)
        : optim_(std::move(optim)), clipping_(std::move(clipping)) {}

    /// `module` with every float parameter that has a gradient in `grads` updated. Parameters
    /// without one (frozen, or not used by the loss) are returned unchanged and keep their state.
    template <class M>
    M step(LearningRate lr, const M& module, GradientsParams<B> grads) {
        // As PyTorch: a NaN or negative rate would silently turn every weight into garbage.
        BURN_CHECK(lr >= 0.0 && lr <= std::numeric_limits<double>::max(),
                   "Optimizer::step: the learning rate must be finite and >= 0, got ", lr);
        // Global clipping needs every gradient before any parameter moves.
        const bool global =
            clipping_ && clipping_->kind == GradientClippingConfig::Kind::GlobalNorm;
        if (global) clipping_->clip_all(grads);
        M out = module.map([&](const ParamId& id, auto t) {
            using T = decltype(t);
            if constexpr (detail::is_float_tensor_of_v<T, B>) {
                constexpr std::size_t D = T::rank;
                auto g = grads.template remove<D>(id);
                if (!g || !t.is_require_grad()) return t;  // frozen parameters never move
                auto param = t.inner();
                BURN_CHECK(g->shape() == param.shape(),
                           "Optimizer::step: the gradient of parameter ", id, " has shape ",
                           g->shape(), ", the parameter ", param.shape());
                auto grad = clipping_ && !global ? clipping_->clip(std::move(*g)) : std::move(*g);
                auto& state = states_[id];
                const DType dtype = param.dtype();
                if (is_half(dtype)) {
                    // f32 master weights: the update runs on an f32 copy kept in the state
                    // ("master"), so that steps smaller than the half type's resolution add up;
                    // the module gets the copy rounded to its dtype.
                    auto master = state.template get<D>("master", param.device());
                    auto p32 = master ? std::move(*master) : param.cast(DType::F32);
                    auto next =
                        optim_.step(lr, std::move(p32), std::move(grad).cast(DType::F32), state);
                    state.set("master", next);
                    return T::from_inner(next.cast(dtype));
                }
                auto next = optim_.step(lr, std::move(param), std::move(grad), state);
                if (next.dtype() != dtype) next = next.cast(dtype);  // an f32 gradient of f64
                return T::from_inner(std::move(next));
            } else {
                return t;
            }
        });
        return out;
    }

    /// Calls f("<param id>/<name>", primitive) for every tensor of the state, in the order of the
    /// ids (a captured step's graph, burn::CudaGraphStep, keeps the state's blocks with it).
    template <class F>
    void for_each_state_tensor(F&& f) const {
        std::vector<std::pair<ParamId, const ParamState<InnerBackend>*>> sorted;
        for (const auto& [id, s] : states_) sorted.emplace_back(id, &s);
        std::sort(sorted.begin(), sorted.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [id, s] : sorted)
            for (const auto& [name, item] : s->tensors)
                f(id.to_string() + "/" + name, item.primitive);
    }

    /// The host side of a step that a captured graph ran (burn::CudaGraphStep replays the
    /// device work only): the optimizer's step counters advance as the step would have advanced
    /// them (S::replayed). Throws burn::Error for an optimizer whose step depends on counters it
    /// cannot advance so.
    void count_replayed_step() {
        for (auto& [id, s] : states_) {
            if constexpr (requires(const S& o, ParamState<InnerBackend>& st) { o.replayed(st); })
                optim_.replayed(s);
            else
                BURN_CHECK(s.counters.empty(),
                           "Optimizer: a captured step cannot be replayed: "
                           "the optimizer's state has step counters it does not advance (",
                           s.counters.front().first, ")");
        }
    }

    /// The states of every parameter stepped so far: {"<param id>": {"<name>": tensor or integer}}.
    record::Record to_record() const {
        std::vector<std::pair<ParamId, const ParamState<InnerBackend>*>> sorted;
        for (const auto& [id, s] : states_) sorted.emplace_back(id, &s);
        std::sort(sorted.begin(), sorted.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        record::Record out = record::Record::Map{};
        for (const auto& entry : sorted) {
            const ParamId& id = entry.first;
            const ParamState<InnerBackend>* s = entry.second;
            record::Record r = record::Record::Map{};
            for (const auto& named : s->tensors) {
                const std::string& name = named.first;
                const auto& item = named.second;
                detail::with_rank(item.rank, [&](auto rank) {
                    constexpr std::size_t D = decltype(rank)::value;
                    r.add(name, record::TensorItem{
                                    Tensor<InnerBackend, D>(item.primitive).to_data(), id});
                });
            }
            for (const auto& [name, v] : s->counters) r.add(name, record::Record(v));
            out.add(id.to_string(), std::move(r));
        }
        return out;
    }

    /// This optimizer with the states of `record` (as to_record wrote them; tensors are
    /// converted to the backend's float type and put on the default device, then moved to each
    /// parameter's device at its next step). Throws burn::Error naming the entry on a bad record.
    OptimizerAdaptor load_record(const record::Record& record) const {
        OptimizerAdaptor out(optim_, clipping_);
        for (const auto& [key, value] : record.as<record::Record::Map>("optimizer record")) {
            const ParamId id = ParamId::from_string(key);
            ParamState<InnerBackend> state;
            for (const auto& named : value.template as<record::Record::Map>(key)) {
                const std::string& name = named.first;
                const record::Record& item = named.second;
                const std::string path = key + "." + name;
                if (const auto* v = std::get_if<std::int64_t>(&item.value())) {
                    state.set_counter(name, *v);
                } else {
                    const auto& t = item.template as<record::TensorItem>(path);
                    detail::with_rank(t.data.rank(), [&](auto rank) {
                        constexpr std::size_t D = decltype(rank)::value;
                        state.set(name, Tensor<InnerBackend, D>::from_data(t.data));
                    });
                }
            }
            out.states_.insert_or_assign(id, std::move(state));
        }
        return out;
    }

    /// The number of parameters with a state.
    std::size_t num_states() const { return states_.size(); }
    const S& optimizer() const { return optim_; }

private:
    S optim_;
    std::optional<GradientClippingConfig> clipping_;
    std::unordered_map<ParamId, ParamState<InnerBackend>> states_;
};

}  // namespace burn::optim

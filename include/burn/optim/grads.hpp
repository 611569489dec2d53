// SPDX-License-Identifier: MIT OR Apache-2.0
// Gradients keyed by parameter: what an optimizer step consumes (Burn's GradientsParams), their
// accumulation over several backward passes, and gradient clipping.
//
//   auto grads = loss.backward();
//   auto grads_params = optim::GradientsParams<AD>::from_grads(grads, model);
//   model = optimizer.step(lr, model, std::move(grads_params));
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "burn/config/config.hpp"
#include "burn/module/module.hpp"
#include "burn/record/param_id.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::optim {

using module::ParamId;

namespace detail {
/// Calls f(std::integral_constant<std::size_t, D>{}) for the runtime rank `rank` (1 to 8).
template <class F>
decltype(auto) with_rank(std::size_t rank, F&& f) {
    switch (rank) {
        case 1: return f(std::integral_constant<std::size_t, 1>{});
        case 2: return f(std::integral_constant<std::size_t, 2>{});
        case 3: return f(std::integral_constant<std::size_t, 3>{});
        case 4: return f(std::integral_constant<std::size_t, 4>{});
        case 5: return f(std::integral_constant<std::size_t, 5>{});
        case 6: return f(std::integral_constant<std::size_t, 6>{});
        case 7: return f(std::integral_constant<std::size_t, 7>{});
        default:
            BURN_CHECK(rank == 8, "optim: unsupported tensor rank ", rank);
            return f(std::integral_constant<std::size_t, 8>{});
    }
}

/// Whether T is a float tensor of backend B.
template <class T, class B>
inline constexpr bool is_float_tensor_of_v = false;
template <class B, std::size_t D>
inline constexpr bool is_float_tensor_of_v<Tensor<B, D, Float>, B> = true;
}  // namespace detail

/// The gradients of a module's trainable parameters, keyed by ParamId, as tensors of the inner
/// backend (the values an optimizer reads). Built from the Gradients of a backward pass; an
/// optimizer step consumes it.
template <AutodiffBackend B>
class GradientsParams {
public:
    using InnerBackend = typename B::InnerBackend;

    GradientsParams() = default;

    /// The gradients of the float parameters of `module` that require grad, moved out of `grads`
    /// (their entries are removed from it). Taking the gradients of one sub-module at a time
    /// lets several optimizers share one backward pass (Burn's `from_module`).
    template <class M>
    static GradientsParams from_grads(typename B::Gradients& grads, const M& module) {
        GradientsParams out;
        module::visit(module, [&](const ParamId& id, const auto& t) {
            using T = std::remove_cvref_t<decltype(t)>;
            if constexpr (detail::is_float_tensor_of_v<T, B>) {
                if (!t.is_require_grad()) return;
                if (auto g = t.grad_remove(grads)) out.insert(id, std::move(*g));
            }
        });
        return out;
    }
    /// Burn's name for from_grads on a sub-module.
    template <class M>
    static GradientsParams from_module(typename B::Gradients& grads, const M& module) {
        return from_grads(grads, module);
    }

    /// The gradient of parameter `id` (rank D), if any.
    template <std::size_t D>
    std::optional<Tensor<InnerBackend, D>> get(const ParamId& id) const {
        const auto it = grads_.find(id);
        if (it == grads_.end()) return std::nullopt;
        check_rank(it->second, D, id);
        return Tensor<InnerBackend, D>(it->second.primitive);
    }
    /// Takes the gradient of parameter `id` out.
    template <std::size_t D>
    std::optional<Tensor<InnerBackend, D>> remove(const ParamId& id) {
        const auto it = grads_.find(id);
        if (it == grads_.end()) return std::nullopt;
        check_rank(it->second, D, id);
        Tensor<InnerBackend, D> out(std::move(it->second.primitive));
        grads_.erase(it);
        return out;
    }
    /// Sets (or replaces) the gradient of parameter `id`.
    template <std::size_t D>
    void insert(const ParamId& id, Tensor<InnerBackend, D> grad) {
        grads_.insert_or_assign(id, Entry{std::move(grad).into_primitive(), D});
    }

    std::size_t size() const { return grads_.size(); }
    bool empty() const { return grads_.empty(); }
    bool contains(const ParamId& id) const { return grads_.contains(id); }
    std::vector<ParamId> ids() const {
        std::vector<ParamId> out;
        out.reserve(grads_.size());
        for (const auto& [id, e] : grads_) out.push_back(id);
        return out;
    }

    /// Calls f(id, tensor) for every gradient, the tensor being a Tensor<InnerBackend, D>, and
    /// replaces it with the tensor f returns.
    template <class F>
    void transform(F&& f) {
        for (auto& entry : grads_) {
            const ParamId& id = entry.first;
            Entry& e = entry.second;
            detail::with_rank(e.rank, [&](auto rank) {
                constexpr std::size_t D = decltype(rank)::value;
                e.primitive =
                    f(id, Tensor<InnerBackend, D>(std::move(e.primitive))).into_primitive();
            });
        }
    }
    /// Calls f(id, tensor) for every gradient.
    template <class F>
    void for_each(F&& f) const {
        for (const auto& entry : grads_) {
            const ParamId& id = entry.first;
            const Entry& e = entry.second;
            detail::with_rank(e.rank, [&](auto rank) {
                constexpr std::size_t D = decltype(rank)::value;
                f(id, Tensor<InnerBackend, D>(e.primitive));
            });
        }
    }

private:
    struct Entry {
        typename InnerBackend::FloatTensor primitive;
        std::size_t rank;
    };
    static void check_rank(const Entry& e, std::size_t d, const ParamId& id) {
        BURN_CHECK(e.rank == d, "GradientsParams: the gradient of parameter ", id, " has rank ",
                   e.rank, ", requested as rank ", d);
    }
    std::unordered_map<ParamId, Entry> grads_;
};

/// Sums the gradients of several backward passes (gradient accumulation): accumulate() after
/// each pass, grads() to take the sum (and start again from nothing).
template <AutodiffBackend B>
class GradientsAccumulator {
public:
    /// Adds the gradients of `module`'s parameters in `grads` to the running sum.
    template <class M>
    void accumulate(const M& module, GradientsParams<B> grads) {
        (void)module;  // the gradients are keyed by id already; kept for Burn's signature
        grads.for_each([&](const ParamId& id, const auto& g) {
            constexpr std::size_t D = std::remove_cvref_t<decltype(g)>::rank;
            if (auto sum = sum_.template remove<D>(id)) sum_.insert(id, std::move(*sum) + g);
            else sum_.insert(id, g);
        });
    }
    /// The accumulated gradients; the accumulator is empty afterwards.
    GradientsParams<B> grads() { return std::exchange(sum_, GradientsParams<B>{}); }
    bool empty() const { return sum_.empty(); }

private:
    GradientsParams<B> sum_;
};

/// The norm of all the gradients of `grads` taken together, as if concatenated into one vector
/// (PyTorch's total norm in torch.nn.utils.clip_grad_norm_): for norm_type p, (sum |g|^p)^(1/p)
/// over every element of every gradient, i.e. the p-norm of the per-parameter p-norms;
/// norm_type = infinity gives the largest |g|. 0 when there is no gradient.
template <AutodiffBackend B>
double total_grad_norm(const GradientsParams<B>& grads, double norm_type = 2.0) {
    BURN_CHECK(norm_type > 0 && !std::isnan(norm_type),
               "total_grad_norm: norm_type must be > 0 (or infinity), got ", norm_type);
    const bool inf = std::isinf(norm_type);
    double acc = 0.0;
    grads.for_each([&](const ParamId&, const auto& g) {
        if (g.shape().num_elements() == 0) return;
        if (inf) {
            acc = std::max(acc, static_cast<double>(g.abs().max().into_scalar()));
        } else if (norm_type == 2.0) {
            acc += static_cast<double>((g * g).sum().into_scalar());
        } else if (norm_type == 1.0) {
            acc += static_cast<double>(g.abs().sum().into_scalar());
        } else {
            acc += static_cast<double>(g.abs().powf_scalar(norm_type).sum().into_scalar());
        }
    });
    if (inf || norm_type == 1.0) return acc;
    if (norm_type == 2.0) return std::sqrt(acc);
    return std::pow(acc, 1.0 / norm_type);
}

/// Global gradient-norm clipping (PyTorch's torch.nn.utils.clip_grad_norm_(params, max_norm,
/// norm_type)): computes the total norm of all the gradients of `grads` (total_grad_norm) and,
/// when max_norm / (total + 1e-6) < 1, multiplies every gradient by that factor, so that their
/// joint norm becomes (just under) max_norm; the directions between parameters are kept.
/// Returns the total norm before clipping. A non-finite total scales every gradient by NaN or 0,
/// as PyTorch does by default (error_if_nonfinite = False).
///
///   auto gradients = loss.backward();
///   auto grads = optim::GradientsParams<AD>::from_grads(gradients, model);
///   double norm = optim::clip_grad_norm(grads, 1.0);
///   model = optimizer.step(lr, model, std::move(grads));
template <AutodiffBackend B>
double clip_grad_norm(GradientsParams<B>& grads, double max_norm, double norm_type = 2.0) {
    BURN_CHECK(max_norm >= 0 && std::isfinite(max_norm),
               "clip_grad_norm: max_norm must be finite and >= 0, got ", max_norm);
    BURN_CHECK(norm_type > 0 && !std::isnan(norm_type),
               "clip_grad_norm: norm_type must be > 0 (or infinity), got ", norm_type);
    const double total = total_grad_norm(grads, norm_type);
    const double scale = max_norm / (total + 1e-6);
    if (scale < 1.0 || std::isnan(scale))
        grads.transform([&](const ParamId&, auto g) { return std::move(g) * scale; });
    return total;
}

/// Gradient clipping. Value and Norm apply to each parameter's gradient on its own (as Burn
/// does): Value clamps every element to [-threshold, threshold]; Norm rescales a gradient whose
/// L2 norm exceeds `threshold` to that norm (PyTorch's clip_grad_norm_ applied per parameter).
/// GlobalNorm clips the L2 norm of all the gradients of a step together, as PyTorch's
/// clip_grad_norm_(model.parameters(), threshold) (see clip_grad_norm); an optimizer given it
/// clips the whole GradientsParams before updating any parameter.
struct GradientClippingConfig {
    enum class Kind { Value, Norm, GlobalNorm };
    Kind kind = Kind::Norm;
    Required<double> threshold;
    BURN_CONFIG(GradientClippingConfig, kind, threshold)

    static GradientClippingConfig value(double threshold) { return {Kind::Value, threshold}; }
    static GradientClippingConfig norm(double threshold) { return {Kind::Norm, threshold}; }
    /// The L2 norm of all the gradients together clipped to `max_norm` (PyTorch's
    /// clip_grad_norm_ over all parameters).
    static GradientClippingConfig global_norm(double max_norm) {
        return {Kind::GlobalNorm, max_norm};
    }

    /// `grads` clipped as a whole: clip_grad_norm for GlobalNorm, clip() of each gradient
    /// otherwise. Returns the L2 norm of all the gradients before clipping for GlobalNorm, NaN
    /// for the per-parameter kinds (which compute no total).
    template <AutodiffBackend B>
    double clip_all(GradientsParams<B>& grads) const {
        BURN_CHECK(*threshold > 0, "GradientClipping: threshold must be positive, got ",
                   *threshold);
        if (kind == Kind::GlobalNorm) return clip_grad_norm(grads, *threshold);
        grads.transform([&](const ParamId&, auto g) { return clip(std::move(g)); });
        return std::numeric_limits<double>::quiet_NaN();
    }

    /// `grad` clipped on its own (for GlobalNorm, as the only gradient: its norm is the total).
    template <Backend IB, std::size_t D>
    Tensor<IB, D> clip(Tensor<IB, D> grad) const {
        BURN_CHECK(*threshold > 0, "GradientClipping: threshold must be positive, got ",
                   *threshold);
        if (kind == Kind::Value) return std::move(grad).clamp(-*threshold, *threshold);
        const double norm = std::sqrt((grad * grad).sum().into_scalar());
        if (kind == Kind::GlobalNorm) {
            const double scale = *threshold / (norm + 1e-6);
            return scale < 1.0 ? std::move(grad) * scale : grad;
        }
        if (norm <= *threshold) return grad;
        return std::move(grad) * (*threshold / (norm + 1e-6));
    }
};
BURN_CONFIG_ENUM(GradientClippingConfig::Kind, Value, Norm, GlobalNorm)

}  // namespace burn::optim

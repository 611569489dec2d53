// SPDX-License-Identifier: MIT OR Apache-2.0
// Loss functions (Burn's nn::loss): cross-entropy over class logits (torch.nn.CrossEntropyLoss),
// binary cross-entropy (torch.nn.BCELoss / BCEWithLogitsLoss), mean squared error
// (torch.nn.MSELoss) and Huber (torch.nn.HuberLoss). Each returns a one-element tensor.
//
//   auto ce = nn::CrossEntropyLossConfig{.smoothing = 0.1}.init<B>(device);
//   Tensor<B, 1> loss = ce.forward(logits, targets);  // [batch, classes], Int [batch] -> [1]
//   auto mse = nn::MseLoss{}.forward(pred, target, nn::Reduction::Mean);
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "burn/backend/capabilities.hpp"
#include "burn/config/config.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/tensor/activation.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

/// How a loss reduces its per-element values (Burn's nn::loss::Reduction). `Auto` is `Mean`.
/// Saved by name ("Mean").
enum class Reduction { Mean, Sum, Auto };
BURN_CONFIG_ENUM(Reduction, Mean, Sum, Auto)

namespace loss_detail {
/// The mean or the sum of x, as a one-element tensor.
template <Backend B, std::size_t D>
Tensor<B, 1> reduce_loss(const Tensor<B, D>& x, Reduction reduction) {
    return reduction == Reduction::Sum ? x.sum() : x.mean();
}

/// A list of values as "[a, b]" (for the displays).
template <class T>
std::string list_string(const std::vector<T>& v) {
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << ']';
    return os.str();
}

/// Class weights from a config, as a tensor on `device`.
template <Backend B>
std::optional<Tensor<B, 1>> weights_tensor(const std::optional<std::vector<double>>& w,
                                           const typename B::Device& device) {
    if (!w) return std::nullopt;
    return Tensor<B, 1>::from_data(TensorData(*w, Shape{w->size()}), device);
}

/// Checks that every weight is positive and the smoothing is in [0, 1] (Burn's assertions).
inline void check_weights_and_smoothing(const char* config,
                                        const std::optional<std::vector<double>>& weights,
                                        const std::optional<double>& smoothing) {
    if (smoothing) {
        BURN_CHECK(*smoothing >= 0.0 && *smoothing <= 1.0, config,
                   "::init: smoothing must be in [0, 1], got ", *smoothing);
    }
    if (weights) {
        BURN_CHECK(!weights->empty(), config, "::init: weights must not be empty");
        for (std::size_t i = 0; i < weights->size(); ++i)
            BURN_CHECK((*weights)[i] > 0.0, config, "::init: weights must be positive, got ",
                       (*weights)[i], " at index ", i);
    }
}

/// The smallest probability whose log is taken (Burn: the square root of the dtype's smallest
/// positive normal value), so that log(0) stays finite.
inline double min_probability(DType dtype) {
    switch (dtype) {
        case DType::F64: return std::sqrt(std::numeric_limits<double>::min());
        case DType::F16: return std::sqrt(6.103515625e-05);
        default: return std::sqrt(double(std::numeric_limits<float>::min()));
    }
}
}  // namespace loss_detail

// ==================================================================================== MseLoss

/// Mean squared error: (prediction - target)^2, reduced (torch.nn.MSELoss). No configuration.
struct MseLoss {
    BURN_MODULE()

    /// The reduced loss of predictions and targets of the same shape, as a [1] tensor.
    template <Backend B, std::size_t D>
    Tensor<B, 1> forward(const Tensor<B, D>& predictions, const Tensor<B, D>& targets,
                         Reduction reduction = Reduction::Mean) const {
        return loss_detail::reduce_loss(  // on autocast's f32 list
            forward_no_reduction(autocast::full(predictions), autocast::full(targets)), reduction);
    }

    /// The element-wise loss, of the shape of the inputs.
    template <Backend B, std::size_t D>
    Tensor<B, D> forward_no_reduction(const Tensor<B, D>& predictions,
                                      const Tensor<B, D>& targets) const {
        BURN_CHECK(predictions.shape() == targets.shape(), "MseLoss::forward: predictions ",
                   predictions.shape(), " and targets ", targets.shape(), " differ in shape");
        const auto diff = predictions - targets;
        return diff * diff;
    }
};

// ================================================================================== HuberLoss

struct HuberLoss;

/// Configuration of HuberLoss.
struct HuberLossConfig {
    /// Where the loss turns from quadratic to linear (torch's `delta`).
    Required<double> delta;
    BURN_CONFIG(HuberLossConfig, delta)

    HuberLoss init() const;
};

/// Huber loss of the residuals r = target - prediction (torch.nn.HuberLoss):
/// 0.5 r^2 where |r| <= delta, delta (|r| - delta / 2) elsewhere; reduced.
struct HuberLoss {
    double delta = 1.0;
    double lin_bias = 0.5;  ///< delta^2 / 2
    BURN_MODULE(delta, lin_bias)

    /// The reduced loss of predictions and targets of the same shape, as a [1] tensor.
    template <Backend B, std::size_t D>
    Tensor<B, 1> forward(const Tensor<B, D>& predictions, const Tensor<B, D>& targets,
                         Reduction reduction = Reduction::Mean) const {
        return loss_detail::reduce_loss(  // on autocast's f32 list
            forward_no_reduction(autocast::full(predictions), autocast::full(targets)), reduction);
    }

    /// The element-wise loss, of the shape of the inputs.
    template <Backend B, std::size_t D>
    Tensor<B, D> forward_no_reduction(const Tensor<B, D>& predictions,
                                      const Tensor<B, D>& targets) const {
        BURN_CHECK(predictions.shape() == targets.shape(), "HuberLoss::forward: predictions ",
                   predictions.shape(), " and targets ", targets.shape(), " differ in shape");
        return forward_residuals(targets - predictions);
    }

    /// The element-wise loss of the residuals.
    template <Backend B, std::size_t D>
    Tensor<B, D> forward_residuals(const Tensor<B, D>& r) const {
        const auto is_large = r.abs().greater_elem(delta);
        // delta * sign(r) outside the bound, with no jump at 0 inside it.
        const auto softsign = r.clamp(-delta, delta);
        const auto outside = softsign * r - lin_bias;
        const auto inside = r * r * 0.5;
        return inside.mask_where(is_large, outside);
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("delta", delta).add("lin_bias", lin_bias);
    }
};

inline HuberLoss HuberLossConfig::init() const {
    BURN_CHECK(*delta >= 0.0, "HuberLossConfig::init: delta must be non-negative, got ", *delta);
    return HuberLoss{*delta, 0.5 * *delta * *delta};
}

// =========================================================================== CrossEntropyLoss

template <Backend B>
struct CrossEntropyLoss;

/// Configuration of CrossEntropyLoss.
struct CrossEntropyLossConfig {
    /// Targets equal to one of these are ignored: they add nothing to the loss nor to the
    /// normaliser of the mean (torch's ignore_index, for several values).
    std::optional<std::vector<std::size_t>> pad_tokens = std::nullopt;
    /// One positive weight per class (torch's `weight`): a sample's loss is multiplied by the
    /// weight of its target, and the mean divides by the sum of those weights.
    std::optional<std::vector<double>> weights = std::nullopt;
    /// Label smoothing in [0, 1] (torch's `label_smoothing`): the target distribution is
    /// (1 - smoothing) * one_hot + smoothing / classes.
    std::optional<double> smoothing = std::nullopt;
    /// true: the inputs are logits (log_softmax is applied); false: they are probabilities.
    bool logits = true;
    BURN_CONFIG(CrossEntropyLossConfig, pad_tokens, weights, smoothing, logits)

    template <Backend B>
    CrossEntropyLoss<B> init(const typename B::Device& device = {}) const;
};

/// Cross-entropy between class scores [batch, classes] and Int class indices [batch]
/// (torch.nn.CrossEntropyLoss with class-index targets).
template <Backend B>
struct CrossEntropyLoss {
    std::optional<std::vector<std::size_t>> pad_tokens;
    std::optional<Tensor<B, 1>> weights;  ///< [classes], a constant (not trained, not saved)
    std::optional<double> smoothing;
    bool logits = true;
    BURN_MODULE(pad_tokens, weights, smoothing, logits)

    /// The loss as a [1] tensor: the weighted mean over the samples that are not padding
    /// (Reduction::Mean / Auto; NaN when every sample is padding) or their sum (Reduction::Sum).
    Tensor<B, 1> forward(const Tensor<B, 2>& logits_arg, const Tensor<B, 1, Int>& targets,
                         Reduction reduction = Reduction::Mean) const {
        const Tensor<B, 2> logits_in = autocast::full(logits_arg);  // on autocast's f32 list
        const std::size_t batch = logits_in.dims()[0], classes = logits_in.dims()[1];
        BURN_CHECK(targets.dims()[0] == batch, "CrossEntropyLoss::forward: targets ",
                   targets.shape(), " do not match the batch of logits ", logits_in.shape());
        if (weights) {
            BURN_CHECK(
                weights->dims()[0] == classes, "CrossEntropyLoss::forward: ", weights->dims()[0],
                " class weights for logits ", logits_in.shape(), " with ", classes, " classes");
        }
        const auto mask = padding_mask(targets);
        // Padded targets may lie outside [0, classes): they are replaced by 0 before indexing.
        const auto safe = mask ? targets.mask_fill(*mask, 0) : targets;
        // A host-memory backend checks the targets here, with a message naming the loss. A
        // device backend would wait for the device to read them: there the gather (and select)
        // below check every index in the kernel and report an out-of-range target as burn::Error
        // at the next read, so that a training step stays asynchronous (and can be captured as a
        // CUDA graph); with smoothing, one_hot checks them.
        if (batch > 0 && ::burn::capabilities<B>.host_memory) {
            const auto lo = safe.min().into_scalar(), hi = safe.max().into_scalar();
            BURN_CHECK(lo >= 0 && hi < std::int64_t(classes), "CrossEntropyLoss::forward: target ",
                       lo < 0 ? lo : hi, " is out of range for ", classes, " classes");
        }

        const auto logp =
            logits ? activation::log_softmax(logits_in, 1)
                   : logits_in.clamp_min(loss_detail::min_probability(logits_in.dtype())).log();
        Tensor<B, 1> per_sample = [&] {
            if (smoothing) {
                const double a = *smoothing;
                auto soft = safe.one_hot(classes).into_float() * (1.0 - a) + a / double(classes);
                auto weighted = logp * soft;
                if (weights) weighted = weighted * weights->template unsqueeze<2>();
                return weighted.sum_dim(1).template squeeze<1>(1);
            }
            auto picked =
                logp.gather(1, safe.template reshape<2>(
                                   std::array<std::int64_t, 2>{std::int64_t(batch), 1}))
                    .template reshape<1>(std::array<std::int64_t, 1>{std::int64_t(batch)});
            if (weights) picked = picked * weights->select(0, safe);
            return picked;
        }();

        if (mask) per_sample = per_sample.mask_fill(*mask, 0.0);
        if (reduction == Reduction::Sum) return per_sample.sum().neg();
        if (!weights && !mask) return per_sample.mean().neg();
        auto normaliser = weights ? weights->select(0, safe) : per_sample.ones_like();
        if (mask) normaliser = normaliser.mask_fill(*mask, 0.0);
        return per_sample.sum().neg() / normaliser.sum();
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("pad_tokens",
              pad_tokens ? loss_detail::list_string(*pad_tokens) : std::string("None"))
            .add("weights", weights)
            .add("smoothing", smoothing)
            .add("logits", logits);
    }

private:
    std::optional<Tensor<B, 1, Bool>> padding_mask(const Tensor<B, 1, Int>& targets) const {
        if (!pad_tokens || pad_tokens->empty()) return std::nullopt;
        std::optional<Tensor<B, 1, Bool>> mask;
        for (const std::size_t token : *pad_tokens) {
            auto m = targets.equal_elem(std::int64_t(token));
            mask = mask ? mask->bool_or(m) : m;
        }
        return mask;
    }
};

template <Backend B>
CrossEntropyLoss<B> CrossEntropyLossConfig::init(const typename B::Device& device) const {
    loss_detail::check_weights_and_smoothing("CrossEntropyLossConfig", weights, smoothing);
    return CrossEntropyLoss<B>{pad_tokens, loss_detail::weights_tensor<B>(weights, device),
                               smoothing, logits};
}

// ===================================================================== BinaryCrossEntropyLoss

template <Backend B>
struct BinaryCrossEntropyLoss;

/// Configuration of BinaryCrossEntropyLoss.
struct BinaryCrossEntropyLossConfig {
    /// Positive weights: for inputs [batch] one per label value (2: weights[target] multiplies
    /// each sample); for inputs [..., classes] one per class (the last dim).
    std::optional<std::vector<double>> weights = std::nullopt;
    /// Label smoothing in [0, 1]: targets become t (1 - smoothing) + smoothing / n, with n the
    /// number of classes (the last dim; 2 for inputs [batch]).
    std::optional<double> smoothing = std::nullopt;
    /// true: the inputs are logits (the sigmoid is folded into the loss, as
    /// torch.nn.BCEWithLogitsLoss); false: they are probabilities (torch.nn.BCELoss).
    bool logits = false;
    BURN_CONFIG(BinaryCrossEntropyLossConfig, weights, smoothing, logits)

    template <Backend B>
    BinaryCrossEntropyLoss<B> init(const typename B::Device& device = {}) const;
};

/// Binary cross-entropy between predictions and Int 0/1 targets of the same shape: [batch]
/// (binary) or [batch, classes] (multi-label).
template <Backend B>
struct BinaryCrossEntropyLoss {
    std::optional<Tensor<B, 1>> weights;  ///< a constant (not trained, not saved)
    std::optional<double> smoothing;
    bool logits = false;
    BURN_MODULE(weights, smoothing, logits)

    /// The mean (Reduction::Mean / Auto, Burn's only choice) or the sum of the element-wise
    /// loss, as a [1] tensor.
    template <std::size_t D>
    Tensor<B, 1> forward(const Tensor<B, D>& input, const Tensor<B, D, Int>& targets,
                         Reduction reduction = Reduction::Mean) const {
        return loss_detail::reduce_loss(  // on autocast's f32 list
            forward_no_reduction(autocast::full(input), targets), reduction);
    }

    /// The element-wise loss, of the shape of the inputs.
    template <std::size_t D>
    Tensor<B, D> forward_no_reduction(const Tensor<B, D>& input,
                                      const Tensor<B, D, Int>& targets) const {
        BURN_CHECK(input.shape() == targets.shape(), "BinaryCrossEntropyLoss::forward: input ",
                   input.shape(), " and targets ", targets.shape(), " differ in shape");
        const auto dims = targets.dims();
        if (weights && D > 1) {
            BURN_CHECK(weights->dims()[0] == dims[D - 1],
                       "BinaryCrossEntropyLoss::forward: ", weights->dims()[0],
                       " class weights for input ", input.shape(), " with ", dims[D - 1],
                       " classes (last dim)");
        }
        auto t = targets.into_float();
        if (smoothing) {
            const double n = D > 1 ? double(dims[D - 1]) : 2.0;
            t = t * (1.0 - *smoothing) + *smoothing / n;
        }
        auto loss = [&] {
            if (logits) {
                // (1 - t) x - log(sigmoid(x)): never overflows.
                return (1.0 - t) * input - activation::log_sigmoid(input);
            }
            // -(t log p + (1 - t) log(1 - p)), each log clamped at -100 as torch.
            return (t - 1.0) * input.neg().log1p().clamp_min(-100.0) -
                   t * input.log().clamp_min(-100.0);
        }();
        if (weights) {
            if constexpr (D > 1) {
                loss = loss * weights->template unsqueeze<D>();
            } else {
                const auto n = std::int64_t(weights->dims()[0]);
                // On a device backend, select checks the targets in the kernel (see
                // CrossEntropyLoss::forward).
                if (targets.num_elements() > 0 && ::burn::capabilities<B>.host_memory) {
                    const auto lo = targets.min().into_scalar(), hi = targets.max().into_scalar();
                    BURN_CHECK(lo >= 0 && hi < n, "BinaryCrossEntropyLoss::forward: target ",
                               lo < 0 ? lo : hi, " has no weight among ", n);
                }
                loss = loss * weights->select(0, targets);
            }
        }
        return loss;
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("weights", weights).add("smoothing", smoothing).add("logits", logits);
    }
};

template <Backend B>
BinaryCrossEntropyLoss<B> BinaryCrossEntropyLossConfig::init(
    const typename B::Device& device) const {
    loss_detail::check_weights_and_smoothing("BinaryCrossEntropyLossConfig", weights, smoothing);
    return BinaryCrossEntropyLoss<B>{loss_detail::weights_tensor<B>(weights, device), smoothing,
                                     logits};
}

}  // namespace burn::nn

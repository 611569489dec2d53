// SPDX-License-Identifier: MIT OR Apache-2.0
// What a model's training and validation steps return (Burn's burn::train outputs):
//   ClassificationOutput<B>  loss, logits [batch, classes], targets [batch]
//   RegressionOutput<B>      loss, output [batch, n], targets [batch, n]
//   TrainOutput<TO>          the gradients of a training step (per parameter) and its item TO
// and their adaptation to the metrics' inputs (ClassificationOutput feeds LossMetric,
// AccuracyMetric, TopKAccuracyMetric and the precision/recall/F metrics; RegressionOutput feeds
// LossMetric, MaeMetric, RmseMetric and R2Metric).
#pragma once

#include <cstddef>
#include <utility>

#include "burn/autodiff/autodiff.hpp"
#include "burn/optim/grads.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/tensor.hpp"
#include "burn/train/metric.hpp"

namespace burn::train {

/// A classification step's output (Burn's ClassificationOutput).
template <Backend B>
struct ClassificationOutput {
    using Backend = B;
    Tensor<B, 1> loss;          ///< [1] (or one value per item)
    Tensor<B, 2> output;        ///< scores [batch, classes]
    Tensor<B, 1, Int> targets;  ///< class indices [batch]
};

/// A regression step's output (Burn's RegressionOutput).
template <Backend B>
struct RegressionOutput {
    using Backend = B;
    Tensor<B, 1> loss;
    Tensor<B, 2> output;   ///< [batch, n]
    Tensor<B, 2> targets;  ///< [batch, n]
};

/// A training step's result (Burn's TrainOutput): the gradients of the loss for every parameter
/// of the model, and the item the metrics are computed from. B is the autodiff backend (taken
/// from TO::Backend by default, as ClassificationOutput and RegressionOutput define it).
///
///   TrainOutput<ClassificationOutput<B>> train_step(const MnistBatch<B>& batch) const
///       requires burn::AutodiffBackend<B> {
///       auto item = forward_classification(batch.images, batch.targets);
///       auto grads = item.loss.backward();
///       return {*this, grads, std::move(item)};
///   }
template <class TO, class B = typename TO::Backend>
struct TrainOutput {
    optim::GradientsParams<B> grads;
    TO item;

    TrainOutput(optim::GradientsParams<B> g, TO it) : grads(std::move(g)), item(std::move(it)) {}
    /// The gradients of `model`'s parameters taken from `gradients` (Burn's TrainOutput::new).
    template <class M>
    TrainOutput(const M& model, typename B::Gradients& gradients, TO it)
        : grads(optim::GradientsParams<B>::from_grads(gradients, model)), item(std::move(it)) {}
    template <class M>
    TrainOutput(const M& model, typename B::Gradients&& gradients, TO it)
        : TrainOutput(model, gradients, std::move(it)) {}
};

// ============================================================================= adaptors
namespace detail {
/// The number of items a batch output holds (its first dimension).
template <class T>
std::size_t batch_of(const T& t) {
    return t.dims()[0];
}
}  // namespace detail

template <Backend B>
struct Adaptor<LossInput, ClassificationOutput<B>> {
    static LossInput adapt(const ClassificationOutput<B>& o) {
        return LossInput{o.loss.to_data(), detail::batch_of(o.targets)};
    }
};
template <Backend B>
struct Adaptor<AccuracyInput, ClassificationOutput<B>> {
    static AccuracyInput adapt(const ClassificationOutput<B>& o) {
        return AccuracyInput{o.output.to_data(), o.targets.to_data()};
    }
};
template <Backend B>
struct Adaptor<ConfusionStatsInput, ClassificationOutput<B>> {
    static ConfusionStatsInput adapt(const ClassificationOutput<B>& o) {
        return ConfusionStatsInput{o.output.to_data(), o.targets.to_data()};
    }
};
template <Backend B>
struct Adaptor<LossInput, RegressionOutput<B>> {
    static LossInput adapt(const RegressionOutput<B>& o) {
        return LossInput{o.loss.to_data(), detail::batch_of(o.targets)};
    }
};
template <Backend B>
struct Adaptor<RegressionInput, RegressionOutput<B>> {
    static RegressionInput adapt(const RegressionOutput<B>& o) {
        return RegressionInput{o.output.to_data(), o.targets.to_data()};
    }
};

}  // namespace burn::train

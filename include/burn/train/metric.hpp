// SPDX-License-Identifier: MIT OR Apache-2.0
// Metrics (Burn's burn::train::metric): what the Learner measures at every step of training and
// validation. A metric takes its own input type (AccuracyInput, LossInput, ...), which the step's
// output is adapted to (Burn's Adaptor trait: specialise burn::train::Adaptor<Input, Output>).
//
//   struct MyMetric {
//       using Input = train::LossInput;
//       train::MetricEntry update(const Input& in, const train::MetricMetadata& md);
//       void clear();                          // called at the start of every epoch
//       std::string name() const;              // the name shown and used for the log files
//       double value() const;                  // optional: makes it Numeric (plotted, usable
//   };                                         //           for early stopping)
//
// Metric inputs hold host data (TensorData), so that metrics are independent of the backend: the
// same AccuracyMetric serves training (Autodiff<B>) and validation (B).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "burn/tensor/data.hpp"

namespace burn::train {

/// Where training stands when a metric is updated (Burn's MetricMetadata).
struct MetricMetadata {
    std::size_t items_processed = 0;  ///< items of the epoch processed so far (this batch included)
    std::size_t items_total = 0;      ///< items of the epoch
    std::size_t epoch = 1;            ///< 1-based
    std::size_t epoch_total = 1;
    std::size_t iteration = 1;  ///< 1-based, within the epoch
    std::optional<double> lr;   ///< the learning rate of this step (training only)
};

/// A metric's state after an update (Burn's MetricEntry): its name, the text shown by the
/// renderer, and the text written as one line of the metric's log file.
struct MetricEntry {
    std::string name;
    std::string formatted;
    std::string serialized;
};

/// Burn's Metric trait. `update` is called once per step with the adapted step output; `clear`
/// at the start of every epoch (of each split).
template <class M>
concept Metric = std::move_constructible<M> &&
    requires(M& m, const M& cm, const typename M::Input& in, const MetricMetadata& md) {
    { m.update(in, md) } -> std::same_as<MetricEntry>;
    m.clear();
    { cm.name() } -> std::convertible_to<std::string>;
};

/// Burn's Numeric trait: a metric with a value (the running value over the epoch so far), which
/// can be plotted and watched by early stopping.
template <class M>
concept Numeric = Metric<M> && requires(const M& m) {
    { m.value() } -> std::convertible_to<double>;
};

/// Burn's Adaptor<I> for an output type O: specialise it with
///   static I adapt(const O& output);
/// The library adapts ClassificationOutput and RegressionOutput to the inputs of its metrics.
template <class Input, class Output>
struct Adaptor;

/// Whether O adapts to I.
template <class O, class I>
concept Adapts = requires(const O& o) {
    { Adaptor<I, O>::adapt(o) } -> std::convertible_to<I>;
};

/// The input of metrics that need none (Burn's `()`): learning rate, speed, CPU use.
struct NoInput {};
template <class Output>
struct Adaptor<NoInput, Output> {
    static NoInput adapt(const Output&) { return {}; }
};

// =============================================================================== inputs
/// LossMetric's input: the loss (a tensor of one element, or of one per item: its mean is used)
/// and the number of items it was computed on (the weight of this step in the epoch's mean).
struct LossInput {
    TensorData loss;
    std::size_t batch_size = 1;
};

/// AccuracyMetric's and TopKAccuracyMetric's input: scores [batch, classes] (logits or
/// probabilities, any float dtype) and targets [batch] (class indices, any int dtype).
struct AccuracyInput {
    TensorData outputs;
    TensorData targets;
};

/// The input of PrecisionMetric, RecallMetric and FBetaScoreMetric (Burn's ConfusionStatsInput):
/// predictions [batch, classes] (scores or probabilities) and targets, either [batch] class
/// indices (multiclass) or [batch, classes] booleans / 0-1 ints (multilabel, binary).
struct ConfusionStatsInput {
    TensorData predictions;
    TensorData targets;
};

/// The input of the regression metrics (MaeMetric, RmseMetric, R2Metric): outputs and targets of
/// one shape, [batch] or [batch, n] (any float or int dtype).
struct RegressionInput {
    TensorData outputs;
    TensorData targets;
};

// =============================================================================== numeric state
/// How NumericMetricState formats a value: `<name>`, a unit ("%", "item/s") and digits.
struct FormatOptions {
    std::string name;
    std::optional<std::string> unit;
    std::optional<int> precision;

    explicit FormatOptions(std::string n) : name(std::move(n)) {}
    FormatOptions& with_unit(std::string u) & {
        unit = std::move(u);
        return *this;
    }
    FormatOptions&& with_unit(std::string u) && { return std::move(with_unit(std::move(u))); }
    FormatOptions& with_precision(int p) & {
        precision = p;
        return *this;
    }
    FormatOptions&& with_precision(int p) && { return std::move(with_precision(p)); }
};

/// Burn's NumericMetricState: the running, weighted mean of a numeric metric over the epoch and
/// its value for the current step. `update(v, n, fmt)` gives the entry
///   formatted:  "epoch <running mean> <unit> - batch <v> <unit>"
///   serialized: "<v>,<n>"   (the step's value and weight: a log line)
class NumericMetricState {
public:
    MetricEntry update(double value, std::size_t batch_size, const FormatOptions& format);
    /// Forgets the epoch (value() is then 0).
    void reset();
    /// The running mean over the epoch, weighted by batch sizes.
    double value() const { return count_ == 0 ? 0.0 : sum_ / double(count_); }
    /// The last step's value.
    double current() const { return current_; }
    /// Items counted since the last reset.
    std::size_t count() const { return count_; }

private:
    double sum_ = 0.0;
    std::size_t count_ = 0;
    double current_ = 0.0;
};

/// Formats `v` with `precision` digits after the point (2 when unset), then " <unit>" if any.
std::string format_value(double v, const FormatOptions& format);

}  // namespace burn::train

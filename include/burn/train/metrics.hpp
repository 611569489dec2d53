// SPDX-License-Identifier: MIT OR Apache-2.0
// The library's metrics (Burn's burn::train::metric): accuracy, top-k accuracy, loss, learning
// rate, iteration speed, CPU use and memory, precision, recall and F-beta score, and the
// regression metrics MAE, RMSE and R2. Each is a plain
// class satisfying burn::train::Metric and Numeric (burn/train/metric.hpp); its inputs hold host
// data, so one metric serves every backend. See docs/metrics.md.
//
//   AccuracyMetric            AccuracyInput          "Accuracy"                        %
//   TopKAccuracyMetric(k)     AccuracyInput          "Top-K Accuracy @ TopK(k)"        %
//   LossMetric                LossInput              "Loss"
//   LearningRateMetric        NoInput                "Learning Rate"
//   IterationSpeedMetric      NoInput                "Iteration Speed"                 item/s
//   CpuUse                    NoInput                "CPU Usage"                       %
//   CpuMemory                 NoInput                "CPU Memory Usage"                GB
//   PrecisionMetric           ConfusionStatsInput    "Precision @ TopK(1) [Micro]"     %
//   RecallMetric              ConfusionStatsInput    "Recall @ Threshold(0.5) [Macro]" %
//   FBetaScoreMetric          ConfusionStatsInput    "FBetaScore (1) @ TopK(1) [Micro]" %
//   MaeMetric                 RegressionInput        "MAE"
//   RmseMetric                RegressionInput        "RMSE"
//   R2Metric                  RegressionInput        "R2"
//
// Every epoch value is exact over the epoch: accuracies are correct / counted items, the loss a
// mean weighted by batch sizes, and precision, recall and F-beta are computed from the confusion
// counts (TP, FP, FN per class) accumulated over the epoch, not averaged from batch values; MAE,
// RMSE and R2 likewise from sums over every element of the epoch.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burn/train/metric.hpp"

namespace burn::train {

namespace detail {
/// The shortest text of `v` that reads back to the same double, as Rust's Display writes it
/// ("0.1", "50", "66.66666666666667", "NaN", "inf"), with an exponent for |v| < 1e-7 or
/// |v| >= 1e21 ("1e-300").
std::string format_roundtrip(double v);
/// `v` as Rust prints an f64: Display (`{}`: "1", "0.5") or Debug (`{:?}`: "1.0", "0.5", "1e-5").
/// Used to build Burn's parametrised metric names.
std::string rust_float(double v, bool debug);
}  // namespace detail

// =============================================================================== accuracy
/// Percentage of items whose highest score (argmax over the classes; on ties the first, lowest
/// index wins, as Burn's argmax) is the target class. With a pad token, items whose target is
/// the pad token are left out (they count neither as right nor as items): the epoch value is
/// correct / counted items over the epoch.
class AccuracyMetric {
public:
    using Input = AccuracyInput;

    AccuracyMetric() = default;
    /// A copy that leaves out the items whose target is `index` (sequence padding).
    AccuracyMetric with_pad_token(std::int64_t index) const;

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    std::string name() const { return "Accuracy"; }
    /// The epoch's accuracy so far, in percent (0 before any counted item).
    double value() const { return state_.value(); }
    std::optional<std::int64_t> pad_token() const { return pad_token_; }

private:
    NumericMetricState state_;
    std::optional<std::int64_t> pad_token_;
};

/// Percentage of items whose target is among the `k` highest scores (ties broken towards the
/// lower class index, as a stable descending sort). k = 1 is AccuracyMetric. Throws at
/// construction when k == 0 and at update when k exceeds the number of classes.
class TopKAccuracyMetric {
public:
    using Input = AccuracyInput;

    explicit TopKAccuracyMetric(std::size_t k = 1);
    TopKAccuracyMetric with_pad_token(std::int64_t index) const;

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    /// "Top-K Accuracy @ TopK(<k>)" (unique per k, as Burn).
    std::string name() const;
    double value() const { return state_.value(); }
    std::size_t k() const { return k_; }
    std::optional<std::int64_t> pad_token() const { return pad_token_; }

private:
    std::size_t k_;
    NumericMetricState state_;
    std::optional<std::int64_t> pad_token_;
};

// =============================================================================== loss
/// The mean of the loss tensor's elements, averaged over the epoch with the steps' batch sizes
/// as weights.
class LossMetric {
public:
    using Input = LossInput;

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    std::string name() const { return "Loss"; }
    double value() const { return state_.value(); }

private:
    NumericMetricState state_;
};

// =============================================================================== learning rate
/// The learning rate of each step (MetricMetadata::lr). A step without one (validation) shows
/// "n/a" and logs "NaN,0" (a value of weight 0).
class LearningRateMetric {
public:
    using Input = NoInput;

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    std::string name() const { return "Learning Rate"; }
    /// The last learning rate seen since clear(); NaN when none.
    double value() const;

private:
    NumericMetricState state_;
};

// =============================================================================== speed
/// Items processed per second since the start of the epoch (clear()): the epoch value is
/// MetricMetadata::items_processed / seconds since clear(); the batch value is this step's
/// items / seconds since the previous update.
class IterationSpeedMetric {
public:
    using Input = NoInput;
    using Clock = std::function<std::chrono::steady_clock::time_point()>;

    IterationSpeedMetric();
    /// With another clock (tests).
    explicit IterationSpeedMetric(Clock clock);

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    std::string name() const { return "Iteration Speed"; }
    /// Items per second over the epoch so far (0 before any update).
    double value() const { return epoch_speed_; }

private:
    Clock clock_;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_;
    std::size_t last_items_ = 0;
    double epoch_speed_ = 0.0;
};

// =============================================================================== system
/// The whole machine's CPU utilisation in percent (all cores: busy / total jiffies of
/// /proc/stat between two samples), sampled at most every `refresh` (Burn: 200 ms through
/// sysinfo). 0 until two samples are available. Linux only: elsewhere the constructor throws.
class CpuUse {
public:
    using Input = NoInput;

    explicit CpuUse(std::chrono::milliseconds refresh = std::chrono::milliseconds(200));

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear() {}
    std::string name() const { return "CPU Usage"; }
    double value() const { return current_; }

private:
    void sample();
    std::chrono::milliseconds refresh_;
    std::chrono::steady_clock::time_point last_refresh_;
    unsigned long long busy_ = 0, total_ = 0;
    double current_ = 0.0;
};

/// The RAM in use (MemTotal - MemAvailable of /proc/meminfo, as sysinfo's used memory) in GB
/// (1e9 bytes), refreshed at most every `refresh`. Linux only: elsewhere the constructor throws.
class CpuMemory {
public:
    using Input = NoInput;

    explicit CpuMemory(std::chrono::milliseconds refresh = std::chrono::milliseconds(200));

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear() {}
    std::string name() const { return "CPU Memory Usage"; }
    /// RAM in use, GB.
    double value() const { return used_gb_; }
    /// Total RAM, GB.
    double total() const { return total_gb_; }

private:
    void sample();
    std::chrono::milliseconds refresh_;
    std::chrono::steady_clock::time_point last_refresh_;
    double used_gb_ = 0.0;
    double total_gb_ = 0.0;
};

// =============================================================================== classification
/// How per-class statistics become one number (Burn's ClassReduction).
///   Micro: the counts of all classes are summed, then the ratio is taken (in single-label
///          multiclass top-1, micro precision = micro recall = accuracy).
///   Macro: the ratio of each class, then their mean over the classes where it is defined
///          (a class with 0/0 is left out, as Burn; sklearn would count it as 0).
enum class ClassReduction { Micro, Macro };
/// "Micro" or "Macro".
const char* class_reduction_name(ClassReduction r);

/// How scores become predicted labels (Burn's DecisionRule): a threshold (score > threshold;
/// binary and multilabel) or the k highest scores of each row (multiclass).
struct DecisionRule {
    enum class Kind { Threshold, TopK };
    Kind kind = Kind::Threshold;
    double threshold = 0.5;
    std::size_t top_k = 1;
    /// Rust's Debug form: "Threshold(0.5)", "TopK(1)".
    std::string to_string() const;
};

/// What kind of targets a confusion-statistics metric expects.
enum class ClassificationTask { Binary, Multiclass, Multilabel };

/// Per-class confusion counts of a classification metric, accumulated over the epoch.
struct ConfusionCounts {
    std::vector<std::uint64_t> tp, fp, fn;
    std::size_t samples = 0;
    void add(const ConfusionCounts& other);
};

/// The shared machinery of PrecisionMetric, RecallMetric and FBetaScoreMetric: checks the input,
/// turns scores into predicted labels, counts TP / FP / FN per class for the batch and the epoch.
class ConfusionStatsState {
public:
    ConfusionStatsState(ClassificationTask task, DecisionRule rule, ClassReduction reduction);

    /// Counts one batch (the metric's name goes into error messages).
    const ConfusionCounts& count(const ConfusionStatsInput& input, const std::string& metric);
    void reset();

    ClassificationTask task() const { return task_; }
    const DecisionRule& rule() const { return rule_; }
    ClassReduction reduction() const { return reduction_; }
    const ConfusionCounts& batch() const { return batch_; }
    const ConfusionCounts& epoch() const { return epoch_; }

    /// `ratio(tp, fp, fn)` reduced over the classes of `counts` (NaN when undefined).
    double reduce(const ConfusionCounts& counts,
                  const std::function<double(double, double, double)>& ratio) const;

private:
    ClassificationTask task_;
    DecisionRule rule_;
    ClassReduction reduction_;
    ConfusionCounts batch_, epoch_;
};

/// Precision TP / (TP + FP), in percent.
///   binary(threshold):               predictions [batch] or [batch, 1]; targets the same,
///                                    booleans or 0/1; positive when score > threshold.
///   multiclass(top_k, reduction):    predictions [batch, classes]; targets [batch] class
///                                    indices (or [batch, classes] one-hot); the top_k
///                                    highest scores of each row are the predicted labels.
///   multilabel(threshold, reduction): predictions and targets [batch, classes] (0/1 targets).
class PrecisionMetric {
public:
    using Input = ConfusionStatsInput;

    /// binary(0.5), as Burn's Default.
    PrecisionMetric() : PrecisionMetric(binary()) {}
    static PrecisionMetric binary(double threshold = 0.5);
    static PrecisionMetric multiclass(std::size_t top_k = 1,
                                      ClassReduction reduction = ClassReduction::Micro);
    static PrecisionMetric multilabel(double threshold = 0.5,
                                      ClassReduction reduction = ClassReduction::Micro);

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    /// "Precision @ <rule> [<reduction>]", e.g. "Precision @ TopK(1) [Micro]".
    std::string name() const;
    /// The epoch's precision from its accumulated counts, percent (0 before any update, NaN
    /// when undefined: no predicted positive).
    double value() const { return value_; }
    /// The last batch's precision, percent.
    double current() const { return current_; }
    const ConfusionStatsState& stats() const { return stats_; }

private:
    explicit PrecisionMetric(ConfusionStatsState stats) : stats_(std::move(stats)) {}
    ConfusionStatsState stats_;
    double value_ = 0.0, current_ = 0.0;
};

/// Recall TP / (TP + FN), in percent. Same constructors and inputs as PrecisionMetric.
class RecallMetric {
public:
    using Input = ConfusionStatsInput;

    RecallMetric() : RecallMetric(binary()) {}
    static RecallMetric binary(double threshold = 0.5);
    static RecallMetric multiclass(std::size_t top_k = 1,
                                   ClassReduction reduction = ClassReduction::Micro);
    static RecallMetric multilabel(double threshold = 0.5,
                                   ClassReduction reduction = ClassReduction::Micro);

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    /// "Recall @ <rule> [<reduction>]".
    std::string name() const;
    double value() const { return value_; }
    double current() const { return current_; }
    const ConfusionStatsState& stats() const { return stats_; }

private:
    explicit RecallMetric(ConfusionStatsState stats) : stats_(std::move(stats)) {}
    ConfusionStatsState stats_;
    double value_ = 0.0, current_ = 0.0;
};

/// The F-beta score (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP), in percent: beta > 1 weighs
/// recall more, beta < 1 precision; beta = 1 is F1. Same inputs as PrecisionMetric; beta comes
/// first, as Burn. Throws when beta is not a positive finite number.
class FBetaScoreMetric {
public:
    using Input = ConfusionStatsInput;

    static FBetaScoreMetric binary(double beta, double threshold = 0.5);
    static FBetaScoreMetric multiclass(double beta, std::size_t top_k = 1,
                                       ClassReduction reduction = ClassReduction::Micro);
    static FBetaScoreMetric multilabel(double beta, double threshold = 0.5,
                                       ClassReduction reduction = ClassReduction::Micro);

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    /// "FBetaScore (<beta>) @ <rule> [<reduction>]", e.g. "FBetaScore (1) @ TopK(1) [Micro]".
    std::string name() const;
    double value() const { return value_; }
    double current() const { return current_; }
    double beta() const { return beta_; }
    const ConfusionStatsState& stats() const { return stats_; }

private:
    FBetaScoreMetric(double beta, ConfusionStatsState stats);
    double beta_;
    ConfusionStatsState stats_;
    double value_ = 0.0, current_ = 0.0;
};

// =============================================================================== regression
/// Mean absolute error: mean |output - target| over every element of the epoch (sum of the
/// absolute errors / number of elements, so batches weigh by their element counts). As
/// torch.nn.functional.l1_loss and sklearn's mean_absolute_error (averaged over the outputs).
class MaeMetric {
public:
    using Input = RegressionInput;

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    std::string name() const { return "MAE"; }
    /// The epoch's MAE so far (0 before any element).
    double value() const { return count_ ? sum_ / double(count_) : 0.0; }
    double current() const { return current_; }

private:
    double sum_ = 0.0, current_ = 0.0;
    std::size_t count_ = 0;
};

/// Root mean squared error: sqrt(mean (output - target)^2) over every element of the epoch (the
/// root of the epoch's mean square, not a mean of the batches' roots).
class RmseMetric {
public:
    using Input = RegressionInput;

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    std::string name() const { return "RMSE"; }
    /// The epoch's RMSE so far (0 before any element).
    double value() const;
    double current() const { return current_; }

private:
    double sum_sq_ = 0.0, current_ = 0.0;
    std::size_t count_ = 0;
};

/// The coefficient of determination R2 = 1 - SS_res / SS_tot, with SS_res = sum (target -
/// output)^2 and SS_tot = sum (target - mean target)^2, computed over the whole epoch from
/// accumulated sums (the targets' mean and spread merged batch by batch), never by averaging
/// batch R2s. For [batch, n] outputs, R2 is computed per output column and averaged with equal
/// weights (sklearn's r2_score, multioutput="uniform_average"). A column whose targets are all
/// equal (SS_tot = 0) has no R2 and is left out of the average; the value is NaN when no column
/// has one (e.g. a batch of one item). 1 is a perfect fit, 0 is no better than predicting the
/// mean, and it is negative for worse.
class R2Metric {
public:
    using Input = RegressionInput;

    MetricEntry update(const Input& input, const MetricMetadata& metadata);
    void clear();
    std::string name() const { return "R2"; }
    /// The epoch's R2 so far (0 before any update, NaN when undefined).
    double value() const { return value_; }
    /// The last batch's R2 (NaN when undefined).
    double current() const { return current_; }

    /// Per-output-column sums of an epoch or a batch.
    struct Column {
        std::size_t n = 0;
        double mean = 0.0;    ///< mean target
        double m2 = 0.0;      ///< sum (target - mean)^2 = SS_tot
        double ss_res = 0.0;  ///< sum (target - output)^2
        void merge(const Column& other);
    };

private:
    std::vector<Column> epoch_;
    double value_ = 0.0, current_ = 0.0;
};

}  // namespace burn::train

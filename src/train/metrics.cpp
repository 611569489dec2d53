// SPDX-License-Identifier: MIT OR Apache-2.0
// The library's metrics (burn/train/metrics.hpp).
#include "burn/train/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/error.hpp"

namespace burn::train {

namespace {

// Whether class a ranks before class b in a row of scores: higher score first, ties towards the
// lower index (a stable descending sort, Burn's argsort_descending / argmax), NaN last.
struct Better {
    const double* row;
    bool operator()(std::size_t a, std::size_t b) const {
        const double x = row[a], y = row[b];
        const bool nx = std::isnan(x), ny = std::isnan(y);
        if (nx != ny) return ny;
        if (!nx && x != y) return x > y;
        return a < b;
    }
};

// The rank (0 = highest) of class t among the `classes` scores of a row.
std::size_t rank_of(const double* row, std::size_t classes, std::size_t t) {
    Better better{row};
    std::size_t r = 0;
    for (std::size_t j = 0; j < classes; ++j)
        if (j != t && better(j, t)) ++r;
    return r;
}

bool is_integral(double v) { return std::isfinite(v) && std::floor(v) == v; }

FormatOptions percent(const std::string& name) {
    return FormatOptions(name).with_unit("%").with_precision(2);
}

// Accuracy and top-k accuracy: percent of counted items whose target is among the k best.
MetricEntry accuracy_update(const char* op, const AccuracyInput& input, std::size_t k,
                            const std::optional<std::int64_t>& pad, NumericMetricState& state,
                            const std::string& name) {
    const auto& out = input.outputs;
    const auto& tgt = input.targets;
    BURN_CHECK(out.rank() == 2, op, ": outputs must be [batch, classes], got shape ", out.shape);
    const std::size_t batch = out.shape[0], classes = out.shape[1];
    BURN_CHECK(tgt.rank() == 1 && tgt.shape[0] == batch, op, ": targets must be [batch] = [", batch,
               "] (outputs ", out.shape, "), got shape ", tgt.shape);
    BURN_CHECK(batch == 0 || classes > 0, op, ": outputs have no class (shape ", out.shape, ")");
    BURN_CHECK(k <= classes || batch == 0, op, ": k (", k, ") exceeds the number of classes (",
               classes, "; outputs ", out.shape, ")");
    const auto scores = out.to_vec<double>();
    const auto targets = tgt.to_vec<double>();
    std::size_t counted = 0, correct = 0;
    for (std::size_t i = 0; i < batch; ++i) {
        const double t = targets[i];
        if (pad && t == double(*pad)) continue;
        BURN_CHECK(is_integral(t) && t >= 0 && t < double(classes), op, ": target ", t, " of item ",
                   i, " is not a class index in [0, ", classes, ") (outputs ", out.shape,
                   ", targets ", tgt.shape, ")");
        ++counted;
        if (rank_of(scores.data() + i * classes, classes, std::size_t(t)) < k) ++correct;
    }
    const double value = counted ? 100.0 * double(correct) / double(counted) : std::nan("");
    return state.update(value, counted, percent(name));
}

#if defined(__linux__)
constexpr bool kLinux = true;
#else
constexpr bool kLinux = false;
#endif

}  // namespace

// =============================================================================== accuracy
AccuracyMetric AccuracyMetric::with_pad_token(std::int64_t index) const {
    AccuracyMetric m = *this;
    m.pad_token_ = index;
    return m;
}

MetricEntry AccuracyMetric::update(const Input& input, const MetricMetadata&) {
    return accuracy_update("AccuracyMetric::update", input, 1, pad_token_, state_, name());
}

void AccuracyMetric::clear() { state_.reset(); }

TopKAccuracyMetric::TopKAccuracyMetric(std::size_t k) : k_(k) {
    BURN_CHECK(k > 0, "TopKAccuracyMetric: k must be greater than zero, got 0");
}

TopKAccuracyMetric TopKAccuracyMetric::with_pad_token(std::int64_t index) const {
    TopKAccuracyMetric m = *this;
    m.pad_token_ = index;
    return m;
}

MetricEntry TopKAccuracyMetric::update(const Input& input, const MetricMetadata&) {
    return accuracy_update("TopKAccuracyMetric::update", input, k_, pad_token_, state_, name());
}

void TopKAccuracyMetric::clear() { state_.reset(); }

std::string TopKAccuracyMetric::name() const {
    return "Top-K Accuracy @ TopK(" + std::to_string(k_) + ")";
}

// =============================================================================== loss
MetricEntry LossMetric::update(const Input& input, const MetricMetadata&) {
    BURN_CHECK(input.loss.num_elements() > 0, "LossMetric::update: the loss has no element (shape ",
               input.loss.shape, ")");
    const auto values = input.loss.to_vec<double>();
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    return state_.update(mean, input.batch_size, FormatOptions(name()).with_precision(2));
}

void LossMetric::clear() { state_.reset(); }

// =============================================================================== learning rate
MetricEntry LearningRateMetric::update(const Input&, const MetricMetadata& metadata) {
    if (metadata.lr) return state_.update(*metadata.lr, 1, FormatOptions(name()).with_precision(2));
    return MetricEntry{name(), "n/a", "NaN,0"};
}

void LearningRateMetric::clear() { state_.reset(); }

double LearningRateMetric::value() const {
    return state_.count() > 0 ? state_.current() : std::nan("");
}

// =============================================================================== speed
IterationSpeedMetric::IterationSpeedMetric()
    : IterationSpeedMetric([] { return std::chrono::steady_clock::now(); }) {}

IterationSpeedMetric::IterationSpeedMetric(Clock clock) : clock_(std::move(clock)) {
    BURN_CHECK(static_cast<bool>(clock_), "IterationSpeedMetric: the clock is empty");
    clear();
}

void IterationSpeedMetric::clear() {
    start_ = last_ = clock_();
    last_items_ = 0;
    epoch_speed_ = 0.0;
}

MetricEntry IterationSpeedMetric::update(const Input&, const MetricMetadata& metadata) {
    using Seconds = std::chrono::duration<double>;
    const auto now = clock_();
    const double epoch_s = Seconds(now - start_).count();
    const double step_s = Seconds(now - last_).count();
    const std::size_t items = metadata.items_processed;
    // items_processed restarting without a clear() (a new epoch) counts from zero.
    const std::size_t step_items = items >= last_items_ ? items - last_items_ : items;
    epoch_speed_ = epoch_s > 0 ? double(items) / epoch_s : 0.0;
    const double step_speed = step_s > 0 ? double(step_items) / step_s : 0.0;
    last_ = now;
    last_items_ = items;
    auto fmt = FormatOptions(name()).with_unit("item/s").with_precision(2);
    return MetricEntry{
        name(),
        "epoch " + format_value(epoch_speed_, fmt) + " - batch " + format_value(step_speed, fmt),
        detail::format_roundtrip(epoch_speed_) + ",1"};
}

// =============================================================================== system
CpuUse::CpuUse(std::chrono::milliseconds refresh) : refresh_(refresh) {
    BURN_CHECK(kLinux, "CpuUse: unsupported on this platform (it reads /proc/stat, Linux only)");
    sample();
    current_ = 0.0;
    last_refresh_ = std::chrono::steady_clock::now();
}

void CpuUse::sample() {
    std::ifstream in("/proc/stat");
    BURN_CHECK(in.good(), "CpuUse: cannot read /proc/stat");
    std::string label;
    in >> label;
    BURN_CHECK(label == "cpu", "CpuUse: /proc/stat does not start with the 'cpu' line (got '",
               label, "')");
    // user nice system idle iowait irq softirq steal (guest time is already in user / nice).
    unsigned long long f[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 8 && (in >> f[i]); ++i) {
    }
    unsigned long long total = 0;
    for (auto v : f) total += v;
    const unsigned long long idle = f[3] + f[4];
    const unsigned long long busy = total - idle;
    if (total > total_) {
        const double dt = double(total - total_);
        const double db = busy >= busy_ ? double(busy - busy_) : 0.0;
        current_ = std::clamp(100.0 * db / dt, 0.0, 100.0);
    }
    busy_ = busy;
    total_ = total;
}

MetricEntry CpuUse::update(const Input&, const MetricMetadata&) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_refresh_ >= refresh_) {
        sample();
        last_refresh_ = now;
    }
    return MetricEntry{name(), format_value(current_, percent(name())),
                       detail::format_roundtrip(current_)};
}

CpuMemory::CpuMemory(std::chrono::milliseconds refresh) : refresh_(refresh) {
    BURN_CHECK(kLinux,
               "CpuMemory: unsupported on this platform (it reads /proc/meminfo, Linux only)");
    sample();
    last_refresh_ = std::chrono::steady_clock::now();
}

void CpuMemory::sample() {
    std::ifstream in("/proc/meminfo");
    BURN_CHECK(in.good(), "CpuMemory: cannot read /proc/meminfo");
    std::string line;
    std::optional<double> total_kb, avail_kb;
    while (std::getline(in, line) && !(total_kb && avail_kb)) {
        std::istringstream ls(line);
        std::string key;
        double kb = 0;
        ls >> key >> kb;
        if (key == "MemTotal:") total_kb = kb;
        if (key == "MemAvailable:") avail_kb = kb;
    }
    BURN_CHECK(total_kb && avail_kb, "CpuMemory: /proc/meminfo lacks MemTotal or MemAvailable");
    total_gb_ = *total_kb * 1024.0 / 1e9;
    used_gb_ = std::max(0.0, *total_kb - *avail_kb) * 1024.0 / 1e9;
}

MetricEntry CpuMemory::update(const Input&, const MetricMetadata&) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_refresh_ >= refresh_) {
        sample();
        last_refresh_ = now;
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.2f / %.2f GB", used_gb_, total_gb_);
    return MetricEntry{name(), buf, detail::format_roundtrip(used_gb_)};
}

// =============================================================================== classification
const char* class_reduction_name(ClassReduction r) {
    return r == ClassReduction::Micro ? "Micro" : "Macro";
}

std::string DecisionRule::to_string() const {
    if (kind == Kind::TopK) return "TopK(" + std::to_string(top_k) + ")";
    return "Threshold(" + detail::rust_float(threshold, true) + ")";
}

void ConfusionCounts::add(const ConfusionCounts& other) {
    if (tp.empty()) {
        tp.assign(other.tp.size(), 0);
        fp.assign(other.fp.size(), 0);
        fn.assign(other.fn.size(), 0);
    }
    for (std::size_t c = 0; c < other.tp.size(); ++c) {
        tp[c] += other.tp[c];
        fp[c] += other.fp[c];
        fn[c] += other.fn[c];
    }
    samples += other.samples;
}

ConfusionStatsState::ConfusionStatsState(ClassificationTask task, DecisionRule rule,
                                         ClassReduction reduction)
    : task_(task), rule_(rule), reduction_(reduction) {}

void ConfusionStatsState::reset() {
    batch_ = {};
    epoch_ = {};
}

const ConfusionCounts& ConfusionStatsState::count(const ConfusionStatsInput& input,
                                                  const std::string& metric) {
    const std::string op = metric + "::update";
    const auto& pred = input.predictions;
    const auto& tgt = input.targets;
    std::size_t batch = 0, classes = 0;
    if (task_ == ClassificationTask::Binary) {
        BURN_CHECK(pred.rank() == 1 || (pred.rank() == 2 && pred.shape[1] == 1), op,
                   ": binary predictions must be [batch] or [batch, 1], got shape ", pred.shape,
                   " (use multiclass or multilabel for several classes)");
        batch = pred.shape[0];
        classes = 1;
        BURN_CHECK(
            (tgt.rank() == 1 || (tgt.rank() == 2 && tgt.shape[1] == 1)) && tgt.shape[0] == batch,
            op, ": binary targets must be [batch] or [batch, 1] with batch = ", batch,
            " (predictions ", pred.shape, "), got shape ", tgt.shape);
    } else {
        BURN_CHECK(pred.rank() == 2, op, ": predictions must be [batch, classes], got shape ",
                   pred.shape);
        batch = pred.shape[0];
        classes = pred.shape[1];
        BURN_CHECK(classes > 0, op, ": predictions have no class (shape ", pred.shape, ")");
        if (task_ == ClassificationTask::Multiclass) {
            BURN_CHECK((tgt.rank() == 1 && tgt.shape[0] == batch) || tgt.shape == pred.shape, op,
                       ": multiclass targets must be [batch] class indices or [batch, classes] "
                       "one-hot, with predictions ",
                       pred.shape, ", got shape ", tgt.shape);
        } else {
            BURN_CHECK(tgt.shape == pred.shape, op,
                       ": multilabel targets must be [batch, classes] like the predictions ",
                       pred.shape, ", got shape ", tgt.shape);
        }
    }
    BURN_CHECK(epoch_.tp.empty() || epoch_.tp.size() == classes, op, ": predictions ", pred.shape,
               " have ", classes, " classes, earlier batches of the epoch had ", epoch_.tp.size());
    if (rule_.kind == DecisionRule::Kind::TopK)
        BURN_CHECK(rule_.top_k <= classes, op, ": top_k (", rule_.top_k,
                   ") exceeds the number of classes (", classes, "; predictions ", pred.shape, ")");

    const auto scores = pred.to_vec<double>();
    const auto targets = tgt.to_vec<double>();
    const bool indices = task_ == ClassificationTask::Multiclass && tgt.rank() == 1;

    ConfusionCounts counts;
    counts.tp.assign(classes, 0);
    counts.fp.assign(classes, 0);
    counts.fn.assign(classes, 0);
    counts.samples = batch;
    std::vector<char> predicted(classes), actual(classes);
    std::vector<std::size_t> order(classes);
    for (std::size_t i = 0; i < batch; ++i) {
        const double* row = scores.data() + i * classes;
        // Targets of the row.
        if (indices) {
            const double t = targets[i];
            BURN_CHECK(is_integral(t) && t >= 0 && t < double(classes), op, ": target ", t,
                       " of item ", i, " is not a class index in [0, ", classes, ") (predictions ",
                       pred.shape, ", targets ", tgt.shape, ")");
            std::fill(actual.begin(), actual.end(), 0);
            actual[std::size_t(t)] = 1;
        } else {
            for (std::size_t c = 0; c < classes; ++c) {
                const double t = targets[i * classes + c];
                BURN_CHECK(t == 0.0 || t == 1.0, op, ": target ", t, " at item ", i, ", class ", c,
                           " is not 0 or 1 (targets ", tgt.shape, ")");
                actual[c] = t == 1.0;
            }
        }
        // Predicted labels of the row.
        if (rule_.kind == DecisionRule::Kind::Threshold) {
            for (std::size_t c = 0; c < classes; ++c) predicted[c] = row[c] > rule_.threshold;
        } else {
            std::iota(order.begin(), order.end(), std::size_t(0));
            std::nth_element(order.begin(), order.begin() + std::ptrdiff_t(rule_.top_k) - 1,
                             order.end(), Better{row});
            std::fill(predicted.begin(), predicted.end(), 0);
            for (std::size_t j = 0; j < rule_.top_k; ++j) predicted[order[j]] = 1;
        }
        for (std::size_t c = 0; c < classes; ++c) {
            counts.tp[c] += predicted[c] && actual[c];
            counts.fp[c] += predicted[c] && !actual[c];
            counts.fn[c] += !predicted[c] && actual[c];
        }
    }
    batch_ = std::move(counts);
    epoch_.add(batch_);
    return batch_;
}

double ConfusionStatsState::reduce(
    const ConfusionCounts& counts,
    const std::function<double(double, double, double)>& ratio) const {
    const std::size_t classes = counts.tp.size();
    if (classes == 0) return std::nan("");
    if (reduction_ == ClassReduction::Micro) {
        double tp = 0, fp = 0, fn = 0;
        for (std::size_t c = 0; c < classes; ++c) {
            tp += double(counts.tp[c]);
            fp += double(counts.fp[c]);
            fn += double(counts.fn[c]);
        }
        return ratio(tp, fp, fn);
    }
    double sum = 0;
    std::size_t defined = 0;
    for (std::size_t c = 0; c < classes; ++c) {
        const double r = ratio(double(counts.tp[c]), double(counts.fp[c]), double(counts.fn[c]));
        if (std::isnan(r)) continue;
        sum += r;
        ++defined;
    }
    return defined ? sum / double(defined) : std::nan("");
}

namespace {

ConfusionStatsState make_state(const char* op, ClassificationTask task, DecisionRule rule,
                               ClassReduction reduction) {
    if (rule.kind == DecisionRule::Kind::TopK)
        BURN_CHECK(rule.top_k > 0, op, ": top_k must be greater than zero, got 0");
    else BURN_CHECK(!std::isnan(rule.threshold), op, ": threshold is NaN");
    return ConfusionStatsState(task, rule, reduction);
}

DecisionRule threshold_rule(double t) {
    DecisionRule r;
    r.kind = DecisionRule::Kind::Threshold;
    r.threshold = t;
    return r;
}

DecisionRule topk_rule(std::size_t k) {
    DecisionRule r;
    r.kind = DecisionRule::Kind::TopK;
    r.top_k = k;
    return r;
}

double precision_ratio(double tp, double fp, double) { return tp / (tp + fp); }
double recall_ratio(double tp, double, double fn) { return tp / (tp + fn); }

// The entry of a confusion-statistics metric: batch and epoch values from the counts.
MetricEntry confusion_entry(const std::string& name, const ConfusionStatsState& stats, double value,
                            double current) {
    auto fmt = percent(name);
    return MetricEntry{
        name, "epoch " + format_value(value, fmt) + " - batch " + format_value(current, fmt),
        detail::format_roundtrip(current) + "," + std::to_string(stats.batch().samples)};
}

std::string rule_suffix(const ConfusionStatsState& s) {
    return " @ " + s.rule().to_string() + " [" + class_reduction_name(s.reduction()) + "]";
}

}  // namespace

// Binary classification has one class, where Micro and Macro agree; Burn's binary metrics keep
// the default reduction, Macro, which shows in their names.
PrecisionMetric PrecisionMetric::binary(double threshold) {
    return PrecisionMetric(make_state("PrecisionMetric::binary", ClassificationTask::Binary,
                                      threshold_rule(threshold), ClassReduction::Macro));
}
PrecisionMetric PrecisionMetric::multiclass(std::size_t top_k, ClassReduction reduction) {
    return PrecisionMetric(make_state("PrecisionMetric::multiclass", ClassificationTask::Multiclass,
                                      topk_rule(top_k), reduction));
}
PrecisionMetric PrecisionMetric::multilabel(double threshold, ClassReduction reduction) {
    return PrecisionMetric(make_state("PrecisionMetric::multilabel", ClassificationTask::Multilabel,
                                      threshold_rule(threshold), reduction));
}
MetricEntry PrecisionMetric::update(const Input& input, const MetricMetadata&) {
    stats_.count(input, "PrecisionMetric");
    current_ = 100.0 * stats_.reduce(stats_.batch(), precision_ratio);
    value_ = 100.0 * stats_.reduce(stats_.epoch(), precision_ratio);
    return confusion_entry(name(), stats_, value_, current_);
}
void PrecisionMetric::clear() {
    stats_.reset();
    value_ = current_ = 0.0;
}
std::string PrecisionMetric::name() const { return "Precision" + rule_suffix(stats_); }

RecallMetric RecallMetric::binary(double threshold) {
    return RecallMetric(make_state("RecallMetric::binary", ClassificationTask::Binary,
                                   threshold_rule(threshold), ClassReduction::Macro));
}
RecallMetric RecallMetric::multiclass(std::size_t top_k, ClassReduction reduction) {
    return RecallMetric(make_state("RecallMetric::multiclass", ClassificationTask::Multiclass,
                                   topk_rule(top_k), reduction));
}
RecallMetric RecallMetric::multilabel(double threshold, ClassReduction reduction) {
    return RecallMetric(make_state("RecallMetric::multilabel", ClassificationTask::Multilabel,
                                   threshold_rule(threshold), reduction));
}
MetricEntry RecallMetric::update(const Input& input, const MetricMetadata&) {
    stats_.count(input, "RecallMetric");
    current_ = 100.0 * stats_.reduce(stats_.batch(), recall_ratio);
    value_ = 100.0 * stats_.reduce(stats_.epoch(), recall_ratio);
    return confusion_entry(name(), stats_, value_, current_);
}
void RecallMetric::clear() {
    stats_.reset();
    value_ = current_ = 0.0;
}
std::string RecallMetric::name() const { return "Recall" + rule_suffix(stats_); }

FBetaScoreMetric::FBetaScoreMetric(double beta, ConfusionStatsState stats)
    : beta_(beta), stats_(std::move(stats)) {
    BURN_CHECK(std::isfinite(beta) && beta > 0,
               "FBetaScoreMetric: beta must be a positive finite number, got ", beta);
}
FBetaScoreMetric FBetaScoreMetric::binary(double beta, double threshold) {
    return FBetaScoreMetric(beta, make_state("FBetaScoreMetric::binary", ClassificationTask::Binary,
                                             threshold_rule(threshold), ClassReduction::Macro));
}
FBetaScoreMetric FBetaScoreMetric::multiclass(double beta, std::size_t top_k,
                                              ClassReduction reduction) {
    return FBetaScoreMetric(
        beta, make_state("FBetaScoreMetric::multiclass", ClassificationTask::Multiclass,
                         topk_rule(top_k), reduction));
}
FBetaScoreMetric FBetaScoreMetric::multilabel(double beta, double threshold,
                                              ClassReduction reduction) {
    return FBetaScoreMetric(
        beta, make_state("FBetaScoreMetric::multilabel", ClassificationTask::Multilabel,
                         threshold_rule(threshold), reduction));
}
MetricEntry FBetaScoreMetric::update(const Input& input, const MetricMetadata&) {
    stats_.count(input, "FBetaScoreMetric");
    const double b2 = beta_ * beta_;
    auto ratio = [b2](double tp, double fp, double fn) {
        return (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp);
    };
    current_ = 100.0 * stats_.reduce(stats_.batch(), ratio);
    value_ = 100.0 * stats_.reduce(stats_.epoch(), ratio);
    return confusion_entry(name(), stats_, value_, current_);
}
void FBetaScoreMetric::clear() {
    stats_.reset();
    value_ = current_ = 0.0;
}
std::string FBetaScoreMetric::name() const {
    return "FBetaScore (" + detail::rust_float(beta_, false) + ")" + rule_suffix(stats_);
}

}  // namespace burn::train

// =============================================================================== regression
namespace burn::train {
namespace {

// Checks a regression input ([batch] or [batch, n], one shape for both) and returns its values
// as doubles with the item and column counts.
struct RegressionValues {
    std::vector<double> outputs, targets;
    std::size_t batch = 0, columns = 1;
};

RegressionValues regression_values(const char* op, const RegressionInput& input) {
    const auto& out = input.outputs;
    const auto& tgt = input.targets;
    BURN_CHECK(out.rank() == 1 || out.rank() == 2, op,
               ": outputs must be [batch] or [batch, n], got shape ", out.shape);
    BURN_CHECK(tgt.shape == out.shape, op, ": targets must have the outputs' shape ", out.shape,
               ", got ", tgt.shape);
    RegressionValues v;
    v.batch = out.shape[0];
    v.columns = out.rank() == 2 ? out.shape[1] : 1;
    v.outputs = out.to_vec<double>();
    v.targets = tgt.to_vec<double>();
    return v;
}

MetricEntry regression_entry(const std::string& name, double epoch, double batch,
                             std::size_t items) {
    const auto fmt = FormatOptions(name).with_precision(4);
    return MetricEntry{name,
                       "epoch " + format_value(epoch, fmt) + " - batch " + format_value(batch, fmt),
                       detail::format_roundtrip(batch) + "," + std::to_string(items)};
}

// Uniform average of 1 - SS_res / SS_tot over the columns where SS_tot > 0 (NaN if none).
double r2_of(const std::vector<R2Metric::Column>& columns) {
    double sum = 0.0;
    std::size_t defined = 0;
    for (const auto& c : columns) {
        if (!(c.m2 > 0.0)) continue;
        sum += 1.0 - c.ss_res / c.m2;
        ++defined;
    }
    return defined ? sum / double(defined) : std::nan("");
}

}  // namespace

MetricEntry MaeMetric::update(const Input& input, const MetricMetadata&) {
    const auto v = regression_values("MaeMetric::update", input);
    double sum = 0.0;
    for (std::size_t i = 0; i < v.outputs.size(); ++i) sum += std::abs(v.outputs[i] - v.targets[i]);
    const std::size_t n = v.outputs.size();
    current_ = n ? sum / double(n) : std::nan("");
    sum_ += sum;
    count_ += n;
    return regression_entry(name(), value(), current_, v.batch);
}

void MaeMetric::clear() {
    sum_ = current_ = 0.0;
    count_ = 0;
}

double RmseMetric::value() const { return count_ ? std::sqrt(sum_sq_ / double(count_)) : 0.0; }

MetricEntry RmseMetric::update(const Input& input, const MetricMetadata&) {
    const auto v = regression_values("RmseMetric::update", input);
    double sum = 0.0;
    for (std::size_t i = 0; i < v.outputs.size(); ++i) {
        const double d = v.outputs[i] - v.targets[i];
        sum += d * d;
    }
    const std::size_t n = v.outputs.size();
    current_ = n ? std::sqrt(sum / double(n)) : std::nan("");
    sum_sq_ += sum;
    count_ += n;
    return regression_entry(name(), value(), current_, v.batch);
}

void RmseMetric::clear() {
    sum_sq_ = current_ = 0.0;
    count_ = 0;
}

// Chan et al.'s merge of two (count, mean, M2) summaries: exact, and stable unlike sum of squares.
void R2Metric::Column::merge(const Column& other) {
    if (other.n == 0) return;
    if (n == 0) {
        *this = other;
        return;
    }
    const double na = double(n), nb = double(other.n), total = na + nb;
    const double delta = other.mean - mean;
    mean += delta * nb / total;
    m2 += other.m2 + delta * delta * na * nb / total;
    ss_res += other.ss_res;
    n += other.n;
}

MetricEntry R2Metric::update(const Input& input, const MetricMetadata&) {
    const auto v = regression_values("R2Metric::update", input);
    if (epoch_.empty()) epoch_.resize(v.columns);
    BURN_CHECK(epoch_.size() == v.columns, "R2Metric::update: outputs have ", v.columns,
               " columns (shape ", input.outputs.shape, "), earlier batches of the epoch had ",
               epoch_.size());
    std::vector<Column> batch(v.columns);
    for (std::size_t j = 0; j < v.columns; ++j) {
        Column& c = batch[j];
        c.n = v.batch;
        for (std::size_t i = 0; i < v.batch; ++i) c.mean += v.targets[i * v.columns + j];
        if (v.batch) c.mean /= double(v.batch);
        for (std::size_t i = 0; i < v.batch; ++i) {
            const double t = v.targets[i * v.columns + j], o = v.outputs[i * v.columns + j];
            c.m2 += (t - c.mean) * (t - c.mean);
            c.ss_res += (t - o) * (t - o);
        }
        epoch_[j].merge(c);
    }
    current_ = r2_of(batch);
    value_ = r2_of(epoch_);
    return regression_entry(name(), value_, current_, v.batch);
}

void R2Metric::clear() {
    epoch_.clear();
    value_ = current_ = 0.0;
}

}  // namespace burn::train

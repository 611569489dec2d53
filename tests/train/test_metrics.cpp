// SPDX-License-Identifier: MIT OR Apache-2.0
// The library's metrics (burn/train/metrics.hpp) and NumericMetricState (burn/train/metric.hpp):
// exact values on hand-made inputs (Burn's own test cases included), weighting across steps,
// clear(), padding, top-k, micro vs macro against a brute-force reference, thresholds, errors;
// the regression metrics (MAE, RMSE, R2) over several batches against whole-epoch formulas.
#include <algorithm>
#include <burn/train/metric.hpp>
#include <burn/train/metrics.hpp>
#include <burn/train/output.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace burn;
using namespace burn::train;

namespace {

static_assert(Metric<AccuracyMetric> && Numeric<AccuracyMetric>);
static_assert(Metric<TopKAccuracyMetric> && Numeric<TopKAccuracyMetric>);
static_assert(Metric<LossMetric> && Numeric<LossMetric>);
static_assert(Metric<LearningRateMetric> && Numeric<LearningRateMetric>);
static_assert(Metric<IterationSpeedMetric> && Numeric<IterationSpeedMetric>);
static_assert(Metric<CpuUse> && Numeric<CpuUse>);
static_assert(Metric<CpuMemory> && Numeric<CpuMemory>);
static_assert(Metric<PrecisionMetric> && Numeric<PrecisionMetric>);
static_assert(Metric<RecallMetric> && Numeric<RecallMetric>);
static_assert(Metric<FBetaScoreMetric> && Numeric<FBetaScoreMetric>);
static_assert(Metric<MaeMetric> && Numeric<MaeMetric>);
static_assert(Metric<RmseMetric> && Numeric<RmseMetric>);
static_assert(Metric<R2Metric> && Numeric<R2Metric>);
static_assert(std::is_same_v<R2Metric::Input, RegressionInput>);
static_assert(Adapts<RegressionOutput<burn::testing::TestFloatBackend>, RegressionInput>);
static_assert(Adapts<RegressionOutput<burn::testing::TestFloatBackend>, LossInput>);
static_assert(std::is_same_v<AccuracyMetric::Input, AccuracyInput>);
static_assert(std::is_same_v<TopKAccuracyMetric::Input, AccuracyInput>);
static_assert(std::is_same_v<LossMetric::Input, LossInput>);
static_assert(std::is_same_v<LearningRateMetric::Input, NoInput>);
static_assert(std::is_same_v<PrecisionMetric::Input, ConfusionStatsInput>);
// NoInput metrics adapt from any output.
static_assert(Adapts<int, NoInput>);

const MetricMetadata md{};

TensorData rows(std::initializer_list<std::initializer_list<float>> v) {
    return TensorData::from_nested<float, 2>(v);
}
TensorData labels(std::initializer_list<std::int64_t> v) { return TensorData::from(v); }
TensorData bool_rows(std::initializer_list<std::initializer_list<bool>> v) {
    return TensorData::from_nested<bool, 2>(v);
}

// =============================================================================== format / state
TEST(NumericMetricState, FormatValue) {
    EXPECT_EQ(format_value(0.5, FormatOptions("x")), "0.50");
    EXPECT_EQ(format_value(12.5, FormatOptions("x").with_unit("%")), "12.50 %");
    EXPECT_EQ(format_value(2.0 / 3.0, FormatOptions("x").with_precision(4)), "0.6667");
    // Burn's format_float: at or below 0.1^(precision - 1), scientific notation, Rust style.
    EXPECT_EQ(format_value(1e-3, FormatOptions("x")), "1.00e-3");
    EXPECT_EQ(format_value(0.1, FormatOptions("x")), "1.00e-1");
    EXPECT_EQ(format_value(0.11, FormatOptions("x")), "0.11");
    EXPECT_EQ(format_value(-2.5e-4, FormatOptions("x")), "-2.50e-4");
    EXPECT_EQ(format_value(0.0, FormatOptions("x")), "0.00");
    EXPECT_EQ(format_value(1234.5678, FormatOptions("x").with_precision(1)), "1234.6");
    EXPECT_EQ(format_value(std::nan(""), FormatOptions("x").with_unit("%")), "NaN %");
    EXPECT_EQ(format_value(INFINITY, FormatOptions("x")), "inf");
}

TEST(NumericMetricState, WeightedMeanFormattingAndSerialization) {
    NumericMetricState s;
    EXPECT_EQ(s.value(), 0.0);
    auto fmt = FormatOptions("Thing").with_unit("%").with_precision(2);
    auto e1 = s.update(50.0, 4, fmt);
    EXPECT_EQ(e1.name, "Thing");
    EXPECT_EQ(e1.formatted, "epoch 50.00 % - batch 50.00 %");
    EXPECT_EQ(e1.serialized, "50,4");
    auto e2 = s.update(100.0, 2, fmt);
    EXPECT_DOUBLE_EQ(s.value(), 200.0 / 3.0);
    EXPECT_EQ(s.current(), 100.0);
    EXPECT_EQ(s.count(), 6u);
    EXPECT_EQ(e2.formatted, "epoch 66.67 % - batch 100.00 %");
    EXPECT_EQ(e2.serialized, "100,2");
    // A step of weight 0 is shown, not counted.
    auto e3 = s.update(std::nan(""), 0, fmt);
    EXPECT_EQ(e3.formatted, "epoch 66.67 % - batch NaN %");
    EXPECT_EQ(e3.serialized, "NaN,0");
    EXPECT_DOUBLE_EQ(s.value(), 200.0 / 3.0);
    s.reset();
    EXPECT_EQ(s.value(), 0.0);
    EXPECT_EQ(s.count(), 0u);
    auto e4 = s.update(1.0, 1, FormatOptions("Loss"));
    EXPECT_EQ(e4.formatted, "epoch 1.00 - batch 1.00");
}

TEST(NumericMetricState, SerializationRoundTrips) {
    for (double v : {0.1, 1.0 / 3.0, 2.0 / 3.0 * 100, 1e-300, 123456789.123456789, -0.7,
                     6.02214076e23, 5e-324}) {
        NumericMetricState s;
        auto e = s.update(v, 7, FormatOptions("x"));
        auto comma = e.serialized.find(',');
        ASSERT_NE(comma, std::string::npos) << e.serialized;
        EXPECT_EQ(std::strtod(e.serialized.substr(0, comma).c_str(), nullptr), v) << e.serialized;
        EXPECT_EQ(e.serialized.substr(comma + 1), "7");
    }
    EXPECT_EQ(train::detail::format_roundtrip(0.1), "0.1");
    EXPECT_EQ(train::detail::format_roundtrip(50.0), "50");
    EXPECT_EQ(train::detail::format_roundtrip(INFINITY), "inf");
}

TEST(NumericMetricState, RustFloatNames) {
    EXPECT_EQ(train::detail::rust_float(1.0, false), "1");
    EXPECT_EQ(train::detail::rust_float(1.0, true), "1.0");
    EXPECT_EQ(train::detail::rust_float(0.5, true), "0.5");
    EXPECT_EQ(train::detail::rust_float(0.75, false), "0.75");
    EXPECT_EQ(train::detail::rust_float(100.0, false), "100");
    EXPECT_EQ(train::detail::rust_float(0.1, true), "0.1");
    EXPECT_EQ(train::detail::rust_float(1234.5, true), "1234.5");
    EXPECT_EQ(train::detail::rust_float(0.001, false), "0.001");
    EXPECT_EQ(train::detail::rust_float(1e-5, true), "1e-5");
    EXPECT_EQ(train::detail::rust_float(-2.0, true), "-2.0");
}

// =============================================================================== accuracy
TEST(AccuracyMetric, BurnCaseWithoutPadding) {
    AccuracyMetric m;
    EXPECT_EQ(m.name(), "Accuracy");
    auto e = m.update(
        {rows({{0.0f, 0.2f, 0.8f}, {1.0f, 2.0f, 0.5f}, {0.4f, 0.1f, 0.2f}, {0.6f, 0.7f, 0.2f}}),
         labels({2, 2, 1, 1})},
        md);
    EXPECT_EQ(m.value(), 50.0);
    EXPECT_EQ(e.name, "Accuracy");
    EXPECT_EQ(e.formatted, "epoch 50.00 % - batch 50.00 %");
    EXPECT_EQ(e.serialized, "50,4");
}

TEST(AccuracyMetric, BurnCaseWithPadding) {
    auto m = AccuracyMetric().with_pad_token(3);
    EXPECT_EQ(m.pad_token(), std::optional<std::int64_t>(3));
    auto e = m.update({rows({{0.0f, 0.2f, 0.8f, 0.0f},
                             {1.0f, 2.0f, 0.5f, 0.0f},
                             {0.4f, 0.1f, 0.2f, 0.0f},
                             {0.6f, 0.7f, 0.2f, 0.0f},
                             {0.0f, 0.1f, 0.2f, 5.0f},    // predicted padding: not counted
                             {0.0f, 0.1f, 0.2f, 0.0f},    // error on padding: not counted
                             {0.6f, 0.0f, 0.2f, 0.0f}}),  // error on padding: not counted
                       labels({2, 2, 1, 1, 3, 3, 3})},
                      md);
    EXPECT_EQ(m.value(), 50.0);
    EXPECT_EQ(e.serialized, "50,4");  // weighted by the 4 counted items
}

TEST(AccuracyMetric, TiesGoToTheFirstMaximum) {
    AccuracyMetric m;
    m.update({rows({{1.0f, 1.0f, 0.0f}}), labels({0})}, md);
    EXPECT_EQ(m.value(), 100.0);
    m.clear();
    m.update({rows({{1.0f, 1.0f, 0.0f}}), labels({1})}, md);
    EXPECT_EQ(m.value(), 0.0);
}

TEST(AccuracyMetric, WeightsStepsByItemsAndClears) {
    AccuracyMetric m;
    m.update({rows({{1, 0}, {1, 0}, {0, 1}, {0, 1}}), labels({0, 1, 1, 0})}, md);  // 2 / 4
    auto e = m.update({rows({{1, 0}, {0, 1}}), labels({0, 1})}, md);               // 2 / 2
    EXPECT_DOUBLE_EQ(m.value(), 4.0 / 6.0 * 100.0);
    EXPECT_EQ(e.formatted, "epoch 66.67 % - batch 100.00 %");
    EXPECT_EQ(e.serialized, "100,2");
    m.clear();
    EXPECT_EQ(m.value(), 0.0);
    m.update({rows({{1, 0}}), labels({1})}, md);
    EXPECT_EQ(m.value(), 0.0);
    m.update({rows({{1, 0}}), labels({0})}, md);
    EXPECT_EQ(m.value(), 50.0);
}

TEST(AccuracyMetric, EpochValueExcludesPadding) {
    // Burn's TopKAccuracy epoch test: 1 right + 3 pads, then 4 wrong: 1 / 5.
    auto m = AccuracyMetric().with_pad_token(2);
    m.update({rows({{0.9f, 0.1f}, {0.9f, 0.1f}, {0.9f, 0.1f}, {0.9f, 0.1f}}), labels({0, 2, 2, 2})},
             md);
    EXPECT_EQ(m.value(), 100.0);
    m.update({rows({{0.9f, 0.1f}, {0.9f, 0.1f}, {0.9f, 0.1f}, {0.9f, 0.1f}}), labels({1, 1, 1, 1})},
             md);
    EXPECT_DOUBLE_EQ(m.value(), 20.0);
    // A batch made only of padding: shown as NaN, weight 0, epoch unchanged.
    auto e = m.update({rows({{0.9f, 0.1f}}), labels({2})}, md);
    EXPECT_EQ(e.serialized, "NaN,0");
    EXPECT_DOUBLE_EQ(m.value(), 20.0);
    // A pad token outside the classes (PyTorch's ignore_index -100) works too.
    auto n = AccuracyMetric().with_pad_token(-100);
    n.update({rows({{0.9f, 0.1f}, {0.9f, 0.1f}}), labels({0, -100})}, md);
    EXPECT_EQ(n.value(), 100.0);
}

TEST(AccuracyMetric, TargetDtypes) {
    AccuracyMetric m;
    m.update({rows({{0, 1}, {1, 0}}), TensorData::from<std::int32_t>({1, 1})}, md);
    EXPECT_EQ(m.value(), 50.0);
    m.clear();
    m.update({TensorData::from_nested<double, 2>({{0, 1}, {1, 0}}),
              TensorData::from<float>({1.0f, 0.0f})},
             md);
    EXPECT_EQ(m.value(), 100.0);
}

TEST(AccuracyMetric, Errors) {
    AccuracyMetric m;
    EXPECT_BURN_ERROR(m.update({TensorData::from<float>({1, 2}), labels({0, 1})}, md),
                      "AccuracyMetric::update: outputs must be [batch, classes], got shape [2]");
    EXPECT_BURN_ERROR(m.update({rows({{1, 0}, {0, 1}}), labels({0, 1, 1})}, md),
                      "AccuracyMetric::update: targets must be [batch] = [2] (outputs [2, 2]), "
                      "got shape [3]");
    EXPECT_BURN_ERROR(m.update({rows({{1, 0}, {0, 1}}), labels({0, 2})}, md),
                      "target 2 of item 1 is not a class index in [0, 2)");
    EXPECT_BURN_ERROR(m.update({rows({{1, 0}}), labels({-1})}, md), "target -1 of item 0");
    EXPECT_BURN_ERROR(m.update({rows({{1, 0}}), TensorData::from<float>({0.5f})}, md),
                      "target 0.5 of item 0");
    EXPECT_EQ(m.value(), 0.0);  // failed updates change nothing
}

// =============================================================================== top-k
TEST(TopKAccuracyMetric, BurnCases) {
    TopKAccuracyMetric m(2);
    EXPECT_EQ(m.name(), "Top-K Accuracy @ TopK(2)");
    m.update(
        {rows({{0.0f, 0.2f, 0.8f}, {1.0f, 2.0f, 0.5f}, {0.4f, 0.1f, 0.2f}, {0.6f, 0.7f, 0.2f}}),
         labels({2, 2, 1, 1})},
        md);
    EXPECT_EQ(m.value(), 50.0);

    auto p = TopKAccuracyMetric(2).with_pad_token(3);
    p.update({rows({{0.0f, 0.2f, 0.8f, 0.0f},
                    {1.0f, 2.0f, 0.5f, 0.0f},
                    {0.4f, 0.1f, 0.2f, 0.0f},
                    {0.6f, 0.7f, 0.2f, 0.0f},
                    {0.0f, 0.1f, 0.2f, 5.0f},
                    {0.0f, 0.1f, 0.2f, 0.0f},
                    {0.6f, 0.0f, 0.2f, 0.0f}}),
              labels({2, 2, 1, 1, 3, 3, 3})},
             md);
    EXPECT_EQ(p.value(), 50.0);

    TopKAccuracyMetric all(3);
    all.update(
        {rows({{0.1f, 0.2f, 0.7f}, {0.1f, 0.2f, 0.7f}, {0.1f, 0.2f, 0.7f}}), labels({0, 1, 2})},
        md);
    EXPECT_EQ(all.value(), 100.0);

    TopKAccuracyMetric def;
    EXPECT_EQ(def.k(), 1u);
    EXPECT_EQ(def.name(), TopKAccuracyMetric(1).name());
    def.update({rows({{0.1f, 0.2f, 0.7f}, {0.1f, 0.2f, 0.7f}}), labels({2, 1})}, md);
    EXPECT_EQ(def.value(), 50.0);
    EXPECT_NE(TopKAccuracyMetric(2).name(), TopKAccuracyMetric(1).name());
}

TEST(TopKAccuracyMetric, TiesFollowAStableDescendingSort) {
    TopKAccuracyMetric m(2);
    m.update({rows({{1, 1, 1}}), labels({2})}, md);  // top-2 = {0, 1}
    EXPECT_EQ(m.value(), 0.0);
    m.clear();
    m.update({rows({{1, 1, 1}}), labels({1})}, md);
    EXPECT_EQ(m.value(), 100.0);
    m.clear();
    m.update({rows({{0, 2, 2}}), labels({2})}, md);  // top-2 = {1, 2}
    EXPECT_EQ(m.value(), 100.0);
}

TEST(TopKAccuracyMetric, AgreesWithAccuracyForK1) {
    AccuracyMetric a;
    TopKAccuracyMetric t(1);
    AccuracyInput in{rows({{0.3f, 0.3f, 0.1f}, {0.0f, 0.5f, 0.5f}, {0.2f, 0.1f, 0.9f}}),
                     labels({1, 1, 2})};
    a.update(in, md);
    t.update(in, md);
    EXPECT_EQ(a.value(), t.value());
    EXPECT_DOUBLE_EQ(a.value(), 200.0 / 3.0);
}

TEST(TopKAccuracyMetric, Errors) {
    EXPECT_BURN_ERROR(TopKAccuracyMetric(0), "TopKAccuracyMetric: k must be greater than zero");
    TopKAccuracyMetric m(4);
    EXPECT_BURN_ERROR(m.update({rows({{0.1f, 0.2f, 0.7f}}), labels({2})}, md),
                      "TopKAccuracyMetric::update: k (4) exceeds the number of classes (3; "
                      "outputs [1, 3])");
    TopKAccuracyMetric n(2);
    EXPECT_BURN_ERROR(n.update({rows({{1, 0, 0}}), labels({3})}, md),
                      "TopKAccuracyMetric::update: target 3 of item 0 is not a class index");
}

// =============================================================================== loss
TEST(LossMetric, MeanOfElementsWeightedByBatchSize) {
    LossMetric m;
    EXPECT_EQ(m.name(), "Loss");
    auto e1 = m.update({TensorData::from<float>({1, 2, 3}), 3}, md);
    EXPECT_EQ(e1.formatted, "epoch 2.00 - batch 2.00");
    EXPECT_EQ(e1.serialized, "2,3");
    auto e2 = m.update({TensorData::from<double>({5}), 1}, md);
    EXPECT_DOUBLE_EQ(m.value(), (2.0 * 3 + 5.0) / 4);
    EXPECT_EQ(e2.formatted, "epoch 2.75 - batch 5.00");
    EXPECT_EQ(e2.serialized, "5,1");
    // Any shape: the mean of all elements.
    m.update({TensorData::from_nested<float, 2>({{0, 0}, {0, 4}}), 4}, md);
    EXPECT_DOUBLE_EQ(m.value(), (6.0 + 5.0 + 4.0) / 8);
    m.clear();
    EXPECT_EQ(m.value(), 0.0);
    EXPECT_BURN_ERROR(m.update({TensorData::zeros(Shape{0}, DType::F32), 1}, md),
                      "LossMetric::update: the loss has no element (shape [0])");
}

// =============================================================================== learning rate
TEST(LearningRateMetric, LastRateAndNoRate) {
    LearningRateMetric m;
    EXPECT_EQ(m.name(), "Learning Rate");
    EXPECT_TRUE(std::isnan(m.value()));
    MetricMetadata a;
    a.lr = 1e-3;
    auto e = m.update({}, a);
    EXPECT_EQ(e.formatted, "epoch 1.00e-3 - batch 1.00e-3");
    EXPECT_EQ(e.serialized, "0.001,1");
    EXPECT_EQ(m.value(), 1e-3);
    m.clear();
    a.lr = 0.25;
    m.update({}, a);
    a.lr = 0.75;
    e = m.update({}, a);
    EXPECT_EQ(m.value(), 0.75);  // the last rate, not the epoch's mean
    EXPECT_EQ(e.formatted, "epoch 0.50 - batch 0.75");
    auto none = m.update({}, MetricMetadata{});
    EXPECT_EQ(none.name, "Learning Rate");
    EXPECT_EQ(none.formatted, "n/a");
    EXPECT_EQ(none.serialized, "NaN,0");
    EXPECT_EQ(m.value(), 0.75);
    m.clear();
    EXPECT_TRUE(std::isnan(m.value()));
}

// =============================================================================== speed
TEST(IterationSpeedMetric, ItemsPerSecondWithAFakeClock) {
    using namespace std::chrono;
    auto t0 = steady_clock::time_point{} + hours(1);
    auto now = t0;
    IterationSpeedMetric m([&] { return now; });
    EXPECT_EQ(m.name(), "Iteration Speed");
    EXPECT_EQ(m.value(), 0.0);
    MetricMetadata a;
    now = t0 + seconds(2);
    a.items_processed = 100;
    auto e = m.update({}, a);
    EXPECT_EQ(m.value(), 50.0);
    EXPECT_EQ(e.formatted, "epoch 50.00 item/s - batch 50.00 item/s");
    EXPECT_EQ(e.serialized, "50,1");
    now = t0 + seconds(3);
    a.items_processed = 150;
    m.update({}, a);
    EXPECT_EQ(m.value(), 50.0);
    now = t0 + seconds(4);
    a.items_processed = 250;
    e = m.update({}, a);
    EXPECT_EQ(m.value(), 62.5);
    EXPECT_EQ(e.formatted, "epoch 62.50 item/s - batch 100.00 item/s");
    // A new epoch.
    now = t0 + seconds(10);
    m.clear();
    EXPECT_EQ(m.value(), 0.0);
    now = t0 + seconds(10) + milliseconds(500);
    a.items_processed = 20;
    m.update({}, a);
    EXPECT_EQ(m.value(), 40.0);
}

TEST(IterationSpeedMetric, RealClockSanity) {
    IterationSpeedMetric m;
    MetricMetadata a;
    a.items_processed = 10;
    auto e = m.update({}, a);
    EXPECT_GE(m.value(), 0.0);
    EXPECT_TRUE(std::isfinite(m.value()));
    EXPECT_NE(e.formatted.find("item/s"), std::string::npos);
}

// =============================================================================== system
#if defined(__linux__)
TEST(CpuUse, Sanity) {
    CpuUse m(std::chrono::milliseconds(50));
    EXPECT_EQ(m.name(), "CPU Usage");
    auto e = m.update({}, md);
    EXPECT_EQ(e.name, "CPU Usage");
    // Keep a core busy past the refresh interval.
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(120);
    volatile double sink = 0;
    while (std::chrono::steady_clock::now() < until) sink = sink + std::sqrt(sink + 1.0);
    e = m.update({}, md);
    EXPECT_GE(m.value(), 0.0);
    EXPECT_LE(m.value(), 100.0);
    EXPECT_GT(m.value(), 0.0);  // at least this test's busy loop
    EXPECT_NE(e.formatted.find(" %"), std::string::npos) << e.formatted;
    EXPECT_EQ(std::strtod(e.serialized.c_str(), nullptr), m.value());
    m.clear();
}

TEST(CpuMemory, Sanity) {
    CpuMemory m;
    EXPECT_EQ(m.name(), "CPU Memory Usage");
    auto e = m.update({}, md);
    EXPECT_GT(m.total(), 0.0);
    EXPECT_GT(m.value(), 0.0);
    EXPECT_LE(m.value(), m.total());
    EXPECT_NE(e.formatted.find(" GB"), std::string::npos) << e.formatted;
    EXPECT_NE(e.formatted.find(" / "), std::string::npos) << e.formatted;
    EXPECT_EQ(std::strtod(e.serialized.c_str(), nullptr), m.value());
}
#endif

// =============================================================================== classification
// Burn's dummy_classification_input (burn-train's tests).
ConfusionStatsInput binary_input() {
    return {rows({{0.3f}, {0.2f}, {0.7f}, {0.1f}, {0.55f}}),
            bool_rows({{false}, {true}, {false}, {false}, {true}})};
}
TensorData multiclass_scores() {
    return rows({{0.2f, 0.8f, 0.0f},
                 {0.3f, 0.6f, 0.1f},
                 {0.7f, 0.25f, 0.05f},
                 {0.1f, 0.15f, 0.8f},
                 {0.9f, 0.03f, 0.07f}});
}
ConfusionStatsInput multiclass_input() { return {multiclass_scores(), labels({1, 0, 2, 2, 0})}; }
ConfusionStatsInput multiclass_onehot_input() {
    return {multiclass_scores(),
            bool_rows({{0, 1, 0}, {1, 0, 0}, {0, 0, 1}, {0, 0, 1}, {1, 0, 0}})};
}
ConfusionStatsInput multilabel_input() {
    return {rows({{0.1f, 0.7f, 0.6f},
                  {0.3f, 0.9f, 0.05f},
                  {0.8f, 0.9f, 0.4f},
                  {0.7f, 0.5f, 0.9f},
                  {1.0f, 0.3f, 0.2f}}),
            TensorData::from_nested<std::int64_t, 2>(
                {{1, 1, 0}, {1, 0, 1}, {1, 1, 1}, {0, 0, 1}, {1, 0, 0}})};
}

template <class M>
double run(M m, const ConfusionStatsInput& in) {
    m.update(in, md);
    return m.value();
}

constexpr double kTol = 1e-9;
constexpr auto Micro = ClassReduction::Micro;
constexpr auto Macro = ClassReduction::Macro;

TEST(PrecisionMetric, BurnCases) {
    EXPECT_NEAR(run(PrecisionMetric::binary(0.5), binary_input()), 50.0, kTol);
    for (const auto& in : {multiclass_input(), multiclass_onehot_input()}) {
        EXPECT_NEAR(run(PrecisionMetric::multiclass(1, Micro), in), 100 * 3.0 / 5, kTol);
        EXPECT_NEAR(run(PrecisionMetric::multiclass(2, Micro), in), 100 * 4.0 / 10, kTol);
        EXPECT_NEAR(run(PrecisionMetric::multiclass(1, Macro), in), 100 * (0.5 + 0.5 + 1.0) / 3,
                    kTol);
        EXPECT_NEAR(run(PrecisionMetric::multiclass(2, Macro), in), 100 * (0.5 + 1.0 / 4 + 0.5) / 3,
                    kTol);
    }
    EXPECT_NEAR(run(PrecisionMetric::multilabel(0.5, Micro), multilabel_input()), 100 * 5.0 / 8,
                kTol);
    EXPECT_NEAR(run(PrecisionMetric::multilabel(0.5, Macro), multilabel_input()),
                100 * (2.0 / 3 + 2.0 / 3 + 0.5) / 3, kTol);
}

TEST(RecallMetric, BurnCases) {
    EXPECT_NEAR(run(RecallMetric::binary(0.5), binary_input()), 50.0, kTol);
    for (const auto& in : {multiclass_input(), multiclass_onehot_input()}) {
        EXPECT_NEAR(run(RecallMetric::multiclass(1, Micro), in), 100 * 3.0 / 5, kTol);
        EXPECT_NEAR(run(RecallMetric::multiclass(2, Micro), in), 100 * 4.0 / 5, kTol);
        EXPECT_NEAR(run(RecallMetric::multiclass(1, Macro), in), 100 * (0.5 + 1.0 + 0.5) / 3, kTol);
        EXPECT_NEAR(run(RecallMetric::multiclass(2, Macro), in), 100 * (1.0 + 1.0 + 0.5) / 3, kTol);
    }
    EXPECT_NEAR(run(RecallMetric::multilabel(0.5, Micro), multilabel_input()), 100 * 5.0 / 9, kTol);
    EXPECT_NEAR(run(RecallMetric::multilabel(0.5, Macro), multilabel_input()),
                100 * (0.5 + 1.0 + 1.0 / 3) / 3, kTol);
}

TEST(FBetaScoreMetric, BurnCases) {
    EXPECT_NEAR(run(FBetaScoreMetric::binary(1.0, 0.5), binary_input()), 50.0, kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::binary(2.0, 0.5), binary_input()), 50.0, kTol);
    const auto mc = multiclass_input();
    EXPECT_NEAR(run(FBetaScoreMetric::multiclass(1.0, 1, Micro), mc), 100 * 3.0 / 5, kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multiclass(1.0, 2, Micro), mc),
                100 * 2.0 / (5.0 / 4 + 10.0 / 4), kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multiclass(1.0, 1, Macro), mc),
                100 * (0.5 + 2.0 / 3 + 2.0 / 3) / 3, kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multiclass(1.0, 2, Macro), mc),
                100 * (2.0 / 3 + 2.0 / 5 + 0.5) / 3, kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multiclass(2.0, 1, Micro), mc), 100 * 3.0 / 5, kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multiclass(2.0, 2, Micro), mc),
                100 * 5.0 * 4 / (4.0 * 5 + 10), kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multiclass(2.0, 1, Macro), mc),
                100 * (0.5 + 5.0 / 6 + 5.0 / 9) / 3, kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multiclass(2.0, 2, Macro), mc),
                100 * (5.0 / 6 + 5.0 / 8 + 0.5) / 3, kTol);
    const auto ml = multilabel_input();
    EXPECT_NEAR(run(FBetaScoreMetric::multilabel(1.0, 0.5, Micro), ml),
                100 * 2.0 / (9.0 / 5 + 8.0 / 5), kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multilabel(1.0, 0.5, Macro), ml),
                100 * (2.0 / 3.5 + 2.0 / 2.5 + 2.0 / 5) / 3, kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multilabel(2.0, 0.5, Micro), ml),
                100 * 5.0 / (4.0 * 9 / 5 + 8.0 / 5), kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::multilabel(2.0, 0.5, Macro), ml),
                100 * (5.0 / 9.5 + 5.0 / 5.5 + 5.0 / 14) / 3, kTol);
}

TEST(ConfusionMetrics, NamesAsBurn) {
    EXPECT_EQ(PrecisionMetric::multiclass().name(), "Precision @ TopK(1) [Micro]");
    EXPECT_EQ(PrecisionMetric::multiclass(2, Macro).name(), "Precision @ TopK(2) [Macro]");
    EXPECT_EQ(PrecisionMetric::binary().name(), "Precision @ Threshold(0.5) [Macro]");
    EXPECT_EQ(PrecisionMetric().name(), PrecisionMetric::binary(0.5).name());
    EXPECT_EQ(RecallMetric::binary(0.75).name(), "Recall @ Threshold(0.75) [Macro]");
    EXPECT_EQ(RecallMetric::multilabel(1.0, Micro).name(), "Recall @ Threshold(1.0) [Micro]");
    EXPECT_EQ(FBetaScoreMetric::multiclass(0.5, 1, Macro).name(),
              "FBetaScore (0.5) @ TopK(1) [Macro]");
    EXPECT_EQ(FBetaScoreMetric::multiclass(1.0).name(), "FBetaScore (1) @ TopK(1) [Micro]");
    EXPECT_NE(FBetaScoreMetric::binary(0.5).name(), FBetaScoreMetric::binary(0.75).name());
    EXPECT_EQ(std::string(class_reduction_name(Macro)), "Macro");
}

TEST(ConfusionMetrics, EntryFormatAndSerialization) {
    auto m = PrecisionMetric::multiclass(1, Micro);
    auto e = m.update(multiclass_input(), md);
    EXPECT_EQ(e.name, "Precision @ TopK(1) [Micro]");
    EXPECT_EQ(e.formatted, "epoch 60.00 % - batch 60.00 %");
    EXPECT_EQ(e.serialized, "60,5");
    EXPECT_EQ(m.current(), 60.0);
}

TEST(ConfusionMetrics, MicroTop1IsAccuracy) {
    AccuracyMetric acc;
    auto p = PrecisionMetric::multiclass(1, Micro);
    auto r = RecallMetric::multiclass(1, Micro);
    auto f = FBetaScoreMetric::multiclass(0.5, 1, Micro);
    const auto in = multiclass_input();
    acc.update({in.predictions, in.targets}, md);
    p.update(in, md);
    r.update(in, md);
    f.update(in, md);
    EXPECT_NEAR(p.value(), acc.value(), kTol);
    EXPECT_NEAR(r.value(), acc.value(), kTol);
    EXPECT_NEAR(f.value(), acc.value(), kTol);
}

TEST(ConfusionMetrics, EpochValueIsExactFromAccumulatedCounts) {
    // Burn's multiclass input in two batches: rows 0-1, then 2-4.
    ConfusionStatsInput a{rows({{0.2f, 0.8f, 0.0f}, {0.3f, 0.6f, 0.1f}}), labels({1, 0})};
    ConfusionStatsInput b{rows({{0.7f, 0.25f, 0.05f}, {0.1f, 0.15f, 0.8f}, {0.9f, 0.03f, 0.07f}}),
                          labels({2, 2, 0})};
    auto m = PrecisionMetric::multiclass(1, Macro);
    m.update(a, md);
    // Batch a: predicted {1, 1}: class 1 precision 1/2; classes 0 and 2 undefined (left out).
    EXPECT_NEAR(m.current(), 50.0, kTol);
    auto e = m.update(b, md);
    // Batch b: predicted {0, 2, 0}: class 0 1/2, class 2 1/1 -> 75.
    EXPECT_NEAR(m.current(), 75.0, kTol);
    // The epoch: exactly the one-batch value (0.5 + 0.5 + 1) / 3, not a mean of 50 and 75.
    EXPECT_NEAR(m.value(), 100 * 2.0 / 3, kTol);
    EXPECT_EQ(e.serialized, "75,3");
    m.clear();
    EXPECT_EQ(m.value(), 0.0);
    m.update(b, md);
    EXPECT_NEAR(m.value(), 75.0, kTol);
}

TEST(ConfusionMetrics, MacroLeavesOutUndefinedClasses) {
    // Class 2 is never predicted nor a target: its precision and recall are 0/0.
    ConfusionStatsInput in{rows({{0.9f, 0.1f, 0.0f}, {0.2f, 0.8f, 0.0f}, {0.6f, 0.4f, 0.0f}}),
                           labels({0, 1, 1})};
    EXPECT_NEAR(run(PrecisionMetric::multiclass(1, Macro), in), 100 * (0.5 + 1.0) / 2, kTol);
    EXPECT_NEAR(run(RecallMetric::multiclass(1, Macro), in), 100 * (1.0 + 0.5) / 2, kTol);
    // Nothing predicted positive at all: precision is undefined (NaN), recall 0.
    ConfusionStatsInput none{rows({{0.1f}, {0.2f}}), labels({1, 0})};
    EXPECT_TRUE(std::isnan(run(PrecisionMetric::binary(0.5), none)));
    EXPECT_EQ(run(RecallMetric::binary(0.5), none), 0.0);
}

TEST(ConfusionMetrics, BinaryThresholdsAndShapes) {
    // Rank-1 predictions and bool targets; the threshold is strict (score > threshold).
    ConfusionStatsInput in{TensorData::from<float>({0.3f, 0.2f, 0.7f, 0.1f, 0.55f}),
                           TensorData::from<bool>({false, true, false, false, true})};
    EXPECT_NEAR(run(PrecisionMetric::binary(0.5), in), 50.0, kTol);
    // @0.15: predicted {1, 1, 1, 0, 1}: TP 2, FP 2, FN 0.
    EXPECT_NEAR(run(PrecisionMetric::binary(0.15), in), 50.0, kTol);
    EXPECT_NEAR(run(RecallMetric::binary(0.15), in), 100.0, kTol);
    EXPECT_NEAR(run(FBetaScoreMetric::binary(1.0, 0.15), in), 100 * 2.0 / 3, kTol);
    // @0.7 (strict): nothing above -> precision undefined.
    EXPECT_TRUE(std::isnan(run(PrecisionMetric::binary(0.7), in)));
    // @0.6: predicted {0, 0, 1, 0, 0}: TP 0, FP 1.
    EXPECT_EQ(run(PrecisionMetric::binary(0.6), in), 0.0);
    // 0/1 int targets, [batch, 1] predictions.
    EXPECT_NEAR(run(RecallMetric::binary(0.5), binary_input()), 50.0, kTol);
}

// ------------------------------------------------------------------ brute-force reference
// sklearn-style definitions written independently of the library: predicted labels from a full
// stable sort (top-k) or a strict threshold, the (prediction + 2 * target) code of each cell as
// Burn's ConfusionStats, per-class TP/FP/FN, then micro = ratio of summed counts and macro = mean
// of the per-class ratios over the classes where they are defined.
enum class Kind { Precision, Recall, FBeta };

double reference(const std::vector<std::vector<double>>& scores,
                 const std::vector<std::vector<int>>& targets, bool topk, std::size_t k,
                 double threshold, ClassReduction red, Kind kind, double beta) {
    const std::size_t n = scores.size(), c = scores[0].size();
    std::vector<double> tp(c), fp(c), fn(c);
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<int> pred(c, 0);
        if (topk) {
            std::vector<std::size_t> idx(c);
            std::iota(idx.begin(), idx.end(), 0);
            std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
                return scores[i][a] > scores[i][b];
            });
            for (std::size_t j = 0; j < k; ++j) pred[idx[j]] = 1;
        } else {
            for (std::size_t j = 0; j < c; ++j) pred[j] = scores[i][j] > threshold;
        }
        for (std::size_t j = 0; j < c; ++j) {
            const int code = pred[j] + 2 * targets[i][j];
            tp[j] += code == 3;
            fp[j] += code == 1;
            fn[j] += code == 2;
        }
    }
    auto ratio = [&](double t, double f_p, double f_n) {
        switch (kind) {
            case Kind::Precision: return t / (t + f_p);
            case Kind::Recall: return t / (t + f_n);
            default: {
                const double p = t / (t + f_p), r = t / (t + f_n);
                const double b2 = beta * beta;
                // F-beta from precision and recall (sklearn's form); 0 when both are 0.
                if (std::isnan(p) || std::isnan(r))
                    return (1 + b2) * t / ((1 + b2) * t + b2 * f_n + f_p);
                if (p == 0 && r == 0) return 0.0;
                return (1 + b2) * p * r / (b2 * p + r);
            }
        }
    };
    if (red == Micro) {
        return 100 * ratio(std::accumulate(tp.begin(), tp.end(), 0.0),
                           std::accumulate(fp.begin(), fp.end(), 0.0),
                           std::accumulate(fn.begin(), fn.end(), 0.0));
    }
    double sum = 0;
    int defined = 0;
    for (std::size_t j = 0; j < c; ++j) {
        const double r = ratio(tp[j], fp[j], fn[j]);
        if (!std::isnan(r)) {
            sum += r;
            ++defined;
        }
    }
    return defined ? 100 * sum / defined : std::nan("");
}

struct Lcg {
    std::uint64_t s;
    std::uint32_t next() {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return std::uint32_t(s >> 33);
    }
};

template <class M>
void check_against_reference(M metric, bool multiclass, bool topk, std::size_t k, double threshold,
                             ClassReduction red, Kind kind, double beta, std::uint64_t seed) {
    Lcg rng{seed};
    const std::size_t classes = 2 + rng.next() % 4;
    std::vector<std::vector<double>> all_scores;
    std::vector<std::vector<int>> all_targets;
    for (int b = 0; b < 3; ++b) {
        const std::size_t batch = 1 + rng.next() % 7;
        std::vector<float> flat;
        std::vector<std::int64_t> idx;
        std::vector<std::int64_t> hot;
        for (std::size_t i = 0; i < batch; ++i) {
            std::vector<double> row;
            std::vector<int> t(classes, 0);
            for (std::size_t j = 0; j < classes; ++j) {
                // Quarter steps: ties are frequent.
                const float v = float(rng.next() % 5) / 4.0f;
                flat.push_back(v);
                row.push_back(v);
            }
            if (multiclass) {
                const std::size_t y = rng.next() % classes;
                t[y] = 1;
                idx.push_back(std::int64_t(y));
            } else {
                for (std::size_t j = 0; j < classes; ++j) t[j] = int(rng.next() % 2);
            }
            for (int v : t) hot.push_back(v);
            all_scores.push_back(row);
            all_targets.push_back(t);
        }
        ConfusionStatsInput in{
            TensorData(flat, Shape{batch, classes}),
            multiclass ? TensorData(idx, Shape{batch}) : TensorData(hot, Shape{batch, classes})};
        metric.update(in, md);
    }
    const double want = reference(all_scores, all_targets, topk, k, threshold, red, kind, beta);
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(metric.value())) << metric.name() << " seed " << seed;
    } else {
        EXPECT_NEAR(metric.value(), want, 1e-9) << metric.name() << " seed " << seed;
    }
}

TEST(ConfusionMetrics, AgreeWithABruteForceReference) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        for (auto red : {Micro, Macro}) {
            for (std::size_t k : {1u, 2u}) {
                check_against_reference(PrecisionMetric::multiclass(k, red), true, true, k, 0, red,
                                        Kind::Precision, 1, seed);
                check_against_reference(RecallMetric::multiclass(k, red), true, true, k, 0, red,
                                        Kind::Recall, 1, seed);
                check_against_reference(FBetaScoreMetric::multiclass(0.5, k, red), true, true, k, 0,
                                        red, Kind::FBeta, 0.5, seed);
            }
            for (double t : {0.3, 0.5}) {
                check_against_reference(PrecisionMetric::multilabel(t, red), false, false, 1, t,
                                        red, Kind::Precision, 1, seed);
                check_against_reference(RecallMetric::multilabel(t, red), false, false, 1, t, red,
                                        Kind::Recall, 1, seed);
                check_against_reference(FBetaScoreMetric::multilabel(2.0, t, red), false, false, 1,
                                        t, red, Kind::FBeta, 2.0, seed);
            }
        }
    }
}

TEST(ConfusionMetrics, Errors) {
    EXPECT_BURN_ERROR(PrecisionMetric::multiclass(0),
                      "PrecisionMetric::multiclass: top_k must be greater than zero");
    EXPECT_BURN_ERROR(RecallMetric::multiclass(0), "RecallMetric::multiclass: top_k");
    EXPECT_BURN_ERROR(FBetaScoreMetric::multiclass(1.0, 0), "FBetaScoreMetric::multiclass: top_k");
    EXPECT_BURN_ERROR(FBetaScoreMetric::binary(0.0),
                      "FBetaScoreMetric: beta must be a positive finite number, got 0");
    EXPECT_BURN_ERROR(FBetaScoreMetric::multilabel(-1.0), "beta must be a positive");
    EXPECT_BURN_ERROR(PrecisionMetric::binary(std::nan("")),
                      "PrecisionMetric::binary: threshold is NaN");

    auto k4 = PrecisionMetric::multiclass(4);
    EXPECT_BURN_ERROR(k4.update(multiclass_input(), md),
                      "PrecisionMetric::update: top_k (4) exceeds the number of classes (3; "
                      "predictions [5, 3])");
    auto mc = RecallMetric::multiclass();
    EXPECT_BURN_ERROR(mc.update({multiclass_scores(), labels({0, 1})}, md),
                      "RecallMetric::update: multiclass targets must be [batch] class indices or "
                      "[batch, classes] one-hot, with predictions [5, 3], got shape [2]");
    EXPECT_BURN_ERROR(mc.update({multiclass_scores(), labels({0, 1, 3, 0, 0})}, md),
                      "RecallMetric::update: target 3 of item 2 is not a class index in [0, 3)");
    EXPECT_BURN_ERROR(mc.update({TensorData::from<float>({0.1f, 0.2f}), labels({0, 1})}, md),
                      "RecallMetric::update: predictions must be [batch, classes], got shape [2]");
    auto ml = FBetaScoreMetric::multilabel(1.0);
    EXPECT_BURN_ERROR(ml.update({multiclass_scores(), labels({0, 1, 2, 0, 0})}, md),
                      "FBetaScoreMetric::update: multilabel targets must be [batch, classes] like "
                      "the predictions [5, 3], got shape [5]");
    EXPECT_BURN_ERROR(
        ml.update({rows({{0.1f, 0.9f}}), TensorData::from_nested<std::int64_t, 2>({{0, 2}})}, md),
        "FBetaScoreMetric::update: target 2 at item 0, class 1 is not 0 or 1");
    auto bin = PrecisionMetric::binary();
    EXPECT_BURN_ERROR(bin.update({rows({{0.1f, 0.9f}}), labels({1})}, md),
                      "PrecisionMetric::update: binary predictions must be [batch] or [batch, 1], "
                      "got shape [1, 2]");
    EXPECT_BURN_ERROR(bin.update({rows({{0.1f}, {0.9f}}), labels({1})}, md),
                      "binary targets must be [batch] or [batch, 1] with batch = 2");
    // The number of classes cannot change within an epoch.
    auto p = PrecisionMetric::multiclass();
    p.update(multiclass_input(), md);
    EXPECT_BURN_ERROR(p.update({rows({{0.1f, 0.9f}}), labels({1})}, md),
                      "have 2 classes, earlier batches of the epoch had 3");
    p.clear();
    p.update({rows({{0.1f, 0.9f}}), labels({1})}, md);
    EXPECT_EQ(p.value(), 100.0);
}

// =============================================================================== regression
RegressionInput regression(std::initializer_list<std::initializer_list<float>> outputs,
                           std::initializer_list<std::initializer_list<float>> targets) {
    return RegressionInput{rows(outputs), rows(targets)};
}

// Two batches of one output column: outputs - targets = {-0.5, 0, 1} then {-1, 2}.
const RegressionInput kBatch1 = regression({{1}, {2}, {3}}, {{1.5}, {2}, {2}});
const RegressionInput kBatch2 = regression({{4}, {8}}, {{5}, {6}});

TEST(RegressionMetrics, MaeAndRmseOverTheEpochBySums) {
    MaeMetric mae;
    EXPECT_EQ(mae.name(), "MAE");
    EXPECT_EQ(mae.value(), 0.0);
    auto e1 = mae.update(kBatch1, md);
    EXPECT_DOUBLE_EQ(mae.current(), 0.5);  // (0.5 + 0 + 1) / 3
    EXPECT_EQ(e1.serialized, "0.5,3");
    EXPECT_EQ(e1.formatted, "epoch 0.5000 - batch 0.5000");
    mae.update(kBatch2, md);
    EXPECT_DOUBLE_EQ(mae.current(), 1.5);      // (1 + 2) / 2
    EXPECT_DOUBLE_EQ(mae.value(), 4.5 / 5.0);  // every absolute error of the epoch / 5
    mae.clear();
    EXPECT_EQ(mae.value(), 0.0);

    RmseMetric rmse;
    EXPECT_EQ(rmse.name(), "RMSE");
    rmse.update(kBatch1, md);
    EXPECT_DOUBLE_EQ(rmse.current(), std::sqrt(1.25 / 3.0));
    rmse.update(kBatch2, md);
    EXPECT_DOUBLE_EQ(rmse.current(), std::sqrt(2.5));
    // sqrt of the epoch's mean square (6.25 / 5), not the mean of the batches' roots.
    EXPECT_DOUBLE_EQ(rmse.value(), std::sqrt(1.25));
    EXPECT_GT(std::abs(rmse.value() - (3 * std::sqrt(1.25 / 3.0) + 2 * std::sqrt(2.5)) / 5), 0.09);
    rmse.clear();
    EXPECT_EQ(rmse.value(), 0.0);
}

TEST(RegressionMetrics, R2OverTheEpochIsNotAMeanOfBatchR2) {
    R2Metric r2;
    EXPECT_EQ(r2.name(), "R2");
    r2.update(kBatch1, md);
    // targets 1.5, 2, 2: mean 11/6, SS_tot = 1/6, SS_res = 1.25.
    EXPECT_NEAR(r2.current(), 1.0 - 1.25 / (1.0 / 6.0), 1e-9);
    r2.update(kBatch2, md);
    EXPECT_NEAR(r2.current(), 1.0 - 5.0 / 0.5, 1e-12);  // targets 5, 6
    // The epoch: targets 1.5, 2, 2, 5, 6 (mean 3.3, SS_tot 16.8), SS_res = 6.25.
    EXPECT_NEAR(r2.value(), 1.0 - 6.25 / 16.8, 1e-12);
    r2.clear();
    EXPECT_EQ(r2.value(), 0.0);
    // A perfect fit is 1; predicting the mean is 0.
    r2.update(regression({{1}, {2}, {3}}, {{1}, {2}, {3}}), md);
    EXPECT_DOUBLE_EQ(r2.value(), 1.0);
    r2.clear();
    r2.update(regression({{2}, {2}, {2}}, {{1}, {2}, {3}}), md);
    EXPECT_DOUBLE_EQ(r2.value(), 0.0);
}

TEST(RegressionMetrics, R2SeveralOutputsAgainstAWholeEpochReference) {
    // 3 batches of [batch, 2], compared with sklearn's r2_score(uniform_average) on all rows.
    const std::vector<std::vector<std::array<double, 4>>> batches = {
        {{0.1, 1.0, 0.0, 2.0}, {0.9, 0.5, 1.2, 0.4}},
        {{2.2, -1.0, 2.0, -1.5}, {3.1, 0.0, 2.8, 0.3}, {4.0, 2.5, 4.4, 2.0}},
        {{-0.5, 3.0, -1.0, 3.3}}};  // rows of {out0, out1, target0, target1}
    R2Metric r2;
    MaeMetric mae;
    std::vector<std::array<double, 4>> all;
    for (const auto& b : batches) {
        std::vector<float> o, t;
        for (const auto& r : b) {
            o.insert(o.end(), {float(r[0]), float(r[1])});
            t.insert(t.end(), {float(r[2]), float(r[3])});
            all.push_back(r);
        }
        const RegressionInput in{TensorData(o, Shape{b.size(), 2}),
                                 TensorData(t, Shape{b.size(), 2})};
        r2.update(in, md);
        mae.update(in, md);
    }
    double expected = 0.0, abs_sum = 0.0;
    for (std::size_t j = 0; j < 2; ++j) {
        double mean = 0.0, ss_tot = 0.0, ss_res = 0.0;
        for (const auto& r : all) mean += double(float(r[2 + j]));
        mean /= double(all.size());
        for (const auto& r : all) {
            const double t = float(r[2 + j]), o = float(r[j]);
            ss_tot += (t - mean) * (t - mean);
            ss_res += (t - o) * (t - o);
            abs_sum += std::abs(t - o);
        }
        expected += (1.0 - ss_res / ss_tot) / 2.0;
    }
    EXPECT_NEAR(r2.value(), expected, 1e-9);
    EXPECT_NEAR(mae.value(), abs_sum / double(2 * all.size()), 1e-12);
    // The last batch has one row: its own R2 is undefined.
    EXPECT_TRUE(std::isnan(r2.current()));
}

TEST(RegressionMetrics, R2LeavesOutConstantColumnsAndRank1Inputs) {
    R2Metric r2;
    // Column 1's targets are constant: only column 0 counts.
    r2.update(regression({{1, 5}, {2, 6}, {4, 7}}, {{1, 3}, {2, 3}, {3, 3}}), md);
    EXPECT_NEAR(r2.value(), 1.0 - 1.0 / 2.0, 1e-12);
    r2.clear();
    r2.update(regression({{1}}, {{2}}), md);
    EXPECT_TRUE(std::isnan(r2.value()));
    r2.clear();
    // [batch] inputs are one column.
    r2.update(
        RegressionInput{TensorData::from({1.0f, 2.0f, 3.0f}), TensorData::from({1.0f, 2.0f, 4.0f})},
        md);
    EXPECT_NEAR(r2.value(), 1.0 - 1.0 / (14.0 / 3.0), 1e-6);
}

TEST(RegressionMetrics, Errors) {
    MaeMetric mae;
    EXPECT_BURN_ERROR(mae.update(regression({{1}, {2}}, {{1, 2}}), md),
                      "MaeMetric::update: targets must have the outputs' shape [2, 1], got [1, 2]");
    RmseMetric rmse;
    EXPECT_BURN_ERROR(
        rmse.update(RegressionInput{TensorData(std::vector<float>(8), Shape{2, 2, 2}),
                                    TensorData(std::vector<float>(8), Shape{2, 2, 2})},
                    md),
        "RmseMetric::update: outputs must be [batch] or [batch, n]");
    R2Metric r2;
    r2.update(regression({{1, 2}, {3, 4}}, {{1, 2}, {3, 5}}), md);
    EXPECT_BURN_ERROR(r2.update(regression({{1}, {2}}, {{1}, {2}}), md),
                      "R2Metric::update: outputs have 1 columns");
}

}  // namespace

// SPDX-License-Identifier: MIT OR Apache-2.0
// Renderers (Burn's MetricsRenderer): how the Learner shows progress. After every step it hands
// the renderer the metric states of that step (update_train / update_valid), then the progress
// (render_train / render_valid). At the end of an epoch it calls on_epoch_end with the epoch's
// summary.
//
//   TerminalRenderer  live progress bars redrawn in place (ANSI), one per split, with epoch,
//                     iteration, items/s, ETA and the current metric values.
//   PlainRenderer     plain lines, at most one every `interval` (CI logs, files, pipes).
//   default_renderer() picks TerminalRenderer when stdout is a terminal, PlainRenderer otherwise.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "burn/train/metric.hpp"

namespace burn::train {

/// Training or validation.
enum class Split { Train, Valid };
/// "train" or "valid" (the artifact directories' names).
const char* split_name(Split split);

/// The state of one metric after a step (Burn's MetricState): its entry and, for numeric
/// metrics, the step's value.
struct MetricState {
    MetricEntry entry;
    std::optional<double> value;
};

/// Where a split's loop stands (Burn's TrainingProgress).
struct TrainingProgress {
    std::size_t items_processed = 0;  ///< in the epoch
    std::size_t items_total = 0;      ///< in the epoch
    std::size_t epoch = 1;            ///< 1-based
    std::size_t epoch_total = 1;
    std::size_t iteration = 1;  ///< 1-based, within the epoch
};

/// The epoch-level values of the numeric metrics of one split (running means over the epoch).
struct EpochSummary {
    Split split = Split::Train;
    std::size_t epoch = 1;
    std::size_t epoch_total = 1;
    std::vector<std::pair<std::string, double>> values;  ///< (metric name, value)
    double seconds = 0.0;                                ///< wall time of the split's epoch
    std::size_t items = 0;                               ///< items processed
};

/// Burn's MetricsRenderer.
class MetricsRenderer {
public:
    virtual ~MetricsRenderer() = default;
    virtual void update_train(const MetricState& state) = 0;
    virtual void update_valid(const MetricState& state) = 0;
    virtual void render_train(const TrainingProgress& progress) = 0;
    virtual void render_valid(const TrainingProgress& progress) = 0;
    /// The end of a split's epoch (after its last render call).
    virtual void on_epoch_end(const EpochSummary& summary) { (void)summary; }
    /// A line of information (checkpoint written, early stop, interruption): shown without
    /// breaking the progress display.
    virtual void message(const std::string& text) = 0;
    /// Training is over (also after an error or interruption): leaves the terminal clean.
    virtual void finish() {}
};

/// Live progress bars on a terminal (ANSI escapes, redrawn at most every `min_interval`).
class TerminalRenderer final : public MetricsRenderer {
public:
    explicit TerminalRenderer(
        std::ostream& out, std::chrono::milliseconds min_interval = std::chrono::milliseconds(100));
    ~TerminalRenderer() override;
    void update_train(const MetricState& state) override;
    void update_valid(const MetricState& state) override;
    void render_train(const TrainingProgress& progress) override;
    void render_valid(const TrainingProgress& progress) override;
    void on_epoch_end(const EpochSummary& summary) override;
    void message(const std::string& text) override;
    void finish() override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Plain lines: one per split every `interval` of wall time (and always the first and last
/// step of an epoch), plus an epoch summary line.
class PlainRenderer final : public MetricsRenderer {
public:
    explicit PlainRenderer(std::ostream& out,
                           std::chrono::milliseconds interval = std::chrono::milliseconds(5000));
    ~PlainRenderer() override;
    void update_train(const MetricState& state) override;
    void update_valid(const MetricState& state) override;
    void render_train(const TrainingProgress& progress) override;
    void render_valid(const TrainingProgress& progress) override;
    void on_epoch_end(const EpochSummary& summary) override;
    void message(const std::string& text) override;
    void finish() override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// TerminalRenderer on std::cout when stdout is a terminal (and $TERM is not "dumb"),
/// PlainRenderer on std::cout otherwise.
std::unique_ptr<MetricsRenderer> default_renderer();

/// A renderer that shows nothing (the replicas other than rank 0 of data-parallel training use
/// it).
std::unique_ptr<MetricsRenderer> silent_renderer();

}  // namespace burn::train

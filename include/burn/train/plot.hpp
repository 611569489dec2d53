// SPDX-License-Identifier: MIT OR Apache-2.0
// Plots of numeric metrics as standalone SVG files (no dependency): the Learner writes one per
// numeric metric to <artifact_dir>/plots/<metric>.svg at the end of every epoch.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace burn::train {

/// The history of one numeric metric: its value per epoch and per iteration, for each split
/// (either split may be empty: a metric registered for training only).
struct MetricHistory {
    std::string name;
    std::string unit;                        ///< shown on the axis ("%", "item/s"); may be empty
    std::vector<double> train_epochs;        ///< value of epoch 1, 2, ...
    std::vector<double> valid_epochs;
    std::vector<double> train_iterations;    ///< every step of every epoch, in order
    std::vector<double> valid_iterations;
    std::vector<std::size_t> train_epoch_starts;  ///< index in train_iterations where each epoch starts
    std::vector<std::size_t> valid_epoch_starts;
};

/// The SVG text of a plot with two panels: per-epoch values (train vs valid, lines with markers)
/// and per-iteration values (both splits on an axis of epochs, so that they line up). Non-finite
/// values are skipped; empty series are left out; a history with no value at all gives a plot
/// saying so.
std::string metric_plot_svg(const MetricHistory& history);

/// Writes metric_plot_svg(history) to `path` atomically (temporary file + rename); throws
/// burn::Error naming the file on failure.
void write_metric_plot(const std::filesystem::path& path, const MetricHistory& history);

}  // namespace burn::train

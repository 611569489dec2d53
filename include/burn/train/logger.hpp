// SPDX-License-Identifier: MIT OR Apache-2.0
// Metric loggers (Burn's MetricLogger / FileMetricLogger): every metric entry of every step is
// appended as one line (its `serialized` text) to
//   <artifact_dir>/<train|valid>/epoch-<N>/<metric name>.log
// and can be read back as numbers (for plots, summaries and early stopping after a resume).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "burn/train/metric.hpp"
#include "burn/train/renderer.hpp"

namespace burn::train {

/// Appends metric entries to per-epoch log files under a directory.
class FileMetricLogger {
public:
    /// Logs under `dir` (created on the first write). With `write` false, log() writes nothing
    /// and only the read functions are of use (the data-parallel replicas other than rank 0).
    explicit FileMetricLogger(std::filesystem::path dir, bool write = true);
    ~FileMetricLogger();
    FileMetricLogger(FileMetricLogger&&) noexcept;
    FileMetricLogger& operator=(FileMetricLogger&&) noexcept;

    /// Appends `entry.serialized` as a line of <dir>/<split>/epoch-<epoch>/<entry.name>.log.
    /// Throws burn::Error naming the file when it cannot be written.
    void log(Split split, std::size_t epoch, const MetricEntry& entry);
    /// Flushes and closes the files of the epoch.
    void end_epoch(Split split, std::size_t epoch);

    /// The first comma-separated number of each line of a metric's log file (the values of a
    /// numeric metric, one per step); empty when the file does not exist. Throws burn::Error
    /// naming the file and line when a line is not a number.
    std::vector<double> read_numeric(Split split, std::size_t epoch, const std::string& name) const;
    /// The weighted mean of a numeric metric over an epoch from its log (lines "<v>,<n>"; a
    /// line without weight counts 1; NaN lines, undefined steps, are left out); nullopt when
    /// there is no log. Throws burn::Error naming the file and line on a malformed line.
    std::optional<double> read_epoch_value(Split split, std::size_t epoch,
                                           const std::string& name) const;

    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
    bool write_ = true;
    struct Files;
    std::unique_ptr<Files> files_;
};

/// A file name made from a metric name: characters outside [A-Za-z0-9._-] become '_' (spaces
/// too, as in Burn: "Learning Rate" -> "Learning_Rate").
std::string metric_file_name(const std::string& name);

}  // namespace burn::train

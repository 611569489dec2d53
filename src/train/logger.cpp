// SPDX-License-Identifier: MIT OR Apache-2.0
// FileMetricLogger: one log file per metric, split and epoch, one line per step.
#include "burn/train/logger.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string_view>
#include <system_error>

#include "burn/tensor/error.hpp"

namespace burn::train {

namespace {

std::filesystem::path log_path(const std::filesystem::path& dir, Split split, std::size_t epoch,
                               const std::string& name) {
    return dir / split_name(split) / ("epoch-" + std::to_string(epoch)) /
           (metric_file_name(name) + ".log");
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

/// `text` as a number (all of it, decimal or "nan"/"inf"); nullopt otherwise.
std::optional<double> parse_number(std::string_view text) {
    text = trim(text);
    if (text.empty()) return std::nullopt;
    if (text.front() == '+') text.remove_prefix(1);
    double v = 0.0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return v;
}

/// A log's lines as (value, weight) pairs: "<v>" has weight 1, "<v>,<n>[,...]" weight n.
/// Empty lines are skipped. Throws naming the file and line on a malformed line.
std::optional<std::vector<std::pair<double, double>>> read_log(const std::filesystem::path& path,
                                                               const char* op, bool need_weight) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    std::ifstream in(path);
    BURN_CHECK(in.is_open(), op, ": cannot open ", path.string(), " (", std::strerror(errno), ")");
    std::vector<std::pair<double, double>> rows;
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::string_view all = trim(line);
        if (all.empty()) continue;
        const auto comma = all.find(',');
        const std::string_view first = all.substr(0, comma);
        const auto value = parse_number(first);
        BURN_CHECK(value.has_value(), op, ": ", path.string(), ":", number,
                   ": expected a number, got '", std::string(first), "'");
        double weight = 1.0;
        if (need_weight && comma != std::string_view::npos) {
            std::string_view rest = all.substr(comma + 1);
            rest = rest.substr(0, rest.find(','));
            const auto w = parse_number(rest);
            BURN_CHECK(w.has_value() && *w >= 0.0 && std::isfinite(*w), op, ": ", path.string(),
                       ":", number, ": expected a weight (a count of items) after the comma, got '",
                       std::string(rest), "'");
            weight = *w;
        }
        rows.emplace_back(*value, weight);
    }
    BURN_CHECK(!in.bad(), op, ": cannot read ", path.string());
    return rows;
}

}  // namespace

std::string metric_file_name(const std::string& name) {
    std::string out = name;
    for (char& c : out) {
        // Burn writes spaces as '_' ("Learning_Rate.log"); anything that could leave the directory
        // or trouble a shell goes the same way.
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok) c = '_';
    }
    if (out.empty() || out == "." || out == "..") out = std::string(out.size() + 1, '_');
    return out;
}

struct FileMetricLogger::Files {
    struct Open {
        Split split;
        std::size_t epoch;
        std::filesystem::path path;
        std::ofstream stream;
    };
    std::vector<Open> open;

    Open* find(const std::filesystem::path& path) {
        for (auto& f : open)
            if (f.path == path) return &f;
        return nullptr;
    }
};

FileMetricLogger::FileMetricLogger(std::filesystem::path dir, bool write)
    : dir_(std::move(dir)), write_(write), files_(std::make_unique<Files>()) {}
FileMetricLogger::~FileMetricLogger() = default;
FileMetricLogger::FileMetricLogger(FileMetricLogger&&) noexcept = default;
FileMetricLogger& FileMetricLogger::operator=(FileMetricLogger&&) noexcept = default;

void FileMetricLogger::log(Split split, std::size_t epoch, const MetricEntry& entry) {
    if (!write_) return;
    if (!files_) files_ = std::make_unique<Files>();  // after a move
    const auto path = log_path(dir_, split, epoch, entry.name);
    Files::Open* file = files_->find(path);
    if (file == nullptr) {
        std::error_code ec;
        std::filesystem::create_directories(path.parent_path(), ec);
        BURN_CHECK(!ec, "FileMetricLogger::log: cannot create the directory ",
                   path.parent_path().string(), " for ", path.string(), " (", ec.message(), ")");
        std::ofstream stream(path, std::ios::out | std::ios::app);
        BURN_CHECK(stream.is_open(), "FileMetricLogger::log: cannot open ", path.string(),
                   " for writing (", std::strerror(errno), ")");
        files_->open.push_back(Files::Open{split, epoch, path, std::move(stream)});
        file = &files_->open.back();
    }
    std::string line = entry.serialized;
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';  // one line per step, whatever the metric wrote
    file->stream << line << '\n';
    BURN_CHECK(file->stream.good(), "FileMetricLogger::log: cannot write to ", path.string());
}

void FileMetricLogger::end_epoch(Split split, std::size_t epoch) {
    if (!files_) return;
    std::string failed;
    auto& open = files_->open;
    for (auto it = open.begin(); it != open.end();) {
        if (it->split == split && it->epoch == epoch) {
            it->stream.flush();
            it->stream.close();
            if (it->stream.fail() && failed.empty()) failed = it->path.string();
            it = open.erase(it);
        } else {
            ++it;
        }
    }
    BURN_CHECK(failed.empty(), "FileMetricLogger::end_epoch: cannot write to ", failed);
}

std::vector<double> FileMetricLogger::read_numeric(Split split, std::size_t epoch,
                                                   const std::string& name) const {
    const auto path = log_path(dir_, split, epoch, name);
    if (files_)
        if (auto* f = files_->find(path)) f->stream.flush();  // the epoch may still be running
    const auto rows = read_log(path, "FileMetricLogger::read_numeric", false);
    std::vector<double> values;
    if (!rows) return values;
    values.reserve(rows->size());
    for (const auto& [v, w] : *rows) values.push_back(v);
    return values;
}

std::optional<double> FileMetricLogger::read_epoch_value(Split split, std::size_t epoch,
                                                         const std::string& name) const {
    const auto path = log_path(dir_, split, epoch, name);
    if (files_)
        if (auto* f = files_->find(path)) f->stream.flush();
    const auto rows = read_log(path, "FileMetricLogger::read_epoch_value", true);
    if (!rows || rows->empty()) return std::nullopt;
    double sum = 0.0, weight = 0.0;
    for (const auto& [v, w] : *rows) {
        if (std::isnan(v)) continue;  // an undefined step (a metric with nothing to measure)
        sum += v * w;
        weight += w;
    }
    if (weight <= 0.0) return std::nullopt;
    return sum / weight;
}

}  // namespace burn::train

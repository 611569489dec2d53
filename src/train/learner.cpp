// SPDX-License-Identifier: MIT OR Apache-2.0
// The non-template parts of the Learner: early stopping, interruption (SIGINT), experiment.log,
// checkpoint removal and the summary table.
#include "burn/train/learner.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <system_error>

namespace burn::train {

// ============================================================================ early stopping
MetricEarlyStoppingStrategy::MetricEarlyStoppingStrategy(std::string metric_name,
                                                         Aggregate aggregate, Direction direction,
                                                         Split split, NoImprovementSince condition)
    : metric_(std::move(metric_name)),
      direction_(direction),
      split_(split),
      patience_(condition.n_epochs) {
    (void)aggregate;  // the only aggregate: the epoch mean that numeric metrics report
    BURN_CHECK(!metric_.empty(), "MetricEarlyStoppingStrategy: the metric name is empty");
    BURN_CHECK(patience_ >= 1,
               "MetricEarlyStoppingStrategy: NoImprovementSince.n_epochs must be >= 1, got ",
               patience_);
}

bool MetricEarlyStoppingStrategy::should_stop(std::size_t epoch, double value) {
    last_epoch_ = epoch;
    if (std::isnan(value)) return false;
    const bool better = !best_epoch_ || (direction_ == Direction::Lowest ? value < best_value_
                                                                         : value > best_value_);
    if (better) {
        best_epoch_ = epoch;
        best_value_ = value;
        return false;
    }
    return epoch - *best_epoch_ >= patience_;
}

std::optional<std::pair<std::size_t, double>> MetricEarlyStoppingStrategy::best() const {
    if (!best_epoch_) return std::nullopt;
    return std::make_pair(*best_epoch_, best_value_);
}

std::string MetricEarlyStoppingStrategy::reason() const {
    std::ostringstream os;
    os << metric_ << " (" << split_name(split_) << ") has not improved for "
       << (last_epoch_ - best_epoch_.value_or(0)) << " epoch(s)";
    if (best_epoch_) os << ": best " << best_value_ << " at epoch " << *best_epoch_;
    return os.str();
}

// ============================================================================ interruption
TrainingInterrupter::TrainingInterrupter() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
void TrainingInterrupter::stop() { flag_->store(true); }
bool TrainingInterrupter::should_stop() const { return flag_->load(); }
void TrainingInterrupter::reset() { flag_->store(false); }

namespace detail {
namespace {
volatile std::sig_atomic_t g_sigint = 0;
std::atomic<int> g_guards{0};
struct sigaction g_previous {};

extern "C" void burn_on_sigint(int) {
    if (g_sigint) {
        // Second Ctrl-C: the default action (end the process) at once.
        std::signal(SIGINT, SIG_DFL);
        std::raise(SIGINT);
        return;
    }
    g_sigint = 1;
    static const char msg[] =
        "\nCtrl-C: stopping after the current step (press again to quit now)\n";
    // write(2) is async-signal-safe; std::fputs is not.
    [[maybe_unused]] auto n = ::write(2, msg, sizeof(msg) - 1);
}
}  // namespace

SigintGuard::SigintGuard() {
    if (g_guards.fetch_add(1) == 0) {
        g_sigint = 0;
        struct sigaction action {};
        action.sa_handler = burn_on_sigint;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;
        installed_ = sigaction(SIGINT, &action, &g_previous) == 0;
    }
}

SigintGuard::~SigintGuard() {
    if (g_guards.fetch_sub(1) == 1) {
        if (installed_) sigaction(SIGINT, &g_previous, nullptr);
        g_sigint = 0;
    }
}

bool SigintGuard::sigint_requested() { return g_sigint != 0; }

// ============================================================================ experiment.log
struct ExperimentLog::Impl {
    std::filesystem::path path;
    std::ofstream out;
    std::mutex mutex;
};

ExperimentLog::ExperimentLog(const std::filesystem::path& path, bool write)
    : impl_(std::make_unique<Impl>()) {
    impl_->path = path;
    if (!write) return;
    impl_->out.open(path, std::ios::app);
    BURN_CHECK(impl_->out.good(), "Learner: cannot open ", path.string(), " for writing");
}

ExperimentLog::~ExperimentLog() = default;

void ExperimentLog::line(const std::string& text) {
    std::lock_guard guard(impl_->mutex);
    if (!impl_->out.is_open()) return;
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    impl_->out << std::put_time(&tm, "%Y-%m-%d %H:%M:%S") << "  " << text << '\n';
    impl_->out.flush();
}

// ============================================================================ checkpoints
namespace {

constexpr const char* checkpoint_kinds[] = {"model", "optim", "scheduler"};

std::filesystem::path checkpoint_marker(const CheckpointStore& store, std::size_t epoch) {
    return store.path("model", epoch).parent_path() / ("complete-" + std::to_string(epoch));
}

/// The epochs whose marker is in the checkpoint folder, in order.
std::vector<std::size_t> marked_epochs(const CheckpointStore& store) {
    std::vector<std::size_t> epochs;
    std::error_code ec;
    std::filesystem::directory_iterator it(store.path("model", 0).parent_path(), ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with("complete-")) continue;
        std::size_t e = 0;
        const char* first = name.data() + 9;
        const char* last = name.data() + name.size();
        const auto [ptr, err] = std::from_chars(first, last, e);
        if (err == std::errc{} && ptr == last && ptr != first) epochs.push_back(e);
    }
    std::sort(epochs.begin(), epochs.end());
    return epochs;
}

}  // namespace

void begin_checkpoint(const CheckpointStore& store, std::size_t epoch) {
    std::error_code ec;
    std::filesystem::remove(checkpoint_marker(store, epoch), ec);
}

void finish_checkpoint(const CheckpointStore& store, std::size_t epoch) {
    const std::filesystem::path marker = checkpoint_marker(store, epoch);
    std::filesystem::path tmp = marker;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        for (const char* kind : checkpoint_kinds)
            out << store.path(kind, epoch).filename().string() << '\n';
        out.flush();
        BURN_CHECK(out.good(), "Learner: cannot write the checkpoint marker ", tmp.string());
    }
    std::error_code ec;
    std::filesystem::rename(tmp, marker, ec);
    BURN_CHECK(!ec, "Learner: cannot rename ", tmp.string(), " to ", marker.string(), ": ",
               ec.message());
}

void check_checkpoint_complete(const CheckpointStore& store, std::size_t epoch) {
    std::error_code ec;
    if (std::filesystem::exists(checkpoint_marker(store, epoch), ec)) return;
    const std::vector<std::size_t> marked = marked_epochs(store);
    std::vector<std::string> missing;
    for (const char* kind : checkpoint_kinds)
        if (!std::filesystem::exists(store.path(kind, epoch), ec))
            missing.push_back(store.path(kind, epoch).string());
    if (marked.empty() && missing.empty()) return;  // written before markers existed
    std::string complete;
    for (const std::size_t e : marked)
        complete += (complete.empty() ? "" : ", ") + std::to_string(e);
    std::string why = missing.empty() ? "its marker " + checkpoint_marker(store, epoch).string() +
                                            " is missing (the process stopped while writing it)"
                                      : "missing " + missing.front();
    ::burn::detail::fail("Learner: the checkpoint of epoch ", epoch, " is incomplete: ", why,
                         complete.empty() ? std::string("; no complete checkpoint is in ") +
                                                store.path("model", epoch).parent_path().string()
                                          : "; complete checkpoints: epochs " + complete);
}

void remove_checkpoint(const CheckpointStore& store, std::size_t epoch) {
    begin_checkpoint(store, epoch);
    for (const char* kind : checkpoint_kinds) {
        std::error_code ec;
        std::filesystem::remove(store.path(kind, epoch), ec);  // absent: nothing to do
    }
}

// ============================================================================ helpers
std::optional<double> leading_number(const std::string& serialized) {
    const char* first = serialized.data();
    const char* last = first + serialized.size();
    while (first != last && *first == ' ') ++first;
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc{} || ptr == first) return std::nullopt;
    if (ptr != last && *ptr != ',' && *ptr != ' ') return std::nullopt;
    return v;
}

std::string format_duration(double seconds) {
    if (!(seconds >= 0.0) || !std::isfinite(seconds)) return "-";
    const auto total = static_cast<long long>(seconds + 0.5);
    const long long h = total / 3600, m = (total / 60) % 60, s = total % 60;
    char buf[32];
    if (h > 0) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", h, m, s);
    else std::snprintf(buf, sizeof buf, "%lld:%02lld", m, s);
    return buf;
}

std::string format_summary(const std::string& model_name, std::size_t total_epochs,
                           const std::vector<SummaryRow>& rows) {
    struct Line {
        std::string split, metric, min, min_epoch, max, max_epoch;
    };
    std::vector<Line> lines;
    for (const auto& row : rows) {
        std::optional<std::size_t> lo, hi;
        for (std::size_t i = 0; i < row.epochs.size(); ++i) {
            const double v = row.epochs[i];
            if (std::isnan(v)) continue;
            if (!lo || v < row.epochs[*lo]) lo = i;
            if (!hi || v > row.epochs[*hi]) hi = i;
        }
        if (!lo) continue;
        auto num = [](double v) {
            // 3 decimals, or 3 significant digits for small values (learning rates).
            std::ostringstream os;
            if (v != 0.0 && std::abs(v) < 0.01) os << std::scientific << std::setprecision(2) << v;
            else os << std::fixed << std::setprecision(3) << v;
            return os.str();
        };
        lines.push_back({row.split == Split::Train ? "Train" : "Valid", row.metric,
                         num(row.epochs[*lo]), std::to_string(*lo + 1), num(row.epochs[*hi]),
                         std::to_string(*hi + 1)});
    }
    const Line header{"Split", "Metric", "Min.", "Epoch", "Max.", "Epoch"};
    std::array<std::size_t, 6> w{};
    auto widen = [&](const Line& l) {
        const std::array<const std::string*, 6> f{&l.split,     &l.metric, &l.min,
                                                  &l.min_epoch, &l.max,    &l.max_epoch};
        for (std::size_t i = 0; i < 6; ++i) w[i] = std::max(w[i], f[i]->size());
    };
    widen(header);
    for (const auto& l : lines) widen(l);
    std::ostringstream os;
    auto row = [&](const Line& l) {
        const std::array<const std::string*, 6> f{&l.split,     &l.metric, &l.min,
                                                  &l.min_epoch, &l.max,    &l.max_epoch};
        os << '|';
        for (std::size_t i = 0; i < 6; ++i)
            os << ' ' << std::left << std::setw(int(w[i])) << *f[i] << " |";
        os << '\n';
    };
    os << "======================== Learner Summary ========================\n";
    os << "Model: " << model_name << "\n";
    os << "Total epochs: " << total_epochs << "\n\n";
    row(header);
    os << '|';
    for (std::size_t i = 0; i < 6; ++i) os << std::string(w[i] + 2, '-') << '|';
    os << '\n';
    for (const auto& l : lines) row(l);
    return os.str();
}

}  // namespace detail
}  // namespace burn::train

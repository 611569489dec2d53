// SPDX-License-Identifier: MIT OR Apache-2.0
// Renderers: the live terminal display (ANSI, redrawn in place) and the plain line renderer.
#include "burn/train/renderer.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <string_view>

namespace burn::train {

const char* split_name(Split split) {
    switch (split) {
        case Split::Train: return "train";
        case Split::Valid: return "valid";
    }
    return "unknown";
}

namespace {

using Clock = std::chrono::steady_clock;

/// The parts one after the other (appending, rather than `"literal" + std::string`, which makes
/// GCC 12 warn wrongly under -Wrestrict).
std::string cat(std::initializer_list<std::string_view> parts) {
    std::string s;
    for (auto p : parts) s.append(p);
    return s;
}

/// `v` with `digits` digits after the point (locale-independent).
std::string fixed(double v, int digits) {
    if (!std::isfinite(v)) return std::isnan(v) ? "NaN" : (v > 0 ? "inf" : "-inf");
    std::array<char, 64> buf{};
    auto [end, ec] =
        std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, digits);
    if (ec != std::errc{}) return "?";
    return std::string(buf.data(), end);
}

/// A short number: about 4 significant digits, no exponent for usual magnitudes.
std::string compact(double v) {
    if (!std::isfinite(v)) return fixed(v, 0);
    const double a = std::fabs(v);
    if (a != 0.0 && (a < 1e-3 || a >= 1e7)) {
        std::array<char, 64> buf{};
        auto [end, ec] =
            std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::scientific, 3);
        if (ec != std::errc{}) return "?";
        return std::string(buf.data(), end);
    }
    int digits = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;
    std::string s = fixed(v, digits);
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
    }
    return s;
}

/// Items per second: an integer from 100 up, one decimal below.
std::string rate_text(double rate) { return rate >= 100.0 ? fixed(rate, 0) : fixed(rate, 1); }

/// m:ss, or h:mm:ss from an hour up.
std::string duration_text(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "-";
    auto total = static_cast<long long>(std::llround(seconds));
    const long long h = total / 3600, m = (total / 60) % 60, s = total % 60;
    auto two = [](long long x) { return cat({x < 10 ? "0" : "", std::to_string(x)}); };
    if (h > 0) return cat({std::to_string(h), ":", two(m), ":", two(s)});
    return cat({std::to_string(m), ":", two(s)});
}

/// Newlines and other control characters would break the layout: they become spaces.
std::string one_line(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    return out;
}

/// The first `width` columns of `s` (code points; UTF-8 sequences are never split).
std::string truncate_columns(const std::string& s, std::size_t width) {
    std::size_t cols = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((c & 0xC0) == 0x80) continue;  // continuation byte
        if (cols == width) return s.substr(0, i);
        ++cols;
    }
    return s;
}

/// The terminal's width: $COLUMNS, else the window size of stdout, else 100.
std::size_t terminal_width() {
    if (const char* env = std::getenv("COLUMNS")) {
        char* end = nullptr;
        const long v = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && v > 0) return static_cast<std::size_t>(v);
    }
    struct winsize ws {};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 100;
}

/// The terminal's height: $LINES, else the window size of stdout; 0 when unknown.
std::size_t terminal_height() {
    if (const char* env = std::getenv("LINES")) {
        char* end = nullptr;
        const long v = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && v > 0) return static_cast<std::size_t>(v);
    }
    struct winsize ws {};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) return ws.ws_row;
    return 0;
}

/// The metric entries of one split, in the order they first came.
struct SplitMetrics {
    std::vector<MetricState> states;
    bool stale = false;  ///< the states are of an epoch that has ended

    void update(const MetricState& state) {
        if (stale) {  // the first step of a new epoch: forget the last epoch's metrics
            states.clear();
            stale = false;
        }
        for (auto& s : states) {
            if (s.entry.name == state.entry.name) {
                s = state;
                return;
            }
        }
        states.push_back(state);
    }
    /// The epoch's value as the metric formatted it ("85.23 %" out of "epoch 85.23 % - batch
    /// ..."), when its text has NumericMetricState's form.
    std::optional<std::string> epoch_text(const std::string& name) const {
        if (stale) return std::nullopt;
        for (const auto& s : states) {
            if (s.entry.name != name) continue;
            const std::string& f = s.entry.formatted;
            constexpr std::string_view head = "epoch ";
            constexpr std::string_view sep = " - batch ";
            if (f.rfind(head, 0) != 0) return std::nullopt;
            const auto pos = f.find(sep);
            if (pos == std::string::npos || pos <= head.size()) return std::nullopt;
            return one_line(f.substr(head.size(), pos - head.size()));
        }
        return std::nullopt;
    }
};

/// Where one split's epoch stands and how fast it goes.
struct SplitProgress {
    bool active = false;  ///< an epoch of this split has been rendered and not ended
    bool ended = false;   ///< on_epoch_end came for the current epoch
    TrainingProgress progress;
    Clock::time_point first_time{};  ///< when the first step of the epoch was seen
    Clock::time_point last_time{};   ///< when the latest step was seen
    std::size_t first_items = 0;

    /// Records `p`; true when it starts a new epoch.
    bool advance(const TrainingProgress& p, Clock::time_point now) {
        const bool fresh = !active || ended || p.epoch != progress.epoch ||
                           p.iteration < progress.iteration ||
                           p.items_processed < progress.items_processed;
        if (fresh) {
            first_time = now;
            first_items = p.items_processed;
            ended = false;
        }
        active = true;
        progress = p;
        last_time = now;
        return fresh;
    }
    bool last_step() const {
        return progress.items_total > 0 && progress.items_processed >= progress.items_total;
    }
    /// Items per second from the first step seen in the epoch to the latest (frozen once the
    /// split stops moving); nullopt before a second step.
    std::optional<double> rate() const {
        const double secs = std::chrono::duration<double>(last_time - first_time).count();
        if (secs <= 0.0 || progress.items_processed <= first_items) return std::nullopt;
        return double(progress.items_processed - first_items) / secs;
    }
    std::optional<double> eta() const {
        if (last_step()) return 0.0;
        const auto r = rate();
        if (!r || *r <= 0.0 || progress.items_total < progress.items_processed) return std::nullopt;
        return double(progress.items_total - progress.items_processed) / *r;
    }
    /// The number of iterations of the epoch, from the items per iteration so far.
    std::optional<std::size_t> iterations_total() const {
        const auto& p = progress;
        if (p.items_processed == 0 || p.items_total == 0 || p.iteration == 0) return std::nullopt;
        const double per_iteration = double(p.items_processed) / double(p.iteration);
        auto n = static_cast<std::size_t>(std::ceil(double(p.items_total) / per_iteration - 1e-9));
        return std::max(n, p.iteration);
    }
    std::size_t percent() const {
        const auto& p = progress;
        if (p.items_total == 0) return 0;
        return std::min<std::size_t>(100, p.items_processed * 100 / p.items_total);
    }
};

std::string iteration_text(const SplitProgress& sp) {
    std::string s = cat({"iteration ", std::to_string(sp.progress.iteration)});
    if (auto n = sp.iterations_total()) s += cat({"/", std::to_string(*n)});
    return s;
}

/// A summary value written as its metric writes it: the metric's last text gives the digits and
/// the unit ("85.23 %" out of "epoch 85.23 % - batch 87.50 %"), and is used as it is when it
/// shows this value (the epoch value of most metrics); otherwise (the learning rate, whose
/// value is the last one) the value is written with the same digits and unit. Without such a
/// text: a short number.
std::string summary_value_text(const std::string& name, double value, const SplitMetrics& metrics) {
    const auto text = metrics.epoch_text(name);
    if (!text || !std::isfinite(value)) return compact(value);
    const auto space = text->find(' ');
    const std::string number = text->substr(0, space);
    const std::string unit = space == std::string::npos ? "" : text->substr(space);  // " %"
    double shown = 0.0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), shown);
    if (ec != std::errc{} || end != number.data() + number.size()) return compact(value);
    if (number.find_first_of("eE") != std::string::npos) {
        if (std::fabs(shown - value) <= 5e-3 * std::fabs(value)) return *text;
        return compact(value) + unit;
    }
    const auto point = number.find('.');
    const int digits = point == std::string::npos ? 0 : static_cast<int>(number.size() - point - 1);
    if (std::fabs(shown - value) <= 0.5 * std::pow(10.0, -digits) * (1 + 1e-9)) return *text;
    return fixed(value, digits) + unit;
}

/// "[epoch 1/2] train: Accuracy 85.23 %, Loss 0.412 (12.3 s, 5200 item/s)"
std::string summary_line(const EpochSummary& summary, const SplitMetrics& metrics) {
    std::string line =
        cat({"[epoch ", std::to_string(summary.epoch), "/", std::to_string(summary.epoch_total),
             "] ", split_name(summary.split), ":"});
    bool first = true;
    for (const auto& [name, value] : summary.values) {
        line += first ? " " : ", ";
        first = false;
        line += cat({one_line(name), " ", summary_value_text(name, value, metrics)});
    }
    line += " (";
    line += fixed(summary.seconds, 1) + " s";
    if (summary.seconds > 0.0 && summary.items > 0)
        line += cat({", ", rate_text(double(summary.items) / summary.seconds), " item/s"});
    line += ")";
    return line;
}

}  // namespace

// ============================================================================ TerminalRenderer
struct TerminalRenderer::Impl {
    std::ostream& out;
    std::chrono::milliseconds min_interval;
    SplitMetrics metrics[2];
    SplitProgress progress[2];
    bool show[2] = {false, false};  ///< whether the split's block is part of the live display
    std::size_t lines_drawn = 0;    ///< lines of the live block now on screen (cursor below them)
    bool finished = false;
    bool summarised = true;  ///< everything rendered so far has been summarised (epoch ends)
    Clock::time_point last_draw{};
    bool drawn_once = false;

    Impl(std::ostream& o, std::chrono::milliseconds i) : out(o), min_interval(i) {}

    std::vector<std::string> block_lines() const {
        std::vector<std::string> lines;
        for (int s = 0; s < 2; ++s) {
            if (!show[s]) continue;
            const SplitProgress& sp = progress[s];
            const auto& p = sp.progress;
            constexpr std::size_t bar_width = 20;
            const std::size_t pct = sp.percent();
            const std::size_t filled = pct * bar_width / 100;
            std::string line = s == 0 ? "Train" : "Valid";
            line += cat({"  epoch ", std::to_string(p.epoch), "/", std::to_string(p.epoch_total)});
            line += cat({"  ", iteration_text(sp)});
            line +=
                cat({"  [", std::string(filled, '#'), std::string(bar_width - filled, '.'), "] "});
            line += std::to_string(pct) + "%";
            if (auto r = sp.rate()) line += cat({"  ", rate_text(*r), " item/s"});
            if (auto e = sp.eta()) line += cat({"  ETA ", duration_text(*e)});
            lines.push_back(std::move(line));
            for (const auto& st : metrics[s].states)
                lines.push_back(
                    cat({"  ", one_line(st.entry.name), ": ", one_line(st.entry.formatted)}));
        }
        return lines;
    }

    void clear_block() {
        if (lines_drawn == 0) return;
        out << "\x1b[" << lines_drawn << "A\r\x1b[J";
        lines_drawn = 0;
    }

    void draw_block(Clock::time_point now) {
        const std::size_t width = std::max<std::size_t>(terminal_width(), 2) - 1;  // never wrap
        auto lines = block_lines();
        // A block taller than the screen could not be erased (the cursor cannot go above the
        // top): the metric lines that do not fit are counted instead.
        if (const std::size_t height = terminal_height();
            height >= 3 && lines.size() > height - 1) {
            const std::size_t hidden = lines.size() - (height - 2);
            lines.resize(height - 2);
            lines.push_back(
                cat({"  (", std::to_string(hidden), " more lines: enlarge the terminal)"}));
        }
        for (const auto& line : lines) {
            out << truncate_columns(line, width) << "\x1b[K\n";
            ++lines_drawn;
        }
        last_draw = now;
        drawn_once = true;
    }

    void redraw(Clock::time_point now) {
        clear_block();
        draw_block(now);
        out.flush();
    }

    void render(Split split, const TrainingProgress& p) {
        if (finished) finished = false;  // rendering again after finish(): start over
        const int s = split == Split::Train ? 0 : 1;
        const auto now = Clock::now();
        const bool fresh = progress[s].advance(p, now);
        summarised = false;
        if (fresh && split == Split::Train)
            show[1] = false;  // a new training epoch: drop validation
        show[s] = true;
        const bool due =
            fresh || progress[s].last_step() || !drawn_once || now - last_draw >= min_interval;
        if (due) redraw(now);
    }

    void print_above(const std::string& text) {
        clear_block();
        out << text << "\n";
        draw_block(Clock::now());
        out.flush();
    }

    // The cursor is never hidden: a process killed while the block is shown (a second Ctrl-C)
    // would leave the terminal without one.
    void finish() {
        if (finished) return;
        finished = true;
        if (summarised) {
            clear_block();  // every epoch shown has its summary line: the live block is not needed
        } else {
            clear_block();  // interrupted mid-epoch: leave the last state on screen
            draw_block(Clock::now());
            lines_drawn = 0;
        }
        show[0] = show[1] = false;
        out.flush();
    }
};

TerminalRenderer::TerminalRenderer(std::ostream& out, std::chrono::milliseconds min_interval)
    : impl_(std::make_unique<Impl>(out, min_interval)) {}

TerminalRenderer::~TerminalRenderer() {
    try {
        if (impl_) impl_->finish();
    } catch (...) {
    }
}

void TerminalRenderer::update_train(const MetricState& state) { impl_->metrics[0].update(state); }
void TerminalRenderer::update_valid(const MetricState& state) { impl_->metrics[1].update(state); }
void TerminalRenderer::render_train(const TrainingProgress& progress) {
    impl_->render(Split::Train, progress);
}
void TerminalRenderer::render_valid(const TrainingProgress& progress) {
    impl_->render(Split::Valid, progress);
}

void TerminalRenderer::on_epoch_end(const EpochSummary& summary) {
    const int s = summary.split == Split::Train ? 0 : 1;
    impl_->progress[s].ended = true;
    impl_->summarised = true;
    impl_->print_above(summary_line(summary, impl_->metrics[s]));
    impl_->metrics[s].stale = true;
}

void TerminalRenderer::message(const std::string& text) { impl_->print_above(text); }
void TerminalRenderer::finish() { impl_->finish(); }

// ============================================================================ PlainRenderer
struct PlainRenderer::Impl {
    std::ostream& out;
    std::chrono::milliseconds interval;
    SplitMetrics metrics[2];
    SplitProgress progress[2];
    Clock::time_point last_line[2]{};

    Impl(std::ostream& o, std::chrono::milliseconds i) : out(o), interval(i) {}

    void render(Split split, const TrainingProgress& p) {
        const int s = split == Split::Train ? 0 : 1;
        const auto now = Clock::now();
        SplitProgress& sp = progress[s];
        const bool fresh = sp.advance(p, now);
        if (!(fresh || sp.last_step() || now - last_line[s] >= interval)) return;
        last_line[s] = now;
        std::string line = cat({"[", split_name(split), "] epoch ", std::to_string(p.epoch), "/",
                                std::to_string(p.epoch_total), " ", iteration_text(sp), " (",
                                std::to_string(sp.percent()), "%)"});
        if (auto r = sp.rate()) line += cat({" ", rate_text(*r), " item/s"});
        if (auto e = sp.eta()) line += cat({" ETA ", duration_text(*e)});
        for (const auto& st : metrics[s].states)
            line += cat({" | ", one_line(st.entry.name), ": ", one_line(st.entry.formatted)});
        out << line << "\n";
        out.flush();
    }
};

PlainRenderer::PlainRenderer(std::ostream& out, std::chrono::milliseconds interval)
    : impl_(std::make_unique<Impl>(out, interval)) {}
PlainRenderer::~PlainRenderer() = default;

void PlainRenderer::update_train(const MetricState& state) { impl_->metrics[0].update(state); }
void PlainRenderer::update_valid(const MetricState& state) { impl_->metrics[1].update(state); }
void PlainRenderer::render_train(const TrainingProgress& progress) {
    impl_->render(Split::Train, progress);
}
void PlainRenderer::render_valid(const TrainingProgress& progress) {
    impl_->render(Split::Valid, progress);
}

void PlainRenderer::on_epoch_end(const EpochSummary& summary) {
    const int s = summary.split == Split::Train ? 0 : 1;
    impl_->progress[s].ended = true;
    impl_->out << summary_line(summary, impl_->metrics[s]) << "\n";
    impl_->metrics[s].stale = true;
    impl_->out.flush();
}

void PlainRenderer::message(const std::string& text) {
    impl_->out << text << "\n";
    impl_->out.flush();
}

void PlainRenderer::finish() { impl_->out.flush(); }

// ============================================================================ default
std::unique_ptr<MetricsRenderer> default_renderer() {
    const char* term = std::getenv("TERM");
    const bool dumb = term != nullptr && std::string_view(term) == "dumb";
    if (::isatty(STDOUT_FILENO) == 1 && !dumb) return std::make_unique<TerminalRenderer>(std::cout);
    return std::make_unique<PlainRenderer>(std::cout);
}

std::unique_ptr<MetricsRenderer> silent_renderer() {
    struct Silent final : MetricsRenderer {
        void update_train(const MetricState&) override {}
        void update_valid(const MetricState&) override {}
        void render_train(const TrainingProgress&) override {}
        void render_valid(const TrainingProgress&) override {}
        void message(const std::string&) override {}
    };
    return std::make_unique<Silent>();
}

}  // namespace burn::train

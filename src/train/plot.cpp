// SPDX-License-Identifier: MIT OR Apache-2.0
// SVG plots of numeric metrics: per-epoch values (top) and per-iteration values (bottom).
#include "burn/train/plot.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <system_error>

#include "burn/tensor/error.hpp"

namespace burn::train {

namespace {

constexpr double kWidth = 800, kHeight = 600;
constexpr double kLeft = 80, kRight = 770;  // plot area, both panels
constexpr const char* kTrainColor = "#1f77b4";
constexpr const char* kValidColor = "#ff7f0e";
constexpr std::size_t kMaxPoints = 2000;

/// A coordinate or label: fixed notation, locale-independent, trailing zeros dropped.
std::string num(double v, int digits = 2) {
    std::array<char, 64> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, digits);
    if (ec != std::errc{}) return "0";
    std::string s(buf.data(), end);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    return s;
}

std::string escape_xml(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                // Control characters are not allowed in XML 1.0 (tab, newline aside).
                if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') out += ' ';
                else out += c;
        }
    }
    return out;
}

struct Point {
    double x, y;
};

/// Points of a series with finite values only.
std::vector<Point> finite_points(const std::vector<Point>& pts) {
    std::vector<Point> out;
    out.reserve(pts.size());
    for (const auto& p : pts)
        if (std::isfinite(p.x) && std::isfinite(p.y)) out.push_back(p);
    return out;
}

/// At most about kMaxPoints points: the minimum and the maximum of each of kMaxPoints/2 buckets,
/// in order (spikes survive the thinning).
std::vector<Point> thin(const std::vector<Point>& pts) {
    if (pts.size() <= kMaxPoints) return pts;
    const std::size_t buckets = kMaxPoints / 2;
    std::vector<Point> out;
    out.reserve(kMaxPoints + 2);
    for (std::size_t b = 0; b < buckets; ++b) {
        const std::size_t lo = b * pts.size() / buckets, hi = (b + 1) * pts.size() / buckets;
        if (lo >= hi) continue;
        std::size_t imin = lo, imax = lo;
        for (std::size_t i = lo; i < hi; ++i) {
            if (pts[i].y < pts[imin].y) imin = i;
            if (pts[i].y > pts[imax].y) imax = i;
        }
        out.push_back(pts[std::min(imin, imax)]);
        if (imin != imax) out.push_back(pts[std::max(imin, imax)]);
    }
    return out;
}

/// An axis: its domain and its ticks.
struct Axis {
    double lo = 0, hi = 1;
    std::vector<double> ticks;
    int decimals = 0;
    bool scientific = false;

    std::string label(double v) const {
        if (scientific) {
            std::array<char, 64> buf{};
            auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::scientific, 2);
            return ec == std::errc{} ? std::string(buf.data(), end) : "?";
        }
        std::string s = num(v, decimals);
        return s;
    }
};

/// 4 to 6 ticks at a step of 1, 2 or 5 times a power of ten, covering [lo, hi] (padded when flat).
Axis nice_axis(double lo, double hi) {
    if (hi < lo) std::swap(lo, hi);
    if (hi - lo <= std::max(std::fabs(lo), std::fabs(hi)) * 1e-12) {
        const double pad = lo == 0.0 ? 1.0 : std::fabs(lo) * 0.1;
        lo -= pad;
        hi += pad;
    }
    // Values near the limits of double (their distance or the rounded ends overflow): ticks at
    // the two ends only.
    const auto ends = [&] {
        Axis axis;
        axis.lo = lo;
        axis.hi = hi;
        axis.ticks = {lo, hi};
        axis.scientific = true;
        return axis;
    };
    const double range = hi - lo;
    if (!std::isfinite(range)) return ends();
    const int base = static_cast<int>(std::floor(std::log10(range)));
    double best_step = 0;
    long best_count = 0;
    int best_score = 1 << 30;
    for (int k = base - 2; k <= base + 1; ++k) {
        for (double m : {1.0, 2.0, 5.0}) {
            const double step = m * std::pow(10.0, k);
            const long count = static_cast<long>(std::ceil(hi / step - 1e-9) - std::floor(lo / step + 1e-9)) + 1;
            const int score = (count >= 4 && count <= 6) ? static_cast<int>(std::labs(count - 5))
                                                         : 100 + static_cast<int>(std::labs(count - 5));
            if (score < best_score) {
                best_score = score;
                best_step = step;
                best_count = count;
            }
        }
    }
    Axis axis;
    const double step = best_step;
    const double first = std::floor(lo / step + 1e-9) * step;
    axis.lo = first;
    axis.hi = first + double(best_count - 1) * step;
    if (!std::isfinite(axis.lo) || !std::isfinite(axis.hi) || !std::isfinite(step) || step <= 0) return ends();
    for (long i = 0; i < best_count; ++i) {
        const double t = first + double(i) * step;
        axis.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);  // no 5.6e-17 for zero
    }
    const double mag = std::max(std::fabs(axis.lo), std::fabs(axis.hi));
    axis.scientific = mag >= 1e7 || mag < 1e-3;
    axis.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
    return axis;
}

/// Integer ticks from `from` to `to` at a step of 1, 2, 5, 10, 20, ... (at most about 10);
/// `from` is always a tick.
std::vector<double> integer_ticks(long from, long to) {
    const long span = std::max(1L, to - from);
    long step = 1;
    for (long p = 1; step == 1 && span > 10; p *= 10) {
        if (span / p <= 10) step = p;
        else if (span / (2 * p) <= 10) step = 2 * p;
        else if (span / (5 * p) <= 10) step = 5 * p;
    }
    std::vector<double> ticks{double(from)};
    for (long t = (from / step + 1) * step; t <= to; t += step) ticks.push_back(double(t));
    return ticks;
}

struct Series {
    const char* cls;
    const char* color;
    std::vector<Point> points;
};

struct Panel {
    double top, bottom;
    std::string heading;
    std::string x_label;
};

class Svg {
public:
    std::string text;
    void line(const std::string& s) {
        text += s;
        text += '\n';
    }
};

double clamp_span(double v) { return v == 0.0 ? 1.0 : v; }

/// Draws one panel: frame, grid, ticks, series. `x_ticks` are given; the y axis is computed.
void draw_panel(Svg& svg, const Panel& panel, double x_lo, double x_hi, const std::vector<double>& x_ticks,
                const std::vector<Series>& series, const std::string& unit, bool markers) {
    svg.line("<g class=\"panel\">");
    svg.line("<text x=\"" + num(kLeft) + "\" y=\"" + num(panel.top - 8) +
             "\" font-size=\"13\" fill=\"#333\">" + escape_xml(panel.heading) + "</text>");
    const double width = kRight - kLeft, height = panel.bottom - panel.top;
    svg.line("<rect x=\"" + num(kLeft) + "\" y=\"" + num(panel.top) + "\" width=\"" + num(width) + "\" height=\"" +
             num(height) + "\" fill=\"none\" stroke=\"#999\"/>");

    double lo = INFINITY, hi = -INFINITY;
    for (const auto& s : series)
        for (const auto& p : s.points) {
            lo = std::min(lo, p.y);
            hi = std::max(hi, p.y);
        }
    if (!(lo <= hi)) {
        svg.line("<text x=\"" + num((kLeft + kRight) / 2) + "\" y=\"" + num((panel.top + panel.bottom) / 2) +
                 "\" font-size=\"14\" fill=\"#777\" text-anchor=\"middle\">no data</text>");
        svg.line("</g>");
        return;
    }
    const Axis y = nice_axis(lo, hi);
    // A small margin inside the frame, so that values on the first or last tick stay visible.
    // Computed on quarters of the values, so that nothing overflows near the limits of double.
    const double quarter_span = y.hi * 0.25 - y.lo * 0.25;
    const double quarter_margin = 0.04 * quarter_span;
    auto px = [&](double x) { return kLeft + (x - x_lo) / clamp_span(x_hi - x_lo) * width; };
    auto py = [&](double v) {
        return panel.bottom -
               (v * 0.25 - y.lo * 0.25 + quarter_margin) / clamp_span(quarter_span + 2 * quarter_margin) * height;
    };

    // Grid and y ticks.
    for (double t : y.ticks) {
        const std::string yy = num(py(t));
        svg.line("<line x1=\"" + num(kLeft) + "\" y1=\"" + yy + "\" x2=\"" + num(kRight) + "\" y2=\"" + yy +
                 "\" stroke=\"#e5e5e5\"/>");
        svg.line("<text class=\"y-tick\" x=\"" + num(kLeft - 6) + "\" y=\"" + num(py(t) + 4) +
                 "\" font-size=\"11\" text-anchor=\"end\">" + escape_xml(y.label(t)) + "</text>");
    }
    // x ticks.
    for (double t : x_ticks) {
        if (t < x_lo - 1e-9 || t > x_hi + 1e-9) continue;
        const std::string xx = num(px(t));
        svg.line("<line x1=\"" + xx + "\" y1=\"" + num(panel.bottom) + "\" x2=\"" + xx + "\" y2=\"" +
                 num(panel.bottom + 4) + "\" stroke=\"#999\"/>");
        svg.line("<text class=\"x-tick\" x=\"" + xx + "\" y=\"" + num(panel.bottom + 17) +
                 "\" font-size=\"11\" text-anchor=\"middle\">" + num(t, 0) + "</text>");
    }
    svg.line("<text x=\"" + num((kLeft + kRight) / 2) + "\" y=\"" + num(panel.bottom + 32) +
             "\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">" + escape_xml(panel.x_label) + "</text>");
    if (!unit.empty()) {
        const double cy = (panel.top + panel.bottom) / 2;
        svg.line("<text class=\"unit\" x=\"18\" y=\"" + num(cy) + "\" font-size=\"12\" text-anchor=\"middle\" "
                 "fill=\"#333\" transform=\"rotate(-90 18 " + num(cy) + ")\">" + escape_xml(unit) + "</text>");
    }
    // Series.
    for (const auto& s : series) {
        if (s.points.empty()) continue;
        if (s.points.size() >= 2) {
            std::string pts;
            pts.reserve(s.points.size() * 16);
            for (const auto& p : s.points) {
                if (!pts.empty()) pts += ' ';
                pts += num(px(p.x)) + "," + num(py(p.y));
            }
            svg.line(std::string("<polyline class=\"") + s.cls + "\" fill=\"none\" stroke=\"" + s.color +
                     "\" stroke-width=\"" + (markers ? "2" : "1.2") + "\" stroke-linejoin=\"round\" points=\"" + pts +
                     "\"/>");
        }
        if (markers || s.points.size() == 1) {
            for (const auto& p : s.points)
                svg.line(std::string("<circle class=\"") + s.cls + "\" cx=\"" + num(px(p.x)) + "\" cy=\"" +
                         num(py(p.y)) + "\" r=\"3.5\" fill=\"" + s.color + "\"/>");
        }
    }
    svg.line("</g>");
}

/// The bounds of the epochs of `n` steps from their starts: epoch e (0-based) spans
/// [bounds[e], bounds[e + 1]). Starts are made consistent (the first at 0, never decreasing, at
/// most n); an epoch without steps keeps its place on the axis; starts at the very end (the start
/// of an epoch that has not run yet) add nothing.
std::vector<std::size_t> epoch_bounds(const std::vector<std::size_t>& starts_in, std::size_t n) {
    if (n == 0) return {};
    std::vector<std::size_t> s = starts_in.empty() ? std::vector<std::size_t>{0} : starts_in;
    s[0] = 0;
    for (std::size_t i = 1; i < s.size(); ++i) s[i] = std::clamp(s[i], s[i - 1], n);
    std::size_t epochs = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] < n) epochs = i + 1;
    s.resize(epochs);
    s.push_back(n);
    return s;
}

/// Step i of epoch e (1-based) at x = e - 1 + i / len(epoch).
std::vector<Point> iteration_points(const std::vector<double>& values, const std::vector<std::size_t>& starts) {
    const auto bounds = epoch_bounds(starts, values.size());
    std::vector<Point> pts;
    pts.reserve(values.size());
    for (std::size_t e = 0; e + 1 < bounds.size(); ++e) {
        const std::size_t begin = bounds[e], end = bounds[e + 1];
        const double len = double(end - begin);
        for (std::size_t i = begin; i < end; ++i) pts.push_back({double(e) + double(i - begin) / len, values[i]});
    }
    return thin(finite_points(pts));
}

std::vector<Point> epoch_points(const std::vector<double>& values) {
    std::vector<Point> pts;
    for (std::size_t i = 0; i < values.size(); ++i) pts.push_back({double(i + 1), values[i]});
    return thin(finite_points(pts));
}

}  // namespace

std::string metric_plot_svg(const MetricHistory& h) {
    Svg svg;
    svg.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    svg.line("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) +
             "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
             "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">");
    const std::string name = escape_xml(h.name);
    svg.line("<title>" + name + "</title>");
    svg.line("<rect width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) + "\" fill=\"white\"/>");
    svg.line("<text class=\"title\" x=\"" + num(kWidth / 2) + "\" y=\"30\" font-size=\"18\" font-weight=\"bold\" "
             "text-anchor=\"middle\">" + name + "</text>");

    std::vector<Series> epochs = {{"train-epoch", kTrainColor, epoch_points(h.train_epochs)},
                                  {"valid-epoch", kValidColor, epoch_points(h.valid_epochs)}};
    std::vector<Series> iters = {
        {"train-iteration", kTrainColor, iteration_points(h.train_iterations, h.train_epoch_starts)},
        {"valid-iteration", kValidColor, iteration_points(h.valid_iterations, h.valid_epoch_starts)}};

    const bool has_train = !epochs[0].points.empty() || !iters[0].points.empty();
    const bool has_valid = !epochs[1].points.empty() || !iters[1].points.empty();
    if (!has_train && !has_valid) {
        svg.line("<text class=\"no-data\" x=\"" + num(kWidth / 2) + "\" y=\"" + num(kHeight / 2) +
                 "\" font-size=\"16\" fill=\"#777\" text-anchor=\"middle\">no data</text>");
        svg.line("</svg>");
        return svg.text;
    }

    // Legend, under the title.
    {
        double x = kRight - (has_train && has_valid ? 150 : 70);
        svg.line("<g class=\"legend\" font-size=\"12\">");
        for (int s = 0; s < 2; ++s) {
            if (s == 0 ? !has_train : !has_valid) continue;
            const char* color = s == 0 ? kTrainColor : kValidColor;
            svg.line("<line x1=\"" + num(x) + "\" y1=\"48\" x2=\"" + num(x + 20) + "\" y2=\"48\" stroke=\"" + color +
                     "\" stroke-width=\"2\"/>");
            svg.line("<text x=\"" + num(x + 25) + "\" y=\"52\">" + (s == 0 ? "train" : "valid") + "</text>");
            x += 80;
        }
        svg.line("</g>");
    }

    // Top panel: per epoch, x from epoch 1 to the last.
    const std::size_t n_epochs = std::max(h.train_epochs.size(), h.valid_epochs.size());
    {
        const Panel panel{80, 290, "Per epoch", "epoch"};
        const double x_margin = n_epochs <= 1 ? 0.5 : 0.03 * double(n_epochs - 1);
        const double x_lo = 1.0 - x_margin;
        const double x_hi = double(std::max<std::size_t>(n_epochs, 1)) + x_margin;
        draw_panel(svg, panel, x_lo, x_hi, integer_ticks(1, long(std::max<std::size_t>(n_epochs, 1))), epochs,
                   h.unit, true);
    }
    // Bottom panel: per iteration, x in epochs (epoch e spans [e-1, e]).
    {
        const auto epochs_of = [](const std::vector<std::size_t>& starts, std::size_t steps) {
            const auto bounds = epoch_bounds(starts, steps);
            return bounds.empty() ? std::size_t(0) : bounds.size() - 1;
        };
        const std::size_t n = std::max<std::size_t>({epochs_of(h.train_epoch_starts, h.train_iterations.size()),
                                                     epochs_of(h.valid_epoch_starts, h.valid_iterations.size()), 1});
        const Panel panel{350, 545, "Per iteration", "epoch"};
        draw_panel(svg, panel, 0.0, double(n), integer_ticks(0, long(n)), iters, h.unit, false);
    }
    svg.line("</svg>");
    return svg.text;
}

void write_metric_plot(const std::filesystem::path& path, const MetricHistory& history) {
    const std::string text = metric_plot_svg(history);
    std::error_code ec;
    if (path.has_parent_path()) {
        std::filesystem::create_directories(path.parent_path(), ec);
        BURN_CHECK(!ec, "write_metric_plot: cannot create the directory ", path.parent_path().string(), " for ",
                   path.string(), " (", ec.message(), ")");
    }
    std::filesystem::path tmp = path;
    tmp += ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::out | std::ios::trunc | std::ios::binary);
        BURN_CHECK(out.is_open(), "write_metric_plot: cannot write ", path.string(), " (cannot open ", tmp.string(),
                   ": ", std::strerror(errno), ")");
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.close();
        if (out.fail()) {
            std::filesystem::remove(tmp, ec);
            detail::fail("write_metric_plot: cannot write ", path.string(), " (writing ", tmp.string(), " failed)");
        }
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        detail::fail("write_metric_plot: cannot write ", path.string(), " (renaming ", tmp.string(),
                     " failed: ", ec.message(), ")");
    }
}

}  // namespace burn::train

// SPDX-License-Identifier: MIT OR Apache-2.0
#include "burn/tensor/closeness.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <ios>
#include <sstream>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#define BURN_HAS_ISATTY 1
#endif

namespace burn {
namespace {

constexpr double kLadder[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8};

/// Colour for the stream: only std::cout / std::cerr, only on a terminal, only without NO_COLOR.
bool use_colour(const std::ostream& os) {
#if defined(BURN_HAS_ISATTY)
    const char* no_colour = std::getenv("NO_COLOR");
    if (no_colour != nullptr && no_colour[0] != '\0') return false;
    if (&os == &std::cout) return isatty(STDOUT_FILENO) == 1;
    if (&os == &std::cerr) return isatty(STDERR_FILENO) == 1;
#else
    (void)os;
#endif
    return false;
}

const char* colour_of(ClosenessStatus s) {
    switch (s) {
        case ClosenessStatus::Pass: return "\x1b[32m";  // green
        case ClosenessStatus::Warn: return "\x1b[33m";  // yellow
        case ClosenessStatus::Fail: return "\x1b[31m";  // red
    }
    return "";
}

}  // namespace

const char* closeness_status_name(ClosenessStatus s) {
    switch (s) {
        case ClosenessStatus::Pass: return "PASS";
        case ClosenessStatus::Warn: return "WARN";
        case ClosenessStatus::Fail: return "FAIL";
    }
    return "?";
}

const ClosenessLevel& ClosenessReport::level(double epsilon) const {
    for (const auto& l : levels)
        if (std::abs(l.epsilon - epsilon) <= 1e-9 * l.epsilon) return l;
    detail::fail("ClosenessReport::level: ", epsilon, " is not one of the tolerances 1e-1 .. 1e-8");
}

std::optional<double> ClosenessReport::tightest_pass() const {
    std::optional<double> best;
    for (const auto& l : levels) {
        if (l.status != ClosenessStatus::Pass) break;
        best = l.epsilon;
    }
    return best;
}

ClosenessReport closeness_report(const TensorData& a, const TensorData& b) {
    BURN_CHECK(a.shape == b.shape, "check_closeness: shapes differ: ", a.shape, " vs ", b.shape);
    ClosenessReport r;
    r.shape = a.shape;
    r.num_elements = a.num_elements();
    // Absolute differences once; NaN marks an element that is never within tolerance.
    std::vector<double> diff(r.num_elements);
    for (std::size_t i = 0; i < r.num_elements; ++i) {
        const double x = a.value_as_double(i), y = b.value_as_double(i);
        double d;
        if (std::isnan(x) || std::isnan(y)) d = std::nan("");
        else if (x == y) d = 0.0;  // also equal infinities
        else d = std::abs(x - y);
        diff[i] = d;
        if (std::isnan(d)) ++r.nan_count;
        else if (d > r.max_abs_diff) r.max_abs_diff = d;
    }
    for (double eps : kLadder) {
        ClosenessLevel l;
        l.epsilon = eps;
        for (double d : diff) l.within += d <= eps ? 1 : 0;  // false for NaN
        const std::size_t n = r.num_elements;
        l.fraction = n == 0 ? 1.0 : static_cast<double>(l.within) / static_cast<double>(n);
        if (l.within == n) l.status = ClosenessStatus::Pass;
        else if (l.within * 10 >= n * 9) l.status = ClosenessStatus::Warn;  // at least 90%
        else l.status = ClosenessStatus::Fail;
        r.levels.push_back(l);
    }
    return r;
}

void print_closeness(const ClosenessReport& r, std::ostream& os) {
    const bool colour = use_colour(os);
    std::ostringstream s;  // formatted apart, so that os's own flags are left alone
    s << "Closeness of two tensors of shape " << r.shape << " (" << r.num_elements
      << " elements): max |a - b| = " << std::setprecision(6) << r.max_abs_diff;
    if (r.nan_count) s << ", " << r.nan_count << " with NaN";
    s << '\n' << "  tolerance   elements within   status\n";
    for (const auto& l : r.levels) {
        char eps[16], pct[16];
        std::snprintf(eps, sizeof eps, "%.0e", l.epsilon);
        std::snprintf(pct, sizeof pct, "%.2f%%", 100.0 * l.fraction);
        s << "  " << std::left << std::setw(12) << eps << std::right << std::setw(15) << pct
          << "   ";
        const char* name = closeness_status_name(l.status);
        if (colour) s << colour_of(l.status) << '[' << name << ']' << "\x1b[0m";
        else s << '[' << name << ']';
        s << '\n';
    }
    if (auto t = r.tightest_pass()) {
        char eps[16];
        std::snprintf(eps, sizeof eps, "%.0e", *t);
        s << "  all elements agree to within " << eps << '\n';
    } else {
        s << "  no tolerance of the ladder holds for every element\n";
    }
    os << s.str();
}

}  // namespace burn

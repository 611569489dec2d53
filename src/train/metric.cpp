// SPDX-License-Identifier: MIT OR Apache-2.0
// NumericMetricState and the number formatting shared by the metrics (burn/train/metric.hpp,
// burn/train/metrics.hpp).
#include "burn/train/metric.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "burn/train/metrics.hpp"

namespace burn::train {

namespace detail {

namespace {
// The shortest decimal digits of |v| (no leading/trailing zeros) and the decimal exponent of
// the first digit: v = 0.d1d2d3... * 10^(exp + 1).
void shortest_digits(double v, std::string& digits, int& exp) {
    char buf[48];
    for (int p = 0; p <= 16; ++p) {
        std::snprintf(buf, sizeof buf, "%.*e", p, std::fabs(v));
        if (std::strtod(buf, nullptr) == std::fabs(v)) break;
    }
    std::string s(buf);
    auto e = s.find('e');
    exp = std::atoi(s.c_str() + e + 1);
    digits.clear();
    for (std::size_t i = 0; i < e; ++i)
        if (s[i] != '.') digits.push_back(s[i]);
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}
}  // namespace

std::string rust_float(double v, bool debug) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    std::string sign = std::signbit(v) ? "-" : "";
    if (v == 0.0) return sign + (debug ? "0.0" : "0");
    std::string digits;
    int exp = 0;
    shortest_digits(v, digits, exp);
    const double a = std::fabs(v);
    if (debug && (a < 1e-4 || a >= 1e16)) {  // Rust's Debug switches to exponent notation
        std::string out = sign;
        out += digits[0];
        if (digits.size() > 1) out.append(".").append(digits, 1);
        return out.append("e").append(std::to_string(exp));
    }
    std::string out = sign;
    if (exp < 0) {
        out.append("0.").append(std::size_t(-exp - 1), '0').append(digits);
    } else if (std::size_t(exp) + 1 >= digits.size()) {
        out.append(digits).append(std::size_t(exp) + 1 - digits.size(), '0');
        if (debug) out.append(".0");
    } else {
        out.append(digits, 0, std::size_t(exp) + 1).append(".").append(digits, std::size_t(exp) + 1);
    }
    return out;
}

std::string format_roundtrip(double v) {
    const double a = std::fabs(v);
    // Rust's Display (what Burn writes in its logs) for ordinary magnitudes: "0.1", "50",
    // "66.66666666666667"; the shortest exponent form for extreme ones: "1e-300".
    if (!std::isfinite(v) || v == 0.0 || (a >= 1e-7 && a < 1e21)) return rust_float(v, false);
    std::string digits;
    int exp = 0;
    shortest_digits(v, digits, exp);
    std::string out = std::signbit(v) ? "-" : "";
    out += digits[0];
    if (digits.size() > 1) out.append(".").append(digits, 1);
    return out.append("e").append(std::to_string(exp));
}

}  // namespace detail

std::string format_value(double v, const FormatOptions& format) {
    const int precision = format.precision.value_or(2);
    std::string text;
    if (std::isnan(v)) {
        text = "NaN";
    } else if (std::isinf(v)) {
        text = v > 0 ? "inf" : "-inf";
    } else {
        // Burn's format_float: values at or below 0.1^(precision - 1) in scientific notation
        // ("1.00e-3"), so that small learning rates and losses stay readable. Here the test is on
        // |v| and zero stays "0.00".
        const double threshold = std::pow(0.1, double(precision - 1));
        char buf[64];
        if (v != 0.0 && std::fabs(v) <= threshold) {
            std::snprintf(buf, sizeof buf, "%.*e", precision, v);
            // C writes "1.00e-03"; Rust (and Burn) write "1.00e-3".
            std::string s(buf);
            auto e = s.find('e');
            std::string mant = s.substr(0, e);
            int exp = std::atoi(s.c_str() + e + 1);
            text = mant + "e" + std::to_string(exp);
        } else {
            std::snprintf(buf, sizeof buf, "%.*f", precision, v);
            text = buf;
        }
    }
    if (format.unit) text += " " + *format.unit;
    return text;
}

MetricEntry NumericMetricState::update(double value, std::size_t batch_size,
                                       const FormatOptions& format) {
    current_ = value;
    // A step of weight 0 (a batch made only of padding) is shown but does not count.
    if (batch_size > 0) {
        sum_ += value * double(batch_size);
        count_ += batch_size;
    }
    MetricEntry entry;
    entry.name = format.name;
    entry.formatted =
        "epoch " + format_value(this->value(), format) + " - batch " + format_value(value, format);
    entry.serialized = detail::format_roundtrip(value) + "," + std::to_string(batch_size);
    return entry;
}

void NumericMetricState::reset() {
    sum_ = 0.0;
    count_ = 0;
    current_ = 0.0;
}

}  // namespace burn::train

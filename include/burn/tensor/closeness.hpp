// SPDX-License-Identifier: MIT OR Apache-2.0
// check_closeness: how close two tensors are, element by element, at a ladder of absolute
// tolerances (1e-1 down to 1e-8). Useful when porting a model or a kernel: it tells at which
// precision two results stop agreeing, not only whether they do at one tolerance.
//
//   auto report = burn::check_closeness(ours, reference);   // prints a table to std::cout
//   if (report.status_at(1e-4) != burn::ClosenessStatus::Pass) ...
//
// Each row gives the share of elements with |a - b| <= epsilon and a status: PASS when all of
// them are, WARN when at least 90% are, FAIL otherwise. Equal values (including equal infinities)
// are always within tolerance; an element where either side is NaN never is. The status is
// coloured (green / yellow / red) only when printing to std::cout or std::cerr attached to a
// terminal (and NO_COLOR is unset).
#pragma once

#include <cstddef>
#include <iostream>
#include <optional>
#include <ostream>
#include <vector>

#include "burn/tensor/data.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn {

enum class ClosenessStatus { Pass, Warn, Fail };

/// "PASS", "WARN" or "FAIL".
const char* closeness_status_name(ClosenessStatus s);

/// One tolerance of the ladder.
struct ClosenessLevel {
    double epsilon = 0.0;
    std::size_t within = 0;  ///< elements with |a - b| <= epsilon
    double fraction = 1.0;   ///< within / number of elements (1 for empty tensors)
    ClosenessStatus status = ClosenessStatus::Pass;
};

struct ClosenessReport {
    Shape shape;
    std::size_t num_elements = 0;
    std::size_t nan_count = 0;  ///< elements where a or b is NaN
    double max_abs_diff = 0.0;  ///< over the elements where neither is NaN
    std::vector<ClosenessLevel> levels;  ///< epsilon 1e-1, 1e-2, ..., 1e-8

    /// The row of `epsilon` (one of the ladder's values); throws burn::Error otherwise.
    const ClosenessLevel& level(double epsilon) const;
    ClosenessStatus status_at(double epsilon) const { return level(epsilon).status; }
    /// The smallest epsilon of the ladder at which every element is within tolerance.
    std::optional<double> tightest_pass() const;
};

/// Builds the report of two host tensors of the same shape (burn::Error otherwise).
ClosenessReport closeness_report(const TensorData& a, const TensorData& b);

/// Prints the report as a table (colour only for a terminal std::cout / std::cerr).
void print_closeness(const ClosenessReport& report, std::ostream& os);

/// Compares `a` and `b` element-wise at tolerances 1e-1 .. 1e-8, prints the table to `os` and
/// returns it. The shapes must match.
template <Backend B, std::size_t D, class K>
ClosenessReport check_closeness(const Tensor<B, D, K>& a, const Tensor<B, D, K>& b,
                                std::ostream& os = std::cout) {
    BURN_CHECK(a.shape() == b.shape(), "check_closeness: shapes differ: ", a.shape(), " vs ",
               b.shape());
    ClosenessReport report = closeness_report(a.to_data(), b.to_data());
    print_closeness(report, os);
    return report;
}

}  // namespace burn

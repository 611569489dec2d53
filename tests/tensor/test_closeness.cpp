// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::check_closeness: the report of known pairs (Burn book's example, exact dyadic
// differences, NaN / inf), the printed table (no colour outside a terminal), shape mismatch.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_closeness {

namespace {

using burn::ClosenessStatus;
using burn::Tensor;

template <class B>
class ClosenessTest : public ::testing::Test {};
TYPED_TEST_SUITE(ClosenessTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(ClosenessTest, BookExample) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "the counts are those of the exact f32 differences");
    const auto a =
        Tensor<B, 1>::from_floats({1.0, 2.0, 3.0, 4.0, 5.0, 6.001, 7.002, 8.003, 9.004, 10.1});
    const auto b =
        Tensor<B, 1>::from_floats({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.001, 8.002, 9.003, 10.004});
    std::ostringstream os;
    const auto r = burn::check_closeness(a, b, os);
    EXPECT_EQ(r.num_elements, 10u);
    EXPECT_EQ(r.nan_count, 0u);
    EXPECT_NEAR(r.max_abs_diff, 0.096, 1e-5);
    ASSERT_EQ(r.levels.size(), 8u);
    for (std::size_t k = 0; k < 8; ++k)
        EXPECT_NEAR(r.levels[k].epsilon, std::pow(10.0, -double(k + 1)), 1e-20);
    // 1e-1: every difference (at most 0.096) is within.
    EXPECT_EQ(r.levels[0].within, 10u);
    EXPECT_EQ(r.levels[0].status, ClosenessStatus::Pass);
    // 1e-2: all but 10.1 vs 10.004: exactly 90% is still a warning.
    EXPECT_EQ(r.levels[1].within, 9u);
    EXPECT_DOUBLE_EQ(r.levels[1].fraction, 0.9);
    EXPECT_EQ(r.levels[1].status, ClosenessStatus::Warn);
    // 1e-3 sits on the rounding of the 0.001 differences (f32 and f64 differ); below it only the
    // five equal pairs remain.
    for (std::size_t k = 3; k < 8; ++k) {
        EXPECT_EQ(r.levels[k].within, 5u) << k;
        EXPECT_DOUBLE_EQ(r.levels[k].fraction, 0.5);
        EXPECT_EQ(r.levels[k].status, ClosenessStatus::Fail);
    }
    EXPECT_EQ(r.tightest_pass(), 1e-1);
    EXPECT_EQ(r.status_at(1e-2), ClosenessStatus::Warn);
    EXPECT_EQ(r.status_at(1e-6), ClosenessStatus::Fail);
    EXPECT_BURN_ERROR(r.level(0.5), "ClosenessReport::level");

    const std::string text = os.str();
    EXPECT_NE(text.find("[10]"), std::string::npos) << text;
    EXPECT_NE(text.find("1e-01"), std::string::npos) << text;
    EXPECT_NE(text.find("100.00%   [PASS]"), std::string::npos) << text;
    EXPECT_NE(text.find("90.00%   [WARN]"), std::string::npos) << text;
    EXPECT_NE(text.find("50.00%   [FAIL]"), std::string::npos) << text;
    EXPECT_NE(text.find("1e-08"), std::string::npos) << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << "no colour outside a terminal";
}

TYPED_TEST(ClosenessTest, ExactDifferencesGiveExactCounts) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "the counts are those of the exact f32 differences");
    // 20 elements: 18 equal, one off by 2^-4 = 0.0625, one by 2^-12 ~ 0.000244 (exact in f32).
    std::vector<double> va(20), vb(20);
    for (std::size_t i = 0; i < 20; ++i) va[i] = vb[i] = 0.25 * double(i) - 2.0;
    vb[3] += 0.0625;
    vb[17] -= 1.0 / 4096;
    const auto a = Tensor<B, 2>::from_data(burn::TensorData(va, burn::Shape({4, 5})));
    const auto b = Tensor<B, 2>::from_data(burn::TensorData(vb, burn::Shape({4, 5})));
    std::ostringstream os;
    const auto r = burn::check_closeness(a, b, os);
    EXPECT_EQ(r.shape, burn::Shape({4, 5}));
    EXPECT_DOUBLE_EQ(r.max_abs_diff, 0.0625);
    const std::size_t within[8] = {20, 19, 19, 18, 18, 18, 18, 18};
    const ClosenessStatus status[8] = {
        ClosenessStatus::Pass, ClosenessStatus::Warn, ClosenessStatus::Warn, ClosenessStatus::Warn,
        ClosenessStatus::Warn, ClosenessStatus::Warn, ClosenessStatus::Warn, ClosenessStatus::Warn};
    for (std::size_t k = 0; k < 8; ++k) {
        EXPECT_EQ(r.levels[k].within, within[k]) << k;
        EXPECT_EQ(r.levels[k].status, status[k]) << k;
    }
    // Identical tensors pass everywhere.
    const auto same = burn::check_closeness(a, a, os);
    for (const auto& l : same.levels) EXPECT_EQ(l.status, ClosenessStatus::Pass);
    EXPECT_EQ(same.tightest_pass(), 1e-8);
    EXPECT_EQ(same.max_abs_diff, 0.0);
}

TYPED_TEST(ClosenessTest, NanNeverWithinEqualInfinitiesAre) {
    using B = TypeParam;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const auto a = Tensor<B, 1>::from_floats({nan, inf, -inf, 1.0});
    const auto b = Tensor<B, 1>::from_floats({nan, inf, -inf, 1.0});
    std::ostringstream os;
    const auto r = burn::check_closeness(a, b, os);
    EXPECT_EQ(r.nan_count, 1u);
    EXPECT_EQ(r.max_abs_diff, 0.0);
    for (const auto& l : r.levels) {
        EXPECT_EQ(l.within, 3u);
        EXPECT_EQ(l.status, ClosenessStatus::Fail);  // 75%
    }
    EXPECT_FALSE(r.tightest_pass().has_value());
    EXPECT_NE(os.str().find("1 with NaN"), std::string::npos) << os.str();
    // inf against a finite value: an infinite difference.
    const auto c = Tensor<B, 1>::from_floats({0.0, 0.0, 0.0, 1.0});
    const auto r2 = burn::check_closeness(Tensor<B, 1>::from_floats({1.0, inf, 0.0, 1.0}), c, os);
    EXPECT_TRUE(std::isinf(r2.max_abs_diff));
    EXPECT_EQ(r2.levels[0].within, 2u);
}

TYPED_TEST(ClosenessTest, IntTensorsAndEmptyTensors) {
    using B = TypeParam;
    std::ostringstream os;
    const auto a =
        Tensor<B, 1, burn::Int>::from_data(burn::TensorData::from<std::int64_t>({1, 2, 3}));
    const auto r = burn::check_closeness(a, a, os);
    EXPECT_EQ(r.tightest_pass(), 1e-8);
    const auto e =
        Tensor<B, 2>::from_data(burn::TensorData(std::vector<double>{}, burn::Shape({0, 3})));
    const auto re = burn::check_closeness(e, e, os);
    EXPECT_EQ(re.num_elements, 0u);
    for (const auto& l : re.levels) EXPECT_EQ(l.status, ClosenessStatus::Pass);
}

TYPED_TEST(ClosenessTest, DefaultStreamIsStdoutWithoutColourWhenNotATerminal) {
    using B = TypeParam;
    const auto a = Tensor<B, 1>::from_floats({1.0, 2.0});
    const auto b = Tensor<B, 1>::from_floats({1.0, 2.5});
    ::testing::internal::CaptureStdout();  // stdout becomes a file: not a terminal
    const auto r = burn::check_closeness(a, b);
    const std::string text = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(r.levels[0].status, ClosenessStatus::Fail);
    EXPECT_NE(text.find("[FAIL]"), std::string::npos) << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
}

TYPED_TEST(ClosenessTest, ShapeMismatchThrows) {
    using B = TypeParam;
    const auto a = Tensor<B, 2>::zeros(burn::Shape({2, 3}));
    const auto b = Tensor<B, 2>::zeros(burn::Shape({3, 2}));
    std::ostringstream os;
    try {
        (void)burn::check_closeness(a, b, os);
        ADD_FAILURE() << "expected burn::Error";
    } catch (const burn::Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("check_closeness"), std::string::npos) << m;
        EXPECT_NE(m.find(a.shape().to_string()), std::string::npos) << m;
        EXPECT_NE(m.find(b.shape().to_string()), std::string::npos) << m;
    }
    EXPECT_TRUE(os.str().empty());
}

}  // namespace

}  // namespace burn_test_closeness

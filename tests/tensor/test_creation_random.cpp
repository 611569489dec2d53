// SPDX-License-Identifier: MIT OR Apache-2.0
// Random creation: every Distribution for Float and Int tensors, statistical checks (with loose
// bounds, computed on the host so that no reduction kernel is involved), B::seed reproducibility
// and argument validation.
#include <cmath>
#include <set>

#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_creation_random {

namespace {

using namespace burn;

template <class B>
class RandomTest : public ::testing::Test {};
TYPED_TEST_SUITE(RandomTest, burn::testing::Backends, burn::testing::BackendNames);

struct Stats {
    double mean = 0, var = 0, min = 0, max = 0;
};

Stats stats(const std::vector<double>& v) {
    Stats s;
    s.min = *std::min_element(v.begin(), v.end());
    s.max = *std::max_element(v.begin(), v.end());
    for (double x : v) s.mean += x;
    s.mean /= static_cast<double>(v.size());
    for (double x : v) s.var += (x - s.mean) * (x - s.mean);
    s.var /= static_cast<double>(v.size() - 1);
    return s;
}

template <class T>
std::vector<double> values(const T& t) {
    return t.to_data().template to_vec<double>();
}

constexpr std::size_t kN = 200000;

TYPED_TEST(RandomTest, FloatDefaultIsUniform01) {
    using B = TypeParam;
    CSI_ALIASES(B);
    B::seed(1);
    auto t = F2::random({400, 500});
    EXPECT_EQ(t.shape(), Shape({400, 500}));
    EXPECT_EQ(t.to_data().dtype, B::default_float_dtype);
    const auto v = values(t);
    const Stats s = stats(v);
    EXPECT_GE(s.min, 0.0);
    EXPECT_LT(s.max, 1.0);
    EXPECT_NEAR(s.mean, 0.5, 0.01);
    EXPECT_NEAR(s.var, 1.0 / 12.0, 0.005);
    // Few repeats among 1000 values (the half types have 2^10 or 2^7 values per octave).
    if constexpr (!burn::testing::half_backend<B>)
        EXPECT_GT(std::set<double>(v.begin(), v.begin() + 1000).size(), 990u);
    // Explicit Default() and the default argument agree in range.
    const Stats s2 = stats(values(F1::random({kN}, Distribution::Default())));
    EXPECT_NEAR(s2.mean, 0.5, 0.01);
}

TYPED_TEST(RandomTest, FloatUniform) {
    using B = TypeParam;
    CSI_ALIASES(B);
    B::seed(2);
    const Stats s = stats(values(F1::random({kN}, Distribution::Uniform(-2.0, 3.0))));
    EXPECT_GE(s.min, -2.0);
    EXPECT_LT(s.max, 3.0);
    EXPECT_NEAR(s.mean, 0.5, 0.05);
    EXPECT_NEAR(s.var, 25.0 / 12.0, 0.06);
    // A narrow range far from zero stays in [low, high).
    const Stats n = stats(values(F1::random({kN}, Distribution::Uniform(1000.0, 1000.5))));
    EXPECT_GE(n.min, 1000.0);
    EXPECT_LT(n.max, 1000.5);
    // low == high gives that value (torch's uniform_(1, 1)).
    const Stats d = stats(values(F1::random({100}, Distribution::Uniform(1.5, 1.5))));
    EXPECT_EQ(d.min, 1.5);
    EXPECT_EQ(d.max, 1.5);
}

TYPED_TEST(RandomTest, FloatNormal) {
    using B = TypeParam;
    CSI_ALIASES(B);
    B::seed(3);
    const auto v = values(F1::random({kN}, Distribution::Normal(1.0, 2.0)));
    const Stats s = stats(v);
    EXPECT_NEAR(s.mean, 1.0, 0.05);
    EXPECT_NEAR(s.var, 4.0, 0.15);
    // Roughly 68% within one std, and a two-sided tail.
    std::size_t within = 0;
    for (double x : v) within += std::abs(x - 1.0) <= 2.0;
    EXPECT_NEAR(static_cast<double>(within) / kN, 0.6827, 0.01);
    EXPECT_LT(s.min, -5.0);
    EXPECT_GT(s.max, 7.0);
    for (double x : v) ASSERT_TRUE(std::isfinite(x));
    // std 0 gives the mean.
    const Stats z = stats(values(F1::random({64}, Distribution::Normal(-3.0, 0.0))));
    EXPECT_EQ(z.min, -3.0);
    EXPECT_EQ(z.max, -3.0);
}

TYPED_TEST(RandomTest, FloatBernoulli) {
    using B = TypeParam;
    CSI_ALIASES(B);
    B::seed(4);
    const auto v = values(F1::random({kN}, Distribution::Bernoulli(0.3)));
    for (double x : v) ASSERT_TRUE(x == 0.0 || x == 1.0) << x;
    EXPECT_NEAR(stats(v).mean, 0.3, 0.01);
    const Stats p0 = stats(values(F1::random({1000}, Distribution::Bernoulli(0.0))));
    EXPECT_EQ(p0.max, 0.0);
    const Stats p1 = stats(values(F1::random({1000}, Distribution::Bernoulli(1.0))));
    EXPECT_EQ(p1.min, 1.0);
}

TYPED_TEST(RandomTest, IntUniformInRange) {
    using B = TypeParam;
    CSI_ALIASES(B);
    B::seed(5);
    auto t = I2::random({400, 500}, Distribution::Uniform(-3, 4));
    EXPECT_EQ(t.to_data().dtype, B::int_dtype);
    const auto v = values(t);
    std::array<std::size_t, 7> counts{};
    for (double x : v) {
        ASSERT_EQ(x, std::trunc(x));
        ASSERT_GE(x, -3.0);
        ASSERT_LT(x, 4.0);
        ++counts[static_cast<std::size_t>(x + 3)];
    }
    for (std::size_t c : counts) EXPECT_NEAR(static_cast<double>(c) / v.size(), 1.0 / 7.0, 0.01);
    EXPECT_NEAR(stats(v).mean, 0.0, 0.05);
    // Large bounds: beyond 32 bits with 64-bit ints; next to the ends of the type (and beyond
    // the 24-bit mantissa of an f32) with 32-bit ints (Vulkan<>).
    std::vector<std::pair<double, double>> bounds;
    if constexpr (burn::testing::int64_backend<B>) bounds = {{1e12, 1e12 + 10}};
    else bounds = {{2147483637.0, 2147483647.0}, {-2147483648.0, -2147483638.0}};
    for (const auto& [lo, hi] : bounds) {
        SCOPED_TRACE(lo);
        const auto bv = values(I1::random({1000}, Distribution::Uniform(lo, hi)));
        const Stats big = stats(bv);
        EXPECT_GE(big.min, lo);
        EXPECT_LT(big.max, hi);
        // Every one of the 10 values is drawn (no rounding to a coarser grid).
        std::set<double> seen(bv.begin(), bv.end());
        EXPECT_EQ(seen.size(), 10u);
    }
}

TYPED_TEST(RandomTest, IntBernoulliAndNormal) {
    using B = TypeParam;
    CSI_ALIASES(B);
    B::seed(6);
    const auto b = values(I1::random({kN}, Distribution::Bernoulli(0.7)));
    for (double x : b) ASSERT_TRUE(x == 0.0 || x == 1.0) << x;
    EXPECT_NEAR(stats(b).mean, 0.7, 0.01);
    const auto n = values(I1::random({kN}, Distribution::Normal(10.0, 3.0)));
    const Stats s = stats(n);
    EXPECT_NEAR(s.mean, 10.0, 0.1);
    EXPECT_NEAR(s.var, 9.0 + 1.0 / 12.0, 0.4);  // rounding adds about 1/12
}

TYPED_TEST(RandomTest, SeedReproducibility) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto dist : {Distribution::Default(), Distribution::Uniform(-1, 1),
                      Distribution::Normal(0, 1), Distribution::Bernoulli(0.5)}) {
        B::seed(42);
        const TensorData a = F2::random({17, 33}, dist).to_data();
        const TensorData a2 = F2::random({17, 33}, dist).to_data();
        B::seed(42);
        const TensorData b = F2::random({17, 33}, dist).to_data();
        const TensorData b2 = F2::random({17, 33}, dist).to_data();
        B::seed(43);
        const TensorData c = F2::random({17, 33}, dist).to_data();
        EXPECT_EQ(a, b) << "same seed must give identical data";
        EXPECT_EQ(a2, b2) << "the stream after a seed is reproducible";
        EXPECT_FALSE(a == c) << "a different seed must give different data";
        EXPECT_FALSE(a == a2) << "consecutive draws must differ";
    }
    B::seed(7);
    const TensorData i1 = I1::random({1000}, Distribution::Uniform(0, 1000)).to_data();
    B::seed(7);
    const TensorData i2 = I1::random({1000}, Distribution::Uniform(0, 1000)).to_data();
    B::seed(8);
    const TensorData i3 = I1::random({1000}, Distribution::Uniform(0, 1000)).to_data();
    EXPECT_EQ(i1, i2);
    EXPECT_FALSE(i1 == i3);
    B::seed(9);
    const TensorData l1 = F2::zeros({3, 4}).random_like(Distribution::Normal(0, 1)).to_data();
    B::seed(9);
    const TensorData l2 = F2::random({3, 4}, Distribution::Normal(0, 1)).to_data();
    EXPECT_EQ(l1, l2) << "random_like draws like random";
}

TYPED_TEST(RandomTest, EmptyShapes) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_EQ(F3::random({2, 0, 3}).shape(), Shape({2, 0, 3}));
    EXPECT_EQ(I2::random({0, 5}, Distribution::Uniform(0, 3)).num_elements(), 0u);
}

TYPED_TEST(RandomTest, InvalidDistributions) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_BURN_ERROR((F1::random({4}, Distribution::Uniform(2.0, 1.0))), "Tensor::random");
    EXPECT_BURN_ERROR((F1::random({4}, Distribution::Bernoulli(1.5))), "Tensor::random");
    EXPECT_BURN_ERROR((F1::random({4}, Distribution::Bernoulli(-0.1))), "Tensor::random");
    EXPECT_BURN_ERROR((F1::random({4}, Distribution::Normal(0.0, -1.0))), "Tensor::random");
    EXPECT_BURN_ERROR((I1::random({4}, Distribution::Uniform(5, 1))), "Tensor::random");
    EXPECT_BURN_ERROR((I1::random({4}, Distribution::Bernoulli(2.0))), "Tensor::random");
    // An int range that holds no integer (trunc(low) == trunc(high)).
    EXPECT_BURN_ERROR((I1::random({4}, Distribution::Uniform(1.2, 1.7))), "random");
}

}  // namespace

}  // namespace burn_test_creation_random

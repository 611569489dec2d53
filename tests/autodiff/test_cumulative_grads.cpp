// SPDX-License-Identifier: MIT OR Apache-2.0
// Gradients of the cumulative ops (cumsum, cumprod, cummax, cummin): central finite differences
// on Autodiff<Cpu<double>> (cumprod with zeros: one, two in a row, two apart, all), and PyTorch's
// gradients (tests/fixtures/cumulative.json, cases grad_*: ties of cummax/cummin, zeros of
// cumprod, NaN) on ADF (Autodiff<Cpu<float>>, or Autodiff<Vulkan<>> in the Vulkan instance) and
// Autodiff<Cpu<double>>.
#include <cstdint>
#include <string>
#include <vector>

#include "gradcheck.hpp"
#include "test_support.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::autodiff_cumulative_grads {
namespace {

// Finite differences and the f64 references on AD (gradcheck.hpp): skipped on a backend without
// f64, whose instance runs the f32 PyTorch cases and the graph checks on ADF.
using T2 = Tensor<AD, 2>;
using T3 = Tensor<AD, 3>;

T3 r3(std::size_t a, std::size_t b, std::size_t c, double lo = -1, double hi = 1,
      std::uint64_t s = 2) {
    return uniform<3>({a, b, c}, lo, hi, s);
}

/// `x` with the elements at flat positions `zeros` set to 0.
template <std::size_t D>
Tensor<AD, D> with_zeros(const Tensor<AD, D>& x, std::initializer_list<std::size_t> zeros) {
    TensorData d = x.to_data();
    auto v = d.as_mut_span<double>();
    for (std::size_t k : zeros) v[k] = 0.0;
    return Tensor<AD, D>::from_data(d);
}

// ------------------------------------------------------------------ finite differences
TEST(CumulativeGradCheck, Cumsum) {
    BURN_REQUIRE_FLOAT64();
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cumsum(0); }, r3(3, 4, 5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cumsum(1); }, r3(3, 4, 5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cumsum(-1); }, r3(3, 4, 5)));
    // A strided (transposed) input.
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cumsum(2); }, r3(3, 5, 4).swap_dims(1, 2)));
}

TEST(CumulativeGradCheck, CumprodWithoutZeros) {
    BURN_REQUIRE_FLOAT64();
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cumprod(0); }, r3(3, 4, 5, -1.5, 1.5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cumprod(1); }, r3(3, 4, 5, -1.5, 1.5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cumprod(-1); }, r3(3, 4, 5, -1.5, 1.5)));
}

TEST(CumulativeGradCheck, CumprodWithZeros) {
    BURN_REQUIRE_FLOAT64();
    // Rows of [6, 5] scanned along dim 1: no zero; one zero; two zeros in a row; two zeros
    // apart; a zero first; all zeros.
    const T2 base = uniform<2>({6, 5}, 0.5, 1.5, 11);
    const T2 x =
        with_zeros(base, {5 + 2, 10 + 1, 10 + 2, 15 + 1, 15 + 3, 20 + 0, 25, 26, 27, 28, 29});
    EXPECT_TRUE(gradcheck([](T2 a) { return a.cumprod(1); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.cumprod(0); }, x.transpose()));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.cumprod(-2); }, x.transpose()));
    // One zero and two zeros in a row along dim 1 of a 3-D tensor (other lanes without zeros).
    const T3 y = with_zeros(r3(2, 4, 3, -1.5, 1.5, 5), {1 * 3 + 0, 12 + 1 * 3 + 2, 12 + 2 * 3 + 2});
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cumprod(1); }, y));
    // Composed with other ops (the zeros of x stay zeros of a * a).
    EXPECT_TRUE(gradcheck([](T2 a) { return (a * a).cumprod(1).sum_dim(1); }, x));
}

TEST(CumulativeGradCheck, CummaxCummin) {
    BURN_REQUIRE_FLOAT64();
    // Distinct values (finite differences are meaningless at ties).
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cummax(0); }, r3(3, 4, 5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cummax(1); }, r3(3, 4, 5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cummax(-1); }, r3(3, 4, 5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cummin(0); }, r3(3, 4, 5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cummin(1); }, r3(3, 4, 5)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.cummin(-1); }, r3(3, 4, 5)));
    EXPECT_TRUE(
        gradcheck([](T3 a) { return a.cummin(1).exp().cummax(2); }, r3(3, 5, 4).swap_dims(1, 2)));
}

// ------------------------------------------------------------------ PyTorch
const char* kFile = "cumulative";

/// The fixture case `name`: y = op(x, dim) on backend B, backward of sum(y * gy), compared with
/// PyTorch's y and d(sum(y * gy)) / dx.
template <class B>
void check_torch(const std::string& name, Tolerance tol) {
    SCOPED_TRACE("case " + name + " on " + B::name());
    const auto& params = fixture(kFile, name).at("params");
    const std::string op = params.at("op").get<std::string>();
    const auto dim = params.at("dim").get<std::int64_t>();
    const std::size_t rank = fixture(kFile, name).at("inputs").at("x").at("shape").size();
    auto run = [&]<std::size_t D>(std::integral_constant<std::size_t, D>) {
        auto x = fixture_input<B, D>(kFile, name, "x").require_grad();
        const auto gy = fixture_input<B, D>(kFile, name, "gy");
        Tensor<B, D> y = op == "cumsum"    ? x.cumsum(dim)
                         : op == "cumprod" ? x.cumprod(dim)
                         : op == "cummax"  ? x.cummax(dim)
                                           : x.cummin(dim);
        EXPECT_TRUE(close_to(y, fixture_output(kFile, name, "y"), tol)) << "forward value";
        auto grads = (y * gy).sum().backward();
        const auto g = x.grad(grads);
        ASSERT_TRUE(g.has_value());
        EXPECT_TRUE(close_to(*g, fixture_output(kFile, name, "g_x"), tol)) << "gradient of x";
    };
    if (rank == 2) run(std::integral_constant<std::size_t, 2>{});
    else if (rank == 3) run(std::integral_constant<std::size_t, 3>{});
    else FAIL() << "unexpected rank " << rank;
}

TEST(CumulativeTorchGrads, Float32) {
    for (const auto& c : fixture_case_list(kFile, "grad"))
        check_torch<ADF>(c, Tolerance{1e-5, 1e-5});
}

TEST(CumulativeTorchGrads, Float64) {
    BURN_REQUIRE_FLOAT64();
    for (const auto& c : fixture_case_list(kFile, "grad"))
        check_torch<AD>(c, Tolerance{1e-12, 1e-12});
}

// ------------------------------------------------------------------ graph behaviour
TEST(CumulativeGrads, IntOpsPassThroughAndUntrackedStaysUntracked) {
    auto xi = Tensor<ADF, 2, Int>::from_data(
        TensorData(std::vector<std::int64_t>{3, 1, 2, 5}, Shape{2, 2}));
    EXPECT_TRUE(
        equal_to(xi.cumsum(1), TensorData(std::vector<std::int64_t>{3, 4, 2, 7}, Shape{2, 2})));
    EXPECT_TRUE(
        equal_to(xi.cummin(0), TensorData(std::vector<std::int64_t>{3, 1, 2, 1}, Shape{2, 2})));
    auto x = Tensor<ADF, 2>::ones({2, 3});
    EXPECT_FALSE(x.cumprod(1).is_require_grad());
    EXPECT_TRUE(x.require_grad().cummax(0).is_require_grad());
}

TEST(CumulativeGrads, BalancedCheckpointingGivesTheSameGradients) {
    BURN_REQUIRE_FLOAT64();
    using ADC = Autodiff<F64Backend, BalancedCheckpointing>;
    const TensorData d = with_zeros(uniform<2>({4, 6}, -1.5, 1.5, 21), {3, 8, 9}).to_data();
    auto chain = [](auto x) {
        return (x.exp().cumsum(1) * x).cumprod(1).cummax(0).cummin(1).sum();
    };
    auto a = Tensor<AD, 2>::from_data(d).require_grad();
    auto b = Tensor<ADC, 2>::from_data(d).require_grad();
    const auto ga = a.grad(chain(a).backward());
    const auto gb = b.grad(chain(b).backward());
    ASSERT_TRUE(ga && gb);
    EXPECT_TRUE(close_to(*gb, ga->to_data(), Tolerance{1e-12, 1e-12}));
}

}  // namespace
}  // namespace burn::testing::autodiff_cumulative_grads

// SPDX-License-Identifier: MIT OR Apache-2.0
// Cumulative ops: cumsum, cumprod, cummax, cummin along every dim (also counted from the end) of
// Float and Int tensors in every stored layout (contiguous, transposed, flipped, step-2) against
// PyTorch (tests/fixtures/cumulative.json, written by gen_cumulative.py); NaN propagation, int
// wrap-around (at the backend's int width: 64 or 32 bits), size-1 and empty dims, dim errors;
// large tensors (split into column strips and over threads) against a scan computed here; f32
// sums accumulated in f64 as PyTorch's CPU kernel.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_cumulative {

namespace {

using burn::Float;
using burn::Int;
using burn::Shape;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;
using burn::testing::equal_to;

constexpr const char* kFile = "cumulative";

TensorData expected(const std::string& c, const std::string& name) {
    return burn::testing::fixture_output(kFile, c, name);
}

/// The input x of case `c` in each stored layout, every one holding the same values.
template <class B, std::size_t D, class K = Float>
std::vector<std::pair<std::string, Tensor<B, D, K>>> layouts(const std::string& c) {
    using burn::testing::fixture_input;
    std::vector<std::pair<std::string, Tensor<B, D, K>>> v;
    v.emplace_back("contiguous", fixture_input<B, D, K>(kFile, c, "x"));
    const auto& ins = burn::testing::fixture(kFile, c).at("inputs");
    if constexpr (D >= 2)
        if (ins.contains("x@T"))
            v.emplace_back("transposed", fixture_input<B, D, K>(kFile, c, "x@T").transpose());
    if (ins.contains("x@flip"))
        v.emplace_back("flipped", fixture_input<B, D, K>(kFile, c, "x@flip").flip({0}));
    if (ins.contains("x@step"))
        v.emplace_back("step2",
                       fixture_input<B, D, K>(kFile, c, "x@step").slice({Slice(0, INT64_MAX, 2)}));
    return v;
}

/// Applies the cumulative op `op` along `dim`.
template <class B, std::size_t D, class K>
Tensor<B, D, K> apply(const std::string& op, const Tensor<B, D, K>& x, std::int64_t dim) {
    if (op == "cumsum") return x.cumsum(dim);
    if (op == "cumprod") return x.cumprod(dim);
    if (op == "cummax") return x.cummax(dim);
    return x.cummin(dim);
}

template <class B>
class CumulativeTest : public ::testing::Test {};
TYPED_TEST_SUITE(CumulativeTest, burn::testing::Backends, burn::testing::BackendNames);

/// Checks every op of `ops` along every dim (and the same dim counted from the end) of case `c`
/// in every layout.
template <class B, std::size_t D, class K>
void check_case(const std::string& c, const std::vector<std::string>& ops) {
    for (auto& [l, x] : layouts<B, D, K>(c)) {
        for (std::int64_t d = 0; d < static_cast<std::int64_t>(D); ++d) {
            for (std::int64_t dim : {d, d - static_cast<std::int64_t>(D)}) {
                for (const auto& op : ops) {
                    SCOPED_TRACE(c + ", " + l + ", " + op + ", dim " + std::to_string(dim));
                    const auto y = apply(op, x, dim);
                    EXPECT_EQ(y.shape(), x.shape());
                    const TensorData want = expected(c, op + "_d" + std::to_string(d));
                    if constexpr (std::same_as<K, Int>) EXPECT_TRUE(equal_to(y, want));
                    else EXPECT_TRUE(close_to(y, want));
                }
            }
        }
    }
}

TYPED_TEST(CumulativeTest, FloatEveryDimEveryLayout) {
    // [3, 4, 5] on a grid of quarters: cummax/cummin meet many ties.
    check_case<TypeParam, 3, Float>("fwd_float", {"cumsum", "cummax", "cummin"});
}

TYPED_TEST(CumulativeTest, CumprodEveryDimEveryLayout) {
    // |x| in [0.5, 1.5] with mixed signs and one zero (every later product along its lanes is 0).
    check_case<TypeParam, 3, Float>("fwd_prod", {"cumprod"});
}

TYPED_TEST(CumulativeTest, NanPropagates) {
    // NaN first, in the middle and last in a lane, and infinities: from the first NaN on, every
    // value of cummax/cummin (and of cumsum/cumprod) is NaN, as torch.
    check_case<TypeParam, 2, Float>("fwd_nan", {"cumsum", "cumprod", "cummax", "cummin"});
    using B = TypeParam;
    auto x = burn::testing::fixture_input<B, 2>(kFile, "fwd_nan", "x");
    const TensorData mx = x.cummax(1).to_data().convert(burn::DType::F64);
    const auto v = mx.template as_span<double>();
    EXPECT_TRUE(std::isnan(v[1]) && std::isnan(v[5])) << "row 0 after its NaN";
    EXPECT_EQ(v[0], 1.0);
}

TYPED_TEST(CumulativeTest, IntEveryDimEveryLayout) {
    check_case<TypeParam, 3, Int>("fwd_int", {"cumsum", "cumprod", "cummax", "cummin"});
}

TYPED_TEST(CumulativeTest, IntWrapsOnOverflow) {
    using B = TypeParam;
    if constexpr (burn::testing::int64_backend<B>) {
        // int64 sums and products wrap modulo 2^64, as torch's int64 kernels.
        check_case<B, 1, Int>("fwd_int_wrap", {"cumsum", "cumprod"});
    } else {
        // 32-bit ints (Vulkan<>) wrap modulo 2^32, as torch's int32 kernels: the same check at
        // the backend's width, against a scan in uint32 arithmetic computed here.
        const std::vector<std::int64_t> x = {65537, 32769, 3, 2147483643};
        using I1 = Tensor<B, 1, Int>;
        std::vector<std::pair<std::string, I1>> views;
        views.emplace_back("contiguous", I1::from_ints({x[0], x[1], x[2], x[3]}));
        views.emplace_back("flipped", I1::from_ints({x[3], x[2], x[1], x[0]}).flip({0}));
        views.emplace_back("step2", I1::from_ints({x[0], -7, x[1], -7, x[2], -7, x[3], -7})
                                        .slice({Slice(0, INT64_MAX, 2)}));
        for (const std::string op : {"cumsum", "cumprod"}) {
            std::vector<std::int64_t> want;
            std::uint32_t acc = op == "cumsum" ? 0u : 1u;
            for (const std::int64_t v : x) {
                const auto u = static_cast<std::uint32_t>(v);
                acc = op == "cumsum" ? acc + u : acc * u;
                want.push_back(static_cast<std::int32_t>(acc));
            }
            double exact = op == "cumsum" ? 0.0 : 1.0;
            for (const std::int64_t v : x)
                exact = op == "cumsum" ? exact + static_cast<double>(v)
                                       : exact * static_cast<double>(v);
            ASSERT_GT(exact, double{INT32_MAX}) << "the values must overflow 32 bits";
            for (auto& [l, t] : views) {
                for (const std::int64_t dim : {0, -1}) {
                    SCOPED_TRACE(l + ", " + op + ", dim " + std::to_string(dim));
                    EXPECT_EQ(apply(op, t, dim).to_data().template to_vec<std::int64_t>(), want);
                }
            }
        }
    }
}

TYPED_TEST(CumulativeTest, UnitDimAndRankOne) {
    check_case<TypeParam, 3, Float>("fwd_unit", {"cumsum", "cumprod", "cummax", "cummin"});
    check_case<TypeParam, 1, Float>("fwd_1d", {"cumsum", "cumprod", "cummax", "cummin"});
}

TYPED_TEST(CumulativeTest, EmptyAndErrors) {
    using B = TypeParam;
    auto e = Tensor<B, 2>::zeros({0, 3});
    EXPECT_EQ(e.cumsum(0).shape(), Shape({0, 3}));
    EXPECT_EQ(e.cummax(1).shape(), Shape({0, 3}));
    auto ei = Tensor<B, 2, Int>::zeros({2, 0});
    EXPECT_EQ(ei.cumprod(1).shape(), Shape({2, 0}));
    auto x = Tensor<B, 2>::ones({2, 3});
    EXPECT_BURN_ERROR(x.cumsum(2), "Tensor::cumsum");
    EXPECT_BURN_ERROR(x.cumprod(-3), "Tensor::cumprod");
    EXPECT_BURN_ERROR(x.cummax(5), "Tensor::cummax");
    auto xi = Tensor<B, 2, Int>::ones({2, 3});
    EXPECT_BURN_ERROR(xi.cummin(2), "Tensor::cummin");
}

/// The scan of `x` (dense row-major, shape [outer, n, inner]) computed here, the way PyTorch's
/// CPU kernels do: running value in f64 for float sums/products (stored as E after each step),
/// NaN-free max/min.
template <class E>
std::vector<E> reference(const std::string& op, const std::vector<E>& x, std::size_t outer,
                         std::size_t n, std::size_t inner) {
    using A = std::conditional_t<burn::testing::float_elem<E>, double, E>;
    const char k = op == "cumsum" ? 's' : op == "cumprod" ? 'p' : op == "cummax" ? 'M' : 'm';
    std::vector<E> out(x.size());
    for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t j = 0; j < inner; ++j) {
            A acc{};
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t at = (o * n + i) * inner + j;
                const A v = static_cast<A>(x[at]);
                if (i == 0) acc = v;
                else if (k == 's') acc += v;
                else if (k == 'p') acc *= v;
                else if (k == 'M') acc = v >= acc ? v : acc;
                else acc = v <= acc ? v : acc;
                out[at] = static_cast<E>(acc);
            }
        }
    return out;
}

TYPED_TEST(CumulativeTest, LargeTensorsMatchScanReference) {
    using B = TypeParam;
    using F = typename B::FloatElem;
    // [16, 9, 1100]: dims 1 and 0 split into column strips over threads; dim 2 rows over threads.
    // GPU backends scan a lane per workgroup, chunk by chunk: lanes of 1100 take several chunks,
    // and [2, 3, 1100] keeps the run on lavapipe (the CPU Vulkan driver of CI) short.
    const Shape s = burn::testing::cpu_backend<B> ? Shape{16, 9, 1100} : Shape{2, 3, 1100};
    const std::size_t total = s.num_elements();
    std::vector<F> xs(total), xp(total);
    std::vector<std::int64_t> xi(total);
    std::uint64_t state = 12345;
    for (std::size_t k = 0; k < total; ++k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto r = static_cast<std::int64_t>(state >> 40);  // 24 random bits
        xs[k] = static_cast<F>(static_cast<double>(r % 1024 - 512) / 256.0);
        xp[k] = static_cast<F>(static_cast<double>(r % 129 + 192) / 256.0);  // [0.75, 1.25]
        xi[k] = r % 2001 - 1000;
    }
    auto x = Tensor<B, 3>::from_data(TensorData(xs, s));
    auto p = Tensor<B, 3>::from_data(TensorData(xp, s));
    auto xint = Tensor<B, 3, Int>::from_data(TensorData(xi, s));
    for (std::size_t d = 0; d < 3; ++d) {
        std::size_t outer = 1, inner = 1;
        for (std::size_t k = 0; k < d; ++k) outer *= s[k];
        for (std::size_t k = d + 1; k < 3; ++k) inner *= s[k];
        const auto dim = static_cast<std::int64_t>(d);
        for (std::string op : {"cumsum", "cumprod", "cummax", "cummin"}) {
            SCOPED_TRACE(op + ", dim " + std::to_string(d));
            const auto& in = op == "cumprod" ? xp : xs;
            const TensorData want(reference(op, in, outer, s[d], inner), s);
            EXPECT_TRUE(close_to(apply(op, op == "cumprod" ? p : x, dim), want));
            // Products of up to 1100 ints overflow: wrap-around is checked by IntWrapsOnOverflow.
            if (op != "cumprod") {
                const TensorData want_int(reference(op, xi, outer, s[d], inner), s);
                EXPECT_TRUE(equal_to(apply(op, xint, dim), want_int));
            }
        }
    }
}

TYPED_TEST(CumulativeTest, FloatSumAccumulatesInDouble) {
    // PyTorch's CPU cumsum keeps an f64 running sum for f32 tensors: adding 0.1f 2^18 times in
    // f32 would drift far from it.
    using B = TypeParam;
    using F = typename B::FloatElem;
    BURN_REQUIRE_FULL_PRECISION(B, "an f64 running sum is not what a half-precision cumsum gives");
    if constexpr (!burn::testing::half_backend<B>) {
        const std::size_t n = std::size_t{1} << 18;
        const F tenth = static_cast<F>(0.1);
        std::vector<F> want(n);
        double acc = 0.0;
        F acc_elem = 0;
        for (std::size_t i = 0; i < n; ++i) {
            acc += static_cast<double>(tenth);
            acc_elem += tenth;
            want[i] = static_cast<F>(acc);
        }
        if constexpr (std::is_same_v<F, float>)
            ASSERT_NE(acc_elem, want[n - 1]) << "the test would not tell the accumulators apart";
        const auto y = Tensor<B, 2>::full({2, n}, 0.1).cumsum(1);
        const TensorData got = y.to_data();
        const auto g = got.template as_span<F>();
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < n; ++i) mismatches += g[i] != want[i] || g[n + i] != want[i];
        EXPECT_EQ(mismatches, 0u);
    }
}

}  // namespace

}  // namespace burn_test_cumulative

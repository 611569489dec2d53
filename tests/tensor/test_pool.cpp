// SPDX-License-Identifier: MIT OR Apache-2.0
// Pooling through burn::module:: — avg_pool1d/2d (count_include_pad, ceil_mode), max_pool1d/2d
// and their _with_indices forms (padding, dilation, ceil_mode, ties, NaN, -inf),
// adaptive_avg_pool1d/2d/3d — and the backward ops of the backend against torch autograd for a
// random upstream gradient. Inputs also come as strided views (transposed, batch/channel
// swapped). Larger inputs (the parallel and fast paths) are checked against a naive reference;
// bad arguments throw burn::Error naming the op. Expected values: tests/fixtures/pool.json
// (tests/fixtures/gen_pool.py).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_pool {

namespace {

using burn::AvgPoolOptions;
using burn::Float;
using burn::Int;
using burn::MaxPoolOptions;
using burn::Shape;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;
using burn::testing::equal_to;
using burn::testing::fixture;
using burn::testing::fixture_input;
using burn::testing::fixture_output;
namespace module = burn::module;

constexpr const char* kFile = "pool";

std::vector<std::string> cases_of(const std::string& group) {
    return burn::testing::fixture_case_list(kFile, group);
}

const nlohmann::json& params(const std::string& c) { return fixture(kFile, c).at("params"); }

template <std::size_t N>
std::array<std::size_t, N> arr(const nlohmann::json& j) {
    return burn::testing::fixture_sizes<N>(j);
}

TensorData expected(const std::string& c, const std::string& name) {
    return fixture_output(kFile, c, name);
}

/// The input x of case c as stored, and as strided views of the stored layout variants.
template <class B, std::size_t D>
std::vector<std::pair<std::string, Tensor<B, D>>> layouts(const std::string& c) {
    std::vector<std::pair<std::string, Tensor<B, D>>> v;
    v.emplace_back("contiguous", fixture_input<B, D>(kFile, c, "x"));
    const auto& ins = fixture(kFile, c).at("inputs");
    if (ins.contains("x@T")) {
        v.emplace_back("transposed", fixture_input<B, D>(kFile, c, "x@T").transpose());
        v.emplace_back("batch/channel swapped",
                       fixture_input<B, D>(kFile, c, "x@perm").swap_dims(0, 1));
    }
    return v;
}

template <class B>
class PoolTest : public ::testing::Test {};
TYPED_TEST_SUITE(PoolTest, burn::testing::Backends, burn::testing::BackendNames);

// ------------------------------------------------------------------------------ average pooling

TYPED_TEST(PoolTest, AvgPool1dMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("avg_pool1d")) {
        const auto& p = params(c);
        const AvgPoolOptions<1> o{arr<1>(p["kernel"]), arr<1>(p["stride"]), arr<1>(p["padding"]),
                                  p["count_include_pad"].get<bool>(), p["ceil_mode"].get<bool>()};
        auto g = fixture_input<B, 3>(kFile, c, "g");
        for (auto& [l, x] : layouts<B, 3>(c)) {
            SCOPED_TRACE(c + ", " + l);
            auto y = module::avg_pool1d(x, o.kernel_size[0], o.stride[0], o.padding[0],
                                        o.count_include_pad, o.ceil_mode);
            EXPECT_TRUE(close_to(y, expected(c, "y")));
            Tensor<B, 3> gx(B::avg_pool1d_backward(x.primitive(), g.primitive(), o));
            EXPECT_TRUE(close_to(gx, expected(c, "gx")));
        }
    }
}

TYPED_TEST(PoolTest, AvgPool2dMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("avg_pool2d")) {
        const auto& p = params(c);
        const AvgPoolOptions<2> o{arr<2>(p["kernel"]), arr<2>(p["stride"]), arr<2>(p["padding"]),
                                  p["count_include_pad"].get<bool>(), p["ceil_mode"].get<bool>()};
        auto g = fixture_input<B, 4>(kFile, c, "g");
        for (auto& [l, x] : layouts<B, 4>(c)) {
            SCOPED_TRACE(c + ", " + l);
            auto y = module::avg_pool2d(x, o.kernel_size, o.stride, o.padding, o.count_include_pad,
                                        o.ceil_mode);
            EXPECT_TRUE(close_to(y, expected(c, "y")));
            Tensor<B, 4> gx(B::avg_pool2d_backward(x.primitive(), g.primitive(), o));
            EXPECT_TRUE(close_to(gx, expected(c, "gx")));
        }
    }
}

TYPED_TEST(PoolTest, AvgPoolDefaultsCountPaddingAndFloorMode) {
    using B = TypeParam;
    // [1, 1, 1, 3] = 1 2 3, window 2 stride 2 padding 1: windows (pad, 1) (2, 3), divisor 2.
    auto x = Tensor<B, 4>::from_floats({{{{1.0, 2.0, 3.0}}}});
    auto y = module::avg_pool2d(x, {1, 2}, {1, 2}, {0, 1});
    EXPECT_TRUE(close_to(y, TensorData(std::vector<double>{0.5, 2.5}, Shape{1, 1, 1, 2})));
    auto y_exclude = module::avg_pool2d(x, {1, 2}, {1, 2}, {0, 1}, false);
    EXPECT_TRUE(close_to(y_exclude, TensorData(std::vector<double>{1.0, 2.5}, Shape{1, 1, 1, 2})));
}

// ------------------------------------------------------------------------------ max pooling

TYPED_TEST(PoolTest, MaxPool1dMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("max_pool1d")) {
        SCOPED_TRACE(c);
        const auto& p = params(c);
        const MaxPoolOptions<1> o{arr<1>(p["kernel"]), arr<1>(p["stride"]), arr<1>(p["padding"]),
                                  arr<1>(p["dilation"]), p["ceil_mode"].get<bool>()};
        auto x = fixture_input<B, 3>(kFile, c, "x");
        auto g = fixture_input<B, 3>(kFile, c, "g");
        auto y = module::max_pool1d(x, o.kernel_size[0], o.stride[0], o.padding[0], o.dilation[0],
                                    o.ceil_mode);
        EXPECT_TRUE(close_to(y, expected(c, "y")));
        auto [yi, idx] = module::max_pool1d_with_indices(x, o.kernel_size[0], o.stride[0],
                                                         o.padding[0], o.dilation[0], o.ceil_mode);
        EXPECT_TRUE(close_to(yi, expected(c, "y")));
        EXPECT_TRUE(equal_to(idx, expected(c, "idx")));
        EXPECT_EQ(idx.dtype(), B::int_dtype);  // the backend's Int dtype (Cpu<F>: i64)
        Tensor<B, 3> gx(
            B::max_pool1d_with_indices_backward(x.primitive(), o, g.primitive(), idx.primitive()));
        EXPECT_TRUE(close_to(gx, expected(c, "gx")));
    }
}

TYPED_TEST(PoolTest, MaxPool2dMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("max_pool2d")) {
        const auto& p = params(c);
        const MaxPoolOptions<2> o{arr<2>(p["kernel"]), arr<2>(p["stride"]), arr<2>(p["padding"]),
                                  arr<2>(p["dilation"]), p["ceil_mode"].get<bool>()};
        auto g = fixture_input<B, 4>(kFile, c, "g");
        for (auto& [l, x] : layouts<B, 4>(c)) {
            SCOPED_TRACE(c + ", " + l);
            auto y =
                module::max_pool2d(x, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
            EXPECT_TRUE(close_to(y, expected(c, "y")));
            auto [yi, idx] = module::max_pool2d_with_indices(x, o.kernel_size, o.stride, o.padding,
                                                             o.dilation, o.ceil_mode);
            EXPECT_TRUE(close_to(yi, expected(c, "y")));
            EXPECT_TRUE(equal_to(idx, expected(c, "idx")));
            Tensor<B, 4> gx(B::max_pool2d_with_indices_backward(x.primitive(), o, g.primitive(),
                                                                idx.primitive()));
            EXPECT_TRUE(close_to(gx, expected(c, "gx")));
        }
    }
}

TYPED_TEST(PoolTest, MaxPool2dNanWinsAndInfinitiesKeepTheFirstCell) {
    using B = TypeParam;
    for (const auto& c : cases_of("max_pool2d_special")) {
        SCOPED_TRACE(c);
        const auto& p = params(c);
        const auto k = arr<2>(p["kernel"]), s = arr<2>(p["stride"]), pad = arr<2>(p["padding"]);
        auto x = fixture_input<B, 4>(kFile, c, "x");
        EXPECT_TRUE(close_to(module::max_pool2d(x, k, s, pad), expected(c, "y")));
        auto [y, idx] = module::max_pool2d_with_indices(x, k, s, pad);
        EXPECT_TRUE(close_to(y, expected(c, "y")));
        EXPECT_TRUE(equal_to(idx, expected(c, "idx")));
    }
}

// The int element type of the backend decides the dtype of the indices; the backward reads both.
TEST(PoolIndexDtype, MaxPoolIndicesFollowTheBackendIntType) {
    using B32 = burn::Cpu<float, std::int32_t>;
    using B64 = burn::Cpu<float, std::int64_t>;
    const std::string c = "max2d_k3s2p1";
    const auto& p = params(c);
    const MaxPoolOptions<2> o{arr<2>(p["kernel"]), arr<2>(p["stride"]), arr<2>(p["padding"]),
                              arr<2>(p["dilation"]), false};
    auto x = fixture_input<B32, 4>(kFile, c, "x");
    auto g = fixture_input<B32, 4>(kFile, c, "g");
    auto [y, idx] = module::max_pool2d_with_indices(x, o.kernel_size, o.stride, o.padding);
    EXPECT_EQ(idx.dtype(), burn::DType::I32);
    EXPECT_TRUE(close_to(y, expected(c, "y")));
    EXPECT_TRUE(equal_to(idx, expected(c, "idx")));
    Tensor<B32, 4> gx(
        B32::max_pool2d_with_indices_backward(x.primitive(), o, g.primitive(), idx.primitive()));
    EXPECT_TRUE(close_to(gx, expected(c, "gx")));

    auto x64 = fixture_input<B64, 4>(kFile, c, "x");
    auto [y64, idx64] = module::max_pool2d_with_indices(x64, o.kernel_size, o.stride, o.padding);
    EXPECT_EQ(idx64.dtype(), burn::DType::I64);
    EXPECT_TRUE(equal_to(idx64, expected(c, "idx")));
}

// ------------------------------------------------------------------------------ adaptive pooling

TYPED_TEST(PoolTest, AdaptiveAvgPool1dMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("adaptive1d")) {
        SCOPED_TRACE(c);
        const auto out = arr<1>(params(c)["output_size"]);
        auto x = fixture_input<B, 3>(kFile, c, "x");
        auto g = fixture_input<B, 3>(kFile, c, "g");
        EXPECT_TRUE(close_to(module::adaptive_avg_pool1d(x, out[0]), expected(c, "y")));
        EXPECT_TRUE(close_to(module::adaptive_avg_pool1d(x.swap_dims(0, 1).swap_dims(0, 1), out[0]),
                             expected(c, "y")));
        Tensor<B, 3> gx(B::adaptive_avg_pool1d_backward(x.primitive(), g.primitive()));
        EXPECT_TRUE(close_to(gx, expected(c, "gx")));
    }
}

TYPED_TEST(PoolTest, AdaptiveAvgPool2dMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("adaptive2d")) {
        SCOPED_TRACE(c);
        const auto out = arr<2>(params(c)["output_size"]);
        auto x = fixture_input<B, 4>(kFile, c, "x");
        auto g = fixture_input<B, 4>(kFile, c, "g");
        EXPECT_TRUE(close_to(module::adaptive_avg_pool2d(x, out), expected(c, "y")));
        // A strided view with the same values: transposed twice through a permuted copy.
        auto xv = x.swap_dims(2, 3).swap_dims(0, 1).swap_dims(0, 1).swap_dims(2, 3);
        EXPECT_TRUE(close_to(module::adaptive_avg_pool2d(xv, out), expected(c, "y")));
        Tensor<B, 4> gx(B::adaptive_avg_pool2d_backward(x.primitive(), g.primitive()));
        EXPECT_TRUE(close_to(gx, expected(c, "gx")));
    }
}

TYPED_TEST(PoolTest, AdaptiveAvgPool3dMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("adaptive3d")) {
        SCOPED_TRACE(c);
        const auto out = arr<3>(params(c)["output_size"]);
        auto x = fixture_input<B, 5>(kFile, c, "x");
        auto g = fixture_input<B, 5>(kFile, c, "g");
        EXPECT_TRUE(close_to(module::adaptive_avg_pool3d(x, out), expected(c, "y")));
        Tensor<B, 5> gx(B::adaptive_avg_pool3d_backward(x.primitive(), g.primitive()));
        EXPECT_TRUE(close_to(gx, expected(c, "gx")));
    }
}

// ------------------------------------------------------------------------------ large inputs

/// Deterministic values, multiples of 2^-8 in [-4, 4), all distinct within 2048 consecutive ones.
std::vector<double> pattern(std::size_t n, std::uint32_t salt) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = static_cast<double>((i * 1237u + salt * 7919u) % 2048u) / 256.0 - 4.0;
    return v;
}

struct Naive2d {
    std::size_t planes, H, W, k, s, p;
    std::size_t out(std::size_t in) const { return (in + 2 * p - k) / s + 1; }
    std::vector<double> max(const std::vector<double>& x) const {
        const std::size_t OH = out(H), OW = out(W);
        std::vector<double> y(planes * OH * OW);
        for (std::size_t q = 0; q < planes; ++q)
            for (std::size_t oh = 0; oh < OH; ++oh)
                for (std::size_t ow = 0; ow < OW; ++ow) {
                    double m = -std::numeric_limits<double>::infinity();
                    for (std::size_t i = 0; i < k; ++i)
                        for (std::size_t j = 0; j < k; ++j) {
                            const auto h = static_cast<std::int64_t>(oh * s + i) -
                                           static_cast<std::int64_t>(p);
                            const auto w = static_cast<std::int64_t>(ow * s + j) -
                                           static_cast<std::int64_t>(p);
                            if (h < 0 || w < 0 || h >= static_cast<std::int64_t>(H) ||
                                w >= static_cast<std::int64_t>(W))
                                continue;
                            m = std::max(m, x[(q * H + static_cast<std::size_t>(h)) * W +
                                              static_cast<std::size_t>(w)]);
                        }
                    y[(q * OH + oh) * OW + ow] = m;
                }
        return y;
    }
    std::vector<double> avg(const std::vector<double>& x) const {  // count_include_pad
        const std::size_t OH = out(H), OW = out(W);
        std::vector<double> y(planes * OH * OW);
        for (std::size_t q = 0; q < planes; ++q)
            for (std::size_t oh = 0; oh < OH; ++oh)
                for (std::size_t ow = 0; ow < OW; ++ow) {
                    double sum = 0;
                    for (std::size_t i = 0; i < k; ++i)
                        for (std::size_t j = 0; j < k; ++j) {
                            const auto h = static_cast<std::int64_t>(oh * s + i) -
                                           static_cast<std::int64_t>(p);
                            const auto w = static_cast<std::int64_t>(ow * s + j) -
                                           static_cast<std::int64_t>(p);
                            if (h < 0 || w < 0 || h >= static_cast<std::int64_t>(H) ||
                                w >= static_cast<std::int64_t>(W))
                                continue;
                            sum += x[(q * H + static_cast<std::size_t>(h)) * W +
                                     static_cast<std::size_t>(w)];
                        }
                    y[(q * OH + oh) * OW + ow] = sum / static_cast<double>(k * k);
                }
        return y;
    }
};

TYPED_TEST(PoolTest, LargeInputsMatchNaiveReference) {
    using B = TypeParam;
    const std::size_t b = 2, c = 24, H = 66, W = 70;
    const auto values = pattern(b * c * H * W, 3);
    auto x = Tensor<B, 4>::from_data(TensorData(values, Shape{b, c, H, W}));
    const std::array<std::array<std::size_t, 3>, 3> configs{{{2, 2, 0}, {3, 2, 1}, {3, 1, 1}}};
    for (const auto& [k, s, p] : configs) {
        SCOPED_TRACE("kernel " + std::to_string(k) + " stride " + std::to_string(s));
        const Naive2d ref{b * c, H, W, k, s, p};
        const Shape out{b, c, ref.out(H), ref.out(W)};
        auto y = module::max_pool2d(x, {k, k}, {s, s}, {p, p});
        EXPECT_TRUE(close_to(y, TensorData(ref.max(values), out)));
        auto [yi, idx] = module::max_pool2d_with_indices(x, {k, k}, {s, s}, {p, p});
        EXPECT_TRUE(close_to(yi, TensorData(ref.max(values), out)));
        // The indices point at the maxima: gathering x at them gives the output.
        auto gathered = x.reshape({0, 0, -1}).gather(2, idx.reshape({0, 0, -1}));
        EXPECT_TRUE(close_to(gathered.template reshape<4>(out), TensorData(ref.max(values), out)));
        auto a = module::avg_pool2d(x, {k, k}, {s, s}, {p, p});
        EXPECT_TRUE(close_to(a, TensorData(ref.avg(values), out)));
    }
    // adaptive 66x70 -> 33x35 is exactly avg_pool 2x2 stride 2; -> 1x1 is the plane mean.
    EXPECT_TRUE(close_to(module::adaptive_avg_pool2d(x, {33, 35}),
                         module::avg_pool2d(x, {2, 2}, {2, 2}, {0, 0}).to_data()));
    EXPECT_TRUE(
        close_to(module::adaptive_avg_pool2d(x, {1, 1}), x.mean_dim(3).mean_dim(2).to_data()));
}

TYPED_TEST(PoolTest, LargeBackwardsAreAdjoint) {
    BURN_REQUIRE_FULL_PRECISION(TypeParam,
                                "the adjoint identity over large sums, at f32 tolerance");
    // <pool(x), g> == <x, pool_backward(g)> for the linear avg pools; for max pooling the
    // gradient sums to the upstream gradient.
    using B = TypeParam;
    const std::size_t b = 2, c = 20, H = 41, W = 57;
    auto x = Tensor<B, 4>::from_data(TensorData(pattern(b * c * H * W, 5), Shape{b, c, H, W}));
    const AvgPoolOptions<2> ao{{3, 3}, {2, 2}, {1, 1}, false, true};
    auto y = module::avg_pool2d(x, ao.kernel_size, ao.stride, ao.padding, false, true);
    auto g = Tensor<B, 4>::from_data(TensorData(pattern(y.shape().num_elements(), 9), y.shape()));
    Tensor<B, 4> gx(B::avg_pool2d_backward(x.primitive(), g.primitive(), ao));
    const double lhs = (y * g).sum().into_scalar(), rhs = (x * gx).sum().into_scalar();
    EXPECT_NEAR(lhs, rhs, 1e-6 * std::abs(lhs) + 1e-3);

    auto ya = module::adaptive_avg_pool2d(x, {13, 17});
    auto ga =
        Tensor<B, 4>::from_data(TensorData(pattern(ya.shape().num_elements(), 11), ya.shape()));
    Tensor<B, 4> gxa(B::adaptive_avg_pool2d_backward(x.primitive(), ga.primitive()));
    const double lhs_a = (ya * ga).sum().into_scalar(), rhs_a = (x * gxa).sum().into_scalar();
    EXPECT_NEAR(lhs_a, rhs_a, 1e-6 * std::abs(lhs_a) + 1e-3);

    const MaxPoolOptions<2> mo{{3, 3}, {1, 1}, {1, 1}, {1, 1}, false};
    auto [ym, idx] = module::max_pool2d_with_indices(x, mo.kernel_size, mo.stride, mo.padding);
    auto gm =
        Tensor<B, 4>::from_data(TensorData(pattern(ym.shape().num_elements(), 13), ym.shape()));
    Tensor<B, 4> gxm(
        B::max_pool2d_with_indices_backward(x.primitive(), mo, gm.primitive(), idx.primitive()));
    const double total = gm.sum().into_scalar(), total_x = gxm.sum().into_scalar();
    EXPECT_NEAR(total, total_x, 1e-6 * std::abs(total) + 1e-3);
}

// ------------------------------------------------------------------------------ invalid input

TYPED_TEST(PoolTest, InvalidArgumentsThrow) {
    using B = TypeParam;
    auto x3 = Tensor<B, 3>::zeros(Shape{1, 2, 4});
    auto x4 = Tensor<B, 4>::zeros(Shape{1, 2, 4, 4});
    auto x5 = Tensor<B, 5>::zeros(Shape{1, 1, 2, 2, 2});
    // kernel larger than the padded input
    EXPECT_BURN_ERROR(module::avg_pool1d(x3, 7, 1, 1), "avg_pool1d");
    EXPECT_BURN_ERROR(module::avg_pool2d(x4, {3, 7}, {1, 1}, {0, 1}), "avg_pool2d");
    EXPECT_BURN_ERROR(module::max_pool1d(x3, 5, 1, 0), "max_pool1d");
    EXPECT_BURN_ERROR(module::max_pool2d(x4, {5, 5}, {1, 1}, {0, 0}), "max_pool2d");
    EXPECT_BURN_ERROR(module::max_pool2d(x4, {3, 3}, {1, 1}, {1, 1}, {3, 3}), "max_pool2d");
    // padding more than half the kernel
    EXPECT_BURN_ERROR(module::avg_pool1d(x3, 2, 1, 2), "avg_pool1d");
    EXPECT_BURN_ERROR(module::avg_pool2d(x4, {3, 3}, {1, 1}, {2, 0}), "avg_pool2d");
    EXPECT_BURN_ERROR(module::max_pool1d_with_indices(x3, 2, 2, 2), "max_pool1d_with_indices");
    EXPECT_BURN_ERROR(module::max_pool2d_with_indices(x4, {2, 2}, {2, 2}, {0, 2}),
                      "max_pool2d_with_indices");
    // zero stride or kernel
    EXPECT_BURN_ERROR(module::max_pool2d(x4, {2, 2}, {0, 1}, {0, 0}), "max_pool2d");
    EXPECT_BURN_ERROR(module::avg_pool1d(x3, 0, 1, 0), "avg_pool1d");
    // adaptive output sizes must be positive
    EXPECT_BURN_ERROR(module::adaptive_avg_pool1d(x3, 0), "adaptive_avg_pool1d");
    EXPECT_BURN_ERROR(module::adaptive_avg_pool2d(x4, {2, 0}), "adaptive_avg_pool2d");
    EXPECT_BURN_ERROR(module::adaptive_avg_pool3d(x5, {0, 1, 1}), "adaptive_avg_pool3d");
    // a backward index outside its plane
    const MaxPoolOptions<2> o{{2, 2}, {2, 2}, {0, 0}, {1, 1}, false};
    auto g = Tensor<B, 4>::ones(Shape{1, 2, 2, 2});
    auto bad = Tensor<B, 4, Int>::full(Shape{1, 2, 2, 2}, 16);
    EXPECT_BURN_ERROR((Tensor<B, 4>(B::max_pool2d_with_indices_backward(
                                        x4.primitive(), o, g.primitive(), bad.primitive()))
                           .to_data()),
                      "max_pool_backward");
}

TYPED_TEST(PoolTest, EmptyBatchGivesEmptyOutput) {
    using B = TypeParam;
    auto x = Tensor<B, 4>::zeros(Shape{0, 3, 6, 6});
    EXPECT_EQ(module::max_pool2d(x, {2, 2}, {2, 2}, {0, 0}).shape(), Shape({0, 3, 3, 3}));
    EXPECT_EQ(module::avg_pool2d(x, {3, 3}, {1, 1}, {1, 1}).shape(), Shape({0, 3, 6, 6}));
    EXPECT_EQ(module::adaptive_avg_pool2d(x, {2, 5}).shape(), Shape({0, 3, 2, 5}));
}

}  // namespace

}  // namespace burn_test_pool

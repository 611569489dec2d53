// SPDX-License-Identifier: MIT OR Apache-2.0
// Host code the kit's backends share, with no backend: output shapes and convolution geometry
// (burn/backend/shapes.hpp), interpolation taps (burn/backend/interpolate.hpp), the Philox stream
// position (burn/backend/random.hpp) and the name and value tables of the op vocabulary.
#include <gtest/gtest.h>

#include <burn/backend/interpolate.hpp>
#include <burn/backend/ops.hpp>
#include <burn/backend/random.hpp>
#include <burn/backend/shapes.hpp>
#include <burn/tensor/distribution.hpp>
#include <burn/tensor/error.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace burn::backend {
namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

/// Expects `f` to throw burn::Error with `needle` in its message.
template <class F>
void expect_error(F&& f, std::string_view needle) {
    EXPECT_THROW(
        {
            try {
                f();
            } catch (const Error& e) {
                const std::string_view message = e.what();
                EXPECT_NE(message.find(needle), std::string_view::npos) << message;
                throw;
            }
        },
        Error);
}

SpatialArgs args(std::size_t n, std::array<std::size_t, 3> stride,
                 std::array<std::size_t, 3> padding, std::array<std::size_t, 3> dilation,
                 std::size_t groups = 1) {
    SpatialArgs a;
    a.n = n, a.stride = stride, a.padding = padding, a.dilation = dilation, a.groups = groups;
    return a;
}

TEST(BackendShapes, BroadcastsTo) {
    EXPECT_TRUE(broadcasts_to(Shape{3, 1}, Shape{2, 3, 4}));
    EXPECT_TRUE(broadcasts_to(Shape{4}, Shape{2, 3, 4}));
    EXPECT_TRUE(broadcasts_to(Shape{2, 3, 4}, Shape{2, 3, 4}));
    EXPECT_FALSE(broadcasts_to(Shape{2, 4}, Shape{2, 3, 4}));  // 2 vs 3
    EXPECT_FALSE(broadcasts_to(Shape{1, 3, 4}, Shape{3, 4}));  // more dims than the target
    EXPECT_FALSE(broadcasts_to(Shape{3, 5}, Shape{3, 1}));     // would grow the target
}

TEST(BackendShapes, CatAndRepeat) {
    const std::vector<Shape> shapes{Shape{2, 3, 4}, Shape{2, 5, 4}, Shape{2, 0, 4}};
    EXPECT_EQ(cat_shape(std::span<const Shape>(shapes), 1), Shape({2, 8, 4}));
    struct Layout {
        Shape shape;
    };
    const std::vector<Layout> layouts{{Shape{1, 6}}, {Shape{3, 6}}};
    EXPECT_EQ(cat_shape(layouts, 0), Shape({4, 6}));
    EXPECT_EQ(repeat_dim_shape(Shape{2, 3}, 1, 4), Shape({2, 12}));
    EXPECT_EQ(repeat_dim_shape(Shape{2, 0}, 0, 5), Shape({10, 0}));
    // Sizes that overflow are the kernels' own errors.
    const std::vector<Shape> huge{Shape{kMax - 1, 1}, Shape{2, 1}};
    expect_error([&] { (void)cat_shape(std::span<const Shape>(huge), 0); },
                 "cat: the output is too large");
    expect_error(
        [&] {
            (void)repeat_dim_shape(Shape{kMax / 2 + 1, 1}, 0, 2);
        },
        "repeat_dim: the output is too large");
}

TEST(BackendShapes, ArangeLength) {
    EXPECT_EQ(arange_length(0, 10, 3), 4u);
    EXPECT_EQ(arange_length(10, 0, -3), 4u);
    EXPECT_EQ(arange_length(3, 3, 1), 0u);
    EXPECT_EQ(arange_length(5, 0, 1), 0u);  // the wrong direction: empty
    constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ(arange_length(lo, hi, hi), 3u);  // the distance does not fit an int64
    EXPECT_EQ(arange_length(hi, lo, lo), 2u);
}

TEST(BackendShapes, Matmul) {
    EXPECT_EQ(matmul_shape(Shape{3, 4}, Shape{4, 5}), Shape({3, 5}));
    EXPECT_EQ(matmul_shape(Shape{2, 1, 3, 4}, Shape{1, 6, 4, 5}), Shape({2, 6, 3, 5}));
    EXPECT_EQ(matmul_shape(Shape{0, 3, 0}, Shape{1, 0, 7}), Shape({0, 3, 7}));
}

TEST(BackendShapes, ConvolutionsAndPooling) {
    SpatialArgs a = args(2, {2, 1, 1}, {1, 0, 0}, {1, 2, 1});
    // x [2, 4, 9, 8], w [6, 4, 3, 3]: (9 + 2 - 3) / 2 + 1 = 5, (8 - 5) / 1 + 1 = 4.
    EXPECT_EQ(conv_shape(Shape{2, 4, 9, 8}, Shape{6, 4, 3, 3}, a), Shape({2, 6, 5, 4}));
    // Transposed, w [c_in = 4, c_out / groups = 3, 3, 3] with groups 2 and padding_out 1:
    // (5 - 1) * 2 - 2 + 2 + 1 + 1 = 10, (4 - 1) * 1 + 4 + 1 = 8.
    a.groups = 2;
    a.padding_out = {1, 0, 0};
    EXPECT_EQ(conv_transpose_shape(Shape{2, 4, 5, 4}, Shape{4, 3, 3, 3}, a), Shape({2, 6, 10, 8}));
    SpatialArgs p = args(1, {2, 1, 1}, {0, 0, 0}, {1, 1, 1});
    p.kernel = {3, 1, 1};
    EXPECT_EQ(pool_shape(Shape{2, 3, 8}, p), Shape({2, 3, 3}));
    p.ceil_mode = true;
    EXPECT_EQ(pool_shape(Shape{2, 3, 8}, p), Shape({2, 3, 4}));
}

TEST(BackendShapes, ConvGeometryRightAlignsSpatialDims) {
    SpatialArgs a = args(1, {3, 1, 1}, {2, 0, 0}, {2, 1, 1}, 2);
    const ConvGeometry g = conv_geometry(Shape{5, 4, 17}, Shape{6, 2, 3}, Shape{5, 6, 6}, a);
    EXPECT_EQ(g.batch, 5u);
    EXPECT_EQ(g.cin, 4u);
    EXPECT_EQ(g.cout, 6u);
    EXPECT_EQ(g.groups, 2u);
    EXPECT_EQ(g.in, (std::array<std::int64_t, 3>{1, 1, 17}));
    EXPECT_EQ(g.out, (std::array<std::int64_t, 3>{1, 1, 6}));
    EXPECT_EQ(g.k, (std::array<std::int64_t, 3>{1, 1, 3}));
    EXPECT_EQ(g.s, (std::array<std::int64_t, 3>{1, 1, 3}));
    EXPECT_EQ(g.p, (std::array<std::int64_t, 3>{0, 0, 2}));
    EXPECT_EQ(g.d, (std::array<std::int64_t, 3>{1, 1, 2}));
    // A transposed convolution is the input-gradient of a convolution: its geometry maps the
    // output onto the input, so cin is the output's channels and cout the weight's first dim.
    a.n = 2;
    a.groups = 1;
    const ConvGeometry t =
        conv_geometry(Shape{1, 3, 7, 8}, Shape{4, 3, 2, 2}, Shape{1, 4, 6, 7}, a);
    EXPECT_EQ(t.cin, 3u);
    EXPECT_EQ(t.cout, 4u);
    EXPECT_EQ(t.in, (std::array<std::int64_t, 3>{1, 7, 8}));
    EXPECT_EQ(t.out, (std::array<std::int64_t, 3>{1, 6, 7}));
}

TEST(BackendInterpolate, NearestTaps) {
    const auto up = interpolation_taps<float>(3, 6, {InterpolateMode::Nearest});
    EXPECT_EQ(up.taps, 1u);
    EXPECT_EQ(up.idx, (std::vector<std::int64_t>{0, 0, 1, 1, 2, 2}));
    EXPECT_EQ(up.w, (std::vector<float>(6, 1.0f)));
    const auto down = interpolation_taps<double>(7, 3, {InterpolateMode::Nearest});
    EXPECT_EQ(down.idx, (std::vector<std::int64_t>{0, 2, 4}));  // floor(o * 7 / 3)
}

TEST(BackendInterpolate, BilinearTaps) {
    // Half-pixel centres: src = (o + 0.5) * 2 / 4 - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, 1.25.
    const auto t = interpolation_taps<double>(2, 4, {InterpolateMode::Bilinear, false});
    EXPECT_EQ(t.taps, 2u);
    EXPECT_EQ(t.idx, (std::vector<std::int64_t>{0, 1, 0, 1, 0, 1, 1, 1}));
    const std::vector<double> w{1.0, 0.0, 0.75, 0.25, 0.25, 0.75, 0.75, 0.25};
    ASSERT_EQ(t.w.size(), w.size());
    for (std::size_t i = 0; i < w.size(); ++i) EXPECT_DOUBLE_EQ(t.w[i], w[i]) << i;
    // align_corners: src = o * (3 - 1) / (5 - 1) = 0, 0.5, 1, 1.5, 2.
    const auto c = interpolation_taps<float>(3, 5, {InterpolateMode::Bilinear, true});
    EXPECT_EQ(c.idx, (std::vector<std::int64_t>{0, 1, 0, 1, 1, 2, 1, 2, 2, 2}));
    EXPECT_FLOAT_EQ(c.w[3], 0.5f);
    EXPECT_FLOAT_EQ(c.w[8], 1.0f);
}

TEST(BackendInterpolate, BicubicTapsClampAndSumToOne) {
    const auto t = interpolation_taps<double>(4, 7, {InterpolateMode::Bicubic, false});
    EXPECT_EQ(t.taps, 4u);
    for (std::size_t o = 0; o < 7; ++o) {
        double sum = 0;
        for (std::size_t j = 0; j < 4; ++j) {
            const std::int64_t i = t.idx[4 * o + j];
            EXPECT_GE(i, 0);
            EXPECT_LT(i, 4);
            sum += t.w[4 * o + j];
        }
        EXPECT_NEAR(sum, 1.0, 1e-12) << o;  // Keys' kernel is a partition of unity
    }
    // Output 0: src = (0.5) * 4 / 7 - 0.5 < 0, floor -1: indices -2..1 clamped to 0, 0, 0, 1.
    EXPECT_EQ(std::vector<std::int64_t>(t.idx.begin(), t.idx.begin() + 4),
              (std::vector<std::int64_t>{0, 0, 0, 1}));
}

TEST(BackendRandom, PhiloxStateSeedsAndReserves) {
    PhiloxState s;
    s.seed(0x0123456789abcdefULL);
    const auto a = s.reserve(3);
    EXPECT_EQ(a.k0, 0x89abcdefu);
    EXPECT_EQ(a.k1, 0x01234567u);
    EXPECT_EQ(a.first_block, 0u);
    EXPECT_EQ(s.reserve(5).first_block, 3u);
    EXPECT_EQ(s.reserve(1).first_block, 8u);
    s.seed(7);  // restarts the stream
    const auto b = s.reserve(2);
    EXPECT_EQ(b.k0, 7u);
    EXPECT_EQ(b.k1, 0u);
    EXPECT_EQ(b.first_block, 0u);
    // Separate states (one per backend) do not share a position.
    PhiloxState other;
    other.seed(7);
    EXPECT_EQ(other.reserve(1).first_block, 0u);
    EXPECT_EQ(s.reserve(1).first_block, 2u);
    // Unseeded: seeds itself once, then counts on.
    PhiloxState fresh;
    const auto f = fresh.reserve(4);
    EXPECT_EQ(f.first_block, 0u);
    const auto g = fresh.reserve(1);
    EXPECT_EQ(g.first_block, 4u);
    EXPECT_EQ(g.k0, f.k0);
    EXPECT_EQ(g.k1, f.k1);
}

TEST(BackendRandom, IntUniformBounds) {
    EXPECT_EQ(trunc_to_int64(2.9), 2);
    EXPECT_EQ(trunc_to_int64(-2.9), -2);
    EXPECT_EQ(trunc_to_int64(std::nan("")), 0);
    EXPECT_EQ(trunc_to_int64(1e30), std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(trunc_to_int64(-1e30), std::numeric_limits<std::int64_t>::min());
}

TEST(BackendOps, ReductionNamesAndEmptyValues) {
    EXPECT_EQ(std::string_view(op_name(ReduceOp::Mean)), "mean");
    EXPECT_EQ(std::string_view(op_dim_name(ReduceOp::Mean)), "mean_dim");
    EXPECT_EQ(std::string_view(op_dim_name(ReduceOp::Min)), "min_dim");
    EXPECT_EQ(empty_reduction(ReduceOp::Sum).i, 0);
    EXPECT_EQ(empty_reduction(ReduceOp::Prod).f, 1.0);
    EXPECT_EQ(empty_reduction(ReduceOp::Prod).i, 1);
    EXPECT_TRUE(std::isnan(empty_reduction(ReduceOp::Mean).f));
}

}  // namespace
}  // namespace burn::backend

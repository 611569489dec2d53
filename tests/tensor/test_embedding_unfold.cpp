// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::module::unfold4d (im2col, as torch.nn.functional.unfold: stride, padding, dilation, a
// window covering the whole input, 1x1 windows, strided views) and burn::module::embedding (plus
// the backend's embedding for rank-1 and rank-3 indices, I64 and I32 indices, and
// embedding_backward against torch autograd, repeated indices accumulating). Larger inputs check
// the parallel paths against a naive reference. Expected values: tests/fixtures/pool.json
// (tests/fixtures/gen_pool.py).
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_embedding_unfold {

namespace {

using burn::Int;
using burn::Shape;
using burn::Tensor;
using burn::TensorData;
using burn::UnfoldOptions;
using burn::testing::close_to;
using burn::testing::fixture;
using burn::testing::fixture_data;
using burn::testing::fixture_input;
using burn::testing::fixture_output;
namespace module = burn::module;

constexpr const char* kFile = "pool";

std::vector<std::string> cases_of(const std::string& group) {
    return burn::testing::fixture_case_list(kFile, group);
}

std::array<std::size_t, 2> arr2(const nlohmann::json& j) {
    return burn::testing::fixture_sizes<2>(j);
}

template <class B>
class EmbeddingUnfoldTest : public ::testing::Test {};
TYPED_TEST_SUITE(EmbeddingUnfoldTest, burn::testing::Backends, burn::testing::BackendNames);

// ------------------------------------------------------------------------------------ unfold4d

TYPED_TEST(EmbeddingUnfoldTest, Unfold4dMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("unfold4d")) {
        const auto& p = fixture(kFile, c).at("params");
        const auto k = arr2(p.at("kernel"));
        const UnfoldOptions o{arr2(p.at("stride")), arr2(p.at("padding")), arr2(p.at("dilation"))};
        std::vector<std::pair<std::string, Tensor<B, 4>>> xs;
        xs.emplace_back("contiguous", fixture_input<B, 4>(kFile, c, "x"));
        const auto& ins = fixture(kFile, c).at("inputs");
        if (ins.contains("x@T")) {
            xs.emplace_back("transposed", fixture_input<B, 4>(kFile, c, "x@T").transpose());
            xs.emplace_back("batch/channel swapped",
                            fixture_input<B, 4>(kFile, c, "x@perm").swap_dims(0, 1));
        }
        for (auto& [l, x] : xs) {
            SCOPED_TRACE(c + ", " + l);
            EXPECT_TRUE(close_to(module::unfold4d(x, k, o), fixture_output(kFile, c, "y")));
        }
    }
}

TYPED_TEST(EmbeddingUnfoldTest, Unfold4dLargeMatchesNaiveReference) {
    using B = TypeParam;
    const std::size_t b = 2, ch = 8, H = 40, W = 45, kh = 3, kw = 4, s = 2, p = 1, d = 2;
    std::vector<double> v(b * ch * H * W);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 1999) / 256.0;
    auto x = Tensor<B, 4>::from_data(TensorData(v, Shape{b, ch, H, W}));
    auto y = module::unfold4d(x, {kh, kw}, UnfoldOptions{{s, s}, {p, p}, {d, d}});
    const std::size_t OH = (H + 2 * p - d * (kh - 1) - 1) / s + 1;
    const std::size_t OW = (W + 2 * p - d * (kw - 1) - 1) / s + 1;
    std::vector<double> want(b * ch * kh * kw * OH * OW, 0.0);
    for (std::size_t n = 0; n < b; ++n)
        for (std::size_t c = 0; c < ch; ++c)
            for (std::size_t i = 0; i < kh; ++i)
                for (std::size_t j = 0; j < kw; ++j)
                    for (std::size_t oy = 0; oy < OH; ++oy)
                        for (std::size_t ox = 0; ox < OW; ++ox) {
                            const auto iy = static_cast<std::int64_t>(oy * s + i * d) -
                                            static_cast<std::int64_t>(p);
                            const auto ix = static_cast<std::int64_t>(ox * s + j * d) -
                                            static_cast<std::int64_t>(p);
                            const std::size_t row = (c * kh + i) * kw + j;
                            if (iy < 0 || ix < 0 || iy >= static_cast<std::int64_t>(H) ||
                                ix >= static_cast<std::int64_t>(W))
                                continue;
                            want[(n * ch * kh * kw + row) * OH * OW + oy * OW + ox] =
                                v[((n * ch + c) * H + static_cast<std::size_t>(iy)) * W +
                                  static_cast<std::size_t>(ix)];
                        }
    EXPECT_TRUE(close_to(y, TensorData(want, Shape{b, ch * kh * kw, OH * OW})));
}

TYPED_TEST(EmbeddingUnfoldTest, Unfold4dInvalidArgumentsThrow) {
    using B = TypeParam;
    auto x = Tensor<B, 4>::zeros(Shape{1, 2, 3, 3});
    EXPECT_BURN_ERROR(module::unfold4d(x, {5, 2}), "unfold4d");
    EXPECT_BURN_ERROR(module::unfold4d(x, {3, 3}, UnfoldOptions{{1, 1}, {0, 0}, {2, 2}}),
                      "unfold4d");
    EXPECT_BURN_ERROR(module::unfold4d(x, {2, 2}, UnfoldOptions{{0, 1}, {0, 0}, {1, 1}}),
                      "unfold4d");
}

// ------------------------------------------------------------------------------------ embedding

TYPED_TEST(EmbeddingUnfoldTest, EmbeddingMatchesTorch) {
    using B = TypeParam;
    for (const auto& c : cases_of("embedding")) {
        SCOPED_TRACE(c);
        auto w = fixture_input<B, 2>(kFile, c, "w");
        const auto idx_data = fixture_data(fixture(kFile, c).at("inputs").at("idx"));
        const auto g_data = fixture_data(fixture(kFile, c).at("inputs").at("g"));
        const auto want_y = fixture_output(kFile, c, "y");
        const auto want_gw = fixture_output(kFile, c, "gw");
        // The backend ops take indices of any rank; the public API takes [batch, seq].
        const auto idx = B::int_from_data(idx_data, typename B::Device{});
        const auto g = B::float_from_data(g_data, {});
        EXPECT_TRUE(close_to(Tensor<B, 2>(B::embedding_backward(w.primitive(), g, idx)), want_gw));
        switch (idx_data.rank()) {
            case 1:
                EXPECT_TRUE(close_to(Tensor<B, 2>(B::embedding(w.primitive(), idx)), want_y));
                break;
            case 2: {
                auto ids = Tensor<B, 2, Int>::from_data(idx_data);
                EXPECT_TRUE(close_to(module::embedding(w, ids), want_y));
                // a strided view of the indices gives the same rows
                auto idt = Tensor<B, 2, Int>::from_data(idx_data).transpose();
                auto yt = module::embedding(w, idt);
                EXPECT_TRUE(close_to(yt.swap_dims(0, 1), want_y));
                break;
            }
            case 3:
                EXPECT_TRUE(close_to(Tensor<B, 4>(B::embedding(w.primitive(), idx)), want_y));
                break;
            default: FAIL() << "unexpected rank";
        }
    }
}

TEST(EmbeddingIndexDtype, I32IndicesGiveTheSameRowsAndGradients) {
    using B32 = burn::Cpu<double, std::int32_t>;
    const std::string c = "emb_7x5_2x4";
    auto w = fixture_input<B32, 2>(kFile, c, "w");
    auto ids = fixture_input<B32, 2, Int>(kFile, c, "idx");
    auto g = fixture_input<B32, 3>(kFile, c, "g");
    EXPECT_EQ(ids.dtype(), burn::DType::I32);
    EXPECT_TRUE(close_to(module::embedding(w, ids), fixture_output(kFile, c, "y")));
    Tensor<B32, 2> gw(B32::embedding_backward(w.primitive(), g.primitive(), ids.primitive()));
    EXPECT_TRUE(close_to(gw, fixture_output(kFile, c, "gw")));
}

TYPED_TEST(EmbeddingUnfoldTest, EmbeddingBackwardLargeMatchesNaiveReference) {
    // Narrow rows (split by id ranges) and wide rows (split by column blocks), many repeats.
    using B = TypeParam;
    for (const auto& [n, d] : {std::pair<std::size_t, std::size_t>{50, 6}, {37, 300}}) {
        SCOPED_TRACE("n " + std::to_string(n) + " d " + std::to_string(d));
        const std::size_t rows = 64, cols = 160;  // indices [64, 160]
        std::vector<std::int64_t> ids(rows * cols);
        for (std::size_t i = 0; i < ids.size(); ++i)
            ids[i] = static_cast<std::int64_t>((i * 7 + i / 13) % n);
        std::vector<double> g(rows * cols * d);
        for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<double>(i % 61) / 16.0 - 2.0;
        std::vector<double> want(n * d, 0.0);
        for (std::size_t i = 0; i < ids.size(); ++i)
            for (std::size_t j = 0; j < d; ++j)
                want[static_cast<std::size_t>(ids[i]) * d + j] += g[i * d + j];
        auto w = Tensor<B, 2>::zeros(Shape{n, d});
        auto idx = Tensor<B, 2, Int>::from_data(TensorData(ids, Shape{rows, cols}));
        auto gt = Tensor<B, 3>::from_data(TensorData(g, Shape{rows, cols, d}));
        Tensor<B, 2> gw(B::embedding_backward(w.primitive(), gt.primitive(), idx.primitive()));
        EXPECT_TRUE(close_to(gw, TensorData(want, Shape{n, d})));
        // forward: row i of the output is row ids[i] of the weights
        std::vector<double> wv(n * d);
        for (std::size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<double>(i) / 8.0;
        auto weights = Tensor<B, 2>::from_data(TensorData(wv, Shape{n, d}));
        std::vector<double> yv(rows * cols * d);
        for (std::size_t i = 0; i < ids.size(); ++i)
            for (std::size_t j = 0; j < d; ++j)
                yv[i * d + j] = wv[static_cast<std::size_t>(ids[i]) * d + j];
        EXPECT_TRUE(
            close_to(module::embedding(weights, idx), TensorData(yv, Shape{rows, cols, d})));
    }
}

TYPED_TEST(EmbeddingUnfoldTest, EmbeddingIndexOutOfRangeThrows) {
    using B = TypeParam;
    auto w = Tensor<B, 2>::zeros(Shape{4, 3});
    EXPECT_BURN_ERROR(module::embedding(w, Tensor<B, 2, Int>::from_ints({{0, 4}})), "embedding");
    EXPECT_BURN_ERROR(module::embedding(w, Tensor<B, 2, Int>::from_ints({{-1, 2}})), "embedding");
    // the kernel checks too (a backend op called directly)
    auto bad = Tensor<B, 1, Int>::from_ints({1, 9});
    EXPECT_BURN_ERROR((Tensor<B, 2>(B::embedding(w.primitive(), bad.primitive())).to_data()),
                      "embedding");
    auto g = Tensor<B, 2>::ones(Shape{2, 3});
    EXPECT_BURN_ERROR(
        (Tensor<B, 2>(B::embedding_backward(w.primitive(), g.primitive(), bad.primitive()))
             .to_data()),
        "embedding_backward");
    // an empty index tensor gives an empty lookup
    auto none = Tensor<B, 2, Int>::zeros(Shape{0, 5});
    EXPECT_EQ(module::embedding(w, none).shape(), Shape({0, 5, 3}));
}

}  // namespace

}  // namespace burn_test_embedding_unfold

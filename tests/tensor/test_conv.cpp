// SPDX-License-Identifier: MIT OR Apache-2.0
// Convolutions (conv1d/2d/3d) and transposed convolutions (conv_transpose1d/2d/3d): outputs and
// the backward kernels for x, weight and bias against PyTorch (tests/fixtures/conv.json, written
// by gen_conv.py) over strides, paddings, dilations, groups, output paddings, 1x1 kernels, odd
// sizes and batch 1; non-contiguous inputs; invalid arguments.
#include <array>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_conv {

namespace {

using burn::ConvOptions;
using burn::ConvTransposeOptions;
using burn::Tensor;
using burn::testing::close_to;
using burn::testing::fixture;
using burn::testing::fixture_input;
using burn::testing::fixture_output;

constexpr const char* kFile = "conv";

template <class B>
class ConvTest : public ::testing::Test {};
TYPED_TEST_SUITE(ConvTest, burn::testing::Backends, burn::testing::BackendNames);

template <std::size_t N>
std::array<std::size_t, N> arr(const nlohmann::json& j) {
    return burn::testing::fixture_sizes<N>(j);
}

/// Looser for f32: sums of up to a few hundred products of values in [-1, 1].
template <class B>
burn::Tolerance tol() {
    if constexpr (std::is_same_v<typename B::FloatElem, double>) return {1e-10, 1e-10};
    else return burn::testing::loose_tolerance<B>({1e-4, 1e-4});
}

/// Runs a conv or conv_transpose case: forward through burn::module::, backward via the backend.
template <class B, std::size_t N>
void check_case(const std::string& c, bool transpose) {
    SCOPED_TRACE(c);
    constexpr std::size_t D = N + 2;
    const auto& p = fixture(kFile, c).at("params");
    auto x = fixture_input<B, D>(kFile, c, "x");
    auto w = fixture_input<B, D>(kFile, c, "w");
    auto gy = fixture_input<B, D>(kFile, c, "gy");
    std::optional<Tensor<B, 1>> b;
    if (p.at("bias").get<bool>()) b = fixture_input<B, 1>(kFile, c, "b");
    const auto ob = b ? std::optional(b->primitive()) : std::nullopt;

    if (!transpose) {
        ConvOptions<N> o{arr<N>(p["stride"]), arr<N>(p["padding"]), arr<N>(p["dilation"]),
                         p["groups"].get<std::size_t>()};
        Tensor<B, D> y = [&] {
            if constexpr (N == 1) return burn::module::conv1d(x, w, b, o);
            else if constexpr (N == 2) return burn::module::conv2d(x, w, b, o);
            else return burn::module::conv3d(x, w, b, o);
        }();
        EXPECT_TRUE(close_to(y, fixture_output(kFile, c, "y"), tol<B>()));
        typename B::FloatTensor gx, gw;
        if constexpr (N == 1) {
            gx = B::conv1d_x_backward(x.primitive(), w.primitive(), gy.primitive(), o);
            gw = B::conv1d_weight_backward(x.primitive(), w.primitive(), gy.primitive(), o);
        } else if constexpr (N == 2) {
            gx = B::conv2d_x_backward(x.primitive(), w.primitive(), gy.primitive(), o);
            gw = B::conv2d_weight_backward(x.primitive(), w.primitive(), gy.primitive(), o);
        } else {
            gx = B::conv3d_x_backward(x.primitive(), w.primitive(), gy.primitive(), o);
            gw = B::conv3d_weight_backward(x.primitive(), w.primitive(), gy.primitive(), o);
        }
        EXPECT_TRUE(close_to(Tensor<B, D>(gx), fixture_output(kFile, c, "gx"), tol<B>()));
        EXPECT_TRUE(close_to(Tensor<B, D>(gw), fixture_output(kFile, c, "gw"), tol<B>()));
        if (b) {
            typename B::FloatTensor gb;
            if constexpr (N == 1)
                gb = B::conv1d_bias_backward(x.primitive(), b->primitive(), gy.primitive());
            else if constexpr (N == 2)
                gb = B::conv2d_bias_backward(x.primitive(), b->primitive(), gy.primitive());
            else gb = B::conv3d_bias_backward(x.primitive(), b->primitive(), gy.primitive());
            EXPECT_TRUE(close_to(Tensor<B, 1>(gb), fixture_output(kFile, c, "gb"), tol<B>()));
        }
    } else {
        ConvTransposeOptions<N> o{arr<N>(p["stride"]), arr<N>(p["padding"]),
                                  arr<N>(p["padding_out"]), arr<N>(p["dilation"]),
                                  p["groups"].get<std::size_t>()};
        Tensor<B, D> y = [&] {
            if constexpr (N == 1) return burn::module::conv_transpose1d(x, w, b, o);
            else if constexpr (N == 2) return burn::module::conv_transpose2d(x, w, b, o);
            else return burn::module::conv_transpose3d(x, w, b, o);
        }();
        EXPECT_TRUE(close_to(y, fixture_output(kFile, c, "y"), tol<B>()));
        typename B::FloatTensor gx, gw;
        if constexpr (N == 1) {
            gx = B::conv_transpose1d_x_backward(x.primitive(), w.primitive(), gy.primitive(), o);
            gw = B::conv_transpose1d_weight_backward(x.primitive(), w.primitive(), gy.primitive(),
                                                     o);
        } else if constexpr (N == 2) {
            gx = B::conv_transpose2d_x_backward(x.primitive(), w.primitive(), gy.primitive(), o);
            gw = B::conv_transpose2d_weight_backward(x.primitive(), w.primitive(), gy.primitive(),
                                                     o);
        } else {
            gx = B::conv_transpose3d_x_backward(x.primitive(), w.primitive(), gy.primitive(), o);
            gw = B::conv_transpose3d_weight_backward(x.primitive(), w.primitive(), gy.primitive(),
                                                     o);
        }
        EXPECT_TRUE(close_to(Tensor<B, D>(gx), fixture_output(kFile, c, "gx"), tol<B>()));
        EXPECT_TRUE(close_to(Tensor<B, D>(gw), fixture_output(kFile, c, "gw"), tol<B>()));
        if (b) {
            typename B::FloatTensor gb;
            if constexpr (N == 1)
                gb = B::conv_transpose1d_bias_backward(x.primitive(), b->primitive(),
                                                       gy.primitive());
            else if constexpr (N == 2)
                gb = B::conv_transpose2d_bias_backward(x.primitive(), b->primitive(),
                                                       gy.primitive());
            else
                gb = B::conv_transpose3d_bias_backward(x.primitive(), b->primitive(),
                                                       gy.primitive());
            EXPECT_TRUE(close_to(Tensor<B, 1>(gb), fixture_output(kFile, c, "gb"), tol<B>()));
        }
    }
}

TYPED_TEST(ConvTest, Conv2dOptionGrid) {
    for (const char* c :
         {"conv2d_basic", "conv2d_nobias", "conv2d_stride2_pad1", "conv2d_stride_hw",
          "conv2d_dilation2", "conv2d_groups2", "conv2d_depthwise", "conv2d_1x1",
          "conv2d_1x1_stride2", "conv2d_kernel_eq_input", "conv2d_batch1_odd", "conv2d_large_pad",
          "conv2d_guide1", "conv2d_wide", "conv2d_implicit_dilation_groups",
          "conv2d_implicit_long_rows"})
        check_case<TypeParam, 2>(c, false);
}

TYPED_TEST(ConvTest, Conv1dAndConv3d) {
    for (const char* c : {"conv1d_basic", "conv1d_opts", "conv1d_nobias"})
        check_case<TypeParam, 1>(c, false);
    for (const char* c : {"conv3d_basic", "conv3d_opts", "conv3d_implicit_dilation"})
        check_case<TypeParam, 3>(c, false);
}

TYPED_TEST(ConvTest, ConvTranspose) {
    for (const char* c : {"convT2d_basic", "convT2d_stride2", "convT2d_padding_out",
                          "convT2d_groups_dilation", "convT2d_nobias", "convT2d_padout_dilation"})
        check_case<TypeParam, 2>(c, true);
    check_case<TypeParam, 1>("convT1d_basic", true);
    check_case<TypeParam, 3>("convT3d_basic", true);
}

TYPED_TEST(ConvTest, NonContiguousInputs) {
    using B = TypeParam;
    const std::string c = "conv2d_stride2_pad1";
    auto x = fixture_input<B, 4>(kFile, c, "x");
    auto w = fixture_input<B, 4>(kFile, c, "w");
    auto b = fixture_input<B, 1>(kFile, c, "b");
    // The same values through permuted (channels-last) and flipped views.
    auto xp = Tensor<B, 4>::from_data(x.permute({0, 2, 3, 1}).to_data()).permute({0, 3, 1, 2});
    auto wf = Tensor<B, 4>::from_data(w.flip({0}).to_data()).flip({0});
    auto y = burn::module::conv2d(xp, wf, b, ConvOptions<2>{.stride = {2, 2}, .padding = {1, 1}});
    EXPECT_TRUE(close_to(y, fixture_output(kFile, c, "y"), tol<B>()));
}

TYPED_TEST(ConvTest, LargeImageUsesColumnBlocks) {
    // One image whose im2col panel exceeds the L2 block: split into column blocks and threads.
    using B = TypeParam;
    B::seed(7);
    auto x = Tensor<B, 4>::random({1, 16, 64, 64}, burn::Distribution::Uniform(-1, 1));
    auto w = Tensor<B, 4>::random({8, 16, 3, 3}, burn::Distribution::Uniform(-1, 1));
    auto y = burn::module::conv2d(x, w, std::nullopt, ConvOptions<2>{.padding = {1, 1}});
    // Reference: the same convolution as unfolded matmuls, one output row at a time.
    auto xp = x.pad({1, 1, 1, 1}, 0.0);
    auto wm = w.reshape(std::array<std::int64_t, 2>{8, 144});
    for (std::size_t oh : {0u, 31u, 63u}) {
        std::vector<Tensor<B, 2>> cols;
        for (std::size_t c = 0; c < 16; ++c)
            for (std::size_t kh = 0; kh < 3; ++kh)
                for (std::size_t kw = 0; kw < 3; ++kw)
                    cols.push_back(
                        xp.slice({burn::Slice(0, 1), burn::Slice(c, c + 1),
                                  burn::Slice(oh + kh, oh + kh + 1), burn::Slice(kw, kw + 64)})
                            .reshape(std::array<std::int64_t, 2>{1, 64}));
        auto ref = wm.matmul(Tensor<B, 2>::cat(cols, 0));  // [8, 64]
        auto got = y.slice({burn::Slice(0, 1), burn::Slice(0, 8), burn::Slice(oh, oh + 1)})
                       .reshape(std::array<std::int64_t, 2>{8, 64});
        EXPECT_TRUE(close_to(got, ref.to_data(), tol<B>())) << "row " << oh;
    }
}

/// Direct (seven-loop) conv2d and its gradients in double, for random configurations.
struct DirectConv {
    std::size_t B, C, H, W, O, KH, KW, G, sh, sw, ph, pw, dh, dw, OH, OW;
    std::vector<double> x, w, gy, y, gx, gw;

    void run() {
        y.assign(B * O * OH * OW, 0.0);
        gx.assign(B * C * H * W, 0.0);
        gw.assign(O * (C / G) * KH * KW, 0.0);
        const std::size_t cg = C / G, og = O / G;
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t o = 0; o < O; ++o)
                for (std::size_t oh = 0; oh < OH; ++oh)
                    for (std::size_t ow = 0; ow < OW; ++ow) {
                        const std::size_t yi = ((b * O + o) * OH + oh) * OW + ow;
                        for (std::size_t ci = 0; ci < cg; ++ci)
                            for (std::size_t kh = 0; kh < KH; ++kh)
                                for (std::size_t kw = 0; kw < KW; ++kw) {
                                    const auto ih = static_cast<std::int64_t>(oh * sh + kh * dh) -
                                                    static_cast<std::int64_t>(ph);
                                    const auto iw = static_cast<std::int64_t>(ow * sw + kw * dw) -
                                                    static_cast<std::int64_t>(pw);
                                    if (ih < 0 || iw < 0 || ih >= static_cast<std::int64_t>(H) ||
                                        iw >= static_cast<std::int64_t>(W))
                                        continue;
                                    const std::size_t c = (o / og) * cg + ci;
                                    const std::size_t xi =
                                        ((b * C + c) * H + static_cast<std::size_t>(ih)) * W +
                                        static_cast<std::size_t>(iw);
                                    const std::size_t wi = ((o * cg + ci) * KH + kh) * KW + kw;
                                    y[yi] += w[wi] * x[xi];
                                    gx[xi] += w[wi] * gy[yi];
                                    gw[wi] += x[xi] * gy[yi];
                                }
                    }
    }
};

/// The backend's input and weight gradients of conv2d(x, w, o) for the output gradient gy,
/// against d's (x, w and gy hold d's values).
template <class B>
void expect_gradients(const DirectConv& d, const Tensor<B, 4>& x, const Tensor<B, 4>& w,
                      const Tensor<B, 4>& gy, const ConvOptions<2>& o) {
    const burn::Shape xs{d.B, d.C, d.H, d.W}, ws{d.O, d.C / d.G, d.KH, d.KW};
    auto gx = Tensor<B, 4>(B::conv2d_x_backward(x.primitive(), w.primitive(), gy.primitive(), o));
    EXPECT_TRUE(close_to(gx, burn::TensorData(d.gx, xs), tol<B>()));
    auto gw =
        Tensor<B, 4>(B::conv2d_weight_backward(x.primitive(), w.primitive(), gy.primitive(), o));
    EXPECT_TRUE(close_to(gw, burn::TensorData(d.gw, ws), tol<B>()));
}

TYPED_TEST(ConvTest, RandomConfigurationsMatchDirectConvolution) {
    // Random shapes and options (seeded), covering every code path: implicit GEMM, im2col with
    // thin or BLAS products, 1x1, column blocks, channel blocks, groups; forward and both
    // gradients against a direct double-precision convolution.
    using B = TypeParam;
    std::mt19937 rng(1234);
    auto pick = [&](std::size_t lo, std::size_t hi) {
        return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
    };
    for (int trial = 0; trial < 40; ++trial) {
        DirectConv d{};
        d.G = pick(1, 3);
        d.C = d.G * pick(1, 4);
        d.O = d.G * pick(1, trial % 4 == 0 ? 24 : 6);
        d.B = pick(1, 3);
        d.KH = pick(1, 4), d.KW = pick(1, 4);
        d.sh = pick(1, 2), d.sw = pick(1, 3), d.dh = pick(1, 2), d.dw = pick(1, 2);
        d.ph = trial % 3 == 0 ? 0 : pick(0, 2), d.pw = trial % 3 == 0 ? 0 : pick(0, 2);
        if (trial % 3 == 0) d.sh = d.sw = 1;  // the implicit-GEMM path
        d.H = pick(d.dh * (d.KH - 1) + 1, 14), d.W = pick(d.dw * (d.KW - 1) + 1, 40);
        d.OH = burn::conv_output_size(d.H, d.KH, d.sh, d.ph, d.dh);
        d.OW = burn::conv_output_size(d.W, d.KW, d.sw, d.pw, d.dw);
        auto fill = [&](std::size_t n) {
            std::vector<double> v(n);
            for (auto& e : v) e = static_cast<double>(static_cast<int>(pick(0, 512)) - 256) / 256.0;
            return v;
        };
        d.x = fill(d.B * d.C * d.H * d.W);
        d.w = fill(d.O * (d.C / d.G) * d.KH * d.KW);
        d.gy = fill(d.B * d.O * d.OH * d.OW);
        d.run();
        const burn::Shape xs{d.B, d.C, d.H, d.W}, ws{d.O, d.C / d.G, d.KH, d.KW},
            ys{d.B, d.O, d.OH, d.OW};
        auto x = Tensor<B, 4>::from_data(burn::TensorData(d.x, xs));
        auto w = Tensor<B, 4>::from_data(burn::TensorData(d.w, ws));
        auto gy = Tensor<B, 4>::from_data(burn::TensorData(d.gy, ys));
        const ConvOptions<2> o{{d.sh, d.sw}, {d.ph, d.pw}, {d.dh, d.dw}, d.G};
        SCOPED_TRACE("trial " + std::to_string(trial) + ": x " + xs.to_string() + " w " +
                     ws.to_string() + " stride " + std::to_string(d.sh) + "," +
                     std::to_string(d.sw) + " pad " + std::to_string(d.ph) + "," +
                     std::to_string(d.pw) + " dil " + std::to_string(d.dh) + "," +
                     std::to_string(d.dw) + " groups " + std::to_string(d.G));
        auto y = burn::module::conv2d(x, w, std::nullopt, o);
        EXPECT_TRUE(close_to(y, burn::TensorData(d.y, ys), tol<B>()));
        expect_gradients(d, x, w, gy, o);
    }
}

TYPED_TEST(ConvTest, ThreeByThreeStrideOneMatchesDirectConvolution) {
    // 3x3, stride 1 and enough channels (the CPU backend's Winograd F(2x2, 3x3) path): channel
    // counts that are not multiples of the register tiles, paddings 0 to 2, odd and even sizes
    // (partial edge tiles), a bias; the forward, the input gradient (the same path on the flipped
    // weight) and the weight gradient (Winograd F(3x3, 2x2)) against a direct double-precision
    // convolution.
    using B = TypeParam;
    std::mt19937 rng(99);
    auto pick = [&](std::size_t lo, std::size_t hi) {
        return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
    };
    for (int trial = 0; trial < 10; ++trial) {
        DirectConv d{};
        d.G = 1, d.KH = d.KW = 3, d.sh = d.sw = d.dh = d.dw = 1;
        d.B = pick(1, 2);
        d.C = pick(32, 72), d.O = pick(32, 72);
        // Trial 8: many channels (the CPU weight gradient's other summation scheme).
        if (trial == 8) d.B = 1, d.C = 130, d.O = 140;
        d.ph = pick(0, 2), d.pw = pick(0, 2);
        d.H = pick(14, 19), d.W = pick(14, 23);  // at least 36 output tiles
        // Trial 9: one 7x7 map with padding 1, 16 tiles (ResNet's last stage at batch 1).
        if (trial == 9) d.B = 1, d.ph = d.pw = 1, d.H = d.W = 7;
        d.OH = burn::conv_output_size(d.H, 3, 1, d.ph, 1);
        d.OW = burn::conv_output_size(d.W, 3, 1, d.pw, 1);
        auto fill = [&](std::size_t n) {
            std::vector<double> v(n);
            for (auto& e : v) e = static_cast<double>(static_cast<int>(pick(0, 512)) - 256) / 256.0;
            return v;
        };
        d.x = fill(d.B * d.C * d.H * d.W);
        d.w = fill(d.O * d.C * 9);
        d.gy = fill(d.B * d.O * d.OH * d.OW);
        d.run();
        const std::vector<double> bias = fill(d.O);
        for (std::size_t i = 0; i < d.y.size(); ++i) d.y[i] += bias[(i / (d.OH * d.OW)) % d.O];
        const burn::Shape xs{d.B, d.C, d.H, d.W}, ws{d.O, d.C, 3, 3}, ys{d.B, d.O, d.OH, d.OW};
        SCOPED_TRACE("trial " + std::to_string(trial) + ": x " + xs.to_string() + " w " +
                     ws.to_string() + " pad " + std::to_string(d.ph) + "," + std::to_string(d.pw));
        auto x = Tensor<B, 4>::from_data(burn::TensorData(d.x, xs));
        auto w = Tensor<B, 4>::from_data(burn::TensorData(d.w, ws));
        auto b = Tensor<B, 1>::from_data(burn::TensorData(bias, burn::Shape{d.O}));
        const ConvOptions<2> o{.padding = {d.ph, d.pw}};
        auto y = burn::module::conv2d(x, w, b, o);
        EXPECT_TRUE(close_to(y, burn::TensorData(d.y, ys), tol<B>()));
        // The input gradient: a 3x3 stride-1 convolution of the gradient too.
        auto gy = Tensor<B, 4>::from_data(burn::TensorData(d.gy, ys));
        expect_gradients(d, x, w, gy, o);
    }
}

TYPED_TEST(ConvTest, InvalidArguments) {
    using B = TypeParam;
    auto x = Tensor<B, 4>::ones({1, 4, 5, 5});
    auto w = Tensor<B, 4>::ones({6, 4, 3, 3});
    EXPECT_BURN_ERROR(burn::module::conv2d(x, Tensor<B, 4>::ones({6, 4, 7, 7}), std::nullopt, {}),
                      "conv2d: kernel [7, 7]");
    EXPECT_BURN_ERROR(burn::module::conv2d(x, Tensor<B, 4>::ones({6, 3, 3, 3}), std::nullopt, {}),
                      "conv2d: input [1, 4, 5, 5] has 4 channels");
    EXPECT_BURN_ERROR(burn::module::conv2d(x, Tensor<B, 4>::ones({5, 2, 3, 3}), std::nullopt,
                                           ConvOptions<2>{.groups = 2}),
                      "not divisible by groups 2");
    EXPECT_BURN_ERROR(burn::module::conv2d(x, w, Tensor<B, 1>::ones({5}), {}), "conv2d: bias");
    EXPECT_BURN_ERROR(burn::module::conv2d(x, w, std::nullopt, ConvOptions<2>{.stride = {0, 1}}),
                      "conv2d: stride must be positive");
    const std::size_t negative = static_cast<std::size_t>(-1);
    EXPECT_BURN_ERROR(
        burn::module::conv2d(x, w, std::nullopt, ConvOptions<2>{.padding = {negative, 0}}),
        "conv2d: padding -1 is negative");
    EXPECT_BURN_ERROR(burn::module::conv1d(Tensor<B, 3>::ones({1, 4, 2}),
                                           Tensor<B, 3>::ones({2, 4, 3}), std::nullopt, {}),
                      "conv1d");
    EXPECT_BURN_ERROR(
        burn::module::conv_transpose2d(x, Tensor<B, 4>::ones({3, 2, 3, 3}), std::nullopt, {}),
        "conv_transpose2d: input [1, 4, 5, 5] has 4 channels");
    EXPECT_BURN_ERROR(burn::module::conv_transpose2d(
                          x, Tensor<B, 4>::ones({4, 2, 3, 3}), std::nullopt,
                          ConvTransposeOptions<2>{.stride = {2, 2}, .padding_out = {2, 0}}),
                      "padding_out");
}

}  // namespace

}  // namespace burn_test_conv

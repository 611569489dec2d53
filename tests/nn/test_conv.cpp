// SPDX-License-Identifier: MIT OR Apache-2.0
// nn::Conv1d/2d/3d, nn::ConvTranspose1d/2d/3d, nn::DeformConv2d and the PaddingConfigs: forward
// values and gradients against PyTorch / torchvision (tests/fixtures/nn_conv.json, whose cases
// carry the layer's config as burn-cpp saves it), finite differences, initialisation, configs,
// display and errors.
#include <burn/nn/conv.hpp>
#include <burn/nn/padding.hpp>
#include <burn/record/recorder.hpp>
#include <cmath>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::nn_conv {
namespace {

using B = TestFloatBackend;
const std::string kFile = "nn_conv";

static_assert(module::check_fields<nn::Conv1d<B>>());
static_assert(module::check_fields<nn::Conv2d<B>>());
static_assert(module::check_fields<nn::Conv3d<B>>());
static_assert(module::check_fields<nn::ConvTranspose1d<B>>());
static_assert(module::check_fields<nn::ConvTranspose2d<B>>());
static_assert(module::check_fields<nn::ConvTranspose3d<B>>());
static_assert(module::check_fields<nn::DeformConv2d<B>>());

/// The case's config, read from the JSON burn-cpp saves.
template <class Config>
Config config_of(const TorchCase& c) {
    return Config::from_json_string(c.param("config").dump());
}

/// Builds the layer from the case's config, replaces its parameters by the fixture's and checks
/// the forward value and every gradient.
template <class Config, std::size_t D>
void check_conv_case(const std::string& name) {
    TorchCase c(kFile, name);
    const auto config = config_of<Config>(c);
    auto layer = config.template init<ADF>();
    const auto x = c.input<D>("x");
    layer.weight = c.param<D>("weight");
    if (config.bias) layer.bias = c.param<1>("bias");
    else EXPECT_FALSE(layer.bias.has_value());
    c.check(layer.forward(x));
}

// =========================================================================== PaddingConfig
TEST(NnPadding, SamePaddingKeepsTheSizeDividedByTheStride) {
    using P = nn::PaddingConfig2d;
    const P same = P::Same{};
    // Odd kernel, stride 1: symmetric, PyTorch's padding='same'.
    EXPECT_EQ(same.pairs({10, 10}, {3, 5}, {1, 1})[0], (nn::PaddingPair{1, 1}));
    EXPECT_EQ(same.pairs({10, 10}, {3, 5}, {1, 1})[1], (nn::PaddingPair{2, 2}));
    // Even kernel: the odd element goes after (bottom / right), as PyTorch and ONNX SAME_UPPER.
    EXPECT_EQ(same.pairs({5, 5}, {2, 4}, {1, 1})[0], (nn::PaddingPair{0, 1}));
    EXPECT_EQ(same.pairs({5, 5}, {2, 4}, {1, 1})[1], (nn::PaddingPair{1, 2}));
    // The dilated window counts: kernel 3, dilation 2 spans 5.
    EXPECT_EQ(same.pairs({6, 6}, {3, 3}, {1, 1}, {2, 1})[0], (nn::PaddingPair{2, 2}));
    // Stride 2: the output has ceil(size / 2) elements.
    EXPECT_EQ(same.pairs({7, 6}, {3, 3}, {2, 2})[0], (nn::PaddingPair{1, 1}));
    EXPECT_EQ(same.pairs({7, 6}, {3, 3}, {2, 2})[1], (nn::PaddingPair{0, 1}));
    // Valid and Explicit.
    EXPECT_EQ(P().pairs({5, 5}, {3, 3}, {1, 1})[1], (nn::PaddingPair{0, 0}));
    const P e = P::Explicit{.top = 1, .left = 2, .bottom = 3, .right = 4};
    EXPECT_EQ(e.pairs({5, 5}, {3, 3}, {1, 1})[0], (nn::PaddingPair{1, 3}));
    EXPECT_EQ(e.pairs({5, 5}, {3, 3}, {1, 1})[1], (nn::PaddingPair{2, 4}));
    EXPECT_TRUE(e.is_asymmetric());
    EXPECT_FALSE(P::symmetric(1, 2).is_asymmetric());
    EXPECT_FALSE(same.is_asymmetric());
    const auto p1 = nn::PaddingConfig1d(nn::PaddingConfig1d::Same{}).pair(7, 2, 2);
    EXPECT_EQ(p1, (nn::PaddingPair{0, 1}));
    const nn::PaddingConfig3d p3 = nn::PaddingConfig3d::Explicit{
        .front = 1, .top = 2, .left = 3, .back = 4, .bottom = 5, .right = 6};
    EXPECT_EQ(p3.pairs({9, 9, 9}, {3, 3, 3}, {1, 1, 1})[2], (nn::PaddingPair{3, 6}));
}

TEST(NnPadding, PrintsAndSavesByName) {
    using P1 = nn::PaddingConfig1d;
    using P2 = nn::PaddingConfig2d;
    std::ostringstream os;
    os << P1() << " " << P2(P2::Same{}) << " " << P1::symmetric(2) << " "
       << P2(P2::Explicit{.top = 1, .left = 2, .bottom = 3, .right = 4}) << " "
       << nn::PaddingConfig3d::symmetric(1, 2, 3);
    EXPECT_EQ(os.str(),
              "Valid Same Explicit(2, 2) Explicit(1, 2, 3, 4) Explicit(1, 2, 3, 1, 2, 3)");

    auto config = nn::Conv2dConfig{.channels = {{2, 3}}, .kernel_size = {{3, 3}}};
    EXPECT_NE(config.to_json_string().find("\"padding\": \"Valid\""), std::string::npos);
    for (const P2& p : {P2(P2::Same{}), P2(P2::Valid{}), P2::symmetric(1, 2),
                        P2(P2::Explicit{.top = 0, .left = 1, .bottom = 2, .right = 3})}) {
        config.padding = p;
        EXPECT_EQ(nn::Conv2dConfig::from_json_string(config.to_json_string()), config) << p;
    }
    config.padding = P2::Same{};
    EXPECT_NE(config.to_json_string().find("\"padding\": \"Same\""), std::string::npos);
    EXPECT_BURN_ERROR(nn::Conv2dConfig::from_json_string(
                          R"({"channels": [1, 1], "kernel_size": [1, 1], "padding": "Full"})"),
                      "Conv2dConfig.padding: expected one of Same, Valid or Explicit");
    EXPECT_BURN_ERROR(
        nn::Conv2dConfig::from_json_string(
            R"({"channels": [1, 1], "kernel_size": [1, 1], "padding": {"Explicit": {"top": 1}}})"),
        "Conv2dConfig.padding.Explicit.left: missing required field");
    const auto c1 = nn::Conv1dConfig::from_json_string(
        R"({"channels_in": 1, "channels_out": 1, "kernel_size": 3,
            "padding": {"Explicit": {"left": 1, "right": 2}}})");
    EXPECT_EQ(c1.padding, P1(P1::Explicit{.left = 1, .right = 2}));
}

// ================================================================================== Conv1d
TEST(NnConv1d, MatchesTorch) {
    for (const char* name :
         {"conv1d", "conv1d_same_even_groups", "conv1d_explicit_stride_dilation"})
        check_conv_case<nn::Conv1dConfig, 3>(name);
}

TEST(NnConv1d, ConfigInitAndDisplay) {
    const auto conv =
        nn::Conv1dConfig{.channels_in = 5, .channels_out = 5, .kernel_size = 5}.init<B>();
    EXPECT_EQ(conv.weight.shape(), Shape({5, 5, 5}));
    EXPECT_EQ(module::to_string(conv),
              "Conv1d {ch_in: 5, ch_out: 5, stride: 1, kernel_size: 5, "
              "dilation: 1, groups: 1, padding: Valid, params: 130}");
    // PyTorch's default bound: 1 / sqrt(channels_in / groups * kernel_size).
    const double bound = 1.0 / std::sqrt(25.0);
    EXPECT_LE(conv.weight.val().abs().max().into_scalar(), bound);
    EXPECT_GT(conv.weight.val().abs().max().into_scalar(), 0.8 * bound);
    EXPECT_LE(conv.bias->val().abs().max().into_scalar(), bound);
    // Same with an even kernel keeps the length.
    const auto same = nn::Conv1dConfig{.channels_in = 2,
                                       .channels_out = 3,
                                       .kernel_size = 4,
                                       .padding = nn::PaddingConfig1d::Same{}}
                          .init<B>();
    EXPECT_EQ(same.forward(Tensor<B, 3>::ones({1, 2, 9})).dims(),
              (std::array<std::size_t, 3>{1, 3, 9}));
}

TEST(NnConv1d, InvalidConfigsAndInputsThrow) {
    using C = nn::Conv1dConfig;
    EXPECT_BURN_ERROR((C{.channels_in = 0, .channels_out = 2, .kernel_size = 3}.init<B>()),
                      "Conv1dConfig::init: channels must be positive");
    EXPECT_BURN_ERROR((C{.channels_in = 2, .channels_out = 2, .kernel_size = 0}.init<B>()),
                      "kernel_size must be positive, got [0]");
    EXPECT_BURN_ERROR(
        (C{.channels_in = 2, .channels_out = 2, .kernel_size = 3, .stride = 0}.init<B>()),
        "stride must be positive");
    EXPECT_BURN_ERROR(
        (C{.channels_in = 4, .channels_out = 6, .kernel_size = 3, .groups = 4}.init<B>()),
        "both channels must be divisible by groups = 4");
    const auto conv = C{.channels_in = 5, .channels_out = 3, .kernel_size = 3}.init<B>();
    EXPECT_BURN_ERROR(conv.forward(Tensor<B, 3>::zeros({1, 4, 10})),
                      "Conv1d::forward: expected an input with 5 channels");
    const auto negative = C{
        .channels_in = 1,
        .channels_out = 1,
        .kernel_size = 1,
        .padding = nn::PaddingConfig1d::Explicit{
            .left = std::size_t(-1),
            .right = 0}}.init<B>();
    EXPECT_BURN_ERROR(negative.forward(Tensor<B, 3>::zeros({1, 1, 4})),
                      "PaddingConfig: padding -1 is negative or too large");
    EXPECT_BURN_ERROR(conv.forward(Tensor<B, 3>::zeros({1, 5, 2})),
                      "is larger than the padded input");
}

// ================================================================================== Conv2d
TEST(NnConv2d, MatchesTorch) {
    for (const char* name : {"conv2d", "conv2d_same_dilation_groups", "conv2d_same_stride2",
                             "conv2d_explicit_asymmetric"})
        check_conv_case<nn::Conv2dConfig, 4>(name);
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnConv2d, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    // Asymmetric Same padding (even kernel), groups and dilation. A Param is a fresh leaf, so the
    // layer's parameters are fixed here (their gradients are checked against PyTorch above).
    const nn::Conv2d<AD> conv{
        uniform<4>({2, 2, 2, 3}, -1, 1, 8), uniform<1>({2}, -1, 1, 9), {1, 1}, {2, 3}, {1, 2}, 2,
        nn::PaddingConfig2d::Same{}};
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 4>& x) { return conv.forward(x); },
                          uniform<4>({1, 4, 4, 5})));
}

TEST(NnConv2d, ConfigInitAndDisplay) {
    const auto conv = nn::Conv2dConfig{.channels = {{5, 1}}, .kernel_size = {{5, 5}}}.init<B>();
    EXPECT_EQ(module::to_string(conv),
              "Conv2d {ch_in: 5, ch_out: 1, stride: [1, 1], kernel_size: [5, 5], dilation: [1, 1], "
              "groups: 1, padding: Valid, params: 126}");
    const auto grouped =
        nn::Conv2dConfig{.channels = {{4, 8}}, .kernel_size = {{3, 3}}, .groups = 4, .bias = false}
            .init<B>();
    EXPECT_EQ(grouped.weight.shape(), Shape({8, 1, 3, 3}));
    EXPECT_FALSE(grouped.bias.has_value());
    EXPECT_EQ(grouped.channels_in(), 4u);
    const double bound = 1.0 / 3.0;  // 1 / sqrt(4 / 4 * 9)
    EXPECT_LE(grouped.weight.val().abs().max().into_scalar(), bound);
    EXPECT_GT(grouped.weight.val().abs().max().into_scalar(), 0.8 * bound);
    // The fans: fan_out = channels_out / groups * kh * kw.
    const auto fan_out =
        nn::Conv2dConfig{
            .channels = {{4, 8}},
            .kernel_size = {{3, 3}},
            .groups = 4,
            .initializer = nn::Initializer::KaimingUniform{.gain = 1.0, .fan_out_only = true}}
            .init<Cpu<double>>();
    EXPECT_LE(fan_out.weight.val().abs().max().into_scalar(), std::sqrt(3.0 / 18.0));
    // Same with an even kernel keeps the size (Burn's asymmetric padding).
    const auto same =
        nn::Conv2dConfig{
            .channels = {{4, 4}}, .kernel_size = {{2, 2}}, .padding = nn::PaddingConfig2d::Same{}}
            .init<B>();
    EXPECT_EQ(same.forward(Tensor<B, 4>::ones({1, 4, 5, 5})).dims(),
              (std::array<std::size_t, 4>{1, 4, 5, 5}));
    const auto asym =
        nn::Conv2dConfig{
            .channels = {{2, 3}},
            .kernel_size = {{3, 3}},
            .padding = nn::PaddingConfig2d::Explicit{.top = 1, .left = 2, .bottom = 3, .right = 4}}
            .init<B>();
    EXPECT_EQ(asym.forward(Tensor<B, 4>::ones({1, 2, 4, 5})).dims(),
              (std::array<std::size_t, 4>{1, 3, 6, 9}));
}

TEST(NnConv2d, InvalidConfigsAndInputsThrow) {
    EXPECT_BURN_ERROR(
        (nn::Conv2dConfig{.channels = {{1, 4}}, .kernel_size = {{1, 1}}, .groups = 4}.init<B>()),
        "Conv2dConfig::init: both channels must be divisible by groups");
    EXPECT_BURN_ERROR(
        (nn::Conv2dConfig{.channels = {{1, 4}}, .kernel_size = {{1, 1}}, .dilation = {0, 1}}
             .init<B>()),
        "dilation must be positive, got [0, 1]");
    EXPECT_BURN_ERROR(
        (nn::Conv2dConfig{.channels = {{1, 4}}, .kernel_size = {{1, 1}}, .groups = 0}.init<B>()),
        "groups must be positive");
    const auto conv = nn::Conv2dConfig{.channels = {{5, 3}}, .kernel_size = {{3, 3}}}.init<B>();
    EXPECT_BURN_ERROR(conv.forward(Tensor<B, 4>::zeros({1, 4, 10, 10})),
                      "Conv2d::forward: expected an input with 5 channels ([batch, 5, ...]), got "
                      "shape [1, 4, 10, 10]");
}

TEST(NnConv2d, RecordRoundTrip) {
    const auto a = nn::Conv2dConfig{.channels = {{2, 3}}, .kernel_size = {{3, 3}}}.init<B>();
    auto b = nn::Conv2dConfig{.channels = {{2, 3}}, .kernel_size = {{3, 3}}}.init<B>();
    const record::BinBytesRecorder<record::FullPrecisionSettings> recorder;
    b = b.load_record(recorder.from_bytes(recorder.to_bytes(a.into_record())));
    EXPECT_TRUE(close_to(b.weight.val(), a.weight.val().to_data(), Tolerance{0, 0}));
    EXPECT_TRUE(close_to(b.bias->val(), a.bias->val().to_data(), Tolerance{0, 0}));
    auto other = nn::Conv2dConfig{.channels = {{2, 3}}, .kernel_size = {{3, 2}}}.init<B>();
    EXPECT_BURN_ERROR(other.load_record(a.into_record()), "weight: expected shape [3, 2, 3, 2]");
}

TEST(NnConv2d, ValidKeepsTheSettings) {
    const auto conv = nn::Conv2dConfig{.channels = {{2, 4}},
                                       .kernel_size = {{2, 2}},
                                       .stride = {1, 1},
                                       .dilation = {1, 1},
                                       .groups = 2,
                                       .padding = nn::PaddingConfig2d::Same{}}
                          .init<ADF>();
    const nn::Conv2d<B> inner = conv.valid();
    EXPECT_EQ(inner.padding, nn::PaddingConfig2d(nn::PaddingConfig2d::Same{}));
    EXPECT_EQ(inner.groups, 2u);
    EXPECT_EQ(inner.weight.id(), conv.weight.id());
    const auto x = uniform<4, B>({1, 2, 3, 5});
    EXPECT_TRUE(close_to(inner.forward(x),
                         conv.forward(Tensor<ADF, 4>::from_inner(x)).inner().to_data(),
                         Tolerance{0, 0}));
}

TEST(NnConv2d, GradientsAreBitwiseReproducible) {
    // The weight gradient sums partial products over the batch on several threads: the sum must
    // not depend on which thread finished first (seeded training runs give identical models).
    const auto conv = nn::Conv2dConfig{.channels = {{3, 8}}, .kernel_size = {{3, 3}}}.init<ADF>();
    const auto x = uniform<4, B>({32, 3, 20, 20}, -1, 1, 4);
    std::optional<TensorData> first_w, first_b;
    for (int run = 0; run < 6; ++run) {
        auto grads = conv.forward(Tensor<ADF, 4>::from_inner(x)).sum().backward();
        const auto gw = conv.weight.val().grad(grads)->to_data();
        const auto gb = conv.bias->val().grad(grads)->to_data();
        if (!first_w) {
            first_w = gw;
            first_b = gb;
            continue;
        }
        EXPECT_EQ(gw, *first_w) << "run " << run;
        EXPECT_EQ(gb, *first_b) << "run " << run;
    }
}

// ================================================================================== Conv3d
TEST(NnConv3d, MatchesTorch) {
    for (const char* name : {"conv3d", "conv3d_same"}) check_conv_case<nn::Conv3dConfig, 5>(name);
}

TEST(NnConv3d, ConfigInitAndDisplay) {
    const auto conv = nn::Conv3dConfig{.channels = {{2, 4}},
                                       .kernel_size = {{1, 3, 3}},
                                       .padding = nn::PaddingConfig3d::symmetric(0, 1, 1)}
                          .init<B>();
    EXPECT_EQ(conv.weight.shape(), Shape({4, 2, 1, 3, 3}));
    EXPECT_EQ(module::to_string(conv),
              "Conv3d {ch_in: 2, ch_out: 4, stride: [1, 1, 1], kernel_size: [1, 3, 3], dilation: "
              "[1, 1, 1], groups: 1, padding: Explicit(0, 1, 1, 0, 1, 1), params: 76}");
    EXPECT_EQ(conv.forward(Tensor<B, 5>::ones({1, 2, 3, 4, 5})).dims(),
              (std::array<std::size_t, 5>{1, 4, 3, 4, 5}));
    EXPECT_BURN_ERROR(
        (nn::Conv3dConfig{.channels = {{2, 4}}, .kernel_size = {{1, 0, 3}}}.init<B>()),
        "Conv3dConfig::init: kernel_size must be positive, got [1, 0, 3]");
    EXPECT_BURN_ERROR(conv.forward(Tensor<B, 5>::ones({1, 3, 3, 4, 5})), "Conv3d::forward");
}

// ========================================================================== ConvTranspose
TEST(NnConvTranspose, MatchesTorch) {
    check_conv_case<nn::ConvTranspose1dConfig, 3>("conv_transpose1d");
    check_conv_case<nn::ConvTranspose2dConfig, 4>("conv_transpose2d");
    check_conv_case<nn::ConvTranspose3dConfig, 5>("conv_transpose3d");
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnConvTranspose, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const nn::ConvTranspose1d<AD> conv{
        uniform<3>({4, 3, 3}, -1, 1, 8), uniform<1>({6}, -1, 1, 9), 2, 3, 1, 2, 1, 1};
    EXPECT_TRUE(
        gradcheck([&](const Tensor<AD, 3>& x) { return conv.forward(x); }, uniform<3>({2, 4, 3})));
}

TEST(NnConvTranspose, ConfigInitAndDisplay) {
    const auto t1 = nn::ConvTranspose1dConfig{.channels = {{5, 2}}, .kernel_size = 5}.init<B>();
    EXPECT_EQ(
        module::to_string(t1),
        "ConvTranspose1d {channels: [5, 2], stride: 1, kernel_size: 5, dilation: 1, groups: 1, "
        "padding: 0, padding_out: 0, params: 52}");
    const auto t2 =
        nn::ConvTranspose2dConfig{.channels = {{5, 2}}, .kernel_size = {{5, 5}}}.init<B>();
    EXPECT_EQ(module::to_string(t2),
              "ConvTranspose2d {channels: [5, 2], stride: [1, 1], kernel_size: [5, 5], dilation: "
              "[1, 1], groups: 1, padding: [0, 0], padding_out: [0, 0], params: 252}");
    // Weight [channels_in, channels_out / groups, k...]; fan_in = channels_out / groups * k.
    const auto g = nn::ConvTranspose2dConfig{
        .channels = {{4, 6}},
        .kernel_size = {{3, 3}},
        .stride = {2, 2},
        .groups = 2,
        .padding = {1, 1},
        .padding_out = {
            1, 1}}.init<B>();
    EXPECT_EQ(g.weight.shape(), Shape({4, 3, 3, 3}));
    EXPECT_EQ(g.channels_out(), 6u);
    EXPECT_LE(g.weight.val().abs().max().into_scalar(), 1.0 / std::sqrt(27.0));
    EXPECT_EQ(g.forward(Tensor<B, 4>::ones({1, 4, 5, 5})).dims(),
              (std::array<std::size_t, 4>{1, 6, 10, 10}));
    const auto t3 =
        nn::ConvTranspose3dConfig{
            .channels = {{2, 2}}, .kernel_size = {{2, 2, 2}}, .stride = {2, 2, 2}, .bias = false}
            .init<B>();
    EXPECT_EQ(t3.forward(Tensor<B, 5>::ones({1, 2, 2, 3, 4})).dims(),
              (std::array<std::size_t, 5>{1, 2, 4, 6, 8}));
    EXPECT_BURN_ERROR(
        (nn::ConvTranspose1dConfig{.channels = {{2, 2}}, .kernel_size = 3, .padding_out = 1}
             .init<B>()),
        "ConvTranspose1dConfig::init: padding_out [1] must be smaller than the stride");
    EXPECT_BURN_ERROR(
        (nn::ConvTranspose2dConfig{.channels = {{2, 3}}, .kernel_size = {{3, 3}}, .groups = 2}
             .init<B>()),
        "both channels must be divisible by groups = 2");
    EXPECT_BURN_ERROR(t1.forward(Tensor<B, 3>::ones({1, 4, 10})),
                      "ConvTranspose1d::forward: expected an input with 5 channels");
}

// ============================================================================ DeformConv2d
TEST(NnDeformConv2d, MatchesTorchvision) {
    {
        TorchCase c(kFile, "deform_conv2d");
        auto conv = config_of<nn::DeformConv2dConfig>(c).init<ADF>();
        const auto x = c.input<4>("x");
        const auto offset = c.input<4>("offset");
        const auto mask = c.input<4>("mask");
        conv.weight = c.param<4>("weight");
        conv.bias = c.param<1>("bias");
        c.check(conv.forward(x, offset, mask));
    }
    {
        TorchCase c(kFile, "deform_conv2d_same_no_mask");
        auto conv = config_of<nn::DeformConv2dConfig>(c).init<ADF>();
        ASSERT_FALSE(conv.bias.has_value());
        const auto x = c.input<4>("x");
        const auto offset = c.input<4>("offset");
        conv.weight = c.param<4>("weight");
        c.check(conv.forward(x, offset));
    }
}

TEST(NnDeformConv2d, ConfigInitAndErrors) {
    using C = nn::DeformConv2dConfig;
    const auto conv = C{.channels = {{5, 1}}, .kernel_size = {{5, 5}}}.init<B>();
    EXPECT_EQ(
        module::to_string(conv),
        "DeformConv2d {stride: [1, 1], kernel_size: [5, 5], dilation: [1, 1], weight_groups: 1, "
        "offset_groups: 1, padding: Valid, params: 126}");
    EXPECT_LE(conv.weight.val().abs().max().into_scalar(), 1.0 / 5.0);
    EXPECT_BURN_ERROR(
        (C{.channels = {{1, 4}}, .kernel_size = {{1, 1}}, .weight_groups = 4}.init<B>()),
        "both channels must be divisible by weight_groups = 4");
    EXPECT_BURN_ERROR(
        (C{.channels = {{3, 4}}, .kernel_size = {{1, 1}}, .offset_groups = 2}.init<B>()),
        "channels_in must be divisible by offset_groups");
    EXPECT_BURN_ERROR(
        (C{.channels = {{4, 4}}, .kernel_size = {{2, 2}}, .padding = nn::PaddingConfig2d::Same{}}
             .init<B>()),
        "Same padding with an even kernel size [2, 2] is not supported");
    EXPECT_BURN_ERROR(
        (C{.channels = {{4, 4}},
           .kernel_size = {{3, 3}},
           .padding = nn::PaddingConfig2d::Explicit{.top = 1, .left = 1, .bottom = 2, .right = 1}}
             .init<B>()),
        "asymmetric padding Explicit(1, 1, 2, 1) is not supported");
    // Same with stride 2 may need asymmetric padding for some sizes: refused at forward.
    const auto strided = C{.channels = {{2, 2}},
                           .kernel_size = {{3, 3}},
                           .stride = {2, 2},
                           .padding = nn::PaddingConfig2d::Same{}}
                             .init<B>();
    EXPECT_BURN_ERROR(
        strided.forward(Tensor<B, 4>::ones({1, 2, 6, 6}), Tensor<B, 4>::zeros({1, 18, 3, 3})),
        "DeformConv2d::forward: padding Same is asymmetric for input [1, 2, 6, 6]");
    EXPECT_EQ(strided.forward(Tensor<B, 4>::ones({1, 2, 5, 5}), Tensor<B, 4>::zeros({1, 18, 3, 3}))
                  .dims(),
              (std::array<std::size_t, 4>{1, 2, 3, 3}));
    EXPECT_BURN_ERROR(
        conv.forward(Tensor<B, 4>::zeros({1, 4, 10, 10}), Tensor<B, 4>::zeros({1, 50, 6, 6})),
        "DeformConv2d::forward: expected an input with 5 channels");
    EXPECT_BURN_ERROR(
        conv.forward(Tensor<B, 4>::zeros({1, 5, 10, 10}), Tensor<B, 4>::zeros({1, 50, 5, 5})),
        "deform_conv2d: offset of shape [1, 50, 5, 5] should be [1, 50, 6, 6]");
}

}  // namespace
}  // namespace burn::testing::nn_conv

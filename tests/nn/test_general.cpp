// SPDX-License-Identifier: MIT OR Apache-2.0
// nn::Embedding, the activation modules (Gelu, Relu, Sigmoid, Tanh, LeakyRelu, HardSigmoid,
// PRelu, SwiGlu) and nn::Interpolate1d / Interpolate2d: values and gradients against PyTorch
// (tests/fixtures/nn_general.json), finite differences, configs and their errors, displays.
#include <burn/nn/activation.hpp>
#include <burn/nn/embedding.hpp>
#include <burn/nn/interpolate.hpp>
#include <burn/record/recorder.hpp>
#include <cmath>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::nn_general {
namespace {

using B = TestFloatBackend;
constexpr std::string_view kFile = "nn_general";

static_assert(module::check_fields<nn::Embedding<B>>());
static_assert(module::check_fields<nn::Gelu>());
static_assert(module::check_fields<nn::Relu>());
static_assert(module::check_fields<nn::Sigmoid>());
static_assert(module::check_fields<nn::Tanh>());
static_assert(module::check_fields<nn::LeakyRelu>());
static_assert(module::check_fields<nn::HardSigmoid>());
static_assert(module::check_fields<nn::PRelu<B>>());
static_assert(module::check_fields<nn::SwiGlu<B>>());
static_assert(module::check_fields<nn::Interpolate1d>());
static_assert(module::check_fields<nn::Interpolate2d>());

const nlohmann::json& params_of(const TorchCase& c) {
    return fixture(c.file_, c.name_).at("params");
}

// =============================================================================== Embedding
TEST(NnEmbedding, MatchesTorch) {
    TorchCase c(std::string(kFile), "embedding");
    nn::Embedding<ADF> embed{c.param<2>("weight")};
    c.check(embed.forward(c.ints<2>("indices")));
}

TEST(NnEmbedding, ConfigInitDisplayAndErrors) {
    const auto config = nn::EmbeddingConfig{.n_embedding = 100, .d_model = 10};
    const auto embed = config.init<B>();
    EXPECT_EQ(embed.weight.shape(), Shape({100, 10}));
    EXPECT_EQ(module::to_string(embed), "Embedding {n_embedding: 100, d_model: 10, params: 1000}");
    // N(0, 1) by default, as Burn and PyTorch. Seeded: the bounds below are 4 standard errors, so
    // an unseeded draw (seeded from std::random_device) would fail about once in 20,000 runs.
    Cpu<double>::seed(2024);
    const auto w = nn::EmbeddingConfig{.n_embedding = 400, .d_model = 100}.init<Cpu<double>>();
    const double mean = w.weight.val().mean().into_scalar();
    const double var = ((w.weight.val() - mean) * (w.weight.val() - mean)).mean().into_scalar();
    EXPECT_NEAR(mean, 0.0, 0.02);
    EXPECT_NEAR(std::sqrt(var), 1.0, 0.02);
    const auto zeros =
        nn::EmbeddingConfig{.n_embedding = 5, .d_model = 5, .initializer = nn::Initializer::Zeros{}}
            .init<B>();
    EXPECT_EQ(zeros.weight.val().abs().sum().into_scalar(), 0.0f);
    EXPECT_EQ(nn::EmbeddingConfig::from_json_string(config.to_json_string()), config);
    EXPECT_NE(config.to_json_string().find("\"Normal\""), std::string::npos);

    EXPECT_BURN_ERROR((nn::EmbeddingConfig{.n_embedding = 0, .d_model = 3}.init<B>()),
                      "EmbeddingConfig::init: n_embedding and d_model must be positive");
    EXPECT_BURN_ERROR(embed.forward(Tensor<B, 2, Int>::from_ints({{1, 100}})),
                      "embedding: index 100 is out of range for 100 embeddings");
}

TEST(NnEmbedding, RecordRoundTrip) {
    const auto a = nn::EmbeddingConfig{.n_embedding = 6, .d_model = 3}.init<B>();
    const record::BinBytesRecorder<record::FullPrecisionSettings> recorder;
    const auto b = nn::EmbeddingConfig{.n_embedding = 6, .d_model = 3}.init<B>().load_record(
        recorder.from_bytes(recorder.to_bytes(a.into_record())));
    EXPECT_TRUE(close_to(b.weight.val(), a.weight.val().to_data(), Tolerance{0, 0}));
    EXPECT_EQ(b.weight.id(), a.weight.id());
}

// ============================================================================= activations
TEST(NnActivation, MatchTorch) {
    const auto run = [](const char* name, auto&& module) {
        TorchCase c(std::string(kFile), name);
        c.check(module.forward(c.input<2>("x")));
    };
    run("act_gelu", nn::Gelu{});
    run("act_relu", nn::Relu{});
    run("act_sigmoid", nn::Sigmoid{});
    run("act_tanh", nn::Tanh{});
    run("act_leaky_relu", nn::LeakyReluConfig{}.init());
    run("act_leaky_relu_02", nn::LeakyReluConfig{.negative_slope = 0.2}.init());
    run("act_hard_sigmoid", nn::HardSigmoidConfig{}.init());
    run("act_hard_sigmoid_torch", nn::HardSigmoidConfig{.alpha = 1.0 / 6.0}.init());
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnActivation, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    // Values away from the kinks of relu / leaky_relu / hard_sigmoid.
    const auto x = uniform<3>({2, 3, 4}, 0.1, 2.0, 21) *
                   Tensor<AD, 3>::from_data(uniform<3>({2, 3, 4}, -1, 1, 22).sign().to_data());
    const auto check = [&](auto&& module, const char* name) {
        EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& t) { return module.forward(t); },
                              Tensor<AD, 3>::from_data(x.to_data())))
            << name;
    };
    check(nn::Gelu{}, "gelu");
    check(nn::Relu{}, "relu");
    check(nn::Sigmoid{}, "sigmoid");
    check(nn::Tanh{}, "tanh");
    check(nn::LeakyRelu{0.1}, "leaky_relu");
    check(nn::HardSigmoid{}, "hard_sigmoid");
}

TEST(NnActivation, ConfigsAndDisplays) {
    EXPECT_EQ(module::to_string(nn::Gelu{}), "Gelu");
    EXPECT_EQ(module::to_string(nn::Relu{}), "Relu");
    EXPECT_EQ(module::to_string(nn::HardSigmoidConfig{}.init()),
              "HardSigmoid {alpha: 0.2, beta: 0.5}");
    EXPECT_EQ(module::to_string(nn::LeakyReluConfig{}.init()), "LeakyRelu {negative_slope: 0.01}");
    const auto hs = nn::HardSigmoidConfig{.alpha = 0.25, .beta = 0.4};
    EXPECT_EQ(nn::HardSigmoidConfig::from_json_string(hs.to_json_string()), hs);
    const auto lr = nn::LeakyReluConfig{.negative_slope = 0.3};
    EXPECT_EQ(nn::LeakyReluConfig::from_json_string(lr.to_json_string()), lr);
    // Burn's HardSigmoid value: hard_sigmoid(0.4410) with alpha 0.2, beta 0.5.
    EXPECT_NEAR(nn::HardSigmoid{}.forward(Tensor<B, 1>::from_floats({0.4410})).into_scalar(),
                0.5882, 1e-6);
}

// =================================================================================== PRelu
TEST(NnPRelu, MatchesTorch) {
    for (const char* name : {"prelu_shared", "prelu_channels"}) {
        TorchCase c(std::string(kFile), name);
        nn::PRelu<ADF> prelu{c.param<1>("alpha"), 0.25};
        c.check(prelu.forward(c.input<3>("x")));
    }
}

// A Param wraps a fresh leaf (its value is detached when the Param is made), so finite
// differences check the gradient of the input; the parameters' gradients are checked against
// PyTorch above.
// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnPRelu, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto x = uniform<3>({2, 3, 2}, 0.1, 2.0, 31) *
                   Tensor<AD, 3>::from_data(uniform<3>({2, 3, 2}, -1, 1, 32).sign().to_data());
    const nn::PRelu<AD> prelu{uniform<1>({3}, 0.0, 0.5, 33), 0.25};
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& t) { return prelu.forward(t); },
                          Tensor<AD, 3>::from_data(x.to_data())));
}

TEST(NnPRelu, ConfigInitDisplayAndErrors) {
    const auto prelu = nn::PReluConfig{}.init<B>();
    EXPECT_EQ(module::to_string(prelu), "PRelu {num_parameters: 1, alpha_value: 0.25, params: 1}");
    EXPECT_EQ(prelu.alpha.val().into_scalar(), 0.25f);
    const auto per_channel = nn::PReluConfig{.num_parameters = 3, .alpha = 0.1}.init<B>();
    EXPECT_TRUE(
        close_to(per_channel.alpha.val(), TensorData::full(Shape{3}, 0.1f), Tolerance{0, 0}));
    // The spelling is an alias.
    const nn::Prelu<B> alias = nn::PreluConfig{}.init<B>();
    EXPECT_EQ(alias.num_parameters(), 1u);
    const auto config = nn::PReluConfig{.num_parameters = 4, .alpha = 0.5};
    EXPECT_EQ(nn::PReluConfig::from_json_string(config.to_json_string()), config);
    EXPECT_BURN_ERROR(nn::PReluConfig{.num_parameters = 0}.init<B>(), "num_parameters");
    EXPECT_BURN_ERROR(per_channel.forward(Tensor<B, 3>::ones({2, 4, 3})),
                      "PRelu::forward: 3 parameters need an input with 3 channels (dim 1), got "
                      "shape [2, 4, 3]");
    EXPECT_BURN_ERROR(per_channel.forward(Tensor<B, 1>::ones({3})), "PRelu::forward");
}

// ================================================================================== SwiGlu
TEST(NnSwiGlu, MatchesTorch) {
    {
        TorchCase c(std::string(kFile), "swiglu_bias");
        nn::SwiGlu<ADF> swiglu{
            nn::Linear<ADF>{c.param<2>("inner_weight"), c.param<1>("inner_bias")},
            nn::Linear<ADF>{c.param<2>("outer_weight"), c.param<1>("outer_bias")}};
        c.check(swiglu.forward(c.input<3>("x")));
    }
    {
        TorchCase c(std::string(kFile), "swiglu_no_bias");
        nn::SwiGlu<ADF> swiglu{nn::Linear<ADF>{c.param<2>("inner_weight"), std::nullopt},
                               nn::Linear<ADF>{c.param<2>("outer_weight"), std::nullopt}};
        c.check(swiglu.forward(c.input<3>("x")));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnSwiGlu, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto swiglu = nn::SwiGluConfig{.d_input = 4, .d_output = 2, .bias = true}.init<AD>();
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& x) { return swiglu.forward(x); },
                          uniform<3>({2, 3, 4}, -2, 2)));
}

TEST(NnSwiGlu, ConfigInitDisplayAndErrors) {
    const auto swiglu = nn::SwiGluConfig{.d_input = 3, .d_output = 5}.init<B>();
    EXPECT_EQ(module::to_string(swiglu),
              "SwiGlu {d_input: 3, d_output: 5, bias: false, params: 30}");
    EXPECT_FALSE(swiglu.linear_outer.bias.has_value());
    // Burn's test: constant 0.5 weights, no bias.
    const auto constant = nn::SwiGluConfig{
        .d_input = 3,
        .d_output = 3,
        .initializer = nn::Initializer::Constant{
            .value = 0.5}}.init<B>();
    const auto y = constant.forward(Tensor<B, 2>::from_floats({{1, 2, 3}, {4, 5, 6}}));
    EXPECT_TRUE(close_to(y,
                         TensorData::from_nested<float, 2>(
                             {{8.5732f, 8.5732f, 8.5732f}, {56.2189f, 56.2189f, 56.2189f}}),
                         Tolerance{1e-4, 1e-4}));
    const auto with_bias = nn::SwiGluConfig{
        .d_input = 3,
        .d_output = 3,
        .bias = true,
        .initializer = nn::Initializer::Constant{
            .value = 0.5}}.init<B>();
    EXPECT_TRUE(close_to(with_bias.forward(Tensor<B, 2>::from_floats({{1, 2, 3}, {4, 5, 6}})),
                         TensorData::from_nested<float, 2>(
                             {{11.8909f, 11.8909f, 11.8909f}, {63.9785f, 63.9785f, 63.9785f}}),
                         Tolerance{1e-4, 1e-4}));
    // Record round trip: both linear layers, by field name.
    const auto a = nn::SwiGluConfig{.d_input = 3, .d_output = 5, .bias = true}.init<B>();
    const record::BinBytesRecorder<record::FullPrecisionSettings> recorder;
    const auto b =
        nn::SwiGluConfig{.d_input = 3, .d_output = 5, .bias = true}.init<B>().load_record(
            recorder.from_bytes(recorder.to_bytes(a.into_record())));
    EXPECT_TRUE(close_to(b.linear_outer.bias->val(), a.linear_outer.bias->val().to_data(),
                         Tolerance{0, 0}));
    EXPECT_EQ(b.linear_inner.weight.id(), a.linear_inner.weight.id());
    const auto config = nn::SwiGluConfig{.d_input = 2, .d_output = 7, .bias = true};
    EXPECT_EQ(nn::SwiGluConfig::from_json_string(config.to_json_string()), config);
    EXPECT_BURN_ERROR((nn::SwiGluConfig{.d_input = 0, .d_output = 2}.init<B>()), "d_input");
    EXPECT_BURN_ERROR(swiglu.forward(Tensor<B, 2>::ones({2, 4})),
                      "SwiGlu::forward: expected an input whose last dim is 3");
}

// ============================================================================= Interpolate
nn::InterpolateMode mode_of(const TorchCase& c) {
    const auto m = params_of(c).at("mode").get<std::string>();
    return m == "Nearest"  ? nn::InterpolateMode::Nearest
           : m == "Linear" ? nn::InterpolateMode::Linear
                           : nn::InterpolateMode::Cubic;
}

TEST(NnInterpolate1d, MatchesTorch) {
    for (const char* name :
         {"interp1d_nearest", "interp1d_nearest_down", "interp1d_linear_align_scale",
          "interp1d_linear", "interp1d_cubic_align", "interp1d_cubic_scale"}) {
        TorchCase c(std::string(kFile), name);
        const auto& p = params_of(c);
        nn::Interpolate1dConfig config{.mode = mode_of(c),
                                       .align_corners = p.at("align_corners").get<bool>()};
        if (p.contains("output_size")) config.output_size = p.at("output_size").get<std::size_t>();
        else config.scale_factor = p.at("scale_factor").get<double>();
        c.check(config.init().forward(c.input<3>("x")));
    }
}

TEST(NnInterpolate2d, MatchesTorch) {
    for (const char* name :
         {"interp2d_nearest_scale", "interp2d_linear_align", "interp2d_linear_down",
          "interp2d_cubic", "interp2d_cubic_align_scale"}) {
        TorchCase c(std::string(kFile), name);
        const auto& p = params_of(c);
        nn::Interpolate2dConfig config{.mode = mode_of(c),
                                       .align_corners = p.at("align_corners").get<bool>()};
        if (p.contains("output_size"))
            config.output_size = p.at("output_size").get<std::array<std::size_t, 2>>();
        else config.scale_factor = p.at("scale_factor").get<std::array<double, 2>>();
        c.check(config.init().forward(c.input<4>("x")));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnInterpolate, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    for (const auto mode : {nn::InterpolateMode::Linear, nn::InterpolateMode::Cubic}) {
        const auto up1 = nn::Interpolate1dConfig{.output_size = 7, .mode = mode}.init();
        EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& x) { return up1.forward(x); },
                              uniform<3>({1, 2, 4})));
        const auto up2 =
            nn::Interpolate2dConfig{
                .scale_factor = std::array{1.5, 2.0}, .mode = mode, .align_corners = false}
                .init();
        EXPECT_TRUE(gradcheck([&](const Tensor<AD, 4>& x) { return up2.forward(x); },
                              uniform<4>({1, 1, 3, 3})));
    }
}

TEST(NnInterpolate, ConfigsDisplaysAndErrors) {
    // Burn's output sizes: floor(size * scale).
    const auto x1 = Tensor<B, 3>::ones({2, 3, 4});
    EXPECT_EQ(nn::Interpolate1dConfig{.scale_factor = 0.5}.init().forward(x1).dims(),
              (std::array<std::size_t, 3>{2, 3, 2}));
    EXPECT_EQ(nn::Interpolate1dConfig{.scale_factor = 1.5}.init().forward(x1).dims(),
              (std::array<std::size_t, 3>{2, 3, 6}));
    const auto x2 = Tensor<B, 4>::ones({1, 1, 4, 4});
    const auto up = nn::Interpolate2dConfig{.scale_factor = std::array{2.0, 1.5}}.init();
    EXPECT_EQ(up.forward(x2).dims(), (std::array<std::size_t, 4>{1, 1, 8, 6}));
    EXPECT_EQ(module::to_string(nn::Interpolate1dConfig{.output_size = 20}.init()),
              "Interpolate1d {mode: Nearest, output_size: 20, scale_factor: None}");
    const auto fixed = nn::Interpolate2dConfig{.output_size = std::array<std::size_t, 2>{20, 20}};
    EXPECT_EQ(module::to_string(fixed.init()),
              "Interpolate2d {mode: Nearest, output_size: [20, 20], scale_factor: None}");

    const auto config = nn::Interpolate2dConfig{.scale_factor = std::array{2.0, 3.0},
                                                .mode = nn::InterpolateMode::Cubic,
                                                .align_corners = false};
    EXPECT_EQ(nn::Interpolate2dConfig::from_json_string(config.to_json_string()), config);
    EXPECT_NE(config.to_json_string().find("\"mode\": \"Cubic\""), std::string::npos);
    const auto config1 =
        nn::Interpolate1dConfig{.output_size = 3, .mode = nn::InterpolateMode::Linear};
    EXPECT_EQ(nn::Interpolate1dConfig::from_json_string(config1.to_json_string()), config1);

    EXPECT_BURN_ERROR(nn::Interpolate1dConfig{}.init(),
                      "Interpolate1dConfig::init: set exactly one of output_size and scale_factor, "
                      "got neither");
    EXPECT_BURN_ERROR((nn::Interpolate2dConfig{.output_size = std::array<std::size_t, 2>{2, 2},
                                               .scale_factor = std::array{2.0, 2.0}}
                           .init()),
                      "got both");
    EXPECT_BURN_ERROR(nn::Interpolate1dConfig{.output_size = 0}.init(),
                      "output_size must be positive");
    EXPECT_BURN_ERROR(nn::Interpolate1dConfig{.scale_factor = -1.0}.init(),
                      "scale_factor must be positive");
    EXPECT_BURN_ERROR(nn::Interpolate1dConfig{.scale_factor = 0.1}.init().forward(x1),
                      "Interpolate1d::forward: scale factor 0.1 gives an output size of 0");
    EXPECT_BURN_ERROR(
        (nn::Interpolate2dConfig{.scale_factor = std::array{1.0, 0.2}}.init().forward(x2)),
        "Interpolate2d::forward: scale factor 0.2");
}

}  // namespace
}  // namespace burn::testing::nn_general

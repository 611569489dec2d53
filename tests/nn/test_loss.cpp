// SPDX-License-Identifier: MIT OR Apache-2.0
// nn::CrossEntropyLoss, nn::BinaryCrossEntropyLoss, nn::MseLoss and nn::HuberLoss: values and
// gradients against PyTorch (tests/fixtures/nn_loss.json), finite differences, numerical
// stability, configs and their errors, displays.
#include <burn/nn/loss.hpp>
#include <cmath>
#include <limits>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::nn_loss {
namespace {

using B = TestFloatBackend;
constexpr std::string_view kFile = "nn_loss";

static_assert(module::check_fields<nn::CrossEntropyLoss<B>>());
static_assert(module::check_fields<nn::BinaryCrossEntropyLoss<B>>());
static_assert(module::check_fields<nn::MseLoss>());
static_assert(module::check_fields<nn::HuberLoss>());

nn::Reduction reduction_of(const TorchCase& c) {
    return c.param("reduction").get<std::string>() == "Sum" ? nn::Reduction::Sum
                                                            : nn::Reduction::Mean;
}

template <class T>
std::optional<T> optional_param(const TorchCase& c, const std::string& name) {
    const auto& p = fixture(c.file_, c.name_).at("params");
    if (!p.contains(name)) return std::nullopt;
    return p.at(name).get<T>();
}

// ========================================================================== CrossEntropyLoss
TEST(NnCrossEntropyLoss, MatchesTorch) {
    for (const char* name :
         {"ce_basic", "ce_weights", "ce_smoothing", "ce_pad", "ce_weights_smoothing_pad",
          "ce_sum_weights_smoothing_pad", "ce_probs", "ce_probs_weights_smoothing"}) {
        TorchCase c(std::string(kFile), name);
        nn::CrossEntropyLossConfig config{
            .weights = optional_param<std::vector<double>>(c, "weights"),
            .smoothing = optional_param<double>(c, "smoothing"),
            .logits = c.param("logits").get<bool>()};
        const auto pads = c.param("pad_tokens").get<std::vector<std::size_t>>();
        if (!pads.empty()) config.pad_tokens = pads;
        const auto loss = config.init<ADF>();
        c.check(loss.forward(c.input<2>("x"), c.ints<1>("targets"), reduction_of(c)));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnCrossEntropyLoss, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto targets = Tensor<AD, 1, Int>::from_ints({2, 0, 1, 3, 1});
    for (const bool logits : {true, false}) {
        const auto loss = nn::CrossEntropyLossConfig{.pad_tokens = std::vector<std::size_t>{3},
                                                     .weights = std::vector<double>{1, 2, 3, 4},
                                                     .smoothing = 0.15,
                                                     .logits = logits}
                              .init<AD>();
        EXPECT_TRUE(gradcheck([&](const Tensor<AD, 2>& x) { return loss.forward(x, targets); },
                              uniform<2>({5, 4}, logits ? -2.0 : 0.1, logits ? 2.0 : 1.0, 3)))
            << "logits " << logits;
    }
}

TEST(NnCrossEntropyLoss, StableForExtremeLogits) {
    const auto loss = nn::CrossEntropyLossConfig{}.init<B>();
    const auto logits = Tensor<B, 2>::from_floats({{1000.0, -1000.0, 0.0}, {-500.0, 500.0, 0.0}});
    const auto targets = Tensor<B, 1, Int>::from_ints({0, 2});
    // Row 0 is certain and right (0), row 1 is certain and wrong (500).
    EXPECT_NEAR(loss.forward(logits, targets).into_scalar(), 250.0, 1e-3);
    // Probabilities of exactly 0 stay finite (clamped away from 0 as Burn).
    const auto probs = nn::CrossEntropyLossConfig{.logits = false}.init<B>();
    const double v =
        probs.forward(Tensor<B, 2>::from_floats({{0.0, 1.0}}), Tensor<B, 1, Int>::from_ints({0}))
            .into_scalar();
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_NEAR(v, -std::log(std::sqrt(double(std::numeric_limits<float>::min()))), 1e-3);
}

TEST(NnCrossEntropyLoss, PadTokensOutsideTheClassesAndAllPadded) {
    // A pad token need not be a class (torch's ignore_index = -100 style): 7 with 3 classes.
    const auto logits = uniform<2, B>({4, 3}, -1, 1, 5);
    const auto padded =
        nn::CrossEntropyLossConfig{.pad_tokens = std::vector<std::size_t>{7}}.init<B>().forward(
            logits, Tensor<B, 1, Int>::from_ints({1, 7, 2, 7}));
    const auto kept = logits.select(0, Tensor<B, 1, Int>::from_ints({0, 2}));
    const auto plain =
        nn::CrossEntropyLossConfig{}.init<B>().forward(kept, Tensor<B, 1, Int>::from_ints({1, 2}));
    EXPECT_NEAR(padded.into_scalar(), plain.into_scalar(), 1e-6);
    // Every sample padded: 0 / 0 = NaN, as Burn and PyTorch.
    const auto all =
        nn::CrossEntropyLossConfig{.pad_tokens = std::vector<std::size_t>{7}}.init<B>().forward(
            logits, Tensor<B, 1, Int>::from_ints({7, 7, 7, 7}));
    EXPECT_TRUE(std::isnan(all.into_scalar()));
}

TEST(NnCrossEntropyLoss, ConfigAndErrors) {
    const auto config = nn::CrossEntropyLossConfig{.pad_tokens = std::vector<std::size_t>{0, 2},
                                                   .weights = std::vector<double>{1.0, 0.5, 2.0},
                                                   .smoothing = 0.1};
    EXPECT_EQ(nn::CrossEntropyLossConfig::from_json_string(config.to_json_string()), config);
    EXPECT_NE(config.to_json_string().find("\"pad_tokens\": [\n    0,\n    2\n  ]"),
              std::string::npos)
        << config.to_json_string();
    const auto loss = config.init<B>();
    EXPECT_EQ(module::to_string(loss),
              "CrossEntropyLoss {pad_tokens: [0, 2], weights: "
              "Tensor[shape=[3], dtype=f32], smoothing: 0.1, logits: "
              "true}");
    EXPECT_EQ(module::to_string(nn::CrossEntropyLossConfig{}.init<B>()),
              "CrossEntropyLoss {pad_tokens: None, weights: None, smoothing: None, logits: true}");
    // Constants only: nothing to save or train; the weights follow valid() and to_device().
    EXPECT_EQ(loss.num_params(), 0u);
    EXPECT_EQ(loss.into_record().field("weights"), nullptr);
    const auto on_ad = config.init<ADF>();
    const nn::CrossEntropyLoss<B> valid = on_ad.valid();
    ASSERT_TRUE(valid.weights.has_value());
    EXPECT_TRUE(close_to(*valid.weights, TensorData::from({1.0f, 0.5f, 2.0f}), Tolerance{0, 0}));
    EXPECT_EQ(valid.pad_tokens, config.pad_tokens);
    EXPECT_EQ(valid.smoothing, config.smoothing);

    EXPECT_BURN_ERROR(nn::CrossEntropyLossConfig{.smoothing = 1.5}.init<B>(),
                      "CrossEntropyLossConfig::init: smoothing must be in [0, 1], got 1.5");
    EXPECT_BURN_ERROR(
        (nn::CrossEntropyLossConfig{.weights = std::vector<double>{1.0, 0.0}}.init<B>()),
        "weights must be positive, got 0 at index 1");
    const auto logits = Tensor<B, 2>::zeros({2, 3});
    EXPECT_BURN_ERROR(loss.forward(logits, Tensor<B, 1, Int>::from_ints({0, 1, 1})),
                      "CrossEntropyLoss::forward: targets [3]");
    EXPECT_BURN_ERROR(
        loss.forward(Tensor<B, 2>::zeros({2, 4}), Tensor<B, 1, Int>::from_ints({0, 1})),
        "3 class weights for logits [2, 4]");
    // A host-memory backend refuses an out-of-range target in forward; elsewhere the gather
    // reports it at the next read (no wait in forward).
    const bool at_once = burn::capabilities<B>.host_memory;
    EXPECT_BURN_ERROR((void)nn::CrossEntropyLossConfig{}
                          .init<B>()
                          .forward(logits, Tensor<B, 1, Int>::from_ints({0, 3}))
                          .into_scalar(),
                      at_once ? "target 3 is out of range for 3 classes" : "gather");
    EXPECT_BURN_ERROR((void)nn::CrossEntropyLossConfig{}
                          .init<B>()
                          .forward(logits, Tensor<B, 1, Int>::from_ints({-1, 0}))
                          .into_scalar(),
                      at_once ? "target -1 is out of range" : "gather");
}

// ==================================================================== BinaryCrossEntropyLoss
TEST(NnBinaryCrossEntropyLoss, MatchesTorch) {
    for (const char* name :
         {"bce_probs_1d", "bce_probs_1d_weights", "bce_logits_1d_smoothing",
          "bce_logits_2d_weights_smoothing", "bce_probs_2d_sum", "bce_logits_large"}) {
        TorchCase c(std::string(kFile), name);
        const auto loss =
            nn::BinaryCrossEntropyLossConfig{
                .weights = optional_param<std::vector<double>>(c, "weights"),
                .smoothing = optional_param<double>(c, "smoothing"),
                .logits = c.param("logits").get<bool>()}
                .init<ADF>();
        const auto rank = fixture(c.file_, c.name_).at("inputs").at("x").at("shape").size();
        if (rank == 1)
            c.check(loss.forward(c.input<1>("x"), c.ints<1>("targets"), reduction_of(c)));
        else c.check(loss.forward(c.input<2>("x"), c.ints<2>("targets"), reduction_of(c)));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnBinaryCrossEntropyLoss, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto targets = Tensor<AD, 2, Int>::from_ints({{1, 0, 1}, {0, 0, 1}});
    for (const bool logits : {true, false}) {
        const auto loss =
            nn::BinaryCrossEntropyLossConfig{
                .weights = std::vector<double>{1, 2, 3}, .smoothing = 0.1, .logits = logits}
                .init<AD>();
        EXPECT_TRUE(gradcheck([&](const Tensor<AD, 2>& x) { return loss.forward(x, targets); },
                              uniform<2>({2, 3}, logits ? -3.0 : 0.1, logits ? 3.0 : 0.9, 4)))
            << "logits " << logits;
    }
}

TEST(NnBinaryCrossEntropyLoss, ProbabilitiesClampTheLog) {
    // log(0) is clamped at -100, as torch.nn.BCELoss (and Burn).
    const auto loss = nn::BinaryCrossEntropyLossConfig{}.init<B>();
    EXPECT_NEAR(loss.forward(Tensor<B, 1>::from_floats({0.0, 1.0, 0.0, 1.0}),
                             Tensor<B, 1, Int>::from_ints({1, 0, 1, 0}))
                    .into_scalar(),
                100.0, 1e-4);
    EXPECT_NEAR(
        loss.forward(Tensor<B, 1>::from_floats({1.0, 0.0}), Tensor<B, 1, Int>::from_ints({1, 0}))
            .into_scalar(),
        0.0, 1e-6);
}

TEST(NnBinaryCrossEntropyLoss, ConfigAndErrors) {
    const auto config = nn::BinaryCrossEntropyLossConfig{.weights = std::vector<double>{3, 7, 0.9}};
    EXPECT_EQ(nn::BinaryCrossEntropyLossConfig::from_json_string(config.to_json_string()), config);
    const auto loss = config.init<B>();
    EXPECT_EQ(module::to_string(loss),
              "BinaryCrossEntropyLoss {weights: Tensor[shape=[3], "
              "dtype=f32], smoothing: None, logits: false}");
    EXPECT_BURN_ERROR(loss.forward(Tensor<B, 2>::zeros({2, 2}), Tensor<B, 2, Int>::zeros({2, 2})),
                      "3 class weights for input [2, 2] with 2 classes");
    EXPECT_BURN_ERROR(loss.forward(Tensor<B, 2>::zeros({2, 3}), Tensor<B, 2, Int>::zeros({3, 2})),
                      "BinaryCrossEntropyLoss::forward: input [2, 3] and targets [3, 2]");
    EXPECT_BURN_ERROR(nn::BinaryCrossEntropyLossConfig{.smoothing = -0.1}.init<B>(),
                      "BinaryCrossEntropyLossConfig::init: smoothing");
    EXPECT_BURN_ERROR(
        nn::BinaryCrossEntropyLossConfig{.weights = std::vector<double>{-1}}.init<B>(),
        "weights must be positive");
    // Binary inputs look the weight up by target value: 2 weights, target 2 has none.
    EXPECT_BURN_ERROR(
        (void)(nn::BinaryCrossEntropyLossConfig{.weights = std::vector<double>{1, 2}}
                   .init<B>()
                   .forward(Tensor<B, 1>::full({2}, 0.5), Tensor<B, 1, Int>::from_ints({0, 2}))
                   .sum()
                   .into_scalar()),
        burn::capabilities<B>.host_memory ? "target 2 has no weight among 2" : "select");
}

// ============================================================================ MSE and Huber
TEST(NnMseLoss, MatchesTorch) {
    {
        TorchCase c(std::string(kFile), "mse_mean");
        c.check(nn::MseLoss{}.forward(c.input<2>("x"), c.input<2>("t"), reduction_of(c)));
    }
    {
        TorchCase c(std::string(kFile), "mse_sum");
        c.check(nn::MseLoss{}.forward(c.input<3>("x"), c.input<3>("t"), reduction_of(c)));
    }
}

TEST(NnMseLoss, ReductionsAndErrors) {
    const auto x = Tensor<B, 2>::from_floats({{1.0, 2.0}, {3.0, 4.0}});
    const auto t = Tensor<B, 2>::from_floats({{2.0, 1.0}, {3.0, 2.0}});
    const nn::MseLoss mse;
    EXPECT_TRUE(close_to(mse.forward_no_reduction(x, t),
                         TensorData::from_nested<float, 2>({{1.0f, 1.0f}, {0.0f, 4.0f}}),
                         Tolerance{0, 0}));
    EXPECT_EQ(mse.forward(x, t, nn::Reduction::Auto).into_scalar(), 1.5f);
    EXPECT_EQ(mse.forward(x, t).into_scalar(), 1.5f);
    EXPECT_EQ(mse.forward(x, t, nn::Reduction::Sum).into_scalar(), 6.0f);
    EXPECT_EQ(module::to_string(mse), "MseLoss");
    EXPECT_BURN_ERROR(mse.forward(x, Tensor<B, 2>::zeros({2, 3})), "MseLoss::forward");
    if (capabilities<TestFloatBackend>.float64) {  // f64 finite differences
        EXPECT_TRUE(gradcheck(
            [&](const Tensor<AD, 3>& a, const Tensor<AD, 3>& b) { return mse.forward(a, b); },
            uniform<3>({2, 2, 3}), uniform<3>({2, 2, 3}, -1, 1, 11)));
    }
}

TEST(NnHuberLoss, MatchesTorch) {
    {
        TorchCase c(std::string(kFile), "huber_mean");
        const auto huber = nn::HuberLossConfig{.delta = c.param("delta").get<double>()}.init();
        c.check(huber.forward(c.input<2>("x"), c.input<2>("t"), reduction_of(c)));
    }
    {
        TorchCase c(std::string(kFile), "huber_sum");
        const auto huber = nn::HuberLossConfig{.delta = c.param("delta").get<double>()}.init();
        c.check(huber.forward(c.input<3>("x"), c.input<3>("t"), reduction_of(c)));
    }
}

TEST(NnHuberLoss, BurnValuesConfigAndErrors) {
    // Burn's own test values.
    const auto huber = nn::HuberLossConfig{.delta = 0.5}.init();
    const auto x = Tensor<B, 1>::from_floats({-2.0, -0.5, 0.0, 0.3, 1.0});
    const auto t = Tensor<B, 1>::zeros({5});
    EXPECT_TRUE(close_to(huber.forward_no_reduction(x, t),
                         TensorData::from({0.875f, 0.125f, 0.0f, 0.045f, 0.375f}),
                         Tolerance{1e-6, 1e-6}));
    EXPECT_NEAR(huber.forward(x, t, nn::Reduction::Auto).into_scalar(), 0.284, 1e-6);
    EXPECT_NEAR(huber.forward(x, t, nn::Reduction::Sum).into_scalar(), 1.42, 1e-6);
    EXPECT_EQ(module::to_string(huber), "HuberLoss {delta: 0.5, lin_bias: 0.125}");
    if (capabilities<TestFloatBackend>.float64) {  // f64 finite differences
        EXPECT_TRUE(gradcheck(
            [&](const Tensor<AD, 2>& a) {
                return huber.forward(a, Tensor<AD, 2>::zeros({3, 4}), nn::Reduction::Sum);
            },
            uniform<2>({3, 4}, -2, 2, 12)));
    }
    const auto config = nn::HuberLossConfig{.delta = 2.0};
    EXPECT_EQ(nn::HuberLossConfig::from_json_string(config.to_json_string()), config);
    EXPECT_BURN_ERROR(nn::HuberLossConfig{.delta = -1.0}.init(),
                      "HuberLossConfig::init: delta must be non-negative, got -1");
    EXPECT_BURN_ERROR(huber.forward(x, Tensor<B, 1>::zeros({4})), "HuberLoss::forward");
}

TEST(NnReduction, SavedByName) {
    EXPECT_EQ(config::enum_name(nn::Reduction::Sum), "Sum");
    EXPECT_EQ(config::enum_name(nn::Reduction::Auto), "Auto");
}

}  // namespace
}  // namespace burn::testing::nn_loss

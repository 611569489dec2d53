// SPDX-License-Identifier: MIT OR Apache-2.0
// nn::BatchNorm, nn::GroupNorm, nn::InstanceNorm and nn::RmsNorm: forward values, gradients and
// running statistics against PyTorch (tests/fixtures/nn_norm.json), finite differences, configs,
// records, display and errors.
#include <burn/nn/batch_norm.hpp>
#include <burn/nn/group_norm.hpp>
#include <burn/nn/instance_norm.hpp>
#include <burn/nn/rms_norm.hpp>
#include <burn/record/recorder.hpp>
#include <string>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::nn_norm {
namespace {

using B = TestFloatBackend;
constexpr std::string_view kFile = "nn_norm";

static_assert(module::check_fields<nn::BatchNorm<B>>());
static_assert(module::check_fields<nn::GroupNorm<B>>());
static_assert(module::check_fields<nn::InstanceNorm<B>>());
static_assert(module::check_fields<nn::RmsNorm<B>>());

const nlohmann::json& case_params(const std::string& name) {
    return fixture(kFile, name).at("params");
}

// ================================================================================= BatchNorm
/// A BatchNorm<ADF> holding the case's gamma and beta (tracked leaves) and running statistics.
nn::BatchNorm<ADF> batch_norm_of(TorchCase& c, const std::string& name) {
    const auto& p = case_params(name);
    return nn::BatchNorm<ADF>{
        c.param<1>("gamma"),
        c.param<1>("beta"),
        module::RunningState<Tensor<ADF, 1>>(fixture_input<ADF, 1>(kFile, name, "running_mean")),
        module::RunningState<Tensor<ADF, 1>>(fixture_input<ADF, 1>(kFile, name, "running_var")),
        p.at("momentum").get<double>(),
        p.at("epsilon").get<double>()};
}

/// train(): batch statistics, gradients, and the running statistics after the step.
template <std::size_t D>
void check_batch_norm_train(const std::string& name) {
    SCOPED_TRACE(name);
    TorchCase c(std::string(kFile), name);
    const auto norm = batch_norm_of(c, name);
    c.check(norm.forward(c.input<D>("x")));  // ADF: the training path
    EXPECT_TRUE(close_to(norm.running_mean.value(), fixture_output(kFile, name, "running_mean"),
                         kTorchTol));
    EXPECT_TRUE(
        close_to(norm.running_var.value(), fixture_output(kFile, name, "running_var"), kTorchTol));
    EXPECT_FALSE(norm.running_mean.value().is_require_grad());
}

/// eval(): the running statistics, on the autodiff backend (forward_inference, with gradients)
/// and on the plain one (valid(), whose forward is inference).
template <std::size_t D>
void check_batch_norm_eval(const std::string& name) {
    SCOPED_TRACE(name);
    TorchCase c(std::string(kFile), name);
    const auto norm = batch_norm_of(c, name);
    const auto x = c.input<D>("x");
    c.check(norm.forward_inference(x));
    const auto plain = norm.valid();
    EXPECT_TRUE(close_to(plain.forward(x.inner()), fixture_output(kFile, name, "y"), kTorchTol));
    // Inference leaves the running statistics as they were.
    EXPECT_TRUE(close_to(plain.running_mean.value(),
                         fixture_input<B, 1>(kFile, name, "running_mean").to_data(),
                         Tolerance{0, 0}));
    EXPECT_TRUE(close_to(norm.running_var.value(),
                         fixture_input<B, 1>(kFile, name, "running_var").to_data(),
                         Tolerance{0, 0}));
}

TEST(NnBatchNorm, TrainMatchesTorch) {
    check_batch_norm_train<2>("batch_norm_2d_train");
    check_batch_norm_train<3>("batch_norm_3d_train");
    check_batch_norm_train<4>("batch_norm_4d_train");
    check_batch_norm_train<5>("batch_norm_5d_train");
}

TEST(NnBatchNorm, EvalMatchesTorch) {
    check_batch_norm_eval<2>("batch_norm_2d_eval");
    check_batch_norm_eval<3>("batch_norm_3d_eval");
    check_batch_norm_eval<4>("batch_norm_4d_eval");
    check_batch_norm_eval<5>("batch_norm_5d_eval");
}

// A Param made from a tensor is a fresh leaf (Param detaches its value), so finite differences
// check the input's gradient; gamma's and beta's are checked against PyTorch above.
// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnBatchNorm, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto bn =
        nn::BatchNorm<AD>{uniform<1>({3}, 0.5, 1.5, 3),
                          uniform<1>({3}, -1, 1, 4),
                          module::RunningState<Tensor<AD, 1>>(Tensor<AD, 1>::zeros({3})),
                          module::RunningState<Tensor<AD, 1>>(Tensor<AD, 1>::ones({3})),
                          0.1,
                          1e-5};
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 4>& x) { return bn.forward(x); },
                          uniform<4>({2, 3, 2, 3}, -2, 2)));
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 2>& x) { return bn.forward(x); },
                          uniform<2>({5, 3}, -2, 2, 5)));
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 4>& x) { return bn.forward_inference(x); },
                          uniform<4>({2, 3, 2, 2}, -2, 2, 6)));
}

TEST(NnBatchNorm, ConfigInitAndRunningStats) {
    const auto config = nn::BatchNormConfig{.num_features = 3};
    EXPECT_EQ(config.epsilon, 1e-5);
    EXPECT_EQ(config.momentum, 0.1);
    const auto norm = config.init<ADF>();
    EXPECT_TRUE(close_to(norm.gamma.val(), TensorData::full(Shape{3}, 1.0f), Tolerance{0, 0}));
    EXPECT_TRUE(close_to(norm.beta.val(), TensorData::full(Shape{3}, 0.0f), Tolerance{0, 0}));
    EXPECT_TRUE(
        close_to(norm.running_mean.value(), TensorData::full(Shape{3}, 0.0f), Tolerance{0, 0}));
    EXPECT_TRUE(
        close_to(norm.running_var.value(), TensorData::full(Shape{3}, 1.0f), Tolerance{0, 0}));
    EXPECT_EQ(norm.num_params(), 6u);
    EXPECT_EQ(module::to_string(norm),
              "BatchNorm {num_features: 3, momentum: 0.1, epsilon: 1e-05, "
              "params: 6}");

    // Channel c holds the values c + {0, 1, 2, 3}: batch mean c + 1.5, unbiased variance 5/3.
    const auto in = Tensor<ADF, 3>::from_data(
        TensorData(std::vector<float>{0, 1, 1, 2, 2, 3, 2, 3, 3, 4, 4, 5}, Shape{2, 3, 2}));
    const auto y = norm.forward(in);
    // Normalised per channel: mean 0, biased variance 1 (up to epsilon).
    const auto flat = y.swap_dims(0, 1).reshape<2>({3, -1});
    EXPECT_TRUE(close_to(flat.mean_dim(1), TensorData::zeros(Shape{3, 1}, DType::F32),
                         Tolerance{1e-5, 1e-5}));
    EXPECT_TRUE(close_to((flat * flat).mean_dim(1), TensorData::full(Shape{3, 1}, 1.0f),
                         Tolerance{1e-4, 1e-4}));
    // Channel means 1.5, 2.5, 3.5; unbiased variances 5/3 each.
    EXPECT_TRUE(close_to(norm.running_mean.value(),
                         TensorData(std::vector<float>{0.15f, 0.25f, 0.35f}, Shape{3}),
                         Tolerance{1e-6, 1e-6}));
    const float v = 0.9f + 0.1f * 5.0f / 3.0f;
    EXPECT_TRUE(close_to(norm.running_var.value(),
                         TensorData(std::vector<float>{v, v, v}, Shape{3}), Tolerance{1e-6, 1e-6}));

    // valid() takes the running statistics along; copies share them (as Burn's RunningState).
    const auto copy = norm;
    const auto plain = norm.valid();
    EXPECT_TRUE(close_to(plain.running_mean.value(), norm.running_mean.value().inner().to_data(),
                         Tolerance{0, 0}));
    norm.forward(in);  // a second step: running = 0.9 * running + 0.1 * batch
    EXPECT_NEAR(copy.running_mean.value().to_data().to_vec<float>()[0], 0.9 * 0.15 + 0.15, 1e-6);
    EXPECT_NEAR(plain.running_mean.value().to_data().to_vec<float>()[0], 0.15, 1e-6);
    // Inference with the running statistics: (x - 0.15) / sqrt(v + eps) on channel 0.
    const auto inf = plain.forward(in.inner()).to_data().to_vec<float>();
    EXPECT_NEAR(inf[0], (0.0 - 0.15) / std::sqrt(v + 1e-5), 1e-5);
}

TEST(NnBatchNorm, ConfigJsonAndErrors) {
    const auto config = nn::BatchNormConfig{.num_features = 8, .momentum = 0.01};
    EXPECT_EQ(nn::BatchNormConfig::from_json_string(config.to_json_string()), config);
    EXPECT_NE(config.to_json_string().find("\"momentum\": 0.01"), std::string::npos);
    EXPECT_BURN_ERROR(nn::BatchNormConfig{.num_features = 0}.init<B>(), "num_features");
    EXPECT_BURN_ERROR((nn::BatchNormConfig{.num_features = 2, .momentum = 1.5}.init<B>()),
                      "momentum must be in [0, 1], got 1.5");
    EXPECT_BURN_ERROR((nn::BatchNormConfig{.num_features = 2, .epsilon = 0.0}.init<B>()),
                      "epsilon");
    const auto norm = nn::BatchNormConfig{.num_features = 3}.init<ADF>();
    EXPECT_BURN_ERROR(norm.forward(Tensor<ADF, 4>::ones({2, 4, 2, 2})),
                      "BatchNorm::forward: expected an input [batch, 3, ...], got shape "
                      "[2, 4, 2, 2]");
    EXPECT_BURN_ERROR(norm.valid().forward(Tensor<B, 2>::ones({2, 4})), "BatchNorm::forward");
    // PyTorch refuses to train on a single value per channel (no variance).
    EXPECT_BURN_ERROR(norm.forward(Tensor<ADF, 2>::ones({1, 3})),
                      "more than one value per channel");
    EXPECT_NO_THROW(norm.valid().forward(Tensor<B, 2>::ones({1, 3})));
}

TEST(NnBatchNorm, RecordKeepsRunningStats) {
    const auto a = nn::BatchNormConfig{.num_features = 3}.init<ADF>();
    a.forward(uniform<3, ADF>({4, 3, 5}, -2, 2));
    auto b = nn::BatchNormConfig{.num_features = 3}.init<B>();
    const record::BinBytesRecorder<record::FullPrecisionSettings> recorder;
    b = b.load_record(recorder.from_bytes(recorder.to_bytes(a.valid().into_record())));
    EXPECT_TRUE(close_to(b.running_mean.value(), a.running_mean.value().inner().to_data(),
                         Tolerance{0, 0}));
    EXPECT_TRUE(
        close_to(b.running_var.value(), a.running_var.value().inner().to_data(), Tolerance{0, 0}));
    EXPECT_EQ(b.running_var.id(), a.running_var.id());
    std::vector<std::string> paths;
    module::for_each_leaf(b, "", [&](std::string_view p, const auto&) { paths.emplace_back(p); });
    EXPECT_EQ(paths, (std::vector<std::string>{"gamma", "beta", "running_mean", "running_var"}));
}

// ================================================================================= GroupNorm
template <std::size_t D>
void check_group_norm(const std::string& name) {
    SCOPED_TRACE(name);
    TorchCase c(std::string(kFile), name);
    const auto& p = case_params(name);
    const bool affine = p.at("affine").get<bool>();
    const auto x = c.input<D>("x");
    nn::GroupNorm<ADF> norm{std::nullopt,
                            std::nullopt,
                            p.at("num_groups").get<std::size_t>(),
                            x.dims()[1],
                            p.at("epsilon").get<double>(),
                            affine};
    if (affine) {
        norm.gamma = c.param<1>("gamma");
        norm.beta = c.param<1>("beta");
    }
    c.check(norm.forward(x));
}

TEST(NnGroupNorm, MatchesTorch) {
    check_group_norm<3>("group_norm_3d");
    check_group_norm<4>("group_norm_4d");
    check_group_norm<2>("group_norm_2d");
    check_group_norm<5>("group_norm_5d_no_affine");
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnGroupNorm, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto norm = nn::GroupNorm<AD>{
        uniform<1>({4}, 0.5, 1.5, 3), uniform<1>({4}, -1, 1, 4), 2, 4, 1e-5, true};
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& x) { return norm.forward(x); },
                          uniform<3>({2, 4, 3}, -2, 2)));
}

TEST(NnGroupNorm, ConfigInitDisplayAndErrors) {
    const auto norm = nn::GroupNormConfig{.num_groups = 3, .num_channels = 6}.init<B>();
    ASSERT_TRUE(norm.gamma && norm.beta);
    EXPECT_TRUE(close_to(norm.gamma->val(), TensorData::full(Shape{6}, 1.0f), Tolerance{0, 0}));
    EXPECT_TRUE(close_to(norm.beta->val(), TensorData::full(Shape{6}, 0.0f), Tolerance{0, 0}));
    EXPECT_EQ(module::to_string(norm),
              "GroupNorm {num_groups: 3, num_channels: 6, epsilon: 1e-05, affine: true, "
              "params: 12}");
    const auto plain =
        nn::GroupNormConfig{.num_groups = 2, .num_channels = 4, .affine = false}.init<B>();
    EXPECT_FALSE(plain.gamma || plain.beta);
    EXPECT_EQ(module::to_string(plain),
              "GroupNorm {num_groups: 2, num_channels: 4, epsilon: 1e-05, affine: false}");
    // Each group of each sample: mean 0, biased variance 1.
    const auto y = plain.forward(uniform<4, B>({2, 4, 3, 3}, -5, 5)).reshape<3>({2, 2, -1});
    EXPECT_TRUE(close_to(y.mean_dim(2), TensorData::zeros(Shape{2, 2, 1}, DType::F32),
                         Tolerance{1e-5, 1e-5}));
    EXPECT_TRUE(close_to((y * y).mean_dim(2), TensorData::full(Shape{2, 2, 1}, 1.0f),
                         Tolerance{1e-3, 1e-3}));

    const auto config = nn::GroupNormConfig{.num_groups = 4, .num_channels = 8, .affine = false};
    EXPECT_EQ(nn::GroupNormConfig::from_json_string(config.to_json_string()), config);
    EXPECT_BURN_ERROR((nn::GroupNormConfig{.num_groups = 4, .num_channels = 6}.init<B>()),
                      "num_channels (6) must be divisible by num_groups (4)");
    EXPECT_BURN_ERROR((nn::GroupNormConfig{.num_groups = 0, .num_channels = 6}.init<B>()),
                      "num_groups must be positive");
    EXPECT_BURN_ERROR(norm.forward(Tensor<B, 3>::ones({2, 4, 3})),
                      "GroupNorm::forward: expected an input [batch, 6, ...], got shape [2, 4, 3]");
}

// ============================================================================== InstanceNorm
template <std::size_t D>
void check_instance_norm(const std::string& name) {
    SCOPED_TRACE(name);
    TorchCase c(std::string(kFile), name);
    const auto& p = case_params(name);
    const bool affine = p.at("affine").get<bool>();
    const auto x = c.input<D>("x");
    nn::InstanceNorm<ADF> norm{std::nullopt, std::nullopt, x.dims()[1],
                               p.at("epsilon").get<double>(), affine};
    if (affine) {
        norm.gamma = c.param<1>("gamma");
        norm.beta = c.param<1>("beta");
    }
    c.check(norm.forward(x));
}

TEST(NnInstanceNorm, MatchesTorch) {
    check_instance_norm<3>("instance_norm_3d");
    check_instance_norm<4>("instance_norm_4d");
    check_instance_norm<5>("instance_norm_5d_no_affine");
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnInstanceNorm, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto norm = nn::InstanceNorm<AD>{uniform<1>({3}, 0.5, 1.5, 3), uniform<1>({3}, -1, 1, 4),
                                           3, 1e-5, true};
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 4>& x) { return norm.forward(x); },
                          uniform<4>({2, 3, 2, 3}, -2, 2)));
}

TEST(NnInstanceNorm, ConfigInitDisplayAndErrors) {
    const auto norm = nn::InstanceNormConfig{.num_channels = 6}.init<B>();
    ASSERT_TRUE(norm.gamma && norm.beta);
    EXPECT_EQ(module::to_string(norm),
              "InstanceNorm {num_channels: 6, epsilon: 1e-05, affine: true, params: 12}");
    EXPECT_FALSE((nn::InstanceNormConfig{.num_channels = 6, .affine = false}.init<B>().gamma));
    const auto config = nn::InstanceNormConfig{.num_channels = 6, .epsilon = 1e-3};
    EXPECT_EQ(nn::InstanceNormConfig::from_json_string(config.to_json_string()), config);
    EXPECT_BURN_ERROR(nn::InstanceNormConfig{.num_channels = 0}.init<B>(), "num_channels");
    EXPECT_BURN_ERROR(norm.forward(Tensor<B, 3>::ones({2, 3, 4})),
                      "InstanceNorm::forward: expected an input [batch, 6, ...]");
}

// =================================================================================== RmsNorm
TEST(NnRmsNorm, MatchesTorch) {
    {
        TorchCase c(std::string(kFile), "rms_norm_2d");
        nn::RmsNorm<ADF> norm{c.param<1>("gamma"), 1e-5};
        c.check(norm.forward(c.input<2>("x")));
    }
    {
        TorchCase c(std::string(kFile), "rms_norm_3d");
        nn::RmsNorm<ADF> norm{c.param<1>("gamma"), 1e-3};
        c.check(norm.forward(c.input<3>("x")));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnRmsNorm, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto norm = nn::RmsNorm<AD>{uniform<1>({5}, 0.5, 1.5, 3), 1e-5};
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& x) { return norm.forward(x); },
                          uniform<3>({2, 3, 5}, -2, 2)));
}

TEST(NnRmsNorm, ConfigInitDisplayAndErrors) {
    const auto norm = nn::RmsNormConfig{.d_model = 3}.init<B>();
    EXPECT_EQ(module::to_string(norm), "RmsNorm {d_model: 3, epsilon: 1e-05, params: 3}");
    // Burn's own test: arange(9) as [3, 3].
    const auto y = norm.forward(Tensor<B, 1, Int>::arange(0, 9).into_float().reshape<2>({3, 3}));
    EXPECT_TRUE(close_to(y,
                         TensorData(std::vector<float>{0.0f, 0.7746f, 1.5492f, 0.7348f, 0.9798f,
                                                       1.2247f, 0.8514f, 0.9933f, 1.1352f},
                                    Shape{3, 3}),
                         Tolerance{1e-4, 1e-4}));
    const auto config = nn::RmsNormConfig{.d_model = 16, .epsilon = 1e-6};
    EXPECT_EQ(nn::RmsNormConfig::from_json_string(config.to_json_string()), config);
    EXPECT_BURN_ERROR(nn::RmsNormConfig{.d_model = 0}.init<B>(), "d_model");
    EXPECT_BURN_ERROR((nn::RmsNormConfig{.d_model = 2, .epsilon = 0.0}.init<B>()), "epsilon");
    EXPECT_BURN_ERROR(norm.forward(Tensor<B, 2>::ones({2, 4})),
                      "RmsNorm::forward: expected an input whose last dim is 3, got shape [2, 4]");
}

}  // namespace
}  // namespace burn::testing::nn_norm

// SPDX-License-Identifier: MIT OR Apache-2.0
// nn::Linear, nn::LayerNorm, nn::Dropout and the initializers: forward values and gradients
// against PyTorch (tests/fixtures/nn_linear.json), finite differences, initializer statistics,
// configs and their errors.
#include <burn/nn/dropout.hpp>
#include <burn/nn/initializer.hpp>
#include <burn/nn/layer_norm.hpp>
#include <burn/nn/linear.hpp>
#include <burn/record/recorder.hpp>
#include <cmath>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::nn_linear {
namespace {

using B = TestFloatBackend;
constexpr std::string_view kFile = "nn_linear";

static_assert(module::check_fields<nn::Linear<B>>());
static_assert(module::check_fields<nn::LayerNorm<B>>());
static_assert(module::check_fields<nn::Dropout>());

// ================================================================================== Linear
TEST(NnLinear, MatchesTorch) {
    for (const char* name : {"linear_2d", "linear_3d"}) {
        TorchCase c(std::string(kFile), name);
        nn::Linear<ADF> linear{c.param<2>("weight"), c.param<1>("bias")};
        if (std::string(name) == "linear_2d") c.check(linear.forward(c.input<2>("x")));
        else c.check(linear.forward(c.input<3>("x")));
    }
}

TEST(NnLinear, NoBiasRank4MatchesTorch) {
    TorchCase c(std::string(kFile), "linear_4d_no_bias");
    nn::Linear<ADF> linear{c.param<2>("weight"), std::nullopt};
    c.check(linear.forward(c.input<4>("x")));
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnLinear, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    // The input's gradient (a Param is a fresh leaf, so the parameters' gradients are checked
    // against PyTorch above).
    const nn::Linear<AD> linear{uniform<2>({4, 5}, -1, 1, 8), uniform<1>({5}, -1, 1, 9)};
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& x) { return linear.forward(x); },
                          uniform<3>({2, 3, 4})));
}

TEST(NnLinear, ConfigInitAndShapes) {
    const auto linear = nn::LinearConfig{.d_input = 64, .d_output = 10}.init<B>();
    EXPECT_EQ(linear.weight.shape(), Shape({64, 10}));
    ASSERT_TRUE(linear.bias.has_value());
    EXPECT_EQ(linear.num_params(), 64u * 10u + 10u);
    // Burn's (and PyTorch's) default: uniform on +-1/sqrt(d_input), bias included.
    const double bound = 1.0 / std::sqrt(64.0);
    EXPECT_LE(linear.weight.val().abs().max().into_scalar(), bound);
    EXPECT_GT(linear.weight.val().abs().max().into_scalar(), 0.9 * bound);
    EXPECT_LE(linear.bias->val().abs().max().into_scalar(), bound);
    const auto no_bias = nn::LinearConfig{.d_input = 3, .d_output = 2, .bias = false}.init<B>();
    EXPECT_FALSE(no_bias.bias.has_value());
    EXPECT_EQ(no_bias.forward(Tensor<B, 1>::ones({3})).dims(), (std::array<std::size_t, 1>{2}));
    EXPECT_EQ(module::to_string(no_bias),
              "Linear {d_input: 3, d_output: 2, bias: false, params: 6}");
}

TEST(NnLinear, InvalidInputsThrow) {
    EXPECT_BURN_ERROR((nn::LinearConfig{.d_input = 0, .d_output = 2}.init<B>()), "d_input");
    const auto linear = nn::LinearConfig{.d_input = 3, .d_output = 2}.init<B>();
    EXPECT_BURN_ERROR(linear.forward(Tensor<B, 2>::ones({4, 5})), "Linear::forward");
}

TEST(NnLinear, RecordRoundTrip) {
    const auto a = nn::LinearConfig{.d_input = 5, .d_output = 4}.init<B>();
    auto b = nn::LinearConfig{.d_input = 5, .d_output = 4}.init<B>();
    const record::BinBytesRecorder<record::FullPrecisionSettings> recorder;
    b = b.load_record(recorder.from_bytes(recorder.to_bytes(a.into_record())));
    EXPECT_TRUE(close_to(b.weight.val(), a.weight.val().to_data(), Tolerance{0, 0}));
    EXPECT_EQ(b.weight.id(), a.weight.id());
    auto other = nn::LinearConfig{.d_input = 4, .d_output = 5}.init<B>();
    EXPECT_BURN_ERROR(other.load_record(a.into_record()), "weight: expected shape [4, 5]");
}

// =============================================================================== LayerNorm
TEST(NnLayerNorm, MatchesTorch) {
    {
        TorchCase c(std::string(kFile), "layer_norm_2d");
        nn::LayerNorm<ADF> norm{c.param<1>("gamma"), c.param<1>("beta"), 1e-5};
        c.check(norm.forward(c.input<2>("x")));
    }
    {
        TorchCase c(std::string(kFile), "layer_norm_3d");
        nn::LayerNorm<ADF> norm{c.param<1>("gamma"), c.param<1>("beta"), 1e-3};
        c.check(norm.forward(c.input<3>("x")));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnLayerNorm, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const nn::LayerNorm<AD> norm{uniform<1>({6}, 0.5, 1.5, 3), uniform<1>({6}, -1, 1, 4), 1e-5};
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& x) { return norm.forward(x); },
                          uniform<3>({2, 3, 6}, -2, 2)));
}

/// The composed form of LayerNorm (nn/layer_norm.hpp's fallback), as the reference of a backend's
/// fused kernel.
template <class BK, std::size_t D>
Tensor<BK, D> layer_norm_composed(const Tensor<BK, D>& x, const Tensor<BK, 1>& gamma,
                                  const std::optional<Tensor<BK, 1>>& beta, double eps) {
    const auto mean = x.mean_dim(D - 1);
    const auto centered = x - mean;
    const auto var = (centered * centered).mean_dim(D - 1);
    auto y = centered / (var + eps).sqrt() * gamma.template unsqueeze<D>();
    if (beta) y = y + beta->template unsqueeze<D>();
    return y;
}

TEST(NnLayerNorm, FusedKernelMatchesTheComposedOps) {
    if constexpr (!backend::FusedLayerNormBackend<ADF>) {
        GTEST_SKIP() << ADF::name() << " composes LayerNorm from its ops (no fused kernel)";
    } else {
        // Rows that do not fill the kernel's blocks, rows shorter and longer than a warp, a
        // transposed (strided) input, and more rows than one partial sum of the parameter
        // gradients takes.
        struct Case {
            std::size_t rows, d;
            bool transposed;
        };
        for (const Case c :
             {Case{3, 5, false}, Case{37, 100, true}, Case{9, 1031, false}, Case{300, 64, false}}) {
            for (const bool with_beta : {true, false}) {
                SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.d) +
                             (with_beta ? " with beta" : " without beta"));
                const auto x = c.transposed ? uniform<2, ADF>({c.d, c.rows}, -3, 3, 5).transpose()
                                            : uniform<2, ADF>({c.rows, c.d}, -3, 3, 5);
                const auto gamma = uniform<1, ADF>({c.d}, 0.5, 1.5, 6);
                const auto beta = uniform<1, ADF>({c.d}, -1, 1, 7);
                const auto w = uniform<2, ADF>({c.rows, c.d}, -1, 1, 8);
                const nn::LayerNorm<ADF> norm{
                    gamma,
                    with_beta ? std::optional<module::Param<Tensor<ADF, 1>>>(beta) : std::nullopt,
                    1e-5};
                const auto xf = x.detach().require_grad();
                const auto y = norm.forward(xf);
                const auto gf = (y * w).sum().backward();
                const auto xc = x.detach().require_grad();
                const auto gc_ = gamma.detach().require_grad();
                const auto bc = beta.detach().require_grad();
                const auto yc = layer_norm_composed<ADF, 2>(
                    xc, gc_, with_beta ? std::optional(bc) : std::nullopt, 1e-5);
                const auto gc = (yc * w).sum().backward();
                EXPECT_TRUE(close_to(y, yc.to_data(), Tolerance{1e-6, 1e-6})) << "forward";
                EXPECT_TRUE(close_to(*xf.grad(gf), xc.grad(gc)->to_data(), Tolerance{1e-4, 1e-5}))
                    << "x gradient";
                EXPECT_TRUE(close_to(*norm.gamma.val().grad(gf), gc_.grad(gc)->to_data(),
                                     Tolerance{1e-4, 1e-5}))
                    << "gamma gradient";
                if (with_beta)
                    EXPECT_TRUE(close_to(*norm.beta->val().grad(gf), bc.grad(gc)->to_data(),
                                         Tolerance{1e-4, 1e-5}))
                        << "beta gradient";
            }
        }
        // Under autocast a bf16 input is normalised in f32 (the norms are on the f32 list).
        const auto norm = nn::LayerNormConfig{.d_model = 48}.init<ADF>();
        const auto xh = uniform<2, ADF>({5, 48}, -2, 2, 9).cast(DType::BF16);
        Autocast amp(DType::BF16);
        EXPECT_EQ(norm.forward(xh).dtype(), DType::F32);
        EXPECT_TRUE(close_to(norm.forward(xh),
                             layer_norm_composed<ADF, 2>(xh.cast(DType::F32), norm.gamma.val(),
                                                         norm.beta->val(), 1e-5)
                                 .to_data(),
                             Tolerance{1e-6, 1e-6}));
    }
}

TEST(NnLayerNorm, ConfigInit) {
    const auto norm = nn::LayerNormConfig{.d_model = 8}.init<B>();
    EXPECT_TRUE(close_to(norm.gamma.val(), TensorData::full(Shape{8}, 1.0f), Tolerance{0, 0}));
    EXPECT_TRUE(close_to(norm.beta->val(), TensorData::full(Shape{8}, 0.0f), Tolerance{0, 0}));
    EXPECT_EQ(module::to_string(norm), "LayerNorm {d_model: 8, epsilon: 1e-05, params: 16}");
    // Each row of the output has mean 0 and (biased) variance 1.
    const auto y = norm.forward(uniform<2, B>({3, 8}, -5, 5));
    EXPECT_TRUE(
        close_to(y.mean_dim(1), TensorData::zeros(Shape{3, 1}, DType::F32), Tolerance{1e-5, 1e-5}));
    EXPECT_TRUE(
        close_to((y * y).mean_dim(1), TensorData::full(Shape{3, 1}, 1.0f), Tolerance{1e-3, 1e-3}));
    EXPECT_BURN_ERROR(nn::LayerNormConfig{.d_model = 0}.init<B>(), "d_model");
    EXPECT_BURN_ERROR(norm.forward(Tensor<B, 2>::ones({2, 3})), "LayerNorm::forward");
}

// ================================================================================= Dropout
TEST(NnDropout, IdentityWithoutAutodiff) {
    const auto dropout = nn::DropoutConfig{.prob = 0.5}.init();
    const auto x = uniform<2, B>({4, 5});
    EXPECT_TRUE(close_to(dropout.forward(x), x.to_data(), Tolerance{0, 0}));
}

TEST(NnDropout, DropsAndScalesOnAutodiff) {
    const auto dropout = nn::DropoutConfig{.prob = 0.25}.init();
    const auto x = Tensor<ADF, 1>::ones({100000});
    const auto y = dropout.forward(x).inner().to_data().to_vec<float>();
    std::size_t zeros = 0;
    for (float v : y) {
        if (v == 0.0f) ++zeros;
        else EXPECT_FLOAT_EQ(v, 1.0f / 0.75f);
    }
    EXPECT_NEAR(double(zeros) / double(y.size()), 0.25, 0.01);
    // prob 0 keeps everything.
    const auto keep = nn::DropoutConfig{.prob = 0.0}.init().forward(x);
    EXPECT_TRUE(close_to(keep, x.to_data(), Tolerance{0, 0}));
    EXPECT_BURN_ERROR(nn::DropoutConfig{.prob = 1.0}.init(), "prob");
    EXPECT_BURN_ERROR(nn::DropoutConfig{.prob = -0.1}.init(), "prob");
}

TEST(NnDropout, HalfPrecisionKeepsTheDtypeAndRoundsOnce) {
    if constexpr (!(capabilities<ADF>.float16 && capabilities<ADF>.bfloat16))
        GTEST_SKIP() << ADF::name() << " has no f16 / bf16 tensors";
    const auto dropout = nn::DropoutConfig{.prob = 0.1}.init();
    const auto x32 = uniform<1, ADF>({4096}, 0.5, 2.0);
    for (DType d : {DType::BF16, DType::F16}) {
        SCOPED_TRACE(dtype_name(d));
        const auto x = x32.cast(d).require_grad();
        const auto y = dropout.forward(x);
        ASSERT_EQ(y.dtype(), d);
        // Kept values are x / 0.9 computed in f32 and rounded once (PyTorch's dropout).
        const auto xs = x.inner().cast(DType::F32).to_data().to_vec<float>();
        const auto want = (x.inner().cast(DType::F32) * (1.0 / 0.9)).cast(d).cast(DType::F32);
        const auto w = want.to_data().to_vec<float>();
        const auto got = y.inner().cast(DType::F32).to_data().to_vec<float>();
        std::size_t dropped = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (got[i] == 0.0f && xs[i] != 0.0f) ++dropped;
            else EXPECT_EQ(got[i], w[i]) << i;
        }
        EXPECT_NEAR(double(dropped) / double(got.size()), 0.1, 0.03);
        // The gradient comes back in x's dtype: the same mask, the same scale.
        const auto g = y.sum().backward();
        const auto gx = x.grad(g);
        ASSERT_TRUE(gx.has_value());
        EXPECT_EQ(gx->dtype(), d);
    }
}

// ============================================================================ Initializers
// Initializer statistics in f64, on the backend under test with F = double (F64Backend): skipped
// on a backend without f64.
/// Mean and standard deviation of a tensor's values.
std::pair<double, double> moments(const Tensor<F64Backend, 2>& t) {
    const double mean = t.mean().into_scalar();
    const double var = ((t - mean) * (t - mean)).mean().into_scalar();
    return {mean, std::sqrt(var)};
}

TEST(NnInitializer, DistributionsFollowTheFans) {
    BURN_REQUIRE_FLOAT64();
    using D = F64Backend;
    using I = nn::Initializer;
    D::seed(2024);  // the mean bounds are about 5 standard errors: reproducible, not flaky
    const Shape s{200, 300};
    const std::size_t fan_in = 200, fan_out = 300;
    const auto check_uniform = [&](const I& init, double bound) {
        const auto t = init.init_with<D, 2>(s, fan_in, fan_out);
        EXPECT_LE(t.abs().max().into_scalar(), bound);
        EXPECT_GT(t.abs().max().into_scalar(), 0.99 * bound);
        const auto [mean, std] = moments(t);
        EXPECT_NEAR(mean, 0.0, 0.02 * bound);
        EXPECT_NEAR(std, bound / std::sqrt(3.0), 0.02 * bound);
    };
    const auto check_normal = [&](const I& init, double want_std) {
        const auto [mean, std] = moments(init.init_with<D, 2>(s, fan_in, fan_out));
        EXPECT_NEAR(mean, 0.0, 0.02 * want_std);
        EXPECT_NEAR(std, want_std, 0.02 * want_std);
    };
    // torch.nn.init formulas.
    check_uniform(I::KaimingUniform{.gain = std::sqrt(2.0)}, std::sqrt(2.0) * std::sqrt(3.0 / 200));
    check_uniform(I::KaimingUniform{.gain = 1.0, .fan_out_only = true}, std::sqrt(3.0 / 300));
    check_normal(I::KaimingNormal{.gain = std::sqrt(2.0)}, std::sqrt(2.0) / std::sqrt(200.0));
    check_uniform(I::XavierUniform{.gain = 1.0}, std::sqrt(6.0 / 500));
    check_normal(I::XavierNormal{.gain = 2.0}, 2.0 * std::sqrt(2.0 / 500));
    check_normal(I::Normal{.mean = 0.0, .std = 0.02}, 0.02);
    const auto u = I(I::Uniform{.min = 2.0, .max = 3.0}).init<D, 2>(s);
    EXPECT_GE(u.min().into_scalar(), 2.0);
    EXPECT_LT(u.max().into_scalar(), 3.0);
    EXPECT_EQ((I(I::Constant{.value = 0.5}).init<D, 2>({2, 2}).sum().into_scalar()), 2.0);
    EXPECT_EQ((I(I::Ones{}).init<D, 2>({2, 2}).sum().into_scalar()), 4.0);
    EXPECT_EQ((I(I::Zeros{}).init<D, 2>({2, 2}).abs().sum().into_scalar()), 0.0);
}

TEST(NnInitializer, MissingFansThrow) {
    using I = nn::Initializer;
    EXPECT_BURN_ERROR((I(I::KaimingUniform{.gain = 1.0}).init<B, 2>({2, 2})),
                      "KaimingUniform: needs fan_in");
    EXPECT_BURN_ERROR((I(I::KaimingNormal{.gain = 1.0, .fan_out_only = true})
                           .init_with<B, 2>({2, 2}, 2, std::nullopt)),
                      "needs fan_out");
    EXPECT_BURN_ERROR((I(I::XavierUniform{.gain = 1.0}).init_with<B, 2>({2, 2}, 2, std::nullopt)),
                      "XavierUniform: needs fan_out");
    EXPECT_BURN_ERROR((I(I::XavierNormal{.gain = 1.0}).init_with<B, 2>({2, 2}, 0, 2)),
                      "fan_in must be positive");
    EXPECT_BURN_ERROR((I(I::Uniform{.min = 1.0, .max = 0.0}).init<B, 2>({2, 2})), "min 1");
}

TEST(NnInitializer, SavedInConfigsByName) {
    using I = nn::Initializer;
    auto config = nn::LinearConfig{.d_input = 3, .d_output = 4, .initializer = I::Ones{}};
    EXPECT_NE(config.to_json_string().find("\"initializer\": \"Ones\""), std::string::npos);
    EXPECT_EQ(nn::LinearConfig::from_json_string(config.to_json_string()), config);
    config.initializer = I::XavierNormal{.gain = 0.5};
    EXPECT_NE(config.to_json_string().find("\"XavierNormal\": {"), std::string::npos);
    EXPECT_EQ(nn::LinearConfig::from_json_string(config.to_json_string()), config);
    EXPECT_NE(config, (nn::LinearConfig{.d_input = 3, .d_output = 4}));
    // Unknown names, wrong shapes and missing required fields name the field.
    EXPECT_BURN_ERROR(nn::LinearConfig::from_json_string(
                          R"({"d_input": 1, "d_output": 1, "initializer": "Glorot"})"),
                      "LinearConfig.initializer: expected one of Constant, Ones");
    EXPECT_BURN_ERROR(
        nn::LinearConfig::from_json_string(
            R"({"d_input": 1, "d_output": 1, "initializer": {"Normal": {"mean": 0}}})"),
        "LinearConfig.initializer.Normal.std: missing required field");
    EXPECT_BURN_ERROR(
        nn::LinearConfig::from_json_string(R"({"d_input": 1, "d_output": 1, "initializer": [1]})"),
        "LinearConfig.initializer: expected one of");
}

}  // namespace
}  // namespace burn::testing::nn_linear

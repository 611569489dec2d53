// SPDX-License-Identifier: MIT OR Apache-2.0
// nn::AvgPool1d/2d, nn::MaxPool1d/2d and nn::AdaptiveAvgPool1d/2d: forward values and gradients
// against PyTorch (tests/fixtures/nn_conv.json, whose cases carry the layer's config as
// burn-cpp saves it), finite differences, configs, display and errors.
#include <burn/nn/pool.hpp>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::nn_pool {
namespace {

using B = TestFloatBackend;
const std::string kFile = "nn_conv";

static_assert(module::check_fields<nn::AvgPool1d>());
static_assert(module::check_fields<nn::AvgPool2d>());
static_assert(module::check_fields<nn::MaxPool1d>());
static_assert(module::check_fields<nn::MaxPool2d>());
static_assert(module::check_fields<nn::AdaptiveAvgPool1d>());
static_assert(module::check_fields<nn::AdaptiveAvgPool2d>());

/// Builds the pool from the case's config (as burn-cpp saves it) and checks y and g_x.
template <class Config, std::size_t D>
void check_pool_case(const std::string& name) {
    TorchCase c(kFile, name);
    const auto pool = Config::from_json_string(c.param("config").dump()).init();
    c.check(pool.forward(c.input<D>("x")));
}

// =============================================================================== AvgPool
TEST(NnAvgPool1d, MatchesTorch) {
    for (const char* name :
         {"avg_pool1d", "avg_pool1d_same_even_exclude", "avg_pool1d_explicit_ceil"})
        check_pool_case<nn::AvgPool1dConfig, 3>(name);
}

TEST(NnAvgPool2d, MatchesTorch) {
    for (const char* name : {"avg_pool2d", "avg_pool2d_pad_exclude", "avg_pool2d_same_include",
                             "avg_pool2d_same_exclude"})
        check_pool_case<nn::AvgPool2dConfig, 4>(name);
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnAvgPool2d, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    // Asymmetric padding without count_include_pad (the divided form).
    const auto pool = nn::AvgPool2dConfig{.kernel_size = {{2, 3}},
                                          .strides = {{1, 2}},
                                          .padding = nn::PaddingConfig2d::Same{},
                                          .count_include_pad = false}
                          .init();
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 4>& x) { return pool.forward(x); },
                          uniform<4>({1, 2, 4, 5})));
}

TEST(NnAvgPool, ConfigInitAndDisplay) {
    const auto p2 = nn::AvgPool2dConfig{.kernel_size = {{3, 3}}}.init();
    EXPECT_EQ(module::to_string(p2),
              "AvgPool2d {kernel_size: [3, 3], stride: [3, 3], padding: "
              "Valid, count_include_pad: true, ceil_mode: false}");
    const auto p1 = nn::AvgPool1dConfig{.kernel_size = 2}.init();
    EXPECT_EQ(module::to_string(p1),
              "AvgPool1d {kernel_size: 2, stride: 2, padding: Valid, "
              "count_include_pad: true, ceil_mode: false}");
    // The stride defaults to the kernel size.
    EXPECT_EQ(p1.forward(Tensor<B, 3>::ones({1, 2, 9})).dims(),
              (std::array<std::size_t, 3>{1, 2, 4}));
    const auto config = nn::AvgPool2dConfig{.kernel_size = {{1, 2}}};
    EXPECT_EQ(config.init().stride, (std::array<std::size_t, 2>{1, 2}));
    // Saved with the stride left out (null) or given.
    EXPECT_NE(config.to_json_string().find("\"strides\": null"), std::string::npos);
    EXPECT_EQ(nn::AvgPool2dConfig::from_json_string(config.to_json_string()), config);
    const auto with_stride = nn::AvgPool2dConfig{
        .kernel_size = {{3, 3}},
        .strides = {{1, 1}},
        .padding = nn::PaddingConfig2d::Explicit{.top = 1, .left = 2, .bottom = 3, .right = 4}};
    EXPECT_EQ(nn::AvgPool2dConfig::from_json_string(with_stride.to_json_string()), with_stride);
    // Same with an even kernel keeps the size.
    const auto same =
        nn::AvgPool2dConfig{
            .kernel_size = {{2, 2}}, .strides = {{1, 1}}, .padding = nn::PaddingConfig2d::Same{}}
            .init();
    EXPECT_EQ(same.forward(Tensor<B, 4>::ones({1, 2, 5, 5})).dims(),
              (std::array<std::size_t, 4>{1, 2, 5, 5}));
    // count_include_pad = false never counts padding, asymmetric or not: the mean of ones is 1.
    const auto exclude =
        nn::AvgPool2dConfig{
            .kernel_size = {{3, 3}},
            .strides = {{1, 1}},
            .padding = nn::PaddingConfig2d::Explicit{.top = 1, .left = 0, .bottom = 0, .right = 1},
            .count_include_pad = false}
            .init();
    const auto ones = exclude.forward(Tensor<B, 4>::ones({1, 1, 4, 4}));
    EXPECT_TRUE(close_to(ones, TensorData::full(Shape{1, 1, 3, 3}, 1.0f), Tolerance{1e-6, 1e-6}));
}

TEST(NnAvgPool, InvalidConfigsAndInputsThrow) {
    EXPECT_BURN_ERROR(nn::AvgPool1dConfig{.kernel_size = 0}.init(),
                      "AvgPool1dConfig::init: kernel_size must be positive");
    EXPECT_BURN_ERROR((nn::AvgPool2dConfig{.kernel_size = {{2, 2}}, .strides = {{0, 1}}}.init()),
                      "AvgPool2dConfig::init: stride must be positive, got [0, 1]");
    const auto too_much =
        nn::AvgPool1dConfig{.kernel_size = 3, .padding = nn::PaddingConfig1d::symmetric(2)}.init();
    EXPECT_BURN_ERROR(too_much.forward(Tensor<B, 3>::ones({1, 1, 8})),
                      "AvgPool1d::forward: padding Explicit(2, 2) should be at most half of the "
                      "kernel size [3]");
    const auto pool = nn::AvgPool2dConfig{.kernel_size = {{3, 3}}}.init();
    EXPECT_BURN_ERROR(pool.forward(Tensor<B, 4>::ones({1, 1, 2, 5})), "avg_pool2d: kernel [3, 3]");
}

// =============================================================================== MaxPool
TEST(NnMaxPool1d, MatchesTorch) {
    for (const char* name : {"max_pool1d", "max_pool1d_same"})
        check_pool_case<nn::MaxPool1dConfig, 3>(name);
}

TEST(NnMaxPool2d, MatchesTorch) {
    for (const char* name : {"max_pool2d", "max_pool2d_same_even", "max_pool2d_asymmetric"})
        check_pool_case<nn::MaxPool2dConfig, 4>(name);
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnMaxPool2d, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    // Distinct values: finite differences are exact away from ties.
    const auto pool = nn::MaxPool2dConfig{
        .kernel_size = {{2, 3}},
        .strides = {{1, 2}},
        .padding = nn::PaddingConfig2d::Same{},
        .dilation = {1,
                     1}}.init();
    std::vector<double> v(40);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = double((i * 7) % 40) / 10.0;
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 4>& t) { return pool.forward(t); },
                          Tensor<AD, 4>::from_data(TensorData(std::move(v), Shape{1, 2, 4, 5}))));
}

TEST(NnMaxPool, ConfigInitAndDisplay) {
    const auto p2 = nn::MaxPool2dConfig{.kernel_size = {{3, 3}}}.init();
    EXPECT_EQ(module::to_string(p2),
              "MaxPool2d {kernel_size: [3, 3], stride: [3, 3], padding: "
              "Valid, dilation: [1, 1], ceil_mode: false}");
    const auto p1 = nn::MaxPool1dConfig{.kernel_size = 3}.init();
    EXPECT_EQ(module::to_string(p1),
              "MaxPool1d {kernel_size: 3, stride: 3, padding: Valid, "
              "dilation: 1, ceil_mode: false}");
    const auto same =
        nn::MaxPool2dConfig{
            .kernel_size = {{2, 2}}, .strides = {{1, 1}}, .padding = nn::PaddingConfig2d::Same{}}
            .init();
    EXPECT_EQ(same.forward(Tensor<B, 4>::ones({1, 2, 5, 5})).dims(),
              (std::array<std::size_t, 4>{1, 2, 5, 5}));
    // Padding never wins: all-negative input, padded windows keep the input's maximum.
    const auto neg =
        nn::MaxPool1dConfig{.kernel_size = 2,
                            .stride = 1,
                            .padding = nn::PaddingConfig1d::Explicit{.left = 1, .right = 0}}
            .init()
            .forward(Tensor<B, 3>::from_floats({{{-3.0, -1.0, -2.0}}}));
    EXPECT_TRUE(
        close_to(neg, TensorData(std::vector<float>{-3, -1, -1}, Shape{1, 1, 3}), Tolerance{0, 0}));
    const auto config = nn::MaxPool1dConfig{.kernel_size = 4, .stride = 2, .dilation = 2};
    EXPECT_EQ(nn::MaxPool1dConfig::from_json_string(config.to_json_string()), config);
}

TEST(NnMaxPool, InvalidConfigsAndInputsThrow) {
    EXPECT_BURN_ERROR((nn::MaxPool2dConfig{.kernel_size = {{2, 2}}, .dilation = {1, 0}}.init()),
                      "MaxPool2dConfig::init: dilation must be positive, got [1, 0]");
    const auto pool =
        nn::MaxPool2dConfig{
            .kernel_size = {{2, 2}},
            .padding = nn::PaddingConfig2d::Explicit{.top = 2, .left = 0, .bottom = 0, .right = 0}}
            .init();
    EXPECT_BURN_ERROR(pool.forward(Tensor<B, 4>::ones({1, 1, 4, 4})),
                      "MaxPool2d::forward: padding Explicit(2, 0, 0, 0) should be at most half");
}

// ======================================================================= AdaptiveAvgPool
TEST(NnAdaptiveAvgPool, MatchesTorch) {
    check_pool_case<nn::AdaptiveAvgPool1dConfig, 3>("adaptive_avg_pool1d");
    check_pool_case<nn::AdaptiveAvgPool2dConfig, 4>("adaptive_avg_pool2d");
}

TEST(NnAdaptiveAvgPool, ConfigInitDisplayAndErrors) {
    const auto p2 = nn::AdaptiveAvgPool2dConfig{.output_size = {{3, 4}}}.init();
    EXPECT_EQ(module::to_string(p2), "AdaptiveAvgPool2d {output_size: [3, 4]}");
    EXPECT_EQ(p2.forward(Tensor<B, 4>::ones({2, 3, 7, 9})).dims(),
              (std::array<std::size_t, 4>{2, 3, 3, 4}));
    const auto p1 = nn::AdaptiveAvgPool1dConfig{.output_size = 1}.init();
    EXPECT_EQ(module::to_string(p1), "AdaptiveAvgPool1d {output_size: 1}");
    EXPECT_TRUE(close_to(p1.forward(Tensor<B, 3>::from_floats({{{1.0, 2.0, 6.0}}})),
                         TensorData::full(Shape{1, 1, 1}, 3.0f), Tolerance{1e-6, 1e-6}));
    EXPECT_BURN_ERROR(nn::AdaptiveAvgPool1dConfig{.output_size = 0}.init(),
                      "output_size must be positive");
    EXPECT_BURN_ERROR((nn::AdaptiveAvgPool2dConfig{.output_size = {{2, 0}}}.init()),
                      "output_size must be positive, got [2, 0]");
    const auto config = nn::AdaptiveAvgPool2dConfig{.output_size = {{3, 4}}};
    EXPECT_EQ(nn::AdaptiveAvgPool2dConfig::from_json_string(config.to_json_string()), config);
}

}  // namespace
}  // namespace burn::testing::nn_pool

// SPDX-License-Identifier: MIT OR Apache-2.0
// The generated models of test_onnx_codegen.cpp (burn_onnx_generate on a sample of the ONNX
// backend test suite: every op family at least once, control flow included) on the GPU backends:
// Vulkan<> (BURN_TEST_VULKAN, lavapipe in CI) and Cuda<> (BURN_TEST_CUDA, skipped without a GPU).
// Outputs against the suite's expected ones and Graph<B> on the same model (float64 models are
// skipped on Vulkan: no float64 tensors); the MNIST example's model fine-tuned under Autodiff on
// the GPU backend, against the same step on the CPU.
#include <gtest/gtest.h>

#include <burn/autodiff/autodiff.hpp>
#include <burn/backend/cpu.hpp>
#include <burn/nn/loss.hpp>
#include <burn/onnx/codegen.hpp>
#include <burn/onnx/graph.hpp>
#include <burn/optim/grads.hpp>
#include <burn/optim/sgd.hpp>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "codegen_cases.inc"  // #include "<model>.hpp" for every generated model
#include "codegen_check.hpp"
#include "test_support.hpp"
#include "train_mnist.hpp"  // examples/onnx-inference/mnist.onnx

#if defined(BURN_TEST_VULKAN)
#include <burn/backend/vulkan.hpp>
using G = burn::Vulkan<>;
#elif defined(BURN_TEST_CUDA)
#include <burn/backend/cuda.hpp>
using G = burn::Cuda<>;
#endif

TEST(OnnxCodegenGpu, GeneratedModelsMatchTheTestSuite) {
    int ran = 0, skipped = 0;
#define BURN_CODEGEN_CASE(NAME, DIR, RECORD) \
    (burn::onnx::testing::check_generated<G, NAME>(DIR, RECORD) ? ++ran : ++skipped);
#include "codegen_cases_run.inc"
#undef BURN_CODEGEN_CASE
    std::printf("%d generated models ran on %s, %d float64 models skipped\n", ran,
                std::string(G::name()).c_str(), skipped);
    EXPECT_GT(ran, 30);
}

// The imported MNIST model fine-tunes on the GPU backend: the loss and the gradients of its first
// and last parameters match Autodiff<Cpu<float>>'s on the same batch, and one SGD step lowers the
// loss.
TEST(OnnxCodegenGpu, GeneratedModelTrainsUnderAutodiff) {
    using AG = burn::Autodiff<G>;
    using AC = burn::Autodiff<burn::Cpu<float>>;
    std::vector<float> pixels(16 * 28 * 28);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = float((i * 37) % 101) / 100.0f;
    std::vector<std::int64_t> labels(16);
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::int64_t(i % 10);
    const burn::TensorData xd(pixels, burn::Shape{16, 1, 28, 28});
    const burn::TensorData yd(labels, burn::Shape{16});
    auto step = [&](auto tag) {
        using AB = decltype(tag);
        auto model = TrainMnist<AB>::from_file(BURN_ONNX_TRAIN_MNIST_RECORD);
        const auto x = burn::Tensor<AB, 4>::from_data(xd);
        const auto y = burn::Tensor<AB, 1, burn::Int>::from_data(yd);
        const auto ce = burn::nn::CrossEntropyLossConfig{}.init<AB>();
        const auto loss = ce.forward(model.forward(x), y);
        auto grads = loss.backward();
        const auto g_first = model.conv1_weight.val().grad(grads)->to_data();
        const auto g_last = model.fc2_bias.val().grad(grads)->to_data();
        auto optim = burn::optim::SgdConfig{}.init<AB>();
        model = optim.step(0.05, model, burn::optim::GradientsParams<AB>::from_grads(grads, model));
        const float after = ce.forward(model.forward(x), y).into_scalar();
        return std::tuple{loss.into_scalar(), after, g_first, g_last};
    };
    const auto [loss_g, after_g, first_g, last_g] = step(AG{});
    const auto [loss_c, after_c, first_c, last_c] = step(AC{});
    EXPECT_NEAR(loss_g, loss_c, 1e-4f);
    EXPECT_LT(after_g, loss_g);
    EXPECT_NEAR(after_g, after_c, 1e-3f);
    EXPECT_EQ(burn::onnx::testing::mismatch(first_g, first_c), "");
    EXPECT_EQ(burn::onnx::testing::mismatch(last_g, last_c), "");
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// The installed onnx component, as a user's build sees it: burn_onnx_generate() ran the installed
// burn-onnx on examples/onnx-inference/mnist.onnx at build time (mnist.hpp, weights embedded),
// and burn::onnx::Graph runs the same file at run time; both must give the same logits.
#include <burn/backend/cpu.hpp>
#include <burn/onnx/graph.hpp>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <vector>

#include "mnist.hpp"  // generated

int main() {
    using B = burn::Cpu<float>;
    std::vector<float> pixels(2 * 28 * 28);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = float(i % 97) / 97.0f - 0.4f;
    const burn::TensorData images(pixels, burn::Shape{2, 1, 28, 28});
    const auto generated = Mnist<B>::from_embedded().forward(burn::Tensor<B, 4>::from_data(images));
    const auto logits = generated.into_data().to_vec<float>();
    const auto graph = burn::onnx::Graph<B>::load(BURN_PACKAGE_MNIST_ONNX);
    const auto expected = graph.run({images})[0].to_vec<float>();
    if (logits.size() != 20 || expected.size() != 20) {
        std::cerr << "package consumer (onnx): expected 2 x 10 logits, got " << logits.size()
                  << " and " << expected.size() << "\n";
        return 1;
    }
    for (std::size_t i = 0; i < logits.size(); ++i)
        if (std::abs(logits[i] - expected[i]) > 1e-4f * (1 + std::abs(expected[i]))) {
            std::cerr << "package consumer (onnx): logit " << i << ": generated " << logits[i]
                      << ", Graph " << expected[i] << "\n";
            return 1;
        }
    std::cout << "package consumer (onnx): the generated model and Graph agree\n";
    return 0;
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// mnist: a multi-layer perceptron trained with the Learner, showing more of it than the guide:
// a cosine-annealing learning-rate schedule, more metrics (top-3 accuracy, macro F1, learning
// rate, speed, CPU use and memory), early stopping on the validation loss, and a validation split
// carved out of the training set (the test split is only used at the end).
//
//   mnist [--backend cpu|vulkan|cuda] [--dataset fashion-mnist|mnist] [--epochs N]
//         [--artifact-dir DIR] [--resume EPOCH]
//
// Interrupt it with Ctrl-C: it writes a checkpoint; `--resume EPOCH` continues from it.
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mnist.hpp"

int main(int argc, char** argv) {
    mnist::Options o;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string_view a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw std::invalid_argument(std::string(a) + " needs a value");
                return argv[++i];
            };
            if (a == "--backend") {
                o.backend = value();
                if (o.backend != "cpu" && o.backend != "vulkan" && o.backend != "cuda")
                    throw std::invalid_argument("--backend: expected cpu, vulkan or cuda, got " +
                                                o.backend);
            } else if (a == "--dataset") {
                const std::string v = value();
                if (v == "mnist") o.kind = burn::data::MnistKind::Mnist;
                else if (v == "fashion-mnist") o.kind = burn::data::MnistKind::Fashion;
                else
                    throw std::invalid_argument("--dataset: expected mnist or fashion-mnist, got " +
                                                v);
            } else if (a == "--epochs") o.epochs = std::stoul(value());
            else if (a == "--artifact-dir") o.artifact_dir = value();
            else if (a == "--resume") o.resume = std::stoul(value());
            else if (a == "--help" || a == "-h") {
                std::cout << "usage: mnist [--backend cpu|vulkan|cuda] [--dataset "
                             "fashion-mnist|mnist] [--epochs N]\n"
                             "             [--artifact-dir DIR] [--resume EPOCH]\n";
                return 0;
            } else throw std::invalid_argument("unknown option " + std::string(a));
        }
        if (o.backend == "cpu") return mnist::run_cpu(o);
#ifdef BURN_EXAMPLE_WITH_VULKAN
        if (o.backend == "vulkan") return mnist::run_vulkan(o);
#endif
#ifdef BURN_EXAMPLE_WITH_CUDA
        if (o.backend == "cuda") return mnist::run_cuda(o);
#endif
        std::cerr << "mnist: this build has no backend '" << o.backend << "'\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "mnist: " << e.what() << "\n";
        return 1;
    }
}

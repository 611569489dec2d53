// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide's command line (Options) and run<B>(): train or infer on backend B. main.cpp parses
// the arguments and calls the run of the backend asked for (--backend); each backend's instance
// is compiled in its own file (backend_<name>.cpp), built when the backend is.
#pragma once

#include <array>
#include <burn/burn.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include "data.hpp"
#include "inference.hpp"
#include "model.hpp"
#include "training.hpp"

namespace guide {

struct Options {
    std::string command;
    std::string backend = "cpu";
    burn::data::MnistKind kind = burn::data::MnistKind::Fashion;
    std::filesystem::path artifact_dir = "/tmp/guide";
    std::size_t epochs = 10;
    std::size_t batch_size = 64;
    std::size_t num_workers = 4;
    double lr = 1.0e-4;
    std::uint64_t seed = 42;
    std::size_t index = 42;
    std::size_t count = 10;
    std::size_t train_items = SIZE_MAX;
    std::size_t test_items = SIZE_MAX;
    double min_accuracy = 0.0;
};

constexpr std::array<const char*, 10> kFashionClasses = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

inline std::string label_name(burn::data::MnistKind kind, std::int64_t label) {
    if (kind == burn::data::MnistKind::Fashion && label >= 0 && label < 10)
        return std::to_string(label) + " (" + kFashionClasses[std::size_t(label)] + ")";
    return std::to_string(label);
}

/// Trains (o.command == "train") or infers with the book's model on backend B and `device`;
/// returns the exit status.
template <burn::Backend B, class... StepCapture>
int run(const Options& o, const typename B::Device& device, const StepCapture&... step_capture) {
    using MyBackend = B;
    using MyAutodiffBackend = burn::Autodiff<MyBackend>;
    if (o.command == "train") {
        guide::TrainingConfig config{
            .model = {.num_classes = 10, .hidden_size = 512},
            .optimizer = {},
            .num_epochs = o.epochs,
            .batch_size = o.batch_size,
            .num_workers = o.num_workers,
            .seed = o.seed,
            .learning_rate = o.lr,
        };
        guide::train<MyAutodiffBackend>(
            o.artifact_dir, config, {o.kind, o.train_items, o.test_items}, device, step_capture...);
        std::cout << "trained model saved to " << (o.artifact_dir / "model").string()
                  << ".mpk.gz\n";
    } else {
        const auto model = guide::load_model<MyBackend>(o.artifact_dir, device);
        const auto test = burn::data::MnistDataset::load(o.kind, burn::data::MnistSplit::Test);
        std::size_t correct = 0, seen = 0;
        for (std::size_t i = o.index; i < o.index + o.count; ++i) {
            const auto item = test.get(i);
            if (!item) {
                std::cerr << "guide: index " << i << " is past the end of the test split ("
                          << test.len() << " images)\n";
                return 1;
            }
            const std::int64_t predicted = guide::infer(model, *item, device);
            std::cout << "Image " << i << ": Predicted " << label_name(o.kind, predicted)
                      << " Expected " << label_name(o.kind, item->label) << "\n";
            correct += predicted == item->label;
            ++seen;
        }
        const double accuracy = 100.0 * double(correct) / double(seen);
        // The accuracy over the images classified: "accuracy 812/1000 = 81.2%".
        std::ostringstream percent;
        percent << std::fixed << std::setprecision(1) << accuracy;
        std::cout << "accuracy " << correct << "/" << seen << " = " << percent.str() << "%\n";
        if (accuracy < o.min_accuracy) {
            std::cerr << "guide: accuracy " << accuracy << " % is below --min-accuracy "
                      << o.min_accuracy << "\n";
            return 1;
        }
    }
    return 0;
}

/// The backends this build has (backend_<name>.cpp).
int run_cpu(const Options& o);
int run_cpu_fusion(const Options& o);
int run_vulkan(const Options& o);
int run_vulkan_fusion(const Options& o);
int run_cuda(const Options& o);
int run_cuda_fusion(const Options& o);
int run_cuda_graph(const Options& o);

}  // namespace guide

// SPDX-License-Identifier: MIT OR Apache-2.0
// guide: the Burn book's guide (model, data, training, backend, inference) as one program.
//
//   guide train [--backend cpu|cpu-fusion|vulkan|vulkan-fusion|cuda|cuda-fusion|
//                         cuda-graph]
//               [--dataset fashion-mnist|mnist] [--epochs N] [--artifact-dir DIR]
//               [--batch-size N] [--num-workers N] [--lr X] [--seed N]
//               [--train-items N] [--test-items N]
//   guide infer [--backend cpu|cpu-fusion|vulkan|vulkan-fusion|cuda|cuda-fusion|
//                         cuda-graph]
//               [--dataset fashion-mnist|mnist] [--artifact-dir DIR]
//               [--index I] [--count N] [--min-accuracy X]
//
// `train` trains the book's model with the Learner (live progress on a terminal, plain lines
// otherwise) and writes config.json, the checkpoints, the metric logs, the plots and the trained
// model under the artifact directory (default /tmp/guide). `infer` loads config.json and the
// model and predicts test images, printing the predicted and expected labels. Fashion-MNIST comes
// from Debian's dataset-fashion-mnist package (no network); MNIST is downloaded on first use.
// --backend picks the backend, as the book's main.rs does (cpu by default; cpu-fusion is the cpu
// backend with kernel fusion, Fusion<Cpu<float>>; vulkan, vulkan-fusion, cuda and cuda-fusion
// when the build has them; cuda-graph trains on cuda with the steps captured as CUDA graphs).
// docs/guide.md walks through the code.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "app.hpp"

namespace {

using guide::Options;

void usage(std::ostream& os) {
    os << "usage:\n"
          "  guide train [--backend cpu|cpu-fusion|vulkan|vulkan-fusion|cuda|cuda-fusion|\n"
          "                        cuda-graph]\n"
          "              [--dataset fashion-mnist|mnist] [--epochs N] [--artifact-dir DIR]\n"
          "              [--batch-size N] [--num-workers N] [--lr X] [--seed N]\n"
          "              [--train-items N] [--test-items N]\n"
          "  guide infer [--backend cpu|cpu-fusion|vulkan|vulkan-fusion|cuda|cuda-fusion|\n"
          "                        cuda-graph]\n"
          "              [--dataset fashion-mnist|mnist] [--artifact-dir DIR]\n"
          "              [--index I] [--count N] [--min-accuracy X]\n"
          "\n"
          "  --backend       cpu (default), cpu-fusion, vulkan, vulkan-fusion, cuda,\n"
          "                  cuda-fusion or cuda-graph: where the model trains or infers (the\n"
          "                  -fusion variants: that backend with kernel fusion; cuda-graph:\n"
          "                  cuda with the training steps captured as CUDA graphs; vulkan and\n"
          "                  cuda when the build has them: device 0)\n"
          "  --dataset       fashion-mnist (default; Debian's dataset-fashion-mnist) or mnist\n"
          "  --epochs        training epochs (default 10, the book's)\n"
          "  --artifact-dir  where config.json, checkpoints, logs, plots and the model go\n"
          "                  (default /tmp/guide)\n"
          "  --batch-size, --num-workers, --lr, --seed\n"
          "                  the book's TrainingConfig (64, 4, 1e-4, 42)\n"
          "  --train-items, --test-items\n"
          "                  train: use only the first N items of a split (a quick try)\n"
          "  --index, --count  infer: the first test image and how many (default 42 and 10)\n"
          "  --min-accuracy  infer: exit with status 1 when fewer than X % are right\n";
}

Options parse(int argc, char** argv) {
    if (argc < 2) throw std::invalid_argument("missing command (train or infer)");
    Options o;
    o.command = argv[1];
    if (o.command == "--help" || o.command == "-h") {
        usage(std::cout);
        std::exit(0);
    }
    if (o.command != "train" && o.command != "infer")
        throw std::invalid_argument("unknown command '" + o.command +
                                    "' (expected train or infer)");
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(std::string(a) + " needs a value");
            return argv[++i];
        };
        auto count = [&](bool allow_zero) {
            const std::string v = value();
            std::size_t used = 0;
            long long n = 0;
            try {
                n = std::stoll(v, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != v.size() || n < 0 || (!allow_zero && n == 0))
                throw std::invalid_argument(std::string(a) + ": bad value '" + v + "'");
            return std::size_t(n);
        };
        if (a == "--help" || a == "-h") {
            usage(std::cout);
            std::exit(0);
        } else if (a == "--backend") {
            o.backend = value();
            if (o.backend != "cpu" && o.backend != "cpu-fusion" && o.backend != "vulkan" &&
                o.backend != "vulkan-fusion" && o.backend != "cuda" && o.backend != "cuda-fusion" &&
                o.backend != "cuda-graph")
                throw std::invalid_argument(
                    "--backend: expected cpu, cpu-fusion, vulkan, vulkan-fusion, cuda, "
                    "cuda-fusion or cuda-graph, got '" +
                    o.backend + "'");
        } else if (a == "--dataset") {
            const std::string v = value();
            if (v == "fashion-mnist") o.kind = burn::data::MnistKind::Fashion;
            else if (v == "mnist") o.kind = burn::data::MnistKind::Mnist;
            else
                throw std::invalid_argument("--dataset: expected fashion-mnist or mnist, got '" +
                                            v + "'");
        } else if (a == "--epochs") o.epochs = count(false);
        else if (a == "--artifact-dir") o.artifact_dir = value();
        else if (a == "--batch-size") o.batch_size = count(false);
        else if (a == "--num-workers") o.num_workers = count(true);
        else if (a == "--lr") o.lr = std::stod(value());
        else if (a == "--seed") o.seed = count(true);
        else if (a == "--index") o.index = count(true);
        else if (a == "--count") o.count = count(false);
        else if (a == "--train-items") o.train_items = count(false);
        else if (a == "--test-items") o.test_items = count(false);
        else if (a == "--min-accuracy") o.min_accuracy = std::stod(value());
        else
            throw std::invalid_argument("unknown option " + std::string(a) + " (see guide --help)");
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options o = parse(argc, argv);
        // The book's main.rs picks the backend here.
        if (o.backend == "cpu") return guide::run_cpu(o);
        if (o.backend == "cpu-fusion") return guide::run_cpu_fusion(o);
#ifdef BURN_EXAMPLE_WITH_VULKAN
        if (o.backend == "vulkan") return guide::run_vulkan(o);
        if (o.backend == "vulkan-fusion") return guide::run_vulkan_fusion(o);
#endif
#ifdef BURN_EXAMPLE_WITH_CUDA
        if (o.backend == "cuda") return guide::run_cuda(o);
        if (o.backend == "cuda-fusion") return guide::run_cuda_fusion(o);
        if (o.backend == "cuda-graph") return guide::run_cuda_graph(o);
#endif
        std::cerr << "guide: this build has no backend '" << o.backend
                  << "' (built: cpu, cpu-fusion"
#ifdef BURN_EXAMPLE_WITH_VULKAN
                  << ", vulkan, vulkan-fusion"
#endif
#ifdef BURN_EXAMPLE_WITH_CUDA
                  << ", cuda, cuda-fusion, cuda-graph"
#endif
                  << ")"
#ifndef BURN_EXAMPLE_WITH_CUDA
                  << (o.backend.starts_with("cuda")
                          ? "; the CUDA backends are built where CMake finds a GPU, or with "
                            "-DBURN_CUDA_EXAMPLES=ON"
                          : "")
#endif
                  << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "guide: " << e.what() << "\n\n";
        usage(std::cerr);
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "guide: " << e.what() << "\n";
        return 1;
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// guide: the Burn book's guide (model, data, training, backend, inference) as one program.
//
//   guide train [--dataset fashion-mnist|mnist] [--epochs N] [--artifact-dir DIR]
//               [--batch-size N] [--num-workers N] [--lr X] [--seed N]
//               [--train-items N] [--test-items N]
//   guide infer [--dataset fashion-mnist|mnist] [--artifact-dir DIR] [--index I] [--count N]
//               [--min-accuracy X]
//
// `train` trains the book's model with the Learner (live progress on a terminal, plain lines
// otherwise) and writes config.json, the checkpoints, the metric logs, the plots and the trained
// model under the artifact directory (default /tmp/guide). `infer` loads config.json and the
// model and predicts test images, printing the predicted and expected labels. Fashion-MNIST comes
// from Debian's dataset-fashion-mnist package (no network); MNIST is downloaded on first use.
// docs/guide.md walks through the code.
#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>

#include "data.hpp"
#include "inference.hpp"
#include "model.hpp"
#include "training.hpp"

namespace {

struct Options {
    std::string command;
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

void usage(std::ostream& os) {
    os << "usage:\n"
          "  guide train [--dataset fashion-mnist|mnist] [--epochs N] [--artifact-dir DIR]\n"
          "              [--batch-size N] [--num-workers N] [--lr X] [--seed N]\n"
          "              [--train-items N] [--test-items N]\n"
          "  guide infer [--dataset fashion-mnist|mnist] [--artifact-dir DIR] [--index I] [--count N]\n"
          "              [--min-accuracy X]\n"
          "\n"
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
        throw std::invalid_argument("unknown command '" + o.command + "' (expected train or infer)");
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
        } else if (a == "--dataset") {
            const std::string v = value();
            if (v == "fashion-mnist") o.kind = burn::data::MnistKind::Fashion;
            else if (v == "mnist") o.kind = burn::data::MnistKind::Mnist;
            else throw std::invalid_argument("--dataset: expected fashion-mnist or mnist, got '" + v + "'");
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
        else throw std::invalid_argument("unknown option " + std::string(a) + " (see guide --help)");
    }
    return o;
}

constexpr std::array<const char*, 10> kFashionClasses = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                         "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

std::string label_name(burn::data::MnistKind kind, std::int64_t label) {
    if (kind == burn::data::MnistKind::Fashion && label >= 0 && label < 10)
        return std::to_string(label) + " (" + kFashionClasses[std::size_t(label)] + ")";
    return std::to_string(label);
}

}  // namespace

int main(int argc, char** argv) {
    // The book's main.rs picks the backend here; this program uses the CPU backend.
    using MyBackend = burn::Cpu<float>;
    using MyAutodiffBackend = burn::Autodiff<MyBackend>;
    try {
        const Options o = parse(argc, argv);
        const MyBackend::Device device{};
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
            guide::train<MyAutodiffBackend>(o.artifact_dir, config, {o.kind, o.train_items, o.test_items}, device);
            std::cout << "trained model saved to " << (o.artifact_dir / "model").string() << ".mpk.gz\n";
        } else {
            const auto model = guide::load_model<MyBackend>(o.artifact_dir, device);
            const auto test = burn::data::MnistDataset::load(o.kind, burn::data::MnistSplit::Test);
            std::size_t correct = 0, seen = 0;
            for (std::size_t i = o.index; i < o.index + o.count; ++i) {
                const auto item = test.get(i);
                if (!item) {
                    std::cerr << "guide: index " << i << " is past the end of the test split (" << test.len()
                              << " images)\n";
                    return 1;
                }
                const std::int64_t predicted = guide::infer(model, *item, device);
                std::cout << "Image " << i << ": Predicted " << label_name(o.kind, predicted) << " Expected "
                          << label_name(o.kind, item->label) << "\n";
                correct += predicted == item->label;
                ++seen;
            }
            const double accuracy = 100.0 * double(correct) / double(seen);
            std::cout << correct << " of " << seen << " correct (" << accuracy << " %)\n";
            if (accuracy < o.min_accuracy) {
                std::cerr << "guide: accuracy " << accuracy << " % is below --min-accuracy " << o.min_accuracy << "\n";
                return 1;
            }
        }
        return 0;
    } catch (const std::invalid_argument& e) {
        std::cerr << "guide: " << e.what() << "\n\n";
        usage(std::cerr);
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "guide: " << e.what() << "\n";
        return 1;
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// custom-training-loop: the Burn book's "Custom Training Loop" chapter in C++. The book's MNIST
// guide model (conv -> conv -> adaptive average pool -> linear -> dropout -> linear) is trained
// with Adam and cross-entropy by a hand-written loop: forward, loss, accuracy, backward,
// GradientsParams::from_grads, optim.step(lr, model, grads); after each epoch a validation loop
// runs model.valid() on the inner backend. docs/custom-training-loop.md walks through it.
//
// Data: burn::data::MnistDataset (Fashion-MNIST from Debian's dataset-fashion-mnist by default,
// or MNIST), batched by the guide's MnistBatcher through a DataLoader (shuffled every epoch,
// prefetched by worker threads). The model and the batcher are the guide's (examples/guide).
//
// Build and run from the repository root:
//   cmake --build --preset default --target custom-training-loop
//   ./build/default/examples/custom-training-loop/custom-training-loop            # ~1 minute
//   ./build/default/examples/custom-training-loop/custom-training-loop --help
//   ./build/default/examples/custom-training-loop/custom-training-loop --accumulate 4
#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <burn/optim/adam.hpp>
#include <burn/optim/grads.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../guide/data.hpp"
#include "../guide/model.hpp"

// The configs live in a named namespace (the book's `guide` crate): the operators that
// BURN_CONFIG declares would be unused functions in an anonymous one.
namespace guide {

namespace optim = burn::optim;

/// The book's MnistTrainingConfig.
struct MnistTrainingConfig {
    std::size_t num_epochs = 10;
    std::size_t batch_size = 64;
    std::size_t num_workers = 2;
    std::uint64_t seed = 42;
    double lr = 1e-4;
    ModelConfig model;  // required: ModelConfig has required fields
    optim::AdamConfig optimizer = {};
    BURN_CONFIG(MnistTrainingConfig, num_epochs, batch_size, num_workers, seed, lr, model, optimizer)
};

}  // namespace guide

namespace {

using namespace guide;

// ================================================================================ the loop

/// The percentage of rows of `output` [batch, classes] whose argmax is the target (the book's
/// `accuracy` helper).
template <Backend B>
double accuracy(const Tensor<B, 2>& output, const Tensor<B, 1, burn::Int>& targets) {
    const auto predictions = output.argmax(1).template squeeze<1>(1);
    const auto correct = predictions.equal(targets).into_int().sum().into_scalar();
    return 100.0 * double(correct) / double(targets.dims()[0]);
}

struct Options {
    std::size_t epochs = 1;
    std::size_t train_batches = 500;  // per epoch; 0 = the whole training split (938)
    std::size_t valid_batches = 0;    // 0 = the whole test split (157)
    std::size_t batch_size = 64;
    double lr = 1e-3;
    std::size_t accumulate = 1;
    std::size_t log_every = 25;
    std::uint64_t seed = 42;
    std::string data_dir;  // empty: Fashion-MNIST found by MnistDataset's lookup order
    std::size_t num_workers = 2;
    double min_accuracy = 0.0;  // exit 1 when the last validation accuracy is below it
};

void usage(const char* argv0) {
    std::cout
        << "usage: " << argv0 << " [options]\n"
        << "  --epochs N          epochs (default 1; the book: 10)\n"
        << "  --train-batches N   training iterations per epoch (default 500 of 938;\n"
           "                      0 = the whole split)\n"
        << "  --valid-batches N   validation batches per epoch (default 0 = the whole split)\n"
        << "  --batch-size N      items per mini-batch (default 64)\n"
        << "  --lr X              learning rate (default 1e-3; the book: 1e-4 over 10 full epochs)\n"
        << "  --accumulate N      sum the gradients of N mini-batches (GradientsAccumulator) before\n"
        << "                      each optimizer step (default 1: a step per mini-batch)\n"
        << "  --log-every N       print every N-th iteration (default 25; 1: every one, as the book)\n"
        << "  --seed N            seed of the backend and of the shuffling (default 42)\n"
        << "  --data DIR          a directory of MNIST-format IDX files (default: Fashion-MNIST, found\n"
           "                      by MnistDataset's lookup order, e.g. Debian's dataset-fashion-mnist)\n"
        << "  --num-workers N     data loader threads (default 2; 0: batches made by the loop)\n"
        << "  --min-accuracy X    exit with status 1 when the last validation accuracy (%) is\n"
        << "                      below X (a smoke test of the loop; default 0)\n";
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(std::string(a) + " needs a value");
            return argv[++i];
        };
        auto count = [&](bool allow_zero) {
            const std::string v = value();
            std::size_t used = 0;
            const long long n = std::stoll(v, &used);
            if (used != v.size() || n < 0 || (!allow_zero && n == 0))
                throw std::invalid_argument(std::string(a) + ": bad value " + v);
            return std::size_t(n);
        };
        if (a == "--help" || a == "-h") {
            usage(argv[0]);
            std::exit(0);
        } else if (a == "--epochs") o.epochs = count(false);
        else if (a == "--train-batches") o.train_batches = count(true);
        else if (a == "--valid-batches") o.valid_batches = count(true);
        else if (a == "--batch-size") o.batch_size = count(false);
        else if (a == "--lr") o.lr = std::stod(value());
        else if (a == "--accumulate") o.accumulate = count(false);
        else if (a == "--log-every") o.log_every = count(false);
        else if (a == "--seed") o.seed = count(true);
        else if (a == "--data") o.data_dir = value();
        else if (a == "--num-workers") o.num_workers = count(true);
        else if (a == "--min-accuracy") o.min_accuracy = std::stod(value());
        else throw std::invalid_argument("unknown option " + std::string(a) + " (see --help)");
    }
    return o;
}

/// The book's `run<B: AutodiffBackend>(device)`.
template <burn::AutodiffBackend B>
int run(const Options& options, const typename B::Device& device = {}) {
    using Inner = typename B::InnerBackend;

    // Create the configuration (the book's ModelConfig::new(10, 1024) and AdamConfig::new()).
    const MnistTrainingConfig config{
        .num_epochs = options.epochs,
        .batch_size = options.batch_size,
        .num_workers = options.num_workers,
        .seed = options.seed,
        .lr = options.lr,
        .model = {.num_classes = 10, .hidden_size = 1024},
        .optimizer = {},
    };
    std::cout << "config: " << config.to_json_string() << "\n";
    B::seed(config.seed);

    // The data (the book's MnistDataset::train() and ::test()), batched by the guide's batcher.
    using burn::data::MnistDataset;
    auto train = options.data_dir.empty() ? MnistDataset::fashion_train() : MnistDataset::train(options.data_dir);
    auto test = options.data_dir.empty() ? MnistDataset::fashion_test() : MnistDataset::test(options.data_dir);
    std::cout << "data: " << train.len() << " training and " << test.len() << " test images\n";
    auto loader_train = burn::data::DataLoaderBuilder(MnistBatcher<B>{})
                            .batch_size(config.batch_size)
                            .shuffle(config.seed)
                            .num_workers(config.num_workers)
                            .set_device(device)
                            .build(std::move(train));
    auto loader_test = burn::data::DataLoaderBuilder(MnistBatcher<Inner>{})
                           .batch_size(config.batch_size)
                           .num_workers(config.num_workers)
                           .set_device(device)
                           .build(std::move(test));

    // Create the model and optimizer.
    Model<B> model = config.model.template init<B>(device);
    auto optim = config.optimizer.template init<B, Model<B>>();
    std::cout << model << "\n";

    const std::size_t max_train = options.train_batches ? options.train_batches : SIZE_MAX;
    const std::size_t max_valid = options.valid_batches ? options.valid_batches : SIZE_MAX;
    const std::size_t accumulate = options.accumulate;
    if (accumulate > 1)
        std::cout << "gradient accumulation: one optimizer step per " << accumulate
                  << " mini-batches (effective batch " << accumulate * config.batch_size << ")\n";

    const auto start = std::chrono::steady_clock::now();
    double last_valid_accuracy = 0.0, last_valid_loss = 0.0;
    double epoch_train_accuracy = 0.0;
    // Iterate over our training and validation loop for X epochs.
    for (std::size_t epoch = 1; epoch <= config.num_epochs; ++epoch) {
        // Implement our training loop (shuffled again each epoch).
        const std::size_t train_batches = std::min(max_train, loader_train->num_batches());
        optim::GradientsAccumulator<B> accumulator;
        double train_accuracy_sum = 0.0;
        auto train_iter = loader_train->iter();
        for (std::size_t iteration = 0; iteration < train_batches; ++iteration) {
            const auto batch = *train_iter.next();
            const auto output = model.forward(batch.images);
            const auto loss = nn::CrossEntropyLossConfig{}.init<B>(output.device()).forward(output, batch.targets);
            const double acc = accuracy(output, batch.targets);
            train_accuracy_sum += acc;
            if (iteration % options.log_every == 0 || iteration + 1 == train_batches)
                std::printf("[Train - Epoch %zu - Iteration %zu] Loss %.3f | Accuracy %.3f %%\n", epoch,
                            iteration, double(loss.into_scalar()), acc);

            if (accumulate == 1) {
                // Gradients for the current backward pass.
                auto grads = loss.backward();
                // Gradients linked to each parameter of the model.
                auto grads_params = optim::GradientsParams<B>::from_grads(grads, model);
                // Update the model using the optimizer.
                model = optim.step(config.lr, model, std::move(grads_params));
            } else {
                // Each backward pass adds loss / N: the sum over N mini-batches is the gradient
                // of the mean loss over their N * batch_size items.
                auto grads = (loss * (1.0 / double(accumulate))).backward();
                accumulator.accumulate(model, optim::GradientsParams<B>::from_grads(grads, model));
                if ((iteration + 1) % accumulate == 0 || iteration + 1 == train_batches)
                    model = optim.step(config.lr, model, accumulator.grads());  // pops the sum
            }
        }
        epoch_train_accuracy = train_accuracy_sum / double(train_batches);

        // Get the model without autodiff.
        const Model<Inner> model_valid = model.valid();

        // Implement our validation loop (on the inner backend: no graph is recorded).
        const std::size_t valid_batches = std::min(max_valid, loader_test->num_batches());
        double loss_sum = 0.0, acc_sum = 0.0;
        std::size_t items = 0;
        auto valid_iter = loader_test->iter();
        for (std::size_t iteration = 0; iteration < valid_batches; ++iteration) {
            const auto batch = *valid_iter.next();
            const auto output = model_valid.forward(batch.images);
            const auto loss =
                nn::CrossEntropyLossConfig{}.init<Inner>(output.device()).forward(output, batch.targets);
            const double acc = accuracy(output, batch.targets);
            const std::size_t n = batch.targets.dims()[0];
            loss_sum += double(loss.into_scalar()) * double(n);
            acc_sum += acc * double(n);
            items += n;
            if (iteration % options.log_every == 0 || iteration + 1 == valid_batches)
                std::printf("[Valid - Epoch %zu - Iteration %zu] Loss %.3f | Accuracy %.3f %%\n", epoch,
                            iteration, double(loss.into_scalar()), acc);
        }
        last_valid_loss = loss_sum / double(items);
        last_valid_accuracy = acc_sum / double(items);
        std::printf("[Epoch %zu] train accuracy %.3f %% (mean over the epoch) | valid loss %.3f | "
                    "valid accuracy %.3f %% (%zu test images)\n",
                    epoch, epoch_train_accuracy, last_valid_loss, last_valid_accuracy, items);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("done in %.1f s: valid accuracy %.3f %% (chance: 10 %%)\n", seconds, last_valid_accuracy);
    if (last_valid_accuracy < options.min_accuracy) {
        std::printf("FAILED: valid accuracy %.3f %% is below --min-accuracy %.3f %%\n", last_valid_accuracy,
                    options.min_accuracy);
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options options = parse(argc, argv);
        using B = burn::Autodiff<burn::Cpu<float>>;
        return run<B>(options);
    } catch (const std::exception& e) {
        std::cerr << "custom-training-loop: " << e.what() << "\n";
        return 1;
    }
}

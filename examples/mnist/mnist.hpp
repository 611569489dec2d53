// SPDX-License-Identifier: MIT OR Apache-2.0
// The mnist example's model, batcher, options and run<B>() (see main.cpp), generic over the
// backend; backend_<name>.cpp instantiates run for each backend the build has.
#pragma once

#include <array>
#include <burn/burn.hpp>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mnist {

using burn::Backend;
using burn::Int;
using burn::Tensor;
namespace nn = burn::nn;
namespace train = burn::train;
namespace data = burn::data;

template <Backend B>
struct Batch {
    Tensor<B, 2> images;  // [batch, 784], normalised
    Tensor<B, 1, Int> targets;
};

template <Backend B>
struct Batcher {
    Batch<B> batch(std::vector<data::MnistItem> items, const typename B::Device& device) const {
        constexpr std::size_t pixels = data::MNIST_WIDTH * data::MNIST_HEIGHT;
        std::vector<float> images;
        std::vector<std::int64_t> targets;
        images.reserve(items.size() * pixels);
        for (const auto& item : items) {
            for (float p : item.image) images.push_back((p / 255.0f - 0.1307f) / 0.3081f);
            targets.push_back(item.label);
        }
        const std::size_t n = items.size();
        return {Tensor<B, 2>::from_data(burn::TensorData(std::move(images), burn::Shape{n, pixels}),
                                        device),
                Tensor<B, 1, Int>::from_data(burn::TensorData(std::move(targets), burn::Shape{n}),
                                             device)};
    }
};

/// 784 -> hidden -> hidden -> 10 with ReLU and dropout.
template <Backend B>
struct Mlp {
    nn::Linear<B> input;
    nn::Linear<B> hidden;
    nn::Linear<B> output;
    nn::Dropout dropout;
    nn::Relu activation;
    BURN_MODULE(input, hidden, output, dropout, activation)

    Tensor<B, 2> forward(const Tensor<B, 2>& x) const {
        auto h = dropout.forward(activation.forward(input.forward(x)));
        h = dropout.forward(activation.forward(hidden.forward(h)));
        return output.forward(h);
    }
    train::ClassificationOutput<B> forward_classification(const Batch<B>& batch) const {
        auto output = forward(batch.images);
        auto loss =
            nn::CrossEntropyLossConfig{}.init<B>(output.device()).forward(output, batch.targets);
        return {loss, output, batch.targets};
    }
    train::TrainOutput<train::ClassificationOutput<B>> train_step(
        const Batch<B>& batch) const requires burn::AutodiffBackend<B> {
        auto item = forward_classification(batch);
        auto grads = item.loss.backward();
        return {*this, grads, std::move(item)};
    }
    train::ClassificationOutput<B> valid_step(const Batch<B>& batch) const {
        return forward_classification(batch);
    }
};

struct MlpConfig {
    std::size_t hidden_size = 256;
    double dropout = 0.2;
    BURN_CONFIG(MlpConfig, hidden_size, dropout)

    template <Backend B>
    Mlp<B> init(const typename B::Device& device = {}) const {
        constexpr std::size_t pixels = data::MNIST_WIDTH * data::MNIST_HEIGHT;
        return Mlp<B>{
            .input = nn::LinearConfig{.d_input = pixels, .d_output = hidden_size}.init<B>(device),
            .hidden =
                nn::LinearConfig{.d_input = hidden_size, .d_output = hidden_size}.init<B>(device),
            .output =
                nn::LinearConfig{.d_input = hidden_size, .d_output = data::MNIST_CLASSES}.init<B>(
                    device),
            .dropout = nn::DropoutConfig{.prob = dropout}.init(),
            .activation = nn::Relu{},
        };
    }
};

struct ExperimentConfig {
    MlpConfig model;
    burn::optim::AdamConfig optimizer = {};
    std::size_t num_epochs = 8;
    std::size_t batch_size = 128;
    std::size_t num_workers = 2;
    std::uint64_t seed = 7;
    double learning_rate = 2e-3;
    std::size_t valid_items = 5000;  // taken from the end of the (shuffled) training split
    BURN_CONFIG(ExperimentConfig, model, optimizer, num_epochs, batch_size, num_workers, seed,
                learning_rate, valid_items)
};

struct Options {
    data::MnistKind kind = data::MnistKind::Fashion;
    std::optional<std::size_t> epochs;
    std::filesystem::path artifact_dir = "/tmp/burn-mnist";
    std::optional<std::size_t> resume;
    std::string backend = "cpu";
};

template <burn::AutodiffBackend B>
int run(const Options& o, const typename B::Device& device = {}) {
    using IB = typename B::InnerBackend;
    ExperimentConfig config{.model = {}};
    if (o.epochs) config.num_epochs = *o.epochs;
    std::filesystem::create_directories(o.artifact_dir);
    config.save(o.artifact_dir / "config.json");
    B::seed(config.seed);

    // A validation split from the training set, the same for every run with this seed.
    auto all = data::ShuffledDataset<data::MnistDataset>::with_seed(
        data::MnistDataset::load(o.kind, data::MnistSplit::Train), config.seed);
    const std::size_t n_train = all.len() - config.valid_items;
    data::PartialDataset<decltype(all)> train_split(all, 0, n_train);
    data::PartialDataset<decltype(all)> valid_split(all, n_train, all.len());

    auto loader_train = data::DataLoaderBuilder(Batcher<B>{})
                            .batch_size(config.batch_size)
                            .shuffle(config.seed)
                            .num_workers(config.num_workers)
                            .set_device(device)
                            .build(std::move(train_split));
    auto loader_valid = data::DataLoaderBuilder(Batcher<IB>{})
                            .batch_size(config.batch_size)
                            .num_workers(config.num_workers)
                            .set_device(device)
                            .build(std::move(valid_split));

    const std::size_t steps = config.num_epochs * loader_train->num_batches();
    auto scheduler =
        burn::lr_scheduler::CosineAnnealingLrSchedulerConfig{
            .initial_lr = config.learning_rate, .num_iters = steps, .min_lr = 1e-5}
            .init();

    auto builder = train::LearnerBuilder<Mlp<B>>(o.artifact_dir);
    builder.metric_train_numeric(train::AccuracyMetric{})
        .metric_valid_numeric(train::AccuracyMetric{})
        .metric_valid_numeric(train::TopKAccuracyMetric(3))
        .metric_valid_numeric(
            train::FBetaScoreMetric::multiclass(1.0, 1, train::ClassReduction::Macro))
        .metric_train_numeric(train::LossMetric{})
        .metric_valid_numeric(train::LossMetric{})
        .metric_train_numeric(train::LearningRateMetric{})
        .metric_train_numeric(train::IterationSpeedMetric{})
        .metric_train(train::CpuUse{})
        .metric_train(train::CpuMemory{})
        .with_file_checkpointer(burn::record::CompactRecorder{})
        .early_stopping(train::MetricEarlyStoppingStrategy(
            train::LossMetric{}, train::Aggregate::Mean, train::Direction::Lowest,
            train::Split::Valid, train::NoImprovementSince{2}))
        .num_epochs(config.num_epochs)
        .summary();
    if (o.resume) builder.checkpoint(*o.resume);
    auto learner =
        builder.build(config.model.init<B>(device), config.optimizer.init<B, Mlp<B>>(), scheduler);
    const Mlp<B> trained = learner.fit(loader_train, loader_valid);
    if (learner.stop_reason() == train::StopReason::Interrupted) {
        std::cout << "interrupted: resume with --resume <epoch> (see "
                  << (o.artifact_dir / "experiment.log").string() << ")\n";
        return 130;
    }
    trained.save_file(o.artifact_dir / "model", burn::record::CompactRecorder{});

    // The test split, once, at the end.
    const auto model = trained.valid();
    auto loader_test = data::DataLoaderBuilder(Batcher<IB>{})
                           .batch_size(512)
                           .set_device(device)
                           .build(data::MnistDataset::load(o.kind, data::MnistSplit::Test));
    train::AccuracyMetric accuracy;
    for (const auto& batch : *loader_test)
        accuracy.update(
            train::Adaptor<train::AccuracyInput, train::ClassificationOutput<IB>>::adapt(
                model.valid_step(batch)),
            {});
    std::cout << "test accuracy: " << accuracy.value() << " %\n";
    return 0;
}

/// run<Autodiff<backend>> for each backend this build has (backend_<name>.cpp).
int run_cpu(const Options& o);
int run_vulkan(const Options& o);
int run_cuda(const Options& o);

}  // namespace mnist

// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide's training (the Burn book's src/training.rs): the model's classification steps, the
// training configuration, and train(), which runs the Learner and saves the trained model.
#pragma once

#include <algorithm>
#include <burn/burn.hpp>
#include <burn/train.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>

#include "data.hpp"
#include "model.hpp"

namespace guide {

namespace optim = burn::optim;

template <Backend B>
burn::train::ClassificationOutput<B> Model<B>::forward_classification(
    const Tensor<B, 3>& images, const Tensor<B, 1, burn::Int>& targets) const {
    auto output = forward(images);
    auto loss = nn::CrossEntropyLossConfig{}.init<B>(output.device()).forward(output, targets);
    return {loss, output, targets};
}

template <Backend B>
burn::train::TrainOutput<burn::train::ClassificationOutput<B>> Model<B>::train_step(
    const MnistBatch<B>& batch) const requires burn::AutodiffBackend<B> {
    auto item = forward_classification(batch.images, batch.targets);
    auto grads = item.loss.backward();
    return {*this, grads, std::move(item)};
}

template <Backend B>
burn::train::ClassificationOutput<B> Model<B>::valid_step(const MnistBatch<B>& batch) const {
    return forward_classification(batch.images, batch.targets);
}

struct TrainingConfig {
    ModelConfig model;
    optim::AdamConfig optimizer = {};
    std::size_t num_epochs = 10;
    std::size_t batch_size = 64;
    std::size_t num_workers = 4;
    std::uint64_t seed = 42;
    double learning_rate = 1.0e-4;
    BURN_CONFIG(TrainingConfig, model, optimizer, num_epochs, batch_size, num_workers, seed,
                learning_rate)
};

/// Starts from an empty artifact directory, so that the learner's summary covers this run only.
inline void create_artifact_dir(const std::filesystem::path& artifact_dir) {
    std::filesystem::remove_all(artifact_dir);
    std::filesystem::create_directories(artifact_dir);
}

/// Which data train() uses: MNIST or Fashion-MNIST, optionally only the first items of each split
/// (a quick try; the book trains on all of them).
struct DataOptions {
    burn::data::MnistKind kind = burn::data::MnistKind::Fashion;
    std::size_t max_train_items = SIZE_MAX;
    std::size_t max_test_items = SIZE_MAX;
};

/// The first `max_items` items of a split.
inline burn::data::PartialDataset<burn::data::MnistDataset> mnist_split(
    burn::data::MnistKind kind, burn::data::MnistSplit split, std::size_t max_items) {
    auto dataset = burn::data::MnistDataset::load(kind, split);
    const std::size_t len = std::min(max_items, dataset.len());
    return burn::data::PartialDataset<burn::data::MnistDataset>(std::move(dataset), 0, len);
}

/// Trains the model and saves it to <artifact_dir>/model.
template <burn::AutodiffBackend B, class... StepCapture>
void train(const std::filesystem::path& artifact_dir, const TrainingConfig& config,
           const DataOptions& data = {}, const typename B::Device& device = {},
           const StepCapture&... step_capture) {
    using burn::data::MnistSplit;
    create_artifact_dir(artifact_dir);
    config.save(artifact_dir / "config.json");

    B::seed(config.seed);

    auto dataloader_train =
        burn::data::DataLoaderBuilder(MnistBatcher<B>{})
            .batch_size(config.batch_size)
            .shuffle(config.seed)
            .num_workers(config.num_workers)
            .set_device(device)
            .build(mnist_split(data.kind, MnistSplit::Train, data.max_train_items));
    auto dataloader_test =
        burn::data::DataLoaderBuilder(MnistBatcher<typename B::InnerBackend>{})
            .batch_size(config.batch_size)
            .shuffle(config.seed)
            .num_workers(config.num_workers)
            .set_device(device)
            .build(mnist_split(data.kind, MnistSplit::Test, data.max_test_items));

    auto builder = burn::train::LearnerBuilder<Model<B>>(artifact_dir);
    builder.metric_train_numeric(burn::train::AccuracyMetric{})
        .metric_valid_numeric(burn::train::AccuracyMetric{})
        .metric_train_numeric(burn::train::LossMetric{})
        .metric_valid_numeric(burn::train::LossMetric{})
        .with_file_checkpointer(burn::record::CompactRecorder{})
        .devices({device})
        .num_epochs(config.num_epochs)
        .summary();
    (builder.with_step_capture(step_capture), ...);  // guide --backend cuda-graph: CUDA graphs
    auto learner = builder.build(config.model.init<B>(device), config.optimizer.init<B, Model<B>>(),
                                 config.learning_rate);

    Model<B> model_trained = learner.fit(dataloader_train, dataloader_test);

    model_trained.save_file(artifact_dir / "model", burn::record::CompactRecorder{});
}

}  // namespace guide

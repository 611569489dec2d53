// SPDX-License-Identifier: MIT OR Apache-2.0
// The Learner end to end on a tiny synthetic classification task (seconds): training improves
// the metrics, the artifacts follow the book's layout, resuming from a checkpoint reproduces an
// uninterrupted run exactly (model, optimizer and scheduler state), gradient accumulation matches
// a hand-written loop, early stopping, interruption (TrainingInterrupter and SIGINT), errors.
#include <signal.h>

#include <array>
#include <burn/train.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace burn;

namespace learner_test {

using IB = Cpu<float>;
using AD = Autodiff<IB>;

struct Item {
    std::array<float, 2> x{};
    std::int64_t label = 0;
};

template <Backend B>
struct Batch {
    Tensor<B, 2> x;
    Tensor<B, 1, Int> y;
};

template <Backend B>
struct Batcher {
    Batch<B> batch(std::vector<Item> items, const typename B::Device& device) const {
        std::vector<float> x;
        std::vector<std::int64_t> y;
        for (const auto& it : items) {
            x.insert(x.end(), it.x.begin(), it.x.end());
            y.push_back(it.label);
        }
        const std::size_t n = items.size();
        return {Tensor<B, 2>::from_data(TensorData(std::move(x), Shape{n, 2}), device),
                Tensor<B, 1, Int>::from_data(TensorData(std::move(y), Shape{n}), device)};
    }
};

/// Two Gaussian blobs, labels 0 and 1.
data::InMemDataset<Item> blobs(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> noise(0.0f, 0.5f);
    std::vector<Item> items;
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t label = std::int64_t(i % 2);
        const float c = label ? 1.5f : -1.5f;
        items.push_back({{c + noise(rng), -c + noise(rng)}, label});
    }
    return data::InMemDataset<Item>(std::move(items));
}

template <Backend B>
struct Net {
    nn::Linear<B> hidden;
    nn::Linear<B> out;
    BURN_MODULE(hidden, out)

    Tensor<B, 2> forward(const Tensor<B, 2>& x) const {
        return out.forward(activation::relu(hidden.forward(x)));
    }
    train::ClassificationOutput<B> forward_classification(const Batch<B>& batch) const {
        auto output = forward(batch.x);
        auto loss = nn::CrossEntropyLossConfig{}.init<B>().forward(output, batch.y);
        return {loss, output, batch.y};
    }
    train::TrainOutput<train::ClassificationOutput<B>> train_step(
        const Batch<B>& batch) const requires AutodiffBackend<B> {
        auto item = forward_classification(batch);
        auto grads = item.loss.backward();
        return {*this, grads, std::move(item)};
    }
    train::ClassificationOutput<B> valid_step(const Batch<B>& batch) const {
        return forward_classification(batch);
    }
};
static_assert(module::check_fields<Net<IB>>());
static_assert(train::TrainStep<Net<AD>, Batch<AD>, train::ClassificationOutput<AD>>);
static_assert(train::ValidStep<Net<IB>, Batch<IB>, train::ClassificationOutput<IB>>);
static_assert(std::is_same_v<train::LearnerBuilder<Net<AD>>::TrainBatch, Batch<AD>>);
static_assert(
    std::is_same_v<train::LearnerBuilder<Net<AD>>::ValidItem, train::ClassificationOutput<IB>>);

Net<AD> make_net(std::uint64_t seed) {
    AD::seed(seed);
    return Net<AD>{nn::LinearConfig{.d_input = 2, .d_output = 8}.init<AD>(),
                   nn::LinearConfig{.d_input = 8, .d_output = 2}.init<AD>()};
}

// A regression: y = x0 - 2 x1 + 0.5 plus a little noise, fitted by a Linear layer.
struct RegItem {
    std::array<float, 2> x{};
    float y = 0;
};

template <Backend B>
struct RegBatch {
    Tensor<B, 2> x;
    Tensor<B, 2> y;  // [batch, 1]
};

template <Backend B>
struct RegBatcher {
    RegBatch<B> batch(std::vector<RegItem> items, const typename B::Device& device) const {
        std::vector<float> x, y;
        for (const auto& it : items) {
            x.insert(x.end(), it.x.begin(), it.x.end());
            y.push_back(it.y);
        }
        const std::size_t n = items.size();
        return {Tensor<B, 2>::from_data(TensorData(std::move(x), Shape{n, 2}), device),
                Tensor<B, 2>::from_data(TensorData(std::move(y), Shape{n, 1}), device)};
    }
};

data::InMemDataset<RegItem> line_data(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    std::vector<RegItem> items;
    for (std::size_t i = 0; i < n; ++i) {
        const float a = u(rng), b = u(rng);
        items.push_back({{a, b}, a - 2.0f * b + 0.5f + noise(rng)});
    }
    return data::InMemDataset<RegItem>(std::move(items));
}

template <Backend B>
struct RegNet {
    nn::Linear<B> fc;
    BURN_MODULE(fc)

    train::RegressionOutput<B> forward_regression(const RegBatch<B>& batch) const {
        auto output = fc.forward(batch.x);
        auto loss = nn::MseLoss{}.forward(output, batch.y, nn::Reduction::Mean);
        return {loss, output, batch.y};
    }
    train::TrainOutput<train::RegressionOutput<B>> train_step(
        const RegBatch<B>& batch) const requires AutodiffBackend<B> {
        auto item = forward_regression(batch);
        auto grads = item.loss.backward();
        return {*this, grads, std::move(item)};
    }
    train::RegressionOutput<B> valid_step(const RegBatch<B>& batch) const {
        return forward_regression(batch);
    }
};

/// A renderer that keeps what it was given (and shows nothing).
struct RecordingRenderer final : train::MetricsRenderer {
    struct Log {
        std::size_t train_updates = 0, valid_updates = 0, train_renders = 0, valid_renders = 0;
        std::vector<train::EpochSummary> epochs;
        std::vector<std::string> messages;
        bool finished = false;
    };
    std::shared_ptr<Log> log = std::make_shared<Log>();
    void update_train(const train::MetricState&) override { ++log->train_updates; }
    void update_valid(const train::MetricState&) override { ++log->valid_updates; }
    void render_train(const train::TrainingProgress&) override { ++log->train_renders; }
    void render_valid(const train::TrainingProgress&) override { ++log->valid_renders; }
    void on_epoch_end(const train::EpochSummary& s) override { log->epochs.push_back(s); }
    void message(const std::string& text) override { log->messages.push_back(text); }
    void finish() override { log->finished = true; }
};

/// A numeric metric that calls a hook at every update (to interrupt training mid-epoch) and
/// reports a constant value (to trigger early stopping).
struct HookMetric {
    using Input = train::NoInput;
    std::function<void(const train::MetricMetadata&)> hook;
    double constant = 1.0;
    train::MetricEntry update(const Input&, const train::MetricMetadata& md) {
        if (hook) hook(md);
        return state.update(constant, 1, train::FormatOptions("Hook"));
    }
    void clear() { state.reset(); }
    std::string name() const { return "Hook"; }
    double value() const { return state.value(); }
    train::NumericMetricState state;
};
static_assert(train::Numeric<HookMetric>);

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("burn_learner_" + std::to_string(::getpid()) + "_" +
                                            std::to_string(std::random_device{}()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

std::size_t count_lines(const fs::path& p) {
    std::ifstream in(p);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += !line.empty();
    return n;
}

auto loaders(std::size_t batch, std::optional<std::uint64_t> shuffle = std::nullopt) {
    auto train_builder = data::DataLoaderBuilder(Batcher<AD>{}).batch_size(batch);
    auto valid_builder = data::DataLoaderBuilder(Batcher<IB>{}).batch_size(batch);
    if (shuffle) train_builder.shuffle(*shuffle);
    return std::make_pair(train_builder.build(blobs(96, 1)), valid_builder.build(blobs(40, 2)));
}

std::vector<float> params_of(const Net<AD>& net) {
    std::vector<float> out;
    net.visit([&](const module::ParamId&, const auto& t) {
        for (float v : t.to_data().template to_vec<float>()) out.push_back(v);
    });
    return out;
}

}  // namespace learner_test

using namespace learner_test;

TEST(Learner, TrainsAndWritesTheBooksArtifacts) {
    TempDir dir;
    auto renderer = std::make_unique<RecordingRenderer>();
    auto log = renderer->log;
    auto [train_loader, valid_loader] = loaders(8, 7);
    auto learner =
        train::LearnerBuilder<Net<AD>>(dir.path)
            .metric_train_numeric(train::AccuracyMetric{})
            .metric_valid_numeric(train::AccuracyMetric{})
            .metric_train_numeric(train::LossMetric{})
            .metric_valid_numeric(train::LossMetric{})
            .with_file_checkpointer(record::NamedMpkFileRecorder<record::FullPrecisionSettings>{})
            .num_epochs(4)
            .summary()
            .renderer(std::move(renderer))
            .handle_sigint(false)
            .build(make_net(3), optim::AdamConfig{}.init<AD, Net<AD>>(), 5e-2);
    const Net<AD> trained = learner.fit(train_loader, valid_loader);
    EXPECT_EQ(learner.stop_reason(), train::StopReason::Completed);

    // Learning happened: validation accuracy high, loss down.
    const auto& valid = learner.valid_history();
    ASSERT_EQ(valid.at("Accuracy").size(), 4u);
    EXPECT_GE(valid.at("Accuracy").back(), 95.0);
    EXPECT_LT(valid.at("Loss").back(), valid.at("Loss").front());
    EXPECT_LT(learner.train_history().at("Loss").back(),
              learner.train_history().at("Loss").front());

    // The book's layout: logs with one line per step, checkpoints, experiment.log, plots.
    for (std::size_t e = 1; e <= 4; ++e) {
        EXPECT_EQ(count_lines(dir.path / "train" / ("epoch-" + std::to_string(e)) / "Accuracy.log"),
                  12u);
        EXPECT_EQ(count_lines(dir.path / "train" / ("epoch-" + std::to_string(e)) / "Loss.log"),
                  12u);
        EXPECT_EQ(count_lines(dir.path / "valid" / ("epoch-" + std::to_string(e)) / "Accuracy.log"),
                  5u);
    }
    EXPECT_TRUE(fs::exists(dir.path / "checkpoint" / "model-4.mpk"));
    EXPECT_TRUE(fs::exists(dir.path / "checkpoint" / "optim-4.mpk"));
    EXPECT_TRUE(fs::exists(dir.path / "checkpoint" / "scheduler-4.mpk"));
    EXPECT_TRUE(fs::exists(dir.path / "checkpoint" / "model-3.mpk"));
    // Epochs 1 and 2 are gone unless one is the best validation loss (here the loss keeps falling).
    EXPECT_FALSE(fs::exists(dir.path / "checkpoint" / "model-1.mpk"));
    EXPECT_FALSE(fs::exists(dir.path / "checkpoint" / "model-2.mpk"));
    EXPECT_TRUE(fs::exists(dir.path / "experiment.log"));
    EXPECT_TRUE(fs::exists(dir.path / "plots" / "Accuracy.svg"));
    EXPECT_TRUE(fs::exists(dir.path / "plots" / "Loss.svg"));

    // The last checkpoint is the returned model.
    const auto loaded =
        make_net(99).load_record(record::NamedMpkFileRecorder<record::FullPrecisionSettings>{}.load(
            dir.path / "checkpoint" / "model-4"));
    EXPECT_EQ(params_of(loaded), params_of(trained));

    // The renderer saw every step of both splits and the epochs' ends.
    EXPECT_EQ(log->train_renders, 4u * 12u);
    EXPECT_EQ(log->valid_renders, 4u * 5u);
    EXPECT_EQ(log->train_updates, 4u * 12u * 2u);
    EXPECT_EQ(log->epochs.size(), 8u);
    EXPECT_TRUE(log->finished);
    ASSERT_FALSE(log->messages.empty());
    EXPECT_NE(log->messages.back().find("Learner Summary"), std::string::npos);
    EXPECT_NE(learner.summary_text().find("| Valid | Accuracy"), std::string::npos);
}

// The Autocast dtype each step of AutocastProbe ran under, and the dtype of its linear output.
std::vector<std::pair<std::optional<DType>, DType>> autocast_log;

template <Backend B>
struct AutocastProbe {
    nn::Linear<B> fc;
    BURN_MODULE(fc)

    train::RegressionOutput<B> forward_regression(const RegBatch<B>& batch) const {
        auto output = fc.forward(batch.x);
        autocast_log.emplace_back(autocast_dtype(), output.dtype());
        auto loss = nn::MseLoss{}.forward(output, batch.y, nn::Reduction::Mean);
        return {loss, output.cast(DType::F32), batch.y};
    }
    train::TrainOutput<train::RegressionOutput<B>> train_step(
        const RegBatch<B>& batch) const requires AutodiffBackend<B> {
        auto item = forward_regression(batch);
        auto grads = item.loss.backward();
        return {*this, grads, std::move(item)};
    }
    train::RegressionOutput<B> valid_step(const RegBatch<B>& batch) const {
        return forward_regression(batch);
    }
};

TEST(Learner, AutocastRunsEveryStepInAHalfPrecisionScope) {
    TempDir dir;
    auto train_loader = data::DataLoaderBuilder(RegBatcher<AD>{})
                            .batch_size(16)
                            .shuffle(3)
                            .build(line_data(160, 1));
    auto valid_loader =
        data::DataLoaderBuilder(RegBatcher<IB>{}).batch_size(16).build(line_data(32, 2));
    for (const bool on : {false, true}) {
        autocast_log.clear();
        AD::seed(5);
        auto builder = train::LearnerBuilder<AutocastProbe<AD>>(dir.path / (on ? "on" : "off"))
                           .metric_train_numeric(train::LossMetric{})
                           .metric_valid_numeric(train::LossMetric{})
                           .num_epochs(4)
                           .renderer(std::make_unique<RecordingRenderer>())
                           .handle_sigint(false);
        if (on) builder.autocast();
        auto learner = builder.build(
            AutocastProbe<AD>{nn::LinearConfig{.d_input = 2, .d_output = 1}.init<AD>()},
            optim::AdamConfig{}.init<AD, AutocastProbe<AD>>(), 5e-2);
        const auto trained = learner.fit(train_loader, valid_loader);
        ASSERT_EQ(autocast_log.size(), 4u * (10u + 2u));  // train and validation steps
        for (const auto& [scope, out] : autocast_log) {
            EXPECT_EQ(scope, on ? std::optional<DType>(DType::BF16) : std::nullopt);
            EXPECT_EQ(out, on ? DType::BF16 : DType::F32);  // the linear layer ran in bf16
        }
        // The parameters stay f32 (master weights) and the model learns all the same.
        EXPECT_EQ(trained.fc.weight.val().dtype(), DType::F32);
        const auto& loss = learner.valid_history().at("Loss");
        EXPECT_LT(loss.back(), 0.5 * loss.front()) << (on ? "with" : "without") << " autocast";
    }
    EXPECT_FALSE(autocast_dtype().has_value());  // the scope ended with the steps
    EXPECT_THROW(train::LearnerBuilder<AutocastProbe<AD>>(dir.path).autocast(DType::F32), Error);
}

TEST(Learner, RegressionMetricsAreExactOverTheValidationEpoch) {
    TempDir dir;
    auto train_loader = data::DataLoaderBuilder(RegBatcher<AD>{})
                            .batch_size(16)
                            .shuffle(3)
                            .build(line_data(160, 1));
    const auto valid_data = line_data(50, 2);
    // Batches of 16, 16, 16 and 2: an epoch value averaged over batches would differ.
    auto valid_loader = data::DataLoaderBuilder(RegBatcher<IB>{}).batch_size(16).build(valid_data);
    AD::seed(5);
    auto learner = train::LearnerBuilder<RegNet<AD>>(dir.path)
                       .metric_train_numeric(train::LossMetric{})
                       .metric_valid_numeric(train::LossMetric{})
                       .metric_train_numeric(train::MaeMetric{})
                       .metric_valid_numeric(train::MaeMetric{})
                       .metric_valid_numeric(train::RmseMetric{})
                       .metric_valid_numeric(train::R2Metric{})
                       .num_epochs(6)
                       .renderer(std::make_unique<RecordingRenderer>())
                       .handle_sigint(false)
                       .build(RegNet<AD>{nn::LinearConfig{.d_input = 2, .d_output = 1}.init<AD>()},
                              optim::AdamConfig{}.init<AD, RegNet<AD>>(), 5e-2);
    const RegNet<AD> trained = learner.fit(train_loader, valid_loader);
    const auto& valid = learner.valid_history();
    ASSERT_EQ(valid.at("R2").size(), 6u);
    EXPECT_GT(valid.at("R2").back(), 0.9);
    EXPECT_LT(valid.at("MAE").back(), valid.at("MAE").front());
    EXPECT_TRUE(learner.train_history().contains("MAE"));

    // The last validation epoch ran the returned model: recompute its metrics on all 50 items.
    const auto model = trained.valid();
    const auto all = RegBatcher<IB>{}.batch(
        std::vector<RegItem>(data::iter(valid_data).begin(), data::iter(valid_data).end()), {});
    const auto pred = model.fc.forward(all.x).to_data().to_vec<float>();
    const auto y = all.y.to_data().to_vec<float>();
    double mean = 0, ss_tot = 0, ss_res = 0, abs_sum = 0;
    for (float v : y) mean += v;
    mean /= double(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        ss_tot += (y[i] - mean) * (y[i] - mean);
        ss_res += (double(y[i]) - pred[i]) * (double(y[i]) - pred[i]);
        abs_sum += std::abs(double(y[i]) - pred[i]);
    }
    EXPECT_NEAR(valid.at("R2").back(), 1.0 - ss_res / ss_tot, 1e-4);
    EXPECT_NEAR(valid.at("RMSE").back(), std::sqrt(ss_res / double(y.size())), 1e-4);
    EXPECT_NEAR(valid.at("MAE").back(), abs_sum / double(y.size()), 1e-4);

    // Logged per step and plotted under their names.
    for (const char* name : {"MAE", "RMSE", "R2"}) {
        EXPECT_EQ(count_lines(dir.path / "valid" / "epoch-6" / (std::string(name) + ".log")), 4u)
            << name;
        EXPECT_TRUE(fs::exists(dir.path / "plots" / (std::string(name) + ".svg"))) << name;
    }
}

TEST(Learner, ResumingFromACheckpointMatchesAnUninterruptedRun) {
    // No dropout, so that the run depends only on the model, optimizer and scheduler states and
    // on the data order; the scheduler changes the learning rate every step, and the training
    // loader is shuffled (the resumed run must replay the orders of the epochs it skips).
    auto scheduler =
        lr_scheduler::LinearLrSchedulerConfig{.initial_lr = 5e-2, .final_lr = 1e-3, .num_iters = 30}
            .init();
    TempDir full_dir, resumed_dir;
    auto run = [&](const fs::path& dir, std::size_t epochs, std::optional<std::size_t> resume) {
        auto [train_loader, valid_loader] = loaders(8, 17);
        auto builder = train::LearnerBuilder<Net<AD>>(dir);
        builder.metric_valid_numeric(train::LossMetric{})
            .with_file_checkpointer(record::BinFileRecorder<record::FullPrecisionSettings>{})
            .num_epochs(epochs)
            .renderer(std::make_unique<RecordingRenderer>())
            .handle_sigint(false);
        if (resume) builder.checkpoint(*resume);
        auto learner =
            builder.build(make_net(5), optim::AdamConfig{}.init<AD, Net<AD>>(), scheduler);
        return learner.fit(train_loader, valid_loader);
    };
    const Net<AD> full = run(full_dir.path, 4, std::nullopt);
    run(resumed_dir.path, 2, std::nullopt);
    const Net<AD> resumed = run(resumed_dir.path, 4, 2);
    EXPECT_EQ(params_of(resumed), params_of(full));
    // The resumed run's histories include the epoch before the checkpoint, read from the logs.
    EXPECT_EQ(count_lines(resumed_dir.path / "valid" / "epoch-1" / "Loss.log"), 5u);
    EXPECT_EQ(count_lines(resumed_dir.path / "valid" / "epoch-4" / "Loss.log"), 5u);
}

TEST(Learner, ResumingWithoutACheckpointerIsAnError) {
    TempDir dir;
    EXPECT_BURN_ERROR(train::LearnerBuilder<Net<AD>>(dir.path)
                          .checkpoint(1)
                          .renderer(std::make_unique<RecordingRenderer>())
                          .build(make_net(1), optim::SgdConfig{}.init<AD, Net<AD>>(), 0.1),
                      "with_file_checkpointer");
    EXPECT_BURN_ERROR(train::LearnerBuilder<Net<AD>>(dir.path).num_epochs(0), "num_epochs");
    EXPECT_BURN_ERROR(train::LearnerBuilder<Net<AD>>(dir.path).grads_accumulation(0),
                      "grads_accumulation");
    // A checkpoint that does not exist: the recorder's error names the file.
    auto [train_loader, valid_loader] = loaders(8);
    auto learner =
        train::LearnerBuilder<Net<AD>>(dir.path)
            .with_file_checkpointer(record::BinFileRecorder<record::FullPrecisionSettings>{})
            .checkpoint(7)
            .renderer(std::make_unique<RecordingRenderer>())
            .handle_sigint(false)
            .build(make_net(1), optim::SgdConfig{}.init<AD, Net<AD>>(), 0.1);
    EXPECT_BURN_ERROR(learner.fit(train_loader, valid_loader), "model-7");
}

TEST(Learner, GradientAccumulationMatchesAHandWrittenLoop) {
    TempDir dir;
    auto [train_loader, valid_loader] = loaders(8);
    auto learner = train::LearnerBuilder<Net<AD>>(dir.path)
                       .grads_accumulation(3)
                       .num_epochs(1)
                       .renderer(std::make_unique<RecordingRenderer>())
                       .handle_sigint(false)
                       .plots(false)
                       .build(make_net(11), optim::AdamConfig{}.init<AD, Net<AD>>(), 1e-2);
    const Net<AD> trained = learner.fit(train_loader, valid_loader);

    Net<AD> model = make_net(11);
    auto optim = optim::AdamConfig{}.init<AD, Net<AD>>();
    optim::GradientsAccumulator<AD> acc;
    std::size_t n = 0;
    const auto manual_loader = loaders(8).first;
    for (auto batch : *manual_loader) {
        auto out = model.train_step(batch);
        acc.accumulate(model, std::move(out.grads));
        if (++n % 3 == 0) model = optim.step(1e-2, model, acc.grads());
    }
    ASSERT_EQ(n, 12u);
    EXPECT_EQ(params_of(trained), params_of(model));
}

TEST(Learner, EarlyStoppingStopsWhenTheMetricStopsImproving) {
    TempDir dir;
    auto [train_loader, valid_loader] = loaders(16);
    auto learner = train::LearnerBuilder<Net<AD>>(dir.path)
                       .metric_valid_numeric(HookMetric{})
                       .early_stopping(train::MetricEarlyStoppingStrategy(
                           HookMetric{}, train::Aggregate::Mean, train::Direction::Lowest,
                           train::Split::Valid, train::NoImprovementSince{2}))
                       .num_epochs(10)
                       .renderer(std::make_unique<RecordingRenderer>())
                       .handle_sigint(false)
                       .build(make_net(2), optim::SgdConfig{}.init<AD, Net<AD>>(), 0.1);
    learner.fit(train_loader, valid_loader);
    EXPECT_EQ(learner.stop_reason(), train::StopReason::EarlyStopping);
    // Epoch 1 sets the best value; epochs 2 and 3 do not improve on it.
    EXPECT_EQ(learner.valid_history().at("Hook").size(), 3u);

    train::MetricEarlyStoppingStrategy s("Loss", train::Aggregate::Mean, train::Direction::Highest,
                                         train::Split::Train, train::NoImprovementSince{1});
    EXPECT_FALSE(s.should_stop(1, 1.0));
    EXPECT_FALSE(s.should_stop(2, 2.0));
    EXPECT_TRUE(s.should_stop(3, 1.5));
    EXPECT_EQ(s.best()->first, 2u);
    EXPECT_NE(s.reason().find("best 2 at epoch 2"), std::string::npos);
}

TEST(Learner, EarlyStoppingOnAnUnregisteredMetricIsAnError) {
    TempDir dir;
    auto [train_loader, valid_loader] = loaders(16);
    auto learner = train::LearnerBuilder<Net<AD>>(dir.path)
                       .early_stopping(train::MetricEarlyStoppingStrategy(
                           "Loss", train::Aggregate::Mean, train::Direction::Lowest,
                           train::Split::Valid, train::NoImprovementSince{1}))
                       .renderer(std::make_unique<RecordingRenderer>())
                       .handle_sigint(false)
                       .build(make_net(2), optim::SgdConfig{}.init<AD, Net<AD>>(), 0.1);
    EXPECT_BURN_ERROR(learner.fit(train_loader, valid_loader), "no numeric metric of that name");
}

TEST(Learner, AnInterrupterStopsAfterTheCurrentStepAndCheckpoints) {
    TempDir dir;
    train::TrainingInterrupter interrupter;
    HookMetric hook;
    std::size_t steps = 0;
    hook.hook = [&](const train::MetricMetadata& md) {
        ++steps;
        if (md.epoch == 2 && md.iteration == 3) interrupter.stop();
    };
    auto [train_loader, valid_loader] = loaders(8);
    auto learner =
        train::LearnerBuilder<Net<AD>>(dir.path)
            .metric_train_numeric(std::move(hook))
            .with_file_checkpointer(record::BinFileRecorder<record::FullPrecisionSettings>{})
            .with_interrupter(interrupter)
            .num_epochs(5)
            .renderer(std::make_unique<RecordingRenderer>())
            .handle_sigint(false)
            .build(make_net(2), optim::AdamConfig{}.init<AD, Net<AD>>(), 1e-2);
    const Net<AD> model = learner.fit(train_loader, valid_loader);
    EXPECT_EQ(learner.stop_reason(), train::StopReason::Interrupted);
    EXPECT_EQ(steps, 12u + 3u);
    ASSERT_TRUE(fs::exists(dir.path / "checkpoint" / "model-2.bin"));
    const auto saved =
        make_net(9).load_record(record::BinFileRecorder<record::FullPrecisionSettings>{}.load(
            dir.path / "checkpoint" / "model-2"));
    EXPECT_EQ(params_of(saved), params_of(model));
    std::ifstream in(dir.path / "experiment.log");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("interrupted during epoch 2"), std::string::npos);
}

TEST(Learner, CtrlCStopsTrainingCleanlyAndRestoresTheHandler) {
    TempDir dir;
    HookMetric hook;
    hook.hook = [](const train::MetricMetadata& md) {
        if (md.iteration == 2) ::raise(SIGINT);
    };
    auto [train_loader, valid_loader] = loaders(8);
    auto learner =
        train::LearnerBuilder<Net<AD>>(dir.path)
            .metric_train_numeric(std::move(hook))
            .with_file_checkpointer(record::BinFileRecorder<record::FullPrecisionSettings>{})
            .num_epochs(3)
            .renderer(std::make_unique<RecordingRenderer>())
            .build(make_net(2), optim::AdamConfig{}.init<AD, Net<AD>>(), 1e-2);
    learner.fit(train_loader, valid_loader);
    EXPECT_EQ(learner.stop_reason(), train::StopReason::Interrupted);
    EXPECT_TRUE(fs::exists(dir.path / "checkpoint" / "model-1.bin"));
    // The previous (default) handler is back.
    struct sigaction current {};
    sigaction(SIGINT, nullptr, &current);
    EXPECT_EQ(current.sa_handler, SIG_DFL);
}

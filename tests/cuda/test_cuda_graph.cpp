// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA graphs (burn/backend/cuda/graph.hpp): CudaGraph replays its captured work, refuses reads
// while capturing, continues the random stream at every replay; CudaGraphStep trains the guide's
// model (dropout, cross-entropy, Adam) to the same losses, parameters and optimizer state as
// uncaptured steps, captures again when the state is replaced, checks its inputs, and replays
// without new device memory. Skips without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <burn/backend/cuda.hpp>
#include <burn/backend/cuda/graph.hpp>
#include <burn/burn.hpp>
#include <burn/fusion/fusion.hpp>
#include <burn/train.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model.hpp"
#include "training.hpp"

namespace {

using B = burn::Cuda<>;
using AD = burn::Autodiff<B>;
using burn::Tensor;

#define BURN_REQUIRE_CUDA()                                                                    \
    do {                                                                                       \
        if (::burn::cuda_device_count() == 0) GTEST_SKIP() << burn::cuda_unavailable_reason(); \
    } while (0)

const burn::CudaDevice kDevice{0};

std::vector<float> values(const Tensor<B, 1>& t) { return t.into_data().to_vec<float>(); }

TEST(CudaGraph, ReplaysRunTheCapturedWorkOnTheCurrentInputs) {
    BURN_REQUIRE_CUDA();
    auto x = Tensor<B, 1>::from_floats({1, 2, 3}, kDevice);
    std::optional<Tensor<B, 1>> y;
    const auto graph = burn::CudaGraph::capture(kDevice, [&] { y = x * 2.0 + 1.0; });
    EXPECT_GE(graph.node_count(), 1u);
    graph.replay();
    EXPECT_EQ(values(*y), (std::vector<float>{3, 5, 7}));
    // New values in the block the graph reads: the next replay computes from them.
    burn::cuda::graph_detail::copy_into(
        x.primitive(), Tensor<B, 1>::from_floats({10, 20, 30}, kDevice).primitive());
    graph.replay();
    EXPECT_EQ(values(*y), (std::vector<float>{21, 41, 61}));
    EXPECT_EQ(graph.launches(), 2);
}

TEST(CudaGraph, ReadsAndWaitsInsideACaptureThrowAndTheDeviceStaysUsable) {
    BURN_REQUIRE_CUDA();
    const auto x = Tensor<B, 1>::from_floats({1, 2, 3}, kDevice);
    try {
        (void)burn::CudaGraph::capture(kDevice, [&] { (void)(x * 2.0).into_data(); });
        FAIL() << "a read inside a capture did not throw";
    } catch (const burn::Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("CudaGraph::capture"), std::string::npos) << msg;
        EXPECT_NE(msg.find("while a CUDA graph is captured"), std::string::npos) << msg;
    }
    EXPECT_THROW((void)burn::CudaGraph::capture(kDevice, [&] { burn::cuda_sync(kDevice); }),
                 burn::Error);
    EXPECT_EQ(values(x + 1.0), (std::vector<float>{2, 3, 4}));
    EXPECT_THROW(burn::CudaGraph{}.replay(), burn::Error);
}

TEST(CudaGraph, DataUploadedInsideACaptureIsAConstantOfTheGraph) {
    BURN_REQUIRE_CUDA();
    std::optional<Tensor<B, 1>> y;
    const auto graph = burn::CudaGraph::capture(kDevice, [&] {
        y = Tensor<B, 1>::from_floats({4, 5}, kDevice) + 1.0;
    });
    graph.replay();
    graph.replay();
    EXPECT_EQ(values(*y), (std::vector<float>{5, 6}));
}

TEST(CudaGraph, RandomNumbersContinueTheStreamAtEveryReplay) {
    BURN_REQUIRE_CUDA();
    const burn::Shape shape{1000};
    B::seed(5);
    std::vector<std::vector<float>> eager;
    for (int i = 0; i < 4; ++i)
        eager.push_back(
            values(Tensor<B, 1>::random(shape, burn::Distribution::Default(), kDevice) +
                   Tensor<B, 1>::random(shape, burn::Distribution::Bernoulli(0.5), kDevice)));
    B::seed(5);
    std::optional<Tensor<B, 1>> r;
    const auto graph = burn::CudaGraph::capture(kDevice, [&] {
        r = Tensor<B, 1>::random(shape, burn::Distribution::Default(), kDevice) +
            Tensor<B, 1>::random(shape, burn::Distribution::Bernoulli(0.5), kDevice);
    });
    EXPECT_EQ(graph.patched_node_count(), 2u);
    for (int i = 0; i < 3; ++i) {
        graph.replay();
        EXPECT_EQ(values(*r), eager[i]) << "replay " << i;
    }
    // Uncaptured draws go on from where the replays left the stream.
    EXPECT_EQ(values(Tensor<B, 1>::random(shape, burn::Distribution::Default(), kDevice) +
                     Tensor<B, 1>::random(shape, burn::Distribution::Bernoulli(0.5), kDevice)),
              eager[3]);
}

// ---- CudaGraphStep on the guide's model ----

constexpr std::size_t kBatch = 16;

template <class A = AD>
Tensor<A, 3> images(int step) {
    B::seed(1000 + step);  // the batch of each step, whatever the stream's position
    const auto u = Tensor<B, 3>::random({kBatch, 28, 28}, burn::Distribution::Default(), kDevice);
    return (Tensor<A, 3>::from_data(u.into_data(), kDevice) - 0.13) * 3.0;
}

template <class A = AD>
Tensor<A, 1, burn::Int> labels(int step) {
    std::vector<std::int64_t> v(kBatch);
    for (std::size_t i = 0; i < kBatch; ++i) v[i] = static_cast<std::int64_t>((i * 7 + step) % 10);
    return Tensor<A, 1, burn::Int>::from_data(burn::TensorData(std::move(v), burn::Shape{kBatch}),
                                              kDevice);
}

struct TrainRun {
    std::vector<float> losses;
    std::vector<float> weights;  ///< linear2's weight after the last step
    burn::record::Record optim;
};

template <class A = AD>
guide::Model<A> fresh_model() {
    A::seed(42);
    return guide::ModelConfig{.num_classes = 10, .hidden_size = 32}.init<A>(kDevice);
}

/// The guide's training step (cross-entropy, backward, Adam at 1e-3) on `model` and `optim`.
template <class A, class O>
auto guide_step(guide::Model<A>& model, O& optim, const burn::nn::CrossEntropyLoss<A>& loss_fn) {
    return [&model, &optim, &loss_fn](const Tensor<A, 3>& x, const Tensor<A, 1, burn::Int>& y) {
        auto loss = loss_fn.forward(model.forward(x), y);
        auto grads = loss.backward();
        model = optim.step(1e-3, model, burn::optim::GradientsParams<A>::from_grads(grads, model));
        return loss;
    };
}

/// `steps` steps of the guide's training (dropout 0.5 active, cross-entropy, Adam) on
/// Autodiff<Inner>, uncaptured or through a CudaGraphStep; the batches are made before the
/// step's dropout draws and reseed the stream, so both runs draw the same masks.
template <class Inner = B>
TrainRun train(int steps, bool captured, std::size_t* captures = nullptr) {
    using A = burn::Autodiff<Inner>;
    auto model = fresh_model<A>();
    auto optim = burn::optim::AdamConfig{}.init<A, guide::Model<A>>();
    const auto loss_fn = burn::nn::CrossEntropyLossConfig{}.init<A>(kDevice);
    auto body = guide_step(model, optim, loss_fn);
    burn::CudaGraphStep step(kDevice, body, model, optim);
    TrainRun run;
    for (int s = 0; s < steps; ++s) {
        const auto x = images<A>(s);
        const auto y = labels<A>(s);
        const auto loss = captured ? step(x, y) : body(x, y);
        run.losses.push_back(loss.into_scalar());
    }
    run.weights = model.linear2.weight.val().inner().into_data().template to_vec<float>();
    run.optim = optim.to_record();
    if (captures) *captures = step.captures();
    return run;
}

void expect_near(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], 1e-5 + 1e-5 * std::abs(b[i])) << what << " [" << i << "]";
}

TEST(CudaGraphStep, GuideStepsMatchUncapturedSteps) {
    BURN_REQUIRE_CUDA();
    const TrainRun eager = train(7, false);
    std::size_t captures = 0;
    const TrainRun graphed = train(7, true, &captures);
    EXPECT_EQ(captures, 1u);
    expect_near(graphed.losses, eager.losses, "loss");
    expect_near(graphed.weights, eager.weights, "linear2.weight");
    // Adam's step counts advanced at every replay, as the uncaptured steps advanced them.
    const auto& map = graphed.optim.as<burn::record::Record::Map>("optimizer record");
    ASSERT_FALSE(map.empty());
    for (const auto& [id, state] : map) {
        const auto& entries = state.as<burn::record::Record::Map>(id);
        bool found = false;
        for (const auto& [name, v] : entries)
            if (name == "time") {
                found = true;
                EXPECT_EQ(v.as<std::int64_t>("time"), 7) << id;
            }
        EXPECT_TRUE(found) << id;
    }
}

TEST(CudaGraphStep, FusedGuideStepsMatchUncapturedSteps) {
    BURN_REQUIRE_CUDA();
    // Autodiff<Fusion<Cuda<>>>: the fused element-wise kernels are recorded as the others.
    const TrainRun eager = train<burn::Fusion<B>>(6, false);
    std::size_t captures = 0;
    const TrainRun graphed = train<burn::Fusion<B>>(6, true, &captures);
    EXPECT_EQ(captures, 1u);
    expect_near(graphed.losses, eager.losses, "loss");
    expect_near(graphed.weights, eager.weights, "linear2.weight");
}

TEST(CudaGraphStep, ReplacedStateIsCapturedAgainAndReplaysAllocateNothing) {
    BURN_REQUIRE_CUDA();
    auto model = fresh_model();
    auto optim = burn::optim::AdamConfig{}.init<AD, guide::Model<AD>>();
    const auto loss_fn = burn::nn::CrossEntropyLossConfig{}.init<AD>(kDevice);
    burn::CudaGraphStep step(kDevice, burn::CudaGraphStepOptions{.warmup = 1},
                             guide_step(model, optim, loss_fn), model, optim);
    const auto x = images(0);
    const auto y = labels(0);
    for (int i = 0; i < 3; ++i) (void)step(x, y).into_scalar();
    EXPECT_EQ(step.captures(), 1u);
    EXPECT_GT(step.graph().patched_node_count(), 0u);  // Adam's kernels and dropout's draws
    const auto before = burn::cuda_memory_stats(kDevice);
    for (int i = 0; i < 5; ++i) (void)step(x, y).into_scalar();
    const auto after = burn::cuda_memory_stats(kDevice);
    EXPECT_EQ(after.device_allocations, before.device_allocations);
    EXPECT_EQ(step.captures(), 1u);

    // A model replaced outside the step (as a record loaded): the next calls warm up and capture
    // again, from the new model's values.
    model = model.load_record(model.into_record());  // same values, new tensors
    (void)step(x, y).into_scalar();
    (void)step(x, y).into_scalar();
    EXPECT_EQ(step.captures(), 2u);

    // Inputs of another shape than the captured call's.
    const auto small = images(0).narrow(0, 0, 8);
    try {
        (void)step(small, labels(0).narrow(0, 0, 8));
        FAIL() << "a batch of another shape did not throw";
    } catch (const burn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("tensor 0 of the arguments"), std::string::npos)
            << e.what();
    }
}

TEST(CudaGraphStep, AnOptimizerMustStepBeforeTheCapture) {
    BURN_REQUIRE_CUDA();
    auto model = fresh_model();
    auto optim = burn::optim::AdamConfig{}.init<AD, guide::Model<AD>>();
    const auto loss_fn = burn::nn::CrossEntropyLossConfig{}.init<AD>(kDevice);
    burn::CudaGraphStep step(kDevice, burn::CudaGraphStepOptions{.warmup = 0},
                             guide_step(model, optim, loss_fn), model, optim);
    try {
        (void)step(images(0), labels(0));
        FAIL() << "a capture before the optimizer's first step did not throw";
    } catch (const burn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("warmup >= 1"), std::string::npos) << e.what();
    }
    EXPECT_EQ(step.captures(), 0u);
    EXPECT_TRUE(optim.to_record().as<burn::record::Record::Map>("optimizer record").empty());
}

TEST(CudaGraphStep, AStepThatReadsATensorCannotBeCaptured) {
    BURN_REQUIRE_CUDA();
    auto w = Tensor<B, 1>::from_floats({1, 2}, kDevice);
    burn::CudaGraphStep step(
        kDevice, burn::CudaGraphStepOptions{.warmup = 0},
        [&](const Tensor<B, 1>& x) {
            w = w + x;
            (void)w.sum().into_scalar();  // a read: not capturable
        },
        w);
    EXPECT_THROW(step(Tensor<B, 1>::from_floats({1, 1}, kDevice)), burn::Error);
    // The state keeps its values (the capture ran nothing).
    EXPECT_EQ(values(w), (std::vector<float>{1, 2}));
}

// ---- the Learner with with_step_capture(CudaGraphs{}) ----

burn::data::InMemDataset<burn::data::MnistItem> synthetic_images(std::size_t n, unsigned seed) {
    std::vector<burn::data::MnistItem> items(n);
    std::uint32_t state = seed;
    for (std::size_t i = 0; i < n; ++i) {
        items[i].label = static_cast<std::uint8_t>(i % 10);
        for (std::size_t p = 0; p < items[i].image.size(); ++p) {
            state = state * 1664525u + 1013904223u;
            // A class-dependent stripe plus noise: learnable in an epoch.
            const bool stripe = (p / 28) % 10 == items[i].label;
            items[i].image[p] = (stripe ? 180.0f : 20.0f) + float(state >> 26);
        }
    }
    return burn::data::InMemDataset<burn::data::MnistItem>(std::move(items));
}

/// One epoch of the guide's Learner setup (batches of 32, the last one of 8), with or without
/// the step capture; returns linear2's weights and the epoch's training loss.
std::pair<std::vector<float>, double> learner_epoch(bool captured) {
    const auto dir =
        std::filesystem::temp_directory_path() /
        ("burn_graph_learner_" + std::to_string(::getpid()) + (captured ? "_g" : "_e"));
    AD::seed(42);
    auto train = burn::data::DataLoaderBuilder(guide::MnistBatcher<AD>{})
                     .batch_size(32)
                     .set_device(kDevice)
                     .build(synthetic_images(32 * 7 + 8, 1));
    auto valid = burn::data::DataLoaderBuilder(guide::MnistBatcher<B>{})
                     .batch_size(32)
                     .set_device(kDevice)
                     .build(synthetic_images(64, 2));
    auto builder = burn::train::LearnerBuilder<guide::Model<AD>>(dir);
    builder.metric_train_numeric(burn::train::LossMetric{})
        .num_epochs(1)
        .renderer(burn::train::silent_renderer())
        .handle_sigint(false);
    if (captured) builder.with_step_capture(burn::CudaGraphs{.device = kDevice});
    auto learner =
        builder.build(fresh_model(), burn::optim::AdamConfig{}.init<AD, guide::Model<AD>>(), 1e-3);
    const auto trained = learner.fit(train, valid);
    std::filesystem::remove_all(dir);
    return {trained.linear2.weight.val().inner().into_data().to_vec<float>(),
            learner.train_history().at("Loss").back()};
}

TEST(CudaGraphStep, LearnerWithCudaGraphsTrainsAsUncaptured) {
    BURN_REQUIRE_CUDA();
    const auto eager = learner_epoch(false);
    const auto graphed = learner_epoch(true);
    expect_near(graphed.first, eager.first, "linear2.weight");
    EXPECT_NEAR(graphed.second, eager.second, 1e-5 * std::abs(eager.second));
}

}  // namespace

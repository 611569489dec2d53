// SPDX-License-Identifier: MIT OR Apache-2.0
// The Learner on several devices of one process (LearnerBuilder::devices): replicas on threads,
// gradients averaged through LocalReplicas. On the CPU the "devices" are the same CpuDevice;
// the arithmetic is what it is on several GPUs (tests/distributed/test_nccl.cpp runs it on two).
#include <unistd.h>

#include <array>
#include <atomic>
#include <burn/autodiff/autodiff.hpp>
#include <burn/backend/cpu.hpp>
#include <burn/optim.hpp>
#include <burn/train.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../distributed/regression.hpp"
#include "test_support.hpp"

namespace {

using namespace burn;
namespace fs = std::filesystem;
using B = Cpu<double>;
using AD = Autodiff<B>;
using regression::Batcher;
using regression::make_data;
using regression::Net;

constexpr std::size_t kItems = 96, kBatch = 8;

struct Result {
    std::vector<double> params;
    double valid_loss = 0;
    train::StopReason stop = train::StopReason::Completed;
};

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() /
                         ("burn-multi-device-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    return dir;
}

std::vector<double> params_of(const Net<AD>& net) {
    auto v = net.fc.weight.val().to_data().to_vec<double>();
    const auto b = net.fc.bias->val().to_data().to_vec<double>();
    v.insert(v.end(), b.begin(), b.end());
    return v;
}

/// 3 epochs of Adam on kItems shuffled items: on `devices` devices with batches of kBatch each,
/// or (devices == 1) on one device with batches of kBatch * `combined`.
Result train_run(const fs::path& dir, std::size_t devices, std::size_t combined = 1,
                 std::optional<std::size_t> resume = std::nullopt, std::size_t epochs = 3) {
    const std::size_t batch = devices > 1 ? kBatch : kBatch * combined;
    auto train_loader = data::DataLoaderBuilder(Batcher<AD>{})
                            .batch_size(batch)
                            .shuffle(11)
                            .build(make_data(kItems, 1));
    auto valid_loader =
        data::DataLoaderBuilder(Batcher<B>{}).batch_size(batch).build(make_data(32, 2));
    AD::seed(5);
    auto model = Net<AD>{nn::LinearConfig{.d_input = 4, .d_output = 1}.init<AD>()};
    auto builder =
        train::LearnerBuilder<Net<AD>>(dir)
            .metric_train_numeric(train::LossMetric{})
            .metric_valid_numeric(train::LossMetric{})
            .with_file_checkpointer(record::BinFileRecorder<record::DoublePrecisionSettings>{})
            .num_epochs(epochs)
            .renderer(train::silent_renderer())
            .handle_sigint(false);
    if (devices > 1) builder.devices(std::vector<CpuDevice>(devices));
    if (resume) builder.checkpoint(*resume);
    auto learner = builder.build(model, optim::AdamConfig{}.init<AD, Net<AD>>(), 5e-2);
    const Net<AD> trained = learner.fit(train_loader, valid_loader);
    Result run{params_of(trained), 0, learner.stop_reason()};
    if (auto it = learner.valid_history().find("Loss"); it != learner.valid_history().end())
        run.valid_loss = it->second.back();
    return run;
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double tol) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], tol * (1 + std::abs(b[i]))) << "parameter " << i;
}

std::string read(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(MultiDevice, SeveralDevicesEqualOneDeviceOnTheCombinedBatches) {
    for (const std::size_t n : {2u, 4u}) {
        SCOPED_TRACE(std::to_string(n) + " devices");
        const fs::path dir = fresh_dir("equal-" + std::to_string(n));
        const Result multi = train_run(dir / "multi", n);
        const Result one = train_run(dir / "one", 1, n);
        expect_close(multi.params, one.params, 1e-9);
        EXPECT_NEAR(multi.valid_loss, one.valid_loss, 1e-9 * (1 + one.valid_loss));
        // Two identical runs are identical.
        const Result again = train_run(dir / "again", n);
        EXPECT_EQ(again.params, multi.params);
        // The first replica alone wrote the artifacts.
        const std::string log = read(dir / "multi" / "experiment.log");
        EXPECT_EQ(count(log, "training finished"), 1u) << log;
        EXPECT_NE(log.find("data parallel: " + std::to_string(n) + " replicas"), std::string::npos)
            << log;
        EXPECT_NE(log.find("train: 96 items"), std::string::npos) << log;  // all replicas' items
        fs::remove_all(dir);
    }
}

TEST(MultiDevice, ResumingEveryReplicaFromACheckpointMatchesAnUninterruptedRun) {
    const fs::path dir = fresh_dir("resume");
    const Result full = train_run(dir / "full", 2);
    (void)train_run(dir / "part", 2, 1, std::nullopt, 2);
    const Result resumed = train_run(dir / "part", 2, 1, 2);
    EXPECT_EQ(resumed.params, full.params);
    fs::remove_all(dir);
}

/// Regression items whose batcher fails on the first item that belongs to shard 1 of 2 (item 1
/// of an unshuffled epoch): only the second replica's training fails.
template <Backend BB>
struct FailingBatcher {
    regression::Batch<BB> batch(std::vector<regression::Item> items,
                                const typename BB::Device& device) const {
        for (const auto& it : items)
            if (std::isnan(it.y)) throw Error("FailingBatcher: a NaN target");
        return Batcher<BB>{}.batch(std::move(items), device);
    }
};

TEST(MultiDevice, AReplicaThatFailsStopsTheOthersAndFitRethrowsItsError) {
    const fs::path dir = fresh_dir("fail");
    auto items = make_data(kItems, 1).items();
    items[41].y = std::nan("");  // 41 % 2 == 1: shard 1, its third batch
    auto train_loader = data::DataLoaderBuilder(FailingBatcher<AD>{})
                            .batch_size(kBatch)
                            .build(data::InMemDataset<regression::Item>(items));
    auto valid_loader =
        data::DataLoaderBuilder(Batcher<B>{}).batch_size(kBatch).build(make_data(32, 2));
    auto learner = train::LearnerBuilder<Net<AD>>(dir)
                       .metric_train_numeric(train::LossMetric{})
                       .renderer(train::silent_renderer())
                       .handle_sigint(false)
                       .devices({CpuDevice{}, CpuDevice{}})
                       .build(Net<AD>{nn::LinearConfig{.d_input = 4, .d_output = 1}.init<AD>()},
                              optim::AdamConfig{}.init<AD, Net<AD>>(), 1e-2);
    const auto start = std::chrono::steady_clock::now();
    try {
        (void)learner.fit(train_loader, valid_loader);
        ADD_FAILURE() << "fit returned";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("FailingBatcher: a NaN target"), std::string::npos)
            << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
    fs::remove_all(dir);
}

TEST(MultiDevice, CannotBeCombinedWithProcessReplicas) {
    auto local = std::make_shared<train::LocalReplicas>(1);
    auto builder = train::LearnerBuilder<Net<AD>>(fresh_dir("both"))
                       .devices({CpuDevice{}, CpuDevice{}})
                       .data_parallel(local->group(0));
    EXPECT_BURN_ERROR(
        (void)builder.build(Net<AD>{nn::LinearConfig{.d_input = 4, .d_output = 1}.init<AD>()},
                            optim::AdamConfig{}.init<AD, Net<AD>>(), 1e-2),
        "devices and data_parallel() given");
}

TEST(MultiDevice, AShardedLoaderCannotBeSplitAgain) {
    auto loader = data::DataLoaderBuilder(Batcher<B>{}).shard(0, 2).build(make_data(8, 1));
    EXPECT_BURN_ERROR((void)loader->shard_to_device(0, 2, std::any(CpuDevice{})),
                      "already shard 0 of 2");
    auto plain = data::DataLoaderBuilder(Batcher<B>{}).batch_size(2).build(make_data(8, 1));
    EXPECT_BURN_ERROR((void)plain->shard_to_device(0, 2, std::any(42)), "the device is a");
    const auto half = plain->shard_to_device(1, 2, std::any(CpuDevice{}));
    EXPECT_EQ(half->num_items(), 4u);
    EXPECT_EQ(half->num_batches(), 2u);
}

// ---------------------------------------------------------------------------- LocalReplicas

/// Runs body(rank, group) on `n` threads; returns each thread's error text ("" if none).
template <class F>
std::vector<std::string> on_threads(train::LocalReplicas& local, F body) {
    const int n = local.world_size();
    std::vector<std::string> errors(static_cast<std::size_t>(n));
    std::vector<std::thread> threads;
    for (int r = 0; r < n; ++r)
        threads.emplace_back([&, r] {
            try {
                body(r, *local.group(r));
            } catch (const std::exception& e) {
                errors[std::size_t(r)] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    return errors;
}

TEST(LocalReplicas, AllReduceSumAndBroadcast) {
    train::LocalReplicas local(3);
    std::vector<std::vector<float>> f(3);
    std::vector<std::vector<double>> d(3);
    std::vector<std::vector<std::int32_t>> b(3);
    const auto errors = on_threads(local, [&](int r, train::ReplicaGroup& g) {
        EXPECT_EQ(g.rank(), r);
        EXPECT_EQ(g.world_size(), 3);
        auto& fv = f[std::size_t(r)];
        for (int i = 0; i < 5001; ++i) fv.push_back(float(i) * 0.5f + float(r));  // not /3
        g.all_reduce_sum(std::as_writable_bytes(std::span(fv)), DType::F32);
        auto& dv = d[std::size_t(r)];
        dv = {1e-3 * r, -2.0 * r};
        g.all_reduce_sum_trusted(std::as_writable_bytes(std::span(dv)), DType::F64);
        auto& bv = b[std::size_t(r)];
        bv = {r, r * 10, r * 100};
        g.broadcast(std::as_writable_bytes(std::span(bv)), 2);
        g.barrier();
    });
    for (int r = 0; r < 3; ++r) {
        EXPECT_EQ(errors[std::size_t(r)], "");
        for (int i = 0; i < 5001; ++i)
            EXPECT_EQ(f[std::size_t(r)][std::size_t(i)], float(i) * 1.5f + 3.0f) << i;
        EXPECT_EQ(d[std::size_t(r)], (std::vector<double>{1e-3 + 2e-3, -6.0}));
        EXPECT_EQ(b[std::size_t(r)], (std::vector<std::int32_t>{2, 20, 200}));
    }
}

TEST(LocalReplicas, MismatchedSizesFailOnEveryReplica) {
    train::LocalReplicas local(2);
    const auto errors = on_threads(local, [&](int r, train::ReplicaGroup& g) {
        std::vector<float> v(std::size_t(4 + r));
        g.all_reduce_sum(std::as_writable_bytes(std::span(v)), DType::F32);
    });
    for (const auto& e : errors) EXPECT_NE(e.find("every replica must pass the same"), e.npos) << e;
    std::vector<std::int32_t> ints(2);
    EXPECT_BURN_ERROR(
        local.group(0)->all_reduce_sum(std::as_writable_bytes(std::span(ints)), DType::I32),
        "expected F32 or F64");
    EXPECT_BURN_ERROR((void)local.group(2), "rank 2 is not in [0, 2)");
}

TEST(LocalReplicas, AbortWakesAWaitingReplica) {
    train::LocalReplicas local(2);
    std::string error;
    std::thread waiter([&] {
        try {
            local.group(0)->barrier();
        } catch (const std::exception& e) {
            error = e.what();
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    local.abort("replica 1: out of memory");
    waiter.join();
    EXPECT_NE(error.find("another replica failed: replica 1: out of memory"), error.npos) << error;
    EXPECT_BURN_ERROR(local.group(1)->barrier(), "another replica failed");
}

}  // namespace

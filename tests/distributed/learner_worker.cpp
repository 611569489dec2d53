// SPDX-License-Identifier: MIT OR Apache-2.0
// One rank of the Learner's data-parallel tests (test_distributed.cpp starts several):
// `burn_distributed_learner_worker SCENARIO`, with BURN_RANK, BURN_WORLD_SIZE and BURN_STORE_DIR
// set; artifacts go next to the store directory. Exits 0 when every check held on this rank.
#include <array>
#include <burn/autodiff/autodiff.hpp>
#include <burn/backend/cpu.hpp>
#include <burn/distributed.hpp>
#include <burn/optim.hpp>
#include <burn/train.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "checks.hpp"
#include "regression.hpp"

namespace {

using namespace burn;
namespace fs = std::filesystem;
using distributed::Communicator;
using B = Cpu<double>;
using AD = Autodiff<B>;

using namespace burn_test_checks;

using namespace regression;

constexpr std::size_t kItems = 96, kBatch = 8;

struct Run {
    std::vector<double> params;
    double valid_loss = 0;
    train::StopReason stop = train::StopReason::Completed;
};

/// Trains Net on `kItems` items for `epochs` epochs: with `comm`, as one replica on its shard with
/// batches of kBatch; without, alone on every item with batches of kBatch * world.
Run train_run(const fs::path& dir, std::shared_ptr<Communicator> comm, std::size_t world,
              std::size_t epochs, std::optional<std::size_t> resume = std::nullopt,
              std::size_t batch = kBatch, bool interrupt = false, bool overlap = true,
              bool tensor_sum = false) {
    auto train_builder = data::DataLoaderBuilder(Batcher<AD>{}).shuffle(11);
    auto valid_builder = data::DataLoaderBuilder(Batcher<B>{});
    if (comm) {
        train_builder.batch_size(batch).shard(std::size_t(comm->rank()), world);
        valid_builder.batch_size(batch).shard(std::size_t(comm->rank()), world);
    } else {
        train_builder.batch_size(batch * world);
        valid_builder.batch_size(batch * world);
    }
    auto train_loader = train_builder.build(make_data(kItems, 1));
    auto valid_loader = valid_builder.build(make_data(32, 2));
    // Rank 0's initial model is every replica's: the others start from a different one.
    AD::seed(comm ? 5 + std::uint64_t(comm->rank()) : 5);
    auto model = Net<AD>{nn::LinearConfig{.d_input = 4, .d_output = 1}.init<AD>()};
    auto builder =
        train::LearnerBuilder<Net<AD>>(dir)
            .metric_train_numeric(train::LossMetric{})
            .metric_valid_numeric(train::LossMetric{})
            .with_file_checkpointer(record::BinFileRecorder<record::DoublePrecisionSettings>{})
            .num_epochs(epochs)
            .renderer(train::silent_renderer())
            .handle_sigint(false);
    // Tiny buckets: several collectives per step, most started during the backward pass.
    // Tensor buckets summed by the Communicator's tensor all_reduce: the path NcclGroup takes
    // for CUDA models, here on the CPU.
    if (comm && tensor_sum) builder.data_parallel(comm, comm, {.bucket_bytes = 16});
    else if (comm) builder.data_parallel(comm, {.bucket_bytes = 16, .overlap = overlap});
    if (resume) builder.checkpoint(*resume);
    if (interrupt) {
        train::TrainingInterrupter stop;
        stop.stop();
        builder.with_interrupter(stop);
    }
    auto learner = builder.build(model, optim::AdamConfig{}.init<AD, Net<AD>>(), 5e-2);
    const Net<AD> trained = learner.fit(train_loader, valid_loader);
    Run run;
    auto w = trained.fc.weight.val().to_data().to_vec<double>();
    run.params = w;
    if (trained.fc.bias) {
        auto b = trained.fc.bias->val().to_data().to_vec<double>();
        run.params.insert(run.params.end(), b.begin(), b.end());
    }
    if (auto it = learner.valid_history().find("Loss"); it != learner.valid_history().end())
        run.valid_loss = it->second.back();
    run.stop = learner.stop_reason();
    return run;
}

std::string read(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double tol,
                  const std::string& what) {
    expect(a.size() == b.size(), what + ": sizes");
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        expect(std::abs(a[i] - b[i]) <= tol * (1 + std::abs(b[i])),
               what + " [" + std::to_string(i) + "]: " + std::to_string(a[i]) + " vs " +
                   std::to_string(b[i]));
}

/// Every rank holds the same values.
void expect_same_on_ranks(Communicator& comm, const std::vector<double>& v, const std::string& w) {
    auto all = comm.all_gather(TensorData(v, Shape{v.size()})).to_vec<double>();
    for (std::size_t i = 0; i < all.size(); ++i)
        expect(all[i] == v[i % v.size()], w + ": the ranks differ");
}

void learner(const std::shared_ptr<Communicator>& comm, const fs::path& base) {
    const auto world = std::size_t(comm->world_size());
    const int rank = comm->rank();
    // Data parallel, 3 epochs, against one process on the combined batches.
    const Run dp = train_run(base / "dp", comm, world, 3);
    const Run ref = train_run(base / ("reference-" + std::to_string(rank)), nullptr, world, 3);
    expect_close(dp.params, ref.params, 1e-9, "parameters vs one process");
    expect(std::abs(dp.valid_loss - ref.valid_loss) <= 1e-9 * (1 + ref.valid_loss),
           "averaged validation loss " + std::to_string(dp.valid_loss) + " vs " +
               std::to_string(ref.valid_loss));
    expect_same_on_ranks(*comm, dp.params, "parameters");
    // Gradients reduced after train_step instead of during backward: the same result.
    const Run late = train_run(base / "late", comm, world, 3, std::nullopt, kBatch, false, false);
    expect_close(late.params, dp.params, 1e-12, "without overlap vs with");
    const Run tensors =
        train_run(base / "tensors", comm, world, 3, std::nullopt, kBatch, false, false, true);
    expect_close(tensors.params, ref.params, 1e-9, "tensor buckets vs one process");

    // Only rank 0 wrote the artifacts: one experiment log naming the replicas, checkpoints.
    comm->barrier();
    const std::string log = read(base / "dp" / "experiment.log");
    expect(log.find("data parallel: " + std::to_string(world) + " replicas") != std::string::npos,
           "experiment.log names the replicas:\n" + log);
    expect(log.find("training finished") == log.rfind("training finished"),
           "one process wrote experiment.log");
    expect(fs::exists(base / "dp" / "checkpoint"), "checkpoints written");
    // Resuming every rank from the checkpoint of epoch 2 gives the uninterrupted run's result.
    comm->barrier();
    const Run part = train_run(base / "resumed", comm, world, 2);
    (void)part;
    const Run resumed = train_run(base / "resumed", comm, world, 3, 2);
    expect_close(resumed.params, dp.params, 0, "resumed vs uninterrupted");
}

void interrupt(const std::shared_ptr<Communicator>& comm, const fs::path& base) {
    // Rank 1 asks to stop: every rank stops after the same step, with the same model.
    const Run run = train_run(base / "stop", comm, std::size_t(comm->world_size()), 3, std::nullopt,
                              kBatch, comm->rank() == 1);
    expect(run.stop == train::StopReason::Interrupted, "every rank reports the interruption");
    expect_same_on_ranks(*comm, run.params, "parameters after the interruption");
}

void bad_shards(const std::shared_ptr<Communicator>& comm, const fs::path& base) {
    // Rank 1's loader has batches half as large: twice as many steps. Every rank must refuse.
    try {
        (void)train_run(base / "bad", comm, std::size_t(comm->world_size()), 1, std::nullopt,
                        comm->rank() == 1 ? kBatch / 2 : kBatch);
        expect(false, "mismatched loaders were accepted");
    } catch (const Error& e) {
        expect(std::string(e.what()).find("number of training batches") != std::string::npos,
               std::string("message: ") + e.what());
    }
}

}  // namespace

int main(int argc, char** argv) {
    return run_scenario(argc, argv, [](const std::string& scenario) {
        const char* store = std::getenv("BURN_STORE_DIR");
        const fs::path base = fs::path(store ? store : ".").parent_path() / "artifacts";
        auto comm = std::make_shared<Communicator>(Communicator::from_env());
        if (scenario == "learner") learner(comm, base);
        else if (scenario == "interrupt") interrupt(comm, base);
        else if (scenario == "bad_shards") bad_shards(comm, base);
        else return false;
        return true;
    });
}

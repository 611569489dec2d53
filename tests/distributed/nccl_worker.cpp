// SPDX-License-Identifier: MIT OR Apache-2.0
// One rank of the NCCL tests (test_nccl.cpp starts one per GPU): `burn_distributed_nccl_worker
// SCENARIO`, with BURN_RANK, BURN_WORLD_SIZE and BURN_STORE_DIR set; rank r uses CudaDevice{r}.
// Exits 0 when every check held on this rank, 1 otherwise (the reason on stderr).
#include <unistd.h>

#include <burn/backend/cuda.hpp>
#include <burn/distributed.hpp>
#include <burn/distributed/nccl.hpp>
#include <burn/optim.hpp>
#include <burn/train.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "checks.hpp"
#include "regression.hpp"

namespace {

using namespace burn;
using distributed::Communicator;
using distributed::NcclGroup;
using distributed::ReduceOp;
using G = Cuda<float>;
using G64 = Cuda<double, std::int64_t>;

using namespace burn_test_checks;

/// Every collective against values computed here.
void collectives(Communicator& comm) {
    const int r = comm.rank(), n = comm.world_size();
    const CudaDevice dev{static_cast<std::size_t>(r)};
    NcclGroup gpus(comm, dev);
    expect(gpus.rank() == r && gpus.world_size() == n, "ranks");
    // f32 sum, mean, max on a strided (transposed) view.
    auto x = Tensor<G, 2>::full({3, 2}, static_cast<float>(r + 1), dev).transpose();
    const float total = static_cast<float>(n * (n + 1) / 2);
    expect(same<float>(gpus.all_reduce(x).to_data(), std::vector<float>(6, total)), "f32 sum");
    expect(gpus.all_reduce(x).shape() == Shape({2, 3}), "shape kept");
    expect(same<float>(gpus.all_reduce(x, ReduceOp::Mean).to_data(),
                       std::vector<float>(6, total / static_cast<float>(n))),
           "f32 mean");
    expect(same<float>(gpus.all_reduce(x, ReduceOp::Max).to_data(),
                       std::vector<float>(6, static_cast<float>(n))),
           "f32 max");
    // f64 and i64 (another backend type), bf16.
    auto y = Tensor<G64, 1>::full({4}, 0.5 * r, CudaDevice{dev});
    expect(
        same<double>(gpus.all_reduce(y).to_data(), std::vector<double>(4, 0.5 * n * (n - 1) / 2)),
        "f64 sum");
    auto k = Tensor<G64, 1, Int>::from_data(
        TensorData(std::vector<std::int64_t>{r, -r, 1}, Shape{3}), dev);
    expect(same<std::int64_t>(gpus.all_reduce(k, ReduceOp::Min).to_data(),
                              std::vector<std::int64_t>{0, -(n - 1), 1}),
           "i64 min");
    auto h = Tensor<G, 1>::full({5}, 1.0f, dev).cast(DType::BF16);
    auto hs = gpus.all_reduce(h);
    expect(hs.dtype() == DType::BF16, "bf16 kept");
    expect(same<float>(hs.cast(DType::F32).to_data(), std::vector<float>(5, float(n))), "bf16 sum");
    // broadcast, all_gather, reduce_scatter, barrier.
    auto b = gpus.broadcast(Tensor<G, 1>::full({3}, static_cast<float>(10 + r), dev), 1 % n);
    expect(same<float>(b.to_data(), std::vector<float>(3, static_cast<float>(10 + 1 % n))),
           "broadcast");
    auto g = gpus.all_gather(Tensor<G, 2>::full({1, 2}, static_cast<float>(r), dev));
    std::vector<float> want_g;
    for (int q = 0; q < n; ++q) want_g.insert(want_g.end(), 2, static_cast<float>(q));
    expect(g.shape() == Shape({static_cast<std::size_t>(n), 2}) && same<float>(g.to_data(), want_g),
           "all_gather");
    std::vector<float> parts(static_cast<std::size_t>(2 * n));
    for (int q = 0; q < 2 * n; ++q) parts[static_cast<std::size_t>(q)] = static_cast<float>(q);
    auto rs = gpus.reduce_scatter(
        Tensor<G, 1>::from_data(TensorData(parts, Shape{static_cast<std::size_t>(2 * n)}), dev));
    expect(same<float>(rs.to_data(), std::vector<float>{static_cast<float>(n * 2 * r),
                                                        static_cast<float>(n * (2 * r + 1))}),
           "reduce_scatter");
    gpus.barrier();
    // An integer mean is an error (NCCL averages float dtypes only).
    try {
        (void)gpus.all_reduce(k, ReduceOp::Mean);
        expect(false, "integer mean accepted");
    } catch (const Error& e) {
        expect(std::string(e.what()).find("average") != std::string::npos, e.what());
    }
}

/// all_reduce_async: the collective runs on the group's stream after the work that made its
/// input, beside the work queued after it; wait() orders later work after it; a Pending dropped
/// without wait() is safe, and a collective on the device's stream runs after it.
void async_collectives(Communicator& comm) {
    const int r = comm.rank(), n = comm.world_size();
    const CudaDevice dev{static_cast<std::size_t>(r)};
    NcclGroup gpus(comm, dev);
    const std::size_t len = std::size_t(1) << 22;
    const float total = static_cast<float>(n * (n + 1) / 2);
    auto x = Tensor<G, 1>::ones({len}, dev) * static_cast<double>(r + 1);  // queued
    auto pending = gpus.all_reduce_async(x);
    const auto busy = (x * 2.0).exp().sum();  // queued after the collective started
    const auto sum = pending.wait();
    expect(same<float>(sum.to_data(), std::vector<float>(len, total)), "async f32 sum");
    expect(busy.into_scalar() > 0.0f, "the work queued beside the collective ran");
    { auto dropped = gpus.all_reduce_async(x * 3.0); }  // never waited for
    expect(same<float>(gpus.all_reduce(x).to_data(), std::vector<float>(len, total)),
           "a collective on the device's stream after an asynchronous one");
    auto p1 = gpus.all_reduce_async(x);
    auto p2 = gpus.all_reduce_async(x * 2.0);
    expect(same<float>(p2.wait().to_data(), std::vector<float>(len, 2 * total)), "second of two");
    expect(same<float>(p1.wait().to_data(), std::vector<float>(len, total)), "first of two");
    bool threw = false;
    try {
        (void)p1.wait();
    } catch (const Error&) {
        threw = true;
    }
    expect(threw, "waiting twice is a burn::Error");
}

/// The Learner's data-parallel strategy on CUDA with the gradients summed over NCCL: 3 epochs
/// equal one process on the combined batches (f32, 1e-4).
std::vector<float> train_cuda(const std::filesystem::path& dir,
                              const std::shared_ptr<Communicator>& comm,
                              const std::shared_ptr<NcclGroup>& gpus, CudaDevice dev,
                              std::size_t world) {
    using AG = Autodiff<G>;
    using namespace regression;
    constexpr std::size_t batch = 8;
    auto train_builder = data::DataLoaderBuilder(Batcher<AG>{}).shuffle(11).set_device(dev);
    auto valid_builder = data::DataLoaderBuilder(Batcher<G>{}).set_device(dev);
    if (gpus) {
        const auto rank = static_cast<std::size_t>(comm->rank());
        train_builder.batch_size(batch).shard(rank, world);
        valid_builder.batch_size(batch).shard(rank, world);
    } else {
        train_builder.batch_size(batch * world);
        valid_builder.batch_size(batch * world);
    }
    auto train_loader = train_builder.build(make_data(96, 1));
    auto valid_loader = valid_builder.build(make_data(32, 2));
    AG::seed(gpus ? 5 + std::uint64_t(comm->rank()) : 5);
    auto model = Net<AG>{nn::LinearConfig{.d_input = 4, .d_output = 1}.init<AG>(dev)};
    auto builder = train::LearnerBuilder<Net<AG>>(dir)
                       .metric_train_numeric(train::LossMetric{})
                       .metric_valid_numeric(train::LossMetric{})
                       .num_epochs(3)
                       .renderer(train::silent_renderer())
                       .handle_sigint(false);
    if (gpus) builder.data_parallel(comm, gpus);
    auto learner = builder.build(model, optim::AdamConfig{}.init<AG, Net<AG>>(), 5e-2);
    const Net<AG> trained = learner.fit(train_loader, valid_loader);
    auto params = trained.fc.weight.val().to_data().to_vec<float>();
    if (trained.fc.bias) {
        auto b = trained.fc.bias->val().to_data().to_vec<float>();
        params.insert(params.end(), b.begin(), b.end());
    }
    return params;
}

void learner(const std::shared_ptr<Communicator>& comm) {
    const int r = comm->rank();
    const auto world = static_cast<std::size_t>(comm->world_size());
    const CudaDevice dev{static_cast<std::size_t>(r)};
    auto gpus = std::make_shared<NcclGroup>(*comm, dev);
    const auto base = std::filesystem::temp_directory_path() /
                      ("burn-nccl-learner-" + std::to_string(::getppid()));
    const auto dp = train_cuda(base / "dp", comm, gpus, dev, world);
    const auto ref =
        train_cuda(base / ("reference-" + std::to_string(r)), comm, nullptr, dev, world);
    expect(dp.size() == ref.size(), "parameter count");
    for (std::size_t i = 0; i < dp.size() && i < ref.size(); ++i)
        expect(std::abs(dp[i] - ref[i]) <= 1e-4f * (1 + std::abs(ref[i])),
               "parameter " + std::to_string(i) + ": " + std::to_string(dp[i]) + " vs " +
                   std::to_string(ref[i]));
    comm->barrier();
    if (r == 0) std::filesystem::remove_all(base);
}

/// Rank 1 exits in the middle of an epoch (while building its third batch): rank 0's fit()
/// must throw a burn::Error (the per-step flags travel over Gloo before the NCCL reduction, and
/// Gloo reports the closed connection), not wait forever.
template <Backend BB>
struct DyingBatcher {
    int rank = 0;
    std::shared_ptr<int> made = std::make_shared<int>(0);
    regression::Batch<BB> batch(std::vector<regression::Item> items,
                                const typename BB::Device& device) const {
        if (rank == 1 && ++*made == 3) std::_Exit(0);
        return regression::Batcher<BB>{}.batch(std::move(items), device);
    }
};

void peer_dies(const std::shared_ptr<Communicator>& comm) {
    using AG = Autodiff<G>;
    using namespace regression;
    const int r = comm->rank();
    const auto world = static_cast<std::size_t>(comm->world_size());
    const CudaDevice dev{static_cast<std::size_t>(r)};
    auto gpus = std::make_shared<NcclGroup>(*comm, dev);
    auto train_loader = data::DataLoaderBuilder(DyingBatcher<AG>{r})
                            .batch_size(8)
                            .shard(static_cast<std::size_t>(r), world)
                            .set_device(dev)
                            .build(make_data(96, 1));
    auto valid_loader = data::DataLoaderBuilder(Batcher<G>{})
                            .batch_size(8)
                            .shard(static_cast<std::size_t>(r), world)
                            .set_device(dev)
                            .build(make_data(32, 2));
    const auto dir =
        std::filesystem::temp_directory_path() / ("burn-nccl-dies-" + std::to_string(::getppid()));
    auto learner = train::LearnerBuilder<Net<AG>>(dir)
                       .metric_train_numeric(train::LossMetric{})
                       .num_epochs(2)
                       .renderer(train::silent_renderer())
                       .handle_sigint(false)
                       .data_parallel(comm, gpus)
                       .build(Net<AG>{nn::LinearConfig{.d_input = 4, .d_output = 1}.init<AG>(dev)},
                              optim::AdamConfig{}.init<AG, Net<AG>>(), 5e-2);
    try {
        (void)learner.fit(train_loader, valid_loader);
        expect(false, "training went on without rank 1");
    } catch (const Error& e) {
        std::cout << "rank " << r << " caught: " << e.what() << std::endl;
        expect(std::string(e.what()).find("distributed::") != std::string::npos,
               std::string("the error names the collective: ") + e.what());
    }
    std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
    return run_scenario(argc, argv, [](const std::string& scenario) {
        auto comm = std::make_shared<Communicator>(Communicator::from_env());
        if (scenario == "collectives") collectives(*comm);
        else if (scenario == "async") async_collectives(*comm);
        else if (scenario == "learner") learner(comm);
        else if (scenario == "peer_dies") peer_dies(comm);
        else return false;
        return true;
    });
}

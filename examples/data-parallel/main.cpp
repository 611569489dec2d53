// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide's model trained data-parallel by several processes (docs/distributed.md): each
// process is one replica of the Learner, on its shard of Fashion-MNIST.
//
//   burn-run --nproc 2 ./data-parallel [--backend cpu|cuda] [--epochs N] [--batch-size N]
//                                      [--train-items N] [--test-items N] [--num-workers N]
//                                      [--artifact-dir DIR]
//
// Started alone (no BURN_WORLD_SIZE), it trains as one process. --batch-size is per process (the
// global batch is N times it). With --backend cuda (when the CUDA backend is built), process r
// trains on GPU BURN_LOCAL_RANK and the gradients are summed GPU to GPU over NCCL
// (distributed::NcclGroup); on the CPU they go through the Gloo communicator. Rank 0 writes the
// artifacts and prints the job's training throughput (items per second, over all processes).
#include <burn/backend/cpu.hpp>
#include <burn/distributed.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "../guide/training.hpp"

#ifdef BURN_EXAMPLE_WITH_CUDA
#include <burn/backend/cuda.hpp>
#include <burn/distributed/nccl.hpp>
#endif

namespace {

namespace dist = burn::distributed;

struct Options {
    std::string backend = "cpu";
    std::size_t epochs = 1, batch_size = 64, train_items = SIZE_MAX, test_items = SIZE_MAX;
    std::size_t num_workers = 1;
    std::string artifact_dir = "/tmp/burn-data-parallel";
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) throw std::invalid_argument(a + ": expected a value");
        const std::string v = argv[++i];
        auto count = [&] {
            std::size_t used = 0;
            const unsigned long long n = std::stoull(v, &used);
            if (used != v.size() || n == 0)
                throw std::invalid_argument(a + ": expected a count > 0");
            return static_cast<std::size_t>(n);
        };
        if (a == "--backend") {
            o.backend = v;
            if (v != "cpu" && v != "cuda")
                throw std::invalid_argument("--backend: expected cpu or cuda");
        } else if (a == "--epochs") o.epochs = count();
        else if (a == "--batch-size") o.batch_size = count();
        else if (a == "--train-items") o.train_items = count();
        else if (a == "--test-items") o.test_items = count();
        else if (a == "--num-workers") o.num_workers = v == "0" ? 0 : count();
        else if (a == "--artifact-dir") o.artifact_dir = v;
        else throw std::invalid_argument("unknown option " + a);
    }
    return o;
}

/// Trains on backend B (an Autodiff backend) on `device`; `device_group`, when given, sums the
/// gradients on the device.
template <class B, class DeviceGroup = void>
void train(const Options& o, const std::shared_ptr<dist::Communicator>& comm,
           const typename B::Device& device, std::shared_ptr<DeviceGroup> device_group = nullptr) {
    const auto rank = static_cast<std::size_t>(comm->rank());
    const auto world = static_cast<std::size_t>(comm->world_size());
    const guide::TrainingConfig config{
        .model = {.num_classes = 10, .hidden_size = 512},
        .optimizer = {},
        .num_epochs = o.epochs,
        .batch_size = o.batch_size,
        .num_workers = o.num_workers,
        .seed = 42,
        .learning_rate = 1.0e-3,
    };
    // A fresh artifact directory (rank 0 writes it; the others wait until it is cleared).
    if (rank == 0) std::filesystem::remove_all(o.artifact_dir);
    comm->barrier();
    using burn::data::MnistKind;
    using burn::data::MnistSplit;
    auto train_loader =
        burn::data::DataLoaderBuilder(guide::MnistBatcher<B>{})
            .batch_size(config.batch_size)
            .shuffle(config.seed)  // the same order on every rank, dealt out
            .shard(rank, world)
            .num_workers(config.num_workers)
            .set_device(device)
            .build(guide::mnist_split(MnistKind::Fashion, MnistSplit::Train, o.train_items));
    auto test_loader =
        burn::data::DataLoaderBuilder(guide::MnistBatcher<typename B::InnerBackend>{})
            .batch_size(config.batch_size)
            .shard(rank, world)
            .num_workers(config.num_workers)
            .set_device(device)
            .build(guide::mnist_split(MnistKind::Fashion, MnistSplit::Test, o.test_items));
    B::seed(config.seed);
    auto builder = burn::train::LearnerBuilder<guide::Model<B>>(o.artifact_dir)
                       .metric_train_numeric(burn::train::AccuracyMetric{})
                       .metric_valid_numeric(burn::train::AccuracyMetric{})
                       .metric_train_numeric(burn::train::LossMetric{})
                       .metric_valid_numeric(burn::train::LossMetric{})
                       .with_file_checkpointer(burn::record::CompactRecorder{})
                       .num_epochs(config.num_epochs)
                       .summary();
    if constexpr (std::is_void_v<DeviceGroup>) builder.data_parallel(comm);
    else builder.data_parallel(comm, device_group);
    auto learner = builder.build(config.model.init<B>(device),
                                 config.optimizer.init<B, guide::Model<B>>(), config.learning_rate);
    const auto start = std::chrono::steady_clock::now();
    auto trained = learner.fit(train_loader, test_loader);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rank == 0) {
        trained.save_file(std::filesystem::path(o.artifact_dir) / "model",
                          burn::record::CompactRecorder{});
        const double items = double(train_loader->num_items() * world * o.epochs);
        std::cout << "data-parallel: " << world << " process(es), " << items
                  << " training items in " << seconds << " s (with validation): " << items / seconds
                  << " items/s\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "data-parallel: " << e.what()
                  << "\nusage: burn-run --nproc N data-parallel [--backend cpu|cuda] [--epochs N] "
                     "[--batch-size N] [--train-items N] [--test-items N] [--num-workers N] "
                     "[--artifact-dir DIR]\n";
        return 2;
    }
    try {
        // One process of a job started by burn-run (or alone: a job of one).
        auto comm = std::make_shared<dist::Communicator>(std::getenv("BURN_WORLD_SIZE")
                                                             ? dist::Communicator::from_env()
                                                             : dist::Communicator::connect({}));
        if (o.backend == "cpu") {
            train<burn::Autodiff<burn::Cpu<float>>>(o, comm, burn::CpuDevice{});
        } else {
#ifdef BURN_EXAMPLE_WITH_CUDA
            const char* local = std::getenv("BURN_LOCAL_RANK");
            const burn::CudaDevice gpu{local ? std::stoul(local) : 0};
            auto gpus = std::make_shared<dist::NcclGroup>(*comm, gpu);
            train<burn::Autodiff<burn::Cuda<float>>>(o, comm, gpu, gpus);
#else
            throw std::runtime_error("--backend cuda: this build has no CUDA backend");
#endif
        }
    } catch (const std::exception& e) {
        std::cerr << "data-parallel: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// A model trained data-parallel by several processes (docs/distributed.md): each process is one
// replica of the Learner, on its shard of the data.
//
//   burn-run --nproc 2 ./data-parallel [--backend cpu|cuda] [--model guide|resnet18]
//                                      [--epochs N] [--batch-size N] [--train-items N]
//                                      [--test-items N] [--num-workers N] [--image-size N]
//                                      [--artifact-dir DIR]
//
// --model guide (the default) trains the guide's model on Fashion-MNIST; --model resnet18 trains
// ResNet-18 (resnet.hpp) on random images of --image-size pixels (224 by default) and 1000
// classes, drawn on the device: the scaling benchmark of docs/distributed.md.
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
#include "resnet.hpp"

#ifdef BURN_EXAMPLE_WITH_CUDA
#include <burn/backend/cuda.hpp>
#include <burn/distributed/nccl.hpp>
#endif

namespace {

namespace dist = burn::distributed;

struct Options {
    std::string backend = "cpu";
    std::string model = "guide";
    std::size_t epochs = 1, batch_size = 64, train_items = SIZE_MAX, test_items = SIZE_MAX;
    std::size_t num_workers = 1, image_size = 224;
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
        } else if (a == "--model") {
            o.model = v;
            if (v != "guide" && v != "resnet18")
                throw std::invalid_argument("--model: expected guide or resnet18");
        } else if (a == "--epochs") o.epochs = count();
        else if (a == "--image-size") o.image_size = count();
        else if (a == "--batch-size") o.batch_size = count();
        else if (a == "--train-items") o.train_items = count();
        else if (a == "--test-items") o.test_items = count();
        else if (a == "--num-workers") o.num_workers = v == "0" ? 0 : count();
        else if (a == "--artifact-dir") o.artifact_dir = v;
        else throw std::invalid_argument("unknown option " + a);
    }
    return o;
}

/// Trains `model` on backend B (an Autodiff backend) on `device` with Adam; `device_group`, when
/// given, sums the gradients on the device.
template <class B, class Model, class TrainBatcher, class ValidBatcher, class TrainSet,
          class TestSet, class DeviceGroup>
void fit(const Options& o, const std::shared_ptr<dist::Communicator>& comm,
         const typename B::Device& device, const std::shared_ptr<DeviceGroup>& device_group,
         Model model, TrainBatcher train_batcher, ValidBatcher valid_batcher, TrainSet train_set,
         TestSet test_set) {
    const auto rank = static_cast<std::size_t>(comm->rank());
    const auto world = static_cast<std::size_t>(comm->world_size());
    const std::uint64_t seed = 42;
    // A fresh artifact directory (rank 0 writes it; the others wait until it is cleared).
    if (rank == 0) std::filesystem::remove_all(o.artifact_dir);
    comm->barrier();
    auto train_loader = burn::data::DataLoaderBuilder(std::move(train_batcher))
                            .batch_size(o.batch_size)
                            .shuffle(seed)  // the same order on every rank, dealt out
                            .shard(rank, world)
                            .num_workers(o.num_workers)
                            .set_device(device)
                            .build(std::move(train_set));
    auto test_loader = burn::data::DataLoaderBuilder(std::move(valid_batcher))
                           .batch_size(o.batch_size)
                           .shard(rank, world)
                           .num_workers(o.num_workers)
                           .set_device(device)
                           .build(std::move(test_set));
    auto builder = burn::train::LearnerBuilder<Model>(o.artifact_dir)
                       .metric_train_numeric(burn::train::AccuracyMetric{})
                       .metric_valid_numeric(burn::train::AccuracyMetric{})
                       .metric_train_numeric(burn::train::LossMetric{})
                       .metric_valid_numeric(burn::train::LossMetric{})
                       .with_file_checkpointer(burn::record::CompactRecorder{})
                       .num_epochs(o.epochs)
                       .summary();
    if constexpr (std::is_void_v<DeviceGroup>) builder.data_parallel(comm);
    else builder.data_parallel(comm, device_group);
    auto learner =
        builder.build(std::move(model), burn::optim::AdamConfig{}.init<B, Model>(), 1.0e-3);
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

/// The model and data that --model names, trained on backend B.
template <class B, class DeviceGroup = void>
void train(const Options& o, const std::shared_ptr<dist::Communicator>& comm,
           const typename B::Device& device, std::shared_ptr<DeviceGroup> device_group = nullptr) {
    using Inner = typename B::InnerBackend;
    B::seed(42);  // the same initial parameters on every rank (rank 0's are broadcast anyway)
    if (o.model == "guide") {
        using burn::data::MnistKind;
        using burn::data::MnistSplit;
        fit<B>(o, comm, device, device_group,
               guide::ModelConfig{.num_classes = 10, .hidden_size = 512}.init<B>(device),
               guide::MnistBatcher<B>{}, guide::MnistBatcher<Inner>{},
               guide::mnist_split(MnistKind::Fashion, MnistSplit::Train, o.train_items),
               guide::mnist_split(MnistKind::Fashion, MnistSplit::Test, o.test_items));
    } else {
        const std::size_t classes = 1000;
        const auto items = [&](std::size_t n, std::size_t fallback) {
            return resnet::indices(n == SIZE_MAX ? fallback : n);
        };
        fit<B>(o, comm, device, device_group, resnet::ResNet18<B>::init(classes, device),
               resnet::RandomImageBatcher<B>{o.image_size, classes},
               resnet::RandomImageBatcher<Inner>{o.image_size, classes},
               items(o.train_items, 64 * o.batch_size), items(o.test_items, 2 * o.batch_size));
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "data-parallel: " << e.what()
                  << "\nusage: burn-run --nproc N data-parallel [--backend cpu|cuda] "
                     "[--model guide|resnet18] [--epochs N] [--batch-size N] [--train-items N] "
                     "[--test-items N] [--num-workers N] [--image-size N] [--artifact-dir DIR]\n";
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

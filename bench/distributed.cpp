// SPDX-License-Identifier: MIT OR Apache-2.0
// burn_bench_distributed: times Communicator::all_reduce (f32 sum, host buffers) between the ranks
// of one job, or with --nccl NcclGroup::all_reduce of CUDA tensors (rank r on CudaDevice{r});
// bench/compare_distributed.py and bench/compare_nccl.py start the ranks and time PyTorch's gloo
// or nccl all_reduce in the same run. Each rank runs
//   BURN_RANK=r BURN_WORLD_SIZE=n BURN_STORE_DIR=dir burn_bench_distributed [--nccl] [BYTES...]
// (burn-run sets those) and rank 0 prints one line per size: `bytes seconds_per_call
// bus_GB_per_s` (median of 5 rounds, each at least 0.2 s of calls; bus bandwidth = bytes *
// 2 (n - 1) / n / time, as nccl-tests).
#include <algorithm>
#include <burn/distributed.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef BURN_BENCH_NCCL
#include <burn/distributed/nccl.hpp>
#endif

int main(int argc, char** argv) {
    using burn::distributed::Communicator;
    std::vector<std::size_t> sizes;
    bool nccl = false;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--nccl") nccl = true;
        else sizes.push_back(std::stoull(argv[i]));
    }
    if (sizes.empty()) sizes = {4096, 1 << 20, 16 << 20, 64 << 20};
    try {
        Communicator comm = Communicator::from_env();
        const double n = comm.world_size();
#ifdef BURN_BENCH_NCCL
        std::optional<burn::distributed::NcclGroup> gpus;
        const burn::CudaDevice device{static_cast<std::size_t>(comm.rank())};
        if (nccl) gpus.emplace(comm, device);
#else
        if (nccl) throw std::runtime_error("--nccl: built without the CUDA backend");
#endif
        for (const std::size_t bytes : sizes) {
            std::vector<float> data(bytes / sizeof(float), 1.0f);
            auto span = std::as_writable_bytes(std::span(data));
            std::function<void(std::int64_t)> run = [&](std::int64_t calls) {
                for (std::int64_t c = 0; c < calls; ++c) comm.all_reduce(span, burn::DType::F32);
            };
#ifdef BURN_BENCH_NCCL
            using G = burn::Cuda<float>;
            std::optional<burn::Tensor<G, 1>> x;
            if (gpus) {
                x = burn::Tensor<G, 1>::full({data.size()}, 1.0f, device);
                // Every call waits for the previous one's result (the GPU queue is timed whole).
                run = [&](std::int64_t calls) {
                    for (std::int64_t c = 0; c < calls; ++c) x = gpus->all_reduce(*x);
                    burn::cuda_sync(device);
                };
            }
#endif
            run(1);  // warm-up
            std::vector<double> rounds;
            for (int round = 0; round < 5; ++round) {
                // Every rank runs the same number of calls: rank 0 decides it.
                std::int64_t calls = 1;
                double secs = 0;
                while (true) {
                    comm.barrier();
                    const auto t0 = std::chrono::steady_clock::now();
                    run(calls);
                    secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                               .count();
                    std::int64_t more = secs < 0.2 ? calls * 2 : 0;
                    comm.broadcast(std::as_writable_bytes(std::span(&more, 1)), 0);
                    if (more == 0) break;
                    calls = more;
                }
                rounds.push_back(secs / static_cast<double>(calls));
            }
            std::sort(rounds.begin(), rounds.end());
            const double t = rounds[rounds.size() / 2];
            if (comm.rank() == 0)
                std::printf("%zu %.9f %.3f\n", bytes, t,
                            static_cast<double>(bytes) * 2 * (n - 1) / n / t / 1e9);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "burn_bench_distributed: %s\n", e.what());
        return 1;
    }
    return 0;
}

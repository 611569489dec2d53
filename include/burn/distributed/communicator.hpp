// SPDX-License-Identifier: MIT OR Apache-2.0
// Collective communication between the processes of a data-parallel job: all-reduce, broadcast,
// all-gather, reduce-scatter and barrier over host buffers, TensorData and tensors of any backend
// (staged through the host). The engine is Gloo, the CPU collective library PyTorch uses
// (TCP between the ranks, rendezvous through a directory every rank can reach). The library is
// burn::distributed (CMake component `distributed`), built when Gloo (Debian's libgloo-dev) is
// installed. docs/distributed.md.
//
// Every rank must call the same collectives in the same order with buffers of the same size and
// dtype; by default each collective first checks that (one small exchange) and throws a
// burn::Error naming the operation and the sizes when the ranks disagree.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "burn/tensor/tensor.hpp"
#include "burn/train/replicas.hpp"

namespace burn::distributed {

/// How all-reduce and reduce-scatter combine the ranks' values. Mean is the sum divided by the
/// number of ranks (truncated toward zero for integers).
enum class ReduceOp { Sum, Mean, Product, Max, Min };

/// Where and how the processes of a job find each other.
struct RendezvousOptions {
    /// This process's rank, in [0, world_size).
    int rank = 0;
    /// The number of processes in the job.
    int world_size = 1;
    /// A directory every rank can read and write (a local one for the processes of one machine, a
    /// shared filesystem for several machines): the ranks publish their addresses in it. Created
    /// when missing.
    std::string store_dir;
    /// Separates the jobs (or successive communicators of one job) that share `store_dir`.
    std::string prefix = "burn";
    /// The address the other ranks reach this process at: an IP address or a host name of this
    /// machine (127.0.0.1 when every rank runs here).
    std::string hostname = "127.0.0.1";
    /// How long connecting waits for the other ranks, and each collective for its peers.
    std::chrono::milliseconds timeout{std::chrono::seconds(60)};
    /// Each collective first checks that every rank passed the same operation, size and dtype.
    bool check_arguments = true;

    /// From the environment: BURN_RANK, BURN_WORLD_SIZE and BURN_STORE_DIR (required),
    /// BURN_STORE_PREFIX, BURN_HOSTNAME, BURN_TIMEOUT_S (seconds), BURN_CHECK_COLLECTIVES (0 turns
    /// the checks off). Throws burn::Error naming a variable that is missing or malformed.
    static RendezvousOptions from_env();
};

/// One process's connection to the other ranks of a job. Move-only; collectives on one
/// Communicator must not run concurrently from several threads. It is the train::ReplicaGroup of
/// the Learner's data-parallel strategy (LearnerBuilder::data_parallel).
class Communicator final : public train::ReplicaGroup {
public:
    /// Connects to every other rank: every rank calls it with the same world size, store and
    /// prefix. Throws burn::Error when the others have not all arrived within the timeout.
    static Communicator connect(const RendezvousOptions& options);
    /// connect(RendezvousOptions::from_env()).
    static Communicator from_env() { return connect(RendezvousOptions::from_env()); }

    Communicator(Communicator&&) noexcept;
    Communicator& operator=(Communicator&&) noexcept;
    ~Communicator() override;

    int rank() const override;
    int world_size() const override;

    // Host buffers of `dtype` (F32, F64, F16, BF16, I32 or I64; broadcast, all-gather and barrier
    // take any bytes). A failure (a peer that exited, a timeout, ranks that disagree) throws
    // burn::Error.

    /// Every rank's `data` becomes the reduction of all ranks' `data`.
    void all_reduce(std::span<std::byte> data, DType dtype, ReduceOp op = ReduceOp::Sum);
    /// Every rank's `data` becomes rank `root`'s.
    void broadcast(std::span<std::byte> data, int root = 0) override;
    /// `out` (world_size times the size of `in`) receives every rank's `in`, in rank order.
    void all_gather(std::span<const std::byte> in, std::span<std::byte> out);
    /// `in` holds world_size equal parts; `out` (one part) receives the reduction over the ranks
    /// of part `rank()`.
    void reduce_scatter(std::span<const std::byte> in, std::span<std::byte> out, DType dtype,
                        ReduceOp op = ReduceOp::Sum);
    /// Returns when every rank has called it.
    void barrier() override;
    /// all_reduce(data, dtype, ReduceOp::Sum) (train::ReplicaGroup).
    void all_reduce_sum(std::span<std::byte> data, DType dtype) override {
        all_reduce(data, dtype, ReduceOp::Sum);
    }
    /// The sum without the argument check (train::ReplicaGroup: the caller checked the sizes).
    void all_reduce_sum_trusted(std::span<std::byte> data, DType dtype) override;

    // TensorData: the same collectives; every rank passes the same shape and dtype.

    TensorData all_reduce(TensorData data, ReduceOp op = ReduceOp::Sum);
    TensorData broadcast(TensorData data, int root = 0);
    /// The ranks' data concatenated along dim 0 (shape [world_size * d0, ...]).
    TensorData all_gather(const TensorData& data);
    /// Dim 0 of `data` is split into world_size equal parts (it must divide); returns the
    /// reduction over the ranks of part `rank()` (shape [d0 / world_size, ...]).
    TensorData reduce_scatter(const TensorData& data, ReduceOp op = ReduceOp::Sum);

    // Tensors of any backend, staged through the host; results are on the input's device.

    template <Backend B, std::size_t D, class K>
    Tensor<B, D, K> all_reduce(const Tensor<B, D, K>& t, ReduceOp op = ReduceOp::Sum) {
        return Tensor<B, D, K>::from_data(all_reduce(t.to_data(), op), t.device());
    }
    template <Backend B, std::size_t D, class K>
    Tensor<B, D, K> broadcast(const Tensor<B, D, K>& t, int root = 0) {
        return Tensor<B, D, K>::from_data(broadcast(t.to_data(), root), t.device());
    }
    template <Backend B, std::size_t D, class K>
    Tensor<B, D, K> all_gather(const Tensor<B, D, K>& t) {
        return Tensor<B, D, K>::from_data(all_gather(t.to_data()), t.device());
    }
    template <Backend B, std::size_t D, class K>
    Tensor<B, D, K> reduce_scatter(const Tensor<B, D, K>& t, ReduceOp op = ReduceOp::Sum) {
        return Tensor<B, D, K>::from_data(reduce_scatter(t.to_data(), op), t.device());
    }

    struct Impl;  // the connection (opaque)

private:
    explicit Communicator(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace burn::distributed

// SPDX-License-Identifier: MIT OR Apache-2.0
// Collectives between processes on CUDA tensors, device to device, over NCCL (the CUDA toolkit's
// collective library): one communicator per process and device, its collectives enqueued on the
// device's stream like every op of the backend. The processes find each other through a 128-byte
// id that one of them creates and the others receive over any channel:
// burn::distributed::NcclGroup (<burn/distributed/nccl.hpp>) sends it over the Gloo communicator.
// No CUDA or NCCL header here. docs/distributed.md, "CUDA tensors over NCCL".
#pragma once

#include <array>
#include <cstddef>
#include <memory>

#include "burn/backend/cuda/tensor.hpp"

namespace burn::cuda {

/// How all-reduce and reduce-scatter combine the ranks' values (Avg: the sum divided by the
/// number of ranks, float dtypes only).
enum class NcclOp { Sum, Prod, Max, Min, Avg };

/// One rank's NCCL communicator on one CUDA device. Move-only. Every rank calls the same
/// collectives in the same order with tensors of the same shape and dtype (F32, F64, F16, BF16,
/// I32, I64, I8, U8 and Bool); results are new tensors on the communicator's device. NCCL
/// failures throw burn::Error naming the collective.
class NcclCommunicator {
public:
    using UniqueId = std::array<std::byte, 128>;

    /// Whether this build has NCCL (found at configure time).
    static bool available() noexcept;
    /// A new job id (ncclGetUniqueId): one rank makes it, every rank passes it to the constructor.
    static UniqueId unique_id();

    /// Joins the job `id` as `rank` of `world_size` on `device` (ncclCommInitRank): returns when
    /// every rank has joined.
    NcclCommunicator(CudaDevice device, int rank, int world_size, const UniqueId& id);
    NcclCommunicator(NcclCommunicator&&) noexcept;
    NcclCommunicator& operator=(NcclCommunicator&&) noexcept;
    ~NcclCommunicator();

    int rank() const;
    int world_size() const;
    CudaDevice device() const;

    /// The reduction over the ranks of `t`.
    CudaTensor all_reduce(const CudaTensor& t, NcclOp op = NcclOp::Sum);

    /// A collective running on the communicator's own stream, beside the device's stream: it
    /// starts once the work queued on the device's stream before it is done (what computed its
    /// input), and the work queued there after it does not wait for it (gradients of a backward
    /// pass go on being computed while a bucket is reduced). wait() makes the device's stream wait
    /// for it and gives the result; a Pending destroyed without wait() makes the stream wait too,
    /// so that its buffers are never reused early. Move-only.
    class Pending {
    public:
        Pending();
        Pending(Pending&&) noexcept;
        Pending& operator=(Pending&&) noexcept;
        ~Pending();
        /// The result (later work on the device's stream is ordered after the collective).
        CudaTensor wait();
        struct State;

    private:
        friend class NcclCommunicator;
        std::unique_ptr<State> state_;
    };
    /// all_reduce on the communicator's stream (see Pending). The collectives of a communicator
    /// still run in the order they were called, on every rank.
    Pending all_reduce_async(const CudaTensor& t, NcclOp op = NcclOp::Sum);
    /// Rank `root`'s `t` (the others pass a tensor of the same shape and dtype).
    CudaTensor broadcast(const CudaTensor& t, int root = 0);
    /// Every rank's `t` concatenated along dim 0, in rank order.
    CudaTensor all_gather(const CudaTensor& t);
    /// Dim 0 of `t` split into world_size equal parts; this rank gets the reduction of its part.
    CudaTensor reduce_scatter(const CudaTensor& t, NcclOp op = NcclOp::Sum);
    /// Returns when every rank has reached it (an all-reduce of one value, waited for).
    void barrier();

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace burn::cuda

// SPDX-License-Identifier: MIT OR Apache-2.0
// Collectives on CUDA tensors, device to device, over NCCL, for the processes of a job that a
// Communicator (Gloo) already connects: the Communicator carries NCCL's job id from rank 0 to the
// others, then every collective of the group runs on the GPUs (NVLink or PCIe, and the network
// between machines) without host copies. Needs burn::cuda (built with NCCL) and
// burn::distributed. docs/distributed.md, "CUDA tensors over NCCL".
//
//   auto comm = burn::distributed::Communicator::from_env();
//   burn::distributed::NcclGroup gpus(comm, burn::CudaDevice{local_rank});
//   auto g = gpus.all_reduce(grad, burn::distributed::ReduceOp::Mean);   // on the GPU
#pragma once

#include <cstddef>
#include <utility>

#include "burn/backend/cuda.hpp"
#include "burn/backend/cuda/collectives.hpp"
#include "burn/distributed/communicator.hpp"

namespace burn::distributed {

/// One process's NCCL communicator on one CUDA device, in the job of `bootstrap`'s ranks (same
/// ranks, same world size). Move-only. The collectives take and return tensors of any Cuda<F, I>
/// backend on the group's device; they are enqueued on the device's stream like any op (reading
/// a result waits for them). Every rank calls the same collectives in the same order with the
/// same shapes and dtypes (NCCL does not check: ranks that disagree get wrong results or hang).
class NcclGroup {
public:
    /// Rank 0 creates the NCCL job id and `bootstrap` broadcasts it; every rank then joins on
    /// `device` (returns once all have). Throws burn::Error without a GPU or without NCCL.
    NcclGroup(Communicator& bootstrap, CudaDevice device)
        : comm_(device, bootstrap.rank(), bootstrap.world_size(), job_id(bootstrap)) {}

    int rank() const { return comm_.rank(); }
    int world_size() const { return comm_.world_size(); }
    CudaDevice device() const { return comm_.device(); }

    /// The reduction over the ranks: Sum, Product, Max, Min, or Mean (float dtypes only: the
    /// sum divided by the number of ranks, NCCL's ncclAvg).
    template <class F, class I, std::size_t D, class K>
    Tensor<Cuda<F, I>, D, K> all_reduce(const Tensor<Cuda<F, I>, D, K>& t,
                                        ReduceOp op = ReduceOp::Sum) {
        return Tensor<Cuda<F, I>, D, K>(comm_.all_reduce(t.primitive(), nccl_op(op)));
    }
    /// An all-reduce that runs beside the device's work (on the group's own stream: see
    /// cuda::NcclCommunicator::Pending) until wait() gives its result. The Learner's
    /// data-parallel strategy reduces gradient buckets this way while the backward pass goes on.
    template <class T>
    class Pending {
    public:
        /// The result; the device's later work is ordered after the collective.
        T wait() { return T(op_.wait()); }

    private:
        friend class NcclGroup;
        explicit Pending(cuda::NcclCommunicator::Pending op) : op_(std::move(op)) {}
        cuda::NcclCommunicator::Pending op_;
    };
    template <class F, class I, std::size_t D, class K>
    Pending<Tensor<Cuda<F, I>, D, K>> all_reduce_async(const Tensor<Cuda<F, I>, D, K>& t,
                                                       ReduceOp op = ReduceOp::Sum) {
        return Pending<Tensor<Cuda<F, I>, D, K>>(
            comm_.all_reduce_async(t.primitive(), nccl_op(op)));
    }
    /// Rank `root`'s tensor on every rank.
    template <class F, class I, std::size_t D, class K>
    Tensor<Cuda<F, I>, D, K> broadcast(const Tensor<Cuda<F, I>, D, K>& t, int root = 0) {
        return Tensor<Cuda<F, I>, D, K>(comm_.broadcast(t.primitive(), root));
    }
    /// Every rank's tensor concatenated along dim 0, in rank order.
    template <class F, class I, std::size_t D, class K>
    Tensor<Cuda<F, I>, D, K> all_gather(const Tensor<Cuda<F, I>, D, K>& t) {
        return Tensor<Cuda<F, I>, D, K>(comm_.all_gather(t.primitive()));
    }
    /// Dim 0 split into world_size equal parts; this rank gets the reduction of part rank().
    template <class F, class I, std::size_t D, class K>
    Tensor<Cuda<F, I>, D, K> reduce_scatter(const Tensor<Cuda<F, I>, D, K>& t,
                                            ReduceOp op = ReduceOp::Sum) {
        return Tensor<Cuda<F, I>, D, K>(comm_.reduce_scatter(t.primitive(), nccl_op(op)));
    }
    /// Returns when every rank's GPU work queued so far has reached it.
    void barrier() { comm_.barrier(); }

    /// The backend's communicator (collectives on primitives).
    cuda::NcclCommunicator& communicator() { return comm_; }

private:
    static cuda::NcclCommunicator::UniqueId job_id(Communicator& bootstrap) {
        cuda::NcclCommunicator::UniqueId id{};
        if (bootstrap.rank() == 0) id = cuda::NcclCommunicator::unique_id();
        bootstrap.broadcast(std::span<std::byte>(id), 0);
        return id;
    }
    static cuda::NcclOp nccl_op(ReduceOp op) {
        switch (op) {
            case ReduceOp::Sum: return cuda::NcclOp::Sum;
            case ReduceOp::Mean: return cuda::NcclOp::Avg;
            case ReduceOp::Product: return cuda::NcclOp::Prod;
            case ReduceOp::Max: return cuda::NcclOp::Max;
            case ReduceOp::Min: return cuda::NcclOp::Min;
        }
        return cuda::NcclOp::Sum;
    }

    cuda::NcclCommunicator comm_;
};

}  // namespace burn::distributed

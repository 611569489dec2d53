// SPDX-License-Identifier: MIT OR Apache-2.0
// The replicas of a data-parallel job as the Learner sees them: the processes (ranks) that each
// train a copy of the model on their shard of the data and combine their gradients before every
// optimizer step. burn::distributed::Communicator is one (docs/distributed.md); the Learner uses
// it through this interface only, so burn::train does not depend on a collective library.
// LocalReplicas is the other: threads of one process (the Learner's multi-device strategy).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "burn/tensor/dtype.hpp"

namespace burn::train {

/// The collectives the Learner's data-parallel strategy needs, on host buffers. Every replica
/// calls them in the same order with buffers of the same size; a failure (a peer that exited, a
/// timeout) throws burn::Error.
class ReplicaGroup {
public:
    virtual ~ReplicaGroup() = default;
    /// This replica's rank, in [0, world_size()).
    virtual int rank() const = 0;
    /// The number of replicas.
    virtual int world_size() const = 0;
    /// Every replica's `data` (F32 or F64 values) becomes the element-wise sum over the replicas.
    virtual void all_reduce_sum(std::span<std::byte> data, DType dtype) = 0;
    /// all_reduce_sum for a caller that has itself made sure that every replica passes the same
    /// size and dtype (the Learner compares the layout of its gradient buckets once): an
    /// implementation may skip its per-call argument check. By default, all_reduce_sum.
    virtual void all_reduce_sum_trusted(std::span<std::byte> data, DType dtype) {
        all_reduce_sum(data, dtype);
    }
    /// Every replica's `data` becomes replica `root`'s.
    virtual void broadcast(std::span<std::byte> data, int root) = 0;
    /// Returns when every replica has called it.
    virtual void barrier() = 0;
};

/// The replicas of a job inside one process, one thread each (the Learner's multi-device
/// strategy, LearnerBuilder::devices): collectives through shared memory, each replica summing
/// its share of the elements over all of them, in rank order (the same sums on every replica,
/// run after run). Replica r calls group(r)'s collectives from one thread at a time, in the
/// same order as the others.
class LocalReplicas {
public:
    explicit LocalReplicas(int world_size);

    int world_size() const;
    /// The group as replica `rank` sees it (it keeps the shared state alive).
    std::shared_ptr<ReplicaGroup> group(int rank) const;
    /// A replica failed: every collective waiting now or called later throws burn::Error with
    /// `reason` (the first reason given is kept).
    void abort(const std::string& reason);

    struct State;  ///< opaque (src/train/replicas.cpp)

private:
    std::shared_ptr<State> state_;
};

}  // namespace burn::train

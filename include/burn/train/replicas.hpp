// SPDX-License-Identifier: MIT OR Apache-2.0
// The replicas of a data-parallel job as the Learner sees them: the processes (ranks) that each
// train a copy of the model on their shard of the data and combine their gradients before every
// optimizer step. burn::distributed::Communicator is one (docs/distributed.md); the Learner uses
// it through this interface only, so burn::train does not depend on a collective library.
#pragma once

#include <cstddef>
#include <span>

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

}  // namespace burn::train

// SPDX-License-Identifier: MIT OR Apache-2.0
// LocalReplicas: the collectives of replicas that are threads of one process. A collective
// publishes each replica's buffer, waits for all of them (a generation barrier), lets each
// replica combine its share of the elements across every buffer, and waits again before any
// buffer is handed back.
#include "burn/train/replicas.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "burn/tensor/error.hpp"

namespace burn::train {

struct LocalReplicas::State {
    explicit State(int n)
        : world(n), data(std::size_t(n)), bytes(std::size_t(n)), dtypes(std::size_t(n)) {}

    const int world;
    std::mutex mutex;
    std::condition_variable cv;
    std::uint64_t generation = 0;
    int arrived = 0;
    bool aborted = false;
    std::string reason;
    // What each replica passed to the collective in progress.
    std::vector<std::byte*> data;
    std::vector<std::size_t> bytes;
    std::vector<DType> dtypes;

    [[noreturn]] void fail(const char* op, int rank) const {
        throw Error(std::string("LocalReplicas::") + op + " (replica " + std::to_string(rank) +
                    " of " + std::to_string(world) + "): another replica failed: " + reason);
    }

    /// Returns once every replica has arrived; throws if the group was aborted before that.
    void arrive(std::unique_lock<std::mutex>& lock, const char* op, int rank) {
        if (aborted) fail(op, rank);
        const std::uint64_t gen = generation;
        if (++arrived == world) {
            arrived = 0;
            ++generation;
            cv.notify_all();
            return;
        }
        cv.wait(lock, [&] { return generation != gen || aborted; });
        if (generation == gen) fail(op, rank);
    }

    void barrier(const char* op, int rank) {
        std::unique_lock lock(mutex);
        arrive(lock, op, rank);
    }

    /// Publishes a replica's buffer and waits for the others'.
    void publish(const char* op, int rank, std::span<std::byte> buffer, DType dtype) {
        std::unique_lock lock(mutex);
        data[std::size_t(rank)] = buffer.data();
        bytes[std::size_t(rank)] = buffer.size();
        dtypes[std::size_t(rank)] = dtype;
        arrive(lock, op, rank);
    }

    /// Every replica passed `bytes` bytes of `dtype` (the others see the same and throw too).
    void check_same(const char* op, int rank) const {
        for (int r = 1; r < world; ++r)
            BURN_CHECK(bytes[std::size_t(r)] == bytes[0] && dtypes[std::size_t(r)] == dtypes[0],
                       "LocalReplicas::", op, " (replica ", rank, "): replica 0 passed ", bytes[0],
                       " bytes of ", dtypes[0], ", replica ", r, " ", bytes[std::size_t(r)],
                       " bytes of ", dtypes[std::size_t(r)],
                       "; every replica must pass the same size and dtype");
    }

    /// Replica `rank`'s share of the elements: the sum over the replicas, in rank order, written
    /// to every buffer.
    template <class E>
    void sum_share(int rank) {
        const std::size_t n = bytes[0] / sizeof(E);
        const std::size_t begin = n * std::size_t(rank) / std::size_t(world);
        const std::size_t end = n * std::size_t(rank + 1) / std::size_t(world);
        constexpr std::size_t kBlock = 2048;
        std::array<E, kBlock> acc;
        for (std::size_t i = begin; i < end; i += kBlock) {
            const std::size_t m = std::min(kBlock, end - i);
            std::memcpy(acc.data(), reinterpret_cast<const E*>(data[0]) + i, m * sizeof(E));
            for (int r = 1; r < world; ++r) {
                const E* src = reinterpret_cast<const E*>(data[std::size_t(r)]) + i;
                for (std::size_t k = 0; k < m; ++k) acc[k] += src[k];
            }
            for (int r = 0; r < world; ++r)
                std::memcpy(reinterpret_cast<E*>(data[std::size_t(r)]) + i, acc.data(),
                            m * sizeof(E));
        }
    }
};

namespace {

class LocalGroup final : public ReplicaGroup {
public:
    LocalGroup(std::shared_ptr<LocalReplicas::State> state, int rank)
        : state_(std::move(state)), rank_(rank) {}

    int rank() const override { return rank_; }
    int world_size() const override { return state_->world; }

    void all_reduce_sum(std::span<std::byte> data, DType dtype) override {
        BURN_CHECK(dtype == DType::F32 || dtype == DType::F64,
                   "LocalReplicas::all_reduce_sum: ", dtype, " values; expected F32 or F64");
        BURN_CHECK(data.size() % dtype_size(dtype) == 0,
                   "LocalReplicas::all_reduce_sum: ", data.size(),
                   " bytes is not a whole number of ", dtype, " values");
        State& s = *state_;
        s.publish("all_reduce_sum", rank_, data, dtype);
        s.check_same("all_reduce_sum", rank_);
        if (dtype == DType::F32) s.sum_share<float>(rank_);
        else s.sum_share<double>(rank_);
        s.barrier("all_reduce_sum", rank_);  // every share written before the buffers return
    }

    void broadcast(std::span<std::byte> data, int root) override {
        State& s = *state_;
        BURN_CHECK(root >= 0 && root < s.world, "LocalReplicas::broadcast: root ", root,
                   " is not a rank of ", s.world, " replicas");
        s.publish("broadcast", rank_, data, DType::U8);
        s.check_same("broadcast", rank_);
        if (rank_ != root && !data.empty())
            std::memcpy(data.data(), s.data[std::size_t(root)], data.size());
        s.barrier("broadcast", rank_);  // the root's buffer stays valid until every copy is made
    }

    void barrier() override { state_->barrier("barrier", rank_); }

private:
    using State = LocalReplicas::State;
    std::shared_ptr<State> state_;
    int rank_;
};

}  // namespace

LocalReplicas::LocalReplicas(int world_size) {
    BURN_CHECK(world_size >= 1, "LocalReplicas: world_size must be >= 1, got ", world_size);
    state_ = std::make_shared<State>(world_size);
}

int LocalReplicas::world_size() const { return state_->world; }

std::shared_ptr<ReplicaGroup> LocalReplicas::group(int rank) const {
    BURN_CHECK(rank >= 0 && rank < state_->world, "LocalReplicas::group: rank ", rank,
               " is not in [0, ", state_->world, ")");
    return std::make_shared<LocalGroup>(state_, rank);
}

void LocalReplicas::abort(const std::string& reason) {
    {
        std::lock_guard lock(state_->mutex);
        if (state_->aborted) return;
        state_->aborted = true;
        state_->reason = reason;
    }
    state_->cv.notify_all();
}

}  // namespace burn::train

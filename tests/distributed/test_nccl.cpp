// SPDX-License-Identifier: MIT OR Apache-2.0
// NCCL collectives on CUDA tensors between real processes, one per GPU (ranks.hpp starts
// burn_distributed_nccl_worker per rank). Skipped with a reason without two GPUs or without NCCL.
#include <gtest/gtest.h>

#include <burn/backend/cuda.hpp>
#include <burn/backend/cuda/collectives.hpp>
#include <cstdlib>
#include <string>

#include "ranks.hpp"

namespace {

using namespace burn_test_ranks;

TEST(Nccl, CollectivesOnTwoGpus) {
    if (!burn::cuda::NcclCommunicator::available()) GTEST_SKIP() << "this build has no NCCL";
    if (burn::cuda_device_count() < 2)
        GTEST_SKIP() << "needs 2 CUDA devices, found " << burn::cuda_device_count() << " ("
                     << burn::cuda_unavailable_reason() << ")";
    // BURN_NCCL_WORKER overrides the worker's path (a bundle shipped to a GPU machine).
    const char* worker = std::getenv("BURN_NCCL_WORKER");
    expect_all_pass(run_ranks(worker ? worker : BURN_NCCL_WORKER, "collectives", 2, 2,
                              std::chrono::seconds(120), "60"));
}

/// The ranks of the tests that run on every GPU machine: 2 where there are 2 GPUs, else 1 (NCCL
/// with one rank still runs its kernels on the group's stream).
int ranks_here() { return burn::cuda_device_count() >= 2 ? 2 : 1; }

TEST(Nccl, AsynchronousAllReduceBesideTheDeviceWork) {
    if (!burn::cuda::NcclCommunicator::available()) GTEST_SKIP() << "this build has no NCCL";
    if (burn::cuda_device_count() < 1) GTEST_SKIP() << burn::cuda_unavailable_reason();
    const char* worker = std::getenv("BURN_NCCL_WORKER");
    expect_all_pass(run_ranks(worker ? worker : BURN_NCCL_WORKER, "async", ranks_here(),
                              ranks_here(), std::chrono::seconds(120), "60"));
}

TEST(Nccl, LearnerOverNcclOnTheGpusHereEqualsOneProcess) {
    // The Learner's device path with its buckets reduced beside the backward pass, on 1 or 2
    // GPUs (LearnerDataParallelOverNcclEqualsOneProcess below needs 2).
    if (!burn::cuda::NcclCommunicator::available()) GTEST_SKIP() << "this build has no NCCL";
    if (burn::cuda_device_count() < 1) GTEST_SKIP() << burn::cuda_unavailable_reason();
    const char* worker = std::getenv("BURN_NCCL_WORKER");
    expect_all_pass(run_ranks(worker ? worker : BURN_NCCL_WORKER, "learner", ranks_here(),
                              ranks_here(), std::chrono::seconds(240), "120"));
}

TEST(Nccl, LearnerDataParallelOverNcclEqualsOneProcess) {
    if (!burn::cuda::NcclCommunicator::available()) GTEST_SKIP() << "this build has no NCCL";
    if (burn::cuda_device_count() < 2)
        GTEST_SKIP() << "needs 2 CUDA devices, found " << burn::cuda_device_count() << " ("
                     << burn::cuda_unavailable_reason() << ")";
    const char* worker = std::getenv("BURN_NCCL_WORKER");
    expect_all_pass(run_ranks(worker ? worker : BURN_NCCL_WORKER, "learner", 2, 2,
                              std::chrono::seconds(240), "120"));
}

TEST(Nccl, ARankThatExitsMidTrainingIsAnErrorNotAHang) {
    if (!burn::cuda::NcclCommunicator::available()) GTEST_SKIP() << "this build has no NCCL";
    if (burn::cuda_device_count() < 2)
        GTEST_SKIP() << "needs 2 CUDA devices, found " << burn::cuda_device_count() << " ("
                     << burn::cuda_unavailable_reason() << ")";
    const char* worker = std::getenv("BURN_NCCL_WORKER");
    expect_all_pass(run_ranks(worker ? worker : BURN_NCCL_WORKER, "peer_dies", 2, 2,
                              std::chrono::seconds(120), "30"));
}

}  // namespace

// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::distributed between real processes on this machine: each test starts
// `burn_distributed_worker SCENARIO` (or the Learner's worker) once per rank (ranks.hpp), and
// burn-run, the launcher.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <burn/distributed.hpp>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "ranks.hpp"

namespace {

using namespace burn_test_ranks;

TEST(Distributed, CollectivesOnTwoAndFourProcesses) {
    expect_all_pass(
        run_ranks(BURN_DISTRIBUTED_WORKER, "collectives", 2, 2, std::chrono::seconds(60)));
    expect_all_pass(
        run_ranks(BURN_DISTRIBUTED_WORKER, "collectives", 4, 4, std::chrono::seconds(60)));
}

TEST(Distributed, SingleProcessNeedsNoStore) {
    expect_all_pass(
        run_ranks(BURN_DISTRIBUTED_WORKER, "collectives", 1, 1, std::chrono::seconds(60)));
}

TEST(Distributed, DataParallelTrainingEqualsOneProcess) {
    expect_all_pass(
        run_ranks(BURN_DISTRIBUTED_WORKER, "data_parallel", 2, 2, std::chrono::seconds(60)));
    expect_all_pass(
        run_ranks(BURN_DISTRIBUTED_WORKER, "data_parallel", 4, 4, std::chrono::seconds(60)));
}

// The Learner's data-parallel strategy (LearnerBuilder::data_parallel) between real processes.
std::vector<Rank> run_learner(const std::string& scenario, int world) {
    return run_ranks(BURN_DISTRIBUTED_LEARNER_WORKER, scenario, world, world,
                     std::chrono::seconds(100));
}

TEST(DistributedLearner, TrainingEqualsOneProcessAndResumes) {
    // Parameters and the averaged validation loss after 3 epochs equal one process's on the
    // combined batches (1e-9, f64); only rank 0 writes artifacts; every rank resumes.
    expect_all_pass(run_learner("learner", 2));
    expect_all_pass(run_learner("learner", 4));
}

TEST(DistributedLearner, OneRankInterruptedStopsEveryRank) {
    expect_all_pass(run_learner("interrupt", 2));
}

TEST(DistributedLearner, LoadersOfDifferentLengthsAreAnErrorOnEveryRank) {
    expect_all_pass(run_learner("bad_shards", 2));
}

// burn-run, the launcher: it gives each process its rank, and a failing process stops the job.
int run_launcher(const std::string& args) {
    const std::string cmd = std::string("timeout 60 ") + BURN_RUN + " " + args;
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(BurnRun, StartsTheRanksOfAJob) {
    EXPECT_EQ(run_launcher(std::string("--nproc 3 --timeout 20 ") + BURN_DISTRIBUTED_WORKER +
                           " collectives"),
              0);
}

TEST(BurnRun, AFailingRankStopsTheOthersAndGivesItsStatus) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(run_launcher(std::string("--nproc 2 --grace 2 -- ") + BURN_DISTRIBUTED_WORKER +
                           " fail_fast"),
              3);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(BurnRun, PassesSigtermOnToTheRanks) {
    // Two ranks that would sleep for 10 minutes; SIGTERM to burn-run ends them at once.
    std::string run = BURN_RUN, nproc = "--nproc", two = "2", worker = BURN_DISTRIBUTED_WORKER,
                scenario = "sleep";
    char* argv[] = {run.data(), nproc.data(), two.data(), worker.data(), scenario.data(), nullptr};
    pid_t pid = -1;
    ASSERT_EQ(posix_spawn(&pid, run.c_str(), nullptr, nullptr, argv, environ), 0);
    std::this_thread::sleep_for(std::chrono::seconds(2));  // the ranks have connected
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    int st = 0;
    while (::waitpid(pid, &st, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &st, 0);
            FAIL() << "burn-run did not stop within 30 s of SIGTERM";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 128 + SIGTERM);  // the ranks' status: killed by SIGTERM
}

TEST(BurnRun, BadArgumentsAreUsageErrors) {
    EXPECT_EQ(run_launcher("--nproc 0 true 2>/dev/null"), 2);
    EXPECT_EQ(run_launcher("--nproc 2 2>/dev/null"), 2);
    EXPECT_EQ(run_launcher("--nproc 2 --nnodes 2 true 2>/dev/null"), 2);
    EXPECT_EQ(run_launcher("--nproc 1 /nonexistent/program 2>/dev/null"), 127);
}

TEST(Distributed, RanksThatDisagreeAllGetAnError) {
    expect_all_pass(run_ranks(BURN_DISTRIBUTED_WORKER, "mismatch", 2, 2, std::chrono::seconds(60)));
}

TEST(Distributed, ExitedPeerGivesAnErrorNotAHang) {
    // The survivor must report within the deadline (the collective timeout is 20 s; a closed
    // connection is reported at once).
    expect_all_pass(
        run_ranks(BURN_DISTRIBUTED_WORKER, "peer_dies", 2, 2, std::chrono::seconds(40)));
}

TEST(Distributed, MissingRankTimesOut) {
    const auto start = std::chrono::steady_clock::now();
    expect_all_pass(
        run_ranks(BURN_DISTRIBUTED_WORKER, "timeout", 2, 1, std::chrono::seconds(40), "2"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(Distributed, BadOptionsAreErrors) {
    using burn::distributed::Communicator;
    using burn::distributed::RendezvousOptions;
    RendezvousOptions o;
    o.world_size = 2;
    o.rank = 2;
    EXPECT_THROW((void)Communicator::connect(o), burn::Error);
    o.rank = 0;
    o.store_dir = "";
    EXPECT_THROW((void)Communicator::connect(o), burn::Error);
    ::setenv("BURN_RANK", "x1", 1);
    ::setenv("BURN_WORLD_SIZE", "2", 1);
    ::setenv("BURN_STORE_DIR", "/tmp", 1);
    try {
        (void)RendezvousOptions::from_env();
        ADD_FAILURE() << "a malformed BURN_RANK was accepted";
    } catch (const burn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("BURN_RANK='x1'"), std::string::npos) << e.what();
    }
    ::unsetenv("BURN_RANK");
    EXPECT_THROW((void)RendezvousOptions::from_env(), burn::Error);
    ::unsetenv("BURN_WORLD_SIZE");
    ::unsetenv("BURN_STORE_DIR");
    // One rank alone: collectives are local.
    RendezvousOptions one;
    Communicator c = Communicator::connect(one);
    auto d = c.all_reduce(burn::TensorData::from<float>({1, 2}), burn::distributed::ReduceOp::Mean);
    EXPECT_EQ(d.to_vec<float>(), (std::vector<float>{1, 2}));
    EXPECT_THROW((void)c.all_reduce(burn::TensorData::from<bool>({true})), burn::Error);
}

}  // namespace

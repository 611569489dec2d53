// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::distributed::Communicator between real processes on this machine: each test starts
// `burn_distributed_worker SCENARIO` once per rank (BURN_RANK, BURN_WORLD_SIZE, BURN_STORE_DIR in
// a fresh directory) and expects every rank to exit 0 within a deadline; a rank that does not is
// killed and its output printed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <burn/distributed.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct Rank {
    pid_t pid = -1;
    int status = -1;  // exit code, or -1 when killed / not finished
    fs::path log;
};

/// Starts ranks [0, started) of a world of `world` ranks running `scenario`, waits for all of them
/// (killing those still running after `deadline`), and returns them.
std::vector<Rank> run_ranks(const std::string& scenario, int world, int started,
                            std::chrono::seconds deadline, const std::string& timeout_s = "20") {
    const fs::path dir =
        fs::temp_directory_path() / ("burn-distributed-" + std::to_string(::getpid()) + "-" +
                                     scenario + "-" + std::to_string(world));
    fs::remove_all(dir);
    fs::create_directories(dir / "store");
    std::vector<Rank> ranks(static_cast<std::size_t>(started));
    for (int r = 0; r < started; ++r) {
        Rank& rank = ranks[static_cast<std::size_t>(r)];
        rank.log = dir / ("rank" + std::to_string(r) + ".log");
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e) {
            const std::string v = *e;
            if (v.rfind("BURN_", 0) != 0) env.push_back(v);
        }
        env.push_back("BURN_RANK=" + std::to_string(r));
        env.push_back("BURN_WORLD_SIZE=" + std::to_string(world));
        env.push_back("BURN_STORE_DIR=" + (dir / "store").string());
        env.push_back("BURN_TIMEOUT_S=" + timeout_s);
        env.push_back("BURN_NUM_THREADS=1");
        std::vector<char*> envp;
        for (auto& v : env) envp.push_back(v.data());
        envp.push_back(nullptr);
        std::string prog = BURN_DISTRIBUTED_WORKER, arg = scenario;
        char* argv[] = {prog.data(), arg.data(), nullptr};
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, rank.log.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        const int rc = posix_spawn(&rank.pid, prog.c_str(), &actions, nullptr, argv, envp.data());
        posix_spawn_file_actions_destroy(&actions);
        EXPECT_EQ(rc, 0) << "cannot start " << prog;
    }
    const auto end = std::chrono::steady_clock::now() + deadline;
    for (auto& rank : ranks) {
        if (rank.pid <= 0) continue;
        int st = 0;
        while (true) {
            const pid_t done = ::waitpid(rank.pid, &st, WNOHANG);
            if (done == rank.pid) {
                rank.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
                break;
            }
            if (std::chrono::steady_clock::now() > end) {
                ::kill(rank.pid, SIGKILL);
                ::waitpid(rank.pid, &st, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    return ranks;
}

std::string output(const Rank& r) {
    std::ifstream f(r.log);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

/// Every rank exited 0 (else its output is printed); the run's directory is removed.
void expect_all_pass(const std::vector<Rank>& ranks) {
    for (std::size_t r = 0; r < ranks.size(); ++r)
        EXPECT_EQ(ranks[r].status, 0) << "rank " << r << " (status -1: killed at the deadline):\n"
                                      << output(ranks[r]);
    if (!ranks.empty()) {
        std::error_code ignored;
        fs::remove_all(ranks[0].log.parent_path(), ignored);
    }
}

TEST(Distributed, CollectivesOnTwoAndFourProcesses) {
    expect_all_pass(run_ranks("collectives", 2, 2, std::chrono::seconds(60)));
    expect_all_pass(run_ranks("collectives", 4, 4, std::chrono::seconds(60)));
}

TEST(Distributed, SingleProcessNeedsNoStore) {
    expect_all_pass(run_ranks("collectives", 1, 1, std::chrono::seconds(60)));
}

TEST(Distributed, DataParallelTrainingEqualsOneProcess) {
    expect_all_pass(run_ranks("data_parallel", 2, 2, std::chrono::seconds(60)));
    expect_all_pass(run_ranks("data_parallel", 4, 4, std::chrono::seconds(60)));
}

TEST(Distributed, RanksThatDisagreeAllGetAnError) {
    expect_all_pass(run_ranks("mismatch", 2, 2, std::chrono::seconds(60)));
}

TEST(Distributed, ExitedPeerGivesAnErrorNotAHang) {
    // The survivor must report within the deadline (the collective timeout is 20 s; a closed
    // connection is reported at once).
    expect_all_pass(run_ranks("peer_dies", 2, 2, std::chrono::seconds(40)));
}

TEST(Distributed, MissingRankTimesOut) {
    const auto start = std::chrono::steady_clock::now();
    expect_all_pass(run_ranks("timeout", 2, 1, std::chrono::seconds(40), "2"));
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

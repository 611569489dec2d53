// SPDX-License-Identifier: MIT OR Apache-2.0
// Runs the ranks of a distributed test as real processes on this machine: each test starts a
// worker program once per rank (BURN_RANK, BURN_WORLD_SIZE, BURN_STORE_DIR in a fresh directory)
// and expects every rank to exit 0 within a deadline; a rank that does not is killed and its
// output printed.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace burn_test_ranks {

namespace fs = std::filesystem;

struct Rank {
    pid_t pid = -1;
    int status = -1;  // exit code, or -1 when killed / not finished
    fs::path log;
};

/// Starts ranks [0, started) of a world of `world` ranks running `program scenario`, waits for
/// all of them (killing those still running after `deadline`), and returns them.
inline std::vector<Rank> run_ranks(const std::string& program, const std::string& scenario,
                                   int world, int started, std::chrono::seconds deadline,
                                   const std::string& timeout_s = "20") {
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
        std::string prog = program, arg = scenario;
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

inline std::string output(const Rank& r) {
    std::ifstream f(r.log);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

/// Every rank exited 0 (else its output is printed); the run's directory is removed.
inline void expect_all_pass(const std::vector<Rank>& ranks) {
    for (std::size_t r = 0; r < ranks.size(); ++r)
        EXPECT_EQ(ranks[r].status, 0) << "rank " << r << " (status -1: killed at the deadline):\n"
                                      << output(ranks[r]);
    if (!ranks.empty()) {
        std::error_code ignored;
        fs::remove_all(ranks[0].log.parent_path(), ignored);
    }
}

}  // namespace burn_test_ranks

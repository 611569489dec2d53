// SPDX-License-Identifier: MIT OR Apache-2.0
// burn-run: starts the processes of a data-parallel job on this machine (docs/distributed.md).
//
//   burn-run --nproc N [--nnodes M --node-rank K --store DIR --hostname ADDR]
//            [--timeout S] [--grace S] [--] program [args...]
//
// Each process gets BURN_RANK, BURN_LOCAL_RANK, BURN_WORLD_SIZE, BURN_LOCAL_WORLD_SIZE,
// BURN_STORE_DIR and BURN_STORE_PREFIX (and BURN_HOSTNAME, BURN_TIMEOUT_S, BURN_NUM_THREADS when
// given or unset), which Communicator::from_env() reads. On one machine the store is a fresh
// temporary directory, removed at the end. When a process fails, the others are sent SIGTERM and,
// after the grace period, SIGKILL; burn-run exits with the first failure's status. SIGTERM, and a
// SIGINT sent to burn-run alone (kill, not the terminal, whose Ctrl-C reaches every process of the
// foreground group), are passed on to the processes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

volatile sig_atomic_t g_forward = 0;  // a signal to pass on to the processes

void on_signal(int sig, siginfo_t* info, void*) {
    // Ctrl-C from the terminal reaches every process of the group already (si_code SI_KERNEL);
    // only a signal sent to burn-run itself is passed on.
    if (sig == SIGINT && info != nullptr && info->si_code == SI_KERNEL) return;
    g_forward = sig;
}

[[noreturn]] void usage(const std::string& error) {
    std::fprintf(
        stderr,
        "burn-run: %s\n"
        "usage: burn-run --nproc N [--nnodes M --node-rank K --store DIR --hostname ADDR]\n"
        "                [--timeout S] [--grace S] [--] program [args...]\n"
        "  --nproc N      processes on this machine (one per device or core group)\n"
        "  --nnodes M     machines in the job (default 1); with M > 1, --node-rank and a\n"
        "                 --store every machine mounts are required\n"
        "  --node-rank K  this machine's index, 0 to M - 1 (its ranks: K*N .. K*N+N-1)\n"
        "  --store DIR    the rendezvous directory (default: a fresh temporary one)\n"
        "  --prefix P     separates jobs sharing a store (default: burn-run-<pid>, or\n"
        "                 'burn' with --store)\n"
        "  --hostname A   the address the other machines reach this one at\n"
        "  --timeout S    BURN_TIMEOUT_S for the processes\n"
        "  --grace S      seconds between SIGTERM and SIGKILL after a failure (default 10)\n",
        error.c_str());
    std::exit(2);
}

long parse_count(const std::string& flag, const char* value, long min) {
    if (value == nullptr) usage(flag + " needs a value");
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < min)
        usage(flag + " expects an integer >= " + std::to_string(min) + ", got '" + value + "'");
    return v;
}

struct Child {
    pid_t pid = -1;
    int rank = 0;
    bool running = false;
};

int exit_status(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

void signal_all(std::vector<Child>& children, int sig) {
    for (auto& c : children)
        if (c.running) ::kill(c.pid, sig);
}

}  // namespace

int main(int argc, char** argv) {
    long nproc = 0, nnodes = 1, node_rank = -1, grace = 10;
    std::optional<std::string> store, prefix, hostname, timeout;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "-h" || a == "--help") usage("starts the processes of a data-parallel job");
        if (a == "--nproc") nproc = parse_count(a, value(), 1);
        else if (a == "--nnodes") nnodes = parse_count(a, value(), 1);
        else if (a == "--node-rank") node_rank = parse_count(a, value(), 0);
        else if (a == "--grace") grace = parse_count(a, value(), 0);
        else if (a == "--timeout") timeout = std::to_string(parse_count(a, value(), 1));
        else if (a == "--store" || a == "--prefix" || a == "--hostname") {
            const char* v = value();
            if (v == nullptr || *v == '\0') usage(a + " needs a value");
            (a == "--store" ? store : a == "--prefix" ? prefix : hostname) = std::string(v);
        } else if (a.rfind("--", 0) == 0) usage("unknown option " + a);
        else break;
    }
    if (nproc < 1) usage("--nproc N is required");
    if (i >= argc) usage("no program given");
    if (nnodes > 1 && (node_rank < 0 || !store))
        usage("--nnodes " + std::to_string(nnodes) + " needs --node-rank and --store");
    if (node_rank >= nnodes) usage("--node-rank must be below --nnodes");
    if (node_rank < 0) node_rank = 0;

    // The store: given (shared by the machines), or a fresh directory of this run.
    bool own_store = false;
    if (!store) {
        std::string templ = (fs::temp_directory_path() / "burn-run-XXXXXX").string();
        if (::mkdtemp(templ.data()) == nullptr) {
            std::fprintf(stderr, "burn-run: cannot create a store directory in %s: %s\n",
                         fs::temp_directory_path().c_str(), std::strerror(errno));
            return 1;
        }
        store = templ;
        own_store = true;
    }
    if (!prefix) prefix = own_store ? "burn-run-" + std::to_string(::getpid()) : "burn";

    // Kernel threads per process: the machine's cores shared out, unless the user chose.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::string threads = std::to_string(std::max(1L, long(cores) / nproc));
    const bool set_threads = std::getenv("BURN_NUM_THREADS") == nullptr;

    struct sigaction sa {};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);

    std::vector<Child> children(static_cast<std::size_t>(nproc));
    for (long local = 0; local < nproc; ++local) {
        Child& c = children[static_cast<std::size_t>(local)];
        c.rank = static_cast<int>(node_rank * nproc + local);
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e) {
            const std::string v = *e;
            const bool ours =
                v.rfind("BURN_RANK=", 0) == 0 || v.rfind("BURN_LOCAL_RANK=", 0) == 0 ||
                v.rfind("BURN_WORLD_SIZE=", 0) == 0 || v.rfind("BURN_LOCAL_WORLD_SIZE=", 0) == 0 ||
                v.rfind("BURN_STORE_DIR=", 0) == 0 || v.rfind("BURN_STORE_PREFIX=", 0) == 0;
            if (!ours) env.push_back(v);
        }
        env.push_back("BURN_RANK=" + std::to_string(c.rank));
        env.push_back("BURN_LOCAL_RANK=" + std::to_string(local));
        env.push_back("BURN_WORLD_SIZE=" + std::to_string(nnodes * nproc));
        env.push_back("BURN_LOCAL_WORLD_SIZE=" + std::to_string(nproc));
        env.push_back("BURN_STORE_DIR=" + *store);
        env.push_back("BURN_STORE_PREFIX=" + *prefix);
        if (hostname) env.push_back("BURN_HOSTNAME=" + *hostname);
        if (timeout) env.push_back("BURN_TIMEOUT_S=" + *timeout);
        if (set_threads) env.push_back("BURN_NUM_THREADS=" + threads);
        std::vector<char*> envp;
        for (auto& v : env) envp.push_back(v.data());
        envp.push_back(nullptr);
        c.pid = ::fork();
        if (c.pid == 0) {
            ::signal(SIGINT, SIG_DFL);
            ::signal(SIGTERM, SIG_DFL);
            ::execvpe(argv[i], argv + i, envp.data());
            std::fprintf(stderr, "burn-run: cannot run %s: %s\n", argv[i], std::strerror(errno));
            ::_exit(127);
        }
        if (c.pid < 0) {
            std::fprintf(stderr, "burn-run: fork failed: %s\n", std::strerror(errno));
            signal_all(children, SIGKILL);
            return 1;
        }
        c.running = true;
    }

    int result = 0;
    bool failed = false;
    std::optional<std::chrono::steady_clock::time_point> kill_at;
    std::size_t running = children.size();
    while (running > 0) {
        if (g_forward != 0) {
            signal_all(children, g_forward);
            g_forward = 0;
        }
        if (kill_at && std::chrono::steady_clock::now() >= *kill_at) {
            signal_all(children, SIGKILL);
            kill_at.reset();
        }
        int st = 0;
        const pid_t done = ::waitpid(-1, &st, WNOHANG);
        if (done <= 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            continue;
        }
        for (auto& c : children) {
            if (c.pid != done || !c.running) continue;
            c.running = false;
            --running;
            const int code = exit_status(st);
            if (code != 0 && !failed) {
                failed = true;
                result = code;
                std::fprintf(stderr,
                             "burn-run: rank %d exited with status %d; stopping the other %zu "
                             "process(es)\n",
                             c.rank, code, running);
                signal_all(children, SIGTERM);
                kill_at = std::chrono::steady_clock::now() + std::chrono::seconds(grace);
            }
        }
    }
    if (own_store) {
        std::error_code ignored;
        fs::remove_all(*store, ignored);
    }
    return result;
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend's thread count (burn/backend/cpu/threads.hpp) and the TBB arena the kernels run
// their parallel loops in.
//
// One process-wide tbb::task_arena of n threads (1 slot for the calling thread, n - 1 for TBB
// workers) and a tbb::global_control(max_allowed_parallelism, n) that caps TBB's worker pool at
// n - 1, so that n is both the arena's max_concurrency() (which the kernels size their blocks by)
// and the number of threads that really run. Every thread that calls ops joins the same arena:
// the main thread, DataLoader workers, user threads. A thread finding every slot for callers taken
// hands its loop to the arena and waits, so that all of them together never run more than n
// kernel threads. set_num_threads installs the arena of the new size; arenas already made are
// kept (an op may still be running in one; switching back reuses them).
//
// The default is the CPUs the process may run on: sched_getaffinity's mask (taskset, cpusets,
// numactl), capped by the cgroup CPU quota (docker --cpus, Kubernetes limits), which oneTBB
// 2021's own default ignores. std::thread::hardware_concurrency is the machine's CPU count and is
// not used.
#include "burn/backend/cpu/threads.hpp"

#include <sched.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "burn/tensor/error.hpp"
#include "internal.hpp"

namespace burn::cpu {

namespace {

/// The arena of burn::num_threads() threads that every parallel loop of the kernels runs in; null
/// until first use.
std::atomic<tbb::task_arena*> g_thread_pool{nullptr};

std::atomic<int> g_threads{0};

struct PoolState {
    std::mutex mutex;
    ThreadSource source = ThreadSource::Available;
    int affinity = 1;
    std::optional<double> cgroup;
    std::unique_ptr<tbb::global_control> control;
    std::map<int, std::unique_ptr<tbb::task_arena>> arenas;  // by size, never destroyed
};

/// Never destroyed: ops may run during static destruction (a global tensor's last use).
PoolState& state() {
    static PoolState* s = new PoolState;
    return *s;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

int affinity_cpu_count() {
    // Masks larger than cpu_set_t (machines with > 1024 CPUs): grow until the kernel accepts it.
    for (int ncpus = CPU_SETSIZE; ncpus <= (1 << 16); ncpus *= 2) {
        cpu_set_t* set = CPU_ALLOC(ncpus);
        if (set == nullptr) break;
        const std::size_t size = CPU_ALLOC_SIZE(ncpus);
        CPU_ZERO_S(size, set);
        const int rc = sched_getaffinity(0, size, set);
        const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
        CPU_FREE(set);
        if (rc == 0) return std::max(1, count);
        if (errno != EINVAL) break;
    }
    return std::max(1, tbb::info::default_concurrency());
}

std::optional<std::string> read_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::optional<long long> read_integer(const std::string& path) {
    auto s = read_file(path);
    if (!s) return std::nullopt;
    try {
        return std::stoll(*s);
    } catch (...) {
        return std::nullopt;
    }
}

std::string parent_dir(const std::string& dir) {
    const auto slash = dir.find_last_of('/');
    return slash == std::string::npos || slash == 0 ? std::string() : dir.substr(0, slash);
}

/// The smallest CPU quota of the process's cgroup and its ancestors (v2, then v1), if any.
std::optional<double> cgroup_cpu_count() {
    const auto self = read_file("/proc/self/cgroup");
    if (!self) return std::nullopt;
    std::optional<double> best;
    auto keep = [&](std::optional<double> q) {
        if (q && (!best || *q < *best)) best = q;
    };
    std::istringstream lines(*self);
    for (std::string line; std::getline(lines, line);) {
        // "hierarchy-id:controller,list:/path"
        const auto c1 = line.find(':'), c2 = line.find(':', c1 + 1);
        if (c1 == std::string::npos || c2 == std::string::npos) continue;
        const std::string controllers = line.substr(c1 + 1, c2 - c1 - 1);
        std::string path = line.substr(c2 + 1);
        if (path == "/") path.clear();
        if (line.compare(0, c1, "0") == 0 && controllers.empty()) {  // v2
            for (std::string dir = "/sys/fs/cgroup" + path;; dir = parent_dir(dir)) {
                if (auto s = read_file(dir + "/cpu.max")) keep(threading::parse_cgroup_cpu_max(*s));
                if (dir.size() <= std::string("/sys/fs/cgroup").size()) break;
            }
            continue;
        }
        std::istringstream names(controllers);
        bool cpu = false;
        for (std::string name; std::getline(names, name, ',');) cpu = cpu || name == "cpu";
        if (!cpu) continue;
        for (const std::string mount : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
            for (std::string dir = mount + path;; dir = parent_dir(dir)) {
                const auto quota = read_integer(dir + "/cpu.cfs_quota_us");
                const auto period = read_integer(dir + "/cpu.cfs_period_us");
                if (quota && period) keep(threading::cgroup_v1_cpus(*quota, *period));
                if (dir.size() <= mount.size()) break;
            }
        }
    }
    return best;
}

const char* source_variable(ThreadSource s) {
    return s == ThreadSource::BurnNumThreads ? "BURN_NUM_THREADS" : "OMP_NUM_THREADS";
}

/// Installs the arena of `n` threads (state().mutex held).
void install(PoolState& s, int n, ThreadSource source) {
    // max_allowed_parallelism takes the smallest value among the live controls: drop ours first.
    s.control.reset();
    s.control = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                      static_cast<std::size_t>(n));
    auto& arena = s.arenas[n];
    if (!arena) {
        arena = std::make_unique<tbb::task_arena>(n, 1);
        arena->initialize();
    }
    s.source = source;
    g_threads.store(n, std::memory_order_release);
    g_thread_pool.store(arena.get(), std::memory_order_release);
}

/// First use: the environment, else the CPUs available.
void initialize(PoolState& s) {
    s.affinity = affinity_cpu_count();
    s.cgroup = cgroup_cpu_count();
    for (const ThreadSource src : {ThreadSource::BurnNumThreads, ThreadSource::OmpNumThreads}) {
        const char* var = source_variable(src);
        const char* value = std::getenv(var);
        if (value == nullptr || trim(value).empty()) continue;
        std::string why;
        if (auto n =
                threading::parse_num_threads(value, src == ThreadSource::OmpNumThreads, &why)) {
            install(s, *n, src);
            return;
        }
        std::cerr << "burn: ignoring " << var << "='" << value << "': " << why << "\n";
    }
    install(s, threading::available_threads(s.affinity, s.cgroup), ThreadSource::Available);
}

tbb::task_arena& init_thread_pool() {
    PoolState& s = state();
    std::lock_guard lock(s.mutex);
    if (g_thread_pool.load(std::memory_order_acquire) == nullptr) initialize(s);
    return *g_thread_pool.load(std::memory_order_acquire);
}

tbb::task_arena& thread_pool() {
    tbb::task_arena* a = g_thread_pool.load(std::memory_order_acquire);
    return a != nullptr ? *a : init_thread_pool();
}

}  // namespace

ThreadInfo thread_info() {
    init_thread_pool();
    PoolState& s = state();
    std::lock_guard lock(s.mutex);
    return {g_threads.load(std::memory_order_acquire), s.source, s.affinity, s.cgroup};
}

void run_in_thread_pool(const std::function<void()>& f) { thread_pool().execute(f); }

void parallel_for_erased(std::size_t n, std::size_t grain, const void* body, RangeCall call) {
    thread_pool().execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<std::size_t>(0, n, grain),
            [&](const tbb::blocked_range<std::size_t>& r) { call(body, r.begin(), r.end()); });
    });
}

namespace threading {

std::optional<int> parse_num_threads(std::string_view text, bool omp_list, std::string* why) {
    auto fail = [&](const char* reason) -> std::optional<int> {
        if (why) *why = reason;
        return std::nullopt;
    };
    std::string_view s = trim(text);
    if (omp_list) s = trim(s.substr(0, s.find(',')));
    if (s.empty()) return fail("empty");
    long long v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') return fail("not a positive decimal integer");
        v = v * 10 + (c - '0');
        if (v > kMaxThreads) return fail("more than 4096 threads");
    }
    if (v < 1) return fail("the thread count must be at least 1");
    return static_cast<int>(v);
}

std::optional<double> parse_cgroup_cpu_max(std::string_view contents) {
    std::istringstream in{std::string(contents)};
    std::string quota;
    long long period = 0;
    if (!(in >> quota) || quota == "max") return std::nullopt;
    if (!(in >> period)) period = 100000;  // the kernel's default period
    try {
        return cgroup_v1_cpus(std::stoll(quota), period);
    } catch (...) {
        return std::nullopt;
    }
}

std::optional<double> cgroup_v1_cpus(long long quota_us, long long period_us) {
    if (quota_us <= 0 || period_us <= 0) return std::nullopt;
    return static_cast<double>(quota_us) / static_cast<double>(period_us);
}

int available_threads(int affinity_cpus, std::optional<double> cgroup_cpus) {
    int n = std::max(1, affinity_cpus);
    if (cgroup_cpus) n = std::min(n, static_cast<int>(std::ceil(*cgroup_cpus - 1e-9)));
    return std::clamp(n, 1, kMaxThreads);
}

}  // namespace threading

std::size_t num_threads() { return static_cast<std::size_t>(burn::num_threads()); }

}  // namespace burn::cpu

namespace burn {

void set_num_threads(int n) {
    if (n < 1 || n > cpu::kMaxThreads)
        detail::fail("burn::set_num_threads: the thread count must be in [1, ", cpu::kMaxThreads,
                     "], got ", n);
    auto& s = cpu::state();
    std::lock_guard lock(s.mutex);
    if (cpu::g_thread_pool.load(std::memory_order_acquire) == nullptr) {
        s.affinity = cpu::affinity_cpu_count();
        s.cgroup = cpu::cgroup_cpu_count();
    }
    cpu::install(s, n, cpu::ThreadSource::SetNumThreads);
}

int num_threads() {
    const int n = cpu::g_threads.load(std::memory_order_acquire);
    if (n != 0) return n;
    cpu::init_thread_pool();
    return cpu::g_threads.load(std::memory_order_acquire);
}

}  // namespace burn

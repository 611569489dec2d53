// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend's thread count, as PyTorch's torch.set_num_threads / torch.get_num_threads:
//
//   burn::set_num_threads(4);     // the kernels of every later op use 4 threads
//   int n = burn::num_threads();  // the count in effect
//
// Before the first call the count comes from BURN_NUM_THREADS, else OMP_NUM_THREADS, else the CPUs
// this process may run on (its affinity mask, capped by a cgroup CPU quota); docs/backends.md,
// "Threads". The kernels run their parallel loops in one oneTBB arena of that many threads, shared
// by every thread that calls ops (DataLoader workers included); OpenBLAS stays at one thread per
// call. This header is light: no TBB.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace burn {

/// Sets the number of threads of the CPU backend's kernels to `n` (1 <= n <= 4096; more than the
/// CPUs available is allowed, and slow). Ops that start afterwards use it; an op already running
/// finishes with the old count. Overrides BURN_NUM_THREADS and OMP_NUM_THREADS. Throws
/// burn::Error for a value out of range.
void set_num_threads(int n);

/// The number of threads the CPU backend's kernels use: the last set_num_threads value, else
/// BURN_NUM_THREADS, else OMP_NUM_THREADS, else the CPUs available (read once, at first use).
int num_threads();

namespace cpu {

/// The largest thread count set_num_threads and the environment variables accept.
inline constexpr int kMaxThreads = 4096;

/// Where num_threads() came from.
enum class ThreadSource { SetNumThreads, BurnNumThreads, OmpNumThreads, Available };

/// The thread count and what decided it (for logs and diagnostics).
struct ThreadInfo {
    int threads = 1;  ///< num_threads()
    ThreadSource source = ThreadSource::Available;
    int affinity_cpus = 1;              ///< CPUs in the process's affinity mask
    std::optional<double> cgroup_cpus;  ///< the cgroup CPU quota (quota / period), if any
};
ThreadInfo thread_info();

/// Runs `f` inside the kernels' TBB arena (on the calling thread; while another thread holds the
/// arena's caller slot, on one of the arena's threads while the caller waits). TBB algorithms that
/// `f` calls share the kernels' num_threads() threads, and tbb::this_task_arena::max_concurrency()
/// is num_threads() there. For user code that mixes its own TBB loops with burn ops.
void run_in_thread_pool(const std::function<void()>& f);

namespace threading {

/// Parses a thread-count variable's value: a decimal integer in [1, kMaxThreads], blanks around
/// it allowed. `omp_list` accepts OpenMP's list form ("4,2": the first level's count). Returns
/// nullopt with the reason in `*why` for anything else.
std::optional<int> parse_num_threads(std::string_view text, bool omp_list, std::string* why);

/// The CPU count of a cgroup v2 `cpu.max` file ("max 100000" -> nullopt, "150000 100000" -> 1.5),
/// or of a cgroup v1 quota and period (quota -1: no limit).
std::optional<double> parse_cgroup_cpu_max(std::string_view contents);
std::optional<double> cgroup_v1_cpus(long long quota_us, long long period_us);

/// The default thread count: the affinity mask's CPUs, capped by the quota rounded up, >= 1.
int available_threads(int affinity_cpus, std::optional<double> cgroup_cpus);

}  // namespace threading
}  // namespace cpu
}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend's thread count (burn/backend/cpu/threads.hpp): set_num_threads / num_threads,
// the arena the kernels run in, results that do not depend on the count, the parsing of
// BURN_NUM_THREADS / OMP_NUM_THREADS and cgroup quotas, and the default (the affinity mask),
// checked in fresh processes (gtest's "threadsafe" death tests re-execute the binary).
#include <sched.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_threads {

namespace {

using B = burn::Cpu<float>;
using burn::Distribution;
using burn::Tensor;
using burn::TensorData;
using burn::cpu::threading::available_threads;
using burn::cpu::threading::cgroup_v1_cpus;
using burn::cpu::threading::parse_cgroup_cpu_max;
using burn::cpu::threading::parse_num_threads;

/// Restores the thread count a test changed.
struct ThreadCountGuard {
    int saved = burn::num_threads();
    ~ThreadCountGuard() { burn::set_num_threads(saved); }
};

/// tbb::this_task_arena::max_concurrency() as seen from a task of a loop in the kernels' arena.
int max_concurrency_in_task() {
    std::atomic<int> seen{0};
    burn::cpu::run_in_thread_pool([&] {
        tbb::parallel_for(0, 64, [&](int) { seen = tbb::this_task_arena::max_concurrency(); });
    });
    return seen.load();
}

std::string error_of(int n) {
    try {
        burn::set_num_threads(n);
    } catch (const burn::Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Threads, SetNumThreadsChangesTheCountAndTheArena) {
    ThreadCountGuard guard;
    for (int n : {1, 3, 2}) {
        burn::set_num_threads(n);
        EXPECT_EQ(burn::num_threads(), n);
        EXPECT_EQ(max_concurrency_in_task(), n);
        const auto info = burn::cpu::thread_info();
        EXPECT_EQ(info.threads, n);
        EXPECT_EQ(info.source, burn::cpu::ThreadSource::SetNumThreads);
    }
    // From another thread (a DataLoader worker): the same arena, the same count.
    int from_thread = 0;
    std::thread([&] { from_thread = max_concurrency_in_task(); }).join();
    EXPECT_EQ(from_thread, 2);
}

TEST(Threads, InvalidCountsThrowNamingTheFunctionAndTheValue) {
    ThreadCountGuard guard;
    const int before = burn::num_threads();
    EXPECT_THROW(burn::set_num_threads(0), burn::Error);
    EXPECT_EQ(error_of(0), "burn::set_num_threads: the thread count must be in [1, 4096], got 0");
    EXPECT_EQ(error_of(-3), "burn::set_num_threads: the thread count must be in [1, 4096], got -3");
    EXPECT_EQ(error_of(5000),
              "burn::set_num_threads: the thread count must be in [1, 4096], got 5000");
    EXPECT_EQ(burn::num_threads(), before);  // unchanged
}

struct Results {
    TensorData sum, sum_dim, mean_dim, cumsum, softmax, sort, matmul, matmul_batched, conv,
        conv_x_grad, conv_w_grad, conv3x3_wide, conv3x3_small, conv3x3_x_grad, conv3x3_w_grad;
};

Results compute(int threads) {
    burn::set_num_threads(threads);
    B::seed(5);
    const auto big = Tensor<B, 2>::random({512, 2048}, Distribution::Normal(0.0, 1.0));
    const auto a = Tensor<B, 2>::random({300, 256}, Distribution::Default());
    const auto b = Tensor<B, 2>::random({256, 200}, Distribution::Default());
    const auto ab = Tensor<B, 3>::random({8, 64, 96}, Distribution::Default());
    const auto bb = Tensor<B, 3>::random({8, 96, 80}, Distribution::Default());
    // The MNIST guide's second convolution (batch 16): 8 -> 16 channels, 3x3, 26x26.
    const auto x = Tensor<B, 4>::random({16, 8, 26, 26}, Distribution::Normal(0.0, 1.0));
    const auto w = Tensor<B, 4>::random({16, 8, 3, 3}, Distribution::Normal(0.0, 0.3));
    const auto gy = Tensor<B, 4>::random({16, 16, 24, 24}, Distribution::Normal(0.0, 1.0));
    const burn::ConvOptions<2> o{};
    Results r;
    r.sum = big.sum().to_data();
    r.sum_dim = big.sum_dim(1).to_data();
    r.mean_dim = big.mean_dim(0).to_data();
    r.cumsum = big.cumsum(1).to_data();
    r.softmax = burn::activation::softmax(big, 1).to_data();
    r.sort = big.reshape<1>({512 * 2048}).sort(0).to_data();
    r.matmul = a.matmul(b).to_data();
    r.matmul_batched = ab.matmul(bb).to_data();
    r.conv = burn::module::conv2d(x, w, std::nullopt, o).to_data();
    // 3x3 convolutions with 48 -> 40 channels (the Winograd path): 2 x 18x18 outputs (162
    // tiles, several blocks) and 12x12 (36 tiles: with 4 threads one block, whose steps are
    // split over the threads).
    const auto w3 = Tensor<B, 4>::random({40, 48, 3, 3}, Distribution::Normal(0.0, 0.1));
    const burn::ConvOptions<2> p1{.padding = {1, 1}};
    r.conv3x3_wide =
        burn::module::conv2d(Tensor<B, 4>::random({2, 48, 18, 18}, Distribution::Normal(0.0, 1.0)),
                             w3, std::nullopt, p1)
            .to_data();
    r.conv3x3_small =
        burn::module::conv2d(Tensor<B, 4>::random({1, 48, 12, 12}, Distribution::Normal(0.0, 1.0)),
                             w3, std::nullopt, p1)
            .to_data();
    // Their gradients (Winograd too): the input gradient, and the weight gradient, whose sums
    // over the tiles run in fixed chunks.
    const auto x3 = Tensor<B, 4>::random({2, 48, 18, 18}, Distribution::Normal(0.0, 1.0));
    const auto gy3 = Tensor<B, 4>::random({2, 40, 18, 18}, Distribution::Normal(0.0, 1.0));
    r.conv3x3_x_grad =
        Tensor<B, 4>(B::conv2d_x_backward(x3.primitive(), w3.primitive(), gy3.primitive(), p1))
            .to_data();
    r.conv3x3_w_grad =
        Tensor<B, 4>(B::conv2d_weight_backward(x3.primitive(), w3.primitive(), gy3.primitive(), p1))
            .to_data();
    r.conv_x_grad =
        Tensor<B, 4>(B::conv2d_x_backward(x.primitive(), w.primitive(), gy.primitive(), o))
            .to_data();
    r.conv_w_grad =
        Tensor<B, 4>(B::conv2d_weight_backward(x.primitive(), w.primitive(), gy.primitive(), o))
            .to_data();
    return r;
}

TEST(Threads, ResultsAreIdenticalForOneAndTwoThreads) {
    ThreadCountGuard guard;
    const Results one = compute(1), two = compute(2);
    // Random numbers, reductions (fixed 64Ki-element chunks), scans, softmax and sorting do not
    // depend on the thread count, bit for bit.
    EXPECT_TRUE(one.sum == two.sum);
    EXPECT_TRUE(one.sum_dim == two.sum_dim);
    EXPECT_TRUE(one.mean_dim == two.mean_dim);
    EXPECT_TRUE(one.cumsum == two.cumsum);
    EXPECT_TRUE(one.softmax == two.softmax);
    EXPECT_TRUE(one.sort == two.sort);
    // Products: a batch spread over the threads gives each matrix to one GEMM call whatever the
    // count, bit for bit; a single product is cut into one row block per thread, and OpenBLAS's
    // kernels for a block of another height may round differently (seen: 300x256x200), so it
    // is only close. A fixed count repeats bit for bit.
    EXPECT_TRUE(one.matmul_batched == two.matmul_batched);
    EXPECT_TRUE(
        burn::testing::close_to(Tensor<B, 2>::from_data(one.matmul), two.matmul, {1e-5, 1e-5}));
    EXPECT_TRUE(compute(2).matmul == two.matmul);
    // Convolutions: the forward and the input gradient compute each element in one place; the
    // weight gradient sums fixed chunks of the (batch x column block) items, whose blocks depend
    // on the thread count, so it is only close.
    EXPECT_TRUE(one.conv == two.conv);
    EXPECT_TRUE(one.conv_x_grad == two.conv_x_grad);
    // Winograd 3x3 convolutions: each output's sums run in one fixed order whatever the blocks.
    const Results four = compute(4);
    EXPECT_TRUE(one.conv3x3_wide == two.conv3x3_wide);
    EXPECT_TRUE(one.conv3x3_small == two.conv3x3_small);
    EXPECT_TRUE(one.conv3x3_small == four.conv3x3_small);
    EXPECT_TRUE(one.conv3x3_wide == four.conv3x3_wide);
    EXPECT_TRUE(one.conv3x3_x_grad == two.conv3x3_x_grad);
    EXPECT_TRUE(one.conv3x3_x_grad == four.conv3x3_x_grad);
    EXPECT_TRUE(one.conv3x3_w_grad == two.conv3x3_w_grad);
    EXPECT_TRUE(one.conv3x3_w_grad == four.conv3x3_w_grad);
    EXPECT_TRUE(burn::testing::close_to(Tensor<B, 4>::from_data(one.conv_w_grad), two.conv_w_grad,
                                        {1e-5, 1e-5}));
}

TEST(Threads, OpsFromSeveralThreadsShareTheArena) {
    ThreadCountGuard guard;
    burn::set_num_threads(2);
    B::seed(11);
    const auto x = Tensor<B, 2>::random({256, 1024}, Distribution::Default());
    const auto expected = x.matmul(x.transpose()).sum_dim(1).to_data();
    std::vector<TensorData> got(4);
    std::vector<std::thread> workers;
    for (std::size_t i = 0; i < got.size(); ++i)
        workers.emplace_back([&, i] { got[i] = x.matmul(x.transpose()).sum_dim(1).to_data(); });
    for (auto& t : workers) t.join();
    for (const auto& g : got) EXPECT_TRUE(g == expected);
}

TEST(Threads, ParsesThreadCountVariables) {
    std::string why;
    EXPECT_EQ(parse_num_threads("4", false, &why), 4);
    EXPECT_EQ(parse_num_threads(" 16\n", false, &why), 16);
    EXPECT_EQ(parse_num_threads("4096", false, &why), 4096);
    EXPECT_EQ(parse_num_threads("4,2", true, &why), 4);  // OMP_NUM_THREADS's nested levels
    EXPECT_EQ(parse_num_threads("3", true, &why), 3);
    for (const char* bad :
         {"", "  ", "0", "-1", "+2", "abc", "4x", "2.5", "4,2", "4097", "99999999999999999999"}) {
        SCOPED_TRACE(bad);
        EXPECT_EQ(parse_num_threads(bad, false, &why), std::nullopt);
        EXPECT_FALSE(why.empty());
    }
    EXPECT_EQ(parse_num_threads("0", false, &why), std::nullopt);
    EXPECT_EQ(why, "the thread count must be at least 1");
    EXPECT_EQ(parse_num_threads("abc", false, &why), std::nullopt);
    EXPECT_EQ(why, "not a positive decimal integer");
    EXPECT_EQ(parse_num_threads(",2", true, &why), std::nullopt);
}

TEST(Threads, CgroupQuotasCapTheDefault) {
    EXPECT_EQ(parse_cgroup_cpu_max("max 100000\n"), std::nullopt);
    EXPECT_EQ(parse_cgroup_cpu_max("200000 100000\n"), 2.0);
    EXPECT_EQ(parse_cgroup_cpu_max("150000 100000"), 1.5);
    EXPECT_EQ(parse_cgroup_cpu_max(""), std::nullopt);
    EXPECT_EQ(cgroup_v1_cpus(-1, 100000), std::nullopt);
    EXPECT_EQ(cgroup_v1_cpus(50000, 100000), 0.5);
    EXPECT_EQ(available_threads(16, std::nullopt), 16);
    EXPECT_EQ(available_threads(16, 2.0), 2);
    EXPECT_EQ(available_threads(16, 1.5), 2);  // rounded up
    EXPECT_EQ(available_threads(16, 0.5), 1);
    EXPECT_EQ(available_threads(2, 8.0), 2);  // the affinity mask is the tighter bound
}

TEST(Threads, ReportsTheAffinityMask) {
    cpu_set_t set;
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    EXPECT_EQ(burn::cpu::thread_info().affinity_cpus, CPU_COUNT(&set));
}

// Fresh processes: the environment is read once, at first use.
class ThreadsDefault : public ::testing::Test {
protected:
    void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(ThreadsDefault, IsTheAffinityMaskNotTheMachine) {
    EXPECT_EXIT(
        {
            unsetenv("BURN_NUM_THREADS");
            unsetenv("OMP_NUM_THREADS");
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(0, &one);
            sched_setaffinity(0, sizeof one, &one);  // as `taskset -c 0`
            const int n = burn::num_threads();
            const int in_task = max_concurrency_in_task();
            std::exit(n == 1 && in_task == 1 ? 0 : 10 + n);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST_F(ThreadsDefault, BurnNumThreadsThenOmpNumThreads) {
    EXPECT_EXIT(
        {
            setenv("BURN_NUM_THREADS", "3", 1);
            setenv("OMP_NUM_THREADS", "5", 1);
            std::exit(burn::num_threads() == 3 && max_concurrency_in_task() == 3 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
    EXPECT_EXIT(
        {
            unsetenv("BURN_NUM_THREADS");
            setenv("OMP_NUM_THREADS", "5,1", 1);
            std::exit(burn::num_threads() == 5 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST_F(ThreadsDefault, InvalidVariablesAreIgnoredWithAWarning) {
    EXPECT_EXIT(
        {
            setenv("BURN_NUM_THREADS", "many", 1);
            setenv("OMP_NUM_THREADS", "3", 1);
            std::exit(burn::num_threads() == 3 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0),
        "burn: ignoring BURN_NUM_THREADS='many': not a positive decimal integer");
    EXPECT_EXIT(
        {
            setenv("BURN_NUM_THREADS", "0", 1);
            unsetenv("OMP_NUM_THREADS");
            const int n = burn::num_threads();
            std::exit(n == burn::cpu::thread_info().affinity_cpus ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "ignoring BURN_NUM_THREADS='0'");
}

TEST_F(ThreadsDefault, SetNumThreadsOverridesTheEnvironment) {
    EXPECT_EXIT(
        {
            setenv("BURN_NUM_THREADS", "3", 1);
            burn::set_num_threads(2);
            std::exit(burn::num_threads() == 2 && max_concurrency_in_task() == 2 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

}  // namespace

}  // namespace burn_test_threads

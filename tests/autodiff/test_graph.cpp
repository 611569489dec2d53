// SPDX-License-Identifier: MIT OR Apache-2.0
// The graph's behaviour: accumulation, detach, inner, grad_remove/replace, untracked tensors,
// non-scalar roots, freeing (after backward and without it), threads, checkpointing. On ADF:
// Autodiff<Cpu<float>>, or Autodiff<Vulkan<>> in burn_autodiff_tests_vulkan.
#include <unistd.h>

#include <fstream>
#include <thread>

#include "gradcheck.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::autodiff_graph {
namespace {

using T1 = Tensor<ADF, 1>;
using T2 = Tensor<ADF, 2>;
using Inner2 = Tensor<TestFloatBackend, 2>;

template <class T>
concept HasBackward = requires(T t) {
    t.backward();
};
static_assert(HasBackward<Tensor<ADF, 2>>);
static_assert(!HasBackward<Tensor<TestFloatBackend, 2>>, "backward needs an autodiff backend");
static_assert(!HasBackward<Tensor<ADF, 2, Int>>, "only float tensors have gradients");
static_assert(AutodiffBackend<ADF> && !AutodiffBackend<TestFloatBackend>);
static_assert(std::same_as<ADF::InnerBackend, TestFloatBackend>);

TEST(AutodiffGraph, GradientsAccumulateOverUses) {
    auto x = T2::from_floats({{1, 2}, {3, -4}}).require_grad();
    auto y = x * x + x * 3.0 - x.exp().log();  // 2x + 3 - 1
    auto grads = y.sum().backward();
    EXPECT_TRUE(close_to(*x.grad(grads), TensorData::from_nested<double, 2>({{4, 6}, {8, -6}})));
}

TEST(AutodiffGraph, DetachStopsGradients) {
    auto x = T2::from_floats({{1, 2}, {3, 4}}).require_grad();
    auto y = (x.detach() * x).sum();  // only the second factor carries a gradient
    auto grads = y.backward();
    EXPECT_TRUE(close_to(*x.grad(grads), x.to_data()));
    EXPECT_FALSE(x.detach().is_require_grad());
    EXPECT_TRUE(x.is_require_grad());
}

TEST(AutodiffGraph, UntrackedTensorsHaveNoGradient) {
    auto x = T2::from_floats({{1, 2}}).require_grad();
    auto c = T2::from_floats({{5, 7}});
    EXPECT_FALSE(c.is_require_grad());
    EXPECT_FALSE((c * 2.0).is_require_grad());
    EXPECT_TRUE((c * x).is_require_grad());
    auto grads = (x * c).sum().backward();
    EXPECT_FALSE(c.grad(grads).has_value());
    EXPECT_TRUE(close_to(*x.grad(grads), c.to_data()));
    // Intermediate results keep no gradient once backward returns.
    auto x2 = T2::from_floats({{1, 2}}).require_grad();
    auto mid = x2 * 2.0;
    auto g2 = (mid * mid).sum().backward();
    EXPECT_FALSE(mid.grad(g2).has_value());
    EXPECT_EQ(g2.size(), 1u);
    // A graph with no tracked leaf gives empty gradients.
    EXPECT_TRUE((c * 3.0).sum().backward().empty());
}

TEST(AutodiffGraph, GradRemoveAndReplace) {
    auto x = T2::from_floats({{1, 2}}).require_grad();
    auto grads = (x * x).sum().backward();
    auto g = x.grad_remove(grads);
    ASSERT_TRUE(g.has_value());
    EXPECT_TRUE(close_to(*g, TensorData::from_nested<double, 2>({{2, 4}})));
    EXPECT_FALSE(x.grad(grads).has_value());
    EXPECT_FALSE(x.grad_remove(grads).has_value());
    x.grad_replace(grads, Inner2::from_floats({{9, 9}}));
    EXPECT_TRUE(close_to(*x.grad(grads), TensorData::from_nested<double, 2>({{9, 9}})));
    EXPECT_BURN_ERROR(x.grad_replace(grads, Inner2::from_floats({{1, 2, 3}})), "grad_replace");
}

TEST(AutodiffGraph, InnerBuildsNoGraph) {
    auto x = T2::from_floats({{1, 2}, {3, 4}}).require_grad();
    const auto before = autodiff::live_nodes();
    Inner2 v = x.inner() * 3.0 + 1.0;  // validation-style computation on the inner backend
    EXPECT_EQ(autodiff::live_nodes(), before);
    auto back = T2::from_inner(v);
    EXPECT_FALSE(back.is_require_grad());
    EXPECT_TRUE(close_to(back, TensorData::from_nested<double, 2>({{4, 7}, {10, 13}})));
    auto i = Tensor<ADF, 1, Int>::from_ints({1, 2}).inner();
    static_assert(std::same_as<decltype(i), Tensor<TestFloatBackend, 1, Int>>);
}

TEST(AutodiffGraph, NonScalarBackwardUsesOnes) {
    auto x = T2::from_floats({{1, 2}, {3, 4}}).require_grad();
    auto grads = (x * x).backward();  // as y.backward(torch.ones_like(y))
    EXPECT_TRUE(close_to(*x.grad(grads), TensorData::from_nested<double, 2>({{2, 4}, {6, 8}})));
}

TEST(AutodiffGraph, TiesOfWholeTensorMaxShareTheGradient) {
    // As torch.max(x) / torch.min(x); max_dim instead gives it to the indexed element.
    auto x = T2::from_floats({{1, 5, 5}, {7, 2, 7}}).require_grad();
    auto gmax = x.max().backward();
    EXPECT_TRUE(
        close_to(*x.grad(gmax), TensorData::from_nested<double, 2>({{0, 0, 0}, {0.5, 0, 0.5}})));
    EXPECT_FLOAT_EQ(x.max().into_scalar(), 7.0f);
    auto y = T2::from_floats({{1, 5, 1}, {7, 1, 7}}).require_grad();
    auto gmin = (y.min() * 3.0).backward();
    EXPECT_TRUE(
        close_to(*y.grad(gmin), TensorData::from_nested<double, 2>({{1, 0, 1}, {0, 1, 0}})));
    auto gdim = y.max_dim(1).sum().backward();
    EXPECT_TRUE(
        close_to(*y.grad(gdim), TensorData::from_nested<double, 2>({{0, 1, 0}, {1, 0, 0}})));
}

TEST(AutodiffGraph, RequireGradRules) {
    auto x = T2::from_floats({{1, 2}}).require_grad();
    EXPECT_TRUE(x.require_grad().is_require_grad());  // idempotent on a leaf
    auto y = x * 2.0;
    EXPECT_BURN_ERROR(y.require_grad(), "only a leaf");
    EXPECT_FALSE(y.set_require_grad(false).is_require_grad());
    auto leaf = y.detach().require_grad();
    auto grads = (leaf * leaf).sum().backward();
    EXPECT_TRUE(close_to(*leaf.grad(grads), TensorData::from_nested<double, 2>({{4, 8}})));
    EXPECT_FALSE(x.grad(grads).has_value());
}

TEST(AutodiffGraph, NoOpsWithoutAutodiff) {
    auto x = Tensor<TestFloatBackend, 2>::from_floats({{1, 2}});
    EXPECT_FALSE(x.require_grad().is_require_grad());
    EXPECT_TRUE(close_to(x.detach(), x.to_data()));
    EXPECT_TRUE(close_to(x.set_require_grad(true), x.to_data()));
}

TEST(AutodiffGraph, SecondBackwardThroughFreedGraphThrows) {
    auto x = T2::from_floats({{1, 2}}).require_grad();
    auto y = (x * x).sum();
    auto grads = y.backward();
    EXPECT_TRUE(x.grad(grads).has_value());
    EXPECT_BURN_ERROR(y.backward(), "already freed");
    auto z = x * 3.0;  // a new graph from the same leaf works
    EXPECT_TRUE(
        close_to(*x.grad(z.sum().backward()), TensorData::from_nested<double, 2>({{3, 3}})));
}

TEST(AutodiffGraph, GraphFreedByBackwardAndByDropping) {
    const auto base = autodiff::live_nodes();
    auto x = T2::random({8, 8}).require_grad();
    {
        auto y = ((x.matmul(x) + 1.0).tanh() * x).sum();
        EXPECT_GT(autodiff::live_nodes(), base + 3);
        auto grads = y.backward();
        // Only the leaf and the root (still held by y) are left.
        EXPECT_EQ(autodiff::live_nodes(), base + 2);
    }
    {
        // Dropped without backward (Burn issue #4339): the graph goes with the tensors.
        auto y = ((x.matmul(x) + 1.0).tanh() * x).sum();
        EXPECT_GT(autodiff::live_nodes(), base + 3);
    }
    EXPECT_EQ(autodiff::live_nodes(), base + 1);
}

TEST(AutodiffGraph, LongChainDropsWithoutRecursion) {
    auto x = T1::from_floats({1.0}).require_grad();
    const auto base = autodiff::live_nodes();
    {
        auto y = x;
        for (int i = 0; i < 200000; ++i) y = y + 0.0;
        EXPECT_EQ(autodiff::live_nodes(), base + 200000);
    }
    EXPECT_EQ(autodiff::live_nodes(), base);
}

// ------------------------------------------------------------------ training loops
/// A 2-layer MLP trained with plain SGD on a fixed regression problem; returns the losses.
struct Mlp {
    T2 w1, b1, w2, b2;
    explicit Mlp(std::uint64_t seed)
        : w1(uniform<2, ADF>({16, 32}, -0.3, 0.3, seed).require_grad()),
          b1(uniform<2, ADF>({1, 32}, -0.1, 0.1, seed + 1).require_grad()),
          w2(uniform<2, ADF>({32, 4}, -0.3, 0.3, seed + 2).require_grad()),
          b2(uniform<2, ADF>({1, 4}, -0.1, 0.1, seed + 3).require_grad()) {}
    T2 forward(const T2& x) const { return activation::relu(x.matmul(w1) + b1).matmul(w2) + b2; }
    static T2 sgd(const T2& p, const autodiff::Gradients<TestFloatBackend>& g, double lr) {
        return T2::from_inner(p.inner() - *p.grad(g) * lr).require_grad();
    }
    std::vector<float> train(int steps, double lr = 0.05) {
        const T2 x = uniform<2, ADF>({64, 16}, -1, 1, 1234);
        const T2 target = uniform<2, ADF>({64, 4}, -1, 1, 4321);
        std::vector<float> losses;
        for (int i = 0; i < steps; ++i) {
            auto diff = forward(x) - target;
            auto loss = (diff * diff).mean();
            losses.push_back(loss.inner().into_scalar());
            auto grads = loss.backward();
            w1 = sgd(w1, grads, lr), b1 = sgd(b1, grads, lr);
            w2 = sgd(w2, grads, lr), b2 = sgd(b2, grads, lr);
        }
        return losses;
    }
};

TEST(AutodiffGraph, TwoThreadsTrainIndependently) {
    const auto seq_a = Mlp(1).train(40);
    const auto seq_b = Mlp(100).train(40);
    EXPECT_LT(seq_a.back(), seq_a.front());
    std::vector<float> par_a, par_b;
    std::thread ta([&] { par_a = Mlp(1).train(40); });
    std::thread tb([&] { par_b = Mlp(100).train(40); });
    ta.join();
    tb.join();
    EXPECT_EQ(par_a, seq_a);
    EXPECT_EQ(par_b, seq_b);
}

// The memory tests read the host memory pool's statistics (cpu::pool_stats): they run where the
// backend under test keeps its tensors in host memory; the checkpointing ones run in f64.
/// AddressSanitizer keeps freed blocks in a quarantine (256 MiB by default), so resident memory
/// grows under it whatever the program frees: the resident-memory bound only applies without it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kResidentMemoryMeaningful = false;
#else
constexpr bool kResidentMemoryMeaningful = true;
#endif

std::size_t resident_bytes() {
    std::ifstream f("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    f >> pages >> resident;
    return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

TEST(AutodiffGraph, TenThousandStepsKeepMemoryFlat) {
    BURN_REQUIRE_CAPABILITY(host_memory, "the test reads the host memory pool's statistics");
    Mlp model(7);
    const T2 x = uniform<2, ADF>({64, 16});
    model.train(200);
    const auto live = cpu::pool_stats().live_bytes;
    const auto nodes = autodiff::live_nodes();
    const auto rss = resident_bytes();
    model.train(10000);
    EXPECT_EQ(cpu::pool_stats().live_bytes, live);
    EXPECT_EQ(autodiff::live_nodes(), nodes);
    if (kResidentMemoryMeaningful)
        EXPECT_LT(resident_bytes(), rss + (std::size_t{16} << 20)) << "resident memory grew";
    // Forward passes whose graphs are never backpropagated (Burn issue #4339).
    for (int i = 0; i < 10000; ++i) {
        auto y = model.forward(x).sum();
        (void)y;
    }
    EXPECT_EQ(cpu::pool_stats().live_bytes, live);
    EXPECT_EQ(autodiff::live_nodes(), nodes);
    if (kResidentMemoryMeaningful)
        EXPECT_LT(resident_bytes(), rss + (std::size_t{16} << 20)) << "resident memory grew";
}

// ------------------------------------------------------------------ checkpointing
template <class B>
struct DeepChain {
    std::vector<Tensor<B, 2>> weights;
    Tensor<B, 2> x = uniform<2, B>({128, 256}, -1, 1, 5);
    DeepChain() {
        for (std::uint64_t l = 0; l < 6; ++l)
            weights.push_back(uniform<2, B>({256, 256}, -0.1, 0.1, 10 + l).require_grad());
    }
    /// Forward + backward; returns the weights' gradients and the peak of live tensor memory.
    std::pair<std::vector<TensorData>, std::size_t> run() {
        cpu::pool_reset_peak();
        const auto start = cpu::pool_stats().live_bytes;
        std::vector<TensorData> out;
        {
            auto h = x;
            for (const auto& w : weights) {
                h = h.matmul(w);  // compute-bound: kept
                h = (h.tanh() * 1.5 + 0.1).sin() *
                    activation::sigmoid(h);  // memory-bound: recomputed
            }
            auto grads = h.sum().backward();
            for (const auto& w : weights) out.push_back(w.grad(grads)->to_data());
        }
        return {out, cpu::pool_stats().peak_live_bytes - start};
    }
};

TEST(AutodiffCheckpointing, BalancedGivesSameGradientsWithLowerPeakMemory) {
    BURN_REQUIRE_CAPABILITY(host_memory, "the test reads the host memory pool's statistics");
    BURN_REQUIRE_FLOAT64();
    using Plain = Autodiff<F64Backend>;
    using Balanced = Autodiff<F64Backend, BalancedCheckpointing>;
    auto [g_plain, peak_plain] = DeepChain<Plain>().run();
    auto [g_bal, peak_bal] = DeepChain<Balanced>().run();
    ASSERT_EQ(g_plain.size(), g_bal.size());
    for (std::size_t i = 0; i < g_plain.size(); ++i)
        g_bal[i].assert_approx_eq(g_plain[i], {1e-12, 1e-12});
    EXPECT_LT(peak_bal, peak_plain * 3 / 4)
        << "balanced " << peak_bal << " bytes, plain " << peak_plain;
}

TEST(AutodiffCheckpointing, BalancedMatchesNoCheckpointing) {
    BURN_REQUIRE_FLOAT64();
    using Balanced = Autodiff<F64Backend, BalancedCheckpointing>;
    auto x = uniform<2, Balanced>({3, 4}).require_grad();
    auto w = uniform<2, Balanced>({4, 2}, -1, 1, 3).require_grad();
    auto y = ((x.exp() * 0.5).sin().matmul(w).tanh() + x.sum_dim(1)).sum();
    auto grads = y.backward();
    // The same expression without checkpointing.
    auto x2 = Tensor<AD, 2>::from_data(x.to_data()).require_grad();
    auto w2 = Tensor<AD, 2>::from_data(w.to_data()).require_grad();
    auto g2 = ((x2.exp() * 0.5).sin().matmul(w2).tanh() + x2.sum_dim(1)).sum().backward();
    x.grad(grads)->to_data().assert_approx_eq(x2.grad(g2)->to_data(), {1e-12, 1e-12});
    w.grad(grads)->to_data().assert_approx_eq(w2.grad(g2)->to_data(), {1e-12, 1e-12});
}

}  // namespace
}  // namespace burn::testing::autodiff_graph

// SPDX-License-Identifier: MIT OR Apache-2.0
// CPU-backend specifics (not typed; Cpu<float> only): ops reuse a uniquely owned input buffer,
// never overwrite a shared one, the buffer pool serves a steady-state loop without new system
// allocations, views (transpose, slice, reshape, expand, unsqueeze, flip, ...) share memory, and
// random numbers do not depend on the number of threads and repeat after re-seeding.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_cpu_backend {

namespace {

using B = burn::Cpu<float>;
using burn::Distribution;
using burn::Int;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;

using F1 = Tensor<B, 1>;
using F2 = Tensor<B, 2>;
using I1 = Tensor<B, 1, Int>;

template <class T>
const void* data_of(const T& t) {
    return t.primitive().buffer->data();
}
template <class T>
const burn::cpu::Buffer* buffer_of(const T& t) {
    return t.primitive().buffer.get();
}

TEST(CpuBackend, MovedUnaryInputIsReusedInPlace) {
    auto x = F1::ones({std::size_t{1} << 20});
    const void* p = data_of(x);
    auto y = std::move(x).exp();
    EXPECT_EQ(data_of(y), p);
    EXPECT_TRUE(close_to(y.slice({Slice(0, 3)}), TensorData::full<double>({3}, 2.718281828459045)));
}

TEST(CpuBackend, EveryElementwiseOpReusesAUniqueInput) {
    // tensor.hpp: "Ops that can write their result into their input's memory do so when the
    // input is the buffer's only owner".
    const std::size_t n = std::size_t{1} << 16;
    struct Op {
        const char* name;
        F1 (*fn)(F1);
    };
    const Op ops[] = {
        {"exp", [](F1 x) { return std::move(x).exp(); }},
        {"log", [](F1 x) { return std::move(x).log(); }},
        {"sqrt", [](F1 x) { return std::move(x).sqrt(); }},
        {"tanh", [](F1 x) { return std::move(x).tanh(); }},
        {"round", [](F1 x) { return std::move(x).round(); }},
        {"neg", [](F1 x) { return std::move(x).neg(); }},
        {"abs", [](F1 x) { return std::move(x).abs(); }},
        {"sign", [](F1 x) { return std::move(x).sign(); }},
        {"add_scalar", [](F1 x) { return std::move(x).add_scalar(1.0); }},
        {"mul_scalar", [](F1 x) { return std::move(x).mul_scalar(3.0); }},
        {"div_scalar", [](F1 x) { return std::move(x).div_scalar(3.0); }},
        {"rem_scalar", [](F1 x) { return std::move(x).rem_scalar(3.0); }},
        {"clamp", [](F1 x) { return std::move(x).clamp(0.0, 1.0); }},
        {"operator+ scalar", [](F1 x) { return std::move(x) + 1.0; }},
        {"add", [](F1 x) { return std::move(x).add(F1::ones({std::size_t{1} << 16})); }},
        {"mul", [](F1 x) { return std::move(x) * F1::full({std::size_t{1} << 16}, 2.0); }},
        {"sub broadcast", [](F1 x) { return std::move(x) - F1::ones({1}); }},
    };
    for (const auto& op : ops) {
        auto x = F1::full({n}, 2.0);
        const void* p = data_of(x);
        auto y = op.fn(std::move(x));
        EXPECT_EQ(data_of(y), p) << op.name << " did not reuse its moved input";
    }
    // Int too.
    auto i = I1::ones({n});
    const void* p = data_of(i);
    auto j = std::move(i) * 3;
    EXPECT_EQ(data_of(j), p) << "int mul_scalar";
}

TEST(CpuBackend, SharedInputIsNotOverwritten) {
    auto x = F1::ones({std::size_t{1} << 20});
    auto y = x.exp();  // x is an lvalue: a new buffer
    EXPECT_NE(data_of(y), data_of(x));
    EXPECT_EQ(x.sum().into_scalar(), static_cast<float>(1 << 20));
    // A moved handle whose buffer is shared with another one must not write into it either.
    auto alias = x;
    auto z = std::move(x).neg();
    EXPECT_NE(data_of(z), data_of(alias));
    EXPECT_EQ(alias.sum().into_scalar(), static_cast<float>(1 << 20));
    // Nor when the buffer is shared through a view.
    auto base = F2::ones({64, 64});
    auto view = base.transpose();
    auto w = std::move(view) + 1.0;
    EXPECT_NE(data_of(w), data_of(base));
    EXPECT_EQ(base.sum().into_scalar(), 4096.0f);
    // Binary op: the operand on the right is shared and stays.
    auto a = F1::ones({1024});
    auto b = F1::full({1024}, 5.0);
    auto c = std::move(a) + b;
    EXPECT_EQ(b.sum().into_scalar(), 5.0f * 1024);
    EXPECT_EQ(c.sum().into_scalar(), 6.0f * 1024);
}

TEST(CpuBackend, InPlaceOnAUniqueViewIsStillCorrect) {
    // A uniquely owned but non-contiguous view (transposed, expanded, step-sliced, flipped):
    // writing in place must not scramble the result.
    auto t = F2::from_floats({{1, 2, 3}, {4, 5, 6}}).transpose();  // [[1, 4], [2, 5], [3, 6]]
    EXPECT_TRUE(
        close_to(std::move(t) + 1.0, TensorData(std::vector<double>{2, 5, 3, 6, 4, 7}, {3, 2})));
    auto e = F2::from_floats({{1, 2, 3}}).expand({2, 3});
    EXPECT_TRUE(close_to(std::move(e).mul_scalar(2.0),
                         TensorData(std::vector<double>{2, 4, 6, 2, 4, 6}, {2, 3})));
    auto s = F1::from_floats({0, 1, 2, 3, 4, 5}).slice({Slice(1, 6, 2)});  // [1, 3, 5]
    EXPECT_TRUE(close_to(std::move(s).neg(), TensorData::from<double>({-1, -3, -5})));
    auto f = F1::from_floats({1, 2, 3}).flip({0});
    EXPECT_TRUE(
        close_to(std::move(f) - F1::from_floats({0, 1, 2}), TensorData::from<double>({3, 1, -1})));
}

TEST(CpuBackend, ConvolutionWeightsArePreparedOnceUntilWrittenInPlace) {
    // 3x3 stride-1 convolutions keep their weights' Winograd transform: from the second call
    // with the same unchanged weight tensor, until an op writes into its buffer or it dies.
    using F4 = Tensor<B, 4>;
    const burn::ConvOptions<2> opt{{1, 1}, {1, 1}, {1, 1}, 1};
    const auto x = F4::random({1, 32, 7, 7}, Distribution::Uniform(-1, 1));
    auto conv = [&](const F4& w) {
        return burn::module::conv2d(x, w, std::nullopt, opt).to_data();
    };
    // The result computed from scratch for weight values `w` (a tensor with a new buffer).
    auto fresh = [&](const F4& w) { return conv(F4::from_data(w.to_data())); };
    burn::cpu::release_prepared();
    const auto kept0 = burn::cpu::prepared_stats().kept;
    {
        auto w = F4::random({32, 32, 3, 3}, Distribution::Uniform(-1, 1));
        const auto y1 = conv(w);
        EXPECT_EQ(burn::cpu::prepared_stats().kept, kept0) << "kept after one call";
        const auto y2 = conv(w);
        EXPECT_EQ(burn::cpu::prepared_stats().kept, kept0 + 1);
        EXPECT_GT(burn::cpu::prepared_stats().bytes, 32u * 32u * 9u * sizeof(float));
        const auto y3 = conv(w);
        EXPECT_EQ(y1, y2);
        EXPECT_EQ(y2, y3);

        // Written in place (w is its buffer's only owner): the kept transform is not used.
        const void* p = data_of(w);
        w = std::move(w).mul_scalar(2.0);
        ASSERT_EQ(data_of(w), p) << "the test needs an in-place op";
        const auto y4 = conv(w);
        EXPECT_EQ(y4, fresh(w));
        EXPECT_TRUE(close_to(F4::from_data(y4), F4::from_data(y1).mul_scalar(2.0).to_data()));
        EXPECT_EQ(conv(w), y4);  // kept again, and used
        w = std::move(w).slice_assign({Slice(0, 1)}, F4::zeros({1, 32, 3, 3}));
        ASSERT_EQ(data_of(w), p);
        EXPECT_EQ(conv(w), fresh(w));
        EXPECT_EQ(conv(w), fresh(w));

        // A training-like loop (weights updated in place between calls) keeps nothing.
        burn::cpu::release_prepared();
        for (int step = 0; step < 4; ++step) {
            EXPECT_EQ(conv(w), fresh(w));
            w = std::move(w).sub_scalar(0.01);
        }
        EXPECT_EQ(burn::cpu::prepared_stats().kept, kept0);
        conv(w);
        conv(w);
        EXPECT_EQ(burn::cpu::prepared_stats().kept, kept0 + 1);
    }
    // The weight is gone: so is what was kept for it.
    EXPECT_EQ(burn::cpu::prepared_stats().kept, kept0);
    EXPECT_EQ(burn::cpu::prepared_stats().bytes, 0u);
}

TEST(CpuBackend, PoolServesASteadyStateLoop) {
    auto x = F2::random({128, 256});
    auto w = F2::random({256, 64});
    std::size_t after_warmup = 0;
    const auto reused_before = burn::cpu::pool_stats().reused;
    for (int it = 0; it < 100; ++it) {
        auto y = ((x * 2.0 + 1.0).exp().matmul(w) - 0.5).clamp_min(0.0);
        auto s = y.sum_dim(1).sort(0);
        auto k = s.argmax(0);
        (void)k;
        if (it == 4) after_warmup = burn::cpu::pool_stats().system_allocations;
    }
    const auto stats = burn::cpu::pool_stats();
    EXPECT_EQ(stats.system_allocations, after_warmup)
        << "the pool kept asking the system for memory in a steady-state loop";
    EXPECT_GT(stats.reused, reused_before + 100);
}

TEST(CpuBackend, ViewsShareMemory) {
    auto x = F2::from_floats({{0, 1, 2, 3, 4, 5},
                              {6, 7, 8, 9, 10, 11},
                              {12, 13, 14, 15, 16, 17},
                              {18, 19, 20, 21, 22, 23}});  // [4, 6]
    const auto* buf = buffer_of(x);
    const auto count = [] {
        const auto s = burn::cpu::pool_stats();
        return s.system_allocations + s.reused;
    };
    const auto before = count();
    auto t = x.transpose();
    auto s1 = x.slice({Slice(1, 3)});
    auto s2 = x.slice({Slice::all(), Slice(0, 6, 2)});
    auto r = x.template reshape<2>({6, 4});
    auto r1 = x.template reshape<1>({-1});
    auto r3 = x.template reshape<3>({2, 2, 6});
    auto u = x.template unsqueeze<3>();
    auto ud = x.template unsqueeze_dim<3>(1);
    auto f = x.flip({0, 1});
    auto sw = x.swap_dims(0, 1);
    auto pm = x.permute({1, 0});
    auto n = x.narrow(1, 2, 3);
    auto sq = x.slice({Slice(0, 1)}).template squeeze<1>(0);
    auto ex = x.slice({Slice(0, 1)}).expand({5, 6});
    auto ex3 = x.expand({3, 4, 6});
    EXPECT_EQ(count(), before) << "a view allocated memory";
    for (const auto* b :
         {buffer_of(t), buffer_of(s1), buffer_of(s2), buffer_of(r), buffer_of(r1), buffer_of(r3),
          buffer_of(u), buffer_of(ud), buffer_of(f), buffer_of(sw), buffer_of(pm), buffer_of(n),
          buffer_of(sq), buffer_of(ex), buffer_of(ex3)})
        EXPECT_EQ(b, buf);
    // The views see the right values.
    EXPECT_FALSE(t.primitive().is_contiguous());
    EXPECT_EQ(t.primitive().strides[0], 1);
    EXPECT_EQ(t.primitive().strides[1], 6);
    EXPECT_EQ(ex.primitive().strides[0], 0);
    EXPECT_TRUE(
        close_to(s2.slice({Slice(1, 2)}), TensorData(std::vector<double>{6, 8, 10}, {1, 3})));
    EXPECT_TRUE(close_to(f.slice({Slice(0, 1), Slice(0, 2)}),
                         TensorData(std::vector<double>{23, 22}, {1, 2})));
    EXPECT_TRUE(
        close_to(n.slice({Slice(3, 4)}), TensorData(std::vector<double>{20, 21, 22}, {1, 3})));
    // Views of views stay views; data is shared (a later op on the base sees the same values).
    auto tt = t.transpose().slice({Slice(2, 4)}).template reshape<1>({-1});
    EXPECT_EQ(buffer_of(tt), buf);
    EXPECT_TRUE(close_to(tt.slice({Slice(0, 2)}), TensorData::from<double>({12, 13})));
}

TensorData draw(std::uint64_t seed, const Distribution& d, std::size_t n) {
    B::seed(seed);
    return F1::random({n}, d).to_data();
}

/// burn::set_num_threads(n) for a scope (the kernels' block sizes follow it, too).
struct ThreadCount {
    int saved = burn::num_threads();
    explicit ThreadCount(int n) { burn::set_num_threads(n); }
    ~ThreadCount() { burn::set_num_threads(saved); }
};

TEST(CpuBackend, RandomIsIndependentOfThreadCountAndRepeatsAfterReseeding) {
    const std::size_t n = std::size_t{1} << 20;  // far above the parallel grain
    const Distribution dists[] = {Distribution::Default(), Distribution::Uniform(-3.0, 5.0),
                                  Distribution::Normal(1.0, 2.0), Distribution::Bernoulli(0.3)};
    for (const auto& d : dists) {
        SCOPED_TRACE(static_cast<int>(d.kind));
        const TensorData free_threads = draw(42, d, n);
        TensorData one, two;
        {
            ThreadCount threads(1);
            one = draw(42, d, n);
        }
        {
            ThreadCount threads(2);
            two = draw(42, d, n);
        }
        EXPECT_TRUE(one == two) << "1 vs 2 threads";
        EXPECT_TRUE(one == free_threads) << "1 thread vs default";
        EXPECT_TRUE(draw(42, d, n) == free_threads) << "re-seeding";
        EXPECT_FALSE(draw(43, d, n) == free_threads) << "another seed gives the same numbers";
    }
    // Consecutive draws differ; the sequence of draws repeats after re-seeding.
    B::seed(7);
    const auto a1 = F1::random({1000}).to_data();
    const auto a2 = F1::random({1000}).to_data();
    B::seed(7);
    EXPECT_TRUE(F1::random({1000}).to_data() == a1);
    EXPECT_TRUE(F1::random({1000}).to_data() == a2);
    EXPECT_FALSE(a1 == a2);
    // Int tensors as well.
    B::seed(9);
    const auto i1 = I1::random({n}, Distribution::Uniform(0, 100)).to_data();
    {
        ThreadCount threads(1);
        B::seed(9);
        EXPECT_TRUE(I1::random({n}, Distribution::Uniform(0, 100)).to_data() == i1);
    }
}

}  // namespace

}  // namespace burn_test_cpu_backend

// SPDX-License-Identifier: MIT OR Apache-2.0
// Fusion<Cpu<float>>: that the fusion happens (programs and ops counted by fusion::stats()), what
// is computed and written (only what is still referenced), and that the results are those of the
// unfused backend (the fused programs run the same functors: bit for bit, but for the last bits of
// erf and tanh, whose polynomials the compiler may contract differently): reads in the middle of
// a chain, views of pending tensors, broadcasting, long chains, dropped tensors, threads, and
// gradients through Autodiff<Fusion<Cpu<float>>>.
#include <gtest/gtest.h>

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <burn/fusion/fusion.hpp>
#include <cmath>
#include <thread>
#include <vector>

using namespace burn;

namespace {

using FB = Fusion<Cpu<float>>;
using CB = Cpu<float>;

TensorData sample(const Shape& shape, std::uint64_t seed, float lo = -2.0f, float hi = 2.0f) {
    std::vector<float> v(shape.num_elements());
    std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto& x : v) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const double u = static_cast<double>(s >> 11) / 9007199254740992.0;
        x = static_cast<float>(lo + (hi - lo) * u);
    }
    return TensorData(std::move(v), shape);
}

template <std::size_t D>
void expect_same(const Tensor<FB, D>& f, const Tensor<CB, D>& c) {
    const auto a = f.to_data(), b = c.to_data();
    ASSERT_EQ(a.shape, b.shape);
    const auto x = a.template as_span<float>(), y = b.template as_span<float>();
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i]) && std::isnan(y[i])) continue;
        ASSERT_EQ(x[i], y[i]) << "element " << i;
    }
}

/// Within a few ulp: the fused and unfused code paths may contract a multiply-add of a
/// transcendental function's polynomial (erf, tanh) differently.
template <std::size_t D>
void expect_close(const Tensor<FB, D>& f, const Tensor<CB, D>& c) {
    const auto a = f.to_data(), b = c.to_data();
    ASSERT_EQ(a.shape, b.shape);
    const auto x = a.template as_span<float>(), y = b.template as_span<float>();
    for (std::size_t i = 0; i < x.size(); ++i)
        ASSERT_NEAR(x[i], y[i], 1e-6 + 1e-6 * std::abs(y[i])) << "element " << i;
}

/// Burn's README GELU, written with tensor ops.
template <class B, std::size_t D>
Tensor<B, D> custom_gelu(const Tensor<B, D>& x) {
    return x * ((x / std::sqrt(2.0)).erf() + 1.0) / 2.0;
}

/// Ten element-wise ops of one shape.
template <class B>
Tensor<B, 2> ten_ops(const Tensor<B, 2>& x, const Tensor<B, 2>& y) {
    auto t = x * 2.0 + y;         // 2
    t = t.exp() - 1.0;            // 4
    t = t.clamp(-3.0, 3.0) * y;   // 6
    t = activation::relu(t) + x;  // 8
    return t.tanh().abs();        // 10
}

}  // namespace

TEST(Fusion, TenElementwiseOpsRunAsOneProgram) {
    const auto xd = sample(Shape{64, 33}, 1), yd = sample(Shape{64, 33}, 2);
    const auto x = Tensor<FB, 2>::from_data(xd), y = Tensor<FB, 2>::from_data(yd);
    fusion::reset_stats();
    const auto z = ten_ops(x, y);
    EXPECT_EQ(fusion::stats().programs, 0u) << "recorded, not run, before a read";
    const auto zc = ten_ops(Tensor<CB, 2>::from_data(xd), Tensor<CB, 2>::from_data(yd));
    expect_close(z, zc);
    const auto s = fusion::stats();
    EXPECT_EQ(s.programs, 1u);
    EXPECT_EQ(s.fused_ops, 10u);
    EXPECT_EQ(s.outputs, 1u) << "only the result is written";
}

TEST(Fusion, CustomGeluIsOneProgram) {
    const auto xd = sample(Shape{1000, 37}, 3, -5.0f, 5.0f);
    fusion::reset_stats();
    const auto y = custom_gelu(Tensor<FB, 2>::from_data(xd));
    expect_close(y, custom_gelu(Tensor<CB, 2>::from_data(xd)));
    EXPECT_EQ(fusion::stats().programs, 1u);
    EXPECT_EQ(fusion::stats().fused_ops, 5u);
}

TEST(Fusion, TensorsStillReferencedAreWrittenOnce) {
    const auto xd = sample(Shape{3, 500}, 4);
    const auto x = Tensor<FB, 2>::from_data(xd);
    const auto xc = Tensor<CB, 2>::from_data(xd);
    fusion::reset_stats();
    const auto a = x * 3.0 - 1.0;  // kept: written by the program that computes b
    const auto b = (a.sin() + a).sqrt();
    expect_same(b, (xc * 3.0 - 1.0).sin().add(xc * 3.0 - 1.0).sqrt());
    EXPECT_EQ(fusion::stats().programs, 1u);
    EXPECT_EQ(fusion::stats().outputs, 2u);
    expect_same(a, xc * 3.0 - 1.0);
    EXPECT_EQ(fusion::stats().programs, 1u) << "a was computed with b";
}

TEST(Fusion, DroppedTensorsAreNeverComputed) {
    const auto x = Tensor<FB, 2>::from_data(sample(Shape{8, 8}, 5));
    fusion::reset_stats();
    { const auto unused = (x.exp() * 2.0).log(); }
    const auto kept = x + 1.0;
    (void)kept.to_data();
    EXPECT_EQ(fusion::stats().programs, 1u);
    EXPECT_EQ(fusion::stats().fused_ops, 1u);
}

TEST(Fusion, ReadsInTheMiddleOfAChain) {
    const auto xd = sample(Shape{17, 19}, 6);
    auto f = Tensor<FB, 2>::from_data(xd);
    auto c = Tensor<CB, 2>::from_data(xd);
    for (int step = 0; step < 5; ++step) {
        f = (f * 0.5 + 0.25).cos();
        c = (c * 0.5 + 0.25).cos();
        expect_same(f, c);  // a read; the chain goes on from the computed tensor
    }
}

TEST(Fusion, ViewsAndBroadcastsOfPendingTensors) {
    const auto ad = sample(Shape{6, 4}, 7), bd = sample(Shape{4, 6}, 8);
    const auto rd = sample(Shape{1, 6}, 9), cd = sample(Shape{4, 1}, 10);
    const auto af = Tensor<FB, 2>::from_data(ad), bf = Tensor<FB, 2>::from_data(bd);
    const auto rf = Tensor<FB, 2>::from_data(rd), cf = Tensor<FB, 2>::from_data(cd);
    const auto ac = Tensor<CB, 2>::from_data(ad), bc = Tensor<CB, 2>::from_data(bd);
    const auto rc = Tensor<CB, 2>::from_data(rd), cc = Tensor<CB, 2>::from_data(cd);
    // A transposed pending tensor, a pending row and column broadcast into a [4, 6] chain.
    const auto f = af.exp().transpose() * bf + (rf * 2.0).sin() - cf.abs();
    const auto c = ac.exp().transpose() * bc + (rc * 2.0).sin() - cc.abs();
    expect_same(f, c);
    // Slices and flips of a pending tensor, and a reshape that keeps the data in place.
    const auto p = (af + 1.0).sqrt();
    const auto pc = (ac + 1.0).sqrt();
    expect_same(p.slice({{1, 5}, {0, 4}}).flip({0}) * 2.0,
                pc.slice({{1, 5}, {0, 4}}).flip({0}) * 2.0);
    expect_same((p.template reshape<2>(Shape{4, 6}) - 1.0),
                (pc.template reshape<2>(Shape{4, 6}) - 1.0));
}

TEST(Fusion, ComparisonsAndMasksFuse) {
    const auto xd = sample(Shape{33, 65}, 11);
    const auto xf = Tensor<FB, 2>::from_data(xd);
    const auto xc = Tensor<CB, 2>::from_data(xd);
    fusion::reset_stats();
    const auto f =
        (xf * 2.0).mask_where(xf.greater_elem(0.5), xf.exp()).mask_fill(xf.lower_elem(-1.5), 7.0);
    const auto c =
        (xc * 2.0).mask_where(xc.greater_elem(0.5), xc.exp()).mask_fill(xc.lower_elem(-1.5), 7.0);
    expect_same(f, c);
    EXPECT_EQ(fusion::stats().programs, 1u);
}

TEST(Fusion, LongChainsAreSplitAndStayExact) {
    const auto xd = sample(Shape{300}, 12);
    auto f = Tensor<FB, 1>::from_data(xd);
    auto c = Tensor<CB, 1>::from_data(xd);
    fusion::reset_stats();
    for (int i = 0; i < 1000; ++i) {
        f = f * 1.0001 + 0.001;
        c = c * 1.0001 + 0.001;
    }
    expect_same(f, c);
    const auto s = fusion::stats();
    EXPECT_EQ(s.fused_ops, 2000u);
    EXPECT_GE(s.programs, 2000u / fusion::detail::max_program_ops);
    EXPECT_LE(s.programs, 2000u / fusion::detail::max_program_ops + 2);
}

TEST(Fusion, UnfusableOpsComputeTheirInputs) {
    const auto ad = sample(Shape{5, 7}, 13), bd = sample(Shape{7, 3}, 14);
    const auto af = Tensor<FB, 2>::from_data(ad), bf = Tensor<FB, 2>::from_data(bd);
    const auto ac = Tensor<CB, 2>::from_data(ad), bc = Tensor<CB, 2>::from_data(bd);
    const auto f = activation::softmax((af.exp() * 0.5).matmul(bf + 1.0), 1).sum_dim(0);
    const auto c = activation::softmax((ac.exp() * 0.5).matmul(bc + 1.0), 1).sum_dim(0);
    expect_same(f, c);
    // Int and bool tensors run unfused.
    const auto fi = (af.greater_elem(0.0).into_int() + 2).sum_dim(1);
    const auto ci = (ac.greater_elem(0.0).into_int() + 2).sum_dim(1);
    EXPECT_EQ(fi.to_data().as_span<std::int64_t>()[0], ci.to_data().as_span<std::int64_t>()[0]);
}

TEST(Fusion, ThreadsRecordAndComputeIndependently) {
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([t, &ok] {
            const auto xd = sample(Shape{64, 64}, 100 + t);
            auto f = Tensor<FB, 2>::from_data(xd);
            auto c = Tensor<CB, 2>::from_data(xd);
            for (int i = 0; i < 50; ++i) {
                f = custom_gelu(f) * 1.5 - 0.1;
                c = custom_gelu(c) * 1.5 - 0.1;
            }
            const auto a = f.to_data(), b = c.to_data();
            ok[t] = 1;
            for (std::size_t i = 0; i < 4096; ++i)
                if (std::abs(a.as_span<float>()[i] - b.as_span<float>()[i]) > 1e-4) ok[t] = 0;
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
}

TEST(Fusion, AutodiffGradientsMatchTheUnfusedBackend) {
    using AF = Autodiff<FB>;
    using AC = Autodiff<CB>;
    const auto xd = sample(Shape{16, 12}, 15), wd = sample(Shape{12, 8}, 16);
    const auto xf = Tensor<AF, 2>::from_data(xd).require_grad();
    const auto wf = Tensor<AF, 2>::from_data(wd).require_grad();
    const auto xc = Tensor<AC, 2>::from_data(xd).require_grad();
    const auto wc = Tensor<AC, 2>::from_data(wd).require_grad();
    const auto loss_f = (activation::gelu(xf.matmul(wf)) * 0.5 + activation::sigmoid(xf.sum_dim(1)))
                            .powf_scalar(2.0)
                            .mean();
    const auto loss_c = (activation::gelu(xc.matmul(wc)) * 0.5 + activation::sigmoid(xc.sum_dim(1)))
                            .powf_scalar(2.0)
                            .mean();
    const auto gf = loss_f.backward();
    const auto gc = loss_c.backward();
    const auto check = [](const TensorData& a, const TensorData& b) {
        ASSERT_EQ(a.shape, b.shape);
        for (std::size_t i = 0; i < a.num_elements(); ++i)
            ASSERT_NEAR(a.as_span<float>()[i], b.as_span<float>()[i], 1e-6) << i;
    };
    check(xf.grad(gf)->to_data(), xc.grad(gc)->to_data());
    check(wf.grad(gf)->to_data(), wc.grad(gc)->to_data());
}

TEST(Fusion, ProgramLogDescribesTheOps) {
    fusion::Program p;
    p.shape = Shape{2, 3};
    p.inputs = {DType::F32};
    p.instrs.push_back({.kind = fusion::OpKind::BinaryScalar,
                        .op = static_cast<std::uint8_t>(backend::BinaryOp::Mul),
                        .args = {0},
                        .scalar = backend::ScalarArg::of(2.0)});
    p.instrs.push_back({.kind = fusion::OpKind::Unary,
                        .op = static_cast<std::uint8_t>(backend::UnaryOp::Exp),
                        .args = {1}});
    p.outputs = {2};
    const auto s = p.to_string();
    EXPECT_NE(s.find("r1 = mul(r0, 2)"), std::string::npos) << s;
    EXPECT_NE(s.find("r2 = exp(r1)"), std::string::npos) << s;
    EXPECT_NE(s.find("outputs: r2"), std::string::npos) << s;
}
TEST(Fusion, ReshapedPendingTensorsKeepTheirOwnShape) {
    // GroupNorm's pattern: a pending [2, 3, 10] result seen as [2, 6, 5] (a reshape that keeps the
    // data in place) feeds a [2, 6, 5] chain: it is computed as its own program first, not fused
    // at the other shape.
    const auto xd = sample(Shape{2, 6, 5}, 21);
    const auto gd = sample(Shape{6}, 22), bd = sample(Shape{6}, 23);
    for (int variant = 0; variant < 3; ++variant) {
        const auto run = [&](auto tag) {
            using BB = decltype(tag);
            const auto x = Tensor<BB, 3>::from_data(xd);
            const auto grouped = x.template reshape<3>(std::array<std::int64_t, 3>{2, 3, -1});
            const auto centered = grouped - grouped.mean_dim(2);
            const auto var = (centered * centered).mean_dim(2);
            auto y = (centered / (var + 1e-5).sqrt()).template reshape<3>(Shape{2, 6, 5});
            if (variant >= 1)
                y = y * Tensor<BB, 1>::from_data(gd).template reshape<3>(Shape{1, 6, 1});
            if (variant >= 2)
                y = y + Tensor<BB, 1>::from_data(bd).template reshape<3>(Shape{1, 6, 1});
            return y.to_data();
        };
        const auto f = run(FB{});
        const auto c = run(CB{});
        const auto a = f.as_span<float>(), b = c.as_span<float>();
        for (std::size_t i = 0; i < a.size(); ++i)
            ASSERT_NEAR(a[i], b[i], 1e-5) << variant << " " << i;
    }
}

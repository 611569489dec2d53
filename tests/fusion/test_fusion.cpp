// SPDX-License-Identifier: MIT OR Apache-2.0
// Fusion<Cpu<float>> (burn_fusion_tests), Fusion<Cuda<>> against Cuda<> (burn_fusion_tests_cuda,
// built with BURN_TEST_CUDA: its programs are CUDA kernels generated and compiled by NVRTC; every
// test skips without a GPU) and Fusion<Vulkan<>> against Vulkan<> (burn_fusion_tests_vulkan, built
// with BURN_TEST_VULKAN: its programs are GLSL shaders generated and compiled by shaderc; run on
// lavapipe, every test skips without a Vulkan device): that the fusion happens (programs and ops
// counted by fusion::stats()), what is computed and written (only what is still referenced), and
// that the results are those of the unfused backend (the fused programs run the same functors: bit
// for bit, but for the last bits of erf and tanh, whose polynomials the compiler may contract
// differently): reads in the middle of a chain, views of pending tensors, broadcasting, long
// chains, dropped tensors, threads, and gradients through Autodiff<Fusion<Cpu<float>>>.
#include <gtest/gtest.h>

#ifdef BURN_TEST_CUDA
#include <burn/backend/cuda.hpp>
#elif defined(BURN_TEST_VULKAN)
#include <burn/backend/vulkan.hpp>
#else
#include <burn/backend/cpu.hpp>
#endif
#include <burn/burn.hpp>
#include <burn/fusion/codegen.hpp>
#include <burn/fusion/fusion.hpp>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>
#if defined(BURN_TEST_CUDA) || defined(BURN_TEST_VULKAN)
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#endif

using namespace burn;

namespace {

#ifdef BURN_TEST_CUDA
using FB = Fusion<Cuda<>>;
using CB = Cuda<>;

/// Skips every test without a usable GPU (CI), with CUDA's reason.
class RequireCuda : public ::testing::Environment {
public:
    void SetUp() override {
        if (cuda_device_count() == 0) GTEST_SKIP() << cuda_unavailable_reason();
    }
};
const auto* const kRequireCuda = ::testing::AddGlobalTestEnvironment(new RequireCuda);
#elif defined(BURN_TEST_VULKAN)
using FB = Fusion<Vulkan<>>;
using CB = Vulkan<>;

/// Skips every test without a Vulkan device (the ctest run sets lavapipe's ICD).
class RequireVulkan : public ::testing::Environment {
public:
    void SetUp() override {
        if (vulkan_devices().empty()) GTEST_SKIP() << "no Vulkan device";
    }
};
const auto* const kRequireVulkan = ::testing::AddGlobalTestEnvironment(new RequireVulkan);
#else
using FB = Fusion<Cpu<float>>;
using CB = Cpu<float>;
#endif
using IntElem = typename CB::IntElem;

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
    EXPECT_EQ(fi.to_data().as_span<IntElem>()[0], ci.to_data().as_span<IntElem>()[0]);
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

/// Whether Fusion<B> fuses reductions on this backend (its kernel set runs fused_reduce).
constexpr bool kFusesReductions = fusion::ReducingFusionKernelSet<typename CB::Kernels>;

template <std::size_t D>
void expect_near_rel(const Tensor<FB, D>& f, const Tensor<CB, D>& c, double rel) {
    const auto a = f.to_data(), b = c.to_data();
    ASSERT_EQ(a.shape, b.shape);
    const auto x = a.template as_span<float>(), y = b.template as_span<float>();
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i]) && std::isnan(y[i])) continue;
        ASSERT_NEAR(x[i], y[i], 1e-6 + rel * std::abs(y[i])) << "element " << i;
    }
}

TEST(Fusion, SoftmaxOfAPendingChainIsOneProgram) {
    // Attention-style: softmax(scores * scale + bias) along the last dim and along dim 0.
    const auto xd = sample(Shape{48, 300}, 21), bd = sample(Shape{1, 300}, 22);
    const auto x = Tensor<FB, 2>::from_data(xd), b = Tensor<FB, 2>::from_data(bd);
    const auto xc = Tensor<CB, 2>::from_data(xd), bc = Tensor<CB, 2>::from_data(bd);
    for (const std::int64_t dim : {-1, 0}) {
        for (const bool log : {false, true}) {
            fusion::reset_stats();
            const auto y = log ? activation::log_softmax(x * 0.125 + b, dim)
                               : activation::softmax(x * 0.125 + b, dim);
            const auto yc = log ? activation::log_softmax(xc * 0.125 + bc, dim)
                                : activation::softmax(xc * 0.125 + bc, dim);
            expect_near_rel(y, yc, 1e-6);
            if (kFusesReductions) {
                const auto s = fusion::stats();
                EXPECT_EQ(s.programs, 1u) << "dim " << dim << (log ? " log_softmax" : " softmax");
                EXPECT_EQ(s.fused_ops, 2u);
                EXPECT_EQ(s.outputs, 1u) << "only the softmax is written";
                EXPECT_EQ(s.unfused_ops, 1u) << "the read (into_data)";
            }
        }
    }
}

/// Every reduction (sum, mean, max, min, prod along each dim and over everything) of the pending
/// chain exp(x / 4): the fused results against the unfused backend's, one program each. The
/// values agree to a few ulp: the SIMD and scalar paths of exp can differ in the last bit, and
/// where a fused program's blocks end is not where the unfused kernel's SIMD loop ends.
template <std::size_t D>
void check_reductions(const Shape& shape, std::uint64_t seed) {
    const auto xd = sample(shape, seed, 0.5f, 1.5f);
    const auto x = Tensor<FB, D>::from_data(xd);
    const auto xc = Tensor<CB, D>::from_data(xd);
    const auto pf = [&] { return (x * 0.25).exp(); };
    const auto pc = [&] { return (xc * 0.25).exp(); };
    // f and c make the reductions; the pending exp is a temporary of f's statement only.
    const auto check = [&](const auto& f, const auto& c, const char* what, std::size_t dim,
                           std::uint64_t programs = 1) {
        fusion::reset_stats();
        const auto fr = f();
        const auto a = fr.to_data(), b = c().to_data();
        ASSERT_EQ(a.shape, b.shape);
        for (std::size_t i = 0; i < a.num_elements(); ++i) {
            const float u = a.template as_span<float>()[i], v = b.template as_span<float>()[i];
            ASSERT_NEAR(u, v, 2e-6 * std::abs(v))
                << shape << " " << what << " dim " << dim << " at " << i;
        }
        if (kFusesReductions) {
            const auto st = fusion::stats();
            EXPECT_EQ(st.programs, programs) << shape << " " << what << " dim " << dim;
            EXPECT_EQ(st.outputs, programs) << shape << " " << what << ": only the result";
            EXPECT_EQ(st.unfused_ops, 1u) << shape << " " << what << ": the read";
        }
    };
    const bool small = shape.num_elements() <= 100000;  // prod of more underflows or overflows
    for (std::size_t dim = 0; dim < D; ++dim) {
        const auto d = static_cast<std::int64_t>(dim);
        check([&] { return pf().sum_dim(d); }, [&] { return pc().sum_dim(d); }, "sum", dim);
        check([&] { return pf().mean_dim(d); }, [&] { return pc().mean_dim(d); }, "mean", dim);
        check([&] { return pf().max_dim(d); }, [&] { return pc().max_dim(d); }, "max", dim);
        check([&] { return pf().min_dim(d); }, [&] { return pc().min_dim(d); }, "min", dim);
        if (small)
            check([&] { return pf().prod_dim(d); }, [&] { return pc().prod_dim(d); }, "prod", dim);
    }
    check([&] { return pf().sum(); }, [&] { return pc().sum(); }, "sum", D);
    // mean() is sum() then a division: a second program.
    check([&] { return pf().mean(); }, [&] { return pc().mean(); }, "mean", D, 2);
    check([&] { return pf().max(); }, [&] { return pc().max(); }, "max", D);
    check([&] { return pf().min(); }, [&] { return pc().min(); }, "min", D);
    if (small) check([&] { return pf().prod(); }, [&] { return pc().prod(); }, "prod", D);
}

TEST(Fusion, ReductionsOfPendingChainsMatchTheUnfusedKernels) {
    // Shapes around the CPU's block of 2^17 elements: slabs that fit several to a block, one
    // slab larger than a block (rows split into runs), reductions over a middle dim.
    check_reductions<2>(Shape{7, 33}, 31);
    check_reductions<2>(Shape{3, 70000}, 32);
    check_reductions<2>(Shape{2, 300000}, 33);
    check_reductions<2>(Shape{200000, 3}, 34);
    check_reductions<3>(Shape{5, 1000, 40}, 35);
    check_reductions<3>(Shape{2, 800, 300}, 36);
}

TEST(Fusion, ReducedTensorsStillReferencedAreWritten) {
    const auto xd = sample(Shape{40, 50}, 41);
    const auto x = Tensor<FB, 2>::from_data(xd);
    const auto xc = Tensor<CB, 2>::from_data(xd);
    fusion::reset_stats();
    const auto e = (x * 1.5).exp();  // held: written by the program that reduces it
    const auto s = (e - 1.0).sum_dim(1);
    const auto m = e.max_dim(0);  // reads e, which the first program wrote
    const auto ec = (xc * 1.5).exp();
    expect_near_rel(s, (ec - 1.0).sum_dim(1), 2e-6);
    expect_same(e, ec);
    expect_same(m, ec.max_dim(0));
    if (kFusesReductions) {
        const auto st = fusion::stats();
        EXPECT_EQ(st.programs, 1u) << "e and the sum in one program; the max reads e";
        EXPECT_EQ(st.outputs, 2u) << "the sum and e";
        EXPECT_EQ(st.unfused_ops, 4u) << "max_dim of a computed tensor, three reads";
    }
}

TEST(Fusion, ReductionsPropagateNaNAndReadMidChain) {
    std::vector<float> v(2 * 1000, 1.0f);
    v[1500] = std::numeric_limits<float>::quiet_NaN();
    const TensorData d(std::move(v), Shape{2, 1000});
    const auto x = Tensor<FB, 2>::from_data(d);
    const auto y = x.exp().max_dim(1).to_data();
    EXPECT_FLOAT_EQ(y.as_span<float>()[0], std::exp(1.0f));
    EXPECT_TRUE(std::isnan(y.as_span<float>()[1]));
    // A reduction recorded, its input then read before the reduction is: the reduction reads
    // the computed input.
    const auto z = x.abs() * 2.0;
    const auto total = z.slice({{0, 1}}).sum();  // a view: computes z first
    const auto zs = (x.abs() * 2.0).sum_dim(1);
    (void)z.to_data();
    EXPECT_FLOAT_EQ(total.into_scalar(), 2000.0f);
    EXPECT_FLOAT_EQ(zs.to_data().as_span<float>()[0], 2000.0f);
    EXPECT_TRUE(std::isnan(zs.to_data().as_span<float>()[1]));
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

#if defined(BURN_TEST_CUDA) || defined(BURN_TEST_VULKAN)
// ---- the GPU fusion parts: one generated kernel per program -----------------------------------

/// Kernels (CUDA) or shader pipelines (Vulkan) generated for fused programs and loaded so far in
/// this process (compiled, or read from the disk cache).
std::size_t generated_kernels() {
#ifdef BURN_TEST_CUDA
    return cuda_kernel_stats().generated_kernels;
#else
    return vulkan_kernel_stats().generated_pipelines;
#endif
}

TEST(FusionGpu, OneKernelPerProgramWhateverTheShapeAndScalars) {
    const auto before = generated_kernels();
    int run = 0;
    for (const Shape& shape : {Shape{8, 8}, Shape{100, 3}, Shape{7, 1001}})
        for (const double a : {0.5, 3.0}) {
            const auto xd = sample(shape, 30 + run++);
            const auto f = ((Tensor<FB, 2>::from_data(xd) * a).sin() + a).log1p();
            const auto c = ((Tensor<CB, 2>::from_data(xd) * a).sin() + a).log1p();
            expect_close(f, c);
        }
    EXPECT_EQ(generated_kernels() - before, 1u)
        << "shapes and scalar values are arguments of one generated kernel";
}

TEST(FusionGpu, StridedBroadcastAndSingleValueInputs) {
    const auto xd = sample(Shape{33, 65}, 40), rd = sample(Shape{1, 33}, 41),
               sd = sample(Shape{1, 1}, 42), md = sample(Shape{65, 33}, 43);
    const auto run = [&](auto tag) {
        using BB = decltype(tag);
        const auto x = Tensor<BB, 2>::from_data(xd).transpose();  // [65, 33], strided
        const auto row = Tensor<BB, 2>::from_data(rd);            // broadcast over rows
        const auto one = Tensor<BB, 2>::from_data(sd);            // a single value
        const auto m = Tensor<BB, 2>::from_data(md);
        const auto mask = m.greater_elem(0.3);
        const auto y = (x * row - one).mask_fill(mask, -1.5);
        return activation::sigmoid(y.mask_where(m.lower_elem(-1.0), x) + m).to_data();
    };
    const auto f = run(FB{}), c = run(CB{});
    const auto a = f.as_span<float>(), b = c.as_span<float>();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << i;
}

TEST(FusionGpu, ManyStridedInputsAndOddSizes) {
    // 20 transposed inputs in one program, at sizes that leave vector tails (CUDA reads 16 through
    // their layouts and copies the others to dense arrays first; Vulkan binds at most 16 buffers
    // per dispatch and runs the program as several shaders).
    for (const std::size_t cols : {1u, 3u, 130u}) {
        std::vector<TensorData> data;
        for (int k = 0; k < 20; ++k) data.push_back(sample(Shape{cols, 7}, 50 + k));
        const auto run = [&](auto tag) {
            using BB = decltype(tag);
            auto acc = Tensor<BB, 2>::from_data(data[0]).transpose();
            for (std::size_t k = 1; k < data.size(); ++k)
                acc = acc * 0.5 + Tensor<BB, 2>::from_data(data[k]).transpose();
            return acc.to_data();
        };
        fusion::reset_stats();
        const auto f = run(FB{});
        EXPECT_EQ(fusion::stats().programs, 1u);
        const auto c = run(CB{});
        const auto a = f.as_span<float>(), b = c.as_span<float>();
        for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << cols << " " << i;
    }
}

/// Run by GeneratedKernelsAreCachedOnDisk in a child process (BURN_FUSION_TEST_CHILD set): one
/// fused program, then the process's compile statistics written to that file: the programs
/// compiled at run time, and the generated kernels loaded.
TEST(FusionGpu, ChildProcessRunsOneProgram) {
    const char* out = std::getenv("BURN_FUSION_TEST_CHILD");
    if (!out) GTEST_SKIP() << "run by GeneratedKernelsAreCachedOnDisk";
    const auto y = custom_gelu(Tensor<FB, 1>::from_data(sample(Shape{1000}, 60)).tanh());
    (void)y.to_data();
#ifdef BURN_TEST_CUDA
    const auto s = cuda_kernel_stats();
    std::ofstream(out) << s.compiled << " " << s.generated_kernels;
#else
    const auto s = vulkan_kernel_stats();
    std::ofstream(out) << s.compiled_shaders << " " << s.generated_pipelines;
#endif
}

TEST(FusionGpu, GeneratedKernelsAreCachedOnDisk) {
#ifdef BURN_TEST_CUDA
    const char* cache_variable = "BURN_CUDA_CACHE";
#else
    const char* cache_variable = "BURN_VULKAN_CACHE";
#endif
    const auto dir = std::filesystem::temp_directory_path() /
                     ("burn_fusion_cache_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const auto stats_file = dir.string() + ".stats";
    const auto self = std::filesystem::read_symlink("/proc/self/exe").string();
    const auto child = [&] {
        const std::string cmd = std::string(cache_variable) + "='" + dir.string() +
                                "' BURN_FUSION_TEST_CHILD='" + stats_file + "' '" + self +
                                "' --gtest_filter=FusionGpu.ChildProcessRunsOneProgram > "
                                "/dev/null 2>&1";
        EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
        std::size_t compiled = 0, generated = 0;
        std::ifstream(stats_file) >> compiled >> generated;
        return std::array<std::size_t, 2>{compiled, generated};
    };
    const auto first = child();
    EXPECT_GE(first[0], 1u) << "the first process compiles the fused program";
    EXPECT_EQ(first[1], 1u);
    bool fused_file = false;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        fused_file |= e.path().filename().string().rfind("fused-", 0) == 0;
    EXPECT_TRUE(fused_file) << "a fused-* file in " << dir;
    const auto second = child();
    EXPECT_EQ(second[0], 0u) << "the second process compiles nothing: the disk cache has it";
    EXPECT_EQ(second[1], 1u);
    std::filesystem::remove_all(dir);
    std::filesystem::remove(stats_file);
}
#endif

#ifdef BURN_TEST_CUDA
// ---- Fusion<Cuda<>> only: the generated kernels ------------------------------------------------

TEST(FusionCuda, DoublePrecisionPrograms) {
    using FD = Fusion<Cuda<double>>;
    using CD = Cuda<double>;
    std::vector<double> v(3001);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = -4.0 + 8.0 * static_cast<double>(i) / 3000.0;
    const TensorData xd(v, Shape{v.size()});
    const auto f = custom_gelu(Tensor<FD, 1>::from_data(xd)).clamp(-0.1, 2.0).to_data();
    const auto c = custom_gelu(Tensor<CD, 1>::from_data(xd)).clamp(-0.1, 2.0).to_data();
    for (std::size_t i = 0; i < v.size(); ++i)
        ASSERT_NEAR(f.as_span<double>()[i], c.as_span<double>()[i], 1e-15) << i;
}

#endif

#ifdef BURN_TEST_VULKAN
// ---- Fusion<Vulkan<>> only: the generated shaders ----------------------------------------------

TEST(FusionVulkan, EveryInstructionComputesWhatItsKernelComputes) {
    // Each op between multiply-adds (a chain the driver could contract across instructions), on
    // values around the special cases (0, negatives, NaN, inf).
    std::vector<float> v;
    for (int i = 0; i < 997; ++i) v.push_back(-6.0f + 12.0f * static_cast<float>(i) / 996.0f);
    v.insert(v.end(), {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1.0f, -1.0f});
    const TensorData xd(v, Shape{v.size()});
    using T1F = Tensor<FB, 1>;
    using T1C = Tensor<CB, 1>;
    const auto both = [&](const char* what, auto op) {
        const auto pre = [](auto x) { return x * 1.3 + 0.2; };
        const auto post = [](auto y) { return y * 0.7 - 0.1; };
        fusion::reset_stats();
        const auto f = post(op(pre(T1F::from_data(xd))));
        const auto c = post(op(pre(T1C::from_data(xd))));
        SCOPED_TRACE(what);
        expect_same(f, c);
        EXPECT_EQ(fusion::stats().programs, 1u);
    };
    both("neg", [](auto x) { return -x; });
    both("abs", [](auto x) { return x.abs(); });
    both("sign", [](auto x) { return x.sign(); });
    both("exp", [](auto x) { return x.exp(); });
    both("log", [](auto x) { return x.log(); });
    both("log1p", [](auto x) { return x.log1p(); });
    both("erf", [](auto x) { return x.erf(); });
    both("sqrt", [](auto x) { return x.sqrt(); });
    both("recip", [](auto x) { return x.recip(); });
    both("sin", [](auto x) { return x.sin(); });
    both("cos", [](auto x) { return x.cos(); });
    both("tanh", [](auto x) { return x.tanh(); });
    both("round", [](auto x) { return x.round(); });
    both("floor", [](auto x) { return x.floor(); });
    both("ceil", [](auto x) { return x.ceil(); });
    both("add", [](auto x) { return x + x.exp(); });
    both("sub", [](auto x) { return x - x * 3.0; });
    both("mul", [](auto x) { return x * (x + 1.0); });
    both("div", [](auto x) { return x / (x - 0.5); });
    both("rem", [](auto x) { return x % (x * 0.25 + 0.1); });
    both("rem scalar", [](auto x) { return x % 0.3; });
    both("powf", [](auto x) { return x.abs().powf(x * 0.5); });
    for (const double e : {1.0, 0.5, -1.0, 2.0, 3.0, -2.5, 0.0})
        both("powf_scalar", [e](auto x) { return x.powf_scalar(e); });
    both("max_pair", [](auto x) { return x.max_pair(x.sin()); });
    both("min_pair", [](auto x) { return x.min_pair(x.cos()); });
    both("clamp", [](auto x) { return x.clamp(-1.5, 2.5); });
    both("clamp_min", [](auto x) { return x.clamp_min(-0.5); });
    both("clamp_max", [](auto x) { return x.clamp_max(0.5); });
    both("compare", [](auto x) { return x.mask_fill(x.greater_equal(x * x - 1.0), 4.0); });
    both("compare_elem", [](auto x) { return x.mask_fill(x.lower_equal_elem(0.25), -4.0); });
    both("mask_where", [](auto x) { return x.mask_where(x.not_equal_elem(1.5), x.exp()); });
    both("relu", [](auto x) { return activation::relu(x); });
    both("gelu", [](auto x) { return activation::gelu(x); });
    both("sigmoid", [](auto x) { return activation::sigmoid(x); });
    both("log_sigmoid", [](auto x) { return activation::log_sigmoid(x); });
    both("hard_sigmoid", [](auto x) { return activation::hard_sigmoid(x, 0.3, 0.4); });
    both("leaky_relu", [](auto x) { return activation::leaky_relu(x, 0.02); });
}

TEST(FusionVulkan, ManyOutputsAndScalarsInOneProgram) {
    // 20 intermediates still held (more outputs than one dispatch binds), 60 scalars (more than
    // the push constants hold: they go in the parameter buffer, after a strided input's metadata).
    const auto xd = sample(Shape{37, 41}, 70), yd = sample(Shape{41, 37}, 71);
    const auto run = [&](auto tag) {
        using BB = decltype(tag);
        const auto y = Tensor<BB, 2>::from_data(yd).transpose();
        std::vector<Tensor<BB, 2>> kept{Tensor<BB, 2>::from_data(xd)};
        for (int k = 0; k < 20; ++k)
            kept.push_back((kept.back() * (1.0 + 0.01 * k) + y).clamp_max(3.0 - 0.05 * k));
        std::vector<TensorData> out;  // the last first: one program computes them all
        for (auto it = kept.rbegin(); it != kept.rend(); ++it) out.push_back(it->to_data());
        return out;
    };
    fusion::reset_stats();
    const auto f = run(FB{});
    EXPECT_EQ(fusion::stats().programs, 1u);
    EXPECT_EQ(fusion::stats().outputs, 20u);
    const auto c = run(CB{});
    for (std::size_t k = 0; k < f.size(); ++k) {
        const auto a = f[k].as_span<float>(), b = c[k].as_span<float>();
        for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << k << " " << i;
    }
}
#endif

#if !defined(BURN_TEST_CUDA) && !defined(BURN_TEST_VULKAN)
// ---- the shared kernel generator of the GPU fusion parts (burn/fusion/codegen.hpp) -------------

TEST(FusionCodegen, InstructionsAreSpelledThroughTheDialect) {
    namespace cg = fusion::codegen;
    using backend::BinaryOp;
    const cg::Dialect d{
        .name = "Test",
        .unary = {"neg($a)", "abs($a)", "sign($a)", "exp($a)", "log($a)", "log1p($a)", "erf($a)",
                  "sqrt($a)", "recip($a)", "sin($a)", "cos($a)", "tanh($a)", "round($a)",
                  "floor($a)", "ceil($a)"},
        .binary = {"$a+$b", "$a-$b", "$a*$b", "$a/$b", "rem($a,$b)", "pow($a,$b)", "max($a,$b)",
                   "min($a,$b)"},
        .compare = "($a $op $b)",
        .clamp = "clamp($a,$0,$1)",
        .where = "$b?$c:$a",
        .fill = "$b?$0:$a",
        .activation = {"relu($a)", "gelu($a)", "sig($a)", "lsig($a)", "hsig($a,$0,$1)",
                       "leaky($a,$0)"},
        .activation_backward = {"drelu($a,$b)", "dgelu($a,$b)", "dsig($a,$b)", "dlsig($a,$b)"},
        .pow_special = {"$a", "sqrt($a)", "recip($a)", nullptr},
        .div_by_reciprocal = "$a*$0",
        .scalar = [](std::size_t k) { return "s" + std::to_string(k); },
    };
    fusion::Program p;
    p.shape = Shape{4};
    p.inputs = {DType::F32, DType::F32};
    const auto scalar_op = [&](BinaryOp op, double v, std::uint32_t a) {
        p.instrs.push_back({.kind = fusion::OpKind::BinaryScalar,
                            .op = static_cast<std::uint8_t>(op),
                            .args = {a},
                            .scalar = backend::ScalarArg::of(v)});
    };
    scalar_op(BinaryOp::Div, 3.0, 0);   // r2: a division
    scalar_op(BinaryOp::Div, 0.25, 2);  // r3: times 4
    scalar_op(BinaryOp::Pow, 0.5, 3);   // r4: sqrt
    scalar_op(BinaryOp::Pow, 2.0, 4);   // r5: the dialect has no square: pow
    p.instrs.push_back({.kind = fusion::OpKind::Compare,
                        .op = static_cast<std::uint8_t>(backend::CmpOp::Ge),
                        .dtype = DType::Bool,
                        .args = {5, 1}});  // r6
    p.instrs.push_back({.kind = fusion::OpKind::Clamp,
                        .args = {5},
                        .scalar = backend::ScalarArg::of(-1.0),
                        .has_lo = true});                                    // r7
    p.instrs.push_back({.kind = fusion::OpKind::Where, .args = {7, 6, 1}});  // r8
    p.outputs = {8};
    std::vector<std::size_t> slots;
    const auto values = cg::scalars(p, DType::F32, d, &slots);
    ASSERT_EQ(slots, (std::vector<std::size_t>{0, 1, 2, 3, 4, 4, 6}));
    EXPECT_EQ(values[0], 3.0);
    EXPECT_EQ(values[1], 4.0) << "the exact reciprocal of 0.25";
    EXPECT_EQ(values[5], std::numeric_limits<double>::infinity()) << "no upper bound";
    const auto expr = [&](std::size_t k) {
        return cg::expression(p, k, DType::F32, d, slots[k], "float");
    };
    EXPECT_EQ(expr(0), "r0/s0");
    EXPECT_EQ(expr(1), "r2*s1");
    EXPECT_EQ(expr(2), "sqrt(r3)");
    EXPECT_EQ(expr(3), "pow(r4,s3)");
    EXPECT_EQ(expr(4), "(r5 >= r1)");
    EXPECT_EQ(expr(5), "clamp(r5,s4,s5)");
    EXPECT_EQ(expr(6), "r6?r1:r7");
    // The key follows the structure and the special cases, not the values.
    auto q = p;
    q.instrs[0].scalar = backend::ScalarArg::of(7.0);
    EXPECT_EQ(cg::structure_key(p, DType::F32, d), cg::structure_key(q, DType::F32, d));
    q.instrs[0].scalar = backend::ScalarArg::of(8.0);  // now a power of two
    EXPECT_NE(cg::structure_key(p, DType::F32, d), cg::structure_key(q, DType::F32, d));
    EXPECT_EQ(cg::exact_reciprocal(0.1, DType::F32), 0.0);
    EXPECT_EQ(cg::exact_reciprocal(std::ldexp(1.0, -140), DType::F32), 0.0) << "2^140 overflows";
    EXPECT_EQ(cg::exact_reciprocal(std::ldexp(1.0, -140), DType::F64), std::ldexp(1.0, 140));
    // Programs mixing float dtypes are refused, naming the caller.
    q.inputs[1] = DType::F64;
    EXPECT_THROW(
        {
            try {
                (void)cg::float_dtype(q, "Test fused program");
            } catch (const Error& e) {
                EXPECT_NE(std::string(e.what()).find("Test fused program"), std::string::npos);
                throw;
            }
        },
        Error);
}
#endif

// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan reductions (sum, prod, mean, max, min over everything and along dims, arg-max/min, any,
// all) and cumulative ops, each compared with the CPU backend on the same data: contiguous and
// strided views, long lanes (100000 elements), ties, NaN, empty dims. Every reduction test runs
// twice: with subgroup arithmetic (when the device has it) and with the shared-memory fallback
// (BURN_VULKAN_NO_SUBGROUPS=1).
#include <burn/backend/cpu/kernels.hpp>
#include <burn/backend/vulkan/kernels.hpp>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

#include "vk_support.hpp"

using namespace burn;
using namespace burn::vktest;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Runs f with subgroups allowed, then with the shared-memory fallback forced.
void both_paths(const std::function<void()>& f) {
    ::unsetenv("BURN_VULKAN_NO_SUBGROUPS");
    {
        SCOPED_TRACE("subgroup path");
        f();
    }
    ::setenv("BURN_VULKAN_NO_SUBGROUPS", "1", 1);
    {
        SCOPED_TRACE("shared-memory path");
        f();
    }
    ::unsetenv("BURN_VULKAN_NO_SUBGROUPS");
}

TensorData ints(const Shape& shape, int lo, int hi, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> u(lo, hi);
    std::vector<std::int32_t> v(shape.num_elements());
    for (auto& x : v) x = u(rng);
    return TensorData(std::move(v), shape);
}

/// Floats rounded to a few values (many ties), with NaN at some positions.
std::vector<float> floats(std::size_t n, float lo, float hi, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = u(rng);
    return v;
}

TensorData with_ties_and_nan(const Shape& shape, std::uint64_t seed,
                             std::vector<std::size_t> nan_at = {}) {
    auto p = floats(shape.num_elements(), -3.0f, 3.0f, seed);
    for (auto& x : p) x = std::round(x);
    for (auto i : nan_at) p[i] = kNaN;
    return TensorData(std::move(p), shape);
}

template <std::size_t D, class K>
void check_all_reductions(const Tensor<VB, D, K>& v, const Tensor<CB, D, K>& c, Tolerance tol) {
    expect_same(v.sum(), c.sum(), tol);
    expect_same(v.mean(), c.mean(), tol);
    expect_same(v.max(), c.max(), tol);
    expect_same(v.min(), c.min(), tol);
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(D); ++d) {
        SCOPED_TRACE("dim " + std::to_string(d));
        expect_same(v.sum_dim(d), c.sum_dim(d), tol);
        expect_same(v.mean_dim(d), c.mean_dim(d), tol);
        expect_same(v.max_dim(d), c.max_dim(d), tol);
        expect_same(v.min_dim(d), c.min_dim(d), tol);
    }
}

}  // namespace

TEST(VulkanReduce, FloatsEveryDimAndLayout) {
    BURN_REQUIRE_VULKAN();
    both_paths([] {
        const Tolerance tol{1e-4, 1e-4};
        auto [v, c] = both<3>(vk_random(Shape{5, 300, 7}, -1.0f, 1.0f, 3));
        check_all_reductions(v, c, tol);
        check_all_reductions(v.swap_dims(0, 2), c.swap_dims(0, 2), tol);
        check_all_reductions(v.flip({1}), c.flip({1}), tol);
        check_all_reductions(v.slice({{1, 4}, {10, 290, 3}}), c.slice({{1, 4}, {10, 290, 3}}), tol);
        // Many strided lanes (one invocation per lane) and short lanes.
        auto [w, wc] = both<2>(vk_random(Shape{600, 300}, -1.0f, 1.0f, 30));
        check_all_reductions(w, wc, tol);
        check_all_reductions(w.swap_dims(0, 1), wc.swap_dims(0, 1), tol);
        // Products of values near 1 (no underflow).
        auto [p, q] = both<2>(vk_random(Shape{9, 40}, 0.9f, 1.1f, 4));
        expect_same(p.prod(), q.prod(), tol);
        expect_same(p.prod_dim(0), q.prod_dim(0), tol);
        expect_same(p.prod_dim(1), q.prod_dim(1), tol);
        expect_same(p.swap_dims(0, 1).prod_dim(1), q.swap_dims(0, 1).prod_dim(1), tol);
    });
}

TEST(VulkanReduce, LongLanes) {
    BURN_REQUIRE_VULKAN();
    both_paths([] {
        auto [v, c] = both<2>(vk_random(Shape{3, 100000}, 0.0f, 1.0f, 5));
        const Tolerance tol{1e-3, 1e-5};
        expect_same(v.sum(), c.sum(), tol);
        expect_same(v.mean(), c.mean(), tol);
        expect_same(v.max(), c.max());
        expect_same(v.min(), c.min());
        expect_same(v.sum_dim(1), c.sum_dim(1), tol);
        expect_same(v.mean_dim(1), c.mean_dim(1), tol);
        expect_same(v.max_dim(1), c.max_dim(1));
        // The long dim strided (transposed view): lanes along dim 0 of the transpose.
        expect_same(v.swap_dims(0, 1).sum_dim(0), c.swap_dims(0, 1).sum_dim(0), tol);
        expect_same(v.swap_dims(0, 1).min_dim(0), c.swap_dims(0, 1).min_dim(0));
        // Non-contiguous reduce_all (the flat strided path).
        expect_same(v.swap_dims(0, 1).sum(), c.swap_dims(0, 1).sum(), tol);
        expect_same(v.swap_dims(0, 1).max(), c.swap_dims(0, 1).max());
    });
}

TEST(VulkanReduce, NaNPropagatesThroughMaxMin) {
    BURN_REQUIRE_VULKAN();
    both_paths([] {
        auto [v, c] =
            both<2>(with_ties_and_nan(Shape{4, 1000}, 6, {5, 1000 + 999, 2 * 1000 + 517}));
        expect_same(v.max(), c.max());
        expect_same(v.min(), c.min());
        expect_same(v.max_dim(1), c.max_dim(1));
        expect_same(v.min_dim(1), c.min_dim(1));
        expect_same(v.max_dim(0), c.max_dim(0));
        expect_same(v.sum_dim(1), c.sum_dim(1));
        expect_same(v.mean(), c.mean());
        // A single NaN in a long lane.
        auto d = floats(100000, -1.0f, 1.0f, 7);
        d[77777] = kNaN;
        auto [a, b] = both<1>(TensorData(d, Shape{100000}));
        expect_same(a.max(), b.max());
        expect_same(a.min_dim(0), b.min_dim(0));
    });
}

TEST(VulkanReduce, Ints) {
    BURN_REQUIRE_VULKAN();
    both_paths([] {
        auto [v, c] = both<3, Int>(ints(Shape{4, 65, 3}, -50, 50, 8));
        check_all_reductions(v, c, Tolerance{0, 0});
        check_all_reductions(v.swap_dims(0, 1), c.swap_dims(0, 1), Tolerance{0, 0});
        // Mean truncates toward zero (negative sums too).
        auto [m, n] =
            both<2, Int>(TensorData(std::vector<std::int32_t>{-7, 2, 0, 5, 1, 1}, Shape{2, 3}));
        expect_same(m.mean_dim(1), n.mean_dim(1), Tolerance{0, 0});
        expect_same(m.mean(), n.mean(), Tolerance{0, 0});
        // The sum of a mean does not overflow i32 (the CPU backend sums in 64 bits).
        auto [big, bigc] =
            both<2, Int>(TensorData(std::vector<std::int32_t>{2000000000, 2000000000, 2000000001,
                                                              -2000000000, -2000000000, -3},
                                    Shape{2, 3}));
        expect_same(big.mean_dim(1), bigc.mean_dim(1), Tolerance{0, 0});
        expect_same(big.mean(), bigc.mean(), Tolerance{0, 0});
        expect_same(big.swap_dims(0, 1).mean_dim(0), bigc.swap_dims(0, 1).mean_dim(0),
                    Tolerance{0, 0});
        // Products wrap like the CPU backend's.
        auto [p, q] = both<1, Int>(ints(Shape{40}, -9, 9, 9));
        expect_same(p.prod(), q.prod(), Tolerance{0, 0});
        auto [l, k] = both<1, Int>(ints(Shape{100000}, -1000, 1000, 10));
        expect_same(l.sum(), k.sum(), Tolerance{0, 0});
        expect_same(l.max(), k.max(), Tolerance{0, 0});
        expect_same(l.mean(), k.mean(), Tolerance{0, 0});
    });
}

TEST(VulkanReduce, EmptyDims) {
    BURN_REQUIRE_VULKAN();
    auto [v, c] = both<2>(TensorData(std::vector<float>{}, Shape{3, 0}));
    expect_same(v.sum_dim(1), c.sum_dim(1));
    expect_same(v.prod_dim(1), c.prod_dim(1));
    expect_same(v.mean_dim(1), c.mean_dim(1));
    expect_same(v.sum(), c.sum());
    expect_same(v.prod(), c.prod());
    expect_same(v.mean(), c.mean());
    expect_same(v.sum_dim(0), c.sum_dim(0));  // [1, 0]
    expect_same(v.max_dim(0), c.max_dim(0));
    EXPECT_THROW((void)v.max_dim(1), Error);
    EXPECT_THROW((void)v.max(), Error);
    auto [i, j] = both<2, Int>(TensorData(std::vector<std::int32_t>{}, Shape{0, 2}));
    expect_same(i.sum_dim(0), j.sum_dim(0), Tolerance{0, 0});
    expect_same(i.prod_dim(0), j.prod_dim(0), Tolerance{0, 0});
    EXPECT_THROW((void)i.mean_dim(0), Error);
}

TEST(VulkanReduce, ArgMaxMinFirstExtremum) {
    BURN_REQUIRE_VULKAN();
    // Ties everywhere (rounded values), NaN in some lanes: the first extremum / first NaN wins.
    auto [v, c] =
        both<2>(with_ties_and_nan(Shape{6, 700}, 11, {3 * 700 + 400, 3 * 700 + 20, 5 * 700 + 699}));
    for (std::int64_t d = 0; d < 2; ++d) {
        auto [va, vi] = v.max_dim_with_indices(d);
        auto [ca, ci] = c.max_dim_with_indices(d);
        expect_same(va, ca);
        expect_same(vi, ci);
        auto [wa, wi] = v.min_dim_with_indices(d);
        auto [da, di] = c.min_dim_with_indices(d);
        expect_same(wa, da);
        expect_same(wi, di);
        expect_same(v.argmax(d), c.argmax(d));
        expect_same(v.argmin(d), c.argmin(d));
        expect_same(v.swap_dims(0, 1).argmax(d), c.swap_dims(0, 1).argmax(d));
    }
    // A long lane whose maximum appears several times: the first index.
    auto p = floats(100000, -1.0f, 1.0f, 12);
    p[99990] = 5.0f;
    p[4097] = 5.0f;
    p[60000] = 5.0f;
    p[123] = -5.0f;
    p[124] = -5.0f;
    auto [l, k] = both<2>(TensorData(p, Shape{1, 100000}));
    expect_same(l.argmax(1), k.argmax(1));
    expect_same(l.argmin(1), k.argmin(1));
    // Ints.
    auto [a, b] = both<3, Int>(ints(Shape{3, 50, 4}, -3, 3, 13));
    for (std::int64_t dd = 0; dd < 3; ++dd) {
        expect_same(a.argmax(dd), b.argmax(dd), Tolerance{0, 0});
        expect_same(a.argmin(dd), b.argmin(dd), Tolerance{0, 0});
        auto [x, y] = a.max_dim_with_indices(dd);
        auto [z, w] = b.max_dim_with_indices(dd);
        expect_same(x, z, Tolerance{0, 0});
        expect_same(y, w, Tolerance{0, 0});
    }
    // i64 indices through the kernel API.
    auto [vals, idx] =
        vk::Kernels::reduce_dim_with_indices(vk::ReduceOp::Max, v.primitive(), 1, DType::I64);
    const auto got = vk::Kernels::into_data(idx);
    EXPECT_EQ(got.dtype, DType::I64);
    EXPECT_EQ(got.convert(DType::I32), c.argmax(1).to_data());
}

TEST(VulkanReduce, AnyAll) {
    BURN_REQUIRE_VULKAN();
    both_paths([] {
        auto [v, c] = both<3>(vk_random(Shape{4, 300, 5}, -1.0f, 1.0f, 14));
        for (float thr : {0.99f, 0.0f, -2.0f, 2.0f}) {
            const auto mv = v.greater_elem(thr);
            const auto mc = c.greater_elem(thr);
            expect_same(mv.any(), mc.any());
            expect_same(mv.all(), mc.all());
            for (std::int64_t d = 0; d < 3; ++d) {
                expect_same(mv.any_dim(d), mc.any_dim(d));
                expect_same(mv.all_dim(d), mc.all_dim(d));
            }
            expect_same(mv.swap_dims(0, 2).any_dim(1), mc.swap_dims(0, 2).any_dim(1));
            expect_same(mv.swap_dims(0, 2).all(), mc.swap_dims(0, 2).all());
        }
        // Non-bool inputs through the kernels: != 0, as the CPU backend.
        const auto fv = v.add(v).add(v).slice({{0, 2}, {0, 3}, {0, 1}}).into_int();
        const auto fc = c.add(c).add(c).slice({{0, 2}, {0, 3}, {0, 1}}).into_int();
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::any_all(true, fv.primitive())),
                  cpu::Kernels::into_data(cpu::Kernels::any_all(true, fc.primitive())));
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::any_all_dim(false, fv.primitive(), 1)),
                  cpu::Kernels::into_data(cpu::Kernels::any_all_dim(false, fc.primitive(), 1)));
        auto [e0, f0] = both<2>(TensorData(std::vector<float>{}, Shape{2, 0}));
        const auto e = e0.greater_elem(0.0f);
        const auto f = f0.greater_elem(0.0f);
        expect_same(e.any(), f.any());
        expect_same(e.all(), f.all());
        expect_same(e.any_dim(1), f.any_dim(1));
        expect_same(e.all_dim(1), f.all_dim(1));
        // One true element at the end of a long lane.
        std::vector<float> bits(100000, 0.0f);
        bits[99999] = 1.0f;
        auto [g0, h0] = both<1>(TensorData(bits, Shape{100000}));
        const auto g = g0.greater_elem(0.5f);
        const auto h = h0.greater_elem(0.5f);
        expect_same(g.any(), h.any());
        expect_same(g.all(), h.all());
        expect_same(g.any_dim(0), h.any_dim(0));
    });
}

TEST(VulkanCumulative, FloatsIntsAndNaN) {
    BURN_REQUIRE_VULKAN();
    const Tolerance tol{1e-4, 1e-4};
    auto [v, c] = both<3>(vk_random(Shape{4, 50, 3}, -1.0f, 1.0f, 15));
    for (std::int64_t d = 0; d < 3; ++d) {
        SCOPED_TRACE("dim " + std::to_string(d));
        expect_same(v.cumsum(d), c.cumsum(d), tol);
        expect_same(v.cummax(d), c.cummax(d));
        expect_same(v.cummin(d), c.cummin(d));
        expect_same(v.swap_dims(0, 2).cumsum(d), c.swap_dims(0, 2).cumsum(d), tol);
    }
    auto [p, q] = both<2>(vk_random(Shape{5, 60}, 0.9f, 1.1f, 16));
    expect_same(p.cumprod(1), q.cumprod(1), tol);
    expect_same(p.cumprod(0), q.cumprod(0), tol);
    // NaN propagates from its position on through cummax / cummin; ties (rounded values).
    auto [n, m] = both<2>(with_ties_and_nan(Shape{3, 40}, 17, {10, 40 + 39}));
    expect_same(n.cummax(1), m.cummax(1));
    expect_same(n.cummin(1), m.cummin(1));
    expect_same(n.cummax(0), m.cummax(0));
    expect_same(n.cumsum(1), m.cumsum(1));
    // A long lane.
    auto [l, k] = both<1>(vk_random(Shape{100000}, 0.0f, 1.0f, 18));
    expect_same(l.cumsum(0), k.cumsum(0), Tolerance{1e-3, 1e-5});
    expect_same(l.cummax(0), k.cummax(0));
    // Ints (wrapping products).
    auto [a, b] = both<2, Int>(ints(Shape{6, 30}, -5, 5, 19));
    for (std::int64_t d = 0; d < 2; ++d) {
        expect_same(a.cumsum(d), b.cumsum(d), Tolerance{0, 0});
        expect_same(a.cumprod(d), b.cumprod(d), Tolerance{0, 0});
        expect_same(a.cummax(d), b.cummax(d), Tolerance{0, 0});
        expect_same(a.cummin(d), b.cummin(d), Tolerance{0, 0});
    }
    auto [e, f] = both<2>(TensorData(std::vector<float>{}, Shape{0, 3}));
    expect_same(e.cumsum(1), f.cumsum(1));
}

TEST(VulkanReduce, SubgroupPathAvailableOnLavapipe) {
    BURN_REQUIRE_VULKAN();
    const auto& f = vulkan_device_info(VulkanDevice{}).features;
    std::printf("device subgroups: size %u, arithmetic %d, in compute %d\n", f.subgroup_size,
                int(f.subgroup_arithmetic), int(f.subgroup_in_compute));
    if (vulkan_device_info(VulkanDevice{}).name.find("llvmpipe") != std::string::npos)
        EXPECT_TRUE(f.subgroup_arithmetic && f.subgroup_in_compute);  // both paths really run
}

TEST(VulkanReduce, Int64ThroughKernels) {
    BURN_REQUIRE_VULKAN();
    if (!vulkan_device_info(VulkanDevice{}).features.shader_int64) GTEST_SKIP() << "no shaderInt64";
    std::vector<std::int64_t> v(3 * 1000);
    std::mt19937_64 rng(21);
    for (auto& x : v)
        x = static_cast<std::int64_t>(rng() % 2000001) - 1000000 + (std::int64_t{1} << 40);
    const TensorData d(v, Shape{3, 1000});
    const auto vt = vk::Kernels::from_data(d, DType::I64, VulkanDevice{});
    const auto ct = cpu::Kernels::from_data(d, DType::I64, {});
    for (auto op : {vk::ReduceOp::Sum, vk::ReduceOp::Max, vk::ReduceOp::Min, vk::ReduceOp::Mean}) {
        const auto cop = static_cast<cpu::ReduceOp>(static_cast<int>(op));
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::reduce_all(op, vt)),
                  cpu::Kernels::into_data(cpu::Kernels::reduce_all(cop, ct)));
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::reduce_dim(op, vt, 1)),
                  cpu::Kernels::into_data(cpu::Kernels::reduce_dim(cop, ct, 1)));
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::reduce_dim(op, vt, 0)),
                  cpu::Kernels::into_data(cpu::Kernels::reduce_dim(cop, ct, 0)));
    }
    auto [a, ai] = vk::Kernels::reduce_dim_with_indices(vk::ReduceOp::Min, vt, 1, DType::I64);
    auto [b, bi] = cpu::Kernels::reduce_dim_with_indices(cpu::ReduceOp::Min, ct, 1, DType::I64);
    EXPECT_EQ(vk::Kernels::into_data(a), cpu::Kernels::into_data(b));
    EXPECT_EQ(vk::Kernels::into_data(ai), cpu::Kernels::into_data(bi));
    for (auto op : {vk::CumOp::Sum, vk::CumOp::Max, vk::CumOp::Min}) {
        const auto cop = static_cast<cpu::CumOp>(static_cast<int>(op));
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::cumulative(op, vt, 1)),
                  cpu::Kernels::into_data(cpu::Kernels::cumulative(cop, ct, 1)));
    }
}

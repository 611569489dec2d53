// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan indexing and reordering: sort / argsort (stable, NaN, descending, any dim, long lanes),
// argwhere, gather, scatter (scatter_add), select, select_assign (index_add), embedding and its
// backward, each compared with the CPU backend on the same data, on contiguous and strided views.
#include <burn/backend/cpu/kernels.hpp>
#include <burn/backend/vulkan/kernels.hpp>
#include <cmath>
#include <limits>

#include "vk_support.hpp"

using namespace burn;
using namespace burn::vktest;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const Tolerance kExact{0, 0};

std::vector<float> floats(std::size_t n, float lo, float hi, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = u(rng);
    return v;
}

TensorData ints(const Shape& shape, int lo, int hi, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> u(lo, hi);
    std::vector<std::int32_t> v(shape.num_elements());
    for (auto& x : v) x = u(rng);
    return TensorData(std::move(v), shape);
}

/// Rounded floats (many ties), NaN at some positions, a -0.0 and +0.0 mix.
TensorData ties(const Shape& shape, std::uint64_t seed, std::size_t nan_every = 0) {
    auto p = floats(shape.num_elements(), -4.0f, 4.0f, seed);
    for (std::size_t i = 0; i < p.size(); ++i) {
        p[i] = std::round(p[i]);
        if (p[i] == 0.0f && i % 2) p[i] = -0.0f;
        if (nan_every && i % nan_every == 3) p[i] = kNaN;
    }
    return TensorData(std::move(p), shape);
}

template <std::size_t D, class K>
void check_sorts(const Tensor<VB, D, K>& v, const Tensor<CB, D, K>& c) {
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(D); ++d) {
        SCOPED_TRACE("dim " + std::to_string(d));
        expect_same(v.sort(d), c.sort(d), kExact);
        expect_same(v.sort_descending(d), c.sort_descending(d), kExact);
        expect_same(v.argsort(d), c.argsort(d), kExact);
        expect_same(v.argsort_descending(d), c.argsort_descending(d), kExact);
        auto [a, ai] = v.sort_with_indices(d);
        auto [b, bi] = c.sort_with_indices(d);
        expect_same(a, b, kExact);
        expect_same(ai, bi, kExact);
    }
}

}  // namespace

TEST(VulkanSort, StableWithNaNEveryDim) {
    BURN_REQUIRE_VULKAN();
    auto [v, c] = both<3>(ties(Shape{4, 37, 5}, 1, 7));
    check_sorts(v, c);
    check_sorts(v.swap_dims(0, 1), c.swap_dims(0, 1));
    check_sorts(v.flip({1}), c.flip({1}));
    auto [i, j] = both<2, Int>(ints(Shape{9, 130}, -5, 5, 2));
    check_sorts(i, j);
    check_sorts(i.swap_dims(0, 1), j.swap_dims(0, 1));
    // Size-1 and size-2 lanes, infinities.
    auto [s, t] = both<2>(
        TensorData(std::vector<float>{1.0f, -INFINITY, INFINITY, kNaN, 0.0f, -0.0f}, Shape{1, 6}));
    check_sorts(s, t);
    // Empty.
    auto [e, f] = both<2>(TensorData(std::vector<float>{}, Shape{3, 0}));
    expect_same(e.sort(1), f.sort(1));
    expect_same(e.argsort(0), f.argsort(0));
}

TEST(VulkanSort, LongLanes) {
    BURN_REQUIRE_VULKAN();
    auto [v, c] = both<1>(ties(Shape{100000}, 3, 1001));
    expect_same(v.sort(0), c.sort(0), kExact);
    expect_same(v.argsort_descending(0), c.argsort_descending(0), kExact);
    auto [a, b] = both<2>(TensorData(floats(2 * 3000, -1.0f, 1.0f, 4), Shape{3000, 2}));
    expect_same(a.sort(0), b.sort(0), kExact);
    expect_same(a.argsort(0), b.argsort(0), kExact);
}

TEST(VulkanSort, Int64AndIndexDtypes) {
    BURN_REQUIRE_VULKAN();
    if (!vulkan_device_info(VulkanDevice{}).features.shader_int64) GTEST_SKIP() << "no shaderInt64";
    std::vector<std::int64_t> v(4 * 300);
    std::mt19937_64 rng(5);
    for (auto& x : v)
        x = static_cast<std::int64_t>(rng() % 7) * (std::int64_t{1} << 35) -
            (std::int64_t{3} << 35) + static_cast<std::int64_t>(rng() % 3);
    const TensorData d(v, Shape{4, 300});
    const auto vt = vk::Kernels::from_data(d, DType::I64, VulkanDevice{});
    const auto ct = cpu::Kernels::from_data(d, DType::I64, {});
    for (bool desc : {false, true}) {
        auto [a, ai] = vk::Kernels::sort(vt, 1, desc, DType::I64);
        auto [b, bi] = cpu::Kernels::sort(ct, 1, desc, DType::I64);
        EXPECT_EQ(vk::Kernels::into_data(a), cpu::Kernels::into_data(b));
        EXPECT_EQ(vk::Kernels::into_data(ai), cpu::Kernels::into_data(bi));
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::argsort(vt, 0, desc, DType::I32)),
                  cpu::Kernels::into_data(cpu::Kernels::argsort(ct, 0, desc, DType::I32)));
    }
}

TEST(VulkanArgwhere, RowMajorCoordinates) {
    BURN_REQUIRE_VULKAN();
    auto [v, c] = both<3>(TensorData(floats(13 * 170 * 5, -1.0f, 1.0f, 6), Shape{13, 170, 5}));
    for (float thr : {0.5f, 0.999f, 2.0f, -2.0f}) {
        expect_same(v.greater_elem(thr).argwhere(), c.greater_elem(thr).argwhere(), kExact);
        expect_same(v.swap_dims(0, 2).greater_elem(thr).argwhere(),
                    c.swap_dims(0, 2).greater_elem(thr).argwhere(), kExact);
    }
    auto [e, f] = both<2>(TensorData(std::vector<float>{}, Shape{0, 4}));
    expect_same(e.greater_elem(0.0f).argwhere(), f.greater_elem(0.0f).argwhere(), kExact);
    // i64 coordinates through the kernel API.
    const auto m = v.greater_elem(0.5f);
    const auto got = vk::Kernels::into_data(vk::Kernels::argwhere(m.primitive(), DType::I64));
    EXPECT_EQ(got.dtype, DType::I64);
    EXPECT_EQ(got.convert(DType::I32), c.greater_elem(0.5f).argwhere().to_data());
}

TEST(VulkanGatherScatter, GatherAndScatterAdd) {
    BURN_REQUIRE_VULKAN();
    auto [v, c] = both<3>(TensorData(floats(6 * 7 * 8, -1.0f, 1.0f, 7), Shape{6, 7, 8}));
    for (std::int64_t d = 0; d < 3; ++d) {
        SCOPED_TRACE("dim " + std::to_string(d));
        const int extent = static_cast<int>(v.dims()[d]);
        Shape ishape{5, 6, 7};
        ishape[d] = 11;  // longer than the dim: duplicates
        auto [iv, ic] = both<3, Int>(ints(ishape, 0, extent - 1, 8 + d));
        expect_same(v.gather(d, iv), c.gather(d, ic), kExact);
        expect_same(v.flip({0, 1}).gather(d, iv.flip({1})), c.flip({0, 1}).gather(d, ic.flip({1})),
                    kExact);
        // scatter: values larger than the indices in every dim.
        Shape vshape{6, 7, 8};
        vshape[d] = 12;
        auto [vv, vc] =
            both<3>(TensorData(floats(vshape.num_elements(), -1.0f, 1.0f, 20 + d), vshape));
        expect_same(v.scatter(d, iv, vv), c.scatter(d, ic, vc), kExact);
        expect_same(v.flip({0}).scatter(d, iv, vv.flip({1})),
                    c.flip({0}).scatter(d, ic, vc.flip({1})), kExact);
    }
    // Ints.
    auto [a, b] = both<2, Int>(ints(Shape{5, 9}, -100, 100, 30));
    auto [ia, ib] = both<2, Int>(ints(Shape{5, 20}, 0, 8, 31));
    auto [va, vb] = both<2, Int>(ints(Shape{5, 20}, -100, 100, 32));
    expect_same(a.gather(1, ia.slice({{0, 5}, {0, 9}})), b.gather(1, ib.slice({{0, 5}, {0, 9}})),
                kExact);
    expect_same(a.scatter(1, ia, va), b.scatter(1, ib, vb), kExact);
    // A long index dim (every index hits one of 3 slots).
    auto [l, k] = both<2>(TensorData(std::vector<float>(3, 0.0f), Shape{1, 3}));
    auto [il, ik] = both<2, Int>(ints(Shape{1, 100000}, 0, 2, 33));
    auto [vl, vk2] = both<2>(TensorData(floats(100000, 0.0f, 1.0f, 34), Shape{1, 100000}));
    expect_same(l.scatter(1, il, vl), k.scatter(1, ik, vk2), Tolerance{1e-6, 1e-6});
    // Invalid arguments: the Tensor layer's errors, the same on both backends.
    const TensorData wide = ints(Shape{6, 9, 8}, 0, 5, 35);  // wider than v in dim 1
    auto gather_wide = [&](std::int64_t dim) {
        return [&wide, dim](auto t) {
            return t.gather(dim, Tensor<typename decltype(t)::Backend, 3, Int>::from_data(wide));
        };
    };
    expect_same_error(v, c, gather_wide(0),
                      "Tensor::gather: indices of shape [6, 9, 8] exceed the tensor of shape "
                      "[6, 7, 8] at dim 1");
    expect_same_error(v, c, gather_wide(3), "Tensor::gather: dim 3 is out of range");
}

TEST(VulkanGatherScatter, SelectAndSelectAssign) {
    BURN_REQUIRE_VULKAN();
    auto [v, c] = both<3>(TensorData(floats(6 * 7 * 8, -1.0f, 1.0f, 40), Shape{6, 7, 8}));
    auto [iv, ic] =
        both<1, Int>(TensorData(std::vector<std::int32_t>{3, 0, 3, 5, 1, 3, 0, 2, 4}, Shape{9}));
    for (std::int64_t d = 0; d < 3; ++d) {
        SCOPED_TRACE("dim " + std::to_string(d));
        expect_same(v.select(d, iv), c.select(d, ic), kExact);
        expect_same(v.swap_dims(0, 2).select(d, iv), c.swap_dims(0, 2).select(d, ic), kExact);
        expect_same(v.select(d, iv.flip({0})), c.select(d, ic.flip({0})), kExact);
        Shape vshape{6, 7, 8};
        vshape[d] = 9;
        auto [vv, vc] =
            both<3>(TensorData(floats(vshape.num_elements(), -1.0f, 1.0f, 41 + d), vshape));
        expect_same(v.select_assign(d, iv, vv), c.select_assign(d, ic, vc), kExact);
        expect_same(v.flip({0, 2}).select_assign(d, iv, vv.flip({1})),
                    c.flip({0, 2}).select_assign(d, ic, vc.flip({1})), kExact);
    }
    auto [a, b] = both<2, Int>(ints(Shape{5, 4}, -9, 9, 50));
    auto [ja, jb] = both<1, Int>(TensorData(std::vector<std::int32_t>{4, 4, 0}, Shape{3}));
    auto [wa, wb] = both<2, Int>(ints(Shape{3, 4}, -9, 9, 51));
    expect_same(a.select(0, ja), b.select(0, jb), kExact);
    expect_same(a.select_assign(0, ja, wa), b.select_assign(0, jb, wb), kExact);
    // Empty index list.
    auto [ea, eb] = both<1, Int>(TensorData(std::vector<std::int32_t>{}, Shape{0}));
    expect_same(a.select(1, ea), b.select(1, eb), kExact);
}

TEST(VulkanGatherScatter, EmbeddingAndBackward) {
    BURN_REQUIRE_VULKAN();
    auto [w, wc] = both<2>(TensorData(floats(10 * 6, -1.0f, 1.0f, 60), Shape{10, 6}));
    auto [i, ic] = both<2, Int>(ints(Shape{3, 5}, 0, 9, 61));
    expect_same(module::embedding(w, i), module::embedding(wc, ic), kExact);
    expect_same(module::embedding(w.swap_dims(0, 1).swap_dims(0, 1), i.swap_dims(0, 1)),
                module::embedding(wc, ic.swap_dims(0, 1)), kExact);
    auto [g, gc] = both<3>(TensorData(floats(3 * 5 * 6, -1.0f, 1.0f, 62), Shape{3, 5, 6}));
    const auto gv =
        Tensor<VB, 2>(VB::embedding_backward(w.primitive(), g.primitive(), i.primitive()));
    const auto gcpu =
        Tensor<CB, 2>(CB::embedding_backward(wc.primitive(), gc.primitive(), ic.primitive()));
    expect_same(gv, gcpu, Tolerance{1e-6, 1e-6});
    // Strided indices and gradient.
    const auto gv2 = Tensor<VB, 2>(VB::embedding_backward(
        w.primitive(), g.swap_dims(0, 1).primitive(), i.swap_dims(0, 1).primitive()));
    const auto gc2 = Tensor<CB, 2>(CB::embedding_backward(
        wc.primitive(), gc.swap_dims(0, 1).primitive(), ic.swap_dims(0, 1).primitive()));
    expect_same(gv2, gc2, Tolerance{1e-6, 1e-6});
}

TEST(VulkanGatherScatter, ManyIndicesAndBounds) {
    BURN_REQUIRE_VULKAN();
    // More indices than one launch adds (embedding backward: 2048, index_add: 16384 per launch).
    auto [w, wc] = both<2>(TensorData(floats(7 * 3, -1.0f, 1.0f, 70), Shape{7, 3}));
    auto [i, ic] = both<2, Int>(ints(Shape{50, 100}, 0, 6, 71));
    auto [g, gc] = both<3>(TensorData(floats(50 * 100 * 3, -1.0f, 1.0f, 72), Shape{50, 100, 3}));
    const auto gv =
        Tensor<VB, 2>(VB::embedding_backward(w.primitive(), g.primitive(), i.primitive()));
    const auto gcpu =
        Tensor<CB, 2>(CB::embedding_backward(wc.primitive(), gc.primitive(), ic.primitive()));
    expect_same(gv, gcpu, Tolerance{1e-5, 1e-5});
    auto [s, sc] = both<1, Int>(ints(Shape{40000}, 0, 6, 73));
    auto [v, vc] = both<2>(TensorData(floats(40000 * 3, -1.0f, 1.0f, 74), Shape{40000, 3}));
    expect_same(w.select_assign(0, s, v), wc.select_assign(0, sc, vc), Tolerance{1e-5, 1e-5});
    expect_same(w.select(0, s), wc.select(0, sc), kExact);
    // The embedding module checks the index range (through the Vulkan min / max reductions).
    auto [bad, badc] = both<2, Int>(TensorData(std::vector<std::int32_t>{0, 7}, Shape{1, 2}));
    EXPECT_THROW((void)module::embedding(w, bad), Error);
    EXPECT_THROW((void)module::embedding(wc, badc), Error);
}

TEST(VulkanSort, RankZero) {
    BURN_REQUIRE_VULKAN();
    auto t = vk::Kernels::from_data(TensorData(std::vector<float>{2.5f}, Shape{}), DType::F32,
                                    VulkanDevice{});
    auto [v, i] = vk::Kernels::sort(t, 0, false, DType::I32);
    EXPECT_EQ(vk::Kernels::into_data(v), TensorData(std::vector<float>{2.5f}, Shape{}));
    EXPECT_EQ(vk::Kernels::into_data(i), TensorData(std::vector<std::int32_t>{0}, Shape{}));
}

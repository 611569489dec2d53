// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan matmul against the CPU backend: sizes around and off the tile sizes, batched with
// broadcast batch dims, strided operands (transposed, broadcast, flipped, offset views), ints,
// empty and k = 0 products, errors.
#include <array>
#include <cstdint>
#include <vector>

#include "vk_support.hpp"

using namespace burn;
using namespace burn::vktest;
using burn::vk::Strides;

namespace {

/// A view (shape, strides, offset) over `storage` floats: on Vulkan the view itself (no copy), on
/// the CPU the same elements gathered into a dense tensor.
template <std::size_t D>
std::pair<Tensor<VB, D>, Tensor<CB, D>> view_of(const std::vector<float>& storage,
                                                const Shape& shape, const Strides& strides,
                                                std::int64_t offset) {
    auto base = Tensor<VB, 1>::from_data(TensorData(storage, Shape{storage.size()}));
    vk::VulkanTensor p = base.into_primitive();
    p.shape = shape;
    p.strides = strides;
    p.offset = offset;
    std::vector<float> dense(shape.num_elements());
    std::vector<std::size_t> idx(D, 0);
    for (std::size_t i = 0; i < dense.size(); ++i) {
        std::int64_t pos = offset;
        for (std::size_t d = 0; d < D; ++d) pos += static_cast<std::int64_t>(idx[d]) * strides[d];
        dense[i] = storage[static_cast<std::size_t>(pos)];
        for (std::size_t d = D; d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
    return {Tensor<VB, D>(std::move(p)),
            Tensor<CB, D>::from_data(TensorData(std::move(dense), shape))};
}

/// Vulkan matmul through the kernel entry point (Tensor::matmul's quantized path needs the
/// quantization family's dequantize, not linked in yet).
template <std::size_t D, class K>
Tensor<VB, D, K> vmm(const Tensor<VB, D, K>& a, const Tensor<VB, D, K>& b) {
    return Tensor<VB, D, K>(vk::Kernels::matmul(a.primitive(), b.primitive()));
}

std::vector<float> random_vec(std::size_t n, std::uint64_t seed) {
    const auto d = vk_random(Shape{n}, -1.0f, 1.0f, seed);
    return std::vector<float>(d.as_span<float>().begin(), d.as_span<float>().end());
}

template <std::size_t D>
void check_matmul(const Shape& sa, const Shape& sb, std::uint64_t seed) {
    auto [a, ac] = both<D>(vk_random(sa, -1.0f, 1.0f, seed));
    auto [b, bc] = both<D>(vk_random(sb, -1.0f, 1.0f, seed + 100));
    expect_same(vmm(a, b), ac.matmul(bc), Tolerance{1e-4, 1e-4});
}

}  // namespace

TEST(VulkanMatmul, SquareAndRectangular) {
    BURN_REQUIRE_VULKAN();
    check_matmul<2>(Shape{64, 64}, Shape{64, 64}, 1);
    check_matmul<2>(Shape{1, 1}, Shape{1, 1}, 2);
    check_matmul<2>(Shape{3, 5}, Shape{5, 7}, 3);
    check_matmul<2>(Shape{65, 17}, Shape{17, 63}, 4);
    check_matmul<2>(Shape{130, 200}, Shape{200, 97}, 5);
    check_matmul<2>(Shape{1, 300}, Shape{300, 129}, 6);    // row vector
    check_matmul<2>(Shape{129, 300}, Shape{300, 1}, 7);    // column vector
    check_matmul<2>(Shape{16, 1000}, Shape{1000, 16}, 8);  // long k
    check_matmul<2>(Shape{256, 33}, Shape{33, 256}, 9);
    // Every tile shape of choose_tile: m <= 16, m <= 32, n <= 16, n <= 32, general, large.
    check_matmul<2>(Shape{520, 70}, Shape{70, 600}, 21);
    check_matmul<2>(Shape{13, 77}, Shape{77, 300}, 16);
    check_matmul<2>(Shape{29, 50}, Shape{50, 131}, 17);
    check_matmul<2>(Shape{300, 45}, Shape{45, 9}, 18);
    check_matmul<2>(Shape{150, 64}, Shape{64, 30}, 19);
    check_matmul<2>(Shape{200, 129}, Shape{129, 190}, 20);
}

TEST(VulkanMatmul, BatchedAndBroadcast) {
    BURN_REQUIRE_VULKAN();
    check_matmul<3>(Shape{4, 33, 21}, Shape{4, 21, 70}, 11);
    check_matmul<3>(Shape{5, 40, 8}, Shape{1, 8, 66}, 12);  // shared right operand (Linear)
    check_matmul<3>(Shape{1, 70, 9}, Shape{3, 9, 5}, 13);   // shared left operand
    check_matmul<4>(Shape{2, 1, 19, 30}, Shape{1, 3, 30, 17}, 14);
    check_matmul<4>(Shape{2, 3, 1, 7}, Shape{2, 3, 7, 1}, 15);
}

TEST(VulkanMatmul, StridedOperands) {
    BURN_REQUIRE_VULKAN();
    // A^T: storage [k, m] read as [m, k]; B^T likewise; both with an offset.
    const std::size_t m = 70, k = 45, n = 33;
    const auto sa = random_vec(m * k + 3, 21), sb = random_vec(k * n + 5, 22);
    auto [at, atc] = view_of<2>(sa, Shape{m, k}, Strides{1, static_cast<std::int64_t>(m)}, 3);
    auto [bt, btc] = view_of<2>(sb, Shape{k, n}, Strides{1, static_cast<std::int64_t>(k)}, 5);
    expect_same(vmm(at, bt), atc.matmul(btc), Tolerance{1e-4, 1e-4});
    // Flipped rows (negative stride) and a gap between rows.
    const auto sf = random_vec(m * (k + 4), 23);
    auto [af, afc] = view_of<2>(sf, Shape{m, k}, Strides{-static_cast<std::int64_t>(k + 4), 1},
                                static_cast<std::int64_t>((m - 1) * (k + 4)));
    auto [b, bc] = both<2>(vk_random(Shape{k, n}, -1.0f, 1.0f, 24));
    expect_same(vmm(af, b), afc.matmul(bc), Tolerance{1e-4, 1e-4});
    // An expanded batch dim (stride 0) on a 3-d operand, and a transposed one in each batch.
    const auto sx = random_vec(m * k, 25);
    auto [ax, axc] = view_of<3>(sx, Shape{3, m, k}, Strides{0, static_cast<std::int64_t>(k), 1}, 0);
    const auto sy = random_vec(3 * k * n, 26);
    auto [by, byc] =
        view_of<3>(sy, Shape{3, k, n},
                   Strides{static_cast<std::int64_t>(k * n), 1, static_cast<std::int64_t>(k)}, 0);
    expect_same(vmm(ax, by), axc.matmul(byc), Tolerance{1e-4, 1e-4});
}

TEST(VulkanMatmul, Vec4PathLayoutsAndEdges) {
    BURN_REQUIRE_VULKAN();
    // The vec4 kernel (m, n, k multiples of 4, 16-byte aligned rows or columns): each operand
    // row-major or transposed, sizes off the 64 and 128 tiles, k off the 16-deep steps, offsets.
    const std::int64_t off_a = 8, off_b = 4;
    for (const auto [m, k, n] :
         {std::array<std::size_t, 3>{4, 4, 4}, std::array<std::size_t, 3>{68, 36, 132},
          std::array<std::size_t, 3>{260, 20, 300}, std::array<std::size_t, 3>{256, 256, 256}}) {
        const auto sa = random_vec(m * k + off_a, 31 + m), sb = random_vec(k * n + off_b, 32 + n);
        const auto mi = static_cast<std::int64_t>(m), ki = static_cast<std::int64_t>(k),
                   ni = static_cast<std::int64_t>(n);
        for (const bool ta : {false, true}) {
            for (const bool tb : {false, true}) {
                SCOPED_TRACE(::testing::Message()
                             << m << "x" << k << "x" << n << " ta=" << ta << " tb=" << tb);
                auto [a, ac] =
                    view_of<2>(sa, Shape{m, k}, ta ? Strides{1, mi} : Strides{ki, 1}, off_a);
                auto [b, bc] =
                    view_of<2>(sb, Shape{k, n}, tb ? Strides{1, ki} : Strides{ni, 1}, off_b);
                expect_same(vmm(a, b), ac.matmul(bc), Tolerance{1e-4, 1e-4});
            }
        }
    }
    // Batched with a broadcast (stride 0) batch dim and a transposed right operand per batch.
    const auto sx = random_vec(3 * 64 * 32, 41), sy = random_vec(32 * 96, 42);
    auto [x, xc] = view_of<3>(sx, Shape{3, 64, 32}, Strides{64 * 32, 32, 1}, 0);
    auto [y, yc] = view_of<3>(sy, Shape{3, 32, 96}, Strides{0, 1, 32}, 0);
    expect_same(vmm(x, y), xc.matmul(yc), Tolerance{1e-4, 1e-4});
    // An offset that is not a multiple of 4 takes the general kernel, with the same values.
    auto [u, uc] = view_of<2>(sx, Shape{64, 32}, Strides{32, 1}, 3);
    auto [v, vc] = both<2>(vk_random(Shape{32, 64}, -1.0f, 1.0f, 43));
    expect_same(vmm(u, v), uc.matmul(vc), Tolerance{1e-4, 1e-4});
}

TEST(VulkanMatmul, IntsEmptyAndZeroK) {
    BURN_REQUIRE_VULKAN();
    const auto ai = TensorData::from_nested<std::int32_t, 2>({{1, -2, 3}, {4, 5, -6}});
    const auto bi = TensorData::from_nested<std::int32_t, 2>({{7, 8}, {-9, 10}, {11, 12}});
    auto a = Tensor<VB, 2, Int>::from_data(ai);
    auto b = Tensor<VB, 2, Int>::from_data(bi);
    // Int matmul is not in the tensor API: the kernel entry point directly.
    const Tensor<VB, 2, Int> prod(vk::Kernels::matmul(a.primitive(), b.primitive()));
    EXPECT_EQ(prod.to_data(), (TensorData::from_nested<std::int32_t, 2>({{58, 24}, {-83, 10}})));
    // k = 0: zeros; m = 0: empty.
    auto [z1, z1c] = both<2>(TensorData(std::vector<float>{}, Shape{3, 0}));
    auto [z2, z2c] = both<2>(TensorData(std::vector<float>{}, Shape{0, 4}));
    expect_same(vmm(z1, z2), z1c.matmul(z2c));
    auto [e1, e1c] = both<2>(TensorData(std::vector<float>{}, Shape{0, 2}));
    auto [e2, e2c] = both<2>(vk_random(Shape{2, 5}));
    expect_same(vmm(e1, e2), e1c.matmul(e2c));
}

TEST(VulkanMatmul, Errors) {
    BURN_REQUIRE_VULKAN();
    // Shapes that do not multiply: the Tensor layer's errors, the same on both backends.
    auto [a, ac] = both<2>(vk_random(Shape{3, 4}));
    const TensorData b = vk_random(Shape{5, 6});
    expect_same_error(
        a, ac, [&](auto t) { return t.matmul(decltype(t)::from_data(b)); },
        "Tensor::matmul: inner dims of [3, 4] and [5, 6] do not match");
    auto [c, cc] = both<3>(vk_random(Shape{2, 3, 4}));
    const TensorData d = vk_random(Shape{3, 4, 2});
    expect_same_error(
        c, cc, [&](auto t) { return t.matmul(decltype(t)::from_data(d)); },
        "Tensor::matmul: batch dims of [2, 3, 4] and [3, 4, 2] cannot be broadcast");
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// Batched matrix product over the last two dims, broadcasting the batch dims (the CPU backend's
// matmul.cpp semantics), on a shared-memory block-tiled kernel (kernels/vulkan/matmul_tile.glsl,
// matmul_body.glsl).
//
// Operands are read in place through their TensorMetas (any strides: transposed, broadcast,
// flipped, offset views are never copied); broadcast batch dims get stride 0.
//
// Two kernels:
// - matmul_vec4_f32.comp, the fast path for f32 operands whose rows or columns are dense and
//   16-byte aligned (row-major or transposed views; m, n, k multiples of 4): vec4 loads, 8 x 8
//   register tiles as 2 x 2 vec4 blocks, double-buffered shared tiles. Tiles of 64 x 128 (or 64
//   x 64 for small products), BK = 16; BURN_VULKAN_MATMUL_TILE=BMxBNxBK overrides them (tuning).
// - matmul_<dtype>.comp (matmul_tile.glsl), the general one: any strides, any sizes, i32 too.
//   One workgroup computes a BM x BN block of one batch's C, stepping over k in BK-deep tiles
//   staged in shared memory; each thread accumulates a TM x TN register tile (choose_tile in
//   ops_matmul.hpp). The implicit-GEMM convolutions share its loop.
#include "ops_matmul.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "ops_common.hpp"

namespace burn::vk {

namespace {

/// Whether a matmul operand (metas of rank r: [batch..., rows, cols]) suits the vec4 kernel: 0
/// row-major (unit column stride), 1 transposed (unit row stride), -1 neither. Every other
/// stride and the offset must be multiples of 4 elements (16-byte aligned vec4s).
int vec4_layout(const TensorMeta& mt, std::size_t r) {
    if (mt.offset % 4 != 0) return -1;
    for (std::size_t d = 0; d + 2 < r; ++d)
        if (mt.strides[d] % 4 != 0) return -1;
    const std::int32_t rs = mt.strides[r - 2], cs = mt.strides[r - 1];
    if (cs == 1 && rs % 4 == 0 && rs >= 0) return 0;
    if (rs == 1 && cs % 4 == 0 && cs >= 0) return 1;
    return -1;
}

struct Vec4Tile {
    std::uint32_t bm, bn, bk;
};

/// 64 x 128 blocks (128 threads) for large products, 64 x 64 (64 threads) otherwise; k steps
/// of 16. On an H100, 4096^2: 64 x 128 and 128 x 64 reach 37-39 TFLOP/s, 128 x 128 and 64 x 64
/// 32-33 (bench/vulkan.cpp, BM_VkMatmul). BURN_VULKAN_MATMUL_TILE=BMxBNxBK (read once; BM, BN
/// in {32, 64, 128, 256} with BM * BN / 64 <= 1024, BK a multiple of 4 such that each thread
/// loads whole vec4s) overrides it.
Vec4Tile choose_vec4_tile(std::size_t m, std::size_t n) {
    static const std::optional<Vec4Tile> forced = []() -> std::optional<Vec4Tile> {
        const char* e = std::getenv("BURN_VULKAN_MATMUL_TILE");
        if (!e || !*e) return std::nullopt;
        unsigned bm = 0, bn = 0, bk = 0;
        const auto ok_size = [](unsigned v) { return v == 32 || v == 64 || v == 128 || v == 256; };
        if (std::sscanf(e, "%ux%ux%u", &bm, &bn, &bk) == 3 && ok_size(bm) && ok_size(bn) &&
            bm * bn / 64 <= 1024 && bk >= 4 && bk <= 64 && bk % 4 == 0 &&
            (bm * bk / 4) % (bm * bn / 64) == 0 && (bn * bk / 4) % (bm * bn / 64) == 0)
            return Vec4Tile{bm, bn, bk};
        throw Error(std::string("BURN_VULKAN_MATMUL_TILE='") + e +
                    "': expected BMxBNxBK with BM, BN in {32, 64, 128, 256}, BM * BN <= 65536, "
                    "BK a multiple of 4 in [4, 64] with whole vec4 loads per thread "
                    "(e.g. 128x128x16)");
    }();
    if (forced) return *forced;
    if (m >= 256 && n >= 256) return {64, 128, 16};
    return {64, 64, 16};
}

}  // namespace

VulkanTensor Kernels::matmul(VulkanTensor lhs, VulkanTensor rhs) {
    const Shape out_shape = backend::matmul_shape(lhs.shape, rhs.shape);
    assert(lhs.dtype == rhs.dtype);
    BURN_CHECK(lhs.dtype == DType::F32 || lhs.dtype == DType::I32, "Vulkan matmul: dtype ",
               dtype_name(lhs.dtype), " is not supported (f32, i32)");
    const std::size_t r = lhs.rank();
    const std::size_t m = lhs.shape[r - 2], k = lhs.shape[r - 1], n = rhs.shape[r - 1];
    const DType dt = lhs.dtype;
    check_u32("matmul", out_shape.num_elements());
    VulkanTensor out = alloc(out_shape, dt, lhs.device);
    const std::size_t total = out_shape.num_elements();
    if (total == 0) return out;
    Context& ctx = context(lhs);
    if (k == 0) {
        ctx.fill_u32(buffer_of(out), 0u, total * 4);
        return out;
    }
    check_u32("matmul", lhs.num_elements());
    check_u32("matmul", rhs.num_elements());

    Shape as_a = out_shape, as_b = out_shape;
    as_a[r - 1] = k;
    as_b[r - 2] = k;

    const TensorMeta ma = meta_broadcast(lhs, as_a), mb = meta_broadcast(rhs, as_b);
    const Buffer metas = meta_buffer(ctx, {ma, mb});
    const auto& f = ctx.features();
    const std::size_t nb = total / (m * n);
    const std::size_t zmax = std::max<std::uint32_t>(1, f.max_workgroup_count[2]);
    const auto run = [&](const Pipeline& p, std::size_t bm, std::size_t bn) {
        const std::size_t gx = (n + bn - 1) / bn, gy = (m + bm - 1) / bm;
        BURN_CHECK(gx <= f.max_workgroup_count[0] && gy <= f.max_workgroup_count[1],
                   "Vulkan matmul: ", lhs.shape, " x ", rhs.shape,
                   " needs more workgroups than the device allows");
        for (std::size_t b0 = 0; b0 < nb; b0 += zmax) {
            const std::size_t nz = std::min(zmax, nb - b0);
            struct {
                std::uint32_t m, n, k, batch_base;
            } push{static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(n),
                   static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(b0)};
            ctx.dispatch(p, {&buffer_of(lhs), &buffer_of(rhs), &buffer_of(out), &metas}, push,
                         Groups{static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy),
                                static_cast<std::uint32_t>(nz)});
        }
    };

    const int ta = vec4_layout(ma, r), tb = vec4_layout(mb, r);
    if (dt == DType::F32 && ta >= 0 && tb >= 0 && m % 4 == 0 && n % 4 == 0 && k % 4 == 0) {
        const Vec4Tile t = choose_vec4_tile(m, n);
        const auto& p =
            ctx.pipeline({.shader = "matmul_vec4_f32",
                          .spec = {t.bm * t.bn / 64, t.bm, t.bn, t.bk,
                                   static_cast<std::uint32_t>(ta), static_cast<std::uint32_t>(tb)},
                          .bindings = 4,
                          .push_bytes = 16});
        run(p, t.bm, t.bn);
        return out;
    }
    const TileConfig t = choose_tile(m, n);
    const std::string shader = std::string("matmul_") + dtype_suffix(dt);
    run(ctx.pipeline({.shader = shader, .spec = t.spec(), .bindings = 4, .push_bytes = 16}), t.bm,
        t.bn);
    return out;
}

}  // namespace burn::vk

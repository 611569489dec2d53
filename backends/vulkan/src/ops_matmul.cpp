// SPDX-License-Identifier: MIT OR Apache-2.0
// Batched matrix product over the last two dims, broadcasting the batch dims (the CPU backend's
// matmul.cpp semantics), on a shared-memory block-tiled kernel (kernels/vulkan/matmul_tile.glsl,
// matmul_body.glsl).
//
// Operands are read in place through their TensorMetas (any strides: transposed, broadcast,
// flipped, offset views are never copied); broadcast batch dims get stride 0. One workgroup
// computes a BM x BN block of one batch's C, stepping over k in BK-deep tiles staged in shared
// memory; each of its (BM / TM) * (BN / TN) threads accumulates a TM x TN register tile. The tile
// sizes are specialization constants (choose_tile in ops_matmul.hpp), so tuning per device (e.g.
// 128 x 128 with 8 x 8 register tiles and vectorised shared loads on an H100) needs no shader
// change. Optimisation opportunities (not done yet): vec4 global loads for dense operands, double
// buffering of the shared tiles, larger tiles for big products, split-k for small m*n with long k,
// a cooperative-matrix (tensor core) path where VK_KHR_cooperative_matrix exists.
#include <algorithm>
#include <climits>

#include "ops_common.hpp"
#include "ops_matmul.hpp"

namespace burn::vk {

VulkanTensor matmul(VulkanTensor lhs, VulkanTensor rhs) {
    const std::size_t r = lhs.rank();
    BURN_CHECK(r >= 2 && rhs.rank() == r,
               "Vulkan matmul: both operands need the same rank >= 2, got ", lhs.shape, " and ",
               rhs.shape);
    BURN_CHECK(lhs.dtype == rhs.dtype, "Vulkan matmul: dtypes differ (", dtype_name(lhs.dtype),
               " and ", dtype_name(rhs.dtype), ")");
    BURN_CHECK(lhs.dtype == DType::F32 || lhs.dtype == DType::I32, "Vulkan matmul: dtype ",
               dtype_name(lhs.dtype), " is not supported (f32, i32)");
    const std::size_t m = lhs.shape[r - 2], k = lhs.shape[r - 1], n = rhs.shape[r - 1];
    BURN_CHECK(rhs.shape[r - 2] == k, "Vulkan matmul: inner dims differ: ", lhs.shape, " x ",
               rhs.shape);
    Shape out_shape = lhs.shape;
    for (std::size_t i = 0; i + 2 < r; ++i) {
        const std::size_t a = lhs.shape[i], b = rhs.shape[i];
        BURN_CHECK(a == b || a == 1 || b == 1, "Vulkan matmul: batch dims of ", lhs.shape, " and ",
                   rhs.shape, " cannot be broadcast (dim ", i, ": ", a, " vs ", b, ")");
        out_shape[i] = a == 1 ? b : a;
    }
    out_shape[r - 1] = n;
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
    const Buffer metas = meta_buffer(ctx, {meta_broadcast(lhs, as_a), meta_broadcast(rhs, as_b)});

    const TileConfig t = choose_tile(m, n);
    const std::string shader = std::string("matmul_") + dtype_suffix(dt);
    const auto& p =
        ctx.pipeline({.shader = shader, .spec = t.spec(), .bindings = 4, .push_bytes = 16});
    const auto& f = ctx.features();
    const std::size_t gx = (n + t.bn - 1) / t.bn, gy = (m + t.bm - 1) / t.bm;
    BURN_CHECK(gx <= f.max_workgroup_count[0] && gy <= f.max_workgroup_count[1],
               "Vulkan matmul: ", lhs.shape, " x ", rhs.shape,
               " needs more workgroups than the device allows");
    const std::size_t nb = total / (m * n);
    const std::size_t zmax = std::max<std::uint32_t>(1, f.max_workgroup_count[2]);
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
    return out;
}

}  // namespace burn::vk

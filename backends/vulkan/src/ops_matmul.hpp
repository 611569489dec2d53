// SPDX-License-Identifier: MIT OR Apache-2.0
// The tile configurations of the block-tiled GEMM loop (kernels/vulkan/matmul_tile.glsl), shared
// by matmul (ops_matmul.cpp) and the implicit-GEMM convolutions (ops_conv.cpp). Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace burn::vk {

struct TileConfig {
    std::uint32_t bm, bn, bk, tm, tn;
    std::uint32_t threads() const { return (bm / tm) * (bn / tn); }
    /// Specialization constants 0-5 of matmul_tile.glsl.
    std::vector<std::uint32_t> spec() const { return {threads(), bm, bn, bk, tm, tn}; }
};

/// 256-thread tiles for a product of m rows and n columns: 128 x 128 (8 x 8 per thread, 16 KiB
/// of shared memory) for large products, 64 x 64 (4 x 4) in general, thinner ones when m or n is
/// small (few output channels, matrix-vector-like products), so that fewer threads compute
/// padding. Not tuned yet (measure on the target GPU: the tile sizes are specialization
/// constants, no shader change is needed).
inline TileConfig choose_tile(std::size_t m, std::size_t n) {
    if (m >= 512 && n >= 512) return {128, 128, 16, 8, 8};
    if (m <= 16) return {16, 128, 16, 1, 8};
    if (m <= 32) return {32, 64, 16, 2, 4};
    if (n <= 16) return {128, 16, 16, 8, 1};
    if (n <= 32) return {64, 32, 16, 4, 2};
    return {64, 64, 16, 4, 4};
}

}  // namespace burn::vk

// SPDX-License-Identifier: MIT OR Apache-2.0
// Integer batched matrix product (i32, i64) for Kernels::matmul; floats go to cuBLASLt
// (backends/cuda/src/ops_matmul.cpp). Operands are read in place through their strides: a batch
// Meta (the output's batch dims, broadcast dims with stride 0) plus row and column strides, so
// transposed, broadcast, flipped and offset views are never copied. Products and sums wrap
// around on overflow (two's complement), as the CPU backend's Eigen GEMM does in practice.
//
// One 16 x 16 block computes a 32 x 32 tile of one batch's output (2 x 2 elements a thread),
// stepping over k in tiles of 16 staged in shared memory. Row tiles and batches are walked with
// grid-stride loops (gridDim.y and gridDim.z are capped at 65535).
#include "common.cuh"

#define BURN_MM_TILE 32
#define BURN_MM_KT 16

template <class T, class U>
__device__ void matmul_int(const T* __restrict__ a, Meta a_batch, i64 a_rs, i64 a_cs,
                           const T* __restrict__ b, Meta b_batch, i64 b_rs, i64 b_cs,
                           T* __restrict__ out, i64 nb, i64 m, i64 n, i64 k) {
    __shared__ U as[BURN_MM_TILE][BURN_MM_KT + 1];
    __shared__ U bs[BURN_MM_KT][BURN_MM_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * 16 + tx;
    const i64 tiles_m = (m + BURN_MM_TILE - 1) / BURN_MM_TILE;
    const i64 col0 = (i64)blockIdx.x * BURN_MM_TILE;
    for (i64 z = blockIdx.z; z < nb; z += gridDim.z) {
        const T* ab = a + strided_offset(a_batch, z);
        const T* bb = b + strided_offset(b_batch, z);
        T* ob = out + z * m * n;
        for (i64 tm = blockIdx.y; tm < tiles_m; tm += gridDim.y) {
            const i64 row0 = tm * BURN_MM_TILE;
            U acc00 = 0, acc01 = 0, acc10 = 0, acc11 = 0;
            for (i64 k0 = 0; k0 < k; k0 += BURN_MM_KT) {
                // A tile: 32 rows x 16 k (512 values, two a thread).
                for (int e = tid; e < BURN_MM_TILE * BURN_MM_KT; e += 256) {
                    const int r = e / BURN_MM_KT, c = e % BURN_MM_KT;
                    const i64 gr = row0 + r, gc = k0 + c;
                    as[r][c] = (gr < m && gc < k) ? (U)ab[gr * a_rs + gc * a_cs] : (U)0;
                }
                // B tile: 16 k x 32 columns.
                for (int e = tid; e < BURN_MM_KT * BURN_MM_TILE; e += 256) {
                    const int r = e / BURN_MM_TILE, c = e % BURN_MM_TILE;
                    const i64 gr = k0 + r, gc = col0 + c;
                    bs[r][c] = (gr < k && gc < n) ? (U)bb[gr * b_rs + gc * b_cs] : (U)0;
                }
                __syncthreads();
#pragma unroll
                for (int kk = 0; kk < BURN_MM_KT; ++kk) {
                    const U a0 = as[ty][kk], a1 = as[ty + 16][kk];
                    const U b0 = bs[kk][tx], b1 = bs[kk][tx + 16];
                    acc00 += a0 * b0;
                    acc01 += a0 * b1;
                    acc10 += a1 * b0;
                    acc11 += a1 * b1;
                }
                __syncthreads();
            }
            const i64 r0 = row0 + ty, r1 = row0 + ty + 16, c0 = col0 + tx, c1 = col0 + tx + 16;
            if (r0 < m && c0 < n) ob[r0 * n + c0] = (T)acc00;
            if (r0 < m && c1 < n) ob[r0 * n + c1] = (T)acc01;
            if (r1 < m && c0 < n) ob[r1 * n + c0] = (T)acc10;
            if (r1 < m && c1 < n) ob[r1 * n + c1] = (T)acc11;
        }
    }
}

#define BURN_MATMUL_INT(T, U, SFX)                                                           \
    extern "C" __global__ void __launch_bounds__(256)                                        \
        matmul_##SFX(const T* a, Meta a_batch, i64 a_rs, i64 a_cs, const T* b, Meta b_batch, \
                     i64 b_rs, i64 b_cs, T* out, i64 nb, i64 m, i64 n, i64 k) {              \
        matmul_int<T, U>(a, a_batch, a_rs, a_cs, b, b_batch, b_rs, b_cs, out, nb, m, n, k);  \
    }

BURN_MATMUL_INT(i32, u32, i32)
BURN_MATMUL_INT(i64, u64, i64)

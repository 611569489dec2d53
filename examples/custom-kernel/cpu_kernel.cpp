// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU kernel of FusedOps<burn::Cpu<F, I>>: relu(lhs @ rhs + bias) in one pass over the output.
//
// The product is computed tile by tile: a tile of MR output rows x NR output columns is
// accumulated in a small local array over the whole inner dim (the compiler keeps it in vector
// registers and vectorises the column loop), then the epilogue adds the bias and applies the ReLU
// while storing the tile. Every output element is written exactly once, and no intermediate
// tensor (the product, the sum) is ever allocated: that is what fusing buys.
//
// Layout: lhs and rhs are made contiguous first (a no-op for dense tensors; a copy for views such
// as a transposed rhs), so the loops read rows at unit stride. The bias is read through its
// strides, with stride 0 along broadcast dims, so a [1, 1, n] bias is never expanded in memory.
//
// This is a teaching kernel: one thread, the compiler's vectorisation (examples/CMakeLists.txt
// gives this program the backend kernels' -march=${BURN_CPU_ARCH}), no packing. It keeps up with
// the reference at moderate sizes because the reference's matmul, add and ReLU each pass over
// memory; for large products the backend's matmul (OpenBLAS, split over the cores by TBB) wins.
// A production kernel would pack panels of rhs, use a register-tiled micro-kernel written for the
// target's SIMD width and split the (batch, row tile) pairs over threads.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fused_ops.hpp"

namespace fused {

namespace {

using burn::cpu::CpuTensor;

// The tile: MR rows x NR columns, chosen by measuring on the development machine (AMD EPYC Zen 4,
// g++ 12 -O3, one thread, 8 x 128^3): with -march=native (the default preset), f32 8 x 32 runs at
// ~105 GFLOP/s (4 x 32: ~80) and f64 4 x 32 at ~45 (8 x 32 spills registers: ~20); with the
// baseline x86-64 (SSE2), f32 4 x 32 gives ~30 and 8 x 32 ~25. NR must stay above 16: with 16
// or fewer columns GCC unrolled the column loop completely and kept the accumulators in memory
// (5-10 GFLOP/s).
template <class F>
constexpr std::size_t MR = sizeof(F) == 4 ? 8 : 4;
constexpr std::size_t NR = 32;

/// The strides of a rank-3 view, in elements, with 0 along dims of size 1 (broadcast).
struct Strides3 {
    std::int64_t s0, s1, s2;
};
Strides3 broadcast_strides(const CpuTensor& t) {
    auto s = [&](std::size_t d) { return t.shape[d] == 1 ? std::int64_t{0} : t.strides[d]; };
    return {s(0), s(1), s(2)};
}

/// One output tile: rows [i0, i0 + mr) and columns [j0, j0 + nr) of one batch's product, then the
/// bias and ReLU epilogue. `Full` tiles have compile-time bounds (mr == MR<F>, nr == NR), so the
/// compiler unrolls the row loop and vectorises the column loop; edge tiles use the same code
/// with run-time bounds.
template <class F, bool Full>
inline void tile(const F* a, const F* b, F* c, const F* bias, Strides3 bs, std::size_t k,
                 std::size_t n, std::size_t i0, std::size_t j0, std::size_t mr, std::size_t nr) {
    if constexpr (Full) {
        mr = MR<F>;
        nr = NR;
    }
    F acc[MR<F>][NR] = {};
    for (std::size_t p = 0; p < k; ++p) {
        const F* __restrict brow = b + p * n + j0;  // row p of rhs, from column j0
        for (std::size_t r = 0; r < mr; ++r) {
            const F av = a[(i0 + r) * k + p];
            for (std::size_t j = 0; j < nr; ++j) acc[r][j] += av * brow[j];
        }
    }
    // Epilogue: + bias, ReLU, one store per output element.
    for (std::size_t r = 0; r < mr; ++r) {
        F* __restrict crow = c + (i0 + r) * n + j0;
        const F* brow = bias + static_cast<std::int64_t>(i0 + r) * bs.s1 +
                        static_cast<std::int64_t>(j0) * bs.s2;
        if (bs.s2 == 1) {
            for (std::size_t j = 0; j < nr; ++j) crow[j] = std::max(acc[r][j] + brow[j], F(0));
        } else {
            for (std::size_t j = 0; j < nr; ++j)
                crow[j] = std::max(acc[r][j] + brow[static_cast<std::int64_t>(j) * bs.s2], F(0));
        }
    }
}

template <class F>
void run(const CpuTensor& lhs, const CpuTensor& rhs, const CpuTensor& bias, CpuTensor& out) {
    const std::size_t batch = out.shape[0], m = out.shape[1], n = out.shape[2], k = lhs.shape[2];
    const std::size_t lhs_batch_stride = lhs.shape[0] == 1 ? 0 : m * k;
    const std::size_t rhs_batch_stride = rhs.shape[0] == 1 ? 0 : k * n;
    const Strides3 bs = broadcast_strides(bias);
    const F* A = lhs.data<F>();
    const F* Bm = rhs.data<F>();
    const F* bias0 = bias.data<F>();
    F* C = out.data<F>();

    for (std::size_t bi = 0; bi < batch; ++bi) {
        const F* a = A + bi * lhs_batch_stride;
        const F* b = Bm + bi * rhs_batch_stride;
        F* c = C + bi * m * n;
        const F* bias_b = bias0 + static_cast<std::int64_t>(bi) * bs.s0;
        // Column panels outside, row tiles inside: the k x NR panel of rhs stays in L1 while
        // every row tile of lhs streams past it.
        for (std::size_t j0 = 0; j0 < n; j0 += NR) {
            const std::size_t nr = std::min(NR, n - j0);
            for (std::size_t i0 = 0; i0 < m; i0 += MR<F>) {
                const std::size_t mr = std::min(MR<F>, m - i0);
                if (mr == MR<F> && nr == NR)
                    tile<F, true>(a, b, c, bias_b, bs, k, n, i0, j0, mr, nr);
                else tile<F, false>(a, b, c, bias_b, bs, k, n, i0, j0, mr, nr);
            }
        }
    }
}

}  // namespace

CpuTensor cpu_fused_matmul_add_relu(CpuTensor lhs, CpuTensor rhs, const CpuTensor& bias) {
    const burn::DType dtype = lhs.dtype;
    BURN_CHECK(rhs.dtype == dtype && bias.dtype == dtype,
               "fused_matmul_add_relu (cpu): the operands have different dtypes");
    BURN_CHECK(dtype == burn::DType::F32 || dtype == burn::DType::F64,
               "fused_matmul_add_relu (cpu): expected f32 or f64 tensors, got ", dtype);
    const burn::Shape shape = fused_output_shape(lhs.shape, rhs.shape, bias.shape);

    lhs = burn::cpu::Kernels::contiguous(std::move(lhs));
    rhs = burn::cpu::Kernels::contiguous(std::move(rhs));
    CpuTensor out = burn::cpu::Kernels::empty(shape, dtype, burn::CpuDevice{});
    if (shape.num_elements() == 0) return out;
    if (dtype == burn::DType::F32) run<float>(lhs, rhs, bias, out);
    else run<double>(lhs, rhs, bias, out);
    return out;
}

}  // namespace fused

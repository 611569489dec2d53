// SPDX-License-Identifier: MIT OR Apache-2.0
// Batched matrix product over the last two dims, broadcasting the batch dims.
//
// Floats (F32/F64) go to OpenBLAS (cblas_sgemm / cblas_dgemm); ints to Eigen's GEMM on mapped
// row-major matrices. An operand whose last two dims are row-major or column-major dense (any
// leading dimension) is passed as it is, with CblasTrans for column-major (a transposed view is
// never copied); any other layout (broadcast or flipped rows/cols, gaps in the inner dim) is made
// contiguous first, after collapsing its broadcast batch dims so they are not materialised.
// A right operand shared by every batch (e.g. [b, m, k] x [1, k, n], a Linear layer) is folded with
// the left one into a single [b*m, k] x [k, n] product when the left matrices are stacked rows.
//
// THREADING: one thread pool at a time. OpenBLAS is set to one thread (openblas_set_num_threads(1),
// once) and the work is split with TBB, the pool every other kernel uses: the batch x (row or
// column blocks) pieces are distributed with parallel_for in the kernels' arena; a single big
// product is cut into as many row (or column) blocks as the arena has threads
// (burn::num_threads(), threads.cpp), each an independent single-threaded GEMM. Products too small
// to split run on the calling thread, also with one BLAS thread: none is worth OpenBLAS's own
// threads, which would oversubscribe the cores with the TBB workers still spinning.
// Measured on the 2-core AMD EPYC (Zen 4, AVX-512, KVM) development machine, in GFLOP/s: two
// runs where two figures are given, each the median of >= 1.5 s of calls (OpenBLAS 0.3.21
// pthread, Eigen 3.4, g++ 12 -O3 -march=native; the FMA peak of the 2 cores is ~221). "OpenBLAS
// threads" is one cblas call from the calling thread with OpenBLAS's own 2 threads (batched: one
// call per matrix, in turn):
//
//   case                      TBB blocks   OpenBLAS   OpenBLAS,  Eigen, 1 call
//                             (shipped)    threads    1 thread   (1 thread)
//   f32 256x256x256            201 / 188   133 / 139     103        69 / 69
//   f32 512                    207 / 199   159 / 162     103        87 / 86
//   f32 1024                   201 / 197   204 / 177     101        83 / 82
//   f32 2048                   203 / 199   203 / 193     102        83 / 82
//   f32 [32,128,128]^2         190 / 189    76 /  75      94        81 / 77
//
// Large single products tie; small and batched ones favour TBB. The decisive case is a matmul
// followed by TBB work (512^3 product, then exp over 4M floats): with OpenBLAS threads the pair
// took 14.4 / 10.2 ms against 8.1 ms for the two alone (OpenBLAS's idle threads spin and take the
// cores from TBB's), with TBB blocks 8.4 / 8.5 ms against 8.2 / 8.3 ms. Eigen's GEMM is 1.2-1.5x
// slower than OpenBLAS's on one thread, so floats stay on OpenBLAS.
// Build with -DBURN_MATMUL_OPENBLAS_THREADS to get the "OpenBLAS threads" variant back and
// re-measure (bench/ has the cases).
#include <cblas.h>

#include <Eigen/Core>
#include <algorithm>
#include <cctype>
#include <climits>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

/// How a rows x cols matrix with element strides (rs, cs) can be handed to a GEMM.
struct MatLayout {
    bool ok = false;      ///< dense row- or column-major
    bool trans = false;   ///< column-major: pass CblasTrans
    std::int64_t ld = 0;  ///< leading dimension, as BLAS wants it (row-major convention)
};

MatLayout blas_layout(std::size_t rows, std::size_t cols, std::int64_t rs, std::int64_t cs) {
    const auto r = static_cast<std::int64_t>(rows), c = static_cast<std::int64_t>(cols);
    if ((cs == 1 || c <= 1) && (r <= 1 || rs >= std::max<std::int64_t>(1, c)))
        return {true, false, r <= 1 ? std::max<std::int64_t>(1, c) : rs};
    if ((rs == 1 || r <= 1) && (c <= 1 || cs >= std::max<std::int64_t>(1, r)))
        return {true, true, c <= 1 ? std::max<std::int64_t>(1, r) : cs};
    return {};
}

/// One operand, ready for the batch loop.
struct Operand {
    const std::byte* base = nullptr;  // buffer start (offsets below are in elements)
    MatLayout layout;
    std::vector<std::int64_t> offsets;  // element offset of each output batch's matrix
};

/// Collapses broadcast (stride 0) batch dims to size 1, so contiguous() does not expand them.
CpuTensor collapse_broadcast_batch(CpuTensor t) {
    for (std::size_t i = 0; i + 2 < t.rank(); ++i)
        if (t.strides[i] == 0) t.shape[i] = 1;
    return t;
}

/// Lays out `t` (rank r, matrices rows x cols) for a GEMM and computes its per-batch offsets
/// against the output batch shape `out_batch` (the first r-2 dims of the output).
Operand prepare(CpuTensor& t, const Shape& out_batch, bool allow_strided) {
    const std::size_t r = t.rank();
    const std::size_t rows = t.shape[r - 2], cols = t.shape[r - 1];
    MatLayout lay = blas_layout(rows, cols, t.strides[r - 2], t.strides[r - 1]);
    if (!lay.ok || !allow_strided) {
        t = contiguous(collapse_broadcast_batch(std::move(t)));
        lay = blas_layout(rows, cols, t.strides[r - 2], t.strides[r - 1]);
    }
    Operand op;
    op.base = t.buffer->data();
    op.layout = lay;
    const std::size_t nb = out_batch.num_elements();
    op.offsets.resize(nb);
    // Odometer over the batch dims.
    std::array<std::size_t, Shape::max_rank> idx{};
    std::int64_t off = t.offset;
    for (std::size_t b = 0; b < nb; ++b) {
        op.offsets[b] = off;
        for (std::size_t d = out_batch.rank(); d-- > 0;) {
            const std::int64_t s = t.shape[d] == 1 ? 0 : t.strides[d];
            if (++idx[d] < out_batch[d]) {
                off += s;
                break;
            }
            off -= s * static_cast<std::int64_t>(idx[d] - 1);
            idx[d] = 0;
        }
    }
    return op;
}

/// Number of threads of the kernels' arena (burn::num_threads()).
std::size_t tbb_threads() { return num_threads(); }

// ------------------------------------------------------------------ floats: OpenBLAS
// OpenBLAS (DYNAMIC_ARCH) picks its kernels from the CPU model when it loads. A CPU newer than the
// OpenBLAS build knows gets its generic SSE3 kernels ("Prescott"): Debian bookworm's 0.3.21 on a
// virtualised Xeon of CPU model 207 ran SGEMM at 75 GFLOP/s on 2 cores, against 250 with
// OPENBLAS_CORETYPE=SkylakeX. When the kernels were built for AVX2 + FMA or better and OpenBLAS
// chose such an SSE-only core, Eigen's GEMM (compiled with the kernels' -march) does the float
// products instead: 1.2-1.5x slower than a matching OpenBLAS core, several times faster than
// these. OPENBLAS_CORETYPE=<core> set before the program starts makes OpenBLAS use that core.
bool openblas_core_is_generic() {
#if defined(__AVX2__) && defined(__FMA__)
    static const bool generic = [] {
        const char* name = openblas_get_corename();
        std::string core = name ? name : "";
        std::transform(core.begin(), core.end(), core.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        for (const char* sse_only : {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom",
                                     "katmai", "coppermine", "northwood", "banias", "opteron",
                                     "opteron_sse3", "barcelona", "bobcat"})
            if (core == sse_only) return true;
        return false;
    }();
    return generic;
#else
    return false;
#endif
}

/// C = A B (+ beta C) with Eigen, for the same row-major operands as cblas_?gemm.
template <class E>
void eigen_gemm(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, const E* a,
                std::size_t lda, const E* b, std::size_t ldb, E beta, E* c, std::size_t ldc) {
    using Mat = Eigen::Matrix<E, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using In = Eigen::Map<const Mat, 0, Eigen::OuterStride<>>;
    using Out = Eigen::Map<Mat, 0, Eigen::OuterStride<>>;
    const auto em = static_cast<Eigen::Index>(m), en = static_cast<Eigen::Index>(n),
               ek = static_cast<Eigen::Index>(k);
    Out cm(c, em, en, Eigen::OuterStride<>(static_cast<Eigen::Index>(ldc)));
    const auto product = [&](const auto& lhs, const auto& rhs) {
        if (beta == E(0)) {
            cm.noalias() = lhs * rhs;
        } else {
            cm *= beta;
            cm.noalias() += lhs * rhs;
        }
    };
    const In am = ta ? In(a, ek, em, Eigen::OuterStride<>(static_cast<Eigen::Index>(lda)))
                     : In(a, em, ek, Eigen::OuterStride<>(static_cast<Eigen::Index>(lda)));
    const In bm = tb ? In(b, en, ek, Eigen::OuterStride<>(static_cast<Eigen::Index>(ldb)))
                     : In(b, ek, en, Eigen::OuterStride<>(static_cast<Eigen::Index>(ldb)));
    if (!ta && !tb) product(am, bm);
    else if (ta && !tb) product(am.transpose(), bm);
    else if (!ta && tb) product(am, bm.transpose());
    else product(am.transpose(), bm.transpose());
}

void blas_gemm(bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b,
               int ldb, float* c, int ldc) {
    if (openblas_core_is_generic())
        return eigen_gemm<float>(ta, tb, std::size_t(m), std::size_t(n), std::size_t(k), a,
                                 std::size_t(lda), b, std::size_t(ldb), 0.0f, c, std::size_t(ldc));
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
                k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}
void blas_gemm(bool ta, bool tb, int m, int n, int k, const double* a, int lda, const double* b,
               int ldb, double* c, int ldc) {
    if (openblas_core_is_generic())
        return eigen_gemm<double>(ta, tb, std::size_t(m), std::size_t(n), std::size_t(k), a,
                                  std::size_t(lda), b, std::size_t(ldb), 0.0, c, std::size_t(ldc));
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
                k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
}

void init_blas_threads() {
#ifndef BURN_MATMUL_OPENBLAS_THREADS
    static std::once_flag once;
    std::call_once(once, [] { openblas_set_num_threads(1); });
#endif
}

/// Rows (or columns) per block: a multiple of 16 (the SGEMM kernels' register tile).
std::size_t block_of(std::size_t len, std::size_t parts) {
    const std::size_t b = (len + parts - 1) / parts;
    return std::min(len, (b + 15) / 16 * 16);
}

/// Products with at most this many rows (after batch folding) are matrix-vector products: one
/// streaming pass over B does it, and BLAS's packing (or its small-matrix kernel, which stays on
/// one thread) is slower. A Linear layer on a single image (the MNIST guide's inference latency:
/// [1, 1024] x [1024, 512]) is the case: B (2 MiB) comes from L3 and the column blocks run on
/// every thread.
constexpr std::size_t kGemvMaxRows = 4;
/// Most columns per block of gemv_rows (accumulators: 2 KiB per f32 row, in L1). Long blocks
/// read B's rows as long contiguous runs: on one Zen 4 core, [1, 1024] x [1024, 512] took 24 us
/// with 512-column blocks, 30 us with 128 (B from L3 at ~85 GB/s, as cblas_sgemv).
constexpr std::size_t kGemvCols = 512;

/// C [m, n] = A [m, k] (row-major, lda) * B [k, n] (row-major, ldb), m <= kGemvMaxRows: for each
/// block of columns, the rows of B are streamed once, four at a time, into register/L1
/// accumulators.
template <class E>
void gemv_rows(std::size_t m, std::size_t n, std::size_t k, const E* a, std::size_t lda, const E* b,
               std::size_t ldb, E* c, std::size_t ldc) {
    // Parallel when B is worth streaming from several cores (>= 128 KiB): one block per thread.
    const bool parallel = k * n * sizeof(E) >= (std::size_t{128} << 10) && tbb_threads() > 1;
    const std::size_t parts = parallel ? tbb_threads() : 1;
    const std::size_t share = ((n + parts - 1) / parts + 15) / 16 * 16;  // multiple of 16
    const std::size_t width = std::min(kGemvCols, std::max<std::size_t>(16, share));
    const std::size_t blocks = (n + width - 1) / width;
    auto block = [&](std::size_t blk) {
        const std::size_t j0 = blk * width, nj = std::min(width, n - j0);
        alignas(64) E acc[kGemvMaxRows][kGemvCols];
        for (std::size_t i = 0; i < m; ++i) std::fill(acc[i], acc[i] + nj, E(0));
        std::size_t r = 0;
        for (; r + 4 <= k; r += 4) {
            const E* __restrict b0 = b + r * ldb + j0;
            const E* __restrict b1 = b0 + ldb;
            const E* __restrict b2 = b1 + ldb;
            const E* __restrict b3 = b2 + ldb;
            for (std::size_t i = 0; i < m; ++i) {
                const E a0 = a[i * lda + r], a1 = a[i * lda + r + 1], a2 = a[i * lda + r + 2],
                        a3 = a[i * lda + r + 3];
                E* __restrict ac = acc[i];
                for (std::size_t j = 0; j < nj; ++j)
                    ac[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
            }
        }
        for (; r < k; ++r) {
            const E* __restrict br = b + r * ldb + j0;
            for (std::size_t i = 0; i < m; ++i) {
                const E av = a[i * lda + r];
                E* __restrict ac = acc[i];
                for (std::size_t j = 0; j < nj; ++j) ac[j] += av * br[j];
            }
        }
        for (std::size_t i = 0; i < m; ++i) std::copy(acc[i], acc[i] + nj, c + i * ldc + j0);
    };
    if (parallel && blocks > 1) {
        parallel_for(blocks, 1, [&](std::size_t b0, std::size_t b1) {
            for (std::size_t blk = b0; blk < b1; ++blk) block(blk);
        });
    } else {
        for (std::size_t blk = 0; blk < blocks; ++blk) block(blk);
    }
}

template <class E>
void gemm_float(const Operand& A, const Operand& B, E* out, std::size_t nb, std::size_t m,
                std::size_t n, std::size_t k) {
    init_blas_threads();
    const bool ta = A.layout.trans, tb = B.layout.trans;
    const int lda = static_cast<int>(A.layout.ld), ldb = static_cast<int>(B.layout.ld);
    const E* a0 = reinterpret_cast<const E*>(A.base);
    const E* b0 = reinterpret_cast<const E*>(B.base);

    // Fold [nb, m, k] x shared [k, n] into one [nb*m, k] x [k, n] product.
    if (nb > 1 && !ta && std::all_of(B.offsets.begin(), B.offsets.end(), [&](std::int64_t o) {
            return o == B.offsets[0];
        })) {
        bool stacked = true;
        const auto step = static_cast<std::int64_t>(m) * A.layout.ld;
        for (std::size_t i = 0; i < nb && stacked; ++i)
            stacked = A.offsets[i] == A.offsets[0] + static_cast<std::int64_t>(i) * step;
        if (stacked && nb * m <= static_cast<std::size_t>(INT_MAX)) {
            m *= nb;
            nb = 1;
        }
    }

    if (nb == 1 && m <= kGemvMaxRows && !ta && !tb) {
        gemv_rows<E>(m, n, k, a0 + A.offsets[0], static_cast<std::size_t>(lda), b0 + B.offsets[0],
                     static_cast<std::size_t>(ldb), out, n);
        return;
    }

#ifdef BURN_MATMUL_OPENBLAS_THREADS
    for (std::size_t bi = 0; bi < nb; ++bi)
        blas_gemm(ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                  a0 + A.offsets[bi], lda, b0 + B.offsets[bi], ldb, out + bi * m * n,
                  static_cast<int>(n));
#else
    // Split each product into `splits` row (or column) blocks so that the pieces fill the
    // threads evenly: nb * splits is a multiple of the thread count.
    const double flops =
        2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    const std::size_t threads = tbb_threads();
    constexpr double kMinTaskFlops = 4.0e6;  // below this a piece is not worth a task
    std::size_t splits = 1;
    if (threads > 1 && flops * static_cast<double>(nb) >= 2 * kMinTaskFlops)
        splits = threads / std::gcd(nb, threads);
    const bool by_rows = m >= n;
    const std::size_t len = by_rows ? m : n;
    const std::size_t blk = block_of(len, splits);
    splits = blk == 0 ? 1 : (len + blk - 1) / blk;
    auto piece = [&](std::size_t p) {
        const std::size_t bi = p / splits, s = p % splits;
        const std::size_t lo = s * blk, hi = std::min(len, lo + blk);
        if (lo >= hi) return;
        const E* a = a0 + A.offsets[bi];
        const E* b = b0 + B.offsets[bi];
        E* c = out + bi * m * n;
        if (by_rows) {  // C[lo:hi, :] = A[lo:hi, :] B
            a += ta ? static_cast<std::int64_t>(lo) : static_cast<std::int64_t>(lo) * lda;
            c += lo * n;
            blas_gemm(ta, tb, static_cast<int>(hi - lo), static_cast<int>(n), static_cast<int>(k),
                      a, lda, b, ldb, c, static_cast<int>(n));
        } else {  // C[:, lo:hi] = A B[:, lo:hi]
            b += tb ? static_cast<std::int64_t>(lo) * ldb : static_cast<std::int64_t>(lo);
            c += lo;
            blas_gemm(ta, tb, static_cast<int>(m), static_cast<int>(hi - lo), static_cast<int>(k),
                      a, lda, b, ldb, c, static_cast<int>(n));
        }
    };
    const std::size_t pieces = nb * splits;
    const double piece_flops = flops / static_cast<double>(splits);
    if (pieces == 1 || threads == 1 ||
        piece_flops * static_cast<double>(pieces) < 2 * kMinTaskFlops) {
        for (std::size_t p = 0; p < pieces; ++p) piece(p);
        return;
    }
    const auto grain = static_cast<std::size_t>(std::max(1.0, kMinTaskFlops / piece_flops));
    parallel_for(pieces, grain, [&](std::size_t p0, std::size_t p1) {
        for (std::size_t p = p0; p < p1; ++p) piece(p);
    });
#endif
}

// ------------------------------------------------------------------ ints: Eigen
template <class E>
void gemm_int(const Operand& A, const Operand& B, E* out, std::size_t nb, std::size_t m,
              std::size_t n, std::size_t k) {
    using Mat = Eigen::Matrix<E, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Strided = Eigen::Map<const Mat, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
    const auto em = static_cast<Eigen::Index>(m), en = static_cast<Eigen::Index>(n),
               ek = static_cast<Eigen::Index>(k);
    // Row-major map: outer stride = row stride, inner = column stride.
    auto strides = [](const MatLayout& l) {
        return l.trans ? Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(1, l.ld)
                       : Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(l.ld, 1);
    };
    const auto sa = strides(A.layout), sb = strides(B.layout);
    const E* a0 = reinterpret_cast<const E*>(A.base);
    const E* b0 = reinterpret_cast<const E*>(B.base);
    const double flops = 2.0 * static_cast<double>(m * n * k);
    const auto grain = static_cast<std::size_t>(std::max(1.0, 1.0e6 / std::max(flops, 1.0)));
    parallel_for(nb, grain, [&](std::size_t b_begin, std::size_t b_end) {
        for (std::size_t bi = b_begin; bi < b_end; ++bi) {
            Strided a(a0 + A.offsets[bi], em, ek, sa);
            Strided b(b0 + B.offsets[bi], ek, en, sb);
            Eigen::Map<Mat> c(out + bi * m * n, em, en);
            c.noalias() = a * b;
        }
    });
}

}  // namespace

void gemm(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, const float* a,
          std::size_t lda, const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc) {
    init_blas_threads();
    if (openblas_core_is_generic())
        return eigen_gemm<float>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
                static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

void gemm(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, const double* a,
          std::size_t lda, const double* b, std::size_t ldb, double beta, double* c,
          std::size_t ldc) {
    init_blas_threads();
    if (openblas_core_is_generic())
        return eigen_gemm<double>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0, a,
                static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

CpuTensor Kernels::matmul(CpuTensor lhs, CpuTensor rhs) {
    const Shape out_shape = backend::matmul_shape(lhs.shape, rhs.shape);
    assert(lhs.dtype == rhs.dtype && lhs.dtype != DType::Bool);
    const std::size_t r = lhs.rank();
    const std::size_t m = lhs.shape[r - 2], k = lhs.shape[r - 1], n = rhs.shape[r - 1];
    const DType dt = lhs.dtype;
    if (out_shape.num_elements() == 0) return alloc(out_shape, dt);
    if (k == 0) return cpu::full(out_shape, ScalarArg::of(std::int64_t{0}), dt);
    BURN_CHECK(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, "matmul: dims of ", lhs.shape, " x ",
               rhs.shape, " exceed the BLAS limit of 2^31 - 1");

    Shape batch;
    batch.resize(r - 2);
    for (std::size_t i = 0; i + 2 < r; ++i) batch[i] = out_shape[i];
    const std::size_t nb = batch.num_elements();

    // Leading dims must fit an int for BLAS; negative or huge strides take the contiguous path.
    auto fits = [&](const CpuTensor& t) {
        return t.strides[r - 2] >= 0 && t.strides[r - 1] >= 0 && t.strides[r - 2] <= INT_MAX &&
               t.strides[r - 1] <= INT_MAX;
    };
    const bool la = fits(lhs), lb = fits(rhs);
    const Operand A = prepare(lhs, batch, la);
    const Operand B = prepare(rhs, batch, lb);

    CpuTensor out = alloc(out_shape, dt);
    dispatch(dt, [&](auto e) {
        using E = decltype(e);
        if constexpr (std::is_floating_point_v<E>) gemm_float<E>(A, B, out.data<E>(), nb, m, n, k);
        else gemm_int<E>(A, B, out.data<E>(), nb, m, n, k);
    });
    return out;
}

}  // namespace burn::cpu

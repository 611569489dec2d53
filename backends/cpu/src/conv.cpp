// SPDX-License-Identifier: MIT OR Apache-2.0
// Convolutions over 1 to 3 spatial dims and their backward kernels, as im2col / col2im + GEMM.
//
// Every op here is one of three cores on a "conv geometry" (input [B, Cin, I...], weight
// [Cout, Cin / G, K...], output [B, Cout, O...], spatial dims padded to 3 with leading 1s):
//   forward_core   out   = W * im2col(in)                 conv, conv_transpose x-backward
//   input_core     in'   = col2im(W^T * out')             conv x-backward, conv_transpose
//   weight_core    W'    = sum_b out' * im2col(in)^T      conv / conv_transpose weight-backward
// A transposed convolution is the input-gradient of the convolution whose weight has its layout,
// so its three ops map onto the same cores with input and output swapped.
//
// Work split (oneTBB): forward and weight cores cut each image's output columns into blocks whose
// im2col panel stays in L2 (kPanelBytes), so batch-1 inference uses every core too; the weight
// core accumulates partial sums over a fixed number of chunks of those blocks, added in chunk
// order (deterministic). The input core splits over channel blocks, whose col2im writes never
// overlap; for stride 1 and one group with few input channels the input gradient is instead a
// forward convolution of the padded gradient by the flipped weight (input_by_full_conv). GEMMs
// are single-threaded OpenBLAS calls (cpu::gemm), except in the forward with few output channels
// (the MNIST guide's 8 and 16): there register-tiled kernels beat BLAS, whose packing such thin
// products never amortise, and without padding (and with stride 1 along the rows) they read the
// input directly, with no im2col (forward_implicit).
// A 1x1 kernel with stride 1 and no padding skips im2col too: the input is its own panel.
// 3x3 kernels with stride 1 and enough channels and outputs run as Winograd F(2x2, 3x3)
// (conv_winograd.cpp). When a forward has fewer (image x column block) items than threads
// (batch-1 inference on small feature maps: ResNet-18's last stage has one 7x7 item), the panels
// are made first and each product is cut into blocks of output channels over the threads.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

/// L2-sized im2col panels: measured best between 256 KiB and 1 MiB on the dev machine (1 MiB L2).
constexpr std::size_t kPanelBytes = 512 * 1024;

/// The geometry of a convolution (burn/backend/shapes.hpp) and the sizes its kernels use.
struct Geo : backend::ConvGeometry {
    Geo() = default;
    Geo(const backend::ConvGeometry& g) : backend::ConvGeometry(g) {}  // NOLINT(*-explicit-*)

    std::size_t cg() const { return cin / groups; }   // input channels per group
    std::size_t og() const { return cout / groups; }  // output channels per group
    std::size_t kernel() const { return static_cast<std::size_t>(k[0] * k[1] * k[2]); }
    std::size_t rows() const { return cg() * kernel(); }  // im2col rows = weight row length
    std::size_t in_plane() const { return static_cast<std::size_t>(in[0] * in[1] * in[2]); }
    std::size_t out_plane() const { return static_cast<std::size_t>(out[0] * out[1] * out[2]); }
    /// 1x1 kernel, stride 1, no padding: im2col is the identity.
    bool pointwise() const {
        for (int i = 0; i < 3; ++i)
            if (k[i] != 1 || s[i] != 1 || p[i] != 0) return false;
        return true;
    }
};

/// Visits the im2col panel of one group's input x [cg, I...] for output columns [l0, l1): for
/// every panel row and every run of columns sharing (od, oh), calls
///   f(row, dst_col, n, src_row_or_null, iw0, sw)
/// where src_row is the input row (null when the row is in the padding) and column j of the run
/// reads src_row[iw0 + j * sw] when that index is inside [0, I_w).
template <class E, class F>
void for_each_run(const Geo& g, const E* x, std::size_t l0, std::size_t l1, F&& f) {
    const std::int64_t OH = g.out[1], OW = g.out[2];
    const std::int64_t ID = g.in[0], IH = g.in[1], IW = g.in[2];
    std::size_t row = 0;
    for (std::size_t c = 0; c < g.cg(); ++c) {
        const E* xc = x + c * g.in_plane();
        for (std::int64_t kd = 0; kd < g.k[0]; ++kd)
            for (std::int64_t kh = 0; kh < g.k[1]; ++kh)
                for (std::int64_t kw = 0; kw < g.k[2]; ++kw, ++row) {
                    // Walk the columns run by run; (od, oh, ow) advance without divisions.
                    const auto li0 = static_cast<std::int64_t>(l0);
                    std::int64_t od = li0 / (OH * OW), oh = (li0 / OW) % OH, ow = li0 % OW;
                    std::size_t l = l0;
                    while (l < l1) {
                        const std::size_t n =
                            std::min<std::size_t>(l1 - l, static_cast<std::size_t>(OW - ow));
                        const std::int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
                        const std::int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
                        const bool inside = id >= 0 && id < ID && ih >= 0 && ih < IH;
                        const E* src = inside ? xc + (id * IH + ih) * IW : nullptr;
                        f(row, l - l0, n, src, ow * g.s[2] - g.p[2] + kw * g.d[2], g.s[2]);
                        l += n;
                        ow = 0;
                        if (++oh == OH) oh = 0, ++od;
                    }
                }
    }
}

/// Valid j range [j0, j1) of a run: iw0 + j * sw inside [0, iw).
inline void valid_range(std::int64_t iw0, std::int64_t sw, std::size_t n, std::int64_t iw,
                        std::size_t& j0, std::size_t& j1) {
    const std::int64_t lo = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;
    const std::int64_t hi = iw0 >= iw ? 0 : (iw - iw0 + sw - 1) / sw;
    j0 = static_cast<std::size_t>(std::min<std::int64_t>(lo, static_cast<std::int64_t>(n)));
    j1 = static_cast<std::size_t>(
        std::clamp<std::int64_t>(hi, static_cast<std::int64_t>(j0), static_cast<std::int64_t>(n)));
}

/// d[0, n) = s[0, n) in 64-byte moves, the last one ending at n (overlapping the one before):
/// the rows of the MNIST guide's panels are 24 or 26 floats, where a generic copy loop spends
/// more on its prologue and remainder than on the data.
template <class E>
inline void copy_span(E* __restrict d, const E* __restrict s, std::size_t n) {
    constexpr std::size_t W = 64 / sizeof(E);
    if (n < W) {
        for (std::size_t j = 0; j < n; ++j) d[j] = s[j];
        return;
    }
    std::size_t j = 0;
    for (; j + W <= n; j += W) std::memcpy(d + j, s + j, 64);
    if (j < n) std::memcpy(d + n - W, s + n - W, 64);
}

/// im2col without padding, stride 1 along the rows, for blocks of whole output rows: every run
/// is one plain copy, with no bounds logic (the MNIST guide's convolutions).
template <class E>
bool im2col_dense_rows(const Geo& g, const E* x, std::size_t l0, std::size_t l1, E* cols) {
    const std::int64_t OH = g.out[1], OW = g.out[2];
    const auto L = static_cast<std::int64_t>(g.out_plane());
    const auto b0 = static_cast<std::int64_t>(l0), b1 = static_cast<std::int64_t>(l1);
    if (g.p[0] | g.p[1] | g.p[2] || g.s[2] != 1 || b0 % OW != 0 || (b1 % OW != 0 && b1 != L))
        return false;
    const std::int64_t IH = g.in[1], IW = g.in[2];
    const std::size_t nb = l1 - l0;
    E* __restrict dst = cols;
    for (std::size_t c = 0; c < g.cg(); ++c) {
        const E* xc = x + c * g.in_plane();
        for (std::int64_t kd = 0; kd < g.k[0]; ++kd)
            for (std::int64_t kh = 0; kh < g.k[1]; ++kh)
                for (std::int64_t kw = 0; kw < g.k[2]; ++kw) {
                    E* __restrict d = dst;
                    for (std::int64_t row = b0 / OW; row < b1 / OW; ++row) {
                        const std::int64_t od = row / OH, oh = row % OH;
                        const E* __restrict src =
                            xc +
                            ((od * g.s[0] + kd * g.d[0]) * IH + oh * g.s[1] + kh * g.d[1]) * IW +
                            kw * g.d[2];
                        copy_span(d, src, static_cast<std::size_t>(OW));
                        d += OW;
                    }
                    dst += nb;
                }
    }
    return true;
}

/// d[j] = s[2 j] for j < n (stride-2 convolutions' im2col rows), reading s[0, 2 n - 1) only: a
/// vector of the even lanes of two loads at a time (GCC vectors; the scalar loop stays scalar).
template <class E>
void gather_even(const E* __restrict s, E* __restrict d, std::size_t n) {
    constexpr std::size_t W = 64 / sizeof(E);
    typedef E V __attribute__((vector_size(64)));
    using I = std::conditional_t<sizeof(E) == 4, std::int32_t, std::int64_t>;
    typedef I M __attribute__((vector_size(64)));
    const M even = [] {
        M m{};
        for (std::size_t i = 0; i < W; ++i) m[i] = static_cast<I>(2 * i);
        return m;
    }();
    std::size_t j = 0;
    for (; j + W < n; j += W) {  // reads s[2 j, 2 j + 2 W) with 2 j + 2 W <= 2 n - 2
        V a, b;
        std::memcpy(&a, s + 2 * j, sizeof(V));
        std::memcpy(&b, s + 2 * j + W, sizeof(V));
        const V e = __builtin_shuffle(a, b, even);
        std::memcpy(d + j, &e, sizeof(V));
    }
    for (; j < n; ++j) d[j] = s[2 * j];
}

/// Writes the im2col panel [rows, l1 - l0] of x (one group) into `cols`.
template <class E>
void im2col(const Geo& g, const E* x, std::size_t l0, std::size_t l1, E* cols) {
    if (im2col_dense_rows(g, x, l0, l1, cols)) return;
    const std::size_t nb = l1 - l0;
    const std::int64_t IW = g.in[2];
    for_each_run(g, x, l0, l1,
                 [&](std::size_t row, std::size_t col, std::size_t n, const E* src,
                     std::int64_t iw0, std::int64_t sw) {
                     E* __restrict dst = cols + row * nb + col;
                     if (!src) {
                         for (std::size_t j = 0; j < n; ++j) dst[j] = E(0);
                         return;
                     }
                     std::size_t j0, j1;
                     valid_range(iw0, sw, n, IW, j0, j1);
                     for (std::size_t j = 0; j < j0; ++j) dst[j] = E(0);
                     if (sw == 1) {
                         const E* __restrict s0 = src + iw0;
                         for (std::size_t j = j0; j < j1; ++j) dst[j] = s0[j];
                     } else if (sw == 2) {
                         gather_even(src + iw0 + 2 * static_cast<std::int64_t>(j0), dst + j0,
                                     j1 - j0);
                     } else {
                         for (std::size_t j = j0; j < j1; ++j)
                             dst[j] = src[iw0 + static_cast<std::int64_t>(j) * sw];
                     }
                     for (std::size_t j = j1; j < n; ++j) dst[j] = E(0);
                 });
}

/// Adds `cols`, the panel rows of the group's channels [c0, c1) ([(c1 - c0) * K, L], all
/// columns), back into x [cg, I...].
template <class E>
void col2im(const Geo& g, const E* cols, std::size_t c0, std::size_t c1, E* x) {
    const std::size_t L = g.out_plane();
    const std::int64_t IW = g.in[2];
    Geo sub = g;
    sub.cin = (c1 - c0) * g.groups;  // cg() == c1 - c0
    // for_each_run computes rows from 0 for channel c0 and reads x relative to channel c0.
    E* xc0 = x + c0 * g.in_plane();
    for_each_run(sub, static_cast<const E*>(xc0), 0, L,
                 [&](std::size_t row, std::size_t col, std::size_t n, const E* src,
                     std::int64_t iw0, std::int64_t sw) {
                     if (!src) return;
                     E* dst = const_cast<E*>(src);
                     const E* c = cols + row * L + col;
                     std::size_t j0, j1;
                     valid_range(iw0, sw, n, IW, j0, j1);
                     if (sw == 1) {
                         E* d = dst + iw0;
                         for (std::size_t j = j0; j < j1; ++j) d[j] += c[j];
                     } else {
                         for (std::size_t j = j0; j < j1; ++j)
                             dst[iw0 + static_cast<std::int64_t>(j) * sw] += c[j];
                     }
                 });
}

/// Reusable per-thread scratch; distinct slots for buffers that are live at the same time.
template <class E, int Slot = 0>
E* scratch(std::size_t n) {
    thread_local std::vector<E> buf;
    if (buf.size() < n) buf.resize(n);
    return buf.data();
}

/// C[i][j0 + v*W + t] (row stride ldc) = bias[i] + sum_r a[i*lda + r] * brow[r][j0 + v*W + t]
/// for MR rows and NV vectors of VB bytes (W elements each).
/// Without AVX-512 there are 16 vector registers of 32 bytes: a tile of 8 rows x 128 bytes would
/// need 32 accumulators and spill (2 GFLOP/s instead of 48 for such a tile on one AVX2 core of an
/// AMD EPYC), so 64-byte tiles run as two 32-byte halves, each a whole pass over k. Every column is
/// still computed with the same operations in the same order.
#if defined(__AVX512F__)
constexpr bool kSplitWideTiles = false;
#else
constexpr bool kSplitWideTiles = true;
#endif

template <class E, std::size_t MR, std::size_t VB, std::size_t NV>
inline void row_tile(std::size_t k, const E* __restrict a, std::size_t lda,
                     const E* const* __restrict brow, std::size_t j0, const E* bias,
                     E* __restrict c, std::size_t ldc) {
    if constexpr (kSplitWideTiles && VB == 64) {
        constexpr std::size_t W = 64 / sizeof(E);
        for (std::size_t v = 0; v < NV; ++v)
            row_tile<E, MR, 32, 2>(k, a, lda, brow, j0 + v * W, bias, c, ldc);
        return;
    }
    typedef E V __attribute__((vector_size(VB)));
    constexpr std::size_t W = VB / sizeof(E);
    V acc[MR][NV];
    for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t v = 0; v < NV; ++v) acc[i][v] = V{} + (bias ? bias[i] : E(0));
    for (std::size_t r = 0; r < k; ++r) {
        V b[NV];
        for (std::size_t v = 0; v < NV; ++v) std::memcpy(&b[v], brow[r] + j0 + v * W, VB);
        for (std::size_t i = 0; i < MR; ++i) {
            const E wv = a[i * lda + r];
            for (std::size_t v = 0; v < NV; ++v) acc[i][v] += wv * b[v];
        }
    }
    for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t v = 0; v < NV; ++v) std::memcpy(c + i * ldc + j0 + v * W, &acc[i][v], VB);
}

/// C [m, n] (ldc) = A [m, k] * B, row r of B at brow[r][0, n), for products with few rows
/// (output channels): register tiles of 8 rows x 128 bytes, a zero-padded tile for the last
/// columns, row-wise axpy for the last rows. OpenBLAS pays for packing and blocking that such
/// thin products never amortise.
template <class E>
void thin_gemm_rows(std::size_t m, std::size_t n, std::size_t k, const E* a, const E* const* brow,
                    E* c, std::size_t ldc) {
    constexpr std::size_t MR = 8, NR = 128 / sizeof(E);
    const std::size_t m8 = m / MR * MR, nt = n / NR * NR;
    for (std::size_t i = 0; i < m8; i += MR)
        for (std::size_t j = 0; j < nt; j += NR)
            row_tile<E, MR, 64, 2>(k, a + i * k, k, brow, j, nullptr, c + i * ldc, ldc);
    auto axpy_rows = [&](std::size_t i0, std::size_t i1) {
        for (std::size_t i = i0; i < i1; ++i) {
            E* __restrict ci = c + i * ldc;
            std::fill(ci, ci + n, E(0));
            for (std::size_t r = 0; r < k; ++r) {
                const E w = a[i * k + r];
                const E* __restrict br = brow[r];
                for (std::size_t j = 0; j < n; ++j) ci[j] += w * br[j];
            }
        }
    };
    if (nt < n) {  // the last columns: zero-padded to a full tile, then copied out
        E* pad = scratch<E, 1>(k * NR + MR * NR);
        E* ctile = pad + k * NR;
        for (std::size_t r = 0; r < k; ++r) {
            E* pr = pad + r * NR;
            std::size_t j = 0;
            for (; j < n - nt; ++j) pr[j] = brow[r][nt + j];
            for (; j < NR; ++j) pr[j] = E(0);
        }
        const E** prow = scratch<const E*, 1>(k);
        for (std::size_t r = 0; r < k; ++r) prow[r] = pad + r * NR;
        for (std::size_t i = 0; i < m8; i += MR) {
            row_tile<E, MR, 64, 2>(k, a + i * k, k, prow, 0, nullptr, ctile, NR);
            for (std::size_t ii = 0; ii < MR; ++ii)
                std::copy(ctile + ii * NR, ctile + ii * NR + (n - nt), c + (i + ii) * ldc + nt);
        }
    }
    if (m8 < m) axpy_rows(m8, m);
}

/// Products with few output channels run faster through thin_gemm_rows than through BLAS.
bool use_thin_gemm(std::size_t m, std::size_t k) { return m <= 32 || m * k <= 128; }

/// Output columns per block for an image: L2-sized panels, and enough blocks to feed every thread.
std::size_t column_block(const Geo& g, std::size_t elem_size) {
    const std::size_t L = g.out_plane();
    const std::size_t by_cache = std::max<std::size_t>(64, kPanelBytes / (g.rows() * elem_size));
    const std::size_t images = g.batch * g.groups;
    const std::size_t threads = num_threads();
    std::size_t nb = std::min(L, by_cache);
    if (images < 2 * threads) {  // few images: cut them so that every thread has work
        const std::size_t want = (2 * threads + images - 1) / images;
        nb = std::min(nb, std::max<std::size_t>(64, (L + want - 1) / want));
    }
    // Whole output rows where possible, so that im2col_dense_rows applies.
    const auto ow = static_cast<std::size_t>(g.out[2]);
    if (nb < L && nb >= ow) nb = nb / ow * ow;
    return std::max<std::size_t>(1, std::min(nb, L));
}

/// Stride 1 along the rows, no padding, few output channels: no im2col at all. For an output
/// row (od, oh), the panel row of (c, kd, kh, kw) is a contiguous slice of the input,
/// x[c][od*sd + kd*dd][oh*sh + kh*dh][kw*dw + ow], so the product reads the input directly:
/// register tiles of 8 output channels x one row chunk (32, 16 or 8 floats), accumulated from the
/// bias and stored straight into the output.
bool implicit_ok(const Geo& g) {
    for (int i = 0; i < 3; ++i)
        if (g.p[i] != 0) return false;
    return g.s[2] == 1 && use_thin_gemm(g.og(), g.rows()) && !g.pointwise();
}

/// row_tile with the NV vectors of VB bytes at the column offsets off[0..NV) (which may overlap:
/// an overlapped column is computed twice, with the same operations in the same order, so with
/// the same value).
template <class E, std::size_t MR, std::size_t VB, std::size_t NV>
inline void row_tile_at(std::size_t k, const E* __restrict a, std::size_t lda,
                        const E* const* __restrict brow, const std::size_t (&off)[NV],
                        const E* bias, E* __restrict c, std::size_t ldc) {
    if constexpr (kSplitWideTiles && VB == 64) {  // two 32-byte halves per vector (row_tile)
        constexpr std::size_t H = 32 / sizeof(E);
        for (std::size_t v = 0; v < NV; ++v) {
            const std::size_t halves[2] = {off[v], off[v] + H};
            row_tile_at<E, MR, 32, 2>(k, a, lda, brow, halves, bias, c, ldc);
        }
        return;
    }
    typedef E V __attribute__((vector_size(VB)));
    V acc[MR][NV];
    for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t v = 0; v < NV; ++v) acc[i][v] = V{} + (bias ? bias[i] : E(0));
    for (std::size_t r = 0; r < k; ++r) {
        V b[NV];
        for (std::size_t v = 0; v < NV; ++v) std::memcpy(&b[v], brow[r] + off[v], VB);
        for (std::size_t i = 0; i < MR; ++i) {
            const E wv = a[i * lda + r];
            for (std::size_t v = 0; v < NV; ++v) acc[i][v] += wv * b[v];
        }
    }
    for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t v = 0; v < NV; ++v) std::memcpy(c + i * ldc + off[v], &acc[i][v], VB);
}

/// A tile of one 64-byte vector at j and one 32-byte vector at jh: a row of 17 to 24 floats in
/// one pass over k (the MNIST guide's conv2 rows of 24), where a 64-byte tile then a 32-byte tile
/// load each weight twice.
template <class E, std::size_t MR>
inline void row_tile_mixed(std::size_t k, const E* __restrict a, std::size_t lda,
                           const E* const* __restrict brow, std::size_t j, std::size_t jh,
                           const E* bias, E* __restrict c, std::size_t ldc) {
    if constexpr (kSplitWideTiles) {  // 96 bytes of accumulators per row would spill
        constexpr std::size_t H = 32 / sizeof(E);
        const std::size_t halves[2] = {j, j + H};
        row_tile_at<E, MR, 32, 2>(k, a, lda, brow, halves, bias, c, ldc);
        const std::size_t last[1] = {jh};
        row_tile_at<E, MR, 32, 1>(k, a, lda, brow, last, bias, c, ldc);
        return;
    }
    typedef E V __attribute__((vector_size(64)));
    typedef E Vh __attribute__((vector_size(32)));
    V acc[MR];
    Vh acch[MR];
    for (std::size_t i = 0; i < MR; ++i) {
        acc[i] = V{} + (bias ? bias[i] : E(0));
        acch[i] = Vh{} + (bias ? bias[i] : E(0));
    }
    for (std::size_t r = 0; r < k; ++r) {
        V b;
        Vh bh;
        std::memcpy(&b, brow[r] + j, 64);
        std::memcpy(&bh, brow[r] + jh, 32);
        for (std::size_t i = 0; i < MR; ++i) {
            const E wv = a[i * lda + r];
            acc[i] += wv * b;
            acch[i] += wv * bh;
        }
    }
    for (std::size_t i = 0; i < MR; ++i) {
        std::memcpy(c + i * ldc + j, &acc[i], 64);
        std::memcpy(c + i * ldc + jh, &acch[i], 32);
    }
}

/// One output row segment [0, n) for MR output channels: 128-byte tiles while more than 128
/// bytes remain, then the rest in one tile whose last vector ends at n (overlapping its
/// neighbour): two 64-byte vectors, a 64-byte and a 32-byte one, one 64-byte, two or one 32-byte
/// vectors; rows shorter than 32 bytes element by element. Measured on one Zen 4 core for 8
/// output channels and 72-long columns (conv2 of the MNIST guide), against 128-, 64-, then
/// 32-byte tiles: rows of 24 floats 81 -> 92 GFLOP/s, 26: 68 -> 82, 20: 68 -> 77, 56: 89 -> 95.
template <class E, std::size_t MR>
void row_chunks(std::size_t k, const E* a, std::size_t lda, const E* const* brow, std::size_t n,
                const E* bias, E* c, std::size_t ldc) {
    constexpr std::size_t W = 64 / sizeof(E), H = W / 2;
    std::size_t j = 0;
    for (; n - j > 2 * W; j += 2 * W) row_tile<E, MR, 64, 2>(k, a, lda, brow, j, bias, c, ldc);
    const std::size_t rem = n - j;
    if (rem > W + H) {
        const std::size_t off[2] = {j, n - W};
        row_tile_at<E, MR, 64, 2>(k, a, lda, brow, off, bias, c, ldc);
    } else if (rem > W) {
        row_tile_mixed<E, MR>(k, a, lda, brow, j, n - H, bias, c, ldc);
    } else if (rem == W) {
        const std::size_t off[1] = {j};
        row_tile_at<E, MR, 64, 1>(k, a, lda, brow, off, bias, c, ldc);
    } else if (rem > H) {
        const std::size_t off[2] = {j, n - H};
        row_tile_at<E, MR, 32, 2>(k, a, lda, brow, off, bias, c, ldc);
    } else if (n >= H) {  // (0, H]: one 32-byte vector ending at n
        const std::size_t off[1] = {n - H};
        row_tile_at<E, MR, 32, 1>(k, a, lda, brow, off, bias, c, ldc);
    } else {
        for (; j < n; ++j)
            for (std::size_t i = 0; i < MR; ++i) {
                E acc = bias ? bias[i] : E(0);
                for (std::size_t r = 0; r < k; ++r) acc += a[i * lda + r] * brow[r][j];
                c[i * ldc + j] = acc;
            }
    }
}

template <class E>
void forward_implicit(const Geo& g, const E* in, const E* w, const E* bias, E* out) {
    const std::size_t L = g.out_plane(), rows = g.rows(), og = g.og();
    const std::int64_t IH = g.in[1], IW = g.in[2], OH = g.out[1], OW = g.out[2];
    std::vector<std::int64_t> off(rows);
    for (std::size_t c = 0, r = 0; c < g.cg(); ++c)
        for (std::int64_t kd = 0; kd < g.k[0]; ++kd)
            for (std::int64_t kh = 0; kh < g.k[1]; ++kh)
                for (std::int64_t kw = 0; kw < g.k[2]; ++kw, ++r)
                    off[r] = static_cast<std::int64_t>(c * g.in_plane()) +
                             (kd * g.d[0] * IH + kh * g.d[1]) * IW + kw * g.d[2];
    // Blocks of output rows, a few per thread when there are few images.
    const std::size_t images = g.batch * g.groups, threads = num_threads();
    const auto orows = static_cast<std::size_t>(g.out[0] * OH);
    std::size_t per = orows;
    if (images < 2 * threads) per = std::max<std::size_t>(1, orows * images / (4 * threads));
    const std::size_t blocks = (orows + per - 1) / per;
    parallel_range(images * blocks, 1, [&](const auto& rg) {
        for (std::size_t it = rg.begin(); it < rg.end(); ++it) {
            const std::size_t blk = it % blocks, bg = it / blocks;
            const std::size_t b = bg / g.groups, grp = bg % g.groups;
            const E* x = in + (b * g.cin + grp * g.cg()) * g.in_plane();
            const E* wg = w + grp * og * rows;
            const E* bgrp = bias ? bias + grp * og : nullptr;
            const E** brow = scratch<const E*>(rows);
            for (std::size_t q = blk * per; q < std::min(orows, (blk + 1) * per); ++q) {
                const auto qi = static_cast<std::int64_t>(q);
                const std::int64_t od = qi / OH, oh = qi % OH;
                const std::int64_t base = (od * g.s[0] * IH + oh * g.s[1]) * IW;
                for (std::size_t r = 0; r < rows; ++r) brow[r] = x + off[r] + base;
                E* o = out + (b * g.cout + grp * og) * L + q * static_cast<std::size_t>(OW);
                const auto n = static_cast<std::size_t>(OW);
                std::size_t i = 0;
                for (; i + 8 <= og; i += 8)
                    row_chunks<E, 8>(rows, wg + i * rows, rows, brow, n, bgrp ? bgrp + i : nullptr,
                                     o + i * L, L);
                for (; i < og; ++i)
                    row_chunks<E, 1>(rows, wg + i * rows, rows, brow, n, bgrp ? bgrp + i : nullptr,
                                     o + i * L, L);
            }
        }
    });
}

/// out [B, Cout, O...] = conv(in, w) (+ bias).
template <class E>
void forward_core(const Geo& g, const E* in, const E* w, const E* bias, E* out) {
    if (implicit_ok(g)) return forward_implicit(g, in, w, bias, out);
    const std::size_t L = g.out_plane(), rows = g.rows(), og = g.og();
    const std::size_t nb = g.pointwise() ? L : column_block(g, sizeof(E));
    const std::size_t blocks = (L + nb - 1) / nb;
    const std::size_t items = g.batch * g.groups * blocks;
    const bool thin = use_thin_gemm(og, rows);
    // Item `it`: image and group `bg`, output columns [l0, l0 + n).
    auto item = [&](std::size_t it, std::size_t& bg, std::size_t& l0, std::size_t& n) {
        const std::size_t blk = it % blocks;
        bg = it / blocks;
        l0 = blk * nb;
        n = std::min(L, l0 + nb) - l0;
    };
    auto add_bias = [&](std::size_t grp, std::size_t o0, std::size_t o1, E* o, std::size_t n) {
        if (!bias) return;
        for (std::size_t i = o0; i < o1; ++i) {
            const E bv = bias[grp * og + i];
            E* oi = o + i * L;
            for (std::size_t j = 0; j < n; ++j) oi[j] += bv;
        }
    };
    const std::size_t threads = num_threads();
    if (!thin && !g.pointwise() && items < threads && og >= 64) {
        // Fewer items than threads (batch-1 inference on small feature maps): the panels first,
        // then each product cut into blocks of output channels.
        const std::size_t per =
            std::max<std::size_t>(16, (og * items + 2 * threads - 1) / (2 * threads) + 15) / 16 *
            16;
        const std::size_t oblocks = (og + per - 1) / per;
        const PoolArray<E> panels(items * rows * nb);
        parallel_range(items, 1, [&](const auto& r) {
            for (std::size_t it = r.begin(); it < r.end(); ++it) {
                std::size_t bg, l0, n;
                item(it, bg, l0, n);
                const std::size_t b = bg / g.groups, grp = bg % g.groups;
                im2col(g, in + (b * g.cin + grp * g.cg()) * g.in_plane(), l0, l0 + n,
                       panels.data() + it * rows * nb);
            }
        });
        parallel_range(items * oblocks, 1, [&](const auto& r) {
            for (std::size_t q = r.begin(); q < r.end(); ++q) {
                const std::size_t it = q / oblocks, o0 = q % oblocks * per,
                                  o1 = std::min(og, o0 + per);
                std::size_t bg, l0, n;
                item(it, bg, l0, n);
                const std::size_t b = bg / g.groups, grp = bg % g.groups;
                E* o = out + (b * g.cout + grp * og) * L + l0;
                gemm(false, false, o1 - o0, n, rows, w + (grp * og + o0) * rows, rows,
                     panels.data() + it * rows * nb, n, E(0), o + o0 * L, L);
                add_bias(grp, o0, o1, o, n);
            }
        });
        return;
    }
    parallel_range(items, 1, [&](const auto& r) {
        for (std::size_t it = r.begin(); it < r.end(); ++it) {
            std::size_t bg, l0, n;
            item(it, bg, l0, n);
            const std::size_t b = bg / g.groups, grp = bg % g.groups;
            const E* x = in + (b * g.cin + grp * g.cg()) * g.in_plane();
            const E* wg = w + grp * og * rows;
            E* o = out + (b * g.cout + grp * og) * L + l0;
            const E* panel;
            std::size_t ldb;
            if (g.pointwise()) {
                panel = x + l0;
                ldb = L;
            } else {
                E* cols = scratch<E>(rows * n);
                im2col(g, x, l0, l0 + n, cols);
                panel = cols;
                ldb = n;
            }
            if (thin) {
                const E** brow = scratch<const E*>(rows);
                for (std::size_t r = 0; r < rows; ++r) brow[r] = panel + r * ldb;
                thin_gemm_rows(og, n, rows, wg, brow, o, L);
            } else {
                gemm(false, false, og, n, rows, wg, rows, panel, ldb, E(0), o, L);
            }
            add_bias(grp, 0, og, o, n);
        }
    });
}

/// in_grad [B, Cin, I...] = col2im(W^T * out_grad).
template <class E>
void input_core(const Geo& g, const E* out_grad, const E* w, E* in_grad) {
    const std::size_t L = g.out_plane(), K = g.kernel(), rows = g.rows(), og = g.og(), cg = g.cg();
    const std::size_t images = g.batch * g.groups;
    const std::size_t threads = num_threads();
    std::size_t cblocks =
        images >= 2 * threads ? 1 : std::min(cg, (2 * threads + images - 1) / images);
    // Keep each block's panel near L2 size as well.
    cblocks = std::max(
        cblocks, std::min(cg, (rows * L * sizeof(E) + 4 * kPanelBytes - 1) / (4 * kPanelBytes)));
    const std::size_t cper = (cg + cblocks - 1) / cblocks;
    cblocks = (cg + cper - 1) / cper;
    std::memset(in_grad, 0, g.batch * g.cin * g.in_plane() * sizeof(E));
    parallel_range(images * cblocks, 1, [&](const auto& r) {
        for (std::size_t it = r.begin(); it < r.end(); ++it) {
            const std::size_t cb = it % cblocks, bg = it / cblocks;
            const std::size_t b = bg / g.groups, grp = bg % g.groups;
            const std::size_t c0 = cb * cper, c1 = std::min(cg, c0 + cper);
            const E* go = out_grad + (b * g.cout + grp * og) * L;
            const E* wg = w + grp * og * rows;
            E* x = in_grad + (b * g.cin + grp * cg) * g.in_plane();
            const std::size_t r0 = c0 * K, nr = (c1 - c0) * K;
            if (g.pointwise()) {  // in_grad rows are the panel rows
                gemm(true, false, nr, L, og, wg + r0, rows, go, L, E(0), x + c0 * L, L);
                continue;
            }
            // Panel rows [r0, r0 + nr): the channels [c0, c1) of the group.
            E* part = scratch<E>(nr * L);
            gemm(true, false, nr, L, og, wg + r0, rows, go, L, E(0), part, L);
            col2im(g, part, c0, c1, x);
        }
    });
}

/// w_grad [Cout, Cin / G, K...] = sum over the batch of out_grad * im2col(in)^T.
template <class E>
void weight_core(const Geo& g, const E* in, const E* out_grad, E* w_grad) {
    const std::size_t L = g.out_plane(), rows = g.rows(), og = g.og();
    const std::size_t total = g.cout * rows;
    const std::size_t nb = g.pointwise() ? L : column_block(g, sizeof(E));
    const std::size_t blocks = (L + nb - 1) / nb;
    const std::size_t items = g.batch * g.groups * blocks;
    // Deterministic sums: the items are cut into a fixed number of chunks (a function of the
    // sizes only, not of the threads or of the scheduling); each chunk accumulates its items in
    // order into its own partial, and the partials are added in chunk order. (Per-thread
    // partials combined in whatever order the threads came made two runs of the same seeded
    // training differ in the last bits.) At most kMaxChunks partials, and at most 64 MiB of them.
    constexpr std::size_t kMaxChunks = 16;
    const std::size_t by_memory =
        std::max<std::size_t>(1, (std::size_t{64} << 20) / (total * sizeof(E)));
    const std::size_t chunks = std::max<std::size_t>(1, std::min({items, kMaxChunks, by_memory}));
    std::vector<E> partial(chunks * total, E(0));
    parallel_range(chunks, 1, [&](const auto& r) {
        for (std::size_t ch = r.begin(); ch < r.end(); ++ch) {
            E* acc = partial.data() + ch * total;
            for (std::size_t it = ch * items / chunks; it < (ch + 1) * items / chunks; ++it) {
                const std::size_t blk = it % blocks, bg = it / blocks;
                const std::size_t b = bg / g.groups, grp = bg % g.groups;
                const std::size_t l0 = blk * nb, l1 = std::min(L, l0 + nb), n = l1 - l0;
                const E* x = in + (b * g.cin + grp * g.cg()) * g.in_plane();
                const E* go = out_grad + (b * g.cout + grp * og) * L + l0;
                E* dw = acc + grp * og * rows;
                const E* panel;
                std::size_t ldb;
                if (g.pointwise()) {
                    panel = x + l0;
                    ldb = L;
                } else {
                    E* cols = scratch<E>(rows * n);
                    im2col(g, x, l0, l1, cols);
                    panel = cols;
                    ldb = n;
                }
                gemm(false, true, og, rows, n, go, L, panel, ldb, E(1), dw, rows);
            }
        }
    });
    std::copy(partial.begin(), partial.begin() + static_cast<std::ptrdiff_t>(total), w_grad);
    for (std::size_t ch = 1; ch < chunks; ++ch) {
        const E* v = partial.data() + ch * total;
        for (std::size_t i = 0; i < total; ++i) w_grad[i] += v[i];
    }
}

/// Calls f(E{}) for the float element type of `d`; other dtypes throw, naming `op`.
template <class F>
void float_dispatch(DType d, const char* op, F&& f) {
    dispatch(d, [&](auto e) {
        if constexpr (std::is_floating_point_v<decltype(e)>) f(e);
        else detail::fail(op, ": expected a float tensor, got ", dtype_name(d));
    });
}

/// The three cores on CpuTensors (made contiguous here), dispatched on the float dtype.
CpuTensor run_forward(const Geo& g, const CpuTensor& in, const CpuTensor& w,
                      const std::optional<CpuTensor>& bias, const Shape& out_shape) {
    CpuTensor out = alloc(out_shape, in.dtype);
    if (out.num_elements() == 0) return out;
    const CpuTensor x = contiguous(in), wc = contiguous(w);
    std::optional<CpuTensor> bc;
    if (bias) bc = contiguous(*bias);
    float_dispatch(in.dtype, "conv", [&](auto e) {
        using E = decltype(e);
        const E* bias_data = bc ? bc->data<E>() : nullptr;
        if (!implicit_ok(g) && winograd_conv_applies(g)) {
            // The transformed filters are made once per weight tensor (prepared.cpp).
            const auto up =
                prepared(wc, PreparedKind::WinogradF2x3, winograd_weights_size(g) * sizeof(E),
                         [&](std::byte* d) {
                             winograd_weights<E>(g, wc.data<E>(), reinterpret_cast<E*>(d));
                         });
            winograd_conv<E>(g, x.data<E>(), reinterpret_cast<const E*>(up.get()), bias_data,
                             out.data<E>());
            return;
        }
        forward_core<E>(g, x.data<E>(), wc.data<E>(), bias_data, out.data<E>());
    });
    return out;
}

CpuTensor run_input(const Geo& g, const CpuTensor& out_grad, const CpuTensor& w,
                    const Shape& in_shape) {
    CpuTensor in_grad = alloc(in_shape, out_grad.dtype);
    if (in_grad.num_elements() == 0) return in_grad;
    const CpuTensor go = contiguous(out_grad), wc = contiguous(w);
    float_dispatch(out_grad.dtype, "conv backward", [&](auto e) {
        using E = decltype(e);
        input_core<E>(g, go.data<E>(), wc.data<E>(), in_grad.data<E>());
    });
    return in_grad;
}

CpuTensor run_weight(const Geo& g, const CpuTensor& in, const CpuTensor& out_grad,
                     const Shape& w_shape) {
    CpuTensor w_grad = alloc(w_shape, in.dtype);
    if (w_grad.num_elements() == 0) return w_grad;
    const CpuTensor x = contiguous(in), go = contiguous(out_grad);
    float_dispatch(in.dtype, "conv backward", [&](auto e) {
        using E = decltype(e);
        if (winograd_conv_applies(g))
            return winograd_weight_grad<E>(g, x.data<E>(), go.data<E>(), w_grad.data<E>());
        weight_core<E>(g, x.data<E>(), go.data<E>(), w_grad.data<E>());
    });
    return w_grad;
}

/// The x-gradient of a stride-1, one-group convolution as a forward convolution: in_grad is the
/// "full" convolution of out_grad, padded by d*(k-1) - p on both sides of every spatial dim, with
/// the weight flipped along every spatial dim and its two channel dims swapped:
///   in_grad[c][i] = sum_o sum_k go[o][i + p - d*k] w[o][c][k]
///                 = sum_o sum_k' gpad[o][i + d*k'] w[o][c][K-1-k']   (k' = K-1-k).
/// With few input channels (the MNIST guide's conv2: 8) that product runs through
/// forward_implicit, which reads the padded gradient in place: no im2col panel, no GEMM packing,
/// no col2im scatter; a 3x3 one with enough channels (ResNet's layers) runs as Winograd
/// F(2x2, 3x3), which pads by itself. Returns nullopt where neither applies (the caller then runs
/// input_core).
std::optional<CpuTensor> input_by_full_conv(const Geo& g, const CpuTensor& out_grad,
                                            const CpuTensor& w, const Shape& in_shape) {
    if (g.groups != 1 || (out_grad.dtype != DType::F32 && out_grad.dtype != DType::F64))
        return std::nullopt;
    Geo f;  // the forward convolution: gpad [B, Cout, O + 2 fp] -> in_grad [B, Cin, I]
    f.batch = g.batch;
    f.cin = g.cout;
    f.cout = g.cin;
    f.groups = 1;
    std::array<std::int64_t, 3> fp{};
    for (int i = 0; i < 3; ++i) {
        if (g.s[i] != 1) return std::nullopt;
        fp[i] = g.d[i] * (g.k[i] - 1) - g.p[i];
        if (fp[i] < 0) return std::nullopt;
        f.in[i] = g.out[i] + 2 * fp[i];
        f.out[i] = g.in[i];
        f.k[i] = g.k[i];
        f.d[i] = g.d[i];
        if (f.in[i] - f.d[i] * (f.k[i] - 1) != f.out[i]) return std::nullopt;
    }
    // The same convolution with the padding left to the kernel: a 3x3 one runs as Winograd.
    Geo fw = f;
    for (int i = 0; i < 3; ++i) {
        fw.in[i] = g.out[i];
        fw.p[i] = fp[i];
    }
    const bool winograd = winograd_conv_applies(fw);
    if (!winograd && !implicit_ok(f)) return std::nullopt;
    CpuTensor in_grad = alloc(in_shape, out_grad.dtype);
    if (in_grad.num_elements() == 0) return in_grad;
    const CpuTensor go = contiguous(out_grad), wc = contiguous(w);
    float_dispatch(out_grad.dtype, "conv backward", [&](auto e) {
        using E = decltype(e);
        const std::size_t K = g.kernel(), cin = g.cin, cout = g.cout;
        // Flipped, channel-swapped weight [Cin, Cout, K...].
        const PoolArray<E> wf(cin * cout * K);
        const E* wp = wc.data<E>();
        parallel_for(cout, std::max<std::size_t>(1, kParallelGrain / (cin * K)),
                     [&](std::size_t o0, std::size_t o1) {
                         for (std::size_t o = o0; o < o1; ++o)
                             for (std::size_t c = 0; c < cin; ++c)
                                 for (std::size_t k = 0; k < K; ++k)
                                     wf[(c * cout + o) * K + (K - 1 - k)] =
                                         wp[(o * cin + c) * K + k];
                     });
        if (winograd) {
            const PoolArray<E> up(winograd_weights_size(fw));
            winograd_weights<E>(fw, wf.data(), up.data());
            return winograd_conv<E>(fw, go.data<E>(), up.data(), nullptr, in_grad.data<E>());
        }
        // Zero-padded gradient [B, Cout, O + 2 fp].
        const std::size_t planes = g.batch * cout, pin = f.in_plane(), pout = g.out_plane();
        CpuTensor padded = alloc(Shape{planes * pin}, out_grad.dtype);
        E* gp = padded.data<E>();
        const E* gs = go.data<E>();
        const std::int64_t PH = f.in[1], PW = f.in[2];
        const std::size_t grain = std::max<std::size_t>(1, kParallelGrain / pin);
        parallel_for(planes, grain, [&](std::size_t p0, std::size_t p1) {
            for (std::size_t pl = p0; pl < p1; ++pl) {
                E* dst = gp + pl * pin;
                std::fill(dst, dst + pin, E(0));
                const E* src = gs + pl * pout;
                for (std::int64_t od = 0; od < g.out[0]; ++od)
                    for (std::int64_t oh = 0; oh < g.out[1]; ++oh) {
                        E* drow = dst + ((od + fp[0]) * PH + oh + fp[1]) * PW + fp[2];
                        const E* srow = src + (od * g.out[1] + oh) * g.out[2];
                        std::copy(srow, srow + g.out[2], drow);
                    }
            }
        });
        forward_implicit<E>(f, gp, wf.data(), nullptr, in_grad.data<E>());
    });
    return in_grad;
}

/// Adds bias[c] to every element of channel c of a [B, C, ...] dense tensor.
void add_channel_bias(CpuTensor& out, const CpuTensor& bias) {
    const CpuTensor bc = contiguous(bias);
    const std::size_t B = out.shape[0], C = out.shape[1],
                      L = out.num_elements() / std::max<std::size_t>(1, B * C);
    float_dispatch(out.dtype, "conv_transpose", [&](auto e) {
        using E = decltype(e);
        {
            E* o = out.data<E>();
            const E* bv = bc.data<E>();
            parallel_for(B * C,
                         std::max<std::size_t>(1, kParallelGrain / std::max<std::size_t>(1, L)),
                         [&](std::size_t i0, std::size_t i1) {
                             for (std::size_t i = i0; i < i1; ++i) {
                                 const E v = bv[i % C];
                                 E* row = o + i * L;
                                 for (std::size_t j = 0; j < L; ++j) row[j] += v;
                             }
                         });
        }
    });
}

}  // namespace

CpuTensor Kernels::conv(CpuTensor x, CpuTensor w, std::optional<CpuTensor> bias,
                        const SpatialArgs& a) {
    const Shape out = backend::conv_shape(x.shape, w.shape, a);
    const Geo g = backend::conv_geometry(x.shape, w.shape, out, a);
    return run_forward(g, x, w, bias, out);
}

CpuTensor Kernels::conv_x_backward(CpuTensor x, CpuTensor w, CpuTensor grad, const SpatialArgs& a) {
    const Geo g = backend::conv_geometry(x.shape, w.shape, grad.shape, a);
    if (auto r = input_by_full_conv(g, grad, w, x.shape)) return std::move(*r);
    return run_input(g, grad, w, x.shape);
}

CpuTensor Kernels::conv_weight_backward(CpuTensor x, CpuTensor w, CpuTensor grad,
                                        const SpatialArgs& a) {
    const Geo g = backend::conv_geometry(x.shape, w.shape, grad.shape, a);
    return run_weight(g, x, grad, w.shape);
}

CpuTensor Kernels::conv_bias_backward(CpuTensor grad) {
    // Sum over the batch and the spatial dims: view as [B, C, L] and reduce dims 2 then 0.
    const std::size_t B = grad.shape[0], C = grad.shape[1];
    const CpuTensor g = contiguous(std::move(grad));
    CpuTensor v = backend::reshape<Kernels>(
        g, Shape{B, C, g.num_elements() / std::max<std::size_t>(1, B * C)});
    CpuTensor s = reduce_dim(ReduceOp::Sum, reduce_dim(ReduceOp::Sum, std::move(v), 2), 0);
    return backend::reshape<Kernels>(std::move(s), Shape{C});
}

CpuTensor Kernels::conv_transpose(CpuTensor x, CpuTensor w, std::optional<CpuTensor> bias,
                                  const SpatialArgs& a) {
    // The input-gradient of the convolution (weight w) that maps the output back onto x.
    const Shape out = backend::conv_transpose_shape(x.shape, w.shape, a);
    const Geo g = backend::conv_geometry(out, w.shape, x.shape, a);
    CpuTensor y = run_input(g, x, w, out);
    if (bias && y.num_elements() > 0) add_channel_bias(y, *bias);
    return y;
}

CpuTensor Kernels::conv_transpose_x_backward(CpuTensor x, CpuTensor w, CpuTensor grad,
                                             const SpatialArgs& a) {
    const Geo g = backend::conv_geometry(grad.shape, w.shape, x.shape, a);
    return run_forward(g, grad, w, std::nullopt, x.shape);
}

CpuTensor Kernels::conv_transpose_weight_backward(CpuTensor x, CpuTensor w, CpuTensor grad,
                                                  const SpatialArgs& a) {
    const Geo g = backend::conv_geometry(grad.shape, w.shape, x.shape, a);
    return run_weight(g, grad, x, w.shape);
}

}  // namespace burn::cpu

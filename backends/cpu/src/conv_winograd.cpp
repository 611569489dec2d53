// SPDX-License-Identifier: MIT OR Apache-2.0
// 3x3 convolutions with stride 1 and dilation 1 (one group, enough channels) as Winograd
// F(2x2, 3x3) (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2016).
//
// The output is cut into 2x2 tiles; the 4x4 input tile d under each one and every 3x3 filter g
// are transformed, V = B^T d B and U = G g G^T, and the 16 positions xi of the 4x4 products are
// 16 independent matrix products over the channels,
//   M[xi] [Cout, tiles] = U[xi] [Cout, Cin] * V[xi] [Cin, tiles],
// from which each output tile is Y = A^T M A. That is 16 multiplications per 4 outputs instead of
// 36: the products, the bulk of the work, shrink 2.25x. The transforms only add, subtract and halve
// (no other constant), so the results differ from the direct sum by rounding only, as any other
// summation order does (tests/tensor compare both paths).
//
// The products run through a register-tiled kernel of this file, not BLAS: the weights are
// transformed straight into its packed layout (panels of MR output channels) and the inputs
// likewise (panels of NR tiles), so nothing is packed twice (the forward's caller, conv.cpp, keeps
// each weight tensor's transform between calls through prepared()); with 64 input channels
// (ResNet's first stage) the products are 64-deep, where OpenBLAS's per-call packing and blocking
// cost more than they save (measured: its products ran at half the rate of this kernel's there).
// The transforms are vector loops over runs of tiles on one tile row (explicit GCC vectors: the
// auto-vectoriser left them scalar).
//
// The weight gradient of the same convolutions is F(3x3, 2x2): the 3x3 weight gradient of one
// (output channel, input channel) pair is a correlation of the 4x4 input tiles with the 2x2
// output-gradient tiles, so dW = A'^T [sum over tiles of (G' g G'^T) . (B^T d B)] A', the 16
// positions' sums being matrix products over the tiles, [Cout, tiles] x [tiles, Cin] (OpenBLAS:
// they are deep). G' is F(3x3, 2x2)'s G with its last row negated, which makes its input
// transform B^T d B the forward's. The sums over the tiles never depend on the thread count:
// with few channels, fixed chunks of tiles each sum into their own partial sums, added in chunk
// order; with many (where 16 partial sums of 16 * Cout * Cin values would not fit in cache), one
// sum per position is accumulated block by block in order.
//
// Work split: tiles are processed in blocks whose transformed inputs and products (16 * (Cin +
// Cout) values per tile) stay near L2 size; blocks run in parallel, each through its three steps
// on one thread. With fewer blocks than threads (batch-1 inference on small feature maps) each
// step of a block is split over the threads instead: input transform by channel, products by
// position and channel panel, output transform by output channel. Every output is computed by
// the same operations in the same order whatever the blocks and threads (tests/tensor/
// test_threads.cpp checks bit-identical results for 1, 2 and 4 threads).
#include <algorithm>
#include <bit>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

/// Blocks of tiles: their transformed inputs and products (16 * (Cin + Cout) values per tile)
/// target this many bytes, with at least kMinBlock tiles (fewer make the products' panels of
/// transformed weights a larger share of the traffic). Measured on ResNet-18's 3x3 layers at
/// batches 1 and 16 (bench: conv2d_resnet_s*), 2 AVX-512 cores: 512 KiB - 4 MiB and 64 - 256
/// tiles within 10% of each other.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
constexpr std::size_t kMinBlock = 64;
/// The weight gradient keeps one set of partial sums (16 * Cout * Cin values) per chunk of tiles
/// where a set is at most this large, else one set summed block by block.
constexpr std::size_t kSmallSums = std::size_t{1} << 20;

/// The register tile of the products: MR output channels x NR tiles, NR two vectors of the
/// widest vector registers the build targets (AVX-512: 8 x 32 floats in 16 accumulators; AVX2:
/// 6 x 16 in 12 of its 16 registers).
#if defined(__AVX512F__)
constexpr std::size_t kVecBytes = 64, kMR = 8;
#elif defined(__AVX__)
constexpr std::size_t kVecBytes = 32, kMR = 6;
#else
constexpr std::size_t kVecBytes = 16, kMR = 4;
#endif
template <class E>
constexpr std::size_t kNR = 2 * kVecBytes / sizeof(E);

/// Up [16][ceil(K / MR)][C][MR] = G g G^T of every filter g [3][3] of w [K, C, 3, 3], packed for
/// the product kernel: for each position, the rows of MR output channels interleaved, channel by
/// channel (rows past K are zero). G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]].
template <class E>
void transform_weights(const E* w, std::size_t K, std::size_t C, E* Up) {
    // The MR output channels of a panel are the lanes of one vector (of the next power of two).
    constexpr std::size_t L = std::bit_ceil(kMR);
    typedef E Vm __attribute__((vector_size(L * sizeof(E))));
    const E h = E(0.5);
    const std::size_t KP = (K + kMR - 1) / kMR;
    parallel_for(KP, 1, [&](std::size_t p0, std::size_t p1) {
        for (std::size_t ip = p0; ip < p1; ++ip)
            for (std::size_t c = 0; c < C; ++c) {
                Vm g[9];
                for (std::size_t k = 0; k < 9; ++k) g[k] = Vm{};
                for (std::size_t ii = 0; ii < kMR && ip * kMR + ii < K; ++ii) {
                    const E* f = w + ((ip * kMR + ii) * C + c) * 9;
                    for (std::size_t k = 0; k < 9; ++k) g[k][ii] = f[k];
                }
                Vm t[4][3];  // G g
                for (int j = 0; j < 3; ++j) {
                    t[0][j] = g[j];
                    t[1][j] = (g[j] + g[3 + j] + g[6 + j]) * h;
                    t[2][j] = (g[j] - g[3 + j] + g[6 + j]) * h;
                    t[3][j] = g[6 + j];
                }
                for (std::size_t i = 0; i < 4; ++i) {
                    const Vm u[4] = {t[i][0], (t[i][0] + t[i][1] + t[i][2]) * h,
                                     (t[i][0] - t[i][1] + t[i][2]) * h, t[i][2]};
                    for (std::size_t j = 0; j < 4; ++j) {
                        E* dst = Up + (((4 * i + j) * KP + ip) * C + c) * kMR;
                        if constexpr (L == kMR) {
                            std::memcpy(dst, &u[j], sizeof(Vm));
                        } else {
                            for (std::size_t ii = 0; ii < kMR; ++ii) dst[ii] = u[j][ii];
                        }
                    }
                }
            }
    });
}

/// c [rows, NV * W] (row stride ldc) = a [k][MR] * b [k][NR] (its first NV * W columns): one
/// register tile of the products, NV = 2 vectors of tiles, or 1 for a last panel that has at
/// most half as many tiles (ResNet's 7x7 maps at batch 1: 16 tiles).
template <class E, std::size_t NV = 2>
inline void product_tile(std::size_t k, const E* __restrict a, const E* __restrict b,
                         E* __restrict c, std::size_t ldc, std::size_t rows) {
    typedef E Vec __attribute__((vector_size(kVecBytes)));
    constexpr std::size_t W = kVecBytes / sizeof(E);
    Vec acc[NV][kMR];
    for (std::size_t v = 0; v < NV; ++v)
        for (std::size_t i = 0; i < kMR; ++i) acc[v][i] = Vec{};
    for (std::size_t r = 0; r < k; ++r) {
        Vec bv[NV];
        for (std::size_t v = 0; v < NV; ++v) std::memcpy(&bv[v], b + r * 2 * W + v * W, kVecBytes);
        for (std::size_t i = 0; i < kMR; ++i) {
            const E av = a[r * kMR + i];
            for (std::size_t v = 0; v < NV; ++v) acc[v][i] += av * bv[v];
        }
    }
    // With one vector, the panel's other columns get zeros: the output transform reads a few
    // lanes past the block's last tile (and drops them), which must not be stale denormals.
    const Vec zero{};
    for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t v = 0; v < NV; ++v)
            std::memcpy(c + i * ldc + v * W, &acc[v][i], kVecBytes);
        for (std::size_t v = NV; v < 2; ++v) std::memcpy(c + i * ldc + v * W, &zero, kVecBytes);
    }
}

struct Tiles {
    std::int64_t IH, IW, OH, OW, ph, pw, TH, TW;
    std::size_t per_image() const { return static_cast<std::size_t>(TH * TW); }
};

/// Calls f(b, ty, tx0, n, j) for each run of tiles of [t0, t1) on one tile row: image b, tile
/// row ty, tiles tx0 .. tx0 + n - 1, the first at index j = t - t0 of the block.
template <class F>
void for_each_tile_run(const Tiles& tl, std::size_t t0, std::size_t t1, F&& f) {
    std::size_t t = t0;
    while (t < t1) {
        const std::size_t b = t / tl.per_image(), r = t % tl.per_image();
        const auto ty = static_cast<std::int64_t>(r) / tl.TW;
        const auto tx0 = static_cast<std::int64_t>(r) % tl.TW;
        const auto n = std::min<std::size_t>(t1 - t, static_cast<std::size_t>(tl.TW - tx0));
        f(b, ty, tx0, n, t - t0);
        t += n;
    }
}

/// Per-thread buffers of the transforms (zero-initialised once: the vector loops read a few
/// lanes past the data they use, whose results are dropped).
template <class E>
E* transform_scratch(std::size_t n) {
    thread_local std::vector<E> buf;
    if (buf.size() < n) buf.resize(n);
    return buf.data();
}

/// One vector of the widest registers the build targets, with its lane shuffles.
template <class E>
struct Simd {
    static constexpr std::size_t W = kVecBytes / sizeof(E);
    typedef E V __attribute__((vector_size(kVecBytes)));
    using I = std::conditional_t<sizeof(E) == 4, std::int32_t, std::int64_t>;
    typedef I Mask __attribute__((vector_size(kVecBytes)));
    static constexpr Mask lanes() { return mask(0, 1); }
    static V load(const E* p) {
        V v;
        std::memcpy(&v, p, kVecBytes);
        return v;
    }
    static void store(E* p, V v) { std::memcpy(p, &v, kVecBytes); }
    static constexpr Mask mask(I first, I step) {
        Mask m{};
        for (std::size_t i = 0; i < W; ++i) m[i] = first + static_cast<I>(i) * step;
        return m;
    }
    /// The even / odd lanes of the 2W values a, b.
    static V even(V a, V b) { return __builtin_shuffle(a, b, mask(0, 2)); }
    static V odd(V a, V b) { return __builtin_shuffle(a, b, mask(1, 2)); }
    /// a[0], b[0], a[1], b[1], ... : the first (lo) and second (hi) W of the 2W values.
    static constexpr Mask zip_mask(I first) {
        Mask m{};
        for (std::size_t i = 0; i < W; ++i)
            m[i] = first + static_cast<I>(i / 2) + (i % 2 ? static_cast<I>(W) : 0);
        return m;
    }
    static V zip_lo(V a, V b) { return __builtin_shuffle(a, b, zip_mask(0)); }
    static V zip_hi(V a, V b) { return __builtin_shuffle(a, b, zip_mask(static_cast<I>(W / 2))); }
};

/// Vp [16][JP][C][nr] (panels of nr tiles, channel by channel, for each position: the product
/// kernel's layout with nr = NR; with one panel of nr >= the block's tiles, plain rows
/// [16][C][nr]) = B^T d B for the channels [c0, c1) and the tiles [t0, t1) (column j = t - t0),
/// d the 4x4 input tile under output tile t (zero outside the input), with
/// B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]; nr is a multiple of the
/// vector width W. A run of n tiles on one tile row is done a whole row at a time, W tiles per
/// vector: the 4 input rows under it (2n + 2 columns, zero-padded) split into even and odd
/// columns, the row combinations s = B^T d of those, then the column combinations of s's columns
/// 2q .. 2q + 3 for each tile q.
template <class E>
void transform_input(const Tiles& tl, const E* in, std::size_t C, std::size_t t0, std::size_t t1,
                     std::size_t c0, std::size_t c1, E* Vp, std::size_t JP, std::size_t nr) {
    using S = Simd<E>;
    using V = typename S::V;
    constexpr std::size_t W = S::W;
    const std::size_t plane = static_cast<std::size_t>(tl.IH * tl.IW);
    const std::size_t xs = JP * C * nr;  // from one position's panels to the next's
    const auto maxn = static_cast<std::size_t>(tl.TW);
    // Rows of d: 2n + 2 columns rounded up to 2W; rows of s's even / odd columns: n + 1 rounded
    // up to W, plus W lanes for the loads at q + 1.
    const std::size_t dw = (2 * maxn + 2 + 2 * W - 1) / (2 * W) * (2 * W), sw = dw / 2 + 3 * W;
    E* d = transform_scratch<E>(4 * dw + 8 * sw);
    E* ev = d + 4 * dw;
    E* od = ev + 4 * sw;
    for (std::size_t c = c0; c < c1; ++c) {
        E* vc = Vp + c * nr;
        for_each_tile_run(
            tl, t0, t1,
            [&](std::size_t b, std::int64_t ty, std::int64_t tx0, std::size_t n, std::size_t j) {
                const E* x = in + (b * C + c) * plane;
                const std::size_t w = 2 * n + 2, wv = (w + 2 * W - 1) / (2 * W) * (2 * W);
                const std::int64_t xa = 2 * tx0 - tl.pw;  // input column of d's column 0
                const std::int64_t lo =
                    std::clamp<std::int64_t>(-xa, 0, static_cast<std::int64_t>(w));
                const std::int64_t hi =
                    std::clamp<std::int64_t>(tl.IW - xa, lo, static_cast<std::int64_t>(w));
                for (std::int64_t i = 0; i < 4; ++i) {
                    E* di = d + i * static_cast<std::int64_t>(dw);
                    const std::int64_t y = 2 * ty - tl.ph + i;
                    if (y < 0 || y >= tl.IH) {
                        std::fill(di, di + wv, E(0));
                        continue;
                    }
                    std::fill(di, di + lo, E(0));
                    std::copy(x + y * tl.IW + xa + lo, x + y * tl.IW + xa + hi, di + lo);
                    std::fill(di + hi, di + wv, E(0));
                }
                for (std::size_t q = 0; q < wv / 2; q += W) {
                    V e[4], o[4];
                    for (std::size_t i = 0; i < 4; ++i) {
                        const V a = S::load(d + i * dw + 2 * q),
                                bb = S::load(d + i * dw + 2 * q + W);
                        e[i] = S::even(a, bb);
                        o[i] = S::odd(a, bb);
                    }
                    S::store(ev + W + q, e[0] - e[2]);
                    S::store(ev + sw + W + q, e[1] + e[2]);
                    S::store(ev + 2 * sw + W + q, e[2] - e[1]);
                    S::store(ev + 3 * sw + W + q, e[1] - e[3]);
                    S::store(od + W + q, o[0] - o[2]);
                    S::store(od + sw + W + q, o[1] + o[2]);
                    S::store(od + 2 * sw + W + q, o[2] - o[1]);
                    S::store(od + 3 * sw + W + q, o[1] - o[3]);
                }
                // Block columns [j, j + n) in W-aligned vectors (never across a panel boundary),
                // the partial first and last ones merged into what the panel holds. ev / od hold
                // W lanes of slack before the run, for the first vector's lanes before column j.
                for (std::size_t cs = j - j % W; cs < j + n; cs += W) {
                    const std::int64_t q =
                        static_cast<std::int64_t>(cs) - static_cast<std::int64_t>(j);
                    const std::size_t lo = cs < j ? j - cs : 0, hi = std::min(W, j + n - cs);
                    E* base = vc + (cs / nr) * C * nr + cs % nr;
                    const auto sel = (S::lanes() >= static_cast<typename S::I>(lo)) &
                                     (S::lanes() < static_cast<typename S::I>(hi));
                    const bool whole = lo == 0 && hi == W;
                    for (std::size_t i = 0; i < 4; ++i) {
                        const E* ei = ev + W + i * sw + q;
                        const E* oi = od + W + i * sw + q;
                        const V e = S::load(ei), e1 = S::load(ei + 1);
                        const V o = S::load(oi), o1 = S::load(oi + 1);
                        const V v[4] = {e - e1, o + e1, e1 - o, o - o1};
                        for (std::size_t u = 0; u < 4; ++u) {
                            E* dst = base + (4 * i + u) * xs;
                            S::store(dst, whole ? v[u] : (sel ? v[u] : S::load(dst)));
                        }
                    }
                }
            });
    }
}

/// Output tiles [t0, t1), output channels [k0, k1): Y = A^T m A (+ bias) of the products
/// m[xi] = M[xi][k][t - t0] (row length ldm, K rows per position; the buffer holds W values past
/// its end), with A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]; the parts of edge tiles outside the
/// output are dropped. Like the input transform, a run of tiles on one tile row at a time, W
/// tiles per vector; the two columns of each tile are interleaved into the output rows.
template <class E>
void transform_output(const Tiles& tl, const E* M, std::size_t ldm, std::size_t K, std::size_t t0,
                      std::size_t t1, std::size_t k0, std::size_t k1, const E* bias, E* out) {
    using S = Simd<E>;
    using V = typename S::V;
    constexpr std::size_t W = S::W;
    const std::size_t plane = static_cast<std::size_t>(tl.OH * tl.OW);
    const std::size_t xs = K * ldm;
    for (std::size_t k = k0; k < k1; ++k) {
        const E bv = bias ? bias[k] : E(0);
        const E* mk = M + k * ldm;
        for_each_tile_run(
            tl, t0, t1,
            [&](std::size_t b, std::int64_t ty, std::int64_t tx0, std::size_t n, std::size_t j) {
                const E* m = mk + j;
                E* o = out + (b * K + k) * plane;
                const std::int64_t ox0 = 2 * tx0;
                const auto cols = static_cast<std::size_t>(
                    std::min<std::int64_t>(static_cast<std::int64_t>(2 * n), tl.OW - ox0));
                const bool second_row = 2 * ty + 1 < tl.OH;
                for (std::size_t q = 0; q < n; q += W) {
                    V r0[4], r1[4];  // A^T m
                    for (std::size_t c = 0; c < 4; ++c) {
                        const V m0 = S::load(m + c * xs + q), m1 = S::load(m + (4 + c) * xs + q),
                                m2 = S::load(m + (8 + c) * xs + q),
                                m3 = S::load(m + (12 + c) * xs + q);
                        r0[c] = m0 + m1 + m2;
                        r1[c] = m1 - m2 - m3;
                    }
                    const V y[2][2] = {{r0[0] + r0[1] + r0[2] + bv, r0[1] - r0[2] - r0[3] + bv},
                                       {r1[0] + r1[1] + r1[2] + bv, r1[1] - r1[2] - r1[3] + bv}};
                    const std::size_t c0 = 2 * q;  // first output column of this vector, from ox0
                    for (std::size_t i = 0; i < (second_row ? 2u : 1u); ++i) {
                        E* orow = o + (2 * ty + static_cast<std::int64_t>(i)) * tl.OW + ox0 + c0;
                        const V lo = S::zip_lo(y[i][0], y[i][1]), hi = S::zip_hi(y[i][0], y[i][1]);
                        if (c0 + 2 * W <= cols) {
                            S::store(orow, lo);
                            S::store(orow + W, hi);
                            continue;
                        }
                        for (std::size_t l = 0; c0 + l < cols && l < 2 * W; ++l)
                            orow[l] = l < W ? lo[l] : hi[l - W];
                    }
                }
            });
    }
}

/// Ug [16][K][ldg] (row j = t - t0 of the block) = G' g G'^T for the output channels [k0, k1) and
/// the tiles [t0, t1), g the 2x2 output-gradient tile t (zero outside the output), with
/// G' = [[1, 0], [1/2, 1/2], [1/2, -1/2], [0, -1]]: F(3x3, 2x2)'s G with its last row negated, so
/// that its input transform is B^T d B of transform_input. Rows are written in whole vectors:
/// ldg holds W values past the block's last tile.
template <class E>
void transform_grad(const Tiles& tl, const E* gy, std::size_t K, std::size_t t0, std::size_t t1,
                    std::size_t k0, std::size_t k1, E* Ug, std::size_t ldg) {
    using S = Simd<E>;
    using V = typename S::V;
    constexpr std::size_t W = S::W;
    const std::size_t plane = static_cast<std::size_t>(tl.OH * tl.OW);
    const std::size_t xs = K * ldg;
    const auto maxn = static_cast<std::size_t>(tl.TW);
    const std::size_t nv = (maxn + W - 1) / W * W;  // tiles per run, rounded up to W
    E* rows = transform_scratch<E>(4 * nv);  // the run's 2 gradient rows, 2 * nv columns each
    const E h = E(0.5);
    for (std::size_t k = k0; k < k1; ++k) {
        E* uk = Ug + k * ldg;
        for_each_tile_run(
            tl, t0, t1,
            [&](std::size_t b, std::int64_t ty, std::int64_t tx0, std::size_t n, std::size_t j) {
                const E* g = gy + (b * K + k) * plane;
                const std::int64_t ox0 = 2 * tx0;
                const auto cols = static_cast<std::size_t>(
                    std::min<std::int64_t>(static_cast<std::int64_t>(2 * n), tl.OW - ox0));
                const std::size_t w = (n + W - 1) / W * W * 2;
                for (std::int64_t i = 0; i < 2; ++i) {
                    E* ri = rows + i * static_cast<std::int64_t>(2 * nv);
                    const std::int64_t oy = 2 * ty + i;
                    if (oy >= tl.OH) {
                        std::fill(ri, ri + w, E(0));
                        continue;
                    }
                    std::copy(g + oy * tl.OW + ox0, g + oy * tl.OW + ox0 + cols, ri);
                    std::fill(ri + cols, ri + w, E(0));
                }
                for (std::size_t q = 0; q < n; q += W) {
                    const E* r0p = rows + 2 * q;
                    const E* r1p = rows + 2 * nv + 2 * q;
                    const V a0 = S::load(r0p), b0 = S::load(r0p + W);
                    const V a1 = S::load(r1p), b1 = S::load(r1p + W);
                    const V e0 = S::even(a0, b0), o0 = S::odd(a0, b0);
                    const V e1 = S::even(a1, b1), o1 = S::odd(a1, b1);
                    // G' along the rows, then along the columns.
                    const V re[4] = {e0, (e0 + e1) * h, (e0 - e1) * h, -e1};
                    const V ro[4] = {o0, (o0 + o1) * h, (o0 - o1) * h, -o1};
                    for (std::size_t i = 0; i < 4; ++i) {
                        E* u = uk + 4 * i * xs + j + q;
                        S::store(u, re[i]);
                        S::store(u + xs, (re[i] + ro[i]) * h);
                        S::store(u + 2 * xs, (re[i] - ro[i]) * h);
                        S::store(u + 3 * xs, -ro[i]);
                    }
                }
            });
    }
}

/// dW [K, C, 3, 3] (rows [k0, k1)) = A^T M A of the sums M[xi][k][c] (row length C), with
/// F(3x3, 2x2)'s A^T = [[1, 1, 1, 0], [0, 1, -1, 0], [0, 1, 1, 1]].
template <class E>
void transform_weight_grad(const E* M, std::size_t K, std::size_t C, std::size_t k0, std::size_t k1,
                           E* dw) {
    const std::size_t xs = K * C;
    for (std::size_t k = k0; k < k1; ++k)
        for (std::size_t c = 0; c < C; ++c) {
            const E* m = M + k * C + c;
            E r[3][4];  // A^T m
            for (std::size_t b = 0; b < 4; ++b) {
                const E m0 = m[b * xs], m1 = m[(4 + b) * xs], m2 = m[(8 + b) * xs],
                        m3 = m[(12 + b) * xs];
                r[0][b] = m0 + m1 + m2;
                r[1][b] = m1 - m2;
                r[2][b] = m1 + m2 + m3;
            }
            E* d = dw + (k * C + c) * 9;
            for (std::size_t u = 0; u < 3; ++u) {
                d[3 * u + 0] = r[u][0] + r[u][1] + r[u][2];
                d[3 * u + 1] = r[u][1] - r[u][2];
                d[3 * u + 2] = r[u][1] + r[u][2] + r[u][3];
            }
        }
}

}  // namespace

bool winograd_conv_applies(const backend::ConvGeometry& g) {
    return g.groups == 1 && g.in[0] == 1 && g.k[0] == 1 && g.k[1] == 3 && g.k[2] == 3 &&
           g.s[1] == 1 && g.s[2] == 1 && g.d[1] == 1 && g.d[2] == 1 && g.p[0] == 0 &&
           g.cin >= kWinogradMinChannels && g.cout >= kWinogradMinChannels &&
           g.batch * static_cast<std::size_t>(((g.out[1] + 1) / 2) * ((g.out[2] + 1) / 2)) >=
               kWinogradMinTiles;
}

std::size_t winograd_weights_size(const backend::ConvGeometry& g) {
    return 16 * ((g.cout + kMR - 1) / kMR) * kMR * g.cin;
}

template <class E>
void winograd_weights(const backend::ConvGeometry& g, const E* w, E* Up) {
    transform_weights(w, g.cout, g.cin, Up);
}

template <class E>
void winograd_conv(const backend::ConvGeometry& g, const E* in, const E* Up, const E* bias,
                   E* out) {
    constexpr std::size_t NR = kNR<E>;
    const std::size_t C = g.cin, K = g.cout, KP = (K + kMR - 1) / kMR;
    Tiles tl{g.in[1], g.in[2], g.out[1],           g.out[2],
             g.p[1],  g.p[2],  (g.out[1] + 1) / 2, (g.out[2] + 1) / 2};
    const std::size_t T = g.batch * tl.per_image();

    const std::size_t threads = num_threads();
    std::size_t pb = std::max<std::size_t>(kMinBlock, kBlockBytes / (16 * (C + K) * sizeof(E)));
    pb = std::min(pb, T);
    std::size_t blocks = (T + pb - 1) / pb;
    if (blocks < threads && T >= 16 * threads) {  // enough tiles: one block per thread
        pb = (T + threads - 1) / threads;
        blocks = (T + pb - 1) / pb;
    }
    const std::size_t JP = (pb + NR - 1) / NR, ldm = JP * NR;
    const std::size_t v_size = 16 * JP * C * NR, m_size = 16 * K * ldm + Simd<E>::W;
    // Zeroes the columns of the last panel past the block's n tiles (they are multiplied, and
    // their products dropped; stale values there could be NaNs or denormals).
    auto clear_tail = [&](E* Vp, std::size_t n) {
        if (n % NR == 0) return;
        const std::size_t jp = n / NR, from = n % NR;
        for (std::size_t xi = 0; xi < 16; ++xi)
            for (std::size_t c = 0; c < C; ++c) {
                E* p = Vp + ((xi * JP + jp) * C + c) * NR;
                std::fill(p + from, p + NR, E(0));
            }
    };
    // Products of the positions x channel panels [q0, q1) (q = xi * KP + ip) for n tiles.
    auto products = [&](const E* Vp, E* M, std::size_t n, std::size_t q0, std::size_t q1) {
        const std::size_t jps = (n + NR - 1) / NR;
        for (std::size_t q = q0; q < q1; ++q) {
            const std::size_t xi = q / KP, ip = q % KP;
            const E* a = Up + (xi * KP + ip) * C * kMR;
            const std::size_t rows = std::min(kMR, K - ip * kMR);
            E* mrow = M + (xi * K + ip * kMR) * ldm;
            for (std::size_t jp = 0; jp < jps; ++jp) {
                const E* b = Vp + (xi * JP + jp) * C * NR;
                if (n - jp * NR <= NR / 2) product_tile<E, 1>(C, a, b, mrow + jp * NR, ldm, rows);
                else product_tile<E, 2>(C, a, b, mrow + jp * NR, ldm, rows);
            }
        }
    };
    if (blocks >= threads) {
        parallel_range(blocks, 1, [&](const auto& r) {
            thread_local std::vector<E> scratch;
            if (scratch.size() < v_size + m_size) scratch.resize(v_size + m_size);
            E* Vp = scratch.data();
            E* M = Vp + v_size;
            for (std::size_t blk = r.begin(); blk < r.end(); ++blk) {
                const std::size_t t0 = blk * pb, t1 = std::min(T, t0 + pb);
                clear_tail(Vp, t1 - t0);
                transform_input(tl, in, C, t0, t1, 0, C, Vp, JP, NR);
                products(Vp, M, t1 - t0, 0, 16 * KP);
                transform_output(tl, M, ldm, K, t0, t1, 0, K, bias, out);
            }
        });
        return;
    }
    // Pooled blocks (not vectors: a zeroed allocation of this size is a fresh mapping, page
    // faults included, on every call). The lanes past the tiles read from M are dropped.
    const PoolArray<E> scratch(v_size + m_size);
    E* const Vp = scratch.data();
    E* const M = Vp + v_size;
    std::fill(M + m_size - Simd<E>::W, M + m_size, E(0));
    for (std::size_t blk = 0; blk < blocks; ++blk) {
        const std::size_t t0 = blk * pb, t1 = std::min(T, t0 + pb);
        clear_tail(Vp, t1 - t0);
        parallel_range(C, 1, [&](const auto& r) {
            transform_input(tl, in, C, t0, t1, r.begin(), r.end(), Vp, JP, NR);
        });
        parallel_range(16 * KP, 1,
                       [&](const auto& r) { products(Vp, M, t1 - t0, r.begin(), r.end()); });
        parallel_range(K, 1, [&](const auto& r) {
            transform_output(tl, M, ldm, K, t0, t1, r.begin(), r.end(), bias, out);
        });
    }
}

template <class E>
void winograd_weight_grad(const backend::ConvGeometry& g, const E* in, const E* gy, E* dw) {
    using S = Simd<E>;
    constexpr std::size_t W = S::W;
    const std::size_t C = g.cin, K = g.cout;
    Tiles tl{g.in[1], g.in[2], g.out[1],           g.out[2],
             g.p[1],  g.p[2],  (g.out[1] + 1) / 2, (g.out[2] + 1) / 2};
    const std::size_t T = g.batch * tl.per_image();
    const std::size_t m_size = 16 * K * C;
    // Blocks of at least `min_tiles` tiles whose transformed operands are near `bytes`; rows of
    // `ld` values (whole vectors, W past the last tile).
    auto layout = [&](std::size_t min_tiles, std::size_t bytes, std::size_t& pb,
                      std::size_t& blocks, std::size_t& ld) {
        pb = std::min<std::size_t>(
            T, std::max<std::size_t>(min_tiles, bytes / (16 * (C + K) * sizeof(E))));
        blocks = (T + pb - 1) / pb;
        ld = (pb + W - 1) / W * W + W;
    };
    // Transforms of the tiles [t0, t1) for the channels [lo, hi) of the input's C then the
    // gradient's K: V [16][C][ld], U [16][K][ld].
    auto transforms = [&](std::size_t t0, std::size_t t1, std::size_t lo, std::size_t hi, E* V,
                          E* U, std::size_t ld) {
        const std::size_t c0 = std::min(lo, C), c1 = std::min(hi, C);
        if (c0 < c1) transform_input(tl, in, C, t0, t1, c0, c1, V, 1, ld);
        const std::size_t k0 = std::max(lo, C) - C, k1 = std::max(hi, C) - C;
        if (k0 < k1) transform_grad(tl, gy, K, t0, t1, k0, k1, U, ld);
    };
    // M[xi] (= or +=, `first`) U[xi] V[xi]^T over n tiles, for the positions [xi0, xi1).
    auto sums = [&](const E* V, const E* U, std::size_t n, std::size_t ld, bool first, E* M,
                    std::size_t xi0, std::size_t xi1) {
        for (std::size_t xi = xi0; xi < xi1; ++xi)
            gemm(false, true, K, C, n, U + xi * K * ld, ld, V + xi * C * ld, ld,
                 first ? E(0) : E(1), M + xi * K * C, C);
    };
    std::size_t pb, blocks, ld;
    std::optional<PoolArray<E>> Mb;
    if (m_size * sizeof(E) <= kSmallSums) {
        // Few channels (ResNet's first stages): L2-sized blocks of tiles, in fixed chunks of
        // blocks, each chunk summed into its own partial sums by one thread, the partials added
        // in chunk order (as weight_core in conv.cpp).
        layout(kMinBlock, kBlockBytes, pb, blocks, ld);
        const std::size_t chunks = std::min<std::size_t>(blocks, 16);
        Mb.emplace(chunks * m_size);
        parallel_range(chunks, 1, [&](const auto& r) {
            const PoolArray<E> V(16 * C * ld), U(16 * K * ld);
            for (std::size_t ch = r.begin(); ch < r.end(); ++ch) {
                const std::size_t b0 = ch * blocks / chunks, b1 = (ch + 1) * blocks / chunks;
                for (std::size_t blk = b0; blk < b1; ++blk) {
                    const std::size_t t0 = blk * pb, t1 = std::min(T, t0 + pb);
                    transforms(t0, t1, 0, C + K, V.data(), U.data(), ld);
                    sums(V.data(), U.data(), t1 - t0, ld, blk == b0, Mb->data() + ch * m_size, 0,
                         16);
                }
            }
        });
        E* M = Mb->data();
        for (std::size_t ch = 1; ch < chunks; ++ch) {
            const E* v = M + ch * m_size;
            for (std::size_t i = 0; i < m_size; ++i) M[i] += v[i];
        }
    } else {
        // Many channels: one sum per position, accumulated block by block in order by one
        // thread (no partials: 16 * Cout * Cin values each); each block's transforms split over
        // the channels, its products over the positions. Deep blocks (at least 256 tiles,
        // operands near 8 MiB) keep the products efficient.
        layout(256, std::size_t{8} << 20, pb, blocks, ld);
        Mb.emplace(m_size);
        const PoolArray<E> V(16 * C * ld), U(16 * K * ld);
        for (std::size_t blk = 0; blk < blocks; ++blk) {
            const std::size_t t0 = blk * pb, t1 = std::min(T, t0 + pb);
            parallel_range(C + K, 1, [&](const auto& r) {
                transforms(t0, t1, r.begin(), r.end(), V.data(), U.data(), ld);
            });
            parallel_range(16, 1, [&](const auto& r) {
                sums(V.data(), U.data(), t1 - t0, ld, blk == 0, Mb->data(), r.begin(), r.end());
            });
        }
    }
    const E* M = Mb->data();
    parallel_for(
        K, std::max<std::size_t>(1, kParallelGrain / (16 * C)),
        [&](std::size_t k0, std::size_t k1) { transform_weight_grad(M, K, C, k0, k1, dw); });
}

template void winograd_weight_grad<float>(const backend::ConvGeometry&, const float*, const float*,
                                          float*);
template void winograd_weight_grad<double>(const backend::ConvGeometry&, const double*,
                                           const double*, double*);
template void winograd_weights<float>(const backend::ConvGeometry&, const float*, float*);
template void winograd_weights<double>(const backend::ConvGeometry&, const double*, double*);
template void winograd_conv<float>(const backend::ConvGeometry&, const float*, const float*,
                                   const float*, float*);
template void winograd_conv<double>(const backend::ConvGeometry&, const double*, const double*,
                                    const double*, double*);

}  // namespace burn::cpu

// SPDX-License-Identifier: MIT OR Apache-2.0
// Deformable 2-d convolution (torchvision.ops.deform_conv2d semantics) and its backward.
//
// Layout. x [b, c_in, h, w]; offset [b, 2 * og * kh * kw, oh, ow] with channel
// g * 2 * kh * kw + 2 * k + {0: dy, 1: dx} for offset group g and kernel position k = i * kw + j;
// mask [b, og * kh * kw, oh, ow] (channel g * kh * kw + k); weight [c_out, c_in / wg, kh, kw].
// Input channel c belongs to offset group c / (c_in / og). Output pixel (oy, ox) samples, for
// kernel position (i, j), the point
//     y = oy * stride_h - pad_h + i * dil_h + dy,   x = ox * stride_w - pad_w + j * dil_w + dx
// bilinearly: floor corners (y0, x0) .. (y0 + 1, x0 + 1), a corner outside the image counts 0.
// (torchvision also returns 0 for y <= -1, y >= h, x <= -1 or x >= w; there every corner is
// outside or has weight 0, so the corner rule alone gives the same values. Its offset gradient
// is the derivative of this corner formula at every point, integer coordinates included, where
// the floor corner is the one used.)
//
// Algorithm. Images are processed in chunks (all of a chunk's images share one column buffer of
// [c_in * kh * kw, n_img * oh * ow] elements, at most ~4M unless one image needs more):
//   1. taps: for each (image, offset group, kernel position, output pixel) the 4 corner indices
//      into the plane and their bilinear weights times the mask (0 for corners outside), shared
//      by every channel of the offset group;
//   2. deformable im2col: columns[c * kk + k][n] = sum over corners of weight * x[c][corner], one
//      task per (offset group, kernel position, block of 256 pixels), looping over the group's
//      channels so that the block of taps stays in L1;
//   3. out[g] = W[g] * columns[g] per image and weight group (Eigen GEMM on mapped row-major
//      blocks, a few column blocks per thread), bias added.
// Backward, per chunk: columns as above; column_grad[g] = W[g]^T * grad[g]; weight_grad[g] +=
// grad[g] * columns[g]^T, split over blocks of weight columns with the images added in order;
// offset and mask gradients per (group, kernel position, pixel block), summing over the group's
// channels the column gradient times the derivative of the bilinear sample (offsets) or the
// sample itself (mask); x_grad by scattering column_grad with the tap weights, each task owning
// the planes of a few channels, so no atomics are needed. No sum depends on the scheduling:
// repeated calls give identical results. Everything accumulates in the element type.
// Measured on the 2-core development machine (b 2, 64 -> 64 channels, 56 x 56, 3 x 3, padding 1,
// mask; a shared machine, so rough): f32 forward 6.3 ms, backward 35 ms; f64 11 / 58 ms.
// torchvision 0.14's CPU kernel, same input, same moment: f32 forward 57 ms, forward + backward
// 422 ms; f64 104 / 505 ms.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <memory>

#include "internal.hpp"

namespace burn::cpu {
namespace {

/// Geometry of one deformable convolution.
struct Geom {
    std::size_t b, c_in, h, w, c_out, kh, kw, oh, ow, wg, og;
    std::int64_t sh, sw, ph, pw, dh, dw;
    std::size_t kk() const { return kh * kw; }
    std::size_t L() const { return oh * ow; }          ///< output pixels per image
    std::size_t cin_g() const { return c_in / wg; }    ///< input channels per weight group
    std::size_t cout_g() const { return c_out / wg; }  ///< output channels per weight group
    std::size_t cin_og() const { return c_in / og; }   ///< input channels per offset group
};

Geom geometry(const CpuTensor& x, const CpuTensor& w, const SpatialArgs& a) {
    Geom g{};
    g.b = x.shape[0], g.c_in = x.shape[1], g.h = x.shape[2], g.w = x.shape[3];
    g.c_out = w.shape[0], g.kh = w.shape[2], g.kw = w.shape[3];
    g.wg = std::max<std::size_t>(1, a.groups), g.og = std::max<std::size_t>(1, a.offset_groups);
    g.sh = static_cast<std::int64_t>(a.stride[0]), g.sw = static_cast<std::int64_t>(a.stride[1]);
    g.ph = static_cast<std::int64_t>(a.padding[0]), g.pw = static_cast<std::int64_t>(a.padding[1]);
    g.dh = static_cast<std::int64_t>(a.dilation[0]),
    g.dw = static_cast<std::int64_t>(a.dilation[1]);
    g.oh = conv_output_size(g.h, g.kh, a.stride[0], a.padding[0], a.dilation[0]);
    g.ow = conv_output_size(g.w, g.kw, a.stride[1], a.padding[1], a.dilation[1]);
    return g;
}

/// The taps index a plane with 32-bit integers.
void check_plane(const Geom& g, const char* op) {
    if (g.h * g.w > static_cast<std::size_t>(INT32_MAX))
        detail::fail(op, ": an input plane of ", g.h, " x ", g.w, " pixels exceeds 2^31 - 1");
}

/// Images per chunk: at least one, more while the column buffer stays under ~4M elements.
std::size_t chunk_images(const Geom& g) {
    const std::size_t per_image = std::max<std::size_t>(1, g.c_in * g.kk() * g.L());
    return std::clamp<std::size_t>((std::size_t{1} << 22) / per_image, 1,
                                   std::max<std::size_t>(1, g.b));
}

/// One sampling point: the plane indices of its four bilinear corners (top-left, top-right,
/// bottom-left, bottom-right; 0 for a corner outside the image, whose weight is then 0) and their
/// weights, the mask folded in.
template <class E>
struct Tap {
    std::int32_t idx[4];
    E wt[4];
};

/// What the backward needs besides: the unmasked bilinear weights and the weights of the
/// derivatives of the sampled value with respect to y and x (outside corners 0).
template <class E>
struct TapDeriv {
    E val[4];
    E dy[4];
    E dx[4];
};

/// The taps of the point (y, x) of an h x w plane with mask value m (deriv may be null).
template <class E>
inline void sample_point(E y, E x, E m, std::int64_t h, std::int64_t w, Tap<E>& tap,
                         TapDeriv<E>* deriv) {
    tap = Tap<E>{};
    if (deriv) *deriv = TapDeriv<E>{};
    // Beyond one cell outside, every corner is outside (this also rejects NaN and huge values).
    if (!(y >= E(-1) && y <= E(h) && x >= E(-1) && x <= E(w))) return;
    const E yf = std::floor(y), xf = std::floor(x);
    const auto y0 = static_cast<std::int64_t>(yf), x0 = static_cast<std::int64_t>(xf);
    const E ly = y - yf, lx = x - xf, hy = E(1) - ly, hx = E(1) - lx;
    const bool vy0 = y0 >= 0 && y0 < h, vy1 = y0 + 1 >= 0 && y0 + 1 < h;
    const bool vx0 = x0 >= 0 && x0 < w, vx1 = x0 + 1 >= 0 && x0 + 1 < w;
    const bool valid[4] = {vy0 && vx0, vy0 && vx1, vy1 && vx0, vy1 && vx1};
    const std::int64_t idx[4] = {y0 * w + x0, y0 * w + x0 + 1, (y0 + 1) * w + x0,
                                 (y0 + 1) * w + x0 + 1};
    const E val[4] = {hy * hx, hy * lx, ly * hx, ly * lx};
    const E dy[4] = {-hx, -lx, hx, lx};
    const E dx[4] = {-hy, hy, -ly, ly};
    for (int t = 0; t < 4; ++t) {
        if (!valid[t]) continue;
        tap.idx[t] = static_cast<std::int32_t>(idx[t]);
        tap.wt[t] = m * val[t];
        if (deriv) {
            deriv->val[t] = val[t];
            deriv->dy[t] = dy[t];
            deriv->dx[t] = dx[t];
        }
    }
}

/// An uninitialised scratch buffer (every element is written before it is read).
template <class T>
std::unique_ptr<T[]> scratch(std::size_t n) {
    return std::unique_ptr<T[]>(new T[n]);
}

/// Pixel block of the loops over the taps: a block of taps stays in L1 while the channels of
/// its offset group go by.
constexpr std::size_t kPixBlock = 256;

/// The taps (and, when `deriv` is not null, their derivative weights) of a chunk of images
/// [b0, b0 + nb): index ((img * og + g) * kk + k) * L + p.
template <class E>
void make_taps(const Geom& g, const E* offset, const E* mask, std::size_t b0, std::size_t nb,
               Tap<E>* taps, TapDeriv<E>* deriv) {
    const std::size_t kk = g.kk(), L = g.L(), rows = nb * g.og * kk;
    const auto h = static_cast<std::int64_t>(g.h), w = static_cast<std::int64_t>(g.w);
    parallel_for(rows, std::max<std::size_t>(1, 4096 / std::max<std::size_t>(1, L)),
                 [&](std::size_t r0, std::size_t r1) {
                     for (std::size_t r = r0; r < r1; ++r) {
                         const std::size_t k = r % kk, ig = r / kk;  // ig = img * og + g
                         const std::size_t i = k / g.kw, j = k % g.kw;
                         // offset channels 2k (dy) and 2k + 1 (dx) of group g of image b0 + img
                         const E* off = offset + ((b0 * g.og + ig) * 2 * kk + 2 * k) * L;
                         const E* m = mask ? mask + ((b0 * g.og + ig) * kk + k) * L : nullptr;
                         Tap<E>* out = taps + r * L;
                         TapDeriv<E>* dout = deriv ? deriv + r * L : nullptr;
                         for (std::size_t oy = 0; oy < g.oh; ++oy) {
                             const auto by = static_cast<std::int64_t>(oy) * g.sh - g.ph +
                                             static_cast<std::int64_t>(i) * g.dh;
                             for (std::size_t ox = 0; ox < g.ow; ++ox) {
                                 const auto bx = static_cast<std::int64_t>(ox) * g.sw - g.pw +
                                                 static_cast<std::int64_t>(j) * g.dw;
                                 const std::size_t p = oy * g.ow + ox;
                                 sample_point<E>(E(by) + off[p], E(bx) + off[L + p],
                                                 m ? m[p] : E(1), h, w, out[p],
                                                 dout ? dout + p : nullptr);
                             }
                         }
                     }
                 });
}

/// Deformable im2col of a chunk: cols[(c * kk + k)][img * L + p] (row length nb * L), each value
/// the bilinear sample times the mask. One task per (image, offset group, kernel position, pixel
/// block), looping over the group's channels.
template <class E>
void im2col(const Geom& g, const E* x, const Tap<E>* taps, std::size_t b0, std::size_t nb,
            E* cols) {
    const std::size_t kk = g.kk(), L = g.L(), N = nb * L, plane = g.h * g.w, cpg = g.cin_og();
    const std::size_t nblk = (L + kPixBlock - 1) / kPixBlock;
    const std::size_t units = nb * g.og * kk * nblk;
    parallel_for(units, std::max<std::size_t>(1, 16384 / std::max<std::size_t>(1, kPixBlock * cpg)),
                 [&](std::size_t u0, std::size_t u1) {
                     for (std::size_t u = u0; u < u1; ++u) {
                         const std::size_t blk = u % nblk,
                                           r = u / nblk;  // r = (img * og + grp) * kk + k
                         const std::size_t k = r % kk, grp = (r / kk) % g.og, img = r / (kk * g.og);
                         const std::size_t p0 = blk * kPixBlock, np = std::min(kPixBlock, L - p0);
                         const Tap<E>* __restrict t = taps + r * L + p0;
                         for (std::size_t c = grp * cpg; c < (grp + 1) * cpg; ++c) {
                             E* __restrict dst = cols + (c * kk + k) * N + img * L + p0;
                             if (plane == 0) {  // an empty image: every sample is outside
                                 std::fill(dst, dst + np, E(0));
                                 continue;
                             }
                             const E* __restrict src = x + ((b0 + img) * g.c_in + c) * plane;
                             for (std::size_t p = 0; p < np; ++p) {
                                 const Tap<E>& q = t[p];
                                 dst[p] = q.wt[0] * src[q.idx[0]] + q.wt[1] * src[q.idx[1]] +
                                          q.wt[2] * src[q.idx[2]] + q.wt[3] * src[q.idx[3]];
                             }
                         }
                     }
                 });
}

template <class E>
using RowMat = Eigen::Matrix<E, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class E>
using MapS = Eigen::Map<RowMat<E>, 0, Eigen::OuterStride<>>;
template <class E>
using CMapS = Eigen::Map<const RowMat<E>, 0, Eigen::OuterStride<>>;

inline Eigen::Index ei(std::size_t v) { return static_cast<Eigen::Index>(v); }

/// Splits `len` into blocks of at least `min_block` (a multiple of `align`), about 4 per thread
/// over `tasks` independent pieces: fewer, larger GEMMs repack their shared operand less often.
std::size_t block_size(std::size_t len, std::size_t tasks, std::size_t min_block,
                       std::size_t align) {
    const std::size_t per =
        std::max<std::size_t>(1, (4 * num_threads() + tasks - 1) / std::max<std::size_t>(1, tasks));
    std::size_t blk = (len + per - 1) / per;
    blk = (blk + align - 1) / align * align;
    return std::max<std::size_t>(1, std::min(len, std::max(blk, min_block)));
}

template <class E>
CpuTensor forward_impl(const CpuTensor& xt, const CpuTensor& offt, const CpuTensor& wt,
                       const std::optional<CpuTensor>& maskt, const std::optional<CpuTensor>& biast,
                       const Geom& g) {
    CpuTensor out = alloc(Shape{g.b, g.c_out, g.oh, g.ow}, xt.dtype);
    const std::size_t kk = g.kk(), L = g.L();
    if (out.num_elements() == 0) return out;
    E* y = out.data<E>();
    const E* x = xt.data<E>();
    const E* off = offt.data<E>();
    const E* wp = wt.data<E>();
    const E* mask = maskt ? maskt->data<E>() : nullptr;
    const E* bias = biast ? biast->data<E>() : nullptr;
    const std::size_t K = g.cin_g() * kk, M = g.cout_g();
    const std::size_t chunk = chunk_images(g), most = std::min(chunk, g.b);
    auto cols = scratch<E>(g.c_in * kk * most * L);
    auto taps = scratch<Tap<E>>(most * g.og * kk * L);
    for (std::size_t b0 = 0; b0 < g.b; b0 += chunk) {
        const std::size_t nb = std::min(chunk, g.b - b0), N = nb * L;
        make_taps<E>(g, off, mask, b0, nb, taps.get(), nullptr);
        im2col<E>(g, x, taps.get(), b0, nb, cols.get());
        const std::size_t cb = block_size(L, nb * g.wg, 256, 64), nblk = (L + cb - 1) / cb;
        parallel_for(nb * g.wg * nblk, 1, [&](std::size_t u0, std::size_t u1) {
            for (std::size_t u = u0; u < u1; ++u) {
                const std::size_t blk = u % nblk, grp = (u / nblk) % g.wg, img = u / (nblk * g.wg);
                const std::size_t p0 = blk * cb, np = std::min(cb, L - p0);
                CMapS<E> W(wp + grp * M * K, ei(M), ei(K), Eigen::OuterStride<>(ei(K)));
                CMapS<E> C(cols.get() + grp * K * N + img * L + p0, ei(K), ei(np),
                           Eigen::OuterStride<>(ei(N)));
                MapS<E> Y(y + ((b0 + img) * g.c_out + grp * M) * L + p0, ei(M), ei(np),
                          Eigen::OuterStride<>(ei(L)));
                if (bias) {
                    for (std::size_t o = 0; o < M; ++o) Y.row(ei(o)).setConstant(bias[grp * M + o]);
                } else {
                    Y.setZero();
                }
                Y.noalias() += W * C;
            }
        });
    }
    return out;
}

template <class E>
DeformConv2dBackward<CpuTensor> backward_impl(const CpuTensor& xt, const CpuTensor& offt,
                                              const CpuTensor& wt,
                                              const std::optional<CpuTensor>& maskt,
                                              const std::optional<CpuTensor>& biast,
                                              const CpuTensor& gt, const Geom& g) {
    const DType dt = xt.dtype;
    const std::size_t kk = g.kk(), L = g.L(), plane = g.h * g.w;
    const std::size_t K = g.cin_g() * kk, M = g.cout_g();
    CpuTensor x_grad = alloc(xt.shape, dt), off_grad = alloc(offt.shape, dt),
              w_grad = alloc(wt.shape, dt);
    std::optional<CpuTensor> mask_grad, bias_grad;
    E* gx = x_grad.data<E>();
    E* goff = off_grad.data<E>();
    E* gw = w_grad.data<E>();
    std::fill(gx, gx + x_grad.num_elements(), E(0));
    std::fill(goff, goff + off_grad.num_elements(), E(0));
    std::fill(gw, gw + w_grad.num_elements(), E(0));
    E* gm = nullptr;
    if (maskt) {
        mask_grad = alloc(maskt->shape, dt);
        gm = mask_grad->data<E>();
        std::fill(gm, gm + mask_grad->num_elements(), E(0));
    }
    const E* gy = gt.data<E>();
    if (biast) {
        bias_grad = alloc(biast->shape, dt);
        E* gb = bias_grad->data<E>();
        parallel_for(g.c_out, std::max<std::size_t>(1, 8192 / std::max<std::size_t>(1, g.b * L)),
                     [&](std::size_t o0, std::size_t o1) {
                         for (std::size_t o = o0; o < o1; ++o) {
                             E s = 0;
                             for (std::size_t n = 0; n < g.b; ++n) {
                                 const E* __restrict r = gy + (n * g.c_out + o) * L;
                                 for (std::size_t p = 0; p < L; ++p) s += r[p];
                             }
                             gb[o] = s;
                         }
                     });
    }
    // Nothing sampled (an empty image samples zeros, whose gradients are zero too).
    if (g.b == 0 || L == 0 || plane == 0 || g.c_in == 0)
        return {x_grad, off_grad, w_grad, mask_grad, bias_grad};

    const E* x = xt.data<E>();
    const E* off = offt.data<E>();
    const E* wp = wt.data<E>();
    const E* mask = maskt ? maskt->data<E>() : nullptr;
    const std::size_t chunk = chunk_images(g), most = std::min(chunk, g.b);
    const std::size_t cpg = g.cin_og(), nblk = (L + kPixBlock - 1) / kPixBlock;
    auto cols = scratch<E>(g.c_in * kk * most * L), cgrad = scratch<E>(g.c_in * kk * most * L);
    auto taps = scratch<Tap<E>>(most * g.og * kk * L);
    auto deriv = scratch<TapDeriv<E>>(most * g.og * kk * L);
    for (std::size_t b0 = 0; b0 < g.b; b0 += chunk) {
        const std::size_t nb = std::min(chunk, g.b - b0), N = nb * L;
        make_taps<E>(g, off, mask, b0, nb, taps.get(), deriv.get());
        im2col<E>(g, x, taps.get(), b0, nb, cols.get());

        // column_grad[g] = W[g]^T * grad[g], per (image, group, column block).
        const std::size_t cb = block_size(L, nb * g.wg, 256, 64), ncb = (L + cb - 1) / cb;
        parallel_for(nb * g.wg * ncb, 1, [&](std::size_t u0, std::size_t u1) {
            for (std::size_t u = u0; u < u1; ++u) {
                const std::size_t blk = u % ncb, grp = (u / ncb) % g.wg, img = u / (ncb * g.wg);
                const std::size_t p0 = blk * cb, np = std::min(cb, L - p0);
                CMapS<E> W(wp + grp * M * K, ei(M), ei(K), Eigen::OuterStride<>(ei(K)));
                CMapS<E> G(gy + ((b0 + img) * g.c_out + grp * M) * L + p0, ei(M), ei(np),
                           Eigen::OuterStride<>(ei(L)));
                MapS<E> CG(cgrad.get() + grp * K * N + img * L + p0, ei(K), ei(np),
                           Eigen::OuterStride<>(ei(N)));
                CG.noalias() = W.transpose() * G;
            }
        });

        // weight_grad[g] += grad[g] * columns[g]^T, per (group, block of weight columns), so
        // that each column row is packed once; the images of the chunk are added in order (the
        // sum order does not depend on the thread count).
        const std::size_t kb = block_size(K, g.wg, 32, 16), nkb = (K + kb - 1) / kb;
        parallel_for(g.wg * nkb, 1, [&](std::size_t u0, std::size_t u1) {
            for (std::size_t u = u0; u < u1; ++u) {
                const std::size_t blk = u % nkb, grp = u / nkb;
                const std::size_t q0 = blk * kb, nq = std::min(kb, K - q0);
                MapS<E> GW(gw + grp * M * K + q0, ei(M), ei(nq), Eigen::OuterStride<>(ei(K)));
                for (std::size_t img = 0; img < nb; ++img) {
                    CMapS<E> G(gy + ((b0 + img) * g.c_out + grp * M) * L, ei(M), ei(L),
                               Eigen::OuterStride<>(ei(L)));
                    CMapS<E> C(cols.get() + (grp * K + q0) * N + img * L, ei(nq), ei(L),
                               Eigen::OuterStride<>(ei(N)));
                    GW.noalias() += G * C.transpose();
                }
            }
        });

        // offset and mask gradients, per (image, offset group, kernel position, pixel block):
        //   d/d(dy) = mask * sum_c cgrad * dvalue/dy, likewise dx; d/dmask = sum_c cgrad * value.
        const auto coord_grads = [&]<bool kMask>(std::size_t u0, std::size_t u1) {
            E acc_y[kPixBlock], acc_x[kPixBlock], acc_m[kPixBlock];
            for (std::size_t u = u0; u < u1; ++u) {
                const std::size_t blk = u % nblk, r = u / nblk;  // r = (img * og + grp) * kk + k
                const std::size_t k = r % kk, grp = (r / kk) % g.og, img = r / (kk * g.og);
                const std::size_t p0 = blk * kPixBlock, np = std::min(kPixBlock, L - p0);
                const Tap<E>* __restrict t = taps.get() + r * L + p0;
                const TapDeriv<E>* __restrict d = deriv.get() + r * L + p0;
                std::fill(acc_y, acc_y + np, E(0));
                std::fill(acc_x, acc_x + np, E(0));
                if constexpr (kMask) std::fill(acc_m, acc_m + np, E(0));
                for (std::size_t c = grp * cpg; c < (grp + 1) * cpg; ++c) {
                    const E* __restrict src = x + ((b0 + img) * g.c_in + c) * plane;
                    const E* __restrict cg = cgrad.get() + (c * kk + k) * N + img * L + p0;
                    for (std::size_t p = 0; p < np; ++p) {
                        const std::int32_t* i = t[p].idx;
                        const TapDeriv<E>& q = d[p];
                        const E v0 = src[i[0]], v1 = src[i[1]], v2 = src[i[2]], v3 = src[i[3]];
                        acc_y[p] +=
                            cg[p] * (q.dy[0] * v0 + q.dy[1] * v1 + q.dy[2] * v2 + q.dy[3] * v3);
                        acc_x[p] +=
                            cg[p] * (q.dx[0] * v0 + q.dx[1] * v1 + q.dx[2] * v2 + q.dx[3] * v3);
                        if constexpr (kMask)
                            acc_m[p] += cg[p] * (q.val[0] * v0 + q.val[1] * v1 + q.val[2] * v2 +
                                                 q.val[3] * v3);
                    }
                }
                const std::size_t bi = b0 + img;
                E* __restrict oy = goff + ((bi * g.og + grp) * 2 * kk + 2 * k) * L + p0;
                E* __restrict ox = oy + L;
                if constexpr (kMask) {
                    const E* __restrict m = mask + ((bi * g.og + grp) * kk + k) * L + p0;
                    E* __restrict om = gm + ((bi * g.og + grp) * kk + k) * L + p0;
                    for (std::size_t p = 0; p < np; ++p) {
                        oy[p] = acc_y[p] * m[p];
                        ox[p] = acc_x[p] * m[p];
                        om[p] = acc_m[p];
                    }
                } else {
                    std::copy(acc_y, acc_y + np, oy);
                    std::copy(acc_x, acc_x + np, ox);
                }
            }
        };
        parallel_for(nb * g.og * kk * nblk, 1, [&](std::size_t u0, std::size_t u1) {
            if (mask) coord_grads.template operator()<true>(u0, u1);
            else coord_grads.template operator()<false>(u0, u1);
        });

        // x_grad: scatter column_grad with the (masked) bilinear weights. A task owns the planes
        // of a block of up to 8 channels of one offset group of one image (no atomics, and the
        // sum order is fixed); within it, each block of taps is reused for every channel.
        const std::size_t cblk = std::clamp<std::size_t>(nb * g.c_in / (4 * num_threads()), 1,
                                                         std::min<std::size_t>(8, cpg));
        const std::size_t ncblk = (cpg + cblk - 1) / cblk;
        parallel_for(nb * g.og * ncblk, 1, [&](std::size_t u0, std::size_t u1) {
            for (std::size_t u = u0; u < u1; ++u) {
                const std::size_t cbi = u % ncblk, grp = (u / ncblk) % g.og,
                                  img = u / (ncblk * g.og);
                const std::size_t c0 = grp * cpg + cbi * cblk,
                                  c1 = std::min(c0 + cblk, (grp + 1) * cpg);
                for (std::size_t k = 0; k < kk; ++k) {
                    const Tap<E>* tk = taps.get() + ((img * g.og + grp) * kk + k) * L;
                    for (std::size_t p0 = 0; p0 < L; p0 += kPixBlock) {
                        const std::size_t np = std::min(kPixBlock, L - p0);
                        const Tap<E>* __restrict t = tk + p0;
                        for (std::size_t c = c0; c < c1; ++c) {
                            E* __restrict dst = gx + ((b0 + img) * g.c_in + c) * plane;
                            const E* __restrict cg = cgrad.get() + (c * kk + k) * N + img * L + p0;
                            for (std::size_t p = 0; p < np; ++p) {
                                const Tap<E>& q = t[p];
                                const E v = cg[p];
                                dst[q.idx[0]] += q.wt[0] * v;
                                dst[q.idx[1]] += q.wt[1] * v;
                                dst[q.idx[2]] += q.wt[2] * v;
                                dst[q.idx[3]] += q.wt[3] * v;
                            }
                        }
                    }
                }
            }
        });
    }
    return {x_grad, off_grad, w_grad, mask_grad, bias_grad};
}

/// Dense copies of the operands (the kernels index them as row-major).
struct Dense {
    CpuTensor x, offset, w, grad;
    std::optional<CpuTensor> mask, bias;
};

Dense dense(CpuTensor x, CpuTensor offset, CpuTensor w, std::optional<CpuTensor> mask,
            std::optional<CpuTensor> bias) {
    Dense d;
    d.x = contiguous(std::move(x));
    d.offset = contiguous(std::move(offset));
    d.w = contiguous(std::move(w));
    if (mask) d.mask = contiguous(std::move(*mask));
    if (bias) d.bias = contiguous(std::move(*bias));
    return d;
}

}  // namespace

CpuTensor Kernels::deform_conv2d(CpuTensor x, CpuTensor offset, CpuTensor w,
                                 std::optional<CpuTensor> mask, std::optional<CpuTensor> bias,
                                 const SpatialArgs& a) {
    Dense d =
        dense(std::move(x), std::move(offset), std::move(w), std::move(mask), std::move(bias));
    const Geom g = geometry(d.x, d.w, a);
    check_plane(g, "deform_conv2d");
    return dispatch(d.x.dtype, [&](auto e) -> CpuTensor {
        using E = decltype(e);
        if constexpr (std::is_floating_point_v<E>) {
            return forward_impl<E>(d.x, d.offset, d.w, d.mask, d.bias, g);
        } else {
            detail::fail("deform_conv2d: needs a float tensor, got ", dtype_name(d.x.dtype));
        }
    });
}

DeformConv2dBackward<CpuTensor> Kernels::deform_conv2d_backward(
    CpuTensor x, CpuTensor offset, CpuTensor w, std::optional<CpuTensor> mask,
    std::optional<CpuTensor> bias, CpuTensor grad, const SpatialArgs& a) {
    Dense d =
        dense(std::move(x), std::move(offset), std::move(w), std::move(mask), std::move(bias));
    d.grad = contiguous(std::move(grad));
    const Geom g = geometry(d.x, d.w, a);
    check_plane(g, "deform_conv2d_backward");
    return dispatch(d.x.dtype, [&](auto e) -> DeformConv2dBackward<CpuTensor> {
        using E = decltype(e);
        if constexpr (std::is_floating_point_v<E>) {
            return backward_impl<E>(d.x, d.offset, d.w, d.mask, d.bias, d.grad, g);
        } else {
            detail::fail("deform_conv2d_backward: needs a float tensor, got ",
                         dtype_name(d.x.dtype));
        }
    });
}

}  // namespace burn::cpu

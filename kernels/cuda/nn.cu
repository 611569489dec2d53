// SPDX-License-Identifier: MIT OR Apache-2.0
// unfold4d (im2col, torch's F.unfold) and the element-wise steps of deform_conv2d and its
// backward (torchvision.ops.deform_conv2d; backends/cuda/src/ops_nn_misc.cpp runs the matrix
// products through Kernels::matmul).
//
// unfold4d: a 2-d grid, x over the output pixels of a row, y over (batch, channel, kernel row);
// each thread writes the kernel columns of its (row, pixel), zeros in the padding. Every dtype
// (a copy).
//
// Deformable convolution, per chunk of nb images (b0 .. b0 + nb), with N = nb * L columns (L =
// oh * ow, kk = kh * kw, K = c_in / groups * kk, M = c_out / groups; offset group of channel c:
// c / (c_in / og)):
//   deform_im2col       cols[c * kk + k][n * L + p] = sum over the 4 bilinear corners inside the
//                       image of mask * weight * x[b0 + n, c, corner] (threads over (channel
//                       block, k, n, p), the taps computed once per block of channels);
//   deform_output       out[b0 + n, o, p] = tmp[o][n * L + p] + bias[o] (tmp = W * cols);
//   deform_grad_t       grad_t[o][n * L + p] = grad[b0 + n, o, p] (any view);
//   deform_coord_grad   offset and mask gradients per (n, offset group, k, p), summing over the
//                       group's channels (deterministic);
//   deform_col2im       x_grad[b0 + n, c, corner] += mask * weight * col_grad[c * kk + k][n * L
//                       + p], with atomicAdd (the scatter of data-dependent sampling points; the
//                       only non-deterministic sum of the family, as torchvision's CUDA kernel);
//   deform_bias_grad    bias_grad[o] = sum over (b, p) of grad[b, o, p], a block per channel;
//   deform_accumulate   acc += t (the weight gradient of later chunks).
// Layer norm over the last dim (d values per row, dense rows; burn::nn::LayerNorm through
// Kernels::layer_norm): a warp per row, 8 rows per 256-thread block, the row read from L1/L2
// after the first pass. Sums in f64; every f32 step rounded as the composed ops round it (mean,
// x - mean, its square, the mean of squares, + epsilon, sqrt, /, * gamma, + beta: no contracted
// multiply-add), so the fused kernel computes what nn::LayerNorm's composed form computes.
//   layer_norm_fwd        y (and nothing else: the backward recomputes the statistics);
//   layer_norm_bwd_x      dx = (g * gamma - mean(g * gamma) - xhat * mean(g * gamma * xhat)) / s,
//                         and each row's mean and s = sqrt(var + epsilon) for the next kernel;
//   layer_norm_bwd_params partial sums over a chunk of rows of g * xhat and g, per column;
//   layer_norm_bwd_final  the chunks' sums in a fixed order (deterministic): dgamma and dbeta,
//                         a block per column.
//
// The sampling follows the CPU backend's deform_conv.cpp: y = oy * sh - ph + i * dh + dy,
// x = ox * sw - pw + j * dw + dx; nothing is sampled unless -1 <= y <= h and -1 <= x <= w
// (NaN fails it); corners outside the image count 0.
#include "ops.cuh"

// ------------------------------------------------------------------------------ unfold4d

/// The host's UnfoldArgs (same layout).
struct UnfoldArgs {
    i64 B, C, H, W, kh, kw, OH, OW;
    i64 sh, sw, ph, pw, dh, dw;
    i64 xs[4];  // strides of x (b, c, h, w)
};

/// Grid: x covers L = OH * OW (blockDim.x per block), y the rows (b, c, ki), grid-stride.
template <class T>
__device__ void unfold4d_impl(const T* __restrict__ x, T* __restrict__ y, const UnfoldArgs& a) {
    const i64 L = a.OH * a.OW;
    const i64 l = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= L) return;
    const i64 oy = l / a.OW, ox = l - oy * a.OW;
    const i64 rows = a.B * a.C * a.kh;
    for (i64 r = blockIdx.y; r < rows; r += gridDim.y) {
        const i64 ki = r % a.kh, bc = r / a.kh;
        const i64 c = bc % a.C, b = bc / a.C;
        const i64 iy = oy * a.sh - a.ph + ki * a.dh;
        const bool row_in = iy >= 0 && iy < a.H;
        const T* px = x + b * a.xs[0] + c * a.xs[1] + iy * a.xs[2];
        T* out = y + (r * a.kw) * L + l;  // row (b, c, ki, 0) of the output
        const i64 ix0 = ox * a.sw - a.pw;
        for (i64 kj = 0; kj < a.kw; ++kj) {
            const i64 ix = ix0 + kj * a.dw;
            out[kj * L] = row_in && ix >= 0 && ix < a.W ? px[ix * a.xs[3]] : (T)0;
        }
    }
}

#define UNFOLD_KERNEL(T, SUFFIX)                                                   \
    extern "C" __global__ void unfold4d_##SUFFIX(const T* x, T* y, UnfoldArgs a) { \
        unfold4d_impl<T>(x, y, a);                                                 \
    }
BURN_FOR_ALL(UNFOLD_KERNEL)
UNFOLD_KERNEL(i8, i8)

// ------------------------------------------------------------------------------ deform_conv2d

/// The host's DeformArgs (same layout).
struct DeformArgs {
    i64 B, Cin, H, W, Cout, kh, kw, OH, OW, wg, og;
    i64 sh, sw, ph, pw, dh, dw;
    i64 b0, nb;  // the chunk's first image and image count
    i64 cblock;  // channels per thread (im2col, col2im)
    i64 xs[4];   // strides of x
    i64 os[4];   // strides of offset
    i64 ms[4];   // strides of mask
    i64 gs[4];   // strides of grad
    i64 bias_s;  // stride of bias
    int has_mask;
    int pad_;
};

/// One sampling point: the element offsets (within an image plane, through the strides of x or
/// dense) of its 4 corners (top-left, top-right, bottom-left, bottom-right) and their bilinear
/// weights; `valid` says which corners lie inside the image.
template <class E>
struct Sample {
    i64 y0, x0;  // top-left corner
    E ly, lx, hy, hx;
    bool valid[4];
    bool any;
};

template <class E>
__device__ __forceinline__ Sample<E> sample_at(E y, E x, i64 h, i64 w) {
    Sample<E> s;
    s.any = y >= (E)-1 && y <= (E)h && x >= (E)-1 && x <= (E)w;  // NaN: false
    if (!s.any) {
        s.y0 = s.x0 = 0;
        s.ly = s.lx = s.hy = s.hx = 0;
        s.valid[0] = s.valid[1] = s.valid[2] = s.valid[3] = false;
        return s;
    }
    const E yf = floor(y), xf = floor(x);
    s.y0 = (i64)yf, s.x0 = (i64)xf;
    s.ly = y - yf, s.lx = x - xf;
    s.hy = (E)1 - s.ly, s.hx = (E)1 - s.lx;
    const bool vy0 = s.y0 >= 0 && s.y0 < h, vy1 = s.y0 + 1 >= 0 && s.y0 + 1 < h;
    const bool vx0 = s.x0 >= 0 && s.x0 < w, vx1 = s.x0 + 1 >= 0 && s.x0 + 1 < w;
    s.valid[0] = vy0 && vx0, s.valid[1] = vy0 && vx1, s.valid[2] = vy1 && vx0,
    s.valid[3] = vy1 && vx1;
    return s;
}

/// The sampling point of (image b, offset group grp, kernel position k, output pixel p) and its
/// mask value.
template <class E>
__device__ __forceinline__ Sample<E> deform_point(const E* __restrict__ off,
                                                  const E* __restrict__ mask, const DeformArgs& a,
                                                  i64 b, i64 grp, i64 k, i64 p, E* m) {
    const i64 kk = a.kh * a.kw;
    const i64 oy = p / a.OW, ox = p - oy * a.OW;
    const i64 ki = k / a.kw, kj = k - ki * a.kw;
    const E* po =
        off + b * a.os[0] + (grp * 2 * kk + 2 * k) * a.os[1] + oy * a.os[2] + ox * a.os[3];
    const E dy = po[0], dx = po[a.os[1]];
    *m = a.has_mask ? mask[b * a.ms[0] + (grp * kk + k) * a.ms[1] + oy * a.ms[2] + ox * a.ms[3]]
                    : (E)1;
    const E y = (E)(oy * a.sh - a.ph + ki * a.dh) + dy;
    const E x = (E)(ox * a.sw - a.pw + kj * a.dw) + dx;
    return sample_at<E>(y, x, a.H, a.W);
}

/// The bilinear sample of one plane (through strides sy, sx) at s, each valid corner weighted.
template <class E>
__device__ __forceinline__ E bilinear(const E* __restrict__ px, const Sample<E>& s, i64 sy,
                                      i64 sx) {
    const i64 o = s.y0 * sy + s.x0 * sx;
    E v = 0;
    if (s.valid[0]) v += s.hy * s.hx * px[o];
    if (s.valid[1]) v += s.hy * s.lx * px[o + sx];
    if (s.valid[2]) v += s.ly * s.hx * px[o + sy];
    if (s.valid[3]) v += s.ly * s.lx * px[o + sy + sx];
    return v;
}

/// Decomposes a work index over (channel block, k, n, p) (p fastest) into the sampling point
/// and the block's channels [c0, c1).
struct ChannelWork {
    i64 n, k, p, grp, c0, c1;
};
__device__ __forceinline__ ChannelWork channel_work(i64 i, const DeformArgs& a) {
    const i64 L = a.OH * a.OW, kk = a.kh * a.kw, cpg = a.Cin / a.og;
    const i64 blocks = (cpg + a.cblock - 1) / a.cblock;  // per offset group
    ChannelWork w;
    w.p = i % L;
    i64 r = i / L;
    w.n = r % a.nb;
    r /= a.nb;
    w.k = r % kk;
    const i64 cb = r / kk;
    w.grp = cb / blocks;
    w.c0 = w.grp * cpg + (cb - w.grp * blocks) * a.cblock;
    const i64 end = (w.grp + 1) * cpg;
    w.c1 = w.c0 + a.cblock < end ? w.c0 + a.cblock : end;
    return w;
}

template <class E>
__device__ void deform_im2col_impl(const E* __restrict__ x, const E* __restrict__ off,
                                   const E* __restrict__ mask, E* __restrict__ cols,
                                   const DeformArgs& a, i64 total) {
    const i64 L = a.OH * a.OW, kk = a.kh * a.kw, N = a.nb * L;
    BURN_GRID_LOOP(i, total) {
        const ChannelWork cw = channel_work(i, a);
        const i64 b = a.b0 + cw.n;
        E m;
        const Sample<E> s = deform_point<E>(off, mask, a, b, cw.grp, cw.k, cw.p, &m);
        E* dst = cols + (cw.c0 * kk + cw.k) * N + cw.n * L + cw.p;
        for (i64 c = cw.c0; c < cw.c1; ++c, dst += kk * N) {
            E v = 0;
            if (s.any) v = m * bilinear(x + b * a.xs[0] + c * a.xs[1], s, a.xs[2], a.xs[3]);
            *dst = v;
        }
    }
}

template <class E>
__device__ void deform_col2im_impl(const E* __restrict__ off, const E* __restrict__ mask,
                                   const E* __restrict__ cgrad, E* __restrict__ gx,
                                   const DeformArgs& a, i64 total) {
    const i64 L = a.OH * a.OW, kk = a.kh * a.kw, N = a.nb * L, plane = a.H * a.W;
    BURN_GRID_LOOP(i, total) {
        const ChannelWork cw = channel_work(i, a);
        const i64 b = a.b0 + cw.n;
        E m;
        const Sample<E> s = deform_point<E>(off, mask, a, b, cw.grp, cw.k, cw.p, &m);
        if (!s.any) continue;
        const E wt[4] = {m * (s.hy * s.hx), m * (s.hy * s.lx), m * (s.ly * s.hx),
                         m * (s.ly * s.lx)};
        const i64 o = s.y0 * a.W + s.x0;
        const i64 at[4] = {o, o + 1, o + a.W, o + a.W + 1};
        const E* src = cgrad + (cw.c0 * kk + cw.k) * N + cw.n * L + cw.p;
        for (i64 c = cw.c0; c < cw.c1; ++c, src += kk * N) {
            const E v = *src;
            E* dst = gx + (b * a.Cin + c) * plane;
#pragma unroll
            for (int t = 0; t < 4; ++t)
                if (s.valid[t]) atomicAdd(dst + at[t], wt[t] * v);
        }
    }
}

/// Offset (and mask) gradients, one thread per (n, offset group, k, p) of the chunk, p fastest.
template <class E>
__device__ void deform_coord_grad_impl(const E* __restrict__ x, const E* __restrict__ off,
                                       const E* __restrict__ mask, const E* __restrict__ cgrad,
                                       E* __restrict__ goff, E* __restrict__ gmask,
                                       const DeformArgs& a, i64 total) {
    const i64 L = a.OH * a.OW, kk = a.kh * a.kw, N = a.nb * L, cpg = a.Cin / a.og;
    BURN_GRID_LOOP(i, total) {
        const i64 p = i % L;
        i64 r = i / L;
        const i64 k = r % kk;
        r /= kk;
        const i64 grp = r % a.og, n = r / a.og;
        const i64 b = a.b0 + n;
        E m;
        const Sample<E> s = deform_point<E>(off, mask, a, b, grp, k, p, &m);
        E acc_y = 0, acc_x = 0, acc_m = 0;
        if (s.any) {
            // d(value)/dy and /dx per corner, and the bilinear weights (outside corners 0).
            const E dyw[4] = {-s.hx, -s.lx, s.hx, s.lx};
            const E dxw[4] = {-s.hy, s.hy, -s.ly, s.ly};
            const E vw[4] = {s.hy * s.hx, s.hy * s.lx, s.ly * s.hx, s.ly * s.lx};
            const i64 o = s.y0 * a.xs[2] + s.x0 * a.xs[3];
            const i64 at[4] = {o, o + a.xs[3], o + a.xs[2], o + a.xs[2] + a.xs[3]};
            const E* cg = cgrad + (grp * cpg * kk + k) * N + n * L + p;
            for (i64 c = grp * cpg; c < (grp + 1) * cpg; ++c, cg += kk * N) {
                const E* px = x + b * a.xs[0] + c * a.xs[1];
                E sy = 0, sx = 0, sm = 0;
#pragma unroll
                for (int t = 0; t < 4; ++t) {
                    if (!s.valid[t]) continue;
                    const E v = px[at[t]];
                    sy += dyw[t] * v;
                    sx += dxw[t] * v;
                    sm += vw[t] * v;
                }
                const E gcol = *cg;
                acc_y += gcol * sy;
                acc_x += gcol * sx;
                acc_m += gcol * sm;
            }
        }
        E* oy = goff + (b * a.og * 2 * kk + grp * 2 * kk + 2 * k) * L + p;
        oy[0] = acc_y * m;
        oy[L] = acc_x * m;
        if (a.has_mask) gmask[(b * a.og * kk + grp * kk + k) * L + p] = acc_m;
    }
}

/// out[b0 + n, o, p] = tmp[o][n * L + p] + bias[o], over the chunk's outputs in out's order.
/// In place (out == tmp) when nb == 1.
template <class E>
__device__ void deform_output_impl(const E* tmp, const E* __restrict__ bias, E* out,
                                   const DeformArgs& a, i64 total) {
    const i64 L = a.OH * a.OW, N = a.nb * L;
    BURN_GRID_LOOP(i, total) {
        const i64 p = i % L, r = i / L;
        const i64 o = r % a.Cout, n = r / a.Cout;
        E v = tmp[o * N + n * L + p];
        if (bias) v += bias[o * a.bias_s];
        out[(a.b0 * a.Cout) * L + i] = v;
    }
}

/// out[i] = bias[channel of i] or 0 (nothing sampled: no input channel, or an empty image).
template <class E>
__device__ void deform_fill_impl(const E* __restrict__ bias, E* __restrict__ out,
                                 const DeformArgs& a, i64 total) {
    const i64 L = a.OH * a.OW;
    BURN_GRID_LOOP(i, total) out[i] = bias ? bias[((i / L) % a.Cout) * a.bias_s] : (E)0;
}

/// grad_t[o][n * L + p] = grad[b0 + n, o, p], over grad_t's elements.
template <class E>
__device__ void deform_grad_t_impl(const E* __restrict__ g, E* __restrict__ gt, const DeformArgs& a,
                                   i64 total) {
    const i64 L = a.OH * a.OW;
    BURN_GRID_LOOP(i, total) {
        const i64 p = i % L, r = i / L;
        const i64 n = r % a.nb, o = r / a.nb;
        const i64 oy = p / a.OW, ox = p - oy * a.OW;
        gt[i] = g[(a.b0 + n) * a.gs[0] + o * a.gs[1] + oy * a.gs[2] + ox * a.gs[3]];
    }
}

/// bias_grad[o] = sum of grad[b, o, :, :], a block (blockDim.x a multiple of 32, <= 1024) per
/// channel, grid-stride over channels.
template <class E>
__device__ void deform_bias_grad_impl(const E* __restrict__ g, E* __restrict__ gb,
                                      const DeformArgs& a) {
    __shared__ E partial[32];
    const i64 L = a.OH * a.OW, n = a.B * L;
    for (i64 o = blockIdx.x; o < a.Cout; o += gridDim.x) {
        E s = 0;
        for (i64 e = threadIdx.x; e < n; e += blockDim.x) {
            const i64 p = e % L, b = e / L;
            const i64 oy = p / a.OW, ox = p - oy * a.OW;
            s += g[b * a.gs[0] + o * a.gs[1] + oy * a.gs[2] + ox * a.gs[3]];
        }
        for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
        if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = s;
        __syncthreads();
        if (threadIdx.x < 32) {
            s = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : (E)0;
            for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
            if (threadIdx.x == 0) gb[o] = s;
        }
        __syncthreads();
    }
}

template <class E>
__device__ void deform_accumulate_impl(E* __restrict__ acc, const E* __restrict__ t, i64 n) {
    BURN_GRID_LOOP(i, n) acc[i] += t[i];
}

#define DEFORM_KERNELS(E, SUFFIX)                                                                  \
    extern "C" __global__ void deform_im2col_##SUFFIX(const E* x, const E* off, const E* mask,     \
                                                      E* cols, DeformArgs a, i64 total) {          \
        deform_im2col_impl<E>(x, off, mask, cols, a, total);                                       \
    }                                                                                              \
    extern "C" __global__ void deform_col2im_##SUFFIX(const E* off, const E* mask, const E* cgrad, \
                                                      E* gx, DeformArgs a, i64 total) {            \
        deform_col2im_impl<E>(off, mask, cgrad, gx, a, total);                                     \
    }                                                                                              \
    extern "C" __global__ void deform_coord_grad_##SUFFIX(const E* x, const E* off, const E* mask, \
                                                          const E* cgrad, E* goff, E* gmask,       \
                                                          DeformArgs a, i64 total) {               \
        deform_coord_grad_impl<E>(x, off, mask, cgrad, goff, gmask, a, total);                     \
    }                                                                                              \
    extern "C" __global__ void deform_output_##SUFFIX(const E* tmp, const E* bias, E* out,         \
                                                      DeformArgs a, i64 total) {                   \
        deform_output_impl<E>(tmp, bias, out, a, total);                                           \
    }                                                                                              \
    extern "C" __global__ void deform_fill_##SUFFIX(const E* bias, E* out, DeformArgs a,           \
                                                    i64 total) {                                   \
        deform_fill_impl<E>(bias, out, a, total);                                                  \
    }                                                                                              \
    extern "C" __global__ void deform_grad_t_##SUFFIX(const E* g, E* gt, DeformArgs a,             \
                                                      i64 total) {                                 \
        deform_grad_t_impl<E>(g, gt, a, total);                                                    \
    }                                                                                              \
    extern "C" __global__ void deform_bias_grad_##SUFFIX(const E* g, E* gb, DeformArgs a) {        \
        deform_bias_grad_impl<E>(g, gb, a);                                                        \
    }                                                                                              \
    extern "C" __global__ void deform_accumulate_##SUFFIX(E* acc, const E* t, i64 n) {             \
        deform_accumulate_impl<E>(acc, t, n);                                                      \
    }
BURN_FOR_FLOATS(DEFORM_KERNELS)

// ------------------------------------------------------------------------------ layer norm

__device__ __forceinline__ double ln_warp_sum(double v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/// The mean of row x (d values) and s = sqrt(var + eps), by the 32 lanes of a warp.
template <class E>
__device__ __forceinline__ void ln_stats(const E* x, i64 d, E eps, int lane, E& mean, E& s) {
    double acc = 0.0;
    for (i64 j = lane; j < d; j += 32) acc += (double)x[j];
    mean = (E)(ln_warp_sum(acc) / (double)d);
    double acc2 = 0.0;
    for (i64 j = lane; j < d; j += 32) {
        const E c = ew::sub_rn(x[j], mean);
        acc2 += (double)ew::mul_rn(c, c);
    }
    const E var = (E)(ln_warp_sum(acc2) / (double)d);
    s = ew::m_sqrt(ew::add_rn(var, eps));
}

template <class E>
__device__ __forceinline__ void ln_fwd(const E* x, const E* gamma, const E* beta, E* y, i64 rows,
                                       i64 d, E eps) {
    const int lane = threadIdx.x & 31;
    const i64 row = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;
    const E* xr = x + row * d;
    E* yr = y + row * d;
    E mean, s;
    ln_stats(xr, d, eps, lane, mean, s);
    for (i64 j = lane; j < d; j += 32) {
        E v = ew::mul_rn(ew::div_rn(ew::sub_rn(xr[j], mean), s), gamma[j]);
        if (beta) v = ew::add_rn(v, beta[j]);
        yr[j] = v;
    }
}

template <class E>
__device__ __forceinline__ void ln_bwd_x(const E* x, const E* gamma, const E* g, E* dx, E* row_mean,
                                         E* row_s, i64 rows, i64 d, E eps) {
    const int lane = threadIdx.x & 31;
    const i64 row = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;
    const E* xr = x + row * d;
    const E* gr = g + row * d;
    E mean, s;
    ln_stats(xr, d, eps, lane, mean, s);
    double a = 0.0, b = 0.0;
    for (i64 j = lane; j < d; j += 32) {
        const E xhat = ew::div_rn(ew::sub_rn(xr[j], mean), s);
        const E dxhat = ew::mul_rn(gr[j], gamma[j]);
        a += (double)dxhat;
        b += (double)dxhat * (double)xhat;
    }
    const E ma = (E)(ln_warp_sum(a) / (double)d), mb = (E)(ln_warp_sum(b) / (double)d);
    E* dr = dx + row * d;
    for (i64 j = lane; j < d; j += 32) {
        const E xhat = ew::div_rn(ew::sub_rn(xr[j], mean), s);
        const E dxhat = ew::mul_rn(gr[j], gamma[j]);
        dr[j] = ew::div_rn(ew::sub_rn(ew::sub_rn(dxhat, ma), ew::mul_rn(xhat, mb)), s);
    }
    if (lane == 0) {
        row_mean[row] = mean;
        row_s[row] = s;
    }
}

/// Block (x: 256 columns, y: a chunk of `chunk` rows): the chunk's sums of g * xhat and g.
template <class E>
__device__ __forceinline__ void ln_bwd_params(const E* x, const E* g, const E* row_mean,
                                              const E* row_s, double* part_g, double* part_b,
                                              i64 rows, i64 d, i64 chunk) {
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    const i64 r0 = (i64)blockIdx.y * chunk;
    const i64 r1 = r0 + chunk < rows ? r0 + chunk : rows;
    double sg = 0.0, sb = 0.0;
    for (i64 r = r0; r < r1; ++r) {
        const E xhat = ew::div_rn(ew::sub_rn(x[r * d + j], row_mean[r]), row_s[r]);
        const E gv = g[r * d + j];
        sg += (double)ew::mul_rn(gv, xhat);
        sb += (double)gv;
    }
    part_g[(i64)blockIdx.y * d + j] = sg;
    part_b[(i64)blockIdx.y * d + j] = sb;
}

/// A block (128 threads) per column: thread t sums chunks t, t + 128, ..., then a tree in shared
/// memory adds the threads' sums in a fixed order.
template <class E>
__device__ __forceinline__ void ln_bwd_final(const double* part_g, const double* part_b, E* dgamma,
                                             E* dbeta, i64 d, i64 chunks) {
    __shared__ double sg[128], sb[128];
    const i64 j = blockIdx.x;
    const int t = threadIdx.x;
    double g = 0.0, b = 0.0;
    for (i64 c = t; c < chunks; c += 128) {
        g += part_g[c * d + j];
        b += part_b[c * d + j];
    }
    sg[t] = g;
    sb[t] = b;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s) {
            sg[t] += sg[t + s];
            sb[t] += sb[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        dgamma[j] = (E)sg[0];
        if (dbeta) dbeta[j] = (E)sb[0];
    }
}

#define LAYER_NORM_KERNELS(E, SUFFIX)                                                              \
    extern "C" __global__ void layer_norm_fwd_##SUFFIX(const E* x, const E* gamma, const E* beta,  \
                                                       E* y, i64 rows, i64 d, E eps) {             \
        ln_fwd<E>(x, gamma, beta, y, rows, d, eps);                                                \
    }                                                                                              \
    extern "C" __global__ void layer_norm_bwd_x_##SUFFIX(const E* x, const E* gamma, const E* g,   \
                                                         E* dx, E* row_mean, E* row_s, i64 rows,   \
                                                         i64 d, E eps) {                           \
        ln_bwd_x<E>(x, gamma, g, dx, row_mean, row_s, rows, d, eps);                               \
    }                                                                                              \
    extern "C" __global__ void layer_norm_bwd_params_##SUFFIX(                                     \
        const E* x, const E* g, const E* row_mean, const E* row_s, double* part_g, double* part_b, \
        i64 rows, i64 d, i64 chunk) {                                                              \
        ln_bwd_params<E>(x, g, row_mean, row_s, part_g, part_b, rows, d, chunk);                   \
    }                                                                                              \
    extern "C" __global__ void layer_norm_bwd_final_##SUFFIX(                                      \
        const double* part_g, const double* part_b, E* dgamma, E* dbeta, i64 d, i64 chunks) {      \
        ln_bwd_final<E>(part_g, part_b, dgamma, dbeta, d, chunks);                                 \
    }
BURN_FOR_FLOATS(LAYER_NORM_KERNELS)

// SPDX-License-Identifier: MIT OR Apache-2.0
// Helper kernels of the convolutions (backends/cuda/src/ops_conv.cpp; cuDNN does the
// convolutions themselves), f32, f64 and the half types (computing in f32 through Val):
//   conv_bias_add     y [B, C, L] (dense) += bias[c] (bias any 1-d view: pointer + stride)
//   conv_bias_set     y [B, C, L] (dense)  = bias[c] (an output no input element reaches)
//   conv_bias_grad    sum of grad [B, C, s...] over every dim but 1, in up to `splits` chunks
//                     per channel (a fixed order: deterministic); with splits == 1 the sums are
//                     written to the output, else as f64 partials [C, splits] that
//                     conv_bias_grad_finish adds in order
//   conv_pad_copy     a dense copy of a [B, C, s...] view into a larger dense [B, C, s'...]
//                     tensor, zeros past the view's extent (transposed convolutions whose
//                     padding_out reaches the stride)
#include "common.cuh"

template <class T>
__device__ void bias_add(T* __restrict__ y, const T* __restrict__ bias, i64 bias_stride, i64 n,
                         i64 C, i64 L) {
    typedef Val<T> W;
    BURN_GRID_LOOP(i, n) y[i] = W::st(W::ld(y[i]) + W::ld(bias[((i / L) % C) * bias_stride]));
}

template <class T>
__device__ void bias_set(T* __restrict__ y, const T* __restrict__ bias, i64 bias_stride, i64 n,
                         i64 C, i64 L) {
    BURN_GRID_LOOP(i, n) y[i] = bias[((i / L) % C) * bias_stride];
}

/// Block-wide sum (blockDim.x a multiple of 32, at most 1024) of one value per thread; the result
/// is valid in thread 0. The order of the additions depends only on the block size.
__device__ __forceinline__ double block_sum(double v) {
    __shared__ double warp_sums[32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    const int warps = (int)(blockDim.x >> 5);
    if (warp == 0) {
        v = lane < warps ? warp_sums[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    __syncthreads();  // warp_sums is reused by the block's next item
    return v;
}

/// Block `item` = c * splits + s sums chunk s of channel c. Dense grads ([B, C, L] row-major,
/// `dense` != 0) with long rows (L >= 128) are walked row by row (coalesced, no divisions): chunk
/// s covers rows [s * chunk, (s + 1) * chunk) of the B rows. Otherwise the chunk is a range of
/// the B * L elements of the channel, found through `m`: the grad seen as [C, B, s...] (dims 0
/// and 1 swapped), whose element c * B * L + j is the j-th of channel c.
template <class T>
__device__ void bias_grad(const T* __restrict__ g, Meta m, int dense, i64 B, i64 C, i64 L,
                          i64 splits, i64 chunk, T* __restrict__ out,
                          double* __restrict__ partial) {
    const i64 BL = B * L;
    const bool rows = dense && L >= 128;
    for (i64 item = blockIdx.x; item < C * splits; item += gridDim.x) {
        const i64 c = item / splits, s = item % splits;
        double acc = 0.0;
        if (rows) {
            const i64 b0 = s * chunk, b1 = b0 + chunk < B ? b0 + chunk : B;
            for (i64 b = b0; b < b1; ++b) {
                const T* row = g + (b * C + c) * L;
                for (i64 l = threadIdx.x; l < L; l += blockDim.x) acc += (double)Val<T>::ld(row[l]);
            }
        } else {
            const i64 j0 = s * chunk, j1 = j0 + chunk < BL ? j0 + chunk : BL;
            if (dense) {
                for (i64 j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
                    const i64 b = j / L, l = j - b * L;
                    acc += (double)Val<T>::ld(g[(b * C + c) * L + l]);
                }
            } else {
                for (i64 j = j0 + threadIdx.x; j < j1; j += blockDim.x)
                    acc += (double)Val<T>::ld(g[strided_offset(m, c * BL + j)]);
            }
        }
        acc = block_sum(acc);
        if (threadIdx.x == 0) {
            if (splits == 1) out[c] = Val<T>::st((typename Val<T>::V)acc);
            else partial[c * splits + s] = acc;
        }
    }
}

template <class T>
__device__ void bias_grad_finish(const double* __restrict__ partial, T* __restrict__ out, i64 C,
                                 i64 splits) {
    BURN_GRID_LOOP(c, C) {
        double acc = 0.0;
        for (i64 s = 0; s < splits; ++s) acc += partial[c * splits + s];
        out[c] = Val<T>::st((typename Val<T>::V)acc);
    }
}

/// dst (dense, dims `dst_dims.shape`) = src (the view `src_meta`, whose dims are each at most
/// dst's) at the origin, zeros elsewhere.
template <class T>
__device__ void pad_copy(const T* __restrict__ src, Meta src_meta, T* __restrict__ dst,
                         Meta dst_dims, i64 n) {
    BURN_GRID_LOOP(i, n) {
        i64 rest = i, off = 0;
        bool inside = true;
        for (int d = dst_dims.rank - 1; d >= 0; --d) {
            const i64 c = rest % dst_dims.shape[d];
            rest /= dst_dims.shape[d];
            if (c >= src_meta.shape[d]) inside = false;
            off += c * src_meta.strides[d];
        }
        dst[i] = inside ? src[off] : Val<T>::st(0);
    }
}

#define BURN_CONV_HELPERS(T, SFX)                                                                \
    extern "C" __global__ void conv_bias_add_##SFX(T* y, const T* bias, i64 bias_stride, i64 n,  \
                                                   i64 C, i64 L) {                               \
        bias_add<T>(y, bias, bias_stride, n, C, L);                                              \
    }                                                                                            \
    extern "C" __global__ void conv_bias_set_##SFX(T* y, const T* bias, i64 bias_stride, i64 n,  \
                                                   i64 C, i64 L) {                               \
        bias_set<T>(y, bias, bias_stride, n, C, L);                                              \
    }                                                                                            \
    extern "C" __global__ void conv_bias_grad_##SFX(const T* g, Meta m, int dense, i64 B, i64 C, \
                                                    i64 L, i64 splits, i64 chunk, T* out,        \
                                                    double* partial) {                           \
        bias_grad<T>(g, m, dense, B, C, L, splits, chunk, out, partial);                         \
    }                                                                                            \
    extern "C" __global__ void conv_bias_grad_finish_##SFX(const double* partial, T* out, i64 C, \
                                                           i64 splits) {                         \
        bias_grad_finish<T>(partial, out, C, splits);                                            \
    }                                                                                            \
    extern "C" __global__ void conv_pad_copy_##SFX(const T* src, Meta src_meta, T* dst,          \
                                                   Meta dst_dims, i64 n) {                       \
        pad_copy<T>(src, src_meta, dst, dst_dims, n);                                            \
    }

BURN_FOR_FLOATS(BURN_CONV_HELPERS)
BURN_FOR_HALVES(BURN_CONV_HELPERS)

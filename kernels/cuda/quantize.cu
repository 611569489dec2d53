// SPDX-License-Identifier: MIT OR Apache-2.0
// int8 quantization (include/burn/tensor/quantization_scheme.hpp, the CPU backend's
// backends/cpu/src/quantize.cpp):
//   quantize:   q  = clamp(round_half_even(f32(x) * inv_scale) + offset, -128, 127), NaN -> offset
//   dequantize: x' = E(q - offset) * E(scale)
// Elements fall into ranges sharing a (scale, offset) pair: flat element i belongs to range
// (i / inner) % channels (one range for per-tensor schemes). Per-tensor kernels take the pair as
// scalars (params null); per-channel ones read params: one (f32 value, i32 offset) pair of 8 bytes
// per channel, the value being the reciprocal scale for quantize and the scale for dequantize.
//
// Each thread handles groups of G = 16 / sizeof(E) consecutive elements: one 16-byte access of
// the float side (when the view is dense and aligned) and G bytes of int8. Per-channel ranges are
// followed by a cursor (position in the run, channel) that each grid-stride step advances by a
// constant: a few divisions per thread, none per element. Products are rounded on their own
// (__fmul_rn / __dmul_rn: no FMA contraction), as on the CPU.
#include "common.cuh"

/// The CPU's quantize_value (quantization_scheme.hpp): saturate to [-512, 512] first (NaN -> 0).
__device__ __forceinline__ i8 quantize_value(float x, float inv_scale, int offset) {
    float y = __fmul_rn(x, inv_scale);
    y = y >= -512.0f ? (y <= 512.0f ? y : 512.0f) : (y < -512.0f ? -512.0f : 0.0f);
    const int q = __float2int_rn(y) + offset;
    return (i8)(q < -128 ? -128 : (q > 127 ? 127 : q));
}

__device__ __forceinline__ float to_f32(float x) { return x; }
__device__ __forceinline__ float to_f32(double x) { return __double2float_rn(x); }

__device__ __forceinline__ float dequantize_value(i8 q, float scale, int offset) {
    return __fmul_rn(__int2float_rn((int)q - offset), scale);
}
__device__ __forceinline__ double dequantize_value(i8 q, double scale, int offset) {
    return __dmul_rn((double)((int)q - offset), scale);
}

/// The (scale, offset) pairs of a thread's groups, group after group of its grid-stride loop:
/// scalars for per-tensor schemes, else read from params at a cursor (rem = position of the
/// group's first element in its run of `inner`, c = its channel).
template <int G>
struct Ranges {
    const float2* params;  // (value, offset bits) per channel
    float scalar;
    int scalar_offset;
    i64 inner, channels;
    i64 rem, c, step_rem, step_c;

    /// Positions the cursor at element `e`; later groups are `stride` elements further on.
    __device__ __forceinline__ Ranges(const float* p, float s, int z, i64 inner_, i64 channels_,
                                      i64 e, i64 stride)
        : params(reinterpret_cast<const float2*>(p)),
          scalar(s),
          scalar_offset(z),
          inner(inner_),
          channels(channels_),
          rem(0),
          c(0),
          step_rem(0),
          step_c(0) {
        if (!params) return;
        const u64 run = (u64)e / (u64)inner, srun = (u64)stride / (u64)inner;
        rem = (i64)((u64)e - run * (u64)inner);
        c = (i64)(run % (u64)channels);
        step_rem = (i64)((u64)stride - srun * (u64)inner);
        step_c = (i64)(srun % (u64)channels);
    }

    /// The pairs of the current group's G elements.
    __device__ __forceinline__ void get(float s[G], int z[G]) const {
        if (!params) {
#pragma unroll
            for (int k = 0; k < G; ++k) {
                s[k] = scalar;
                z[k] = scalar_offset;
            }
            return;
        }
        i64 r = rem, ch = c;
#pragma unroll
        for (int k = 0; k < G; ++k) {
            if (k > 0 && ++r == inner) {
                r = 0;
                ch = ch + 1 == channels ? 0 : ch + 1;
            }
            const float2 pair = __ldg(params + ch);
            s[k] = pair.x;
            z[k] = __float_as_int(pair.y);
        }
    }

    /// Moves the cursor to the thread's next group (`stride` elements on).
    __device__ __forceinline__ void advance() {
        if (!params) return;
        rem += step_rem;
        i64 carry = 0;
        if (rem >= inner) {
            rem -= inner;
            carry = 1;
        }
        c += step_c + carry;  // < 2 * channels
        if (c >= channels) c -= channels;
    }
};

/// G input values at e (those past n are 0): one 16-byte load where `vec` (dense and 16-byte
/// aligned), plain loads where dense, strided loads otherwise.
template <int G, class E>
__device__ __forceinline__ void load_group(const E* x, const Meta& m, int dense, int vec, i64 e,
                                           i64 n, float v[G]) {
    if (vec && e + G <= n) {
        if (G == 4) {
            const float4 t = __ldg(reinterpret_cast<const float4*>(x + e));
            v[0] = to_f32(t.x);
            v[1] = to_f32(t.y);
            v[2] = to_f32(t.z);
            v[3] = to_f32(t.w);
        } else {
            const double2 t = __ldg(reinterpret_cast<const double2*>(x + e));
            v[0] = to_f32(t.x);
            v[1] = to_f32(t.y);
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < G; ++k)
        v[k] = e + k < n ? to_f32(x[dense ? e + k : strided_offset(m, e + k)]) : 0.0f;
}

/// quantize: x (a view of f32 or f64, `m`, dense / vec as load_group) -> out (dense int8).
template <class E>
__device__ __forceinline__ void quantize(const E* x, Meta m, int dense, int vec, i8* out, i64 n,
                                         i64 inner, i64 channels, float inv_scale, int offset,
                                         const float* params) {
    constexpr int G = 16 / sizeof(E);
    const i64 groups = (n + G - 1) / G;
    const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 step = (i64)blockDim.x * gridDim.x;
    Ranges<G> ranges(params, inv_scale, offset, inner, channels, first * G, step * G);
    for (i64 g = first; g < groups; g += step, ranges.advance()) {
        const i64 e = g * G;
        float v[G], s[G];
        int z[G];
        load_group<G>(x, m, dense, vec, e, n, v);
        ranges.get(s, z);
        u32 word = 0;
#pragma unroll
        for (int k = 0; k < G; ++k) word |= (u32)(u8)quantize_value(v[k], s[k], z[k]) << (8 * k);
        if (e + G <= n) {
            if (G == 4) *reinterpret_cast<u32*>(out + e) = word;
            else *reinterpret_cast<unsigned short*>(out + e) = (unsigned short)word;
        } else {
            for (int k = 0; k < G && e + k < n; ++k) out[e + k] = (i8)(u8)(word >> (8 * k));
        }
    }
}

/// dequantize: q (dense int8, 4-byte aligned) -> out (dense E, 16-byte aligned).
template <class E>
__device__ __forceinline__ void dequantize(const i8* q, E* out, i64 n, i64 inner, i64 channels,
                                           float scale, int offset, const float* params) {
    constexpr int G = 16 / sizeof(E);
    const i64 groups = (n + G - 1) / G;
    const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 step = (i64)blockDim.x * gridDim.x;
    Ranges<G> ranges(params, scale, offset, inner, channels, first * G, step * G);
    for (i64 g = first; g < groups; g += step, ranges.advance()) {
        const i64 e = g * G;
        float s[G];
        int z[G];
        ranges.get(s, z);
        if (e + G <= n) {
            const u32 word = G == 4 ? __ldg(reinterpret_cast<const u32*>(q + e))
                                    : (u32)__ldg(reinterpret_cast<const unsigned short*>(q + e));
            E v[G];
#pragma unroll
            for (int k = 0; k < G; ++k)
                v[k] = dequantize_value((i8)(u8)(word >> (8 * k)), (E)s[k], z[k]);
            if (G == 4)
                *reinterpret_cast<float4*>(out + e) =
                    make_float4((float)v[0], (float)v[1], (float)v[2], (float)v[3]);
            else *reinterpret_cast<double2*>(out + e) = make_double2((double)v[0], (double)v[1]);
        } else {
            for (int k = 0; k < G && e + k < n; ++k)
                out[e + k] = dequantize_value(q[e + k], (E)s[k], z[k]);
        }
    }
}

#define BURN_QUANTIZE_KERNELS(E, SUFFIX)                                                     \
    extern "C" __global__ void quantize_##SUFFIX(                                            \
        const void* x, Meta m, int dense, int vec, i8* out, i64 n, i64 inner, i64 channels,  \
        float inv_scale, int offset, const float* params) {                                  \
        quantize<E>((const E*)x, m, dense, vec, out, n, inner, channels, inv_scale, offset,  \
                    params);                                                                 \
    }                                                                                        \
    extern "C" __global__ void dequantize_##SUFFIX(const i8* q, void* out, i64 n, i64 inner, \
                                                   i64 channels, float scale, int offset,    \
                                                   const float* params) {                    \
        dequantize<E>(q, (E*)out, n, inner, channels, scale, offset, params);                \
    }

BURN_FOR_FLOATS(BURN_QUANTIZE_KERNELS)

// SPDX-License-Identifier: MIT OR Apache-2.0
// Fused activations (relu, gelu, sigmoid, log_sigmoid, hard_sigmoid, leaky_relu), their backward
// kernels, and the one-pass Adam step (backends/cuda/src/ops_elementwise.cpp launches them). The
// formulas are the CPU backend's (backends/cpu/src/activation.cpp, optim.cpp): sigmoid and
// log_sigmoid go through exp(-|x|), gelu is the exact erf form, NaN inputs give NaN.
// Names: activation_<op>_<dtype>, activation_backward_<op>_<dtype>, adam_step_<dtype>.
#include "ops.cuh"

using namespace ew;

// ------------------------------------------------------------------------------------------------
// Forward (the functors are in ops.cuh)
// ------------------------------------------------------------------------------------------------

#define BURN_ACTIVATION(NAME, OP, T, SFX)                                                  \
    extern "C" __global__ void activation_##NAME##_##SFX(const T* a, Meta ma, T* o, i64 n, \
                                                         int dense, T alpha, T beta) {     \
        map1(a, ma, o, n, dense, OP<T>{alpha, beta});                                      \
    }
#define BURN_ACTIVATION_OPS(X) \
    X(relu, Relu)              \
    X(gelu, Gelu)              \
    X(sigmoid, Sigmoid)        \
    X(log_sigmoid, LogSigmoid) X(hard_sigmoid, HardSigmoid) X(leaky_relu, LeakyRelu)
/// f16 / bf16: the f32 formula on the loaded values, rounded once; f32 alpha and beta.
#define BURN_ACTIVATION_HALF(NAME, OP, T, SFX)                                                 \
    extern "C" __global__ void activation_##NAME##_##SFX(const T* a, Meta ma, T* o, i64 n,     \
                                                         int dense, float alpha, float beta) { \
        map1(a, ma, o, n, dense, halved<T>(OP<float>{alpha, beta}));                           \
    }
#define BURN_ACTIVATION_HALVES(NAME, OP) \
    BURN_ACTIVATION_HALF(NAME, OP, h16, f16) BURN_ACTIVATION_HALF(NAME, OP, bh16, bf16)
#define BURN_ACTIVATION_FLOATS(NAME, OP)  \
    BURN_ACTIVATION(NAME, OP, float, f32) \
    BURN_ACTIVATION(NAME, OP, double, f64) BURN_ACTIVATION_HALVES(NAME, OP)
BURN_ACTIVATION_OPS(BURN_ACTIVATION_FLOATS)
#undef BURN_ACTIVATION_FLOATS
#undef BURN_ACTIVATION_HALVES
#undef BURN_ACTIVATION_HALF
#undef BURN_ACTIVATION

// ------------------------------------------------------------------------------------------------
// Backward: a = the saved tensor, g = the incoming gradient
// ------------------------------------------------------------------------------------------------

#define BURN_ACTIVATION_BACKWARD(NAME, OP, T, SFX, VEC)                     \
    extern "C" __global__ void activation_backward_##NAME##_##SFX(          \
        const T* a, Meta ma, const T* g, Meta mg, T* o, i64 n, int dense) { \
        map2<VEC>(a, ma, g, mg, o, n, dense, OP<T>{});                      \
    }
#define BURN_ACTIVATION_BACKWARD_OPS(X) \
    X(relu, ReluBackward, true)         \
    X(gelu, GeluBackward, false)        \
    X(sigmoid, SigmoidBackward, true) X(log_sigmoid, LogSigmoidBackward, false)
#define BURN_ACTIVATION_BACKWARD_HALF(NAME, OP, T, SFX, VEC)                \
    extern "C" __global__ void activation_backward_##NAME##_##SFX(          \
        const T* a, Meta ma, const T* g, Meta mg, T* o, i64 n, int dense) { \
        map2<VEC>(a, ma, g, mg, o, n, dense, halved<T>(OP<float>{}));       \
    }
#define BURN_ACTIVATION_BACKWARD_FLOATS(NAME, OP, VEC)     \
    BURN_ACTIVATION_BACKWARD(NAME, OP, float, f32, VEC)    \
    BURN_ACTIVATION_BACKWARD(NAME, OP, double, f64, VEC)   \
    BURN_ACTIVATION_BACKWARD_HALF(NAME, OP, h16, f16, VEC) \
    BURN_ACTIVATION_BACKWARD_HALF(NAME, OP, bh16, bf16, VEC)
BURN_ACTIVATION_BACKWARD_OPS(BURN_ACTIVATION_BACKWARD_FLOATS)
#undef BURN_ACTIVATION_BACKWARD_FLOATS
#undef BURN_ACTIVATION_BACKWARD_HALF
#undef BURN_ACTIVATION_BACKWARD

// ------------------------------------------------------------------------------------------------
// Adam: one pass over param, grad and both moments (backends/cpu/src/optim.cpp's adam_loop)
// ------------------------------------------------------------------------------------------------

/// The step's scalars in the parameter's precision, as the CPU backend rounds them.
template <class T>
struct AdamScalars {
    T b1, b2, omb1, omb2, inv_c2, step, eps, wd;
};

template <class T>
__device__ __forceinline__ void adam_one(T p, T g, T m, T v, bool moments, bool decay,
                                         const AdamScalars<T>& h, T& po, T& mo, T& vo) {
    if (decay) g = g + p * h.wd;
    T mi, vi;
    if (moments) {
        mi = m * h.b1 + g * h.omb1;
        vi = v * h.b2 + (g * g) * h.omb2;
    } else {
        mi = g * h.omb1;
        vi = (g * g) * h.omb2;
    }
    mo = mi;
    vo = vi;
    po = p - (mi / (m_sqrt(vi * h.inv_c2) + h.eps)) * h.step;
}

template <class T>
__device__ __forceinline__ void adam_step(const T* p, const Meta& mp, const T* g, const Meta& mg,
                                          const T* m, const Meta& mm, const T* v, const Meta& mv,
                                          T* po, T* mo, T* vo, i64 n, int flags,
                                          const AdamScalars<T>& h) {
    const bool moments = (flags & 1) != 0, decay = (flags & 2) != 0;
    const i64 start = grid_start(), stride = grid_step();
    if (flags & 4) {
        constexpr int N = 16 / sizeof(T);
        i64 head = 0;
        if (aligned<N>(p) && aligned<N>(g) && aligned<N>(po) && aligned<N>(mo) && aligned<N>(vo) &&
            (!moments || (aligned<N>(m) && aligned<N>(v)))) {
            typedef Pack<T, N> P;
            const i64 nv = n / N;
            for (i64 i = start; i < nv; i += stride) {
                const P pp = reinterpret_cast<const P*>(p)[i];
                const P gg = reinterpret_cast<const P*>(g)[i];
                P mi, vi, pn, mn, vn;
                if (moments) {
                    mi = reinterpret_cast<const P*>(m)[i];
                    vi = reinterpret_cast<const P*>(v)[i];
                } else {
#pragma unroll
                    for (int k = 0; k < N; ++k) mi.v[k] = vi.v[k] = (T)0;
                }
#pragma unroll
                for (int k = 0; k < N; ++k)
                    adam_one(pp.v[k], gg.v[k], mi.v[k], vi.v[k], moments, decay, h, pn.v[k],
                             mn.v[k], vn.v[k]);
                reinterpret_cast<P*>(po)[i] = pn;
                reinterpret_cast<P*>(mo)[i] = mn;
                reinterpret_cast<P*>(vo)[i] = vn;
            }
            head = nv * N;
        }
        for (i64 i = head + start; i < n; i += stride) {
            const T mi = moments ? m[i] : (T)0, vi = moments ? v[i] : (T)0;
            adam_one(p[i], g[i], mi, vi, moments, decay, h, po[i], mo[i], vo[i]);
        }
        return;
    }
    for (i64 i = start; i < n; i += stride) {
        i64 op = 0, og = 0, om = 0, ov = 0, unused = 0;
        if (n <= (i64)0xffffffffLL) {
            offsets<u32, 2>(mp, mg, mg, (u32)i, op, og, unused);
            if (moments) offsets<u32, 2>(mm, mv, mv, (u32)i, om, ov, unused);
        } else {
            offsets<u64, 2>(mp, mg, mg, (u64)i, op, og, unused);
            if (moments) offsets<u64, 2>(mm, mv, mv, (u64)i, om, ov, unused);
        }
        const T mi = moments ? m[om] : (T)0, vi = moments ? v[ov] : (T)0;
        adam_one(p[op], g[og], mi, vi, moments, decay, h, po[i], mo[i], vo[i]);
    }
}

/// flags: 1 = moments given (else the first step's zeros; m and v are not read), 2 = weight
/// decay, 4 = dense (every input a plain array; else read through its Meta). The outputs are
/// dense and may be the inputs' own buffers.
#define BURN_ADAM(T, SFX)                                                                          \
    extern "C" __global__ void adam_step_##SFX(const T* p, Meta mp, const T* g, Meta mg,           \
                                               const T* m, Meta mm, const T* v, Meta mv, T* po,    \
                                               T* mo, T* vo, i64 n, int flags, T b1, T b2, T omb1, \
                                               T omb2, T inv_c2, T step, T eps, T wd) {            \
        const AdamScalars<T> h{b1, b2, omb1, omb2, inv_c2, step, eps, wd};                         \
        adam_step(p, mp, g, mg, m, mm, v, mv, po, mo, vo, n, flags, h);                            \
    }
BURN_FOR_FLOATS(BURN_ADAM)
#undef BURN_ADAM

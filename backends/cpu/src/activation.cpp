// SPDX-License-Identifier: MIT OR Apache-2.0
// Activation kernels: fused element-wise activations (relu, leaky_relu, gelu, sigmoid,
// hard_sigmoid, log_sigmoid), their backward helpers, and softmax / log_softmax along any dim.
//
// The element-wise ones are op functors run by the drivers of elementwise.hpp (SIMD over dense
// rows, strided operands gathered, threads over large tensors, output written in place into a
// uniquely owned input). Every formula is the numerically stable one: sigmoid and log_sigmoid go
// through exp(-|x|), which never overflows, and NaN inputs give NaN as in PyTorch.
//
// softmax works on rows that stay in cache: along the last dim one row at a time (max, exp + sum,
// scale), along another dim by blocks of columns of the [outer, n, inner] layout, vectorised
// across the columns (no transpose).
#include <cmath>
#include <limits>

#include "activation_ops.hpp"

namespace burn::cpu {
using namespace ew;   // NOLINT(google-build-using-namespace): private kernel machinery
using namespace act;  // NOLINT(google-build-using-namespace): the activation functors

namespace {
// ------------------------------------------------------------------------------------------------
// softmax
// ------------------------------------------------------------------------------------------------

/// Elements per task of the softmax loops (each element costs an exp: smaller than the grain of
/// the cheap element-wise ops).
constexpr std::size_t kSoftmaxGrain = 8192;
/// Columns per block of the strided (not last dim) softmax.
constexpr std::size_t kColumnBlock = 256;

/// softmax / log_softmax of each of `rows` dense rows of length n (in may equal out).
template <class E>
void softmax_rows(const E* in, E* out, std::size_t rows, std::size_t n, bool log) {
    for (std::size_t r = 0; r < rows; ++r) {
        const E* x = in + r * n;
        E* y = out + r * n;
        std::size_t i = 0;
        // Pass 1: the max (a NaN anywhere makes the sum, hence the whole row, NaN below).
        E m = -std::numeric_limits<E>::infinity();
        if constexpr (kVec<E>) {
            using P = Pk<E>;
            constexpr std::size_t L = ei::unpacket_traits<P>::size;
            if (n >= 2 * L) {
                P m0 = ei::ploadu<P>(x), m1 = ei::ploadu<P>(x + L);
                for (i = 2 * L; i + 2 * L <= n; i += 2 * L) {
                    m0 = ei::pmax(m0, ei::ploadu<P>(x + i));
                    m1 = ei::pmax(m1, ei::ploadu<P>(x + i + L));
                }
                m = ei::predux_max(ei::pmax(m0, m1));
            }
        }
        for (; i < n; ++i) m = x[i] > m ? x[i] : m;
        if (n > 0 && std::isnan(m)) {  // a max that saw a NaN: the row is NaN
            std::fill_n(y, n, m);
            continue;
        }
        // Pass 2: sum of exp(x - m); softmax stores the exponentials.
        E s = 0;
        i = 0;
        if constexpr (kVec<E> && ei::packet_traits<E>::HasExp) {
            using P = Pk<E>;
            constexpr std::size_t L = ei::unpacket_traits<P>::size;
            const P pm = ei::pset1<P>(m);
            P s0 = ei::pzero(pm), s1 = ei::pzero(pm);
            for (; i + 2 * L <= n; i += 2 * L) {
                const P e0 = exp_full(ei::psub(ei::ploadu<P>(x + i), pm));
                const P e1 = exp_full(ei::psub(ei::ploadu<P>(x + i + L), pm));
                if (!log) {
                    ei::pstoreu(y + i, e0);
                    ei::pstoreu(y + i + L, e1);
                }
                s0 = ei::padd(s0, e0);
                s1 = ei::padd(s1, e1);
            }
            s = ei::predux(ei::padd(s0, s1));
        }
        for (; i < n; ++i) {
            const E e = std::exp(x[i] - m);
            if (!log) y[i] = e;
            s += e;
        }
        // Pass 3: scale, or shift by log(sum).
        if (!log) {
            const E inv = E(1) / s;
            i = 0;
            if constexpr (kVec<E>) {
                using P = Pk<E>;
                constexpr std::size_t L = ei::unpacket_traits<P>::size;
                const P pinv = ei::pset1<P>(inv);
                for (; i + L <= n; i += L) ei::pstoreu(y + i, ei::pmul(ei::ploadu<P>(y + i), pinv));
            }
            for (; i < n; ++i) y[i] *= inv;
        } else {
            const E ls = std::log(s);
            i = 0;
            if constexpr (kVec<E>) {
                using P = Pk<E>;
                constexpr std::size_t L = ei::unpacket_traits<P>::size;
                const P pm = ei::pset1<P>(m), pls = ei::pset1<P>(ls);
                for (; i + L <= n; i += L)
                    ei::pstoreu(y + i, ei::psub(ei::psub(ei::ploadu<P>(x + i), pm), pls));
            }
            for (; i < n; ++i) y[i] = (x[i] - m) - ls;
        }
    }
}

/// softmax / log_softmax along the middle dim of a dense [n, inner] slab, for the columns
/// [c0, c0 + w): every pass runs along a contiguous row segment of w columns. `acc` holds 2 * w
/// scratch values.
template <class E>
void softmax_columns(const E* in, E* out, std::size_t n, std::size_t inner, std::size_t c0,
                     std::size_t w, bool log, E* acc) {
    E* m = acc;
    E* s = acc + w;
    const E* x0 = in + c0;
    E* y0 = out + c0;
    // Pass 1: column max, NaN propagating.
    std::copy_n(x0, w, m);
    for (std::size_t k = 1; k < n; ++k) {
        const E* x = x0 + k * inner;
        std::size_t j = 0;
        if constexpr (kVec<E>) {
            using P = Pk<E>;
            constexpr std::size_t L = ei::unpacket_traits<P>::size;
            for (; j + L <= w; j += L)
                ei::pstoreu(m + j, ei::pmax<Eigen::PropagateNaN>(ei::ploadu<P>(m + j),
                                                                 ei::ploadu<P>(x + j)));
        }
        for (; j < w; ++j) m[j] = max_nan(m[j], x[j]);
    }
    // Pass 2: column sums of exp(x - m).
    std::fill_n(s, w, E(0));
    for (std::size_t k = 0; k < n; ++k) {
        const E* x = x0 + k * inner;
        E* y = y0 + k * inner;
        std::size_t j = 0;
        if constexpr (kVec<E> && ei::packet_traits<E>::HasExp) {
            using P = Pk<E>;
            constexpr std::size_t L = ei::unpacket_traits<P>::size;
            for (; j + L <= w; j += L) {
                const P e = exp_full(ei::psub(ei::ploadu<P>(x + j), ei::ploadu<P>(m + j)));
                if (!log) ei::pstoreu(y + j, e);
                ei::pstoreu(s + j, ei::padd(ei::ploadu<P>(s + j), e));
            }
        }
        for (; j < w; ++j) {
            const E e = std::exp(x[j] - m[j]);
            if (!log) y[j] = e;
            s[j] += e;
        }
    }
    // Pass 3.
    if (!log) {
        for (std::size_t j = 0; j < w; ++j) s[j] = E(1) / s[j];
        for (std::size_t k = 0; k < n; ++k) {
            E* y = y0 + k * inner;
            for (std::size_t j = 0; j < w; ++j) y[j] *= s[j];
        }
    } else {
        for (std::size_t j = 0; j < w; ++j) s[j] = std::log(s[j]);
        for (std::size_t k = 0; k < n; ++k) {
            const E* x = x0 + k * inner;
            E* y = y0 + k * inner;
            for (std::size_t j = 0; j < w; ++j) y[j] = (x[j] - m[j]) - s[j];
        }
    }
}

template <class E>
void softmax_typed(const CpuTensor& x, const CpuTensor& out, std::size_t dim, bool log) {
    std::size_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < dim; ++d) outer *= x.shape[d];
    for (std::size_t d = dim + 1; d < x.rank(); ++d) inner *= x.shape[d];
    const std::size_t n = x.shape[dim];
    const E* in = x.data<E>();
    E* o = out.data<E>();
    if (inner == 1) {
        const std::size_t grain = std::max<std::size_t>(1, kSoftmaxGrain / n);
        parallel_for(outer, grain, [&](std::size_t r0, std::size_t r1) {
            softmax_rows<E>(in + r0 * n, o + r0 * n, r1 - r0, n, log);
        });
        return;
    }
    // Tasks: (outer index, block of columns).
    const std::size_t w = std::min(inner, kColumnBlock);
    const std::size_t blocks = (inner + w - 1) / w;
    const std::size_t grain = std::max<std::size_t>(1, kSoftmaxGrain / (n * w));
    parallel_for(outer * blocks, grain, [&](std::size_t t0, std::size_t t1) {
        alignas(64) E acc[2 * kColumnBlock];
        for (std::size_t t = t0; t < t1; ++t) {
            const std::size_t b = t / blocks, c0 = (t % blocks) * w;
            const std::size_t off = b * n * inner;
            softmax_columns<E>(in + off, o + off, n, inner, c0, std::min(w, inner - c0), log, acc);
        }
    });
}

}  // namespace

void softmax_into(const CpuTensor& x, const CpuTensor& out, std::size_t dim, bool log) {
    dispatch_float(x.dtype, log ? "log_softmax" : "softmax",
                   [&](auto e) { softmax_typed<decltype(e)>(x, out, dim, log); });
}

CpuTensor Kernels::activation(Activation op, CpuTensor x, double alpha, double beta) {
    const char* name = backend::op_name(op);
    const DType dt = x.dtype;
    CpuTensor out;
    dispatch_float(dt, name, [&](auto e) {
        using E = decltype(e);
        const View a = view_of(x, x.shape);
        out = output_for(x, x.shape, dt);
        switch (op) {
            case Activation::Relu: run_unary<E, E>(a, out, ARelu{}); break;
            case Activation::Gelu: run_unary<E, E>(a, out, AGelu{}); break;
            case Activation::Sigmoid: run_unary<E, E>(a, out, ASigmoid{}); break;
            case Activation::LogSigmoid: run_unary<E, E>(a, out, ALogSigmoid{}); break;
            case Activation::HardSigmoid:
                run_unary<E, E>(a, out,
                                AHardSigmoid<E>{static_cast<E>(alpha), static_cast<E>(beta)});
                break;
            case Activation::LeakyRelu:
                run_unary<E, E>(a, out, ALeakyRelu<E>{static_cast<E>(alpha)});
                break;
        }
    });
    return out;
}

CpuTensor Kernels::activation_backward(Activation op, CpuTensor saved, CpuTensor grad) {
    const char* name = backend::op_name(op);
    assert(saved.shape == grad.shape && saved.dtype == grad.dtype);
    const DType dt = grad.dtype;
    CpuTensor out;
    dispatch_float(dt, name, [&](auto e) {
        using E = decltype(e);
        const View a = view_of(saved, grad.shape);
        const View b = view_of(grad, grad.shape);
        out = output_for(saved, grad, grad.shape, dt);
        switch (op) {
            case Activation::Relu: run_binary<E, E>(a, b, out, BReluBackward{}); break;
            case Activation::Sigmoid: run_binary<E, E>(a, b, out, BSigmoidBackward{}); break;
            case Activation::Gelu: run_binary<E, E>(a, b, out, BGeluBackward{}); break;
            case Activation::LogSigmoid: run_binary<E, E>(a, b, out, BLogSigmoidBackward{}); break;
            default: assert(false && "no backward kernel for hard_sigmoid and leaky_relu");
        }
    });
    return out;
}

CpuTensor Kernels::softmax(CpuTensor x, std::size_t dim, bool log) {
    const char* name = log ? "log_softmax" : "softmax";
    assert(dim < x.rank());
    const DType dt = x.dtype;
    CpuTensor out;
    dispatch_float(dt, name, [&](auto e) {
        using E = decltype(e);
        // A strided input is made dense first (the copy is then overwritten in place).
        if (!x.is_contiguous()) x = contiguous(std::move(x));
        out = output_for(x, x.shape, dt);
        if (out.num_elements() != 0) softmax_typed<E>(x, out, dim, log);
    });
    return out;
}

}  // namespace burn::cpu

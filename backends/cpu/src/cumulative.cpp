// SPDX-License-Identifier: MIT OR Apache-2.0
// Cumulative ops along one dim: cumsum, cumprod, cummax, cummin (PyTorch's values).
//
// The input is made dense row-major and seen as [outer, n, inner] with n the scanned dim. Every
// lane (o, j) is scanned sequentially along n, so the results do not depend on the thread count.
//   * inner == 1 (the last dim, or only size-1 dims after it): each row of n values is one scan;
//     rows are distributed over threads.
//   * inner > 1: a strip of up to kStrip inner columns is scanned row after row, the running
//     values held in a row of accumulators, so the inner loop runs over contiguous memory
//     (vectorised across the lanes); (outer, strip) tasks are distributed over threads.
// Accumulators follow PyTorch's CPU kernels: f32 sums and products accumulate in f64 (stored
// back as f32 after every step), f64 in f64; integers stay in their type and wrap on overflow.
// cummax/cummin propagate NaN: from the first NaN on, every value of the lane is NaN.
// The result is written into the input's buffer when the input is dense and its only owner.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "internal.hpp"

namespace burn::cpu {
namespace {

using std::size_t;

/// Inner columns one task scans (its accumulators fit in 4 KiB of f64).
constexpr size_t kStrip = 512;

template <CumOp K, class E>
struct Scan {
    static constexpr bool arith = K == CumOp::Sum || K == CumOp::Prod;
    /// The running value's type: f64 for float sums/products, the element type otherwise.
    using A = std::conditional_t<arith && std::is_floating_point_v<E>, double, E>;

    static A lift(E v) { return static_cast<A>(v); }
    static A step(A acc, E v) {
        if constexpr (K == CumOp::Sum || K == CumOp::Prod) {
            if constexpr (std::is_integral_v<E>) {
                // Modular arithmetic in u64 (no signed overflow), truncated back to E.
                const auto a = static_cast<std::uint64_t>(acc), b = static_cast<std::uint64_t>(v);
                return static_cast<E>(K == CumOp::Sum ? a + b : a * b);
            } else {
                return K == CumOp::Sum ? acc + static_cast<A>(v) : acc * static_cast<A>(v);
            }
        } else {
            // Branch-free NaN-propagating max/min (a NaN running value stays; a NaN value wins).
            // Ties take the new element, as PyTorch (the sign of a zero can differ).
            const bool take = K == CumOp::Max ? v >= acc : v <= acc;
            if constexpr (std::is_floating_point_v<E>)
                return (take || v != v) && acc == acc ? v : acc;
            else return take ? v : acc;
        }
    }
    static E store(A acc) { return static_cast<E>(acc); }

    /// out[i] = op over in[0..i], n >= 1 contiguous values (out may alias in).
    static void row(const E* in, E* out, size_t n) {
        A acc = lift(in[0]);
        out[0] = store(acc);
        for (size_t i = 1; i < n; ++i) {
            acc = step(acc, in[i]);
            out[i] = store(acc);
        }
    }

    /// Scans w <= kStrip columns down n rows of stride `stride` (out may alias in).
    static void strip(const E* in, E* out, size_t n, size_t stride, size_t w) {
        alignas(64) A acc[kStrip];
        for (size_t k = 0; k < w; ++k) {
            acc[k] = lift(in[k]);
            out[k] = store(acc[k]);
        }
        for (size_t r = 1; r < n; ++r) {
            const E* src = in + r * stride;
            E* dst = out + r * stride;
            for (size_t k = 0; k < w; ++k) {
                acc[k] = step(acc[k], src[k]);
                dst[k] = store(acc[k]);
            }
        }
    }
};

template <CumOp K, class E>
void scan_typed(const E* in, E* out, size_t outer, size_t n, size_t inner) {
    using S = Scan<K, E>;
    if (inner == 1) {
        const size_t grain = std::max<size_t>(1, kParallelGrain / n);
        parallel_for(outer, grain, [&](size_t b, size_t e) {
            for (size_t o = b; o < e; ++o) S::row(in + o * n, out + o * n, n);
        });
        return;
    }
    const size_t w = std::min(inner, kStrip);
    const size_t strips = (inner + w - 1) / w;
    const size_t grain = std::max<size_t>(1, kParallelGrain / (n * w));
    parallel_for(outer * strips, grain, [&](size_t b, size_t e) {
        for (size_t task = b; task < e; ++task) {
            const size_t o = task / strips, j = (task % strips) * w;
            const size_t at = o * n * inner + j;
            S::strip(in + at, out + at, n, inner, std::min(w, inner - j));
        }
    });
}

template <class F>
void dispatch_cum(CumOp op, F&& f) {
    switch (op) {
        case CumOp::Sum: f(std::integral_constant<CumOp, CumOp::Sum>{}); return;
        case CumOp::Prod: f(std::integral_constant<CumOp, CumOp::Prod>{}); return;
        case CumOp::Max: f(std::integral_constant<CumOp, CumOp::Max>{}); return;
        case CumOp::Min: f(std::integral_constant<CumOp, CumOp::Min>{}); return;
    }
}

}  // namespace

CpuTensor Kernels::cumulative(CumOp op, CpuTensor t, std::size_t dim) {
    assert(dim < t.rank() && t.dtype != DType::Bool);
    const DType dt = t.dtype;
    const Shape shape = t.shape;
    if (shape.num_elements() == 0) return alloc(shape, dt);
    size_t outer = 1, inner = 1;
    for (size_t d = 0; d < dim; ++d) outer *= shape[d];
    for (size_t d = dim + 1; d < shape.rank(); ++d) inner *= shape[d];
    const size_t n = shape[dim];
    CpuTensor in = contiguous(std::move(t));
    CpuTensor out = claim_in_place(in) ? in : alloc(shape, dt);
    dispatch(dt, [&](auto e) {
        using E = decltype(e);
        dispatch_cum(op, [&](auto k) {
            scan_typed<decltype(k)::value, E>(in.data<E>(), out.data<E>(), outer, n, inner);
        });
    });
    return out;
}

}  // namespace burn::cpu

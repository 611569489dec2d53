// SPDX-License-Identifier: MIT OR Apache-2.0
// Pooling kernels with PyTorch's semantics: average pooling (count_include_pad, ceil_mode), max
// pooling (padding never wins, dilation, ceil_mode, argmax indices flattened per plane, NaN wins)
// and adaptive average pooling over 1 to 3 spatial dims, each with its backward.
//
// Inputs are made dense first; a 1-d pooling is a 2-d one over planes of height 1. The forward
// kernels run in parallel over output rows (batch * channels * out_h), the backward kernels over
// planes (batch * channels), since overlapping windows of one plane write the same cells.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

/// Calls f(E{}) for the float dtypes the pooling kernels support.
template <class F>
decltype(auto) dispatch_float(DType d, const char* op, F&& f) {
    if (d == DType::F32) return f(float{});
    if (d == DType::F64) return f(double{});
    detail::fail(op, ": expected a float tensor, got ", dtype_name(d));
}

/// Calls f(I{}) for the index dtypes.
template <class F>
decltype(auto) dispatch_index(DType d, const char* op, F&& f) {
    if (d == DType::I64) return f(std::int64_t{});
    if (d == DType::I32) return f(std::int32_t{});
    detail::fail(op, ": indices must be I64 or I32, got ", dtype_name(d));
}

using i64 = std::int64_t;

/// The window sweep of a 1-d or 2-d pooling seen as 2-d (a 1-d pooling has planes of height 1).
struct Geom {
    std::size_t planes = 0, H = 1, W = 1, OH = 1, OW = 1;
    i64 kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
    Shape out_shape;

    std::size_t plane_in() const { return H * W; }
    std::size_t plane_out() const { return OH * OW; }
};

Geom geometry(const Shape& x, const SpatialArgs& a) {
    Geom g;
    g.out_shape = backend::pool_shape(x, a);
    g.planes = x[0] * x[1];
    const std::size_t off = a.n == 2 ? 1 : 0;  // index of the width in the args
    if (a.n == 2) {
        g.H = x[2], g.OH = g.out_shape[2];
        g.kh = static_cast<i64>(a.kernel[0]), g.sh = static_cast<i64>(a.stride[0]);
        g.ph = static_cast<i64>(a.padding[0]), g.dh = static_cast<i64>(a.dilation[0]);
    }
    g.W = x[x.rank() - 1], g.OW = g.out_shape[x.rank() - 1];
    g.kw = static_cast<i64>(a.kernel[off]), g.sw = static_cast<i64>(a.stride[off]);
    g.pw = static_cast<i64>(a.padding[off]), g.dw = static_cast<i64>(a.dilation[off]);
    return g;
}

/// Items per parallel chunk so that each chunk does about kParallelGrain units of work.
std::size_t grain_for(std::size_t work_per_item) {
    return std::max<std::size_t>(1, kParallelGrain / std::max<std::size_t>(1, work_per_item));
}

/// The clipped extent of each window along one dim: for output o, the first valid input index
/// (reached from o * stride - padding by whole dilation steps) and one past the last.
struct Span {
    std::vector<i64> lo, hi;
};

Span window_spans(std::size_t out, std::size_t in, i64 k, i64 s, i64 p, i64 d) {
    Span sp;
    sp.lo.resize(out), sp.hi.resize(out);
    for (std::size_t o = 0; o < out; ++o) {
        i64 lo = static_cast<i64>(o) * s - p;
        const i64 hi = std::min(lo + (k - 1) * d + 1, static_cast<i64>(in));
        if (lo < 0) lo += ((-lo + d - 1) / d) * d;
        sp.lo[o] = lo, sp.hi[o] = std::max(lo, hi);
    }
    return sp;
}

/// One kernel column of a window sweep: output o reads input column o * stride + base, which
/// lies inside the input for o in [lo, hi).
struct Taps {
    i64 base, lo, hi;
};

std::vector<Taps> column_taps(i64 k, i64 d, i64 s, i64 p, std::size_t in, std::size_t out) {
    std::vector<Taps> taps;
    const i64 n = static_cast<i64>(in);
    for (i64 j = 0; j < k; ++j) {
        const i64 base = j * d - p;
        i64 lo = base >= 0 ? 0 : (-base + s - 1) / s;
        i64 hi = n - 1 - base < 0 ? 0 : (n - 1 - base) / s + 1;
        hi = std::min<i64>(hi, static_cast<i64>(out));
        lo = std::min(lo, hi);
        if (lo < hi) taps.push_back({base, lo, hi});
    }
    return taps;
}

/// Start, end (clipped to the input) and divisor of each average-pooling window along one dim.
struct AvgSpan {
    std::vector<i64> lo, hi, size;  // size: cells counted by count_include_pad
};

AvgSpan avg_spans(std::size_t out, std::size_t in, i64 k, i64 s, i64 p) {
    AvgSpan sp;
    sp.lo.resize(out), sp.hi.resize(out), sp.size.resize(out);
    for (std::size_t o = 0; o < out; ++o) {
        const i64 start = static_cast<i64>(o) * s - p;
        const i64 end = std::min(start + k, static_cast<i64>(in) + p);
        sp.size[o] = end - start;
        sp.lo[o] = std::max<i64>(start, 0);
        sp.hi[o] = std::min<i64>(end, static_cast<i64>(in));
    }
    return sp;
}

// ------------------------------------------------------------------------------ average pooling

// One tap of a window sweep over an output row: outputs [lo, hi) read row[o * stride + base].
// Plain arguments (no loads through references inside the loop) so that the loops vectorise.

template <class E>
void tap_sum(const E* __restrict row, E* __restrict out, i64 lo, i64 hi, i64 stride, i64 base) {
    if (stride == 1) {
        for (i64 o = lo; o < hi; ++o) out[o] += row[o + base];
    } else {
        for (i64 o = lo; o < hi; ++o) out[o] += row[o * stride + base];
    }
}

/// True when `v` replaces the running maximum `m` (PyTorch's rule: greater, or NaN).
template <class E>
inline bool takes_max(E v, E m) {
    return (v > m) | (v != v);  // no short circuit: branch-free
}

template <class E>
inline E nan_max(E m, E v) {
    return takes_max(v, m) ? v : m;
}

template <class E>
void tap_max(const E* __restrict row, E* __restrict out, i64 lo, i64 hi, i64 stride, i64 base) {
    if (stride == 1) {
        for (i64 o = lo; o < hi; ++o) out[o] = nan_max(out[o], row[o + base]);
    } else {
        for (i64 o = lo; o < hi; ++o) out[o] = nan_max(out[o], row[o * stride + base]);
    }
}

/// tap_max that also records the plane index (row_offset + column) of each new maximum.
template <class E, class I>
void tap_max_index(const E* __restrict row, E* __restrict out, I* __restrict oi, i64 lo, i64 hi,
                   i64 stride, i64 base, i64 row_offset) {
    for (i64 o = lo; o < hi; ++o) {
        const E v = row[o * stride + base];
        const E cur = out[o];
        const bool take = takes_max(v, cur);
        out[o] = take ? v : cur;
        oi[o] = take ? static_cast<I>(row_offset + o * stride + base) : oi[o];
    }
}

template <class E>
void avg_pool_forward(const E* __restrict x, E* __restrict y, const Geom& g,
                      bool count_include_pad) {
    const AvgSpan hs = avg_spans(g.OH, g.H, g.kh, g.sh, g.ph);
    const AvgSpan ws = avg_spans(g.OW, g.W, g.kw, g.sw, g.pw);
    const std::vector<Taps> taps = column_taps(g.kw, 1, g.sw, g.pw, g.W, g.OW);
    const std::size_t rows = g.planes * g.OH;
    parallel_for(rows, grain_for(g.OW * static_cast<std::size_t>(g.kh * g.kw)),
                 [&](std::size_t r0, std::size_t r1) {
                     for (std::size_t r = r0; r < r1; ++r) {
                         const std::size_t p = r / g.OH, oh = r % g.OH;
                         const E* plane = x + p * g.plane_in();
                         E* __restrict out = y + r * g.OW;
                         std::fill(out, out + g.OW, E(0));
                         // Window sums tap by tap: each (row, column offset) adds a strided input
                         // row to the outputs it reaches, in the order PyTorch sums each window.
                         for (i64 h = hs.lo[oh]; h < hs.hi[oh]; ++h) {
                             const E* __restrict row = plane + h * static_cast<i64>(g.W);
                             for (const Taps& t : taps) tap_sum(row, out, t.lo, t.hi, g.sw, t.base);
                         }
                         const i64 hsize = hs.size[oh], hcount = hs.hi[oh] - hs.lo[oh];
                         for (std::size_t ow = 0; ow < g.OW; ++ow) {
                             const i64 div = count_include_pad ? hsize * ws.size[ow]
                                                               : hcount * (ws.hi[ow] - ws.lo[ow]);
                             out[ow] = div > 0 ? out[ow] / static_cast<E>(div) : E(0);
                         }
                     }
                 });
}

/// The transpose of tap_sum: row[o * stride + base] += v[o] for outputs [lo, hi).
template <class E>
void tap_spread(E* __restrict row, const E* __restrict v, i64 lo, i64 hi, i64 stride, i64 base) {
    if (stride == 1) {
        for (i64 o = lo; o < hi; ++o) row[o + base] += v[o];
    } else {
        for (i64 o = lo; o < hi; ++o) row[o * stride + base] += v[o];
    }
}

template <class E>
void avg_pool_backward_kernel(const E* __restrict gy, E* __restrict gx, const Geom& g,
                              bool count_include_pad) {
    const AvgSpan hs = avg_spans(g.OH, g.H, g.kh, g.sh, g.ph);
    const AvgSpan ws = avg_spans(g.OW, g.W, g.kw, g.sw, g.pw);
    const std::vector<Taps> taps = column_taps(g.kw, 1, g.sw, g.pw, g.W, g.OW);
    parallel_for(
        g.planes, grain_for(g.plane_in() + g.plane_out() * static_cast<std::size_t>(g.kh * g.kw)),
        [&](std::size_t p0, std::size_t p1) {
            std::vector<E> share(g.OW);
            E* __restrict v = share.data();
            for (std::size_t p = p0; p < p1; ++p) {
                E* plane = gx + p * g.plane_in();
                std::fill(plane, plane + g.plane_in(), E(0));  // zeroed here: in parallel, in cache
                for (std::size_t oh = 0; oh < g.OH; ++oh) {
                    // Each output's share of its gradient, then spread tap by tap over its window.
                    const E* __restrict go = gy + (p * g.OH + oh) * g.OW;
                    const i64 hsize = hs.size[oh], hcount = hs.hi[oh] - hs.lo[oh];
                    for (std::size_t ow = 0; ow < g.OW; ++ow) {
                        const i64 div = count_include_pad ? hsize * ws.size[ow]
                                                          : hcount * (ws.hi[ow] - ws.lo[ow]);
                        v[ow] = div > 0 ? go[ow] / static_cast<E>(div) : E(0);
                    }
                    for (i64 h = hs.lo[oh]; h < hs.hi[oh]; ++h) {
                        E* row = plane + h * static_cast<i64>(g.W);
                        for (const Taps& t : taps) tap_spread(row, v, t.lo, t.hi, g.sw, t.base);
                    }
                }
            }
        });
}

// ------------------------------------------------------------------------------ max pooling

/// One output row of the 2x2 stride-2 pooling with indices: rows a and b of the input, the first
/// at plane offset `base`. Starting from the first cell equals PyTorch's start from -inf.
template <class E, class I>
void max_2x2_index(const E* __restrict a, const E* __restrict b, E* __restrict out,
                   I* __restrict oi, std::size_t n, i64 base, i64 W) {
    for (std::size_t j = 0; j < n; ++j) {
        const i64 c = base + static_cast<i64>(2 * j);
        E m = a[2 * j];
        i64 k = c;
        bool t = takes_max(a[2 * j + 1], m);
        m = t ? a[2 * j + 1] : m, k = t ? c + 1 : k;
        t = takes_max(b[2 * j], m);
        m = t ? b[2 * j] : m, k = t ? c + W : k;
        t = takes_max(b[2 * j + 1], m);
        m = t ? b[2 * j + 1] : m, k = t ? c + W + 1 : k;
        out[j] = m;
        oi[j] = static_cast<I>(k);
    }
}

/// 2x2 windows, stride 2, no padding, every window inside the input: no bounds to check.
template <class E, class I, bool WithIdx>
void max_pool_2x2(const E* __restrict x, E* __restrict y, I* __restrict idx, const Geom& g) {
    const std::size_t rows = g.planes * g.OH;
    parallel_for(rows, grain_for(4 * g.OW), [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r) {
            const std::size_t p = r / g.OH, oh = r % g.OH;
            const E* __restrict a = x + p * g.plane_in() + 2 * oh * g.W;
            const E* __restrict b = a + g.W;
            E* __restrict out = y + r * g.OW;
            if constexpr (!WithIdx) {
                for (std::size_t j = 0; j < g.OW; ++j) {
                    E m = a[2 * j];
                    m = nan_max(m, a[2 * j + 1]);
                    m = nan_max(m, b[2 * j]);
                    m = nan_max(m, b[2 * j + 1]);
                    out[j] = m;
                }
            } else {
                max_2x2_index(a, b, out, idx + r * g.OW, g.OW, static_cast<i64>(2 * oh * g.W),
                              static_cast<i64>(g.W));
            }
        }
    });
}

template <class E, class I, bool WithIdx>
void max_pool_forward(const E* __restrict x, E* __restrict y, I* __restrict idx, const Geom& g) {
    if (g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0 && g.dh == 1 &&
        g.dw == 1 && 2 * g.OH <= g.H && 2 * g.OW <= g.W) {
        max_pool_2x2<E, I, WithIdx>(x, y, idx, g);
        return;
    }
    const Span hs = window_spans(g.OH, g.H, g.kh, g.sh, g.ph, g.dh);
    const Span ws = window_spans(g.OW, g.W, g.kw, g.sw, g.pw, g.dw);
    const std::vector<Taps> taps = column_taps(g.kw, g.dw, g.sw, g.pw, g.W, g.OW);
    const std::size_t rows = g.planes * g.OH;
    const i64 W = static_cast<i64>(g.W), sw = g.sw;
    parallel_for(rows, grain_for(g.OW * static_cast<std::size_t>(g.kh * g.kw)),
                 [&](std::size_t r0, std::size_t r1) {
                     for (std::size_t r = r0; r < r1; ++r) {
                         const std::size_t p = r / g.OH, oh = r % g.OH;
                         const E* plane = x + p * g.plane_in();
                         E* __restrict out = y + r * g.OW;
                         I* __restrict oi = WithIdx ? idx + r * g.OW : nullptr;
                         const i64 h0 = hs.lo[oh], h1 = hs.hi[oh];
                         std::fill(out, out + g.OW, -std::numeric_limits<E>::infinity());
                         if constexpr (WithIdx)  // a window of -inf keeps its first cell
                             for (std::size_t ow = 0; ow < g.OW; ++ow)
                                 oi[ow] = static_cast<I>(h0 * W + ws.lo[ow]);
                         // Tap by tap, in PyTorch's order within each window (rows, then columns):
                         // the running maximum is replaced by a greater value or a NaN.
                         // Branch-free, so it vectorises.
                         for (i64 h = h0; h < h1; h += g.dh) {
                             const E* __restrict row = plane + h * W;
                             for (const Taps& t : taps) {
                                 if constexpr (WithIdx)
                                     tap_max_index(row, out, oi, t.lo, t.hi, sw, t.base, h * W);
                                 else tap_max(row, out, t.lo, t.hi, sw, t.base);
                             }
                         }
                     }
                 });
}

[[noreturn, gnu::noinline, gnu::cold]] void bad_index(i64 k, std::size_t plane) {
    detail::fail("max_pool_backward: index ", k, " is out of range for an input plane of ", plane,
                 " elements");
}

template <class E, class I>
void max_pool_backward_kernel(const E* __restrict gy, const I* __restrict idx, E* __restrict gx,
                              std::size_t planes, std::size_t plane_in, std::size_t plane_out) {
    // An index outside its plane throws (from the worker; parallel_for passes it on and the
    // partly written result is dropped).
    parallel_for(planes, grain_for(plane_in + plane_out), [&](std::size_t p0, std::size_t p1) {
        for (std::size_t p = p0; p < p1; ++p) {
            E* plane = gx + p * plane_in;
            std::fill(plane, plane + plane_in, E(0));
            const E* go = gy + p * plane_out;
            const I* io = idx + p * plane_out;
            for (std::size_t o = 0; o < plane_out; ++o) {
                const i64 k = static_cast<i64>(io[o]);
                if (static_cast<std::uint64_t>(k) >= plane_in) [[unlikely]]
                    bad_index(k, plane_in);
                plane[k] += go[o];
            }
        }
    });
}

// ------------------------------------------------------------------------------ adaptive pooling

/// PyTorch's adaptive bins along one dim: [floor(o * in / out), ceil((o + 1) * in / out)).
struct Bins {
    std::vector<std::size_t> lo, hi;
};

Bins adaptive_bins(std::size_t in, std::size_t out) {
    Bins b;
    b.lo.resize(out), b.hi.resize(out);
    for (std::size_t o = 0; o < out; ++o) {
        b.lo[o] = o * in / out;
        b.hi[o] = ((o + 1) * in + out - 1) / out;
    }
    return b;
}

/// The spatial dims of an adaptive pooling as 3-d: [D, H, W] padded with leading 1s.
struct Geom3 {
    std::size_t planes = 0;
    std::array<std::size_t, 3> in{1, 1, 1}, out{1, 1, 1};
    std::size_t plane_in() const { return in[0] * in[1] * in[2]; }
    std::size_t plane_out() const { return out[0] * out[1] * out[2]; }
};

Geom3 adaptive_geometry(const Shape& x, std::span<const std::size_t> output_size) {
    const std::size_t n = output_size.size();
    assert(n >= 1 && n <= 3 && x.rank() == n + 2);
    Geom3 g;
    g.planes = x[0] * x[1];
    for (std::size_t i = 0; i < n; ++i) {
        g.in[3 - n + i] = x[2 + i];
        g.out[3 - n + i] = output_size[i];
        assert(output_size[i] > 0 && x[2 + i] > 0);
    }
    return g;
}

/// Sum of n dense values over 16 independent lanes (vectorised; a single running sum would be
/// one long dependency chain).
template <class E>
E dense_sum(const E* __restrict s, std::size_t n) {
    constexpr std::size_t L = 16;
    E lanes[L] = {};
    std::size_t i = 0;
    for (; i + L <= n; i += L)
        for (std::size_t j = 0; j < L; ++j) lanes[j] += s[i + j];
    E acc = 0;
    for (std::size_t j = 0; j < L; ++j) acc += lanes[j];
    for (; i < n; ++i) acc += s[i];
    return acc;
}

/// Whether every spatial dim divides evenly into its output: the bins are then disjoint windows
/// of in / out elements (the MNIST guide's 24x24 -> 8x8: 3x3 windows).
bool adaptive_uniform(const Geom3& g) {
    for (int i = 0; i < 3; ++i)
        if (g.in[i] % g.out[i] != 0) return false;
    return true;
}

/// out[ow] = (sum of acc[ow*KW .. ow*KW + KW)) / cnt, summed left to right from 0 like the
/// general path (same values bit for bit); KW = 0 means the run-time kw.
template <std::size_t KW, class E>
inline void window_sums(const E* __restrict acc, E* __restrict out, std::size_t ow_n,
                        std::size_t kw, E cnt) {
    const std::size_t k = KW ? KW : kw;
    for (std::size_t ow = 0; ow < ow_n; ++ow) {
        E s = 0;
        for (std::size_t t = 0; t < k; ++t) s += acc[ow * k + t];
        out[ow] = s / cnt;
    }
}

/// Disjoint windows: each output row (p, od, oh) sums its kd * kh input rows into a stack
/// buffer, then every window of kw; no bin tables and no heap buffer per chunk.
template <class E, std::size_t KW>
void adaptive_forward_uniform(const E* __restrict x, E* __restrict y, const Geom3& g) {
    const std::size_t H = g.in[1], W = g.in[2];
    const std::size_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
    const std::size_t kd = g.in[0] / OD, kh = H / OH, kw = W / OW;
    const E cnt = static_cast<E>(kd * kh * kw);
    const std::size_t rows = g.planes * OD * OH;
    parallel_for(rows, grain_for(kd * kh * W + OW), [&](std::size_t r0, std::size_t r1) {
        constexpr std::size_t kStack = 1024;
        E stack[kStack];
        std::vector<E> heap(W > kStack ? W : 0);
        E* __restrict acc = W > kStack ? heap.data() : stack;
        for (std::size_t r = r0; r < r1; ++r) {
            const std::size_t oh = r % OH, od = (r / OH) % OD, p = r / (OH * OD);
            const E* plane = x + p * g.plane_in();
            for (std::size_t w = 0; w < W; ++w) acc[w] = E(0);
            for (std::size_t d = od * kd; d < (od + 1) * kd; ++d)
                for (std::size_t h = oh * kh; h < (oh + 1) * kh; ++h) {
                    const E* __restrict row = plane + (d * H + h) * W;
                    for (std::size_t w = 0; w < W; ++w) acc[w] += row[w];
                }
            window_sums<KW>(acc, y + r * OW, OW, kw, cnt);
        }
    });
}

/// Disjoint windows: every input row belongs to exactly one output row, so each input row is
/// written once (0 + the spread gradient, as the general path's zero fill then add) and no plane
/// is zeroed first.
template <class E, std::size_t KW>
void adaptive_backward_uniform(const E* __restrict gy, E* __restrict gx, const Geom3& g) {
    const std::size_t H = g.in[1], W = g.in[2];
    const std::size_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
    const std::size_t kd = g.in[0] / OD, kh = H / OH, kw = W / OW;
    const std::size_t k = KW ? KW : kw;
    const E cnt = static_cast<E>(kd * kh * kw);
    const std::size_t rows = g.planes * OD * OH;
    parallel_for(rows, grain_for(kd * kh * W + OW), [&](std::size_t r0, std::size_t r1) {
        constexpr std::size_t kStack = 1024;
        E stack[kStack];
        std::vector<E> heap(W > kStack ? W : 0);
        E* __restrict acc = W > kStack ? heap.data() : stack;
        for (std::size_t r = r0; r < r1; ++r) {
            const std::size_t oh = r % OH, od = (r / OH) % OD, p = r / (OH * OD);
            const E* go = gy + r * OW;
            for (std::size_t ow = 0; ow < OW; ++ow) {
                const E v = E(0) + go[ow] / cnt;
                for (std::size_t t = 0; t < k; ++t) acc[ow * k + t] = v;
            }
            E* plane = gx + p * g.plane_in();
            for (std::size_t d = od * kd; d < (od + 1) * kd; ++d)
                for (std::size_t h = oh * kh; h < (oh + 1) * kh; ++h) {
                    E* __restrict row = plane + (d * H + h) * W;
                    for (std::size_t w = 0; w < W; ++w) row[w] = E(0) + acc[w];
                }
        }
    });
}

/// Runs f(std::integral_constant<size_t, KW>) with KW = kw for the common small windows, else 0
/// (the run-time kw).
template <class F>
void with_kw(std::size_t kw, F&& f) {
    switch (kw) {
        case 1: return f(std::integral_constant<std::size_t, 1>{});
        case 2: return f(std::integral_constant<std::size_t, 2>{});
        case 3: return f(std::integral_constant<std::size_t, 3>{});
        case 4: return f(std::integral_constant<std::size_t, 4>{});
        default: return f(std::integral_constant<std::size_t, 0>{});
    }
}

template <class E>
void adaptive_forward(const E* __restrict x, E* __restrict y, const Geom3& g) {
    const std::size_t D = g.in[0], H = g.in[1], W = g.in[2];
    const std::size_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
    if (g.plane_out() == 1) {  // global average pooling: one dense sum per plane
        const std::size_t n = g.plane_in();
        parallel_for(g.planes, grain_for(n), [&](std::size_t p0, std::size_t p1) {
            for (std::size_t p = p0; p < p1; ++p) {
                y[p] = dense_sum(x + p * n, n) / static_cast<E>(n);
            }
        });
        return;
    }
    if (adaptive_uniform(g)) {
        with_kw(W / OW,
                [&](auto kw) { adaptive_forward_uniform<E, decltype(kw)::value>(x, y, g); });
        return;
    }
    const Bins bd = adaptive_bins(D, OD), bh = adaptive_bins(H, OH), bw = adaptive_bins(W, OW);
    // Each output row (od, oh): sum the input rows of its (d, h) bin into a row buffer (dense,
    // vectorised), then reduce the buffer over each w bin.
    const std::size_t rows = g.planes * OD * OH;
    const std::size_t work = (D * H / std::max<std::size_t>(1, OD * OH) + 2) * W;
    parallel_for(rows, grain_for(work), [&](std::size_t r0, std::size_t r1) {
        std::vector<E> buf(W);
        for (std::size_t r = r0; r < r1; ++r) {
            const std::size_t oh = r % OH, od = (r / OH) % OD, p = r / (OH * OD);
            const E* plane = x + p * g.plane_in();
            E* __restrict acc = buf.data();
            std::fill(acc, acc + W, E(0));
            for (std::size_t d = bd.lo[od]; d < bd.hi[od]; ++d)
                for (std::size_t h = bh.lo[oh]; h < bh.hi[oh]; ++h) {
                    const E* __restrict row = plane + (d * H + h) * W;
                    for (std::size_t w = 0; w < W; ++w) acc[w] += row[w];
                }
            const std::size_t cnt_dh = (bd.hi[od] - bd.lo[od]) * (bh.hi[oh] - bh.lo[oh]);
            E* out = y + r * OW;
            for (std::size_t ow = 0; ow < OW; ++ow) {
                E s = 0;
                for (std::size_t w = bw.lo[ow]; w < bw.hi[ow]; ++w) s += acc[w];
                out[ow] = s / static_cast<E>(cnt_dh * (bw.hi[ow] - bw.lo[ow]));
            }
        }
    });
}

template <class E>
void adaptive_backward(const E* __restrict gy, E* __restrict gx, const Geom3& g) {
    const std::size_t D = g.in[0], H = g.in[1], W = g.in[2];
    const std::size_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
    if (adaptive_uniform(g)) {
        with_kw(W / OW,
                [&](auto kw) { adaptive_backward_uniform<E, decltype(kw)::value>(gy, gx, g); });
        return;
    }
    const Bins bd = adaptive_bins(D, OD), bh = adaptive_bins(H, OH), bw = adaptive_bins(W, OW);
    // Planes are independent; inside a plane, each output row spreads its gradient over a row
    // buffer (w bins), which is then added to every input row of its (d, h) bin.
    parallel_for(
        g.planes, grain_for(g.plane_in() + g.plane_out()), [&](std::size_t p0, std::size_t p1) {
            std::vector<E> buf(W);
            for (std::size_t p = p0; p < p1; ++p) {
                E* plane = gx + p * g.plane_in();
                std::fill(plane, plane + g.plane_in(), E(0));  // zeroed here: in parallel, in cache
                for (std::size_t od = 0; od < OD; ++od)
                    for (std::size_t oh = 0; oh < OH; ++oh) {
                        const E* go = gy + p * g.plane_out() + (od * OH + oh) * OW;
                        const std::size_t cnt_dh =
                            (bd.hi[od] - bd.lo[od]) * (bh.hi[oh] - bh.lo[oh]);
                        E* __restrict acc = buf.data();
                        std::fill(acc, acc + W, E(0));
                        for (std::size_t ow = 0; ow < OW; ++ow) {
                            const E v = go[ow] / static_cast<E>(cnt_dh * (bw.hi[ow] - bw.lo[ow]));
                            for (std::size_t w = bw.lo[ow]; w < bw.hi[ow]; ++w) acc[w] += v;
                        }
                        for (std::size_t d = bd.lo[od]; d < bd.hi[od]; ++d)
                            for (std::size_t h = bh.lo[oh]; h < bh.hi[oh]; ++h) {
                                E* __restrict row = plane + (d * H + h) * W;
                                for (std::size_t w = 0; w < W; ++w) row[w] += acc[w];
                            }
                    }
            }
        });
}

}  // namespace

CpuTensor Kernels::avg_pool(CpuTensor x, const SpatialArgs& a) {
    const Geom g = geometry(x.shape, a);
    x = contiguous(std::move(x));
    CpuTensor y = alloc(g.out_shape, x.dtype);
    dispatch_float(x.dtype, "avg_pool", [&](auto e) {
        using E = decltype(e);
        avg_pool_forward<E>(x.data<E>(), y.data<E>(), g, a.count_include_pad);
    });
    return y;
}

CpuTensor Kernels::avg_pool_backward(CpuTensor x, CpuTensor grad, const SpatialArgs& a) {
    const Geom g = geometry(x.shape, a);
    assert(grad.shape == g.out_shape && grad.dtype == x.dtype);
    grad = contiguous(std::move(grad));
    CpuTensor gx = alloc(x.shape, x.dtype);  // each plane is zeroed by its kernel
    dispatch_float(x.dtype, "avg_pool_backward", [&](auto e) {
        using E = decltype(e);
        avg_pool_backward_kernel<E>(grad.data<E>(), gx.data<E>(), g, a.count_include_pad);
    });
    return gx;
}

std::pair<CpuTensor, CpuTensor> Kernels::max_pool(CpuTensor x, const SpatialArgs& a,
                                                  bool with_indices, DType index_dtype) {
    const Geom g = geometry(x.shape, a);
    x = contiguous(std::move(x));
    CpuTensor y = alloc(g.out_shape, x.dtype);
    CpuTensor idx;
    dispatch_float(x.dtype, "max_pool", [&](auto e) {
        using E = decltype(e);
        if (!with_indices) {
            max_pool_forward<E, std::int64_t, false>(x.data<E>(), y.data<E>(), nullptr, g);
            return;
        }
        idx = alloc(g.out_shape, index_dtype);
        dispatch_index(index_dtype, "max_pool", [&](auto i) {
            using I = decltype(i);
            max_pool_forward<E, I, true>(x.data<E>(), y.data<E>(), idx.data<I>(), g);
        });
    });
    if (!with_indices) idx = alloc(Shape{0}, index_dtype);
    return {std::move(y), std::move(idx)};
}

CpuTensor Kernels::max_pool_backward(CpuTensor x, CpuTensor grad, CpuTensor indices,
                                     const SpatialArgs& a) {
    const char* op = "max_pool_backward";
    const Geom g = geometry(x.shape, a);
    assert(grad.shape == g.out_shape && indices.shape == g.out_shape && grad.dtype == x.dtype);
    grad = contiguous(std::move(grad));
    indices = contiguous(std::move(indices));
    CpuTensor gx = alloc(x.shape, x.dtype);  // each plane is zeroed by its kernel
    dispatch_float(x.dtype, op, [&](auto e) {
        using E = decltype(e);
        dispatch_index(indices.dtype, op, [&](auto i) {
            using I = decltype(i);
            max_pool_backward_kernel<E, I>(grad.data<E>(), indices.data<I>(), gx.data<E>(),
                                           g.planes, g.plane_in(), g.plane_out());
        });
    });
    return gx;
}

CpuTensor Kernels::adaptive_avg_pool(CpuTensor x, std::span<const std::size_t> output_size) {
    const Geom3 g = adaptive_geometry(x.shape, output_size);
    Shape out{x.shape[0], x.shape[1]};
    for (std::size_t s : output_size) out.push_back(s);
    x = contiguous(std::move(x));
    CpuTensor y = alloc(out, x.dtype);
    dispatch_float(x.dtype, "adaptive_avg_pool", [&](auto e) {
        using E = decltype(e);
        adaptive_forward<E>(x.data<E>(), y.data<E>(), g);
    });
    return y;
}

CpuTensor Kernels::adaptive_avg_pool_backward(CpuTensor x, CpuTensor grad) {
    const char* op = "adaptive_avg_pool_backward";
    assert(grad.rank() == x.rank() && grad.shape[0] == x.shape[0] && grad.shape[1] == x.shape[1]);
    assert(grad.dtype == x.dtype);
    const Geom3 g = adaptive_geometry(x.shape, grad.shape.dims().subspan(2));
    grad = contiguous(std::move(grad));
    CpuTensor gx = alloc(x.shape, x.dtype);  // each plane is zeroed by its kernel
    dispatch_float(x.dtype, op, [&](auto e) {
        using E = decltype(e);
        adaptive_backward<E>(grad.data<E>(), gx.data<E>(), g);
    });
    return gx;
}

}  // namespace burn::cpu

// SPDX-License-Identifier: MIT OR Apache-2.0
// Reductions: over everything, along one dim (kept with size 1), arg-max/min, any/all.
//
// Contiguous runs are folded with SIMD packets (several independent accumulators). Float sums are
// blocked: each block of 4096 values is summed in f32 lanes, block sums are added in f64, so
// the error does not grow with the tensor's size. Work is split into fixed chunks, so results do
// not depend on the number of threads. Reducing a dim that is not the innermost accumulates whole
// rows into a row of accumulators (vectorised over the contiguous inner dims).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "internal.hpp"
#include "simd.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace burn::cpu {
namespace {

using std::int64_t;
using std::size_t;

/// Values summed in f32 lanes before the partial sum moves to f64.
constexpr size_t kSumBlock = 4096;
/// Fixed work unit of a parallel reduction (results do not depend on the thread count).
constexpr size_t kChunk = size_t{1} << 16;
/// Rows accumulated in the element type before moving to the f64 accumulator (column sums).
constexpr size_t kRowBlock = 64;
/// Widest column strip one task accumulates (whole rows up to this width: streaming them in memory
/// order is much faster than narrow strips).
constexpr size_t kColWidth = 4096;
/// Fewest rows a task accumulates when a column reduction is also split along the rows.
constexpr size_t kMinSegRows = 64;
/// Column reductions are split into at least this many tasks when the shape allows.
constexpr size_t kMinTasks = 8;

// ------------------------------------------------------------------------------------------------
// Folding ops
// ------------------------------------------------------------------------------------------------

struct FSum {
    template <class E>
    static E scalar(E a, E b) {
        return a + b;
    }
    template <class P>
    static P packet(const P& a, const P& b) {
        return ei::padd(a, b);
    }
};
struct FProd {
    template <class E>
    static E scalar(E a, E b) {
        return a * b;
    }
    template <class P>
    static P packet(const P& a, const P& b) {
        return ei::pmul(a, b);
    }
};
struct FMax {
    template <class E>
    static E scalar(E a, E b) {
        return max_nan(a, b);
    }
    template <class P>
    static P packet(const P& a, const P& b) {
        return ei::pmax<Eigen::PropagateNaN>(a, b);
    }
};
struct FMin {
    template <class E>
    static E scalar(E a, E b) {
        return min_nan(a, b);
    }
    template <class P>
    static P packet(const P& a, const P& b) {
        return ei::pmin<Eigen::PropagateNaN>(a, b);
    }
};

/// Folds n >= 1 contiguous values with F (four packet accumulators for f32/f64).
template <class F, class E>
E fold(const E* p, size_t n) {
    size_t i = 0;
    E r;
    if constexpr (kVec<E>) {
        using P = Pk<E>;
        constexpr size_t L = ei::unpacket_traits<P>::size;
        if (n >= 4 * L) {
            P a0 = ei::ploadu<P>(p), a1 = ei::ploadu<P>(p + L), a2 = ei::ploadu<P>(p + 2 * L),
              a3 = ei::ploadu<P>(p + 3 * L);
            for (i = 4 * L; i + 4 * L <= n; i += 4 * L) {
                a0 = F::packet(a0, ei::ploadu<P>(p + i));
                a1 = F::packet(a1, ei::ploadu<P>(p + i + L));
                a2 = F::packet(a2, ei::ploadu<P>(p + i + 2 * L));
                a3 = F::packet(a3, ei::ploadu<P>(p + i + 3 * L));
            }
            a0 = F::packet(F::packet(a0, a1), F::packet(a2, a3));
            for (; i + L <= n; i += L) a0 = F::packet(a0, ei::ploadu<P>(p + i));
            alignas(64) E lanes[L];
            ei::pstoreu(lanes, a0);
            r = lanes[0];
            for (size_t j = 1; j < L; ++j) r = F::scalar(r, lanes[j]);
            for (; i < n; ++i) r = F::scalar(r, p[i]);
            return r;
        }
    }
    r = p[0];
    for (i = 1; i < n; ++i) r = F::scalar(r, p[i]);
    return r;
}

/// acc[j] = F(acc[j], row[j]) for j < w.
template <class F, class E>
void fold_into(E* acc, const E* row, size_t w) {
    size_t j = 0;
    if constexpr (kVec<E>) {
        using P = Pk<E>;
        constexpr size_t L = ei::unpacket_traits<P>::size;
        for (; j + L <= w; j += L)
            ei::pstoreu(acc + j, F::packet(ei::ploadu<P>(acc + j), ei::ploadu<P>(row + j)));
    }
    for (; j < w; ++j) acc[j] = F::scalar(acc[j], row[j]);
}

/// acc[j] += blk[j] for j < w, widening f32 to f64.
inline void add_widen(double* acc, const float* blk, size_t w) {
    size_t j = 0;
#if defined(__AVX512F__)
    for (; j + 8 <= w; j += 8)
        _mm512_storeu_pd(acc + j, _mm512_add_pd(_mm512_loadu_pd(acc + j),
                                                _mm512_cvtps_pd(_mm256_loadu_ps(blk + j))));
#elif defined(__AVX__)
    for (; j + 4 <= w; j += 4)
        _mm256_storeu_pd(acc + j, _mm256_add_pd(_mm256_loadu_pd(acc + j),
                                                _mm256_cvtps_pd(_mm_loadu_ps(blk + j))));
#endif
    for (; j < w; ++j) acc[j] += static_cast<double>(blk[j]);
}

// ------------------------------------------------------------------------------------------------
// Accumulators per (op, dtype): floats sum/prod in f64, ints wrap in u64, max/min keep E.
// ------------------------------------------------------------------------------------------------

template <ReduceOp K, class E>
struct Acc {
    static constexpr bool extremum = K == ReduceOp::Max || K == ReduceOp::Min;
    using A =
        std::conditional_t<extremum, E,
                           std::conditional_t<std::is_floating_point_v<E>, double, std::uint64_t>>;
    using F = std::conditional_t<
        K == ReduceOp::Max, FMax,
        std::conditional_t<K == ReduceOp::Min, FMin,
                           std::conditional_t<K == ReduceOp::Prod, FProd, FSum>>>;

    static A identity() {
        if constexpr (K == ReduceOp::Prod) return A(1);
        else return A(0);
    }
    static A combine(A a, A b) {
        if constexpr (K == ReduceOp::Max) return max_nan(a, b);
        else if constexpr (K == ReduceOp::Min) return min_nan(a, b);
        else if constexpr (K == ReduceOp::Prod) return a * b;
        else return a + b;
    }
    static A lift(E v) {
        if constexpr (std::is_integral_v<A> && !extremum)
            return static_cast<A>(static_cast<int64_t>(v));  // sign-extend, then wrap
        else return static_cast<A>(v);
    }
    /// Folds n >= 1 contiguous values (sequentially).
    static A chunk(const E* p, size_t n) {
        if constexpr (extremum) {
            return fold<F>(p, n);
        } else if constexpr (std::is_floating_point_v<E>) {
            A acc = identity();
            for (size_t i = 0; i < n; i += kSumBlock)
                acc = combine(acc, static_cast<A>(fold<F>(p + i, std::min(kSumBlock, n - i))));
            return acc;
        } else {
            A acc = identity();
            for (size_t i = 0; i < n; ++i) acc = combine(acc, lift(p[i]));
            return acc;
        }
    }
    /// The result element from the accumulator of `count` values.
    static E finish(A a, size_t count) {
        if constexpr (K == ReduceOp::Mean) {
            if constexpr (std::is_floating_point_v<E>)
                return static_cast<E>(a / static_cast<double>(count));
            else return static_cast<E>(static_cast<int64_t>(a) / static_cast<int64_t>(count));
        } else if constexpr (std::is_integral_v<E> && !extremum) {
            return static_cast<E>(a);  // modular
        } else {
            return static_cast<E>(a);
        }
    }
};

/// Reduces n >= 1 contiguous values; long runs are split into fixed chunks over threads.
template <ReduceOp K, class E>
typename Acc<K, E>::A reduce_span(const E* p, size_t n) {
    using R = Acc<K, E>;
    if (n <= kChunk) return R::chunk(p, n);
    const size_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<typename R::A> part(chunks);
    parallel_for(chunks, 1, [&](size_t b, size_t e) {
        for (size_t c = b; c < e; ++c)
            part[c] = R::chunk(p + c * kChunk, std::min(kChunk, n - c * kChunk));
    });
    typename R::A acc = part[0];
    for (size_t c = 1; c < chunks; ++c) acc = R::combine(acc, part[c]);
    return acc;
}

/// Column accumulation: acc[j] = reduce_r p[r * stride + j] for j < w (w <= kColWidth, rows >= 1).
template <ReduceOp K, class E>
void cols_acc(const E* p, size_t rows, size_t stride, size_t w, typename Acc<K, E>::A* acc) {
    using R = Acc<K, E>;
    using A = typename R::A;
    if constexpr (R::extremum) {
        std::memcpy(acc, p, w * sizeof(E));
        for (size_t r = 1; r < rows; ++r) fold_into<typename R::F>(acc, p + r * stride, w);
    } else if constexpr (std::is_floating_point_v<E>) {
        // Blocks of kRowBlock rows in E lanes, then into f64.
        alignas(64) E blk[kColWidth];
        for (size_t j = 0; j < w; ++j) acc[j] = R::identity();
        for (size_t r0 = 0; r0 < rows; r0 += kRowBlock) {
            const size_t r1 = std::min(rows, r0 + kRowBlock);
            std::memcpy(blk, p + r0 * stride, w * sizeof(E));
            for (size_t r = r0 + 1; r < r1; ++r) fold_into<typename R::F>(blk, p + r * stride, w);
            if constexpr (std::is_same_v<E, float> && std::is_same_v<typename R::F, FSum>)
                add_widen(acc, blk, w);
            else
                for (size_t j = 0; j < w; ++j) acc[j] = R::combine(acc[j], static_cast<A>(blk[j]));
        }
    } else {
        for (size_t j = 0; j < w; ++j) acc[j] = R::identity();
        for (size_t r = 0; r < rows; ++r) {
            const E* row = p + r * stride;
            for (size_t j = 0; j < w; ++j) acc[j] = R::combine(acc[j], R::lift(row[j]));
        }
    }
}

/// How a reduction over the middle dim of a dense [outer, rows, inner] block (inner > 1) is cut
/// into tasks: column strips of width w, and when that gives too few tasks, row segments whose
/// partial results are combined afterwards. Depends on the shape only (deterministic results).
struct ColPlan {
    size_t w, strips, seg_rows, segs;
    ColPlan(size_t outer, size_t rows, size_t inner) {
        w = std::min(inner, kColWidth);
        strips = (inner + w - 1) / w;
        segs = 1;
        const size_t tasks = outer * strips;
        if (tasks < kMinTasks && rows >= 2 * kMinSegRows)
            segs = std::min((kMinTasks + tasks - 1) / tasks, rows / kMinSegRows);
        seg_rows = (rows + segs - 1) / segs;
        segs = (rows + seg_rows - 1) / seg_rows;
    }
};

/// Runs f(o, j, width, r0, r1) over the plan's tasks in parallel.
template <class F>
void for_col_tasks(const ColPlan& plan, size_t outer, size_t rows, size_t inner, F&& f) {
    const size_t per_outer = plan.strips * plan.segs;
    const size_t grain = std::max<size_t>(1, kParallelGrain / (plan.seg_rows * plan.w));
    parallel_for(outer * per_outer, grain, [&](size_t b, size_t e) {
        for (size_t task = b; task < e; ++task) {
            const size_t o = task / per_outer, rest = task % per_outer;
            const size_t seg = rest / plan.strips, j = (rest % plan.strips) * plan.w;
            const size_t r0 = seg * plan.seg_rows, r1 = std::min(rows, r0 + plan.seg_rows);
            f(o, seg, j, std::min(plan.w, inner - j), r0, r1);
        }
    });
}

/// out[o, j] = reduce over r of p[o, r, j] for a dense [outer, rows, inner] block.
template <ReduceOp K, class E>
void reduce_middle(const E* p, size_t outer, size_t rows, size_t inner, E* out) {
    using R = Acc<K, E>;
    using A = typename R::A;
    const ColPlan plan(outer, rows, inner);
    if (plan.segs == 1) {
        for_col_tasks(plan, outer, rows, inner,
                      [&](size_t o, size_t, size_t j, size_t w, size_t, size_t) {
                          alignas(64) A acc[kColWidth];
                          cols_acc<K, E>(p + o * rows * inner + j, rows, inner, w, acc);
                          for (size_t k = 0; k < w; ++k)
                              out[o * inner + j + k] = R::finish(acc[k], rows);
                      });
        return;
    }
    // Partial accumulators per row segment, combined in segment order.
    std::vector<A> part(plan.segs * outer * inner);
    for_col_tasks(plan, outer, rows, inner,
                  [&](size_t o, size_t seg, size_t j, size_t w, size_t r0, size_t r1) {
                      cols_acc<K, E>(p + (o * rows + r0) * inner + j, r1 - r0, inner, w,
                                     &part[(seg * outer + o) * inner + j]);
                  });
    const size_t n = outer * inner;
    parallel_for(n, kParallelGrain / plan.segs + 1, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
            A a = part[i];
            for (size_t seg = 1; seg < plan.segs; ++seg) a = R::combine(a, part[seg * n + i]);
            out[i] = R::finish(a, rows);
        }
    });
}

// ------------------------------------------------------------------------------------------------
// Geometry
// ------------------------------------------------------------------------------------------------

/// Product of shape[begin, end).
size_t dims_product(const Shape& s, size_t begin, size_t end) {
    size_t n = 1;
    for (size_t i = begin; i < end; ++i) n *= s[i];
    return n;
}

/// If t's elements exactly tile a dense block of memory (a permuted and/or flipped dense tensor),
/// the element offset of the lowest address.
std::optional<int64_t> dense_block_start(const CpuTensor& t) {
    std::array<std::pair<int64_t, size_t>, Shape::max_rank> dims{};
    size_t k = 0;
    int64_t start = t.offset;
    for (size_t d = 0; d < t.rank(); ++d) {
        if (t.shape[d] == 1) continue;
        const int64_t s = t.strides[d];
        if (s < 0) start += static_cast<int64_t>(t.shape[d] - 1) * s;
        dims[k++] = {s < 0 ? -s : s, t.shape[d]};
    }
    for (size_t i = 1; i < k; ++i)  // insertion sort by stride (at most 8 dims)
        for (size_t j = i; j > 0 && dims[j].first < dims[j - 1].first; --j)
            std::swap(dims[j], dims[j - 1]);
    int64_t expect = 1;
    for (size_t i = 0; i < k; ++i) {
        if (dims[i].first != expect) return std::nullopt;
        expect *= static_cast<int64_t>(dims[i].second);
    }
    return start;
}

/// Offset (relative to t.offset) of the first element reduced into output element `j` (whose
/// shape is t's with `dim` of size 1).
int64_t unravel(const CpuTensor& t, size_t dim, size_t j) {
    int64_t off = 0;
    for (size_t d = t.rank(); d-- > 0;) {
        if (d == dim) continue;
        const size_t i = j % t.shape[d];
        j /= t.shape[d];
        off += static_cast<int64_t>(i) * t.strides[d];
    }
    return off;
}

// ------------------------------------------------------------------------------------------------
// Reductions by dtype
// ------------------------------------------------------------------------------------------------

template <ReduceOp K, class E>
E reduce_all_typed(const CpuTensor& t) {
    using R = Acc<K, E>;
    const size_t n = t.num_elements();
    const E* base = reinterpret_cast<const E*>(t.buffer->data());
    if (t.is_contiguous()) return R::finish(reduce_span<K, E>(base + t.offset, n), n);
    if (auto start = dense_block_start(t)) return R::finish(reduce_span<K, E>(base + *start, n), n);
    const CpuTensor c = contiguous(t);
    return R::finish(reduce_span<K, E>(c.data<E>(), n), n);
}

template <ReduceOp K, class E>
void reduce_dim_typed(const CpuTensor& t, size_t dim, E* out) {
    using R = Acc<K, E>;
    const size_t rows = t.shape[dim];
    if (t.is_contiguous()) {
        const size_t outer = dims_product(t.shape, 0, dim);
        const size_t inner = dims_product(t.shape, dim + 1, t.rank());
        const E* p = t.data<E>();
        if (inner == 1) {
            const size_t grain = std::max<size_t>(1, kParallelGrain / rows);
            parallel_for(outer, grain, [&](size_t b, size_t e) {
                for (size_t o = b; o < e; ++o)
                    out[o] = R::finish(reduce_span<K, E>(p + o * rows, rows), rows);
            });
            return;
        }
        reduce_middle<K, E>(p, outer, rows, inner, out);
        return;
    }
    if (t.strides[dim] == 1 || rows == 1) {
        // Each output reduces a contiguous run.
        const E* base = reinterpret_cast<const E*>(t.buffer->data()) + t.offset;
        const size_t n_out = t.num_elements() / rows;
        const size_t grain = std::max<size_t>(1, kParallelGrain / rows);
        parallel_for(n_out, grain, [&](size_t b, size_t e) {
            for (size_t j = b; j < e; ++j)
                out[j] = R::finish(reduce_span<K, E>(base + unravel(t, dim, j), rows), rows);
        });
        return;
    }
    reduce_dim_typed<K, E>(contiguous(t), dim, out);
}

// ---- arg-max / arg-min -------------------------------------------------------------------------

/// v replaces the current extremum b (strictly better; NaN beats numbers; ties keep the first).
template <bool IsMax, class E>
inline bool better(E v, E b) {
    if constexpr (std::is_floating_point_v<E>) {
        if (b != b) return false;
        if (v != v) return true;
    }
    return IsMax ? v > b : v < b;
}

template <class E>
struct ValIdx {
    E v;
    int64_t i;
};

/// First extremum of n >= 1 contiguous values: the extremum by a SIMD fold, then its first
/// position (the first NaN when there is one).
template <bool IsMax, class E>
ValIdx<E> scan_chunk(const E* p, size_t n, int64_t base) {
    using F = std::conditional_t<IsMax, FMax, FMin>;
    const E m = fold<F>(p, n);
    size_t i = 0;
    const bool nan = m != m;
    if constexpr (kVec<E>) {
        using P = Pk<E>;
        constexpr size_t L = ei::unpacket_traits<P>::size;
        const P pm = ei::pset1<P>(m);
        for (; i + L <= n; i += L) {
            const P x = ei::ploadu<P>(p + i);
            const P hit =
                nan ? ei::pcmp_lt_or_nan(x, ei::pset1<P>(-std::numeric_limits<E>::infinity()))
                    : ei::pcmp_eq(x, pm);
            if (ei::predux_any(hit)) break;
        }
    }
    if (nan) {
        while (i < n && p[i] == p[i]) ++i;
    } else {
        while (i < n && p[i] != m) ++i;
    }
    return {p[i], base + static_cast<int64_t>(i)};
}

template <bool IsMax, class E>
ValIdx<E> scan_span(const E* p, size_t n) {
    if (n <= kChunk) return scan_chunk<IsMax>(p, n, 0);
    const size_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<ValIdx<E>> part(chunks);
    parallel_for(chunks, 1, [&](size_t b, size_t e) {
        for (size_t c = b; c < e; ++c)
            part[c] = scan_chunk<IsMax>(p + c * kChunk, std::min(kChunk, n - c * kChunk),
                                        static_cast<int64_t>(c * kChunk));
    });
    ValIdx<E> r = part[0];
    for (size_t c = 1; c < chunks; ++c)
        if (better<IsMax>(part[c].v, r.v)) r = part[c];
    return r;
}

/// Column arg-extremum over rows for w <= kColWidth columns.
template <bool IsMax, class E, class Ix>
void scan_cols(const E* p, size_t rows, size_t stride, size_t w, int64_t base, E* vo, Ix* io) {
    alignas(64) E best[kColWidth];
    alignas(64) int64_t idx[kColWidth];
    std::memcpy(best, p, w * sizeof(E));
    std::fill_n(idx, w, int64_t{0});
    size_t j0 = 0;
    if constexpr (kVec<E>) {
        // Rows in memory order, packets of columns; the row index is carried as an exact E value.
        using P = Pk<E>;
        constexpr size_t L = ei::unpacket_traits<P>::size;
        if (rows < (size_t{1} << std::numeric_limits<E>::digits)) {
            alignas(64) E fidx[kColWidth];
            const size_t wv = w / L * L;
            std::fill_n(fidx, wv, E(0));
            for (size_t r = 1; r < rows; ++r) {
                const E* row = p + r * stride;
                const P pr = ei::pset1<P>(static_cast<E>(r));
                for (size_t j = 0; j < wv; j += L) {
                    const P v = ei::ploadu<P>(row + j), b = ei::pload<P>(best + j);
                    const P cmp = IsMax ? ei::pcmp_lt(b, v) : ei::pcmp_lt(v, b);
                    // Also replace when v is NaN and b is not (NaN counts as the extremum).
                    const P vnan = ei::pandnot(ei::ptrue(v), ei::pcmp_eq(v, v));
                    const P up = ei::por(cmp, ei::pand(vnan, ei::pcmp_eq(b, b)));
                    ei::pstore(best + j, ei::pselect(up, v, b));
                    ei::pstore(fidx + j, ei::pselect(up, pr, ei::pload<P>(fidx + j)));
                }
            }
            for (size_t j = 0; j < wv; ++j) idx[j] = static_cast<int64_t>(fidx[j]);
            j0 = wv;
        }
    }
    for (size_t r = 1; r < rows; ++r) {
        const E* row = p + r * stride;
        for (size_t j = j0; j < w; ++j) {
            const bool up = better<IsMax>(row[j], best[j]);
            best[j] = up ? row[j] : best[j];
            idx[j] = up ? static_cast<int64_t>(r) : idx[j];
        }
    }
    for (size_t j = 0; j < w; ++j) {
        vo[j] = best[j];
        io[j] = static_cast<Ix>(base + idx[j]);
    }
}

/// (vo, io)[o, j] = arg-extremum over r of p[o, r, j] for a dense [outer, rows, inner] block.
template <bool IsMax, class E, class Ix>
void arg_middle(const E* p, size_t outer, size_t rows, size_t inner, E* vo, Ix* io) {
    const ColPlan plan(outer, rows, inner);
    if (plan.segs == 1) {
        for_col_tasks(plan, outer, rows, inner,
                      [&](size_t o, size_t, size_t j, size_t w, size_t, size_t) {
                          scan_cols<IsMax>(p + o * rows * inner + j, rows, inner, w, 0,
                                           vo + o * inner + j, io + o * inner + j);
                      });
        return;
    }
    // Partial results per row segment, combined in segment order (ties keep the earlier row).
    const size_t n = outer * inner;
    std::vector<E> pv(plan.segs * n);
    std::vector<int64_t> pi(plan.segs * n);
    for_col_tasks(plan, outer, rows, inner,
                  [&](size_t o, size_t seg, size_t j, size_t w, size_t r0, size_t r1) {
                      const size_t at = seg * n + o * inner + j;
                      scan_cols<IsMax>(p + (o * rows + r0) * inner + j, r1 - r0, inner, w,
                                       static_cast<int64_t>(r0), pv.data() + at, pi.data() + at);
                  });
    parallel_for(n, kParallelGrain / plan.segs + 1, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
            E v = pv[i];
            int64_t ix = pi[i];
            for (size_t seg = 1; seg < plan.segs; ++seg)
                if (better<IsMax>(pv[seg * n + i], v)) {
                    v = pv[seg * n + i];
                    ix = pi[seg * n + i];
                }
            vo[i] = v;
            io[i] = static_cast<Ix>(ix);
        }
    });
}

template <bool IsMax, class E, class Ix>
void arg_dim_typed(const CpuTensor& t, size_t dim, E* vo, Ix* io) {
    const size_t rows = t.shape[dim];
    if (t.is_contiguous()) {
        const size_t outer = dims_product(t.shape, 0, dim);
        const size_t inner = dims_product(t.shape, dim + 1, t.rank());
        const E* p = t.data<E>();
        if (inner == 1) {
            const size_t grain = std::max<size_t>(1, kParallelGrain / rows);
            parallel_for(outer, grain, [&](size_t b, size_t e) {
                for (size_t o = b; o < e; ++o) {
                    const ValIdx<E> r = scan_span<IsMax>(p + o * rows, rows);
                    vo[o] = r.v;
                    io[o] = static_cast<Ix>(r.i);
                }
            });
            return;
        }
        arg_middle<IsMax, E, Ix>(p, outer, rows, inner, vo, io);
        return;
    }
    if (t.strides[dim] == 1 || rows == 1) {
        const E* base = reinterpret_cast<const E*>(t.buffer->data()) + t.offset;
        const size_t n_out = t.num_elements() / rows;
        const size_t grain = std::max<size_t>(1, kParallelGrain / rows);
        parallel_for(n_out, grain, [&](size_t b, size_t e) {
            for (size_t j = b; j < e; ++j) {
                const ValIdx<E> r = scan_span<IsMax>(base + unravel(t, dim, j), rows);
                vo[j] = r.v;
                io[j] = static_cast<Ix>(r.i);
            }
        });
        return;
    }
    arg_dim_typed<IsMax, E, Ix>(contiguous(t), dim, vo, io);
}

// ---- dispatch ----------------------------------------------------------------------------------

template <class F>
void dispatch_numeric(DType d, const char* op, F&& f) {
    switch (d) {
        case DType::F64: f(double{}); return;
        case DType::F32: f(float{}); return;
        case DType::I64: f(std::int64_t{}); return;
        case DType::I32: f(std::int32_t{}); return;
        case DType::I16: f(std::int16_t{}); return;
        case DType::I8: f(std::int8_t{}); return;
        case DType::U8: f(std::uint8_t{}); return;
        default: break;
    }
    detail::fail(op, ": unsupported dtype ", dtype_name(d));
}

template <class F>
void dispatch_op(ReduceOp op, F&& f) {
    switch (op) {
        case ReduceOp::Sum: f(std::integral_constant<ReduceOp, ReduceOp::Sum>{}); return;
        case ReduceOp::Prod: f(std::integral_constant<ReduceOp, ReduceOp::Prod>{}); return;
        case ReduceOp::Mean: f(std::integral_constant<ReduceOp, ReduceOp::Mean>{}); return;
        case ReduceOp::Max: f(std::integral_constant<ReduceOp, ReduceOp::Max>{}); return;
        case ReduceOp::Min: f(std::integral_constant<ReduceOp, ReduceOp::Min>{}); return;
    }
}

Shape kept_shape(const Shape& s, size_t dim) {
    Shape out = s;
    out[dim] = 1;
    return out;
}

}  // namespace

// ================================================================================================
// Public kernels
// ================================================================================================

CpuTensor Kernels::reduce_all(ReduceOp op, CpuTensor t) {
    const char* name = backend::op_name(op);
    const DType dt = t.dtype;
    assert(dt != DType::Bool);
    const size_t n = t.num_elements();
    if (n == 0) {
        assert(op == ReduceOp::Sum || op == ReduceOp::Prod ||
               (op == ReduceOp::Mean && is_float(dt)));
        return cpu::full(Shape{1}, backend::empty_reduction(op), dt);
    }
    CpuTensor out = alloc(Shape{1}, dt);
    dispatch_numeric(dt, name, [&](auto e) {
        using E = decltype(e);
        dispatch_op(op,
                    [&](auto k) { *out.data<E>() = reduce_all_typed<decltype(k)::value, E>(t); });
    });
    return out;
}

CpuTensor Kernels::reduce_dim(ReduceOp op, CpuTensor t, std::size_t dim) {
    const char* name = backend::op_dim_name(op);
    assert(dim < t.rank() && t.dtype != DType::Bool);
    const DType dt = t.dtype;
    const Shape shape = kept_shape(t.shape, dim);
    if (t.shape[dim] == 0) {
        assert(op == ReduceOp::Sum || op == ReduceOp::Prod ||
               (op == ReduceOp::Mean && is_float(dt)));
        return cpu::full(shape, backend::empty_reduction(op), dt);
    }
    CpuTensor out = alloc(shape, dt);
    if (out.num_elements() == 0) return out;
    dispatch_numeric(dt, name, [&](auto e) {
        using E = decltype(e);
        dispatch_op(
            op, [&](auto k) { reduce_dim_typed<decltype(k)::value, E>(t, dim, out.data<E>()); });
    });
    return out;
}

std::pair<CpuTensor, CpuTensor> Kernels::reduce_dim_with_indices(ReduceOp op, CpuTensor t,
                                                                 std::size_t dim,
                                                                 DType index_dtype) {
    assert(op == ReduceOp::Max || op == ReduceOp::Min);
    const char* name = backend::op_dim_name(op);
    assert(dim < t.rank() && t.dtype != DType::Bool && t.shape[dim] != 0);
    const DType dt = t.dtype;
    const Shape shape = kept_shape(t.shape, dim);
    CpuTensor values = alloc(shape, dt);
    const bool direct = index_dtype == DType::I64 || index_dtype == DType::I32;
    CpuTensor indices = alloc(shape, direct ? index_dtype : DType::I64);
    if (values.num_elements() == 0) return {values, cast(indices, index_dtype)};
    dispatch_numeric(dt, name, [&](auto e) {
        using E = decltype(e);
        auto run = [&](auto ix) {
            using Ix = decltype(ix);
            if (op == ReduceOp::Max)
                arg_dim_typed<true, E, Ix>(t, dim, values.data<E>(), indices.data<Ix>());
            else arg_dim_typed<false, E, Ix>(t, dim, values.data<E>(), indices.data<Ix>());
        };
        if (indices.dtype == DType::I32) run(std::int32_t{});
        else run(std::int64_t{});
    });
    if (!direct) indices = cast(std::move(indices), index_dtype);
    return {std::move(values), std::move(indices)};
}

CpuTensor Kernels::any_all(bool all, CpuTensor t) {
    if (t.dtype != DType::Bool && t.dtype != DType::U8) t = cast(std::move(t), DType::Bool);
    const size_t n = t.num_elements();
    bool result = all;
    if (n > 0) {
        const std::uint8_t* p = nullptr;
        CpuTensor dense;
        if (t.is_contiguous()) {
            p = t.data<std::uint8_t>();
        } else if (auto start = dense_block_start(t)) {
            p = reinterpret_cast<const std::uint8_t*>(t.buffer->data()) + *start;
        } else {
            dense = contiguous(t);
            p = dense.data<std::uint8_t>();
        }
        if (all) {
            result = std::memchr(p, 0, n) == nullptr;
        } else {
            result = false;
            constexpr size_t kScan = 4096;
            for (size_t i = 0; i < n && !result; i += kScan) {
                const size_t m = std::min(kScan, n - i);
                std::uint8_t acc = 0;
                for (size_t j = 0; j < m; ++j) acc |= p[i + j];
                result = acc != 0;
            }
        }
    }
    return cpu::full(Shape{1}, ScalarArg::of(std::int64_t{result}), DType::Bool);
}

CpuTensor Kernels::any_all_dim(bool all, CpuTensor t, std::size_t dim) {
    assert(dim < t.rank());
    // Values 0/1 (a cast to bool normalises), so any = max and all = min.
    if (t.dtype != DType::Bool) t = cast(std::move(t), DType::Bool);
    if (t.shape[dim] == 0)
        return cpu::full(kept_shape(t.shape, dim), ScalarArg::of(std::int64_t{all}), DType::Bool);
    t.dtype = DType::U8;
    CpuTensor out = reduce_dim(all ? ReduceOp::Min : ReduceOp::Max, std::move(t), dim);
    out.dtype = DType::Bool;
    return out;
}

}  // namespace burn::cpu

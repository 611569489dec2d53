// SPDX-License-Identifier: MIT OR Apache-2.0
// Stable sort and argsort along one dim.
//
// Every element becomes an unsigned key whose order is the wanted order (floats: sign-magnitude
// flipped, -0.0 folded onto +0.0, every NaN above +inf; signed ints: sign bit flipped; descending:
// all bits inverted). Each row is then sorted as (key, original index) pairs: insertion sort for
// tiny rows, std::sort on the pairs (a total order, hence stable) for short ones, and an LSD radix
// sort (stable by construction, skipping bytes that are equal in every key) for long ones; when
// there are fewer rows than threads, each long row's radix passes are split over the threads.
// The values are read back from the input through the sorted indices, so they are bit-exact.

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

template <class E>
struct KeyOf;
template <>
struct KeyOf<float> {
    using type = std::uint32_t;
    static type get(float v) {
        if (std::isnan(v)) return ~type{0};
        auto b = std::bit_cast<type>(v);
        if (b == 0x80000000u) b = 0;  // -0.0 == +0.0
        return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    }
};
template <>
struct KeyOf<double> {
    using type = std::uint64_t;
    static type get(double v) {
        if (std::isnan(v)) return ~type{0};
        auto b = std::bit_cast<type>(v);
        constexpr type sign = type{1} << 63;
        if (b == sign) b = 0;
        return (b & sign) ? ~b : (b | sign);
    }
};
template <class S>
struct SignedKey {
    using type = std::make_unsigned_t<S>;
    static type get(S v) {
        return static_cast<type>(static_cast<type>(v) ^ (type{1} << (8 * sizeof(S) - 1)));
    }
};
template <>
struct KeyOf<std::int64_t> : SignedKey<std::int64_t> {};
template <>
struct KeyOf<std::int32_t> : SignedKey<std::int32_t> {};
template <>
struct KeyOf<std::int16_t> : SignedKey<std::int16_t> {};
template <>
struct KeyOf<std::int8_t> : SignedKey<std::int8_t> {};
template <>
struct KeyOf<std::uint8_t> {
    using type = std::uint8_t;
    static type get(std::uint8_t v) { return v; }
};

template <class K, class Idx>
struct Item {
    K key;
    Idx idx;
};

constexpr std::size_t kInsertionMax = 16;
/// Longest row sorted by comparisons; longer rows are radix sorted (one pass per key byte).
template <class K>
constexpr std::size_t kComparisonMax = sizeof(K) <= 2 ? 24 : (sizeof(K) == 4 ? 40 : 160);
/// Rows sorted together when the sorted dim is not the innermost one.
constexpr std::size_t kBatch = 16;
constexpr std::size_t kBatchMaxLen = 4096;
/// Rows at least this long are each sorted by all threads when there are fewer rows than threads.
constexpr std::size_t kParallelRowMin = std::size_t{1} << 17;

/// Sorts a[0..n) (whose idx are ascending) by key, stably. Returns a or tmp, whichever holds
/// the result.
template <class K, class Idx>
Item<K, Idx>* sort_items(Item<K, Idx>* a, Item<K, Idx>* tmp, std::size_t n) {
    using It = Item<K, Idx>;
    if (n <= kInsertionMax) {
        for (std::size_t i = 1; i < n; ++i) {
            const It x = a[i];
            std::size_t j = i;
            for (; j > 0 && x.key < a[j - 1].key; --j) a[j] = a[j - 1];
            a[j] = x;
        }
        return a;
    }
    if (n <= kComparisonMax<K> && sizeof(K) > 1) {
        std::sort(a, a + n, [](const It& x, const It& y) {
            return x.key < y.key || (x.key == y.key && x.idx < y.idx);
        });
        return a;
    }
    constexpr std::size_t B = sizeof(K);
    Idx hist[B][256] = {};  // Idx holds n
    for (std::size_t i = 0; i < n; ++i) {
        const K k = a[i].key;
        for (std::size_t b = 0; b < B; ++b) ++hist[b][(k >> (8 * b)) & 0xff];
    }
    It* src = a;
    It* dst = tmp;
    for (std::size_t b = 0; b < B; ++b) {
        Idx* h = hist[b];
        if (h[(src[0].key >> (8 * b)) & 0xff] == n) continue;  // this byte is the same everywhere
        Idx sum = 0;
        for (std::size_t d = 0; d < 256; ++d) {
            const Idx c = h[d];
            h[d] = sum;
            sum += c;
        }
        for (std::size_t i = 0; i < n; ++i) dst[h[(src[i].key >> (8 * b)) & 0xff]++] = src[i];
        std::swap(src, dst);
    }
    return src;
}

/// sort_items for one long row, with every pass split over threads: per-chunk histograms, then
/// each chunk scatters into its own slots of every bucket (so the result stays stable).
template <class K, class Idx>
Item<K, Idx>* sort_items_parallel(Item<K, Idx>* a, Item<K, Idx>* tmp, std::size_t n) {
    using It = Item<K, Idx>;
    const std::size_t chunks = std::min<std::size_t>(256, n / kParallelGrain + 1);
    std::vector<std::array<std::size_t, 256>> hist(chunks);
    auto chunk_begin = [&](std::size_t c) { return n / chunks * c + std::min(c, n % chunks); };
    It* src = a;
    It* dst = tmp;
    for (std::size_t b = 0; b < sizeof(K); ++b) {
        const unsigned shift = static_cast<unsigned>(8 * b);
        parallel_for(chunks, 1, [&](std::size_t c0, std::size_t c1) {
            for (std::size_t c = c0; c < c1; ++c) {
                auto& h = hist[c];
                h.fill(0);
                for (std::size_t i = chunk_begin(c), e = chunk_begin(c + 1); i < e; ++i)
                    ++h[(src[i].key >> shift) & 0xff];
            }
        });
        std::size_t sum = 0;
        bool trivial = false;
        for (std::size_t d = 0; d < 256; ++d) {
            std::size_t total = 0;
            for (std::size_t c = 0; c < chunks; ++c) {
                const std::size_t cnt = hist[c][d];
                hist[c][d] = sum + total;
                total += cnt;
            }
            trivial |= total == n;
            sum += total;
        }
        if (trivial) continue;  // this byte is the same everywhere
        parallel_for(chunks, 1, [&](std::size_t c0, std::size_t c1) {
            for (std::size_t c = c0; c < c1; ++c) {
                auto& h = hist[c];
                for (std::size_t i = chunk_begin(c), e = chunk_begin(c + 1); i < e; ++i)
                    dst[h[(src[i].key >> shift) & 0xff]++] = src[i];
            }
        });
        std::swap(src, dst);
    }
    return src;
}

/// Rows of `shape` with `dim` removed, walked with an odometer.
struct RowWalker {
    std::array<std::size_t, Shape::max_rank> dims{};
    Strides in{}, out{};
    std::size_t rank = 0;

    /// Offsets of row r.
    void offsets(std::size_t r, std::array<std::size_t, Shape::max_rank>& coord, std::int64_t& oi,
                 std::int64_t& oo) const {
        for (std::size_t d = rank; d-- > 0;) {
            coord[d] = r % dims[d];
            r /= dims[d];
            oi += static_cast<std::int64_t>(coord[d]) * in[d];
            oo += static_cast<std::int64_t>(coord[d]) * out[d];
        }
    }
    void next(std::array<std::size_t, Shape::max_rank>& coord, std::int64_t& oi,
              std::int64_t& oo) const {
        for (std::size_t d = rank; d-- > 0;) {
            if (++coord[d] < dims[d]) {
                oi += in[d];
                oo += out[d];
                return;
            }
            coord[d] = 0;
            oi -= in[d] * static_cast<std::int64_t>(dims[d] - 1);
            oo -= out[d] * static_cast<std::int64_t>(dims[d] - 1);
        }
    }
};

/// Indices of w sorted rows; row c starts at o + c * ol.
template <class I, class It>
void write_indices(I* o, std::int64_t so, std::int64_t ol, const It* const* sorted, std::size_t w,
                   std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) {
        I* oj = o + static_cast<std::int64_t>(j) * so;
        for (std::size_t c = 0; c < w; ++c)
            oj[static_cast<std::int64_t>(c) * ol] = static_cast<I>(sorted[c][j].idx);
    }
}

template <class E, class Idx>
void sort_rows(const CpuTensor& t, std::size_t dim, bool descending, CpuTensor* values,
               CpuTensor& indices) {
    using K = typename KeyOf<E>::type;
    using It = Item<K, Idx>;
    const std::size_t n = t.shape[dim];
    const std::size_t rows = t.num_elements() / n;
    const std::int64_t si = t.strides[dim];
    const Strides out_st = contiguous_strides(t.shape);
    const std::int64_t so = out_st[dim];
    RowWalker walk;
    for (std::size_t d = 0; d < t.rank(); ++d) {
        if (d == dim) continue;
        walk.dims[walk.rank] = t.shape[d];
        walk.in[walk.rank] = t.strides[d];
        walk.out[walk.rank] = out_st[d];
        ++walk.rank;
    }
    const E* in = reinterpret_cast<const E*>(t.buffer->data());
    E* vout = values ? values->data<E>() : nullptr;
    const DType idt = indices.dtype;
    void* iout = indices.buffer->data();
    const K flip = descending ? static_cast<K>(~K{0}) : K{0};

    // Rows whose elements are far apart (sorting along a dim that is not the innermost) are
    // processed kBatch at a time when neighbouring rows are adjacent in memory, so that loads
    // and stores touch whole cache lines.
    const std::size_t last = walk.rank ? walk.rank - 1 : 0;
    const std::int64_t il = walk.rank ? walk.in[last] : 0, ol = walk.rank ? walk.out[last] : 0;
    const bool batch = walk.rank > 0 && si != 1 && n <= kBatchMaxLen && (il == 1 || il == -1) &&
                       walk.dims[last] > 1;
    const std::size_t width = batch ? kBatch : 1;

    if (n >= kParallelRowMin && rows < num_threads()) {
        // Few long rows: one at a time, each spread over the threads.
        std::vector<It> scratch(2 * n);
        It* a = scratch.data();
        std::array<std::size_t, Shape::max_rank> coord{};
        std::int64_t oi = t.offset, oo = 0;
        walk.offsets(0, coord, oi, oo);
        for (std::size_t r = 0; r < rows; ++r) {
            parallel_for(n, kParallelGrain, [&](std::size_t j0, std::size_t j1) {
                for (std::size_t j = j0; j < j1; ++j)
                    a[j] = It{static_cast<K>(
                                  KeyOf<E>::get(in[oi + static_cast<std::int64_t>(j) * si]) ^ flip),
                              static_cast<Idx>(j)};
            });
            const It* s = sort_items_parallel<K, Idx>(a, a + n, n);
            parallel_for(n, kParallelGrain, [&](std::size_t j0, std::size_t j1) {
                const It* sj = s + j0;
                if (vout)
                    for (std::size_t j = j0; j < j1; ++j)
                        vout[oo + static_cast<std::int64_t>(j) * so] =
                            in[oi + static_cast<std::int64_t>(s[j].idx) * si];
                const std::int64_t o = oo + static_cast<std::int64_t>(j0) * so;
                if (idt == DType::I64)
                    write_indices(static_cast<std::int64_t*>(iout) + o, so, 0, &sj, 1, j1 - j0);
                else write_indices(static_cast<std::int32_t*>(iout) + o, so, 0, &sj, 1, j1 - j0);
            });
            walk.next(coord, oi, oo);
        }
        return;
    }

    parallel_for(
        rows, std::max<std::size_t>(1, kParallelGrain / n), [&](std::size_t r0, std::size_t r1) {
            std::vector<It> scratch(2 * width * n);
            std::array<const It*, kBatch> sorted{};
            std::array<std::size_t, Shape::max_rank> coord{};
            std::int64_t oi = t.offset, oo = 0;
            walk.offsets(r0, coord, oi, oo);
            for (std::size_t r = r0; r < r1;) {
                const std::size_t w =
                    batch ? std::min({width, r1 - r, walk.dims[last] - coord[last]}) : 1;
                It* a = scratch.data();
                for (std::size_t j = 0; j < n; ++j) {
                    const E* src = in + oi + static_cast<std::int64_t>(j) * si;
                    for (std::size_t c = 0; c < w; ++c)
                        a[c * n + j] =
                            It{static_cast<K>(
                                   KeyOf<E>::get(src[static_cast<std::int64_t>(c) * il]) ^ flip),
                               static_cast<Idx>(j)};
                }
                for (std::size_t c = 0; c < w; ++c)
                    sorted[c] = sort_items<K, Idx>(a + c * n, a + (width + c) * n, n);
                if (vout) {
                    for (std::size_t j = 0; j < n; ++j) {
                        const auto jo = static_cast<std::int64_t>(j) * so;
                        for (std::size_t c = 0; c < w; ++c) {
                            const auto ci = static_cast<std::int64_t>(c);
                            vout[oo + ci * ol + jo] =
                                in[oi + ci * il + static_cast<std::int64_t>(sorted[c][j].idx) * si];
                        }
                    }
                }
                if (idt == DType::I64)
                    write_indices(static_cast<std::int64_t*>(iout) + oo, so, ol, sorted.data(), w,
                                  n);
                else
                    write_indices(static_cast<std::int32_t*>(iout) + oo, so, ol, sorted.data(), w,
                                  n);
                for (std::size_t c = 0; c < w; ++c) walk.next(coord, oi, oo);
                r += w;
            }
        });
}

std::pair<CpuTensor, CpuTensor> sort_impl(const char* op, CpuTensor t, std::size_t dim,
                                          bool descending, DType index_dtype, bool want_values) {
    assert(is_int(index_dtype));
    if (t.rank() == 0) {  // a single element: torch accepts dim 0 (or -1)
        assert(dim == 0);
        CpuTensor v;
        if (want_values) {
            v = alloc(t.shape, t.dtype);
            copy_into(t, v.buffer->data(), t.dtype);
        }
        return {v, cpu::full(t.shape, ScalarArg::of(std::int64_t{0}), index_dtype)};
    }
    assert(dim < t.rank());
    const std::size_t n = t.shape[dim];
    bool fits = true;
    dispatch(index_dtype, [&](auto i) {
        using I = decltype(i);
        fits = n == 0 || n - 1 <= static_cast<std::uint64_t>(std::numeric_limits<I>::max());
    });
    BURN_CHECK(fits, op, ": the index dtype ", dtype_name(index_dtype),
               " cannot hold the indices of a dim of size ", n);
    // The kernel writes I64 or I32 indices; narrower index dtypes are cast afterwards.
    const DType kernel_idt = index_dtype == DType::I64 ? DType::I64 : DType::I32;
    CpuTensor values;
    if (want_values) values = alloc(t.shape, t.dtype);
    CpuTensor indices = alloc(t.shape, kernel_idt);
    if (t.num_elements() == 0) {
        return {values, kernel_idt == index_dtype ? indices : cast(indices, index_dtype)};
    }
    dispatch(t.dtype, [&](auto e) {
        using E = decltype(e);
        if (n <= std::numeric_limits<std::uint32_t>::max())
            sort_rows<E, std::uint32_t>(t, dim, descending, want_values ? &values : nullptr,
                                        indices);
        else
            sort_rows<E, std::uint64_t>(t, dim, descending, want_values ? &values : nullptr,
                                        indices);
    });
    if (kernel_idt != index_dtype) indices = cast(std::move(indices), index_dtype);
    return {values, indices};
}

}  // namespace

std::pair<CpuTensor, CpuTensor> Kernels::sort(CpuTensor t, std::size_t dim, bool descending,
                                              DType index_dtype) {
    return sort_impl("sort", std::move(t), dim, descending, index_dtype, true);
}

CpuTensor Kernels::argsort(CpuTensor t, std::size_t dim, bool descending, DType index_dtype) {
    return sort_impl("argsort", std::move(t), dim, descending, index_dtype, false).second;
}

}  // namespace burn::cpu

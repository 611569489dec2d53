// SPDX-License-Identifier: MIT OR Apache-2.0
// Indexing kernels: slice_assign, cat, repeat_dim, gather / scatter_add, select / select_add,
// argwhere and arange. Every index read from a tensor is bounds-checked; the in-place kernels
// (slice_assign, scatter_add, select_add) write into their input only when it is the sole,
// dense owner of its buffer, and validate every index before writing anything.

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

/// Calls f(E{}) with an unsigned type of the element size: the copy kernels only move bytes.
template <class F>
decltype(auto) dispatch_bytes(DType d, F&& f) {
    switch (dtype_size(d)) {
        case 1: return f(std::uint8_t{});
        case 2: return f(std::uint16_t{});
        case 4: return f(std::uint32_t{});
        case 8: return f(std::uint64_t{});
        default: break;
    }
    detail::fail("cpu backend: dtype ", dtype_name(d), " is not a storage type of this backend");
}

/// Calls f(I{}) for the index dtypes the kernels read directly (see index_tensor).
template <class F>
decltype(auto) dispatch_index(DType d, F&& f) {
    if (d == DType::I32) return f(std::int32_t{});
    return f(std::int64_t{});
}

template <class E>
E* base_ptr(const CpuTensor& t) {
    return reinterpret_cast<E*>(t.buffer->data());
}

/// Indices (an int tensor) as I64 or I32: narrower ints are widened.
CpuTensor index_tensor(CpuTensor idx) {
    assert(is_int(idx.dtype));
    if (idx.dtype == DType::I64 || idx.dtype == DType::I32) return idx;
    return cast(std::move(idx), DType::I64);
}

[[noreturn, gnu::noinline, gnu::cold]] void index_error(const char* op, std::int64_t k,
                                                        std::size_t dim, std::size_t size) {
    detail::fail(op, ": index ", k, " is out of bounds for dim ", dim, " with size ", size);
}

template <class I>
inline std::int64_t checked_index(I v, std::size_t size, const char* op, std::size_t dim) {
    const auto k = static_cast<std::int64_t>(v);
    if (k < 0 || static_cast<std::uint64_t>(k) >= size) [[unlikely]]
        index_error(op, k, dim, size);
    return k;
}

/// Throws unless every value of `idx` (I64 or I32) lies in [0, size).
void validate_indices(const char* op, const CpuTensor& idx, std::size_t size, std::size_t dim) {
    if (idx.num_elements() == 0) return;
    dispatch_index(idx.dtype, [&](auto i) {
        using I = decltype(i);
        const I* ib = base_ptr<I>(idx);
        StridedLoop<1> loop(idx.shape, {idx.strides});
        loop.run({idx.offset}, [&](const auto& off, std::size_t len, const auto& in) {
            const I* p = ib + off[0];
            for (std::size_t j = 0; j < len; ++j)
                checked_index(p[static_cast<std::int64_t>(j) * in[0]], size, op, dim);
        });
    });
}

/// Throws unless a dense tensor of `shape` and `dtype` can be addressed (no size overflow).
void check_output_size(const Shape& shape, DType dtype, const char* op) {
    for (std::size_t d : shape)
        if (d == 0) return;
    std::size_t n = 1;
    bool overflow = false;
    for (std::size_t d : shape) overflow |= __builtin_mul_overflow(n, d, &n);
    std::size_t bytes = 0;
    overflow |= __builtin_mul_overflow(n, dtype_size(dtype), &bytes);
    if (overflow || bytes > (std::size_t{1} << 62))
        detail::fail(op, ": the output shape ", shape, " has too many elements");
}

/// `t` itself when the kernel may write into it (sole owner, dense), else a dense copy.
CpuTensor writable(CpuTensor t) {
    if (t.is_contiguous() && claim_in_place(t)) return t;
    CpuTensor out = alloc(t.shape, t.dtype);
    if (t.num_elements() > 0) copy_into(t, out.buffer->data(), t.dtype);
    return out;
}

template <class E>
inline void copy_row(E* d, const E* s, std::size_t len, std::int64_t di, std::int64_t si) {
    if (di == 1 && si == 1) {
        std::memcpy(d, s, len * sizeof(E));
    } else if (si == 0) {
        const E v = *s;
        if (di == 1) std::fill(d, d + len, v);
        else
            for (std::size_t i = 0; i < len; ++i) d[static_cast<std::int64_t>(i) * di] = v;
    } else {
        for (std::size_t i = 0; i < len; ++i)
            d[static_cast<std::int64_t>(i) * di] = s[static_cast<std::int64_t>(i) * si];
    }
}

/// Copies the strided view (src, src_off, src_st) of `shape` into the view (dst, dst_off, dst_st).
/// The views must not overlap. Long rows are split over threads too.
template <class E>
void copy_view(E* dst, std::int64_t dst_off, const Strides& dst_st, const E* src,
               std::int64_t src_off, const Strides& src_st, const Shape& shape) {
    if (shape.num_elements() == 0) return;
    StridedLoop<2> loop(shape, {dst_st, src_st});
    loop.run({dst_off, src_off}, [&](const auto& off, std::size_t len, const auto& in) {
        E* d = dst + off[0];
        const E* s = src + off[1];
        parallel_for(len, kParallelGrain, [&](std::size_t b, std::size_t e) {
            const auto ib = static_cast<std::int64_t>(b);
            copy_row(d + ib * in[0], s + ib * in[1], e - b, in[0], in[1]);
        });
    });
}

template <class E>
void copy_view(CpuTensor& dst, std::int64_t dst_off, const Strides& dst_st, const CpuTensor& src) {
    if (src.num_elements() == 0) return;
    copy_view<E>(base_ptr<E>(dst), dst_off, dst_st, base_ptr<E>(src), src.offset, src.strides,
                 src.shape);
}

/// A serial N-operand strided loop (rows along the innermost non-trivial dim), for callers that
/// partition the work themselves.
template <std::size_t N>
class SerialRows {
public:
    SerialRows(const Shape& shape, const std::array<Strides, N>& strides) {
        for (std::size_t d = 0; d < shape.rank(); ++d) {
            if (shape[d] == 1) continue;
            if (rank_ > 0) {
                bool mergeable = true;
                for (std::size_t k = 0; k < N; ++k)
                    if (strides[k][d] * static_cast<std::int64_t>(shape[d]) != st_[k][rank_ - 1])
                        mergeable = false;
                if (mergeable) {
                    dims_[rank_ - 1] *= shape[d];
                    for (std::size_t k = 0; k < N; ++k) st_[k][rank_ - 1] = strides[k][d];
                    continue;
                }
            }
            dims_[rank_] = shape[d];
            for (std::size_t k = 0; k < N; ++k) st_[k][rank_] = strides[k][d];
            ++rank_;
        }
        if (rank_ == 0) {
            dims_[0] = shape.num_elements();
            for (std::size_t k = 0; k < N; ++k) st_[k][0] = 1;
            rank_ = 1;
        }
    }

    std::size_t row_len() const { return dims_[rank_ - 1]; }

    template <class F>
    void run(const std::array<std::int64_t, N>& base, F&& f) const {
        run_cols(base, 0, row_len(), f);
    }

    /// Like run, but only columns [c0, c1) of every row.
    template <class F>
    void run_cols(const std::array<std::int64_t, N>& base, std::size_t c0, std::size_t c1,
                  F&& f) const {
        const std::size_t len = c1 - c0;
        std::size_t rows = 1;
        for (std::size_t d = 0; d + 1 < rank_; ++d) rows *= dims_[d];
        if (len == 0 || rows == 0) return;
        std::array<std::int64_t, N> inner{};
        for (std::size_t k = 0; k < N; ++k) inner[k] = st_[k][rank_ - 1];
        std::array<std::size_t, Shape::max_rank> idx{};
        std::array<std::int64_t, N> off = base;
        for (std::size_t k = 0; k < N; ++k) off[k] += static_cast<std::int64_t>(c0) * inner[k];
        for (std::size_t r = 0; r < rows; ++r) {
            f(off, len, inner);
            for (std::size_t d = rank_ - 1; d-- > 0;) {  // odometer over the outer dims
                if (++idx[d] < dims_[d]) {
                    for (std::size_t k = 0; k < N; ++k) off[k] += st_[k][d];
                    break;
                }
                idx[d] = 0;
                for (std::size_t k = 0; k < N; ++k)
                    off[k] -= st_[k][d] * static_cast<std::int64_t>(dims_[d] - 1);
            }
        }
    }

private:
    std::array<std::size_t, Shape::max_rank> dims_{};
    std::array<Strides, N> st_{};
    std::size_t rank_ = 0;
};

// ---- gather / select ---------------------------------------------------------------------------

/// out[p] = t[p with p[dim] = idx[p]] for every position p of `iter` (= out.shape). The indices
/// are read through `idx_st` (stride 0 on every dim but `dim` for select).
void gather_impl(const char* op, const CpuTensor& t, std::size_t dim, const Shape& iter,
                 const Strides& idx_st, const CpuTensor& idx, CpuTensor& out) {
    if (iter.num_elements() == 0) return;
    const std::size_t size = t.shape[dim];
    const std::int64_t sd = t.strides[dim];
    Strides ts = t.strides;
    ts[dim] = 0;
    dispatch_bytes(t.dtype, [&](auto e) {
        using E = decltype(e);
        dispatch_index(idx.dtype, [&](auto i) {
            using I = decltype(i);
            const E* tb = base_ptr<E>(t);
            E* ob = base_ptr<E>(out);
            const I* ib = base_ptr<I>(idx);
            StridedLoop<3> loop(iter, {out.strides, ts, idx_st});
            loop.run({out.offset, t.offset, idx.offset},
                     [&](const auto& off, std::size_t len, const auto& in) {
                         E* o = ob + off[0];
                         const E* s = tb + off[1];
                         const I* ix = ib + off[2];
                         if (in[2] == 0) {  // one index for the whole row
                             const std::int64_t k = checked_index(*ix, size, op, dim);
                             copy_row(o, s + k * sd, len, in[0], in[1]);
                             return;
                         }
                         for (std::size_t j = 0; j < len; ++j) {
                             const auto jj = static_cast<std::int64_t>(j);
                             const std::int64_t k = checked_index(ix[jj * in[2]], size, op, dim);
                             o[jj * in[0]] = s[jj * in[1] + k * sd];
                         }
                     });
        });
    });
}

// ---- scatter_add / select_add ------------------------------------------------------------------

template <class E, bool Or>
inline void accumulate(E& o, E v) {
    if constexpr (Or) {
        o = static_cast<E>(o | v);
    } else if constexpr (std::is_integral_v<E>) {  // wrap around like torch, without UB
        using U = std::make_unsigned_t<E>;
        o = static_cast<E>(static_cast<U>(static_cast<U>(o) + static_cast<U>(v)));
    } else {
        o += v;
    }
}

/// out[p with p[dim] = idx[p]] += values[p] for every position p of `iter`. The indices are
/// already validated. Writes are never concurrent on one output element: positions that can
/// collide differ only in `dim`, and each of them is handled by one thread.
template <class E, class I, bool Or>
void scatter_typed(CpuTensor& out, std::size_t dim, const Shape& iter, const Strides& idx_st,
                   const CpuTensor& idx, const Strides& val_st, const CpuTensor& values) {
    const std::int64_t sd = out.strides[dim];
    Strides os = out.strides;
    os[dim] = 0;
    E* ob = base_ptr<E>(out);
    const I* ib = base_ptr<I>(idx);
    const E* vb = base_ptr<E>(values);
    auto row = [&](const std::array<std::int64_t, 3>& off, std::size_t len,
                   const std::array<std::int64_t, 3>& in) {
        E* o = ob + off[0];
        const I* ix = ib + off[1];
        const E* v = vb + off[2];
        if (in[1] == 0) {  // one index for the whole row
            E* od = o + static_cast<std::int64_t>(*ix) * sd;
            if (in[0] == 1 && in[2] == 1) {
                for (std::size_t j = 0; j < len; ++j) accumulate<E, Or>(od[j], v[j]);
            } else {
                for (std::size_t j = 0; j < len; ++j) {
                    const auto jj = static_cast<std::int64_t>(j);
                    accumulate<E, Or>(od[jj * in[0]], v[jj * in[2]]);
                }
            }
            return;
        }
        for (std::size_t j = 0; j < len; ++j) {
            const auto jj = static_cast<std::int64_t>(j);
            accumulate<E, Or>(o[jj * in[0] + static_cast<std::int64_t>(ix[jj * in[1]]) * sd],
                              v[jj * in[2]]);
        }
    };
    const std::array<Strides, 3> st{os, idx_st, val_st};
    const std::array<std::int64_t, 3> base{out.offset, idx.offset, values.offset};

    const std::size_t rank = iter.rank();
    std::size_t pre = 1, post = 1;
    for (std::size_t d = 0; d < dim; ++d) pre *= iter[d];
    for (std::size_t d = dim + 1; d < rank; ++d) post *= iter[d];
    const std::size_t dlen = iter[dim], total = pre * dlen * post;

    if (dlen == 1 || post == 1) {
        // No collisions (dlen == 1), or the rows run along dim (the output's stride 0 on dim
        // keeps it from merging with its neighbours): any partition of the rows is safe.
        StridedLoop<3>(iter, st).run(base, row);
        return;
    }
    if (total <= kParallelGrain) {
        SerialRows<3>(iter, st).run(base, row);
        return;
    }
    const auto threads = num_threads();
    if (pre >= 4 * threads) {
        // Natural order; threads take whole blocks of the dims before `dim`.
        Shape sub;
        std::array<Strides, 3> sub_st{};
        for (std::size_t d = dim; d < rank; ++d) {
            sub.push_back(iter[d]);
            for (std::size_t k = 0; k < 3; ++k) sub_st[k][d - dim] = st[k][d];
        }
        const SerialRows<3> inner(sub, sub_st);
        parallel_for(pre, std::max<std::size_t>(1, kParallelGrain / (dlen * post)),
                     [&](std::size_t p0, std::size_t p1) {
                         for (std::size_t p = p0; p < p1; ++p) {
                             std::array<std::int64_t, 3> off = base;
                             std::size_t rem = p;
                             for (std::size_t d = dim; d-- > 0;) {
                                 const auto c = static_cast<std::int64_t>(rem % iter[d]);
                                 rem /= iter[d];
                                 for (std::size_t k = 0; k < 3; ++k) off[k] += c * st[k][d];
                             }
                             inner.run(off, row);
                         }
                     });
        return;
    }
    // Few outer blocks but long rows (the row is a run of the dims after `dim`): threads take
    // column ranges of every row.
    const SerialRows<3> natural(iter, st);
    const std::size_t cols = natural.row_len();
    if (cols >= 4 * threads) {
        parallel_for(cols, std::max<std::size_t>(1, kParallelGrain / (total / cols)),
                     [&](std::size_t c0, std::size_t c1) { natural.run_cols(base, c0, c1, row); });
        return;
    }
    // Few outer blocks and short rows: move dim innermost so that rows run along it.
    Shape perm;
    std::array<Strides, 3> perm_st{};
    std::size_t j = 0;
    for (std::size_t d = 0; d < rank; ++d) {
        if (d == dim) continue;
        perm.push_back(iter[d]);
        for (std::size_t k = 0; k < 3; ++k) perm_st[k][j] = st[k][d];
        ++j;
    }
    perm.push_back(dlen);
    for (std::size_t k = 0; k < 3; ++k) perm_st[k][j] = st[k][dim];
    StridedLoop<3>(perm, perm_st).run(base, row);
}

void scatter_impl(CpuTensor& out, std::size_t dim, const Shape& iter, const Strides& idx_st,
                  const CpuTensor& idx, const Strides& val_st, const CpuTensor& values) {
    if (iter.num_elements() == 0) return;
    dispatch(out.dtype, [&](auto e) {
        using E = decltype(e);
        dispatch_index(idx.dtype, [&](auto i) {
            using I = decltype(i);
            if constexpr (std::is_same_v<E, std::uint8_t>) {
                if (out.dtype == DType::Bool) {
                    scatter_typed<E, I, true>(out, dim, iter, idx_st, idx, val_st, values);
                    return;
                }
            }
            scatter_typed<E, I, false>(out, dim, iter, idx_st, idx, val_st, values);
        });
    });
}

}  // namespace

// ---- slice_assign -------------------------------------------------------------------------------

CpuTensor Kernels::slice_assign(CpuTensor t, std::span<const SliceRange> ranges, CpuTensor values) {
    assert(values.dtype == t.dtype);
    CpuTensor out = writable(std::move(t));
    backend::StridedLayout region = out;  // the view of the ranges (bounds asserted by view::slice)
    backend::view::slice(region, ranges);
    assert(values.shape == region.shape);
    if (region.num_elements() == 0) return out;
    dispatch_bytes(out.dtype, [&](auto e) {
        copy_view<decltype(e)>(out, region.offset, region.strides, values);
    });
    return out;
}

// ---- cat / repeat_dim ---------------------------------------------------------------------------

CpuTensor Kernels::cat(std::vector<CpuTensor> tensors, std::size_t dim) {
    const Shape out_shape = backend::cat_shape(tensors, dim);
    const DType dtype = tensors[0].dtype;
    for ([[maybe_unused]] const CpuTensor& x : tensors) assert(x.dtype == dtype);
    check_output_size(out_shape, dtype, "cat");
    if (tensors.size() == 1) return contiguous(std::move(tensors[0]));
    CpuTensor out = alloc(out_shape, dtype);
    const std::size_t n_out = out.num_elements();
    if (n_out == 0) return out;
    std::vector<std::int64_t> offsets(tensors.size());
    std::int64_t acc = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        offsets[i] = acc * out.strides[dim];
        acc += static_cast<std::int64_t>(tensors[i].shape[dim]);
    }
    dispatch_bytes(dtype, [&](auto e) {
        using E = decltype(e);
        // Many small inputs are spread over threads; a large one spreads its own rows.
        const std::size_t avg = std::max<std::size_t>(1, n_out / tensors.size());
        parallel_for(tensors.size(), std::max<std::size_t>(1, kParallelGrain / avg),
                     [&](std::size_t b, std::size_t end) {
                         for (std::size_t i = b; i < end; ++i)
                             copy_view<E>(out, offsets[i], out.strides, tensors[i]);
                     });
    });
    return out;
}

CpuTensor Kernels::repeat_dim(CpuTensor t, std::size_t dim, std::size_t times) {
    if (times == 1) return t;
    const Shape out_shape = backend::repeat_dim_shape(t.shape, dim, times);
    check_output_size(out_shape, t.dtype, "repeat_dim");
    CpuTensor out = alloc(out_shape, t.dtype);
    if (out.num_elements() == 0) return out;
    const std::int64_t block = static_cast<std::int64_t>(t.shape[dim]) * out.strides[dim];
    dispatch_bytes(t.dtype, [&](auto e) {
        using E = decltype(e);
        if (t.rank() < Shape::max_rank) {
            // One loop over [..., times, dim, ...] reading t with stride 0 on the new dim.
            Shape it;
            Strides ds{}, ss{};
            std::size_t k = 0;
            for (std::size_t d = 0; d < t.rank(); ++d) {
                if (d == dim) {
                    it.push_back(times);
                    ds[k] = block;
                    ss[k] = 0;
                    ++k;
                }
                it.push_back(t.shape[d]);
                ds[k] = out.strides[d];
                ss[k] = t.strides[d];
                ++k;
            }
            copy_view<E>(base_ptr<E>(out), 0, ds, base_ptr<E>(t), t.offset, ss, it);
        } else {
            for (std::size_t r = 0; r < times; ++r)
                copy_view<E>(out, static_cast<std::int64_t>(r) * block, out.strides, t);
        }
    });
    return out;
}

// ---- gather / scatter_add / select / select_add -------------------------------------------------

CpuTensor Kernels::gather(std::size_t dim, CpuTensor t, CpuTensor indices) {
    assert(dim < t.rank() && indices.rank() == t.rank());
    for (std::size_t d = 0; d < t.rank(); ++d) assert(d == dim || indices.shape[d] <= t.shape[d]);
    indices = index_tensor(std::move(indices));
    CpuTensor out = alloc(indices.shape, t.dtype);
    gather_impl("gather", t, dim, indices.shape, indices.strides, indices, out);
    return out;
}

CpuTensor Kernels::scatter_add(std::size_t dim, CpuTensor t, CpuTensor indices, CpuTensor values) {
    assert(dim < t.rank() && values.dtype == t.dtype);
    assert(indices.rank() == t.rank() && values.rank() == t.rank());
    indices = index_tensor(std::move(indices));
    validate_indices("scatter_add", indices, t.shape[dim], dim);
    CpuTensor out = writable(std::move(t));
    scatter_impl(out, dim, indices.shape, indices.strides, indices, values.strides, values);
    return out;
}

CpuTensor Kernels::select(CpuTensor t, std::size_t dim, CpuTensor indices) {
    assert(dim < t.rank() && indices.rank() == 1);
    indices = index_tensor(std::move(indices));
    Shape out_shape = t.shape;
    out_shape[dim] = indices.shape[0];
    CpuTensor out = alloc(out_shape, t.dtype);
    Strides idx_st{};
    idx_st[dim] = indices.strides[0];
    gather_impl("select", t, dim, out_shape, idx_st, indices, out);
    return out;
}

CpuTensor Kernels::select_add(CpuTensor t, std::size_t dim, CpuTensor indices, CpuTensor values) {
    assert(dim < t.rank() && indices.rank() == 1 && values.dtype == t.dtype);
    assert(values.rank() == t.rank() && values.shape[dim] == indices.shape[0]);
    indices = index_tensor(std::move(indices));
    validate_indices("select_add", indices, t.shape[dim], dim);
    CpuTensor out = writable(std::move(t));
    Strides idx_st{};
    idx_st[dim] = indices.strides[0];
    scatter_impl(out, dim, values.shape, idx_st, indices, values.strides, values);
    return out;
}

// ---- argwhere / arange --------------------------------------------------------------------------

CpuTensor Kernels::argwhere(CpuTensor t, DType index_dtype) {
    assert(is_int(index_dtype));
    const std::size_t rank = t.rank();
    const std::size_t n = t.num_elements();
    std::size_t max_dim = 0;
    for (std::size_t d : t.shape) max_dim = std::max(max_dim, d);
    dispatch(index_dtype, [&](auto i) {
        using I = decltype(i);
        BURN_CHECK(max_dim == 0 ||
                       max_dim - 1 <= static_cast<std::uint64_t>(std::numeric_limits<I>::max()),
                   "argwhere: the index dtype ", dtype_name(index_dtype),
                   " cannot hold the coordinates of shape ", t.shape);
    });
    const CpuTensor c = contiguous(std::move(t));
    const std::size_t block = kParallelGrain;
    const std::size_t nblocks = (n + block - 1) / block;
    std::vector<std::size_t> start(nblocks + 1, 0);
    dispatch(c.dtype, [&](auto e) {
        using E = decltype(e);
        const E* p = n ? c.data<E>() : nullptr;
        parallel_for(nblocks, 1, [&](std::size_t b0, std::size_t b1) {
            for (std::size_t b = b0; b < b1; ++b) {
                const std::size_t end = std::min(n, (b + 1) * block);
                std::size_t cnt = 0;
                for (std::size_t f = b * block; f < end; ++f) cnt += p[f] != E(0);
                start[b + 1] = cnt;
            }
        });
    });
    for (std::size_t b = 0; b < nblocks; ++b) start[b + 1] += start[b];
    const std::size_t hits = start[nblocks];
    CpuTensor out = alloc(Shape{hits, rank}, index_dtype);
    if (hits == 0 || rank == 0) return out;
    const Shape shape = c.shape;
    dispatch(c.dtype, [&](auto e) {
        using E = decltype(e);
        const E* p = c.data<E>();
        dispatch(index_dtype, [&](auto i) {
            using I = decltype(i);
            I* o = out.data<I>();
            parallel_for(nblocks, 1, [&](std::size_t b0, std::size_t b1) {
                for (std::size_t b = b0; b < b1; ++b) {
                    if (start[b] == start[b + 1]) continue;
                    const std::size_t begin = b * block, end = std::min(n, (b + 1) * block);
                    std::array<std::size_t, Shape::max_rank> coord{};
                    std::size_t rem = begin;
                    for (std::size_t d = rank; d-- > 0;) {
                        coord[d] = rem % shape[d];
                        rem /= shape[d];
                    }
                    I* row = o + start[b] * rank;
                    for (std::size_t f = begin; f < end; ++f) {
                        if (p[f] != E(0)) {
                            for (std::size_t d = 0; d < rank; ++d)
                                row[d] = static_cast<I>(coord[d]);
                            row += rank;
                        }
                        for (std::size_t d = rank; d-- > 0;) {  // odometer
                            if (++coord[d] < shape[d]) break;
                            coord[d] = 0;
                        }
                    }
                }
            });
        });
    });
    return out;
}

CpuTensor Kernels::arange(std::int64_t start, std::int64_t end, std::int64_t step, DType dtype,
                          const CpuDevice&) {
    const std::uint64_t n = backend::arange_length(start, end, step);
    const Shape shape{static_cast<std::size_t>(n)};
    check_output_size(shape, dtype, "arange");
    CpuTensor out = alloc(shape, dtype);
    const bool to_bool = dtype == DType::Bool;
    dispatch(dtype, [&](auto e) {
        using E = decltype(e);
        E* p = out.data<E>();
        parallel_for(
            static_cast<std::size_t>(n), kParallelGrain, [&](std::size_t b, std::size_t e2) {
                for (std::size_t i = b; i < e2; ++i) {
                    const auto v = static_cast<std::int64_t>(static_cast<std::uint64_t>(start) +
                                                             static_cast<std::uint64_t>(i) *
                                                                 static_cast<std::uint64_t>(step));
                    p[i] = to_bool ? static_cast<E>(v != 0) : static_cast<E>(v);
                }
            });
    });
    return out;
}

}  // namespace burn::cpu

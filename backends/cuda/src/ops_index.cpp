// SPDX-License-Identifier: MIT OR Apache-2.0
// Indexing: slice_assign, cat, repeat_dim (strided copies), gather, select, embedding (gathers),
// scatter_add, select_add, embedding_backward (scatter-adds) and argwhere; kernels/cuda/index.cu.
// Sort and argsort are ops_sort.cpp. Semantics of the CPU backend (backends/cpu/src/index.cpp,
// nn_misc.cpp): indices outside [0, size) (negative ones too) are reported as burn::Error naming
// the op, at the next read (the device's error word); the output is then unspecified.
//
// Copies run over the operands' dims with neighbours merged where one stride walks them in every
// operand (a dense block is one cudaMemcpyAsync); views are read in place. slice_assign,
// scatter_add and select_add write into their input when it is the sole, dense owner of its
// buffer (as the CPU backend), else into a dense copy.
//
// Scatter-adds are deterministic, with no float atomics: ints and bools add with integer atomics
// (exact in any order); floats add in index order, one thread per output column, when the index
// extent is at most 32, and otherwise through a stable sort of the indices (index::sort_rows) and
// per-segment sums in index order (kernels/cuda/index.cu describes it). A segment (the values of
// one output element) within one aligned block of 64 sorted positions gives the CPU backend's
// bits; others are summed in fixed pieces, so their last bits may differ from the CPU's
// sequential sum, but never from run to run.
// argwhere reads the count back (the output shape depends on the values): one wait.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ops_common.hpp"

namespace burn::cuda {

namespace index {
std::pair<CudaTensor, CudaTensor> sort_rows(CudaTensor t, std::size_t dim, bool descending,
                                            DType index_dtype, bool want_values, const char* op,
                                            std::uint32_t key_bytes = 0);
}  // namespace index

namespace {

/// kernels/cuda/index.cuh's Dims<N>: an iteration over `shape` with N stride sets.
template <int N>
struct Dims {
    std::int32_t rank = 0;
    std::int32_t pad_ = 0;
    std::int64_t shape[8] = {};
    std::int64_t strides[N][8] = {};
};
static_assert(sizeof(Dims<2>) == 200 && sizeof(Dims<3>) == 264);

/// The device's Sorted (kernels/cuda/index.cu): sorted indices of a segmented scatter-add.
struct Sorted {
    const void* keys = nullptr;
    const void* perm = nullptr;
    std::int32_t key64 = 0;
    std::int32_t perm64 = 0;
    std::int32_t per_row = 0;
    std::int32_t pad_ = 0;
};
static_assert(sizeof(Sorted) == 32);

/// kernels/cuda/index.cu's PIECE: sorted positions per block of the segmented scatter-add.
constexpr std::int64_t kPiece = 64;
/// Index extents up to this are scattered by one thread per column, in order.
constexpr std::int64_t kDirectMax = 32;

constexpr std::uint64_t kU32Max = std::numeric_limits<std::uint32_t>::max();

/// An iteration being built, outer dim first, with N stride sets (up to 9 dims: repeat_dim adds
/// one to a rank-8 tensor).
template <int N>
struct Iter {
    int rank = 0;
    std::array<std::int64_t, 9> shape{};
    std::array<std::array<std::int64_t, N>, 9> strides{};

    void push(std::size_t size, const std::array<std::int64_t, N>& st) {
        shape[static_cast<std::size_t>(rank)] = static_cast<std::int64_t>(size);
        strides[static_cast<std::size_t>(rank)] = st;
        ++rank;
    }
    std::int64_t numel() const {
        std::int64_t n = 1;
        for (int d = 0; d < rank; ++d) n *= shape[static_cast<std::size_t>(d)];
        return n;
    }
    /// Drops size-1 dims and merges neighbours one stride walks in every operand (the
    /// row-major order of the positions is kept).
    void coalesce() {
        int r = 0;
        for (int d = 0; d < rank; ++d) {
            const auto ud = static_cast<std::size_t>(d);
            if (shape[ud] == 1) continue;
            if (r > 0) {
                const auto last = static_cast<std::size_t>(r - 1);
                bool merge = true;
                for (int k = 0; k < N; ++k)
                    merge = merge && strides[last][static_cast<std::size_t>(k)] ==
                                         strides[ud][static_cast<std::size_t>(k)] * shape[ud];
                if (merge) {
                    shape[last] *= shape[ud];
                    strides[last] = strides[ud];
                    continue;
                }
            }
            shape[static_cast<std::size_t>(r)] = shape[ud];
            strides[static_cast<std::size_t>(r)] = strides[ud];
            ++r;
        }
        rank = r;
    }
    /// Dims [from, to) (at most 8) as kernel metadata, with the stride sets `sets`.
    template <int M>
    Dims<M> dims(int from, int to, const std::array<int, M>& sets) const {
        BURN_CHECK(to - from <= 8, "Cuda: an iteration of more than 8 dims");
        Dims<M> out;
        out.rank = to - from;
        for (int d = from; d < to; ++d) {
            const auto ud = static_cast<std::size_t>(d);
            out.shape[d - from] = shape[ud];
            for (int k = 0; k < M; ++k)
                out.strides[k][d - from] =
                    strides[ud][static_cast<std::size_t>(sets[static_cast<std::size_t>(k)])];
        }
        return out;
    }
};

/// Threads of a row kernel (index.cu's for_rows): a warp per (row, 1024 columns) for rows of at
/// least 32 elements, else a thread per element.
std::uint64_t row_threads(std::int64_t rows, std::int64_t inner) {
    const auto r = static_cast<std::uint64_t>(rows), c = static_cast<std::uint64_t>(inner);
    return c >= 32 ? r * ((c + 1023) / 1024) * 32 : r * c;
}

template <class... A>
void launch_threads(Context& ctx, const std::string& kernel, std::uint64_t threads,
                    const A&... args) {
    if (threads == 0) return;
    launch(ctx, "index", kernel, dim3(grid_for(ctx, threads)), dim3(256), 0, args...);
}

char* base_ptr(const CudaTensor& t) { return static_cast<char*>(t.buffer->data()); }

bool is_index(DType d) { return d == DType::I32 || d == DType::I64; }

void check_index_dtype(const char* op, const CudaTensor& indices) {
    BURN_CHECK(is_index(indices.dtype), "Cuda ", op, ": indices must be i32 or i64, got ",
               indices.dtype, " (shape ", indices.shape, ")");
}

/// Throws unless a dense tensor of `shape` and `dtype` can be addressed (as the CPU backend).
void check_output_size(const Shape& shape, DType dtype, const char* op) {
    for (std::size_t d : shape)
        if (d == 0) return;
    std::size_t n = 1;
    bool overflow = false;
    for (std::size_t d : shape) overflow |= __builtin_mul_overflow(n, d, &n);
    std::size_t bytes = 0;
    overflow |= __builtin_mul_overflow(n, element_size(dtype, op), &bytes);
    if (overflow || bytes > (std::size_t{1} << 62))
        ::burn::detail::fail("Cuda ", op, ": the output shape ", shape, " has too many elements");
}

/// Copies the positions of `it` (stride set 0: dst, 1: src, in elements of `dtype`).
void copy_iter(Context& ctx, DType dtype, void* dst, const void* src, Iter<2> it) {
    if (it.numel() == 0) return;
    it.coalesce();
    if (it.rank == 0) it.push(1, {1, 1});
    const std::size_t es = element_size(dtype, "copy");
    const int r = it.rank;
    const auto last = static_cast<std::size_t>(r - 1);
    const std::int64_t inner = it.shape[last];
    if (r == 1 && it.strides[0][0] == 1 && it.strides[0][1] == 1) {
        check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(inner) * es,
                              cudaMemcpyDeviceToDevice, ctx.stream()),
              "copy");
        return;
    }
    const std::int64_t rows = it.numel() / inner;
    // Rows dense in both operands move in the widest unit (up to 16 bytes) that divides the row,
    // every stride and both addresses: the strides are rescaled to that unit.
    std::size_t unit = es;
    if (it.strides[last][0] == 1 && it.strides[last][1] == 1) {
        for (std::size_t u : {std::size_t{16}, std::size_t{8}, std::size_t{4}}) {
            if (u <= es) break;
            bool fits = static_cast<std::size_t>(inner) * es % u == 0 &&
                        reinterpret_cast<std::uintptr_t>(dst) % u == 0 &&
                        reinterpret_cast<std::uintptr_t>(src) % u == 0;
            for (int d = 0; d + 1 < r; ++d)
                for (int k = 0; k < 2; ++k)
                    fits = fits &&
                           it.strides[static_cast<std::size_t>(d)][static_cast<std::size_t>(k)] *
                                   static_cast<std::int64_t>(es) % static_cast<std::int64_t>(u) ==
                               0;
            if (fits) {
                unit = u;
                break;
            }
        }
    }
    const auto scale = static_cast<std::int64_t>(unit / es);
    Dims<2> outer = it.dims<2>(0, r - 1, {0, 1});
    for (int d = 0; d < outer.rank; ++d)
        for (int k = 0; k < 2; ++k) outer.strides[k][d] /= scale;
    const std::int64_t units = inner / scale;
    const int small = static_cast<std::uint64_t>(rows * units) <= kU32Max;
    const char* kernel = unit == 16  ? "copy_v16"
                         : unit == 8 ? "copy_i64"
                         : unit == 4 ? "copy_i32"
                         : unit == 2 ? "copy_i16"
                                     : "copy_bool";  // copies move bytes: any kernel of the width
    launch_threads(ctx, kernel, row_threads(rows, units), dst, src, outer, rows, units,
                   it.strides[last][0], it.strides[last][1], small);
}

/// Copies the view `src` into the view (dst, shape of src, dst_strides) of the same dtype.
void copy_into(Context& ctx, void* dst, const backend::Strides& dst_strides,
               const CudaTensor& src) {
    Iter<2> it;
    for (std::size_t d = 0; d < src.rank(); ++d)
        it.push(src.shape[d], {dst_strides[d], src.strides[d]});
    copy_iter(ctx, src.dtype, dst, first(src), it);
}

/// A dense copy of `t`.
CudaTensor dense_copy(const CudaTensor& t) {
    CudaTensor out = alloc(t.shape, t.dtype, t.device);
    copy_into(context(t), first(out), out.strides, t);
    return out;
}

/// `t` itself when an op may write into it (sole owner, dense), else a dense copy.
CudaTensor writable(CudaTensor t) {
    if (reusable(t, t.shape, t.dtype)) return t;
    return dense_copy(t);
}

/// Reports an index of `indices` outside [0, size) at the next read (for ops whose output is
/// empty: the CPU backend checks the indices first).
void check_indices(const char* op, const CudaTensor& indices, std::size_t size) {
    if (indices.num_elements() == 0) return;
    Context& ctx = context(indices);
    launch_threads(ctx, "index_check", indices.num_elements(), first(indices),
                   indices.dtype == DType::I64 ? 1 : 0, meta(indices),
                   static_cast<std::int64_t>(indices.num_elements()),
                   static_cast<std::int64_t>(size), ctx.error_word(), ctx.error_tag(op));
}

/// out (dense, `shape`, rank r) = t at the positions of `shape`, with t's element k on `dim`
/// (k read from idx at i_st, stride dim_stride, t_st has 0 on dim); see index.cu's gather.
void launch_gather(const char* op, Context& ctx, DType dtype, void* out, const void* t,
                   const void* idx, bool idx64, const Shape& shape, const backend::Strides& t_st,
                   const backend::Strides& i_st, std::int64_t dim_stride, std::size_t size) {
    const std::size_t r = shape.rank();
    Iter<2> rows_it;
    for (std::size_t d = 0; d + 1 < r; ++d) rows_it.push(shape[d], {t_st[d], i_st[d]});
    rows_it.coalesce();
    const Dims<2> rd = rows_it.dims<2>(0, rows_it.rank, {0, 1});
    const std::int64_t rows = rows_it.numel();
    const auto inner = static_cast<std::int64_t>(shape[r - 1]);
    const int small = static_cast<std::uint64_t>(rows * inner) <= kU32Max;
    // The gather moves values: the half types move as 16-bit ints.
    const DType moved = is_half(dtype) ? bits_dtype(dtype) : dtype;
    launch_threads(ctx, variant("gather", moved), row_threads(rows, inner), out, t, idx,
                   idx64 ? 1 : 0, rd, rows, inner, t_st[r - 1], i_st[r - 1], dim_stride,
                   static_cast<std::int64_t>(size), small, ctx.error_word(), ctx.error_tag(op));
}

/// A scatter-add: `cols` (stride sets 0: out, 1: indices, 2: values) of K values each, out[col[0]
/// + k * o_dim] += values[col[2] + j * v_dim] with k = idx[col[1] + j * i_dim] in [0, size).
struct Scatter {
    Iter<3> cols;
    std::int64_t k = 0;
    std::int64_t o_dim = 0, i_dim = 0, v_dim = 0;
    std::int64_t size = 0;
};

/// Runs a scatter-add into `out` (`dtype`). `sort_view`: the indices as rows to sort (the last
/// dim is the index extent), one row per column when per_row, else a single shared row.
void run_scatter(const char* op, Context& ctx, DType dtype, void* out, const void* idx, bool idx64,
                 const void* vals, Scatter s, const CudaTensor& sort_view, bool per_row) {
    s.cols.coalesce();
    const std::int64_t ncols = s.cols.numel();
    const std::int64_t total = ncols * s.k;
    if (total == 0) return;
    const int small = static_cast<std::uint64_t>(total) <= kU32Max;
    const int i64x = idx64 ? 1 : 0;
    std::uint32_t* err = ctx.error_word();
    const std::uint32_t tag = ctx.error_tag(op);
    const Dims<3> cols = s.cols.dims<3>(0, s.cols.rank, {0, 1, 2});
    if (dtype != DType::F32 && dtype != DType::F64) {  // ints and bools: exact atomics
        launch_threads(ctx, variant("scatter_atomic", dtype), static_cast<std::uint64_t>(total),
                       out, idx, i64x, vals, cols, ncols, s.k, s.o_dim, s.i_dim, s.v_dim, s.size,
                       small, err, tag);
        return;
    }
    if (s.k <= kDirectMax) {
        launch_threads(ctx, variant("scatter_direct", dtype), static_cast<std::uint64_t>(ncols),
                       out, idx, i64x, vals, cols, ncols, s.k, s.o_dim, s.i_dim, s.v_dim, s.size,
                       small, err, tag);
        return;
    }
    const DType perm_dtype =
        static_cast<std::uint64_t>(s.k - 1) <= kU32Max / 2 ? DType::I32 : DType::I64;
    // The keys to sort: the indices as dense i32 rows (indices out of range are reported here and
    // become `size`), so that the keys are 32-bit and only their low bytes that can hold `size`
    // need radix passes; unless the indexed dim is too long for i32.
    CudaTensor keys = sort_view;
    std::uint32_t key_bytes = 0;
    if (static_cast<std::uint64_t>(s.size) < kU32Max / 2) {
        key_bytes = static_cast<std::uint32_t>(
            (std::bit_width(static_cast<std::uint64_t>(s.size)) + 7) / 8);
        key_bytes = std::max<std::uint32_t>(key_bytes, 1);
        const std::int64_t rows = per_row ? ncols : 1;
        keys = alloc(Shape{static_cast<std::size_t>(rows), static_cast<std::size_t>(s.k)},
                     DType::I32, sort_view.device);
        const Dims<1> ic = per_row ? s.cols.dims<1>(0, s.cols.rank, {1}) : Dims<1>{};
        launch_threads(ctx, "index_keys", static_cast<std::uint64_t>(rows * s.k), idx, i64x, ic,
                       rows, s.k, s.i_dim, s.size, first(keys), small, err, tag);
    }
    const auto sorted =
        index::sort_rows(keys, keys.rank() - 1, false, perm_dtype, true, op, key_bytes);
    Sorted so;
    so.keys = first(sorted.first);
    so.perm = first(sorted.second);
    so.key64 = sorted.first.dtype == DType::I64 ? 1 : 0;
    so.perm64 = perm_dtype == DType::I64 ? 1 : 0;
    so.per_row = per_row ? 1 : 0;
    const Dims<2> cv = s.cols.dims<2>(0, s.cols.rank, {0, 2});
    const std::int64_t blocks = (s.k + kPiece - 1) / kPiece;
    std::shared_ptr<Buffer> partial;
    void* pp = nullptr;
    if (s.k > kPiece) {
        partial = ctx.alloc(static_cast<std::size_t>(blocks * 2 * ncols) * element_size(dtype));
        pp = partial->data();
    }
    launch_threads(ctx, variant("segment_pieces", dtype), static_cast<std::uint64_t>(total), out,
                   vals, cv, ncols, s.k, s.o_dim, s.v_dim, s.size, so, pp, small, err, tag);
    if (s.k > kPiece)
        launch_threads(ctx, variant("segment_merge", dtype), static_cast<std::uint64_t>(total), out,
                       cv, ncols, s.k, s.o_dim, s.size, so, static_cast<const void*>(pp), small);
}

}  // namespace

// ---- slice_assign / cat / repeat_dim ------------------------------------------------------------

CudaTensor Kernels::slice_assign(CudaTensor t, std::span<const SliceRange> ranges,
                                 CudaTensor values) {
    BURN_CHECK(values.dtype == t.dtype, "Cuda slice_assign: values of dtype ", values.dtype,
               " into a tensor of dtype ", t.dtype);
    CudaTensor out = writable(std::move(t));
    backend::StridedLayout region = out;  // the view of the ranges
    backend::view::slice(region, ranges);
    BURN_CHECK(values.shape == region.shape, "Cuda slice_assign: values of shape ", values.shape,
               " for a region of shape ", region.shape);
    if (region.num_elements() == 0) return out;
    copy_into(context(out),
              base_ptr(out) + region.offset * static_cast<std::int64_t>(element_size(out.dtype)),
              region.strides, values);
    return out;
}

CudaTensor Kernels::cat(std::vector<CudaTensor> tensors, std::size_t dim) {
    BURN_CHECK(!tensors.empty(), "Cuda cat: no tensors");
    const Shape out_shape = backend::cat_shape(tensors, dim);
    const DType dtype = tensors[0].dtype;
    for (const CudaTensor& x : tensors)
        BURN_CHECK(x.dtype == dtype && x.device == tensors[0].device, "Cuda cat: a tensor of ",
                   x.dtype, " on ", x.device, " with one of ", dtype, " on ", tensors[0].device);
    check_output_size(out_shape, dtype, "cat");
    if (tensors.size() == 1)
        return is_dense(tensors[0]) ? std::move(tensors[0]) : dense_copy(tensors[0]);
    CudaTensor out = alloc(out_shape, dtype, tensors[0].device);
    if (out.num_elements() == 0) return out;
    Context& ctx = context(out);
    const auto es = static_cast<std::int64_t>(element_size(dtype));
    std::int64_t acc = 0;
    for (const CudaTensor& x : tensors) {
        if (x.num_elements() > 0)
            copy_into(ctx, base_ptr(out) + acc * out.strides[dim] * es, out.strides, x);
        acc += static_cast<std::int64_t>(x.shape[dim]);
    }
    return out;
}

CudaTensor Kernels::repeat_dim(CudaTensor t, std::size_t dim, std::size_t times) {
    if (times == 1) return t;
    const Shape out_shape = backend::repeat_dim_shape(t.shape, dim, times);
    check_output_size(out_shape, t.dtype, "repeat_dim");
    CudaTensor out = alloc(out_shape, t.dtype, t.device);
    if (out.num_elements() == 0) return out;
    // One copy over [..., times, dim, ...], reading t with stride 0 on the new dim.
    const std::int64_t block = static_cast<std::int64_t>(t.shape[dim]) * out.strides[dim];
    Iter<2> it;
    for (std::size_t d = 0; d < t.rank(); ++d) {
        if (d == dim) it.push(times, {block, 0});
        it.push(t.shape[d], {out.strides[d], t.strides[d]});
    }
    copy_iter(context(out), t.dtype, first(out), first(t), it);
    return out;
}

// ---- gather / select / embedding ----------------------------------------------------------------

CudaTensor Kernels::gather(std::size_t dim, CudaTensor t, CudaTensor indices) {
    check_index_dtype("gather", indices);
    BURN_CHECK(dim < t.rank() && indices.rank() == t.rank(), "Cuda gather: indices of shape ",
               indices.shape, " along dim ", dim, " of a tensor of shape ", t.shape);
    CudaTensor out = alloc(indices.shape, t.dtype, t.device);
    if (out.num_elements() == 0) return out;
    backend::Strides t_st = t.strides;
    t_st[dim] = 0;
    launch_gather("gather", context(t), t.dtype, first(out), first(t), first(indices),
                  indices.dtype == DType::I64, indices.shape, t_st, indices.strides, t.strides[dim],
                  t.shape[dim]);
    return out;
}

CudaTensor Kernels::select(CudaTensor t, std::size_t dim, CudaTensor indices) {
    check_index_dtype("select", indices);
    BURN_CHECK(dim < t.rank() && indices.rank() == 1, "Cuda select: indices of shape ",
               indices.shape, " along dim ", dim, " of a tensor of shape ", t.shape);
    Shape out_shape = t.shape;
    out_shape[dim] = indices.shape[0];
    CudaTensor out = alloc(out_shape, t.dtype, t.device);
    if (out.num_elements() == 0) return out;
    backend::Strides t_st = t.strides;
    t_st[dim] = 0;
    backend::Strides i_st{};
    i_st[dim] = indices.strides[0];
    launch_gather("select", context(t), t.dtype, first(out), first(t), first(indices),
                  indices.dtype == DType::I64, out_shape, t_st, i_st, t.strides[dim], t.shape[dim]);
    return out;
}

CudaTensor Kernels::embedding(CudaTensor weights, CudaTensor indices) {
    check_index_dtype("embedding", indices);
    BURN_CHECK(weights.rank() == 2 && indices.rank() < Shape::max_rank,
               "Cuda embedding: weights of shape ", weights.shape, ", indices of shape ",
               indices.shape);
    const std::size_t n = weights.shape[0], d = weights.shape[1];
    Shape out_shape = indices.shape;
    out_shape.push_back(d);
    CudaTensor out = alloc(out_shape, weights.dtype, weights.device);
    if (out.num_elements() == 0) {
        check_indices("embedding", indices, n);
        return out;
    }
    // The weights seen with the output's rank: [idx dims..., d], the row chosen on dim r - 2 (a
    // scalar index is seen as [1]).
    Shape shape = indices.rank() == 0 ? Shape{1} : indices.shape;
    backend::Strides i_st = indices.strides;
    if (indices.rank() == 0) i_st[0] = 0;
    shape.push_back(d);
    const std::size_t r = shape.rank();
    backend::Strides t_st{};
    t_st[r - 1] = weights.strides[1];
    i_st[r - 1] = 0;
    launch_gather("embedding", context(weights), weights.dtype, first(out), first(weights),
                  first(indices), indices.dtype == DType::I64, shape, t_st, i_st,
                  weights.strides[0], n);
    return out;
}

// ---- scatter_add / select_add / embedding_backward ----------------------------------------------

CudaTensor Kernels::scatter_add(std::size_t dim, CudaTensor t, CudaTensor indices,
                                CudaTensor values) {
    check_index_dtype("scatter_add", indices);
    BURN_CHECK(dim < t.rank() && values.dtype == t.dtype && indices.rank() == t.rank() &&
                   values.rank() == t.rank(),
               "Cuda scatter_add: indices of shape ", indices.shape, " and values of shape ",
               values.shape, " (", values.dtype, ") along dim ", dim, " of a tensor of shape ",
               t.shape, " (", t.dtype, ")");
    CudaTensor out = writable(std::move(t));
    if (indices.num_elements() == 0) return out;
    Scatter s;
    std::vector<std::size_t> axes;  // the indices with `dim` last: the rows to sort
    for (std::size_t d = 0; d < indices.rank(); ++d) {
        if (d == dim) continue;
        s.cols.push(indices.shape[d], {out.strides[d], indices.strides[d], values.strides[d]});
        axes.push_back(d);
    }
    axes.push_back(dim);
    s.k = static_cast<std::int64_t>(indices.shape[dim]);
    s.o_dim = out.strides[dim];
    s.i_dim = indices.strides[dim];
    s.v_dim = values.strides[dim];
    s.size = static_cast<std::int64_t>(out.shape[dim]);
    CudaTensor sort_view = indices;
    backend::view::permute(sort_view, axes);
    run_scatter("scatter_add", context(out), out.dtype, first(out), first(indices),
                indices.dtype == DType::I64, first(values), s, sort_view, true);
    return out;
}

CudaTensor Kernels::select_add(CudaTensor t, std::size_t dim, CudaTensor indices,
                               CudaTensor values) {
    check_index_dtype("select_add", indices);
    BURN_CHECK(dim < t.rank() && indices.rank() == 1 && values.dtype == t.dtype &&
                   values.rank() == t.rank() && values.shape[dim] == indices.shape[0],
               "Cuda select_add: indices of shape ", indices.shape, " and values of shape ",
               values.shape, " (", values.dtype, ") along dim ", dim, " of a tensor of shape ",
               t.shape, " (", t.dtype, ")");
    CudaTensor out = writable(std::move(t));
    if (values.num_elements() == 0) {
        check_indices("select_add", indices, out.shape[dim]);
        return out;
    }
    Scatter s;
    for (std::size_t d = 0; d < values.rank(); ++d)
        if (d != dim) s.cols.push(values.shape[d], {out.strides[d], 0, values.strides[d]});
    s.k = static_cast<std::int64_t>(indices.shape[0]);
    s.o_dim = out.strides[dim];
    s.i_dim = indices.strides[0];
    s.v_dim = values.strides[dim];
    s.size = static_cast<std::int64_t>(out.shape[dim]);
    run_scatter("select_add", context(out), out.dtype, first(out), first(indices),
                indices.dtype == DType::I64, first(values), s, indices, false);
    return out;
}

CudaTensor Kernels::embedding_backward(CudaTensor weights, CudaTensor grad, CudaTensor indices) {
    const char* op = "embedding_backward";
    check_index_dtype(op, indices);
    BURN_CHECK(
        weights.rank() == 2 && grad.dtype == weights.dtype && grad.rank() == indices.rank() + 1 &&
            grad.shape[indices.rank()] == weights.shape[1],
        "Cuda embedding_backward: weights of shape ", weights.shape, " (", weights.dtype,
        "), grad of shape ", grad.shape, " (", grad.dtype, "), indices of shape ", indices.shape);
    const std::size_t n = weights.shape[0], d = weights.shape[1];
    CudaTensor out = alloc(weights.shape, weights.dtype, weights.device);
    if (out.num_elements() == 0) {
        check_indices(op, indices, n);
        return out;
    }
    Context& ctx = context(out);
    check(
        cudaMemsetAsync(first(out), 0, out.num_elements() * element_size(out.dtype), ctx.stream()),
        "embedding_backward");
    const std::size_t k = indices.num_elements();
    if (k == 0) return out;
    // The indices as one list of k and the grad as k rows of d: the views when one stride walks
    // them, else dense copies.
    const std::size_t ir = indices.rank();
    Iter<1> ii, gi;
    for (std::size_t a = 0; a < ir; ++a) {
        ii.push(indices.shape[a], {indices.strides[a]});
        gi.push(grad.shape[a], {grad.strides[a]});
    }
    ii.coalesce();
    gi.coalesce();
    CudaTensor idx = ii.rank <= 1 ? indices : dense_copy(indices);
    CudaTensor g = gi.rank <= 1 ? grad : dense_copy(grad);
    const std::int64_t i_j = ii.rank == 1 ? ii.strides[0][0] : 1;
    const std::int64_t g_j = gi.rank == 1 ? gi.strides[0][0] : static_cast<std::int64_t>(d);
    const std::int64_t g_c = g.strides[ir];
    CudaTensor list = idx;  // [k] with stride i_j
    list.shape = Shape{k};
    list.strides = backend::Strides{};
    list.strides[0] = i_j;
    Scatter s;
    s.cols.push(d, {1, 0, g_c});
    s.k = static_cast<std::int64_t>(k);
    s.o_dim = out.strides[0];
    s.i_dim = i_j;
    s.v_dim = g_j;
    s.size = static_cast<std::int64_t>(n);
    run_scatter(op, ctx, out.dtype, first(out), first(idx), idx.dtype == DType::I64, first(g), s,
                list, false);
    return out;
}

// ---- argwhere -----------------------------------------------------------------------------------

CudaTensor Kernels::argwhere(CudaTensor t, DType index_dtype) {
    BURN_CHECK(is_index(index_dtype), "Cuda argwhere: the index dtype must be i32 or i64, got ",
               index_dtype);
    const std::size_t rank = t.rank();
    const std::size_t n = t.num_elements();
    std::size_t max_dim = 0;
    for (std::size_t d : t.shape) max_dim = std::max(max_dim, d);
    BURN_CHECK(
        index_dtype != DType::I32 || max_dim == 0 ||
            max_dim - 1 <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
        "Cuda argwhere: the index dtype ", index_dtype, " cannot hold the coordinates of shape ",
        t.shape);
    if (n == 0) return alloc(Shape{0, rank}, index_dtype, t.device);
    Context& ctx = context(t);
    // Blocks of 256 threads x 16 elements (index.cu's AW_THREADS x AW_ITERS).
    constexpr std::size_t kChunk = 256 * 16;
    const std::size_t blocks = (n + kChunk - 1) / kChunk;
    const auto counts = ctx.alloc(blocks * 4);
    const auto offsets = ctx.alloc((blocks + 1) * 8);
    void* cp = counts->data();
    void* offs = offsets->data();
    const Meta m = meta(t);
    const int dense = is_dense(t) ? 1 : 0;
    const void* src = first(t);
    const auto count = static_cast<std::int64_t>(n);
    launch(ctx, "index", variant("argwhere_count", t.dtype), dim3(static_cast<unsigned>(blocks)),
           dim3(256), 0, src, m, dense, count, cp);
    launch(ctx, "index", "argwhere_scan", dim3(1), dim3(1024), 0, static_cast<const void*>(cp),
           static_cast<std::int64_t>(blocks), offs);
    std::uint64_t total = 0;
    ctx.download(&total, static_cast<const char*>(offs) + blocks * 8, sizeof(total));
    CudaTensor out = alloc(Shape{static_cast<std::size_t>(total), rank}, index_dtype, t.device);
    if (total == 0 || rank == 0) return out;
    launch(ctx, "index", variant("argwhere_fill", t.dtype), dim3(static_cast<unsigned>(blocks)),
           dim3(256), 0, src, m, dense, count, static_cast<const void*>(offs), first(out),
           index_dtype == DType::I64 ? 1 : 0);
    return out;
}

}  // namespace burn::cuda

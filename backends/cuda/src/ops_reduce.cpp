// SPDX-License-Identifier: MIT OR Apache-2.0
// Reductions (reduce_all, reduce_dim, reduce_dim_with_indices, any_all, any_all_dim), cumulative
// ops and softmax / log_softmax: the host side of kernels/cuda/reduce.cu and softmax.cu (their
// header comments list the kernels and the semantics, the CPU backend's).
//
// How the work is cut (from the shape only, so results are deterministic on a device):
//  - everything: dense views (or permuted / flipped dense blocks, whose elements are read in
//    memory order) in chunks of >= 8192 elements, one block each, then one block over the
//    partials; other views through their (collapsed) metadata. Up to 8192 dense elements: one
//    launch.
//  - along a dim of stride 1 (rows): 4 to 32 lanes per output up to 2048 elements, a warp for
//    longer rows when there are >= 2048 outputs, else a block (split over grid.y into partials
//    when there are few long rows); a single output is reduced as everything;
//  - along any other stride (columns): threads over the outputs, the dim split over threadIdx.y
//    and, when there are few outputs, over grid.y into partials.
//  - cumulative: a block per contiguous row (segments of long rows scanned from the carries of
//    the earlier ones: totals, exclusive scan of the totals, scan), or a thread per lane.
//  - softmax: a warp per row (<= 1024), a block per row in registers (<= 8192 elements,
//    32768 f32 / 16384 f64 when 16-byte aligned), else an online pass and an output pass; other
//    dims: threads over the lanes.
// Deviations from the CPU backend: float sums add in a different order (tree reductions, in f64
// as the CPU's block sums; f32 values in pairs of pairs in f32), products of f32 accumulate in
// f64 throughout (the CPU multiplies blocks of 4096 in f32); long f64 cumsum / cumprod lanes are
// scanned in parallel (rounding differs from the CPU's sequential f64 scan in the last bits).
// Results are the same otherwise.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ops_common.hpp"

namespace burn::cuda {
namespace reduce {
namespace {

using std::int64_t;
using std::size_t;

constexpr const char* kProgram = "reduce";
constexpr const char* kSoftmaxProgram = "softmax";  // kernels/cuda/softmax.cu
/// Blocks a split reduction aims at (a constant: the split depends on the shape alone).
constexpr int64_t kTargetBlocks = 1024;
/// Fewest elements a block of a split row reduction (or of reduce_all) folds.
constexpr int64_t kMinBlockElements = 8192;
/// Chunk of the cumulative row kernel (BURN_CUM_CHUNK of reduce.cu).
constexpr int64_t kCumChunk = 2048;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

/// The same positions in the same row-major order with size-1 dims dropped and neighbouring dims
/// that step evenly merged (cheaper strided_offset on the device).
Meta collapse(const Meta& m) {
    Meta out;
    for (int d = 0; d < m.rank; ++d) {
        if (m.shape[d] == 1) continue;
        if (out.rank > 0 && out.strides[out.rank - 1] == m.shape[d] * m.strides[d]) {
            out.shape[out.rank - 1] *= m.shape[d];
            out.strides[out.rank - 1] = m.strides[d];
        } else {
            out.shape[out.rank] = m.shape[d];
            out.strides[out.rank] = m.strides[d];
            ++out.rank;
        }
    }
    return out;
}

/// The output positions of a reduction of t along dim (t with dim of size 1), collapsed.
Meta lanes_meta(const CudaTensor& t, size_t dim) {
    Meta m = meta(t);
    m.shape[dim] = 1;
    return collapse(m);
}

/// The stride the kernels step along dim (any value serves for a dim of one element).
int64_t dim_stride(const CudaTensor& t, size_t dim) {
    return t.shape[dim] == 1 ? 1 : t.strides[dim];
}

/// If t's elements exactly tile a dense block of memory (a permuted and/or flipped dense
/// tensor), the element offset of the lowest address.
std::optional<int64_t> dense_block_start(const CudaTensor& t) {
    std::array<std::pair<int64_t, size_t>, Shape::max_rank> dims{};
    size_t k = 0;
    int64_t start = t.offset;
    for (size_t d = 0; d < t.rank(); ++d) {
        if (t.shape[d] == 1) continue;
        const int64_t s = t.strides[d];
        if (s < 0) start += static_cast<int64_t>(t.shape[d] - 1) * s;
        dims[k++] = {s < 0 ? -s : s, t.shape[d]};
    }
    // Insertion sort of the k (<= 8) dims by stride (std::sort trips g++ 12's -Warray-bounds).
    for (size_t i = 1; i < k; ++i)
        for (size_t j = i; j > 0 && dims[j] < dims[j - 1]; --j) std::swap(dims[j], dims[j - 1]);
    int64_t expect = 1;
    for (size_t i = 0; i < k; ++i) {
        if (dims[i].first != expect) return std::nullopt;
        expect *= static_cast<int64_t>(dims[i].second);
    }
    return start;
}

Shape kept_shape(const Shape& s, size_t dim) {
    Shape out = s;
    out[dim] = 1;
    return out;
}

/// One reduction of the program: the kernel name part, the dtype suffix, the accumulator size
/// (partial buffers) and the kernels' mode argument (sum: 1 = mean; arg: 1 = i64 indices).
struct Spec {
    const char* op;
    const char* suffix;
    size_t acc_bytes;
    int mode;
};

Spec spec_of(ReduceOp op, DType dt) {
    // Max and min accumulate in the element type (f32 for the half types).
    const size_t es = is_half(dt) ? 4 : element_size(dt, backend::op_name(op));
    switch (op) {
        case ReduceOp::Sum: return {"sum", dtype_suffix(dt), 8, 0};
        case ReduceOp::Mean: return {"sum", dtype_suffix(dt), 8, 1};
        case ReduceOp::Prod: return {"prod", dtype_suffix(dt), 8, 0};
        case ReduceOp::Max: return {"max", dtype_suffix(dt), es, 0};
        case ReduceOp::Min: return {"min", dtype_suffix(dt), es, 0};
    }
    ::burn::detail::fail("Cuda reduce: unknown op");
}

void check_numeric(const char* op, DType dt) {
    BURN_CHECK(dt == DType::F32 || dt == DType::F64 || dt == DType::I32 || dt == DType::I64,
               "Cuda ", op, ": unsupported dtype ", dt, " (f32, f64, i32, i64)");
}
/// reduce_all and reduce_dim also read f16 / bf16 (values as f32, sums in f64, rounded once).
void check_reducible(const char* op, DType dt) {
    if (!is_half(dt)) check_numeric(op, dt);
}

std::string kernel_name(const char* kind, const Spec& sp) {
    return std::string(kind) + "_" + sp.op + "_" + sp.suffix;
}

/// Output j (of t's shape with dim of size 1, n_out > 0, t.shape[dim] > 0) = the reduction of
/// t along dim, written by the kernels' store into out (and out2: arg-max/min indices).
void run_all(const CudaTensor& t, const Spec& sp, void* out);

void run_dim(const CudaTensor& t, size_t dim, const Spec& sp, void* out, void* out2) {
    Context& ctx = context(t);
    const int64_t R = static_cast<int64_t>(t.shape[dim]);
    const int64_t n_out = static_cast<int64_t>(t.num_elements()) / R;
    if (n_out == 1 && out2 == nullptr) {
        // One output: the reduction of everything (the two-pass kernels of reduce_all).
        run_all(t, sp, out);
        return;
    }
    const Meta lanes = lanes_meta(t, dim);
    const int64_t s = dim_stride(t, dim);
    const void* x = first(t);
    std::shared_ptr<Buffer> partial;
    void* partial_ptr = nullptr;
    int64_t splits = 1;
    if (s == 1 && R > 16) {
        // Lanes per output: about four 16-byte loads each for rows up to 2048, a warp for longer
        // rows when there are many (no block barriers), else a block.
        int group = n_out >= 2048 ? 32 : 256;
        if (R <= 2048) {
            const int64_t loads = ceil_div(R, static_cast<int64_t>(16 / element_size(t.dtype)));
            group = 4;
            while (group < 32 && group * 8 <= loads) group *= 2;
        }
        const int64_t blocks = ceil_div(n_out, 256 / group);
        if (group == 256)
            splits = std::clamp(ceil_div(kTargetBlocks, blocks), int64_t{1},
                                ceil_div(R, kMinBlockElements));
        int64_t chunk = R;
        if (splits > 1) {
            chunk = round_up(ceil_div(R, splits), 16);
            splits = ceil_div(R, chunk);
            partial = ctx.alloc(static_cast<size_t>(splits * n_out) * sp.acc_bytes);
            partial_ptr = partial->data();
        }
        launch(ctx, kProgram, kernel_name("reduce_rows", sp),
               dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(splits)), dim3(256), 0, x,
               lanes, s, n_out, R, chunk, group, partial_ptr, out, out2, sp.mode);
    } else {
        const int ty = R >= 64 ? 8 : (R >= 16 ? 4 : 1);
        const int tx = 256 / ty;
        const int64_t blocks = ceil_div(n_out, tx);
        splits = std::clamp(ceil_div(kTargetBlocks, blocks), int64_t{1}, ceil_div(R, ty * 16));
        const int64_t chunk = ceil_div(R, splits);
        splits = ceil_div(R, chunk);
        if (splits > 1) {
            partial = ctx.alloc(static_cast<size_t>(splits * n_out) * sp.acc_bytes);
            partial_ptr = partial->data();
        }
        launch(ctx, kProgram, kernel_name("reduce_cols", sp),
               dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(splits)),
               dim3(static_cast<unsigned>(tx), static_cast<unsigned>(ty)), 0, x, lanes, s, n_out, R,
               chunk, partial_ptr, out, out2, sp.mode);
    }
    if (splits > 1) {
        const void* p = partial_ptr;
        launch(ctx, kProgram, kernel_name("reduce_combine", sp),
               dim3(static_cast<unsigned>(ceil_div(n_out, 8))), dim3(256), 0, p, n_out, splits, R,
               out, out2, sp.mode);
    }
    // `partial` goes back to the allocator now: later work on the stream may reuse it.
}

/// out[0] = the reduction of every element of t (t non-empty).
void run_all(const CudaTensor& t, const Spec& sp, void* out) {
    Context& ctx = context(t);
    const int64_t n = static_cast<int64_t>(t.num_elements());
    Meta m;  // rank 0: a dense run
    const void* x = nullptr;
    if (const auto start = dense_block_start(t)) {
        x = static_cast<const char*>(t.buffer->data()) +
            *start * static_cast<int64_t>(element_size(t.dtype));
    } else {
        m = collapse(meta(t));
        x = first(t);
    }
    const int64_t per_block = std::max(kMinBlockElements, round_up(ceil_div(n, kTargetBlocks), 16));
    const int64_t blocks = ceil_div(n, per_block);
    if (blocks == 1 && m.rank == 0) {
        // One block over the dense run (reduce_rows with one row).
        const Meta none;
        const int64_t one = 1, s = 1;
        const int group = 256;
        void* no_partial = nullptr;
        void* no_out2 = nullptr;
        launch(ctx, kProgram, kernel_name("reduce_rows", sp), dim3(1), dim3(256), 0, x, none, s,
               one, n, n, group, no_partial, out, no_out2, sp.mode);
        return;
    }
    const auto partial = ctx.alloc(static_cast<size_t>(blocks) * sp.acc_bytes);
    void* partial_ptr = partial->data();
    launch(ctx, kProgram, kernel_name("reduce_all_partial", sp),
           dim3(static_cast<unsigned>(blocks)), dim3(256), 0, x, m, n, per_block, partial_ptr);
    const void* p = partial_ptr;
    launch(ctx, kProgram, kernel_name("reduce_all_final", sp), dim3(1),
           dim3(blocks > 256 ? 1024 : 256), 0, p, blocks, n, sp.mode, out);
}

const char* cum_name(CumOp op) {
    switch (op) {
        case CumOp::Sum: return "sum";
        case CumOp::Prod: return "prod";
        case CumOp::Max: return "max";
        case CumOp::Min: return "min";
    }
    return "?";
}

/// The next power of two >= v (v >= 1).
int64_t pow2_at_least(int64_t v) {
    int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

}  // namespace
}  // namespace reduce

using namespace reduce;  // NOLINT(google-build-using-namespace): this file's helpers

CudaTensor Kernels::reduce_all(ReduceOp op, CudaTensor t) {
    const char* name = backend::op_name(op);
    const DType dt = t.dtype;
    check_reducible(name, dt);
    if (t.num_elements() == 0) return full(Shape{1}, backend::empty_reduction(op), dt, t.device);
    CudaTensor out = alloc(Shape{1}, dt, t.device);
    run_all(t, spec_of(op, dt), first(out));
    return out;
}

CudaTensor Kernels::reduce_dim(ReduceOp op, CudaTensor t, std::size_t dim) {
    const char* name = backend::op_dim_name(op);
    const DType dt = t.dtype;
    check_reducible(name, dt);
    const Shape shape = kept_shape(t.shape, dim);
    if (t.shape[dim] == 0) return full(shape, backend::empty_reduction(op), dt, t.device);
    CudaTensor out = alloc(shape, dt, t.device);
    if (out.num_elements() == 0) return out;
    run_dim(t, dim, spec_of(op, dt), first(out), nullptr);
    return out;
}

std::pair<CudaTensor, CudaTensor> Kernels::reduce_dim_with_indices(ReduceOp op, CudaTensor t,
                                                                   std::size_t dim,
                                                                   DType index_dtype) {
    const char* name = backend::op_dim_name(op);
    BURN_CHECK(op == ReduceOp::Max || op == ReduceOp::Min, "Cuda ", name,
               ": indices are given for max and min only");
    const DType dt = t.dtype;
    check_numeric(name, dt);
    BURN_CHECK(t.shape[dim] != 0, "Cuda ", name, ": dim ", dim, " of shape ", t.shape, " is empty");
    const Shape shape = kept_shape(t.shape, dim);
    CudaTensor values = alloc(shape, dt, t.device);
    const bool direct = index_dtype == DType::I64 || index_dtype == DType::I32;
    CudaTensor indices = alloc(shape, direct ? index_dtype : DType::I64, t.device);
    if (values.num_elements() > 0) {
        const Spec sp{op == ReduceOp::Max ? "argmax" : "argmin", dtype_suffix(dt), 16,
                      indices.dtype == DType::I64 ? 1 : 0};
        run_dim(t, dim, sp, first(values), first(indices));
    }
    if (!direct) indices = cast(std::move(indices), index_dtype);
    return {std::move(values), std::move(indices)};
}

CudaTensor Kernels::any_all(bool all, CudaTensor t) {
    if (t.dtype != DType::Bool) t = cast(std::move(t), DType::Bool);
    if (t.num_elements() == 0)
        return full(Shape{1}, ScalarArg::of(std::int64_t{all}), DType::Bool, t.device);
    CudaTensor out = alloc(Shape{1}, DType::Bool, t.device);
    run_all(t, Spec{all ? "all" : "any", "bool", 4, 0}, first(out));
    return out;
}

CudaTensor Kernels::any_all_dim(bool all, CudaTensor t, std::size_t dim) {
    if (t.dtype != DType::Bool) t = cast(std::move(t), DType::Bool);
    const Shape shape = kept_shape(t.shape, dim);
    if (t.shape[dim] == 0)
        return full(shape, ScalarArg::of(std::int64_t{all}), DType::Bool, t.device);
    CudaTensor out = alloc(shape, DType::Bool, t.device);
    if (out.num_elements() == 0) return out;
    run_dim(t, dim, Spec{all ? "all" : "any", "bool", 4, 0}, first(out), nullptr);
    return out;
}

CudaTensor Kernels::cumulative(CumOp op, CudaTensor t, std::size_t dim) {
    const char* name = backend::op_name(op);
    const DType dt = t.dtype;
    check_numeric(name, dt);
    const Shape shape = t.shape;
    if (shape.num_elements() == 0) return alloc(shape, dt, t.device);
    Context& ctx = context(t);
    const int64_t n = static_cast<int64_t>(shape[dim]);
    int64_t inner = 1;
    for (size_t d = dim + 1; d < shape.rank(); ++d) inner *= static_cast<int64_t>(shape[d]);
    const int64_t n_lanes = static_cast<int64_t>(shape.num_elements()) / n;
    const Meta lanes = lanes_meta(t, dim);
    const int64_t s = dim_stride(t, dim);
    const void* x = first(t);
    // In place when t is dense and its only owner (every element is read before it is written,
    // by the thread or block that writes it).
    CudaTensor out = output_for(t, shape, dt);
    void* o = first(out);
    const std::string suffix = std::string(cum_name(op)) + "_" + dtype_suffix(dt);
    const size_t acc_bytes = (op == CumOp::Sum || op == CumOp::Prod) ? 8 : element_size(dt, name);
    const bool by_rows = inner == 1 && n > 64;
    int64_t segs = 1, seg_len = n;
    if (by_rows) {
        // A block per row; rows cut into segments when there are few.
        if (n_lanes < 1024)
            segs = std::clamp(ceil_div(1024, n_lanes), int64_t{1}, ceil_div(n, 4 * kCumChunk));
        seg_len = round_up(ceil_div(n, segs), kCumChunk);
    } else {
        // A thread per lane; lanes cut into segments when there are few.
        if (n_lanes < 65536)
            segs = std::clamp(ceil_div(65536, n_lanes), int64_t{1},
                              std::min<int64_t>(ceil_div(n, 64), 65535));
        seg_len = ceil_div(n, segs);
    }
    segs = ceil_div(n, seg_len);
    std::shared_ptr<Buffer> carry;
    void* carry_ptr = nullptr;
    if (segs > 1) {
        carry = ctx.alloc(static_cast<size_t>(n_lanes * segs) * acc_bytes);
        carry_ptr = carry->data();
    }
    const auto scan = [&](int mode) {
        if (by_rows) {
            launch(ctx, kProgram, "cum_rows_" + suffix,
                   dim3(static_cast<unsigned>(n_lanes), static_cast<unsigned>(segs)), dim3(256), 0,
                   x, lanes, s, n, seg_len, carry_ptr, mode, o);
        } else {
            launch(ctx, kProgram, "cum_cols_" + suffix,
                   dim3(static_cast<unsigned>(ceil_div(n_lanes, 256)), static_cast<unsigned>(segs)),
                   dim3(256), 0, x, lanes, s, n_lanes, inner, n, seg_len, carry_ptr, mode, o);
        }
    };
    if (segs == 1) {
        scan(0);
        return out;
    }
    // The total of every segment, their exclusive scan (the carries), the scan from them.
    if (by_rows) {
        launch(ctx, kProgram, "cum_total_" + suffix,
               dim3(static_cast<unsigned>(n_lanes), static_cast<unsigned>(segs)), dim3(256), 0, x,
               lanes, s, n, seg_len, carry_ptr);
    } else {
        scan(1);
    }
    launch(ctx, kProgram, "cum_carry_" + suffix, dim3(static_cast<unsigned>(ceil_div(n_lanes, 8))),
           dim3(256), 0, carry_ptr, n_lanes, segs);
    scan(2);
    return out;
}

CudaTensor Kernels::softmax(CudaTensor x, std::size_t dim, bool log) {
    const char* name = log ? "log_softmax" : "softmax";
    const DType dt = x.dtype;
    BURN_CHECK(dt == DType::F32 || dt == DType::F64 || is_half(dt), "Cuda ", name,
               ": unsupported dtype ", dt, " (f32, f64, f16, bf16)");
    const Meta lanes = lanes_meta(x, dim);
    const int64_t s = dim_stride(x, dim);
    const void* xp = first(x);
    const bool dense = is_dense(x);
    const Shape shape = x.shape;
    CudaTensor out = output_for(x, shape, dt);
    if (shape.num_elements() == 0) return out;
    Context& ctx = context(out);
    void* o = first(out);
    const int lg = log ? 1 : 0;
    const char* suf = dtype_suffix(dt);
    const int64_t n = static_cast<int64_t>(shape[dim]);
    int64_t inner = 1;
    for (size_t d = dim + 1; d < shape.rank(); ++d) inner *= static_cast<int64_t>(shape[d]);
    const int64_t n_rows = static_cast<int64_t>(shape.num_elements()) / n;
    if (inner == 1 && n > 16) {
        const int64_t v16 = static_cast<int64_t>(16 / element_size(dt));
        const bool vec = dense && n % v16 == 0 && reinterpret_cast<std::uintptr_t>(xp) % 16 == 0;
        const int64_t per_item = vec ? v16 : 1;
        const std::string kind = vec ? "v" : "s";
        if (n <= 1024) {
            const int64_t items = pow2_at_least(ceil_div(n, 32 * per_item));
            launch(ctx, kSoftmaxProgram, "softmax_warp_" + kind + std::to_string(items) + "_" + suf,
                   dim3(static_cast<unsigned>(ceil_div(n_rows, 8))), dim3(256), 0, xp, lanes, s,
                   n_rows, n, o, lg);
            return out;
        }
        if (n <= 1024 * 8 * per_item) {
            const int64_t items = std::min<int64_t>(8, pow2_at_least(ceil_div(n, 256 * per_item)));
            const int64_t block =
                std::max<int64_t>(256, pow2_at_least(ceil_div(n, items * per_item)));
            launch(ctx, kSoftmaxProgram,
                   std::string("softmax_block_") + (vec ? "v" : "s") + std::to_string(items) + "_" +
                       suf,
                   dim3(static_cast<unsigned>(n_rows)), dim3(static_cast<unsigned>(block)), 0, xp,
                   lanes, s, n_rows, n, o, lg);
            return out;
        }
        launch(ctx, kSoftmaxProgram, std::string("softmax_online_") + suf,
               dim3(static_cast<unsigned>(n_rows)), dim3(1024), 0, xp, lanes, s, n_rows, n, o, lg);
        return out;
    }
    // The dim is not the innermost (or is short): threads over the lanes, the dim over y.
    const int ty = n >= 1024 ? 32 : (n >= 256 ? 16 : (n >= 64 ? 8 : (n >= 16 ? 4 : 1)));
    const int tx = ty >= 16 ? 32 : 256 / ty;
    launch(ctx, kSoftmaxProgram, std::string("softmax_cols_") + suf,
           dim3(static_cast<unsigned>(ceil_div(n_rows, tx))),
           dim3(static_cast<unsigned>(tx), static_cast<unsigned>(ty)), 0, xp, lanes, s, n_rows,
           inner, n, o, lg);
    return out;
}

}  // namespace burn::cuda

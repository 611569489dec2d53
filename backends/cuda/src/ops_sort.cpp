// SPDX-License-Identifier: MIT OR Apache-2.0
// Stable sort and argsort along one dim (kernels/cuda/sort.cu), with the CPU backend's order
// (backends/cpu/src/sort.cpp): NaN after every number ascending, before them descending, equal
// elements in their original order; values bit-exact (read back through the sorted positions).
// Rows of up to 4096 elements (2048 for 64-bit dtypes) are sorted in shared memory (bitonic), one
// tile of whole rows per block; longer rows by an LSD radix sort (8 bits a pass, stable; also
// rows over 1024 whose keys need at most two passes: the scatter-adds' index keys).
// index::sort_rows also sorts the indices of the deterministic scatter-adds (ops_index.cpp). Limit:
// a sorted dim holds at most 2^32 elements (the positions are 32-bit on the device).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "ops_common.hpp"

namespace burn::cuda {

namespace index {
/// Sorts `t` along `dim` (stable; values only when want_values). `key_bytes`, when not 0: the
/// low bytes of the keys that vary (an ascending sort of non-negative ints below 2^(8 key_bytes):
/// the radix sort skips the other bytes).
std::pair<CudaTensor, CudaTensor> sort_rows(CudaTensor t, std::size_t dim, bool descending,
                                            DType index_dtype, bool want_values, const char* op,
                                            std::uint32_t key_bytes = 0);
}  // namespace index

namespace {

/// kernels/cuda/index.cuh's Dims<1>: the rows of the input (its dims but the sorted one).
struct RowDims {
    std::int32_t rank = 0;
    std::int32_t pad_ = 0;
    std::int64_t shape[8] = {};
    std::int64_t strides[8] = {};
};
static_assert(sizeof(RowDims) == 136);

/// Elements per block of the radix passes (kernels/cuda/sort.cu's RadixItems x 256).
std::int64_t radix_chunk(std::size_t key_size) { return key_size == 8 ? 2048 : 4096; }

/// log2 of the largest tile (pairs in shared memory): 32 KiB for 32-bit keys, 24 KiB for 64-bit
/// ones (kernels/cuda/sort.cu).
std::uint32_t max_log_tile(DType dtype) { return element_size(dtype) == 8 ? 11u : 12u; }

/// The dims of `t` but `dim`, with their strides, neighbours merged where one stride walks both
/// (rows keep their row-major order).
RowDims row_dims(const CudaTensor& t, std::size_t dim) {
    RowDims r;
    for (std::size_t d = 0; d < t.rank(); ++d) {
        if (d == dim || t.shape[d] == 1) continue;
        const auto size = static_cast<std::int64_t>(t.shape[d]);
        if (r.rank > 0 && r.strides[r.rank - 1] == t.strides[d] * size) {
            r.shape[r.rank - 1] *= size;
            r.strides[r.rank - 1] = t.strides[d];
            continue;
        }
        r.shape[r.rank] = size;
        r.strides[r.rank] = t.strides[d];
        ++r.rank;
    }
    return r;
}

}  // namespace

std::pair<CudaTensor, CudaTensor> index::sort_rows(CudaTensor t, std::size_t dim, bool descending,
                                                   DType index_dtype, bool want_values,
                                                   const char* op, std::uint32_t key_bytes) {
    BURN_CHECK(index_dtype == DType::I32 || index_dtype == DType::I64, "Cuda ", op,
               ": the index dtype must be i32 or i64, got ", index_dtype);
    if (t.rank() == 0) {  // a single element (dim 0 accepted, as torch)
        CudaTensor one = t;
        one.shape = Shape{1};
        one.strides[0] = 1;
        auto r = sort_rows(std::move(one), 0, descending, index_dtype, want_values, op, key_bytes);
        if (want_values) {
            r.first.shape = Shape{};
            r.first.strides = backend::contiguous_strides(r.first.shape);
        }
        r.second.shape = Shape{};
        r.second.strides = backend::contiguous_strides(r.second.shape);
        return r;
    }
    const std::size_t n = t.shape[dim];
    BURN_CHECK(index_dtype != DType::I32 || n == 0 ||
                   n - 1 <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
               "Cuda ", op, ": the index dtype ", index_dtype,
               " cannot hold the indices of a dim of size ", n);
    BURN_CHECK(n <= (std::size_t{1} << 32), "Cuda ", op, ": dim ", dim, " of shape ", t.shape,
               " is longer than the 2^32 elements the CUDA sort handles per row");
    (void)element_size(t.dtype, op);
    BURN_CHECK(t.dtype != DType::QInt8, "Cuda ", op, ": cannot sort quantized int8 storage");
    CudaTensor values;
    if (want_values) values = alloc(t.shape, t.dtype, t.device);
    CudaTensor indices = alloc(t.shape, index_dtype, t.device);
    const std::size_t numel = t.num_elements();
    if (numel == 0) return {std::move(values), std::move(indices)};

    Context& ctx = context(t);
    const auto rows = static_cast<std::int64_t>(numel / n);
    const auto len = static_cast<std::int64_t>(n);
    std::int64_t inner = 1;
    for (std::size_t d = dim + 1; d < t.rank(); ++d) inner *= static_cast<std::int64_t>(t.shape[d]);
    const RowDims rd = row_dims(t, dim);
    const std::int64_t t_step = t.strides[dim];
    const int desc = descending ? 1 : 0;
    const int idx64 = index_dtype == DType::I64 ? 1 : 0;
    const int small = static_cast<std::uint64_t>(rows) <= std::numeric_limits<std::uint32_t>::max();
    const void* src = first(t);
    void* vout = want_values ? first(values) : nullptr;
    void* iout = first(indices);
    const std::size_t key_size = element_size(t.dtype) == 8 ? 8 : 4;
    const std::uint32_t passes =
        key_bytes > 0 ? std::min<std::uint32_t>(key_bytes, static_cast<std::uint32_t>(key_size))
                      : static_cast<std::uint32_t>(key_size);
    const auto log_p = static_cast<std::uint32_t>(std::bit_width(std::bit_ceil(n)) - 1);
    const std::uint32_t log_max = max_log_tile(t.dtype);

    // Bitonic in shared memory for rows that fit a tile; the radix sort for longer rows, and for
    // rows over 1024 whose keys need at most two radix passes.
    if (log_p <= log_max && (log_p <= 10 || passes > 2)) {
        // Whole rows per tile; at least 1024 slots, so that short rows share a block.
        const std::uint32_t log_tile = std::max(log_p, std::min<std::uint32_t>(10, log_max));
        const std::size_t tile = std::size_t{1} << log_tile;
        const std::uint64_t rows_per_tile = std::uint64_t{1} << (log_tile - log_p);
        const std::uint64_t tiles =
            (static_cast<std::uint64_t>(rows) + rows_per_tile - 1) / rows_per_tile;
        const std::uint64_t cap =
            static_cast<std::uint64_t>(ctx.properties().multiProcessorCount) * 16;
        const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(1024, tile / 2));
        launch(ctx, "sort", variant("sort_small", t.dtype),
               dim3(static_cast<unsigned>(std::min(tiles, cap))), dim3(threads),
               tile * (key_size + 4), src, rd, rows, len, t_step, inner, log_p, log_tile, desc,
               vout, iout, idx64, small);
        return {std::move(values), std::move(indices)};
    }

    // Long rows: (key, position) pairs in global memory, LSD radix sorted 8 bits a pass.
    const auto total = static_cast<std::uint64_t>(rows * len);
    std::shared_ptr<Buffer> keys[2] = {ctx.alloc(total * key_size), ctx.alloc(total * key_size)};
    std::shared_ptr<Buffer> ids[2] = {ctx.alloc(total * 4), ctx.alloc(total * 4)};
    launch_1d(ctx, "sort", variant("radix_keys", t.dtype), total, src, rd, rows, len, t_step, desc,
              keys[0]->data(), ids[0]->data(), small);
    const std::int64_t chunk = radix_chunk(key_size);
    const std::int64_t bpr = (len + chunk - 1) / chunk;  // chunks per row
    const std::int64_t groups = rows * 256;              // (row, digit)
    const auto hist = ctx.alloc(static_cast<std::size_t>(groups * bpr) * 4);
    const auto totals = ctx.alloc(static_cast<std::size_t>(groups) * 4);
    void* hp = hist->data();
    void* tp = totals->data();
    const std::string suffix = key_size == 8 ? "_k64" : "_k32";
    const dim3 chunks(static_cast<unsigned>(rows * bpr));
    const dim3 scan_grid(grid_for(ctx, static_cast<std::uint64_t>(groups) * 32));
    for (std::uint32_t pass = 0; pass < passes; ++pass) {
        const std::uint32_t shift = 8 * pass;
        const auto in = pass % 2, out = 1 - in;
        launch(ctx, "sort", "radix_hist" + suffix, chunks, dim3(256), 0,
               static_cast<const void*>(keys[in]->data()), len, bpr, shift, hp);
        launch(ctx, "sort", "radix_scan", scan_grid, dim3(256), 0, hp, tp, groups, bpr);
        launch(ctx, "sort", "radix_scatter" + suffix, chunks, dim3(256), 0,
               static_cast<const void*>(keys[in]->data()),
               static_cast<const void*>(ids[in]->data()), keys[out]->data(), ids[out]->data(), len,
               bpr, shift, static_cast<const void*>(hp), static_cast<const void*>(tp));
    }
    launch_1d(ctx, "sort", variant("sort_out", t.dtype), total, src, rd, rows, len, t_step, inner,
              static_cast<const void*>(ids[passes % 2]->data()), vout, iout, idx64, small);
    return {std::move(values), std::move(indices)};
}

std::pair<CudaTensor, CudaTensor> Kernels::sort(CudaTensor t, std::size_t dim, bool descending,
                                                DType index_dtype) {
    return index::sort_rows(std::move(t), dim, descending, index_dtype, true, "sort");
}

CudaTensor Kernels::argsort(CudaTensor t, std::size_t dim, bool descending, DType index_dtype) {
    return index::sort_rows(std::move(t), dim, descending, index_dtype, false, "argsort").second;
}

}  // namespace burn::cuda

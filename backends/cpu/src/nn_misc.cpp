// SPDX-License-Identifier: MIT OR Apache-2.0
// unfold4d (im2col, as torch.nn.functional.unfold), embedding lookup and its backward.
//
// unfold4d writes one output row per (batch, channel, kernel row, kernel col): the row holds that
// kernel tap over every window position, so each row is a strided copy of input rows with zeros
// where the tap falls in the padding. Rows are independent and run in parallel.
// embedding copies weight rows; its backward adds gradient rows into zeros, split over column
// blocks so that no two threads write the same element.
#include <algorithm>
#include <cstring>

#include "internal.hpp"

namespace burn::cpu {
namespace {

using i64 = std::int64_t;

template <class F>
decltype(auto) dispatch_index(DType d, const char* op, F&& f) {
    if (d == DType::I64) return f(std::int64_t{});
    if (d == DType::I32) return f(std::int32_t{});
    detail::fail(op, ": indices must be I64 or I32, got ", dtype_name(d));
}

/// The output positions o in [0, out) whose input index o * stride + base lies in [0, in).
std::pair<std::size_t, std::size_t> valid_range(i64 base, i64 stride, std::size_t in,
                                                std::size_t out) {
    const i64 n = static_cast<i64>(in);
    i64 lo = base >= 0 ? 0 : (-base + stride - 1) / stride;
    i64 hi = n - 1 - base < 0 ? 0 : (n - 1 - base) / stride + 1;
    hi = std::min<i64>(hi, static_cast<i64>(out));
    lo = std::min(lo, hi);
    return {static_cast<std::size_t>(lo), static_cast<std::size_t>(hi)};
}

template <class E>
void unfold_kernel(const E* __restrict x, E* __restrict y, std::size_t rows, std::size_t H,
                   std::size_t W, std::size_t kh, std::size_t kw, std::size_t OH, std::size_t OW,
                   const SpatialArgs& a) {
    const i64 sh = static_cast<i64>(a.stride[0]), sw = static_cast<i64>(a.stride[1]);
    const i64 ph = static_cast<i64>(a.padding[0]), pw = static_cast<i64>(a.padding[1]);
    const i64 dh = static_cast<i64>(a.dilation[0]), dw = static_cast<i64>(a.dilation[1]);
    const std::size_t L = OH * OW;
    parallel_for(rows, std::max<std::size_t>(1, kParallelGrain / std::max<std::size_t>(1, L)),
                 [&](std::size_t r0, std::size_t r1) {
                     for (std::size_t r = r0; r < r1; ++r) {
                         const std::size_t kj = r % kw, ki = (r / kw) % kh, plane = r / (kw * kh);
                         const E* src = x + plane * H * W;
                         E* __restrict out = y + r * L;
                         const i64 bh = static_cast<i64>(ki) * dh - ph,
                                   bw = static_cast<i64>(kj) * dw - pw;
                         const auto [x0, x1] = valid_range(bw, sw, W, OW);
                         for (std::size_t oy = 0; oy < OH; ++oy) {
                             E* __restrict o = out + oy * OW;
                             const i64 iy = static_cast<i64>(oy) * sh + bh;
                             if (iy < 0 || iy >= static_cast<i64>(H)) {
                                 std::fill(o, o + OW, E(0));
                                 continue;
                             }
                             std::fill(o, o + x0, E(0));
                             const E* __restrict row = src + iy * static_cast<i64>(W);
                             if (sw == 1) {
                                 const E* __restrict from = row + (static_cast<i64>(x0) + bw);
                                 std::copy(from, from + (x1 - x0), o + x0);
                             } else {
                                 for (std::size_t ox = x0; ox < x1; ++ox)
                                     o[ox] = row[static_cast<i64>(ox) * sw + bw];
                             }
                             std::fill(o + x1, o + OW, E(0));
                         }
                     }
                 });
}

[[noreturn, gnu::noinline, gnu::cold]] void index_out_of_range(const char* op, i64 k,
                                                               std::size_t n) {
    detail::fail(op, ": index ", k, " is out of range for ", n, " embeddings");
}

template <class I>
void check_indices(const I* idx, std::size_t count, std::size_t n, const char* op) {
    for (std::size_t i = 0; i < count; ++i) {
        const i64 k = static_cast<i64>(idx[i]);
        if (k < 0 || static_cast<std::size_t>(k) >= n) [[unlikely]]
            index_out_of_range(op, k, n);
    }
}

}  // namespace

CpuTensor Kernels::unfold4d(CpuTensor x, const SpatialArgs& a) {
    assert(x.rank() == 4 && a.n == 2);
    const std::size_t B = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const std::size_t kh = a.kernel[0], kw = a.kernel[1];
    const std::size_t OH = conv_output_size(H, kh, a.stride[0], a.padding[0], a.dilation[0]);
    const std::size_t OW = conv_output_size(W, kw, a.stride[1], a.padding[1], a.dilation[1]);
    x = contiguous(std::move(x));
    CpuTensor y = alloc(Shape{B, C * kh * kw, OH * OW}, x.dtype);
    dispatch(x.dtype, [&](auto e) {
        using E = decltype(e);
        unfold_kernel<E>(x.data<E>(), y.data<E>(), B * C * kh * kw, H, W, kh, kw, OH, OW, a);
    });
    return y;
}

CpuTensor Kernels::embedding(CpuTensor weights, CpuTensor indices) {
    const char* op = "embedding";
    assert(weights.rank() == 2 && indices.rank() < Shape::max_rank);
    const std::size_t n = weights.shape[0], d = weights.shape[1];
    Shape out = indices.shape;
    out.push_back(d);
    weights = contiguous(std::move(weights));
    indices = contiguous(std::move(indices));
    CpuTensor y = alloc(out, weights.dtype);
    const std::size_t count = indices.num_elements();
    const std::size_t bytes = d * dtype_size(weights.dtype);
    dispatch_index(indices.dtype, op, [&](auto i) {
        using I = decltype(i);
        const I* idx = indices.data<I>();
        check_indices(idx, count, n, op);
        const std::byte* w = weights.data<std::byte>();
        std::byte* dst = y.data<std::byte>();
        parallel_for(count, std::max<std::size_t>(1, kParallelGrain / std::max<std::size_t>(1, d)),
                     [&](std::size_t i0, std::size_t i1) {
                         for (std::size_t k = i0; k < i1; ++k)
                             std::memcpy(dst + k * bytes,
                                         w + static_cast<std::size_t>(idx[k]) * bytes, bytes);
                     });
    });
    return y;
}

CpuTensor Kernels::embedding_backward(CpuTensor weights, CpuTensor grad, CpuTensor indices) {
    const char* op = "embedding_backward";
    assert(weights.rank() == 2 && grad.dtype == weights.dtype);
    assert(grad.rank() == indices.rank() + 1 && grad.shape[indices.rank()] == weights.shape[1]);
    const std::size_t n = weights.shape[0], d = weights.shape[1];
    grad = contiguous(std::move(grad));
    indices = contiguous(std::move(indices));
    CpuTensor gw = alloc(weights.shape, weights.dtype);
    {  // zeroed in parallel: a large table is mostly untouched by the rows added below
        const std::size_t bytes = gw.num_elements() * dtype_size(gw.dtype);
        std::byte* z = gw.data<std::byte>();
        parallel_for(bytes, std::size_t{1} << 20,
                     [&](std::size_t b0, std::size_t b1) { std::memset(z + b0, 0, b1 - b0); });
    }
    const std::size_t count = indices.num_elements();
    dispatch_index(indices.dtype, op, [&](auto i) {
        using I = decltype(i);
        const I* idx = indices.data<I>();
        check_indices(idx, count, n, op);
        dispatch(weights.dtype, [&](auto e) {
            using E = decltype(e);
            const E* g = grad.data<E>();
            E* out = gw.data<E>();
            // Race-free split: by column blocks when the rows are wide, otherwise by ranges of
            // embedding ids (each range scans every index and keeps its own rows).
            const std::size_t block = 16;
            const std::size_t blocks = (d + block - 1) / block;
            if (blocks >= 8 || n == 1) {
                const std::size_t grain = std::max<std::size_t>(
                    1, kParallelGrain / std::max<std::size_t>(1, count * block));
                parallel_for(blocks, grain, [&](std::size_t b0, std::size_t b1) {
                    const std::size_t c0 = b0 * block, c1 = std::min(d, b1 * block);
                    for (std::size_t k = 0; k < count; ++k) {
                        E* __restrict row = out + static_cast<std::size_t>(idx[k]) * d;
                        const E* __restrict src = g + k * d;
                        for (std::size_t c = c0; c < c1; ++c) row[c] += src[c];
                    }
                });
            } else {
                // At most about 16 ranges: each one pays a scan of the indices.
                const std::size_t total = count * d;
                const std::size_t ranges = std::min<std::size_t>(
                    n, std::max<std::size_t>(1, std::min<std::size_t>(16, total / kParallelGrain)));
                parallel_for(ranges, 1, [&](std::size_t q0, std::size_t q1) {
                    const std::size_t lo = n * q0 / ranges, hi = n * q1 / ranges;
                    for (std::size_t k = 0; k < count; ++k) {
                        const auto id = static_cast<std::size_t>(idx[k]);
                        if (id < lo || id >= hi) continue;
                        E* __restrict row = out + id * d;
                        const E* __restrict src = g + k * d;
                        for (std::size_t c = 0; c < d; ++c) row[c] += src[c];
                    }
                });
            }
        });
    });
    return gw;
}

}  // namespace burn::cpu

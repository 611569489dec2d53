// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared machinery of the CPU kernels: dtype dispatch, parallel loops, strided iteration.
// Private to backends/cpu/src.
#pragma once

#include <tbb/blocked_range.h>

#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "burn/backend/cpu/kernels.hpp"
#include "burn/backend/shapes.hpp"
#include "burn/tensor/error.hpp"

namespace burn::cpu {

/// Elements below which a loop stays on the calling thread.
inline constexpr std::size_t kParallelGrain = 32768;

/// Runs call(body, begin, end) over [0, n) in chunks of at least `grain`, split by
/// tbb::parallel_for in the kernels' arena of burn::num_threads() threads (threads.cpp; every
/// parallel loop of the kernels runs there, never in TBB's per-thread default arena). It is the one
/// instantiation of TBB's loop machinery behind parallel_for and parallel_range: they pass each
/// kernel's loop body through a function pointer, so that the hundreds of kernel instantiations
/// (op x dtype x layout) do not each instantiate TBB's task, partitioner and arena templates
/// again. One indirect call per chunk of at least `grain` elements costs nothing measurable; the
/// body itself stays inlined.
using RangeCall = void (*)(const void* body, std::size_t begin, std::size_t end);
void parallel_for_erased(std::size_t n, std::size_t grain, const void* body, RangeCall call);

/// Number of threads of the kernels' arena: burn::num_threads() (threads.cpp). Size blocks by
/// this, not by tbb::this_task_arena::max_concurrency(), which is another arena's outside a loop.
std::size_t num_threads();

/// Runs f(begin, end) over [0, n) in chunks of at least `grain`, in parallel when n is large.
template <class F>
void parallel_for(std::size_t n, std::size_t grain, F&& f) {
    if (n == 0) return;
    if (n <= grain) {
        f(std::size_t{0}, n);
        return;
    }
    using Body = std::remove_reference_t<F>;
    parallel_for_erased(n, grain, &f, [](const void* body, std::size_t b, std::size_t e) {
        (*static_cast<Body*>(const_cast<void*>(body)))(b, e);
    });
}

/// tbb::parallel_for(tbb::blocked_range(0, n, grain), body) in the kernels' arena.
template <class Body>
void parallel_range(std::size_t n, std::size_t grain, const Body& body) {
    if (n == 0) return;
    parallel_for_erased(n, grain, &body, [](const void* b, std::size_t begin, std::size_t end) {
        (*static_cast<const Body*>(b))(tbb::blocked_range<std::size_t>(begin, end));
    });
}

/// Calls f(E{}) with the C++ type stored for `d` (bool is stored as std::uint8_t).
template <class F>
decltype(auto) dispatch(DType d, F&& f) {
    switch (d) {
        case DType::F64: return f(double{});
        case DType::F32: return f(float{});
        case DType::I64: return f(std::int64_t{});
        case DType::I32: return f(std::int32_t{});
        case DType::I16: return f(std::int16_t{});
        case DType::I8: return f(std::int8_t{});
        case DType::U8:
        case DType::Bool: return f(std::uint8_t{});
        default: break;
    }
    detail::fail("cpu backend: dtype ", dtype_name(d), " is not a storage type of this backend");
}

/// Shorthands for the kernels other kernels call (the CPU has one device).
inline CpuTensor contiguous(CpuTensor t) { return Kernels::contiguous(std::move(t)); }
inline CpuTensor cast(CpuTensor t, DType dtype) { return Kernels::cast(std::move(t), dtype); }
inline CpuTensor full(const Shape& shape, ScalarArg value, DType dtype) {
    return Kernels::full(shape, value, dtype, CpuDevice{});
}

/// Allocates a dense tensor (uninitialised).
CpuTensor alloc(const Shape& shape, DType dtype);

/// `n` uninitialised elements of E in a block of the buffer pool, held by the returned handle:
/// kernels' temporaries of a few MiB (a fresh allocation of that size is a new mapping, with its
/// page faults, on every call; a pooled block is reused).
template <class E>
struct PoolArray {
    std::shared_ptr<Buffer> block;
    explicit PoolArray(std::size_t n) : block(Buffer::allocate(n * sizeof(E))) {}
    E* data() const { return reinterpret_cast<E*>(block->data()); }
    E& operator[](std::size_t i) const { return data()[i]; }
};

/// Whether a kernel may write its result into t's buffer (t is its only owner). Every in-place
/// write of the kernels asks here, never t.is_unique() directly: a yes counts the write
/// (Buffer::note_write), which invalidates what was derived from the old values (prepared()).
inline bool claim_in_place(const CpuTensor& t) {
    if (!t.is_unique()) return false;
    t.buffer->note_write();
    return true;
}

/// What a kernel derives from a weight tensor and keeps between calls (prepared()).
enum class PreparedKind : std::uint8_t {
    WinogradF2x3,  ///< conv_winograd.cpp: the transformed 3x3 filters in the product's layout
};

/// `bytes` bytes derived from the dense tensor `w` by `make` (which fills them), kept while w's
/// buffer lives and no kernel writes into it (Buffer::writes): a model's weights are prepared
/// once, not on every call. Kept from the second call that finds the same unchanged weights, so
/// training, whose weights change every step, only makes them and keeps nothing; at most
/// kPreparedBytes in all, the least recently used dropped first (prepared.cpp).
std::shared_ptr<const std::byte[]> prepared(const CpuTensor& w, PreparedKind kind,
                                            std::size_t bytes,
                                            const std::function<void(std::byte*)>& make);
inline constexpr std::size_t kPreparedBytes = std::size_t{1} << 30;

using backend::view::broadcast_strides;

/// Iterates an N-operand strided loop over `shape`. Adjacent dims that are contiguous for every
/// operand are merged; the innermost dim becomes a row. For each row the callback receives the
/// element offset of every operand, the row length and each operand's inner stride:
///   f(const std::array<int64_t, N>& offsets, std::size_t len, const std::array<int64_t, N>& inner)
/// Rows are distributed over threads when the tensor is large.
template <std::size_t N>
class StridedLoop {
public:
    StridedLoop(const Shape& shape, const std::array<Strides, N>& strides) {
        // Drop size-1 dims, merge contiguous neighbours.
        for (std::size_t d = 0; d < shape.rank(); ++d) {
            if (shape[d] == 1) continue;
            if (rank_ > 0) {
                bool mergeable = true;
                for (std::size_t k = 0; k < N; ++k)
                    if (strides[k][d] * static_cast<std::int64_t>(shape[d]) !=
                        strides_[k][rank_ - 1])
                        mergeable = false;
                if (mergeable) {
                    dims_[rank_ - 1] *= shape[d];
                    for (std::size_t k = 0; k < N; ++k) strides_[k][rank_ - 1] = strides[k][d];
                    continue;
                }
            }
            dims_[rank_] = shape[d];
            for (std::size_t k = 0; k < N; ++k) strides_[k][rank_] = strides[k][d];
            ++rank_;
        }
        if (rank_ == 0) {  // a single element
            dims_[0] = shape.num_elements();
            for (std::size_t k = 0; k < N; ++k) strides_[k][0] = 1;
            rank_ = 1;
        }
    }

    std::size_t row_len() const { return dims_[rank_ - 1]; }
    std::size_t num_rows() const {
        std::size_t n = 1;
        for (std::size_t d = 0; d + 1 < rank_; ++d) n *= dims_[d];
        return n;
    }

    template <class F>
    void run(const std::array<std::int64_t, N>& base, F&& f) const {
        const std::size_t rows = num_rows(), len = row_len();
        if (len == 0 || rows == 0) return;
        std::array<std::int64_t, N> inner{};
        for (std::size_t k = 0; k < N; ++k) inner[k] = strides_[k][rank_ - 1];
        const std::size_t grain = std::max<std::size_t>(1, kParallelGrain / len);
        parallel_for(rows, grain, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                std::array<std::int64_t, N> off = base;
                std::size_t rem = r;
                for (std::size_t d = rank_ - 1; d-- > 0;) {
                    const std::size_t i = rem % dims_[d];
                    rem /= dims_[d];
                    for (std::size_t k = 0; k < N; ++k)
                        off[k] += static_cast<std::int64_t>(i) * strides_[k][d];
                }
                f(off, len, inner);
            }
        });
    }

private:
    std::array<std::size_t, Shape::max_rank> dims_{};
    std::array<Strides, N> strides_{};
    std::size_t rank_ = 0;
};

/// Converts one value between stored element types (bool is std::uint8_t 0/1).
template <class To, class From>
inline To convert_value(From v) {
    if constexpr (std::is_same_v<To, From>) return v;
    else return static_cast<To>(v);
}

/// Copies `src` (any strides, any stored dtype) into the dense buffer `dst` of dtype `dst_dtype`.
void copy_into(const CpuTensor& src, void* dst, DType dst_dtype);

/// softmax / log_softmax of the dense float tensor x along dim into the dense `out` of its shape
/// and dtype (out may be x). activation.cpp.
void softmax_into(const CpuTensor& x, const CpuTensor& out, std::size_t dim, bool log);

/// Row-major GEMM on the calling thread: C = op(A) * op(B) + beta * C, with op = transpose when
/// `ta` / `tb` (OpenBLAS, kept single-threaded; safe inside parallel_for). matmul.cpp.
void gemm(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, const float* a,
          std::size_t lda, const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc);
void gemm(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, const double* a,
          std::size_t lda, const double* b, std::size_t ldb, double beta, double* c,
          std::size_t ldc);

/// 3x3 convolutions with stride 1 as Winograd F(2x2, 3x3) (conv_winograd.cpp): whether the
/// geometry qualifies (one group, 2-D, 3x3 kernel, stride and dilation 1, at least
/// kWinogradMinChannels input and output channels, at least kWinogradMinTiles 2x2 output tiles
/// over the batch), and the forward product on dense data. The forward keeps each weight
/// tensor's transform (prepared()), so a model's repeated calls do not pay it; measured on
/// ResNet-18's 7x7 stage at batch 1 (16 tiles, 512 channels), Winograd with kept weights took
/// 0.8 ms against im2col + GEMM's 1.8 ms (a call that transforms them: 2.1 ms).
inline constexpr std::size_t kWinogradMinChannels = 32;
inline constexpr std::size_t kWinogradMinTiles = 16;
bool winograd_conv_applies(const backend::ConvGeometry& g);
/// The filters w [Cout, Cin, 3, 3] transformed for winograd_conv: winograd_weights_size(g)
/// values written to `up`.
std::size_t winograd_weights_size(const backend::ConvGeometry& g);
template <class E>
void winograd_weights(const backend::ConvGeometry& g, const E* w, E* up);
template <class E>
void winograd_conv(const backend::ConvGeometry& g, const E* in, const E* up, const E* bias, E* out);
/// The weight gradient dw [Cout, Cin, 3, 3] of such a convolution from its input and output
/// gradient, as Winograd F(3x3, 2x2) (conv_winograd.cpp).
template <class E>
void winograd_weight_grad(const backend::ConvGeometry& g, const E* in, const E* gy, E* dw);

/// 1 / d when d is a power of two whose reciprocal is a normal E: then x / d == x * (1 / d)
/// exactly (both are the correctly rounded x * 2^-k), and a multiply costs a fraction of a
/// divide (binary_scalar and the fused programs use it). False for every other divisor.
template <class E>
bool exact_reciprocal(E d, E& r) {
    if constexpr (!std::is_floating_point_v<E>) {
        return false;
    } else {
        if (!std::isfinite(d) || d == E(0)) return false;
        int e = 0;
        if (std::abs(std::frexp(d, &e)) != E(0.5)) return false;
        const E inv = E(1) / d;
        if (!std::isnormal(inv)) return false;
        r = inv;
        return true;
    }
}

}  // namespace burn::cpu

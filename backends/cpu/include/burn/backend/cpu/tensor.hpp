// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend's primitive: a strided view into a pooled, 64-byte aligned buffer. This header is
// light (no Eigen, no TBB); the kernels live in backends/cpu/src.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "burn/backend/layout.hpp"

namespace burn {

/// The CPU device. There is one; all CPU tensors live on it.
struct CpuDevice {
    friend bool operator==(const CpuDevice&, const CpuDevice&) = default;
    std::string to_string() const { return "Cpu"; }
    friend std::ostream& operator<<(std::ostream& os, const CpuDevice&) { return os << "Cpu"; }
};

namespace cpu {

/// A block of memory from the CPU buffer pool; returned to the pool when the last owner drops it.
class Buffer {
public:
    /// At least `bytes` bytes, 64-byte aligned, uninitialised.
    static std::shared_ptr<Buffer> allocate(std::size_t bytes);
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer();
    std::byte* data() const { return ptr_; }
    std::size_t capacity() const { return capacity_; }
    /// How many times a kernel wrote a result into this block after it was first filled (an op
    /// whose input was the block's only owner reuses it). Values derived from a tensor and kept
    /// (the convolutions' prepared weights) are valid while this count is unchanged. Code that
    /// writes into a tensor it did not allocate itself calls note_write() first.
    std::uint64_t writes() const { return writes_.load(std::memory_order_acquire); }
    void note_write() { writes_.fetch_add(1, std::memory_order_acq_rel); }

private:
    Buffer(std::byte* p, std::size_t c) : ptr_(p), capacity_(c) {}
    std::byte* ptr_;
    std::size_t capacity_;
    std::atomic<std::uint64_t> writes_{0};
};

/// Statistics of the buffer pool (for tests and benchmarks).
struct PoolStats {
    std::size_t system_allocations = 0;  ///< blocks obtained from the system allocator
    std::size_t reused = 0;              ///< requests served from the cache
    std::size_t cached_bytes = 0;        ///< bytes held in free lists now
    std::size_t live_bytes = 0;          ///< bytes handed out and not yet returned
    std::size_t peak_live_bytes = 0;     ///< the most live_bytes seen since the last reset
};
PoolStats pool_stats();
/// Restarts peak_live_bytes from the current live_bytes (to measure one computation's peak).
void pool_reset_peak();
/// Returns every cached block to the system.
void pool_release_cached();

/// Weights prepared by the kernels and kept between calls: 3x3 convolution filters transformed
/// for Winograd's algorithm. Kept from the second call that uses a weight tensor unchanged, while
/// its buffer lives and no op writes into it; at most 1 GiB in all.
struct PreparedStats {
    std::size_t kept = 0;   ///< weight tensors with prepared values kept
    std::size_t bytes = 0;  ///< bytes those values take
};
PreparedStats prepared_stats();
/// Frees every kept prepared weight (made again when next needed).
void release_prepared();

/// The CPU primitive for every kind: float, int and bool (stored as one byte) tensors, a strided
/// view (burn::backend::StridedTensor) into a pooled buffer; `t.data<E>()` is its first element.
using CpuTensor = backend::StridedTensor<Buffer, CpuDevice>;

}  // namespace cpu
}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend's primitive: a strided view into a pooled, 64-byte aligned buffer. This header is
// light (no Eigen, no TBB); the kernels live in backends/cpu/src.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "burn/tensor/dtype.hpp"
#include "burn/tensor/quantization_scheme.hpp"
#include "burn/tensor/shape.hpp"

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

private:
    Buffer(std::byte* p, std::size_t c) : ptr_(p), capacity_(c) {}
    std::byte* ptr_;
    std::size_t capacity_;
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

using Strides = std::array<std::int64_t, Shape::max_rank>;

/// Row-major strides of a contiguous tensor of `shape`.
inline Strides contiguous_strides(const Shape& shape) {
    Strides s{};
    std::int64_t acc = 1;
    for (std::size_t i = shape.rank(); i-- > 0;) {
        s[i] = acc;
        acc *= static_cast<std::int64_t>(shape[i]);
    }
    return s;
}

/// The CPU primitive for every kind: float, int and bool (stored as one byte) tensors.
/// Copying shares the buffer. Strides and offset count elements; strides may be 0 (broadcast
/// view) or negative (flip view).
/// A quantized float tensor has dtype QInt8 (one int8 per element, dense row-major) and `qinfo`
/// set; every other tensor has a null `qinfo`.
struct CpuTensor {
    std::shared_ptr<Buffer> buffer;
    Shape shape;
    Strides strides{};
    std::int64_t offset = 0;
    DType dtype = DType::F32;
    std::shared_ptr<const QuantizationInfo> qinfo;

    std::size_t num_elements() const { return shape.num_elements(); }
    std::size_t rank() const { return shape.rank(); }
    /// Row-major and dense (views with holes, broadcasts or flips are not).
    bool is_contiguous() const {
        std::int64_t acc = 1;
        for (std::size_t i = shape.rank(); i-- > 0;) {
            if (shape[i] != 1 && strides[i] != acc) return false;
            acc *= static_cast<std::int64_t>(shape[i]);
        }
        return true;
    }
    /// This handle is the buffer's only owner: ops may write the result into it.
    bool is_unique() const { return buffer && buffer.use_count() == 1; }
    template <class E>
    E* data() const {
        return reinterpret_cast<E*>(buffer->data()) + offset;
    }
};

}  // namespace cpu
}  // namespace burn

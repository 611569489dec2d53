// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's tensor primitive (one type for float, int and bool tensors) and the device
// type. No CUDA header: the device buffer is an opaque type of the runtime (backends/cuda/src).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "burn/backend/layout.hpp"

namespace burn {

/// A CUDA device: the ordinal CUDA gives it (CUDA_VISIBLE_DEVICES applies). Index 0 is the
/// default.
struct CudaDevice {
    std::size_t index = 0;
    friend bool operator==(const CudaDevice&, const CudaDevice&) = default;
    std::string to_string() const { return "Cuda(" + std::to_string(index) + ")"; }
    friend std::ostream& operator<<(std::ostream& os, const CudaDevice& d) {
        return os << d.to_string();
    }
};

namespace cuda {

/// A block of device memory from the device's caching allocator (backends/cuda/src/runtime.hpp);
/// it goes back to the allocator when the last tensor sharing it is gone.
class Buffer;

/// The CUDA primitive for every kind: a strided view (burn::backend::StridedTensor) into a device
/// buffer. Element storage: F32 float, F64 double, I32 int32, I64 int64, Bool one byte (0 or 1),
/// QInt8 int8. Work on it is queued on its device's stream; reads wait for it.
using CudaTensor = backend::StridedTensor<Buffer, CudaDevice>;

}  // namespace cuda
}  // namespace burn

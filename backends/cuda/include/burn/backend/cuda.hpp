// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::Cuda<F, I>: the CUDA backend. The kit's adapter over the CUDA kernel set
// (burn/backend/cuda/kernels.hpp): CUDA C++ kernels compiled at run time by NVRTC for the GPU
// present (cached in memory and on disk), cuBLASLt for matmul and cuDNN for convolutions, one
// stream per device and a caching allocator.
//
//   if (burn::cuda_device_count() > 0) {
//       using B = burn::Cuda<>;
//       auto x = burn::Tensor<B, 2>::ones({2, 3}, burn::CudaDevice{0});
//   }
//
// This header includes no CUDA header: handles stay in the compiled sources.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>

#include "burn/backend/adapter.hpp"
#include "burn/backend/capabilities.hpp"
#include "burn/backend/cuda/kernels.hpp"
#include "burn/backend/cuda/tensor.hpp"

namespace burn {

/// How many CUDA devices this process can use; 0 when there is no GPU or no driver (never throws:
/// use it to decide whether to run CUDA code).
std::size_t cuda_device_count() noexcept;

/// Why cuda_device_count() is 0 ("no CUDA driver: ..."), or an empty string when it is not.
std::string cuda_unavailable_reason();

struct CudaDeviceInfo {
    std::size_t index = 0;
    std::string name;  ///< e.g. "NVIDIA H100 80GB HBM3"
    int compute_major = 0, compute_minor = 0;
    std::size_t multiprocessors = 0;
    std::size_t total_memory = 0;  ///< bytes
    friend std::ostream& operator<<(std::ostream& os, const CudaDeviceInfo& d);
};

/// The device's description; throws burn::Error when there is no such device (the message says
/// how many exist, or why CUDA is unavailable).
CudaDeviceInfo cuda_device_info(const CudaDevice& device);

/// Waits until the device has run every queued op (and reports a kernel-side error, as a read).
void cuda_sync(const CudaDevice& device);

/// The device's caching allocator. Freed blocks are kept for reuse (no cudaFree in steady state);
/// `reserved` counts them with the blocks in use.
struct CudaMemoryStats {
    std::size_t allocated = 0;       ///< bytes of blocks in use (rounded to their size class)
    std::size_t reserved = 0;        ///< allocated + cached free blocks
    std::size_t peak_allocated = 0;  ///< highest `allocated` since the start or the last reset
    std::size_t peak_reserved = 0;
    std::size_t device_allocations = 0;  ///< cudaMalloc calls so far
    std::size_t device_frees = 0;        ///< cudaFree calls so far
};
CudaMemoryStats cuda_memory_stats(const CudaDevice& device);
/// Starts the peaks again from the current values.
void cuda_reset_peak_memory_stats(const CudaDevice& device);
/// Waits for the device, then gives every cached free block back to the driver (cudaFree).
void cuda_empty_cache(const CudaDevice& device);

/// The kernel programs of this process (all devices): the embedded ones of kernels/cuda and those
/// Fusion<Cuda> generates. A program is compiled by NVRTC once per process and architecture, or
/// read from the disk cache ($BURN_CUDA_CACHE, else ~/.cache/burn-cpp/cuda) that a compilation
/// fills.
struct CudaKernelStats {
    std::size_t compiled = 0;           ///< programs NVRTC compiled
    std::size_t disk_cache_hits = 0;    ///< programs read from the disk cache instead
    std::size_t generated_kernels = 0;  ///< generated programs loaded (Fusion<Cuda>'s fused ones)
};
CudaKernelStats cuda_kernel_stats();

/// TF32 tensor cores for f32 matmuls (faster, 10-bit mantissa products). Off by default, as
/// PyTorch's torch.backends.cuda.matmul.allow_tf32; applies to the matmuls queued afterwards.
void set_cuda_allow_tf32(bool allow) noexcept;
bool cuda_allow_tf32() noexcept;

/// The CUDA backend. `F` is the default float element (float or double; burn::f16 or burn::bf16
/// for half-precision floats), `I` the int element (std::int32_t, the default, or std::int64_t).
/// Float tensors of the four dtypes mix (Tensor::cast). Bool tensors hold one byte per element.
template <class F = float, class I = std::int32_t>
struct Cuda : backend::KernelBackend<cuda::Kernels, F, I> {
    static_assert(std::is_same_v<F, float> || std::is_same_v<F, double> || std::is_same_v<F, f16> ||
                      std::is_same_v<F, bf16>,
                  "Cuda<F, I>: F must be float, double, burn::f16 or burn::bf16");
    static_assert(std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>,
                  "Cuda<F, I>: I must be std::int32_t or std::int64_t");

    /// float and double are at least f32, Burn's "full precision"; the half types' is Cuda<float>.
    using FullPrecisionBackend =
        Cuda<std::conditional_t<std::is_same_v<F, double>, double, float>, I>;
    /// f64, f16, bf16 and i64 everywhere; not `deterministic`: float atomics in the backward of
    /// deform_conv2d (and of max_pool fed indices outside their window) make their last bits vary
    /// between runs.
    static constexpr BackendCapabilities capabilities{
        .float64 = true, .float16 = true, .bfloat16 = true, .int64 = true};

    static std::string name() {
        const std::string n = "cuda<" + std::string(dtype_name(ElementTraits<F>::dtype));
        return n + (std::is_same_v<I, std::int32_t> ? ">" : ",i64>");
    }
};

}  // namespace burn

#define BURN_CUDA_DEFINED
#include "burn/backend/prebuilt.hpp"

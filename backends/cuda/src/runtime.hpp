// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA runtime of the backend (internal; includes the CUDA runtime API): one Context per
// device with its stream, caching allocator, kernel-error word, NVRTC-compiled kernels, cuBLASLt
// and cuDNN handles.
//
// Kernels come from the sources of kernels/cuda (embedded at build time, kernel_sources.cpp):
// each `<program>.cu` is one NVRTC program, compiled on first use for the device's architecture
// and cached in memory and on disk ($BURN_CUDA_CACHE, else $XDG_CACHE_HOME/burn-cpp/cuda, else
// ~/.cache/burn-cpp/cuda; BURN_CUDA_CACHE=off disables the disk cache). Kernels are `extern "C"`
// functions looked up by name.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "burn/backend/cuda.hpp"
#include "burn/tensor/error.hpp"

namespace burn::cuda {

/// Throws burn::Error("Cuda <what>: <CUDA's message> (<code name>)") unless `status` is success.
void check(cudaError_t status, const char* what);

/// A block of device memory from a Context's allocator; returned to it when destroyed.
class Buffer {
public:
    Buffer(void* ptr, std::size_t bytes, std::size_t device)
        : ptr_(ptr), bytes_(bytes), device_(device) {}
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    /// The device address of the block's first byte (StridedTensor::data<E>() adds the offset).
    void* data() const { return ptr_; }
    std::size_t bytes() const { return bytes_; }

private:
    void* ptr_;
    std::size_t bytes_;  ///< the size class (>= the bytes asked for)
    std::size_t device_;
};

/// The caching allocator of one device. Sizes are rounded up to a size class (512-byte steps up
/// to 4 KiB, then four classes per power of two: at most 25% above the request); freed blocks are
/// kept per class and handed out again. The device has one stream, so a block freed by the host
/// while kernels that use it are queued can be reused by later work on that stream at once.
class Allocator {
public:
    explicit Allocator(std::size_t device) : device_(device) {}
    ~Allocator();
    void* allocate(std::size_t bytes, std::size_t* size_class);
    void release(void* ptr, std::size_t size_class) noexcept;
    /// cudaFree every cached block (the caller synchronised the device).
    void empty_cache();
    CudaMemoryStats stats() const;
    void reset_peaks();
    static std::size_t size_class(std::size_t bytes);

private:
    std::size_t device_;
    mutable std::mutex mutex_;
    std::unordered_map<std::size_t, std::vector<void*>> free_;
    CudaMemoryStats stats_;
};

/// A kernel from an NVRTC program, ready to launch.
struct Kernel {
    const void* handle = nullptr;  ///< a cudaKernel_t
    const char* name = "";
};

/// Kernel-side errors: kernels set the device's error word (mapped host memory) to
/// `tag * 16 + kind` (the first error wins); reads report it as burn::Error naming the op.
enum class KernelErrorKind : std::uint32_t {
    IndexOutOfRange = 1,
    DivisionByZero = 2,
    NegativeExponent = 3
};

/// Everything of one device. One stream; every op of the device is queued on it in order.
class Context {
public:
    explicit Context(std::size_t device);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    std::size_t index() const { return device_; }
    cudaStream_t stream() const { return stream_; }
    const cudaDeviceProp& properties() const { return props_; }
    /// "sm_90": the architecture NVRTC compiles for.
    std::string arch() const;

    /// A new block of at least `bytes` (never null; 0 bytes give a 1-byte class block).
    std::shared_ptr<Buffer> alloc(std::size_t bytes);
    Allocator& allocator() { return allocator_; }

    /// The kernel `name` of program `program` (kernels/cuda/<program>.cu), compiled on first use.
    Kernel kernel(std::string_view program, std::string_view name);

    /// Queues `kernel` on the stream with the given arguments (pointers to each argument value).
    void launch(const Kernel& kernel, dim3 grid, dim3 block, void** args,
                std::size_t shared_bytes = 0);

    /// The device pointer of the error word, and the tag of `op` for it (kernels that can fail
    /// take both and report with burn_report_error, kernels/cuda/common.cuh).
    std::uint32_t* error_word() const { return error_device_; }
    std::uint32_t error_tag(const char* op);

    /// Waits for the stream; then throws the kernel-side error if one was reported (and clears
    /// it).
    void sync();
    /// Throws the pending kernel-side error, if any (after a synchronisation).
    void check_kernel_errors();

    /// Copies host -> device (queued; `src` may be freed when this returns) and device -> host
    /// (waits for the stream, through a pinned staging buffer). An upload is copied into pinned
    /// host blocks (chunks of at most kUploadChunk) whose DMA is queued on the stream: it does
    /// not wait for the work queued before it, as a copy from pageable memory may.
    void upload(void* dst, const void* src, std::size_t bytes);
    void download(void* dst, const void* src, std::size_t bytes);

    /// Library handles (created on first use, bound to the stream). A cuDNN handle must not be
    /// used by two threads at once: callers hold lock_libraries() from choosing a plan to
    /// queueing the call (cuBLASLt calls too: they share the workspace).
    void* cublaslt();
    void* cudnn();
    std::unique_lock<std::mutex> lock_libraries() { return std::unique_lock(library_mutex_); }
    /// A workspace block of at least `bytes`, shared by the library calls of the device. The
    /// caller keeps the handle until its call is queued: a larger request replaces the block, and
    /// the old one goes back to the allocator only when its last holder lets go (later work on
    /// the stream may then reuse it, in stream order).
    std::shared_ptr<Buffer> workspace(std::size_t bytes);

    /// Makes this device current for the calling thread.
    void activate() const;

private:
    std::size_t device_;
    cudaDeviceProp props_{};
    cudaStream_t stream_ = nullptr;
    Allocator allocator_;
    std::uint32_t* error_host_ = nullptr;
    std::uint32_t* error_device_ = nullptr;
    std::mutex mutex_;
    std::mutex library_mutex_;
    std::mutex workspace_mutex_;
    std::vector<std::string> error_ops_;
    std::map<std::string, Kernel, std::less<>> kernels_;
    std::map<std::string, cudaLibrary_t, std::less<>> libraries_;
    void* pinned_ = nullptr;
    std::size_t pinned_bytes_ = 0;

    /// A pinned block of upload staging and the event of the last copy out of it.
    struct UploadBlock {
        void* host = nullptr;
        std::size_t bytes = 0;
        cudaEvent_t done = nullptr;
    };
    static constexpr std::size_t kUploadChunk = std::size_t(8) << 20;
    static constexpr std::size_t kUploadPinnedCap = std::size_t(256) << 20;
    /// An idle block of at least `bytes` (reused, new, or waited for when kUploadPinnedCap is
    /// reached). Called under upload_mutex_.
    UploadBlock& upload_block(std::size_t bytes);
    std::mutex upload_mutex_;
    std::vector<UploadBlock> upload_blocks_;
    std::size_t upload_pinned_ = 0;  ///< bytes of upload_blocks_
    void* cublaslt_ = nullptr;
    void* cudnn_ = nullptr;
    std::shared_ptr<Buffer> workspace_;
};

/// The Context of a device (created on first use; throws burn::Error for a missing device).
Context& context(const CudaDevice& device);
inline Context& context(const CudaTensor& t) { return context(t.device); }

// ---- NVRTC (nvrtc.cpp) ----

/// One embedded source file of kernels/cuda (generated kernel_sources.cpp).
struct KernelSource {
    const char* name;  ///< "elementwise.cu", "common.cuh"
    const char* text;
};
std::span<const KernelSource> kernel_sources();

/// The compiled code (a cubin) of program `program` ("elementwise": kernels/cuda/elementwise.cu)
/// for `arch` ("sm_90"; PTX for a virtual architecture such as "compute_90"), from the disk
/// cache or NVRTC. Throws burn::Error with NVRTC's log when
/// the program does not compile. Needs no GPU.
std::vector<char> compile_program(std::string_view program, std::string_view arch);

/// The programs of kernels/cuda (every embedded `.cu`).
std::vector<std::string> program_names();

}  // namespace burn::cuda

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

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
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

/// The bookkeeping of the caching allocator, without CUDA (host-tested): memory comes in
/// segments from `grow` (cudaMalloc), is split into blocks, and blocks go back to the pool when
/// released, merged with free neighbours of the same segment. Requests are rounded up to 512
/// bytes. Two pools, as PyTorch's allocator: requests up to 1 MiB are carved out of 2 MiB
/// segments (kept apart, so that small blocks do not fragment the large segments); larger ones
/// take the smallest free block that fits (best fit), split when more than 1 MiB would be left
/// over, or a new segment (20 MiB for requests up to 10 MiB, else the request rounded up to
/// 2 MiB). The device has one stream per context, so a released block can serve the next request
/// at once: work queued later on the stream runs after the work that used it.
class BlockPool {
public:
    /// A new segment of `bytes`, or nullptr when the device has no memory left.
    using Grow = std::function<void*(std::size_t bytes)>;
    using Shrink = std::function<void(void* segment)>;

    static constexpr std::size_t kRound = 512;                   ///< block sizes: multiples
    static constexpr std::size_t kSmall = std::size_t(1) << 20;  ///< the small pool's largest
    static constexpr std::size_t kSmallSegment = std::size_t(2) << 20;
    static constexpr std::size_t kMidSegment = std::size_t(20) << 20;
    static constexpr std::size_t kMidLimit = std::size_t(10) << 20;

    BlockPool(Grow grow, Shrink shrink) : grow_(std::move(grow)), shrink_(std::move(shrink)) {}
    ~BlockPool();
    BlockPool(const BlockPool&) = delete;
    BlockPool& operator=(const BlockPool&) = delete;

    /// A block of at least `bytes` (its size in *block_bytes), or nullptr when `grow` failed.
    void* allocate(std::size_t bytes, std::size_t* block_bytes);
    /// Gives a block back (merged with its free neighbours).
    void release(void* ptr) noexcept;
    /// Gives every segment with no block in use back through `shrink`; returns the bytes.
    std::size_t release_cached();

    std::size_t allocated() const { return allocated_; }  ///< bytes of blocks in use
    std::size_t reserved() const { return reserved_; }    ///< bytes of segments
    std::size_t segments() const { return segments_; }
    /// The size a request is rounded to.
    static std::size_t round(std::size_t bytes) {
        return std::max(kRound, (bytes + kRound - 1) / kRound * kRound);
    }

private:
    struct Block {
        char* ptr = nullptr;
        std::size_t size = 0;
        bool free = true;
        bool small = false;     ///< in the small pool
        Block* prev = nullptr;  ///< neighbours in the segment (address order)
        Block* next = nullptr;
    };
    struct BySize {
        bool operator()(const Block* a, const Block* b) const {
            return a->size != b->size ? a->size < b->size : a->ptr < b->ptr;
        }
    };
    std::set<Block*, BySize>& pool(bool small) { return small ? free_small_ : free_large_; }

    Grow grow_;
    Shrink shrink_;
    std::set<Block*, BySize> free_small_, free_large_;
    std::unordered_map<void*, Block*> used_;
    std::size_t allocated_ = 0, reserved_ = 0, segments_ = 0;
};

/// The caching allocator of one device: a BlockPool over cudaMalloc / cudaFree, with the
/// statistics of cuda_memory_stats. When cudaMalloc fails, it waits for the device, frees the
/// cached segments and tries once more.
class Allocator {
public:
    explicit Allocator(std::size_t device);
    ~Allocator();
    /// A block of at least `bytes` (its size in *block_bytes); throws burn::Error when the
    /// device is out of memory.
    void* allocate(std::size_t bytes, std::size_t* block_bytes);
    void release(void* ptr, std::size_t block_bytes) noexcept;
    /// cudaFree every segment with no block in use (the caller synchronised the device).
    void empty_cache();
    CudaMemoryStats stats() const;
    void reset_peaks();

private:
    std::size_t device_;
    mutable std::mutex mutex_;
    CudaMemoryStats stats_;
    BlockPool pool_;
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

    /// The kernel `name` of a program generated at run time (Fusion<Cuda>'s fused programs),
    /// found by `key`: on the first use of the key, `source()` gives the program's text, which is
    /// compiled (compile_source: NVRTC, or the disk cache) and loaded. The key must determine the
    /// text.
    Kernel generated_kernel(const std::string& key, std::string_view program, const char* name,
                            const std::function<std::string()>& source);

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
    std::unordered_map<std::string, Kernel> generated_;
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

/// As compile_program, for the program text `text` named `program` (a program generated at run
/// time, which may include the headers of kernels/cuda). NVRTC's errors name `program`.cu.
std::vector<char> compile_source(std::string_view program, const char* text, std::string_view arch);

/// What cuda_kernel_stats() reports; generated_kernel_count is counted by
/// Context::generated_kernel.
CudaKernelStats kernel_stats();
extern std::atomic<std::size_t> generated_kernel_count;

/// The programs of kernels/cuda (every embedded `.cu`).
std::vector<std::string> program_names();

}  // namespace burn::cuda

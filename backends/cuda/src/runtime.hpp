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
#include <condition_variable>
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
#include <thread>
#include <unordered_map>
#include <vector>

#include "burn/backend/cuda.hpp"
#include "burn/tensor/error.hpp"

namespace burn::cuda {

/// Throws burn::Error("Cuda <what>: <CUDA's message> (<code name>)") unless `status` is success.
void check(cudaError_t status, const char* what);

class GraphPool;
struct GraphExec;

/// Runs `f` with the calling thread allowed to make the calls that a stream capture forbids
/// (cudaMalloc, cudaMallocHost): they are not stream work, and a captured graph does not depend
/// on them.
template <class F>
auto relaxed_capture(F&& f) {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    check(cudaThreadExchangeStreamCaptureMode(&mode), "capture mode");
    struct Restore {
        cudaStreamCaptureMode* m;
        ~Restore() { (void)cudaThreadExchangeStreamCaptureMode(m); }
    } restore{&mode};
    return f();
}

/// A block of device memory from a Context's allocator, or from the private pool of a CUDA graph
/// captured on the device (`pool`); returned to it when destroyed.
class Buffer {
public:
    Buffer(void* ptr, std::size_t bytes, std::size_t device,
           std::shared_ptr<GraphPool> pool = nullptr)
        : ptr_(ptr), bytes_(bytes), device_(device), pool_(std::move(pool)) {}
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
    std::shared_ptr<GraphPool> pool_;  ///< null: the device's allocator
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

/// The private memory of a CUDA graph (graph.cpp): the blocks allocated while it is captured come
/// from a BlockPool of their own, so that no later allocation outside the graph is handed a block
/// the graph writes when it is replayed. Blocks released during the capture serve later requests
/// of the same capture (the graph runs them in stream order); the segments go back to the driver
/// when the graph and the last tensor holding one of its blocks are gone.
class GraphPool {
public:
    explicit GraphPool(std::size_t device);
    ~GraphPool();
    GraphPool(const GraphPool&) = delete;
    GraphPool& operator=(const GraphPool&) = delete;
    /// Throws burn::Error when the device is out of memory.
    void* allocate(std::size_t bytes, std::size_t* block_bytes);
    void release(void* ptr) noexcept;
    std::size_t reserved() const;

private:
    std::size_t device_;
    mutable std::mutex mutex_;
    BlockPool pool_;
};

/// How a kernel of a captured graph gets its arguments for each replay: the kernels whose
/// scalars the host computes anew at every step (the Philox position of random numbers, Adam's
/// bias corrections) register one (launch_patched). `update(k)` writes the arguments of the k-th
/// run of the graph (k = 0: the first, with the captured values) and returns a pointer to each.
struct NodePatch {
    virtual ~NodePatch() = default;
    virtual void** update(std::int64_t k) = 0;
};

/// The random numbers drawn in a capture (ops_random.cpp): the Philox blocks the captured kernels
/// reserved, [first, end), and where the k-th run of the graph draws them (`base`, `k0`, `k1`:
/// reserved again at every replay after the first, so that replays continue the stream as
/// uncaptured steps do).
struct RngAnchor {
    std::uint64_t first = 0, end = 0;
    std::uint64_t base = 0;
    std::uint32_t k0 = 0, k1 = 0;
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
    /// The device's stream. While another thread captures a graph on it, waits until the
    /// capture ends (work queued meanwhile would land in the graph).
    cudaStream_t stream() const {
        if (capturing_.load(std::memory_order_acquire)) wait_for_other_capture();
        return stream_;
    }
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
    /// As launch, with the arguments `patch->update(0)`; when the calling thread is capturing a
    /// graph, the graph asks `patch` for the arguments of each replay.
    void launch_patched(const Kernel& kernel, dim3 grid, dim3 block,
                        std::unique_ptr<NodePatch> patch, std::size_t shared_bytes = 0);

    // ---- CUDA graphs (graph.cpp) ----
    /// Starts capturing what the calling thread queues on the stream into a graph: nothing runs
    /// until the graph is launched. Meanwhile allocations come from the graph's own pool, blocks
    /// of the device's allocator released are kept for the graph, uploads read a copy of their
    /// data kept with it, reads and waits throw burn::Error, and other threads wait before
    /// queueing work on the device. Throws burn::Error when a capture is already running.
    void begin_capture();
    /// Ends the capture and instantiates its graph. `ok` false: the capture failed (an exception
    /// left the captured code): the partial graph is dropped and nullptr returned.
    std::shared_ptr<GraphExec> end_capture(bool ok);
    /// The capture the calling thread is running on this device, or nullptr.
    GraphExec* capture() const;

    /// The device pointer of the error word, and the tag of `op` for it (kernels that can fail
    /// take both and report with burn_report_error, kernels/cuda/common.cuh).
    std::uint32_t* error_word() const { return error_device_; }
    std::uint32_t error_tag(const char* op);

    /// Waits for the stream; then throws the kernel-side error if one was reported (and clears
    /// it).
    void sync();
    /// Returns a block of the device's allocator (Buffer's destructor): kept until the graph is
    /// destroyed when a capture is running, since the graph may read it.
    void release(void* ptr, std::size_t bytes) noexcept;
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
    /// Throws burn::Error naming `what` when the calling thread is capturing a graph (a wait or a
    /// read cannot be captured); waits while another thread captures one.
    void refuse_in_capture(const char* what) const;
    void wait_for_other_capture() const;
    /// The capture running on this device (any thread), guarded by capture_mutex_.
    std::atomic<bool> capturing_{false};
    mutable std::mutex capture_mutex_;
    mutable std::condition_variable capture_done_;
    std::shared_ptr<GraphExec> capture_;
    std::thread::id capture_thread_;

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

/// A CUDA graph of one device: while captured (Context::begin_capture .. end_capture), what the
/// capture collects; then the instantiated graph, which keeps what its replays use: its pool, the
/// blocks of the device's allocator released during the capture, the host copies its uploads read.
struct GraphExec {
    explicit GraphExec(std::size_t device);
    ~GraphExec();
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;

    /// Queues the next run of the graph: the replay hooks, then the patched kernels' arguments
    /// (from the second run on), then the graph.
    void launch();

    std::size_t device;
    std::shared_ptr<GraphPool> pool;
    std::vector<std::pair<void*, std::size_t>> deferred;  ///< allocator blocks: released last
    std::vector<void*> constants;                         ///< pinned host copies of uploads
    struct Patched {
        cudaGraphNode_t node = nullptr;
        std::unique_ptr<NodePatch> patch;
        Kernel kernel;
        dim3 grid, block;
        unsigned shared_bytes = 0;
    };
    std::vector<Patched> patched;
    /// Run before each launch with its index (ops_random.cpp reserves the replay's Philox blocks).
    std::vector<std::function<void(std::int64_t)>> hooks;
    std::shared_ptr<RngAnchor> rng;  ///< set by the first random kernel of the capture
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    std::int64_t launches = 0;
    std::size_t nodes = 0;
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

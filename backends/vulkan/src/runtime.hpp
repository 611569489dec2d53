// SPDX-License-Identifier: MIT OR Apache-2.0
// The Vulkan backend's runtime (internal: includes <vulkan/vulkan.h>; never include it from a
// public header). Op authors build on this API:
//
//   auto ctx = burn::vk::Context::get(burn::VulkanDevice{});   // one shared Context per device
//   burn::vk::Buffer a = ctx->upload(bytes);                  // device buffer from the pool
//   burn::vk::Buffer c = ctx->allocate(n * 4);
//   const auto& p = ctx->pipeline({.shader = "add_f32", .spec = {256}, .bindings = 3,
//                                  .push_bytes = 4});
//   ctx->dispatch(p, {&a, &b, &c}, push, burn::vk::grid_1d(n, 256, ctx->features()));
//   std::vector<std::byte> out = ctx->read(c);                 // the only synchronisation point
//
// Ordering: every recorded command (dispatch, copy, fill, upload) runs after every command
// recorded before it on the same Context (a full compute/transfer barrier precedes each), so
// op code never places barriers itself. Work is submitted in batches: at flush(), when a batch
// reaches batch_limit() dispatches, and by read()/sync(), which then wait for it.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "burn/backend/vulkan.hpp"
#include "burn/tensor/error.hpp"

namespace burn::vk {

// ------------------------------------------------------------------------------------ errors
/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.
const char* result_name(VkResult r) noexcept;
/// Throws burn::Error("Vulkan: <call> failed: <VK_RESULT name> (<code>)").
[[noreturn]] void throw_result(const char* call, VkResult r);
inline void check(VkResult r, const char* call) {
    if (r != VK_SUCCESS) throw_result(call, r);
}

// ------------------------------------------------------------------------------------ devices
/// The process-wide instance and the ordered list of physical devices (internal view).
struct PhysicalDevice {
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    std::uint32_t compute_queue_family = 0;
    VulkanDeviceInfo info;
};
/// Set by the exit hook (context.cpp) once it has released the contexts and the instance: from
/// then on, destructors of Vulkan objects that something still holds (tensors in static storage)
/// skip their driver calls. The driver's own teardown may already have run when they do, and the
/// process is ending anyway.
bool vulkan_exiting() noexcept;
void mark_vulkan_exiting() noexcept;

class Instance {
public:
    /// The process-wide instance (created on first use; never throws: a failure is recorded and
    /// reported by require()).
    static std::shared_ptr<Instance> get();
    /// Drops the process-wide reference (at exit, after the contexts): the instance is destroyed
    /// once no device holds it.
    static void release();
    ~Instance();
    VkInstance handle() const { return instance_; }
    const std::vector<PhysicalDevice>& devices() const { return devices_; }
    /// The device for `index`, or burn::Error: no device at all (mentions mesa-vulkan-drivers and
    /// VK_ICD_FILENAMES) or an index out of range (names the index and the number of devices).
    const PhysicalDevice& require(std::size_t index) const;
    bool validation_enabled() const { return validation_; }

private:
    Instance() = default;
    VkInstance instance_ = VK_NULL_HANDLE;
    std::vector<PhysicalDevice> devices_;
    std::string failure_;  // why there is no device (instance creation failed, ...)
    bool validation_ = false;
};

/// The logical device and its compute queue; shared by a Context, its pools and their buffers,
/// so that the VkDevice outlives everything created from it.
struct DeviceHandle {
    std::shared_ptr<Instance> instance;
    const PhysicalDevice* physical = nullptr;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory{};
    DeviceHandle() = default;
    DeviceHandle(const DeviceHandle&) = delete;
    DeviceHandle& operator=(const DeviceHandle&) = delete;
    ~DeviceHandle();
};

// ------------------------------------------------------------------------------------ memory
class MemoryPool;

/// A range of a pooled VkBuffer: [offset, offset + size). Move-only; its destructor returns the
/// range to the pool it came from (safe while recorded work still uses it: later users of the
/// range are ordered after that work). An empty Buffer (size 0) owns nothing.
class Buffer {
public:
    Buffer() = default;
    Buffer(Buffer&& o) noexcept { *this = std::move(o); }
    Buffer& operator=(Buffer&& o) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { reset(); }
    void reset() noexcept;  ///< returns the range to the pool now

    VkBuffer handle() const { return buffer_; }
    VkDeviceSize offset() const { return offset_; }
    std::size_t size() const { return size_; }          ///< bytes asked for
    std::size_t capacity() const { return capacity_; }  ///< bytes reserved (its size class)
    bool empty() const { return size_ == 0; }
    /// Host pointer of a staging (host-visible) buffer; nullptr for device buffers.
    std::byte* mapped() const { return mapped_; }

private:
    friend class MemoryPool;
    std::shared_ptr<MemoryPool> pool_;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceSize offset_ = 0;
    std::size_t size_ = 0, capacity_ = 0;
    std::uint32_t block_ = 0;
    std::byte* mapped_ = nullptr;
};

struct PoolStats {
    std::size_t reserved_bytes = 0;      ///< VkDeviceMemory held (blocks + dedicated)
    std::size_t in_use_bytes = 0;        ///< capacity of live Buffers
    std::size_t cached_bytes = 0;        ///< capacity sitting in free lists
    std::size_t blocks = 0;              ///< VkDeviceMemory objects alive
    std::size_t device_allocations = 0;  ///< vkAllocateMemory calls so far
    std::size_t allocations = 0;         ///< Buffers handed out so far
    std::size_t reused = 0;              ///< of which served from a free list
};

/// Sub-allocates Buffers from large blocks (default 64 MiB) of one memory kind. A request is
/// rounded up to its size class (4 classes per power of two, >= 256 bytes, multiples of the
/// alignment); a freed range goes to its class's free list and serves the next request of that
/// class. Requests above block_size / 4 get a dedicated block of their own (kept for reuse by
/// class too; release_cached() frees those). Ranges are never merged. Thread-safe.
class MemoryPool : public std::enable_shared_from_this<MemoryPool> {
public:
    enum class Kind { Device, Staging };
    MemoryPool(std::shared_ptr<DeviceHandle> device, Kind kind,
               VkDeviceSize block_size = VkDeviceSize{64} << 20);
    ~MemoryPool();
    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;

    Buffer allocate(std::size_t bytes);
    PoolStats stats() const;
    /// Frees the dedicated blocks that sit unused in the free lists.
    void release_cached();
    VkDeviceSize size_class(VkDeviceSize bytes) const;
    VkDeviceSize block_size() const { return block_size_; }
    Kind kind() const { return kind_; }

private:
    friend class Buffer;
    struct Block {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        VkDeviceSize size = 0, used = 0;  // used: bump pointer (sub-allocated blocks)
        std::byte* mapped = nullptr;
        bool dedicated = false;
    };
    struct Range {
        std::uint32_t block;
        VkDeviceSize offset;
    };
    void release(std::uint32_t block, VkDeviceSize offset, VkDeviceSize capacity) noexcept;
    std::uint32_t create_block(VkDeviceSize size, bool dedicated);  // under mutex_
    void destroy_block(Block& b) noexcept;

    std::shared_ptr<DeviceHandle> device_;
    Kind kind_;
    VkDeviceSize block_size_, alignment_;
    std::uint32_t memory_type_ = 0;
    mutable std::mutex mutex_;
    std::vector<Block> blocks_;  // destroyed dedicated blocks leave a hole (buffer == null)
    std::unordered_map<VkDeviceSize, std::vector<Range>> free_;  // by size class
    PoolStats stats_;
};

// ------------------------------------------------------------------------------------ pipelines
/// What a compute pipeline is made of. `spec` gives specialization constants 0, 1, ... (32-bit
/// each: pass floats with std::bit_cast). Storage buffers are bound at set 0, bindings
/// 0..bindings-1 in dispatch order; push constants are one range of push_bytes at offset 0.
struct PipelineDesc {
    std::string shader;  ///< name in the embedded table (kernels/vulkan/<name>.comp)
    std::vector<std::uint32_t> spec{};
    std::uint32_t bindings = 0;
    std::uint32_t push_bytes = 0;
    /// SPIR-V of a shader made at run time (compile_glsl); empty: the embedded `shader`. The
    /// cache key is `shader`, so give run-time shaders a name unique to their source.
    std::span<const std::uint32_t> spirv{};
};

struct Pipeline {
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    std::uint32_t bindings = 0, push_bytes = 0;
    std::string key;
};

/// GLSL -> SPIR-V at run time (shaderc, Vulkan 1.2 target, optimised). Throws burn::Error with
/// the compiler's messages.
std::vector<std::uint32_t> compile_glsl(std::string_view source, std::string_view name);
/// As compile_glsl, through the disk cache of generated shaders ($BURN_VULKAN_CACHE, else
/// $XDG_CACHE_HOME/burn-cpp/vulkan or ~/.cache/burn-cpp/vulkan; "off" disables it): SPIR-V keyed
/// by the text and the compiler's settings and SPIR-V version (burn/backend/kernel_cache.hpp).
std::vector<std::uint32_t> compile_glsl_cached(std::string_view source, std::string_view name);

/// The text of a GLSL file of kernels/vulkan embedded in the library (glsl_sources.cpp, generated
/// by cmake/BurnEmbedSources.cmake): the functions that the shaders generated at run time paste
/// in (backends/vulkan/CMakeLists.txt lists the files).
struct KernelSource {
    const char* name;  ///< "elementwise_math.glsl"
    const char* text;
};
std::span<const KernelSource> kernel_sources();

/// The process-wide counters behind burn::vulkan_kernel_stats() (every device).
struct KernelCounters {
    std::atomic<std::size_t> pipelines{0};            ///< Context::pipeline creations
    std::atomic<std::size_t> compiled_shaders{0};     ///< compile_glsl successes
    std::atomic<std::size_t> generated_pipelines{0};  ///< creations from run-time SPIR-V
};
KernelCounters& kernel_counters() noexcept;

// ------------------------------------------------------------------------------------ context
using Groups = std::array<std::uint32_t, 3>;
/// Workgroup counts covering n invocations of workgroup size wg in x: {x, y, 1} with x within the
/// device's limit. A shader then uses the flat index
///   (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x
///     + gl_LocalInvocationID.x
/// and returns when it is >= n.
Groups grid_1d(std::uint64_t n, std::uint32_t wg, const VulkanFeatures& f);

struct ContextStats {
    std::size_t dispatches = 0;  ///< recorded so far
    std::size_t submits = 0;     ///< vkQueueSubmit calls
    std::size_t waits = 0;       ///< times the host waited for the device
    std::size_t pipelines_created = 0;
    std::size_t pipeline_cache_hits = 0;
};

/// One per device, shared (Context::get). Thread-safe: recording is serialised by a mutex.
class Context {
public:
    /// The device's shared Context, created on first request. Throws burn::Error for a missing
    /// device.
    static std::shared_ptr<Context> get(const VulkanDevice& device);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const VulkanDeviceInfo& info() const { return device_->physical->info; }
    const VulkanFeatures& features() const { return info().features; }
    VkDevice device() const { return device_->device; }
    MemoryPool& pool() { return *pool_; }
    MemoryPool& staging_pool() { return *staging_; }

    // ---- memory
    /// An uninitialised device buffer of `bytes` (empty for 0).
    Buffer allocate(std::size_t bytes) { return pool_->allocate(bytes); }
    /// A device buffer holding `bytes` (recorded copy from a staging buffer; no wait).
    Buffer upload(std::span<const std::byte> bytes);
    /// Records a copy of `bytes` into dst at dst_offset (no wait).
    void write(const Buffer& dst, std::span<const std::byte> bytes, std::size_t dst_offset = 0);
    /// Submits pending work, waits, returns dst's bytes [offset, offset + size) (size npos: to
    /// the end of the buffer's size).
    std::vector<std::byte> read(const Buffer& src, std::size_t offset = 0,
                                std::size_t size = static_cast<std::size_t>(-1));
    /// Records a copy of `bytes` bytes between buffers.
    void copy(const Buffer& src, const Buffer& dst, std::size_t bytes, std::size_t src_offset = 0,
              std::size_t dst_offset = 0);
    /// Records vkCmdFillBuffer of a 32-bit pattern over [offset, offset + bytes) (bytes multiple
    /// of 4).
    void fill_u32(const Buffer& dst, std::uint32_t pattern, std::size_t bytes,
                  std::size_t offset = 0);

    // ---- pipelines
    /// Created on first use, then cached by (shader, spec, bindings, push_bytes).
    const Pipeline& pipeline(const PipelineDesc& desc);

    // ---- commands
    /// Records one dispatch: buffers bound at bindings 0..n-1 (whole size() of each), push
    /// constants (exactly pipeline.push_bytes), group counts. Submits the batch when it reaches
    /// batch_limit() dispatches (asynchronously: no wait).
    void dispatch(const Pipeline& p, std::span<const Buffer* const> buffers,
                  std::span<const std::byte> push, Groups groups);
    void dispatch(const Pipeline& p, std::initializer_list<const Buffer*> buffers,
                  std::span<const std::byte> push, Groups groups) {
        dispatch(p, std::span<const Buffer* const>(buffers.begin(), buffers.size()), push, groups);
    }
    template <class P>
    requires std::is_trivially_copyable_v<P>
    void dispatch(const Pipeline& p, std::initializer_list<const Buffer*> buffers, const P& push,
                  Groups groups) {
        const std::span<const std::byte> bytes = std::as_bytes(std::span<const P, 1>(&push, 1));
        dispatch(p, std::span<const Buffer* const>(buffers.begin(), buffers.size()), bytes, groups);
    }
    // ---- device errors (recoverable device-side asserts)
    /// Shaders that detect an error the CPU backend would throw (an index out of range, an
    /// integer division by zero) bind this buffer (device_error.glsl) and report the first one:
    /// words { code, op id, value, bound, dim } (code 0: none). Calling this arms the check: the
    /// next read()/sync() then also reads the words after waiting and, if an error was
    /// reported, clears it and throws burn::Error naming the op and the details (GPU kernels
    /// run asynchronously: the error surfaces at that read, not at the op).
    const Buffer& error_buffer();
    /// The id of an op name for the error words (registered on first use).
    std::uint32_t error_op(std::string_view name);
    /// Synchronous errors (as CUDA_LAUNCH_BLOCKING=1; default off, on with the environment
    /// variable BURN_VULKAN_SYNC_ERRORS=1): every dispatch that binds the error buffer is
    /// submitted and waited for at once, so the error throws at the op (slow: debugging).
    void set_sync_errors(bool on) {
        std::lock_guard lock(mutex_);
        sync_errors_ = on;
    }
    bool sync_errors() const {
        std::lock_guard lock(mutex_);
        return sync_errors_;
    }
    static constexpr std::uint32_t kErrorIndexOutOfRange = 1;  // value, bound, dim
    static constexpr std::uint32_t kErrorDivisionByZero = 2;
    static constexpr std::uint32_t kErrorRemainderByZero = 3;
    static constexpr std::uint32_t kErrorIndexOutsidePlane = 4;  // value, plane size (pooling)

    /// Submits what is recorded (no wait).
    void flush();
    /// Submits and waits until the device is idle for this Context.
    void sync();
    /// Drops the recorded, unsubmitted work (its results can no longer be read) and waits for
    /// what was submitted. For teardown: at exit and in the destructor.
    void abandon_pending() noexcept;
    /// The most storage buffers one pipeline binds (every dispatch's descriptor pool is sized
    /// for that many).
    static constexpr std::uint32_t kMaxBindings = 16;

    std::size_t batch_limit() const {
        std::lock_guard lock(mutex_);
        return batch_limit_;
    }
    void set_batch_limit(std::size_t n);
    ContextStats stats() const;

private:
    explicit Context(std::shared_ptr<DeviceHandle> device);  // Context::get makes them

    struct Batch {
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        VkFence fence = VK_NULL_HANDLE;
        VkDescriptorPool descriptors = VK_NULL_HANDLE;
        std::vector<Buffer> keep_alive;  // staging buffers used by the batch's copies
        std::size_t dispatches = 0, bindings = 0, commands = 0;
        std::size_t capacity = 0;  // dispatches its descriptor pool was sized for
        bool first_runs = false;   // runs a pipeline for the first time (see jit_on_first_run_)
    };
    Batch& current();        // the recording batch (begun); under mutex_
    void barrier(Batch& b);  // full compute/transfer barrier before the next command
    void submit_locked();    // submit the recording batch, if any
    void wait_locked(std::size_t keep_in_flight);  // wait until at most that many in flight
    void recycle(Batch& b);
    Batch make_batch();
    void destroy_batch(Batch& b) noexcept;
    /// Under mutex_, before a submit: records a copy of the error words into a staging buffer
    /// when the check is armed (returned; empty otherwise).
    std::optional<Buffer> stage_errors_locked(Batch& b);
    /// Under mutex_, after the wait: throws the reported error, if any (and clears it).
    void raise_errors_locked(const std::optional<Buffer>& staged);

    std::shared_ptr<DeviceHandle> device_;
    std::shared_ptr<MemoryPool> pool_, staging_;
    VkCommandPool command_pool_ = VK_NULL_HANDLE;
    std::size_t batch_limit_ = 128;
    static constexpr std::size_t kMaxInFlight = 3;

    mutable std::mutex mutex_;  // recording, batches, stats_
    std::unique_ptr<Batch> recording_;
    std::deque<Batch> in_flight_;
    std::vector<Batch> free_batches_;
    ContextStats stats_;
    std::optional<Buffer> errors_;  // the device error words (error_buffer())
    bool errors_armed_ = false;
    bool sync_errors_ = false;
    std::vector<std::string> error_ops_;
    /// CPU devices (lavapipe) compile a pipeline on their queue thread when a batch first runs
    /// it, and LLVM makes static objects during that compilation. Such a batch is waited for
    /// right after its submission, so that no compilation is left for the exit, when those
    /// statics may be gone (a hang or a crash inside the JIT). ran_: pipelines dispatched so far.
    bool jit_on_first_run_ = false;
    std::unordered_set<const Pipeline*> ran_;

    std::mutex pipeline_mutex_;
    std::unordered_map<std::string, std::unique_ptr<Pipeline>> pipelines_;
    std::atomic<std::size_t> pipelines_created_{0}, pipeline_hits_{0};
};

}  // namespace burn::vk

// The embedded SPIR-V table (generated by burn_vulkan_shaders from kernels/vulkan/*.comp).
namespace burn::vk::shaders {
/// The words of kernels/vulkan/<name>.comp; burn::Error listing the known names if none.
std::span<const std::uint32_t> get(std::string_view name);
std::span<const std::uint32_t> find(std::string_view name) noexcept;
std::span<const std::string_view> names() noexcept;
}  // namespace burn::vk::shaders

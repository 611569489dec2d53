// SPDX-License-Identifier: MIT OR Apache-2.0
// Devices, contexts (stream, allocator, error word, kernels, library handles) and the public
// device functions of burn/backend/cuda.hpp.
#include "runtime.hpp"

#include <cublasLt.h>
#include <cudnn.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <ostream>
#include <string>

namespace burn::cuda {

void check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();  // clear a sticky-free error so that later calls start clean
    ::burn::detail::fail("Cuda ", what, ": ", cudaGetErrorString(status), " (",
                         cudaGetErrorName(status), ")");
}

// ---- buffers (the allocator: allocator.cpp) ----

Buffer::~Buffer() {
    if (pool_) pool_->release(ptr_);
    else context(CudaDevice{device_}).release(ptr_, bytes_);
}

// ---- devices ----

namespace {

struct DeviceTable {
    int count = 0;
    std::string reason;
};

const DeviceTable& device_table() {
    static const DeviceTable table = [] {
        DeviceTable t;
        const cudaError_t st = cudaGetDeviceCount(&t.count);
        if (st != cudaSuccess) {
            (void)cudaGetLastError();
            t.count = 0;
            t.reason = std::string("CUDA is unavailable: ") + cudaGetErrorString(st) + " (" +
                       cudaGetErrorName(st) + ")";
        } else if (t.count == 0) {
            t.reason = "CUDA is unavailable: no CUDA device was found";
        }
        return t;
    }();
    return table;
}

void check_device(const CudaDevice& device) {
    const auto& t = device_table();
    if (t.count == 0) ::burn::detail::fail("Cuda: no device ", device, ": ", t.reason);
    if (device.index >= static_cast<std::size_t>(t.count))
        ::burn::detail::fail("Cuda: no device ", device, ": this process sees ", t.count,
                             " CUDA device(s) (indices 0..", t.count - 1, ")");
}

thread_local int current_device = -1;

std::atomic<bool> allow_tf32{false};

}  // namespace

void Context::activate() const {
    if (current_device != static_cast<int>(device_)) {
        check(cudaSetDevice(static_cast<int>(device_)), "set device");
        current_device = static_cast<int>(device_);
    }
}

Context::Context(std::size_t device) : device_(device), allocator_(device) {
    activate();
    check(cudaGetDeviceProperties(&props_, static_cast<int>(device)), "device properties");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream creation");
    void* h = nullptr;
    check(cudaHostAlloc(&h, sizeof(std::uint32_t), cudaHostAllocMapped), "error word allocation");
    error_host_ = static_cast<std::uint32_t*>(h);
    *error_host_ = 0;
    void* d = nullptr;
    check(cudaHostGetDevicePointer(&d, h, 0), "error word mapping");
    error_device_ = static_cast<std::uint32_t*>(d);
    error_ops_.emplace_back("?");
}

Context::~Context() = default;

std::string Context::arch() const {
    return "sm_" + std::to_string(props_.major) + std::to_string(props_.minor);
}

std::shared_ptr<Buffer> Context::alloc(std::size_t bytes) {
    activate();
    std::size_t cls = 0;
    if (GraphExec* g = capture()) {
        void* p = g->pool->allocate(std::max<std::size_t>(bytes, 1), &cls);
        return std::make_shared<Buffer>(p, cls, device_, g->pool);
    }
    void* p = allocator_.allocate(std::max<std::size_t>(bytes, 1), &cls);
    return std::make_shared<Buffer>(p, cls, device_);
}

Kernel Context::kernel(std::string_view program, std::string_view name) {
    std::string key;
    key.reserve(program.size() + name.size() + 1);
    key.append(program).append(":").append(name);
    std::lock_guard lock(mutex_);
    if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
    auto lib = libraries_.find(program);
    if (lib == libraries_.end()) {
        activate();
        const auto code = compile_program(program, arch());
        cudaLibrary_t l = nullptr;
        check(cudaLibraryLoadData(&l, code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              "loading compiled kernels");
        lib = libraries_.emplace(std::string(program), l).first;
    }
    cudaKernel_t k = nullptr;
    const std::string kname(name);
    const cudaError_t st = cudaLibraryGetKernel(&k, lib->second, kname.c_str());
    if (st != cudaSuccess) {
        (void)cudaGetLastError();
        ::burn::detail::fail("Cuda: kernel ", kname, " is not in program ", program,
                             " (kernels/cuda/", program, ".cu)");
    }
    // The key string lives in the map; the Kernel keeps a pointer to its name part.
    auto [it, inserted] = kernels_.emplace(key, Kernel{});
    it->second.handle = reinterpret_cast<const void*>(k);
    it->second.name = it->first.c_str() + program.size() + 1;
    return it->second;
}

Kernel Context::generated_kernel(const std::string& key, std::string_view program, const char* name,
                                 const std::function<std::string()>& source) {
    std::lock_guard lock(mutex_);
    if (auto it = generated_.find(key); it != generated_.end()) return it->second;
    activate();
    const std::string text = source();
    const auto code = compile_source(program, text.c_str(), arch());
    cudaLibrary_t l = nullptr;
    check(cudaLibraryLoadData(&l, code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
          "loading a generated program");
    cudaKernel_t k = nullptr;
    check(cudaLibraryGetKernel(&k, l, name), "finding the kernel of a generated program");
    // The library stays loaded for the process, as those of kernels/cuda.
    const Kernel kernel{reinterpret_cast<const void*>(k), name};
    generated_.emplace(key, kernel);
    ++generated_kernel_count;
    return kernel;
}

void Context::launch(const Kernel& kernel, dim3 grid, dim3 block, void** args,
                     std::size_t shared_bytes) {
    activate();
    const cudaError_t st =
        cudaLaunchKernel(kernel.handle, grid, block, args, shared_bytes, stream());
    if (st != cudaSuccess) {
        (void)cudaGetLastError();
        ::burn::detail::fail("Cuda: launching kernel ", kernel.name, " (grid ", grid.x, "x", grid.y,
                             "x", grid.z, ", block ", block.x, "x", block.y, "x", block.z,
                             ") failed: ", cudaGetErrorString(st));
    }
}

std::uint32_t Context::error_tag(const char* op) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < error_ops_.size(); ++i)
        if (error_ops_[i] == op) return static_cast<std::uint32_t>(i);
    error_ops_.emplace_back(op);
    return static_cast<std::uint32_t>(error_ops_.size() - 1);
}

void Context::check_kernel_errors() {
    const std::uint32_t word = *static_cast<volatile std::uint32_t*>(error_host_);
    if (word == 0) return;
    *static_cast<volatile std::uint32_t*>(error_host_) = 0;
    std::string op;
    {
        std::lock_guard lock(mutex_);
        const std::uint32_t tag = word / 16;
        op = tag < error_ops_.size() ? error_ops_[tag] : "?";
    }
    switch (static_cast<KernelErrorKind>(word % 16)) {
        case KernelErrorKind::IndexOutOfRange:
            ::burn::detail::fail("Cuda ", op,
                                 ": an index is out of range for the dimension it indexes "
                                 "(found by the kernel, reported at this read)");
        case KernelErrorKind::DivisionByZero:
            ::burn::detail::fail("Cuda ", op,
                                 ": integer division by zero (found by the kernel, reported at "
                                 "this read)");
        case KernelErrorKind::NegativeExponent:
            ::burn::detail::fail("Cuda ", op,
                                 ": negative integer exponent (found by the kernel, reported at "
                                 "this read)");
    }
    ::burn::detail::fail("Cuda ", op, ": kernel error ", word % 16);
}

void Context::sync() {
    refuse_in_capture("sync (waiting for the device)");
    activate();
    check(cudaStreamSynchronize(stream_), "sync (a queued kernel failed)");
    check_kernel_errors();
}

Context::UploadBlock& Context::upload_block(std::size_t bytes) {
    // An idle block that is large enough: its last copy has finished.
    for (auto& b : upload_blocks_) {
        if (b.bytes < bytes) continue;
        const cudaError_t st = cudaEventQuery(b.done);
        if (st == cudaSuccess) return b;
        if (st != cudaErrorNotReady) check(st, "upload (staging event)");
    }
    // A new one, in power-of-two sizes from 64 KiB.
    const std::size_t size = std::max<std::size_t>(std::bit_ceil(bytes), std::size_t(64) << 10);
    if (upload_pinned_ + size > kUploadPinnedCap) {
        // At the cap: wait for the queued copies, then start over with the blocks idle.
        check(cudaStreamSynchronize(stream_), "upload (a queued kernel failed)");
        for (auto& b : upload_blocks_)
            if (b.bytes >= bytes) return b;
        for (auto& b : upload_blocks_) {
            (void)cudaFreeHost(b.host);
            (void)cudaEventDestroy(b.done);
        }
        upload_blocks_.clear();
        upload_pinned_ = 0;
    }
    UploadBlock b;
    check(cudaMallocHost(&b.host, size), "pinned upload staging allocation");
    b.bytes = size;
    if (const cudaError_t st = cudaEventCreateWithFlags(&b.done, cudaEventDisableTiming);
        st != cudaSuccess) {
        (void)cudaFreeHost(b.host);
        check(st, "upload (staging event)");
    }
    upload_pinned_ += size;
    upload_blocks_.push_back(b);
    return upload_blocks_.back();
}

void Context::upload(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    activate();
    if (GraphExec* g = capture()) {
        // The graph's copy reads a pinned copy of the data that lives as long as the graph: each
        // replay uploads the same values (data made inside a captured step is a constant of it).
        void* host = nullptr;
        check(relaxed_capture([&] { return cudaMallocHost(&host, bytes); }),
              "pinned upload copy for a captured graph");
        g->constants.push_back(host);
        std::memcpy(host, src, bytes);
        check(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, stream_), "upload");
        return;
    }
    (void)stream();  // waits while another thread captures
    std::lock_guard lock(upload_mutex_);
    auto* d = static_cast<std::byte*>(dst);
    const auto* s = static_cast<const std::byte*>(src);
    for (std::size_t off = 0; off < bytes; off += kUploadChunk) {
        const std::size_t n = std::min(kUploadChunk, bytes - off);
        UploadBlock& b = upload_block(n);
        std::memcpy(b.host, s + off, n);
        check(cudaMemcpyAsync(d + off, b.host, n, cudaMemcpyHostToDevice, stream_), "upload");
        check(cudaEventRecord(b.done, stream_), "upload (staging event)");
    }
}

void Context::download(void* dst, const void* src, std::size_t bytes) {
    refuse_in_capture("read (copying a tensor to the host)");
    activate();
    std::lock_guard lock(mutex_);
    if (bytes > pinned_bytes_) {
        if (pinned_) (void)cudaFreeHost(pinned_);
        pinned_ = nullptr;
        pinned_bytes_ = 0;
        const std::size_t want = std::max<std::size_t>(bytes, 1 << 20);
        check(cudaMallocHost(&pinned_, want), "pinned staging allocation");
        pinned_bytes_ = want;
    }
    if (bytes > 0)
        check(cudaMemcpyAsync(pinned_, src, bytes, cudaMemcpyDeviceToHost, stream_), "download");
    check(cudaStreamSynchronize(stream_), "read (a queued kernel failed)");
    if (bytes > 0) std::memcpy(dst, pinned_, bytes);
}

void* Context::cublaslt() {
    std::lock_guard lock(mutex_);
    if (!cublaslt_) {
        activate();
        cublasLtHandle_t h = nullptr;
        if (cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS)
            ::burn::detail::fail("Cuda matmul: cublasLtCreate failed on ", CudaDevice{device_});
        cublaslt_ = h;
    }
    return cublaslt_;
}

void* Context::cudnn() {
    std::lock_guard lock(mutex_);
    if (!cudnn_) {
        activate();
        cudnnHandle_t h = nullptr;
        const cudnnStatus_t st = cudnnCreate(&h);
        if (st != CUDNN_STATUS_SUCCESS)
            ::burn::detail::fail("Cuda conv: cudnnCreate failed on ", CudaDevice{device_}, ": ",
                                 cudnnGetErrorString(st));
        cudnnSetStream(h, stream_);
        cudnn_ = h;
    }
    return cudnn_;
}

std::shared_ptr<Buffer> Context::workspace(std::size_t bytes) {
    std::lock_guard lock(workspace_mutex_);
    if (!workspace_ || workspace_->bytes() < bytes) {
        workspace_.reset();
        workspace_ = alloc(bytes);
    }
    return workspace_;
}

Context& context(const CudaDevice& device) {
    static std::mutex mutex;
    // Never destroyed: buffers released during static destruction still find their allocator,
    // and the CUDA runtime may already be shutting down at exit.
    static auto* contexts = new std::vector<Context*>();
    std::lock_guard lock(mutex);
    if (device.index < contexts->size() && (*contexts)[device.index])
        return *(*contexts)[device.index];
    check_device(device);
    if (contexts->size() <= device.index) contexts->resize(device.index + 1, nullptr);
    (*contexts)[device.index] = new Context(device.index);
    return *(*contexts)[device.index];
}

}  // namespace burn::cuda

namespace burn {

std::size_t cuda_device_count() noexcept {
    try {
        return static_cast<std::size_t>(cuda::device_table().count);
    } catch (...) {
        return 0;
    }
}

std::string cuda_unavailable_reason() { return cuda::device_table().reason; }

std::ostream& operator<<(std::ostream& os, const CudaDeviceInfo& d) {
    return os << "Cuda(" << d.index << "): " << d.name << " (sm_" << d.compute_major
              << d.compute_minor << ", " << d.multiprocessors << " SMs, "
              << d.total_memory / (1024 * 1024) << " MiB)";
}

CudaDeviceInfo cuda_device_info(const CudaDevice& device) {
    const auto& p = cuda::context(device).properties();
    CudaDeviceInfo info;
    info.index = device.index;
    info.name = p.name;
    info.compute_major = p.major;
    info.compute_minor = p.minor;
    info.multiprocessors = static_cast<std::size_t>(p.multiProcessorCount);
    info.total_memory = p.totalGlobalMem;
    return info;
}

void cuda_sync(const CudaDevice& device) { cuda::context(device).sync(); }

CudaMemoryStats cuda_memory_stats(const CudaDevice& device) {
    return cuda::context(device).allocator().stats();
}

CudaKernelStats cuda_kernel_stats() { return cuda::kernel_stats(); }

void cuda_reset_peak_memory_stats(const CudaDevice& device) {
    cuda::context(device).allocator().reset_peaks();
}

void cuda_empty_cache(const CudaDevice& device) {
    auto& ctx = cuda::context(device);
    ctx.sync();
    ctx.allocator().empty_cache();
}

void set_cuda_allow_tf32(bool allow) noexcept { cuda::allow_tf32.store(allow); }
bool cuda_allow_tf32() noexcept { return cuda::allow_tf32.load(); }

}  // namespace burn

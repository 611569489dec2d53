// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA graphs (burn/backend/cuda/graph.hpp): stream capture on a device's context, the graph's
// private memory pool, kernels whose arguments change between replays, and the helpers of
// CudaGraphStep.
#include "burn/backend/cuda/graph.hpp"

#include <cuda.h>  // the driver's types (the driver itself is found at run time)

#include <cstring>
#include <string>

#include "ops_common.hpp"

namespace burn::cuda {

// ---- the graph's pool ----

GraphPool::GraphPool(std::size_t device)
    : device_(device),
      pool_(
          [](std::size_t bytes) -> void* {
              void* p = nullptr;
              if (relaxed_capture([&] { return cudaMalloc(&p, bytes); }) != cudaSuccess) {
                  (void)cudaGetLastError();
                  return nullptr;
              }
              return p;
          },
          [](void* p) { (void)cudaFree(p); }) {}

GraphPool::~GraphPool() { pool_.release_cached(); }

void* GraphPool::allocate(std::size_t bytes, std::size_t* block_bytes) {
    std::lock_guard lock(mutex_);
    void* p = pool_.allocate(bytes, block_bytes);
    if (!p)
        ::burn::detail::fail("Cuda alloc: out of device memory allocating ",
                             BlockPool::round(bytes), " bytes for a captured graph on ",
                             CudaDevice{device_}, " (the graph ", "holds ", pool_.reserved(),
                             " bytes)");
    return p;
}

void GraphPool::release(void* ptr) noexcept {
    std::lock_guard lock(mutex_);
    pool_.release(ptr);
}

std::size_t GraphPool::reserved() const {
    std::lock_guard lock(mutex_);
    return pool_.reserved();
}

// ---- capture on a context ----

GraphExec* Context::capture() const {
    if (!capturing_.load(std::memory_order_acquire)) return nullptr;
    std::lock_guard lock(capture_mutex_);
    return capture_ && capture_thread_ == std::this_thread::get_id() ? capture_.get() : nullptr;
}

void Context::wait_for_other_capture() const {
    std::unique_lock lock(capture_mutex_);
    if (capture_thread_ == std::this_thread::get_id()) return;
    capture_done_.wait(lock, [&] { return !capture_; });
}

void Context::refuse_in_capture(const char* what) const {
    if (!capturing_.load(std::memory_order_acquire)) return;
    if (capture())
        ::burn::detail::fail("Cuda ", what, ": not possible while a CUDA graph is captured on ",
                             CudaDevice{device_},
                             " (the captured work has not run yet: read results after the capture, "
                             "from a replay)");
    wait_for_other_capture();
}

void Context::release(void* ptr, std::size_t bytes) noexcept {
    if (capturing_.load(std::memory_order_acquire)) {
        std::lock_guard lock(capture_mutex_);
        if (capture_) {
            // The graph may read the block when it runs: it goes back with the graph.
            try {
                capture_->deferred.emplace_back(ptr, bytes);
            } catch (...) {  // no memory for the note: keep the block out of use for good
            }
            return;
        }
    }
    allocator_.release(ptr, bytes);
}

void Context::begin_capture() {
    activate();
    std::lock_guard lock(capture_mutex_);
    if (capture_)
        ::burn::detail::fail("CudaGraph::capture: a capture is already running on ",
                             CudaDevice{device_}, " (one at a time per device)");
    auto g = std::make_shared<GraphExec>(device_);
    check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "graph capture");
    capture_ = std::move(g);
    capture_thread_ = std::this_thread::get_id();
    capturing_.store(true, std::memory_order_release);
}

std::shared_ptr<GraphExec> Context::end_capture(bool ok) {
    activate();
    cudaGraph_t graph = nullptr;
    const cudaError_t st = cudaStreamEndCapture(stream_, &graph);
    std::shared_ptr<GraphExec> g;
    {
        std::lock_guard lock(capture_mutex_);
        g = std::move(capture_);
        capture_.reset();
        capture_thread_ = std::thread::id{};
        capturing_.store(false, std::memory_order_release);
    }
    capture_done_.notify_all();
    if (!ok || st != cudaSuccess) {
        if (graph) (void)cudaGraphDestroy(graph);
        (void)cudaGetLastError();
        if (ok) check(st, "graph capture (an operation of the captured work is not capturable)");
        return nullptr;
    }
    g->graph = graph;
    check(cudaGraphGetNodes(graph, nullptr, &g->nodes), "graph nodes");
    check(cudaGraphInstantiate(&g->exec, graph, 0), "graph instantiation");
    return g;
}

void Context::launch_patched(const Kernel& kernel, dim3 grid, dim3 block,
                             std::unique_ptr<NodePatch> patch, std::size_t shared_bytes) {
    launch(kernel, grid, block, patch->update(0), shared_bytes);
    GraphExec* g = capture();
    if (!g) return;
    cudaStreamCaptureStatus status{};
    const cudaGraphNode_t* deps = nullptr;
    std::size_t count = 0;
    check(cudaStreamGetCaptureInfo(stream_, &status, nullptr, nullptr, &deps, nullptr, &count),
          "graph capture (the node of a kernel)");
    if (status != cudaStreamCaptureStatusActive || count != 1)
        ::burn::detail::fail("Cuda: launching kernel ", kernel.name,
                             " in a capture: the stream is not capturing one chain of work");
    g->patched.push_back(GraphExec::Patched{deps[0], std::move(patch), kernel, grid, block,
                                            static_cast<unsigned>(shared_bytes)});
}

// ---- GraphExec ----

namespace {

/// cuGraphExecKernelNodeSetParams of the driver: the runtime's form takes a function pointer,
/// and the kernels here are library kernels (cudaKernel_t), which the driver's form takes.
using SetKernelParams = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v2*);

SetKernelParams set_kernel_params() {
    static const SetKernelParams fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        check(cudaGetDriverEntryPointByVersion("cuGraphExecKernelNodeSetParams", &p, 12000,
                                               cudaEnableDefault, &found),
              "graph replay (driver entry point)");
        if (found != cudaDriverEntryPointSuccess || p == nullptr)
            ::burn::detail::fail(
                "Cuda: the driver has no cuGraphExecKernelNodeSetParams (CUDA "
                "graphs whose kernels change between replays need a CUDA 12 "
                "driver)");
        return reinterpret_cast<SetKernelParams>(p);
    }();
    return fn;
}

}  // namespace

GraphExec::GraphExec(std::size_t d) : device(d), pool(std::make_shared<GraphPool>(d)) {}

GraphExec::~GraphExec() {
    Context& ctx = context(CudaDevice{device});
    // A run may still be queued: the memory below goes back once the device is done with it.
    if (launches > 0 && !ctx.capture()) (void)cudaStreamSynchronize(ctx.stream());
    if (exec) (void)cudaGraphExecDestroy(exec);
    if (graph) (void)cudaGraphDestroy(graph);
    for (const auto& [ptr, bytes] : deferred) ctx.release(ptr, bytes);
    for (void* h : constants) (void)cudaFreeHost(h);
}

void GraphExec::launch() {
    Context& ctx = context(CudaDevice{device});
    ctx.activate();
    const std::int64_t k = launches;
    for (auto& h : hooks) h(k);
    if (k > 0 && !patched.empty()) {
        const SetKernelParams set = set_kernel_params();
        for (auto& p : patched) {
            CUDA_KERNEL_NODE_PARAMS_v2 q{};
            q.gridDimX = p.grid.x, q.gridDimY = p.grid.y, q.gridDimZ = p.grid.z;
            q.blockDimX = p.block.x, q.blockDimY = p.block.y, q.blockDimZ = p.block.z;
            q.sharedMemBytes = p.shared_bytes;
            q.kernelParams = p.patch->update(k);
            q.kern = reinterpret_cast<CUkernel>(const_cast<void*>(p.kernel.handle));
            const CUresult r = set(exec, p.node, &q);
            if (r != CUDA_SUCCESS)
                ::burn::detail::fail("Cuda: graph replay: updating the arguments of kernel ",
                                     p.kernel.name, " failed (CUresult ", static_cast<int>(r), ")");
        }
    }
    check(cudaGraphLaunch(exec, ctx.stream()), "graph launch");
    ++launches;
}

// ---- CudaGraphStep's helpers ----

namespace graph_detail {

void copy_into(const CudaTensor& dst, const CudaTensor& src) {
    BURN_CHECK(dst.shape == src.shape && dst.dtype == src.dtype && dst.device == src.device,
               "CudaGraphStep: cannot copy ", src.shape, " ", dtype_name(src.dtype), " on ",
               src.device, " into ", dst.shape, " ", dtype_name(dst.dtype), " on ", dst.device);
    BURN_CHECK(is_dense(dst), "CudaGraphStep: the destination of a copy must be dense");
    const CudaTensor s = is_dense(src) ? src : Kernels::contiguous(src);
    if (first(s) == first(dst)) return;
    const std::size_t bytes = s.num_elements() * element_size(s.dtype, "CudaGraphStep");
    if (bytes > 0)
        check(cudaMemcpyAsync(first(dst), first(s), bytes, cudaMemcpyDeviceToDevice,
                              context(dst).stream()),
              "CudaGraphStep (copy)");
}

CudaTensor dense_copy(const CudaTensor& t) {
    CudaTensor out = alloc(t.shape, t.dtype, t.device);
    out.qinfo = t.qinfo;
    copy_into(out, t);
    return out;
}

const void* address(const CudaTensor& t) { return t.buffer ? first(t) : nullptr; }

void fail_state(const std::string& what, const std::string& key) {
    ::burn::detail::fail("CudaGraphStep: the state tensor ", key, " ", what);
}

}  // namespace graph_detail
}  // namespace burn::cuda

namespace burn {

CudaGraph CudaGraph::capture(const CudaDevice& device, const std::function<void()>& work) {
    cuda::Context& ctx = cuda::context(device);
    ctx.begin_capture();
    try {
        work();
    } catch (const Error& e) {
        (void)ctx.end_capture(false);
        ::burn::detail::fail("CudaGraph::capture on ", device, ": ", e.what());
    } catch (...) {
        (void)ctx.end_capture(false);
        throw;
    }
    return CudaGraph(ctx.end_capture(true));
}

void CudaGraph::replay() const {
    BURN_CHECK(exec_, "CudaGraph::replay: the graph is empty (capture one first)");
    exec_->launch();
}

std::size_t CudaGraph::node_count() const { return exec_ ? exec_->nodes : 0; }
std::size_t CudaGraph::patched_node_count() const { return exec_ ? exec_->patched.size() : 0; }
std::size_t CudaGraph::pool_bytes() const { return exec_ ? exec_->pool->reserved() : 0; }
std::int64_t CudaGraph::launches() const { return exec_ ? exec_->launches : 0; }

}  // namespace burn

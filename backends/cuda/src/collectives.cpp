// SPDX-License-Identifier: MIT OR Apache-2.0
// NCCL collectives on CUDA tensors (burn/backend/cuda/collectives.hpp): a communicator per
// process and device, collectives enqueued on the device's stream on dense copies of the inputs.
// Built with NCCL when CMake found it (BURN_CUDA_HAS_NCCL); without, the constructor and
// unique_id() throw burn::Error saying so.
#include "burn/backend/cuda/collectives.hpp"

#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "burn/backend/cuda/kernels.hpp"
#include "ops_common.hpp"

#ifdef BURN_CUDA_HAS_NCCL
#include <nccl.h>
#endif

namespace burn::cuda {

#ifdef BURN_CUDA_HAS_NCCL

namespace {

void check_nccl(ncclResult_t r, const char* what) {
    if (r == ncclSuccess) return;
    ::burn::detail::fail("cuda::NcclCommunicator::", what, ": ", ncclGetErrorString(r),
                         " (NCCL error ", static_cast<int>(r), ")");
}

ncclDataType_t nccl_type(DType dtype, const char* what) {
    switch (dtype) {
        case DType::F32: return ncclFloat32;
        case DType::F64: return ncclFloat64;
        case DType::F16: return ncclFloat16;
        case DType::BF16: return ncclBfloat16;
        case DType::I32: return ncclInt32;
        case DType::I64: return ncclInt64;
        case DType::I8: return ncclInt8;
        case DType::U8:
        case DType::Bool: return ncclUint8;
        default: break;
    }
    ::burn::detail::fail("cuda::NcclCommunicator::", what, ": dtype ", dtype_name(dtype),
                         " cannot be sent (F32, F64, F16, BF16, I32, I64, I8, U8 and Bool can)");
}

ncclRedOp_t nccl_op(NcclOp op, DType dtype, const char* what) {
    BURN_CHECK(dtype != DType::Bool || op == NcclOp::Max || op == NcclOp::Min,
               "cuda::NcclCommunicator::", what, ": Bool tensors reduce with Max or Min only");
    switch (op) {
        case NcclOp::Sum: return ncclSum;
        case NcclOp::Prod: return ncclProd;
        case NcclOp::Max: return ncclMax;
        case NcclOp::Min: return ncclMin;
        case NcclOp::Avg:
            BURN_CHECK(is_float(dtype), "cuda::NcclCommunicator::", what, ": the average of ",
                       dtype_name(dtype),
                       " tensors is not defined here (float dtypes only; use Sum)");
            return ncclAvg;
    }
    return ncclSum;
}

}  // namespace

struct NcclCommunicator::Impl {
    CudaDevice device;
    int rank = 0;
    int world_size = 1;
    ncclComm_t comm = nullptr;
    /// The stream of the asynchronous collectives (created on first use), and the event of the
    /// last one queued there: a collective queued on the device's stream waits for it first, so
    /// that the communicator's collectives run in the order they were called.
    cudaStream_t stream = nullptr;
    cudaEvent_t last_async = nullptr;
    /// The device's stream, after the asynchronous collectives queued so far.
    cudaStream_t ordered_device_stream() {
        Context& ctx = context(device);
        ctx.activate();
        if (last_async) check(cudaStreamWaitEvent(ctx.stream(), last_async, 0), "NCCL ordering");
        return ctx.stream();
    }
    /// Destroying the communicator while an asynchronous collective has not finished (a peer
    /// died: the step failed on the host through Gloo) aborts it, so that neither the GPU nor the
    /// process waits forever; a collective still finishing normally gets a few seconds first.
    ~Impl() {
        if (comm) {
            bool in_flight = false;
            if (last_async) {
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
                while ((in_flight = cudaEventQuery(last_async) == cudaErrorNotReady) &&
                       std::chrono::steady_clock::now() < until)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                (void)cudaGetLastError();
            }
            if (in_flight) ncclCommAbort(comm);
            else ncclCommDestroy(comm);
        }
        if (last_async) cudaEventDestroy(last_async);
        if (stream) cudaStreamDestroy(stream);
    }
};

struct NcclCommunicator::Pending::State {
    CudaTensor input;  // read by the collective: kept until the device's stream waits for it
    CudaTensor result;
    cudaEvent_t done = nullptr;
    bool waited = false;
    void join() {
        if (waited) return;
        waited = true;
        Context& ctx = context(result.device);
        ctx.activate();
        const cudaError_t st = cudaStreamWaitEvent(ctx.stream(), done, 0);
        cudaEventDestroy(done);
        input = {};
        check(st, "waiting for an asynchronous NCCL collective");
    }
    ~State() {
        if (!waited && done) {
            try {
                join();
            } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor reports nothing more
            }
        }
    }
};

NcclCommunicator::Pending::Pending() = default;
NcclCommunicator::Pending::Pending(Pending&&) noexcept = default;
NcclCommunicator::Pending& NcclCommunicator::Pending::operator=(Pending&&) noexcept = default;
NcclCommunicator::Pending::~Pending() = default;

CudaTensor NcclCommunicator::Pending::wait() {
    BURN_CHECK(state_ != nullptr && !state_->waited,
               "cuda::NcclCommunicator::Pending::wait: nothing to wait for (waited already, or "
               "moved from)");
    state_->join();
    return std::move(state_->result);
}

bool NcclCommunicator::available() noexcept { return true; }

NcclCommunicator::UniqueId NcclCommunicator::unique_id() {
    ncclUniqueId id;
    check_nccl(ncclGetUniqueId(&id), "unique_id");
    static_assert(sizeof(id) == sizeof(UniqueId));
    UniqueId out;
    std::memcpy(out.data(), &id, sizeof(id));
    return out;
}

NcclCommunicator::NcclCommunicator(CudaDevice device, int rank, int world_size, const UniqueId& id)
    : impl_(std::make_unique<Impl>()) {
    BURN_CHECK(world_size >= 1 && rank >= 0 && rank < world_size, "cuda::NcclCommunicator: rank ",
               rank, " of ", world_size, ": expected 0 <= rank < world_size");
    impl_->device = device;
    impl_->rank = rank;
    impl_->world_size = world_size;
    Context& ctx = context(device);  // throws burn::Error without a GPU
    ctx.activate();
    ncclUniqueId nid;
    std::memcpy(&nid, id.data(), sizeof(nid));
    check_nccl(ncclCommInitRank(&impl_->comm, world_size, nid, rank), "init");
}

NcclCommunicator::NcclCommunicator(NcclCommunicator&&) noexcept = default;
NcclCommunicator& NcclCommunicator::operator=(NcclCommunicator&&) noexcept = default;
NcclCommunicator::~NcclCommunicator() = default;

int NcclCommunicator::rank() const { return impl_->rank; }
int NcclCommunicator::world_size() const { return impl_->world_size; }
CudaDevice NcclCommunicator::device() const { return impl_->device; }

namespace {

/// `t` dense on the communicator's device (a copy when strided), checked.
CudaTensor dense_input(const NcclCommunicator::Impl& impl, const CudaTensor& t, const char* what) {
    BURN_CHECK(impl.comm != nullptr, "cuda::NcclCommunicator::", what,
               ": the communicator was moved from");
    BURN_CHECK(t.device == impl.device, "cuda::NcclCommunicator::", what, ": the tensor is on ",
               t.device.to_string(), ", the communicator on ", impl.device.to_string());
    BURN_CHECK(!t.qinfo, "cuda::NcclCommunicator::", what, ": quantized tensors cannot be sent");
    return is_dense(t) ? t : Kernels::contiguous(t);
}

}  // namespace

CudaTensor NcclCommunicator::all_reduce(const CudaTensor& t, NcclOp op) {
    const CudaTensor in = dense_input(*impl_, t, "all_reduce");
    const auto type = nccl_type(in.dtype, "all_reduce");
    const auto red = nccl_op(op, in.dtype, "all_reduce");
    CudaTensor out = alloc(in.shape, in.dtype, in.device);
    check_nccl(ncclAllReduce(first(in), first(out), in.shape.num_elements(), type, red, impl_->comm,
                             impl_->ordered_device_stream()),
               "all_reduce");
    return out;
}

NcclCommunicator::Pending NcclCommunicator::all_reduce_async(const CudaTensor& t, NcclOp op) {
    CudaTensor in = dense_input(*impl_, t, "all_reduce_async");
    const auto type = nccl_type(in.dtype, "all_reduce_async");
    const auto red = nccl_op(op, in.dtype, "all_reduce_async");
    Context& ctx = context(in.device);
    ctx.activate();
    if (!impl_->stream)
        check(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking),
              "NCCL stream creation");
    // The communicator's stream starts after what the device's stream has queued (the input).
    cudaEvent_t ready = nullptr;
    check(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "NCCL event creation");
    cudaError_t st = cudaEventRecord(ready, ctx.stream());
    if (st == cudaSuccess) st = cudaStreamWaitEvent(impl_->stream, ready, 0);
    cudaEventDestroy(ready);
    check(st, "ordering an asynchronous NCCL collective");
    Pending p;
    p.state_ = std::make_unique<Pending::State>();
    p.state_->result = alloc(in.shape, in.dtype, in.device);
    check_nccl(ncclAllReduce(first(in), first(p.state_->result), in.shape.num_elements(), type, red,
                             impl_->comm, impl_->stream),
               "all_reduce_async");
    check(cudaEventCreateWithFlags(&p.state_->done, cudaEventDisableTiming), "NCCL event creation");
    check(cudaEventRecord(p.state_->done, impl_->stream), "NCCL event record");
    if (!impl_->last_async)
        check(cudaEventCreateWithFlags(&impl_->last_async, cudaEventDisableTiming),
              "NCCL event creation");
    check(cudaEventRecord(impl_->last_async, impl_->stream), "NCCL event record");
    p.state_->input = std::move(in);
    return p;
}

CudaTensor NcclCommunicator::broadcast(const CudaTensor& t, int root) {
    BURN_CHECK(root >= 0 && root < impl_->world_size, "cuda::NcclCommunicator::broadcast: root ",
               root, " is outside [0, ", impl_->world_size, ")");
    const CudaTensor in = dense_input(*impl_, t, "broadcast");
    const auto type = nccl_type(in.dtype, "broadcast");
    CudaTensor out = alloc(in.shape, in.dtype, in.device);
    check_nccl(ncclBroadcast(first(in), first(out), in.shape.num_elements(), type, root,
                             impl_->comm, impl_->ordered_device_stream()),
               "broadcast");
    return out;
}

CudaTensor NcclCommunicator::all_gather(const CudaTensor& t) {
    const CudaTensor in = dense_input(*impl_, t, "all_gather");
    BURN_CHECK(in.shape.rank() >= 1,
               "cuda::NcclCommunicator::all_gather: expected a tensor of "
               "rank >= 1, got a scalar shape");
    const auto type = nccl_type(in.dtype, "all_gather");
    Shape shape = in.shape;
    shape[0] *= static_cast<std::size_t>(impl_->world_size);
    CudaTensor out = alloc(shape, in.dtype, in.device);
    check_nccl(ncclAllGather(first(in), first(out), in.shape.num_elements(), type, impl_->comm,
                             impl_->ordered_device_stream()),
               "all_gather");
    return out;
}

CudaTensor NcclCommunicator::reduce_scatter(const CudaTensor& t, NcclOp op) {
    const CudaTensor in = dense_input(*impl_, t, "reduce_scatter");
    const auto world = static_cast<std::size_t>(impl_->world_size);
    BURN_CHECK(in.shape.rank() >= 1 && in.shape[0] % world == 0,
               "cuda::NcclCommunicator::reduce_scatter: dim 0 of shape ", in.shape,
               " must split into ", world, " equal parts");
    const auto type = nccl_type(in.dtype, "reduce_scatter");
    const auto red = nccl_op(op, in.dtype, "reduce_scatter");
    Shape shape = in.shape;
    shape[0] /= world;
    CudaTensor out = alloc(shape, in.dtype, in.device);
    check_nccl(ncclReduceScatter(first(in), first(out), shape.num_elements(), type, red,
                                 impl_->comm, impl_->ordered_device_stream()),
               "reduce_scatter");
    return out;
}

void NcclCommunicator::barrier() {
    CudaTensor one = alloc(Shape{1}, DType::F32, impl_->device);
    check_nccl(ncclAllReduce(first(one), first(one), 1, ncclFloat32, ncclSum, impl_->comm,
                             impl_->ordered_device_stream()),
               "barrier");
    context(impl_->device).sync();
}

#else  // no NCCL in this build

struct NcclCommunicator::Impl {};
struct NcclCommunicator::Pending::State {};

namespace {
[[noreturn]] void no_nccl(const char* what) {
    ::burn::detail::fail("cuda::NcclCommunicator::", what,
                         ": this build of burn has no NCCL (libnccl and nccl.h were not found "
                         "next to the CUDA toolkit when it was configured)");
}
}  // namespace

bool NcclCommunicator::available() noexcept { return false; }
NcclCommunicator::UniqueId NcclCommunicator::unique_id() { no_nccl("unique_id"); }
NcclCommunicator::NcclCommunicator(CudaDevice, int, int, const UniqueId&) { no_nccl("init"); }
NcclCommunicator::NcclCommunicator(NcclCommunicator&&) noexcept = default;
NcclCommunicator& NcclCommunicator::operator=(NcclCommunicator&&) noexcept = default;
NcclCommunicator::~NcclCommunicator() = default;
int NcclCommunicator::rank() const { no_nccl("rank"); }
int NcclCommunicator::world_size() const { no_nccl("world_size"); }
CudaDevice NcclCommunicator::device() const { no_nccl("device"); }
CudaTensor NcclCommunicator::all_reduce(const CudaTensor&, NcclOp) { no_nccl("all_reduce"); }
CudaTensor NcclCommunicator::broadcast(const CudaTensor&, int) { no_nccl("broadcast"); }
CudaTensor NcclCommunicator::all_gather(const CudaTensor&) { no_nccl("all_gather"); }
CudaTensor NcclCommunicator::reduce_scatter(const CudaTensor&, NcclOp) {
    no_nccl("reduce_scatter");
}
void NcclCommunicator::barrier() { no_nccl("barrier"); }
NcclCommunicator::Pending::Pending() = default;
NcclCommunicator::Pending::Pending(Pending&&) noexcept = default;
NcclCommunicator::Pending& NcclCommunicator::Pending::operator=(Pending&&) noexcept = default;
NcclCommunicator::Pending::~Pending() = default;
CudaTensor NcclCommunicator::Pending::wait() { no_nccl("Pending::wait"); }
NcclCommunicator::Pending NcclCommunicator::all_reduce_async(const CudaTensor&, NcclOp) {
    no_nccl("all_reduce_async");
}

#endif

}  // namespace burn::cuda

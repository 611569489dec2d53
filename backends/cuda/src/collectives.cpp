// SPDX-License-Identifier: MIT OR Apache-2.0
// NCCL collectives on CUDA tensors (burn/backend/cuda/collectives.hpp): a communicator per
// process and device, collectives enqueued on the device's stream on dense copies of the inputs.
// Built with NCCL when CMake found it (BURN_CUDA_HAS_NCCL); without, the constructor and
// unique_id() throw burn::Error saying so.
#include "burn/backend/cuda/collectives.hpp"

#include <cstring>
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
    ~Impl() {
        if (comm) ncclCommDestroy(comm);
    }
};

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
    Context& ctx = context(in.device);
    ctx.activate();
    check_nccl(ncclAllReduce(first(in), first(out), in.shape.num_elements(), type, red, impl_->comm,
                             ctx.stream()),
               "all_reduce");
    return out;
}

CudaTensor NcclCommunicator::broadcast(const CudaTensor& t, int root) {
    BURN_CHECK(root >= 0 && root < impl_->world_size, "cuda::NcclCommunicator::broadcast: root ",
               root, " is outside [0, ", impl_->world_size, ")");
    const CudaTensor in = dense_input(*impl_, t, "broadcast");
    const auto type = nccl_type(in.dtype, "broadcast");
    CudaTensor out = alloc(in.shape, in.dtype, in.device);
    Context& ctx = context(in.device);
    ctx.activate();
    check_nccl(ncclBroadcast(first(in), first(out), in.shape.num_elements(), type, root,
                             impl_->comm, ctx.stream()),
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
    Context& ctx = context(in.device);
    ctx.activate();
    check_nccl(ncclAllGather(first(in), first(out), in.shape.num_elements(), type, impl_->comm,
                             ctx.stream()),
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
    Context& ctx = context(in.device);
    ctx.activate();
    check_nccl(ncclReduceScatter(first(in), first(out), shape.num_elements(), type, red,
                                 impl_->comm, ctx.stream()),
               "reduce_scatter");
    return out;
}

void NcclCommunicator::barrier() {
    CudaTensor one = alloc(Shape{1}, DType::F32, impl_->device);
    Context& ctx = context(impl_->device);
    ctx.activate();
    check_nccl(
        ncclAllReduce(first(one), first(one), 1, ncclFloat32, ncclSum, impl_->comm, ctx.stream()),
        "barrier");
    ctx.sync();
}

#else  // no NCCL in this build

struct NcclCommunicator::Impl {};

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

#endif

}  // namespace burn::cuda

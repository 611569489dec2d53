// SPDX-License-Identifier: MIT OR Apache-2.0
// Reductions (sum, prod, mean, max, min over everything or along a dim, arg-max/min with
// indices, any/all) and cumulative ops, with the CPU backend's semantics (reduce.cpp,
// cumulative.cpp): NaN propagates through max/min, the first extremum wins (NaN counts as one),
// the mean of ints truncates, ints wrap.
//
// Kernels (kernels/vulkan/reduce_*.comp):
//  - short lanes (<= 32) and strided lanes of many outputs (<= 4096 elements, >= 256 lanes): one
//    invocation per lane (reduce_thread_<t>; neighbouring invocations read neighbouring
//    elements when the reduced dim is not the innermost);
//  - otherwise one workgroup of 256 invocations per lane, each folding a strided share of it,
//    combined by subgroup arithmetic (reduce_sg_<t>) when the device has it, else by a
//    shared-memory tree (reduce_<t>). BURN_VULKAN_NO_SUBGROUPS=1 in the environment forces the
//    shared-memory path (the tests run both). Lanes longer than 16384 elements are split over
//    several workgroups and a second launch folds the partials;
//  - arg-max/min: one workgroup per lane, shared-memory tree of (value, index) pairs;
//  - cumulative: one workgroup per lane scanning it chunk by chunk (Hillis-Steele in shared
//    memory plus the running carry).
// Inputs are read through their TensorMeta (any strides); outputs are new contiguous tensors.
// Lavapipe ends an invocation after 65535 loop iterations in all: per-invocation work is bounded
// except in the arg-max/min (lanes up to ~16M elements) and cumulative scans (~1.8M).
// Possible speed-ups: a decoupled look-back scan over several workgroups per long lane and
// subgroup scans for cumulative ops; split lanes and subgroup ops for arg-max/min; vectorised
// (vec4) loads of dense lanes.
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "ops_common.hpp"

namespace burn::vk {

namespace {

constexpr std::uint32_t kReduceWorkgroup = 256;
constexpr std::uint32_t kFlatDim = 0xFFFFFFFFu;

bool use_subgroups(const Context& ctx) {
    const char* env = std::getenv("BURN_VULKAN_NO_SUBGROUPS");
    if (env != nullptr && env[0] != '\0' && env[0] != '0') return false;
    const VulkanFeatures& f = ctx.features();
    // The shader keeps one partial per subgroup in 64 slots: subgroups of at least 4.
    return f.subgroup_in_compute && f.subgroup_basic && f.subgroup_arithmetic &&
           f.subgroup_size >= 4;
}

/// The numeric dtypes of Vulkan (bool tensors go through any / all).
constexpr bool numeric(DType dt) {
    return dt == DType::F32 || dt == DType::I32 || dt == DType::I64;
}

/// A new contiguous tensor of `shape` with every element `value` (written from the host).
VulkanTensor host_full(const Shape& shape, DType dt, double f, std::int64_t i,
                       const VulkanDevice& device) {
    VulkanTensor out = alloc(shape, dt, device);
    const std::size_t n = shape.num_elements();
    if (n == 0) return out;
    std::vector<std::byte> bytes(n * device_element_size(dt));
    for (std::size_t k = 0; k < n; ++k) {
        std::byte* p = bytes.data() + k * device_element_size(dt);
        switch (dt) {
            case DType::F32: {
                const float v = static_cast<float>(f);
                std::memcpy(p, &v, 4);
                break;
            }
            case DType::I32: {
                const auto v = static_cast<std::int32_t>(i);
                std::memcpy(p, &v, 4);
                break;
            }
            case DType::I64: std::memcpy(p, &i, 8); break;
            default: {  // bool
                const std::uint32_t v = i != 0 ? 1u : 0u;
                std::memcpy(p, &v, 4);
                break;
            }
        }
    }
    context(device).write(buffer_of(out), bytes);
    return out;
}

Shape kept_shape(const Shape& s, std::size_t dim) {
    Shape out = s;
    out[dim] = 1;
    return out;
}

/// The suffix of the storage type for the reduction shaders ("u32" for bool).
std::uint32_t op_code(ReduceOp op) {
    switch (op) {
        case ReduceOp::Sum: return 0;
        case ReduceOp::Prod: return 1;
        case ReduceOp::Mean: return 2;
        case ReduceOp::Max: return 3;
        case ReduceOp::Min: return 4;
    }
    return 0;
}

/// Elements one workgroup folds at most: longer lanes are split, and a second launch folds the
/// partials (lavapipe also ends an invocation after 65535 loop iterations).
constexpr std::uint64_t kLaneChunk = 16384;

/// Launches reduce_[sg_]<dtype>: `lanes` outputs, each folding n elements of t along dim (or
/// every element in row-major order when dim == kFlatDim, lanes == 1).
void launch_reduce(const VulkanTensor& t, const VulkanTensor& out, std::uint32_t dim,
                   std::uint64_t n, std::uint64_t lanes, std::uint32_t op) {
    Context& ctx = context(t);
    check_u32("reduce", n);
    check_u32("reduce", lanes);
    const bool sg = use_subgroups(ctx) && t.dtype != DType::I64;
    const std::string shader = std::string(sg ? "reduce_sg_" : "reduce_") + dtype_suffix(t.dtype);
    const auto& p = ctx.pipeline(
        {.shader = shader, .spec = {kReduceWorkgroup}, .bindings = 3, .push_bytes = 28});
    TensorMeta m = meta(t);
    if (dim == kFlatDim && t.is_contiguous()) {  // a dense run: one dim of stride 1
        m = TensorMeta{};
        m.rank = 1;
        m.offset = static_cast<std::int32_t>(t.offset);
        m.numel = static_cast<std::uint32_t>(n);
        m.shape[0] = static_cast<std::uint32_t>(n);
        m.strides[0] = 1;
        dim = 0;
    }
    const Buffer metas = meta_buffer(ctx, {m});
    struct {
        std::uint32_t dim, n, lanes, op, chunk, splits, divisor;
    } push{dim,
           static_cast<std::uint32_t>(n),
           static_cast<std::uint32_t>(lanes),
           op,
           static_cast<std::uint32_t>(n),
           1,
           static_cast<std::uint32_t>(n)};
    const auto groups = [&](std::uint64_t count) {
        check_u32("reduce", count);
        return grid_1d(count * kReduceWorkgroup, kReduceWorkgroup, ctx.features());
    };
    // One invocation per lane for short lanes, and for strided lanes of many outputs (neighbouring
    // invocations read neighbouring elements: coalesced).
    const bool per_invocation =
        dim != kFlatDim && (n <= 32 || (m.strides[dim] != 1 && lanes >= 256 && n <= 4096));
    if (per_invocation) {
        const auto& pt =
            ctx.pipeline({.shader = std::string("reduce_thread_") + dtype_suffix(t.dtype),
                          .spec = {kReduceWorkgroup},
                          .bindings = 3,
                          .push_bytes = 28});
        ctx.dispatch(pt, {&metas, &buffer_of(t), &buffer_of(out)}, push,
                     grid_1d(lanes, kReduceWorkgroup, ctx.features()));
        return;
    }
    if (n <= kLaneChunk) {
        ctx.dispatch(p, {&metas, &buffer_of(t), &buffer_of(out)}, push, groups(lanes));
        return;
    }
    // Pass 1: partial results [lanes, splits] (a mean sums first); pass 2 folds each row.
    const std::uint64_t splits = (n + kLaneChunk - 1) / kLaneChunk;
    Buffer partial = ctx.allocate(lanes * splits * device_element_size(t.dtype));
    push.chunk = static_cast<std::uint32_t>(kLaneChunk);
    push.splits = static_cast<std::uint32_t>(splits);
    push.op = op == 2 ? 0u : op;
    ctx.dispatch(p, {&metas, &buffer_of(t), &partial}, push, groups(lanes * splits));
    TensorMeta pm;
    pm.rank = 2;
    pm.numel = static_cast<std::uint32_t>(lanes * splits);
    pm.shape[0] = static_cast<std::uint32_t>(lanes);
    pm.shape[1] = static_cast<std::uint32_t>(splits);
    pm.strides[0] = static_cast<std::int32_t>(splits);
    pm.strides[1] = 1;
    const Buffer pmetas = meta_buffer(ctx, {pm});
    push.dim = 1;
    push.n = static_cast<std::uint32_t>(splits);
    push.chunk = static_cast<std::uint32_t>(splits);
    push.splits = 1;
    push.op = op;  // a mean divides by the whole lane's count (divisor n)
    ctx.dispatch(p, {&pmetas, &partial, &buffer_of(out)}, push, groups(lanes));
}

/// A reduction over no elements, of `shape`: 0 (sum), 1 (prod) or NaN (mean of floats).
VulkanTensor empty_reduction(ReduceOp op, const Shape& shape, const VulkanTensor& t) {
    assert(op == ReduceOp::Sum || op == ReduceOp::Prod ||
           (op == ReduceOp::Mean && t.dtype == DType::F32));
    const ScalarArg v = backend::empty_reduction(op);
    return host_full(shape, t.dtype, v.f, v.i, t.device);
}

/// The mean of i32 values sums in i64 (as the CPU backend, whose sums do not overflow): through
/// i64 copies when the device has 64-bit integers.
bool widen_mean(ReduceOp op, const VulkanTensor& t) {
    return op == ReduceOp::Mean && t.dtype == DType::I32 && context(t).features().shader_int64;
}

std::uint32_t dim_u32(std::size_t dim) { return static_cast<std::uint32_t>(dim); }

}  // namespace

VulkanTensor Kernels::reduce_all(ReduceOp op, VulkanTensor t) {
    assert(numeric(t.dtype));
    const std::size_t n = t.num_elements();
    if (n == 0) return empty_reduction(op, Shape{1}, t);
    if (widen_mean(op, t)) return cast(reduce_all(op, cast(std::move(t), DType::I64)), DType::I32);
    VulkanTensor out = alloc(Shape{1}, t.dtype, t.device);
    launch_reduce(t, out, kFlatDim, n, 1, op_code(op));
    return out;
}

VulkanTensor Kernels::reduce_dim(ReduceOp op, VulkanTensor t, std::size_t dim) {
    assert(dim < t.rank() && numeric(t.dtype));
    const Shape shape = kept_shape(t.shape, dim);
    if (t.shape[dim] == 0) return empty_reduction(op, shape, t);
    if (shape.num_elements() > 0 && widen_mean(op, t))
        return cast(reduce_dim(op, cast(std::move(t), DType::I64), dim), DType::I32);
    VulkanTensor out = alloc(shape, t.dtype, t.device);
    const std::size_t lanes = shape.num_elements();
    if (lanes == 0) return out;
    launch_reduce(t, out, dim_u32(dim), t.shape[dim], lanes, op_code(op));
    return out;
}

std::pair<VulkanTensor, VulkanTensor> Kernels::reduce_dim_with_indices(ReduceOp op, VulkanTensor t,
                                                                       std::size_t dim,
                                                                       DType index_dtype) {
    assert(op == ReduceOp::Max || op == ReduceOp::Min);
    const char* name = backend::op_dim_name(op);
    assert(dim < t.rank() && numeric(t.dtype) && t.shape[dim] != 0);
    assert(index_dtype == DType::I32 || index_dtype == DType::I64);
    const Shape shape = kept_shape(t.shape, dim);
    VulkanTensor values = alloc(shape, t.dtype, t.device);
    VulkanTensor indices = alloc(shape, index_dtype, t.device);
    const std::size_t lanes = shape.num_elements();
    if (lanes == 0) return {values, indices};
    check_u32(name, t.shape[dim]);
    check_u32(name, lanes);
    Context& ctx = context(t);
    const auto& p = ctx.pipeline({.shader = std::string("reduce_arg_") + dtype_suffix(t.dtype),
                                  .spec = {kReduceWorkgroup},
                                  .bindings = 4,
                                  .push_bytes = 20});
    const Buffer metas = meta_buffer(ctx, {meta(t)});
    struct {
        std::uint32_t dim, n, lanes, op, idx64;
    } push{dim_u32(dim), static_cast<std::uint32_t>(t.shape[dim]),
           static_cast<std::uint32_t>(lanes), op == ReduceOp::Max ? 0u : 1u,
           index_dtype == DType::I64 ? 1u : 0u};
    ctx.dispatch(p, {&metas, &buffer_of(t), &buffer_of(values), &buffer_of(indices)}, push,
                 grid_1d(lanes * kReduceWorkgroup, kReduceWorkgroup, ctx.features()));
    return {std::move(values), std::move(indices)};
}

VulkanTensor Kernels::any_all(bool all, VulkanTensor t) {
    if (t.dtype != DType::Bool) t = cast(std::move(t), DType::Bool);  // != 0, as the CPU backend
    const std::size_t n = t.num_elements();
    if (n == 0) return host_full(Shape{1}, DType::Bool, 0.0, all ? 1 : 0, t.device);
    VulkanTensor out = alloc(Shape{1}, DType::Bool, t.device);
    launch_reduce(t, out, kFlatDim, n, 1, all ? op_code(ReduceOp::Min) : op_code(ReduceOp::Max));
    return out;
}

VulkanTensor Kernels::any_all_dim(bool all, VulkanTensor t, std::size_t dim) {
    assert(dim < t.rank());
    if (t.dtype != DType::Bool) t = cast(std::move(t), DType::Bool);
    const Shape shape = kept_shape(t.shape, dim);
    if (t.shape[dim] == 0) return host_full(shape, DType::Bool, 0.0, all ? 1 : 0, t.device);
    VulkanTensor out = alloc(shape, DType::Bool, t.device);
    const std::size_t lanes = shape.num_elements();
    if (lanes == 0) return out;
    launch_reduce(t, out, dim_u32(dim), t.shape[dim], lanes,
                  all ? op_code(ReduceOp::Min) : op_code(ReduceOp::Max));
    return out;
}

VulkanTensor Kernels::cumulative(CumOp op, VulkanTensor t, std::size_t dim) {
    const char* name = backend::op_name(op);
    assert(dim < t.rank() && numeric(t.dtype));
    VulkanTensor out = alloc(t.shape, t.dtype, t.device);
    const std::size_t numel = t.num_elements();
    if (numel == 0) return out;
    check_u32(name, numel);
    std::size_t inner = 1;
    for (std::size_t d = dim + 1; d < t.rank(); ++d) inner *= t.shape[d];
    const std::size_t n = t.shape[dim];
    const std::size_t lanes = numel / n;
    Context& ctx = context(t);
    const auto& p = ctx.pipeline({.shader = std::string("reduce_cum_") + dtype_suffix(t.dtype),
                                  .spec = {kReduceWorkgroup},
                                  .bindings = 3,
                                  .push_bytes = 20});
    const Buffer metas = meta_buffer(ctx, {meta(t)});
    const std::uint32_t code = op == CumOp::Sum    ? 0u
                               : op == CumOp::Prod ? 1u
                               : op == CumOp::Max  ? 2u
                                                   : 3u;
    struct {
        std::uint32_t dim, n, lanes, op, inner;
    } push{dim_u32(dim), static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(lanes), code,
           static_cast<std::uint32_t>(inner)};
    ctx.dispatch(p, {&metas, &buffer_of(t), &buffer_of(out)}, push,
                 grid_1d(lanes * kReduceWorkgroup, kReduceWorkgroup, ctx.features()));
    return out;
}

}  // namespace burn::vk

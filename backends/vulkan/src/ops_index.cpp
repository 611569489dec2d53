// SPDX-License-Identifier: MIT OR Apache-2.0
// Indexing and reordering: gather, scatter_add, select (index_select), select_add (index_add),
// embedding and its backward, stable sort / argsort, argwhere. Semantics of the CPU backend
// (index.cpp, sort.cpp, nn_misc.cpp).
//
// Kernels (kernels/vulkan/index_*.comp):
//  - index_gather: one invocation per output element, copying words (any storage type); select
//    and embedding pass the indices as broadcast views of the output's rank.
//  - index_scatter_<t>: no atomics: one invocation per output element adds, in index order, every
//    value whose index points at it (deterministic; the CPU backend's order of additions, so
//    float results are bit-identical). Cost: out elements x index extent.
//  - sort: (key, index) records per lane padded to a power of two P, a bitonic sort ordered by
//    (key, index): a total order, hence stable. Steps of distance < 512 run in shared memory
//    (index_sort_local: one dispatch sorts lanes up to 512 records), longer ones one dispatch per
//    step (index_sort_step); then the values are copied through the sorted indices (bit-exact).
//  - argwhere: per-block counts, host prefix sum (the output shape needs the count: one wait),
//    per-block writes in row-major order.
// Indices outside their dim: gather reads zeros for them and the scatters skip them, and the
// kernels report them to the device error buffer (Context::error_buffer(): burn::Error at the
// next read, or at the op with BURN_VULKAN_SYNC_ERRORS=1).
// Possible speed-ups: a radix sort for long lanes, a parallel scan for argwhere, sort-by-index
// or atomics for scatters with long index dims (embedding_backward scans every index for every
// output element).
#include <bit>
#include <cstring>
#include <limits>
#include <vector>

#include "ops_common.hpp"

namespace burn::vk {

namespace {

constexpr std::uint32_t kWorkgroup = 256;

std::uint32_t u32(std::uint64_t v) { return static_cast<std::uint32_t>(v); }

/// Indices and index outputs are int tensors: i32 or i64 on Vulkan.
constexpr bool is_index_dtype(DType d) { return d == DType::I32 || d == DType::I64; }

std::uint32_t words_of(DType d) { return static_cast<std::uint32_t>(device_element_size(d) / 4); }

/// Runs index_gather: out (contiguous, shape of om) from t at indices.
/// Out-of-range indices give zeros and are reported through the device error buffer (thrown at
/// the next read: Context::error_buffer()).
void launch_gather(const char* op, const VulkanTensor& t, const VulkanTensor& indices,
                   const VulkanTensor& out, std::size_t dim, const TensorMeta& tm,
                   const TensorMeta& im, std::size_t op_dim) {
    const std::size_t n = out.num_elements();
    if (n == 0) return;
    check_u32(op, n);
    Context& ctx = context(t);
    const auto& p = ctx.pipeline(
        {.shader = "index_gather", .spec = {kWorkgroup}, .bindings = 5, .push_bytes = 24});
    const Buffer metas = meta_buffer(ctx, {meta(out), tm, im});
    struct {
        std::uint32_t dim, words, idx64, n, op, op_dim;
    } push{u32(dim), words_of(t.dtype), indices.dtype == DType::I64 ? 1u : 0u,
           u32(n),   ctx.error_op(op),  u32(op_dim)};
    const Buffer& errors = ctx.error_buffer();
    ctx.dispatch(p, {&metas, &buffer_of(t), &buffer_of(indices), &buffer_of(out), &errors}, push,
                 grid_1d(n, kWorkgroup, ctx.features()));
}

/// Runs index_scatter_<t>: out (contiguous, shape of t) = t + contributions (mode 0), or the
/// embedding backward (mode 1; t unused).
void launch_scatter(const char* op, const VulkanTensor* t, const VulkanTensor& indices,
                    const VulkanTensor& values, const VulkanTensor& out, std::size_t dim,
                    std::size_t k, std::uint32_t mode, const TensorMeta& tm, const TensorMeta& im,
                    const TensorMeta& vm) {
    const std::size_t n = out.num_elements();
    if (n == 0) return;
    check_u32(op, n);
    check_u32(op, k);
    assert(out.dtype != DType::Bool);  // numeric tensors only (the Tensor layer's kinds)
    Context& ctx = context(out);
    const auto& p = ctx.pipeline({.shader = std::string("index_scatter_") + dtype_suffix(out.dtype),
                                  .spec = {kWorkgroup},
                                  .bindings = 6,
                                  .push_bytes = 28});
    const Buffer metas = meta_buffer(ctx, {meta(out), tm, im, vm});
    const Buffer out_metas = meta_buffer(ctx, {meta(out), meta(out), im, vm});
    struct {
        std::uint32_t dim, k0, k1, mode, idx64, n, op;
    } push{u32(dim), 0, 0, mode, indices.dtype == DType::I64 ? 1u : 0u, u32(n), ctx.error_op(op)};
    const Buffer& errors = ctx.error_buffer();
    // Empty index / value tensors have no buffer to bind: bind the output instead (never read).
    const Buffer& tb = t ? buffer_of(*t) : buffer_of(out);
    const Buffer& ib = indices.num_elements() ? buffer_of(indices) : buffer_of(out);
    const Buffer& vb = values.num_elements() ? buffer_of(values) : buffer_of(out);
    // Lavapipe ends an invocation after 65535 loop iterations: long index extents are added in
    // several launches, each from the previous output (the order of additions is kept).
    const std::size_t chunk = mode == 1 ? 2048 : 16384;
    std::size_t k0 = 0;
    do {
        push.k0 = u32(k0);
        push.k1 = u32(std::min(k, k0 + chunk));
        if (k0 == 0)
            ctx.dispatch(p, {&metas, &tb, &ib, &vb, &buffer_of(out), &errors}, push,
                         grid_1d(n, kWorkgroup, ctx.features()));
        else
            ctx.dispatch(p, {&out_metas, &buffer_of(out), &ib, &vb, &buffer_of(out), &errors}, push,
                         grid_1d(n, kWorkgroup, ctx.features()));
        k0 += chunk;
    } while (k0 < k);
}

/// The indices (rank 1) of select / select_add seen with t's rank and `shape`: stride 0 except
/// along dim.
TensorMeta select_index_meta(const VulkanTensor& indices, const Shape& shape, std::size_t dim) {
    TensorMeta m;
    m.rank = u32(shape.rank());
    m.offset = static_cast<std::int32_t>(indices.offset);
    m.numel = u32(shape.num_elements());
    for (std::size_t d = 0; d < shape.rank(); ++d) m.shape[d] = u32(shape[d]);
    m.strides[dim] = static_cast<std::int32_t>(indices.strides[0]);
    return m;
}

std::pair<VulkanTensor, VulkanTensor> sort_impl(const char* op, VulkanTensor t, std::size_t dim,
                                                bool descending, DType index_dtype,
                                                bool want_values) {
    assert(is_index_dtype(index_dtype));
    assert(t.dtype != DType::Bool);  // numeric tensors only (the Tensor layer's kinds)
    if (t.rank() == 0) {             // a single element (dim 0 accepted, as torch)
        assert(dim == 0);
        t.shape = Shape{1};
        t.strides[0] = 1;
        auto r = sort_impl(op, std::move(t), 0, descending, index_dtype, want_values);
        r.first.shape = Shape{};
        r.second.shape = Shape{};
        return r;
    }
    assert(dim < t.rank());
    const std::size_t n = t.shape[dim];
    BURN_CHECK(
        index_dtype != DType::I32 || n == 0 || n - 1 <= std::numeric_limits<std::int32_t>::max(),
        "Vulkan ", op, ": the index dtype ", dtype_name(index_dtype),
        " cannot hold the indices of a dim of size ", n);
    VulkanTensor values;
    if (want_values) values = alloc(t.shape, t.dtype, t.device);
    VulkanTensor indices = alloc(t.shape, index_dtype, t.device);
    const std::size_t numel = t.num_elements();
    if (numel == 0) return {values, indices};
    check_u32(op, numel);
    const std::size_t lanes = numel / n;
    const std::size_t pn = std::bit_ceil(n);
    check_u32(op, lanes * pn);
    std::size_t inner = 1;
    for (std::size_t d = dim + 1; d < t.rank(); ++d) inner *= t.shape[d];
    Context& ctx = context(t);
    const auto& f = ctx.features();
    Buffer keys = ctx.allocate(lanes * pn * 8);
    Buffer order = ctx.allocate(lanes * pn * 4);
    const Buffer metas = meta_buffer(ctx, {meta(t)});
    {
        const auto& p =
            ctx.pipeline({.shader = std::string("index_sort_key_") + dtype_suffix(t.dtype),
                          .spec = {kWorkgroup},
                          .bindings = 4,
                          .push_bytes = 20});
        struct {
            std::uint32_t dim, n, lanes, p, desc;
        } push{u32(dim), u32(n), u32(lanes), u32(pn), descending ? 1u : 0u};
        ctx.dispatch(p, {&metas, &buffer_of(t), &keys, &order}, push,
                     grid_1d(lanes * pn, kWorkgroup, f));
    }
    if (pn > 1) {
        // Steps of distance j < B in shared memory (index_sort_local, blocks of B records), the
        // longer ones one dispatch each (index_sort_step).
        const std::size_t b = std::min<std::size_t>(pn, 2 * kWorkgroup);
        const std::size_t blocks = lanes * pn / b;
        const auto& local = ctx.pipeline(
            {.shader = "index_sort_local", .spec = {kWorkgroup}, .bindings = 2, .push_bytes = 20});
        const auto& step = ctx.pipeline(
            {.shader = "index_sort_step", .spec = {kWorkgroup}, .bindings = 2, .push_bytes = 16});
        struct {
            std::uint32_t p, b, k_lo, k_hi, blocks;
        } lpush{u32(pn), u32(b), 2, u32(b), u32(blocks)};
        const Groups lgroups = grid_1d(blocks * kWorkgroup, kWorkgroup, f);
        ctx.dispatch(local, {&keys, &order}, lpush, lgroups);
        for (std::size_t k = 2 * b; k <= pn; k *= 2) {
            for (std::size_t j = k / 2; j >= b; j /= 2) {
                struct {
                    std::uint32_t lanes, p, k, j;
                } push{u32(lanes), u32(pn), u32(k), u32(j)};
                ctx.dispatch(step, {&keys, &order}, push, grid_1d(lanes * pn / 2, kWorkgroup, f));
            }
            lpush.k_lo = lpush.k_hi = u32(k);
            ctx.dispatch(local, {&keys, &order}, lpush, lgroups);
        }
    }
    {
        const auto& p = ctx.pipeline(
            {.shader = "index_sort_out", .spec = {kWorkgroup}, .bindings = 5, .push_bytes = 32});
        struct {
            std::uint32_t dim, n, lanes, p, inner, words, idx64, want_values;
        } push{u32(dim),
               u32(n),
               u32(lanes),
               u32(pn),
               u32(inner),
               words_of(t.dtype),
               index_dtype == DType::I64 ? 1u : 0u,
               want_values ? 1u : 0u};
        const Buffer& vb = want_values ? buffer_of(values) : buffer_of(indices);
        ctx.dispatch(p, {&metas, &buffer_of(t), &order, &vb, &buffer_of(indices)}, push,
                     grid_1d(lanes * n, kWorkgroup, f));
    }
    return {std::move(values), std::move(indices)};
}

}  // namespace

VulkanTensor Kernels::gather(std::size_t dim, VulkanTensor t, VulkanTensor indices) {
    assert(dim < t.rank() && indices.rank() == t.rank() && is_index_dtype(indices.dtype));
    for (std::size_t d = 0; d < t.rank(); ++d) assert(d == dim || indices.shape[d] <= t.shape[d]);
    VulkanTensor out = alloc(indices.shape, t.dtype, t.device);
    if (out.num_elements() == 0) return out;
    BURN_CHECK(t.shape[dim] > 0, "Vulkan gather: index out of bounds for dim ", dim,
               " with size 0");
    launch_gather("gather", t, indices, out, dim, meta(t), meta(indices), dim);
    return out;
}

VulkanTensor Kernels::scatter_add(std::size_t dim, VulkanTensor t, VulkanTensor indices,
                                  VulkanTensor values) {
    assert(dim < t.rank() && values.dtype == t.dtype && is_index_dtype(indices.dtype));
    assert(indices.rank() == t.rank() && values.rank() == t.rank());
    VulkanTensor out = alloc(t.shape, t.dtype, t.device);
    launch_scatter("scatter_add", &t, indices, values, out, dim, indices.shape[dim], 0, meta(t),
                   meta(indices), meta(values));
    return out;
}

VulkanTensor Kernels::select(VulkanTensor t, std::size_t dim, VulkanTensor indices) {
    assert(dim < t.rank() && indices.rank() == 1 && is_index_dtype(indices.dtype));
    Shape out_shape = t.shape;
    out_shape[dim] = indices.shape[0];
    VulkanTensor out = alloc(out_shape, t.dtype, t.device);
    if (out.num_elements() == 0) return out;
    launch_gather("select", t, indices, out, dim, meta(t),
                  select_index_meta(indices, out_shape, dim), dim);
    return out;
}

VulkanTensor Kernels::select_add(VulkanTensor t, std::size_t dim, VulkanTensor indices,
                                 VulkanTensor values) {
    assert(dim < t.rank() && indices.rank() == 1 && is_index_dtype(indices.dtype));
    assert(values.dtype == t.dtype && values.rank() == t.rank());
    Shape expected = t.shape;
    expected[dim] = indices.shape[0];
    VulkanTensor out = alloc(t.shape, t.dtype, t.device);
    launch_scatter("select_add", &t, indices, values, out, dim, indices.shape[0], 0, meta(t),
                   select_index_meta(indices, expected, dim), meta(values));
    return out;
}

std::pair<VulkanTensor, VulkanTensor> Kernels::sort(VulkanTensor t, std::size_t dim,
                                                    bool descending, DType index_dtype) {
    return sort_impl("sort", std::move(t), dim, descending, index_dtype, true);
}

VulkanTensor Kernels::argsort(VulkanTensor t, std::size_t dim, bool descending, DType index_dtype) {
    return sort_impl("argsort", std::move(t), dim, descending, index_dtype, false).second;
}

VulkanTensor Kernels::argwhere(VulkanTensor t, DType index_dtype) {
    assert(is_index_dtype(index_dtype));
    const std::size_t rank = t.rank();
    const std::size_t n = t.num_elements();
    check_u32("argwhere", n);
    std::size_t max_dim = 0;
    for (std::size_t d : t.shape) max_dim = std::max(max_dim, d);
    BURN_CHECK(index_dtype != DType::I32 || max_dim == 0 ||
                   max_dim - 1 <= std::numeric_limits<std::int32_t>::max(),
               "Vulkan argwhere: the index dtype ", dtype_name(index_dtype),
               " cannot hold the coordinates of shape ", t.shape);
    if (n == 0) return alloc(Shape{0, rank}, index_dtype, t.device);
    Context& ctx = context(t);
    constexpr std::size_t kBlock = 1024;
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    Buffer counts = ctx.allocate(blocks * 4);
    const Buffer metas = meta_buffer(ctx, {meta(t)});
    const auto& p =
        ctx.pipeline({.shader = "index_argwhere", .spec = {64}, .bindings = 4, .push_bytes = 24});
    struct {
        std::uint32_t n, block, blocks, pass, words, idx64;
    } push{u32(n), u32(kBlock),       u32(blocks),
           0u,     words_of(t.dtype), index_dtype == DType::I64 ? 1u : 0u};
    ctx.dispatch(p, {&metas, &buffer_of(t), &counts, &counts}, push,
                 grid_1d(blocks, 64, ctx.features()));
    const auto raw = ctx.read(counts, 0, blocks * 4);
    std::vector<std::uint32_t> offsets(blocks);
    std::uint64_t total = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        std::uint32_t c;
        std::memcpy(&c, raw.data() + 4 * b, 4);
        offsets[b] = static_cast<std::uint32_t>(total);
        total += c;
    }
    VulkanTensor out = alloc(Shape{static_cast<std::size_t>(total), rank}, index_dtype, t.device);
    if (total == 0 || rank == 0) return out;
    ctx.write(counts, std::as_bytes(std::span<const std::uint32_t>(offsets)));
    push.pass = 1;
    ctx.dispatch(p, {&metas, &buffer_of(t), &counts, &buffer_of(out)}, push,
                 grid_1d(blocks, 64, ctx.features()));
    return out;
}

VulkanTensor Kernels::embedding(VulkanTensor weights, VulkanTensor indices) {
    assert(weights.rank() == 2 && indices.rank() < Shape::max_rank);
    assert(is_index_dtype(indices.dtype));
    const std::size_t n = weights.shape[0], d = weights.shape[1];
    const bool scalar = indices.rank() == 0;
    if (scalar) {
        indices.shape = Shape{1};
        indices.strides[0] = 1;
    }
    Shape out_shape = indices.shape;
    out_shape.push_back(d);
    VulkanTensor out = alloc(out_shape, weights.dtype, weights.device);
    if (out.num_elements() > 0) {
        const std::size_t r = out_shape.rank();
        TensorMeta tm;  // the weights seen with the output's rank: [.., n, d], strides 0 before
        tm.rank = u32(r);
        tm.offset = static_cast<std::int32_t>(weights.offset);
        tm.numel = u32(weights.num_elements());
        for (std::size_t k = 0; k < r; ++k) tm.shape[k] = u32(out_shape[k]);
        tm.shape[r - 2] = u32(n);
        tm.strides[r - 2] = static_cast<std::int32_t>(weights.strides[0]);
        tm.strides[r - 1] = static_cast<std::int32_t>(weights.strides[1]);
        TensorMeta im = meta(indices);  // the indices with a trailing broadcast dim of size d
        im.rank = u32(r);
        im.numel = u32(out.num_elements());
        im.shape[r - 1] = u32(d);
        im.strides[r - 1] = 0;
        launch_gather("embedding", weights, indices, out, r - 2, tm, im, 0);
    }
    if (scalar) {
        out.shape = Shape{d};
        out.strides = contiguous_strides(out.shape);
    }
    return out;
}

VulkanTensor Kernels::embedding_backward(VulkanTensor weights, VulkanTensor grad,
                                         VulkanTensor indices) {
    const char* op = "embedding_backward";
    assert(weights.rank() == 2 && grad.dtype == weights.dtype && is_index_dtype(indices.dtype));
    assert(grad.rank() == indices.rank() + 1 && grad.shape[indices.rank()] == weights.shape[1]);
    VulkanTensor out = alloc(weights.shape, weights.dtype, weights.device);
    const TensorMeta om = meta(out);
    launch_scatter(op, nullptr, indices, grad, out, 0, indices.num_elements(), 1, om, meta(indices),
                   meta(grad));
    return out;
}

}  // namespace burn::vk

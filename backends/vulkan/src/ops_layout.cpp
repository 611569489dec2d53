// SPDX-License-Identifier: MIT OR Apache-2.0
// Layout family: strided copies (contiguous, cast, slice_assign, cat, repeat_dim:
// layout_copy_<src>_<dst>.comp reading and writing through TensorMeta), full and arange. The
// views themselves are host code of the kit (burn/backend/layout.hpp). Semantics follow the CPU
// backend (backends/cpu/src/storage.cpp, index.cpp).
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "burn/backend/widen.hpp"
#include "ops_common.hpp"

namespace burn::vk {
namespace {

constexpr std::uint32_t kWg = 256;  // workgroup size of the elementwise kernels

void require_int64(const VulkanDevice& device, DType dtype, const char* op) {
    if (dtype == DType::I64)
        BURN_CHECK(
            vulkan_device_info(device).features.shader_int64, "Vulkan ", op, ": ", device,
            " has no 64-bit integers in shaders (shaderInt64): use Vulkan<float, std::int32_t>");
}

/// A TensorMeta of `shape` with explicit strides and offset (a view of some buffer).
TensorMeta meta_of(const Shape& shape, const Strides& strides, std::int64_t offset) {
    TensorMeta m;
    m.rank = static_cast<std::uint32_t>(shape.rank());
    m.offset = static_cast<std::int32_t>(offset);
    m.numel = static_cast<std::uint32_t>(shape.num_elements());
    for (std::size_t d = 0; d < shape.rank(); ++d) {
        m.shape[d] = static_cast<std::uint32_t>(shape[d]);
        m.strides[d] = static_cast<std::int32_t>(strides[d]);
    }
    return m;
}

/// Rewrites two views of the same shape with fewer dims where both allow it (size-1 dims
/// dropped, an outer dim merged into the next when both views step over it contiguously), so
/// that the shader's index arithmetic has fewer div/mod steps (a dense copy becomes rank 1).
void coalesce(TensorMeta& a, TensorMeta& b) {
    std::uint32_t r = 0;
    std::uint32_t shape[8];
    std::int32_t sa[8], sb[8];
    for (std::uint32_t d = 0; d < a.rank; ++d) {
        const std::uint32_t n = a.shape[d];
        if (n == 1) continue;
        if (r > 0 &&
            static_cast<std::int64_t>(sa[r - 1]) == static_cast<std::int64_t>(a.strides[d]) * n &&
            static_cast<std::int64_t>(sb[r - 1]) == static_cast<std::int64_t>(b.strides[d]) * n) {
            shape[r - 1] *= n;
            sa[r - 1] = a.strides[d];
            sb[r - 1] = b.strides[d];
            continue;
        }
        shape[r] = n;
        sa[r] = a.strides[d];
        sb[r] = b.strides[d];
        ++r;
    }
    if (r == 0) {  // a single element
        shape[0] = 1;
        sa[0] = sb[0] = 0;
        r = 1;
    }
    a.rank = b.rank = r;
    for (std::uint32_t d = 0; d < 8; ++d) {
        a.shape[d] = b.shape[d] = d < r ? shape[d] : 0;
        a.strides[d] = d < r ? sa[d] : 0;
        b.strides[d] = d < r ? sb[d] : 0;
    }
}

/// Whether a dense copy of `bytes` runs as a kernel (layout_copy_words.comp) rather than
/// vkCmdCopyBuffer: on GPUs from 256 KiB on (NVIDIA's copy command reaches a third of a kernel's
/// bandwidth), never on CPU devices (lavapipe's copy command is far faster than its kernels).
/// BURN_VULKAN_COPY_KERNEL=1 forces the kernel, =0 the copy command (read at each copy; tests).
bool use_copy_kernel(const Context& ctx, std::size_t bytes) {
    if (const char* e = std::getenv("BURN_VULKAN_COPY_KERNEL"); e && *e)
        return std::string_view(e) != "0";
    return ctx.info().type != VulkanDeviceType::Cpu && bytes >= (std::size_t{256} << 10);
}

/// Records dst_view[i] = convert(src_view[i]) for every row-major position i of the views (same
/// shape, src_meta.numel elements). src and dst are buffers of dtypes `from` and `to`.
/// f32 <-> f16 / bf16 into a dense destination at offset 0 (cast's new tensor): halves are
/// stored two to a word, so the f32 -> half kernel writes whole words, two elements each.
void half_copy(Context& ctx, const Buffer& src, DType from, const TensorMeta& src_meta,
               const Buffer& dst, DType to, const TensorMeta& dst_meta) {
    bool dense_dst = dst_meta.offset == 0;  // row-major at offset 0, whatever the rank
    std::int64_t stride = 1;
    for (std::uint32_t d = dst_meta.rank; d-- > 0;) {
        if (dst_meta.shape[d] != 1 && dst_meta.strides[d] != stride) dense_dst = false;
        stride *= dst_meta.shape[d];
    }
    BURN_CHECK(dense_dst && (from == DType::F32 || to == DType::F32), "Vulkan: copying ", from,
               " to ", to, " (half types convert to and from f32, into new tensors)");
    const std::uint32_t n = src_meta.numel;
    const bool to_half = is_half(to);
    const DType half = to_half ? to : from;
    const std::string name =
        std::string(to_half ? "layout_half_from_f32_" : "layout_half_to_f32_") +
        (half == DType::F16 ? "f16" : "bf16");
    const auto& p = ctx.pipeline({.shader = name, .spec = {kWg}, .bindings = 3, .push_bytes = 4});
    const Buffer metas = meta_buffer(ctx, {src_meta, dst_meta});
    const std::uint64_t threads = to_half ? (std::uint64_t{n} + 1) / 2 : n;
    ctx.dispatch(p, {&metas, &src, &dst}, n, grid_1d(threads, kWg, ctx.features()));
}

void strided_copy(Context& ctx, const Buffer& src, DType from, TensorMeta src_meta,
                  const Buffer& dst, DType to, TensorMeta dst_meta) {
    const std::uint32_t n = src_meta.numel;
    if (n == 0) return;
    coalesce(src_meta, dst_meta);
    if (from != to && (is_half(from) || is_half(to))) {
        half_copy(ctx, src, from, src_meta, dst, to, dst_meta);
        return;
    }
    if (from == to && src_meta.rank == 1 && src_meta.strides[0] == 1 && dst_meta.strides[0] == 1) {
        // Both sides dense: a plain buffer copy, by a kernel where that is faster.
        const std::size_t es = device_element_size(from);
        const std::size_t bytes = std::size_t{n} * es;
        const std::size_t so = static_cast<std::size_t>(src_meta.offset) * es,
                          doff = static_cast<std::size_t>(dst_meta.offset) * es;
        if (use_copy_kernel(ctx, bytes) && bytes % 4 == 0 && so % 4 == 0 && doff % 4 == 0) {
            const std::uint32_t words = static_cast<std::uint32_t>(bytes / 4);
            const std::uint32_t sw = static_cast<std::uint32_t>(so / 4),
                                dw = static_cast<std::uint32_t>(doff / 4);
            const bool v4 = sw % 4 == 0 && dw % 4 == 0;
            struct {
                std::uint32_t n, src_off, dst_off, wide;
            } push{words, sw, dw, v4 ? 1u : 0u};
            const auto& p = ctx.pipeline(
                {.shader = "layout_copy_words", .spec = {kWg}, .bindings = 2, .push_bytes = 16});
            const std::uint64_t threads = v4 ? (std::uint64_t{words} + 3) / 4 : words;
            ctx.dispatch(p, {&src, &dst}, push, grid_1d(threads, kWg, ctx.features()));
            return;
        }
        ctx.copy(src, dst, bytes, so, doff);
        return;
    }
    const std::string name =
        std::string("layout_copy_") + dtype_suffix(from) + "_" + dtype_suffix(to);
    const auto& p = ctx.pipeline({.shader = name, .spec = {kWg}, .bindings = 3, .push_bytes = 4});
    const Buffer metas = meta_buffer(ctx, {src_meta, dst_meta});
    ctx.dispatch(p, {&metas, &src, &dst}, n, grid_1d(n, kWg, ctx.features()));
}

/// A new dense tensor of `dtype` holding t's values (always a copy).
VulkanTensor copy_to_new(const VulkanTensor& t, DType dtype, const char* op) {
    check_u32(op, t.num_elements());
    require_int64(t.device, dtype, op);
    VulkanTensor out = alloc(t.shape, dtype, t.device);
    strided_copy(context(t), buffer_of(t), t.dtype, meta(t), buffer_of(out), dtype, meta(out));
    return out;
}

void check_output_size(const Shape& shape, const char* op) { check_u32(op, shape.num_elements()); }

}  // namespace

// ------------------------------------------------------------------------------ full, copies

VulkanTensor Kernels::full(const Shape& shape, ScalarArg value, DType dtype,
                           const VulkanDevice& device) {
    check_u32("full", shape.num_elements());
    require_int64(device, dtype, "full");
    VulkanTensor t = alloc(shape, dtype, device);
    const std::size_t n = shape.num_elements();
    if (n == 0) return t;
    Context& ctx = context(device);
    switch (dtype) {
        case DType::F32: {
            const float v = static_cast<float>(value.f);
            std::uint32_t bits;
            std::memcpy(&bits, &v, 4);
            ctx.fill_u32(buffer_of(t), bits, n * 4);
            break;
        }
        case DType::I32:
            ctx.fill_u32(buffer_of(t),
                         static_cast<std::uint32_t>(static_cast<std::int32_t>(value.i)), n * 4);
            break;
        case DType::Bool:
            ctx.fill_u32(buffer_of(t), (value.f != 0.0 || value.i != 0) ? 1u : 0u, n * 4);
            break;
        case DType::I64: {
            const auto u = static_cast<std::uint64_t>(value.i);
            const auto lo = static_cast<std::uint32_t>(u), hi = static_cast<std::uint32_t>(u >> 32);
            if (lo == hi) {
                ctx.fill_u32(buffer_of(t), lo, n * 8);
            } else {
                const auto& p = ctx.pipeline(
                    {.shader = "layout_fill_u64", .spec = {kWg}, .bindings = 1, .push_bytes = 12});
                const std::array<std::uint32_t, 3> push{static_cast<std::uint32_t>(n), lo, hi};
                ctx.dispatch(p, {&buffer_of(t)}, push, grid_1d(n, kWg, ctx.features()));
            }
            break;
        }
        default:
            ::burn::detail::fail("Vulkan full: dtype ", dtype,
                                 " is not supported on Vulkan (f32, i32, i64, bool)");
    }
    return t;
}

VulkanTensor Kernels::contiguous(VulkanTensor t) {
    if (t.is_contiguous() && t.offset == 0) return t;
    return copy_to_new(t, t.dtype, "contiguous");
}

VulkanTensor Kernels::cast(VulkanTensor t, DType dtype) {
    if (t.dtype == dtype) return t;
    (void)device_element_size(dtype);  // unsupported dtypes: a clear message
    assert(dtype != DType::QInt8 && t.dtype != DType::QInt8);  // the adapter dequantizes first
    return copy_to_new(t, dtype, "cast");
}

// ------------------------------------------------------------------------------ writes

VulkanTensor Kernels::slice_assign(VulkanTensor t, std::span<const SliceRange> ranges,
                                   VulkanTensor values) {
    assert(values.dtype == t.dtype);
    // In place when t is the only owner of a dense buffer (values cannot alias it then).
    VulkanTensor out =
        t.is_unique() && t.is_contiguous() ? std::move(t) : copy_to_new(t, t.dtype, "slice_assign");
    backend::StridedLayout region = out;  // the view of the ranges (bounds asserted by view::slice)
    backend::view::slice(region, ranges);
    assert(values.shape == region.shape);
    if (region.num_elements() == 0) return out;
    check_u32("slice_assign", region.num_elements());
    strided_copy(context(out), buffer_of(values), values.dtype, meta(values), buffer_of(out),
                 out.dtype, meta_of(region.shape, region.strides, region.offset));
    return out;
}

VulkanTensor Kernels::cat(std::vector<VulkanTensor> tensors, std::size_t dim) {
    const Shape out_shape = backend::cat_shape(tensors, dim);
    const DType dtype = tensors[0].dtype;
    for ([[maybe_unused]] const VulkanTensor& x : tensors)
        assert(x.dtype == dtype && x.device == tensors[0].device);
    check_output_size(out_shape, "cat");
    if (tensors.size() == 1) return contiguous(std::move(tensors[0]));
    VulkanTensor out = alloc(out_shape, dtype, tensors[0].device);
    if (out.num_elements() == 0) return out;
    Context& ctx = context(out);
    std::int64_t acc = 0;
    for (const VulkanTensor& x : tensors) {
        strided_copy(ctx, buffer_of(x), dtype, meta(x), buffer_of(out), dtype,
                     meta_of(x.shape, out.strides, acc * out.strides[dim]));
        acc += static_cast<std::int64_t>(x.shape[dim]);
    }
    return out;
}

VulkanTensor Kernels::repeat_dim(VulkanTensor t, std::size_t dim, std::size_t times) {
    if (times == 1) return t;
    const Shape out_shape = backend::repeat_dim_shape(t.shape, dim, times);
    check_output_size(out_shape, "repeat_dim");
    VulkanTensor out = alloc(out_shape, t.dtype, t.device);
    if (out.num_elements() == 0) return out;
    Context& ctx = context(out);
    const std::int64_t block = static_cast<std::int64_t>(t.shape[dim]) * out.strides[dim];
    if (t.rank() < 8) {
        // One copy over [..., times, dim, ...], reading t with stride 0 on the new dim.
        TensorMeta src = meta(t), dst = meta(out);
        const std::size_t r = t.rank();
        for (std::size_t d = r; d > dim; --d) {
            src.shape[d] = src.shape[d - 1];
            src.strides[d] = src.strides[d - 1];
            dst.shape[d] = static_cast<std::uint32_t>(t.shape[d - 1]);
            dst.strides[d] = dst.strides[d - 1];
        }
        src.shape[dim] = static_cast<std::uint32_t>(times);
        src.strides[dim] = 0;
        dst.shape[dim] = static_cast<std::uint32_t>(times);
        dst.strides[dim] = static_cast<std::int32_t>(block);
        dst.strides[dim + 1] = static_cast<std::int32_t>(out.strides[dim]);
        src.rank = dst.rank = static_cast<std::uint32_t>(r + 1);
        src.numel = dst.numel = static_cast<std::uint32_t>(out.num_elements());
        strided_copy(ctx, buffer_of(t), t.dtype, src, buffer_of(out), out.dtype, dst);
    } else {
        for (std::size_t k = 0; k < times; ++k)
            strided_copy(ctx, buffer_of(t), t.dtype, meta(t), buffer_of(out), out.dtype,
                         meta_of(t.shape, out.strides, static_cast<std::int64_t>(k) * block));
    }
    return out;
}

VulkanTensor Kernels::arange(std::int64_t start, std::int64_t end, std::int64_t step, DType dtype,
                             const VulkanDevice& device) {
    const std::uint64_t n = backend::arange_length(start, end, step);
    check_u32("arange", n);
    const Shape shape{static_cast<std::size_t>(n)};
    require_int64(device, dtype, "arange");
    if (dtype != DType::I32 && dtype != DType::I64) {
        // Other dtypes: the int64 sequence converted (as the CPU backend), through an i64 or
        // i32 sequence and a cast.
        const DType via =
            vulkan_device_info(device).features.shader_int64 ? DType::I64 : DType::I32;
        (void)device_element_size(dtype);
        return cast(arange(start, end, step, via, device), dtype);
    }
    VulkanTensor out = alloc(shape, dtype, device);
    if (n == 0) return out;
    Context& ctx = context(device);
    if (dtype == DType::I32) {
        const auto& p = ctx.pipeline(
            {.shader = "layout_arange_i32", .spec = {kWg}, .bindings = 1, .push_bytes = 12});
        const std::array<std::uint32_t, 3> push{static_cast<std::uint32_t>(n),
                                                static_cast<std::uint32_t>(start),
                                                static_cast<std::uint32_t>(step)};
        ctx.dispatch(p, {&buffer_of(out)}, push, grid_1d(n, kWg, ctx.features()));
    } else {
        const auto& p = ctx.pipeline(
            {.shader = "layout_arange_i64", .spec = {kWg}, .bindings = 1, .push_bytes = 24});
        const auto us = static_cast<std::uint64_t>(start), ut = static_cast<std::uint64_t>(step);
        const std::array<std::uint32_t, 6> push{
            static_cast<std::uint32_t>(n),  0u,
            static_cast<std::uint32_t>(us), static_cast<std::uint32_t>(us >> 32),
            static_cast<std::uint32_t>(ut), static_cast<std::uint32_t>(ut >> 32)};
        ctx.dispatch(p, {&buffer_of(out)}, push, grid_1d(n, kWg, ctx.features()));
    }
    return out;
}

}  // namespace burn::vk

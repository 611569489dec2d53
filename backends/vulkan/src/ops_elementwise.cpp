// SPDX-License-Identifier: MIT OR Apache-2.0
// Element-wise ops: unary maps, binary arithmetic with broadcasting (tensor-tensor and
// tensor-scalar), comparisons, is_nan, clamp and the masked selects, with the CPU backend's
// semantics (burn::cpu:: in backends/cpu/src/{unary,elementwise,compare}.cpp). Shaders:
// kernels/vulkan/elementwise_{unary,test,binary,compare,where}_<dtype>.comp over the bodies
// elementwise_*.glsl. Inputs are read through TensorMetas (any view); operands dense at offset 0
// are read directly, and when every operand is, no TensorMeta is uploaded at all. The output is new
// and dense, or the first input itself when it is unique, dense, at offset 0 and of the output's
// shape and dtype (in place, as the CPU backend does).
//
// Operands of different dtypes are converted as the CPU backend does (binary: rhs to lhs's dtype;
// compare: to the common dtype; mask_where: value to t's dtype; masks to bool) through cast.
// Differences from the CPU backend: integer division / remainder by a zero TENSOR element gives
// 0 and a negative element of an integer power tensor gives 0 (the CPU backend throws; a shader
// cannot without a synchronisation; the scalar forms check on the host and throw as the CPU
// backend does).
#include "ops_elementwise.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include "ops_common.hpp"

namespace burn::vk {

namespace ew {

std::uint32_t float_bits(double v) { return std::bit_cast<std::uint32_t>(static_cast<float>(v)); }

void set_scalar(Push& p, DType dt, ScalarArg s, std::uint32_t slot) {
    std::uint32_t* w = p.param + slot;
    switch (dt) {
        case DType::F32: w[0] = float_bits(s.f); break;
        case DType::I32: w[0] = static_cast<std::uint32_t>(static_cast<std::int32_t>(s.i)); break;
        case DType::I64:
            w[0] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(s.i));
            w[1] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(s.i) >> 32);
            break;
        case DType::Bool: w[0] = (s.f != 0.0 || s.i != 0) ? 1u : 0u; break;
        default: break;
    }
}

void check_dtype(const char* op, DType dt) {
    BURN_CHECK(dt == DType::F32 || dt == DType::I32 || dt == DType::I64 || dt == DType::Bool,
               "Vulkan ", op, ": unsupported dtype ", dt, " (f32, i32, i64, bool)");
}

bool dense_as(const VulkanTensor& t, std::size_t n) {
    return t.is_contiguous() && t.num_elements() == n && t.offset == 0;
}

MetaBinding metas_if(bool needed, Context& ctx, std::initializer_list<TensorMeta> records,
                     const Buffer& fallback) {
    MetaBinding m;
    m.fallback = &fallback;
    if (needed) m.owned = meta_buffer(ctx, records);
    return m;
}

bool reusable(const VulkanTensor& t, const Shape& shape, DType dtype) {
    return t.is_unique() && t.dtype == dtype && t.shape == shape && t.is_contiguous() &&
           t.offset == 0 && !t.qinfo;
}

VulkanTensor output_for(const VulkanTensor& t, const Shape& shape, DType dtype) {
    return reusable(t, shape, dtype) ? t : alloc(shape, dtype, t.device);
}

void launch(const char* op, const std::string& shader, std::initializer_list<const Buffer*> buffers,
            Push push, std::uint64_t n, const VulkanDevice& device) {
    if (n == 0) return;
    check_u32(op, n);
    push.n = static_cast<std::uint32_t>(n);
    Context& ctx = context(device);
    // kItems elements per thread (index.glsl, BURN_EW_ITEMS) on large tensors: fewer, longer
    // threads with several loads in flight each.
    const std::uint32_t items = n >= (std::uint64_t{1} << 20) ? kItems : 1u;
    const auto& p = ctx.pipeline({.shader = shader,
                                  .spec = {kWorkgroup, items},
                                  .bindings = static_cast<std::uint32_t>(buffers.size()),
                                  .push_bytes = sizeof(Push)});
    ctx.dispatch(p, buffers, push, grid_1d((n + items - 1) / items, kWorkgroup, ctx.features()));
}

}  // namespace ew

using namespace ew;  // NOLINT(google-build-using-namespace): this file's helpers

namespace {

std::string variant(const char* base, DType dt) {
    return std::string(base) + "_" + dtype_suffix(dt);
}

/// out = op(t) with the unary shader (op code `code`, clamp bounds already in push).
VulkanTensor run_unary(const char* name, VulkanTensor t, std::uint32_t code, Push push) {
    const std::size_t n = t.num_elements();
    VulkanTensor out = output_for(t, t.shape, t.dtype);
    if (n == 0) return out;
    push.op = code;
    push.flags = dense_as(t, n) ? 1u : 0u;
    const auto metas = metas_if(push.flags != 1u, context(t), {meta(t)}, buffer_of(t));
    launch(name, variant("elementwise_unary", t.dtype),
           {metas.get(), &buffer_of(t), &buffer_of(out)}, push, n, t.device);
    return out;
}

/// Bool output of a test on every element (0: == 0, 1: is NaN).
VulkanTensor run_test(const char* name, VulkanTensor t, std::uint32_t code) {
    const std::size_t n = t.num_elements();
    VulkanTensor out = output_for(t, t.shape, DType::Bool);
    if (n == 0) return out;
    Push push{};
    push.op = code;
    push.flags = dense_as(t, n) ? 1u : 0u;
    const auto metas = metas_if(push.flags != 1u, context(t), {meta(t)}, buffer_of(t));
    launch(name, variant("elementwise_test", t.dtype),
           {metas.get(), &buffer_of(t), &buffer_of(out)}, push, n, t.device);
    return out;
}

/// Common dtype of two operands of a comparison (the CPU backend's rule): floats win, bool
/// loses, else the wider integer.
DType promote(DType a, DType b) {
    if (a == b) return a;
    if (is_float(a) || is_float(b)) return is_float(a) ? a : b;
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    return dtype_size(a) >= dtype_size(b) ? a : b;
}

/// Whether `shader` is integer arithmetic (elementwise_binary_i32/i64: binds the error words).
bool int_arith(const char* shader, DType dt) {
    return std::string_view(shader) == "elementwise_binary" &&
           (dt == DType::I32 || dt == DType::I64);
}

/// Tensor-tensor binary shader (arithmetic or compare) into a new or reused output.
VulkanTensor run_binary(const char* name, const char* shader, std::uint32_t code, VulkanTensor lhs,
                        VulkanTensor rhs, DType out_dtype) {
    const Shape shape = broadcast_shapes(lhs.shape, rhs.shape, name);
    const std::size_t n = shape.num_elements();
    VulkanTensor out = reusable(lhs, shape, out_dtype)   ? lhs
                       : reusable(rhs, shape, out_dtype) ? rhs
                                                         : alloc(shape, out_dtype, lhs.device);
    if (n == 0) return out;
    check_u32(name, n);
    Push push{};
    push.op = code;
    push.flags = (dense_as(lhs, n) ? 1u : 0u) | (dense_as(rhs, n) ? 2u : 0u);
    const auto metas =
        metas_if(push.flags != 3u, context(lhs),
                 {meta_broadcast(lhs, shape), meta_broadcast(rhs, shape)}, buffer_of(lhs));
    if (int_arith(shader, lhs.dtype)) {  // reports division / remainder by zero
        Context& ctx = context(lhs);
        push.pad0 = ctx.error_op(name);
        launch(
            name, variant(shader, lhs.dtype),
            {metas.get(), &buffer_of(lhs), &buffer_of(rhs), &buffer_of(out), &ctx.error_buffer()},
            push, n, lhs.device);
        return out;
    }
    launch(name, variant(shader, lhs.dtype),
           {metas.get(), &buffer_of(lhs), &buffer_of(rhs), &buffer_of(out)}, push, n, lhs.device);
    return out;
}

/// Tensor-scalar binary shader.
VulkanTensor run_binary_scalar(const char* name, const char* shader, std::uint32_t code,
                               VulkanTensor lhs, ScalarArg rhs, DType out_dtype) {
    const std::size_t n = lhs.num_elements();
    VulkanTensor out = output_for(lhs, lhs.shape, out_dtype);
    if (n == 0) return out;
    Push push{};
    push.op = code;
    push.flags = (dense_as(lhs, n) ? 1u : 0u) | 4u;
    set_scalar(push, lhs.dtype, rhs, 0);
    const Buffer& a = buffer_of(lhs);
    const auto metas = metas_if((push.flags & 1u) == 0u, context(lhs), {meta(lhs)}, a);
    if (int_arith(shader, lhs.dtype)) {  // binds the error words (a zero scalar throws above)
        Context& ctx = context(lhs);
        push.pad0 = ctx.error_op(name);
        launch(name, variant(shader, lhs.dtype),
               {metas.get(), &a, &a, &buffer_of(out), &ctx.error_buffer()}, push, n, lhs.device);
        return out;
    }
    launch(name, variant(shader, lhs.dtype), {metas.get(), &a, &a, &buffer_of(out)}, push, n,
           lhs.device);
    return out;
}

VulkanTensor bool_mask(VulkanTensor mask) {
    if (mask.dtype == DType::Bool) return mask;
    return Kernels::compare_scalar(CmpOp::Ne, std::move(mask), ScalarArg::of(std::int64_t{0}));
}

/// out = mask ? (value or the scalar) : t.
VulkanTensor run_where(const char* name, VulkanTensor t, VulkanTensor mask,
                       const VulkanTensor* value, ScalarArg scalar) {
    const std::size_t n = t.num_elements();
    VulkanTensor out = output_for(t, t.shape, t.dtype);
    if (n == 0) return out;
    check_u32(name, n);
    Push push{};
    push.flags = (dense_as(t, n) ? 1u : 0u) | (dense_as(mask, n) ? 2u : 0u);
    if (value) push.flags |= dense_as(*value, n) ? 4u : 0u;
    else {
        push.flags |= 8u;
        set_scalar(push, t.dtype, scalar, 0);
    }
    const Buffer& tb = buffer_of(t);
    const bool needed = (push.flags & 3u) != 3u || (value && (push.flags & 4u) == 0u);
    const auto metas = metas_if(needed, context(t),
                                {meta(t), meta_broadcast(mask, t.shape),
                                 value ? meta_broadcast(*value, t.shape) : TensorMeta{}},
                                tb);
    launch(name, variant("elementwise_where", t.dtype),
           {metas.get(), &tb, &buffer_of(mask), value ? &buffer_of(*value) : &tb, &buffer_of(out)},
           push, n, t.device);
    return out;
}

}  // namespace

VulkanTensor Kernels::unary(UnaryOp op, VulkanTensor t) {
    const char* name = backend::op_name(op);
    const DType dt = t.dtype;
    check_dtype(name, dt);
    if (op == UnaryOp::Not) return run_test(name, std::move(t), 0);
    if (!is_float(dt)) {
        assert(dt != DType::Bool);
        if (op == UnaryOp::Round || op == UnaryOp::Floor || op == UnaryOp::Ceil)
            return t;  // integers are already integral
        // The other maps are float-only ops: the Tensor layer gives them float tensors.
        assert(op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Sign);
    }
    return run_unary(name, std::move(t), static_cast<std::uint32_t>(op), Push{});
}

VulkanTensor Kernels::is_nan(VulkanTensor t) {
    check_dtype("is_nan", t.dtype);
    if (!is_float(t.dtype)) {
        VulkanTensor out = alloc(t.shape, DType::Bool, t.device);
        if (out.num_elements() > 0) context(t).fill_u32(buffer_of(out), 0u, out.num_elements() * 4);
        return out;
    }
    return run_test("is_nan", std::move(t), 1);
}

VulkanTensor Kernels::clamp(VulkanTensor t, std::optional<ScalarArg> lo,
                            std::optional<ScalarArg> hi) {
    if (!lo && !hi) return t;
    const DType dt = t.dtype;
    check_dtype("clamp", dt);
    assert(dt != DType::Bool);
    Push push{};
    if (dt == DType::F32) {
        using L = std::numeric_limits<float>;
        push.param[0] = float_bits(lo ? lo->f : -L::infinity());
        push.param[1] = float_bits(hi ? hi->f : L::infinity());
    } else {
        // Bounds outside the type's range saturate instead of wrapping.
        const bool i32 = dt == DType::I32;
        const std::int64_t tmin = i32 ? std::numeric_limits<std::int32_t>::min()
                                      : std::numeric_limits<std::int64_t>::min();
        const std::int64_t tmax = i32 ? std::numeric_limits<std::int32_t>::max()
                                      : std::numeric_limits<std::int64_t>::max();
        const std::int64_t l = lo ? std::clamp(lo->i, tmin, tmax) : tmin;
        const std::int64_t h = hi ? std::clamp(hi->i, tmin, tmax) : tmax;
        set_scalar(push, dt, ScalarArg::of(l), 0);
        set_scalar(push, dt, ScalarArg::of(h), i32 ? 1 : 2);
    }
    return run_unary("clamp", std::move(t), 100, push);
}

VulkanTensor Kernels::binary(BinaryOp op, VulkanTensor lhs, VulkanTensor rhs) {
    const char* name = backend::op_name(op);
    check_dtype(name, lhs.dtype);
    if (rhs.dtype != lhs.dtype) rhs = cast(std::move(rhs), lhs.dtype);
    const DType dt = lhs.dtype;
    assert((dt == DType::Bool) == (op == BinaryOp::And || op == BinaryOp::Or));
    return run_binary(name, "elementwise_binary", static_cast<std::uint32_t>(op), std::move(lhs),
                      std::move(rhs), dt);
}

VulkanTensor Kernels::binary_scalar(BinaryOp op, VulkanTensor lhs, ScalarArg rhs) {
    const char* name = backend::op_name(op);
    const DType dt = lhs.dtype;
    check_dtype(name, dt);
    assert((dt == DType::Bool) == (op == BinaryOp::And || op == BinaryOp::Or));
    if (op == BinaryOp::Pow && is_float(dt)) {
        // x^p for common exponents as cheaper maps, as the CPU backend (and PyTorch) does.
        const double p = rhs.f;
        if (p == 1.0) return lhs;
        if (p == 0.5) return unary(UnaryOp::Sqrt, std::move(lhs));
        if (p == -1.0) return unary(UnaryOp::Recip, std::move(lhs));
    }
    if (!is_float(dt) && dt != DType::Bool) {
        const std::int64_t v = dt == DType::I32 ? static_cast<std::int32_t>(rhs.i) : rhs.i;
        if (op == BinaryOp::Pow && rhs.i < 0) detail::fail("powi: negative integer exponent");
        if (v == 0 && op == BinaryOp::Div) detail::fail("div: integer division by zero");
        if (v == 0 && op == BinaryOp::Rem) detail::fail("remainder: integer division by zero");
    }
    return run_binary_scalar(name, "elementwise_binary", static_cast<std::uint32_t>(op),
                             std::move(lhs), rhs, dt);
}

VulkanTensor Kernels::compare(CmpOp op, VulkanTensor lhs, VulkanTensor rhs) {
    const DType dt = promote(lhs.dtype, rhs.dtype);
    check_dtype("compare", dt);
    if (lhs.dtype != dt) lhs = cast(std::move(lhs), dt);
    if (rhs.dtype != dt) rhs = cast(std::move(rhs), dt);
    return run_binary("compare", "elementwise_compare", static_cast<std::uint32_t>(op),
                      std::move(lhs), std::move(rhs), DType::Bool);
}

VulkanTensor Kernels::compare_scalar(CmpOp op, VulkanTensor lhs, ScalarArg rhs) {
    const DType dt = lhs.dtype;
    check_dtype("compare", dt);
    if (dt == DType::I32) {
        // An integer scalar outside i32 compares the same way with every element.
        const bool above = rhs.i > std::numeric_limits<std::int32_t>::max();
        const bool below = rhs.i < std::numeric_limits<std::int32_t>::min();
        if (above || below) {
            bool r = false;
            switch (op) {
                case CmpOp::Eq: r = false; break;
                case CmpOp::Ne: r = true; break;
                case CmpOp::Gt:
                case CmpOp::Ge: r = below; break;
                case CmpOp::Lt:
                case CmpOp::Le: r = above; break;
            }
            VulkanTensor out = alloc(lhs.shape, DType::Bool, lhs.device);
            if (out.num_elements() > 0)
                context(lhs).fill_u32(buffer_of(out), r ? 1u : 0u, out.num_elements() * 4);
            return out;
        }
    }
    return run_binary_scalar("compare", "elementwise_compare", static_cast<std::uint32_t>(op),
                             std::move(lhs), rhs, DType::Bool);
}

VulkanTensor Kernels::mask_where(VulkanTensor t, VulkanTensor mask, VulkanTensor value) {
    assert(backend::broadcasts_to(mask.shape, t.shape) &&
           backend::broadcasts_to(value.shape, t.shape));
    check_dtype("mask_where", t.dtype);
    if (value.dtype != t.dtype) value = cast(std::move(value), t.dtype);
    mask = bool_mask(std::move(mask));
    return run_where("mask_where", std::move(t), std::move(mask), &value, ScalarArg{});
}

VulkanTensor Kernels::mask_fill(VulkanTensor t, VulkanTensor mask, ScalarArg value) {
    assert(backend::broadcasts_to(mask.shape, t.shape));
    check_dtype("mask_fill", t.dtype);
    mask = bool_mask(std::move(mask));
    return run_where("mask_fill", std::move(t), std::move(mask), nullptr, value);
}

}  // namespace burn::vk

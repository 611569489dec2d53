// SPDX-License-Identifier: MIT OR Apache-2.0
// Element-wise ops: full, contiguous, cast, arange, unary maps, is_nan, clamp, binary arithmetic
// with broadcasting (tensor-tensor and tensor-scalar), comparisons and the masked selects, with
// the CPU backend's semantics (backends/cpu/src/{storage,unary,elementwise,compare,index}.cpp).
// Kernels: kernels/cuda/elementwise.cu.
//
// Every kernel has a dense path (every operand a plain array of the output's element count:
// 16-byte vector accesses) and a strided one (operands read through Metas broadcast to the output
// shape, with the dims that are contiguous in every operand merged, so most views have rank 1 or
// 2). The output is the first input (or the second) when it is unique, dense and of the output's
// shape and dtype, as the CPU backend does, else a new dense tensor.
//
// Operands of different dtypes are converted as the CPU backend does (binary: rhs to lhs's dtype;
// compare: to the common dtype; mask_where: value to t's dtype, masks to bool). Integer division
// or remainder by a zero tensor element and integer powers with a negative tensor exponent are
// found by the kernel and reported at the next read (the CPU backend throws at once); the scalar
// forms are checked on the host and throw at once. Deviations from the CPU backend: float maps
// use CUDA's math library (exp, log, erf, tanh, sin, cos, pow are within a few ulp of the CPU's,
// not bitwise equal); contiguous keeps the quantization info of a quantized tensor.
//
// f16 and bf16 run natively in the element-wise kernels, the activations and `full` (the
// computes_half list of burn/backend/cuda/kernels.hpp): the kernels read the half values, compute
// in f32 and round once, so they give what f32 kernels between two casts give, in one pass; their
// scalars are passed as f32.
//
// Also here: the fused activations and their backward kernels (backends/cpu/src/activation.cpp;
// kernels/cuda/activation.cu) and the one-pass Adam step (backends/cpu/src/optim.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "burn/backend/widen.hpp"
#include "ops_common.hpp"

namespace burn::cuda {

namespace ew {
namespace {

constexpr const char* kProgram = "elementwise";
constexpr const char* kActivationProgram = "activation";

// ------------------------------------------------------------------------------------------------
// Operands
// ------------------------------------------------------------------------------------------------

/// The Metas of K views seen as `shape` (collapse_metas, ops_common.hpp).
template <std::size_t K>
std::array<Meta, K> metas(const Shape& shape,
                          const std::array<const backend::StridedLayout*, K>& views) {
    std::array<Meta, K> m;
    collapse_metas(shape, views, m.data());
    return m;
}

/// Dense with the output's element count: element i of the output is element i of the array.
bool flat(const CudaTensor& t, std::size_t n) { return is_dense(t) && t.num_elements() == n; }

/// lhs when it can hold the output, else rhs, else a new tensor.
CudaTensor output_of(const CudaTensor& lhs, const CudaTensor& rhs, const Shape& shape,
                     DType dtype) {
    if (reusable(lhs, shape, dtype)) return lhs;
    if (reusable(rhs, shape, dtype)) return rhs;
    return alloc(shape, dtype, lhs.device);
}

/// Calls f with the value of `s` in the element type of `dtype` (as the CPU backend's scalar_as:
/// floats read .f, ints .i, bool is "non-zero").
template <class F>
decltype(auto) with_scalar(DType dtype, backend::ScalarArg s, const char* op, F&& f) {
    switch (dtype) {
        case DType::F32:
        case DType::F16:
        case DType::BF16: return f(static_cast<float>(s.f));  // half kernels take f32 scalars
        case DType::F64: return f(s.f);
        case DType::I32: return f(static_cast<std::int32_t>(s.i));
        case DType::I64: return f(s.i);
        case DType::Bool: return f(static_cast<std::uint8_t>(s.f != 0.0 || s.i != 0));
        default: break;
    }
    ::burn::detail::fail("Cuda ", op, ": unsupported dtype ", dtype,
                         " (f32, f64, f16, bf16, i32, i64, bool)");
}

bool cuda_float(DType d) { return d == DType::F32 || d == DType::F64 || is_half(d); }
bool cuda_int(DType d) { return d == DType::I32 || d == DType::I64; }

void check_numeric(const char* op, DType d) {
    BURN_CHECK(cuda_float(d) || cuda_int(d), "Cuda ", op, ": unsupported dtype ", d,
               " (f32, f64, f16, bf16, i32, i64)");
}
void check_storage(const char* op, DType d) {
    BURN_CHECK(cuda_float(d) || cuda_int(d) || d == DType::Bool, "Cuda ", op,
               ": unsupported dtype ", d, " (f32, f64, f16, bf16, i32, i64, bool)");
}
void check_float(const char* op, DType d) {
    BURN_CHECK(cuda_float(d), "Cuda ", op, ": expected a float tensor (f32, f64, f16, bf16), got ",
               d);
}

// ------------------------------------------------------------------------------------------------
// Launchers
// ------------------------------------------------------------------------------------------------

/// out = f(t) by `kernel` of `program`: arguments (t, its Meta, out, n, dense, extra...).
template <class... A>
void map1_of(const char* program, const std::string& kernel, const CudaTensor& t,
             const CudaTensor& out, const A&... extra) {
    const std::size_t n = out.num_elements();
    if (n == 0) return;
    const int dense = flat(t, n) ? 1 : 0;
    const Meta m = dense ? Meta{} : metas<1>(out.shape, {&t})[0];
    launch_1d(context(out), program, kernel, n, first(t), m, first(out),
              static_cast<std::int64_t>(n), dense, extra...);
}
template <class... A>
void run_map1(const std::string& kernel, const CudaTensor& t, const CudaTensor& out,
              const A&... extra) {
    map1_of(kProgram, kernel, t, out, extra...);
}

/// The two operand metas of a binary kernel (unused when dense).
struct Binary {
    int dense = 0;
    std::array<Meta, 2> m{};
};
Binary binary_args(const CudaTensor& a, const CudaTensor& b, const Shape& shape) {
    const std::size_t n = shape.num_elements();
    Binary r;
    r.dense = flat(a, n) && flat(b, n) ? 1 : 0;
    if (!r.dense) r.m = metas<2>(shape, {&a, &b});
    return r;
}

// ------------------------------------------------------------------------------------------------
// Op codes (kernels/cuda/elementwise.cu's BURN_U_*, BURN_B_*, BURN_C_*)
// ------------------------------------------------------------------------------------------------

enum UnaryCode : int {
    kNeg = 0,
    kAbs = 1,
    kSign = 2,
    kSquare = 3,
    kSqrt = 4,
    kRecip = 5,
    kRound = 6,
    kFloor = 7,
    kCeil = 8
};
enum ArithCode : int { kAdd = 0, kSub = 1, kMul = 2, kMax = 3, kMin = 4, kAnd = 0, kOr = 1 };

int cmp_code(backend::CmpOp op) {
    switch (op) {
        case backend::CmpOp::Eq: return 0;
        case backend::CmpOp::Ne: return 1;
        case backend::CmpOp::Gt: return 2;
        case backend::CmpOp::Ge: return 3;
        case backend::CmpOp::Lt: return 4;
        case backend::CmpOp::Le: return 5;
    }
    return 0;
}

/// The kernel of a map of UnaryOp (unary_basic with a code, or a kernel of its own).
struct UnaryKernel {
    const char* name;  ///< "unary_basic" or "unary_<op>"
    int code;          ///< the op code of unary_basic, -1 for the others
};
UnaryKernel unary_kernel(backend::UnaryOp op) {
    using U = backend::UnaryOp;
    switch (op) {
        case U::Neg: return {"unary_basic", kNeg};
        case U::Abs: return {"unary_basic", kAbs};
        case U::Sign: return {"unary_basic", kSign};
        case U::Sqrt: return {"unary_basic", kSqrt};
        case U::Recip: return {"unary_basic", kRecip};
        case U::Round: return {"unary_basic", kRound};
        case U::Floor: return {"unary_basic", kFloor};
        case U::Ceil: return {"unary_basic", kCeil};
        case U::Exp: return {"unary_exp", -1};
        case U::Log: return {"unary_log", -1};
        case U::Log1p: return {"unary_log1p", -1};
        case U::Erf: return {"unary_erf", -1};
        case U::Sin: return {"unary_sin", -1};
        case U::Cos: return {"unary_cos", -1};
        case U::Tanh: return {"unary_tanh", -1};
        case U::Not: break;
    }
    return {"unary_not", -1};
}

/// The kernel of a BinaryOp ("arith" with a code, "div", "remainder", "pow", "logic").
struct BinaryKernel {
    const char* name;
    int code;
};
BinaryKernel binary_kernel(backend::BinaryOp op) {
    using B = backend::BinaryOp;
    switch (op) {
        case B::Add: return {"arith", kAdd};
        case B::Sub: return {"arith", kSub};
        case B::Mul: return {"arith", kMul};
        case B::Max: return {"arith", kMax};
        case B::Min: return {"arith", kMin};
        case B::Div: return {"div", 0};
        case B::Rem: return {"remainder", 0};
        case B::Pow: return {"pow", 0};
        case B::And: return {"logic", kAnd};
        case B::Or: return {"logic", kOr};
    }
    return {"arith", kAdd};
}

/// Binary ops take bool operands exactly when they are logical.
void check_binary_dtype(backend::BinaryOp op, DType dt) {
    const char* name = backend::op_name(op);
    if (op == backend::BinaryOp::And || op == backend::BinaryOp::Or)
        BURN_CHECK(dt == DType::Bool, "Cuda ", name, ": expected bool tensors, got ", dt);
    else check_numeric(name, dt);
}

/// The error tag of a binary op's kernel-side failures: integer division by zero, negative integer
/// exponents (0, unused, for the ops that cannot fail).
std::uint32_t binary_tag(Context& ctx, backend::BinaryOp op, DType dt) {
    using B = backend::BinaryOp;
    if (!cuda_int(dt) || (op != B::Div && op != B::Rem && op != B::Pow)) return 0;
    if (op == B::Pow) return ctx.error_tag("powi");
    return ctx.error_tag(backend::op_name(op));
}

/// Common dtype of two operands of a comparison (the CPU backend's promote): floats win (f64 over
/// f32), bool loses, else the wider integer.
DType promote(DType a, DType b) {
    if (a == b) return a;
    if (cuda_float(a) || cuda_float(b)) {
        if (a == DType::F64 || b == DType::F64) return DType::F64;
        // A half type with anything else but itself compares in f32 (as the kernel set's callers
        // converted such operands before the half kernels existed).
        if (is_half(a) || is_half(b)) return DType::F32;
        return cuda_float(a) ? a : b;
    }
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    if (dtype_size(a) != dtype_size(b)) return dtype_size(a) > dtype_size(b) ? a : b;
    return a;
}

CudaTensor bool_mask(CudaTensor mask) {
    if (mask.dtype == DType::Bool) return mask;
    return Kernels::cast(std::move(mask), DType::Bool);
}

/// The output size check of the CPU backend (bytes within 2^62).
void check_output_size(std::uint64_t n, DType dtype, const char* op) {
    const std::uint64_t size = element_size(dtype, op);
    BURN_CHECK(n <= (std::uint64_t{1} << 62) / size, "Cuda ", op, ": the output has too many (", n,
               ") elements");
}

}  // namespace
}  // namespace ew

using namespace ew;  // NOLINT(google-build-using-namespace): this file's helpers

// ------------------------------------------------------------------------------------------------
// Creation and copies
// ------------------------------------------------------------------------------------------------

CudaTensor Kernels::full(const Shape& shape, ScalarArg value, DType dtype,
                         const CudaDevice& device) {
    const std::size_t size = element_size(dtype, "full");
    CudaTensor t = alloc(shape, dtype, device);
    const std::size_t n = shape.num_elements();
    if (n == 0) return t;
    // The element's bits, as the CPU backend converts the value (bool: non-zero).
    std::uint64_t bits = 0;
    switch (dtype) {
        case DType::F32: {
            const auto v = static_cast<float>(value.f);
            std::memcpy(&bits, &v, 4);
            break;
        }
        case DType::F64: std::memcpy(&bits, &value.f, 8); break;
        case DType::I32:
            bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(value.i));
            break;
        case DType::F16: bits = f16(static_cast<float>(value.f)).bits; break;
        case DType::BF16: bits = bf16(static_cast<float>(value.f)).bits; break;
        case DType::I64: bits = static_cast<std::uint64_t>(value.i); break;
        case DType::Bool: bits = (value.f != 0.0 || value.i != 0) ? 1 : 0; break;
        default: bits = static_cast<std::uint8_t>(static_cast<std::int8_t>(value.i)); break;
    }
    Context& ctx = context(device);
    bool bytewise = true;  // every byte of the element the same: a memset
    for (std::size_t b = 1; b < size; ++b) bytewise &= ((bits >> (8 * b)) & 0xff) == (bits & 0xff);
    if (bytewise) {
        ctx.activate();
        check(cudaMemsetAsync(first(t), static_cast<int>(bits & 0xff), n * size, ctx.stream()),
              "full");
        return t;
    }
    const auto count = static_cast<std::int64_t>(n);
    if (size == 2) {
        const auto v = static_cast<std::int16_t>(static_cast<std::uint16_t>(bits));
        launch_1d(ctx, kProgram, "fill_i16", n, first(t), count, v);
    } else if (size == 4) {
        const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
        launch_1d(ctx, kProgram, "fill_i32", n, first(t), count, v);
    } else {
        const auto v = static_cast<std::int64_t>(bits);
        launch_1d(ctx, kProgram, "fill_i64", n, first(t), count, v);
    }
    return t;
}

CudaTensor Kernels::contiguous(CudaTensor t) {
    if (is_dense(t)) return t;
    CudaTensor out = alloc(t.shape, t.dtype, t.device);
    out.qinfo = t.qinfo;
    run_map1(variant("copy", bits_dtype(t.dtype)), t, out);
    return out;
}

CudaTensor Kernels::cast(CudaTensor t, DType dtype) {
    if (t.dtype == dtype) return t;
    check_storage("cast", t.dtype);
    check_storage("cast", dtype);
    // The kernels convert f16 / bf16 to and from f32; the other conversions of a half type go
    // through f32, which is exact or rounds as a direct conversion does (backend/widen.hpp).
    if ((is_half(t.dtype) || is_half(dtype)) && t.dtype != DType::F32 && dtype != DType::F32)
        return cast(cast(std::move(t), DType::F32), dtype);
    CudaTensor out = alloc(t.shape, dtype, t.device);
    run_map1(variant((std::string("cast_") + dtype_suffix(t.dtype)).c_str(), dtype), t, out);
    return out;
}

CudaTensor Kernels::arange(std::int64_t start, std::int64_t end, std::int64_t step, DType dtype,
                           const CudaDevice& device) {
    check_storage("arange", dtype);
    const std::uint64_t n = backend::arange_length(start, end, step);
    check_output_size(n, dtype, "arange");
    CudaTensor out = alloc(Shape{static_cast<std::size_t>(n)}, dtype, device);
    launch_1d(context(device), kProgram, variant("arange", dtype), n, first(out),
              static_cast<std::int64_t>(n), start, step);
    return out;
}

// ------------------------------------------------------------------------------------------------
// Unary maps, is_nan, clamp
// ------------------------------------------------------------------------------------------------

CudaTensor Kernels::unary(UnaryOp op, CudaTensor t) {
    const char* name = backend::op_name(op);
    const DType dt = t.dtype;
    if (op == UnaryOp::Not) {
        check_storage(name, dt);
        CudaTensor out = output_for(t, t.shape, DType::Bool);
        run_map1(variant("unary_not", dt), t, out);
        return out;
    }
    check_numeric(name, dt);
    const UnaryKernel k = unary_kernel(op);
    if (!cuda_float(dt)) {
        if (op == UnaryOp::Round || op == UnaryOp::Floor || op == UnaryOp::Ceil)
            return t;  // integers are already integral
        BURN_CHECK(op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Sign, "Cuda ", name,
                   ": expected a float tensor, got ", dt);
    }
    CudaTensor out = output_for(t, t.shape, dt);
    if (k.code >= 0) run_map1(variant(k.name, dt), t, out, k.code);
    else run_map1(variant(k.name, dt), t, out);
    return out;
}

CudaTensor Kernels::is_nan(CudaTensor t) {
    check_storage("is_nan", t.dtype);
    if (!cuda_float(t.dtype))
        return full(t.shape, ScalarArg::of(std::int64_t{0}), DType::Bool, t.device);
    CudaTensor out = output_for(t, t.shape, DType::Bool);
    run_map1(variant("is_nan", t.dtype), t, out);
    return out;
}

CudaTensor Kernels::clamp(CudaTensor t, std::optional<ScalarArg> lo, std::optional<ScalarArg> hi) {
    if (!lo && !hi) return t;
    const DType dt = t.dtype;
    check_numeric("clamp", dt);
    CudaTensor out = output_for(t, t.shape, dt);
    const std::string kernel = variant("clamp", dt);
    switch (dt) {
        case DType::F32:
        case DType::F16:
        case DType::BF16:
        case DType::F64: {
            constexpr double inf = std::numeric_limits<double>::infinity();
            const double l = lo ? lo->f : -inf, h = hi ? hi->f : inf;
            if (dt != DType::F64)
                run_map1(kernel, t, out, static_cast<float>(l), static_cast<float>(h));
            else run_map1(kernel, t, out, l, h);
            break;
        }
        case DType::I32: {
            // Bounds outside the type's range saturate instead of wrapping.
            using L = std::numeric_limits<std::int32_t>;
            auto sat = [](std::int64_t v) {
                return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, L::min(), L::max()));
            };
            run_map1(kernel, t, out, lo ? sat(lo->i) : L::min(), hi ? sat(hi->i) : L::max());
            break;
        }
        default: {
            using L = std::numeric_limits<std::int64_t>;
            run_map1(kernel, t, out, lo ? lo->i : L::min(), hi ? hi->i : L::max());
            break;
        }
    }
    return out;
}

// ------------------------------------------------------------------------------------------------
// Binary arithmetic
// ------------------------------------------------------------------------------------------------

CudaTensor Kernels::binary(BinaryOp op, CudaTensor lhs, CudaTensor rhs) {
    const char* name = backend::op_name(op);
    if (rhs.dtype != lhs.dtype) rhs = cast(std::move(rhs), lhs.dtype);
    const DType dt = lhs.dtype;
    check_binary_dtype(op, dt);
    const Shape shape = broadcast_shapes(lhs.shape, rhs.shape, name);
    CudaTensor out = output_of(lhs, rhs, shape, dt);
    const std::size_t n = shape.num_elements();
    if (n == 0) return out;
    Context& ctx = context(lhs);
    const BinaryKernel k = binary_kernel(op);
    const Binary b = binary_args(lhs, rhs, shape);
    launch_1d(ctx, kProgram, variant((std::string("binary_") + k.name).c_str(), dt), n, first(lhs),
              b.m[0], first(rhs), b.m[1], first(out), static_cast<std::int64_t>(n), b.dense,
              ctx.error_word(), binary_tag(ctx, op, dt), k.code);
    return out;
}

CudaTensor Kernels::binary_scalar(BinaryOp op, CudaTensor lhs, ScalarArg rhs) {
    const char* name = backend::op_name(op);
    const DType dt = lhs.dtype;
    check_binary_dtype(op, dt);
    const std::size_t n = lhs.num_elements();
    if (op == BinaryOp::Pow && cuda_float(dt)) {
        // x^p for common float exponents as cheaper maps, as the CPU backend (and PyTorch) does.
        const double p = rhs.f;
        if (p == 1.0) return lhs;
        if (p == 0.5) return unary(UnaryOp::Sqrt, std::move(lhs));
        if (p == -1.0) return unary(UnaryOp::Recip, std::move(lhs));
        if (p == 2.0) {
            CudaTensor out = output_for(lhs, lhs.shape, dt);
            run_map1(variant("unary_basic", dt), lhs, out, static_cast<int>(kSquare));
            return out;
        }
    }
    if (cuda_int(dt)) {
        if (op == BinaryOp::Pow && rhs.i < 0)
            ::burn::detail::fail("Cuda powi: negative integer exponent");
        // The scalar as the element type (int32 truncates), as the CPU backend converts it.
        const std::int64_t v = dt == DType::I32 ? static_cast<std::int32_t>(rhs.i) : rhs.i;
        if (v == 0 && op == BinaryOp::Div)
            ::burn::detail::fail("Cuda div: integer division by zero");
        if (v == 0 && op == BinaryOp::Rem)
            ::burn::detail::fail("Cuda remainder: integer division by zero");
        if (v < 0 && op == BinaryOp::Pow && n > 0)
            ::burn::detail::fail("Cuda powi: negative integer exponent");
    }
    CudaTensor out = output_for(lhs, lhs.shape, dt);
    if (n == 0) return out;
    Context& ctx = context(lhs);
    const BinaryKernel k = binary_kernel(op);
    const std::string kernel = variant((std::string("binary_scalar_") + k.name).c_str(), dt);
    const std::uint32_t tag = binary_tag(ctx, op, dt);
    with_scalar(dt, rhs, name,
                [&](auto v) { run_map1(kernel, lhs, out, v, ctx.error_word(), tag, k.code); });
    return out;
}

// ------------------------------------------------------------------------------------------------
// Comparisons
// ------------------------------------------------------------------------------------------------

CudaTensor Kernels::compare(CmpOp op, CudaTensor lhs, CudaTensor rhs) {
    const DType dt = promote(lhs.dtype, rhs.dtype);
    check_storage("compare", dt);
    if (lhs.dtype != dt) lhs = cast(std::move(lhs), dt);
    if (rhs.dtype != dt) rhs = cast(std::move(rhs), dt);
    const Shape shape = broadcast_shapes(lhs.shape, rhs.shape, "compare");
    CudaTensor out = output_of(lhs, rhs, shape, DType::Bool);
    const std::size_t n = shape.num_elements();
    if (n == 0) return out;
    const Binary b = binary_args(lhs, rhs, shape);
    launch_1d(context(lhs), kProgram, variant("compare", dt), n, first(lhs), b.m[0], first(rhs),
              b.m[1], first(out), static_cast<std::int64_t>(n), b.dense, cmp_code(op));
    return out;
}

CudaTensor Kernels::compare_scalar(CmpOp op, CudaTensor lhs, ScalarArg rhs) {
    const DType dt = lhs.dtype;
    check_storage("compare", dt);
    if (dt == DType::I32) {
        // An integer scalar outside i32 compares the same way with every element.
        const bool above = rhs.i > std::numeric_limits<std::int32_t>::max();
        const bool below = rhs.i < std::numeric_limits<std::int32_t>::min();
        if (above || below) {
            bool r = false;  // lhs vs rhs: every lhs element lies strictly on one side
            switch (op) {
                case CmpOp::Eq: r = false; break;
                case CmpOp::Ne: r = true; break;
                case CmpOp::Gt:
                case CmpOp::Ge: r = below; break;
                case CmpOp::Lt:
                case CmpOp::Le: r = above; break;
            }
            return full(lhs.shape, ScalarArg::of(std::int64_t{r}), DType::Bool, lhs.device);
        }
    }
    CudaTensor out = output_for(lhs, lhs.shape, DType::Bool);
    const std::string kernel = variant("compare_scalar", dt);
    with_scalar(dt, rhs, "compare", [&](auto v) { run_map1(kernel, lhs, out, v, cmp_code(op)); });
    return out;
}

// ------------------------------------------------------------------------------------------------
// Masked selects
// ------------------------------------------------------------------------------------------------

CudaTensor Kernels::mask_where(CudaTensor t, CudaTensor mask, CudaTensor value) {
    check_storage("mask_where", t.dtype);
    mask = bool_mask(std::move(mask));
    if (value.dtype != t.dtype) value = cast(std::move(value), t.dtype);
    CudaTensor out = output_for(t, t.shape, t.dtype);
    const std::size_t n = t.num_elements();
    if (n == 0) return out;
    const int dense = flat(t, n) && flat(mask, n) && flat(value, n) ? 1 : 0;
    const auto m = dense ? std::array<Meta, 3>{} : metas<3>(t.shape, {&t, &mask, &value});
    launch_1d(context(t), kProgram, variant("where", t.dtype), n, first(t), m[0], first(mask), m[1],
              first(value), m[2], first(out), static_cast<std::int64_t>(n), dense);
    return out;
}

CudaTensor Kernels::mask_fill(CudaTensor t, CudaTensor mask, ScalarArg value) {
    check_storage("mask_fill", t.dtype);
    mask = bool_mask(std::move(mask));
    CudaTensor out = output_for(t, t.shape, t.dtype);
    const std::size_t n = t.num_elements();
    if (n == 0) return out;
    const Binary b = binary_args(t, mask, t.shape);
    with_scalar(t.dtype, value, "mask_fill", [&](auto v) {
        launch_1d(context(t), kProgram, variant("where_scalar", t.dtype), n, first(t), b.m[0],
                  first(mask), b.m[1], v, first(out), static_cast<std::int64_t>(n), b.dense);
    });
    return out;
}

}  // namespace burn::cuda

// ------------------------------------------------------------------------------------------------
// Activations
// ------------------------------------------------------------------------------------------------

namespace burn::cuda {

CudaTensor Kernels::activation(Activation op, CudaTensor x, double alpha, double beta) {
    const char* name = backend::op_name(op);
    const DType dt = x.dtype;
    check_float(name, dt);
    CudaTensor out = output_for(x, x.shape, dt);
    const std::string kernel = variant((std::string("activation_") + name).c_str(), dt);
    if (dt != DType::F64)  // f32 and the half types: f32 parameters
        map1_of(kActivationProgram, kernel, x, out, static_cast<float>(alpha),
                static_cast<float>(beta));
    else map1_of(kActivationProgram, kernel, x, out, alpha, beta);
    return out;
}

CudaTensor Kernels::activation_backward(Activation op, CudaTensor saved, CudaTensor grad) {
    const char* name = backend::op_name(op);
    const DType dt = grad.dtype;
    check_float(name, dt);
    BURN_CHECK(op == Activation::Relu || op == Activation::Gelu || op == Activation::Sigmoid ||
                   op == Activation::LogSigmoid,
               "Cuda ", name, ": has no backward kernel (relu, gelu, sigmoid, log_sigmoid)");
    BURN_CHECK(saved.dtype == dt && saved.shape == grad.shape, "Cuda ", name,
               " backward: the saved tensor ", saved.shape, " ", saved.dtype,
               " does not match the gradient ", grad.shape, " ", dt);
    CudaTensor out = output_of(saved, grad, grad.shape, dt);
    const std::size_t n = grad.num_elements();
    if (n == 0) return out;
    const Binary b = binary_args(saved, grad, grad.shape);
    launch_1d(context(grad), kActivationProgram,
              variant((std::string("activation_backward_") + name).c_str(), dt), n, first(saved),
              b.m[0], first(grad), b.m[1], first(out), static_cast<std::int64_t>(n), b.dense);
    return out;
}

// ------------------------------------------------------------------------------------------------
// Adam
// ------------------------------------------------------------------------------------------------

namespace {

/// Launches adam_step_<dtype> with the step's scalars rounded to E, as the CPU backend does.
/// A replayed CUDA graph runs step h.time + k at its k-th run: the bias corrections of that step
/// replace the captured ones (arguments 17 and 18 of the kernel), as Adam::step computes them.
template <class E>
void launch_adam(Context& ctx, DType dt, const void* p, const Meta& mp, const void* g,
                 const Meta& mg, const void* m, const Meta& mm, const void* v, const Meta& mv,
                 void* po, void* mo, void* vo, std::size_t n, int flags,
                 const backend::AdamHyper& h) {
    if (n == 0) return;
    auto replay = [h](std::int64_t k, auto& args) {
        const double t = static_cast<double>(h.time + k);
        std::get<17>(args) = static_cast<E>(1.0 / (1.0 - std::pow(h.beta_2, t)));
        std::get<18>(args) = static_cast<E>(h.lr / (1.0 - std::pow(h.beta_1, t)));
    };
    launch_patched(ctx, kActivationProgram, variant("adam_step", dt), dim3(grid_for(ctx, n)),
                   dim3(256), 0, replay, p, mp, g, mg, m, mm, v, mv, po, mo, vo,
                   static_cast<std::int64_t>(n), flags, static_cast<E>(h.beta_1),
                   static_cast<E>(h.beta_2), static_cast<E>(1.0 - h.beta_1),
                   static_cast<E>(1.0 - h.beta_2), static_cast<E>(1.0 / h.correction_2),
                   static_cast<E>(h.lr / h.correction_1), static_cast<E>(h.epsilon),
                   static_cast<E>(h.weight_decay));
}

}  // namespace

backend::AdamStepResult<CudaTensor> Kernels::adam_step(CudaTensor param, CudaTensor grad,
                                                       CudaTensor* moment_1, CudaTensor* moment_2,
                                                       const backend::AdamHyper& h) {
    // burn::optim::Adam::step checked the shapes (and dequantized a quantized parameter).
    const DType dt = param.dtype;
    const Shape shape = param.shape;
    // (The adapter runs a half-precision parameter's step in f32: backend/widen.hpp.)
    BURN_CHECK(dt == DType::F32 || dt == DType::F64,
               "Cuda adam_step: expected an f32 or f64 parameter, got ", dt);
    BURN_CHECK(grad.dtype == dt && grad.shape == shape, "Cuda adam_step: the gradient ", grad.shape,
               " ", grad.dtype, " does not match the parameter ", shape, " ", dt);
    BURN_CHECK((moment_1 == nullptr) == (moment_2 == nullptr),
               "Cuda adam_step: both moments or neither");
    const bool has_moments = moment_1 != nullptr;
    CudaTensor m, v;
    if (has_moments) {
        m = std::move(*moment_1);
        v = std::move(*moment_2);
        BURN_CHECK(m.shape == shape && v.shape == shape && m.dtype == dt && v.dtype == dt,
                   "Cuda adam_step: the moments ", m.shape, " ", m.dtype, " and ", v.shape, " ",
                   v.dtype, " do not match the parameter ", shape, " ", dt);
    }
    // Outputs: an input's own buffer when it is dense and this is its only handle (in place).
    auto dst = [&](const CudaTensor& t, bool given) {
        return given && t.is_unique() && is_dense(t) && !t.qinfo ? t
                                                                 : alloc(shape, dt, param.device);
    };
    CudaTensor po = dst(param, true), mo = dst(m, has_moments), vo = dst(v, has_moments);
    const std::size_t n = shape.num_elements();
    if (n == 0) return {std::move(po), std::move(mo), std::move(vo)};

    const bool dense =
        flat(param, n) && flat(grad, n) && (!has_moments || (flat(m, n) && flat(v, n)));
    int flags = (has_moments ? 1 : 0) | (h.weight_decay != 0 ? 2 : 0) | (dense ? 4 : 0);
    std::array<Meta, 2> pg{}, mv{};
    if (!dense) {
        pg = metas<2>(shape, {&param, &grad});
        if (has_moments) mv = metas<2>(shape, {&m, &v});
    }
    // Without moments the kernel reads neither: any valid pointer stands for them.
    const void* mp = has_moments ? first(m) : first(param);
    const void* vp = has_moments ? first(v) : first(param);
    Context& ctx = context(param);
    if (dt == DType::F32)
        launch_adam<float>(ctx, dt, first(param), pg[0], first(grad), pg[1], mp, mv[0], vp, mv[1],
                           first(po), first(mo), first(vo), n, flags, h);
    else
        launch_adam<double>(ctx, dt, first(param), pg[0], first(grad), pg[1], mp, mv[0], vp, mv[1],
                            first(po), first(mo), first(vo), n, flags, h);
    return {std::move(po), std::move(mo), std::move(vo)};
}

}  // namespace burn::cuda

// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by the op families (ops_*.cpp): output allocation, tensor metadata for kernels, dtype
// names of kernel variants, launching. Internal (includes the CUDA runtime API).
//
// Conventions every op follows:
//  - Inputs may be any view (strides 0 broadcast, negative flip, an element offset): kernels
//    read them through a Meta (kernels/cuda/common.cuh) given with a pointer to the view's first
//    element (first(t)), or through a plain pointer when the view is dense (is_dense(t)).
//  - Outputs are new dense tensors from alloc(), or the input itself when it is unique, dense
//    and of the output's shape and dtype (output_for: in-place reuse, as the CPU backend).
//  - Element storage: F32 float, F64 double, I32 int, I64 long long, Bool unsigned char (0/1),
//    QInt8 signed char. Kernel variants are named <kernel>_<suffix> with suffix
//    dtype_suffix(dtype): "f32", "f64", "i32", "i64", "bool", "i8".
//  - Sizes and indices in kernels are 64-bit.
//  - Errors: burn::Error naming "Cuda <op>", the shapes and dtypes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <tuple>

#include "burn/backend/shapes.hpp"
#include "burn/fusion/program.hpp"
#include "runtime.hpp"

namespace burn::cuda {

/// A new dense tensor of `shape` and `dtype` on `device` (uninitialised).
CudaTensor alloc(const Shape& shape, DType dtype, const CudaDevice& device);

/// Bytes per element in device memory (throws burn::Error for a dtype the backend lacks: F16,
/// BF16, ...; `op` names the op in the message).
std::size_t element_size(DType dtype, const char* op = "op");

/// "f32", "f64", "i32", "i64", "bool", "i8": the suffix of a kernel variant.
const char* dtype_suffix(DType dtype);
/// The int dtype of the element size of `d` (kernels that only move values move its bits).
DType bits_dtype(DType d);
/// `base` + "_" + dtype_suffix(dtype).
std::string variant(const char* base, DType dtype);

/// How a kernel sees a strided view (kernels/cuda/common.cuh's Meta, same layout): rank, shape
/// and strides in elements. Offsets are applied on the host (first()).
struct Meta {
    std::int32_t rank = 0;
    std::int32_t pad_ = 0;
    std::int64_t shape[8] = {};
    std::int64_t strides[8] = {};
};
static_assert(sizeof(Meta) == 136);

/// The metadata of `t`, or of `t` seen with a shape it broadcasts to (strides 0 on broadcast
/// dims, leading dims added).
Meta meta(const backend::StridedLayout& t);
Meta meta_broadcast(const backend::StridedLayout& t, const Shape& as);

/// The Metas of the views seen as `shape` (each broadcast to it), written to out[0..views.size()),
/// with the dims of size 1 dropped and every pair of adjacent dims that is contiguous in all the
/// views merged into one (rank >= 1): the same collapsed shape for all, so that a kernel walks
/// them with one index.
void collapse_metas(const Shape& shape, std::span<const backend::StridedLayout* const> views,
                    Meta* out);

/// The device address of the view's first element (buffer start + offset * element size).
void* first(const CudaTensor& t);
/// Dense, row-major (a plain pointer walks it).
inline bool is_dense(const CudaTensor& t) { return t.is_contiguous(); }

/// Whether `t` can be overwritten as the output of an op of `shape` and `dtype`.
bool reusable(const CudaTensor& t, const Shape& shape, DType dtype);
/// `t` itself when reusable, else a new tensor on t's device.
CudaTensor output_for(const CudaTensor& t, const Shape& shape, DType dtype);

/// Grid size for `n` work items at `block` threads each, grid-stride loops covering the rest
/// (at most 32 blocks per multiprocessor... of the device).
unsigned grid_for(const Context& ctx, std::uint64_t n, unsigned block = 256);

/// Hash of a plan-cache key made of 64-bit words (the matmul and convolution plan caches).
struct PlanKeyHash {
    template <std::size_t N>
    std::size_t operator()(const std::array<std::int64_t, N>& k) const noexcept {
        std::uint64_t h = 1469598103934665603ull;
        for (const std::int64_t v : k) {
            h ^= static_cast<std::uint64_t>(v);
            h *= 1099511628211ull;
            h ^= h >> 29;
        }
        return static_cast<std::size_t>(h);
    }
};

/// The CUDA C++ that Fusion<Cuda> generates for `p` (ops_fused.cpp) when its inputs are read as
/// `access` says, one code per input: 'd' a dense array, 's' one value, 'g' through a Meta. For
/// the NVRTC check of the generated code (tools/nvrtc_check.cpp). A program ending with a
/// reduction gets the kernel that reduces along the last dim (`row`) or along another one.
std::string fused_program_source(const fusion::Program& p, std::string_view access,
                                 bool row = true);

/// Launches `kernel` of `program` with the arguments `args...` (each passed by address, as CUDA
/// wants): `launch(ctx, "elementwise", "unary_f32", grid, block, 0, n, ptr, meta)`.
template <class... A>
void launch(Context& ctx, std::string_view program, std::string_view kernel, dim3 grid, dim3 block,
            std::size_t shared_bytes, const A&... args) {
    void* argv[sizeof...(A) + 1] = {const_cast<void*>(static_cast<const void*>(&args))...};
    ctx.launch(ctx.kernel(program, kernel), grid, block, argv, shared_bytes);
}

/// As launch, for a kernel whose arguments a replayed CUDA graph recomputes:
/// `update(k, args)` rewrites the tuple of arguments for the k-th run of the graph (k >= 1; k = 0
/// runs the arguments given here). Outside a capture, the same as launch.
template <class Update, class... A>
void launch_patched(Context& ctx, std::string_view program, std::string_view kernel, dim3 grid,
                    dim3 block, std::size_t shared_bytes, Update update, const A&... args) {
    if (!ctx.capture()) {
        launch(ctx, program, kernel, grid, block, shared_bytes, args...);
        return;
    }
    struct Patch final : NodePatch {
        std::tuple<A...> values;
        Update fn;
        void* argv[sizeof...(A) + 1] = {};
        Patch(Update u, const A&... a) : values(a...), fn(std::move(u)) {
            std::apply(
                [&](auto&... v) {
                    std::size_t i = 0;
                    ((argv[i++] = static_cast<void*>(&v)), ...);
                },
                values);
        }
        void** update(std::int64_t k) override {
            if (k > 0) fn(k, values);
            return argv;
        }
    };
    ctx.launch_patched(ctx.kernel(program, kernel), grid, block,
                       std::make_unique<Patch>(std::move(update), args...), shared_bytes);
}

/// 1-d launch over `n` items (grid-stride): no launch when n == 0.
template <class... A>
void launch_1d(Context& ctx, std::string_view program, std::string_view kernel, std::uint64_t n,
               const A&... args) {
    if (n == 0) return;
    launch(ctx, program, kernel, dim3(grid_for(ctx, n)), dim3(256), 0, args...);
}

}  // namespace burn::cuda

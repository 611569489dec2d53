// SPDX-License-Identifier: MIT OR Apache-2.0
// Random numbers: seed and random, the CPU backend's Philox4x32-10 stream (its layout is specified
// in backends/cpu/src/random.cpp; kernels/cuda/random.cu computes it). The stream position is a
// burn::backend::PhiloxState of the CUDA backend (one for the process, every device drawing from
// it, as the CPU backend's), kept on the host: each call reserves its blocks there and passes the
// first one to the kernel, so nothing waits for the device. After seed(s), the same sequence of
// random calls gives the CPU backend's values: bit-identical except Normal ones, which go through
// log / sin / cos and may differ in the last bit or two where CUDA's math library rounds
// differently from the host's libm (see kernels/cuda/random.cu).
#include <cassert>
#include <cmath>
#include <string>

#include "burn/backend/random.hpp"
#include "ops_common.hpp"

namespace burn::cuda {
namespace {

/// The CUDA backend's position in its stream (the CPU and Vulkan backends keep their own).
backend::PhiloxState& state() {
    static backend::PhiloxState s;
    return s;
}

const char* kind_name(Distribution::Kind kind) {
    switch (kind) {
        case Distribution::Kind::Default: return "default";
        case Distribution::Kind::Uniform: return "uniform";
        case Distribution::Kind::Bernoulli: return "bernoulli";
        case Distribution::Kind::Normal: return "normal";
    }
    ::burn::detail::fail("Cuda random: unknown distribution kind ", static_cast<int>(kind));
}

/// The kernels' arguments after (out, n, blocks, k0, k1, first): see kernels/cuda/random.cu.
struct Params {
    double a = 0.0, b = 0.0, hi = 0.0, below_hi = 0.0;
    int guard = 0;
    std::int64_t ilo = 0;
    std::uint64_t irange = 0;
};

/// Float Uniform(lo, hi) in element type E: lo + (hi - lo) * u in f64, and the largest E below hi
/// for the values that round up to hi.
template <class E>
void float_uniform(const Distribution& d, Params& p) {
    const E hi = static_cast<E>(d.b);
    p.a = d.a;
    p.b = d.b - d.a;
    p.hi = static_cast<double>(hi);
    p.below_hi = static_cast<double>(std::nextafter(hi, static_cast<E>(d.a)));
    p.guard = d.a < d.b ? 1 : 0;
}

Params params_of(const Distribution& d, DType dtype) {
    using K = Distribution::Kind;
    Params p;
    switch (d.kind) {
        case K::Default: break;
        case K::Bernoulli: p.a = d.a; break;
        case K::Normal:
            p.a = d.a;
            p.b = d.b;
            break;
        case K::Uniform:
            if (dtype == DType::F64) {
                float_uniform<double>(d, p);
            } else if (dtype == DType::F32 || dtype == DType::Bool) {
                float_uniform<float>(d, p);  // bool: the f32 values, != 0
            } else {
                const std::int64_t lo = trunc_to_int64(d.a), hi = trunc_to_int64(d.b);
                assert(lo < hi);  // Tensor::random checked the range
                p.ilo = lo;
                p.irange = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
            }
            break;
    }
    return p;
}

}  // namespace

void Kernels::seed(std::uint64_t s) { state().seed(s); }

CudaTensor Kernels::random(const Shape& shape, const Distribution& dist, DType dtype,
                           const CudaDevice& device) {
    BURN_CHECK(dtype == DType::F32 || dtype == DType::F64 || dtype == DType::I32 ||
                   dtype == DType::I64 || dtype == DType::Bool || is_half(dtype),
               "Cuda random: dtype ", dtype_name(dtype), " of shape ", shape,
               " is not supported by the CUDA backend (f32, f64, f16, bf16, i32, i64, bool)");
    const bool half = is_half(dtype);
    if (half &&
        (dist.kind == Distribution::Kind::Default || dist.kind == Distribution::Kind::Uniform)) {
        // f32 values rounded to the half type (the adapter keeps Uniform ones below `high`).
        return cast(random(shape, dist, DType::F32, device), dtype);
    }
    CudaTensor out = alloc(shape, dtype, device);
    const std::uint64_t n = shape.num_elements();
    if (n == 0) return out;  // as the CPU backend: no blocks reserved
    // Elements per Philox block: one 32-bit word each for f32, the half types (their f32 values,
    // rounded: Bernoulli's 0 and 1 exactly) and bool, two for the others.
    const std::uint64_t per_block = dtype == DType::F32 || dtype == DType::Bool || half ? 4 : 2;
    const std::uint64_t blocks = (n + per_block - 1) / per_block;
    const Params p = params_of(dist, half ? DType::F32 : dtype);
    const auto r = state().reserve(blocks);
    const std::string name =
        std::string("random_") + kind_name(dist.kind) + "_" + dtype_suffix(dtype);
    Context& ctx = context(device);
    // In a captured graph, every replay draws the blocks that follow the stream's position then:
    // the capture's first random kernel sets up its anchor, which reserves them for each replay.
    std::shared_ptr<RngAnchor> anchor;
    if (GraphExec* g = ctx.capture()) {
        if (!g->rng) {
            g->rng = std::make_shared<RngAnchor>();
            g->rng->first = g->rng->base = r.first_block;
            g->rng->k0 = r.k0;
            g->rng->k1 = r.k1;
            g->hooks.emplace_back([a = g->rng](std::int64_t k) {
                if (k == 0) return;
                const auto next = state().reserve(a->end - a->first);
                a->base = next.first_block;
                a->k0 = next.k0;
                a->k1 = next.k1;
            });
        }
        anchor = g->rng;
        anchor->end = r.first_block + blocks;
    }
    const std::uint64_t delta = anchor ? r.first_block - anchor->first : 0;
    auto replay = [anchor, delta](std::int64_t, auto& args) {
        std::get<3>(args) = anchor->k0;
        std::get<4>(args) = anchor->k1;
        std::get<5>(args) = anchor->base + delta;
    };
    launch_patched(ctx, "random", name, dim3(grid_for(ctx, blocks)), dim3(256), 0, replay,
                   first(out), static_cast<std::int64_t>(n), static_cast<std::int64_t>(blocks),
                   r.k0, r.k1, r.first_block, p.a, p.b, p.hi, p.below_hi, p.guard, p.ilo, p.irange);
    return out;
}

}  // namespace burn::cuda

// SPDX-License-Identifier: MIT OR Apache-2.0
// Batched matrix product over the last two dims, broadcasting the batch dims (the CPU backend's
// matmul.cpp semantics).
//
// Floats (f32, f64) run on cuBLASLt, row-major through the column-major identity
// C^T = B^T A^T: the right operand is cuBLAS's A, the left one its B, the dense row-major output
// its column-major n x m D. An operand whose last two dims are row-major or column-major dense
// (any leading dimension) is passed as it is (a transposed view becomes the transpose flag),
// and its batch dims as one strided-batch offset when they collapse into one uniform stride (0
// when the whole batch is broadcast). Other layouts are made dense first (Kernels::contiguous;
// partly broadcast batch dims are expanded before). A right operand shared by every batch with
// left matrices stacked row after row (a Linear layer on [b, s, k]) is one [b*s, k] x [k, n]
// product. f32 uses CUBLAS_COMPUTE_32F, or CUBLAS_COMPUTE_32F_FAST_TF32 while
// burn::cuda_allow_tf32() is set; f64 CUBLAS_COMPUTE_64F. The descriptors and the heuristic's
// algorithm are cached per (device, dtype, TF32, sizes, flags, leading dims, batch strides,
// pointer alignments): a repeated product costs one hash lookup and the cublasLtMatmul call.
//
// Ints (i32, i64) run on kernels/cuda/matmul.cu, reading any strided view in place; products and
// sums wrap around on overflow, as on the CPU.
#include <cublasLt.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "ops_common.hpp"

namespace burn::cuda {
namespace {

/// The most workspace a cuBLASLt algorithm may take (NVIDIA's advice for Hopper).
constexpr std::uint64_t kMatmulWorkspace = 32u << 20;

/// How a rows x cols matrix with element strides (rs, cs) is handed to a GEMM (the CPU backend's
/// rule): dense row-major (`trans` false) or column-major (`trans` true), with `ld` the stride
/// between rows (row-major) or columns (column-major).
struct MatLayout {
    bool ok = false;
    bool trans = false;
    std::int64_t ld = 0;
};

MatLayout blas_layout(std::size_t rows, std::size_t cols, std::int64_t rs, std::int64_t cs) {
    const auto r = static_cast<std::int64_t>(rows), c = static_cast<std::int64_t>(cols);
    if ((cs == 1 || c <= 1) && (r <= 1 || rs >= std::max<std::int64_t>(1, c)))
        return {true, false, r <= 1 ? std::max<std::int64_t>(1, c) : rs};
    if ((rs == 1 || r <= 1) && (c <= 1 || cs >= std::max<std::int64_t>(1, r)))
        return {true, true, c <= 1 ? std::max<std::int64_t>(1, r) : cs};
    return {};
}

/// The one stride between consecutive matrices of `t` over the batch dims of `as` (the output's
/// batch dims followed by t's matrix dims), broadcast dims counting as stride 0; none when the
/// batch dims do not collapse into one non-negative stride.
std::optional<std::int64_t> uniform_batch_stride(const CudaTensor& t, const Shape& as) {
    std::optional<std::int64_t> stride;
    std::int64_t span = 1;
    for (std::size_t d = as.rank() - 2; d-- > 0;) {
        if (as[d] == 1) continue;
        const std::int64_t s = t.shape[d] == 1 ? 0 : t.strides[d];
        if (!stride) {
            if (s < 0) return std::nullopt;
            stride = s;
        } else if (s != *stride * span) {
            return std::nullopt;
        }
        span *= static_cast<std::int64_t>(as[d]);
    }
    return stride.value_or(0);
}

/// An operand ready for cuBLASLt: the view passed (kept alive until the product is queued), its
/// matrix layout and its batch stride.
struct Operand {
    CudaTensor t;
    MatLayout lay;
    std::int64_t batch_stride = 0;
};

std::optional<Operand> try_operand(const CudaTensor& t, const Shape& as) {
    const std::size_t r = as.rank();
    const MatLayout lay = blas_layout(as[r - 2], as[r - 1], t.strides[r - 2], t.strides[r - 1]);
    if (!lay.ok) return std::nullopt;
    const auto s = uniform_batch_stride(t, as);
    if (!s) return std::nullopt;
    return Operand{t, lay, *s};
}

/// `t` as cuBLASLt can read it: itself where possible, else a dense copy (expanded to the output's
/// batch dims first when only some of them are broadcast).
Operand prepare(CudaTensor t, const Shape& as) {
    if (auto op = try_operand(t, as)) return std::move(*op);
    bool broadcast = false, batched = false;
    for (std::size_t d = 0; d + 2 < as.rank(); ++d) {
        if (as[d] == 1) continue;
        (t.shape[d] == 1 ? broadcast : batched) = true;
    }
    if (broadcast && batched) backend::view::expand(t, as);
    CudaTensor c = Kernels::contiguous(std::move(t));
    auto op = try_operand(c, as);
    BURN_CHECK(op.has_value(), "Cuda matmul: internal error: a dense operand ", c.shape,
               " has no cuBLASLt layout");
    return std::move(*op);
}

/// Largest power of two (at most 256) dividing the address: the alignment cuBLASLt may assume.
std::uint32_t alignment(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    if (a == 0) return 256;
    return static_cast<std::uint32_t>(std::min<std::uintptr_t>(a & (~a + 1), 256));
}

[[noreturn]] void lt_fail(const char* what, cublasStatus_t st, const Shape& a, const Shape& b,
                          DType dt) {
    ::burn::detail::fail("Cuda matmul: cuBLASLt ", what, " failed for ", a, " x ", b, " (", dt,
                         "): ", cublasLtGetStatusString(st), " (", cublasLtGetStatusName(st), ")");
}

/// The cached plan of one product: descriptors and the heuristic's algorithm.
struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
    std::size_t workspace = 0;
    Plan() = default;
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
    ~Plan() {
        if (d) cublasLtMatrixLayoutDestroy(d);
        if (b) cublasLtMatrixLayoutDestroy(b);
        if (a) cublasLtMatrixLayoutDestroy(a);
        if (desc) cublasLtMatmulDescDestroy(desc);
    }
};

/// What a plan depends on.
struct GemmProblem {
    std::int64_t device, dtype, tf32, m, n, k, batch, trans_a, trans_b, ld_a, ld_b, stride_a,
        stride_b, align_a, align_b, align_d;
};
using PlanKey = std::array<std::int64_t, sizeof(GemmProblem) / sizeof(std::int64_t)>;

PlanKey key_of(const GemmProblem& p) {
    return {p.device,  p.dtype, p.tf32, p.m,        p.n,        p.k,       p.batch,   p.trans_a,
            p.trans_b, p.ld_a,  p.ld_b, p.stride_a, p.stride_b, p.align_a, p.align_b, p.align_d};
}

/// Builds the descriptors of `p` (column-major D [m, n] = op(A) [m, k] * op(B) [k, n]) and asks
/// the heuristic for an algorithm.
std::unique_ptr<Plan> make_plan(cublasLtHandle_t handle, const GemmProblem& p, DType dt,
                                const Shape& sa, const Shape& sb) {
    auto plan = std::make_unique<Plan>();
    const bool f64 = dt == DType::F64;
    // f16 / bf16 operands and result, f32 accumulation and scalars (tensor cores).
    const cudaDataType_t type = f64                 ? CUDA_R_64F
                                : dt == DType::F16  ? CUDA_R_16F
                                : dt == DType::BF16 ? CUDA_R_16BF
                                                    : CUDA_R_32F;
    const cudaDataType_t scale = f64 ? CUDA_R_64F : CUDA_R_32F;
    const cublasComputeType_t compute =
        f64 ? CUBLAS_COMPUTE_64F : (p.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
    auto ok = [&](cublasStatus_t st, const char* what) {
        if (st != CUBLAS_STATUS_SUCCESS) lt_fail(what, st, sa, sb, dt);
    };
    ok(cublasLtMatmulDescCreate(&plan->desc, compute, scale), "cublasLtMatmulDescCreate");
    const cublasOperation_t ta = p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    ok(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)),
       "cublasLtMatmulDescSetAttribute");
    ok(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)),
       "cublasLtMatmulDescSetAttribute");
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    // Stored dims: op(A) is m x k, so A is k x m when transposed; likewise B.
    ok(cublasLtMatrixLayoutCreate(&plan->a, type, u(p.trans_a ? p.k : p.m),
                                  u(p.trans_a ? p.m : p.k), p.ld_a),
       "cublasLtMatrixLayoutCreate");
    ok(cublasLtMatrixLayoutCreate(&plan->b, type, u(p.trans_b ? p.n : p.k),
                                  u(p.trans_b ? p.k : p.n), p.ld_b),
       "cublasLtMatrixLayoutCreate");
    ok(cublasLtMatrixLayoutCreate(&plan->d, type, u(p.m), u(p.n), p.m),
       "cublasLtMatrixLayoutCreate");
    if (p.batch > 1) {
        const auto count = static_cast<std::int32_t>(p.batch);
        const std::int64_t stride_d = p.m * p.n;
        const std::pair<cublasLtMatrixLayout_t, std::int64_t> layouts[] = {
            {plan->a, p.stride_a}, {plan->b, p.stride_b}, {plan->d, stride_d}};
        for (const auto& [l, s] : layouts) {
            ok(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                                sizeof(count)),
               "cublasLtMatrixLayoutSetAttribute");
            ok(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s,
                                                sizeof(s)),
               "cublasLtMatrixLayoutSetAttribute");
        }
    }
    cublasLtMatmulPreference_t pref = nullptr;
    ok(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    struct PrefGuard {
        cublasLtMatmulPreference_t p;
        ~PrefGuard() { cublasLtMatmulPreferenceDestroy(p); }
    } guard{pref};
    const std::uint64_t ws = kMatmulWorkspace;
    ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                            sizeof(ws)),
       "cublasLtMatmulPreferenceSetAttribute");
    const std::pair<cublasLtMatmulPreferenceAttributes_t, std::int64_t> aligns[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, p.align_a},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, p.align_b},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, p.align_d},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, p.align_d}};
    for (const auto& [attr, v] : aligns) {
        const auto a = static_cast<std::uint32_t>(v);
        ok(cublasLtMatmulPreferenceSetAttribute(pref, attr, &a, sizeof(a)),
           "cublasLtMatmulPreferenceSetAttribute");
    }
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    ok(cublasLtMatmulAlgoGetHeuristic(handle, plan->desc, plan->a, plan->b, plan->d, plan->d, pref,
                                      1, &result, &returned),
       "cublasLtMatmulAlgoGetHeuristic");
    if (returned == 0 || result.state != CUBLAS_STATUS_SUCCESS)
        lt_fail("cublasLtMatmulAlgoGetHeuristic (no algorithm)",
                returned == 0 ? CUBLAS_STATUS_NOT_SUPPORTED : result.state, sa, sb, dt);
    plan->algo = result.algo;
    plan->workspace = result.workspaceSize;
    return plan;
}

/// The cached plan of `p` (made on first use).
const Plan& plan_for(cublasLtHandle_t handle, const GemmProblem& p, DType dt, const Shape& sa,
                     const Shape& sb) {
    static std::mutex mutex;
    // Never destroyed: the library may be unloaded before static destructors run.
    static auto* plans = new std::unordered_map<PlanKey, std::unique_ptr<Plan>, PlanKeyHash>();
    const PlanKey key = key_of(p);
    std::lock_guard lock(mutex);
    auto it = plans->find(key);
    if (it == plans->end()) it = plans->emplace(key, make_plan(handle, p, dt, sa, sb)).first;
    return *it->second;
}

CudaTensor matmul_float(CudaTensor lhs, CudaTensor rhs, const Shape& out_shape) {
    const std::size_t r = out_shape.rank();
    const std::size_t m = lhs.shape[r - 2], k = lhs.shape[r - 1], n = rhs.shape[r - 1];
    const DType dt = lhs.dtype;
    const Shape sa = lhs.shape, sb = rhs.shape;
    Shape as_l = out_shape, as_r = out_shape;
    as_l[r - 1] = k;
    as_r[r - 2] = k;
    const std::size_t nb = out_shape.num_elements() / (m * n);
    BURN_CHECK(nb <= INT_MAX, "Cuda matmul: ", sa, " x ", sb, " has ", nb,
               " matrices, more than cuBLASLt's batch limit of 2^31 - 1");
    const Operand L = prepare(std::move(lhs), as_l);
    const Operand R = prepare(std::move(rhs), as_r);
    CudaTensor out = alloc(out_shape, dt, L.t.device);

    // cuBLAS's A is the right operand (op(A) = rhs^T, n x k), its B the left one (k x m).
    GemmProblem p{};
    p.device = static_cast<std::int64_t>(L.t.device.index);
    p.dtype = static_cast<std::int64_t>(dt);
    p.tf32 = dt == DType::F32 && ::burn::cuda_allow_tf32() ? 1 : 0;
    p.m = static_cast<std::int64_t>(n);
    p.n = static_cast<std::int64_t>(m);
    p.k = static_cast<std::int64_t>(k);
    p.batch = static_cast<std::int64_t>(nb);
    p.trans_a = R.lay.trans ? 1 : 0;
    p.trans_b = L.lay.trans ? 1 : 0;
    p.ld_a = R.lay.ld;
    p.ld_b = L.lay.ld;
    p.stride_a = R.batch_stride;
    p.stride_b = L.batch_stride;
    const void* pa = first(R.t);
    const void* pb = first(L.t);
    void* pd = first(out);
    p.align_a = alignment(pa);
    p.align_b = alignment(pb);
    p.align_d = alignment(pd);
    // One shared right matrix and stacked left rows: a single (nb * m)-column product.
    if (nb > 1 && R.batch_stride == 0 && !L.lay.trans &&
        L.batch_stride == static_cast<std::int64_t>(m) * L.lay.ld) {
        p.n = static_cast<std::int64_t>(nb * m);
        p.batch = 1;
    }
    if (p.batch == 1) p.stride_a = p.stride_b = 0;

    Context& ctx = context(out);
    ctx.activate();
    const auto handle = static_cast<cublasLtHandle_t>(ctx.cublaslt());
    const auto library_lock = ctx.lock_libraries();
    const Plan& plan = plan_for(handle, p, dt, sa, sb);
    const auto ws_block = plan.workspace > 0 ? ctx.workspace(plan.workspace) : nullptr;
    void* ws = ws_block ? ws_block->data() : nullptr;
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const double alpha64 = 1.0, beta64 = 0.0;
    const bool f64 = dt == DType::F64;
    const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32;
    const cublasStatus_t st =
        cublasLtMatmul(handle, plan.desc, alpha, pa, plan.a, pb, plan.b, beta, pd, plan.d, pd,
                       plan.d, &plan.algo, ws, plan.workspace, ctx.stream());
    if (st != CUBLAS_STATUS_SUCCESS) lt_fail("cublasLtMatmul", st, sa, sb, dt);
    return out;
}

/// The batch dims of `t` (rank r) over the output's batch dims, broadcast dims with stride 0.
Meta batch_meta(const CudaTensor& t, const Shape& out_shape) {
    Meta mt;
    const std::size_t nbd = out_shape.rank() - 2;
    mt.rank = static_cast<std::int32_t>(nbd);
    for (std::size_t d = 0; d < nbd; ++d) {
        mt.shape[d] = static_cast<std::int64_t>(out_shape[d]);
        mt.strides[d] = t.shape[d] == 1 ? 0 : t.strides[d];
    }
    return mt;
}

CudaTensor matmul_int(const CudaTensor& lhs, const CudaTensor& rhs, const Shape& out_shape) {
    const std::size_t r = out_shape.rank();
    const auto m = static_cast<std::int64_t>(lhs.shape[r - 2]),
               k = static_cast<std::int64_t>(lhs.shape[r - 1]),
               n = static_cast<std::int64_t>(rhs.shape[r - 1]);
    const auto nb = static_cast<std::int64_t>(out_shape.num_elements()) / (m * n);
    CudaTensor out = alloc(out_shape, lhs.dtype, lhs.device);
    Context& ctx = context(out);
    const Meta ma = batch_meta(lhs, out_shape), mb = batch_meta(rhs, out_shape);
    const std::int64_t a_rs = lhs.strides[r - 2], a_cs = lhs.strides[r - 1];
    const std::int64_t b_rs = rhs.strides[r - 2], b_cs = rhs.strides[r - 1];
    const void* pa = first(lhs);
    const void* pb = first(rhs);
    void* po = first(out);
    const std::int64_t tiles_n = (n + 31) / 32, tiles_m = (m + 31) / 32;
    BURN_CHECK(tiles_n <= INT_MAX, "Cuda matmul: ", lhs.shape, " x ", rhs.shape,
               " has too many columns");
    const dim3 grid(static_cast<unsigned>(tiles_n),
                    static_cast<unsigned>(std::min<std::int64_t>(tiles_m, 65535)),
                    static_cast<unsigned>(std::min<std::int64_t>(nb, 65535)));
    launch(ctx, "matmul", variant("matmul", lhs.dtype), grid, dim3(16, 16), 0, pa, ma, a_rs, a_cs,
           pb, mb, b_rs, b_cs, po, nb, m, n, k);
    return out;
}

}  // namespace

CudaTensor Kernels::matmul(CudaTensor lhs, CudaTensor rhs) {
    const Shape out_shape = backend::matmul_shape(lhs.shape, rhs.shape);
    const DType dt = lhs.dtype;
    BURN_CHECK(dt == rhs.dtype, "Cuda matmul: dtypes differ (", dt, " x ", rhs.dtype, ")");
    BURN_CHECK(dt == DType::F32 || dt == DType::F64 || dt == DType::F16 || dt == DType::BF16 ||
                   dt == DType::I32 || dt == DType::I64,
               "Cuda matmul: dtype ", dt, " is not supported (f32, f64, f16, bf16, i32, i64)");
    const std::size_t r = lhs.rank();
    const std::size_t k = lhs.shape[r - 1];
    if (out_shape.num_elements() == 0) return alloc(out_shape, dt, lhs.device);
    if (k == 0) {  // empty sums: zeros (all-zero bytes in every dtype)
        CudaTensor out = alloc(out_shape, dt, lhs.device);
        Context& ctx = context(out);
        ctx.activate();
        check(cudaMemsetAsync(first(out), 0, out.num_elements() * element_size(dt), ctx.stream()),
              "matmul");
        return out;
    }
    if (dt == DType::I32 || dt == DType::I64) return matmul_int(lhs, rhs, out_shape);
    return matmul_float(std::move(lhs), std::move(rhs), out_shape);
}

}  // namespace burn::cuda

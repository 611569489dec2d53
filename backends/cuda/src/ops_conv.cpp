// SPDX-License-Identifier: MIT OR Apache-2.0
// Convolutions over 1 to 3 spatial dims and their backward kernels (the CPU backend's conv.cpp
// semantics), on cuDNN's convolution API: cudnnConvolutionForward, cudnnConvolutionBackwardData
// and cudnnConvolutionBackwardFilter over a "conv problem" (input [B, Cin, I...], filter
// [Cout, Cin / G, K...], output [B, Cout, O...]; 1-d convolutions as 2-d ones with a unit first
// spatial dim). As on the CPU, a transposed convolution is the input-gradient of the convolution
// whose weight has its layout ([Cin, Cout / G, K...] is that filter): conv_transpose runs
// BackwardData from x onto the output, its x-gradient a forward convolution of grad, its weight
// gradient BackwardFilter with grad as the input and x as the output-gradient. Where padding_out
// reaches the stride (allowed while it is below the dilation), that convolution of the output
// gives more than x's extent: x is zero-padded to it (the extra positions add nothing), and the
// x-gradient is cropped.
//
// Inputs are made dense (Kernels::contiguous) when they are not; outputs are new dense tensors.
// Bias: conv_bias_add (kernels/cuda/conv.cu) after cuDNN, reading the bias view in place.
// conv_bias_backward is conv.cu's deterministic per-channel sum (f64 accumulation; long sums in
// fixed chunks whose partials are added in order).
//
// Engines: cuDNN's graph (backend) API first: one operation graph per problem, its engine
// configurations in the order of cuDNN's heuristic (CUDNN_HEUR_MODE_A, then the fallback list),
// and the first one that is deterministic, keeps the requested precision (no TF32 tensor cores
// for f32 unless burn::cuda_allow_tf32(), no reduced-precision reductions for f16 / bf16), is
// compiled ahead of time (run-time compiled engines only when no other fits), fits in 512 MiB of
// workspace and builds a plan is used: the same choice every run, no device synchronisation.
// These are the engines PyTorch reaches through cuDNN's frontend; on an H200 a bf16 ResNet layer
// runs 3-5x faster on them than on the legacy API's algorithms. BURN_CUDNN_BENCHMARK=1 times the
// first eight such plans on the first use of each configuration instead (PyTorch's
// torch.backends.cudnn.benchmark: often faster, waits for the device once per configuration, and
// two plans that time alike may swap between runs). A problem no engine accepts (or every one
// when BURN_CUDNN_LEGACY=1) runs on the legacy API: cudnnConvolutionForward / BackwardData /
// BackwardFilter with the first deterministic algorithm of cudnnGet*Algorithm_v7 (BackwardData
// ALGO_0 and BackwardFilter ALGO_0 / ALGO_3 are not deterministic), timed with
// cudnnFind*AlgorithmEx in benchmark mode and for f16 / bf16 (whose heuristic ranks slow
// algorithms first). Plans are cached per (device, dtype, TF32, kind, shapes, arguments, whether
// the output accumulates). f32 computes in f32 FMA (CUDNN_FMA_MATH on the legacy API) unless TF32
// is allowed; f64 in f64; f16 and bf16 tensors with f32 compute (tensor cores, f32 accumulation;
// the bias is added to the rounded output in f32 and rounded again, as PyTorch's half
// convolutions do). Batches whose tensors exceed cuDNN's 2^31 - 1 elements are run in batch
// chunks (weight gradients accumulate over the chunks in order).
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ops_common.hpp"

namespace burn::cuda {
namespace {

constexpr std::size_t kConvWorkspaceCap = std::size_t{512} << 20;

enum class ConvKind : int { Forward = 0, BackwardData = 1, BackwardFilter = 2 };

/// A convolution as cuDNN sees it: x [N, C, in...], w [K, C / G, k...], y [N, K, out...], with
/// `nd` (2 or 3) spatial dims.
struct ConvProblem {
    int nd = 2;
    std::array<int, 5> x{}, w{}, y{};
    std::array<int, 3> pad{}, stride{1, 1, 1}, dil{1, 1, 1};
    int groups = 1;
};

Shape dims_shape(const std::array<int, 5>& d, int nb) {
    Shape s;
    for (int i = 0; i < nb; ++i) s.push_back(static_cast<std::size_t>(d[i]));
    return s;
}

[[noreturn]] void dnn_fail(cudnnStatus_t st, const char* call, const char* op, const ConvProblem& p,
                           DType dt) {
    const int nb = p.nd + 2;
    ::burn::detail::fail("Cuda conv: ", cudnnGetErrorString(st), " in ", call, " (", op, ", ", dt,
                         ": input ", dims_shape(p.x, nb), ", weight ", dims_shape(p.w, nb),
                         ", output ", dims_shape(p.y, nb), ", groups ", p.groups, ")");
}

int dnn_dim(std::size_t v, const char* op) {
    BURN_CHECK(v <= static_cast<std::size_t>(INT_MAX), "Cuda ", op, ": size ", v,
               " exceeds cuDNN's limit of 2^31 - 1");
    return static_cast<int>(v);
}

/// The cuDNN problem of the convolution mapping `in` to `out` with a weight of shape `w`.
ConvProblem make_problem(const Shape& in, const Shape& w, const Shape& out, const SpatialArgs& a,
                         const char* op) {
    ConvProblem p;
    const std::size_t n = a.n;
    p.nd = n == 1 ? 2 : static_cast<int>(n);
    const std::size_t lead = n == 1 ? 1 : 0;  // 1-d: a unit spatial dim first
    for (int i = 0; i < 2; ++i) {
        p.x[i] = dnn_dim(in[i], op);
        p.w[i] = dnn_dim(w[i], op);
        p.y[i] = dnn_dim(out[i], op);
    }
    for (int i = 0; i < p.nd; ++i) p.x[2 + i] = p.w[2 + i] = p.y[2 + i] = 1;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t j = lead + i;
        p.x[2 + j] = dnn_dim(in[2 + i], op);
        p.w[2 + j] = dnn_dim(w[2 + i], op);
        p.y[2 + j] = dnn_dim(out[2 + i], op);
        p.pad[j] = dnn_dim(a.padding[i], op);
        p.stride[j] = dnn_dim(a.stride[i], op);
        p.dil[j] = dnn_dim(a.dilation[i], op);
    }
    p.groups = dnn_dim(a.groups, op);
    return p;
}

/// Elements of dims 1.. of `d` (one sample).
std::int64_t sample_elements(const std::array<int, 5>& d, int nb) {
    std::int64_t e = 1;
    for (int i = 1; i < nb; ++i) e *= d[i];
    return e;
}

/// One descriptor of cuDNN's backend (graph) API. A failed call leaves it empty or unfinalized;
/// the callers then try the next engine or the legacy API.
class BackendDesc {
public:
    BackendDesc() = default;
    explicit BackendDesc(cudnnBackendDescriptorType_t type) {
        if (cudnnBackendCreateDescriptor(type, &d_) != CUDNN_STATUS_SUCCESS) d_ = nullptr;
    }
    BackendDesc(BackendDesc&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
    BackendDesc& operator=(BackendDesc&& o) noexcept {
        std::swap(d_, o.d_);
        return *this;
    }
    BackendDesc(const BackendDesc&) = delete;
    BackendDesc& operator=(const BackendDesc&) = delete;
    ~BackendDesc() {
        if (d_) cudnnBackendDestroyDescriptor(d_);
    }
    cudnnBackendDescriptor_t get() const { return d_; }
    template <class T>
    bool set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t n,
             const T* values) {
        return d_ && cudnnBackendSetAttribute(d_, name, type, n, values) == CUDNN_STATUS_SUCCESS;
    }
    bool set(cudnnBackendAttributeName_t name, const BackendDesc& v) {
        const cudnnBackendDescriptor_t p = v.get();
        return p && set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &p);
    }
    bool finalize() { return d_ && cudnnBackendFinalize(d_) == CUDNN_STATUS_SUCCESS; }

private:
    cudnnBackendDescriptor_t d_ = nullptr;
};

/// A finalized execution plan of the graph API, with the descriptors it was built from.
struct GraphPlan {
    std::vector<BackendDesc> parts;  // tensors, convolution, operation, graph
    BackendDesc config;
    BackendDesc plan;
    std::size_t workspace = 0;
};

/// The descriptors of one problem and the algorithm chosen for it.
struct ConvPlan {
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    int algo = 0;
    std::size_t workspace = 0;
    std::unique_ptr<GraphPlan> graph;  // the graph API's plan; the rest is the legacy API's
    ConvPlan() = default;
    ConvPlan(const ConvPlan&) = delete;
    ConvPlan& operator=(const ConvPlan&) = delete;
    ~ConvPlan() {
        if (conv) cudnnDestroyConvolutionDescriptor(conv);
        if (w) cudnnDestroyFilterDescriptor(w);
        if (y) cudnnDestroyTensorDescriptor(y);
        if (x) cudnnDestroyTensorDescriptor(x);
    }
};

/// Device pointers of one run: conv input, weight, output (whichever the kind writes).
struct ConvPtrs {
    void* x;
    void* w;
    void* y;
};

/// Per-kind calls (descriptor roles: x the conv input, y its output, w the filter).
struct FwdCalls {
    using Perf = cudnnConvolutionFwdAlgoPerf_t;
    using Algo = cudnnConvolutionFwdAlgo_t;
    static constexpr int count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    static bool deterministic(int) { return true; }
    static cudnnStatus_t heuristic(cudnnHandle_t h, const ConvPlan& p, int n, int* ret,
                                   Perf* perf) {
        return cudnnGetConvolutionForwardAlgorithm_v7(h, p.x, p.w, p.conv, p.y, n, ret, perf);
    }
    static cudnnStatus_t find(cudnnHandle_t h, const ConvPlan& p, const ConvPtrs& q, void* out,
                              int n, int* ret, Perf* perf, void* ws, std::size_t bytes) {
        return cudnnFindConvolutionForwardAlgorithmEx(h, p.x, q.x, p.w, q.w, p.conv, p.y, out, n,
                                                      ret, perf, ws, bytes);
    }
    static cudnnStatus_t workspace(cudnnHandle_t h, const ConvPlan& p, int algo,
                                   std::size_t* bytes) {
        return cudnnGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.conv, p.y,
                                                       static_cast<Algo>(algo), bytes);
    }
};

struct BwdDataCalls {
    using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
    using Algo = cudnnConvolutionBwdDataAlgo_t;
    static constexpr int count = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    static bool deterministic(int a) { return a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_0; }
    static cudnnStatus_t heuristic(cudnnHandle_t h, const ConvPlan& p, int n, int* ret,
                                   Perf* perf) {
        return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.w, p.y, p.conv, p.x, n, ret, perf);
    }
    static cudnnStatus_t find(cudnnHandle_t h, const ConvPlan& p, const ConvPtrs& q, void* out,
                              int n, int* ret, Perf* perf, void* ws, std::size_t bytes) {
        return cudnnFindConvolutionBackwardDataAlgorithmEx(h, p.w, q.w, p.y, q.y, p.conv, p.x, out,
                                                           n, ret, perf, ws, bytes);
    }
    static cudnnStatus_t workspace(cudnnHandle_t h, const ConvPlan& p, int algo,
                                   std::size_t* bytes) {
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w, p.y, p.conv, p.x,
                                                            static_cast<Algo>(algo), bytes);
    }
};

struct BwdFilterCalls {
    using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
    using Algo = cudnnConvolutionBwdFilterAlgo_t;
    static constexpr int count = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    static bool deterministic(int a) {
        return a != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 && a != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    }
    static cudnnStatus_t heuristic(cudnnHandle_t h, const ConvPlan& p, int n, int* ret,
                                   Perf* perf) {
        return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p.x, p.y, p.conv, p.w, n, ret,
                                                             perf);
    }
    static cudnnStatus_t find(cudnnHandle_t h, const ConvPlan& p, const ConvPtrs& q, void* out,
                              int n, int* ret, Perf* perf, void* ws, std::size_t bytes) {
        return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, p.x, q.x, p.y, q.y, p.conv, p.w,
                                                             out, n, ret, perf, ws, bytes);
    }
    static cudnnStatus_t workspace(cudnnHandle_t h, const ConvPlan& p, int algo,
                                   std::size_t* bytes) {
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.x, p.y, p.conv, p.w,
                                                              static_cast<Algo>(algo), bytes);
    }
};

/// Whether environment variable `name` is set to something other than "" or "0".
bool env_flag(const char* name) {
    const char* e = std::getenv(name);
    return e && *e && !(e[0] == '0' && e[1] == '\0');
}

bool benchmark_mode() {
    static const bool on = env_flag("BURN_CUDNN_BENCHMARK");
    return on;
}

// The tensors' ids in a variant pack.
constexpr std::int64_t kUidX = 1, kUidW = 2, kUidY = 3;

bool legacy_mode() {
    static const bool on = env_flag("BURN_CUDNN_LEGACY");
    return on;
}

/// A dense tensor descriptor of the graph API (16-byte aligned: dense() sees to it).
BackendDesc graph_tensor(std::int64_t uid, cudnnDataType_t type, const std::array<int, 5>& d,
                         int nb) {
    std::array<std::int64_t, 5> dims{}, strides{};
    std::int64_t s = 1;
    for (int i = nb - 1; i >= 0; --i) {
        const auto k = static_cast<std::size_t>(i);
        dims[k] = d[k];
        strides[k] = s;
        s *= d[k];
    }
    const std::int64_t align = 16;
    BackendDesc t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const bool ok = t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type) &&
                    t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nb, dims.data()) &&
                    t.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nb, strides.data()) &&
                    t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid) &&
                    t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align) &&
                    t.finalize();
    return ok ? std::move(t) : BackendDesc{};
}

/// The operation graph of one convolution (y = alpha * op + beta * y for the kind's output),
/// its descriptors appended to `parts` (the graph last); false when cuDNN rejects a part.
bool conv_graph(cudnnHandle_t h, ConvKind kind, const ConvProblem& p, cudnnDataType_t type,
                cudnnDataType_t compute, bool accumulate, std::vector<BackendDesc>& parts) {
    const int nb = p.nd + 2;
    BackendDesc x = graph_tensor(kUidX, type, p.x, nb);
    BackendDesc w = graph_tensor(kUidW, type, p.w, nb);
    BackendDesc y = graph_tensor(kUidY, type, p.y, nb);
    if (!x.get() || !w.get() || !y.get()) return false;
    std::array<std::int64_t, 3> pad{}, stride{}, dil{};
    for (std::size_t i = 0; i < 3; ++i) {
        pad[i] = p.pad[i];
        stride[i] = p.stride[i];
        dil[i] = p.dil[i];
    }
    const std::int64_t nd = p.nd;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    BackendDesc conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    if (!conv.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute) ||
        !conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode) ||
        !conv.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nd) ||
        !conv.set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, nd, dil.data()) ||
        !conv.set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, nd, stride.data()) ||
        !conv.set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, nd, pad.data()) ||
        !conv.set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, nd, pad.data()) ||
        !conv.finalize())
        return false;
    // alpha and beta in the compute type; the group count follows from w's dim 1 (C / G).
    const bool f64 = compute == CUDNN_DATA_DOUBLE;
    const float alpha32 = 1.0f, beta32 = accumulate ? 1.0f : 0.0f;
    const double alpha64 = 1.0, beta64 = accumulate ? 1.0 : 0.0;
    const cudnnBackendAttributeType_t scalar = f64 ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT;
    const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32;
    struct Names {
        cudnnBackendDescriptorType_t type;
        cudnnBackendAttributeName_t alpha, beta, conv, x, w, y;
    };
    const Names n = kind == ConvKind::Forward
                        ? Names{CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y}
                    : kind == ConvKind::BackwardData
                        ? Names{CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY}
                        : Names{CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY};
    BackendDesc op(n.type);
    if (!op.set(n.alpha, scalar, 1, alpha) || !op.set(n.beta, scalar, 1, beta) ||
        !op.set(n.conv, conv) || !op.set(n.x, x) || !op.set(n.w, w) || !op.set(n.y, y) ||
        !op.finalize())
        return false;
    BackendDesc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    const cudnnBackendDescriptor_t ops = op.get();
    if (!graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ops) ||
        !graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h) || !graph.finalize())
        return false;
    for (BackendDesc* d : {&x, &w, &y, &conv, &op, &graph}) parts.push_back(std::move(*d));
    return true;
}

/// The engine configurations cuDNN's heuristic `mode` proposes for `graph`, best first.
std::vector<BackendDesc> engine_configs(const BackendDesc& graph, cudnnBackendHeurMode_t mode) {
    std::vector<BackendDesc> out;
    BackendDesc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    if (!heur.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph) ||
        !heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode) || !heur.finalize())
        return out;
    std::int64_t count = 0;
    if (cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                 nullptr) != CUDNN_STATUS_SUCCESS ||
        count <= 0)
        return out;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (std::int64_t i = 0; i < count; ++i) {
        out.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        if (!out.back().get()) return {};
        raw.push_back(out.back().get());
    }
    std::int64_t got = 0;
    if (cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                 raw.data()) != CUDNN_STATUS_SUCCESS)
        return {};
    out.resize(static_cast<std::size_t>(std::clamp<std::int64_t>(got, 0, count)));
    return out;
}

/// How an engine configuration may be used.
enum class EngineUse {
    No,               ///< it does not compute what the backend promises
    AheadOfTime,      ///< it does, with precompiled kernels
    RunTimeCompiled,  ///< it does, with kernels compiled on first use (tried last)
};

/// Whether an engine configuration computes what the backend promises: deterministic, inputs
/// not converted to a narrower type, no TF32 tensor cores for f32 unless allowed, f32
/// accumulation for f16 / bf16; and whether cuDNN compiles its kernels at run time.
EngineUse engine_use(const BackendDesc& config, bool fma_only, bool half) {
    BackendDesc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    cudnnBackendDescriptor_t e = engine.get();
    std::int64_t n = 0;
    if (!e ||
        cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e) != CUDNN_STATUS_SUCCESS)
        return EngineUse::No;
    std::array<cudnnBackendNumericalNote_t, CUDNN_NUMERICAL_NOTE_TYPE_COUNT> notes{};
    std::int64_t nn = 0;
    if (cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 static_cast<std::int64_t>(notes.size()), &nn,
                                 notes.data()) != CUDNN_STATUS_SUCCESS)
        return EngineUse::No;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(nn, notes.size()); ++i) {
        const auto note = notes[static_cast<std::size_t>(i)];
        if (note == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC ||
            note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS ||
            (fma_only && note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE) ||
            (half && note == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION))
            return EngineUse::No;
    }
    std::array<cudnnBackendBehaviorNote_t, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT> behavior{};
    std::int64_t nb = 0;
    if (cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                 static_cast<std::int64_t>(behavior.size()), &nb,
                                 behavior.data()) != CUDNN_STATUS_SUCCESS)
        return EngineUse::No;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(nb, behavior.size()); ++i)
        if (behavior[static_cast<std::size_t>(i)] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION)
            return EngineUse::RunTimeCompiled;
    return EngineUse::AheadOfTime;
}

/// Runs a graph plan on the problem's pointers.
cudnnStatus_t execute(cudnnHandle_t h, const GraphPlan& g, const ConvPtrs& q, void* ws) {
    BackendDesc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const std::array<std::int64_t, 3> uids{kUidX, kUidW, kUidY};
    const std::array<void*, 3> ptrs{q.x, q.w, q.y};
    if (!pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids.data()) ||
        !pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs.data()) ||
        !pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws) ||
        !pack.finalize())
        return CUDNN_STATUS_BAD_PARAM;
    return cudnnBackendExecute(h, g.plan.get(), pack.get());
}

/// Milliseconds of one run of `g` (the median of three after a warm-up), or infinity when it
/// fails. `q`'s output is a scratch buffer.
float time_plan(Context& ctx, cudnnHandle_t h, const GraphPlan& g, const ConvPtrs& q) {
    const auto ws_block = g.workspace > 0 ? ctx.workspace(g.workspace) : nullptr;
    void* ws = ws_block ? ws_block->data() : nullptr;
    constexpr float kFailed = std::numeric_limits<float>::infinity();
    if (execute(h, g, q, ws) != CUDNN_STATUS_SUCCESS) return kFailed;
    std::array<cudaEvent_t, 2> ev{};
    if (cudaEventCreate(&ev[0]) != cudaSuccess) return kFailed;
    if (cudaEventCreate(&ev[1]) != cudaSuccess) {
        cudaEventDestroy(ev[0]);
        return kFailed;
    }
    std::array<float, 3> ms{kFailed, kFailed, kFailed};
    for (float& m : ms) {
        cudaEventRecord(ev[0], ctx.stream());
        const cudnnStatus_t st = execute(h, g, q, ws);
        cudaEventRecord(ev[1], ctx.stream());
        if (st != CUDNN_STATUS_SUCCESS || cudaEventSynchronize(ev[1]) != cudaSuccess ||
            cudaEventElapsedTime(&m, ev[0], ev[1]) != cudaSuccess)
            m = kFailed;
    }
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    std::sort(ms.begin(), ms.end());
    return ms[1];
}

/// The graph-API plan of a problem (the header's rules), or null when no engine takes it.
std::unique_ptr<GraphPlan> make_graph_plan(Context& ctx, cudnnHandle_t h, ConvKind kind,
                                           const ConvProblem& p, DType dt, bool tf32,
                                           bool accumulate, const ConvPtrs& q,
                                           std::size_t out_bytes) {
    if (legacy_mode()) return nullptr;
    const cudnnDataType_t type = dt == DType::F64    ? CUDNN_DATA_DOUBLE
                                 : dt == DType::F16  ? CUDNN_DATA_HALF
                                 : dt == DType::BF16 ? CUDNN_DATA_BFLOAT16
                                                     : CUDNN_DATA_FLOAT;
    const cudnnDataType_t compute = dt == DType::F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    std::vector<BackendDesc> parts;
    if (!conv_graph(h, kind, p, type, compute, accumulate, parts)) return nullptr;
    std::vector<BackendDesc> configs = engine_configs(parts.back(), CUDNN_HEUR_MODE_A);
    for (BackendDesc& c : engine_configs(parts.back(), CUDNN_HEUR_MODE_FALLBACK))
        configs.push_back(std::move(c));
    const bool fma_only = dt == DType::F32 && !tf32, half = is_half(dt);
    const std::size_t candidates = benchmark_mode() ? 8 : 1;
    std::vector<EngineUse> use;
    for (const BackendDesc& c : configs)
        use.push_back(c.get() ? engine_use(c, fma_only, half) : EngineUse::No);
    std::vector<std::unique_ptr<GraphPlan>> found;
    for (const EngineUse pass : {EngineUse::AheadOfTime, EngineUse::RunTimeCompiled}) {
        for (std::size_t k = 0; k < configs.size(); ++k) {
            if (found.size() == candidates) break;
            if (use[k] != pass) continue;
            BackendDesc& c = configs[k];
            auto g = std::make_unique<GraphPlan>();
            g->plan = BackendDesc(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            const cudnnBackendDescriptor_t cfg = c.get();
            if (!g->plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h) ||
                !g->plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                             1, &cfg) ||
                !g->plan.finalize())
                continue;
            std::int64_t ws = 0, n = 0;
            if (cudnnBackendGetAttribute(g->plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                         CUDNN_TYPE_INT64, 1, &n, &ws) != CUDNN_STATUS_SUCCESS ||
                ws < 0 || static_cast<std::size_t>(ws) > kConvWorkspaceCap)
                continue;
            g->workspace = static_cast<std::size_t>(ws);
            g->config = std::move(c);
            found.push_back(std::move(g));
        }
        if (!found.empty()) break;  // run-time compiled engines only when nothing else fits
    }
    if (found.empty()) return nullptr;
    std::size_t best = 0;
    if (found.size() > 1) {
        // Benchmark mode: time each on a scratch output (the real one may hold earlier batch
        // chunks' sums).
        const std::shared_ptr<Buffer> scratch = ctx.alloc(out_bytes);
        ConvPtrs s = q;
        (kind == ConvKind::Forward        ? s.y
         : kind == ConvKind::BackwardData ? s.x
                                          : s.w) = scratch->data();
        float best_ms = std::numeric_limits<float>::infinity();
        for (std::size_t i = 0; i < found.size(); ++i) {
            const float ms = time_plan(ctx, h, *found[i], s);
            if (ms < best_ms) {
                best_ms = ms;
                best = i;
            }
        }
    }
    found[best]->parts = std::move(parts);
    return std::move(found[best]);
}

/// Whether a reported algorithm may be used: it ran (or would run), deterministically, within
/// the workspace cap.
template <class Perf, class Calls>
bool usable(const Perf& r) {
    return r.status == CUDNN_STATUS_SUCCESS && r.determinism == CUDNN_DETERMINISTIC &&
           Calls::deterministic(static_cast<int>(r.algo)) && r.memory <= kConvWorkspaceCap;
}

/// Picks the algorithm of `plan` (its descriptors are set) and sets its math type and workspace.
template <class Calls>
void choose_algorithm(Context& ctx, cudnnHandle_t h, ConvPlan& plan, const ConvProblem& p, DType dt,
                      bool fma_only, const ConvPtrs& q, std::size_t out_bytes, const char* op) {
    using Perf = typename Calls::Perf;
    std::array<Perf, Calls::count> perf{};
    int returned = 0;
    // f16 / bf16: always timed. cuDNN's heuristic ranks slow algorithms first for them (an H200,
    // ResNet 3x3 64->64 fwd+bwd in bf16: 4.7 TFLOP/s with its first deterministic choice, 36
    // timed).
    if (benchmark_mode() || is_half(dt)) {
        // Time the deterministic algorithms that fit, with a scratch output (the real one may
        // hold earlier batch chunks' sums) and the largest workspace they need.
        std::size_t ws_bytes = 0;
        for (int a = 0; a < Calls::count; ++a) {
            std::size_t b = 0;
            if (Calls::deterministic(a) &&
                Calls::workspace(h, plan, a, &b) == CUDNN_STATUS_SUCCESS && b <= kConvWorkspaceCap)
                ws_bytes = std::max(ws_bytes, b);
        }
        const std::shared_ptr<Buffer> scratch = ctx.alloc(out_bytes);
        const auto ws_block = ws_bytes > 0 ? ctx.workspace(ws_bytes) : nullptr;
        void* ws = ws_block ? ws_block->data() : nullptr;
        const cudnnStatus_t st = Calls::find(h, plan, q, scratch->data(), Calls::count, &returned,
                                             perf.data(), ws, ws_bytes);
        if (st != CUDNN_STATUS_SUCCESS) dnn_fail(st, "cudnnFind*AlgorithmEx", op, p, dt);
    } else {
        const cudnnStatus_t st = Calls::heuristic(h, plan, Calls::count, &returned, perf.data());
        if (st != CUDNN_STATUS_SUCCESS) dnn_fail(st, "cudnnGet*Algorithm_v7", op, p, dt);
    }
    const auto set_math = [&](cudnnMathType_t reported) {
        const cudnnMathType_t m = fma_only ? CUDNN_FMA_MATH : reported;
        const cudnnStatus_t st = cudnnSetConvolutionMathType(plan.conv, m);
        if (st != CUDNN_STATUS_SUCCESS) dnn_fail(st, "cudnnSetConvolutionMathType", op, p, dt);
    };
    for (int i = 0; i < returned; ++i) {
        const Perf& r = perf[static_cast<std::size_t>(i)];
        if (!usable<Perf, Calls>(r)) continue;
        set_math(r.mathType);
        std::size_t b = 0;
        if (Calls::workspace(h, plan, static_cast<int>(r.algo), &b) != CUDNN_STATUS_SUCCESS ||
            b > kConvWorkspaceCap)
            continue;
        plan.algo = static_cast<int>(r.algo);
        plan.workspace = b;
        return;
    }
    // None reported: the first deterministic algorithm that accepts the problem.
    set_math(fma_only ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH);
    for (int a = 0; a < Calls::count; ++a) {
        std::size_t b = 0;
        if (!Calls::deterministic(a) || Calls::workspace(h, plan, a, &b) != CUDNN_STATUS_SUCCESS ||
            b > kConvWorkspaceCap)
            continue;
        plan.algo = a;
        plan.workspace = b;
        return;
    }
    dnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "algorithm selection (no deterministic algorithm)", op, p,
             dt);
}

std::unique_ptr<ConvPlan> make_plan(Context& ctx, cudnnHandle_t h, ConvKind kind,
                                    const ConvProblem& p, DType dt, bool tf32, bool accumulate,
                                    const ConvPtrs& q, std::size_t out_bytes, const char* op) {
    auto plan = std::make_unique<ConvPlan>();
    plan->graph = make_graph_plan(ctx, h, kind, p, dt, tf32, accumulate, q, out_bytes);
    if (plan->graph) return plan;
    const bool f64 = dt == DType::F64;
    // f16 / bf16 tensors with f32 compute (cuDNN's pseudo-half configuration: f32 accumulation on
    // tensor cores, each output rounded once).
    const cudnnDataType_t type = f64                 ? CUDNN_DATA_DOUBLE
                                 : dt == DType::F16  ? CUDNN_DATA_HALF
                                 : dt == DType::BF16 ? CUDNN_DATA_BFLOAT16
                                                     : CUDNN_DATA_FLOAT;
    const cudnnDataType_t compute = f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    const auto ok = [&](cudnnStatus_t st, const char* call) {
        if (st != CUDNN_STATUS_SUCCESS) dnn_fail(st, call, op, p, dt);
    };
    const int nb = p.nd + 2;
    const auto packed = [nb](const std::array<int, 5>& d) {
        std::array<int, 5> s{};
        s[static_cast<std::size_t>(nb - 1)] = 1;
        for (int i = nb - 2; i >= 0; --i)
            s[static_cast<std::size_t>(i)] =
                s[static_cast<std::size_t>(i + 1)] * d[static_cast<std::size_t>(i + 1)];
        return s;
    };
    ok(cudnnCreateTensorDescriptor(&plan->x), "cudnnCreateTensorDescriptor");
    ok(cudnnCreateTensorDescriptor(&plan->y), "cudnnCreateTensorDescriptor");
    ok(cudnnCreateFilterDescriptor(&plan->w), "cudnnCreateFilterDescriptor");
    ok(cudnnCreateConvolutionDescriptor(&plan->conv), "cudnnCreateConvolutionDescriptor");
    const auto xs = packed(p.x), ys = packed(p.y);
    ok(cudnnSetTensorNdDescriptor(plan->x, type, nb, p.x.data(), xs.data()),
       "cudnnSetTensorNdDescriptor");
    ok(cudnnSetTensorNdDescriptor(plan->y, type, nb, p.y.data(), ys.data()),
       "cudnnSetTensorNdDescriptor");
    ok(cudnnSetFilterNdDescriptor(plan->w, type, CUDNN_TENSOR_NCHW, nb, p.w.data()),
       "cudnnSetFilterNdDescriptor");
    ok(cudnnSetConvolutionNdDescriptor(plan->conv, p.nd, p.pad.data(), p.stride.data(),
                                       p.dil.data(), CUDNN_CROSS_CORRELATION, compute),
       "cudnnSetConvolutionNdDescriptor");
    ok(cudnnSetConvolutionGroupCount(plan->conv, p.groups), "cudnnSetConvolutionGroupCount");
    const bool fma_only = dt == DType::F32 && !tf32;
    ok(cudnnSetConvolutionMathType(plan->conv, fma_only ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH),
       "cudnnSetConvolutionMathType");
    switch (kind) {
        case ConvKind::Forward:
            choose_algorithm<FwdCalls>(ctx, h, *plan, p, dt, fma_only, q, out_bytes, op);
            break;
        case ConvKind::BackwardData:
            choose_algorithm<BwdDataCalls>(ctx, h, *plan, p, dt, fma_only, q, out_bytes, op);
            break;
        case ConvKind::BackwardFilter:
            choose_algorithm<BwdFilterCalls>(ctx, h, *plan, p, dt, fma_only, q, out_bytes, op);
            break;
    }
    return plan;
}

using PlanKey = std::array<std::int64_t, 31>;

/// The cached plan of a problem (made on first use).
const ConvPlan& plan_for(Context& ctx, cudnnHandle_t h, ConvKind kind, const ConvProblem& p,
                         DType dt, bool tf32, bool accumulate, const ConvPtrs& q,
                         std::size_t out_bytes, const char* op) {
    PlanKey key{};
    std::size_t at = 0;
    key[at++] = static_cast<std::int64_t>(ctx.index());
    key[at++] = static_cast<std::int64_t>(dt);
    key[at++] = tf32 ? 1 : 0;
    key[at++] = accumulate ? 1 : 0;
    key[at++] = static_cast<std::int64_t>(kind);
    key[at++] = p.nd;
    for (int i = 0; i < 5; ++i) {
        key[at++] = p.x[static_cast<std::size_t>(i)];
        key[at++] = p.w[static_cast<std::size_t>(i)];
        key[at++] = p.y[static_cast<std::size_t>(i)];
    }
    for (int i = 0; i < 3; ++i) {
        key[at++] = p.pad[static_cast<std::size_t>(i)];
        key[at++] = p.stride[static_cast<std::size_t>(i)];
        key[at++] = p.dil[static_cast<std::size_t>(i)];
    }
    key[at++] = p.groups;
    static std::mutex mutex;
    // Never destroyed: cuDNN may be unloaded before static destructors run.
    static auto* plans = new std::unordered_map<PlanKey, std::unique_ptr<ConvPlan>, PlanKeyHash>();
    std::lock_guard lock(mutex);
    auto it = plans->find(key);
    if (it == plans->end())
        it = plans->emplace(key, make_plan(ctx, h, kind, p, dt, tf32, accumulate, q, out_bytes, op))
                 .first;
    return *it->second;
}

/// Runs `kind` on dense device buffers (x, w, y as the problem names them; the kind's output is
/// overwritten), in batch chunks that cuDNN's int-sized tensors can hold.
void run_conv(Context& ctx, ConvKind kind, const ConvProblem& full, DType dt, void* x, void* w,
              void* y, const char* op) {
    const int nb = full.nd + 2;
    const std::int64_t xs = sample_elements(full.x, nb), ys = sample_elements(full.y, nb);
    const std::int64_t wn = static_cast<std::int64_t>(full.w[0]) * sample_elements(full.w, nb);
    const std::int64_t per = std::max<std::int64_t>({xs, ys, 1});
    if (per > INT_MAX || wn > INT_MAX)
        dnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                 "descriptor setup (a sample or the weight has more "
                 "than 2^31 - 1 elements)",
                 op, full, dt);
    const std::int64_t batch = full.x[0];
    const std::int64_t chunk =
        std::max<std::int64_t>(1, std::min<std::int64_t>(batch, INT_MAX / per));
    const bool tf32 = dt == DType::F32 && ::burn::cuda_allow_tf32();
    const std::size_t es = element_size(dt);
    ctx.activate();
    const auto h = static_cast<cudnnHandle_t>(ctx.cudnn());
    const auto library_lock = ctx.lock_libraries();  // one thread at a time on the handle
    const float one32 = 1.0f, zero32 = 0.0f;
    const double one64 = 1.0, zero64 = 0.0;
    const bool f64 = dt == DType::F64;
    const void* alpha = f64 ? static_cast<const void*>(&one64) : &one32;
    for (std::int64_t b0 = 0; b0 < batch; b0 += chunk) {
        ConvProblem p = full;
        p.x[0] = p.y[0] = static_cast<int>(std::min(chunk, batch - b0));
        const auto off = [&](void* base, std::int64_t per_sample) {
            return static_cast<void*>(static_cast<char*>(base) +
                                      static_cast<std::size_t>(b0 * per_sample) * es);
        };
        const ConvPtrs q{off(x, xs), w, off(y, ys)};
        const std::int64_t out_elems = kind == ConvKind::Forward        ? p.y[0] * ys
                                       : kind == ConvKind::BackwardData ? p.x[0] * xs
                                                                        : wn;
        // Weight gradients add the chunks after the first.
        const bool accumulate = kind == ConvKind::BackwardFilter && b0 > 0;
        const ConvPlan& plan = plan_for(ctx, h, kind, p, dt, tf32, accumulate, q,
                                        static_cast<std::size_t>(out_elems) * es, op);
        if (plan.graph) {
            const auto ws_block =
                plan.graph->workspace > 0 ? ctx.workspace(plan.graph->workspace) : nullptr;
            const cudnnStatus_t st =
                execute(h, *plan.graph, q, ws_block ? ws_block->data() : nullptr);
            if (st != CUDNN_STATUS_SUCCESS) dnn_fail(st, "cudnnBackendExecute", op, p, dt);
            continue;
        }
        const auto ws_block = plan.workspace > 0 ? ctx.workspace(plan.workspace) : nullptr;
        void* ws = ws_block ? ws_block->data() : nullptr;
        const void* beta = f64 ? (accumulate ? &one64 : &zero64)
                               : static_cast<const void*>(accumulate ? &one32 : &zero32);
        cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
        const char* call = "";
        switch (kind) {
            case ConvKind::Forward:
                call = "cudnnConvolutionForward";
                st = cudnnConvolutionForward(h, alpha, plan.x, q.x, plan.w, q.w, plan.conv,
                                             static_cast<cudnnConvolutionFwdAlgo_t>(plan.algo), ws,
                                             plan.workspace, beta, plan.y, q.y);
                break;
            case ConvKind::BackwardData:
                call = "cudnnConvolutionBackwardData";
                st = cudnnConvolutionBackwardData(
                    h, alpha, plan.w, q.w, plan.y, q.y, plan.conv,
                    static_cast<cudnnConvolutionBwdDataAlgo_t>(plan.algo), ws, plan.workspace, beta,
                    plan.x, q.x);
                break;
            case ConvKind::BackwardFilter:
                call = "cudnnConvolutionBackwardFilter";
                st = cudnnConvolutionBackwardFilter(
                    h, alpha, plan.x, q.x, plan.y, q.y, plan.conv,
                    static_cast<cudnnConvolutionBwdFilterAlgo_t>(plan.algo), ws, plan.workspace,
                    beta, plan.w, q.w);
                break;
        }
        if (st != CUDNN_STATUS_SUCCESS) dnn_fail(st, call, op, p, dt);
    }
}

void check_float(const CudaTensor& t, const char* op) {
    BURN_CHECK(t.dtype == DType::F32 || t.dtype == DType::F64 || is_half(t.dtype), "Cuda ", op,
               ": dtype ", t.dtype, " is not supported (f32, f64, f16, bf16)");
}

/// `t` dense and 16-byte aligned (cuDNN's vectorised kernels may assume it; a dense view at an
/// odd offset is copied).
CudaTensor dense(CudaTensor t) {
    if (!is_dense(t)) return Kernels::contiguous(std::move(t));
    if (reinterpret_cast<std::uintptr_t>(first(t)) % 16 == 0) return t;
    CudaTensor c = alloc(t.shape, t.dtype, t.device);
    Context& ctx = context(c);
    ctx.activate();
    check(cudaMemcpyAsync(first(c), first(t), t.num_elements() * element_size(t.dtype),
                          cudaMemcpyDeviceToDevice, ctx.stream()),
          "conv");
    return c;
}

/// A tensor of `shape` filled with zeros, or with bias[c] along dim 1 when a bias is given.
CudaTensor fill_bias(const Shape& shape, DType dt, const CudaDevice& device,
                     const std::optional<CudaTensor>& bias) {
    CudaTensor out = alloc(shape, dt, device);
    const std::size_t n = out.num_elements();
    if (n == 0) return out;
    Context& ctx = context(out);
    if (!bias) {
        ctx.activate();
        check(cudaMemsetAsync(first(out), 0, n * element_size(dt), ctx.stream()), "conv");
        return out;
    }
    const auto C = static_cast<std::int64_t>(shape[1]);
    const auto L = static_cast<std::int64_t>(n / (shape[0] * shape[1]));
    const std::int64_t stride = bias->strides[0], total = static_cast<std::int64_t>(n);
    launch_1d(ctx, "conv", variant("conv_bias_set", dt), n, first(out), first(*bias), stride, total,
              C, L);
    return out;
}

/// y (dense [B, C, ...]) += bias[c].
void add_bias(CudaTensor& y, const CudaTensor& bias) {
    const std::size_t n = y.num_elements();
    if (n == 0) return;
    const auto C = static_cast<std::int64_t>(y.shape[1]);
    const auto L = static_cast<std::int64_t>(n / (y.shape[0] * y.shape[1]));
    const std::int64_t stride = bias.strides[0], total = static_cast<std::int64_t>(n);
    launch_1d(context(y), "conv", variant("conv_bias_add", y.dtype), n, first(y), first(bias),
              stride, total, C, L);
}

/// out [B, Cout, O...] = conv(in, w): cuDNN's forward of the problem in -> out_shape.
CudaTensor run_forward(const CudaTensor& in, const CudaTensor& w, const Shape& out_shape,
                       const SpatialArgs& a, const std::optional<CudaTensor>& bias,
                       const char* op) {
    check_float(in, op);
    if (in.num_elements() == 0 || w.num_elements() == 0)  // no input reaches the output
        return fill_bias(out_shape, in.dtype, in.device, bias);
    CudaTensor out = alloc(out_shape, in.dtype, in.device);
    if (out.num_elements() == 0) return out;
    const CudaTensor x = dense(in), wc = dense(w);
    const ConvProblem p = make_problem(x.shape, wc.shape, out_shape, a, op);
    Context& ctx = context(out);
    run_conv(ctx, ConvKind::Forward, p, in.dtype, first(x), first(wc), first(out), op);
    if (bias) add_bias(out, *bias);
    return out;
}

/// in_grad [B, Cin, I...] of the convolution in_shape -> out_grad.shape: cuDNN's BackwardData.
CudaTensor run_input(const CudaTensor& out_grad, const CudaTensor& w, const Shape& in_shape,
                     const SpatialArgs& a, const char* op) {
    check_float(out_grad, op);
    if (out_grad.num_elements() == 0 || w.num_elements() == 0)
        return fill_bias(in_shape, out_grad.dtype, out_grad.device, std::nullopt);
    CudaTensor in_grad = alloc(in_shape, out_grad.dtype, out_grad.device);
    if (in_grad.num_elements() == 0) return in_grad;
    const CudaTensor g = dense(out_grad), wc = dense(w);
    const ConvProblem p = make_problem(in_shape, wc.shape, g.shape, a, op);
    Context& ctx = context(in_grad);
    run_conv(ctx, ConvKind::BackwardData, p, g.dtype, first(in_grad), first(wc), first(g), op);
    return in_grad;
}

/// w_grad of the convolution in -> out_grad.shape: cuDNN's BackwardFilter.
CudaTensor run_weight(const CudaTensor& in, const CudaTensor& out_grad, const Shape& w_shape,
                      const SpatialArgs& a, const char* op) {
    check_float(in, op);
    if (in.num_elements() == 0 || out_grad.num_elements() == 0)
        return fill_bias(w_shape, in.dtype, in.device, std::nullopt);
    CudaTensor w_grad = alloc(w_shape, in.dtype, in.device);
    if (w_grad.num_elements() == 0) return w_grad;
    const CudaTensor x = dense(in), g = dense(out_grad);
    const ConvProblem p = make_problem(x.shape, w_shape, g.shape, a, op);
    Context& ctx = context(w_grad);
    run_conv(ctx, ConvKind::BackwardFilter, p, x.dtype, first(x), first(w_grad), first(g), op);
    return w_grad;
}

/// `t` zero-padded at the end of its spatial dims to `shape` (itself when it has that shape).
CudaTensor pad_to(CudaTensor t, const Shape& shape) {
    if (t.shape == shape) return t;
    CudaTensor out = alloc(shape, t.dtype, t.device);
    const std::size_t n = out.num_elements();
    if (n == 0) return out;
    Meta dims;
    dims.rank = static_cast<std::int32_t>(shape.rank());
    for (std::size_t d = 0; d < shape.rank(); ++d)
        dims.shape[d] = static_cast<std::int64_t>(shape[d]);
    launch_1d(context(out), "conv", variant("conv_pad_copy", t.dtype), n, first(t), meta(t),
              first(out), dims, static_cast<std::int64_t>(n));
    return out;
}

/// The output of the convolution (weight shape w, transposed layout) of a transposed
/// convolution's output `out`: x's shape, or larger where padding_out reaches the stride.
Shape transposed_conv_input(const Shape& out, const Shape& w, const SpatialArgs& a) {
    return backend::conv_shape(out, w, a);
}

}  // namespace

CudaTensor Kernels::conv(CudaTensor x, CudaTensor w, std::optional<CudaTensor> bias,
                         const SpatialArgs& a) {
    const Shape out = backend::conv_shape(x.shape, w.shape, a);
    return run_forward(x, w, out, a, bias, "conv");
}

CudaTensor Kernels::conv_x_backward(CudaTensor x, CudaTensor w, CudaTensor grad,
                                    const SpatialArgs& a) {
    return run_input(grad, w, x.shape, a, "conv_x_backward");
}

CudaTensor Kernels::conv_weight_backward(CudaTensor x, CudaTensor w, CudaTensor grad,
                                         const SpatialArgs& a) {
    return run_weight(x, grad, w.shape, a, "conv_weight_backward");
}

CudaTensor Kernels::conv_bias_backward(CudaTensor grad) {
    check_float(grad, "conv_bias_backward");
    const std::size_t C = grad.shape[1];
    const DType dt = grad.dtype;
    if (grad.num_elements() == 0) return fill_bias(Shape{C}, dt, grad.device, std::nullopt);
    CudaTensor out = alloc(Shape{C}, dt, grad.device);
    Context& ctx = context(out);
    const auto B = static_cast<std::int64_t>(grad.shape[0]);
    const auto Cs = static_cast<std::int64_t>(C);
    const auto L = static_cast<std::int64_t>(grad.num_elements() / (grad.shape[0] * C));
    const std::int64_t BL = B * L;
    const int is_dense_grad = is_dense(grad) ? 1 : 0;
    // Chunks of about 8192 elements per block, at most 256 per channel; dense grads with rows of
    // at least 128 elements are chunked by whole rows (the kernel's rule). Sizes alone decide:
    // the same sums on every device.
    constexpr std::int64_t kChunk = 8192, kMaxSplits = 256;
    const bool rows = is_dense_grad && L >= 128;
    const std::int64_t units = rows ? B : BL;
    std::int64_t splits = std::clamp<std::int64_t>((BL + kChunk - 1) / kChunk, 1, kMaxSplits);
    splits = std::min(splits, units);
    const std::int64_t chunk = (units + splits - 1) / splits;
    splits = (units + chunk - 1) / chunk;
    // The view as [C, B, s...]: element c * B * L + j is the j-th of channel c.
    Meta m = meta(grad);
    std::swap(m.shape[0], m.shape[1]);
    std::swap(m.strides[0], m.strides[1]);
    std::shared_ptr<Buffer> partial;
    void* partial_ptr = nullptr;
    if (splits > 1) {
        partial = ctx.alloc(static_cast<std::size_t>(Cs * splits) * sizeof(double));
        partial_ptr = partial->data();
    }
    const std::int64_t items = Cs * splits;
    const std::int64_t cap = static_cast<std::int64_t>(ctx.properties().multiProcessorCount) * 16;
    const dim3 grid(static_cast<unsigned>(std::max<std::int64_t>(1, std::min(items, cap))));
    launch(ctx, "conv", variant("conv_bias_grad", dt), grid, dim3(256), 0, first(grad), m,
           is_dense_grad, B, Cs, L, splits, chunk, first(out), partial_ptr);
    if (splits > 1)
        launch_1d(ctx, "conv", variant("conv_bias_grad_finish", dt), C, partial_ptr, first(out), Cs,
                  splits);
    return out;
}

CudaTensor Kernels::conv_transpose(CudaTensor x, CudaTensor w, std::optional<CudaTensor> bias,
                                   const SpatialArgs& a) {
    // The input-gradient of the convolution (weight w) that maps the output back onto x.
    const char* op = "conv_transpose";
    check_float(x, op);
    const Shape out = backend::conv_transpose_shape(x.shape, w.shape, a);
    if (x.num_elements() == 0 || w.num_elements() == 0)
        return fill_bias(out, x.dtype, x.device, bias);
    if (out.num_elements() == 0) return alloc(out, x.dtype, x.device);
    CudaTensor g = pad_to(std::move(x), transposed_conv_input(out, w.shape, a));
    CudaTensor y = run_input(g, w, out, a, op);
    if (bias) add_bias(y, *bias);
    return y;
}

CudaTensor Kernels::conv_transpose_x_backward(CudaTensor x, CudaTensor w, CudaTensor grad,
                                              const SpatialArgs& a) {
    const char* op = "conv_transpose_x_backward";
    check_float(grad, op);
    const Shape full = transposed_conv_input(grad.shape, w.shape, a);
    if (full == x.shape) return run_forward(grad, w, x.shape, a, std::nullopt, op);
    if (x.num_elements() == 0) return alloc(x.shape, grad.dtype, grad.device);
    // The convolution of grad reaches past x's extent: keep x's part.
    CudaTensor r = run_forward(grad, w, full, a, std::nullopt, op);
    r.shape = x.shape;
    return Kernels::contiguous(std::move(r));
}

CudaTensor Kernels::conv_transpose_weight_backward(CudaTensor x, CudaTensor w, CudaTensor grad,
                                                   const SpatialArgs& a) {
    const char* op = "conv_transpose_weight_backward";
    check_float(x, op);
    if (x.num_elements() == 0 || grad.num_elements() == 0 || w.num_elements() == 0)
        return fill_bias(w.shape, x.dtype, x.device, std::nullopt);
    CudaTensor g = pad_to(std::move(x), transposed_conv_input(grad.shape, w.shape, a));
    return run_weight(grad, g, w.shape, a, op);
}

}  // namespace burn::cuda

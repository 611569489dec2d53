// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's fusion part (Fusion<Cuda<F>>, fusion::FusionKernelSet): a fused element-wise
// program (<burn/fusion/program.hpp>) runs as one CUDA kernel, generated as CUDA C++ and compiled
// by NVRTC on its first use (Context::generated_kernel: kept for the process, and on disk in the
// kernel cache, so a second process compiles nothing).
//
// The kernel's text depends on the program's structure and on how each input is read, never on
// the shape or the scalar values (those are arguments), so a training loop compiles each of its
// programs once. An input is read as a plain array (dense, of the program's element count), as
// one value (a single element broadcast everywhere) or through its Meta (any other view: the
// strided inputs' dims collapsed together, as the unfused kernels do). With no strided input the
// kernel reads and writes 16 bytes at a time (4 f32 / 2 f64 elements per thread step).
//
// The instructions are written by the shared generator (burn/fusion/codegen.hpp) in the CUDA
// dialect below. Each computes what its unfused kernel computes: the same functors (kernels/cuda/
// ops.cuh), the same special cases (pow by 1, 0.5, -1, 2), and arithmetic through correctly
// rounded intrinsics (add_rn, mul_rn, ...) that the compiler cannot contract into a fused
// multiply-add across instructions. A division by a power-of-two scalar is a multiplication by
// its exact reciprocal (the same bits, at a fraction of the cost of an IEEE division). Only the
// insides of erf, tanh and the like may be contracted differently in a larger kernel (a last-bit
// difference).
#include <burn/fusion/codegen.hpp>
#include <burn/fusion/program.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "ops_common.hpp"

// g++ 12 warns about `"literal" + std::string` (a false positive: GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

namespace burn::cuda {

namespace {

using fusion::Instr;
using fusion::Program;
using fusion::codegen::reg;

/// How the kernel reads an input.
enum class Access : char {
    Dense = 'd',    ///< element i of the program is element i of the array
    Scalar = 's',   ///< one element, the same at every position
    Strided = 'g',  ///< through its Meta (broadcast, permuted, sliced, flipped views)
};

/// Strided inputs beyond this many (136 bytes of kernel parameters each) are copied to dense
/// arrays first.
constexpr std::size_t kMaxStrided = 16;

/// The kernel's name in every generated program.
constexpr const char* kKernelName = "fused";

std::string scalar_arg(std::size_t slot) { return "s.v[" + std::to_string(slot) + "]"; }

/// How the generated CUDA C++ spells each instruction: the functors of kernels/cuda/ops.cuh.
const fusion::codegen::Dialect kCuda{
    .name = "Cuda",
    .unary = {"(-$a)", "m_fabs($a)", "Sign<$E>{}($a)", "m_exp($a)", "m_log($a)", "m_log1p($a)",
              "m_erf($a)", "m_sqrt($a)", "div_rn(($E)1, $a)", "m_sin($a)", "m_cos($a)",
              "m_tanh($a)", "m_rint($a)", "m_floor($a)", "m_ceil($a)"},
    .binary = {"add_rn($a, $b)", "sub_rn($a, $b)", "mul_rn($a, $b)", "div_rn($a, $b)",
               "Rem<$E>{}($a, $b)", "m_pow($a, $b)", "max_nan($a, $b)", "min_nan($a, $b)"},
    .compare = "(u8)($a $op $b)",
    .clamp = "min_nan(max_nan($a, $0), $1)",
    .where = "($b ? $c : $a)",
    .fill = "($b ? $0 : $a)",
    .activation = {"Relu<$E>{$0, $1}($a)", "Gelu<$E>{$0, $1}($a)", "Sigmoid<$E>{$0, $1}($a)",
                   "LogSigmoid<$E>{$0, $1}($a)", "HardSigmoid<$E>{$0, $1}($a)",
                   "LeakyRelu<$E>{$0, $1}($a)"},
    .activation_backward = {"ReluBackward<$E>{}($a, $b)", "GeluBackward<$E>{}($a, $b)",
                            "SigmoidBackward<$E>{}($a, $b)", "LogSigmoidBackward<$E>{}($a, $b)"},
    .pow_special = {"$a", "m_sqrt($a)", "div_rn(($E)1, $a)", "mul_rn($a, $a)"},
    .div_by_reciprocal = "mul_rn($a, $0)",
    .scalar = scalar_arg,
};

/// Everything the generated text depends on: the program's structure and the inputs' access.
std::string kernel_key(const Program& p, DType fdt, const std::vector<Access>& access) {
    std::string k = fusion::codegen::structure_key(p, fdt, kCuda);
    for (Access a : access) k += static_cast<char>(a);
    return k;
}

/// The input registers of an element (read by `load(i)`) and the instructions computing the
/// others, one line each.
template <class Load>
std::string registers_code(const Program& p, DType fdt, const std::vector<std::size_t>& slot,
                           const std::string& indent, const Load& load) {
    const std::string E = fdt == DType::F64 ? "double" : "float";
    const auto type_of = [&](DType d) { return d == DType::Bool ? std::string("u8") : E; };
    const std::size_t n_in = p.inputs.size();
    std::string b;
    for (std::size_t i = 0; i < n_in; ++i)
        b += indent + "const " + type_of(p.inputs[i]) + " r" + std::to_string(i) + " = " + load(i) +
             ";\n";
    for (std::size_t k = 0; k < p.instrs.size(); ++k) {
        const Instr& ins = p.instrs[k];
        b += indent + "const " + type_of(ins.dtype) + " " +
             reg(static_cast<std::uint32_t>(n_in + k)) + " = " +
             fusion::codegen::expression(p, k, fdt, kCuda, slot[k], E) + ";\n";
    }
    return b;
}

/// The kernel's parameters: the inputs (with the strided ones' Metas), the outputs, the scalars
/// and the element count.
std::string kernel_params(const Program& p, DType fdt, const std::vector<Access>& access) {
    const std::string E = fdt == DType::F64 ? "double" : "float";
    const auto type_of = [&](DType d) { return d == DType::Bool ? std::string("u8") : E; };
    const std::size_t n_in = p.inputs.size();
    std::string s;
    for (std::size_t i = 0; i < n_in; ++i) {
        s += "const " + type_of(p.inputs[i]) + "* __restrict__ in" + std::to_string(i) + ", ";
        if (access[i] == Access::Strided) s += "Meta m" + std::to_string(i) + ", ";
    }
    for (std::size_t j = 0; j < p.outputs.size(); ++j) {
        const std::uint32_t r = p.outputs[j];
        s += type_of(r < n_in ? p.inputs[r] : p.instrs[r - n_in].dtype) + "* __restrict__ out" +
             std::to_string(j) + ", ";
    }
    return s + "Scalars s, i64 n";
}

/// The comment naming the program, the headers and the scalars' struct every kernel starts with.
std::string kernel_head(const Program& p, DType fdt) {
    const std::string E = fdt == DType::F64 ? "double" : "float";
    const std::size_t n_scalars = fusion::codegen::scalars(p, fdt, kCuda).size();
    std::string s;
    s += "// Generated by Fusion<Cuda> (backends/cuda/src/ops_fused.cpp) for:\n";
    for (const char c : p.to_string()) {
        if (s.back() == '\n') s += "//   ";
        s += c;
    }
    if (s.back() != '\n') s += '\n';
    s += "#include \"ops.cuh\"\nusing namespace ew;\n";
    s += "struct Scalars { " + E + " v[" + std::to_string(n_scalars ? n_scalars : 1) + "]; };\n";
    return s;
}

/// The strided inputs' offsets o<i> of element `i` (of type `idx`) from its coordinates in the
/// collapsed shape (one division per dim); `declare`: false when the o<i> are declared (as 0)
/// already.
std::string strided_offsets(const Program& p, const std::vector<Access>& access,
                            const std::string& indent, const std::string& idx,
                            bool declare = true) {
    const std::size_t n_in = p.inputs.size();
    std::size_t first_strided = n_in;
    for (std::size_t i = n_in; i-- > 0;)
        if (access[i] == Access::Strided) first_strided = i;
    if (first_strided == n_in) return {};
    const std::string m0 = "m" + std::to_string(first_strided);
    std::string l;
    l += indent + idx + " lin = (" + idx + ")i;\n";
    if (declare)
        for (std::size_t i = 0; i < n_in; ++i)
            if (access[i] == Access::Strided) l += indent + "i64 o" + std::to_string(i) + " = 0;\n";
    l += "#pragma unroll 1\n";
    l += indent + "for (int d = " + m0 + ".rank - 1; d >= 1; --d) {\n";
    l += indent + "    const " + idx + " sz = (" + idx + ")" + m0 + ".shape[d];\n";
    l += indent + "    const " + idx + " q = lin / sz;\n";
    l += indent + "    const i64 c = (i64)(lin - q * sz);\n";
    l += indent + "    lin = q;\n";
    for (std::size_t i = 0; i < n_in; ++i)
        if (access[i] == Access::Strided) {
            const std::string k = std::to_string(i);
            l += indent + "    o" + k + " += c * m" + k + ".strides[d];\n";
        }
    l += indent + "}\n";
    for (std::size_t i = 0; i < n_in; ++i)
        if (access[i] == Access::Strided) {
            const std::string k = std::to_string(i);
            l += indent + "o" + k + " += (i64)lin * m" + k + ".strides[0];\n";
        }
    return l;
}

/// Input i's load at element i (scalars from c<i>, strided inputs at o<i>).
std::string element_load(const std::vector<Access>& access, std::size_t i) {
    const std::string k = std::to_string(i);
    switch (access[i]) {
        case Access::Dense: return "in" + k + "[i]";
        case Access::Scalar: return "c" + k;
        case Access::Strided: return "in" + k + "[o" + k + "]";
    }
    return std::string();
}

/// The CUDA C++ of the program's kernel (see the file comment).
std::string generate(const Program& p, DType fdt, const std::vector<Access>& access) {
    const std::string E = fdt == DType::F64 ? "double" : "float";
    const std::size_t n_in = p.inputs.size();
    const auto type_of = [&](DType d) { return d == DType::Bool ? std::string("u8") : E; };
    const auto reg_type = [&](std::uint32_t r) {
        return type_of(r < n_in ? p.inputs[r] : p.instrs[r - n_in].dtype);
    };
    std::vector<std::size_t> slot;
    (void)fusion::codegen::scalars(p, fdt, kCuda, &slot);
    bool any_strided = false;
    for (std::size_t i = n_in; i-- > 0;)
        if (access[i] == Access::Strided) any_strided = true;

    std::string s = kernel_head(p, fdt);
    s.reserve(4096);
    s += "extern \"C\" __global__ void " + std::string(kKernelName) + "(" +
         kernel_params(p, fdt, access) + ") {\n";
    s += "    const i64 start = grid_start(), step = grid_step();\n";
    for (std::size_t i = 0; i < n_in; ++i)
        if (access[i] == Access::Scalar)
            s += "    const " + type_of(p.inputs[i]) + " c" + std::to_string(i) + " = in" +
                 std::to_string(i) + "[0];\n";

    // The instructions and the output stores, for element `i` whose inputs are read by `load`.
    const auto body = [&](const std::string& indent, const auto& load, const auto& store) {
        std::string b = registers_code(p, fdt, slot, indent, load);
        for (std::size_t j = 0; j < p.outputs.size(); ++j) b += indent + store(j) + ";\n";
        return b;
    };
    const auto load_at = [&](std::size_t i) { return element_load(access, i); };
    const auto element_store = [&](std::size_t j) {
        return "out" + std::to_string(j) + "[i] = " + reg(p.outputs[j]);
    };

    if (!any_strided) {
        // 16 bytes of the float registers at a time where every array is aligned for it.
        const int N = fdt == DType::F64 ? 2 : 4;
        s += "    constexpr int N = " + std::to_string(N) + ";\n    i64 head = 0;\n";
        s += "    if (true";
        for (std::size_t i = 0; i < n_in; ++i)
            if (access[i] == Access::Dense) s += " && aligned<N>(in" + std::to_string(i) + ")";
        for (std::size_t j = 0; j < p.outputs.size(); ++j)
            s += " && aligned<N>(out" + std::to_string(j) + ")";
        s += ") {\n        const i64 nv = n / N;\n";
        s += "        for (i64 v = start; v < nv; v += step) {\n";
        for (std::size_t i = 0; i < n_in; ++i)
            if (access[i] == Access::Dense) {
                const std::string T = type_of(p.inputs[i]), k = std::to_string(i);
                s += "            const Pack<" + T + ", N> p" + k +
                     " = reinterpret_cast<const Pack<" + T + ", N>*>(in" + k + ")[v];\n";
            }
        for (std::size_t j = 0; j < p.outputs.size(); ++j)
            s +=
                "            Pack<" + reg_type(p.outputs[j]) + ", N> q" + std::to_string(j) + ";\n";
        s += "#pragma unroll\n            for (int k = 0; k < N; ++k) {\n";
        s += body(
            "                ",
            [&](std::size_t i) {
                const std::string k = std::to_string(i);
                return access[i] == Access::Dense ? "p" + k + ".v[k]" : "c" + k;
            },
            [&](std::size_t j) {
                return "q" + std::to_string(j) + ".v[k] = " + reg(p.outputs[j]);
            });
        s += "            }\n";
        for (std::size_t j = 0; j < p.outputs.size(); ++j) {
            const std::string k = std::to_string(j);
            s += "            reinterpret_cast<Pack<" + reg_type(p.outputs[j]) + ", N>*>(out" + k +
                 ")[v] = q" + k + ";\n";
        }
        s += "        }\n        head = nv * N;\n    }\n";
        s += "    for (i64 i = head + start; i < n; i += step) {\n";
        s += body("        ", load_at, element_store);
        s += "    }\n}\n";
        return s;
    }

    // Strided inputs: their offsets from the element's coordinates in the collapsed shape (one
    // division per dim, 32-bit when the element count allows).
    const auto strided_loop = [&](const std::string& idx) {
        std::string l;
        l += "        for (i64 i = start; i < n; i += step) {\n";
        l += strided_offsets(p, access, "            ", idx);
        l += body("            ", load_at, element_store);
        l += "        }\n";
        return l;
    };
    s += "    if (n <= (i64)0xffffffffLL) {\n" + strided_loop("u32") + "    } else {\n" +
         strided_loop("u64") + "    }\n}\n";
    return s;
}

// ---- programs ending with a reduction ----------------------------------------------------------
// The reduced register is seen as [outer, rows, inner] around the reduced dim (reduce_all: one
// row of every element). Along the last dim (inner == 1) a block reduces a row, or a segment of
// one, its threads striding over it and combining through shared memory; along another dim each
// thread reduces a column (o, j), or a segment of one, so that neighbouring threads read
// neighbouring elements. Segments (when there are too few rows or columns to fill the GPU) write
// partial results that the unfused reduce_dim kernel then combines. softmax takes three passes
// over its row or column (max; sum of exponentials; scale), each computing the program's register
// again from the inputs. Further outputs are written in the first pass.

/// Longest row a softmax block keeps in shared memory (48 KiB) instead of computing the program's
/// register again in its second and third passes.
constexpr std::size_t kSoftmaxCacheBytes = 48 * 1024;

/// The CUDA C++ of a program ending with a reduction: `row` as described above; `wide`: element
/// indexes need 64 bits; `cached`: a softmax row kept in (dynamic) shared memory.
///
/// Along the last dim, strided inputs whose collapsed last dim holds whole rows (a bias row
/// broadcast over a matrix, a transposed view's rows...) are read at the row's offset plus k
/// times their last stride, without the per-element divisions; a reduction whose inputs are all
/// dense or single values reads them 16 bytes at a time. Blocks combine their threads' values by
/// warp shuffles, then the warps' in order.
std::string generate_reduce(const Program& p, DType fdt, const std::vector<Access>& access,
                            bool row, bool wide, bool cached) {
    using Kind = fusion::Reduction::Kind;
    using backend::ReduceOp;
    const std::string E = fdt == DType::F64 ? "double" : "float";
    const std::size_t n_in = p.inputs.size();
    const fusion::Reduction red = p.reduction;
    const bool softmax = red.kind == Kind::Softmax || red.kind == Kind::LogSoftmax;
    std::vector<std::size_t> slot;
    (void)fusion::codegen::scalars(p, fdt, kCuda, &slot);
    const std::string inf = fdt == DType::F64 ? "__longlong_as_double(0x7ff0000000000000LL)"
                                              : "__int_as_float(0x7f800000)";
    std::vector<std::size_t> strided;
    for (std::size_t i = 0; i < n_in; ++i)
        if (access[i] == Access::Strided) strided.push_back(i);
    const auto in_type = [&](std::size_t i) {
        return p.inputs[i] == DType::Bool ? std::string("u8") : E;
    };
    std::string s = kernel_head(p, fdt);
    // The fold and its identity (NaN propagating through max and min).
    s += "__device__ __forceinline__ " + E + " combine(" + E + " a, " + E + " b) { return ";
    switch (red.op) {
        case ReduceOp::Sum:
        case ReduceOp::Mean: s += "a + b; }\n#define IDENTITY ((" + E + ")0)\n"; break;
        case ReduceOp::Prod: s += "a * b; }\n#define IDENTITY ((" + E + ")1)\n"; break;
        case ReduceOp::Max: s += "max_nan(a, b); }\n#define IDENTITY (-" + inf + ")\n"; break;
        case ReduceOp::Min: s += "min_nan(a, b); }\n#define IDENTITY (" + inf + ")\n"; break;
    }
    s += "extern \"C\" __global__ void " + std::string(kKernelName) + "(" +
         kernel_params(p, fdt, access) +
         ", i64 outer, i64 rows, i64 inner, i64 segs, i64 seg_len) {\n";
    s += "    __shared__ " + E + " red_[32];\n";
    s += "    const int lid = threadIdx.x, wg = blockDim.x;\n";
    for (std::size_t i = 0; i < n_in; ++i)
        if (access[i] == Access::Scalar)
            s += "    const " + in_type(i) + " c" + std::to_string(i) + " = in" +
                 std::to_string(i) + "[0];\n";
    const std::string idx = wide ? "u64" : "u32";
    // The registers of element i (y0: the reduced one), and the stores of the further outputs.
    const auto element = [&](const std::string& indent, bool write) {
        std::string b = indent + "const i64 i = base + k" + (row ? "" : " * inner") + ";\n";
        if (row && !strided.empty()) {
            for (std::size_t i : strided) b += indent + "i64 o" + std::to_string(i) + " = 0;\n";
            b += indent + "if (lin_) {\n";
            for (std::size_t i : strided) {
                const std::string k = std::to_string(i);
                b += indent + "    o" + k + " = ob" + k + " + k * m" + k + ".strides[rk_];\n";
            }
            b += indent + "} else {\n" +
                 strided_offsets(p, access, indent + "    ", idx, /*declare=*/false) + indent +
                 "}\n";
        } else {
            b += strided_offsets(p, access, indent, idx);
        }
        b += registers_code(p, fdt, slot, indent,
                            [&](std::size_t i) { return element_load(access, i); });
        b += indent + "const " + E + " y0 = " + reg(p.outputs[0]) + ";\n";
        if (write)
            for (std::size_t j = 1; j < p.outputs.size(); ++j)
                b += indent + "out" + std::to_string(j) + "[i] = " + reg(p.outputs[j]) + ";\n";
        return b;
    };
    const std::string loop_all = row ? "    for (i64 k = lid; k < rows; k += wg) {\n"
                                     : "    for (i64 k = 0; k < rows; ++k) {\n";
    // Combines `v` over the block (every thread gets the result): warp shuffles, then the warps'
    // values in order. `fold` combines a and b.
    const auto block_fold = [&](const std::string& v, const std::string& fold) {
        return "    {\n        " + E + " a = " + v +
               ";\n"
               "        for (int off = 16; off > 0; off >>= 1) {\n"
               "            const " +
               E + " b = __shfl_xor_sync(0xffffffffu, a, off);\n            a = " + fold +
               ";\n        }\n"
               "        if ((lid & 31) == 0) red_[lid >> 5] = a;\n"
               "        __syncthreads();\n"
               "        a = red_[0];\n"
               "        for (int q = 1; q < (wg >> 5); ++q) {\n"
               "            const " +
               E + " b = red_[q];\n            a = " + fold +
               ";\n        }\n"
               "        __syncthreads();\n        " +
               v + " = a;\n    }\n";
    };
    if (row) {
        s += "    const i64 w = blockIdx.x;\n";
        s += "    if (w >= outer * segs) return;  // uniform across the block\n";
        s += "    const i64 base = (w / segs) * rows;\n";
        if (!strided.empty()) {
            // The strided inputs' offsets of the row's first element, when the collapsed last dim
            // holds whole rows (base is a multiple of rows: the row does not cross it).
            const std::string m0 = "m" + std::to_string(strided[0]);
            s += "    const int rk_ = " + m0 + ".rank - 1;\n";
            s += "    const bool lin_ = " + m0 + ".shape[rk_] % rows == 0;\n";
            for (std::size_t i : strided) s += "    i64 ob" + std::to_string(i) + " = 0;\n";
            s += "    if (lin_) {\n        const i64 i = base;\n" +
                 strided_offsets(p, access, "        ", idx);
            for (std::size_t i : strided)
                s += "        ob" + std::to_string(i) + " = o" + std::to_string(i) + ";\n";
            s += "    }\n";
        }
    } else {
        s +=
            "    const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x, cols = outer * inner;\n";
        s += "    if (t >= cols * segs) return;\n";
        s += "    const i64 c = t % cols;\n";
        s += "    const i64 base = (c / inner) * rows * inner + c % inner;\n";
    }
    if (!softmax) {
        s += "    const i64 g = " + std::string(row ? "w" : "t / cols") + " % segs;\n";
        s += "    const i64 begin = g * seg_len, end = min(rows, begin + seg_len);\n";
        s += "    " + E + " acc = IDENTITY;\n";
        std::string first = "begin";
        if (row && strided.empty() && p.outputs.size() == 1) {
            // Every input dense or a single value, nothing else to write: 16-byte loads.
            const int N = fdt == DType::F64 ? 2 : 4;
            s += "    constexpr int N = " + std::to_string(N) + ";\n";
            s += "    const i64 vb = base + begin, nv = (end - begin) / N;\n";
            s += "    i64 tail = begin;\n    if (true";
            for (std::size_t i = 0; i < n_in; ++i)
                if (access[i] == Access::Dense)
                    s += " && aligned<N>(in" + std::to_string(i) + " + vb)";
            s += ") {\n#pragma unroll 2\n        for (i64 v = lid; v < nv; v += wg) {\n";
            for (std::size_t i = 0; i < n_in; ++i)
                if (access[i] == Access::Dense) {
                    const std::string k = std::to_string(i), T = in_type(i);
                    s += "            const Pack<" + T + ", N> p" + k +
                         " = reinterpret_cast<const Pack<" + T + ", N>*>(in" + k + " + vb)[v];\n";
                }
            s += "#pragma unroll\n            for (int u = 0; u < N; ++u) {\n";
            s += registers_code(p, fdt, slot, "                ", [&](std::size_t i) {
                const std::string k = std::to_string(i);
                return access[i] == Access::Dense ? "p" + k + ".v[u]" : "c" + k;
            });
            s += "                acc = combine(acc, " + reg(p.outputs[0]) + ");\n";
            s += "            }\n        }\n        tail = begin + nv * N;\n    }\n";
            first = "tail";
        }
        // Unrolled: several independent loads in flight per thread.
        s += row ? "#pragma unroll 4\n    for (i64 k = " + first + " + lid; k < end; k += wg) {\n"
                 : "#pragma unroll 4\n    for (i64 k = begin; k < end; ++k) {\n";
        s += element("        ", true) + "        acc = combine(acc, y0);\n    }\n";
        const auto finish = [&](const std::string& v) {
            return red.op == ReduceOp::Mean ? "div_rn(" + v + ", (" + E + ")rows)" : v;
        };
        if (row) {
            s += block_fold("acc", "combine(a, b)");
            s += "    if (lid == 0) out0[w] = " + finish("acc") + ";\n";
        } else {
            s += "    out0[(t / cols) * cols + c] = " + finish("acc") + ";\n";
        }
        return s + "}\n";
    }
    // softmax: the max (NaN propagating; the further outputs written), the sum of exp(y - m)
    // (softmax stores the exponentials), then scale, or shift by log(sum).
    const bool log = red.kind == Kind::LogSoftmax;
    const std::string unrolled = "#pragma unroll 4\n";
    if (cached) {  // one pass computes the row into shared memory; each thread rereads its own
        s += "    extern __shared__ unsigned char smem_[];\n";
        s += "    " + E + "* row_ = reinterpret_cast<" + E + "*>(smem_);\n";
        s += "    " + E + " m = -" + inf + ";\n" + unrolled + loop_all + element("        ", true) +
             "        row_[k] = y0;\n        m = max_nan(m, y0);\n    }\n";
        s += block_fold("m", "max_nan(a, b)");
        s += "    " + E + " sum = 0;\n" + loop_all + "        const " + E +
             " e = m_exp(row_[k] - m);\n" + (log ? "" : "        row_[k] = e;\n") +
             "        sum += e;\n    }\n";
        s += block_fold("sum", "a + b");
        if (!log)
            s += "    const " + E + " inv = (" + E + ")1 / sum;\n" + loop_all +
                 "        out0[base + k] = row_[k] * inv;\n    }\n";
        else
            s += "    const " + E + " ls = m_log(sum);\n" + loop_all +
                 "        out0[base + k] = (row_[k] - m) - ls;\n    }\n";
        return s + "}\n";
    }
    s += "    " + E + " m = -" + inf + ";\n" + unrolled + loop_all + element("        ", true) +
         "        m = max_nan(m, y0);\n    }\n";
    if (row) s += block_fold("m", "max_nan(a, b)");
    s += "    " + E + " sum = 0;\n" + unrolled + loop_all + element("        ", false) +
         "        const " + E + " e = m_exp(y0 - m);\n" + (log ? "" : "        out0[i] = e;\n") +
         "        sum += e;\n    }\n";
    if (row) s += block_fold("sum", "a + b");
    if (!log) {
        s += "    const " + E + " inv = (" + E + ")1 / sum;\n" + loop_all +
             "        const i64 i = base + k" + (row ? "" : " * inner") +
             ";\n        out0[i] *= inv;\n    }\n";
    } else {
        s += "    const " + E + " ls = m_log(sum);\n" + loop_all + element("        ", false) +
             "        out0[i] = (y0 - m) - ls;\n    }\n";
    }
    return s + "}\n";
}

/// The program's float dtype: f32 or f64.
DType float_dtype(const Program& p) {
    const DType fdt = fusion::codegen::float_dtype(p, "Cuda fused program");
    BURN_CHECK(fdt == DType::F32 || fdt == DType::F64,
               "Cuda fused program: float registers must be f32 or f64, got ", fdt);
    return fdt;
}

}  // namespace

std::string fused_program_source(const fusion::Program& p, std::string_view access, bool row) {
    std::vector<Access> a;
    for (char c : access) a.push_back(static_cast<Access>(c));
    BURN_CHECK(a.size() == p.inputs.size(), "Cuda fused program: ", a.size(), " access codes for ",
               p.inputs.size(), " inputs");
    if (p.reduction.kind != fusion::Reduction::Kind::None) {
        const bool softmax = p.reduction.kind == fusion::Reduction::Kind::Softmax ||
                             p.reduction.kind == fusion::Reduction::Kind::LogSoftmax;
        return generate_reduce(p, float_dtype(p), a, row, false, softmax && row);
    }
    return generate(p, float_dtype(p), a);
}

namespace {

/// A program's kernel launch: how each input is read, and the kernel's arguments.
struct Launch {
    std::vector<CudaTensor> in;  ///< the inputs (strided ones beyond kMaxStrided made dense)
    std::vector<Access> access;
    std::vector<Meta> metas;
    std::vector<const void*> in_ptrs;
    std::vector<void*> out_ptrs;
    std::vector<unsigned char> scalars;
    std::vector<std::int64_t> counts;  ///< n, then the reduction's geometry
    std::vector<void*> argv;

    /// The arguments, in the kernel's order (each passed by address).
    void** args(const std::vector<CudaTensor>& outs) {
        const std::size_t n_in = in.size();
        in_ptrs.assign(n_in, nullptr);
        out_ptrs.assign(outs.size(), nullptr);
        argv.clear();
        std::size_t m = 0;
        for (std::size_t i = 0; i < n_in; ++i) {
            in_ptrs[i] = first(in[i]);
            argv.push_back(&in_ptrs[i]);
            if (access[i] == Access::Strided) argv.push_back(&metas[m++]);
        }
        for (std::size_t j = 0; j < outs.size(); ++j) {
            out_ptrs[j] = first(outs[j]);
            argv.push_back(&out_ptrs[j]);
        }
        argv.push_back(scalars.data());
        for (auto& c : counts) argv.push_back(&c);
        return argv.data();
    }
};

/// Checks the program against its inputs; returns their device.
CudaDevice check_program(const Program& p, std::span<const CudaTensor> inputs) {
    BURN_CHECK(inputs.size() == p.inputs.size() && !inputs.empty(),
               "Cuda fused program: ", inputs.size(), " inputs given for ", p.inputs.size());
    const CudaDevice device = inputs[0].device;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        BURN_CHECK(inputs[i].dtype == p.inputs[i], "Cuda fused program: input ", i, " is ",
                   inputs[i].dtype, ", the program reads ", p.inputs[i]);
        BURN_CHECK(inputs[i].device == device, "Cuda fused program: input ", i, " is on ",
                   inputs[i].device, ", input 0 on ", device);
    }
    const std::size_t n_in = p.inputs.size();
    for (std::uint32_t r : p.outputs)
        BURN_CHECK(r >= n_in && r < p.num_registers(), "Cuda fused program: output register ", r,
                   " is not an instruction's");
    return device;
}

/// How each input is read (strided ones beyond kMaxStrided made dense first) and the scalars.
Launch prepare(const Program& p, DType fdt, std::span<const CudaTensor> inputs) {
    const std::size_t n_in = p.inputs.size();
    const std::size_t n = p.shape.num_elements();
    Launch l;
    l.in.assign(inputs.begin(), inputs.end());
    l.access.resize(n_in);
    std::size_t strided = 0;
    for (std::size_t i = 0; i < n_in; ++i) {
        const CudaTensor& t = l.in[i];
        if (t.num_elements() == 1) l.access[i] = Access::Scalar;
        else if (is_dense(t) && t.num_elements() == n) l.access[i] = Access::Dense;
        else if (strided < kMaxStrided) l.access[i] = Access::Strided, ++strided;
        else {
            CudaTensor view = t;
            backend::view::expand(view, p.shape);
            l.in[i] = Kernels::contiguous(std::move(view));
            l.access[i] = Access::Dense;
        }
    }
    std::vector<const backend::StridedLayout*> strided_views;
    for (std::size_t i = 0; i < n_in; ++i)
        if (l.access[i] == Access::Strided) strided_views.push_back(&l.in[i]);
    l.metas.resize(strided_views.size());
    if (!l.metas.empty()) collapse_metas(p.shape, strided_views, l.metas.data());
    const std::vector<double> scalar_values = fusion::codegen::scalars(p, fdt, kCuda);
    const std::size_t esize = fdt == DType::F64 ? 8 : 4;
    l.scalars.assign(std::max<std::size_t>(1, scalar_values.size()) * esize, 0);
    for (std::size_t k = 0; k < scalar_values.size(); ++k) {
        if (fdt == DType::F64) {
            std::memcpy(l.scalars.data() + 8 * k, &scalar_values[k], 8);
        } else {
            const auto v = static_cast<float>(scalar_values[k]);
            std::memcpy(l.scalars.data() + 4 * k, &v, 4);
        }
    }
    l.counts = {static_cast<std::int64_t>(n)};
    return l;
}

}  // namespace

std::vector<CudaTensor> Kernels::fused_elementwise(const fusion::Program& p,
                                                   std::span<const CudaTensor> inputs) {
    const CudaDevice device = check_program(p, inputs);
    const DType fdt = float_dtype(p);
    const std::size_t n_in = p.inputs.size();
    std::vector<CudaTensor> outs;
    outs.reserve(p.outputs.size());
    for (std::uint32_t r : p.outputs)
        outs.push_back(alloc(p.shape, p.instrs[r - n_in].dtype, device));
    const std::size_t n = p.shape.num_elements();
    if (n == 0) return outs;

    Launch l = prepare(p, fdt, inputs);
    Context& ctx = context(device);
    const Kernel kernel = ctx.generated_kernel(kernel_key(p, fdt, l.access), "fused", kKernelName,
                                               [&] { return generate(p, fdt, l.access); });
    const bool vectorised = l.metas.empty();
    const std::size_t esize = fdt == DType::F64 ? 8 : 4;
    const std::uint64_t items = vectorised ? (n + (esize == 8 ? 1 : 3)) / (esize == 8 ? 2 : 4) : n;
    ctx.launch(kernel, dim3(grid_for(ctx, items)), dim3(256), l.args(outs));
    return outs;
}

std::vector<CudaTensor> Kernels::fused_reduce(const fusion::Program& p,
                                              std::span<const CudaTensor> inputs) {
    const CudaDevice device = check_program(p, inputs);
    const DType fdt = float_dtype(p);
    const fusion::Reduction red = p.reduction;
    const std::size_t n_in = p.inputs.size();
    const Shape& shape = p.shape;
    const std::size_t total = shape.num_elements();
    const fusion::ReduceGeometry g = fusion::reduce_geometry(p, fdt, "Cuda fused program");
    const bool is_softmax = g.softmax;
    const std::size_t outer = g.outer, rows = g.rows, inner = g.inner;
    const bool row = inner == 1;
    const std::size_t cols = outer * inner;
    Context& ctx = context(device);
    // Segments of the rows or columns when there are too few of them to fill the device.
    const std::size_t sms = static_cast<std::size_t>(ctx.properties().multiProcessorCount);
    std::size_t segs = 1;
    if (!is_softmax && row && outer < 8 * sms)
        segs = std::min((rows + 1023) / 1024, (8 * sms + outer - 1) / outer);
    if (!is_softmax && !row && cols < 256 * sms)
        segs = std::min((rows + 63) / 64, (256 * sms + cols - 1) / cols);
    segs = std::max<std::size_t>(segs, 1);
    const std::size_t seg_len = (rows + segs - 1) / segs;
    segs = (rows + seg_len - 1) / seg_len;
    unsigned wg = 256;
    if (row) {
        wg = 32;
        while (wg < 256 && wg < seg_len) wg *= 2;
    }

    std::vector<CudaTensor> outs;
    outs.reserve(p.outputs.size());
    outs.push_back(
        alloc(is_softmax ? shape : Shape{row ? outer * segs : segs * cols}, fdt, device));
    for (std::size_t k = 1; k < p.outputs.size(); ++k)
        outs.push_back(alloc(shape, p.instrs[p.outputs[k] - n_in].dtype, device));
    Launch l = prepare(p, fdt, inputs);
    for (std::size_t v : {outer, rows, inner, segs, seg_len})
        l.counts.push_back(static_cast<std::int64_t>(v));
    const bool wide = total > 0xffffffffULL;
    const std::size_t esize = fdt == DType::F64 ? 8 : 4;
    const bool cached = is_softmax && row && rows * esize <= kSoftmaxCacheBytes;
    std::string key = kernel_key(p, fdt, l.access) + "|reduce" +
                      std::to_string(static_cast<int>(red.kind)) +
                      std::to_string(static_cast<int>(red.op)) + (row ? "r" : "c") +
                      (wide ? "w" : "") + (cached ? "s" : "");
    const Kernel kernel = ctx.generated_kernel(key, "fused", kKernelName, [&] {
        return generate_reduce(p, fdt, l.access, row, wide, cached);
    });
    const std::uint64_t blocks = row ? std::uint64_t{outer} * segs : (cols * segs + 255) / 256;
    BURN_CHECK(blocks <= 0x7fffffffu, "Cuda fused reduction: ", blocks,
               " blocks, at most 2^31 - 1");
    ctx.launch(kernel, dim3(static_cast<unsigned>(blocks)), dim3(wg), l.args(outs),
               cached ? rows * esize : 0);
    if (!is_softmax)
        outs[0] =
            fusion::codegen::combine_segments<Kernels>(std::move(outs[0]), g, red.op, segs, row);
    return outs;
}

}  // namespace burn::cuda

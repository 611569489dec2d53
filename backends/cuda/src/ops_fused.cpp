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

/// The CUDA C++ of the program's kernel (see the file comment).
std::string generate(const Program& p, DType fdt, const std::vector<Access>& access) {
    const std::string E = fdt == DType::F64 ? "double" : "float";
    const std::size_t n_in = p.inputs.size();
    const auto type_of = [&](DType d) { return d == DType::Bool ? std::string("u8") : E; };
    const auto reg_type = [&](std::uint32_t r) {
        return type_of(r < n_in ? p.inputs[r] : p.instrs[r - n_in].dtype);
    };
    std::vector<std::size_t> slot;
    const std::size_t n_scalars = fusion::codegen::scalars(p, fdt, kCuda, &slot).size();
    bool any_strided = false;
    std::size_t first_strided = 0;
    for (std::size_t i = n_in; i-- > 0;)
        if (access[i] == Access::Strided) any_strided = true, first_strided = i;

    std::string s;
    s.reserve(4096);
    s += "// Generated by Fusion<Cuda> (backends/cuda/src/ops_fused.cpp) for:\n";
    for (const char c : p.to_string()) {
        if (s.back() == '\n') s += "//   ";
        s += c;
    }
    if (s.back() != '\n') s += '\n';
    s += "#include \"ops.cuh\"\nusing namespace ew;\n";
    s += "struct Scalars { " + E + " v[" + std::to_string(n_scalars ? n_scalars : 1) + "]; };\n";
    s += "extern \"C\" __global__ void " + std::string(kKernelName) + "(";
    for (std::size_t i = 0; i < n_in; ++i) {
        s += "const " + type_of(p.inputs[i]) + "* __restrict__ in" + std::to_string(i) + ", ";
        if (access[i] == Access::Strided) s += "Meta m" + std::to_string(i) + ", ";
    }
    for (std::size_t j = 0; j < p.outputs.size(); ++j)
        s += reg_type(p.outputs[j]) + "* __restrict__ out" + std::to_string(j) + ", ";
    s += "Scalars s, i64 n) {\n";
    s += "    const i64 start = grid_start(), step = grid_step();\n";
    for (std::size_t i = 0; i < n_in; ++i)
        if (access[i] == Access::Scalar)
            s += "    const " + type_of(p.inputs[i]) + " c" + std::to_string(i) + " = in" +
                 std::to_string(i) + "[0];\n";

    // The instructions and the output stores, for element `i` whose inputs are read by `load`.
    const auto body = [&](const std::string& indent, const auto& load, const auto& store) {
        std::string b;
        for (std::size_t i = 0; i < n_in; ++i)
            b += indent + "const " + type_of(p.inputs[i]) + " r" + std::to_string(i) + " = " +
                 load(i) + ";\n";
        for (std::size_t k = 0; k < p.instrs.size(); ++k) {
            const Instr& ins = p.instrs[k];
            b += indent + "const " + type_of(ins.dtype) + " " +
                 reg(static_cast<std::uint32_t>(n_in + k)) + " = " +
                 fusion::codegen::expression(p, k, fdt, kCuda, slot[k], E) + ";\n";
        }
        for (std::size_t j = 0; j < p.outputs.size(); ++j) b += indent + store(j) + ";\n";
        return b;
    };
    const auto element_load = [&](std::size_t i) {
        const std::string k = std::to_string(i);
        switch (access[i]) {
            case Access::Dense: return "in" + k + "[i]";
            case Access::Scalar: return "c" + k;
            case Access::Strided: return "in" + k + "[o" + k + "]";
        }
        return std::string();
    };
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
        s += body("        ", element_load, element_store);
        s += "    }\n}\n";
        return s;
    }

    // Strided inputs: their offsets from the element's coordinates in the collapsed shape (one
    // division per dim, 32-bit when the element count allows).
    const std::string m0 = "m" + std::to_string(first_strided);
    const auto strided_loop = [&](const std::string& idx) {
        std::string l;
        l += "        for (i64 i = start; i < n; i += step) {\n";
        l += "            " + idx + " lin = (" + idx + ")i;\n";
        for (std::size_t i = 0; i < n_in; ++i)
            if (access[i] == Access::Strided)
                l += "            i64 o" + std::to_string(i) + " = 0;\n";
        l += "#pragma unroll 1\n";
        l += "            for (int d = " + m0 + ".rank - 1; d >= 1; --d) {\n";
        l += "                const " + idx + " sz = (" + idx + ")" + m0 + ".shape[d];\n";
        l += "                const " + idx + " q = lin / sz;\n";
        l += "                const i64 c = (i64)(lin - q * sz);\n";
        l += "                lin = q;\n";
        for (std::size_t i = 0; i < n_in; ++i)
            if (access[i] == Access::Strided) {
                const std::string k = std::to_string(i);
                l += "                o" + k + " += c * m" + k + ".strides[d];\n";
            }
        l += "            }\n";
        for (std::size_t i = 0; i < n_in; ++i)
            if (access[i] == Access::Strided) {
                const std::string k = std::to_string(i);
                l += "            o" + k + " += (i64)lin * m" + k + ".strides[0];\n";
            }
        l += body("            ", element_load, element_store);
        l += "        }\n";
        return l;
    };
    s += "    if (n <= (i64)0xffffffffLL) {\n" + strided_loop("u32") + "    } else {\n" +
         strided_loop("u64") + "    }\n}\n";
    return s;
}

/// The program's float dtype: f32 or f64.
DType float_dtype(const Program& p) {
    const DType fdt = fusion::codegen::float_dtype(p, "Cuda fused program");
    BURN_CHECK(fdt == DType::F32 || fdt == DType::F64,
               "Cuda fused program: float registers must be f32 or f64, got ", fdt);
    return fdt;
}

}  // namespace

std::string fused_program_source(const fusion::Program& p, std::string_view access) {
    std::vector<Access> a;
    for (char c : access) a.push_back(static_cast<Access>(c));
    BURN_CHECK(a.size() == p.inputs.size(), "Cuda fused program: ", a.size(), " access codes for ",
               p.inputs.size(), " inputs");
    return generate(p, float_dtype(p), a);
}

std::vector<CudaTensor> Kernels::fused_elementwise(const fusion::Program& p,
                                                   std::span<const CudaTensor> inputs) {
    BURN_CHECK(inputs.size() == p.inputs.size() && !inputs.empty(),
               "Cuda fused program: ", inputs.size(), " inputs given for ", p.inputs.size());
    const DType fdt = float_dtype(p);
    const CudaDevice device = inputs[0].device;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        BURN_CHECK(inputs[i].dtype == p.inputs[i], "Cuda fused program: input ", i, " is ",
                   inputs[i].dtype, ", the program reads ", p.inputs[i]);
        BURN_CHECK(inputs[i].device == device, "Cuda fused program: input ", i, " is on ",
                   inputs[i].device, ", input 0 on ", device);
    }
    const std::size_t n_in = p.inputs.size();
    std::vector<CudaTensor> outs;
    outs.reserve(p.outputs.size());
    for (std::uint32_t r : p.outputs) {
        BURN_CHECK(r >= n_in && r < p.num_registers(), "Cuda fused program: output register ", r,
                   " is not an instruction's");
        outs.push_back(alloc(p.shape, p.instrs[r - n_in].dtype, device));
    }
    const std::size_t n = p.shape.num_elements();
    if (n == 0) return outs;

    // How each input is read; strided ones beyond kMaxStrided are made dense first.
    std::vector<CudaTensor> in(inputs.begin(), inputs.end());
    std::vector<Access> access(n_in);
    std::size_t strided = 0;
    for (std::size_t i = 0; i < n_in; ++i) {
        const CudaTensor& t = in[i];
        if (t.num_elements() == 1) access[i] = Access::Scalar;
        else if (is_dense(t) && t.num_elements() == n) access[i] = Access::Dense;
        else if (strided < kMaxStrided) access[i] = Access::Strided, ++strided;
        else {
            CudaTensor view = t;
            backend::view::expand(view, p.shape);
            in[i] = contiguous(std::move(view));
            access[i] = Access::Dense;
        }
    }
    std::vector<const backend::StridedLayout*> strided_views;
    for (std::size_t i = 0; i < n_in; ++i)
        if (access[i] == Access::Strided) strided_views.push_back(&in[i]);
    std::vector<Meta> metas(strided_views.size());
    if (!metas.empty()) collapse_metas(p.shape, strided_views, metas.data());

    Context& ctx = context(device);
    const Kernel kernel = ctx.generated_kernel(kernel_key(p, fdt, access), "fused", kKernelName,
                                               [&] { return generate(p, fdt, access); });

    // The arguments, in the kernel's order (each passed by address).
    std::vector<const void*> in_ptrs(n_in);
    std::vector<void*> out_ptrs(outs.size());
    const std::vector<double> scalar_values = fusion::codegen::scalars(p, fdt, kCuda);
    const std::size_t esize = fdt == DType::F64 ? 8 : 4;
    std::vector<unsigned char> scalars(std::max<std::size_t>(1, scalar_values.size()) * esize);
    for (std::size_t k = 0; k < scalar_values.size(); ++k) {
        if (fdt == DType::F64) {
            std::memcpy(scalars.data() + 8 * k, &scalar_values[k], 8);
        } else {
            const auto v = static_cast<float>(scalar_values[k]);
            std::memcpy(scalars.data() + 4 * k, &v, 4);
        }
    }
    auto count = static_cast<std::int64_t>(n);
    std::vector<void*> argv;
    argv.reserve(2 * n_in + outs.size() + 2);
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
    argv.push_back(&count);
    const bool vectorised = strided == 0;
    const std::uint64_t items = vectorised ? (n + (esize == 8 ? 1 : 3)) / (esize == 8 ? 2 : 4) : n;
    ctx.launch(kernel, dim3(grid_for(ctx, items)), dim3(256), argv.data());
    return outs;
}

}  // namespace burn::cuda

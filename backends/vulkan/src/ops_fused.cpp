// SPDX-License-Identifier: MIT OR Apache-2.0
// The Vulkan backend's fusion part (Fusion<Vulkan<>>, fusion::FusionKernelSet): a fused
// element-wise program (<burn/fusion/program.hpp>) runs as one compute shader, generated as GLSL
// and compiled by shaderc on its first use (compile_glsl), then kept for the process: the SPIR-V
// by the program's key here, the pipeline by the Context of each device (its shader name is
// unique to the key).
//
// The shader's text depends on the program's structure and on how each input is read, never on
// the shape or the scalar values: the element count and the scalars (scalar operands, clamp
// bounds, activation parameters) are push constants, or sit in the parameter buffer after the
// strided inputs' TensorMetas when there are more than kMaxPushScalars of them; so a training
// loop compiles each of its programs once. An input is read as a plain array (dense at offset 0,
// of the program's element count), as one value (a single element at offset 0, broadcast
// everywhere) or through its TensorMeta (any other view, as the unfused kernels read them). With
// no strided input each invocation reads and writes 4 elements at a time (vec4 / uvec4).
// Registers are f32 or bool (one 32-bit word, 0 or 1, as bool tensors are stored).
//
// The instructions are written by the shared generator (burn/fusion/codegen.hpp) in the GLSL
// dialect below. Each computes what its unfused kernel computes: the same GLSL functions (the text
// of kernels/vulkan/elementwise_math.glsl and activation_math.glsl is pasted into every shader),
// the same special cases (pow by 1, 0.5 and -1 as binary_scalar maps them; 2 is burn_pow's own),
// and every float register `precise` (SPIR-V NoContraction), so that the driver cannot contract
// a multiply of one instruction and an add of the next into an fma. Only the insides of the
// shared functions may be compiled differently in a larger shader.
//
// A dispatch binds at most Context::kMaxBindings buffers (the parameter buffer, one per distinct
// input buffer, one per output): a program that needs more runs as several shaders, each writing
// the registers that later ones read to temporary dense tensors.
#include <algorithm>
#include <bit>
#include <burn/fusion/codegen.hpp>
#include <burn/fusion/fusion.hpp>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ops_common.hpp"

// g++ 12 warns about `"literal" + std::string` (a false positive: GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

namespace burn::vk {

namespace {

using fusion::Instr;
using fusion::Program;
using fusion::codegen::reg;

/// Workgroup size of the fused shaders.
constexpr std::uint32_t kWorkgroup = 256;
/// Scalars in push constants at most: 128 bytes (the least a device offers) less the element
/// count. More go in the parameter buffer.
constexpr std::size_t kMaxPushScalars = 31;

/// How the shader reads an input.
enum class Access : char {
    Dense = 'd',    ///< element i of the program is element i of the array
    Scalar = 's',   ///< element 0, the same at every position
    Strided = 'g',  ///< through its TensorMeta (broadcast, permuted, sliced, flipped views)
};

std::string scalar_arg(std::size_t slot) { return "S(" + std::to_string(slot) + ")"; }

/// How the generated GLSL spells each instruction: the functions the unfused shaders call
/// (elementwise_math.glsl, activation_math.glsl), with their special cases: pow by 1, 0.5 and -1
/// as binary_scalar maps them (2 is burn_pow's own), a division always a division.
const fusion::codegen::Dialect kGlsl{
    .name = "Vulkan",
    .unary = {"-$a", "abs($a)", "burn_sign($a)", "burn_exp($a)", "burn_log($a)", "burn_log1p($a)",
              "burn_erf($a)", "burn_sqrt($a)", "1.0 / $a", "burn_sincos($a, false)",
              "burn_sincos($a, true)", "burn_tanh($a)", "roundEven($a)", "floor($a)", "ceil($a)"},
    .binary = {"$a + $b", "$a - $b", "$a * $b", "$a / $b", "burn_rem($a, $b)", "burn_pow($a, $b)",
               "burn_max_nan($a, $b)", "burn_min_nan($a, $b)"},
    .compare = "($a $op $b) ? 1u : 0u",
    .clamp = "burn_min_nan(burn_max_nan($a, $0), $1)",
    .where = "$b != 0u ? $c : $a",
    .fill = "$b != 0u ? $0 : $a",
    .activation = {"burn_relu($a)", "burn_gelu($a)", "burn_sigmoid($a)", "burn_log_sigmoid($a)",
                   "burn_hard_sigmoid($a, $0, $1)", "burn_leaky_relu($a, $0)"},
    .activation_backward = {"burn_relu_backward($a, $b)", "burn_gelu_backward($a, $b)",
                            "burn_sigmoid_backward($a, $b)", "burn_log_sigmoid_backward($a, $b)"},
    .pow_special = {"$a", "burn_sqrt($a)", "1.0 / $a", nullptr},
    .div_by_reciprocal = nullptr,
    .scalar = scalar_arg,
};

/// The scalars of the program as f32 (the unfused kernels' push constants hold the same float).
std::vector<float> scalars_of(const Program& p) {
    std::vector<float> out;
    for (double v : fusion::codegen::scalars(p, DType::F32, kGlsl))
        out.push_back(static_cast<float>(v));
    return out;
}

/// How a program's inputs are bound and read: the structure its shader is generated for.
struct Layout {
    std::vector<Access> access;         ///< per input
    std::vector<std::uint32_t> buffer;  ///< per input: its input buffer (inputs may share one)
    std::size_t buffers = 0;            ///< distinct input buffers
    std::size_t strided = 0;            ///< inputs read through a TensorMeta
    std::size_t scalars = 0;            ///< scalars the instructions read
    std::size_t push_words = 1;         ///< push constants before the scalars (the counts)
    bool push_scalars() const { return push_words + scalars <= 1 + kMaxPushScalars; }
    /// The parameter buffer (TensorMetas, then the scalars that do not fit in push constants).
    bool params() const { return strided > 0 || !push_scalars(); }
    std::size_t bindings(std::size_t outputs) const {
        return (params() ? 1 : 0) + buffers + outputs;
    }
};

/// Everything the generated text depends on: the program's structure and how its inputs are
/// bound and read.
std::string shader_key(const Program& p, const Layout& l) {
    std::string k = fusion::codegen::structure_key(p, DType::F32, kGlsl);
    for (std::size_t i = 0; i < l.access.size(); ++i) {
        k += static_cast<char>(l.access[i]);
        k += static_cast<char>('A' + l.buffer[i]);
    }
    return k;
}

/// The text of an embedded kernels/vulkan file.
std::string_view glsl_source(std::string_view name) {
    for (const KernelSource& s : kernel_sources())
        if (name == s.name) return s.text;
    ::burn::detail::fail("Vulkan fused program: ", name, " is not embedded in the library");
}

/// The GLSL type of register r: float, or uint for bool registers (one 32-bit word); `vec4`:
/// the four-wide vector of it.
std::string glsl_type(const Program& p, std::uint32_t r, bool vec4) {
    const std::size_t n_in = p.inputs.size();
    const bool b = (r < n_in ? p.inputs[r] : p.instrs[r - n_in].dtype) == DType::Bool;
    if (vec4) return b ? "uvec4" : "vec4";
    return b ? "uint" : "float";
}

/// The text every shader of a program starts with: the push constants (`push_fields`, then the
/// scalars), the bindings, the math functions, and element(): the program's registers computed
/// from its input registers, the output registers returned. With `vectorised`, dense inputs and
/// the outputs are also bound as vec4 arrays; with `read_out0`, the first output is readable.
std::string prelude(const Program& p, const Layout& l, const std::string& push_fields,
                    bool vectorised, bool read_out0 = false) {
    const std::size_t n_in = p.inputs.size();
    const auto type_of = [&](std::uint32_t r) { return glsl_type(p, r, false); };
    const auto vec_of = [&](std::uint32_t r) { return glsl_type(p, r, true); };
    std::vector<std::size_t> slot;
    (void)fusion::codegen::scalars(p, DType::F32, kGlsl, &slot);

    std::string s;
    s.reserve(32768);
    s += "#version 450\n";
    s += "// Generated by Fusion<Vulkan> (backends/vulkan/src/ops_fused.cpp) for:\n";
    for (const char ch : p.to_string()) {
        if (s.back() == '\n') s += "//   ";
        s += ch;
    }
    if (s.back() != '\n') s += '\n';
    s += "layout(local_size_x_id = 0) in;\n";
    s += glsl_source("index.glsl");
    s += glsl_source("tensor_meta.glsl");

    // Push constants: the element count, then the scalars when they fit.
    s += "layout(push_constant, std430) uniform Push {\n" + push_fields;
    if (l.push_scalars() && l.scalars > 0) s += "    float s[" + std::to_string(l.scalars) + "];\n";
    s += "} pc;\n";
    std::uint32_t binding = 0;
    if (l.params()) {
        s += "layout(std430, set = 0, binding = 0) readonly buffer Params {\n";
        if (l.strided > 0)
            s += l.push_scalars() ? "    TensorMeta metas[];\n"
                                  : "    TensorMeta metas[" + std::to_string(l.strided) + "];\n";
        if (!l.push_scalars()) s += "    float ps[];\n";
        s += "};\n";
        ++binding;
    }
    s += l.push_scalars() ? "#define S(j) pc.s[j]\n" : "#define S(j) ps[j]\n";
    // The input buffers (in<b>[], and in<b>v[] over the same storage for dense inputs when the
    // shader reads 4 elements at a time), then the outputs.
    for (std::uint32_t b = 0; b < l.buffers; ++b) {
        std::uint32_t first = 0;
        bool dense = false;
        for (std::uint32_t i = static_cast<std::uint32_t>(n_in); i-- > 0;)
            if (l.buffer[i] == b) {
                first = i;
                dense |= l.access[i] == Access::Dense;
            }
        const std::string k = std::to_string(b), at = std::to_string(binding + b);
        s += "layout(std430, set = 0, binding = " + at + ") readonly buffer In" + k + " { " +
             type_of(first) + " in" + k + "[]; };\n";
        if (vectorised && dense)
            s += "layout(std430, set = 0, binding = " + at + ") readonly buffer In" + k + "v { " +
                 vec_of(first) + " in" + k + "v[]; };\n";
    }
    binding += static_cast<std::uint32_t>(l.buffers);
    for (std::size_t j = 0; j < p.outputs.size(); ++j) {
        const std::string k = std::to_string(j), at = std::to_string(binding + j);
        s += "layout(std430, set = 0, binding = " + at +
             (read_out0 && j == 0 ? ") " : ") writeonly ") + "buffer Out" + k + " { " +
             type_of(p.outputs[j]) + " out" + k + "[]; };\n";
        if (vectorised)
            s += "layout(std430, set = 0, binding = " + at + ") writeonly buffer Out" + k + "v { " +
                 vec_of(p.outputs[j]) + " out" + k + "v[]; };\n";
    }
    s += glsl_source("elementwise_math.glsl");
    s += glsl_source("activation_math.glsl");

    // One element: the input registers in, the output registers out.
    s += "void element(";
    for (std::uint32_t i = 0; i < n_in; ++i) s += (i ? ", " : "") + type_of(i) + " " + reg(i);
    for (std::size_t j = 0; j < p.outputs.size(); ++j)
        s += ", out " + type_of(p.outputs[j]) + " y" + std::to_string(j);
    s += ") {\n";
    for (std::size_t k = 0; k < p.instrs.size(); ++k) {
        const auto r = static_cast<std::uint32_t>(n_in + k);
        s += std::string(type_of(r) == "uint" ? "    const uint " : "    precise float ") + reg(r) +
             " = " + fusion::codegen::expression(p, k, DType::F32, kGlsl, slot[k], "float") + ";\n";
    }
    for (std::size_t j = 0; j < p.outputs.size(); ++j)
        s += "    y" + std::to_string(j) + " = " + reg(p.outputs[j]) + ";\n";
    s += "}\n\n";
    return s;
}

/// The strided inputs' storage indexes o<m> of element `idx`, as burn_strided_index computes
/// them, from the element's coordinates taken once for all of them (their metas share the shape).
std::string strided_offsets(const Layout& l, const std::string& indent, const std::string& idx) {
    std::string s;
    for (std::size_t m = 0; m < l.strided; ++m)
        s += indent + "int o" + std::to_string(m) + " = metas[" + std::to_string(m) + "].offset;\n";
    if (l.strided == 0) return s;
    s += indent + "uint lin = " + idx + ";\n";
    s += indent + "for (int d = int(metas[0].rank) - 1; d >= 0; --d) {\n";
    s += indent + "    const uint extent = metas[0].shape[d];\n";
    s += indent + "    const int c = int(lin % extent);\n";
    s += indent + "    lin /= extent;\n";
    for (std::size_t m = 0; m < l.strided; ++m)
        s += indent + "    o" + std::to_string(m) + " += c * metas[" + std::to_string(m) +
             "].strides[d];\n";
    s += indent + "}\n";
    return s;
}

/// Input i's load at element `idx` (strided inputs: at their offset o<m>).
std::string load_input(const Layout& l, std::uint32_t i, const std::string& idx) {
    const std::string b = "in" + std::to_string(l.buffer[i]);
    std::size_t m = 0;
    for (std::uint32_t k = 0; k < i; ++k) m += l.access[k] == Access::Strided;
    switch (l.access[i]) {
        case Access::Dense: return b + "[" + idx + "]";
        case Access::Scalar: return b + "[0]";
        case Access::Strided: return b + "[uint(o" + std::to_string(m) + ")]";
    }
    return std::string();
}

/// The GLSL of the program's element-wise shader (see the file comment).
std::string generate(const Program& p, const Layout& l) {
    const std::size_t n_in = p.inputs.size();
    const auto type_of = [&](std::uint32_t r) { return glsl_type(p, r, false); };
    const auto vec_of = [&](std::uint32_t r) { return glsl_type(p, r, true); };
    const bool vectorised = l.strided == 0;
    std::string s = prelude(p, l, "    uint n;\n", vectorised);

    // The element-wise loads of input i at index `idx`.
    const auto load = [&](std::uint32_t i, const std::string& idx) {
        return load_input(l, i, idx);
    };
    const auto scalar_loop = [&](const std::string& indent, const std::string& idx) {
        std::string b;
        for (std::size_t j = 0; j < p.outputs.size(); ++j)
            b += indent + type_of(p.outputs[j]) + " y" + std::to_string(j) + ";\n";
        b += indent + "element(";
        for (std::uint32_t i = 0; i < n_in; ++i) b += (i ? ", " : "") + load(i, idx);
        for (std::size_t j = 0; j < p.outputs.size(); ++j) b += ", y" + std::to_string(j);
        b += ");\n";
        for (std::size_t j = 0; j < p.outputs.size(); ++j)
            b += indent + "out" + std::to_string(j) + "[" + idx + "] = y" + std::to_string(j) +
                 ";\n";
        return b;
    };

    s += "void main() {\n";
    if (!vectorised) {
        // The strided inputs' storage indexes o<m>, as burn_strided_index computes them, from the
        // coordinates of element i taken once for all of them (their metas share the shape).
        s += "    const uint i = burn_flat_index();\n    if (i >= pc.n) return;\n";
        s += strided_offsets(l, "    ", "i");
        s += scalar_loop("    ", "i");
        s += "}\n";
        return s;
    }
    // Invocation q: elements 4q .. 4q + 3 through the vec4 views; the last one the tail.
    s += "    const uint q = burn_flat_index(), full = pc.n / 4u;\n";
    s += "    if (q < full) {\n";
    for (std::uint32_t i = 0; i < n_in; ++i) {
        const std::string b = "in" + std::to_string(l.buffer[i]);
        if (l.access[i] == Access::Dense)
            s += "        const " + vec_of(i) + " v" + std::to_string(i) + " = " + b + "v[q];\n";
        else s += "        const " + type_of(i) + " v" + std::to_string(i) + " = " + b + "[0];\n";
    }
    for (std::size_t j = 0; j < p.outputs.size(); ++j)
        s += "        " + vec_of(p.outputs[j]) + " y" + std::to_string(j) + ";\n";
    for (const char* lane : {".x", ".y", ".z", ".w"}) {
        s += "        element(";
        for (std::uint32_t i = 0; i < n_in; ++i)
            s += (i ? ", v" : "v") + std::to_string(i) + (l.access[i] == Access::Dense ? lane : "");
        for (std::size_t j = 0; j < p.outputs.size(); ++j) s += ", y" + std::to_string(j) + lane;
        s += ");\n";
    }
    for (std::size_t j = 0; j < p.outputs.size(); ++j)
        s += "        out" + std::to_string(j) + "v[q] = y" + std::to_string(j) + ";\n";
    s += "    } else if (q == full) {\n";
    s += "        for (uint i = 4u * q; i < pc.n; ++i) {\n";
    s += scalar_loop("            ", "i");
    s += "        }\n    }\n}\n";
    return s;
}

/// A compiled shader: its name in the Contexts' pipeline caches and its SPIR-V.
struct Shader {
    std::string name;
    std::vector<std::uint32_t> spirv;
};

/// The process's shaders by key: each generated (by `text()`) and compiled once.
template <class Text>
const Shader& shader_for(std::string key, const Text& text) {
    static std::mutex mutex;
    static std::unordered_map<std::string, std::unique_ptr<Shader>> shaders;
    std::lock_guard lock(mutex);
    if (auto it = shaders.find(key); it != shaders.end()) return *it->second;
    auto sh = std::make_unique<Shader>();
    sh->name = "fused#" + std::to_string(shaders.size());
    sh->spirv = compile_glsl_cached(text(), sh->name + ".comp");
    return *shaders.emplace(std::move(key), std::move(sh)).first->second;
}

const Shader& shader_for(const Program& p, const Layout& l) {
    return shader_for(shader_key(p, l), [&] { return generate(p, l); });
}

// ---- programs ending with a reduction ----------------------------------------------------------
// The reduced register is seen as [outer, rows, inner] around the reduced dim (reduce_all: one
// row of every element). Along the last dim (inner == 1) a workgroup reduces a row, or a segment
// of one, its invocations striding over it and combining through shared memory; along another
// dim each invocation reduces a column (o, j), or a segment of one, so that neighbouring
// invocations read neighbouring elements. Segments (when there are too few rows or columns to
// fill the GPU) write partial results that the unfused reduce_dim kernel then combines. softmax
// takes three passes over its row or column (max; sum of exponentials; scale), each computing the
// program's register again from the inputs. Further outputs are written in the first pass.

/// Push constants of the reduction shaders before the scalars.
constexpr std::size_t kReducePushWords = 6;
constexpr const char* kReducePush =
    "    uint n;\n    uint outer;\n    uint rows;\n    uint inner;\n    uint segs;\n"
    "    uint seg_len;\n";

/// Longest row a softmax workgroup keeps in shared memory (12 KiB: with the reduction's 1 KiB
/// within the 16 KiB every device offers) instead of computing the program's register again in
/// its second and third passes.
constexpr std::size_t kSoftmaxCacheRows = 3072;

/// The GLSL of a program ending with a reduction: `row` as described above; `cached`: a softmax
/// row kept in shared memory.
std::string generate_reduce(const Program& p, const Layout& l, bool row, bool cached) {
    using Kind = fusion::Reduction::Kind;
    using backend::ReduceOp;
    const std::size_t n_in = p.inputs.size();
    const auto type_of = [&](std::uint32_t r) { return glsl_type(p, r, false); };
    const fusion::Reduction red = p.reduction;
    const bool softmax = red.kind == Kind::Softmax || red.kind == Kind::LogSoftmax;
    std::string s = prelude(p, l, kReducePush, false, softmax);
    s += "shared float red_[256];\n";
    // The fold and its identity (NaN propagating through max and min, as the unfused kernels).
    switch (red.op) {
        case ReduceOp::Sum:
        case ReduceOp::Mean:
            s += "float combine(float a, float b) { return a + b; }\nconst float IDENTITY = 0.0;\n";
            break;
        case ReduceOp::Prod:
            s += "float combine(float a, float b) { return a * b; }\nconst float IDENTITY = 1.0;\n";
            break;
        case ReduceOp::Max:
            s += "float combine(float a, float b) {\n    if (isnan(a)) return a;\n"
                 "    if (isnan(b)) return b;\n    return a < b ? b : a;\n}\n"
                 "#define IDENTITY (-BURN_INF)\n";
            break;
        case ReduceOp::Min:
            s += "float combine(float a, float b) {\n    if (isnan(a)) return a;\n"
                 "    if (isnan(b)) return b;\n    return b < a ? b : a;\n}\n"
                 "#define IDENTITY BURN_INF\n";
            break;
    }
    // at(i): the registers of element i (y0 the reduced one); write(i): the further outputs.
    s += "void at(uint i";
    for (std::size_t j = 0; j < p.outputs.size(); ++j)
        s += ", out " + type_of(p.outputs[j]) + " y" + std::to_string(j);
    s += ") {\n" + strided_offsets(l, "    ", "i") + "    element(";
    for (std::uint32_t i = 0; i < n_in; ++i) s += (i ? ", " : "") + load_input(l, i, "i");
    for (std::size_t j = 0; j < p.outputs.size(); ++j) s += ", y" + std::to_string(j);
    s += ");\n}\n";
    std::string decl = "        float y0;\n";
    std::string call = "        at(i, y0";
    std::string writes;
    for (std::size_t j = 1; j < p.outputs.size(); ++j) {
        const std::string y = "y" + std::to_string(j);
        decl += "        " + type_of(p.outputs[j]) + " " + y + ";\n";
        call += ", " + y;
        writes += "        out" + std::to_string(j) + "[i] = " + y + ";\n";
    }
    call += ");\n";
    const std::string element = decl + call;
    // Loops over the row / column: k the position along the reduced dim, i the element.
    const std::string idx = row ? "        const uint i = base + k;\n"
                                : "        const uint i = base + k * pc.inner;\n";
    const std::string loop_all = row ? "    for (uint k = lid; k < pc.rows; k += wg) {\n"
                                     : "    for (uint k = 0u; k < pc.rows; ++k) {\n";
    // The tree over the workgroup's shared values: red_[0] = fold of red_[0 .. wg).
    const auto tree = [&](const std::string& fold) {
        return "    barrier();\n    for (uint s = wg / 2u; s > 0u; s >>= 1u) {\n"
               "        if (lid < s) red_[lid] = " +
               fold + ";\n        barrier();\n    }\n";
    };
    s += "void main() {\n";
    s += "    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;\n";
    if (row) {
        s += "    const uint w = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;\n";
        s += "    if (w >= pc.outer * pc.segs) return;  // uniform across the workgroup\n";
        s += "    const uint base = (w / pc.segs) * pc.rows;\n";
    } else {
        s += "    const uint t = burn_flat_index(), cols = pc.outer * pc.inner;\n";
        s += "    if (t >= cols * pc.segs) return;\n";
        s += "    const uint c = t % cols;\n";
        s += "    const uint base = (c / pc.inner) * pc.rows * pc.inner + c % pc.inner;\n";
    }
    if (!softmax) {
        s += "    const uint g = " + std::string(row ? "w" : "t / cols") + " % pc.segs;\n";
        s += "    const uint begin = g * pc.seg_len, end = min(pc.rows, begin + pc.seg_len);\n";
        if (!row) s += "    const uint g2 = t / cols;\n";
        s += "    float acc = IDENTITY;\n";
        s += row ? "    for (uint k = begin + lid; k < end; k += wg) {\n"
                 : "    for (uint k = begin; k < end; ++k) {\n";
        s += idx + element + writes + "        acc = combine(acc, y0);\n    }\n";
        const auto finish = [&](const std::string& v) {
            return red.op == ReduceOp::Mean ? v + " / float(pc.rows)" : v;
        };
        if (row) {
            s += "    red_[lid] = acc;\n" + tree("combine(red_[lid], red_[lid + s])");
            s += "    if (lid == 0u) out0[w] = " + finish("red_[0]") + ";\n";
        } else {
            s += "    out0[g2 * cols + c] = " + finish("acc") + ";\n";
        }
        s += "}\n";
        return s;
    }
    // softmax: the max (NaN propagating; the further outputs written), the sum of exp(y - m)
    // (softmax stores the exponentials), then scale, or shift by log(sum).
    const bool log = red.kind == Kind::LogSoftmax;
    const std::string max_fold =
        "(!isnan(red_[lid]) && (isnan(red_[lid + s]) || red_[lid + s] > red_[lid])) "
        "? red_[lid + s] : red_[lid]";
    if (cached) {  // one pass computes the row into shared memory; each invocation rereads its own
        s.replace(s.find("shared float red_[256];"), 23,
                  "shared float red_[256];\nshared float row_[" +
                      std::to_string(kSoftmaxCacheRows) + "];");
        s += "    float m = -BURN_INF;\n" + loop_all + idx + element + writes +
             "        row_[k] = y0;\n"
             "        if (isnan(y0) || y0 > m) m = isnan(m) ? m : y0;\n    }\n";
        s += "    red_[lid] = m;\n" + tree(max_fold) + "    m = red_[0];\n    barrier();\n";
        s += "    float sum = 0.0;\n" + loop_all +
             "        const float e = burn_exp(row_[k] - m);\n" +
             (log ? "" : "        row_[k] = e;\n") + "        sum += e;\n    }\n";
        s += "    red_[lid] = sum;\n" + tree("red_[lid] + red_[lid + s]") + "    sum = red_[0];\n";
        s += log ? "    const float ls = burn_log(sum);\n" + loop_all + idx +
                       "        out0[i] = (row_[k] - m) - ls;\n    }\n"
                 : "    const float inv = 1.0 / sum;\n" + loop_all + idx +
                       "        out0[i] = row_[k] * inv;\n    }\n";
        return s + "}\n";
    }
    s += "    float m = -BURN_INF;\n" + loop_all + idx + element + writes +
         "        if (isnan(y0) || y0 > m) m = isnan(m) ? m : y0;\n    }\n";
    if (row) {
        s += "    red_[lid] = m;\n" + tree(max_fold) + "    m = red_[0];\n    barrier();\n";
    }
    s += "    float sum = 0.0;\n" + loop_all + idx + element +
         "        const float e = burn_exp(y0 - m);\n" + (log ? "" : "        out0[i] = e;\n") +
         "        sum += e;\n    }\n";
    if (row)
        s += "    red_[lid] = sum;\n" + tree("red_[lid] + red_[lid + s]") + "    sum = red_[0];\n";
    if (!log) {
        s += "    const float inv = 1.0 / sum;\n" + loop_all + idx +
             "        out0[i] *= inv;\n    }\n";
    } else {
        s += "    const float ls = burn_log(sum);\n" + loop_all + idx + element +
             "        out0[i] = (y0 - m) - ls;\n    }\n";
    }
    s += "}\n";
    return s;
}

/// The program's float dtype must be f32 (the only one Vulkan computes in).
void check_dtypes(const Program& p) {
    const auto check = [](DType d) {
        BURN_CHECK(d == DType::F32 || d == DType::Bool,
                   "Vulkan fused program: registers must be f32 or bool (Vulkan computes floats "
                   "in f32), got ",
                   d);
    };
    for (DType d : p.inputs) check(d);
    for (const Instr& i : p.instrs) check(i.dtype);
}

/// The binding of a tensor's buffer: inputs of one buffer and kind share it.
struct BufferUse {
    const Buffer* buffer;
    bool boolean;
    friend bool operator==(const BufferUse&, const BufferUse&) = default;
};

/// A program's inputs as a shader reads and binds them.
struct Bound {
    Layout layout;
    std::vector<BufferUse> uses;    ///< the distinct input buffers, in binding order
    std::vector<TensorMeta> metas;  ///< of the strided inputs
    std::vector<float> scalars;
};

Bound bind_inputs(const Program& p, std::span<const VulkanTensor> in, std::size_t push_words) {
    const std::size_t n_in = p.inputs.size();
    const std::size_t n = p.shape.num_elements();
    Bound b;
    Layout& l = b.layout;
    l.access.resize(n_in);
    l.buffer.resize(n_in);
    for (std::size_t i = 0; i < n_in; ++i) {
        const VulkanTensor& t = in[i];
        if (t.num_elements() == 1 && t.offset == 0) l.access[i] = Access::Scalar;
        else if (t.is_contiguous() && t.offset == 0 && t.num_elements() == n)
            l.access[i] = Access::Dense;
        else {
            l.access[i] = Access::Strided;
            b.metas.push_back(meta_broadcast(t, p.shape));
        }
        const BufferUse u{&buffer_of(t), p.inputs[i] == DType::Bool};
        const auto it = std::find(b.uses.begin(), b.uses.end(), u);
        l.buffer[i] = static_cast<std::uint32_t>(it - b.uses.begin());
        if (it == b.uses.end()) b.uses.push_back(u);
    }
    l.buffers = b.uses.size();
    l.strided = b.metas.size();
    b.scalars = scalars_of(p);
    l.scalars = b.scalars.size();
    l.push_words = push_words;
    return b;
}

/// Dispatches a program's shader: `counts` are the push constants before the scalars, `outs`
/// the output tensors in binding order.
void dispatch_program(const Program& p, const Bound& b, const Shader& shader, std::uint32_t wg,
                      const std::vector<std::uint32_t>& counts, std::span<const VulkanTensor> outs,
                      Groups groups, const VulkanDevice& device) {
    const Layout& l = b.layout;
    const std::size_t bindings = l.bindings(outs.size());
    BURN_CHECK(bindings <= Context::kMaxBindings, "Vulkan fused program: ", bindings,
               " buffers to bind, at most ", Context::kMaxBindings, " in one dispatch");
    (void)p;
    Context& ctx = context(device);
    std::vector<std::uint32_t> push = counts;
    if (l.push_scalars())
        for (float v : b.scalars) push.push_back(std::bit_cast<std::uint32_t>(v));
    const Pipeline& pipeline =
        ctx.pipeline({.shader = shader.name,
                      .spec = {wg},
                      .bindings = static_cast<std::uint32_t>(bindings),
                      .push_bytes = static_cast<std::uint32_t>(push.size() * 4),
                      .spirv = shader.spirv});
    Buffer params;
    std::vector<const Buffer*> buffers;
    buffers.reserve(bindings);
    if (l.params()) {
        const std::size_t meta_bytes = b.metas.size() * sizeof(TensorMeta);
        std::vector<std::byte> bytes(meta_bytes +
                                     (l.push_scalars() ? 0 : b.scalars.size() * sizeof(float)));
        if (!b.metas.empty()) std::memcpy(bytes.data(), b.metas.data(), meta_bytes);
        if (!l.push_scalars())
            std::memcpy(bytes.data() + meta_bytes, b.scalars.data(),
                        b.scalars.size() * sizeof(float));
        params = ctx.upload(bytes);
        buffers.push_back(&params);
    }
    for (const BufferUse& u : b.uses) buffers.push_back(u.buffer);
    for (const VulkanTensor& o : outs) buffers.push_back(&buffer_of(o));
    ctx.dispatch(pipeline, buffers, std::as_bytes(std::span<const std::uint32_t>(push)), groups);
}

/// Runs a program whose bindings fit in one dispatch.
std::vector<VulkanTensor> run_one(const Program& p, std::span<const VulkanTensor> in,
                                  const VulkanDevice& device) {
    const std::size_t n_in = p.inputs.size();
    const std::size_t n = p.shape.num_elements();
    std::vector<VulkanTensor> outs;
    outs.reserve(p.outputs.size());
    for (std::uint32_t r : p.outputs)
        outs.push_back(alloc(p.shape, p.instrs[r - n_in].dtype, device));
    if (n == 0) return outs;
    const Bound b = bind_inputs(p, in, 1);
    const Shader& shader = shader_for(p, b.layout);
    const std::uint64_t invocations = b.layout.strided == 0 ? (n + 3) / 4 : n;
    dispatch_program(p, b, shader, kWorkgroup, {static_cast<std::uint32_t>(n)}, outs,
                     grid_1d(invocations, kWorkgroup, context(device).features()), device);
    return outs;
}

/// The instructions [begin, end) of `p` as a program of their own: its inputs are the registers
/// they read from outside the range (in register order), its outputs those of `p` in the range
/// and those that instructions after the range read. `ext` receives the registers of `p` that
/// the sub-program's inputs and outputs stand for.
Program sub_program(const Program& p, std::size_t begin, std::size_t end,
                    std::vector<std::uint32_t>& ext_in, std::vector<std::uint32_t>& ext_out) {
    const auto n_in = static_cast<std::uint32_t>(p.inputs.size());
    const auto first = static_cast<std::uint32_t>(n_in + begin);
    const auto last = static_cast<std::uint32_t>(n_in + end);
    ext_in.clear();
    ext_out.clear();
    for (std::size_t k = begin; k < end; ++k)
        for (std::size_t j = 0; j < fusion::arity(p.instrs[k].kind); ++j) {
            const std::uint32_t r = p.instrs[k].args[j];
            if (r < first && std::find(ext_in.begin(), ext_in.end(), r) == ext_in.end())
                ext_in.push_back(r);
        }
    std::sort(ext_in.begin(), ext_in.end());
    for (std::uint32_t r = first; r < last; ++r) {
        bool needed = std::find(p.outputs.begin(), p.outputs.end(), r) != p.outputs.end();
        for (std::size_t k = end; k < p.instrs.size() && !needed; ++k)
            for (std::size_t j = 0; j < fusion::arity(p.instrs[k].kind); ++j)
                needed |= p.instrs[k].args[j] == r;
        if (needed) ext_out.push_back(r);
    }
    Program s;
    s.shape = p.shape;
    const auto dtype = [&](std::uint32_t r) {
        return r < n_in ? p.inputs[r] : p.instrs[r - n_in].dtype;
    };
    for (std::uint32_t r : ext_in) s.inputs.push_back(dtype(r));
    const auto m_in = static_cast<std::uint32_t>(ext_in.size());
    const auto local = [&](std::uint32_t r) {
        if (r >= first) return m_in + (r - first);
        return static_cast<std::uint32_t>(std::find(ext_in.begin(), ext_in.end(), r) -
                                          ext_in.begin());
    };
    for (std::size_t k = begin; k < end; ++k) {
        Instr ins = p.instrs[k];
        for (std::size_t j = 0; j < fusion::arity(ins.kind); ++j) ins.args[j] = local(ins.args[j]);
        s.instrs.push_back(ins);
    }
    for (std::uint32_t r : ext_out) s.outputs.push_back(local(r));
    return s;
}

/// Checks the program against its inputs; returns their device.
VulkanDevice check_program(const Program& p, std::span<const VulkanTensor> inputs) {
    BURN_CHECK(inputs.size() == p.inputs.size() && !inputs.empty(),
               "Vulkan fused program: ", inputs.size(), " inputs given for ", p.inputs.size());
    check_dtypes(p);
    const VulkanDevice device = inputs[0].device;
    const std::size_t n_in = p.inputs.size();
    for (std::size_t i = 0; i < n_in; ++i) {
        BURN_CHECK(inputs[i].dtype == p.inputs[i], "Vulkan fused program: input ", i, " is ",
                   inputs[i].dtype, ", the program reads ", p.inputs[i]);
        BURN_CHECK(inputs[i].device == device, "Vulkan fused program: input ", i, " is on ",
                   inputs[i].device, ", input 0 on ", device);
        BURN_CHECK(backend::broadcasts_to(inputs[i].shape, p.shape), "Vulkan fused program: input ",
                   i, " of shape ", inputs[i].shape, " does not broadcast to ", p.shape);
    }
    for (std::uint32_t r : p.outputs)
        BURN_CHECK(r >= n_in && r < p.num_registers(), "Vulkan fused program: output register ", r,
                   " is not an instruction's");
    check_u32("fused program", p.shape.num_elements());
    return device;
}

}  // namespace

std::vector<VulkanTensor> Kernels::fused_elementwise(const fusion::Program& p,
                                                     std::span<const VulkanTensor> inputs) {
    const VulkanDevice device = check_program(p, inputs);
    const std::size_t n_in = p.inputs.size();

    // The bindings a range of instructions needs at most: the parameter buffer, its inputs (each
    // input buffer once) and its outputs.
    const auto bindings = [&](std::size_t begin, std::size_t end) {
        std::vector<std::uint32_t> ext_in, ext_out;
        (void)sub_program(p, begin, end, ext_in, ext_out);
        std::vector<BufferUse> uses;
        std::size_t temps = 0;
        for (std::uint32_t r : ext_in) {
            if (r >= n_in) {
                ++temps;
                continue;
            }
            const BufferUse u{&buffer_of(inputs[r]), p.inputs[r] == DType::Bool};
            if (std::find(uses.begin(), uses.end(), u) == uses.end()) uses.push_back(u);
        }
        return 1 + uses.size() + temps + ext_out.size();
    };
    if (bindings(0, p.instrs.size()) <= Context::kMaxBindings) return run_one(p, inputs, device);

    // Too many buffers for one dispatch: consecutive ranges of instructions, each as long as its
    // bindings allow (one instruction needs at most 5), the registers that cross a cut kept in
    // temporary dense tensors.
    std::vector<std::optional<VulkanTensor>> value(p.num_registers());
    for (std::size_t i = 0; i < n_in; ++i) value[i] = inputs[i];
    std::size_t begin = 0;
    std::vector<std::uint32_t> ext_in, ext_out;
    while (begin < p.instrs.size()) {
        std::size_t end = begin + 1;
        while (end < p.instrs.size() && bindings(begin, end + 1) <= Context::kMaxBindings) ++end;
        const Program s = sub_program(p, begin, end, ext_in, ext_out);
        std::vector<VulkanTensor> in;
        in.reserve(ext_in.size());
        for (std::uint32_t r : ext_in) in.push_back(*value[r]);
        auto outs = run_one(s, in, device);
        for (std::size_t j = 0; j < ext_out.size(); ++j) value[ext_out[j]] = std::move(outs[j]);
        // Registers that nothing after this range reads are released.
        for (std::uint32_t r = static_cast<std::uint32_t>(n_in); r < n_in + end; ++r) {
            bool used = std::find(p.outputs.begin(), p.outputs.end(), r) != p.outputs.end();
            for (std::size_t k = end; k < p.instrs.size() && !used; ++k)
                for (std::size_t j = 0; j < fusion::arity(p.instrs[k].kind); ++j)
                    used |= p.instrs[k].args[j] == r;
            if (!used) value[r].reset();
        }
        begin = end;
    }
    std::vector<VulkanTensor> outs;
    outs.reserve(p.outputs.size());
    for (std::uint32_t r : p.outputs) outs.push_back(std::move(*value[r]));
    return outs;
}

std::vector<VulkanTensor> Kernels::fused_reduce(const fusion::Program& p,
                                                std::span<const VulkanTensor> inputs) {
    using Kind = fusion::Reduction::Kind;
    const VulkanDevice device = check_program(p, inputs);
    const fusion::Reduction red = p.reduction;
    const std::size_t n_in = p.inputs.size();
    const Shape& shape = p.shape;
    const std::size_t total = shape.num_elements();
    const fusion::ReduceGeometry g = fusion::reduce_geometry(p, DType::F32, "Vulkan fused program");
    const bool is_softmax = g.softmax;
    // The unfused kernel's reduction of a computed tensor.
    const auto unfused = [&](VulkanTensor t) {
        switch (red.kind) {
            case Kind::All: return reduce_all(red.op, std::move(t));
            case Kind::Dim: return reduce_dim(red.op, std::move(t), red.dim);
            default: return Kernels::softmax(std::move(t), red.dim, red.kind == Kind::LogSoftmax);
        }
    };
    Bound b = bind_inputs(p, inputs, kReducePushWords);
    if (b.layout.bindings(p.outputs.size()) > Context::kMaxBindings) {
        // Too many buffers for one dispatch: the registers computed, then reduced.
        fusion::Program q = p;
        q.reduction = {};
        auto outs = fused_elementwise(q, inputs);
        outs[0] = unfused(std::move(outs[0]));
        return outs;
    }
    const std::size_t outer = g.outer, rows = g.rows, inner = g.inner;
    const bool row = inner == 1;
    const std::size_t cols = outer * inner;
    // Segments of the rows or columns when there are too few of them to fill the device.
    std::size_t segs = 1;
    if (!is_softmax && row && outer < 256)
        segs = std::min((rows + 1023) / 1024, (255 + outer) / outer);
    if (!is_softmax && !row && cols < 16384)
        segs = std::min((rows + 63) / 64, (16383 + cols) / cols);
    segs = std::max<std::size_t>(segs, 1);
    const std::size_t seg_len = (rows + segs - 1) / segs;
    segs = (rows + seg_len - 1) / seg_len;
    std::uint32_t wg = kWorkgroup;
    if (row) {
        wg = 32;
        while (wg < kWorkgroup && wg < seg_len) wg *= 2;
    }
    const std::uint64_t invocations =
        row ? std::uint64_t{outer} * segs * wg : std::uint64_t{cols} * segs;
    check_u32("fused reduction", invocations);

    std::vector<VulkanTensor> outs;
    outs.reserve(p.outputs.size());
    outs.push_back(
        alloc(is_softmax ? shape : Shape{row ? outer * segs : segs * cols}, DType::F32, device));
    for (std::size_t k = 1; k < p.outputs.size(); ++k)
        outs.push_back(alloc(shape, p.instrs[p.outputs[k] - n_in].dtype, device));
    const bool cached = is_softmax && row && rows <= kSoftmaxCacheRows;
    std::string key =
        shader_key(p, b.layout) + "|reduce" + std::to_string(static_cast<int>(red.kind)) +
        std::to_string(static_cast<int>(red.op)) + (row ? "r" : "c") + (cached ? "s" : "");
    const Shader& shader =
        shader_for(std::move(key), [&] { return generate_reduce(p, b.layout, row, cached); });
    const auto u32 = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
    dispatch_program(p, b, shader, wg,
                     {u32(total), u32(outer), u32(rows), u32(inner), u32(segs), u32(seg_len)}, outs,
                     grid_1d(invocations, wg, context(device).features()), device);
    if (!is_softmax)
        outs[0] =
            fusion::codegen::combine_segments<Kernels>(std::move(outs[0]), g, red.op, segs, row);
    return outs;
}

}  // namespace burn::vk

// Fusion<Vulkan<F, I>> wraps this kernel set (the tests instantiate it: burn_fusion_tests_vulkan).
static_assert(burn::fusion::FusionBackend<burn::Vulkan<>>);
static_assert(burn::fusion::FusionBackend<burn::Vulkan<float, std::int64_t>>);

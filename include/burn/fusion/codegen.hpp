// SPDX-License-Identifier: MIT OR Apache-2.0
// Writing a fused program (<burn/fusion/program.hpp>) as kernel source, for the backends whose
// fusion part generates a kernel per program (CUDA C++ compiled by NVRTC, GLSL compiled by
// shaderc). A backend describes its language as a Dialect (how each instruction is spelled, as
// patterns over the operands); what every generator needs is here once: the text of each
// instruction, the scalars it reads (kernel arguments, never part of the text), the special
// cases the unfused kernels take (powf_scalar's cheap exponents, divisions by a power of two),
// and the program's structure as a cache key. The backend writes the loops, the loads and the
// stores around the instructions.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "burn/backend/layout.hpp"
#include "burn/fusion/program.hpp"

namespace burn::fusion::codegen {

/// How a kernel language spells the instructions. Patterns are text with placeholders: $a $b $c
/// the operand registers, $0 $1 the instruction's scalars, $E the float type, $op a comparison's
/// operator (==, !=, >, >=, <, <=). A scalar form (binary_scalar, compare_scalar) uses the
/// tensor-tensor pattern with $b standing for the scalar.
struct Dialect {
    const char* name;                   ///< the backend, in messages ("Cuda")
    std::array<const char*, 15> unary;  ///< by UnaryOp, Neg .. Ceil
    std::array<const char*, 8> binary;  ///< by BinaryOp, Add .. Min
    const char* compare;
    const char* clamp;
    const char* where;                               ///< mask_where: $b (the mask) ? $c : $a
    const char* fill;                                ///< mask_fill: $b ? $0 : $a
    std::array<const char*, 6> activation;           ///< by Activation
    std::array<const char*, 4> activation_backward;  ///< Relu, Gelu, Sigmoid, LogSigmoid
    /// powf_scalar by 1, 0.5, -1 and 2 as the unfused kernel computes them (nullptr: through the
    /// general pow, as that kernel does).
    std::array<const char*, 4> pow_special;
    /// A division by a power-of-two scalar as a multiplication by its exact reciprocal ($0 is
    /// then the reciprocal), or nullptr: always the division pattern.
    const char* div_by_reciprocal;
    /// A scalar argument: the text of scalar number `slot` of the program.
    std::string (*scalar)(std::size_t slot);
};

/// The program's float dtype: that of every float register (the programs Fusion records have
/// one), F32 when there is none. Throws burn::Error naming `who` when they differ.
DType float_dtype(const Program& p, const char* who);

/// 1 / s when multiplying by it gives the bits of dividing by `s` in `fdt` (s a power of two
/// whose reciprocal is finite and non-zero there: both round x * 2^-k once), else 0.
double exact_reciprocal(double s, DType fdt);

/// The scalars of the program, in slot order ($0 and $1 of each instruction), as doubles (the
/// backend converts them to its float type); slots[k] is instruction k's first slot.
std::vector<double> scalars(const Program& p, DType fdt, const Dialect& d,
                            std::vector<std::size_t>* slots = nullptr);

/// The expression computing instruction `k` (operands r<register>), its scalars from `slot`,
/// `float_type` standing for $E.
std::string expression(const Program& p, std::size_t k, DType fdt, const Dialect& d,
                       std::size_t slot, const std::string& float_type);

/// Everything about the program that its text depends on besides the inputs' layouts: the
/// instructions, their operands, the special cases taken, and the outputs (not the shape or the
/// scalar values). Backends append how they read each input.
std::string structure_key(const Program& p, DType fdt, const Dialect& d);

/// "r<k>": the name of register k in generated code.
std::string reg(std::uint32_t k);

/// The result of a generated reduction kernel (kernel set KS) that wrote one value per row
/// ([outer, segs], `row`) or per column ([segs, outer * inner]) and segment: the segments'
/// partial results combined by KS::reduce_dim (Mean's partials are already divided by the row
/// count: they are summed), reshaped to the reduction's result shape.
template <class KS, class T>
T combine_segments(T r, const ReduceGeometry& g, backend::ReduceOp op, std::size_t segs, bool row) {
    if (segs > 1) {
        r.shape = row ? Shape{g.outer, segs} : Shape{segs, g.outer * g.inner};
        r.strides = backend::contiguous_strides(r.shape);
        if (op == backend::ReduceOp::Mean) op = backend::ReduceOp::Sum;
        r = KS::reduce_dim(op, std::move(r), row ? 1 : 0);
    }
    r.shape = g.result;
    r.strides = backend::contiguous_strides(g.result);
    return r;
}

}  // namespace burn::fusion::codegen

// SPDX-License-Identifier: MIT OR Apache-2.0
// The fused element-wise program: what Fusion<B> (<burn/fusion/fusion.hpp>) hands to a backend's
// fusion part. A program is a list of instructions over registers, all of one shape: registers
// 0..inputs.size()-1 are the inputs (tensors of any layout, broadcast to the shape), instruction
// k writes register inputs.size() + k, and the registers listed in `outputs` are written to new
// dense tensors. Each instruction is one kernel of the op vocabulary (<burn/backend/kernels.hpp>)
// with that kernel's semantics, so a backend runs the program exactly as it would run the kernels
// one by one, without the round trips through memory. A program may end with a reduction
// (Reduction): then its first output is reduced (a sum, a max, a softmax, ...) instead of written.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "burn/backend/ops.hpp"
#include "burn/tensor/dtype.hpp"
#include "burn/tensor/shape.hpp"

namespace burn::fusion {

/// The kernel an instruction stands for (its operands a, b, c are registers).
enum class OpKind : std::uint8_t {
    Unary,               ///< unary(UnaryOp(op), a)
    Binary,              ///< binary(BinaryOp(op), a, b)
    BinaryScalar,        ///< binary_scalar(BinaryOp(op), a, scalar)
    Compare,             ///< compare(CmpOp(op), a, b): a bool register
    CompareScalar,       ///< compare_scalar(CmpOp(op), a, scalar): a bool register
    Clamp,               ///< clamp(a, has_lo ? scalar : none, has_hi ? scalar2 : none)
    Where,               ///< mask_where(a, mask b, value c): b ? c : a
    Fill,                ///< mask_fill(a, mask b, scalar): b ? scalar : a
    Activation,          ///< activation(Activation(op), a, alpha, beta)
    ActivationBackward,  ///< activation_backward(Activation(op), saved a, grad b)
};

/// One instruction: the kernel, its enum (UnaryOp, BinaryOp, CmpOp or Activation as an integer),
/// the result's dtype, the operand registers and the kernel's scalar arguments.
struct Instr {
    OpKind kind = OpKind::Unary;
    std::uint8_t op = 0;
    DType dtype = DType::F32;
    std::array<std::uint32_t, 3> args{};
    backend::ScalarArg scalar{};
    backend::ScalarArg scalar2{};
    bool has_lo = false;
    bool has_hi = false;
    double alpha = 0.0;
    double beta = 0.0;
};

/// The number of operands of an instruction of this kind.
constexpr std::size_t arity(OpKind k) noexcept {
    switch (k) {
        case OpKind::Binary:
        case OpKind::Compare:
        case OpKind::Fill:
        case OpKind::ActivationBackward: return 2;
        case OpKind::Where: return 3;
        default: return 1;
    }
}

/// The reduction a program can end with (a kernel set's fused_reduce): the program's first output
/// register is not written to memory but reduced, as the kernel named here reduces a tensor of the
/// program's shape; the other outputs are written as usual.
struct Reduction {
    enum class Kind : std::uint8_t {
        None,        ///< an element-wise program (fused_elementwise)
        All,         ///< reduce_all(op, r)
        Dim,         ///< reduce_dim(op, r, dim): the dim kept with size 1
        Softmax,     ///< softmax(r, dim, false)
        LogSoftmax,  ///< softmax(r, dim, true)
    };
    Kind kind = Kind::None;
    backend::ReduceOp op = backend::ReduceOp::Sum;  ///< All and Dim
    std::uint32_t dim = 0;                          ///< Dim, Softmax and LogSoftmax
};

struct Program {
    Shape shape;                         ///< the shape of every register
    std::vector<DType> inputs;           ///< the dtype of each input register
    std::vector<Instr> instrs;           ///< instruction k writes register inputs.size() + k
    std::vector<std::uint32_t> outputs;  ///< registers written to memory, in this order
    Reduction reduction;                 ///< what happens to outputs[0] (Kind::None: written)

    std::uint32_t num_registers() const {
        return static_cast<std::uint32_t>(inputs.size() + instrs.size());
    }
    /// The program as text, one instruction per line ("r3 = mul(r0, r2)"): BURN_FUSION_LOG
    /// prints it.
    std::string to_string() const;
};

/// A program's reduction seen as [outer, rows, inner] around the reduced dim (reduce_all: one row
/// of every element), and the shape of its result.
struct ReduceGeometry {
    std::size_t outer = 1, rows = 1, inner = 1;
    Shape result;
    bool softmax = false;  ///< Softmax or LogSoftmax: the result has the program's shape
};

/// The geometry of p's reduction. Throws burn::Error naming `who` unless p is a non-empty program
/// whose first output is a register of float dtype `fdt` reduced along one of its dims.
ReduceGeometry reduce_geometry(const Program& p, DType fdt, const char* who);

}  // namespace burn::fusion

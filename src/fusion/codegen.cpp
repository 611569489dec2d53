// SPDX-License-Identifier: MIT OR Apache-2.0
// The parts of kernel generation every generating fusion part shares (burn/fusion/codegen.hpp).
#include "burn/fusion/codegen.hpp"

#include <cmath>
#include <limits>
#include <string_view>

#include "burn/tensor/error.hpp"

namespace burn::fusion::codegen {

namespace {

bool is_binary_scalar(const Instr& ins, backend::BinaryOp op) {
    return ins.kind == OpKind::BinaryScalar && static_cast<backend::BinaryOp>(ins.op) == op;
}

/// Which of powf_scalar's special exponents `p` is (0: 1, 1: 0.5, 2: -1, 3: 2), or -1.
int pow_special(double p) {
    if (p == 1.0) return 0;
    if (p == 0.5) return 1;
    if (p == -1.0) return 2;
    if (p == 2.0) return 3;
    return -1;
}

/// The dialect's pattern for pow by `p`, or nullptr: the general pow.
const char* pow_pattern(double p, const Dialect& d) {
    const int k = pow_special(p);
    return k < 0 ? nullptr : d.pow_special[static_cast<std::size_t>(k)];
}

bool divides_by_reciprocal(const Instr& ins, DType fdt, const Dialect& d) {
    return d.div_by_reciprocal && is_binary_scalar(ins, backend::BinaryOp::Div) &&
           exact_reciprocal(ins.scalar.f, fdt) != 0.0;
}

/// How many scalars instruction `ins` reads ($0, $1).
std::size_t scalar_count(const Instr& ins) {
    switch (ins.kind) {
        case OpKind::BinaryScalar:
        case OpKind::CompareScalar:
        case OpKind::Fill: return 1;
        case OpKind::Clamp:
        case OpKind::Activation: return 2;
        default: return 0;
    }
}

/// `pattern` with its placeholders replaced.
std::string fill(std::string_view pattern, const std::array<std::string, 5>& operands,
                 const std::string& float_type, const char* op) {
    std::string out;
    out.reserve(pattern.size() + 32);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '$' || i + 1 == pattern.size()) {
            out += pattern[i];
            continue;
        }
        const char c = pattern[++i];
        switch (c) {
            case 'a': out += operands[0]; break;
            case 'b': out += operands[1]; break;
            case 'c': out += operands[2]; break;
            case '0': out += operands[3]; break;
            case '1': out += operands[4]; break;
            case 'E': out += float_type; break;
            case 'o':  // $op
                out += op ? op : "";
                ++i;
                break;
            default: out += '$', out += c;
        }
    }
    return out;
}

}  // namespace

DType float_dtype(const Program& p, const char* who) {
    DType fdt = DType::Bool;
    for (DType d : p.inputs)
        if (d != DType::Bool) fdt = d;
    for (const Instr& i : p.instrs)
        if (i.dtype != DType::Bool) fdt = i.dtype;
    const auto check = [&](DType d) {
        if (d != DType::Bool && d != fdt)
            ::burn::detail::fail(who, ": a fused program mixes the float dtypes ", dtype_name(fdt),
                                 " and ", dtype_name(d));
    };
    for (DType d : p.inputs) check(d);
    for (const Instr& i : p.instrs) check(i.dtype);
    return fdt == DType::Bool ? DType::F32 : fdt;
}

double exact_reciprocal(double s, DType fdt) {
    const double v = fdt == DType::F32 ? static_cast<double>(static_cast<float>(s)) : s;
    if (!std::isfinite(v) || v == 0.0) return 0.0;
    int e = 0;
    if (std::abs(std::frexp(v, &e)) != 0.5) return 0.0;
    const double r = 1.0 / v;
    if (!std::isfinite(r) || r == 0.0) return 0.0;
    if (fdt == DType::F32) {
        const auto rf = static_cast<float>(r);
        if (!std::isfinite(rf) || rf == 0.0f || static_cast<double>(rf) != r) return 0.0;
    }
    return r;
}

std::vector<double> scalars(const Program& p, DType fdt, const Dialect& d,
                            std::vector<std::size_t>* slots) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    std::vector<double> out;
    if (slots) slots->clear();
    for (const Instr& ins : p.instrs) {
        if (slots) slots->push_back(out.size());
        switch (ins.kind) {
            case OpKind::BinaryScalar:
                out.push_back(divides_by_reciprocal(ins, fdt, d)
                                  ? exact_reciprocal(ins.scalar.f, fdt)
                                  : ins.scalar.f);
                break;
            case OpKind::CompareScalar:
            case OpKind::Fill: out.push_back(ins.scalar.f); break;
            case OpKind::Clamp:
                out.push_back(ins.has_lo ? ins.scalar.f : -inf);
                out.push_back(ins.has_hi ? ins.scalar2.f : inf);
                break;
            case OpKind::Activation:
                out.push_back(ins.alpha);
                out.push_back(ins.beta);
                break;
            default: break;
        }
    }
    return out;
}

std::string reg(std::uint32_t k) {
    std::string r(1, 'r');
    r += std::to_string(k);
    return r;
}

std::string expression(const Program& p, std::size_t k, DType fdt, const Dialect& d,
                       std::size_t slot, const std::string& float_type) {
    using backend::Activation;
    using backend::BinaryOp;
    using backend::CmpOp;
    using backend::UnaryOp;
    const Instr& ins = p.instrs[k];
    std::array<std::string, 5> ops;
    for (std::size_t j = 0; j < arity(ins.kind); ++j) ops[j] = reg(ins.args[j]);
    for (std::size_t j = 0; j < scalar_count(ins); ++j) ops[3 + j] = d.scalar(slot + j);
    const auto with = [&](const char* pattern, const char* op = nullptr) {
        return fill(pattern, ops, float_type, op);
    };
    switch (ins.kind) {
        case OpKind::Unary: {
            const auto op = static_cast<UnaryOp>(ins.op);
            if (op == UnaryOp::Not) break;
            return with(d.unary.at(static_cast<std::size_t>(op)));
        }
        case OpKind::BinaryScalar:
            if (is_binary_scalar(ins, BinaryOp::Pow)) {
                if (const char* pattern = pow_pattern(ins.scalar.f, d)) return with(pattern);
            }
            if (divides_by_reciprocal(ins, fdt, d)) return with(d.div_by_reciprocal);
            ops[1] = ops[3];  // the scalar in $b
            [[fallthrough]];
        case OpKind::Binary: {
            const auto op = static_cast<BinaryOp>(ins.op);
            if (op == BinaryOp::And || op == BinaryOp::Or) break;
            return with(d.binary.at(static_cast<std::size_t>(op)));
        }
        case OpKind::CompareScalar: ops[1] = ops[3]; [[fallthrough]];
        case OpKind::Compare: {
            static constexpr const char* symbols[] = {"==", "!=", ">", ">=", "<", "<="};
            return with(d.compare, symbols[static_cast<std::size_t>(static_cast<CmpOp>(ins.op))]);
        }
        case OpKind::Clamp: return with(d.clamp);
        case OpKind::Where: return with(d.where);
        case OpKind::Fill: return with(d.fill);
        case OpKind::Activation: return with(d.activation.at(ins.op));
        case OpKind::ActivationBackward: {
            const auto op = static_cast<Activation>(ins.op);
            const int i = op == Activation::Relu         ? 0
                          : op == Activation::Gelu       ? 1
                          : op == Activation::Sigmoid    ? 2
                          : op == Activation::LogSigmoid ? 3
                                                         : -1;
            if (i < 0)
                ::burn::detail::fail(d.name, " ", backend::op_name(op),
                                     ": has no backward kernel (relu, gelu, sigmoid, "
                                     "log_sigmoid)");
            return with(d.activation_backward[static_cast<std::size_t>(i)]);
        }
    }
    ::burn::detail::fail(d.name, " fused program: instruction ", k, " is not one Fusion records (",
                         p.to_string(), ")");
}

std::string structure_key(const Program& p, DType fdt, const Dialect& d) {
    std::string k;
    k.reserve(8 + 8 * p.instrs.size() + 4 * p.outputs.size());
    k += fdt == DType::F64 ? 'D' : 'F';
    for (DType t : p.inputs) k += t == DType::Bool ? 'b' : 'f';
    k += '|';
    for (const Instr& ins : p.instrs) {
        k += static_cast<char>('A' + static_cast<int>(ins.kind));
        k += static_cast<char>(ins.op);
        for (std::size_t j = 0; j < arity(ins.kind); ++j)
            k.append(reinterpret_cast<const char*>(&ins.args[j]), sizeof(std::uint32_t));
        if (is_binary_scalar(ins, backend::BinaryOp::Pow))
            k += static_cast<char>('0' + pow_special(ins.scalar.f) + 1);
        if (divides_by_reciprocal(ins, fdt, d)) k += 'm';
    }
    k += '|';
    for (std::uint32_t r : p.outputs) k.append(reinterpret_cast<const char*>(&r), sizeof r);
    return k;
}

}  // namespace burn::fusion::codegen

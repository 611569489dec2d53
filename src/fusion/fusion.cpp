// SPDX-License-Identifier: MIT OR Apache-2.0
// The non-template parts of Fusion<B>: the process-wide graph lock, the counters and the log of
// fused programs (BURN_FUSION_LOG), and Program::to_string.
#include <atomic>
#include <burn/fusion/fusion.hpp>
#include <burn/tensor/error.hpp>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace burn::fusion {

namespace {
std::atomic<std::uint64_t> g_programs{0}, g_fused_ops{0}, g_outputs{0}, g_unfused{0};

bool log_enabled() {
    static const bool on = [] {
        const char* v = std::getenv("BURN_FUSION_LOG");
        return v && *v && std::string_view(v) != "0";
    }();
    return on;
}

const char* kind_name(const Instr& i) {
    switch (i.kind) {
        case OpKind::Unary: return backend::op_name(static_cast<backend::UnaryOp>(i.op));
        case OpKind::Binary:
        case OpKind::BinaryScalar: return backend::op_name(static_cast<backend::BinaryOp>(i.op));
        case OpKind::Compare:
        case OpKind::CompareScalar: return backend::op_name(static_cast<backend::CmpOp>(i.op));
        case OpKind::Clamp: return "clamp";
        case OpKind::Where: return "mask_where";
        case OpKind::Fill: return "mask_fill";
        case OpKind::Activation: return backend::op_name(static_cast<backend::Activation>(i.op));
        case OpKind::ActivationBackward: return "activation_backward";
    }
    return "?";
}
}  // namespace

Stats stats() {
    return {g_programs.load(), g_fused_ops.load(), g_outputs.load(), g_unfused.load()};
}

void reset_stats() {
    g_programs = 0;
    g_fused_ops = 0;
    g_outputs = 0;
    g_unfused = 0;
}

std::string Program::to_string() const {
    std::ostringstream os;
    os << "fused program over " << shape << ": " << inputs.size() << " inputs, " << instrs.size()
       << " ops, " << outputs.size() << " outputs\n";
    const auto n_in = inputs.size();
    for (std::size_t k = 0; k < instrs.size(); ++k) {
        const Instr& i = instrs[k];
        os << "  r" << n_in + k << " = " << kind_name(i);
        if (i.kind == OpKind::ActivationBackward)
            os << "[" << backend::op_name(static_cast<backend::Activation>(i.op)) << "]";
        os << "(";
        for (std::size_t j = 0; j < arity(i.kind); ++j) os << (j ? ", r" : "r") << i.args[j];
        if (i.kind == OpKind::BinaryScalar || i.kind == OpKind::CompareScalar ||
            i.kind == OpKind::Fill)
            os << ", " << i.scalar.f;
        if (i.kind == OpKind::Clamp) {
            os << ", ";
            if (i.has_lo) os << i.scalar.f;
            else os << "none";
            os << ", ";
            if (i.has_hi) os << i.scalar2.f;
            else os << "none";
        }
        os << ") : " << dtype_name(i.dtype) << "\n";
    }
    os << "  outputs:";
    for (auto r : outputs) os << " r" << r;
    switch (reduction.kind) {
        case Reduction::Kind::None: break;
        case Reduction::Kind::All:
            os << "\n  r" << outputs[0] << " reduced: " << backend::op_name(reduction.op);
            break;
        case Reduction::Kind::Dim:
            os << "\n  r" << outputs[0] << " reduced: " << backend::op_dim_name(reduction.op)
               << "(dim " << reduction.dim << ")";
            break;
        case Reduction::Kind::Softmax:
        case Reduction::Kind::LogSoftmax:
            os << "\n  r" << outputs[0] << " reduced: "
               << (reduction.kind == Reduction::Kind::Softmax ? "softmax" : "log_softmax")
               << "(dim " << reduction.dim << ")";
            break;
    }
    return os.str();
}

ReduceGeometry reduce_geometry(const Program& p, DType fdt, const char* who) {
    using Kind = Reduction::Kind;
    const Reduction red = p.reduction;
    const std::size_t n_in = p.inputs.size();
    const std::size_t total = p.shape.num_elements();
    BURN_CHECK(red.kind != Kind::None && !p.outputs.empty() && p.outputs[0] >= n_in &&
                   p.outputs[0] < p.num_registers() && p.instrs[p.outputs[0] - n_in].dtype == fdt &&
                   total > 0 && (red.kind == Kind::All || red.dim < p.shape.rank()),
               who, ": fused_reduce expects a non-empty program whose first output is a ", fdt,
               " register reduced along one of its ", p.shape.rank(), " dims");
    ReduceGeometry g;
    g.softmax = red.kind == Kind::Softmax || red.kind == Kind::LogSoftmax;
    g.rows = total;
    g.result = Shape{1};
    if (red.kind != Kind::All) {
        g.outer = 1;
        for (std::size_t d = 0; d < red.dim; ++d) g.outer *= p.shape[d];
        for (std::size_t d = red.dim + 1; d < p.shape.rank(); ++d) g.inner *= p.shape[d];
        g.rows = p.shape[red.dim];
        g.result = p.shape;
        if (!g.softmax) g.result[red.dim] = 1;
    }
    return g;
}

namespace detail {

void note_program(const Program& p) {
    g_programs.fetch_add(1, std::memory_order_relaxed);
    g_fused_ops.fetch_add(p.instrs.size(), std::memory_order_relaxed);
    g_outputs.fetch_add(p.outputs.size(), std::memory_order_relaxed);
    if (log_enabled()) std::cerr << "[burn fusion] " << p.to_string() << "\n";
}

void note_unfused() { g_unfused.fetch_add(1, std::memory_order_relaxed); }

std::recursive_mutex& graph_mutex() {
    static std::recursive_mutex m;
    return m;
}

}  // namespace detail
}  // namespace burn::fusion

// SPDX-License-Identifier: MIT OR Apache-2.0
// The non-template parts of Fusion<B>: the process-wide graph lock, the counters and the log of
// fused programs (BURN_FUSION_LOG), and Program::to_string.
#include <atomic>
#include <burn/fusion/fusion.hpp>
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
    return os.str();
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

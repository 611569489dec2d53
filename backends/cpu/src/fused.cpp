// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend's fusion part (Fusion<Cpu<F>>): runs a fused element-wise program
// (<burn/fusion/program.hpp>) tile by tile. Each tile is kTile consecutive elements of the output
// (row-major); the inputs' elements of the tile are read in place (dense inputs) or gathered into
// a scratch register (broadcast and strided views), each instruction runs the same SIMD functor
// as the unfused kernel over the tile's registers (elementwise.hpp, activation_ops.hpp), and the
// output registers are written straight into the outputs. The registers of a tile stay in L1/L2,
// so a chain of n ops costs one pass over memory instead of n; tiles are split over the kernels'
// threads. Results are those of the kernels run one by one (same functors, same special cases).
#include <array>
#include <burn/fusion/codegen.hpp>
#include <burn/fusion/program.hpp>
#include <cstring>
#include <vector>

#include "activation_ops.hpp"
#include "elementwise.hpp"

namespace burn::cpu {
using namespace ew;   // NOLINT(google-build-using-namespace): private kernel machinery
using namespace act;  // NOLINT(google-build-using-namespace): the activation functors

namespace {

using fusion::Instr;
using fusion::OpKind;
using fusion::Program;

/// Elements per tile: registers of 2 KiB (f32) or 4 KiB (f64).
constexpr std::size_t kTile = 512;

/// Copies elements [begin, begin + n) (row-major over `shape`) of the view into dst.
template <class X>
void gather(const View& v, const Shape& shape, std::size_t begin, std::size_t n, X* dst) {
    const X* base = ptr<X>(v);
    if (v.flat) {
        std::memcpy(dst, base + v.offset + static_cast<std::int64_t>(begin), n * sizeof(X));
        return;
    }
    if (v.scalar || shape.rank() == 0) {
        std::fill_n(dst, n, base[v.offset]);
        return;
    }
    const std::size_t rank = shape.rank();
    std::array<std::size_t, Shape::max_rank> idx{};
    std::size_t rem = begin;
    std::int64_t off = v.offset;
    for (std::size_t d = rank; d-- > 0;) {
        idx[d] = rem % shape[d];
        rem /= shape[d];
        off += static_cast<std::int64_t>(idx[d]) * v.strides[d];
    }
    const std::size_t last = shape[rank - 1];
    const std::int64_t s = v.strides[rank - 1];
    std::size_t done = 0;
    while (done < n) {
        const std::size_t run = std::min(last - idx[rank - 1], n - done);
        if (s == 1) std::memcpy(dst + done, base + off, run * sizeof(X));
        else if (s == 0) std::fill_n(dst + done, run, base[off]);
        else
            for (std::size_t i = 0; i < run; ++i)
                dst[done + i] = base[off + static_cast<std::int64_t>(i) * s];
        done += run;
        off += static_cast<std::int64_t>(run) * s;
        idx[rank - 1] += run;
        if (idx[rank - 1] < last) continue;
        off -= static_cast<std::int64_t>(last) * s;
        idx[rank - 1] = 0;
        for (std::size_t d = rank - 1; d-- > 0;) {
            off += v.strides[d];
            if (++idx[d] < shape[d]) break;
            off -= static_cast<std::int64_t>(shape[d]) * v.strides[d];
            idx[d] = 0;
        }
    }
}

template <class E>
void run_unary_op(backend::UnaryOp op, const E* a, E* o, std::size_t n) {
    using backend::UnaryOp;
    switch (op) {
        case UnaryOp::Neg: return unary_dense<false, E, E>(a, o, n, UNeg{});
        case UnaryOp::Abs: return unary_dense<false, E, E>(a, o, n, UAbs{});
        case UnaryOp::Sign: return unary_dense<false, E, E>(a, o, n, USign{});
        case UnaryOp::Exp: return unary_dense<false, E, E>(a, o, n, UExp{});
        case UnaryOp::Log: return unary_dense<false, E, E>(a, o, n, ULog{});
        case UnaryOp::Log1p: return unary_dense<false, E, E>(a, o, n, ULog1p{});
        case UnaryOp::Erf: return unary_dense<false, E, E>(a, o, n, UErf{});
        case UnaryOp::Sqrt: return unary_dense<false, E, E>(a, o, n, USqrt{});
        case UnaryOp::Recip: return unary_dense<false, E, E>(a, o, n, URecip{});
        case UnaryOp::Sin: return unary_dense<false, E, E>(a, o, n, USin{});
        case UnaryOp::Cos: return unary_dense<false, E, E>(a, o, n, UCos{});
        case UnaryOp::Tanh: return unary_dense<false, E, E>(a, o, n, UTanh{});
        case UnaryOp::Round: return unary_dense<false, E, E>(a, o, n, URound{});
        case UnaryOp::Floor: return unary_dense<false, E, E>(a, o, n, UFloor{});
        case UnaryOp::Ceil: return unary_dense<false, E, E>(a, o, n, UCeil{});
        case UnaryOp::Not: break;  // never recorded (bool operands)
    }
}

/// Tensor-tensor (B == nullptr: tensor-scalar with b) arithmetic.
template <class E, class Op>
void run_binary_op(const Op& op, const E* a, const E* b, E bs, E* o, std::size_t n) {
    if (b) binary_vv<false, E, E>(a, b, o, n, op);
    else binary_vs<false, E, E>(a, bs, o, n, op);
}
template <class E>
void run_binary_op(backend::BinaryOp op, const E* a, const E* b, E bs, E* o, std::size_t n) {
    using backend::BinaryOp;
    switch (op) {
        case BinaryOp::Add: return run_binary_op(BAdd{}, a, b, bs, o, n);
        case BinaryOp::Sub: return run_binary_op(BSub{}, a, b, bs, o, n);
        case BinaryOp::Mul: return run_binary_op(BMul{}, a, b, bs, o, n);
        case BinaryOp::Div: return run_binary_op(BDiv{}, a, b, bs, o, n);
        case BinaryOp::Rem: return run_binary_op(BRem{}, a, b, bs, o, n);
        case BinaryOp::Pow: return run_binary_op(BPow{}, a, b, bs, o, n);
        case BinaryOp::Max: return run_binary_op(BMax{}, a, b, bs, o, n);
        case BinaryOp::Min: return run_binary_op(BMin{}, a, b, bs, o, n);
        default: break;  // And / Or: never recorded
    }
}

template <class E, backend::CmpOp C>
void run_compare_op(const E* a, const E* b, E bs, std::uint8_t* o, std::size_t n) {
    if (b) binary_vv<false, E, std::uint8_t>(a, b, o, n, BCmp<C>{});
    else binary_vs<false, E, std::uint8_t>(a, bs, o, n, BCmp<C>{});
}
template <class E>
void run_compare_op(backend::CmpOp op, const E* a, const E* b, E bs, std::uint8_t* o,
                    std::size_t n) {
    using backend::CmpOp;
    switch (op) {
        case CmpOp::Eq: return run_compare_op<E, CmpOp::Eq>(a, b, bs, o, n);
        case CmpOp::Ne: return run_compare_op<E, CmpOp::Ne>(a, b, bs, o, n);
        case CmpOp::Gt: return run_compare_op<E, CmpOp::Gt>(a, b, bs, o, n);
        case CmpOp::Ge: return run_compare_op<E, CmpOp::Ge>(a, b, bs, o, n);
        case CmpOp::Lt: return run_compare_op<E, CmpOp::Lt>(a, b, bs, o, n);
        case CmpOp::Le: return run_compare_op<E, CmpOp::Le>(a, b, bs, o, n);
    }
}

template <class E>
void run_activation(const Instr& ins, const E* a, E* o, std::size_t n) {
    using backend::Activation;
    switch (static_cast<Activation>(ins.op)) {
        case Activation::Relu: return unary_dense<false, E, E>(a, o, n, ARelu{});
        case Activation::Gelu: return unary_dense<false, E, E>(a, o, n, AGelu{});
        case Activation::Sigmoid: return unary_dense<false, E, E>(a, o, n, ASigmoid{});
        case Activation::LogSigmoid: return unary_dense<false, E, E>(a, o, n, ALogSigmoid{});
        case Activation::HardSigmoid:
            return unary_dense<false, E, E>(
                a, o, n, AHardSigmoid<E>{static_cast<E>(ins.alpha), static_cast<E>(ins.beta)});
        case Activation::LeakyRelu:
            return unary_dense<false, E, E>(a, o, n, ALeakyRelu<E>{static_cast<E>(ins.alpha)});
    }
}

template <class E>
void run_activation_backward(const Instr& ins, const E* a, const E* b, E* o, std::size_t n) {
    using backend::Activation;
    switch (static_cast<Activation>(ins.op)) {
        case Activation::Relu: return binary_vv<false, E, E>(a, b, o, n, BReluBackward{});
        case Activation::Sigmoid: return binary_vv<false, E, E>(a, b, o, n, BSigmoidBackward{});
        case Activation::Gelu: return binary_vv<false, E, E>(a, b, o, n, BGeluBackward{});
        case Activation::LogSigmoid:
            return binary_vv<false, E, E>(a, b, o, n, BLogSigmoidBackward{});
        default:
            detail::fail("fusion: no backward kernel for ",
                         backend::op_name(static_cast<Activation>(ins.op)));
    }
}

/// x^p with the kernel's special exponents (binary_scalar: 1, 0.5, -1 and 2 as cheaper maps).
template <class E>
void run_pow_scalar(const E* a, double p, E* o, std::size_t n) {
    if (p == 1.0) std::memcpy(o, a, n * sizeof(E));
    else if (p == 0.5) unary_dense<false, E, E>(a, o, n, USqrt{});
    else if (p == -1.0) unary_dense<false, E, E>(a, o, n, URecip{});
    else if (p == 2.0) unary_dense<false, E, E>(a, o, n, USquare{});
    else binary_vs<false, E, E>(a, static_cast<E>(p), o, n, BPow{});
}

/// One program over float type E (bool registers are bytes).
template <class E>
struct Runner {
    const Program& p;
    std::vector<View> inputs;
    std::vector<std::byte*> out_base;  // per register: the output's data, or null

    void tile(std::size_t begin, std::size_t n, std::vector<std::byte*>& reg,
              std::byte* scratch) const {
        const std::size_t n_in = p.inputs.size();
        for (std::size_t i = 0; i < n_in; ++i) {
            std::byte* slot = scratch + i * kTile * sizeof(E);
            const View& v = inputs[i];
            if (p.inputs[i] == DType::Bool) {
                if (v.flat)
                    reg[i] = const_cast<std::byte*>(v.base) + v.offset +
                             static_cast<std::int64_t>(begin);
                else
                    gather<std::uint8_t>(v, p.shape, begin, n,
                                         reinterpret_cast<std::uint8_t*>(slot)),
                        reg[i] = slot;
            } else {
                if (v.flat)
                    reg[i] =
                        const_cast<std::byte*>(v.base) +
                        (v.offset + static_cast<std::int64_t>(begin)) * std::int64_t(sizeof(E));
                else gather<E>(v, p.shape, begin, n, reinterpret_cast<E*>(slot)), reg[i] = slot;
            }
        }
        for (std::size_t k = 0; k < p.instrs.size(); ++k) {
            const Instr& ins = p.instrs[k];
            const std::size_t r = n_in + k;
            const std::size_t width = ins.dtype == DType::Bool ? 1 : sizeof(E);
            reg[r] = out_base[r] ? out_base[r] + begin * width : scratch + r * kTile * sizeof(E);
            const auto f = [&](std::size_t j) {
                return reinterpret_cast<const E*>(reg[ins.args[j]]);
            };
            const auto m = [&](std::size_t j) {
                return reinterpret_cast<const std::uint8_t*>(reg[ins.args[j]]);
            };
            E* o = reinterpret_cast<E*>(reg[r]);
            const E s = static_cast<E>(ins.scalar.f);
            switch (ins.kind) {
                case OpKind::Unary:
                    run_unary_op<E>(static_cast<backend::UnaryOp>(ins.op), f(0), o, n);
                    break;
                case OpKind::Binary:
                    run_binary_op<E>(static_cast<backend::BinaryOp>(ins.op), f(0), f(1), E{}, o, n);
                    break;
                case OpKind::BinaryScalar: {
                    const auto op = static_cast<backend::BinaryOp>(ins.op);
                    if (op == backend::BinaryOp::Pow) run_pow_scalar<E>(f(0), ins.scalar.f, o, n);
                    else if (E r{}; op == backend::BinaryOp::Div && exact_reciprocal(s, r))
                        run_binary_op(BMul{}, f(0), static_cast<const E*>(nullptr), r, o, n);
                    else run_binary_op<E>(op, f(0), nullptr, s, o, n);
                    break;
                }
                case OpKind::Compare:
                    run_compare_op<E>(static_cast<backend::CmpOp>(ins.op), f(0), f(1), E{},
                                      reinterpret_cast<std::uint8_t*>(reg[r]), n);
                    break;
                case OpKind::CompareScalar:
                    run_compare_op<E>(static_cast<backend::CmpOp>(ins.op), f(0), nullptr, s,
                                      reinterpret_cast<std::uint8_t*>(reg[r]), n);
                    break;
                case OpKind::Clamp: {
                    using L = std::numeric_limits<E>;
                    UClamp<E> op;
                    op.lo_ = ins.has_lo ? static_cast<E>(ins.scalar.f) : -L::infinity();
                    op.hi_ = ins.has_hi ? static_cast<E>(ins.scalar2.f) : L::infinity();
                    unary_dense<false, E, E>(f(0), o, n, op);
                    break;
                }
                case OpKind::Where: {
                    const E* a = f(0);
                    const std::uint8_t* mk = m(1);
                    const E* c = f(2);
                    for (std::size_t i = 0; i < n; ++i) o[i] = mk[i] ? c[i] : a[i];
                    break;
                }
                case OpKind::Fill: {
                    const E* a = f(0);
                    const std::uint8_t* mk = m(1);
                    for (std::size_t i = 0; i < n; ++i) o[i] = mk[i] ? s : a[i];
                    break;
                }
                case OpKind::Activation: run_activation<E>(ins, f(0), o, n); break;
                case OpKind::ActivationBackward:
                    run_activation_backward<E>(ins, f(0), f(1), o, n);
                    break;
            }
        }
    }

    void run() const {
        const std::size_t total = p.shape.num_elements();
        const std::size_t tiles = (total + kTile - 1) / kTile;
        const std::size_t regs = p.num_registers();
        const std::size_t scratch_bytes = regs * kTile * sizeof(E);
        const auto body = [&](std::size_t t0, std::size_t t1) {
            thread_local std::vector<std::byte> scratch;
            if (scratch.size() < scratch_bytes + 64) scratch.resize(scratch_bytes + 64);
            auto* aligned = reinterpret_cast<std::byte*>(
                (reinterpret_cast<std::uintptr_t>(scratch.data()) + 63) & ~std::uintptr_t{63});
            std::vector<std::byte*> reg(regs);
            for (std::size_t t = t0; t < t1; ++t) {
                const std::size_t begin = t * kTile;
                tile(begin, std::min(kTile, total - begin), reg, aligned);
            }
        };
        // Each element costs several ops: a smaller grain than the single-op kernels'.
        const std::size_t grain = std::max<std::size_t>(1, kParallelGrain / (4 * kTile));
        if (tiles >= 2 * grain) parallel_for(tiles, grain, body);
        else body(0, tiles);
    }
};

}  // namespace

std::vector<CpuTensor> Kernels::fused_elementwise(const fusion::Program& p,
                                                  std::span<const CpuTensor> inputs) {
    // The float dtype of the program (every float register has it; f32 when there is none).
    const DType fdt = fusion::codegen::float_dtype(p, "fusion");

    std::vector<CpuTensor> outs;
    outs.reserve(p.outputs.size());
    const std::size_t n_in = p.inputs.size();
    std::vector<std::byte*> out_base(p.num_registers(), nullptr);
    for (std::uint32_t r : p.outputs) {
        const DType dt = p.instrs[r - n_in].dtype;
        outs.push_back(alloc(p.shape, dt));
        out_base[r] = outs.back().buffer->data();
    }
    std::vector<View> views;
    views.reserve(inputs.size());
    for (const auto& t : inputs) views.push_back(view_of(t, p.shape));
    dispatch_float(fdt, "fusion", [&](auto e) {
        using E = decltype(e);
        Runner<E>{p, views, out_base}.run();
    });
    return outs;
}

}  // namespace burn::cpu

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
    // The register a fused reduction reduces (when not written to an output): run() writes it
    // into a block buffer.
    std::size_t block_reg = ~std::size_t{0};

    /// Runs the program over the elements [begin, begin + n); `block` (when not null) receives
    /// block_reg's values of the elements from `block_start` on.
    void tile(std::size_t begin, std::size_t n, std::vector<std::byte*>& reg, std::byte* scratch,
              std::byte* block, std::size_t block_start) const {
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
            if (out_base[r]) reg[r] = out_base[r] + begin * width;
            else if (r == block_reg && block) reg[r] = block + (begin - block_start) * width;
            else reg[r] = scratch + r * kTile * sizeof(E);
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

    /// Runs the program over the elements [start, start + count) (row-major), over the kernels'
    /// threads unless `serial`; block_reg's values go to `block` (from element `start` on).
    void run(std::size_t start, std::size_t count, std::byte* block = nullptr,
             bool serial = false) const {
        const std::size_t total = start + count;
        const std::size_t tiles = (count + kTile - 1) / kTile;
        const std::size_t regs = p.num_registers();
        const std::size_t scratch_bytes = regs * kTile * sizeof(E);
        const auto body = [&](std::size_t t0, std::size_t t1) {
            thread_local std::vector<std::byte> scratch;
            if (scratch.size() < scratch_bytes + 64) scratch.resize(scratch_bytes + 64);
            auto* aligned = reinterpret_cast<std::byte*>(
                (reinterpret_cast<std::uintptr_t>(scratch.data()) + 63) & ~std::uintptr_t{63});
            std::vector<std::byte*> reg(regs);
            for (std::size_t t = t0; t < t1; ++t) {
                const std::size_t begin = start + t * kTile;
                tile(begin, std::min(kTile, total - begin), reg, aligned, block, start);
            }
        };
        // Each element costs several ops: a smaller grain than the single-op kernels'.
        const std::size_t grain = std::max<std::size_t>(1, kParallelGrain / (4 * kTile));
        if (!serial && tiles >= 2 * grain) parallel_for(tiles, grain, body);
        else body(0, tiles);
    }
};

/// Elements a fused reduction computes per block: the block's buffer (256 KiB of f32) stays in
/// the thread's L2 cache between the program that writes it and the kernel that reduces it.
constexpr std::size_t kReduceBlock = std::size_t{1} << 16;

/// Two partial results of a reduction combined (Mean's partials are sums; NaN wins max and min,
/// as in the kernels).
double combine(backend::ReduceOp op, double a, double b) {
    using backend::ReduceOp;
    switch (op) {
        case ReduceOp::Max: return std::isnan(a) || std::isnan(b) ? a + b : std::max(a, b);
        case ReduceOp::Min: return std::isnan(a) || std::isnan(b) ? a + b : std::min(a, b);
        case ReduceOp::Prod: return a * b;
        case ReduceOp::Sum:
        case ReduceOp::Mean: break;
    }
    return a + b;
}

/// A dense tensor of `shape` over t's buffer, from element `offset` on.
CpuTensor dense_view(const CpuTensor& t, const Shape& shape, std::size_t offset) {
    CpuTensor v = t;
    v.shape = shape;
    v.strides = backend::contiguous_strides(shape);
    v.offset = static_cast<std::int64_t>(offset);
    return v;
}

/// A program's outputs (but the first when `skip_first`) allocated; out_base points at them.
std::vector<CpuTensor> alloc_outputs(const Program& p, bool skip_first,
                                     std::vector<std::byte*>& out_base) {
    std::vector<CpuTensor> outs(p.outputs.size());
    out_base.assign(p.num_registers(), nullptr);
    const std::size_t n_in = p.inputs.size();
    for (std::size_t k = skip_first ? 1 : 0; k < p.outputs.size(); ++k) {
        const std::uint32_t r = p.outputs[k];
        outs[k] = alloc(p.shape, p.instrs[r - n_in].dtype);
        out_base[r] = outs[k].buffer->data();
    }
    return outs;
}

std::vector<View> input_views(const Program& p, std::span<const CpuTensor> inputs) {
    std::vector<View> views;
    views.reserve(inputs.size());
    for (const auto& t : inputs) views.push_back(view_of(t, p.shape));
    return views;
}

}  // namespace

std::vector<CpuTensor> Kernels::fused_elementwise(const fusion::Program& p,
                                                  std::span<const CpuTensor> inputs) {
    // The float dtype of the program (every float register has it; f32 when there is none).
    const DType fdt = fusion::codegen::float_dtype(p, "fusion");

    std::vector<std::byte*> out_base;
    std::vector<CpuTensor> outs = alloc_outputs(p, false, out_base);
    const std::vector<View> views = input_views(p, inputs);
    dispatch_float(fdt, "fusion", [&](auto e) {
        using E = decltype(e);
        Runner<E>{p, views, out_base}.run(0, p.shape.num_elements());
    });
    return outs;
}

}  // namespace burn::cpu

namespace burn::cpu {

// A program ending with a reduction runs block by block, blocks spread over the kernels'
// threads: a block is whole [rows, inner] slabs around the reduced dim (several when they are
// small), or, for a slab larger than a block, a run of its rows. The thread that computes a block
// writes the reduced register into a cache-sized buffer (softmax: straight into the output) and
// runs the unfused kernel's code on it (reduce_all, reduce_dim, softmax in place); partial results
// of a slab split into runs of rows are combined in f64. Results are those of the kernels up to
// the rounding of those partials.
std::vector<CpuTensor> Kernels::fused_reduce(const fusion::Program& p,
                                             std::span<const CpuTensor> inputs) {
    using Kind = fusion::Reduction::Kind;
    using backend::ReduceOp;
    const fusion::Reduction red = p.reduction;
    const DType fdt = fusion::codegen::float_dtype(p, "fusion");
    const fusion::ReduceGeometry g = fusion::reduce_geometry(p, fdt, "fusion");
    const std::uint32_t root = p.outputs[0];
    const std::size_t outer = g.outer, rows = g.rows, inner = g.inner;
    const bool softmax = g.softmax;

    std::vector<std::byte*> out_base;
    std::vector<CpuTensor> outs = alloc_outputs(p, true, out_base);
    // The root also written (something else holds it): blocks are read from that output.
    std::size_t written = 0;
    for (std::size_t k = 1; k < p.outputs.size(); ++k)
        if (p.outputs[k] == root) written = k;
    const std::vector<View> views = input_views(p, inputs);
    CpuTensor result = alloc(g.result, fdt);

    dispatch_float(fdt, "fusion", [&](auto e) {
        using E = decltype(e);
        Runner<E> run{p, views, out_base};
        run.block_reg = root;
        // Computes the root over [start, start + bshape's size) on this thread; returns it as a
        // dense tensor (in `into` when given and the root is not written elsewhere).
        const auto block = [&](std::size_t start, const Shape& bshape, const CpuTensor* into) {
            const std::size_t count = bshape.num_elements();
            if (written) {
                run.run(start, count, nullptr, true);
                return dense_view(outs[written], bshape, start);
            }
            if (into) {
                run.run(start, count, into->buffer->data() + start * sizeof(E), true);
                return dense_view(*into, bshape, start);
            }
            thread_local CpuTensor buffer;
            if (buffer.num_elements() < count || buffer.dtype != fdt)
                buffer = alloc(Shape{std::max(count, kReduceBlock)}, fdt);
            run.run(start, count, buffer.buffer->data(), true);
            return dense_view(buffer, bshape, 0);
        };
        E* out = result.data<E>();
        const std::size_t slab = rows * inner;
        if (softmax || slab <= kReduceBlock) {
            // Blocks of whole slabs.
            const std::size_t per = std::max<std::size_t>(1, kReduceBlock / slab);
            const std::size_t blocks = (outer + per - 1) / per;
            parallel_for(blocks, 1, [&](std::size_t b0, std::size_t b1) {
                for (std::size_t bk = b0; bk < b1; ++bk) {
                    const std::size_t o0 = bk * per, ob = std::min(per, outer - o0);
                    const Shape bshape{ob, rows, inner};
                    if (softmax) {
                        const CpuTensor x = block(o0 * slab, bshape, &result);
                        softmax_into(x, dense_view(result, bshape, o0 * slab), 1,
                                     red.kind == Kind::LogSoftmax);
                    } else if (red.kind == Kind::Dim) {
                        const CpuTensor r =
                            Kernels::reduce_dim(red.op, block(o0 * slab, bshape, nullptr), 1);
                        std::memcpy(out + o0 * inner, r.data<E>(), ob * inner * sizeof(E));
                    } else {
                        const CpuTensor r =
                            Kernels::reduce_all(red.op, block(o0 * slab, bshape, nullptr));
                        *out = *r.data<E>();
                    }
                }
            });
            return;
        }
        // Runs of rows of each slab; their partial results combined in f64, in order.
        const ReduceOp part_op = red.op == ReduceOp::Mean ? ReduceOp::Sum : red.op;
        const std::size_t run_rows = std::max<std::size_t>(1, kReduceBlock / inner);
        const std::size_t runs = (rows + run_rows - 1) / run_rows;
        std::vector<double> part(outer * runs * inner);
        parallel_for(outer * runs, 1, [&](std::size_t t0, std::size_t t1) {
            for (std::size_t t = t0; t < t1; ++t) {
                const std::size_t o = t / runs, r0 = (t % runs) * run_rows;
                const std::size_t nr = std::min(run_rows, rows - r0);
                const CpuTensor b = block((o * rows + r0) * inner, Shape{nr, inner}, nullptr);
                const CpuTensor r = inner == 1 ? Kernels::reduce_all(part_op, b)
                                               : Kernels::reduce_dim(part_op, b, 0);
                const E* v = r.data<E>();
                for (std::size_t j = 0; j < inner; ++j) part[t * inner + j] = double(v[j]);
            }
        });
        for (std::size_t o = 0; o < outer; ++o)
            for (std::size_t j = 0; j < inner; ++j) {
                double acc = part[o * runs * inner + j];
                for (std::size_t k = 1; k < runs; ++k)
                    acc = combine(part_op, acc, part[(o * runs + k) * inner + j]);
                out[o * inner + j] =
                    static_cast<E>(red.op == ReduceOp::Mean ? acc / double(rows) : acc);
            }
    });
    outs[0] = std::move(result);
    return outs;
}

}  // namespace burn::cpu

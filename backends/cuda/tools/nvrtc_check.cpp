// SPDX-License-Identifier: MIT OR Apache-2.0
// burn_cuda_nvrtc_check [ARCH [PROGRAM...]]: compiles the CUDA kernel programs (kernels/cuda, as
// embedded in the library, or those of $BURN_CUDA_KERNEL_DIR) with NVRTC for ARCH (default
// sm_90; a virtual architecture such as compute_90 stops at PTX, without ptxas), without a GPU,
// and prints NVRTC's log for each that fails. Without PROGRAM arguments it also compiles the code
// Fusion<Cuda> generates for fused programs that use every instruction, in f32 and f64, with
// every way of reading an input (the programs "fused-*"). Exit status 1 if any fails. CI runs it
// for compute_90 (the test cuda_kernels_compile), so kernels that do not compile fail the build's
// tests even on machines without a GPU.
#include <burn/fusion/program.hpp>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "ops_common.hpp"

namespace {

using burn::DType;
using burn::fusion::Instr;
using burn::fusion::OpKind;
using burn::fusion::Program;

/// A program over inputs (float, float, float, bool) with every instruction Fusion records.
Program every_instruction(DType f) {
    using namespace burn::backend;  // NOLINT(google-build-using-namespace): the op enums
    Program p;
    p.shape = burn::Shape{4, 8};
    p.inputs = {f, f, f, DType::Bool};
    const auto last = [&] { return static_cast<std::uint32_t>(p.num_registers() - 1); };
    const auto add = [&](Instr i) { p.instrs.push_back(i); };
    for (int op = 0; op <= static_cast<int>(UnaryOp::Ceil); ++op)
        add({.kind = OpKind::Unary, .op = std::uint8_t(op), .dtype = f, .args = {0}});
    for (int op = 0; op <= static_cast<int>(BinaryOp::Min); ++op) {
        add({.kind = OpKind::Binary, .op = std::uint8_t(op), .dtype = f, .args = {1, 2}});
        add({.kind = OpKind::BinaryScalar,
             .op = std::uint8_t(op),
             .dtype = f,
             .args = {last()},
             .scalar = ScalarArg::of(1.5)});
    }
    add({.kind = OpKind::BinaryScalar,  // a power of two: a multiplication by 4
         .op = std::uint8_t(BinaryOp::Div),
         .dtype = f,
         .args = {last()},
         .scalar = ScalarArg::of(0.25)});
    for (double e : {1.0, 0.5, -1.0, 2.0})
        add({.kind = OpKind::BinaryScalar,
             .op = std::uint8_t(BinaryOp::Pow),
             .dtype = f,
             .args = {0},
             .scalar = ScalarArg::of(e)});
    for (int op = 0; op <= static_cast<int>(CmpOp::Le); ++op) {
        add({.kind = OpKind::Compare,
             .op = std::uint8_t(op),
             .dtype = DType::Bool,
             .args = {0, 1}});
        add({.kind = OpKind::CompareScalar,
             .op = std::uint8_t(op),
             .dtype = DType::Bool,
             .args = {2},
             .scalar = ScalarArg::of(0.25)});
    }
    const std::uint32_t mask = last();
    add({.kind = OpKind::Clamp, .dtype = f, .args = {0}, .has_lo = true, .has_hi = true});
    add({.kind = OpKind::Where, .dtype = f, .args = {last(), mask, 1}});
    add({.kind = OpKind::Fill, .dtype = f, .args = {last(), 3}, .scalar = ScalarArg::of(-2.0)});
    for (int op = 0; op <= static_cast<int>(Activation::LeakyRelu); ++op)
        add({.kind = OpKind::Activation, .op = std::uint8_t(op), .dtype = f, .args = {last()}});
    for (auto op :
         {Activation::Relu, Activation::Gelu, Activation::Sigmoid, Activation::LogSigmoid})
        add({.kind = OpKind::ActivationBackward,
             .op = std::uint8_t(op),
             .dtype = f,
             .args = {0, last()}});
    p.outputs = {last(), mask};
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    // Compile, never read or write the disk cache: the check must see NVRTC's verdict.
    setenv("BURN_CUDA_CACHE", "off", 1);
    const std::string arch = argc > 1 ? argv[1] : "sm_90";
    std::vector<std::pair<std::string, std::function<std::vector<char>()>>> programs;
    const auto add_kernel_program = [&](const std::string& name) {
        programs.emplace_back(name,
                              [name, arch] { return burn::cuda::compile_program(name, arch); });
    };
    for (int i = 2; i < argc; ++i) add_kernel_program(argv[i]);
    if (programs.empty()) {
        for (const auto& p : burn::cuda::program_names()) add_kernel_program(p);
        // Dense and single-value inputs (the vectorised kernel), and strided ones.
        for (DType f : {DType::F32, DType::F64})
            for (const char* access : {"dsdd", "dgsg"}) {
                const std::string name =
                    std::string("fused-") + (f == DType::F32 ? "f32-" : "f64-") + access;
                programs.emplace_back(name, [f, access, arch] {
                    const std::string text =
                        burn::cuda::fused_program_source(every_instruction(f), access);
                    return burn::cuda::compile_source("fused", text.c_str(), arch);
                });
            }
        // Programs ending with a reduction: along the last dim and along another one.
        using Kind = burn::fusion::Reduction::Kind;
        const struct {
            const char* name;
            DType f;
            Kind kind;
            burn::backend::ReduceOp op;
            const char* access;
            bool row;
        } reductions[] = {
            {"fused-reduce-sum-f32-rows", DType::F32, Kind::Dim, burn::backend::ReduceOp::Sum,
             "dsdd", true},
            {"fused-reduce-max-f32-cols", DType::F32, Kind::Dim, burn::backend::ReduceOp::Max,
             "dgsg", false},
            {"fused-softmax-f64-rows", DType::F64, Kind::Softmax, burn::backend::ReduceOp::Sum,
             "dgsg", true},
            {"fused-log-softmax-f32-cols", DType::F32, Kind::LogSoftmax,
             burn::backend::ReduceOp::Sum, "dsdd", false},
        };
        for (const auto& r : reductions)
            programs.emplace_back(r.name, [r, arch] {
                burn::fusion::Program p = every_instruction(r.f);
                p.reduction = {r.kind, r.op, 1};
                const std::string text = burn::cuda::fused_program_source(p, r.access, r.row);
                return burn::cuda::compile_source("fused", text.c_str(), arch);
            });
    }
    int failed = 0;
    for (const auto& [name, compile] : programs) {
        try {
            const auto code = compile();
            std::cout << "ok     " << name << " (" << code.size() << " bytes of " << arch
                      << " code)\n";
        } catch (const std::exception& e) {
            std::cout << "FAILED " << name << ": " << e.what() << "\n";
            ++failed;
        }
    }
    std::cout << programs.size() - failed << " of " << programs.size() << " programs compiled\n";
    return failed ? 1 : 0;
}

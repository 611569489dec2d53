// SPDX-License-Identifier: MIT OR Apache-2.0
// custom-kernel: extending a backend with a fused operation, relu(lhs @ rhs + bias)
// (the "Backend Extension" chapter of the book; docs/backend-extension.md walks through it).
//
//   fused_ops.hpp       the FusedBackend concept, the FusedOps<B> traits with the reference
//                       implementation, the Cpu specialisation, the user-facing functions
//   cpu_kernel.cpp      the hand-written CPU kernel (tiled product, bias + ReLU epilogue)
//   fused_autodiff.hpp  the Autodiff<B, C> specialisation: its own backward function, recorded
//                       with autodiff::custom_op
//
// main() checks the kernel against the reference composition (forward on Cpu<float>, then the
// gradients of lhs, rhs and bias on Autodiff<Cpu<float>> with and without checkpointing) and
// times both. It exits with 1 when a result differs.
//
//   cmake --build --preset default --target custom-kernel
//   ./build/default/examples/custom-kernel/custom-kernel
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "fused_autodiff.hpp"
#include "fused_ops.hpp"

namespace {

using Cpu = burn::Cpu<float>;
using AD = burn::Autodiff<Cpu>;
using ADBalanced = burn::Autodiff<Cpu, burn::BalancedCheckpointing>;
template <class B>
using T3 = burn::Tensor<B, 3>;

static_assert(fused::FusedBackend<Cpu>);
static_assert(fused::FusedBackend<AD>);
static_assert(fused::FusedBackend<burn::Cpu<double>>);

constexpr double kTolerance = 1e-5;  // on |custom - reference| / (1 + |reference|)

/// The largest |a - b| / (1 + |b|) over the elements; NaN anywhere counts as a mismatch.
template <class B>
double max_rel_diff(const T3<B>& a, const T3<B>& b) {
    using E = typename B::FloatElem;
    const auto x = a.to_data().template to_vec<E>();
    const auto y = b.to_data().template to_vec<E>();
    double worst = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double d = std::abs(double(x[i]) - double(y[i])) / (1.0 + std::abs(double(y[i])));
        if (std::isnan(d)) return INFINITY;
        worst = std::max(worst, d);
    }
    return worst;
}

/// Prints one line: a case, then each compared tensor with its largest difference (or "missing");
/// returns whether every one is within kTolerance.
struct Diff {
    const char* what;
    std::optional<double> diff;  ///< nullopt: one side has no such tensor
};
bool report(const std::string& name, const std::vector<Diff>& diffs) {
    bool ok = true;
    std::cout << "  " << std::left << std::setw(48) << name << std::right;
    for (const Diff& d : diffs) {
        std::cout << "  " << d.what << " ";
        if (!d.diff) std::cout << "missing";
        else std::cout << std::scientific << std::setprecision(1) << *d.diff << std::defaultfloat;
        ok &= d.diff && *d.diff <= kTolerance;
    }
    std::cout << (ok ? "  ok" : "  MISMATCH") << "\n";
    return ok;
}

/// One configuration of operands. `rhs_transposed` builds rhs as a transposed (strided) view;
/// `bias_strided` builds bias as one too.
struct Case {
    std::string name;
    burn::Shape lhs, rhs, bias;
    bool rhs_transposed = false;
    bool bias_strided = false;
    bool bias_tracked = true;  ///< for the gradient check: whether bias requires a gradient
};

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {"dense [3,17,33] x [3,33,19] + [3,17,19]", {3, 17, 33}, {3, 33, 19}, {3, 17, 19}},
        {"tiles and edges [2,9,40] x [2,40,70] + [2,9,70]", {2, 9, 40}, {2, 40, 70}, {2, 9, 70}},
        {"lhs batch 1, rhs view, bias [1,1,n]",
         {1, 17, 33},
         {3, 33, 19},
         {1, 1, 19},
         true,
         false,
         true},
        {"rhs batch 1, bias view, bias untracked",
         {3, 6, 5},
         {1, 5, 7},
         {3, 6, 7},
         false,
         true,
         false},
    };
    return all;
}

/// Random operands of a case (the gradient check makes them leaves of an autodiff graph).
template <class B = Cpu>
struct Operands {
    T3<B> lhs, rhs, bias;
};
template <class B = Cpu>
Operands<B> make_operands(const Case& c) {
    const auto u = burn::Distribution::Uniform(-1.0, 1.0);
    auto lhs = T3<B>::random(c.lhs, u);
    auto rhs = c.rhs_transposed ? T3<B>::random({c.rhs[0], c.rhs[2], c.rhs[1]}, u).swap_dims(1, 2)
                                : T3<B>::random(c.rhs, u);
    burn::Shape bias_shape = c.bias;
    if (c.bias_strided) bias_shape = {c.bias[0], c.bias[2], c.bias[1]};
    auto bias = T3<B>::random(bias_shape, u);
    if (c.bias_strided) bias = bias.swap_dims(1, 2);
    return {lhs, rhs, bias};
}

// ---------------------------------------------------------------------------------------------
template <class B>
bool check_forward() {
    std::cout << "Forward on " << B::name() << ": custom kernel vs reference\n";
    bool ok = true;
    for (const Case& c : cases()) {
        const auto o = make_operands<B>(c);
        const auto custom = fused::matmul_add_relu_custom(o.lhs, o.rhs, o.bias);
        const auto reference = fused::matmul_add_relu_reference(o.lhs, o.rhs, o.bias);
        ok &= report(c.name, {{"max diff", max_rel_diff(custom, reference)}});
    }
    // Shapes that do not fit are refused before any backend code runs.
    try {
        (void)fused::matmul_add_relu_custom(T3<B>::ones({2, 3, 4}), T3<B>::ones({2, 4, 5}),
                                            T3<B>::ones({2, 3, 4}));
        std::cout << "  a bias of the wrong shape was accepted\n";
        ok = false;
    } catch (const burn::Error& e) {
        std::cout << "  wrong bias shape refused: " << e.what() << "\n";
    }
    return ok;
}

/// The gradients of lhs, rhs and bias through `f`, on autodiff backend A. The operands reach the
/// op through a memory-bound op (a scale), so that under BalancedCheckpointing the kept lhs and rhs
/// are recomputed during backward. The loss weighs each output differently.
struct Grads {
    T3<Cpu> out;
    std::optional<T3<Cpu>> lhs, rhs, bias;
};
template <class A, class F>
Grads gradients(const Operands<>& o, const T3<Cpu>& weights, bool bias_tracked, F f) {
    const auto lhs = T3<A>::from_inner(o.lhs).require_grad();
    const auto rhs = T3<A>::from_inner(o.rhs).require_grad();
    const auto bias = T3<A>::from_inner(o.bias).set_require_grad(bias_tracked);
    const auto out = f(lhs * 0.5, rhs * 2.0, bias);
    const auto grads = (out * T3<A>::from_inner(weights)).sum().backward();
    return {out.inner(), lhs.grad(grads), rhs.grad(grads), bias.grad(grads)};
}

template <class A>
bool check_backward() {
    std::cout << "Gradients on " << A::name() << " (" << A::CheckpointStrategy::name
              << "): custom backward vs reference graph\n";
    bool ok = true;
    for (const Case& c : cases()) {
        const auto o = make_operands(c);
        const burn::Shape out_shape =
            fused::fused_output_shape(o.lhs.shape(), o.rhs.shape(), o.bias.shape());
        const auto w = T3<Cpu>::random(out_shape, burn::Distribution::Uniform(-1.0, 1.0));
        const Grads custom = gradients<A>(o, w, c.bias_tracked, [](auto l, auto r, auto b) {
            return fused::matmul_add_relu_custom<A>(l, r, b);
        });
        const Grads reference = gradients<A>(o, w, c.bias_tracked, [](auto l, auto r, auto b) {
            return fused::matmul_add_relu_reference<A>(l, r, b);
        });
        auto diff = [](const std::optional<T3<Cpu>>& a, const std::optional<T3<Cpu>>& b) {
            return a && b ? std::optional<double>(max_rel_diff(*a, *b)) : std::nullopt;
        };
        std::vector<Diff> diffs = {{"out", max_rel_diff(custom.out, reference.out)},
                                   {"dlhs", diff(custom.lhs, reference.lhs)},
                                   {"drhs", diff(custom.rhs, reference.rhs)}};
        if (c.bias_tracked) diffs.push_back({"dbias", diff(custom.bias, reference.bias)});
        ok &= report(c.name, diffs);
        if (!c.bias_tracked && (custom.bias || reference.bias)) {
            std::cout << "  " << c.name << ": a bias that needs no gradient got one\n";
            ok = false;
        }
    }
    return ok;
}

// ---------------------------------------------------------------------------------------------
/// The median time of one call of `f`, in milliseconds (a few warm-up calls first).
template <class F>
double median_ms(F&& f, int runs) {
    for (int i = 0; i < 3; ++i) f();
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    std::nth_element(ms.begin(), ms.begin() + runs / 2, ms.end());
    return ms[runs / 2];
}

void timing() {
    const std::size_t b = 8, m = 128, k = 128, n = 128;
    const auto u = burn::Distribution::Uniform(-1.0, 1.0);
    const auto lhs = T3<Cpu>::random({b, m, k}, u);
    const auto rhs = T3<Cpu>::random({b, k, n}, u);
    const auto bias = T3<Cpu>::random({b, m, n}, u);
    const int runs = 31;

    std::cout << "Timing [" << b << "," << m << "," << k << "] x [" << b << "," << k << "," << n
              << "] + [" << b << "," << m << "," << n << "], median of " << runs << " calls\n";
    const double custom =
        median_ms([&] { (void)fused::matmul_add_relu_custom(lhs, rhs, bias); }, runs);
    const double reference =
        median_ms([&] { (void)fused::matmul_add_relu_reference(lhs, rhs, bias); }, runs);
    const double flops = 2.0 * double(b * m * k * n);  // of one product
    auto line = [](const char* what, double ms, double work) {
        std::cout << "  " << std::left << std::setw(36) << what << std::fixed
                  << std::setprecision(3) << ms << " ms  (" << std::setprecision(1)
                  << work / ms * 1e-6 << " GFLOP/s)\n"
                  << std::defaultfloat;
    };
    line("custom (fused CPU kernel)", custom, flops);
    line("reference (matmul, add, relu)", reference, flops);
    std::cout << "  custom / reference time: " << std::fixed << std::setprecision(2)
              << custom / reference << std::defaultfloat << "\n";

    // A training step: forward + backward on Autodiff, custom backward vs the reference graph.
    const auto l = T3<AD>::from_inner(lhs).require_grad();
    const auto r = T3<AD>::from_inner(rhs).require_grad();
    const auto bi = T3<AD>::from_inner(bias).require_grad();
    const double custom_ad =
        median_ms([&] { (void)fused::matmul_add_relu_custom(l, r, bi).sum().backward(); }, runs);
    const double reference_ad =
        median_ms([&] { (void)fused::matmul_add_relu_reference(l, r, bi).sum().backward(); }, runs);
    // Three products: the forward one and the two of the backward pass.
    line("custom, forward + backward", custom_ad, 3 * flops);
    line("reference, forward + backward", reference_ad, 3 * flops);
    std::cout << "  custom / reference time: " << std::fixed << std::setprecision(2)
              << custom_ad / reference_ad << std::defaultfloat << "\n";
}

}  // namespace

int main() {
    try {
        Cpu::seed(7);
        bool ok = check_forward<Cpu>();
        ok &= check_forward<burn::Cpu<double>>();
        {
            // The same comparison through burn::check_closeness, which prints a tolerance ladder.
            const auto o = make_operands(cases()[1]);
            std::cout << "check_closeness(custom, reference) on [2,9,70], " << Cpu::name() << ":\n";
            const auto closeness =
                burn::check_closeness(fused::matmul_add_relu_custom(o.lhs, o.rhs, o.bias),
                                      fused::matmul_add_relu_reference(o.lhs, o.rhs, o.bias));
            ok &= closeness.status_at(1e-5) == burn::ClosenessStatus::Pass;
        }
        ok &= check_backward<AD>();
        ok &= check_backward<ADBalanced>();
        timing();
        if (!ok) {
            std::cerr << "custom-kernel: the custom kernel and the reference disagree\n";
            return 1;
        }
        std::cout << "All checks passed.\n";
    } catch (const burn::Error& e) {
        std::cerr << "custom-kernel: unexpected error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

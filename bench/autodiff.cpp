// SPDX-License-Identifier: MIT OR Apache-2.0
// Training-step benchmarks through burn::Autodiff<Cpu<float>>: forward, cross-entropy loss,
// backward() and reading every parameter gradient, for two models at batch 64:
//
//   autodiff_mlp        784 -> 512 -> 512 -> 10, ReLU
//   autodiff_guide_cnn  the MNIST guide's model from the Burn book: conv2d 1->8 3x3, conv2d 8->16
//                       3x3, ReLU, adaptive_avg_pool2d 8x8, flatten, linear 1024->512, ReLU,
//                       linear 512->10 (the guide's dropout is left out: inactive)
//
// "fwd_bwd" runs the step on Autodiff. "manual" runs the same kernels on the plain Cpu<float>
// backend, with the backward pass written out by hand in the order and form Autodiff's backward
// steps use (autodiff.hpp), so fwd_bwd - manual is the cost of the graph bookkeeping: nodes, kept
// tensors, the topological sort and the Gradients map. Before a manual case is timed, its
// gradients are compared with Autodiff's; a mismatch aborts the benchmark.
//
// bench/compare_pytorch.py times the same steps in PyTorch (autodiff_cases()); keep the names and
// the models in sync with it. Linear layers are x.matmul(w) + b with w [in, out] and b [1, out].
#include <benchmark/benchmark.h>

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

using B = burn::Cpu<float>;
using AD = burn::Autodiff<B>;
using P = B::FloatTensor;
using burn::Shape;

template <class BK, std::size_t D>
using Tf = burn::Tensor<BK, D>;
template <class BK>
using Labels = burn::Tensor<BK, 2, burn::Int>;

constexpr std::size_t kBatch = 64;
constexpr std::size_t kClasses = 10;

// ---------------------------------------------------------------------------------- data
/// Uniform on [-1/sqrt(fan_in), 1/sqrt(fan_in)), the bound of PyTorch's default Linear/Conv init.
template <std::size_t D>
Tf<B, D> param(Shape shape, std::size_t fan_in) {
    const double k = 1.0 / std::sqrt(static_cast<double>(fan_in));
    return Tf<B, D>::random(shape, burn::Distribution::Uniform(-k, k));
}

Labels<B> make_labels() {
    std::vector<std::int64_t> v(kBatch);
    for (std::size_t i = 0; i < kBatch; ++i) v[i] = static_cast<std::int64_t>((i * 7 + 3) % kClasses);
    return Labels<B>::from_data(burn::TensorData(std::move(v), Shape{kBatch, 1}));
}

template <std::size_t D>
Tf<AD, D> leaf(const Tf<B, D>& t) {
    return Tf<AD, D>::from_inner(t).require_grad();
}

// ---------------------------------------------------------------------------------- models
template <class BK>
Tf<BK, 2> linear(const Tf<BK, 2>& x, const Tf<BK, 2>& w, const Tf<BK, 2>& b) {
    return x.matmul(w) + b;
}

/// Mean over the batch of -log_softmax(logits)[i, label_i] (F.cross_entropy).
template <class BK>
Tf<BK, 1> cross_entropy(const Tf<BK, 2>& logits, const Labels<BK>& labels) {
    return burn::activation::log_softmax(logits, 1).gather(1, labels).mean().neg();
}

template <class BK>
struct Mlp {
    Tf<BK, 2> w1, b1, w2, b2, w3, b3;
};

Mlp<B> make_mlp() {
    B::seed(7);
    return {param<2>({784, 512}, 784), param<2>({1, 512}, 784), param<2>({512, 512}, 512),
            param<2>({1, 512}, 512),   param<2>({512, 10}, 512), param<2>({1, 10}, 512)};
}

Mlp<AD> tracked(const Mlp<B>& m) {
    return {leaf(m.w1), leaf(m.b1), leaf(m.w2), leaf(m.b2), leaf(m.w3), leaf(m.b3)};
}

template <class BK>
Tf<BK, 2> forward(const Mlp<BK>& m, const Tf<BK, 2>& x) {
    using burn::activation::relu;
    Tf<BK, 2> h = relu(linear(x, m.w1, m.b1));
    h = relu(linear(h, m.w2, m.b2));
    return linear(h, m.w3, m.b3);
}

/// The guide's model: conv1 [8, 1, 3, 3], conv2 [16, 8, 3, 3], linear1 [1024, 512], linear2 [512, 10].
template <class BK>
struct GuideCnn {
    Tf<BK, 4> c1w;
    Tf<BK, 1> c1b;
    Tf<BK, 4> c2w;
    Tf<BK, 1> c2b;
    Tf<BK, 2> w1, b1, w2, b2;
};

GuideCnn<B> make_cnn() {
    B::seed(11);
    return {param<4>({8, 1, 3, 3}, 9),           param<1>({8}, 9),
            param<4>({16, 8, 3, 3}, 72),         param<1>({16}, 72),
            param<2>({1024, 512}, 1024),         param<2>({1, 512}, 1024),
            param<2>({512, 10}, 512),            param<2>({1, 10}, 512)};
}

GuideCnn<AD> tracked(const GuideCnn<B>& m) {
    return {leaf(m.c1w), leaf(m.c1b), leaf(m.c2w), leaf(m.c2b),
            leaf(m.w1),  leaf(m.b1),  leaf(m.w2),  leaf(m.b2)};
}

template <class BK>
Tf<BK, 2> forward(const GuideCnn<BK>& m, const Tf<BK, 3>& images) {
    using burn::activation::relu;
    const std::size_t n = images.shape()[0];
    const Tf<BK, 4> x = images.template reshape<4>(Shape{n, 1, 28, 28});
    Tf<BK, 4> c = burn::module::conv2d(x, m.c1w, m.c1b, burn::ConvOptions<2>{});
    c = relu(burn::module::conv2d(c, m.c2w, m.c2b, burn::ConvOptions<2>{}));
    const Tf<BK, 2> f = burn::module::adaptive_avg_pool2d(c, {8, 8}).template reshape<2>(Shape{n, 1024});
    return linear(relu(linear(f, m.w1, m.b1)), m.w2, m.b2);
}

// ---------------------------------------------------------------------------------- manual backward
// The same kernel calls as Autodiff's backward steps for these graphs, in the same order.

/// Gradient of the loss above w.r.t. the logits, from the log_softmax output `logp`.
P cross_entropy_backward(const P& logp, const P& labels) {
    const auto dev = B::float_device(logp);
    const Shape s = B::float_shape(logp);
    P g = B::float_ones(Shape{1}, dev);                                          // seed
    g = B::float_neg(std::move(g));                                              // neg
    g = B::float_div_scalar(std::move(g), static_cast<double>(s[0]));            // mean: div_scalar
    g = B::float_expand(B::float_reshape(std::move(g), Shape{1, 1}), Shape{s[0], 1});  // mean: sum
    g = B::float_scatter(1, B::float_zeros(s, dev), labels, std::move(g));       // gather
    P sum = B::float_sum_dim(g, 1);                                              // log_softmax
    return B::float_sub(std::move(g), B::float_mul(B::float_exp(logp), std::move(sum)));
}

/// Backward of y = x.matmul(w) + b: returns the gradient of x (when wanted), sets gw and gb.
std::optional<P> linear_backward(P g, const P& x, const P& w, bool need_x, P& gw, P& gb) {
    gb = B::float_reshape(B::float_sum_dim(g, 0), B::float_shape(gb));
    std::optional<P> gx;
    if (need_x) gx = B::float_matmul(g, B::float_swap_dims(w, 0, 1));
    gw = B::float_matmul(B::float_swap_dims(x, 0, 1), std::move(g));
    return gx;
}

struct MlpGrads {
    P w1, b1, w2, b2, w3, b3;
};

MlpGrads mlp_manual_step(const Mlp<B>& m, const Tf<B, 2>& x, const Labels<B>& labels) {
    using burn::activation::relu;
    const Tf<B, 2> h1 = relu(linear(x, m.w1, m.b1));
    const Tf<B, 2> h2 = relu(linear(h1, m.w2, m.b2));
    const Tf<B, 2> logits = linear(h2, m.w3, m.b3);
    const Tf<B, 2> logp = burn::activation::log_softmax(logits, 1);
    const Tf<B, 1> loss = logp.gather(1, labels).mean().neg();
    benchmark::DoNotOptimize(loss);

    MlpGrads gr{m.w1.primitive(), m.b1.primitive(), m.w2.primitive(),
                m.b2.primitive(), m.w3.primitive(), m.b3.primitive()};
    P g = cross_entropy_backward(logp.primitive(), labels.primitive());
    g = *linear_backward(std::move(g), h2.primitive(), m.w3.primitive(), true, gr.w3, gr.b3);
    g = B::relu_backward(h2.primitive(), std::move(g));
    g = *linear_backward(std::move(g), h1.primitive(), m.w2.primitive(), true, gr.w2, gr.b2);
    g = B::relu_backward(h1.primitive(), std::move(g));
    linear_backward(std::move(g), x.primitive(), m.w1.primitive(), false, gr.w1, gr.b1);
    return gr;
}

struct CnnGrads {
    P c1w, c1b, c2w, c2b, w1, b1, w2, b2;
};

CnnGrads cnn_manual_step(const GuideCnn<B>& m, const Tf<B, 3>& images, const Labels<B>& labels) {
    using burn::activation::relu;
    const burn::ConvOptions<2> opt{};
    const std::size_t n = images.shape()[0];
    const Tf<B, 4> x = images.reshape<4>(Shape{n, 1, 28, 28});
    const Tf<B, 4> c1 = burn::module::conv2d(x, m.c1w, m.c1b, opt);
    const Tf<B, 4> c2 = relu(burn::module::conv2d(c1, m.c2w, m.c2b, opt));
    const Tf<B, 4> pooled = burn::module::adaptive_avg_pool2d(c2, {8, 8});
    const Tf<B, 2> f = pooled.reshape<2>(Shape{n, 1024});
    const Tf<B, 2> h = relu(linear(f, m.w1, m.b1));
    const Tf<B, 2> logits = linear(h, m.w2, m.b2);
    const Tf<B, 2> logp = burn::activation::log_softmax(logits, 1);
    const Tf<B, 1> loss = logp.gather(1, labels).mean().neg();
    benchmark::DoNotOptimize(loss);

    CnnGrads gr{m.c1w.primitive(), m.c1b.primitive(), m.c2w.primitive(), m.c2b.primitive(),
                m.w1.primitive(),  m.b1.primitive(),  m.w2.primitive(),  m.b2.primitive()};
    P g = cross_entropy_backward(logp.primitive(), labels.primitive());
    g = *linear_backward(std::move(g), h.primitive(), m.w2.primitive(), true, gr.w2, gr.b2);
    g = B::relu_backward(h.primitive(), std::move(g));
    g = *linear_backward(std::move(g), f.primitive(), m.w1.primitive(), true, gr.w1, gr.b1);
    g = B::float_reshape(std::move(g), pooled.shape());
    g = B::adaptive_avg_pool2d_backward(c2.primitive(), std::move(g));
    g = B::relu_backward(c2.primitive(), std::move(g));
    // conv2: input, weight and bias gradients (Autodiff's order)
    P gc1 = B::conv2d_x_backward(c1.primitive(), m.c2w.primitive(), g, opt);
    gr.c2w = B::conv2d_weight_backward(c1.primitive(), m.c2w.primitive(), g, opt);
    gr.c2b = B::conv2d_bias_backward(c1.primitive(), m.c2b.primitive(), std::move(g));
    // conv1: the images need no gradient
    gr.c1w = B::conv2d_weight_backward(x.primitive(), m.c1w.primitive(), gc1, opt);
    gr.c1b = B::conv2d_bias_backward(x.primitive(), m.c1b.primitive(), std::move(gc1));
    return gr;
}

// ---------------------------------------------------------------------------------- check
/// Aborts unless `manual` matches the Autodiff gradient of `param`.
template <std::size_t D>
void check_grad(const char* model, const char* name, const Tf<AD, D>& param,
                const AD::Gradients& grads, const P& manual) {
    const auto ad = param.grad(grads);
    if (!ad) {
        std::fprintf(stderr, "%s: Autodiff computed no gradient for %s\n", model, name);
        std::abort();
    }
    const std::vector<float> a = ad->to_data().template to_vec<float>();
    const std::vector<float> m = Tf<B, D>(manual).to_data().template to_vec<float>();
    if (a.size() != m.size()) {
        std::fprintf(stderr, "%s: gradient of %s has %zu elements (Autodiff) vs %zu (manual)\n",
                     model, name, a.size(), m.size());
        std::abort();
    }
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, static_cast<double>(std::fabs(a[i] - m[i])));
        scale = std::max(scale, static_cast<double>(std::fabs(a[i])));
    }
    if (!(scale > 0.0) || worst > 1e-6 * scale) {
        std::fprintf(stderr, "%s: manual gradient of %s differs from Autodiff's: max |diff| %g, "
                     "max |grad| %g\n", model, name, worst, scale);
        std::abort();
    }
}

void check_mlp(const Mlp<B>& m, const Tf<B, 2>& x, const Labels<B>& labels) {
    const Mlp<AD> t = tracked(m);
    const auto grads = cross_entropy(forward(t, Tf<AD, 2>::from_inner(x)),
                                     Labels<AD>::from_inner(labels)).backward();
    const MlpGrads g = mlp_manual_step(m, x, labels);
    check_grad("autodiff_mlp", "w1", t.w1, grads, g.w1);
    check_grad("autodiff_mlp", "b1", t.b1, grads, g.b1);
    check_grad("autodiff_mlp", "w2", t.w2, grads, g.w2);
    check_grad("autodiff_mlp", "b2", t.b2, grads, g.b2);
    check_grad("autodiff_mlp", "w3", t.w3, grads, g.w3);
    check_grad("autodiff_mlp", "b3", t.b3, grads, g.b3);
}

void check_cnn(const GuideCnn<B>& m, const Tf<B, 3>& images, const Labels<B>& labels) {
    const GuideCnn<AD> t = tracked(m);
    const auto grads = cross_entropy(forward(t, Tf<AD, 3>::from_inner(images)),
                                     Labels<AD>::from_inner(labels)).backward();
    const CnnGrads g = cnn_manual_step(m, images, labels);
    const char* name = "autodiff_guide_cnn";
    check_grad(name, "conv1.weight", t.c1w, grads, g.c1w);
    check_grad(name, "conv1.bias", t.c1b, grads, g.c1b);
    check_grad(name, "conv2.weight", t.c2w, grads, g.c2w);
    check_grad(name, "conv2.bias", t.c2b, grads, g.c2b);
    check_grad(name, "linear1.weight", t.w1, grads, g.w1);
    check_grad(name, "linear1.bias", t.b1, grads, g.b1);
    check_grad(name, "linear2.weight", t.w2, grads, g.w2);
    check_grad(name, "linear2.bias", t.b2, grads, g.b2);
}

// ---------------------------------------------------------------------------------- benchmarks
void mlp_fwd_bwd(benchmark::State& state) {
    const Mlp<AD> m = tracked(make_mlp());
    const Tf<AD, 2> x = Tf<AD, 2>::random({kBatch, 784}, burn::Distribution::Default());
    const Labels<AD> labels = Labels<AD>::from_inner(make_labels());
    for (auto _ : state) {
        const auto grads = cross_entropy(forward(m, x), labels).backward();
        for (const Tf<AD, 2>* p : {&m.w1, &m.b1, &m.w2, &m.b2, &m.w3, &m.b3}) {
            auto g = p->grad(grads);
            benchmark::DoNotOptimize(g);
        }
    }
}

void mlp_manual(benchmark::State& state) {
    const Mlp<B> m = make_mlp();
    const Tf<B, 2> x = Tf<B, 2>::random({kBatch, 784}, burn::Distribution::Default());
    const Labels<B> labels = make_labels();
    check_mlp(m, x, labels);
    for (auto _ : state) {
        MlpGrads g = mlp_manual_step(m, x, labels);
        benchmark::DoNotOptimize(g);
    }
}

void cnn_fwd_bwd(benchmark::State& state) {
    const GuideCnn<AD> m = tracked(make_cnn());
    const Tf<AD, 3> images = Tf<AD, 3>::random({kBatch, 28, 28}, burn::Distribution::Default());
    const Labels<AD> labels = Labels<AD>::from_inner(make_labels());
    for (auto _ : state) {
        const auto grads = cross_entropy(forward(m, images), labels).backward();
        auto g4a = m.c1w.grad(grads);
        auto g1a = m.c1b.grad(grads);
        auto g4b = m.c2w.grad(grads);
        auto g1b = m.c2b.grad(grads);
        benchmark::DoNotOptimize(g4a);
        benchmark::DoNotOptimize(g1a);
        benchmark::DoNotOptimize(g4b);
        benchmark::DoNotOptimize(g1b);
        for (const Tf<AD, 2>* p : {&m.w1, &m.b1, &m.w2, &m.b2}) {
            auto g = p->grad(grads);
            benchmark::DoNotOptimize(g);
        }
    }
}

void cnn_manual(benchmark::State& state) {
    const GuideCnn<B> m = make_cnn();
    const Tf<B, 3> images = Tf<B, 3>::random({kBatch, 28, 28}, burn::Distribution::Default());
    const Labels<B> labels = make_labels();
    check_cnn(m, images, labels);
    for (auto _ : state) {
        CnnGrads g = cnn_manual_step(m, images, labels);
        benchmark::DoNotOptimize(g);
    }
}

}  // namespace

BENCHMARK(mlp_fwd_bwd)->Name("autodiff_mlp/fwd_bwd")->UseRealTime();
BENCHMARK(mlp_manual)->Name("autodiff_mlp/manual")->UseRealTime();
BENCHMARK(cnn_fwd_bwd)->Name("autodiff_guide_cnn/fwd_bwd")->UseRealTime();
BENCHMARK(cnn_manual)->Name("autodiff_guide_cnn/manual")->UseRealTime();

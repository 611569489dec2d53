// SPDX-License-Identifier: MIT OR Apache-2.0
// Training in half precision: the GradScaler (skipped steps and scale changes with injected
// infinities and NaN, f16 gradients that underflow without it), the optimizers' f32 master
// weights for f16 / bf16 parameters (updates below the half type's resolution add up), and
// whole training runs of a small transformer encoder in bf16 (master weights), in f16 (with the
// scaler) and in f32 under Autocast that reach the f32 run's loss; Autocast's op lists, nesting
// and threads.
#include <burn/nn/linear.hpp>
#include <burn/nn/loss.hpp>
#include <burn/nn/transformer.hpp>
#include <burn/optim.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace burn::testing {
namespace {

using B = Autodiff<Cpu<float>>;
using IB = Cpu<float>;

/// A module with every float tensor cast to `dtype`.
template <class M>
M cast_module(const M& m, DType dtype) {
    return m.map([dtype](const module::ParamId&, auto t) {
        if constexpr (std::same_as<typename decltype(t)::Kind, Float>) return t.cast(dtype);
        else return t;
    });
}

optim::GradientsParams<B> grads_of(const nn::Linear<B>& lin, double w, double b) {
    optim::GradientsParams<B> g;
    g.insert(lin.weight.id(), Tensor<IB, 2>::full({2, 2}, w));
    g.insert(lin.bias->id(), Tensor<IB, 1>::full({2}, b));
    return g;
}

TEST(GradScalerTest, SkipsStepsWithInfOrNanAndAdjustsTheScale) {
    B::seed(3);
    auto lin = nn::LinearConfig{.d_input = 2, .d_output = 2}.init<B>();
    auto sgd = optim::SgdConfig{}.init<B>();
    auto scaler = optim::GradScalerConfig{.init_scale = 1024.0, .growth_interval = 3}.init<B>();
    const TensorData w0 = lin.weight.val().to_data();

    // A finite step: the gradients (1024 x 1) are unscaled to 1 before SGD.
    lin = scaler.step(sgd, 0.5, lin, grads_of(lin, 1024.0, 2048.0));
    EXPECT_FALSE(scaler.found_inf());
    scaler.update();
    EXPECT_TRUE(close_to(lin.weight.val(), (Tensor<B, 2>::from_data(w0) - 0.5).to_data()));
    EXPECT_EQ(scaler.get_scale(), 1024.0);
    EXPECT_EQ(scaler.growth_tracker(), 1);

    // An infinity, then a NaN: each step is skipped and halves the scale.
    const TensorData w1 = lin.weight.val().to_data();
    for (double bad : {std::numeric_limits<double>::infinity(), std::nan("")}) {
        lin = scaler.step(sgd, 0.5, lin, grads_of(lin, 1.0, bad));
        EXPECT_TRUE(scaler.found_inf());
        scaler.update();
        EXPECT_EQ(lin.weight.val().to_data(), w1);
        EXPECT_EQ(scaler.growth_tracker(), 0);
    }
    EXPECT_EQ(scaler.get_scale(), 256.0);

    // growth_interval finite steps in a row double it.
    for (int i = 0; i < 3; ++i) {
        lin = scaler.step(sgd, 0.0, lin, grads_of(lin, 1.0, 1.0));
        scaler.update();
    }
    EXPECT_EQ(scaler.get_scale(), 512.0);

    // Misuse: two unscales in a step, an update without a step, bad configs.
    auto g = grads_of(lin, 1.0, 1.0);
    EXPECT_TRUE(scaler.unscale(g));
    EXPECT_THROW(scaler.unscale(g), Error);
    scaler.update();
    EXPECT_THROW(scaler.update(), Error);
    EXPECT_THROW(optim::GradScalerConfig{.init_scale = 0.0}.init<B>(), Error);
    EXPECT_THROW(optim::GradScalerConfig{.backoff_factor = 1.5}.init<B>(), Error);
}

TEST(GradScalerTest, KeepsSmallF16GradientsFromUnderflowing) {
    const auto w = Tensor<B, 1>::ones({4}).cast(DType::F16).require_grad();
    // d(sum(w * 1e-8))/dw = 1e-8: below f16's smallest subnormal (6e-8), so it flushes to zero.
    auto plain = (w * 1e-8).sum().backward();
    EXPECT_EQ(w.grad(plain)->abs().sum().into_scalar(), 0.0f);

    // 8192: the scaled gradient (8e-5) is a normal f16 value; 65536 itself would overflow an f16
    // loss (f16's largest value is 65504), which is why losses are best computed in f32.
    auto scaler = optim::GradScalerConfig{.init_scale = 8192.0}.init<B>();
    auto grads = scaler.scale((w * 1e-8).sum()).backward();
    optim::GradientsParams<B> gp;
    const module::ParamId id;
    gp.insert(id, *w.grad(grads));
    EXPECT_TRUE(scaler.unscale(gp));
    const auto g = *gp.remove<1>(id);
    EXPECT_EQ(g.dtype(), DType::F32);
    EXPECT_TRUE(close_to(g, TensorData::from<float>({1e-8f, 1e-8f, 1e-8f, 1e-8f}), {0.0, 2e-3}));
}

TEST(MasterWeightsTest, UpdatesBelowTheHalfResolutionAddUp) {
    B::seed(5);
    const auto lin32 = nn::LinearConfig{.d_input = 2, .d_output = 2}.init<B>();
    for (DType d : {DType::BF16, DType::F16}) {
        SCOPED_TRACE(dtype_name(d));
        auto lin = cast_module(lin32, d);
        auto ref = cast_module(lin, DType::F32);  // the same start, in f32
        auto sgd = optim::SgdConfig{}.init<B>();
        auto sgd32 = optim::SgdConfig{}.init<B>();
        // 100 steps of 1e-4: each is far below bf16's resolution near 1 (2^-8), and f16's (2^-11).
        for (int i = 0; i < 100; ++i) {
            lin = sgd.step(1e-4, lin, grads_of(lin, 1.0, 1.0));
            ref = sgd32.step(1e-4, ref, grads_of(ref, 1.0, 1.0));
        }
        EXPECT_EQ(lin.weight.val().dtype(), d);
        EXPECT_EQ(lin.bias->val().dtype(), d);
        // The parameters moved by 0.01 (up to the dtype's rounding), as the f32 ones did.
        EXPECT_TRUE(close_to(lin.weight.val(), ref.weight.val().cast(d).to_data(), {0.0, 0.0}));
        EXPECT_TRUE(
            close_to(lin.weight.val(), (lin32.weight.val() - 0.01).to_data(), {4e-3, 8e-3}));
    }
}

/// A small transformer encoder regressing a smooth function of its input sequence.
struct TinyModel {
    nn::TransformerEncoder<B> encoder;
    nn::Linear<B> head;
    BURN_MODULE(encoder, head)

    Tensor<B, 1> loss(const Tensor<B, 3>& x, const Tensor<B, 3>& y) const {
        auto h = encoder.forward(nn::TransformerEncoderInput<B>{x});
        // The loss in f32, as under autocast (the scaled f16 loss would overflow).
        return nn::MseLoss{}.forward(head.forward(h).cast(DType::F32), y.cast(DType::F32),
                                     nn::Reduction::Mean);
    }
};

/// Trains `model` for `steps` Adam steps in `dtype` (f16: with a GradScaler; with `autocast`, the
/// model stays f32 and runs under Autocast(dtype)) and returns the final loss on held-out data,
/// computed in f32.
double train(TinyModel model, DType dtype, int steps, bool autocast = false) {
    B::seed(17);
    const auto x = Tensor<B, 3>::random({16, 8, 16}, Distribution::Uniform(-1.0, 1.0));
    const auto y = (x.slice({Slice(), Slice(), Slice(0, 4)}) * 2.0).sin();
    const auto xv = Tensor<B, 3>::random({16, 8, 16}, Distribution::Uniform(-1.0, 1.0));
    const auto yv = (xv.slice({Slice(), Slice(), Slice(0, 4)}) * 2.0).sin();
    auto m = autocast ? model : cast_module(model, dtype);
    auto adam = optim::AdamConfig{}.init<B>();
    auto scaler = optim::GradScalerConfig{}.init<B>();
    for (int i = 0; i < steps; ++i) {
        std::optional<Autocast> scope;
        if (autocast) scope.emplace(dtype);
        auto loss = autocast ? m.loss(x, y) : m.loss(x.cast(dtype), y.cast(dtype));
        scope.reset();
        if (dtype == DType::F16) {
            auto grads = scaler.scale(loss).backward();
            m = scaler.step(adam, 3e-3, m, optim::GradientsParams<B>::from_grads(grads, m));
            scaler.update();
        } else {
            auto grads = loss.backward();
            m = adam.step(3e-3, m, optim::GradientsParams<B>::from_grads(grads, m));
        }
    }
    return cast_module(m, DType::F32).loss(xv, yv).into_scalar();
}

TEST(MixedPrecisionTest, HalfPrecisionTrainingReachesTheF32Loss) {
    B::seed(23);
    const TinyModel model{
        nn::TransformerEncoderConfig{
            .d_model = 16, .d_ff = 32, .n_heads = 2, .n_layers = 2, .dropout = 0.0}
            .init<B>(),
        nn::LinearConfig{.d_input = 16, .d_output = 4}.init<B>()};
    const double start = train(model, DType::F32, 0);
    const double f32 = train(model, DType::F32, 150);
    const double bf16 = train(model, DType::BF16, 150);
    const double f16 = train(model, DType::F16, 150);
    const double amp_bf16 = train(model, DType::BF16, 150, true);
    const double amp_f16 = train(model, DType::F16, 150, true);
    EXPECT_LT(f32, 0.5 * start);  // it learned
    // The half-precision runs end within 15% (+0.01) of the f32 run's validation loss.
    EXPECT_LT(std::abs(bf16 - f32), 0.15 * f32 + 0.01) << "f32 " << f32 << ", bf16 " << bf16;
    EXPECT_LT(std::abs(f16 - f32), 0.15 * f32 + 0.01) << "f32 " << f32 << ", f16 " << f16;
    // f32 parameters under autocast (matmuls in half, norms, softmax and the loss in f32).
    EXPECT_LT(std::abs(amp_bf16 - f32), 0.15 * f32 + 0.01) << "f32 " << f32 << ", " << amp_bf16;
    EXPECT_LT(std::abs(amp_f16 - f32), 0.15 * f32 + 0.01) << "f32 " << f32 << ", " << amp_f16;
}

TEST(AutocastTest, ListsScopesAndThreads) {
    using T2 = Tensor<B, 2>;
    const auto x = T2::random({4, 8}, Distribution::Default());
    const auto w = T2::random({8, 3}, Distribution::Default()).require_grad();
    EXPECT_FALSE(autocast_dtype().has_value());
    {
        Autocast amp(DType::BF16);
        EXPECT_EQ(autocast_dtype(), DType::BF16);
        const auto y = x.matmul(w);  // lower-precision list
        EXPECT_EQ(y.dtype(), DType::BF16);
        EXPECT_EQ(activation::softmax(y, 1).dtype(), DType::F32);  // f32 list
        EXPECT_EQ((y + 1.0).dtype(), DType::BF16);                 // others: their operands'
        const auto img = Tensor<B, 4>::random({1, 2, 5, 5}, Distribution::Default());
        const auto k = Tensor<B, 4>::random({3, 2, 3, 3}, Distribution::Default());
        EXPECT_EQ(module::conv2d(img, k, std::nullopt, ConvOptions<2>{}).dtype(), DType::BF16);
        const auto lin = nn::LinearConfig{.d_input = 8, .d_output = 3}.init<B>();
        EXPECT_EQ(lin.forward(x).dtype(), DType::BF16);
        EXPECT_EQ(nn::MseLoss{}.forward(y, y * 0.5, nn::Reduction::Mean).dtype(), DType::F32);
        {
            Autocast off(DType::BF16, false);
            EXPECT_EQ(x.matmul(w).dtype(), DType::F32);
        }
        EXPECT_EQ(x.matmul(w).dtype(), DType::BF16);
        // The scope is this thread's.
        std::optional<DType> other = DType::F16;
        std::thread([&] { other = autocast_dtype(); }).join();
        EXPECT_FALSE(other.has_value());
        // The parameter's gradient comes back in f32, its dtype.
        auto grads = x.matmul(w).cast(DType::F32).sum().backward();
        EXPECT_EQ(w.grad(grads)->dtype(), DType::F32);
    }
    EXPECT_EQ(x.matmul(w).dtype(), DType::F32);
    EXPECT_THROW(Autocast(DType::F32), Error);
}

}  // namespace
}  // namespace burn::testing

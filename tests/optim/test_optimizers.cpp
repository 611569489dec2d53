// SPDX-License-Identifier: MIT OR Apache-2.0
// Optimizers (SGD, Adam, AdamW, RMSProp, AdaGrad) against torch.optim over a fixed sequence of
// gradients (tests/fixtures/optim.json), gradient clipping (per parameter and global), changing
// learning rates, state save/load, frozen and missing parameters, gradient accumulation, several
// optimizers on one graph, a small training run, and the configs.
#include <burn/nn/linear.hpp>
#include <burn/optim.hpp>
#include <burn/record/recorder.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "gradcheck.hpp"
#include "test_support.hpp"

namespace burn::testing {
namespace {

using IB = Cpu<double>;
constexpr std::string_view kFile = "optim";
using module::Param;

static_assert(optim::Optimizer<optim::OptimizerAdaptor<optim::AdamW, AD>, nn::Linear<AD>, AD>);
static_assert(optim::Optimizer<optim::OptimizerAdaptor<optim::RmsProp, AD>, nn::Linear<AD>, AD>);
static_assert(optim::Optimizer<optim::OptimizerAdaptor<optim::AdaGrad, AD>, nn::Linear<AD>, AD>);

/// The shared start and gradient sequence of optim.json.
struct Sequence {
    TensorData w0 = fixture_data(fixture(kFile, "common").at("inputs").at("w0"));
    TensorData b0 = fixture_data(fixture(kFile, "common").at("inputs").at("b0"));
    Tensor<IB, 3> gw = fixture_input<IB, 3>(kFile, "common", "gw");
    Tensor<IB, 2> gb = fixture_input<IB, 2>(kFile, "common", "gb");
    std::size_t steps = fixture(kFile, "common").at("params").at("steps").get<std::size_t>();

    nn::Linear<AD> linear() const {
        return {Param<Tensor<AD, 2>>(Tensor<AD, 2>::from_data(w0)),
                Param<Tensor<AD, 1>>(Tensor<AD, 1>::from_data(b0))};
    }
    Tensor<IB, 2> grad_w(std::size_t t) const {
        return gw.slice({Slice::index(std::int64_t(t))})
            .reshape<2>(std::array<std::int64_t, 2>{3, 4});
    }
    Tensor<IB, 1> grad_b(std::size_t t) const {
        return gb.slice({Slice::index(std::int64_t(t))}).reshape<1>(std::array<std::int64_t, 1>{4});
    }
    /// The gradients of step t for `linear`.
    optim::GradientsParams<AD> grads(const nn::Linear<AD>& linear, std::size_t t) const {
        optim::GradientsParams<AD> g;
        g.insert(linear.weight.id(), grad_w(t));
        g.insert(linear.bias->id(), grad_b(t));
        return g;
    }
};

const Sequence& sequence() {
    static const Sequence s;
    return s;
}

/// The learning rates of a case.
std::vector<double> rates(const std::string& name) {
    return fixture(kFile, name).at("params").at("lr").get<std::vector<double>>();
}

/// Steps `optim` over the whole sequence and compares the parameters after every step.
template <class O>
void expect_matches_torch(const std::string& name, O optim) {
    SCOPED_TRACE(name);
    const auto& seq = sequence();
    const auto lr = rates(name);
    const auto w = Tensor<IB, 3>::from_data(fixture_output(kFile, name, "w"));
    const auto b = Tensor<IB, 2>::from_data(fixture_output(kFile, name, "b"));
    auto linear = seq.linear();
    for (std::size_t t = 0; t < seq.steps; ++t) {
        SCOPED_TRACE("step " + std::to_string(t));
        linear = optim.step(lr[t], linear, seq.grads(linear, t));
        const auto i = std::int64_t(t);
        EXPECT_TRUE(close_to(
            linear.weight.val().inner(),
            w.slice({Slice::index(i)}).reshape<2>(std::array<std::int64_t, 2>{3, 4}).to_data()));
        EXPECT_TRUE(close_to(
            linear.bias->val().inner(),
            b.slice({Slice::index(i)}).reshape<1>(std::array<std::int64_t, 1>{4}).to_data()));
    }
    EXPECT_EQ(optim.num_states(), 2u);
}

using optim::GradientClippingConfig;
using optim::MomentumConfig;
using optim::WeightDecayConfig;

// =============================================================================== vs PyTorch
TEST(OptimSgd, MatchesTorch) {
    expect_matches_torch("sgd_plain", optim::SgdConfig{}.init<AD>());
    expect_matches_torch("sgd_momentum",
                         optim::SgdConfig{.momentum = MomentumConfig{0.9, 0.1, false}}.init<AD>());
    expect_matches_torch("sgd_nesterov",
                         optim::SgdConfig{.momentum = MomentumConfig{0.9, 0.0, true}}.init<AD>());
    expect_matches_torch("sgd_weight_decay",
                         optim::SgdConfig{.weight_decay = WeightDecayConfig{0.1}}.init<AD>());
    expect_matches_torch("sgd_momentum_weight_decay",
                         optim::SgdConfig{.weight_decay = WeightDecayConfig{0.05},
                                          .momentum = MomentumConfig{0.8, 0.2, false}}
                             .init<AD>());
}

TEST(OptimAdam, MatchesTorch) {
    expect_matches_torch("adam", optim::AdamConfig{}.init<AD>());
    expect_matches_torch(
        "adam_weight_decay",
        optim::AdamConfig{.beta_1 = 0.8, .beta_2 = 0.99, .weight_decay = WeightDecayConfig{0.1}}
            .init<AD>());
}

TEST(OptimAdamW, MatchesTorch) {
    expect_matches_torch("adamw_default", optim::AdamWConfig{}.init<AD>());
    expect_matches_torch(
        "adamw",
        optim::AdamWConfig{.beta_1 = 0.85, .beta_2 = 0.995, .epsilon = 1e-6, .weight_decay = 0.5}
            .init<AD>());
}

TEST(OptimRmsProp, MatchesTorch) {
    expect_matches_torch("rmsprop_plain", optim::RmsPropConfig{.momentum = 0.0}.init<AD>());
    expect_matches_torch(
        "rmsprop_centered",
        optim::RmsPropConfig{.alpha = 0.9, .momentum = 0.0, .centered = true}.init<AD>());
    // Burn's defaults: alpha 0.99, momentum 0.9, epsilon 1e-5.
    expect_matches_torch("rmsprop_momentum", optim::RmsPropConfig{}.init<AD>());
    expect_matches_torch("rmsprop_centered_momentum_weight_decay",
                         optim::RmsPropConfig{.alpha = 0.95,
                                              .momentum = 0.5,
                                              .epsilon = 1e-4,
                                              .centered = true,
                                              .weight_decay = WeightDecayConfig{0.1}}
                             .init<AD>());
}

TEST(OptimAdaGrad, MatchesTorch) {
    expect_matches_torch("adagrad", optim::AdaGradConfig{}.init<AD>());
    expect_matches_torch("adagrad_lr_decay", optim::AdaGradConfig{.lr_decay = 0.05}.init<AD>());
    expect_matches_torch(
        "adagrad_lr_decay_weight_decay",
        optim::AdaGradConfig{.lr_decay = 0.01, .weight_decay = WeightDecayConfig{0.2}}.init<AD>());
}

TEST(OptimClipping, MatchesTorchPerParameter) {
    expect_matches_torch("clip_value_sgd_momentum",
                         optim::SgdConfig{.momentum = MomentumConfig{},
                                          .gradient_clipping = GradientClippingConfig::value(0.5)}
                             .init<AD>());
    expect_matches_torch(
        "clip_norm_adam",
        optim::AdamConfig{.grad_clipping = GradientClippingConfig::norm(1.0)}.init<AD>());
    expect_matches_torch(
        "clip_norm_rmsprop",
        optim::RmsPropConfig{.grad_clipping = GradientClippingConfig::norm(0.8)}.init<AD>());
}

TEST(OptimSchedule, ChangingLearningRateMatchesTorch) {
    expect_matches_torch("schedule_sgd_momentum",
                         optim::SgdConfig{.momentum = MomentumConfig{}}.init<AD>());
    expect_matches_torch("schedule_adam", optim::AdamConfig{}.init<AD>());
    expect_matches_torch("schedule_adamw", optim::AdamWConfig{.weight_decay = 0.3}.init<AD>());
    expect_matches_torch("schedule_adagrad", optim::AdaGradConfig{.lr_decay = 0.02}.init<AD>());
}

// =============================================================================== state
/// Runs `make()` for the whole sequence in one go, and again stopping half-way to save the
/// state as bytes and load it into a fresh optimizer: the two runs agree exactly.
template <class Make>
void expect_resume_identical(const std::string& name, Make make) {
    SCOPED_TRACE(name);
    const auto& seq = sequence();
    const double lr = 0.01;
    const auto start = seq.linear();  // one module, so that both runs key their states alike
    auto straight = make();
    auto a = start;
    for (std::size_t t = 0; t < seq.steps; ++t) a = straight.step(lr, a, seq.grads(a, t));

    auto first = make();
    auto b = start;
    const std::size_t half = seq.steps / 2;
    for (std::size_t t = 0; t < half; ++t) b = first.step(lr, b, seq.grads(b, t));
    const record::BinBytesRecorder<record::DoublePrecisionSettings> recorder;
    const auto bytes = recorder.to_bytes(first.to_record());
    auto second = make().load_record(recorder.from_bytes(bytes));
    EXPECT_EQ(second.num_states(), 2u);
    for (std::size_t t = half; t < seq.steps; ++t) b = second.step(lr, b, seq.grads(b, t));

    EXPECT_TRUE(equal_to(b.weight.val(), a.weight.val().to_data()));
    EXPECT_TRUE(equal_to(b.bias->val(), a.bias->val().to_data()));
    // And the saved states agree too.
    EXPECT_EQ(recorder.to_bytes(second.to_record()), recorder.to_bytes(straight.to_record()));
}

TEST(OptimState, SaveLoadMidRunContinuesIdentically) {
    expect_resume_identical("sgd", [] {
        return optim::SgdConfig{.momentum = MomentumConfig{.nesterov = false}}.init<AD>();
    });
    expect_resume_identical("adam", [] { return optim::AdamConfig{}.init<AD>(); });
    expect_resume_identical("adamw", [] { return optim::AdamWConfig{}.init<AD>(); });
    expect_resume_identical("rmsprop",
                            [] { return optim::RmsPropConfig{.centered = true}.init<AD>(); });
    expect_resume_identical("adagrad",
                            [] { return optim::AdaGradConfig{.lr_decay = 0.1}.init<AD>(); });
}

TEST(OptimState, RecordHoldsNamedStates) {
    const auto& seq = sequence();
    auto optim = optim::RmsPropConfig{.centered = true}.init<AD>();
    auto linear = seq.linear();
    linear = optim.step(0.01, linear, seq.grads(linear, 0));
    const auto rec = optim.to_record();
    const auto* entry = rec.field(linear.weight.id().to_string());
    ASSERT_NE(entry, nullptr);
    for (const char* name : {"square_avg", "grad_avg", "momentum_buffer"})
        EXPECT_NE(entry->field(name), nullptr) << name;

    auto adagrad = optim::AdaGradConfig{}.init<AD>();
    linear = adagrad.step(0.01, linear, seq.grads(linear, 0));
    linear = adagrad.step(0.01, linear, seq.grads(linear, 1));
    const auto rec2 = adagrad.to_record();
    const auto* m2 = rec2.field(linear.bias->id().to_string());
    ASSERT_NE(m2, nullptr);
    ASSERT_NE(m2->field("time"), nullptr);
    EXPECT_EQ(std::get<std::int64_t>(m2->field("time")->value()), 2);
    EXPECT_NE(m2->field("sum"), nullptr);
}

TEST(OptimState, LoadingABadRecordThrows) {
    EXPECT_BURN_ERROR(
        (void)optim::AdamConfig{}.init<AD>().load_record(record::Record(std::int64_t{3})),
        "optimizer record");
}

TEST(OptimState, MissingGradientKeepsParameterAndState) {
    const auto& seq = sequence();
    auto optim = optim::AdamWConfig{}.init<AD>();
    auto linear = seq.linear();
    for (std::size_t t = 0; t < 3; ++t) linear = optim.step(0.01, linear, seq.grads(linear, t));
    const record::BinBytesRecorder<record::DoublePrecisionSettings> recorder;
    const auto bias_before = linear.bias->val().to_data();
    const auto bias_state = [&] {
        return recorder.to_bytes(*optim.to_record().field(linear.bias->id().to_string()));
    };
    const auto state_before = bias_state();
    // A step with only the weight's gradient.
    optim::GradientsParams<AD> only_weight;
    only_weight.insert(linear.weight.id(), seq.grad_w(3));
    const auto weight_before = linear.weight.val().to_data();
    linear = optim.step(0.01, linear, std::move(only_weight));
    EXPECT_TRUE(equal_to(linear.bias->val(), bias_before));
    EXPECT_FALSE(equal_to(linear.weight.val(), weight_before));
    EXPECT_EQ(bias_state(), state_before);
    // The bias resumes where it stopped: same as a bias that only ever saw these 4 gradients.
    linear = optim.step(0.01, linear, seq.grads(linear, 4));
    auto reference = optim::AdamWConfig{}.init<AD>();
    auto ref = seq.linear();
    for (std::size_t t : {0, 1, 2, 4}) ref = reference.step(0.01, ref, seq.grads(ref, t));
    EXPECT_TRUE(equal_to(linear.bias->val(), ref.bias->val().to_data()));
}

TEST(OptimState, FrozenParametersAreNeverUpdated) {
    const auto& seq = sequence();
    auto linear = seq.linear();
    linear.weight = linear.weight.set_require_grad(false);
    const auto x = uniform<2>({5, 3}, -1, 1, 3);
    auto optim = optim::AdamConfig{}.init<AD>();
    const auto weight_before = linear.weight.val().to_data();
    const auto bias_before = linear.bias->val().to_data();
    for (int i = 0; i < 3; ++i) {
        auto grads = (linear.forward(x) * linear.forward(x)).sum().backward();
        auto gp = optim::GradientsParams<AD>::from_grads(grads, linear);
        EXPECT_EQ(gp.size(), 1u);
        EXPECT_FALSE(gp.contains(linear.weight.id()));
        linear = optim.step(0.01, linear, std::move(gp));
    }
    EXPECT_TRUE(equal_to(linear.weight.val(), weight_before));
    EXPECT_FALSE(linear.weight.is_require_grad());  // kept by the step
    EXPECT_TRUE(linear.bias->is_require_grad());
    EXPECT_FALSE(equal_to(linear.bias->val(), bias_before));
    EXPECT_EQ(optim.num_states(), 1u);
    // Even a gradient inserted by hand leaves a frozen parameter alone.
    optim::GradientsParams<AD> by_hand;
    by_hand.insert(linear.weight.id(), Tensor<IB, 2>::ones(linear.weight.shape()));
    linear = optim.step(0.01, linear, std::move(by_hand));
    EXPECT_TRUE(equal_to(linear.weight.val(), weight_before));
    // The updated module trains on: its parameters are fresh leaves.
    auto grads = linear.forward(x).sum().backward();
    EXPECT_TRUE(linear.bias->val().grad(grads).has_value());
}

TEST(OptimState, GradientOfWrongShapeThrows) {
    const auto& seq = sequence();
    auto linear = seq.linear();
    auto optim = optim::AdaGradConfig{}.init<AD>();
    optim::GradientsParams<AD> g;
    g.insert(linear.bias->id(), Tensor<IB, 1>::zeros({5}));
    EXPECT_BURN_ERROR((void)optim.step(0.1, linear, std::move(g)), "Optimizer::step");
}

// ============================================================================ gradients
template <Backend B>
struct Mlp {
    nn::Linear<B> fc1;
    nn::Linear<B> fc2;
    BURN_MODULE(fc1, fc2)

    Tensor<B, 2> forward(const Tensor<B, 2>& x) const {
        return fc2.forward(activation::tanh(fc1.forward(x)));
    }
};
static_assert(module::check_fields<Mlp<IB>>());

Mlp<AD> make_mlp(std::size_t d_in, std::size_t hidden, std::size_t d_out, std::uint64_t seed) {
    const double s1 = 1.0 / std::sqrt(double(d_in)), s2 = 1.0 / std::sqrt(double(hidden));
    return {nn::Linear<AD>{uniform<2>({d_in, hidden}, -s1, s1, seed),
                           Param<Tensor<AD, 1>>(uniform<1>({hidden}, -s1, s1, seed + 1))},
            nn::Linear<AD>{uniform<2>({hidden, d_out}, -s2, s2, seed + 2),
                           Param<Tensor<AD, 1>>(uniform<1>({d_out}, -s2, s2, seed + 3))}};
}

TEST(OptimGradients, AccumulatorSumsBackwardPasses) {
    const auto mlp = make_mlp(3, 5, 2, 11);
    const auto x1 = uniform<2>({4, 3}, -1, 1, 21), x2 = uniform<2>({6, 3}, -1, 1, 22);
    const auto loss = [&](const Tensor<AD, 2>& x) {
        return (mlp.forward(x) * mlp.forward(x)).sum();
    };
    optim::GradientsAccumulator<AD> acc;
    EXPECT_TRUE(acc.empty());
    for (const auto* x : {&x1, &x2}) {
        auto grads = loss(*x).backward();
        acc.accumulate(mlp, optim::GradientsParams<AD>::from_grads(grads, mlp));
    }
    auto summed = acc.grads();
    EXPECT_TRUE(acc.empty());
    auto both = (loss(x1) + loss(x2)).backward();
    auto expected = optim::GradientsParams<AD>::from_grads(both, mlp);
    ASSERT_EQ(summed.size(), 4u);
    ASSERT_EQ(expected.size(), 4u);
    expected.for_each([&](const module::ParamId& id, const auto& g) {
        constexpr std::size_t D = std::remove_cvref_t<decltype(g)>::rank;
        auto s = summed.template get<D>(id);
        ASSERT_TRUE(s.has_value());
        EXPECT_TRUE(close_to(*s, g.to_data(), Tolerance{1e-12, 1e-12}));
    });
}

TEST(OptimGradients, FromModuleSplitsOneGraphBetweenTwoOptimizers) {
    auto mlp = make_mlp(3, 5, 2, 31);
    const auto x = uniform<2>({4, 3}, -1, 1, 32);
    auto grads = (mlp.forward(x) * mlp.forward(x)).sum().backward();
    auto g1 = optim::GradientsParams<AD>::from_module(grads, mlp.fc1);
    EXPECT_EQ(g1.size(), 2u);
    // Taken out of `grads`: a second look finds nothing for fc1.
    EXPECT_TRUE(optim::GradientsParams<AD>::from_module(grads, mlp.fc1).empty());
    auto g2 = optim::GradientsParams<AD>::from_module(grads, mlp.fc2);
    EXPECT_EQ(g2.size(), 2u);
    EXPECT_TRUE(optim::GradientsParams<AD>::from_grads(grads, mlp).empty());
    // The gradients are the ones of the whole module.
    auto again = (mlp.forward(x) * mlp.forward(x)).sum().backward();
    auto all = optim::GradientsParams<AD>::from_grads(again, mlp);
    EXPECT_TRUE(
        close_to(*g1.get<2>(mlp.fc1.weight.id()), all.get<2>(mlp.fc1.weight.id())->to_data()));
    EXPECT_TRUE(
        close_to(*g2.get<1>(mlp.fc2.bias->id()), all.get<1>(mlp.fc2.bias->id())->to_data()));

    auto opt1 = optim::SgdConfig{}.init<AD>();
    auto opt2 = optim::AdamConfig{}.init<AD>();
    const auto w1 = mlp.fc1.weight.val().inner() - all.get<2>(mlp.fc1.weight.id())->mul_scalar(0.1);
    mlp.fc1 = opt1.step(0.1, mlp.fc1, std::move(g1));
    mlp.fc2 = opt2.step(0.01, mlp.fc2, std::move(g2));
    EXPECT_TRUE(close_to(mlp.fc1.weight.val().inner(), w1.to_data()));
    EXPECT_EQ(opt1.num_states(), 2u);
    EXPECT_EQ(opt2.num_states(), 2u);
}

// ============================================================================ training
TEST(OptimTraining, AdamFitsXor) {
    // XOR of the signs of two inputs, as a regression onto +-1.
    std::vector<double> xs, ys;
    for (int i = -3; i <= 3; ++i)
        for (int j = -3; j <= 3; ++j) {
            if (i == 0 || j == 0) continue;
            xs.push_back(i / 3.0), xs.push_back(j / 3.0);
            ys.push_back((i > 0) == (j > 0) ? 1.0 : -1.0);
        }
    const std::size_t n = ys.size();
    const auto x = Tensor<AD, 2>::from_data(TensorData(xs, Shape{n, 2}));
    const auto y = Tensor<AD, 2>::from_data(TensorData(ys, Shape{n, 1}));
    auto mlp = make_mlp(2, 8, 1, 41);
    auto optim = optim::AdamConfig{}.init<AD, Mlp<AD>>();
    const auto mse = [&] {
        const auto d = mlp.forward(x) - y;
        return (d * d).mean();
    };
    const double initial = mse().into_scalar();
    for (int step = 0; step < 300; ++step) {
        auto grads = mse().backward();
        mlp = optim.step(0.05, mlp, optim::GradientsParams<AD>::from_grads(grads, mlp));
    }
    const double final_loss = mse().into_scalar();
    EXPECT_GT(initial, 0.5);
    EXPECT_LT(final_loss, 0.05) << "initial " << initial;
}

// ============================================================================== configs
template <class C>
void expect_round_trip(const C& config) {
    const std::string json = config.to_json_string();
    EXPECT_EQ(C::from_json_string(json).to_json_string(), json);
}

TEST(OptimConfig, JsonRoundTrips) {
    expect_round_trip(optim::AdamWConfig{
        .beta_1 = 0.8, .weight_decay = 0.01, .grad_clipping = GradientClippingConfig::norm(2.0)});
    expect_round_trip(optim::RmsPropConfig{
        .momentum = 0.0, .centered = true, .weight_decay = WeightDecayConfig{0.1}});
    expect_round_trip(
        optim::AdaGradConfig{.lr_decay = 0.5, .grad_clipping = GradientClippingConfig::value(1.0)});
    expect_round_trip(optim::SgdConfig{.momentum = MomentumConfig{}});
    expect_round_trip(optim::AdamConfig{.weight_decay = WeightDecayConfig{1e-3}});
    // Defaults fill missing fields.
    const auto adamw = optim::AdamWConfig::from_json_string("{}");
    EXPECT_EQ(adamw.epsilon, 1e-5);
    EXPECT_EQ(adamw.weight_decay, 1e-4);
    const auto rms = optim::RmsPropConfig::from_json_string(R"({"centered": true})");
    EXPECT_EQ(rms.alpha, 0.99);
    EXPECT_EQ(rms.momentum, 0.9);
    EXPECT_TRUE(rms.centered);
    EXPECT_FALSE(rms.weight_decay.has_value());
    const auto ada = optim::AdaGradConfig::from_json_string("{}");
    EXPECT_EQ(ada.lr_decay, 0.0);
    EXPECT_EQ(ada.epsilon, 1e-5);
    EXPECT_ANY_THROW((void)optim::RmsPropConfig::from_json_string(R"({"weight_decay": {}})"));
}

// ====================================================================== global norm clipping
/// Two gradients by hand: a = [3, 4] (L2 norm 5) and b = [[0, -12]] (L2 norm 12), so the L2 norm
/// of both together is 13, the L1 norm 19 and the max norm 12.
struct TwoGrads {
    module::ParamId a{1}, b{2};
    optim::GradientsParams<AD> grads() const {
        optim::GradientsParams<AD> g;
        g.insert(a, Tensor<IB, 1>::from_data(TensorData(std::vector<double>{3, 4}, Shape{2})));
        g.insert(b, Tensor<IB, 2>::from_data(TensorData(std::vector<double>{0, -12}, Shape{1, 2})));
        return g;
    }
};

TEST(OptimClipping, GlobalNormAsTorchClipGradNorm) {
    const TwoGrads t;
    auto g = t.grads();
    EXPECT_DOUBLE_EQ(optim::total_grad_norm(g), 13.0);
    EXPECT_DOUBLE_EQ(optim::total_grad_norm(g, 1.0), 19.0);
    EXPECT_DOUBLE_EQ(optim::total_grad_norm(g, INFINITY), 12.0);
    EXPECT_NEAR(optim::total_grad_norm(g, 3.0), std::cbrt(27.0 + 64.0 + 1728.0), 1e-12);

    // torch.nn.utils.clip_grad_norm_([a, b], 6.5): coef = 6.5 / (13 + 1e-6), applied to both.
    const double total = optim::clip_grad_norm(g, 6.5);
    EXPECT_DOUBLE_EQ(total, 13.0);
    const double coef = 6.5 / (13.0 + 1e-6);
    EXPECT_TRUE(
        close_to(*g.get<1>(t.a), TensorData(std::vector<double>{3 * coef, 4 * coef}, Shape{2})));
    EXPECT_TRUE(
        close_to(*g.get<2>(t.b), TensorData(std::vector<double>{0, -12 * coef}, Shape{1, 2})));
    EXPECT_NEAR(optim::total_grad_norm(g), 6.5, 1e-6);

    // Under the bound (coef >= 1): untouched, the norm still returned.
    auto small = t.grads();
    EXPECT_DOUBLE_EQ(optim::clip_grad_norm(small, 20.0), 13.0);
    EXPECT_TRUE(equal_to(*small.get<1>(t.a), TensorData(std::vector<double>{3, 4}, Shape{2})));

    // Infinity norm: coef = 6 / (12 + 1e-6).
    auto inf = t.grads();
    EXPECT_DOUBLE_EQ(optim::clip_grad_norm(inf, 6.0, INFINITY), 12.0);
    const double icoef = 6.0 / (12.0 + 1e-6);
    EXPECT_TRUE(
        close_to(*inf.get<2>(t.b), TensorData(std::vector<double>{0, -12 * icoef}, Shape{1, 2})));

    // Per-parameter Norm clipping differs: only b (norm 12 > 6.5) is rescaled, on its own.
    auto per = t.grads();
    GradientClippingConfig::norm(6.5).clip_all(per);
    EXPECT_TRUE(equal_to(*per.get<1>(t.a), TensorData(std::vector<double>{3, 4}, Shape{2})));
    EXPECT_TRUE(close_to(*per.get<2>(t.b),
                         TensorData(std::vector<double>{0, -12 * 6.5 / (12 + 1e-6)}, Shape{1, 2})));

    optim::GradientsParams<AD> none;
    EXPECT_DOUBLE_EQ(optim::clip_grad_norm(none, 1.0), 0.0);

    auto bad = t.grads();
    EXPECT_BURN_ERROR((void)optim::clip_grad_norm(bad, -1.0), "clip_grad_norm: max_norm");
    EXPECT_BURN_ERROR((void)optim::clip_grad_norm(bad, 1.0, 0.0), "clip_grad_norm: norm_type");
    EXPECT_BURN_ERROR((void)optim::total_grad_norm(bad, NAN), "total_grad_norm: norm_type");
}

TEST(OptimClipping, GlobalNormThroughTheOptimizerConfig) {
    const auto& seq = sequence();
    auto linear = seq.linear();
    const auto w0 = linear.weight.val().inner().to_data().to_vec<double>();
    const auto b0 = linear.bias->val().inner().to_data().to_vec<double>();
    const auto gw = seq.grad_w(0).to_data().to_vec<double>();
    const auto gb = seq.grad_b(0).to_data().to_vec<double>();
    double sq = 0;
    for (double v : gw) sq += v * v;
    for (double v : gb) sq += v * v;
    const double total = std::sqrt(sq);
    const double max_norm = total / 4;  // forces clipping
    const double coef = max_norm / (total + 1e-6);

    // Plain SGD, lr 1: p - coef * g for every parameter, with one coefficient for both.
    auto sgd = optim::SgdConfig{.gradient_clipping = GradientClippingConfig::global_norm(max_norm)}
                   .init<AD>();
    linear = sgd.step(1.0, linear, seq.grads(linear, 0));
    std::vector<double> w1(w0.size()), b1(b0.size());
    for (std::size_t i = 0; i < w0.size(); ++i) w1[i] = w0[i] - coef * gw[i];
    for (std::size_t i = 0; i < b0.size(); ++i) b1[i] = b0[i] - coef * gb[i];
    EXPECT_TRUE(close_to(linear.weight.val().inner(), TensorData(w1, Shape{3, 4})));
    EXPECT_TRUE(close_to(linear.bias->val().inner(), TensorData(b1, Shape{4})));

    // By hand in a custom loop: the same numbers.
    auto by_hand = seq.linear();
    auto grads = seq.grads(by_hand, 0);
    EXPECT_NEAR(optim::clip_grad_norm(grads, max_norm), total, 1e-12);
    auto plain = optim::SgdConfig{}.init<AD>();
    by_hand = plain.step(1.0, by_hand, std::move(grads));
    EXPECT_TRUE(close_to(by_hand.weight.val().inner(), TensorData(w1, Shape{3, 4})));

    // The config's JSON names the kind.
    const auto config = GradientClippingConfig::global_norm(2.5);
    EXPECT_NE(config.to_json_string().find("GlobalNorm"), std::string::npos);
    expect_round_trip(optim::AdamConfig{.grad_clipping = config});
    EXPECT_BURN_ERROR(
        (void)optim::AdamWConfig{.grad_clipping = GradientClippingConfig::global_norm(0)}
            .init<AD>(),
        "threshold");
}

TEST(OptimConfig, InvalidConfigsThrow) {
    EXPECT_BURN_ERROR((void)optim::AdamWConfig{.beta_1 = 1.0}.init<AD>(),
                      "AdamWConfig::init: beta_1");
    EXPECT_BURN_ERROR((void)optim::AdamWConfig{.epsilon = 0.0}.init<AD>(),
                      "AdamWConfig::init: epsilon");
    EXPECT_BURN_ERROR((void)optim::AdamWConfig{.weight_decay = -1.0}.init<AD>(),
                      "AdamWConfig::init: weight_decay");
    EXPECT_BURN_ERROR((void)optim::RmsPropConfig{.alpha = 1.5}.init<AD>(),
                      "RmsPropConfig::init: alpha");
    EXPECT_BURN_ERROR((void)optim::RmsPropConfig{.momentum = -0.1}.init<AD>(),
                      "RmsPropConfig::init: momentum");
    EXPECT_BURN_ERROR((void)optim::RmsPropConfig{.epsilon = -1.0}.init<AD>(),
                      "RmsPropConfig::init: epsilon");
    EXPECT_BURN_ERROR(
        (void)optim::RmsPropConfig{.weight_decay = WeightDecayConfig{-1.0}}.init<AD>(),
        "RmsPropConfig::init: weight_decay");
    EXPECT_BURN_ERROR((void)optim::AdaGradConfig{.lr_decay = -1.0}.init<AD>(),
                      "AdaGradConfig::init: lr_decay");
    EXPECT_BURN_ERROR((void)optim::AdaGradConfig{.epsilon = 0.0}.init<AD>(),
                      "AdaGradConfig::init: epsilon");
    EXPECT_BURN_ERROR(
        (void)optim::AdaGradConfig{.weight_decay = WeightDecayConfig{-0.5}}.init<AD>(),
        "AdaGradConfig::init: weight_decay");
    for (double bad : {0.0, -1.0}) {
        EXPECT_BURN_ERROR(
            (void)optim::AdamWConfig{.grad_clipping = GradientClippingConfig::norm(bad)}.init<AD>(),
            "AdamWConfig::init: grad_clipping.threshold");
        EXPECT_BURN_ERROR(
            (void)optim::RmsPropConfig{.grad_clipping = GradientClippingConfig::value(bad)}
                .init<AD>(),
            "RmsPropConfig::init: grad_clipping.threshold");
        EXPECT_BURN_ERROR(
            (void)optim::AdaGradConfig{.grad_clipping = GradientClippingConfig::norm(bad)}
                .init<AD>(),
            "AdaGradConfig::init: grad_clipping.threshold");
    }
}

}  // namespace
}  // namespace burn::testing

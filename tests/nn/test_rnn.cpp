// SPDX-License-Identifier: MIT OR Apache-2.0
// nn::Lstm, nn::BiLstm, nn::Gru, nn::BiGru and nn::GateController: forward values and
// gradients against PyTorch (tests/fixtures/nn_rnn.json, which also pins the mapping of torch's
// weight_ih_l0 / weight_hh_l0 gate blocks to the gate controllers), finite differences, the
// fused Autodiff nodes against the op-by-op graph, configs, displays and errors.
#include <burn/nn/rnn.hpp>
#include <burn/record/recorder.hpp>
#include <cmath>
#include <string>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::nn_rnn {
namespace {

using B = TestFloatBackend;
constexpr std::string_view kFile = "nn_rnn";

static_assert(module::check_fields<nn::GateController<B>>());
static_assert(module::check_fields<nn::Lstm<B>>());
static_assert(module::check_fields<nn::BiLstm<B>>());
static_assert(module::check_fields<nn::Gru<B>>());
static_assert(module::check_fields<nn::BiGru<B>>());

// ---------------------------------------------------------------------------------- helpers
template <Backend BK>
Tensor<BK, 2> flat(const Tensor<BK, 3>& t) {
    const auto d = t.dims();
    return t.template reshape<2>(
        std::array<std::int64_t, 2>{std::int64_t(d[0]), std::int64_t(d[1] * d[2])});
}

/// A gate controller from fixture parameters `<prefix><gate>.{input,hidden}_transform.*`.
nn::GateController<ADF> gate(TorchCase& c, const std::string& prefix, const std::string& name,
                             bool bias) {
    const auto lin = [&](const std::string& kind) {
        const std::string p = prefix + name + "." + kind + "_transform.";
        nn::Linear<ADF> l{c.param<2>(p + "weight"), std::nullopt};
        if (bias) l.bias = c.param<1>(p + "bias");
        return l;
    };
    return {lin("input"), lin("hidden")};
}

nn::Lstm<ADF> lstm_from(TorchCase& c, const std::string& prefix, bool bias, std::size_t h,
                        bool batch_first, bool reverse) {
    return {gate(c, prefix, "input_gate", bias),
            gate(c, prefix, "forget_gate", bias),
            gate(c, prefix, "output_gate", bias),
            gate(c, prefix, "cell_gate", bias),
            h,
            batch_first,
            reverse};
}

// ==================================================================================== Lstm
TEST(NnLstm, MatchesTorch) {
    for (const char* name :
         {"lstm", "lstm_state", "lstm_no_bias_reverse_state", "lstm_seq_first", "lstm_one_step"}) {
        TorchCase c(std::string(kFile), name);
        const bool bias = c.param("bias"), state = c.param("state"), reverse = c.param("reverse"),
                   batch_first = c.param("batch_first");
        const std::size_t h = c.param("d_hidden");
        const auto x = c.input<3>("x");
        const auto lstm = lstm_from(c, "", bias, h, batch_first, reverse);
        std::optional<nn::LstmState<ADF, 2>> s0;
        if (state) s0 = nn::LstmState<ADF, 2>{c.input<2>("c0"), c.input<2>("h0")};
        auto [out, s] = lstm.forward(x, s0);
        if (!batch_first) out = out.swap_dims(0, 1);
        c.check(Tensor<ADF, 2>::cat({flat(out), s.cell, s.hidden}, 1));
    }
}

TEST(NnLstm, FinalHiddenIsTheLastStepsOutput) {
    for (const bool reverse : {false, true}) {
        B::seed(3);
        const auto lstm =
            nn::LstmConfig{.d_input = 3, .d_hidden = 4, .bias = true, .reverse = reverse}.init<B>();
        const auto x = uniform<3, B>({2, 5, 3});
        const nn::LstmState<B, 2> s0{uniform<2, B>({2, 4}, -1, 1, 4),
                                     uniform<2, B>({2, 4}, -1, 1, 5)};
        const auto [y, s] = lstm.forward(x, s0);
        EXPECT_EQ(y.dims(), (std::array<std::size_t, 3>{2, 5, 4}));
        // The final hidden state is the last step's output (the first's when reversed).
        const auto last =
            y.narrow(1, reverse ? 0 : 4, 1).reshape<2>(std::array<std::int64_t, 2>{2, 4});
        EXPECT_TRUE(close_to(s.hidden, last.to_data(), Tolerance{0, 0}));
    }
}

/// The same LSTM written op by op (the graph Autodiff records for it), as a reference for the
/// fused node's backward step.
template <Backend BK>
Tensor<BK, 2> lstm_reference(const nn::Lstm<BK>& m, const Tensor<BK, 3>& x, const Tensor<BK, 2>& h0,
                             const Tensor<BK, 2>& c0) {
    auto h = h0, c = c0;
    const auto [batch, seq, d] = x.dims();
    std::vector<std::optional<Tensor<BK, 2>>> outs(seq);
    for (std::size_t s = 0; s < seq; ++s) {
        const std::size_t t = m.reverse ? seq - 1 - s : s;
        const auto xt = x.narrow(1, t, 1).template reshape<2>(
            std::array<std::int64_t, 2>{std::int64_t(batch), std::int64_t(d)});
        const auto i = activation::sigmoid(m.input_gate.gate_product(xt, h));
        const auto f = activation::sigmoid(m.forget_gate.gate_product(xt, h));
        const auto g = m.cell_gate.gate_product(xt, h).tanh();
        const auto o = activation::sigmoid(m.output_gate.gate_product(xt, h));
        c = f * c + i * g;
        h = o * c.tanh();
        outs[t] = h;
    }
    std::vector<Tensor<BK, 2>> parts;
    for (auto& o : outs) parts.push_back(*o);
    parts.push_back(c);
    return Tensor<BK, 2>::cat(parts, 1);
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnLstm, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    // The fused sequence (one graph node on Autodiff) with its fused weights: x, wx [d, 4H],
    // bias [4H], wh [H, 4H], h0, c0. (Params detach their values, so the module-level gradients
    // are checked against PyTorch above and against the op-by-op graph below.)
    for (const bool reverse : {false, true}) {
        EXPECT_TRUE(gradcheck(
            [reverse](const Tensor<AD, 3>& x, const Tensor<AD, 2>& wx, const Tensor<AD, 1>& b,
                      const Tensor<AD, 2>& wh, const Tensor<AD, 2>& h0, const Tensor<AD, 2>& c0) {
                const auto r = nn::rnn_detail::LstmOps<AD>::run(x, wx, b, wh, h0, c0, reverse);
                return Tensor<AD, 2>::cat({flat(r.output), r.cell, r.hidden}, 1);
            },
            uniform<3>({2, 4, 2}), uniform<2>({2, 12}, -1, 1, 8), uniform<1>({12}, -1, 1, 10),
            uniform<2>({3, 12}, -1, 1, 9), uniform<2>({2, 3}, -1, 1, 11),
            uniform<2>({2, 3}, -1, 1, 12)));
    }
    // Without an initial state (the first step skips the hidden product).
    EXPECT_TRUE(gradcheck(
        [](const Tensor<AD, 3>& x, const Tensor<AD, 2>& wx, const Tensor<AD, 2>& wh) {
            const auto r = nn::rnn_detail::LstmOps<AD>::run(x, wx, std::nullopt, wh, std::nullopt,
                                                            std::nullopt, false);
            return Tensor<AD, 2>::cat({flat(r.output), r.cell}, 1);
        },
        uniform<3>({2, 3, 2}), uniform<2>({2, 8}, -1, 1, 8), uniform<2>({2, 8}, -1, 1, 9)));
}

TEST(NnLstm, FusedNodeMatchesOpByOpGraph) {
    for (const bool reverse : {false, true}) {
        ADF::seed(21);
        auto m = nn::LstmConfig{.d_input = 5, .d_hidden = 6, .bias = true, .reverse = reverse}
                     .init<ADF>();
        const auto x = uniform<3, ADF>({3, 7, 5}).require_grad();
        const auto h0 = uniform<2, ADF>({3, 6}, -1, 1, 2).require_grad();
        const auto c0 = uniform<2, ADF>({3, 6}, -1, 1, 3).require_grad();
        const auto gy = uniform<2, ADF>({3, 8 * 6}, -1, 1, 4);
        const auto [y, s] = m.forward(x, nn::LstmState<ADF, 2>{c0, h0});
        const auto fused = Tensor<ADF, 2>::cat({flat(y), s.cell}, 1);
        const auto ref = lstm_reference(m, x, h0, c0);
        EXPECT_TRUE(close_to(fused, ref.to_data(), Tolerance{1e-5, 1e-5}));
        const auto gf = (fused * gy).sum().backward();
        const auto gr = (ref * gy).sum().backward();
        const auto same = [&](const auto& t, const char* what) {
            const auto a = t.grad(gf), b = t.grad(gr);
            ASSERT_TRUE(a && b) << what;
            EXPECT_TRUE(close_to(*a, b->to_data(), Tolerance{1e-5, 1e-5})) << what;
        };
        same(x, "x");
        same(h0, "h0");
        same(c0, "c0");
        for (const auto* g : {&m.input_gate, &m.forget_gate, &m.output_gate, &m.cell_gate}) {
            same(g->input_transform.weight.val(), "input weight");
            same(g->hidden_transform.weight.val(), "hidden weight");
            same(g->input_transform.bias->val(), "input bias");
            same(g->hidden_transform.bias->val(), "hidden bias");
        }
    }
}

TEST(NnLstm, BalancedCheckpointingGivesTheSameGradients) {
    using ADC = Autodiff<TestFloatBackend, BalancedCheckpointing>;
    const auto grads_of = [](auto tag) {
        using BK = decltype(tag);
        BK::seed(4);
        const auto m = nn::LstmConfig{.d_input = 3, .d_hidden = 4, .bias = true}.init<BK>();
        // The input comes from a memory-bound op, which BalancedCheckpointing recomputes.
        const auto leaf = uniform<3, BK>({2, 5, 3}).require_grad();
        const auto [y, s] = m.forward((leaf * 2.0).exp());
        const auto g = (y.sum() + s.cell.sum()).backward();
        return std::pair{leaf.grad(g)->to_data(),
                         m.output_gate.hidden_transform.weight.val().grad(g)->to_data()};
    };
    const auto [x1, w1] = grads_of(ADF{});
    const auto [x2, w2] = grads_of(ADC{});
    EXPECT_TRUE(close_to(Tensor<B, 3>::from_data(x2), x1, Tolerance{0, 0}));
    EXPECT_TRUE(close_to(Tensor<B, 2>::from_data(w2), w1, Tolerance{0, 0}));
}

TEST(NnLstm, UntrackedInputsOnAutodiffRecordNothing) {
    const auto m = nn::LstmConfig{.d_input = 2, .d_hidden = 3, .bias = false}.init<ADF>().no_grad();
    const auto [y, s] = m.forward(uniform<3, ADF>({2, 3, 2}));
    EXPECT_FALSE(y.is_require_grad());
    EXPECT_FALSE(s.cell.is_require_grad());
}

TEST(NnLstm, ConfigInitDisplayAndErrors) {
    const nn::LstmConfig config{.d_input = 4, .d_hidden = 3, .bias = true};
    EXPECT_EQ(config.initializer, nn::Initializer(nn::Initializer::XavierNormal{.gain = 1.0}));
    EXPECT_TRUE(config.batch_first);
    EXPECT_FALSE(config.reverse);
    EXPECT_EQ(nn::LstmConfig::from_json_string(config.to_json_string()), config);
    const auto lstm = config.init<B>();
    EXPECT_EQ(lstm.input_gate.input_transform.weight.shape(), Shape({4, 3}));
    EXPECT_EQ(lstm.cell_gate.hidden_transform.weight.shape(), Shape({3, 3}));
    EXPECT_EQ(lstm.num_params(), 4u * (4 * 3 + 3 + 3 * 3 + 3));
    EXPECT_EQ(module::to_string(lstm), "Lstm {d_input: 4, d_hidden: 3, bias: true, params: 108}");
    const auto [y, s] = lstm.forward(Tensor<B, 3>::ones({2, 5, 4}));
    EXPECT_EQ(y.dims(), (std::array<std::size_t, 3>{2, 5, 3}));
    EXPECT_EQ(s.cell.dims(), (std::array<std::size_t, 2>{2, 3}));

    EXPECT_BURN_ERROR((nn::LstmConfig{.d_input = 0, .d_hidden = 3, .bias = true}.init<B>()),
                      "LstmConfig::init: d_input and d_hidden must be positive, got d_input = 0");
    EXPECT_BURN_ERROR(lstm.forward(Tensor<B, 3>::ones({2, 5, 3})),
                      "Lstm::forward: expected an input of shape [batch, seq, 4]");
    EXPECT_BURN_ERROR(lstm.forward(Tensor<B, 3>::ones({2, 0, 4})), "the sequence is empty");
    EXPECT_BURN_ERROR(
        lstm.forward(Tensor<B, 3>::ones({2, 5, 4}),
                     nn::LstmState<B, 2>{Tensor<B, 2>::zeros({2, 4}), Tensor<B, 2>::zeros({2, 3})}),
        "Lstm::forward: expected an initial cell state of shape [2, 3]");
    EXPECT_BURN_ERROR(nn::LstmConfig::from_json_string(R"({"d_input": 1, "d_hidden": 1})"),
                      "LstmConfig.bias: missing required field");
    // A module built field by field whose d_hidden disagrees with its gates.
    auto bad = lstm;
    bad.d_hidden = 2;
    EXPECT_BURN_ERROR(bad.forward(Tensor<B, 3>::ones({2, 5, 4})),
                      "Lstm::forward: every gate needs an input transform [4, 2]");
}

TEST(NnLstm, GatesWithoutBiasCountAsZeroBias) {
    // Only some transforms with a bias: the others add nothing (as a zero bias would).
    B::seed(9);
    auto with = nn::LstmConfig{.d_input = 3, .d_hidden = 2, .bias = true}.init<B>();
    auto partial = with;
    partial.forget_gate.hidden_transform.bias.reset();
    auto zeroed = with;
    zeroed.forget_gate.hidden_transform.bias =
        module::Param<Tensor<B, 1>>(Tensor<B, 1>::zeros({2}));
    const auto x = uniform<3, B>({2, 4, 3});
    EXPECT_TRUE(
        close_to(partial.forward(x).first, zeroed.forward(x).first.to_data(), Tolerance{0, 0}));
}

TEST(NnLstm, RecordRoundTrip) {
    const auto a = nn::LstmConfig{.d_input = 3, .d_hidden = 2, .bias = true}.init<B>();
    auto b = nn::LstmConfig{.d_input = 3, .d_hidden = 2, .bias = true}.init<B>();
    const record::BinBytesRecorder<record::FullPrecisionSettings> recorder;
    b = b.load_record(recorder.from_bytes(recorder.to_bytes(a.into_record())));
    EXPECT_TRUE(close_to(b.forget_gate.hidden_transform.weight.val(),
                         a.forget_gate.hidden_transform.weight.val().to_data(), Tolerance{0, 0}));
}

// ================================================================================== BiLstm
TEST(NnBiLstm, MatchesTorch) {
    for (const char* name : {"bilstm", "bilstm_state_seq_first"}) {
        TorchCase c(std::string(kFile), name);
        const bool bias = c.param("bias"), state = c.param("state"),
                   batch_first = c.param("batch_first");
        const std::size_t h = c.param("d_hidden");
        const auto x = c.input<3>("x");
        const nn::BiLstm<ADF> m{lstm_from(c, "forward_lstm.", bias, h, true, false),
                                lstm_from(c, "reverse_lstm.", bias, h, true, false), h,
                                batch_first};
        std::optional<nn::LstmState<ADF, 3>> s0;
        if (state) s0 = nn::LstmState<ADF, 3>{c.input<3>("c0"), c.input<3>("h0")};
        auto [out, s] = m.forward(x, s0);
        if (!batch_first) out = out.swap_dims(0, 1);
        c.check(Tensor<ADF, 2>::cat(
            {flat(out), flat(s.cell.swap_dims(0, 1)), flat(s.hidden.swap_dims(0, 1))}, 1));
    }
}

TEST(NnBiLstm, ConfigDisplayAndErrors) {
    const nn::BiLstmConfig config{.d_input = 2, .d_hidden = 3, .bias = false};
    EXPECT_EQ(nn::BiLstmConfig::from_json_string(config.to_json_string()), config);
    const auto m = config.init<B>();
    EXPECT_EQ(module::to_string(m), "BiLstm {d_input: 2, d_hidden: 3, bias: false, params: 120}");
    const auto [y, s] = m.forward(Tensor<B, 3>::ones({4, 5, 2}));
    EXPECT_EQ(y.dims(), (std::array<std::size_t, 3>{4, 5, 6}));
    EXPECT_EQ(s.hidden.dims(), (std::array<std::size_t, 3>{2, 4, 3}));
    EXPECT_BURN_ERROR(m.forward(Tensor<B, 3>::ones({4, 5, 2}),
                                nn::LstmState<B, 3>{Tensor<B, 3>::zeros({2, 4, 3}),
                                                    Tensor<B, 3>::zeros({1, 4, 3})}),
                      "BiLstm::forward: expected an initial hidden state of shape [2, 4, 3]");
}

// ===================================================================================== Gru
TEST(NnGru, MatchesTorch) {
    for (const char* name : {"gru", "gru_state_no_bias", "gru_reset_before"}) {
        TorchCase c(std::string(kFile), name);
        const bool bias = c.param("bias"), state = c.param("state"),
                   reset_after = c.param("reset_after");
        const std::size_t h = c.param("d_hidden");
        const auto x = c.input<3>("x");
        const nn::Gru<ADF> m{gate(c, "", "update_gate", bias), gate(c, "", "reset_gate", bias),
                             gate(c, "", "new_gate", bias), h, reset_after};
        std::optional<Tensor<ADF, 2>> h0;
        if (state) h0 = c.input<2>("h0");
        c.check(flat(m.forward(x, h0)));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnGru, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    // The sequence with its fused weights (columns r, z, n): x, wx, bx, wh, bh, h0.
    for (const bool reset_after : {true, false}) {
        EXPECT_TRUE(gradcheck(
            [reset_after](const Tensor<AD, 3>& x, const Tensor<AD, 2>& wx, const Tensor<AD, 1>& bx,
                          const Tensor<AD, 2>& wh, const Tensor<AD, 1>& bh,
                          const Tensor<AD, 2>& h0) {
                return nn::rnn_detail::GruOps<AD>::run(x, wx, bx, wh, bh, h0, reset_after);
            },
            uniform<3>({2, 3, 2}), uniform<2>({2, 9}, -1, 1, 8), uniform<1>({9}, -1, 1, 10),
            uniform<2>({3, 9}, -1, 1, 9), uniform<1>({9}, -1, 1, 12),
            uniform<2>({2, 3}, -1, 1, 11)));
        // No initial state, biases on one side only.
        EXPECT_TRUE(gradcheck(
            [reset_after](const Tensor<AD, 3>& x, const Tensor<AD, 2>& wx, const Tensor<AD, 2>& wh,
                          const Tensor<AD, 1>& bh) {
                return nn::rnn_detail::GruOps<AD>::run(x, wx, std::nullopt, wh, bh, std::nullopt,
                                                       reset_after);
            },
            uniform<3>({2, 3, 2}), uniform<2>({2, 9}, -1, 1, 8), uniform<2>({3, 9}, -1, 1, 9),
            uniform<1>({9}, -1, 1, 12)));
    }
}

TEST(NnGru, FusedNodeMatchesOpByOpGraph) {
    // The inner backend's gru_forward, recorded op by op on Autodiff, against the fused node.
    for (const bool reset_after : {true, false}) {
        const auto x = uniform<3, ADF>({3, 6, 4}).require_grad();
        const auto wx = uniform<2, ADF>({4, 15}, -1, 1, 2).require_grad();
        const auto bx = uniform<1, ADF>({15}, -1, 1, 3).require_grad();
        const auto wh = uniform<2, ADF>({5, 15}, -1, 1, 4).require_grad();
        const auto bh = uniform<1, ADF>({15}, -1, 1, 5).require_grad();
        const auto h0 = uniform<2, ADF>({3, 5}, -1, 1, 6).require_grad();
        const auto gy = uniform<3, ADF>({3, 6, 5}, -1, 1, 7);
        const auto fused = nn::rnn_detail::GruOps<ADF>::run(x, wx, bx, wh, bh, h0, reset_after);
        const auto ref = nn::rnn_detail::gru_forward<ADF>(x, wx, bx, wh, bh, h0, reset_after);
        EXPECT_TRUE(close_to(fused, ref.to_data(), Tolerance{1e-5, 1e-5}));
        const auto gf = (fused * gy).sum().backward();
        const auto gr = (ref * gy).sum().backward();
        for (const auto& [t, what] : std::vector<std::pair<Tensor<ADF, 2>, const char*>>{
                 {wx, "wx"}, {wh, "wh"}, {h0, "h0"}}) {
            EXPECT_TRUE(close_to(*t.grad(gf), t.grad(gr)->to_data(), Tolerance{1e-5, 1e-5}))
                << what;
        }
        EXPECT_TRUE(close_to(*x.grad(gf), x.grad(gr)->to_data(), Tolerance{1e-5, 1e-5}));
        EXPECT_TRUE(close_to(*bx.grad(gf), bx.grad(gr)->to_data(), Tolerance{1e-5, 1e-5}));
        EXPECT_TRUE(close_to(*bh.grad(gf), bh.grad(gr)->to_data(), Tolerance{1e-5, 1e-5}));
    }
}

TEST(NnGru, ConfigDisplayAndErrors) {
    const nn::GruConfig config{.d_input = 2, .d_hidden = 3, .bias = true};
    EXPECT_TRUE(config.reset_after);
    EXPECT_EQ(config.initializer, nn::Initializer(nn::Initializer::XavierNormal{.gain = 1.0}));
    EXPECT_EQ(nn::GruConfig::from_json_string(config.to_json_string()), config);
    const auto m = config.init<B>();
    EXPECT_EQ(module::to_string(m),
              "Gru {d_input: 2, d_hidden: 3, bias: true, reset_after: true, params: 63}");
    EXPECT_EQ(m.forward(Tensor<B, 3>::ones({4, 5, 2})).dims(),
              (std::array<std::size_t, 3>{4, 5, 3}));
    EXPECT_BURN_ERROR((nn::GruConfig{.d_input = 2, .d_hidden = 0, .bias = true}.init<B>()),
                      "GruConfig::init: d_input and d_hidden must be positive");
    EXPECT_BURN_ERROR(m.forward(Tensor<B, 3>::ones({4, 5, 3})),
                      "Gru::forward: expected an input of shape [batch, seq, 2]");
    EXPECT_BURN_ERROR(m.forward(Tensor<B, 3>::ones({4, 5, 2}), Tensor<B, 2>::zeros({4, 2})),
                      "Gru::forward: expected an initial hidden state of shape [4, 3]");
}

// =================================================================================== BiGru
TEST(NnBiGru, MatchesTorch) {
    for (const char* name : {"bigru", "bigru_state_seq_first"}) {
        TorchCase c(std::string(kFile), name);
        const bool bias = c.param("bias"), state = c.param("state"),
                   batch_first = c.param("batch_first");
        const std::size_t h = c.param("d_hidden");
        const auto x = c.input<3>("x");
        const auto gru = [&](const std::string& p) {
            return nn::Gru<ADF>{gate(c, p, "update_gate", bias), gate(c, p, "reset_gate", bias),
                                gate(c, p, "new_gate", bias), h, true};
        };
        const nn::BiGru<ADF> m{gru("forward_gru."), gru("reverse_gru."), h, batch_first};
        std::optional<Tensor<ADF, 3>> h0;
        if (state) h0 = c.input<3>("h0");
        auto [out, hn] = m.forward(x, h0);
        if (!batch_first) out = out.swap_dims(0, 1);
        c.check(Tensor<ADF, 2>::cat({flat(out), flat(hn.swap_dims(0, 1))}, 1));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnBiGru, ReverseGradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    for (const bool reset_after : {true, false}) {
        EXPECT_TRUE(gradcheck(
            [reset_after](const Tensor<AD, 3>& x, const Tensor<AD, 2>& wx, const Tensor<AD, 1>& bx,
                          const Tensor<AD, 2>& wh, const Tensor<AD, 1>& bh,
                          const Tensor<AD, 2>& h0) {
                return nn::rnn_detail::GruOps<AD>::run(x, wx, bx, wh, bh, h0, reset_after, true);
            },
            uniform<3>({2, 4, 2}), uniform<2>({2, 9}, -1, 1, 8), uniform<1>({9}, -1, 1, 10),
            uniform<2>({3, 9}, -1, 1, 9), uniform<1>({9}, -1, 1, 12),
            uniform<2>({2, 3}, -1, 1, 11)));
    }
}

TEST(NnBiGru, ConfigDisplayAndErrors) {
    const nn::BiGruConfig config{.d_input = 2, .d_hidden = 3, .bias = true};
    EXPECT_TRUE(config.reset_after);
    EXPECT_TRUE(config.batch_first);
    EXPECT_EQ(nn::BiGruConfig::from_json_string(config.to_json_string()), config);
    const auto m = config.init<B>();
    EXPECT_EQ(module::to_string(m), "BiGru {d_input: 2, d_hidden: 3, bias: true, params: 126}");
    const auto [y, hn] = m.forward(Tensor<B, 3>::ones({4, 5, 2}));
    EXPECT_EQ(y.dims(), (std::array<std::size_t, 3>{4, 5, 6}));
    EXPECT_EQ(hn.dims(), (std::array<std::size_t, 3>{2, 4, 3}));
    EXPECT_BURN_ERROR(m.forward(Tensor<B, 3>::ones({4, 5, 2}), Tensor<B, 3>::zeros({1, 4, 3})),
                      "BiGru::forward: expected an initial hidden state of shape [2, 4, 3]");
    EXPECT_BURN_ERROR((nn::BiGruConfig{.d_input = 0, .d_hidden = 3, .bias = true}.init<B>()),
                      "BiGruConfig::init: d_input and d_hidden must be positive");
}

// ========================================================================== GateController
TEST(NnGateController, InitAndGateProduct) {
    B::seed(5);
    const auto g = nn::GateController<B>::init(4, 3, true, nn::Initializer::Ones{});
    EXPECT_EQ(g.input_transform.weight.shape(), Shape({4, 3}));
    EXPECT_EQ(g.hidden_transform.weight.shape(), Shape({3, 3}));
    // Ones everywhere: each output is sum(x) + 1 + sum(h) + 1.
    const auto y = g.gate_product(Tensor<B, 2>::ones({2, 4}), Tensor<B, 2>::ones({2, 3}));
    EXPECT_TRUE(close_to(y, TensorData::full(Shape{2, 3}, 9.0f), Tolerance{0, 0}));
    // XavierNormal (gain 1): std = sqrt(2 / (fan_in + fan_out)).
    using D = Cpu<double>;
    const auto big =
        nn::GateController<D>::init(300, 200, true, nn::Initializer::XavierNormal{.gain = 1.0});
    const auto w = big.input_transform.weight.val();
    const double sd = std::sqrt((w * w).mean().into_scalar());
    EXPECT_NEAR(sd, std::sqrt(2.0 / 500.0), 0.02 * std::sqrt(2.0 / 500.0));
}

}  // namespace
}  // namespace burn::testing::nn_rnn

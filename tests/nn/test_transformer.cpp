// SPDX-License-Identifier: MIT OR Apache-2.0
// nn::MultiHeadAttention, nn::PositionWiseFeedForward, nn::TransformerEncoder / Decoder,
// nn::PositionalEncoding, nn::RotaryEncoding and the mask helpers: forward values and gradients
// against PyTorch (tests/fixtures/nn_transformer.json), finite differences, the autoregressive
// caches against the uncached forward, configs, errors and display.
#include <unistd.h>

#include <burn/nn/attention.hpp>
#include <burn/nn/mask.hpp>
#include <burn/nn/pos_encoding.hpp>
#include <burn/nn/pwff.hpp>
#include <burn/nn/rope.hpp>
#include <burn/nn/transformer.hpp>
#include <burn/record/pytorch.hpp>
#include <burn/record/recorder.hpp>
#include <filesystem>
#include <string>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::nn_transformer {
namespace {

using B = TestFloatBackend;
constexpr std::string_view kFile = "nn_transformer";
constexpr std::size_t kD = 4, kH = 2;  // the fixture's d_model and heads

static_assert(module::check_fields<nn::MultiHeadAttention<B>>());
static_assert(module::check_fields<nn::PositionWiseFeedForward<B>>());
static_assert(module::check_fields<nn::TransformerEncoderLayer<B>>());
static_assert(module::check_fields<nn::TransformerEncoder<B>>());
static_assert(module::check_fields<nn::TransformerDecoderLayer<B>>());
static_assert(module::check_fields<nn::TransformerDecoder<B>>());
static_assert(module::check_fields<nn::PositionalEncoding<B>>());
static_assert(module::check_fields<nn::RotaryEncoding<B>>());

// ---------------------------------------------------------- modules from fixture parameters
nn::Linear<ADF> linear(TorchCase& c, const std::string& p) {
    return {c.param<2>(p + ".weight"), c.param<1>(p + ".bias")};
}
nn::MultiHeadAttention<ADF> mha(TorchCase& c, const std::string& p) {
    return {linear(c, p + "query"),
            linear(c, p + "key"),
            linear(c, p + "value"),
            linear(c, p + "output"),
            nn::Dropout{0.0},
            kD,
            kH,
            kD / kH,
            -1.0e4,
            false};
}
nn::LayerNorm<ADF> norm(TorchCase& c, const std::string& p) {
    return {c.param<1>(p + ".gamma"), c.param<1>(p + ".beta"), 1e-5};
}
nn::FeedForwardActivation act(TorchCase& c) {
    return c.param("activation").get<std::string>() == "relu" ? nn::FeedForwardActivation::Relu
                                                              : nn::FeedForwardActivation::Gelu;
}
nn::PositionWiseFeedForward<ADF> pwff(TorchCase& c, const std::string& p,
                                      nn::FeedForwardActivation a) {
    return {linear(c, p + "linear_inner"), linear(c, p + "linear_outer"), nn::Dropout{0.0}, a};
}
nn::TransformerEncoderLayer<ADF> encoder_layer(TorchCase& c, const std::string& p,
                                               bool norm_first) {
    return {mha(c, p + "mha."),    pwff(c, p + "pwff.", act(c)),
            norm(c, p + "norm_1"), norm(c, p + "norm_2"),
            nn::Dropout{0.0},      norm_first};
}
nn::TransformerDecoderLayer<ADF> decoder_layer(TorchCase& c, const std::string& p,
                                               bool norm_first) {
    return {mha(c, p + "cross_attn."),
            mha(c, p + "self_attn."),
            pwff(c, p + "pwff.", act(c)),
            norm(c, p + "norm_1"),
            norm(c, p + "norm_2"),
            norm(c, p + "norm_3"),
            nn::Dropout{0.0},
            norm_first};
}

// ========================================================================= MultiHeadAttention
TEST(NnMultiHeadAttention, SelfAttentionMatchesTorch) {
    {
        TorchCase c(std::string(kFile), "mha_self");
        const auto m = mha(c, "");
        c.check(m.forward(nn::MhaInput<ADF>::self_attn(c.input<3>("x"))).context);
    }
    {
        // The weights do not depend on the value and output projections: those are loaded
        // untracked (the fixture has no gradient for them).
        TorchCase c(std::string(kFile), "mha_self_weights");
        const auto fixed = [&](const std::string& p) {
            return nn::Linear<ADF>{fixture_input<ADF, 2>(kFile, "mha_self_weights", p + ".weight"),
                                   fixture_input<ADF, 1>(kFile, "mha_self_weights", p + ".bias")};
        };
        const nn::MultiHeadAttention<ADF> m{linear(c, "query"),
                                            linear(c, "key"),
                                            fixed("value"),
                                            fixed("output"),
                                            nn::Dropout{0.0},
                                            kD,
                                            kH,
                                            kD / kH,
                                            -1.0e4,
                                            false};
        c.check(m.forward(nn::MhaInput<ADF>::self_attn(c.input<3>("x"))).weights);
    }
}

TEST(NnMultiHeadAttention, CrossAttentionWithMasksMatchesTorch) {
    TorchCase c(std::string(kFile), "mha_cross_masked");
    const auto m = mha(c, "");
    const auto input =
        nn::MhaInput<ADF>::make(c.input<3>("query"), c.input<3>("key"), c.input<3>("value"))
            .with_mask_pad(c.bools<2>("mask_pad"))
            .with_mask_attn(c.bools<3>("mask_attn"));
    const auto out = m.forward(input);
    EXPECT_EQ(out.weights.shape(), Shape({2, kH, 3, 5}));
    // Masked keys get (numerically) zero weight.
    EXPECT_LT(out.weights.inner().narrow(3, 3, 2).narrow(0, 0, 1).abs().max().into_scalar(), 1e-30);
    c.check(out.context);
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnMultiHeadAttention, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    auto m = nn::MultiHeadAttentionConfig{.d_model = 6, .n_heads = 3, .dropout = 0.0}.init<AD>();
    const auto mask = Tensor<AD, 2, Bool>::from_bools(
        {{false, false, true, false}, {false, false, false, false}});
    // Parameters are detached leaves (module::Param), so only the inputs are checked here; the
    // parameter gradients are compared with PyTorch above.
    for (bool quiet : {false, true}) {
        auto mq = m;
        mq.quiet_softmax = quiet;
        EXPECT_TRUE(gradcheck(
            [&](const Tensor<AD, 3>& q, const Tensor<AD, 3>& k, const Tensor<AD, 3>& v) {
                return mq.forward(nn::MhaInput<AD>::make(q, k, v).with_mask_pad(mask)).context;
            },
            uniform<3>({2, 3, 6}, -1, 1, 1), uniform<3>({2, 4, 6}, -1, 1, 2),
            uniform<3>({2, 4, 6}, -1, 1, 3)));
    }
}

TEST(NnMultiHeadAttention, ConfigInitAndDisplay) {
    const auto m = nn::MultiHeadAttentionConfig{.d_model = 8, .n_heads = 2}.init<B>();
    EXPECT_EQ(m.d_k, 4u);
    EXPECT_EQ(m.query.weight.shape(), Shape({8, 8}));
    EXPECT_EQ(m.num_params(), 4u * (64u + 8u));
    EXPECT_DOUBLE_EQ(m.dropout.prob, 0.1);
    EXPECT_DOUBLE_EQ(m.min_float, -1.0e4);
    // Burn's default initializer: uniform on +-1/sqrt(d_model).
    EXPECT_LE(m.key.weight.val().abs().max().into_scalar(), 1.0 / std::sqrt(8.0));
    EXPECT_EQ(module::to_string(m),
              "MultiHeadAttention {d_model: 8, n_heads: 2, d_k: 4, "
              "dropout: 0.1, min_float: -10000, quiet_softmax: false, "
              "params: 288}");
    const auto no_bias =
        nn::MultiHeadAttentionConfig{.d_model = 4, .n_heads = 1, .enable_key_bias = false}
            .init<B>();
    EXPECT_FALSE(no_bias.key.bias.has_value());
    EXPECT_TRUE(no_bias.value.bias.has_value());
    const auto config =
        nn::MultiHeadAttentionConfig{.d_model = 8, .n_heads = 2, .quiet_softmax = true};
    EXPECT_EQ(nn::MultiHeadAttentionConfig::from_json_string(config.to_json_string()), config);
}

TEST(NnMultiHeadAttention, InvalidInputsThrow) {
    EXPECT_BURN_ERROR((nn::MultiHeadAttentionConfig{.d_model = 10, .n_heads = 3}.init<B>()),
                      "n_heads must divide d_model, got d_model = 10, n_heads = 3");
    EXPECT_BURN_ERROR((nn::MultiHeadAttentionConfig{.d_model = 4, .n_heads = 0}.init<B>()),
                      "n_heads");
    EXPECT_BURN_ERROR(
        (nn::MultiHeadAttentionConfig{.d_model = 4, .n_heads = 2, .dropout = 1.0}.init<B>()),
        "dropout");
    const auto m = nn::MultiHeadAttentionConfig{.d_model = 4, .n_heads = 2}.init<B>();
    EXPECT_BURN_ERROR(m.forward(nn::MhaInput<B>::self_attn(Tensor<B, 3>::ones({2, 3, 5}))),
                      "MultiHeadAttention::forward");
    EXPECT_BURN_ERROR(m.forward(nn::MhaInput<B>::make(Tensor<B, 3>::ones({2, 3, 4}),
                                                      Tensor<B, 3>::ones({2, 5, 4}),
                                                      Tensor<B, 3>::ones({2, 4, 4}))),
                      "share the batch size");
    EXPECT_BURN_ERROR(m.forward(nn::MhaInput<B>::self_attn(Tensor<B, 3>::ones({2, 3, 4}))
                                    .with_mask_pad(Tensor<B, 2, Bool>::empty({2, 4}))),
                      "mask_pad must be [batch, seq_k] = [2, 3]");
    EXPECT_BURN_ERROR(m.forward(nn::MhaInput<B>::self_attn(Tensor<B, 3>::ones({2, 3, 4}))
                                    .with_mask_attn(Tensor<B, 3, Bool>::empty({2, 3, 4}))),
                      "mask_attn must be");
}

TEST(NnMultiHeadAttention, QuietSoftmaxAndDropout) {
    auto m =
        nn::MultiHeadAttentionConfig{
            .d_model = 4, .n_heads = 2, .dropout = 0.0, .quiet_softmax = true}
            .init<B>();
    const auto w = m.forward(nn::MhaInput<B>::self_attn(uniform<3, B>({1, 3, 4}))).weights;
    // softmax1: every row sums to less than one.
    EXPECT_LT(w.sum_dim(3).max().into_scalar(), 1.0f);
    // Dropout (on the scores) is random on autodiff backends, the identity elsewhere.
    const auto xa = uniform<3, ADF>({1, 3, 4});
    auto da = nn::MultiHeadAttentionConfig{.d_model = 4, .n_heads = 2, .dropout = 0.5}.init<ADF>();
    EXPECT_FALSE(close_to(da.forward(nn::MhaInput<ADF>::self_attn(xa)).weights,
                          da.forward(nn::MhaInput<ADF>::self_attn(xa)).weights.to_data(),
                          Tolerance{1e-6, 1e-6}));
    auto d = nn::MultiHeadAttentionConfig{.d_model = 4, .n_heads = 2, .dropout = 0.5}.init<B>();
    const auto x = uniform<3, B>({1, 3, 4});
    EXPECT_TRUE(close_to(d.forward(nn::MhaInput<B>::self_attn(x)).context,
                         d.forward(nn::MhaInput<B>::self_attn(x)).context.to_data(),
                         Tolerance{0, 0}));
}

// ================================================================ PositionWiseFeedForward
TEST(NnPositionWiseFeedForward, MatchesTorch) {
    for (const char* name : {"pwff_gelu", "pwff_relu"}) {
        TorchCase c(std::string(kFile), name);
        const auto a = std::string(name) == "pwff_relu" ? nn::FeedForwardActivation::Relu
                                                        : nn::FeedForwardActivation::Gelu;
        c.check(pwff(c, "", a).forward(c.input<3>("x")));
    }
}

TEST(NnPositionWiseFeedForward, ConfigAndDisplay) {
    const auto ff = nn::PositionWiseFeedForwardConfig{.d_model = 2, .d_ff = 4}.init<B>();
    EXPECT_EQ(module::to_string(ff),
              "PositionWiseFeedForward {d_model: 2, d_ff: 4, prob: 0.1, "
              "params: 22}");
    EXPECT_EQ(ff.activation, nn::FeedForwardActivation::Gelu);
    auto config = nn::PositionWiseFeedForwardConfig{
        .d_model = 2, .d_ff = 4, .activation = nn::FeedForwardActivation::Relu};
    EXPECT_NE(config.to_json_string().find("\"activation\": \"Relu\""), std::string::npos);
    EXPECT_EQ(nn::PositionWiseFeedForwardConfig::from_json_string(config.to_json_string()), config);
    EXPECT_BURN_ERROR(nn::PositionWiseFeedForwardConfig::from_json_string(
                          R"({"d_model": 2, "d_ff": 4, "activation": "Swish"})"),
                      "activation");
    EXPECT_BURN_ERROR((nn::PositionWiseFeedForwardConfig{.d_model = 0, .d_ff = 4}.init<B>()),
                      "d_model");
    EXPECT_BURN_ERROR(ff.forward(Tensor<B, 2>::ones({3, 3})), "PositionWiseFeedForward::forward");
}

// ==================================================================== TransformerEncoder
TEST(NnTransformerEncoder, MatchesTorch) {
    for (const char* name : {"encoder_post_relu_pad", "encoder_pre_gelu_causal"}) {
        TorchCase c(std::string(kFile), name);
        const bool norm_first = c.param("norm_first").get<bool>();
        nn::TransformerEncoder<ADF> enc{
            {encoder_layer(c, "layers.0.", norm_first), encoder_layer(c, "layers.1.", norm_first)},
            kD,
            8,
            kH,
            2,
            0.0,
            norm_first,
            false};
        nn::TransformerEncoderInput<ADF> input{c.input<3>("x")};
        if (norm_first) input = input.with_mask_attn(c.bools<3>("mask_attn"));
        else input = input.with_mask_pad(c.bools<2>("mask_pad"));
        c.check(enc.forward(input));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnTransformerEncoder, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    for (bool norm_first : {false, true}) {
        const auto enc = nn::TransformerEncoderConfig{.d_model = 4,
                                                      .d_ff = 6,
                                                      .n_heads = 2,
                                                      .n_layers = 1,
                                                      .dropout = 0.0,
                                                      .norm_first = norm_first,
                                                      .activation = nn::FeedForwardActivation::Tanh}
                             .init<AD>();
        const auto mask = nn::generate_autoregressive_mask<AD>(2, 3);
        EXPECT_TRUE(gradcheck(
            [&](const Tensor<AD, 3>& x) {
                return enc.forward({x, std::nullopt, mask});
            },
            uniform<3>({2, 3, 4}, -1, 1, 11)));
    }
}

/// The autoregressive cache gives the uncached result, step by step (Burn's own test).
TEST(NnTransformerEncoder, AutoregressiveCacheMatchesForward) {
    for (bool norm_first : {false, true}) {
        const auto enc =
            nn::TransformerEncoderConfig{
                .d_model = 12, .d_ff = 24, .n_heads = 2, .n_layers = 3, .norm_first = norm_first}
                .init<B>();
        const std::size_t batch = 3, seq = 4;
        const auto x = uniform<3, B>({batch, seq, 12}, -1, 1, 5);
        const auto full =
            enc.forward({x, std::nullopt, nn::generate_autoregressive_mask<B>(batch, seq)});
        auto cache = enc.new_autoregressive_cache();
        std::vector<Tensor<B, 3>> steps;
        for (std::size_t i = 1; i <= seq; ++i) {
            const auto xi = x.narrow(1, 0, i);
            const auto yi = enc.forward_autoregressive_inference(
                {xi, std::nullopt, nn::generate_autoregressive_mask<B>(batch, i)}, cache);
            EXPECT_EQ(yi.dims()[1], i);
            steps.push_back(yi.narrow(1, i - 1, 1));
        }
        EXPECT_TRUE(close_to(Tensor<B, 3>::cat(steps, 1), full.to_data(), Tolerance{1e-4, 1e-4}))
            << "norm_first " << norm_first;
    }
}

TEST(NnTransformerEncoder, ConfigRecordAndDisplay) {
    const auto config = nn::TransformerEncoderConfig{.d_model = 8,
                                                     .d_ff = 16,
                                                     .n_heads = 2,
                                                     .n_layers = 2,
                                                     .norm_first = true,
                                                     .activation = nn::FeedForwardActivation::Relu};
    const auto json = config.to_json_string();
    EXPECT_NE(json.find("\"activation\": \"Relu\""), std::string::npos);
    EXPECT_NE(json.find("\"attention_dropout\": null"), std::string::npos);
    EXPECT_EQ(nn::TransformerEncoderConfig::from_json_string(json), config);
    const auto enc = config.init<B>();
    ASSERT_EQ(enc.layers.size(), 2u);
    EXPECT_EQ(enc.layers[1].pwff.activation, nn::FeedForwardActivation::Relu);
    EXPECT_TRUE(enc.layers[0].norm_first);
    EXPECT_DOUBLE_EQ(enc.layers[0].mha.dropout.prob, 0.1);
    // Per layer: 4 * (64 + 8) + (128 + 16 + 128 + 8) + 2 * 16 = 600.
    EXPECT_EQ(enc.num_params(), 1200u);
    EXPECT_EQ(module::to_string(enc),
              "TransformerEncoder {d_model: 8, d_ff: 16, n_heads: 2, "
              "n_layers: 2, dropout: 0.1, norm_first: true, "
              "quiet_softmax: false, params: 1200}");
    // Stage-specific dropouts.
    const auto enc2 = nn::TransformerEncoderConfig{.d_model = 4,
                                                   .d_ff = 4,
                                                   .n_heads = 1,
                                                   .n_layers = 1,
                                                   .attention_dropout = 0.2,
                                                   .residual_dropout = 0.3}
                          .init<B>();
    EXPECT_DOUBLE_EQ(enc2.layers[0].mha.dropout.prob, 0.2);
    EXPECT_DOUBLE_EQ(enc2.layers[0].pwff.dropout.prob, 0.1);
    EXPECT_DOUBLE_EQ(enc2.layers[0].dropout.prob, 0.3);
    // valid() rebinds the whole stack to the inner backend.
    const nn::TransformerEncoder<B> inner = config.init<ADF>().valid();
    EXPECT_EQ(inner.num_params(), 1200u);
    const nn::TransformerDecoder<B> dec_inner =
        nn::TransformerDecoderConfig{.d_model = 8, .d_ff = 16, .n_heads = 2, .n_layers = 1}
            .init<ADF>()
            .valid();
    EXPECT_EQ(dec_inner.layers.size(), 1u);
    // Record round trip.
    auto other = config.init<B>();
    const record::BinBytesRecorder<record::FullPrecisionSettings> recorder;
    other = other.load_record(recorder.from_bytes(recorder.to_bytes(enc.into_record())));
    const auto x = uniform<3, B>({2, 3, 8});
    EXPECT_TRUE(close_to(other.forward({x}), enc.forward({x}).to_data(), Tolerance{0, 0}));
}

TEST(NnTransformerEncoder, InvalidInputsThrow) {
    EXPECT_BURN_ERROR(
        (nn::TransformerEncoderConfig{.d_model = 6, .d_ff = 8, .n_heads = 4, .n_layers = 1}
             .init<B>()),
        "TransformerEncoderConfig::init: n_heads must divide d_model");
    EXPECT_BURN_ERROR(
        (nn::TransformerEncoderConfig{.d_model = 4, .d_ff = 8, .n_heads = 2, .n_layers = 0}
             .init<B>()),
        "n_layers");
    EXPECT_BURN_ERROR((nn::TransformerEncoderConfig{
                          .d_model = 4, .d_ff = 8, .n_heads = 2, .n_layers = 1, .ffn_dropout = 1.5}
                           .init<B>()),
                      "dropout");
    const auto enc =
        nn::TransformerEncoderConfig{.d_model = 4, .d_ff = 8, .n_heads = 2, .n_layers = 1}
            .init<B>();
    EXPECT_BURN_ERROR(enc.forward({Tensor<B, 3>::ones({2, 3, 5})}), "TransformerEncoder::forward");
    EXPECT_BURN_ERROR(
        enc.forward({Tensor<B, 3>::ones({2, 3, 4}), Tensor<B, 2, Bool>::empty({2, 2})}),
        "mask_pad");
}

TEST(NnTransformerEncoder, FinalNorm) {
    const auto config =
        nn::TransformerEncoderConfig{.d_model = 8, .d_ff = 16, .n_heads = 2, .n_layers = 2};
    EXPECT_FALSE(config.final_norm);
    const auto with = config.with_final_norm();
    EXPECT_TRUE(with.final_norm);
    EXPECT_EQ(nn::TransformerEncoderConfig::from_json_string(with.to_json_string()), with);
    // Older JSON without the field: off.
    EXPECT_FALSE(nn::TransformerEncoderConfig::from_json_string(
                     R"({"d_model": 8, "d_ff": 16, "n_heads": 2, "n_layers": 2})")
                     .final_norm);

    // Off: no norm, as before (same parameters, no tensor under "norm" in the record).
    const auto plain = config.init<B>();
    EXPECT_FALSE(plain.norm.has_value());
    EXPECT_EQ(plain.num_params(), 1200u);
    const auto plain_record = plain.into_record();
    const auto* none = plain_record.field("norm");
    EXPECT_TRUE(none == nullptr || none->is_none());
    // A record written before the field existed (no "norm" entry) still loads.
    auto old_map = plain_record.as<record::Record::Map>("encoder");
    std::erase_if(old_map, [](const auto& entry) { return entry.first == "norm"; });
    ASSERT_EQ(old_map.size(), 1u);  // layers only
    const auto reloaded = config.init<B>().load_record(record::Record(old_map));
    const auto x0 = uniform<3, B>({2, 3, 8}, -1, 1, 2);
    EXPECT_TRUE(close_to(reloaded.forward({x0}), plain.forward({x0}).to_data(), Tolerance{0, 0}));

    // On: a LayerNorm applied to the last layer's output (also with norm_first).
    for (bool norm_first : {false, true}) {
        auto c = with;
        c.norm_first = norm_first;
        c.dropout = 0.0;
        auto enc = c.init<B>();
        ASSERT_TRUE(enc.norm.has_value());
        EXPECT_EQ(enc.num_params(), 1200u + 16u);
        EXPECT_DOUBLE_EQ(enc.norm->epsilon, 1e-5);
        // Non-trivial gamma / beta, so that the norm's parameters matter.
        enc.norm->gamma = module::Param<Tensor<B, 1>>(uniform<1, B>({8}, 0.5, 1.5, 3));
        enc.norm->beta = module::Param<Tensor<B, 1>>(uniform<1, B>({8}, -0.5, 0.5, 4));
        auto without = enc;
        without.norm = std::nullopt;
        const auto x = uniform<3, B>({2, 3, 8}, -1, 1, 9);
        const auto pad =
            Tensor<B, 2, Bool>::from_bools({{false, false, true}, {false, false, false}});
        const nn::TransformerEncoderInput<B> in{x, pad};
        EXPECT_TRUE(close_to(enc.forward(in), enc.norm->forward(without.forward(in)).to_data(),
                             Tolerance{1e-6, 1e-6}));
        // The autoregressive path ends with the same norm.
        auto cache = enc.new_autoregressive_cache();
        const auto mask = nn::generate_autoregressive_mask<B>(2, 3);
        const auto full = enc.forward({x, std::nullopt, mask});
        Tensor<B, 3> last = x;
        for (std::size_t i = 1; i <= 3; ++i)
            last = enc.forward_autoregressive_inference(
                {x.narrow(1, 0, i), std::nullopt, nn::generate_autoregressive_mask<B>(2, i)},
                cache);
        EXPECT_TRUE(close_to(last, full.to_data(), Tolerance{1e-4, 1e-4}));
        // Recorded as norm.gamma / norm.beta; a record round trip restores it.
        const auto record = enc.into_record();
        ASSERT_NE(record.field("norm"), nullptr);
        EXPECT_NE(record.field("norm")->field("gamma"), nullptr);
        const auto other = c.init<B>().load_record(record);
        EXPECT_TRUE(close_to(other.forward(in), enc.forward(in).to_data(), Tolerance{0, 0}));
        // Displayed only when present.
        EXPECT_NE(module::to_string(enc).find("final_norm: true"), std::string::npos);
    }
    EXPECT_EQ(module::to_string(plain).find("final_norm"), std::string::npos);
    // valid() keeps the norm.
    const nn::TransformerEncoder<B> inner = with.init<ADF>().valid();
    EXPECT_TRUE(inner.norm.has_value());
}

/// PyTorch's nn.TransformerEncoder(norm=LayerNorm) keys its norm `norm.weight` / `norm.bias`.
TEST(NnTransformerEncoder, FinalNormFromPyTorchNames) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("burn_final_norm_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto config = nn::TransformerEncoderConfig{
        .d_model = 4, .d_ff = 8, .n_heads = 2, .n_layers = 2, .dropout = 0.0, .norm_first = true};
    const auto plain = config.init<B>();
    const record::SafetensorsFileRecorder<> recorder;
    // The plain encoder's state dict in PyTorch's names, plus a final norm as torch writes it.
    auto dict = record::read_safetensors_file(recorder.save(plain, dir / "plain")).tensors;
    const std::vector<float> w{1.5f, 0.5f, 2.0f, 1.0f}, b{0.1f, -0.2f, 0.3f, 0.0f};
    dict.push_back({"norm.weight", TensorData(w, Shape{4})});
    dict.push_back({"norm.bias", TensorData(b, Shape{4})});
    record::write_safetensors_file(dir / "with_norm.safetensors", dict);
    const auto normed_init = config.with_final_norm().init<B>();
    const auto normed = normed_init.load_record(
        recorder.load(record::LoadArgs(dir / "with_norm.safetensors"), normed_init));
    ASSERT_TRUE(normed.norm.has_value());
    EXPECT_TRUE(equal_to(normed.norm->gamma.val(), TensorData(w, Shape{4})));
    EXPECT_TRUE(equal_to(normed.norm->beta->val(), TensorData(b, Shape{4})));
    const auto x = uniform<3, B>({2, 3, 4}, -1, 1, 21);
    EXPECT_TRUE(close_to(normed.forward({x}), normed.norm->forward(plain.forward({x})).to_data(),
                         Tolerance{1e-5, 1e-5}));
    // Saving writes the norm back under PyTorch's names; a file without them does not load into
    // an encoder that has a final norm.
    const auto saved = record::read_safetensors_file(recorder.save(normed, dir / "saved")).tensors;
    std::size_t norm_keys = 0;
    for (const auto& t : saved) norm_keys += t.key == "norm.weight" || t.key == "norm.bias";
    EXPECT_EQ(norm_keys, 2u);
    EXPECT_EQ(saved.size(), dict.size());
    EXPECT_BURN_ERROR((void)recorder.load(record::LoadArgs(dir / "plain.safetensors"), normed_init),
                      "norm");
    fs::remove_all(dir);
}

TEST(NnTransformerEncoder, FinalNormGradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto enc = nn::TransformerEncoderConfig{.d_model = 4,
                                                  .d_ff = 6,
                                                  .n_heads = 2,
                                                  .n_layers = 1,
                                                  .dropout = 0.0,
                                                  .norm_first = true,
                                                  .activation = nn::FeedForwardActivation::Tanh,
                                                  .final_norm = true}
                         .init<AD>();
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& x) { return enc.forward({x}); },
                          uniform<3>({2, 3, 4}, -1, 1, 12)));
}

// ==================================================================== TransformerDecoder
TEST(NnTransformerDecoder, MatchesTorch) {
    for (const char* name : {"decoder_post_relu", "decoder_pre_gelu"}) {
        TorchCase c(std::string(kFile), name);
        const bool norm_first = c.param("norm_first").get<bool>();
        nn::TransformerDecoder<ADF> dec{
            {decoder_layer(c, "layers.0.", norm_first)}, kD, 8, kH, 1, 0.0, norm_first, false};
        const auto input =
            nn::TransformerDecoderInput<ADF>{c.input<3>("target"), c.input<3>("memory")}
                .with_target_mask_attn(c.bools<3>("target_mask_attn"))
                .with_memory_mask_pad(c.bools<2>("memory_mask_pad"));
        c.check(dec.forward(input));
    }
}

// f64 finite differences (AD in gradcheck.hpp): on a backend without f64 (Vulkan) the test
// skips, and MatchesTorch checks the gradients of the same layers against PyTorch.
TEST(NnTransformerDecoder, GradientsMatchFiniteDifferences) {
    BURN_REQUIRE_FLOAT64();
    const auto dec = nn::TransformerDecoderConfig{.d_model = 4,
                                                  .d_ff = 6,
                                                  .n_heads = 2,
                                                  .n_layers = 1,
                                                  .dropout = 0.0,
                                                  .norm_first = true,
                                                  .activation = nn::FeedForwardActivation::Silu}
                         .init<AD>();
    const auto mask = nn::generate_autoregressive_mask<AD>(2, 3);
    EXPECT_TRUE(gradcheck(
        [&](const Tensor<AD, 3>& t, const Tensor<AD, 3>& m) {
            return dec.forward(nn::TransformerDecoderInput<AD>{t, m}.with_target_mask_attn(mask));
        },
        uniform<3>({2, 3, 4}, -1, 1, 21), uniform<3>({2, 2, 4}, -1, 1, 22)));
}

TEST(NnTransformerDecoder, AutoregressiveCacheMatchesForward) {
    for (bool norm_first : {false, true}) {
        const auto dec =
            nn::TransformerDecoderConfig{
                .d_model = 12, .d_ff = 24, .n_heads = 2, .n_layers = 3, .norm_first = norm_first}
                .init<B>();
        const std::size_t batch = 3, seq = 4;
        const auto target = uniform<3, B>({batch, seq, 12}, -1, 1, 6);
        const auto memory = uniform<3, B>({batch, 5, 12}, -1, 1, 7);
        const auto full =
            dec.forward(nn::TransformerDecoderInput<B>{target, memory}.with_target_mask_attn(
                nn::generate_autoregressive_mask<B>(batch, seq)));
        auto cache = dec.new_autoregressive_cache();
        std::vector<Tensor<B, 3>> steps;
        for (std::size_t i = 1; i <= seq; ++i) {
            const auto yi = dec.forward_autoregressive_inference(
                nn::TransformerDecoderInput<B>{target.narrow(1, 0, i), memory}
                    .with_target_mask_attn(nn::generate_autoregressive_mask<B>(batch, i)),
                cache);
            steps.push_back(yi.narrow(1, i - 1, 1));
        }
        EXPECT_TRUE(close_to(Tensor<B, 3>::cat(steps, 1), full.to_data(), Tolerance{1e-4, 1e-4}))
            << "norm_first " << norm_first;
    }
}

TEST(NnTransformerDecoder, ConfigAndErrors) {
    const auto config =
        nn::TransformerDecoderConfig{.d_model = 8, .d_ff = 16, .n_heads = 2, .n_layers = 1};
    EXPECT_EQ(nn::TransformerDecoderConfig::from_json_string(config.to_json_string()), config);
    const auto dec = config.init<B>();
    // 2 * 288 + 280 + 3 * 16 = 904.
    EXPECT_EQ(dec.num_params(), 904u);
    EXPECT_EQ(module::to_string(dec),
              "TransformerDecoder {d_model: 8, d_ff: 16, n_heads: 2, "
              "n_layers: 1, dropout: 0.1, norm_first: false, "
              "quiet_softmax: false, params: 904}");
    EXPECT_BURN_ERROR(dec.forward({Tensor<B, 3>::ones({2, 3, 8}), Tensor<B, 3>::ones({2, 3, 7})}),
                      "TransformerDecoder::forward: the memory");
    EXPECT_BURN_ERROR(
        (nn::TransformerDecoderConfig{.d_model = 8, .d_ff = 16, .n_heads = 3, .n_layers = 1}
             .init<B>()),
        "n_heads must divide d_model");
}

// =================================================================================== masks
TEST(NnMask, AutoregressiveMask) {
    const auto mask = nn::generate_autoregressive_mask<B>(2, 3);
    EXPECT_TRUE(
        equal_to(mask, Tensor<B, 3, Bool>::from_bools(
                           {{{false, true, true}, {false, false, true}, {false, false, false}},
                            {{false, true, true}, {false, false, true}, {false, false, false}}})
                           .to_data()));
    EXPECT_BURN_ERROR(nn::generate_autoregressive_mask<B>(0, 3), "generate_autoregressive_mask");
}

TEST(NnMask, PaddingMask) {
    const std::vector<std::vector<std::size_t>> tokens{
        {3, 3, 3}, {3, 3, 3}, {3, 3, 3, 4}, {3, 3, 3, 4, 10, 15}};
    const auto m = nn::generate_padding_mask<B>(0, tokens, std::nullopt);
    EXPECT_TRUE(equal_to(
        m.mask, Tensor<B, 2, Bool>::from_bools({{false, false, false, true, true, true},
                                                {false, false, false, true, true, true},
                                                {false, false, false, false, true, true},
                                                {false, false, false, false, false, false}})
                    .to_data()));
    EXPECT_TRUE(equal_to(
        m.tensor,
        Tensor<B, 2, Int>::from_ints(
            {{3, 3, 3, 0, 0, 0}, {3, 3, 3, 0, 0, 0}, {3, 3, 3, 4, 0, 0}, {3, 3, 3, 4, 10, 15}})
            .to_data()));
    // A maximum truncates; a fixed length pads or truncates.
    const auto max = nn::generate_padding_mask<B>(9, tokens, std::optional<std::size_t>(4));
    EXPECT_EQ(max.tensor.shape(), Shape({4, 4}));
    EXPECT_TRUE(equal_to(max.tensor.narrow(0, 0, 1),
                         Tensor<B, 2, Int>::from_ints({{3, 3, 3, 9}}).to_data()));
    const auto fixed = nn::generate_padding_mask<B>(0, {{1, 2}}, nn::SeqLengthOption::fixed(5));
    EXPECT_TRUE(equal_to(
        fixed.mask, Tensor<B, 2, Bool>::from_bools({{false, false, true, true, true}}).to_data()));
}

TEST(NnMask, MaskedMeanOverUnpaddedPositions) {
    // Row 0 keeps positions 0 and 1, row 1 keeps position 2 only, row 2 is all padding.
    const auto x = Tensor<B, 3>::from_floats({{{1, 2}, {3, 4}, {100, 100}},
                                              {{100, 100}, {100, 100}, {5, -6}},
                                              {{7, 8}, {9, 10}, {11, 12}}});
    const auto pad = Tensor<B, 2, Bool>::from_bools(
        {{false, false, true}, {true, true, false}, {true, true, true}});
    const auto y = nn::masked_mean(x, pad);
    EXPECT_EQ(y.shape(), Shape({3, 2}));
    EXPECT_TRUE(close_to(y, Tensor<B, 2>::from_floats({{2, 3}, {5, -6}, {0, 0}}).to_data()));
    // Nothing padded: the plain mean over dim 1.
    const auto none = Tensor<B, 2, Bool>::from_bools(
        {{false, false, false}, {false, false, false}, {false, false, false}});
    EXPECT_TRUE(close_to(nn::masked_mean(x, none), x.mean_dim(1).squeeze<2>(1).to_data()));
    // Padded NaN / infinity never leak into the result.
    const auto bad = Tensor<B, 3>::from_floats({{{1, 1}, {NAN, INFINITY}}});
    const auto bad_pad = Tensor<B, 2, Bool>::from_bools({{false, true}});
    EXPECT_TRUE(
        close_to(nn::masked_mean(bad, bad_pad), Tensor<B, 2>::from_floats({{1, 1}}).to_data()));
    // With generate_padding_mask's mask.
    const auto padded = nn::generate_padding_mask<B>(0, {{4, 5, 6}, {7}});
    const auto emb = Tensor<B, 3>::from_floats({{{1}, {2}, {3}}, {{4}, {50}, {60}}});
    EXPECT_TRUE(close_to(nn::masked_mean(emb, padded.mask),
                         Tensor<B, 2>::from_floats({{2}, {4}}).to_data()));
    EXPECT_BURN_ERROR(nn::masked_mean(x, Tensor<B, 2, Bool>::from_bools({{false, true}})),
                      "masked_mean: mask_pad must be [batch, seq] = [3, 3]");
}

TEST(NnMask, MaskedMeanGradients) {
    // d sum(masked_mean(x)) / dx = 1 / count at kept positions, 0 at padded ones and in
    // all-padded rows.
    const auto x = uniform<3, ADF>({3, 4, 2}, -1, 1, 5).require_grad();
    const auto pad = Tensor<ADF, 2, Bool>::from_bools(
        {{false, false, false, true}, {false, true, true, true}, {true, true, true, true}});
    auto grads = nn::masked_mean(x, pad).sum().backward();
    const auto g = x.grad(grads);
    ASSERT_TRUE(g.has_value());
    const double t = 1.0 / 3.0;
    EXPECT_TRUE(close_to(*g, Tensor<B, 3>::from_floats({{{t, t}, {t, t}, {t, t}, {0, 0}},
                                                        {{1, 1}, {0, 0}, {0, 0}, {0, 0}},
                                                        {{0, 0}, {0, 0}, {0, 0}, {0, 0}}})
                                 .to_data()));
    EXPECT_FALSE(g->is_nan().any().into_scalar());
    BURN_REQUIRE_FLOAT64();
    const auto pad64 = Tensor<AD, 2, Bool>::from_bools({{false, true, false}, {true, true, true}});
    EXPECT_TRUE(gradcheck([&](const Tensor<AD, 3>& v) { return nn::masked_mean(v, pad64); },
                          uniform<3>({2, 3, 4}, -1, 1, 8)));
}

// ======================================================================== position encodings
TEST(NnPositionalEncoding, MatchesTorch) {
    TorchCase c(std::string(kFile), "pos_encoding");
    const auto pe = nn::PositionalEncodingConfig{.max_sequence_size = 7, .d_model = 6}.init<ADF>();
    c.check(pe.forward(c.input<3>("x")));
}

TEST(NnPositionalEncoding, SinusoidsAndDisplay) {
    // Burn's reference values (from PyTorch's tutorial).
    const auto s = nn::generate_sinusoids<B>(3, 6, 10000);
    EXPECT_TRUE(close_to(
        s,
        Tensor<B, 2>::from_floats({{0.00000, 1.00000, 0.00000, 1.00000, 0.00000, 1.00000},
                                   {0.84147, 0.54030, 0.04640, 0.99892, 0.00215, 1.00000},
                                   {0.90930, -0.41615, 0.09270, 0.99569, 0.00431, 0.99999}})
            .to_data(),
        Tolerance{1e-4, 1e-4}));
    const auto pe = nn::PositionalEncodingConfig{.d_model = 4}.init<B>();
    EXPECT_EQ(module::to_string(pe),
              "PositionalEncoding {d_model: 4, max_sequence_size: 5000, max_timescale: 10000}");
    EXPECT_BURN_ERROR(pe.forward(Tensor<B, 3>::zeros({1, 5, 10})), "PositionalEncoding::forward");
    EXPECT_BURN_ERROR(pe.forward(Tensor<B, 3>::zeros({1, 6000, 4})), "exceeds max_sequence_size");
    EXPECT_BURN_ERROR(nn::PositionalEncodingConfig{.d_model = 5}.init<B>(), "d_model must be even");
    EXPECT_BURN_ERROR(
        (nn::PositionalEncodingConfig{.max_sequence_size = 20000, .d_model = 4}.init<B>()),
        "max_timescale");
}

TEST(NnRotaryEncoding, MatchesTorch) {
    const auto rope = nn::RotaryEncodingConfig{.max_sequence_length = 10, .d_model = 6}.init<ADF>();
    {
        TorchCase c(std::string(kFile), "rope_4d");
        c.check(rope.forward(c.input<4>("x")));
    }
    {
        TorchCase c(std::string(kFile), "rope_3d_start");
        c.check(rope.apply(c.input<3>("x"), 3));
    }
}

TEST(NnRotaryEncoding, BurnValuesShiftAndErrors) {
    auto rope = nn::RotaryEncodingConfig{.max_sequence_length = 10, .d_model = 4}.init<B>();
    const auto x = Tensor<B, 3>::from_floats(
        {{{1, 2, 3, 4}, {5, 6, 7, 8}}, {{9, 10, 11, 12}, {13, 14, 15, 16}}});
    EXPECT_TRUE(close_to(
        rope.forward(x),
        Tensor<B, 3>::from_floats({{{1, 2, 3, 4}, {-2.3473, 7.4492, 6.9197, 8.0696}},
                                   {{9, 10, 11, 12}, {-4.7567, 18.5034, 14.8393, 16.1492}}})
            .to_data(),
        Tolerance{1e-4, 1e-4}));
    EXPECT_EQ(module::to_string(rope), "RotaryEncoding {d_model: 4, max_sequence_length: 10}");
    // After shift(3) position 0 of the window is absolute position 3.
    const auto before = rope.apply(x, 3);
    rope.shift(3);
    EXPECT_TRUE(close_to(rope.apply(x, 0), before.to_data(), Tolerance{1e-5, 1e-5}));
    EXPECT_BURN_ERROR(rope.shift(2), "RotaryEncoding::shift");
    rope.reset();
    EXPECT_EQ(rope.start_offset, 0u);
    EXPECT_TRUE(close_to(rope.apply(x, 3), before.to_data(), Tolerance{1e-5, 1e-5}));
    // A frequency scaling is applied to theta.
    const auto scaled = nn::RotaryEncodingConfig{.max_sequence_length = 4, .d_model = 4}
                            .init_with_frequency_scaling<B>([](Tensor<B, 1> t) { return t * 0.5; });
    EXPECT_NEAR(scaled.theta.to_data().to_vec<float>()[0], 0.5f, 1e-7);
    EXPECT_BURN_ERROR((nn::RotaryEncodingConfig{.max_sequence_length = 4, .d_model = 5}.init<B>()),
                      "d_model must be even");
    EXPECT_BURN_ERROR(rope.apply(x, 9), "exceed max_sequence_length");
    EXPECT_BURN_ERROR(rope.forward(Tensor<B, 3>::zeros({1, 2, 6})), "RotaryEncoding::apply");
}

}  // namespace
}  // namespace burn::testing::nn_transformer

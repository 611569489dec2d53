// SPDX-License-Identifier: MIT OR Apache-2.0
// TransformerEncoder and TransformerDecoder (Burn's nn::transformer; torch.nn.TransformerEncoder /
// TransformerDecoder with batch_first=True): stacks of layers made of multi-head attention, a
// position-wise feed-forward block, residual connections with dropout, and layer norms applied
// after each block (post-norm, the default) or before it (norm_first). The encoder can end with
// a final LayerNorm after its last layer (final_norm; PyTorch's nn.TransformerEncoder(norm=...),
// usual with norm_first, whose layers leave their output unnormalised).
//
//   auto encoder = nn::TransformerEncoderConfig{.d_model = 256, .d_ff = 1024, .n_heads = 8,
//                                               .n_layers = 6}.init<B>(device);
//   auto y = encoder.forward(nn::TransformerEncoderInput<B>{x}.with_mask_pad(pad));
//
// Masks follow Burn: `true` marks a masked-out position. For incremental decoding,
// forward_autoregressive_inference with a cache from new_autoregressive_cache() recomputes only
// the last position of each step (use it with generate_autoregressive_mask).
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "burn/config/config.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/nn/attention.hpp"
#include "burn/nn/dropout.hpp"
#include "burn/nn/initializer.hpp"
#include "burn/nn/layer_norm.hpp"
#include "burn/nn/pwff.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

namespace detail_transformer {
inline void check_common(const char* op, std::size_t d_model, std::size_t d_ff, std::size_t n_heads,
                         std::size_t n_layers, double dropout, double layer_norm_eps) {
    BURN_CHECK(d_model > 0 && d_ff > 0, op,
               ": d_model and d_ff must be positive, got d_model = ", d_model, ", d_ff = ", d_ff);
    BURN_CHECK(n_heads > 0 && d_model % n_heads == 0, op,
               ": n_heads must divide d_model, got "
               "d_model = ",
               d_model, ", n_heads = ", n_heads);
    BURN_CHECK(n_layers > 0, op, ": n_layers must be positive, got 0");
    BURN_CHECK(dropout >= 0.0 && dropout < 1.0, op, ": dropout must be in [0, 1), got ", dropout);
    BURN_CHECK(layer_norm_eps > 0.0, op, ": layer_norm_eps must be positive, got ", layer_norm_eps);
}

template <Backend B>
void check_input(const char* op, const Tensor<B, 3>& x, std::size_t d_model, const char* what) {
    BURN_CHECK(x.dims()[2] == d_model, op, ": ", what, " must be [batch, seq, ", d_model, "], got ",
               x.shape());
}
}  // namespace detail_transformer

// =================================================================================== encoder
template <Backend B>
struct TransformerEncoder;

/// Configuration of TransformerEncoder.
struct TransformerEncoderConfig {
    Required<std::size_t> d_model;
    Required<std::size_t> d_ff;  ///< hidden size of the feed-forward blocks
    Required<std::size_t> n_heads;
    Required<std::size_t> n_layers;
    double dropout = 0.1;
    /// Rates of the attention, feed-forward and residual dropouts; `dropout` when unset.
    std::optional<double> attention_dropout = std::nullopt;
    std::optional<double> ffn_dropout = std::nullopt;
    std::optional<double> residual_dropout = std::nullopt;
    bool norm_first = false;  ///< pre-norm (true) or post-norm (false, PyTorch's default too)
    bool quiet_softmax = false;
    Initializer initializer = Initializer::default_weight();
    FeedForwardActivation activation = FeedForwardActivation::Gelu;
    double layer_norm_eps = 1e-5;
    /// A LayerNorm (epsilon layer_norm_eps) applied to the output of the last layer: the module's
    /// `norm` field, PyTorch's `norm.weight` / `norm.bias`. Off by default (no such field).
    bool final_norm = false;
    BURN_CONFIG(TransformerEncoderConfig, d_model, d_ff, n_heads, n_layers, dropout,
                attention_dropout, ffn_dropout, residual_dropout, norm_first, quiet_softmax,
                initializer, activation, layer_norm_eps, final_norm)

    /// This config with final_norm set.
    TransformerEncoderConfig with_final_norm(bool enabled = true) const {
        auto out = *this;
        out.final_norm = enabled;
        return out;
    }

    template <Backend B>
    TransformerEncoder<B> init(const typename B::Device& device = {}) const;
};

/// The input of TransformerEncoder::forward.
template <Backend B>
struct TransformerEncoderInput {
    Tensor<B, 3> tensor;                                         ///< [batch, seq, d_model]
    std::optional<Tensor<B, 2, Bool>> mask_pad = std::nullopt;   ///< [batch, seq]
    std::optional<Tensor<B, 3, Bool>> mask_attn = std::nullopt;  ///< [batch, seq, seq]

    TransformerEncoderInput with_mask_pad(Tensor<B, 2, Bool> mask) const {
        auto out = *this;
        out.mask_pad = std::move(mask);
        return out;
    }
    TransformerEncoderInput with_mask_attn(Tensor<B, 3, Bool> mask) const {
        auto out = *this;
        out.mask_attn = std::move(mask);
        return out;
    }
};

/// Autoregressive cache of one encoder layer.
template <Backend B>
struct TransformerEncoderLayerAutoregressiveCache {
    MhaCache<B> mha = MhaCache<B>::autoregressive();
    TensorCache<B, 3> pwff;
    TensorCache<B, 3> norm_1;
    TensorCache<B, 3> norm_2;
};

/// Autoregressive cache of a TransformerEncoder (TransformerEncoder::new_autoregressive_cache).
template <Backend B>
struct TransformerEncoderAutoregressiveCache {
    std::vector<TransformerEncoderLayerAutoregressiveCache<B>> layers;
};

/// One encoder layer. Post-norm: x = norm_1(x + attn(x)); x = norm_2(x + ff(x)). Pre-norm:
/// x = x + attn(norm_2(x)); x = x + ff(norm_1(x)) (Burn's naming: note the swap).
template <Backend B>
struct TransformerEncoderLayer {
    MultiHeadAttention<B> mha;
    PositionWiseFeedForward<B> pwff;
    LayerNorm<B> norm_1;
    LayerNorm<B> norm_2;
    Dropout dropout;  ///< on the residual branches
    bool norm_first = false;
    BURN_MODULE(mha, pwff, norm_1, norm_2, dropout, norm_first)

    Tensor<B, 3> forward(const Tensor<B, 3>& input,
                         const std::optional<Tensor<B, 2, Bool>>& mask_pad,
                         const std::optional<Tensor<B, 3, Bool>>& mask_attn) const {
        return run(input, mask_pad, mask_attn, nullptr);
    }

    Tensor<B, 3> forward_autoregressive_inference(
        const Tensor<B, 3>& input, const std::optional<Tensor<B, 2, Bool>>& mask_pad,
        const std::optional<Tensor<B, 3, Bool>>& mask_attn,
        TransformerEncoderLayerAutoregressiveCache<B>& cache) const {
        return run(input, mask_pad, mask_attn, &cache);
    }

private:
    /// The layer, with (cache != nullptr) or without a cache.
    Tensor<B, 3> run(const Tensor<B, 3>& x, const std::optional<Tensor<B, 2, Bool>>& mask_pad,
                     const std::optional<Tensor<B, 3, Bool>>& mask_attn,
                     TransformerEncoderLayerAutoregressiveCache<B>* cache) const {
        const auto apply = [&](TensorCache<B, 3>* c, const auto& f, const Tensor<B, 3>& t) {
            return c ? c->forward_autoregressive(t, 1, f) : f(t);
        };
        const auto n1 = [&](const Tensor<B, 3>& t) { return norm_1.forward(t); };
        const auto n2 = [&](const Tensor<B, 3>& t) { return norm_2.forward(t); };
        const auto ff = [&](const Tensor<B, 3>& t) { return pwff.forward(t); };
        auto* c_n1 = cache ? &cache->norm_1 : nullptr;
        auto* c_n2 = cache ? &cache->norm_2 : nullptr;
        auto* c_ff = cache ? &cache->pwff : nullptr;

        // Attention block.
        auto residual = norm_first ? apply(c_n2, n2, x) : x;
        MhaInput<B> in{residual, residual, residual, mask_pad, mask_attn};
        residual = cache ? mha.forward_cache(in, cache->mha).context : mha.forward(in).context;
        auto y = x + dropout.forward(residual);

        // Feed-forward block.
        if (norm_first) {
            residual = apply(c_n1, n1, y);
        } else {
            y = apply(c_n1, n1, y);
            residual = y;
        }
        residual = apply(c_ff, ff, residual);
        y = std::move(y) + dropout.forward(residual);
        if (!norm_first) y = apply(c_n2, n2, y);
        return y;
    }
};

template <Backend B>
struct TransformerEncoder {
    std::vector<TransformerEncoderLayer<B>> layers;
    std::size_t d_model = 0;
    std::size_t d_ff = 0;
    std::size_t n_heads = 0;
    std::size_t n_layers = 0;
    double dropout = 0.1;
    bool norm_first = false;
    bool quiet_softmax = false;
    /// The LayerNorm after the last layer, if any (TransformerEncoderConfig::final_norm).
    std::optional<LayerNorm<B>> norm = std::nullopt;
    BURN_MODULE(layers, d_model, d_ff, n_heads, n_layers, dropout, norm_first, quiet_softmax, norm)

    /// [batch, seq, d_model] -> [batch, seq, d_model].
    Tensor<B, 3> forward(const TransformerEncoderInput<B>& input) const {
        detail_transformer::check_input("TransformerEncoder::forward", input.tensor, d_model,
                                        "the input");
        auto x = input.tensor;
        for (const auto& layer : layers) x = layer.forward(x, input.mask_pad, input.mask_attn);
        if (norm) x = norm->forward(x);
        return x;
    }

    /// forward() for autoregressive inference: each call's input extends the previous one by one
    /// position, whose output the cache lets it compute alone.
    Tensor<B, 3> forward_autoregressive_inference(
        const TransformerEncoderInput<B>& input,
        TransformerEncoderAutoregressiveCache<B>& cache) const {
        detail_transformer::check_input("TransformerEncoder::forward_autoregressive_inference",
                                        input.tensor, d_model, "the input");
        BURN_CHECK(cache.layers.size() == layers.size(),
                   "TransformerEncoder::"
                   "forward_autoregressive_inference: the cache has ",
                   cache.layers.size(), " layers, the encoder ", layers.size());
        auto x = input.tensor;
        for (std::size_t i = 0; i < layers.size(); ++i)
            x = layers[i].forward_autoregressive_inference(x, input.mask_pad, input.mask_attn,
                                                           cache.layers[i]);
        if (norm) x = norm->forward(x);
        return x;
    }

    /// An empty cache for forward_autoregressive_inference.
    TransformerEncoderAutoregressiveCache<B> new_autoregressive_cache() const {
        return {std::vector<TransformerEncoderLayerAutoregressiveCache<B>>(layers.size())};
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_model", d_model)
            .add("d_ff", d_ff)
            .add("n_heads", n_heads)
            .add("n_layers", n_layers)
            .add("dropout", dropout)
            .add("norm_first", norm_first)
            .add("quiet_softmax", quiet_softmax);
        if (norm) c.add("final_norm", true);
    }
};

template <Backend B>
TransformerEncoder<B> TransformerEncoderConfig::init(const typename B::Device& device) const {
    detail_transformer::check_common("TransformerEncoderConfig::init", *d_model, *d_ff, *n_heads,
                                     *n_layers, dropout, layer_norm_eps);
    const double attn_p = attention_dropout.value_or(dropout);
    const double ffn_p = ffn_dropout.value_or(dropout);
    const double res_p = residual_dropout.value_or(dropout);
    for (double p : {attn_p, ffn_p, res_p})
        BURN_CHECK(p >= 0.0 && p < 1.0,
                   "TransformerEncoderConfig::init: dropout rates must be in "
                   "[0, 1), got ",
                   p);
    std::vector<TransformerEncoderLayer<B>> layers;
    layers.reserve(*n_layers);
    for (std::size_t i = 0; i < *n_layers; ++i) {
        auto mha = MultiHeadAttentionConfig{.d_model = *d_model,
                                            .n_heads = *n_heads,
                                            .dropout = attn_p,
                                            .quiet_softmax = quiet_softmax,
                                            .initializer = initializer}
                       .init<B>(device);
        auto norm_1 =
            LayerNormConfig{.d_model = *d_model, .epsilon = layer_norm_eps}.init<B>(device);
        auto norm_2 =
            LayerNormConfig{.d_model = *d_model, .epsilon = layer_norm_eps}.init<B>(device);
        auto pwff = PositionWiseFeedForwardConfig{.d_model = *d_model,
                                                  .d_ff = *d_ff,
                                                  .dropout = ffn_p,
                                                  .initializer = initializer,
                                                  .activation = activation}
                        .init<B>(device);
        layers.push_back(TransformerEncoderLayer<B>{
            std::move(mha), std::move(pwff), std::move(norm_1), std::move(norm_2),
            DropoutConfig{.prob = res_p}.init(), norm_first});
    }
    std::optional<LayerNorm<B>> norm;
    if (final_norm)
        norm = LayerNormConfig{.d_model = *d_model, .epsilon = layer_norm_eps}.init<B>(device);
    return TransformerEncoder<B>{std::move(layers), *d_model,      *d_ff,
                                 *n_heads,          *n_layers,     dropout,
                                 norm_first,        quiet_softmax, std::move(norm)};
}

// =================================================================================== decoder
template <Backend B>
struct TransformerDecoder;

/// Configuration of TransformerDecoder.
struct TransformerDecoderConfig {
    Required<std::size_t> d_model;
    Required<std::size_t> d_ff;
    Required<std::size_t> n_heads;
    Required<std::size_t> n_layers;
    double dropout = 0.1;
    bool norm_first = false;
    bool quiet_softmax = false;
    Initializer initializer = Initializer::default_weight();
    FeedForwardActivation activation = FeedForwardActivation::Gelu;
    double layer_norm_eps = 1e-5;
    BURN_CONFIG(TransformerDecoderConfig, d_model, d_ff, n_heads, n_layers, dropout, norm_first,
                quiet_softmax, initializer, activation, layer_norm_eps)

    template <Backend B>
    TransformerDecoder<B> init(const typename B::Device& device = {}) const;
};

/// The input of TransformerDecoder::forward: the target sequence and the encoder's memory.
template <Backend B>
struct TransformerDecoderInput {
    Tensor<B, 3> target;                                                ///< [batch, seq_t, d_model]
    Tensor<B, 3> memory;                                                ///< [batch, seq_m, d_model]
    std::optional<Tensor<B, 2, Bool>> target_mask_pad = std::nullopt;   ///< [batch, seq_t]
    std::optional<Tensor<B, 3, Bool>> target_mask_attn = std::nullopt;  ///< [batch, seq_t, seq_t]
    std::optional<Tensor<B, 2, Bool>> memory_mask_pad = std::nullopt;   ///< [batch, seq_m]
    std::optional<Tensor<B, 3, Bool>> memory_mask_attn = std::nullopt;  ///< [batch, seq_t, seq_m]

    TransformerDecoderInput with_target_mask_pad(Tensor<B, 2, Bool> m) const {
        auto o = *this;
        o.target_mask_pad = std::move(m);
        return o;
    }
    TransformerDecoderInput with_target_mask_attn(Tensor<B, 3, Bool> m) const {
        auto o = *this;
        o.target_mask_attn = std::move(m);
        return o;
    }
    TransformerDecoderInput with_memory_mask_pad(Tensor<B, 2, Bool> m) const {
        auto o = *this;
        o.memory_mask_pad = std::move(m);
        return o;
    }
    TransformerDecoderInput with_memory_mask_attn(Tensor<B, 3, Bool> m) const {
        auto o = *this;
        o.memory_mask_attn = std::move(m);
        return o;
    }
};

/// Autoregressive cache of one decoder layer.
template <Backend B>
struct TransformerDecoderLayerAutoregressiveCache {
    MhaCache<B> cross_attn = MhaCache<B>::autoregressive_cross_attention();
    MhaCache<B> self_attn = MhaCache<B>::autoregressive();
    TensorCache<B, 3> pwff;
    TensorCache<B, 3> norm_1;
    TensorCache<B, 3> norm_2;
    TensorCache<B, 3> norm_3;
};

/// Autoregressive cache of a TransformerDecoder (TransformerDecoder::new_autoregressive_cache).
template <Backend B>
struct TransformerDecoderAutoregressiveCache {
    std::vector<TransformerDecoderLayerAutoregressiveCache<B>> layers;
};

/// One decoder layer: self-attention, cross-attention over the memory, feed-forward. Post-norm:
/// norm_1, norm_2, norm_3 after the three blocks. Pre-norm: norm_3, norm_1, norm_2 before them
/// (Burn's naming).
template <Backend B>
struct TransformerDecoderLayer {
    MultiHeadAttention<B> cross_attn;
    MultiHeadAttention<B> self_attn;
    PositionWiseFeedForward<B> pwff;
    LayerNorm<B> norm_1;
    LayerNorm<B> norm_2;
    LayerNorm<B> norm_3;
    Dropout dropout;
    bool norm_first = false;
    BURN_MODULE(cross_attn, self_attn, pwff, norm_1, norm_2, norm_3, dropout, norm_first)

    /// The input with its target replaced by the layer's output.
    TransformerDecoderInput<B> forward(TransformerDecoderInput<B> input) const {
        input.target = run(input, nullptr);
        return input;
    }

    TransformerDecoderInput<B> forward_autoregressive_inference(
        TransformerDecoderInput<B> input,
        TransformerDecoderLayerAutoregressiveCache<B>& cache) const {
        input.target = run(input, &cache);
        return input;
    }

private:
    Tensor<B, 3> run(const TransformerDecoderInput<B>& in,
                     TransformerDecoderLayerAutoregressiveCache<B>* cache) const {
        const auto apply = [&](TensorCache<B, 3>* c, const auto& f, const Tensor<B, 3>& t) {
            return c ? c->forward_autoregressive(t, 1, f) : f(t);
        };
        const auto n1 = [&](const Tensor<B, 3>& t) { return norm_1.forward(t); };
        const auto n2 = [&](const Tensor<B, 3>& t) { return norm_2.forward(t); };
        const auto n3 = [&](const Tensor<B, 3>& t) { return norm_3.forward(t); };
        const auto ff = [&](const Tensor<B, 3>& t) { return pwff.forward(t); };
        auto* c_n1 = cache ? &cache->norm_1 : nullptr;
        auto* c_n2 = cache ? &cache->norm_2 : nullptr;
        auto* c_n3 = cache ? &cache->norm_3 : nullptr;
        auto* c_ff = cache ? &cache->pwff : nullptr;
        const auto& x = in.target;

        // Self-attention block.
        auto residual = norm_first ? apply(c_n3, n3, x) : x;
        MhaInput<B> self_in{residual, residual, residual, in.target_mask_pad, in.target_mask_attn};
        residual = cache ? self_attn.forward_cache(self_in, cache->self_attn).context
                         : self_attn.forward(self_in).context;
        auto y = x + dropout.forward(residual);

        // Cross-attention block.
        if (norm_first) {
            residual = apply(c_n1, n1, y);
        } else {
            y = apply(c_n1, n1, y);
            residual = y;
        }
        MhaInput<B> cross_in{residual, in.memory, in.memory, in.memory_mask_pad,
                             in.memory_mask_attn};
        residual = cache ? cross_attn.forward_cache(cross_in, cache->cross_attn).context
                         : cross_attn.forward(cross_in).context;
        y = std::move(y) + dropout.forward(residual);

        // Feed-forward block.
        if (norm_first) {
            residual = apply(c_n2, n2, y);
        } else {
            y = apply(c_n2, n2, y);
            residual = y;
        }
        residual = apply(c_ff, ff, residual);
        y = std::move(y) + dropout.forward(residual);
        if (!norm_first) y = apply(c_n3, n3, y);
        return y;
    }
};

template <Backend B>
struct TransformerDecoder {
    std::vector<TransformerDecoderLayer<B>> layers;
    std::size_t d_model = 0;
    std::size_t d_ff = 0;
    std::size_t n_heads = 0;
    std::size_t n_layers = 0;
    double dropout = 0.1;
    bool norm_first = false;
    bool quiet_softmax = false;
    BURN_MODULE(layers, d_model, d_ff, n_heads, n_layers, dropout, norm_first, quiet_softmax)

    /// The decoded target, [batch, seq_t, d_model].
    Tensor<B, 3> forward(TransformerDecoderInput<B> input) const {
        check(input, "TransformerDecoder::forward");
        for (const auto& layer : layers) input = layer.forward(std::move(input));
        return input.target;
    }

    /// forward() for autoregressive inference: each call's target extends the previous one by one
    /// position; the memory is projected once.
    Tensor<B, 3> forward_autoregressive_inference(
        TransformerDecoderInput<B> input, TransformerDecoderAutoregressiveCache<B>& cache) const {
        check(input, "TransformerDecoder::forward_autoregressive_inference");
        BURN_CHECK(cache.layers.size() == layers.size(),
                   "TransformerDecoder::"
                   "forward_autoregressive_inference: the cache has ",
                   cache.layers.size(), " layers, the decoder ", layers.size());
        for (std::size_t i = 0; i < layers.size(); ++i)
            input = layers[i].forward_autoregressive_inference(std::move(input), cache.layers[i]);
        return input.target;
    }

    TransformerDecoderAutoregressiveCache<B> new_autoregressive_cache() const {
        return {std::vector<TransformerDecoderLayerAutoregressiveCache<B>>(layers.size())};
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_model", d_model)
            .add("d_ff", d_ff)
            .add("n_heads", n_heads)
            .add("n_layers", n_layers)
            .add("dropout", dropout)
            .add("norm_first", norm_first)
            .add("quiet_softmax", quiet_softmax);
    }

private:
    void check(const TransformerDecoderInput<B>& in, const char* op) const {
        detail_transformer::check_input(op, in.target, d_model, "the target");
        detail_transformer::check_input(op, in.memory, d_model, "the memory");
    }
};

template <Backend B>
TransformerDecoder<B> TransformerDecoderConfig::init(const typename B::Device& device) const {
    detail_transformer::check_common("TransformerDecoderConfig::init", *d_model, *d_ff, *n_heads,
                                     *n_layers, dropout, layer_norm_eps);
    std::vector<TransformerDecoderLayer<B>> layers;
    layers.reserve(*n_layers);
    const auto mha = [&] {
        return MultiHeadAttentionConfig{.d_model = *d_model,
                                        .n_heads = *n_heads,
                                        .dropout = dropout,
                                        .quiet_softmax = quiet_softmax,
                                        .initializer = initializer}
            .init<B>(device);
    };
    const auto norm = [&] {
        return LayerNormConfig{.d_model = *d_model, .epsilon = layer_norm_eps}.init<B>(device);
    };
    for (std::size_t i = 0; i < *n_layers; ++i) {
        auto self_attn = mha();
        auto cross_attn = mha();
        auto norm_1 = norm();
        auto norm_2 = norm();
        auto norm_3 = norm();
        auto pwff = PositionWiseFeedForwardConfig{.d_model = *d_model,
                                                  .d_ff = *d_ff,
                                                  .dropout = dropout,
                                                  .initializer = initializer,
                                                  .activation = activation}
                        .init<B>(device);
        layers.push_back(
            TransformerDecoderLayer<B>{std::move(cross_attn), std::move(self_attn), std::move(pwff),
                                       std::move(norm_1), std::move(norm_2), std::move(norm_3),
                                       DropoutConfig{.prob = dropout}.init(), norm_first});
    }
    return TransformerDecoder<B>{std::move(layers), *d_model, *d_ff,      *n_heads,
                                 *n_layers,         dropout,  norm_first, quiet_softmax};
}

}  // namespace burn::nn

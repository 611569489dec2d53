// SPDX-License-Identifier: MIT OR Apache-2.0
// Attention masks (Burn's nn::attention::generate_autoregressive_mask / generate_padding_mask).
// As everywhere in Burn's attention modules, `true` marks a position that is masked out (PyTorch's
// boolean attn_mask / key_padding_mask convention).
//
//   auto causal = nn::generate_autoregressive_mask<B>(batch, seq, device);  // [batch, seq, seq]
//   auto padded = nn::generate_padding_mask<B>(0, {{5, 6, 7}, {8}}, std::nullopt, device);
//   // padded.tensor: [[5, 6, 7], [8, 0, 0]], padded.mask: [[F, F, F], [F, T, T]]
//   auto pooled = nn::masked_mean(encoded, padded.mask);  // [batch, seq, d] -> [batch, d]
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "burn/config/config.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

/// [batch, seq, seq] mask, true above the diagonal: position i may attend to positions <= i only.
template <Backend B>
Tensor<B, 3, Bool> generate_autoregressive_mask(std::size_t batch_size, std::size_t seq_length,
                                                const typename B::Device& device = {}) {
    BURN_CHECK(batch_size > 0 && seq_length > 0,
               "generate_autoregressive_mask: batch_size and "
               "seq_length must be positive, got ",
               batch_size, " and ", seq_length);
    // tril_mask: true outside the lower triangle (diagonal included), i.e. at the future.
    return Tensor<B, 2, Bool>::tril_mask({seq_length, seq_length}, 0, device)
        .template unsqueeze<3>()
        .expand(std::array<std::int64_t, 3>{std::int64_t(batch_size), std::int64_t(seq_length),
                                            std::int64_t(seq_length)});
}

/// How generate_padding_mask chooses the padded length (Burn's SeqLengthOption).
struct SeqLengthOption {
    enum class Kind { NoMax, Max, Fixed };
    Kind kind = Kind::NoMax;
    std::size_t value = 0;
    /// The longest sequence.
    static SeqLengthOption no_max() { return {Kind::NoMax, 0}; }
    /// The longest sequence, truncated to `max`.
    static SeqLengthOption max(std::size_t max) { return {Kind::Max, max}; }
    /// Exactly `length`: shorter sequences are padded, longer ones truncated.
    static SeqLengthOption fixed(std::size_t length) { return {Kind::Fixed, length}; }
    /// Burn's `Option<usize>` conversion: a value is a maximum, nothing is no maximum.
    SeqLengthOption() = default;
    SeqLengthOption(Kind k, std::size_t v) : kind(k), value(v) {}
    SeqLengthOption(std::optional<std::size_t> max)  // NOLINT: implicit, as Burn's Into
        : kind(max ? Kind::Max : Kind::NoMax), value(max.value_or(0)) {}
    SeqLengthOption(std::nullopt_t) : SeqLengthOption() {}  // NOLINT
};

/// Tokens padded to one length, and the mask of the padding (true where a pad token is).
template <Backend B>
struct GeneratePaddingMask {
    Tensor<B, 2, Int> tensor;  ///< [batch, seq]
    Tensor<B, 2, Bool> mask;   ///< [batch, seq], true where tensor == pad_token
};

/// Pads (or truncates) `tokens_list` to a common length with `pad_token`. As in Burn, the mask is
/// computed from the values, so a token equal to `pad_token` inside a sequence is masked too.
template <Backend B>
GeneratePaddingMask<B> generate_padding_mask(
    std::size_t pad_token, const std::vector<std::vector<std::size_t>>& tokens_list,
    SeqLengthOption seq_length = {}, const typename B::Device& device = {}) {
    std::size_t longest = 0;
    for (const auto& t : tokens_list) longest = std::max(longest, t.size());
    if (tokens_list.empty()) longest = 1;
    std::size_t size = longest;
    if (seq_length.kind == SeqLengthOption::Kind::Max) size = std::min(longest, seq_length.value);
    if (seq_length.kind == SeqLengthOption::Kind::Fixed) size = seq_length.value;
    const std::size_t batch = tokens_list.size();
    BURN_CHECK(batch > 0, "generate_padding_mask: tokens_list is empty");
    BURN_CHECK(size > 0, "generate_padding_mask: the padded length is 0");
    std::vector<std::int64_t> values(batch * size, static_cast<std::int64_t>(pad_token));
    for (std::size_t i = 0; i < batch; ++i) {
        const std::size_t n = std::min(size, tokens_list[i].size());
        for (std::size_t j = 0; j < n; ++j)
            values[i * size + j] = static_cast<std::int64_t>(tokens_list[i][j]);
    }
    auto tensor =
        Tensor<B, 2, Int>::from_data(TensorData(std::move(values), Shape{batch, size}), device);
    auto mask = tensor.equal_elem(static_cast<std::int64_t>(pad_token));
    return {std::move(tensor), std::move(mask)};
}

/// The mean of `tensor` [batch, seq, d] over its sequence dimension (dim 1), counting only the
/// positions that are not padding: `mask_pad` [batch, seq] is true at a padded position (as
/// generate_padding_mask and the attention modules' mask_pad). Gives [batch, d]: for each row,
/// the sum of its unpadded vectors divided by their number. Padded positions contribute nothing,
/// even when they hold NaN or infinity. A row made only of padding gives zeros (not the NaN of
/// 0 / 0). Differentiable: under Autodiff the gradient of an unpadded position is 1 / count
/// and that of a padded one 0. PyTorch has no single call for it: the usual
/// (x * keep[..., None]).sum(1) / keep.sum(1, keepdim=True).clamp(min=1) with keep = ~mask_pad.
template <Backend B>
Tensor<B, 2> masked_mean(const Tensor<B, 3>& tensor, const Tensor<B, 2, Bool>& mask_pad) {
    const auto dims = tensor.dims();
    const auto mdims = mask_pad.dims();
    BURN_CHECK(mdims[0] == dims[0] && mdims[1] == dims[1],
               "masked_mean: mask_pad must be [batch, seq] = [", dims[0], ", ", dims[1],
               "] (tensor ", tensor.shape(), "), got ", mask_pad.shape());
    const std::array<std::int64_t, 3> full{std::int64_t(dims[0]), std::int64_t(dims[1]),
                                           std::int64_t(dims[2])};
    const auto pad = mask_pad.template unsqueeze_dim<3>(2);               // [batch, seq, 1]
    auto summed = tensor.mask_fill(pad.expand(full), 0).sum_dim(1);       // [batch, 1, d]
    auto counts = pad.bool_not().into_float().sum_dim(1).clamp_min(1.0);  // [batch, 1, 1]
    return (std::move(summed) / std::move(counts)).template squeeze<2>(1);
}

}  // namespace burn::nn

// SPDX-License-Identifier: MIT OR Apache-2.0
// Signal ops of the ONNX op library (opset 17): DFT and STFT as products with cosine and sine
// matrices through B's matmul (so they run on every backend and are differentiable), and
// MelWeightMatrix, computed on the host from its scalar inputs.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <optional>
#include <vector>

#include "burn/onnx/ops_common.hpp"

namespace burn::onnx::ops {

namespace detail {

/// The DFT of rows [rows, n] (real part `re`, imaginary part `im` or none) onto `m` frequencies:
/// (re, im) of [rows, m]; the inverse transform divides by n.
template <class B>
std::pair<typename B::FloatTensor, typename B::FloatTensor> dft_rows(
    const typename B::FloatTensor& re, const std::optional<typename B::FloatTensor>& im,
    std::size_t n, std::size_t m, bool inverse, ElemType type, const typename B::Device& dev) {
    std::vector<double> cv(n * m), sv(n * m);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t k = 0; k < m; ++k) {
            // j k mod n keeps the angle small (exact for large n).
            const auto jk = static_cast<double>((j * k) % n);
            const double ang = 2 * std::numbers::pi * jk / static_cast<double>(n);
            cv[j * m + k] = std::cos(ang);
            sv[j * m + k] = std::sin(ang);
        }
    const auto c = host_float_value<B>(cv, Shape{n, m}, type, dev).float_prim();
    const auto s = host_float_value<B>(sv, Shape{n, m}, type, dev).float_prim();
    // forward (e^{-i a}): re' = re c + im s, im' = im c - re s; the inverse flips the sines.
    const auto rc = B::float_matmul(re, c), rs = B::float_matmul(re, s);
    auto out_re = rc, out_im = inverse ? rs : B::float_neg(rs);
    if (im) {
        const auto is = B::float_matmul(*im, s);
        out_re = inverse ? B::float_sub(rc, is) : B::float_add(rc, is);
        out_im = B::float_add(out_im, B::float_matmul(*im, c));
    }
    if (inverse) {
        out_re = B::float_div_scalar(out_re, static_cast<double>(n));
        out_im = B::float_div_scalar(out_im, static_cast<double>(n));
    }
    return {out_re, out_im};
}

}  // namespace detail

/// DFT (opset 17): the discrete Fourier transform of x [..., signal, ..., 1 or 2] (real, or
/// complex as (re, im) pairs in the last dim) along `axis`, the signal zero-padded or truncated to
/// dft_length; `onesided` keeps the floor(n / 2) + 1 non-redundant frequencies of a real signal;
/// `inverse` divides by n. Returns [..., frequencies, ..., 2].
template <class B>
Value<B> dft(const Value<B>& x, std::optional<std::int64_t> dft_length, std::int64_t axis,
             bool inverse, bool onesided) {
    const Shape s = x.shape();
    const std::size_t r = s.rank();
    if (r < 2 || (s[r - 1] != 1 && s[r - 1] != 2))
        detail::fail("DFT", "input must end in a dim of 1 (real) or 2 (complex), got ",
                     x.describe());
    const std::size_t a = detail::norm_axis(axis, r, "DFT");
    if (a == r - 1)
        detail::fail("DFT", "axis ", axis, " is the real/imaginary dim of ", x.describe());
    if (onesided && inverse) detail::fail("DFT", "onesided inverse transforms are not supported");
    auto xf = detail::require_float(x, "DFT");
    const std::size_t len = s[a];
    const std::size_t n = dft_length ? static_cast<std::size_t>(*dft_length) : len;
    if (dft_length && *dft_length <= 0)
        detail::fail("DFT", "dft_length must be positive, got ", *dft_length);
    const std::size_t m = onesided ? n / 2 + 1 : n;
    // Move the signal axis before the complex dim: [rest..., len, c].
    std::vector<std::size_t> perm;
    for (std::size_t i = 0; i + 1 < r; ++i)
        if (i != a) perm.push_back(i);
    perm.push_back(a);
    perm.push_back(r - 1);
    auto t = B::float_permute(xf, perm);
    Shape ts = B::float_shape(t);
    const std::size_t rows = detail::dims_product(ts, 0, r - 2);
    const auto dev = x.device();
    auto part = [&](std::size_t i) {
        std::vector<SliceRange> rg(r);
        for (std::size_t d = 0; d < r; ++d) rg[d] = {0, ts[d], 1};
        rg[r - 2] = {0, std::min(len, n), 1};
        rg[r - 1] = {i, 1, 1};
        auto v = B::float_reshape(B::float_slice(t, rg), Shape{rows, std::min(len, n)});
        if (n > len) v = B::float_cat({v, B::float_zeros(Shape{rows, n - len}, dev)}, 1);
        return v;
    };
    std::optional<typename B::FloatTensor> im;
    if (s[r - 1] == 2) im = part(1);
    auto [re_o, im_o] = detail::dft_rows<B>(part(0), im, n, m, inverse, x.type(), dev);
    Shape os = ts;
    os[r - 2] = m;
    os[r - 1] = 1;
    auto y = B::float_cat(
        {B::float_reshape(re_o, Shape{rows, m, 1}), B::float_reshape(im_o, Shape{rows, m, 1})}, 2);
    os[r - 1] = 2;
    y = B::float_reshape(y, os);
    std::vector<std::size_t> back(r);
    for (std::size_t i = 0; i < r; ++i) back[perm[i]] = i;
    return Value<B>(Float{}, B::float_permute(y, back), x.type());
}

/// STFT (opset 17): frames of frame_length samples every frame_step of signal [batch, length,
/// 1 or 2], multiplied by window (when given) and transformed: [batch, frames, bins, 2].
template <class B>
Value<B> stft(const Value<B>& signal, std::int64_t frame_step, const OptValue<B>& window,
              std::optional<std::int64_t> frame_length, bool onesided) {
    const Shape s = signal.shape();
    if (s.rank() != 3 || (s[2] != 1 && s[2] != 2))
        detail::fail("STFT", "signal must be [batch, length, 1 or 2], got ", signal.describe());
    if (window && window->rank() != 1)
        detail::fail("STFT", "window must be 1-D, got ", window->describe());
    if (!window && !frame_length) detail::fail("STFT", "needs a window or a frame_length");
    const std::int64_t fl =
        frame_length ? *frame_length : static_cast<std::int64_t>(window->shape()[0]);
    if (window && static_cast<std::int64_t>(window->shape()[0]) != fl)
        detail::fail("STFT", "window ", window->describe(), " does not match frame_length ", fl);
    if (frame_step <= 0 || fl <= 0 || static_cast<std::size_t>(fl) > s[1])
        detail::fail("STFT", "frame_step ", frame_step, " and frame_length ", fl,
                     " must be positive, the frame no longer than the signal (", s[1], ")");
    const auto f = static_cast<std::size_t>(fl), step = static_cast<std::size_t>(frame_step);
    const std::size_t frames = (s[1] - f) / step + 1;
    std::vector<std::int64_t> idx;
    for (std::size_t i = 0; i < frames; ++i)
        for (std::size_t j = 0; j < f; ++j) idx.push_back(static_cast<std::int64_t>(i * step + j));
    const auto dev = signal.device();
    auto xf = detail::require_float(signal, "STFT", "signal");
    auto fr = B::float_select(xf, 1, detail::ints_value<B>(idx, dev).int_prim());
    fr = B::float_reshape(fr, Shape{s[0], frames, f, s[2]});
    if (window) {
        auto w = window->to_float();
        if (B::float_dtype(w) != B::float_dtype(fr)) w = B::float_cast(w, B::float_dtype(fr));
        fr = B::float_mul(fr, B::float_reshape(w, Shape{1, 1, f, 1}));
    }
    return dft(Value<B>(Float{}, fr, signal.type()), fl, 2, false, onesided);
}

/// MelWeightMatrix (opset 17): [dft_length / 2 + 1, num_mel_bins] triangular filters, equally
/// spaced on the mel scale between the two edge frequencies, as ONNX's reference computes them.
template <class B>
Value<B> mel_weight_matrix(std::int64_t num_mel_bins, std::int64_t dft_length,
                           std::int64_t sample_rate, double lower_hz, double upper_hz,
                           ElemType type, const typename B::Device& dev) {
    if (num_mel_bins <= 0 || dft_length <= 0 || sample_rate <= 0)
        detail::fail("MelWeightMatrix",
                     "num_mel_bins, dft_length and sample_rate must be "
                     "positive, got ",
                     num_mel_bins, ", ", dft_length, ", ", sample_rate);
    if (lower_hz < 0 || upper_hz <= lower_hz)
        detail::fail("MelWeightMatrix", "edges must satisfy 0 <= lower < upper, got ", lower_hz,
                     " and ", upper_hz);
    const auto bins = static_cast<std::size_t>(dft_length / 2 + 1);
    const auto mels = static_cast<std::size_t>(num_mel_bins);
    const double lo = 2595 * std::log10(1 + lower_hz / 700);
    const double hi = 2595 * std::log10(1 + upper_hz / 700);
    const double step = (hi - lo) / static_cast<double>(mels + 2);
    std::vector<std::int64_t> edge(mels + 2);
    for (std::size_t i = 0; i < mels + 2; ++i) {
        const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + lo) / 2595) - 1);
        edge[i] = static_cast<std::int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz /
                                                       static_cast<double>(sample_rate)));
    }
    std::vector<double> out(bins * mels, 0.0);
    auto at = [&](std::int64_t j, std::size_t i) -> double& {
        if (j < 0 || static_cast<std::size_t>(j) >= bins)
            detail::fail("MelWeightMatrix", "upper_edge_hertz ", upper_hz,
                         " lies beyond the spectrum of dft_length ", dft_length, " at sample_rate ",
                         sample_rate);
        return out[static_cast<std::size_t>(j) * mels + i];
    };
    for (std::size_t i = 0; i < mels; ++i) {
        const std::int64_t l = edge[i], c = edge[i + 1], h = edge[i + 2];
        if (c == l) {
            at(c, i) = 1;
        } else {
            for (std::int64_t j = l; j <= c; ++j)
                at(j, i) = static_cast<double>(j - l) / static_cast<double>(c - l);
        }
        for (std::int64_t j = c; j < h; ++j)
            at(j, i) = static_cast<double>(h - j) / static_cast<double>(h - c);
    }
    return Value<B>::from_data(TensorData(out, Shape{bins, mels}).convert(storage_dtype(type)),
                               type, dev);
}

}  // namespace burn::onnx::ops

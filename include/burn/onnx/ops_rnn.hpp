// SPDX-License-Identifier: MIT OR Apache-2.0
// ONNX recurrent ops (RNN, GRU, LSTM) over burn::onnx::Value<B>: the input projection of every
// time step is one matmul, then a loop over time applies the recurrence with B's ops.
#pragma once

#include <string>
#include <vector>

#include "burn/onnx/ops_common.hpp"
#include "burn/onnx/ops_math.hpp"

namespace burn::onnx::ops {

enum class RnnKind { Rnn, Gru, Lstm };

struct RnnAttrs {
    std::int64_t hidden_size = 0;
    std::string direction = "forward";     ///< forward, reverse, bidirectional
    std::vector<std::string> activations;  ///< empty: the op's defaults
    std::vector<float> activation_alpha;
    std::vector<float> activation_beta;
    std::optional<double> clip;
    bool linear_before_reset = false;  ///< GRU
    bool input_forget = false;         ///< LSTM
    std::int64_t layout = 0;           ///< 0: [seq, batch, ...]; 1: [batch, seq, ...]
};

namespace detail {
template <class B>
struct RnnActivation {
    std::string name;
    double alpha = 0, beta = 0;
    typename B::FloatTensor operator()(const typename B::FloatTensor& x) const {
        if (name == "Sigmoid") return B::sigmoid(x);
        if (name == "Tanh") return B::float_tanh(x);
        if (name == "Relu") return B::relu(x);
        if (name == "LeakyRelu") return B::leaky_relu(x, alpha);
        if (name == "HardSigmoid") return B::hard_sigmoid(x, alpha, beta);
        if (name == "Affine") return B::float_add_scalar(B::float_mul_scalar(x, alpha), beta);
        if (name == "ScaledTanh")
            return B::float_mul_scalar(B::float_tanh(B::float_mul_scalar(x, beta)), alpha);
        if (name == "Softsign") return B::float_div(x, B::float_add_scalar(B::float_abs(x), 1.0));
        fail("RNN", "unsupported activation '", name, "'");
    }
};
}  // namespace detail

/// RNN / GRU / LSTM: outputs Y, Y_h (and Y_c for LSTM).
template <class B>
std::vector<Value<B>> rnn(RnnKind kind, const Value<B>& x_in, const Value<B>& w, const Value<B>& r,
                          const OptValue<B>& bias, const OptValue<B>& seq_lens,
                          const OptValue<B>& h0, const OptValue<B>& c0, const OptValue<B>& peep,
                          const RnnAttrs& at) {
    const char* op = kind == RnnKind::Rnn ? "RNN" : kind == RnnKind::Gru ? "GRU" : "LSTM";
    const std::size_t gates = kind == RnnKind::Rnn ? 1 : kind == RnnKind::Gru ? 3 : 4;
    if (x_in.rank() != 3) detail::fail(op, "X must be 3-D, got ", x_in.describe());
    auto xf = detail::require_float(x_in, op);
    if (at.layout == 1) xf = B::float_swap_dims(xf, 0, 1);
    const Shape xs = B::float_shape(xf);
    const std::size_t seq = xs[0], batch = xs[1], in = xs[2];
    const auto hs = static_cast<std::size_t>(at.hidden_size);
    const std::size_t dirs = at.direction == "bidirectional" ? 2 : 1;
    if (at.direction != "forward" && at.direction != "reverse" && at.direction != "bidirectional")
        detail::fail(op, "unknown direction '", at.direction, "'");
    if (w.shape() != Shape{dirs, gates * hs, in})
        detail::fail(op, "W ", w.describe(), " must be [", dirs, ", ", gates * hs, ", ", in, "]");
    if (r.shape() != Shape{dirs, gates * hs, hs})
        detail::fail(op, "R ", r.describe(), " must be [", dirs, ", ", gates * hs, ", ", hs, "]");
    // Activations: per direction, the op's count (f, g, h).
    const std::size_t nact = kind == RnnKind::Rnn ? 1 : kind == RnnKind::Gru ? 2 : 3;
    std::vector<std::string> names = at.activations;
    if (names.empty()) {
        const std::vector<std::string> def =
            kind == RnnKind::Rnn   ? std::vector<std::string>{"Tanh"}
            : kind == RnnKind::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                   : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
        for (std::size_t d = 0; d < dirs; ++d) names.insert(names.end(), def.begin(), def.end());
    }
    if (names.size() != nact * dirs)
        detail::fail(op, names.size(), " activations given, ", nact * dirs, " expected");
    std::vector<detail::RnnActivation<B>> acts;
    for (std::size_t i = 0; i < names.size(); ++i) {
        detail::RnnActivation<B> a{names[i]};
        if (a.name == "LeakyRelu") a.alpha = 0.01;
        if (a.name == "HardSigmoid") {
            a.alpha = 0.2;
            a.beta = 0.5;
        }
        if (i < at.activation_alpha.size()) a.alpha = at.activation_alpha[i];
        if (i < at.activation_beta.size()) a.beta = at.activation_beta[i];
        acts.push_back(a);
    }
    std::vector<std::int64_t> lens;
    if (seq_lens) {
        lens = seq_lens->to_ints();
        if (lens.size() != batch)
            detail::fail(op, "sequence_lens has ", lens.size(), " values for batch ", batch);
        for (auto l : lens)
            if (l < 0 || static_cast<std::size_t>(l) > seq)
                detail::fail(op, "sequence length ", l, " is out of [0, ", seq, "]");
    }
    const auto dev = x_in.device();
    auto wf = w.to_float(), rf = r.to_float();
    std::optional<typename B::FloatTensor> bf, pf, h0f, c0f;
    if (bias) bf = bias->to_float();
    if (peep) pf = peep->to_float();
    if (h0) h0f = h0->to_float();
    if (c0) c0f = c0->to_float();
    auto row = [&](const typename B::FloatTensor& t, std::size_t d, std::size_t start,
                   std::size_t len) {
        // t is [dirs, n]: the [1, len] slice of direction d.
        std::vector<SliceRange> rr{{d, 1, 1}, {start, len, 1}};
        return B::float_reshape(B::float_slice(t, rr), Shape{1, len});
    };
    auto gate = [&](const typename B::FloatTensor& g, std::size_t k) {
        std::vector<SliceRange> rr{{0, batch, 1}, {k * hs, hs, 1}};
        return B::float_slice(g, rr);
    };
    auto maybe_clip = [&](typename B::FloatTensor t) {
        return at.clip ? B::float_clamp(t, -*at.clip, *at.clip) : t;
    };
    std::vector<typename B::FloatTensor> y_dirs, h_last, c_last;
    for (std::size_t d = 0; d < dirs; ++d) {
        const bool reverse = at.direction == "reverse" || d == 1;
        if (reverse && !lens.empty())
            for (auto l : lens)
                if (static_cast<std::size_t>(l) != seq)
                    detail::fail(op,
                                 "reverse direction with shorter sequence_lens is not supported");
        std::vector<SliceRange> wr{{d, 1, 1}, {0, gates * hs, 1}, {0, in, 1}};
        auto wd = B::float_swap_dims(
            B::float_reshape(B::float_slice(wf, wr), Shape{gates * hs, in}), 0, 1);
        std::vector<SliceRange> rrg{{d, 1, 1}, {0, gates * hs, 1}, {0, hs, 1}};
        auto rd = B::float_swap_dims(
            B::float_reshape(B::float_slice(rf, rrg), Shape{gates * hs, hs}), 0, 1);
        // X W^T + Wb for every step at once: [seq, batch, gates * hs].
        auto xw =
            B::float_reshape(B::float_matmul(B::float_reshape(xf, Shape{seq * batch, in}), wd),
                             Shape{seq, batch, gates * hs});
        std::optional<typename B::FloatTensor> rb;
        if (bf) {
            xw = B::float_add(xw, B::float_expand(B::float_reshape(row(*bf, d, 0, gates * hs),
                                                                   Shape{1, 1, gates * hs}),
                                                  Shape{seq, batch, gates * hs}));
            rb = B::float_expand(row(*bf, d, gates * hs, gates * hs), Shape{batch, gates * hs});
        }
        auto h = h0f ? B::float_reshape(
                           B::float_slice(
                               *h0f, std::vector<SliceRange>{{d, 1, 1}, {0, batch, 1}, {0, hs, 1}}),
                           Shape{batch, hs})
                     : B::float_zeros(Shape{batch, hs}, dev);
        auto c = c0f ? B::float_reshape(
                           B::float_slice(
                               *c0f, std::vector<SliceRange>{{d, 1, 1}, {0, batch, 1}, {0, hs, 1}}),
                           Shape{batch, hs})
                     : B::float_zeros(Shape{batch, hs}, dev);
        const detail::RnnActivation<B>& f = acts[d * nact];
        std::vector<typename B::FloatTensor> ys(seq, B::float_zeros(Shape{batch, hs}, dev));
        for (std::size_t step = 0; step < seq; ++step) {
            const std::size_t t = reverse ? seq - 1 - step : step;
            auto xt = B::float_reshape(
                B::float_slice(
                    xw, std::vector<SliceRange>{{t, 1, 1}, {0, batch, 1}, {0, gates * hs, 1}}),
                Shape{batch, gates * hs});
            typename B::FloatTensor hn = h, cn = c;
            if (kind == RnnKind::Rnn) {
                auto g = B::float_add(xt, B::float_matmul(h, rd));
                if (rb) g = B::float_add(g, *rb);
                hn = f(maybe_clip(g));
            } else if (kind == RnnKind::Gru) {
                const detail::RnnActivation<B>& g_act = acts[d * nact + 1];
                auto hr = B::float_matmul(h, rd);  // [batch, 3 hs]: z, r, h parts
                if (rb) hr = B::float_add(hr, *rb);
                auto z = f(maybe_clip(B::float_add(gate(xt, 0), gate(hr, 0))));
                auto rg = f(maybe_clip(B::float_add(gate(xt, 1), gate(hr, 1))));
                typename B::FloatTensor hh = h;
                if (at.linear_before_reset) {
                    hh =
                        g_act(maybe_clip(B::float_add(gate(xt, 2), B::float_mul(rg, gate(hr, 2)))));
                } else {
                    std::vector<SliceRange> rh{{0, hs, 1}, {2 * hs, hs, 1}};
                    auto rdh = B::float_slice(rd, rh);
                    auto rec = B::float_matmul(B::float_mul(rg, h), rdh);
                    if (rb) rec = B::float_add(rec, gate(*rb, 2));
                    hh = g_act(maybe_clip(B::float_add(gate(xt, 2), rec)));
                }
                // H = (1 - z) * hh + z * h
                hn = B::float_add(hh, B::float_mul(z, B::float_sub(h, hh)));
            } else {
                const detail::RnnActivation<B>& g_act = acts[d * nact + 1];
                const detail::RnnActivation<B>& h_act = acts[d * nact + 2];
                auto gg = B::float_add(xt, B::float_matmul(h, rd));  // i, o, f, c
                if (rb) gg = B::float_add(gg, *rb);
                auto pi = gate(gg, 0), po = gate(gg, 1), pfg = gate(gg, 2), pc = gate(gg, 3);
                if (pf) {
                    auto p = [&](std::size_t k) {
                        return B::float_expand(row(*pf, d, k * hs, hs), Shape{batch, hs});
                    };
                    pi = B::float_add(pi, B::float_mul(p(0), c));
                    pfg = B::float_add(pfg, B::float_mul(p(2), c));
                }
                auto i = f(maybe_clip(pi));
                auto fg = at.input_forget ? B::float_neg(B::float_sub_scalar(i, 1.0))
                                          : f(maybe_clip(pfg));
                auto cc = g_act(maybe_clip(pc));
                cn = B::float_add(B::float_mul(fg, c), B::float_mul(i, cc));
                if (pf)
                    po = B::float_add(
                        po,
                        B::float_mul(B::float_expand(row(*pf, d, hs, hs), Shape{batch, hs}), cn));
                auto o = f(maybe_clip(po));
                hn = B::float_mul(o, h_act(cn));
            }
            if (!lens.empty()) {
                std::vector<std::uint8_t> live(batch);
                for (std::size_t b = 0; b < batch; ++b)
                    live[b] = static_cast<std::size_t>(lens[b]) > t ? 1 : 0;
                auto m = B::bool_expand(
                    B::bool_from_data(TensorData(std::vector<std::uint8_t>(live), Shape{batch, 1})
                                          .convert(DType::Bool),
                                      dev),
                    Shape{batch, hs});
                auto dead = B::bool_not(m);
                hn = B::float_mask_where(hn, dead, h);
                cn = B::float_mask_where(cn, dead, c);
                ys[t] = B::float_mask_fill(hn, dead, 0.0);
            } else {
                ys[t] = hn;
            }
            h = hn;
            c = cn;
        }
        std::vector<typename B::FloatTensor> parts;
        for (auto& y : ys) parts.push_back(B::float_reshape(y, Shape{1, 1, batch, hs}));
        y_dirs.push_back(B::float_cat(parts, 0));  // [seq, 1, batch, hs]
        h_last.push_back(B::float_reshape(h, Shape{1, batch, hs}));
        c_last.push_back(B::float_reshape(c, Shape{1, batch, hs}));
    }
    auto y = B::float_cat(y_dirs, 1);
    auto yh = B::float_cat(h_last, 0);
    auto yc = B::float_cat(c_last, 0);
    if (at.layout == 1) {
        y = B::float_permute(y, std::vector<std::size_t>{2, 0, 1, 3});
        yh = B::float_swap_dims(yh, 0, 1);
        yc = B::float_swap_dims(yc, 0, 1);
    }
    std::vector<Value<B>> out{Value<B>(Float{}, y, x_in.type()),
                              Value<B>(Float{}, yh, x_in.type())};
    if (kind == RnnKind::Lstm) out.emplace_back(Float{}, yc, x_in.type());
    return out;
}

}  // namespace burn::onnx::ops

// SPDX-License-Identifier: MIT OR Apache-2.0
// Recurrent layers, as Burn's: GateController (the two Linear transforms of one gate), Lstm,
// BiLstm, Gru and BiGru. Inputs are batch-first, [batch, seq, d_input] (Lstm, BiLstm and BiGru
// take seq-first inputs with batch_first = false).
//
//   auto lstm = nn::LstmConfig{.d_input = 64, .d_hidden = 128, .bias = true}.init<B>(device);
//   auto [output, state] = lstm.forward(x);  // [batch, seq, 64] -> [batch, seq, 128], state.hidden
//   auto gru = nn::GruConfig{.d_input = 64, .d_hidden = 128, .bias = true}.init<B>(device);
//   Tensor<B, 3> y = gru.forward(x);         // [batch, seq, 128]
//
// Weights are stored per gate, as in Burn: each GateController holds input_transform
// ([d_input, d_hidden]) and hidden_transform ([d_hidden, d_hidden]) Linear layers. PyTorch's
// weight_ih_l0 ([G*d_hidden, d_input], gates stacked) maps to them as
// `input_transform.weight = weight_ih_l0[k*H:(k+1)*H].T` for the k-th PyTorch gate (LSTM: i, f,
// g, o = input_gate, forget_gate, cell_gate, output_gate; GRU: r, z, n = reset_gate, update_gate,
// new_gate); weight_hh_l0 likewise to hidden_transform, bias_ih / bias_hh to their biases.
// docs/nn-rnn.md has the tables.
//
// The forward passes concatenate the gates' weights (one [d_input, G*H] and one [H, G*H]
// matrix), project the inputs of every time step with one matrix product before the time loop
// and run one hidden product per step for all gates. On Autodiff<B>, each layer's sequence is
// one custom op (autodiff::custom_op, <burn/autodiff/custom_op.hpp>; rnn_detail::LstmOps /
// GruOps) whose backward function runs the time loop backwards on the inner backend and
// computes the weight gradients with one product each over the whole sequence; other backends
// run the same forward code (rnn_detail::lstm_forward / gru_forward).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "burn/autodiff/autodiff.hpp"
#include "burn/autodiff/custom_op.hpp"
#include "burn/config/config.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/nn/initializer.hpp"
#include "burn/nn/linear.hpp"
#include "burn/tensor/activation.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

// ====================================================================================
// GateController
/// One gate of a recurrent cell: `input_transform(x) + hidden_transform(h)` (Burn's
/// GateController). Both transforms are Linear layers with Burn's [d_in, d_out] weight layout.
template <Backend B>
struct GateController {
    Linear<B> input_transform;   ///< [d_input, d_output]
    Linear<B> hidden_transform;  ///< [d_output, d_output]
    BURN_MODULE(input_transform, hidden_transform)

    /// Burn's GateController::new: both transforms created by `initializer` (fans of each Linear).
    static GateController init(std::size_t d_input, std::size_t d_output, bool bias,
                               const Initializer& initializer,
                               const typename B::Device& device = {}) {
        return {
            LinearConfig{
                .d_input = d_input, .d_output = d_output, .bias = bias, .initializer = initializer}
                .init<B>(device),
            LinearConfig{
                .d_input = d_output, .d_output = d_output, .bias = bias, .initializer = initializer}
                .init<B>(device)};
    }

    std::size_t d_input() const { return input_transform.d_input(); }
    std::size_t d_output() const { return input_transform.d_output(); }
    bool has_bias() const { return input_transform.bias.has_value(); }

    /// `x W_x + b_x + h W_h + b_h`: x [batch, d_input], h [batch, d_output].
    Tensor<B, 2> gate_product(const Tensor<B, 2>& input, const Tensor<B, 2>& hidden) const {
        return input_transform.forward(input) + hidden_transform.forward(hidden);
    }
};

/// The cell and hidden states of an LSTM: [batch, d_hidden] for Lstm (D = 2), [2, batch,
/// d_hidden] for BiLstm (D = 3, forward direction first).
template <Backend B, std::size_t D>
struct LstmState {
    Tensor<B, D> cell;
    Tensor<B, D> hidden;
};

namespace rnn_detail {

/// The linears' weights side by side, [d_in, sum of d_out]: the gate blocks of a fused matrix.
template <Backend B>
Tensor<B, 2> cat_weights(std::initializer_list<const Linear<B>*> ls) {
    std::vector<Tensor<B, 2>> w;
    for (const auto* l : ls) w.push_back(l->weight.val());
    return Tensor<B, 2>::cat(std::move(w), 1);
}

/// The concatenated biases of the linears (zeros for a linear without one), or nothing when
/// none has a bias.
template <Backend B>
std::optional<Tensor<B, 1>> cat_biases(std::initializer_list<const Linear<B>*> ls) {
    if (std::none_of(ls.begin(), ls.end(), [](const auto* l) { return l->bias.has_value(); }))
        return std::nullopt;
    std::vector<Tensor<B, 1>> b;
    for (const auto* l : ls) {
        b.push_back(l->bias ? l->bias->val()
                            : Tensor<B, 1>::zeros(Shape{l->d_output()}, l->weight.val().device()));
    }
    return Tensor<B, 1>::cat(std::move(b), 0);
}

/// Checks that every gate maps d_input (input transform) and d_hidden (hidden transform) to
/// d_hidden: modules built field by field can disagree with their d_hidden.
template <Backend B>
void check_gates(std::initializer_list<const GateController<B>*> gates, std::size_t d_input,
                 std::size_t d_hidden, const char* who) {
    for (const auto* g : gates) {
        const Shape wi = g->input_transform.weight.shape(), wh = g->hidden_transform.weight.shape();
        BURN_CHECK(wi == Shape({d_input, d_hidden}) && wh == Shape({d_hidden, d_hidden}), who,
                   ": every gate needs an input transform [", d_input, ", ", d_hidden,
                   "] and a hidden transform [", d_hidden, ", ", d_hidden,
                   "] (d_hidden = ", d_hidden, "), got ", wi, " and ", wh);
    }
}

template <Backend B, std::size_t D>
void check_state(const Tensor<B, D>& t, const Shape& want, const char* what, const char* who) {
    BURN_CHECK(t.shape() == want, who, ": expected an initial ", what, " state of shape ", want,
               ", got ", t.shape());
}

/// What the LSTM's backward pass needs from each step, in processing order.
template <Backend B>
struct LstmSaved {
    std::vector<Tensor<B, 2>> sig;  ///< [batch, 3H]: sigmoid of the i, f, o pre-activations
    std::vector<Tensor<B, 2>> g;    ///< [batch, H]: tanh of the cell gate's pre-activation
    std::vector<Tensor<B, 2>> c;    ///< [batch, H]: the cell state after the step
    std::vector<Tensor<B, 2>> tc;   ///< [batch, H]: tanh of that cell state
};

/// The result of a sequence: every hidden state and the final states.
template <Backend B>
struct LstmRun {
    Tensor<B, 3> output;  ///< [batch, seq, H]
    Tensor<B, 2> cell;    ///< [batch, H]
    Tensor<B, 2> hidden;  ///< [batch, H]
};

/// The LSTM over a batch-first sequence x [batch, seq, d_in], with fused weights: wx [d_in, 4H]
/// and wh [H, 4H] whose column blocks are the gates i, f, o, g (sigmoid over the first 3H
/// columns, tanh over the last H), bias [4H] (input + hidden biases) or none, initial states
/// [batch, H] or none (zeros). `reverse` walks the sequence from its end. Fills `saved` when given.
template <Backend B>
LstmRun<B> lstm_forward(const Tensor<B, 3>& x, const Tensor<B, 2>& wx,
                        const std::optional<Tensor<B, 1>>& bias, const Tensor<B, 2>& wh,
                        const std::optional<Tensor<B, 2>>& h0,
                        const std::optional<Tensor<B, 2>>& c0, bool reverse, LstmSaved<B>* saved) {
    const auto [batch, seq, d_in] = x.dims();
    const std::size_t h4 = wh.dims()[1], h = h4 / 4;
    const auto ib = static_cast<std::int64_t>(batch), is = static_cast<std::int64_t>(seq);
    // Every step's input projection in one product.
    auto xw =
        x.template reshape<2>(std::array<std::int64_t, 2>{ib * is, std::int64_t(d_in)}).matmul(wx);
    if (bias) xw = std::move(xw) + bias->template unsqueeze<2>();
    const auto xw3 = xw.template reshape<3>(std::array<std::int64_t, 3>{ib, is, std::int64_t(h4)});

    std::optional<Tensor<B, 2>> hs = h0, cs = c0;
    std::vector<Tensor<B, 3>> outs;  // processing order
    outs.reserve(seq);
    if (saved) {
        saved->sig.reserve(seq);
        saved->g.reserve(seq);
        saved->c.reserve(seq);
        saved->tc.reserve(seq);
    }
    for (std::size_t s = 0; s < seq; ++s) {
        const std::size_t t = reverse ? seq - 1 - s : s;
        auto gates = xw3.narrow(1, t, 1).template reshape<2>(
            std::array<std::int64_t, 2>{ib, std::int64_t(h4)});  // a strided view
        if (hs) gates = hs->matmul(wh) + gates;
        auto sig = activation::sigmoid(gates.narrow(1, 0, 3 * h));
        auto g = gates.narrow(1, 3 * h, h).tanh();
        auto ig = sig.narrow(1, 0, h) * g;
        Tensor<B, 2> c = cs ? sig.narrow(1, h, h) * *cs + ig : std::move(ig);
        auto tc = c.tanh();
        hs = sig.narrow(1, 2 * h, h) * tc;
        outs.push_back(hs->template unsqueeze_dim<3>(1));
        cs = c;
        if (saved) {
            saved->sig.push_back(std::move(sig));
            saved->g.push_back(std::move(g));
            saved->c.push_back(std::move(c));
            saved->tc.push_back(std::move(tc));
        }
    }
    if (reverse) std::reverse(outs.begin(), outs.end());
    auto output = seq == 1 ? outs[0] : Tensor<B, 3>::cat(std::move(outs), 1);
    return {std::move(output), std::move(*cs), std::move(*hs)};
}

// ------------------------------------------------------------------ fused backward on Autodiff
// On Autodiff<IB, C>, a layer's whole sequence is one custom op (<burn/autodiff/custom_op.hpp>):
// the forward pass runs lstm_forward / gru_forward on the inner backend, keeping what the
// backward function reads, and the backward function runs the time loop backwards on IB.

/// An input that a fused backward function reads, kept as the checkpointing strategy says
/// (autodiff::save: recomputed during backward when it is a memory-bound op's output under
/// BalancedCheckpointing); empty when absent or not needed.
template <Backend IB, std::size_t D>
class Kept {
public:
    Kept() = default;
    explicit Kept(autodiff::Saved<typename IB::FloatTensor> s) : saved_(std::move(s)) {}

    Tensor<IB, D> get() const { return Tensor<IB, D>::from_primitive(saved_->get()); }
    std::optional<Tensor<IB, D>> get_if() const {
        if (!saved_) return std::nullopt;
        return get();
    }

private:
    std::optional<autodiff::Saved<typename IB::FloatTensor>> saved_;
};

/// Conversions between the tensors of Autodiff<IB, C> and those of its inner backend.
template <class IB, class C>
struct AutodiffRnn {
    using AD = Autodiff<IB, C>;

    template <std::size_t D>
    static Tensor<IB, D> inner(const Tensor<AD, D>& t) {
        return t.inner();
    }
    template <std::size_t D>
    static std::optional<Tensor<IB, D>> inner(const std::optional<Tensor<AD, D>>& t) {
        if (!t) return std::nullopt;
        return t->inner();
    }
    template <std::size_t D>
    static Tensor<AD, D> untracked(Tensor<IB, D> t) {
        return Tensor<AD, D>::from_inner(std::move(t));
    }
    /// `t` kept for the backward function when `wanted`.
    template <std::size_t D>
    static Kept<IB, D> keep(const Tensor<AD, D>& t, bool wanted = true) {
        if (!wanted) return {};
        return Kept<IB, D>(autodiff::save<C>(t.primitive()));
    }
    template <std::size_t D>
    static Kept<IB, D> keep(const std::optional<Tensor<AD, D>>& t, bool wanted = true) {
        if (!t) return {};
        return keep(*t, wanted);
    }
};

/// Per-step tensors [batch, 1, n], listed from the last time step to the first when `reversed`
/// (else from the first), as one [batch * seq, n] matrix with rows in time order, batch-major
/// (the layout of the input projection).
template <Backend B>
Tensor<B, 2> time_ordered(std::vector<Tensor<B, 3>> steps, bool reversed) {
    if (reversed) std::reverse(steps.begin(), steps.end());
    const auto d = steps[0].dims();
    const auto rows = static_cast<std::int64_t>(d[0] * steps.size());
    return (steps.size() == 1 ? steps[0] : Tensor<B, 3>::cat(std::move(steps), 1))
        .template reshape<2>(std::array<std::int64_t, 2>{rows, std::int64_t(d[2])});
}

/// The hidden state each step started from, in time order, [batch * seq, H]: the initial state
/// (zeros when absent) for the first step processed, then the outputs.
template <Backend B>
Tensor<B, 2> previous_hidden(const Tensor<B, 3>& output, const std::optional<Tensor<B, 2>>& h0,
                             bool reverse) {
    const auto [batch, seq, h] = output.dims();
    auto first = h0 ? h0->template unsqueeze_dim<3>(1)
                    : Tensor<B, 3>::zeros(Shape{batch, 1, h}, output.device());
    Tensor<B, 3> prev = first;
    if (seq > 1) {
        prev = reverse ? Tensor<B, 3>::cat({output.narrow(1, 1, seq - 1), first}, 1)
                       : Tensor<B, 3>::cat({first, output.narrow(1, 0, seq - 1)}, 1);
    }
    return prev.template reshape<2>(
        std::array<std::int64_t, 2>{std::int64_t(batch * seq), std::int64_t(h)});
}

/// The rows of `t` summed, [n].
template <Backend B>
Tensor<B, 1> sum_rows(const Tensor<B, 2>& t) {
    return t.sum_dim(0).template reshape<1>(std::array<std::int64_t, 1>{std::int64_t(t.dims()[1])});
}

/// What the fused backward functions share: the inputs 0, 1 and 2 of both ops are x, wx and the
/// input projection's bias, and both recur through wh.
template <Backend IB>
struct RnnBackward {
    using P = typename IB::FloatTensor;
    using Grads = std::vector<std::optional<P>>;

    Kept<IB, 3> x;   ///< for the gradient of wx
    Kept<IB, 2> wx;  ///< for the gradient of x
    Kept<IB, 2> wh;
    Kept<IB, 2> h0;
    bool reverse = false;

    /// wh transposed, dense: OpenBLAS runs [batch, G*H] x [G*H, H] about 1.6x faster with a
    /// row-major right operand than with a transposed view (measured on the development machine).
    Tensor<IB, 2> wh_transposed() const { return wh.get().transpose() + 0.0; }

    /// The gradients of x, wx and the bias (d[0], d[1], d[2], as `need` says) from that of the
    /// input projection x wx + b, dproj [batch * seq, G*H].
    void projection_grads(const Tensor<IB, 2>& dproj, const autodiff::Tracked& need,
                          Grads& d) const {
        if (need[0]) {
            d[0] = dproj.matmul(wx.get().transpose())
                       .template reshape<3>(need.shape(0))
                       .into_primitive();
        }
        if (need[1]) {
            const auto xs = x.get();
            const auto [batch, seq, d_in] = xs.dims();
            const auto x2 = xs.template reshape<2>(
                std::array<std::int64_t, 2>{std::int64_t(batch * seq), std::int64_t(d_in)});
            d[1] = x2.transpose().matmul(dproj).into_primitive();
        }
        if (need[2]) d[2] = sum_rows(dproj).into_primitive();
    }
};

/// The backward function of the fused LSTM (the custom op "lstm": inputs x, wx, bias, wh, h0,
/// c0; outputs the hidden states and the final cell state): the time loop run backwards (one
/// [batch, 4H] x [4H, H] product per step), then one product each for the gradients of x, wx
/// and wh.
template <Backend IB>
struct LstmBackward : RnnBackward<IB> {
    using P = typename IB::FloatTensor;
    Kept<IB, 2> c0;
    std::optional<Tensor<IB, 3>> output;  ///< for the gradient of wh
    LstmSaved<IB> saved;

    std::vector<std::optional<P>> operator()(std::vector<P> out_grads,
                                             const autodiff::Tracked& need) const {
        using T2 = Tensor<IB, 2>;
        const auto d_out = Tensor<IB, 3>::from_primitive(std::move(out_grads[0]));
        const auto [batch, seq, h] = d_out.dims();
        const std::array<std::int64_t, 2> bh{std::int64_t(batch), std::int64_t(h)};
        T2 dc = T2::from_primitive(std::move(out_grads[1]));
        const auto c0v = c0.get_if();
        std::optional<T2> dh_next;
        const auto wh_t = this->wh_transposed();
        std::vector<Tensor<IB, 3>> dgates;  // backward processing order
        dgates.reserve(seq);
        for (std::size_t s = seq; s-- > 0;) {
            const std::size_t t = this->reverse ? seq - 1 - s : s;
            T2 dh = d_out.narrow(1, t, 1).template reshape<2>(bh);
            if (dh_next) dh = std::move(*dh_next) + dh;
            const T2& sig = saved.sig[s];
            const T2& gt = saved.g[s];
            const T2& tc = saved.tc[s];
            const auto o = sig.narrow(1, 2 * h, h);
            auto d_o = dh * tc;
            // dc += dh * o * (1 - tanh(c)^2)
            auto dho = std::move(dh) * o;
            dc = dc + dho - dho * tc * tc;
            auto di = dc * gt;
            const std::optional<T2> c_prev = s > 0 ? std::optional<T2>(saved.c[s - 1]) : c0v;
            auto df = c_prev ? dc * *c_prev : T2::zeros(dc.shape(), dc.device());
            auto dg = dc * sig.narrow(1, 0, h);
            dc = dc * sig.narrow(1, h, h);
            // Pre-activation gradients: sigmoid' = s (1 - s), tanh' = 1 - g^2.
            auto dsig = T2::cat({std::move(di), std::move(df), std::move(d_o)}, 1);
            dsig = T2::from_primitive(IB::sigmoid_backward(sig.primitive(), dsig.into_primitive()));
            auto dgp = dg - dg * gt * gt;
            auto dgt = T2::cat({std::move(dsig), std::move(dgp)}, 1);
            // The first step's hidden gradient only feeds h0.
            if (s > 0 || need[4]) dh_next = dgt.matmul(wh_t);
            dgates.push_back(dgt.template unsqueeze_dim<3>(1));
        }
        const auto dg2 = time_ordered(std::move(dgates), !this->reverse);
        std::vector<std::optional<P>> d(6);  // x, wx, bias, wh, h0, c0
        this->projection_grads(dg2, need, d);
        if (need[3]) {
            const auto prev = previous_hidden(*output, this->h0.get_if(), this->reverse);
            d[3] = prev.transpose().matmul(dg2).into_primitive();
        }
        if (need[4])
            d[4] = (dh_next ? *dh_next : T2::zeros(Shape{batch, h}, dc.device())).into_primitive();
        if (need[5]) d[5] = std::move(dc).into_primitive();
        return d;
    }
};

/// Runs lstm_forward; the specialisation for Autodiff records the whole sequence as one node.
template <class B>
struct LstmOps {
    static LstmRun<B> run(const Tensor<B, 3>& x, const Tensor<B, 2>& wx,
                          const std::optional<Tensor<B, 1>>& bias, const Tensor<B, 2>& wh,
                          const std::optional<Tensor<B, 2>>& h0,
                          const std::optional<Tensor<B, 2>>& c0, bool reverse) {
        return lstm_forward<B>(x, wx, bias, wh, h0, c0, reverse, nullptr);
    }
};

template <class IB, class C>
struct LstmOps<Autodiff<IB, C>> {
    using AD = Autodiff<IB, C>;
    using R = AutodiffRnn<IB, C>;

    static LstmRun<AD> run(const Tensor<AD, 3>& x, const Tensor<AD, 2>& wx,
                           const std::optional<Tensor<AD, 1>>& bias, const Tensor<AD, 2>& wh,
                           const std::optional<Tensor<AD, 2>>& h0,
                           const std::optional<Tensor<AD, 2>>& c0, bool reverse) {
        autodiff::OpInputs<IB> in{x, wx, bias, wh, h0, c0};
        const autodiff::Tracked need = in.tracked();
        LstmSaved<IB> saved;
        auto r =
            lstm_forward<IB>(R::inner(x), R::inner(wx), R::inner(bias), R::inner(wh), R::inner(h0),
                             R::inner(c0), reverse, need.any() ? &saved : nullptr);
        if (!need.any()) {
            return {R::untracked(std::move(r.output)), R::untracked(std::move(r.cell)),
                    R::untracked(std::move(r.hidden))};
        }
        // Each input is kept only for the gradients that read it (wh and c0: all of them).
        LstmBackward<IB> backward;
        backward.x = R::keep(x, need[1]);
        backward.wx = R::keep(wx, need[0]);
        backward.wh = R::keep(wh);
        backward.h0 = R::keep(h0, need[3]);
        backward.c0 = R::keep(c0);
        backward.reverse = reverse;
        backward.saved = std::move(saved);
        if (need[3]) backward.output = r.output;
        // One node for the whole sequence, with two outputs: the hidden states and the final
        // cell state. The final hidden state is the output of the last step processed.
        auto out = autodiff::custom_op(
            "lstm", std::move(in),
            std::vector{std::move(r.output).into_primitive(), std::move(r.cell).into_primitive()},
            std::move(backward));
        const std::size_t batch = x.dims()[0], seq = x.dims()[1], h = wh.dims()[0];
        const std::array<std::int64_t, 2> bh{std::int64_t(batch), std::int64_t(h)};
        auto output = Tensor<AD, 3>::from_primitive(std::move(out[0]));
        auto hidden = output.narrow(1, reverse ? 0 : seq - 1, 1).template reshape<2>(bh);
        return {std::move(output), Tensor<AD, 2>::from_primitive(std::move(out[1])),
                std::move(hidden)};
    }
};

/// What the GRU's backward pass needs from each step.
template <Backend B>
struct GruSaved {
    std::vector<Tensor<B, 2>> rz;  ///< [batch, 2H]: sigmoid of the r and z pre-activations
    std::vector<Tensor<B, 2>> hn;  ///< [batch, H]: h W_hn + b_hn (reset_after only)
    std::vector<Tensor<B, 2>> rh;  ///< [batch, H]: r * h (reset_before only)
    std::vector<Tensor<B, 2>> n;   ///< [batch, H]: the new gate's output
};

/// The GRU over a batch-first sequence x [batch, seq, d_in] with fused weights: wx [d_in, 3H] and
/// wh [H, 3H] with column blocks r, z, n, biases bx, bh [3H] or none, initial state [batch, H]
/// or none (zeros). `reverse` walks the sequence from its end. Returns every step's hidden state
/// [batch, seq, H] (in input order); fills `saved` (in processing order) when given.
template <Backend B>
Tensor<B, 3> gru_forward(const Tensor<B, 3>& x, const Tensor<B, 2>& wx,
                         const std::optional<Tensor<B, 1>>& bx, const Tensor<B, 2>& wh,
                         const std::optional<Tensor<B, 1>>& bh,
                         const std::optional<Tensor<B, 2>>& h0, bool reset_after,
                         bool reverse = false, GruSaved<B>* saved = nullptr) {
    // Named copies, not structured bindings: lambdas below capture them (clang 14 cannot
    // capture a structured binding).
    const auto x_dims = x.dims();
    const std::size_t batch = x_dims[0], seq = x_dims[1], d_in = x_dims[2];
    const std::size_t h = wh.dims()[0];
    const auto ib = static_cast<std::int64_t>(batch), ih = static_cast<std::int64_t>(h);
    auto xw = x.template reshape<2>(
                   std::array<std::int64_t, 2>{ib * std::int64_t(seq), std::int64_t(d_in)})
                  .matmul(wx);
    if (bx) xw = std::move(xw) + bx->template unsqueeze<2>();
    const auto xw3 =
        xw.template reshape<3>(std::array<std::int64_t, 3>{ib, std::int64_t(seq), 3 * ih});
    // reset_after: one hidden product for the three gates; otherwise r and z first, then the
    // new gate's transform of r * h.
    const auto wh_rz = wh.narrow(1, 0, 2 * h), wh_n = wh.narrow(1, 2 * h, h);
    std::optional<Tensor<B, 1>> bh_rz, bh_n;
    if (bh) {
        bh_rz = bh->narrow(0, 0, 2 * h);
        bh_n = bh->narrow(0, 2 * h, h);
    }
    std::optional<Tensor<B, 2>> hs = h0;
    std::vector<Tensor<B, 3>> outs;  // processing order
    outs.reserve(seq);
    for (std::size_t s = 0; s < seq; ++s) {
        const std::size_t t = reverse ? seq - 1 - s : s;
        const auto xt =
            xw3.narrow(1, t, 1).template reshape<2>(std::array<std::int64_t, 2>{ib, 3 * ih});
        // The hidden products (zero at the first step without an initial state).
        std::optional<Tensor<B, 2>> hw;
        if (hs) hw = hs->matmul(reset_after ? wh : wh_rz);
        if (bh) {
            const auto& b = reset_after ? *bh : *bh_rz;
            hw = hw ? std::move(*hw) + b.template unsqueeze<2>()
                    : b.template unsqueeze<2>().template expand<2>(Shape{batch, b.dims()[0]});
        }
        auto a = xt.narrow(1, 0, 2 * h);
        const auto rz = activation::sigmoid(hw ? hw->narrow(1, 0, 2 * h) + a : a);
        const auto r = rz.narrow(1, 0, h), z = rz.narrow(1, h, h);
        Tensor<B, 2> pre = xt.narrow(1, 2 * h, h);
        std::optional<Tensor<B, 2>> hn, rh;
        if (reset_after) {
            if (hw) {
                hn = hw->narrow(1, 2 * h, h);
                pre = r * *hn + pre;
            }
        } else {
            if (hs) {
                rh = r * *hs;
                pre = rh->matmul(wh_n) + pre;
            }
            if (bh_n) pre = std::move(pre) + bh_n->template unsqueeze<2>();
        }
        auto n = pre.tanh();
        Tensor<B, 2> next = hs ? n + z * (*hs - n) : n - z * n;  // (1 - z) * n + z * h
        outs.push_back(next.template unsqueeze_dim<3>(1));
        hs = std::move(next);
        if (saved) {
            const auto zeros = [&] { return Tensor<B, 2>::zeros(Shape{batch, h}, x.device()); };
            saved->rz.push_back(rz);
            if (reset_after) saved->hn.push_back(hn ? *hn : zeros());
            else saved->rh.push_back(rh ? *rh : zeros());
            saved->n.push_back(std::move(n));
        }
    }
    if (reverse) std::reverse(outs.begin(), outs.end());
    return seq == 1 ? outs[0] : Tensor<B, 3>::cat(std::move(outs), 1);
}

/// The backward function of the fused GRU (the custom op "gru": inputs x, wx, bx, wh, bh, h0;
/// output the hidden states): the time loop backwards with one hidden product per step (two
/// without reset_after), then one product each for the gradients of x, wx and wh.
template <Backend IB>
struct GruBackward : RnnBackward<IB> {
    using P = typename IB::FloatTensor;
    Tensor<IB, 3> output;  ///< every step's hidden state: the state the next step started from
    GruSaved<IB> saved;
    bool reset_after = true;

    explicit GruBackward(Tensor<IB, 3> out) : output(std::move(out)) {}

    std::vector<std::optional<P>> operator()(P grad, const autodiff::Tracked& need) const {
        using T2 = Tensor<IB, 2>;
        using T3 = Tensor<IB, 3>;
        const bool reverse = this->reverse;
        // Named copies, not structured bindings: a lambda below captures them (clang 14 cannot
        // capture a structured binding).
        const auto d_out = T3::from_primitive(std::move(grad));
        const auto out_dims = d_out.dims();
        const std::size_t batch = out_dims[0], seq = out_dims[1], h = out_dims[2];
        const auto ih = static_cast<std::int64_t>(h);
        const std::array<std::int64_t, 2> bh{std::int64_t(batch), ih};
        const auto h0 = this->h0.get_if();
        const auto wh_t = this->wh_transposed();  // [3H, H]
        const auto wrz_t = wh_t.narrow(0, 0, 2 * h), wn_t = wh_t.narrow(0, 2 * h, h);
        std::optional<T2> dh_next;
        std::vector<T3> dxw, dhw, dhn;  // backward processing order
        dxw.reserve(seq);
        dhw.reserve(seq);
        dhn.reserve(seq);
        const auto order = [&](std::size_t s) { return reverse ? seq - 1 - s : s; };
        for (std::size_t s = seq; s-- > 0;) {
            const std::size_t t = order(s);
            T2 dh = d_out.narrow(1, t, 1).template reshape<2>(bh);
            if (dh_next) dh = std::move(*dh_next) + dh;
            std::optional<T2> h_prev;
            if (s > 0) h_prev = output.narrow(1, order(s - 1), 1).template reshape<2>(bh);
            else h_prev = h0;
            const T2& rz = saved.rz[s];
            const T2& n = saved.n[s];
            const auto r = rz.narrow(1, 0, h), z = rz.narrow(1, h, h);
            auto dhz = dh * z;
            auto dn = dh - dhz;
            auto dz = h_prev ? dh * (*h_prev - n) : (dh * n).neg();
            auto dpre = dn - dn * n * n;
            T2 dnext = std::move(dhz);  // the direct path z * h
            if (reset_after) {
                auto dr = dpre * saved.hn[s];
                auto dhn_t = dpre * r;
                auto da = T2::from_primitive(IB::sigmoid_backward(
                    rz.primitive(), T2::cat({std::move(dr), std::move(dz)}, 1).into_primitive()));
                auto dhw_t = T2::cat({da, std::move(dhn_t)}, 1);
                dxw.push_back(
                    T2::cat({std::move(da), std::move(dpre)}, 1).template unsqueeze_dim<3>(1));
                dnext = dhw_t.matmul(wh_t) + dnext;
                dhw.push_back(dhw_t.template unsqueeze_dim<3>(1));
            } else {
                auto drh = dpre.matmul(wn_t);
                auto dr = h_prev ? drh * *h_prev : T2::zeros(dh.shape(), dh.device());
                dnext = drh * r + dnext;
                auto da = T2::from_primitive(IB::sigmoid_backward(
                    rz.primitive(), T2::cat({std::move(dr), std::move(dz)}, 1).into_primitive()));
                dnext = da.matmul(wrz_t) + dnext;
                dhn.push_back(dpre.template unsqueeze_dim<3>(1));
                dhw.push_back(da.template unsqueeze_dim<3>(1));
                dxw.push_back(
                    T2::cat({std::move(da), std::move(dpre)}, 1).template unsqueeze_dim<3>(1));
            }
            dh_next = std::move(dnext);
        }
        std::vector<std::optional<P>> d(6);  // x, wx, bx, wh, bh, h0
        this->projection_grads(time_ordered(std::move(dxw), !reverse), need, d);
        if (need[3] || need[4]) {
            const auto prev = previous_hidden(output, h0, reverse);
            if (reset_after) {
                const auto dhw2 = time_ordered(std::move(dhw), !reverse);
                if (need[3]) d[3] = prev.transpose().matmul(dhw2).into_primitive();
                if (need[4]) d[4] = sum_rows(dhw2).into_primitive();
            } else {
                const auto da2 = time_ordered(std::move(dhw), !reverse);
                const auto dn2 = time_ordered(std::move(dhn), !reverse);
                if (need[3]) {
                    std::vector<T3> rh;  // forward processing order
                    rh.reserve(seq);
                    for (const T2& v : saved.rh) rh.push_back(v.template unsqueeze_dim<3>(1));
                    const auto rh2 = time_ordered(std::move(rh), reverse);
                    d[3] = T2::cat({prev.transpose().matmul(da2), rh2.transpose().matmul(dn2)}, 1)
                               .into_primitive();
                }
                if (need[4])
                    d[4] = T2::cat({sum_rows(da2).template unsqueeze<2>(),
                                    sum_rows(dn2).template unsqueeze<2>()},
                                   1)
                               .template reshape<1>(std::array<std::int64_t, 1>{3 * ih})
                               .into_primitive();
            }
        }
        if (need[5]) d[5] = dh_next->into_primitive();
        return d;
    }
};

/// Runs gru_forward; the specialisation for Autodiff records the whole sequence as one node.
template <class B>
struct GruOps {
    static Tensor<B, 3> run(const Tensor<B, 3>& x, const Tensor<B, 2>& wx,
                            const std::optional<Tensor<B, 1>>& bx, const Tensor<B, 2>& wh,
                            const std::optional<Tensor<B, 1>>& bh,
                            const std::optional<Tensor<B, 2>>& h0, bool reset_after,
                            bool reverse = false) {
        return gru_forward<B>(x, wx, bx, wh, bh, h0, reset_after, reverse, nullptr);
    }
};

template <class IB, class C>
struct GruOps<Autodiff<IB, C>> {
    using AD = Autodiff<IB, C>;
    using R = AutodiffRnn<IB, C>;

    static Tensor<AD, 3> run(const Tensor<AD, 3>& x, const Tensor<AD, 2>& wx,
                             const std::optional<Tensor<AD, 1>>& bx, const Tensor<AD, 2>& wh,
                             const std::optional<Tensor<AD, 1>>& bh,
                             const std::optional<Tensor<AD, 2>>& h0, bool reset_after,
                             bool reverse = false) {
        autodiff::OpInputs<IB> in{x, wx, bx, wh, bh, h0};
        const autodiff::Tracked need = in.tracked();
        GruSaved<IB> saved;
        auto out =
            gru_forward<IB>(R::inner(x), R::inner(wx), R::inner(bx), R::inner(wh), R::inner(bh),
                            R::inner(h0), reset_after, reverse, need.any() ? &saved : nullptr);
        if (!need.any()) return R::untracked(std::move(out));
        // Each input is kept only for the gradients that read it (wh and h0: all of them).
        GruBackward<IB> backward(out);
        backward.x = R::keep(x, need[1]);
        backward.wx = R::keep(wx, need[0]);
        backward.wh = R::keep(wh);
        backward.h0 = R::keep(h0);
        backward.reverse = reverse;
        backward.saved = std::move(saved);
        backward.reset_after = reset_after;
        return Tensor<AD, 3>::from_primitive(autodiff::custom_op(
            "gru", std::move(in), std::move(out).into_primitive(), std::move(backward)));
    }
};

}  // namespace rnn_detail

// ============================================================================================ Lstm
template <Backend B>
struct Lstm;

/// Configuration of an Lstm (Burn's LstmConfig).
struct LstmConfig {
    Required<std::size_t> d_input;   ///< size of the input features
    Required<std::size_t> d_hidden;  ///< size of the hidden state
    Required<bool> bias;             ///< biases in the gates' transforms
    /// Weights and biases of every gate's transforms (Burn: XavierNormal, gain 1).
    Initializer initializer = Initializer::XavierNormal{.gain = 1.0};
    /// true: inputs and outputs are [batch, seq, features]; false: [seq, batch, features].
    bool batch_first = true;
    /// Walk the sequence from its last step to its first (outputs stay in input order).
    bool reverse = false;
    BURN_CONFIG(LstmConfig, d_input, d_hidden, bias, initializer, batch_first, reverse)

    template <Backend B>
    Lstm<B> init(const typename B::Device& device = {}) const;
};

/// A unidirectional LSTM (Burn's Lstm; torch.nn.LSTM with one layer):
///   i = sigmoid(x W_ii + b_ii + h W_hi + b_hi)   (input_gate)
///   f = sigmoid(x W_if + b_if + h W_hf + b_hf)   (forget_gate)
///   g = tanh(x W_ig + b_ig + h W_hg + b_hg)      (cell_gate)
///   o = sigmoid(x W_io + b_io + h W_ho + b_ho)   (output_gate)
///   c' = f * c + i * g,  h' = o * tanh(c')
template <Backend B>
struct Lstm {
    GateController<B> input_gate;
    GateController<B> forget_gate;
    GateController<B> output_gate;
    GateController<B> cell_gate;
    std::size_t d_hidden = 0;
    bool batch_first = true;
    bool reverse = false;
    BURN_MODULE(input_gate, forget_gate, output_gate, cell_gate, d_hidden, batch_first, reverse)

    std::size_t d_input() const { return input_gate.d_input(); }

    /// x: [batch, seq, d_input] ([seq, batch, d_input] when !batch_first); state: the initial
    /// cell and hidden states, [batch, d_hidden] each (zeros when absent). Returns every step's
    /// hidden state, [batch, seq, d_hidden] (seq-first when !batch_first), and the final states.
    std::pair<Tensor<B, 3>, LstmState<B, 2>> forward(
        const Tensor<B, 3>& x, const std::optional<LstmState<B, 2>>& state = std::nullopt) const {
        const auto input = batch_first ? x : x.swap_dims(0, 1);
        auto r = run(input, state, reverse, "Lstm::forward");
        if (!batch_first) r.output = r.output.swap_dims(0, 1);
        return {std::move(r.output), LstmState<B, 2>{std::move(r.cell), std::move(r.hidden)}};
    }

    /// The sequence over a batch-first input, walked in the given direction (BiLstm uses it).
    rnn_detail::LstmRun<B> run(const Tensor<B, 3>& x, const std::optional<LstmState<B, 2>>& state,
                               bool backwards, const char* who) const {
        const auto dims = x.dims();
        BURN_CHECK(dims[2] == d_input(), who, ": expected an input of shape [batch, seq, ",
                   d_input(), "] (batch-first), got ", x.shape());
        BURN_CHECK(dims[1] > 0, who, ": the sequence is empty (input shape ", x.shape(), ")");
        std::optional<Tensor<B, 2>> h0, c0;
        if (state) {
            const Shape want{dims[0], d_hidden};
            rnn_detail::check_state(state->cell, want, "cell", who);
            rnn_detail::check_state(state->hidden, want, "hidden", who);
            h0 = state->hidden;
            c0 = state->cell;
        }
        rnn_detail::check_gates<B>({&input_gate, &forget_gate, &output_gate, &cell_gate}, d_input(),
                                   d_hidden, who);
        const auto wx =
            rnn_detail::cat_weights<B>({&input_gate.input_transform, &forget_gate.input_transform,
                                        &output_gate.input_transform, &cell_gate.input_transform});
        const auto wh = rnn_detail::cat_weights<B>(
            {&input_gate.hidden_transform, &forget_gate.hidden_transform,
             &output_gate.hidden_transform, &cell_gate.hidden_transform});
        std::optional<Tensor<B, 1>> bias;
        const auto bx =
            rnn_detail::cat_biases<B>({&input_gate.input_transform, &forget_gate.input_transform,
                                       &output_gate.input_transform, &cell_gate.input_transform});
        const auto bh =
            rnn_detail::cat_biases<B>({&input_gate.hidden_transform, &forget_gate.hidden_transform,
                                       &output_gate.hidden_transform, &cell_gate.hidden_transform});
        if (bx && bh) bias = *bx + *bh;
        else if (bx) bias = bx;
        else if (bh) bias = bh;
        return rnn_detail::LstmOps<B>::run(x, wx, bias, wh, h0, c0, backwards);
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_input", d_input()).add("d_hidden", d_hidden).add("bias", input_gate.has_bias());
    }
};

template <Backend B>
Lstm<B> LstmConfig::init(const typename B::Device& device) const {
    BURN_CHECK(*d_input > 0 && *d_hidden > 0,
               "LstmConfig::init: d_input and d_hidden must be "
               "positive, got d_input = ",
               *d_input, ", d_hidden = ", *d_hidden);
    const auto gate = [&] {
        return GateController<B>::init(*d_input, *d_hidden, *bias, initializer, device);
    };
    // Burn's order of creation: input, forget, output, cell.
    auto ig = gate();
    auto fg = gate();
    auto og = gate();
    auto cg = gate();
    return Lstm<B>{std::move(ig), std::move(fg), std::move(og), std::move(cg),
                   *d_hidden,     batch_first,   reverse};
}

// ========================================================================================== BiLstm
template <Backend B>
struct BiLstm;

/// Configuration of a BiLstm (Burn's BiLstmConfig).
struct BiLstmConfig {
    Required<std::size_t> d_input;
    Required<std::size_t> d_hidden;
    Required<bool> bias;
    Initializer initializer = Initializer::XavierNormal{.gain = 1.0};
    bool batch_first = true;
    BURN_CONFIG(BiLstmConfig, d_input, d_hidden, bias, initializer, batch_first)

    template <Backend B>
    BiLstm<B> init(const typename B::Device& device = {}) const;
};

/// A bidirectional LSTM (Burn's BiLstm; torch.nn.LSTM with bidirectional=True, one layer): two
/// Lstm, one over the sequence and one over it reversed; the output concatenates their hidden
/// states, [batch, seq, 2 * d_hidden] (forward first), and the states stack them, [2, batch,
/// d_hidden].
template <Backend B>
struct BiLstm {
    Lstm<B> forward_lstm;  ///< Burn's field `forward` (a name taken by the method here)
    Lstm<B> reverse_lstm;  ///< Burn's field `reverse`
    std::size_t d_hidden = 0;
    bool batch_first = true;
    BURN_MODULE(forward_lstm, reverse_lstm, d_hidden, batch_first)

    std::size_t d_input() const { return forward_lstm.d_input(); }

    std::pair<Tensor<B, 3>, LstmState<B, 3>> forward(
        const Tensor<B, 3>& x, const std::optional<LstmState<B, 3>>& state = std::nullopt) const {
        const auto input = batch_first ? x : x.swap_dims(0, 1);
        std::optional<LstmState<B, 2>> sf, sr;
        if (state) {
            const auto dims = input.dims();
            const Shape want{2, dims[0], d_hidden};
            rnn_detail::check_state(state->cell, want, "cell", "BiLstm::forward");
            rnn_detail::check_state(state->hidden, want, "hidden", "BiLstm::forward");
            const std::array<std::int64_t, 2> bh{std::int64_t(dims[0]), std::int64_t(d_hidden)};
            const auto part = [&](const Tensor<B, 3>& t, std::size_t i) {
                return t.narrow(0, i, 1).template reshape<2>(bh);
            };
            sf = LstmState<B, 2>{part(state->cell, 0), part(state->hidden, 0)};
            sr = LstmState<B, 2>{part(state->cell, 1), part(state->hidden, 1)};
        }
        auto f = forward_lstm.run(input, sf, false, "BiLstm::forward");
        auto r = reverse_lstm.run(input, sr, true, "BiLstm::forward");
        auto output = Tensor<B, 3>::cat({std::move(f.output), std::move(r.output)}, 2);
        if (!batch_first) output = output.swap_dims(0, 1);
        LstmState<B, 3> out_state{
            Tensor<B, 2>::template stack<3>({std::move(f.cell), std::move(r.cell)}, 0),
            Tensor<B, 2>::template stack<3>({std::move(f.hidden), std::move(r.hidden)}, 0)};
        return {std::move(output), std::move(out_state)};
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_input", d_input())
            .add("d_hidden", d_hidden)
            .add("bias", forward_lstm.input_gate.has_bias());
    }
};

template <Backend B>
BiLstm<B> BiLstmConfig::init(const typename B::Device& device) const {
    BURN_CHECK(*d_input > 0 && *d_hidden > 0,
               "BiLstmConfig::init: d_input and d_hidden must be "
               "positive, got d_input = ",
               *d_input, ", d_hidden = ", *d_hidden);
    const LstmConfig base{.d_input = *d_input,
                          .d_hidden = *d_hidden,
                          .bias = *bias,
                          .initializer = initializer,
                          .batch_first = true,
                          .reverse = false};
    auto f = base.init<B>(device);
    auto r = base.init<B>(device);
    return BiLstm<B>{std::move(f), std::move(r), *d_hidden, batch_first};
}

// ============================================================================================= Gru
template <Backend B>
struct Gru;

/// Configuration of a Gru (Burn's GruConfig).
struct GruConfig {
    Required<std::size_t> d_input;
    Required<std::size_t> d_hidden;
    Required<bool> bias;
    /// true (Burn's and PyTorch's formula): the reset gate multiplies the hidden transform's
    /// output, n = tanh(x W_in + b_in + r * (h W_hn + b_hn)); false (the paper's v3): it
    /// multiplies the hidden state first, n = tanh(x W_in + b_in + (r * h) W_hn + b_hn).
    bool reset_after = true;
    Initializer initializer = Initializer::XavierNormal{.gain = 1.0};
    BURN_CONFIG(GruConfig, d_input, d_hidden, bias, reset_after, initializer)

    template <Backend B>
    Gru<B> init(const typename B::Device& device = {}) const;
};

/// A unidirectional GRU (Burn's Gru; torch.nn.GRU with one layer and batch_first=True):
///   z = sigmoid(x W_iz + b_iz + h W_hz + b_hz)   (update_gate)
///   r = sigmoid(x W_ir + b_ir + h W_hr + b_hr)   (reset_gate)
///   n = tanh(x W_in + b_in + r * (h W_hn + b_hn)) (new_gate; see reset_after)
///   h' = (1 - z) * n + z * h
template <Backend B>
struct Gru {
    GateController<B> update_gate;
    GateController<B> reset_gate;
    GateController<B> new_gate;
    std::size_t d_hidden = 0;
    bool reset_after = true;
    BURN_MODULE(update_gate, reset_gate, new_gate, d_hidden, reset_after)

    std::size_t d_input() const { return update_gate.d_input(); }

    /// x: [batch, seq, d_input]; state: the initial hidden state [batch, d_hidden] (zeros when
    /// absent). Returns every step's hidden state, [batch, seq, d_hidden] (as Burn, the final
    /// state is its last step).
    Tensor<B, 3> forward(const Tensor<B, 3>& x,
                         const std::optional<Tensor<B, 2>>& state = std::nullopt) const {
        return run(x, state, false, "Gru::forward");
    }

    /// The sequence walked in the given direction (BiGru uses it).
    Tensor<B, 3> run(const Tensor<B, 3>& x, const std::optional<Tensor<B, 2>>& state,
                     bool backwards, const char* who) const {
        const auto [batch, seq, d_in] = x.dims();
        BURN_CHECK(d_in == d_input(), who, ": expected an input of shape [batch, seq, ", d_input(),
                   "] (batch-first), got ", x.shape());
        BURN_CHECK(seq > 0, who, ": the sequence is empty (input shape ", x.shape(), ")");
        if (state) rnn_detail::check_state(*state, Shape{batch, d_hidden}, "hidden", who);
        rnn_detail::check_gates<B>({&update_gate, &reset_gate, &new_gate}, d_input(), d_hidden,
                                   who);
        // Fused gates, columns r, z, n.
        const std::initializer_list<const Linear<B>*> in{
            &reset_gate.input_transform, &update_gate.input_transform, &new_gate.input_transform};
        const std::initializer_list<const Linear<B>*> hid{&reset_gate.hidden_transform,
                                                          &update_gate.hidden_transform,
                                                          &new_gate.hidden_transform};
        return rnn_detail::GruOps<B>::run(
            x, rnn_detail::cat_weights<B>(in), rnn_detail::cat_biases<B>(in),
            rnn_detail::cat_weights<B>(hid), rnn_detail::cat_biases<B>(hid), state, reset_after,
            backwards);
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_input", d_input())
            .add("d_hidden", d_hidden)
            .add("bias", update_gate.has_bias())
            .add("reset_after", reset_after);
    }
};

template <Backend B>
Gru<B> GruConfig::init(const typename B::Device& device) const {
    BURN_CHECK(*d_input > 0 && *d_hidden > 0,
               "GruConfig::init: d_input and d_hidden must be "
               "positive, got d_input = ",
               *d_input, ", d_hidden = ", *d_hidden);
    const auto gate = [&] {
        return GateController<B>::init(*d_input, *d_hidden, *bias, initializer, device);
    };
    auto u = gate();
    auto r = gate();
    auto n = gate();
    return Gru<B>{std::move(u), std::move(r), std::move(n), *d_hidden, reset_after};
}

// =========================================================================================== BiGru
template <Backend B>
struct BiGru;

/// Configuration of a BiGru (Burn's BiGruConfig).
struct BiGruConfig {
    Required<std::size_t> d_input;
    Required<std::size_t> d_hidden;
    Required<bool> bias;
    bool reset_after = true;
    Initializer initializer = Initializer::XavierNormal{.gain = 1.0};
    /// true: inputs and outputs are [batch, seq, features]; false: [seq, batch, features].
    bool batch_first = true;
    BURN_CONFIG(BiGruConfig, d_input, d_hidden, bias, reset_after, initializer, batch_first)

    template <Backend B>
    BiGru<B> init(const typename B::Device& device = {}) const;
};

/// A bidirectional GRU (Burn's BiGru; torch.nn.GRU with bidirectional=True, one layer): two Gru,
/// one over the sequence and one over it reversed; the output concatenates their hidden states,
/// [batch, seq, 2 * d_hidden] (forward first), and the final states stack them, [2, batch,
/// d_hidden].
template <Backend B>
struct BiGru {
    Gru<B> forward_gru;  ///< Burn's field `forward`
    Gru<B> reverse_gru;  ///< Burn's field `reverse`
    std::size_t d_hidden = 0;
    bool batch_first = true;
    BURN_MODULE(forward_gru, reverse_gru, d_hidden, batch_first)

    std::size_t d_input() const { return forward_gru.d_input(); }

    /// x: [batch, seq, d_input] ([seq, batch, d_input] when !batch_first); state: the initial
    /// hidden states [2, batch, d_hidden] (forward first; zeros when absent). Returns the output
    /// sequence and the final hidden states [2, batch, d_hidden].
    std::pair<Tensor<B, 3>, Tensor<B, 3>> forward(
        const Tensor<B, 3>& x, const std::optional<Tensor<B, 3>>& state = std::nullopt) const {
        const auto input = batch_first ? x : x.swap_dims(0, 1);
        const auto dims = input.dims();
        const std::array<std::int64_t, 2> bh{std::int64_t(dims[0]), std::int64_t(d_hidden)};
        std::optional<Tensor<B, 2>> sf, sr;
        if (state) {
            rnn_detail::check_state(*state, Shape{2, dims[0], d_hidden}, "hidden",
                                    "BiGru::forward");
            sf = state->narrow(0, 0, 1).template reshape<2>(bh);
            sr = state->narrow(0, 1, 1).template reshape<2>(bh);
        }
        auto f = forward_gru.run(input, sf, false, "BiGru::forward");
        auto r = reverse_gru.run(input, sr, true, "BiGru::forward");
        auto hf = f.narrow(1, dims[1] - 1, 1).template reshape<2>(bh);
        auto hr = r.narrow(1, 0, 1).template reshape<2>(bh);
        auto output = Tensor<B, 3>::cat({std::move(f), std::move(r)}, 2);
        if (!batch_first) output = output.swap_dims(0, 1);
        return {std::move(output),
                Tensor<B, 2>::template stack<3>({std::move(hf), std::move(hr)}, 0)};
    }

    module::DisplaySettings display_settings(const module::DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(module::DisplayContent& c) const {
        c.add("d_input", d_input())
            .add("d_hidden", d_hidden)
            .add("bias", forward_gru.update_gate.has_bias());
    }
};

template <Backend B>
BiGru<B> BiGruConfig::init(const typename B::Device& device) const {
    BURN_CHECK(*d_input > 0 && *d_hidden > 0,
               "BiGruConfig::init: d_input and d_hidden must be "
               "positive, got d_input = ",
               *d_input, ", d_hidden = ", *d_hidden);
    const GruConfig base{.d_input = *d_input,
                         .d_hidden = *d_hidden,
                         .bias = *bias,
                         .reset_after = reset_after,
                         .initializer = initializer};
    auto f = base.init<B>(device);
    auto r = base.init<B>(device);
    return BiGru<B>{std::move(f), std::move(r), *d_hidden, batch_first};
}

}  // namespace burn::nn

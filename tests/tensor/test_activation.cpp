// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::activation:: against PyTorch (tests/fixtures/activation.json, gen_activation.py): every
// function on ordinary and extreme inputs (+-100, +-1e4, 0, +-inf, NaN), contiguous and strided;
// softmax / log_softmax / softmin / quiet_softmax along every dim of rank-3 inputs, on transposed
// and permuted views, on rows of -inf / NaN / +-1e4, and on a [64, 1000] input checked against
// the composite formula; the backend's backward helpers against torch autograd; argument errors.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_activation {

namespace {

using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;
namespace act = burn::activation;

constexpr const char* kFile = "activation";

template <class B, std::size_t D>
Tensor<B, D> in(const std::string& c, const std::string& name) {
    return burn::testing::fixture_input<B, D>(kFile, c, name);
}

TensorData out(const std::string& c, const std::string& name) {
    return burn::testing::fixture_output(kFile, c, name);
}

/// The input `name` of case `c` as stored, and as a strided view (stored transposed, transposed
/// back here) when the case has one.
template <class B, std::size_t D>
std::vector<std::pair<std::string, Tensor<B, D>>> layouts(const std::string& c,
                                                          const std::string& name) {
    std::vector<std::pair<std::string, Tensor<B, D>>> v;
    v.emplace_back("contiguous", in<B, D>(c, name));
    if (burn::testing::fixture(kFile, c).at("inputs").contains(name + "@T"))
        v.emplace_back("transposed", in<B, D>(c, name + "@T").transpose());
    return v;
}

/// A [rows, cols] input with values in [-8, 8) from a fixed formula (no fixture needed).
template <class B>
Tensor<B, 2> formula_input(std::size_t rows, std::size_t cols) {
    std::vector<double> v(rows * cols);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<double>((i * 7919 + (i / cols) * 104729) % 4096) / 256.0 - 8.0;
    return Tensor<B, 2>::from_data(TensorData(std::move(v), burn::Shape({rows, cols})));
}

template <class B>
class ActivationTest : public ::testing::Test {};
TYPED_TEST_SUITE(ActivationTest, burn::testing::Backends, burn::testing::BackendNames);

// ------------------------------------------------------------------------------- element-wise

TYPED_TEST(ActivationTest, ElementwiseMatchTorchWithExtremes) {
    using B = TypeParam;
    const std::string c = "unary";  // row 0: -1e4 .. 1e4, then values in [-6, 6]
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        SCOPED_TRACE(l);
        EXPECT_TRUE(close_to(act::relu(x), out(c, "relu")));
        EXPECT_TRUE(close_to(act::leaky_relu(x, 0.01), out(c, "leaky_relu_0.01")));
        EXPECT_TRUE(close_to(act::leaky_relu(x, 0.2), out(c, "leaky_relu_0.2")));
        EXPECT_TRUE(close_to(act::gelu(x), out(c, "gelu")));
        EXPECT_TRUE(close_to(act::sigmoid(x), out(c, "sigmoid")));
        EXPECT_TRUE(close_to(act::log_sigmoid(x), out(c, "log_sigmoid")));
        EXPECT_TRUE(close_to(act::hard_sigmoid(x, 1.0 / 6.0, 0.5), out(c, "hard_sigmoid_torch")));
        EXPECT_TRUE(close_to(act::hard_sigmoid(x, 0.2, 0.5), out(c, "hard_sigmoid_0.2_0.5")));
        EXPECT_TRUE(close_to(act::tanh(x), out(c, "tanh")));
        EXPECT_TRUE(close_to(act::silu(x), out(c, "silu")));
        EXPECT_TRUE(close_to(act::mish(x), out(c, "mish")));
        for (double beta : {0.5, 1.0, 2.0, 10.0}) {
            SCOPED_TRACE("softplus beta " + std::to_string(beta));
            const std::string key = "softplus_" + std::string(beta == 0.5   ? "0.5"
                                                              : beta == 1.0 ? "1.0"
                                                              : beta == 2.0 ? "2.0"
                                                                            : "10.0");
            EXPECT_TRUE(close_to(act::softplus(x, beta), out(c, key)));
        }
        EXPECT_TRUE(close_to(act::softplus(x), out(c, "softplus_1.0")));  // default beta
    }
}

TYPED_TEST(ActivationTest, ElementwiseNonFinite) {
    using B = TypeParam;
    const std::string c = "unary_nonfinite";  // [nan, -inf, inf, 0, -1.5, 2]
    const auto x = in<B, 1>(c, "x");
    EXPECT_TRUE(close_to(act::relu(x), out(c, "relu")));  // relu(NaN) = NaN, as torch
    EXPECT_TRUE(close_to(act::leaky_relu(x, 0.01), out(c, "leaky_relu_0.01")));
    EXPECT_TRUE(close_to(act::gelu(x), out(c, "gelu")));  // gelu(-inf) = NaN, as torch
    EXPECT_TRUE(close_to(act::sigmoid(x), out(c, "sigmoid")));
    EXPECT_TRUE(close_to(act::log_sigmoid(x), out(c, "log_sigmoid")));
    EXPECT_TRUE(close_to(act::hard_sigmoid(x, 1.0 / 6.0, 0.5), out(c, "hard_sigmoid_torch")));
    EXPECT_TRUE(close_to(act::tanh(x), out(c, "tanh")));
    EXPECT_TRUE(close_to(act::silu(x), out(c, "silu")));
    EXPECT_TRUE(close_to(act::mish(x), out(c, "mish")));
    EXPECT_TRUE(close_to(act::softplus(x), out(c, "softplus_1.0")));
}

TYPED_TEST(ActivationTest, ElementwiseLongRows) {
    using B = TypeParam;
    const std::string c = "unary_long";  // [3, 301] in [-20, 20]: packets and scalar tails
    const auto x = in<B, 2>(c, "x");
    // Also a step-2 view over the columns (gathered by the strided driver).
    const auto step = x.slice({burn::Slice(0, 3), burn::Slice(0, 301, 2)});
    auto stepped = [&](const std::string& k) {
        return Tensor<B, 2>::from_data(out(c, k))
            .slice({burn::Slice(0, 3), burn::Slice(0, 301, 2)})
            .to_data();
    };
    EXPECT_TRUE(close_to(act::relu(x), out(c, "relu")));
    EXPECT_TRUE(close_to(act::gelu(x), out(c, "gelu")));
    EXPECT_TRUE(close_to(act::sigmoid(x), out(c, "sigmoid")));
    EXPECT_TRUE(close_to(act::log_sigmoid(x), out(c, "log_sigmoid")));
    EXPECT_TRUE(close_to(act::leaky_relu(x, 0.01), out(c, "leaky_relu_0.01")));
    EXPECT_TRUE(close_to(act::hard_sigmoid(x, 1.0 / 6.0, 0.5), out(c, "hard_sigmoid_torch")));
    EXPECT_TRUE(close_to(act::gelu(step), stepped("gelu")));
    EXPECT_TRUE(close_to(act::sigmoid(step), stepped("sigmoid")));
    EXPECT_TRUE(close_to(act::log_sigmoid(step), stepped("log_sigmoid")));
}

TYPED_TEST(ActivationTest, ElementwiseLeavesSharedInputUnchanged) {
    using B = TypeParam;
    const auto x = in<B, 2>("unary", "x");
    const TensorData before = x.to_data();
    (void)act::sigmoid(x);
    (void)act::relu(x);
    (void)act::log_sigmoid(x);
    EXPECT_TRUE(close_to(x, before, {0.0, 0.0}));
}

// --------------------------------------------------------------------------------------- prelu

TYPED_TEST(ActivationTest, PreluScalarAndPerChannel) {
    using B = TypeParam;
    const std::string c = "prelu";  // x [2, 3, 4]
    const auto x = in<B, 3>(c, "x");
    EXPECT_TRUE(close_to(act::prelu(x, in<B, 1>(c, "alpha1")), out(c, "scalar")));
    EXPECT_TRUE(close_to(act::prelu(x, in<B, 1>(c, "alpha3")), out(c, "channel")));
    const auto x2 = in<B, 2>("prelu_2d", "x");  // [4, 3]: channels are dim 1
    EXPECT_TRUE(
        close_to(act::prelu(x2, in<B, 1>("prelu_2d", "alpha3")), out("prelu_2d", "channel")));
}

TYPED_TEST(ActivationTest, PreluWrongAlphaSizeThrows) {
    using B = TypeParam;
    const auto x = in<B, 3>("prelu", "x");  // 3 channels
    const auto a2 = Tensor<B, 1>::from_floats({0.1, 0.2});
    EXPECT_BURN_ERROR(act::prelu(x, a2), "prelu");
    const auto v = Tensor<B, 1>::from_floats({1.0, -2.0, 3.0});
    EXPECT_BURN_ERROR(act::prelu(v, Tensor<B, 1>::from_floats({0.1, 0.2, 0.3})), "prelu");
}

// ------------------------------------------------------------------------------------- softmax

TYPED_TEST(ActivationTest, SoftmaxFamilyEveryDimEveryLayout) {
    using B = TypeParam;
    const std::string c = "softmax";  // [3, 4, 5] in [-4, 4]
    for (auto& [l, x] : layouts<B, 3>(c, "x")) {
        for (std::int64_t d = 0; d < 3; ++d) {
            for (std::int64_t dim : {d, d - 3}) {
                SCOPED_TRACE(l + ", dim " + std::to_string(dim));
                const std::string s = "_d" + std::to_string(d);
                EXPECT_TRUE(close_to(act::softmax(x, dim), out(c, "softmax" + s)));
                EXPECT_TRUE(close_to(act::log_softmax(x, dim), out(c, "log_softmax" + s)));
                EXPECT_TRUE(close_to(act::softmin(x, dim), out(c, "softmin" + s)));
                EXPECT_TRUE(close_to(act::quiet_softmax(x, dim), out(c, "quiet_softmax" + s)));
            }
        }
    }
}

TYPED_TEST(ActivationTest, SoftmaxOddSizesAndPermutedViews) {
    using B = TypeParam;
    const std::string c = "softmax_odd";
    const auto x = in<B, 3>(c, "x");  // [2, 37, 19]
    EXPECT_TRUE(close_to(act::softmax(x, 1), out(c, "softmax_d1")));
    EXPECT_TRUE(close_to(act::log_softmax(x, 1), out(c, "log_softmax_d1")));
    EXPECT_TRUE(close_to(act::softmax(x, 0), out(c, "softmax_d0")));
    EXPECT_TRUE(close_to(act::log_softmax(x, 0), out(c, "log_softmax_d0")));
    // The same along a permuted view: [19, 37, 2], dim 1 (strided input, result permuted back).
    const auto p = x.swap_dims(0, 2);
    EXPECT_TRUE(close_to(act::softmax(p, 1).swap_dims(0, 2), out(c, "softmax_d1")));
    EXPECT_TRUE(close_to(act::log_softmax(p, 1).swap_dims(0, 2), out(c, "log_softmax_d1")));
    EXPECT_TRUE(close_to(act::softmax(p, 2).swap_dims(0, 2), out(c, "softmax_d0")));
    const auto r = in<B, 2>(c, "r");  // [5, 67]: rows with a scalar tail
    EXPECT_TRUE(close_to(act::softmax(r, -1), out(c, "r_softmax")));
    EXPECT_TRUE(close_to(act::log_softmax(r, -1), out(c, "r_log_softmax")));
}

TYPED_TEST(ActivationTest, SoftmaxExtremeRows) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(
        B, "rows of large values that differ by less than the half type's resolution");
    const std::string c = "softmax_extreme";
    // Rows: +-1e4; all 1e4; some -inf; only -inf (NaN as torch); a NaN; a +inf (NaN); 0 / -1e4.
    const auto x = in<B, 2>(c, "x");
    EXPECT_TRUE(close_to(act::softmax(x, 1), out(c, "softmax")));
    EXPECT_TRUE(close_to(act::log_softmax(x, 1), out(c, "log_softmax")));
    EXPECT_TRUE(close_to(act::softmin(x, 1), out(c, "softmin")));
    // The same values along dim 0 of the transposed view (the column kernel).
    const auto t = x.transpose();
    EXPECT_TRUE(close_to(act::softmax(t, 0).transpose(), out(c, "softmax_d0")));
    EXPECT_TRUE(close_to(act::log_softmax(t, 0).transpose(), out(c, "log_softmax_d0")));
    const auto tc = Tensor<B, 2>::from_data(t.to_data());  // dense [7, 7] transposed values
    EXPECT_TRUE(close_to(act::softmax(tc, 0).transpose(), out(c, "softmax_d0")));
    EXPECT_TRUE(close_to(act::log_softmax(tc, 0).transpose(), out(c, "log_softmax_d0")));
}

TYPED_TEST(ActivationTest, QuietSoftmaxExtremeRows) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(
        B, "rows of large values that differ by less than the half type's resolution");
    const std::string c = "quiet_softmax_extreme";  // rows of +-1e4, all -1e4, about -100, ...
    const auto x = in<B, 2>(c, "x");
    EXPECT_TRUE(close_to(act::quiet_softmax(x, 1), out(c, "quiet_softmax")));
    EXPECT_TRUE(
        close_to(act::quiet_softmax(x.transpose(), 0).transpose(), out(c, "quiet_softmax")));
}

TYPED_TEST(ActivationTest, SoftmaxLargeMatchesCompositeFormula) {
    using B = TypeParam;
    // [64, 1000]: the rows are split over threads; dim 0 runs the column kernel in blocks.
    const auto x = formula_input<B>(64, 1000);
    for (std::int64_t dim : {1, 0}) {
        SCOPED_TRACE("dim " + std::to_string(dim));
        const auto shifted = x - x.max_dim(dim);
        const auto e = shifted.exp();
        const auto sum = e.sum_dim(dim);
        const auto sm = act::softmax(x, dim);
        EXPECT_TRUE(close_to(sm, (e / sum).to_data()));
        EXPECT_TRUE(close_to(act::log_softmax(x, dim), (shifted - sum.log()).to_data()));
        const burn::Shape kept = dim == 1 ? burn::Shape({64, 1}) : burn::Shape({1, 1000});
        EXPECT_TRUE(close_to(sm.sum_dim(dim), TensorData::full(kept, 1.0)));
    }
}

TYPED_TEST(ActivationTest, SoftmaxInvalidDimThrows) {
    using B = TypeParam;
    const auto x = in<B, 3>("softmax", "x");
    EXPECT_BURN_ERROR(act::softmax(x, 3), "softmax");
    EXPECT_BURN_ERROR(act::softmax(x, -4), "softmax");
    EXPECT_BURN_ERROR(act::log_softmax(x, 3), "log_softmax");
    EXPECT_BURN_ERROR(act::softmin(x, 5), "softmin");
    EXPECT_BURN_ERROR(act::quiet_softmax(x, -4), "quiet_softmax");
    EXPECT_BURN_ERROR(act::softplus(x, 0.0), "softplus");
}

// ----------------------------------------------------------------------------- backward helpers

TYPED_TEST(ActivationTest, BackwardHelpersMatchTorchAutograd) {
    using B = TypeParam;
    const std::string c = "backward";  // x: row 0 -1e4 .. 1e4, then [-6, 6]; g in [-2, 2]
    const auto xs = layouts<B, 2>(c, "x");
    const auto gs = layouts<B, 2>(c, "g");
    for (std::size_t i = 0; i < xs.size(); ++i) {
        for (std::size_t j = 0; j < gs.size(); ++j) {
            SCOPED_TRACE("x " + xs[i].first + ", grad " + gs[j].first);
            const auto& x = xs[i].second;
            const auto& g = gs[j].second;
            auto grad = [&](auto prim) { return Tensor<B, 2>(std::move(prim)); };
            EXPECT_TRUE(close_to(grad(B::relu_backward(B::relu(x.primitive()), g.primitive())),
                                 out(c, "relu")));
            EXPECT_TRUE(
                close_to(grad(B::sigmoid_backward(B::sigmoid(x.primitive()), g.primitive())),
                         out(c, "sigmoid")));
            EXPECT_TRUE(
                close_to(grad(B::gelu_backward(x.primitive(), g.primitive())), out(c, "gelu")));
            EXPECT_TRUE(close_to(grad(B::log_sigmoid_backward(x.primitive(), g.primitive())),
                                 out(c, "log_sigmoid")));
        }
    }
    // A strided saved tensor: the forward output of the stored transpose, transposed back.
    const auto xt = in<B, 2>(c, "x@T");
    const auto g = in<B, 2>(c, "g");
    const auto relu_out = Tensor<B, 2>(B::relu(xt.primitive())).transpose();
    EXPECT_TRUE(close_to(Tensor<B, 2>(B::relu_backward(relu_out.primitive(), g.primitive())),
                         out(c, "relu")));
    const auto sig_out = Tensor<B, 2>(B::sigmoid(xt.primitive())).transpose();
    EXPECT_TRUE(close_to(Tensor<B, 2>(B::sigmoid_backward(sig_out.primitive(), g.primitive())),
                         out(c, "sigmoid")));
}

TYPED_TEST(ActivationTest, BackwardHelpersNonFinite) {
    using B = TypeParam;
    const std::string c = "backward_nonfinite";  // x = [nan, 0, -0, 1, -1, 3]
    const auto x = in<B, 1>(c, "x");
    const auto g = in<B, 1>(c, "g");
    auto t = [](auto prim) { return Tensor<B, 1>(std::move(prim)); };
    // relu: the gradient passes through a NaN output and is 0 at 0, as torch.
    EXPECT_TRUE(
        close_to(t(B::relu_backward(B::relu(x.primitive()), g.primitive())), out(c, "relu")));
    EXPECT_TRUE(close_to(t(B::sigmoid_backward(B::sigmoid(x.primitive()), g.primitive())),
                         out(c, "sigmoid")));
    EXPECT_TRUE(close_to(t(B::gelu_backward(x.primitive(), g.primitive())), out(c, "gelu")));
    EXPECT_TRUE(
        close_to(t(B::log_sigmoid_backward(x.primitive(), g.primitive())), out(c, "log_sigmoid")));
}

// ------------------------------------------------------------------- in-place outputs (Cpu only)

TEST(ActivationCpu, UniqueDenseInputIsOverwrittenInPlace) {
    using B = burn::Cpu<float>;
    const auto data =
        burn::testing::fixture_data(burn::testing::fixture(kFile, "unary").at("inputs").at("x"));
    {
        auto p = B::float_from_data(data, {});
        const void* buf = p.buffer.get();
        auto r = B::sigmoid(std::move(p));
        EXPECT_EQ(r.buffer.get(), buf);
        EXPECT_TRUE(close_to(Tensor<B, 2>(std::move(r)), out("unary", "sigmoid")));
    }
    {
        auto p = B::float_from_data(data, {});
        const void* buf = p.buffer.get();
        auto r = B::softmax(std::move(p), 1);
        EXPECT_EQ(r.buffer.get(), buf);
    }
    {
        // Shared: a new buffer, the input keeps its values.
        auto p = B::float_from_data(data, {});
        auto r = B::log_softmax(p, 0);
        EXPECT_NE(r.buffer.get(), p.buffer.get());
        EXPECT_TRUE(close_to(Tensor<B, 2>(p), data, {0.0, 0.0}));
    }
}

}  // namespace

}  // namespace burn_test_activation

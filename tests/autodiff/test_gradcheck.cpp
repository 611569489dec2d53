// SPDX-License-Identifier: MIT OR Apache-2.0
// Every differentiable op against central finite differences on Autodiff<Cpu<double>>, with
// broadcast and non-contiguous inputs.
#include "gradcheck.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::autodiff_gradcheck {
namespace {

using T1 = Tensor<AD, 1>;
using T2 = Tensor<AD, 2>;
using T3 = Tensor<AD, 3>;
using T4 = Tensor<AD, 4>;
using T5 = Tensor<AD, 5>;

T2 r2(std::size_t a, std::size_t b, double lo = -1, double hi = 1, std::uint64_t s = 1) {
    return uniform<2>({a, b}, lo, hi, s);
}
T3 r3(std::size_t a, std::size_t b, std::size_t c, double lo = -1, double hi = 1,
      std::uint64_t s = 2) {
    return uniform<3>({a, b, c}, lo, hi, s);
}
T4 r4(std::size_t a, std::size_t b, std::size_t c, std::size_t d, double lo = -1, double hi = 1,
      std::uint64_t s = 3) {
    return uniform<4>({a, b, c, d}, lo, hi, s);
}
Tensor<AD, 1, Int> idx1(std::initializer_list<std::int64_t> v) {
    return Tensor<AD, 1, Int>::from_data(TensorData::from<std::int64_t>(v));
}

// ------------------------------------------------------------------ arithmetic + broadcasting
TEST(GradCheck, BinaryBroadcast) {
    EXPECT_TRUE(gradcheck([](T2 a, T2 b) { return a + b; }, r2(3, 1), r2(1, 4, -1, 1, 5)));
    EXPECT_TRUE(gradcheck([](T2 a, T2 b) { return a - b; }, r2(3, 4), r2(1, 4, -1, 1, 5)));
    EXPECT_TRUE(gradcheck([](T2 a, T2 b) { return a * b; }, r2(3, 1), r2(3, 4, -1, 1, 5)));
    EXPECT_TRUE(gradcheck([](T2 a, T2 b) { return a / b; }, r2(3, 4), r2(1, 4, 0.5, 2, 5)));
    EXPECT_TRUE(
        gradcheck([](T3 a, T3 b) { return a * b + a; }, r3(2, 3, 4), r3(1, 1, 4, -1, 1, 9)));
}

TEST(GradCheck, ScalarOps) {
    EXPECT_TRUE(gradcheck(
        [](T2 a) { return a.add_scalar(2.0).mul_scalar(-3.0).div_scalar(4.0).sub_scalar(1.0); },
        r2(3, 4)));
    EXPECT_TRUE(gradcheck([](T2 a) { return -a; }, r2(2, 3)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.rem_scalar(0.7); }, r2(3, 4, 0.05, 0.6)));
}

TEST(GradCheck, Remainder) {
    // Away from the discontinuities of a mod b.
    auto a = uniform<2>({2, 3}, 1.1, 1.4, 3);
    auto b = uniform<2>({2, 3}, 0.8, 0.9, 4);
    EXPECT_TRUE(gradcheck([](T2 x, T2 y) { return x.rem(y); }, a, b));
}

TEST(GradCheck, UnaryMath) {
    EXPECT_TRUE(gradcheck([](T2 a) { return a.exp(); }, r2(3, 4)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.log(); }, r2(3, 4, 0.2, 2)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.log1p(); }, r2(3, 4, -0.5, 2)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.erf(); }, r2(3, 4)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.sqrt(); }, r2(3, 4, 0.2, 2)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.recip(); }, r2(3, 4, 0.5, 2)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.sin(); }, r2(3, 4, -3, 3)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.cos(); }, r2(3, 4, -3, 3)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.tanh(); }, r2(3, 4, -2, 2)));
    EXPECT_TRUE(
        gradcheck([](T2 a) { return a.abs(); }, r2(3, 4, 0.1, 1) * r2(3, 4, -1, 1, 8).sign()));
}

TEST(GradCheck, Powers) {
    EXPECT_TRUE(
        gradcheck([](T2 a, T2 b) { return a.powf(b); }, r2(3, 4, 0.3, 2), r2(3, 4, -2, 2, 6)));
    EXPECT_TRUE(
        gradcheck([](T2 a, T2 b) { return a.powf(b); }, r2(3, 1, 0.3, 2), r2(1, 4, -2, 2, 6)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.powf_scalar(2.5); }, r2(3, 4, 0.3, 2)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.powi_scalar(3); }, r2(3, 4)));
    auto e = Tensor<AD, 2, Int>::from_ints({{1, 2, 3}, {0, -1, 2}});
    EXPECT_TRUE(gradcheck([e](T2 a) { return a.powi(e); }, r2(2, 3, 0.5, 2)));
}

TEST(GradCheck, ClampAndPairs) {
    // Values kept away from the bounds (the gradient is not defined there).
    auto x = T2::from_floats({{-2.0, -0.3, 0.2}, {0.45, 1.7, -0.9}});
    EXPECT_TRUE(gradcheck([](T2 a) { return a.clamp(-0.5, 0.5); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.clamp_min(0.0); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.clamp_max(0.0); }, x));
    auto y = T2::from_floats({{-1.0, 0.3, 0.1}, {0.5, 1.0, -1.0}});
    EXPECT_TRUE(gradcheck([](T2 a, T2 b) { return a.max_pair(b); }, x, y));
    EXPECT_TRUE(gradcheck([](T2 a, T2 b) { return a.min_pair(b); }, x, y));
}

TEST(GradCheck, Matmul) {
    EXPECT_TRUE(gradcheck([](T2 a, T2 b) { return a.matmul(b); }, r2(3, 4), r2(4, 5, -1, 1, 3)));
    // Batch broadcasting and a non-contiguous (transposed) operand.
    EXPECT_TRUE(gradcheck([](T4 a, T4 b) { return a.matmul(b.swap_dims(2, 3)); }, r4(2, 1, 3, 4),
                          r4(1, 3, 5, 4, -1, 1, 4)));
    EXPECT_TRUE(gradcheck([](T1 a, T1 b) { return a.matmul(b); }, uniform<1>({5}),
                          uniform<1>({5}, -1, 1, 3)));
}

// ------------------------------------------------------------------ reductions
TEST(GradCheck, Reductions) {
    EXPECT_TRUE(gradcheck([](T3 a) { return a.sum(); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.mean(); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.sum_dim(1); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.mean_dim(-1); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.var(1); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.var_bias(2); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.swap_dims(0, 2).sum_dim(0); }, r3(2, 3, 4)));
}

TEST(GradCheck, Products) {
    EXPECT_TRUE(gradcheck([](T2 a) { return a.prod(); }, r2(2, 3, 0.5, 1.5)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.prod_dim(1); }, r2(3, 4, -1.5, 1.5)));
    // Exact zeros: one zero in a row gives the product of the others there; two give nothing.
    auto z = T2::from_floats({{0.0, 2.0, 3.0}, {0.0, 0.0, 4.0}, {1.5, -2.0, 0.5}});
    EXPECT_TRUE(gradcheck([](T2 a) { return a.prod_dim(1); }, z));
    EXPECT_TRUE(
        gradcheck([](T2 a) { return a.prod(); }, T2::from_floats({{0.0, 2.0}, {3.0, -1.0}})));
}

TEST(GradCheck, MaxMin) {
    auto x = r3(2, 3, 4, -1, 1, 11);  // no ties
    EXPECT_TRUE(gradcheck([](T3 a) { return a.max_dim(1); }, x));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.min_dim(2); }, x));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.max(); }, x));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.min(); }, x));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.max_dim_with_indices(0).first; }, x));
}

TEST(GradCheck, SortTopk) {
    auto x = r2(3, 5, -1, 1, 12);
    EXPECT_TRUE(gradcheck([](T2 a) { return a.sort(1); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.sort_descending(0); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.topk(2, 1); }, x));
}

// ------------------------------------------------------------------ shape ops
TEST(GradCheck, ShapeOps) {
    EXPECT_TRUE(gradcheck([](T3 a) { return a.template reshape<2>({6, 4}); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.permute({2, 0, 1}); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T3 a) { return a.flip({0, 2}); }, r3(2, 3, 4)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.transpose(); }, r2(2, 3)));
    EXPECT_TRUE(gradcheck(
        [](T2 a) {
            return a.expand(std::array<std::int64_t, 3>{2, 3, 4});
        },
        r2(3, 1)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.repeat_dim(1, 3); }, r2(2, 3)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.repeat({2, 2}); }, r2(2, 3)));
}

TEST(GradCheck, SliceAndAssign) {
    EXPECT_TRUE(gradcheck([](T2 a) { return a.slice({Slice(1, 4, 2), Slice(0, 2)}); }, r2(5, 3)));
    EXPECT_TRUE(gradcheck(
        [](T2 a, T2 v) {
            return a.slice_assign({Slice(1, 3), Slice(0, 2)}, v);
        },
        r2(4, 3), r2(2, 2, -1, 1, 7)));
    EXPECT_TRUE(gradcheck([](T2 a) { return a.narrow(1, 1, 2); }, r2(3, 4)));
}

TEST(GradCheck, CatStack) {
    EXPECT_TRUE(gradcheck(
        [](T2 a, T2 b) {
            return T2::cat({a, b, a}, 1);
        },
        r2(2, 3), r2(2, 1, -1, 1, 4)));
    EXPECT_TRUE(gradcheck(
        [](T2 a, T2 b) {
            return T2::stack({a, b}, 0);
        },
        r2(2, 3), r2(2, 3, -1, 1, 4)));
}

// ------------------------------------------------------------------ indexing
TEST(GradCheck, GatherScatter) {
    auto idx = Tensor<AD, 2, Int>::from_ints({{0, 2, 2}, {1, 0, 1}});
    EXPECT_TRUE(gradcheck([idx](T2 a) { return a.gather(1, idx); }, r2(2, 4)));
    EXPECT_TRUE(gradcheck([idx](T2 a, T2 v) { return a.scatter(1, idx, v); }, r2(2, 4),
                          r2(2, 3, -1, 1, 5)));
}

TEST(GradCheck, SelectAssign) {
    auto idx = idx1({2, 0, 2});
    EXPECT_TRUE(gradcheck([idx](T2 a) { return a.select(0, idx); }, r2(3, 4)));
    EXPECT_TRUE(gradcheck([idx](T2 a, T2 v) { return a.select_assign(1, idx, v); }, r2(2, 4),
                          r2(2, 3, -1, 1, 5)));
}

TEST(GradCheck, Masks) {
    auto mask = Tensor<AD, 2, Bool>::from_bools({{true, false, true}, {false, false, true}});
    EXPECT_TRUE(gradcheck([mask](T2 a, T2 v) { return a.mask_where(mask, v); }, r2(2, 3),
                          r2(2, 3, -1, 1, 5)));
    EXPECT_TRUE(gradcheck([mask](T2 a) { return a.mask_fill(mask, 3.0); }, r2(2, 3)));
}

// ------------------------------------------------------------------ module ops
TEST(GradCheck, Conv) {
    const ConvOptions<2> o{.stride = {2, 1}, .padding = {1, 0}, .dilation = {1, 2}, .groups = 2};
    EXPECT_TRUE(gradcheck([o](T4 x, T4 w, T1 b) { return module::conv2d(x, w, b, o); },
                          r4(2, 4, 5, 6), r4(2, 2, 3, 2, -1, 1, 5), uniform<1>({2})));
    EXPECT_TRUE(gradcheck(
        [](T3 x, T3 w) {
            return module::conv1d(x, w, std::nullopt, ConvOptions<1>{.padding = {1}});
        },
        r3(2, 3, 5), r3(4, 3, 3, -1, 1, 6)));
    EXPECT_TRUE(
        gradcheck([](T5 x, T5 w) { return module::conv3d(x, w, std::nullopt, ConvOptions<3>{}); },
                  uniform<5>({1, 2, 3, 3, 3}), uniform<5>({2, 2, 2, 2, 2}, -1, 1, 4)));
}

TEST(GradCheck, ConvTranspose) {
    const ConvTransposeOptions<2> o{.stride = {2, 2}, .padding = {1, 0}, .padding_out = {1, 0}};
    EXPECT_TRUE(gradcheck([o](T4 x, T4 w, T1 b) { return module::conv_transpose2d(x, w, b, o); },
                          r4(2, 2, 3, 3), r4(2, 3, 3, 2, -1, 1, 5), uniform<1>({3})));
    EXPECT_TRUE(gradcheck(
        [](T3 x, T3 w) {
            return module::conv_transpose1d(x, w, std::nullopt,
                                            ConvTransposeOptions<1>{.stride = {2}});
        },
        r3(1, 2, 4), r3(2, 3, 3, -1, 1, 6)));
}

TEST(GradCheck, DeformConv) {
    // Offsets kept small and away from integer sampling positions (bilinear kinks).
    auto x = r4(1, 2, 4, 4);
    auto w = r4(2, 2, 2, 2, -1, 1, 5);
    auto off = uniform<4>({1, 8, 3, 3}, 0.1, 0.4, 6);
    auto mask = uniform<4>({1, 4, 3, 3}, 0.2, 1.0, 7);
    auto b = uniform<1>({2});
    EXPECT_TRUE(gradcheck(
        [](T4 xx, T4 o, T4 ww, T4 m, T1 bb) {
            return module::deform_conv2d(xx, o, ww, m, bb, DeformConvOptions<2>{});
        },
        x, off, w, mask, b));
}

TEST(GradCheck, Pooling) {
    auto x = r4(2, 2, 5, 6, -1, 1, 13);
    EXPECT_TRUE(gradcheck(
        [](T4 a) {
            return module::avg_pool2d(a, {2, 2}, {2, 1}, {1, 0}, true);
        },
        x));
    EXPECT_TRUE(gradcheck([](T4 a) { return module::max_pool2d(a, {2, 3}, {2, 2}, {1, 1}); }, x));
    EXPECT_TRUE(gradcheck(
        [](T4 a) {
            return module::max_pool2d_with_indices(a, {2, 2}, {1, 1}, {0, 0}).first;
        },
        x));
    EXPECT_TRUE(gradcheck([](T3 a) { return module::avg_pool1d(a, 3, 2, 1, false); }, r3(2, 2, 7)));
    EXPECT_TRUE(gradcheck([](T3 a) { return module::max_pool1d(a, 2, 1, 0); }, r3(2, 2, 7)));
    EXPECT_TRUE(gradcheck([](T4 a) { return module::adaptive_avg_pool2d(a, {3, 4}); }, x));
    EXPECT_TRUE(gradcheck([](T3 a) { return module::adaptive_avg_pool1d(a, 3); }, r3(2, 2, 7)));
    EXPECT_TRUE(gradcheck(
        [](T5 a) {
            return module::adaptive_avg_pool3d(a, {2, 2, 1});
        },
        uniform<5>({1, 2, 3, 3, 2})));
}

TEST(GradCheck, Interpolate) {
    auto x = r4(1, 2, 3, 4);
    for (auto mode :
         {InterpolateMode::Nearest, InterpolateMode::Bilinear, InterpolateMode::Bicubic}) {
        EXPECT_TRUE(gradcheck(
            [mode](T4 a) {
                return module::interpolate(a, {5, 7}, InterpolateOptions{mode});
            },
            x));
    }
}

TEST(GradCheck, EmbeddingUnfold) {
    auto ids = Tensor<AD, 2, Int>::from_ints({{0, 3, 3}, {2, 1, 0}});
    EXPECT_TRUE(gradcheck([ids](T2 w) { return module::embedding(w, ids); }, r2(4, 5)));
    EXPECT_TRUE(gradcheck(
        [](T4 a) {
            return module::unfold4d(a, {2, 3}, UnfoldOptions{.stride = {1, 2}, .padding = {1, 0}});
        },
        r4(2, 3, 4, 5)));
}

// ------------------------------------------------------------------ activations
TEST(GradCheck, Activations) {
    // Away from 0 where relu-like functions have kinks.
    auto x = r2(3, 4, 0.1, 2) * r2(3, 4, -1, 1, 21).sign();
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::relu(a); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::leaky_relu(a, 0.1); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::gelu(a); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::sigmoid(a); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::log_sigmoid(a); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::hard_sigmoid(a, 0.2, 0.5); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::softplus(a, 1.5); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::silu(a); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::mish(a); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::tanh(a); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::softmax(a, 1); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::softmin(a, 0); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::log_softmax(a, 1); }, x));
    EXPECT_TRUE(gradcheck([](T2 a) { return activation::quiet_softmax(a, 1); }, x));
    EXPECT_TRUE(gradcheck([](T2 a, T1 w) { return activation::prelu(a, w); }, x,
                          uniform<1>({4}, 0.1, 0.3)));
}

// ------------------------------------------------------------------ partly tracked inputs
/// Backpropagates through `f` with only input `i` tracked and compares that input's gradient
/// with the one computed with every input tracked: a step must keep what its backward reads even
/// when the other inputs need no gradient.
template <class F, class... Ts>
::testing::AssertionResult each_input_alone(F f, Ts... inputs) {
    auto reference = std::make_tuple(inputs.require_grad()...);
    auto ref_grads = std::apply(f, reference).sum().backward();
    std::vector<TensorData> expected;
    std::apply([&](const auto&... t) { (expected.push_back(t.grad(ref_grads)->to_data()), ...); },
               reference);
    for (std::size_t i = 0; i < sizeof...(Ts); ++i) {
        std::size_t k = 0;
        // Braces: the elements are evaluated left to right.
        auto only_i = std::tuple<Ts...>{(k++ == i ? inputs.require_grad() : inputs)...};
        auto grads = std::apply(f, only_i).sum().backward();
        std::size_t j = 0;
        std::optional<TensorData> got;
        std::apply(
            [&](const auto&... t) {
                ((j++ == i && t.grad(grads) ? (void)(got = t.grad(grads)->to_data()) : (void)0),
                 ...);
            },
            only_i);
        if (!got) return ::testing::AssertionFailure() << "input " << i << " alone got no gradient";
        try {
            got->assert_approx_eq(expected[i], {1e-12, 1e-12});
        } catch (const Error& e) {
            return ::testing::AssertionFailure() << "input " << i << " alone: " << e.what();
        }
    }
    return ::testing::AssertionSuccess();
}

TEST(GradCheck, EachInputAlone) {
    const ConvOptions<2> o{.padding = {1, 1}};
    EXPECT_TRUE(each_input_alone([o](T4 x, T4 w, T1 b) { return module::conv2d(x, w, b, o); },
                                 r4(2, 2, 4, 4), r4(3, 2, 3, 3, -1, 1, 5), uniform<1>({3})));
    EXPECT_TRUE(each_input_alone(
        [](T3 x, T3 w) { return module::conv1d(x, w, std::nullopt, ConvOptions<1>{}); },
        r3(2, 3, 5), r3(4, 3, 3, -1, 1, 6)));
    EXPECT_TRUE(each_input_alone(
        [](T4 x, T4 w, T1 b) {
            return module::conv_transpose2d(x, w, b, ConvTransposeOptions<2>{.stride = {2, 2}});
        },
        r4(1, 2, 3, 3), r4(2, 3, 3, 3, -1, 1, 5), uniform<1>({3})));
    EXPECT_TRUE(each_input_alone(
        [](T4 xx, T4 o, T4 ww, T4 m, T1 bb) {
            return module::deform_conv2d(xx, o, ww, m, bb, DeformConvOptions<2>{});
        },
        r4(1, 2, 4, 4), uniform<4>({1, 8, 3, 3}, 0.1, 0.4, 6), r4(2, 2, 2, 2, -1, 1, 5),
        uniform<4>({1, 4, 3, 3}, 0.2, 1.0, 7), uniform<1>({2})));
    EXPECT_TRUE(
        each_input_alone([](T2 a, T2 b) { return a.matmul(b); }, r2(3, 4), r2(4, 5, -1, 1, 3)));
    EXPECT_TRUE(each_input_alone([](T2 a, T2 b) { return a * b; }, r2(3, 1), r2(3, 4, -1, 1, 5)));
    EXPECT_TRUE(each_input_alone([](T2 a, T2 b) { return a / b; }, r2(3, 4), r2(1, 4, 0.5, 2, 5)));
    EXPECT_TRUE(each_input_alone([](T2 a, T2 b) { return a.powf(b); }, r2(3, 4, 0.3, 2),
                                 r2(3, 4, -2, 2, 6)));
    EXPECT_TRUE(each_input_alone([](T2 a, T2 b) { return a.rem(b); },
                                 uniform<2>({2, 3}, 1.1, 1.4, 3), uniform<2>({2, 3}, 0.8, 0.9, 4)));
    EXPECT_TRUE(
        each_input_alone([](T2 a, T2 b) { return a.max_pair(b); }, r2(3, 4), r2(3, 4, -1, 1, 5)));
    auto idx = Tensor<AD, 2, Int>::from_ints({{0, 2, 2}, {1, 0, 1}});
    EXPECT_TRUE(each_input_alone([idx](T2 a, T2 v) { return a.scatter(1, idx, v); }, r2(2, 4),
                                 r2(2, 3, -1, 1, 5)));
    auto mask = Tensor<AD, 2, Bool>::from_bools({{true, false, true}, {false, false, true}});
    EXPECT_TRUE(each_input_alone([mask](T2 a, T2 v) { return a.mask_where(mask, v); }, r2(2, 3),
                                 r2(2, 3, -1, 1, 5)));
    EXPECT_TRUE(each_input_alone(
        [](T2 a, T2 v) {
            return a.slice_assign({Slice(1, 3), Slice(0, 2)}, v);
        },
        r2(4, 3), r2(2, 2, -1, 1, 7)));
}

// ------------------------------------------------------------------ a small network
TEST(GradCheck, MlpCrossEntropy) {
    auto x = r2(4, 6);
    auto w1 = r2(6, 5, -1, 1, 31), b1 = r2(1, 5, -0.1, 0.1, 32);
    auto w2 = r2(5, 3, -1, 1, 33);
    auto onehot = T2::from_floats({{1, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 0, 1}});
    EXPECT_TRUE(gradcheck(
        [onehot](T2 xx, T2 a, T2 b, T2 c) {
            auto h = activation::tanh(xx.matmul(a) + b);
            auto logp = activation::log_softmax(h.matmul(c), 1);
            return -(logp * onehot).sum_dim(1).mean();
        },
        x, w1, b1, w2));
}

}  // namespace
}  // namespace burn::testing::autodiff_gradcheck

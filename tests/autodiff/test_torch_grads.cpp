// SPDX-License-Identifier: MIT OR Apache-2.0
// Gradients of Autodiff<Cpu<float>> against PyTorch, op by op (tests/fixtures/autodiff.json,
// written by tests/fixtures/gen_autodiff.py).
//
// Every case loads its float inputs as leaves (require_grad), runs the burn op(s), compares the
// forward value y, backpropagates sum(y * gy) with the fixture's upstream gradient gy and
// compares the gradient of every leaf with PyTorch's (outputs g_<name>). The fixture's inputs
// avoid the points where an op is not differentiable (kinks, ties), so the reference is exact.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gradcheck.hpp"
#include "test_support.hpp"

namespace {

using namespace burn;
using burn::testing::ADF;
using burn::testing::close_to;
using burn::testing::fixture;
using burn::testing::fixture_input;
using burn::testing::fixture_output;
using burn::testing::fixture_sizes;
using Inner = ADF::InnerBackend;

constexpr std::string_view kFile = "autodiff";

/// f32 against f64 references: values of order 1 through a few ops lose ~1e-6 relative; 1e-4
/// leaves room for the longer chains (convolutions, softmax) without hiding a wrong formula,
/// whose error is of the order of the values themselves.
constexpr Tolerance kTol{1e-4, 1e-4};

/// One fixture case: its leaves, and the checks of y and of every leaf's gradient.
class TorchCase {
public:
    explicit TorchCase(std::string name) : name_(std::move(name)) {}

    /// The float input `n`, as a leaf whose gradient is checked against g_<n>.
    template <std::size_t D>
    Tensor<ADF, D> input(const std::string& n) {
        return track(n, fixture_input<ADF, D>(kFile, name_, n).require_grad());
    }
    /// The float input `n`, stored transposed (n@T): its last two dims are swapped back on the
    /// inner backend, so the leaf itself is a strided (non-contiguous) view.
    template <std::size_t D>
    Tensor<ADF, D> strided_input(const std::string& n) {
        auto raw = fixture_input<Inner, D>(kFile, name_, n + "@T").swap_dims(-2, -1);
        return track(n, Tensor<ADF, D>::from_inner(raw).require_grad());
    }
    template <std::size_t D>
    Tensor<ADF, D, Int> ints(const std::string& n) const {
        return fixture_input<ADF, D, Int>(kFile, name_, n);
    }
    template <std::size_t D>
    Tensor<ADF, D, Bool> bools(const std::string& n) const {
        return fixture_input<ADF, D, Bool>(kFile, name_, n);
    }
    const nlohmann::json& param(const std::string& p) const {
        return fixture(kFile, name_).at("params").at(p);
    }
    template <std::size_t N>
    std::array<std::size_t, N> sizes(const std::string& p) const {
        return fixture_sizes<N>(param(p));
    }

    /// Checks y, backpropagates sum(y * gy) and checks the gradient of every leaf.
    template <std::size_t D>
    void check(const Tensor<ADF, D>& y, Tolerance tol = kTol) {
        SCOPED_TRACE("case " + name_);
        EXPECT_TRUE(close_to(y, fixture_output(kFile, name_, "y"), tol)) << "forward value y";
        ASSERT_TRUE(y.is_require_grad()) << "the output is not tracked";
        const auto gy = fixture_input<ADF, D>(kFile, name_, "gy");
        auto grads = (y * gy).sum().backward();
        // Every gradient in the fixture belongs to a leaf of the test, and the reverse.
        std::size_t expected = 0;
        for (const auto& [k, v] : fixture(kFile, name_).at("outputs").items())
            if (k.rfind("g_", 0) == 0) ++expected;
        EXPECT_EQ(expected, leaves_.size()) << "the test and the fixture disagree on the inputs";
        for (const auto& [n, compare] : leaves_)
            EXPECT_TRUE(compare(grads, fixture_output(kFile, name_, "g_" + n), tol))
                << "gradient of input " << n;
    }

private:
    /// Records a leaf: its gradient is compared with the fixture in check().
    template <std::size_t D>
    Tensor<ADF, D> track(const std::string& n, Tensor<ADF, D> t) {
        leaves_.emplace_back(n, [t](const ADF::Gradients& grads, const TensorData& want,
                                    Tolerance tol) -> ::testing::AssertionResult {
            const auto g = t.grad(grads);
            if (!g) return ::testing::AssertionFailure() << "no gradient";
            return close_to(*g, want, tol);
        });
        return t;
    }

    std::string name_;
    using Compare = std::function<::testing::AssertionResult(const ADF::Gradients&,
                                                             const TensorData&, Tolerance)>;
    std::vector<std::pair<std::string, Compare>> leaves_;
};

// ================================================================================ arithmetic
TEST(TorchGrads, AddBroadcast) {
    TorchCase c("add_broadcast");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a + b);
}
TEST(TorchGrads, AddBroadcast3d) {
    TorchCase c("add_broadcast_3d");
    auto a = c.input<3>("a"), b = c.input<3>("b");
    c.check(a + b);
}
TEST(TorchGrads, SubBroadcast) {
    TorchCase c("sub_broadcast");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a - b);
}
TEST(TorchGrads, SubBroadcast3d) {
    TorchCase c("sub_broadcast_3d");
    auto a = c.input<3>("a"), b = c.input<3>("b");
    c.check(a - b);
}
TEST(TorchGrads, MulBroadcast) {
    TorchCase c("mul_broadcast");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a * b);
}
TEST(TorchGrads, MulBroadcast3d) {
    TorchCase c("mul_broadcast_3d");
    auto a = c.input<3>("a"), b = c.input<3>("b");
    c.check(a * b);
}
TEST(TorchGrads, MulSelf) {
    TorchCase c("mul_self");
    auto a = c.input<2>("a");
    c.check(a * a);
}
TEST(TorchGrads, DivBroadcast) {
    TorchCase c("div_broadcast");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a / b);
}
TEST(TorchGrads, DivBroadcast3d) {
    TorchCase c("div_broadcast_3d");
    auto a = c.input<3>("a"), b = c.input<3>("b");
    c.check(a / b);
}
TEST(TorchGrads, Remainder) {
    TorchCase c("remainder");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a % b);
}
TEST(TorchGrads, RemainderBroadcast) {
    TorchCase c("remainder_broadcast");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a % b);
}
TEST(TorchGrads, RemScalar) {
    TorchCase c("rem_scalar");
    auto x = c.input<2>("x");
    c.check(x % 0.75);
}
TEST(TorchGrads, ScalarOps) {
    TorchCase c("scalar_ops");
    auto x = c.input<2>("x");
    c.check(((x + 1.5) * 2.5 - 0.75) / 4.0 + (3.0 - x) + 2.0 / x);
}
TEST(TorchGrads, Neg) {
    TorchCase c("neg");
    auto x = c.input<2>("x");
    c.check(-x);
}
TEST(TorchGrads, Abs) {
    TorchCase c("abs");
    c.check(c.input<2>("x").abs());
}

// ===================================================================================== math
TEST(TorchGrads, Powf) {
    TorchCase c("powf");
    auto x = c.input<2>("x"), p = c.input<2>("p");
    c.check(x.powf(p));
}
TEST(TorchGrads, PowfBroadcast) {
    TorchCase c("powf_broadcast");
    auto x = c.input<2>("x"), p = c.input<2>("p");
    c.check(x.powf(p));
}
TEST(TorchGrads, PowfScalar) {
    TorchCase c("powf_scalar");
    c.check(c.input<2>("x").powf_scalar(2.5));
}
TEST(TorchGrads, PowfScalarIntegerExponent) {
    TorchCase c("powf_scalar_int");  // negative bases
    c.check(c.input<2>("x").powf_scalar(3.0));
}
TEST(TorchGrads, Exp) {
    TorchCase c("exp");
    c.check(c.input<2>("x").exp());
}
TEST(TorchGrads, Log) {
    TorchCase c("log");
    c.check(c.input<2>("x").log());
}
TEST(TorchGrads, Log1p) {
    TorchCase c("log1p");
    c.check(c.input<2>("x").log1p());
}
TEST(TorchGrads, Erf) {
    TorchCase c("erf");
    c.check(c.input<2>("x").erf());
}
TEST(TorchGrads, Sqrt) {
    TorchCase c("sqrt");
    c.check(c.input<2>("x").sqrt());
}
TEST(TorchGrads, Recip) {
    TorchCase c("recip");
    c.check(c.input<2>("x").recip());
}
TEST(TorchGrads, Sin) {
    TorchCase c("sin");
    c.check(c.input<2>("x").sin());
}
TEST(TorchGrads, Cos) {
    TorchCase c("cos");
    c.check(c.input<2>("x").cos());
}
TEST(TorchGrads, Tanh) {
    TorchCase c("tanh");
    c.check(c.input<2>("x").tanh());
}
TEST(TorchGrads, Clamp) {
    TorchCase c("clamp");
    c.check(c.input<2>("x").clamp(-0.5, 0.5));
}
TEST(TorchGrads, ClampMin) {
    TorchCase c("clamp_min");
    c.check(c.input<2>("x").clamp_min(0.25));
}
TEST(TorchGrads, ClampMax) {
    TorchCase c("clamp_max");
    c.check(c.input<2>("x").clamp_max(-0.25));
}
TEST(TorchGrads, MaxPair) {
    TorchCase c("max_pair");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a.max_pair(b));
}
TEST(TorchGrads, MinPair) {
    TorchCase c("min_pair");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a.min_pair(b));
}
TEST(TorchGrads, Matmul) {
    TorchCase c("matmul");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a.matmul(b));
}
TEST(TorchGrads, MatmulBatchedBroadcast) {
    TorchCase c("matmul_batched_broadcast");  // [2, 1, 3, 4] @ [1, 3, 4, 5]
    auto a = c.input<4>("a"), b = c.input<4>("b");
    c.check(a.matmul(b));
}
TEST(TorchGrads, MatmulTransposedOperand) {
    TorchCase c("matmul_transposed");  // a is [4, 3]; the product uses the strided view a^T
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a.swap_dims(0, 1).matmul(b));
}
TEST(TorchGrads, StridedLeafMul) {
    TorchCase c("strided_leaf_mul");
    auto a = c.strided_input<2>("a"), b = c.input<2>("b");
    c.check((a * b).exp());
}
TEST(TorchGrads, StridedLeafMatmul) {
    TorchCase c("strided_leaf_matmul");
    auto a = c.strided_input<3>("a"), b = c.strided_input<3>("b");
    c.check(a.matmul(b));
}

TEST(TorchGrads, StridedLeafConv2d) {
    TorchCase c("strided_leaf_conv2d");
    auto x = c.strided_input<4>("x"), w = c.strided_input<4>("w");
    c.check(module::conv2d(x, w, std::nullopt, ConvOptions<2>{.padding = {1, 1}}));
}
TEST(TorchGrads, StridedLeafMaxPool2d) {
    TorchCase c("strided_leaf_max_pool2d");
    c.check(module::max_pool2d(c.strided_input<4>("x"), {2, 2}, {1, 1}, {0, 0}));
}
TEST(TorchGrads, StridedLeafSoftmax) {
    TorchCase c("strided_leaf_softmax");
    c.check(activation::softmax(c.strided_input<2>("x"), 1));
}

// =============================================================================== reductions
TEST(TorchGrads, Sum) {
    TorchCase c("sum");
    c.check(c.input<2>("x").sum());
}
TEST(TorchGrads, SumDim) {
    TorchCase c("sum_dim");
    c.check(c.input<3>("x").sum_dim(1));
}
TEST(TorchGrads, Mean) {
    TorchCase c("mean");
    c.check(c.input<2>("x").mean());
}
TEST(TorchGrads, MeanDim) {
    TorchCase c("mean_dim");
    c.check(c.input<3>("x").mean_dim(0));
}
TEST(TorchGrads, Prod) {
    TorchCase c("prod");
    c.check(c.input<2>("x").prod());
}
TEST(TorchGrads, ProdWithZero) {
    TorchCase c("prod_zero");  // one zero: only it gets a (non-zero) gradient
    c.check(c.input<2>("x").prod());
}
TEST(TorchGrads, ProdDim) {
    TorchCase c("prod_dim");
    c.check(c.input<2>("x").prod_dim(1));
}
TEST(TorchGrads, ProdDimZeros) {
    TorchCase c("prod_dim_zeros");  // rows with no zero, one zero, two zeros
    c.check(c.input<2>("x").prod_dim(1));
}
TEST(TorchGrads, Max) {
    TorchCase c("max");
    c.check(c.input<2>("x").max());
}
TEST(TorchGrads, Min) {
    TorchCase c("min");
    c.check(c.input<2>("x").min());
}
TEST(TorchGrads, MaxDim) {
    TorchCase c("max_dim");
    c.check(c.input<3>("x").max_dim(1));
}
TEST(TorchGrads, MinDim) {
    TorchCase c("min_dim");
    c.check(c.input<3>("x").min_dim(2));
}
TEST(TorchGrads, Var) {
    TorchCase c("var");
    c.check(c.input<2>("x").var(1));
}
TEST(TorchGrads, VarBias) {
    TorchCase c("var_bias");
    c.check(c.input<2>("x").var_bias(0));
}

// ================================================================================ shape ops
TEST(TorchGrads, Reshape) {
    TorchCase c("reshape");
    c.check(c.input<3>("x").reshape<2>({4, 6}));
}
TEST(TorchGrads, SwapDims) {
    TorchCase c("swap_dims");
    c.check(c.input<3>("x").swap_dims(0, 2) * 1.0);
}
TEST(TorchGrads, SwapDimsThenExp) {
    TorchCase c("swap_dims_then_exp");  // exp of a non-contiguous view
    c.check(c.input<2>("x").transpose().exp());
}
TEST(TorchGrads, Permute) {
    TorchCase c("permute");
    c.check(c.input<3>("x").permute({2, 0, 1}));
}
TEST(TorchGrads, Flip) {
    TorchCase c("flip");
    c.check(c.input<3>("x").flip({0, 2}));
}
TEST(TorchGrads, Expand) {
    TorchCase c("expand");  // [3, 1] -> [2, 3, 4]: a new leading dim and a grown dim
    c.check(c.input<2>("x").expand<3>({2, 3, 4}));
}
TEST(TorchGrads, SliceWithStep) {
    TorchCase c("slice_step");  // x[1:6:2, ::3]
    c.check(c.input<2>("x").slice({Slice(1, 6, 2), Slice(0, INT64_MAX, 3)}));
}
TEST(TorchGrads, SliceAssign) {
    TorchCase c("slice_assign");  // x[1:4, 0:5:2] = v
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.slice_assign({Slice(1, 4), Slice(0, 5, 2)}, v));
}
TEST(TorchGrads, Cat) {
    TorchCase c("cat");
    auto a = c.input<3>("a"), b = c.input<3>("b"), d = c.input<3>("c");
    c.check(Tensor<ADF, 3>::cat({a, b, d}, 1));
}
TEST(TorchGrads, Stack) {
    TorchCase c("stack");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(Tensor<ADF, 2>::stack({a, b}, 1));
}
TEST(TorchGrads, RepeatDim) {
    TorchCase c("repeat_dim");
    c.check(c.input<3>("x").repeat_dim(1, 3));
}

// ================================================================================= indexing
TEST(TorchGrads, Gather) {
    TorchCase c("gather");  // repeated indices accumulate
    auto x = c.input<2>("x");
    c.check(x.gather(1, c.ints<2>("idx")));
}
TEST(TorchGrads, GatherSmallerIndex) {
    TorchCase c("gather_smaller_index");  // indices [2, 3] into x [3, 4]
    auto x = c.input<2>("x");
    c.check(x.gather(1, c.ints<2>("idx")));
}
TEST(TorchGrads, Scatter) {
    TorchCase c("scatter");  // burn's scatter adds (torch.scatter_add)
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.scatter(0, c.ints<2>("idx"), v));
}
TEST(TorchGrads, ScatterValuesLargerThanIndices) {
    // v [3, 4], indices [2, 2]: the values no index reads get a zero gradient (the gradient has
    // v's shape, not the indices').
    TorchCase c("scatter_values_larger");
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.scatter(1, c.ints<2>("idx"), v));
}
TEST(TorchGrads, Select) {
    TorchCase c("select");
    auto x = c.input<2>("x");
    c.check(x.select(1, c.ints<1>("idx")));
}
TEST(TorchGrads, SelectAssign) {
    TorchCase c("select_assign");  // burn's select_assign adds (torch.index_add)
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.select_assign(0, c.ints<1>("idx"), v));
}
TEST(TorchGrads, MaskWhere) {
    TorchCase c("mask_where");  // torch.where(mask, v, x), v broadcast from [1, 4]
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.mask_where(c.bools<2>("mask"), v));
}
TEST(TorchGrads, MaskWhereBroadcastMask) {
    TorchCase c("mask_where_broadcast_mask");  // mask [1, 4]
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.mask_where(c.bools<2>("mask"), v));
}
TEST(TorchGrads, MaskFill) {
    TorchCase c("mask_fill");
    auto x = c.input<2>("x");
    c.check(x.mask_fill(c.bools<2>("mask"), 2.5));
}
TEST(TorchGrads, Sort) {
    TorchCase c("sort");
    c.check(c.input<2>("x").sort(1));
}
TEST(TorchGrads, SortDescending) {
    TorchCase c("sort_descending");
    c.check(c.input<2>("x").sort_descending(0));
}
TEST(TorchGrads, Topk) {
    TorchCase c("topk");
    c.check(c.input<2>("x").topk(2, 1));
}

// ============================================================================ convolutions
template <std::size_t N>
ConvOptions<N> conv_options(const TorchCase& c) {
    return ConvOptions<N>{c.sizes<N>("stride"), c.sizes<N>("padding"), c.sizes<N>("dilation"),
                          c.param("groups").get<std::size_t>()};
}
template <std::size_t N>
ConvTransposeOptions<N> conv_transpose_options(const TorchCase& c) {
    return ConvTransposeOptions<N>{c.sizes<N>("stride"), c.sizes<N>("padding"),
                                   c.sizes<N>("padding_out"), c.sizes<N>("dilation"),
                                   c.param("groups").get<std::size_t>()};
}

TEST(TorchGrads, Conv1d) {
    TorchCase c("conv1d");  // stride 2, padding 1, groups 2, bias
    auto x = c.input<3>("x"), w = c.input<3>("w");
    auto b = c.input<1>("b");
    c.check(module::conv1d(x, w, b, conv_options<1>(c)));
}
TEST(TorchGrads, Conv1dNoBias) {
    TorchCase c("conv1d_nobias");  // dilation 2
    auto x = c.input<3>("x"), w = c.input<3>("w");
    c.check(module::conv1d(x, w, std::nullopt, conv_options<1>(c)));
}
TEST(TorchGrads, Conv2d) {
    TorchCase c("conv2d");  // stride, padding, dilation, groups, bias
    auto x = c.input<4>("x"), w = c.input<4>("w");
    auto b = c.input<1>("b");
    c.check(module::conv2d(x, w, b, conv_options<2>(c)));
}
TEST(TorchGrads, Conv2dPlain) {
    TorchCase c("conv2d_plain");
    auto x = c.input<4>("x"), w = c.input<4>("w");
    auto b = c.input<1>("b");
    c.check(module::conv2d(x, w, b, conv_options<2>(c)));
}
TEST(TorchGrads, Conv3d) {
    TorchCase c("conv3d");
    auto x = c.input<5>("x"), w = c.input<5>("w");
    auto b = c.input<1>("b");
    c.check(module::conv3d(x, w, b, conv_options<3>(c)));
}
TEST(TorchGrads, ConvTranspose1d) {
    TorchCase c("conv_transpose1d");  // stride 2, padding 1, padding_out 1, groups 2
    auto x = c.input<3>("x"), w = c.input<3>("w");
    auto b = c.input<1>("b");
    c.check(module::conv_transpose1d(x, w, b, conv_transpose_options<1>(c)));
}
TEST(TorchGrads, ConvTranspose2d) {
    TorchCase c("conv_transpose2d");  // stride (2, 3), padding_out (1, 2), dilation (1, 2)
    auto x = c.input<4>("x"), w = c.input<4>("w");
    auto b = c.input<1>("b");
    c.check(module::conv_transpose2d(x, w, b, conv_transpose_options<2>(c)));
}
TEST(TorchGrads, ConvTranspose2dGroups) {
    TorchCase c("conv_transpose2d_groups");
    auto x = c.input<4>("x"), w = c.input<4>("w");
    c.check(module::conv_transpose2d(x, w, std::nullopt, conv_transpose_options<2>(c)));
}

DeformConvOptions<2> deform_options(const TorchCase& c) {
    return DeformConvOptions<2>{c.sizes<2>("stride"), c.sizes<2>("padding"), c.sizes<2>("dilation"),
                                c.param("weight_groups").get<std::size_t>(),
                                c.param("offset_groups").get<std::size_t>()};
}
TEST(TorchGrads, DeformConv2d) {
    TorchCase c("deform_conv2d");  // mask and bias
    auto x = c.input<4>("x"), offset = c.input<4>("offset"), w = c.input<4>("w");
    auto mask = c.input<4>("mask");
    auto b = c.input<1>("b");
    c.check(module::deform_conv2d(x, offset, w, mask, b, deform_options(c)));
}
TEST(TorchGrads, DeformConv2dGroups) {
    TorchCase c("deform_conv2d_groups");  // weight and offset groups, stride, no mask or bias
    auto x = c.input<4>("x"), offset = c.input<4>("offset"), w = c.input<4>("w");
    c.check(module::deform_conv2d(x, offset, w, std::nullopt, std::nullopt, deform_options(c)));
}

// ================================================================================= pooling
TEST(TorchGrads, AvgPool1d) {
    TorchCase c("avg_pool1d");
    c.check(module::avg_pool1d(c.input<3>("x"), 3, 2, 1));
}
TEST(TorchGrads, AvgPool2d) {
    TorchCase c("avg_pool2d");
    c.check(module::avg_pool2d(c.input<4>("x"), {3, 2}, {2, 1}, {1, 1}));
}
TEST(TorchGrads, AvgPool2dExcludePad) {
    TorchCase c("avg_pool2d_exclude_pad");
    c.check(module::avg_pool2d(c.input<4>("x"), {3, 3}, {2, 2}, {1, 1}, false));
}
TEST(TorchGrads, AvgPool2dCeil) {
    TorchCase c("avg_pool2d_ceil");
    c.check(module::avg_pool2d(c.input<4>("x"), {2, 2}, {2, 2}, {0, 0}, true, true));
}
TEST(TorchGrads, MaxPool1d) {
    TorchCase c("max_pool1d");
    c.check(module::max_pool1d(c.input<3>("x"), 3, 2, 1, 1));
}
TEST(TorchGrads, MaxPool2d) {
    TorchCase c("max_pool2d");
    c.check(module::max_pool2d(c.input<4>("x"), {2, 3}, {2, 1}, {1, 1}, {1, 2}));
}
TEST(TorchGrads, MaxPool2dOverlapping) {
    TorchCase c("max_pool2d_overlap");  // an element can win several windows
    c.check(module::max_pool2d(c.input<4>("x"), {3, 3}, {1, 1}, {0, 0}));
}
TEST(TorchGrads, AdaptiveAvgPool1d) {
    TorchCase c("adaptive_avg_pool1d");  // 7 -> 3: overlapping bins
    c.check(module::adaptive_avg_pool1d(c.input<3>("x"), 3));
}
TEST(TorchGrads, AdaptiveAvgPool2d) {
    TorchCase c("adaptive_avg_pool2d");
    c.check(module::adaptive_avg_pool2d(c.input<4>("x"), {3, 2}));
}

// ===================================================================== interpolate, lookups
void check_interpolate(const std::string& name, InterpolateMode mode) {
    TorchCase c(name);
    const InterpolateOptions o{mode, c.param("align_corners").get<bool>()};
    c.check(module::interpolate(c.input<4>("x"), c.sizes<2>("size"), o));
}
TEST(TorchGrads, InterpolateNearest) {
    check_interpolate("interpolate_nearest", InterpolateMode::Nearest);
    check_interpolate("interpolate_nearest_down", InterpolateMode::Nearest);
}
TEST(TorchGrads, InterpolateBilinear) {
    check_interpolate("interpolate_bilinear", InterpolateMode::Bilinear);
    check_interpolate("interpolate_bilinear_align", InterpolateMode::Bilinear);
    check_interpolate("interpolate_bilinear_down", InterpolateMode::Bilinear);
}
TEST(TorchGrads, InterpolateBicubic) {
    check_interpolate("interpolate_bicubic", InterpolateMode::Bicubic);
    check_interpolate("interpolate_bicubic_align", InterpolateMode::Bicubic);
}
TEST(TorchGrads, Embedding) {
    TorchCase c("embedding");  // repeated indices accumulate
    auto w = c.input<2>("w");
    c.check(module::embedding(w, c.ints<2>("idx")));
}
TEST(TorchGrads, Unfold4d) {
    TorchCase c("unfold4d");
    const UnfoldOptions o{c.sizes<2>("stride"), c.sizes<2>("padding"), c.sizes<2>("dilation")};
    c.check(module::unfold4d(c.input<4>("x"), c.sizes<2>("kernel"), o));
}

// ============================================================================== activations
TEST(TorchGrads, Relu) {
    TorchCase c("relu");
    c.check(activation::relu(c.input<2>("x")));
}
TEST(TorchGrads, LeakyRelu) {
    TorchCase c("leaky_relu");
    c.check(activation::leaky_relu(c.input<2>("x"), 0.1));
}
TEST(TorchGrads, Gelu) {
    TorchCase c("gelu");
    c.check(activation::gelu(c.input<2>("x")));
}
TEST(TorchGrads, Sigmoid) {
    TorchCase c("sigmoid");
    c.check(activation::sigmoid(c.input<2>("x")));
}
TEST(TorchGrads, HardSigmoid) {
    for (const char* name : {"hard_sigmoid", "hard_sigmoid_torch"}) {
        TorchCase c(name);
        c.check(activation::hard_sigmoid(c.input<2>("x"), c.param("alpha").get<double>(),
                                         c.param("beta").get<double>()));
    }
}
TEST(TorchGrads, LogSigmoid) {
    TorchCase c("log_sigmoid");
    c.check(activation::log_sigmoid(c.input<2>("x")));
}
TEST(TorchGrads, Softmax) {
    TorchCase c("softmax");
    c.check(activation::softmax(c.input<3>("x"), c.param("dim").get<std::int64_t>()));
    TorchCase last("softmax_last");
    last.check(activation::softmax(last.input<2>("x"), last.param("dim").get<std::int64_t>()));
}
TEST(TorchGrads, Softmin) {
    TorchCase c("softmin");
    c.check(activation::softmin(c.input<2>("x"), c.param("dim").get<std::int64_t>()));
}
TEST(TorchGrads, LogSoftmax) {
    TorchCase c("log_softmax");
    c.check(activation::log_softmax(c.input<2>("x"), c.param("dim").get<std::int64_t>()));
}
TEST(TorchGrads, QuietSoftmax) {
    TorchCase c("quiet_softmax");
    c.check(activation::quiet_softmax(c.input<2>("x"), c.param("dim").get<std::int64_t>()));
}
TEST(TorchGrads, Softplus) {
    // Includes inputs past the threshold (beta * x > 20), where softplus is x itself.
    for (const char* name : {"softplus", "softplus_beta2"}) {
        TorchCase c(name);
        c.check(activation::softplus(c.input<2>("x"), c.param("beta").get<double>()));
    }
}
TEST(TorchGrads, Silu) {
    TorchCase c("silu");
    c.check(activation::silu(c.input<2>("x")));
}
TEST(TorchGrads, Mish) {
    TorchCase c("mish");
    c.check(activation::mish(c.input<2>("x")));
}
TEST(TorchGrads, TanhActivation) {
    TorchCase c("tanh_activation");
    c.check(activation::tanh(c.input<2>("x")));
}
TEST(TorchGrads, Prelu) {
    TorchCase c("prelu");  // one alpha per channel; alpha gets a gradient too
    auto x = c.input<3>("x");
    auto alpha = c.input<1>("alpha");
    c.check(activation::prelu(x, alpha));
}
TEST(TorchGrads, PreluScalarAlpha) {
    TorchCase c("prelu_scalar");
    auto x = c.input<2>("x");
    auto alpha = c.input<1>("alpha");
    c.check(activation::prelu(x, alpha));
}

// ============================================================================ at the kinks
// Where PyTorch documents a subgradient and Burn follows it (the fixture lists which).
TEST(TorchGrads, AbsAtZero) {
    TorchCase c("abs_zero");
    c.check(c.input<2>("x").abs());
}
TEST(TorchGrads, ReluAtZero) {
    TorchCase c("relu_zero");
    c.check(activation::relu(c.input<2>("x")));
}
TEST(TorchGrads, LeakyReluAtZero) {
    TorchCase c("leaky_relu_zero");
    c.check(activation::leaky_relu(c.input<2>("x"), 0.1));
}
TEST(TorchGrads, ClampAtBounds) {
    TorchCase c("clamp_bounds");
    c.check(c.input<2>("x").clamp(-0.5, 0.5));
    TorchCase lo("clamp_min_bound");
    lo.check(lo.input<2>("x").clamp_min(0.25));
    TorchCase hi("clamp_max_bound");
    hi.check(hi.input<2>("x").clamp_max(-0.25));
}
TEST(TorchGrads, MaxMinPairTies) {
    TorchCase c("max_pair_ties");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a.max_pair(b));
    TorchCase m("min_pair_ties");
    auto ma = m.input<2>("a"), mb = m.input<2>("b");
    m.check(ma.min_pair(mb));
}
TEST(TorchGrads, HardSigmoidAtBounds) {
    TorchCase c("hard_sigmoid_torch_bounds");
    c.check(activation::hard_sigmoid(c.input<2>("x"), c.param("alpha").get<double>(),
                                     c.param("beta").get<double>()));
}
TEST(TorchGrads, PowfZeroBaseAndExponent) {
    TorchCase c("powf_zero");
    auto x = c.input<2>("x"), p = c.input<2>("p");
    c.check(x.powf(p));
}

// ================================================================================ composite
TEST(TorchGrads, MlpCrossEntropy) {
    // relu(x w1 + b1) w2 + b2 -> log_softmax -> mean NLL of the targets (cross-entropy).
    TorchCase c("mlp_cross_entropy");
    auto x = c.input<2>("x"), w1 = c.input<2>("w1"), b1 = c.input<2>("b1");
    auto w2 = c.input<2>("w2"), b2 = c.input<2>("b2");
    const auto targets = c.ints<2>("targets");
    auto h = activation::relu(x.matmul(w1) + b1);
    auto logp = activation::log_softmax(h.matmul(w2) + b2, 1);
    c.check(-logp.gather(1, targets).mean());
}

}  // namespace

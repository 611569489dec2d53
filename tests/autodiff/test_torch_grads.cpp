// SPDX-License-Identifier: MIT OR Apache-2.0
// Gradients of ADF (Autodiff<Cpu<float>>, or Autodiff<Vulkan<>> in burn_autodiff_tests_vulkan)
// against PyTorch, op by op (tests/fixtures/autodiff.json, written by
// tests/fixtures/gen_autodiff.py).
//
// Every case loads its float inputs as leaves (require_grad), runs the burn op(s), compares the
// forward value y, backpropagates sum(y * gy) with the fixture's upstream gradient gy and
// compares the gradient of every leaf with PyTorch's (outputs g_<name>). The fixture's inputs
// avoid the points where an op is not differentiable (kinks, ties), so the reference is exact.
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gradcheck.hpp"
#include "test_support.hpp"
#include "torch_case.hpp"

// Own namespace: the suites are unity builds (tests/CMakeLists.txt).
namespace burn_autodiff_torch_grads {

namespace {

using namespace burn;
using burn::testing::ADF;
using burn::testing::close_to;
using burn::testing::fixture;
using burn::testing::fixture_input;
using burn::testing::fixture_output;
using burn::testing::fixture_sizes;
using burn::testing::kTorchTol;
using burn::testing::TorchCase;
using Inner = ADF::InnerBackend;

constexpr std::string_view kFile = "autodiff";

/// A table-driven case: one expression of the inputs x (Arity 1) or a, b (Arity 2), all of rank
/// D, checked as TorchCase::check does.
using T2 = Tensor<ADF, 2>;
using T3 = Tensor<ADF, 3>;
using T4 = Tensor<ADF, 4>;
template <std::size_t D, std::size_t Arity>
struct OpCase {
    using T = Tensor<ADF, D>;
    using Run = std::conditional_t<Arity == 1, std::function<void(TorchCase&, const T&)>,
                                   std::function<void(TorchCase&, const T&, const T&)>>;
    template <class F>
    OpCase(std::string test_name, std::string fixture_case, F op)
        : test(std::move(test_name)),
          fixture(std::move(fixture_case)),
          run([op](TorchCase& c, const auto&... in) { c.check(op(in...)); }) {}
    std::string test;     ///< the test's name
    std::string fixture;  ///< the fixture case
    Run run;
    friend void PrintTo(const OpCase& c, std::ostream* os) { *os << c.fixture; }
};
template <std::size_t D, std::size_t Arity>
class TorchOp : public ::testing::TestWithParam<OpCase<D, Arity>> {
public:
    using Case = OpCase<D, Arity>;

protected:
    void check_case() {
        const auto& p = this->GetParam();
        TorchCase c(kFile, p.fixture);
        if constexpr (Arity == 1) {
            p.run(c, c.input<D>("x"));
        } else {
            auto a = c.input<D>("a");
            auto b = c.input<D>("b");
            p.run(c, a, b);
        }
    }
};
/// Names each instance after its case.
struct CaseName {
    template <class Case>
    std::string operator()(const ::testing::TestParamInfo<Case>& info) const {
        return info.param.test;
    }
};
using TorchUnary2 = TorchOp<2, 1>;
using TorchUnary3 = TorchOp<3, 1>;
using TorchBinary2 = TorchOp<2, 2>;
using TorchBinary3 = TorchOp<3, 2>;
using TorchBinary4 = TorchOp<4, 2>;
TEST_P(TorchUnary2, MatchesTorch) { check_case(); }
TEST_P(TorchUnary3, MatchesTorch) { check_case(); }
TEST_P(TorchBinary2, MatchesTorch) { check_case(); }
TEST_P(TorchBinary3, MatchesTorch) { check_case(); }
TEST_P(TorchBinary4, MatchesTorch) { check_case(); }

// ================================================================================ arithmetic
INSTANTIATE_TEST_SUITE_P(
    Arithmetic, TorchBinary2,
    ::testing::Values(TorchBinary2::Case{"AddBroadcast", "add_broadcast",
                                         [](const T2& a, const T2& b) { return a + b; }},
                      TorchBinary2::Case{"SubBroadcast", "sub_broadcast",
                                         [](const T2& a, const T2& b) { return a - b; }},
                      TorchBinary2::Case{"MulBroadcast", "mul_broadcast",
                                         [](const T2& a, const T2& b) { return a * b; }},
                      TorchBinary2::Case{"DivBroadcast", "div_broadcast",
                                         [](const T2& a, const T2& b) { return a / b; }},
                      TorchBinary2::Case{"Remainder", "remainder",
                                         [](const T2& a, const T2& b) { return a % b; }},
                      TorchBinary2::Case{"RemainderBroadcast", "remainder_broadcast",
                                         [](const T2& a, const T2& b) { return a % b; }}),
    CaseName{});

INSTANTIATE_TEST_SUITE_P(
    Arithmetic, TorchBinary3,
    ::testing::Values(TorchBinary3::Case{"AddBroadcast3d", "add_broadcast_3d",
                                         [](const T3& a, const T3& b) { return a + b; }},
                      TorchBinary3::Case{"SubBroadcast3d", "sub_broadcast_3d",
                                         [](const T3& a, const T3& b) { return a - b; }},
                      TorchBinary3::Case{"MulBroadcast3d", "mul_broadcast_3d",
                                         [](const T3& a, const T3& b) { return a * b; }},
                      TorchBinary3::Case{"DivBroadcast3d", "div_broadcast_3d",
                                         [](const T3& a, const T3& b) { return a / b; }}),
    CaseName{});

INSTANTIATE_TEST_SUITE_P(
    Arithmetic, TorchUnary2,
    ::testing::Values(TorchUnary2::Case{"RemScalar", "rem_scalar",
                                        [](const T2& x) { return x % 0.75; }},
                      TorchUnary2::Case{"ScalarOps", "scalar_ops",
                                        [](const T2& x) {
                                            return ((x + 1.5) * 2.5 - 0.75) / 4.0 + (3.0 - x) +
                                                   2.0 / x;
                                        }},
                      TorchUnary2::Case{"Neg", "neg", [](const T2& x) { return -x; }},
                      TorchUnary2::Case{"Abs", "abs", [](const T2& x) { return x.abs(); }}),
    CaseName{});
TEST(TorchGrads, MulSelf) {
    TorchCase c(kFile, "mul_self");
    auto a = c.input<2>("a");
    c.check(a * a);
}

// ===================================================================================== math
TEST(TorchGrads, Powf) {
    TorchCase c(kFile, "powf");
    auto x = c.input<2>("x"), p = c.input<2>("p");
    c.check(x.powf(p));
}
TEST(TorchGrads, PowfBroadcast) {
    TorchCase c(kFile, "powf_broadcast");
    auto x = c.input<2>("x"), p = c.input<2>("p");
    c.check(x.powf(p));
}
INSTANTIATE_TEST_SUITE_P(
    Math, TorchUnary2,
    ::testing::Values(
        TorchUnary2::Case{"PowfScalar", "powf_scalar",
                          [](const T2& x) { return x.powf_scalar(2.5); }},
        TorchUnary2::Case{"PowfScalarIntegerExponent", "powf_scalar_int",
                          [](const T2& x) { return x.powf_scalar(3.0); }},  // negative bases
        TorchUnary2::Case{"Exp", "exp", [](const T2& x) { return x.exp(); }},
        TorchUnary2::Case{"Log", "log", [](const T2& x) { return x.log(); }},
        TorchUnary2::Case{"Log1p", "log1p", [](const T2& x) { return x.log1p(); }},
        TorchUnary2::Case{"Erf", "erf", [](const T2& x) { return x.erf(); }},
        TorchUnary2::Case{"Sqrt", "sqrt", [](const T2& x) { return x.sqrt(); }},
        TorchUnary2::Case{"Recip", "recip", [](const T2& x) { return x.recip(); }},
        TorchUnary2::Case{"Sin", "sin", [](const T2& x) { return x.sin(); }},
        TorchUnary2::Case{"Cos", "cos", [](const T2& x) { return x.cos(); }},
        TorchUnary2::Case{"Tanh", "tanh", [](const T2& x) { return x.tanh(); }},
        TorchUnary2::Case{"Clamp", "clamp", [](const T2& x) { return x.clamp(-0.5, 0.5); }},
        TorchUnary2::Case{"ClampMin", "clamp_min", [](const T2& x) { return x.clamp_min(0.25); }},
        TorchUnary2::Case{"ClampMax", "clamp_max", [](const T2& x) { return x.clamp_max(-0.25); }}),
    CaseName{});

INSTANTIATE_TEST_SUITE_P(
    Math, TorchBinary2,
    ::testing::Values(TorchBinary2::Case{"MaxPair", "max_pair",
                                         [](const T2& a, const T2& b) { return a.max_pair(b); }},
                      TorchBinary2::Case{"MinPair", "min_pair",
                                         [](const T2& a, const T2& b) { return a.min_pair(b); }},
                      TorchBinary2::Case{"Matmul", "matmul",
                                         [](const T2& a, const T2& b) { return a.matmul(b); }},
                      TorchBinary2::Case{"MatmulTransposedOperand", "matmul_transposed",
                                         [](const T2& a, const T2& b) {
                                             return a.swap_dims(0, 1).matmul(b);
                                         }}),  // a is [4, 3]; the product uses the strided view a^T
    CaseName{});

INSTANTIATE_TEST_SUITE_P(Math, TorchBinary4,
                         ::testing::Values(TorchBinary4::Case{"MatmulBatchedBroadcast",
                                                              "matmul_batched_broadcast",
                                                              [](const T4& a, const T4& b) {
                                                                  return a.matmul(b);
                                                              }}),  // [2, 1, 3, 4] @ [1, 3, 4, 5]
                         CaseName{});
TEST(TorchGrads, StridedLeafMul) {
    TorchCase c(kFile, "strided_leaf_mul");
    auto a = c.strided_input<2>("a"), b = c.input<2>("b");
    c.check((a * b).exp());
}
TEST(TorchGrads, StridedLeafMatmul) {
    TorchCase c(kFile, "strided_leaf_matmul");
    auto a = c.strided_input<3>("a"), b = c.strided_input<3>("b");
    c.check(a.matmul(b));
}

TEST(TorchGrads, StridedLeafConv2d) {
    TorchCase c(kFile, "strided_leaf_conv2d");
    auto x = c.strided_input<4>("x"), w = c.strided_input<4>("w");
    c.check(module::conv2d(x, w, std::nullopt, ConvOptions<2>{.padding = {1, 1}}));
}
TEST(TorchGrads, StridedLeafMaxPool2d) {
    TorchCase c(kFile, "strided_leaf_max_pool2d");
    c.check(module::max_pool2d(c.strided_input<4>("x"), {2, 2}, {1, 1}, {0, 0}));
}
TEST(TorchGrads, StridedLeafSoftmax) {
    TorchCase c(kFile, "strided_leaf_softmax");
    c.check(activation::softmax(c.strided_input<2>("x"), 1));
}

// =============================================================================== reductions
INSTANTIATE_TEST_SUITE_P(
    Reductions, TorchUnary2,
    ::testing::Values(
        TorchUnary2::Case{"Sum", "sum", [](const T2& x) { return x.sum(); }},
        TorchUnary2::Case{"Mean", "mean", [](const T2& x) { return x.mean(); }},
        TorchUnary2::Case{"Prod", "prod", [](const T2& x) { return x.prod(); }},
        TorchUnary2::Case{
            "ProdWithZero", "prod_zero",
            [](const T2& x) { return x.prod(); }},  // one zero: only it gets a (non-zero) gradient
        TorchUnary2::Case{"ProdDim", "prod_dim", [](const T2& x) { return x.prod_dim(1); }},
        TorchUnary2::Case{
            "ProdDimZeros", "prod_dim_zeros",
            [](const T2& x) { return x.prod_dim(1); }},  // rows with no zero, one zero, two zeros
        TorchUnary2::Case{"Max", "max", [](const T2& x) { return x.max(); }},
        TorchUnary2::Case{"Min", "min", [](const T2& x) { return x.min(); }},
        TorchUnary2::Case{"Var", "var", [](const T2& x) { return x.var(1); }},
        TorchUnary2::Case{"VarBias", "var_bias", [](const T2& x) { return x.var_bias(0); }}),
    CaseName{});

INSTANTIATE_TEST_SUITE_P(
    Reductions, TorchUnary3,
    ::testing::Values(
        TorchUnary3::Case{"SumDim", "sum_dim", [](const T3& x) { return x.sum_dim(1); }},
        TorchUnary3::Case{"MeanDim", "mean_dim", [](const T3& x) { return x.mean_dim(0); }},
        TorchUnary3::Case{"MaxDim", "max_dim", [](const T3& x) { return x.max_dim(1); }},
        TorchUnary3::Case{"MinDim", "min_dim", [](const T3& x) { return x.min_dim(2); }}),
    CaseName{});

// ================================================================================ shape ops
INSTANTIATE_TEST_SUITE_P(
    ShapeOps, TorchUnary3,
    ::testing::Values(TorchUnary3::Case{"Reshape", "reshape",
                                        [](const T3& x) {
                                            return x.reshape<2>({4, 6});
                                        }},
                      TorchUnary3::Case{"SwapDims", "swap_dims",
                                        [](const T3& x) { return x.swap_dims(0, 2) * 1.0; }},
                      TorchUnary3::Case{"Permute", "permute",
                                        [](const T3& x) {
                                            return x.permute({2, 0, 1});
                                        }},
                      TorchUnary3::Case{"Flip", "flip",
                                        [](const T3& x) {
                                            return x.flip({0, 2});
                                        }},
                      TorchUnary3::Case{"RepeatDim", "repeat_dim",
                                        [](const T3& x) { return x.repeat_dim(1, 3); }}),
    CaseName{});

INSTANTIATE_TEST_SUITE_P(
    ShapeOps, TorchUnary2,
    ::testing::Values(
        TorchUnary2::Case{
            "SwapDimsThenExp", "swap_dims_then_exp",
            [](const T2& x) { return x.transpose().exp(); }},  // exp of a non-contiguous view
        TorchUnary2::Case{"Expand", "expand",
                          [](const T2& x) {
                              return x.expand<3>({2, 3, 4});
                          }},  // [3, 1] -> [2, 3, 4]: a new leading dim and a grown dim
        TorchUnary2::Case{"SliceWithStep", "slice_step",
                          [](const T2& x) {
                              return x.slice({Slice(1, 6, 2), Slice(0, INT64_MAX, 3)});
                          }}),  // x[1:6:2, ::3]
    CaseName{});

INSTANTIATE_TEST_SUITE_P(ShapeOps, TorchBinary2,
                         ::testing::Values(TorchBinary2::Case{
                             "Stack", "stack",
                             [](const T2& a, const T2& b) {
                                 return Tensor<ADF, 2>::stack({a, b}, 1);
                             }}),
                         CaseName{});
TEST(TorchGrads, SliceAssign) {
    TorchCase c(kFile, "slice_assign");  // x[1:4, 0:5:2] = v
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.slice_assign({Slice(1, 4), Slice(0, 5, 2)}, v));
}
TEST(TorchGrads, Cat) {
    TorchCase c(kFile, "cat");
    auto a = c.input<3>("a"), b = c.input<3>("b"), d = c.input<3>("c");
    c.check(Tensor<ADF, 3>::cat({a, b, d}, 1));
}

// ================================================================================= indexing
TEST(TorchGrads, Gather) {
    TorchCase c(kFile, "gather");  // repeated indices accumulate
    auto x = c.input<2>("x");
    c.check(x.gather(1, c.ints<2>("idx")));
}
TEST(TorchGrads, GatherSmallerIndex) {
    TorchCase c(kFile, "gather_smaller_index");  // indices [2, 3] into x [3, 4]
    auto x = c.input<2>("x");
    c.check(x.gather(1, c.ints<2>("idx")));
}
TEST(TorchGrads, Scatter) {
    TorchCase c(kFile, "scatter");  // burn's scatter adds (torch.scatter_add)
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.scatter(0, c.ints<2>("idx"), v));
}
TEST(TorchGrads, ScatterValuesLargerThanIndices) {
    // v [3, 4], indices [2, 2]: the values no index reads get a zero gradient (the gradient has
    // v's shape, not the indices').
    TorchCase c(kFile, "scatter_values_larger");
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.scatter(1, c.ints<2>("idx"), v));
}
TEST(TorchGrads, Select) {
    TorchCase c(kFile, "select");
    auto x = c.input<2>("x");
    c.check(x.select(1, c.ints<1>("idx")));
}
TEST(TorchGrads, SelectAssign) {
    TorchCase c(kFile, "select_assign");  // burn's select_assign adds (torch.index_add)
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.select_assign(0, c.ints<1>("idx"), v));
}
TEST(TorchGrads, MaskWhere) {
    TorchCase c(kFile, "mask_where");  // torch.where(mask, v, x), v broadcast from [1, 4]
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.mask_where(c.bools<2>("mask"), v));
}
TEST(TorchGrads, MaskWhereBroadcastMask) {
    TorchCase c(kFile, "mask_where_broadcast_mask");  // mask [1, 4]
    auto x = c.input<2>("x"), v = c.input<2>("v");
    c.check(x.mask_where(c.bools<2>("mask"), v));
}
TEST(TorchGrads, MaskFill) {
    TorchCase c(kFile, "mask_fill");
    auto x = c.input<2>("x");
    c.check(x.mask_fill(c.bools<2>("mask"), 2.5));
}
INSTANTIATE_TEST_SUITE_P(
    Indexing, TorchUnary2,
    ::testing::Values(TorchUnary2::Case{"Sort", "sort", [](const T2& x) { return x.sort(1); }},
                      TorchUnary2::Case{"SortDescending", "sort_descending",
                                        [](const T2& x) { return x.sort_descending(0); }},
                      TorchUnary2::Case{"Topk", "topk", [](const T2& x) { return x.topk(2, 1); }}),
    CaseName{});

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
    TorchCase c(kFile, "conv1d");  // stride 2, padding 1, groups 2, bias
    auto x = c.input<3>("x"), w = c.input<3>("w");
    auto b = c.input<1>("b");
    c.check(module::conv1d(x, w, b, conv_options<1>(c)));
}
TEST(TorchGrads, Conv1dNoBias) {
    TorchCase c(kFile, "conv1d_nobias");  // dilation 2
    auto x = c.input<3>("x"), w = c.input<3>("w");
    c.check(module::conv1d(x, w, std::nullopt, conv_options<1>(c)));
}
TEST(TorchGrads, Conv2d) {
    TorchCase c(kFile, "conv2d");  // stride, padding, dilation, groups, bias
    auto x = c.input<4>("x"), w = c.input<4>("w");
    auto b = c.input<1>("b");
    c.check(module::conv2d(x, w, b, conv_options<2>(c)));
}
TEST(TorchGrads, Conv2dPlain) {
    TorchCase c(kFile, "conv2d_plain");
    auto x = c.input<4>("x"), w = c.input<4>("w");
    auto b = c.input<1>("b");
    c.check(module::conv2d(x, w, b, conv_options<2>(c)));
}
TEST(TorchGrads, Conv3d) {
    TorchCase c(kFile, "conv3d");
    auto x = c.input<5>("x"), w = c.input<5>("w");
    auto b = c.input<1>("b");
    c.check(module::conv3d(x, w, b, conv_options<3>(c)));
}
TEST(TorchGrads, ConvTranspose1d) {
    TorchCase c(kFile, "conv_transpose1d");  // stride 2, padding 1, padding_out 1, groups 2
    auto x = c.input<3>("x"), w = c.input<3>("w");
    auto b = c.input<1>("b");
    c.check(module::conv_transpose1d(x, w, b, conv_transpose_options<1>(c)));
}
TEST(TorchGrads, ConvTranspose2d) {
    TorchCase c(kFile, "conv_transpose2d");  // stride (2, 3), padding_out (1, 2), dilation (1, 2)
    auto x = c.input<4>("x"), w = c.input<4>("w");
    auto b = c.input<1>("b");
    c.check(module::conv_transpose2d(x, w, b, conv_transpose_options<2>(c)));
}
TEST(TorchGrads, ConvTranspose2dGroups) {
    TorchCase c(kFile, "conv_transpose2d_groups");
    auto x = c.input<4>("x"), w = c.input<4>("w");
    c.check(module::conv_transpose2d(x, w, std::nullopt, conv_transpose_options<2>(c)));
}

DeformConvOptions<2> deform_options(const TorchCase& c) {
    return DeformConvOptions<2>{c.sizes<2>("stride"), c.sizes<2>("padding"), c.sizes<2>("dilation"),
                                c.param("weight_groups").get<std::size_t>(),
                                c.param("offset_groups").get<std::size_t>()};
}
TEST(TorchGrads, DeformConv2d) {
    TorchCase c(kFile, "deform_conv2d");  // mask and bias
    auto x = c.input<4>("x"), offset = c.input<4>("offset"), w = c.input<4>("w");
    auto mask = c.input<4>("mask");
    auto b = c.input<1>("b");
    c.check(module::deform_conv2d(x, offset, w, mask, b, deform_options(c)));
}
TEST(TorchGrads, DeformConv2dGroups) {
    TorchCase c(kFile,
                "deform_conv2d_groups");  // weight and offset groups, stride, no mask or bias
    auto x = c.input<4>("x"), offset = c.input<4>("offset"), w = c.input<4>("w");
    c.check(module::deform_conv2d(x, offset, w, std::nullopt, std::nullopt, deform_options(c)));
}

// ================================================================================= pooling
TEST(TorchGrads, AvgPool1d) {
    TorchCase c(kFile, "avg_pool1d");
    c.check(module::avg_pool1d(c.input<3>("x"), 3, 2, 1));
}
TEST(TorchGrads, AvgPool2d) {
    TorchCase c(kFile, "avg_pool2d");
    c.check(module::avg_pool2d(c.input<4>("x"), {3, 2}, {2, 1}, {1, 1}));
}
TEST(TorchGrads, AvgPool2dExcludePad) {
    TorchCase c(kFile, "avg_pool2d_exclude_pad");
    c.check(module::avg_pool2d(c.input<4>("x"), {3, 3}, {2, 2}, {1, 1}, false));
}
TEST(TorchGrads, AvgPool2dCeil) {
    TorchCase c(kFile, "avg_pool2d_ceil");
    c.check(module::avg_pool2d(c.input<4>("x"), {2, 2}, {2, 2}, {0, 0}, true, true));
}
TEST(TorchGrads, MaxPool1d) {
    TorchCase c(kFile, "max_pool1d");
    c.check(module::max_pool1d(c.input<3>("x"), 3, 2, 1, 1));
}
TEST(TorchGrads, MaxPool2d) {
    TorchCase c(kFile, "max_pool2d");
    c.check(module::max_pool2d(c.input<4>("x"), {2, 3}, {2, 1}, {1, 1}, {1, 2}));
}
TEST(TorchGrads, MaxPool2dOverlapping) {
    TorchCase c(kFile, "max_pool2d_overlap");  // an element can win several windows
    c.check(module::max_pool2d(c.input<4>("x"), {3, 3}, {1, 1}, {0, 0}));
}
TEST(TorchGrads, AdaptiveAvgPool1d) {
    TorchCase c(kFile, "adaptive_avg_pool1d");  // 7 -> 3: overlapping bins
    c.check(module::adaptive_avg_pool1d(c.input<3>("x"), 3));
}
TEST(TorchGrads, AdaptiveAvgPool2d) {
    TorchCase c(kFile, "adaptive_avg_pool2d");
    c.check(module::adaptive_avg_pool2d(c.input<4>("x"), {3, 2}));
}

// ===================================================================== interpolate, lookups
void check_interpolate(const std::string& name, InterpolateMode mode) {
    TorchCase c(kFile, name);
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
    TorchCase c(kFile, "embedding");  // repeated indices accumulate
    auto w = c.input<2>("w");
    c.check(module::embedding(w, c.ints<2>("idx")));
}
TEST(TorchGrads, Unfold4d) {
    TorchCase c(kFile, "unfold4d");
    const UnfoldOptions o{c.sizes<2>("stride"), c.sizes<2>("padding"), c.sizes<2>("dilation")};
    c.check(module::unfold4d(c.input<4>("x"), c.sizes<2>("kernel"), o));
}

// ============================================================================== activations
TEST(TorchGrads, Relu) {
    TorchCase c(kFile, "relu");
    c.check(activation::relu(c.input<2>("x")));
}
TEST(TorchGrads, LeakyRelu) {
    TorchCase c(kFile, "leaky_relu");
    c.check(activation::leaky_relu(c.input<2>("x"), 0.1));
}
TEST(TorchGrads, Gelu) {
    TorchCase c(kFile, "gelu");
    c.check(activation::gelu(c.input<2>("x")));
}
TEST(TorchGrads, Sigmoid) {
    TorchCase c(kFile, "sigmoid");
    c.check(activation::sigmoid(c.input<2>("x")));
}
TEST(TorchGrads, HardSigmoid) {
    for (const char* name : {"hard_sigmoid", "hard_sigmoid_torch"}) {
        TorchCase c(kFile, name);
        c.check(activation::hard_sigmoid(c.input<2>("x"), c.param("alpha").get<double>(),
                                         c.param("beta").get<double>()));
    }
}
TEST(TorchGrads, LogSigmoid) {
    TorchCase c(kFile, "log_sigmoid");
    c.check(activation::log_sigmoid(c.input<2>("x")));
}
TEST(TorchGrads, Softmax) {
    TorchCase c(kFile, "softmax");
    c.check(activation::softmax(c.input<3>("x"), c.param("dim").get<std::int64_t>()));
    TorchCase last(kFile, "softmax_last");
    last.check(activation::softmax(last.input<2>("x"), last.param("dim").get<std::int64_t>()));
}
TEST(TorchGrads, Softmin) {
    TorchCase c(kFile, "softmin");
    c.check(activation::softmin(c.input<2>("x"), c.param("dim").get<std::int64_t>()));
}
TEST(TorchGrads, LogSoftmax) {
    TorchCase c(kFile, "log_softmax");
    c.check(activation::log_softmax(c.input<2>("x"), c.param("dim").get<std::int64_t>()));
}
TEST(TorchGrads, QuietSoftmax) {
    TorchCase c(kFile, "quiet_softmax");
    c.check(activation::quiet_softmax(c.input<2>("x"), c.param("dim").get<std::int64_t>()));
}
TEST(TorchGrads, Softplus) {
    // Includes inputs past the threshold (beta * x > 20), where softplus is x itself.
    for (const char* name : {"softplus", "softplus_beta2"}) {
        TorchCase c(kFile, name);
        c.check(activation::softplus(c.input<2>("x"), c.param("beta").get<double>()));
    }
}
TEST(TorchGrads, Silu) {
    TorchCase c(kFile, "silu");
    c.check(activation::silu(c.input<2>("x")));
}
TEST(TorchGrads, Mish) {
    TorchCase c(kFile, "mish");
    c.check(activation::mish(c.input<2>("x")));
}
TEST(TorchGrads, TanhActivation) {
    TorchCase c(kFile, "tanh_activation");
    c.check(activation::tanh(c.input<2>("x")));
}
TEST(TorchGrads, Prelu) {
    TorchCase c(kFile, "prelu");  // one alpha per channel; alpha gets a gradient too
    auto x = c.input<3>("x");
    auto alpha = c.input<1>("alpha");
    c.check(activation::prelu(x, alpha));
}
TEST(TorchGrads, PreluScalarAlpha) {
    TorchCase c(kFile, "prelu_scalar");
    auto x = c.input<2>("x");
    auto alpha = c.input<1>("alpha");
    c.check(activation::prelu(x, alpha));
}

// ============================================================================ at the kinks
// Where PyTorch documents a subgradient and Burn follows it (the fixture lists which).
INSTANTIATE_TEST_SUITE_P(AtTheKinks, TorchUnary2,
                         ::testing::Values(TorchUnary2::Case{"AbsAtZero", "abs_zero",
                                                             [](const T2& x) { return x.abs(); }}),
                         CaseName{});
TEST(TorchGrads, ReluAtZero) {
    TorchCase c(kFile, "relu_zero");
    c.check(activation::relu(c.input<2>("x")));
}
TEST(TorchGrads, LeakyReluAtZero) {
    TorchCase c(kFile, "leaky_relu_zero");
    c.check(activation::leaky_relu(c.input<2>("x"), 0.1));
}
TEST(TorchGrads, ClampAtBounds) {
    TorchCase c(kFile, "clamp_bounds");
    c.check(c.input<2>("x").clamp(-0.5, 0.5));
    TorchCase lo(kFile, "clamp_min_bound");
    lo.check(lo.input<2>("x").clamp_min(0.25));
    TorchCase hi(kFile, "clamp_max_bound");
    hi.check(hi.input<2>("x").clamp_max(-0.25));
}
TEST(TorchGrads, MaxMinPairTies) {
    TorchCase c(kFile, "max_pair_ties");
    auto a = c.input<2>("a"), b = c.input<2>("b");
    c.check(a.max_pair(b));
    TorchCase m(kFile, "min_pair_ties");
    auto ma = m.input<2>("a"), mb = m.input<2>("b");
    m.check(ma.min_pair(mb));
}
TEST(TorchGrads, HardSigmoidAtBounds) {
    TorchCase c(kFile, "hard_sigmoid_torch_bounds");
    c.check(activation::hard_sigmoid(c.input<2>("x"), c.param("alpha").get<double>(),
                                     c.param("beta").get<double>()));
}
TEST(TorchGrads, PowfZeroBaseAndExponent) {
    TorchCase c(kFile, "powf_zero");
    auto x = c.input<2>("x"), p = c.input<2>("p");
    c.check(x.powf(p));
}

// ================================================================================ composite
TEST(TorchGrads, MlpCrossEntropy) {
    // relu(x w1 + b1) w2 + b2 -> log_softmax -> mean NLL of the targets (cross-entropy).
    TorchCase c(kFile, "mlp_cross_entropy");
    auto x = c.input<2>("x"), w1 = c.input<2>("w1"), b1 = c.input<2>("b1");
    auto w2 = c.input<2>("w2"), b2 = c.input<2>("b2");
    const auto targets = c.ints<2>("targets");
    auto h = activation::relu(x.matmul(w1) + b1);
    auto logp = activation::log_softmax(h.matmul(w2) + b2, 1);
    c.check(-logp.gather(1, targets).mean());
}

}  // namespace

}  // namespace burn_autodiff_torch_grads

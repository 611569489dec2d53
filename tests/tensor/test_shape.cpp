// SPDX-License-Identifier: MIT OR Apache-2.0
// View-like shape ops against PyTorch: reshape, flatten, squeeze, squeeze_dims, unsqueeze,
// unsqueeze_dim, permute, movedim, swap_dims, transpose, flip, expand. Each runs on contiguous
// and non-contiguous inputs (see csi::layouts), on Int and Bool tensors, on empty dims, and every
// invalid argument is checked to throw naming the op.
// Copying shape ops (repeat, narrow, chunk, split, slice, cat, stack, pad) are in
// test_shape_slice.cpp.
#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_shape {

namespace {

using namespace burn;
using burn::csi::bools;
using burn::csi::floats;
using burn::csi::ints;
using burn::csi::matches;
using burn::csi::out;

template <class B>
class ShapeTest : public ::testing::Test {};
TYPED_TEST_SUITE(ShapeTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(ShapeTest, Reshape) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 3>("reshape", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.template reshape<2>({4, -1}), out("reshape", "r_4_m1")));
        EXPECT_TRUE(matches(x.template reshape<2>({0, -1}), out("reshape", "r_0_m1")));
        EXPECT_TRUE(matches(x.template reshape<1>({-1}), out("reshape", "r_m1")));
        EXPECT_TRUE(matches(x.template reshape<3>({4, 0, -1}), out("reshape", "r_4_0_m1")));
        EXPECT_TRUE(matches(x.template reshape<2>(Shape{4, 6}), out("reshape", "r_4_m1")));
        EXPECT_TRUE(matches(x.template reshape<2>(std::array<std::size_t, 2>{4, 6}),
                            out("reshape", "r_4_m1")));
        EXPECT_TRUE(matches(x.template reshape<2>(std::array<std::int64_t, 2>{-1, 6}),
                            out("reshape", "r_4_m1")));
        EXPECT_TRUE(
            matches(x.swap_dims(0, 2).template reshape<2>({6, 4}), out("reshape", "t_6_4")));
        EXPECT_TRUE(
            matches(x.slice({Slice::all(), Slice(0, INT64_MAX, 2)}).template reshape<2>({2, 8}),
                    out("reshape", "s_2_8")));
        EXPECT_TRUE(matches(x.flip({1}).template reshape<1>({24}), out("reshape", "f_24")));
        // Reshaping back restores the input; the input is untouched.
        EXPECT_TRUE(matches(x.template reshape<1>({-1}).template reshape<3>({2, 3, 4}),
                            csi::in_data("reshape", "x")));
        EXPECT_TRUE(matches(x, csi::in_data("reshape", "x")));
    }
    // Int and Bool, through a transposed view.
    auto i = I1::arange(0, 6).template reshape<2>({2, 3}).transpose().template reshape<1>({6});
    EXPECT_TRUE(matches(i, ints<1>({0, 3, 1, 4, 2, 5})));
    auto b = Bo2::from_bools({{true, false, false}, {false, true, true}}).transpose();
    EXPECT_TRUE(
        matches(b.template reshape<1>({-1}), bools<1>({true, false, false, true, false, true})));
    // Empty dims.
    // (A literal 0 in the int64 form keeps the input dim, as in Burn: use a Shape for a 0 dim.)
    EXPECT_EQ(F2::zeros({0, 3}).template reshape<2>(Shape{3, 0}).shape(), Shape({3, 0}));
    EXPECT_BURN_ERROR((F2::zeros({0, 3}).template reshape<2>({3, 0})), "into [3, 3]");
    EXPECT_EQ(F2::zeros({0, 3}).template reshape<3>({-1, 3, 1}).shape(), Shape({0, 3, 1}));
    EXPECT_EQ(F2::zeros({0, 3}).template reshape<1>({-1}).shape(), Shape({0}));
}

TYPED_TEST(ShapeTest, ReshapeErrors) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto x = F3::zeros({2, 3, 4});
    EXPECT_BURN_ERROR((x.template reshape<2>({5, 5})), "Tensor::reshape");
    EXPECT_BURN_ERROR((x.template reshape<2>({-1, -1})), "Tensor::reshape");
    EXPECT_BURN_ERROR((x.template reshape<2>({-2, -12})), "Tensor::reshape");
    EXPECT_BURN_ERROR((x.template reshape<2>({5, -1})), "Tensor::reshape");
    EXPECT_BURN_ERROR((x.template reshape<4>({0, 0, 0, 0})), "Tensor::reshape");
    EXPECT_BURN_ERROR((x.template reshape<2>(Shape{2, 3, 4})), "Tensor::reshape");
    EXPECT_BURN_ERROR((x.template reshape<2>(Shape{2, 3})), "Tensor::reshape");
    EXPECT_BURN_ERROR((F2::zeros({0, 3}).template reshape<2>({0, -1})), "Tensor::reshape");
    EXPECT_BURN_ERROR((I1::arange(0, 5).template reshape<2>({2, -1})), "Tensor::reshape");
}

TYPED_TEST(ShapeTest, Flatten) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 4>("flatten", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.template flatten<3>(1, 2), out("flatten", "f_1_2")));
        EXPECT_TRUE(matches(x.template flatten<1>(0, 3), out("flatten", "f_0_3")));
        EXPECT_TRUE(matches(x.template flatten<3>(-2, -1), out("flatten", "f_m2_m1")));
        EXPECT_TRUE(matches(x.template flatten<4>(2, 2), out("flatten", "f_2_2")));
        EXPECT_TRUE(
            matches(x.permute({3, 1, 0, 2}).template flatten<3>(0, 1), out("flatten", "p_0_1")));
        EXPECT_BURN_ERROR((x.template flatten<3>(2, 1)), "Tensor::flatten");
        EXPECT_BURN_ERROR((x.template flatten<2>(1, 2)), "Tensor::flatten");
        EXPECT_BURN_ERROR((x.template flatten<1>(0, 4)), "Tensor::flatten");
        EXPECT_BURN_ERROR((x.template flatten<1>(-5, 3)), "Tensor::flatten");
    }
    auto b = Bo2::from_bools({{true, false}, {false, false}}).transpose().template flatten<1>(0, 1);
    EXPECT_TRUE(matches(b, bools<1>({true, false, false, false})));
    EXPECT_EQ(F3::zeros({2, 0, 3}).template flatten<2>(0, 1).shape(), Shape({0, 3}));
}

TYPED_TEST(ShapeTest, SqueezeAndSqueezeDims) {
    using B = TypeParam;
    CSI_ALIASES(B);
    // [2, 1, 3] as a transposed view of [2, 3, 1].
    auto x = F3::from_floats({{{1}, {2}, {3}}, {{4}, {5}, {6}}}).swap_dims(1, 2);
    ASSERT_EQ(x.shape(), Shape({2, 1, 3}));
    EXPECT_TRUE(matches(x.squeeze(1), floats<2>({{1, 2, 3}, {4, 5, 6}})));
    EXPECT_TRUE(matches(x.squeeze(-2), floats<2>({{1, 2, 3}, {4, 5, 6}})));
    EXPECT_BURN_ERROR((x.squeeze(0)), "Tensor::squeeze");
    EXPECT_BURN_ERROR((x.squeeze(3)), "Tensor::squeeze");
    EXPECT_BURN_ERROR((x.squeeze(-4)), "Tensor::squeeze");
    auto y = F3::zeros({1, 2, 1}).unsqueeze_dim(3).unsqueeze_dim(0);  // [1, 1, 2, 1, 1]
    ASSERT_EQ(y.shape(), Shape({1, 1, 2, 1, 1}));
    EXPECT_EQ(y.template squeeze_dims<1>().shape(), Shape({2}));
    EXPECT_EQ(y.template squeeze_dims<3>({0, -1}).shape(), Shape({1, 2, 1}));
    EXPECT_EQ(y.template squeeze_dims<4>({-2}).shape(), Shape({1, 1, 2, 1}));
    EXPECT_BURN_ERROR((y.template squeeze_dims<4>({2})), "Tensor::squeeze_dims");
    EXPECT_BURN_ERROR((y.template squeeze_dims<3>()), "Tensor::squeeze_dims");
    EXPECT_BURN_ERROR((y.template squeeze_dims<4>({5})), "Tensor::squeeze_dims");
    auto v = F2::from_floats({{1, 2, 3}}).transpose();  // [3, 1] view
    EXPECT_TRUE(matches(v.template squeeze_dims<1>({1}), floats<1>({1, 2, 3})));
    auto b = Bo2::from_bools({{true, false}});
    EXPECT_TRUE(matches(b.squeeze(0), bools<1>({true, false})));
    EXPECT_EQ(F3::zeros({0, 1, 2}).squeeze(1).shape(), Shape({0, 2}));
}

TYPED_TEST(ShapeTest, UnsqueezeAndUnsqueezeDim) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto x = F2::from_floats({{1, 2, 3}, {4, 5, 6}});
    const auto values = floats<1>({1, 2, 3, 4, 5, 6});
    EXPECT_EQ(x.unsqueeze().shape(), Shape({1, 2, 3}));
    EXPECT_EQ(x.template unsqueeze<4>().shape(), Shape({1, 1, 2, 3}));
    EXPECT_EQ(x.template unsqueeze<2>().shape(), Shape({2, 3}));
    EXPECT_EQ(x.unsqueeze_dim(0).shape(), Shape({1, 2, 3}));
    EXPECT_EQ(x.unsqueeze_dim(1).shape(), Shape({2, 1, 3}));
    EXPECT_EQ(x.unsqueeze_dim(2).shape(), Shape({2, 3, 1}));
    EXPECT_EQ(x.unsqueeze_dim(-1).shape(), Shape({2, 3, 1}));
    EXPECT_EQ(x.unsqueeze_dim(-2).shape(), Shape({2, 1, 3}));
    EXPECT_EQ(x.unsqueeze_dim(-3).shape(), Shape({1, 2, 3}));
    EXPECT_TRUE(matches(x.unsqueeze_dim(1).template reshape<1>({-1}), values));
    EXPECT_TRUE(matches(x.unsqueeze_dim(-1), floats<3>({{{1}, {2}, {3}}, {{4}, {5}, {6}}})));
    // On a transposed view.
    EXPECT_TRUE(matches(x.transpose().unsqueeze_dim(1), floats<3>({{{1, 4}}, {{2, 5}}, {{3, 6}}})));
    EXPECT_TRUE(matches(x.transpose().unsqueeze(), floats<3>({{{1, 4}, {2, 5}, {3, 6}}})));
    EXPECT_BURN_ERROR((x.unsqueeze_dim(3)), "Tensor::unsqueeze_dim");
    EXPECT_BURN_ERROR((x.unsqueeze_dim(-4)), "Tensor::unsqueeze_dim");
    EXPECT_TRUE(matches(I1::from_ints({4, 5}).unsqueeze_dim(1), ints<2>({{4}, {5}})));
    EXPECT_TRUE(matches(Bo1::from_bools({true, false}).unsqueeze(), bools<2>({{true, false}})));
    EXPECT_EQ(F1::zeros({0}).unsqueeze_dim(0).shape(), Shape({1, 0}));
}

TYPED_TEST(ShapeTest, Permute) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 3>("permute", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.permute({2, 0, 1}), out("permute", "p_2_0_1")));
        EXPECT_TRUE(matches(x.permute({1, 2, 0}), out("permute", "p_1_2_0")));
        EXPECT_TRUE(matches(x.permute({0, 1, 2}), out("permute", "p_0_1_2")));
        EXPECT_TRUE(matches(x.permute({-1, -3, -2}), out("permute", "p_m1_m3_m2")));
        EXPECT_TRUE(matches(x.swap_dims(0, 2).permute({1, 0, 2}), out("permute", "t_p_1_0_2")));
        EXPECT_BURN_ERROR((x.permute({0, 0, 1})), "Tensor::permute");
        EXPECT_BURN_ERROR((x.permute({0, 1, 3})), "Tensor::permute");
        EXPECT_BURN_ERROR((x.permute({0, 1, -4})), "Tensor::permute");
        EXPECT_BURN_ERROR((x.permute({2, -1, 0})), "Tensor::permute");  // -1 is 2
    }
    auto i = I2::from_ints({{1, 2}, {3, 4}}).permute({1, 0});
    EXPECT_TRUE(matches(i, ints<2>({{1, 3}, {2, 4}})));
    EXPECT_EQ(F3::zeros({2, 0, 3}).permute({2, 1, 0}).shape(), Shape({3, 0, 2}));
}

TYPED_TEST(ShapeTest, Movedim) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 3>("movedim", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.movedim(0, 2), out("movedim", "m_0_2")));
        EXPECT_TRUE(matches(x.movedim(-1, 0), out("movedim", "m_m1_0")));
        EXPECT_TRUE(matches(x.movedim(1, 1), out("movedim", "m_1_1")));
        EXPECT_TRUE(matches(x.movedim(2, 1), out("movedim", "m_2_1")));
        EXPECT_BURN_ERROR((x.movedim(3, 0)), "Tensor::movedim");
        EXPECT_BURN_ERROR((x.movedim(0, -4)), "Tensor::movedim");
    }
    auto b = Bo2::from_bools({{true, false, true}}).movedim(0, 1);
    EXPECT_TRUE(matches(b, bools<2>({{true}, {false}, {true}})));
}

TYPED_TEST(ShapeTest, SwapDimsAndTranspose) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 3>("swap_dims", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.swap_dims(0, 2), out("swap_dims", "s_0_2")));
        EXPECT_TRUE(matches(x.swap_dims(-1, -2), out("swap_dims", "s_m1_m2")));
        EXPECT_TRUE(matches(x.swap_dims(1, 1), out("swap_dims", "s_1_1")));
        EXPECT_TRUE(matches(x.swap_dims(0, 2).swap_dims(0, 1), out("swap_dims", "s_0_2_0_1")));
        EXPECT_BURN_ERROR((x.swap_dims(0, 3)), "Tensor::swap_dims");
        EXPECT_BURN_ERROR((x.swap_dims(-4, 0)), "Tensor::swap_dims");
    }
    for (auto& [name, x2] : csi::in_layouts<B, 2>("transpose", "x2")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x2.transpose(), out("transpose", "x2")));
        EXPECT_TRUE(matches(x2.transpose().transpose(), csi::in_data("transpose", "x2")));
    }
    for (auto& [name, x3] : csi::in_layouts<B, 3>("transpose", "x3")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x3.transpose(), out("transpose", "x3")));
    }
    EXPECT_TRUE(matches(csi::in<B, 1>("transpose", "x1").transpose(), out("transpose", "x1")));
    EXPECT_TRUE(matches(I2::from_ints({{1, 2, 3}}).transpose(), ints<2>({{1}, {2}, {3}})));
    EXPECT_TRUE(matches(Bo2::from_bools({{true, false}}).transpose(), bools<2>({{true}, {false}})));
    EXPECT_EQ(F2::zeros({0, 4}).transpose().shape(), Shape({4, 0}));
}

TYPED_TEST(ShapeTest, Flip) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 3>("flip", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.flip({0}), out("flip", "f_0")));
        EXPECT_TRUE(matches(x.flip({0, 2}), out("flip", "f_0_2")));
        EXPECT_TRUE(matches(x.flip({-1}), out("flip", "f_m1")));
        EXPECT_TRUE(matches(x.flip({0, 1, 2}), out("flip", "f_0_1_2")));
        EXPECT_TRUE(matches(x.flip(std::vector<std::int64_t>{2, 0}), out("flip", "f_0_2")));
        EXPECT_TRUE(matches(x.swap_dims(0, 2).flip({1}), out("flip", "t_f_1")));
        EXPECT_TRUE(matches(x.flip({1}).flip({1}), out("flip", "f_1_f_1")));
        EXPECT_TRUE(matches(x.flip(std::vector<std::int64_t>{}), csi::in_data("flip", "x")));
        EXPECT_BURN_ERROR((x.flip({0, 0})), "Tensor::flip");
        EXPECT_BURN_ERROR((x.flip({0, -3})), "Tensor::flip");
        EXPECT_BURN_ERROR((x.flip({3})), "Tensor::flip");
        EXPECT_BURN_ERROR((x.flip({-4})), "Tensor::flip");
    }
    EXPECT_TRUE(matches(I1::arange(0, 4).flip({0}), ints<1>({3, 2, 1, 0})));
    EXPECT_TRUE(
        matches(Bo1::from_bools({true, false, false}).flip({0}), bools<1>({false, false, true})));
    EXPECT_EQ(F2::zeros({0, 2}).flip({0, 1}).shape(), Shape({0, 2}));
    // Flipping an expanded (stride 0) tensor.
    auto e = F2::from_floats({{1}, {2}}).expand({2, 3}).flip({0, 1});
    EXPECT_TRUE(matches(e, floats<2>({{2, 2, 2}, {1, 1, 1}})));
}

TYPED_TEST(ShapeTest, Expand) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x31] : csi::in_layouts<B, 2>("expand", "x31")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x31.expand({2, 3, 4}), out("expand", "x31_2_3_4")));
        EXPECT_TRUE(matches(x31.expand({-1, 5}), out("expand", "x31_m1_5")));
        EXPECT_TRUE(matches(x31.transpose().expand({4, 3}), out("expand", "x31t_4_3")));
        EXPECT_TRUE(matches(x31.expand({3, 0}), csi::empty_data({3, 0})));
        EXPECT_TRUE(
            matches(x31.expand({3, 4}).template reshape<1>({12}), out("expand", "x31_e_flat")));
        EXPECT_TRUE(matches(x31.template expand<3>(Shape{2, 3, 4}), out("expand", "x31_2_3_4")));
        EXPECT_TRUE(
            matches(x31.expand(std::array<std::int64_t, 3>{2, -1, 4}), out("expand", "x31_2_3_4")));
        // Expanding an expanded tensor.
        EXPECT_TRUE(matches(x31.expand({3, 4}).expand({2, 3, 4}), out("expand", "x31_2_3_4")));
        EXPECT_BURN_ERROR((x31.expand({-1, 3, 4})), "Tensor::expand");
        EXPECT_BURN_ERROR((x31.expand({4, 4})), "Tensor::expand");
        EXPECT_BURN_ERROR((x31.expand({3, -2})), "Tensor::expand");
        EXPECT_BURN_ERROR((x31.template expand<3>(Shape{3, 4})), "Tensor::expand");
    }
    for (auto& [name, x1] : csi::in_layouts<B, 1>("expand", "x1")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x1.expand({3, 4}), out("expand", "x1_3_4")));
        EXPECT_TRUE(matches(x1.expand({4}), csi::in_data("expand", "x1")));
        EXPECT_BURN_ERROR((x1.expand({3, 5})), "Tensor::expand");
    }
    for (auto& [name, x131] : csi::in_layouts<B, 3>("expand", "x131")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x131.expand({2, 3, 5}), out("expand", "x131_2_3_5")));
        EXPECT_TRUE(matches(x131.expand({4, -1, -1, 2}), out("expand", "x131_4_m1_m1_2")));
    }
    EXPECT_TRUE(matches(I1::from_ints({1, 2}).expand({2, 2}), ints<2>({{1, 2}, {1, 2}})));
    EXPECT_TRUE(matches(Bo2::from_bools({{true}, {false}}).expand({2, 2}),
                        bools<2>({{true, true}, {false, false}})));
    EXPECT_EQ(F2::zeros({0, 1}).expand({0, 3}).shape(), Shape({0, 3}));
    EXPECT_EQ(F1::zeros({0}).expand({2, 0}).shape(), Shape({2, 0}));
}

}  // namespace

}  // namespace burn_test_shape

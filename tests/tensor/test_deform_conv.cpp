// SPDX-License-Identifier: MIT OR Apache-2.0
// deform_conv2d (torchvision.ops.deform_conv2d semantics) and its backward: with and without mask
// and bias, stride, padding, dilation, weight and offset groups, batch 1 and 2, offsets pushing
// samples outside the image, zero offsets (an ordinary conv2d), strided input views, images
// processed in several chunks, empty batches, and the argument errors.
// Expected values: tests/fixtures/deform_conv.json (tests/fixtures/gen_deform_conv.py).
#include <optional>
#include <string>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_deform_conv {

namespace {

using burn::DeformConvOptions;
using burn::Shape;
using burn::Tensor;
using burn::TensorData;
using burn::Tolerance;
using burn::testing::close_to;

constexpr const char* kFile = "deform_conv";

const nlohmann::json& fixture(const std::string& c) { return burn::testing::fixture(kFile, c); }

template <class B, std::size_t D>
Tensor<B, D> input(const std::string& c, const std::string& name) {
    return burn::testing::fixture_input<B, D>(kFile, c, name);
}

TensorData expected(const std::string& c, const std::string& name) {
    return burn::testing::fixture_output(kFile, c, name);
}

/// f32 accumulates sums of tens of products of values up to ~4: a little wider than the default.
template <class B>
Tolerance tol() {
    if constexpr (std::is_same_v<typename B::FloatElem, double>) return {1e-10, 1e-10};
    else return burn::testing::loose_tolerance<B>({5e-5, 5e-5});
}

DeformConvOptions<2> options(const std::string& c) {
    const auto& p = fixture(c).at("params");
    DeformConvOptions<2> o;
    for (std::size_t i = 0; i < 2; ++i) {
        o.stride[i] = p.at("stride")[i].get<std::size_t>();
        o.padding[i] = p.at("padding")[i].get<std::size_t>();
        o.dilation[i] = p.at("dilation")[i].get<std::size_t>();
    }
    o.weight_groups = p.at("weight_groups").get<std::size_t>();
    o.offset_groups = p.at("offset_groups").get<std::size_t>();
    return o;
}

/// The operands of one case; x / offset / mask may be replaced by strided views.
template <class B>
struct Operands {
    Tensor<B, 4> x, offset, weight, grad;
    std::optional<Tensor<B, 4>> mask;
    std::optional<Tensor<B, 1>> bias;

    explicit Operands(const std::string& c)
        : x(input<B, 4>(c, "x")),
          offset(input<B, 4>(c, "offset")),
          weight(input<B, 4>(c, "weight")),
          grad(input<B, 4>(c, "g")) {
        const auto& ins = fixture(c).at("inputs");
        if (ins.contains("mask")) mask = input<B, 4>(c, "mask");
        if (ins.contains("bias")) bias = input<B, 1>(c, "bias");
    }
};

/// Checks the forward output and all gradients of case `c` against the fixture.
template <class B>
void check_case(const std::string& c, const Operands<B>& op) {
    SCOPED_TRACE("case " + c);
    const auto opts = options(c);
    const auto y = burn::module::deform_conv2d(op.x, op.offset, op.weight, op.mask, op.bias, opts);
    EXPECT_TRUE(close_to(y, expected(c, "y"), tol<B>())) << "forward";

    std::optional<typename B::FloatTensor> mask, bias;
    if (op.mask) mask = op.mask->primitive();
    if (op.bias) bias = op.bias->primitive();
    auto gr =
        B::deform_conv2d_backward(op.x.primitive(), op.offset.primitive(), op.weight.primitive(),
                                  mask, bias, op.grad.primitive(), opts);
    EXPECT_TRUE(close_to(Tensor<B, 4>(gr.x_grad), expected(c, "x_grad"), tol<B>())) << "x_grad";
    // The offset gradient jumps where a sampling point crosses a pixel: a half-precision offset,
    // rounded across one, gives the gradient of the other side.
    if constexpr (!burn::testing::half_backend<B>)
        EXPECT_TRUE(close_to(Tensor<B, 4>(gr.offset_grad), expected(c, "offset_grad"), tol<B>()))
            << "offset_grad";
    EXPECT_TRUE(close_to(Tensor<B, 4>(gr.weight_grad), expected(c, "weight_grad"), tol<B>()))
        << "weight_grad";
    ASSERT_EQ(gr.mask_grad.has_value(), op.mask.has_value());
    if (op.mask)
        EXPECT_TRUE(close_to(Tensor<B, 4>(*gr.mask_grad), expected(c, "mask_grad"), tol<B>()))
            << "mask_grad";
    ASSERT_EQ(gr.bias_grad.has_value(), op.bias.has_value());
    if (op.bias)
        EXPECT_TRUE(close_to(Tensor<B, 1>(*gr.bias_grad), expected(c, "bias_grad"), tol<B>()))
            << "bias_grad";
}

template <class B>
void check_case(const std::string& c) {
    check_case<B>(c, Operands<B>(c));
}

template <class B>
class DeformConvTest : public ::testing::Test {};
TYPED_TEST_SUITE(DeformConvTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(DeformConvTest, Plain3x3) { check_case<TypeParam>("basic"); }
TYPED_TEST(DeformConvTest, MaskAndBiasBatch2) { check_case<TypeParam>("mask_bias"); }
TYPED_TEST(DeformConvTest, MaskWithoutBias) { check_case<TypeParam>("mask_only"); }
TYPED_TEST(DeformConvTest, BiasWithoutMask) { check_case<TypeParam>("bias_only"); }
TYPED_TEST(DeformConvTest, Stride2Padding1) { check_case<TypeParam>("stride2"); }
TYPED_TEST(DeformConvTest, Dilation2) { check_case<TypeParam>("dilation2"); }
TYPED_TEST(DeformConvTest, WeightAndOffsetGroups2) { check_case<TypeParam>("groups"); }
TYPED_TEST(DeformConvTest, OffsetGroups2) { check_case<TypeParam>("offset_groups"); }
TYPED_TEST(DeformConvTest, OffsetGroups4) { check_case<TypeParam>("offset_groups4"); }
TYPED_TEST(DeformConvTest, WeightGroups2) { check_case<TypeParam>("weight_groups"); }
TYPED_TEST(DeformConvTest, OffsetsOutsideImage) { check_case<TypeParam>("outside"); }
TYPED_TEST(DeformConvTest, MoreThanOneColumnBlock) { check_case<TypeParam>("wide"); }

TYPED_TEST(DeformConvTest, ZeroOffsetsEqualConv2d) {
    using B = TypeParam;
    for (const std::string c : {"zero_offset", "zero_offset_plain"}) {
        check_case<B>(c);
        Operands<B> op(c);
        const auto y =
            burn::module::deform_conv2d(op.x, op.offset, op.weight, op.mask, op.bias, options(c));
        EXPECT_TRUE(close_to(y, expected(c, "conv"), tol<B>())) << c << ": torch conv2d";
    }
}

TYPED_TEST(DeformConvTest, StridedInputViews) {
    using B = TypeParam;
    const std::string c = "views";
    Operands<B> op(c);
    op.x = input<B, 4>(c, "x@T").swap_dims(2, 3);
    op.offset = input<B, 4>(c, "offset@flip").flip({0});
    op.mask = input<B, 4>(c, "mask@flip").flip({0});
    check_case<B>(c, op);
    // The grad and the weight as views too: a transposed copy swapped back, a flipped batch.
    op.weight = op.weight.swap_dims(2, 3).flip({0}).flip({0}).swap_dims(2, 3);
    op.grad = op.grad.flip({1}).flip({1});
    check_case<B>(c, op);
}

// Images whose columns exceed the chunk size are processed one per chunk: a batch of two must
// give the same output and input gradients as each image alone, and the sum of their weight and
// bias gradients.
TYPED_TEST(DeformConvTest, LargeImagesProcessedInChunks) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "sums of thousands of products compared at 1e-3");
    const auto U = [](const Shape& s, double lo, double hi) {
        return Tensor<B, 4>::random(s, burn::Distribution::Uniform(lo, hi));
    };
    DeformConvOptions<2> o;
    o.padding = {1, 1};
    o.offset_groups = 2;
    // The CPU backend processes large images in chunks of its im2col panel; the GPU backends
    // build the whole panel, for which a smaller image keeps the run on lavapipe (the CPU Vulkan
    // driver of CI) short.
    constexpr bool chunked = burn::testing::cpu_backend<B>;
    const std::size_t b = 2, c = chunked ? 64 : 16, h = chunked ? 64 : 32, w = h, co = 4;
    const auto x = U(Shape{b, c, h, w}, -1, 1);
    const auto offset = U(Shape{b, 2 * 2 * 9, h, w}, -2, 2);
    const auto mask = U(Shape{b, 2 * 9, h, w}, 0, 1);
    const auto weight = U(Shape{co, c, 3, 3}, -0.1, 0.1);
    const auto bias = Tensor<B, 1>::random(Shape{co}, burn::Distribution::Uniform(-1, 1));
    const auto grad = U(Shape{b, co, h, w}, -1, 1);
    const auto y = burn::module::deform_conv2d(x, offset, weight, mask, bias, o);
    const auto full =
        B::deform_conv2d_backward(x.primitive(), offset.primitive(), weight.primitive(),
                                  mask.primitive(), bias.primitive(), grad.primitive(), o);
    const auto again =
        B::deform_conv2d_backward(x.primitive(), offset.primitive(), weight.primitive(),
                                  mask.primitive(), bias.primitive(), grad.primitive(), o);
    // A deterministic backend (the CPU: no atomics, fixed sum orders) gives identical gradients
    // on a second call. The Vulkan backend scatters the input gradient with atomic adds (as
    // torchvision's CUDA kernel), whose order varies on a GPU: equal up to rounding there.
    if constexpr (burn::capabilities<B>.deterministic)
        EXPECT_TRUE(burn::testing::equal_to(Tensor<B, 4>(again.x_grad),
                                            Tensor<B, 4>(full.x_grad).to_data()));
    else
        EXPECT_TRUE(close_to(Tensor<B, 4>(again.x_grad), Tensor<B, 4>(full.x_grad).to_data(),
                             Tolerance{1e-5, 1e-5}));
    EXPECT_TRUE(burn::testing::equal_to(Tensor<B, 4>(again.offset_grad),
                                        Tensor<B, 4>(full.offset_grad).to_data()));
    EXPECT_TRUE(burn::testing::equal_to(Tensor<B, 4>(again.weight_grad),
                                        Tensor<B, 4>(full.weight_grad).to_data()));
    const Tolerance t = std::is_same_v<typename B::FloatElem, double> ? Tolerance{1e-9, 1e-9}
                                                                      : Tolerance{1e-3, 1e-3};
    std::optional<Tensor<B, 4>> wsum;
    for (std::size_t i = 0; i < b; ++i) {
        SCOPED_TRACE("image " + std::to_string(i));
        const auto one = [i](const Tensor<B, 4>& v) { return v.narrow(0, i, 1); };
        const auto yi =
            burn::module::deform_conv2d(one(x), one(offset), weight, one(mask), bias, o);
        EXPECT_TRUE(close_to(one(y), yi.to_data(), t));
        const auto gi = B::deform_conv2d_backward(one(x).primitive(), one(offset).primitive(),
                                                  weight.primitive(), one(mask).primitive(),
                                                  bias.primitive(), one(grad).primitive(), o);
        EXPECT_TRUE(close_to(one(Tensor<B, 4>(full.x_grad)), Tensor<B, 4>(gi.x_grad).to_data(), t));
        EXPECT_TRUE(close_to(one(Tensor<B, 4>(full.offset_grad)),
                             Tensor<B, 4>(gi.offset_grad).to_data(), t));
        EXPECT_TRUE(
            close_to(one(Tensor<B, 4>(*full.mask_grad)), Tensor<B, 4>(*gi.mask_grad).to_data(), t));
        const Tensor<B, 4> wi(gi.weight_grad);
        wsum = wsum ? wsum->add(wi) : wi;
    }
    EXPECT_TRUE(close_to(Tensor<B, 4>(full.weight_grad), wsum->to_data(), t));
    // bias_grad: the sum of grad over batch and pixels.
    EXPECT_TRUE(close_to(
        Tensor<B, 1>(*full.bias_grad),
        grad.sum_dim(3).sum_dim(2).sum_dim(0).template reshape<1>(Shape{co}).to_data(), t));
}

TYPED_TEST(DeformConvTest, EmptyBatch) {
    using B = TypeParam;
    DeformConvOptions<2> o;
    o.padding = {1, 1};
    const auto x = Tensor<B, 4>::zeros(Shape{0, 2, 4, 5});
    const auto offset = Tensor<B, 4>::zeros(Shape{0, 18, 4, 5});
    const auto mask = Tensor<B, 4>::zeros(Shape{0, 9, 4, 5});
    const auto weight = Tensor<B, 4>::ones(Shape{3, 2, 3, 3});
    const auto bias = Tensor<B, 1>::ones(Shape{3});
    const auto y = burn::module::deform_conv2d(x, offset, weight, mask, bias, o);
    EXPECT_EQ(y.shape(), Shape({0, 3, 4, 5}));
    const auto g = B::deform_conv2d_backward(x.primitive(), offset.primitive(), weight.primitive(),
                                             mask.primitive(), bias.primitive(),
                                             Tensor<B, 4>::zeros(Shape{0, 3, 4, 5}).primitive(), o);
    EXPECT_EQ((Tensor<B, 4>(g.x_grad).shape()), x.shape());
    EXPECT_EQ((Tensor<B, 4>(g.offset_grad).shape()), offset.shape());
    EXPECT_EQ((Tensor<B, 4>(*g.mask_grad).shape()), mask.shape());
    EXPECT_TRUE(
        close_to(Tensor<B, 4>(g.weight_grad), Tensor<B, 4>::zeros(weight.shape()).to_data()));
    EXPECT_TRUE(close_to(Tensor<B, 1>(*g.bias_grad), Tensor<B, 1>::zeros(Shape{3}).to_data()));
}

TYPED_TEST(DeformConvTest, InvalidArgumentsThrow) {
    using B = TypeParam;
    const auto x = Tensor<B, 4>::zeros(Shape{1, 4, 5, 5});
    const auto w = Tensor<B, 4>::zeros(Shape{2, 4, 3, 3});
    const auto offset = Tensor<B, 4>::zeros(Shape{1, 18, 3, 3});
    const std::optional<Tensor<B, 1>> no_bias;
    const std::optional<Tensor<B, 4>> no_mask;
    // The offset needs 2 * offset_groups * kh * kw channels and the output's spatial size.
    EXPECT_BURN_ERROR(burn::module::deform_conv2d(x, Tensor<B, 4>::zeros(Shape{1, 16, 3, 3}), w,
                                                  no_mask, no_bias, {}),
                      "deform_conv2d");
    EXPECT_BURN_ERROR(burn::module::deform_conv2d(x, Tensor<B, 4>::zeros(Shape{1, 18, 5, 5}), w,
                                                  no_mask, no_bias, {}),
                      "deform_conv2d");
    DeformConvOptions<2> og2;
    og2.offset_groups = 2;
    EXPECT_BURN_ERROR(burn::module::deform_conv2d(x, offset, w, no_mask, no_bias, og2),
                      "deform_conv2d");
    // Channels not divisible by the groups.
    DeformConvOptions<2> og3;
    og3.offset_groups = 3;
    EXPECT_BURN_ERROR(burn::module::deform_conv2d(x, Tensor<B, 4>::zeros(Shape{1, 54, 3, 3}), w,
                                                  no_mask, no_bias, og3),
                      "offset_groups");
    DeformConvOptions<2> wg3;
    wg3.weight_groups = 3;
    EXPECT_BURN_ERROR(
        burn::module::deform_conv2d(Tensor<B, 4>::zeros(Shape{1, 6, 5, 5}), offset,
                                    Tensor<B, 4>::zeros(Shape{4, 2, 3, 3}), no_mask, no_bias, wg3),
        "weight_groups");
    DeformConvOptions<2> wg2;
    wg2.weight_groups = 2;
    EXPECT_BURN_ERROR(burn::module::deform_conv2d(x, offset, w, no_mask, no_bias, wg2),
                      "deform_conv2d");
    // The mask needs offset_groups * kh * kw channels and the offset's batch and spatial size.
    EXPECT_BURN_ERROR(burn::module::deform_conv2d(
                          x, offset, w, Tensor<B, 4>::zeros(Shape{1, 18, 3, 3}), no_bias, {}),
                      "mask");
    EXPECT_BURN_ERROR(burn::module::deform_conv2d(
                          x, offset, w, Tensor<B, 4>::zeros(Shape{2, 9, 3, 3}), no_bias, {}),
                      "deform_conv2d");
    // A bias of the wrong length.
    EXPECT_BURN_ERROR(
        burn::module::deform_conv2d(x, offset, w, no_mask, Tensor<B, 1>::zeros(Shape{3}), {}),
        "deform_conv2d");
}

}  // namespace

}  // namespace burn_test_deform_conv

// SPDX-License-Identifier: MIT OR Apache-2.0
// The backend kit on the host, with no backend: the view algebra of burn/backend/layout.hpp, the
// op vocabulary's name tables, and the concepts (negative cases included).
#include <gtest/gtest.h>

#include <array>
#include <burn/backend/kernels.hpp>
#include <burn/backend/ops.hpp>
#include <burn/tensor/backend.hpp>
#include <string_view>
#include <vector>

namespace burn::backend {
namespace {

StridedLayout dense(const Shape& shape) { return {shape, contiguous_strides(shape), 0}; }

/// The element offsets of a layout in row-major order of its indices.
std::vector<std::int64_t> offsets(const StridedLayout& l) {
    std::vector<std::int64_t> out;
    const std::size_t n = l.num_elements();
    for (std::size_t i = 0; i < n; ++i) {
        std::int64_t off = l.offset;
        std::size_t rem = i;
        for (std::size_t d = l.rank(); d-- > 0;) {
            off += static_cast<std::int64_t>(rem % l.shape[d]) * l.strides[d];
            rem /= l.shape[d];
        }
        out.push_back(off);
    }
    return out;
}

TEST(BackendLayout, ContiguousStrides) {
    const Strides s = contiguous_strides(Shape{2, 3, 4});
    EXPECT_EQ(s[0], 12);
    EXPECT_EQ(s[1], 4);
    EXPECT_EQ(s[2], 1);
    EXPECT_TRUE(dense(Shape{2, 3, 4}).is_contiguous());
}

TEST(BackendLayout, PermuteAndSwapDims) {
    StridedLayout l = dense(Shape{2, 3, 4});
    const std::array<std::size_t, 3> axes{2, 0, 1};
    view::permute(l, axes);
    EXPECT_EQ(l.shape, (Shape{4, 2, 3}));
    EXPECT_EQ(l.strides[0], 1);
    EXPECT_EQ(l.strides[1], 12);
    EXPECT_EQ(l.strides[2], 4);
    EXPECT_FALSE(l.is_contiguous());
    StridedLayout t = dense(Shape{2, 3});
    view::swap_dims(t, 0, 1);
    EXPECT_EQ(offsets(t), (std::vector<std::int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(BackendLayout, FlipMovesTheOffset) {
    StridedLayout l = dense(Shape{2, 3});
    const std::array<std::size_t, 1> axis{1};
    view::flip(l, axis);
    EXPECT_EQ(l.offset, 2);
    EXPECT_EQ(offsets(l), (std::vector<std::int64_t>{2, 1, 0, 5, 4, 3}));
    StridedLayout one = dense(Shape{1, 3});
    const std::array<std::size_t, 1> axis0{0};
    view::flip(one, axis0);  // a dim of size 1 is its own reverse
    EXPECT_EQ(one.offset, 0);
    EXPECT_TRUE(one.is_contiguous());
}

TEST(BackendLayout, ExpandBroadcastsWithZeroStrides) {
    StridedLayout l = dense(Shape{3, 1});
    view::expand(l, Shape{2, 3, 4});
    EXPECT_EQ(l.shape, (Shape{2, 3, 4}));
    EXPECT_EQ(l.strides[0], 0);
    EXPECT_EQ(l.strides[1], 1);
    EXPECT_EQ(l.strides[2], 0);
    const Strides b = view::broadcast_strides(dense(Shape{3, 1}), Shape{2, 3, 4});
    EXPECT_EQ(b[0], 0);
    EXPECT_EQ(b[1], 1);
    EXPECT_EQ(b[2], 0);
}

TEST(BackendLayout, SliceWithSteps) {
    StridedLayout l = dense(Shape{4, 6});
    const std::array<SliceRange, 2> r{SliceRange{1, 2, 2},
                                      SliceRange{1, 3, 2}};  // rows 1,3; cols 1,3,5
    view::slice(l, r);
    EXPECT_EQ(l.shape, (Shape{2, 3}));
    EXPECT_EQ(offsets(l), (std::vector<std::int64_t>{7, 9, 11, 19, 21, 23}));
    StridedLayout e = dense(Shape{4});
    const std::array<SliceRange, 1> empty{SliceRange{4, 0, 1}};
    view::slice(e, empty);
    EXPECT_EQ(e.num_elements(), 0u);
    EXPECT_EQ(e.offset, 0);
}

TEST(BackendLayout, ReshapeIsAViewWhereTheStridesAllow) {
    // Dense: any shape of the same size.
    auto s = view::reshape_strides(dense(Shape{2, 3, 4}), Shape{6, 4});
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ((*s)[0], 4);
    // Splitting one dim of a transposed view keeps a view...
    StridedLayout t = dense(Shape{4, 6});
    view::swap_dims(t, 0, 1);  // [6, 4], strides [1, 6]
    auto split = view::reshape_strides(t, Shape{2, 3, 4});
    ASSERT_TRUE(split.has_value());
    StridedLayout v{Shape{2, 3, 4}, *split, 0};
    EXPECT_EQ(offsets(v), offsets(t));
    // ...merging its dims does not (PyTorch's view would fail; reshape copies).
    EXPECT_FALSE(view::reshape_strides(t, Shape{24}).has_value());
    // A broadcast dim cannot be merged either, but size-1 dims come and go freely.
    StridedLayout b = dense(Shape{1, 4});
    view::expand(b, Shape{3, 4});
    EXPECT_FALSE(view::reshape_strides(b, Shape{12}).has_value());
    auto unsqueezed = view::reshape_strides(b, Shape{3, 1, 4});
    ASSERT_TRUE(unsqueezed.has_value());
    EXPECT_EQ((*unsqueezed)[0], 0);
}

TEST(BackendOps, NameTables) {
    EXPECT_EQ(std::string_view(op_name(BinaryOp::Rem)), "remainder");
    EXPECT_EQ(std::string_view(op_name(UnaryOp::Log1p)), "log1p");
    EXPECT_EQ(std::string_view(op_name(CmpOp::Ge)), "greater_equal");
    EXPECT_EQ(std::string_view(op_name(CumOp::Max)), "cummax");
    EXPECT_EQ(std::string_view(op_name(Activation::LogSigmoid)), "log_sigmoid");
    EXPECT_EQ(std::string_view(op::float_add::name), "float_add");
    EXPECT_EQ(std::string_view(op::conv_transpose3d_weight_backward::name),
              "conv_transpose3d_weight_backward");
}

TEST(BackendOps, SpatialArgsFromOptions) {
    const SpatialArgs c = spatial_args(ConvTransposeOptions<2>{.stride = {2, 3},
                                                               .padding = {1, 0},
                                                               .padding_out = {1, 2},
                                                               .dilation = {1, 2},
                                                               .groups = 4});
    EXPECT_EQ(c.n, 2u);
    EXPECT_EQ(c.stride[1], 3u);
    EXPECT_EQ(c.padding_out[1], 2u);
    EXPECT_EQ(c.dilation[1], 2u);
    EXPECT_EQ(c.groups, 4u);
    const SpatialArgs p =
        spatial_args(MaxPoolOptions<1>{.kernel_size = {3}, .stride = {2}, .ceil_mode = true});
    EXPECT_EQ(p.kernel[0], 3u);
    EXPECT_EQ(p.stride[0], 2u);
    EXPECT_TRUE(p.ceil_mode);
}

// Negative cases of the concepts: types that are not backends or kernel sets.
struct NotABackend {};
struct OnlyTypes {
    using Device = int;
    using FloatTensor = int;
    using IntTensor = int;
    using BoolTensor = int;
    using FloatElem = float;
    using IntElem = int;
    static const char* name() { return "only-types"; }
};
struct NotAKernelSet {
    using Tensor = StridedTensor<int, int>;
    using Device = int;
};
static_assert(!burn::BackendTypes<NotABackend>);
static_assert(!burn::Backend<NotABackend>);
static_assert(burn::BackendTypes<OnlyTypes>);
static_assert(!burn::Backend<OnlyTypes>);
static_assert(!burn::concepts::FloatBasicOps<OnlyTypes>);
static_assert(!KernelSet<NotABackend>);
static_assert(!KernelSet<NotAKernelSet>);

}  // namespace
}  // namespace burn::backend

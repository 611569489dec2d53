// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan module ops (convolutions and their backwards, transposed convolutions, pooling,
// interpolation, unfold, deformable convolution) against the CPU backend's kernels on the same
// data: the burn::vk:: and burn::cpu:: entry points side by side (the backend structs' statics
// go through dequantize, from the quantization family), on contiguous and strided inputs.
#include <burn/backend/cpu/kernels.hpp>
#include <burn/backend/vulkan/kernels.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "vk_support.hpp"

using namespace burn;
using namespace burn::vktest;

namespace {

/// The same values on both backends: the Vulkan one optionally a strided view (last two dims
/// transposed in storage, element offset 3).
struct Pair {
    vk::VulkanTensor v;
    cpu::CpuTensor c;
};

Pair make(const TensorData& d, bool strided) {
    Pair p;
    p.c = cpu::Kernels::from_data(d, DType::F32, {});
    if (!strided || d.shape.rank() < 2) {
        p.v = vk::Kernels::from_data(d, DType::F32, VulkanDevice{});
        return p;
    }
    const Shape& s = d.shape;
    const std::size_t r = s.rank(), rows = s[r - 2], cols = s[r - 1];
    const std::size_t mats = s.num_elements() / std::max<std::size_t>(1, rows * cols);
    const auto src = d.as_span<float>();
    std::vector<float> st(3 + src.size(), 0.0f);
    for (std::size_t m = 0; m < mats; ++m)
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j)
                st[3 + m * rows * cols + j * rows + i] = src[m * rows * cols + i * cols + j];
    p.v = vk::Kernels::from_data(TensorData(std::move(st), Shape{3 + src.size()}), DType::F32,
                                 VulkanDevice{});
    p.v.shape = s;
    std::int64_t acc = 1;
    for (std::size_t i = r; i-- > 0;) {
        p.v.strides[i] = acc;
        acc *= static_cast<std::int64_t>(s[i]);
    }
    p.v.strides[r - 1] = static_cast<std::int64_t>(rows);
    p.v.strides[r - 2] = 1;
    p.v.offset = 3;
    return p;
}

Pair rnd(const Shape& s, std::uint64_t seed, bool strided = false) {
    return make(vk_random(s, -1.0f, 1.0f, seed), strided);
}

void same(const vk::VulkanTensor& v, const cpu::CpuTensor& c, double tol = 1e-4) {
    const TensorData a = vk::Kernels::into_data(v), b = cpu::Kernels::into_data(c);
    ASSERT_EQ(a.shape, b.shape);
    ASSERT_EQ(a.dtype, b.dtype);
    a.assert_approx_eq(b, Tolerance{tol, tol});
}

struct Args {
    vk::SpatialArgs v;
    cpu::SpatialArgs c;
};

struct ConvCase {
    std::size_t n;
    Shape x;           // [B, Cin, I...]
    std::size_t cout;  // conv output channels (transposed: output channels too)
    std::size_t groups;
    std::array<std::size_t, 3> k, s, p, d, po;
    bool bias;
};

Args conv_args(const ConvCase& cc) {
    Args a;
    a.v.n = a.c.n = cc.n;
    for (std::size_t i = 0; i < 3; ++i) {
        a.v.stride[i] = a.c.stride[i] = cc.s[i];
        a.v.padding[i] = a.c.padding[i] = cc.p[i];
        a.v.dilation[i] = a.c.dilation[i] = cc.d[i];
        a.v.padding_out[i] = a.c.padding_out[i] = cc.po[i];
    }
    a.v.groups = a.c.groups = cc.groups;
    return a;
}

void check_conv(const ConvCase& cc, std::uint64_t seed, bool strided) {
    SCOPED_TRACE(::testing::Message()
                 << "conv case x " << cc.x << " seed " << seed << " strided " << strided);
    const Args a = conv_args(cc);
    const std::size_t cin = cc.x[1];
    Shape ws{cc.cout, cin / cc.groups};
    for (std::size_t i = 0; i < cc.n; ++i) ws.push_back(cc.k[i]);
    Pair x = rnd(cc.x, seed, strided), w = rnd(ws, seed + 1, strided),
         b = rnd(Shape{cc.cout}, seed + 2);
    std::optional<vk::VulkanTensor> bv;
    std::optional<cpu::CpuTensor> bc;
    if (cc.bias) bv = b.v, bc = b.c;
    const auto yc = cpu::Kernels::conv(x.c, w.c, bc, a.c);
    same(vk::Kernels::conv(x.v, w.v, bv, a.v), yc);
    Pair g = rnd(yc.shape, seed + 3, strided);
    same(vk::Kernels::conv_x_backward(x.v, w.v, g.v, a.v),
         cpu::Kernels::conv_x_backward(x.c, w.c, g.c, a.c));
    same(vk::Kernels::conv_weight_backward(x.v, w.v, g.v, a.v),
         cpu::Kernels::conv_weight_backward(x.c, w.c, g.c, a.c));
    same(vk::Kernels::conv_bias_backward(g.v), cpu::Kernels::conv_bias_backward(g.c));

    // Transposed: weight [Cin, Cout / G, K...].
    Shape wt{cin, cc.cout / cc.groups};
    for (std::size_t i = 0; i < cc.n; ++i) wt.push_back(cc.k[i]);
    Pair w2 = rnd(wt, seed + 4, strided);
    const auto tc = cpu::Kernels::conv_transpose(x.c, w2.c, bc, a.c);
    same(vk::Kernels::conv_transpose(x.v, w2.v, bv, a.v), tc);
    Pair g2 = rnd(tc.shape, seed + 5, strided);
    same(vk::Kernels::conv_transpose_x_backward(x.v, w2.v, g2.v, a.v),
         cpu::Kernels::conv_transpose_x_backward(x.c, w2.c, g2.c, a.c));
    same(vk::Kernels::conv_transpose_weight_backward(x.v, w2.v, g2.v, a.v),
         cpu::Kernels::conv_transpose_weight_backward(x.c, w2.c, g2.c, a.c));
    same(vk::Kernels::conv_bias_backward(g2.v), cpu::Kernels::conv_bias_backward(g2.c));
}

}  // namespace

TEST(VulkanConv, Conv1d) {
    BURN_REQUIRE_VULKAN();
    for (bool st : {false, true}) {
        check_conv({1, Shape{2, 4, 11}, 6, 2, {3}, {2}, {1}, {2}, {1}, true}, 10, st);
        check_conv({1, Shape{3, 3, 7}, 5, 1, {1}, {1}, {0}, {1}, {0}, false}, 11, st);
        check_conv({1, Shape{1, 6, 20}, 6, 3, {4}, {3}, {2}, {1}, {2}, true}, 12, st);
    }
}

TEST(VulkanConv, Conv2d) {
    BURN_REQUIRE_VULKAN();
    for (bool st : {false, true}) {
        check_conv({2, Shape{2, 6, 9, 10}, 4, 2, {3, 2}, {2, 1}, {1, 2}, {1, 2}, {1, 0}, true}, 20,
                   st);
        check_conv({2, Shape{2, 3, 8, 8}, 5, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false}, 21,
                   st);
        check_conv({2, Shape{1, 4, 13, 7}, 8, 4, {2, 3}, {3, 2}, {0, 1}, {2, 1}, {2, 1}, true}, 22,
                   st);
        check_conv({2, Shape{3, 16, 5, 6}, 20, 1, {1, 1}, {1, 1}, {0, 0}, {1, 1}, {0, 0}, true}, 23,
                   st);
    }
}

TEST(VulkanConv, Conv3d) {
    BURN_REQUIRE_VULKAN();
    for (bool st : {false, true}) {
        check_conv({3,
                    Shape{1, 2, 5, 6, 7},
                    3,
                    1,
                    {2, 3, 2},
                    {1, 2, 1},
                    {1, 0, 1},
                    {2, 1, 1},
                    {0, 1, 0},
                    true},
                   30, st);
        check_conv({3,
                    Shape{2, 4, 4, 5, 3},
                    6,
                    2,
                    {1, 2, 2},
                    {2, 1, 1},
                    {0, 1, 1},
                    {1, 1, 2},
                    {1, 0, 1},
                    false},
                   31, st);
    }
}

TEST(VulkanConv, LongSums) {
    BURN_REQUIRE_VULKAN();
    check_conv({2, Shape{4, 32, 16, 16}, 16, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, true}, 40,
               false);
    // More than one 64 x 64 tile in every product (forward, input and weight gradients).
    check_conv({2, Shape{2, 70, 9, 9}, 80, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, true}, 41,
               false);
    check_conv({2, Shape{2, 140, 11, 10}, 132, 2, {3, 2}, {2, 1}, {1, 1}, {1, 2}, {1, 0}, true}, 42,
               true);
}

namespace {

Args pool_args(std::size_t n, std::array<std::size_t, 3> k, std::array<std::size_t, 3> s,
               std::array<std::size_t, 3> p, std::array<std::size_t, 3> d, bool ceil_mode,
               bool cip) {
    Args a;
    a.v.n = a.c.n = n;
    for (std::size_t i = 0; i < 3; ++i) {
        a.v.kernel[i] = a.c.kernel[i] = k[i];
        a.v.stride[i] = a.c.stride[i] = s[i];
        a.v.padding[i] = a.c.padding[i] = p[i];
        a.v.dilation[i] = a.c.dilation[i] = d[i];
    }
    a.v.ceil_mode = a.c.ceil_mode = ceil_mode;
    a.v.count_include_pad = a.c.count_include_pad = cip;
    return a;
}

void check_pools(const Shape& xs, const Args& a, std::uint64_t seed, bool strided) {
    SCOPED_TRACE(::testing::Message()
                 << "pool x " << xs << " seed " << seed << " strided " << strided);
    Pair x = rnd(xs, seed, strided);
    const auto yc = cpu::Kernels::avg_pool(x.c, a.c);
    same(vk::Kernels::avg_pool(x.v, a.v), yc);
    Pair g = rnd(yc.shape, seed + 1, strided);
    same(vk::Kernels::avg_pool_backward(x.v, g.v, a.v),
         cpu::Kernels::avg_pool_backward(x.c, g.c, a.c));
    for (DType it : {DType::I32, DType::I64}) {
        auto [mv, iv] = vk::Kernels::max_pool(x.v, a.v, true, it);
        auto [mc, ic] = cpu::Kernels::max_pool(x.c, a.c, true, it);
        same(mv, mc);
        EXPECT_EQ(vk::Kernels::into_data(iv), cpu::Kernels::into_data(ic));
        same(vk::Kernels::max_pool_backward(x.v, g.v, iv, a.v),
             cpu::Kernels::max_pool_backward(x.c, g.c, ic, a.c));
    }
    auto [m0, i0] = vk::Kernels::max_pool(x.v, a.v, false, DType::I32);
    same(m0, cpu::Kernels::max_pool(x.c, a.c, false, DType::I32).first);
    EXPECT_EQ(i0.num_elements(), 0u);
}

}  // namespace

TEST(VulkanPool, AvgAndMax2d) {
    BURN_REQUIRE_VULKAN();
    for (bool st : {false, true})
        for (bool ceil : {false, true})
            for (bool cip : {false, true}) {
                check_pools(Shape{2, 3, 9, 10},
                            pool_args(2, {3, 2}, {2, 2}, {1, 1}, {1, 1}, ceil, cip), 50, st);
                check_pools(Shape{1, 2, 8, 8},
                            pool_args(2, {2, 2}, {2, 2}, {0, 0}, {1, 1}, ceil, cip), 51, st);
                check_pools(Shape{2, 2, 11, 7},
                            pool_args(2, {3, 3}, {3, 1}, {1, 0}, {1, 1}, ceil, cip), 52, st);
            }
}

TEST(VulkanPool, MaxDilated) {
    BURN_REQUIRE_VULKAN();
    // Dilation (max pooling only).
    for (bool st : {false, true})
        for (bool ceil : {false, true}) {
            const Args a = pool_args(2, {3, 2}, {2, 1}, {1, 1}, {2, 3}, ceil, true);
            Pair x = rnd(Shape{2, 3, 12, 13}, 55, st);
            auto [mv, iv] = vk::Kernels::max_pool(x.v, a.v, true, DType::I32);
            auto [mc, ic] = cpu::Kernels::max_pool(x.c, a.c, true, DType::I32);
            same(mv, mc);
            EXPECT_EQ(vk::Kernels::into_data(iv), cpu::Kernels::into_data(ic));
            Pair g = rnd(mc.shape, 56, st);
            same(vk::Kernels::max_pool_backward(x.v, g.v, iv, a.v),
                 cpu::Kernels::max_pool_backward(x.c, g.c, ic, a.c));
        }
}

TEST(VulkanPool, Pool1dAndNaN) {
    BURN_REQUIRE_VULKAN();
    for (bool st : {false, true}) {
        check_pools(Shape{2, 3, 11}, pool_args(1, {3}, {2}, {1}, {1}, false, true), 60, st);
        check_pools(Shape{2, 3, 11}, pool_args(1, {4}, {3}, {2}, {1}, true, false), 61, st);
    }
    // NaN wins the max, and -inf windows keep their first cell.
    const float nan = std::numeric_limits<float>::quiet_NaN(),
                inf = std::numeric_limits<float>::infinity();
    const auto d = TensorData(std::vector<float>{1, nan, 3, -inf, -inf, -inf, 2, nan, nan, 0, 5, 1},
                              Shape{1, 1, 2, 6});
    Pair x = make(d, false);
    const Args a = pool_args(2, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true);
    auto [mv, iv] = vk::Kernels::max_pool(x.v, a.v, true, DType::I32);
    auto [mc, ic] = cpu::Kernels::max_pool(x.c, a.c, true, DType::I32);
    const TensorData dv = vk::Kernels::into_data(mv), dc = cpu::Kernels::into_data(mc);
    const auto sv = dv.as_span<float>(), sc = dc.as_span<float>();
    ASSERT_EQ(sv.size(), sc.size());
    for (std::size_t i = 0; i < sv.size(); ++i) {
        EXPECT_EQ(std::isnan(sv[i]), std::isnan(sc[i])) << i;
        if (!std::isnan(sc[i])) EXPECT_EQ(sv[i], sc[i]) << i;
    }
    EXPECT_EQ(vk::Kernels::into_data(iv), cpu::Kernels::into_data(ic));
}

TEST(VulkanPool, Adaptive) {
    BURN_REQUIRE_VULKAN();
    struct Case {
        Shape x;
        std::vector<std::size_t> out;
    };
    const std::vector<Case> cases = {
        {Shape{2, 3, 10, 7}, {3, 4}},     {Shape{2, 3, 10, 7}, {10, 7}},
        {Shape{2, 3, 10, 7}, {1, 1}},     {Shape{1, 2, 5, 6}, {7, 13}},
        {Shape{2, 3, 17}, {5}},           {Shape{1, 2, 5, 6, 7}, {2, 3, 4}},
        {Shape{2, 2, 4, 8, 9}, {4, 2, 3}}};
    std::uint64_t seed = 70;
    for (bool st : {false, true})
        for (const Case& c : cases) {
            SCOPED_TRACE(::testing::Message() << "adaptive x " << c.x << " strided " << st);
            Pair x = rnd(c.x, ++seed, st);
            const auto yc = cpu::Kernels::adaptive_avg_pool(x.c, c.out);
            same(vk::Kernels::adaptive_avg_pool(x.v, c.out), yc);
            Pair g = rnd(yc.shape, ++seed, st);
            same(vk::Kernels::adaptive_avg_pool_backward(x.v, g.v),
                 cpu::Kernels::adaptive_avg_pool_backward(x.c, g.c));
        }
}

TEST(VulkanInterpolate, ModesAndSizes) {
    BURN_REQUIRE_VULKAN();
    const std::vector<std::array<std::size_t, 2>> sizes = {{7, 9}, {14, 18}, {3, 4},
                                                           {1, 1}, {7, 5},   {20, 3}};
    std::uint64_t seed = 100;
    for (bool st : {false, true})
        for (InterpolateMode mode :
             {InterpolateMode::Nearest, InterpolateMode::Bilinear, InterpolateMode::Bicubic})
            for (bool ac : {false, true})
                for (const auto& os : sizes) {
                    SCOPED_TRACE(::testing::Message()
                                 << "mode " << static_cast<int>(mode) << " align " << ac << " out "
                                 << os[0] << "x" << os[1] << " strided " << st);
                    const InterpolateOptions o{mode, ac};
                    Pair x = rnd(Shape{2, 3, 7, 9}, ++seed, st);
                    const auto yc = cpu::Kernels::interpolate(x.c, os, o);
                    same(vk::Kernels::interpolate(x.v, os, o), yc);
                    Pair g = rnd(yc.shape, ++seed, st);
                    same(vk::Kernels::interpolate_backward(x.v, g.v, os, o),
                         cpu::Kernels::interpolate_backward(x.c, g.c, os, o));
                }
}

TEST(VulkanUnfold, Unfold4d) {
    BURN_REQUIRE_VULKAN();
    struct Case {
        Shape x;
        std::array<std::size_t, 2> k, s, p, d;
    };
    const std::vector<Case> cases = {{Shape{2, 3, 7, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
                                     {Shape{1, 2, 9, 6}, {2, 3}, {2, 1}, {0, 2}, {2, 1}},
                                     {Shape{2, 1, 5, 5}, {1, 1}, {3, 2}, {0, 0}, {1, 1}}};
    std::uint64_t seed = 200;
    for (bool st : {false, true})
        for (const Case& c : cases) {
            Args a;
            a.v.n = a.c.n = 2;
            for (std::size_t i = 0; i < 2; ++i) {
                a.v.kernel[i] = a.c.kernel[i] = c.k[i];
                a.v.stride[i] = a.c.stride[i] = c.s[i];
                a.v.padding[i] = a.c.padding[i] = c.p[i];
                a.v.dilation[i] = a.c.dilation[i] = c.d[i];
            }
            Pair x = rnd(c.x, ++seed, st);
            same(vk::Kernels::unfold4d(x.v, a.v), cpu::Kernels::unfold4d(x.c, a.c), 0.0);
        }
    // Ints (word copies).
    const auto di = TensorData::from_nested<std::int32_t, 4>({{{{1, 2, 3}, {4, 5, 6}}}});
    Args a;
    a.v.n = a.c.n = 2;
    a.v.kernel = a.c.kernel = {2, 2, 1};
    a.v.padding = a.c.padding = {1, 0, 0};
    EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::unfold4d(
                  vk::Kernels::from_data(di, DType::I32, VulkanDevice{}), a.v)),
              cpu::Kernels::into_data(
                  cpu::Kernels::unfold4d(cpu::Kernels::from_data(di, DType::I32, {}), a.c)));
}

namespace {

void check_deform(const Shape& xs, std::size_t cout, std::array<std::size_t, 2> k, std::size_t wg,
                  std::size_t og, std::array<std::size_t, 2> s, std::array<std::size_t, 2> p,
                  std::array<std::size_t, 2> d, bool with_mask, bool with_bias, std::uint64_t seed,
                  bool strided) {
    SCOPED_TRACE(::testing::Message() << "deform x " << xs << " mask " << with_mask << " bias "
                                      << with_bias << " strided " << strided);
    Args a;
    a.v.n = a.c.n = 2;
    for (std::size_t i = 0; i < 2; ++i) {
        a.v.stride[i] = a.c.stride[i] = s[i];
        a.v.padding[i] = a.c.padding[i] = p[i];
        a.v.dilation[i] = a.c.dilation[i] = d[i];
    }
    a.v.groups = a.c.groups = wg;
    a.v.offset_groups = a.c.offset_groups = og;
    const std::size_t oh = conv_output_size(xs[2], k[0], s[0], p[0], d[0]);
    const std::size_t ow = conv_output_size(xs[3], k[1], s[1], p[1], d[1]);
    Pair x = rnd(xs, seed, strided);
    Pair w = rnd(Shape{cout, xs[1] / wg, k[0], k[1]}, seed + 1, strided);
    // Offsets up to +-2.5 pixels: samples land between pixels and outside the image.
    Pair off =
        make(vk_random(Shape{xs[0], 2 * og * k[0] * k[1], oh, ow}, -2.5f, 2.5f, seed + 2), strided);
    Pair m = make(vk_random(Shape{xs[0], og * k[0] * k[1], oh, ow}, 0.0f, 1.0f, seed + 3), strided);
    Pair b = rnd(Shape{cout}, seed + 4);
    std::optional<vk::VulkanTensor> mv, bv;
    std::optional<cpu::CpuTensor> mc, bc;
    if (with_mask) mv = m.v, mc = m.c;
    if (with_bias) bv = b.v, bc = b.c;
    const auto yc = cpu::Kernels::deform_conv2d(x.c, off.c, w.c, mc, bc, a.c);
    same(vk::Kernels::deform_conv2d(x.v, off.v, w.v, mv, bv, a.v), yc);
    Pair g = rnd(yc.shape, seed + 5, strided);
    const auto rv = vk::Kernels::deform_conv2d_backward(x.v, off.v, w.v, mv, bv, g.v, a.v);
    const auto rc = cpu::Kernels::deform_conv2d_backward(x.c, off.c, w.c, mc, bc, g.c, a.c);
    same(rv.x_grad, rc.x_grad);
    same(rv.offset_grad, rc.offset_grad);
    same(rv.weight_grad, rc.weight_grad);
    ASSERT_EQ(rv.mask_grad.has_value(), rc.mask_grad.has_value());
    if (rc.mask_grad) same(*rv.mask_grad, *rc.mask_grad);
    ASSERT_EQ(rv.bias_grad.has_value(), rc.bias_grad.has_value());
    if (rc.bias_grad) same(*rv.bias_grad, *rc.bias_grad);
}

}  // namespace

TEST(VulkanDeformConv, ForwardAndBackward) {
    BURN_REQUIRE_VULKAN();
    for (bool st : {false, true}) {
        check_deform(Shape{2, 4, 7, 8}, 6, {3, 3}, 2, 2, {1, 1}, {1, 1}, {1, 1}, true, true, 300,
                     st);
        check_deform(Shape{1, 3, 9, 6}, 4, {2, 3}, 1, 1, {2, 1}, {0, 1}, {1, 2}, false, false, 310,
                     st);
        check_deform(Shape{2, 6, 5, 5}, 3, {3, 2}, 3, 3, {1, 2}, {2, 0}, {2, 1}, true, false, 320,
                     st);
        check_deform(Shape{1, 2, 6, 7}, 4, {1, 1}, 1, 2, {1, 1}, {0, 0}, {1, 1}, false, true, 330,
                     st);
        check_deform(Shape{2, 4, 6, 1}, 6, {3, 1}, 2, 1, {1, 1}, {1, 0}, {1, 1}, true, true, 340,
                     st);
        check_deform(Shape{1, 2, 1, 9}, 3, {1, 3}, 1, 1, {1, 2}, {0, 1}, {1, 1}, false, true, 350,
                     st);
    }
}

TEST(VulkanModuleErrors, ThrowWhereTheCpuThrows) {
    BURN_REQUIRE_VULKAN();
    // Invalid arguments: burn::module's errors, the same on both backends (ranks are the Tensor
    // types', gradients and indices come from the forward ops).
    auto [x, xc] = both<4>(vk_random(Shape{1, 2, 6, 6}, -1, 1, 400));
    expect_same_error(
        x, xc,
        [](auto t) {
            return module::avg_pool2d(t, {7, 7}, {1, 1}, {0, 0});
        },
        "avg_pool2d: kernel [7, 7] (dilation [1, 1]) is larger than the padded");
    expect_same_error(
        x, xc,
        [](auto t) {
            return module::max_pool2d(t, {2, 2}, {0, 1}, {0, 0});
        },
        "max_pool2d: stride must be positive, got [0, 1]");
    expect_same_error(
        x, xc,
        [](auto t) {
            return module::interpolate(t, {0, 4},
                                       InterpolateOptions{InterpolateMode::Bilinear, false});
        },
        "interpolate: output size [0, 4] must be positive");
    expect_same_error(
        x, xc,
        [](auto t) {
            return module::adaptive_avg_pool2d(t, {2, 0});
        },
        "adaptive_avg_pool2d: output size [2, 0] must be positive");
    // Integer convolution: a limit of the Vulkan kernels (f32 only), which they report.
    const auto di = TensorData::from_nested<std::int32_t, 3>({{{1, 2, 3}}});
    const auto wi = TensorData::from_nested<std::int32_t, 3>({{{1}}});
    Args c;
    c.v.n = 1;
    EXPECT_THROW((void)vk::Kernels::conv(vk::Kernels::from_data(di, DType::I32, VulkanDevice{}),
                                         vk::Kernels::from_data(wi, DType::I32, VulkanDevice{}),
                                         std::nullopt, c.v),
                 burn::Error);
}

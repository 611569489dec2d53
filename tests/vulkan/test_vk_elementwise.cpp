// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan element-wise ops against the CPU backend on the same data: every unary
// op (floats, ints, bool), binary arithmetic with broadcasting (tensor-tensor
// and tensor-scalar), floor remainder signs, powers, NaN-propagating max/min,
// comparisons, is_nan, clamp, mask_where / mask_fill; contiguous and strided
// (transposed, offset, flipped, broadcast) inputs; in-place reuse; i64
// variants; errors.
#include <burn/backend/cpu/kernels.hpp>
#include <cstdint>

#include "vk_ew_support.hpp"

using namespace burn;
using namespace burn::vktest;

namespace {

using I32 = std::int32_t;

/// 6 x 7 = 42 floats: random ones in [-3, 3) and special values.
std::vector<float> float_values(std::uint64_t seed = 1) {
    return values_with(28, -3.0f, 3.0f, seed,
                       {kNaN, kInf, -kInf, 0.0f, -0.0f, 0.5f, 1.5f, 2.5f, -2.5f, -0.5f, 1.0f, -1.0f,
                        1e-4f, -7.25f});
}

std::vector<I32> int_values() {
    return {0,  1,   -1,  2,  -2,  7,  -7,  13,  -13, 100, -100, 2147483647, -2147483647 - 1,
            5,  -5,  3,   -3, 9,   -9, 11,  -11, 6,   -6,  4,    -4,         8,
            -8, 12,  -12, 10, -10, 15, -15, 16,  -16, 17,  -17,  18,         -18,
            19, -19, 20};
}

template <class K = Float, class E = float>
std::pair<Tensor<VB, 2, K>, Tensor<CB, 2, K>> dense(const std::vector<E>& v, std::size_t rows,
                                                    std::size_t cols) {
    return both<2, K>(
        TensorData(std::vector<E>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rows * cols)),
                   Shape{rows, cols}));
}

/// Runs f on dense and transposed (strided, offset) copies of the same 6 x 7
/// values.
template <class K = Float, class E = float, class F>
void on_layouts(const std::vector<E>& v, F&& f) {
    {
        auto [a, ac] = dense<K, E>(v, 6, 7);
        SCOPED_TRACE("dense");
        f(a, ac);
    }
    {
        auto [a, ac] = transposed<K, E>(v, 6, 7);
        SCOPED_TRACE("transposed");
        f(a, ac);
    }
}

}  // namespace

TEST(VulkanElementwise, UnaryFloat) {
    BURN_REQUIRE_VULKAN();
    on_layouts(float_values(), [](const auto& a, const auto& c) {
        expect_same(a.neg(), c.neg());
        expect_same(a.abs(), c.abs());
        expect_same(a.sign(), c.sign());
        expect_same(a.exp(), c.exp(), Tolerance{1e-5, 2e-6});
        expect_same(a.log(), c.log(), Tolerance{1e-5, 2e-6});
        expect_same(a.log1p(), c.log1p(), Tolerance{1e-5, 2e-6});
        expect_same(a.erf(), c.erf());
        expect_same(a.sqrt(), c.sqrt());
        expect_same(a.recip(), c.recip());
        expect_same(a.sin(), c.sin());
        expect_same(a.cos(), c.cos());
        expect_same(a.tanh(), c.tanh(), Tolerance{1e-6, 2e-6});
        expect_same(a.round(), c.round(), Tolerance{0, 0});
        expect_same(a.floor(), c.floor(), Tolerance{0, 0});
        expect_same(a.ceil(), c.ceil(), Tolerance{0, 0});
    });
    // Wider ranges: exp near overflow / underflow, erf and tanh tails, log of
    // large values, small arguments of log1p and tanh (relative accuracy).
    auto [w, wc] = both<1>(TensorData(
        values_with(64, -90.0f, 90.0f, 7, {1e-6f, -1e-6f, 3e-8f, 88.5f, -103.0f}), Shape{69}));
    expect_same(w.exp(), wc.exp(), Tolerance{1e-30, 2e-6});
    expect_same(w.tanh(), wc.tanh(), Tolerance{1e-30, 2e-6});
    expect_same(w.erf(), wc.erf(), Tolerance{1e-6, 1e-5});
    expect_same(w.abs().log(), wc.abs().log(), Tolerance{1e-6, 1e-6});
    expect_same(w.mul_scalar(1e-3).log1p(), wc.mul_scalar(1e-3).log1p(), Tolerance{1e-30, 2e-6});
    // sin / cos over a wide range (reduction by pi/4), and beyond 8192
    // (built-ins).
    expect_same(w.sin(), wc.sin(), Tolerance{1e-6, 1e-5});
    expect_same(w.cos(), wc.cos(), Tolerance{1e-6, 1e-5});
    auto [big, bigc] = both<1>(TensorData(values_with(64, -8000.0f, 8000.0f, 9), Shape{64}));
    expect_same(big.sin(), bigc.sin(), Tolerance{2e-6, 1e-5});
    expect_same(big.cos(), bigc.cos(), Tolerance{2e-6, 1e-5});
}

TEST(VulkanElementwise, UnaryIntAndBool) {
    BURN_REQUIRE_VULKAN();
    on_layouts<Int, I32>(int_values(), [](const auto& a, const auto& c) {
        expect_same(a.neg(), c.neg());
        expect_same(a.abs(), c.abs());
        expect_same(a.sign(), c.sign());
        expect_same(a.equal_elem(0).bool_not(), c.equal_elem(0).bool_not());
    });
    auto [b, bc] = both<2, Bool>(
        TensorData::from_nested<bool, 2>({{true, false, true}, {false, false, true}}));
    expect_same(b.bool_not(), bc.bool_not());
    expect_same(b.bool_not().bool_not(), bc);
}

TEST(VulkanElementwise, BinaryFloatBroadcasting) {
    BURN_REQUIRE_VULKAN();
    auto check = [](const auto& a, const auto& b, const auto& ac, const auto& bc) {
        expect_same(a.add(b), ac.add(bc));
        expect_same(a.sub(b), ac.sub(bc));
        expect_same(a.mul(b), ac.mul(bc));
        expect_same(a.div(b), ac.div(bc));
        expect_same(a.rem(b), ac.rem(bc));
        expect_same(a.powf(b), ac.powf(bc), Tolerance{1e-5, 1e-5});
        expect_same(a.max_pair(b), ac.max_pair(bc));
        expect_same(a.min_pair(b), ac.min_pair(bc));
    };
    {
        SCOPED_TRACE("[3,1] with [1,4]");
        auto [a, ac] = both<2>(TensorData(std::vector<float>{-2.5f, 0.0f, 3.0f}, Shape{3, 1}));
        auto [b, bc] =
            both<2>(TensorData(std::vector<float>{1.5f, -2.0f, 0.5f, kNaN}, Shape{1, 4}));
        check(a, b, ac, bc);
        check(b, a, bc, ac);
    }
    {
        SCOPED_TRACE("same shape with specials");
        auto [a, ac] = dense(float_values(1), 6, 7);
        auto [b, bc] = dense(float_values(2), 6, 7);
        check(a, b, ac, bc);
        check(b, a, bc, ac);
    }
    {
        SCOPED_TRACE("strided operands");
        auto [a, ac] = transposed(float_values(3), 6, 7);
        auto [b, bc] = dense(float_values(4), 6, 7);
        check(a, b, ac, bc);
        check(b, a, bc, ac);
        // A flipped broadcast row: [7] storage read backwards as [1, 7].
        const auto row = values_with(7, -2.0f, 2.0f, 5);
        auto [r, rc] = strided<2>(row, Shape{1, 7}, Strides{7, -1}, 6);
        check(a, r, ac, rc);
        check(r, a, rc, ac);
    }
    {
        SCOPED_TRACE("dense views at an offset");
        const auto storage = values_with(3 + 42, -3.0f, 3.0f, 10);
        auto [a, ac] = strided<2>(storage, Shape{6, 7}, Strides{7, 1}, 3);
        auto [b, bc] = strided<2>(storage, Shape{6, 7}, Strides{7, 1}, 0);
        check(a, b, ac, bc);
        expect_same(a.exp(), ac.exp(), Tolerance{1e-5, 2e-6});
    }
    {
        SCOPED_TRACE("rank 3 with rank 2");
        auto [a, ac] = both<3>(vk_random(Shape{2, 3, 5}, -4.0f, 4.0f, 8));
        auto [b, bc] = both<3>(vk_random(Shape{1, 1, 5}, 0.5f, 3.0f, 9));
        check(a, b, ac, bc);
    }
    // Floor remainder signs (Python semantics) and powers with negative bases /
    // integer exponents.
    auto [x, xc] = both<1>(TensorData(
        std::vector<float>{5.5f, -5.5f, 5.5f, -5.5f, 4.0f, -4.0f, 0.0f, 7.0f, 1e6f, kInf, 3.0f},
        Shape{11}));
    auto [y, yc] = both<1>(TensorData(
        std::vector<float>{2.0f, 2.0f, -2.0f, -2.0f, 2.0f, 2.0f, -3.0f, kInf, 3.0f, 2.0f, -kInf},
        Shape{11}));
    expect_same(x.rem(y), xc.rem(yc), Tolerance{0, 0});
    // Large quotients: the remainder stays exact (q * b computed exactly).
    auto [lx, lxc] = both<1>(TensorData(
        values_with(32, -1e7f, 1e7f, 17, {10000001.0f, -16777215.0f, 123456.7f}), Shape{35}));
    auto [ly, lyc] =
        both<1>(TensorData(values_with(32, 0.5f, 7.0f, 18, {3.3f, -2.71828f, 0.1f}), Shape{35}));
    expect_same(lx.rem(ly), lxc.rem(lyc), Tolerance{0, 0});
    expect_same(lx.rem_scalar(-0.37), lxc.rem_scalar(-0.37), Tolerance{0, 0});
    auto [pb, pbc] =
        both<1>(TensorData(std::vector<float>{-2.0f, -2.0f, -2.0f, 0.0f, 0.0f, -0.0f, 1.0f, kNaN,
                                              -1.0f, 0.5f, 2.0f, -kInf, kInf},
                           Shape{13}));
    auto [pe, pec] =
        both<1>(TensorData(std::vector<float>{3.0f, 2.0f, 0.5f, -1.0f, 2.0f, -3.0f, kNaN, 0.0f,
                                              kInf, -kInf, 10.0f, 3.0f, -0.5f},
                           Shape{13}));
    expect_same(pb.powf(pe), pbc.powf(pec));
    // Large and tiny results, bases near 1 with large exponents (relative
    // accuracy).
    auto [lb, lbc] = both<1>(TensorData(
        std::vector<float>{1.0001f, 0.9999f, 2.0f, 10.0f, 0.5f, 3.7f, -2.0f, 1.5f}, Shape{8}));
    auto [le, lec] = both<1>(TensorData(
        std::vector<float>{10000.0f, 20000.0f, 100.0f, -30.0f, 120.0f, 40.5f, 101.0f, -150.0f},
        Shape{8}));
    expect_same(lb.powf(le), lbc.powf(lec), Tolerance{1e-30, 1e-5});
}

TEST(VulkanElementwise, BinaryIntAndBool) {
    BURN_REQUIRE_VULKAN();
    std::vector<I32> divisors = int_values();
    for (auto& d : divisors) d = d % 50 == 0 ? 3 : d % 50;
    on_layouts<Int, I32>(int_values(), [&](const auto& a, const auto& c) {
        auto [b, bc] = dense<Int, I32>(divisors, 6, 7);
        expect_same(a.add(b), c.add(bc));
        expect_same(a.sub(b), c.sub(bc));
        expect_same(a.mul(b), c.mul(bc));
        expect_same(a.div(b), c.div(bc));
        expect_same(a.rem(b), c.rem(bc));
        expect_same(b.rem(a.abs().add_scalar(1)), bc.rem(c.abs().add_scalar(1)));
        expect_same(a.max_pair(b), c.max_pair(bc));
        expect_same(a.min_pair(b), c.min_pair(bc));
        expect_same(a.powi(b.abs().rem_scalar(5)), c.powi(bc.abs().rem_scalar(5)));
    });
    // Broadcast [3, 1] with [1, 4].
    auto [a, ac] = both<2, Int>(TensorData(std::vector<I32>{-7, 0, 9}, Shape{3, 1}));
    auto [b, bc] = both<2, Int>(TensorData(std::vector<I32>{2, -3, 4, -1}, Shape{1, 4}));
    expect_same(a.rem(b), ac.rem(bc));
    expect_same(a.div(b), ac.div(bc));
    expect_same(b.mul(a), bc.mul(ac));
    // Bool and / or with broadcasting.
    auto [p, pc] = both<2, Bool>(TensorData::from_nested<bool, 2>({{true}, {false}}));
    auto [q, qc] = both<2, Bool>(TensorData::from_nested<bool, 2>({{true, false, true}}));
    expect_same(p.bool_and(q), pc.bool_and(qc));
    expect_same(p.bool_or(q), pc.bool_or(qc));
}

TEST(VulkanElementwise, Scalars) {
    BURN_REQUIRE_VULKAN();
    on_layouts(float_values(), [](const auto& a, const auto& c) {
        expect_same(a.add_scalar(1.5), c.add_scalar(1.5));
        expect_same(a.sub_scalar(-2.0), c.sub_scalar(-2.0));
        expect_same(a.mul_scalar(3.0), c.mul_scalar(3.0));
        expect_same(a.div_scalar(0.0), c.div_scalar(0.0));
        expect_same(a.rem_scalar(-1.25), c.rem_scalar(-1.25));
        expect_same(a.rem_scalar(2.0), c.rem_scalar(2.0));
        for (double p : {2.0, 0.5, -1.0, 1.0, 3.0, 1.5, -2.0, 0.0})
            expect_same(a.powf_scalar(p), c.powf_scalar(p), Tolerance{1e-5, 1e-5});
    });
    on_layouts<Int, I32>(int_values(), [](const auto& a, const auto& c) {
        expect_same(a.add_scalar(5), c.add_scalar(5));
        expect_same(a.sub_scalar(5), c.sub_scalar(5));
        expect_same(a.mul_scalar(-3), c.mul_scalar(-3));
        expect_same(a.div_scalar(-4), c.div_scalar(-4));
        expect_same(a.div_scalar(-1), c.div_scalar(-1));
        expect_same(a.rem_scalar(-4), c.rem_scalar(-4));
        expect_same(a.rem_scalar(3), c.rem_scalar(3));
        expect_same(a.powi_scalar(3), c.powi_scalar(3));
        expect_same(a.powi_scalar(0), c.powi_scalar(0));
    });
}

TEST(VulkanElementwise, Comparisons) {
    BURN_REQUIRE_VULKAN();
    auto check = [](const auto& a, const auto& b, const auto& ac, const auto& bc) {
        expect_same(a.equal(b), ac.equal(bc));
        expect_same(a.not_equal(b), ac.not_equal(bc));
        expect_same(a.greater(b), ac.greater(bc));
        expect_same(a.greater_equal(b), ac.greater_equal(bc));
        expect_same(a.lower(b), ac.lower(bc));
        expect_same(a.lower_equal(b), ac.lower_equal(bc));
    };
    auto [a, ac] = transposed(float_values(1), 6, 7);
    auto [b, bc] = dense(float_values(1), 6, 7);  // same values, other layout: many ties, NaN
    check(a, b, ac, bc);
    auto [r, rc] = both<2>(
        TensorData(std::vector<float>{0.0f, kNaN, 1.0f, -1.0f, kInf, 0.5f, -0.0f}, Shape{1, 7}));
    check(a, r, ac, rc);
    check(r, a, rc, ac);
    for (double s : {0.0, 0.5, -1.0}) {
        expect_same(a.equal_elem(s), ac.equal_elem(s));
        expect_same(a.not_equal_elem(s), ac.not_equal_elem(s));
        expect_same(a.greater_elem(s), ac.greater_elem(s));
        expect_same(a.greater_equal_elem(s), ac.greater_equal_elem(s));
        expect_same(a.lower_elem(s), ac.lower_elem(s));
        expect_same(a.lower_equal_elem(s), ac.lower_equal_elem(s));
    }
    on_layouts<Int, I32>(int_values(), [](const auto& x, const auto& xc) {
        auto [y, yc] =
            both<2, Int>(TensorData(std::vector<I32>{0, -1, 7, 100, -13, 2, 5}, Shape{1, 7}));
        expect_same(x.equal(y), xc.equal(yc));
        expect_same(x.greater(y), xc.greater(yc));
        expect_same(x.lower_equal(y), xc.lower_equal(yc));
        expect_same(x.greater_elem(-2), xc.greater_elem(-2));
        expect_same(x.lower_elem(7), xc.lower_elem(7));
        // Scalars outside i32 compare the same way with every element.
        expect_same(x.lower_elem(std::int64_t{1} << 40), xc.lower_elem(std::int64_t{1} << 40));
        expect_same(x.greater_elem(-(std::int64_t{1} << 40)),
                    xc.greater_elem(-(std::int64_t{1} << 40)));
        expect_same(x.equal_elem(std::int64_t{1} << 40), xc.equal_elem(std::int64_t{1} << 40));
    });
    auto [p, pc] = both<2, Bool>(TensorData::from_nested<bool, 2>({{true, false}, {false, false}}));
    auto [q, qc] = both<2, Bool>(TensorData::from_nested<bool, 2>({{true, true}}));
    expect_same(p.equal(q), pc.equal(qc));
    expect_same(p.not_equal(q), pc.not_equal(qc));
}

TEST(VulkanElementwise, IsNanAndClamp) {
    BURN_REQUIRE_VULKAN();
    on_layouts(float_values(), [](const auto& a, const auto& c) {
        expect_same(a.is_nan(), c.is_nan());
        expect_same(a.clamp(-1.0, 0.75), c.clamp(-1.0, 0.75));
        expect_same(a.clamp_min(0.25), c.clamp_min(0.25));
        expect_same(a.clamp_max(-0.5), c.clamp_max(-0.5));
    });
    on_layouts<Int, I32>(int_values(), [](const auto& a, const auto& c) {
        expect_same(a.clamp(-10, 12), c.clamp(-10, 12));
        expect_same(a.clamp_min(3), c.clamp_min(3));
        expect_same(a.clamp_max(-3), c.clamp_max(-3));
        // Bounds beyond i32 saturate.
        expect_same(a.clamp(-(std::int64_t{1} << 40), std::int64_t{1} << 40),
                    c.clamp(-(std::int64_t{1} << 40), std::int64_t{1} << 40));
    });
    // is_nan of an int tensor is all false.
    auto i = Tensor<VB, 2, Int>::from_data(TensorData(std::vector<I32>{1, 2, 3, 4}, Shape{2, 2}));
    EXPECT_EQ((Tensor<VB, 2, Bool>(vk::Kernels::is_nan(i.primitive())).to_data()),
              (TensorData::from_nested<bool, 2>({{false, false}, {false, false}})));
}

TEST(VulkanElementwise, MaskWhereAndFill) {
    BURN_REQUIRE_VULKAN();
    on_layouts(float_values(), [](const auto& a, const auto& c) {
        // mask [6, 1] and value [1, 7] broadcast to [6, 7].
        auto [m, mc] = both<2, Bool>(
            TensorData::from_nested<bool, 2>({{true}, {false}, {true}, {true}, {false}, {false}}));
        auto [v, vc] =
            both<2>(TensorData(std::vector<float>{10, 11, 12, 13, 14, 15, kNaN}, Shape{1, 7}));
        expect_same(a.mask_where(m, v), c.mask_where(mc, vc));
        expect_same(a.mask_fill(m, -5.5), c.mask_fill(mc, -5.5));
        // A full mask computed from a (strided) tensor, value a full tensor.
        const auto mk = a.greater_elem(0.0);
        const auto mkc = c.greater_elem(0.0);
        expect_same(a.mask_where(mk, a.neg()), c.mask_where(mkc, c.neg()));
        expect_same(a.mask_fill(mk, 0.0), c.mask_fill(mkc, 0.0));
    });
    on_layouts<Int, I32>(int_values(), [](const auto& a, const auto& c) {
        auto [m, mc] = both<2, Bool>(
            TensorData::from_nested<bool, 2>({{true, false, false, true, false, true, true}}));
        auto [v, vc] =
            both<2, Int>(TensorData(std::vector<I32>{-1, -2, -3, -4, -5, -6}, Shape{6, 1}));
        expect_same(a.mask_where(m, v), c.mask_where(mc, vc));
        expect_same(a.mask_fill(m, 77), c.mask_fill(mc, 77));
    });
}

TEST(VulkanElementwise, InPlaceReuseKeepsSharedInputs) {
    BURN_REQUIRE_VULKAN();
    const auto data = vk_random(Shape{4, 5}, -1.0f, 1.0f, 3);
    auto x = Tensor<VB, 2>::from_data(data);
    auto shared = x;                          // x is no longer unique: ops must not write into it
    auto y = x.exp().add(x).mul_scalar(2.0);  // the temporaries are unique: written in place
    auto xc = Tensor<CB, 2>::from_data(data);
    expect_same(y, xc.exp().add(xc).mul_scalar(2.0));
    EXPECT_EQ(shared.to_data(), data);
    EXPECT_EQ(x.to_data(), data);
    // A unique dense input is reused as the output.
    vk::VulkanTensor p = Tensor<VB, 2>::from_data(data).into_primitive();
    const auto* buf = p.buffer.get();
    vk::VulkanTensor q = vk::Kernels::unary(vk::UnaryOp::Neg, std::move(p));
    EXPECT_EQ(q.buffer.get(), buf);
    vk::VulkanTensor r = vk::Kernels::activation(vk::Activation::Relu, std::move(q), 0.0, 0.0);
    EXPECT_EQ(r.buffer.get(), buf);
}

TEST(VulkanElementwise, LargeTensorsSeveralItemsPerThread) {
    // From 2^20 elements on, each thread handles several elements: check the ops, a ragged tail
    // and a strided (broadcast) operand there.
    BURN_REQUIRE_VULKAN();
    const std::size_t rows = 1025, cols = 1027;  // > 2^20 elements, not a multiple of 4 * 256
    auto [x, xc] = both<2>(vk_random(Shape{rows, cols}, -2.0f, 2.0f, 51));
    auto [r, rc] = both<2>(vk_random(Shape{1, cols}, -1.0f, 1.0f, 52));
    expect_same(x.exp(), xc.exp(), Tolerance{1e-5, 1e-5});
    expect_same(x.add(r), xc.add(rc));
    auto [y, yc] = both<2>(vk_random(Shape{rows, cols}, -2.0f, 2.0f, 53));
    expect_same(x.mul(y), xc.mul(yc));
    auto [z, zc] = both<2>(vk_random(Shape{1024, 1024}, -2.0f, 2.0f, 54));  // no ragged tail
    expect_same(z.sub(z.exp()), zc.sub(zc.exp()), Tolerance{1e-5, 1e-5});
    expect_same(activation::sigmoid(z), activation::sigmoid(zc), Tolerance{1e-6, 1e-5});
    expect_same(x.mul_scalar(3.0), xc.mul_scalar(3.0));
    expect_same(activation::relu(x), activation::relu(xc));
    const auto m = x.greater_elem(0.5);
    const auto mc = xc.greater_elem(0.5);
    EXPECT_EQ(m.to_data(), mc.to_data());
    expect_same(
        x.mask_where(m,
                     r.expand({static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)})),
        xc.mask_where(
            mc, rc.expand({static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)})));
    EXPECT_EQ(x.is_nan().to_data(), xc.is_nan().to_data());
}

TEST(VulkanElementwise, Int64Variants) {
    BURN_REQUIRE_VULKAN();
    const VulkanDevice dev{};
    if (!vulkan_device_info(dev).features.shader_int64) GTEST_SKIP() << "no shaderInt64";
    const std::vector<std::int64_t> a{5, -7, 9, -(std::int64_t{1} << 40), 3, 0};
    const std::vector<std::int64_t> b{-3, 2, 4, 3, -1, 5};
    const auto ta = vk::Kernels::from_data(TensorData(a, Shape{6}), DType::I64, dev);
    const auto tb = vk::Kernels::from_data(TensorData(b, Shape{6}), DType::I64, dev);
    auto get = [](const vk::VulkanTensor& t) {
        return vk::Kernels::into_data(t).to_vec<std::int64_t>();
    };
    auto floor_rem = [](std::int64_t x, std::int64_t y) {
        std::int64_t r = x % y;
        return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    };
    std::vector<std::int64_t> add, rem, pow, mx;
    for (std::size_t i = 0; i < a.size(); ++i) {
        add.push_back(a[i] + b[i]);
        rem.push_back(floor_rem(a[i], b[i]));
        mx.push_back(std::max(a[i], b[i]));
    }
    EXPECT_EQ(get(vk::Kernels::binary(vk::BinaryOp::Add, ta, tb)), add);
    EXPECT_EQ(get(vk::Kernels::binary(vk::BinaryOp::Rem, ta, tb)), rem);
    EXPECT_EQ(get(vk::Kernels::binary(vk::BinaryOp::Max, ta, tb)), mx);
    EXPECT_EQ(get(vk::Kernels::binary_scalar(vk::BinaryOp::Mul, ta,
                                             vk::ScalarArg::of(std::int64_t{1} << 20))),
              (std::vector<std::int64_t>{5 << 20, -7 << 20, 9 << 20, -(std::int64_t{1} << 60),
                                         3 << 20, 0}));
    EXPECT_EQ(
        get(vk::Kernels::binary_scalar(vk::BinaryOp::Pow, ta, vk::ScalarArg::of(std::int64_t{3}))),
        (std::vector<std::int64_t>{125, -343, 729, 0, 27, 0}));  // (-2^40)^3 wraps to 0
    EXPECT_EQ(get(vk::Kernels::unary(vk::UnaryOp::Abs, ta)),
              (std::vector<std::int64_t>{5, 7, 9, std::int64_t{1} << 40, 3, 0}));
    EXPECT_EQ(get(vk::Kernels::clamp(ta, vk::ScalarArg::of(std::int64_t{-6}),
                                     vk::ScalarArg::of(std::int64_t{6}))),
              (std::vector<std::int64_t>{5, -6, 6, -6, 3, 0}));
    EXPECT_EQ((vk::Kernels::into_data(vk::Kernels::compare_scalar(
                  vk::CmpOp::Lt, ta, vk::ScalarArg::of(-(std::int64_t{1} << 39))))),
              (TensorData::from_nested<bool, 1>({false, false, false, true, false, false})));
    const auto mask = vk::Kernels::compare(vk::CmpOp::Gt, ta, tb);
    EXPECT_EQ(get(vk::Kernels::mask_fill(ta, mask, vk::ScalarArg::of(std::int64_t{1} << 50))),
              (std::vector<std::int64_t>{std::int64_t{1} << 50, -7, std::int64_t{1} << 50,
                                         -(std::int64_t{1} << 40), std::int64_t{1} << 50, 0}));
}

TEST(VulkanElementwise, EmptyTensors) {
    BURN_REQUIRE_VULKAN();
    auto [e, ec] = both<2>(TensorData(std::vector<float>{}, Shape{0, 3}));
    expect_same(e.exp(), ec.exp());
    expect_same(e.add(e), ec.add(ec));
    expect_same(e.greater_elem(0.0), ec.greater_elem(0.0));
}

TEST(VulkanElementwise, Errors) {
    BURN_REQUIRE_VULKAN();
    auto i = Tensor<VB, 2, Int>::from_data(TensorData(std::vector<I32>{1, 2, 3, 4}, Shape{2, 2}));
    EXPECT_THROW((void)i.div_scalar(0).to_data(), Error);
    EXPECT_THROW((void)i.rem_scalar(0).to_data(), Error);
    EXPECT_THROW((void)i.powi_scalar(-1).to_data(), Error);
    // Invalid arguments: the Tensor layer's errors, the same on both backends (dtypes that an op
    // does not take are not expressible: the kinds of the Tensor type rule them out).
    auto [x, xc] = both<2>(vk_random(Shape{2, 3}));
    const auto y = vk_random(Shape{4, 3});
    expect_same_error(
        x, xc, [&](auto t) { return t + decltype(t)::from_data(y); },
        "Tensor::add: shapes [2, 3] and [4, 3] cannot be broadcast together");
    expect_same_error(
        x, xc,
        [&](auto t) {
            const auto other = decltype(t)::from_data(y);
            return t.mask_fill(other.greater(other), 1.0);
        },
        "Tensor::mask_fill: shapes [4, 3] and [2, 3] cannot be broadcast together");
}

TEST(VulkanElementwise, MixedDtypesConvertAsTheCpuBackend) {
    BURN_REQUIRE_VULKAN();
    const auto fd =
        TensorData(std::vector<float>{-1.5f, 0.0f, 2.0f, 3.25f, kNaN, -4.0f}, Shape{2, 3});
    const auto id = TensorData(std::vector<std::int32_t>{-1, 0, 2, 3, 0, 7}, Shape{2, 3});
    const auto bd = TensorData::from_nested<bool, 2>({{true, false, true}, {false, true, false}});
    const VulkanDevice dev{};
    const auto vf = vk::Kernels::from_data(fd, DType::F32, dev),
               vi = vk::Kernels::from_data(id, DType::I32, dev);
    const auto vb = vk::Kernels::from_data(bd, DType::Bool, dev);
    const auto cf = cpu::Kernels::from_data(fd, DType::F32, {}),
               ci = cpu::Kernels::from_data(id, DType::I32, {});
    const auto cb = cpu::Kernels::from_data(bd, DType::Bool, {});
    auto same = [](const vk::VulkanTensor& v, const cpu::CpuTensor& c) {
        vk::Kernels::into_data(v).assert_approx_eq(cpu::Kernels::into_data(c), Tolerance{0, 0});
        EXPECT_EQ(v.dtype, c.dtype);
    };
    same(vk::Kernels::binary(vk::BinaryOp::Add, vf, vi),
         cpu::Kernels::binary(cpu::BinaryOp::Add, cf, ci));
    same(vk::Kernels::binary(vk::BinaryOp::Sub, vi, vf),
         cpu::Kernels::binary(cpu::BinaryOp::Sub, ci, cf));
    same(vk::Kernels::compare(vk::CmpOp::Ge, vi, vf),
         cpu::Kernels::compare(cpu::CmpOp::Ge, ci, cf));
    same(vk::Kernels::compare(vk::CmpOp::Eq, vb, vi),
         cpu::Kernels::compare(cpu::CmpOp::Eq, cb, ci));
    same(vk::Kernels::mask_where(vf, vi, vi),
         cpu::Kernels::mask_where(cf, ci, ci));  // int mask (!= 0), int value
    same(vk::Kernels::mask_fill(vi, vf, vk::ScalarArg::of(std::int64_t{9})),
         cpu::Kernels::mask_fill(ci, cf, cpu::ScalarArg::of(std::int64_t{9})));
}

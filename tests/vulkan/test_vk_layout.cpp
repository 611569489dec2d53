// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan layout family against the CPU backend: views (reshape, permute, swap_dims, flip,
// expand, slice) and views of views, contiguous, cast between every dtype pair, full,
// slice_assign, cat, repeat_dim, arange, random (determinism per seed, distribution ranges and
// moments) and int8 quantize / dequantize, plus the errors of the CPU backend.
#include <burn/backend/cpu/kernels.hpp>
#include <burn/backend/vulkan/kernels.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "vk_support.hpp"

using namespace burn;
using namespace burn::vktest;

namespace {

using VB64 = Vulkan<float, std::int64_t>;
using CB64 = Cpu<float, std::int64_t>;

template <std::size_t D, class K>
void expect_exact(const Tensor<VB, D, K>& vk, const Tensor<CB, D, K>& cpu) {
    EXPECT_EQ(vk.to_data(), cpu.to_data());
}

/// The message of the burn::Error that f throws ("" if none).
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

/// Runs the same program on both backends and compares (exact for ints and bools).
template <std::size_t D, class K, class F>
void same_program(const TensorData& data, F&& f) {
    auto [v, c] = both<D, K>(data);
    auto rv = f(v);
    auto rc = f(c);
    if constexpr (std::same_as<K, Float>) expect_same(rv, rc);
    else expect_exact(rv, rc);
}

}  // namespace

// ------------------------------------------------------------------------------ views

TEST(VulkanLayout, ViewsShareTheBufferAndMatchCpu) {
    BURN_REQUIRE_VULKAN();
    const auto data = vk_random(Shape{4, 5, 6}, -1, 1, 3);
    auto [v, c] = both<3>(data);
    const auto buf = v.primitive().buffer;
    auto check_view = [&](const auto& vv, const auto& cc) {
        EXPECT_EQ(vv.primitive().buffer, buf);
        expect_same(vv, cc);
    };
    check_view(v.permute({2, 0, 1}), c.permute({2, 0, 1}));
    check_view(v.swap_dims(0, 2), c.swap_dims(0, 2));
    check_view(v.transpose(), c.transpose());
    check_view(v.flip({0, 2}), c.flip({0, 2}));
    check_view(v.slice({Slice(1, 4), Slice(0, 5, 2), Slice(-4, 6, 3)}),
               c.slice({Slice(1, 4), Slice(0, 5, 2), Slice(-4, 6, 3)}));
    check_view(v.narrow(1, 2, 3), c.narrow(1, 2, 3));
    // Views of views of views.
    check_view(
        v.permute({1, 2, 0}).flip({1}).slice({Slice(0, 5, 2), Slice(1, 6, 2)}).swap_dims(0, 2),
        c.permute({1, 2, 0}).flip({1}).slice({Slice(0, 5, 2), Slice(1, 6, 2)}).swap_dims(0, 2));
    check_view(
        v.flip({0, 1, 2}).flip({1}).permute({2, 1, 0}).slice({Slice(1, 5), Slice::index(-1)}),
        c.flip({0, 1, 2}).flip({1}).permute({2, 1, 0}).slice({Slice(1, 5), Slice::index(-1)}));
    // Expand: stride 0, new leading dims, from a view.
    const auto small = vk_random(Shape{1, 5, 1}, -1, 1, 4);
    auto [s, sc] = both<3>(small);
    EXPECT_EQ(s.expand({3, 5, 4}).primitive().buffer, s.primitive().buffer);
    expect_same(s.expand({3, 5, 4}), sc.expand({3, 5, 4}));
    expect_same(s.expand({2, 3, -1, 4}), sc.expand({2, 3, -1, 4}));
    expect_same(v.slice({Slice::index(2)}).expand({3, 4, 5, 6}).permute({3, 1, 0, 2}),
                c.slice({Slice::index(2)}).expand({3, 4, 5, 6}).permute({3, 1, 0, 2}));
    // Empty slices.
    expect_same(v.slice({Slice(2, 2)}), c.slice({Slice(2, 2)}));
}

TEST(VulkanLayout, ViewsOfIntAndBoolTensors) {
    BURN_REQUIRE_VULKAN();
    same_program<3, Int>(vk_random_ints(Shape{3, 4, 5}, -100, 100, 5), [](auto t) {
        return t.permute({2, 0, 1}).flip({1}).slice({Slice(0, 5, 2), Slice(1, 3)}).swap_dims(1, 2);
    });
    same_program<3, Int>(vk_random_ints(Shape{3, 1, 5}, -100, 100, 6), [](auto t) {
        return t.expand({2, 3, 4, 5}).flip({0, 2});
    });
    same_program<3, Bool>(vk_random_bools(Shape{3, 4, 5}, 7), [](auto t) {
        return t.permute({1, 2, 0}).flip({0, 2}).slice({Slice(1, 4, 2), Slice(0, 5, 3)});
    });
}

TEST(VulkanLayout, ReshapeIsAViewWhenTheStridesAllow) {
    BURN_REQUIRE_VULKAN();
    const auto data = vk_random(Shape{4, 6, 10}, -1, 1, 8);
    auto [v, c] = both<3>(data);
    const auto buf = v.primitive().buffer;
    // Dense: always a view.
    EXPECT_EQ(v.reshape({24, 10}).primitive().buffer, buf);
    expect_same(v.reshape({24, 10}), c.reshape({24, 10}));
    expect_same(v.reshape({2, -1, 5, 2}), c.reshape({2, -1, 5, 2}));
    // A slice along dim 0 keeps the trailing dims mergeable: a view.
    auto vs = v.slice({Slice(1, 3)});
    EXPECT_EQ(vs.reshape({12, 10}).primitive().buffer, buf);
    expect_same(vs.reshape({12, 10}), c.slice({Slice(1, 3)}).reshape({12, 10}));
    // Splitting a permuted dim is a view too.
    auto vp = v.permute({2, 0, 1});  // [10, 4, 6]
    EXPECT_EQ(vp.reshape({2, 5, 4, 6}).primitive().buffer, buf);
    expect_same(vp.reshape({2, 5, 4, 6}), c.permute({2, 0, 1}).reshape({2, 5, 4, 6}));
    // Merging permuted dims needs a copy.
    EXPECT_NE(vp.reshape({40, 6}).primitive().buffer, buf);
    expect_same(vp.reshape({40, 6}), c.permute({2, 0, 1}).reshape({40, 6}));
    expect_same(v.slice({Slice::all(), Slice(0, 6, 2)}).reshape({-1}),
                c.slice({Slice::all(), Slice(0, 6, 2)}).reshape({-1}));
    expect_same(v.flip({2}).reshape({4, 60}), c.flip({2}).reshape({4, 60}));
    // Size-1 dims with odd strides.
    auto [o, oc] = both<3>(vk_random(Shape{3, 1, 4}, -1, 1, 9));
    expect_same(o.swap_dims(0, 1).reshape({12}), oc.swap_dims(0, 1).reshape({12}));
    same_program<3, Int>(vk_random_ints(Shape{4, 6, 10}, -9, 9, 10), [](auto t) {
        return t.permute({2, 0, 1}).template reshape<2>({40, 6});
    });
}

TEST(VulkanLayout, Contiguous) {
    BURN_REQUIRE_VULKAN();
    const auto data = vk_random(Shape{5, 7}, -1, 1, 11);
    auto v = Tensor<VB, 2>::from_data(data);
    vk::VulkanTensor p = v.primitive();
    EXPECT_EQ(vk::Kernels::contiguous(p).buffer, p.buffer);  // already dense
    vk::VulkanTensor t = view_permute(p, std::vector<std::size_t>{1, 0});
    vk::VulkanTensor d = vk::Kernels::contiguous(t);
    EXPECT_NE(d.buffer, p.buffer);
    EXPECT_TRUE(d.is_contiguous());
    EXPECT_EQ(d.offset, 0);
    EXPECT_EQ(vk::Kernels::into_data(d), vk::Kernels::into_data(t));
    // A dense view with an offset is copied to offset 0.
    const std::vector<SliceRange> r{{2, 3, 1}};
    vk::VulkanTensor s = view_slice(p, r);
    EXPECT_TRUE(s.is_contiguous());
    vk::VulkanTensor sd = vk::Kernels::contiguous(s);
    EXPECT_EQ(sd.offset, 0);
    EXPECT_EQ(vk::Kernels::into_data(sd), vk::Kernels::into_data(s));
    // Every dtype, flipped and broadcast.
    for (DType dt : {DType::F32, DType::I32, DType::I64, DType::Bool}) {
        vk::VulkanTensor x =
            vk::Kernels::from_data(vk_random_ints(Shape{3, 1, 4}, -5, 5, 12), dt, VulkanDevice{});
        const std::vector<std::size_t> axes{0, 2};
        vk::VulkanTensor y = view_expand(view_flip(x, axes), Shape{3, 6, 4});
        vk::VulkanTensor z = vk::Kernels::contiguous(y);
        EXPECT_TRUE(z.is_contiguous());
        EXPECT_EQ(vk::Kernels::into_data(z), vk::Kernels::into_data(y)) << dt;
    }
}

// ------------------------------------------------------------------------------ cast, full

TEST(VulkanLayout, CastEveryPairAsCpu) {
    BURN_REQUIRE_VULKAN();
    const std::vector<float> fv{
        -2.75f, -1.0f, -0.5f,  0.0f,  0.25f,
        1.5f,   2.9f,  100.0f, -7.0f, std::numeric_limits<float>::quiet_NaN(),
        3.0f,   -0.0f};
    const std::vector<DType> dts{DType::F32, DType::I32, DType::I64, DType::Bool};
    for (DType from : dts) {
        // The source: f32 values converted by TensorData (NaN only for f32 sources).
        std::vector<float> src = fv;
        if (from != DType::F32) src[9] = 4.0f;
        const TensorData host = TensorData(src, Shape{3, 4}).convert(from);
        for (DType to : dts) {
            vk::VulkanTensor x = vk::Kernels::from_data(host, from, VulkanDevice{});
            cpu::CpuTensor xc = cpu::Kernels::from_data(host, from, {});
            // Contiguous and a transposed view.
            for (int view = 0; view < 2; ++view) {
                vk::VulkanTensor xv = x;
                cpu::CpuTensor xcv = xc;
                if (view == 1) {
                    xv = view_swap_dims(x, 0, 1);
                    xcv = view_swap_dims(xc, 0, 1);
                }
                const TensorData got = vk::Kernels::into_data(vk::Kernels::cast(xv, to));
                const TensorData want = cpu::Kernels::into_data(cpu::Kernels::cast(xcv, to));
                if (to == DType::F32) got.assert_approx_eq(want, Tolerance{0, 0});
                else EXPECT_EQ(got, want) << from << " -> " << to << " view " << view;
            }
        }
    }
    // Through the tensor API.
    same_program<2, Float>(vk_random(Shape{6, 7}, -50, 50, 13),
                           [](auto t) { return t.transpose().into_int(); });
    same_program<2, Int>(vk_random_ints(Shape{6, 7}, -50, 50, 14),
                         [](auto t) { return t.flip({1}).into_float(); });
    same_program<2, Bool>(vk_random_bools(Shape{6, 7}, 15),
                          [](auto t) { return t.transpose().into_int(); });
    same_program<2, Bool>(vk_random_bools(Shape{6, 7}, 16), [](auto t) { return t.into_float(); });
    // Casting to the same dtype is the input itself.
    vk::VulkanTensor f =
        vk::Kernels::from_data(TensorData(fv, Shape{12}), DType::F32, VulkanDevice{});
    EXPECT_EQ(vk::Kernels::cast(f, DType::F32).buffer, f.buffer);
}

TEST(VulkanLayout, FullEveryDtype) {
    BURN_REQUIRE_VULKAN();
    const VulkanDevice dev{};
    const Shape s{3, 257};
    auto expect_full = [&](vk::ScalarArg v, DType dt) {
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::full(s, v, dt, dev)),
                  cpu::Kernels::into_data(cpu::Kernels::full(s, {v.f, v.i}, dt, {})))
            << dt;
    };
    expect_full(vk::ScalarArg::of(2.5), DType::F32);
    expect_full(vk::ScalarArg::of(-0.0), DType::F32);
    expect_full(vk::ScalarArg::of(std::int64_t{-7}), DType::I32);
    expect_full(vk::ScalarArg::of(std::int64_t{-5}), DType::I64);           // words differ
    expect_full(vk::ScalarArg::of(std::int64_t{0x100000001}), DType::I64);  // words equal
    expect_full(vk::ScalarArg::of(std::int64_t{std::numeric_limits<std::int64_t>::min()}),
                DType::I64);
    expect_full(vk::ScalarArg::of(std::int64_t{3}), DType::Bool);
    expect_full(vk::ScalarArg::of(0.5), DType::Bool);
    expect_full(vk::ScalarArg::of(0.0), DType::Bool);
    EXPECT_EQ(
        vk::Kernels::full(Shape{0, 4}, vk::ScalarArg::of(1.0), DType::F32, dev).num_elements(), 0u);
    expect_same(Tensor<VB, 2>::full(s, 1.25f), Tensor<CB, 2>::full(s, 1.25f));
    expect_same(Tensor<VB, 2>::zeros(s), Tensor<CB, 2>::zeros(s));
    expect_same(Tensor<VB, 2>::ones(s), Tensor<CB, 2>::ones(s));
    expect_exact(Tensor<VB, 2, Int>::full(s, -3), Tensor<CB, 2, Int>::full(s, -3));
    EXPECT_EQ((Tensor<VB64, 1, Int>::full({5}, std::int64_t{-123456789012}).to_data()),
              (Tensor<CB64, 1, Int>::full({5}, std::int64_t{-123456789012}).to_data()));
}

// ------------------------------------------------------------------------------ writes

TEST(VulkanLayout, SliceAssign) {
    BURN_REQUIRE_VULKAN();
    const auto data = vk_random(Shape{6, 7, 5}, -1, 1, 20);
    const auto vals = vk_random(Shape{5, 3, 2}, -1, 1, 21);  // permuted below to [2, 5, 3]
    auto [v, c] = both<3>(data);
    auto [w, wc] = both<3>(vals);
    const std::vector<Slice> r{Slice(1, 5, 2), Slice(0, 7, 3), Slice(-5, 5, 2)};  // [2, 3, 3]
    auto wv = w.permute({2, 1, 0}).slice({Slice::all(), Slice::all(), Slice(0, 3)});
    auto wcv = wc.permute({2, 1, 0}).slice({Slice::all(), Slice::all(), Slice(0, 3)});
    ASSERT_EQ(wv.shape(), (Shape{2, 3, 3}));
    // v is shared: a new tensor, v unchanged.
    auto out = v.slice_assign(r, wv);
    expect_same(out, c.slice_assign(r, wcv));
    EXPECT_NE(out.primitive().buffer, v.primitive().buffer);
    expect_same(v, c);
    // Unique and dense: in place.
    auto u = Tensor<VB, 3>::from_data(data);
    const auto ubuf = u.primitive().buffer.get();
    auto out2 = std::move(u).slice_assign(r, wv);
    EXPECT_EQ(out2.primitive().buffer.get(), ubuf);
    expect_same(out2, c.slice_assign(r, wcv));
    // Into a view (a copy), whole tensor, empty region.
    expect_same(v.flip({1}).slice_assign({Slice(0, 2)}, v.slice({Slice(4, 6)})),
                c.flip({1}).slice_assign({Slice(0, 2)}, c.slice({Slice(4, 6)})));
    expect_same(v.slice_assign({Slice::all()}, v.flip({0})),
                c.slice_assign({Slice::all()}, c.flip({0})));
    expect_same(v.slice_assign({Slice(2, 2)}, v.slice({Slice(0, 0)})),
                c.slice_assign({Slice(2, 2)}, c.slice({Slice(0, 0)})));
    // Ints and bools.
    same_program<2, Int>(vk_random_ints(Shape{5, 6}, -9, 9, 22), [](auto t) {
        return t.slice_assign({Slice(0, 5, 2), Slice(1, 6, 4)},
                              t.transpose().slice({Slice(0, 3), Slice(2, 4)}));
    });
    same_program<2, Bool>(vk_random_bools(Shape{5, 6}, 23), [](auto t) {
        return t.slice_assign({Slice(1, 3), Slice(0, 6, 2)},
                              t.flip({0, 1}).slice({Slice(0, 2), Slice(0, 3)}));
    });
}

TEST(VulkanLayout, Cat) {
    BURN_REQUIRE_VULKAN();
    const auto a = vk_random(Shape{3, 4, 5}, -1, 1, 30);
    const auto b = vk_random(Shape{5, 4, 3}, -1, 1, 31);
    auto [va, ca] = both<3>(a);
    auto [vb, cb] = both<3>(b);
    for (std::int64_t dim = 0; dim < 3; ++dim) {
        expect_same(Tensor<VB, 3>::cat({va, va.flip({dim}), va}, dim),
                    Tensor<CB, 3>::cat({ca, ca.flip({dim}), ca}, dim));
    }
    // Views of different layouts, along dim 0 and the last dim.
    expect_same(Tensor<VB, 3>::cat({va, vb.permute({2, 1, 0}), va.slice({Slice(0, 1)})}, 0),
                Tensor<CB, 3>::cat({ca, cb.permute({2, 1, 0}), ca.slice({Slice(0, 1)})}, 0));
    expect_same(
        Tensor<VB, 3>::cat(
            {va.slice({Slice::all(), Slice::all(), Slice(0, 5, 2)}), vb.permute({2, 1, 0})}, 2),
        Tensor<CB, 3>::cat(
            {ca.slice({Slice::all(), Slice::all(), Slice(0, 5, 2)}), cb.permute({2, 1, 0})}, 2));
    // Empty pieces.
    expect_same(Tensor<VB, 3>::cat({va, va.slice({Slice(0, 0)})}, 0),
                Tensor<CB, 3>::cat({ca, ca.slice({Slice(0, 0)})}, 0));
    same_program<2, Int>(vk_random_ints(Shape{4, 3}, -9, 9, 32), [](auto t) {
        using T = decltype(t);
        return T::cat({t, t.flip({0}), t.slice({Slice(1, 3)})}, 0);
    });
    same_program<2, Bool>(vk_random_bools(Shape{4, 3}, 33), [](auto t) {
        using T = decltype(t);
        return T::cat({t.transpose(), t.transpose().flip({1})}, 1);
    });
    // A single tensor: a dense copy of the view (the vk:: entry point).
    vk::VulkanTensor x = va.primitive();
    vk::VulkanTensor one = vk::Kernels::cat({view_swap_dims(x, 0, 2)}, 1);
    EXPECT_TRUE(one.is_contiguous());
    EXPECT_EQ(vk::Kernels::into_data(one), vk::Kernels::into_data(view_swap_dims(x, 0, 2)));
}

TEST(VulkanLayout, DenseCopiesByKernelAsByCopyCommand) {
    // Dense same-dtype copies (cat of dense parts, slice_assign of a dense block) run as a kernel
    // on GPUs and as vkCmdCopyBuffer on CPU devices; BURN_VULKAN_COPY_KERNEL forces either, so
    // that lavapipe checks both: aligned (uvec4) and unaligned (word) offsets, ragged tails,
    // every element size.
    BURN_REQUIRE_VULKAN();
    for (const char* mode : {"1", "0"}) {
        SCOPED_TRACE(mode);
        ::setenv("BURN_VULKAN_COPY_KERNEL", mode, 1);
        for (const std::size_t na :
             {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{1001}}) {
            const std::size_t nb = 4099;
            auto [a, ac] = both<1>(vk_random(Shape{na}, -1.0f, 1.0f, 61 + na));
            auto [b, bc] = both<1>(vk_random(Shape{nb}, -1.0f, 1.0f, 62));
            expect_same(Tensor<VB, 1>::cat({a, b, a}, 0), Tensor<CB, 1>::cat({ac, bc, ac}, 0));
            auto [i, ic] = both<1, Int>(vk_random_ints(Shape{nb}, -9, 9, 63));
            auto [j, jc] = both<1, Int>(vk_random_ints(Shape{na}, -9, 9, 64));
            expect_exact(Tensor<VB, 1, Int>::cat({j, i}, 0), Tensor<CB, 1, Int>::cat({jc, ic}, 0));
            auto [m, mc] = both<1, Bool>(vk_random_bools(Shape{nb}, 65));
            auto [k, kc] = both<1, Bool>(vk_random_bools(Shape{na}, 66));
            expect_exact(Tensor<VB, 1, Bool>::cat({k, m}, 0),
                         Tensor<CB, 1, Bool>::cat({kc, mc}, 0));
        }
    }
    ::unsetenv("BURN_VULKAN_COPY_KERNEL");
}

TEST(VulkanLayout, RepeatDim) {
    BURN_REQUIRE_VULKAN();
    const auto a = vk_random(Shape{3, 4, 5}, -1, 1, 40);
    for (std::int64_t dim = 0; dim < 3; ++dim) {
        same_program<3, Float>(a, [&](auto t) { return t.repeat_dim(dim, 3); });
        same_program<3, Float>(a, [&](auto t) {
            return t.permute({2, 0, 1}).flip({1}).repeat_dim(dim, 2);
        });
        same_program<3, Float>(a, [&](auto t) { return t.repeat_dim(dim, 0); });
    }
    same_program<3, Float>(a, [&](auto t) { return t.repeat({2, 1, 3}); });
    same_program<2, Int>(vk_random_ints(Shape{4, 3}, -9, 9, 41),
                         [](auto t) { return t.transpose().repeat_dim(1, 4); });
    same_program<2, Bool>(vk_random_bools(Shape{4, 3}, 42),
                          [](auto t) { return t.repeat_dim(0, 3); });
    // Rank 8: one copy per repetition.
    vk::VulkanTensor x = vk::Kernels::from_data(vk_random(Shape{2, 1, 2, 1, 2, 1, 2, 3}, -1, 1, 43),
                                                DType::F32, VulkanDevice{});
    cpu::CpuTensor xc = cpu::Kernels::from_data(vk_random(Shape{2, 1, 2, 1, 2, 1, 2, 3}, -1, 1, 43),
                                                DType::F32, {});
    for (std::size_t dim : {0u, 3u, 7u})
        EXPECT_EQ(vk::Kernels::into_data(
                      vk::Kernels::repeat_dim(view_flip(x, std::vector<std::size_t>{7}), dim, 3)),
                  cpu::Kernels::into_data(cpu::Kernels::repeat_dim(
                      view_flip(xc, std::vector<std::size_t>{7}), dim, 3)));
}

TEST(VulkanLayout, Arange) {
    BURN_REQUIRE_VULKAN();
    expect_exact(Tensor<VB, 1, Int>::arange(0, 1000), Tensor<CB, 1, Int>::arange(0, 1000));
    expect_exact(Tensor<VB, 1, Int>::arange_step(-7, 20, 3),
                 Tensor<CB, 1, Int>::arange_step(-7, 20, 3));
    expect_exact(Tensor<VB, 1, Int>::arange_step(10, -10, -4),
                 Tensor<CB, 1, Int>::arange_step(10, -10, -4));
    expect_exact(Tensor<VB, 1, Int>::arange(5, 5), Tensor<CB, 1, Int>::arange(5, 5));
    const VulkanDevice dev{};
    for (DType dt : {DType::I32, DType::I64, DType::F32, DType::Bool}) {
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::arange(-3, 7, 2, dt, dev)),
                  cpu::Kernels::into_data(cpu::Kernels::arange(-3, 7, 2, dt, {})))
            << dt;
        EXPECT_EQ(vk::Kernels::into_data(vk::Kernels::arange(5000000000, 5000000100, 7, dt, dev)),
                  cpu::Kernels::into_data(cpu::Kernels::arange(5000000000, 5000000100, 7, dt, {})))
            << dt;
    }
}

// ------------------------------------------------------------------------------ random

TEST(VulkanLayout, RandomIsDeterministicPerSeed) {
    BURN_REQUIRE_VULKAN();
    for (const Distribution& d : {Distribution::Default(), Distribution::Uniform(-2, 3),
                                  Distribution::Bernoulli(0.3), Distribution::Normal(1, 2)}) {
        VB::seed(42);
        const auto a = Tensor<VB, 2>::random({37, 11}, d).to_data();
        const auto b = Tensor<VB, 2>::random({37, 11}, d).to_data();
        VB::seed(42);
        const auto a2 = Tensor<VB, 2>::random({37, 11}, d).to_data();
        const auto b2 = Tensor<VB, 2>::random({37, 11}, d).to_data();
        EXPECT_EQ(a, a2);
        EXPECT_EQ(b, b2);
        EXPECT_NE(a, b);
        VB::seed(43);
        EXPECT_NE((Tensor<VB, 2>::random({37, 11}, d).to_data()), a);
        VB::seed(7);
        const auto i1 =
            Tensor<VB, 1, Int>::random(
                {101}, d.kind == Distribution::Kind::Uniform ? Distribution::Uniform(-5, 5) : d)
                .to_data();
        VB::seed(7);
        EXPECT_EQ(
            (Tensor<VB, 1, Int>::random(
                 {101}, d.kind == Distribution::Kind::Uniform ? Distribution::Uniform(-5, 5) : d)
                 .to_data()),
            i1);
    }
}

namespace {
std::pair<double, double> moments(const std::vector<double>& v) {
    double m = 0, s = 0;
    for (double x : v) m += x;
    m /= static_cast<double>(v.size());
    for (double x : v) s += (x - m) * (x - m);
    return {m, std::sqrt(s / static_cast<double>(v.size()))};
}
template <class E>
std::vector<double> values_of(const TensorData& d) {
    const auto v = d.to_vec<E>();
    return std::vector<double>(v.begin(), v.end());
}
}  // namespace

TEST(VulkanLayout, RandomDistributions) {
    BURN_REQUIRE_VULKAN();
    VB::seed(1234);
    const std::size_t n = 100003;  // not a multiple of 4
    const VulkanDevice dev{};
    {
        const auto v = values_of<float>(Tensor<VB, 1>::random({n}).to_data());
        for (double x : v) ASSERT_TRUE(x >= 0.0 && x < 1.0);
        auto [m, s] = moments(v);
        EXPECT_NEAR(m, 0.5, 0.01);
        EXPECT_NEAR(s, std::sqrt(1.0 / 12), 0.01);
    }
    {
        const auto v =
            values_of<float>(Tensor<VB, 1>::random({n}, Distribution::Uniform(-2, 3)).to_data());
        for (double x : v) ASSERT_TRUE(x >= -2.0 && x < 3.0);
        EXPECT_NEAR(moments(v).first, 0.5, 0.05);
    }
    {
        const auto v =
            values_of<float>(Tensor<VB, 1>::random({n}, Distribution::Bernoulli(0.3)).to_data());
        for (double x : v) ASSERT_TRUE(x == 0.0 || x == 1.0);
        EXPECT_NEAR(moments(v).first, 0.3, 0.01);
    }
    {
        const auto v =
            values_of<float>(Tensor<VB, 1>::random({n}, Distribution::Normal(1, 2)).to_data());
        for (double x : v) ASSERT_TRUE(std::isfinite(x));
        auto [m, s] = moments(v);
        EXPECT_NEAR(m, 1.0, 0.05);
        EXPECT_NEAR(s, 2.0, 0.05);
    }
    for (DType dt : {DType::I32, DType::I64}) {
        const auto u = values_of<std::int64_t>(vk::Kernels::into_data(
            vk::Kernels::random(Shape{n}, Distribution::Uniform(-5.7, 5.2), dt, dev)));
        std::vector<int> hist(10, 0);
        for (double x : u) {
            ASSERT_TRUE(x >= -5 && x < 5) << x;
            ++hist[static_cast<std::size_t>(x + 5)];
        }
        for (int h : hist) EXPECT_NEAR(h, static_cast<double>(n) / 10, n / 100.0);
        const auto big = values_of<std::int64_t>(vk::Kernels::into_data(
            vk::Kernels::random(Shape{n}, Distribution::Uniform(0, 3e9), DType::I64, dev)));
        for (double x : big) ASSERT_TRUE(x >= 0 && x < 3e9);
        EXPECT_NEAR(moments(big).first, 1.5e9, 3e7);
        const auto d = values_of<std::int64_t>(vk::Kernels::into_data(
            vk::Kernels::random(Shape{n}, Distribution::Default(), dt, dev)));
        for (double x : d) ASSERT_TRUE(x == 0 || x == 1);
        EXPECT_NEAR(moments(d).first, 0.5, 0.01);
        const auto b = values_of<std::int64_t>(vk::Kernels::into_data(
            vk::Kernels::random(Shape{n}, Distribution::Bernoulli(0.8), dt, dev)));
        EXPECT_NEAR(moments(b).first, 0.8, 0.01);
        const auto g = values_of<std::int64_t>(vk::Kernels::into_data(
            vk::Kernels::random(Shape{n}, Distribution::Normal(10, 3), dt, dev)));
        auto [m, s] = moments(g);
        EXPECT_NEAR(m, 10, 0.1);
        EXPECT_NEAR(s, std::sqrt(9 + 1.0 / 12), 0.1);  // rounding adds 1/12 of variance
    }
    {
        const auto b = values_of<std::uint8_t>(vk::Kernels::into_data(
            vk::Kernels::random(Shape{n}, Distribution::Bernoulli(0.25), DType::Bool, dev)));
        EXPECT_NEAR(moments(b).first, 0.25, 0.01);
        const auto d = values_of<std::uint8_t>(vk::Kernels::into_data(
            vk::Kernels::random(Shape{n}, Distribution::Default(), DType::Bool, dev)));
        EXPECT_NEAR(moments(d).first, 0.5, 0.01);
    }
    EXPECT_EQ(
        vk::Kernels::random(Shape{0, 3}, Distribution::Default(), DType::F32, dev).num_elements(),
        0u);
    expect_same_error(
        Tensor<VB, 1>::zeros(Shape{1}), Tensor<CB, 1>::zeros(Shape{1}),
        [](auto t) {
            using B = typename decltype(t)::Backend;
            return Tensor<B, 1, Int>::random(Shape{4}, Distribution::Uniform(0.2, 0.7), t.device());
        },
        "Tensor::random: int Uniform(0.2, 0.7) needs trunc(low) < trunc(high)");
}

// ------------------------------------------------------------------------------ quantization

TEST(VulkanLayout, QuantizeDequantizeAsCpu) {
    BURN_REQUIRE_VULKAN();
    auto data = vk_random(Shape{4, 6, 5}, -3, 3, 50);
    {
        auto m = data.as_mut_span<float>();
        m[3] = 1000.0f;
        m[4] = -1000.0f;
        m[5] = 0.05f;  // x / scale = 0.5 exactly with scale 0.1: rounds to even
        m[6] = 0.15f;
    }
    auto vc = both<3>(data);
    auto v = vc.first;
    auto c = vc.second;
    const QuantizationType q8 = QuantizationType::QInt8;
    auto check = [&](const QuantizationScheme& scheme, std::vector<float> scales,
                     std::optional<std::vector<std::int32_t>> offsets, auto view) {
        auto pv = QuantizationParameters<VB>::from_values(scales, offsets);
        auto pc = QuantizationParameters<CB>::from_values(scales, offsets);
        auto qv = view(v).quantize(scheme, pv);
        auto qc = view(c).quantize(scheme, pc);
        EXPECT_TRUE(qv.is_quantized());
        EXPECT_EQ(qv.to_data(), qc.to_data()) << scheme;
        expect_same(qv.dequantize(), qc.dequantize());
    };
    auto id = [](auto t) { return t; };
    auto perm = [](auto t) { return t.permute({2, 0, 1}).slice({Slice(0, 5, 2)}); };
    check(QuantizationScheme::PerTensorSymmetric(q8), {0.1f}, std::nullopt, id);
    check(QuantizationScheme::PerTensorAffine(q8), {0.03f}, std::vector<std::int32_t>{-7}, id);
    check(QuantizationScheme::PerTensorAffine(q8), {0.02f}, std::vector<std::int32_t>{12}, perm);
    check(QuantizationScheme::PerChannelSymmetric(q8, 1), {0.1f, 0.2f, 0.05f, 0.3f, 0.01f, 1.0f},
          std::nullopt, id);
    check(QuantizationScheme::PerChannelAffine(q8, 0), {0.1f, 0.2f, 0.05f},
          std::vector<std::int32_t>{-3, 0, 5}, perm);
    // Quantized data in and out of the device unchanged.
    auto qc =
        c.quantize(QuantizationScheme::PerTensorAffine(q8),
                   QuantizationParameters<CB>::from_values({0.05f}, std::vector<std::int32_t>{3}));
    const TensorData qd = qc.to_data();
    EXPECT_EQ((Tensor<VB, 3>::from_data(qd).to_data()), qd);
    expect_same(Tensor<VB, 3>::from_data(qd).dequantize(), qc.dequantize());
}

// ------------------------------------------------------------------------------ errors

TEST(VulkanLayout, ErrorsAsCpu) {
    BURN_REQUIRE_VULKAN();
    // Invalid arguments: the Tensor layer's errors, the same on both backends.
    auto [v, c] = both<3>(vk_random(Shape{2, 3, 4}, -1, 1, 60));
    expect_same_error(
        v, c, [](auto t) { return t.slice_assign({Slice(0, 1)}, t); },
        "Tensor::slice_assign: values have shape [2, 3, 4]");
    expect_same_error(
        v, c, [](auto t) { return t.slice_assign({Slice(5, 7)}, t.narrow(0, 0, 1)); },
        "Tensor::slice_assign: range start 5 is out of bounds for dim 0");
    expect_same_error(
        v, c,
        [](auto t) {
            return decltype(t)::cat({t, t.swap_dims(0, 1)}, 0);
        },
        "Tensor::cat: shapes [2, 3, 4] and [3, 2, 4] differ outside dim 0");
    expect_same_error(
        v, c,
        [](auto t) {
            return decltype(t)::cat({t, t}, 3);
        },
        "Tensor::cat: dim 3 is out of range");
    expect_same_error(
        v, c, [](auto t) { return decltype(t)::cat({}, 0); }, "Tensor::cat: no tensors given");
    expect_same_error(
        v, c, [](auto t) { return t.repeat_dim(3, 2); },
        "Tensor::repeat_dim: dim 3 is out of range");
    expect_same_error(
        v, c,
        [](auto t) {
            using B = typename decltype(t)::Backend;
            return Tensor<B, 1, Int>::arange_step(0, 5, 0, t.device());
        },
        "Tensor::arange_step: step must not be zero");
    // What a Vulkan device cannot hold is the kernels' own error.
    EXPECT_NE(error_of([&] {
                  vk::Kernels::cast(v.primitive(), DType::F64);
              }).find("not supported on Vulkan"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  vk::Kernels::full(Shape{2}, vk::ScalarArg::of(1.0), DType::F16, VulkanDevice{});
              }).find("not supported on Vulkan"),
              std::string::npos);
}

TEST(VulkanLayout, Int64TensorsKeepTheirHighWords) {
    BURN_REQUIRE_VULKAN();
    if (!vulkan_device_info(VulkanDevice{}).features.shader_int64) GTEST_SKIP() << "no shaderInt64";
    std::vector<std::int64_t> vals(60);
    for (std::size_t i = 0; i < vals.size(); ++i)
        vals[i] =
            (static_cast<std::int64_t>(i) - 30) * 123456789012345 + static_cast<std::int64_t>(i);
    const TensorData data(vals, Shape{3, 4, 5});
    auto v = Tensor<VB64, 3, Int>::from_data(data);
    auto c = Tensor<CB64, 3, Int>::from_data(data);
    auto same = [](const auto& a, const auto& b) { EXPECT_EQ(a.to_data(), b.to_data()); };
    same(v.permute({2, 0, 1}).flip({1}).slice({Slice(0, 5, 2)}),
         c.permute({2, 0, 1}).flip({1}).slice({Slice(0, 5, 2)}));
    same(v.permute({2, 0, 1}).reshape({5, 12}), c.permute({2, 0, 1}).reshape({5, 12}));
    same(Tensor<VB64, 3, Int>::cat({v, v.flip({2})}, 2),
         Tensor<CB64, 3, Int>::cat({c, c.flip({2})}, 2));
    same(v.transpose().repeat_dim(0, 3), c.transpose().repeat_dim(0, 3));
    same(v.slice_assign({Slice(0, 3, 2), Slice(1, 3)},
                        v.slice({Slice(1, 3), Slice(0, 2)}).flip({0})),
         c.slice_assign({Slice(0, 3, 2), Slice(1, 3)},
                        c.slice({Slice(1, 3), Slice(0, 2)}).flip({0})));
    same(v.swap_dims(0, 2).into_float(), c.swap_dims(0, 2).into_float());
    same(Tensor<VB64, 1, Int>::arange_step(-5000000000, 5000000000, 999999999),
         Tensor<CB64, 1, Int>::arange_step(-5000000000, 5000000000, 999999999));
    same(Tensor<VB64, 3>::from_data(vk_random(Shape{2, 3, 4}, -1e12f, 1e12f, 70))
             .transpose()
             .into_int(),
         Tensor<CB64, 3>::from_data(vk_random(Shape{2, 3, 4}, -1e12f, 1e12f, 70))
             .transpose()
             .into_int());
}

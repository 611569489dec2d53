// SPDX-License-Identifier: MIT OR Apache-2.0
// Moving Vulkan tensors between devices: to_device to the same device (no copy), between two
// Vulkan devices when the machine has them (round trips of every kind, strided views, work not yet
// waited for), between the CPU backend and Vulkan through TensorData (views, empty tensors), the
// error for a device index that does not exist, and gradients flowing through to_device under
// Autodiff.
#include <string>

#include "vk_support.hpp"

using namespace burn;
using namespace burn::vktest;

namespace {

using AB = Autodiff<VB>;

/// Skips the test unless there are at least two Vulkan devices.
#define BURN_REQUIRE_TWO_VULKAN_DEVICES()                                                       \
    do {                                                                                        \
        if (::burn::vulkan_devices().size() < 2)                                                \
            GTEST_SKIP() << "needs two Vulkan devices, this machine has "                       \
                         << ::burn::vulkan_devices().size() << " (lavapipe alone exposes one)"; \
    } while (0)



/// A strided, flipped, offset view of `t` (rank 3): what to_device must read element by element.
template <class B, class K>
Tensor<B, 3, K> messy_view(const Tensor<B, 3, K>& t) {
    return t.swap_dims(0, 2).flip({1}).slice({Slice(1, INT64_MAX, 2), Slice::all(), Slice(0, 3)});
}

}  // namespace

// ---------------------------------------------------------------------------- the same device

TEST(VulkanToDevice, SameDeviceSharesTheBuffer) {
    BURN_REQUIRE_VULKAN();
    const VulkanDevice dev{};
    const auto data = vk_random(Shape{4, 5}, -1.0f, 1.0f, 3);
    const auto t = Tensor<VB, 2>::from_data(data, dev);
    const auto u = t.to_device(dev);
    EXPECT_EQ(u.device(), dev);
    // No copy: the same device buffer, the same view.
    EXPECT_EQ(u.primitive().buffer, t.primitive().buffer);
    EXPECT_EQ(u.to_data(), data);

    // A view and work not yet waited for keep their meaning.
    const auto pending = (t * 3.0f).swap_dims(0, 1).flip({0});
    const auto moved = pending.to_device(dev);
    EXPECT_EQ(moved.primitive().buffer, pending.primitive().buffer);
    EXPECT_EQ(moved.to_data(),
              ((Tensor<CB, 2>::from_data(data) * 3.0f).swap_dims(0, 1).flip({0}).to_data()));

    const auto i = Tensor<VB, 2, Int>::from_data(vk_random_ints(Shape{3, 2}, -9, 9, 4), dev);
    EXPECT_EQ(i.to_device(dev).primitive().buffer, i.primitive().buffer);
    EXPECT_EQ(i.to_device(dev).to_data(), i.to_data());
    const auto b = Tensor<VB, 2, Bool>::from_data(vk_random_bools(Shape{3, 2}, 5), dev);
    EXPECT_EQ(b.to_device(dev).primitive().buffer, b.primitive().buffer);
    EXPECT_EQ(b.to_device(dev).to_data(), b.to_data());
}

// ---------------------------------------------------------------------------- two Vulkan devices

TEST(VulkanToDevice, RoundTripBetweenTwoDevicesEveryKind) {
    BURN_REQUIRE_VULKAN();
    BURN_REQUIRE_TWO_VULKAN_DEVICES();
    const VulkanDevice d0{0}, d1{1};
    const auto f = vk_random(Shape{3, 4, 5}, -2.0f, 2.0f, 7);
    const auto i = vk_random_ints(Shape{3, 4, 5}, -100, 100, 8);
    const auto b = vk_random_bools(Shape{3, 4, 5}, 9);

    const auto tf = Tensor<VB, 3>::from_data(f, d0);
    const auto ti = Tensor<VB, 3, Int>::from_data(i, d0);
    const auto tb = Tensor<VB, 3, Bool>::from_data(b, d0);
    const auto f1 = tf.to_device(d1);
    const auto i1 = ti.to_device(d1);
    const auto b1 = tb.to_device(d1);
    EXPECT_EQ(f1.device(), d1);
    EXPECT_EQ(i1.device(), d1);
    EXPECT_EQ(b1.device(), d1);
    EXPECT_EQ(f1.to_data(), f);
    EXPECT_EQ(i1.to_data(), i);
    EXPECT_EQ(b1.to_data(), b);
    // Back again, unchanged, with their dtypes.
    EXPECT_EQ(f1.to_device(d0).to_data(), f);
    EXPECT_EQ(i1.to_device(d0).to_data(), i);
    EXPECT_EQ(b1.to_device(d0).to_data(), b);
    EXPECT_EQ(i1.to_device(d0).to_data().dtype, VB::int_dtype);
    EXPECT_EQ(b1.to_device(d0).to_data().dtype, DType::Bool);

    // The moved tensors compute on their new device.
    const auto cf = Tensor<CB, 3>::from_data(f);
    expect_same((f1 * f1).sum_dim(2), (cf * cf).sum_dim(2));
    EXPECT_EQ((i1 + 1).to_data(), (Tensor<CB, 3, Int>::from_data(i) + 1).to_data());
    EXPECT_EQ(b1.bool_not().to_data(), (Tensor<CB, 3, Bool>::from_data(b).bool_not().to_data()));
    // Operands on different devices are refused.
    EXPECT_THROW((void)(tf + f1), Error);
}

TEST(VulkanToDevice, StridedViewsAndPendingWorkBetweenTwoDevices) {
    BURN_REQUIRE_VULKAN();
    BURN_REQUIRE_TWO_VULKAN_DEVICES();
    const VulkanDevice d0{0}, d1{1};
    const auto f = vk_random(Shape{4, 3, 6}, -2.0f, 2.0f, 11);
    const auto i = vk_random_ints(Shape{4, 3, 6}, -50, 50, 12);
    const auto b = vk_random_bools(Shape{4, 3, 6}, 13);
    const auto cf = Tensor<CB, 3>::from_data(f);
    const auto ci = Tensor<CB, 3, Int>::from_data(i);
    const auto cb = Tensor<CB, 3, Bool>::from_data(b);

    // Views of every kind, moved as they are.
    const auto vf = Tensor<VB, 3>::from_data(f, d0);
    const auto vi = Tensor<VB, 3, Int>::from_data(i, d0);
    const auto vb = Tensor<VB, 3, Bool>::from_data(b, d0);
    EXPECT_EQ(messy_view(vf).to_device(d1).to_data(), messy_view(cf).to_data());
    EXPECT_EQ(messy_view(vi).to_device(d1).to_data(), messy_view(ci).to_data());
    EXPECT_EQ(messy_view(vb).to_device(d1).to_data(), messy_view(cb).to_data());
    const auto bcast = Tensor<VB, 3>::from_data(vk_random(Shape{1, 3, 1}, -1.0f, 1.0f, 14), d0)
                           .expand(std::array<std::int64_t, 3>{4, 3, 6});
    EXPECT_EQ(bcast.to_device(d1).to_data(), bcast.to_data());

    // Results of ops recorded on d0 and never waited for: to_device must see their values.
    for (int round = 0; round < 3; ++round) {
        auto pf = vf;
        auto pc = cf;
        for (int k = 0; k < 50; ++k) {  // more ops than fit one batch
            pf = (pf * 0.5f + 0.25f).tanh();
            pc = (pc * 0.5f + 0.25f).tanh();
        }
        const auto moved = messy_view(pf).to_device(d1);
        const auto pending_int = (vi * 3 - 7).swap_dims(1, 2).to_device(d1);
        const auto pending_bool = vf.greater_elem(0.0f).flip({0, 2}).to_device(d1);
        moved.to_data().assert_approx_eq(messy_view(pc).to_data(), Tolerance{1e-5, 1e-5});
        EXPECT_EQ(pending_int.to_data(), (ci * 3 - 7).swap_dims(1, 2).to_data());
        EXPECT_EQ(pending_bool.to_data(), cf.greater_elem(0.0f).flip({0, 2}).to_data());
    }
}

// ---------------------------------------------------------------------------- Cpu <-> Vulkan

TEST(VulkanToDevice, CpuAndVulkanThroughTensorData) {
    BURN_REQUIRE_VULKAN();
    const VulkanDevice dev{};
    const auto f = vk_random(Shape{5, 2, 7}, -3.0f, 3.0f, 21);
    const auto i = vk_random_ints(Shape{5, 2, 7}, -1000, 1000, 22);
    const auto b = vk_random_bools(Shape{5, 2, 7}, 23);

    // Cpu -> Vulkan -> Cpu, every kind, dtypes kept.
    const auto cf = Tensor<CB, 3>::from_data(f);
    const auto ci = Tensor<CB, 3, Int>::from_data(i);
    const auto cb = Tensor<CB, 3, Bool>::from_data(b);
    const auto vf = Tensor<VB, 3>::from_data(cf.to_data(), dev);
    const auto vi = Tensor<VB, 3, Int>::from_data(ci.to_data(), dev);
    const auto vb = Tensor<VB, 3, Bool>::from_data(cb.to_data(), dev);
    EXPECT_EQ(vf.device(), dev);
    EXPECT_EQ((Tensor<CB, 3>::from_data(vf.to_data()).to_data()), f);
    EXPECT_EQ((Tensor<CB, 3, Int>::from_data(vi.to_data()).to_data()), i);
    EXPECT_EQ((Tensor<CB, 3, Bool>::from_data(vb.to_data()).to_data()), b);
    EXPECT_EQ(vi.to_data().dtype, DType::I32);
    EXPECT_EQ(vb.to_data().dtype, DType::Bool);

    // Non-contiguous views on either side leave as row-major data.
    EXPECT_EQ(messy_view(vf).to_data(), messy_view(cf).to_data());
    EXPECT_EQ(messy_view(vi).to_data(), messy_view(ci).to_data());
    EXPECT_EQ(messy_view(vb).to_data(), messy_view(cb).to_data());
    const auto back = Tensor<VB, 3>::from_data(messy_view(cf).to_data(), dev);
    EXPECT_EQ(back.to_data(), messy_view(vf).to_data());
    EXPECT_EQ((Tensor<CB, 3, Int>::from_data(messy_view(vi).to_data()).to_data()),
              messy_view(ci).to_data());

    // The moved data computes the same on both backends.
    expect_same(back.sum_dim(1), messy_view(cf).sum_dim(1));

    // Data of another dtype is converted on the way in (i64 -> the backend's i32).
    const auto wide = vk_random_ints(Shape{2, 3, 1}, -5, 5, 24).convert(DType::I64);
    EXPECT_EQ((Tensor<VB, 3, Int>::from_data(wide, dev).to_data()), wide.convert(DType::I32));
}

TEST(VulkanToDevice, EmptyTensorsEveryKind) {
    BURN_REQUIRE_VULKAN();
    const VulkanDevice dev{};
    for (const Shape& s : {Shape{0, 3, 2}, Shape{2, 0, 4}, Shape{3, 2, 0}}) {
        SCOPED_TRACE(s.to_string());
        const TensorData f(std::vector<float>{}, s);
        const TensorData i(std::vector<std::int32_t>{}, s);
        const TensorData b(std::vector<bool>{}, s);
        const auto vf = Tensor<VB, 3>::from_data(Tensor<CB, 3>::from_data(f).to_data(), dev);
        const auto vi =
            Tensor<VB, 3, Int>::from_data(Tensor<CB, 3, Int>::from_data(i).to_data(), dev);
        const auto vb =
            Tensor<VB, 3, Bool>::from_data(Tensor<CB, 3, Bool>::from_data(b).to_data(), dev);
        EXPECT_EQ(vf.to_device(dev).to_data(), f);
        EXPECT_EQ(vi.to_device(dev).to_data(), i);
        EXPECT_EQ(vb.to_device(dev).to_data(), b);
        EXPECT_EQ((Tensor<CB, 3>::from_data(vf.swap_dims(0, 2).to_data()).dims()),
                  (std::array<std::size_t, 3>{s[2], s[1], s[0]}));
        if (vulkan_devices().size() >= 2) {
            EXPECT_EQ(vf.to_device(VulkanDevice{1}).to_data(), f);
            EXPECT_EQ(vi.to_device(VulkanDevice{1}).to_data(), i);
            EXPECT_EQ(vb.to_device(VulkanDevice{1}).to_data(), b);
        }
    }
}

// ---------------------------------------------------------------------------- bad device index

TEST(VulkanToDevice, OutOfRangeDeviceIndexIsAClearError) {
    BURN_REQUIRE_VULKAN();
    const std::size_t n = vulkan_devices().size();
    const VulkanDevice bad{99};
    const auto t = Tensor<VB, 2>::from_data(vk_random(Shape{2, 3}), VulkanDevice{});
    auto expect_clear = [&](auto&& f, const char* what) {
        SCOPED_TRACE(what);
        try {
            f();
            ADD_FAILURE() << "no error for device Vulkan(99)";
        } catch (const Error& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("Vulkan(99)"), std::string::npos) << m;
            EXPECT_NE(m.find(std::to_string(n) +
                             (n == 1 ? " Vulkan device exists" : " Vulkan devices exist")),
                      std::string::npos)
                << m;
            EXPECT_NE(m.find("valid indices 0.." + std::to_string(n - 1)), std::string::npos) << m;
        }
    };
    expect_clear([&] { (void)t.to_device(bad); }, "to_device");
    expect_clear([&] { (void)t.swap_dims(0, 1).to_device(bad); }, "to_device of a view");
    expect_clear(
        [&] {
            (void)Tensor<VB, 2, Int>::from_data(vk_random_ints(Shape{2, 2}, 0, 9, 1), bad);
        },
        "from_data");
    expect_clear(
        [&] {
            (void)Tensor<VB, 2, Bool>::from_data(vk_random_bools(Shape{2, 2}, 1), bad);
        },
        "from_data Bool");
    expect_clear([&] { (void)Tensor<VB, 2>::zeros(Shape{2, 2}, bad); }, "zeros");
    expect_clear([&] { (void)vulkan_device_info(bad); }, "vulkan_device_info");
    expect_clear([&] { VB::sync(bad); }, "sync");
    // The failure leaves the backend usable, and the source tensor intact.
    EXPECT_EQ(t.to_device(VulkanDevice{}).to_data(), t.to_data());
    expect_same((t * 2.0f), Tensor<CB, 2>::from_data(t.to_data()) * 2.0f);
}

// ---------------------------------------------------------------------------- Autodiff

TEST(VulkanToDevice, AutodiffGradientFlowsThroughToDevice) {
    BURN_REQUIRE_VULKAN();
    const VulkanDevice dev{};
    const auto data = vk_random(Shape{3, 4}, -1.0f, 1.0f, 31);
    const auto x = Tensor<AB, 2>::from_data(data, dev).require_grad();
    const auto grads = x.to_device(dev).sum().backward();
    const auto g = x.grad(grads);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->device(), dev);
    EXPECT_EQ(g->to_data(), (Tensor<CB, 2>::ones(Shape{3, 4}).to_data()));

    // Through a view and a computation on either side of the move.
    const auto y = Tensor<AB, 2>::from_data(data, dev).require_grad();
    const auto z = (y.swap_dims(0, 1) * 3.0f).to_device(dev).flip({0});
    const auto gy = y.grad((z * z).sum().backward());
    ASSERT_TRUE(gy.has_value());
    const auto c = Tensor<CB, 2>::from_data(data);
    expect_same(*gy, c * 18.0f);  // d/dy sum((3y)^2) = 18y
}

TEST(VulkanToDevice, AutodiffGradientFlowsBetweenTwoDevices) {
    BURN_REQUIRE_VULKAN();
    BURN_REQUIRE_TWO_VULKAN_DEVICES();
    const VulkanDevice d0{0}, d1{1};
    const auto data = vk_random(Shape{2, 5}, -1.0f, 1.0f, 32);
    const auto x = Tensor<AB, 2>::from_data(data, d0).require_grad();
    const auto grads = x.to_device(d1).sum().backward();
    const auto g = x.grad(grads);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->device(), d0);  // the gradient comes back to the leaf's device
    EXPECT_EQ(g->to_data(), (Tensor<CB, 2>::ones(Shape{2, 5}).to_data()));

    // d0 -> d1 -> d0 with work on d1: d/dx sum(2 * x^2) = 4x.
    const auto y = Tensor<AB, 2>::from_data(data, d0).require_grad();
    const auto on1 = y.to_device(d1);
    const auto back = (on1 * on1 * 2.0f).to_device(d0);
    const auto gy = y.grad(back.sum().backward());
    ASSERT_TRUE(gy.has_value());
    EXPECT_EQ(gy->device(), d0);
    expect_same(*gy, Tensor<CB, 2>::from_data(data) * 4.0f);
}

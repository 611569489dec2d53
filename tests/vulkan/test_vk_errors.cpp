// SPDX-License-Identifier: MIT OR Apache-2.0
// Device errors of the Vulkan backend (Context::error_buffer, device_error.glsl): what the CPU
// backend throws from inside its kernels (an index out of range, an integer division or
// remainder by zero) the Vulkan kernels report to a device error buffer; the next read (to_data,
// into_scalar, ...) throws burn::Error naming the op and the details, then the error is cleared.
#include <gtest/gtest.h>

#include <string>

#include "vk_support.hpp"

namespace {

using namespace burn;
using namespace burn::vktest;

template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const burn::Error& e) {
        return e.what();
    }
    return "(no error)";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

using I1 = Tensor<VB, 1, Int>;
using I2 = Tensor<VB, 2, Int>;
using F2 = Tensor<VB, 2>;

TEST(VkErrors, IntDivisionByZeroThrowsAtTheNextRead) {
    BURN_REQUIRE_VULKAN();
    auto a = I1::from_ints({4, -3, 0, 7});
    auto z = I1::from_ints({1, 0, 2, 3});
    auto q = a.div(z);  // asynchronous: no error yet
    const std::string msg = error_of([&] { (void)q.to_data(); });
    EXPECT_TRUE(has(msg, "Vulkan div: integer division by zero")) << msg;
    EXPECT_TRUE(has(msg, "reported at the next read")) << msg;
    // Cleared: later reads work, and a valid division gives the CPU backend's values.
    EXPECT_EQ(a.div(I1::from_ints({1, 1, 2, 3})).to_data(), (I1::from_ints({4, -3, 0, 2}).to_data()));
    const std::string rem = error_of([&] { (void)(a % z).to_data(); });
    EXPECT_TRUE(has(rem, "Vulkan remainder: integer remainder by zero")) << rem;
    EXPECT_NO_THROW((void)a.to_data());
    // Scalars are checked at the op.
    EXPECT_THROW((void)a.div_scalar(0), burn::Error);
}

TEST(VkErrors, GatherSelectEmbeddingIndexOutOfRange) {
    BURN_REQUIRE_VULKAN();
    const auto x = F2::from_floats({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}});
    std::string msg = error_of([&] { (void)x.gather(0, I2::full({1, 1}, 3)).to_data(); });
    EXPECT_TRUE(has(msg, "Vulkan gather: index 3 out of range for dimension 0 of size 3")) << msg;
    msg = error_of([&] { (void)x.gather(1, I2::full({1, 1}, -1)).to_data(); });
    EXPECT_TRUE(has(msg, "Vulkan gather: index -1 out of range for dimension 1 of size 4")) << msg;
    msg = error_of([&] { (void)x.select(1, I1::from_ints({0, 9})).to_data(); });
    EXPECT_TRUE(has(msg, "Vulkan select: index 9 out of range for dimension 1 of size 4")) << msg;
    msg = error_of([&] {
        (void)Tensor<VB, 3>(VB::embedding(x.primitive(), I2::from_ints({{0, 5}}).primitive())).to_data();
    });
    EXPECT_TRUE(has(msg, "Vulkan embedding: index 5 out of range for dimension 0 of size 3")) << msg;
    // The first error wins; then everything is clean again.
    auto g1 = x.gather(0, I2::full({1, 1}, 7));
    auto g2 = x.gather(0, I2::full({1, 1}, 8));
    msg = error_of([&] { (void)g2.to_data(); });
    EXPECT_TRUE(has(msg, "index 7")) << msg;
    EXPECT_NO_THROW((void)g1.to_data());
    EXPECT_EQ(x.gather(0, I2::from_ints({{2, 0, 1, 2}})).to_data(),
              (F2::from_floats({{9, 2, 7, 12}}).to_data()));
}

TEST(VkErrors, ScatterAndSelectAssignIndexOutOfRange) {
    BURN_REQUIRE_VULKAN();
    const auto x = F2::zeros({3, 4});
    const auto v = F2::ones({1, 4});
    std::string msg = error_of([&] { (void)x.scatter(0, I2::from_ints({{0, 1, 3, 2}}), v).to_data(); });
    EXPECT_TRUE(has(msg, "Vulkan scatter_add: index 3 out of range for dimension 0 of size 3")) << msg;
    msg = error_of([&] { (void)x.select_assign(0, I1::from_ints({-2}), v).to_data(); });
    EXPECT_TRUE(has(msg, "Vulkan select_add: index -2 out of range for dimension 0 of size 3")) << msg;
    EXPECT_EQ(x.scatter(0, I2::from_ints({{0, 1, 2, 2}}), v).sum().into_scalar(), 4.0f);
}

TEST(VkErrors, MaxPoolBackwardIndexOutsideItsPlane) {
    BURN_REQUIRE_VULKAN();
    const auto x = Tensor<VB, 4>::ones(Shape{1, 2, 4, 4});
    const MaxPoolOptions<2> o{{2, 2}, {2, 2}, {0, 0}, {1, 1}, false};
    const auto g = Tensor<VB, 4>::ones(Shape{1, 2, 2, 2});
    const auto bad = Tensor<VB, 4, Int>::full(Shape{1, 2, 2, 2}, 16);
    const std::string msg = error_of([&] {
        (void)Tensor<VB, 4>(VB::max_pool2d_with_indices_backward(x.primitive(), o, g.primitive(),
                                                                 bad.primitive()))
            .to_data();
    });
    EXPECT_TRUE(has(msg, "Vulkan max_pool_backward: index 16 is outside its plane of 16 elements")) << msg;
    EXPECT_NO_THROW((void)x.to_data());
}

}  // namespace

// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan activations against the CPU backend on the same data: relu, gelu (erf form), sigmoid,
// log_sigmoid, hard_sigmoid, leaky_relu, their gradients, softmax / log_softmax along every dim
// (rows shorter and longer than a workgroup, NaN rows, strided inputs); errors.
#include "vk_ew_support.hpp"

using namespace burn;
using namespace burn::vktest;

namespace {

std::vector<float> act_values() {
    return values_with(200, -8.0f, 8.0f, 11,
                       {kNaN,   kInf, -kInf, 0.0f,  -0.0f,  100.0f, -100.0f, 20.0f, -20.0f, 1e-6f,
                        -1e-6f, 3.0f, -3.0f, 0.25f, -0.25f, 1.0f,   -1.0f,   2.5f,  -2.5f,  40.0f});
}

template <class T>
T act(T x, int which) {
    switch (which) {
        case 0: return activation::relu(x);
        case 1: return activation::gelu(x);
        case 2: return activation::sigmoid(x);
        case 3: return activation::log_sigmoid(x);
        case 4: return activation::hard_sigmoid(x, 0.2, 0.5);
        default: return activation::leaky_relu(x, 0.01);
    }
}

}  // namespace

TEST(VulkanActivation, Forward) {
    BURN_REQUIRE_VULKAN();
    const auto v = act_values();  // 220 values
    for (int which = 0; which < 6; ++which) {
        SCOPED_TRACE(which);
        auto [a, ac] = both<2>(TensorData(v, Shape{11, 20}));
        expect_same(act(a, which), act(ac, which), Tolerance{2e-6, 1e-5});
        auto [t, tc] = transposed(v, 11, 20);
        expect_same(act(t, which), act(tc, which), Tolerance{2e-6, 1e-5});
    }
}

TEST(VulkanActivation, Backward) {
    BURN_REQUIRE_VULKAN();
    const auto v = act_values();
    auto [x, xc] = both<2>(TensorData(v, Shape{11, 20}));
    auto [g, gc] = transposed(values_with(220, -2.0f, 2.0f, 12), 11, 20);  // a strided gradient
    auto check = [&](auto vkop, auto cpuop, const char* what) {
        SCOPED_TRACE(what);
        expect_same(Tensor<VB, 2>(vkop(x.primitive(), g.primitive())),
                    Tensor<CB, 2>(cpuop(xc.primitive(), gc.primitive())), Tolerance{2e-6, 1e-5});
    };
    // Relu and sigmoid take the forward's output; use relu(x), sigmoid(x) as the saved tensors.
    const auto rx = activation::relu(x);
    const auto rxc = activation::relu(xc);
    const auto sx = activation::sigmoid(x);
    const auto sxc = activation::sigmoid(xc);
    expect_same(Tensor<VB, 2>(VB::relu_backward(rx.primitive(), g.primitive())),
                Tensor<CB, 2>(CB::relu_backward(rxc.primitive(), gc.primitive())));
    expect_same(Tensor<VB, 2>(VB::sigmoid_backward(sx.primitive(), g.primitive())),
                Tensor<CB, 2>(CB::sigmoid_backward(sxc.primitive(), gc.primitive())),
                Tolerance{2e-6, 1e-5});
    check([](auto a, auto b) { return VB::gelu_backward(a, b); },
          [](auto a, auto b) { return CB::gelu_backward(a, b); }, "gelu");
    check([](auto a, auto b) { return VB::log_sigmoid_backward(a, b); },
          [](auto a, auto b) { return CB::log_sigmoid_backward(a, b); }, "log_sigmoid");
}

TEST(VulkanActivation, Softmax) {
    BURN_REQUIRE_VULKAN();
    for (const Shape& shape :
         {Shape{4, 37, 300}, Shape{3, 600, 2}, Shape{1, 1, 1}, Shape{2, 256, 5}}) {
        const auto data = vk_random(shape, -10.0f, 10.0f, 13);
        auto [x, xc] = both<3>(data);
        for (std::int64_t dim = 0; dim < 3; ++dim) {
            SCOPED_TRACE(dim);
            expect_same(activation::softmax(x, dim), activation::softmax(xc, dim),
                        Tolerance{1e-6, 1e-5});
            expect_same(activation::log_softmax(x, dim), activation::log_softmax(xc, dim),
                        Tolerance{1e-5, 1e-5});
        }
    }
    // More rows than one grid dimension holds (65535 workgroups): the rows span {x, y}.
    {
        auto [r, rc] = both<2>(vk_random(Shape{70000, 4}, -3.0f, 3.0f, 16));
        expect_same(activation::softmax(r, 1), activation::softmax(rc, 1), Tolerance{1e-6, 1e-5});
    }
    // Large logits (max subtraction), a NaN row, an all -inf row, a strided input.
    auto v = values_with(60, -80.0f, 80.0f, 14);
    v[7] = kNaN;
    for (std::size_t j = 40; j < 50; ++j) v[j] = -kInf;
    auto [x, xc] = both<2>(TensorData(v, Shape{6, 10}));
    for (std::int64_t dim = 0; dim < 2; ++dim) {
        expect_same(activation::softmax(x, dim), activation::softmax(xc, dim),
                    Tolerance{1e-6, 1e-5});
        expect_same(activation::log_softmax(x, dim), activation::log_softmax(xc, dim),
                    Tolerance{1e-5, 1e-5});
    }
    auto [t, tc] = transposed(values_with(300 * 7, -5.0f, 5.0f, 15), 300, 7);
    for (std::int64_t dim = 0; dim < 2; ++dim) {
        expect_same(activation::softmax(t, dim), activation::softmax(tc, dim),
                    Tolerance{1e-6, 1e-5});
        expect_same(activation::log_softmax(t, dim), activation::log_softmax(tc, dim),
                    Tolerance{1e-5, 1e-5});
    }
}

TEST(VulkanActivation, Errors) {
    BURN_REQUIRE_VULKAN();
    // An invalid dim is the Tensor layer's error, the same on both backends (the kernels'
    // dtype and shape requirements are not expressible through the Tensor API).
    auto [x, xc] = both<2>(vk_random(Shape{2, 3}));
    expect_same_error(
        x, xc, [](auto t) { return activation::softmax(t, 2); },
        "softmax: dim 2 is out of range for a tensor of rank 2");
    expect_same_error(
        x, xc, [](auto t) { return activation::log_softmax(t, -3); },
        "log_softmax: dim -3 is out of range for a tensor of rank 2");
}

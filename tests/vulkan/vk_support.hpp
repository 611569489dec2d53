// SPDX-License-Identifier: MIT OR Apache-2.0
// Helpers of the Vulkan op tests: the same values on Vulkan<> and Cpu<float, int32> (the
// reference), and views of several layouts, so that every op is checked on strided inputs.
// Built with BURN_GPU_TEST_CUDA, the GPU backend under test (VB) is Cuda<> instead (the CUDA
// instance of the cross-backend random programs, burn_cuda_random_program); with
// BURN_GPU_TEST_FUSION it is Fusion<Cpu<float, int32>> (burn_fusion_random_program), with both
// Fusion<Cuda<>> (burn_cuda_fusion_random_program), and with BURN_GPU_TEST_FUSION and
// BURN_GPU_TEST_VULKAN Fusion<Vulkan<>> (burn_vk_fusion_random_program).
#pragma once

#include <gtest/gtest.h>

#include <burn/backend/cpu.hpp>
#ifdef BURN_GPU_TEST_CUDA
#include <burn/backend/cuda.hpp>
#endif
#ifdef BURN_GPU_TEST_FUSION
#include <burn/fusion/fusion.hpp>
#endif
#if defined(BURN_GPU_TEST_VULKAN) || \
    (!defined(BURN_GPU_TEST_CUDA) && !defined(BURN_GPU_TEST_FUSION))
#include <burn/backend/vulkan.hpp>
#endif
#include <burn/burn.hpp>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace burn::vktest {

#if defined(BURN_GPU_TEST_CUDA) && defined(BURN_GPU_TEST_FUSION)
using VB = Fusion<Cuda<>>;
inline constexpr const char* kGpuName = "cuda-fusion";
inline constexpr const char* kGpuSuiteName = "CudaFusion";
#elif defined(BURN_GPU_TEST_CUDA)
using VB = Cuda<>;
/// The GPU backend's name in messages, and the test executable's.
inline constexpr const char* kGpuName = "cuda";
inline constexpr const char* kGpuSuiteName = "Cuda";
#elif defined(BURN_GPU_TEST_VULKAN) && defined(BURN_GPU_TEST_FUSION)
using VB = Fusion<Vulkan<>>;
inline constexpr const char* kGpuName = "vulkan-fusion";
inline constexpr const char* kGpuSuiteName = "VulkanFusion";
#elif defined(BURN_GPU_TEST_FUSION)
using VB = Fusion<Cpu<float, std::int32_t>>;
inline constexpr const char* kGpuName = "fusion";
inline constexpr const char* kGpuSuiteName = "Fusion";
#else
using VB = Vulkan<>;
inline constexpr const char* kGpuName = "vulkan";
inline constexpr const char* kGpuSuiteName = "Vulkan";
#endif
using CB = Cpu<float, std::int32_t>;

/// Views of a primitive through the kit's host view algebra (burn/backend/layout.hpp).
template <class T>
T view_permute(T t, std::span<const std::size_t> axes) {
    backend::view::permute(t, axes);
    return t;
}
template <class T>
T view_swap_dims(T t, std::size_t a, std::size_t b) {
    backend::view::swap_dims(t, a, b);
    return t;
}
template <class T>
T view_flip(T t, std::span<const std::size_t> axes) {
    backend::view::flip(t, axes);
    return t;
}
template <class T>
T view_expand(T t, const Shape& shape) {
    backend::view::expand(t, shape);
    return t;
}
template <class T>
T view_slice(T t, std::span<const SliceRange> ranges) {
    backend::view::slice(t, ranges);
    return t;
}

/// Skips the test when there is no device of the GPU backend under test (CI without lavapipe, or
/// without a CUDA GPU), with the reason.
#if defined(BURN_GPU_TEST_FUSION) && !defined(BURN_GPU_TEST_CUDA) && !defined(BURN_GPU_TEST_VULKAN)
#define BURN_REQUIRE_VULKAN() \
    do {                      \
    } while (0)
#elif defined(BURN_GPU_TEST_CUDA)
#define BURN_REQUIRE_VULKAN()                                                                    \
    do {                                                                                         \
        if (::burn::cuda_device_count() == 0) GTEST_SKIP() << ::burn::cuda_unavailable_reason(); \
    } while (0)
#else
#define BURN_REQUIRE_VULKAN()                                                     \
    do {                                                                          \
        if (::burn::vulkan_devices().empty()) GTEST_SKIP() << "no Vulkan device"; \
    } while (0)
#endif

/// The same data on both backends.
template <std::size_t D, class K = Float>
std::pair<Tensor<VB, D, K>, Tensor<CB, D, K>> both(const TensorData& data) {
    return {Tensor<VB, D, K>::from_data(data), Tensor<CB, D, K>::from_data(data)};
}

/// Uniform floats in [lo, hi) of a shape, seeded.
inline TensorData vk_random(const Shape& shape, float lo = -1.0f, float hi = 1.0f,
                            std::uint64_t seed = 1) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(shape.num_elements());
    for (auto& x : v) x = u(rng);
    return TensorData(std::move(v), shape);
}

/// Uniform int32 values in [lo, hi] of a shape, seeded.
inline TensorData vk_random_ints(const Shape& shape, std::int32_t lo, std::int32_t hi,
                                 std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int32_t> u(lo, hi);
    std::vector<std::int32_t> v(shape.num_elements());
    for (auto& x : v) x = u(rng);
    return TensorData(std::move(v), shape);
}

/// Random bools of a shape, seeded.
inline TensorData vk_random_bools(const Shape& shape, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> v(shape.num_elements());
    for (auto& x : v) x = static_cast<std::uint8_t>(rng() & 1);
    return TensorData(std::move(v), shape, DType::Bool);
}

/// Expects the Vulkan result to equal the CPU one (values within `tol`, same shape and dtype).
template <std::size_t D, class K>
void expect_same(const Tensor<VB, D, K>& vk, const Tensor<CB, D, K>& cpu,
                 Tolerance tol = Tolerance{1e-5, 1e-5}) {
    const TensorData a = vk.to_data(), b = cpu.to_data();
    ASSERT_EQ(a.shape, b.shape);
    ASSERT_EQ(a.dtype, b.dtype);
    a.assert_approx_eq(b, tol);
}

/// Calls `f` with the Vulkan tensor `v` and with the CPU tensor `c`: both calls throw the same
/// burn::Error, containing `needle`. Invalid arguments are the Tensor layer's errors, raised
/// before any kernel runs, so they do not depend on the backend.
template <class TV, class TC, class F>
void expect_same_error(const TV& v, const TC& c, F&& f, std::string_view needle) {
    auto message = [&](const auto& t) -> std::string {
        try {
            (void)f(t);
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    };
    const std::string on_vulkan = message(v), on_cpu = message(c);
    EXPECT_NE(on_vulkan.find(needle), std::string::npos) << on_vulkan;
    EXPECT_EQ(on_vulkan, on_cpu);
}

}  // namespace burn::vktest

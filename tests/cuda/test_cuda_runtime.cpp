// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's runtime: the allocator's size classes (host only), the error without a GPU
// (runs in CI), and on a GPU: steady-state reuse of the caching allocator, its statistics and
// empty_cache, uploads through pinned staging, kernel-side errors reported at the next read,
// devices, TF32 switch.
#include <gtest/gtest.h>

#include <burn/backend/cuda.hpp>
#include <burn/burn.hpp>
#include <string>

#include "runtime.hpp"

namespace {

using B = burn::Cuda<>;

#define BURN_REQUIRE_CUDA()                                                                    \
    do {                                                                                       \
        if (::burn::cuda_device_count() == 0) GTEST_SKIP() << burn::cuda_unavailable_reason(); \
    } while (0)

TEST(CudaAllocator, SizeClassesBoundTheWaste) {
    using burn::cuda::Allocator;
    EXPECT_EQ(Allocator::size_class(1), 512u);
    EXPECT_EQ(Allocator::size_class(512), 512u);
    EXPECT_EQ(Allocator::size_class(513), 1024u);
    EXPECT_EQ(Allocator::size_class(4096), 4096u);
    for (std::size_t bytes : {4097ul, 5000ul, 65537ul, 1000000ul, 123456789ul}) {
        const std::size_t c = Allocator::size_class(bytes);
        EXPECT_GE(c, bytes);
        EXPECT_LE(c, bytes + bytes / 4) << bytes;
        EXPECT_EQ(Allocator::size_class(c), c) << "a class is its own class";
    }
}

TEST(CudaNoDevice, CreatingATensorThrowsWithTheReason) {
    if (burn::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
    EXPECT_FALSE(burn::cuda_unavailable_reason().empty());
    try {
        auto t = burn::Tensor<B, 1>::zeros({4});
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("Cuda"), std::string::npos) << msg;
        EXPECT_NE(msg.find("unavailable"), std::string::npos) << msg;
    }
    EXPECT_THROW((void)burn::cuda_device_info(burn::CudaDevice{0}), burn::Error);
}

TEST(CudaRuntime, DeviceInfoAndMissingDevice) {
    BURN_REQUIRE_CUDA();
    const auto info = burn::cuda_device_info(burn::CudaDevice{0});
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.multiprocessors, 0u);
    try {
        (void)burn::cuda_device_info(burn::CudaDevice{burn::cuda_device_count()});
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA device(s)"), std::string::npos) << e.what();
    }
}

TEST(CudaRuntime, AllocatorReusesBlocksInSteadyState) {
    BURN_REQUIRE_CUDA();
    const burn::CudaDevice dev{0};
    auto step = [&] {
        auto a = burn::Tensor<B, 2>::ones({256, 256}, dev);
        auto b = (a * 2.0f + 1.0f).exp();
        return b.sum().into_scalar();
    };
    (void)step();
    const auto before = burn::cuda_memory_stats(dev);
    for (int i = 0; i < 20; ++i) (void)step();
    const auto after = burn::cuda_memory_stats(dev);
    EXPECT_EQ(after.device_allocations, before.device_allocations)
        << "steady state must not call cudaMalloc";
    EXPECT_GE(after.peak_allocated, 256u * 256u * 4u);
    EXPECT_GE(after.reserved, after.allocated);
    burn::cuda_empty_cache(dev);
    const auto emptied = burn::cuda_memory_stats(dev);
    EXPECT_EQ(emptied.reserved, emptied.allocated);
    EXPECT_GT(emptied.device_frees, after.device_frees);
    burn::cuda_reset_peak_memory_stats(dev);
    EXPECT_EQ(burn::cuda_memory_stats(dev).peak_allocated, emptied.allocated);
}

TEST(CudaRuntime, UploadsThroughPinnedStagingKeepTheirValues) {
    BURN_REQUIRE_CUDA();
    const burn::CudaDevice dev{0};
    // A large upload crosses several 8 MiB staging chunks (and a partial last one); the host
    // buffer is overwritten at once after each upload, while the copies may still be queued
    // behind other work on the stream.
    const std::size_t big = (std::size_t(8) << 20) / 4 * 2 + 12345;
    std::vector<float> host(big);
    for (std::size_t i = 0; i < big; ++i) host[i] = float(i % 1000003);
    auto busy = burn::Tensor<B, 2>::ones({2048, 2048}, dev);
    for (int i = 0; i < 4; ++i) busy = busy.matmul(busy) * 1e-3f;  // queued work
    auto t = burn::Tensor<B, 1>::from_data(burn::TensorData(host, {big}), dev);
    std::vector<burn::Tensor<B, 1>> small;
    std::vector<float> one(1000);
    for (int k = 0; k < 300; ++k) {  // more uploads than staging blocks in flight
        for (std::size_t i = 0; i < one.size(); ++i) one[i] = float(k * 1000 + int(i));
        small.push_back(burn::Tensor<B, 1>::from_data(burn::TensorData(one, {one.size()}), dev));
        one.assign(one.size(), -1.0f);
    }
    EXPECT_EQ(t.into_data().to_vec<float>(), host);
    for (int k = 0; k < 300; ++k) {
        const auto v = small[std::size_t(k)].into_data().to_vec<float>();
        ASSERT_EQ(v.size(), 1000u);
        for (std::size_t i = 0; i < v.size(); ++i)
            ASSERT_EQ(v[i], float(k * 1000 + int(i))) << "upload " << k << " element " << i;
    }
}

TEST(CudaRuntime, KernelErrorsAreReportedAtTheNextRead) {
    BURN_REQUIRE_CUDA();
    auto t = burn::Tensor<B, 1>::from_data(burn::TensorData(std::vector<float>{1, 2, 3}, {3}));
    auto idx = burn::Tensor<B, 1, burn::Int>::from_data(
        burn::TensorData(std::vector<std::int32_t>{0, 7}, {2}));
    auto g = t.gather(0, idx);  // queued: the bad index is found on the device
    try {
        (void)g.into_data();
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("Cuda"), std::string::npos) << msg;
        EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
    }
    // The error is reported once; the device works on.
    auto ok = (t + 1.0f).into_data().to_vec<float>();
    EXPECT_EQ(ok, (std::vector<float>{2, 3, 4}));
    auto zero = burn::Tensor<B, 1, burn::Int>::from_data(
        burn::TensorData(std::vector<std::int32_t>{1, 0}, {2}));
    auto num = burn::Tensor<B, 1, burn::Int>::from_data(
        burn::TensorData(std::vector<std::int32_t>{4, 4}, {2}));
    EXPECT_THROW((void)(num / zero).into_data(), burn::Error);
}

TEST(CudaRuntime, Tf32SwitchIsOffByDefault) {
    EXPECT_FALSE(burn::cuda_allow_tf32());
    burn::set_cuda_allow_tf32(true);
    EXPECT_TRUE(burn::cuda_allow_tf32());
    burn::set_cuda_allow_tf32(false);
}

TEST(CudaRuntime, ProgramsCompileOnTheDevice) {
    BURN_REQUIRE_CUDA();
    auto& ctx = burn::cuda::context(burn::CudaDevice{0});
    for (const auto& p : burn::cuda::program_names())
        EXPECT_NO_THROW((void)burn::cuda::compile_program(p, ctx.arch())) << p;
}

}  // namespace

// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's runtime: the allocator's size classes (host only), the error without a GPU
// (runs in CI), and on a GPU: steady-state reuse of the caching allocator, its statistics and
// empty_cache, uploads through pinned staging, kernel-side errors reported at the next read,
// devices, TF32 switch.
#include <gtest/gtest.h>

#include <algorithm>
#include <burn/backend/cuda.hpp>
#include <burn/burn.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "runtime.hpp"

namespace {

using B = burn::Cuda<>;

#define BURN_REQUIRE_CUDA()                                                                    \
    do {                                                                                       \
        if (::burn::cuda_device_count() == 0) GTEST_SKIP() << burn::cuda_unavailable_reason(); \
    } while (0)

/// A BlockPool over host memory (its bookkeeping needs no GPU): the segments it asked for.
struct HostSegments {
    std::vector<std::pair<void*, std::size_t>> live;
    std::size_t grows = 0, shrinks = 0;
    std::size_t limit = std::size_t(1) << 40;  // bytes grow may hand out in all
    std::size_t total = 0;
    burn::cuda::BlockPool pool() {
        return burn::cuda::BlockPool(
            [this](std::size_t bytes) -> void* {
                if (total + bytes > limit) return nullptr;
                void* p = std::malloc(bytes);
                live.emplace_back(p, bytes);
                total += bytes;
                ++grows;
                return p;
            },
            [this](void* p) {
                for (auto it = live.begin(); it != live.end(); ++it)
                    if (it->first == p) {
                        total -= it->second;
                        live.erase(it);
                        break;
                    }
                std::free(p);
                ++shrinks;
            });
    }
    ~HostSegments() {
        for (auto& [p, n] : live) std::free(p);
    }
};

TEST(CudaAllocator, SmallBlocksShareSegments) {
    using burn::cuda::BlockPool;
    HostSegments host;
    auto pool = host.pool();
    std::size_t got = 0;
    std::vector<void*> blocks;
    for (int i = 0; i < 100; ++i) {
        blocks.push_back(pool.allocate(1000 + 37 * i, &got));
        EXPECT_EQ(got % 512, 0u);
        EXPECT_GE(got, 1000u + 37 * i);
        EXPECT_LT(got, 1000u + 37 * i + 512);
    }
    EXPECT_EQ(host.grows, 1u) << "100 small blocks fit one 2 MiB segment";
    EXPECT_EQ(pool.reserved(), BlockPool::kSmallSegment);
    // Distinct, non-overlapping blocks.
    std::vector<char*> sorted;
    for (void* b : blocks) sorted.push_back(static_cast<char*>(b));
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 1; i < sorted.size(); ++i) EXPECT_GE(sorted[i] - sorted[i - 1], 1000);
    for (void* b : blocks) pool.release(b);
    EXPECT_EQ(pool.allocated(), 0u);
    // Everything merged back into one free block: a request of the whole segment fits it.
    void* whole = pool.allocate(BlockPool::kSmall, &got);
    EXPECT_EQ(host.grows, 1u);
    pool.release(whole);
    EXPECT_EQ(pool.release_cached(), BlockPool::kSmallSegment);
    EXPECT_EQ(pool.reserved(), 0u);
    EXPECT_EQ(host.shrinks, 1u);
}

TEST(CudaAllocator, LargeBlocksSplitBestFitAndMerge) {
    using burn::cuda::BlockPool;
    constexpr std::size_t MiB = std::size_t(1) << 20;
    HostSegments host;
    auto pool = host.pool();
    std::size_t got = 0;
    // 3 MiB from a new 20 MiB segment; the 17 MiB left over is a free block.
    void* a = pool.allocate(3 * MiB, &got);
    EXPECT_EQ(got, 3 * MiB);
    EXPECT_EQ(pool.reserved(), BlockPool::kMidSegment);
    void* b = pool.allocate(5 * MiB, &got);
    void* c = pool.allocate(4 * MiB + 100, &got);
    EXPECT_EQ(got, 4 * MiB + 512);
    EXPECT_EQ(host.grows, 1u) << "split from the first segment";
    EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), std::ptrdiff_t(3 * MiB));
    // A remainder of at most 1 MiB stays with the block instead of becoming one.
    void* d = pool.allocate(7 * MiB + MiB / 2, &got);
    EXPECT_EQ(host.grows, 1u);
    EXPECT_EQ(got, BlockPool::kMidSegment - 12 * MiB - 512) << "the rest of the segment";
    // Freed neighbours merge: a, b free -> one 8 MiB block that a 7 MiB request reuses.
    pool.release(a);
    pool.release(b);
    void* e = pool.allocate(7 * MiB, &got);
    EXPECT_EQ(e, a);
    EXPECT_EQ(host.grows, 1u);
    pool.release(c);  // free between e and d, which are in use
    void* f = pool.allocate(4 * MiB, &got);
    EXPECT_EQ(f, c);
    // Large requests get their own segment, rounded to 2 MiB; empty_cache frees only segments
    // with nothing in use.
    void* g = pool.allocate(33 * MiB, &got);
    EXPECT_EQ(got, 34 * MiB);
    EXPECT_EQ(pool.reserved(), BlockPool::kMidSegment + 34 * MiB);
    pool.release(g);
    EXPECT_EQ(pool.release_cached(), 34 * MiB);
    for (void* p : {d, e, f}) pool.release(p);
    EXPECT_EQ(pool.allocated(), 0u);
    EXPECT_EQ(pool.release_cached(), BlockPool::kMidSegment);
    EXPECT_EQ(host.live.size(), 0u);
}

TEST(CudaAllocator, TheSmallestFreeBlockThatFits) {
    using burn::cuda::BlockPool;
    constexpr std::size_t MiB = std::size_t(1) << 20;
    HostSegments host;
    auto pool = host.pool();
    std::size_t got = 0;
    void* x1 = pool.allocate(2 * MiB, &got);
    void* s1 = pool.allocate(2 * MiB, &got);
    void* x2 = pool.allocate(4 * MiB, &got);
    void* s2 = pool.allocate(2 * MiB, &got);
    pool.release(x1);
    pool.release(x2);  // free: 2 MiB, 4 MiB, and the segment's last 10 MiB
    EXPECT_EQ(pool.allocate(MiB + MiB / 2, &got), x1);
    EXPECT_EQ(got, 2 * MiB) << "half a MiB left over is not worth a block";
    EXPECT_EQ(pool.allocate(3 * MiB, &got), x2);
    EXPECT_EQ(host.grows, 1u);
    (void)s1;
    (void)s2;
}

TEST(CudaAllocator, ReportsExhaustionAndKeepsGoing) {
    using burn::cuda::BlockPool;
    constexpr std::size_t MiB = std::size_t(1) << 20;
    HostSegments host;
    host.limit = 40 * MiB;
    auto pool = host.pool();
    std::size_t got = 0;
    void* a = pool.allocate(30 * MiB, &got);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(pool.allocate(20 * MiB, &got), nullptr) << "grow failed: no block";
    EXPECT_EQ(pool.allocated(), 30 * MiB);
    pool.release(a);
    EXPECT_EQ(pool.release_cached(), 30 * MiB);
    EXPECT_NE(pool.allocate(20 * MiB, &got), nullptr);
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
    EXPECT_GE(emptied.reserved, emptied.allocated);
    EXPECT_LT(emptied.reserved, after.reserved) << "segments with nothing in use are freed";
    EXPECT_GT(emptied.device_frees, after.device_frees);
    burn::cuda_reset_peak_memory_stats(dev);
    EXPECT_EQ(burn::cuda_memory_stats(dev).peak_allocated, emptied.allocated);
}

TEST(CudaRuntime, VariedSizesReuseSplitBlocks) {
    // Tensors of 300 different sizes (2 KiB to 24 MiB), eight alive at a time: the blocks are
    // carved out of cached segments, so the memory reserved stays a small multiple of the peak in
    // use and cudaMalloc is called far fewer times than there are sizes.
    BURN_REQUIRE_CUDA();
    const burn::CudaDevice dev{0};
    burn::cuda_sync(dev);
    burn::cuda_empty_cache(dev);
    burn::cuda_reset_peak_memory_stats(dev);
    const auto before = burn::cuda_memory_stats(dev);
    std::vector<burn::Tensor<B, 1>> alive;
    std::uint64_t s = 12345;
    for (int i = 0; i < 300; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const std::size_t n = 512 + (s >> 33) % (6u << 20);  // floats
        alive.push_back(burn::Tensor<B, 1>::ones({n}, dev));
        if (alive.size() > 8) alive.erase(alive.begin());
    }
    const float total = alive.back().sum().into_scalar();
    EXPECT_EQ(total, static_cast<float>(alive.back().dims()[0]));
    const auto after = burn::cuda_memory_stats(dev);
    const std::size_t peak = after.peak_allocated - before.allocated;
    const std::size_t reserved = after.peak_reserved - before.reserved;
    const std::size_t mallocs = after.device_allocations - before.device_allocations;
    std::cout << "peak in use " << (peak >> 20) << " MiB, peak reserved " << (reserved >> 20)
              << " MiB, cudaMalloc calls " << mallocs << "\n";
    EXPECT_LE(reserved, 2 * peak + (std::size_t(40) << 20));
    EXPECT_LT(mallocs, 60u);
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

// SPDX-License-Identifier: MIT OR Apache-2.0
// The Vulkan backend's foundation: devices, shared contexts, the memory pool, uploads and reads,
// pipelines (embedded and run-time shaders) and batched dispatches. Runs on lavapipe in CI
// (VK_ICD_FILENAMES is set by tests/CMakeLists.txt); every test skips when there is no device.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>

#include "burn/backend/vulkan.hpp"
#include "burn/burn.hpp"
#include "runtime.hpp"

namespace {

using burn::VulkanDevice;
using burn::vk::Buffer;
using burn::vk::Context;

class Vulkan : public ::testing::Test {
protected:
    void SetUp() override {
        if (burn::vulkan_devices().empty()) GTEST_SKIP() << "no Vulkan device on this machine";
        ctx = Context::get(VulkanDevice{});
    }
    std::shared_ptr<Context> ctx;
};

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    std::mt19937 rng(seed);
    for (auto& b : v) b = static_cast<std::byte>(rng() & 0xff);
    return v;
}

std::vector<float> as_floats(const std::vector<std::byte>& bytes) {
    std::vector<float> f(bytes.size() / sizeof(float));
    std::memcpy(f.data(), bytes.data(), f.size() * sizeof(float));
    return f;
}

Buffer upload_floats(Context& ctx, const std::vector<float>& v) {
    return ctx.upload(std::as_bytes(std::span<const float>(v)));
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// Two test kernels, compiled at run time (shaderc), exercise the runtime on their own: fill and
// add of floats. Specialization constant 0 is the workgroup size; large grids span y (grid_1d).
constexpr const char* kFillSource = R"(#version 450
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) writeonly buffer Out { float out_[]; };
layout(push_constant) uniform P { uint n; float value; } pc;
void main() {
    const uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                   gl_GlobalInvocationID.x;
    if (i < pc.n) out_[i] = pc.value;
})";
constexpr const char* kAddSource = R"(#version 450
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    const uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                   gl_GlobalInvocationID.x;
    if (i < pc.n) c[i] = a[i] + b[i];
})";

const std::vector<std::uint32_t>& fill_spirv() {
    static const auto words = burn::vk::compile_glsl(kFillSource, "test_fill.comp");
    return words;
}
const std::vector<std::uint32_t>& add_spirv() {
    static const auto words = burn::vk::compile_glsl(kAddSource, "test_add.comp");
    return words;
}

const burn::vk::Pipeline& fill_pipeline(Context& ctx, std::uint32_t workgroup = 256) {
    return ctx.pipeline({.shader = "test/fill",
                         .spec = {workgroup},
                         .bindings = 1,
                         .push_bytes = 8,
                         .spirv = fill_spirv()});
}
const burn::vk::Pipeline& add_pipeline(Context& ctx, std::uint32_t workgroup = 256) {
    return ctx.pipeline({.shader = "test/add",
                         .spec = {workgroup},
                         .bindings = 3,
                         .push_bytes = 4,
                         .spirv = add_spirv()});
}

/// out[0, n) = value.
void fill(Context& ctx, const Buffer& out, std::size_t n, float value) {
    struct {
        std::uint32_t n;
        float value;
    } push{static_cast<std::uint32_t>(n), value};
    ctx.dispatch(fill_pipeline(ctx), {&out}, push, burn::vk::grid_1d(n, 256, ctx.features()));
}

/// c[0, n) = a + b (c may be a or b).
void add_f32(Context& ctx, const Buffer& a, const Buffer& b, const Buffer& c, std::size_t n,
             std::uint32_t workgroup = 256) {
    const auto push = static_cast<std::uint32_t>(n);
    ctx.dispatch(add_pipeline(ctx, workgroup), {&a, &b, &c}, push,
                 burn::vk::grid_1d(n, workgroup, ctx.features()));
}

// ------------------------------------------------------------------------------ devices

TEST_F(Vulkan, ListsDevicesInOrderWithFeatures) {
    const auto& devices = burn::vulkan_devices();
    ASSERT_FALSE(devices.empty());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        EXPECT_EQ(devices[i].index, i);
        EXPECT_FALSE(devices[i].name.empty());
        if (i > 0)
            EXPECT_LE(static_cast<int>(devices[i - 1].type), static_cast<int>(devices[i].type));
    }
    const auto& d = devices[0];
    EXPECT_GE(d.api_major * 10 + d.api_minor, 12u);
    EXPECT_GT(d.features.max_workgroup_size[0], 0u);
    EXPECT_GT(d.features.max_workgroup_invocations, 0u);
    EXPECT_GT(d.features.max_workgroup_count[0], 0u);
    EXPECT_GE(d.features.max_push_constant_bytes, 128u);
    EXPECT_GT(d.features.max_storage_buffer_range, 0u);
    EXPECT_EQ(d.int_dtype(), d.features.shader_int64 ? burn::DType::I64 : burn::DType::I32);
    std::ostringstream os;
    os << d;
    EXPECT_TRUE(contains(os.str(), "Vulkan(0)")) << os.str();
    EXPECT_EQ(VulkanDevice{}.to_string(), "Vulkan(0)");
    EXPECT_EQ(&burn::vulkan_device_info(VulkanDevice{0}), &devices[0]);
}

TEST_F(Vulkan, LavapipeIsACpuDevice) {
    const char* icd = std::getenv("VK_ICD_FILENAMES");
    if (icd == nullptr || !contains(icd, "lvp_icd")) GTEST_SKIP() << "not forced to lavapipe";
    const auto& d = burn::vulkan_devices().at(0);
    EXPECT_EQ(d.type, burn::VulkanDeviceType::Cpu);
    EXPECT_TRUE(contains(d.name, "llvmpipe")) << d.name;
    EXPECT_EQ(ctx->info().name, d.name);
}

TEST_F(Vulkan, ContextIsSharedPerDevice) {
    auto again = Context::get(VulkanDevice{0});
    EXPECT_EQ(again.get(), ctx.get());
    std::shared_ptr<Context> from_thread;
    std::thread t([&] { from_thread = Context::get(VulkanDevice{}); });
    t.join();
    EXPECT_EQ(from_thread.get(), ctx.get());
}

TEST_F(Vulkan, InvalidDeviceIndexNamesIndexAndCount) {
    const std::size_t n = burn::vulkan_devices().size();
    const std::size_t bad = n + 6;
    try {
        Context::get(VulkanDevice{bad});
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        const std::string msg = e.what();
        EXPECT_TRUE(contains(msg, "Vulkan(" + std::to_string(bad) + ")")) << msg;
        EXPECT_TRUE(contains(msg, std::to_string(n) + " Vulkan device")) << msg;
    }
    EXPECT_THROW(burn::vulkan_device_info(VulkanDevice{bad}), burn::Error);
    // A failed request leaves the registry usable.
    EXPECT_EQ(Context::get(VulkanDevice{}).get(), ctx.get());
}

TEST(VulkanErrors, ResultFailureNamesCallAndResult) {
    try {
        burn::vk::check(VK_ERROR_DEVICE_LOST, "vkQueueSubmit");
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        EXPECT_STREQ(e.what(), "Vulkan: vkQueueSubmit failed: VK_ERROR_DEVICE_LOST (-4)");
    }
    EXPECT_NO_THROW(burn::vk::check(VK_SUCCESS, "vkQueueSubmit"));
}

// Run by the ctest entry vulkan_no_device, with VK_ICD_FILENAMES pointing at no driver.
TEST(VulkanNoDevice, ReportsAClearError) {
    const char* expect = std::getenv("BURN_VULKAN_EXPECT_NO_DEVICE");
    if (expect == nullptr || std::string(expect) != "1")
        GTEST_SKIP() << "run by ctest with VK_ICD_FILENAMES pointing at no driver";
    EXPECT_TRUE(burn::vulkan_devices().empty());
    try {
        Context::get(VulkanDevice{});
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        const std::string msg = e.what();
        EXPECT_TRUE(contains(msg, "no Vulkan device was found")) << msg;
        EXPECT_TRUE(contains(msg, "mesa-vulkan-drivers")) << msg;
        EXPECT_TRUE(contains(msg, "VK_ICD_FILENAMES")) << msg;
    }
    EXPECT_THROW(burn::Vulkan<>::sync(VulkanDevice{}), burn::Error);
}

TEST(VulkanTypes, BackendTypes) {
    using B = burn::Vulkan<>;
    static_assert(std::is_same_v<B::Device, VulkanDevice>);
    static_assert(std::is_same_v<B::IntElem, std::int32_t>);
    static_assert(std::is_same_v<B::FloatElem, float>);
    EXPECT_EQ(B::name(), "vulkan<f32>");
}

// ------------------------------------------------------------------------------ memory

TEST_F(Vulkan, UploadReadRoundTrip) {
    for (std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{10'000'000}}) {
        SCOPED_TRACE(n);
        const auto data = pattern(n, static_cast<unsigned>(n));
        Buffer buf = ctx->upload(data);
        EXPECT_EQ(buf.size(), n);
        EXPECT_EQ(buf.empty(), n == 0);
        if (n > 0) EXPECT_GE(buf.capacity(), n);
        const auto back = ctx->read(buf);
        ASSERT_EQ(back.size(), n);
        EXPECT_TRUE(back == data);
    }
}

TEST_F(Vulkan, PartialWriteAndRead) {
    const auto data = pattern(4096, 7);
    Buffer buf = ctx->upload(data);
    const auto patch = pattern(100, 8);
    ctx->write(buf, patch, 1000);
    const auto mid = ctx->read(buf, 990, 120);
    ASSERT_EQ(mid.size(), 120u);
    EXPECT_TRUE(std::equal(mid.begin(), mid.begin() + 10, data.begin() + 990));
    EXPECT_TRUE(std::equal(mid.begin() + 10, mid.begin() + 110, patch.begin()));
    EXPECT_TRUE(std::equal(mid.begin() + 110, mid.end(), data.begin() + 1100));
    EXPECT_THROW(ctx->read(buf, 4000, 200), burn::Error);
    EXPECT_THROW(ctx->write(buf, patch, 4000), burn::Error);

    Buffer other = ctx->allocate(4096);
    ctx->fill_u32(other, 0, 4096);
    ctx->copy(buf, other, 512, 0, 1024);
    const auto copied = ctx->read(other, 1024, 512);
    EXPECT_TRUE(std::equal(copied.begin(), copied.end(), data.begin()));
    const auto zeros = ctx->read(other, 0, 1024);
    EXPECT_TRUE(
        std::all_of(zeros.begin(), zeros.end(), [](std::byte b) { return b == std::byte{0}; }));
}

TEST_F(Vulkan, PoolReusesFreedSizeClass) {
    auto& pool = ctx->pool();
    ctx->sync();
    EXPECT_EQ(pool.size_class(1), pool.size_class(256));
    EXPECT_EQ(pool.size_class(1000), pool.size_class(1024));
    EXPECT_LT(pool.size_class(1025), 2 * pool.size_class(1024));

    const std::size_t bytes = 123'456;
    Buffer a = ctx->allocate(bytes);
    const auto cls = a.capacity();
    EXPECT_EQ(cls, pool.size_class(bytes));
    const auto before = pool.stats();
    EXPECT_GE(before.in_use_bytes, cls);
    EXPECT_GE(before.reserved_bytes, before.in_use_bytes);
    const VkBuffer handle = a.handle();
    const auto offset = a.offset();
    a.reset();
    const auto freed = pool.stats();
    EXPECT_EQ(freed.in_use_bytes, before.in_use_bytes - cls);
    EXPECT_EQ(freed.cached_bytes, before.cached_bytes + cls);

    Buffer b = ctx->allocate(bytes - 1000);  // same size class
    EXPECT_EQ(b.capacity(), cls);
    EXPECT_EQ(b.handle(), handle);
    EXPECT_EQ(b.offset(), offset);
    const auto after = pool.stats();
    EXPECT_EQ(after.reused, before.reused + 1);
    EXPECT_EQ(after.device_allocations, before.device_allocations);
    EXPECT_EQ(after.reserved_bytes, before.reserved_bytes);
    EXPECT_EQ(after.in_use_bytes, before.in_use_bytes);

    // Many small buffers share one block: no device allocation per buffer.
    std::vector<Buffer> many;
    for (int i = 0; i < 200; ++i) many.push_back(ctx->allocate(4000 + 8 * i));
    EXPECT_LE(pool.stats().device_allocations, after.device_allocations + 1);
    for (const auto& m : many) EXPECT_EQ(m.offset() % 64, 0u);
}

TEST_F(Vulkan, LargeBuffersGetDedicatedBlocksReleasedOnRequest) {
    auto& pool = ctx->pool();
    const std::size_t big = pool.block_size() / 2;
    const auto s0 = pool.stats();
    {
        Buffer a = ctx->allocate(big);
        EXPECT_EQ(a.offset(), 0u);
        EXPECT_EQ(pool.stats().device_allocations, s0.device_allocations + 1);
    }
    Buffer again = ctx->allocate(big);  // served from the free list
    EXPECT_EQ(pool.stats().device_allocations, s0.device_allocations + 1);
    EXPECT_EQ(pool.stats().reused, s0.reused + 1);
    again.reset();
    const auto cached = pool.stats();
    pool.release_cached();
    const auto released = pool.stats();
    EXPECT_LT(released.reserved_bytes, cached.reserved_bytes);
    EXPECT_EQ(released.blocks + 1, cached.blocks);
}

// ------------------------------------------------------------------------------ kernels

TEST_F(Vulkan, EmbeddedShaderTable) {
    const auto names = burn::vk::shaders::names();
    EXPECT_TRUE(std::find(names.begin(), names.end(), "elementwise_binary_f32") != names.end());
    EXPECT_TRUE(std::find(names.begin(), names.end(), "matmul_f32") != names.end());
    const auto words = burn::vk::shaders::get("elementwise_binary_f32");
    ASSERT_GT(words.size(), 5u);
    EXPECT_EQ(words[0], 0x07230203u);  // SPIR-V magic
    EXPECT_TRUE(burn::vk::shaders::find("nope").empty());
    try {
        burn::vk::shaders::get("nope");
        FAIL();
    } catch (const burn::Error& e) {
        EXPECT_TRUE(contains(e.what(), "'nope'")) << e.what();
        EXPECT_TRUE(contains(e.what(), "elementwise_binary_f32")) << e.what();
    }
}

TEST_F(Vulkan, FillWritesValue) {
    for (std::size_t n :
         {std::size_t{1}, std::size_t{255}, std::size_t{257}, std::size_t{100'003}}) {
        SCOPED_TRACE(n);
        Buffer out = ctx->allocate(n * sizeof(float));
        fill(*ctx, out, n, 3.5f);
        const auto v = as_floats(ctx->read(out));
        ASSERT_EQ(v.size(), n);
        EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x == 3.5f; }));
    }
    // A fill of fewer elements than the buffer leaves the rest.
    Buffer out = upload_floats(*ctx, std::vector<float>(10, 1.0f));
    fill(*ctx, out, 4, -2.0f);
    const auto v = as_floats(ctx->read(out));
    EXPECT_EQ(v, (std::vector<float>{-2, -2, -2, -2, 1, 1, 1, 1, 1, 1}));
}

TEST_F(Vulkan, AddMatchesHost) {
    const std::size_t n = 1'000'001;
    std::vector<float> a(n), b(n);
    std::iota(a.begin(), a.end(), 0.0f);
    for (std::size_t i = 0; i < n; ++i) b[i] = 0.25f * static_cast<float>(i % 97);
    Buffer da = upload_floats(*ctx, a), db = upload_floats(*ctx, b);
    Buffer dc = ctx->allocate(n * sizeof(float));
    add_f32(*ctx, da, db, dc, n);
    const auto c = as_floats(ctx->read(dc));
    ASSERT_EQ(c.size(), n);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += c[i] != a[i] + b[i];
    EXPECT_EQ(bad, 0u);
}

TEST_F(Vulkan, ThousandChainedAddsThenOneRead) {
    const std::size_t n = 10'000;
    Buffer one = ctx->allocate(n * sizeof(float));
    Buffer acc = ctx->allocate(n * sizeof(float));
    ctx->sync();
    const auto s0 = ctx->stats();
    fill(*ctx, one, n, 1.0f);
    fill(*ctx, acc, n, 0.0f);
    for (int i = 0; i < 1000; ++i) add_f32(*ctx, one, acc, acc, n);  // acc += 1
    const auto s1 = ctx->stats();
    EXPECT_EQ(s1.dispatches - s0.dispatches, 1002u);
    // Batched: far fewer submissions than dispatches, and no waits before the read.
    EXPECT_LE(s1.submits - s0.submits, 1002 / ctx->batch_limit() + 1);
    EXPECT_GE(s1.submits - s0.submits, 1002 / ctx->batch_limit());
    const auto v = as_floats(ctx->read(acc));
    ASSERT_EQ(v.size(), n);
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x == 1000.0f; }))
        << v.front() << " " << v.back();
    const auto s2 = ctx->stats();
    EXPECT_GE(s2.waits, s1.waits + 1);
}

TEST_F(Vulkan, BatchLimitAndFlush) {
    const std::size_t old = ctx->batch_limit();
    ctx->set_batch_limit(4);
    const std::size_t n = 64;
    Buffer acc = ctx->allocate(n * sizeof(float));
    Buffer one = ctx->allocate(n * sizeof(float));
    ctx->sync();
    const auto s0 = ctx->stats();
    fill(*ctx, acc, n, 0.0f);
    fill(*ctx, one, n, 2.0f);
    for (int i = 0; i < 10; ++i) add_f32(*ctx, acc, one, acc, n);
    ctx->flush();
    const auto s1 = ctx->stats();
    EXPECT_EQ(s1.submits - s0.submits, 3u);  // 12 dispatches: 4 + 4 + 4
    ctx->flush();                            // nothing recorded: no submit
    EXPECT_EQ(ctx->stats().submits, s1.submits);
    const auto v = as_floats(ctx->read(acc));
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x == 20.0f; }));
    ctx->set_batch_limit(old);
    EXPECT_THROW(ctx->set_batch_limit(0), burn::Error);
}

TEST_F(Vulkan, PipelineCacheHitsBySpecConstants) {
    const auto s0 = ctx->stats();
    const auto& p1 = add_pipeline(*ctx, 64);
    const auto s1 = ctx->stats();
    const auto& p2 = add_pipeline(*ctx, 64);
    const auto s2 = ctx->stats();
    EXPECT_EQ(&p1, &p2);
    EXPECT_EQ(s2.pipeline_cache_hits, s1.pipeline_cache_hits + 1);
    EXPECT_EQ(s2.pipelines_created, s1.pipelines_created);
    EXPECT_LE(s1.pipelines_created, s0.pipelines_created + 1);
    const auto& p3 = add_pipeline(*ctx, 32);
    EXPECT_NE(&p3, &p1);
    EXPECT_EQ(ctx->stats().pipelines_created, s2.pipelines_created + 1);

    // Another workgroup size gives the same result.
    const std::size_t n = 1000;
    Buffer a = upload_floats(*ctx, std::vector<float>(n, 1.5f));
    Buffer c = ctx->allocate(n * sizeof(float));
    add_f32(*ctx, a, a, c, n, 32);
    const auto v = as_floats(ctx->read(c));
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x == 3.0f; }));
}

TEST_F(Vulkan, DispatchChecksItsArguments) {
    const auto& p = fill_pipeline(*ctx, 64);
    Buffer buf = ctx->allocate(64);
    Buffer empty;
    const std::uint64_t push8 = 0;
    const std::uint32_t push4 = 0;
    EXPECT_THROW(ctx->dispatch(p, {&buf, &buf}, push8, {1, 1, 1}), burn::Error);
    EXPECT_THROW(ctx->dispatch(p, {&buf}, push4, {1, 1, 1}), burn::Error);
    EXPECT_THROW(ctx->dispatch(p, {&empty}, push8, {1, 1, 1}), burn::Error);
    EXPECT_THROW(ctx->pipeline({.shader = "nope", .bindings = 1}), burn::Error);
    EXPECT_THROW(
        ctx->pipeline({.shader = "elementwise_binary_f32", .bindings = 1, .push_bytes = 6}),
        burn::Error);
}

TEST_F(Vulkan, Grid1dSplitsOverY) {
    burn::VulkanFeatures f;
    f.max_workgroup_count = {4, 100, 100};
    EXPECT_EQ(burn::vk::grid_1d(0, 256, f), (burn::vk::Groups{0, 0, 0}));
    EXPECT_EQ(burn::vk::grid_1d(1, 256, f), (burn::vk::Groups{1, 1, 1}));
    EXPECT_EQ(burn::vk::grid_1d(4 * 256, 256, f), (burn::vk::Groups{4, 1, 1}));
    EXPECT_EQ(burn::vk::grid_1d(4 * 256 + 1, 256, f), (burn::vk::Groups{4, 2, 1}));
    EXPECT_THROW(burn::vk::grid_1d(std::uint64_t{1} << 40, 256, f), burn::Error);
}

TEST_F(Vulkan, RunTimeShaderThroughShaderc) {
    const char* src = R"(#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const float SCALE = 1.0;
layout(std430, binding = 0) readonly buffer In { float x[]; };
layout(std430, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) y[i] = SCALE * x[i];
})";
    const auto words = burn::vk::compile_glsl(src, "scale.comp");
    ASSERT_FALSE(words.empty());
    EXPECT_EQ(words[0], 0x07230203u);
    const auto& p = ctx->pipeline({.shader = "test/scale",
                                   .spec = {64, std::bit_cast<std::uint32_t>(-3.0f)},
                                   .bindings = 2,
                                   .push_bytes = 4,
                                   .spirv = words});
    const std::size_t n = 1000;
    std::vector<float> x(n);
    std::iota(x.begin(), x.end(), 1.0f);
    Buffer dx = upload_floats(*ctx, x);
    Buffer dy = ctx->allocate(n * sizeof(float));
    ctx->dispatch(p, {&dx, &dy}, static_cast<std::uint32_t>(n),
                  burn::vk::grid_1d(n, 64, ctx->features()));
    const auto y = as_floats(ctx->read(dy));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], -3.0f * x[i]) << i;

    try {
        burn::vk::compile_glsl("#version 450\nvoid main() { undeclared = 1; }", "bad.comp");
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        EXPECT_TRUE(contains(e.what(), "bad.comp")) << e.what();
        EXPECT_TRUE(contains(e.what(), "undeclared")) << e.what();
    }
}

TEST_F(Vulkan, ThreadsShareTheContext) {
    constexpr int kThreads = 4;
    std::vector<std::thread> threads;
    std::vector<int> ok(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            auto c = Context::get(VulkanDevice{});
            const std::size_t n = 5000 + 100 * t;
            Buffer acc = c->allocate(n * sizeof(float));
            Buffer one = c->allocate(n * sizeof(float));
            fill(*c, acc, n, static_cast<float>(t));
            fill(*c, one, n, 1.0f);
            for (int i = 0; i < 50; ++i) add_f32(*c, acc, one, acc, n);
            const auto v = as_floats(c->read(acc));
            ok[t] = v.size() == n && std::all_of(v.begin(), v.end(), [&](float x) {
                        return x == static_cast<float>(t + 50);
                    });
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
}

}  // namespace

// ------------------------------------------------------------------------- device errors
// (more in test_vk_errors.cpp: the deferred reports through the tensor API)

TEST_F(Vulkan, DeviceErrorsThrowAtTheOpInSynchronousMode) {
    using I1 = burn::Tensor<burn::Vulkan<>, 1, burn::Int>;
    const bool was = ctx->sync_errors();
    ctx->set_sync_errors(true);
    auto a = I1::from_ints({4, -3});
    auto z = I1::from_ints({1, 0});
    try {
        (void)a.div(z);
        ADD_FAILURE() << "expected burn::Error at the op";
    } catch (const burn::Error& e) {
        EXPECT_TRUE(contains(e.what(), "Vulkan div: integer division by zero")) << e.what();
    }
    EXPECT_NO_THROW((void)a.div(I1::from_ints({2, 1})));
    ctx->set_sync_errors(was);
    // Deferred (the default): the op returns, the read throws, then the error is cleared.
    auto q = a.div(z);
    EXPECT_THROW((void)q.to_data(), burn::Error);
    EXPECT_NO_THROW(ctx->sync());
    EXPECT_EQ(a.rem(I1::from_ints({3, 2})).to_data(), I1::from_ints({1, 1}).to_data());
}

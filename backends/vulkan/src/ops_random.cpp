// SPDX-License-Identifier: MIT OR Apache-2.0
// Random numbers (random_<suffix>.comp: Philox4x32-10 blocks of the CPU backend's stream
// layout, random.cpp; values computed in f32, deterministic per seed) and int8 quantization
// (quantize_q8.comp / dequantize_q8.comp, QInt8 packed 4 per word).
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "burn/backend/random.hpp"
#include "ops_common.hpp"

namespace burn::vk {
namespace {

constexpr std::uint32_t kWg = 256;  // workgroup size of the elementwise kernels

/// The Vulkan backend's position in its stream (the CPU backend keeps its own).
backend::PhiloxState& state() {
    static backend::PhiloxState s;
    return s;
}

struct RandomPush {
    std::uint32_t n, blocks, k0, k1, off_lo, off_hi, kind;
    float a, b, below_hi;
    std::uint32_t guard, pad;
    std::uint32_t ilo[2], irange[2];
};
static_assert(sizeof(RandomPush) == 64);

std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

/// The values of a small tensor on the host, as f32 or i32.
std::vector<float> host_floats(const VulkanTensor& t) {
    return Kernels::into_data(t).to_vec<float>();
}
std::vector<std::int32_t> host_ints(const VulkanTensor& t) {
    return Kernels::into_data(t).to_vec<std::int32_t>();
}

/// Elements per run of shared parameters and number of ranges (as the CPU backend).
std::pair<std::size_t, std::size_t> runs_of(const Shape& shape, const QuantizationScheme& scheme) {
    if (!scheme.is_per_channel()) return {std::max<std::size_t>(shape.num_elements(), 1), 1};
    std::size_t inner = 1;
    for (std::size_t d = scheme.axis + 1; d < shape.rank(); ++d) inner *= shape[d];
    return {std::max<std::size_t>(inner, 1), shape[scheme.axis]};
}

}  // namespace

void Kernels::seed(std::uint64_t s) { state().seed(s); }

VulkanTensor Kernels::random(const Shape& shape, const Distribution& dist, DType dtype,
                             const VulkanDevice& device) {
    const std::size_t n = shape.num_elements();
    check_u32("random", n);
    BURN_CHECK(
        dtype == DType::F32 || dtype == DType::I32 || dtype == DType::I64 || dtype == DType::Bool,
        "random: dtype ", dtype_name(dtype),
        " is not supported by the Vulkan backend (f32, i32, i64, bool)");
    const auto& features = vulkan_device_info(device).features;
    BURN_CHECK(features.shader_int64, "Vulkan random: ", device,
               " has no 64-bit integers in shaders (shaderInt64), which the random kernels use");
    using K = Distribution::Kind;
    const bool is_int = dtype == DType::I32 || dtype == DType::I64;
    RandomPush push{};
    push.kind = static_cast<std::uint32_t>(dist.kind);
    push.a = static_cast<float>(dist.a);
    push.b = static_cast<float>(dist.b);
    if (dist.kind == K::Uniform) {
        const float hi = static_cast<float>(dist.b);
        push.below_hi = std::nextafter(hi, static_cast<float>(dist.a));
        push.guard = dist.a < dist.b ? 1u : 0u;
        if (is_int) {
            const std::int64_t lo = trunc_to_int64(dist.a), ihi = trunc_to_int64(dist.b);
            assert(lo < ihi);  // Tensor::random checked the range
            const auto range = static_cast<std::uint64_t>(ihi) - static_cast<std::uint64_t>(lo);
            push.ilo[0] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(lo));
            push.ilo[1] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(lo) >> 32);
            push.irange[0] = static_cast<std::uint32_t>(range);
            push.irange[1] = static_cast<std::uint32_t>(range >> 32);
        }
    }
    VulkanTensor out = alloc(shape, dtype, device);
    if (n == 0) return out;
    const std::uint64_t per_block = is_int ? 2 : 4;
    const std::uint64_t blocks = (n + per_block - 1) / per_block;
    const auto r = state().reserve(blocks);
    push.k0 = r.k0;
    push.k1 = r.k1;
    push.off_lo = static_cast<std::uint32_t>(r.first_block);
    push.off_hi = static_cast<std::uint32_t>(r.first_block >> 32);
    push.n = static_cast<std::uint32_t>(n);
    push.blocks = static_cast<std::uint32_t>(blocks);
    Context& ctx = context(device);
    const std::string name = std::string("random_") + dtype_suffix(dtype);
    const auto& p = ctx.pipeline(
        {.shader = name, .spec = {kWg}, .bindings = 1, .push_bytes = sizeof(RandomPush)});
    ctx.dispatch(p, {&buffer_of(out)}, push, grid_1d(blocks, kWg, ctx.features()));
    return out;
}

// ------------------------------------------------------------------------------ quantization

VulkanTensor Kernels::quantize(VulkanTensor t, const QuantizationScheme& scheme, VulkanTensor scale,
                               std::optional<VulkanTensor> offset) {
    auto info = std::make_shared<QuantizationInfo>();
    info->scheme = scheme;
    info->scales = host_floats(scale);
    if (scheme.is_affine() && offset) info->offsets = host_ints(*offset);
    info->validate(t.shape, "vk::quantize");
    BURN_CHECK(t.dtype == DType::F32, "vk::quantize: expected a float tensor, got ",
               dtype_name(t.dtype));
    check_u32("quantize", t.num_elements());
    t = contiguous(std::move(t));
    VulkanTensor out = alloc(t.shape, DType::QInt8, t.device);
    const std::size_t n = t.num_elements();
    const auto [inner, channels] = runs_of(t.shape, scheme);
    if (n > 0) {
        std::vector<std::uint32_t> params(2 * channels);
        for (std::size_t c = 0; c < channels; ++c) {
            params[c] = bits_of(1.0f / info->scales[c]);
            params[channels + c] = static_cast<std::uint32_t>(info->offset(c));
        }
        Context& ctx = context(t);
        const Buffer pbuf = ctx.upload(std::as_bytes(std::span<const std::uint32_t>(params)));
        const std::size_t words = (n + 3) / 4;
        const std::array<std::uint32_t, 4> push{
            static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(words),
            static_cast<std::uint32_t>(inner), static_cast<std::uint32_t>(channels)};
        const auto& p =
            ctx.pipeline({.shader = "quantize_q8", .spec = {kWg}, .bindings = 3, .push_bytes = 16});
        ctx.dispatch(p, {&buffer_of(t), &pbuf, &buffer_of(out)}, push,
                     grid_1d(words, kWg, ctx.features()));
    }
    out.qinfo = std::move(info);
    return out;
}

VulkanTensor Kernels::dequantize(const VulkanTensor& t, DType float_dtype) {
    assert(t.is_dense_quantized());
    BURN_CHECK(float_dtype == DType::F32, "vk::dequantize: target dtype ", dtype_name(float_dtype),
               " is not a float type of the Vulkan backend (f32)");
    const QuantizationInfo& info = *t.qinfo;
    VulkanTensor out = alloc(t.shape, float_dtype, t.device);
    const std::size_t n = t.num_elements();
    if (n == 0) return out;
    const auto [inner, channels] = runs_of(t.shape, info.scheme);
    std::vector<std::uint32_t> params(2 * channels);
    for (std::size_t c = 0; c < channels; ++c) {
        params[c] = bits_of(info.scales[c]);
        params[channels + c] = static_cast<std::uint32_t>(info.offset(c));
    }
    Context& ctx = context(t);
    const Buffer pbuf = ctx.upload(std::as_bytes(std::span<const std::uint32_t>(params)));
    const std::array<std::uint32_t, 3> push{static_cast<std::uint32_t>(n),
                                            static_cast<std::uint32_t>(inner),
                                            static_cast<std::uint32_t>(channels)};
    const auto& p =
        ctx.pipeline({.shader = "dequantize_q8", .spec = {kWg}, .bindings = 3, .push_bytes = 12});
    ctx.dispatch(p, {&buffer_of(t), &pbuf, &buffer_of(out)}, push, grid_1d(n, kWg, ctx.features()));
    return out;
}

}  // namespace burn::vk

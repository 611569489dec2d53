// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::Vulkan<F, I>: the Vulkan backend. Every op forwards to burn::vk:: kernels
// (burn/backend/vulkan/kernels.hpp) implemented in backends/vulkan/src with GLSL compute shaders
// (kernels/vulkan), on the runtime there (devices, memory pool, pipelines, batched command
// recording). WORK IN PROGRESS: the ops are being implemented family by family.
//
//   for (const auto& d : burn::vulkan_devices()) std::cout << d << "\n";
//   burn::VulkanDevice dev{};           // index 0: the first discrete GPU, else integrated, ... CPU
//
// This header includes no Vulkan header: handles stay in the compiled sources.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "burn/backend/vulkan/kernels.hpp"
#include "burn/backend/vulkan/tensor.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/dtype.hpp"

namespace burn {

enum class VulkanDeviceType { DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu, Other };
const char* to_string(VulkanDeviceType t) noexcept;

/// What a device can do (queried once, at enumeration).
struct VulkanFeatures {
    bool shader_int64 = false;          ///< 64-bit integers in shaders (else Int tensors are i32)
    bool shader_float64 = false;
    bool shader_float16 = false;
    bool shader_int8 = false;
    bool storage_buffer_8bit = false;   ///< 8-bit loads/stores from storage buffers
    bool storage_buffer_16bit = false;  ///< 16-bit loads/stores from storage buffers
    bool push_descriptor = false;       ///< VK_KHR_push_descriptor (not used yet)
    std::uint32_t subgroup_size = 0;
    bool subgroup_in_compute = false;
    bool subgroup_basic = false, subgroup_vote = false, subgroup_arithmetic = false,
         subgroup_ballot = false, subgroup_shuffle = false, subgroup_shuffle_relative = false,
         subgroup_clustered = false, subgroup_quad = false;
    std::array<std::uint32_t, 3> max_workgroup_size{};
    std::uint32_t max_workgroup_invocations = 0;
    std::array<std::uint32_t, 3> max_workgroup_count{};
    std::uint32_t max_shared_memory_bytes = 0;
    std::uint32_t max_push_constant_bytes = 0;
    std::uint64_t max_storage_buffer_range = 0;  ///< largest bindable storage-buffer range
    std::uint64_t min_storage_buffer_offset_alignment = 0;
    std::uint64_t device_local_bytes = 0;        ///< size of the largest device-local heap
};

struct VulkanDeviceInfo {
    std::size_t index = 0;  ///< position in vulkan_devices(): VulkanDevice{index}
    std::string name;       ///< e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
    VulkanDeviceType type = VulkanDeviceType::Other;
    std::uint32_t vendor_id = 0, device_id = 0;
    std::uint32_t api_major = 0, api_minor = 0, api_patch = 0;
    std::string driver;     ///< driver name and info, e.g. "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)"
    VulkanFeatures features;
    /// The dtype Int tensors use on this device: i64 where the device has shaderInt64, else i32.
    DType int_dtype() const { return features.shader_int64 ? DType::I64 : DType::I32; }
    friend std::ostream& operator<<(std::ostream& os, const VulkanDeviceInfo& d);
};

/// Every usable Vulkan device (API version 1.2 or later, with a compute queue), in the order
/// described at VulkanDevice. Empty when there is no Vulkan driver or device: never throws for
/// that (use it to decide whether to run Vulkan code). Enumerates once per process.
const std::vector<VulkanDeviceInfo>& vulkan_devices();

/// The device's description; throws burn::Error when there is no such device (the message names
/// the index and how many devices exist, or says that no Vulkan device was found).
const VulkanDeviceInfo& vulkan_device_info(const VulkanDevice& device);

/// Submits the device's recorded work and waits for it to finish.
void vulkan_sync(const VulkanDevice& device);

/// The Vulkan backend. `F` is the float element (float), `I` the int element: std::int32_t (the
/// default; every device) or std::int64_t (devices with shaderInt64). Bool tensors hold one
/// 32-bit word per element on the device.
template <class F = float, class I = std::int32_t>
struct Vulkan {
    static_assert(std::is_same_v<F, float>, "Vulkan<F, I>: F must be float (for now)");
    static_assert(std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>,
                  "Vulkan<F, I>: I must be std::int32_t or std::int64_t");

    using Device = VulkanDevice;
    using FloatTensor = vk::VulkanTensor;
    using IntTensor = vk::VulkanTensor;
    using BoolTensor = vk::VulkanTensor;
    using FloatElem = F;
    using IntElem = I;
    /// f32 is Burn's "full precision".
    using FullPrecisionBackend = Vulkan<F, I>;

    static constexpr DType float_dtype = ElementTraits<F>::dtype;
    static constexpr DType int_dtype = ElementTraits<I>::dtype;
    static constexpr DType bool_dtype = DType::Bool;

    static std::string name() { return std::is_same_v<I, std::int32_t> ? "vulkan<f32>" : "vulkan<f32,i64>"; }
    static void seed(std::uint64_t s) { vk::seed(s); }
    /// Waits until every op recorded on the device has run.
    static void sync(const Device& device) { vulkan_sync(device); }

private:
    using T = vk::VulkanTensor;
    using Axes = std::span<const std::size_t>;
    using Ranges = std::span<const SliceRange>;
    static vk::ScalarArg fs(double v) { return vk::ScalarArg::of(v); }
    static vk::ScalarArg is(std::int64_t v) { return vk::ScalarArg::of(v); }

    // Quantized tensors: every float op except shape/device/into_data/to_device accepts a
    // quantized primitive by dequantizing it first (dq) and computing in F; its result is an
    // ordinary float tensor (call quantize again to store int8). The basic and numeric op macros
    // take an input adapter A: QuantIn for float ops, PlainIn (a no-op, zero cost) for int/bool.
    static T dq(T t) {
        if (t.qinfo) return vk::dequantize(t, float_dtype);
        return t;  // moved: a unique buffer stays unique, so kernels may still work in place
    }
    static std::optional<T> dq(std::optional<T> t) {
        if (t) *t = dq(std::move(*t));
        return t;
    }
    static std::vector<T> dq(std::vector<T> ts) {
        for (auto& t : ts) t = dq(std::move(t));
        return ts;
    }
    struct QuantIn {
        template <class X>
        static X in(X x) { return dq(std::move(x)); }
        static T from_data(const TensorData& d, DType dt, const VulkanDevice& dev) {
            return d.is_quantized() ? vk::quantized_from_data(d, dev) : vk::from_data(d, dt, dev);
        }
        static TensorData into_data(const T& t) {
            return t.qinfo ? vk::quantized_into_data(t) : vk::into_data(t);
        }
    };
    struct PlainIn {
        template <class X>
        static X&& in(X&& x) noexcept { return std::forward<X>(x); }
        static T from_data(const TensorData& d, DType dt, const VulkanDevice& dev) {
            return vk::from_data(d, dt, dev);
        }
        static TensorData into_data(const T& t) { return vk::into_data(t); }
    };

public:
    // ---------------------------------------------------------------- basic ops, per kind
#define BURN_VK_BASIC_OPS(P, DT, A)                                                             \
    static T P##_from_data(const TensorData& d, const Device& dev) { return A::from_data(d, DT, dev); }   \
    static TensorData P##_into_data(T t) { return A::into_data(t); }                             \
    static Device P##_device(const T& t) { return t.device; }                                            \
    static T P##_to_device(T t, const Device& dev) { return vk::to_device(std::move(t), dev); }                                     \
    static Shape P##_shape(const T& t) { return t.shape; }                                       \
    static T P##_empty(const Shape& s, const Device& dev) { return vk::empty(s, DT, dev); }              \
    static T P##_reshape(T t, const Shape& s) { return vk::reshape(A::in(std::move(t)), s); }   \
    static T P##_swap_dims(T t, std::size_t a, std::size_t b) {                                  \
        return vk::swap_dims(A::in(std::move(t)), a, b);                                        \
    }                                                                                            \
    static T P##_permute(T t, Axes axes) { return vk::permute(A::in(std::move(t)), axes); }     \
    static T P##_flip(T t, Axes axes) { return vk::flip(A::in(std::move(t)), axes); }           \
    static T P##_expand(T t, const Shape& s) { return vk::expand(A::in(std::move(t)), s); }     \
    static T P##_slice(T t, Ranges r) { return vk::slice(A::in(std::move(t)), r); }             \
    static T P##_slice_assign(T t, Ranges r, T v) {                                              \
        return vk::slice_assign(A::in(std::move(t)), r, A::in(std::move(v)));                   \
    }                                                                                            \
    static T P##_cat(std::vector<T> ts, std::size_t dim) {                                       \
        return vk::cat(A::in(std::move(ts)), dim);                                              \
    }                                                                                            \
    static T P##_repeat_dim(T t, std::size_t dim, std::size_t n) {                               \
        return vk::repeat_dim(A::in(std::move(t)), dim, n);                                     \
    }                                                                                            \
    static T P##_equal(T a, T b) {                                                               \
        return vk::compare(vk::CmpOp::Eq, A::in(std::move(a)), A::in(std::move(b)));           \
    }                                                                                            \
    static T P##_not_equal(T a, T b) {                                                           \
        return vk::compare(vk::CmpOp::Ne, A::in(std::move(a)), A::in(std::move(b)));           \
    }

    BURN_VK_BASIC_OPS(float, float_dtype, QuantIn)
    BURN_VK_BASIC_OPS(int, int_dtype, PlainIn)
    BURN_VK_BASIC_OPS(bool, bool_dtype, PlainIn)
#undef BURN_VK_BASIC_OPS

    // ---------------------------------------------------------------- numeric ops, per kind
#define BURN_VK_NUMERIC_OPS(P, DT, S, SC, A)                                                    \
    static T P##_zeros(const Shape& s, const Device& dev) { return vk::full(s, SC(0), DT, dev); }         \
    static T P##_ones(const Shape& s, const Device& dev) { return vk::full(s, SC(1), DT, dev); }          \
    static T P##_full(const Shape& s, S v, const Device& dev) { return vk::full(s, SC(v), DT, dev); }     \
    static T P##_random(const Shape& s, const Distribution& d, const Device& dev) {              \
        return vk::random(s, d, DT, dev);                                                            \
    }                                                                                            \
    static T P##_add(T a, T b) {                                                                 \
        return vk::binary(vk::BinaryOp::Add, A::in(std::move(a)), A::in(std::move(b)));        \
    }                                                                                            \
    static T P##_sub(T a, T b) {                                                                 \
        return vk::binary(vk::BinaryOp::Sub, A::in(std::move(a)), A::in(std::move(b)));        \
    }                                                                                            \
    static T P##_mul(T a, T b) {                                                                 \
        return vk::binary(vk::BinaryOp::Mul, A::in(std::move(a)), A::in(std::move(b)));        \
    }                                                                                            \
    static T P##_div(T a, T b) {                                                                 \
        return vk::binary(vk::BinaryOp::Div, A::in(std::move(a)), A::in(std::move(b)));        \
    }                                                                                            \
    static T P##_remainder(T a, T b) {                                                           \
        return vk::binary(vk::BinaryOp::Rem, A::in(std::move(a)), A::in(std::move(b)));        \
    }                                                                                            \
    static T P##_max_pair(T a, T b) {                                                            \
        return vk::binary(vk::BinaryOp::Max, A::in(std::move(a)), A::in(std::move(b)));        \
    }                                                                                            \
    static T P##_min_pair(T a, T b) {                                                            \
        return vk::binary(vk::BinaryOp::Min, A::in(std::move(a)), A::in(std::move(b)));        \
    }                                                                                            \
    static T P##_add_scalar(T a, S s) {                                                          \
        return vk::binary_scalar(vk::BinaryOp::Add, A::in(std::move(a)), SC(s));               \
    }                                                                                            \
    static T P##_sub_scalar(T a, S s) {                                                          \
        return vk::binary_scalar(vk::BinaryOp::Sub, A::in(std::move(a)), SC(s));               \
    }                                                                                            \
    static T P##_mul_scalar(T a, S s) {                                                          \
        return vk::binary_scalar(vk::BinaryOp::Mul, A::in(std::move(a)), SC(s));               \
    }                                                                                            \
    static T P##_div_scalar(T a, S s) {                                                          \
        return vk::binary_scalar(vk::BinaryOp::Div, A::in(std::move(a)), SC(s));               \
    }                                                                                            \
    static T P##_remainder_scalar(T a, S s) {                                                    \
        return vk::binary_scalar(vk::BinaryOp::Rem, A::in(std::move(a)), SC(s));               \
    }                                                                                            \
    static T P##_neg(T a) { return vk::unary(vk::UnaryOp::Neg, A::in(std::move(a))); }         \
    static T P##_abs(T a) { return vk::unary(vk::UnaryOp::Abs, A::in(std::move(a))); }         \
    static T P##_sign(T a) { return vk::unary(vk::UnaryOp::Sign, A::in(std::move(a))); }       \
    static T P##_clamp(T a, S lo, S hi) { return vk::clamp(A::in(std::move(a)), SC(lo), SC(hi)); } \
    static T P##_clamp_min(T a, S lo) {                                                          \
        return vk::clamp(A::in(std::move(a)), SC(lo), std::nullopt);                            \
    }                                                                                            \
    static T P##_clamp_max(T a, S hi) {                                                          \
        return vk::clamp(A::in(std::move(a)), std::nullopt, SC(hi));                            \
    }                                                                                            \
    static T P##_greater(T a, T b) {                                                             \
        return vk::compare(vk::CmpOp::Gt, A::in(std::move(a)), A::in(std::move(b)));           \
    }                                                                                            \
    static T P##_greater_equal(T a, T b) {                                                       \
        return vk::compare(vk::CmpOp::Ge, A::in(std::move(a)), A::in(std::move(b)));           \
    }                                                                                            \
    static T P##_lower(T a, T b) {                                                               \
        return vk::compare(vk::CmpOp::Lt, A::in(std::move(a)), A::in(std::move(b)));           \
    }                                                                                            \
    static T P##_lower_equal(T a, T b) {                                                         \
        return vk::compare(vk::CmpOp::Le, A::in(std::move(a)), A::in(std::move(b)));           \
    }                                                                                            \
    static T P##_equal_elem(T a, S s) {                                                          \
        return vk::compare_scalar(vk::CmpOp::Eq, A::in(std::move(a)), SC(s));                  \
    }                                                                                            \
    static T P##_not_equal_elem(T a, S s) {                                                      \
        return vk::compare_scalar(vk::CmpOp::Ne, A::in(std::move(a)), SC(s));                  \
    }                                                                                            \
    static T P##_greater_elem(T a, S s) {                                                        \
        return vk::compare_scalar(vk::CmpOp::Gt, A::in(std::move(a)), SC(s));                  \
    }                                                                                            \
    static T P##_greater_equal_elem(T a, S s) {                                                  \
        return vk::compare_scalar(vk::CmpOp::Ge, A::in(std::move(a)), SC(s));                  \
    }                                                                                            \
    static T P##_lower_elem(T a, S s) {                                                          \
        return vk::compare_scalar(vk::CmpOp::Lt, A::in(std::move(a)), SC(s));                  \
    }                                                                                            \
    static T P##_lower_equal_elem(T a, S s) {                                                    \
        return vk::compare_scalar(vk::CmpOp::Le, A::in(std::move(a)), SC(s));                  \
    }                                                                                            \
    static T P##_sum(T a) { return vk::reduce_all(vk::ReduceOp::Sum, A::in(std::move(a))); }   \
    static T P##_prod(T a) { return vk::reduce_all(vk::ReduceOp::Prod, A::in(std::move(a))); } \
    static T P##_sum_dim(T a, std::size_t d) {                                                   \
        return vk::reduce_dim(vk::ReduceOp::Sum, A::in(std::move(a)), d);                      \
    }                                                                                            \
    static T P##_prod_dim(T a, std::size_t d) {                                                  \
        return vk::reduce_dim(vk::ReduceOp::Prod, A::in(std::move(a)), d);                     \
    }                                                                                            \
    static T P##_mean_dim(T a, std::size_t d) {                                                  \
        return vk::reduce_dim(vk::ReduceOp::Mean, A::in(std::move(a)), d);                     \
    }                                                                                            \
    static T P##_max_dim(T a, std::size_t d) {                                                   \
        return vk::reduce_dim(vk::ReduceOp::Max, A::in(std::move(a)), d);                      \
    }                                                                                            \
    static T P##_min_dim(T a, std::size_t d) {                                                   \
        return vk::reduce_dim(vk::ReduceOp::Min, A::in(std::move(a)), d);                      \
    }                                                                                            \
    static std::pair<T, T> P##_max_dim_with_indices(T a, std::size_t d) {                        \
        return vk::reduce_dim_with_indices(vk::ReduceOp::Max, A::in(std::move(a)), d, int_dtype); \
    }                                                                                            \
    static std::pair<T, T> P##_min_dim_with_indices(T a, std::size_t d) {                        \
        return vk::reduce_dim_with_indices(vk::ReduceOp::Min, A::in(std::move(a)), d, int_dtype); \
    }                                                                                            \
    static T P##_argmax(T a, std::size_t d) {                                                    \
        return vk::reduce_dim_with_indices(vk::ReduceOp::Max, A::in(std::move(a)), d,          \
                                            int_dtype).second;                                   \
    }                                                                                            \
    static T P##_argmin(T a, std::size_t d) {                                                    \
        return vk::reduce_dim_with_indices(vk::ReduceOp::Min, A::in(std::move(a)), d,          \
                                            int_dtype).second;                                   \
    }                                                                                            \
    static T P##_gather(std::size_t d, T a, T idx) {                                             \
        return vk::gather(d, A::in(std::move(a)), std::move(idx));                              \
    }                                                                                            \
    static T P##_scatter(std::size_t d, T a, T idx, T v) {                                       \
        return vk::scatter_add(d, A::in(std::move(a)), std::move(idx), A::in(std::move(v)));    \
    }                                                                                            \
    static T P##_select(T a, std::size_t d, T idx) {                                             \
        return vk::select(A::in(std::move(a)), d, std::move(idx));                              \
    }                                                                                            \
    static T P##_select_assign(T a, std::size_t d, T idx, T v) {                                 \
        return vk::select_add(A::in(std::move(a)), d, std::move(idx), A::in(std::move(v)));     \
    }                                                                                            \
    static T P##_mask_where(T a, T mask, T v) {                                                  \
        return vk::mask_where(A::in(std::move(a)), std::move(mask), A::in(std::move(v)));       \
    }                                                                                            \
    static T P##_mask_fill(T a, T mask, S v) {                                                   \
        return vk::mask_fill(A::in(std::move(a)), std::move(mask), SC(v));                      \
    }                                                                                            \
    static T P##_sort(T a, std::size_t d, bool desc) {                                           \
        return vk::sort(A::in(std::move(a)), d, desc, int_dtype).first;                         \
    }                                                                                            \
    static std::pair<T, T> P##_sort_with_indices(T a, std::size_t d, bool desc) {                \
        return vk::sort(A::in(std::move(a)), d, desc, int_dtype);                               \
    }                                                                                            \
    static T P##_argsort(T a, std::size_t d, bool desc) {                                        \
        return vk::argsort(A::in(std::move(a)), d, desc, int_dtype);                            \
    }                                                                                            \
    static T P##_cumsum(T a, std::size_t d) {                                                    \
        return vk::cumulative(vk::CumOp::Sum, A::in(std::move(a)), d);                         \
    }                                                                                            \
    static T P##_cumprod(T a, std::size_t d) {                                                   \
        return vk::cumulative(vk::CumOp::Prod, A::in(std::move(a)), d);                        \
    }                                                                                            \
    static T P##_cummin(T a, std::size_t d) {                                                    \
        return vk::cumulative(vk::CumOp::Min, A::in(std::move(a)), d);                         \
    }                                                                                            \
    static T P##_cummax(T a, std::size_t d) {                                                    \
        return vk::cumulative(vk::CumOp::Max, A::in(std::move(a)), d);                         \
    }

    BURN_VK_NUMERIC_OPS(float, float_dtype, double, fs, QuantIn)
    BURN_VK_NUMERIC_OPS(int, int_dtype, std::int64_t, is, PlainIn)
#undef BURN_VK_NUMERIC_OPS

    // ---------------------------------------------------------------- float-only ops
    static T float_exp(T a) { return vk::unary(vk::UnaryOp::Exp, dq(std::move(a))); }
    static T float_log(T a) { return vk::unary(vk::UnaryOp::Log, dq(std::move(a))); }
    static T float_log1p(T a) { return vk::unary(vk::UnaryOp::Log1p, dq(std::move(a))); }
    static T float_erf(T a) { return vk::unary(vk::UnaryOp::Erf, dq(std::move(a))); }
    static T float_sqrt(T a) { return vk::unary(vk::UnaryOp::Sqrt, dq(std::move(a))); }
    static T float_recip(T a) { return vk::unary(vk::UnaryOp::Recip, dq(std::move(a))); }
    static T float_sin(T a) { return vk::unary(vk::UnaryOp::Sin, dq(std::move(a))); }
    static T float_cos(T a) { return vk::unary(vk::UnaryOp::Cos, dq(std::move(a))); }
    static T float_tanh(T a) { return vk::unary(vk::UnaryOp::Tanh, dq(std::move(a))); }
    static T float_round(T a) { return vk::unary(vk::UnaryOp::Round, dq(std::move(a))); }
    static T float_floor(T a) { return vk::unary(vk::UnaryOp::Floor, dq(std::move(a))); }
    static T float_ceil(T a) { return vk::unary(vk::UnaryOp::Ceil, dq(std::move(a))); }
    static T float_powf(T a, T b) {
        return vk::binary(vk::BinaryOp::Pow, dq(std::move(a)), dq(std::move(b)));
    }
    static T float_powf_scalar(T a, double s) {
        return vk::binary_scalar(vk::BinaryOp::Pow, dq(std::move(a)), fs(s));
    }
    static T float_matmul(T a, T b) { return vk::matmul(dq(std::move(a)), dq(std::move(b))); }
    static T float_into_int(T a) { return vk::cast(dq(std::move(a)), int_dtype); }
    static T float_is_nan(T a) { return vk::is_nan(dq(std::move(a))); }

    // ---------------------------------------------------------------- quantization
    static T quantize(T t, const QuantizationScheme& scheme, T scale, std::optional<T> offset) {
        return vk::quantize(dq(std::move(t)), scheme, dq(std::move(scale)), std::move(offset));
    }
    static T dequantize(T t) { return dq(std::move(t)); }
    static bool float_is_quantized(const T& t) { return t.qinfo != nullptr; }

    // ---------------------------------------------------------------- int-only ops
    static T int_into_float(T a) { return vk::cast(std::move(a), float_dtype); }
    static T int_arange(std::int64_t start, std::int64_t end, std::int64_t step, const Device& dev) {
        return vk::arange(start, end, step, int_dtype, dev);
    }
    static T int_powi(T a, T b) { return vk::binary(vk::BinaryOp::Pow, std::move(a), std::move(b)); }
    static T int_powi_scalar(T a, std::int64_t s) {
        return vk::binary_scalar(vk::BinaryOp::Pow, std::move(a), is(s));
    }

    // ---------------------------------------------------------------- bool-only ops
    static T bool_not(T a) { return vk::unary(vk::UnaryOp::Not, std::move(a)); }
    static T bool_and(T a, T b) { return vk::binary(vk::BinaryOp::And, std::move(a), std::move(b)); }
    static T bool_or(T a, T b) { return vk::binary(vk::BinaryOp::Or, std::move(a), std::move(b)); }
    static T bool_into_int(T a) { return vk::cast(std::move(a), int_dtype); }
    static T bool_into_float(T a) { return vk::cast(std::move(a), float_dtype); }
    static T bool_any(T a) { return vk::any_all(false, std::move(a)); }
    static T bool_all(T a) { return vk::any_all(true, std::move(a)); }
    static T bool_any_dim(T a, std::size_t d) { return vk::any_all_dim(false, std::move(a), d); }
    static T bool_all_dim(T a, std::size_t d) { return vk::any_all_dim(true, std::move(a), d); }
    static T bool_argwhere(T a) { return vk::argwhere(std::move(a), int_dtype); }
    // ---------------------------------------------------------------- module ops
private:
    using OptT = std::optional<T>;
    template <std::size_t N>
    static vk::SpatialArgs args(const ConvOptions<N>& o) {
        vk::SpatialArgs a;
        a.n = N;
        for (std::size_t i = 0; i < N; ++i) {
            a.stride[i] = o.stride[i], a.padding[i] = o.padding[i], a.dilation[i] = o.dilation[i];
        }
        a.groups = o.groups;
        return a;
    }
    template <std::size_t N>
    static vk::SpatialArgs args(const ConvTransposeOptions<N>& o) {
        vk::SpatialArgs a;
        a.n = N;
        for (std::size_t i = 0; i < N; ++i) {
            a.stride[i] = o.stride[i], a.padding[i] = o.padding[i], a.dilation[i] = o.dilation[i];
            a.padding_out[i] = o.padding_out[i];
        }
        a.groups = o.groups;
        return a;
    }
    static vk::SpatialArgs args(const DeformConvOptions<2>& o) {
        vk::SpatialArgs a;
        a.n = 2;
        for (std::size_t i = 0; i < 2; ++i) {
            a.stride[i] = o.stride[i], a.padding[i] = o.padding[i], a.dilation[i] = o.dilation[i];
        }
        a.groups = o.weight_groups;
        a.offset_groups = o.offset_groups;
        return a;
    }
    template <std::size_t N>
    static vk::SpatialArgs args(const MaxPoolOptions<N>& o) {
        vk::SpatialArgs a;
        a.n = N;
        for (std::size_t i = 0; i < N; ++i) {
            a.kernel[i] = o.kernel_size[i], a.stride[i] = o.stride[i];
            a.padding[i] = o.padding[i], a.dilation[i] = o.dilation[i];
        }
        a.ceil_mode = o.ceil_mode;
        return a;
    }
    template <std::size_t N>
    static vk::SpatialArgs args(const AvgPoolOptions<N>& o) {
        vk::SpatialArgs a;
        a.n = N;
        for (std::size_t i = 0; i < N; ++i) {
            a.kernel[i] = o.kernel_size[i], a.stride[i] = o.stride[i], a.padding[i] = o.padding[i];
        }
        a.ceil_mode = o.ceil_mode;
        a.count_include_pad = o.count_include_pad;
        return a;
    }

public:
#define BURN_VK_CONV_OPS(N)                                                                     \
    static T conv##N##d(T x, T w, OptT b, const ConvOptions<N>& o) {                             \
        return vk::conv(dq(std::move(x)), dq(std::move(w)), dq(std::move(b)), args(o));         \
    }                                                                                            \
    static T conv##N##d_x_backward(T x, T w, T g, const ConvOptions<N>& o) {                     \
        return vk::conv_x_backward(dq(std::move(x)), dq(std::move(w)), dq(std::move(g)), args(o)); \
    }                                                                                            \
    static T conv##N##d_weight_backward(T x, T w, T g, const ConvOptions<N>& o) {                \
        return vk::conv_weight_backward(dq(std::move(x)), dq(std::move(w)), dq(std::move(g)),   \
                                         args(o));                                               \
    }                                                                                            \
    static T conv##N##d_bias_backward(T, T, T g) {                                               \
        return vk::conv_bias_backward(dq(std::move(g)));                                        \
    }                                                                                            \
    static T conv_transpose##N##d(T x, T w, OptT b, const ConvTransposeOptions<N>& o) {          \
        return vk::conv_transpose(dq(std::move(x)), dq(std::move(w)), dq(std::move(b)), args(o)); \
    }                                                                                            \
    static T conv_transpose##N##d_x_backward(T x, T w, T g, const ConvTransposeOptions<N>& o) {  \
        return vk::conv_transpose_x_backward(dq(std::move(x)), dq(std::move(w)),                \
                                              dq(std::move(g)), args(o));                        \
    }                                                                                            \
    static T conv_transpose##N##d_weight_backward(T x, T w, T g,                                 \
                                                  const ConvTransposeOptions<N>& o) {            \
        return vk::conv_transpose_weight_backward(dq(std::move(x)), dq(std::move(w)),           \
                                                   dq(std::move(g)), args(o));                   \
    }                                                                                            \
    static T conv_transpose##N##d_bias_backward(T, T, T g) {                                     \
        return vk::conv_bias_backward(dq(std::move(g)));                                        \
    }

    BURN_VK_CONV_OPS(1)
    BURN_VK_CONV_OPS(2)
    BURN_VK_CONV_OPS(3)
#undef BURN_VK_CONV_OPS

#define BURN_VK_POOL_OPS(N)                                                                     \
    static T avg_pool##N##d(T x, const AvgPoolOptions<N>& o) {                                   \
        return vk::avg_pool(dq(std::move(x)), args(o));                                         \
    }                                                                                            \
    static T avg_pool##N##d_backward(T x, T g, const AvgPoolOptions<N>& o) {                     \
        return vk::avg_pool_backward(dq(std::move(x)), dq(std::move(g)), args(o));              \
    }                                                                                            \
    static T max_pool##N##d(T x, const MaxPoolOptions<N>& o) {                                   \
        return vk::max_pool(dq(std::move(x)), args(o), false, int_dtype).first;                 \
    }                                                                                            \
    static MaxPoolWithIndices<T, T> max_pool##N##d_with_indices(T x, const MaxPoolOptions<N>& o) { \
        auto [out, idx] = vk::max_pool(dq(std::move(x)), args(o), true, int_dtype);             \
        return {std::move(out), std::move(idx)};                                                 \
    }                                                                                            \
    static T max_pool##N##d_with_indices_backward(T x, const MaxPoolOptions<N>& o, T g, T idx) { \
        return vk::max_pool_backward(dq(std::move(x)), dq(std::move(g)), std::move(idx), args(o)); \
    }

    BURN_VK_POOL_OPS(1)
    BURN_VK_POOL_OPS(2)
#undef BURN_VK_POOL_OPS

    template <std::size_t N>
    static T adaptive_avg_pool_nd(T x, const std::array<std::size_t, N>& out) {
        return vk::adaptive_avg_pool(dq(std::move(x)), out);
    }
    static T adaptive_avg_pool1d(T x, const std::array<std::size_t, 1>& s) {
        return adaptive_avg_pool_nd(dq(std::move(x)), s);
    }
    static T adaptive_avg_pool2d(T x, const std::array<std::size_t, 2>& s) {
        return adaptive_avg_pool_nd(dq(std::move(x)), s);
    }
    static T adaptive_avg_pool3d(T x, const std::array<std::size_t, 3>& s) {
        return adaptive_avg_pool_nd(dq(std::move(x)), s);
    }
    static T adaptive_avg_pool1d_backward(T x, T g) {
        return vk::adaptive_avg_pool_backward(dq(std::move(x)), dq(std::move(g)));
    }
    static T adaptive_avg_pool2d_backward(T x, T g) {
        return vk::adaptive_avg_pool_backward(dq(std::move(x)), dq(std::move(g)));
    }
    static T adaptive_avg_pool3d_backward(T x, T g) {
        return vk::adaptive_avg_pool_backward(dq(std::move(x)), dq(std::move(g)));
    }

    static T deform_conv2d(T x, T offset, T w, OptT mask, OptT b, const DeformConvOptions<2>& o) {
        return vk::deform_conv2d(dq(std::move(x)), dq(std::move(offset)), dq(std::move(w)),
                                  dq(std::move(mask)), dq(std::move(b)), args(o));
    }
    static DeformConv2dBackward<T> deform_conv2d_backward(T x, T offset, T w, OptT mask, OptT b,
                                                          T g, const DeformConvOptions<2>& o) {
        return vk::deform_conv2d_backward(dq(std::move(x)), dq(std::move(offset)),
                                           dq(std::move(w)), dq(std::move(mask)), dq(std::move(b)),
                                           dq(std::move(g)), args(o));
    }
    static T unfold4d(T x, const std::array<std::size_t, 2>& k, const UnfoldOptions& o) {
        vk::SpatialArgs a;
        a.n = 2;
        for (std::size_t i = 0; i < 2; ++i) {
            a.kernel[i] = k[i], a.stride[i] = o.stride[i], a.padding[i] = o.padding[i];
            a.dilation[i] = o.dilation[i];
        }
        return vk::unfold4d(dq(std::move(x)), a);
    }
    static T interpolate(T x, const std::array<std::size_t, 2>& s, const InterpolateOptions& o) {
        return vk::interpolate(dq(std::move(x)), s, o);
    }
    static T interpolate_backward(T x, T g, const std::array<std::size_t, 2>& s,
                                  const InterpolateOptions& o) {
        return vk::interpolate_backward(dq(std::move(x)), dq(std::move(g)), s, o);
    }
    static T embedding(T w, T idx) { return vk::embedding(dq(std::move(w)), std::move(idx)); }
    static T embedding_backward(T w, T g, T idx) {
        return vk::embedding_backward(dq(std::move(w)), dq(std::move(g)), std::move(idx));
    }

    // ---------------------------------------------------------------- activations
    static T relu(T x) { return vk::activation(vk::Activation::Relu, dq(std::move(x))); }
    static T relu_backward(T out, T g) {
        return vk::activation_backward(vk::Activation::Relu, dq(std::move(out)),
                                        dq(std::move(g)));
    }
    static T gelu(T x) { return vk::activation(vk::Activation::Gelu, dq(std::move(x))); }
    static T gelu_backward(T x, T g) {
        return vk::activation_backward(vk::Activation::Gelu, dq(std::move(x)), dq(std::move(g)));
    }
    static T sigmoid(T x) { return vk::activation(vk::Activation::Sigmoid, dq(std::move(x))); }
    static T sigmoid_backward(T out, T g) {
        return vk::activation_backward(vk::Activation::Sigmoid, dq(std::move(out)),
                                        dq(std::move(g)));
    }
    static T log_sigmoid(T x) {
        return vk::activation(vk::Activation::LogSigmoid, dq(std::move(x)));
    }
    static T log_sigmoid_backward(T x, T g) {
        return vk::activation_backward(vk::Activation::LogSigmoid, dq(std::move(x)),
                                        dq(std::move(g)));
    }
    static T hard_sigmoid(T x, double alpha, double beta) {
        return vk::activation(vk::Activation::HardSigmoid, dq(std::move(x)), alpha, beta);
    }
    static T leaky_relu(T x, double slope) {
        return vk::activation(vk::Activation::LeakyRelu, dq(std::move(x)), slope);
    }
    static T softmax(T x, std::size_t dim) { return vk::softmax(dq(std::move(x)), dim, false); }
    static T log_softmax(T x, std::size_t dim) { return vk::softmax(dq(std::move(x)), dim, true); }
};

}  // namespace burn

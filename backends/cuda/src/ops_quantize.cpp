// SPDX-License-Identifier: MIT OR Apache-2.0
// int8 quantization: quantize / dequantize (kernels/cuda/quantize.cu) and quantized data in and
// out, as the CPU backend (backends/cpu/src/quantize.cpp). A quantized tensor is dense, of dtype
// QInt8 (one int8 per element), with `qinfo` holding the scheme and the host values of its scales
// and offsets.
//
// quantize waits for the device: qinfo holds the scales and offsets as host values (and checks
// them), so the scale and offset tensors are read with a download (a synchronisation), as any
// read. The kernel then takes what qinfo holds: the f32 reciprocal of the scale and the offset as
// arguments for per-tensor schemes, uploaded (no wait) for per-channel ones; the values stored and
// the values used are the same by construction. The input view is read in place (no copy).
// dequantize, quantized_from_data and quantized_into_data use qinfo's host values and do not wait,
// except quantized_into_data, a read.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "ops_common.hpp"

namespace burn::cuda {
namespace {

/// Elements per run of shared parameters, and number of ranges (as the CPU backend).
struct Runs {
    std::size_t inner = 1;
    std::size_t channels = 1;
};

Runs runs_of(const Shape& shape, const QuantizationScheme& scheme) {
    Runs r;
    if (!scheme.is_per_channel()) {
        r.inner = std::max<std::size_t>(shape.num_elements(), 1);
        return r;
    }
    r.channels = shape[scheme.axis];
    for (std::size_t d = scheme.axis + 1; d < shape.rank(); ++d) r.inner *= shape[d];
    r.inner = std::max<std::size_t>(r.inner, 1);
    return r;
}

/// The per-channel parameters on the device: a (value, offset) pair per channel, f32 and i32
/// (kernels/cuda/quantize.cu). Queued on the stream: the block may be released as soon as the
/// kernel that reads it is queued.
std::shared_ptr<Buffer> upload_params(Context& ctx, const std::vector<float>& values,
                                      const QuantizationInfo& info) {
    std::vector<std::uint32_t> words(2 * values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::memcpy(&words[2 * i], &values[i], sizeof(float));
        words[2 * i + 1] = static_cast<std::uint32_t>(info.offset(i));
    }
    const std::size_t bytes = words.size() * sizeof(std::uint32_t);
    auto buffer = ctx.alloc(bytes);
    ctx.upload(buffer->data(), words.data(), bytes);
    return buffer;
}

/// Launch geometry of the kernels: a thread per group of 16 / sizeof(float element) elements.
dim3 grid_for_groups(const Context& ctx, std::size_t n, DType float_dtype) {
    const std::size_t g = 16 / element_size(float_dtype);
    return dim3(grid_for(ctx, (n + g - 1) / g));
}

}  // namespace

CudaTensor Kernels::quantize(CudaTensor t, const QuantizationScheme& scheme, CudaTensor scale,
                             std::optional<CudaTensor> offset) {
    BURN_CHECK(t.dtype == DType::F32 || t.dtype == DType::F64,
               "Cuda quantize: expected a float tensor (f32 or f64), got ", dtype_name(t.dtype),
               " of shape ", t.shape);
    auto info = std::make_shared<QuantizationInfo>();
    info->scheme = scheme;
    // Reads (waits for the device): qinfo keeps host values.
    info->scales = into_data(scale).to_vec<float>();
    if (scheme.is_affine() && offset) info->offsets = into_data(*offset).to_vec<std::int32_t>();
    info->validate(t.shape, "Cuda quantize");

    CudaTensor out = alloc(t.shape, DType::QInt8, t.device);
    const std::size_t n = t.num_elements();
    if (n > 0) {
        Context& ctx = context(t);
        const Runs runs = runs_of(t.shape, scheme);
        // The f32 reciprocal of each scale, as PyTorch and the CPU backend.
        std::vector<float> inv(runs.channels);
        for (std::size_t c = 0; c < runs.channels; ++c) inv[c] = 1.0f / info->scales[c];
        std::shared_ptr<Buffer> params;
        if (scheme.is_per_channel()) params = upload_params(ctx, inv, *info);
        const float* p = params ? static_cast<const float*>(params->data()) : nullptr;
        void* x = first(t);
        const int dense = is_dense(t) ? 1 : 0;
        const int vec = dense && reinterpret_cast<std::uintptr_t>(x) % 16 == 0 ? 1 : 0;
        launch(ctx, "quantize", variant("quantize", t.dtype), grid_for_groups(ctx, n, t.dtype),
               dim3(256), 0, static_cast<const void*>(x), meta(t), dense, vec,
               static_cast<std::int8_t*>(first(out)), static_cast<std::int64_t>(n),
               static_cast<std::int64_t>(runs.inner), static_cast<std::int64_t>(runs.channels),
               inv[0], info->offset(0), p);
    }
    out.qinfo = std::move(info);
    return out;
}

CudaTensor Kernels::dequantize(const CudaTensor& t, DType float_dtype) {
    assert(t.is_dense_quantized());
    BURN_CHECK(float_dtype == DType::F32 || float_dtype == DType::F64,
               "Cuda dequantize: target dtype ", dtype_name(float_dtype),
               " is not a float type (f32 or f64)");
    const QuantizationInfo& info = *t.qinfo;
    CudaTensor out = alloc(t.shape, float_dtype, t.device);
    const std::size_t n = t.num_elements();
    if (n == 0) return out;
    Context& ctx = context(t);
    const Runs runs = runs_of(t.shape, info.scheme);
    std::shared_ptr<Buffer> params;
    if (info.scheme.is_per_channel()) params = upload_params(ctx, info.scales, info);
    const float* p = params ? static_cast<const float*>(params->data()) : nullptr;
    launch(ctx, "quantize", variant("dequantize", float_dtype),
           grid_for_groups(ctx, n, float_dtype), dim3(256), 0,
           static_cast<const std::int8_t*>(first(t)), first(out), static_cast<std::int64_t>(n),
           static_cast<std::int64_t>(runs.inner), static_cast<std::int64_t>(runs.channels),
           info.scales[0], info.offset(0), p);
    return out;
}

CudaTensor Kernels::quantized_from_data(const TensorData& data, const CudaDevice& device) {
    assert(data.is_quantized());
    CudaTensor out = alloc(data.shape, DType::QInt8, device);
    const auto bytes = data.bytes();
    context(device).upload(out.buffer->data(), bytes.data(), bytes.size());
    out.qinfo = std::make_shared<const QuantizationInfo>(*data.quantization());
    return out;
}

TensorData Kernels::quantized_into_data(const CudaTensor& t) {
    assert(t.is_dense_quantized());
    std::vector<std::uint8_t> bytes(t.num_elements());
    Context& ctx = context(t);
    ctx.download(bytes.data(), first(t), bytes.size());
    ctx.check_kernel_errors();
    return TensorData(std::move(bytes), t.shape, *t.qinfo);
}

}  // namespace burn::cuda

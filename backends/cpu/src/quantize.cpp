// SPDX-License-Identifier: MIT OR Apache-2.0
// int8 quantization: quantize / dequantize kernels and quantized data in and out.
//
// A quantized tensor is dense and row-major with one int8 per element. Its elements fall into
// ranges that share a (scale, offset) pair: one range for per-tensor schemes; for per-channel
// schemes range c holds the elements whose index along the axis is c. Flat element i belongs to
// range (i / inner) % channels, where inner is the product of the dims after the axis, so each
// run of `inner` consecutive elements shares its parameters: the inner loops below run over such
// runs with the parameters hoisted out, contiguous, and vectorise.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

/// Elements per run of shared parameters and number of ranges.
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
    return r;
}

/// Calls f(begin, end, range) over [0, n) in parallel, split at the boundaries of the runs.
template <class F>
void for_each_run(std::size_t n, const Runs& runs, F&& f) {
    if (runs.inner == 0) return;
    parallel_for(n, kParallelGrain, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e;) {
            const std::size_t run = i / runs.inner;
            const std::size_t end = std::min(e, (run + 1) * runs.inner);
            f(i, end, run % runs.channels);
            i = end;
        }
    });
}

/// The values of a small tensor, converted into a host vector of E.
template <class E>
std::vector<E> host_values(const CpuTensor& t) {
    std::vector<E> v(t.num_elements());
    if (!v.empty()) copy_into(t, v.data(), ElementTraits<E>::dtype);
    return v;
}

/// In f32 for f32 and f64 input alike (see quantize_value).
template <class E>
void quantize_run(const E* __restrict x, std::int8_t* __restrict q, std::size_t n, float inv_scale,
                  std::int32_t offset) {
    for (std::size_t i = 0; i < n; ++i)
        q[i] = quantize_value(static_cast<float>(x[i]), inv_scale, offset);
}

template <class E>
void dequantize_run(const std::int8_t* __restrict q, E* __restrict x, std::size_t n, E scale,
                    std::int32_t offset) {
    for (std::size_t i = 0; i < n; ++i) x[i] = dequantize_value<E>(q[i], scale, offset);
}

}  // namespace

CpuTensor Kernels::quantize(CpuTensor t, const QuantizationScheme& scheme, CpuTensor scale,
                            std::optional<CpuTensor> offset) {
    auto info = std::make_shared<QuantizationInfo>();
    info->scheme = scheme;
    info->scales = host_values<float>(scale);
    if (scheme.is_affine() && offset) info->offsets = host_values<std::int32_t>(*offset);
    info->validate(t.shape, "cpu::quantize");

    t = contiguous(std::move(t));
    CpuTensor out = alloc(t.shape, DType::QInt8);
    const Runs runs = runs_of(t.shape, scheme);
    dispatch(t.dtype, [&](auto e) {
        using E = decltype(e);
        if constexpr (std::is_floating_point_v<E>) {
            // Per range: the f32 reciprocal of the scale, as PyTorch.
            std::vector<float> inv(runs.channels);
            for (std::size_t c = 0; c < runs.channels; ++c) inv[c] = 1.0f / info->scales[c];
            const E* x = t.data<E>();
            std::int8_t* q = out.data<std::int8_t>();
            const std::size_t n = t.num_elements();
            for_each_run(n, runs, [&](std::size_t b, std::size_t end, std::size_t c) {
                quantize_run<E>(x + b, q + b, end - b, inv[c], info->offset(c));
            });
        } else {
            detail::fail("cpu::quantize: expected a float tensor, got ", dtype_name(t.dtype));
        }
    });
    out.qinfo = std::move(info);
    return out;
}

CpuTensor Kernels::dequantize(const CpuTensor& t, DType float_dtype) {
    assert(t.is_dense_quantized());
    const QuantizationInfo& info = *t.qinfo;
    CpuTensor out = alloc(t.shape, float_dtype);
    const Runs runs = runs_of(t.shape, info.scheme);
    dispatch(float_dtype, [&](auto e) {
        using E = decltype(e);
        if constexpr (std::is_floating_point_v<E>) {
            const std::int8_t* q = t.data<std::int8_t>();
            E* x = out.data<E>();
            const std::size_t n = t.num_elements();
            for_each_run(n, runs, [&](std::size_t b, std::size_t end, std::size_t c) {
                dequantize_run<E>(q + b, x + b, end - b, static_cast<E>(info.scales[c]),
                                  info.offset(c));
            });
        } else {
            detail::fail("cpu::dequantize: target dtype ", dtype_name(float_dtype),
                         " is not a float type");
        }
    });
    return out;
}

CpuTensor Kernels::quantized_from_data(const TensorData& data, const CpuDevice&) {
    assert(data.is_quantized());
    CpuTensor out = alloc(data.shape, DType::QInt8);
    const auto bytes = data.bytes();
    if (!bytes.empty()) std::memcpy(out.buffer->data(), bytes.data(), bytes.size());
    out.qinfo = std::make_shared<const QuantizationInfo>(*data.quantization());
    return out;
}

TensorData Kernels::quantized_into_data(const CpuTensor& t) {
    assert(t.is_dense_quantized());
    std::vector<std::uint8_t> bytes(t.num_elements());
    if (!bytes.empty()) std::memcpy(bytes.data(), t.buffer->data(), bytes.size());
    return TensorData(std::move(bytes), t.shape, *t.qinfo);
}

}  // namespace burn::cpu

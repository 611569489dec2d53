// SPDX-License-Identifier: MIT OR Apache-2.0
#include "ops_common.hpp"

#include <algorithm>
#include <vector>

namespace burn::cuda {

std::size_t element_size(DType dtype, const char* op) {
    switch (dtype) {
        case DType::F32: return 4;
        case DType::F64: return 8;
        case DType::F16: return 2;
        case DType::BF16: return 2;
        case DType::I16: return 2;
        case DType::I32: return 4;
        case DType::I64: return 8;
        case DType::Bool: return 1;
        case DType::QInt8: return 1;
        default: break;
    }
    ::burn::detail::fail(
        "Cuda ", op, ": dtype ", dtype,
        " is not supported by the CUDA backend (f32, f64, f16, bf16, i32, i64, bool, qint8)");
}

const char* dtype_suffix(DType dtype) {
    switch (dtype) {
        case DType::F32: return "f32";
        case DType::F64: return "f64";
        case DType::F16: return "f16";
        case DType::BF16: return "bf16";
        case DType::I16: return "i16";
        case DType::I32: return "i32";
        case DType::I64: return "i64";
        case DType::Bool: return "bool";
        case DType::QInt8: return "i8";
        default: break;
    }
    ::burn::detail::fail("Cuda: dtype ", dtype,
                         " has no CUDA kernels (f32, f64, f16, bf16, i32, i64, bool, qint8)");
}

DType bits_dtype(DType d) {
    switch (element_size(d)) {
        case 1: return DType::QInt8;
        case 2: return DType::I16;
        case 4: return DType::I32;
        default: return DType::I64;
    }
}

std::string variant(const char* base, DType dtype) {
    return std::string(base) + "_" + dtype_suffix(dtype);
}

CudaTensor alloc(const Shape& shape, DType dtype, const CudaDevice& device) {
    CudaTensor t;
    t.shape = shape;
    t.strides = backend::contiguous_strides(shape);
    t.dtype = dtype;
    t.device = device;
    t.buffer = context(device).alloc(shape.num_elements() * element_size(dtype, "alloc"));
    return t;
}

Meta meta(const backend::StridedLayout& t) {
    Meta m;
    m.rank = static_cast<std::int32_t>(t.rank());
    for (std::size_t d = 0; d < t.rank(); ++d) {
        m.shape[d] = static_cast<std::int64_t>(t.shape[d]);
        m.strides[d] = t.strides[d];
    }
    return m;
}

Meta meta_broadcast(const backend::StridedLayout& t, const Shape& as) {
    const auto strides = backend::view::broadcast_strides(t, as);
    Meta m;
    m.rank = static_cast<std::int32_t>(as.rank());
    for (std::size_t d = 0; d < as.rank(); ++d) {
        m.shape[d] = static_cast<std::int64_t>(as[d]);
        m.strides[d] = strides[d];
    }
    return m;
}

void collapse_metas(const Shape& shape, std::span<const backend::StridedLayout* const> views,
                    Meta* m) {
    const std::size_t k_views = views.size();
    std::vector<backend::Strides> strides(k_views);
    for (std::size_t k = 0; k < k_views; ++k) {
        strides[k] = backend::view::broadcast_strides(*views[k], shape);
        m[k] = Meta{};
    }
    std::int32_t r = 0;
    for (std::size_t d = 0; d < shape.rank(); ++d) {
        const auto size = static_cast<std::int64_t>(shape[d]);
        if (size == 1) continue;
        bool merge = r > 0;
        for (std::size_t k = 0; k < k_views && merge; ++k)
            merge = m[k].strides[r - 1] == strides[k][d] * size;
        for (std::size_t k = 0; k < k_views; ++k) {
            if (merge) {
                m[k].shape[r - 1] *= size;
                m[k].strides[r - 1] = strides[k][d];
            } else {
                m[k].shape[r] = size;
                m[k].strides[r] = strides[k][d];
            }
        }
        if (!merge) ++r;
    }
    if (r == 0) {  // a single element
        for (std::size_t k = 0; k < k_views; ++k) m[k].shape[0] = 1, m[k].strides[0] = 0;
        r = 1;
    }
    for (std::size_t k = 0; k < k_views; ++k) m[k].rank = r;
}

void* first(const CudaTensor& t) {
    BURN_CHECK(t.buffer != nullptr, "Cuda: a tensor without a buffer (moved from?) was used");
    return static_cast<char*>(t.buffer->data()) +
           t.offset * static_cast<std::int64_t>(element_size(t.dtype));
}

bool reusable(const CudaTensor& t, const Shape& shape, DType dtype) {
    return t.is_unique() && t.dtype == dtype && t.shape == shape && t.is_contiguous() && !t.qinfo;
}

CudaTensor output_for(const CudaTensor& t, const Shape& shape, DType dtype) {
    return reusable(t, shape, dtype) ? t : alloc(shape, dtype, t.device);
}

unsigned grid_for(const Context& ctx, std::uint64_t n, unsigned block) {
    const std::uint64_t blocks = (n + block - 1) / block;
    const std::uint64_t cap = static_cast<std::uint64_t>(ctx.properties().multiProcessorCount) * 32;
    return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(blocks, cap)));
}

}  // namespace burn::cuda

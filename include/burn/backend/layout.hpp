// SPDX-License-Identifier: MIT OR Apache-2.0
// Strided layouts and the view algebra of the backend kit: a view (reshape when the strides allow
// it, permute, swap_dims, flip, expand, slice) rewrites shape, strides and offset and never
// touches data, so it is host code shared by every backend (src/backend/layout.cpp, tested
// without a device in tests/backend). StridedTensor is the primitive of the kit's backends: a
// strided view into a reference-counted buffer of the backend's.
//
// Arguments are valid: the Tensor layer checks axes, ranges and shapes and throws burn::Error
// first (debug builds assert here).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "burn/tensor/dtype.hpp"
#include "burn/tensor/quantization_scheme.hpp"
#include "burn/tensor/shape.hpp"

namespace burn::backend {

/// Element strides of a view, one per dim (only the first rank() are used).
using Strides = std::array<std::int64_t, Shape::max_rank>;

/// Row-major strides of a contiguous tensor of `shape`.
inline Strides contiguous_strides(const Shape& shape) {
    Strides s{};
    std::int64_t acc = 1;
    for (std::size_t i = shape.rank(); i-- > 0;) {
        s[i] = acc;
        acc *= static_cast<std::int64_t>(shape[i]);
    }
    return s;
}

/// Where a view's elements are: element (i_0, ..., i_k) at `offset + sum(i_d * strides[d])`
/// elements into the buffer. Strides may be 0 (a broadcast dim) or negative (a flipped one).
struct StridedLayout {
    Shape shape;
    Strides strides{};
    std::int64_t offset = 0;

    std::size_t num_elements() const { return shape.num_elements(); }
    std::size_t rank() const { return shape.rank(); }
    /// Row-major and dense (views with holes, broadcasts or flips are not).
    bool is_contiguous() const {
        std::int64_t acc = 1;
        for (std::size_t i = shape.rank(); i-- > 0;) {
            if (shape[i] != 1 && strides[i] != acc) return false;
            acc *= static_cast<std::int64_t>(shape[i]);
        }
        return true;
    }
};

namespace view {

/// Strides that show `layout`'s elements as `shape` (same element count) without moving data,
/// if any (PyTorch's "view if possible"); otherwise the caller makes the data contiguous first.
std::optional<Strides> reshape_strides(const StridedLayout& layout, const Shape& shape);
/// Dim i of the result is dim axes[i] of the input (axes: a permutation of 0..rank-1).
void permute(StridedLayout& layout, std::span<const std::size_t> axes);
void swap_dims(StridedLayout& layout, std::size_t a, std::size_t b);
/// Reverses the listed (distinct) dims.
void flip(StridedLayout& layout, std::span<const std::size_t> axes);
/// Broadcasts to `shape` (new leading dims, size-1 dims stretched): stride 0 there.
void expand(StridedLayout& layout, const Shape& shape);
/// Keeps `ranges[d]` of each leading dim d (in bounds, positive steps).
void slice(StridedLayout& layout, std::span<const SliceRange> ranges);
/// The strides of `layout` seen from a tensor of shape `out` it broadcasts to (right-aligned:
/// size-1 or missing dims get stride 0).
Strides broadcast_strides(const StridedLayout& layout, const Shape& out);

}  // namespace view

/// The primitive of a kit backend, for every kind (float, int and bool tensors): a strided view
/// into a buffer shared by copies (copying a StridedTensor shares the data, as Burn's clone).
/// `Buffer` is the backend's memory block (host or device); `Device` its device type. A
/// quantized float tensor has dtype QInt8 (dense, int8 values) and `qinfo` set; every other
/// tensor has a null `qinfo`.
template <class Buffer, class Device>
struct StridedTensor : StridedLayout {
    std::shared_ptr<Buffer> buffer;
    DType dtype = DType::F32;
    [[no_unique_address]] Device device{};
    std::shared_ptr<const QuantizationInfo> qinfo;

    /// This handle is the buffer's only owner: ops may write the result into it.
    bool is_unique() const { return buffer && buffer.use_count() == 1; }
    /// A quantized tensor as quantize and quantized_from_data make it: dense, at offset 0 (the
    /// adapter dequantizes before any view, so the kernels only see these).
    bool is_dense_quantized() const {
        return qinfo && dtype == DType::QInt8 && is_contiguous() && offset == 0;
    }
    /// The first element (host buffers: `Buffer::data()` returns the block's start).
    template <class E>
    E* data() const {
        return reinterpret_cast<E*>(buffer->data()) + offset;
    }
};

}  // namespace burn::backend

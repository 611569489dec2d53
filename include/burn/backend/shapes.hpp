// SPDX-License-Identifier: MIT OR Apache-2.0
// Output shapes and argument setup that every kit backend computes the same way: the shapes of
// cat, repeat_dim, matmul, convolutions and pooling, and the geometry of a convolution. Host code
// (src/backend/shapes.cpp, tested without a device in tests/backend), shared by the kernel sets.
//
// Arguments are valid: the Tensor layer (and burn::module) checked ranks, shapes and dims and
// threw burn::Error first (debug builds assert here). What only a kernel can find, an output too
// large to address, throws burn::Error naming the op.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "burn/backend/ops.hpp"
#include "burn/tensor/shape.hpp"

namespace burn::backend {

/// Whether a tensor of shape `from` broadcasts to exactly `to` (trailing dims equal or 1, no
/// more dims than `to`): the mask and value operands of mask_where / mask_fill.
bool broadcasts_to(const Shape& from, const Shape& to);

/// The shape of the concatenation of tensors of `shapes` (equal outside `dim`) along `dim`.
/// Throws burn::Error ("cat: the output is too large") when the size along dim overflows.
Shape cat_shape(std::span<const Shape> shapes, std::size_t dim);
/// cat_shape of the shapes of `tensors` (any layouts: StridedTensor, StridedLayout).
template <class Tensor>
Shape cat_shape(const std::vector<Tensor>& tensors, std::size_t dim) {
    std::vector<Shape> shapes;
    shapes.reserve(tensors.size());
    for (const Tensor& t : tensors) shapes.push_back(t.shape);
    return cat_shape(std::span<const Shape>(shapes), dim);
}

/// `shape` with dim `dim` repeated `times` times. Throws burn::Error ("repeat_dim: the output is
/// too large") when that size overflows.
Shape repeat_dim_shape(const Shape& shape, std::size_t dim, std::size_t times);

/// The number of elements of arange(start, end, step) (step non-zero), exact for every pair of
/// int64 bounds.
std::uint64_t arange_length(std::int64_t start, std::int64_t end, std::int64_t step);

/// The shape of the batched matrix product lhs [..., m, k] x rhs [..., k, n]: the batch dims
/// broadcast, then [m, n] (both ranks equal and at least 2).
Shape matmul_shape(const Shape& lhs, const Shape& rhs);

/// The output shape of a convolution of x [b, c_in, s...] by w [c_out, c_in / groups, k...].
Shape conv_shape(const Shape& x, const Shape& w, const SpatialArgs& a);
/// The output shape of a transposed convolution of x by w [c_in, c_out / groups, k...].
Shape conv_transpose_shape(const Shape& x, const Shape& w, const SpatialArgs& a);
/// The output shape of a 1-d or 2-d pooling of x (a.kernel is the window).
Shape pool_shape(const Shape& x, const SpatialArgs& a);

/// A convolution from an input [batch, cin, in...] to an output [batch, cout, out...] with a
/// weight [cout, cin / groups, kernel...], its spatial dims right-aligned into three (missing
/// leading dims have size 1, stride 1, no padding). Signed extents, so that window arithmetic
/// (o * stride - padding + k * dilation) may go below zero.
struct ConvGeometry {
    std::size_t batch = 0, cin = 0, cout = 0, groups = 1;
    std::array<std::int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0},
        d{1, 1, 1};
};

/// The geometry of the convolution that maps `input` to `output` with a weight of shape
/// `weight` and the strides, paddings, dilations and groups of `a`. A transposed convolution is
/// the input-gradient of the convolution whose weight has its layout: its geometry has input and
/// output swapped (conv_geometry(output, weight, x, a)).
ConvGeometry conv_geometry(const Shape& input, const Shape& weight, const Shape& output,
                           const SpatialArgs& a);

}  // namespace burn::backend

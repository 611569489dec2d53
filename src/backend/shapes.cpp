// SPDX-License-Identifier: MIT OR Apache-2.0
// Output shapes and convolution geometry shared by the kit's backends (burn/backend/shapes.hpp).
#include "burn/backend/shapes.hpp"

#include <cassert>

#include "burn/tensor/error.hpp"
#include "burn/tensor/module_options.hpp"

namespace burn::backend {

bool broadcasts_to(const Shape& from, const Shape& to) {
    if (from.rank() > to.rank()) return false;
    for (std::size_t i = 0; i < from.rank(); ++i) {
        const std::size_t f = from[from.rank() - 1 - i], t = to[to.rank() - 1 - i];
        if (f != t && f != 1) return false;
    }
    return true;
}

Shape cat_shape(std::span<const Shape> shapes, std::size_t dim) {
    assert(!shapes.empty() && dim < shapes[0].rank());
    Shape out = shapes[0];
    std::size_t total = 0;
    for (const Shape& s : shapes) {
        assert(s.rank() == out.rank());
        for (std::size_t d = 0; d < out.rank(); ++d) assert(d == dim || s[d] == out[d]);
        BURN_CHECK(!__builtin_add_overflow(total, s[dim], &total), "cat: the output is too large");
    }
    out[dim] = total;
    return out;
}

Shape repeat_dim_shape(const Shape& shape, std::size_t dim, std::size_t times) {
    assert(dim < shape.rank());
    Shape out = shape;
    BURN_CHECK(!__builtin_mul_overflow(shape[dim], times, &out[dim]),
               "repeat_dim: the output is too large");
    return out;
}

std::uint64_t arange_length(std::int64_t start, std::int64_t end, std::int64_t step) {
    assert(step != 0);
    if (!((step > 0 && end > start) || (step < 0 && end < start))) return 0;
    // Unsigned arithmetic: the distance between two int64 values may not fit in an int64.
    const std::uint64_t dist =
        step > 0 ? static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(start)
                 : static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(end);
    const std::uint64_t s = step > 0 ? static_cast<std::uint64_t>(step)
                                     : std::uint64_t{0} - static_cast<std::uint64_t>(step);
    return dist / s + (dist % s != 0);
}

Shape matmul_shape(const Shape& lhs, const Shape& rhs) {
    const std::size_t r = lhs.rank();
    assert(r >= 2 && rhs.rank() == r && rhs[r - 2] == lhs[r - 1]);
    Shape out = lhs;
    for (std::size_t i = 0; i + 2 < r; ++i) {
        assert(lhs[i] == rhs[i] || lhs[i] == 1 || rhs[i] == 1);
        out[i] = lhs[i] == 1 ? rhs[i] : lhs[i];
    }
    out[r - 1] = rhs[r - 1];
    return out;
}

Shape conv_shape(const Shape& x, const Shape& w, const SpatialArgs& a) {
    assert(x.rank() == a.n + 2 && w.rank() == a.n + 2);
    Shape s{x[0], w[0]};
    for (std::size_t i = 0; i < a.n; ++i)
        s.push_back(conv_output_size(x[2 + i], w[2 + i], a.stride[i], a.padding[i], a.dilation[i]));
    return s;
}

Shape conv_transpose_shape(const Shape& x, const Shape& w, const SpatialArgs& a) {
    assert(x.rank() == a.n + 2 && w.rank() == a.n + 2);
    Shape s{x[0], w[1] * a.groups};
    for (std::size_t i = 0; i < a.n; ++i)
        s.push_back(conv_transpose_output_size(x[2 + i], w[2 + i], a.stride[i], a.padding[i],
                                               a.padding_out[i], a.dilation[i]));
    return s;
}

Shape pool_shape(const Shape& x, const SpatialArgs& a) {
    assert((a.n == 1 || a.n == 2) && x.rank() == a.n + 2);
    Shape s{x[0], x[1]};
    for (std::size_t i = 0; i < a.n; ++i)
        s.push_back(conv_output_size(x[2 + i], a.kernel[i], a.stride[i], a.padding[i],
                                     a.dilation[i], a.ceil_mode));
    return s;
}

ConvGeometry conv_geometry(const Shape& input, const Shape& weight, const Shape& output,
                           const SpatialArgs& a) {
    assert(a.n >= 1 && a.n <= 3 && input.rank() == a.n + 2 && weight.rank() == a.n + 2 &&
           output.rank() == a.n + 2);
    ConvGeometry g;
    g.batch = input[0];
    g.cin = input[1];
    g.cout = weight[0];
    g.groups = a.groups;
    const std::size_t off = 3 - a.n;
    auto i64 = [](std::size_t v) { return static_cast<std::int64_t>(v); };
    for (std::size_t i = 0; i < a.n; ++i) {
        g.in[off + i] = i64(input[2 + i]);
        g.out[off + i] = i64(output[2 + i]);
        g.k[off + i] = i64(weight[2 + i]);
        g.s[off + i] = i64(a.stride[i]);
        g.p[off + i] = i64(a.padding[i]);
        g.d[off + i] = i64(a.dilation[i]);
    }
    return g;
}

}  // namespace burn::backend

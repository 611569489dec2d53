// SPDX-License-Identifier: MIT OR Apache-2.0
// Helpers of the ONNX op library (burn::onnx::ops): errors, axis normalisation, rank alignment
// and broadcasting, kind conversion, padding. Everything runs through B's ops; only shape-like
// int64 tensors (shapes, axes, pads) are read on the host.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "burn/onnx/value.hpp"

namespace burn::onnx::ops {

template <class B>
using OptValue = std::optional<Value<B>>;

namespace detail {

/// Throws burn::Error "onnx::<op>: ...".
template <class... A>
[[noreturn]] void fail(std::string_view op, const A&... a) {
    ::burn::detail::fail("onnx::", op, ": ", a...);
}

/// An ONNX axis in [-rank, rank) as a dim index.
inline std::size_t norm_axis(std::int64_t axis, std::size_t rank, std::string_view op) {
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r) fail(op, "axis ", axis, " is out of range for rank ", rank);
    return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}
/// Several axes, sorted, each once.
inline std::vector<std::size_t> norm_axes(std::span<const std::int64_t> axes, std::size_t rank,
                                          std::string_view op) {
    std::vector<std::size_t> out;
    for (auto a : axes) out.push_back(norm_axis(a, rank, op));
    std::sort(out.begin(), out.end());
    if (std::adjacent_find(out.begin(), out.end()) != out.end())
        fail(op, "an axis is repeated in the axes list");
    return out;
}

inline Shape shape_from(std::span<const std::size_t> dims) { return Shape(dims); }

template <class B>
Value<B> reshape(const Value<B>& v, const Shape& s) {
    return v.map([&](auto k, const auto& p) { return KindOps<B, decltype(k)>::reshape(p, s); });
}
template <class B>
Value<B> permute(const Value<B>& v, std::span<const std::size_t> axes) {
    return v.map([&](auto k, const auto& p) { return KindOps<B, decltype(k)>::permute(p, axes); });
}
template <class B>
Value<B> expand(const Value<B>& v, const Shape& s) {
    if (v.shape() == s) return v;
    return v.map([&](auto k, const auto& p) { return KindOps<B, decltype(k)>::expand(p, s); });
}
template <class B>
Value<B> flip(const Value<B>& v, std::span<const std::size_t> axes) {
    return v.map([&](auto k, const auto& p) { return KindOps<B, decltype(k)>::flip(p, axes); });
}
template <class B>
Value<B> slice(const Value<B>& v, std::span<const SliceRange> ranges) {
    return v.map([&](auto k, const auto& p) { return KindOps<B, decltype(k)>::slice(p, ranges); });
}
/// `len` elements from `start` along `dim`.
template <class B>
Value<B> narrow(const Value<B>& v, std::size_t dim, std::size_t start, std::size_t len) {
    const Shape s = v.shape();
    std::vector<SliceRange> r(s.rank());
    for (std::size_t i = 0; i < s.rank(); ++i) r[i] = {0, s[i], 1};
    r[dim] = {start, len, 1};
    return slice(v, r);
}
/// Concatenation along `dim`; values of another kind are converted to v[0]'s.
template <class B>
Value<B> to_kind(const Value<B>& v, ElemType type);
template <class B>
Value<B> cat(const std::vector<Value<B>>& vs, std::size_t dim) {
    const Value<B>& first = vs.front();
    return first.map([&](auto k, const auto&) {
        using K = decltype(k);
        std::vector<typename KindOps<B, K>::Prim> ps;
        for (const auto& v : vs)
            ps.push_back(v.kind() == first.kind() ? v.template prim<K>()
                                                  : to_kind(v, first.type()).template prim<K>());
        return KindOps<B, K>::cat(std::move(ps), dim);
    });
}

/// Prepends size-1 dims up to rank `r`.
template <class B>
Value<B> align_rank(const Value<B>& v, std::size_t r) {
    const Shape s = v.shape();
    if (s.rank() >= r) return v;
    Shape t;
    for (std::size_t i = s.rank(); i < r; ++i) t.push_back(1);
    for (auto d : s) t.push_back(d);
    return reshape(v, t);
}

/// Converts to the kind of `type` (no rounding to narrower types) and sets the type.
template <class B>
Value<B> to_kind(const Value<B>& v, ElemType type) {
    switch (kind_of(type)) {
        case ValueKind::Float: return Value<B>(Float{}, v.to_float(), type);
        case ValueKind::Int: return Value<B>(Int{}, v.to_int(), type);
        case ValueKind::Bool: break;
    }
    return Value<B>(Bool{}, v.to_bool());
}

/// A rank-0 (or `shape`) value filled with `x`.
template <class B>
Value<B> full(const Shape& shape, double x, ElemType type, const typename B::Device& dev) {
    switch (kind_of(type)) {
        case ValueKind::Float: return Value<B>(Float{}, B::float_full(shape, x, dev), type);
        case ValueKind::Int:
            return Value<B>(Int{}, B::int_full(shape, static_cast<std::int64_t>(x), dev), type);
        case ValueKind::Bool: break;
    }
    return Value<B>(Bool{}, B::int_not_equal_elem(B::int_full(shape, x != 0 ? 1 : 0, dev), 0));
}

/// A float value of `type` from host doubles.
template <class B>
Value<B> host_float_value(const std::vector<double>& v, const Shape& s, ElemType type,
                          const typename B::Device& dev) {
    return Value<B>::from_data(TensorData(v, s).convert(storage_dtype(type)), type, dev);
}

/// A host vector of int64 as an int64 value of shape [n].
template <class B>
Value<B> ints_value(const std::vector<std::int64_t>& v, const typename B::Device& dev,
                    std::optional<Shape> shape = std::nullopt) {
    return Value<B>::from_data(TensorData(v, shape ? *shape : Shape{v.size()}), ElemType::Int64,
                               dev);
}

/// Both values broadcast to their common shape (NumPy rules), ranks aligned first.
template <class B>
std::pair<Value<B>, Value<B>> broadcast(const Value<B>& a, const Value<B>& b, std::string_view op) {
    const std::size_t r = std::max(a.rank(), b.rank());
    Value<B> x = align_rank(a, r), y = align_rank(b, r);
    const std::string name(op);
    const Shape s = broadcast_shapes(x.shape(), y.shape(), name.c_str());
    return {expand(x, s), expand(y, s)};
}

/// Reads a shape-like tensor (rank 0 or 1) as host int64 values.
template <class B>
std::vector<std::int64_t> host_ints(const Value<B>& v, std::string_view op, std::string_view what) {
    if (v.is_float()) fail(op, what, " must be an integer tensor, got ", v.describe());
    if (v.rank() > 1) fail(op, what, " must be a scalar or a 1-D tensor, got ", v.describe());
    return v.to_ints();
}
template <class B>
double host_scalar(const Value<B>& v, std::string_view op, std::string_view what) {
    if (v.shape().num_elements() != 1)
        fail(op, what, " must hold exactly one value, got ", v.describe());
    return v.to_doubles()[0];
}

/// Float primitive of `v`, failing unless it is a float value.
template <class B>
typename B::FloatTensor require_float(const Value<B>& v, std::string_view op,
                                      std::string_view what = "input") {
    if (!v.is_float()) fail(op, what, " must be a float tensor, got ", v.describe());
    return v.float_prim();
}

/// Pads each dim `d` with begins[d] / ends[d] copies of `value` (negative counts crop).
template <class B>
Value<B> pad_constant(const Value<B>& v, std::span<const std::int64_t> begins,
                      std::span<const std::int64_t> ends, double value) {
    Value<B> out = v;
    for (std::size_t d = 0; d < begins.size(); ++d) {
        Shape s = out.shape();
        std::int64_t b = begins[d], e = ends[d];
        const auto n = static_cast<std::int64_t>(s[d]);
        if (b < 0 || e < 0) {
            const std::int64_t start = std::max<std::int64_t>(0, -b);
            const std::int64_t stop = n - std::max<std::int64_t>(0, -e);
            if (stop < start)
                fail("Pad", "cropping ", -b, " and ", -e, " from dim ", d, " of size ", n);
            out = narrow(out, d, static_cast<std::size_t>(start),
                         static_cast<std::size_t>(stop - start));
            b = std::max<std::int64_t>(b, 0);
            e = std::max<std::int64_t>(e, 0);
            s = out.shape();
        }
        if (b == 0 && e == 0) continue;
        std::vector<Value<B>> parts;
        const auto dev = out.device();
        if (b > 0) {
            Shape ps = s;
            ps[d] = static_cast<std::size_t>(b);
            parts.push_back(full<B>(ps, value, out.type(), dev));
        }
        parts.push_back(out);
        if (e > 0) {
            Shape ps = s;
            ps[d] = static_cast<std::size_t>(e);
            parts.push_back(full<B>(ps, value, out.type(), dev));
        }
        out = cat(parts, d);
    }
    return out;
}

/// Removes the dims of `axes` (which must have size 1) from the shape.
inline Shape squeeze_shape(const Shape& s, std::span<const std::size_t> axes) {
    Shape out;
    for (std::size_t i = 0; i < s.rank(); ++i)
        if (std::find(axes.begin(), axes.end(), i) == axes.end()) out.push_back(s[i]);
    return out;
}

/// Number of elements of dims [from, to).
inline std::size_t dims_product(const Shape& s, std::size_t from, std::size_t to) {
    std::size_t n = 1;
    for (std::size_t i = from; i < to; ++i) n *= s[i];
    return n;
}

}  // namespace detail
}  // namespace burn::onnx::ops

// SPDX-License-Identifier: MIT OR Apache-2.0
// ONNX shape and indexing ops over burn::onnx::Value<B>: Reshape, Flatten, Transpose,
// Squeeze/Unsqueeze, Concat, Split, Slice, Gather*, Scatter*, Expand, Tile, Pad, Shape, Size,
// ConstantOfShape, Range, Trilu, OneHot, EyeLike, NonZero, Compress, DepthToSpace, SpaceToDepth.
#pragma once

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "burn/onnx/ops_common.hpp"

namespace burn::onnx::ops {

/// Reshape: 0 copies the input's dim (unless allowzero), -1 is inferred.
template <class B>
Value<B> reshape(const Value<B>& x, const std::vector<std::int64_t>& shape, bool allowzero) {
    const Shape in = x.shape();
    Shape out;
    std::int64_t infer = -1;
    std::size_t known = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        std::int64_t d = shape[i];
        if (d == 0 && !allowzero) {
            if (i >= in.rank())
                detail::fail("Reshape", "0 at position ", i, " copies a dim that ", in,
                             " does not have");
            d = static_cast<std::int64_t>(in[i]);
        }
        if (d == -1) {
            if (infer >= 0) detail::fail("Reshape", "more than one -1 in the target shape");
            infer = static_cast<std::int64_t>(i);
            out.push_back(1);
            continue;
        }
        if (d < 0) detail::fail("Reshape", "invalid dim ", d, " in the target shape");
        out.push_back(static_cast<std::size_t>(d));
        known *= static_cast<std::size_t>(d);
    }
    const std::size_t n = in.num_elements();
    if (infer >= 0) {
        if (known == 0 || n % known != 0)
            detail::fail("Reshape", "cannot infer -1: ", n, " elements of ", in,
                         " are not a multiple of ", known);
        out[static_cast<std::size_t>(infer)] = n / known;
    }
    if (out.num_elements() != n)
        detail::fail("Reshape", "cannot reshape ", x.describe(), " (", n, " elements) to ", out);
    return detail::reshape(x, out);
}

template <class B>
Value<B> flatten(const Value<B>& x, std::int64_t axis) {
    const Shape s = x.shape();
    const auto r = static_cast<std::int64_t>(s.rank());
    if (axis < -r || axis > r) detail::fail("Flatten", "axis ", axis, " is out of range for ", s);
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
    return detail::reshape(
        x, Shape{detail::dims_product(s, 0, a), detail::dims_product(s, a, s.rank())});
}

/// Transpose; an empty perm reverses the dims.
template <class B>
Value<B> transpose(const Value<B>& x, std::vector<std::int64_t> perm) {
    const std::size_t r = x.rank();
    if (perm.empty())
        for (std::size_t i = 0; i < r; ++i) perm.push_back(static_cast<std::int64_t>(r - 1 - i));
    if (perm.size() != r)
        detail::fail("Transpose", "perm has ", perm.size(), " entries for ", x.describe());
    std::vector<std::size_t> axes;
    std::vector<bool> seen(r, false);
    for (auto p : perm) {
        const std::size_t a = detail::norm_axis(p, r, "Transpose");
        if (seen[a]) detail::fail("Transpose", "perm repeats axis ", a);
        seen[a] = true;
        axes.push_back(a);
    }
    return detail::permute(x, axes);
}

template <class B>
Value<B> squeeze(const Value<B>& x, const std::optional<std::vector<std::int64_t>>& axes) {
    const Shape s = x.shape();
    std::vector<std::size_t> ax;
    if (axes) {
        ax = detail::norm_axes(*axes, s.rank(), "Squeeze");
        for (auto a : ax)
            if (s[a] != 1) detail::fail("Squeeze", "dim ", a, " of ", x.describe(), " is not 1");
    } else {
        for (std::size_t i = 0; i < s.rank(); ++i)
            if (s[i] == 1) ax.push_back(i);
    }
    return detail::reshape(x, detail::squeeze_shape(s, ax));
}

template <class B>
Value<B> unsqueeze(const Value<B>& x, const std::vector<std::int64_t>& axes) {
    const Shape s = x.shape();
    const std::size_t r = s.rank() + axes.size();
    const auto ax = detail::norm_axes(axes, r, "Unsqueeze");
    Shape out;
    std::size_t j = 0;
    for (std::size_t i = 0; i < r; ++i) {
        if (std::binary_search(ax.begin(), ax.end(), i)) out.push_back(1);
        else out.push_back(s[j++]);
    }
    return detail::reshape(x, out);
}

template <class B>
Value<B> concat(const std::vector<Value<B>>& xs, std::int64_t axis) {
    if (xs.empty()) detail::fail("Concat", "at least one input is required");
    const Shape s0 = xs[0].shape();
    const std::size_t a = detail::norm_axis(axis, s0.rank(), "Concat");
    for (const auto& x : xs) {
        const Shape s = x.shape();
        bool ok = s.rank() == s0.rank();
        for (std::size_t i = 0; ok && i < s.rank(); ++i) ok = i == a || s[i] == s0[i];
        if (!ok)
            detail::fail("Concat", "input ", x.describe(), " does not match ", xs[0].describe(),
                         " outside axis ", a);
    }
    return detail::cat(xs, a);
}

/// Split along axis into the given sizes (or `num_outputs` equal parts, the last smaller).
template <class B>
std::vector<Value<B>> split(const Value<B>& x, std::int64_t axis, std::vector<std::int64_t> sizes,
                            std::size_t num_outputs) {
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "Split");
    if (sizes.empty()) {
        if (num_outputs == 0) detail::fail("Split", "no split sizes and no outputs");
        const std::size_t part = (s[a] + num_outputs - 1) / num_outputs;
        for (std::size_t i = 0, left = s[a]; i < num_outputs; ++i) {
            const std::size_t n = std::min(part, left);
            sizes.push_back(static_cast<std::int64_t>(n));
            left -= n;
        }
    }
    std::int64_t total = 0;
    for (auto n : sizes) {
        if (n < 0) detail::fail("Split", "negative split size ", n);
        total += n;
    }
    if (total != static_cast<std::int64_t>(s[a]))
        detail::fail("Split", "sizes sum to ", total, " but dim ", a, " of ", x.describe(), " is ",
                     s[a]);
    std::vector<Value<B>> out;
    std::size_t start = 0;
    for (auto n : sizes) {
        out.push_back(detail::narrow(x, a, start, static_cast<std::size_t>(n)));
        start += static_cast<std::size_t>(n);
    }
    return out;
}

/// Slice with NumPy semantics per axis (negative steps included; starts/ends clamp).
template <class B>
Value<B> slice(const Value<B>& x, const std::vector<std::int64_t>& starts,
               const std::vector<std::int64_t>& ends, std::vector<std::int64_t> axes,
               std::vector<std::int64_t> steps) {
    const Shape s = x.shape();
    if (starts.size() != ends.size())
        detail::fail("Slice", starts.size(), " starts but ", ends.size(), " ends");
    if (axes.empty())
        for (std::size_t i = 0; i < starts.size(); ++i)
            axes.push_back(static_cast<std::int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size())
        detail::fail("Slice", "starts, ends, axes and steps must have the same length");
    std::vector<SliceRange> r(s.rank());
    for (std::size_t i = 0; i < s.rank(); ++i) r[i] = {0, s[i], 1};
    std::vector<std::size_t> flips;
    std::vector<bool> seen(s.rank(), false);
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const std::size_t a = detail::norm_axis(axes[i], s.rank(), "Slice");
        if (seen[a]) detail::fail("Slice", "axis ", a, " is repeated");
        seen[a] = true;
        const auto n = static_cast<std::int64_t>(s[a]);
        const std::int64_t step = steps[i];
        if (step == 0) detail::fail("Slice", "step 0 on axis ", a);
        std::int64_t st = starts[i], en = ends[i];
        if (st < 0) st += n;
        if (en < 0) en += n;
        if (step > 0) {
            st = std::clamp<std::int64_t>(st, 0, n);
            en = std::clamp<std::int64_t>(en, 0, n);
            const std::int64_t len = en > st ? (en - st + step - 1) / step : 0;
            r[a] = {static_cast<std::size_t>(st), static_cast<std::size_t>(len),
                    static_cast<std::size_t>(step)};
        } else {
            st = std::clamp<std::int64_t>(st, -1, n - 1);
            en = std::clamp<std::int64_t>(en, -1, n - 1);
            const std::int64_t len = st > en ? (st - en + (-step) - 1) / (-step) : 0;
            const std::int64_t low = len > 0 ? st + (len - 1) * step : 0;
            r[a] = {static_cast<std::size_t>(low), static_cast<std::size_t>(len),
                    static_cast<std::size_t>(-step)};
            flips.push_back(a);
        }
    }
    Value<B> y = detail::slice(x, r);
    if (!flips.empty()) y = detail::flip(y, flips);
    return y;
}

namespace detail {
/// Indices with negatives wrapped by `n` (as int primitives), checked to lie in [-n, n).
template <class B>
typename B::IntTensor wrap_indices(const Value<B>& idx, std::size_t n, std::string_view op) {
    if (!idx.is_int()) fail(op, "indices must be integers, got ", idx.describe());
    auto i = idx.int_prim();
    const auto sn = static_cast<std::int64_t>(n);
    const Shape s = B::int_shape(i);
    if (s.num_elements() == 0) return i;
    auto mx = B::int_into_data(
        B::int_reshape(B::int_max_dim(B::int_reshape(i, Shape{s.num_elements()}), 0), Shape{1}));
    auto mn = B::int_into_data(
        B::int_reshape(B::int_min_dim(B::int_reshape(i, Shape{s.num_elements()}), 0), Shape{1}));
    const auto hi = mx.template to_vec<std::int64_t>()[0],
               lo = mn.template to_vec<std::int64_t>()[0];
    if (hi >= sn || lo < -sn)
        fail(op, "index out of range: indices span [", lo, ", ", hi, "] for a dim of size ", n);
    if (lo >= 0) return i;
    return B::int_mask_where(i, B::int_lower_elem(i, 0), B::int_add_scalar(i, sn));
}
template <class B>
Value<B> select(const Value<B>& x, std::size_t dim, const typename B::IntTensor& idx) {
    return x.map([&](auto k, const auto& p) {
        using K = decltype(k);
        if constexpr (std::is_same_v<K, Bool>) {
            return B::int_not_equal_elem(B::int_select(B::bool_into_int(p), dim, idx), 0);
        } else {
            return KindOps<B, K>::select(p, dim, idx);
        }
    });
}
template <class B>
Value<B> gather_dim(const Value<B>& x, std::size_t dim, const typename B::IntTensor& idx) {
    return x.map([&](auto k, const auto& p) {
        using K = decltype(k);
        if constexpr (std::is_same_v<K, Bool>) {
            return B::int_not_equal_elem(B::int_gather(dim, B::bool_into_int(p), idx), 0);
        } else {
            return KindOps<B, K>::gather(dim, p, idx);
        }
    });
}
}  // namespace detail

/// Gather: out = x[..., idx, ...] along axis; the result's shape is x's with the axis replaced by
/// the indices' shape.
template <class B>
Value<B> gather(const Value<B>& x, const Value<B>& indices, std::int64_t axis) {
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "Gather");
    auto idx = detail::wrap_indices(indices, s[a], "Gather");
    const Shape is = indices.shape();
    auto flat = B::int_reshape(idx, Shape{is.num_elements()});
    Value<B> y = detail::select(x, a, flat);
    Shape out;
    for (std::size_t i = 0; i < a; ++i) out.push_back(s[i]);
    for (auto d : is) out.push_back(d);
    for (std::size_t i = a + 1; i < s.rank(); ++i) out.push_back(s[i]);
    return detail::reshape(y, out);
}

template <class B>
Value<B> gather_elements(const Value<B>& x, const Value<B>& indices, std::int64_t axis) {
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "GatherElements");
    if (indices.rank() != s.rank())
        detail::fail("GatherElements", "indices ", indices.describe(), " must have the rank of ",
                     x.describe());
    auto idx = detail::wrap_indices(indices, s[a], "GatherElements");
    return detail::gather_dim(x, a, idx);
}

/// ScatterElements: a copy of x with updates written at the indices along axis (reduction
/// "none", "add" or "mul").
template <class B>
Value<B> scatter_elements(const Value<B>& x, const Value<B>& indices, const Value<B>& updates,
                          std::int64_t axis, std::string_view reduction) {
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "ScatterElements");
    if (indices.shape() != updates.shape() || indices.rank() != s.rank())
        detail::fail("ScatterElements", "indices ", indices.describe(), " and updates ",
                     updates.describe(), " must have one shape, of the rank of ", x.describe());
    auto idx = detail::wrap_indices(indices, s[a], "ScatterElements");
    const auto dev = x.device();
    // Scatter-add of ones marks the written cells.
    auto hits = B::int_scatter(a, B::int_zeros(s, dev), idx, B::int_ones(indices.shape(), dev));
    auto mask = B::int_greater_elem(hits, 0);
    if (x.is_bool()) detail::fail("ScatterElements", "bool data is not supported");
    if (x.is_float()) {
        auto upd = updates.to_float();
        if (reduction == "add")
            return Value<B>(Float{}, B::float_scatter(a, x.float_prim(), idx, upd), x.type());
        // B has scatter-add only: a product of several updates per cell has no exact
        // composition, so "mul" (and min/max) are reported unsupported.
        if (reduction == "mul") detail::fail("ScatterElements", "reduction 'mul' is not supported");
        if (reduction != "none")
            detail::fail("ScatterElements", "unknown reduction '", reduction, "'");
        auto written = B::float_scatter(a, B::float_zeros(s, dev), idx, upd);
        return Value<B>(Float{}, B::float_mask_where(x.float_prim(), mask, written), x.type());
    }
    auto upd = updates.to_int();
    if (reduction == "add")
        return Value<B>(Int{}, B::int_scatter(a, x.int_prim(), idx, upd), x.type());
    if (reduction != "none")
        detail::fail("ScatterElements", "reduction '", reduction, "' is not supported for ints");
    auto written = B::int_scatter(a, B::int_zeros(s, dev), idx, upd);
    return Value<B>(Int{}, B::int_mask_where(x.int_prim(), mask, written), x.type());
}

namespace detail {
/// Linear offsets of the index tuples in the last dim of `indices` into x's first k dims.
template <class B>
typename B::IntTensor nd_offsets(const Value<B>& indices, const Shape& s, std::size_t batch,
                                 std::string_view op) {
    const Shape is = indices.shape();
    const std::size_t k = is[is.rank() - 1];
    if (batch + k > s.rank())
        fail(op, "index tuples of length ", k, " exceed the rank of data ", s);
    if (!indices.is_int()) fail(op, "indices must be integers, got ", indices.describe());
    std::vector<std::int64_t> strides(k, 1);
    for (std::size_t j = k; j-- > 1;)
        strides[j - 1] = strides[j] * static_cast<std::int64_t>(s[batch + j]);
    const auto dev = indices.device();
    typename B::IntTensor off =
        B::int_zeros(squeeze_shape(is, std::vector<std::size_t>{is.rank() - 1}), dev);
    for (std::size_t j = 0; j < k; ++j) {
        Value<B> col = narrow(indices, is.rank() - 1, j, 1);
        col = reshape(col, squeeze_shape(is, std::vector<std::size_t>{is.rank() - 1}));
        auto c = wrap_indices(col, s[batch + j], op);
        off = B::int_add(off, B::int_mul_scalar(c, strides[j]));
    }
    return off;
}
}  // namespace detail

/// GatherND (batch_dims leading dims shared by data and indices).
template <class B>
Value<B> gather_nd(const Value<B>& x, const Value<B>& indices, std::int64_t batch_dims) {
    const Shape s = x.shape(), is = indices.shape();
    if (is.rank() == 0) detail::fail("GatherND", "indices must have rank >= 1");
    const auto bd = static_cast<std::size_t>(batch_dims);
    const std::size_t k = is[is.rank() - 1];
    auto off = detail::nd_offsets(indices, s, bd, "GatherND");  // shape is[:-1]
    const std::size_t nb = detail::dims_product(s, 0, bd);
    const std::size_t inner = detail::dims_product(s, bd, bd + k);
    const std::size_t per = detail::dims_product(is, bd, is.rank() - 1);
    // Flatten data to [nb * inner, rest] and offsets to [nb * per] with batch offsets added.
    Shape rest;
    for (std::size_t i = bd + k; i < s.rank(); ++i) rest.push_back(s[i]);
    Shape flat{nb * inner};
    for (auto d : rest) flat.push_back(d);
    auto xo = detail::reshape(x, flat);
    auto o = B::int_reshape(off, Shape{nb, per});
    if (nb > 1) {
        auto base = B::int_mul_scalar(
            B::int_reshape(B::int_arange(0, static_cast<std::int64_t>(nb), 1, x.device()),
                           Shape{nb, 1}),
            static_cast<std::int64_t>(inner));
        o = B::int_add(o, B::int_expand(base, Shape{nb, per}));
    }
    Value<B> y = detail::select(xo, 0, B::int_reshape(o, Shape{nb * per}));
    Shape out;
    for (std::size_t i = 0; i + 1 < is.rank(); ++i) out.push_back(is[i]);
    for (auto d : rest) out.push_back(d);
    return detail::reshape(y, out);
}

/// ScatterND (reduction "none" or "add").
namespace detail {
/// ScatterND's "mul", "max" and "min": several updates of one cell combine in order, so they are
/// applied in rounds, round k writing each cell's k-th update (`off`: the [m] row offsets of the
/// updates into x seen as [inner, rest]).
template <class B>
Value<B> scatter_nd_rounds(const Value<B>& x, const typename B::IntTensor& off,
                           const Value<B>& updates, std::size_t inner, std::size_t rest,
                           std::string_view reduction) {
    const Shape s = x.shape();
    const std::vector<std::int64_t> offs = B::int_into_data(off).template to_vec<std::int64_t>();
    const std::size_t m = offs.size();
    std::vector<std::size_t> occurrence(m);
    std::size_t rounds = 0;
    {
        std::vector<std::size_t> seen(inner, 0);
        for (std::size_t i = 0; i < m; ++i) {
            occurrence[i] = seen[static_cast<std::size_t>(offs[i])]++;
            rounds = std::max(rounds, occurrence[i] + 1);
        }
    }
    const auto dev = x.device();
    return x.map([&](auto k, const auto& p) {
        using K = decltype(k);
        using O = KindOps<B, K>;
        if constexpr (std::is_same_v<K, Bool>) {
            fail("ScatterND", "bool data is not supported");
            return p;
        } else {
            auto u = O::reshape(updates.template prim<K>(), Shape{m, rest});
            auto cur = O::reshape(p, Shape{inner, rest});
            for (std::size_t r = 0; r < rounds; ++r) {
                std::vector<std::int64_t> rows, at;
                for (std::size_t i = 0; i < m; ++i)
                    if (occurrence[i] == r) {
                        rows.push_back(static_cast<std::int64_t>(i));
                        at.push_back(offs[i]);
                    }
                const std::size_t nr = rows.size();
                auto idx =
                    B::int_expand(B::int_reshape(ints_value<B>(at, dev).int_prim(), Shape{nr, 1}),
                                  Shape{nr, rest});
                auto ur = O::select(u, 0, ints_value<B>(rows, dev).int_prim());
                auto written = O::scatter(0, O::zeros(Shape{inner, rest}, dev), idx, ur);
                auto hit =
                    B::int_greater_elem(B::int_scatter(0, B::int_zeros(Shape{inner, rest}, dev),
                                                       idx, B::int_ones(Shape{nr, rest}, dev)),
                                        0);
                auto combined = reduction == "mul"   ? O::mul(cur, written)
                                : reduction == "max" ? O::max_pair(cur, written)
                                                     : O::min_pair(cur, written);
                cur = O::mask_where(cur, hit, combined);
            }
            return O::reshape(cur, s);
        }
    });
}
}  // namespace detail

template <class B>
Value<B> scatter_nd(const Value<B>& x, const Value<B>& indices, const Value<B>& updates,
                    std::string_view reduction) {
    const Shape s = x.shape(), is = indices.shape();
    if (is.rank() == 0) detail::fail("ScatterND", "indices must have rank >= 1");
    const std::size_t k = is[is.rank() - 1];
    auto off = detail::nd_offsets(indices, s, 0, "ScatterND");
    const std::size_t inner = detail::dims_product(s, 0, k);
    const std::size_t rest = detail::dims_product(s, k, s.rank());
    const std::size_t m = detail::dims_product(is, 0, is.rank() - 1);
    auto o = B::int_reshape(off, Shape{m, 1});
    auto o2 = B::int_expand(o, Shape{m, rest});
    const auto dev = x.device();
    auto hits = B::int_scatter(0, B::int_zeros(Shape{inner, rest}, dev), o2,
                               B::int_ones(Shape{m, rest}, dev));
    auto mask = B::int_reshape(B::int_greater_elem(hits, 0), s);
    if (!x.is_float() && !x.is_int()) detail::fail("ScatterND", "bool data is not supported");
    if (reduction == "mul" || reduction == "max" || reduction == "min")
        return detail::scatter_nd_rounds(x, off, detail::to_kind(updates, x.type()), inner, rest,
                                         reduction);
    if (x.is_float()) {
        auto u = B::float_reshape(updates.to_float(), Shape{m, rest});
        auto written = B::float_reshape(
            B::float_scatter(0, B::float_zeros(Shape{inner, rest}, dev), o2, u), s);
        if (reduction == "add")
            return Value<B>(Float{}, B::float_add(x.float_prim(), written), x.type());
        if (reduction != "none")
            detail::fail("ScatterND", "reduction '", reduction, "' is not supported");
        return Value<B>(Float{}, B::float_mask_where(x.float_prim(), mask, written), x.type());
    }
    auto u = B::int_reshape(updates.to_int(), Shape{m, rest});
    auto written =
        B::int_reshape(B::int_scatter(0, B::int_zeros(Shape{inner, rest}, dev), o2, u), s);
    if (reduction == "add") return Value<B>(Int{}, B::int_add(x.int_prim(), written), x.type());
    if (reduction != "none")
        detail::fail("ScatterND", "reduction '", reduction, "' is not supported");
    return Value<B>(Int{}, B::int_mask_where(x.int_prim(), mask, written), x.type());
}

/// Expand: broadcast x with `shape` (bidirectionally, as NumPy).
template <class B>
Value<B> expand(const Value<B>& x, const std::vector<std::int64_t>& shape) {
    Shape t;
    for (auto d : shape) {
        if (d < 0) detail::fail("Expand", "negative dim ", d, " in the shape");
        t.push_back(static_cast<std::size_t>(d));
    }
    const std::size_t r = std::max(x.rank(), t.rank());
    Value<B> y = detail::align_rank(x, r);
    Shape tt;
    for (std::size_t i = t.rank(); i < r; ++i) tt.push_back(1);
    for (auto d : t) tt.push_back(d);
    return detail::expand(y, broadcast_shapes(y.shape(), tt, "Expand"));
}

template <class B>
Value<B> tile(const Value<B>& x, const std::vector<std::int64_t>& repeats) {
    if (repeats.size() != x.rank())
        detail::fail("Tile", repeats.size(), " repeats for ", x.describe());
    Value<B> y = x;
    for (std::size_t d = 0; d < repeats.size(); ++d) {
        if (repeats[d] < 0) detail::fail("Tile", "negative repeat ", repeats[d]);
        if (repeats[d] == 1) continue;
        const auto n = static_cast<std::size_t>(repeats[d]);
        if (n == 0) {
            y = detail::narrow(y, d, 0, 0);
            continue;
        }
        y = y.map(
            [&](auto k, const auto& p) { return KindOps<B, decltype(k)>::repeat_dim(p, d, n); });
    }
    return y;
}

/// Pad: pads = [b_0, ..., b_{r-1}, e_0, ..., e_{r-1}] over `axes` (all when empty); mode
/// "constant", "reflect" or "edge".
template <class B>
Value<B> pad(const Value<B>& x, const std::vector<std::int64_t>& pads, std::string_view mode,
             double value, std::vector<std::int64_t> axes = {}) {
    const std::size_t r = x.rank();
    if (axes.empty())
        for (std::size_t i = 0; i < r; ++i) axes.push_back(static_cast<std::int64_t>(i));
    if (pads.size() != 2 * axes.size())
        detail::fail("Pad", pads.size(), " pads for ", axes.size(), " axes of ", x.describe());
    std::vector<std::int64_t> b(r, 0), e(r, 0);
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const std::size_t a = detail::norm_axis(axes[i], r, "Pad");
        b[a] = pads[i];
        e[a] = pads[i + axes.size()];
    }
    if (mode == "constant") return detail::pad_constant(x, b, e, value);
    if (mode != "reflect" && mode != "edge")
        detail::fail("Pad", "unknown mode '", mode, "' (constant, reflect, edge)");
    Value<B> y = x;
    for (std::size_t d = 0; d < r; ++d) {
        if (b[d] < 0 || e[d] < 0)
            detail::fail("Pad", "negative pads are only supported in constant mode");
        if (b[d] == 0 && e[d] == 0) continue;
        const std::size_t n = y.shape()[d];
        const auto pb = static_cast<std::size_t>(b[d]), pe = static_cast<std::size_t>(e[d]);
        std::vector<Value<B>> parts;
        if (mode == "edge") {
            if (n == 0) detail::fail("Pad", "edge padding of an empty dim ", d);
            Shape sb = y.shape();
            if (pb) {
                sb[d] = pb;
                parts.push_back(detail::expand(detail::narrow(y, d, 0, 1), sb));
            }
            parts.push_back(y);
            if (pe) {
                sb[d] = pe;
                parts.push_back(detail::expand(detail::narrow(y, d, n - 1, 1), sb));
            }
        } else {
            if (pb >= n || pe >= n)
                detail::fail("Pad", "reflect pads ", pb, " and ", pe, " must be smaller than dim ",
                             d, " of size ", n);
            const std::vector<std::size_t> fd{d};
            if (pb) parts.push_back(detail::flip(detail::narrow(y, d, 1, pb), fd));
            parts.push_back(y);
            if (pe) parts.push_back(detail::flip(detail::narrow(y, d, n - 1 - pe, pe), fd));
        }
        y = detail::cat(parts, d);
    }
    return y;
}

/// Shape (dims [start, end) as int64).
template <class B>
Value<B> shape_of(const Value<B>& x, std::int64_t start, std::optional<std::int64_t> end) {
    const Shape s = x.shape();
    const auto r = static_cast<std::int64_t>(s.rank());
    auto clampi = [&](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + r : i, 0, r); };
    const std::int64_t b = clampi(start), e = end ? clampi(*end) : r;
    std::vector<std::int64_t> v;
    for (std::int64_t i = b; i < e; ++i)
        v.push_back(static_cast<std::int64_t>(s[static_cast<std::size_t>(i)]));
    return detail::ints_value<B>(v, x.device());
}
template <class B>
Value<B> size_of(const Value<B>& x) {
    return detail::ints_value<B>({static_cast<std::int64_t>(x.shape().num_elements())}, x.device(),
                                 Shape{});
}

/// ConstantOfShape: `shape` filled with the value (default float 0).
template <class B>
Value<B> constant_of_shape(const std::vector<std::int64_t>& shape, const TypedData* value,
                           const typename B::Device& dev) {
    Shape s;
    for (auto d : shape) {
        if (d < 0) detail::fail("ConstantOfShape", "negative dim ", d);
        s.push_back(static_cast<std::size_t>(d));
    }
    if (!value) return detail::full<B>(s, 0.0, ElemType::Float, dev);
    if (value->data.num_elements() != 1)
        detail::fail("ConstantOfShape", "value must hold one element, holds ",
                     value->data.num_elements());
    const double v = value->data.value_as_double(0);
    if (kind_of(value->type) == ValueKind::Int) {
        const auto iv = value->data.convert(DType::I64).template as_span<std::int64_t>()[0];
        return Value<B>(Int{}, B::int_full(s, iv, dev), value->type);
    }
    return detail::full<B>(s, v, value->type, dev);
}

/// Range(start, limit, delta): scalars, computed on the host.
template <class B>
Value<B> range(const Value<B>& start, const Value<B>& limit, const Value<B>& delta) {
    const double s = detail::host_scalar(start, "Range", "start"),
                 l = detail::host_scalar(limit, "Range", "limit"),
                 d = detail::host_scalar(delta, "Range", "delta");
    if (d == 0) detail::fail("Range", "delta is 0");
    const double cnt = std::ceil((l - s) / d);
    const auto n = static_cast<std::size_t>(std::max(0.0, cnt));
    const auto dev = start.device();
    if (start.is_float()) {
        std::vector<double> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = s + static_cast<double>(i) * d;
        return Value<B>::from_data(TensorData(v, Shape{n}).convert(storage_dtype(start.type())),
                                   start.type(), dev);
    }
    std::vector<std::int64_t> v(n);
    const auto si = start.to_ints()[0], di = delta.to_ints()[0];
    for (std::size_t i = 0; i < n; ++i) v[i] = si + static_cast<std::int64_t>(i) * di;
    return Value<B>::from_data(TensorData(v, Shape{n}), start.type(), dev);
}

/// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims.
template <class B>
Value<B> trilu(const Value<B>& x, std::int64_t k, bool upper) {
    const Shape s = x.shape();
    if (s.rank() < 2) detail::fail("Trilu", "input must have rank >= 2, got ", x.describe());
    const std::size_t rows = s[s.rank() - 2], cols = s[s.rank() - 1];
    const auto dev = x.device();
    auto i = B::int_expand(
        B::int_reshape(B::int_arange(0, static_cast<std::int64_t>(rows), 1, dev), Shape{rows, 1}),
        Shape{rows, cols});
    auto j = B::int_expand(
        B::int_reshape(B::int_arange(0, static_cast<std::int64_t>(cols), 1, dev), Shape{1, cols}),
        Shape{rows, cols});
    auto diff = B::int_sub(j, i);
    auto drop = upper ? B::int_lower_elem(diff, k) : B::int_greater_elem(diff, k);
    Shape ms(std::vector<std::size_t>(s.rank(), 1));
    ms[s.rank() - 2] = rows;
    ms[s.rank() - 1] = cols;
    auto mask = B::bool_expand(B::bool_reshape(drop, ms), s);
    if (x.is_float())
        return Value<B>(Float{}, B::float_mask_fill(x.float_prim(), mask, 0.0), x.type());
    if (x.is_int()) return Value<B>(Int{}, B::int_mask_fill(x.int_prim(), mask, 0), x.type());
    return Value<B>(Bool{}, B::bool_and(x.bool_prim(), B::bool_not(mask)));
}

/// EyeLike: ones on diagonal k of a 2-D shape, of `type`.
template <class B>
Value<B> eye_like(const Value<B>& x, std::int64_t k, ElemType type) {
    const Shape s = x.shape();
    if (s.rank() != 2) detail::fail("EyeLike", "input must be 2-D, got ", x.describe());
    const auto dev = x.device();
    auto i = B::int_expand(
        B::int_reshape(B::int_arange(0, static_cast<std::int64_t>(s[0]), 1, dev), Shape{s[0], 1}),
        s);
    auto j = B::int_expand(
        B::int_reshape(B::int_arange(0, static_cast<std::int64_t>(s[1]), 1, dev), Shape{1, s[1]}),
        s);
    auto on = B::int_equal_elem(B::int_sub(j, i), k);
    return detail::to_kind(Value<B>(Bool{}, on), type);
}

/// OneHot(indices, depth, values[off, on]) along axis.
template <class B>
Value<B> one_hot(const Value<B>& indices, const Value<B>& depth, const Value<B>& values,
                 std::int64_t axis) {
    const auto d = static_cast<std::int64_t>(detail::host_scalar(depth, "OneHot", "depth"));
    if (d <= 0) detail::fail("OneHot", "depth must be positive, got ", d);
    if (values.shape().num_elements() != 2)
        detail::fail("OneHot", "values must hold [off, on], got ", values.describe());
    const Shape is = indices.shape();
    const std::size_t r = is.rank() + 1;
    const std::size_t a = detail::norm_axis(axis, r, "OneHot");
    auto idx = indices.is_float() ? B::float_into_int(indices.float_prim()) : indices.to_int();
    idx = B::int_mask_where(idx, B::int_lower_elem(idx, 0), B::int_add_scalar(idx, d));
    Shape out;
    for (std::size_t i = 0; i < a; ++i) out.push_back(is[i]);
    out.push_back(static_cast<std::size_t>(d));
    for (std::size_t i = a; i < is.rank(); ++i) out.push_back(is[i]);
    Shape ish = out;
    ish[a] = 1;
    Shape as(std::vector<std::size_t>(r, 1));
    as[a] = static_cast<std::size_t>(d);
    const auto dev = indices.device();
    auto ar = B::int_expand(B::int_reshape(B::int_arange(0, d, 1, dev), as), out);
    auto hit = B::int_equal(ar, B::int_expand(B::int_reshape(idx, ish), out));
    Value<B> off = detail::reshape(detail::narrow(values, 0, 0, 1), Shape{});
    Value<B> on = detail::reshape(detail::narrow(values, 0, 1, 1), Shape{});
    Value<B> o1 = detail::expand(detail::align_rank(on, out.rank()), out);
    Value<B> o0 = detail::expand(detail::align_rank(off, out.rank()), out);
    if (values.is_float())
        return Value<B>(Float{}, B::float_mask_where(o0.float_prim(), hit, o1.float_prim()),
                        values.type());
    return Value<B>(Int{}, B::int_mask_where(o0.to_int(), hit, o1.to_int()), values.type());
}

/// ReverseSequence: reverses the first sequence_lens[b] elements along time_axis for each b of
/// batch_axis (the indices are computed on the host from the lengths).
template <class B>
Value<B> reverse_sequence(const Value<B>& x, const Value<B>& lens, std::int64_t batch_axis,
                          std::int64_t time_axis) {
    const Shape s = x.shape();
    if (s.rank() < 2)
        detail::fail("ReverseSequence", "input must have rank >= 2, got ", x.describe());
    const std::size_t ba = detail::norm_axis(batch_axis, s.rank(), "ReverseSequence");
    const std::size_t ta = detail::norm_axis(time_axis, s.rank(), "ReverseSequence");
    if (ba == ta || ba > 1 || ta > 1)
        detail::fail("ReverseSequence", "batch_axis and time_axis must be 0 and 1");
    const auto l = detail::host_ints(lens, "ReverseSequence", "sequence_lens");
    const std::size_t nb = s[ba], nt = s[ta];
    if (l.size() != nb) detail::fail("ReverseSequence", l.size(), " lengths for a batch of ", nb);
    // idx laid out as [time, batch] or [batch, time] (the input's first two dims).
    Shape is2{s[0], s[1]};
    std::vector<std::int64_t> idx(nb * nt);
    for (std::size_t b = 0; b < nb; ++b) {
        if (l[b] < 0 || static_cast<std::size_t>(l[b]) > nt)
            detail::fail("ReverseSequence", "sequence length ", l[b], " is out of [0, ", nt, "]");
        for (std::size_t t = 0; t < nt; ++t) {
            const auto tt = static_cast<std::int64_t>(t);
            const std::int64_t src = tt < l[b] ? l[b] - 1 - tt : tt;
            idx[ta == 0 ? t * nb + b : b * nt + t] = src;
        }
    }
    Shape full = is2;
    for (std::size_t i = 2; i < s.rank(); ++i) full.push_back(1);
    auto it =
        B::int_expand(B::int_reshape(B::int_from_data(TensorData(idx, is2), x.device()), full), s);
    return detail::gather_dim(x, ta, it);
}

/// NonZero: the indices of the non-zero elements, [rank, count] int64.
template <class B>
Value<B> non_zero(const Value<B>& x) {
    auto m = x.to_bool();
    const Shape s = x.shape();
    if (s.rank() == 0) m = B::bool_reshape(m, Shape{1});
    auto idx = B::bool_argwhere(m);  // [count, rank]
    return Value<B>(Int{}, B::int_swap_dims(idx, 0, 1), ElemType::Int64);
}

/// Compress: the slices along axis (or of the flattened input) where condition is true.
template <class B>
Value<B> compress(const Value<B>& x, const Value<B>& condition, std::optional<std::int64_t> axis) {
    Value<B> in = axis ? x : detail::reshape(x, Shape{x.shape().num_elements()});
    const std::size_t a = axis ? detail::norm_axis(*axis, x.rank(), "Compress") : 0;
    const std::size_t n = in.shape()[a];
    Value<B> c = detail::reshape(condition, Shape{condition.shape().num_elements()});
    if (c.shape()[0] > n)
        detail::fail("Compress", "condition ", condition.describe(), " is longer than dim ", a,
                     " (", n, ")");
    auto m = c.to_bool();
    auto idx = B::int_reshape(B::bool_argwhere(m), Shape{B::int_shape(B::bool_argwhere(m))[0]});
    return detail::select(in, a, idx);
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth on NCHW.
template <class B>
Value<B> depth_to_space(const Value<B>& x, std::int64_t bs, std::string_view mode) {
    const Shape s = x.shape();
    if (s.rank() != 4) detail::fail("DepthToSpace", "input must be 4-D, got ", x.describe());
    const auto b = static_cast<std::size_t>(bs);
    const std::size_t n = s[0], c = s[1], h = s[2], w = s[3];
    if (b == 0 || c % (b * b))
        detail::fail("DepthToSpace", "channels ", c, " not divisible by blocksize^2");
    const std::size_t co = c / (b * b);
    Value<B> y = mode == "CRD" ? detail::reshape(x, Shape{n, co, b, b, h, w})
                               : detail::reshape(x, Shape{n, b, b, co, h, w});
    const std::vector<std::size_t> perm = mode == "CRD"
                                              ? std::vector<std::size_t>{0, 1, 4, 2, 5, 3}
                                              : std::vector<std::size_t>{0, 3, 4, 1, 5, 2};
    return detail::reshape(detail::permute(y, perm), Shape{n, co, h * b, w * b});
}
template <class B>
Value<B> space_to_depth(const Value<B>& x, std::int64_t bs) {
    const Shape s = x.shape();
    if (s.rank() != 4) detail::fail("SpaceToDepth", "input must be 4-D, got ", x.describe());
    const auto b = static_cast<std::size_t>(bs);
    const std::size_t n = s[0], c = s[1], h = s[2], w = s[3];
    if (b == 0 || h % b || w % b)
        detail::fail("SpaceToDepth", "spatial dims not divisible by blocksize ", b);
    Value<B> y = detail::reshape(x, Shape{n, c, h / b, b, w / b, b});
    y = detail::permute(y, std::vector<std::size_t>{0, 3, 5, 1, 2, 4});
    return detail::reshape(y, Shape{n, c * b * b, h / b, w / b});
}

/// Unique: the distinct elements of x (or, with an axis, its distinct slices along the axis),
/// sorted ascending (slices lexicographically) or in order of first occurrence. Returns Y, the
/// index of each one's first occurrence, the inverse indices (for each element or slice of x,
/// its position in Y) and the counts; the last three are int64. NaNs count as equal.
template <class B>
std::vector<Value<B>> unique(const Value<B>& x, std::optional<std::int64_t> axis, bool sorted) {
    const Shape s = x.shape();
    const std::size_t a = axis ? detail::norm_axis(*axis, s.rank(), "Unique") : 0;
    const std::size_t outer = axis ? detail::dims_product(s, 0, a) : 1;
    const std::size_t n = axis ? s[a] : s.num_elements();
    const std::size_t inner = axis ? detail::dims_product(s, a + 1, s.rank()) : 1;
    // long double holds every int64 exactly.
    std::vector<long double> v;
    if (x.is_float()) {
        for (double d : x.to_doubles()) v.push_back(d);
    } else {
        for (std::int64_t d : x.to_ints()) v.push_back(static_cast<long double>(d));
    }
    auto cmp = [&](std::size_t j, std::size_t k) {  // -1, 0, 1: slice j against slice k
        for (std::size_t o = 0; o < outer; ++o)
            for (std::size_t i = 0; i < inner; ++i) {
                const long double p = v[(o * n + j) * inner + i], q = v[(o * n + k) * inner + i];
                const bool pn = std::isnan(p), qn = std::isnan(q);
                if (pn || qn) {
                    if (pn && qn) continue;
                    return pn ? 1 : -1;
                }
                if (p != q) return p < q ? -1 : 1;
            }
        return 0;
    };
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t j, std::size_t k) { return cmp(j, k) < 0; });
    // Groups of equal slices in sorted order; the first of each is its first occurrence.
    std::vector<std::size_t> group(n), first, count;
    for (std::size_t t = 0; t < n; ++t) {
        if (t == 0 || cmp(order[t - 1], order[t]) != 0) {
            first.push_back(order[t]);
            count.push_back(0);
        }
        group[order[t]] = first.size() - 1;
        ++count.back();
    }
    std::vector<std::size_t> pos(first.size());  // group -> position in Y
    std::iota(pos.begin(), pos.end(), std::size_t{0});
    if (!sorted) {
        std::vector<std::size_t> by_first(first.size());
        std::iota(by_first.begin(), by_first.end(), std::size_t{0});
        std::sort(by_first.begin(), by_first.end(),
                  [&](std::size_t g, std::size_t h) { return first[g] < first[h]; });
        for (std::size_t r = 0; r < by_first.size(); ++r) pos[by_first[r]] = r;
    }
    const std::size_t u = first.size();
    std::vector<std::int64_t> idx(u), inv(n), cnt(u);
    for (std::size_t g = 0; g < u; ++g) {
        idx[pos[g]] = static_cast<std::int64_t>(first[g]);
        cnt[pos[g]] = static_cast<std::int64_t>(count[g]);
    }
    for (std::size_t j = 0; j < n; ++j) inv[j] = static_cast<std::int64_t>(pos[group[j]]);
    const auto dev = x.device();
    const Value<B> flat = axis ? x : detail::reshape(x, Shape{n});
    std::vector<Value<B>> out;
    out.push_back(detail::select(flat, a, detail::ints_value<B>(idx, dev).int_prim()));
    out.push_back(detail::ints_value<B>(idx, dev));
    out.push_back(detail::ints_value<B>(inv, dev));
    out.push_back(detail::ints_value<B>(cnt, dev));
    return out;
}

/// Col2Im (opset 18): the blocks of x [N, C * prod(block_shape), L] summed into images
/// [N, C, image_shape...] (the inverse of an im2col with these dilations, pads and strides:
/// PyTorch's fold). One scatter-add over a host-computed index table; positions in the padding go
/// to a spare slot that is dropped.
template <class B>
Value<B> col2im(const Value<B>& x, const std::vector<std::int64_t>& image_shape,
                const std::vector<std::int64_t>& block_shape, std::vector<std::int64_t> dilations,
                std::vector<std::int64_t> pads, std::vector<std::int64_t> strides) {
    const Shape s = x.shape();
    const std::size_t d = image_shape.size();
    if (s.rank() != 3) detail::fail("Col2Im", "input must be [N, C * K, L], got ", x.describe());
    if (d == 0 || block_shape.size() != d)
        detail::fail("Col2Im", "image_shape and block_shape must have one length, got ",
                     image_shape.size(), " and ", block_shape.size());
    if (dilations.empty()) dilations.assign(d, 1);
    if (strides.empty()) strides.assign(d, 1);
    if (pads.empty()) pads.assign(2 * d, 0);
    if (dilations.size() != d || strides.size() != d || pads.size() != 2 * d)
        detail::fail("Col2Im", "dilations, strides and pads must have ", d, ", ", d, " and ", 2 * d,
                     " values");
    std::size_t k = 1, image = 1, blocks = 1;
    std::vector<std::size_t> nblk(d);
    for (std::size_t i = 0; i < d; ++i) {
        if (image_shape[i] <= 0 || block_shape[i] <= 0 || dilations[i] <= 0 || strides[i] <= 0)
            detail::fail("Col2Im",
                         "image_shape, block_shape, dilations and strides must be "
                         "positive");
        const std::int64_t span = dilations[i] * (block_shape[i] - 1) + 1;
        const std::int64_t room = image_shape[i] + pads[i] + pads[i + d] - span;
        if (room < 0)
            detail::fail("Col2Im", "a block of ", span, " spans more than the padded image dim ",
                         i);
        nblk[i] = static_cast<std::size_t>(room / strides[i] + 1);
        k *= static_cast<std::size_t>(block_shape[i]);
        image *= static_cast<std::size_t>(image_shape[i]);
        blocks *= nblk[i];
    }
    if (s[1] % k != 0 || s[2] != blocks)
        detail::fail("Col2Im", "input ", x.describe(), " must be [N, C * ", k, ", ", blocks,
                     "] for these image and block shapes");
    const std::size_t n = s[0], c = s[1] / k;
    std::vector<std::int64_t> idx(k * blocks);
    std::vector<std::size_t> kk(d), bb(d);
    for (std::size_t kf = 0; kf < k; ++kf) {
        for (std::size_t i = d, r = kf; i-- > 0;) {
            kk[i] = r % static_cast<std::size_t>(block_shape[i]);
            r /= static_cast<std::size_t>(block_shape[i]);
        }
        for (std::size_t bf = 0; bf < blocks; ++bf) {
            for (std::size_t i = d, r = bf; i-- > 0;) {
                bb[i] = r % nblk[i];
                r /= nblk[i];
            }
            std::int64_t at = 0;
            bool inside = true;
            for (std::size_t i = 0; i < d; ++i) {
                const std::int64_t o = static_cast<std::int64_t>(bb[i]) * strides[i] - pads[i] +
                                       static_cast<std::int64_t>(kk[i]) * dilations[i];
                inside = inside && o >= 0 && o < image_shape[i];
                at = at * image_shape[i] + o;
            }
            idx[kf * blocks + bf] = inside ? at : static_cast<std::int64_t>(image);
        }
    }
    const auto dev = x.device();
    auto t = B::float_reshape(detail::require_float(x, "Col2Im"), Shape{n, c, k * blocks});
    auto ix = B::int_expand(
        B::int_reshape(detail::ints_value<B>(idx, dev).int_prim(), Shape{1, 1, k * blocks}),
        Shape{n, c, k * blocks});
    auto out = B::float_scatter(2, B::float_zeros(Shape{n, c, image + 1}, dev), ix, t);
    if (B::float_dtype(out) != B::float_dtype(t)) out = B::float_cast(out, B::float_dtype(t));
    std::vector<SliceRange> keep{{0, n, 1}, {0, c, 1}, {0, image, 1}};
    Shape os{n, c};
    for (auto v : image_shape) os.push_back(static_cast<std::size_t>(v));
    return Value<B>(Float{}, B::float_reshape(B::float_slice(out, keep), os), x.type());
}

/// CenterCropPad (opset 18): each of `axes` (default all) cropped or zero-padded to `shape`
/// around its centre (the extra element of an odd difference at the end).
template <class B>
Value<B> center_crop_pad(const Value<B>& x, const std::vector<std::int64_t>& shape,
                         std::vector<std::int64_t> axes) {
    const Shape s = x.shape();
    if (axes.empty())
        for (std::size_t i = 0; i < s.rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    if (shape.size() != axes.size())
        detail::fail("CenterCropPad", "shape has ", shape.size(), " values for ", axes.size(),
                     " axes");
    const auto ax = detail::norm_axes(axes, s.rank(), "CenterCropPad");
    std::vector<std::int64_t> begins(s.rank(), 0), ends(s.rank(), 0);
    for (std::size_t j = 0; j < axes.size(); ++j) {
        const std::size_t a = detail::norm_axis(axes[j], s.rank(), "CenterCropPad");
        const auto have = static_cast<std::int64_t>(s[a]), want = shape[j];
        if (want < 0) detail::fail("CenterCropPad", "negative size ", want);
        const std::int64_t diff = want - have;  // > 0 pads, < 0 crops
        const std::int64_t before = diff >= 0 ? diff / 2 : -((-diff) / 2);
        begins[a] = before;
        ends[a] = diff - before;
    }
    return detail::pad_constant(x, begins, ends, 0.0);
}

}  // namespace burn::onnx::ops

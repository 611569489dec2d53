// SPDX-License-Identifier: MIT OR Apache-2.0
// ONNX neural-network ops over burn::onnx::Value<B>: Conv, ConvTranspose, MaxPool, AveragePool,
// the global pools, BatchNormalization, LayerNormalization, InstanceNormalization, LRN,
// MeanVarianceNormalization, the NegativeLogLikelihood and SoftmaxCrossEntropy losses, Resize.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "burn/onnx/ops_common.hpp"
#include "burn/onnx/ops_math.hpp"
#include "burn/onnx/ops_reduce.hpp"
#include "burn/onnx/ops_shape.hpp"

namespace burn::onnx::ops {

/// Attributes shared by Conv, ConvTranspose and the pools (empty lists take the defaults).
struct WindowAttrs {
    std::string auto_pad = "NOTSET";
    std::vector<std::int64_t> kernel_shape;
    std::vector<std::int64_t> strides;
    std::vector<std::int64_t> dilations;
    std::vector<std::int64_t> pads;  ///< [begin..., end...]
    std::int64_t group = 1;
    bool ceil_mode = false;
    bool count_include_pad = false;
    std::vector<std::int64_t> output_padding;  ///< ConvTranspose
    std::vector<std::int64_t> output_shape;    ///< ConvTranspose
};

namespace detail {
struct Window {
    std::vector<std::size_t> kernel, stride, dilation;
    std::vector<std::int64_t> begin, end;  ///< padding per spatial dim
    bool symmetric() const { return begin == end; }
};
/// Resolves kernel, strides, dilations and pads (auto_pad included) for `n` spatial dims.
inline Window resolve_window(const WindowAttrs& at, const Shape& in, std::size_t n,
                             std::vector<std::int64_t> kernel, std::string_view op) {
    Window w;
    if (!at.kernel_shape.empty()) kernel = at.kernel_shape;
    if (kernel.size() != n)
        fail(op, "kernel_shape has ", kernel.size(), " dims for ", n, " spatial dims");
    auto list = [&](const std::vector<std::int64_t>& v, const char* name) {
        std::vector<std::size_t> out;
        if (v.empty()) return std::vector<std::size_t>(n, 1);
        if (v.size() != n) fail(op, name, " has ", v.size(), " entries for ", n, " spatial dims");
        for (auto x : v) {
            if (x <= 0) fail(op, name, " must be positive, got ", x);
            out.push_back(static_cast<std::size_t>(x));
        }
        return out;
    };
    for (auto k : kernel)
        if (k <= 0) fail(op, "kernel size must be positive, got ", k);
    w.kernel.assign(kernel.begin(), kernel.end());
    w.stride = list(at.strides, "strides");
    w.dilation = list(at.dilations, "dilations");
    w.begin.assign(n, 0);
    w.end.assign(n, 0);
    if (at.auto_pad == "SAME_UPPER" || at.auto_pad == "SAME_LOWER") {
        for (std::size_t i = 0; i < n; ++i) {
            const auto len = static_cast<std::int64_t>(in[i + 2]);
            const auto s = static_cast<std::int64_t>(w.stride[i]);
            const std::int64_t out = (len + s - 1) / s;
            const std::int64_t span = (static_cast<std::int64_t>(w.kernel[i]) - 1) *
                                          static_cast<std::int64_t>(w.dilation[i]) +
                                      1;
            const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s + span - len);
            const std::int64_t small = total / 2, big = total - total / 2;
            w.begin[i] = at.auto_pad == "SAME_UPPER" ? small : big;
            w.end[i] = at.auto_pad == "SAME_UPPER" ? big : small;
        }
    } else if (at.auto_pad == "NOTSET" || at.auto_pad.empty()) {
        if (!at.pads.empty()) {
            if (at.pads.size() != 2 * n)
                fail(op, "pads has ", at.pads.size(), " entries for ", n, " spatial dims");
            for (std::size_t i = 0; i < n; ++i) {
                if (at.pads[i] < 0 || at.pads[i + n] < 0)
                    fail(op, "negative pads are not supported");
                w.begin[i] = at.pads[i];
                w.end[i] = at.pads[i + n];
            }
        }
    } else if (at.auto_pad != "VALID") {
        fail(op, "unknown auto_pad '", at.auto_pad, "'");
    }
    return w;
}
template <std::size_t N>
std::array<std::size_t, N> arr(const std::vector<std::size_t>& v) {
    std::array<std::size_t, N> a{};
    for (std::size_t i = 0; i < N; ++i) a[i] = v[i];
    return a;
}
template <std::size_t N>
std::array<std::size_t, N> arr(const std::vector<std::int64_t>& v) {
    std::array<std::size_t, N> a{};
    for (std::size_t i = 0; i < N; ++i) a[i] = static_cast<std::size_t>(v[i]);
    return a;
}
/// Zero-pads the spatial dims of an [N, C, ...] value.
template <class B>
Value<B> pad_spatial(const Value<B>& x, const Window& w, double value) {
    std::vector<std::int64_t> b(2, 0), e(2, 0);
    b.insert(b.end(), w.begin.begin(), w.begin.end());
    e.insert(e.end(), w.end.begin(), w.end.end());
    return pad_constant(x, b, e, value);
}
}  // namespace detail

/// Conv over 1, 2 or 3 spatial dims (weight [M, C / group, k...]).
template <class B>
Value<B> conv(const Value<B>& x, const Value<B>& weight, const OptValue<B>& bias,
              const WindowAttrs& at) {
    const Shape s = x.shape(), ws = weight.shape();
    if (s.rank() < 3 || s.rank() > 5 || ws.rank() != s.rank())
        detail::fail("Conv", "input ", x.describe(), " and weight ", weight.describe(),
                     " must both be [N, C, d1, ...] with 1 to 3 spatial dims");
    const std::size_t n = s.rank() - 2;
    std::vector<std::int64_t> k;
    for (std::size_t i = 2; i < ws.rank(); ++i) k.push_back(static_cast<std::int64_t>(ws[i]));
    auto w = detail::resolve_window(at, s, n, k, "Conv");
    if (at.group <= 0 || s[1] != ws[1] * static_cast<std::size_t>(at.group) ||
        ws[0] % static_cast<std::size_t>(at.group))
        detail::fail("Conv", "channels do not match: input ", x.describe(), ", weight ",
                     weight.describe(), ", group ", at.group);
    Value<B> in = x;
    std::vector<std::size_t> padding(n, 0);
    if (w.symmetric()) {
        for (std::size_t i = 0; i < n; ++i) padding[i] = static_cast<std::size_t>(w.begin[i]);
    } else {
        in = detail::pad_spatial(x, w, 0.0);
    }
    auto xf = detail::require_float(in, "Conv"), wf = detail::require_float(weight, "Conv");
    std::optional<typename B::FloatTensor> bf;
    if (bias) bf = bias->to_float();
    const auto g = static_cast<std::size_t>(at.group);
    typename B::FloatTensor y = xf;
    if (n == 1)
        y = B::conv1d(xf, wf, bf,
                      ConvOptions<1>{detail::arr<1>(w.stride), detail::arr<1>(padding),
                                     detail::arr<1>(w.dilation), g});
    else if (n == 2)
        y = B::conv2d(xf, wf, bf,
                      ConvOptions<2>{detail::arr<2>(w.stride), detail::arr<2>(padding),
                                     detail::arr<2>(w.dilation), g});
    else
        y = B::conv3d(xf, wf, bf,
                      ConvOptions<3>{detail::arr<3>(w.stride), detail::arr<3>(padding),
                                     detail::arr<3>(w.dilation), g});
    return Value<B>(Float{}, y, x.type());
}

/// ConvTranspose (weight [C, M / group, k...]); pads, output_padding and output_shape as ONNX.
template <class B>
Value<B> conv_transpose(const Value<B>& x, const Value<B>& weight, const OptValue<B>& bias,
                        const WindowAttrs& at) {
    const Shape s = x.shape(), ws = weight.shape();
    if (s.rank() < 3 || s.rank() > 5 || ws.rank() != s.rank())
        detail::fail("ConvTranspose", "input ", x.describe(), " and weight ", weight.describe(),
                     " must both be [N, C, d1, ...] with 1 to 3 spatial dims");
    const std::size_t n = s.rank() - 2;
    if (at.group <= 0 || s[1] != ws[0])
        detail::fail("ConvTranspose", "channels do not match: input ", x.describe(), ", weight ",
                     weight.describe());
    std::vector<std::int64_t> k;
    for (std::size_t i = 2; i < ws.rank(); ++i) k.push_back(static_cast<std::int64_t>(ws[i]));
    WindowAttrs plain = at;
    plain.auto_pad = "NOTSET";
    auto w = detail::resolve_window(plain, s, n, k, "ConvTranspose");
    std::vector<std::int64_t> full(n), out(n), begin(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto in = static_cast<std::int64_t>(s[i + 2]);
        const auto st = static_cast<std::int64_t>(w.stride[i]);
        const auto span = (static_cast<std::int64_t>(w.kernel[i]) - 1) *
                              static_cast<std::int64_t>(w.dilation[i]) +
                          1;
        full[i] = (in - 1) * st + span;
        const std::int64_t op_ = at.output_padding.empty() ? 0 : at.output_padding[i];
        if (!at.output_shape.empty()) {
            const std::size_t off = at.output_shape.size() == n ? 0 : 2;
            out[i] = at.output_shape[i + off];
            const std::int64_t total = std::max<std::int64_t>(0, full[i] + op_ - out[i]);
            begin[i] = (at.auto_pad == "SAME_UPPER" || at.auto_pad == "NOTSET") ? total / 2
                                                                                : total - total / 2;
            if (at.auto_pad == "SAME_UPPER") begin[i] = total / 2;
            else if (at.auto_pad == "SAME_LOWER") begin[i] = total - total / 2;
        } else if (at.auto_pad == "SAME_UPPER" || at.auto_pad == "SAME_LOWER") {
            out[i] = in * st;
            const std::int64_t total = std::max<std::int64_t>(0, full[i] + op_ - out[i]);
            begin[i] = at.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
        } else {
            begin[i] = w.begin[i];
            out[i] = full[i] + op_ - w.begin[i] - w.end[i];
        }
        if (out[i] <= 0)
            detail::fail("ConvTranspose", "the output size along spatial dim ", i, " would be ",
                         out[i]);
    }
    auto xf = detail::require_float(x, "ConvTranspose"),
         wf = detail::require_float(weight, "ConvTranspose");
    const auto g = static_cast<std::size_t>(at.group);
    const std::vector<std::size_t> zero(n, 0);
    typename B::FloatTensor y = xf;
    if (n == 1)
        y = B::conv_transpose1d(
            xf, wf, std::nullopt,
            ConvTransposeOptions<1>{detail::arr<1>(w.stride), detail::arr<1>(zero),
                                    detail::arr<1>(zero), detail::arr<1>(w.dilation), g});
    else if (n == 2)
        y = B::conv_transpose2d(
            xf, wf, std::nullopt,
            ConvTransposeOptions<2>{detail::arr<2>(w.stride), detail::arr<2>(zero),
                                    detail::arr<2>(zero), detail::arr<2>(w.dilation), g});
    else
        y = B::conv_transpose3d(
            xf, wf, std::nullopt,
            ConvTransposeOptions<3>{detail::arr<3>(w.stride), detail::arr<3>(zero),
                                    detail::arr<3>(zero), detail::arr<3>(w.dilation), g});
    // Crop `begin` from the front and keep `out` (zeros beyond the full output).
    Value<B> yv(Float{}, y, x.type());
    std::vector<std::int64_t> pb(n + 2, 0), pe(n + 2, 0);
    for (std::size_t i = 0; i < n; ++i) {
        pb[i + 2] = -begin[i];
        pe[i + 2] = out[i] - (full[i] - begin[i]);
    }
    yv = detail::pad_constant(yv, pb, pe, 0.0);
    if (bias) {
        Shape bs(std::vector<std::size_t>(s.rank(), 1));
        bs[1] = yv.shape()[1];
        yv = Value<B>(
            Float{},
            B::float_add(yv.float_prim(),
                         B::float_expand(B::float_reshape(bias->to_float(), bs), yv.shape())),
            x.type());
    }
    return yv;
}

namespace detail {
/// Pooling over any number of spatial dims as a max (or sum) of strided slices, one per kernel
/// offset; used where the backend has no pooling kernel (3-D). Average pooling divides by the
/// window's count of input cells (and explicit pads with count_include_pad).
template <class B>
Value<B> pool_by_slices(const Value<B>& x, const Window& w, bool ceil_mode, bool is_max,
                        bool count_include_pad) {
    const Shape s = x.shape();
    const std::size_t n = s.rank() - 2;
    std::vector<std::size_t> out(n);
    Window padded_w = w;
    for (std::size_t i = 0; i < n; ++i) {
        const auto in = static_cast<std::int64_t>(s[i + 2]);
        const auto st = static_cast<std::int64_t>(w.stride[i]);
        const std::int64_t span = (static_cast<std::int64_t>(w.kernel[i]) - 1) *
                                      static_cast<std::int64_t>(w.dilation[i]) +
                                  1;
        const std::int64_t padded = in + w.begin[i] + w.end[i];
        if (padded < span)
            fail(is_max ? "MaxPool" : "AveragePool", "the window ", span,
                 " is larger than the padded input ", padded);
        std::int64_t o = (padded - span + (ceil_mode ? st - 1 : 0)) / st + 1;
        if (ceil_mode && (o - 1) * st >= in + w.begin[i]) --o;
        out[i] = static_cast<std::size_t>(o);
        padded_w.end[i] += std::max<std::int64_t>(0, (o - 1) * st + span - padded);
    }
    const double fill = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
    auto xf = is_float_type(x.type()) ? x : to_kind(x, ElemType::Float);
    const Value<B> xp = pad_spatial(xf, padded_w, fill);
    auto sweep = [&](const Value<B>& src, bool take_max) {
        std::optional<typename B::FloatTensor> acc;
        std::vector<std::size_t> k(n, 0);
        while (true) {
            const Shape ss = src.shape();
            std::vector<SliceRange> r(s.rank());
            r[0] = {0, ss[0], 1};
            r[1] = {0, ss[1], 1};
            for (std::size_t i = 0; i < n; ++i)
                r[i + 2] = {k[i] * w.dilation[i], out[i], w.stride[i]};
            auto piece = B::float_slice(src.float_prim(), r);
            acc = !acc       ? piece
                  : take_max ? B::float_max_pair(*acc, piece)
                             : B::float_add(*acc, piece);
            std::size_t d = n;
            while (d-- > 0) {
                if (++k[d] < w.kernel[d]) break;
                k[d] = 0;
            }
            if (d == static_cast<std::size_t>(-1)) break;
        }
        return *acc;
    };
    if (is_max) return Value<B>(Float{}, sweep(xp, true), xf.type());
    auto total = sweep(xp, false);
    // The divisor: ones over the input (and explicit pads when they count), zeros elsewhere.
    Shape one_shape = s;
    one_shape[0] = 1;
    one_shape[1] = 1;
    Value<B> ones(Float{}, B::float_ones(one_shape, x.device()), ElemType::Float);
    Window ext = padded_w;
    if (count_include_pad) {
        ones = pad_spatial(ones, w, 1.0);
        for (std::size_t i = 0; i < n; ++i) {
            ext.begin[i] = 0;
            ext.end[i] = padded_w.end[i] - w.end[i];
        }
    }
    auto cnt = sweep(pad_spatial(ones, ext, 0.0), false);
    Shape ts = B::float_shape(total);
    return Value<B>(Float{}, B::float_div(total, B::float_expand(cnt, ts)), xf.type());
}
}  // namespace detail

/// MaxPool (1-D and 2-D); the second result is the flat indices over the whole input (row-major).
template <class B>
std::vector<Value<B>> max_pool(const Value<B>& x, const WindowAttrs& at, bool want_indices,
                               bool column_major = false) {
    const Shape s = x.shape();
    if (s.rank() < 3) detail::fail("MaxPool", "input must be [N, C, d1, ...], got ", x.describe());
    const std::size_t n = s.rank() - 2;
    auto w = detail::resolve_window(at, s, n, {}, "MaxPool");
    if (n > 2) {
        if (want_indices) detail::fail("MaxPool", "indices of ", n, "-D pooling are not supported");
        auto y = detail::pool_by_slices(x, w, at.ceil_mode, true, false);
        return {is_float_type(x.type()) ? y : ops::cast(y, x.type())};
    }
    Value<B> in = x;
    std::vector<std::size_t> padding(n, 0);
    if (w.symmetric()) {
        for (std::size_t i = 0; i < n; ++i) padding[i] = static_cast<std::size_t>(w.begin[i]);
    } else {
        if (want_indices) detail::fail("MaxPool", "indices with asymmetric pads are not supported");
        in = detail::pad_spatial(x, w, -std::numeric_limits<double>::infinity());
    }
    Value<B> fin = is_float_type(in.type()) ? in : detail::to_kind(in, ElemType::Float);
    auto xf = fin.float_prim();
    std::vector<Value<B>> outs;
    auto finish = [&](typename B::FloatTensor y, std::optional<typename B::IntTensor> idx) {
        Value<B> yv(Float{}, y, fin.type());
        outs.push_back(is_float_type(x.type()) ? yv : ops::cast(yv, x.type()));
        if (idx) {
            const Shape os = B::int_shape(*idx);
            const std::size_t plane = detail::dims_product(s, 2, s.rank());
            if (column_major && n == 2) {
                // Row-major h * W + w -> column-major w * H + h.
                const auto H = static_cast<std::int64_t>(s[2]), W = static_cast<std::int64_t>(s[3]);
                auto h = B::int_div_scalar(*idx, W);
                auto w = B::int_sub(*idx, B::int_mul_scalar(h, W));
                idx = B::int_add(B::int_mul_scalar(w, H), h);
            }
            Shape ps(std::vector<std::size_t>(os.rank(), 1));
            ps[0] = s[0];
            ps[1] = s[1];
            auto base = B::int_mul_scalar(
                B::int_reshape(
                    B::int_arange(0, static_cast<std::int64_t>(s[0] * s[1]), 1, x.device()), ps),
                static_cast<std::int64_t>(plane));
            outs.emplace_back(Int{}, B::int_add(*idx, B::int_expand(base, os)), ElemType::Int64);
        }
    };
    if (n == 1) {
        MaxPoolOptions<1> o{detail::arr<1>(w.kernel), detail::arr<1>(w.stride),
                            detail::arr<1>(padding), detail::arr<1>(w.dilation), at.ceil_mode};
        if (want_indices) {
            auto r = B::max_pool1d_with_indices(xf, o);
            finish(r.output, r.indices);
        } else {
            finish(B::max_pool1d(xf, o), std::nullopt);
        }
    } else {
        MaxPoolOptions<2> o{detail::arr<2>(w.kernel), detail::arr<2>(w.stride),
                            detail::arr<2>(padding), detail::arr<2>(w.dilation), at.ceil_mode};
        if (want_indices) {
            auto r = B::max_pool2d_with_indices(xf, o);
            finish(r.output, r.indices);
        } else {
            finish(B::max_pool2d(xf, o), std::nullopt);
        }
    }
    return outs;
}

/// MaxUnpool: scatters x's values to the flat output positions `indices` of a zero tensor.
template <class B>
Value<B> max_unpool(const Value<B>& x, const Value<B>& indices,
                    const std::optional<std::vector<std::int64_t>>& output_shape,
                    const WindowAttrs& at) {
    const Shape s = x.shape();
    if (s.rank() < 3)
        detail::fail("MaxUnpool", "input must be [N, C, d1, ...], got ", x.describe());
    if (indices.shape() != s)
        detail::fail("MaxUnpool", "indices ", indices.describe(), " must have the shape of ",
                     x.describe());
    const std::size_t n = s.rank() - 2;
    // The indices address the default output shape; an output_shape differing from it places
    // the result at the same coordinates (zeros after, as ONNX's reference does).
    Shape out;
    auto w = detail::resolve_window(at, s, n, {}, "MaxUnpool");
    out.push_back(s[0]);
    out.push_back(s[1]);
    for (std::size_t i = 0; i < n; ++i) {
        const auto len =
            (static_cast<std::int64_t>(s[i + 2]) - 1) * static_cast<std::int64_t>(w.stride[i]) +
            static_cast<std::int64_t>(w.kernel[i]) - w.begin[i] - w.end[i];
        if (len <= 0) detail::fail("MaxUnpool", "output dim ", i, " would be ", len);
        out.push_back(static_cast<std::size_t>(len));
    }
    std::vector<std::int64_t> grow(s.rank(), 0);
    if (output_shape) {
        if (output_shape->size() != s.rank())
            detail::fail("MaxUnpool", "output_shape has ", output_shape->size(), " dims for ",
                         x.describe());
        for (std::size_t i = 0; i < s.rank(); ++i) {
            if ((*output_shape)[i] < static_cast<std::int64_t>(out[i]))
                detail::fail("MaxUnpool", "output_shape dim ", i, " (", (*output_shape)[i],
                             ") is smaller than ", out[i]);
            grow[i] = (*output_shape)[i] - static_cast<std::int64_t>(out[i]);
        }
    }
    const std::size_t total = out.num_elements();
    auto idx =
        detail::wrap_indices(detail::reshape(indices, Shape{s.num_elements()}), total, "MaxUnpool");
    auto vals = B::float_reshape(detail::require_float(x, "MaxUnpool"), Shape{s.num_elements()});
    auto y = B::float_scatter(0, B::float_zeros(Shape{total}, x.device()), idx, vals);
    Value<B> res(Float{}, B::float_reshape(y, out), x.type());
    const std::vector<std::int64_t> none(s.rank(), 0);
    return detail::pad_constant(res, none, grow, 0.0);
}

/// AveragePool (1-D and 2-D).
template <class B>
Value<B> average_pool(const Value<B>& x, const WindowAttrs& at) {
    const Shape s = x.shape();
    if (s.rank() < 3)
        detail::fail("AveragePool", "input must be [N, C, d1, ...], got ", x.describe());
    const std::size_t n = s.rank() - 2;
    auto w = detail::resolve_window(at, s, n, {}, "AveragePool");
    if (n > 2) return detail::pool_by_slices(x, w, at.ceil_mode, false, at.count_include_pad);
    for (auto d : w.dilation)
        if (d != 1) detail::fail("AveragePool", "dilations are not supported");
    auto pool = [&](typename B::FloatTensor t, const std::vector<std::size_t>& padding,
                    bool include) {
        if (n == 1)
            return B::avg_pool1d(
                t, AvgPoolOptions<1>{detail::arr<1>(w.kernel), detail::arr<1>(w.stride),
                                     detail::arr<1>(padding), include, at.ceil_mode});
        return B::avg_pool2d(t,
                             AvgPoolOptions<2>{detail::arr<2>(w.kernel), detail::arr<2>(w.stride),
                                               detail::arr<2>(padding), include, at.ceil_mode});
    };
    auto xf = detail::require_float(x, "AveragePool");
    if (w.symmetric()) {
        std::vector<std::size_t> padding(n);
        for (std::size_t i = 0; i < n; ++i) padding[i] = static_cast<std::size_t>(w.begin[i]);
        return Value<B>(Float{}, pool(xf, padding, at.count_include_pad), x.type());
    }
    // Asymmetric pads: pool the zero-padded input; without count_include_pad divide the window
    // sums by the number of real cells (a pooled, zero-padded ones tensor).
    const std::vector<std::size_t> zero(n, 0);
    auto padded = detail::pad_spatial(x, w, 0.0);
    auto y = pool(padded.float_prim(), zero, true);
    if (!at.count_include_pad) {
        Value<B> ones(Float{}, B::float_ones(s, x.device()), x.type());
        auto cnt = pool(detail::pad_spatial(ones, w, 0.0).float_prim(), zero, true);
        y = B::float_div(y, cnt);
    }
    return Value<B>(Float{}, y, x.type());
}

/// GlobalAveragePool / GlobalMaxPool: over every spatial dim, kept as size 1.
template <class B>
Value<B> global_pool(const Value<B>& x, bool is_max) {
    const Shape s = x.shape();
    if (s.rank() < 2)
        detail::fail(is_max ? "GlobalMaxPool" : "GlobalAveragePool",
                     "input must be [N, C, ...], got ", x.describe());
    auto t = detail::require_float(x, is_max ? "GlobalMaxPool" : "GlobalAveragePool");
    for (std::size_t d = 2; d < s.rank(); ++d)
        t = is_max ? B::float_max_dim(t, d) : B::float_mean_dim(t, d);
    return Value<B>(Float{}, t, x.type());
}

namespace detail {
/// A per-channel [C] value as [1, C, 1, ...] of rank r.
template <class B>
typename B::FloatTensor channel(const Value<B>& v, std::size_t r, std::size_t c,
                                std::string_view op) {
    if (v.shape().num_elements() != c)
        fail(op, "per-channel input ", v.describe(), " must hold ", c, " values");
    Shape s(std::vector<std::size_t>(r, 1));
    s[1] = c;
    return B::float_reshape(v.to_float(), s);
}
}  // namespace detail

/// BatchNormalization; in training mode also the running mean and variance.
template <class B>
std::vector<Value<B>> batch_norm(const Value<B>& x, const Value<B>& scale, const Value<B>& bias,
                                 const Value<B>& mean, const Value<B>& var, double epsilon,
                                 double momentum, bool training) {
    const Shape s = x.shape();
    if (s.rank() < 2)
        detail::fail("BatchNormalization", "input must be [N, C, ...], got ", x.describe());
    const std::size_t r = s.rank(), c = s[1];
    auto t = detail::require_float(x, "BatchNormalization");
    auto sc = B::float_expand(detail::channel(scale, r, c, "BatchNormalization"), s);
    auto bi = B::float_expand(detail::channel(bias, r, c, "BatchNormalization"), s);
    auto m = detail::channel(mean, r, c, "BatchNormalization");
    auto v = detail::channel(var, r, c, "BatchNormalization");
    std::vector<Value<B>> outs;
    if (training) {
        auto bm = t;
        for (std::size_t d = 0; d < r; ++d)
            if (d != 1) bm = B::float_mean_dim(bm, d);
        auto centered = B::float_sub(t, B::float_expand(bm, s));
        auto bv = B::float_mul(centered, centered);
        for (std::size_t d = 0; d < r; ++d)
            if (d != 1) bv = B::float_mean_dim(bv, d);
        auto y = B::float_div(centered,
                              B::float_expand(B::float_sqrt(B::float_add_scalar(bv, epsilon)), s));
        y = B::float_add(B::float_mul(y, sc), bi);
        outs.emplace_back(Float{}, y, x.type());
        auto rm =
            B::float_add(B::float_mul_scalar(m, momentum), B::float_mul_scalar(bm, 1.0 - momentum));
        auto rv =
            B::float_add(B::float_mul_scalar(v, momentum), B::float_mul_scalar(bv, 1.0 - momentum));
        outs.emplace_back(Float{}, B::float_reshape(rm, mean.shape()), mean.type());
        outs.emplace_back(Float{}, B::float_reshape(rv, var.shape()), var.type());
        return outs;
    }
    auto inv = B::float_recip(B::float_sqrt(B::float_add_scalar(v, epsilon)));
    auto y = B::float_mul(B::float_sub(t, B::float_expand(m, s)), B::float_expand(inv, s));
    y = B::float_add(B::float_mul(y, sc), bi);
    outs.emplace_back(Float{}, y, x.type());
    return outs;
}

/// LayerNormalization over dims [axis, rank): Y, Mean and InvStdDev.
template <class B>
std::vector<Value<B>> layer_norm(const Value<B>& x, const Value<B>& scale, const OptValue<B>& bias,
                                 std::int64_t axis, double epsilon) {
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "LayerNormalization");
    auto t = x.to_float();
    auto m = t;
    for (std::size_t d = a; d < s.rank(); ++d) m = B::float_mean_dim(m, d);
    auto centered = B::float_sub(t, B::float_expand(m, s));
    auto v = B::float_mul(centered, centered);
    for (std::size_t d = a; d < s.rank(); ++d) v = B::float_mean_dim(v, d);
    auto inv = B::float_recip(B::float_sqrt(B::float_add_scalar(v, epsilon)));
    auto y = B::float_mul(centered, B::float_expand(inv, s));
    auto [yb, sb] = detail::broadcast(Value<B>(Float{}, y, x.type()), scale, "LayerNormalization");
    y = B::float_mul(yb.float_prim(), sb.to_float());
    if (bias) {
        auto [y2, bb] =
            detail::broadcast(Value<B>(Float{}, y, x.type()), *bias, "LayerNormalization");
        y = B::float_add(y2.float_prim(), bb.to_float());
    }
    return {Value<B>(Float{}, y, x.type()), Value<B>(Float{}, m, ElemType::Float),
            Value<B>(Float{}, inv, ElemType::Float)};
}

template <class B>
Value<B> instance_norm(const Value<B>& x, const Value<B>& scale, const Value<B>& bias,
                       double epsilon) {
    const Shape s = x.shape();
    if (s.rank() < 3)
        detail::fail("InstanceNormalization", "input must be [N, C, d1, ...], got ", x.describe());
    auto t = detail::require_float(x, "InstanceNormalization");
    auto m = t;
    for (std::size_t d = 2; d < s.rank(); ++d) m = B::float_mean_dim(m, d);
    auto centered = B::float_sub(t, B::float_expand(m, s));
    auto v = B::float_mul(centered, centered);
    for (std::size_t d = 2; d < s.rank(); ++d) v = B::float_mean_dim(v, d);
    auto y =
        B::float_div(centered, B::float_expand(B::float_sqrt(B::float_add_scalar(v, epsilon)), s));
    y = B::float_mul(
        y, B::float_expand(detail::channel(scale, s.rank(), s[1], "InstanceNormalization"), s));
    y = B::float_add(
        y, B::float_expand(detail::channel(bias, s.rank(), s[1], "InstanceNormalization"), s));
    return Value<B>(Float{}, y, x.type());
}

/// MeanVarianceNormalization over `axes`: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
template <class B>
Value<B> mean_variance_norm(const Value<B>& x, const std::vector<std::int64_t>& axes) {
    const Shape s = x.shape();
    auto ax = detail::norm_axes(axes, s.rank(), "MeanVarianceNormalization");
    auto t = detail::require_float(x, "MeanVarianceNormalization");
    auto m = t, sq = B::float_mul(t, t);
    for (auto d : ax) {
        m = B::float_mean_dim(m, d);
        sq = B::float_mean_dim(sq, d);
    }
    auto sd = B::float_sqrt(B::float_sub(sq, B::float_mul(m, m)));
    auto y = B::float_div(B::float_sub(t, B::float_expand(m, s)),
                          B::float_expand(B::float_add_scalar(sd, 1e-9), s));
    return Value<B>(Float{}, y, x.type());
}

/// LRN across channels.
template <class B>
Value<B> lrn(const Value<B>& x, std::int64_t size, double alpha, double beta, double bias) {
    const Shape s = x.shape();
    if (s.rank() < 3 || size <= 0)
        detail::fail("LRN", "input must be [N, C, ...] and size positive, got ", x.describe());
    auto t = detail::require_float(x, "LRN");
    Value<B> sq(Float{}, B::float_mul(t, t), x.type());
    const std::int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
    std::vector<std::int64_t> b(s.rank(), 0), e(s.rank(), 0);
    b[1] = lo;
    e[1] = hi;
    Value<B> padded = detail::pad_constant(sq, b, e, 0.0);
    auto acc = B::float_zeros(s, x.device());
    for (std::int64_t i = 0; i < size; ++i)
        acc = B::float_add(
            acc, detail::narrow(padded, 1, static_cast<std::size_t>(i), s[1]).float_prim());
    auto denom = B::float_powf_scalar(
        B::float_add_scalar(B::float_mul_scalar(acc, alpha / static_cast<double>(size)), bias),
        beta);
    return Value<B>(Float{}, B::float_div(t, denom), x.type());
}

/// NegativeLogLikelihoodLoss: input [N, C, d...], target [N, d...], optional weight [C].
template <class B>
Value<B> nll_loss(const Value<B>& input, const Value<B>& target, const OptValue<B>& weight,
                  std::string_view reduction, std::optional<std::int64_t> ignore_index) {
    const Shape s = input.shape();
    if (s.rank() < 2)
        detail::fail("NegativeLogLikelihoodLoss", "input must be [N, C, ...], got ",
                     input.describe());
    if (!target.is_int())
        detail::fail("NegativeLogLikelihoodLoss", "target must be integers, got ",
                     target.describe());
    const std::size_t c = s[1];
    auto tg = target.int_prim();
    const Shape ts = target.shape();
    std::optional<typename B::BoolTensor> ignored;
    if (ignore_index) {
        ignored = B::int_equal_elem(tg, *ignore_index);
        tg = B::int_mask_fill(tg, *ignored, 0);
    }
    Shape us = ts;
    Shape tmp;
    tmp.push_back(ts[0]);
    tmp.push_back(1);
    for (std::size_t i = 1; i < ts.rank(); ++i) tmp.push_back(ts[i]);
    Value<B> tgv(Int{}, B::int_reshape(tg, tmp), ElemType::Int64);
    auto idx = detail::wrap_indices(tgv, c, "NegativeLogLikelihoodLoss");
    auto picked = B::float_reshape(
        B::float_gather(1, detail::require_float(input, "NegativeLogLikelihoodLoss"), idx), us);
    auto loss = B::float_neg(picked);
    typename B::FloatTensor w = B::float_ones(us, input.device());
    if (weight) {
        auto flat = B::int_reshape(tg, Shape{us.num_elements()});
        w = B::float_reshape(B::float_select(weight->to_float(), 0, flat), us);
    }
    if (ignored) w = B::float_mask_fill(w, *ignored, 0.0);
    loss = B::float_mul(loss, w);
    if (reduction == "none") return Value<B>(Float{}, loss, input.type());
    auto total = B::float_reshape(B::float_sum(loss), Shape{});
    if (reduction == "sum") return Value<B>(Float{}, total, input.type());
    if (reduction != "mean")
        detail::fail("NegativeLogLikelihoodLoss", "unknown reduction '", reduction, "'");
    auto wsum = B::float_reshape(B::float_sum(w), Shape{});
    return Value<B>(Float{}, B::float_div(total, wsum), input.type());
}

/// SoftmaxCrossEntropyLoss: the loss and the log-probabilities.
template <class B>
std::vector<Value<B>> softmax_cross_entropy(const Value<B>& scores, const Value<B>& labels,
                                            const OptValue<B>& weight, std::string_view reduction,
                                            std::optional<std::int64_t> ignore_index) {
    const Shape s = scores.shape();
    if (s.rank() < 2)
        detail::fail("SoftmaxCrossEntropyLoss", "scores must be [N, C, ...], got ",
                     scores.describe());
    auto lp = B::log_softmax(detail::require_float(scores, "SoftmaxCrossEntropyLoss"), 1);
    Value<B> logp(Float{}, lp, scores.type());
    return {nll_loss(logp, labels, weight, reduction, ignore_index), logp};
}

namespace detail {
/// Resize's opset-18 attributes: `axes` (scales, sizes and roi given for those axes only: the
/// others keep scale 1, their size and the whole range) and `keep_aspect_ratio_policy` (with sizes:
/// stretch, or one scale for every listed axis, the largest that fits (not_larger) or the
/// smallest that covers (not_smaller), sizes rounded half up). `antialias` is refused.
inline void resize_opset18(const Node& n, const Shape& in, std::vector<double>& scales,
                           std::vector<std::int64_t>& sizes, std::vector<double>& roi) {
    if (n.attr_int("antialias", 0) != 0)
        fail("Resize", "antialias = 1 (a low-pass filter when downsampling) is not supported");
    const std::size_t r = in.rank();
    std::vector<std::size_t> axes;
    for (auto a : n.attr_ints("axes")) axes.push_back(norm_axis(a, r, "Resize"));
    if (axes.empty())
        for (std::size_t i = 0; i < r; ++i) axes.push_back(i);
    else {
        const std::size_t k = axes.size();
        auto spread = [&](auto& v, auto fill, const char* what) {
            if (v.empty()) return;
            if (v.size() != k) fail("Resize", what, " has ", v.size(), " values for ", k, " axes");
            std::remove_reference_t<decltype(v)> full(r);
            for (std::size_t i = 0; i < r; ++i) full[i] = fill(i);
            for (std::size_t j = 0; j < k; ++j) full[axes[j]] = v[j];
            v = std::move(full);
        };
        spread(
            scales, [](std::size_t) { return 1.0; }, "scales");
        spread(
            sizes, [&](std::size_t i) { return static_cast<std::int64_t>(in[i]); }, "sizes");
        if (!roi.empty()) {
            if (roi.size() != 2 * k)
                fail("Resize", "roi has ", roi.size(), " values for ", k, " axes");
            std::vector<double> full(2 * r);
            for (std::size_t i = 0; i < r; ++i) {
                full[i] = 0.0;
                full[r + i] = 1.0;
            }
            for (std::size_t j = 0; j < k; ++j) {
                full[axes[j]] = roi[j];
                full[r + axes[j]] = roi[k + j];
            }
            roi = std::move(full);
        }
    }
    const std::string policy = n.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch" || sizes.empty()) return;
    if (policy != "not_larger" && policy != "not_smaller")
        fail("Resize", "keep_aspect_ratio_policy must be stretch, not_larger or not_smaller, got '",
             policy, "'");
    if (sizes.size() != r) fail("Resize", sizes.size(), " sizes for rank ", r);
    double scale = policy == "not_larger" ? std::numeric_limits<double>::infinity() : 0.0;
    for (auto a : axes) {
        if (in[a] == 0) fail("Resize", "keep_aspect_ratio_policy needs non-empty dims");
        const double f = static_cast<double>(sizes[a]) / static_cast<double>(in[a]);
        scale = policy == "not_larger" ? std::min(scale, f) : std::max(scale, f);
    }
    for (auto a : axes)
        sizes[a] = static_cast<std::int64_t>(std::floor(scale * static_cast<double>(in[a]) + 0.5));
}
}  // namespace detail

// ------------------------------------------------------------------------------- Resize
struct ResizeAttrs {
    std::string mode = "nearest";  ///< nearest, linear, cubic
    std::string coordinate_transformation_mode = "half_pixel";
    std::string nearest_mode = "round_prefer_floor";
    double cubic_coeff_a = -0.75;
    bool exclude_outside = false;
    double extrapolation_value = 0.0;
};

/// Resize to `sizes` (or by `scales`); each resized axis is interpolated separately (taps chosen
/// on the host from the shapes, values combined by B's select, mul and add), innermost first.
template <class B>
Value<B> resize(const Value<B>& x, std::vector<double> scales, std::vector<std::int64_t> sizes,
                std::vector<double> roi, const ResizeAttrs& at) {
    const Shape s = x.shape();
    const std::size_t r = s.rank();
    if (!scales.empty() && scales.size() != r)
        detail::fail("Resize", scales.size(), " scales for ", x.describe());
    if (!sizes.empty() && sizes.size() != r)
        detail::fail("Resize", sizes.size(), " sizes for ", x.describe());
    if (scales.empty() && sizes.empty()) detail::fail("Resize", "neither scales nor sizes given");
    std::vector<std::size_t> out(r);
    std::vector<double> scale(r);
    for (std::size_t i = 0; i < r; ++i) {
        if (!sizes.empty()) {
            if (sizes[i] < 0) detail::fail("Resize", "negative size ", sizes[i]);
            out[i] = static_cast<std::size_t>(sizes[i]);
            scale[i] = s[i] ? static_cast<double>(out[i]) / static_cast<double>(s[i]) : 1.0;
        } else {
            if (scales[i] <= 0) detail::fail("Resize", "scales must be positive, got ", scales[i]);
            scale[i] = scales[i];
            out[i] = static_cast<std::size_t>(std::floor(static_cast<double>(s[i]) * scales[i]));
        }
    }
    const bool crop = at.coordinate_transformation_mode == "tf_crop_and_resize";
    if (crop && roi.size() != 2 * r)
        detail::fail("Resize", "tf_crop_and_resize needs roi of ", 2 * r, " values, got ",
                     roi.size());
    const ElemType type = x.type();
    Value<B> y = is_float_type(type) ? x : detail::to_kind(x, ElemType::Float);
    const auto dev = x.device();
    for (std::size_t ai = r; ai-- > 0;) {
        const std::size_t in = s[ai], on = out[ai];
        if (in == on && scale[ai] == 1.0 && !crop) continue;
        const double sc = scale[ai];
        const double out_w = sc * static_cast<double>(in);
        std::vector<std::vector<std::int64_t>> tap_idx;
        std::vector<std::vector<double>> tap_w;
        std::vector<bool> outside(on, false);
        const std::string& ct = at.coordinate_transformation_mode;
        for (std::size_t o = 0; o < on; ++o) {
            const double od = static_cast<double>(o);
            double xo;
            if (ct == "half_pixel") xo = (od + 0.5) / sc - 0.5;
            else if (ct == "pytorch_half_pixel") xo = on > 1 ? (od + 0.5) / sc - 0.5 : -0.5;
            else if (ct == "align_corners")
                xo = out_w == 1 ? 0 : od * (static_cast<double>(in) - 1) / (out_w - 1);
            else if (ct == "asymmetric") xo = od / sc;
            else if (ct == "tf_half_pixel_for_nn") xo = (od + 0.5) / sc;
            else if (crop) {
                const double st = roi[ai], en = roi[ai + r];
                xo = on > 1 ? st * (static_cast<double>(in) - 1) +
                                  od * (en - st) * (static_cast<double>(in) - 1) /
                                      (static_cast<double>(on) - 1)
                            : 0.5 * (st + en) * (static_cast<double>(in) - 1);
                if (xo < 0 || xo > static_cast<double>(in) - 1) outside[o] = true;
            } else detail::fail("Resize", "unknown coordinate_transformation_mode '", ct, "'");
            const double fl = std::floor(xo);
            const double ratio = xo - fl;
            const auto base = static_cast<std::int64_t>(fl);
            std::vector<std::int64_t> idx;
            std::vector<double> w;
            if (at.mode == "nearest") {
                bool up;
                if (ratio == 0) up = false;
                else if (at.nearest_mode == "round_prefer_floor") up = ratio > 0.5;
                else if (at.nearest_mode == "round_prefer_ceil") up = ratio >= 0.5;
                else if (at.nearest_mode == "floor") up = false;
                else if (at.nearest_mode == "ceil") up = true;
                else detail::fail("Resize", "unknown nearest_mode '", at.nearest_mode, "'");
                idx = {base + (up ? 1 : 0)};
                w = {1.0};
            } else if (at.mode == "linear") {
                idx = {base, base + 1};
                w = {1 - ratio, ratio};
            } else if (at.mode == "cubic") {
                const double A = at.cubic_coeff_a, t = ratio, u = 1 - ratio;
                idx = {base - 1, base, base + 1, base + 2};
                w = {((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A,
                     ((A + 2) * t - (A + 3)) * t * t + 1, ((A + 2) * u - (A + 3)) * u * u + 1,
                     ((A * (u + 1) - 5 * A) * (u + 1) + 8 * A) * (u + 1) - 4 * A};
            } else {
                detail::fail("Resize", "unknown mode '", at.mode, "'");
            }
            if (at.exclude_outside && at.mode != "nearest") {
                double sum = 0;
                for (std::size_t k = 0; k < idx.size(); ++k) {
                    if (idx[k] < 0 || idx[k] >= static_cast<std::int64_t>(in)) w[k] = 0;
                    sum += w[k];
                }
                if (sum != 0)
                    for (auto& wk : w) wk /= sum;
            }
            if (tap_idx.empty()) {
                tap_idx.resize(idx.size());
                tap_w.resize(idx.size());
            }
            for (std::size_t k = 0; k < idx.size(); ++k) {
                tap_idx[k].push_back(
                    std::clamp<std::int64_t>(idx[k], 0, static_cast<std::int64_t>(in) - 1));
                tap_w[k].push_back(w[k]);
            }
        }
        if (on == 0) {
            y = detail::narrow(y, ai, 0, 0);
            continue;
        }
        Shape ws(std::vector<std::size_t>(r, 1));
        ws[ai] = on;
        Shape ys = y.shape();
        ys[ai] = on;
        typename B::FloatTensor acc = B::float_zeros(ys, dev);
        for (std::size_t k = 0; k < tap_idx.size(); ++k) {
            auto idx = B::int_from_data(TensorData(tap_idx[k], Shape{on}), dev);
            auto picked = B::float_select(y.float_prim(), ai, idx);
            if (at.mode == "nearest") {
                acc = picked;
                break;
            }
            std::vector<float> wf(tap_w[k].begin(), tap_w[k].end());
            auto wt = B::float_expand(B::float_from_data(TensorData(wf, ws), dev), ys);
            acc = B::float_add(acc, B::float_mul(picked, wt));
        }
        if (crop) {
            std::vector<std::uint8_t> m(on);
            for (std::size_t o = 0; o < on; ++o) m[o] = outside[o] ? 1 : 0;
            auto mask = B::bool_expand(
                B::bool_from_data(TensorData(std::vector<std::uint8_t>(m), ws).convert(DType::Bool),
                                  dev),
                ys);
            acc = B::float_mask_fill(acc, mask, at.extrapolation_value);
        }
        y = Value<B>(Float{}, acc, y.type());
    }
    return is_float_type(type) ? y : ops::cast(y, type);
}

// ------------------------------------------------------------------------------- quantization
namespace detail {
/// A scale or zero point broadcast against x: a scalar, or 1-D along `axis`.
template <class B>
Value<B> per_axis(const Value<B>& p, const Shape& xs, std::int64_t axis, std::string_view op) {
    if (p.rank() == 0 || p.shape().num_elements() == 1) return reshape(p, Shape{});
    const std::size_t a = norm_axis(axis, xs.rank(), op);
    if (p.rank() != 1 || p.shape()[0] != xs[a])
        fail(op, "per-axis parameter ", p.describe(), " must have ", xs[a], " values (axis ", a,
             ")");
    Shape s(std::vector<std::size_t>(xs.rank(), 1));
    s[a] = xs[a];
    return reshape(p, s);
}
inline std::pair<double, double> quant_range(ElemType t, std::string_view op) {
    switch (t) {
        case ElemType::UInt8: return {0, 255};
        case ElemType::Int8: return {-128, 127};
        case ElemType::UInt16: return {0, 65535};
        case ElemType::Int16: return {-32768, 32767};
        case ElemType::Int32: return {-2147483648.0, 2147483647.0};
        default: break;
    }
    fail(op, "unsupported quantized type ", elem_type_name(t));
}
}  // namespace detail

/// QuantizeLinear: saturate(round_half_even(x / scale) + zero_point), of the zero point's type.
template <class B>
Value<B> quantize_linear(const Value<B>& x, const Value<B>& scale, const OptValue<B>& zp,
                         std::int64_t axis) {
    const Shape s = x.shape();
    const ElemType t = zp ? zp->type() : ElemType::UInt8;
    const auto [lo, hi] = detail::quant_range(t, "QuantizeLinear");
    auto sc = B::float_expand(
        detail::align_rank(detail::per_axis(scale, s, axis, "QuantizeLinear"), s.rank()).to_float(),
        s);
    auto q = B::float_round(B::float_div(x.to_float(), sc));
    if (zp)
        q = B::float_add(
            q, B::float_expand(
                   detail::align_rank(detail::per_axis(*zp, s, axis, "QuantizeLinear"), s.rank())
                       .to_float(),
                   s));
    q = B::float_clamp(q, lo, hi);
    return Value<B>(Int{}, B::float_into_int(q), t);
}

/// DequantizeLinear: (x - zero_point) * scale.
template <class B>
Value<B> dequantize_linear(const Value<B>& x, const Value<B>& scale, const OptValue<B>& zp,
                           std::int64_t axis) {
    const Shape s = x.shape();
    auto v = x.to_float();
    if (zp)
        v = B::float_sub(
            v, B::float_expand(
                   detail::align_rank(detail::per_axis(*zp, s, axis, "DequantizeLinear"), s.rank())
                       .to_float(),
                   s));
    auto sc = B::float_expand(
        detail::align_rank(detail::per_axis(scale, s, axis, "DequantizeLinear"), s.rank())
            .to_float(),
        s);
    return Value<B>(Float{}, B::float_mul(v, sc), scale.type());
}

/// DynamicQuantizeLinear: uint8 y, its scale and zero point.
template <class B>
std::vector<Value<B>> dynamic_quantize_linear(const Value<B>& x) {
    const Shape s = x.shape();
    auto t = detail::require_float(x, "DynamicQuantizeLinear");
    auto flat = B::float_reshape(t, Shape{s.num_elements()});
    auto mx = B::float_clamp_min(B::float_reshape(B::float_max_dim(flat, 0), Shape{}), 0.0);
    auto mn = B::float_clamp_max(B::float_reshape(B::float_min_dim(flat, 0), Shape{}), 0.0);
    auto scale = B::float_div_scalar(B::float_sub(mx, mn), 255.0);
    auto zp = B::float_clamp(B::float_round(B::float_neg(B::float_div(mn, scale))), 0.0, 255.0);
    auto q = B::float_round(B::float_div(t, B::float_expand(scale, s)));
    q = B::float_clamp(B::float_add(q, B::float_expand(zp, s)), 0.0, 255.0);
    return {Value<B>(Int{}, B::float_into_int(q), ElemType::UInt8),
            Value<B>(Float{}, scale, ElemType::Float),
            Value<B>(Int{}, B::float_into_int(zp), ElemType::UInt8)};
}

namespace detail {
/// x - zero_point as floats (the zero point broadcast per row / channel along `axis` when 1-D).
template <class B>
Value<B> minus_zero_point(const Value<B>& x, const OptValue<B>& zp, std::int64_t axis,
                          std::string_view op) {
    Value<B> xf(Float{}, x.to_float(), ElemType::Float);
    if (!zp) return xf;
    const Shape s = x.shape();
    Value<B> z = zp->rank() == 0 || zp->shape().num_elements() == 1 ? reshape(*zp, Shape{})
                                                                    : per_axis(*zp, s, axis, op);
    z = align_rank(z, s.rank());
    return Value<B>(Float{}, B::float_sub(xf.float_prim(), B::float_expand(z.to_float(), s)),
                    ElemType::Float);
}
/// round_half_even(acc * scale) + zero_point, saturated to the zero point's type.
template <class B>
Value<B> requantize(const Value<B>& acc, const Value<B>& scale, const Value<B>& zp,
                    std::int64_t axis, std::string_view op) {
    const Shape s = acc.shape();
    const auto [lo, hi] = quant_range(zp.type(), op);
    Value<B> sc = align_rank(scale.rank() == 0 || scale.shape().num_elements() == 1
                                 ? reshape(scale, Shape{})
                                 : per_axis(scale, s, axis, op),
                             s.rank());
    auto q = B::float_round(B::float_mul(acc.float_prim(), B::float_expand(sc.to_float(), s)));
    q = B::float_add(q, B::float_expand(align_rank(reshape(zp, Shape{}), s.rank()).to_float(), s));
    return Value<B>(Int{}, B::float_into_int(B::float_clamp(q, lo, hi)), zp.type());
}
}  // namespace detail

/// MatMulInteger: (A - a_zero_point) @ (B - b_zero_point) as int32 (a per-row a_zero_point is
/// [M], a per-column b_zero_point [N]).
template <class B>
Value<B> matmul_integer(const Value<B>& a, const Value<B>& b, const OptValue<B>& azp,
                        const OptValue<B>& bzp) {
    auto x =
        detail::minus_zero_point(a, azp, static_cast<std::int64_t>(a.rank()) - 2, "MatMulInteger");
    auto y = detail::minus_zero_point(b, bzp, -1, "MatMulInteger");
    return ops::cast(matmul(x, y), ElemType::Int32);
}

/// ConvInteger: Conv of (x - x_zero_point) and (w - w_zero_point), as int32.
template <class B>
Value<B> conv_integer(const Value<B>& x, const Value<B>& w, const OptValue<B>& xzp,
                      const OptValue<B>& wzp, const WindowAttrs& at) {
    auto xf = detail::minus_zero_point(x, xzp, 1, "ConvInteger");
    auto wf = detail::minus_zero_point(w, wzp, 0, "ConvInteger");
    return ops::cast(conv(xf, wf, OptValue<B>{}, at), ElemType::Int32);
}

/// QLinearMatMul: requantized product of two quantized matrices.
template <class B>
Value<B> qlinear_matmul(const Value<B>& a, const Value<B>& as, const Value<B>& azp,
                        const Value<B>& b, const Value<B>& bs, const Value<B>& bzp,
                        const Value<B>& ys, const Value<B>& yzp) {
    auto acc =
        matmul(detail::minus_zero_point(a, OptValue<B>(azp),
                                        static_cast<std::int64_t>(a.rank()) - 2, "QLinearMatMul"),
               detail::minus_zero_point(b, OptValue<B>(bzp), -1, "QLinearMatMul"));
    auto scale = div(mul(Value<B>(Float{}, as.to_float(), ElemType::Float),
                         Value<B>(Float{}, bs.to_float(), ElemType::Float)),
                     Value<B>(Float{}, ys.to_float(), ElemType::Float));
    return detail::requantize(acc, scale, yzp, -1, "QLinearMatMul");
}

/// QLinearConv: requantized convolution (w_scale may be per output channel; bias is int32).
template <class B>
Value<B> qlinear_conv(const Value<B>& x, const Value<B>& xs, const Value<B>& xzp, const Value<B>& w,
                      const Value<B>& ws, const Value<B>& wzp, const Value<B>& ys,
                      const Value<B>& yzp, const OptValue<B>& bias, const WindowAttrs& at) {
    std::optional<Value<B>> bf;
    if (bias) bf = Value<B>(Float{}, bias->to_float(), ElemType::Float);
    auto acc =
        conv(detail::minus_zero_point(x, OptValue<B>(xzp), 1, "QLinearConv"),
             detail::minus_zero_point(w, OptValue<B>(wzp), 0, "QLinearConv"), OptValue<B>(bf), at);
    auto scale = div(mul(Value<B>(Float{}, xs.to_float(), ElemType::Float),
                         Value<B>(Float{}, ws.to_float(), ElemType::Float)),
                     Value<B>(Float{}, ys.to_float(), ElemType::Float));
    return detail::requantize(acc, scale, yzp, 1, "QLinearConv");
}

/// HannWindow, HammingWindow, BlackmanWindow: a0 - a1 cos(2 pi n / D) + a2 cos(4 pi n / D), with
/// D = size (periodic) or size - 1 (symmetric).
template <class B>
Value<B> window(const Value<B>& size, bool periodic, double a0, double a1, double a2,
                ElemType type) {
    const auto n = static_cast<std::int64_t>(detail::host_scalar(size, "Window", "size"));
    if (n < 0) detail::fail("Window", "negative size ", n);
    const auto dev = size.device();
    auto k = B::int_into_float(B::int_arange(0, n, 1, dev));
    const double d = periodic ? static_cast<double>(n) : static_cast<double>(n - 1);
    const double f = d > 0 ? 2 * M_PI / d : 0.0;
    auto y =
        B::float_add_scalar(B::float_mul_scalar(B::float_cos(B::float_mul_scalar(k, f)), -a1), a0);
    if (a2 != 0)
        y = B::float_add(y, B::float_mul_scalar(B::float_cos(B::float_mul_scalar(k, 2 * f)), a2));
    Value<B> v(Float{}, y, ElemType::Float);
    return type == ElemType::Float ? v : ops::cast(v, type);
}

/// LpNormalization: x / ||x||_p along axis (p = 1 or 2; a zero norm gives inf or NaN, as ONNX's
/// reference).
template <class B>
Value<B> lp_normalization(const Value<B>& x, std::int64_t axis, std::int64_t p) {
    if (p != 1 && p != 2) detail::fail("LpNormalization", "p must be 1 or 2, got ", p);
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "LpNormalization");
    auto t = detail::require_float(x, "LpNormalization");
    auto norm = p == 1 ? B::float_sum_dim(B::float_abs(t), a)
                       : B::float_sqrt(B::float_sum_dim(B::float_mul(t, t), a));
    return Value<B>(Float{}, B::float_div(t, B::float_expand(norm, s)), x.type());
}

/// LpPool: (sum of |x|^p over each window)^(1/p), padding counting as zeros.
template <class B>
Value<B> lp_pool(const Value<B>& x, WindowAttrs at, double p) {
    if (!(p > 0)) detail::fail("LpPool", "p must be positive, got ", p);
    auto t = detail::require_float(x, "LpPool");
    std::size_t k = 1;
    for (auto d : at.kernel_shape) k *= static_cast<std::size_t>(std::max<std::int64_t>(d, 0));
    at.count_include_pad = true;
    const Value<B> powed(Float{}, B::float_powf_scalar(B::float_abs(t), p), x.type());
    auto sums = B::float_mul_scalar(average_pool(powed, at).float_prim(), static_cast<double>(k));
    return Value<B>(Float{}, B::float_powf_scalar(sums, 1.0 / p), x.type());
}

/// GlobalLpPool: (sum of |x|^p over the spatial dims)^(1/p), kept as size-1 dims.
template <class B>
Value<B> global_lp_pool(const Value<B>& x, double p) {
    const Shape s = x.shape();
    if (s.rank() < 2) detail::fail("GlobalLpPool", "input must be [N, C, ...], got ", x.describe());
    if (!(p > 0)) detail::fail("GlobalLpPool", "p must be positive, got ", p);
    auto t = B::float_powf_scalar(B::float_abs(detail::require_float(x, "GlobalLpPool")), p);
    for (std::size_t d = 2; d < s.rank(); ++d) t = B::float_sum_dim(t, d);
    return Value<B>(Float{}, B::float_powf_scalar(t, 1.0 / p), x.type());
}

/// GroupNormalization: x [N, C, ...] normalised over each group of C / num_groups channels (and
/// the spatial dims), then scaled and shifted. scale and bias have one value per group (opset 18)
/// or per channel (opset 21).
template <class B>
Value<B> group_norm(const Value<B>& x, const Value<B>& scale, const Value<B>& bias,
                    std::int64_t num_groups, double epsilon) {
    const Shape s = x.shape();
    if (s.rank() < 2)
        detail::fail("GroupNormalization", "input must be [N, C, ...], got ", x.describe());
    const std::size_t c = s[1];
    if (num_groups <= 0 || c % static_cast<std::size_t>(num_groups) != 0)
        detail::fail("GroupNormalization", "num_groups ", num_groups, " must divide the ", c,
                     " channels of ", x.describe());
    const auto g = static_cast<std::size_t>(num_groups);
    auto t = detail::require_float(x, "GroupNormalization");
    const Shape gs{s[0], g, detail::dims_product(s, 1, s.rank()) / g};
    auto xr = B::float_reshape(t, gs);
    auto m = B::float_mean_dim(xr, 2);
    auto centered = B::float_sub(xr, B::float_expand(m, gs));
    auto v = B::float_mean_dim(B::float_mul(centered, centered), 2);
    auto y = B::float_reshape(
        B::float_div(centered, B::float_expand(B::float_sqrt(B::float_add_scalar(v, epsilon)), gs)),
        s);
    // Per-group parameters repeat over the group's channels.
    auto per_channel = [&](const Value<B>& w, const char* what) {
        const std::size_t n = w.shape().num_elements();
        if (n != c && n != g)
            detail::fail("GroupNormalization", what, " ", w.describe(), " must have ", g,
                         " (groups) or ", c, " (channels) values");
        auto f = B::float_reshape(detail::require_float(w, "GroupNormalization", what), Shape{n});
        if (n == g && g != c) {
            std::vector<std::int64_t> idx(c);
            for (std::size_t i = 0; i < c; ++i) idx[i] = static_cast<std::int64_t>(i / (c / g));
            f = B::float_select(f, 0, detail::ints_value<B>(idx, x.device()).int_prim());
        }
        Shape cs(std::vector<std::size_t>(s.rank(), 1));
        cs[1] = c;
        return B::float_expand(B::float_reshape(f, cs), s);
    };
    y = B::float_add(B::float_mul(y, per_channel(scale, "scale")), per_channel(bias, "bias"));
    return Value<B>(Float{}, y, x.type());
}

/// DeformConv (opset 19, 2-D): a deformable convolution as torchvision's deform_conv2d: offset
/// [N, offset_group * kH * kW * 2, oH, oW] holds (dy, dx) pairs, the optional mask
/// [N, offset_group * kH * kW, oH, oW] scales each sample. Asymmetric pads pad the input first.
template <class B>
Value<B> deform_conv(const Value<B>& x, const Value<B>& weight, const Value<B>& offset,
                     const OptValue<B>& bias, const OptValue<B>& mask, const WindowAttrs& at,
                     std::int64_t offset_group) {
    const Shape s = x.shape(), ws = weight.shape();
    if (s.rank() != 4 || ws.rank() != 4)
        detail::fail("DeformConv", "input ", x.describe(), " and weight ", weight.describe(),
                     " must both be 4-D (2-D deformable convolutions only)");
    auto w = detail::resolve_window(
        at, s, 2, {static_cast<std::int64_t>(ws[2]), static_cast<std::int64_t>(ws[3])},
        "DeformConv");
    if (at.group <= 0 || offset_group <= 0 || s[1] != ws[1] * static_cast<std::size_t>(at.group) ||
        ws[0] % static_cast<std::size_t>(at.group) || s[1] % static_cast<std::size_t>(offset_group))
        detail::fail("DeformConv", "channels do not match: input ", x.describe(), ", weight ",
                     weight.describe(), ", group ", at.group, ", offset_group ", offset_group);
    Value<B> in = x;
    std::vector<std::size_t> padding(2, 0);
    if (w.symmetric()) {
        for (std::size_t i = 0; i < 2; ++i) padding[i] = static_cast<std::size_t>(w.begin[i]);
    } else {
        in = detail::pad_spatial(x, w, 0.0);
    }
    const Shape is = in.shape();
    std::size_t out[2];
    for (std::size_t i = 0; i < 2; ++i) {
        const std::size_t span = w.dilation[i] * (ws[2 + i] - 1) + 1,
                          room = is[2 + i] + 2 * padding[i];
        if (room < span)
            detail::fail("DeformConv", "the kernel spans ", span, " but the padded input dim ", i,
                         " has ", room);
        out[i] = (room - span) / w.stride[i] + 1;
    }
    const auto og = static_cast<std::size_t>(offset_group), kk = ws[2] * ws[3];
    const Shape want_offset{s[0], 2 * og * kk, out[0], out[1]};
    if (offset.shape() != want_offset)
        detail::fail("DeformConv", "offset ", offset.describe(), " must be ", want_offset);
    if (mask && mask->shape() != Shape{s[0], og * kk, out[0], out[1]})
        detail::fail("DeformConv", "mask ", mask->describe(), " must be ",
                     Shape{s[0], og * kk, out[0], out[1]});
    if (bias && bias->shape().num_elements() != ws[0])
        detail::fail("DeformConv", "bias ", bias->describe(), " must hold ", ws[0], " values");
    std::optional<typename B::FloatTensor> bf, mf;
    if (bias) bf = B::float_reshape(bias->to_float(), Shape{ws[0]});
    if (mask) mf = mask->to_float();
    DeformConvOptions<2> o;
    o.stride = detail::arr<2>(w.stride);
    o.padding = detail::arr<2>(padding);
    o.dilation = detail::arr<2>(w.dilation);
    o.weight_groups = static_cast<std::size_t>(at.group);
    o.offset_groups = og;
    auto y = B::deform_conv2d(detail::require_float(in, "DeformConv"),
                              detail::require_float(offset, "DeformConv", "offset"),
                              detail::require_float(weight, "DeformConv", "W"), mf, bf, o);
    return Value<B>(Float{}, y, x.type());
}

/// AffineGrid (opset 20): the sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) of the affine maps
/// theta [N, 2, 3] (or [N, 3, 4]) over the normalised coordinates of an output of `size`, for
/// GridSample; align_corners as there.
template <class B>
Value<B> affine_grid(const Value<B>& theta, const std::vector<std::int64_t>& size,
                     bool align_corners) {
    const Shape ts = theta.shape();
    const std::size_t nd = size.size() == 4 ? 2 : size.size() == 5 ? 3 : 0;
    if (nd == 0 || ts.rank() != 3 || ts[1] != nd || ts[2] != nd + 1 ||
        static_cast<std::int64_t>(ts[0]) != size[0])
        detail::fail(
            "AffineGrid", "theta ", theta.describe(), " and size of ", size.size(),
            " values must be [N, 2, 3] with [N, C, H, W] or [N, 3, 4] with [N, C, D, H, W]");
    // Base points (x, y[, z], 1) in the order W fastest: [points, nd + 1].
    std::vector<std::size_t> dims;  // spatial sizes, outermost first (D, H, W)
    for (std::size_t i = 2; i < size.size(); ++i) {
        if (size[i] <= 0) detail::fail("AffineGrid", "size must be positive, got ", size[i]);
        dims.push_back(static_cast<std::size_t>(size[i]));
    }
    auto coord = [&](std::size_t i, std::size_t len) {
        if (len == 1) return 0.0;
        const double l = static_cast<double>(len), v = static_cast<double>(i);
        return align_corners ? -1 + 2 * v / (l - 1) : (2 * v + 1) / l - 1;
    };
    std::size_t points = 1;
    for (auto d : dims) points *= d;
    std::vector<double> base(points * (nd + 1));
    for (std::size_t p = 0; p < points; ++p) {
        std::size_t rest = p;
        std::vector<std::size_t> idx(nd);
        for (std::size_t i = nd; i-- > 0;) {
            idx[i] = rest % dims[i];
            rest /= dims[i];
        }
        // (x, y, z): x runs along the last dim.
        for (std::size_t c = 0; c < nd; ++c)
            base[p * (nd + 1) + c] = coord(idx[nd - 1 - c], dims[nd - 1 - c]);
        base[p * (nd + 1) + nd] = 1.0;
    }
    auto t = detail::require_float(theta, "AffineGrid", "theta");
    const std::size_t n = ts[0];
    auto b =
        detail::host_float_value<B>(base, Shape{1, points, nd + 1}, theta.type(), theta.device())
            .float_prim();
    // grid[n] = base [points, nd + 1] x theta[n]^T [nd + 1, nd]
    auto g =
        B::float_matmul(B::float_expand(b, Shape{n, points, nd + 1}), B::float_swap_dims(t, 1, 2));
    Shape os{n};
    for (auto d : dims) os.push_back(d);
    os.push_back(nd);
    return Value<B>(Float{}, B::float_reshape(g, os), theta.type());
}

/// RMSNormalization (opset 23): x / sqrt(mean(x^2 over the dims from axis) + epsilon) * scale.
template <class B>
Value<B> rms_norm(const Value<B>& x, const Value<B>& scale, std::int64_t axis, double epsilon) {
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "RMSNormalization");
    auto t = detail::require_float(x, "RMSNormalization");
    auto ms = B::float_mul(t, t);
    for (std::size_t d = a; d < s.rank(); ++d) ms = B::float_mean_dim(ms, d);
    auto y = B::float_div(t, B::float_expand(B::float_sqrt(B::float_add_scalar(ms, epsilon)), s));
    auto sc = detail::require_float(scale, "RMSNormalization", "scale");
    Value<B> scaled(Float{}, y, x.type());
    return mul(scaled, Value<B>(Float{}, sc, scale.type()));
}

}  // namespace burn::onnx::ops

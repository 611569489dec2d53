// SPDX-License-Identifier: MIT OR Apache-2.0
// Vision ops of the ONNX op library: GridSample (through B's gathers and arithmetic, so it runs on
// every backend and is differentiable in X and grid), RoiAlign and NonMaxSuppression (on the host:
// their work is a few values per region, and NonMaxSuppression's output size depends on the data).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string_view>
#include <vector>

#include "burn/onnx/ops_common.hpp"

namespace burn::onnx::ops {

namespace detail {

/// GridSample's sampler on one batch of points: X flattened to [N, C, H*W], point coordinates as
/// [N, P] float primitives in pixels.
template <class B>
struct GridSampler {
    using F = typename B::FloatTensor;
    using I = typename B::IntTensor;
    F x;  // [N, C, H * W]
    std::size_t n, c, h, w, p;
    std::string_view padding;
    double x_min, x_max, y_min, y_max;  // the reflection borders

    /// ONNX's reflection of x into [lo, hi], by the nearer border until inside.
    static F reflect(const F& x, double lo, double hi) {
        const double range = hi - lo;
        if (range <= 0) return B::float_mul_scalar(x, 0.0);
        auto fold = [&](const F& dx, double from, double sign) {
            // n = trunc(dx / range), r = dx - n * range; even n: from + sign * r, odd: other - ...
            auto k = B::float_floor(B::float_div_scalar(dx, range));
            auto r = B::float_sub(dx, B::float_mul_scalar(k, range));
            auto half = B::float_floor(B::float_div_scalar(k, 2.0));
            auto odd = B::float_not_equal(B::float_mul_scalar(half, 2.0), k);
            auto even_v = B::float_add_scalar(B::float_mul_scalar(r, sign), from);
            auto odd_v = B::float_add_scalar(B::float_mul_scalar(r, -sign), from == lo ? hi : lo);
            return B::float_mask_where(even_v, odd, odd_v);
        };
        auto below = B::float_lower_elem(x, lo);
        auto above = B::float_greater_elem(x, hi);
        auto from_below = fold(B::float_add_scalar(B::float_neg(x), lo), lo, 1.0);
        auto from_above = fold(B::float_sub_scalar(x, hi), hi, -1.0);
        return B::float_mask_where(B::float_mask_where(x, below, from_below), above, from_above);
    }
    /// Pixel values at integer coordinates (as floats) r, c of shape [N, P], with the padding
    /// mode's rule for those outside: [N, C, P].
    F pixels(const F& r, const F& col) const {
        const auto hd = static_cast<double>(h), wd = static_cast<double>(w);
        F rr = r, cc = col;
        std::optional<typename B::BoolTensor> inside;
        if (padding == "zeros") {
            auto in = B::bool_and(
                B::bool_and(B::float_greater_equal_elem(cc, 0.0), B::float_lower_elem(cc, wd)),
                B::bool_and(B::float_greater_equal_elem(rr, 0.0), B::float_lower_elem(rr, hd)));
            inside = in;
        } else if (padding == "reflection") {
            rr = B::int_into_float(B::float_into_int(reflect(rr, y_min, y_max)));
            cc = B::int_into_float(B::float_into_int(reflect(cc, x_min, x_max)));
        }
        rr = B::float_clamp(rr, 0.0, hd - 1);
        cc = B::float_clamp(cc, 0.0, wd - 1);
        auto flat = B::float_into_int(B::float_add(B::float_mul_scalar(rr, wd), cc));  // [N, P]
        auto idx = B::int_expand(B::int_reshape(flat, Shape{n, 1, p}), Shape{n, c, p});
        auto v = B::float_gather(2, x, idx);
        if (!inside) return v;
        auto m = B::bool_into_float(*inside);
        return B::float_mul(v, B::float_reshape(m, Shape{n, 1, p}));
    }
    /// [N, P] weights broadcast over channels.
    F weighted(const F& v, const F& wgt) const {
        return B::float_mul(v, B::float_reshape(wgt, Shape{n, 1, p}));
    }
};

/// Keys' cubic convolution coefficients (a = -0.75) for taps at distances 1 + t, t, 1 - t, 2 - t.
template <class B>
std::vector<typename B::FloatTensor> cubic_coeffs(const typename B::FloatTensor& t) {
    constexpr double a = -0.75;
    auto far = [&](const typename B::FloatTensor& d) {  // ((a d - 5a) d + 8a) d - 4a, 1 <= d <= 2
        auto y = B::float_add_scalar(B::float_mul_scalar(d, a), -5 * a);
        y = B::float_add_scalar(B::float_mul(y, d), 8 * a);
        return B::float_add_scalar(B::float_mul(y, d), -4 * a);
    };
    auto near = [&](const typename B::FloatTensor& d) {  // ((a + 2) d - (a + 3)) d d + 1
        auto y = B::float_add_scalar(B::float_mul_scalar(d, a + 2), -(a + 3));
        return B::float_add_scalar(B::float_mul(B::float_mul(y, d), d), 1.0);
    };
    auto one_minus = B::float_add_scalar(B::float_neg(t), 1.0);
    return {far(B::float_add_scalar(t, 1.0)), near(t), near(one_minus),
            far(B::float_add_scalar(one_minus, 1.0))};
}

}  // namespace detail

/// GridSample (opset 16): samples X [N, C, H, W] at the normalised (x, y) locations of grid
/// [N, H_out, W_out, 2], modes bilinear / nearest / bicubic, padding zeros / border / reflection,
/// as ONNX's reference: coordinates outside the image are clamped or reflected first, then every
/// tap follows the padding rule.
template <class B>
Value<B> grid_sample(const Value<B>& x, const Value<B>& grid, std::string_view mode,
                     std::string_view padding, bool align_corners) {
    using F = typename B::FloatTensor;
    const Shape xs = x.shape(), gs = grid.shape();
    if (xs.rank() != 4)
        detail::fail("GridSample", "X must be 4-D [N, C, H, W], got ", x.describe());
    if (gs.rank() != 4 || gs[0] != xs[0] || gs[3] != 2)
        detail::fail("GridSample", "grid must be [N, H_out, W_out, 2] with N = ", xs[0], ", got ",
                     grid.describe());
    if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
        detail::fail("GridSample", "mode must be bilinear, nearest or bicubic, got '", mode, "'");
    if (padding != "zeros" && padding != "border" && padding != "reflection")
        detail::fail("GridSample", "padding_mode must be zeros, border or reflection, got '",
                     padding, "'");
    const F xf = detail::require_float(x, "GridSample", "X");
    const std::size_t n = xs[0], c = xs[1], h = xs[2], w = xs[3], ho = gs[1], wo = gs[2];
    const std::size_t p = ho * wo;
    if (n * c * p == 0 || h * w == 0) {
        if (h * w == 0 && n * c * p != 0)
            detail::fail("GridSample", "X ", x.describe(), " has an empty image");
        return Value<B>(Float{}, B::float_zeros(Shape{n, c, ho, wo}, x.device()), x.type());
    }
    if (!grid.is_float()) detail::fail("GridSample", "grid must be a float tensor");
    F g = B::float_reshape(grid.to_float(), Shape{n, p, 2});
    if (B::float_dtype(g) != B::float_dtype(xf)) g = B::float_cast(g, B::float_dtype(xf));
    auto coord = [&](std::size_t i) {
        std::vector<SliceRange> r{{0, n, 1}, {0, p, 1}, {i, 1, 1}};
        return B::float_reshape(B::float_slice(g, r), Shape{n, p});
    };
    auto denorm = [&](const F& v, std::size_t len) {
        const auto l = static_cast<double>(len);
        if (align_corners) return B::float_mul_scalar(B::float_add_scalar(v, 1.0), (l - 1) / 2);
        return B::float_mul_scalar(B::float_add_scalar(B::float_mul_scalar(v, l), l - 1), 0.5);
    };
    F gx = denorm(coord(0), w), gy = denorm(coord(1), h);
    if (mode == "nearest") {
        gx = B::float_round(gx);
        gy = B::float_round(gy);
    }
    detail::GridSampler<B> s{B::float_reshape(xf, Shape{n, c, h * w}),
                             n,
                             c,
                             h,
                             w,
                             p,
                             padding,
                             align_corners ? 0.0 : -0.5,
                             align_corners ? w - 1.0 : w - 0.5,
                             align_corners ? 0.0 : -0.5,
                             align_corners ? h - 1.0 : h - 0.5};
    if (padding != "zeros") {
        auto oob = B::bool_or(
            B::bool_or(B::float_lower_elem(gx, s.x_min), B::float_greater_elem(gx, s.x_max)),
            B::bool_or(B::float_lower_elem(gy, s.y_min), B::float_greater_elem(gy, s.y_max)));
        F nx = padding == "border" ? B::float_clamp(gx, 0.0, w - 1.0)
                                   : detail::GridSampler<B>::reflect(gx, s.x_min, s.x_max);
        F ny = padding == "border" ? B::float_clamp(gy, 0.0, h - 1.0)
                                   : detail::GridSampler<B>::reflect(gy, s.y_min, s.y_max);
        gx = B::float_mask_where(gx, oob, nx);
        gy = B::float_mask_where(gy, oob, ny);
    }
    F out;
    if (mode == "nearest") {
        out = s.pixels(B::int_into_float(B::float_into_int(gy)),
                       B::int_into_float(B::float_into_int(gx)));
    } else {
        const F x0 = B::float_floor(gx), y0 = B::float_floor(gy);
        const F tx = B::float_sub(gx, x0), ty = B::float_sub(gy, y0);
        if (mode == "bilinear") {
            const F x1 = B::float_add_scalar(x0, 1.0), y1 = B::float_add_scalar(y0, 1.0);
            const F ux = B::float_add_scalar(B::float_neg(tx), 1.0);
            const F uy = B::float_add_scalar(B::float_neg(ty), 1.0);
            out = s.weighted(s.pixels(y0, x0), B::float_mul(uy, ux));
            out = B::float_add(out, s.weighted(s.pixels(y0, x1), B::float_mul(uy, tx)));
            out = B::float_add(out, s.weighted(s.pixels(y1, x0), B::float_mul(ty, ux)));
            out = B::float_add(out, s.weighted(s.pixels(y1, x1), B::float_mul(ty, tx)));
        } else {
            const auto cx = detail::cubic_coeffs<B>(tx), cy = detail::cubic_coeffs<B>(ty);
            for (int i = 0; i < 4; ++i) {
                const F yi = B::float_add_scalar(y0, i - 1.0);
                for (int j = 0; j < 4; ++j) {
                    const F xj = B::float_add_scalar(x0, j - 1.0);
                    F term = s.weighted(s.pixels(yi, xj), B::float_mul(cy[i], cx[j]));
                    out = i == 0 && j == 0 ? term : B::float_add(out, term);
                }
            }
        }
    }
    return Value<B>(Float{}, B::float_reshape(out, Shape{n, c, ho, wo}), x.type());
}

/// RoiAlign (opsets 10 and 16): for each region of interest [x1, y1, x2, y2] (scaled by
/// spatial_scale) of batch item batch_indices[r], output_height x output_width bins, each the
/// average (or maximum) of sampling_ratio^2 bilinear samples (adaptive when 0), as ONNX Runtime.
/// `half_pixel` shifts the region by -0.5 pixel (opset 16's default); without it, regions are at
/// least one pixel.
struct RoiAlignAttrs {
    std::string mode = "avg";
    std::int64_t output_height = 1, output_width = 1, sampling_ratio = 0;
    double spatial_scale = 1.0;
    bool half_pixel = true;
};

template <class B>
Value<B> roi_align(const Value<B>& x, const Value<B>& rois, const Value<B>& batch_indices,
                   const RoiAlignAttrs& a) {
    const Shape xs = x.shape(), rs = rois.shape();
    if (xs.rank() != 4) detail::fail("RoiAlign", "X must be 4-D [N, C, H, W], got ", x.describe());
    if (rs.rank() != 2 || rs[1] != 4)
        detail::fail("RoiAlign", "rois must be [num_rois, 4], got ", rois.describe());
    if (batch_indices.shape() != Shape{rs[0]})
        detail::fail("RoiAlign", "batch_indices must be [", rs[0], "], got ",
                     batch_indices.describe());
    if (a.mode != "avg" && a.mode != "max")
        detail::fail("RoiAlign", "mode must be avg or max, got '", a.mode, "'");
    if (a.output_height <= 0 || a.output_width <= 0 || a.sampling_ratio < 0)
        detail::fail("RoiAlign", "output sizes must be positive and sampling_ratio >= 0");
    detail::require_float(x, "RoiAlign", "X");
    const std::size_t nb = xs[0], ch = xs[1], hh = xs[2], ww = xs[3], nr = rs[0];
    const auto oh = static_cast<std::size_t>(a.output_height);
    const auto ow = static_cast<std::size_t>(a.output_width);
    const std::vector<double> xv = x.to_doubles(), rv = rois.to_doubles();
    const std::vector<std::int64_t> bi = batch_indices.to_ints();
    std::vector<double> out(nr * ch * oh * ow, 0.0);
    const double off = a.half_pixel ? 0.5 : 0.0;
    const auto h = static_cast<double>(hh), w = static_cast<double>(ww);
    for (std::size_t r = 0; r < nr; ++r) {
        if (bi[r] < 0 || static_cast<std::size_t>(bi[r]) >= nb)
            detail::fail("RoiAlign", "batch index ", bi[r], " of region ", r,
                         " is out of range for ", nb, " images");
        const double x1 = rv[4 * r] * a.spatial_scale - off;
        const double y1 = rv[4 * r + 1] * a.spatial_scale - off;
        double rw = rv[4 * r + 2] * a.spatial_scale - off - x1;
        double rh = rv[4 * r + 3] * a.spatial_scale - off - y1;
        if (!a.half_pixel) {
            rw = std::max(rw, 1.0);
            rh = std::max(rh, 1.0);
        }
        const double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
        const auto gh = static_cast<std::size_t>(
            a.sampling_ratio > 0 ? a.sampling_ratio : std::ceil(rh / static_cast<double>(oh)));
        const auto gw = static_cast<std::size_t>(
            a.sampling_ratio > 0 ? a.sampling_ratio : std::ceil(rw / static_cast<double>(ow)));
        const double count = static_cast<double>(std::max<std::size_t>(gh * gw, 1));
        for (std::size_t c = 0; c < ch; ++c) {
            const double* img = xv.data() + (static_cast<std::size_t>(bi[r]) * ch + c) * hh * ww;
            for (std::size_t py = 0; py < oh; ++py)
                for (std::size_t px = 0; px < ow; ++px) {
                    double acc = 0.0;
                    double best = -std::numeric_limits<double>::max();
                    for (std::size_t iy = 0; iy < gh; ++iy)
                        for (std::size_t ix = 0; ix < gw; ++ix) {
                            double y =
                                y1 + static_cast<double>(py) * bh +
                                (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
                            double xx =
                                x1 + static_cast<double>(px) * bw +
                                (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
                            double v = 0.0, vmax = 0.0;
                            if (!(y < -1.0 || y > h || xx < -1.0 || xx > w)) {
                                y = std::max(y, 0.0);
                                xx = std::max(xx, 0.0);
                                auto yl = static_cast<std::size_t>(y),
                                     xl = static_cast<std::size_t>(xx);
                                std::size_t yh = yl + 1, xh = xl + 1;
                                if (yl >= hh - 1) {
                                    yh = yl = hh - 1;
                                    y = static_cast<double>(yl);
                                }
                                if (xl >= ww - 1) {
                                    xh = xl = ww - 1;
                                    xx = static_cast<double>(xl);
                                }
                                const double ly = y - static_cast<double>(yl),
                                             lx = xx - static_cast<double>(xl);
                                const double uy = 1 - ly, ux = 1 - lx;
                                const double t[4] = {
                                    uy * ux * img[yl * ww + xl], uy * lx * img[yl * ww + xh],
                                    ly * ux * img[yh * ww + xl], ly * lx * img[yh * ww + xh]};
                                v = t[0] + t[1] + t[2] + t[3];
                                vmax = std::max(std::max(t[0], t[1]), std::max(t[2], t[3]));
                            }
                            acc += v;
                            best = std::max(best, vmax);
                        }
                    out[((r * ch + c) * oh + py) * ow + px] =
                        a.mode == "avg" ? acc / count : (gh * gw > 0 ? best : 0.0);
                }
        }
    }
    return detail::host_float_value<B>(out, Shape{nr, ch, oh, ow}, x.type(), x.device());
}

/// NonMaxSuppression: per batch item and class, boxes with a score above score_threshold, taken
/// greedily by decreasing score (ties by index), each kept unless its IoU with a box already kept
/// exceeds iou_threshold, at most max_output_boxes_per_class of them. Boxes are [y1, x1, y2, x2]
/// (any two opposite corners) or, with center_point_box, [x_center, y_center, width, height].
/// Returns int64 [num_selected, 3] rows (batch, class, box).
template <class B>
Value<B> non_max_suppression(const Value<B>& boxes, const Value<B>& scores,
                             std::int64_t max_per_class, double iou_threshold,
                             std::optional<double> score_threshold, bool center_point_box) {
    const Shape bs = boxes.shape(), ss = scores.shape();
    if (bs.rank() != 3 || bs[2] != 4)
        detail::fail("NonMaxSuppression", "boxes must be [batches, boxes, 4], got ",
                     boxes.describe());
    if (ss.rank() != 3 || ss[0] != bs[0] || ss[2] != bs[1])
        detail::fail("NonMaxSuppression", "scores must be [", bs[0], ", classes, ", bs[1],
                     "], got ", scores.describe());
    if (iou_threshold < 0 || iou_threshold > 1)
        detail::fail("NonMaxSuppression", "iou_threshold must be in [0, 1], got ", iou_threshold);
    const std::size_t nb = bs[0], nbox = bs[1], ncls = ss[1];
    const std::vector<double> bv = boxes.to_doubles(), sv = scores.to_doubles();
    struct Box {
        double y1, x1, y2, x2;
    };
    auto box = [&](std::size_t b, std::size_t i) {
        const double* d = bv.data() + (b * nbox + i) * 4;
        if (center_point_box)
            return Box{d[1] - d[3] / 2, d[0] - d[2] / 2, d[1] + d[3] / 2, d[0] + d[2] / 2};
        return Box{std::min(d[0], d[2]), std::min(d[1], d[3]), std::max(d[0], d[2]),
                   std::max(d[1], d[3])};
    };
    auto suppresses = [&](const Box& p, const Box& q) {
        const double ap = (p.y2 - p.y1) * (p.x2 - p.x1), aq = (q.y2 - q.y1) * (q.x2 - q.x1);
        if (ap <= 0 || aq <= 0) return false;
        const double ih = std::max(0.0, std::min(p.y2, q.y2) - std::max(p.y1, q.y1));
        const double iw = std::max(0.0, std::min(p.x2, q.x2) - std::max(p.x1, q.x1));
        const double inter = ih * iw;
        return inter / (ap + aq - inter) > iou_threshold;
    };
    std::vector<std::int64_t> rows;
    std::size_t count = 0;
    const auto limit = static_cast<std::size_t>(std::max<std::int64_t>(max_per_class, 0));
    for (std::size_t b = 0; b < nb && limit > 0; ++b)
        for (std::size_t k = 0; k < ncls; ++k) {
            const double* s = sv.data() + (b * ncls + k) * nbox;
            std::vector<std::size_t> order;
            for (std::size_t i = 0; i < nbox; ++i)
                if (!score_threshold || s[i] > *score_threshold) order.push_back(i);
            std::stable_sort(order.begin(), order.end(),
                             [&](std::size_t i, std::size_t j) { return s[i] > s[j]; });
            std::vector<Box> kept;
            for (std::size_t i : order) {
                if (kept.size() == limit) break;
                const Box q = box(b, i);
                if (std::any_of(kept.begin(), kept.end(),
                                [&](const Box& p) { return suppresses(p, q); }))
                    continue;
                kept.push_back(q);
                rows.insert(rows.end(), {static_cast<std::int64_t>(b), static_cast<std::int64_t>(k),
                                         static_cast<std::int64_t>(i)});
                ++count;
            }
        }
    return Value<B>::from_data(TensorData(rows, Shape{count, 3}), ElemType::Int64, boxes.device());
}

/// MaxRoiPool: for each region [batch, x1, y1, x2, y2] (scaled by spatial_scale and rounded),
/// pooled_h x pooled_w bins, each the maximum of its pixels (0 for an empty bin), as Caffe's and
/// ONNX Runtime's ROI pooling.
template <class B>
Value<B> max_roi_pool(const Value<B>& x, const Value<B>& rois, std::int64_t pooled_h,
                      std::int64_t pooled_w, double spatial_scale) {
    const Shape xs = x.shape(), rs = rois.shape();
    if (xs.rank() != 4)
        detail::fail("MaxRoiPool", "X must be 4-D [N, C, H, W], got ", x.describe());
    if (rs.rank() != 2 || rs[1] != 5)
        detail::fail("MaxRoiPool", "rois must be [num_rois, 5], got ", rois.describe());
    if (pooled_h <= 0 || pooled_w <= 0)
        detail::fail("MaxRoiPool", "pooled_shape must be positive, got ", pooled_h, "x", pooled_w);
    detail::require_float(x, "MaxRoiPool", "X");
    const std::size_t nb = xs[0], ch = xs[1], hh = xs[2], ww = xs[3], nr = rs[0];
    const auto ph = static_cast<std::size_t>(pooled_h), pw = static_cast<std::size_t>(pooled_w);
    const std::vector<double> xv = x.to_doubles(), rv = rois.to_doubles();
    std::vector<double> out(nr * ch * ph * pw, 0.0);
    auto clip = [](double v, std::size_t hi) {
        return static_cast<std::size_t>(std::clamp(v, 0.0, static_cast<double>(hi)));
    };
    for (std::size_t r = 0; r < nr; ++r) {
        const double* q = rv.data() + r * 5;
        if (!(q[0] >= 0 && q[0] < static_cast<double>(nb)))
            detail::fail("MaxRoiPool", "batch index ", q[0], " of region ", r,
                         " is out of range for ", nb, " images");
        const auto b = static_cast<std::size_t>(q[0]);
        const double x1 = std::round(q[1] * spatial_scale), y1 = std::round(q[2] * spatial_scale);
        const double x2 = std::round(q[3] * spatial_scale), y2 = std::round(q[4] * spatial_scale);
        const double bh = std::max(y2 - y1 + 1, 1.0) / static_cast<double>(ph);
        const double bw = std::max(x2 - x1 + 1, 1.0) / static_cast<double>(pw);
        for (std::size_t i = 0; i < ph; ++i)
            for (std::size_t j = 0; j < pw; ++j) {
                const std::size_t hs = clip(std::floor(static_cast<double>(i) * bh) + y1, hh);
                const std::size_t he = clip(std::ceil(static_cast<double>(i + 1) * bh) + y1, hh);
                const std::size_t ws = clip(std::floor(static_cast<double>(j) * bw) + x1, ww);
                const std::size_t we = clip(std::ceil(static_cast<double>(j + 1) * bw) + x1, ww);
                for (std::size_t c = 0; c < ch; ++c) {
                    const double* img = xv.data() + (b * ch + c) * hh * ww;
                    double best = -std::numeric_limits<double>::infinity();
                    for (std::size_t y = hs; y < he; ++y)
                        for (std::size_t xx = ws; xx < we; ++xx)
                            best = std::max(best, img[y * ww + xx]);
                    out[((r * ch + c) * ph + i) * pw + j] = he > hs && we > ws ? best : 0.0;
                }
            }
    }
    return detail::host_float_value<B>(out, Shape{nr, ch, ph, pw}, x.type(), x.device());
}

}  // namespace burn::onnx::ops

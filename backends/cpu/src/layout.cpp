// SPDX-License-Identifier: MIT OR Apache-2.0
// Layout ops: views that share the buffer and only rewrite shape, strides and offset. Only reshape
// may copy, when the input's strides cannot describe the new shape (PyTorch's "view if possible").
#include <algorithm>
#include <optional>

#include "internal.hpp"

namespace burn::cpu {
namespace {

/// Strides that let `t`'s buffer be viewed as `shape` without moving data, if any (PyTorch's
/// computeStride: the old dims are split into chunks that are contiguous among themselves, and each
/// chunk must be exactly covered by consecutive new dims).
std::optional<Strides> view_strides(const CpuTensor& t, const Shape& shape) {
    if (t.is_contiguous() || t.num_elements() == 0 || t.rank() == 0) return contiguous_strides(shape);
    Strides out{};
    const Shape& old = t.shape;
    std::int64_t view_d = static_cast<std::int64_t>(shape.rank()) - 1;
    std::int64_t chunk_base_stride = t.strides[old.rank() - 1];
    std::int64_t tensor_numel = 1, view_numel = 1;
    for (std::int64_t td = static_cast<std::int64_t>(old.rank()) - 1; td >= 0; --td) {
        tensor_numel *= static_cast<std::int64_t>(old[static_cast<std::size_t>(td)]);
        const bool chunk_end =
            td == 0 || (old[static_cast<std::size_t>(td - 1)] != 1 &&
                        t.strides[static_cast<std::size_t>(td - 1)] != tensor_numel * chunk_base_stride);
        if (!chunk_end) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || shape[static_cast<std::size_t>(view_d)] == 1)) {
            out[static_cast<std::size_t>(view_d)] = view_numel * chunk_base_stride;
            view_numel *= static_cast<std::int64_t>(shape[static_cast<std::size_t>(view_d)]);
            --view_d;
        }
        if (view_numel != tensor_numel) return std::nullopt;
        if (td > 0) {
            chunk_base_stride = t.strides[static_cast<std::size_t>(td - 1)];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    if (view_d != -1) return std::nullopt;
    return out;
}

void check_axis(std::size_t axis, std::size_t rank, const char* op) {
    BURN_CHECK(axis < rank, op, ": dim ", axis, " is out of range for a tensor of rank ", rank);
}

}  // namespace

CpuTensor reshape(CpuTensor t, const Shape& shape) {
    BURN_CHECK(shape.num_elements() == t.num_elements(), "reshape: cannot reshape a tensor of shape ",
               t.shape, " (", t.num_elements(), " elements) into shape ", shape, " (",
               shape.num_elements(), " elements)");
    if (auto s = view_strides(t, shape)) {
        t.shape = shape;
        t.strides = *s;
        return t;
    }
    CpuTensor c = contiguous(std::move(t));
    c.shape = shape;
    c.strides = contiguous_strides(shape);
    return c;
}

CpuTensor permute(CpuTensor t, std::span<const std::size_t> axes) {
    const std::size_t rank = t.rank();
    BURN_CHECK(axes.size() == rank, "permute: expected ", rank, " axes for a tensor of shape ", t.shape,
               ", got ", axes.size());
    std::array<bool, Shape::max_rank> seen{};
    Shape shape = t.shape;
    Strides strides{};
    for (std::size_t i = 0; i < rank; ++i) {
        const std::size_t a = axes[i];
        check_axis(a, rank, "permute");
        BURN_CHECK(!seen[a], "permute: axis ", a, " appears more than once");
        seen[a] = true;
        shape[i] = t.shape[a];
        strides[i] = t.strides[a];
    }
    t.shape = shape;
    t.strides = strides;
    return t;
}

CpuTensor swap_dims(CpuTensor t, std::size_t a, std::size_t b) {
    check_axis(a, t.rank(), "swap_dims");
    check_axis(b, t.rank(), "swap_dims");
    std::swap(t.shape[a], t.shape[b]);
    std::swap(t.strides[a], t.strides[b]);
    return t;
}

CpuTensor flip(CpuTensor t, std::span<const std::size_t> axes) {
    std::array<bool, Shape::max_rank> seen{};
    for (const std::size_t a : axes) {
        check_axis(a, t.rank(), "flip");
        BURN_CHECK(!seen[a], "flip: axis ", a, " appears more than once");
        seen[a] = true;
        if (t.shape[a] <= 1) continue;  // nothing to reverse
        t.offset += static_cast<std::int64_t>(t.shape[a] - 1) * t.strides[a];
        t.strides[a] = -t.strides[a];
    }
    return t;
}

CpuTensor expand(CpuTensor t, const Shape& shape) {
    BURN_CHECK(shape.rank() >= t.rank(), "expand: cannot expand shape ", t.shape, " to ", shape,
               " (fewer dims)");
    const std::size_t lead = shape.rank() - t.rank();
    Strides strides{};
    for (std::size_t i = 0; i < shape.rank(); ++i) {
        if (i < lead) continue;  // new leading dims broadcast
        const std::size_t d = t.shape[i - lead];
        if (d == shape[i]) strides[i] = t.strides[i - lead];
        else BURN_CHECK(d == 1, "expand: cannot expand shape ", t.shape, " to ", shape, " (dim ", i,
                        ": ", d, " vs ", shape[i], ")");
    }
    t.shape = shape;
    t.strides = strides;
    return t;
}

CpuTensor slice(CpuTensor t, std::span<const SliceRange> ranges) {
    BURN_CHECK(ranges.size() <= t.rank(), "slice: ", ranges.size(), " ranges for a tensor of rank ",
               t.rank());
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const SliceRange& r = ranges[i];
        BURN_CHECK(r.step >= 1, "slice: step must be positive, got ", r.step, " for dim ", i);
        if (r.len > 0) {
            BURN_CHECK(r.start + (r.len - 1) * r.step < t.shape[i], "slice: range start ", r.start,
                       ", len ", r.len, ", step ", r.step, " is out of bounds for dim ", i,
                       " of shape ", t.shape);
            t.offset += static_cast<std::int64_t>(r.start) * t.strides[i];
        }
        t.shape[i] = r.len;
        t.strides[i] *= static_cast<std::int64_t>(r.step);
    }
    return t;
}

}  // namespace burn::cpu

// SPDX-License-Identifier: MIT OR Apache-2.0
// The view algebra of the backend kit (burn/backend/layout.hpp): shape, strides and offset only.
#include "burn/backend/layout.hpp"

#include <cassert>
#include <utility>

namespace burn::backend::view {

std::optional<Strides> reshape_strides(const StridedLayout& t, const Shape& shape) {
    assert(shape.num_elements() == t.num_elements());
    if (t.is_contiguous() || t.num_elements() == 0 || t.rank() == 0)
        return contiguous_strides(shape);
    // PyTorch's computeStride: the old dims split into chunks that are contiguous among
    // themselves, and each chunk must be exactly covered by consecutive new dims.
    Strides out{};
    const Shape& old = t.shape;
    auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
    std::int64_t view_d = static_cast<std::int64_t>(shape.rank()) - 1;
    std::int64_t chunk_base_stride = t.strides[old.rank() - 1];
    std::int64_t tensor_numel = 1, view_numel = 1;
    for (std::int64_t td = static_cast<std::int64_t>(old.rank()) - 1; td >= 0; --td) {
        tensor_numel *= static_cast<std::int64_t>(old[at(td)]);
        const bool chunk_end =
            td == 0 ||
            (old[at(td - 1)] != 1 && t.strides[at(td - 1)] != tensor_numel * chunk_base_stride);
        if (!chunk_end) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || shape[at(view_d)] == 1)) {
            out[at(view_d)] = view_numel * chunk_base_stride;
            view_numel *= static_cast<std::int64_t>(shape[at(view_d)]);
            --view_d;
        }
        if (view_numel != tensor_numel) return std::nullopt;
        if (td > 0) {
            chunk_base_stride = t.strides[at(td - 1)];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    if (view_d != -1) return std::nullopt;
    return out;
}

void permute(StridedLayout& t, std::span<const std::size_t> axes) {
    const std::size_t rank = t.rank();
    assert(axes.size() == rank);
    Shape shape = t.shape;
    Strides strides{};
    for (std::size_t i = 0; i < rank; ++i) {
        assert(axes[i] < rank);
        shape[i] = t.shape[axes[i]];
        strides[i] = t.strides[axes[i]];
    }
    t.shape = shape;
    t.strides = strides;
}

void swap_dims(StridedLayout& t, std::size_t a, std::size_t b) {
    assert(a < t.rank() && b < t.rank());
    std::swap(t.shape[a], t.shape[b]);
    std::swap(t.strides[a], t.strides[b]);
}

void flip(StridedLayout& t, std::span<const std::size_t> axes) {
    for (const std::size_t a : axes) {
        assert(a < t.rank());
        if (t.shape[a] <= 1) continue;  // nothing to reverse
        t.offset += static_cast<std::int64_t>(t.shape[a] - 1) * t.strides[a];
        t.strides[a] = -t.strides[a];
    }
}

void expand(StridedLayout& t, const Shape& shape) {
    assert(shape.rank() >= t.rank());
    const std::size_t lead = shape.rank() - t.rank();
    Strides strides{};
    for (std::size_t i = lead; i < shape.rank(); ++i) {  // new leading dims broadcast (stride 0)
        const std::size_t d = t.shape[i - lead];
        assert(d == shape[i] || d == 1);
        if (d == shape[i]) strides[i] = t.strides[i - lead];
    }
    t.shape = shape;
    t.strides = strides;
}

void slice(StridedLayout& t, std::span<const SliceRange> ranges) {
    assert(ranges.size() <= t.rank());
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const SliceRange& r = ranges[i];
        assert(r.step >= 1);
        if (r.len > 0) {
            assert(r.start + (r.len - 1) * r.step < t.shape[i]);
            t.offset += static_cast<std::int64_t>(r.start) * t.strides[i];
        }
        t.shape[i] = r.len;
        t.strides[i] *= static_cast<std::int64_t>(r.step);
    }
}

Strides broadcast_strides(const StridedLayout& t, const Shape& out) {
    Strides s{};
    const std::size_t off = out.rank() - t.rank();
    for (std::size_t i = 0; i < t.rank(); ++i)
        s[i + off] = t.shape[i] == 1 && out[i + off] != 1 ? 0 : t.strides[i];
    return s;
}

}  // namespace burn::backend::view

// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"

namespace burn {

/// The dimensions of a tensor, stored inline (at most `Shape::max_rank` dims).
class Shape {
public:
    static constexpr std::size_t max_rank = 8;

    Shape() = default;
    Shape(std::initializer_list<std::size_t> dims) { assign(dims.begin(), dims.end()); }
    template <std::size_t N>
    Shape(const std::array<std::size_t, N>& dims) {  // NOLINT(google-explicit-constructor)
        assign(dims.begin(), dims.end());
    }
    explicit Shape(std::span<const std::size_t> dims) { assign(dims.begin(), dims.end()); }
    explicit Shape(const std::vector<std::size_t>& dims) { assign(dims.begin(), dims.end()); }

    /// Number of dimensions.
    std::size_t rank() const { return rank_; }
    std::size_t size() const { return rank_; }
    bool empty() const { return rank_ == 0; }

    std::size_t& operator[](std::size_t i) { return dims_[i]; }
    std::size_t operator[](std::size_t i) const { return dims_[i]; }
    const std::size_t* begin() const { return dims_.data(); }
    const std::size_t* end() const { return dims_.data() + rank_; }
    std::size_t* begin() { return dims_.data(); }
    std::size_t* end() { return dims_.data() + rank_; }
    std::span<const std::size_t> dims() const { return {dims_.data(), rank_}; }
    std::vector<std::size_t> to_vector() const { return {begin(), end()}; }

    /// The most elements a shape may describe (2^60): the byte count of any dtype and every
    /// stride then fit in 64 bits.
    static constexpr std::size_t max_elements = std::size_t(1) << 60;

    /// Product of the dimensions (1 for rank 0). Throws burn::Error when the product of the
    /// non-zero dimensions exceeds max_elements (it would wrap around in 64 bits).
    std::size_t num_elements() const {
        std::size_t n = 1, nonzero = 1;
        for (std::size_t i = 0; i < rank_; ++i) {
            if (dims_[i] == 0) {
                n = 0;
                continue;
            }
            if (__builtin_mul_overflow(nonzero, dims_[i], &nonzero) || nonzero > max_elements)
                too_many_elements();
            n *= dims_[i];
        }
        return n;
    }

    void push_back(std::size_t d) {
        BURN_CHECK(rank_ < max_rank, "Shape: at most ", max_rank, " dimensions are supported");
        dims_[rank_++] = d;
    }
    void resize(std::size_t r, std::size_t fill = 1) {
        BURN_CHECK(r <= max_rank, "Shape: at most ", max_rank, " dimensions are supported, got ",
                   r);
        for (std::size_t i = rank_; i < r; ++i) dims_[i] = fill;
        rank_ = r;
    }

    friend bool operator==(const Shape& a, const Shape& b) {
        return a.rank_ == b.rank_ && std::equal(a.begin(), a.end(), b.begin());
    }

    std::string to_string() const {
        std::string s = "[";
        for (std::size_t i = 0; i < rank_; ++i) {
            if (i) s += ", ";
            s += std::to_string(dims_[i]);
        }
        return s + "]";
    }
    friend std::ostream& operator<<(std::ostream& os, const Shape& s) {
        return os << s.to_string();
    }

private:
    [[noreturn, gnu::cold]] void too_many_elements() const {
        ::burn::detail::fail("Shape ", to_string(),
                             ": more than 2^60 elements (the largest tensor ",
                             "burn-cpp can describe; the count would overflow)");
    }

    template <class It>
    void assign(It first, It last) {
        const auto n = static_cast<std::size_t>(last - first);
        BURN_CHECK(n <= max_rank, "Shape: at most ", max_rank, " dimensions are supported, got ",
                   n);
        std::copy(first, last, dims_.begin());
        rank_ = n;
    }
    std::array<std::size_t, max_rank> dims_{};
    std::size_t rank_ = 0;
};

/// Shape resulting from broadcasting `a` against `b` (NumPy rules). Throws naming `op`.
inline Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
    const std::size_t r = std::max(a.rank(), b.rank());
    Shape out;
    out.resize(r);
    for (std::size_t i = 0; i < r; ++i) {
        const std::size_t da = i < r - a.rank() ? 1 : a[i - (r - a.rank())];
        const std::size_t db = i < r - b.rank() ? 1 : b[i - (r - b.rank())];
        BURN_CHECK(da == db || da == 1 || db == 1, op, ": shapes ", a, " and ", b,
                   " cannot be broadcast together (dim ", i, ": ", da, " vs ", db, ")");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

/// One dimension's slice: `start..end` with a positive `step`; negative indices count from the end,
/// a missing `end` means "to the end" (Python's `start:end:step`).
struct Slice {
    std::int64_t start = 0;
    std::int64_t end = INT64_MAX;
    std::int64_t step = 1;
    Slice() = default;
    Slice(std::int64_t s, std::int64_t e, std::int64_t st = 1) : start(s), end(e), step(st) {}
    /// A single index, keeping the dimension with size 1.
    static Slice index(std::int64_t i) { return i == -1 ? Slice(-1, INT64_MAX) : Slice(i, i + 1); }
    /// The whole dimension.
    static Slice all() { return {}; }
};

/// A slice resolved against a dimension: 0 <= start, len elements, positive step.
struct SliceRange {
    std::size_t start = 0;
    std::size_t len = 0;
    std::size_t step = 1;
};

}  // namespace burn

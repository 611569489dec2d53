// SPDX-License-Identifier: MIT OR Apache-2.0
// Tensor<B, D, K>: the user-facing tensor, generic over the backend B, with rank D and kind K.
//
// A Tensor holds one backend primitive; copying it is cheap (the data is shared, like Burn's
// clone()). Ops validate their arguments here (ranks, shapes, dims, devices) and throw
// burn::Error naming the op, then call the backend. Ops that can write their result into their
// input's memory do so when the input is the buffer's only owner: `std::move(x).exp()` or
// `std::move(x) + y` reuse x's buffer, while `x.exp()` leaves x untouched.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burn/backend/capabilities.hpp"
#include "burn/tensor/autocast.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/kind.hpp"
#include "burn/tensor/quantization_scheme.hpp"
#include "burn/tensor/shape.hpp"

namespace burn {

template <BackendTypes B, std::size_t D, class K = Float>
class Tensor;
template <BackendTypes B>
struct QuantizationParameters;  // quantization.hpp

namespace detail {

/// Resolves a possibly negative dim against `rank`, throwing for out-of-range dims.
inline std::size_t norm_dim(std::int64_t dim, std::size_t rank, const char* op) {
    const auto r = static_cast<std::int64_t>(rank);
    BURN_CHECK(dim >= -r && dim < r, op, ": dim ", dim, " is out of range for a tensor of rank ",
               rank);
    return static_cast<std::size_t>(dim < 0 ? dim + r : dim);
}

/// Resolves `slices` (Python rules: negatives from the end, clamped) against `shape`.
inline std::vector<SliceRange> resolve_slices(const Shape& shape, std::span<const Slice> slices,
                                              const char* op) {
    BURN_CHECK(slices.size() <= shape.rank(), op, ": ", slices.size(),
               " ranges given for a tensor of rank ", shape.rank());
    std::vector<SliceRange> out;
    out.reserve(slices.size());
    for (std::size_t d = 0; d < slices.size(); ++d) {
        const auto n = static_cast<std::int64_t>(shape[d]);
        const Slice& s = slices[d];
        BURN_CHECK(s.step > 0, op, ": step must be positive, got ", s.step, " for dim ", d);
        auto clampi = [&](std::int64_t i) {
            if (i < 0) i += n;
            return std::clamp<std::int64_t>(i, 0, n);
        };
        const std::int64_t start = clampi(s.start);
        const std::int64_t end = s.end == INT64_MAX ? n : clampi(s.end);
        BURN_CHECK(s.start < n || n == 0 || s.start < 0 || s.start == s.end, op, ": range start ",
                   s.start, " is out of bounds for dim ", d, " of size ", n, " (shape ", shape,
                   ")");
        const std::int64_t len = end > start ? (end - start + s.step - 1) / s.step : 0;
        out.push_back({static_cast<std::size_t>(start), static_cast<std::size_t>(len),
                       static_cast<std::size_t>(s.step)});
    }
    return out;
}

inline std::string shapes_string(const Shape& a, const Shape& b) {
    return a.to_string() + " and " + b.to_string();
}

/// Throws unless `dtype` is a float dtype that backend B's float tensors can have.
template <class B>
void check_float_dtype(DType dtype, const char* op) {
    BURN_CHECK(has_float_dtype<B>(dtype), op, ": ", B::name(), " has no ", dtype_name(dtype),
               " float tensors",
               is_float(dtype) ? " (see burn::capabilities)"
                               : "; expected a float dtype (f32, f16, bf16, f64); into_int() and "
                                 "into_bool() convert to the other kinds");
}

}  // namespace detail

template <BackendTypes B, std::size_t D, class K>
class Tensor {
    static_assert(D >= 1, "Tensor: rank D must be at least 1");
    static_assert(D <= Shape::max_rank, "Tensor: rank D exceeds Shape::max_rank");
    static_assert(TensorKind<K>, "Tensor: K must be Float, Int or Bool");
    using Ops = KindOps<B, K>;
    template <BackendTypes, std::size_t, class>
    friend class Tensor;

public:
    using Backend = B;
    using Kind = K;
    using Primitive = typename Ops::Prim;
    using Device = typename B::Device;
    using Elem = typename Ops::Elem;
    static constexpr std::size_t rank = D;

    // ------------------------------------------------------------------ construction
    /// Wraps a backend primitive; its rank must be D.
    explicit Tensor(Primitive p) : prim_(std::move(p)) {
        BURN_CHECK(Ops::shape(prim_).rank() == D, "Tensor::from_primitive: primitive has rank ",
                   Ops::shape(prim_).rank(), ", expected ", D);
    }
    static Tensor from_primitive(Primitive p) { return Tensor(std::move(p)); }
    /// The backend primitive. Throws `burn::Error` on a moved-from tensor, naming the caller
    /// (`where`: filled in with the calling function's name).
    const Primitive& primitive(const char* where = __builtin_FUNCTION()) const& {
        return prim(where);
    }
    Primitive into_primitive(const char* where = __builtin_FUNCTION()) && { return take(where); }
    Primitive into_primitive(const char* where = __builtin_FUNCTION()) const& {
        return prim(where);
    }

    // Copies share the primitive (a reference count). A moved-from tensor is marked, and any
    // later use of it throws burn::Error ("use of a moved-from tensor in <op>") instead of
    // handing the backend an empty primitive; assigning a new value to it makes it usable again.
    Tensor(const Tensor&) = default;
    Tensor& operator=(const Tensor&) = default;
    Tensor(Tensor&& other) noexcept : prim_(std::move(other.prim_)), moved_(other.moved_) {
        other.moved_ = true;
    }
    Tensor& operator=(Tensor&& other) noexcept {
        if (this != &other) {
            prim_ = std::move(other.prim_);
            moved_ = other.moved_;
            other.moved_ = true;
        }
        return *this;
    }
    ~Tensor() = default;

    /// Uninitialised values.
    static Tensor empty(const Shape& shape, const Device& device = {}) {
        check_rank(shape, "Tensor::empty");
        return Tensor(Ops::empty(shape, device));
    }
    /// From host data of any dtype; values are converted to the kind's element type.
    static Tensor from_data(const TensorData& data, const Device& device = {}) {
        BURN_CHECK(data.rank() == D, "Tensor::from_data: data has shape ", data.shape, " (rank ",
                   data.rank(), "), expected rank ", D);
        return Tensor(Ops::from_data(data, device));
    }
    /// From nested lists: Tensor<B, 2>::from_floats({{1, 2}, {3, 4}}).
    static Tensor from_floats(NestedList<double, D> values,
                              const Device& device = {}) requires std::same_as<K, Float> {
        return from_data(TensorData::from_nested<double, D>(values), device);
    }
    static Tensor from_ints(NestedList<std::int64_t, D> values,
                            const Device& device = {}) requires std::same_as<K, Int> {
        return from_data(TensorData::from_nested<std::int64_t, D>(values), device);
    }
    static Tensor from_bools(NestedList<bool, D> values,
                             const Device& device = {}) requires std::same_as<K, Bool> {
        return from_data(TensorData::from_nested<bool, D>(values), device);
    }

    static Tensor zeros(const Shape& shape, const Device& device = {}) {
        check_rank(shape, "Tensor::zeros");
        if constexpr (std::same_as<K, Bool>) return full(shape, false, device);
        else return Tensor(Ops::zeros(shape, device));
    }
    static Tensor ones(const Shape& shape, const Device& device = {}) {
        check_rank(shape, "Tensor::ones");
        if constexpr (std::same_as<K, Bool>) return full(shape, true, device);
        else return Tensor(Ops::ones(shape, device));
    }
    template <class S>
    requires Scalar<S> || std::same_as<S, bool>
    static Tensor full(const Shape& shape, S value, const Device& device = {}) {
        check_rank(shape, "Tensor::full");
        if constexpr (std::same_as<K, Bool>)
            return Tensor(B::int_equal_elem(B::int_full(shape, value ? 1 : 0, device), 1));
        else return Tensor(Ops::full(shape, static_cast<typename Ops::ScalarT>(value), device));
    }
    /// Values drawn from `distribution` (B::seed makes them reproducible).
    static Tensor random(const Shape& shape, Distribution distribution = Distribution::Default(),
                         const Device& device = {}) requires NumericKind<K> {
        check_rank(shape, "Tensor::random");
        if (distribution.kind == Distribution::Kind::Uniform) {
            BURN_CHECK(distribution.a <= distribution.b, "Tensor::random: uniform low ",
                       distribution.a, " exceeds high ", distribution.b);
            if constexpr (std::same_as<K, Int>)
                BURN_CHECK(trunc_to_int64(distribution.a) < trunc_to_int64(distribution.b),
                           "Tensor::random: int Uniform(", distribution.a, ", ", distribution.b,
                           ") needs trunc(low) < trunc(high)");
        }
        if (distribution.kind == Distribution::Kind::Bernoulli)
            BURN_CHECK(distribution.a >= 0.0 && distribution.a <= 1.0,
                       "Tensor::random: Bernoulli probability ", distribution.a,
                       " is outside [0, 1]");
        if (distribution.kind == Distribution::Kind::Normal)
            BURN_CHECK(distribution.b >= 0.0, "Tensor::random: normal std ", distribution.b,
                       " is negative");
        return Tensor(Ops::random(shape, distribution, device));
    }
    /// The identity matrix of `size` x `size`.
    static Tensor eye(std::size_t size,
                      const Device& device = {}) requires(NumericKind<K>&& D == 2) {
        using IT = Tensor<B, 1, Int>;
        auto r = IT::arange(0, static_cast<std::int64_t>(size), device)
                     .template reshape<2>(Shape{size, 1});
        auto c = IT::arange(0, static_cast<std::int64_t>(size), device)
                     .template reshape<2>(Shape{1, size});
        auto mask = r.equal(c.expand(std::array<std::int64_t, 2>{static_cast<std::int64_t>(size),
                                                                 static_cast<std::int64_t>(size)}));
        return zeros({size, size}, device).mask_fill(mask, 1);
    }
    /// [start, end) with step 1 (Int, rank 1).
    static Tensor arange(std::int64_t start, std::int64_t end,
                         const Device& device = {}) requires(std::same_as<K, Int>&& D == 1) {
        return arange_step(start, end, 1, device);
    }
    static Tensor arange_step(std::int64_t start, std::int64_t end, std::int64_t step,
                              const Device& device = {}) requires(std::same_as<K, Int>&& D == 1) {
        BURN_CHECK(step != 0, "Tensor::arange_step: step must not be zero");
        return Tensor(B::int_arange(start, end, step, device));
    }
    /// A rank-1 float vector of `num_classes` zeros with a one at `index`.
    static Tensor one_hot(std::size_t index, std::size_t num_classes,
                          const Device& device = {}) requires(std::same_as<K, Float>&& D == 1) {
        BURN_CHECK(index < num_classes, "Tensor::one_hot: index ", index, " is out of range for ",
                   num_classes, " classes");
        auto t = zeros({num_classes}, device);
        return std::move(t).slice_assign(
            {Slice(static_cast<std::int64_t>(index), static_cast<std::int64_t>(index) + 1)},
            ones({1}, device));
    }
    /// Coordinates of every element of a grid of `shape`: result shape [...shape, D].
    template <std::size_t D2 = D + 1>
    static Tensor<B, D2, Int> cartesian_grid(
        const Shape& shape, const Device& device = {}) requires(std::same_as<K, Int>) {
        static_assert(D2 == D + 1, "cartesian_grid: the result rank is D + 1");
        check_rank(shape, "Tensor::cartesian_grid");
        std::vector<Tensor<B, D2, Int>> parts;
        for (std::size_t d = 0; d < D; ++d) {
            Shape view;
            view.resize(D2, 1);
            view[d] = shape[d];
            std::array<std::int64_t, D2> full_shape;
            for (std::size_t i = 0; i < D; ++i) full_shape[i] = static_cast<std::int64_t>(shape[i]);
            full_shape[D] = 1;
            parts.push_back(
                Tensor<B, 1, Int>::arange(0, static_cast<std::int64_t>(shape[d]), device)
                    .template reshape<D2>(view)
                    .expand(full_shape));
        }
        return Tensor<B, D2, Int>::cat(std::move(parts), static_cast<std::int64_t>(D));
    }
    /// Bool masks of shape [.., rows, cols]: true outside the lower triangle (offset `diagonal`),
    /// i.e. where `tril` would write zeros.
    static Tensor tril_mask(const Shape& shape, std::int64_t diagonal = 0,
                            const Device& device = {}) requires(std::same_as<K, Bool>) {
        return tri_mask(shape, diagonal, device, 0, "Tensor::tril_mask");
    }
    /// True outside the upper triangle.
    static Tensor triu_mask(const Shape& shape, std::int64_t diagonal = 0,
                            const Device& device = {}) requires(std::same_as<K, Bool>) {
        return tri_mask(shape, diagonal, device, 1, "Tensor::triu_mask");
    }
    /// True everywhere except on the diagonal (offset `diagonal`).
    static Tensor diag_mask(const Shape& shape, std::int64_t diagonal = 0,
                            const Device& device = {}) requires(std::same_as<K, Bool>) {
        return tri_mask(shape, diagonal, device, 2, "Tensor::diag_mask");
    }

    Tensor zeros_like() const { return zeros(shape(), device()); }
    Tensor ones_like() const { return ones(shape(), device()); }
    template <class S>
    requires Scalar<S> || std::same_as<S, bool> Tensor full_like(S value)
    const { return full(shape(), value, device()); }
    Tensor random_like(Distribution distribution = Distribution::Default()) const requires
        NumericKind<K> {
        return random(shape(), distribution, device());
    }

    // ------------------------------------------------------------------ metadata and data
    Shape shape(const char* where = __builtin_FUNCTION()) const { return Ops::shape(prim(where)); }
    std::array<std::size_t, D> dims() const {
        std::array<std::size_t, D> a{};
        const Shape s = shape();
        std::copy(s.begin(), s.end(), a.begin());
        return a;
    }
    std::size_t num_elements() const { return shape().num_elements(); }
    Device device(const char* where = __builtin_FUNCTION()) const {
        return Ops::device(prim(where));
    }
    /// The element type: a float tensor's own dtype (the backend's default F, or what `cast`
    /// chose; QInt8 when quantized), the backend's int type, or Bool.
    DType dtype() const {
        if constexpr (std::same_as<K, Float>) return B::float_dtype(prim());
        else return kind_dtype<B, K>();
    }
    Tensor to_device(const Device& device) const { return Tensor(Ops::to_device(prim(), device)); }

    TensorData to_data() const { return Ops::into_data(prim()); }
    TensorData into_data() && { return Ops::into_data(take()); }
    TensorData into_data() const& { return Ops::into_data(prim()); }
    /// The single value of a one-element tensor (PyTorch's item()).
    Elem into_scalar() const {
        BURN_CHECK(num_elements() == 1, "Tensor::into_scalar: tensor of shape ", shape(), " has ",
                   num_elements(), " elements, expected exactly 1");
        const TensorData d = to_data();
        if constexpr (std::same_as<K, Bool>) return d.value_as_double(0) != 0.0;
        else return d.template to_vec<Elem>()[0];
    }

    // ------------------------------------------------------------------ shape ops (views)
    /// New shape with the same number of elements; -1 infers one dim, 0 keeps the input dim.
    template <std::size_t D2>
    Tensor<B, D2, K> reshape(const std::int64_t (&dims)[D2]) const {
        return reshape<D2>(std::span<const std::int64_t>(dims, D2));
    }
    template <std::size_t D2>
    Tensor<B, D2, K> reshape(const std::array<std::int64_t, D2>& dims) const {
        return reshape<D2>(std::span<const std::int64_t>(dims.data(), D2));
    }
    template <std::size_t D2>
    Tensor<B, D2, K> reshape(const std::array<std::size_t, D2>& dims) const {
        return reshape<D2>(Shape(dims));
    }
    template <std::size_t D2>
    Tensor<B, D2, K> reshape(const Shape& s) const {
        BURN_CHECK(s.rank() == D2, "Tensor::reshape: shape ", s, " does not have rank ", D2);
        BURN_CHECK(s.num_elements() == num_elements(), "Tensor::reshape: cannot reshape ", shape(),
                   " (", num_elements(), " elements) into ", s, " (", s.num_elements(),
                   " elements)");
        return Tensor<B, D2, K>(Ops::reshape(prim(), s));
    }
    template <std::size_t D2>
    Tensor<B, D2, K> reshape(std::span<const std::int64_t> dims) const {
        const Shape in = shape();
        Shape out;
        out.resize(D2);
        std::optional<std::size_t> infer;
        std::size_t known = 1;
        for (std::size_t i = 0; i < D2; ++i) {
            const std::int64_t v = dims[i];
            if (v == -1) {
                BURN_CHECK(!infer, "Tensor::reshape: only one dim may be -1 in the new shape");
                infer = i;
                continue;
            }
            BURN_CHECK(v >= 0, "Tensor::reshape: invalid dim ", v, " in the new shape");
            if (v == 0) {
                BURN_CHECK(i < D, "Tensor::reshape: 0 at position ", i,
                           " keeps an input dim, but the input has rank ", D);
                out[i] = in[i];
            } else {
                out[i] = static_cast<std::size_t>(v);
            }
            known *= out[i];
        }
        if (infer) {
            BURN_CHECK(known != 0 && num_elements() % known == 0, "Tensor::reshape: cannot infer ",
                       "the -1 dim reshaping ", in, " (", num_elements(), " elements)");
            out[*infer] = num_elements() / known;
        }
        return reshape<D2>(out);
    }
    /// Merges dims start..=end into one.
    template <std::size_t D2>
    Tensor<B, D2, K> flatten(std::int64_t start_dim, std::int64_t end_dim) const {
        const std::size_t s = detail::norm_dim(start_dim, D, "Tensor::flatten");
        const std::size_t e = detail::norm_dim(end_dim, D, "Tensor::flatten");
        BURN_CHECK(s <= e, "Tensor::flatten: start dim ", s, " is after end dim ", e);
        BURN_CHECK(D2 == D - (e - s), "Tensor::flatten: flattening dims ", s, "..=", e,
                   " of a rank-", D, " tensor gives rank ", D - (e - s), ", not ", D2);
        const Shape in = shape();
        Shape out;
        for (std::size_t i = 0; i < s; ++i) out.push_back(in[i]);
        std::size_t m = 1;
        for (std::size_t i = s; i <= e; ++i) m *= in[i];
        out.push_back(m);
        for (std::size_t i = e + 1; i < D; ++i) out.push_back(in[i]);
        return Tensor<B, D2, K>(Ops::reshape(prim(), out));
    }
    /// Removes `dim`, which must have size 1.
    template <std::size_t D2 = D - 1>
    Tensor<B, D2, K> squeeze(std::int64_t dim) const {
        static_assert(D2 + 1 == D, "squeeze: the result rank is D - 1");
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::squeeze");
        const Shape in = shape();
        BURN_CHECK(in[d] == 1, "Tensor::squeeze: dim ", d, " of shape ", in, " has size ", in[d],
                   ", expected 1");
        Shape out;
        for (std::size_t i = 0; i < D; ++i)
            if (i != d) out.push_back(in[i]);
        return Tensor<B, D2, K>(Ops::reshape(prim(), out));
    }
    /// Removes the given size-1 dims (all size-1 dims when `dims` is empty).
    template <std::size_t D2>
    Tensor<B, D2, K> squeeze_dims(std::initializer_list<std::int64_t> dims = {}) const {
        const Shape in = shape();
        std::array<bool, Shape::max_rank> drop{};
        if (dims.size() == 0) {
            for (std::size_t i = 0; i < D; ++i) drop[i] = in[i] == 1;
        } else {
            for (auto dim : dims) {
                const std::size_t d = detail::norm_dim(dim, D, "Tensor::squeeze_dims");
                BURN_CHECK(in[d] == 1, "Tensor::squeeze_dims: dim ", d, " of shape ", in,
                           " has size ", in[d], ", expected 1");
                drop[d] = true;
            }
        }
        Shape out;
        for (std::size_t i = 0; i < D; ++i)
            if (!drop[i]) out.push_back(in[i]);
        BURN_CHECK(out.rank() == D2, "Tensor::squeeze_dims: result ", out, " does not have rank ",
                   D2);
        return Tensor<B, D2, K>(Ops::reshape(prim(), out));
    }
    /// Adds leading size-1 dims up to rank D2.
    template <std::size_t D2 = D + 1>
    Tensor<B, D2, K> unsqueeze() const {
        static_assert(D2 >= D, "unsqueeze: the result rank must be at least D");
        const Shape in = shape();
        Shape out;
        for (std::size_t i = 0; i < D2 - D; ++i) out.push_back(1);
        for (auto v : in) out.push_back(v);
        return Tensor<B, D2, K>(Ops::reshape(prim(), out));
    }
    /// Inserts a size-1 dim at `dim` (0..=D; negative counts from the end of the result).
    template <std::size_t D2 = D + 1>
    Tensor<B, D2, K> unsqueeze_dim(std::int64_t dim) const {
        static_assert(D2 == D + 1, "unsqueeze_dim: the result rank is D + 1");
        constexpr auto r = static_cast<std::int64_t>(D);
        BURN_CHECK(dim >= -(r + 1) && dim <= r, "Tensor::unsqueeze_dim: dim ", dim,
                   " is out of range for a tensor of rank ", D, " (a new dim goes at -", D + 1,
                   "..", D, ")");
        const std::size_t d = static_cast<std::size_t>(dim < 0 ? dim + r + 1 : dim);
        const Shape in = shape();
        Shape out;
        for (std::size_t i = 0; i < D; ++i) {
            if (i == d) out.push_back(1);
            out.push_back(in[i]);
        }
        if (d == D) out.push_back(1);
        return Tensor<B, D2, K>(Ops::reshape(prim(), out));
    }
    /// Reorders the dims: result dim i is input dim axes[i] (negative axes allowed).
    Tensor permute(const std::array<std::int64_t, D>& axes) const {
        std::array<std::size_t, D> a{};
        std::array<bool, D> seen{};
        for (std::size_t i = 0; i < D; ++i) {
            a[i] = detail::norm_dim(axes[i], D, "Tensor::permute");
            BURN_CHECK(!seen[a[i]], "Tensor::permute: axis ", a[i], " appears twice");
            seen[a[i]] = true;
        }
        return Tensor(Ops::permute(prim(), std::span<const std::size_t>(a)));
    }
    /// Moves dim `src` to position `dst`, keeping the others in order.
    Tensor movedim(std::int64_t src, std::int64_t dst) const {
        const std::size_t s = detail::norm_dim(src, D, "Tensor::movedim");
        const std::size_t t = detail::norm_dim(dst, D, "Tensor::movedim");
        std::vector<std::int64_t> order;
        for (std::size_t i = 0; i < D; ++i)
            if (i != s) order.push_back(static_cast<std::int64_t>(i));
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(t), static_cast<std::int64_t>(s));
        std::array<std::int64_t, D> axes{};
        std::copy(order.begin(), order.end(), axes.begin());
        return permute(axes);
    }
    Tensor swap_dims(std::int64_t dim1, std::int64_t dim2) const {
        const std::size_t a = detail::norm_dim(dim1, D, "Tensor::swap_dims");
        const std::size_t b = detail::norm_dim(dim2, D, "Tensor::swap_dims");
        return Tensor(Ops::swap_dims(prim(), a, b));
    }
    /// Swaps the last two dims (a no-op for rank 1).
    Tensor transpose() const {
        if constexpr (D == 1) return *this;
        else return swap_dims(-2, -1);
    }
    /// Reverses the order of elements along each of `axes`.
    Tensor flip(std::initializer_list<std::int64_t> axes) const {
        return flip(std::vector<std::int64_t>(axes));
    }
    Tensor flip(const std::vector<std::int64_t>& axes) const {
        std::vector<std::size_t> a;
        for (auto x : axes) {
            const std::size_t d = detail::norm_dim(x, D, "Tensor::flip");
            BURN_CHECK(std::find(a.begin(), a.end(), d) == a.end(), "Tensor::flip: axis ", d,
                       " appears twice");
            a.push_back(d);
        }
        return Tensor(Ops::flip(prim(), std::span<const std::size_t>(a)));
    }
    /// Broadcasts to `shape` (rank D2 >= D; size-1 dims grow; -1 keeps a dim) without copying.
    template <std::size_t D2>
    Tensor<B, D2, K> expand(const std::int64_t (&dims)[D2]) const {
        std::array<std::int64_t, D2> a;
        std::copy(dims, dims + D2, a.begin());
        return expand(a);
    }
    template <std::size_t D2>
    Tensor<B, D2, K> expand(const std::array<std::int64_t, D2>& dims) const {
        static_assert(D2 >= D, "expand: the result rank must be at least D");
        const Shape in = shape();
        Shape out;
        out.resize(D2);
        for (std::size_t i = 0; i < D2; ++i) {
            const std::int64_t v = dims[i];
            const bool has_in = i >= D2 - D;
            const std::size_t cur = has_in ? in[i - (D2 - D)] : 1;
            if (v == -1) {
                BURN_CHECK(has_in, "Tensor::expand: -1 is not allowed for the new leading dim ", i);
                out[i] = cur;
            } else {
                BURN_CHECK(v >= 0, "Tensor::expand: invalid size ", v);
                BURN_CHECK(cur == static_cast<std::size_t>(v) || cur == 1,
                           "Tensor::expand: cannot ", "expand shape ", in, " to size ", v,
                           " at dim ", i);
                out[i] = static_cast<std::size_t>(v);
            }
        }
        return Tensor<B, D2, K>(Ops::expand(prim(), out));
    }
    template <std::size_t D2>
    Tensor<B, D2, K> expand(const Shape& s) const {
        std::array<std::int64_t, D2> a;
        BURN_CHECK(s.rank() == D2, "Tensor::expand: shape ", s, " does not have rank ", D2);
        for (std::size_t i = 0; i < D2; ++i) a[i] = static_cast<std::int64_t>(s[i]);
        return expand(a);
    }
    /// Tiles the tensor `sizes[i]` times along each dim (torch.Tensor.repeat).
    Tensor repeat(const std::array<std::size_t, D>& sizes) const {
        Tensor out = *this;
        for (std::size_t d = 0; d < D; ++d)
            if (sizes[d] != 1) out = out.repeat_dim(static_cast<std::int64_t>(d), sizes[d]);
        return out;
    }
    Tensor repeat_dim(std::int64_t dim, std::size_t times) const {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::repeat_dim");
        return Tensor(Ops::repeat_dim(prim(), d, times));
    }
    /// Elements [start, start + length) along `dim`.
    Tensor narrow(std::int64_t dim, std::size_t start, std::size_t length) const {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::narrow");
        const Shape s = shape();
        BURN_CHECK(start + length <= s[d], "Tensor::narrow: start ", start, " + length ", length,
                   " exceeds dim ", d, " of size ", s[d], " (shape ", s, ")");
        std::vector<SliceRange> r(d + 1);
        for (std::size_t i = 0; i < d; ++i) r[i] = {0, s[i], 1};
        r[d] = {start, length, 1};
        return Tensor(Ops::slice(prim(), std::span<const SliceRange>(r)));
    }
    /// Splits into `chunks` pieces along `dim` (the last may be smaller; fewer pieces when the
    /// dim is too small), as torch.chunk.
    std::vector<Tensor> chunk(std::size_t chunks, std::int64_t dim) const {
        BURN_CHECK(chunks > 0, "Tensor::chunk: the number of chunks must be positive");
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::chunk");
        const std::size_t n = shape()[d];
        const std::size_t size = std::max<std::size_t>(1, (n + chunks - 1) / chunks);
        std::vector<Tensor> out;
        for (std::size_t start = 0; start < n; start += size)
            out.push_back(narrow(static_cast<std::int64_t>(d), start, std::min(size, n - start)));
        if (n == 0) out.assign(chunks, *this);  // torch.chunk: `chunks` empty pieces
        return out;
    }
    /// Splits along `dim` into pieces of `split_size` (the last may be smaller).
    std::vector<Tensor> split(std::size_t split_size, std::int64_t dim) const {
        BURN_CHECK(split_size > 0, "Tensor::split: split_size must be positive");
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::split");
        const std::size_t n = shape()[d];
        std::vector<Tensor> out;
        for (std::size_t start = 0; start < n; start += split_size)
            out.push_back(
                narrow(static_cast<std::int64_t>(d), start, std::min(split_size, n - start)));
        if (n == 0) out.push_back(*this);  // torch.split: one empty piece
        return out;
    }
    /// Python-style slicing of the leading dims: x.slice({{0, 2}, {1, -1}, Slice::index(3)}).
    Tensor slice(std::initializer_list<Slice> ranges) const {
        return slice(std::vector<Slice>(ranges));
    }
    Tensor slice(const std::vector<Slice>& ranges) const {
        auto r = detail::resolve_slices(shape(), ranges, "Tensor::slice");
        return Tensor(Ops::slice(prim(), std::span<const SliceRange>(r)));
    }
    /// Writes `values` (the sliced shape) into the region; returns the updated tensor.
    Tensor slice_assign(std::initializer_list<Slice> ranges, Tensor values) const& {
        return Tensor(*this).slice_assign(std::vector<Slice>(ranges), std::move(values));
    }
    Tensor slice_assign(std::initializer_list<Slice> ranges, Tensor values) && {
        return std::move(*this).slice_assign(std::vector<Slice>(ranges), std::move(values));
    }
    Tensor slice_assign(const std::vector<Slice>& ranges, Tensor values) const& {
        return Tensor(*this).slice_assign(ranges, std::move(values));
    }
    Tensor slice_assign(const std::vector<Slice>& ranges, Tensor values) && {
        const Shape s = shape();
        auto r = detail::resolve_slices(s, ranges, "Tensor::slice_assign");
        Shape region = s;
        for (std::size_t i = 0; i < r.size(); ++i) region[i] = r[i].len;
        BURN_CHECK(values.shape() == region, "Tensor::slice_assign: values have shape ",
                   values.shape(), " but the sliced region of ", s, " has shape ", region);
        check_device(values, "Tensor::slice_assign");
        return Tensor(Ops::slice_assign(take(), std::span<const SliceRange>(r), values.take()));
    }
    /// Concatenates along `dim`; all shapes must agree elsewhere.
    static Tensor cat(std::vector<Tensor> tensors, std::int64_t dim) {
        BURN_CHECK(!tensors.empty(), "Tensor::cat: no tensors given");
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::cat");
        const Shape s0 = tensors[0].shape();
        const Device dev = tensors[0].device();
        std::vector<Primitive> prims;
        prims.reserve(tensors.size());
        for (auto& t : tensors) {
            const Shape s = t.shape();
            for (std::size_t i = 0; i < D; ++i)
                BURN_CHECK(i == d || s[i] == s0[i], "Tensor::cat: shapes ",
                           detail::shapes_string(s0, s), " differ outside dim ", d);
            BURN_CHECK(t.device() == dev, "Tensor::cat: tensors are on different devices");
            prims.push_back(t.take());
        }
        if (prims.size() == 1) return Tensor(std::move(prims[0]));
        return Tensor(Ops::cat(std::move(prims), d));
    }
    /// Stacks tensors of equal shape along a new dim.
    template <std::size_t D2 = D + 1>
    static Tensor<B, D2, K> stack(std::vector<Tensor> tensors, std::int64_t dim) {
        static_assert(D2 == D + 1, "stack: the result rank is D + 1");
        BURN_CHECK(!tensors.empty(), "Tensor::stack: no tensors given");
        const std::size_t d = detail::norm_dim(dim, D + 1, "Tensor::stack");
        const Shape s0 = tensors[0].shape();
        std::vector<Tensor<B, D2, K>> parts;
        for (auto& t : tensors) {
            BURN_CHECK(t.shape() == s0, "Tensor::stack: shapes ",
                       detail::shapes_string(s0, t.shape()), " differ");
            parts.push_back(t.template unsqueeze_dim<D2>(static_cast<std::int64_t>(d)));
        }
        return Tensor<B, D2, K>::cat(std::move(parts), static_cast<std::int64_t>(d));
    }
    /// Pads the trailing dims like torch.nn.functional.pad: pads = (last_left, last_right,
    /// second_last_left, second_last_right, ...); Burn's (left, right, top, bottom) is the same.
    template <class S>
    requires Scalar<S> || std::same_as<S, bool> Tensor pad(std::initializer_list<std::size_t> pads,
                                                           S value)
    const { return pad(std::vector<std::size_t>(pads), value); }
    template <class S>
    requires Scalar<S> || std::same_as<S, bool> Tensor pad(const std::vector<std::size_t>& pads,
                                                           S value)
    const {
        BURN_CHECK(pads.size() % 2 == 0 && pads.size() / 2 <= D, "Tensor::pad: expected an even ",
                   "number of paddings, at most ", 2 * D, ", got ", pads.size());
        const Shape s = shape();
        Shape out = s;
        std::vector<Slice> region(D);
        for (std::size_t p = 0; p < pads.size() / 2; ++p) {
            const std::size_t d = D - 1 - p;
            out[d] = s[d] + pads[2 * p] + pads[2 * p + 1];
            region[d] = Slice(static_cast<std::int64_t>(pads[2 * p]),
                              static_cast<std::int64_t>(pads[2 * p] + s[d]));
        }
        return full(out, value, device()).slice_assign(region, *this);
    }

    // ------------------------------------------------------------------ comparisons (all kinds)
    Tensor<B, D, Bool> equal(const Tensor& other) const {
        const auto [a, b] = broadcast_pair(other, "Tensor::equal");
        return Tensor<B, D, Bool>(Ops::equal(a, b));
    }
    Tensor<B, D, Bool> not_equal(const Tensor& other) const {
        const auto [a, b] = broadcast_pair(other, "Tensor::not_equal");
        return Tensor<B, D, Bool>(Ops::not_equal(a, b));
    }
    /// True when every element is non-zero / true (rank-1 tensor of one element).
    Tensor<B, 1, Bool> all() const { return Tensor<B, 1, Bool>(B::bool_all(Ops::to_bool(prim()))); }
    Tensor<B, 1, Bool> any() const { return Tensor<B, 1, Bool>(B::bool_any(Ops::to_bool(prim()))); }
    /// Along `dim`, kept with size 1.
    Tensor<B, D, Bool> all_dim(std::int64_t dim) const {
        return Tensor<B, D, Bool>(
            B::bool_all_dim(Ops::to_bool(prim()), detail::norm_dim(dim, D, "Tensor::all_dim")));
    }
    Tensor<B, D, Bool> any_dim(std::int64_t dim) const {
        return Tensor<B, D, Bool>(
            B::bool_any_dim(Ops::to_bool(prim()), detail::norm_dim(dim, D, "Tensor::any_dim")));
    }

    // ------------------------------------------------------------------ kind conversions
    /// To Float (Burn's `.float()`).
    Tensor<B, D, Float> into_float() const { return Tensor<B, D, Float>(Ops::to_float(prim())); }
    /// To Int (Burn's `.int()`); floats truncate toward zero.
    Tensor<B, D, Int> into_int() const { return Tensor<B, D, Int>(Ops::to_int(prim())); }
    /// To Bool (Burn's `.bool()`): non-zero is true.
    Tensor<B, D, Bool> into_bool() const { return Tensor<B, D, Bool>(Ops::to_bool(prim())); }

    /// This float tensor in another float dtype: DType::F32, F16, BF16, or F64, as far as the
    /// backend has them (capabilities<B>: float16, bfloat16, float64). Values round to nearest,
    /// ties to even; ops on the result keep its dtype, and ops mixing dtypes compute in the wider
    /// one (f16 with bf16: f32). Under Autodiff the gradient flows back in the input's dtype.
    Tensor cast(DType dtype) const requires std::same_as<K, Float> {
        detail::check_float_dtype<B>(dtype, "Tensor::cast");
        return Tensor(B::float_cast(prim(), dtype));
    }

    // ------------------------------------------------------------------ numeric ops
    Tensor add(Tensor other) const& requires NumericKind<K> {
        return Tensor(*this).add(std::move(other));
    }
    Tensor add(Tensor other) && requires NumericKind<K> {
        check_broadcast(other, "Tensor::add");
        return Tensor(Ops::add(take(), other.take()));
    }
    Tensor sub(Tensor other) const& requires NumericKind<K> {
        return Tensor(*this).sub(std::move(other));
    }
    Tensor sub(Tensor other) && requires NumericKind<K> {
        check_broadcast(other, "Tensor::sub");
        return Tensor(Ops::sub(take(), other.take()));
    }
    Tensor mul(Tensor other) const& requires NumericKind<K> {
        return Tensor(*this).mul(std::move(other));
    }
    Tensor mul(Tensor other) && requires NumericKind<K> {
        check_broadcast(other, "Tensor::mul");
        return Tensor(Ops::mul(take(), other.take()));
    }
    /// Float: true division. Int: truncating division (throws on division by zero).
    Tensor div(Tensor other) const& requires NumericKind<K> {
        return Tensor(*this).div(std::move(other));
    }
    Tensor div(Tensor other) && requires NumericKind<K> {
        check_broadcast(other, "Tensor::div");
        return Tensor(Ops::div(take(), other.take()));
    }
    /// Remainder with the sign of the divisor (torch.remainder, Python's %).
    Tensor rem(Tensor other) const& requires NumericKind<K> {
        return Tensor(*this).rem(std::move(other));
    }
    Tensor rem(Tensor other) && requires NumericKind<K> {
        check_broadcast(other, "Tensor::rem");
        return Tensor(Ops::remainder(take(), other.take()));
    }
    template <Scalar S>
    Tensor add_scalar(S s) const& requires NumericKind<K> {
        return Tensor(*this).add_scalar(s);
    }
    template <Scalar S>
        Tensor add_scalar(S s) && requires NumericKind<K> {
        return Tensor(Ops::add_scalar(take(), sc(s)));
    }
    template <Scalar S>
    Tensor sub_scalar(S s) const& requires NumericKind<K> {
        return Tensor(*this).sub_scalar(s);
    }
    template <Scalar S>
        Tensor sub_scalar(S s) && requires NumericKind<K> {
        return Tensor(Ops::sub_scalar(take(), sc(s)));
    }
    template <Scalar S>
    Tensor mul_scalar(S s) const& requires NumericKind<K> {
        return Tensor(*this).mul_scalar(s);
    }
    template <Scalar S>
        Tensor mul_scalar(S s) && requires NumericKind<K> {
        return Tensor(Ops::mul_scalar(take(), sc(s)));
    }
    template <Scalar S>
    Tensor div_scalar(S s) const& requires NumericKind<K> {
        return Tensor(*this).div_scalar(s);
    }
    template <Scalar S>
        Tensor div_scalar(S s) && requires NumericKind<K> {
        return Tensor(Ops::div_scalar(take(), sc(s)));
    }
    template <Scalar S>
    Tensor rem_scalar(S s) const& requires NumericKind<K> {
        return Tensor(*this).rem_scalar(s);
    }
    template <Scalar S>
        Tensor rem_scalar(S s) && requires NumericKind<K> {
        return Tensor(Ops::remainder_scalar(take(), sc(s)));
    }
    Tensor neg() const& requires NumericKind<K> { return Tensor(*this).neg(); }
    Tensor neg() && requires NumericKind<K> { return Tensor(Ops::neg(take())); }
    Tensor abs() const& requires NumericKind<K> { return Tensor(*this).abs(); }
    Tensor abs() && requires NumericKind<K> { return Tensor(Ops::abs(take())); }
    /// -1, 0 or 1 (NaN stays NaN).
    Tensor sign() const& requires NumericKind<K> { return Tensor(*this).sign(); }
    Tensor sign() && requires NumericKind<K> { return Tensor(Ops::sign(take())); }
    /// Element-wise maximum / minimum (NaN propagates, as torch.maximum).
    Tensor max_pair(Tensor other) const requires NumericKind<K> {
        check_broadcast(other, "Tensor::max_pair");
        return Tensor(Ops::max_pair(prim(), other.take()));
    }
    Tensor min_pair(Tensor other) const requires NumericKind<K> {
        check_broadcast(other, "Tensor::min_pair");
        return Tensor(Ops::min_pair(prim(), other.take()));
    }
    template <Scalar S>
    Tensor clamp(S min, S max) const& requires NumericKind<K> {
        return Tensor(*this).clamp(min, max);
    }
    template <Scalar S>
        Tensor clamp(S min, S max) && requires NumericKind<K> {
        BURN_CHECK(!(static_cast<double>(min) > static_cast<double>(max)), "Tensor::clamp: min ",
                   min, " is greater than max ", max);
        return Tensor(Ops::clamp(take(), sc(min), sc(max)));
    }
    template <Scalar S>
    Tensor clamp_min(S min) const& requires NumericKind<K> {
        return Tensor(*this).clamp_min(min);
    }
    template <Scalar S>
        Tensor clamp_min(S min) && requires NumericKind<K> {
        return Tensor(Ops::clamp_min(take(), sc(min)));
    }
    template <Scalar S>
    Tensor clamp_max(S max) const& requires NumericKind<K> {
        return Tensor(*this).clamp_max(max);
    }
    template <Scalar S>
        Tensor clamp_max(S max) && requires NumericKind<K> {
        return Tensor(Ops::clamp_max(take(), sc(max)));
    }

#define BURN_CMP(NAME)                                                           \
    Tensor<B, D, Bool> NAME(const Tensor& other) const requires NumericKind<K> { \
        const auto [a, b] = broadcast_pair(other, "Tensor::" #NAME);             \
        return Tensor<B, D, Bool>(Ops::NAME(a, b));                              \
    }                                                                            \
    template <Scalar S>                                                          \
    Tensor<B, D, Bool> NAME##_elem(S s) const requires NumericKind<K> {          \
        return Tensor<B, D, Bool>(Ops::NAME##_elem(prim(), sc(s)));              \
    }
    BURN_CMP(greater)
    BURN_CMP(greater_equal)
    BURN_CMP(lower)
    BURN_CMP(lower_equal)
#undef BURN_CMP
    template <Scalar S>
    Tensor<B, D, Bool> equal_elem(S s) const requires NumericKind<K> {
        return Tensor<B, D, Bool>(Ops::equal_elem(prim(), sc(s)));
    }
    template <Scalar S>
    Tensor<B, D, Bool> not_equal_elem(S s) const requires NumericKind<K> {
        return Tensor<B, D, Bool>(Ops::not_equal_elem(prim(), sc(s)));
    }

    // reductions
    /// Sum of all elements, as a rank-1 tensor of one element.
    Tensor<B, 1, K> sum() const requires NumericKind<K> {
        return Tensor<B, 1, K>(Ops::sum(prim()));
    }
    /// Mean of all elements (integer division for Int).
    Tensor<B, 1, K> mean() const requires NumericKind<K> {
        const auto n = num_elements();
        if constexpr (std::same_as<K, Float>) return sum().div_scalar(static_cast<double>(n));
        else return sum().div_scalar(static_cast<std::int64_t>(std::max<std::size_t>(n, 1)));
    }
    Tensor<B, 1, K> prod() const requires NumericKind<K> {
        return Tensor<B, 1, K>(Ops::prod(prim()));
    }
    /// Maximum of all elements. With gradients, tied maxima share the gradient equally (as
    /// torch.max()); max_dim gives it to the element its index names.
    Tensor<B, 1, K> max() const requires NumericKind<K> {
        check_nonempty("Tensor::max");
        return share_ties(flat().max_dim(0));
    }
    Tensor<B, 1, K> min() const requires NumericKind<K> {
        check_nonempty("Tensor::min");
        return share_ties(flat().min_dim(0));
    }
    /// Reductions along `dim`, which is kept with size 1 (keepdim=True in PyTorch).
    Tensor sum_dim(std::int64_t dim) const requires NumericKind<K> {
        return Tensor(Ops::sum_dim(prim(), detail::norm_dim(dim, D, "Tensor::sum_dim")));
    }
    Tensor mean_dim(std::int64_t dim) const requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::mean_dim");
        if constexpr (std::same_as<K, Int>)
            BURN_CHECK(shape()[d] > 0, "Tensor::mean_dim: cannot take the mean of an empty integer",
                       " dimension (dim ", d, " of shape ", shape(), ")");
        return Tensor(Ops::mean_dim(prim(), d));
    }
    Tensor prod_dim(std::int64_t dim) const requires NumericKind<K> {
        return Tensor(Ops::prod_dim(prim(), detail::norm_dim(dim, D, "Tensor::prod_dim")));
    }
    Tensor max_dim(std::int64_t dim) const requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::max_dim");
        check_nonempty_dim(d, "Tensor::max_dim");
        return Tensor(Ops::max_dim(prim(), d));
    }
    Tensor min_dim(std::int64_t dim) const requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::min_dim");
        check_nonempty_dim(d, "Tensor::min_dim");
        return Tensor(Ops::min_dim(prim(), d));
    }
    std::pair<Tensor, Tensor<B, D, Int>> max_dim_with_indices(std::int64_t dim) const requires
        NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::max_dim_with_indices");
        check_nonempty_dim(d, "Tensor::max_dim_with_indices");
        auto [v, i] = Ops::max_dim_with_indices(prim(), d);
        return {Tensor(std::move(v)), Tensor<B, D, Int>(std::move(i))};
    }
    std::pair<Tensor, Tensor<B, D, Int>> min_dim_with_indices(std::int64_t dim) const requires
        NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::min_dim_with_indices");
        check_nonempty_dim(d, "Tensor::min_dim_with_indices");
        auto [v, i] = Ops::min_dim_with_indices(prim(), d);
        return {Tensor(std::move(v)), Tensor<B, D, Int>(std::move(i))};
    }
    /// Index of the maximum along `dim` (kept with size 1); first occurrence wins.
    Tensor<B, D, Int> argmax(std::int64_t dim) const requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::argmax");
        check_nonempty_dim(d, "Tensor::argmax");
        return Tensor<B, D, Int>(Ops::argmax(prim(), d));
    }
    Tensor<B, D, Int> argmin(std::int64_t dim) const requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::argmin");
        check_nonempty_dim(d, "Tensor::argmin");
        return Tensor<B, D, Int>(Ops::argmin(prim(), d));
    }

    // cumulative ops: same shape as self, element i along `dim` combines elements 0..i
    /// Running sum along `dim` (torch.cumsum). Float tensors of f32 accumulate in f64 on the CPU
    /// backend, as PyTorch's CPU kernel; Int tensors keep their element type and wrap on overflow.
    Tensor cumsum(std::int64_t dim) const requires NumericKind<K> {
        return Tensor(Ops::cumsum(prim(), detail::norm_dim(dim, D, "Tensor::cumsum")));
    }
    /// Running product along `dim` (torch.cumprod); accumulation as cumsum. Its gradient is exact
    /// for inputs holding zeros.
    Tensor cumprod(std::int64_t dim) const requires NumericKind<K> {
        return Tensor(Ops::cumprod(prim(), detail::norm_dim(dim, D, "Tensor::cumprod")));
    }
    /// Running minimum along `dim` (the values of torch.cummin). NaN propagates: every value
    /// after the first NaN of a lane is NaN. The gradient of each output goes to the element that
    /// holds its value, the latest one when equal values repeat (as PyTorch).
    Tensor cummin(std::int64_t dim) const requires NumericKind<K> {
        return Tensor(Ops::cummin(prim(), detail::norm_dim(dim, D, "Tensor::cummin")));
    }
    /// Running maximum along `dim` (the values of torch.cummax); NaN and gradients as cummin.
    Tensor cummax(std::int64_t dim) const requires NumericKind<K> {
        return Tensor(Ops::cummax(prim(), detail::norm_dim(dim, D, "Tensor::cummax")));
    }

    // indexing
    /// out[i][j] = self[indices[i][j]][j] for dim 0 (torch.gather); indices have rank D.
    Tensor gather(std::int64_t dim,
                  const Tensor<B, D, Int>& indices) const requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::gather");
        const Shape s = shape(), is = indices.shape();
        for (std::size_t i = 0; i < D; ++i)
            BURN_CHECK(i == d || is[i] <= s[i], "Tensor::gather: indices of shape ", is,
                       " exceed the tensor of shape ", s, " at dim ", i);
        return Tensor(Ops::gather(d, prim(), indices.primitive()));
    }
    /// Adds `values` at `indices` along `dim` (torch.scatter_add, as Burn's scatter).
    Tensor scatter(std::int64_t dim, const Tensor<B, D, Int>& indices,
                   Tensor values) const& requires NumericKind<K> {
        return Tensor(*this).scatter(dim, indices, std::move(values));
    }
    Tensor scatter(std::int64_t dim, const Tensor<B, D, Int>& indices, Tensor values) && requires
        NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::scatter");
        const Shape s = shape(), is = indices.shape(), vs = values.shape();
        for (std::size_t i = 0; i < D; ++i) {
            BURN_CHECK(is[i] <= vs[i], "Tensor::scatter: indices of shape ", is,
                       " exceed the values of shape ", vs, " at dim ", i);
            BURN_CHECK(i == d || is[i] <= s[i], "Tensor::scatter: indices of shape ", is,
                       " exceed the tensor of shape ", s, " at dim ", i);
        }
        return Tensor(Ops::scatter(d, take(), indices.primitive(), values.take()));
    }
    /// The slices at `indices` along `dim` (torch.index_select).
    Tensor select(std::int64_t dim,
                  const Tensor<B, 1, Int>& indices) const requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::select");
        return Tensor(Ops::select(prim(), d, indices.primitive()));
    }
    /// Adds `values` into the slices at `indices` along `dim` (torch.index_add).
    Tensor select_assign(std::int64_t dim, const Tensor<B, 1, Int>& indices,
                         Tensor values) const& requires NumericKind<K> {
        return Tensor(*this).select_assign(dim, indices, std::move(values));
    }
    Tensor select_assign(std::int64_t dim, const Tensor<B, 1, Int>& indices, Tensor values) &&
        requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::select_assign");
        Shape expect = shape();
        expect[d] = indices.shape()[0];
        BURN_CHECK(values.shape() == expect, "Tensor::select_assign: values have shape ",
                   values.shape(), ", expected ", expect);
        return Tensor(Ops::select_assign(take(), d, indices.primitive(), values.take()));
    }
    /// Where `mask` is true take `value`, else keep self (torch.where(mask, value, self)).
    Tensor mask_where(const Tensor<B, D, Bool>& mask, Tensor value) const& requires NumericKind<K> {
        return Tensor(*this).mask_where(mask, std::move(value));
    }
    Tensor mask_where(const Tensor<B, D, Bool>& mask, Tensor value) && requires NumericKind<K> {
        const Shape s = shape();
        check_broadcast_into(mask.shape(), s, "Tensor::mask_where", "mask");
        check_broadcast_into(value.shape(), s, "Tensor::mask_where", "value");
        return Tensor(Ops::mask_where(take(), mask.primitive(), value.take()));
    }
    template <class S>
    requires Scalar<S> Tensor mask_fill(const Tensor<B, D, Bool>& mask, S value)
    const& requires NumericKind<K> { return Tensor(*this).mask_fill(mask, value); }
    template <class S>
    requires Scalar<S> Tensor mask_fill(const Tensor<B, D, Bool>& mask,
                                        S value) && requires NumericKind<K> {
        check_broadcast_into(mask.shape(), shape(), "Tensor::mask_fill", "mask");
        return Tensor(Ops::mask_fill(take(), mask.primitive(), sc(value)));
    }

    // sorting
    Tensor sort(std::int64_t dim) const requires NumericKind<K> {
        return Tensor(Ops::sort(prim(), detail::norm_dim(dim, D, "Tensor::sort"), false));
    }
    Tensor sort_descending(std::int64_t dim) const requires NumericKind<K> {
        return Tensor(Ops::sort(prim(), detail::norm_dim(dim, D, "Tensor::sort_descending"), true));
    }
    std::pair<Tensor, Tensor<B, D, Int>> sort_with_indices(std::int64_t dim) const requires
        NumericKind<K> {
        auto [v, i] =
            Ops::sort_with_indices(prim(), detail::norm_dim(dim, D, "Tensor::sort"), false);
        return {Tensor(std::move(v)), Tensor<B, D, Int>(std::move(i))};
    }
    std::pair<Tensor, Tensor<B, D, Int>> sort_descending_with_indices(
        std::int64_t dim) const requires NumericKind<K> {
        auto [v, i] = Ops::sort_with_indices(
            prim(), detail::norm_dim(dim, D, "Tensor::sort_descending"), true);
        return {Tensor(std::move(v)), Tensor<B, D, Int>(std::move(i))};
    }
    Tensor<B, D, Int> argsort(std::int64_t dim) const requires NumericKind<K> {
        return Tensor<B, D, Int>(
            Ops::argsort(prim(), detail::norm_dim(dim, D, "Tensor::argsort"), false));
    }
    Tensor<B, D, Int> argsort_descending(std::int64_t dim) const requires NumericKind<K> {
        return Tensor<B, D, Int>(
            Ops::argsort(prim(), detail::norm_dim(dim, D, "Tensor::argsort_descending"), true));
    }
    /// The k largest values along `dim`, in descending order.
    Tensor topk(std::size_t k, std::int64_t dim) const requires NumericKind<K> {
        return topk_with_indices(k, dim).first;
    }
    std::pair<Tensor, Tensor<B, D, Int>> topk_with_indices(
        std::size_t k, std::int64_t dim) const requires NumericKind<K> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::topk");
        BURN_CHECK(k <= shape()[d], "Tensor::topk: k = ", k, " exceeds dim ", d, " of size ",
                   shape()[d]);
        auto [v, i] = sort_descending_with_indices(static_cast<std::int64_t>(d));
        return {v.narrow(static_cast<std::int64_t>(d), 0, k),
                i.narrow(static_cast<std::int64_t>(d), 0, k)};
    }

    // triangular parts
    /// Zeros above the `diagonal`-th diagonal of the last two dims (torch.tril).
    Tensor tril(std::int64_t diagonal = 0) const requires NumericKind<K> {
        static_assert(D >= 2, "tril: the tensor must have rank >= 2");
        return mask_fill(Tensor<B, D, Bool>::tril_mask(shape(), diagonal, device()), 0);
    }
    Tensor triu(std::int64_t diagonal = 0) const requires NumericKind<K> {
        static_assert(D >= 2, "triu: the tensor must have rank >= 2");
        return mask_fill(Tensor<B, D, Bool>::triu_mask(shape(), diagonal, device()), 0);
    }

    // closeness
    /// |self - other| <= atol + rtol * |other| element-wise (torch.isclose; NaN is never close).
    Tensor<B, D, Bool> is_close(const Tensor& other, double rtol = 1e-5,
                                double atol = 1e-8) const requires NumericKind<K> {
        check_broadcast(other, "Tensor::is_close");
        auto a = into_float(), b = other.into_float();
        auto diff = (a - b).abs();
        auto tol = b.abs().mul_scalar(rtol).add_scalar(atol);
        auto close = diff.lower_equal(tol);
        if constexpr (std::same_as<K, Float>) {
            // An infinite `other` is only close to the same infinity (the tolerance is infinite).
            auto finite = b.abs().lower_elem(std::numeric_limits<double>::infinity());
            close = (close & finite) | a.equal(b);
        }
        return close;
    }
    bool all_close(const Tensor& other, double rtol = 1e-5,
                   double atol = 1e-8) const requires NumericKind<K> {
        return is_close(other, rtol, atol).all().into_scalar();
    }

    // ------------------------------------------------------------------ float-only ops
#define BURN_FLOAT_UNARY(NAME, OP)                                                        \
    Tensor NAME() const& requires std::same_as<K, Float> { return Tensor(*this).NAME(); } \
    Tensor NAME() && requires std::same_as<K, Float> { return Tensor(B::OP(take())); }
    BURN_FLOAT_UNARY(exp, float_exp)
    BURN_FLOAT_UNARY(log, float_log)
    BURN_FLOAT_UNARY(log1p, float_log1p)
    BURN_FLOAT_UNARY(erf, float_erf)
    BURN_FLOAT_UNARY(sqrt, float_sqrt)
    BURN_FLOAT_UNARY(recip, float_recip)
    BURN_FLOAT_UNARY(sin, float_sin)
    BURN_FLOAT_UNARY(cos, float_cos)
    BURN_FLOAT_UNARY(tanh, float_tanh)
    BURN_FLOAT_UNARY(round, float_round)
    BURN_FLOAT_UNARY(floor, float_floor)
    BURN_FLOAT_UNARY(ceil, float_ceil)
#undef BURN_FLOAT_UNARY

    /// Element-wise power with a float tensor exponent.
    Tensor powf(Tensor other) const requires std::same_as<K, Float> {
        check_broadcast(other, "Tensor::powf");
        return Tensor(B::float_powf(prim(), other.take()));
    }
    template <Scalar S>
    Tensor powf_scalar(S s) const requires std::same_as<K, Float> {
        return Tensor(B::float_powf_scalar(prim(), static_cast<double>(s)));
    }
    /// Power with an integer exponent tensor (Float) or integer power (Int).
    Tensor powi(const Tensor<B, D, Int>& other) const requires NumericKind<K> {
        check_broadcast_shapes(other.shape(), "Tensor::powi");
        if constexpr (std::same_as<K, Float>)
            return Tensor(B::float_powf(prim(), B::int_into_float(other.primitive())));
        else return Tensor(B::int_powi(prim(), other.primitive()));
    }
    Tensor powi_scalar(std::int64_t n) const requires NumericKind<K> {
        if constexpr (std::same_as<K, Float>)
            return Tensor(B::float_powf_scalar(prim(), static_cast<double>(n)));
        else return Tensor(B::int_powi_scalar(prim(), n));
    }
    /// Matrix product over the last two dims, broadcasting batch dims.
    Tensor matmul(const Tensor& other) const requires std::same_as<K, Float> {
        const Shape a = shape(), b = other.shape();
        BURN_CHECK(a[D - 1] == b[D > 1 ? D - 2 : 0], "Tensor::matmul: inner dims of ", a, " and ",
                   b, " do not match (", a[D - 1], " vs ", b[D > 1 ? D - 2 : 0], ")");
        if constexpr (D > 2) {
            for (std::size_t i = 0; i + 2 < D; ++i)
                BURN_CHECK(a[i] == b[i] || a[i] == 1 || b[i] == 1, "Tensor::matmul: batch dims of ",
                           a, " and ", b, " cannot be broadcast (dim ", i, ")");
        }
        check_device(other, "Tensor::matmul");
        if constexpr (D == 1) {
            // Dot product, as torch.matmul on two vectors but keeping rank 1.
            return (*this * other).sum();
        } else {
            // On autocast's lower-precision list (burn/tensor/autocast.hpp).
            return Tensor(
                B::float_matmul(autocast::lower(*this).prim(), autocast::lower(other).prim()));
        }
    }
    Tensor<B, D, Bool> is_nan() const requires std::same_as<K, Float> {
        return Tensor<B, D, Bool>(B::float_is_nan(prim()));
    }
    bool contains_nan() const requires std::same_as<K, Float> {
        return is_nan().any().into_scalar();
    }
    /// Unbiased variance along `dim` (kept), as torch.var(dim, keepdim=True).
    Tensor var(std::int64_t dim) const requires std::same_as<K, Float> { return var_impl(dim, 1); }
    /// Biased (population) variance.
    Tensor var_bias(std::int64_t dim) const requires std::same_as<K, Float> {
        return var_impl(dim, 0);
    }
    std::pair<Tensor, Tensor> var_mean(std::int64_t dim) const requires std::same_as<K, Float> {
        return var_mean_impl(dim, 1);
    }
    std::pair<Tensor, Tensor> var_mean_bias(
        std::int64_t dim) const requires std::same_as<K, Float> {
        return var_mean_impl(dim, 0);
    }
    /// The tensor on the backend's full-precision (f32 or wider) float type.
    Tensor<typename B::FullPrecisionBackend, D, Float> to_full_precision() const
        requires(std::same_as<K, Float>&& std::same_as<typename B::FullPrecisionBackend, B>) {
        return *this;
    }
    static Tensor
    from_full_precision(Tensor<typename B::FullPrecisionBackend, D, Float> t) requires(
        std::same_as<K, Float>&& std::same_as<typename B::FullPrecisionBackend, B>) {
        return t;
    }

    // ------------------------------------------------------------------ autodiff
    // Gradients exist on an AutodiffBackend (burn::Autodiff<B>). On other backends
    // require_grad / set_require_grad / detach return the tensor unchanged and is_require_grad is
    // false, while backward / grad / inner do not compile, as in Burn.

    /// Marks this float tensor as a leaf whose gradient backward() returns.
    Tensor require_grad() const requires std::same_as<K, Float> { return set_require_grad(true); }
    /// require = false drops the tensor's graph (it becomes an untracked constant).
    Tensor set_require_grad(bool require) const requires std::same_as<K, Float> {
        if constexpr (AutodiffBackend<B>) return Tensor(B::float_set_require_grad(prim(), require));
        else return *this;
    }
    /// True when gradients flow through this tensor (a marked leaf or a result computed from one).
    bool is_require_grad() const requires std::same_as<K, Float> {
        if constexpr (AutodiffBackend<B>) return B::float_is_require_grad(prim());
        else return false;
    }
    /// The same values, cut from the graph: no gradient flows back through the result.
    Tensor detach() const {
        if constexpr (AutodiffBackend<B> && std::same_as<K, Float>)
            return Tensor(B::float_detach(prim()));
        else return *this;
    }
    /// Backpropagates from this tensor (seeded with ones of its shape) and returns the gradients
    /// of every leaf marked with require_grad(). The graph walked through is freed.
    template <class BB = B>
    requires(AutodiffBackend<BB>&& std::same_as<K, Float>) typename BB::Gradients backward() const {
        return BB::backward(prim());
    }
    /// This tensor's gradient in `grads` (on the inner backend), if it has one.
    template <class BB = B>
    requires(AutodiffBackend<BB>&& std::same_as<K, Float>)
        std::optional<Tensor<typename BB::InnerBackend, D>> grad(
            const typename BB::Gradients& grads)
    const {
        auto g = BB::grad(prim(), grads);
        if (!g) return std::nullopt;
        return Tensor<typename BB::InnerBackend, D>(std::move(*g));
    }
    /// Removes this tensor's gradient from `grads` and returns it.
    template <class BB = B>
    requires(AutodiffBackend<BB>&& std::same_as<K, Float>)
        std::optional<Tensor<typename BB::InnerBackend, D>> grad_remove(
            typename BB::Gradients& grads)
    const {
        auto g = BB::grad_remove(prim(), grads);
        if (!g) return std::nullopt;
        return Tensor<typename BB::InnerBackend, D>(std::move(*g));
    }
    /// Replaces this tensor's gradient in `grads` (same shape as the tensor).
    template <class BB = B>
    requires(AutodiffBackend<BB>&& std::same_as<K, Float>) void grad_replace(
        typename BB::Gradients& grads, Tensor<typename BB::InnerBackend, D> grad) const {
        BB::grad_replace(prim(), grads, std::move(grad).into_primitive());
    }
    /// The same values on the inner backend, with no graph (validation and metrics).
    template <class BB = B>
    requires AutodiffBackend<BB> Tensor<typename BB::InnerBackend, D, K> inner()
    const {
        if constexpr (std::same_as<K, Float>)
            return Tensor<typename BB::InnerBackend, D, K>(BB::inner(prim()));
        else if constexpr (std::same_as<K, Int>)
            return Tensor<typename BB::InnerBackend, D, K>(BB::int_inner(prim()));
        else return Tensor<typename BB::InnerBackend, D, K>(BB::bool_inner(prim()));
    }
    /// An untracked tensor of this backend from a tensor of its inner backend.
    template <class BB = B>
    requires AutodiffBackend<BB>
    static Tensor from_inner(Tensor<typename BB::InnerBackend, D, K> t) {
        if constexpr (std::same_as<K, Float>)
            return Tensor(BB::from_inner(std::move(t).into_primitive()));
        else if constexpr (std::same_as<K, Int>)
            return Tensor(BB::int_from_inner(std::move(t).into_primitive()));
        else return Tensor(BB::bool_from_inner(std::move(t).into_primitive()));
    }

    // ------------------------------------------------------------------ quantization
    // int8 quantization (quantization.hpp has the schemes, the formulas and the calibration).
    // Ops other than these on a quantized tensor dequantize it and compute in float; their
    // results are ordinary float tensors (call quantize again to store int8).

    /// Quantizes with `scheme` and its parameters: one scale (and, for affine schemes, one
    /// offset) per tensor, or per index along the scheme's axis.
    Tensor quantize(const QuantizationScheme& scheme,
                    const QuantizationParameters<B>& qparams) const requires std::same_as<K, Float>;
    /// Quantizes with parameters computed from this tensor's range (MinMaxCalibration).
    Tensor quantize_dynamic(const QuantizationScheme& scheme) const requires std::same_as<K, Float>;
    /// The float values (q - offset) * scale of a quantized tensor; other tensors are returned as
    /// they are.
    Tensor dequantize() const requires std::same_as<K, Float> {
        return Tensor(B::dequantize(prim()));
    }
    bool is_quantized() const requires std::same_as<K, Float> {
        return B::float_is_quantized(prim());
    }

    // ------------------------------------------------------------------ int-only ops
    /// One-hot encoding along a new last dim (values must be in [0, num_classes)).
    template <std::size_t D2 = D + 1>
    Tensor<B, D2, Int> one_hot(std::size_t num_classes) const requires std::same_as<K, Int> {
        static_assert(D2 == D + 1, "one_hot: the result rank is D + 1");
        const auto n = static_cast<std::int64_t>(num_classes);
        if (num_elements() > 0) {
            const auto lo = min().into_scalar(), hi = max().into_scalar();
            BURN_CHECK(lo >= 0 && hi < n, "Tensor::one_hot: values must be in [0, ", n, "), found ",
                       (lo < 0 ? lo : hi));
        }
        Shape view;
        view.resize(D2, 1);
        view[D] = num_classes;
        auto classes = Tensor<B, 1, Int>::arange(0, n, device()).template reshape<D2>(view);
        auto idx = unsqueeze_dim<D2>(static_cast<std::int64_t>(D));
        return idx.equal(classes.expand(expand_target<D2>(num_classes))).into_int();
    }

    // ------------------------------------------------------------------ bool-only ops
    Tensor bool_not() const requires std::same_as<K, Bool> { return Tensor(B::bool_not(prim())); }
    Tensor bool_and(const Tensor& other) const requires std::same_as<K, Bool> {
        const auto [a, b] = broadcast_pair(other, "Tensor::bool_and");
        return Tensor(B::bool_and(a, b));
    }
    Tensor bool_or(const Tensor& other) const requires std::same_as<K, Bool> {
        const auto [a, b] = broadcast_pair(other, "Tensor::bool_or");
        return Tensor(B::bool_or(a, b));
    }
    /// Coordinates of the true elements: shape [n, D].
    Tensor<B, 2, Int> argwhere() const requires std::same_as<K, Bool> {
        return Tensor<B, 2, Int>(B::bool_argwhere(prim()));
    }
    /// One rank-1 index tensor per dim (torch.nonzero(as_tuple=True)).
    std::vector<Tensor<B, 1, Int>> nonzero() const requires std::same_as<K, Bool> {
        auto coords = argwhere();
        std::vector<Tensor<B, 1, Int>> out;
        const std::size_t n = coords.shape()[0];
        for (std::size_t d = 0; d < D; ++d)
            out.push_back(
                coords.narrow(1, d, 1).template reshape<1>({static_cast<std::int64_t>(n)}));
        return out;
    }

    // ------------------------------------------------------------------ operators
    friend Tensor operator+(Tensor a, Tensor b) requires NumericKind<K> {
        return std::move(a).add(std::move(b));
    }
    friend Tensor operator-(Tensor a, Tensor b) requires NumericKind<K> {
        return std::move(a).sub(std::move(b));
    }
    friend Tensor operator*(Tensor a, Tensor b) requires NumericKind<K> {
        return std::move(a).mul(std::move(b));
    }
    friend Tensor operator/(Tensor a, Tensor b) requires NumericKind<K> {
        return std::move(a).div(std::move(b));
    }
    friend Tensor operator%(Tensor a, Tensor b) requires NumericKind<K> {
        return std::move(a).rem(std::move(b));
    }
    friend Tensor operator-(Tensor a) requires NumericKind<K> { return std::move(a).neg(); }
    template <Scalar S>
    friend Tensor operator+(Tensor a, S s) requires NumericKind<K> {
        return std::move(a).add_scalar(s);
    }
    template <Scalar S>
    friend Tensor operator-(Tensor a, S s) requires NumericKind<K> {
        return std::move(a).sub_scalar(s);
    }
    template <Scalar S>
    friend Tensor operator*(Tensor a, S s) requires NumericKind<K> {
        return std::move(a).mul_scalar(s);
    }
    template <Scalar S>
    friend Tensor operator/(Tensor a, S s) requires NumericKind<K> {
        return std::move(a).div_scalar(s);
    }
    template <Scalar S>
    friend Tensor operator%(Tensor a, S s) requires NumericKind<K> {
        return std::move(a).rem_scalar(s);
    }
    template <Scalar S>
    friend Tensor operator+(S s, Tensor a) requires NumericKind<K> {
        return std::move(a).add_scalar(s);
    }
    template <Scalar S>
    friend Tensor operator*(S s, Tensor a) requires NumericKind<K> {
        return std::move(a).mul_scalar(s);
    }
    template <Scalar S>
    friend Tensor operator-(S s, Tensor a) requires NumericKind<K> {
        return std::move(a).neg().add_scalar(s);
    }
    template <Scalar S>
    friend Tensor operator/(S s, Tensor a) requires NumericKind<K> {
        if constexpr (std::same_as<K, Float>) return std::move(a).recip().mul_scalar(s);
        else return a.full_like(s).div(std::move(a));
    }
    template <Scalar S>
    friend Tensor operator%(S s, Tensor a) requires NumericKind<K> {
        return a.full_like(s).rem(std::move(a));
    }
    friend Tensor operator!(const Tensor& a) requires std::same_as<K, Bool> { return a.bool_not(); }
    friend Tensor operator&(const Tensor& a, const Tensor& b) requires std::same_as<K, Bool> {
        return a.bool_and(b);
    }
    friend Tensor operator|(const Tensor& a, const Tensor& b) requires std::same_as<K, Bool> {
        return a.bool_or(b);
    }
    Tensor& operator+=(Tensor o) requires NumericKind<K> {
        return *this = std::move(*this) + std::move(o);
    }
    Tensor& operator-=(Tensor o) requires NumericKind<K> {
        return *this = std::move(*this) - std::move(o);
    }
    Tensor& operator*=(Tensor o) requires NumericKind<K> {
        return *this = std::move(*this) * std::move(o);
    }
    Tensor& operator/=(Tensor o) requires NumericKind<K> {
        return *this = std::move(*this) / std::move(o);
    }
    template <Scalar S>
    Tensor& operator+=(S s) requires NumericKind<K> {
        return *this = std::move(*this) + s;
    }
    template <Scalar S>
    Tensor& operator-=(S s) requires NumericKind<K> {
        return *this = std::move(*this) - s;
    }
    template <Scalar S>
    Tensor& operator*=(S s) requires NumericKind<K> {
        return *this = std::move(*this) * s;
    }
    template <Scalar S>
    Tensor& operator/=(S s) requires NumericKind<K> {
        return *this = std::move(*this) / s;
    }

private:
    Primitive prim_;
    bool moved_ = false;

    /// The primitive, checked: a moved-from tensor throws, naming the function that used it.
    Primitive& prim(const char* where = __builtin_FUNCTION()) {
        if (moved_) [[unlikely]]
            detail::fail_moved_from(where);
        return prim_;
    }
    const Primitive& prim(const char* where = __builtin_FUNCTION()) const {
        if (moved_) [[unlikely]]
            detail::fail_moved_from(where);
        return prim_;
    }
    /// Throws when the tensor is moved-from, naming `op` (checks that know their op call it
    /// first, so that the message names the op rather than a helper).
    void live(const char* op) const {
        if (moved_) [[unlikely]]
            detail::fail_moved_from(op);
    }
    /// Moves the primitive out (the tensor is used up, as after std::move).
    Primitive take(const char* where = __builtin_FUNCTION()) {
        Primitive p = std::move(prim(where));
        moved_ = true;
        return p;
    }

    template <class S>
    static typename Ops::ScalarT sc(S s) {
        return static_cast<typename Ops::ScalarT>(s);
    }
    static void check_rank(const Shape& s, const char* op) {
        BURN_CHECK(s.rank() == D, op, ": shape ", s, " does not have rank ", D);
    }
    template <class T>
    void check_device(const T& other, const char* op) const {
        live(op);
        other.live(op);
        BURN_CHECK(device() == other.device(), op, ": tensors are on different devices");
    }
    void check_broadcast_shapes(const Shape& other, const char* op) const {
        live(op);
        (void)broadcast_shapes(shape(), other, op);
    }
    void check_broadcast(const Tensor& other, const char* op) const {
        live(op);
        other.live(op);
        check_broadcast_shapes(other.shape(), op);
        check_device(other, op);
    }
    /// `from` must broadcast to exactly `to`.
    static void check_broadcast_into(const Shape& from, const Shape& to, const char* op,
                                     const char* what) {
        const Shape r = broadcast_shapes(from, to, op);
        BURN_CHECK(r == to, op, ": ", what, " of shape ", from, " does not broadcast to ", to);
    }
    /// Both operands' primitives, for ops whose backend form needs no broadcasting of its own.
    std::pair<Primitive, Primitive> broadcast_pair(const Tensor& other, const char* op) const {
        check_broadcast(other, op);
        return {prim(), other.prim()};
    }
    void check_nonempty(const char* op) const {
        live(op);
        BURN_CHECK(num_elements() > 0, op, ": cannot reduce an empty tensor of shape ", shape());
    }
    void check_nonempty_dim(std::size_t d, const char* op) const {
        live(op);
        BURN_CHECK(shape()[d] > 0, op, ": cannot reduce dim ", d, " of size 0 (shape ", shape(),
                   ")");
    }
    Tensor<B, 1, K> flat() const {
        return Tensor<B, 1, K>(Ops::reshape(prim(), Shape{num_elements()}));
    }
    template <std::size_t D2>
    std::array<std::int64_t, D2> expand_target(std::size_t last) const {
        std::array<std::int64_t, D2> t;
        const Shape s = shape();
        for (std::size_t i = 0; i < D; ++i) t[i] = static_cast<std::int64_t>(s[i]);
        t[D] = static_cast<std::int64_t>(last);
        return t;
    }
    static Tensor tri_mask(const Shape& shape, std::int64_t diagonal, const Device& device,
                           int kind, const char* op) requires std::same_as<K, Bool> {
        BURN_CHECK(shape.rank() == D && D >= 2, op, ": shape ", shape,
                   " must have rank D >= 2 (rows and columns last)");
        const auto rows = static_cast<std::int64_t>(shape[D - 2]);
        const auto cols = static_cast<std::int64_t>(shape[D - 1]);
        using IT = Tensor<B, 2, Int>;
        auto r =
            Tensor<B, 1, Int>::arange(0, rows, device).template reshape<2>(Shape{shape[D - 2], 1});
        auto c =
            Tensor<B, 1, Int>::arange(0, cols, device).template reshape<2>(Shape{1, shape[D - 1]});
        // offset[i][j] = j - i
        IT offset = c.expand(std::array<std::int64_t, 2>{rows, cols}) - r;
        Tensor<B, 2, Bool> m = kind == 0   ? offset.greater_elem(diagonal)
                               : kind == 1 ? offset.lower_elem(diagonal)
                                           : offset.not_equal_elem(diagonal);
        std::array<std::int64_t, D> target;
        for (std::size_t i = 0; i < D; ++i) target[i] = static_cast<std::int64_t>(shape[i]);
        return m.template unsqueeze<D>().expand(target);
    }
    /// The whole-tensor extreme `m` of this tensor, with its gradient spread evenly over the
    /// elements equal to it: m + sum((x - detach(x)) * w), whose value is exactly m.
    Tensor<B, 1, K> share_ties(Tensor<B, 1, K> m) const {
        if constexpr (AutodiffBackend<B> && std::same_as<K, Float>) {
            if (is_require_grad()) {
                const Tensor<B, 1, K> x = flat();
                const Tensor<B, 1, K> md = m.detach();
                auto w = x.detach().equal(md).into_float();
                w = w / w.sum();
                return md + ((x - x.detach()) * w).sum();
            }
        }
        return m;
    }
    Tensor var_impl(std::int64_t dim,
                    std::size_t correction) const requires std::same_as<K, Float> {
        return var_mean_impl(dim, correction).first;
    }
    std::pair<Tensor, Tensor> var_mean_impl(
        std::int64_t dim, std::size_t correction) const requires std::same_as<K, Float> {
        const std::size_t d = detail::norm_dim(dim, D, "Tensor::var");
        const std::size_t n = shape()[d];
        auto mean = mean_dim(static_cast<std::int64_t>(d));
        auto centered = *this - mean;
        auto var = (centered * centered).sum_dim(static_cast<std::int64_t>(d));
        const double denom = n > correction ? static_cast<double>(n - correction)
                                            : std::numeric_limits<double>::quiet_NaN();
        return {std::move(var).div_scalar(denom), mean};
    }
};

/// Tensor::cat / stack as free functions.
template <BackendTypes B, std::size_t D, class K>
Tensor<B, D, K> cat(std::vector<Tensor<B, D, K>> tensors, std::int64_t dim) {
    return Tensor<B, D, K>::cat(std::move(tensors), dim);
}

}  // namespace burn

// The definitions of Tensor::quantize and quantize_dynamic.
#include "burn/tensor/quantization.hpp"

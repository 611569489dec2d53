// SPDX-License-Identifier: MIT OR Apache-2.0
// Helpers shared by the creation / shape / indexing / data conformance tests
// (test_creation*.cpp, test_shape*.cpp, test_indexing*.cpp, test_data*.cpp, test_print.cpp):
// fixture access for tests/fixtures/creation_shape_index.json, literal expected data, and the
// same logical tensor in several memory layouts (contiguous, transposed view, flipped view,
// strided slice view) so that every op is also run on non-contiguous inputs.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace burn::csi {

inline constexpr std::string_view kFixture = "creation_shape_index";

/// Input `name` of fixture case `c` as host data.
inline TensorData in_data(std::string_view c, std::string_view name) {
    return testing::fixture_data(testing::fixture(kFixture, c).at("inputs").at(std::string(name)));
}
/// Output `name` of fixture case `c`.
inline TensorData out(std::string_view c, std::string_view name) {
    return testing::fixture_output(kFixture, c, name);
}
/// Input as a contiguous tensor of the backend.
template <class B, std::size_t D, class K = Float>
Tensor<B, D, K> in(std::string_view c, std::string_view name) {
    return testing::fixture_input<B, D, K>(kFixture, c, name);
}
/// `params` of a case.
inline const nlohmann::json& params(std::string_view c) {
    return testing::fixture(kFixture, c).at("params");
}

/// Literal expected data: floats<2>({{1, 2}, {3, 4}}).
template <std::size_t D>
TensorData floats(NestedList<double, D> v) {
    return TensorData::from_nested<double, D>(v);
}
template <std::size_t D>
TensorData ints(NestedList<std::int64_t, D> v) {
    return TensorData::from_nested<std::int64_t, D>(v);
}
template <std::size_t D>
TensorData bools(NestedList<bool, D> v) {
    return TensorData::from_nested<bool, D>(v);
}
/// An empty (zero-element) f64 TensorData of `shape`.
inline TensorData empty_data(Shape shape) { return TensorData::zeros(shape, DType::F64); }

/// close_to for Float tensors, exact equal_to for Int and Bool ones; also checks that the result
/// has the backend's dtype for the kind.
template <class B, std::size_t D, class K>
::testing::AssertionResult matches(const Tensor<B, D, K>& t, const TensorData& expected) {
    const TensorData d = t.to_data();
    if (d.dtype != kind_dtype<B, K>())
        return ::testing::AssertionFailure() << "result dtype " << dtype_name(d.dtype)
                                             << ", expected " << dtype_name(kind_dtype<B, K>());
    if constexpr (std::same_as<K, Float>) return testing::close_to(t, expected);
    else return testing::equal_to(t, expected);
}

/// Runs `f`, turning an exception into a failure that shows its message:
/// EXPECT_TRUE(runs([&] { ... })).
template <class F>
::testing::AssertionResult runs(F&& f) {
    try {
        f();
        return ::testing::AssertionSuccess();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw: " << e.what();
    }
}

// ------------------------------------------------------------------ host-side data reordering
namespace host {

inline std::vector<std::size_t> strides_of(const Shape& s) {
    std::vector<std::size_t> st(s.rank(), 1);
    for (std::size_t i = s.rank(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
}

/// out[i_0, .., i_{r-1}] = x[j] with j[perm[k]] = i_k (torch's x.permute(perm).contiguous()).
inline TensorData permute(const TensorData& x, const std::vector<std::size_t>& perm) {
    const Shape& in = x.shape;
    const std::size_t r = in.rank(), es = dtype_size(x.dtype), n = x.num_elements();
    Shape os;
    for (std::size_t k = 0; k < r; ++k) os.push_back(in[perm[k]]);
    const auto ist = strides_of(in);
    std::vector<std::uint8_t> bytes(n * es);
    std::vector<std::size_t> idx(r, 0);
    for (std::size_t f = 0; f < n; ++f) {
        std::size_t src = 0;
        for (std::size_t k = 0; k < r; ++k) src += idx[k] * ist[perm[k]];
        std::memcpy(bytes.data() + f * es, x.bytes().data() + src * es, es);
        for (std::size_t k = r; k-- > 0;) {
            if (++idx[k] < os[k]) break;
            idx[k] = 0;
        }
    }
    return TensorData(std::move(bytes), os, x.dtype);
}

/// x with `dim` reversed.
inline TensorData flip(const TensorData& x, std::size_t dim) {
    const Shape& s = x.shape;
    const std::size_t es = dtype_size(x.dtype), n = x.num_elements();
    const auto st = strides_of(s);
    std::vector<std::uint8_t> bytes(n * es);
    for (std::size_t f = 0; f < n; ++f) {
        const std::size_t i = (f / st[dim]) % s[dim];
        const std::size_t src = f + (s[dim] - 1 - 2 * i) * st[dim];
        std::memcpy(bytes.data() + f * es, x.bytes().data() + src * es, es);
    }
    return TensorData(std::move(bytes), s, x.dtype);
}

/// x with a junk element after every element along `dim` (that dim doubles): slicing it back with
/// step 2 gives x as a strided view. Junk is 77 (true for bools), so misreads show.
inline TensorData interleave(const TensorData& x, std::size_t dim) {
    const Shape& s = x.shape;
    Shape os = s;
    os[dim] = 2 * s[dim];
    const std::size_t es = dtype_size(x.dtype), n = os.num_elements();
    const auto ist = strides_of(s);
    const auto ost = strides_of(os);
    const TensorData junk = TensorData::full<double>(Shape{1}, 77.0).convert(x.dtype);
    std::vector<std::uint8_t> bytes(n * es);
    for (std::size_t f = 0; f < n; ++f) {
        std::size_t rem = f, src = 0;
        bool is_junk = false;
        for (std::size_t k = 0; k < os.rank(); ++k) {
            std::size_t i = rem / ost[k];
            rem %= ost[k];
            if (k == dim) {
                is_junk = i % 2 == 1;
                i /= 2;
            }
            src += i * ist[k];
        }
        const std::uint8_t* from = is_junk ? junk.bytes().data() : x.bytes().data() + src * es;
        std::memcpy(bytes.data() + f * es, from, es);
    }
    return TensorData(std::move(bytes), os, x.dtype);
}

}  // namespace host

/// A named tensor layout.
template <class B, std::size_t D, class K>
struct Layout {
    std::string name;
    Tensor<B, D, K> tensor;
};

/// The same logical values as `x` in several layouts: contiguous, last two dims transposed
/// (a swap_dims view), all dims reversed (a permute view), flipped along every dim (negative
/// strides), and strided along the first and the last dim (slices with step 2).
template <class B, std::size_t D, class K = Float>
std::vector<Layout<B, D, K>> layouts(const TensorData& x) {
    using T = Tensor<B, D, K>;
    std::vector<Layout<B, D, K>> v;
    v.push_back({"contiguous", T::from_data(x)});
    if constexpr (D >= 2) {
        std::vector<std::size_t> p(D);
        std::iota(p.begin(), p.end(), std::size_t{0});
        std::swap(p[D - 2], p[D - 1]);
        v.push_back({"swap_dims view", T::from_data(host::permute(x, p)).swap_dims(D - 2, D - 1)});
    }
    if constexpr (D >= 3) {
        std::vector<std::size_t> p(D);
        std::array<std::int64_t, D> axes{};
        for (std::size_t i = 0; i < D; ++i) {
            p[i] = D - 1 - i;
            axes[i] = static_cast<std::int64_t>(D - 1 - i);
        }
        v.push_back({"permute view", T::from_data(host::permute(x, p)).permute(axes)});
    }
    {
        TensorData f = x;
        std::vector<std::int64_t> axes;
        for (std::size_t d = 0; d < D; ++d) {
            f = host::flip(f, d);
            axes.push_back(static_cast<std::int64_t>(d));
        }
        v.push_back({"flip view", T::from_data(f).flip(axes)});
    }
    {
        std::vector<Slice> last(D, Slice::all());
        last[D - 1] = Slice(0, INT64_MAX, 2);
        v.push_back(
            {"strided view (last dim)", T::from_data(host::interleave(x, D - 1)).slice(last)});
        if constexpr (D >= 2) {
            std::vector<Slice> first(D, Slice::all());
            first[0] = Slice(1, INT64_MAX, 2);
            // Junk first: the values sit at odd positions, read with start 1, step 2.
            TensorData shifted = host::flip(host::interleave(host::flip(x, 0), 0), 0);
            v.push_back({"strided view (first dim, offset)", T::from_data(shifted).slice(first)});
        }
    }
    return v;
}

/// Layouts of fixture input `name` of case `c`.
template <class B, std::size_t D, class K = Float>
std::vector<Layout<B, D, K>> in_layouts(std::string_view c, std::string_view name) {
    return layouts<B, D, K>(in_data(c, name));
}

}  // namespace burn::csi

/// Comma-free aliases for use inside gtest macros: F2 = Tensor<B, 2>, I1 = Tensor<B, 1, Int>,
/// Bo3 = Tensor<B, 3, Bool>, ...
#define CSI_ALIASES(B)                              \
    using F1 = ::burn::Tensor<B, 1>;                \
    using F2 = ::burn::Tensor<B, 2>;                \
    using F3 = ::burn::Tensor<B, 3>;                \
    using F4 = ::burn::Tensor<B, 4>;                \
    using I1 = ::burn::Tensor<B, 1, ::burn::Int>;   \
    using I2 = ::burn::Tensor<B, 2, ::burn::Int>;   \
    using I3 = ::burn::Tensor<B, 3, ::burn::Int>;   \
    using Bo1 = ::burn::Tensor<B, 1, ::burn::Bool>; \
    using Bo2 = ::burn::Tensor<B, 2, ::burn::Bool>; \
    using Bo3 = ::burn::Tensor<B, 3, ::burn::Bool>; \
    (void)0

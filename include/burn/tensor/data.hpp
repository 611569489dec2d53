// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "burn/tensor/dtype.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/quantization_scheme.hpp"
#include "burn/tensor/shape.hpp"

namespace burn {

/// Nested initializer lists of depth D: NestedList<float, 2> is {{1, 2}, {3, 4}}.
template <class T, std::size_t D>
struct NestedListT {
    using type = std::initializer_list<typename NestedListT<T, D - 1>::type>;
};
template <class T>
struct NestedListT<T, 1> {
    using type = std::initializer_list<T>;
};
template <class T, std::size_t D>
using NestedList = typename NestedListT<T, D>::type;

/// Absolute and relative tolerance: |a - b| <= atol + rtol * |b|.
struct Tolerance {
    double atol = 1e-5;
    double rtol = 1e-5;
    /// Tolerance at `digits` decimal places (Burn's `precision` argument).
    static Tolerance decimal(int digits);
};

/// Host-side data of a tensor: row-major bytes + shape + dtype. Every value entering or leaving a
/// backend passes through a TensorData. Quantized (QInt8) data holds one int8 value per element
/// plus its QuantizationInfo (scheme, scales, offsets); read as numbers (value_as_double, to_vec,
/// convert, assert_approx_eq, printing) it yields the dequantized values.
class TensorData {
public:
    Shape shape;
    DType dtype = DType::F32;

    TensorData() = default;
    /// Takes `values` (row-major) with `shape`; their counts must agree.
    template <Element E>
    TensorData(std::vector<E> values, Shape s) : shape(s), dtype(ElementTraits<E>::dtype) {
        BURN_CHECK(values.size() == shape.num_elements(), "TensorData: ", values.size(),
                   " values do not fill shape ", shape, " (", shape.num_elements(), " elements)");
        bytes_.resize(values.size() * sizeof(E));
        if constexpr (std::is_same_v<E, bool>) {
            for (std::size_t i = 0; i < values.size(); ++i) bytes_[i] = values[i] ? 1 : 0;
        } else if (!values.empty()) {
            std::memcpy(bytes_.data(), values.data(), bytes_.size());
        }
    }
    /// Raw bytes (little-endian, dtype_size(d) per element). Not for QInt8 (use quantized()).
    TensorData(std::vector<std::uint8_t> bytes, Shape s, DType d);
    /// Quantized data: one int8 value per byte and the parameters (validated against `s`).
    TensorData(std::vector<std::uint8_t> bytes, Shape s, QuantizationInfo info);
    /// Quantized data from its int8 values (row-major) and parameters.
    static TensorData quantized(const std::vector<std::int8_t>& values, Shape s,
                                QuantizationInfo info);

    /// A rank-1 TensorData from a list: TensorData::from<float>({1, 2, 3}).
    template <Element E>
    static TensorData from(std::initializer_list<E> values) {
        return TensorData(std::vector<E>(values), Shape{values.size()});
    }
    /// From nested lists of any depth; the innermost lists must all have the same length.
    /// TensorData::from_nested<float, 2>({{1, 2}, {3, 4}}).
    template <Element E, std::size_t D>
    static TensorData from_nested(NestedList<E, D> list) {
        std::vector<E> out;
        Shape s;
        s.resize(D, 0);
        flatten_nested<E, D, 0>(list, out, s);
        return TensorData(std::move(out), s);
    }
    /// `n` copies of `value` with `shape`.
    template <Element E>
    static TensorData full(Shape s, E value) {
        return TensorData(std::vector<E>(s.num_elements(), value), s);
    }
    /// Zero bytes of `dtype` with `shape`.
    static TensorData zeros(Shape s, DType d);

    std::size_t num_elements() const { return shape.num_elements(); }
    std::size_t rank() const { return shape.rank(); }
    std::span<const std::uint8_t> bytes() const { return bytes_; }
    std::span<std::uint8_t> bytes_mut() { return bytes_; }
    std::vector<std::uint8_t> into_bytes() && { return std::move(bytes_); }

    /// Whether this is quantized (QInt8) data.
    bool is_quantized() const { return qinfo_.has_value(); }
    /// The quantization parameters; empty unless quantized.
    const std::optional<QuantizationInfo>& quantization() const { return qinfo_; }
    /// The stored int8 values of quantized data.
    std::span<const std::int8_t> q_values() const {
        BURN_CHECK(is_quantized(), "TensorData::q_values: data has dtype ", dtype_name(dtype),
                   ", not qint8");
        return {reinterpret_cast<const std::int8_t*>(bytes_.data()), num_elements()};
    }
    /// The values of quantized data as f32: (q - offset) * scale. Other data: convert(F32).
    TensorData dequantize() const;

    /// The values as E; the dtype must be E's exactly.
    template <Element E>
    std::span<const E> as_span() const {
        check_dtype<E>("TensorData::as_span");
        return {reinterpret_cast<const E*>(bytes_.data()), num_elements()};
    }
    template <Element E>
    std::span<E> as_mut_span() {
        check_dtype<E>("TensorData::as_mut_span");
        return {reinterpret_cast<E*>(bytes_.data()), num_elements()};
    }
    /// The values converted to E (numeric cast; bool maps to 0/1).
    template <Element E>
    std::vector<E> to_vec() const {
        if (dtype == ElementTraits<E>::dtype) {
            auto s = as_span<E>();
            return {s.begin(), s.end()};
        }
        auto c = convert(ElementTraits<E>::dtype);
        auto s = c.template as_span<E>();
        return {s.begin(), s.end()};
    }
    /// Element i as a double, whatever the dtype (the dequantized f32 value for QInt8).
    double value_as_double(std::size_t i) const;

    /// The same values in `target` dtype (floats round to nearest even; float->int truncates).
    /// Quantized data is dequantized first; converting to QInt8 needs quantize() instead.
    TensorData convert(DType target) const;

    /// Same shape, dtype and bytes (and quantization parameters).
    friend bool operator==(const TensorData& a, const TensorData& b) {
        return a.shape == b.shape && a.dtype == b.dtype && a.bytes_ == b.bytes_ &&
               a.qinfo_ == b.qinfo_;
    }

    /// Throws burn::Error unless shapes match and every value is within tolerance (values are
    /// compared as f64; NaN matches NaN, infinities match when equal). The message names the first
    /// mismatching index and both values.
    void assert_approx_eq(const TensorData& expected, Tolerance tol = {}) const;
    void assert_approx_eq(const TensorData& expected, int decimal_digits) const {
        assert_approx_eq(expected, Tolerance::decimal(decimal_digits));
    }
    /// Throws burn::Error unless shapes and values are exactly equal; with `strict`, dtypes too.
    void assert_eq(const TensorData& expected, bool strict = true) const;

    std::string to_string() const;

private:
    template <Element E>
    void check_dtype(const char* op) const {
        BURN_CHECK(dtype == ElementTraits<E>::dtype, op, ": data has dtype ", dtype_name(dtype),
                   ", requested ", dtype_name(ElementTraits<E>::dtype));
    }
    template <class E, std::size_t D, std::size_t Level, class L>
    static void flatten_nested(const L& list, std::vector<E>& out, Shape& s) {  // NOLINT
        if (out.empty() && s[Level] == 0) s[Level] = list.size();
        BURN_CHECK(list.size() == s[Level], "TensorData::from: ragged nested list at depth ", Level,
                   " (", list.size(), " vs ", s[Level], " elements)");
        if constexpr (Level + 1 == D) {
            for (const auto& v : list) out.push_back(static_cast<E>(v));
        } else {
            for (const auto& inner : list) flatten_nested<E, D, Level + 1>(inner, out, s);
        }
    }
    std::vector<std::uint8_t> bytes_;
    std::optional<QuantizationInfo> qinfo_;
};

std::ostream& operator<<(std::ostream& os, const TensorData& d);

}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string_view>
#include <type_traits>

namespace burn {

/// Element types a TensorData can hold.
enum class DType : std::uint8_t { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool, QInt8 };

/// IEEE 754 binary16. Conversions from float round to nearest, ties to even.
struct f16 {
    std::uint16_t bits = 0;
    f16() = default;
    f16(float v) : bits(from_float(v)) {}              // NOLINT(google-explicit-constructor)
    operator float() const { return to_float(bits); }  // NOLINT(google-explicit-constructor)
    static constexpr f16 from_bits(std::uint16_t b) {
        f16 h;
        h.bits = b;
        return h;
    }
    static std::uint16_t from_float(float v);
    static float to_float(std::uint16_t h);
};

/// bfloat16: the upper half of a binary32. Conversions round to nearest, ties to even.
struct bf16 {
    std::uint16_t bits = 0;
    bf16() = default;
    bf16(float v) : bits(from_float(v)) {}  // NOLINT(google-explicit-constructor)
    operator float() const { return std::bit_cast<float>(std::uint32_t(bits) << 16); }  // NOLINT
    static constexpr bf16 from_bits(std::uint16_t b) {
        bf16 h;
        h.bits = b;
        return h;
    }
    static std::uint16_t from_float(float v) {
        auto u = std::bit_cast<std::uint32_t>(v);
        if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40u);  // quiet NaN
        u += 0x7fffu + ((u >> 16) & 1u);
        return std::uint16_t(u >> 16);
    }
};

inline std::uint16_t f16::from_float(float v) {
    const std::uint32_t x = std::bit_cast<std::uint32_t>(v);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t absx = x & 0x7fffffffu;
    if (absx > 0x7f800000u) return std::uint16_t(sign | 0x7e00u);   // NaN
    if (absx >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // overflow -> inf
    if (absx < 0x38800000u) {                                       // subnormal or zero
        // Add 0.5 (as a float) so that the FPU performs the round-to-nearest-even for us.
        const float shifted = std::bit_cast<float>(absx) + 0.5f;
        return std::uint16_t(sign | (std::bit_cast<std::uint32_t>(shifted) - 0x3f000000u));
    }
    const std::uint32_t mant_odd = (absx >> 13) & 1u;
    std::uint32_t r = absx + 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
    return std::uint16_t(sign | (r >> 13));
}

inline float f16::to_float(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1fu;
    const std::uint32_t mant = h & 0x3ffu;
    if (exp == 0) {  // zero or subnormal: mant * 2^-24
        const float f = float(mant) * 5.9604644775390625e-8f;
        return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(f));
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

/// Size in bytes of one element.
constexpr std::size_t dtype_size(DType d) {
    switch (d) {
        case DType::F64:
        case DType::I64: return 8;
        case DType::F32:
        case DType::I32: return 4;
        case DType::F16:
        case DType::BF16:
        case DType::I16: return 2;
        default: return 1;
    }
}

/// Burn's spelling: "f32", "i64", "bool", ...
constexpr std::string_view dtype_name(DType d) {
    switch (d) {
        case DType::F64: return "f64";
        case DType::F32: return "f32";
        case DType::F16: return "f16";
        case DType::BF16: return "bf16";
        case DType::I64: return "i64";
        case DType::I32: return "i32";
        case DType::I16: return "i16";
        case DType::I8: return "i8";
        case DType::U8: return "u8";
        case DType::Bool: return "bool";
        case DType::QInt8: return "qint8";
    }
    return "?";
}

constexpr bool is_float(DType d) {
    return d == DType::F64 || d == DType::F32 || d == DType::F16 || d == DType::BF16;
}
/// f16 or bf16.
constexpr bool is_half(DType d) { return d == DType::F16 || d == DType::BF16; }
constexpr bool is_int(DType d) {
    return d == DType::I64 || d == DType::I32 || d == DType::I16 || d == DType::I8 ||
           d == DType::U8;
}

inline std::ostream& operator<<(std::ostream& os, DType d) { return os << dtype_name(d); }

/// Maps a C++ element type to its DType.
template <class E>
struct ElementTraits;
template <>
struct ElementTraits<double> {
    static constexpr DType dtype = DType::F64;
};
template <>
struct ElementTraits<float> {
    static constexpr DType dtype = DType::F32;
};
template <>
struct ElementTraits<f16> {
    static constexpr DType dtype = DType::F16;
};
template <>
struct ElementTraits<bf16> {
    static constexpr DType dtype = DType::BF16;
};
template <>
struct ElementTraits<std::int64_t> {
    static constexpr DType dtype = DType::I64;
};
template <>
struct ElementTraits<std::int32_t> {
    static constexpr DType dtype = DType::I32;
};
template <>
struct ElementTraits<std::int16_t> {
    static constexpr DType dtype = DType::I16;
};
template <>
struct ElementTraits<std::int8_t> {
    static constexpr DType dtype = DType::I8;
};
template <>
struct ElementTraits<std::uint8_t> {
    static constexpr DType dtype = DType::U8;
};
template <>
struct ElementTraits<bool> {
    static constexpr DType dtype = DType::Bool;
};

/// A type that TensorData can store.
template <class E>
concept Element = requires {
    ElementTraits<E>::dtype;
};

/// A plain number usable as a scalar operand (`tensor + 2`, `tensor.clamp(0.0, 1.0)`).
template <class S>
concept Scalar = std::is_arithmetic_v<S> && !std::same_as<S, bool>;

/// Calls `f(E{})` with the C++ element type of `d` (not for QInt8).
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
    switch (d) {
        case DType::F64: return f(double{});
        case DType::F32: return f(float{});
        case DType::F16: return f(f16{});
        case DType::BF16: return f(bf16{});
        case DType::I64: return f(std::int64_t{});
        case DType::I32: return f(std::int32_t{});
        case DType::I16: return f(std::int16_t{});
        case DType::I8:
        case DType::QInt8: return f(std::int8_t{});
        case DType::U8: return f(std::uint8_t{});
        case DType::Bool: return f(bool{});
    }
    return f(float{});
}

}  // namespace burn

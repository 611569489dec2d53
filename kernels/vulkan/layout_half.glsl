// SPDX-License-Identifier: MIT OR Apache-2.0
// Conversions between f32 and the half types, stored two to a 32-bit word (element i is the low
// half of word i / 2 when i is even): f16 (IEEE binary16) and bf16 (the upper half of an f32).
// f32 -> half rounds to nearest, ties to even, with integer operations only (the host's and
// PyTorch's bit patterns, whatever the device's own conversion rounding); NaN stays NaN.
// Included by layout_half_<dir>_<type>.comp, which define BURN_HALF_F16 (or not, for bf16).

float burn_half_to_f32(uint h) {
#ifdef BURN_HALF_F16
    return unpackHalf2x16(h).x;  // exact
#else
    return uintBitsToFloat(h << 16);
#endif
}

uint burn_f32_to_half(float f) {
    const uint x = floatBitsToUint(f);
    const uint sign = (x >> 16) & 0x8000u;
    const uint a = x & 0x7fffffffu;
#ifdef BURN_HALF_F16
    if (a > 0x7f800000u) return sign | 0x7e00u;   // NaN
    if (a >= 0x477ff000u) return sign | 0x7c00u;  // overflows to infinity
    if (a < 0x38800000u) {                        // an f16 subnormal, or zero
        if (a < 0x33000000u) return sign;         // at most half the smallest subnormal: 0
        // The 24-bit significand shifted right by 126 - exponent, rounded to nearest even.
        const uint e = a >> 23;
        const uint m = (a & 0x7fffffu) | 0x800000u;
        const uint shift = 126u - e;  // 14..24 (the result has at most 10 bits)
        const uint q = m >> shift;
        const uint rem = m & ((1u << shift) - 1u);
        const uint half_ulp = 1u << (shift - 1u);
        const uint up = (rem > half_ulp || (rem == half_ulp && (q & 1u) != 0u)) ? 1u : 0u;
        return sign | (q + up);
    }
    const uint odd = (a >> 13) & 1u;
    return sign | ((a + 0xc8000fffu + odd) >> 13);  // rebias the exponent (-112 << 23), round
#else
    if (a > 0x7f800000u) return (x >> 16) | 0x40u;  // NaN, quieted
    return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
#endif
}

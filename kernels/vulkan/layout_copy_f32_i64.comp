// SPDX-License-Identifier: MIT OR Apache-2.0
// Strided copy f32 -> i64 (see layout_copy.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define SRC_T float
#define DST_T int64_t
// NaN, infinities and values outside the int64 range give INT64_MIN, as the CPU backend (x86's
// truncating conversion); decided on the bits (see layout_copy_f32_i32.comp).
int64_t burn_f2i64(float v) {
    return (floatBitsToUint(v) & 0x7fffffffu) >= 0x5f000000u ? int64_t(0x8000000000000000ul)
                                                               : int64_t(v);
}
#define CONVERT(v) burn_f2i64(v)
#include "layout_copy.glsl"

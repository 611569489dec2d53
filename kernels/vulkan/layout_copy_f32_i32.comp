// SPDX-License-Identifier: MIT OR Apache-2.0
// Strided copy f32 -> i32 (see layout_copy.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require

#define SRC_T float
#define DST_T int
// NaN, infinities and values outside the int32 range give INT32_MIN, as the CPU backend (x86's
// truncating conversion) and PyTorch's CPU kernels; GPUs would saturate or give 0. Decided on
// the bits, so that a compiler that assumes no NaN cannot fold the test away.
int burn_f2i32(float v) {
    return (floatBitsToUint(v) & 0x7fffffffu) >= 0x4f000000u ? int(0x80000000u) : int(v);
}
#define CONVERT(v) burn_f2i32(v)
#include "layout_copy.glsl"

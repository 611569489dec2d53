// SPDX-License-Identifier: MIT OR Apache-2.0
// Strided copy f32 -> u32 (see layout_copy.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require

#define SRC_T float
#define DST_T uint
#define CONVERT(v) uint((v) != float(0))
#include "layout_copy.glsl"

// SPDX-License-Identifier: MIT OR Apache-2.0
// Strided copy u32 -> u32 (see layout_copy.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require

#define SRC_T uint
#define DST_T uint
#define CONVERT(v) (v)
#include "layout_copy.glsl"

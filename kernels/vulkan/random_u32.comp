// SPDX-License-Identifier: MIT OR Apache-2.0
// Random u32 values (see random.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define OUT_T uint
#define RANDOM_BOOL
#include "random.glsl"

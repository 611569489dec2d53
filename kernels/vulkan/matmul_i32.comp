// SPDX-License-Identifier: MIT OR Apache-2.0
// Tiled batched matmul, i32 (wrapping, see matmul_body.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM int
#define MAC(acc, x, y) acc += (x) * (y)
#include "matmul_body.glsl"

// SPDX-License-Identifier: MIT OR Apache-2.0
// Tiled batched matmul, f32 (see matmul_body.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM float
#define MAC(acc, x, y) acc = fma(x, y, acc)
#include "matmul_body.glsl"

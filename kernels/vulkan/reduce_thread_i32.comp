// SPDX-License-Identifier: MIT OR Apache-2.0
// Reduction along a dim, one invocation per lane, i32: see reduce_thread_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require

#define ELEM int
#define ACC int
#define IS_FLOAT 0
#define ELEM_LOWEST (-2147483647 - 1)
#define ELEM_HIGHEST 2147483647
#include "reduce_thread_body.glsl"

// SPDX-License-Identifier: MIT OR Apache-2.0
// Reduction along a dim, one invocation per lane, f32: see reduce_thread_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require

#define ELEM float
#define ACC float
#define IS_FLOAT 1
#define ELEM_LOWEST (-1.0 / 0.0)
#define ELEM_HIGHEST (1.0 / 0.0)
#include "reduce_thread_body.glsl"

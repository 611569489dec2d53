// SPDX-License-Identifier: MIT OR Apache-2.0
// Reduction along a dim, one invocation per lane, u32: see reduce_thread_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require

#define ELEM uint
#define ACC uint
#define IS_FLOAT 0
#define ELEM_LOWEST 0u
#define ELEM_HIGHEST 0xFFFFFFFFu
#include "reduce_thread_body.glsl"

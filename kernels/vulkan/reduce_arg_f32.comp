// SPDX-License-Identifier: MIT OR Apache-2.0
// f32 variant of reduce_arg_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM float
#define IS_FLOAT 1
#include "reduce_arg_body.glsl"

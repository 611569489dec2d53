// SPDX-License-Identifier: MIT OR Apache-2.0
// i32 variant of reduce_arg_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM int
#define IS_FLOAT 0
#include "reduce_arg_body.glsl"

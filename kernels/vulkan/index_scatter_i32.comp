// SPDX-License-Identifier: MIT OR Apache-2.0
// i32 variant of index_scatter_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM int
#include "index_scatter_body.glsl"

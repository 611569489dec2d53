// SPDX-License-Identifier: MIT OR Apache-2.0
// f32 variant of index_scatter_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM float
#include "index_scatter_body.glsl"

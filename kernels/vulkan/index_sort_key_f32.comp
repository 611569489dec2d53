// SPDX-License-Identifier: MIT OR Apache-2.0
// f32 variant of index_sort_key_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM float
#define KEY_KIND 0
#include "index_sort_key_body.glsl"

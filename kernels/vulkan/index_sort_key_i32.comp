// SPDX-License-Identifier: MIT OR Apache-2.0
// i32 variant of index_sort_key_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM int
#define KEY_KIND 1
#include "index_sort_key_body.glsl"

// SPDX-License-Identifier: MIT OR Apache-2.0
// elementwise_where on i32 tensors (see elementwise_where.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM int
#define UELEM uint
#define BURN_INT
#include "elementwise_where.glsl"

// SPDX-License-Identifier: MIT OR Apache-2.0
// elementwise_compare on i32 tensors (see elementwise_binary.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM int
#define UELEM uint
#define BURN_INT
#define BURN_COMPARE
#include "elementwise_binary.glsl"

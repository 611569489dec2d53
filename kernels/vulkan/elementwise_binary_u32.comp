// SPDX-License-Identifier: MIT OR Apache-2.0
// elementwise_binary on u32 tensors (see elementwise_binary.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM uint
#define BURN_BOOL
#include "elementwise_binary.glsl"

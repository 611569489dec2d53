// SPDX-License-Identifier: MIT OR Apache-2.0
// Reduction along a dim or over everything, u32 (subgroup arithmetic): see reduce_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define USE_SUBGROUPS 1
#define ELEM uint
#define ACC uint
#define IS_FLOAT 0
#define ELEM_LOWEST 0u
#define ELEM_HIGHEST 0xFFFFFFFFu
#include "reduce_body.glsl"

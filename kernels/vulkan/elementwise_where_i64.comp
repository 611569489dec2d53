// SPDX-License-Identifier: MIT OR Apache-2.0
// elementwise_where on i64 tensors (see elementwise_where.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define ELEM int64_t
#define UELEM uint64_t
#define BURN_INT
#define BURN_I64
#include "elementwise_where.glsl"

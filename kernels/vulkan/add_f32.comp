// SPDX-License-Identifier: MIT OR Apache-2.0
// c[i] = a[i] + b[i] for i < n. Specialization constant 0: workgroup size (x).
// Push constants: { uint n; }. Bindings: 0 a, 1 b, 2 c (c may alias a or b).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Push {
    uint n;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i < pc.n) c[i] = a[i] + b[i];
}

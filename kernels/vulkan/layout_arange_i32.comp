// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = start + i * step for i < n, wrapping in 32 bits (the low words of the int64
// sequence). Specialization constant 0: workgroup size (x).
// Push constants: { uint n; int start; int step; }. Binding 0: out.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { int out_[]; };
layout(push_constant) uniform Push {
    uint n;
    int start;
    int step;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i < pc.n) out_[i] = pc.start + int(i) * pc.step;
}

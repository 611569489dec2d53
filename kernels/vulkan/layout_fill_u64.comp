// SPDX-License-Identifier: MIT OR Apache-2.0
// Fills n 64-bit elements with a pattern: out[2i] = lo, out[2i + 1] = hi (the words of an
// int64 value; no 64-bit arithmetic needed). Specialization constant 0: workgroup size (x).
// Push constants: { uint n; uint lo; uint hi; }. Binding 0: out (as 32-bit words).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint out_[]; };
layout(push_constant) uniform Push {
    uint n;
    uint lo;
    uint hi;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    out_[2 * i] = pc.lo;
    out_[2 * i + 1] = pc.hi;
}

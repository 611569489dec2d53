// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = start + i * step for i < n (int64, wrapping). Specialization constant 0: workgroup
// size (x). Push constants: { uint n; uint pad; uvec2 start; uvec2 step; } (int64 values as
// low, high words). Binding 0: out.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint64_t out_[]; };
layout(push_constant) uniform Push {
    uint n;
    uint pad;
    uvec2 start;
    uvec2 step;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    const uint64_t start = pack64(pc.start), step = pack64(pc.step);
    out_[i] = start + uint64_t(i) * step;
}

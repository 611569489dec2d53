// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = sum_{s < splits} part[s * n + i], in split order (the split-k partials of the conv
// weight gradient, conv_gemm_f32.comp mode 2). Spec 0: workgroup size. Bindings: 0 part, 1 out.
// Push constants: { uint n, splits; }.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer Part { float part[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float outv[]; };
layout(push_constant) uniform Push {
    uint n;
    uint splits;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    float s = 0.0;
    for (uint k = 0; k < pc.splits; ++k) s += part[k * pc.n + i];
    outv[i] = s;
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// Bias gradient: out[c] = sum over b and the spatial positions of grad[b, c, ...], one workgroup
// per channel (index gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x), shared-memory
// tree reduction. Specialization constant 0: workgroup size (power of two <= 256). Bindings:
// 0 grad, 1 out [C], 2 params (conv_common.glsl: P_BATCH, P_COUT = C, P_OUT spatial sizes,
// view T0 grad).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer G { float grad[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push { uint unused; } pc;
#include "conv_common.glsl"

shared float partial[256];

void main() {
    const uint item = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const uint lid = gl_LocalInvocationID.x;
    const bool live = item < uint(P[P_COUT]);
    float acc = 0.0;
    if (live) {
        const int O0 = P[P_OUT], O1 = P[P_OUT + 1], O2 = P[P_OUT + 2];
        const int n = P[P_BATCH] * O0 * O1 * O2;
        for (int j = int(lid); j < n; j += int(gl_WorkGroupSize.x)) {
            int q = j;
            const int t2 = q % O2; q /= O2;
            const int t1 = q % O1; q /= O1;
            const int t0 = q % O0;
            const int b = q / O0;
            acc += grad[view_index(P_T0, b, int(item), t0, t1, t2)];
        }
    }
    partial[lid] = acc;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (lid < s) partial[lid] += partial[lid + s];
        barrier();
    }
    if (live && lid == 0) outv[item] = partial[0];
}

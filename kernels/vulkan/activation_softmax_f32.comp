// SPDX-License-Identifier: MIT OR Apache-2.0
// softmax / log_softmax of f32 x along one dim, max-subtracted: one workgroup per row. x is
// seen as [outer, len, inner] in row-major element order (read through its TensorMeta; flags
// bit 0: dense), the row of workgroup r is (r / inner, *, r % inner). A NaN in a row makes the
// whole row NaN (as the CPU backend). Push: n = rows, p0 = len, p1 = inner, op 1: log_softmax.
// Bindings: 0 metas [x], 1 x, 2 out (dense; may alias a dense x).
// Specialization constant 0: workgroup size (a power of two, 32 to 1024).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x_[]; };
layout(std430, set = 0, binding = 2) buffer Out { float out_[]; };

#include "elementwise_common.glsl"

shared float red[1024];

float load(uint e) { return x_[burn_operand_index(0u, e)]; }

void main() {
    const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (row >= pc.n) return;  // uniform across the workgroup
    const uint len = pc.p0, inner = pc.p1;
    const uint base = (row / inner) * len * inner + row % inner;
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;

    // Pass 1: the max, NaN propagating.
    float m = -BURN_INF;
    for (uint k = lid; k < len; k += wg) {
        const float v = load(base + k * inner);
        if (isnan(v) || v > m) m = isnan(m) ? m : v;
    }
    red[lid] = m;
    barrier();
    for (uint s = wg / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            const float o = red[lid + s];
            if (!isnan(red[lid]) && (isnan(o) || o > red[lid])) red[lid] = o;
        }
        barrier();
    }
    m = red[0];
    barrier();

    // Pass 2: the sum of exp(x - m) (softmax stores the exponentials).
    const bool log_ = pc.op == 1u;
    float sum = 0.0;
    for (uint k = lid; k < len; k += wg) {
        const float e = burn_exp(load(base + k * inner) - m);
        if (!log_) out_[base + k * inner] = e;
        sum += e;
    }
    red[lid] = sum;
    barrier();
    for (uint s = wg / 2u; s > 0u; s >>= 1u) {
        if (lid < s) red[lid] += red[lid + s];
        barrier();
    }
    sum = red[0];

    // Pass 3: scale, or shift by log(sum). Each invocation rereads only what it wrote.
    if (!log_) {
        const float inv = 1.0 / sum;
        for (uint k = lid; k < len; k += wg) out_[base + k * inner] *= inv;
    } else {
        const float ls = burn_log(sum);
        for (uint k = lid; k < len; k += wg) out_[base + k * inner] = (load(base + k * inner) - m) - ls;
    }
}

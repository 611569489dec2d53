// SPDX-License-Identifier: MIT OR Apache-2.0
// Sort: one compare-exchange step (block size k, distance j) of a bitonic sort of every lane's P
// records, ordered by (key.x, key.y, index): a total order, so the result is stable.
// Specialization constant 0: workgroup size. Push: { lanes, p, k, j }. Bindings: 0 keys (uvec2),
// 1 indices.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) buffer Keys { uvec2 keys[]; };
layout(std430, set = 0, binding = 1) buffer Idx { uint idx[]; };
layout(push_constant) uniform Push {
    uint lanes;
    uint p;
    uint k;
    uint j;
} pc;

bool less(uvec2 a, uint ai, uvec2 b, uint bi) {
    if (a.x != b.x) return a.x < b.x;
    if (a.y != b.y) return a.y < b.y;
    return ai < bi;
}

void main() {
    const uint i = burn_flat_index();
    const uint half_p = pc.p / 2u;
    if (i >= pc.lanes * half_p) return;
    const uint lane = i / half_p, t = i % half_p;
    const uint a = 2u * pc.j * (t / pc.j) + t % pc.j;
    const uint b = a + pc.j;
    const bool ascending = (a & pc.k) == 0u;
    const uint ia = lane * pc.p + a, ib = lane * pc.p + b;
    const uvec2 ka = keys[ia], kb = keys[ib];
    const uint xa = idx[ia], xb = idx[ib];
    if (less(kb, xb, ka, xa) == ascending) {
        keys[ia] = kb;
        keys[ib] = ka;
        idx[ia] = xb;
        idx[ib] = xa;
    }
}

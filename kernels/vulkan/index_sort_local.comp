// SPDX-License-Identifier: MIT OR Apache-2.0
// Sort: the bitonic steps whose distance j is below the block size B (<= 2 x workgroup size),
// done in shared memory, one workgroup per block of B records: for every block size k in
// [k_lo, k_hi] (powers of two), the steps j = min(k, B) / 2 ... 1. Records are ordered by
// (key.x, key.y, index) (stable), as index_sort_step; the direction of a pair depends on its
// position within its lane of P records.
// Specialization constant 0: workgroup size. Push: { p, b, k_lo, k_hi, blocks }.
// Bindings: 0 keys (uvec2), 1 indices.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "tensor_meta.glsl"
#include "reduce_lane.glsl"

layout(std430, set = 0, binding = 0) buffer Keys { uvec2 keys[]; };
layout(std430, set = 0, binding = 1) buffer Idx { uint idx[]; };
layout(push_constant) uniform Push {
    uint p;
    uint b;
    uint k_lo;
    uint k_hi;
    uint blocks;
} pc;

shared uvec2 sk[2 * gl_WorkGroupSize.x];
shared uint si[2 * gl_WorkGroupSize.x];

bool less(uvec2 a, uint ai, uvec2 b, uint bi) {
    if (a.x != b.x) return a.x < b.x;
    if (a.y != b.y) return a.y < b.y;
    return ai < bi;
}

void main() {
    const uint block = burn_group_index();
    if (block >= pc.blocks) return;  // uniform over the workgroup
    const uint tid = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupSize.x;
    const uint base = block * pc.b;
    const uint lane_pos = base % pc.p;  // position of the block within its lane
    for (uint r = tid; r < pc.b; r += wg) {
        sk[r] = keys[base + r];
        si[r] = idx[base + r];
    }
    barrier();
    for (uint k = pc.k_lo; k <= pc.k_hi; k <<= 1) {
        for (uint j = min(k, pc.b) >> 1; j > 0u; j >>= 1) {
            if (tid < pc.b / 2u) {
                const uint a = 2u * j * (tid / j) + tid % j;
                const uint b = a + j;
                const bool ascending = ((lane_pos + a) & k) == 0u;
                const uvec2 ka = sk[a], kb = sk[b];
                const uint xa = si[a], xb = si[b];
                if (less(kb, xb, ka, xa) == ascending) {
                    sk[a] = kb;
                    sk[b] = ka;
                    si[a] = xb;
                    si[b] = xa;
                }
            }
            barrier();
        }
    }
    for (uint r = tid; r < pc.b; r += wg) {
        keys[base + r] = sk[r];
        idx[base + r] = si[r];
    }
}

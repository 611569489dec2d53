// SPDX-License-Identifier: MIT OR Apache-2.0
// Arg-max / arg-min along a dim: one workgroup per lane; each invocation scans a strided share of
// the lane keeping its first extremum, then a shared-memory tree keeps the extremum with the
// smallest index (NaN counts as the extremum: the first NaN wins). Defines: ELEM, IS_FLOAT.
// Specialization constant 0: workgroup size (power of two). Push: { dim, n, lanes, op, idx64 }
// (op 0 max, 1 min; idx64: write 64-bit indices). Bindings: 0 metas[1], 1 input, 2 values out,
// 3 indices out (32-bit words).
layout(local_size_x_id = 0) in;
#include "tensor_meta.glsl"
#include "reduce_lane.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { ELEM in_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Vals { ELEM vals[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Idx { uint idx[]; };
layout(push_constant) uniform Push {
    uint dim;
    uint n;
    uint lanes;
    uint op;
    uint idx64;
} pc;

shared ELEM sv[gl_WorkGroupSize.x];
shared uint si[gl_WorkGroupSize.x];

// v strictly better than b.
bool better(ELEM v, ELEM b) {
#if IS_FLOAT
    if (isnan(b)) return false;
    if (isnan(v)) return true;
#endif
    return pc.op == 0u ? v > b : v < b;
}

void main() {
    const uint lane = burn_group_index();
    if (lane >= pc.lanes) return;
    const TensorMeta m = metas[0];
    const uint tid = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupSize.x;
    const int base = burn_lane_base(m, pc.dim, lane);
    const int stride = m.strides[pc.dim];
    ELEM best = ELEM(0);
    uint bi = 0xFFFFFFFFu;
    const uint span = wg * 16384u;  // nested loops: lavapipe stops a loop after 65535 iterations
    for (uint c0 = 0u; c0 < pc.n; c0 += span) {
        const uint end = min(pc.n, c0 + span);
        for (uint k = c0 + tid; k < end; k += wg) {
            const ELEM v = in_[base + int(k) * stride];
            if (bi == 0xFFFFFFFFu || better(v, best)) {
                best = v;
                bi = k;
            }
        }
    }
    sv[tid] = best;
    si[tid] = bi;
    barrier();
    for (uint s = wg / 2u; s > 0u; s >>= 1) {
        if (tid < s) {
            const ELEM a = sv[tid], b = sv[tid + s];
            const uint ai = si[tid], bj = si[tid + s];
            bool take = false;
            if (bj != 0xFFFFFFFFu) {
                if (ai == 0xFFFFFFFFu) take = true;
                else if (better(b, a)) take = true;
                else if (!better(a, b) && bj < ai) take = true;
            }
            if (take) {
                sv[tid] = b;
                si[tid] = bj;
            }
        }
        barrier();
    }
    if (tid == 0u) {
        vals[lane] = sv[0];
        if (pc.idx64 != 0u) {
            idx[2u * lane] = si[0];
            idx[2u * lane + 1u] = 0u;
        } else {
            idx[lane] = si[0];
        }
    }
}

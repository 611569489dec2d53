// SPDX-License-Identifier: MIT OR Apache-2.0
// One workgroup per output lane: each invocation folds a strided share of the lane, then the
// workgroup combines the partials (subgroup arithmetic when USE_SUBGROUPS, else a shared-memory
// tree). Defines before inclusion: ELEM, ACC (accumulator type), IS_FLOAT (0/1), ELEM_LOWEST,
// ELEM_HIGHEST, optionally USE_SUBGROUPS.
// Specialization constant 0: workgroup size (power of two).
// Push: { dim, n, lanes, op, chunk, splits, divisor }: workgroup g folds elements
// [s * chunk, min(n, (s + 1) * chunk)) of lane g / splits (s = g % splits) into out[g]; long
// lanes are split so (a second launch folds the partials), which also keeps every invocation
// under lavapipe's limit of 65535 loop iterations. op: 0 sum, 1 prod, 2 mean (the sum divided by
// `divisor`), 3 max, 4 min (NaN propagates through max/min).
// Bindings: 0 metas[1] (input), 1 input, 2 output (contiguous, one value per workgroup).
layout(local_size_x_id = 0) in;
#include "tensor_meta.glsl"
#include "reduce_lane.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { ELEM in_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { ELEM out_[]; };
layout(push_constant) uniform Push {
    uint dim;
    uint n;
    uint lanes;
    uint op;
    uint chunk;
    uint splits;
    uint divisor;
} pc;

#include "reduce_ops.glsl"

#ifdef USE_SUBGROUPS
shared ACC partial[64];  // one per subgroup (subgroups of >= 4 invocations, workgroups <= 256)
#if IS_FLOAT
shared uint partial_nan[64];
#endif
ACC subgroup_fold(ACC v) {
    switch (pc.op) {
        case 0u:
        case 2u: return subgroupAdd(v);
        case 1u: return subgroupMul(v);
        case 3u: return subgroupMax(v);
        default: return subgroupMin(v);
    }
}
#else
shared ACC partial[gl_WorkGroupSize.x];
#endif

void main() {
    const uint g = burn_group_index();
    if (g >= pc.lanes * pc.splits) return;  // uniform over the workgroup
    const uint lane = g / pc.splits;
    const uint first = (g % pc.splits) * pc.chunk;
    const uint end = min(pc.n, first + pc.chunk);
    const TensorMeta m = metas[0];
    const uint tid = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupSize.x;
    ACC acc = identity();
    if (pc.dim == BURN_FLAT_DIM) {
        for (uint k = first + tid; k < end; k += wg) acc = combine(acc, ACC(in_[burn_strided_index(m, k)]));
    } else {
        const int base = burn_lane_base(m, pc.dim, lane);
        const int stride = m.strides[pc.dim];
        for (uint k = first + tid; k < end; k += wg) acc = combine(acc, ACC(in_[base + int(k) * stride]));
    }
#ifdef USE_SUBGROUPS
#if IS_FLOAT
    // Subgroup max/min leave NaN undefined: carry "some NaN" beside the NaN-free fold.
    const bool extremum = pc.op >= 3u;
    const uint has_nan = subgroupMax(uint(extremum && isnan(acc)));
    if (extremum && isnan(acc)) acc = identity();
#endif
    const ACC r = subgroup_fold(acc);
    if (subgroupElect()) {
        partial[gl_SubgroupID] = r;
#if IS_FLOAT
        partial_nan[gl_SubgroupID] = has_nan;
#endif
    }
    barrier();
    if (tid == 0u) {
        ACC total = partial[0];
        for (uint s = 1u; s < gl_NumSubgroups; ++s) total = combine(total, partial[s]);
#if IS_FLOAT
        uint any_nan = 0u;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) any_nan |= partial_nan[s];
        if (any_nan != 0u) total = ACC(uintBitsToFloat(0x7FC00000u));
#endif
#else
    partial[tid] = acc;
    barrier();
    for (uint s = wg / 2u; s > 0u; s >>= 1) {
        if (tid < s) partial[tid] = combine(partial[tid], partial[tid + s]);
        barrier();
    }
    if (tid == 0u) {
        ACC total = partial[0];
#endif
        if (pc.op == 2u) total = total / ACC(pc.divisor);
        out_[g] = ELEM(total);
    }
}

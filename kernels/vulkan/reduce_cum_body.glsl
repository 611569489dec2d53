// SPDX-License-Identifier: MIT OR Apache-2.0
// Cumulative sum / product / max / min along a dim: one workgroup per lane scans it in chunks of
// the workgroup size (a Hillis-Steele scan in shared memory, plus the carry of the previous
// chunks). Integers wrap; max/min propagate NaN (from the first NaN on, NaN) and ties take the
// later element, as the CPU backend (cumulative.cpp). Float sums and products are f32 (the CPU
// backend accumulates in f64: results agree within f32 rounding). Defines: ELEM, IS_FLOAT.
// Specialization constant 0: workgroup size. Push: { dim, n, lanes, op, inner } (op 0 sum,
// 1 prod, 2 max, 3 min; inner: product of the dims after dim). Bindings: 0 metas[1], 1 input,
// 2 output (contiguous, the input's shape).
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
    uint inner;
} pc;

shared ELEM s[gl_WorkGroupSize.x];

// The scan of an earlier prefix a followed by a later part whose scan is b.
ELEM scan_step(ELEM a, ELEM b) {
    switch (pc.op) {
        case 0u: return a + b;
        case 1u: return a * b;
        case 2u: {
#if IS_FLOAT
            return ((b >= a || isnan(b)) && !isnan(a)) ? b : a;
#else
            return b >= a ? b : a;
#endif
        }
        default: {
#if IS_FLOAT
            return ((b <= a || isnan(b)) && !isnan(a)) ? b : a;
#else
            return b <= a ? b : a;
#endif
        }
    }
}

void main() {
    const uint lane = burn_group_index();
    if (lane >= pc.lanes) return;  // uniform over the workgroup
    const TensorMeta m = metas[0];
    const uint tid = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupSize.x;
    const int base = burn_lane_base(m, pc.dim, lane);
    const int stride = m.strides[pc.dim];
    const uint obase = (lane / pc.inner) * pc.n * pc.inner + lane % pc.inner;
    ELEM carry = ELEM(0);
    for (uint c0 = 0u; c0 < pc.n; c0 += wg) {
        const uint k = c0 + tid;
        const bool valid = k < pc.n;
        s[tid] = valid ? in_[base + int(k) * stride] : ELEM(0);
        barrier();
        for (uint off = 1u; off < wg; off <<= 1) {
            const ELEM earlier = tid >= off ? s[tid - off] : ELEM(0);
            barrier();
            if (tid >= off) s[tid] = scan_step(earlier, s[tid]);
            barrier();
        }
        ELEM r = s[tid];
        if (c0 > 0u) r = scan_step(carry, r);
        if (valid) out_[obase + k * pc.inner] = r;
        const ELEM last = s[wg - 1u];
        carry = c0 > 0u ? scan_step(carry, last) : last;
        barrier();
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// Cumulative sum / product / max / min along a dim: one workgroup per lane scans it in chunks of
// the workgroup size (a Hillis-Steele scan in shared memory, plus the carry of the previous
// chunks). Integers wrap; max/min propagate NaN (from the first NaN on, NaN) and ties take the
// later element, as the CPU backend (cumulative.cpp). Float sums are compensated: each partial
// sum is a float pair (hi, lo) with hi = fl(hi + lo) (TwoSum, ~48 significant bits), so the
// result is the f64 running sum of the CPU backend rounded to f32 (exactly so while the sum
// needs at most ~48 bits). Float products are plain f32. Defines: ELEM, IS_FLOAT.
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


#if IS_FLOAT
// Compensated accumulator: (hi, lo) with hi = fl(hi + lo); lo is 0 for prod/max/min.
#define ACC vec2
ACC acc_make(float x) { return vec2(x, 0.0); }
float acc_value(ACC a) { return a.x; }
ACC acc_step(ACC a, ACC b) {
    if (pc.op != 0u) return vec2(scan_step(a.x, b.x), 0.0);
    precise float t = a.x + b.x;
    if (isinf(t) || isnan(t)) return vec2(t, 0.0);
    precise float bb = t - a.x;
    precise float e = (a.x - (t - bb)) + (b.x - bb);  // TwoSum: a.x + b.x == t + e exactly
    e = e + (a.y + b.y);
    if (e == 0.0) return vec2(t, 0.0);  // also keeps the sign of a zero sum
    precise float hi = t + e;
    precise float lo = e - (hi - t);
    return vec2(hi, lo);
}
#else
#define ACC ELEM
ACC acc_make(ELEM x) { return x; }
ELEM acc_value(ACC a) { return a; }
ACC acc_step(ACC a, ACC b) { return scan_step(a, b); }
#endif

shared ACC s[gl_WorkGroupSize.x];

void main() {
    const uint lane = burn_group_index();
    if (lane >= pc.lanes) return;  // uniform over the workgroup
    const TensorMeta m = metas[0];
    const uint tid = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupSize.x;
    const int base = burn_lane_base(m, pc.dim, lane);
    const int stride = m.strides[pc.dim];
    const uint obase = (lane / pc.inner) * pc.n * pc.inner + lane % pc.inner;
    ACC carry = acc_make(ELEM(0));
    for (uint c0 = 0u; c0 < pc.n; c0 += wg) {
        const uint k = c0 + tid;
        const bool valid = k < pc.n;
        s[tid] = acc_make(valid ? in_[base + int(k) * stride] : ELEM(0));
        barrier();
        for (uint off = 1u; off < wg; off <<= 1) {
            const ACC earlier = tid >= off ? s[tid - off] : acc_make(ELEM(0));
            barrier();
            if (tid >= off) s[tid] = acc_step(earlier, s[tid]);
            barrier();
        }
        ACC r = s[tid];
        if (c0 > 0u) r = acc_step(carry, r);
        if (valid) out_[obase + k * pc.inner] = acc_value(r);
        const ACC last = s[wg - 1u];
        carry = c0 > 0u ? acc_step(carry, last) : last;
        barrier();
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// Reduction along a dim with one invocation per output lane (short lanes, or strided lanes of
// many outputs: neighbouring invocations then read neighbouring elements). Same ops, push
// constants and bindings as reduce_body.glsl (splits == 1, chunk == n); float sums are
// compensated (Kahan). Defines: ELEM, ACC, IS_FLOAT, ELEM_LOWEST, ELEM_HIGHEST.
layout(local_size_x_id = 0) in;
#include "index.glsl"
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

void main() {
    const uint lane = burn_flat_index();
    if (lane >= pc.lanes) return;
    const TensorMeta m = metas[0];
    const int base = burn_lane_base(m, pc.dim, lane);
    const int stride = m.strides[pc.dim];
    ACC acc = identity();
#if IS_FLOAT
    if (pc.op == 0u || pc.op == 2u) {
        precise float comp = 0.0;
        for (uint k = 0u; k < pc.n; ++k) {
            precise float y = in_[base + int(k) * stride] - comp;
            precise float t = acc + y;
            comp = (t - acc) - y;
            acc = t;
        }
    } else
#endif
    {
        for (uint k = 0u; k < pc.n; ++k) acc = combine(acc, ACC(in_[base + int(k) * stride]));
    }
    if (pc.op == 2u) acc = acc / ACC(pc.divisor);
    out_[lane] = ELEM(acc);
}

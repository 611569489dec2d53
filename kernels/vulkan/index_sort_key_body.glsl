// SPDX-License-Identifier: MIT OR Apache-2.0
// Sort, first pass: the (key, index) records of every lane, padded to a power of two P per lane.
// A key is two words (hi, lo) whose unsigned order is the wanted order (floats: sign-magnitude
// flipped, -0.0 folded onto +0.0, NaN above +inf; signed ints: sign bit flipped; descending: all
// bits inverted). Padding records get the largest key and index 0xFFFFFFFF (they sort last).
// Defines: ELEM, KEY_KIND (0 f32, 1 i32, 2 i64). Specialization constant 0: workgroup size.
// Push: { dim, n, lanes, p, desc }. Bindings: 0 metas[1], 1 input, 2 keys (uvec2 per record),
// 3 indices (uint per record).
layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "tensor_meta.glsl"
#include "reduce_lane.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { ELEM in_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Keys { uvec2 keys[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Idx { uint idx[]; };
layout(push_constant) uniform Push {
    uint dim;
    uint n;
    uint lanes;
    uint p;
    uint desc;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.lanes * pc.p) return;
    const uint lane = i / pc.p, k = i % pc.p;
    if (k >= pc.n) {
        keys[i] = uvec2(0xFFFFFFFFu);
        idx[i] = 0xFFFFFFFFu;
        return;
    }
    const TensorMeta m = metas[0];
    const ELEM v = in_[burn_lane_base(m, pc.dim, lane) + int(k) * m.strides[pc.dim]];
    uvec2 key;
#if KEY_KIND == 0
    if (isnan(v)) {
        key = uvec2(0xFFFFFFFFu, 0u);
    } else {
        uint b = floatBitsToUint(v);
        if (b == 0x80000000u) b = 0u;
        key = uvec2((b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u), 0u);
    }
#elif KEY_KIND == 1
    key = uvec2(uint(v) ^ 0x80000000u, 0u);
#else
    const uvec2 w = unpackUint2x32(uint64_t(v));  // (lo, hi)
    key = uvec2(w.y ^ 0x80000000u, w.x);
#endif
    if (pc.desc != 0u) key = ~key;
#if KEY_KIND != 2
    if (pc.desc != 0u) key.y = 0u;
#endif
    keys[i] = key;
    idx[i] = k;
}

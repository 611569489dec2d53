// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = mask[i] != 0 ? value[i] : t[i] (mask and value broadcast to t's shape; flags bit 3:
// value is the scalar in p0 (i64: p0, p1)). Define ELEM (and BURN_FLOAT / BURN_I64) first.
// Bindings: 0 metas [t, mask, value], 1 t, 2 mask (uint), 3 value, 4 out (may alias a dense t).
layout(local_size_x_id = 0) in;
#define BURN_EW_ITEMS
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer T { ELEM t_[]; };
layout(std430, set = 0, binding = 2) readonly buffer Mask { uint mask[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { ELEM v[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { ELEM out_[]; };

#include "elementwise_common.glsl"

ELEM scalar_operand() {
#if defined(BURN_FLOAT)
    return uintBitsToFloat(pc.p0);
#elif defined(BURN_I64)
    return ELEM(pack64(uvec2(pc.p0, pc.p1)));
#else
    return ELEM(pc.p0);
#endif
}

void main() {
    // BURN_ITEMS elements per thread (index.glsl): every load first, then every store.
    ELEM r[BURN_ITEMS];
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i >= pc.n) {
            r[t] = ELEM(0);
        } else if (mask[burn_operand_index(1u, i)] != 0u) {
            r[t] = (pc.flags & 8u) != 0u ? scalar_operand() : v[burn_operand_index(2u, i)];
        } else {
            r[t] = t_[burn_operand_index(0u, i)];
        }
    }
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i >= pc.n) return;
        out_[i] = r[t];
    }
}

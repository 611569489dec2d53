// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = test(a[i]) as bool (uint 0/1) for ELEM tensors. Op 0: a == 0 (logical not), 1: a is
// NaN. Bindings: 0 metas [a], 1 a, 2 out (uint; may alias a when a is a dense bool tensor).
layout(local_size_x_id = 0) in;
#define BURN_EW_ITEMS
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint out_[]; };

#include "elementwise_common.glsl"

void main() {
    // BURN_ITEMS elements per thread (index.glsl): every load first, then every store.
    ELEM x[BURN_ITEMS];
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        x[t] = i < pc.n ? a[burn_operand_index(0u, i)] : ELEM(0);
    }
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i >= pc.n) return;
        bool r = x[t] == ELEM(0);
#ifdef BURN_FLOAT
        if (pc.op == 1u) r = isnan(x[t]);
#endif
        out_[i] = r ? 1u : 0u;
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = op(a[i]) for ELEM tensors (a read through its TensorMeta). Define ELEM and one of
// BURN_FLOAT, BURN_INT (with UELEM) before including. Op codes: burn::vk::UnaryOp values
// (floats: all but Not; ints: Neg, Abs, Sign) and 100: clamp to [lo, hi] (p0 lo, p1 hi; i64:
// p0/p1 lo, p2/p3 hi). Bindings: 0 metas [a], 1 a, 2 out (may alias a when a is dense).
layout(local_size_x_id = 0) in;
#define BURN_EW_ITEMS
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { ELEM out_[]; };
#if defined(BURN_FLOAT)
// The same storage as vec4s, for dense f32 operands with 4 items per thread: one 16-byte load
// and store per thread (the buffers are 64-byte aligned and a dense operand is at offset 0).
layout(std430, set = 0, binding = 1) readonly buffer A4 { vec4 a4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out4 { vec4 out4[]; };
#endif

#include "elementwise_common.glsl"
#ifdef BURN_INT
#include "elementwise_int.glsl"
#endif

#ifdef BURN_FLOAT
ELEM apply(ELEM x) {
    switch (pc.op) {
        case 0u: return -x;
        case 1u: return abs(x);
        case 2u: return burn_sign(x);
        case 3u: return burn_exp(x);
        case 4u: return burn_log(x);
        case 5u: return burn_log1p(x);
        case 6u: return burn_erf(x);
        case 7u: return burn_sqrt(x);
        case 8u: return 1.0 / x;
        case 9u: return burn_sincos(x, false);
        case 10u: return burn_sincos(x, true);
        case 11u: return burn_tanh(x);
        case 12u: return roundEven(x);
        case 13u: return floor(x);
        case 14u: return ceil(x);
        case 100u:
            return burn_min_nan(burn_max_nan(x, uintBitsToFloat(pc.p0)), uintBitsToFloat(pc.p1));
    }
    return x;
}
#else
ELEM apply(ELEM x) {
    switch (pc.op) {
        case 0u: return burn_ineg(x);
        case 1u: return burn_iabs(x);
        case 2u: return burn_isign(x);
        case 100u: {
#ifdef BURN_I64
            const ELEM lo = ELEM(pack64(uvec2(pc.p0, pc.p1)));
            const ELEM hi = ELEM(pack64(uvec2(pc.p2, pc.p3)));
#else
            const ELEM lo = ELEM(int(pc.p0));
            const ELEM hi = ELEM(int(pc.p1));
#endif
            return min(max(x, lo), hi);
        }
    }
    return x;
}
#endif

void main() {
#if defined(BURN_FLOAT)
    if (BURN_ITEMS == 4u && (pc.flags & 1u) != 0u) {
        const uint q = burn_flat_index(), e = 4u * q;
        if (e + 3u < pc.n) {
            const vec4 x = a4[q];
            out4[q] = vec4(apply(x.x), apply(x.y), apply(x.z), apply(x.w));
        } else {
            for (uint i = e; i < pc.n; ++i) out_[i] = apply(a[i]);
        }
        return;
    }
#endif
    // BURN_ITEMS elements per thread (index.glsl): every load first, then every store.
    ELEM x[BURN_ITEMS];
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i < pc.n) {
            x[t] = a[burn_operand_index(0u, i)];
        } else {
            x[t] = ELEM(0);
        }
    }
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i >= pc.n) return;
        out_[i] = apply(x[t]);
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = a[i] op b[i] (both read through TensorMetas broadcast to out's shape) or a[i] op s
// (flags bit 2: b is the scalar in p0 (i64: p0, p1)). Define ELEM and BURN_FLOAT, BURN_INT (with
// UELEM) or BURN_BOOL (ELEM uint) before including. Op codes: burn::vk::BinaryOp values; with
// BURN_COMPARE defined, burn::vk::CmpOp values and a bool (uint) output.
// Bindings: 0 metas [a, b], 1 a, 2 b, 3 out (may alias a dense a or b); integer arithmetic
// (BURN_INT without BURN_COMPARE) also 4 the error words (device_error.glsl): a division or
// remainder by zero gives 0 and is reported with op id pc.pad0.
layout(local_size_x_id = 0) in;
#define BURN_EW_ITEMS
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { ELEM b[]; };
#ifdef BURN_COMPARE
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint out_[]; };
#else
layout(std430, set = 0, binding = 3) writeonly buffer Out { ELEM out_[]; };
#if defined(BURN_FLOAT) && !defined(BURN_COMPARE)
// The same storage as vec4s, for dense f32 operands with 4 items per thread: one 16-byte load
// and store per thread (the buffers are 64-byte aligned and a dense operand is at offset 0).
layout(std430, set = 0, binding = 1) readonly buffer A4 { vec4 a4[]; };
layout(std430, set = 0, binding = 2) readonly buffer B4 { vec4 b4[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out4 { vec4 out4[]; };
#endif
#endif

#include "elementwise_common.glsl"
#ifdef BURN_INT
#include "elementwise_int.glsl"
#endif
#if defined(BURN_INT) && !defined(BURN_COMPARE)
#define BURN_ERROR_BINDING 4
#include "device_error.glsl"
#endif

ELEM scalar_operand() {
#if defined(BURN_FLOAT)
    return uintBitsToFloat(pc.p0);
#elif defined(BURN_I64)
    return ELEM(pack64(uvec2(pc.p0, pc.p1)));
#elif defined(BURN_BOOL)
    return pc.p0;
#else
    return ELEM(int(pc.p0));
#endif
}

#ifdef BURN_COMPARE
uint apply(ELEM x, ELEM y) {
    bool r = false;
    switch (pc.op) {
        case 0u: r = x == y; break;
        case 1u: r = x != y; break;
        case 2u: r = x > y; break;
        case 3u: r = x >= y; break;
        case 4u: r = x < y; break;
        case 5u: r = x <= y; break;
    }
    return r ? 1u : 0u;
}
#elif defined(BURN_FLOAT)
ELEM apply(ELEM x, ELEM y) {
    switch (pc.op) {
        case 0u: return x + y;
        case 1u: return x - y;
        case 2u: return x * y;
        case 3u: return x / y;
        case 4u: return burn_rem(x, y);
        case 5u: return burn_pow(x, y);
        case 6u: return burn_max_nan(x, y);
        case 7u: return burn_min_nan(x, y);
    }
    return x;
}
#elif defined(BURN_INT)
ELEM apply(ELEM x, ELEM y) {
    switch (pc.op) {
        case 0u: return x + y;
        case 1u: return x - y;
        case 2u: return x * y;
        case 3u:
            if (y == ELEM(0)) burn_report_error(BURN_ERROR_DIVISION_BY_ZERO, pc.pad0, 0, 0u, 0u);
            return burn_idiv(x, y);
        case 4u:
            if (y == ELEM(0)) burn_report_error(BURN_ERROR_REMAINDER_BY_ZERO, pc.pad0, 0, 0u, 0u);
            return burn_irem(x, y);
        case 5u: return burn_ipow(x, y);
        case 6u: return max(x, y);
        case 7u: return min(x, y);
    }
    return x;
}
#else
ELEM apply(ELEM x, ELEM y) {
    if (pc.op == 8u) return (x != 0u && y != 0u) ? 1u : 0u;
    return (x != 0u || y != 0u) ? 1u : 0u;
}
#endif

void main() {
#if defined(BURN_FLOAT) && !defined(BURN_COMPARE)
    // a dense, and b dense or the scalar (flags bit 2)
    if (BURN_ITEMS == 4u && (pc.flags & 1u) != 0u && (pc.flags & 6u) != 0u) {
        const bool scalar = (pc.flags & 4u) != 0u;
        const uint q = burn_flat_index(), e = 4u * q;
        if (e + 3u < pc.n) {
            const vec4 x = a4[q];
            const vec4 y = scalar ? vec4(scalar_operand()) : b4[q];
            out4[q] = vec4(apply(x.x, y.x), apply(x.y, y.y), apply(x.z, y.z), apply(x.w, y.w));
        } else {
            for (uint i = e; i < pc.n; ++i) out_[i] = apply(a[i], scalar ? scalar_operand() : b[i]);
        }
        return;
    }
#endif
    // BURN_ITEMS elements per thread (index.glsl): every load first, then every store.
    ELEM x[BURN_ITEMS];
    ELEM y[BURN_ITEMS];
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i < pc.n) {
            x[t] = a[burn_operand_index(0u, i)];
            y[t] = (pc.flags & 4u) != 0u ? scalar_operand() : b[burn_operand_index(1u, i)];
        } else {
            x[t] = ELEM(0);
            y[t] = ELEM(0);
        }
    }
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i >= pc.n) return;
        out_[i] = apply(x[t], y[t]);
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = act(x[i]) for f32 tensors (x read through its TensorMeta). Op codes: burn::vk::
// Activation values (0 relu, 1 gelu, 2 sigmoid, 3 log_sigmoid, 4 hard_sigmoid with p0 alpha,
// p1 beta, 5 leaky_relu with p0 slope; floats as bits). Every formula is the CPU backend's.
// Bindings: 0 metas [x], 1 x, 2 out (may alias a dense x).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#define BURN_EW_ITEMS
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float out_[]; };
// The same storage as vec4s, for dense f32 operands with 4 items per thread: one 16-byte load
// and store per thread (the buffers are 64-byte aligned and a dense operand is at offset 0).
layout(std430, set = 0, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out4 { vec4 out4[]; };

#include "elementwise_common.glsl"
#include "activation_math.glsl"

float apply(float x) {
    const float alpha = uintBitsToFloat(pc.p0), beta = uintBitsToFloat(pc.p1);
    switch (pc.op) {
        case 0u: return burn_relu(x);
        case 1u: return burn_gelu(x);
        case 2u: return burn_sigmoid(x);
        case 3u: return burn_log_sigmoid(x);
        case 4u: return burn_hard_sigmoid(x, alpha, beta);
        case 5u: return burn_leaky_relu(x, alpha);
    }
    return x;
}

void main() {
    if (BURN_ITEMS == 4u && (pc.flags & 1u) != 0u) {
        const uint q = burn_flat_index(), e = 4u * q;
        if (e + 3u < pc.n) {
            const vec4 x = x4[q];
            out4[q] = vec4(apply(x.x), apply(x.y), apply(x.z), apply(x.w));
        } else {
            for (uint i = e; i < pc.n; ++i) out_[i] = apply(x_[i]);
        }
        return;
    }
    // BURN_ITEMS elements per thread (index.glsl): every load first, then every store.
    float x[BURN_ITEMS];
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i < pc.n) {
            x[t] = x_[burn_operand_index(0u, i)];
        } else {
            x[t] = float(0);
        }
    }
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i >= pc.n) return;
        out_[i] = apply(x[t]);
    }
}

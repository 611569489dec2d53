// SPDX-License-Identifier: MIT OR Apache-2.0
// Activation gradients for f32: out[i] = d(saved[i], grad[i]). Op codes: burn::vk::Activation
// values: 0 relu (saved = output), 1 gelu (saved = input), 2 sigmoid (saved = output),
// 3 log_sigmoid (saved = input). Bindings: 0 metas [saved, grad], 1 saved, 2 grad, 3 out (may
// alias a dense saved or grad).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#define BURN_EW_ITEMS
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer S { float saved[]; };
layout(std430, set = 0, binding = 2) readonly buffer G { float grad[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float out_[]; };

#include "elementwise_common.glsl"
#include "activation_math.glsl"

float apply(float s, float g) {
    switch (pc.op) {
        case 0u: return burn_relu_backward(s, g);
        case 1u: return burn_gelu_backward(s, g);
        case 2u: return burn_sigmoid_backward(s, g);
        case 3u: return burn_log_sigmoid_backward(s, g);
    }
    return g;
}

void main() {
    // BURN_ITEMS elements per thread (index.glsl): every load first, then every store.
    float s[BURN_ITEMS];
    float g[BURN_ITEMS];
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i < pc.n) {
            s[t] = saved[burn_operand_index(0u, i)];
            g[t] = grad[burn_operand_index(1u, i)];
        } else {
            s[t] = float(0);
            g[t] = float(0);
        }
    }
    for (uint t = 0u; t < BURN_ITEMS; ++t) {
        const uint i = burn_item_index(t);
        if (i >= pc.n) return;
        out_[i] = apply(s[t], g[t]);
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// out[i] = act(x[i]) for f32 tensors (x read through its TensorMeta). Op codes: burn::vk::
// Activation values (0 relu, 1 gelu, 2 sigmoid, 3 log_sigmoid, 4 hard_sigmoid with p0 alpha,
// p1 beta, 5 leaky_relu with p0 slope; floats as bits). Every formula is the CPU backend's.
// Bindings: 0 metas [x], 1 x, 2 out (may alias a dense x).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float out_[]; };

#include "elementwise_common.glsl"
#include "activation_math.glsl"

float apply(float x) {
    const float alpha = uintBitsToFloat(pc.p0), beta = uintBitsToFloat(pc.p1);
    switch (pc.op) {
        case 0u: return x < 0.0 ? 0.0 : x;
        case 1u: return burn_gelu(x);
        case 2u: return burn_sigmoid(x);
        case 3u: return burn_log_sigmoid(x);
        case 4u: return burn_min_nan(burn_max_nan(alpha * x + beta, 0.0), 1.0);
        case 5u: return x > 0.0 ? x : x * alpha;
    }
    return x;
}

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    out_[i] = apply(x_[burn_operand_index(0u, i)]);
}

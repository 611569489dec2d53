// SPDX-License-Identifier: MIT OR Apache-2.0
// int8 quantization of dense f32 values: q = clamp(roundEven(x * inv_scale) + offset, -128, 127)
// (saturated to +-512 first, NaN -> offset), packed 4 per 32-bit word (element i in byte i % 4
// of word i / 4). Invocation w writes word w. Element i uses range (i / inner) % channels.
// Specialization constant 0: workgroup size (x). Push constants: { uint n; uint words;
// uint inner; uint channels; }. Bindings: 0 x (f32), 1 params (channels f32 inverse scales as
// bits, then channels i32 offsets), 2 q (words).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Params { uint params[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Q { uint q[]; };
layout(push_constant) uniform Push {
    uint n;
    uint words;
    uint inner;
    uint channels;
} pc;

uint quantize_one(uint i) {
    if (i >= pc.n) return 0u;
    const uint c = (i / pc.inner) % pc.channels;
    const float inv = uintBitsToFloat(params[c]);
    const int offset = int(params[pc.channels + c]);
    float y = x[i] * inv;
    y = isnan(y) ? 0.0 : clamp(y, -512.0, 512.0);
    const int v = clamp(int(roundEven(y)) + offset, -128, 127);
    return uint(v) & 0xFFu;
}

void main() {
    const uint w = burn_flat_index();
    if (w >= pc.words) return;
    const uint i = 4u * w;
    q[w] = quantize_one(i) | (quantize_one(i + 1u) << 8) | (quantize_one(i + 2u) << 16) |
           (quantize_one(i + 3u) << 24);
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// int8 dequantization: x = float(q - offset) * scale, q packed 4 per word (element i in byte
// i % 4 of word i / 4); element i uses range (i / inner) % channels. Specialization constant 0:
// workgroup size (x). Push constants: { uint n; uint inner; uint channels; }. Bindings: 0 q
// (words), 1 params (channels f32 scales as bits, then channels i32 offsets), 2 x (f32).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Q { uint q[]; };
layout(std430, set = 0, binding = 1) readonly buffer Params { uint params[]; };
layout(std430, set = 0, binding = 2) writeonly buffer X { float x[]; };
layout(push_constant) uniform Push {
    uint n;
    uint inner;
    uint channels;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    const uint c = (i / pc.inner) % pc.channels;
    const int v = bitfieldExtract(int(q[i >> 2]), int(8u * (i & 3u)), 8);
    x[i] = float(v - int(params[pc.channels + c])) * uintBitsToFloat(params[c]);
}

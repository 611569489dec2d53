// SPDX-License-Identifier: MIT OR Apache-2.0
// f32 -> bf16: word j of the dense bf16 output holds elements 2j and 2j + 1 (row-major) of the f32
// view metas[0], rounded to nearest even (layout_half.glsl); one invocation per word, so that no
// two invocations write the same word.
// Specialization constant 0: workgroup size (x). Push constants: { uint n; } (elements).
// Bindings: 0 metas, 1 src, 2 dst (words).
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "layout_half.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { float src[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push {
    uint n;
} pc;

void main() {
    const uint j = burn_flat_index();
    const uint i = 2u * j;
    if (i >= pc.n) return;
    uint w = burn_f32_to_half(src[burn_strided_index(metas[0], i)]);
    if (i + 1u < pc.n) w |= burn_f32_to_half(src[burn_strided_index(metas[0], i + 1u)]) << 16;
    dst[j] = w;
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// f16 -> f32: dst[i] (dense) = the value of element i (row-major) of the f16 view metas[0], whose
// elements are stored two to a word (layout_half.glsl).
// Specialization constant 0: workgroup size (x). Push constants: { uint n; }.
// Bindings: 0 metas, 1 src (words), 2 dst.
#version 450
#extension GL_GOOGLE_include_directive : require
#define BURN_HALF_F16
layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "layout_half.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Dst { float dst[]; };
layout(push_constant) uniform Push {
    uint n;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    const uint s = burn_strided_index(metas[0], i);
    dst[i] = burn_half_to_f32((src[s >> 1] >> ((s & 1u) * 16u)) & 0xffffu);
}

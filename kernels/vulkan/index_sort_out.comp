// SPDX-License-Identifier: MIT OR Apache-2.0
// Sort, last pass: values (copied word by word from the input through the sorted indices) and
// indices (32- or 64-bit) of every lane, written contiguously in the input's shape.
// Specialization constant 0: workgroup size. Push: { dim, n, lanes, p, inner, words, idx64,
// want_values }. Bindings: 0 metas[1] (input), 1 input words, 2 sorted indices, 3 values out
// (words), 4 indices out (words).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "tensor_meta.glsl"
#include "reduce_lane.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { uint in_[]; };
layout(std430, set = 0, binding = 2) readonly buffer Sorted { uint sorted_[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Vals { uint vals[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Idx { uint idx[]; };
layout(push_constant) uniform Push {
    uint dim;
    uint n;
    uint lanes;
    uint p;
    uint inner;
    uint words;
    uint idx64;
    uint want_values;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.lanes * pc.n) return;
    const uint lane = i / pc.n, k = i % pc.n;
    const uint src = sorted_[lane * pc.p + k];
    const uint o = (lane / pc.inner) * pc.n * pc.inner + k * pc.inner + lane % pc.inner;
    if (pc.want_values != 0u) {
        const TensorMeta m = metas[0];
        const int e = burn_lane_base(m, pc.dim, lane) + int(src) * m.strides[pc.dim];
        for (uint w = 0u; w < pc.words; ++w) vals[o * pc.words + w] = in_[uint(e) * pc.words + w];
    }
    if (pc.idx64 != 0u) {
        idx[2u * o] = src;
        idx[2u * o + 1u] = 0u;
    } else {
        idx[o] = src;
    }
}

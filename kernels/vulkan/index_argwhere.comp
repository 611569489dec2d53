// SPDX-License-Identifier: MIT OR Apache-2.0
// argwhere in two passes over blocks of `block` row-major elements (one invocation per block,
// sequential inside it, so the output keeps row-major order). Pass 0 writes each block's count of
// non-zero elements; the host turns the counts into exclusive offsets (it needs the total for the
// output shape anyway); pass 1 writes the coordinates of each block's hits from its offset.
// An element is non-zero when any of its `words` 32-bit words is (bool and int storage).
// Specialization constant 0: workgroup size. Push: { n, block, blocks, pass, words, idx64 }.
// Bindings: 0 metas[1] (input), 1 input words, 2 counts / offsets, 3 output words ([hits, rank]).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { uint in_[]; };
layout(std430, set = 0, binding = 2) buffer Counts { uint counts[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint out_[]; };
layout(push_constant) uniform Push {
    uint n;
    uint block;
    uint blocks;
    uint pass_;
    uint words;
    uint idx64;
} pc;

bool nonzero(TensorMeta m, uint f) {
    const uint e = burn_strided_index(m, f);
    bool nz = false;
    for (uint w = 0u; w < pc.words; ++w) nz = nz || in_[e * pc.words + w] != 0u;
    return nz;
}

void main() {
    const uint b = burn_flat_index();
    if (b >= pc.blocks) return;
    const TensorMeta m = metas[0];
    const uint begin = b * pc.block, end = min(pc.n, begin + pc.block);
    if (pc.pass_ == 0u) {
        uint c = 0u;
        for (uint f = begin; f < end; ++f) c += nonzero(m, f) ? 1u : 0u;
        counts[b] = c;
        return;
    }
    uint row = counts[b];
    const uint rank = m.rank;
    for (uint f = begin; f < end; ++f) {
        if (!nonzero(m, f)) continue;
        uint rem = f;
        for (int d = int(rank) - 1; d >= 0; --d) {
            const uint c = rem % m.shape[d];
            rem /= m.shape[d];
            const uint at = row * rank + uint(d);
            if (pc.idx64 != 0u) {
                out_[2u * at] = c;
                out_[2u * at + 1u] = 0u;
            } else {
                out_[at] = c;
            }
        }
        ++row;
    }
}

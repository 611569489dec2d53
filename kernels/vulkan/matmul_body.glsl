// SPDX-License-Identifier: MIT OR Apache-2.0
// Batched, broadcast, strided C[z] = A[z] * B[z] (burn::vk::matmul, ops_matmul.cpp) on the tiled
// loop of matmul_tile.glsl. Included by matmul_<dtype>.comp after #define ELEM (element type)
// and MAC(acc, a, b) (acc += a * b).
// Bindings: 0 a, 1 b, 2 c (dense [batch, m, n]), 3 metas {A as [batch..., m, k], B as
// [batch..., k, n]} (TensorMeta, broadcast batch dims have stride 0).
// Push constants: { uint m, n, k, batch_base; }. Groups: (ceil(n / BN), ceil(m / BM), batches);
// batch z = batch_base + gl_WorkGroupID.z. Tile sizes: specialization constants 0-5 (see
// matmul_tile.glsl).
#extension GL_GOOGLE_include_directive : require
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { ELEM b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { ELEM c[]; };
layout(std430, set = 0, binding = 3) readonly buffer Metas { TensorMeta metas[]; };
layout(push_constant) uniform Push {
    uint m;
    uint n;
    uint k;
    uint batch_base;
} pc;

#define MM_M pc.m
#define MM_N pc.n
#define MM_K pc.k
#define MM_Z (pc.batch_base + gl_WorkGroupID.z)

int offa, offb, ars, acs, brs, bcs;
uint cbase;

void mm_setup(uint z) {
    // Batch offsets of A and B (dims 0 .. rank-3 of the broadcast metas).
    const uint rank = metas[0].rank;
    offa = metas[0].offset;
    offb = metas[1].offset;
    uint rem = z;
    for (int d = int(rank) - 3; d >= 0; --d) {
        const uint e = metas[0].shape[d];
        const uint coord = rem % e;
        rem /= e;
        offa += int(coord) * metas[0].strides[d];
        offb += int(coord) * metas[1].strides[d];
    }
    ars = metas[0].strides[rank - 2];
    acs = metas[0].strides[rank - 1];
    brs = metas[1].strides[rank - 2];
    bcs = metas[1].strides[rank - 1];
    cbase = z * pc.m * pc.n;
}

ELEM mm_load_a(uint row, uint k) { return a[uint(offa + int(row) * ars + int(k) * acs)]; }
ELEM mm_load_b(uint k, uint col) { return b[uint(offb + int(k) * brs + int(col) * bcs)]; }
void mm_store(uint row, uint col, ELEM v) { c[cbase + row * pc.n + col] = v; }

#include "matmul_tile.glsl"

void main() { mm_main(); }

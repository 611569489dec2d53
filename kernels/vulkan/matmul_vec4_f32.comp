// SPDX-License-Identifier: MIT OR Apache-2.0
// The fast path of f32 matmul (ops_matmul.cpp) for operands whose rows (or columns) are dense
// and 16-byte aligned: C[z] (m x n, dense) = A[z] (m x k) * B[z] (k x n).
//
// Each operand is either "row-major" (unit stride along its last dim) or "transposed" (unit
// stride along its first dim: a transpose view, as in x^T * dy or x * W^T); the two cases are
// specialization constants, so every global load is a vec4 along the contiguous dim. The host
// (matmul) guarantees: m, n, k multiples of 4, the non-unit strides and every offset multiples
// of 4 (elements), so that no vec4 straddles a row or the end of a matrix.
//
// One workgroup computes a BM x BN block of C with (BM / 8) * (BN / 8) threads, each an 8 x 8
// register tile made of 2 x 2 vec4 blocks: rows 4 * ty + {0..3} and 4 * (ty + BM / 8) + {0..3},
// columns likewise, so that neighbouring threads read neighbouring vec4s of shared memory. The
// k loop steps BK at a time through two shared-memory buffers: the next tile is loaded from
// global memory into registers while the current one is multiplied, then stored into the other
// buffer (one barrier per step). Every loop but the k loop is unrolled ([[unroll]]), so that
// the accumulators stay in registers.
//
// Bindings: 0 a (vec4), 1 b (vec4), 2 c (vec4, dense [batch, m, n]), 3 metas {A as
// [batch..., m, k], B as [batch..., k, n]} (TensorMeta; broadcast batch dims have stride 0).
// Push constants: { uint m, n, k, batch_base; }. Groups: (ceil(n / BN), ceil(m / BM), batches).
// Specialization constants: 0 workgroup size (= BM * BN / 64), 1 BM, 2 BN, 3 BK (BM * BK and
// BN * BK multiples of 4 * workgroup size), 4 A transposed (0/1), 5 B transposed (0/1).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "tensor_meta.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BM = 128;
layout(constant_id = 2) const uint BN = 128;
layout(constant_id = 3) const uint BK = 16;
layout(constant_id = 4) const uint TRANS_A = 0;
layout(constant_id = 5) const uint TRANS_B = 0;

layout(std430, set = 0, binding = 0) readonly buffer A { vec4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { vec4 b4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { vec4 c4[]; };
layout(std430, set = 0, binding = 3) readonly buffer Metas { TensorMeta metas[]; };
layout(push_constant) uniform Push {
    uint m;
    uint n;
    uint k;
    uint batch_base;
} pc;

const uint RT = BM / 8;  // threads along m
const uint CT = BN / 8;  // threads along n
const uint WG = RT * CT;
const uint BM4 = BM / 4, BN4 = BN / 4, BK4 = BK / 4;
const uint LA = BM * BK / 4 / WG;  // vec4 loads of the A tile per thread
const uint LB = BN * BK / 4 / WG;

// [buffer][kk][m / 4] and [buffer][kk][n / 4]
shared vec4 As[2 * BK * BM4];
shared vec4 Bs[2 * BK * BN4];

uint offa, offb, lda, ldb;  // in vec4 units

void setup(uint z) {
    const uint rank = metas[0].rank;
    int oa = metas[0].offset, ob = metas[1].offset;
    uint rem = z;
    for (int d = int(rank) - 3; d >= 0; --d) {
        const uint e = metas[0].shape[d];
        const uint coord = rem % e;
        rem /= e;
        oa += int(coord) * metas[0].strides[d];
        ob += int(coord) * metas[1].strides[d];
    }
    offa = uint(oa) / 4u;
    offb = uint(ob) / 4u;
    lda = uint(TRANS_A != 0u ? metas[0].strides[rank - 1] : metas[0].strides[rank - 2]) / 4u;
    ldb = uint(TRANS_B != 0u ? metas[1].strides[rank - 1] : metas[1].strides[rank - 2]) / 4u;
}

// The i-th vec4 of the A (B) tile at k0 owned by thread lid, zero outside the matrix.
vec4 load_a(uint lid, uint i, uint row0, uint k0) {
    const uint v = lid + i * WG;
    if (TRANS_A == 0u) {
        const uint r = v / BK4, kq = v % BK4;
        const uint gr = row0 + r, gk = k0 + 4u * kq;
        return (gr < pc.m && gk < pc.k) ? a4[offa + gr * lda + gk / 4u] : vec4(0);
    }
    const uint kk = v / BM4, mq = v % BM4;
    const uint gk = k0 + kk, gr = row0 + 4u * mq;
    return (gr < pc.m && gk < pc.k) ? a4[offa + gk * lda + gr / 4u] : vec4(0);
}

vec4 load_b(uint lid, uint i, uint col0, uint k0) {
    const uint v = lid + i * WG;
    if (TRANS_B == 0u) {
        const uint kk = v / BN4, nq = v % BN4;
        const uint gk = k0 + kk, gc = col0 + 4u * nq;
        return (gc < pc.n && gk < pc.k) ? b4[offb + gk * ldb + gc / 4u] : vec4(0);
    }
    const uint c = v / BK4, kq = v % BK4;
    const uint gc = col0 + c, gk = k0 + 4u * kq;
    return (gc < pc.n && gk < pc.k) ? b4[offb + gc * ldb + gk / 4u] : vec4(0);
}

void store_a(uint buf, uint lid, uint i, vec4 x) {
    const uint v = lid + i * WG;
    const uint base = buf * BK * BM4;
    if (TRANS_A == 0u) {
        const uint r = v / BK4, kq = v % BK4;
        const uint slot = base + r / 4u, comp = r % 4u;
        As[slot + (4u * kq + 0u) * BM4][comp] = x.x;
        As[slot + (4u * kq + 1u) * BM4][comp] = x.y;
        As[slot + (4u * kq + 2u) * BM4][comp] = x.z;
        As[slot + (4u * kq + 3u) * BM4][comp] = x.w;
    } else {
        As[base + (v / BM4) * BM4 + v % BM4] = x;
    }
}

void store_b(uint buf, uint lid, uint i, vec4 x) {
    const uint v = lid + i * WG;
    const uint base = buf * BK * BN4;
    if (TRANS_B == 0u) {
        Bs[base + (v / BN4) * BN4 + v % BN4] = x;
    } else {
        const uint c = v / BK4, kq = v % BK4;
        const uint slot = base + c / 4u, comp = c % 4u;
        Bs[slot + (4u * kq + 0u) * BN4][comp] = x.x;
        Bs[slot + (4u * kq + 1u) * BN4][comp] = x.y;
        Bs[slot + (4u * kq + 2u) * BN4][comp] = x.z;
        Bs[slot + (4u * kq + 3u) * BN4][comp] = x.w;
    }
}

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint tx = lid % CT, ty = lid / CT;
    const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    const uint z = pc.batch_base + gl_WorkGroupID.z;
    setup(z);

    vec4 acc[8][2];
    [[unroll]] for (uint i = 0; i < 8; ++i) {
        acc[i][0] = vec4(0);
        acc[i][1] = vec4(0);
    }
    vec4 ga[LA], gb[LB];

    const uint tiles = (pc.k + BK - 1) / BK;
    [[unroll]] for (uint i = 0; i < LA; ++i) store_a(0, lid, i, load_a(lid, i, row0, 0));
    [[unroll]] for (uint i = 0; i < LB; ++i) store_b(0, lid, i, load_b(lid, i, col0, 0));
    barrier();

    for (uint t = 0; t < tiles; ++t) {
        const uint cur = t & 1u;
        const bool more = t + 1 < tiles;
        if (more) {
            const uint k0 = (t + 1) * BK;
            [[unroll]] for (uint i = 0; i < LA; ++i) ga[i] = load_a(lid, i, row0, k0);
            [[unroll]] for (uint i = 0; i < LB; ++i) gb[i] = load_b(lid, i, col0, k0);
        }
        const uint abase = cur * BK * BM4, bbase = cur * BK * BN4;
        [[unroll]] for (uint kk = 0; kk < BK; ++kk) {
            const vec4 a0 = As[abase + kk * BM4 + ty];
            const vec4 a1 = As[abase + kk * BM4 + ty + RT];
            const vec4 b0 = Bs[bbase + kk * BN4 + tx];
            const vec4 b1 = Bs[bbase + kk * BN4 + tx + CT];
            [[unroll]] for (uint i = 0; i < 4; ++i) {
                acc[i][0] = fma(vec4(a0[i]), b0, acc[i][0]);
                acc[i][1] = fma(vec4(a0[i]), b1, acc[i][1]);
                acc[i + 4][0] = fma(vec4(a1[i]), b0, acc[i + 4][0]);
                acc[i + 4][1] = fma(vec4(a1[i]), b1, acc[i + 4][1]);
            }
        }
        if (more) {
            [[unroll]] for (uint i = 0; i < LA; ++i) store_a(cur ^ 1u, lid, i, ga[i]);
            [[unroll]] for (uint i = 0; i < LB; ++i) store_b(cur ^ 1u, lid, i, gb[i]);
        }
        barrier();
    }

    const uint n4 = pc.n / 4u;
    const uint cbase = z * pc.m * n4;
    [[unroll]] for (uint i = 0; i < 8; ++i) {
        const uint gr = row0 + 4u * (ty + (i / 4u) * RT) + i % 4u;
        if (gr >= pc.m) continue;
        [[unroll]] for (uint j = 0; j < 2; ++j) {
            const uint gq = col0 / 4u + tx + j * CT;
            if (gq < n4) c4[cbase + gr * n4 + gq] = acc[i][j];
        }
    }
}

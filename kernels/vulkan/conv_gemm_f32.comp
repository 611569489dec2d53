// SPDX-License-Identifier: MIT OR Apache-2.0
// Convolutions as implicit GEMMs on matmul's tiled loop (matmul_tile.glsl): the im2col panel is
// never stored, its elements are gathered in the B-tile (or A-tile) loads. Geometry and views as
// in conv_common.glsl (input [B, Cin, I...], weight [Cout, Cin/G, K...], output [B, Cout, O...];
// cg = Cin/G, og = Cout/G, KK = K0*K1*K2, L = O0*O1*O2, IL = I0*I1*I2). Specialization constant 6
// (MODE) selects the product:
//   0 forward      z = b*G + g: out[b, g*og + m, l] = bias + sum_{(c,k)} w[g*og + m, c, k] x[b, g*cg + c, l*s - p + k*d]
//                  (M = og, N = L, K = cg*KK; views T0 x, T1 w, T2 bias when P_FLAG)
//   1 input grad   z = b*G + g: in[b, g*cg + c, i] = sum_{(o,k)} w[g*og + o, c, k] grad[b, g*og + o, (i + p - k*d)/s]
//                  (M = cg, N = IL, K = og*KK, the term only where the division is exact and
//                  inside O; views T0 grad, T1 w)
//   2 weight grad  z = g*splits + s: w'[s][g*og + o, (c,k)] = sum_{(b,l) in chunk s} grad[b, g*og + o, l]
//                  x[b, g*cg + c, l*s - p + k*d] (M = og, N = cg*KK, K = B*L cut into `splits`
//                  chunks of `chunk` (a multiple of BK); partial s written at s * Cout*cg*KK, the
//                  host adds the partials; views T0 x, T1 grad)
// Bindings: 0 first operand buffer (x, or grad in mode 1), 1 second (w, or grad in mode 2),
// 2 bias (any buffer unless mode 0 with P_FLAG), 3 out (dense), 4 params (conv_common.glsl).
// Push constants: { uint z_base, splits, chunk; } (workgroup z = z_base + gl_WorkGroupID.z;
// splits and chunk: mode 2 only).
// Tile sizes: specialization constants 0-5 (matmul_tile.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define ELEM float
#define MAC(acc, x, y) acc = fma(x, y, acc)

layout(constant_id = 6) const int MODE = 0;

layout(std430, set = 0, binding = 0) readonly buffer Op0 { float op0[]; };
layout(std430, set = 0, binding = 1) readonly buffer Op1 { float op1[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 4) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push {
    uint z_base;
    uint splits;
    uint chunk;
} pc;
#include "conv_common.glsl"

int G_, CG, OG, KK, L, IL, zb, zg, zs;

#define MM_M uint(MODE == 1 ? CG : OG)
#define MM_N uint(MODE == 0 ? L : MODE == 1 ? IL : CG * KK)
#define MM_K uint(MODE == 0 ? CG * KK : MODE == 1 ? OG * KK : P[P_BATCH] * L)
#define MM_Z (pc.z_base + gl_WorkGroupID.z)
#define MM_K_BEGIN (MODE == 2 ? uint(zs) * pc.chunk : 0u)
#define MM_K_END (MODE == 2 ? min(MM_K, uint(zs + 1) * pc.chunk) : MM_K)

void mm_setup(uint z) {
    G_ = P[P_GROUPS];
    CG = P[P_CIN] / G_;
    OG = P[P_COUT] / G_;
    KK = P[P_K] * P[P_K + 1] * P[P_K + 2];
    L = P[P_OUT] * P[P_OUT + 1] * P[P_OUT + 2];
    IL = P[P_IN] * P[P_IN + 1] * P[P_IN + 2];
    zs = 0;
    if (MODE == 2) {
        zb = 0;
        zg = int(z) / int(pc.splits);
        zs = int(z) - zg * int(pc.splits);
    } else {
        zb = int(z) / G_;
        zg = int(z) - zb * G_;
    }
}

// Kernel tap k -> (k0, k1, k2).
ivec3 ktap(int k) {
    const int k2 = k % P[P_K + 2];
    const int r = k / P[P_K + 2];
    return ivec3(r / P[P_K + 1], r % P[P_K + 1], k2);
}
// Flat spatial position -> (s0, s1, s2) for extents at params index e.
ivec3 spos(int l, int e) {
    const int s2 = l % P[e + 2];
    const int r = l / P[e + 2];
    return ivec3(r / P[e + 1], r % P[e + 1], s2);
}

// The input element read by output position l and tap k of channel ci (0 in the padding).
float x_tap(int b, int ci, int l, int k) {
    const ivec3 o = spos(l, P_OUT), kt = ktap(k);
    const ivec3 s = ivec3(P[P_S], P[P_S + 1], P[P_S + 2]);
    const ivec3 p = ivec3(P[P_P], P[P_P + 1], P[P_P + 2]);
    const ivec3 d = ivec3(P[P_D], P[P_D + 1], P[P_D + 2]);
    const ivec3 i = o * s - p + kt * d;
    if (any(lessThan(i, ivec3(0))) || i.x >= P[P_IN] || i.y >= P[P_IN + 1] || i.z >= P[P_IN + 2]) return 0.0;
    return op0[view_index(P_T0, b, ci, i.x, i.y, i.z)];
}

float mm_load_a(uint row, uint k) {
    const int r = int(row), q = int(k);
    if (MODE == 0) {  // w[g*og + r, c, tap]
        const int c = q / KK;
        const ivec3 kt = ktap(q - c * KK);
        return op1[view_index(P_T1, zg * OG + r, c, kt.x, kt.y, kt.z)];
    }
    if (MODE == 1) {  // w[g*og + o, c = r, tap], q = (o, tap)
        const int o = q / KK;
        const ivec3 kt = ktap(q - o * KK);
        return op1[view_index(P_T1, zg * OG + o, r, kt.x, kt.y, kt.z)];
    }
    // MODE 2: grad[b, g*og + r, l], q = (b, l)
    const int b = q / L, l = q - (q / L) * L;
    const ivec3 o = spos(l, P_OUT);
    return op1[view_index(P_T1, b, zg * OG + r, o.x, o.y, o.z)];
}

float mm_load_b(uint k, uint col) {
    const int q = int(k), n = int(col);
    if (MODE == 0) {  // x tap of (c, tap) = q at output position n
        const int c = q / KK;
        return x_tap(zb, zg * CG + c, n, q - c * KK);
    }
    if (MODE == 1) {  // grad[b, g*og + o, t] with t*s = i + p - tap*d, q = (o, tap), i = n
        const int o = q / KK;
        const ivec3 kt = ktap(q - o * KK), i = spos(n, P_IN);
        const ivec3 s = ivec3(P[P_S], P[P_S + 1], P[P_S + 2]);
        const ivec3 t = i + ivec3(P[P_P], P[P_P + 1], P[P_P + 2]) - kt * ivec3(P[P_D], P[P_D + 1], P[P_D + 2]);
        if (any(lessThan(t, ivec3(0)))) return 0.0;
        const ivec3 tq = t / s;
        if (any(notEqual(tq * s, t)) || tq.x >= P[P_OUT] || tq.y >= P[P_OUT + 1] || tq.z >= P[P_OUT + 2]) return 0.0;
        return op0[view_index(P_T0, zb, zg * OG + o, tq.x, tq.y, tq.z)];
    }
    // MODE 2: x tap of (c, tap) = n at (b, l) = q
    const int b = q / L, l = q - (q / L) * L;
    const int c = n / KK;
    return x_tap(b, zg * CG + c, l, n - c * KK);
}

void mm_store(uint row, uint col, float v) {
    const int r = int(row), n = int(col);
    if (MODE == 0) {
        const int o = zg * OG + r;
        if (P[P_FLAG] != 0) v += bias[P[P_T2] + o * P[P_T2 + 1]];
        outv[(zb * P[P_COUT] + o) * L + n] = v;
    } else if (MODE == 1) {
        outv[(zb * P[P_CIN] + zg * CG + r) * IL + n] = v;
    } else {
        outv[zs * P[P_COUT] * CG * KK + (zg * OG + r) * (CG * KK) + n] = v;
    }
}

#include "matmul_tile.glsl"

void main() { mm_main(); }

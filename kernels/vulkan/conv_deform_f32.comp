// SPDX-License-Identifier: MIT OR Apache-2.0
// Deformable 2-d convolution (torchvision.ops.deform_conv2d semantics, as the CPU backend's
// deform_conv.cpp), in steps selected by specialization constant 1 (MODE):
//   0 im2col    cols[b, c*KK + k, p] = sum_t m * bilinear_t * x[b, c, tap_t]     (per element)
//   1 forward   out[b, o, p] = bias[o] + sum_q w[o, q] cols[b, g*K + q, p]        (per element)
//   2 col grad  cg[b, c*KK + k, p] = sum_o w[g*M + o, q] grad[b, g*M + o, p]      (per element)
//   3 coords    offset / mask gradients per (b, offset group, k, p)
//   4 x grad    x_grad[b, c, tap_t] += m * bilinear_t * cg[b, c*KK + k, p]          (atomic adds)
//   5 w grad    w_grad[o, q] = sum_{b, p} grad[b, o, p] cols[b, g*K + q, p] (a workgroup per
//               weight element, tree reduction; workgroup size a power of two <= 256)
// (KK = KH*KW, L = OH*OW, K = Cin/G*KK, M = Cout/G, g the weight group of o or c.)
// Spec 0: workgroup size. Bindings: 0 x, 1 offset, 2 mask, 3 w, 4 grad, 5 bias, 6 cols (dense
// [B, Cin*KK, L]), 7 out A (mode 1 out, 2 cg, 3 offset grad, 4 x grad, 5 w grad), 8 out B (mode
// 3 mask grad), 9 cg (modes 3, 4), 10 params (ints below; views of 5 ints {offset, s0..s3}).
// Unused bindings take any buffer. Push constants: a dummy uint.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int MODE = 0;
#include "index.glsl"

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Off { float offv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Mask { float maskv[]; };
layout(std430, set = 0, binding = 3) readonly buffer Wt { float wv[]; };
layout(std430, set = 0, binding = 4) readonly buffer G { float gv[]; };
layout(std430, set = 0, binding = 5) readonly buffer Bias { float biasv[]; };
layout(std430, set = 0, binding = 6) buffer Cols { float cols[]; };
layout(std430, set = 0, binding = 7) buffer OutA { uint outa[]; };
layout(std430, set = 0, binding = 8) buffer OutB { uint outb[]; };
layout(std430, set = 0, binding = 9) readonly buffer CG { float cgv[]; };
layout(std430, set = 0, binding = 10) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push { uint unused; } pc;

#define B_ P[0]
#define CIN P[1]
#define H P[2]
#define W P[3]
#define COUT P[4]
#define KH P[5]
#define KW P[6]
#define OH P[7]
#define OW P[8]
#define WG P[9]
#define OG P[10]
#define TOTAL P[17]
#define HAS_MASK (P[18] != 0)
#define HAS_BIAS (P[19] != 0)
#define V_X 20
#define V_OFF 25
#define V_MASK 30
#define V_W 35
#define V_G 40
#define V_BIAS 45

int at4(int v, int i0, int i1, int i2, int i3) {
    return P[v] + i0 * P[v + 1] + i1 * P[v + 2] + i2 * P[v + 3] + i3 * P[v + 4];
}

// The sampling point of (b, offset group og, kernel tap k, output pixel p): 4 bilinear taps.
struct Sample {
    int idx[4];
    bool valid[4];
    float val[4], dy[4], dx[4];
    float m;
};

Sample sample_at(int b, int og, int k, int p) {
    Sample s;
    const int KK = KH * KW;
    const int i = k / KW, j = k - (k / KW) * KW;
    const int oy = p / OW, ox = p - (p / OW) * OW;
    const float by = float(oy * P[11] - P[13] + i * P[15]);
    const float bx = float(ox * P[12] - P[14] + j * P[16]);
    const float y = by + offv[at4(V_OFF, b, og * 2 * KK + 2 * k, oy, ox)];
    const float xx = bx + offv[at4(V_OFF, b, og * 2 * KK + 2 * k + 1, oy, ox)];
    s.m = HAS_MASK ? maskv[at4(V_MASK, b, og * KK + k, oy, ox)] : 1.0;
    for (int t = 0; t < 4; ++t) {
        s.valid[t] = false;
        s.idx[t] = 0;
        s.val[t] = 0.0;
        s.dy[t] = 0.0;
        s.dx[t] = 0.0;
    }
    if (!(y >= -1.0 && y <= float(H) && xx >= -1.0 && xx <= float(W))) return s;
    const float yf = floor(y), xf = floor(xx);
    const int y0 = int(yf), x0 = int(xf);
    const float ly = y - yf, lx = xx - xf, hy = 1.0 - ly, hx = 1.0 - lx;
    const bool vy0 = y0 >= 0 && y0 < H, vy1 = y0 + 1 >= 0 && y0 + 1 < H;
    const bool vx0 = x0 >= 0 && x0 < W, vx1 = x0 + 1 >= 0 && x0 + 1 < W;
    s.valid[0] = vy0 && vx0;
    s.valid[1] = vy0 && vx1;
    s.valid[2] = vy1 && vx0;
    s.valid[3] = vy1 && vx1;
    s.idx[0] = y0 * W + x0;
    s.idx[1] = y0 * W + x0 + 1;
    s.idx[2] = (y0 + 1) * W + x0;
    s.idx[3] = (y0 + 1) * W + x0 + 1;
    const float val[4] = float[4](hy * hx, hy * lx, ly * hx, ly * lx);
    const float dy[4] = float[4](-hx, -lx, hx, lx);
    const float dx[4] = float[4](-hy, hy, -ly, ly);
    for (int t = 0; t < 4; ++t)
        if (s.valid[t]) {
            s.val[t] = val[t];
            s.dy[t] = dy[t];
            s.dx[t] = dx[t];
        }
    return s;
}

float x_at(int b, int c, int idx) { return x[at4(V_X, b, c, idx / W, idx - (idx / W) * W)]; }

void atomic_add_a(uint i, float v) {
    uint old = outa[i];
    while (true) {
        const uint prev = atomicCompSwap(outa[i], old, floatBitsToUint(uintBitsToFloat(old) + v));
        if (prev == old) break;
        old = prev;
    }
}

shared float partial[256];

void main() {
    const int KK = KH * KW, L = OH * OW;
    const int cin_g = CIN / WG, M = COUT / WG, K = cin_g * KK, cpg = CIN / OG;
    if (MODE == 5) {
        const uint item = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        const uint lid = gl_LocalInvocationID.x;
        const bool live = item < uint(TOTAL);
        float acc = 0.0;
        if (live) {
            const int o = int(item) / K, q = int(item) - (int(item) / K) * K;
            const int row = (o / M) * K + q;
            const int n = B_ * L;
            for (int jj = int(lid); jj < n; jj += int(gl_WorkGroupSize.x)) {
                const int b = jj / L, p = jj - (jj / L) * L;
                acc += gv[at4(V_G, b, o, p / OW, p - (p / OW) * OW)] * cols[(b * CIN * KK + row) * L + p];
            }
        }
        partial[lid] = acc;
        barrier();
        for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
            if (lid < s) partial[lid] += partial[lid + s];
            barrier();
        }
        if (live && lid == 0) outa[item] = floatBitsToUint(partial[0]);
        return;
    }
    const uint gi = burn_flat_index();
    if (gi >= uint(TOTAL)) return;
    int r = int(gi);
    if (MODE == 0 || MODE == 2 || MODE == 4) {
        // (b, c, k, p) over [B, CIN, KK, L]
        const int p = r % L; r /= L;
        const int k = r % KK; r /= KK;
        const int c = r % CIN;
        const int b = r / CIN;
        if (MODE == 2) {
            const int g = c / cin_g, q = (c - g * cin_g) * KK + k;
            const int ci = q / KK, kk = q - ci * KK;
            float acc = 0.0;
            for (int oo = 0; oo < M; ++oo) {
                const int o = g * M + oo;
                acc += wv[at4(V_W, o, ci, kk / KW, kk - (kk / KW) * KW)] *
                       gv[at4(V_G, b, o, p / OW, p - (p / OW) * OW)];
            }
            outa[gi] = floatBitsToUint(acc);
            return;
        }
        const Sample s = sample_at(b, c / cpg, k, p);
        if (MODE == 0) {
            float v = 0.0;
            for (int t = 0; t < 4; ++t)
                if (s.valid[t]) v += (s.m * s.val[t]) * x_at(b, c, s.idx[t]);
            cols[gi] = v;
        } else {
            const float v = cgv[gi];
            const int base = (b * CIN + c) * H * W;
            for (int t = 0; t < 4; ++t)
                if (s.valid[t]) atomic_add_a(uint(base + s.idx[t]), (s.m * s.val[t]) * v);
        }
        return;
    }
    if (MODE == 1) {
        // (b, o, p) over [B, COUT, L]
        const int p = r % L; r /= L;
        const int o = r % COUT;
        const int b = r / COUT;
        const int g = o / M;
        float acc = 0.0;
        for (int q = 0; q < K; ++q) {
            const int ci = q / KK, kk = q - ci * KK;
            acc += wv[at4(V_W, o, ci, kk / KW, kk - (kk / KW) * KW)] * cols[(b * CIN * KK + g * K + q) * L + p];
        }
        if (HAS_BIAS) acc += biasv[P[V_BIAS] + o * P[V_BIAS + 1]];
        outa[gi] = floatBitsToUint(acc);
        return;
    }
    // MODE 3: (b, og, k, p) over [B, OG, KK, L]
    const int p = r % L; r /= L;
    const int k = r % KK; r /= KK;
    const int og = r % OG;
    const int b = r / OG;
    const Sample s = sample_at(b, og, k, p);
    float ay = 0.0, ax = 0.0, am = 0.0;
    for (int c = og * cpg; c < (og + 1) * cpg; ++c) {
        float v[4];
        for (int t = 0; t < 4; ++t) v[t] = s.valid[t] ? x_at(b, c, s.idx[t]) : 0.0;
        const float cg = cgv[((b * CIN + c) * KK + k) * L + p];
        ay += cg * (s.dy[0] * v[0] + s.dy[1] * v[1] + s.dy[2] * v[2] + s.dy[3] * v[3]);
        ax += cg * (s.dx[0] * v[0] + s.dx[1] * v[1] + s.dx[2] * v[2] + s.dx[3] * v[3]);
        am += cg * (s.val[0] * v[0] + s.val[1] * v[1] + s.val[2] * v[2] + s.val[3] * v[3]);
    }
    const int oyx = ((b * OG + og) * 2 * KK + 2 * k) * L + p;
    outa[oyx] = floatBitsToUint(ay * s.m);
    outa[oyx + L] = floatBitsToUint(ax * s.m);
    if (HAS_MASK) outb[((b * OG + og) * KK + k) * L + p] = floatBitsToUint(am);
}

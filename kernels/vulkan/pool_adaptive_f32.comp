// SPDX-License-Identifier: MIT OR Apache-2.0
// Adaptive average pooling over (d, h, w): output o of a dim of n inputs averages the bin
// [floor(o * n / out), ceil((o + 1) * n / out)). One invocation per output element.
// Spec 0: workgroup size. Bindings: 0 x, 1 out (dense), 2 params (pool_common.glsl, view V0 x).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push { uint unused; } pc;
#include "pool_common.glsl"

int bin_lo(int o, int n, int out_n) { return (o * n) / out_n; }
int bin_hi(int o, int n, int out_n) { return ((o + 1) * n + out_n - 1) / out_n; }

void main() {
    const uint gi = burn_flat_index();
    if (gi >= uint(P[Q_TOTAL])) return;
    const int D = P[Q_IN], H = P[Q_IN + 1], W = P[Q_IN + 2];
    const int OD = P[Q_OUT], OH = P[Q_OUT + 1], OW = P[Q_OUT + 2];
    int r = int(gi);
    const int ow = r % OW; r /= OW;
    const int oh = r % OH; r /= OH;
    const int od = r % OD;
    const int plane = r / OD;
    const int d0 = bin_lo(od, D, OD), d1 = bin_hi(od, D, OD);
    const int h0 = bin_lo(oh, H, OH), h1 = bin_hi(oh, H, OH);
    const int w0 = bin_lo(ow, W, OW), w1 = bin_hi(ow, W, OW);
    float acc = 0.0;
    for (int d = d0; d < d1; ++d)
        for (int h = h0; h < h1; ++h)
            for (int w = w0; w < w1; ++w) acc += x[view_at(Q_V0, plane, d, h, w)];
    outv[gi] = acc / float((d1 - d0) * (h1 - h0) * (w1 - w0));
}

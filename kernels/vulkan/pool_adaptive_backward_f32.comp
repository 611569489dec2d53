// SPDX-License-Identifier: MIT OR Apache-2.0
// Adaptive average pooling backward, one invocation per input element: the sum of grad / bin size
// over the output bins that contain it. Spec 0: workgroup size. Bindings: 0 grad, 1 out (dense,
// input shape), 2 params (pool_common.glsl, view V0 grad).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer G { float g[]; };
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
    const int w = r % W; r /= W;
    const int h = r % H; r /= H;
    const int d = r % D;
    const int plane = r / D;
    // Bins containing i: o in [floor(i * out / n), ceil((i + 1) * out / n) - 1] (checked).
    float acc = 0.0;
    for (int od = (d * OD) / D; od <= min(OD - 1, ((d + 1) * OD + D - 1) / D - 1); ++od) {
        const int d0 = bin_lo(od, D, OD), d1 = bin_hi(od, D, OD);
        if (d < d0 || d >= d1) continue;
        for (int oh = (h * OH) / H; oh <= min(OH - 1, ((h + 1) * OH + H - 1) / H - 1); ++oh) {
            const int h0 = bin_lo(oh, H, OH), h1 = bin_hi(oh, H, OH);
            if (h < h0 || h >= h1) continue;
            for (int ow = (w * OW) / W; ow <= min(OW - 1, ((w + 1) * OW + W - 1) / W - 1); ++ow) {
                const int w0 = bin_lo(ow, W, OW), w1 = bin_hi(ow, W, OW);
                if (w < w0 || w >= w1) continue;
                acc += g[view_at(Q_V0, plane, od, oh, ow)] / float((d1 - d0) * (h1 - h0) * (w1 - w0));
            }
        }
    }
    outv[gi] = acc;
}

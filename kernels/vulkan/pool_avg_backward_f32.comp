// SPDX-License-Identifier: MIT OR Apache-2.0
// Average pooling backward, one invocation per input element: gathers grad / divisor from every
// window that contains it (in output order). Spec 0: workgroup size. Bindings: 0 grad, 1 out
// (dense, input shape), 2 params (pool_common.glsl, view V0 grad).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer G { float g[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push { uint unused; } pc;
#include "pool_common.glsl"

void main() {
    const uint gi = burn_flat_index();
    if (gi >= uint(P[Q_TOTAL])) return;
    const int OH = P[Q_OUT + 1], OW = P[Q_OUT + 2], H = P[Q_IN + 1], W = P[Q_IN + 2];
    const int kh = P[Q_K + 1], kw = P[Q_K + 2], sh = P[Q_S + 1], sw = P[Q_S + 2];
    const int ph = P[Q_P + 1], pw = P[Q_P + 2];
    int r = int(gi);
    const int w = r % W; r /= W;
    const int h = r % H;
    const int plane = r / H;
    // Windows [o*s - p, o*s - p + k) containing the cell: o in [ceil((i+p-k+1)/s), floor((i+p)/s)].
    const int oh0 = max(0, (h + ph - kh + sh) / sh), oh1 = min(OH - 1, (h + ph) / sh);
    const int ow0 = max(0, (w + pw - kw + sw) / sw), ow1 = min(OW - 1, (w + pw) / sw);
    float acc = 0.0;
    for (int oh = oh0; oh <= oh1; ++oh) {
        const int hs = oh * sh - ph;
        if (h < hs || h >= hs + kh) continue;
        const int he = min(hs + kh, H + ph);
        const int hcount = min(he, H) - max(hs, 0);
        for (int ow = ow0; ow <= ow1; ++ow) {
            const int ws = ow * sw - pw;
            if (w < ws || w >= ws + kw) continue;
            const int we = min(ws + kw, W + pw);
            const int div = P[Q_FLAG] != 0 ? (he - hs) * (we - ws) : hcount * (min(we, W) - max(ws, 0));
            if (div > 0) acc += g[view_at(Q_V0, plane, 0, oh, ow)] / float(div);
        }
    }
    outv[gi] = acc;
}

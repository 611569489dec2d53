// SPDX-License-Identifier: MIT OR Apache-2.0
// Average pooling (PyTorch semantics: count_include_pad = Q_FLAG, windows clipped to input +
// padding), one invocation per output element over dims (h, w).
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

void main() {
    const uint gi = burn_flat_index();
    if (gi >= uint(P[Q_TOTAL])) return;
    const int OH = P[Q_OUT + 1], OW = P[Q_OUT + 2], H = P[Q_IN + 1], W = P[Q_IN + 2];
    int r = int(gi);
    const int ow = r % OW; r /= OW;
    const int oh = r % OH;
    const int plane = r / OH;
    const int hs = oh * P[Q_S + 1] - P[Q_P + 1], ws = ow * P[Q_S + 2] - P[Q_P + 2];
    const int he = min(hs + P[Q_K + 1], H + P[Q_P + 1]), we = min(ws + P[Q_K + 2], W + P[Q_P + 2]);
    const int hlo = max(hs, 0), hhi = min(he, H), wlo = max(ws, 0), whi = min(we, W);
    float acc = 0.0;
    for (int h = hlo; h < hhi; ++h)
        for (int w = wlo; w < whi; ++w) acc += x[view_at(Q_V0, plane, 0, h, w)];
    const int div = P[Q_FLAG] != 0 ? (he - hs) * (we - ws) : (hhi - hlo) * (whi - wlo);
    outv[gi] = div > 0 ? acc / float(div) : 0.0;
}

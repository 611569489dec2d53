// SPDX-License-Identifier: MIT OR Apache-2.0
// Separable resize (nearest, bilinear, bicubic: ops_nn_misc.cpp computes the taps as the CPU
// backend does), one invocation per output element:
//   out[p, oh, ow] = sum_i ww[ow, i] * sum_j wh[oh, j] * x[p, ih[oh, j], iw[ow, i]]
// Spec 0: workgroup size. Bindings: 0 x, 1 out (dense [planes, OH, OW]), 2 table (uint words:
// header 0 planes, 1 C, 2 H, 3 W, 4 OH, 5 OW, 6 K taps, 7 total, 8..13 view of x {offset, sb,
// sc, sh, sw, unused}, 14.. offsets of ih [OH*K], iw [OW*K], wh [OH*K] (float bits), ww [OW*K]).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Table { int T[]; };
layout(push_constant) uniform Push { uint unused; } pc;

void main() {
    const uint gi = burn_flat_index();
    if (gi >= uint(T[7])) return;
    const int OH = T[4], OW = T[5], K = T[6];
    int r = int(gi);
    const int ow = r % OW; r /= OW;
    const int oh = r % OH;
    const int plane = r / OH;
    const int b = plane / T[1], c = plane - b * T[1];
    const int base = T[8] + b * T[9] + c * T[10];
    const int ih = T[14], iw = T[15], wh = T[16], ww = T[17];
    float s = 0.0;
    for (int i = 0; i < K; ++i) {
        const int col = base + T[iw + ow * K + i] * T[12];
        float v = 0.0;
        for (int j = 0; j < K; ++j)
            v += intBitsToFloat(T[wh + oh * K + j]) * x[col + T[ih + oh * K + j] * T[11]];
        s += intBitsToFloat(T[ww + ow * K + i]) * v;
    }
    outv[gi] = s;
}

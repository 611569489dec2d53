// SPDX-License-Identifier: MIT OR Apache-2.0
// Backward of interpolate_f32, one invocation per input element, gathering through the inverse
// tap lists (CSR per dim, built by ops_nn_misc.cpp):
//   gx[p, h, w] = sum_{(oh, a) in rows(h)} a * sum_{(ow, c) in cols(w)} c * g[p, oh, ow]
// Spec 0: workgroup size. Bindings: 0 grad, 1 out (dense [planes, H, W]), 2 table (uint words:
// header 0 planes, 1 C, 2 H, 3 W, 4 OH, 5 OW, 6 unused, 7 total, 8..13 view of grad {offset, sb,
// sc, sh, sw, unused}, 14.. offsets of rows_start [H+1], rows_o, rows_w (float bits), cols_start
// [W+1], cols_o, cols_w).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer G { float g[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Table { int T[]; };
layout(push_constant) uniform Push { uint unused; } pc;

void main() {
    const uint gi = burn_flat_index();
    if (gi >= uint(T[7])) return;
    const int H = T[2], W = T[3];
    int r = int(gi);
    const int w = r % W; r /= W;
    const int h = r % H;
    const int plane = r / H;
    const int b = plane / T[1], c = plane - b * T[1];
    const int base = T[8] + b * T[9] + c * T[10];
    const int rs = T[14], ro = T[15], rw = T[16], cs = T[17], co = T[18], cw = T[19];
    float s = 0.0;
    for (int a = T[rs + h]; a < T[rs + h + 1]; ++a) {
        const int row = base + T[ro + a] * T[11];
        float v = 0.0;
        for (int e = T[cs + w]; e < T[cs + w + 1]; ++e)
            v += intBitsToFloat(T[cw + e]) * g[row + T[co + e] * T[12]];
        s += intBitsToFloat(T[rw + a]) * v;
    }
    outv[gi] = s;
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// unfold4d (im2col): x [B, C, H, W] -> out [B, C * KH * KW, OH * OW], padding reads 0; any dtype
// stored in 32-bit words (WIDE = 2 words per element for 64-bit types). One invocation per
// output element (per word pair). Spec 0: workgroup size. Bindings: 0 x (words), 1 out (words,
// dense), 2 params (ints: 0 B, 1 C, 2 H, 3 W, 4 KH, 5 KW, 6 OH, 7 OW, 8 sh, 9 sw, 10 ph, 11 pw,
// 12 dh, 13 dw, 14 total elements, 15 words per element, 16..20 view of x {offset, sb, sc, sh,
// sw} in elements).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint outv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push { uint unused; } pc;

void main() {
    const uint gi = burn_flat_index();
    if (gi >= uint(P[14])) return;
    const int C = P[1], H = P[2], W = P[3], KH = P[4], KW = P[5], OH = P[6], OW = P[7];
    int r = int(gi);
    const int ox = r % OW; r /= OW;
    const int oy = r % OH; r /= OH;
    const int kj = r % KW; r /= KW;
    const int ki = r % KH; r /= KH;
    const int c = r % C;
    const int b = r / C;
    const int iy = oy * P[8] + ki * P[12] - P[10], ix = ox * P[9] + kj * P[13] - P[11];
    const int wide = P[15];
    if (iy < 0 || iy >= H || ix < 0 || ix >= W) {
        for (int k = 0; k < wide; ++k) outv[int(gi) * wide + k] = 0u;
        return;
    }
    const int src = P[16] + b * P[17] + c * P[18] + iy * P[19] + ix * P[20];
    for (int k = 0; k < wide; ++k) outv[int(gi) * wide + k] = x[src * wide + k];
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// Max pooling (PyTorch semantics: padding never wins, dilation, NaN wins, the first maximum's
// index flattened over the plane, h * W + w; a window of -inf keeps its first valid cell), one
// invocation per output element. Q_FLAG: 0 no indices, 1 i32 indices, 2 i64 indices (written as
// two 32-bit words; indices are < 2^31). Spec 0: workgroup size. Bindings: 0 x, 1 out (dense),
// 2 indices (dense words; any buffer when Q_FLAG is 0), 3 params (pool_common.glsl, view V0 x).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Idx { uint idx[]; };
layout(std430, set = 0, binding = 3) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push { uint unused; } pc;
#include "pool_common.glsl"

// The first input index of a window reached from `start` by whole dilation steps.
int first_valid(int start, int d) { return start < 0 ? start + ((-start + d - 1) / d) * d : start; }

void main() {
    const uint gi = burn_flat_index();
    if (gi >= uint(P[Q_TOTAL])) return;
    const int OH = P[Q_OUT + 1], OW = P[Q_OUT + 2], H = P[Q_IN + 1], W = P[Q_IN + 2];
    const int dh = P[Q_D + 1], dw = P[Q_D + 2];
    int r = int(gi);
    const int ow = r % OW; r /= OW;
    const int oh = r % OH;
    const int plane = r / OH;
    const int hs = oh * P[Q_S + 1] - P[Q_P + 1], ws = ow * P[Q_S + 2] - P[Q_P + 2];
    const int hend = min(hs + (P[Q_K + 1] - 1) * dh + 1, H), wend = min(ws + (P[Q_K + 2] - 1) * dw + 1, W);
    const int h0 = first_valid(hs, dh), w0 = first_valid(ws, dw);
    float m = uintBitsToFloat(0xff800000u);  // -inf
    int best = h0 * W + w0;
    for (int h = h0; h < hend; h += dh)
        for (int w = w0; w < wend; w += dw) {
            const float v = x[view_at(Q_V0, plane, 0, h, w)];
            if (v > m || isnan(v)) {
                m = v;
                best = h * W + w;
            }
        }
    outv[gi] = m;
    if (P[Q_FLAG] == 1) idx[gi] = uint(best);
    else if (P[Q_FLAG] == 2) {
        idx[2 * gi] = uint(best);
        idx[2 * gi + 1] = 0u;
    }
}

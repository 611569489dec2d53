// SPDX-License-Identifier: MIT OR Apache-2.0
// Max pooling backward, one invocation per input element: the sum of grad over the outputs whose
// window contains the cell and whose index names it (in output order). Q_FLAG: 1 i32 indices,
// 2 i64 indices (the low word is read). Spec 0: workgroup size. Bindings: 0 grad, 1 indices (words),
// 2 out (dense, input shape), 3 params (pool_common.glsl, views V0 grad, V1 indices, in elements;
// [22] the op id, [23] the number of outputs), 4 error words (device_error.glsl). Launched over
// max(inputs, outputs) invocations: invocation o also checks that output o's index lies in its
// plane (else reports it; such an index adds nothing).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
layout(std430, set = 0, binding = 0) readonly buffer G { float g[]; };
layout(std430, set = 0, binding = 1) readonly buffer Idx { int idx[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 3) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push { uint unused; } pc;
#include "pool_common.glsl"
#define BURN_ERROR_BINDING 4
#include "device_error.glsl"
const uint BURN_ERROR_INDEX_OUTSIDE_PLANE = 4u;

void main() {
    const uint gi = burn_flat_index();
    const int OH = P[Q_OUT + 1], OW = P[Q_OUT + 2], H = P[Q_IN + 1], W = P[Q_IN + 2];
    const int wide = P[Q_FLAG] == 2 ? 2 : 1;
    if (gi < uint(P[23])) {
        const int o = int(gi);
        const int x = idx[wide * view_at(Q_V1, o / (OH * OW), 0, (o / OW) % OH, o % OW)];
        if (x < 0 || x >= H * W) burn_report_error(BURN_ERROR_INDEX_OUTSIDE_PLANE, uint(P[22]), x, uint(H * W), 0u);
    }
    if (gi >= uint(P[Q_TOTAL])) return;
    const int kh = P[Q_K + 1], kw = P[Q_K + 2], sh = P[Q_S + 1], sw = P[Q_S + 2];
    const int ph = P[Q_P + 1], pw = P[Q_P + 2], dh = P[Q_D + 1], dw = P[Q_D + 2];
    int r = int(gi);
    const int w = r % W; r /= W;
    const int h = r % H;
    const int plane = r / H;
    const int me = h * W + w;
    const int eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;  // window extents
    const int oh0 = max(0, (h + ph - eh + sh) / sh), oh1 = min(OH - 1, (h + ph) / sh);
    const int ow0 = max(0, (w + pw - ew + sw) / sw), ow1 = min(OW - 1, (w + pw) / sw);
    float acc = 0.0;
    for (int oh = oh0; oh <= oh1; ++oh)
        for (int ow = ow0; ow <= ow1; ++ow)
            if (idx[wide * view_at(Q_V1, plane, 0, oh, ow)] == me) acc += g[view_at(Q_V0, plane, 0, oh, ow)];
    outv[gi] = acc;
}

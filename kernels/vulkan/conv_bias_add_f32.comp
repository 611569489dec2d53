// SPDX-License-Identifier: MIT OR Apache-2.0
// y[b, c, l] += bias[c] over a dense [B, C, L] tensor, one invocation per element (the bias of
// conv_transpose). Specialization constant 0: workgroup size. Bindings: 0 bias, 1 y (dense),
// 2 params (conv_common.glsl: P_COUT = C, P_OUT + 2 = L, P_TOTAL = B * C * L, view T0 = bias
// {offset, stride}).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { int P[]; };
layout(push_constant) uniform Push { uint unused; } pc;
#include "conv_common.glsl"

void main() {
    const uint gi = burn_flat_index();
    if (gi >= uint(P[P_TOTAL])) return;
    const int c = (int(gi) / P[P_OUT + 2]) % P[P_COUT];
    y[gi] += bias[P[P_T0] + c * P[P_T0 + 1]];
}

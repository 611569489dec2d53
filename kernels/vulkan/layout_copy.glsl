// SPDX-License-Identifier: MIT OR Apache-2.0
// Strided copy with a dtype conversion: dst[view 1 at i] = CONVERT(src[view 0 at i]) for the
// row-major positions i < n of the views described by metas[0] (source) and metas[1]
// (destination, same shape). Included by layout_copy_<src>_<dst>.comp, which define SRC_T,
// DST_T and CONVERT(v). Specialization constant 0: workgroup size (x).
// Push constants: { uint n; }. Bindings: 0 metas, 1 src, 2 dst.
layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "tensor_meta.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { SRC_T src[]; };
layout(std430, set = 0, binding = 2) buffer Dst { DST_T dst[]; };
layout(push_constant) uniform Push {
    uint n;
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    const SRC_T v = src[burn_strided_index(metas[0], i)];
    dst[burn_strided_index(metas[1], i)] = CONVERT(v);
}

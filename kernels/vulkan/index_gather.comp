// SPDX-License-Identifier: MIT OR Apache-2.0
// gather / index_select / embedding: out[c] = t[c with dim replaced by idx[c]], copied word by
// word (any storage type). metas: 0 the output's coordinates (its shape), 1 t, 2 the indices seen
// with the output's rank (select and embedding pass broadcast views). Out-of-range indices give
// zeros and report the error (device_error.glsl). Indices are 32-bit, or 64-bit (idx64: the low word, sign taken from the high word).
// Specialization constant 0: workgroup size. Push: { dim, words, idx64, n, op, op_dim }.
// Bindings: 0 metas[3], 1 t words, 2 index words, 3 output words (contiguous), 4 error words.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "tensor_meta.glsl"
#define BURN_ERROR_BINDING 4
#include "device_error.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer T { uint t_[]; };
layout(std430, set = 0, binding = 2) readonly buffer I { uint idx_[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint out_[]; };
layout(push_constant) uniform Push {
    uint dim;
    uint words;
    uint idx64;
    uint n;
    uint op;      // the op id for error reports
    uint op_dim;  // the dim the error names (the op's, e.g. 0 of embedding's weights)
} pc;

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    const TensorMeta om = metas[0], tm = metas[1], im = metas[2];
    uint rem = i;
    int tp = tm.offset, ip = im.offset;
    uint cdim = 0u;
    for (int d = int(om.rank) - 1; d >= 0; --d) {
        const uint c = rem % om.shape[d];
        rem /= om.shape[d];
        ip += int(c) * im.strides[d];
        if (uint(d) != pc.dim) tp += int(c) * tm.strides[d];
    }
    int k, shown;
    if (pc.idx64 != 0u) {
        const int hi = int(idx_[2u * uint(ip) + 1u]), lo = int(idx_[2u * uint(ip)]);
        k = ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) ? lo : -1;
        shown = hi < 0 ? min(lo, -1) : k < 0 ? 2147483647 : k;
    } else {
        k = int(idx_[uint(ip)]);
        shown = k;
    }
    if (k < 0 || uint(k) >= tm.shape[pc.dim]) {
        burn_report_error(BURN_ERROR_INDEX_OUT_OF_RANGE, pc.op, shown, tm.shape[pc.dim], pc.op_dim);
        for (uint w = 0u; w < pc.words; ++w) out_[i * pc.words + w] = 0u;
        return;
    }
    tp += k * tm.strides[pc.dim];
    for (uint w = 0u; w < pc.words; ++w) out_[i * pc.words + w] = t_[uint(tp) * pc.words + w];
}

// SPDX-License-Identifier: MIT OR Apache-2.0
// scatter_add / index_add / embedding backward without atomics: one invocation per output
// element c (t's shape, contiguous output), adding in index order every value whose index
// points at c (deterministic, and the same order of additions as the CPU backend).
//   mode 0 (scatter_add, select_add): out[c] = t[c] + sum over k < K of val[c with dim = k]
//     where idx[c with dim = k] == c[dim] (only when c lies within idx's other dims); select_add
//     passes idx as a broadcast view of t's rank.
//   mode 1 (embedding backward, t unused when k0 == 0: starts from 0): out[r, j] = sum over k < K of
//     val[row-major k * D + j] where idx[row-major k] == r.
// Launches after the first one (k0 > 0) pass the previous output as t (dense).
// Out-of-range indices add nothing and are reported (device_error.glsl) by the invocations
// with c[dim] == 0 (mode 0) or by invocation 0 (mode 1).
// Defines: ELEM. Specialization constant 0: workgroup size. Push: { dim, k0, k1, mode, idx64, n,
// op }. Bindings: 0 metas[4] (out, t, idx, val), 1 t, 2 index words, 3 values, 4 output, 5 error
// words.
layout(local_size_x_id = 0) in;
#include "index.glsl"
#include "tensor_meta.glsl"
#define BURN_ERROR_BINDING 5
#include "device_error.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Metas { TensorMeta metas[]; };
layout(std430, set = 0, binding = 1) readonly buffer T { ELEM t_[]; };
layout(std430, set = 0, binding = 2) readonly buffer I { uint idx_[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { ELEM val_[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { ELEM out_[]; };
layout(push_constant) uniform Push {
    uint dim;
    uint k0;  // this launch adds the indices [k0, k1): long index extents take several launches
    uint k1;  // (lavapipe stops an invocation after 65535 loop iterations)
    uint mode;
    uint idx64;
    uint n;
    uint op;  // the op id for error reports
} pc;

int read_index(uint p) {
    if (pc.idx64 != 0u) {
        const int hi = int(idx_[2u * p + 1u]);
        const int lo = int(idx_[2u * p]);
        if (hi == 0 && lo >= 0) return lo;
        if (hi == -1 && lo < 0) return lo;
        return -1;
    }
    return int(idx_[p]);
}

void main() {
    const uint i = burn_flat_index();
    if (i >= pc.n) return;
    const TensorMeta om = metas[0], tm = metas[1], im = metas[2], vm = metas[3];
    if (pc.mode == 1u) {
        const uint d = om.shape[1];
        const int r = int(i / d), j = int(i % d);
        ELEM acc = pc.k0 == 0u ? ELEM(0) : t_[i];
        for (uint k = pc.k0; k < pc.k1; ++k) {
            const int x = read_index(burn_strided_index(im, k));
            if (x == r) acc += val_[burn_strided_index(vm, k * d + uint(j))];
            if (i == 0u && (x < 0 || uint(x) >= om.shape[0]))
                burn_report_error(BURN_ERROR_INDEX_OUT_OF_RANGE, pc.op, x, om.shape[0], 0u);
        }
        out_[i] = acc;
        return;
    }
    uint rem = i;
    int tp = tm.offset, ip = im.offset, vp = vm.offset;
    int target = 0;
    bool inside = true;
    for (int d = int(om.rank) - 1; d >= 0; --d) {
        const uint c = rem % om.shape[d];
        rem /= om.shape[d];
        tp += int(c) * tm.strides[d];
        if (uint(d) == pc.dim) {
            target = int(c);
        } else {
            inside = inside && c < im.shape[d];
            ip += int(c) * im.strides[d];
            vp += int(c) * vm.strides[d];
        }
    }
    ELEM acc = t_[tp];
    if (inside) {
        const int is = im.strides[pc.dim], vs = vm.strides[pc.dim];
        const uint bound = om.shape[pc.dim];
        for (uint k = pc.k0; k < pc.k1; ++k) {
            const int x = read_index(uint(ip + int(k) * is));
            if (x == target) acc += val_[vp + int(k) * vs];
            if (target == 0 && (x < 0 || uint(x) >= bound))
                burn_report_error(BURN_ERROR_INDEX_OUT_OF_RANGE, pc.op, x, bound, pc.dim);
        }
    }
    out_[i] = acc;
}

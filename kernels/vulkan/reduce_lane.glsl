// SPDX-License-Identifier: MIT OR Apache-2.0
// Lanes of a reduction / scan / sort along one dim of a TensorMeta view (needs tensor_meta.glsl).
// Lane o enumerates the other dims in row-major order; element k of lane o is at
// burn_lane_base(m, dim, o) + k * m.strides[dim]. dim == BURN_FLAT_DIM: a single lane over every
// element in row-major order (burn_strided_index).
#define BURN_FLAT_DIM 0xFFFFFFFFu

int burn_lane_base(TensorMeta m, uint dim, uint o) {
    int index = m.offset;
    for (int d = int(m.rank) - 1; d >= 0; --d) {
        if (uint(d) == dim) continue;
        const uint extent = m.shape[d];
        index += int(o % extent) * m.strides[d];
        o /= extent;
    }
    return index;
}

// The lane index of a workgroup-per-lane launch laid out by grid_1d(lanes * wg, wg).
uint burn_group_index() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

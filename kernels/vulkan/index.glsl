// SPDX-License-Identifier: MIT OR Apache-2.0
// The flat invocation index of a 1-D launch laid out by burn::vk::grid_1d ({x, y, 1} groups).
uint burn_flat_index() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
}

#ifdef BURN_EW_ITEMS
// Kernels launched by burn::vk::ew::launch: each thread handles BURN_ITEMS elements
// (specialization constant 1), workgroup-size apart inside its workgroup's chunk of
// BURN_ITEMS * workgroup-size elements, so that a warp's accesses stay contiguous. A kernel loads
// all of its items before it stores any (the output may alias an input, so the compiler could not
// reorder them itself), which keeps several loads in flight per thread.
layout(constant_id = 1) const uint BURN_ITEMS = 1;
uint burn_item_index(uint t) {
    return ((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * BURN_ITEMS + t) *
               gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
}
#endif

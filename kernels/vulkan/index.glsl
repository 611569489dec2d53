// SPDX-License-Identifier: MIT OR Apache-2.0
// The flat invocation index of a 1-D launch laid out by burn::vk::grid_1d ({x, y, 1} groups).
uint burn_flat_index() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
}

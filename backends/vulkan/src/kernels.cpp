// SPDX-License-Identifier: MIT OR Apache-2.0
#include "kernels.hpp"

#include <limits>

namespace burn::vk {

namespace {
void check_floats(const char* op, const char* name, const Buffer& buf, std::size_t n) {
    BURN_CHECK(buf.size() >= n * sizeof(float), "vulkan ", op, ": buffer ", name, " holds ",
               buf.size(), " bytes, ", n, " floats need ", n * sizeof(float));
}
void check_count(const char* op, std::size_t n) {
    BURN_CHECK(n <= std::numeric_limits<std::uint32_t>::max(), "vulkan ", op, ": ", n,
               " elements exceed the 32-bit index of the kernel");
}
}  // namespace

void fill(Context& ctx, const Buffer& out, std::size_t n, float value) {
    if (n == 0) return;
    check_count("fill", n);
    check_floats("fill", "out", out, n);
    const auto& p = ctx.pipeline(
        {.shader = "fill", .spec = {kElementwiseWorkgroup}, .bindings = 1, .push_bytes = 8});
    struct {
        std::uint32_t n;
        float value;
    } push{static_cast<std::uint32_t>(n), value};
    ctx.dispatch(p, {&out}, push, grid_1d(n, kElementwiseWorkgroup, ctx.features()));
}

void add_f32(Context& ctx, const Buffer& a, const Buffer& b, const Buffer& c, std::size_t n,
             std::uint32_t workgroup) {
    if (n == 0) return;
    check_count("add_f32", n);
    check_floats("add_f32", "a", a, n);
    check_floats("add_f32", "b", b, n);
    check_floats("add_f32", "c", c, n);
    BURN_CHECK(workgroup >= 1 && workgroup <= ctx.features().max_workgroup_size[0] &&
                   workgroup <= ctx.features().max_workgroup_invocations,
               "vulkan add_f32: workgroup size ", workgroup, " outside the device's limit ",
               ctx.features().max_workgroup_size[0]);
    const auto& p = ctx.pipeline(
        {.shader = "add_f32", .spec = {workgroup}, .bindings = 3, .push_bytes = 4});
    const std::uint32_t push = static_cast<std::uint32_t>(n);
    ctx.dispatch(p, {&a, &b, &c}, push, grid_1d(n, workgroup, ctx.features()));
}

}  // namespace burn::vk

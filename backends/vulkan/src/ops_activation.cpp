// SPDX-License-Identifier: MIT OR Apache-2.0
// Activations (relu, gelu, sigmoid, log_sigmoid, hard_sigmoid, leaky_relu), their gradients, and
// softmax / log_softmax along a dim, with the CPU backend's formulas (backends/cpu/src/
// activation.cpp). Shaders: kernels/vulkan/activation_f32.comp, activation_backward_f32.comp,
// activation_softmax_f32.comp (one workgroup per row, shared-memory reductions). Inputs may be
// any view; outputs are dense (the input itself when unique, dense and at offset 0).
#include "ops_common.hpp"
#include "ops_elementwise.hpp"

namespace burn::vk {

using namespace ew;  // NOLINT(google-build-using-namespace): the element-wise helpers

namespace {

/// The kernels take float tensors (the Tensor layer's kinds), and only f32 on Vulkan.
void check_float(const char* op, DType dt) {
    assert(is_float(dt));
    BURN_CHECK(dt == DType::F32, "Vulkan ", op, ": unsupported dtype ", dt, " (f32 only)");
}

/// Workgroup size of the softmax shader for rows of `len`: the next power of two, 32 to 256 (short
/// rows, e.g. class scores, leave fewer invocations idle).
std::uint32_t softmax_workgroup(std::size_t len) {
    std::uint32_t wg = 32;
    while (wg < 256 && wg < len) wg *= 2;
    return wg;
}

}  // namespace

VulkanTensor Kernels::activation(Activation op, VulkanTensor x, double alpha, double beta) {
    const char* name = backend::op_name(op);
    check_float(name, x.dtype);
    const std::size_t n = x.num_elements();
    VulkanTensor out = output_for(x, x.shape, x.dtype);
    if (n == 0) return out;
    Push push{};
    push.op = static_cast<std::uint32_t>(op);
    push.flags = dense_as(x, n) ? 1u : 0u;
    push.param[0] = float_bits(alpha);
    push.param[1] = float_bits(beta);
    const auto metas = metas_if(push.flags != 1u, context(x), {meta(x)}, buffer_of(x));
    launch(name, "activation_f32", {metas.get(), &buffer_of(x), &buffer_of(out)}, push, n,
           x.device);
    return out;
}

VulkanTensor Kernels::activation_backward(Activation op, VulkanTensor saved, VulkanTensor grad) {
    const char* name = backend::op_name(op);
    assert(saved.shape == grad.shape && saved.dtype == grad.dtype);
    assert(op == Activation::Relu || op == Activation::Sigmoid || op == Activation::Gelu ||
           op == Activation::LogSigmoid);
    check_float(name, grad.dtype);
    const std::size_t n = grad.num_elements();
    VulkanTensor out = reusable(saved, grad.shape, grad.dtype) ? saved
                       : reusable(grad, grad.shape, grad.dtype)
                           ? grad
                           : alloc(grad.shape, grad.dtype, grad.device);
    if (n == 0) return out;
    Push push{};
    push.op = static_cast<std::uint32_t>(op);
    push.flags = (dense_as(saved, n) ? 1u : 0u) | (dense_as(grad, n) ? 2u : 0u);
    const auto metas =
        metas_if(push.flags != 3u, context(grad), {meta(saved), meta(grad)}, buffer_of(grad));
    launch(name, "activation_backward_f32",
           {metas.get(), &buffer_of(saved), &buffer_of(grad), &buffer_of(out)}, push, n,
           grad.device);
    return out;
}

VulkanTensor Kernels::softmax(VulkanTensor x, std::size_t dim, bool log) {
    const char* name = log ? "log_softmax" : "softmax";
    assert(dim < x.rank());
    check_float(name, x.dtype);
    const std::size_t n = x.num_elements();
    VulkanTensor out = output_for(x, x.shape, x.dtype);
    if (n == 0) return out;
    check_u32(name, n);
    std::size_t inner = 1;
    for (std::size_t d = dim + 1; d < x.rank(); ++d) inner *= x.shape[d];
    const std::size_t len = x.shape[dim];
    const std::size_t rows = n / len;
    Context& ctx = context(x);
    Push push{};
    push.n = static_cast<std::uint32_t>(rows);
    push.op = log ? 1u : 0u;
    push.flags = dense_as(x, n) ? 1u : 0u;
    const auto metas = metas_if(push.flags != 1u, ctx, {meta(x)}, buffer_of(x));
    push.param[0] = static_cast<std::uint32_t>(len);
    push.param[1] = static_cast<std::uint32_t>(inner);
    const std::uint32_t wg = softmax_workgroup(len);
    const auto& p = ctx.pipeline({.shader = "activation_softmax_f32",
                                  .spec = {wg},
                                  .bindings = 3,
                                  .push_bytes = sizeof(Push)});
    // One workgroup per row: grid_1d over rows * wg invocations lays the rows out in {x, y}.
    ctx.dispatch(p, {metas.get(), &buffer_of(x), &buffer_of(out)}, push,
                 grid_1d(static_cast<std::uint64_t>(rows) * wg, wg, ctx.features()));
    return out;
}

}  // namespace burn::vk

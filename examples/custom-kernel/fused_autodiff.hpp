// SPDX-License-Identifier: MIT OR Apache-2.0
// The fused operation on burn::Autodiff<B, C>: the forward pass runs FusedOps<B> (the inner
// backend's kernel, whatever it is), and a backward step written with B's basic ops gives the
// gradients of lhs, rhs and bias.
//
// It is built from the public pieces of <burn/autodiff/graph.hpp>: a Node<B> whose parents are the
// inputs' nodes (null for an input that needs no gradient), and a Step<B> holding only what the
// backward pass reads.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "fused_ops.hpp"

namespace fused {

namespace detail {

/// The batched transpose [b, r, c] -> [b, c, r] (a view on backends that have views).
template <burn::Backend B>
typename B::FloatTensor transposed(typename B::FloatTensor t) {
    return B::float_swap_dims(std::move(t), 1, 2);
}

/// The backward step. Gradients of out = relu(lhs @ rhs + bias), with g the output gradient:
///   g'    = g where out > 0, else 0         (relu_backward reads the kept output)
///   dbias = g'                             summed over the dims bias was broadcast along
///   dlhs  = g' @ rhs^T                      summed over a broadcast batch dim
///   drhs  = lhs^T @ g'                      summed over a broadcast batch dim
template <FusedBackend B>
struct FusedMatmulAddReluBackward final : burn::autodiff::Step<B> {
    using P = typename B::FloatTensor;
    using Saved = burn::autodiff::Saved<P>;

    Saved output;              ///< always needed (the relu mask); the op is compute-bound: kept
    std::optional<Saved> lhs;  ///< only when rhs needs a gradient
    std::optional<Saved> rhs;  ///< only when lhs needs a gradient
    burn::Shape lhs_shape, rhs_shape, bias_shape;

    explicit FusedMatmulAddReluBackward(P out) : output(std::move(out)) {}

    void backward(const std::vector<burn::autodiff::NodeRef<B>>& parents, P grad,
                  burn::autodiff::Gradients<B>& grads) override {
        const auto& lhs_node = parents[0];
        const auto& rhs_node = parents[1];
        const auto& bias_node = parents[2];
        const P g = B::relu_backward(output.get(), std::move(grad));
        if (lhs_node) {
            P d = burn::autodiff::reduce_to<B>(B::float_matmul(g, transposed<B>(rhs->get())), lhs_shape);
            grads.accumulate(lhs_node->id, std::move(d), lhs_shape, name());
        }
        if (rhs_node) {
            P d = burn::autodiff::reduce_to<B>(B::float_matmul(transposed<B>(lhs->get()), g), rhs_shape);
            grads.accumulate(rhs_node->id, std::move(d), rhs_shape, name());
        }
        if (bias_node) grads.accumulate(bias_node->id, burn::autodiff::reduce_to<B>(g, bias_shape), bias_shape, name());
    }
    const char* name() const override { return "fused_matmul_add_relu"; }
};

}  // namespace detail

/// Autodiff over any inner backend that has the fused operation.
template <class B, class C>
    requires FusedBackend<B>
struct FusedOps<burn::Autodiff<B, C>> {
    using FloatTensor = typename burn::Autodiff<B, C>::FloatTensor;  // autodiff::AutodiffTensor<B>

    static FloatTensor fused_matmul_add_relu(FloatTensor lhs, FloatTensor rhs, FloatTensor bias) {
        // No input needs a gradient: run the kernel and record nothing.
        if (!lhs.node && !rhs.node && !bias.node) {
            return FloatTensor{FusedOps<B>::fused_matmul_add_relu(std::move(lhs.primitive),
                                                                  std::move(rhs.primitive),
                                                                  std::move(bias.primitive)),
                               nullptr};
        }
        using Step = detail::FusedMatmulAddReluBackward<B>;
        const burn::Shape lhs_shape = B::float_shape(lhs.primitive);
        const burn::Shape rhs_shape = B::float_shape(rhs.primitive);
        const burn::Shape bias_shape = B::float_shape(bias.primitive);
        // Keep each matmul operand only if the other one's gradient will need it.
        std::optional<burn::autodiff::Saved<typename B::FloatTensor>> kept_lhs, kept_rhs;
        if (rhs.node) kept_lhs = burn::autodiff::save<C>(lhs);
        if (lhs.node) kept_rhs = burn::autodiff::save<C>(rhs);

        typename B::FloatTensor out = FusedOps<B>::fused_matmul_add_relu(
            std::move(lhs.primitive), std::move(rhs.primitive), std::move(bias.primitive));

        // A compute-bound op keeps its output (never recomputed, whatever the strategy), and
        // gives its node no recipe: ops after it keep this tensor rather than recomputing it.
        auto step = std::make_unique<Step>(out);
        step->lhs = std::move(kept_lhs);
        step->rhs = std::move(kept_rhs);
        step->lhs_shape = lhs_shape;
        step->rhs_shape = rhs_shape;
        step->bias_shape = bias_shape;

        auto node = std::make_shared<burn::autodiff::Node<B>>();  // its id is newer than its parents'
        node->parents = {std::move(lhs.node), std::move(rhs.node), std::move(bias.node)};
        node->step = std::move(step);
        return FloatTensor{std::move(out), std::move(node)};
    }
};

}  // namespace fused

// SPDX-License-Identifier: MIT OR Apache-2.0
// The fused operation on burn::Autodiff<B, C>: the forward pass runs FusedOps<B> (the inner
// backend's kernel, whatever it is), and a backward function written with B's basic ops gives
// the gradients of lhs, rhs and bias.
//
// It is recorded with the custom-op API of <burn/autodiff/custom_op.hpp>: autodiff::OpInputs
// names the inputs (and says which need a gradient), autodiff::save<C> keeps what the backward
// function reads, and autodiff::custom_op records the node.
#pragma once

#include <burn/autodiff/custom_op.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "fused_ops.hpp"

namespace fused {

/// Autodiff over any inner backend that has the fused operation.
template <class B, class C>
requires FusedBackend<B>
struct FusedOps<burn::Autodiff<B, C>> {
    using FloatTensor = typename burn::Autodiff<B, C>::FloatTensor;  // autodiff::AutodiffTensor<B>
    using P = typename B::FloatTensor;
    using Saved = burn::autodiff::Saved<P>;

    static FloatTensor fused_matmul_add_relu(FloatTensor lhs, FloatTensor rhs, FloatTensor bias) {
        // The inputs, in the order the backward function returns their gradients.
        burn::autodiff::OpInputs<B> inputs{lhs, rhs, bias};
        // Keep each matmul operand only if the other one's gradient will read it.
        std::optional<Saved> kept_lhs, kept_rhs;
        if (inputs.tracked()[1]) kept_lhs = burn::autodiff::save<C>(lhs);
        if (inputs.tracked()[0]) kept_rhs = burn::autodiff::save<C>(rhs);

        P out = FusedOps<B>::fused_matmul_add_relu(
            std::move(lhs.primitive), std::move(rhs.primitive), std::move(bias.primitive));

        // The op is compute-bound: its output is kept as it is (relu_backward reads it), never
        // recomputed. With no tracked input, custom_op records nothing and drops the function.
        return burn::autodiff::custom_op(
            "fused_matmul_add_relu", std::move(inputs), out,
            [out, kept_lhs, kept_rhs](P grad, const burn::autodiff::Tracked& tracked) {
                const P g = B::relu_backward(out, std::move(grad));  // g where out > 0, else 0
                std::vector<std::optional<P>> d(3);                  // lhs, rhs, bias
                if (tracked[0]) {  // g' @ rhs^T, summed over a broadcast batch dim
                    P dlhs = B::float_matmul(g, transposed(kept_rhs->get()));
                    d[0] = reduce_to(std::move(dlhs), tracked.shape(0));
                }
                if (tracked[1]) {  // lhs^T @ g', summed over a broadcast batch dim
                    P drhs = B::float_matmul(transposed(kept_lhs->get()), g);
                    d[1] = reduce_to(std::move(drhs), tracked.shape(1));
                }
                if (tracked[2]) d[2] = reduce_to(g, tracked.shape(2));  // over broadcast dims
                return d;
            });
    }

private:
    /// The batched transpose [b, r, c] -> [b, c, r] (a view on backends that have views).
    static P transposed(P t) { return B::float_swap_dims(std::move(t), 1, 2); }
    /// `grad` summed over the dims along which an input of shape `shape` was broadcast.
    static P reduce_to(P grad, const burn::Shape& shape) {
        return burn::autodiff::reduce_to<B>(std::move(grad), shape);
    }
};

}  // namespace fused

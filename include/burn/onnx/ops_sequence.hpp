// SPDX-License-Identifier: MIT OR Apache-2.0
// Sequence and optional ops of the ONNX op library: SequenceEmpty, SequenceConstruct,
// SequenceInsert, SequenceErase, SequenceAt, SequenceLength, SplitToSequence, ConcatFromSequence,
// SequenceMap, Optional, OptionalHasElement, OptionalGetElement. A sequence is a Value holding
// tensors of one element type (Value::sequence); an empty optional is Value::none(); an optional
// with an element is that element itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "burn/onnx/ops_common.hpp"
#include "burn/onnx/ops_control.hpp"
#include "burn/onnx/ops_shape.hpp"

namespace burn::onnx::ops {

namespace detail {

template <class B>
const std::vector<Value<B>>& require_sequence(const Value<B>& v, std::string_view op,
                                              std::string_view what = "input_sequence") {
    if (!v.is_sequence()) fail(op, what, " must be a sequence, got ", v.describe());
    return v.items();
}

template <class B>
void require_tensor_of(const Value<B>& seq, const Value<B>& t, std::string_view op) {
    if (!t.is_tensor()) fail(op, "tensor must be a tensor, got ", t.describe());
    if (seq.type() != ElemType::Undefined && t.type() != seq.type())
        fail(op, "tensor ", t.describe(), " does not match the sequence's element type ",
             elem_type_name(seq.type()));
}

/// A position in [-n, n) (or [-n, n] where `end_ok`) as an index.
template <class B>
std::size_t seq_position(const Value<B>& pos, std::size_t n, bool end_ok, std::string_view op) {
    if (!pos.is_int() || pos.shape().num_elements() != 1)
        fail(op, "position must be an int32 or int64 scalar, got ", pos.describe());
    const std::int64_t p = pos.to_ints()[0];
    const auto sn = static_cast<std::int64_t>(n);
    const std::int64_t hi = end_ok ? sn : sn - 1;
    if (p < -sn || p > hi)
        fail(op, "position ", p, " is out of range for a sequence of ", n, " tensors");
    return static_cast<std::size_t>(p < 0 ? p + sn : p);
}

}  // namespace detail

template <class B>
Value<B> sequence_construct(const std::vector<Value<B>>& inputs) {
    if (inputs.empty()) detail::fail("SequenceConstruct", "needs at least one tensor");
    for (const auto& v : inputs) {
        if (!v.is_tensor())
            detail::fail("SequenceConstruct", "inputs must be tensors, got ", v.describe());
        if (v.type() != inputs.front().type())
            detail::fail("SequenceConstruct", "inputs must share one element type, got ",
                         inputs.front().describe(), " and ", v.describe());
    }
    return Value<B>::sequence(inputs, inputs.front().type());
}

/// SequenceInsert: `tensor` inserted at `position` (default: at the end).
template <class B>
Value<B> sequence_insert(const Value<B>& seq, const Value<B>& tensor, const OptValue<B>& position) {
    auto items = detail::require_sequence(seq, "SequenceInsert");
    detail::require_tensor_of(seq, tensor, "SequenceInsert");
    const std::size_t at =
        position ? detail::seq_position(*position, items.size(), true, "SequenceInsert")
                 : items.size();
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), tensor);
    return Value<B>::sequence(std::move(items), tensor.type());
}

/// SequenceErase: the tensor at `position` (default: the last) removed.
template <class B>
Value<B> sequence_erase(const Value<B>& seq, const OptValue<B>& position) {
    auto items = detail::require_sequence(seq, "SequenceErase");
    if (items.empty()) detail::fail("SequenceErase", "the sequence is empty");
    const std::size_t at =
        position ? detail::seq_position(*position, items.size(), false, "SequenceErase")
                 : items.size() - 1;
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(at));
    return Value<B>::sequence(std::move(items), seq.type());
}

template <class B>
Value<B> sequence_at(const Value<B>& seq, const Value<B>& position) {
    const auto& items = detail::require_sequence(seq, "SequenceAt");
    return items[detail::seq_position(position, items.size(), false, "SequenceAt")];
}

template <class B>
Value<B> sequence_length(const Value<B>& seq, const typename B::Device& dev) {
    const auto& items = detail::require_sequence(seq, "SequenceLength");
    return detail::ints_value<B>({static_cast<std::int64_t>(items.size())}, dev, Shape{});
}

/// SplitToSequence: x split along axis into pieces of `split`'s sizes (a 1-D tensor), into
/// pieces of `split` elements (a scalar; the last may be shorter), or, without split, into
/// pieces of one element, the axis removed unless keepdims.
template <class B>
Value<B> split_to_sequence(const Value<B>& x, const OptValue<B>& split, std::int64_t axis,
                           bool keepdims) {
    const Shape s = x.shape();
    const std::size_t a = detail::norm_axis(axis, s.rank(), "SplitToSequence");
    const std::size_t len = s[a];
    std::vector<std::size_t> sizes;
    if (!split) {
        sizes.assign(len, 1);
    } else {
        const auto v = detail::host_ints(*split, "SplitToSequence", "split");
        if (split->rank() == 0) {
            if (v[0] <= 0) detail::fail("SplitToSequence", "split must be positive, got ", v[0]);
            const auto piece = static_cast<std::size_t>(v[0]);
            for (std::size_t at = 0; at < len; at += piece)
                sizes.push_back(std::min(piece, len - at));
        } else {
            std::int64_t total = 0;
            for (auto e : v) {
                if (e < 0) detail::fail("SplitToSequence", "negative split size ", e);
                total += e;
                sizes.push_back(static_cast<std::size_t>(e));
            }
            if (total != static_cast<std::int64_t>(len))
                detail::fail("SplitToSequence", "split sizes sum to ", total, ", dim ", a, " of ",
                             x.describe(), " has ", len);
        }
    }
    std::vector<Value<B>> items;
    std::size_t at = 0;
    for (std::size_t n : sizes) {
        Value<B> piece = detail::narrow(x, a, at, n);
        if (!split && !keepdims)
            piece = detail::reshape(
                piece, detail::squeeze_shape(piece.shape(), std::vector<std::size_t>{a}));
        items.push_back(std::move(piece));
        at += n;
    }
    return Value<B>::sequence(std::move(items), x.type());
}

/// ConcatFromSequence: the tensors concatenated along axis, or stacked along a new axis.
template <class B>
Value<B> concat_from_sequence(const Value<B>& seq, std::int64_t axis, bool new_axis) {
    const auto& items = detail::require_sequence(seq, "ConcatFromSequence");
    if (items.empty()) detail::fail("ConcatFromSequence", "the sequence is empty");
    const std::size_t r = items.front().rank();
    const std::size_t a = detail::norm_axis(axis, new_axis ? r + 1 : r, "ConcatFromSequence");
    std::vector<Value<B>> parts;
    for (const auto& v : items) {
        if (v.rank() != r)
            detail::fail("ConcatFromSequence", "tensors of ranks ", r, " and ", v.rank(),
                         " cannot be joined");
        if (!new_axis) {
            parts.push_back(v);
            continue;
        }
        Shape t;
        const Shape vs = v.shape();
        for (std::size_t i = 0; i <= r; ++i) {
            if (i == a) t.push_back(1);
            if (i < r) t.push_back(vs[i]);
        }
        parts.push_back(detail::reshape(v, t));
    }
    for (const auto& p : parts) {
        const Shape ps = p.shape(), fs = parts.front().shape();
        for (std::size_t d = 0; d < ps.rank(); ++d)
            if (d != a && ps[d] != fs[d])
                detail::fail("ConcatFromSequence", "tensors ", items.front().describe(), " and ",
                             p.describe(), " differ outside axis ", a);
    }
    return detail::cat(parts, a);
}

/// SequenceMap: the body run once per position of the input sequence, on the tensor at that
/// position and, for each additional input, its tensor at the position (a sequence of the same
/// length) or the tensor itself; each body output collected into a sequence.
template <class B>
std::vector<Value<B>> sequence_map(const Value<B>& seq, const std::vector<Value<B>>& extra,
                                   const Subgraph<B>& body) {
    const auto& items = detail::require_sequence(seq, "SequenceMap");
    const std::size_t n = items.size();
    for (const auto& e : extra)
        if (e.is_sequence() && e.items().size() != n)
            detail::fail("SequenceMap", "the additional sequence ", e.describe(),
                         " does not have the input sequence's length ", n);
    const std::size_t m = body.desc.outputs.size();
    std::vector<std::vector<Value<B>>> acc(m);
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<Value<B>> in{items[i]};
        for (const auto& e : extra) in.push_back(e.is_sequence() ? e.items()[i] : e);
        auto out =
            detail::run_iteration(body, std::move(in), static_cast<std::int64_t>(i), "SequenceMap");
        for (std::size_t j = 0; j < m; ++j) acc[j].push_back(std::move(out[j]));
    }
    std::vector<Value<B>> result;
    for (std::size_t j = 0; j < m; ++j) {
        const ElemType t = acc[j].empty() ? body.desc.outputs[j].type : acc[j].front().type();
        result.push_back(Value<B>::sequence(std::move(acc[j]), t));
    }
    return result;
}

template <class B>
Value<B> optional_get_element(const Value<B>& v) {
    if (v.is_none()) detail::fail("OptionalGetElement", "the optional is empty");
    return v;
}

template <class B>
Value<B> optional_has_element(const OptValue<B>& v, const typename B::Device& dev) {
    return detail::full<B>(Shape{}, v && !v->is_none() ? 1.0 : 0.0, ElemType::Bool, dev);
}

}  // namespace burn::onnx::ops

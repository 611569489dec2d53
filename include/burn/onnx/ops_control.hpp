// SPDX-License-Identifier: MIT OR Apache-2.0
// Control flow of the ONNX op library: If, Loop and Scan over subgraphs given as callables. The
// two front ends run a subgraph their own way (Graph<B> interprets its nodes, generated code
// calls a lambda holding the body's statements); the semantics, the checks of the node's
// structure and the run-time checks (scalar conditions, types and shapes across iterations) are
// these functions, shared by both.
//
//   ops::Subgraph<B> then_b{*node.attr_graph("then_branch"), run_then};
//   auto outs = ops::if_(cond, then_b, else_b);
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "burn/onnx/model.hpp"
#include "burn/onnx/ops_common.hpp"

namespace burn::onnx {

/// A subgraph ready to run: the values of its inputs, in order -> its outputs, in order.
template <class B>
using SubgraphFn = std::function<std::vector<Value<B>>(std::vector<Value<B>>)>;
/// A node's graph attributes ready to run, by attribute name.
template <class B>
using SubgraphFns = std::map<std::string, SubgraphFn<B>, std::less<>>;

/// Whether the op runs subgraphs (If, Loop, Scan of the default domain).
inline bool is_control_flow(const Node& n) {
    return n.domain.empty() && (n.op_type == "If" || n.op_type == "Loop" || n.op_type == "Scan");
}

namespace detail {

[[noreturn]] inline void structure_error(const Node& n, const std::string& what) {
    ::burn::detail::fail("onnx::", n.op_type, ": ", what);
}

inline const GraphDesc& required_graph(const Node& n, std::string_view key) {
    const GraphDesc* g = n.attr_graph(key);
    if (!g)
        structure_error(n, "the required graph attribute '" + std::string(key) + "' is missing");
    return *g;
}

inline std::string graph_label(const GraphDesc& g, std::string_view key) {
    return "attribute '" + std::string(key) + "' (graph '" + g.name + "')";
}

inline void check_list(const Node& n, std::string_view key, std::size_t want, const char* of_what,
                       bool directions) {
    if (!n.has_attr(key)) return;
    const auto v = n.attr_ints(key);
    if (v.size() != want)
        structure_error(n, "attribute '" + std::string(key) + "' has " + std::to_string(v.size()) +
                               " values, expected " + std::to_string(want) + " (one per " +
                               of_what + ")");
    if (directions)
        for (auto d : v)
            if (d != 0 && d != 1)
                structure_error(n, "attribute '" + std::string(key) +
                                       "' must hold 0 (forward) or 1 (reverse), got " +
                                       std::to_string(d));
}

}  // namespace detail

/// Checks the structure of a control-flow node against its subgraphs: the graph attributes are
/// present, the numbers of inputs and outputs of the node and of its subgraphs agree, and the
/// per-input and per-output attribute lists have the right lengths. Throws burn::Error saying
/// what was expected ("onnx::Loop: attribute 'body' (graph 'b') declares 2 inputs, expected 3
/// ..."; the callers add which node); does nothing for other ops.
inline void check_control_flow(const Node& n, std::int64_t opset) {
    if (!is_control_flow(n)) return;
    auto fail = [&](const std::string& what) { detail::structure_error(n, what); };
    const auto n_in = n.inputs.size(), n_out = n.outputs.size();
    const auto num = [](std::size_t x) { return std::to_string(x); };
    if (n.op_type == "If") {
        if (n_in != 1) fail("takes one input (cond), got " + num(n_in));
        if (n.inputs[0].empty()) fail("the input cond is omitted");
        for (const char* key : {"then_branch", "else_branch"}) {
            const GraphDesc& g = detail::required_graph(n, key);
            if (!g.inputs.empty())
                fail(detail::graph_label(g, key) + " declares " + num(g.inputs.size()) +
                     " inputs; a branch takes none (it reads outer values by name)");
            if (g.outputs.size() != n_out)
                fail(detail::graph_label(g, key) + " has " + num(g.outputs.size()) +
                     " outputs, the node " + num(n_out) + " (they must be equal)");
        }
        return;
    }
    if (n.op_type == "Loop") {
        const GraphDesc& g = detail::required_graph(n, "body");
        if (n_in < 2)
            fail(
                "takes M, cond and the loop-carried values as inputs (M and cond may be empty "
                "names), got " +
                num(n_in) + " inputs");
        if (n.inputs[0].empty() && n.inputs[1].empty())
            fail("neither M (the trip count) nor cond is given: the loop would never end");
        const std::size_t carried = n_in - 2;
        for (std::size_t i = 2; i < n_in; ++i)
            if (n.inputs[i].empty())
                fail("loop-carried input " + num(i) + " is omitted (only M and cond may be)");
        if (n_out < carried)
            fail("has " + num(carried) + " loop-carried inputs but only " + num(n_out) +
                 " outputs (the final loop-carried values come first)");
        if (g.inputs.size() != 2 + carried)
            fail(detail::graph_label(g, "body") + " declares " + num(g.inputs.size()) +
                 " inputs, expected " + num(2 + carried) + " (iteration_num, cond and the node's " +
                 num(carried) + " loop-carried values)");
        if (g.outputs.size() != 1 + n_out)
            fail(detail::graph_label(g, "body") + " has " + num(g.outputs.size()) +
                 " outputs, expected " + num(1 + n_out) + " (cond, " + num(carried) +
                 " loop-carried values and " + num(n_out - carried) +
                 " scan outputs, as the node's outputs)");
        return;
    }
    // Scan
    const GraphDesc& g = detail::required_graph(n, "body");
    if (!n.has_attr("num_scan_inputs")) fail("the required attribute 'num_scan_inputs' is missing");
    const std::int64_t m = n.attr_int("num_scan_inputs", 0);
    const std::size_t first = opset < 9 ? 1 : 0;  // opset 8: sequence_lens comes first
    if (m < 1 || static_cast<std::size_t>(m) + first > n_in)
        fail("num_scan_inputs is " + std::to_string(m) + ", expected 1 to " +
             num(n_in > first ? n_in - first : 0) + " (the node has " + num(n_in) + " inputs" +
             (first ? ", the first being sequence_lens" : "") + ")");
    const auto scans = static_cast<std::size_t>(m);
    const std::size_t states = n_in - first - scans;
    for (std::size_t i = first; i < n_in; ++i)
        if (n.inputs[i].empty()) fail("input " + num(i) + " is omitted");
    if (n_out < states)
        fail("has " + num(states) + " state inputs but only " + num(n_out) +
             " outputs (the final states come first)");
    if (g.inputs.size() != states + scans)
        fail(detail::graph_label(g, "body") + " declares " + num(g.inputs.size()) +
             " inputs, expected " + num(states + scans) + " (" + num(states) + " states and " +
             num(scans) + " scan input elements)");
    if (g.outputs.size() != n_out)
        fail(detail::graph_label(g, "body") + " has " + num(g.outputs.size()) +
             " outputs, expected " + num(n_out) + " (as the node: " + num(states) + " states and " +
             num(n_out - states) + " scan output elements)");
    if (opset < 9) {
        detail::check_list(n, "directions", scans, "scan input", true);
    } else {
        detail::check_list(n, "scan_input_axes", scans, "scan input", false);
        detail::check_list(n, "scan_input_directions", scans, "scan input", true);
        detail::check_list(n, "scan_output_axes", n_out - states, "scan output", false);
        detail::check_list(n, "scan_output_directions", n_out - states, "scan output", true);
    }
}

namespace ops {

/// A subgraph of a control-flow node: its declaration (names, types and shapes of its inputs
/// and outputs) and the callable that runs it.
template <class B>
struct Subgraph {
    const GraphDesc& desc;
    const SubgraphFn<B>& fn;

    /// Runs the subgraph; checks the number of outputs it gives.
    std::vector<Value<B>> run(std::vector<Value<B>> inputs, std::string_view op) const {
        auto out = fn(std::move(inputs));
        if (out.size() != desc.outputs.size())
            detail::fail(op, "subgraph '", desc.name, "' gave ", out.size(),
                         " outputs, it declares ", desc.outputs.size());
        return out;
    }
};

/// The attributes of Scan (opset 9 and later; opset 8 has only `directions`).
struct ScanAttrs {
    std::vector<std::int64_t> input_axes;         ///< one per scan input; empty: all 0
    std::vector<std::int64_t> input_directions;   ///< 0 forward, 1 reverse; empty: all forward
    std::vector<std::int64_t> output_axes;        ///< one per scan output; empty: all 0
    std::vector<std::int64_t> output_directions;  ///< 1: each iteration prepends
};

namespace detail {

/// The value of a condition: a bool tensor holding exactly one element.
template <class B>
bool condition(const Value<B>& v, std::string_view op, std::string_view what) {
    if (!v.is_bool() || v.shape().num_elements() != 1)
        fail(op, what, " must be a bool tensor with exactly one element, got ", v.describe());
    return v.to_ints()[0] != 0;
}

/// A scalar value of the loop counter (int64, rank 0).
template <class B>
Value<B> scalar_int(std::int64_t i, const typename B::Device& dev) {
    return ints_value<B>({i}, dev, Shape{});
}

/// The values stacked along a new axis `axis` (each value gets a size-1 dim there).
template <class B>
Value<B> stack(const std::vector<Value<B>>& vs, std::size_t axis, std::string_view op) {
    const Shape s = vs.front().shape();
    if (s.rank() + 1 > Shape::max_rank)
        fail(op, "cannot stack rank-", s.rank(), " values: burn-cpp supports at most rank ",
             Shape::max_rank);
    Shape t;
    for (std::size_t d = 0; d < s.rank(); ++d) {
        if (d == axis) t.push_back(1);
        t.push_back(s[d]);
    }
    if (axis == s.rank()) t.push_back(1);
    std::vector<Value<B>> parts;
    parts.reserve(vs.size());
    for (const auto& v : vs) parts.push_back(reshape(v, t));
    return parts.size() == 1 ? parts.front() : cat(parts, axis);
}

/// The element type and shape of a scan output as the subgraph declares it, for a scan that ran
/// no iteration: unknown dims and an undeclared shape give size 0 (no element exists anyway), an
/// undeclared type float.
inline std::pair<Shape, ElemType> declared_element(const ValueInfo& vi, std::size_t extra_dims,
                                                   std::string_view op) {
    const ElemType t = is_supported_elem_type(vi.type) ? vi.type : ElemType::Float;
    Shape elem;
    if (vi.has_shape) {
        if (vi.dims.size() + extra_dims > Shape::max_rank)
            fail(op, "scan output '", vi.name, "' is declared ", vi.describe(),
                 ": stacked, its rank would exceed ", Shape::max_rank);
        for (auto d : vi.dims) elem.push_back(d > 0 ? static_cast<std::size_t>(d) : 0);
    }
    return {elem, t};
}

/// The scan output of zero iterations: the declared element with a dim of 0 inserted at `axis`.
template <class B>
Value<B> empty_scan_output(const ValueInfo& vi, std::int64_t axis, std::string_view op,
                           const typename B::Device& dev) {
    const auto [elem, t] = declared_element(vi, 1, op);
    const std::size_t a = norm_axis(axis, elem.rank() + 1, op);
    Shape s;
    for (std::size_t d = 0; d <= elem.rank(); ++d) {
        if (d == a) s.push_back(0);
        if (d < elem.rank()) s.push_back(elem[d]);
    }
    return full<B>(s, 0.0, t, dev);
}

/// Appends one iteration's scan output element to `acc`, checking it keeps the first element's
/// type and shape ("It is an error if the dimensions or data type of these scan_outputs change
/// across loop iterations").
template <class B>
void collect(std::vector<Value<B>>& acc, Value<B> v, std::size_t k, const ValueInfo& vi,
             std::int64_t iter, std::string_view op) {
    if (!acc.empty() && (acc.front().type() != v.type() || acc.front().shape() != v.shape()))
        fail(op, "scan output ", k, " ('", vi.name, "') is ", v.describe(), " at iteration ", iter,
             " but ", acc.front().describe(),
             " at iteration 0: scan outputs must keep their type and shape");
    acc.push_back(std::move(v));
}

/// Runs the subgraph, prefixing its errors with the iteration.
template <class B>
std::vector<Value<B>> run_iteration(const Subgraph<B>& body, std::vector<Value<B>> in,
                                    std::int64_t iter, std::string_view op) {
    try {
        return body.run(std::move(in), op);
    } catch (const std::exception& e) {
        fail(op, "iteration ", iter, " of subgraph '", body.desc.name, "': ", e.what());
    }
}

/// One sequence of Scan (opset 9 form): `state` and `inputs` without a batch dim.
template <class B>
std::vector<Value<B>> scan_sequence(std::vector<Value<B>> state,
                                    const std::vector<Value<B>>& inputs, const ScanAttrs& a,
                                    const Subgraph<B>& body, const typename B::Device& dev) {
    const std::size_t n = state.size(), m = inputs.size();
    const std::size_t k_out = body.desc.outputs.size() - n;
    auto at = [](const std::vector<std::int64_t>& v, std::size_t i) -> std::int64_t {
        return v.empty() ? 0 : v[i];
    };
    std::vector<std::size_t> axes(m);
    std::size_t len = 0;
    for (std::size_t j = 0; j < m; ++j) {
        const Shape s = inputs[j].shape();
        if (s.rank() == 0) fail("Scan", "scan input ", j, " is a scalar; it needs an axis to scan");
        axes[j] = norm_axis(at(a.input_axes, j), s.rank(), "Scan");
        if (j == 0) len = s[axes[0]];
        else if (s[axes[j]] != len)
            fail("Scan", "scan input ", j, " is ", inputs[j].describe(), ": its length along axis ",
                 axes[j], " is ", s[axes[j]], ", scan input 0 has ", len,
                 " (every scan input must have the same length)");
    }
    std::vector<std::vector<Value<B>>> acc(k_out);
    for (std::size_t t = 0; t < len; ++t) {
        std::vector<Value<B>> in;
        in.reserve(n + m);
        for (auto& v : state) in.push_back(std::move(v));
        for (std::size_t j = 0; j < m; ++j) {
            const std::size_t idx = at(a.input_directions, j) == 1 ? len - 1 - t : t;
            const Value<B> slice = narrow(inputs[j], axes[j], idx, 1);
            std::vector<std::size_t> drop{axes[j]};
            in.push_back(reshape(slice, squeeze_shape(slice.shape(), drop)));
        }
        std::vector<Shape> shapes;
        std::vector<std::string> before;
        for (std::size_t i = 0; i < n; ++i) {
            shapes.push_back(in[i].shape());
            before.push_back(in[i].describe());
        }
        std::vector<ElemType> types;
        for (std::size_t i = 0; i < n; ++i) types.push_back(in[i].type());
        auto out = run_iteration(body, std::move(in), static_cast<std::int64_t>(t), "Scan");
        for (std::size_t i = 0; i < n; ++i) {
            if (out[i].type() != types[i] || out[i].shape() != shapes[i])
                fail("Scan", "state ", i, " ('", body.desc.outputs[i].name, "') is ",
                     out[i].describe(), " after iteration ", t, ", it was ", before[i],
                     ": Scan states must keep their type and shape");
            state[i] = std::move(out[i]);
        }
        for (std::size_t k = 0; k < k_out; ++k)
            collect(acc[k], std::move(out[n + k]), k, body.desc.outputs[n + k],
                    static_cast<std::int64_t>(t), "Scan");
    }
    std::vector<Value<B>> result = std::move(state);
    for (std::size_t k = 0; k < k_out; ++k) {
        const std::int64_t axis = at(a.output_axes, k);
        if (acc[k].empty()) {
            result.push_back(empty_scan_output<B>(body.desc.outputs[n + k], axis, "Scan", dev));
            continue;
        }
        if (at(a.output_directions, k) == 1) std::reverse(acc[k].begin(), acc[k].end());
        const std::size_t r = acc[k].front().rank();
        result.push_back(stack(acc[k], norm_axis(axis, r + 1, "Scan"), "Scan"));
    }
    return result;
}

}  // namespace detail

/// If: runs `then_b` when `cond` (a bool tensor of one element) is true, else `else_b`, and
/// returns the chosen branch's outputs.
template <class B>
std::vector<Value<B>> if_(const Value<B>& cond, const Subgraph<B>& then_b,
                          const Subgraph<B>& else_b) {
    const bool c = detail::condition(cond, "If", "cond");
    const Subgraph<B>& branch = c ? then_b : else_b;
    try {
        return branch.run({}, "If");
    } catch (const std::exception& e) {
        detail::fail("If", c ? "then" : "else", " branch '", branch.desc.name, "': ", e.what());
    }
}

/// Loop: runs `body` while the iteration number is below `max_trip` (when given) and the
/// condition holds (`cond` when given, then the body's first output). The body takes
/// (iteration_num, cond, carried...) and gives (cond, carried..., scan elements...). Returns the
/// final loop-carried values and the scan outputs, each the iterations' elements stacked along a
/// new axis 0 (length 0 when no iteration ran: the element shape then comes from the body's
/// declaration). Loop-carried values keep their type; their shape may change between iterations,
/// as ONNX allows; scan elements keep their type and shape.
template <class B>
std::vector<Value<B>> loop(const OptValue<B>& max_trip, const OptValue<B>& cond,
                           std::vector<Value<B>> carried, const Subgraph<B>& body,
                           const typename B::Device& dev) {
    const std::size_t n = carried.size();
    if (body.desc.outputs.size() < 1 + n)
        detail::fail("Loop", "the body has ", body.desc.outputs.size(),
                     " outputs, expected at least ", 1 + n);
    const std::size_t k_out = body.desc.outputs.size() - 1 - n;
    std::optional<std::int64_t> trips;
    if (max_trip) {
        if (!max_trip->is_int() || max_trip->shape().num_elements() != 1)
            detail::fail("Loop",
                         "M (the trip count) must be an int64 tensor with exactly one "
                         "element, got ",
                         max_trip->describe());
        trips = max_trip->to_ints()[0];
    }
    bool keep_going = cond ? detail::condition(*cond, "Loop", "cond") : true;
    if (!max_trip && !cond)
        detail::fail("Loop", "neither M nor cond is given: the loop would never end");
    std::vector<ElemType> types;
    for (const auto& v : carried) types.push_back(v.type());
    std::vector<std::vector<Value<B>>> acc(k_out);
    for (std::int64_t i = 0; (!trips || i < *trips) && keep_going; ++i) {
        std::vector<Value<B>> in;
        in.reserve(2 + n);
        in.push_back(detail::scalar_int<B>(i, dev));
        in.push_back(detail::full<B>(Shape{}, 1.0, ElemType::Bool, dev));
        for (auto& v : carried) in.push_back(std::move(v));
        auto out = detail::run_iteration(body, std::move(in), i, "Loop");
        if (cond)
            keep_going = detail::condition(
                out[0], "Loop", "the body's cond output at iteration " + std::to_string(i));
        for (std::size_t j = 0; j < n; ++j) {
            // An empty optional (no type) may become a value and back.
            if (out[1 + j].type() != types[j] && types[j] != ElemType::Undefined &&
                out[1 + j].type() != ElemType::Undefined)
                detail::fail("Loop", "loop-carried value ", j, " ('", body.desc.outputs[1 + j].name,
                             "') is ", out[1 + j].describe(), " after iteration ", i,
                             ", it started as ", elem_type_name(types[j]),
                             ": loop-carried values keep their type");
            carried[j] = std::move(out[1 + j]);
        }
        for (std::size_t k = 0; k < k_out; ++k)
            detail::collect(acc[k], std::move(out[1 + n + k]), k, body.desc.outputs[1 + n + k], i,
                            "Loop");
    }
    std::vector<Value<B>> result = std::move(carried);
    for (std::size_t k = 0; k < k_out; ++k) {
        if (acc[k].empty())
            result.push_back(
                detail::empty_scan_output<B>(body.desc.outputs[1 + n + k], 0, "Loop", dev));
        else result.push_back(detail::stack(acc[k], 0, "Loop"));
    }
    return result;
}

/// Scan (opset 9 and later): iterates over the scan inputs along their axes (reversed where the
/// direction is 1); the body takes (states..., one slice of each scan input) and gives (states...,
/// scan elements...). Returns the final states and the scan outputs, stacked along their output
/// axes (prepended where the output direction is 1). States keep their type and shape.
template <class B>
std::vector<Value<B>> scan(std::vector<Value<B>> state, const std::vector<Value<B>>& inputs,
                           const ScanAttrs& a, const Subgraph<B>& body,
                           const typename B::Device& dev) {
    if (inputs.empty()) detail::fail("Scan", "needs at least one scan input");
    if (body.desc.outputs.size() < state.size())
        detail::fail("Scan", "the body has ", body.desc.outputs.size(), " outputs, fewer than the ",
                     state.size(), " states");
    return detail::scan_sequence(std::move(state), inputs, a, body, dev);
}

/// Scan of opset 8: states have a leading batch dim, scan inputs [batch, sequence, ...];
/// `sequence_lens` (int, [batch]) limits each batch entry's sequence (default: all of it), whose
/// scan outputs are padded with zeros to the full length. `directions`: one per scan input.
template <class B>
std::vector<Value<B>> scan_batched(const OptValue<B>& sequence_lens, std::vector<Value<B>> state,
                                   const std::vector<Value<B>>& inputs,
                                   const std::vector<std::int64_t>& directions,
                                   const Subgraph<B>& body, const typename B::Device& dev) {
    if (inputs.empty()) detail::fail("Scan", "needs at least one scan input");
    const std::size_t n = state.size();
    if (body.desc.outputs.size() < n)
        detail::fail("Scan", "the body has ", body.desc.outputs.size(), " outputs, fewer than the ",
                     n, " states");
    const std::size_t k_out = body.desc.outputs.size() - n;
    const Shape s0 = inputs[0].shape();
    if (s0.rank() < 2)
        detail::fail("Scan", "(opset 8) scan input 0 must be [batch, sequence, ...], got ",
                     inputs[0].describe());
    const std::size_t batch = s0[0], seq = s0[1];
    for (std::size_t j = 0; j < inputs.size(); ++j) {
        const Shape s = inputs[j].shape();
        if (s.rank() < 2 || s[0] != batch || s[1] != seq)
            detail::fail("Scan", "(opset 8) scan input ", j, " is ", inputs[j].describe(),
                         ", expected [", batch, ", ", seq, ", ...] as scan input 0");
    }
    for (std::size_t i = 0; i < n; ++i)
        if (state[i].rank() < 1 || state[i].shape()[0] != batch)
            detail::fail("Scan", "(opset 8) state ", i, " is ", state[i].describe(),
                         ", expected a leading batch dim of ", batch);
    std::vector<std::int64_t> lens(batch, static_cast<std::int64_t>(seq));
    if (sequence_lens) {
        lens = detail::host_ints(*sequence_lens, "Scan", "sequence_lens");
        if (lens.size() != batch)
            detail::fail("Scan", "sequence_lens has ", lens.size(), " values, the batch is ",
                         batch);
        for (auto l : lens)
            if (l < 0 || l > static_cast<std::int64_t>(seq))
                detail::fail("Scan", "sequence_lens holds ", l, ", expected 0 to ", seq);
    }
    ScanAttrs a;
    a.input_directions = directions;
    auto drop_batch = [](const Value<B>& v, std::size_t b) {
        const Value<B> x = detail::narrow(v, 0, b, 1);
        const std::vector<std::size_t> axis0{0};
        return detail::reshape(x, detail::squeeze_shape(x.shape(), axis0));
    };
    std::vector<std::vector<Value<B>>> states_b(n), scans_b(k_out);
    for (std::size_t b = 0; b < batch; ++b) {
        std::vector<Value<B>> st, in;
        for (const auto& v : state) st.push_back(drop_batch(v, b));
        const auto len = static_cast<std::size_t>(lens[b]);
        for (const auto& v : inputs) in.push_back(detail::narrow(drop_batch(v, b), 0, 0, len));
        std::vector<Value<B>> out;
        try {
            out = detail::scan_sequence(std::move(st), in, a, body, dev);
        } catch (const std::exception& e) {
            detail::fail("Scan", "batch entry ", b, ": ", e.what());
        }
        for (std::size_t i = 0; i < n; ++i) states_b[i].push_back(std::move(out[i]));
        for (std::size_t k = 0; k < k_out; ++k) scans_b[k].push_back(std::move(out[n + k]));
    }
    std::vector<Value<B>> result;
    for (std::size_t i = 0; i < n; ++i)
        result.push_back(batch == 0 ? state[i] : detail::stack(states_b[i], 0, "Scan"));
    for (std::size_t k = 0; k < k_out; ++k) {
        // The element of this output: from an entry that ran, else from the declaration.
        const ValueInfo& vi = body.desc.outputs[n + k];
        Shape elem;
        ElemType type = ElemType::Float;
        bool known = false;
        for (std::size_t b = 0; b < batch && !known; ++b)
            if (lens[b] > 0) {
                const Shape s = scans_b[k][b].shape();
                elem = Shape(s.dims().subspan(1));
                type = scans_b[k][b].type();
                known = true;
            }
        if (!known) std::tie(elem, type) = detail::declared_element(vi, 2, "Scan");
        Shape full_shape{seq};
        for (auto d : elem) full_shape.push_back(d);
        if (batch == 0) {
            Shape s{0};
            for (auto d : full_shape) s.push_back(d);
            result.push_back(detail::full<B>(s, 0.0, type, dev));
            continue;
        }
        for (std::size_t b = 0; b < batch; ++b) {
            Value<B>& y = scans_b[k][b];
            const auto len = static_cast<std::size_t>(lens[b]);
            if (len == seq) continue;
            // Pad the sequence with zeros to the full length.
            Shape pad = full_shape;
            pad[0] = seq - len;
            y = len == 0 ? detail::full<B>(pad, 0.0, type, dev)
                         : detail::cat<B>({y, detail::full<B>(pad, 0.0, type, dev)}, 0);
        }
        for (std::size_t b = 1; b < batch; ++b)
            if (scans_b[k][b].shape() != scans_b[k][0].shape() ||
                scans_b[k][b].type() != scans_b[k][0].type())
                detail::fail("Scan", "scan output ", k, " ('", vi.name, "') is ",
                             scans_b[k][b].describe(), " for batch entry ", b, " but ",
                             scans_b[k][0].describe(), " for entry 0");
        result.push_back(detail::stack(scans_b[k], 0, "Scan"));
    }
    return result;
}

}  // namespace ops
}  // namespace burn::onnx

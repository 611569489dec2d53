// SPDX-License-Identifier: MIT OR Apache-2.0
// What the headers written by the ONNX code generator (`burn-onnx`, burn/onnx/codegen.hpp) call:
// one node is run through the op registry (burn/onnx/registry.hpp), the same per-op functions
// that burn::onnx::Graph<B> dispatches to; tensors and parameters become Value<B>s and back. The
// subgraphs of If, Loop and Scan are lambdas of the generated forward_values, given to the node
// as its SubgraphFns. Not meant to be used by hand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burn/module/module.hpp"
#include "burn/onnx/model.hpp"
#include "burn/onnx/registry.hpp"
#include "burn/onnx/value.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::onnx::gen {

/// One attribute of a generated node.
struct Attr {
    std::string name;
    Attribute::Value value;
};

/// A node as the generator wrote it (op type, name, inputs, outputs, attributes).
inline Node node(std::string op_type, std::string name, std::string domain,
                 std::vector<std::string> inputs, std::vector<std::string> outputs,
                 std::vector<Attr> attrs = {}) {
    Node n;
    n.op_type = std::move(op_type);
    n.name = std::move(name);
    n.domain = std::move(domain);
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    for (auto& a : attrs) n.attributes.emplace(std::move(a.name), Attribute{std::move(a.value)});
    return n;
}

/// Host data written by the generator: `values` (doubles for float types, int64 otherwise) in
/// `shape`, converted to the storage dtype of the ONNX type `type`.
template <class E>
TypedData typed(std::string name, ElemType type, std::vector<E> values,
                std::vector<std::size_t> shape) {
    TensorData d(std::move(values), Shape(shape));
    const DType want = storage_dtype(type);
    return TypedData{std::move(name), type, d.dtype == want ? d : d.convert(want)};
}

inline constexpr double inf = std::numeric_limits<double>::infinity();
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// The declaration of a subgraph input or output (`dims`: -1 for an unknown dim).
inline ValueInfo value_info(std::string name, ElemType type, std::vector<std::int64_t> dims,
                            bool has_shape) {
    ValueInfo v;
    v.name = std::move(name);
    v.type = type;
    v.dim_names.resize(dims.size());
    v.dims = std::move(dims);
    v.has_shape = has_shape;
    return v;
}

/// A graph attribute as the node table holds it: the subgraph's name and the declarations of its
/// inputs and outputs (its nodes are the statements of a lambda of forward_values).
inline GraphAttr signature(std::string name, std::vector<ValueInfo> inputs,
                           std::vector<ValueInfo> outputs) {
    auto g = std::make_shared<GraphDesc>();
    g->name = name;
    g->inputs = std::move(inputs);
    g->outputs = std::move(outputs);
    return GraphAttr{std::move(name), std::move(g)};
}

namespace detail {
/// Runs `n` through the op registry; errors start with `prefix` (empty inside a subgraph: the
/// control-flow op that runs it says where).
template <class B>
std::vector<Value<B>> run(std::string_view prefix, const Node& n, std::int64_t opset,
                          std::vector<ops::OptValue<B>>& inputs, const typename B::Device& device,
                          const SubgraphFns<B>& subgraphs) {
    const auto* e = OpRegistry<B>::instance().find(n.domain, n.op_type, opset);
    if (!e)
        ::burn::detail::fail(prefix, n.describe(), ": op ", n.op_type, " at opset ", opset,
                             " is not in the op registry");
    std::vector<Value<B>> outs;
    try {
        outs = e->fn(OpContext<B>{n, std::span<const ops::OptValue<B>>(inputs), opset, device,
                                  subgraphs.empty() ? nullptr : &subgraphs});
    } catch (const std::exception& ex) {
        ::burn::detail::fail(prefix, n.describe(), ": ", ex.what());
    }
    for (std::size_t o = 0; o < n.outputs.size(); ++o)
        if (!n.outputs[o].empty() && o >= outs.size())
            ::burn::detail::fail(prefix, n.describe(), ": output ", o, " ('", n.outputs[o],
                                 "') is not produced by this op");
    return outs;
}
}  // namespace detail

/// Runs `n` (at `opset`) on `inputs` through the op registry; a control-flow node gets its
/// subgraphs as lambdas. Errors name the model and node.
template <class B>
std::vector<Value<B>> run_node(std::string_view model, const Node& n, std::int64_t opset,
                               std::vector<ops::OptValue<B>> inputs,
                               const typename B::Device& device, SubgraphFns<B> subgraphs = {}) {
    const std::string prefix = "onnx generated model " + std::string(model) + ": ";
    return detail::run(prefix, n, opset, inputs, device, subgraphs);
}

/// The same for a node of a subgraph: errors name the node; the control-flow op running the
/// subgraph adds where it is.
template <class B>
std::vector<Value<B>> run_subgraph_node(const Node& n, std::int64_t opset,
                                        std::vector<ops::OptValue<B>> inputs,
                                        const typename B::Device& device,
                                        SubgraphFns<B> subgraphs = {}) {
    return detail::run("", n, opset, inputs, device, subgraphs);
}

/// Releases a value after its last use (one that subgraphs read by reference, so that the node
/// running them could not take it with std::move).
template <class B>
void release(Value<B>& v) {
    [[maybe_unused]] const Value<B> released = std::move(v);
}

/// Checks the number of values given to a subgraph's lambda.
template <class B>
void check_subgraph_inputs(const std::vector<Value<B>>& in, std::size_t n, const Node& node,
                           std::string_view key) {
    if (in.size() != n)
        ::burn::detail::fail(node.describe(), ": the subgraph of attribute '", key, "' takes ", n,
                             " inputs, given ", in.size());
}

/// A tensor as a value of ONNX type `type`.
template <class B, std::size_t D, class K>
Value<B> to_value(const Tensor<B, D, K>& t, ElemType type) {
    if constexpr (std::is_same_v<K, Bool>) return Value<B>(Bool{}, t.primitive());
    else return Value<B>(K{}, t.primitive(), type);
}
/// A parameter's tensor as a value of ONNX type `type`.
template <class B, std::size_t D>
Value<B> param_value(const module::Param<Tensor<B, D>>& p, ElemType type) {
    return Value<B>(Float{}, p.val().primitive(), type);
}

/// A value as a tensor of rank D and kind K; burn::Error naming the model output otherwise.
template <class B, std::size_t D, class K>
Tensor<B, D, K> from_value(const Value<B>& v, std::string_view model, std::string_view what) {
    const bool kind_ok = (std::is_same_v<K, Float> && v.is_float()) ||
                         (std::is_same_v<K, Int> && v.is_int()) ||
                         (std::is_same_v<K, Bool> && v.is_bool());
    if (!kind_ok || v.rank() != D)
        ::burn::detail::fail("onnx generated model ", model, ": output '", what, "' is ",
                             v.describe(), ", expected a rank-", D, " ",
                             std::is_same_v<K, Float> ? "float"
                             : std::is_same_v<K, Int> ? "int"
                                                      : "bool",
                             " tensor (the declared output type)");
    return Tensor<B, D, K>::from_primitive(v.template prim<K>());
}

/// Checks a model input against its declaration: element type, rank and fixed dims (-1: any);
/// a sequence or optional input (`category`) must be one, and only its element type is checked.
/// `declared` is the declaration as text ("float[batch, 3, 224, 224]"), for the message.
template <class B>
void check_input(std::string_view model, const Value<B>& v, std::string_view name, ElemType type,
                 std::initializer_list<std::int64_t> dims, bool has_shape,
                 std::string_view declared, ValueCategory category = ValueCategory::Tensor) {
    const bool seq =
        category == ValueCategory::Sequence || category == ValueCategory::OptionalSequence;
    const bool opt =
        category == ValueCategory::Optional || category == ValueCategory::OptionalSequence;
    bool ok = v.is_none() ? opt : v.is_sequence() == seq;
    ok = ok && (type == ElemType::Undefined || v.is_none() || v.type() == type ||
                (v.is_sequence() && v.items().empty() && v.type() == ElemType::Undefined));
    if (ok && has_shape && v.is_tensor()) {
        const Shape s = v.shape();
        ok = s.rank() == dims.size();
        std::size_t d = 0;
        for (auto want : dims) {
            if (ok && want >= 0 && s[d] != static_cast<std::size_t>(want)) ok = false;
            ++d;
        }
    }
    if (!ok)
        ::burn::detail::fail("onnx generated model ", model, ": input '", name, "' is declared ",
                             declared, ", got ", v.describe());
}

}  // namespace burn::onnx::gen

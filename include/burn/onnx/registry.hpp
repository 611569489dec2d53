// SPDX-License-Identifier: MIT OR Apache-2.0
// The table from ONNX op types to the op library: each entry reads the node's attributes (and the
// opset-dependent attribute-or-input forms), calls burn::onnx::ops and returns the outputs.
// burn::onnx::Graph<B> and generated code dispatch through it; supported_ops() prints it. The
// control-flow entries (If, Loop, Scan) run the node's subgraphs through the callables that the
// front end gives them (OpContext::subgraphs).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "burn/onnx/model.hpp"
#include "burn/onnx/ops.hpp"
#include "burn/onnx/ops_control.hpp"

namespace burn::onnx {

/// What an op implementation sees: the node, its input values (empty for omitted optional
/// inputs), the model's opset, the device and, for control-flow nodes, a callable per graph
/// attribute that runs the subgraph in the node's scope.
template <class B>
struct OpContext {
    const Node& node;
    std::span<const ops::OptValue<B>> inputs;
    std::int64_t opset;
    typename B::Device device;
    const SubgraphFns<B>* subgraphs = nullptr;

    std::size_t num_inputs() const { return inputs.size(); }
    bool has(std::size_t i) const { return i < inputs.size() && inputs[i].has_value(); }
    /// A required input.
    const Value<B>& in(std::size_t i) const {
        if (!has(i))
            ::burn::detail::fail("onnx: ", node.describe(), ": input ", i, " is required but ",
                                 i < inputs.size() ? "omitted" : "missing");
        return *inputs[i];
    }
    ops::OptValue<B> opt(std::size_t i) const { return has(i) ? inputs[i] : std::nullopt; }
    std::vector<Value<B>> all() const {
        std::vector<Value<B>> v;
        for (std::size_t i = 0; i < inputs.size(); ++i)
            if (has(i)) v.push_back(*inputs[i]);
        return v;
    }
    /// Host int64 values of input i (a shape-like tensor), or nullopt when omitted.
    std::optional<std::vector<std::int64_t>> ints(std::size_t i, std::string_view what) const {
        if (!has(i)) return std::nullopt;
        return ops::detail::host_ints(*inputs[i], node.op_type, what);
    }
    /// The single value of input i (a scalar such as a length) as int64, or nullopt when omitted.
    std::optional<std::int64_t> int_scalar(std::size_t i, std::string_view what) const {
        if (!has(i)) return std::nullopt;
        return static_cast<std::int64_t>(ops::detail::host_scalar(*inputs[i], node.op_type, what));
    }
    /// Host int64 values of the required input i.
    std::vector<std::int64_t> req_ints(std::size_t i, std::string_view what) const {
        return ops::detail::host_ints(in(i), node.op_type, what);
    }
    std::size_t num_outputs() const { return node.outputs.size(); }
    bool wants(std::size_t i) const { return i < node.outputs.size() && !node.outputs[i].empty(); }
    /// The subgraph of graph attribute `key` with the callable that runs it.
    ops::Subgraph<B> graph(std::string_view key) const {
        const GraphDesc* g = node.attr_graph(key);
        if (!g)
            ::burn::detail::fail("onnx: ", node.describe(), ": the required graph attribute '", key,
                                 "' is missing");
        const auto it =
            subgraphs ? subgraphs->find(key) : typename SubgraphFns<B>::const_iterator{};
        if (!subgraphs || it == subgraphs->end())
            ::burn::detail::fail("onnx: ", node.describe(),
                                 ": no runner was given for the subgraph '", g->name,
                                 "' of attribute '", key,
                                 "' (control-flow nodes run through Graph<B> or generated code)");
        return {*g, it->second};
    }
};

/// One supported op: its type, domain and the opsets it is implemented for.
struct OpInfo {
    std::string op_type;
    std::string domain;
    std::int64_t since_opset = 1;
    std::int64_t until_opset = 0;  ///< 0: no upper bound
};

template <class B>
class OpRegistry {
public:
    using Fn = std::function<std::vector<Value<B>>(const OpContext<B>&)>;
    struct Entry {
        OpInfo info;
        Fn fn;
    };
    /// The registry with every op of burn::onnx::ops (built once).
    static const OpRegistry& instance();

    /// Registers `op_type` of `domain` ("" for the default domain, ai.onnx).
    void add(std::string op_type, Fn fn, std::int64_t since = 1, std::int64_t until = 0,
             std::string domain = {}) {
        entries_.insert_or_assign(key(domain, op_type),
                                  Entry{{op_type, domain, since, until}, std::move(fn)});
    }
    /// The entry for `op_type` of `domain` at `opset`, or nullptr.
    const Entry* find(std::string_view domain, std::string_view op_type, std::int64_t opset) const {
        auto it = entries_.find(key(domain == "ai.onnx" ? std::string_view{} : domain, op_type));
        if (it == entries_.end()) return nullptr;
        const OpInfo& i = it->second.info;
        if (opset < i.since_opset || (i.until_opset != 0 && opset > i.until_opset)) return nullptr;
        return &it->second;
    }
    std::vector<OpInfo> list() const {
        std::vector<OpInfo> v;
        for (const auto& [_, e] : entries_) v.push_back(e.info);
        return v;
    }

private:
    static std::string key(std::string_view domain, std::string_view op_type) {
        return domain.empty() ? std::string(op_type)
                              : std::string(domain) + "::" + std::string(op_type);
    }
    std::map<std::string, Entry> entries_;
};

/// Calls `fn(node, where)` for every node of `nodes` and, depth first, of their subgraphs. `where`
/// is empty for `nodes` themselves and locates a subgraph's node for messages: " in attribute
/// 'body' of node 'loop1' (Loop)", the enclosing nodes appended.
template <class F>
void for_each_node(const std::vector<Node>& nodes, const F& fn, const std::string& where = {}) {
    for (const auto& n : nodes) {
        fn(n, where);
        for (const auto& [key, g] : n.subgraphs())
            for_each_node(g->nodes, fn, " in attribute '" + key + "' of " + n.describe() + where);
    }
}

/// Checks every node of the model, those of subgraphs included, against `reg`: one burn::Error
/// ("<prefix>: 2 nodes use unsupported ops: Foo (node 'a', opset 13), Bar (node 'b' in attribute
/// 'body' of node 'loop1' (Loop), opset 13)") lists them all. Then checks the structure of every
/// control-flow node (check_control_flow).
template <class B>
void check_model_ops(const OpRegistry<B>& reg, const ModelDesc& m, std::string_view prefix) {
    std::string missing;
    std::size_t count = 0;
    for_each_node(m.nodes, [&](const Node& n, const std::string& where) {
        const std::int64_t opset = m.opset_for(n.domain);
        if (reg.find(n.domain, n.op_type, opset)) return;
        missing += count ? ", " : "";
        missing += n.op_type;
        if (!n.domain.empty()) missing += " (domain " + n.domain + ")";
        missing += " (node '" + n.name + "'" + where + ", opset " + std::to_string(opset) + ")";
        ++count;
    });
    if (count)
        ::burn::detail::fail(
            prefix, ": ", count,
            count == 1 ? " node uses an unsupported op: " : " nodes use unsupported ops: ",
            missing);
    for_each_node(m.nodes, [&](const Node& n, const std::string& where) {
        try {
            check_control_flow(n, m.opset_for(n.domain));
        } catch (const std::exception& e) {
            ::burn::detail::fail(prefix, ": ", n.describe(), where, ": ", e.what());
        }
    });
}

namespace detail {

template <class B>
std::vector<Value<B>> one(Value<B> v) {
    std::vector<Value<B>> out;
    out.push_back(std::move(v));
    return out;
}

inline std::optional<std::int64_t> opt_int_attr(const Node& n, std::string_view key) {
    if (!n.has_attr(key)) return std::nullopt;
    return n.attr_int(key, 0);
}

inline ops::WindowAttrs window_attrs(const Node& n) {
    ops::WindowAttrs a;
    a.auto_pad = n.attr_string("auto_pad", "NOTSET");
    a.kernel_shape = n.attr_ints("kernel_shape");
    a.strides = n.attr_ints("strides");
    a.dilations = n.attr_ints("dilations");
    a.pads = n.attr_ints("pads");
    a.group = n.attr_int("group", 1);
    a.ceil_mode = n.attr_int("ceil_mode", 0) != 0;
    a.count_include_pad = n.attr_int("count_include_pad", 0) != 0;
    a.output_padding = n.attr_ints("output_padding");
    a.output_shape = n.attr_ints("output_shape");
    return a;
}

template <class B>
void register_elementwise(OpRegistry<B>& r) {
    using C = const OpContext<B>&;
#define BURN_ONNX_BINARY(NAME, FN) \
    r.add(NAME, [](C c) { return one<B>(ops::FN(c.in(0), c.in(1))); });
    BURN_ONNX_BINARY("Add", add)
    BURN_ONNX_BINARY("Sub", sub)
    BURN_ONNX_BINARY("Mul", mul)
    BURN_ONNX_BINARY("Div", div)
    BURN_ONNX_BINARY("Pow", pow)
    BURN_ONNX_BINARY("Equal", equal)
    BURN_ONNX_BINARY("Greater", greater)
    BURN_ONNX_BINARY("GreaterOrEqual", greater_or_equal)
    BURN_ONNX_BINARY("Less", less)
    BURN_ONNX_BINARY("LessOrEqual", less_or_equal)
    BURN_ONNX_BINARY("And", logical_and)
    BURN_ONNX_BINARY("Or", logical_or)
    BURN_ONNX_BINARY("Xor", logical_xor)
    BURN_ONNX_BINARY("MatMul", matmul)
    BURN_ONNX_BINARY("PRelu", prelu)
#undef BURN_ONNX_BINARY
#define BURN_ONNX_UNARY(NAME, FN) r.add(NAME, [](C c) { return one<B>(ops::FN(c.in(0))); });
    BURN_ONNX_UNARY("Abs", abs)
    BURN_ONNX_UNARY("Neg", neg)
    BURN_ONNX_UNARY("Sign", sign)
    BURN_ONNX_UNARY("Exp", exp)
    BURN_ONNX_UNARY("Log", log)
    BURN_ONNX_UNARY("Sqrt", sqrt)
    BURN_ONNX_UNARY("Reciprocal", reciprocal)
    BURN_ONNX_UNARY("Sin", sin)
    BURN_ONNX_UNARY("Cos", cos)
    BURN_ONNX_UNARY("Tan", tan)
    BURN_ONNX_UNARY("Tanh", tanh)
    BURN_ONNX_UNARY("Sinh", sinh)
    BURN_ONNX_UNARY("Cosh", cosh)
    BURN_ONNX_UNARY("Asinh", asinh)
    BURN_ONNX_UNARY("Acosh", acosh)
    BURN_ONNX_UNARY("Atanh", atanh)
    BURN_ONNX_UNARY("Atan", atan)
    BURN_ONNX_UNARY("Asin", asin)
    BURN_ONNX_UNARY("Acos", acos)
    BURN_ONNX_UNARY("Sigmoid", sigmoid)
    BURN_ONNX_UNARY("Erf", erf)
    BURN_ONNX_UNARY("Floor", floor)
    BURN_ONNX_UNARY("Ceil", ceil)
    BURN_ONNX_UNARY("Round", round)
    BURN_ONNX_UNARY("Relu", relu)
    BURN_ONNX_UNARY("Softplus", softplus)
    BURN_ONNX_UNARY("Softsign", softsign)
    BURN_ONNX_UNARY("Mish", mish)
    BURN_ONNX_UNARY("HardSwish", hard_swish)
    BURN_ONNX_UNARY("Not", logical_not)
    BURN_ONNX_UNARY("IsNaN", is_nan)
#undef BURN_ONNX_UNARY
    r.add(
        "BitwiseAnd", [](C c) { return one<B>(ops::bitwise(c.in(0), c.opt(1), '&')); }, 18);
    r.add(
        "BitwiseOr", [](C c) { return one<B>(ops::bitwise(c.in(0), c.opt(1), '|')); }, 18);
    r.add(
        "BitwiseXor", [](C c) { return one<B>(ops::bitwise(c.in(0), c.opt(1), '^')); }, 18);
    r.add(
        "BitwiseNot", [](C c) { return one<B>(ops::bitwise(c.in(0), ops::OptValue<B>{}, '~')); },
        18);
    r.add("Einsum",
          [](C c) { return one<B>(ops::einsum(c.node.attr_string("equation", ""), c.all())); });
    r.add(
        "Gelu",
        [](C c) {
            const auto approx = c.node.attr_string("approximate", "none");
            if (approx == "none") return one<B>(ops::gelu(c.in(0)));
            if (approx != "tanh")
                ::burn::detail::fail("onnx: ", c.node.describe(),
                                     ": approximate must be none or tanh, got '", approx, "'");
            // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
            auto x = ops::detail::require_float(c.in(0), "Gelu");
            auto inner = B::float_mul_scalar(
                B::float_add(x, B::float_mul_scalar(B::float_mul(B::float_mul(x, x), x), 0.044715)),
                0.7978845608028654);
            auto y = B::float_mul(B::float_mul_scalar(x, 0.5),
                                  B::float_add_scalar(B::float_tanh(inner), 1.0));
            return one<B>(Value<B>(Float{}, y, c.in(0).type()));
        },
        20);
    r.add("Identity", [](C c) { return one<B>(c.in(0)); });
    r.add("Mod",
          [](C c) { return one<B>(ops::mod(c.in(0), c.in(1), c.node.attr_int("fmod", 0) != 0)); });
    r.add("BitShift", [](C c) {
        const auto dir = c.node.attr_string("direction", "");
        if (dir != "LEFT" && dir != "RIGHT")
            ::burn::detail::fail("onnx: ", c.node.describe(),
                                 ": direction must be LEFT or RIGHT, got '", dir, "'");
        return one<B>(ops::bit_shift(c.in(0), c.in(1), dir == "LEFT"));
    });
    r.add("IsInf", [](C c) {
        return one<B>(ops::is_inf(c.in(0), c.node.attr_int("detect_positive", 1) != 0,
                                  c.node.attr_int("detect_negative", 1) != 0));
    });
    r.add("Max", [](C c) { return one<B>(ops::max(c.all())); });
    r.add("Min", [](C c) { return one<B>(ops::min(c.all())); });
    r.add("Sum", [](C c) { return one<B>(ops::sum(c.all())); });
    r.add("Mean", [](C c) { return one<B>(ops::mean(c.all())); });
    r.add("LeakyRelu",
          [](C c) { return one<B>(ops::leaky_relu(c.in(0), c.node.attr_float("alpha", 0.01f))); });
    r.add("Elu", [](C c) { return one<B>(ops::elu(c.in(0), c.node.attr_float("alpha", 1.0f))); });
    r.add("Celu", [](C c) { return one<B>(ops::celu(c.in(0), c.node.attr_float("alpha", 1.0f))); });
    r.add("Selu", [](C c) {
        return one<B>(ops::selu(c.in(0), c.node.attr_float("alpha", 1.67326319217681884765625f),
                                c.node.attr_float("gamma", 1.05070102214813232421875f)));
    });
    r.add("HardSigmoid", [](C c) {
        return one<B>(ops::hard_sigmoid(c.in(0), c.node.attr_float("alpha", 0.2f),
                                        c.node.attr_float("beta", 0.5f)));
    });
    r.add("ThresholdedRelu", [](C c) {
        return one<B>(ops::thresholded_relu(c.in(0), c.node.attr_float("alpha", 1.0f)));
    });
    r.add("Shrink", [](C c) {
        return one<B>(ops::shrink(c.in(0), c.node.attr_float("bias", 0.0f),
                                  c.node.attr_float("lambd", 0.5f)));
    });
    r.add("Softmax", [](C c) {
        return one<B>(
            ops::softmax(c.in(0), c.node.attr_int("axis", c.opset < 13 ? 1 : -1), c.opset));
    });
    r.add("LogSoftmax", [](C c) {
        return one<B>(
            ops::log_softmax(c.in(0), c.node.attr_int("axis", c.opset < 13 ? 1 : -1), c.opset));
    });
    r.add("Hardmax", [](C c) {
        return one<B>(
            ops::hardmax(c.in(0), c.node.attr_int("axis", c.opset < 13 ? 1 : -1), c.opset));
    });
    r.add("Clip", [](C c) {
        std::optional<double> lo, hi;
        if (c.opset < 11) {
            lo = c.node.attr_float("min", -std::numeric_limits<float>::max());
            hi = c.node.attr_float("max", std::numeric_limits<float>::max());
        } else {
            if (c.has(1)) lo = ops::detail::host_scalar(c.in(1), "Clip", "min");
            if (c.has(2)) hi = ops::detail::host_scalar(c.in(2), "Clip", "max");
        }
        return one<B>(ops::clip(c.in(0), lo, hi));
    });
    r.add("Cast", [](C c) {
        return one<B>(ops::cast(c.in(0), static_cast<ElemType>(c.node.require_int("to"))));
    });
    r.add("CastLike", [](C c) { return one<B>(ops::cast(c.in(0), c.in(1).type())); });
    r.add("Where", [](C c) { return one<B>(ops::where(c.in(0), c.in(1), c.in(2))); });
    r.add("Gemm", [](C c) {
        ops::GemmAttrs a;
        a.alpha = c.node.attr_float("alpha", 1.0f);
        a.beta = c.node.attr_float("beta", 1.0f);
        a.trans_a = c.node.attr_int("transA", 0) != 0;
        a.trans_b = c.node.attr_int("transB", 0) != 0;
        return one<B>(ops::gemm(c.in(0), c.in(1), c.opt(2), a));
    });
    r.add("Dropout", [](C c) {
        bool training = false;
        double ratio = 0.5;
        if (c.opset >= 12) {
            if (c.has(1)) ratio = ops::detail::host_scalar(c.in(1), "Dropout", "ratio");
            if (c.has(2))
                training = ops::detail::host_scalar(c.in(2), "Dropout", "training_mode") != 0;
        } else {
            ratio = c.node.attr_float("ratio", 0.5f);
            training = c.opset < 7 && c.node.attr_int("is_test", 0) == 0;
        }
        if (training && ratio > 0) {
            // Training mode: each element kept with probability 1 - ratio and scaled by
            // 1 / (1 - ratio), from the backend's random stream (the seed attribute is not
            // reproduced: no two frameworks share a stream).
            if (ratio >= 1)
                ::burn::detail::fail("onnx: ", c.node.describe(), ": ratio must be < 1, got ",
                                     ratio);
            const Value<B>& x = c.in(0);
            auto xf = ops::detail::require_float(x, "Dropout");
            const Shape s = x.shape();
            auto keep = B::float_lower_elem(
                B::float_random(s, Distribution::Uniform(0.0, 1.0), c.device), 1.0 - ratio);
            auto y = B::float_mul_scalar(B::float_mul(xf, B::bool_into_float(keep)),
                                         1.0 / (1.0 - ratio));
            if (B::float_dtype(y) != B::float_dtype(xf)) y = B::float_cast(y, B::float_dtype(xf));
            std::vector<Value<B>> out{Value<B>(Float{}, y, x.type())};
            if (c.wants(1)) out.emplace_back(Bool{}, keep);
            return out;
        }
        std::vector<Value<B>> out{c.in(0)};
        if (c.wants(1)) {
            const Shape s = c.in(0).shape();
            out.push_back(ops::detail::full<B>(s, 1.0, ElemType::Bool, c.device));
        }
        return out;
    });
}

template <class B>
void register_shape(OpRegistry<B>& r) {
    using C = const OpContext<B>&;
    r.add("Reshape", [](C c) {
        const auto shape = c.opset < 5 ? c.node.attr_ints("shape") : c.req_ints(1, "shape");
        return one<B>(ops::reshape(c.in(0), shape, c.node.attr_int("allowzero", 0) != 0));
    });
    r.add("Flatten", [](C c) { return one<B>(ops::flatten(c.in(0), c.node.attr_int("axis", 1))); });
    r.add("Transpose",
          [](C c) { return one<B>(ops::transpose(c.in(0), c.node.attr_ints("perm"))); });
    r.add("Squeeze", [](C c) {
        std::optional<std::vector<std::int64_t>> axes;
        if (c.opset < 13) {
            if (c.node.has_attr("axes")) axes = c.node.attr_ints("axes");
        } else {
            axes = c.ints(1, "axes");
        }
        return one<B>(ops::squeeze(c.in(0), axes));
    });
    r.add("Unsqueeze", [](C c) {
        const auto axes = c.opset < 13 ? c.node.attr_ints("axes") : c.req_ints(1, "axes");
        return one<B>(ops::unsqueeze(c.in(0), axes));
    });
    r.add("Concat", [](C c) { return one<B>(ops::concat(c.all(), c.node.require_int("axis"))); });
    r.add("Split", [](C c) {
        std::vector<std::int64_t> sizes;
        if (c.opset < 13) sizes = c.node.attr_ints("split");
        else if (auto s = c.ints(1, "split")) sizes = *s;
        return ops::split(c.in(0), c.node.attr_int("axis", 0), sizes, c.num_outputs());
    });
    r.add("Slice", [](C c) {
        if (c.opset < 10)
            return one<B>(ops::slice(c.in(0), c.node.attr_ints("starts"), c.node.attr_ints("ends"),
                                     c.node.attr_ints("axes"), {}));
        return one<B>(ops::slice(c.in(0), c.req_ints(1, "starts"), c.req_ints(2, "ends"),
                                 c.ints(3, "axes").value_or(std::vector<std::int64_t>{}),
                                 c.ints(4, "steps").value_or(std::vector<std::int64_t>{})));
    });
    r.add("Gather",
          [](C c) { return one<B>(ops::gather(c.in(0), c.in(1), c.node.attr_int("axis", 0))); });
    r.add("GatherElements", [](C c) {
        return one<B>(ops::gather_elements(c.in(0), c.in(1), c.node.attr_int("axis", 0)));
    });
    r.add("GatherND", [](C c) {
        return one<B>(ops::gather_nd(c.in(0), c.in(1), c.node.attr_int("batch_dims", 0)));
    });
    r.add("ScatterElements", [](C c) {
        return one<B>(ops::scatter_elements(c.in(0), c.in(1), c.in(2), c.node.attr_int("axis", 0),
                                            c.node.attr_string("reduction", "none")));
    });
    r.add("Scatter", [](C c) {
        return one<B>(
            ops::scatter_elements(c.in(0), c.in(1), c.in(2), c.node.attr_int("axis", 0), "none"));
    });
    r.add("ScatterND", [](C c) {
        return one<B>(
            ops::scatter_nd(c.in(0), c.in(1), c.in(2), c.node.attr_string("reduction", "none")));
    });
    r.add("Expand", [](C c) { return one<B>(ops::expand(c.in(0), c.req_ints(1, "shape"))); });
    r.add("Tile", [](C c) { return one<B>(ops::tile(c.in(0), c.req_ints(1, "repeats"))); });
    r.add("Pad", [](C c) {
        const auto mode = c.node.attr_string("mode", "constant");
        if (c.opset < 11)
            return one<B>(ops::pad(c.in(0), c.node.attr_ints("pads"), mode,
                                   c.node.attr_float("value", 0.0f)));
        const double v =
            c.has(2) ? ops::detail::host_scalar(c.in(2), "Pad", "constant_value") : 0.0;
        return one<B>(ops::pad(c.in(0), c.req_ints(1, "pads"), mode, v,
                               c.ints(3, "axes").value_or(std::vector<std::int64_t>{})));
    });
    r.add("Shape", [](C c) {
        return one<B>(
            ops::shape_of(c.in(0), c.node.attr_int("start", 0), opt_int_attr(c.node, "end")));
    });
    r.add("Size", [](C c) { return one<B>(ops::size_of(c.in(0))); });
    r.add("ConstantOfShape", [](C c) {
        return one<B>(ops::constant_of_shape<B>(c.req_ints(0, "shape"), c.node.attr_tensor("value"),
                                                c.device));
    });
    r.add("Range", [](C c) { return one<B>(ops::range(c.in(0), c.in(1), c.in(2))); });
    r.add("Trilu", [](C c) {
        const std::int64_t k =
            c.has(1) ? static_cast<std::int64_t>(ops::detail::host_scalar(c.in(1), "Trilu", "k"))
                     : 0;
        return one<B>(ops::trilu(c.in(0), k, c.node.attr_int("upper", 1) != 0));
    });
    r.add("EyeLike", [](C c) {
        const auto dt = c.node.has_attr("dtype")
                            ? static_cast<ElemType>(c.node.attr_int("dtype", 1))
                            : c.in(0).type();
        return one<B>(ops::eye_like(c.in(0), c.node.attr_int("k", 0), dt));
    });
    r.add("OneHot", [](C c) {
        return one<B>(ops::one_hot(c.in(0), c.in(1), c.in(2), c.node.attr_int("axis", -1)));
    });
    r.add("ReverseSequence", [](C c) {
        return one<B>(ops::reverse_sequence(c.in(0), c.in(1), c.node.attr_int("batch_axis", 1),
                                            c.node.attr_int("time_axis", 0)));
    });
    r.add("NonZero", [](C c) { return one<B>(ops::non_zero(c.in(0))); });
    r.add("Compress", [](C c) {
        return one<B>(ops::compress(c.in(0), c.in(1), opt_int_attr(c.node, "axis")));
    });
    r.add(
        "Unique",
        [](C c) {
            return ops::unique(c.in(0), opt_int_attr(c.node, "axis"),
                               c.node.attr_int("sorted", 1) != 0);
        },
        11);
    r.add(
        "Det", [](C c) { return one<B>(ops::det(c.in(0))); }, 11);
    r.add(
        "Col2Im",
        [](C c) {
            return one<B>(ops::col2im(c.in(0), c.req_ints(1, "image_shape"),
                                      c.req_ints(2, "block_shape"), c.node.attr_ints("dilations"),
                                      c.node.attr_ints("pads"), c.node.attr_ints("strides")));
        },
        18);
    r.add(
        "CenterCropPad",
        [](C c) {
            return one<B>(
                ops::center_crop_pad(c.in(0), c.req_ints(1, "shape"), c.node.attr_ints("axes")));
        },
        18);
    r.add("DepthToSpace", [](C c) {
        return one<B>(ops::depth_to_space(c.in(0), c.node.require_int("blocksize"),
                                          c.node.attr_string("mode", "DCR")));
    });
    r.add("SpaceToDepth", [](C c) {
        return one<B>(ops::space_to_depth(c.in(0), c.node.require_int("blocksize")));
    });
}

template <class B>
void register_reduce(OpRegistry<B>& r) {
    using C = const OpContext<B>&;
    const std::pair<const char*, ops::ReduceOp> reductions[] = {
        {"ReduceSum", ops::ReduceOp::Sum},
        {"ReduceMean", ops::ReduceOp::Mean},
        {"ReduceMax", ops::ReduceOp::Max},
        {"ReduceMin", ops::ReduceOp::Min},
        {"ReduceProd", ops::ReduceOp::Prod},
        {"ReduceL1", ops::ReduceOp::L1},
        {"ReduceL2", ops::ReduceOp::L2},
        {"ReduceLogSum", ops::ReduceOp::LogSum},
        {"ReduceLogSumExp", ops::ReduceOp::LogSumExp},
        {"ReduceSumSquare", ops::ReduceOp::SumSquare}};
    for (const auto& [name, op] : reductions) {
        const bool sum = std::string_view(name) == "ReduceSum";
        r.add(name, [op = op, sum](C c) {
            ops::ReduceAttrs a;
            a.keepdims = c.node.attr_int("keepdims", 1) != 0;
            a.noop_with_empty_axes = c.node.attr_int("noop_with_empty_axes", 0) != 0;
            const bool from_input = sum ? c.opset >= 13 : c.opset >= 18;
            if (from_input) {
                if (auto axes = c.ints(1, "axes")) a.axes = *axes;
            } else {
                a.axes = c.node.attr_ints("axes");
            }
            return one<B>(ops::reduce(c.in(0), op, a));
        });
    }
    r.add("ArgMax", [](C c) {
        return one<B>(ops::arg_extreme(c.in(0), c.node.attr_int("axis", 0),
                                       c.node.attr_int("keepdims", 1) != 0,
                                       c.node.attr_int("select_last_index", 0) != 0, true));
    });
    r.add("ArgMin", [](C c) {
        return one<B>(ops::arg_extreme(c.in(0), c.node.attr_int("axis", 0),
                                       c.node.attr_int("keepdims", 1) != 0,
                                       c.node.attr_int("select_last_index", 0) != 0, false));
    });
    r.add("TopK", [](C c) {
        const std::int64_t k =
            c.opset < 10
                ? c.node.require_int("k")
                : static_cast<std::int64_t>(ops::detail::host_scalar(c.in(1), "TopK", "K"));
        return ops::top_k(c.in(0), k, c.node.attr_int("axis", -1),
                          c.node.attr_int("largest", 1) != 0);
    });
    r.add("CumSum", [](C c) {
        const auto axis =
            static_cast<std::int64_t>(ops::detail::host_scalar(c.in(1), "CumSum", "axis"));
        return one<B>(ops::cum_sum(c.in(0), axis, c.node.attr_int("exclusive", 0) != 0,
                                   c.node.attr_int("reverse", 0) != 0));
    });
}

template <class B>
void register_nn(OpRegistry<B>& r) {
    using C = const OpContext<B>&;
    r.add("Conv",
          [](C c) { return one<B>(ops::conv(c.in(0), c.in(1), c.opt(2), window_attrs(c.node))); });
    r.add("ConvTranspose", [](C c) {
        return one<B>(ops::conv_transpose(c.in(0), c.in(1), c.opt(2), window_attrs(c.node)));
    });
    r.add("MaxPool", [](C c) {
        return ops::max_pool(c.in(0), window_attrs(c.node), c.wants(1),
                             c.node.attr_int("storage_order", 0) != 0);
    });
    r.add("MaxUnpool", [](C c) {
        return one<B>(
            ops::max_unpool(c.in(0), c.in(1), c.ints(2, "output_shape"), window_attrs(c.node)));
    });
    r.add("AveragePool",
          [](C c) { return one<B>(ops::average_pool(c.in(0), window_attrs(c.node))); });
    r.add("GlobalAveragePool", [](C c) { return one<B>(ops::global_pool(c.in(0), false)); });
    r.add("GlobalMaxPool", [](C c) { return one<B>(ops::global_pool(c.in(0), true)); });
    r.add("BatchNormalization", [](C c) {
        const bool training = c.node.attr_int("training_mode", 0) != 0;
        return ops::batch_norm(c.in(0), c.in(1), c.in(2), c.in(3), c.in(4),
                               c.node.attr_float("epsilon", 1e-5f),
                               c.node.attr_float("momentum", 0.9f), training);
    });
    r.add("LayerNormalization", [](C c) {
        return ops::layer_norm(c.in(0), c.in(1), c.opt(2), c.node.attr_int("axis", -1),
                               c.node.attr_float("epsilon", 1e-5f));
    });
    r.add("InstanceNormalization", [](C c) {
        return one<B>(
            ops::instance_norm(c.in(0), c.in(1), c.in(2), c.node.attr_float("epsilon", 1e-5f)));
    });
    r.add("LpNormalization", [](C c) {
        return one<B>(
            ops::lp_normalization(c.in(0), c.node.attr_int("axis", -1), c.node.attr_int("p", 2)));
    });
    r.add("LpPool", [](C c) {
        return one<B>(ops::lp_pool(c.in(0), window_attrs(c.node),
                                   static_cast<double>(c.opset < 2 ? c.node.attr_float("p", 2.0f)
                                                                   : c.node.attr_int("p", 2))));
    });
    r.add("GlobalLpPool", [](C c) {
        return one<B>(ops::global_lp_pool(
            c.in(0), static_cast<double>(c.opset < 2 ? c.node.attr_float("p", 2.0f)
                                                     : c.node.attr_int("p", 2))));
    });
    r.add(
        "GroupNormalization",
        [](C c) {
            return one<B>(ops::group_norm(c.in(0), c.in(1), c.in(2),
                                          c.node.require_int("num_groups"),
                                          c.node.attr_float("epsilon", 1e-5f)));
        },
        18);
    r.add(
        "DeformConv",
        [](C c) {
            return one<B>(ops::deform_conv(c.in(0), c.in(1), c.in(2), c.opt(3), c.opt(4),
                                           window_attrs(c.node),
                                           c.node.attr_int("offset_group", 1)));
        },
        19);
    r.add(
        "AffineGrid",
        [](C c) {
            return one<B>(ops::affine_grid(c.in(0), c.req_ints(1, "size"),
                                           c.node.attr_int("align_corners", 0) != 0));
        },
        20);
    r.add(
        "RMSNormalization",
        [](C c) {
            return one<B>(ops::rms_norm(c.in(0), c.in(1), c.node.attr_int("axis", -1),
                                        c.node.attr_float("epsilon", 1e-5f)));
        },
        23);
    r.add("MaxRoiPool", [](C c) {
        const auto pooled = c.node.attr_ints("pooled_shape");
        if (pooled.size() != 2)
            ::burn::detail::fail("onnx: ", c.node.describe(),
                                 ": pooled_shape must hold 2 values, got ", pooled.size());
        return one<B>(ops::max_roi_pool(c.in(0), c.in(1), pooled[0], pooled[1],
                                        c.node.attr_float("spatial_scale", 1.0f)));
    });
    r.add("MeanVarianceNormalization", [](C c) {
        return one<B>(ops::mean_variance_norm(c.in(0), c.node.attr_ints("axes", {0, 2, 3})));
    });
    r.add("LRN", [](C c) {
        return one<B>(ops::lrn(c.in(0), c.node.require_int("size"),
                               c.node.attr_float("alpha", 1e-4f), c.node.attr_float("beta", 0.75f),
                               c.node.attr_float("bias", 1.0f)));
    });
    r.add("NegativeLogLikelihoodLoss", [](C c) {
        return one<B>(ops::nll_loss(c.in(0), c.in(1), c.opt(2),
                                    c.node.attr_string("reduction", "mean"),
                                    opt_int_attr(c.node, "ignore_index")));
    });
    r.add("SoftmaxCrossEntropyLoss", [](C c) {
        return ops::softmax_cross_entropy(c.in(0), c.in(1), c.opt(2),
                                          c.node.attr_string("reduction", "mean"),
                                          opt_int_attr(c.node, "ignore_index"));
    });
    auto resize = [](C c) {
        ops::ResizeAttrs a;
        a.mode = c.node.attr_string("mode", "nearest");
        std::vector<double> scales, roi;
        std::vector<std::int64_t> sizes;
        if (c.node.op_type == "Upsample" || c.opset < 11) {
            a.coordinate_transformation_mode = "asymmetric";
            a.nearest_mode = "floor";
            if (c.node.op_type == "Upsample" && c.opset < 9) {
                for (float f : c.node.attr_floats("scales")) scales.push_back(f);
            } else {
                scales = c.in(1).to_doubles();
            }
        } else {
            a.coordinate_transformation_mode =
                c.node.attr_string("coordinate_transformation_mode", "half_pixel");
            a.nearest_mode = c.node.attr_string("nearest_mode", "round_prefer_floor");
            a.cubic_coeff_a = c.node.attr_float("cubic_coeff_a", -0.75f);
            a.exclude_outside = c.node.attr_int("exclude_outside", 0) != 0;
            a.extrapolation_value = c.node.attr_float("extrapolation_value", 0.0f);
            if (c.has(1)) roi = c.in(1).to_doubles();
            if (c.has(2)) scales = c.in(2).to_doubles();
            if (c.has(3)) sizes = c.in(3).to_ints();
            if (!sizes.empty()) scales.clear();
            ops::detail::resize_opset18(c.node, c.in(0).shape(), scales, sizes, roi);
        }
        if (a.mode == "bilinear") a.mode = "linear";
        return one<B>(ops::resize(c.in(0), scales, sizes, roi, a));
    };
    r.add("Resize", resize);
    r.add("Upsample", resize);
    r.add("QuantizeLinear", [](C c) {
        return one<B>(ops::quantize_linear(c.in(0), c.in(1), c.opt(2), c.node.attr_int("axis", 1)));
    });
    r.add("DequantizeLinear", [](C c) {
        return one<B>(
            ops::dequantize_linear(c.in(0), c.in(1), c.opt(2), c.node.attr_int("axis", 1)));
    });
    auto recurrent = [](ops::RnnKind kind) {
        return [kind](C c) {
            ops::RnnAttrs a;
            a.hidden_size = c.node.require_int("hidden_size");
            a.direction = c.node.attr_string("direction", "forward");
            a.activations = c.node.attr_strings("activations");
            a.activation_alpha = c.node.attr_floats("activation_alpha");
            a.activation_beta = c.node.attr_floats("activation_beta");
            if (c.node.has_attr("clip")) a.clip = c.node.attr_float("clip", 0.0f);
            a.linear_before_reset = c.node.attr_int("linear_before_reset", 0) != 0;
            a.input_forget = c.node.attr_int("input_forget", 0) != 0;
            a.layout = c.node.attr_int("layout", 0);
            const bool lstm = kind == ops::RnnKind::Lstm;
            return ops::rnn(kind, c.in(0), c.in(1), c.in(2), c.opt(3), c.opt(4), c.opt(5),
                            lstm ? c.opt(6) : std::nullopt, lstm ? c.opt(7) : std::nullopt, a);
        };
    };
    r.add("RNN", recurrent(ops::RnnKind::Rnn));
    r.add("GRU", recurrent(ops::RnnKind::Gru));
    r.add("LSTM", recurrent(ops::RnnKind::Lstm));
    r.add("MatMulInteger",
          [](C c) { return one<B>(ops::matmul_integer(c.in(0), c.in(1), c.opt(2), c.opt(3))); });
    r.add("ConvInteger", [](C c) {
        return one<B>(
            ops::conv_integer(c.in(0), c.in(1), c.opt(2), c.opt(3), window_attrs(c.node)));
    });
    r.add("QLinearMatMul", [](C c) {
        return one<B>(ops::qlinear_matmul(c.in(0), c.in(1), c.in(2), c.in(3), c.in(4), c.in(5),
                                          c.in(6), c.in(7)));
    });
    r.add("QLinearConv", [](C c) {
        return one<B>(ops::qlinear_conv(c.in(0), c.in(1), c.in(2), c.in(3), c.in(4), c.in(5),
                                        c.in(6), c.in(7), c.opt(8), window_attrs(c.node)));
    });
    auto win = [](double a0, double a1, double a2) {
        return [a0, a1, a2](C c) {
            return one<B>(
                ops::window(c.in(0), c.node.attr_int("periodic", 1) != 0, a0, a1, a2,
                            static_cast<ElemType>(c.node.attr_int("output_datatype", 1))));
        };
    };
    r.add("HannWindow", win(0.5, 0.5, 0.0));
    r.add("HammingWindow", win(25.0 / 46.0, 21.0 / 46.0, 0.0));
    r.add("BlackmanWindow", win(0.42, 0.5, 0.08));
    r.add("DynamicQuantizeLinear", [](C c) { return ops::dynamic_quantize_linear(c.in(0)); });
    r.add(
        "DFT",
        [](C c) {
            return one<B>(ops::dft(c.in(0), c.int_scalar(1, "dft_length"),
                                   c.node.attr_int("axis", 1), c.node.attr_int("inverse", 0) != 0,
                                   c.node.attr_int("onesided", 0) != 0));
        },
        17);
    r.add(
        "STFT",
        [](C c) {
            const auto len = c.int_scalar(3, "frame_length");
            const auto step =
                static_cast<std::int64_t>(ops::detail::host_scalar(c.in(1), "STFT", "frame_step"));
            return one<B>(
                ops::stft(c.in(0), step, c.opt(2), len, c.node.attr_int("onesided", 1) != 0));
        },
        17);
    r.add(
        "MelWeightMatrix",
        [](C c) {
            auto scalar = [&](std::size_t i, const char* what) {
                return ops::detail::host_scalar(c.in(i), "MelWeightMatrix", what);
            };
            return one<B>(ops::mel_weight_matrix<B>(
                static_cast<std::int64_t>(scalar(0, "num_mel_bins")),
                static_cast<std::int64_t>(scalar(1, "dft_length")),
                static_cast<std::int64_t>(scalar(2, "sample_rate")), scalar(3, "lower_edge_hertz"),
                scalar(4, "upper_edge_hertz"),
                static_cast<ElemType>(c.node.attr_int("output_datatype", 1)), c.device));
        },
        17);
    r.add(
        "GridSample",
        [](C c) {
            // Opset 20 renamed the modes linear and cubic (and made linear the default).
            std::string mode = c.node.attr_string("mode", c.opset >= 20 ? "linear" : "bilinear");
            if (mode == "linear") mode = "bilinear";
            else if (mode == "cubic") mode = "bicubic";
            return one<B>(ops::grid_sample(c.in(0), c.in(1), mode,
                                           c.node.attr_string("padding_mode", "zeros"),
                                           c.node.attr_int("align_corners", 0) != 0));
        },
        16);
    r.add(
        "RoiAlign",
        [](C c) {
            ops::RoiAlignAttrs a;
            a.mode = c.node.attr_string("mode", "avg");
            a.output_height = c.node.attr_int("output_height", 1);
            a.output_width = c.node.attr_int("output_width", 1);
            a.sampling_ratio = c.node.attr_int("sampling_ratio", 0);
            a.spatial_scale = c.node.attr_float("spatial_scale", 1.0f);
            // Opset 10 has no coordinate_transformation_mode: its regions are "output_half_pixel".
            const auto ct = c.opset >= 16
                                ? c.node.attr_string("coordinate_transformation_mode", "half_pixel")
                                : std::string("output_half_pixel");
            if (ct != "half_pixel" && ct != "output_half_pixel")
                ::burn::detail::fail("onnx: ", c.node.describe(),
                                     ": coordinate_transformation_mode must be half_pixel or "
                                     "output_half_pixel, got '",
                                     ct, "'");
            a.half_pixel = ct == "half_pixel";
            return one<B>(ops::roi_align(c.in(0), c.in(1), c.in(2), a));
        },
        10);
    r.add(
        "NonMaxSuppression",
        [](C c) {
            const std::int64_t max_boxes =
                c.has(2) ? static_cast<std::int64_t>(ops::detail::host_scalar(
                               c.in(2), "NonMaxSuppression", "max_output_boxes_per_class"))
                         : 0;
            const double iou =
                c.has(3) ? ops::detail::host_scalar(c.in(3), "NonMaxSuppression", "iou_threshold")
                         : 0.0;
            std::optional<double> score;
            if (c.has(4))
                score = ops::detail::host_scalar(c.in(4), "NonMaxSuppression", "score_threshold");
            return one<B>(ops::non_max_suppression(c.in(0), c.in(1), max_boxes, iou, score,
                                                   c.node.attr_int("center_point_box", 0) != 0));
        },
        10);
}

/// The random ops draw from the backend's random stream (burn::seed sets it); their seed
/// attribute is not reproduced, as no two frameworks share a stream.
template <class B>
void register_random(OpRegistry<B>& r) {
    using C = const OpContext<B>&;
    auto draw = [](C c, const Shape& s, ElemType type, bool normal) {
        const auto d = normal ? Distribution::Normal(c.node.attr_float("mean", 0.0f),
                                                     c.node.attr_float("scale", 1.0f))
                              : Distribution::Uniform(c.node.attr_float("low", 0.0f),
                                                      c.node.attr_float("high", 1.0f));
        if (!is_float_type(type))
            ::burn::detail::fail("onnx: ", c.node.describe(), ": dtype must be a float type, got ",
                                 elem_type_name(type));
        Value<B> v(Float{}, B::float_random(s, d, c.device), ElemType::Float);
        return one<B>(type == ElemType::Float ? v : ops::cast(v, type));
    };
    auto dtype = [](C c, ElemType def) {
        return c.node.has_attr("dtype") ? static_cast<ElemType>(c.node.attr_int("dtype", 1)) : def;
    };
    auto shape_attr = [](C c) {
        Shape s;
        for (auto d : c.node.attr_ints("shape")) {
            if (d < 0)
                ::burn::detail::fail("onnx: ", c.node.describe(), ": negative dim ", d,
                                     " in shape");
            s.push_back(static_cast<std::size_t>(d));
        }
        if (!c.node.has_attr("shape"))
            ::burn::detail::fail("onnx: ", c.node.describe(),
                                 ": the required attribute 'shape' is missing");
        return s;
    };
    r.add("RandomUniform",
          [=](C c) { return draw(c, shape_attr(c), dtype(c, ElemType::Float), false); });
    r.add("RandomNormal",
          [=](C c) { return draw(c, shape_attr(c), dtype(c, ElemType::Float), true); });
    r.add("RandomUniformLike", [=](C c) {
        const auto t = is_float_type(c.in(0).type()) ? c.in(0).type() : ElemType::Float;
        return draw(c, c.in(0).shape(), dtype(c, t), false);
    });
    r.add("RandomNormalLike", [=](C c) {
        const auto t = is_float_type(c.in(0).type()) ? c.in(0).type() : ElemType::Float;
        return draw(c, c.in(0).shape(), dtype(c, t), true);
    });
    r.add(
        "Multinomial",
        [](C c) {
            // sample_size draws per row of unnormalised log-probabilities [batch, classes].
            const Value<B>& x = c.in(0);
            const Shape s = x.shape();
            if (s.rank() != 2 || s[1] == 0)
                ::burn::detail::fail("onnx: ", c.node.describe(),
                                     ": input must be [batch, classes], got ", x.describe());
            ops::detail::require_float(x, "Multinomial");
            const std::int64_t n = c.node.attr_int("sample_size", 1);
            if (n <= 0)
                ::burn::detail::fail("onnx: ", c.node.describe(),
                                     ": sample_size must be positive, got ", n);
            const auto t = static_cast<ElemType>(c.node.attr_int("dtype", 6));
            if (t != ElemType::Int32 && t != ElemType::Int64)
                ::burn::detail::fail("onnx: ", c.node.describe(),
                                     ": dtype must be int32 or int64, got ", elem_type_name(t));
            const auto draws = static_cast<std::size_t>(n);
            const std::vector<double> logits = x.to_doubles();
            const std::vector<double> u =
                Value<B>(
                    Float{},
                    B::float_random(Shape{s[0], draws}, Distribution::Uniform(0.0, 1.0), c.device),
                    ElemType::Float)
                    .to_doubles();
            std::vector<std::int64_t> out(s[0] * draws);
            std::vector<double> cdf(s[1]);
            for (std::size_t b = 0; b < s[0]; ++b) {
                const double* l = logits.data() + b * s[1];
                const double top = *std::max_element(l, l + s[1]);
                double acc = 0;
                for (std::size_t k = 0; k < s[1]; ++k) cdf[k] = acc += std::exp(l[k] - top);
                for (std::size_t j = 0; j < draws; ++j) {
                    const double target = u[b * draws + j] * acc;
                    const auto it = std::upper_bound(cdf.begin(), cdf.end(), target);
                    out[b * draws + j] = std::min<std::int64_t>(
                        it - cdf.begin(), static_cast<std::int64_t>(s[1] - 1));
                }
            }
            return one<B>(Value<B>::from_data(
                TensorData(out, Shape{s[0], draws}).convert(storage_dtype(t)), t, c.device));
        },
        7);
    r.add(
        "Bernoulli",
        [=](C c) {
            // 1 with probability input, else 0, in dtype (default: the input's type).
            auto p = ops::detail::require_float(c.in(0), "Bernoulli", "input");
            auto u = B::float_random(c.in(0).shape(), Distribution::Uniform(0.0, 1.0), c.device);
            if (B::float_dtype(u) != B::float_dtype(p)) u = B::float_cast(u, B::float_dtype(p));
            Value<B> hit(Bool{}, B::float_lower(u, p));
            return one<B>(ops::cast(hit, dtype(c, c.in(0).type())));
        },
        15);
}

template <class B>
void register_sequence(OpRegistry<B>& r) {
    using C = const OpContext<B>&;
    r.add(
        "SequenceEmpty",
        [](C c) {
            return one<B>(
                Value<B>::sequence({}, static_cast<ElemType>(c.node.attr_int("dtype", 1))));
        },
        11);
    r.add(
        "SequenceConstruct", [](C c) { return one<B>(ops::sequence_construct(c.all())); }, 11);
    r.add(
        "SequenceInsert",
        [](C c) { return one<B>(ops::sequence_insert(c.in(0), c.in(1), c.opt(2))); }, 11);
    r.add(
        "SequenceErase", [](C c) { return one<B>(ops::sequence_erase(c.in(0), c.opt(1))); }, 11);
    r.add(
        "SequenceAt", [](C c) { return one<B>(ops::sequence_at(c.in(0), c.in(1))); }, 11);
    r.add(
        "SequenceLength", [](C c) { return one<B>(ops::sequence_length(c.in(0), c.device)); }, 11);
    r.add(
        "SplitToSequence",
        [](C c) {
            return one<B>(ops::split_to_sequence(c.in(0), c.opt(1), c.node.attr_int("axis", 0),
                                                 c.node.attr_int("keepdims", 1) != 0));
        },
        11);
    r.add(
        "ConcatFromSequence",
        [](C c) {
            return one<B>(ops::concat_from_sequence(c.in(0), c.node.require_int("axis"),
                                                    c.node.attr_int("new_axis", 0) != 0));
        },
        11);
    r.add(
        "SequenceMap",
        [](C c) {
            std::vector<Value<B>> extra;
            for (std::size_t i = 1; i < c.num_inputs(); ++i) extra.push_back(c.in(i));
            return ops::sequence_map(c.in(0), extra, c.graph("body"));
        },
        17);
    // An optional holding an element is the element itself.
    r.add(
        "Optional", [](C c) { return one<B>(c.has(0) ? c.in(0) : Value<B>::none()); }, 15);
    r.add(
        "OptionalHasElement",
        [](C c) { return one<B>(ops::optional_has_element(c.opt(0), c.device)); }, 15);
    r.add(
        "OptionalGetElement", [](C c) { return one<B>(ops::optional_get_element(c.in(0))); }, 15);
}

template <class B>
void register_training(OpRegistry<B>& r) {
    using C = const OpContext<B>&;
    const std::string domain = "ai.onnx.preview.training";
    r.add(
        "Adagrad",
        [](C c) {
            ops::OptimizerAttrs a;
            a.decay_factor = c.node.attr_float("decay_factor", 0.0f);
            a.epsilon = c.node.attr_float("epsilon", 0.0f);
            a.norm_coefficient = c.node.attr_float("norm_coefficient", 0.0f);
            return ops::adagrad(c.all(), a);
        },
        1, 0, domain);
    r.add(
        "Momentum",
        [](C c) {
            ops::OptimizerAttrs a;
            for (const char* key : {"alpha", "beta", "mode", "norm_coefficient"})
                if (!c.node.has_attr(key))
                    ::burn::detail::fail("onnx: ", c.node.describe(), ": the required attribute '",
                                         key, "' is missing");
            a.alpha = c.node.attr_float("alpha", 0.0f);
            a.beta = c.node.attr_float("beta", 0.0f);
            a.norm_coefficient = c.node.attr_float("norm_coefficient", 0.0f);
            a.mode = c.node.attr_string("mode", "");
            return ops::momentum(c.all(), a);
        },
        1, 0, domain);
    r.add(
        "Adam",
        [](C c) {
            ops::OptimizerAttrs a;
            a.alpha = c.node.attr_float("alpha", 0.9f);
            a.beta = c.node.attr_float("beta", 0.999f);
            a.epsilon = c.node.attr_float("epsilon", 1e-6f);
            a.norm_coefficient = c.node.attr_float("norm_coefficient", 0.0f);
            a.norm_coefficient_post = c.node.attr_float("norm_coefficient_post", 0.0f);
            return ops::adam(c.all(), a);
        },
        1, 0, domain);
}

template <class B>
void register_control_flow(OpRegistry<B>& r) {
    using C = const OpContext<B>&;
    r.add("If", [](C c) {
        check_control_flow(c.node, c.opset);
        return ops::if_(c.in(0), c.graph("then_branch"), c.graph("else_branch"));
    });
    r.add("Loop", [](C c) {
        check_control_flow(c.node, c.opset);
        std::vector<Value<B>> carried;
        for (std::size_t i = 2; i < c.num_inputs(); ++i) carried.push_back(c.in(i));
        return ops::loop(c.opt(0), c.opt(1), std::move(carried), c.graph("body"), c.device);
    });
    r.add(
        "Scan",
        [](C c) {
            check_control_flow(c.node, c.opset);
            const auto m = static_cast<std::size_t>(c.node.require_int("num_scan_inputs"));
            const std::size_t first = c.opset < 9 ? 1 : 0;  // opset 8: sequence_lens
            std::vector<Value<B>> state, inputs;
            for (std::size_t i = first; i < c.num_inputs(); ++i)
                (i + m < c.num_inputs() ? state : inputs).push_back(c.in(i));
            if (c.opset < 9)
                return ops::scan_batched(c.opt(0), std::move(state), inputs,
                                         c.node.attr_ints("directions"), c.graph("body"), c.device);
            ops::ScanAttrs a;
            a.input_axes = c.node.attr_ints("scan_input_axes");
            a.input_directions = c.node.attr_ints("scan_input_directions");
            a.output_axes = c.node.attr_ints("scan_output_axes");
            a.output_directions = c.node.attr_ints("scan_output_directions");
            return ops::scan(std::move(state), inputs, a, c.graph("body"), c.device);
        },
        8);
}

}  // namespace detail

template <class B>
const OpRegistry<B>& OpRegistry<B>::instance() {
    static const OpRegistry reg = [] {
        OpRegistry r;
        detail::register_elementwise(r);
        detail::register_shape(r);
        detail::register_reduce(r);
        detail::register_nn(r);
        detail::register_control_flow(r);
        detail::register_random(r);
        detail::register_sequence(r);
        detail::register_training(r);
        return r;
    }();
    return reg;
}

}  // namespace burn::onnx

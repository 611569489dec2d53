// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::onnx::Graph<B>: runs an `.onnx` model at run time on any backend, node by node through
// the op library (burn/onnx/ops.hpp). Loading reports every unsupported op at once. The subgraphs
// of If, Loop and Scan are compiled at loading like the model's graph and run in their node's
// scope: their nodes read outer values by name.
//
//   auto g = burn::onnx::Graph<burn::Cpu<>>::load("model.onnx");
//   std::vector<burn::TensorData> y = g.run({x});
//
// Graph<Cpu<float>> and Graph<Cpu<double>> are compiled once in libburn_onnx (include
// burn/backend/cpu.hpp before this header to use that instance instead of instantiating it again).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "burn/onnx/model.hpp"
#include "burn/onnx/registry.hpp"
#include "burn/onnx/value.hpp"

namespace burn::onnx {

template <class B>
class Graph {
public:
    using Device = typename B::Device;

    /// Checks every node, those of subgraphs included, against the op registry (throws one
    /// burn::Error listing all unsupported ops, op type and node name), then the structure of
    /// every control-flow node (If, Loop, Scan) against its subgraphs.
    explicit Graph(ModelDesc model, const Device& device = {})
        : model_(std::make_shared<const ModelDesc>(std::move(model))), device_(device) {
        check_model_ops(OpRegistry<B>::instance(), *model_, "onnx::Graph: " + model_->source);
        main_ = compile(model_->nodes, model_->initializers, names(model_->outputs));
    }

    static Graph load(const std::filesystem::path& path, const Device& device = {}) {
        return Graph(load_model(path), device);
    }
    static Graph from_bytes(std::span<const std::uint8_t> bytes, const Device& device = {},
                            const std::filesystem::path& base_dir = {}) {
        return Graph(parse_model(bytes, base_dir), device);
    }

    const ModelDesc& model() const { return *model_; }
    const std::vector<ValueInfo>& inputs() const { return model_->inputs; }
    const std::vector<ValueInfo>& outputs() const { return model_->outputs; }
    std::vector<std::string> input_names() const { return names(model_->inputs); }
    std::vector<std::string> output_names() const { return names(model_->outputs); }

    /// Runs on host data, one TensorData per graph input (in order); each must have the dtype
    /// that holds its declared ONNX type (float -> f32, int64 -> i64, ...) and its declared rank
    /// and fixed dims. Returns the outputs in their ONNX types' dtypes.
    std::vector<TensorData> run(const std::vector<TensorData>& inputs) const {
        check_count(inputs.size());
        for (const auto* list : {&model_->inputs, &model_->outputs})
            for (const ValueInfo& vi : *list)
                if (vi.category != ValueCategory::Tensor)
                    ::burn::detail::fail("onnx::Graph::run: ", model_->source, ": '", vi.name,
                                         "' is declared ", vi.describe(),
                                         ", not a tensor: run the model on values "
                                         "(run(std::vector<Value<B>>))");
        std::vector<Value<B>> values;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const ValueInfo& vi = model_->inputs[i];
            const ElemType t =
                vi.type == ElemType::Undefined ? elem_type_of(inputs[i].dtype) : vi.type;
            if (!is_supported_elem_type(t))
                ::burn::detail::fail("onnx::Graph::run: ", model_->source, ": input '", vi.name,
                                     "' has type ", elem_type_name(t), ", which is not supported");
            if (inputs[i].dtype != storage_dtype(t))
                ::burn::detail::fail("onnx::Graph::run: ", model_->source, ": input '", vi.name,
                                     "' is declared ", vi.describe(), " (dtype ",
                                     dtype_name(storage_dtype(t)), "), got dtype ",
                                     dtype_name(inputs[i].dtype));
            values.push_back(Value<B>::from_data(inputs[i], t, device_));
        }
        std::vector<TensorData> out;
        for (const auto& v : run(std::move(values))) out.push_back(v.to_data());
        return out;
    }

    /// Runs on values (the op library's level: no host transfer of inputs and outputs). Inputs
    /// declared as sequences or optionals take Value<B>::sequence and Value<B>::none values.
    std::vector<Value<B>> run(std::vector<Value<B>> inputs) const {
        check_count(inputs.size());
        Env env;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const ValueInfo& vi = model_->inputs[i];
            // An empty sequence of no element type (as files store them) takes the declared one.
            if (inputs[i].is_sequence() && inputs[i].items().empty() &&
                inputs[i].type() == ElemType::Undefined)
                inputs[i] = Value<B>::sequence({}, vi.type);
            const Value<B>& v = inputs[i];
            const bool seq = vi.category == ValueCategory::Sequence ||
                             vi.category == ValueCategory::OptionalSequence;
            const bool opt = vi.category == ValueCategory::Optional ||
                             vi.category == ValueCategory::OptionalSequence;
            const bool kind_ok = v.is_none() ? opt : v.is_sequence() == seq;
            if (!kind_ok || (vi.type != ElemType::Undefined && !v.is_none() && v.type() != vi.type))
                ::burn::detail::fail("onnx::Graph::run: ", model_->source, ": input '", vi.name,
                                     "' is declared ", vi.describe(), ", got ", v.describe());
            if (v.is_tensor()) check_shape(vi, v.shape());
            env.insert_or_assign(model_->inputs[i].name, std::move(inputs[i]));
        }
        return run_body(*main_, std::move(env), nullptr);
    }

    /// Every op type the registry implements, with its opset range.
    static std::vector<OpInfo> supported_ops() { return OpRegistry<B>::instance().list(); }

private:
    using Env = std::unordered_map<std::string, Value<B>>;

    /// A graph ready to run: the model's, or a subgraph of a control-flow node (compiled once, at
    /// loading, with its own constants on the device).
    struct Body {
        const std::vector<Node>* nodes = nullptr;
        std::vector<std::string> inputs;  ///< a subgraph's inputs, bound at each run
        std::vector<std::string> outputs;
        std::string name;  ///< a subgraph's name, for messages
        std::vector<const typename OpRegistry<B>::Entry*> dispatch;
        std::vector<std::int64_t> opsets;
        /// Per node, its subgraphs by attribute name.
        std::vector<std::vector<std::pair<std::string, std::shared_ptr<const Body>>>> subgraphs;
        std::map<std::string, Value<B>> constants;
        /// Per node, the values it is the last to read (directly, or through a subgraph that
        /// reads them by name): released once it has run. The body's outputs are kept.
        std::vector<std::vector<std::string>> release;
    };

    /// The values visible to a running body: its own, its constants, then the enclosing bodies'
    /// (lexical scoping).
    struct Scope {
        const Env& env;
        const Body& body;
        const Scope* outer;
        const Value<B>* find(const std::string& name) const {
            for (const Scope* s = this; s; s = s->outer) {
                if (auto it = s->env.find(name); it != s->env.end()) return &it->second;
                if (auto it = s->body.constants.find(name); it != s->body.constants.end())
                    return &it->second;
            }
            return nullptr;
        }
    };

    std::shared_ptr<const Body> compile(const std::vector<Node>& nodes,
                                        const std::map<std::string, TypedData>& initializers,
                                        std::vector<std::string> outputs,
                                        std::vector<std::string> inputs = {},
                                        std::string name = {}) const {
        auto b = std::make_shared<Body>();
        b->nodes = &nodes;
        b->outputs = std::move(outputs);
        b->inputs = std::move(inputs);
        b->name = std::move(name);
        const auto& reg = OpRegistry<B>::instance();
        std::unordered_map<std::string, std::size_t> last_use;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const Node& n = nodes[i];
            b->opsets.push_back(model_->opset_for(n.domain));
            b->dispatch.push_back(reg.find(n.domain, n.op_type, b->opsets.back()));
            auto& subs = b->subgraphs.emplace_back();
            for (const auto& [key, g] : n.subgraphs()) {
                subs.emplace_back(key, compile(g->nodes, g->initializers, names(g->outputs),
                                               names(g->inputs), g->name));
                for (const auto& name : g->outer_names()) last_use[name] = i;
            }
            for (const auto& in : n.inputs)
                if (!in.empty()) last_use[in] = i;
        }
        for (const auto& o : b->outputs) last_use.erase(o);
        b->release.resize(nodes.size());
        for (const auto& [name, i] : last_use) b->release[i].push_back(name);
        for (const auto& [name, t] : initializers)
            b->constants.emplace(name, Value<B>::from_typed(t, device_));
        return b;
    }

    /// Runs a body on `env` (its bound inputs) inside `outer`; returns its outputs. Errors of the
    /// model's own nodes name the model; those of a subgraph's nodes name the node, and the
    /// control-flow op that ran the subgraph adds where it was.
    std::vector<Value<B>> run_body(const Body& body, Env env, const Scope* outer) const {
        const Scope scope{env, body, outer};
        const bool top = outer == nullptr;
        auto fail = [&](const auto&... a) {
            if (top) ::burn::detail::fail("onnx::Graph::run: ", model_->source, ": ", a...);
            ::burn::detail::fail(a...);
        };
        std::vector<ops::OptValue<B>> args;
        const auto& nodes = *body.nodes;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const Node& n = nodes[i];
            args.clear();
            for (const auto& in : n.inputs) {
                if (in.empty()) {
                    args.emplace_back(std::nullopt);
                    continue;
                }
                const Value<B>* v = scope.find(in);
                if (!v) fail(n.describe(), ": input '", in, "' has no value");
                args.emplace_back(*v);
            }
            SubgraphFns<B> subgraphs;
            for (const auto& [key, sub] : body.subgraphs[i])
                subgraphs.emplace(key, [this, sub = sub.get(), &scope](std::vector<Value<B>> in) {
                    return run_subgraph(*sub, std::move(in), scope);
                });
            std::vector<Value<B>> outs;
            try {
                outs = body.dispatch[i]->fn(OpContext<B>{n, args, body.opsets[i], device_,
                                                         subgraphs.empty() ? nullptr : &subgraphs});
            } catch (const std::exception& e) {
                fail(n.describe(), ": ", e.what());
            }
            for (std::size_t o = 0; o < n.outputs.size(); ++o) {
                if (n.outputs[o].empty()) continue;
                if (o >= outs.size())
                    fail(n.describe(), ": output ", o, " ('", n.outputs[o],
                         "') is not produced by this implementation");
                env.insert_or_assign(n.outputs[o], std::move(outs[o]));
            }
            // Release the values whose last reader was this node (those of enclosing bodies are
            // not in `env`: their own body releases them).
            for (const auto& name : body.release[i]) env.erase(name);
        }
        std::vector<Value<B>> result;
        for (const auto& o : body.outputs) {
            const Value<B>* v = scope.find(o);
            if (!v) {
                if (top) fail("graph output '", o, "' was not computed");
                fail("output '", o, "' of subgraph '", body.name, "' was not computed");
            }
            result.push_back(*v);
        }
        return result;
    }

    std::vector<Value<B>> run_subgraph(const Body& body, std::vector<Value<B>> inputs,
                                       const Scope& outer) const {
        if (inputs.size() != body.inputs.size())
            ::burn::detail::fail("subgraph '", body.name, "' takes ", body.inputs.size(),
                                 " inputs, given ", inputs.size());
        Env env;
        for (std::size_t i = 0; i < inputs.size(); ++i)
            env.insert_or_assign(body.inputs[i], std::move(inputs[i]));
        return run_body(body, std::move(env), &outer);
    }

    static std::vector<std::string> names(const std::vector<ValueInfo>& v) {
        std::vector<std::string> out;
        for (const auto& i : v) out.push_back(i.name);
        return out;
    }
    void check_count(std::size_t n) const {
        if (n != model_->inputs.size())
            ::burn::detail::fail("onnx::Graph::run: ", model_->source, ": ", n,
                                 " inputs given, the model has ", model_->inputs.size());
    }
    void check_shape(const ValueInfo& vi, const Shape& s) const {
        if (!vi.has_shape) return;
        bool ok = vi.dims.size() == s.rank();
        for (std::size_t d = 0; ok && d < s.rank(); ++d)
            ok = vi.dims[d] < 0 || static_cast<std::size_t>(vi.dims[d]) == s[d];
        if (!ok)
            ::burn::detail::fail("onnx::Graph::run: ", model_->source, ": input '", vi.name,
                                 "' is declared ", vi.describe(), ", got shape ", s);
    }

    /// Shared and never modified: the compiled bodies point into it, so that a copied or moved
    /// Graph stays valid.
    std::shared_ptr<const ModelDesc> model_;
    Device device_;
    std::shared_ptr<const Body> main_;
};

}  // namespace burn::onnx

#if defined(BURN_CPU_DEFINED) && !defined(BURN_ONNX_PREBUILT_CPU)
#define BURN_ONNX_PREBUILT_CPU
namespace burn::onnx {
extern template class OpRegistry<Cpu<float>>;
extern template class Graph<Cpu<float>>;
extern template class OpRegistry<Cpu<double>>;
extern template class Graph<Cpu<double>>;
}  // namespace burn::onnx
#endif

// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::onnx::Graph<B>: runs an `.onnx` model at run time on any backend, node by node through
// the op library (burn/onnx/ops.hpp). Loading reports every unsupported op at once.
//
//   auto g = burn::onnx::Graph<burn::Cpu<>>::load("model.onnx");
//   std::vector<burn::TensorData> y = g.run({x});
//
// Graph<Cpu<float>> and Graph<Cpu<double>> are compiled once in libburn_onnx (include
// burn/backend/cpu.hpp before this header to use that instance instead of instantiating it again).
#pragma once

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "burn/onnx/model.hpp"
#include "burn/onnx/registry.hpp"
#include "burn/onnx/value.hpp"

namespace burn::onnx {

template <class B>
class Graph {
public:
    using Device = typename B::Device;

    /// Checks every node against the op registry; throws one burn::Error listing all
    /// unsupported ops (op type and node name).
    explicit Graph(ModelDesc model, const Device& device = {})
        : model_(std::move(model)), device_(device) {
        const auto& reg = OpRegistry<B>::instance();
        std::string missing;
        std::size_t count = 0;
        for (const auto& n : model_.nodes) {
            auto dom = model_.opsets.find(n.domain);
            const std::int64_t opset = dom != model_.opsets.end() ? dom->second : model_.opset;
            const auto* e = reg.find(n.domain, n.op_type, opset);
            if (!e) {
                missing += count ? ", " : "";
                missing += n.op_type;
                if (!n.domain.empty()) missing += " (domain " + n.domain + ")";
                missing += " (node '" + n.name + "', opset " + std::to_string(opset) + ")";
                ++count;
            }
            dispatch_.push_back(e);
        }
        if (count)
            ::burn::detail::fail(
                "onnx::Graph: ", model_.source, ": ", count,
                count == 1 ? " node uses an unsupported op: " : " nodes use unsupported ops: ",
                missing);
        for (const auto& [name, t] : model_.initializers)
            constants_.emplace(name, Value<B>::from_typed(t, device_));
        // Last use of every value, so that intermediates are released early.
        for (std::size_t i = 0; i < model_.nodes.size(); ++i)
            for (const auto& in : model_.nodes[i].inputs)
                if (!in.empty()) last_use_[in] = i;
        for (const auto& o : model_.outputs) last_use_[o.name] = model_.nodes.size();
    }

    static Graph load(const std::filesystem::path& path, const Device& device = {}) {
        return Graph(load_model(path), device);
    }
    static Graph from_bytes(std::span<const std::uint8_t> bytes, const Device& device = {},
                            const std::filesystem::path& base_dir = {}) {
        return Graph(parse_model(bytes, base_dir), device);
    }

    const ModelDesc& model() const { return model_; }
    const std::vector<ValueInfo>& inputs() const { return model_.inputs; }
    const std::vector<ValueInfo>& outputs() const { return model_.outputs; }
    std::vector<std::string> input_names() const { return names(model_.inputs); }
    std::vector<std::string> output_names() const { return names(model_.outputs); }

    /// Runs on host data, one TensorData per graph input (in order); each must have the dtype
    /// that holds its declared ONNX type (float -> f32, int64 -> i64, ...) and its declared rank
    /// and fixed dims. Returns the outputs in their ONNX types' dtypes.
    std::vector<TensorData> run(const std::vector<TensorData>& inputs) const {
        check_count(inputs.size());
        std::vector<Value<B>> values;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const ValueInfo& vi = model_.inputs[i];
            const ElemType t =
                vi.type == ElemType::Undefined ? elem_type_of(inputs[i].dtype) : vi.type;
            if (!is_supported_elem_type(t))
                ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": input '", vi.name,
                                     "' has type ", elem_type_name(t), ", which is not supported");
            if (inputs[i].dtype != storage_dtype(t))
                ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": input '", vi.name,
                                     "' is declared ", vi.describe(), " (dtype ",
                                     dtype_name(storage_dtype(t)), "), got dtype ",
                                     dtype_name(inputs[i].dtype));
            values.push_back(Value<B>::from_data(inputs[i], t, device_));
        }
        std::vector<TensorData> out;
        for (const auto& v : run(std::move(values))) out.push_back(v.to_data());
        return out;
    }

    /// Runs on values (the op library's level: no host transfer of inputs and outputs).
    std::vector<Value<B>> run(std::vector<Value<B>> inputs) const {
        check_count(inputs.size());
        std::unordered_map<std::string, Value<B>> env;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const ValueInfo& vi = model_.inputs[i];
            if (vi.type != ElemType::Undefined && inputs[i].type() != vi.type)
                ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": input '", vi.name,
                                     "' is declared ", vi.describe(), ", got ",
                                     inputs[i].describe());
            check_shape(vi, inputs[i].shape());
            env.insert_or_assign(model_.inputs[i].name, std::move(inputs[i]));
        }
        auto lookup = [&](const std::string& name) -> const Value<B>* {
            if (auto it = env.find(name); it != env.end()) return &it->second;
            if (auto it = constants_.find(name); it != constants_.end()) return &it->second;
            return nullptr;
        };
        std::vector<ops::OptValue<B>> args;
        for (std::size_t i = 0; i < model_.nodes.size(); ++i) {
            const Node& n = model_.nodes[i];
            args.clear();
            for (const auto& in : n.inputs) {
                if (in.empty()) {
                    args.emplace_back(std::nullopt);
                    continue;
                }
                const Value<B>* v = lookup(in);
                if (!v)
                    ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": ", n.describe(),
                                         ": input '", in, "' has no value");
                args.emplace_back(*v);
            }
            auto dom = model_.opsets.find(n.domain);
            const std::int64_t opset = dom != model_.opsets.end() ? dom->second : model_.opset;
            std::vector<Value<B>> outs;
            try {
                outs = dispatch_[i]->fn(OpContext<B>{n, args, opset, device_});
            } catch (const std::exception& e) {
                ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": ", n.describe(), ": ",
                                     e.what());
            }
            for (std::size_t o = 0; o < n.outputs.size(); ++o) {
                if (n.outputs[o].empty()) continue;
                if (o >= outs.size())
                    ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": ", n.describe(),
                                         ": output ", o, " ('", n.outputs[o],
                                         "') is not produced by this implementation");
                env.insert_or_assign(n.outputs[o], std::move(outs[o]));
            }
            // Release the values whose last reader was this node.
            for (const auto& in : n.inputs) {
                auto it = last_use_.find(in);
                if (!in.empty() && it != last_use_.end() && it->second == i) env.erase(in);
            }
        }
        std::vector<Value<B>> result;
        for (const auto& o : model_.outputs) {
            const Value<B>* v = lookup(o.name);
            if (!v)
                ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": graph output '",
                                     o.name, "' was not computed");
            result.push_back(*v);
        }
        return result;
    }

    /// Every op type the registry implements, with its opset range.
    static std::vector<OpInfo> supported_ops() { return OpRegistry<B>::instance().list(); }

private:
    static std::vector<std::string> names(const std::vector<ValueInfo>& v) {
        std::vector<std::string> out;
        for (const auto& i : v) out.push_back(i.name);
        return out;
    }
    void check_count(std::size_t n) const {
        if (n != model_.inputs.size())
            ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": ", n,
                                 " inputs given, the model has ", model_.inputs.size());
    }
    void check_shape(const ValueInfo& vi, const Shape& s) const {
        if (!vi.has_shape) return;
        bool ok = vi.dims.size() == s.rank();
        for (std::size_t d = 0; ok && d < s.rank(); ++d)
            ok = vi.dims[d] < 0 || static_cast<std::size_t>(vi.dims[d]) == s[d];
        if (!ok)
            ::burn::detail::fail("onnx::Graph::run: ", model_.source, ": input '", vi.name,
                                 "' is declared ", vi.describe(), ", got shape ", s);
    }

    ModelDesc model_;
    Device device_;
    std::vector<const typename OpRegistry<B>::Entry*> dispatch_;
    std::map<std::string, Value<B>> constants_;
    std::unordered_map<std::string, std::size_t> last_use_;
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

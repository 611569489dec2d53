// SPDX-License-Identifier: MIT OR Apache-2.0
// Weights from PyTorch: PyTorchFileRecorder reads a `.pt`/`.pth` state dict written by
// torch.save, SafetensorsFileRecorder reads and writes safetensors files, and both map the
// tensors onto a module defined with the same architecture (Burn's burn-import PyTorch recorder).
//
//   Net<B> model = NetConfig{}.init<B>(device);
//   auto record = burn::record::PyTorchFileRecorder<>{}.load(
//       burn::record::LoadArgs("net.pt").with_key_remap("conv\\.(.*)", "$1"), model);
//   model = model.load_record(record);
//
// The result is an ordinary Record (it can be saved with any recorder). Keys are matched to the
// module's dotted field paths after the remaps; the module types that PyTorch lays out
// differently are adapted: Linear weights are transposed ([out, in] -> [in, out]); the norms'
// `weight`/`bias` are `gamma`/`beta`; MultiHeadAttention's packed `in_proj_weight` is split into
// query/key/value and `out_proj` is `output`; LSTM/GRU `weight_ih_l0`-style gate blocks are split
// into the gate controllers; TransformerEncoder/DecoderLayer take PyTorch's `self_attn`,
// `linear1`, `norm1`, ... names. Non-contiguous indices of nn.Sequential (`layers.0`, `layers.2`)
// are renumbered 0, 1, 2, ... as Burn does. docs/import-pytorch.md lists every rule.
#pragma once

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/module/module.hpp"
#include "burn/nn/activation.hpp"
#include "burn/nn/attention.hpp"
#include "burn/nn/batch_norm.hpp"
#include "burn/nn/group_norm.hpp"
#include "burn/nn/instance_norm.hpp"
#include "burn/nn/layer_norm.hpp"
#include "burn/nn/linear.hpp"
#include "burn/nn/rms_norm.hpp"
#include "burn/nn/rnn.hpp"
#include "burn/nn/transformer.hpp"
#include "burn/record/import.hpp"

namespace burn::record {

namespace detail {

// The walk over a module that produces its layout. Every overload is declared before the
// generic definitions use them (they are found by ordinary lookup, not ADL).
template <class F>
void describe(const F& field, const std::string& path, const TorchSources& torch,
              ModuleLayout& out);
template <class M>
void describe_module(const M& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::Linear<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::BatchNorm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::LayerNorm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::GroupNorm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::InstanceNorm<B>& m, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out);
template <Backend B>
void describe_module(const nn::RmsNorm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::PRelu<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::MultiHeadAttention<B>& m, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out);
template <Backend B>
void describe_module(const nn::Lstm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::BiLstm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::Gru<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::BiGru<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out);
template <Backend B>
void describe_module(const nn::TransformerEncoderLayer<B>& m, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out);
template <Backend B>
void describe_module(const nn::TransformerDecoderLayer<B>& m, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out);

inline std::string child_path(const std::string& path, std::string_view name) {
    return Record::join(path, name);
}
/// Each source extended by `name` ("fc" -> "fc.weight").
inline TorchSources children(const TorchSources& torch, std::string_view name) {
    TorchSources out;
    out.reserve(torch.size());
    for (const auto& s : torch) out.push_back(s.child(name));
    return out;
}
/// The concatenation of several alternative lists.
inline TorchSources either(std::initializer_list<TorchSources> lists) {
    TorchSources out;
    for (const auto& l : lists) out.insert(out.end(), l.begin(), l.end());
    return out;
}
inline TorchSources transposed(TorchSources s) {
    for (auto& x : s) x.transpose = true;
    return s;
}
inline TorchSources block_of(TorchSources s, std::uint32_t block, std::uint32_t blocks) {
    for (auto& x : s) {
        x.block = block;
        x.blocks = blocks;
    }
    return s;
}

template <class T>
constexpr LeafKind leaf_kind() {
    using K = typename T::Kind;
    if constexpr (std::same_as<K, Int>) return LeafKind::Int;
    else if constexpr (std::same_as<K, Bool>) return LeafKind::Bool;
    else return LeafKind::Float;
}

template <class F>
void describe(const F& field, const std::string& path, const TorchSources& torch,
              ModuleLayout& out) {
    if constexpr (module::is_param_v<F>) {
        using T = typename F::TensorType;
        out.push_back({path, field.val().shape(), leaf_kind<T>(), field.id(), torch,
                       [t = field.val()] { return t.to_data(); }});
    } else if constexpr (module::detail::is_running_state_v<F>) {
        using T = typename F::TensorType;
        out.push_back({path, field.value().shape(), leaf_kind<T>(), field.id(), torch,
                       [field] { return field.value().to_data(); }});
    } else if constexpr (burn::detail::is_vector_v<F>) {
        for (std::size_t i = 0; i < field.size(); ++i) {
            const std::string index = std::to_string(i);
            describe(field[i], child_path(path, index), children(torch, index), out);
        }
    } else if constexpr (burn::detail::is_optional_v<F>) {
        if (field) describe(*field, path, torch, out);
    } else if constexpr (module::Module<F>) {
        describe_module(field, path, torch, out);
    }
}

/// Any module: each field under its own name.
template <class M>
void describe_module(const M& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    M::burn_for_each_field(m, [&](std::string_view name, const auto& sub) {
        describe(sub, child_path(path, name), children(torch, name), out);
    });
}

/// PyTorch's Linear.weight is [out, in]; Burn's is [in, out].
template <Backend B>
void describe_module(const nn::Linear<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe(m.weight, child_path(path, "weight"), transposed(children(torch, "weight")), out);
    describe(m.bias, child_path(path, "bias"), children(torch, "bias"), out);
}

/// Norms: PyTorch's weight/bias are Burn's gamma/beta (either name is accepted).
template <class G, class Bt>
void describe_affine(const G& gamma, const Bt& beta, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out) {
    describe(gamma, child_path(path, "gamma"),
             either({children(torch, "weight"), children(torch, "gamma")}), out);
    describe(beta, child_path(path, "beta"),
             either({children(torch, "bias"), children(torch, "beta")}), out);
}
template <Backend B>
void describe_module(const nn::BatchNorm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe_affine(m.gamma, m.beta, path, torch, out);
    describe(m.running_mean, child_path(path, "running_mean"), children(torch, "running_mean"),
             out);
    describe(m.running_var, child_path(path, "running_var"), children(torch, "running_var"), out);
}
template <Backend B>
void describe_module(const nn::LayerNorm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe_affine(m.gamma, m.beta, path, torch, out);
}
template <Backend B>
void describe_module(const nn::GroupNorm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe_affine(m.gamma, m.beta, path, torch, out);
}
template <Backend B>
void describe_module(const nn::InstanceNorm<B>& m, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out) {
    describe_affine(m.gamma, m.beta, path, torch, out);
}
template <Backend B>
void describe_module(const nn::RmsNorm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe(m.gamma, child_path(path, "gamma"),
             either({children(torch, "weight"), children(torch, "gamma")}), out);
}

/// torch.nn.PReLU's weight is Burn's alpha.
template <Backend B>
void describe_module(const nn::PRelu<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe(m.alpha, child_path(path, "alpha"),
             either({children(torch, "weight"), children(torch, "alpha")}), out);
}

/// torch.nn.MultiheadAttention: in_proj_weight [3d, d] and in_proj_bias [3d] stack the query,
/// key and value projections; out_proj is Burn's output. Burn's own names are accepted too.
template <Backend B>
void describe_module(const nn::MultiHeadAttention<B>& m, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out) {
    const nn::Linear<B>* qkv[] = {&m.query, &m.key, &m.value};
    const char* names[] = {"query", "key", "value"};
    for (std::uint32_t i = 0; i < 3; ++i) {
        const std::string p = child_path(path, names[i]);
        const TorchSources own = children(torch, names[i]);
        describe(qkv[i]->weight, child_path(p, "weight"),
                 transposed(either(
                     {block_of(children(torch, "in_proj_weight"), i, 3), children(own, "weight")})),
                 out);
        describe(qkv[i]->bias, child_path(p, "bias"),
                 either({block_of(children(torch, "in_proj_bias"), i, 3), children(own, "bias")}),
                 out);
    }
    describe_module(m.output, child_path(path, "output"),
                    either({children(torch, "out_proj"), children(torch, "output")}), out);
}

/// A recurrent cell's gate controllers from PyTorch's stacked weight_ih_l0 / weight_hh_l0 /
/// bias_ih_l0 / bias_hh_l0 (+ `suffix`, "_reverse" for the second direction) under `torch`:
/// gate `index` is row block `index` of `count`, in PyTorch's gate order. Burn's own names
/// under `cell` are accepted too.
template <Backend B>
void describe_gate(const nn::GateController<B>& g, std::string_view name, std::uint32_t index,
                   std::uint32_t count, const std::string& path, const TorchSources& torch,
                   const TorchSources& cell, const std::string& suffix, ModuleLayout& out) {
    const std::string p = child_path(path, name);
    const TorchSources own = children(cell, name);
    struct Part {
        const nn::Linear<B>& linear;
        const char* field;
        const char* torch_kind;
    };
    for (const Part& part : {Part{g.input_transform, "input_transform", "ih"},
                             Part{g.hidden_transform, "hidden_transform", "hh"}}) {
        const std::string lp = child_path(p, part.field);
        const TorchSources lown = children(own, part.field);
        const std::string w = std::string("weight_") + part.torch_kind + "_l0" + suffix;
        const std::string b = std::string("bias_") + part.torch_kind + "_l0" + suffix;
        describe(part.linear.weight, child_path(lp, "weight"),
                 transposed(either(
                     {block_of(children(torch, w), index, count), children(lown, "weight")})),
                 out);
        describe(part.linear.bias, child_path(lp, "bias"),
                 either({block_of(children(torch, b), index, count), children(lown, "bias")}), out);
    }
}
/// torch.nn.LSTM gate order: input, forget, cell (g), output.
template <Backend B>
void describe_lstm(const nn::Lstm<B>& m, const std::string& path, const TorchSources& torch,
                   const TorchSources& cell, const std::string& suffix, ModuleLayout& out) {
    describe_gate(m.input_gate, "input_gate", 0, 4, path, torch, cell, suffix, out);
    describe_gate(m.forget_gate, "forget_gate", 1, 4, path, torch, cell, suffix, out);
    describe_gate(m.cell_gate, "cell_gate", 2, 4, path, torch, cell, suffix, out);
    describe_gate(m.output_gate, "output_gate", 3, 4, path, torch, cell, suffix, out);
}
template <Backend B>
void describe_module(const nn::Lstm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe_lstm(m, path, torch, torch, "", out);
}
/// Bidirectional: the reverse direction's tensors carry PyTorch's "_reverse" suffix.
template <Backend B>
void describe_module(const nn::BiLstm<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe_lstm(m.forward_lstm, child_path(path, "forward_lstm"), torch,
                  children(torch, "forward_lstm"), "", out);
    describe_lstm(m.reverse_lstm, child_path(path, "reverse_lstm"), torch,
                  children(torch, "reverse_lstm"), "_reverse", out);
}
/// torch.nn.GRU gate order: reset (r), update (z), new (n).
template <Backend B>
void describe_gru(const nn::Gru<B>& m, const std::string& path, const TorchSources& torch,
                  const TorchSources& cell, const std::string& suffix, ModuleLayout& out) {
    describe_gate(m.reset_gate, "reset_gate", 0, 3, path, torch, cell, suffix, out);
    describe_gate(m.update_gate, "update_gate", 1, 3, path, torch, cell, suffix, out);
    describe_gate(m.new_gate, "new_gate", 2, 3, path, torch, cell, suffix, out);
}
template <Backend B>
void describe_module(const nn::Gru<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe_gru(m, path, torch, torch, "", out);
}
template <Backend B>
void describe_module(const nn::BiGru<B>& m, const std::string& path, const TorchSources& torch,
                     ModuleLayout& out) {
    describe_gru(m.forward_gru, child_path(path, "forward_gru"), torch,
                 children(torch, "forward_gru"), "", out);
    describe_gru(m.reverse_gru, child_path(path, "reverse_gru"), torch,
                 children(torch, "reverse_gru"), "_reverse", out);
}

/// The feed-forward block of a transformer layer: PyTorch's linear1 / linear2.
template <Backend B>
void describe_pwff(const nn::PositionWiseFeedForward<B>& m, const std::string& path,
                   const TorchSources& torch, ModuleLayout& out) {
    const std::string p = child_path(path, "pwff");
    const TorchSources own = children(torch, "pwff");
    describe_module(m.linear_inner, child_path(p, "linear_inner"),
                    either({children(torch, "linear1"), children(own, "linear_inner")}), out);
    describe_module(m.linear_outer, child_path(p, "linear_outer"),
                    either({children(torch, "linear2"), children(own, "linear_outer")}), out);
}
/// A layer norm of a transformer layer: PyTorch's `torch_name`, or Burn's own name.
template <Backend B>
void describe_layer_norm(const nn::LayerNorm<B>& m, std::string_view name,
                         std::string_view torch_name, const std::string& path,
                         const TorchSources& torch, ModuleLayout& out) {
    describe_module(m, child_path(path, name),
                    either({children(torch, torch_name), children(torch, name)}), out);
}
/// torch.nn.TransformerEncoderLayer: self_attn, linear1/2, norm1/2. Burn swaps the norms'
/// names in pre-norm layers (norm_first): PyTorch's norm1 (before attention) is Burn's norm_2.
template <Backend B>
void describe_module(const nn::TransformerEncoderLayer<B>& m, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out) {
    describe_module(m.mha, child_path(path, "mha"),
                    either({children(torch, "self_attn"), children(torch, "mha")}), out);
    describe_pwff(m.pwff, path, torch, out);
    describe_layer_norm(m.norm_1, "norm_1", m.norm_first ? "norm2" : "norm1", path, torch, out);
    describe_layer_norm(m.norm_2, "norm_2", m.norm_first ? "norm1" : "norm2", path, torch, out);
}
/// torch.nn.TransformerDecoderLayer: self_attn, multihead_attn (Burn's cross_attn), linear1/2,
/// norm1/2/3 (pre-norm: Burn's norm_3, norm_1, norm_2).
template <Backend B>
void describe_module(const nn::TransformerDecoderLayer<B>& m, const std::string& path,
                     const TorchSources& torch, ModuleLayout& out) {
    describe_module(m.cross_attn, child_path(path, "cross_attn"),
                    either({children(torch, "multihead_attn"), children(torch, "cross_attn")}),
                    out);
    describe_module(m.self_attn, child_path(path, "self_attn"), children(torch, "self_attn"), out);
    describe_pwff(m.pwff, path, torch, out);
    describe_layer_norm(m.norm_1, "norm_1", m.norm_first ? "norm2" : "norm1", path, torch, out);
    describe_layer_norm(m.norm_2, "norm_2", m.norm_first ? "norm3" : "norm2", path, torch, out);
    describe_layer_norm(m.norm_3, "norm_3", m.norm_first ? "norm1" : "norm3", path, torch, out);
}

/// The layout of a whole module (root keys have no prefix).
template <module::Module M>
ModuleLayout module_layout(const M& model) {
    ModuleLayout out;
    describe_module(model, std::string{}, TorchSources{TorchSource{}}, out);
    return out;
}

}  // namespace detail

// ---------------------------------------------------------------------------- recorders
/// Loads `.pt`/`.pth` files written by torch.save (zip or legacy format) into a module's record
/// (Burn's PyTorchFileRecorder). Tensors are converted to the precision's dtypes (floats to
/// S::float_dtype, ints to S::int_dtype), then by load_record to the module's element types.
template <PrecisionSettings S = FullPrecisionSettings>
class PyTorchFileRecorder {
public:
    using Settings = S;
    /// The record of `model` with the tensors of `args.file()`. Throws burn::Error naming the
    /// file and the module path when a tensor is missing (unless allow_missing), has another
    /// shape, or has a kind the module cannot take (a float tensor for an Int parameter).
    template <module::Module M>
    Record load(const LoadArgs& args, const M& model, LoadReport* report = nullptr) const {
        return detail::import_record(read_pytorch_file(args.file(), args.top_level_key()),
                                     detail::module_layout(model), args, spec(), report);
    }
    /// The file's tensors as they are (after the top-level key), for inspection.
    StateDict read(const LoadArgs& args) const {
        return read_pytorch_file(args.file(), args.top_level_key());
    }

private:
    static constexpr detail::ImportSpec spec() {
        return {"PyTorchFileRecorder", S::float_dtype, S::int_dtype};
    }
};

/// Loads and saves safetensors files in PyTorch's layout: a file saved by PyTorch / Hugging
/// Face tools loads into the module like a `.pt` file would, and a module saved here loads
/// into the PyTorch model with `load_state_dict`.
template <PrecisionSettings S = FullPrecisionSettings>
class SafetensorsFileRecorder {
public:
    using Settings = S;
    /// The record of `model` with the tensors of `args.file()` (see PyTorchFileRecorder::load).
    template <module::Module M>
    Record load(const LoadArgs& args, const M& model, LoadReport* report = nullptr) const {
        return detail::import_record(detail::read_safetensors_for(args),
                                     detail::module_layout(model), args, spec(), report);
    }
    /// Writes the module's tensors in PyTorch's layout and names (the inverse of load), in the
    /// precision's dtypes, atomically; ".safetensors" is appended unless `path` ends with it.
    /// `metadata` goes to the header's "__metadata__". Returns the path written.
    template <module::Module M>
    std::filesystem::path save(const M& model, const std::filesystem::path& path,
                               const SafetensorsMetadata& metadata = {{"format", "pt"}}) const {
        const auto target = detail::safetensors_path(path);
        write_safetensors_file(
            target, detail::export_state_dict(detail::module_layout(model), spec()), metadata);
        return target;
    }
    /// The file's tensors as they are (after the top-level key), for inspection.
    StateDict read(const LoadArgs& args) const { return detail::read_safetensors_for(args); }

private:
    static constexpr detail::ImportSpec spec() {
        return {"SafetensorsFileRecorder", S::float_dtype, S::int_dtype};
    }
};

}  // namespace burn::record

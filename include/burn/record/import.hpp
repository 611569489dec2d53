// SPDX-License-Identifier: MIT OR Apache-2.0
// The arguments and the compiled half of weight import (burn/record/pytorch.hpp has the
// recorders): LoadArgs, LoadReport, and the description of a module's tensors that the
// template side builds and src/record/import.cpp matches against a state dict.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burn/record/recorder.hpp"
#include "burn/record/state_dict.hpp"

namespace burn::record {

// ---------------------------------------------------------------------------- load arguments
/// Where and how to read a state dict (Burn's LoadArgs).
class LoadArgs {
public:
    explicit LoadArgs(std::filesystem::path file) : file_(std::move(file)) {}

    /// Renames keys before they are matched: every match of the regular expression `pattern`
    /// (ECMAScript syntax) is replaced by `replacement` (`$1` is the first group). Remaps apply
    /// to every key in the order they were added. An invalid pattern throws burn::Error.
    LoadArgs with_key_remap(std::string pattern, std::string replacement) const;
    /// Reads only the dict stored under `key` (a checkpoint's "model_state_dict"). For
    /// safetensors, keeps the keys starting with "key." and strips that prefix.
    LoadArgs with_top_level_key(std::string key) const {
        LoadArgs a = *this;
        a.top_level_key_ = std::move(key);
        return a;
    }
    /// Prints every key of the file, its remapped key, shape and dtype, then how each tensor of
    /// the module was found, and the keys left unused (to standard output).
    LoadArgs with_debug_print() const {
        LoadArgs a = *this;
        a.debug_print_ = true;
        return a;
    }
    /// Tensors of the module that the file lacks keep their current values instead of failing
    /// the load (a new classifier head on a pretrained body). LoadReport lists them.
    LoadArgs with_allow_missing() const {
        LoadArgs a = *this;
        a.allow_missing_ = true;
        return a;
    }

    const std::filesystem::path& file() const { return file_; }
    const std::vector<std::pair<std::string, std::string>>& key_remaps() const { return remaps_; }
    const std::string& top_level_key() const { return top_level_key_; }
    bool debug_print() const { return debug_print_; }
    bool allow_missing() const { return allow_missing_; }

private:
    std::filesystem::path file_;
    std::vector<std::pair<std::string, std::string>> remaps_;
    std::string top_level_key_;
    bool debug_print_ = false;
    bool allow_missing_ = false;
};

/// What a load matched: `missing` (module paths the file lacked: only with allow_missing, else
/// the load throws) and `unused` (file keys, after remapping, that no module tensor took: a
/// decoder's weights when loading an encoder).
struct LoadReport {
    std::vector<std::string> loaded;   ///< module paths read from the file
    std::vector<std::string> missing;  ///< module paths that kept their values
    std::vector<std::string> unused;   ///< file keys (remapped) not used
};

namespace detail {

enum class LeafKind : std::uint8_t { Float, Int, Bool };

/// Where a module tensor comes from in a PyTorch-layout state dict: the tensor under `key`,
/// restricted to row block `block` of `blocks` equal blocks along dim 0, then transposed (2-D).
struct TorchSource {
    std::string key;
    bool transpose = false;
    std::uint32_t block = 0;
    std::uint32_t blocks = 1;

    TorchSource child(std::string_view name) const {
        TorchSource s = *this;
        if (!s.key.empty()) s.key += '.';
        s.key.append(name);
        return s;
    }
};
/// Alternative sources of a tensor (or prefixes of a sub-module), tried in order.
using TorchSources = std::vector<TorchSource>;

/// One tensor of a module: its dotted path, shape, kind and id, where it may come from, and its
/// current value (read only when needed: a kept tensor, an export).
struct LayoutEntry {
    std::string path;
    Shape shape;
    LeafKind kind = LeafKind::Float;
    ParamId id{0};
    TorchSources sources;
    std::function<TensorData()> current;
};
using ModuleLayout = std::vector<LayoutEntry>;

/// What the compiled side needs to know about the recorder.
struct ImportSpec {
    std::string_view recorder;  ///< "PyTorchFileRecorder", for messages
    DType float_dtype = DType::F32;
    DType int_dtype = DType::I32;
};

/// The module's record from `dict` (PyTorch layout) through `layout`, with the remaps,
/// renumbering, debug print and missing-key policy of `args`.
Record import_record(StateDict dict, const ModuleLayout& layout, const LoadArgs& args,
                     const ImportSpec& spec, LoadReport* report);
/// The module's tensors in PyTorch layout (the inverse of import_record), in module order.
StateDict export_state_dict(const ModuleLayout& layout, const ImportSpec& spec);
/// Throws burn::Error unless `pattern` is a valid ECMAScript regular expression.
void check_key_remap(std::string_view pattern);
/// read_safetensors_file with LoadArgs::top_level_key applied.
StateDict read_safetensors_for(const LoadArgs& args);
/// `path` with ".safetensors" appended unless it ends with it.
std::filesystem::path safetensors_path(const std::filesystem::path& path);

}  // namespace detail

inline LoadArgs LoadArgs::with_key_remap(std::string pattern, std::string replacement) const {
    detail::check_key_remap(pattern);
    LoadArgs a = *this;
    a.remaps_.emplace_back(std::move(pattern), std::move(replacement));
    return a;
}

}  // namespace burn::record

// SPDX-License-Identifier: MIT OR Apache-2.0
// From a state dict in PyTorch's layout to a module's record and back (the compiled half of
// burn/record/pytorch.hpp): key remapping, Sequential renumbering, the debug listing, matching
// each module tensor to its source (row blocks, transposes), dtype conversion, and the report
// of missing and unused keys.
#include "burn/record/import.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "record_io.hpp"

namespace burn::record::detail {

namespace {

bool is_index(std::string_view s) {
    return !s.empty() && s.size() <= 18 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> split_key(std::string_view key) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto dot = key.find('.', start);
        parts.emplace_back(key.substr(start, dot == std::string_view::npos ? dot : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts;
}

std::string join_key(const std::vector<std::string>& parts, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
        if (i) s += '.';
        s += parts[i];
    }
    return s;
}

/// Burn's renumbering of non-contiguous indices (an nn.Sequential whose activations hold no
/// tensors saves layers.0, layers.2, layers.4): under each prefix, the indices present become
/// 0, 1, 2, ... in numeric order. Prefixes are taken after the renumbering of earlier levels.
void renumber_indices(std::vector<std::string>& keys) {
    std::vector<std::vector<std::string>> parts;
    parts.reserve(keys.size());
    std::size_t depth = 0;
    for (const auto& k : keys) {
        parts.push_back(split_key(k));
        depth = std::max(depth, parts.back().size());
    }
    for (std::size_t level = 0; level < depth; ++level) {
        std::map<std::string, std::vector<std::uint64_t>> indices;  // prefix -> indices
        for (const auto& p : parts)
            if (level < p.size() && is_index(p[level]))
                indices[join_key(p, level)].push_back(std::stoull(p[level]));
        if (indices.empty()) continue;
        for (auto& [prefix, v] : indices) {
            std::sort(v.begin(), v.end());
            v.erase(std::unique(v.begin(), v.end()), v.end());
        }
        for (auto& p : parts) {
            if (level >= p.size() || !is_index(p[level])) continue;
            const auto& v = indices[join_key(p, level)];
            const auto it = std::lower_bound(v.begin(), v.end(), std::stoull(p[level]));
            p[level] = std::to_string(it - v.begin());
        }
    }
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = join_key(parts[i], parts[i].size());
}

std::string describe_source(const TorchSource& s) {
    std::string d = "'" + s.key + "'";
    if (s.blocks > 1)
        d += " (rows block " + std::to_string(s.block) + " of " + std::to_string(s.blocks) + ")";
    if (s.transpose) d += " transposed";
    return d;
}

/// Row block `block` of `blocks` of `data` (dim 0), then the 2-D transpose if asked. `data`
/// itself when neither applies (moved from when `consume`: its last use).
TensorData take_source(TensorData& data, const TorchSource& src, std::string_view recorder,
                       const std::string& file, const std::string& path, bool consume) {
    auto fail = [&](const auto&... args) {
        ::burn::detail::fail(recorder, "::load: ", file, ": '", path, "' from ",
                             describe_source(src), ": ", args...);
    };
    if (src.blocks <= 1 && !src.transpose) return consume ? std::move(data) : data;
    const Shape& shape = data.shape;
    const std::size_t es = dtype_size(data.dtype);
    if (data.is_quantized()) fail("quantized tensors cannot be split or transposed");
    std::span<const std::uint8_t> bytes = data.bytes();
    Shape out_shape = shape;
    if (src.blocks > 1) {
        if (shape.rank() == 0 || shape[0] % src.blocks != 0)
            fail("expected a first dimension divisible by ", src.blocks, ", found shape ",
                 shape.to_string());
        out_shape[0] = shape[0] / src.blocks;
        const std::size_t block_bytes = out_shape.num_elements() * es;
        bytes = bytes.subspan(block_bytes * src.block, block_bytes);
    }
    if (!src.transpose)
        return TensorData(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), out_shape,
                          data.dtype);
    if (out_shape.rank() != 2)
        fail("expected a 2-D tensor to transpose, found shape ", out_shape.to_string());
    const std::size_t rows = out_shape[0], cols = out_shape[1];
    std::vector<std::uint8_t> t(bytes.size());
    // Tiles keep both the reads and the writes within a few cache lines.
    constexpr std::size_t tile = 32;
    for (std::size_t r0 = 0; r0 < rows; r0 += tile)
        for (std::size_t c0 = 0; c0 < cols; c0 += tile)
            for (std::size_t r = r0; r < std::min(rows, r0 + tile); ++r)
                for (std::size_t c = c0; c < std::min(cols, c0 + tile); ++c)
                    std::memcpy(&t[(c * rows + r) * es], &bytes[(r * cols + c) * es], es);
    return TensorData(std::move(t), Shape{cols, rows}, data.dtype);
}

const char* kind_name(LeafKind k) {
    switch (k) {
        case LeafKind::Int: return "an Int";
        case LeafKind::Bool: return "a Bool";
        default: return "a Float";
    }
}

/// `data` converted for a leaf of kind `kind` under the recorder's precision.
TensorData convert_for(TensorData data, LeafKind kind, const ImportSpec& spec,
                       const std::string& file, const std::string& path, const std::string& key) {
    const DType d = data.dtype;
    DType target = d;
    bool ok = true;
    switch (kind) {
        case LeafKind::Float: target = spec.float_dtype; break;
        case LeafKind::Int:
            target = spec.int_dtype;
            ok = is_int(d) || d == DType::Bool;
            break;
        case LeafKind::Bool: ok = d == DType::Bool; break;
    }
    BURN_CHECK(ok, spec.recorder, "::load: ", file, ": '", path, "' is ", kind_name(kind),
               " tensor, but '", key, "' holds ", dtype_name(d), " values");
    if (target == d) return data;
    if (kind == LeafKind::Int && is_int(d)) {
        // Fail rather than wrap when a value does not fit the saved int dtype (i64 -> i16).
        RecorderSpec rs;
        rs.recorder = spec.recorder;
        rs.float_dtype = spec.float_dtype;
        rs.int_dtype = spec.int_dtype;
        std::optional<TensorData> scratch;
        const Context ctx{spec.recorder, "load", file};
        const TensorData& saved = saved_form(data, rs, path, ctx, scratch);
        return scratch ? std::move(*scratch) : saved;
    }
    return data.convert(target);
}

/// Inserts `value` at the dotted `path` of `root`: numeric parts are list indices (a C++
/// field name never is one), others map fields.
void insert_at(Record& root, const std::string& path, Record value) {
    Record* node = &root;
    for (const auto& part : split_key(path)) {
        if (is_index(part)) {
            if (node->is_none()) node->value() = Record::List{};
            auto& list = std::get<Record::List>(node->value());
            const std::size_t i = std::stoull(part);
            if (list.size() <= i) list.resize(i + 1);
            node = &list[i];
        } else {
            if (node->is_none()) node->value() = Record::Map{};
            auto& map = std::get<Record::Map>(node->value());
            auto it = std::find_if(map.begin(), map.end(),
                                   [&](const auto& kv) { return kv.first == part; });
            if (it == map.end()) {
                map.emplace_back(part, Record{});
                node = &map.back().second;
            } else {
                node = &it->second;
            }
        }
    }
    *node = std::move(value);
}

std::string file_name(const LoadArgs& args) { return args.file().string(); }

}  // namespace

void check_key_remap(std::string_view pattern) {
    try {
        std::regex re{std::string(pattern)};
    } catch (const std::regex_error& e) {
        ::burn::detail::fail("LoadArgs::with_key_remap: invalid regular expression \"", pattern,
                             "\": ", e.what());
    }
}

std::filesystem::path safetensors_path(const std::filesystem::path& path) {
    return with_record_extension(path, "safetensors");
}

StateDict read_safetensors_for(const LoadArgs& args) {
    Safetensors st = read_safetensors_file(args.file());
    const std::string& top = args.top_level_key();
    if (top.empty()) return std::move(st.tensors);
    const std::string prefix = top + ".";
    StateDict out;
    for (auto& t : st.tensors)
        if (t.key.starts_with(prefix))
            out.push_back({t.key.substr(prefix.size()), std::move(t.data)});
    BURN_CHECK(!out.empty(), "SafetensorsFileRecorder::load: ", file_name(args),
               ": no key starts with the top-level key \"", prefix, "\"");
    return out;
}

Record import_record(StateDict dict, const ModuleLayout& layout, const LoadArgs& args,
                     const ImportSpec& spec, LoadReport* report) {
    const std::string file = file_name(args);
    // Keys: remapped in order, then renumbered.
    std::vector<std::string> original(dict.size()), keys(dict.size());
    for (std::size_t i = 0; i < dict.size(); ++i) original[i] = keys[i] = dict[i].key;
    for (const auto& [pattern, replacement] : args.key_remaps()) {
        const std::regex re(pattern);
        for (auto& k : keys) k = std::regex_replace(k, re, replacement);
    }
    renumber_indices(keys);
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto [it, fresh] = index.emplace(keys[i], i);
        BURN_CHECK(fresh, spec.recorder, "::load: ", file, ": the keys '", original[it->second],
                   "' and '", original[i], "' both become '", keys[i], "' after remapping");
    }
    if (args.debug_print()) {
        std::cout << "Debug information of keys and tensor shapes (" << file << "):\n---\n";
        for (std::size_t i = 0; i < dict.size(); ++i) {
            std::cout << "Original Key: " << original[i] << "\n";
            if (keys[i] != original[i]) std::cout << "Remapped Key: " << keys[i] << "\n";
            std::cout << "Shape: " << dict[i].data.shape << "\nDtype: " << dict[i].data.dtype
                      << "\n---\n";
        }
    }

    // The source each module tensor takes, and how many take each key.
    std::vector<std::ptrdiff_t> source_of(layout.size(), -1);
    std::vector<std::size_t> uses(dict.size(), 0);
    for (std::size_t i = 0; i < layout.size(); ++i) {
        for (std::size_t k = 0; k < layout[i].sources.size(); ++k) {
            if (auto it = index.find(layout[i].sources[k].key); it != index.end()) {
                source_of[i] = static_cast<std::ptrdiff_t>(k);
                ++uses[it->second];
                break;
            }
        }
    }

    Record root(Record::Map{});
    std::vector<bool> used(dict.size(), false);
    std::vector<std::string> missing;
    LoadReport local;
    for (std::size_t i = 0; i < layout.size(); ++i) {
        const LayoutEntry& e = layout[i];
        const TorchSource* found =
            source_of[i] < 0 ? nullptr : &e.sources[std::size_t(source_of[i])];
        const std::size_t at = found ? index.at(found->key) : 0;
        if (!found) {
            missing.push_back(e.path);
            if (args.allow_missing()) {
                insert_at(root, e.path, Record(TensorItem{e.current(), e.id}));
                local.missing.push_back(e.path);
            }
            if (args.debug_print()) std::cout << "Module '" << e.path << "': not in the file\n";
            continue;
        }
        used[at] = true;
        const std::string& key = keys[at];
        // A tensor is moved out of the dict at its last use (a key can feed several tensors:
        // in_proj_weight gives query, key and value).
        TensorData data =
            take_source(dict[at].data, *found, spec.recorder, file, e.path, --uses[at] == 0);
        BURN_CHECK(data.shape == e.shape, spec.recorder, "::load: ", file, ": '", e.path, "' from ",
                   describe_source(*found), ": expected shape ", e.shape, ", found ", data.shape);
        data = convert_for(std::move(data), e.kind, spec, file, e.path, key);
        if (args.debug_print())
            std::cout << "Module '" << e.path << "' <- " << describe_source(*found) << "\n";
        insert_at(root, e.path, Record(TensorItem{std::move(data), e.id}));
        local.loaded.push_back(e.path);
    }
    for (std::size_t i = 0; i < dict.size(); ++i)
        if (!used[i]) local.unused.push_back(keys[i]);
    if (args.debug_print()) {
        for (const auto& k : local.unused) std::cout << "Unused key: " << k << "\n";
        std::cout << "---\n";
    }
    if (!missing.empty() && !args.allow_missing()) {
        std::ostringstream msg;
        msg << missing.size() << " tensor" << (missing.size() == 1 ? "" : "s")
            << " of the module not found in the file:";
        constexpr std::size_t shown = 12;
        for (std::size_t i = 0; i < std::min(missing.size(), shown); ++i) {
            const auto& e = *std::find_if(layout.begin(), layout.end(),
                                          [&](const auto& x) { return x.path == missing[i]; });
            msg << "\n  " << e.path << " " << e.shape << " (looked up as";
            for (std::size_t k = 0; k < e.sources.size(); ++k)
                msg << (k ? ", " : " ") << describe_source(e.sources[k]);
            msg << ")";
        }
        if (missing.size() > shown) msg << "\n  ... and " << missing.size() - shown << " more";
        if (!local.unused.empty()) {
            msg << "\nkeys of the file not used:";
            for (std::size_t i = 0; i < std::min(local.unused.size(), shown); ++i)
                msg << " " << local.unused[i];
            if (local.unused.size() > shown) msg << " ...";
        }
        msg << "\n(rename keys with LoadArgs::with_key_remap, list them with with_debug_print, "
               "or keep the module's values with with_allow_missing)";
        ::burn::detail::fail(spec.recorder, "::load: ", file, ": ", msg.str());
    }
    if (report) *report = std::move(local);
    return root;
}

StateDict export_state_dict(const ModuleLayout& layout, const ImportSpec& spec) {
    // Group the module's tensors by their primary source key, in first-use order.
    struct Target {
        std::string key;
        std::vector<const LayoutEntry*> blocks;  // by block index
    };
    std::vector<Target> targets;
    std::unordered_map<std::string, std::size_t> at;
    for (const auto& e : layout) {
        BURN_CHECK(!e.sources.empty(), spec.recorder, "::save: '", e.path, "' has no key");
        const TorchSource& s = e.sources.front();
        auto [it, fresh] = at.emplace(s.key, targets.size());
        if (fresh) targets.push_back({s.key, std::vector<const LayoutEntry*>(s.blocks, nullptr)});
        auto& t = targets[it->second];
        BURN_CHECK(t.blocks.size() == s.blocks && s.block < s.blocks && !t.blocks[s.block],
                   spec.recorder, "::save: '", e.path, "' and another tensor both map to '", s.key,
                   "'");
        t.blocks[s.block] = &e;
    }
    StateDict out;
    out.reserve(targets.size());
    for (auto& t : targets) {
        std::vector<std::uint8_t> bytes;
        Shape shape;
        DType dtype = DType::F32;
        for (std::size_t b = 0; b < t.blocks.size(); ++b) {
            const LayoutEntry* e = t.blocks[b];
            BURN_CHECK(e != nullptr, spec.recorder, "::save: '", t.key, "' lacks its block ", b);
            TensorData d = e->current();
            if (d.is_quantized()) d = d.dequantize();
            const DType target = is_float(d.dtype) ? spec.float_dtype
                                 : is_int(d.dtype) ? spec.int_dtype
                                                   : d.dtype;
            if (d.dtype != target) d = d.convert(target);
            const TorchSource& s = e->sources.front();
            if (s.transpose) {
                // The inverse of the load's transpose is the same operation.
                d = take_source(d, TorchSource{t.key, true, 0, 1}, spec.recorder, "", e->path,
                                true);
            }
            if (b == 0) {
                shape = d.shape;
                dtype = d.dtype;
            } else {
                BURN_CHECK(d.dtype == dtype && d.shape.rank() == shape.rank() &&
                               d.shape.rank() > 0 &&
                               std::equal(d.shape.begin() + 1, d.shape.end(), shape.begin() + 1),
                           spec.recorder, "::save: the blocks of '", t.key, "' differ in shape");
                shape[0] += d.shape[0];
            }
            const auto src = d.bytes();
            bytes.insert(bytes.end(), src.begin(), src.end());
        }
        out.push_back({t.key, TensorData(std::move(bytes), shape, dtype)});
    }
    return out;
}

}  // namespace burn::record::detail

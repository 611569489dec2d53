// SPDX-License-Identifier: MIT OR Apache-2.0
// State dicts from other frameworks: the tensors of a PyTorch `.pt`/`.pth` file (as torch.save
// writes it) or of a safetensors file, by key, in file order. These are the raw readers and
// writers under PyTorchFileRecorder and SafetensorsFileRecorder (burn/record/pytorch.hpp), which
// map the keys onto a module; use them directly to inspect a file.
//
//   auto dict = burn::record::read_pytorch_file("resnet18.pth");
//   for (const auto& [key, data] : dict) std::cout << key << " " << data.shape << "\n";
//
// Nothing here runs Python or executes code from the file: the pickle reader evaluates only the
// opcodes and globals a state dict needs (tensor rebuild functions, OrderedDict, storages of
// every dtype) and refuses everything else with burn::Error. Every size, offset and stride in a
// file is checked against the file before it is used. docs/import-pytorch.md has the details.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burn/tensor/data.hpp"

namespace burn::record {

/// One tensor of a state dict: its key ("encoder.layers.0.linear1.weight") and its values,
/// row-major, in the dtype the file holds.
struct NamedTensor {
    std::string key;
    TensorData data;
};

/// The tensors of a file, in file order (a torch state dict's insertion order; a safetensors
/// header's order).
using StateDict = std::vector<NamedTensor>;

/// String metadata of a safetensors file (its "__metadata__" object).
using SafetensorsMetadata = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------- PyTorch
/// The tensors of a file written by torch.save: the zip format (PyTorch >= 1.6) or the legacy
/// pickle format (_use_new_zipfile_serialization=False). The pickled object must be a dict
/// (state_dict, OrderedDict); nested dicts and lists are flattened with dotted keys
/// ({"model": {"fc.weight": t}} gives "model.fc.weight"; list items use their index), and
/// values that are not tensors (ints, strings, None, ...) are skipped. With `top_level_key`,
/// only the dict stored under that key is read (a checkpoint's "model_state_dict").
///
/// Tensors keep their dtype (f64 f32 f16 bf16 i64 i32 i16 i8 u8 bool); views (offsets,
/// strides, several tensors sharing a storage) are read as row-major copies. Throws burn::Error
/// naming the file for anything else: a corrupt or truncated archive, a pickle naming another
/// global, an out-of-range storage offset, a quantized or complex tensor.
StateDict read_pytorch_file(const std::filesystem::path& path, std::string_view top_level_key = {});

/// The same from bytes in memory; `name` is used in error messages.
StateDict read_pytorch_bytes(std::span<const std::uint8_t> bytes,
                             std::string_view top_level_key = {},
                             std::string_view name = "<memory>");

// ---------------------------------------------------------------------------- safetensors
/// The tensors and metadata of a safetensors file.
struct Safetensors {
    StateDict tensors;
    SafetensorsMetadata metadata;
};

/// Reads a safetensors file. The header is validated against the file: its length, its JSON,
/// each tensor's dtype (F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL), shape and data_offsets (in
/// range, of the size the shape and dtype need, not overlapping). Throws burn::Error naming the
/// file and the offending tensor.
Safetensors read_safetensors_file(const std::filesystem::path& path);
/// The same from bytes in memory; `name` is used in error messages.
Safetensors read_safetensors_bytes(std::span<const std::uint8_t> bytes,
                                   std::string_view name = "<memory>");

/// A safetensors file's bytes: an 8-byte little-endian header length, the JSON header (padded
/// with spaces to a multiple of 8 bytes) and the tensors' bytes, in the order given. Keys must
/// be unique and non-empty; quantized data is refused (dequantize it first).
std::vector<std::uint8_t> safetensors_to_bytes(const StateDict& tensors,
                                               const SafetensorsMetadata& metadata = {});
/// Writes a safetensors file atomically (temporary file in the same directory, then rename).
void write_safetensors_file(const std::filesystem::path& path, const StateDict& tensors,
                            const SafetensorsMetadata& metadata = {});

}  // namespace burn::record

// SPDX-License-Identifier: MIT OR Apache-2.0
// The on-disk cache of kernels compiled at run time, shared by the backends that compile them
// (CUDA: NVRTC cubins; Vulkan: shaderc SPIR-V of Fusion's generated shaders). Entries are named by
// a hash of everything their code depends on, written under a temporary name and renamed (a
// concurrent reader never sees half a file); failing to read or write only costs a compilation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace burn::backend {

/// The cache directory: $`env` when set ("off" or "0": no disk cache, an empty path), else
/// $XDG_CACHE_HOME/burn-cpp/`sub`, else ~/.cache/burn-cpp/`sub`.
std::filesystem::path kernel_cache_dir(const char* env, std::string_view sub);

/// A file's bytes, or nothing when it cannot be read.
std::vector<char> read_cache_file(const std::filesystem::path& file);

/// Writes `data` to `file` through a temporary name and a rename (creating the directory);
/// failures leave no file and are ignored.
void write_cache_file(const std::filesystem::path& file, std::span<const char> data);

/// FNV-1a, 64-bit: `h` (start with kFnvOffset) extended by `s`.
inline constexpr std::uint64_t kFnvOffset = 1469598103934665603ull;
std::uint64_t fnv1a(std::uint64_t h, std::string_view s);

/// `h` as 16 hex digits (a cache file's name part).
std::string hex16(std::uint64_t h);

}  // namespace burn::backend

// SPDX-License-Identifier: MIT OR Apache-2.0
// The limits every JSON reader of burn-cpp applies before parsing (configs, JSON records, JSON
// lines datasets, the safetensors header): a text nested deeper than the limit, or holding a
// NUL byte (JSON never contains one; nlohmann's parser would stop there and ignore the rest), is
// refused with burn::Error naming the byte offset. The depth bound keeps the recursion of the
// JSON library's value copies and destructors far from the stack's end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace burn::detail {

/// The deepest nesting of arrays and objects a JSON reader accepts by default (configs allow
/// 128, JSON records their record depth plus the tensor objects).
inline constexpr std::size_t max_json_depth = 512;

/// Throws burn::Error "<context>: ..." when `text` nests arrays and objects deeper than
/// `max_depth`, holds a string longer than `max_string` bytes (as written, escapes included) or
/// contains a NUL byte, naming the offset.
void check_json_text(std::string_view text, std::string_view context,
                     std::size_t max_depth = max_json_depth,
                     std::uint64_t max_string = std::uint64_t(-1));

}  // namespace burn::detail

// SPDX-License-Identifier: MIT OR Apache-2.0
// The resource policy of the record readers: how deep, how long and how large the data they
// accept may be. A file that exceeds a limit is refused with burn::Error naming the file, the
// offset where it could be told and the limit; nothing larger than the limits is allocated.
#pragma once

#include <cstddef>
#include <cstdint>

namespace burn::record {

/// Limits applied by every recorder's load / from_bytes (and by the safetensors and PyTorch
/// readers for strings). Raise them process-wide with set_read_limits.
struct ReadLimits {
    /// Longest string (a map key, a string value) in a record: 64 MiB.
    std::uint64_t max_string_bytes = std::uint64_t(64) << 20;
    /// Most bytes a gzip-compressed record may inflate to: 64 GiB. A record never inflates past
    /// the end of its own content (data after it is refused without being inflated); this bound
    /// stops content that is itself absurdly large.
    std::uint64_t max_decompressed_bytes = std::uint64_t(64) << 30;
    /// Most whitespace accepted after the value of a JSON record: 1 MiB.
    std::uint64_t max_trailing_whitespace = std::uint64_t(1) << 20;
};

/// Nesting depth of lists and maps that records may have (fixed: it bounds the recursion of the
/// decoders).
inline constexpr std::size_t max_record_nesting = 256;

/// The limits in force (thread-safe).
ReadLimits read_limits();
/// Replaces the limits for the whole process (thread-safe); returns the previous ones.
ReadLimits set_read_limits(const ReadLimits& limits);

}  // namespace burn::record

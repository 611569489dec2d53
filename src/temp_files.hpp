// SPDX-License-Identifier: MIT OR Apache-2.0
// Temporary files of atomic writes (write to `<target>.tmp-<pid>-<12 hex>`, flush, rename): the
// name suffix, the clean-up of temporaries left by killed processes, and flushing to disk. Used
// by the recorders (src/record/recorder.cpp) and the SQLite dataset writer (src/data/sqlite.cpp).
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>

namespace burn::detail {

/// A random suffix for temporary files, unique per process and call: ".tmp-<pid>-<12 hex>".
std::string temp_file_suffix();

/// Removes `<target name>.tmp-<pid>-<12 hex>` files (optionally followed by one of
/// `side_suffixes`, e.g. SQLite's "-journal") that writers to `target` left when their process
/// was killed: those of a process that no longer runs. Temporaries of running processes (a write
/// in progress) are left alone.
void remove_stale_temporaries(const std::filesystem::path& target,
                              std::initializer_list<const char*> side_suffixes = {});

/// fsync of a file, or of a directory (the entry of a rename); best effort: not every file
/// system allows opening a directory.
void sync_path(const std::filesystem::path& path, bool directory);

}  // namespace burn::detail

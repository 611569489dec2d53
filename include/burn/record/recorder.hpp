// SPDX-License-Identifier: MIT OR Apache-2.0
// Recorders: turn a Record into bytes or a file and back, in a format (named MessagePack, a
// compact binary, JSON), optionally gzip-compressed, at a precision (the dtypes tensors are saved
// with). As in Burn:
//
//   NamedMpkFileRecorder<S>    .mpk      named MessagePack (DefaultFileRecorder = <Full>)
//   NamedMpkGzFileRecorder<S>  .mpk.gz   the same, gzip    (CompactRecorder = <Half>)
//   BinFileRecorder<S>         .bin      compact binary
//   BinGzFileRecorder<S>       .bin.gz   the same, gzip
//   JsonGzFileRecorder<S>      .json.gz  JSON, gzip
//   PrettyJsonFileRecorder<S>  .json     indented JSON, not compressed
//   BinBytesRecorder<S>        (memory)  the Bin format as bytes (to embed in a binary)
//
//   burn::record::NamedMpkFileRecorder<burn::record::FullPrecisionSettings> recorder;
//   auto written = recorder.record(model.into_record(), "artifacts/model");  // .../model.mpk
//   burn::record::Record r = recorder.load("artifacts/model");
//
// Every file starts with a header (format, version, precision): loading with the wrong recorder
// or precision, a truncated file, a corrupt gzip stream or a foreign file throws burn::Error
// naming the file and what was expected and found. Saves are atomic (temporary file in the same
// directory, fsync, rename). The formats are described in docs/records.md.
#pragma once

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "burn/record/limits.hpp"
#include "burn/record/record.hpp"
#include "burn/tensor/dtype.hpp"

namespace burn::record {

// ---------------------------------------------------------------------------- precision
/// Tensors saved as f32 (floats) and i32 (ints).
struct FullPrecisionSettings {
    static constexpr DType float_dtype = DType::F32;
    static constexpr DType int_dtype = DType::I32;
    static constexpr std::string_view name = "full";
};
/// Tensors saved as f16 and i16: half the size; floats are rounded to nearest even, and an int
/// value outside the i16 range makes the save fail.
struct HalfPrecisionSettings {
    static constexpr DType float_dtype = DType::F16;
    static constexpr DType int_dtype = DType::I16;
    static constexpr std::string_view name = "half";
};
/// Tensors saved as f64 and i64.
struct DoublePrecisionSettings {
    static constexpr DType float_dtype = DType::F64;
    static constexpr DType int_dtype = DType::I64;
    static constexpr std::string_view name = "double";
};

/// A precision setting: the float and int dtypes that tensors are saved with, and a name
/// written in the file header. Bool tensors stay bool; quantized (qint8) tensors stay qint8.
template <class S>
concept PrecisionSettings = requires {
    { S::float_dtype } -> std::convertible_to<DType>;
    { S::int_dtype } -> std::convertible_to<DType>;
    { S::name } -> std::convertible_to<std::string_view>;
    requires is_float(S::float_dtype) && is_int(S::int_dtype);
};

// ---------------------------------------------------------------------------- formats
/// The serialisation formats (gzip is a separate layer).
enum class RecordFormat : std::uint8_t {
    NamedMpk,  ///< MessagePack: maps of names, tensors as {shape, dtype, bytes, id}
    Bin,       ///< burn-cpp's compact binary format (little-endian, length-prefixed)
    Json,      ///< JSON (plain or indented)
};

/// What the (non-template) implementation needs to know about a recorder.
struct RecorderSpec {
    std::string_view recorder;  ///< class name without template arguments, for messages
    RecordFormat format = RecordFormat::Bin;
    bool gzip = false;
    bool pretty = false;         ///< JSON: indented
    std::string_view extension;  ///< "mpk.gz"; empty for in-memory recorders
    std::string_view precision;  ///< the settings' name: "full", "half", "double"
    DType float_dtype = DType::F32;
    DType int_dtype = DType::I32;
    int gzip_level = 6;  ///< zlib level 0..9 (gzip recorders only)
};

namespace detail {
std::vector<std::uint8_t> record_to_bytes(const Record& record, const RecorderSpec& spec);
Record record_from_bytes(std::span<const std::uint8_t> bytes, const RecorderSpec& spec);
std::filesystem::path record_to_file(const Record& record, const std::filesystem::path& path,
                                     const RecorderSpec& spec);
Record record_from_file(const std::filesystem::path& path, const RecorderSpec& spec);
/// `path` with ".<extension>" appended unless it already ends with it.
std::filesystem::path with_record_extension(const std::filesystem::path& path,
                                            std::string_view extension);
/// Throws burn::Error unless 0 <= level <= 9.
int checked_gzip_level(std::string_view recorder, int level);

template <PrecisionSettings S>
constexpr RecorderSpec make_spec(std::string_view recorder, RecordFormat format, bool gzip,
                                 bool pretty, std::string_view extension, int level = 6) {
    return RecorderSpec{recorder, format,         gzip,         pretty, extension,
                        S::name,  S::float_dtype, S::int_dtype, level};
}
}  // namespace detail

// ---------------------------------------------------------------------------- recorders
/// What every recorder has: bytes in memory.
template <PrecisionSettings S>
class RecorderBase {
public:
    using Settings = S;
    /// The record encoded in this recorder's format (gzip-compressed for the Gz recorders).
    std::vector<std::uint8_t> to_bytes(const Record& record) const {
        return detail::record_to_bytes(record, spec_);
    }
    /// The record encoded in `bytes`. Tensors keep the dtypes they were saved with (a module's
    /// load_record converts them to its backend's element types).
    Record from_bytes(std::span<const std::uint8_t> bytes) const {
        return detail::record_from_bytes(bytes, spec_);
    }
    const RecorderSpec& spec() const { return spec_; }

protected:
    explicit RecorderBase(const RecorderSpec& spec) : spec_(spec) {}
    RecorderSpec spec_;
};

/// A recorder that also reads and writes files with its extension.
template <PrecisionSettings S>
class FileRecorderBase : public RecorderBase<S> {
public:
    /// Writes `record` to `path` (".<extension>" appended unless `path` ends with it) atomically:
    /// a temporary file in the same directory is written, flushed to disk and renamed over the
    /// target, so that an interrupted save leaves any previous file intact. Returns the path
    /// written.
    std::filesystem::path record(const Record& record, const std::filesystem::path& path) const {
        return detail::record_to_file(record, path, this->spec_);
    }
    /// Reads the record at `path`, given with or without the extension.
    Record load(const std::filesystem::path& path) const {
        return detail::record_from_file(path, this->spec_);
    }
    /// The path record(path) writes: `path` with the extension.
    std::filesystem::path file_path(const std::filesystem::path& path) const {
        return detail::with_record_extension(path, this->spec_.extension);
    }
    /// "mpk", "mpk.gz", "bin", "bin.gz", "json.gz" or "json".
    std::string_view file_extension() const { return this->spec_.extension; }

protected:
    using RecorderBase<S>::RecorderBase;
};

/// Named MessagePack file (.mpk): the default recorder.
template <PrecisionSettings S = FullPrecisionSettings>
class NamedMpkFileRecorder : public FileRecorderBase<S> {
public:
    NamedMpkFileRecorder()
        : FileRecorderBase<S>(detail::make_spec<S>("NamedMpkFileRecorder", RecordFormat::NamedMpk,
                                                   false, false, "mpk")) {}
};

/// Named MessagePack, gzip-compressed (.mpk.gz). `level`: zlib compression level 0..9.
template <PrecisionSettings S = FullPrecisionSettings>
class NamedMpkGzFileRecorder : public FileRecorderBase<S> {
public:
    explicit NamedMpkGzFileRecorder(int level = 6)
        : FileRecorderBase<S>(detail::make_spec<S>(
              "NamedMpkGzFileRecorder", RecordFormat::NamedMpk, true, false, "mpk.gz",
              detail::checked_gzip_level("NamedMpkGzFileRecorder", level))) {}
};

/// Compact binary file (.bin); the same bytes as BinBytesRecorder.
template <PrecisionSettings S = FullPrecisionSettings>
class BinFileRecorder : public FileRecorderBase<S> {
public:
    BinFileRecorder()
        : FileRecorderBase<S>(
              detail::make_spec<S>("BinFileRecorder", RecordFormat::Bin, false, false, "bin")) {}
};

/// Compact binary, gzip-compressed (.bin.gz).
template <PrecisionSettings S = FullPrecisionSettings>
class BinGzFileRecorder : public FileRecorderBase<S> {
public:
    explicit BinGzFileRecorder(int level = 6)
        : FileRecorderBase<S>(
              detail::make_spec<S>("BinGzFileRecorder", RecordFormat::Bin, true, false, "bin.gz",
                                   detail::checked_gzip_level("BinGzFileRecorder", level))) {}
};

/// JSON, gzip-compressed (.json.gz).
template <PrecisionSettings S = FullPrecisionSettings>
class JsonGzFileRecorder : public FileRecorderBase<S> {
public:
    explicit JsonGzFileRecorder(int level = 6)
        : FileRecorderBase<S>(
              detail::make_spec<S>("JsonGzFileRecorder", RecordFormat::Json, true, false, "json.gz",
                                   detail::checked_gzip_level("JsonGzFileRecorder", level))) {}
};

/// Indented JSON (.json), not compressed: for reading weights with a text editor. (Burn's book
/// lists Gzip for it; Burn's recorder, like this one, writes plain text.)
template <PrecisionSettings S = FullPrecisionSettings>
class PrettyJsonFileRecorder : public FileRecorderBase<S> {
public:
    PrettyJsonFileRecorder()
        : FileRecorderBase<S>(detail::make_spec<S>("PrettyJsonFileRecorder", RecordFormat::Json,
                                                   false, true, "json")) {}
};

/// The Bin format in memory: to_bytes / from_bytes only. Reads what BinFileRecorder writes, so a
/// .bin file can be embedded in a program (docs/records.md shows how).
template <PrecisionSettings S = FullPrecisionSettings>
class BinBytesRecorder : public RecorderBase<S> {
public:
    BinBytesRecorder()
        : RecorderBase<S>(
              detail::make_spec<S>("BinBytesRecorder", RecordFormat::Bin, false, false, "")) {}
};

/// Burn's defaults.
using DefaultFileRecorder = NamedMpkFileRecorder<FullPrecisionSettings>;
using DefaultRecorder = DefaultFileRecorder;
using CompactRecorder = NamedMpkGzFileRecorder<HalfPrecisionSettings>;

// ---------------------------------------------------------------------------- concepts
/// A recorder that encodes records as bytes (every recorder).
template <class R>
concept BytesRecorder = requires(const R& r, const Record& rec, std::span<const std::uint8_t> b) {
    { r.to_bytes(rec) } -> std::same_as<std::vector<std::uint8_t>>;
    { r.from_bytes(b) } -> std::same_as<Record>;
};

/// A recorder that writes and reads files (what Module::save_file / load_file take).
template <class R>
concept FileRecorder = BytesRecorder<R> &&
    requires(const R& r, const Record& rec, const std::filesystem::path& p) {
    { r.record(rec, p) } -> std::same_as<std::filesystem::path>;
    { r.load(p) } -> std::same_as<Record>;
    { r.file_extension() } -> std::convertible_to<std::string_view>;
};

}  // namespace burn::record

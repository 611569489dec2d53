// SPDX-License-Identifier: MIT OR Apache-2.0
// The recorders' entry points: bytes and files, gzip layering, format dispatch, extensions and
// atomic saves.
#include "burn/record/recorder.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <string>

#include "../temp_files.hpp"
#include "record_io.hpp"

namespace burn::record::detail {

namespace {

namespace fs = std::filesystem;

/// The recorder that reads format `f` (plain or gzip-compressed), for hints.
std::string_view recorder_for(RecordFormat f, bool gzip) {
    switch (f) {
        case RecordFormat::NamedMpk:
            return gzip ? "NamedMpkGzFileRecorder" : "NamedMpkFileRecorder";
        case RecordFormat::Bin: return gzip ? "BinGzFileRecorder" : "BinFileRecorder";
        case RecordFormat::Json: return gzip ? "JsonGzFileRecorder" : "PrettyJsonFileRecorder";
    }
    return "?";
}

std::string expected_text(const RecorderSpec& spec) {
    std::string s = spec.gzip ? "a gzip-compressed " : "a ";
    s += format_name(spec.format);
    s += " record of ";
    s += spec.precision;
    s += " precision";
    return s;
}

/// "; load it with X" when `found` (describe_prefix's words) names a record format.
std::string hint_for(std::string_view found, bool gzip) {
    for (RecordFormat f : {RecordFormat::Bin, RecordFormat::NamedMpk, RecordFormat::Json}) {
        const std::string name = "a " + std::string(format_name(f)) + " record";
        if (found.find(name) != std::string_view::npos)
            return "; load it with " + std::string(recorder_for(f, gzip));
    }
    return {};
}

void encode(const Record& r, const RecorderSpec& spec, const Context& ctx, Sink& out) {
    auto plain = [&](Sink& s) {
        switch (spec.format) {
            case RecordFormat::NamedMpk: encode_mpk(r, spec, ctx, s); break;
            case RecordFormat::Bin: encode_bin(r, spec, ctx, s); break;
            case RecordFormat::Json: encode_json(r, spec, ctx, s); break;
        }
    };
    if (spec.gzip) {
        GzSink gz(out, spec.gzip_level, ctx);
        plain(gz);
        gz.finish();
    } else {
        plain(out);
    }
}

bool is_gzip(std::span<const std::uint8_t> head) {
    return head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
}

/// Fails unless `head` (the first bytes, inside the gzip stream if `in_gzip`) starts like the
/// recorder's format.
void check_prefix(std::span<const std::uint8_t> head, const RecorderSpec& spec, const Context& ctx,
                  bool in_gzip) {
    bool ok = false;
    switch (spec.format) {
        case RecordFormat::NamedMpk: ok = looks_like_mpk(head); break;
        case RecordFormat::Bin:
            ok = head.size() >= sizeof(bin_magic) &&
                 std::equal(bin_magic, bin_magic + sizeof(bin_magic), head.begin());
            break;
        case RecordFormat::Json: ok = looks_like_json(head); break;
    }
    if (ok) return;
    if (!in_gzip && is_gzip(head))
        ctx.fail("expected ", expected_text(spec), ", found gzip-compressed data; load it with ",
                 recorder_for(spec.format, true));
    std::string found = describe_prefix(head, !ctx.source.empty() && !in_gzip);
    if (in_gzip) found = "gzip-compressed data holding " + found;
    ctx.fail("expected ", expected_text(spec), ", found ", found, hint_for(found, in_gzip));
}

/// Decodes the uncompressed record in `src`.
Record decode_plain(Source& src, const RecorderSpec& spec, const Context& ctx, bool in_gzip,
                    std::uint64_t size_hint) {
    check_prefix(src.peek(32), spec, ctx, in_gzip);
    switch (spec.format) {
        case RecordFormat::Bin: return decode_bin(src, spec);
        // A decompressed stream is read up to the end of its value and no further.
        case RecordFormat::NamedMpk:
            return decode_mpk(
                (in_gzip ? read_single_value(src, false, size_hint) : read_all(src, size_hint))
                    .span(),
                spec, ctx);
        case RecordFormat::Json:
            return decode_json(
                (in_gzip ? read_single_value(src, true, size_hint) : read_all(src, size_hint))
                    .span(),
                spec, ctx);
    }
    ctx.fail("unknown format");
}

Record decode(Source& src, const RecorderSpec& spec, const Context& ctx, std::uint64_t size_hint) {
    if (!spec.gzip) return decode_plain(src, spec, ctx, false, size_hint);
    const auto head = src.peek(32);
    if (!is_gzip(head)) {
        const std::string found = describe_prefix(head, !ctx.source.empty());
        ctx.fail("expected ", expected_text(spec), ", found ", found, hint_for(found, false));
    }
    GzSource gz(src);
    return decode_plain(gz, spec, ctx, true, size_hint);
}

/// Roughly the encoded size of `r` (tensor bytes dominate), to reserve output buffers once.
std::uint64_t estimated_size(const Record& r, const RecorderSpec& spec) {
    return std::visit(
        [&](const auto& v) -> std::uint64_t {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, TensorItem>) {
                return 128 + v.data.num_elements() * dtype_size(saved_dtype(v.data.dtype, spec));
            } else if constexpr (std::is_same_v<V, std::string>) {
                return 16 + v.size();
            } else if constexpr (std::is_same_v<V, Record::List>) {
                std::uint64_t n = 16;
                for (const auto& x : v) n += estimated_size(x, spec);
                return n;
            } else if constexpr (std::is_same_v<V, Record::Map>) {
                std::uint64_t n = 16;
                for (const auto& [k, x] : v) n += 16 + k.size() + estimated_size(x, spec);
                return n;
            } else {
                return 16;
            }
        },
        r.value());
}

}  // namespace

int checked_gzip_level(std::string_view recorder, int level) {
    BURN_CHECK(level >= 0 && level <= 9, recorder, ": gzip level must be in 0..9, got ", level);
    return level;
}

fs::path with_record_extension(const fs::path& path, std::string_view extension) {
    if (extension.empty()) return path;
    const std::string name = path.filename().string();
    std::string suffix(1, '.');
    suffix.append(extension);
    if (name.size() > suffix.size() && name.ends_with(suffix)) return path;
    fs::path out = path;
    out += suffix;
    return out;
}

std::vector<std::uint8_t> record_to_bytes(const Record& record, const RecorderSpec& spec) {
    const Context ctx{spec.recorder, "to_bytes", ""};
    std::vector<std::uint8_t> out;
    // JSON spells every value out: its size is not worth estimating.
    if (spec.format != RecordFormat::Json) out.reserve(estimated_size(record, spec) + 256);
    VectorSink sink(out);
    encode(record, spec, ctx, sink);
    return out;
}

Record record_from_bytes(std::span<const std::uint8_t> bytes, const RecorderSpec& spec) {
    const Context ctx{spec.recorder, "from_bytes", ""};
    if (!spec.gzip && spec.format != RecordFormat::Bin) {
        // Parse in place: no copy of the input.
        check_prefix(bytes.first(std::min<std::size_t>(bytes.size(), 32)), spec, ctx, false);
        return spec.format == RecordFormat::NamedMpk ? decode_mpk(bytes, spec, ctx)
                                                     : decode_json(bytes, spec, ctx);
    }
    SpanSource src(bytes, ctx);
    std::uint64_t hint = 0;
    if (spec.gzip)
        if (auto t = GzSource::trailer_size(bytes); t && *t / 1032 <= bytes.size()) hint = *t;
    return decode(src, spec, ctx, hint);
}

fs::path record_to_file(const Record& record, const fs::path& path, const RecorderSpec& spec) {
    BURN_CHECK(!path.filename().empty(), spec.recorder, "::record: \"", path.string(),
               "\" names a directory, not a file");
    const fs::path target = with_record_extension(path, spec.extension);
    const Context ctx{spec.recorder, "record", target.string()};
    write_file_atomically(target, ctx, [&](Sink& sink) { encode(record, spec, ctx, sink); });
    return target;
}

void write_file_atomically(const fs::path& target, const Context& ctx,
                           const std::function<void(Sink&)>& write) {
    ::burn::detail::remove_stale_temporaries(target);
    fs::path tmp = target;
    tmp += ::burn::detail::temp_file_suffix();
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        ctx.fail("cannot create the temporary file ", tmp.string(), ": ", std::strerror(errno));
    try {
        {
            FdSink sink(fd, ctx);
            write(sink);
            sink.flush();
        }
        if (::fsync(fd) != 0) ctx.fail("fsync failed: ", std::strerror(errno));
        const int rc = ::close(fd);
        fd = -1;
        if (rc != 0) ctx.fail("close failed: ", std::strerror(errno));
        if (::rename(tmp.c_str(), target.c_str()) != 0)
            ctx.fail("cannot rename ", tmp.string(), " over it: ", std::strerror(errno));
    } catch (...) {
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    ::burn::detail::sync_path(target.parent_path(), true);
}

Record record_from_file(const fs::path& path, const RecorderSpec& spec) {
    fs::path file = with_record_extension(path, spec.extension);
    std::error_code ec;
    // The exact path given, when the one with the extension does not exist (a renamed file).
    if (file != path && !fs::exists(file, ec) && fs::is_regular_file(path, ec)) file = path;
    const Context ctx{spec.recorder, "load", file.string()};
    FileSource src(file, ctx);
    std::uint64_t hint = 0;
    if (spec.gzip) hint = src.size() * 2;
    return decode(src, spec, ctx, hint);
}

}  // namespace burn::record::detail

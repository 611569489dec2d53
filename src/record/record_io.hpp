// SPDX-License-Identifier: MIT OR Apache-2.0
// Private to src/record: byte sinks and sources (memory, file, gzip), error context, the common
// header check, precision conversion, and the three formats' encoders and decoders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "burn/record/recorder.hpp"
#include "burn/tensor/error.hpp"

namespace burn::record::detail {

/// Deepest nesting of lists and maps that the recorders write and read (bounds the recursion of
/// the decoders on hostile input).
inline constexpr std::size_t max_record_depth = max_record_nesting;
/// Format version written by this build (every format).
inline constexpr std::uint64_t format_version = 1;

// ---------------------------------------------------------------------------- errors
/// Who failed on what: every message starts "<Recorder>::<op>: <path>: ".
struct Context {
    std::string_view recorder;
    std::string_view op;  ///< "record", "load", "to_bytes", "from_bytes"
    std::string source;   ///< the file, or empty for bytes

    template <class... Args>
    [[noreturn]] void fail(const Args&... args) const {
        if (source.empty()) ::burn::detail::fail(recorder, "::", op, ": ", args...);
        ::burn::detail::fail(recorder, "::", op, ": ", source, ": ", args...);
    }
};

/// "a Bin record", "gzip-compressed data", "an empty file", "unknown data (7f 45 4c 46 ...)":
/// what a blob looks like, from its first bytes.
std::string describe_prefix(std::span<const std::uint8_t> prefix, bool is_file);

/// "a NamedMpk record", for messages.
std::string_view format_name(RecordFormat f);

/// Throws unless the header found matches the recorder (format, version, precision).
void check_header(const Context& ctx, const RecorderSpec& spec, std::string_view format,
                  std::uint64_t version, std::string_view precision);

// ---------------------------------------------------------------------------- sinks
/// Where encoders write.
class Sink {
public:
    virtual ~Sink() = default;
    virtual void write(const void* data, std::size_t n) = 0;
    void write(std::span<const std::uint8_t> s) { write(s.data(), s.size()); }
};

/// Appends to a vector.
class VectorSink final : public Sink {
public:
    explicit VectorSink(std::vector<std::uint8_t>& out) : out_(out) {}
    void write(const void* data, std::size_t n) override;
    using Sink::write;

private:
    std::vector<std::uint8_t>& out_;
};

/// Writes to a file descriptor through a 1 MiB buffer; large writes go straight to the kernel.
class FdSink final : public Sink {
public:
    FdSink(int fd, const Context& ctx);
    void write(const void* data, std::size_t n) override;
    using Sink::write;
    void flush();

private:
    void write_fd(const std::uint8_t* p, std::size_t n);
    int fd_;
    const Context& ctx_;
    std::vector<std::uint8_t> buf_;
    std::size_t used_ = 0;
};

/// gzip-compresses into another sink; finish() writes the trailer.
class GzSink final : public Sink {
public:
    GzSink(Sink& out, int level, const Context& ctx);
    ~GzSink() override;
    void write(const void* data, std::size_t n) override;
    using Sink::write;
    void finish();

private:
    struct State;
    void pump(int flush);
    Sink& out_;
    const Context& ctx_;
    std::unique_ptr<State> z_;
    std::vector<std::uint8_t> obuf_;
};

// ---------------------------------------------------------------------------- sources
/// Where decoders read, with a small look-ahead. read() fails with "truncated" at the end.
class Source {
public:
    explicit Source(const Context& ctx) : ctx_(ctx) {}
    virtual ~Source() = default;
    /// Exactly n bytes into dst, or burn::Error ("truncated").
    void read(void* dst, std::size_t n);
    /// Up to n bytes into dst; fewer only at the end of the data.
    std::size_t read_some(void* dst, std::size_t n);
    /// The next bytes (up to n; fewer at the end) without consuming them.
    std::span<const std::uint8_t> peek(std::size_t n);
    bool at_end() { return peek(1).empty(); }
    /// Bytes consumed so far.
    std::uint64_t position() const { return consumed_; }
    /// Bytes left, when known exactly (memory and plain files).
    virtual std::optional<std::uint64_t> remaining() const = 0;
    /// An upper bound of the bytes left: a length read from the data above it is corrupt, and
    /// must not be allocated.
    virtual std::uint64_t max_remaining() const = 0;
    const Context& context() const { return ctx_; }

protected:
    /// Up to n bytes from the underlying data; 0 at its end.
    virtual std::size_t produce(void* dst, std::size_t n) = 0;
    std::size_t buffered() const { return end_ - pos_; }

private:
    const Context& ctx_;
    std::vector<std::uint8_t> look_;
    std::size_t pos_ = 0, end_ = 0;
    std::uint64_t consumed_ = 0;
};

/// Bytes in memory (not copied).
class SpanSource final : public Source {
public:
    SpanSource(std::span<const std::uint8_t> data, const Context& ctx) : Source(ctx), data_(data) {}
    std::optional<std::uint64_t> remaining() const override {
        return data_.size() - off_ + buffered();
    }
    std::uint64_t max_remaining() const override { return *remaining(); }

protected:
    std::size_t produce(void* dst, std::size_t n) override;

private:
    std::span<const std::uint8_t> data_;
    std::size_t off_ = 0;
};

/// A regular file, read with read(2) (large reads land directly in the caller's buffer).
class FileSource final : public Source {
public:
    FileSource(const std::filesystem::path& path, const Context& ctx);
    ~FileSource() override;
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    std::optional<std::uint64_t> remaining() const override { return size_ - off_ + buffered(); }
    std::uint64_t max_remaining() const override { return *remaining(); }
    std::uint64_t size() const { return size_; }

protected:
    std::size_t produce(void* dst, std::size_t n) override;

private:
    int fd_ = -1;
    std::uint64_t size_ = 0, off_ = 0;
};

/// Inflates a gzip stream (one member, nothing after it) read from another source.
class GzSource final : public Source {
public:
    explicit GzSource(Source& in);
    ~GzSource() override;
    std::optional<std::uint64_t> remaining() const override { return std::nullopt; }
    std::uint64_t max_remaining() const override;
    /// The uncompressed size the gzip trailer states (mod 2^32), when the input is in memory.
    static std::optional<std::uint64_t> trailer_size(std::span<const std::uint8_t> gz);

protected:
    std::size_t produce(void* dst, std::size_t n) override;

private:
    struct State;
    Source& in_;
    std::unique_ptr<State> z_;
    std::vector<std::uint8_t> ibuf_;
    std::uint64_t produced_ = 0;
    std::uint64_t max_produced_;  // ReadLimits::max_decompressed_bytes
    bool done_ = false;
};

/// A byte buffer that is not zero-filled when allocated (large ones are backed by transparent
/// huge pages where the system allows, which makes the first touch of each page cheap).
class ByteBuffer {
public:
    ByteBuffer() = default;
    /// Grows the capacity to at least `n` bytes, keeping the contents.
    void reserve(std::size_t n);
    void resize(std::size_t n) {
        reserve(n);
        size_ = n;
    }
    std::uint8_t* data() { return data_.get(); }
    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }
    std::span<const std::uint8_t> span() const { return {data_.get(), size_}; }

private:
    struct Free {
        void operator()(std::uint8_t* p) const;
    };
    std::unique_ptr<std::uint8_t, Free> data_;
    std::size_t size_ = 0, capacity_ = 0;
};

/// Writes a file through `write` atomically: a temporary file in the same directory is written,
/// flushed to disk and renamed over `target`; on any failure it is removed and `target` is
/// untouched.
void write_file_atomically(const std::filesystem::path& target, const Context& ctx,
                           const std::function<void(Sink&)>& write);

/// Maps the pages of a fresh output buffer of `n` bytes in one system call (huge pages where
/// they fit): faulting them in one 4 KiB page at a time costs more than copying into them.
/// Buffers under 1 MiB are left alone.
void prefault_pages(std::uint8_t* p, std::size_t n);

/// A whole regular file, read-only: memory-mapped (read(2) into a buffer where mapping fails,
/// e.g. for a pipe). Errors name the file through `ctx`.
class MappedFile {
public:
    MappedFile(const std::filesystem::path& path, const Context& ctx);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::span<const std::uint8_t> bytes() const { return {data_, size_}; }

private:
    const std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;
    std::vector<std::uint8_t> owned_;
};

/// Everything left in `src`, in one buffer (reserve_hint: the expected size, if known).
ByteBuffer read_all(Source& src, std::uint64_t reserve_hint = 0);

/// Reads the one MessagePack (`json` false) or JSON value that `src` holds, and nothing past it:
/// data after the value (beyond a little whitespace for JSON) is refused without being read.
/// Used on decompressed streams, whose length is not known in advance.
ByteBuffer read_single_value(Source& src, bool json, std::uint64_t reserve_hint);

// ---------------------------------------------------------------------------- tensors
/// The dtype `d` is saved as under `spec` (floats -> float_dtype, ints -> int_dtype; bool and
/// qint8 unchanged).
DType saved_dtype(DType d, const RecorderSpec& spec);
/// `data` in its saved dtype: `data` itself when nothing changes, else the converted copy placed
/// in `scratch`. Ints that do not fit the saved int dtype fail, naming `path`.
const TensorData& saved_form(const TensorData& data, const RecorderSpec& spec,
                             std::string_view path, const Context& ctx,
                             std::optional<TensorData>& scratch);

/// The stable on-disk names and codes of dtypes ("f32" <-> DType::F32).
std::optional<DType> dtype_from_name(std::string_view name);

/// Checks a loaded tensor's shape and byte count (rank <= 8, no overflow); returns numel.
std::size_t checked_num_elements(const Context& ctx, std::string_view path,
                                 std::span<const std::uint64_t> dims);

/// Quantization scheme <-> name ("PerTensorAffine", ...).
std::string_view qscheme_name(const QuantizationScheme& s);
std::optional<QuantizationScheme> qscheme_from_name(std::string_view name, std::size_t axis);

// ---------------------------------------------------------------------------- formats
void encode_bin(const Record& r, const RecorderSpec& spec, const Context& ctx, Sink& out);
Record decode_bin(Source& in, const RecorderSpec& spec);

void encode_mpk(const Record& r, const RecorderSpec& spec, const Context& ctx, Sink& out);
Record decode_mpk(std::span<const std::uint8_t> bytes, const RecorderSpec& spec,
                  const Context& ctx);
/// Whether `prefix` starts like a NamedMpk record.
bool looks_like_mpk(std::span<const std::uint8_t> prefix);

void encode_json(const Record& r, const RecorderSpec& spec, const Context& ctx, Sink& out);
Record decode_json(std::span<const std::uint8_t> bytes, const RecorderSpec& spec,
                   const Context& ctx);
bool looks_like_json(std::span<const std::uint8_t> prefix);

/// The Bin magic bytes.
inline constexpr std::uint8_t bin_magic[8] = {0x89, 'B', 'U', 'R', 'N', 0x0D, 0x0A, 0x1A};

}  // namespace burn::record::detail

// SPDX-License-Identifier: MIT OR Apache-2.0
// Sinks and sources (memory, file descriptor, gzip), the header check shared by the formats,
// dtype names and precision conversion.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <sstream>
#include <utility>

#include "record_io.hpp"

#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it, which is harmless
#endif

namespace burn::record::detail {

// ---------------------------------------------------------------------------- names
namespace {

constexpr DType all_dtypes[] = {DType::F64, DType::F32,  DType::F16,  DType::BF16,
                                DType::I64, DType::I32,  DType::I16,  DType::I8,
                                DType::U8,  DType::Bool, DType::QInt8};

std::string_view settings_name(std::string_view precision) {
    if (precision == "full") return "FullPrecisionSettings";
    if (precision == "half") return "HalfPrecisionSettings";
    if (precision == "double") return "DoublePrecisionSettings";
    return {};
}

std::string precision_text(std::string_view name, std::optional<DType> f, std::optional<DType> i) {
    std::string s(name);
    s += " precision";
    if (f && i) {
        s += " (";
        s += dtype_name(*f);
        s += '/';
        s += dtype_name(*i);
        s += ')';
    }
    return s;
}

std::string hex_bytes(std::span<const std::uint8_t> p) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < p.size() && i < 8; ++i) {
        if (i) s += ' ';
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}

}  // namespace

std::optional<DType> dtype_from_name(std::string_view name) {
    for (DType d : all_dtypes)
        if (dtype_name(d) == name) return d;
    return std::nullopt;
}

std::string_view format_name(RecordFormat f) {
    switch (f) {
        case RecordFormat::NamedMpk: return "NamedMpk";
        case RecordFormat::Bin: return "Bin";
        case RecordFormat::Json: return "Json";
    }
    return "?";
}

std::string describe_prefix(std::span<const std::uint8_t> p, bool is_file) {
    if (p.empty()) return is_file ? "an empty file" : "no bytes";
    if (p.size() >= 2 && p[0] == 0x1f && p[1] == 0x8b) return "gzip-compressed data";
    if (p.size() >= sizeof(bin_magic) && std::equal(bin_magic, bin_magic + 8, p.begin())) {
        // Bin header: magic, u8 n + format, u16 version, u8 n + precision.
        std::string s = "a Bin record";
        std::size_t off = 8;
        if (off < p.size() && off + 1 + p[off] + 2 < p.size()) {
            off += 1 + p[off] + 2;
            const std::size_t n = p[off];
            if (off + 1 + n <= p.size()) {
                s += " of ";
                s.append(reinterpret_cast<const char*>(p.data() + off + 1), n);
                s += " precision";
            }
        }
        return s;
    }
    if (looks_like_mpk(p)) return "a NamedMpk record";
    if (looks_like_json(p)) return "a Json record";
    std::string s = "unknown data (first bytes ";
    s += hex_bytes(p);
    s += ")";
    return s;
}

void check_header(const Context& ctx, const RecorderSpec& spec, std::string_view format,
                  std::uint64_t version, std::string_view precision) {
    const std::string expected = std::string("a ") + std::string(format_name(spec.format)) +
                                 " record of " +
                                 precision_text(spec.precision, spec.float_dtype, spec.int_dtype);
    if (format != format_name(spec.format))
        ctx.fail("expected ", expected, ", found a ", format, " record");
    if (version != format_version)
        ctx.fail("expected ", expected, " of format version ", format_version,
                 ", found format version ", version,
                 version > format_version ? " (written by a newer burn-cpp)" : "");
    if (precision != spec.precision) {
        std::optional<DType> ff, fi;
        if (precision == "full") ff = DType::F32, fi = DType::I32;
        if (precision == "half") ff = DType::F16, fi = DType::I16;
        if (precision == "double") ff = DType::F64, fi = DType::I64;
        std::ostringstream hint;
        if (auto s = settings_name(precision); !s.empty())
            hint << "; load it with " << spec.recorder << "<" << s << ">";
        ctx.fail("expected ", expected, ", found ", precision_text(precision, ff, fi), hint.str());
    }
}

// ---------------------------------------------------------------------------- precision
DType saved_dtype(DType d, const RecorderSpec& spec) {
    if (d == DType::Bool || d == DType::QInt8) return d;
    if (is_float(d)) return spec.float_dtype;
    return spec.int_dtype;
}

const TensorData& saved_form(const TensorData& data, const RecorderSpec& spec,
                             std::string_view path, const Context& ctx,
                             std::optional<TensorData>& scratch) {
    const DType target = saved_dtype(data.dtype, spec);
    if (target == data.dtype) return data;
    if (is_int(data.dtype) && dtype_size(target) <= dtype_size(data.dtype)) {
        // Narrowing: every value must fit (a silent wrap would corrupt the record).
        std::int64_t lo = 0, hi = 0;
        visit_dtype(target, [&](auto t) {
            using T = decltype(t);
            if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                lo = std::numeric_limits<T>::min();
                hi = std::numeric_limits<T>::max();
            }
        });
        visit_dtype(data.dtype, [&](auto s) {
            using S = decltype(s);
            if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
                const auto* v = reinterpret_cast<const S*>(data.bytes().data());
                for (std::size_t i = 0; i < data.num_elements(); ++i) {
                    const auto x = static_cast<std::int64_t>(v[i]);
                    if (x < lo || x > hi)
                        ctx.fail(path.empty() ? "record" : path, ": value ", x, " (index ", i,
                                 ") does not fit ", dtype_name(target), ", the int type of ",
                                 spec.precision, " precision");
                }
            }
        });
    }
    scratch = data.convert(target);
    return *scratch;
}

std::size_t checked_num_elements(const Context& ctx, std::string_view path,
                                 std::span<const std::uint64_t> dims) {
    if (dims.size() > Shape::max_rank)
        ctx.fail(path, ": tensor of rank ", dims.size(), " (at most ", Shape::max_rank,
                 " is supported)");
    std::uint64_t n = 1;
    for (std::uint64_t d : dims) {
        if (d != 0 && n > std::numeric_limits<std::uint64_t>::max() / 8 / d)
            ctx.fail(path, ": tensor shape is too large");
        n *= d;
    }
    if (n > std::numeric_limits<std::size_t>::max() / 8)
        ctx.fail(path, ": tensor shape is too large");
    return static_cast<std::size_t>(n);
}

std::string_view qscheme_name(const QuantizationScheme& s) {
    if (s.is_per_channel()) return s.is_affine() ? "PerChannelAffine" : "PerChannelSymmetric";
    return s.is_affine() ? "PerTensorAffine" : "PerTensorSymmetric";
}

std::optional<QuantizationScheme> qscheme_from_name(std::string_view name, std::size_t axis) {
    const auto t = QuantizationType::QInt8;
    if (name == "PerTensorAffine") return QuantizationScheme::PerTensorAffine(t);
    if (name == "PerTensorSymmetric") return QuantizationScheme::PerTensorSymmetric(t);
    if (name == "PerChannelAffine") return QuantizationScheme::PerChannelAffine(t, axis);
    if (name == "PerChannelSymmetric") return QuantizationScheme::PerChannelSymmetric(t, axis);
    return std::nullopt;
}

// ---------------------------------------------------------------------------- sinks
void VectorSink::write(const void* data, std::size_t n) {
    if (n == 0) return;
    const auto* p = static_cast<const std::uint8_t*>(data);
    out_.insert(out_.end(), p, p + n);
}

namespace {
constexpr std::size_t fd_buffer_size = std::size_t(1) << 20;
constexpr std::size_t max_io_chunk = std::size_t(1) << 30;
}  // namespace

FdSink::FdSink(int fd, const Context& ctx) : fd_(fd), ctx_(ctx), buf_(fd_buffer_size) {}

void FdSink::write(const void* data, std::size_t n) {
    if (n == 0) return;  // (data may be null)
    const auto* p = static_cast<const std::uint8_t*>(data);
    if (used_ + n <= buf_.size()) {
        std::memcpy(buf_.data() + used_, p, n);
        used_ += n;
        return;
    }
    flush();
    if (n >= buf_.size() / 2) {
        write_fd(p, n);
    } else {
        std::memcpy(buf_.data(), p, n);
        used_ = n;
    }
}

void FdSink::flush() {
    write_fd(buf_.data(), used_);
    used_ = 0;
}

void FdSink::write_fd(const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
        const ssize_t k = ::write(fd_, p, std::min(n, max_io_chunk));
        if (k < 0) {
            if (errno == EINTR) continue;
            ctx_.fail("write failed: ", std::strerror(errno));
        }
        p += k;
        n -= static_cast<std::size_t>(k);
    }
}

struct GzSink::State {
    z_stream z{};
};

GzSink::GzSink(Sink& out, int level, const Context& ctx)
    : out_(out), ctx_(ctx), z_(std::make_unique<State>()), obuf_(std::size_t(1) << 18) {
    // windowBits 15 + 16: a gzip wrapper (header and CRC-32 trailer).
    if (deflateInit2(&z_->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        ctx_.fail("zlib: deflateInit2 failed");
}

GzSink::~GzSink() { deflateEnd(&z_->z); }

void GzSink::write(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (n > 0) {
        const std::size_t chunk = std::min(n, max_io_chunk);
        z_->z.next_in = const_cast<Bytef*>(p);
        z_->z.avail_in = static_cast<uInt>(chunk);
        pump(Z_NO_FLUSH);
        p += chunk;
        n -= chunk;
    }
}

void GzSink::finish() { pump(Z_FINISH); }

void GzSink::pump(int flush) {
    z_stream& z = z_->z;
    for (;;) {
        z.next_out = obuf_.data();
        z.avail_out = static_cast<uInt>(obuf_.size());
        const int rc = deflate(&z, flush);
        if (rc == Z_STREAM_ERROR) ctx_.fail("zlib: deflate failed");
        const std::size_t have = obuf_.size() - z.avail_out;
        if (have) out_.write(obuf_.data(), have);
        if (flush == Z_FINISH) {
            if (rc == Z_STREAM_END) return;
        } else if (z.avail_in == 0 && z.avail_out != 0) {
            return;
        }
    }
}

// ---------------------------------------------------------------------------- sources
namespace {
constexpr std::size_t lookahead_size = std::size_t(1) << 16;
}  // namespace

std::size_t Source::read_some(void* dst, std::size_t n) {
    auto* d = static_cast<std::uint8_t*>(dst);
    std::size_t total = std::min(n, buffered());
    if (total) std::memcpy(d, look_.data() + pos_, total);
    pos_ += total;
    while (total < n) {
        const std::size_t want = n - total;
        if (want >= lookahead_size) {  // large: straight into the destination
            const std::size_t k = produce(d + total, want);
            if (k == 0) break;
            total += k;
            continue;
        }
        if (look_.size() < lookahead_size) look_.resize(lookahead_size);
        pos_ = 0;
        end_ = produce(look_.data(), look_.size());
        if (end_ == 0) break;
        const std::size_t k = std::min(want, end_);
        std::memcpy(d + total, look_.data(), k);
        pos_ = k;
        total += k;
    }
    consumed_ += total;
    return total;
}

void Source::read(void* dst, std::size_t n) {
    const std::size_t got = read_some(dst, n);
    if (got < n)
        ctx_.fail("the data ends early (truncated): needed ", n, " bytes at offset ",
                  consumed_ - got, ", found ", got);
}

std::span<const std::uint8_t> Source::peek(std::size_t n) {
    if (buffered() < n) {
        // Move what is left to the front and fill up to n.
        if (pos_ > 0) {
            std::memmove(look_.data(), look_.data() + pos_, buffered());
            end_ -= pos_;
            pos_ = 0;
        }
        if (look_.size() < std::max(n, lookahead_size)) look_.resize(std::max(n, lookahead_size));
        while (end_ < n) {
            const std::size_t k = produce(look_.data() + end_, look_.size() - end_);
            if (k == 0) break;
            end_ += k;
        }
    }
    return {look_.data() + pos_, std::min(n, buffered())};
}

std::size_t SpanSource::produce(void* dst, std::size_t n) {
    const std::size_t k = std::min(n, data_.size() - off_);
    if (k) std::memcpy(dst, data_.data() + off_, k);
    off_ += k;
    return k;
}

FileSource::FileSource(const std::filesystem::path& path, const Context& ctx) : Source(ctx) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) ctx.fail("cannot open the file: ", std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int e = errno;
        ::close(fd_);
        fd_ = -1;
        ctx.fail("cannot stat the file: ", std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd_);
        fd_ = -1;
        ctx.fail("not a regular file");
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
}

FileSource::~FileSource() {
    if (fd_ >= 0) ::close(fd_);
}

std::size_t FileSource::produce(void* dst, std::size_t n) {
    auto* d = static_cast<std::uint8_t*>(dst);
    std::size_t total = 0;
    n = static_cast<std::size_t>(std::min<std::uint64_t>(n, size_ - off_));
    while (total < n) {
        const ssize_t k = ::read(fd_, d + total, std::min(n - total, max_io_chunk));
        if (k < 0) {
            if (errno == EINTR) continue;
            context().fail("read failed: ", std::strerror(errno));
        }
        if (k == 0) break;  // the file shrank while we read it
        total += static_cast<std::size_t>(k);
    }
    off_ += total;
    return total;
}

void prefault_pages(std::uint8_t* p, std::size_t n) {
#ifdef __linux__
    if (n < (std::size_t(1) << 20)) return;
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t hlo = (a + huge - 1) & ~(huge - 1), hhi = (a + n) & ~(huge - 1);
    if (hhi > hlo) (void)::madvise(reinterpret_cast<void*>(hlo), hhi - hlo, MADV_HUGEPAGE);
    const std::uintptr_t lo = (a + page - 1) & ~(page - 1), hi = (a + n) & ~(page - 1);
    if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p, (void)n;
#endif
}

MappedFile::MappedFile(const std::filesystem::path& path, const Context& ctx) {
    FileSource src(path, ctx);  // opens and checks a regular file
    const std::uint64_t size = src.size();
    if (size > std::numeric_limits<std::size_t>::max()) ctx.fail("the file is too large");
    size_ = static_cast<std::size_t>(size);
    if (size_ == 0) return;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        if (p != MAP_FAILED) {
            (void)::madvise(p, size_, MADV_WILLNEED);
            data_ = static_cast<const std::uint8_t*>(p);
            mapped_ = true;
            return;
        }
    }
    owned_.resize(size_);
    src.read(owned_.data(), size_);
    data_ = owned_.data();
}

MappedFile::~MappedFile() {
    if (mapped_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
}

struct GzSource::State {
    z_stream z{};
};

GzSource::GzSource(Source& in)
    : Source(in.context()),
      in_(in),
      z_(std::make_unique<State>()),
      ibuf_(std::size_t(1) << 18),
      max_produced_(read_limits().max_decompressed_bytes) {
    // windowBits 15 + 16: gzip only (a zlib or raw deflate stream is an error).
    if (inflateInit2(&z_->z, 15 + 16) != Z_OK) context().fail("zlib: inflateInit2 failed");
}

GzSource::~GzSource() { inflateEnd(&z_->z); }

std::uint64_t GzSource::max_remaining() const {
    // Deflate expands at most ~1032:1; the slack covers what inflate holds back.
    const std::uint64_t compressed = in_.max_remaining() + z_->z.avail_in;
    const std::uint64_t cap = std::numeric_limits<std::uint64_t>::max() / 2048;
    return std::min(compressed, cap) * 1032 + (std::uint64_t(1) << 20) + buffered();
}

std::optional<std::uint64_t> GzSource::trailer_size(std::span<const std::uint8_t> gz) {
    if (gz.size() < 18) return std::nullopt;
    const auto* t = gz.data() + gz.size() - 4;
    return std::uint64_t(t[0]) | std::uint64_t(t[1]) << 8 | std::uint64_t(t[2]) << 16 |
           std::uint64_t(t[3]) << 24;
}

std::size_t GzSource::produce(void* dst, std::size_t n) {
    if (done_ || n == 0) return 0;
    z_stream& z = z_->z;
    n = std::min(n, max_io_chunk);
    z.next_out = static_cast<Bytef*>(dst);
    z.avail_out = static_cast<uInt>(n);
    bool input_ended = false;
    for (;;) {
        if (z.avail_in == 0) {
            const std::size_t k = in_.read_some(ibuf_.data(), ibuf_.size());
            z.next_in = ibuf_.data();
            z.avail_in = static_cast<uInt>(k);
            input_ended = k == 0;
        }
        const int rc = inflate(&z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            done_ = true;
            if (z.avail_in != 0 || !in_.at_end())
                context().fail(
                    "unexpected data after the end of the gzip stream (at compressed "
                    "offset ",
                    in_.position() - z.avail_in, ")");
            break;
        }
        if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT)
            context().fail("corrupt gzip stream (zlib: ", z.msg ? z.msg : "invalid data",
                           ") near compressed offset ", in_.position() - z.avail_in);
        if (rc == Z_MEM_ERROR) context().fail("zlib: out of memory");
        // Z_BUF_ERROR: no progress was possible, which with an empty input means its end.
        if (rc == Z_BUF_ERROR && input_ended)
            context().fail("the gzip stream ends early (truncated) after ", in_.position(),
                           " compressed bytes");
        if (rc != Z_OK && rc != Z_BUF_ERROR) context().fail("zlib: inflate failed (", rc, ")");
        if (z.avail_out == 0) break;
    }
    produced_ += n - z.avail_out;
    if (produced_ > max_produced_)
        context().fail("the gzip stream inflates to more than the limit of ", max_produced_,
                       " bytes (at compressed offset ", in_.position() - z.avail_in,
                       "); burn::record::set_read_limits raises max_decompressed_bytes");
    return n - z.avail_out;
}

void ByteBuffer::Free::operator()(std::uint8_t* p) const { std::free(p); }

void ByteBuffer::reserve(std::size_t n) {
    if (n <= capacity_) return;
    constexpr std::size_t huge = std::size_t(2) << 20;
    std::uint8_t* p = nullptr;
    std::size_t cap = n;
    if (n >= huge) {
        cap = (n + huge - 1) / huge * huge;
        p = static_cast<std::uint8_t*>(std::aligned_alloc(huge, cap));
#ifdef MADV_HUGEPAGE
        if (p) (void)::madvise(p, cap, MADV_HUGEPAGE);
#endif
    } else {
        p = static_cast<std::uint8_t*>(std::malloc(std::max<std::size_t>(cap, 1)));
    }
    if (!p) throw std::bad_alloc();
    if (size_) std::memcpy(p, data_.get(), size_);
    data_.reset(p);
    capacity_ = cap;
}

ByteBuffer read_all(Source& src, std::uint64_t reserve_hint) {
    ByteBuffer out;
    if (auto r = src.remaining()) {
        out.resize(static_cast<std::size_t>(*r));
        src.read(out.data(), out.size());
        return out;
    }
    const std::uint64_t cap = src.max_remaining();
    out.reserve(static_cast<std::size_t>(std::min(reserve_hint, cap)));
    constexpr std::size_t chunk = std::size_t(1) << 22;
    for (;;) {
        const std::size_t old = out.size();
        if (out.capacity() - old < chunk) out.reserve(std::max(out.capacity() * 2, old + chunk));
        const std::size_t k = src.read_some(out.data() + old, chunk);
        out.resize(old + k);
        if (k < chunk) break;
    }
    return out;
}

namespace {

std::mutex limits_mutex;
ReadLimits limits_in_force;

/// Finds where the one MessagePack value at the start of a growing buffer ends, without
/// decoding it: headers give every length and count.
class MpkEnd {
public:
    explicit MpkEnd(const Context& ctx) : ctx_(ctx) {}
    /// The value's end offset once every header is seen (payloads may still be missing).
    std::optional<std::uint64_t> scan(std::span<const std::uint8_t> b) {
        while (!left_.empty()) {
            if (pos_ >= b.size()) return std::nullopt;
            const std::uint8_t t = b[pos_];
            std::uint64_t head = 1, payload = 0, children = 0;
            unsigned len_bytes = 0;  // a big-endian length after the type byte
            bool counts_pairs = false, has_type = false, is_container = false;
            if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
            } else if (t <= 0x8f) {
                children = 2 * (t & 0x0f), is_container = true;
            } else if (t <= 0x9f) {
                children = t & 0x0f, is_container = true;
            } else if (t <= 0xbf) {
                payload = t & 0x1f;
            } else {
                switch (t) {
                    case 0xc4:
                    case 0xd9: len_bytes = 1; break;
                    case 0xc5:
                    case 0xda: len_bytes = 2; break;
                    case 0xc6:
                    case 0xdb: len_bytes = 4; break;
                    case 0xc7: len_bytes = 1, has_type = true; break;
                    case 0xc8: len_bytes = 2, has_type = true; break;
                    case 0xc9: len_bytes = 4, has_type = true; break;
                    case 0xca:
                    case 0xce:
                    case 0xd2: head = 5; break;
                    case 0xcb:
                    case 0xcf:
                    case 0xd3: head = 9; break;
                    case 0xcc:
                    case 0xd0: head = 2; break;
                    case 0xcd:
                    case 0xd1: head = 3; break;
                    case 0xd4: head = 3; break;
                    case 0xd5: head = 4; break;
                    case 0xd6: head = 6; break;
                    case 0xd7: head = 10; break;
                    case 0xd8: head = 18; break;
                    case 0xdc: len_bytes = 2, is_container = true; break;
                    case 0xdd: len_bytes = 4, is_container = true; break;
                    case 0xde: len_bytes = 2, is_container = counts_pairs = true; break;
                    case 0xdf: len_bytes = 4, is_container = counts_pairs = true; break;
                    default:
                        ctx_.fail("corrupt MessagePack data: byte ", unsigned(t), " at offset ",
                                  pos_, " starts no value");
                }
            }
            if (len_bytes) {
                head = 1 + len_bytes + (has_type ? 1 : 0);
                if (pos_ + head > b.size()) return std::nullopt;
                std::uint64_t n = 0;
                for (unsigned i = 0; i < len_bytes; ++i) n = n << 8 | b[pos_ + 1 + i];
                if (is_container) children = counts_pairs ? 2 * n : n;
                else payload = n;
            }
            pos_ += head + payload;
            --left_.back();
            if (is_container && children > 0) {
                if (left_.size() > max_record_depth + 8)
                    ctx_.fail("corrupt record: MessagePack data nests deeper than ",
                              max_record_depth, " levels (at offset ", pos_ - head, ")");
                left_.push_back(children);
            }
            while (!left_.empty() && left_.back() == 0) left_.pop_back();
        }
        return pos_;
    }

private:
    const Context& ctx_;
    std::vector<std::uint64_t> left_{1};  // values still to come at each open level
    std::uint64_t pos_ = 0;
};

/// Finds where the JSON object or array at the start of a growing buffer ends: brackets are
/// counted outside strings (the parser validates the rest).
class JsonEnd {
public:
    std::optional<std::uint64_t> scan(std::span<const std::uint8_t> b) {
        for (; pos_ < b.size(); ++pos_) {
            const std::uint8_t c = b[pos_];
            if (in_string_) {
                if (escaped_) escaped_ = false;
                else if (c == '\\') escaped_ = true;
                else if (c == '"') in_string_ = false;
                continue;
            }
            if (c == '"') {
                in_string_ = true;
            } else if (c == '{' || c == '[') {
                ++depth_;
            } else if (c == '}' || c == ']') {
                if (depth_ <= 1) return ++pos_;
                --depth_;
            } else if (depth_ == 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return pos_;  // not an object or array: the parser reports it
            }
        }
        return std::nullopt;
    }

private:
    std::uint64_t pos_ = 0;
    std::uint64_t depth_ = 0;
    bool in_string_ = false, escaped_ = false;
};

bool is_json_space(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

}  // namespace burn::record::detail

namespace burn::record {

ReadLimits read_limits() {
    std::lock_guard lock(detail::limits_mutex);
    return detail::limits_in_force;
}

ReadLimits set_read_limits(const ReadLimits& limits) {
    std::lock_guard lock(detail::limits_mutex);
    return std::exchange(detail::limits_in_force, limits);
}

}  // namespace burn::record

namespace burn::record::detail {

ByteBuffer read_single_value(Source& src, bool json, std::uint64_t reserve_hint) {
    const Context& ctx = src.context();
    constexpr std::size_t max_chunk = std::size_t(1) << 22;
    ByteBuffer out;
    out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(reserve_hint, max_chunk * 16)));
    MpkEnd mpk(ctx);
    JsonEnd text;
    std::optional<std::uint64_t> end;
    std::size_t chunk = std::size_t(1) << 16;
    for (;;) {
        if (!end) end = json ? text.scan(out.span()) : mpk.scan(out.span());
        if (end && out.size() >= *end) break;
        // Read on, but not past the end once it is known.
        std::uint64_t want = chunk;
        if (end) want = std::min<std::uint64_t>(want, *end - out.size());
        const std::size_t old = out.size();
        if (out.capacity() - old < want)
            out.reserve(std::max<std::size_t>(out.capacity() * 2, old + want));
        const std::size_t k = src.read_some(out.data() + old, static_cast<std::size_t>(want));
        out.resize(old + k);
        if (k == 0) return out;  // the data ends early: the decoder says what is missing
        chunk = std::min(chunk * 2, max_chunk);
    }
    // After the value: JSON may have a little whitespace; anything else is refused at once.
    const std::uint64_t allowed = json ? read_limits().max_trailing_whitespace : 0;
    std::uint64_t seen = out.size() - *end;
    auto check_trailing = [&](std::span<const std::uint8_t> bytes, std::uint64_t at) {
        for (std::size_t i = 0; i < bytes.size(); ++i)
            if (!json || !is_json_space(bytes[i]))
                ctx.fail("unexpected data after the record (at decompressed offset ", at + i, ")");
    };
    check_trailing(out.span().subspan(static_cast<std::size_t>(*end)), *end);
    std::uint8_t tail[4096];
    for (;;) {
        if (seen > allowed)
            ctx.fail("more than ", allowed,
                     " bytes of whitespace after the record (at "
                     "decompressed offset ",
                     *end,
                     "); burn::record::set_read_limits raises "
                     "max_trailing_whitespace");
        const std::size_t k = src.read_some(tail, sizeof tail);
        if (k == 0) break;
        check_trailing({tail, k}, *end + seen);
        seen += k;
    }
    out.resize(static_cast<std::size_t>(*end));
    return out;
}

}  // namespace burn::record::detail

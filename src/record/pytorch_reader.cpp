// SPDX-License-Identifier: MIT OR Apache-2.0
// read_pytorch_file: the tensors of a torch.save file, without Python. A minimal zip reader
// (stored and deflated entries, zip64) or the legacy back-to-back pickle layout feeds a pickle
// machine that evaluates only the opcodes and globals a state dict needs; tensors are rebuilt
// from their storages as row-major copies, straight from the mapped file where they are
// contiguous.
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "burn/record/state_dict.hpp"
#include "record_io.hpp"

namespace burn::record {

static_assert(std::endian::native == std::endian::little,
              "the reader copies little-endian storage bytes as they are in the file");

namespace {

using Bytes = std::span<const std::uint8_t>;

/// Deepest nesting of dicts and lists flattened into keys (a cycle hits it too).
constexpr std::size_t max_depth = detail::max_record_depth;
/// Pickle machine bounds: values on the stack, open MARKs, memo entries.
constexpr std::size_t max_stack = std::size_t(1) << 22;
constexpr std::size_t max_marks = std::size_t(1) << 16;
constexpr std::size_t max_memo = std::size_t(1) << 25;
/// Longest flattened key.
constexpr std::size_t max_key_length = std::size_t(1) << 16;
/// Deflate expands at most 1032:1; a larger declared size is corrupt (or a bomb).
constexpr std::uint64_t max_inflate_ratio = 1032;

/// Who failed: every message starts "read_pytorch_file: <name>: ".
class Ctx {
public:
    explicit Ctx(std::string name) : name_(std::move(name)) {}
    template <class... Args>
    [[noreturn]] void fail(const Args&... args) const {
        ::burn::detail::fail("read_pytorch_file: ", name_, ": ", args...);
    }

private:
    std::string name_;
};

std::uint16_t le16(const std::uint8_t* p) { return std::uint16_t(p[0] | p[1] << 8); }
std::uint32_t le32(const std::uint8_t* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
std::uint64_t le64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

bool mul_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    return __builtin_mul_overflow(a, b, &out);
}
bool add_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    return __builtin_add_overflow(a, b, &out);
}

/// A name for messages: printable ASCII as is, anything else escaped, long ones shortened.
std::string printable(std::string_view s, std::size_t max = 80) {
    std::string out;
    for (std::size_t i = 0; i < s.size() && i < max; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            static constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    if (s.size() > max) out += "...";
    return out;
}

// ---------------------------------------------------------------------------- zip
struct ZipEntry {
    std::string_view name;
    std::uint16_t method = 0;
    std::uint32_t crc = 0;
    std::uint64_t csize = 0, usize = 0, local_offset = 0;
};

/// The central directory of a zip archive held in memory. Stored entries are used in place;
/// deflated ones are inflated once, on first use.
class ZipArchive {
public:
    ZipArchive(Bytes file, const Ctx& ctx) : file_(file), ctx_(ctx) { read_directory(); }

    const std::vector<ZipEntry>& entries() const { return entries_; }
    const ZipEntry* find(std::string_view name) const {
        auto it = index_.find(name);
        return it == index_.end() ? nullptr : &entries_[it->second];
    }
    /// The uncompressed bytes of an entry (valid while the archive lives).
    Bytes data(const ZipEntry& e);

private:
    void read_directory();
    [[noreturn]] void corrupt(const char* what) const { ctx_.fail("corrupt zip archive: ", what); }

    Bytes file_;
    const Ctx& ctx_;
    std::vector<ZipEntry> entries_;
    std::unordered_map<std::string_view, std::size_t> index_;
    std::unordered_map<const ZipEntry*, detail::ByteBuffer> inflated_;
};

void ZipArchive::read_directory() {
    const std::uint8_t* f = file_.data();
    const std::uint64_t size = file_.size();
    if (size < 22) corrupt("shorter than an end-of-central-directory record");
    // The end record (22 bytes + a comment of at most 65535) is the last one whose comment
    // fits the file.
    std::optional<std::uint64_t> eocd;
    const std::uint64_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
    for (std::uint64_t p = size - 22 + 1; p-- > lowest;) {
        if (le32(f + p) == 0x06054b50 && p + 22 + le16(f + p + 20) <= size) {
            eocd = p;
            break;
        }
    }
    if (!eocd) corrupt("no end-of-central-directory record in the last 65557 bytes");
    const std::uint8_t* e = f + *eocd;
    if (le16(e + 4) != 0 || le16(e + 6) != 0)
        ctx_.fail("multi-volume zip archives are not supported");
    std::uint64_t count = le16(e + 10), cd_size = le32(e + 12), cd_offset = le32(e + 16);
    std::uint64_t cd_end_limit = *eocd;
    // zip64: a locator right before the end record points at the zip64 end record.
    if (*eocd >= 20 && le32(e - 20) == 0x07064b50) {
        const std::uint64_t z64 = le64(e - 20 + 8);
        if (z64 > *eocd - 20 || *eocd - 20 - z64 < 56) corrupt("zip64 end record out of range");
        const std::uint8_t* z = f + z64;
        if (le32(z) != 0x06064b50) corrupt("bad zip64 end record signature");
        if (le32(z + 16) != 0 || le32(z + 20) != 0)
            ctx_.fail("multi-volume zip archives are not supported");
        count = le64(z + 32);
        cd_size = le64(z + 40);
        cd_offset = le64(z + 48);
        cd_end_limit = z64;
    }
    if (cd_offset > cd_end_limit || cd_size > cd_end_limit - cd_offset)
        corrupt("central directory out of range");
    if (count > cd_size / 46) corrupt("more entries than the central directory holds");
    entries_.reserve(static_cast<std::size_t>(count));
    index_.reserve(static_cast<std::size_t>(count));
    std::uint64_t p = cd_offset;
    const std::uint64_t end = cd_offset + cd_size;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (end - p < 46 || le32(f + p) != 0x02014b50) corrupt("bad central directory entry");
        const std::uint8_t* c = f + p;
        ZipEntry z;
        const std::uint16_t flags = le16(c + 8);
        z.method = le16(c + 10);
        z.crc = le32(c + 16);
        z.csize = le32(c + 20);
        z.usize = le32(c + 24);
        const std::uint64_t n = le16(c + 28), x = le16(c + 30), k = le16(c + 32);
        const std::uint16_t disk = le16(c + 34);
        z.local_offset = le32(c + 42);
        if (end - p - 46 < n + x + k) corrupt("central directory entry overruns the directory");
        z.name = {reinterpret_cast<const char*>(c + 46), static_cast<std::size_t>(n)};
        // zip64 extra field: the 8-byte values of the fields saturated above, in this order.
        const bool need_u = z.usize == 0xffffffffu, need_c = z.csize == 0xffffffffu;
        const bool need_o = z.local_offset == 0xffffffffu;
        if (need_u || need_c || need_o) {
            bool found = false;
            const std::uint8_t* xp = c + 46 + n;
            for (std::uint64_t q = 0; q + 4 <= x;) {
                const std::uint16_t id = le16(xp + q), len = le16(xp + q + 2);
                if (q + 4 + len > x) corrupt("extra field overruns its entry");
                if (id == 0x0001) {
                    const std::uint8_t* v = xp + q + 4;
                    const std::uint64_t want = 8 * (need_u + need_c + need_o);
                    if (len < want) corrupt("zip64 extra field too short");
                    if (need_u) z.usize = le64(v), v += 8;
                    if (need_c) z.csize = le64(v), v += 8;
                    if (need_o) z.local_offset = le64(v);
                    found = true;
                    break;
                }
                q += 4 + len;
            }
            if (!found) corrupt("an entry needs a zip64 extra field it lacks");
        }
        if (disk != 0 && disk != 0xffff) ctx_.fail("multi-volume zip archives are not supported");
        if (flags & 1)
            ctx_.fail("zip entry '", printable(z.name), "' is encrypted, which is not supported");
        if (!index_.emplace(z.name, entries_.size()).second)
            ctx_.fail("corrupt zip archive: duplicate entry '", printable(z.name), "'");
        entries_.push_back(z);
        p += 46 + n + x + k;
    }
}

Bytes ZipArchive::data(const ZipEntry& z) {
    const std::uint8_t* f = file_.data();
    const std::uint64_t size = file_.size();
    const std::string name = printable(z.name);
    if (z.local_offset > size || size - z.local_offset < 30 ||
        le32(f + z.local_offset) != 0x04034b50)
        ctx_.fail("corrupt zip archive: no local header for entry '", name, "' at byte ",
                  z.local_offset);
    const std::uint8_t* h = f + z.local_offset;
    const std::uint64_t n = le16(h + 26), x = le16(h + 28);
    const std::uint64_t start = z.local_offset + 30 + n + x;
    if (start > size || z.csize > size - start)
        ctx_.fail("corrupt zip archive: entry '", name, "' (", z.csize, " bytes at byte ", start,
                  ") overruns the file (", size, " bytes)");
    if (std::string_view(reinterpret_cast<const char*>(h + 30), n) != z.name)
        ctx_.fail("corrupt zip archive: the local header of entry '", name,
                  "' names another entry");
    const Bytes comp = file_.subspan(start, z.csize);
    if (z.method == 0) {
        if (z.csize != z.usize)
            ctx_.fail("corrupt zip archive: stored entry '", name, "' has compressed size ",
                      z.csize, " but uncompressed size ", z.usize);
        return comp;
    }
    if (z.method != 8)
        ctx_.fail("zip entry '", name, "' uses compression method ", z.method,
                  "; only stored (0) and deflate (8) are supported");
    if (auto it = inflated_.find(&z); it != inflated_.end()) return it->second.span();
    if (z.usize / max_inflate_ratio > z.csize + 1)
        ctx_.fail("corrupt zip archive: entry '", name, "' declares ", z.usize,
                  " bytes uncompressed from ", z.csize, " compressed, more than deflate produces");
    if (z.usize > std::numeric_limits<std::size_t>::max() / 2)
        ctx_.fail("zip entry '", name, "' is too large");
    detail::ByteBuffer buf;
    buf.resize(static_cast<std::size_t>(z.usize));
    z_stream s{};
    if (inflateInit2(&s, -MAX_WBITS) != Z_OK) ctx_.fail("zlib: inflateInit2 failed");
    std::uint8_t dummy = 0;
    const std::uint8_t* in = comp.data();
    std::uint8_t* out = z.usize ? buf.data() : &dummy;
    std::uint64_t in_left = comp.size(), out_left = z.usize;
    constexpr std::uint64_t chunk = std::uint64_t(1) << 30;  // z_stream counts are 32-bit
    int ret = Z_OK;
    std::string error;
    for (;;) {
        if (s.avail_in == 0 && in_left) {
            const auto k = std::min(in_left, chunk);
            s.next_in = const_cast<Bytef*>(in);
            s.avail_in = static_cast<uInt>(k);
            in += k;
            in_left -= k;
        }
        if (s.avail_out == 0 && out_left) {
            const auto k = std::min(out_left, chunk);
            s.next_out = out;
            s.avail_out = static_cast<uInt>(k);
            out += k;
            out_left -= k;
        }
        if (s.next_out == nullptr) s.next_out = &dummy;  // usize 0: nowhere to write
        ret = inflate(&s, Z_NO_FLUSH);
        if (ret == Z_STREAM_END) break;
        if (ret == Z_OK) continue;
        if (ret == Z_BUF_ERROR && s.avail_out == 0 && out_left == 0) {
            error = "inflates to more bytes than its declared size";
        } else if (ret == Z_BUF_ERROR && s.avail_in == 0 && in_left == 0) {
            error = "is a truncated deflate stream";
        } else {
            error = "is not a valid deflate stream";
            if (s.msg) error += std::string(" (") + s.msg + ")";
        }
        break;
    }
    const std::uint64_t produced = z.usize - out_left - s.avail_out;
    inflateEnd(&s);
    if (!error.empty()) ctx_.fail("corrupt zip archive: entry '", name, "' ", error);
    if (produced != z.usize)
        ctx_.fail("corrupt zip archive: entry '", name, "' inflates to ", produced,
                  " bytes, its header says ", z.usize);
    uLong crc = crc32_z(0, nullptr, 0);
    crc = crc32_z(crc, buf.data(), static_cast<z_size_t>(z.usize));
    if (crc != z.crc) ctx_.fail("corrupt zip archive: entry '", name, "' fails its CRC check");
    return inflated_.emplace(&z, std::move(buf)).first->second.span();
}

// ---------------------------------------------------------------------------- pickle values
enum class Kind : std::uint8_t {
    None,
    Bool,
    Int,
    BigInt,
    Float,
    Str,
    Bytes,
    Tuple,
    List,
    Dict,
    Set,
    Global,
    Storage,
    Tensor,
    Device
};

/// The globals a state dict may name.
enum class Fn : std::uint8_t {
    OrderedDict,
    RebuildTensor,
    RebuildTensorV2,
    RebuildTensorV3,
    RebuildParameter,
    RebuildParameterWithState,
    RebuildFromTypeV2,
    Parameter,
    TensorType,
    Size,
    StorageType,
    UntypedStorage,
    DTypeName,
    Device,
    CodecsEncode
};

struct Seq;
struct Dict;
struct Storage;
struct Tensor;

/// One pickle value. Containers, storages and tensors live in the Arena and are shared by
/// pointer, as Python shares them by reference (the memo aliases them).
struct Value {
    Kind kind = Kind::None;
    Fn fn = Fn::OrderedDict;   // Global
    DType dtype = DType::F32;  // Global StorageType, DTypeName
    std::int64_t i = 0;        // Bool, Int; BigInt: 1 when `s` is decimal text
    double f = 0;              // Float
    std::string_view s;        // Str, Bytes, BigInt (minimal little-endian), Global (its name)
    void* ptr = nullptr;       // Tuple/List/Set: Seq, Dict: Dict, Storage, Tensor

    Seq& seq() const { return *static_cast<Seq*>(ptr); }
    Dict& dict() const { return *static_cast<Dict*>(ptr); }
    Storage& storage() const { return *static_cast<Storage*>(ptr); }
    Tensor& tensor() const { return *static_cast<Tensor*>(ptr); }
};

struct Seq {
    std::vector<Value> items;
};

/// A dict (plain or OrderedDict) keeping insertion order; a key set twice keeps its place and
/// takes the new value, as in Python. String and int keys are compared by value.
struct Dict {
    bool ordered = false;
    std::vector<std::pair<Value, Value>> items;

    const Value* get(std::string_view key) const {
        for (const auto& [k, v] : items)
            if (k.kind == Kind::Str && k.s == key) return &v;
        return nullptr;
    }
    void set(const Value& k, const Value& v) {
        if (auto i = find(k)) {
            items[*i].second = v;
            return;
        }
        items.emplace_back(k, v);
        if (index_) add_to_index(items.size() - 1);
        else if (items.size() == 16) build_index();  // small dicts are scanned
    }

private:
    struct Index {
        std::unordered_map<std::string_view, std::size_t> strs;
        std::unordered_map<std::int64_t, std::size_t> ints;
    };
    static bool is_int(const Value& k) { return k.kind == Kind::Int || k.kind == Kind::Bool; }
    std::optional<std::size_t> find(const Value& k) const {
        if (k.kind != Kind::Str && !is_int(k)) return std::nullopt;
        if (index_) {
            if (k.kind == Kind::Str) {
                auto it = index_->strs.find(k.s);
                if (it != index_->strs.end()) return it->second;
            } else {
                auto it = index_->ints.find(k.i);
                if (it != index_->ints.end()) return it->second;
            }
            return std::nullopt;
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
            const Value& o = items[i].first;
            if (k.kind == Kind::Str ? (o.kind == Kind::Str && o.s == k.s)
                                    : (is_int(o) && o.i == k.i))
                return i;
        }
        return std::nullopt;
    }
    void add_to_index(std::size_t i) {
        const Value& k = items[i].first;
        if (k.kind == Kind::Str) index_->strs.emplace(k.s, i);
        else if (is_int(k)) index_->ints.emplace(k.i, i);
    }
    void build_index() {
        index_ = std::make_unique<Index>();
        for (std::size_t i = 0; i < items.size(); ++i) add_to_index(i);
    }
    std::unique_ptr<Index> index_;
};

/// A storage named by a persistent id: its bytes (in the zip entry, or after the legacy
/// pickles), or a legacy view into another storage.
struct Storage {
    std::string_view key;
    std::string_view type_name;  // "FloatStorage", for messages
    std::optional<DType> dtype;  // empty: untyped (counted in bytes)
    std::uint64_t numel = 0;     // declared, in elements of dtype (bytes when untyped)
    Bytes bytes;                 // valid once resolved
    bool resolved = false;
    Storage* root = nullptr;  // legacy view: its root storage and element range
    std::uint64_t view_offset = 0;

    std::size_t unit() const { return dtype ? dtype_size(*dtype) : 1; }
};

struct Tensor {
    Storage* storage = nullptr;
    DType dtype = DType::F32;
    std::int64_t offset = 0;
    std::size_t rank = 0;  // more than max_rank is refused when the tensor is read
    std::array<std::int64_t, Shape::max_rank> size{}, stride{};
};

/// Owns everything the pickles create; freed with the reader (cycles included).
struct Arena {
    std::deque<Seq> seqs;
    std::deque<Dict> dicts;
    std::deque<Storage> storages;
    std::deque<Tensor> tensors;
    std::deque<std::string> strings;

    Value make_seq(Kind kind, std::vector<Value> items = {}) {
        Value v;
        v.kind = kind;
        v.ptr = &seqs.emplace_back(Seq{std::move(items)});
        return v;
    }
    Value make_dict(bool ordered) {
        Value v;
        v.kind = Kind::Dict;
        auto& d = dicts.emplace_back();
        d.ordered = ordered;
        v.ptr = &d;
        return v;
    }
    Value make_str(Kind kind, std::string s) {
        Value v;
        v.kind = kind;
        v.s = strings.emplace_back(std::move(s));
        return v;
    }
};

std::string describe(const Value& v) {
    switch (v.kind) {
        case Kind::None: return "None";
        case Kind::Bool: return "a bool";
        case Kind::Int:
        case Kind::BigInt: return "an int";
        case Kind::Float: return "a float";
        case Kind::Str: return "a string";
        case Kind::Bytes: return "bytes";
        case Kind::Tuple: return "a tuple";
        case Kind::List: return "a list";
        case Kind::Dict: return v.dict().ordered ? "an OrderedDict" : "a dict";
        case Kind::Set: return "a set";
        case Kind::Global: return "the global " + std::string(v.s);
        case Kind::Storage: return "a storage";
        case Kind::Tensor: return "a tensor";
        case Kind::Device: return "a torch.device";
    }
    return "?";
}

Value make_int(std::int64_t i) {
    Value v;
    v.kind = Kind::Int;
    v.i = i;
    return v;
}

std::string dims_text(std::span<const std::int64_t> d) {
    std::string s = "[";
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(d[i]);
    }
    return s + "]";
}

// ---------------------------------------------------------------------------- globals
struct NamedDType {
    std::string_view name;
    DType dtype;
};
constexpr NamedDType storage_types[] = {
    {"DoubleStorage", DType::F64},    {"FloatStorage", DType::F32}, {"HalfStorage", DType::F16},
    {"BFloat16Storage", DType::BF16}, {"LongStorage", DType::I64},  {"IntStorage", DType::I32},
    {"ShortStorage", DType::I16},     {"CharStorage", DType::I8},   {"ByteStorage", DType::U8},
    {"BoolStorage", DType::Bool},
};
constexpr NamedDType dtype_names[] = {
    {"float64", DType::F64},   {"double", DType::F64},  {"float32", DType::F32},
    {"float", DType::F32},     {"float16", DType::F16}, {"half", DType::F16},
    {"bfloat16", DType::BF16}, {"int64", DType::I64},   {"long", DType::I64},
    {"int32", DType::I32},     {"int", DType::I32},     {"int16", DType::I16},
    {"short", DType::I16},     {"int8", DType::I8},     {"uint8", DType::U8},
    {"bool", DType::Bool},
};
constexpr std::string_view quantized_or_complex[] = {
    "ComplexFloatStorage",
    "ComplexDoubleStorage",
    "ComplexHalfStorage",
    "QInt8Storage",
    "QUInt8Storage",
    "QInt32Storage",
    "QUInt4x2Storage",
    "QUInt2x4Storage",
    "complex32",
    "complex64",
    "complex128",
    "cfloat",
    "cdouble",
    "chalf",
    "qint8",
    "quint8",
    "qint32",
    "quint4x2",
    "quint2x4",
};

/// The value of an allowed global, or nullopt with `reason` saying why it is refused.
std::optional<Value> lookup_global(std::string_view module, std::string_view name,
                                   std::string& reason) {
    Value v;
    v.kind = Kind::Global;
    auto is = [&](std::string_view m, std::string_view n) { return module == m && name == n; };
    auto fn = [&](Fn f) {
        v.fn = f;
        return std::optional<Value>(v);
    };
    if (is("collections", "OrderedDict")) return fn(Fn::OrderedDict);
    if (is("torch._utils", "_rebuild_tensor")) return fn(Fn::RebuildTensor);
    if (is("torch._utils", "_rebuild_tensor_v2")) return fn(Fn::RebuildTensorV2);
    if (is("torch._utils", "_rebuild_tensor_v3")) return fn(Fn::RebuildTensorV3);
    if (is("torch._utils", "_rebuild_parameter")) return fn(Fn::RebuildParameter);
    if (is("torch._utils", "_rebuild_parameter_with_state"))
        return fn(Fn::RebuildParameterWithState);
    if (is("torch._tensor", "_rebuild_from_type_v2")) return fn(Fn::RebuildFromTypeV2);
    if (is("torch.nn.parameter", "Parameter")) return fn(Fn::Parameter);
    if (is("torch", "Tensor")) return fn(Fn::TensorType);
    if (is("torch", "Size")) return fn(Fn::Size);
    if (is("torch", "device")) return fn(Fn::Device);
    if (is("_codecs", "encode")) return fn(Fn::CodecsEncode);
    if ((module == "torch" || module == "torch.storage") &&
        (name == "UntypedStorage" || name == "_UntypedStorage"))
        return fn(Fn::UntypedStorage);
    // torch.cuda.FloatStorage: legacy files saved from a GPU name the CUDA storage classes.
    if (module == "torch" || module == "torch.cuda") {
        for (const auto& s : storage_types)
            if (name == s.name) {
                v.dtype = s.dtype;
                return fn(Fn::StorageType);
            }
    }
    if (module == "torch") {
        for (const auto& d : dtype_names)
            if (name == d.name) {
                v.dtype = d.dtype;
                return fn(Fn::DTypeName);
            }
    }
    const bool torchish = module == "torch" || module == "torch.cuda" || module == "torch._utils";
    if (torchish && (std::find(std::begin(quantized_or_complex), std::end(quantized_or_complex),
                               name) != std::end(quantized_or_complex) ||
                     name == "_rebuild_qtensor")) {
        reason = "quantized and complex tensors are not supported";
    } else if (module == "torch._utils" && name.find("sparse") != std::string_view::npos) {
        reason = "sparse tensors are not supported";
    } else if (module == "torch._utils" && name == "_rebuild_meta_tensor_no_storage") {
        reason = "meta tensors (which hold no data) are not supported";
    } else if (module == "torch.storage" && name == "_load_from_bytes") {
        reason = "the file was written by pickle.dump, not torch.save; re-save it with torch.save";
    } else if (module == "torch" && (name.starts_with("uint") || name.starts_with("float8") ||
                                     name.starts_with("bits") || name.starts_with("int1_") ||
                                     name.starts_with("int2") || name.starts_with("int4"))) {
        reason = "dtype torch." + std::string(name) +
                 " is not supported (f64 f32 f16 bf16 i64 i32 i16 i8 u8 bool are)";
    } else {
        reason = "only the tensor rebuild functions, storages and OrderedDict are allowed";
        if (module.starts_with("torch.nn.modules") || module == "__main__")
            reason +=
                " (the file seems to hold a pickled model object: save model.state_dict() "
                "instead)";
        else if (module.starts_with("__torch__"))
            reason +=
                " (the file is a TorchScript archive from torch.jit.save: save the "
                "module's state_dict() with torch.save instead)";
        else if (module.starts_with("numpy")) reason += " (numpy values are not supported)";
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------- pickle machine
const char* opcode_name(std::uint8_t op) {
    switch (op) {
        case '(': return "MARK";
        case '.': return "STOP";
        case '0': return "POP";
        case '1': return "POP_MARK";
        case '2': return "DUP";
        case 'F': return "FLOAT";
        case 'I': return "INT";
        case 'J': return "BININT";
        case 'K': return "BININT1";
        case 'L': return "LONG";
        case 'M': return "BININT2";
        case 'N': return "NONE";
        case 'P': return "PERSID";
        case 'Q': return "BINPERSID";
        case 'R': return "REDUCE";
        case 'S': return "STRING";
        case 'T': return "BINSTRING";
        case 'U': return "SHORT_BINSTRING";
        case 'V': return "UNICODE";
        case 'X': return "BINUNICODE";
        case 'a': return "APPEND";
        case 'b': return "BUILD";
        case 'c': return "GLOBAL";
        case 'd': return "DICT";
        case '}': return "EMPTY_DICT";
        case 'e': return "APPENDS";
        case 'g': return "GET";
        case 'h': return "BINGET";
        case 'i': return "INST";
        case 'j': return "LONG_BINGET";
        case 'l': return "LIST";
        case ']': return "EMPTY_LIST";
        case 'o': return "OBJ";
        case 'p': return "PUT";
        case 'q': return "BINPUT";
        case 'r': return "LONG_BINPUT";
        case 's': return "SETITEM";
        case 't': return "TUPLE";
        case ')': return "EMPTY_TUPLE";
        case 'u': return "SETITEMS";
        case 'G': return "BINFLOAT";
        case 0x80: return "PROTO";
        case 0x81: return "NEWOBJ";
        case 0x82: return "EXT1";
        case 0x83: return "EXT2";
        case 0x84: return "EXT4";
        case 0x85: return "TUPLE1";
        case 0x86: return "TUPLE2";
        case 0x87: return "TUPLE3";
        case 0x88: return "NEWTRUE";
        case 0x89: return "NEWFALSE";
        case 0x8a: return "LONG1";
        case 0x8b: return "LONG4";
        case 'B': return "BINBYTES";
        case 'C': return "SHORT_BINBYTES";
        case 0x8c: return "SHORT_BINUNICODE";
        case 0x8d: return "BINUNICODE8";
        case 0x8e: return "BINBYTES8";
        case 0x8f: return "EMPTY_SET";
        case 0x90: return "ADDITEMS";
        case 0x91: return "FROZENSET";
        case 0x92: return "NEWOBJ_EX";
        case 0x93: return "STACK_GLOBAL";
        case 0x94: return "MEMOIZE";
        case 0x95: return "FRAME";
        case 0x96: return "BYTEARRAY8";
        case 0x97: return "NEXT_BUFFER";
        case 0x98: return "READONLY_BUFFER";
        default: return nullptr;
    }
}

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | cp >> 6);
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | cp >> 12);
        out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | cp >> 18);
        out += static_cast<char>(0x80 | (cp >> 12 & 0x3f));
        out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

std::optional<std::uint32_t> parse_hex(std::string_view s) {
    std::uint32_t v = 0;
    for (char c : s) {
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return std::nullopt;
        v = v << 4 | static_cast<std::uint32_t>(d);
    }
    return v;
}

/// Where an opcode is, for messages: "data.pkl: pickle opcode 'R' (REDUCE) at byte 12".
struct Site {
    std::string_view what;  // the pickle's name, or empty
    std::uint8_t op = 0;
    std::size_t pos = 0;

    std::string text() const {
        std::string s(what);
        if (!s.empty()) s += ": ";
        s += "pickle opcode ";
        static constexpr char hex[] = "0123456789abcdef";
        if (op >= 0x20 && op < 0x7f) {
            s += '\'';
            s += static_cast<char>(op);
            s += '\'';
        } else {
            s += "0x";
            s += hex[op >> 4];
            s += hex[op & 15];
        }
        if (const char* n = opcode_name(op)) {
            s += " (";
            s += n;
            s += ")";
        }
        return s + " at byte " + std::to_string(pos);
    }
};

/// Called with a persistent id (BINPERSID/PERSID) and where its opcode is.
using PersistentLoad = std::function<Value(const Value& pid, const Site& site)>;

/// Evaluates one pickle (up to its STOP) from `data` at `pos`.
class Unpickler {
public:
    Unpickler(const Ctx& ctx, Arena& arena, Bytes data, std::size_t pos, std::string_view what,
              PersistentLoad persistent_load)
        : ctx_(ctx),
          arena_(arena),
          data_(data),
          pos_(pos),
          what_(what),
          persistent_load_(std::move(persistent_load)) {}

    Value load();
    std::size_t position() const { return pos_; }

private:
    Site site() const { return {what_, op_, op_pos_}; }
    template <class... Args>
    [[noreturn]] void fail(const Args&... args) const {
        ctx_.fail(site().text(), ": ", args...);
    }

    Bytes take(std::uint64_t n) {
        if (n > data_.size() - pos_)
            fail("truncated: needs ", n, " bytes, only ", data_.size() - pos_, " remain");
        Bytes b = data_.subspan(pos_, static_cast<std::size_t>(n));
        pos_ += static_cast<std::size_t>(n);
        return b;
    }
    std::uint64_t take_le(std::size_t n) {
        Bytes b = take(n);
        std::uint64_t v = 0;
        for (std::size_t i = n; i-- > 0;) v = v << 8 | b[i];
        return v;
    }
    std::string_view take_view(std::uint64_t n) {
        Bytes b = take(n);
        return {reinterpret_cast<const char*>(b.data()), b.size()};
    }
    /// The argument line of a text opcode, without its newline.
    std::string_view line() {
        const auto* start = data_.data() + pos_;
        const auto* nl =
            static_cast<const std::uint8_t*>(std::memchr(start, '\n', data_.size() - pos_));
        if (!nl) fail("truncated: no newline ends its argument");
        pos_ += static_cast<std::size_t>(nl - start) + 1;
        return {reinterpret_cast<const char*>(start), static_cast<std::size_t>(nl - start)};
    }

    void push(Value v) {
        if (stack_.size() >= max_stack) fail("the stack is deeper than ", max_stack);
        stack_.push_back(std::move(v));
    }
    std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
    Value pop() {
        if (stack_.size() <= floor()) fail("the stack is empty");
        Value v = std::move(stack_.back());
        stack_.pop_back();
        return v;
    }
    Value& top() {
        if (stack_.size() <= floor()) fail("the stack is empty");
        return stack_.back();
    }
    std::vector<Value> pop_mark() {
        if (marks_.empty()) fail("no MARK on the stack");
        const std::size_t m = marks_.back();
        marks_.pop_back();
        std::vector<Value> items(std::make_move_iterator(stack_.begin() + std::ptrdiff_t(m)),
                                 std::make_move_iterator(stack_.end()));
        stack_.resize(m);
        return items;
    }
    // Picklers number the memo 0, 1, 2, ...: those live in a vector, any others in a map.
    void memo_put(std::uint64_t idx) {
        if (stack_.size() <= floor()) fail("the stack is empty");
        if (idx < memo_.size()) {
            memo_[idx] = stack_.back();
            return;
        }
        if (memo_.size() + sparse_memo_.size() >= max_memo)
            fail("the memo holds more than ", max_memo, " values");
        if (idx == memo_.size()) memo_.push_back(stack_.back());
        else sparse_memo_[idx] = stack_.back();
    }
    void memo_get(std::uint64_t idx) {
        if (idx < memo_.size()) return push(memo_[idx]);
        auto it = sparse_memo_.find(idx);
        if (it == sparse_memo_.end()) fail("memo key ", idx, " is not set");
        push(it->second);
    }
    std::uint64_t line_index() {
        std::string_view l = line();
        std::uint64_t v = 0;
        auto [p, ec] = std::from_chars(l.data(), l.data() + l.size(), v);
        if (ec != std::errc() || p != l.data() + l.size())
            fail("expected a memo index, found '", printable(l), "'");
        return v;
    }

    Value int_from_text(std::string_view l);
    Value long_from_bytes(Bytes b);
    std::string decode_string_escape(std::string_view l);
    std::string decode_raw_unicode_escape(std::string_view l);
    Value global(std::string_view module, std::string_view name);
    Value call(const Value& callable, const Value& args);
    Value rebuild_tensor(const std::vector<Value>& a, std::optional<DType> dtype);
    std::int64_t as_int(const Value& v, const char* what) const;

    const Ctx& ctx_;
    Arena& arena_;
    Bytes data_;
    std::size_t pos_;
    std::string_view what_;
    PersistentLoad persistent_load_;
    std::vector<Value> stack_;
    std::vector<std::size_t> marks_;
    std::vector<Value> memo_;
    std::unordered_map<std::uint64_t, Value> sparse_memo_;
    std::uint8_t op_ = 0;
    std::size_t op_pos_ = 0;
};

Value Unpickler::int_from_text(std::string_view l) {
    if (l == "00" || l == "01") {  // protocol 0's False and True
        Value v;
        v.kind = Kind::Bool;
        v.i = l == "01";
        return v;
    }
    std::string_view d = l;
    if (!d.empty() && d.back() == 'L') d.remove_suffix(1);  // LONG's suffix
    if (!d.empty() && d.front() == '+') d.remove_prefix(1);
    std::int64_t i = 0;
    auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), i);
    if (p != d.data() + d.size() || d.empty() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range))
        fail("expected an integer, found '", printable(l), "'");
    if (ec == std::errc::result_out_of_range) {
        Value v;  // kept as decimal text: only ever refused when used as a number
        v.kind = Kind::BigInt;
        v.i = 1;
        v.s = d;
        return v;
    }
    return make_int(i);
}

Value Unpickler::long_from_bytes(Bytes b) {
    // Two's complement, little-endian; drop the high bytes that only repeat the sign.
    std::size_t n = b.size();
    while (n > 1 &&
           ((b[n - 1] == 0 && !(b[n - 2] & 0x80)) || (b[n - 1] == 0xff && (b[n - 2] & 0x80))))
        --n;
    if (n <= 8) {
        std::uint64_t u = 0;
        for (std::size_t i = n; i-- > 0;) u = u << 8 | b[i];
        if (n > 0 && n < 8 && (b[n - 1] & 0x80)) u |= ~std::uint64_t(0) << (8 * n);
        return make_int(static_cast<std::int64_t>(u));
    }
    Value v;
    v.kind = Kind::BigInt;
    v.s = {reinterpret_cast<const char*>(b.data()), n};
    return v;
}

std::string Unpickler::decode_string_escape(std::string_view l) {
    // STRING's argument is a quoted Python 2 str literal.
    if (l.size() < 2 || l.front() != l.back() || (l.front() != '\'' && l.front() != '"'))
        fail("the argument must be quoted, found '", printable(l), "'");
    l = l.substr(1, l.size() - 2);
    std::string out;
    for (std::size_t i = 0; i < l.size(); ++i) {
        char c = l[i];
        if (c != '\\' || i + 1 == l.size()) {
            out += c;
            continue;
        }
        c = l[++i];
        switch (c) {
            case '\\': out += '\\'; break;
            case '\'': out += '\''; break;
            case '"': out += '"'; break;
            case 'a': out += '\a'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'v': out += '\v'; break;
            case '\n': break;
            case 'x': {
                auto h = i + 2 < l.size() ? parse_hex(l.substr(i + 1, 2)) : std::nullopt;
                if (!h) fail("invalid \\x escape in '", printable(l), "'");
                out += static_cast<char>(*h);
                i += 2;
                break;
            }
            default:
                if (c >= '0' && c <= '7') {
                    unsigned v = 0;
                    std::size_t k = 0;
                    for (; k < 3 && i + k < l.size() && l[i + k] >= '0' && l[i + k] <= '7'; ++k)
                        v = v * 8 + unsigned(l[i + k] - '0');
                    out += static_cast<char>(v & 0xff);
                    i += k - 1;
                } else {
                    out += '\\';  // Python keeps unknown escapes as they are
                    out += c;
                }
        }
    }
    return out;
}

std::string Unpickler::decode_raw_unicode_escape(std::string_view l) {
    // UNICODE's argument: latin-1 bytes with \uXXXX and \UXXXXXXXX escapes.
    std::string out;
    for (std::size_t i = 0; i < l.size(); ++i) {
        const auto c = static_cast<unsigned char>(l[i]);
        if (c == '\\' && i + 1 < l.size() && (l[i + 1] == 'u' || l[i + 1] == 'U')) {
            const std::size_t n = l[i + 1] == 'u' ? 4 : 8;
            auto h = i + 2 + n <= l.size() ? parse_hex(l.substr(i + 2, n)) : std::nullopt;
            if (!h || *h > 0x10ffff) fail("invalid \\u escape in '", printable(l), "'");
            append_utf8(out, *h);
            i += 1 + n;
        } else {
            append_utf8(out, c);
        }
    }
    return out;
}

std::int64_t Unpickler::as_int(const Value& v, const char* what) const {
    if (v.kind == Kind::BigInt) fail(what, " is an int too large for 64 bits");
    if (v.kind != Kind::Int) fail(what, " must be an int, found ", describe(v));
    return v.i;
}

Value Unpickler::global(std::string_view module, std::string_view name) {
    std::string reason;
    auto v = lookup_global(module, name, reason);
    if (!v)
        fail("refusing global ", printable(module, 200), ".", printable(name, 200), ": ", reason);
    v->s = arena_.strings.emplace_back(std::string(module) + "." + std::string(name));
    return *v;
}

Value Unpickler::rebuild_tensor(const std::vector<Value>& a, std::optional<DType> dtype) {
    if (a[0].kind != Kind::Storage)
        fail("a tensor's storage must come from a persistent id, found ", describe(a[0]));
    Storage& st = a[0].storage();
    if (!dtype && !st.dtype)
        fail("storage '", printable(st.key), "' is untyped, which needs _rebuild_tensor_v3's ",
             "dtype");
    auto ints = [&](const Value& v, const char* what, auto& out) {
        if (v.kind != Kind::Tuple && v.kind != Kind::List)
            fail("a tensor's ", what, " must be a tuple of ints, found ", describe(v));
        const auto& items = v.seq().items;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const std::int64_t x = as_int(items[i], what);
            if (i < out.size()) out[i] = x;
        }
        return items.size();
    };
    Tensor& t = arena_.tensors.emplace_back();
    t.storage = &st;
    t.dtype = dtype ? *dtype : *st.dtype;
    t.offset = as_int(a[1], "a tensor's storage offset");
    t.rank = ints(a[2], "size", t.size);
    if (const std::size_t n = ints(a[3], "stride", t.stride); n != t.rank)
        fail("a tensor's size has ", t.rank, " dimensions but its stride ", n);
    Value v;
    v.kind = Kind::Tensor;
    v.ptr = &t;
    return v;
}

Value Unpickler::call(const Value& callable, const Value& args_value) {
    if (callable.kind != Kind::Global) fail("cannot call ", describe(callable));
    if (args_value.kind != Kind::Tuple)
        fail("the arguments of ", callable.s, " must be a tuple, found ", describe(args_value));
    const std::vector<Value>& a = args_value.seq().items;
    auto arity = [&](std::size_t lo, std::size_t hi) {
        if (a.size() < lo || a.size() > hi)
            fail(callable.s, " takes ", lo, lo == hi ? "" : " to ",
                 lo == hi ? "" : std::to_string(hi), " arguments, found ", a.size());
    };
    auto tensor_arg = [&](const Value& v) {
        if (v.kind != Kind::Tensor)
            fail(callable.s, " expects a tensor as its data, found ", describe(v));
        return v;
    };
    switch (callable.fn) {
        case Fn::OrderedDict: {
            arity(0, 1);
            Value d = arena_.make_dict(true);
            if (a.size() == 1) {  // OrderedDict([(key, value), ...])
                if (a[0].kind != Kind::List && a[0].kind != Kind::Tuple)
                    fail("OrderedDict expects a list of pairs, found ", describe(a[0]));
                for (const Value& kv : a[0].seq().items) {
                    if ((kv.kind != Kind::Tuple && kv.kind != Kind::List) ||
                        kv.seq().items.size() != 2)
                        fail("OrderedDict expects (key, value) pairs, found ", describe(kv));
                    d.dict().set(kv.seq().items[0], kv.seq().items[1]);
                }
            }
            return d;
        }
        case Fn::RebuildTensor: arity(4, 4); return rebuild_tensor(a, std::nullopt);
        case Fn::RebuildTensorV2: arity(6, 7); return rebuild_tensor(a, std::nullopt);
        case Fn::RebuildTensorV3:
            arity(7, 8);
            if (a[6].kind != Kind::Global || a[6].fn != Fn::DTypeName)
                fail("the dtype argument must be a torch dtype, found ", describe(a[6]));
            return rebuild_tensor(a, a[6].dtype);
        case Fn::RebuildParameter: arity(3, 3); return tensor_arg(a[0]);
        case Fn::RebuildParameterWithState: arity(4, 4); return tensor_arg(a[0]);
        case Fn::Parameter: arity(1, 2); return tensor_arg(a[0]);
        case Fn::RebuildFromTypeV2: {
            // (func, new_type, args, state): func(*args) viewed as new_type; the state (a
            // subclass's attributes) does not change the values.
            arity(4, 4);
            const Value& func = a[0];
            if (func.kind != Kind::Global ||
                (func.fn != Fn::RebuildTensor && func.fn != Fn::RebuildTensorV2 &&
                 func.fn != Fn::RebuildTensorV3 && func.fn != Fn::RebuildParameter &&
                 func.fn != Fn::RebuildParameterWithState))
                fail("_rebuild_from_type_v2 expects a tensor rebuild function, found ",
                     describe(func));
            if (a[1].kind != Kind::Global ||
                (a[1].fn != Fn::TensorType && a[1].fn != Fn::Parameter))
                fail("_rebuild_from_type_v2 expects torch.Tensor or torch.nn.parameter.Parameter ",
                     "as the type, found ", describe(a[1]));
            return tensor_arg(call(func, a[2]));
        }
        case Fn::Size: {
            arity(1, 1);
            if (a[0].kind != Kind::Tuple && a[0].kind != Kind::List)
                fail("torch.Size expects a tuple, found ", describe(a[0]));
            for (const Value& x : a[0].seq().items) as_int(x, "a torch.Size dimension");
            return arena_.make_seq(Kind::Tuple, a[0].seq().items);
        }
        case Fn::Device: {
            arity(1, 2);
            if (a[0].kind != Kind::Str)
                fail("torch.device expects a string, found ", describe(a[0]));
            Value v;
            v.kind = Kind::Device;
            return v;
        }
        case Fn::CodecsEncode: {
            // Protocol 2 pickles bytes as _codecs.encode(text, 'latin1').
            arity(1, 2);
            if (a[0].kind != Kind::Str)
                fail("_codecs.encode expects a string, found ", describe(a[0]));
            std::string_view enc = "utf-8";
            if (a.size() == 2) {
                if (a[1].kind != Kind::Str) fail("_codecs.encode expects an encoding name");
                enc = a[1].s;
            }
            if (enc == "utf-8" || enc == "utf8")
                return arena_.make_str(Kind::Bytes, std::string(a[0].s));
            if (enc != "latin1" && enc != "latin-1" && enc != "iso-8859-1")
                fail("_codecs.encode: encoding '", printable(enc), "' is not supported");
            std::string out;
            const std::string_view s = a[0].s;
            for (std::size_t i = 0; i < s.size();) {
                const auto c = static_cast<unsigned char>(s[i]);
                if (c < 0x80) {
                    out += static_cast<char>(c);
                    i += 1;
                } else if ((c & 0xe0) == 0xc0 && c <= 0xc3 && i + 1 < s.size() &&
                           (static_cast<unsigned char>(s[i + 1]) & 0xc0) == 0x80) {
                    out += static_cast<char>(((c & 0x1f) << 6) | (s[i + 1] & 0x3f));
                    i += 2;
                } else {
                    fail("_codecs.encode: the text is not latin-1");
                }
            }
            return arena_.make_str(Kind::Bytes, std::move(out));
        }
        case Fn::TensorType:
        case Fn::StorageType:
        case Fn::UntypedStorage:
        case Fn::DTypeName: break;
    }
    fail("calling ", callable.s, " is not supported");
}

Value Unpickler::load() {
    for (;;) {
        if (pos_ >= data_.size()) {
            op_pos_ = pos_;
            ctx_.fail(what_, what_.empty() ? "" : ": ", "truncated pickle: it ends at byte ", pos_,
                      " without a STOP opcode");
        }
        op_pos_ = pos_;
        op_ = data_[pos_++];
        switch (op_) {
            case 0x80: {  // PROTO
                const auto v = take_le(1);
                if (v > 5) fail("pickle protocol ", v, " is not supported (0 to 5 are)");
                break;
            }
            case 0x95: {  // FRAME: a length hint; its opcodes follow as usual
                const std::uint64_t n = take_le(8);
                if (n > data_.size() - pos_)
                    fail("truncated: the frame has ", n, " bytes, only ", data_.size() - pos_,
                         " remain");
                break;
            }
            case '.': {  // STOP
                Value v = pop();
                return v;
            }
            case '(':
                if (marks_.size() >= max_marks) fail("more than ", max_marks, " nested MARKs");
                marks_.push_back(stack_.size());
                break;
            case '0':  // POP: a MARK on top is popped instead
                if (stack_.size() > floor()) stack_.pop_back();
                else pop_mark();
                break;
            case '1': pop_mark(); break;
            case '2': push(top()); break;
            case ')': push(arena_.make_seq(Kind::Tuple)); break;
            case 't': push(arena_.make_seq(Kind::Tuple, pop_mark())); break;
            case 0x85:
            case 0x86:
            case 0x87: {  // TUPLE1-3
                const std::size_t n = op_ - 0x84u;
                if (stack_.size() < floor() + n) fail("the stack holds fewer than ", n, " values");
                std::vector<Value> items(stack_.end() - std::ptrdiff_t(n), stack_.end());
                stack_.resize(stack_.size() - n);
                push(arena_.make_seq(Kind::Tuple, std::move(items)));
                break;
            }
            case ']': push(arena_.make_seq(Kind::List)); break;
            case 'l': push(arena_.make_seq(Kind::List, pop_mark())); break;
            case 'a': {
                Value v = pop();
                Value& l = top();
                if (l.kind != Kind::List) fail("APPEND to ", describe(l), " is not supported");
                l.seq().items.push_back(std::move(v));
                break;
            }
            case 'e': {
                auto items = pop_mark();
                Value& l = top();
                if (l.kind != Kind::List) fail("APPENDS to ", describe(l), " is not supported");
                auto& dst = l.seq().items;
                dst.insert(dst.end(), std::make_move_iterator(items.begin()),
                           std::make_move_iterator(items.end()));
                break;
            }
            case '}': push(arena_.make_dict(false)); break;
            case 'd': {
                auto items = pop_mark();
                if (items.size() % 2) fail("an odd number of values for a dict");
                Value d = arena_.make_dict(false);
                for (std::size_t i = 0; i < items.size(); i += 2)
                    d.dict().set(items[i], items[i + 1]);
                push(d);
                break;
            }
            case 's': {
                Value v = pop(), k = pop();
                Value& d = top();
                if (d.kind != Kind::Dict) fail("SETITEM on ", describe(d), " is not supported");
                d.dict().set(k, v);
                break;
            }
            case 'u': {
                auto items = pop_mark();
                if (items.size() % 2) fail("an odd number of values for a dict");
                Value& d = top();
                if (d.kind != Kind::Dict) fail("SETITEMS on ", describe(d), " is not supported");
                for (std::size_t i = 0; i < items.size(); i += 2)
                    d.dict().set(items[i], items[i + 1]);
                break;
            }
            case 0x8f: push(arena_.make_seq(Kind::Set)); break;
            case 0x90: {
                auto items = pop_mark();
                Value& s = top();
                if (s.kind != Kind::Set) fail("ADDITEMS to ", describe(s), " is not supported");
                auto& dst = s.seq().items;
                dst.insert(dst.end(), items.begin(), items.end());
                break;
            }
            case 0x91: push(arena_.make_seq(Kind::Set, pop_mark())); break;
            case 'J': push(make_int(static_cast<std::int32_t>(take_le(4)))); break;
            case 'K': push(make_int(static_cast<std::int64_t>(take_le(1)))); break;
            case 'M': push(make_int(static_cast<std::int64_t>(take_le(2)))); break;
            case 'I':
            case 'L': push(int_from_text(line())); break;
            case 0x8a: push(long_from_bytes(take(take_le(1)))); break;
            case 0x8b: {
                const auto n = static_cast<std::int32_t>(take_le(4));
                if (n < 0) fail("negative length ", n);
                push(long_from_bytes(take(static_cast<std::uint64_t>(n))));
                break;
            }
            case 'G': {
                const std::uint64_t bits = __builtin_bswap64(le64(take(8).data()));  // big-endian
                Value v;
                v.kind = Kind::Float;
                v.f = std::bit_cast<double>(bits);
                push(v);
                break;
            }
            case 'F': {
                std::string_view l = line();
                Value v;
                v.kind = Kind::Float;
                auto [p, ec] = std::from_chars(l.data(), l.data() + l.size(), v.f);
                if (ec != std::errc() || p != l.data() + l.size())
                    fail("expected a float, found '", printable(l), "'");
                push(v);
                break;
            }
            case 'N': push(Value{}); break;
            case 0x88:
            case 0x89: {
                Value v;
                v.kind = Kind::Bool;
                v.i = op_ == 0x88;
                push(v);
                break;
            }
            case 'X':
            case 0x8c:
            case 0x8d:
            case 'T':
            case 'U': {
                // BINSTRING/SHORT_BINSTRING: a Python 2 str, read as text as torch.load does.
                std::uint64_t n = 0;
                if (op_ == 'X') n = take_le(4);
                else if (op_ == 0x8c || op_ == 'U') n = take_le(1);
                else if (op_ == 0x8d) n = take_le(8);
                else {
                    const auto m = static_cast<std::int32_t>(take_le(4));
                    if (m < 0) fail("negative length ", m);
                    n = static_cast<std::uint64_t>(m);
                }
                Value v;
                v.kind = Kind::Str;
                v.s = take_view(n);
                push(v);
                break;
            }
            case 'B':
            case 'C':
            case 0x8e:
            case 0x96: {
                const std::uint64_t n = take_le(op_ == 'B' ? 4 : op_ == 'C' ? 1 : 8);
                Value v;
                v.kind = Kind::Bytes;
                v.s = take_view(n);
                push(v);
                break;
            }
            case 'S': push(arena_.make_str(Kind::Str, decode_string_escape(line()))); break;
            case 'V': push(arena_.make_str(Kind::Str, decode_raw_unicode_escape(line()))); break;
            case 'p': memo_put(line_index()); break;
            case 'q': memo_put(take_le(1)); break;
            case 'r': memo_put(take_le(4)); break;
            case 0x94: memo_put(memo_.size() + sparse_memo_.size()); break;
            case 'g': memo_get(line_index()); break;
            case 'h': memo_get(take_le(1)); break;
            case 'j': memo_get(take_le(4)); break;
            case 'c': {
                std::string_view module = line();
                std::string_view name = line();
                push(global(module, name));
                break;
            }
            case 0x93: {
                Value name = pop(), module = pop();
                if (name.kind != Kind::Str || module.kind != Kind::Str)
                    fail("expected a module and a name (strings), found ", describe(module),
                         " and ", describe(name));
                push(global(module.s, name.s));
                break;
            }
            case 'R': {
                Value args = pop(), callable = pop();
                push(call(callable, args));
                break;
            }
            case 0x81: {      // NEWOBJ: cls.__new__(cls, *args)
                (void)pop();  // the arguments: OrderedDict takes none
                Value cls = pop();
                if (cls.kind != Kind::Global || cls.fn != Fn::OrderedDict)
                    fail("creating ", describe(cls), " is not supported");
                push(arena_.make_dict(true));
                break;
            }
            case 'b': {
                (void)pop();  // the state
                const Value& target = top();
                // An OrderedDict's state is its attributes (a state_dict's _metadata); a
                // tensor's is a subclass's attributes. Neither changes the tensors.
                if (!(target.kind == Kind::Dict && target.dict().ordered) &&
                    target.kind != Kind::Tensor)
                    fail("setting the state of ", describe(target), " is not supported");
                break;
            }
            case 'Q':
            case 'P': {
                Value pid;
                if (op_ == 'Q') {
                    pid = pop();
                } else {
                    pid = arena_.make_str(Kind::Str, std::string(line()));
                }
                if (!persistent_load_) fail("a persistent id is not expected in this pickle");
                push(persistent_load_(pid, site()));
                break;
            }
            default:
                ctx_.fail(site().text(),
                          opcode_name(op_) ? " is not supported" : " is not a known opcode");
        }
    }
}

// ---------------------------------------------------------------------------- storages
/// The fields of a ('storage', storage_type, key, location, numel[, view_metadata]) id.
struct StorageId {
    const Value* type;
    std::string_view key;
    std::uint64_t numel;
    const Value* view = nullptr;
};

StorageId parse_storage_id(const Ctx& ctx, const Value& pid, const Site& site, std::size_t fields) {
    auto fail = [&](const auto&... args) { ctx.fail(site.text(), ": ", args...); };
    if (pid.kind != Kind::Tuple)
        fail("a persistent id must be a ('storage', ...) tuple, found ", describe(pid));
    const auto& a = pid.seq().items;
    if (a.empty() || a[0].kind != Kind::Str || a[0].s != "storage")
        fail("a persistent id must start with 'storage'");
    if (a.size() != fields)
        fail("a storage persistent id has ", fields, " fields here, found ", a.size());
    const Value& type = a[1];
    if (type.kind != Kind::Global || (type.fn != Fn::StorageType && type.fn != Fn::UntypedStorage))
        fail("expected a storage class, found ", describe(type));
    if (a[2].kind != Kind::Str) fail("a storage key must be a string, found ", describe(a[2]));
    if (a[4].kind != Kind::Int || a[4].i < 0)
        fail("a storage size must be a non-negative int, found ", describe(a[4]),
             a[4].kind == Kind::Int ? " " + std::to_string(a[4].i) : "");
    return {&type, a[2].s, static_cast<std::uint64_t>(a[4].i), fields > 5 ? &a[5] : nullptr};
}

Storage& new_storage(Arena& arena, const StorageId& id) {
    Storage& st = arena.storages.emplace_back();
    st.key = id.key;
    if (id.type->fn == Fn::StorageType) st.dtype = id.type->dtype;
    const std::string_view full = id.type->s;
    st.type_name = full.substr(full.rfind('.') + 1);
    st.numel = id.numel;
    return st;
}

Value storage_value(Storage& st) {
    Value v;
    v.kind = Kind::Storage;
    v.ptr = &st;
    return v;
}

void check_same_storage(const Ctx& ctx, const Site& site, const Storage& st, const StorageId& id) {
    const bool same_type = id.type->fn == Fn::StorageType ? st.dtype == id.type->dtype : !st.dtype;
    if (!same_type || st.numel != id.numel)
        ctx.fail(site.text(), ": storage '", printable(st.key), "' is declared as ", st.type_name,
                 " of ", st.numel, " elements and as ", id.type->s, " of ", id.numel);
}

// ---------------------------------------------------------------------------- flattening
/// Walks the unpickled dict and copies every tensor out as a NamedTensor.
class Flattener {
public:
    Flattener(const Ctx& ctx, std::uint64_t input_size, bool big_endian)
        : ctx_(ctx), big_endian_(big_endian) {
        // Views of one storage and expanded (stride 0) tensors may legitimately outgrow the
        // file; far beyond that, a tiny hostile file would make us allocate without bound.
        const std::uint64_t cap = std::numeric_limits<std::uint64_t>::max() / 128;
        output_left_ = (std::uint64_t(1) << 30) + std::min(input_size, cap) * 64;
        visits_left_ = (std::uint64_t(1) << 20) + std::min(input_size, cap) * 8;
    }

    StateDict run(const Value& dict) {
        visit(dict, 0);
        return std::move(out_);
    }

private:
    void visit(const Value& v, std::size_t depth);
    void child(std::string_view part, const Value& v, std::size_t depth) {
        const std::size_t old = key_.size();
        if (key_.size() + part.size() + 1 > max_key_length)
            ctx_.fail("key '", printable(key_), "...' is longer than ", max_key_length, " bytes");
        if (!key_.empty()) key_ += '.';
        key_ += part;
        visit(v, depth + 1);
        key_.resize(old);
    }
    Bytes resolve(Storage& st);
    TensorData materialize(Tensor& t);

    const Ctx& ctx_;
    bool big_endian_;
    std::uint64_t output_left_, visits_left_;
    std::string key_;
    StateDict out_;
    std::unordered_set<std::string> seen_;
};

void Flattener::visit(const Value& v, std::size_t depth) {
    if (visits_left_-- == 0)
        ctx_.fail("the pickle's containers refer to each other too many times (a hostile file?)");
    if (depth > max_depth)
        ctx_.fail("'", printable(key_), "' nests deeper than ", max_depth,
                  " dicts and lists (a cycle?)");
    switch (v.kind) {
        case Kind::Dict:
            for (const auto& [k, item] : v.dict().items) {
                if (k.kind == Kind::Str) {
                    child(k.s, item, depth);
                } else if (k.kind == Kind::Int) {
                    child(std::to_string(k.i), item, depth);
                } else {
                    ctx_.fail("dict keys must be strings or ints, found ", describe(k),
                              key_.empty() ? "" : " in '", printable(key_),
                              key_.empty() ? "" : "'");
                }
            }
            break;
        case Kind::List:
        case Kind::Tuple: {
            const auto& items = v.seq().items;
            for (std::size_t i = 0; i < items.size(); ++i)
                child(std::to_string(i), items[i], depth);
            break;
        }
        case Kind::Tensor: {
            if (!seen_.insert(key_).second) ctx_.fail("key '", printable(key_), "' occurs twice");
            TensorData data = materialize(v.tensor());
            out_.push_back({key_, std::move(data)});
            break;
        }
        default: break;  // numbers, strings, devices, ...: not tensors
    }
}

Bytes Flattener::resolve(Storage& st) {
    if (st.resolved) return st.bytes;
    if (!st.root)
        ctx_.fail("storage '", printable(st.key),
                  "' has no data: its key is missing from the list "
                  "of storages after the pickle");
    const Bytes root = resolve(*st.root);
    std::uint64_t begin = 0, len = 0, end = 0;
    if (mul_overflows(st.view_offset, st.unit(), begin) ||
        mul_overflows(st.numel, st.unit(), len) || add_overflows(begin, len, end) ||
        end > root.size())
        ctx_.fail("storage view '", printable(st.key), "' (", st.numel, " elements at offset ",
                  st.view_offset, ") is out of range of storage '", printable(st.root->key), "' (",
                  root.size() / st.unit(), " elements)");
    st.bytes = root.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(len));
    st.resolved = true;
    return st.bytes;
}

/// dst[r][c] = src[r * rs + c * cs] (strides in bytes). Rows with contiguous elements are one
/// memcpy; otherwise 32x32 tiles keep the source lines in cache (a transpose reads each line
/// once, not once per element).
template <std::size_t E>
void copy_2d(std::uint8_t* dst, const std::uint8_t* src, std::uint64_t rows, std::uint64_t cols,
             std::uint64_t rs, std::uint64_t cs) {
    if (cs == E) {
        for (std::uint64_t r = 0; r < rows; ++r)
            std::memcpy(dst + r * cols * E, src + r * rs, cols * E);
        return;
    }
    constexpr std::uint64_t tile = 32;
    for (std::uint64_t r0 = 0; r0 < rows; r0 += tile) {
        const std::uint64_t r1 = std::min(rows, r0 + tile);
        for (std::uint64_t c0 = 0; c0 < cols; c0 += tile) {
            const std::uint64_t c1 = std::min(cols, c0 + tile);
            for (std::uint64_t r = r0; r < r1; ++r) {
                std::uint8_t* d = dst + (r * cols + c0) * E;
                const std::uint8_t* s = src + r * rs + c0 * cs;
                for (std::uint64_t c = c0; c < c1; ++c, d += E, s += cs) std::memcpy(d, s, E);
            }
        }
    }
}

/// Copies a strided view row-major. `size` has rank >= 1 (dims of size 1 dropped, contiguous
/// neighbours merged); strides are in elements.
template <std::size_t E>
void gather(std::uint8_t* dst, const std::uint8_t* base, const std::vector<std::uint64_t>& size,
            const std::vector<std::uint64_t>& stride) {
    const std::size_t r = size.size();
    if (r == 1) return copy_2d<E>(dst, base, 1, size[0], 0, stride[0] * E);
    // The last two dims form one 2-D block; an odometer walks the dims before them.
    const std::uint64_t rows = size[r - 2], cols = size[r - 1];
    const std::uint64_t block = rows * cols * E;
    std::uint64_t idx[Shape::max_rank] = {};
    std::uint64_t off = 0;  // byte offset of the current block
    for (;;) {
        copy_2d<E>(dst, base + off, rows, cols, stride[r - 2] * E, stride[r - 1] * E);
        dst += block;
        std::size_t d = r - 2;
        for (;;) {
            if (d == 0) return;
            --d;
            off += stride[d] * E;
            if (++idx[d] < size[d]) break;
            off -= stride[d] * E * size[d];
            idx[d] = 0;
        }
    }
}

TensorData Flattener::materialize(Tensor& t) {
    Storage& st = *t.storage;
    const Bytes storage = resolve(st);
    const std::size_t e = dtype_size(t.dtype);
    const std::string key = printable(key_);
    const std::size_t rank = t.rank;
    if (rank > Shape::max_rank)
        ctx_.fail("tensor '", key, "' has ", rank, " dimensions; at most ", Shape::max_rank,
                  " are supported");
    const std::span<const std::int64_t> size(t.size.data(), rank), stride(t.stride.data(), rank);
    if (t.offset < 0) ctx_.fail("tensor '", key, "' has a negative storage offset ", t.offset);
    std::uint64_t numel = 1;
    bool overflow = false;
    for (std::size_t i = 0; i < rank; ++i) {
        if (size[i] < 0 || stride[i] < 0)
            ctx_.fail("tensor '", key, "' has size ", dims_text(size), " and stride ",
                      dims_text(stride), ": negative values are not supported");
        overflow |= mul_overflows(numel, static_cast<std::uint64_t>(size[i]), numel);
    }
    std::uint64_t nbytes = 0;
    if (overflow || mul_overflows(numel, e, nbytes))
        ctx_.fail("tensor '", key, "' of size ", dims_text(size), " has too many elements");
    const std::uint64_t available = storage.size() / e;
    const auto offset = static_cast<std::uint64_t>(t.offset);
    if (numel > 0) {
        // The last element addressed must lie inside the storage.
        std::uint64_t last = offset;
        bool too_far = false;
        for (std::size_t i = 0; i < rank; ++i) {
            std::uint64_t span = 0;
            too_far |= mul_overflows(static_cast<std::uint64_t>(size[i] - 1),
                                     static_cast<std::uint64_t>(stride[i]), span);
            too_far |= add_overflows(last, span, last);
        }
        if (too_far || last >= available)
            ctx_.fail("tensor '", key, "': storage '", printable(st.key), "' has ", available,
                      " elements but size ", dims_text(size), " with stride ", dims_text(stride),
                      " at offset ", offset, " needs ",
                      too_far ? std::string("more than 2^64") : std::to_string(last + 1));
    }
    if (nbytes > output_left_ || key_.size() > output_left_ - nbytes)
        ctx_.fail("tensor '", key, "' needs ", nbytes, " bytes, beyond the limit for the whole ",
                  "file (1 GiB + 64 times its size): a corrupt or hostile file");
    output_left_ -= nbytes + key_.size();

    Shape shape;
    for (std::int64_t d : size) shape.push_back(static_cast<std::size_t>(d));
    std::vector<std::uint8_t> bytes;
    if (numel > 0) {
        // Drop dims of size 1 and merge dims that are contiguous with the next one; what is
        // left is one run (a memcpy) or a strided gather.
        std::vector<std::uint64_t> sz, sd;
        for (std::size_t i = 0; i < rank; ++i) {
            const auto n = static_cast<std::uint64_t>(size[i]);
            const auto s = static_cast<std::uint64_t>(stride[i]);
            if (n == 1) continue;
            if (!sz.empty() && sd.back() == s * n) {
                sz.back() *= n;
                sd.back() = s;
            } else {
                sz.push_back(n);
                sd.push_back(s);
            }
        }
        const std::uint8_t* base = storage.data() + offset * e;
        bytes.reserve(static_cast<std::size_t>(nbytes));
        detail::prefault_pages(bytes.data(), bytes.capacity());
        if (sz.empty() || (sz.size() == 1 && sd[0] == 1)) {
            bytes.assign(base, base + nbytes);
        } else {
            bytes.resize(static_cast<std::size_t>(nbytes));
            switch (e) {
                case 1: gather<1>(bytes.data(), base, sz, sd); break;
                case 2: gather<2>(bytes.data(), base, sz, sd); break;
                case 4: gather<4>(bytes.data(), base, sz, sd); break;
                default: gather<8>(bytes.data(), base, sz, sd); break;
            }
        }
        if (big_endian_ && e > 1) {
            std::uint8_t* p = bytes.data();
            for (std::uint64_t i = 0; i < numel; ++i, p += e) std::reverse(p, p + e);
        }
        if (t.dtype == DType::Bool)
            for (auto& b : bytes) b = b != 0;
    }
    return TensorData(std::move(bytes), shape, t.dtype);
}

// ---------------------------------------------------------------------------- formats
Value read_zip(const Ctx& ctx, ZipArchive& zip, Arena& arena, bool& big_endian) {
    const ZipEntry* pkl = nullptr;
    for (const ZipEntry& e : zip.entries()) {
        if (!e.name.ends_with("/data.pkl")) continue;
        if (pkl)
            ctx.fail("the zip archive has several data.pkl entries ('", printable(pkl->name),
                     "' and '", printable(e.name), "')");
        pkl = &e;
    }
    if (!pkl) {
        std::string names;
        for (std::size_t i = 0; i < zip.entries().size() && i < 5; ++i)
            names += (i ? ", '" : "'") + printable(zip.entries()[i].name) + "'";
        if (zip.entries().size() > 5) names += ", ...";
        ctx.fail("a zip archive without a <folder>/data.pkl entry, so not written by ",
                 "torch.save (its entries: ", names.empty() ? "none" : names, ")");
    }
    const std::string prefix(pkl->name.substr(0, pkl->name.size() - 8));  // "archive/"
    if (const ZipEntry* bo = zip.find(prefix + "byteorder")) {
        const Bytes b = zip.data(*bo);
        const std::string_view order(reinterpret_cast<const char*>(b.data()), b.size());
        if (order == "big") big_endian = true;
        else if (order != "little")
            ctx.fail("expected 'little' or 'big' in ", prefix, "byteorder, found '",
                     printable(order), "'");
    }
    std::unordered_map<std::string_view, Storage*> storages;
    auto load = [&](const Value& pid, const Site& site) {
        const StorageId id = parse_storage_id(ctx, pid, site, 5);
        if (auto it = storages.find(id.key); it != storages.end()) {
            check_same_storage(ctx, site, *it->second, id);
            return storage_value(*it->second);
        }
        Storage& st = new_storage(arena, id);
        const std::string entry = prefix + "data/" + std::string(id.key);
        const ZipEntry* z = zip.find(entry);
        if (!z)
            ctx.fail(site.text(), ": storage '", printable(id.key), "' has no entry '",
                     printable(entry), "' in the archive");
        const Bytes data = zip.data(*z);
        std::uint64_t need = 0;
        if (mul_overflows(id.numel, st.unit(), need) || need > data.size())
            ctx.fail("storage '", printable(id.key), "' (", st.type_name, ") of ", id.numel,
                     " elements needs ", id.numel, " x ", st.unit(), " bytes, entry '",
                     printable(entry), "' has ", data.size());
        st.bytes = data.first(static_cast<std::size_t>(need));
        st.resolved = true;
        storages.emplace(id.key, &st);
        return storage_value(st);
    };
    Unpickler u(ctx, arena, zip.data(*pkl), 0, "data.pkl", load);
    return u.load();
}

/// The legacy format's magic number 0x1950a86a20f9469cfc6c, as LONG1 bytes (protocol 2 and
/// up) and as LONG text (protocols 0 and 1).
constexpr std::string_view magic_bytes = "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";
constexpr std::string_view magic_text = "119547037146038801333356";

Value read_legacy(const Ctx& ctx, Bytes bytes, Arena& arena) {
    std::size_t pos = 0;
    auto next = [&](PersistentLoad load = {}) {
        Unpickler u(ctx, arena, bytes, pos, "", std::move(load));
        Value v = u.load();
        pos = u.position();
        return v;
    };
    const Value m = next();
    if (m.kind != Kind::BigInt || m.s != (m.i ? magic_text : magic_bytes))
        ctx.fail("a pickle whose first object is ", describe(m), ", not the magic number of ",
                 "torch.save's legacy format: not a PyTorch file");
    const Value version = next();
    if (version.kind != Kind::Int || version.i != 1001)
        ctx.fail("expected the legacy format's protocol version 1001, found ", describe(version),
                 version.kind == Kind::Int ? " " + std::to_string(version.i) : "");
    const Value sys_info = next();
    if (sys_info.kind != Kind::Dict)
        ctx.fail("expected the legacy format's sys_info dict, found ", describe(sys_info));
    if (const Value* le = sys_info.dict().get("little_endian");
        le && le->kind == Kind::Bool && !le->i)
        ctx.fail(
            "the file was written on a big-endian machine in the legacy format, which is not "
            "supported; re-save it with a current torch.save");

    std::unordered_map<std::string_view, Storage*> roots, views;
    auto load = [&](const Value& pid, const Site& site) {
        const StorageId id = parse_storage_id(ctx, pid, site, 6);
        Storage* root;
        if (auto it = roots.find(id.key); it != roots.end()) {
            check_same_storage(ctx, site, *it->second, id);
            root = it->second;
        } else {
            root = &new_storage(arena, id);
            roots.emplace(id.key, root);
        }
        if (id.view->kind == Kind::None) return storage_value(*root);
        // (view_key, offset, size): a slice of the root storage, in elements.
        const Value& vm = *id.view;
        if (vm.kind != Kind::Tuple || vm.seq().items.size() != 3 ||
            vm.seq().items[0].kind != Kind::Str || vm.seq().items[1].kind != Kind::Int ||
            vm.seq().items[2].kind != Kind::Int || vm.seq().items[1].i < 0 ||
            vm.seq().items[2].i < 0)
            ctx.fail(site.text(), ": a storage view must be (key, offset, size) with ",
                     "non-negative ints, found ", describe(vm));
        const auto& f = vm.seq().items;
        if (auto it = views.find(f[0].s); it != views.end()) return storage_value(*it->second);
        Storage& view = arena.storages.emplace_back(*root);
        view.key = f[0].s;
        view.root = root;
        view.view_offset = static_cast<std::uint64_t>(f[1].i);
        view.numel = static_cast<std::uint64_t>(f[2].i);
        views.emplace(view.key, &view);
        return storage_value(view);
    };
    const Value root = next(load);
    const Value keys = next();
    if (keys.kind != Kind::List && keys.kind != Kind::Tuple)
        ctx.fail("expected the list of storage keys after the pickle, found ", describe(keys));
    for (const Value& k : keys.seq().items) {
        if (k.kind != Kind::Str) ctx.fail("a storage key must be a string, found ", describe(k));
        auto it = roots.find(k.s);
        if (it == roots.end())
            ctx.fail("storage '", printable(k.s),
                     "' is listed after the pickle but not used by it");
        Storage& st = *it->second;
        if (st.resolved) ctx.fail("storage '", printable(k.s), "' is listed twice");
        if (bytes.size() - pos < 8)
            ctx.fail("truncated: the data of storage '", printable(k.s), "' should start at byte ",
                     pos, " but the file has ", bytes.size(), " bytes");
        const std::uint64_t count = le64(bytes.data() + pos);
        pos += 8;
        if (count != st.numel)
            ctx.fail("storage '", printable(k.s), "' at byte ", pos - 8, " holds ",
                     static_cast<std::int64_t>(count), " elements, its persistent id says ",
                     st.numel);
        std::uint64_t n = 0;
        if (mul_overflows(count, st.unit(), n) || n > bytes.size() - pos)
            ctx.fail("truncated: storage '", printable(k.s), "' (", count, " x ", st.unit(),
                     " bytes at byte ", pos, ") overruns the file (", bytes.size(), " bytes)");
        st.bytes = bytes.subspan(pos, static_cast<std::size_t>(n));
        st.resolved = true;
        pos += static_cast<std::size_t>(n);
    }
    return root;
}

StateDict read(Bytes bytes, std::string_view top_level_key, const Ctx& ctx, bool is_file) {
    Arena arena;
    std::optional<ZipArchive> zip;  // inflated entries live as long as the tensors are copied
    bool big_endian = false;
    Value root;
    auto starts = [&](std::string_view s, std::size_t at = 0) {
        return bytes.size() >= at + s.size() &&
               std::memcmp(bytes.data() + at, s.data(), s.size()) == 0;
    };
    if (starts("PK\x03\x04") || starts("PK\x05\x06")) {
        zip.emplace(bytes, ctx);
        root = read_zip(ctx, *zip, arena, big_endian);
    } else if (starts("ustar", 257)) {
        ctx.fail(
            "a tar archive: the format of PyTorch before 0.4, which is not supported; load "
            "it with an old torch and re-save it with a current torch.save");
    } else if (starts("\x80") || starts("L" + std::string(magic_text) + "L\n")) {
        root = read_legacy(ctx, bytes, arena);
    } else {
        std::string found;
        if (bytes.size() >= 9 && bytes[8] == '{')
            found = "what looks like a safetensors file (use read_safetensors_file)";
        else
            found = detail::describe_prefix(bytes.first(std::min<std::size_t>(bytes.size(), 16)),
                                            is_file);
        ctx.fail("expected a PyTorch file (a zip archive or a legacy torch.save pickle), found ",
                 found);
    }
    if (root.kind != Kind::Dict) ctx.fail("expected a dict (a state_dict), found ", describe(root));
    const Value* dict = &root;
    if (!top_level_key.empty()) {
        dict = root.dict().get(top_level_key);
        if (!dict) {
            std::string keys;
            const auto& items = root.dict().items;
            for (std::size_t i = 0; i < items.size() && i < 20; ++i) {
                if (i) keys += ", ";
                const Value& k = items[i].first;
                keys += k.kind == Kind::Str   ? "'" + printable(k.s) + "'"
                        : k.kind == Kind::Int ? std::to_string(k.i)
                                              : describe(k);
            }
            if (items.size() > 20) keys += ", ... (" + std::to_string(items.size()) + " keys)";
            ctx.fail("no key '", printable(top_level_key), "' in the file's dict; its keys are ",
                     items.empty() ? "none" : keys);
        }
        if (dict->kind != Kind::Dict)
            ctx.fail("'", printable(top_level_key), "' holds ", describe(*dict),
                     ", expected a dict (a state_dict)");
    }
    return Flattener(ctx, bytes.size(), big_endian).run(*dict);
}

}  // namespace

StateDict read_pytorch_file(const std::filesystem::path& path, std::string_view top_level_key) {
    const Ctx ctx(path.string());
    const detail::Context io{"read_pytorch_file", "load", path.string()};
    std::optional<detail::MappedFile> file;
    try {
        file.emplace(path, io);
    } catch (const Error& e) {
        // Re-prefix the I/O error ("cannot open the file: ...") the way this reader's are.
        std::string_view m = e.what();
        const std::string p = "read_pytorch_file::load: " + path.string() + ": ";
        if (m.starts_with(p)) m.remove_prefix(p.size());
        ctx.fail(m);
    }
    return read(file->bytes(), top_level_key, ctx, true);
}

StateDict read_pytorch_bytes(std::span<const std::uint8_t> bytes, std::string_view top_level_key,
                             std::string_view name) {
    return read(bytes, top_level_key, Ctx(std::string(name)), false);
}

}  // namespace burn::record

// SPDX-License-Identifier: MIT OR Apache-2.0
// The safetensors format (read_safetensors_*, safetensors_to_bytes, write_safetensors_file):
//
//   u64 N (little-endian) | N bytes of JSON | the data buffer
//   {"__metadata__": {str: str, ...},
//    NAME: {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]}, ...}
//
// with offsets relative to the start of the data buffer. The header is read with nlohmann's SAX
// interface rather than into a DOM: a DOM keeps only the last of duplicate keys (safetensors
// names must be unique), an ordered DOM inserts in quadratic time, and events give the tensors in
// the order the header lists them, which is the order returned. Tensors are written back to back
// in the order given, "__metadata__" first.
#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "burn/record/state_dict.hpp"
#include "record_io.hpp"

namespace burn::record {

namespace {

using detail::Context;
using detail::Sink;

/// The reference implementation's bound: a larger header is corrupt or hostile.
constexpr std::uint64_t max_header_size = 100'000'000;
constexpr std::string_view metadata_key = "__metadata__";

struct DTypeName {
    std::string_view name;
    DType dtype;
};
constexpr DTypeName dtype_names[] = {
    {"F64", DType::F64}, {"F32", DType::F32},   {"F16", DType::F16}, {"BF16", DType::BF16},
    {"I64", DType::I64}, {"I32", DType::I32},   {"I16", DType::I16}, {"I8", DType::I8},
    {"U8", DType::U8},   {"BOOL", DType::Bool},
};
constexpr std::string_view supported_dtypes = "F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL";

std::optional<DType> st_dtype(std::string_view s) {
    for (const auto& d : dtype_names)
        if (d.name == s) return d.dtype;
    return std::nullopt;
}

std::string_view st_dtype_name(DType d) {
    for (const auto& n : dtype_names)
        if (n.dtype == d) return n.name;
    return {};
}

/// `"name"` for messages; hostile names can be megabytes long.
std::string shown(std::string_view s) {
    constexpr std::size_t max_shown = 200;
    if (s.size() <= max_shown) return '"' + std::string(s) + '"';
    return '"' + std::string(s.substr(0, max_shown)) + "\"... (" + std::to_string(s.size()) +
           " bytes)";
}

/// Error prefix "<op>: <source>: " (no source: "<op>: "). Context prints "<recorder>::<op>: ",
/// which suits the recorders, not these free functions.
struct Where {
    std::string_view op;
    std::string_view source;

    template <class... Args>
    [[noreturn]] void fail(const Args&... args) const {
        if (source.empty()) ::burn::detail::fail(op, ": ", args...);
        ::burn::detail::fail(op, ": ", source, ": ", args...);
    }
};

/// Runs `f`, which reports through `ctx` (MappedFile, write_file_atomically), giving its errors
/// the prefix of `where` instead of the Context's.
template <class F>
decltype(auto) with_prefix(const Context& ctx, const Where& where, F&& f) {
    try {
        return f();
    } catch (const Error& e) {
        const std::string ctx_prefix =
            std::string(ctx.recorder) + "::" + std::string(ctx.op) + ": " + ctx.source + ": ";
        const std::string_view msg = e.what();
        if (msg.starts_with(ctx_prefix)) where.fail(msg.substr(ctx_prefix.size()));
        throw;
    }
}

/// Product of `dims` times `elem_size`, or nothing on overflow. The product of the non-zero
/// dims must fit even when a zero dim makes it 0: code downstream multiplies partial products
/// (strides) of the shape.
std::optional<std::uint64_t> checked_bytes(std::span<const std::size_t> dims,
                                           std::uint64_t elem_size) {
    std::uint64_t n = elem_size;
    bool zero = false;
    for (std::uint64_t d : dims) {
        if (d == 0) {
            zero = true;
            continue;
        }
        if (n > std::numeric_limits<std::uint64_t>::max() / d) return std::nullopt;
        n *= d;
    }
    return zero ? 0 : n;
}

/// Index of the first BOOL byte that is neither 0 nor 1, if any.
std::optional<std::size_t> bad_bool(std::span<const std::uint8_t> bytes) {
    for (std::size_t i = 0; i < bytes.size(); ++i)
        if (bytes[i] > 1) return i;
    return std::nullopt;
}

// ---------------------------------------------------------------------------- reading
/// One tensor of the header, validated against the data buffer.
struct Entry {
    std::string name;
    DType dtype = DType::F32;
    Shape shape;
    std::uint64_t begin = 0, end = 0;
};

/// The header's SAX events, checked as they come. Errors throw burn::Error straight through
/// the parser (it holds nothing but RAII state). The accepted nesting is at most three levels
/// deep, so hostile nesting fails at its first unexpected container.
class HeaderParser final : public nlohmann::json_sax<nlohmann::json> {
public:
    HeaderParser(const Where& where, std::uint64_t buffer_size)
        : where_(where), buffer_size_(buffer_size) {}

    std::vector<Entry> entries;
    SafetensorsMetadata metadata;
    /// The parser's message on a syntax error (sax_parse then returns false).
    std::string syntax_error;

    bool null() override { return value("null"); }
    bool boolean(bool) override { return value("a boolean"); }
    bool number_integer(number_integer_t v) override {
        // "-0" is 0; anything else negative is refused.
        if (state_ == State::Array && v == 0) return number(0);
        return value("a negative number");
    }
    bool number_unsigned(number_unsigned_t v) override {
        if (state_ == State::Array) return number(v);
        return value("a number");
    }
    bool number_float(number_float_t, const string_t&) override {
        return value("a number with a fraction or an exponent");
    }
    bool binary(binary_t&) override { return value("binary data"); }

    bool string(string_t& s) override {
        if (state_ == State::Metadata) {
            metadata.emplace_back(std::move(meta_key_), std::move(s));
            return true;
        }
        if (state_ == State::Tensor && field_ == Field::DType) {
            const auto d = st_dtype(s);
            if (!d)
                tensor_fail("unsupported dtype ", shown(s), " (burn reads ", supported_dtypes, ")");
            cur_.dtype = *d;
            return true;
        }
        return value("a string");
    }

    bool start_object(std::size_t) override {
        if (state_ == State::Start) {
            state_ = State::Root;
            return true;
        }
        if (state_ == State::Root && root_key_ == metadata_key) {
            state_ = State::Metadata;
            return true;
        }
        if (state_ == State::Root) {
            state_ = State::Tensor;
            cur_ = Entry{};
            cur_.name = std::move(root_key_);
            seen_ = 0;
            return true;
        }
        return value("an object");
    }

    bool key(string_t& k) override {
        switch (state_) {
            case State::Root:
                if (k.empty()) where_.fail("a tensor has an empty name");
                if (!names_.insert(k).second) where_.fail("duplicate key ", shown(k));
                root_key_ = std::move(k);
                return true;
            case State::Metadata:
                if (!meta_keys_.insert(k).second)
                    where_.fail("\"__metadata__\": duplicate key ", shown(k));
                meta_key_ = std::move(k);
                return true;
            case State::Tensor: {
                Field f;
                if (k == "dtype") f = Field::DType;
                else if (k == "shape") f = Field::Shape;
                else if (k == "data_offsets") f = Field::Offsets;
                else
                    tensor_fail("unexpected field ", shown(k),
                                " (expected \"dtype\", \"shape\" and \"data_offsets\")");
                const unsigned bit = 1u << unsigned(f);
                if (seen_ & bit) tensor_fail("duplicate field ", shown(k));
                seen_ |= bit;
                field_ = f;
                return true;
            }
            default: return true;  // keys only occur in objects, whose start was checked
        }
    }

    bool end_object() override {
        if (state_ == State::Metadata) {
            state_ = State::Root;
        } else if (state_ == State::Tensor) {
            finish_tensor();
            state_ = State::Root;
        } else {
            state_ = State::Done;
        }
        return true;
    }

    bool start_array(std::size_t) override {
        if (state_ == State::Tensor && (field_ == Field::Shape || field_ == Field::Offsets)) {
            state_ = State::Array;
            nums_.clear();
            return true;
        }
        return value("an array");
    }

    bool end_array() override {
        // Only reached in State::Array: start_array refuses every other array.
        if (field_ == Field::Shape) {
            if (nums_.size() > Shape::max_rank)
                tensor_fail("\"shape\" has ", nums_.size(), " dimensions (burn supports at most ",
                            Shape::max_rank, ")");
            cur_.shape = Shape{};
            for (std::uint64_t d : nums_) cur_.shape.push_back(static_cast<std::size_t>(d));
        } else {
            if (nums_.size() != 2)
                tensor_fail("\"data_offsets\" holds ", nums_.size(),
                            " number(s), expected 2 ([begin, end])");
            cur_.begin = nums_[0];
            cur_.end = nums_[1];
        }
        state_ = State::Tensor;
        return true;
    }

    bool parse_error(std::size_t, const std::string&,
                     const nlohmann::detail::exception& e) override {
        // "[json.exception.parse_error.101] parse error at line 1, ...": drop the tag.
        std::string_view msg = e.what();
        if (const auto p = msg.find("] "); p != std::string_view::npos) msg.remove_prefix(p + 2);
        syntax_error = msg;
        return false;
    }

private:
    enum class State { Start, Root, Metadata, Tensor, Array, Done };
    enum class Field : unsigned { DType, Shape, Offsets };

    template <class... Args>
    [[noreturn]] void tensor_fail(const Args&... args) const {
        where_.fail("tensor ", shown(cur_.name), ": ", args...);
    }

    bool number(std::uint64_t v) {
        nums_.push_back(v);
        return true;
    }

    /// A value that is not where the format allows it: says what was expected there.
    [[noreturn]] bool value(std::string_view found) {
        switch (state_) {
            case State::Start: where_.fail("the header is not a JSON object (found ", found, ")");
            case State::Root:
                if (root_key_ == metadata_key)
                    where_.fail("\"__metadata__\" must be an object of strings, found ", found);
                where_.fail("tensor ", shown(root_key_),
                            ": expected an object {\"dtype\", \"shape\", \"data_offsets\"}, found ",
                            found);
            case State::Metadata:
                where_.fail("\"__metadata__\": the value of ", shown(meta_key_),
                            " must be a string, found ", found);
            case State::Tensor:
                if (field_ == Field::DType)
                    tensor_fail("\"dtype\" must be a string, found ", found);
                if (field_ == Field::Shape)
                    tensor_fail("\"shape\" must be an array of non-negative integers, found ",
                                found);
                tensor_fail("\"data_offsets\" must be [begin, end], found ", found);
            case State::Array:
                tensor_fail(field_ == Field::Shape ? "\"shape\"" : "\"data_offsets\"",
                            " must hold non-negative integers, found ", found);
            case State::Done: break;
        }
        where_.fail("unexpected ", found, " after the header object");
    }

    void finish_tensor() {
        constexpr const char* names[] = {"\"dtype\"", "\"shape\"", "\"data_offsets\""};
        for (unsigned f = 0; f < 3; ++f)
            if (!(seen_ & (1u << f))) tensor_fail("missing ", names[f]);
        const auto nbytes = checked_bytes(cur_.shape.dims(), dtype_size(cur_.dtype));
        if (!nbytes) tensor_fail("shape ", cur_.shape, " is too large");
        if (cur_.begin > cur_.end)
            tensor_fail("data_offsets [", cur_.begin, ", ", cur_.end, "] end before they begin");
        if (cur_.end > buffer_size_)
            tensor_fail("data_offsets [", cur_.begin, ", ", cur_.end, "] exceed the ", buffer_size_,
                        "-byte data buffer (truncated file?)");
        if (cur_.end - cur_.begin != *nbytes)
            tensor_fail("data_offsets [", cur_.begin, ", ", cur_.end, "] hold ",
                        cur_.end - cur_.begin, " bytes, but shape ", cur_.shape, " of ",
                        st_dtype_name(cur_.dtype), " needs ", *nbytes);
        entries.push_back(std::move(cur_));
    }

    const Where& where_;
    const std::uint64_t buffer_size_;
    State state_ = State::Start;
    Field field_ = Field::DType;
    unsigned seen_ = 0;  ///< fields of the current tensor, one bit per Field
    std::string root_key_, meta_key_;
    Entry cur_;
    std::vector<std::uint64_t> nums_;
    std::unordered_set<std::string> names_, meta_keys_;
};

Safetensors decode(std::span<const std::uint8_t> bytes, const Where& where) {
    if (bytes.size() < 8) where.fail("too short for a safetensors file: ", bytes.size(), " bytes");
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[std::size_t(i)];
    const std::uint64_t after = bytes.size() - 8;
    if (n > after)
        where.fail("header length ", n, " exceeds the ", after,
                   " bytes after it (truncated, or not a safetensors file)");
    if (n > max_header_size)
        where.fail("header length ", n, " exceeds the limit of ", max_header_size, " bytes");
    const auto header = bytes.subspan(8, std::size_t(n));
    const auto buffer = bytes.subspan(8 + std::size_t(n));

    HeaderParser parser(where, buffer.size());
    if (!nlohmann::json::sax_parse(header.begin(), header.end(), &parser))
        where.fail("the header is not valid JSON: ", parser.syntax_error);

    // Overlaps: sorted by (begin, end), each non-empty range must start at or after the end of
    // the previous one. Empty tensors have no bytes to share.
    std::vector<const Entry*> order;
    order.reserve(parser.entries.size());
    for (const auto& e : parser.entries)
        if (e.begin != e.end) order.push_back(&e);
    std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    for (std::size_t i = 1; i < order.size(); ++i) {
        const Entry& a = *order[i - 1];
        const Entry& b = *order[i];
        if (b.begin < a.end)
            where.fail("tensors ", shown(a.name), " (data_offsets [", a.begin, ", ", a.end,
                       "]) and ", shown(b.name), " ([", b.begin, ", ", b.end, "]) overlap");
    }

    Safetensors out;
    out.metadata = std::move(parser.metadata);
    out.tensors.reserve(parser.entries.size());
    for (auto& e : parser.entries) {
        const auto src = buffer.subspan(std::size_t(e.begin), std::size_t(e.end - e.begin));
        if (e.dtype == DType::Bool)
            if (const auto i = bad_bool(src))
                where.fail("tensor ", shown(e.name), ": BOOL byte ", *i, " is ", int(src[*i]),
                           " (expected 0 or 1)");
        std::vector<std::uint8_t> bytes;
        bytes.reserve(src.size());
        detail::prefault_pages(bytes.data(), bytes.capacity());
        bytes.assign(src.begin(), src.end());
        TensorData data(std::move(bytes), e.shape, e.dtype);
        out.tensors.push_back(NamedTensor{std::move(e.name), std::move(data)});
    }
    return out;
}

// ---------------------------------------------------------------------------- writing
/// Appends the JSON string literal of `s`; `label` and `name` say what it is if it is not UTF-8.
void append_json_string(std::string& out, std::string_view s, const Where& where,
                        std::string_view label, std::string_view name) {
    try {
        out += nlohmann::json(s).dump();
    } catch (const nlohmann::json::exception&) {
        where.fail(label, shown(name), " is not valid UTF-8 (safetensors headers are JSON)");
    }
}

/// The padded header of `tensors` laid out back to back in their order; checks everything
/// the file needs, so that nothing fails once writing has begun.
std::string make_header(const StateDict& tensors, const SafetensorsMetadata& metadata,
                        const Where& where) {
    std::string h = "{";
    if (!metadata.empty()) {
        h += "\"__metadata__\":{";
        std::unordered_set<std::string_view> keys;
        for (std::size_t i = 0; i < metadata.size(); ++i) {
            const auto& [k, v] = metadata[i];
            if (!keys.insert(k).second) where.fail("duplicate metadata key ", shown(k));
            if (i) h += ',';
            append_json_string(h, k, where, "metadata key ", k);
            h += ':';
            append_json_string(h, v, where, "the metadata value of ", k);
        }
        h += '}';
    }
    std::unordered_set<std::string_view> names;
    names.reserve(tensors.size());
    std::uint64_t offset = 0;
    for (const auto& [key, data] : tensors) {
        if (key.empty()) where.fail("a tensor has an empty key");
        if (key == metadata_key)
            where.fail("a tensor cannot be named \"__metadata__\" (the metadata's key)");
        if (!names.insert(key).second) where.fail("duplicate key ", shown(key));
        if (data.is_quantized() || data.dtype == DType::QInt8)
            where.fail("tensor ", shown(key), " is quantized (", dtype_name(data.dtype),
                       "); safetensors holds no quantization parameters: dequantize it first");
        const auto nbytes = checked_bytes(data.shape.dims(), dtype_size(data.dtype));
        if (!nbytes || *nbytes != data.bytes().size())
            where.fail("tensor ", shown(key), ": ", data.bytes().size(),
                       " bytes do not hold shape ", data.shape, " of ", dtype_name(data.dtype));
        if (data.dtype == DType::Bool)
            if (const auto i = bad_bool(data.bytes()))
                where.fail("tensor ", shown(key), ": bool byte ", *i, " is ", int(data.bytes()[*i]),
                           " (expected 0 or 1)");
        if (h.size() > 1) h += ',';
        append_json_string(h, key, where, "tensor key ", key);
        h += ":{\"dtype\":\"";
        h += st_dtype_name(data.dtype);
        h += "\",\"shape\":[";
        for (std::size_t i = 0; i < data.shape.rank(); ++i) {
            if (i) h += ',';
            h += std::to_string(data.shape[i]);
        }
        h += "],\"data_offsets\":[";
        h += std::to_string(offset);
        h += ',';
        offset += *nbytes;
        h += std::to_string(offset);
        h += "]}";
    }
    h += '}';
    // Spaces up to a multiple of 8 for 8 + N: the data buffer then starts 8-byte aligned.
    h.append((8 - h.size() % 8) % 8, ' ');
    if (h.size() > max_header_size)
        where.fail("the header would be ", h.size(), " bytes, over the ", max_header_size,
                   "-byte limit of safetensors readers");
    return h;
}

void write_all(const std::string& header, const StateDict& tensors, Sink& out) {
    std::uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = std::uint8_t(std::uint64_t(header.size()) >> (8 * i));
    out.write(len, 8);
    out.write(header.data(), header.size());
    for (const auto& t : tensors) out.write(t.data.bytes());
}

}  // namespace

Safetensors read_safetensors_file(const std::filesystem::path& path) {
    const std::string name = path.string();
    const Where where{"read_safetensors_file", name};
    const Context ctx{"read_safetensors_file", "load", name};
    return with_prefix(ctx, where, [&] {
        const detail::MappedFile file(path, ctx);
        return decode(file.bytes(), where);
    });
}

Safetensors read_safetensors_bytes(std::span<const std::uint8_t> bytes, std::string_view name) {
    return decode(bytes, Where{"read_safetensors_file", name});
}

std::vector<std::uint8_t> safetensors_to_bytes(const StateDict& tensors,
                                               const SafetensorsMetadata& metadata) {
    const Where where{"safetensors_to_bytes", {}};
    const std::string header = make_header(tensors, metadata, where);
    std::size_t total = 8 + header.size();
    for (const auto& t : tensors) total += t.data.bytes().size();
    std::vector<std::uint8_t> out;
    out.reserve(total);
    detail::VectorSink sink(out);
    write_all(header, tensors, sink);
    return out;
}

void write_safetensors_file(const std::filesystem::path& path, const StateDict& tensors,
                            const SafetensorsMetadata& metadata) {
    const std::string name = path.string();
    const Where where{"write_safetensors_file", name};
    if (path.filename().empty()) where.fail("the path names a directory, not a file");
    const std::string header = make_header(tensors, metadata, where);
    const Context ctx{"write_safetensors_file", "write", name};
    with_prefix(ctx, where, [&] {
        detail::write_file_atomically(path, ctx,
                                      [&](Sink& sink) { write_all(header, tensors, sink); });
    });
}

}  // namespace burn::record

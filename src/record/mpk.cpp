// SPDX-License-Identifier: MIT OR Apache-2.0
// The NamedMpk format: a record as MessagePack (msgpack-c), readable by any MessagePack tool.
//
//   {"burn_record": {"format": "NamedMpk", "version": 1, "precision": "full",
//                    "float": "f32", "int": "i32"},
//    "item": ITEM}
//   ITEM: nil | float64 | int | bool | str | array of ITEM | map of str -> ITEM
//       | tensor {"shape": [uint...], "dtype": str, "bytes": bin, "id": str (16 hex digits),
//                 "quant": {"scheme": str, "axis": uint, "scales": bin f32, "offsets": bin i32}}
//
// A map whose "bytes" value is binary is a tensor (records have no other binary values). Tensor
// bytes are packed with one copy from the TensorData into the sink and unpacked without copying
// (the msgpack object refers to the input buffer) into the new TensorData.
#define MSGPACK_NO_BOOST
#include <bit>
#include <cstring>
#include <limits>
#include <msgpack.hpp>
#include <string>

#include "record_io.hpp"

namespace burn::record::detail {

static_assert(std::endian::native == std::endian::little,
              "NamedMpk copies little-endian tensor bytes as they are in memory");

namespace {

constexpr char header_key[] = "burn_record";

/// msgpack-c's stream concept over our Sink.
struct PackStream {
    Sink* sink;
    void write(const char* p, std::size_t n) { sink->write(p, n); }
};

class Packer {
public:
    Packer(const RecorderSpec& spec, const Context& ctx, Sink& out)
        : spec_(spec), ctx_(ctx), stream_{&out}, pk_(stream_) {}

    void str(std::string_view s) {
        check_size(s.size(), "a string");
        pk_.pack_str(static_cast<std::uint32_t>(s.size()));
        pk_.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
    }
    void bin(const void* p, std::size_t n, std::string_view path) {
        if (n > std::numeric_limits<std::uint32_t>::max())
            ctx_.fail(path, ": ", n,
                      " bytes do not fit a MessagePack bin (at most 4 GiB); use "
                      "BinFileRecorder for tensors this large");
        pk_.pack_bin(static_cast<std::uint32_t>(n));
        pk_.pack_bin_body(static_cast<const char*>(p), static_cast<std::uint32_t>(n));
    }

    void header() {
        pk_.pack_map(2);
        str(header_key);
        pk_.pack_map(5);
        str("format");
        str(format_name(RecordFormat::NamedMpk));
        str("version");
        pk_.pack_uint64(format_version);
        str("precision");
        str(spec_.precision);
        str("float");
        str(dtype_name(spec_.float_dtype));
        str("int");
        str(dtype_name(spec_.int_dtype));
        str("item");
    }

    void item(const Record& r, const std::string& path, std::size_t depth) {
        if (depth > max_record_depth)
            ctx_.fail(path, ": records nest deeper than ", max_record_depth, " levels");
        std::visit(
            [&](const auto& v) {
                using V = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<V, Record::None>) {
                    pk_.pack_nil();
                } else if constexpr (std::is_same_v<V, TensorItem>) {
                    tensor(v, path);
                } else if constexpr (std::is_same_v<V, double>) {
                    float64(v);
                } else if constexpr (std::is_same_v<V, std::int64_t>) {
                    pk_.pack_int64(v);
                } else if constexpr (std::is_same_v<V, bool>) {
                    if (v) pk_.pack_true();
                    else pk_.pack_false();
                } else if constexpr (std::is_same_v<V, std::string>) {
                    str(v);
                } else if constexpr (std::is_same_v<V, Record::List>) {
                    check_size(v.size(), "a list");
                    pk_.pack_array(static_cast<std::uint32_t>(v.size()));
                    for (std::size_t i = 0; i < v.size(); ++i)
                        item(v[i], Record::join(path, std::to_string(i)), depth + 1);
                } else {
                    check_size(v.size(), "a map");
                    pk_.pack_map(static_cast<std::uint32_t>(v.size()));
                    for (const auto& [k, x] : v) {
                        str(k);
                        item(x, Record::join(path, k), depth + 1);
                    }
                }
            },
            r.value());
    }

private:
    /// Always a float 64 (msgpack-c's pack_double turns integral values, -0.0 included, into
    /// integers, which would load as ints).
    void float64(double v) {
        const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
        char buf[9];
        buf[0] = static_cast<char>(0xcb);
        for (int i = 0; i < 8; ++i) buf[1 + i] = static_cast<char>(bits >> (56 - 8 * i));
        stream_.write(buf, sizeof(buf));
    }

    void check_size(std::size_t n, std::string_view what) {
        if (n > std::numeric_limits<std::uint32_t>::max())
            ctx_.fail(what, " of ", n, " entries does not fit MessagePack (at most 2^32 - 1)");
    }

    void tensor(const TensorItem& t, const std::string& path) {
        std::optional<TensorData> scratch;
        const TensorData& d = saved_form(t.data, spec_, path, ctx_, scratch);
        const auto& q = d.quantization();
        pk_.pack_map(q ? 5 : 4);
        str("shape");
        pk_.pack_array(static_cast<std::uint32_t>(d.rank()));
        for (std::size_t dim : d.shape.dims()) pk_.pack_uint64(dim);
        str("dtype");
        str(dtype_name(d.dtype));
        str("bytes");
        bin(d.bytes().data(), d.bytes().size(), path);
        str("id");
        str(t.id.to_string());
        if (q) {
            str("quant");
            pk_.pack_map(4);
            str("scheme");
            str(qscheme_name(q->scheme));
            str("axis");
            pk_.pack_uint64(q->scheme.axis);
            str("scales");
            bin(q->scales.data(), 4 * q->scales.size(), path);
            str("offsets");
            bin(q->offsets.data(), 4 * q->offsets.size(), path);
        }
    }

    const RecorderSpec& spec_;
    const Context& ctx_;
    PackStream stream_;
    msgpack::packer<PackStream> pk_;
};

// ---------------------------------------------------------------------------- reading
using msgpack::type::object_type;

std::string_view as_sv(const msgpack::object& o) { return {o.via.str.ptr, o.via.str.size}; }

const char* type_text(const msgpack::object& o) {
    switch (o.type) {
        case object_type::NIL: return "nil";
        case object_type::BOOLEAN: return "a bool";
        case object_type::POSITIVE_INTEGER:
        case object_type::NEGATIVE_INTEGER: return "an integer";
        case object_type::FLOAT32:
        case object_type::FLOAT64: return "a float";
        case object_type::STR: return "a string";
        case object_type::BIN: return "binary data";
        case object_type::ARRAY: return "an array";
        case object_type::MAP: return "a map";
        default: return "an extension value";
    }
}

/// The value of key `name` in a map object, or nullptr.
const msgpack::object* find(const msgpack::object& map, std::string_view name) {
    for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
        const auto& kv = map.via.map.ptr[i];
        if (kv.key.type == object_type::STR && as_sv(kv.key) == name) return &kv.val;
    }
    return nullptr;
}

class Unpacker {
public:
    explicit Unpacker(const Context& ctx) : ctx_(ctx) {}

    const msgpack::object& need(const msgpack::object& map, std::string_view name, object_type type,
                                std::string_view path) {
        const msgpack::object* v = find(map, name);
        if (!v) ctx_.fail(where(path), ": corrupt record: no \"", name, "\" field");
        if (v->type != type)
            ctx_.fail(where(path), ": corrupt record: \"", name, "\" is ", type_text(*v));
        return *v;
    }

    Record item(const msgpack::object& o, const std::string& path, std::size_t depth) {
        if (depth > max_record_depth)
            ctx_.fail(where(path), ": records nest deeper than ", max_record_depth, " levels");
        switch (o.type) {
            case object_type::NIL: return Record{};
            case object_type::BOOLEAN: return Record(o.via.boolean);
            case object_type::POSITIVE_INTEGER:
                if (o.via.u64 > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
                    ctx_.fail(where(path), ": integer ", o.via.u64, " is out of the i64 range");
                return Record(static_cast<std::int64_t>(o.via.u64));
            case object_type::NEGATIVE_INTEGER: return Record(static_cast<std::int64_t>(o.via.i64));
            case object_type::FLOAT32:
            case object_type::FLOAT64: return Record(o.via.f64);
            case object_type::STR: return Record(std::string(as_sv(o)));
            case object_type::ARRAY: {
                Record::List list;
                list.reserve(o.via.array.size);
                for (std::uint32_t i = 0; i < o.via.array.size; ++i)
                    list.push_back(
                        item(o.via.array.ptr[i], Record::join(path, std::to_string(i)), depth + 1));
                return Record(std::move(list));
            }
            case object_type::MAP: {
                if (const auto* b = find(o, "bytes"); b && b->type == object_type::BIN)
                    return tensor(o, path);
                Record::Map map;
                map.reserve(o.via.map.size);
                for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
                    const auto& kv = o.via.map.ptr[i];
                    if (kv.key.type != object_type::STR)
                        ctx_.fail(where(path), ": corrupt record: a map key is ", type_text(kv.key),
                                  ", not a string");
                    std::string key(as_sv(kv.key));
                    std::string sub = Record::join(path, key);
                    Record value = item(kv.val, sub, depth + 1);
                    map.emplace_back(std::move(key), std::move(value));
                }
                return Record(std::move(map));
            }
            default: ctx_.fail(where(path), ": corrupt record: unexpected ", type_text(o));
        }
    }

private:
    static std::string where(std::string_view path) {
        return path.empty() ? std::string("record") : std::string(path);
    }

    template <class T>
    std::vector<T> bin_array(const msgpack::object& o, std::string_view path,
                             std::string_view what) {
        if (o.via.bin.size % sizeof(T) != 0)
            ctx_.fail(where(path), ": corrupt record: ", what, " has ", o.via.bin.size,
                      " bytes, not a multiple of ", sizeof(T));
        std::vector<T> v(o.via.bin.size / sizeof(T));
        if (!v.empty()) std::memcpy(v.data(), o.via.bin.ptr, o.via.bin.size);
        return v;
    }

    Record tensor(const msgpack::object& o, const std::string& path) {
        const std::string w = where(path);
        const auto& shape_o = need(o, "shape", object_type::ARRAY, path);
        const auto& dtype_o = need(o, "dtype", object_type::STR, path);
        const auto& bytes_o = need(o, "bytes", object_type::BIN, path);
        const auto& id_o = need(o, "id", object_type::STR, path);
        const auto dtype = dtype_from_name(as_sv(dtype_o));
        if (!dtype) ctx_.fail(w, ": corrupt record: unknown dtype \"", as_sv(dtype_o), "\"");
        if (shape_o.via.array.size > Shape::max_rank)
            ctx_.fail(w, ": tensor of rank ", shape_o.via.array.size, " (at most ", Shape::max_rank,
                      " is supported)");
        std::uint64_t dims[Shape::max_rank];
        for (std::uint32_t i = 0; i < shape_o.via.array.size; ++i) {
            const auto& d = shape_o.via.array.ptr[i];
            if (d.type != object_type::POSITIVE_INTEGER)
                ctx_.fail(w, ": corrupt record: a shape entry is ", type_text(d));
            dims[i] = d.via.u64;
        }
        const std::size_t numel = checked_num_elements(ctx_, w, {dims, shape_o.via.array.size});
        Shape shape;
        for (std::uint32_t i = 0; i < shape_o.via.array.size; ++i)
            shape.push_back(static_cast<std::size_t>(dims[i]));
        if (bytes_o.via.bin.size != numel * dtype_size(*dtype))
            ctx_.fail(w, ": corrupt record: ", bytes_o.via.bin.size, " bytes for shape ", shape,
                      " of ", dtype_name(*dtype), " (", numel * dtype_size(*dtype), " expected)");
        ParamId id{0};
        try {
            id = ParamId::from_string(as_sv(id_o));
        } catch (const Error& e) {
            ctx_.fail(w, ": corrupt record: ", e.what());
        }
        // Constructed from the range: one copy, no zero-fill first.
        const auto* src = reinterpret_cast<const std::uint8_t*>(bytes_o.via.bin.ptr);
        std::vector<std::uint8_t> bytes(src, src + bytes_o.via.bin.size);
        try {
            if (*dtype == DType::QInt8) {
                const auto& q_o = need(o, "quant", object_type::MAP, path);
                const auto& scheme_o = need(q_o, "scheme", object_type::STR, path);
                const auto& axis_o = need(q_o, "axis", object_type::POSITIVE_INTEGER, path);
                QuantizationInfo q;
                const auto scheme = qscheme_from_name(as_sv(scheme_o), axis_o.via.u64);
                if (!scheme)
                    ctx_.fail(w, ": corrupt record: unknown quantization scheme \"",
                              as_sv(scheme_o), "\"");
                q.scheme = *scheme;
                q.scales =
                    bin_array<float>(need(q_o, "scales", object_type::BIN, path), path, "scales");
                q.offsets = bin_array<std::int32_t>(need(q_o, "offsets", object_type::BIN, path),
                                                    path, "offsets");
                return Record(TensorItem{TensorData(std::move(bytes), shape, std::move(q)), id});
            }
            if (*dtype == DType::Bool)
                for (auto& b : bytes) b = b != 0;
            return Record(TensorItem{TensorData(std::move(bytes), shape, *dtype), id});
        } catch (const Error& e) {
            const std::string msg = e.what();
            // Our own messages already carry the recorder prefix.
            if (msg.rfind(ctx_.recorder, 0) == 0) throw;
            ctx_.fail(w, ": ", msg);
        }
    }

    const Context& ctx_;
};

}  // namespace

bool looks_like_mpk(std::span<const std::uint8_t> p) {
    // fixmap of 2, then the fixstr "burn_record".
    constexpr std::size_t n = sizeof(header_key) - 1;
    if (p.size() < 2 + n) return false;
    return p[0] == 0x82 && p[1] == (0xa0 | n) && std::memcmp(p.data() + 2, header_key, n) == 0;
}

void encode_mpk(const Record& r, const RecorderSpec& spec, const Context& ctx, Sink& out) {
    Packer pk(spec, ctx, out);
    pk.header();
    pk.item(r, "", 0);
}

Record decode_mpk(std::span<const std::uint8_t> bytes, const RecorderSpec& spec,
                  const Context& ctx) {
    const std::size_t len = bytes.size();
    // Bound every count by the input size, so that a corrupt count cannot make msgpack-c
    // allocate more than the input could describe.
    const std::size_t max_string = static_cast<std::size_t>(std::min<std::uint64_t>(
        read_limits().max_string_bytes, std::numeric_limits<std::size_t>::max()));
    const msgpack::unpack_limit limit(len, len / 2 + 1, max_string, len, len, max_record_depth + 8);
    std::size_t off = 0;
    msgpack::object_handle oh;
    try {
        // Strings and binaries refer to `bytes` instead of being copied.
        oh = msgpack::unpack(
            reinterpret_cast<const char*>(bytes.data()), len, off,
            [](object_type, std::size_t, void*) { return true; }, nullptr, limit);
    } catch (const msgpack::insufficient_bytes&) {
        ctx.fail("the data ends early (truncated): the MessagePack record is incomplete (", len,
                 " bytes)");
    } catch (const msgpack::str_size_overflow&) {
        ctx.fail("a string longer than the limit of ", max_string,
                 " bytes; burn::record::set_read_limits raises max_string_bytes");
    } catch (const msgpack::depth_size_overflow&) {
        ctx.fail("corrupt record: MessagePack data nests deeper than ", max_record_depth,
                 " levels");
    } catch (const msgpack::unpack_error& e) {
        ctx.fail("corrupt MessagePack data: ", e.what());
    } catch (const std::bad_alloc&) {
        ctx.fail("corrupt MessagePack data: a count does not fit in memory");
    }
    if (off != len)
        ctx.fail("unexpected data after the record: ", len - off, " bytes at offset ", off);
    const msgpack::object& root = oh.get();
    Unpacker up(ctx);
    if (root.type != object_type::MAP || !find(root, header_key))
        ctx.fail("expected a NamedMpk record, found MessagePack data without a \"", header_key,
                 "\" header");
    const auto& h = up.need(root, header_key, object_type::MAP, "");
    const auto& format = up.need(h, "format", object_type::STR, "burn_record");
    const auto& version = up.need(h, "version", object_type::POSITIVE_INTEGER, "burn_record");
    const auto& precision = up.need(h, "precision", object_type::STR, "burn_record");
    check_header(ctx, spec, as_sv(format), version.via.u64, as_sv(precision));
    const auto& f = up.need(h, "float", object_type::STR, "burn_record");
    const auto& i = up.need(h, "int", object_type::STR, "burn_record");
    if (as_sv(f) != dtype_name(spec.float_dtype) || as_sv(i) != dtype_name(spec.int_dtype))
        ctx.fail("the header's precision \"", spec.precision, "\" names dtypes ", as_sv(f), "/",
                 as_sv(i), ", expected ", dtype_name(spec.float_dtype), "/",
                 dtype_name(spec.int_dtype));
    const msgpack::object* item = find(root, "item");
    if (!item) ctx.fail("corrupt record: no \"item\" field");
    if (root.via.map.size != 2) ctx.fail("corrupt record: unexpected top-level fields");
    return up.item(*item, "", 0);
}

}  // namespace burn::record::detail

// SPDX-License-Identifier: MIT OR Apache-2.0
// The Bin format: burn-cpp's compact binary encoding of a record (layout in docs/records.md).
// All integers little-endian; every variable-length part is prefixed by its length. Tensor bytes
// are written and read in bulk, straight between the TensorData and the sink or source.
#include <bit>
#include <cstring>
#include <string>

#include "record_io.hpp"

namespace burn::record::detail {

static_assert(std::endian::native == std::endian::little,
              "the Bin format copies little-endian tensor bytes as they are in memory");

namespace {

enum Tag : std::uint8_t {
    TagNone = 0,
    TagTensor = 1,
    TagFloat = 2,
    TagInt = 3,
    TagBool = 4,
    TagString = 5,
    TagList = 6,
    TagMap = 7,
};

/// The on-disk dtype codes (stable; independent of the DType enum's values).
constexpr DType dtype_codes[] = {DType::F64, DType::F32,  DType::F16,  DType::BF16,
                                 DType::I64, DType::I32,  DType::I16,  DType::I8,
                                 DType::U8,  DType::Bool, DType::QInt8};

std::uint8_t dtype_code(DType d) {
    for (std::uint8_t i = 0; i < std::size(dtype_codes); ++i)
        if (dtype_codes[i] == d) return i;
    return 0xff;
}

// ---------------------------------------------------------------------------- writing
class Writer {
public:
    Writer(const RecorderSpec& spec, const Context& ctx, Sink& out)
        : spec_(spec), ctx_(ctx), out_(out) {}

    void u8(std::uint8_t v) { out_.write(&v, 1); }
    void u16(std::uint16_t v) { out_.write(&v, 2); }
    void u64(std::uint64_t v) { out_.write(&v, 8); }
    void str8(std::string_view s) {
        u8(static_cast<std::uint8_t>(s.size()));
        out_.write(s.data(), s.size());
    }
    void str(std::string_view s) {
        u64(s.size());
        out_.write(s.data(), s.size());
    }

    /// Encoded size of `r` (without converting any tensor), checking the depth.
    std::uint64_t size(const Record& r, const std::string& path, std::size_t depth) {
        if (depth > max_record_depth)
            ctx_.fail(path, ": records nest deeper than ", max_record_depth, " levels");
        return 1 + std::visit(
                       [&](const auto& v) -> std::uint64_t {
                           using V = std::decay_t<decltype(v)>;
                           if constexpr (std::is_same_v<V, Record::None>) {
                               return 0;
                           } else if constexpr (std::is_same_v<V, TensorItem>) {
                               return tensor_size(v.data);
                           } else if constexpr (std::is_same_v<V, bool>) {
                               return 1;
                           } else if constexpr (std::is_same_v<V, std::string>) {
                               return 8 + v.size();
                           } else if constexpr (std::is_same_v<V, Record::List>) {
                               std::uint64_t n = 8;
                               for (std::size_t i = 0; i < v.size(); ++i)
                                   n +=
                                       size(v[i], Record::join(path, std::to_string(i)), depth + 1);
                               return n;
                           } else if constexpr (std::is_same_v<V, Record::Map>) {
                               std::uint64_t n = 8;
                               for (const auto& [k, x] : v)
                                   n += 8 + k.size() + size(x, Record::join(path, k), depth + 1);
                               return n;
                           } else {
                               return 8;  // double, int64
                           }
                       },
                       r.value());
    }

    void item(const Record& r, const std::string& path) {
        std::visit(
            [&](const auto& v) {
                using V = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<V, Record::None>) {
                    u8(TagNone);
                } else if constexpr (std::is_same_v<V, TensorItem>) {
                    tensor(v, path);
                } else if constexpr (std::is_same_v<V, double>) {
                    u8(TagFloat);
                    out_.write(&v, 8);
                } else if constexpr (std::is_same_v<V, std::int64_t>) {
                    u8(TagInt);
                    out_.write(&v, 8);
                } else if constexpr (std::is_same_v<V, bool>) {
                    u8(TagBool);
                    u8(v ? 1 : 0);
                } else if constexpr (std::is_same_v<V, std::string>) {
                    u8(TagString);
                    str(v);
                } else if constexpr (std::is_same_v<V, Record::List>) {
                    u8(TagList);
                    u64(v.size());
                    for (std::size_t i = 0; i < v.size(); ++i)
                        item(v[i], Record::join(path, std::to_string(i)));
                } else {
                    u8(TagMap);
                    u64(v.size());
                    for (const auto& [k, x] : v) {
                        str(k);
                        item(x, Record::join(path, k));
                    }
                }
            },
            r.value());
    }

private:
    std::uint64_t tensor_size(const TensorData& d) const {
        std::uint64_t n = 1 + 1 + 8 * d.rank() + 8 + 8;
        if (const auto& q = d.quantization())
            n += 1 + 1 + 8 + 8 + 4 * q->scales.size() + 8 + 4 * q->offsets.size();
        return n + d.num_elements() * dtype_size(saved_dtype(d.dtype, spec_));
    }

    void tensor(const TensorItem& t, const std::string& path) {
        std::optional<TensorData> scratch;
        const TensorData& d = saved_form(t.data, spec_, path, ctx_, scratch);
        u8(TagTensor);
        u8(dtype_code(d.dtype));
        u8(static_cast<std::uint8_t>(d.rank()));
        for (std::size_t dim : d.shape.dims()) u64(dim);
        u64(t.id.value());
        if (const auto& q = d.quantization()) {
            u8(q->scheme.is_affine() ? 0 : 1);
            u8(q->scheme.is_per_channel() ? 1 : 0);
            u64(q->scheme.axis);
            u64(q->scales.size());
            out_.write(q->scales.data(), 4 * q->scales.size());
            u64(q->offsets.size());
            out_.write(q->offsets.data(), 4 * q->offsets.size());
        }
        const auto bytes = d.bytes();
        u64(bytes.size());
        out_.write(bytes.data(), bytes.size());
    }

    const RecorderSpec& spec_;
    const Context& ctx_;
    Sink& out_;
};

// ---------------------------------------------------------------------------- reading
class Reader {
public:
    explicit Reader(Source& in)
        : in_(in), ctx_(in.context()), max_string_(read_limits().max_string_bytes) {}

    std::uint8_t u8() {
        std::uint8_t v;
        in_.read(&v, 1);
        return v;
    }
    std::uint16_t u16() {
        std::uint16_t v;
        in_.read(&v, 2);
        return v;
    }
    std::uint64_t u64() {
        std::uint64_t v;
        in_.read(&v, 8);
        return v;
    }
    std::string str8() {
        std::string s(u8(), '\0');
        in_.read(s.data(), s.size());
        return s;
    }
    /// A length read from the data, checked against what can possibly follow.
    std::uint64_t length(std::string_view path, std::string_view what, std::uint64_t unit = 1) {
        const std::uint64_t n = u64();
        const std::uint64_t avail = in_.max_remaining();
        if (n > avail / unit)
            ctx_.fail(path.empty() ? "record" : path, ": corrupt data: ", what, " of ", n,
                      " at offset ", in_.position() - 8, " exceeds the ", avail,
                      " bytes that follow");
        return n;
    }
    std::string str(std::string_view path) {
        const std::uint64_t n = length(path, "a string length");
        if (n > max_string_)
            ctx_.fail(path.empty() ? "record" : path, ": a string of ", n, " bytes at offset ",
                      in_.position() - 8, " exceeds the limit of ", max_string_,
                      " bytes; burn::record::set_read_limits raises max_string_bytes");
        std::string s(n, '\0');
        in_.read(s.data(), s.size());
        return s;
    }

    Record item(const std::string& path, std::size_t depth) {
        if (depth > max_record_depth)
            ctx_.fail(path, ": records nest deeper than ", max_record_depth, " levels");
        const std::uint64_t at = in_.position();
        const std::uint8_t tag = u8();
        switch (tag) {
            case TagNone: return Record{};
            case TagTensor: return tensor(path);
            case TagFloat: {
                double v;
                in_.read(&v, 8);
                return Record(v);
            }
            case TagInt: return Record(static_cast<std::int64_t>(u64()));
            case TagBool: {
                const std::uint8_t b = u8();
                if (b > 1)
                    ctx_.fail(path, ": corrupt data: bool byte ", int(b), " at offset ", at + 1);
                return Record(b == 1);
            }
            case TagString: return Record(str(path));
            case TagList: {
                const std::uint64_t n = length(path, "a list length");
                Record::List list;
                list.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 4096)));
                for (std::uint64_t i = 0; i < n; ++i)
                    list.push_back(item(Record::join(path, std::to_string(i)), depth + 1));
                return Record(std::move(list));
            }
            case TagMap: {
                const std::uint64_t n = length(path, "a map size", 9);
                Record::Map map;
                map.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 4096)));
                for (std::uint64_t i = 0; i < n; ++i) {
                    std::string key = str(path);
                    std::string sub = Record::join(path, key);
                    Record value = item(sub, depth + 1);
                    map.emplace_back(std::move(key), std::move(value));
                }
                return Record(std::move(map));
            }
            default:
                ctx_.fail(path.empty() ? "record" : path, ": corrupt data: unknown item tag ",
                          int(tag), " at offset ", at);
        }
    }

private:
    Record tensor(const std::string& path) {
        const std::string& where = path.empty() ? std::string("record") : path;
        const std::uint8_t code = u8();
        if (code >= std::size(dtype_codes))
            ctx_.fail(where, ": corrupt data: unknown dtype code ", int(code));
        const DType dtype = dtype_codes[code];
        const std::uint8_t rank = u8();
        if (rank > Shape::max_rank)
            ctx_.fail(where, ": corrupt data: tensor of rank ", int(rank), " (at most ",
                      Shape::max_rank, ")");
        std::uint64_t dims[Shape::max_rank];
        for (std::uint8_t i = 0; i < rank; ++i) dims[i] = u64();
        const std::size_t numel = checked_num_elements(ctx_, where, {dims, rank});
        Shape shape;
        for (std::uint8_t i = 0; i < rank; ++i) shape.push_back(static_cast<std::size_t>(dims[i]));
        const ParamId id(u64());
        std::optional<QuantizationInfo> qinfo;
        if (dtype == DType::QInt8) {
            const std::uint8_t mode = u8(), gran = u8();
            const std::uint64_t axis = u64();
            if (mode > 1 || gran > 1)
                ctx_.fail(where, ": corrupt data: unknown quantization scheme");
            QuantizationInfo q;
            q.scheme = gran ? QuantizationScheme::PerChannelAffine(QuantizationType::QInt8, axis)
                            : QuantizationScheme::PerTensorAffine(QuantizationType::QInt8);
            if (mode == 1) q.scheme.mode = QuantizationMode::Symmetric;
            q.scales.resize(length(where, "a scale count", 4));
            in_.read(q.scales.data(), 4 * q.scales.size());
            q.offsets.resize(length(where, "an offset count", 4));
            in_.read(q.offsets.data(), 4 * q.offsets.size());
            qinfo = std::move(q);
        }
        const std::uint64_t nbytes = length(where, "a tensor byte count");
        if (nbytes != numel * dtype_size(dtype))
            ctx_.fail(where, ": corrupt data: ", nbytes, " bytes for shape ", shape, " of ",
                      dtype_name(dtype), " (", numel * dtype_size(dtype), " expected)");
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(nbytes));
        in_.read(bytes.data(), bytes.size());
        try {
            if (qinfo)
                return Record(
                    TensorItem{TensorData(std::move(bytes), shape, std::move(*qinfo)), id});
            if (dtype == DType::Bool)
                for (auto& b : bytes) b = b != 0;
            return Record(TensorItem{TensorData(std::move(bytes), shape, dtype), id});
        } catch (const Error& e) {
            ctx_.fail(where, ": ", e.what());
        }
    }

    Source& in_;
    const Context& ctx_;
    std::uint64_t max_string_;
};

}  // namespace

void encode_bin(const Record& r, const RecorderSpec& spec, const Context& ctx, Sink& out) {
    Writer w(spec, ctx, out);
    const std::uint64_t body = w.size(r, "", 0);
    out.write(bin_magic, sizeof(bin_magic));
    w.str8(format_name(RecordFormat::Bin));
    w.u16(static_cast<std::uint16_t>(format_version));
    w.str8(spec.precision);
    w.u8(dtype_code(spec.float_dtype));
    w.u8(dtype_code(spec.int_dtype));
    w.u64(body);
    w.item(r, "");
}

Record decode_bin(Source& in, const RecorderSpec& spec) {
    const Context& ctx = in.context();
    Reader rd(in);
    std::uint8_t magic[sizeof(bin_magic)];
    in.read(magic, sizeof(magic));
    if (!std::equal(magic, magic + sizeof(magic), bin_magic))
        ctx.fail("expected a Bin record, found ", describe_prefix(magic, !ctx.source.empty()));
    const std::string format = rd.str8();
    const std::uint16_t version = rd.u16();
    const std::string precision = rd.str8();
    check_header(ctx, spec, format, version, precision);
    const std::uint8_t fcode = rd.u8(), icode = rd.u8();
    if (fcode >= std::size(dtype_codes) || icode >= std::size(dtype_codes) ||
        dtype_codes[fcode] != spec.float_dtype || dtype_codes[icode] != spec.int_dtype)
        ctx.fail("the header's precision \"", precision, "\" has dtype codes ", int(fcode), "/",
                 int(icode), ", expected ", dtype_name(spec.float_dtype), "/",
                 dtype_name(spec.int_dtype));
    const std::uint64_t body = rd.u64();
    const std::uint64_t start = in.position();
    if (auto left = in.remaining()) {
        if (*left < body)
            ctx.fail("the data ends early (truncated): the header announces ", body,
                     " bytes of records, ", *left, " follow");
        if (*left > body)
            ctx.fail("unexpected data after the record: the header announces ", body,
                     " bytes of records, ", *left, " follow");
    }
    Record r = rd.item("", 0);
    const std::uint64_t used = in.position() - start;
    if (used != body)
        ctx.fail("corrupt data: the header announces ", body, " bytes of records, the record ",
                 "takes ", used);
    if (!in.at_end()) ctx.fail("unexpected data after the record (offset ", in.position(), ")");
    return r;
}

}  // namespace burn::record::detail

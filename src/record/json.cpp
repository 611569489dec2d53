// SPDX-License-Identifier: MIT OR Apache-2.0
// The Json format (JsonGzFileRecorder, PrettyJsonFileRecorder), with nlohmann::ordered_json so
// that map fields keep their order:
//
//   {"burn_record": {"format": "Json", "version": 1, "precision": "full",
//                    "float": "f32", "int": "i32"},
//    "item": ITEM}
//   ITEM: null | number | true/false | string | [ITEM...] | {key: ITEM...}
//       | {"$tensor": {"shape": [...], "dtype": "f32", "id": "16 hex digits", "values": [...],
//                     "quant": {"scheme": str, "axis": n, "scales": [...], "offsets": [...]}}}
//       | {"$float": "nan" | "inf" | "-inf"}
//
// Floats are written with a fraction or exponent ("1.0"), integers without, so that the two stay
// apart. Non-finite tensor values are the strings "nan", "inf", "-inf". Map keys starting with
// '$' are written with one more '$' ("$x" -> "$$x"): a single '$' marks the tags above.
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "burn/detail/json_limits.hpp"
#include "record_io.hpp"

namespace burn::record::detail {

namespace {

using Json = nlohmann::ordered_json;

constexpr char header_key[] = "burn_record";

/// Whether `s` is valid UTF-8 (JSON strings must be).
bool valid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n;
        std::uint32_t cp;
        if (c < 0x80) {
            ++i;
            continue;
        }
        if ((c & 0xe0) == 0xc0) n = 1, cp = c & 0x1f;
        else if ((c & 0xf0) == 0xe0) n = 2, cp = c & 0x0f;
        else if ((c & 0xf8) == 0xf0) n = 3, cp = c & 0x07;
        else return false;
        if (i + n >= s.size()) return false;
        for (std::size_t k = 1; k <= n; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3f);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
            cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n + 1;
    }
    return true;
}

Json float_value(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

class Encoder {
public:
    Encoder(const RecorderSpec& spec, const Context& ctx) : spec_(spec), ctx_(ctx) {}

    Json item(const Record& r, const std::string& path, std::size_t depth) {
        if (depth > max_record_depth)
            ctx_.fail(path, ": records nest deeper than ", max_record_depth, " levels");
        return std::visit(
            [&](const auto& v) -> Json {
                using V = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<V, Record::None>) {
                    return nullptr;
                } else if constexpr (std::is_same_v<V, TensorItem>) {
                    return tensor(v, path);
                } else if constexpr (std::is_same_v<V, double>) {
                    if (std::isfinite(v)) return v;
                    return Json{{"$float", float_value(v)}};
                } else if constexpr (std::is_same_v<V, std::int64_t> || std::is_same_v<V, bool>) {
                    return v;
                } else if constexpr (std::is_same_v<V, std::string>) {
                    utf8(v, path);
                    return v;
                } else if constexpr (std::is_same_v<V, Record::List>) {
                    Json a = Json::array();
                    for (std::size_t i = 0; i < v.size(); ++i)
                        a.push_back(item(v[i], Record::join(path, std::to_string(i)), depth + 1));
                    return a;
                } else {
                    Json o = Json::object();
                    for (const auto& [k, x] : v) {
                        const std::string sub = Record::join(path, k);
                        utf8(k, sub);
                        std::string key = k;
                        if (!key.empty() && key[0] == '$') key.insert(0, 1, '$');
                        // ordered_json keeps the first of duplicate keys on operator[]; a record
                        // map with duplicate names cannot be represented.
                        if (o.contains(key)) ctx_.fail(sub, ": duplicate field name in a map");
                        o[key] = item(x, sub, depth + 1);
                    }
                    return o;
                }
            },
            r.value());
    }

private:
    void utf8(std::string_view s, std::string_view path) {
        if (!valid_utf8(s))
            ctx_.fail(path.empty() ? "record" : path,
                      ": string is not valid UTF-8 (JSON recorders need UTF-8; use a binary one)");
    }

    Json tensor(const TensorItem& t, const std::string& path) {
        std::optional<TensorData> scratch;
        const TensorData& d = saved_form(t.data, spec_, path, ctx_, scratch);
        Json values = Json::array();
        values.get_ref<Json::array_t&>().reserve(d.num_elements());
        if (d.is_quantized()) {
            for (std::int8_t q : d.q_values()) values.push_back(int(q));
        } else {
            visit_dtype(d.dtype, [&](auto e) {
                using E = decltype(e);
                const auto* p = reinterpret_cast<const E*>(d.bytes().data());
                for (std::size_t i = 0; i < d.num_elements(); ++i) {
                    if constexpr (std::is_same_v<E, bool>) {
                        values.push_back(d.bytes()[i] != 0);
                    } else if constexpr (std::is_same_v<E, f16> || std::is_same_v<E, bf16>) {
                        values.push_back(float_value(double(float(p[i]))));
                    } else if constexpr (std::is_floating_point_v<E>) {
                        values.push_back(float_value(double(p[i])));
                    } else {
                        values.push_back(static_cast<std::int64_t>(p[i]));
                    }
                }
            });
        }
        Json body = Json::object();
        body["shape"] = d.shape.to_vector();
        body["dtype"] = std::string(dtype_name(d.dtype));
        body["id"] = t.id.to_string();
        if (const auto& q = d.quantization()) {
            Json scales = Json::array();
            for (float s : q->scales) scales.push_back(double(s));
            body["quant"] = Json{{"scheme", std::string(qscheme_name(q->scheme))},
                                 {"axis", q->scheme.axis},
                                 {"scales", std::move(scales)},
                                 {"offsets", q->offsets}};
        }
        body["values"] = std::move(values);
        return Json{{"$tensor", std::move(body)}};
    }

    const RecorderSpec& spec_;
    const Context& ctx_;
};

class Decoder {
public:
    explicit Decoder(const Context& ctx) : ctx_(ctx) {}

    const Json& need(const Json& o, const char* name, std::string_view path) {
        auto it = o.find(name);
        if (it == o.end()) ctx_.fail(where(path), ": corrupt record: no \"", name, "\" field");
        return *it;
    }

    Record item(const Json& j, const std::string& path, std::size_t depth) {
        if (depth > max_record_depth)
            ctx_.fail(where(path), ": records nest deeper than ", max_record_depth, " levels");
        switch (j.type()) {
            case Json::value_t::null: return Record{};
            case Json::value_t::boolean: return Record(j.get<bool>());
            case Json::value_t::number_integer: return Record(j.get<std::int64_t>());
            case Json::value_t::number_unsigned: {
                const auto u = j.get<std::uint64_t>();
                if (u > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
                    ctx_.fail(where(path), ": integer ", u, " is out of the i64 range");
                return Record(static_cast<std::int64_t>(u));
            }
            case Json::value_t::number_float: return Record(j.get<double>());
            case Json::value_t::string: return Record(j.get<std::string>());
            case Json::value_t::array: {
                Record::List list;
                list.reserve(j.size());
                for (std::size_t i = 0; i < j.size(); ++i)
                    list.push_back(item(j[i], Record::join(path, std::to_string(i)), depth + 1));
                return Record(std::move(list));
            }
            case Json::value_t::object: {
                if (j.size() == 1 && j.begin().key() == "$tensor")
                    return tensor(j.begin().value(), path);
                if (j.size() == 1 && j.begin().key() == "$float")
                    return Record(special(j.begin().value(), path));
                Record::Map map;
                map.reserve(j.size());
                for (auto it = j.begin(); it != j.end(); ++it) {
                    std::string key = it.key();
                    if (!key.empty() && key[0] == '$') {
                        if (key.size() < 2 || key[1] != '$')
                            ctx_.fail(where(path), ": corrupt record: unknown tag \"", key, "\"");
                        key.erase(0, 1);
                    }
                    std::string sub = Record::join(path, key);
                    Record value = item(it.value(), sub, depth + 1);
                    map.emplace_back(std::move(key), std::move(value));
                }
                return Record(std::move(map));
            }
            default: ctx_.fail(where(path), ": corrupt record: unexpected JSON value");
        }
    }

private:
    static std::string where(std::string_view path) {
        return path.empty() ? std::string("record") : std::string(path);
    }

    /// A float value: a number, or "nan" / "inf" / "-inf".
    double number(const Json& v, std::string_view path) {
        if (v.is_number()) return v.get<double>();
        if (v.is_string()) {
            const auto& s = v.get_ref<const std::string&>();
            if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
            if (s == "inf") return std::numeric_limits<double>::infinity();
            if (s == "-inf") return -std::numeric_limits<double>::infinity();
        }
        ctx_.fail(where(path), ": corrupt record: expected a number, found ", v.dump());
    }
    double special(const Json& v, std::string_view path) {
        if (!v.is_string()) ctx_.fail(where(path), ": corrupt record: \"$float\" needs a string");
        return number(v, path);
    }
    std::int64_t integer(const Json& v, std::string_view path, std::int64_t lo, std::int64_t hi) {
        std::int64_t x = 0;
        if (v.is_number_integer() && !v.is_number_unsigned()) x = v.get<std::int64_t>();
        else if (v.is_number_unsigned() && v.get<std::uint64_t>() <= std::uint64_t(hi))
            x = std::int64_t(v.get<std::uint64_t>());
        else ctx_.fail(where(path), ": corrupt record: expected an integer, found ", v.dump());
        if (x < lo || x > hi)
            ctx_.fail(where(path), ": corrupt record: value ", x, " is out of range");
        return x;
    }

    Record tensor(const Json& t, const std::string& path) {
        const std::string w = where(path);
        if (!t.is_object()) ctx_.fail(w, ": corrupt record: \"$tensor\" is not an object");
        const Json& shape_j = need(t, "shape", path);
        const Json& dtype_j = need(t, "dtype", path);
        const Json& id_j = need(t, "id", path);
        const Json& values = need(t, "values", path);
        if (!shape_j.is_array() || !dtype_j.is_string() || !id_j.is_string() || !values.is_array())
            ctx_.fail(w,
                      ": corrupt record: a tensor needs a shape array, dtype and id strings "
                      "and a values array");
        const auto dtype = dtype_from_name(dtype_j.get_ref<const std::string&>());
        if (!dtype) ctx_.fail(w, ": corrupt record: unknown dtype ", dtype_j.dump());
        if (shape_j.size() > Shape::max_rank)
            ctx_.fail(w, ": tensor of rank ", shape_j.size(), " (at most ", Shape::max_rank,
                      " is supported)");
        std::uint64_t dims[Shape::max_rank];
        for (std::size_t i = 0; i < shape_j.size(); ++i)
            dims[i] = static_cast<std::uint64_t>(
                integer(shape_j[i], path, 0, std::numeric_limits<std::int64_t>::max()));
        const std::size_t numel = checked_num_elements(ctx_, w, {dims, shape_j.size()});
        Shape shape;
        for (std::size_t i = 0; i < shape_j.size(); ++i)
            shape.push_back(static_cast<std::size_t>(dims[i]));
        if (values.size() != numel)
            ctx_.fail(w, ": corrupt record: ", values.size(), " values for shape ", shape, " (",
                      numel, " expected)");
        ParamId id{0};
        try {
            id = ParamId::from_string(id_j.get_ref<const std::string&>());
        } catch (const Error& e) {
            ctx_.fail(w, ": corrupt record: ", e.what());
        }
        std::vector<std::uint8_t> bytes(numel * dtype_size(*dtype));
        if (*dtype == DType::QInt8) {
            for (std::size_t i = 0; i < numel; ++i)
                bytes[i] = static_cast<std::uint8_t>(
                    static_cast<std::int8_t>(integer(values[i], path, -128, 127)));
            const Json& q_j = need(t, "quant", path);
            if (!q_j.is_object()) ctx_.fail(w, ": corrupt record: \"quant\" is not an object");
            const Json& scheme_j = need(q_j, "scheme", path);
            const Json& scales_j = need(q_j, "scales", path);
            const Json& offsets_j = need(q_j, "offsets", path);
            const auto axis = integer(need(q_j, "axis", path), path, 0, Shape::max_rank);
            if (!scheme_j.is_string() || !scales_j.is_array() || !offsets_j.is_array())
                ctx_.fail(w, ": corrupt record: malformed \"quant\"");
            const auto scheme = qscheme_from_name(scheme_j.get_ref<const std::string&>(),
                                                  static_cast<std::size_t>(axis));
            if (!scheme)
                ctx_.fail(w, ": corrupt record: unknown quantization scheme ", scheme_j.dump());
            QuantizationInfo q;
            q.scheme = *scheme;
            for (const auto& s : scales_j) q.scales.push_back(static_cast<float>(number(s, path)));
            for (const auto& o : offsets_j)
                q.offsets.push_back(static_cast<std::int32_t>(
                    integer(o, path, std::numeric_limits<std::int32_t>::min(),
                            std::numeric_limits<std::int32_t>::max())));
            try {
                return Record(TensorItem{TensorData(std::move(bytes), shape, std::move(q)), id});
            } catch (const Error& e) {
                ctx_.fail(w, ": ", e.what());
            }
        }
        visit_dtype(*dtype, [&](auto e) {
            using E = decltype(e);
            auto* p = reinterpret_cast<E*>(bytes.data());
            for (std::size_t i = 0; i < numel; ++i) {
                const Json& v = values[i];
                if constexpr (std::is_same_v<E, bool>) {
                    if (!v.is_boolean())
                        ctx_.fail(w, ": corrupt record: expected a bool, found ", v.dump());
                    bytes[i] = v.get<bool>() ? 1 : 0;
                } else if constexpr (std::is_same_v<E, f16> || std::is_same_v<E, bf16>) {
                    p[i] = E(static_cast<float>(number(v, path)));
                } else if constexpr (std::is_floating_point_v<E>) {
                    p[i] = static_cast<E>(number(v, path));
                } else {
                    p[i] = static_cast<E>(integer(v, path, std::numeric_limits<E>::min(),
                                                  std::numeric_limits<E>::max()));
                }
            }
        });
        return Record(TensorItem{TensorData(std::move(bytes), shape, *dtype), id});
    }

    const Context& ctx_;
};

}  // namespace

bool looks_like_json(std::span<const std::uint8_t> p) {
    std::size_t i = 0;
    auto skip = [&] {
        while (i < p.size() && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
    };
    skip();
    if (i >= p.size() || p[i] != '{') return false;
    ++i;
    skip();
    constexpr std::string_view key = "\"burn_record\"";
    return p.size() - i >= key.size() && std::memcmp(p.data() + i, key.data(), key.size()) == 0;
}

void encode_json(const Record& r, const RecorderSpec& spec, const Context& ctx, Sink& out) {
    Encoder enc(spec, ctx);
    Json doc = Json::object();
    doc[header_key] = Json{{"format", std::string(format_name(RecordFormat::Json))},
                           {"version", format_version},
                           {"precision", std::string(spec.precision)},
                           {"float", std::string(dtype_name(spec.float_dtype))},
                           {"int", std::string(dtype_name(spec.int_dtype))}};
    doc["item"] = enc.item(r, "", 0);
    std::string text = spec.pretty ? doc.dump(2) : doc.dump();
    text += '\n';
    out.write(text.data(), text.size());
}

Record decode_json(std::span<const std::uint8_t> bytes, const RecorderSpec& spec,
                   const Context& ctx) {
    {
        // Nesting beyond the record depth (plus the tensor objects and the header) and NUL
        // bytes are refused before the parser builds anything.
        const std::string where = std::string(ctx.recorder) + "::" + std::string(ctx.op) +
                                  (ctx.source.empty() ? "" : ": " + ctx.source);
        ::burn::detail::check_json_text(
            std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), where,
            max_record_depth + 8, read_limits().max_string_bytes);
    }
    Json doc;
    try {
        doc = Json::parse(bytes.begin(), bytes.end());
    } catch (const Json::parse_error& e) {
        // An error at the very end of the input: the text stops early.
        if (e.byte >= bytes.size())
            ctx.fail("the data ends early (truncated): incomplete JSON (", e.what(), ")");
        ctx.fail("malformed JSON: ", e.what());
    } catch (const Json::exception& e) {  // e.g. a number too large for a double
        ctx.fail("malformed JSON: ", e.what());
    }
    Decoder dec(ctx);
    if (!doc.is_object() || !doc.contains(header_key))
        ctx.fail("expected a Json record, found JSON without a \"", header_key, "\" header");
    const Json& h = doc[header_key];
    if (!h.is_object()) ctx.fail("corrupt record: \"burn_record\" is not an object");
    const Json& format = dec.need(h, "format", "burn_record");
    const Json& version = dec.need(h, "version", "burn_record");
    const Json& precision = dec.need(h, "precision", "burn_record");
    if (!format.is_string() || !version.is_number_unsigned() || !precision.is_string())
        ctx.fail("corrupt record: malformed \"burn_record\" header");
    check_header(ctx, spec, format.get_ref<const std::string&>(), version.get<std::uint64_t>(),
                 precision.get_ref<const std::string&>());
    const Json& f = dec.need(h, "float", "burn_record");
    const Json& i = dec.need(h, "int", "burn_record");
    if (f != std::string(dtype_name(spec.float_dtype)) ||
        i != std::string(dtype_name(spec.int_dtype)))
        ctx.fail("the header's precision \"", spec.precision, "\" names dtypes ", f.dump(), "/",
                 i.dump(), ", expected ", dtype_name(spec.float_dtype), "/",
                 dtype_name(spec.int_dtype));
    if (!doc.contains("item") || doc.size() != 2)
        ctx.fail("corrupt record: expected the fields \"burn_record\" and \"item\"");
    return dec.item(doc["item"], "", 0);
}

}  // namespace burn::record::detail

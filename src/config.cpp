// SPDX-License-Identifier: MIT OR Apache-2.0
// The compiled part of the config system: configs (described by config::detail::TypeInfo, see
// burn/config/config.hpp) to JSON and back, JSON text in and out, and file IO.
#include "burn/config/config.hpp"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>

#include "burn/config/json.hpp"
#include "burn/detail/json_limits.hpp"
#include "burn/record/limits.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define BURN_CONFIG_POSIX 1
#endif

namespace burn::config::detail {

namespace {

using Json = nlohmann::ordered_json;

/// How deep values may nest (configs in configs, containers, optionals): only a config type that
/// contains itself can reach it, and a file nested deeper would exhaust the stack.
constexpr std::size_t max_depth = 128;

/// nlohmann's messages start with "[json.exception.parse_error.101] "; keep what follows.
std::string strip_prefix(const char* what) {
    std::string s = what;
    if (!s.empty() && s.front() == '[') {
        const auto end = s.find("] ");
        if (end != std::string::npos) s.erase(0, end + 2);
    }
    return s;
}

std::string errno_text(int err) { return std::system_category().message(err); }

/// Pretty JSON (2-space indent) with a final newline when `newline`; throws burn::Error
/// "<context>: cannot write JSON: ..." for a string that is not valid UTF-8.
std::string dump_json(const Json& j, bool newline, std::string_view context) {
    try {
        std::string s = j.dump(2);
        if (newline) s += '\n';
        return s;
    } catch (const nlohmann::json::exception& e) {
        // The only failure of dump(): a string that is not valid UTF-8.
        burn::detail::fail(context, ": cannot write JSON: ", strip_prefix(e.what()));
    }
}

/// Parses JSON; throws burn::Error "<context>: invalid JSON: ..." with the position.
Json parse_json(std::string_view text, std::string_view context) {
    burn::detail::check_json_text(text, context, max_depth,
                                  burn::record::read_limits().max_string_bytes);
    try {
        // Comments (// and /* */) are allowed: config files are often edited by hand.
        return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true,
                           /*ignore_comments=*/true);
    } catch (const nlohmann::json::exception& e) {
        burn::detail::fail(context, ": invalid JSON: ", strip_prefix(e.what()));
    }
}

std::string read_text_file(const std::filesystem::path& path, std::string_view context) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        burn::detail::fail(context, ": cannot read '", path.string(), "': it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        burn::detail::fail(context, ": cannot open '", path.string(), "': ", errno_text(err));
    }
    std::ostringstream os;
    os << in.rdbuf();
    if (in.bad()) burn::detail::fail(context, ": error while reading '", path.string(), "'");
    return std::move(os).str();
}

void write_text_file_atomic(const std::filesystem::path& path, std::string_view text,
                            std::string_view context) {
    if (!path.has_filename())
        burn::detail::fail(context, ": '", path.string(), "' does not name a file");
    static std::atomic<unsigned long> counter{0};
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
    std::string tmp_name = ".";  // (not "." + ...: g++ 12 warns falsely, -Wrestrict)
    tmp_name += path.filename().string();
    tmp_name += ".tmp.";
#ifdef BURN_CONFIG_POSIX
    tmp_name += std::to_string(::getpid()) + ".";
#endif
    tmp_name += std::to_string(counter.fetch_add(1));
    const std::filesystem::path tmp = dir / tmp_name;

#ifdef BURN_CONFIG_POSIX
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        const int err = errno;
        burn::detail::fail(context, ": cannot write '", path.string(), "': cannot create '",
                           tmp.string(), "': ", errno_text(err));
    }
    auto fail_after = [&](std::string_view what, int err) {
        ::close(fd);
        ::unlink(tmp.c_str());
        burn::detail::fail(context, ": cannot write '", path.string(), "': ", what, ": ",
                           errno_text(err));
    };
    // Keep the permissions of the file being replaced.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) ::fchmod(fd, st.st_mode & 07777);
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_after("write failed", errno);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) fail_after("fsync failed", errno);
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        burn::detail::fail(context, ": cannot write '", path.string(),
                           "': close failed: ", errno_text(err));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        burn::detail::fail(context, ": cannot write '", path.string(), "': rename from '",
                           tmp.string(), "' failed: ", errno_text(err));
    }
    // Make the rename itself durable.
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
#else
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            burn::detail::fail(context, ": cannot write '", path.string(), "': cannot create '",
                               tmp.string(), "'");
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.flush();
        if (!out) {
            out.close();
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            burn::detail::fail(context, ": cannot write '", path.string(), "': write failed");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        burn::detail::fail(context, ": cannot write '", path.string(),
                           "': rename failed: ", ec.message());
    }
#endif
}

// ------------------------------------------------------------------ reading the descriptions
void* mutable_ptr(const void* p) { return const_cast<void*>(p); }

template <class T>
T load_as(const void* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <class T>
void store_as(void* p, T v) {
    std::memcpy(p, &v, sizeof v);
}

/// The integer at `p` (of the width and signedness `t` gives) as an int64 (unsigned values
/// above INT64_MAX wrap, as static_cast does).
std::int64_t load_integer(const IntegerInfo& t, const void* p) {
    // (Each branch converts on its own: `signed ? int32 : uint32` would be a uint32.)
    switch (t.bytes) {
        case 1:
            if (t.is_signed) return load_as<std::int8_t>(p);
            return load_as<std::uint8_t>(p);
        case 2:
            if (t.is_signed) return load_as<std::int16_t>(p);
            return load_as<std::uint16_t>(p);
        case 4:
            if (t.is_signed) return load_as<std::int32_t>(p);
            return load_as<std::uint32_t>(p);
        default: return load_as<std::int64_t>(p);
    }
}

/// Stores `bits` (a value in range for the integer at `p`, as uint64) in that integer.
void store_integer(const IntegerInfo& t, void* p, std::uint64_t bits) {
    switch (t.bytes) {
        case 1: store_as(p, static_cast<std::uint8_t>(bits)); break;
        case 2: store_as(p, static_cast<std::uint16_t>(bits)); break;
        case 4: store_as(p, static_cast<std::uint32_t>(bits)); break;
        default: store_as(p, bits); break;
    }
}

std::uint64_t integer_max(const IntegerInfo& t) {
    const unsigned bits = 8u * t.bytes - (t.is_signed ? 1u : 0u);
    return bits == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits) - 1;
}

std::string integer_type_name(const IntegerInfo& t) {
    std::string name = t.is_signed ? "i" : "u";  // (not "i" + ...: g++ 12 warns, -Wrestrict)
    name += std::to_string(8 * t.bytes);
    return name;
}

const ConfigInfo& config_of(TypeOf alternative) {
    return static_cast<const ConfigInfo&>(alternative());
}

/// The names of a variant's alternatives, for messages: "Ones, Zeros or Normal".
std::string alternative_names(const VariantInfo& t) {
    std::string out;
    for (std::size_t i = 0; i < t.count; ++i) {
        if (i > 0) out += i + 1 == t.count ? " or " : ", ";
        out += config_of(t.alternatives[i]).name;
    }
    return out;
}

void check_depth(std::size_t depth, const std::string& path) {
    if (depth > max_depth)
        burn::detail::fail(path, ": values nested deeper than ", max_depth, " levels");
}

// ------------------------------------------------------------------ encoding
Json encode_float(const FloatInfo& t, const void* p) {
    const double v = t.type == FloatType::f32   ? load_as<float>(p)
                     : t.type == FloatType::f64 ? load_as<double>(p)
                                                : static_cast<double>(load_as<long double>(p));
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (t.type == FloatType::f32) {
        // 0.1f is saved as 0.1 (its shortest float form), not 0.10000000149011612.
        char buf[32];
        const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, load_as<float>(p));
        if (ec == std::errc{}) return std::strtod(std::string(buf, end).c_str(), nullptr);
    }
    return v;
}

Json encode(const TypeInfo& type, const void* p, std::size_t depth) {
    check_depth(depth, "Config");
    switch (type.kind) {
        case Kind::boolean: return load_as<bool>(p);
        case Kind::integer: {
            const auto& t = static_cast<const IntegerInfo&>(type);
            const std::int64_t v = load_integer(t, p);
            if (t.is_signed) return v;
            return static_cast<std::uint64_t>(v);
        }
        case Kind::floating: return encode_float(static_cast<const FloatInfo&>(type), p);
        case Kind::string: return *static_cast<const std::string*>(p);
        case Kind::named_enum: {
            const auto& t = static_cast<const EnumInfo&>(type);
            const std::int64_t v = load_integer(t, p);
            for (std::size_t i = 0; i < t.count; ++i)
                if (t.names[i].value == v) return std::string(t.names[i].name);
            burn::detail::fail("Config: enum value ", v, " is not listed in its BURN_CONFIG_ENUM");
        }
        case Kind::optional:
        case Kind::required: {
            const auto& t = static_cast<const WrapperInfo&>(type);
            if (!t.has_value(p)) {
                if (type.kind == Kind::optional) return nullptr;
                burn::detail::fail("Config: a required field was never set");
            }
            return encode(t.value(), t.get(mutable_ptr(p)), depth + 1);
        }
        case Kind::bool_vector: {
            Json out = Json::array();
            for (const bool b : *static_cast<const std::vector<bool>*>(p)) out.push_back(b);
            return out;
        }
        case Kind::vector:
        case Kind::array: {
            const auto& t = static_cast<const SequenceInfo&>(type);
            const TypeInfo& value = t.value();
            Json out = Json::array();
            for (std::size_t i = 0, n = t.size(p); i < n; ++i)
                out.push_back(encode(value, t.at(mutable_ptr(p), i), depth + 1));
            return out;
        }
        case Kind::string_map: {
            const auto& t = static_cast<const MapInfo&>(type);
            struct Context {
                const TypeInfo& value;
                std::size_t depth;
                Json out = Json::object();
            } context{t.value(), depth + 1};
            t.for_each(mutable_ptr(p), &context, [](void* c, const std::string& key, void* v) {
                auto& ctx = *static_cast<Context*>(c);
                ctx.out[key] = encode(ctx.value, v, ctx.depth);
            });
            return std::move(context.out);
        }
        case Kind::config: {
            const auto& t = static_cast<const ConfigInfo&>(type);
            Json out = Json::object();
            for (std::size_t i = 0; i < t.field_count; ++i) {
                const FieldInfo& f = t.fields[i];
                out[std::string(f.name)] = encode(f.type(), f.get(mutable_ptr(p)), depth + 1);
            }
            return out;
        }
        case Kind::variant: {
            const auto& t = static_cast<const VariantInfo&>(type);
            const std::size_t index = t.index(p);
            BURN_CHECK(index < t.count, "Config: a variant field holds no value");
            const ConfigInfo& alt = config_of(t.alternatives[index]);
            if (alt.field_count == 0) return std::string(alt.name);
            Json out = Json::object();
            out[std::string(alt.name)] = encode(alt, t.get(mutable_ptr(p)), depth + 1);
            return out;
        }
    }
    burn::detail::fail("Config: unknown field kind ", static_cast<int>(type.kind));
}

// ------------------------------------------------------------------ decoding
/// "string \"abc\"", "integer -3", "number 2.5", "boolean true", "null", "array", "object".
std::string describe(const Json& j) {
    switch (j.type()) {
        case Json::value_t::string: {
            std::string s = j.get_ref<const std::string&>();
            if (s.size() > 40) {
                // Cut at a character boundary: the quoted text must stay valid UTF-8.
                std::size_t cut = 37;
                while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
                s = s.substr(0, cut) + "...";
            }
            return "string " + Json(s).dump();
        }
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned: return "integer " + j.dump();
        case Json::value_t::number_float: return "number " + j.dump();
        case Json::value_t::boolean: return "boolean " + j.dump();
        default: return j.type_name();
    }
}

[[noreturn]] void type_error(const std::string& path, std::string_view expected,
                             const Json& found) {
    burn::detail::fail(path, ": expected ", expected, ", found ", describe(found));
}

void decode_integer(const Json& j, const IntegerInfo& t, void* out, const std::string& path) {
    const std::string_view expected = t.is_signed ? "an integer" : "an unsigned integer";
    const std::uint64_t max = integer_max(t);
    if (j.is_number_unsigned()) {
        const auto v = j.get<std::uint64_t>();
        if (v > max)
            burn::detail::fail(path, ": integer ", v, " out of range for ", integer_type_name(t));
        return store_integer(t, out, v);
    }
    if (j.is_number_integer()) {
        const auto v = j.get<std::int64_t>();
        if (v < 0 && !t.is_signed) type_error(path, expected, j);
        const std::int64_t min = t.is_signed ? -static_cast<std::int64_t>(max) - 1 : 0;
        if (v >= 0 ? static_cast<std::uint64_t>(v) > max : v < min)
            burn::detail::fail(path, ": integer ", v, " out of range for ", integer_type_name(t));
        return store_integer(t, out, static_cast<std::uint64_t>(v));
    }
    type_error(path, expected, j);
}

void decode_float(const Json& j, const FloatInfo& t, void* out, const std::string& path) {
    double v;
    if (j.is_number()) {
        v = j.get<double>();
    } else if (j.is_string()) {
        // Non-finite values are written as strings (JSON has no NaN or infinity).
        const auto& s = j.get_ref<const std::string&>();
        if (s == "NaN" || s == "nan") v = std::numeric_limits<double>::quiet_NaN();
        else if (s == "inf" || s == "Infinity") v = std::numeric_limits<double>::infinity();
        else if (s == "-inf" || s == "-Infinity") v = -std::numeric_limits<double>::infinity();
        else type_error(path, "a number", j);
    } else {
        type_error(path, "a number", j);
    }
    switch (t.type) {
        case FloatType::f32:
            if (std::isfinite(v) && std::abs(v) > std::numeric_limits<float>::max())
                burn::detail::fail(path, ": number ", j.dump(), " out of range for f32");
            return store_as(out, static_cast<float>(v));
        case FloatType::f64: return store_as(out, v);
        case FloatType::extended: return store_as(out, static_cast<long double>(v));
    }
}

void decode_named_enum(const Json& j, const EnumInfo& t, void* out, const std::string& path) {
    std::string expected = "one of";
    for (std::size_t i = 0; i < t.count; ++i)
        expected += (i ? ", \"" : " \"") + std::string(t.names[i].name) + "\"";
    if (!j.is_string()) type_error(path, expected, j);
    const auto& s = j.get_ref<const std::string&>();
    for (std::size_t i = 0; i < t.count; ++i)
        if (t.names[i].name == s)
            return store_integer(t, out, static_cast<std::uint64_t>(t.names[i].value));
    type_error(path, expected, j);
}

/// "<path>[i]", the path of an element.
std::string element_path(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

/// Throws "<path>: missing required field" for the first Required field left unset in `p`.
void check_complete(const TypeInfo& type, void* p, const std::string& path, std::size_t depth) {
    check_depth(depth, path);
    switch (type.kind) {
        case Kind::config: {
            const auto& t = static_cast<const ConfigInfo&>(type);
            for (std::size_t i = 0; i < t.field_count; ++i) {
                const FieldInfo& f = t.fields[i];
                check_complete(f.type(), f.get(p), path + "." + std::string(f.name), depth + 1);
            }
            return;
        }
        case Kind::variant: {
            const auto& t = static_cast<const VariantInfo&>(type);
            const std::size_t index = t.index(p);
            if (index < t.count) check_complete(t.alternatives[index](), t.get(p), path, depth + 1);
            return;
        }
        case Kind::required:
        case Kind::optional: {
            const auto& t = static_cast<const WrapperInfo&>(type);
            if (t.has_value(p)) check_complete(t.value(), t.get(p), path, depth + 1);
            else if (type.kind == Kind::required)
                burn::detail::fail(path, ": missing required field");
            return;
        }
        case Kind::vector:
        case Kind::array: {
            const auto& t = static_cast<const SequenceInfo&>(type);
            const TypeInfo& value = t.value();
            for (std::size_t i = 0, n = t.size(p); i < n; ++i)
                check_complete(value, t.at(p, i), element_path(path, i), depth + 1);
            return;
        }
        case Kind::string_map: {
            const auto& t = static_cast<const MapInfo&>(type);
            struct Context {
                const TypeInfo& value;
                const std::string& path;
                std::size_t depth;
            } context{t.value(), path, depth + 1};
            t.for_each(p, &context, [](void* c, const std::string& key, void* v) {
                const auto& ctx = *static_cast<const Context*>(c);
                check_complete(ctx.value, v, ctx.path + "." + key, ctx.depth);
            });
            return;
        }
        default: return;  // leaves are always complete
    }
}

void decode(const Json& j, const TypeInfo& type, void* out, const std::string& path,
            std::size_t depth);

/// Reads `j` into the blank value `out` (fresh: an element, an alternative, an optional's new
/// value), then checks that it is complete: its required fields must all be in `j`.
void decode_blank(const Json& j, const TypeInfo& type, void* out, const std::string& path,
                  std::size_t depth) {
    decode(j, type, out, path, depth);
    check_complete(type, out, path, depth);
}

/// Reads the alternative named by `j` ("Name" or {"Name": {fields}}) into `out`.
void decode_variant(const Json& j, const VariantInfo& t, void* out, const std::string& path,
                    std::size_t depth) {
    const auto expected = [&] {
        return "one of " + alternative_names(t) +
               " (a name, or an object with one of them as its only key)";
    };
    std::string name;
    const Json* fields = nullptr;
    if (j.is_string()) {
        name = j.get<std::string>();
    } else if (j.is_object() && j.size() == 1) {
        name = j.begin().key();
        fields = &j.begin().value();
    } else {
        type_error(path, expected(), j);
    }
    for (std::size_t i = 0; i < t.count; ++i) {
        const ConfigInfo& alt_type = config_of(t.alternatives[i]);
        if (name != alt_type.name) continue;
        void* alt = t.emplace_blank(out, i);
        const std::string alt_path = path + "." + name;
        if (fields != nullptr) decode_blank(*fields, alt_type, alt, alt_path, depth + 1);
        else check_complete(alt_type, alt, alt_path, depth + 1);
        return;
    }
    burn::detail::fail(path, ": expected ", expected(), ", found \"", name, "\"");
}

/// Reads `j` into `out`. Configs are merged: fields absent from `j` keep their value in `out`
/// (the defaults, when `out` is blank), and so do the values of optional and Required fields;
/// everything else is replaced.
void decode(const Json& j, const TypeInfo& type, void* out, const std::string& path,
            std::size_t depth) {
    check_depth(depth, path);
    switch (type.kind) {
        case Kind::boolean:
            if (!j.is_boolean()) type_error(path, "a boolean", j);
            return store_as(out, j.get<bool>());
        case Kind::integer:
            return decode_integer(j, static_cast<const IntegerInfo&>(type), out, path);
        case Kind::floating: return decode_float(j, static_cast<const FloatInfo&>(type), out, path);
        case Kind::string:
            if (!j.is_string()) type_error(path, "a string", j);
            *static_cast<std::string*>(out) = j.get<std::string>();
            return;
        case Kind::named_enum:
            return decode_named_enum(j, static_cast<const EnumInfo&>(type), out, path);
        case Kind::required: {
            const auto& t = static_cast<const WrapperInfo&>(type);
            void* value = t.has_value(out) ? t.get(out) : t.emplace_blank(out);
            return decode(j, t.value(), value, path, depth + 1);
        }
        case Kind::optional: {
            const auto& t = static_cast<const WrapperInfo&>(type);
            if (j.is_null()) return t.reset(out);
            if (t.has_value(out)) return decode(j, t.value(), t.get(out), path, depth + 1);
            return decode_blank(j, t.value(), t.emplace_blank(out), path, depth + 1);
        }
        case Kind::bool_vector: {
            if (!j.is_array()) type_error(path, "an array", j);
            std::vector<bool> values;
            values.reserve(j.size());
            for (std::size_t i = 0; i < j.size(); ++i) {
                if (!j[i].is_boolean()) type_error(element_path(path, i), "a boolean", j[i]);
                values.push_back(j[i].get<bool>());
            }
            *static_cast<std::vector<bool>*>(out) = std::move(values);
            return;
        }
        case Kind::vector: {
            const auto& t = static_cast<const SequenceInfo&>(type);
            if (!j.is_array()) type_error(path, "an array", j);
            const TypeInfo& value = t.value();
            t.clear(out);
            for (std::size_t i = 0; i < j.size(); ++i)
                decode_blank(j[i], value, t.append_blank(out), element_path(path, i), depth + 1);
            return;
        }
        case Kind::array: {
            const auto& t = static_cast<const SequenceInfo&>(type);
            const std::size_t n = t.size(out);
            if (!j.is_array() || j.size() != n)
                type_error(path, "an array of " + std::to_string(n) + " elements", j);
            const TypeInfo& value = t.value();
            for (std::size_t i = 0; i < n; ++i)
                decode(j[i], value, t.at(out, i), element_path(path, i), depth + 1);
            return;
        }
        case Kind::string_map: {
            const auto& t = static_cast<const MapInfo&>(type);
            if (!j.is_object()) type_error(path, "an object", j);
            const TypeInfo& value = t.value();
            t.clear(out);
            for (auto it = j.begin(); it != j.end(); ++it)
                decode_blank(it.value(), value, t.insert_blank(out, it.key()),
                             path + "." + it.key(), depth + 1);
            return;
        }
        case Kind::config: {
            const auto& t = static_cast<const ConfigInfo&>(type);
            if (!j.is_object()) type_error(path, "an object", j);
            for (std::size_t i = 0; i < t.field_count; ++i) {
                const FieldInfo& f = t.fields[i];
                const std::string field_path = path + "." + std::string(f.name);
                const auto it = j.find(f.name);
                if (it == j.end()) check_complete(f.type(), f.get(out), field_path, depth + 1);
                else decode(*it, f.type(), f.get(out), field_path, depth + 1);
            }
            return;
        }
        case Kind::variant:
            return decode_variant(j, static_cast<const VariantInfo&>(type), out, path, depth);
    }
    burn::detail::fail(path, ": unknown field kind ", static_cast<int>(type.kind));
}

/// Merges `j` into the blank config `out`; messages start with the config's name.
void decode_config(const Json& j, const TypeInfo& type, void* out) {
    decode(j, type, out, std::string(static_cast<const ConfigInfo&>(type).name), 0);
}

}  // namespace

// ------------------------------------------------------------------ entry points
std::string to_json_string(const TypeInfo& type, const void* config) {
    return dump_json(encode(type, config, 0), false, "Config::to_json_string");
}

void from_json_string(const TypeInfo& type, void* out, std::string_view text) {
    constexpr std::string_view op = "Config::from_json_string";
    const auto j = parse_json(text, op);
    try {
        decode_config(j, type, out);
    } catch (const Error& e) {
        burn::detail::fail(op, ": ", e.what());
    }
}

void save(const TypeInfo& type, const void* config, const std::filesystem::path& path) {
    constexpr std::string_view op = "Config::save";
    write_text_file_atomic(path, dump_json(encode(type, config, 0), true, op), op);
}

void load(const TypeInfo& type, void* out, const std::filesystem::path& path) {
    const std::string context = "Config::load: '" + path.string() + "'";
    const auto j = parse_json(read_text_file(path, "Config::load"), context);
    try {
        decode_config(j, type, out);
    } catch (const Error& e) {
        burn::detail::fail(context, ": ", e.what());
    }
}

std::ostream& print(std::ostream& os, const TypeInfo& type, const void* config) {
    return os << to_json_string(type, config);
}

nlohmann::ordered_json to_json(const TypeInfo& type, const void* config) {
    return encode(type, config, 0);
}

void from_json(const TypeInfo& type, void* out, const nlohmann::ordered_json& j) {
    decode_config(j, type, out);
}

}  // namespace burn::config::detail

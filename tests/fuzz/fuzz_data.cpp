// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer targets for the dataset readers of burn/data: arbitrary file contents must either load
// or throw burn::Error; they must never crash, hang, read out of bounds (ASan) or trigger
// undefined behaviour (UBSan). The readers take paths, so each input is written to files in a
// directory of this process (under /dev/shm when it exists). Built five times
// (BURN_FUZZ_DATA = 0 MnistDataset::from_files, 1 InMemDataset::from_csv,
// 2 InMemDataset::from_json_rows, 3 ImageFolderDataset, 4 SqliteDataset); each input's first
// bytes choose the variant (the layout is described at each reader below). Whatever loads is
// read item by item, and the CSV, JSON-lines and SQLite items, written back, must load again
// unchanged. Run with tests/fuzz/run.sh.
#include <unistd.h>

#include <burn/tensor/error.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#ifndef BURN_FUZZ_DATA
#error "define BURN_FUZZ_DATA (0 mnist, 1 csv, 2 jsonl, 3 image_folder, 4 sqlite)"
#endif

#if BURN_FUZZ_DATA == 0
#include <zlib.h>

#include <burn/data/mnist.hpp>
#elif BURN_FUZZ_DATA == 1
#include <burn/data/in_memory.hpp>
#include <charconv>
#include <cmath>
#elif BURN_FUZZ_DATA == 2
#include <burn/data/in_memory.hpp>
#include <burn/data/json.hpp>
#include <nlohmann/json.hpp>
#elif BURN_FUZZ_DATA == 3
#include <burn/data/image_folder.hpp>
#else
#include <burn/data/in_memory.hpp>
#include <burn/data/sqlite.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#endif

namespace {

namespace fs = std::filesystem;
using Bytes = std::span<const std::uint8_t>;

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "fuzz_data: %s\n%s\n", what, detail.c_str());
    std::abort();
}

/// The directory of this process's files (/dev/shm/burn_fuzz_data_<pid> when /dev/shm exists),
/// removed at exit.
const fs::path& temp_dir() {
    static const fs::path dir = [] {
        std::error_code ec;
        const fs::path base =
            fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
        auto d = base / ("burn_fuzz_data_" + std::to_string(::getpid()));
        fs::create_directories(d);
        std::atexit([] {
            std::error_code ignored;
            fs::remove_all(temp_dir(), ignored);
        });
        return d;
    }();
    return dir;
}

/// An input the reader refused with burn::Error: the expected outcome for most inputs. With
/// BURN_FUZZ_VERBOSE=1 in the environment the message is printed (to check the seeds).
void rejected(const burn::Error& e) {
    static const bool verbose = std::getenv("BURN_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "fuzz_data: rejected: %s\n", e.what());
}

void write_file(const fs::path& path, Bytes bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    f.close();
    if (!f) die("cannot write", path.string());
}
void write_file(const fs::path& path, std::string_view text) {
    write_file(path, Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

#if BURN_FUZZ_DATA == 0
// ------------------------------------------------------------------------------------ MNIST
// Input: mode byte, a 16-bit little-endian parameter, then the payload.
//   mode & 3 == 0: payload[0, p) is the image file, payload[p, end) the label file
//                  (p = parameter mod (payload size + 1));
//   mode & 3 == 1: the payload is the image file; the label file is valid, with
//                  parameter mod 256 labels (gzip-compressed when mode & 4);
//   mode & 3 == 2: the payload is the label file; the image file is valid, with
//                  parameter mod 64 images (gzip-compressed when mode & 4);
//   mode & 3 == 3: as 0, each part then gzip-compressed by the fuzzer (so that mutations reach
//                  the IDX headers behind valid gzip streams).

std::vector<std::uint8_t> gzip(Bytes in, int level) {
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        die("deflateInit2 failed");
    std::vector<std::uint8_t> out(deflateBound(&z, uLong(in.size())) + 32);
    z.next_in = const_cast<Bytef*>(in.data());
    z.avail_in = uInt(in.size());
    z.next_out = out.data();
    z.avail_out = uInt(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) die("deflate failed");
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(std::uint8_t(v >> shift));
}

std::vector<std::uint8_t> valid_labels(std::size_t count) {
    std::vector<std::uint8_t> out;
    put_be32(out, 2049);
    put_be32(out, std::uint32_t(count));
    for (std::size_t i = 0; i < count; ++i) out.push_back(std::uint8_t(i % 10));
    return out;
}

std::vector<std::uint8_t> valid_images(std::size_t count) {
    std::vector<std::uint8_t> out;
    put_be32(out, 2051);
    put_be32(out, std::uint32_t(count));
    put_be32(out, 28);
    put_be32(out, 28);
    for (std::size_t i = 0; i < count * 784; ++i) out.push_back(std::uint8_t(i * 7));
    return out;
}

void check(Bytes bytes) {
    if (bytes.size() < 3) return;
    const unsigned mode = bytes[0];
    const std::size_t param = bytes[1] | (std::size_t(bytes[2]) << 8);
    const Bytes payload = bytes.subspan(3);
    const fs::path images = temp_dir() / "images", labels = temp_dir() / "labels";
    auto counterpart = [&](std::vector<std::uint8_t> v) {
        return (mode & 4) != 0 ? gzip(v, 1) : v;
    };
    switch (mode & 3) {
        case 0:
        case 3: {
            const std::size_t split = param % (payload.size() + 1);
            const Bytes a = payload.first(split), b = payload.subspan(split);
            if ((mode & 3) == 0) {
                write_file(images, a);
                write_file(labels, b);
            } else {
                write_file(images, gzip(a, 1));
                write_file(labels, gzip(b, 1));
            }
            break;
        }
        case 1:
            write_file(images, payload);
            write_file(labels, counterpart(valid_labels(param % 256)));
            break;
        default:
            write_file(images, counterpart(valid_images(param % 64)));
            write_file(labels, payload);
            break;
    }
    std::optional<burn::data::MnistDataset> ds;
    try {
        ds = burn::data::MnistDataset::from_files(images, labels);
    } catch (const burn::Error& e) {
        return rejected(e);
    }
    const std::size_t n = ds->len();
    for (std::size_t i = 0; i < n; ++i) {
        const auto item = ds->get(i);
        if (!item) die("MnistDataset::get returned nothing for an index below len()");
        if (item->label >= burn::data::MNIST_CLASSES || item->label != ds->label(i))
            die("MnistDataset: a label out of range or get() and label() disagree");
        const std::uint8_t* px = ds->image_bytes(i);
        for (std::size_t k = 0; k < item->image.size(); ++k)
            if (item->image[k] != float(px[k]))
                die("MnistDataset: get() and image_bytes() disagree");
    }
    if (ds->get(n)) die("MnistDataset::get returned an item past the end");
}

#elif BURN_FUZZ_DATA == 1
// -------------------------------------------------------------------------------------- CSV
// Input: an options byte, then the file. Options: bits 0-1 the delimiter (, TAB ; |), bit 2
// has_headers, bit 3 flexible, bit 4 typed rows (else every field kept as a string), bit 5
// typed rows looked up by header name (with has_headers).

struct Row {
    std::string name;
    double value = 0;
    std::int64_t count = 0;
    bool flag = false;
    std::uint8_t small = 0;
};

bool same(const Row& a, const Row& b) {
    const bool values = a.value == b.value || (std::isnan(a.value) && std::isnan(b.value));
    return a.name == b.name && values && a.count == b.count && a.flag == b.flag &&
           a.small == b.small;
}

const char* const HEADER[] = {"name", "value", "count", "flag", "small"};

Row typed_row(const burn::data::CsvRow& r, bool by_name) {
    Row row;
    if (by_name) {
        row.name = r.get<std::string>(HEADER[0]);
        row.value = r.get<double>(HEADER[1]);
        row.count = r.get<std::int64_t>(HEADER[2]);
        row.flag = r.get<bool>(HEADER[3]);
        row.small = r.get<std::uint8_t>(HEADER[4]);
    } else {
        row.name = r.get<std::string>(0);
        row.value = r.get<double>(1);
        row.count = r.get<std::int64_t>(2);
        row.flag = r.get<bool>(3);
        row.small = r.get<std::uint8_t>(4);
    }
    return row;
}

std::string csv_quoted(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

template <class T>
std::string number(T v) {
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    if (ec != std::errc{}) die("to_chars failed");
    return std::string(buf, end);
}

void check(Bytes bytes) {
    if (bytes.empty()) return;
    const unsigned mode = bytes[0];
    burn::data::CsvOptions options;
    options.delimiter = ",\t;|"[mode & 3];
    options.has_headers = (mode & 4) != 0;
    options.flexible = (mode & 8) != 0;
    const bool typed = (mode & 16) != 0;
    const bool by_name = typed && options.has_headers && (mode & 32) != 0;
    const fs::path path = temp_dir() / "data.csv";
    write_file(path, bytes.subspan(1));
    const std::string sep(1, options.delimiter);

    if (typed) {
        auto parse = [by_name](const burn::data::CsvRow& r) { return typed_row(r, by_name); };
        std::vector<Row> rows;
        try {
            rows = burn::data::InMemDataset<Row>::from_csv(path, parse, options).items();
        } catch (const burn::Error&) {
            return;
        }
        // The rows written back in canonical form must read back the same.
        std::string text;
        if (options.has_headers) {
            for (int i = 0; i < 5; ++i) text += (i ? sep : "") + std::string(HEADER[i]);
            text += '\n';
        }
        for (const Row& r : rows)
            text += csv_quoted(r.name) + sep + number(r.value) + sep + std::to_string(r.count) +
                    sep + (r.flag ? "true" : "false") + sep + std::to_string(unsigned(r.small)) +
                    '\n';
        write_file(path, text);
        std::vector<Row> again;
        try {
            again = burn::data::InMemDataset<Row>::from_csv(path, parse, options).items();
        } catch (const burn::Error& e) {
            die("CSV rows written back do not load", e.what() + ("\n" + text));
        }
        bool equal = again.size() == rows.size();
        for (std::size_t i = 0; equal && i < rows.size(); ++i) equal = same(rows[i], again[i]);
        if (!equal) die("CSV rows written back load differently", text);
        return;
    }

    using Fields = std::vector<std::string>;
    auto keep = [](const std::vector<std::string_view>& f) { return Fields(f.begin(), f.end()); };
    std::optional<burn::data::InMemDataset<Fields>> ds;
    try {
        ds = burn::data::InMemDataset<Fields>::from_csv(path, keep, options);
    } catch (const burn::Error& e) {
        return rejected(e);
    }
    for (std::size_t i = 0; i < ds->len(); ++i)
        if (!ds->get(i)) die("InMemDataset::get returned nothing for an index below len()");
    // Every record written back with its fields quoted must tokenize to the same fields.
    std::string text;
    for (const Fields& record : ds->items()) {
        for (std::size_t i = 0; i < record.size(); ++i)
            text += (i ? sep : "") + csv_quoted(record[i]);
        text += '\n';
    }
    write_file(path, text);
    burn::data::CsvOptions plain = options;
    plain.has_headers = false;
    std::vector<Fields> again;
    try {
        again = burn::data::InMemDataset<Fields>::from_csv(path, keep, plain).items();
    } catch (const burn::Error& e) {
        die("CSV records written back do not load", e.what() + ("\n" + text));
    }
    if (again != ds->items()) die("CSV records written back tokenize differently", text);
}

#elif BURN_FUZZ_DATA == 2
// ------------------------------------------------------------------------------- JSON lines
// Input: a mode byte, then the file. Mode bit 0: 0 typed rows (Row below, through nlohmann's
// get<Row>()), 1 any JSON value per line.

struct Row {
    std::string name;
    double value = 0;
    std::int64_t count = 0;
    bool flag = false;
    std::vector<std::int32_t> tags;
    friend bool operator==(const Row&, const Row&) = default;
};

// nlohmann's get<integer>() of a floating-point JSON number out of the integer's range is
// undefined behaviour (a plain cast), so integer fields are read with a range check, as
// docs/datasets.md advises for row types fed untrusted files.
template <class T>
T checked_integer(const nlohmann::json& j) {
    if (j.is_number_float()) {
        const double v = j.get<double>();
        const double upper = std::ldexp(1.0, std::numeric_limits<T>::digits);  // max + 1
        const double lower = std::is_signed_v<T> ? -upper : 0.0;
        if (!(v >= lower && v < upper))
            throw nlohmann::json::other_error::create(501, "integer out of range", &j);
    }
    return j.get<T>();
}

void to_json(nlohmann::json& j, const Row& r) {
    j = {{"name", r.name},
         {"value", r.value},
         {"count", r.count},
         {"flag", r.flag},
         {"tags", r.tags}};
}
void from_json(const nlohmann::json& j, Row& r) {
    j.at("name").get_to(r.name);
    j.at("value").get_to(r.value);
    r.count = checked_integer<std::int64_t>(j.at("count"));
    j.at("flag").get_to(r.flag);
    const auto& tags = j.at("tags");
    if (!tags.is_array()) throw nlohmann::json::type_error::create(302, "tags: not an array", &j);
    r.tags.clear();
    for (const auto& t : tags) r.tags.push_back(checked_integer<std::int32_t>(t));
}

template <class I>
void round_trip(const fs::path& path, const std::vector<I>& items) {
    std::string text;
    for (const I& item : items) {
        try {
            text += nlohmann::json(item).dump() + '\n';
        } catch (const nlohmann::json::exception& e) {
            die("a JSON-lines item cannot be written", e.what());
        }
    }
    write_file(path, text);
    std::vector<I> again;
    try {
        again = burn::data::InMemDataset<I>::from_json_rows(path).items();
    } catch (const burn::Error& e) {
        die("JSON-lines items written back do not load", e.what() + ("\n" + text));
    }
    if (again != items) die("JSON-lines items written back load differently", text);
}

template <class I>
void check_as(const fs::path& path) {
    std::optional<burn::data::InMemDataset<I>> ds;
    try {
        ds = burn::data::InMemDataset<I>::from_json_rows(path);
    } catch (const burn::Error& e) {
        return rejected(e);
    }
    for (std::size_t i = 0; i < ds->len(); ++i)
        if (!ds->get(i)) die("InMemDataset::get returned nothing for an index below len()");
    round_trip(path, ds->items());
}

void check(Bytes bytes) {
    if (bytes.empty()) return;
    const fs::path path = temp_dir() / "data.jsonl";
    write_file(path, bytes.subspan(1));
    if ((bytes[0] & 1) == 0) check_as<Row>(path);
    else check_as<nlohmann::json>(path);
}

#elif BURN_FUZZ_DATA == 3
// ----------------------------------------------------------------------------- image folder
// Input: a byte choosing the file's extension among supported_extensions(), then the image
// file, written as <dir>/root/class/image.<extension>.

void check(Bytes bytes) {
    if (bytes.empty()) return;
    using burn::data::ImageFolderDataset;
    const auto& extensions = ImageFolderDataset::supported_extensions();
    const fs::path root = temp_dir() / "root", cls = root / "class";
    static fs::path previous;
    std::error_code ec;
    if (previous.empty()) {
        fs::create_directories(cls);
        // Images up to the default 256 MiB decode for seconds under the sanitizers: the fuzzer
        // looks for crashes, not for slow but bounded decodes, so it uses a smaller bound.
        ImageFolderDataset::set_max_decoded_bytes(std::uint64_t(16) << 20);
    } else fs::remove(previous, ec);
    previous = cls / ("image." + extensions[bytes[0] % extensions.size()]);
    write_file(previous, bytes.subspan(1));

    std::optional<ImageFolderDataset> ds;
    try {
        ds = ImageFolderDataset::new_classification(root);
    } catch (const burn::Error& e) {
        die("ImageFolderDataset refuses a folder with one image", e.what());
    }
    if (ds->len() != 1 || ds->num_classes() != 1) die("ImageFolderDataset: expected one image");
    std::optional<burn::data::ImageDatasetItem> item;
    try {
        item = ds->get(0);
    } catch (const burn::Error& e) {
        return rejected(e);
    }
    if (!item) die("ImageFolderDataset::get returned nothing for index 0");
    const bool u8 = item->depth == burn::data::PixelDepth::U8;
    const std::size_t values = u8 ? item->image.size() : item->image_u16.size();
    if (item->width == 0 || item->height == 0 || item->channels < 1 || item->channels > 4 ||
        values != item->num_values() || (u8 ? !item->image_u16.empty() : !item->image.empty()))
        die("ImageFolderDataset: a decoded item's sizes do not match its pixels");
    if (item->label() != 0) die("ImageFolderDataset: wrong label");
}

#else
// ----------------------------------------------------------------------------------- SQLite
// Input: a mode byte, then the database file. Mode bit 0: 0 typed rows (Row below, through
// nlohmann's get<Row>()), 1 any JSON value per row. Bit 1: split "train", else "test". The
// items of whatever opens are read (all of them: a database of at most -max_len bytes holds a
// bounded number of rows) and, when NaN-free, written back by SqliteDatasetWriter in both
// layouts (typed rows) or serialized (JSON values) and read again: they must be unchanged.

struct Row {
    std::string name;
    double value = 0;
    std::int64_t count = 0;
    bool flag = false;
    std::vector<std::int32_t> tags;
    friend bool operator==(const Row&, const Row&) = default;
};

// As in the JSON-lines target: integers read with a range check (nlohmann's get<integer>() of
// an out-of-range float is a plain cast).
template <class T>
T checked_integer(const nlohmann::json& j) {
    if (j.is_number_float()) {
        const double v = j.get<double>();
        const double upper = std::ldexp(1.0, std::numeric_limits<T>::digits);
        const double lower = std::is_signed_v<T> ? -upper : 0.0;
        if (!(v >= lower && v < upper))
            throw nlohmann::json::other_error::create(501, "integer out of range", &j);
    }
    return j.get<T>();
}

void to_json(nlohmann::json& j, const Row& r) {
    j = {{"name", r.name},
         {"value", r.value},
         {"count", r.count},
         {"flag", r.flag},
         {"tags", r.tags}};
}
void from_json(const nlohmann::json& j, Row& r) {
    j.at("name").get_to(r.name);
    j.at("value").get_to(r.value);
    r.count = checked_integer<std::int64_t>(j.at("count"));
    j.at("flag").get_to(r.flag);
    const auto& tags = j.at("tags");
    if (!tags.is_array()) throw nlohmann::json::type_error::create(302, "tags: not an array", &j);
    r.tags.clear();
    for (const auto& t : tags) r.tags.push_back(checked_integer<std::int32_t>(t));
}

bool nan_free(const Row& r) { return !std::isnan(r.value); }
bool nan_free(const nlohmann::json& j) { return j == j; }

template <class I>
void round_trip(const std::vector<I>& items, burn::data::SqliteStorage storage) {
    const fs::path again = temp_dir() / "again.db";
    try {
        burn::data::write_sqlite_dataset(burn::data::InMemDataset<I>(items), again, "split",
                                         {storage, burn::data::SqliteExisting::Overwrite});
    } catch (const burn::Error& e) {
        // Text that is not a JSON string (invalid UTF-8 is kept as is) or values out of an
        // SQLite INTEGER's range may not be writable: refused, not crashed.
        return rejected(e);
    }
    try {
        burn::data::SqliteDataset<I> ds(again, "split");
        if (ds.len() != items.size()) die("SqliteDataset: written items read back a wrong length");
        for (std::size_t i = 0; i < items.size(); ++i)
            if (!(*ds.get(i) == items[i])) die("SqliteDataset: an item written back differs");
    } catch (const burn::Error& e) {
        die("SqliteDataset: items written back do not load", e.what());
    }
}

template <class I>
void check_as(const fs::path& path, const std::string& split) {
    std::vector<I> items;
    try {
        burn::data::SqliteDataset<I> ds(path, split);
        const std::size_t n = ds.len();
        for (std::size_t i = 0; i < n; ++i) {
            auto item = ds.get(i);
            if (!item) die("SqliteDataset::get returned nothing for an index below len()");
            items.push_back(std::move(*item));
        }
        if (ds.get(n)) die("SqliteDataset::get returned an item past the end");
    } catch (const burn::Error& e) {
        return rejected(e);
    }
    for (const auto& item : items)
        if (!nan_free(item)) return;
    round_trip(items, burn::data::SqliteStorage::Serialized);
    if constexpr (std::is_same_v<I, Row>) round_trip(items, burn::data::SqliteStorage::Columns);
}

void check(Bytes bytes) {
    if (bytes.empty()) return;
    const fs::path path = temp_dir() / "data.db";
    write_file(path, bytes.subspan(1));
    const std::string split = (bytes[0] & 2) == 0 ? "train" : "test";
    if ((bytes[0] & 1) == 0) check_as<Row>(path, split);
    else check_as<nlohmann::json>(path, split);
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    check(Bytes(data, size));
    return 0;
}

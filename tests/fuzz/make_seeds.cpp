// SPDX-License-Identifier: MIT OR Apache-2.0
// Writes the seed corpora of the fuzzers: a few valid records (nested maps, lists, every
// tensor dtype, a quantized tensor, scalars, strings, empty tensors) encoded by each loader's
// recorder, so that the fuzzers start from inputs that pass the header checks; small
// safetensors files; the committed torch.save outputs of tests/fuzz/seeds/pytorch
// (gen_pytorch_seeds.py writes them; BURN_FUZZ_SEED_DIR is tests/fuzz/seeds); config JSON
// texts; small MNIST IDX pairs; CSV and JSON-lines files; and tiny images of every format the
// image-folder reader decodes; small SQLite databases of both layouts. Each fuzzer's input layout
// (the leading mode bytes) is described in its source (fuzz_record.cpp, fuzz_config.cpp,
// fuzz_data.cpp).
//
//   burn_fuzz_make_seeds <dir>   # writes <dir>/mpk, <dir>/bin, <dir>/gz, <dir>/json,
//                                # <dir>/safetensors, <dir>/pytorch, <dir>/config, <dir>/mnist,
//                                # <dir>/csv, <dir>/jsonl, <dir>/image_folder, <dir>/sqlite
#include <zlib.h>

#include <algorithm>
#include <burn/data/in_memory.hpp>
#include <burn/data/sqlite.hpp>
#include <burn/record/recorder.hpp>
#include <burn/record/state_dict.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

// stb_image_write (Debian's libstb-dev), with internal linkage, for the PNG, BMP, TGA and JPEG
// seeds of the image-folder fuzzer.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#if __has_include(<stb/stb_image_write.h>)
#include <stb/stb_image_write.h>
#else
#include <stb_image_write.h>
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#ifndef BURN_FUZZ_SEED_DIR
#error "define BURN_FUZZ_SEED_DIR (tests/fuzz/seeds)"
#endif

namespace {
using namespace burn;
using namespace burn::record;

std::vector<Record> seed_records() {
    std::vector<Record> out;
    out.emplace_back(Record::Map{});

    Record small;
    small.add("weight", TensorItem{TensorData::from_nested<float, 2>({{1, 2, 3}, {4, 5, 6}}),
                                   module::ParamId(0x1234)});
    small.add("bias", TensorItem{TensorData::from<float>({0.5f, -1.0f}), module::ParamId(7)});
    out.push_back(small);

    Record all;
    all.add("f64", TensorItem{TensorData::from<double>({1.5, -2.25}), module::ParamId(1)});
    all.add("f16", TensorItem{TensorData::from<f16>({f16(1.0f), f16(-3.5f)}), module::ParamId(2)});
    all.add("i64", TensorItem{TensorData::from<std::int64_t>({-9, 8}), module::ParamId(3)});
    all.add("i32", TensorItem{TensorData::from<std::int32_t>({4}), module::ParamId(4)});
    all.add("u8", TensorItem{TensorData::from<std::uint8_t>({0, 255}), module::ParamId(5)});
    all.add("mask", TensorItem{TensorData::from<bool>({true, false, true}), module::ParamId(6)});
    all.add("empty", TensorItem{TensorData::zeros(Shape{0, 3}, DType::F32), module::ParamId(8)});
    QuantizationInfo q;
    q.scales = {0.1f};
    q.offsets = {3};
    all.add("q",
            TensorItem{TensorData::quantized({-4, 0, 9, 127}, Shape{2, 2}, q), module::ParamId(9)});
    Record nested;
    nested.add("epsilon", Record(1e-5));
    nested.add("steps", Record(std::int64_t{42}));
    nested.add("affine", Record(true));
    nested.add("name", Record(std::string("block")));
    nested.add("absent", Record(Record::None{}));
    all.add("config", nested);
    Record::List blocks;
    for (int i = 0; i < 3; ++i) {
        Record b;
        b.add("w", TensorItem{TensorData::full(Shape{2, 2}, float(i)), module::ParamId(10 + i)});
        blocks.push_back(b);
    }
    all.add("blocks", Record(std::move(blocks)));
    out.push_back(all);
    return out;
}

std::vector<Safetensors> seed_safetensors() {
    std::vector<Safetensors> out;
    out.push_back({});
    Safetensors linear;
    linear.tensors.push_back({"fc.weight", TensorData::from_nested<float, 2>({{1, 2}, {3, 4}})});
    linear.tensors.push_back({"fc.bias", TensorData::from<float>({0.5f, -1.0f})});
    linear.metadata = {{"format", "pt"}};
    out.push_back(std::move(linear));
    Safetensors all;
    all.tensors.push_back({"f64", TensorData::from<double>({1.5, -2.25})});
    all.tensors.push_back({"f16", TensorData::from<f16>({f16(1.0f), f16(-3.5f)})});
    all.tensors.push_back({"bf16", TensorData::from<bf16>({bf16(0.5f)})});
    all.tensors.push_back({"i64", TensorData::from<std::int64_t>({-9, 8})});
    all.tensors.push_back({"i32", TensorData::from<std::int32_t>({4})});
    all.tensors.push_back({"i16", TensorData::from<std::int16_t>({-300})});
    all.tensors.push_back({"i8", TensorData::from<std::int8_t>({-128, 127})});
    all.tensors.push_back({"u8", TensorData::from<std::uint8_t>({0, 255})});
    all.tensors.push_back({"mask", TensorData::from<bool>({true, false, true})});
    all.tensors.push_back({"empty", TensorData::zeros(Shape{0, 3}, DType::F32)});
    all.tensors.push_back({"scalar", TensorData(std::vector<float>{42.0f}, Shape{})});
    all.tensors.push_back({"r3", TensorData::zeros(Shape{1, 2, 2}, DType::F32)});
    all.metadata = {{"framework", "burn-cpp"}, {"note", "\"quoted\" \u00e9"}};
    out.push_back(std::move(all));
    return out;
}

void write(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!f) throw Error("burn_fuzz_make_seeds: cannot write " + path.string());
}

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }

/// `mode` bytes, then `rest`.
Bytes prefixed(std::initializer_list<std::uint8_t> mode, const Bytes& rest) {
    Bytes out(mode);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
}

Bytes gzip(const Bytes& in) {
    z_stream z{};
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw Error("burn_fuzz_make_seeds: deflateInit2 failed");
    Bytes out(deflateBound(&z, uLong(in.size())) + 32);
    z.next_in = const_cast<Bytef*>(in.data());
    z.avail_in = uInt(in.size());
    z.next_out = out.data();
    z.avail_out = uInt(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw Error("burn_fuzz_make_seeds: deflate failed");
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

void put_be(Bytes& out, std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(std::uint8_t(v >> (8 * i)));
}

// ---------------------------------------------------------------- configs (fuzz_config.cpp)
std::vector<std::string> seed_configs() {
    return {
        R"({"model": {"d_model": 512}})",
        R"({
  // the config of fuzz_config.cpp, every field set
  "model": {"d_model": 64, "dropout": 0.25, "eps": 1e-06, "scale": 2.5,
            "activation": "gelu", "name": "encoder", "init": {"Constant": {"value": 0.5}}},
  "shuffle": false, "i8": -128, "u8": 255, "i16": -32768, "u16": 65535,
  "i32": -2147483648, "u32": 4294967295, "i64": -9223372036854775808,
  "u64": 18446744073709551615, "learning_rate": "NaN", "momentum": "-inf", "level": 7,
  "optimizer": "sgd \"quoted\" \u00e9", "seed": 42,
  "head": {"d_model": 10, "name": null, "init": "Ones"},
  "mask": [true, true, false], "layers": [], "tags": ["a", "b"],
  "blocks": [{"d_model": 1, "init": {"Uniform": {"min": -0.5, "max": 0.5}}}],
  "mean": [0.1, 0.2, 0.3], "weights": {"x": 1.5, "y": -2},
  "groups": {"g": ["p", "q"], "empty": []},
  "inits": ["Ones", {"Constant": {"value": 3}}],
  "tree": {"label": "root", "weight": 1, "children": [
    {"label": "a", "children": [{"label": "a1", "children": []}]},
    {"label": "b", "weight": null}]},
  "unknown_field": {"ignored": [1, 2, 3]}
})",
        R"({"model": {"d_model": 3, "activation": "tanh"}, "seed": null, /* c */ "layers": [1]})",
    };
}

// ------------------------------------------------------------------ MNIST (fuzz_data.cpp)
Bytes idx_images(std::size_t count) {
    Bytes out;
    put_be(out, 2051, 4);
    put_be(out, count, 4);
    put_be(out, 28, 4);
    put_be(out, 28, 4);
    for (std::size_t i = 0; i < count * 784; ++i) out.push_back(std::uint8_t((i * 13) % 256));
    return out;
}

Bytes idx_labels(std::size_t count) {
    Bytes out;
    put_be(out, 2049, 4);
    put_be(out, count, 4);
    for (std::size_t i = 0; i < count; ++i) out.push_back(std::uint8_t((i * 3) % 10));
    return out;
}

/// Mode 0 (or 3: gzip-compressed by the fuzzer): images then labels, split at images.size().
Bytes mnist_split(std::uint8_t mode, const Bytes& images, const Bytes& labels) {
    Bytes rest = images;
    rest.insert(rest.end(), labels.begin(), labels.end());
    return prefixed({mode, std::uint8_t(images.size()), std::uint8_t(images.size() >> 8)}, rest);
}

std::vector<Bytes> seed_mnist() {
    return {
        mnist_split(0, idx_images(2), idx_labels(2)),
        mnist_split(0, idx_images(0), idx_labels(0)),
        mnist_split(3, idx_images(3), idx_labels(3)),
        mnist_split(0, gzip(idx_images(2)), gzip(idx_labels(2))),
        prefixed({1, 2, 0}, idx_images(2)),        // images; 2 valid labels
        prefixed({5, 1, 0}, gzip(idx_images(1))),  // gzip images; 1 valid gzip label
        prefixed({2, 4, 0}, idx_labels(4)),        // labels; 4 valid images
        prefixed({6, 1, 0}, gzip(idx_labels(1))),  // gzip labels; 1 valid gzip image
    };
}

// ------------------------------------------------------------ CSV, JSON lines (fuzz_data.cpp)
std::vector<Bytes> seed_csv() {
    // Options byte: bits 0-1 delimiter (, TAB ; |), 4 has_headers, 8 flexible, 16 typed,
    // 32 typed by header name.
    return {
        prefixed({4 | 16}, bytes_of("name,value,count,flag,small\n"
                                    "alpha,1.5,-3,true,7\r\n"
                                    "\"be,ta\",1e-3,42,0,255\n"
                                    "\"multi\nline \"\"q\"\"\",-inf, +5 ,1,0\n")),
        prefixed({4 | 16 | 32}, bytes_of("\xEF\xBB\xBFsmall,flag,count,value,name\n"
                                         "1,false,9223372036854775807,nan,x\n\n"
                                         "2,true,-9223372036854775808,0.1,\"\"\n")),
        prefixed({16 | 1}, bytes_of("a\t2.5\t3\ttrue\t4\nb\t-0\t0\tfalse\t0\n")),
        prefixed({0}, bytes_of("a,b,\"c\"\"d\"\n1,,3\r\n\"x\ny\",z,\n")),
        prefixed({4 | 8 | 2}, bytes_of("h1;h2\none\ntwo;three;four\n;\n")),
        prefixed({3}, bytes_of("p|q\n\"|\"|\"\"\n")),
    };
}

std::vector<Bytes> seed_jsonl() {
    // Mode byte: 0 typed rows {name, value, count, flag, tags}, 1 any JSON value per line.
    return {
        prefixed({0}, bytes_of("{\"name\": \"a\", \"value\": 1.5, \"count\": 3, \"flag\": true, "
                               "\"tags\": [1, 2]}\n"
                               "\n"
                               "{\"name\": \"\\u00e9\\n\", \"value\": -2e-5, \"count\": -9, "
                               "\"flag\": false, \"tags\": []}\r\n")),
        prefixed({1}, bytes_of("{\"x\": [1, 2.5, null, true, \"s\"], \"y\": {\"z\": {}}}\n"
                               "42\n\"text\"\n[]\n-0.0\n18446744073709551615\n")),
    };
}

// --------------------------------------------------------------- images (fuzz_data.cpp)
Bytes png_chunk(const char* type, const Bytes& data) {
    Bytes out;
    put_be(out, data.size(), 4);
    Bytes body(type, type + 4);
    body.insert(body.end(), data.begin(), data.end());
    out.insert(out.end(), body.begin(), body.end());
    put_be(out, crc32(0, body.data(), uInt(body.size())), 4);
    return out;
}

/// A PNG written by hand (stb_image_write writes 8-bit only): `depth` 1, 8 or 16 bits,
/// `color` 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA; filter byte 0 on every row.
Bytes png(std::uint32_t w, std::uint32_t h, int depth, int color) {
    const int channels = color == 2 ? 3 : color == 4 ? 2 : color == 6 ? 4 : 1;
    const std::size_t row = (std::size_t(w) * channels * depth + 7) / 8;
    Bytes raw;
    for (std::uint32_t y = 0; y < h; ++y) {
        raw.push_back(0);
        for (std::size_t x = 0; x < row; ++x) raw.push_back(std::uint8_t(x * 31 + y * 17));
    }
    uLongf size = compressBound(uLong(raw.size()));
    Bytes z(size);
    if (compress(z.data(), &size, raw.data(), uLong(raw.size())) != Z_OK)
        throw Error("burn_fuzz_make_seeds: compress failed");
    z.resize(size);
    Bytes ihdr;
    put_be(ihdr, w, 4);
    put_be(ihdr, h, 4);
    ihdr.insert(ihdr.end(), {std::uint8_t(depth), std::uint8_t(color), 0, 0, 0});
    Bytes out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    auto add = [&](const Bytes& c) { out.insert(out.end(), c.begin(), c.end()); };
    add(png_chunk("IHDR", ihdr));
    if (color == 3) add(png_chunk("PLTE", Bytes(3 * (1u << depth), 0x80)));
    add(png_chunk("IDAT", z));
    add(png_chunk("IEND", {}));
    return out;
}

/// A PSD of `channels` planes of `depth` bits, raw (compression 0) or RLE (1).
Bytes psd(std::uint32_t w, std::uint32_t h, int channels, int depth, bool rle) {
    Bytes out = bytes_of("8BPS");
    put_be(out, 1, 2);            // version
    out.insert(out.end(), 6, 0);  // reserved
    put_be(out, channels, 2);
    put_be(out, h, 4);
    put_be(out, w, 4);
    put_be(out, depth, 2);
    put_be(out, 3, 2);  // RGB
    put_be(out, 0, 4);  // colour mode data
    put_be(out, 0, 4);  // image resources
    put_be(out, 0, 4);  // layers and masks
    put_be(out, rle ? 1 : 0, 2);
    const std::size_t bytes = depth / 8;
    if (!rle) {
        for (std::size_t i = 0; i < std::size_t(channels) * w * h * bytes; ++i)
            out.push_back(std::uint8_t(i * 7));
        return out;
    }
    // Per row: a run of w equal bytes (PackBits: 1 - w, then the byte).
    for (int c = 0; c < channels; ++c)
        for (std::uint32_t y = 0; y < h; ++y) put_be(out, 2, 2);
    for (int c = 0; c < channels; ++c)
        for (std::uint32_t y = 0; y < h; ++y) {
            out.push_back(std::uint8_t(1 - int(w)));
            out.push_back(std::uint8_t(c * 60 + y));
        }
    return out;
}

Bytes pnm(const char* magic, int w, int h, int max, int channels) {
    Bytes out = bytes_of(std::string(magic) + "\n# seed\n" + std::to_string(w) + " " +
                         std::to_string(h) + "\n" + std::to_string(max) + "\n");
    const int bytes = max > 255 ? 2 : 1;
    for (int i = 0; i < w * h * channels * bytes; ++i) out.push_back(std::uint8_t(i * 11));
    return out;
}

void to_vector(void* context, void* data, int size) {
    auto* out = static_cast<Bytes*>(context);
    const auto* p = static_cast<const std::uint8_t*>(data);
    out->insert(out->end(), p, p + size);
}

std::vector<Bytes> seed_images() {
    // The first byte picks the extension: supported_extensions() is bmp gif jpeg jpg pgm png
    // pnm ppm psd tga; the decoder goes by the content, not the extension.
    enum : std::uint8_t { bmp, gif, jpeg, jpg, pgm, png_, pnm_, ppm, psd_, tga };
    std::vector<Bytes> out;
    auto stb = [&](std::uint8_t ext, int channels, auto&& write) {
        const int w = 5, h = 3;
        Bytes px(std::size_t(w * h * channels));
        for (std::size_t i = 0; i < px.size(); ++i) px[i] = std::uint8_t(i * 23);
        Bytes file;
        if (write(&file, w, h, channels, px.data()) == 0)
            throw Error("burn_fuzz_make_seeds: stb_image_write failed");
        out.push_back(prefixed({ext}, file));
    };
    for (int c : {1, 3, 4}) {
        stb(png_, c, [](Bytes* f, int w, int h, int ch, const std::uint8_t* p) {
            return stbi_write_png_to_func(to_vector, f, w, h, ch, p, w * ch);
        });
        stb(bmp, c, [](Bytes* f, int w, int h, int ch, const std::uint8_t* p) {
            return stbi_write_bmp_to_func(to_vector, f, w, h, ch, p);
        });
        stb(tga, c, [](Bytes* f, int w, int h, int ch, const std::uint8_t* p) {
            return stbi_write_tga_to_func(to_vector, f, w, h, ch, p);
        });
        stb(jpg, c, [](Bytes* f, int w, int h, int ch, const std::uint8_t* p) {
            return stbi_write_jpg_to_func(to_vector, f, w, h, ch, p, 90);
        });
    }
    out.push_back(prefixed({png_}, png(3, 2, 16, 2)));  // 16-bit RGB
    out.push_back(prefixed({png_}, png(4, 2, 16, 0)));  // 16-bit grey
    out.push_back(prefixed({png_}, png(7, 3, 1, 0)));   // 1-bit grey
    out.push_back(prefixed({png_}, png(3, 3, 2, 3)));   // 2-bit palette
    out.push_back(prefixed({png_}, png(2, 2, 8, 4)));   // grey + alpha
    out.push_back(prefixed({psd_}, psd(3, 2, 3, 8, false)));
    out.push_back(prefixed({psd_}, psd(4, 2, 4, 8, true)));
    out.push_back(prefixed({psd_}, psd(2, 2, 3, 16, false)));
    out.push_back(prefixed({pgm}, pnm("P5", 3, 2, 255, 1)));
    out.push_back(prefixed({pgm}, pnm("P5", 2, 2, 65535, 1)));
    out.push_back(prefixed({ppm}, pnm("P6", 2, 3, 255, 3)));
    out.push_back(prefixed({pnm_}, pnm("P6", 1, 1, 1000, 3)));
    // A 1x1 GIF89a (white, transparent) and a 2x2 GIF87a with a 4-colour table.
    out.push_back(
        prefixed({gif}, {'G',  'I', 'F', '8', '9',  'a',  1, 0, 1, 0,    0x80, 0, 0,    0xff, 0xff,
                         0xff, 0,   0,   0,   0x21, 0xf9, 4, 1, 0, 0,    0,    0, 0x2c, 0,    0,
                         0,    0,   1,   0,   1,    0,    0, 2, 2, 0x44, 1,    0, 0x3b}));
    out.push_back(
        prefixed({gif}, {'G', 'I', 'F', '8', '7', 'a', 2,   0, 2, 0,    0x81, 0,    0, 0,
                         0,   0,   255, 0,   0,   0,   255, 0, 0, 0,    255,  0x2c, 0, 0,
                         0,   0,   2,   0,   2,   0,   0,   2, 3, 0x84, 0x1d, 0x05, 0, 0x3b}));
    return out;
}
// ------------------------------------------------------------------ SQLite (fuzz_data.cpp)
struct SeedRow {
    std::string name;
    double value = 0;
    std::int64_t count = 0;
    bool flag = false;
    std::vector<std::int32_t> tags;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SeedRow, name, value, count, flag, tags)

/// The bytes of a database written by SqliteDatasetWriter (through a file in `dir`).
template <class I>
Bytes sqlite_file(const std::filesystem::path& dir,
                  const std::vector<std::pair<std::string, std::vector<I>>>& splits,
                  data::SqliteStorage storage) {
    const auto path = dir / "seed.db";
    {
        data::SqliteDatasetWriter<I> writer(path, /*overwrite=*/true, storage);
        for (const auto& [split, items] : splits)
            writer.write_dataset(split, data::InMemDataset<I>(items));
        writer.set_completed();
    }
    std::ifstream in(path, std::ios::binary);
    Bytes out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(path);
    return out;
}

std::vector<Bytes> seed_sqlite(const std::filesystem::path& dir) {
    // Mode byte: bit 0 typed rows (0) or JSON values (1); bit 1 split "train" (0) or "test".
    const std::vector<SeedRow> rows = {{"a", 1.5, 3, true, {1, 2}},
                                       {"\xc3\xa9", -2e-5, -9, false, {}},
                                       {"", 0, 1LL << 40, true, {-1}}};
    using J = nlohmann::json;
    const std::vector<J> values = {
        J{{"x", {1, 2.5, nullptr, true, "s"}}, {"y", {{"z", J::object()}}}}, J(42), J("text"),
        J::binary({1, 2, 3}, 7), J::array()};
    return {
        prefixed({0},
                 sqlite_file<SeedRow>(dir, {{"train", rows}}, data::SqliteStorage::Serialized)),
        prefixed({0}, sqlite_file<SeedRow>(dir, {{"train", rows}, {"test", {rows[1]}}},
                                           data::SqliteStorage::Columns)),
        prefixed({2}, sqlite_file<SeedRow>(dir, {{"train", {}}, {"test", rows}},
                                           data::SqliteStorage::Columns)),
        prefixed({1}, sqlite_file<J>(dir, {{"train", values}}, data::SqliteStorage::Serialized)),
        prefixed({3}, sqlite_file<J>(dir, {{"test", {J{{"k", 1}, {"b", J::binary({9})}}}}},
                                     data::SqliteStorage::Columns)),
    };
}
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
        return 2;
    }
    const std::filesystem::path root = argv[1];
    for (const char* sub : {"mpk", "bin", "gz", "json", "safetensors", "pytorch", "config", "mnist",
                            "csv", "jsonl", "image_folder", "onnx", "sqlite"})
        std::filesystem::create_directories(root / sub);
    const auto records = seed_records();
    for (std::size_t i = 0; i < records.size(); ++i) {
        const std::string n = "seed" + std::to_string(i);
        write(root / "mpk" / n, NamedMpkFileRecorder<FullPrecisionSettings>{}.to_bytes(records[i]));
        write(root / "bin" / n, BinBytesRecorder<FullPrecisionSettings>{}.to_bytes(records[i]));
        // The gzip fuzzer's first byte picks the format: even = NamedMpkGz, odd = BinGz.
        auto gz_mpk = NamedMpkGzFileRecorder<FullPrecisionSettings>{}.to_bytes(records[i]);
        gz_mpk.insert(gz_mpk.begin(), std::uint8_t{0});
        write(root / "gz" / (n + "-mpk"), gz_mpk);
        auto gz_bin = BinGzFileRecorder<FullPrecisionSettings>{}.to_bytes(records[i]);
        gz_bin.insert(gz_bin.begin(), std::uint8_t{1});
        write(root / "gz" / (n + "-bin"), gz_bin);
        // The JSON fuzzer's first byte: even = PrettyJson, odd = JsonGz.
        write(root / "json" / (n + "-pretty"),
              prefixed({0}, PrettyJsonFileRecorder<FullPrecisionSettings>{}.to_bytes(records[i])));
        write(root / "json" / (n + "-gz"),
              prefixed({1}, JsonGzFileRecorder<FullPrecisionSettings>{}.to_bytes(records[i])));
    }
    const auto st = seed_safetensors();
    for (std::size_t i = 0; i < st.size(); ++i)
        write(root / "safetensors" / ("seed" + std::to_string(i)),
              safetensors_to_bytes(st[i].tensors, st[i].metadata));
    const std::filesystem::path pt = std::filesystem::path(BURN_FUZZ_SEED_DIR) / "pytorch";
    for (const auto& e : std::filesystem::directory_iterator(pt))
        if (e.path().extension() == ".pt")
            std::filesystem::copy_file(e.path(), root / "pytorch" / e.path().filename(),
                                       std::filesystem::copy_options::overwrite_existing);
    auto write_all = [&](const char* sub, const std::vector<Bytes>& seeds) {
        for (std::size_t i = 0; i < seeds.size(); ++i)
            write(root / sub / ("seed" + std::to_string(i)), seeds[i]);
    };
    std::vector<Bytes> configs;
    for (const auto& text : seed_configs()) configs.push_back(bytes_of(text));
    write_all("config", configs);
    write_all("mnist", seed_mnist());
    write_all("csv", seed_csv());
    write_all("jsonl", seed_jsonl());
    write_all("image_folder", seed_images());
    // ONNX: every small model of the backend test suite's node folder (one per op and variant,
    // when libonnx-testdata is installed) and the example's CNN.
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(BURN_FUZZ_ONNX_SEEDS, ec)) {
        const auto model = e.path() / "model.onnx";
        if (std::filesystem::is_regular_file(model, ec) &&
            std::filesystem::file_size(model, ec) <= 4096)
            std::filesystem::copy_file(model, root / "onnx" / e.path().filename(),
                                       std::filesystem::copy_options::overwrite_existing, ec);
    }
    std::filesystem::copy_file(BURN_FUZZ_ONNX_EXAMPLE, root / "onnx" / "mnist.onnx",
                               std::filesystem::copy_options::overwrite_existing, ec);
    write_all("sqlite", seed_sqlite(root / "sqlite"));
    return 0;
}

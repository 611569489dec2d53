// SPDX-License-Identifier: MIT OR Apache-2.0
// ImageFolderDataset: class discovery and order, pixel round trips (PNG, BMP, TGA lossless; JPEG
// approximately; 16-bit PNG and PGM), extension filters, explicit items, errors naming the file
// or directory, concurrent decoding, and a DataLoader over the images. The images are written
// by the tests with stb_image_write (and by hand for 16-bit files).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <burn/data/dataloader.hpp>
#include <burn/data/image_folder.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "test_support.hpp"

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

namespace fs = std::filesystem;
using burn::data::Annotation;
using burn::data::ImageDatasetItem;
using burn::data::ImageFolderDataset;
using burn::data::Label;
using burn::data::MultiLabel;
using burn::data::PixelDepth;

static_assert(burn::data::Dataset<ImageFolderDataset>);

namespace {

using Bytes = std::vector<std::uint8_t>;

// Value of channel c of pixel (x, y) of the test images (`seed` tells images apart).
std::uint8_t value_of(std::size_t x, std::size_t y, std::size_t c, std::size_t seed) {
    return static_cast<std::uint8_t>((x * 37 + y * 11 + c * 71 + seed * 13) % 256);
}

Bytes make_pixels(std::size_t w, std::size_t h, std::size_t channels, std::size_t seed) {
    Bytes px(w * h * channels);
    for (std::size_t y = 0; y < h; ++y)
        for (std::size_t x = 0; x < w; ++x)
            for (std::size_t c = 0; c < channels; ++c)
                px[(y * w + x) * channels + c] = value_of(x, y, c, seed);
    return px;
}

void ensure_parent(const fs::path& path) { fs::create_directories(path.parent_path()); }

void write_png(const fs::path& path, std::size_t w, std::size_t h, std::size_t channels,
               std::size_t seed = 0) {
    ensure_parent(path);
    const Bytes px = make_pixels(w, h, channels, seed);
    ASSERT_NE(stbi_write_png(path.string().c_str(), int(w), int(h), int(channels), px.data(),
                             int(w * channels)),
              0)
        << path;
}

void write_bmp(const fs::path& path, std::size_t w, std::size_t h, std::size_t channels,
               std::size_t seed = 0) {
    ensure_parent(path);
    const Bytes px = make_pixels(w, h, channels, seed);
    ASSERT_NE(stbi_write_bmp(path.string().c_str(), int(w), int(h), int(channels), px.data()), 0)
        << path;
}

void write_tga(const fs::path& path, std::size_t w, std::size_t h, std::size_t channels,
               std::size_t seed = 0) {
    ensure_parent(path);
    const Bytes px = make_pixels(w, h, channels, seed);
    ASSERT_NE(stbi_write_tga(path.string().c_str(), int(w), int(h), int(channels), px.data()), 0)
        << path;
}

// A JPEG of one flat colour (JPEG is lossy: flat colours survive almost exactly).
void write_flat_jpg(const fs::path& path, std::size_t w, std::size_t h,
                    std::array<std::uint8_t, 3> rgb) {
    ensure_parent(path);
    Bytes px(w * h * 3);
    for (std::size_t i = 0; i < w * h; ++i)
        for (std::size_t c = 0; c < 3; ++c) px[i * 3 + c] = rgb[c];
    ASSERT_NE(stbi_write_jpg(path.string().c_str(), int(w), int(h), 3, px.data(), 100), 0) << path;
}

void write_bytes(const fs::path& path, const Bytes& b) {
    ensure_parent(path);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    ASSERT_TRUE(out.good()) << path;
}

Bytes read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return Bytes((std::istreambuf_iterator<char>(in)), {});
}

std::uint16_t value16(std::size_t x, std::size_t y, std::size_t c) {
    return static_cast<std::uint16_t>((x * 4099 + y * 257 + c * 10007 + 300) % 65536);
}

void put_be32(Bytes& b, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(v >> s));
}

void png_chunk(Bytes& png, const char* type, const Bytes& data) {
    put_be32(png, static_cast<std::uint32_t>(data.size()));
    Bytes body(type, type + 4);
    body.insert(body.end(), data.begin(), data.end());
    png.insert(png.end(), body.begin(), body.end());
    put_be32(png,
             static_cast<std::uint32_t>(::crc32(0, body.data(), static_cast<uInt>(body.size()))));
}

// A 16-bit PNG (grey: channels 1, RGB: channels 3), written by hand (stb_image_write only
// writes 8-bit PNGs).
void write_png16(const fs::path& path, std::size_t w, std::size_t h, std::size_t channels) {
    Bytes raw;
    for (std::size_t y = 0; y < h; ++y) {
        raw.push_back(0);  // filter: none
        for (std::size_t x = 0; x < w; ++x)
            for (std::size_t c = 0; c < channels; ++c) {
                const std::uint16_t v = value16(x, y, c);
                raw.push_back(static_cast<std::uint8_t>(v >> 8));
                raw.push_back(static_cast<std::uint8_t>(v & 0xff));
            }
    }
    uLongf zsize = compressBound(static_cast<uLong>(raw.size()));
    Bytes z(zsize);
    ASSERT_EQ(compress(z.data(), &zsize, raw.data(), static_cast<uLong>(raw.size())), Z_OK);
    z.resize(zsize);
    Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    Bytes ihdr;
    put_be32(ihdr, static_cast<std::uint32_t>(w));
    put_be32(ihdr, static_cast<std::uint32_t>(h));
    ihdr.push_back(16);                     // bit depth
    ihdr.push_back(channels == 1 ? 0 : 2);  // colour type: grey / RGB
    ihdr.insert(ihdr.end(), {0, 0, 0});     // compression, filter, interlace
    png_chunk(png, "IHDR", ihdr);
    png_chunk(png, "IDAT", z);
    png_chunk(png, "IEND", {});
    write_bytes(path, png);
}

// A binary 16-bit PGM (maxval 65535, big-endian samples).
void write_pgm16(const fs::path& path, std::size_t w, std::size_t h) {
    const std::string header = "P5\n" + std::to_string(w) + " " + std::to_string(h) + "\n65535\n";
    Bytes b(header.begin(), header.end());
    for (std::size_t y = 0; y < h; ++y)
        for (std::size_t x = 0; x < w; ++x) {
            const std::uint16_t v = value16(x, y, 0);
            b.push_back(static_cast<std::uint8_t>(v >> 8));
            b.push_back(static_cast<std::uint8_t>(v & 0xff));
        }
    write_bytes(path, b);
}

void expect_pixels(const ImageDatasetItem& item, std::size_t w, std::size_t h, std::size_t channels,
                   std::size_t seed) {
    ASSERT_EQ(item.depth, PixelDepth::U8);
    ASSERT_EQ(item.width, w);
    ASSERT_EQ(item.height, h);
    ASSERT_EQ(item.channels, channels);
    ASSERT_EQ(item.num_values(), w * h * channels);
    ASSERT_EQ(item.image.size(), w * h * channels);
    EXPECT_TRUE(item.image_u16.empty());
    EXPECT_EQ(item.image, make_pixels(w, h, channels, seed)) << item.image_path;
    EXPECT_EQ(item.pixel(h - 1, w - 1, channels - 1), value_of(w - 1, h - 1, channels - 1, seed));
}

// A fresh temporary directory, removed at the end of the test.
struct TempDir {
    fs::path path;
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path = fs::temp_directory_path() /
               ("burn_image_folder_" + std::to_string(::getpid()) + "_" + info->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

std::size_t label_of(const ImageDatasetItem& item) {
    return std::get<Label>(item.annotation).index;
}

}  // namespace

TEST(ImageFolderDataset, ClassesLabelsAndOrder) {
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    write_png(root / "cat" / "b.png", 4, 3, 3, 1);
    write_png(root / "cat" / "a.PNG", 4, 3, 3, 2);  // extensions compare case-insensitively
    write_png(root / "cat" / "sub" / "c.png", 4, 3, 3, 3);
    write_flat_jpg(root / "dog" / "x.jpg", 8, 8, {200, 100, 50});
    write_bmp(root / "bird" / "y.bmp", 5, 2, 3, 4);
    fs::create_directories(root / "empty");                  // no image: not a class
    write_bytes(root / "notes" / "readme.txt", {'h', 'i'});  // no image: not a class
    write_bytes(root / "cat" / "readme.txt", {'h', 'i'});    // not an image extension
    write_png(root / "stray.png", 2, 2, 1);                  // directly in root: ignored

    const auto ds = ImageFolderDataset::new_classification(root);
    EXPECT_EQ(ds.class_names(), (std::vector<std::string>{"bird", "cat", "dog"}));
    EXPECT_EQ(ds.num_classes(), 3u);
    ASSERT_EQ(ds.len(), 5u);
    const std::vector<fs::path> paths = {root / "bird" / "y.bmp", root / "cat" / "a.PNG",
                                         root / "cat" / "b.png", root / "cat" / "sub" / "c.png",
                                         root / "dog" / "x.jpg"};
    const std::vector<std::size_t> labels = {0, 1, 1, 1, 2};
    for (std::size_t i = 0; i < ds.len(); ++i) {
        EXPECT_EQ(ds.image_path(i), paths[i]);
        EXPECT_EQ(ds.annotation(i), Annotation(Label{labels[i]}));
        const auto item = ds.get(i);
        ASSERT_TRUE(item.has_value());
        EXPECT_EQ(item->image_path, paths[i].string());
        EXPECT_EQ(label_of(*item), labels[i]);
        EXPECT_EQ(item->label(), labels[i]);
    }
    expect_pixels(*ds.get(0), 5, 2, 3, 4);
    expect_pixels(*ds.get(1), 4, 3, 3, 2);
    expect_pixels(*ds.get(3), 4, 3, 3, 3);
    EXPECT_FALSE(ds.get(5).has_value());
    EXPECT_FALSE(ds.get(1000).has_value());
    EXPECT_BURN_ERROR(ds.image_path(5),
                      "ImageFolderDataset::image_path: index 5 out of range for 5 items");
    // Copies share the item list.
    const ImageFolderDataset copy = ds;
    EXPECT_EQ(&copy.image_path(0), &ds.image_path(0));
}

TEST(ImageFolderDataset, PngRoundTripEveryChannelCount) {
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    for (std::size_t c = 1; c <= 4; ++c)
        write_png(root / "c" / ("img" + std::to_string(c) + ".png"), 7, 5, c, c);
    const auto ds = ImageFolderDataset::new_classification(root);
    ASSERT_EQ(ds.len(), 4u);
    for (std::size_t c = 1; c <= 4; ++c) {
        const auto item = ds.get(c - 1);  // img1..img4, by name
        ASSERT_TRUE(item.has_value());
        expect_pixels(*item, 7, 5, c, c);  // grey, grey + alpha, RGB, RGBA: as stored
    }
}

TEST(ImageFolderDataset, BmpTgaJpeg) {
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    write_bmp(root / "a" / "rgb.bmp", 6, 4, 3, 5);
    write_tga(root / "a" / "rgba.tga", 6, 4, 4, 6);
    write_tga(root / "a" / "zgrey.tga", 3, 3, 1, 7);
    write_flat_jpg(root / "b" / "flat.jpeg", 16, 8, {10, 128, 250});
    const auto ds = ImageFolderDataset::new_classification(root);
    ASSERT_EQ(ds.len(), 4u);
    expect_pixels(*ds.get(0), 6, 4, 3, 5);
    expect_pixels(*ds.get(1), 6, 4, 4, 6);
    expect_pixels(*ds.get(2), 3, 3, 1, 7);
    const auto jpg = ds.get(3);
    ASSERT_TRUE(jpg.has_value());
    EXPECT_EQ(jpg->label(), 1u);
    ASSERT_EQ(jpg->width, 16u);
    ASSERT_EQ(jpg->height, 8u);
    ASSERT_EQ(jpg->channels, 3u);
    const std::array<int, 3> rgb = {10, 128, 250};
    for (std::size_t i = 0; i < jpg->image.size(); ++i)
        ASSERT_NEAR(int(jpg->image[i]), rgb[i % 3], 3) << "value " << i;
}

TEST(ImageFolderDataset, SixteenBitImages) {
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    write_png16(root / "a" / "grey16.png", 5, 3, 1);
    write_png16(root / "a" / "rgb16.png", 4, 2, 3);
    write_pgm16(root / "a" / "x.pgm", 3, 2);
    const auto ds = ImageFolderDataset::new_classification(root);
    ASSERT_EQ(ds.len(), 3u);
    struct Case {
        std::size_t w, h, c;
    };
    const std::vector<Case> cases = {{5, 3, 1}, {4, 2, 3}, {3, 2, 1}};
    for (std::size_t i = 0; i < 3; ++i) {
        const auto item = ds.get(i);
        ASSERT_TRUE(item.has_value());
        const Case& k = cases[i];
        EXPECT_EQ(item->depth, PixelDepth::U16) << item->image_path;
        EXPECT_TRUE(item->image.empty());
        ASSERT_EQ(item->width, k.w);
        ASSERT_EQ(item->height, k.h);
        ASSERT_EQ(item->channels, k.c);
        ASSERT_EQ(item->image_u16.size(), k.w * k.h * k.c);
        for (std::size_t y = 0; y < k.h; ++y)
            for (std::size_t x = 0; x < k.w; ++x)
                for (std::size_t c = 0; c < k.c; ++c) {
                    ASSERT_EQ(item->image_u16[(y * k.w + x) * k.c + c], value16(x, y, c))
                        << item->image_path << " (" << x << ", " << y << ", " << c << ")";
                    ASSERT_EQ(item->pixel(y, x, c), float(value16(x, y, c)));
                }
    }
}

TEST(ImageFolderDataset, ExtensionFilter) {
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    write_png(root / "a" / "1.png", 2, 2, 3);
    write_bmp(root / "a" / "2.BMP", 2, 2, 3);
    write_flat_jpg(root / "b" / "3.jpg", 2, 2, {1, 2, 3});
    write_tga(root / "c" / "4.tga", 2, 2, 3);

    const auto pngs = ImageFolderDataset::new_classification_with(root, {"PNG"});
    ASSERT_EQ(pngs.len(), 1u);
    EXPECT_EQ(pngs.class_names(), std::vector<std::string>{"a"});
    const auto some = ImageFolderDataset::new_classification_with(root, {".jpg", "bmp", "png"});
    ASSERT_EQ(some.len(), 3u);
    EXPECT_EQ(some.class_names(), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(some.image_path(1), root / "a" / "2.BMP");
    EXPECT_EQ(ImageFolderDataset::new_classification(root).len(), 4u);

    EXPECT_BURN_ERROR(
        ImageFolderDataset::new_classification_with(root, {"png", "webp"}),
        "ImageFolderDataset::new_classification_with: unsupported image extension 'webp', "
        "expected one of: bmp, gif, jpeg, jpg, pgm, png, pnm, ppm, psd, tga");
    EXPECT_BURN_ERROR(ImageFolderDataset::new_classification_with(root, {}), "no extensions given");
    EXPECT_BURN_ERROR(ImageFolderDataset::new_classification_with(root, {"gif"}),
                      "no images found in '" + root.string() + "' (extensions searched: gif)");
    EXPECT_EQ(ImageFolderDataset::supported_extensions().size(), 10u);
}

TEST(ImageFolderDataset, DirectoryErrors) {
    TempDir tmp;
    EXPECT_BURN_ERROR(
        ImageFolderDataset::new_classification(tmp.path / "missing"),
        "ImageFolderDataset::new_classification: no such directory: '" +
            (tmp.path / "missing").string() +
            "' (extensions searched: bmp, gif, jpeg, jpg, pgm, png, pnm, ppm, psd, tga)");
    write_bytes(tmp.path / "file.png", {1});
    EXPECT_BURN_ERROR(ImageFolderDataset::new_classification(tmp.path / "file.png"),
                      "not a directory: '");
    fs::create_directories(tmp.path / "empty");
    EXPECT_BURN_ERROR(
        ImageFolderDataset::new_classification(tmp.path / "empty"),
        "no images found in '" + (tmp.path / "empty").string() + "' (extensions searched: bmp");
    EXPECT_BURN_ERROR(
        ImageFolderDataset::new_classification(tmp.path / "empty"),
        "expected the layout <root>/<class name>/<image> (the directory has no sub-directories)");
    write_bytes(tmp.path / "texts" / "a" / "x.txt", {1});
    EXPECT_BURN_ERROR(
        ImageFolderDataset::new_classification_with(tmp.path / "texts", {"png"}),
        "no images found in '" + (tmp.path / "texts").string() + "' (extensions searched: png)");
}

TEST(ImageFolderDataset, CorruptAndMissingFiles) {
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    write_png(root / "a" / "good.png", 3, 3, 3);
    write_bytes(root / "a" / "garbage.png",
                {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e'});
    Bytes png = read_bytes(root / "a" / "good.png");
    png.resize(png.size() / 2);
    write_bytes(root / "a" / "half.png", png);
    write_bytes(root / "a" / "zero.jpg", {});
    write_png(root / "a" / "vanishing.png", 3, 3, 3);
    const auto ds = ImageFolderDataset::new_classification(root);  // nothing is decoded yet
    ASSERT_EQ(ds.len(), 5u);
    // Sorted: garbage, good, half, vanishing, zero.
    EXPECT_BURN_ERROR(ds.get(0), "ImageFolderDataset::get: cannot decode image '" +
                                     (root / "a" / "garbage.png").string() +
                                     "' (item 0, 12 bytes): ");
    EXPECT_BURN_ERROR(ds.get(0), "Image not of any known type, or corrupt");  // stb's reason
    EXPECT_TRUE(ds.get(1).has_value());
    EXPECT_BURN_ERROR(ds.get(2),
                      "cannot decode image '" + (root / "a" / "half.png").string() + "' (item 2, ");
    EXPECT_BURN_ERROR(ds.get(4), "cannot decode image '" + (root / "a" / "zero.jpg").string() +
                                     "' (item 4, 0 bytes)");
    fs::remove(root / "a" / "vanishing.png");
    EXPECT_BURN_ERROR(ds.get(3), "ImageFolderDataset::get: cannot open image '" +
                                     (root / "a" / "vanishing.png").string() +
                                     "' (item 3): No such file or directory");
}

TEST(ImageFolderDataset, OversizedJpegHuffmanTableIsRefused) {
    // A DHT segment whose 16 code counts add up to 272: stb_image 2.27 would write past its
    // 256-entry tables (found by the image_folder fuzzer).
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    Bytes jpeg = {0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x13, 0x00};
    for (int i = 0; i < 16; ++i) jpeg.push_back(17);
    jpeg.insert(jpeg.end(), {0xFF, 0xD9});
    write_bytes(root / "a" / "bad.jpg", jpeg);
    // The same after fill bytes before the SOI marker, which stb accepts too.
    Bytes filled(5, 0xFF);
    filled.insert(filled.end(), jpeg.begin(), jpeg.end());
    write_bytes(root / "a" / "filled.jpg", filled);
    const auto ds = ImageFolderDataset::new_classification(root);
    EXPECT_BURN_ERROR(ds.get(0),
                      "corrupt JPEG: a Huffman table at offset 6 declares more than 256 codes");
    EXPECT_BURN_ERROR(ds.get(1),
                      "corrupt JPEG: a Huffman table at offset 11 declares more than 256 codes");
}

TEST(ImageFolderDataset, OverflowingPnmHeaderNumbersAreRefused) {
    // stb_image 2.27 reads PNM header numbers into an int without an overflow check (signed
    // overflow found by the image_folder fuzzer): a number above 2^31 - 1 is refused first,
    // comments and whitespace skipped as stb skips them. Large but valid numbers still reach the
    // decoded-size check.
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    const auto text = [](const std::string& s) { return Bytes(s.begin(), s.end()); };
    write_bytes(root / "a" / "0.pgm", text("P5 12 99999999999 255\n"));
    write_bytes(root / "a" / "1.ppm", text("P6\n# 99999999999\n 7 2147483648 255\n"));
    write_bytes(root / "a" / "2.pgm", text("P5 2147483647 2 255\n"));
    const auto ds = ImageFolderDataset::new_classification(root);
    EXPECT_BURN_ERROR(ds.get(0),
                      "corrupt PNM header: the number at offset 6 is larger than "
                      "2147483647");
    EXPECT_BURN_ERROR(ds.get(1),
                      "corrupt PNM header: the number at offset 20 is larger than "
                      "2147483647");
    EXPECT_BURN_ERROR(ds.get(2), "is 2147483647x2 with 1 channels");
}

TEST(ImageFolderDataset, EmptyPngDataChunksAreSkipped) {
    // A PNG whose first IDAT chunk is empty (legal; stb_image 2.27 passed a null pointer to
    // memcpy for it, found by the image_folder fuzzer) decodes like the same PNG without it.
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    write_png(root / "a" / "plain.png", 5, 3, 3);
    Bytes png = read_bytes(root / "a" / "plain.png");
    const auto idat = std::search(png.begin(), png.end(), std::begin("IDAT"), std::end("IDAT") - 1);
    ASSERT_NE(idat, png.end());
    const Bytes empty_chunk = {0, 0, 0, 0, 'I', 'D', 'A', 'T', 0x35, 0xAF, 0x06, 0x1E};
    png.insert(idat - 4, empty_chunk.begin(), empty_chunk.end());
    write_bytes(root / "a" / "with_empty_idat.png", png);
    const auto ds = ImageFolderDataset::new_classification(root);
    const auto plain = ds.get(0), padded = ds.get(1);
    ASSERT_TRUE(plain && padded);
    EXPECT_EQ(padded->image, plain->image);
    EXPECT_EQ(padded->width, 5u);
    EXPECT_EQ(padded->height, 3u);
}

TEST(ImageFolderDataset, TruncatedPngDataChunkIsRefusedBeforeAllocating) {
    // An IDAT chunk declaring 2^30 bytes in a file of a few dozen: stb_image 2.27 allocates the
    // declared length (then doubles it) before failing (found by the image_folder fuzzer).
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    write_png(root / "a" / "plain.png", 5, 3, 3);
    Bytes png = read_bytes(root / "a" / "plain.png");
    const auto idat = std::search(png.begin(), png.end(), std::begin("IDAT"), std::end("IDAT") - 1);
    ASSERT_NE(idat, png.end());
    const auto offset = static_cast<std::size_t>(idat - png.begin()) - 4;
    png[offset] = 0x40;  // length 0x40xxxxxx
    write_bytes(root / "a" / "plain.png", png);
    const auto ds = ImageFolderDataset::new_classification(root);
    EXPECT_BURN_ERROR(ds.get(0), "truncated PNG: the IDAT chunk at offset " +
                                     std::to_string(offset) +
                                     " is longer than the rest of the file");
}

TEST(ImageFolderDataset, HugeDeclaredDimensionsAreRefusedBeforeDecoding) {
    // A 30-byte RLE TGA declaring 65535 x 12801 grey pixels (838 MB decoded; found by the
    // image_folder fuzzer, where decoding it took over 10 s).
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    Bytes tga = {0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x01, 0x32, 8, 0};
    tga.insert(tga.end(), {0xFF, 7, 0xFF, 9, 0xFF, 3, 0xFF, 1, 0xFF, 2, 0xFF, 4});
    write_bytes(root / "a" / "huge.tga", tga);
    write_png(root / "a" / "small.png", 64, 64, 3);
    const auto ds = ImageFolderDataset::new_classification(root);
    EXPECT_BURN_ERROR(ds.get(0),
                      "is 65535x12801 with 1 channels: 838913535 bytes decoded, more "
                      "than the limit of 268435456");
    const std::uint64_t saved = ImageFolderDataset::set_max_decoded_bytes(64 * 64 * 3 - 1);
    EXPECT_BURN_ERROR(ds.get(1), "12288 bytes decoded, more than the limit of 12287");
    ImageFolderDataset::set_max_decoded_bytes(saved);
    EXPECT_TRUE(ds.get(1).has_value());
}

TEST(ImageFolderDataset, TopDownBmpDimensionsAreChecked) {
    // A top-down BMP (negative height) declaring 8 x 16777214 pixels: stb_image 2.27's header
    // query reports the height as negative, which skipped the decoded-size check (found by the
    // image_folder fuzzer: 335 MB decoded from 157 bytes). A small top-down BMP still decodes.
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    const auto bmp = [](std::int32_t w, std::int32_t h) {
        Bytes b = {'B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0};
        for (std::int32_t v : {w, h})
            for (int i = 0; i < 4; ++i) b.push_back(std::uint8_t(std::uint32_t(v) >> (8 * i)));
        b.insert(b.end(), {1, 0, 24, 0});  // one plane, 24 bits per pixel, no compression
        b.resize(54, 0);
        const std::size_t row = (std::size_t(w) * 3 + 3) / 4 * 4;
        for (std::size_t i = 0; i < row * std::size_t(h < 0 ? -std::int64_t(h) : h); ++i)
            b.push_back(std::uint8_t(i * 7));
        return b;
    };
    Bytes huge = bmp(8, 1);
    const std::int32_t height = -16777214;
    for (int i = 0; i < 4; ++i) huge[22 + i] = std::uint8_t(std::uint32_t(height) >> (8 * i));
    write_bytes(root / "a" / "huge.bmp", huge);
    write_bytes(root / "a" / "small.bmp", bmp(4, -3));
    const auto ds = ImageFolderDataset::new_classification(root);
    EXPECT_BURN_ERROR(ds.get(0), "is 8x16777214 with 3 channels: 402653136 bytes decoded");
    const auto small = ds.get(1);
    ASSERT_TRUE(small.has_value());
    EXPECT_EQ(small->width, 4u);
    EXPECT_EQ(small->height, 3u);
}

TEST(ImageFolderDataset, ExplicitItems) {
    TempDir tmp;
    write_png(tmp.path / "x.png", 2, 2, 1, 1);
    write_png(tmp.path / "y.PNG", 2, 2, 3, 2);
    write_bmp(tmp.path / "z.bmp", 2, 2, 3, 3);
    const std::vector<std::string> classes = {"zero", "one", "two"};
    const auto ds = ImageFolderDataset::new_classification_with_items(
        {{tmp.path / "y.PNG", "two"}, {tmp.path / "x.png", "zero"}, {tmp.path / "z.bmp", "two"}},
        classes);
    EXPECT_EQ(ds.class_names(), classes);
    EXPECT_EQ(ds.num_classes(), 3u);
    ASSERT_EQ(ds.len(), 3u);  // in the given order
    EXPECT_EQ(ds.get(0)->label(), 2u);
    expect_pixels(*ds.get(0), 2, 2, 3, 2);
    EXPECT_EQ(ds.get(1)->label(), 0u);
    expect_pixels(*ds.get(1), 2, 2, 1, 1);
    EXPECT_EQ(ds.get(2)->label(), 2u);

    EXPECT_BURN_ERROR(
        ImageFolderDataset::new_classification_with_items({{tmp.path / "x.png", "three"}}, classes),
        "ImageFolderDataset::new_classification_with_items: the class 'three' of '" +
            (tmp.path / "x.png").string() + "' is not in the class list [zero, one, two]");
    EXPECT_BURN_ERROR(ImageFolderDataset::new_classification_with_items({{tmp.path / "x.png", "a"}},
                                                                        {"a", "b", "a"}),
                      "class name 'a' appears twice in the class list (at 0 and 2)");
    EXPECT_BURN_ERROR(
        ImageFolderDataset::new_classification_with_items({{tmp.path / "x.txt", "a"}}, {"a"}),
        "'" + (tmp.path / "x.txt").string() +
            "' does not have a supported image extension ('txt')");
    EXPECT_BURN_ERROR(
        ImageFolderDataset::new_classification_with_items({{tmp.path / "noext", "a"}}, {"a"}),
        "does not have a supported image extension (none)");
    // An empty list is an empty dataset.
    EXPECT_TRUE(burn::data::is_empty(ImageFolderDataset::new_classification_with_items({}, {"a"})));

    const auto multi = ImageFolderDataset::new_multilabel_classification_with_items(
        {{tmp.path / "x.png", {"one", "two"}}, {tmp.path / "z.bmp", {}}}, classes);
    ASSERT_EQ(multi.len(), 2u);
    EXPECT_EQ(multi.get(0)->annotation, Annotation(MultiLabel{{1, 2}}));
    EXPECT_EQ(multi.get(1)->annotation, Annotation(MultiLabel{}));
    EXPECT_BURN_ERROR(multi.get(0)->label(), "has a multi-label annotation, not a single label");
    EXPECT_BURN_ERROR(ImageFolderDataset::new_multilabel_classification_with_items(
                          {{tmp.path / "x.png", {"one", "ten"}}}, classes),
                      "new_multilabel_classification_with_items: the class 'ten'");
}

TEST(ImageFolderDataset, ConcurrentGetWithErrors) {
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    for (std::size_t i = 0; i < 8; ++i) {
        const std::string name = "img" + std::to_string(i);
        if (i % 4 == 3) write_bytes(root / "a" / (name + ".png"), {'b', 'a', 'd'});
        else if (i % 4 == 2)
            write_bytes(root / "a" / (name + ".jpg"), {0xff, 0xd8, 0xff, 0xe0, 0, 0});
        else write_png(root / "a" / (name + ".png"), 9, 7, 3, i);
    }
    const auto ds = ImageFolderDataset::new_classification(root);
    ASSERT_EQ(ds.len(), 8u);
    // Each thread decodes every item many times; errors must name their own file and reason
    // (stb's failure reason is thread-local).
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int rep = 0; rep < 25; ++rep)
                for (std::size_t i = 0; i < 8; ++i) {
                    try {
                        const auto item = ds.get(i);
                        if (i % 4 >= 2 || !item || item->image != make_pixels(9, 7, 3, i)) ++bad;
                    } catch (const burn::Error& e) {
                        const std::string msg = e.what();
                        const std::string file =
                            "img" + std::to_string(i) + (i % 4 == 2 ? ".jpg" : ".png");
                        const std::string reason =
                            i % 4 == 3 ? "Image not of any known type, or corrupt" : "Corrupt JPEG";
                        if (i % 4 < 2 || msg.find(file) == std::string::npos ||
                            msg.find(reason) == std::string::npos)
                            ++bad;
                    }
                }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(bad.load(), 0);
}

namespace {

using B = burn::Cpu<float>;

// Images of one size as a [batch, channels, height, width] tensor scaled to [0, 1], with labels.
struct ImageBatch {
    burn::Tensor<B, 4> images;
    std::vector<std::size_t> labels;
};

struct ImageBatcher {
    ImageBatch batch(std::vector<ImageDatasetItem> items, const B::Device& device) const {
        const std::size_t n = items.size(), c = items[0].channels, h = items[0].height,
                          w = items[0].width;
        std::vector<float> values(n * c * h * w);
        std::vector<std::size_t> labels;
        for (std::size_t i = 0; i < n; ++i) {
            BURN_CHECK(items[i].channels == c && items[i].height == h && items[i].width == w,
                       "ImageBatcher: images of different sizes");
            for (std::size_t y = 0; y < h; ++y)
                for (std::size_t x = 0; x < w; ++x)
                    for (std::size_t ch = 0; ch < c; ++ch)
                        values[((i * c + ch) * h + y) * w + x] = items[i].pixel(y, x, ch) / 255.0f;
            labels.push_back(items[i].label());
        }
        return {burn::Tensor<B, 4>::from_data(
                    burn::TensorData(std::move(values), burn::Shape{n, c, h, w}), device),
                std::move(labels)};
    }
};

}  // namespace

TEST(ImageFolderDataset, DataLoader) {
    TempDir tmp;
    const fs::path root = tmp.path / "root";
    for (std::size_t i = 0; i < 5; ++i)
        write_png(root / "even" / ("e" + std::to_string(i) + ".png"), 4, 3, 3, 2 * i);
    for (std::size_t i = 0; i < 4; ++i)
        write_png(root / "odd" / ("o" + std::to_string(i) + ".png"), 4, 3, 3, 2 * i + 1);
    const auto ds = ImageFolderDataset::new_classification(root);
    ASSERT_EQ(ds.len(), 9u);

    const auto loader = burn::data::DataLoaderBuilder(ImageBatcher{})
                            .batch_size(4)
                            .shuffle(7)
                            .num_workers(2)
                            .build(ds);
    EXPECT_EQ(loader->num_items(), 9u);
    std::multiset<std::size_t> labels;
    std::vector<std::vector<std::size_t>> first_epoch;
    std::size_t batches = 0;
    for (const ImageBatch& batch : *loader) {
        const auto dims = batch.images.dims();
        EXPECT_EQ(dims[1], 3u);
        EXPECT_EQ(dims[2], 3u);
        EXPECT_EQ(dims[3], 4u);
        EXPECT_EQ(dims[0], batch.labels.size());
        EXPECT_EQ(dims[0], batches < 2 ? 4u : 1u);
        // Each image's first value tells which file it is: value_of(0, 0, 0, seed) / 255.
        const auto values = batch.images.to_data().to_vec<float>();
        for (std::size_t i = 0; i < dims[0]; ++i) {
            const float v = values[i * 3 * 3 * 4] * 255.0f;
            bool found = false;
            for (std::size_t seed = 0; seed < 9; ++seed)
                if (std::abs(v - value_of(0, 0, 0, seed)) < 1e-3f) {
                    found = true;
                    EXPECT_EQ(batch.labels[i], seed % 2);  // even seeds in "even" (label 0)
                }
            EXPECT_TRUE(found) << v;
        }
        labels.insert(batch.labels.begin(), batch.labels.end());
        first_epoch.push_back(batch.labels);
        ++batches;
    }
    EXPECT_EQ(batches, 3u);
    EXPECT_EQ(labels.count(0), 5u);
    EXPECT_EQ(labels.count(1), 4u);
}

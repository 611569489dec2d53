// SPDX-License-Identifier: MIT OR Apache-2.0
// MnistDataset: IDX parsing (plain and gzip), validation errors, lookup order, downloading
// (from file:// URLs only: no network), and the real Fashion-MNIST files of Debian's
// fashion-mnist package when installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <burn/data/mnist.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using burn::data::MnistDataset;
using burn::data::MnistItem;
using burn::data::MnistKind;
using burn::data::MnistSplit;

static_assert(burn::data::Dataset<MnistDataset>);

namespace {

using Bytes = std::vector<std::uint8_t>;

void put_be32(Bytes& b, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(v >> s));
}

// Pixel value of item i at position p in the synthetic datasets.
std::uint8_t pixel_of(std::size_t i, std::size_t p) {
    return static_cast<std::uint8_t>((i * 31 + p * 7) % 256);
}

Bytes idx3(std::size_t count, std::uint32_t rows = 28, std::uint32_t cols = 28,
           std::uint32_t magic = 2051) {
    Bytes b;
    put_be32(b, magic);
    put_be32(b, static_cast<std::uint32_t>(count));
    put_be32(b, rows);
    put_be32(b, cols);
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t p = 0; p < std::size_t(rows) * cols; ++p) b.push_back(pixel_of(i, p));
    return b;
}

Bytes idx1(const std::vector<std::uint8_t>& labels, std::uint32_t magic = 2049) {
    Bytes b;
    put_be32(b, magic);
    put_be32(b, static_cast<std::uint32_t>(labels.size()));
    b.insert(b.end(), labels.begin(), labels.end());
    return b;
}

std::uint32_t crc32(const Bytes& data) {
    std::uint32_t crc = 0xffffffffu;
    for (std::uint8_t byte : data) {
        crc ^= byte;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

// A gzip file holding `data` in stored (uncompressed) deflate blocks.
Bytes gzip_stored(const Bytes& data) {
    Bytes g = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
    std::size_t at = 0;
    do {
        const std::size_t n = std::min<std::size_t>(65535, data.size() - at);
        const bool last = at + n == data.size();
        g.push_back(last ? 1 : 0);
        g.push_back(static_cast<std::uint8_t>(n & 0xff));
        g.push_back(static_cast<std::uint8_t>(n >> 8));
        g.push_back(static_cast<std::uint8_t>(~n & 0xff));
        g.push_back(static_cast<std::uint8_t>((~n >> 8) & 0xff));
        g.insert(g.end(), data.begin() + static_cast<std::ptrdiff_t>(at),
                 data.begin() + static_cast<std::ptrdiff_t>(at + n));
        at += n;
    } while (at < data.size());
    const std::uint32_t crc = crc32(data), size = static_cast<std::uint32_t>(data.size());
    for (int s = 0; s < 32; s += 8) g.push_back(static_cast<std::uint8_t>(crc >> s));
    for (int s = 0; s < 32; s += 8) g.push_back(static_cast<std::uint8_t>(size >> s));
    return g;
}

void write_file(const fs::path& path, const Bytes& b) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    ASSERT_TRUE(out.good()) << path;
}

// Writes a split of `count` items with labels i % 10 into `dir`, plain or gzip.
void write_split(const fs::path& dir, MnistSplit split, std::size_t count, bool gz) {
    std::vector<std::uint8_t> labels(count);
    for (std::size_t i = 0; i < count; ++i) labels[i] = static_cast<std::uint8_t>(i % 10);
    const auto names = MnistDataset::file_names(split);
    const std::string ext = gz ? ".gz" : "";
    write_file(dir / (names[0] + ext), gz ? gzip_stored(idx3(count)) : idx3(count));
    write_file(dir / (names[1] + ext), gz ? gzip_stored(idx1(labels)) : idx1(labels));
}

// A fresh temporary directory, removed at the end of the test.
struct TempDir {
    fs::path path;
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path = fs::temp_directory_path() /
               ("burn_mnist_" + std::to_string(::getpid()) + "_" + info->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Sets (or unsets, with nullopt) an environment variable for the scope.
struct EnvVar {
    std::string name;
    std::optional<std::string> saved;
    EnvVar(std::string n, const std::optional<std::string>& value) : name(std::move(n)) {
        if (const char* old = std::getenv(name.c_str())) saved = old;
        if (value) ::setenv(name.c_str(), value->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
    ~EnvVar() {
        if (saved) ::setenv(name.c_str(), saved->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
};

void expect_synthetic(const MnistDataset& ds, std::size_t count) {
    ASSERT_EQ(ds.len(), count);
    for (std::size_t i = 0; i < count; ++i) {
        const auto item = ds.get(i);
        ASSERT_TRUE(item.has_value());
        EXPECT_EQ(item->label, i % 10);
        EXPECT_EQ(ds.label(i), i % 10);
        for (std::size_t p = 0; p < 28 * 28; ++p)
            ASSERT_EQ(item->image[p], static_cast<float>(pixel_of(i, p)))
                << "item " << i << " pixel " << p;
        EXPECT_EQ(item->pixel(3, 5), static_cast<float>(pixel_of(i, 3 * 28 + 5)));
        EXPECT_EQ(ds.image_bytes(i)[100], pixel_of(i, 100));
    }
    EXPECT_FALSE(ds.get(count).has_value());
    EXPECT_FALSE(ds.get(count + 1000).has_value());
}

}  // namespace

TEST(MnistDataset, ParsesPlainIdx) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 12, false);
    write_split(tmp.path, MnistSplit::Test, 3, false);
    expect_synthetic(MnistDataset::train(tmp.path), 12);
    expect_synthetic(MnistDataset::test(tmp.path), 3);
    const auto ds = MnistDataset::load(tmp.path, MnistSplit::Test);
    EXPECT_EQ(ds.images_path(), tmp.path / "t10k-images-idx3-ubyte");
    EXPECT_EQ(ds.labels_path(), tmp.path / "t10k-labels-idx1-ubyte");
    EXPECT_FALSE(burn::data::is_empty(ds));
}

TEST(MnistDataset, ParsesGzipIdx) {
    TempDir tmp;
    // 100 images = 78 KB: several stored deflate blocks.
    write_split(tmp.path, MnistSplit::Train, 100, true);
    const auto ds = MnistDataset::train(tmp.path);
    expect_synthetic(ds, 100);
    EXPECT_EQ(ds.images_path(), tmp.path / "train-images-idx3-ubyte.gz");
    // Compression is detected from the content, not the name.
    fs::copy_file(tmp.path / "train-labels-idx1-ubyte.gz", tmp.path / "labels-no-ext");
    expect_synthetic(MnistDataset::from_files(tmp.path / "train-images-idx3-ubyte.gz",
                                              tmp.path / "labels-no-ext"),
                     100);
}

TEST(MnistDataset, EmptySplit) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Test, 0, true);
    const auto ds = MnistDataset::test(tmp.path);
    EXPECT_EQ(ds.len(), 0u);
    EXPECT_TRUE(burn::data::is_empty(ds));
    EXPECT_FALSE(ds.get(0).has_value());
}

TEST(MnistDataset, CopiesShareData) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 5, false);
    const auto a = MnistDataset::train(tmp.path);
    const MnistDataset b = a;
    EXPECT_EQ(a.image_bytes(0), b.image_bytes(0));
    expect_synthetic(b, 5);
}

TEST(MnistDataset, ConcurrentGet) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 64, false);
    const auto ds = MnistDataset::train(tmp.path);
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int rep = 0; rep < 20; ++rep)
                for (std::size_t i = static_cast<std::size_t>(t); i < ds.len(); i += 2) {
                    const auto item = ds.get(i);
                    if (!item || item->label != i % 10 || item->image[7] != pixel_of(i, 7)) ++bad;
                }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(bad.load(), 0);
}

TEST(MnistDataset, TruncatedPlainFile) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 4, false);
    Bytes images = idx3(4);
    images.resize(images.size() - 1);
    write_file(tmp.path / "train-images-idx3-ubyte", images);
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "train-images-idx3-ubyte': truncated");
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "expected 3152 for 4 images of 28x28");
    // A header alone, cut short.
    write_file(tmp.path / "train-images-idx3-ubyte", Bytes{0, 0, 8, 3, 0});
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "too short for an IDX3 image file");
    write_split(tmp.path, MnistSplit::Train, 4, false);
    Bytes labels = idx1({1, 2, 3, 4});
    labels.pop_back();
    write_file(tmp.path / "train-labels-idx1-ubyte", labels);
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "train-labels-idx1-ubyte': truncated");
}

TEST(MnistDataset, TrailingData) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Test, 2, false);
    Bytes labels = idx1({1, 2});
    labels.push_back(0);
    write_file(tmp.path / "t10k-labels-idx1-ubyte", labels);
    EXPECT_BURN_ERROR(MnistDataset::test(tmp.path), "t10k-labels-idx1-ubyte': trailing data");
}

TEST(MnistDataset, GzipTrailingDataIsNotInflated) {
    // The header declares 2 images; 8 MiB of data follow them inside the gzip stream. The
    // reader stops one byte past the declared content instead of inflating the rest.
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Test, 2, true);
    Bytes images = idx3(2);
    images.resize(images.size() + (8u << 20), 0);
    write_file(tmp.path / "t10k-images-idx3-ubyte.gz", gzip_stored(images));
    EXPECT_BURN_ERROR(MnistDataset::test(tmp.path),
                      "t10k-images-idx3-ubyte.gz': trailing data: more than 1584 bytes once "
                      "decompressed, expected 1584 for 2 images of 28x28");
}

TEST(MnistDataset, TruncatedGzipFile) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 4, true);
    Bytes gz = gzip_stored(idx3(4));
    gz.resize(gz.size() / 2);
    write_file(tmp.path / "train-images-idx3-ubyte.gz", gz);
    EXPECT_BURN_ERROR(
        MnistDataset::train(tmp.path),
        "train-images-idx3-ubyte.gz': corrupt or truncated gzip data (unexpected end of file)");
    // Only the checksum and size trailer cut off: gzread's soft error must be caught.
    gz = gzip_stored(idx3(4));
    gz.resize(gz.size() - 6);
    write_file(tmp.path / "train-images-idx3-ubyte.gz", gz);
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path),
                      "corrupt or truncated gzip data (unexpected end of file)");
    // A corrupted checksum.
    gz = gzip_stored(idx3(4));
    gz[gz.size() - 8] ^= 0xff;
    write_file(tmp.path / "train-images-idx3-ubyte.gz", gz);
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "corrupt or truncated gzip data");
    // A valid gzip stream of a truncated IDX file.
    Bytes images = idx3(4);
    images.resize(images.size() - 784);
    write_file(tmp.path / "train-images-idx3-ubyte.gz", gzip_stored(images));
    EXPECT_BURN_ERROR(
        MnistDataset::train(tmp.path),
        "train-images-idx3-ubyte.gz': truncated: 2368 bytes once decompressed, expected 3152");
}

TEST(MnistDataset, WrongMagic) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 3, false);
    const fs::path images = tmp.path / "train-images-idx3-ubyte";
    const fs::path labels = tmp.path / "train-labels-idx1-ubyte";
    // Swapped files.
    EXPECT_BURN_ERROR(
        MnistDataset::from_files(labels, images),
        "not an IDX3 image file: magic number 2049, expected 2051 (this is an IDX1 label file)");
    EXPECT_BURN_ERROR(MnistDataset::from_files(images, images),
                      "not an IDX1 label file: magic number 2051, expected 2049");
    // A foreign file.
    write_file(tmp.path / "foreign", Bytes{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd',
                                           '!', '!', '!', '!', '!'});
    EXPECT_BURN_ERROR(MnistDataset::from_files(tmp.path / "foreign", labels),
                      "foreign': not an IDX3 image file");
    // Big-endian magic written little-endian.
    write_file(images, idx3(3, 28, 28, 0x03080000));
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "magic number 50855936, expected 2051");
}

TEST(MnistDataset, WrongImageSize) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 3, false);
    write_file(tmp.path / "train-images-idx3-ubyte", idx3(3, 32, 32));
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "images are 32x32, expected 28x28");
}

TEST(MnistDataset, MismatchedCounts) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 3, false);
    write_file(tmp.path / "train-labels-idx1-ubyte", idx1({1, 2}));
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "has 3 images but");
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "has 2 labels, expected the same count");
}

TEST(MnistDataset, LabelOutOfRange) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 3, false);
    write_file(tmp.path / "train-labels-idx1-ubyte", idx1({1, 10, 2}));
    EXPECT_BURN_ERROR(
        MnistDataset::train(tmp.path),
        "train-labels-idx1-ubyte': label 10 of item 1 is out of range, expected 0..9");
}

TEST(MnistDataset, ExplicitDirectoryMissingFiles) {
    TempDir tmp;
    write_split(tmp.path, MnistSplit::Train, 3, false);
    fs::remove(tmp.path / "train-labels-idx1-ubyte");
    EXPECT_BURN_ERROR(MnistDataset::train(tmp.path), "(labels missing)");
    EXPECT_BURN_ERROR(MnistDataset::test(tmp.path),
                      "expected t10k-images-idx3-ubyte[.gz] and t10k-labels-idx1-ubyte[.gz]");
    EXPECT_BURN_ERROR(MnistDataset::test(tmp.path), tmp.path.string());
    // An explicit directory is the only place looked at, even when the env var has the files.
    write_split(tmp.path / "root" / "mnist", MnistSplit::Test, 2, false);
    EnvVar env("BURN_DATASET_DIR", (tmp.path / "root").string());
    EXPECT_EQ(MnistDataset::test().len(), 2u);
    EXPECT_BURN_ERROR(MnistDataset::test(tmp.path), "is not in");
}

TEST(MnistDataset, LookupOrder) {
    TempDir tmp;
    const fs::path root = tmp.path / "root", home = tmp.path / "home";
    write_split(root / "mnist", MnistSplit::Train, 2, false);
    write_split(home / ".cache" / "burn-dataset" / "mnist", MnistSplit::Train, 3, true);
    write_split(home / ".cache" / "burn-dataset" / "mnist", MnistSplit::Test, 4, true);
    EnvVar h("HOME", home.string());
    {
        EnvVar env("BURN_DATASET_DIR", root.string());
        EXPECT_EQ(
            MnistDataset::search_dirs(MnistKind::Mnist),
            (std::vector<fs::path>{root / "mnist", home / ".cache" / "burn-dataset" / "mnist"}));
        EXPECT_EQ(MnistDataset::train().len(), 2u);  // $BURN_DATASET_DIR first
        EXPECT_EQ(MnistDataset::test().len(), 4u);   // not there: the cache
        EXPECT_EQ(MnistDataset::load(MnistKind::Mnist, MnistSplit::Train).len(), 2u);
    }
    {
        EnvVar env("BURN_DATASET_DIR", std::nullopt);
        EXPECT_EQ(MnistDataset::train().len(), 3u);
        EXPECT_EQ(MnistDataset::train().images_path(),
                  home / ".cache" / "burn-dataset" / "mnist" / "train-images-idx3-ubyte.gz");
    }
    {
        EnvVar env("BURN_DATASET_DIR", "");  // empty: ignored
        EXPECT_EQ(MnistDataset::train().len(), 3u);
    }
}

TEST(MnistDataset, NotFoundListsPlaces) {
    TempDir tmp;
    EnvVar h("HOME", (tmp.path / "home").string());
    EnvVar offline("BURN_DATASET_OFFLINE", "1");
    EnvVar url("BURN_MNIST_URL", std::nullopt);
    {
        EnvVar env("BURN_DATASET_DIR", (tmp.path / "root").string());
        EXPECT_BURN_ERROR(MnistDataset::train(), "MnistDataset: MNIST train split not found");
        EXPECT_BURN_ERROR(MnistDataset::train(), (tmp.path / "root" / "mnist").string());
        EXPECT_BURN_ERROR(MnistDataset::train(),
                          (tmp.path / "home" / ".cache" / "burn-dataset" / "mnist").string());
        EXPECT_BURN_ERROR(MnistDataset::test(),
                          "t10k-images-idx3-ubyte[.gz] and t10k-labels-idx1-ubyte[.gz]");
        EXPECT_BURN_ERROR(
            MnistDataset::test(),
            "https://storage.googleapis.com/cvdf-datasets/mnist/t10k-labels-idx1-ubyte.gz");
    }
    EnvVar env("BURN_DATASET_DIR", std::nullopt);
    EXPECT_BURN_ERROR(MnistDataset::train(), "BURN_DATASET_DIR is not set");
    EXPECT_BURN_ERROR(MnistDataset::train(), "(downloading is off: BURN_DATASET_OFFLINE is set)");
}

TEST(MnistDataset, FashionLookup) {
    TempDir tmp;
    EnvVar h("HOME", (tmp.path / "home").string());
    EnvVar offline("BURN_DATASET_OFFLINE", "1");
    EnvVar url("BURN_FASHION_MNIST_URL", std::nullopt);
    EnvVar env("BURN_DATASET_DIR", (tmp.path / "root").string());
    const auto dirs = MnistDataset::search_dirs(MnistKind::Fashion);
    ASSERT_EQ(dirs.size(), 3u);
    EXPECT_EQ(dirs[0], tmp.path / "root" / "fashion-mnist");
    EXPECT_EQ(dirs[1], tmp.path / "home" / ".cache" / "burn-dataset" / "fashion-mnist");
    EXPECT_EQ(dirs[2], fs::path("/usr/share/datasets/fashion-mnist"));
    // The env var's directory wins over Debian's.
    write_split(tmp.path / "root" / "fashion-mnist", MnistSplit::Test, 7, true);
    EXPECT_EQ(MnistDataset::fashion_test().len(), 7u);
    EXPECT_EQ(MnistDataset::load(MnistKind::Fashion, MnistSplit::Test).len(), 7u);
    // MNIST does not look in fashion-mnist directories.
    EXPECT_BURN_ERROR(MnistDataset::test(), "MNIST test split not found");
    if (!fs::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
        EXPECT_BURN_ERROR(MnistDataset::fashion_train(), "apt install fashion-mnist");
        EXPECT_BURN_ERROR(MnistDataset::fashion_train(),
                          "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"
                          "train-images-idx3-ubyte.gz");
    }
}

// The real files of Debian's fashion-mnist package (values computed with Python's gzip+struct).
TEST(MnistDataset, DebianFashionMnist) {
    const fs::path dir = "/usr/share/datasets/fashion-mnist";
    if (!fs::exists(dir / "train-images-idx3-ubyte.gz")) GTEST_SKIP() << dir << " not installed";
    TempDir tmp;
    EnvVar h("HOME", (tmp.path / "home").string());
    EnvVar env("BURN_DATASET_DIR", std::nullopt);
    auto sum = [](const MnistItem& item) {
        return std::accumulate(item.image.begin(), item.image.end(), 0.0);
    };
    struct Known {
        std::size_t index;
        unsigned label;
        double sum;
        float center;  // pixel (14, 14)
    };
    const auto train = MnistDataset::fashion_train();
    EXPECT_EQ(train.images_path(), dir / "train-images-idx3-ubyte.gz");
    ASSERT_EQ(train.len(), 60000u);
    for (const Known& k : {Known{0, 9, 76247, 217}, Known{1, 0, 84598, 204}, Known{2, 0, 28662, 85},
                           Known{59999, 5, 16684, 0}}) {
        const auto item = train.get(k.index);
        ASSERT_TRUE(item.has_value());
        EXPECT_EQ(item->label, k.label) << k.index;
        EXPECT_EQ(sum(*item), k.sum) << k.index;
        EXPECT_EQ(item->pixel(14, 14), k.center) << k.index;
    }
    EXPECT_FALSE(train.get(60000).has_value());
    std::size_t label_sum = 0;
    for (std::size_t i = 0; i < train.len(); ++i) label_sum += train.label(i);
    EXPECT_EQ(label_sum, 270000u);

    const auto test = MnistDataset::fashion_test();
    ASSERT_EQ(test.len(), 10000u);
    for (const Known& k : {Known{0, 9, 33456, 110}, Known{1, 2, 100994, 234}, Known{2, 1, 51520, 0},
                           Known{9999, 5, 24390, 132}}) {
        const auto item = test.get(k.index);
        ASSERT_TRUE(item.has_value());
        EXPECT_EQ(item->label, k.label) << k.index;
        EXPECT_EQ(sum(*item), k.sum) << k.index;
        EXPECT_EQ(item->pixel(14, 14), k.center) << k.index;
    }
    double pixel_sum = 0;
    for (std::size_t i = 0; i < test.len(); ++i)
        for (std::size_t p = 0; p < 28 * 28; ++p) pixel_sum += test.image_bytes(i)[p];
    EXPECT_EQ(pixel_sum, 573469082.0);
    // The explicit directory gives the same data.
    EXPECT_EQ(MnistDataset::test(dir).get(1)->label, 2u);
}

// ============================================================================ downloading

namespace {

// A directory laid out like the download server: the four .gz files of `count` items per split
// (train: `count`, test: `count / 2`).
void write_mirror(const fs::path& dir, std::size_t count) {
    write_split(dir, MnistSplit::Train, count, true);
    write_split(dir, MnistSplit::Test, count / 2, true);
}

std::string file_url(const fs::path& dir) { return "file://" + dir.string(); }

// Regular files under `dir` (recursively), as paths relative to it, sorted.
std::vector<std::string> files_under(const fs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) out.push_back(e.path().lexically_relative(dir).generic_string());
    std::sort(out.begin(), out.end());
    return out;
}

const std::vector<std::string> ALL_GZ = {"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
                                         "train-images-idx3-ubyte.gz",
                                         "train-labels-idx1-ubyte.gz"};

// An environment with no dataset anywhere: HOME in `tmp`, no BURN_DATASET_DIR, downloads on,
// MNIST served from `mirror`.
struct DownloadEnv {
    EnvVar home, root, offline, url, fashion_url;
    DownloadEnv(const fs::path& tmp, const std::string& mirror_url)
        : home("HOME", (tmp / "home").string()),
          root("BURN_DATASET_DIR", std::nullopt),
          offline("BURN_DATASET_OFFLINE", std::nullopt),
          url("BURN_MNIST_URL", mirror_url),
          fashion_url("BURN_FASHION_MNIST_URL", std::nullopt) {}
};

}  // namespace

TEST(MnistDataset, DownloadUrlAndDir) {
    TempDir tmp;
    EnvVar url("BURN_MNIST_URL", std::nullopt);
    EnvVar fashion_url("BURN_FASHION_MNIST_URL", std::nullopt);
    EXPECT_EQ(MnistDataset::download_url(MnistKind::Mnist),
              "https://storage.googleapis.com/cvdf-datasets/mnist/");
    EXPECT_EQ(MnistDataset::download_url(MnistKind::Fashion),
              "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/");
    {
        EnvVar u("BURN_MNIST_URL", "file:///srv/mnist");  // a '/' is appended
        EXPECT_EQ(MnistDataset::download_url(MnistKind::Mnist), "file:///srv/mnist/");
        EnvVar f("BURN_FASHION_MNIST_URL", "http://example.org/f/");
        EXPECT_EQ(MnistDataset::download_url(MnistKind::Fashion), "http://example.org/f/");
    }
    EnvVar h("HOME", (tmp.path / "home").string());
    {
        EnvVar r("BURN_DATASET_DIR", std::nullopt);
        EXPECT_EQ(MnistDataset::download_dir(MnistKind::Mnist),
                  tmp.path / "home" / ".cache" / "burn-dataset" / "mnist");
    }
    {
        EnvVar r("BURN_DATASET_DIR", (tmp.path / "root").string());
        EXPECT_EQ(MnistDataset::download_dir(MnistKind::Fashion),
                  tmp.path / "root" / "fashion-mnist");
    }
    {
        EnvVar o("BURN_DATASET_OFFLINE", std::nullopt);
        EXPECT_TRUE(MnistDataset::download_enabled());
    }
    {
        EnvVar o("BURN_DATASET_OFFLINE", "0");
        EXPECT_TRUE(MnistDataset::download_enabled());
    }
    {
        EnvVar o("BURN_DATASET_OFFLINE", "1");
        EXPECT_FALSE(MnistDataset::download_enabled());
    }
}

TEST(MnistDataset, DownloadsIntoCacheThenReusesIt) {
    TempDir tmp;
    const fs::path mirror = tmp.path / "mirror";
    write_mirror(mirror, 12);
    DownloadEnv env(tmp.path, file_url(mirror));
    const fs::path cache = tmp.path / "home" / ".cache" / "burn-dataset" / "mnist";

    const auto train = MnistDataset::train();  // downloads all four files
    expect_synthetic(train, 12);
    EXPECT_EQ(train.images_path(), cache / "train-images-idx3-ubyte.gz");
    EXPECT_EQ(files_under(cache), ALL_GZ);  // no temporary file left
    for (const auto& name : ALL_GZ) {
        std::ifstream a(mirror / name, std::ios::binary), b(cache / name, std::ios::binary);
        const std::string x((std::istreambuf_iterator<char>(a)), {}),
            y((std::istreambuf_iterator<char>(b)), {});
        EXPECT_EQ(x, y) << name;
    }

    // The mirror gone, the cache serves both splits.
    fs::remove_all(mirror);
    expect_synthetic(MnistDataset::test(), 6);
    expect_synthetic(MnistDataset::train(), 12);
    EXPECT_EQ(files_under(cache), ALL_GZ);
}

TEST(MnistDataset, DownloadsIntoDatasetDir) {
    TempDir tmp;
    const fs::path mirror = tmp.path / "mirror";
    write_mirror(mirror, 4);
    DownloadEnv env(tmp.path, file_url(mirror) + "/");
    EnvVar root("BURN_DATASET_DIR", (tmp.path / "root").string());
    expect_synthetic(MnistDataset::load(MnistKind::Mnist, MnistSplit::Test), 2);
    EXPECT_EQ(files_under(tmp.path / "root" / "mnist"), ALL_GZ);
    EXPECT_TRUE(files_under(tmp.path / "home").empty());
}

TEST(MnistDataset, DownloadOnlyMissingFiles) {
    TempDir tmp;
    const fs::path mirror = tmp.path / "mirror";
    write_mirror(mirror, 4);
    DownloadEnv env(tmp.path, file_url(mirror));
    const fs::path cache = tmp.path / "home" / ".cache" / "burn-dataset" / "mnist";
    // The train split is in the cache (plain files): test() only fetches the test files.
    write_split(cache, MnistSplit::Train, 8, false);
    expect_synthetic(MnistDataset::test(), 2);
    EXPECT_EQ(files_under(cache),
              (std::vector<std::string>{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
                                        "train-images-idx3-ubyte", "train-labels-idx1-ubyte"}));
    expect_synthetic(MnistDataset::train(), 8);
}

TEST(MnistDataset, UnreachableUrl) {
    TempDir tmp;
    DownloadEnv env(tmp.path, "file:///nonexistent");
    const fs::path cache = tmp.path / "home" / ".cache" / "burn-dataset" / "mnist";
    for (const char* needle :
         {"MnistDataset: MNIST train split not found, and downloading it failed: cannot download "
          "file:///nonexistent/",
          "train-images-idx3-ubyte.gz: Couldn't read a file:// file", "Searched:", cache.c_str(),
          "BURN_DATASET_DIR is not set",
          "Put train-images-idx3-ubyte[.gz] and train-labels-idx1-ubyte[.gz] in one of these "
          "directories",
          "download them from file:///nonexistent/train-images-idx3-ubyte.gz and",
          ", or set $BURN_MNIST_URL to a mirror holding them"})
        EXPECT_BURN_ERROR(MnistDataset::train(), needle);
    EXPECT_TRUE(files_under(cache).empty());  // no partial or temporary file

    // The public download() names the URL too.
    EXPECT_BURN_ERROR(MnistDataset::download(MnistKind::Mnist, tmp.path / "d"),
                      "MnistDataset::download: MNIST: cannot download file:///nonexistent/");
    EXPECT_TRUE(files_under(tmp.path / "d").empty());
}

TEST(MnistDataset, FailedDownloadKeepsCompleteFiles) {
    TempDir tmp;
    const fs::path mirror = tmp.path / "mirror";
    write_mirror(mirror, 4);
    fs::remove(mirror / "t10k-labels-idx1-ubyte.gz");
    DownloadEnv env(tmp.path, file_url(mirror));
    const fs::path cache = tmp.path / "home" / ".cache" / "burn-dataset" / "mnist";
    EXPECT_BURN_ERROR(MnistDataset::test(),
                      "t10k-labels-idx1-ubyte.gz: Couldn't read a file:// file");
    // The file fetched before the failure stays (it is complete); no temporary file. The
    // requested split comes first, and the download stops at the first failure.
    EXPECT_EQ(files_under(cache), std::vector<std::string>{"t10k-images-idx3-ubyte.gz"});
    // train() fetches the train files, then fails on the test labels again: only a warning.
    expect_synthetic(MnistDataset::train(), 4);
    EXPECT_EQ(files_under(cache),
              (std::vector<std::string>{"t10k-images-idx3-ubyte.gz", "train-images-idx3-ubyte.gz",
                                        "train-labels-idx1-ubyte.gz"}));
    // Once the mirror has it, only the missing file is fetched.
    write_mirror(tmp.path / "mirror2", 4);
    EnvVar url("BURN_MNIST_URL", file_url(tmp.path / "mirror2"));
    fs::remove(tmp.path / "mirror2" / "t10k-images-idx3-ubyte.gz");  // would fail if fetched again
    expect_synthetic(MnistDataset::test(), 2);
    EXPECT_EQ(files_under(cache), ALL_GZ);
}

TEST(MnistDataset, CorruptDownloadIsRemoved) {
    TempDir tmp;
    const fs::path mirror = tmp.path / "mirror";
    write_mirror(mirror, 4);
    write_file(mirror / "train-images-idx3-ubyte.gz", Bytes{'<', 'h', 't', 'm', 'l', '>'});
    DownloadEnv env(tmp.path, file_url(mirror));
    const fs::path cache = tmp.path / "home" / ".cache" / "burn-dataset" / "mnist";
    EXPECT_BURN_ERROR(MnistDataset::train(), "train-images-idx3-ubyte.gz': not an IDX3 image file");
    EXPECT_BURN_ERROR(MnistDataset::train(),
                      "(the files just downloaded from " + file_url(mirror) + "/ were removed)");
    EXPECT_TRUE(files_under(cache).empty());
    write_mirror(mirror, 4);
    expect_synthetic(MnistDataset::train(), 4);
}

TEST(MnistDataset, OfflineDisablesDownloads) {
    TempDir tmp;
    const fs::path mirror = tmp.path / "mirror";
    write_mirror(mirror, 4);
    DownloadEnv env(tmp.path, file_url(mirror));
    EnvVar offline("BURN_DATASET_OFFLINE", "1");
    EXPECT_BURN_ERROR(MnistDataset::train(), "(downloading is off: BURN_DATASET_OFFLINE is set)");
    EXPECT_BURN_ERROR(MnistDataset::train(),
                      "download them from " + file_url(mirror) + "/train-images-idx3-ubyte.gz");
    EXPECT_TRUE(files_under(tmp.path / "home").empty());
    // An explicit download still works.
    EXPECT_EQ(MnistDataset::download(MnistKind::Mnist, tmp.path / "d"), tmp.path / "d");
    EXPECT_EQ(files_under(tmp.path / "d"), ALL_GZ);
    expect_synthetic(MnistDataset::train(tmp.path / "d"), 4);
}

TEST(MnistDataset, FashionDownload) {
    TempDir tmp;
    const fs::path mirror = tmp.path / "mirror";
    write_mirror(mirror, 6);
    EnvVar url("BURN_FASHION_MNIST_URL", file_url(mirror));
    MnistDataset::download(MnistKind::Fashion, tmp.path / "f");
    expect_synthetic(MnistDataset::test(tmp.path / "f"), 3);
    // The MNIST URL is not used for Fashion-MNIST.
    EnvVar bad("BURN_FASHION_MNIST_URL", "file:///nonexistent");
    EXPECT_BURN_ERROR(MnistDataset::download(MnistKind::Fashion, tmp.path / "g"),
                      "Fashion-MNIST: cannot download file:///nonexistent/");
}

TEST(MnistDataset, BurnCacheLayout) {
    // Burn caches the decompressed files in mnist/train and mnist/test.
    TempDir tmp;
    DownloadEnv env(tmp.path, "file:///nonexistent");
    const fs::path cache = tmp.path / "home" / ".cache" / "burn-dataset" / "mnist";
    write_split(cache / "train", MnistSplit::Train, 5, false);
    write_split(cache / "test", MnistSplit::Test, 3, false);
    expect_synthetic(MnistDataset::train(), 5);
    expect_synthetic(MnistDataset::test(), 3);
    EXPECT_EQ(MnistDataset::train().images_path(), cache / "train" / "train-images-idx3-ubyte");
    // Fashion-MNIST has no such layout.
    write_split(tmp.path / "home" / ".cache" / "burn-dataset" / "fashion-mnist" / "test",
                MnistSplit::Test, 3, false);
    EnvVar offline("BURN_DATASET_OFFLINE", "1");
    if (!fs::exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"))
        EXPECT_BURN_ERROR(MnistDataset::fashion_test(), "Fashion-MNIST test split not found");
}

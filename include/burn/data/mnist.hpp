// SPDX-License-Identifier: MIT OR Apache-2.0
// MNIST and Fashion-MNIST (Burn's burn::data::dataset::vision::MnistDataset): 28x28 grey images
// with a label 0..9, read from the standard IDX files (plain or gzip-compressed):
//   train-images-idx3-ubyte[.gz]  train-labels-idx1-ubyte[.gz]   (60000 items)
//   t10k-images-idx3-ubyte[.gz]   t10k-labels-idx1-ubyte[.gz]    (10000 items)
//
// Where the files are looked for (first directory holding both files of the split wins):
//   1. the directory given explicitly (MnistDataset::train(dir), ...): only there;
//   2. $BURN_DATASET_DIR/<name>            (<name>: "mnist" or "fashion-mnist");
//   3. $HOME/.cache/burn-dataset/<name>    (Burn's cache directory);
//   4. Fashion-MNIST only: /usr/share/datasets/fashion-mnist (Debian's fashion-mnist package).
// For MNIST, each of 2 and 3 is also looked at with /train or /test appended (the split's
// sub-directory, where Burn itself caches the decompressed files).
// When none has them, train()/test()/fashion_train()/fashion_test()/load(kind, split) download
// the four .gz files (libcurl) into download_dir(kind) (the first of 2 and 3) from
// download_url(kind): Burn's mirror, or $BURN_MNIST_URL / $BURN_FASHION_MNIST_URL (any URL
// libcurl reads, file:// included). BURN_DATASET_OFFLINE=1 turns downloading off. A failed
// download throws burn::Error naming the URL, curl's error, the directories searched and the
// file names to put there by hand.
//
// The files are read once, whole, into memory (47 MB for the training images); a dataset is a
// cheap handle (copies share the bytes) and get() is thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "burn/data/dataset.hpp"

namespace burn::data {

/// Image width and height of MNIST items.
inline constexpr std::size_t MNIST_WIDTH = 28;
inline constexpr std::size_t MNIST_HEIGHT = 28;
/// Number of classes (labels are 0..9).
inline constexpr std::size_t MNIST_CLASSES = 10;

/// One MNIST item, as Burn's `MnistItem { image: [[f32; 28]; 28], label: u8 }`: the raw pixel
/// values 0..255 as floats (not normalised), row-major (index row * 28 + column).
struct MnistItem {
    std::array<float, MNIST_WIDTH * MNIST_HEIGHT> image{};
    std::uint8_t label = 0;

    /// The pixel at (row, column).
    float pixel(std::size_t row, std::size_t column) const { return image[row * MNIST_WIDTH + column]; }
};

/// Which dataset: the handwritten digits, or Zalando's Fashion-MNIST (same format and sizes).
enum class MnistKind { Mnist, Fashion };

/// Which split: the 60000 training items or the 10000 test items.
enum class MnistSplit { Train, Test };

/// MNIST / Fashion-MNIST as a burn::data::Dataset of MnistItem.
class MnistDataset {
public:
    using Item = MnistItem;

    /// MNIST training / test split, found by the lookup order above.
    static MnistDataset train();
    static MnistDataset test();
    /// Fashion-MNIST training / test split, found by the lookup order above.
    static MnistDataset fashion_train();
    static MnistDataset fashion_test();
    /// The split of either dataset, found by the lookup order above.
    static MnistDataset load(MnistKind kind, MnistSplit split);

    /// The split read from `dir` only (both datasets use the same file names).
    static MnistDataset train(const std::filesystem::path& dir);
    static MnistDataset test(const std::filesystem::path& dir);
    static MnistDataset load(const std::filesystem::path& dir, MnistSplit split);

    /// An IDX3 image file and an IDX1 label file given by path (plain or gzip).
    static MnistDataset from_files(const std::filesystem::path& images,
                                   const std::filesystem::path& labels);

    /// Item `index`, or nullopt past the end. Thread-safe.
    std::optional<MnistItem> get(std::size_t index) const;
    /// Number of items.
    std::size_t len() const { return count_; }

    /// The label of item `index` without copying its image (index < len()).
    std::uint8_t label(std::size_t index) const;
    /// The raw bytes of item `index`'s image (784 values 0..255, row-major; index < len()).
    const std::uint8_t* image_bytes(std::size_t index) const;

    /// The image and label files this dataset was read from.
    const std::filesystem::path& images_path() const { return images_path_; }
    const std::filesystem::path& labels_path() const { return labels_path_; }

    /// The directory name under $BURN_DATASET_DIR and the cache: "mnist" or "fashion-mnist".
    static std::string dir_name(MnistKind kind);
    /// The directories searched, in order, for `kind` (from the current environment).
    static std::vector<std::filesystem::path> search_dirs(MnistKind kind);
    /// The file names of a split without the ".gz": {images, labels}.
    static std::array<std::string, 2> file_names(MnistSplit split);

    /// The base URL the files are downloaded from (ending in '/'): $BURN_MNIST_URL (MNIST) or
    /// $BURN_FASHION_MNIST_URL (Fashion-MNIST) when set and not empty, else Burn's MNIST mirror
    /// https://storage.googleapis.com/cvdf-datasets/mnist/ or Zalando's Fashion-MNIST server.
    static std::string download_url(MnistKind kind);
    /// Where a missing dataset is downloaded: $BURN_DATASET_DIR/<name> when set, else
    /// $HOME/.cache/burn-dataset/<name>. Throws burn::Error when neither variable is set.
    static std::filesystem::path download_dir(MnistKind kind);
    /// Whether a missing dataset is downloaded: false when $BURN_DATASET_OFFLINE is set to
    /// anything but "" or "0".
    static bool download_enabled();
    /// Downloads the four .gz files of `kind` (both splits) from download_url(kind) into `dir`
    /// (created if needed), skipping those already there (plain or .gz). Each file is written
    /// to a temporary file in `dir` and renamed once complete; progress goes to stderr. Returns
    /// `dir`. Throws burn::Error naming the URL and curl's error; nothing partial is left.
    /// Works whatever BURN_DATASET_OFFLINE says (it only disables automatic downloads).
    static std::filesystem::path download(MnistKind kind, const std::filesystem::path& dir);

private:
    MnistDataset() = default;

    std::shared_ptr<const std::vector<std::uint8_t>> images_;  // whole file, header included
    std::shared_ptr<const std::vector<std::uint8_t>> labels_;
    std::size_t count_ = 0;
    std::filesystem::path images_path_;
    std::filesystem::path labels_path_;
};

static_assert(Dataset<MnistDataset>);

}  // namespace burn::data

// SPDX-License-Identifier: MIT OR Apache-2.0
// Image datasets read from files (Burn's burn::data::dataset::vision::ImageFolderDataset): the
// usual classification layout
//
//   root/cat/001.png  root/cat/002.jpg  root/dog/a.bmp  ...
//
// where each sub-directory of `root` is a class (sorted by name: label index 0, 1, ...), or an
// explicit list of (image path, class name) pairs. Only the paths are kept in memory; get(i)
// reads and decodes item i's file with stb_image (PNG, JPEG, BMP, TGA, GIF (first frame), PNM,
// PSD), so get() fails with burn::Error naming the file when it is unreadable or corrupt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "burn/data/dataset.hpp"

namespace burn::data {

/// How the pixel values of an item are stored (Burn's PixelDepth variants U8 and U16; Burn's F32
/// is not produced: HDR files are not supported).
enum class PixelDepth { U8, U16 };

/// An image-level label: the index of the class in class_names() (Burn's Annotation::Label).
struct Label {
    std::size_t index = 0;
    friend bool operator==(const Label&, const Label&) = default;
};

/// Several image-level labels (Burn's Annotation::MultiLabel).
struct MultiLabel {
    std::vector<std::size_t> indices;
    friend bool operator==(const MultiLabel&, const MultiLabel&) = default;
};

/// The annotation of an image (Burn's Annotation; bounding boxes and segmentation masks are not
/// supported).
using Annotation = std::variant<Label, MultiLabel>;

/// One decoded image with its annotation (Burn's ImageDatasetItem).
///
/// Pixels are row-major, channels interleaved (HWC): the value of channel c of the pixel at
/// (row, column) is at index (row * width + column) * channels + c. `channels` is what the file
/// holds: 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA); nothing is converted or scaled.
/// 8-bit files fill `image` (0..255); 16-bit files (16-bit PNG, PNM, PSD) fill `image_u16`
/// (0..65535) and leave `image` empty; `depth` says which.
struct ImageDatasetItem {
    std::vector<std::uint8_t> image;
    std::vector<std::uint16_t> image_u16;
    PixelDepth depth = PixelDepth::U8;
    std::size_t width = 0;
    std::size_t height = 0;
    std::size_t channels = 0;
    Annotation annotation;
    /// The file the image was read from.
    std::string image_path;

    /// The value of channel `channel` of the pixel at (row, column), whatever the depth.
    /// Unchecked (like operator[]).
    float pixel(std::size_t row, std::size_t column, std::size_t channel = 0) const {
        const std::size_t i = (row * width + column) * channels + channel;
        return depth == PixelDepth::U8 ? static_cast<float>(image[i])
                                       : static_cast<float>(image_u16[i]);
    }
    /// Number of values: width * height * channels.
    std::size_t num_values() const { return width * height * channels; }
    /// The class index of a Label annotation (throws burn::Error for a MultiLabel).
    std::size_t label() const;
};

/// Images on disk as a burn::data::Dataset of ImageDatasetItem. A cheap handle: copies share the
/// list of items; get() is thread-safe.
class ImageFolderDataset {
public:
    using Item = ImageDatasetItem;

    /// Classification from `root/<class>/...`: every sub-directory of `root` (symbolic links
    /// followed) is a class, and every file under it, at any depth, with a supported extension
    /// (compared case-insensitively) is an image of that class. Classes are sorted by name
    /// (byte order) and numbered from 0; only directories holding at least one image are
    /// classes. Items are ordered by class, then by path. Files directly in `root` are ignored.
    /// Throws burn::Error when `root` is not a directory or holds no image.
    static ImageFolderDataset new_classification(const std::filesystem::path& root);
    /// As new_classification, with only the files of the given extensions ("png", ".JPG": case
    /// and leading dot do not matter); each must be one of supported_extensions().
    static ImageFolderDataset new_classification_with(const std::filesystem::path& root,
                                                      const std::vector<std::string>& extensions);
    /// Classification from explicit (image path, class name) pairs, in that order; `classes`
    /// gives the class names in label order. Throws burn::Error for a class name not in
    /// `classes`, duplicate class names, or a path without a supported extension. The files are
    /// only read by get().
    static ImageFolderDataset new_classification_with_items(
        const std::vector<std::pair<std::filesystem::path, std::string>>& items,
        const std::vector<std::string>& classes);
    /// Multi-label classification from explicit (image path, class names) pairs.
    static ImageFolderDataset new_multilabel_classification_with_items(
        const std::vector<std::pair<std::filesystem::path, std::vector<std::string>>>& items,
        const std::vector<std::string>& classes);

    /// Item `index` decoded from its file, or nullopt past the end. Thread-safe. Throws
    /// burn::Error naming the file when it cannot be read or decoded.
    std::optional<ImageDatasetItem> get(std::size_t index) const;
    /// Number of items.
    std::size_t len() const;

    /// Number of classes.
    std::size_t num_classes() const;
    /// The class names, in label order.
    const std::vector<std::string>& class_names() const;
    /// The path of item `index`, without reading it (throws burn::Error past the end).
    const std::filesystem::path& image_path(std::size_t index) const;
    /// The annotation of item `index`, without reading the image (throws past the end).
    const Annotation& annotation(std::size_t index) const;

    /// The extensions new_classification accepts, what stb_image decodes, lower case without
    /// the dot: bmp, gif, jpeg, jpg, pgm, png, pnm, ppm, psd, tga.
    static const std::vector<std::string>& supported_extensions();

    /// The most bytes one decoded image may take (width x height x channels x bytes per
    /// channel, told by the file's header before anything is decoded): 256 MiB by default
    /// (e.g. 8192 x 8192 RGBA at 8 bits). A larger image is refused with burn::Error, so that a
    /// small file declaring huge dimensions (an RLE TGA or a PNG inflates thousands of times)
    /// costs no memory or time. Process-wide, thread-safe; returns the previous limit.
    static std::uint64_t set_max_decoded_bytes(std::uint64_t bytes);
    static std::uint64_t max_decoded_bytes();

private:
    struct Entry {
        std::filesystem::path path;
        Annotation annotation;
    };
    struct State {
        std::vector<Entry> items;
        std::vector<std::string> classes;
    };
    explicit ImageFolderDataset(std::shared_ptr<const State> state) : state_(std::move(state)) {}

    std::shared_ptr<const State> state_;
};

static_assert(Dataset<ImageFolderDataset>);

}  // namespace burn::data

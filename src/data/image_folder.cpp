// SPDX-License-Identifier: MIT OR Apache-2.0
#include "burn/data/image_folder.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

#include "burn/tensor/error.hpp"

// stb_image is compiled into this file, with internal linkage (STB_IMAGE_STATIC): no link-time
// dependency for users of the installed static library, and no clash with an application's own
// copy of stb_image. Its error string is thread-local (STBI_THREAD_LOCAL, C++11 thread_local),
// so stbi_failure_reason() is safe to call from the DataLoader's workers.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
// stb_image (2.27 at least) converts out-of-range floats to integers when it removes the white
// matte of a PSD with an alpha channel ((unsigned char)(pixel * ra + inv_a) with a negative
// value: a colour darker than the matte allows), which UBSan reports as float-cast-overflow on
// such files (found by tests/fuzz, target image_folder). It touches no memory out of bounds; the
// check is turned off for stb's code only, so that a sanitized build can read such files.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((no_sanitize("float-cast-overflow"))), \
                             apply_to = function)
#endif
#if __has_include(<stb/stb_image.h>)
#include <stb/stb_image.h>  // Debian, Ubuntu, Fedora (libstb-dev, stb-devel)
#else
#include <stb_image.h>  // vcpkg, conan, Homebrew
#endif
#if defined(__clang__)
#pragma clang attribute pop
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace burn::data {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> SUPPORTED = {"bmp", "gif", "jpeg", "jpg", "pgm",
                                            "png", "pnm", "ppm",  "psd", "tga"};

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// An extension as given by a user ("PNG", ".jpg") -> "png", "jpg"; checked against SUPPORTED.
std::string normalize_extension(const std::string& ext, const char* op) {
    std::string e = lower(ext);
    if (!e.empty() && e.front() == '.') e.erase(0, 1);
    BURN_CHECK(std::find(SUPPORTED.begin(), SUPPORTED.end(), e) != SUPPORTED.end(),
               "ImageFolderDataset::", op, ": unsupported image extension '", ext,
               "', expected one of: ", joined(SUPPORTED));
    return e;
}

// The extension of `path`, lower case without the dot ("" when none).
std::string extension_of(const fs::path& path) {
    std::string e = path.extension().string();
    if (!e.empty()) e.erase(0, 1);
    return lower(e);
}

void check_item_extension(const fs::path& path, const char* op) {
    const std::string e = extension_of(path);
    BURN_CHECK(std::find(SUPPORTED.begin(), SUPPORTED.end(), e) != SUPPORTED.end(),
               "ImageFolderDataset::", op, ": '", path.string(),
               "' does not have a supported image extension (",
               e.empty() ? std::string("none") : "'" + e + "'",
               "), expected one of: ", joined(SUPPORTED));
}

std::map<std::string, std::size_t> class_index(const std::vector<std::string>& classes,
                                               const char* op) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < classes.size(); ++i) {
        const bool fresh = index.emplace(classes[i], i).second;
        BURN_CHECK(fresh, "ImageFolderDataset::", op, ": class name '", classes[i],
                   "' appears twice in the class list (at ", index[classes[i]], " and ", i, ")");
    }
    return index;
}

std::size_t lookup_class(const std::map<std::string, std::size_t>& index, const std::string& name,
                         const fs::path& path, const std::vector<std::string>& classes,
                         const char* op) {
    const auto it = index.find(name);
    BURN_CHECK(it != index.end(), "ImageFolderDataset::", op, ": the class '", name, "' of '",
               path.string(), "' is not in the class list [", joined(classes), "]");
    return it->second;
}

std::vector<std::uint8_t> read_bytes(const fs::path& path, std::size_t index) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        detail::fail("ImageFolderDataset::get: cannot open image '", path.string(), "' (item ",
                     index, "): ", std::strerror(err));
    }
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    BURN_CHECK(size >= 0, "ImageFolderDataset::get: cannot read image '", path.string(), "' (item ",
               index, ")");
    in.seekg(0, std::ios::beg);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    if (size > 0) in.read(reinterpret_cast<char*>(bytes.data()), size);
    BURN_CHECK(in.good() || size == 0, "ImageFolderDataset::get: cannot read image '",
               path.string(), "' (item ", index, ")");
    return bytes;
}

// stb_image 2.27 and older return 16-bit PNM samples in the file's byte order (big-endian)
// instead of the host's (fixed in 2.28): whether this copy does, told by decoding a 1x1 image.
bool pnm16_needs_swap() {
    static const bool swap = [] {
        const stbi_uc pgm[] = {'P', '5', '\n', '1', ' ',  '1',  '\n', '6',
                               '5', '5', '3',  '5', '\n', 0x01, 0x02};
        int w = 0, h = 0, c = 0;
        stbi_us* px = stbi_load_16_from_memory(pgm, int(sizeof pgm), &w, &h, &c, 0);
        const bool wrong = px != nullptr && px[0] != 0x0102;
        stbi_image_free(px);
        return wrong;
    }();
    return swap;
}

// stb_image 2.27 (Debian bookworm's) trusts the code counts of a JPEG Huffman table (DHT): a
// table of more than 256 codes writes past the decoder's fixed arrays (found by tests/fuzz,
// target image_folder; newer stb versions check it). Every DHT segment is checked here first,
// walking the marker segments and the entropy-coded data between them as a decoder does.
// Returns the offset of the first table with more than 256 codes, or nullopt.
std::optional<std::size_t> oversized_jpeg_huffman_table(const std::vector<std::uint8_t>& b) {
    // stb accepts fill bytes (0xFF) before the SOI marker, as before any marker.
    std::size_t i = 0;
    while (i < b.size() && b[i] == 0xFF) ++i;
    if (i == 0 || i >= b.size() || b[i] != 0xD8) return std::nullopt;  // not a JPEG
    ++i;
    const auto at = [&](std::size_t k) -> unsigned { return k < b.size() ? b[k] : 0u; };
    while (i + 1 < b.size()) {
        const unsigned m = b[i + 1];
        if (b[i] != 0xFF || m == 0xFF) {  // entropy-coded data, or a fill byte
            ++i;
            continue;
        }
        // A stuffed zero, restart markers, TEM and SOI have no length.
        if (m == 0x00 || m == 0x01 || m == 0xD8 || (m >= 0xD0 && m <= 0xD7)) {
            i += 2;
            continue;
        }
        if (m == 0xD9) break;  // EOI
        const std::size_t len = (at(i + 2) << 8) | at(i + 3);
        const std::size_t end = i + 2 + len;
        if (m == 0xC4) {
            // Tables follow one another until the segment's end (the decoder reads past a
            // short segment, so counts are taken from the bytes that follow it too).
            for (std::size_t t = i + 4; t < end;) {
                std::size_t codes = 0;
                for (std::size_t k = 1; k <= 16; ++k) codes += at(t + k);
                if (codes > 256) return t;
                t += 17 + codes;
            }
        }
        i = std::max(end, i + 2);
    }
    return std::nullopt;
}

bool is_pnm(const std::vector<std::uint8_t>& bytes) {
    return bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == '5' || bytes[1] == '6');
}

// stb_image 2.27 reads the width, height and maximum value of a PNM header into an int without an
// overflow check (signed overflow: undefined behaviour, found by tests/fuzz, target
// image_folder). The header is read here first, exactly as stb reads it (whitespace, '#' comments
// to the end of the line, digits), and a number above INT32_MAX is refused. Returns the number's
// offset, or nullopt.
std::optional<std::size_t> oversized_pnm_header_number(const std::vector<std::uint8_t>& b) {
    if (!is_pnm(b)) return std::nullopt;
    std::size_t pos = 2;
    const auto eof = [&] { return pos >= b.size(); };
    const auto get = [&]() -> char { return eof() ? '\0' : static_cast<char>(b[pos++]); };
    const auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
    };
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    char c = get();
    for (int number = 0; number < 3; ++number) {
        for (;;) {  // stbi__pnm_skip_whitespace
            while (!eof() && space(c)) c = get();
            if (eof() || c != '#') break;
            while (!eof() && c != '\n' && c != '\r') c = get();
        }
        const std::size_t start = pos;
        std::uint64_t value = 0;
        while (!eof() && digit(c)) {  // stbi__pnm_getinteger
            value = value * 10 + static_cast<std::uint64_t>(c - '0');
            if (value > static_cast<std::uint64_t>(INT32_MAX)) return start - 1;
            c = get();
        }
    }
    return std::nullopt;
}

// Two PNG cases stb_image 2.27 handles badly (both found by tests/fuzz, target image_folder):
// - an empty first IDAT chunk makes it pass a null pointer to memcpy (undefined behaviour).
//   Empty IDAT chunks carry no data and stb does not check chunk CRCs, so they are removed;
// - it allocates an IDAT chunk's declared length (up to 1 GiB, then doubled) before reading it,
//   so a small file declaring a huge chunk costs gigabytes before it fails as truncated. An IDAT
//   chunk longer than the rest of the file is refused here (stb would fail on it too).
// Returns the offset of such a truncated chunk, or nullopt; the bytes are otherwise unchanged.
std::optional<std::size_t> prepare_png(std::vector<std::uint8_t>& b) {
    static constexpr std::uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (b.size() < 8 || !std::equal(signature, signature + 8, b.begin())) return std::nullopt;
    std::size_t i = 8;
    while (i + 8 <= b.size()) {
        const std::uint64_t len = (std::uint64_t(b[i]) << 24) | (std::uint64_t(b[i + 1]) << 16) |
                                  (std::uint64_t(b[i + 2]) << 8) | b[i + 3];
        const bool idat = std::equal(b.begin() + i + 4, b.begin() + i + 8, "IDAT");
        if (idat && len == 0 && i + 12 <= b.size()) {
            b.erase(b.begin() + static_cast<std::ptrdiff_t>(i),
                    b.begin() + static_cast<std::ptrdiff_t>(i + 12));
            continue;
        }
        if (len > b.size() - i - 8) return idat ? std::optional<std::size_t>(i) : std::nullopt;
        i += 12 + static_cast<std::size_t>(len);
    }
    return std::nullopt;
}

}  // namespace

std::size_t ImageDatasetItem::label() const {
    const Label* l = std::get_if<Label>(&annotation);
    BURN_CHECK(l != nullptr, "ImageDatasetItem::label: '", image_path,
               "' has a multi-label annotation, not a single label");
    return l->index;
}

const std::vector<std::string>& ImageFolderDataset::supported_extensions() { return SUPPORTED; }

namespace {
std::atomic<std::uint64_t> max_decoded{std::uint64_t(256) << 20};
}  // namespace

std::uint64_t ImageFolderDataset::set_max_decoded_bytes(std::uint64_t bytes) {
    return max_decoded.exchange(bytes);
}

std::uint64_t ImageFolderDataset::max_decoded_bytes() { return max_decoded.load(); }

ImageFolderDataset ImageFolderDataset::new_classification(const std::filesystem::path& root) {
    return new_classification_with(root, SUPPORTED);
}

ImageFolderDataset ImageFolderDataset::new_classification_with(
    const std::filesystem::path& root, const std::vector<std::string>& extensions) {
    BURN_CHECK(!extensions.empty(),
               "ImageFolderDataset::new_classification_with: no extensions given");
    std::set<std::string> wanted;
    for (const auto& e : extensions)
        wanted.insert(normalize_extension(e, "new_classification_with"));
    std::vector<std::string> wanted_list(wanted.begin(), wanted.end());
    const std::string where =
        "'" + root.string() + "' (extensions searched: " + joined(wanted_list) + ")";

    std::error_code ec;
    BURN_CHECK(fs::is_directory(root, ec), "ImageFolderDataset::new_classification: ",
               fs::exists(root, ec) ? "not a directory: " : "no such directory: ", where);

    // Class directories, sorted by name.
    std::vector<std::pair<std::string, fs::path>> class_dirs;
    fs::directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    BURN_CHECK(!ec, "ImageFolderDataset::new_classification: cannot list ", where, ": ",
               ec.message());
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        std::error_code ec2;
        if (it->is_directory(ec2))
            class_dirs.emplace_back(it->path().filename().string(), it->path());
    }
    BURN_CHECK(!ec, "ImageFolderDataset::new_classification: cannot list ", where, ": ",
               ec.message());
    std::sort(class_dirs.begin(), class_dirs.end());

    auto state = std::make_shared<State>();
    for (const auto& [name, dir] : class_dirs) {
        std::vector<std::pair<std::string, fs::path>> files;  // (path relative to dir, path)
        const auto options = fs::directory_options::follow_directory_symlink |
                             fs::directory_options::skip_permission_denied;
        fs::recursive_directory_iterator walk(dir, options, ec);
        BURN_CHECK(!ec, "ImageFolderDataset::new_classification: cannot list '", dir.string(),
                   "': ", ec.message());
        for (; walk != fs::recursive_directory_iterator(); walk.increment(ec)) {
            if (ec) break;
            std::error_code ec2;
            if (!walk->is_regular_file(ec2)) continue;
            if (!wanted.count(extension_of(walk->path()))) continue;
            files.emplace_back(walk->path().lexically_relative(dir).generic_string(), walk->path());
        }
        BURN_CHECK(!ec, "ImageFolderDataset::new_classification: cannot list '", dir.string(),
                   "': ", ec.message());
        if (files.empty()) continue;
        std::sort(files.begin(), files.end());
        const std::size_t label = state->classes.size();
        state->classes.push_back(name);
        for (auto& f : files) state->items.push_back({std::move(f.second), Label{label}});
    }
    BURN_CHECK(!state->items.empty(), "ImageFolderDataset::new_classification: no images found in ",
               where, "; expected the layout <root>/<class name>/<image>",
               class_dirs.empty() ? " (the directory has no sub-directories)" : "");
    return ImageFolderDataset(std::move(state));
}

ImageFolderDataset ImageFolderDataset::new_classification_with_items(
    const std::vector<std::pair<std::filesystem::path, std::string>>& items,
    const std::vector<std::string>& classes) {
    constexpr const char* op = "new_classification_with_items";
    const auto index = class_index(classes, op);
    auto state = std::make_shared<State>();
    state->classes = classes;
    state->items.reserve(items.size());
    for (const auto& [path, name] : items) {
        check_item_extension(path, op);
        state->items.push_back({path, Label{lookup_class(index, name, path, classes, op)}});
    }
    return ImageFolderDataset(std::move(state));
}

ImageFolderDataset ImageFolderDataset::new_multilabel_classification_with_items(
    const std::vector<std::pair<std::filesystem::path, std::vector<std::string>>>& items,
    const std::vector<std::string>& classes) {
    constexpr const char* op = "new_multilabel_classification_with_items";
    const auto index = class_index(classes, op);
    auto state = std::make_shared<State>();
    state->classes = classes;
    state->items.reserve(items.size());
    for (const auto& [path, names] : items) {
        check_item_extension(path, op);
        MultiLabel labels;
        for (const auto& name : names)
            labels.indices.push_back(lookup_class(index, name, path, classes, op));
        state->items.push_back({path, std::move(labels)});
    }
    return ImageFolderDataset(std::move(state));
}

std::size_t ImageFolderDataset::len() const { return state_->items.size(); }
std::size_t ImageFolderDataset::num_classes() const { return state_->classes.size(); }
const std::vector<std::string>& ImageFolderDataset::class_names() const { return state_->classes; }

const std::filesystem::path& ImageFolderDataset::image_path(std::size_t index) const {
    BURN_CHECK(index < len(), "ImageFolderDataset::image_path: index ", index, " out of range for ",
               len(), " items");
    return state_->items[index].path;
}

const Annotation& ImageFolderDataset::annotation(std::size_t index) const {
    BURN_CHECK(index < len(), "ImageFolderDataset::annotation: index ", index, " out of range for ",
               len(), " items");
    return state_->items[index].annotation;
}

std::optional<ImageDatasetItem> ImageFolderDataset::get(std::size_t index) const {
    if (index >= len()) return std::nullopt;
    const Entry& entry = state_->items[index];
    std::vector<std::uint8_t> bytes = read_bytes(entry.path, index);
    if (const auto bad = prepare_png(bytes))
        detail::fail("ImageFolderDataset::get: cannot decode image '", entry.path.string(),
                     "' (item ", index, ", ", bytes.size(),
                     " bytes): truncated PNG: the IDAT chunk at offset ", *bad,
                     " is longer than the rest of the file");
    BURN_CHECK(bytes.size() <= static_cast<std::size_t>(INT32_MAX),
               "ImageFolderDataset::get: image '", entry.path.string(), "' (item ", index,
               ") is too large (", bytes.size(), " bytes)");
    if (const auto bad = oversized_jpeg_huffman_table(bytes))
        detail::fail("ImageFolderDataset::get: cannot decode image '", entry.path.string(),
                     "' (item ", index, ", ", bytes.size(),
                     " bytes): corrupt JPEG: a Huffman table at offset ", *bad,
                     " declares more than 256 codes");
    if (const auto bad = oversized_pnm_header_number(bytes))
        detail::fail("ImageFolderDataset::get: cannot decode image '", entry.path.string(),
                     "' (item ", index, ", ", bytes.size(),
                     " bytes): corrupt PNM header: the number at offset ", *bad,
                     " is larger than 2147483647");
    const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
    const int size = static_cast<int>(bytes.size());
    {
        // The decoded size the header declares, checked before stb allocates and decodes it.
        int iw = 0, ih = 0, ic = 0;
        // stb_image 2.27 reports a top-down BMP's height as negative (found by tests/fuzz, target
        // image_folder): the magnitudes count.
        if (stbi_info_from_memory(data, size, &iw, &ih, &ic) == 1 && iw != 0 && ih != 0) {
            const auto magnitude = [](int v) {
                return static_cast<std::uint64_t>(v < 0 ? -std::int64_t(v) : std::int64_t(v));
            };
            const std::uint64_t depth = stbi_is_16_bit_from_memory(data, size) ? 2 : 1;
            const std::uint64_t need =
                magnitude(iw) * magnitude(ih) * std::uint64_t(std::max(ic, 1)) * depth;
            const std::uint64_t limit = max_decoded_bytes();
            if (need > limit)
                detail::fail("ImageFolderDataset::get: image '", entry.path.string(), "' (item ",
                             index, ", ", bytes.size(), " bytes) is ", magnitude(iw), "x",
                             magnitude(ih), " with ", ic, " channels: ", need,
                             " bytes decoded, more than the limit of ", limit,
                             " (ImageFolderDataset::set_max_decoded_bytes raises it)");
        }
    }

    // Per-thread override of stb's global flip flag: images are always read top row first.
    stbi_set_flip_vertically_on_load_thread(0);
    ImageDatasetItem item;
    int w = 0, h = 0, c = 0;
    if (stbi_is_16_bit_from_memory(data, size)) {
        stbi_us* px = stbi_load_16_from_memory(data, size, &w, &h, &c, 0);
        if (px != nullptr) {
            item.image_u16.assign(px, px + std::size_t(w) * std::size_t(h) * std::size_t(c));
            item.depth = PixelDepth::U16;
            stbi_image_free(px);
            if (is_pnm(bytes) && pnm16_needs_swap())
                for (std::uint16_t& v : item.image_u16)
                    v = static_cast<std::uint16_t>((v >> 8) | (v << 8));
        }
    } else {
        stbi_uc* px = stbi_load_from_memory(data, size, &w, &h, &c, 0);
        if (px != nullptr) {
            item.image.assign(px, px + std::size_t(w) * std::size_t(h) * std::size_t(c));
            stbi_image_free(px);
        }
    }
    if (item.image.empty() && item.image_u16.empty()) {
        const char* why = stbi_failure_reason();  // thread-local in stb_image >= 2.26
        detail::fail("ImageFolderDataset::get: cannot decode image '", entry.path.string(),
                     "' (item ", index, ", ", bytes.size(),
                     " bytes): ", why != nullptr ? why : "unknown error");
    }
    item.width = static_cast<std::size_t>(w);
    item.height = static_cast<std::size_t>(h);
    item.channels = static_cast<std::size_t>(c);
    item.annotation = entry.annotation;
    item.image_path = entry.path.string();
    return item;
}

}  // namespace burn::data

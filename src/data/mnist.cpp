// SPDX-License-Identifier: MIT OR Apache-2.0
#include "burn/data/mnist.hpp"

#include <curl/curl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>

#include "burn/tensor/error.hpp"

namespace burn::data {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t IDX1_MAGIC = 2049;  // 0x00000801: unsigned bytes, 1 dimension
constexpr std::uint32_t IDX3_MAGIC = 2051;  // 0x00000803: unsigned bytes, 3 dimensions
constexpr std::size_t IMAGE_SIZE = MNIST_WIDTH * MNIST_HEIGHT;
constexpr std::size_t IMAGES_HEADER = 16;
constexpr std::size_t LABELS_HEADER = 8;

constexpr const char* MNIST_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/";
constexpr const char* FASHION_URL = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/";
constexpr const char* DEBIAN_FASHION_DIR = "/usr/share/datasets/fashion-mnist";

std::uint32_t be32(const std::vector<std::uint8_t>& b, std::size_t at) {
    return (std::uint32_t(b[at]) << 24) | (std::uint32_t(b[at + 1]) << 16) |
           (std::uint32_t(b[at + 2]) << 8) | std::uint32_t(b[at + 3]);
}

std::vector<std::uint8_t> read_plain(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    BURN_CHECK(in, "MnistDataset: cannot open '", path.string(), "'");
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::size_t>(in.tellg());
    in.seekg(0, std::ios::beg);
    std::vector<std::uint8_t> bytes(size);
    if (size > 0)
        in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
    BURN_CHECK(in, "MnistDataset: cannot read '", path.string(), "'");
    return bytes;
}

// zlib's message for the last error on `f`, without the file name it starts with.
std::string gz_message(gzFile f, const fs::path& path, int& code) {
    std::string why = gzerror(f, &code);
    const std::string prefix = path.string() + ": ";
    if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    return why;
}

// The size an IDX file declares in its header (`b`: its first `used` bytes), or nullopt while
// the header is incomplete. An unknown magic number or image size declares the header alone:
// the checks below then report it.
std::optional<std::size_t> declared_idx_size(const std::vector<std::uint8_t>& b, std::size_t used) {
    if (used < 8) return std::nullopt;
    const std::uint32_t magic = be32(b, 0);
    if (magic == IDX1_MAGIC) return LABELS_HEADER + std::size_t(be32(b, 4));
    if (magic != IDX3_MAGIC) return used;
    if (used < IMAGES_HEADER) return std::nullopt;
    if (be32(b, 8) != MNIST_HEIGHT || be32(b, 12) != MNIST_WIDTH) return used;  // refused below
    return IMAGES_HEADER + std::size_t(be32(b, 4)) * IMAGE_SIZE;
}

struct IdxBytes {
    std::vector<std::uint8_t> bytes;  // the content, decompressed
    bool gzip = false;
    bool cut = false;  // reading stopped one byte past the declared size: more data follows
};

// The decompressed content of a gzip IDX file. Inflates no further than one byte past the size
// its header declares, so a small file that inflates to gigabytes of trailing data costs no
// more memory or time than the content it declares (`compressed`: the file's bytes).
IdxBytes read_gzip(const fs::path& path, const std::vector<std::uint8_t>& compressed) {
    std::size_t hint = 0;
    if (compressed.size() >= 18) {  // ISIZE trailer: uncompressed size mod 2^32 of the last member
        const std::size_t n = compressed.size();
        hint = std::size_t(compressed[n - 4]) | (std::size_t(compressed[n - 3]) << 8) |
               (std::size_t(compressed[n - 2]) << 16) | (std::size_t(compressed[n - 1]) << 24);
        // Deflate compresses at most 1032:1; a trailer of a damaged file may say anything.
        hint = std::min<std::size_t>({hint, n * 1032, std::size_t(1) << 26});
    }
    gzFile f = gzopen(path.string().c_str(), "rb");
    BURN_CHECK(f != nullptr, "MnistDataset: cannot open '", path.string(), "'");
    gzbuffer(f, 1u << 17);
    IdxBytes result;
    result.gzip = true;
    std::vector<std::uint8_t>& out = result.bytes;
    out.resize(std::max<std::size_t>(hint, IMAGES_HEADER));
    std::size_t used = 0;
    std::optional<std::size_t> limit;  // declared size + 1, once the header is read
    for (;;) {
        if (!limit)
            if (auto declared = declared_idx_size(out, used)) limit = *declared + 1;
        if (limit && used >= *limit) {
            result.cut = true;
            used = *limit;
            break;
        }
        if (used == out.size())
            out.resize(limit ? std::min(out.size() * 2, *limit) : out.size() * 2);
        std::size_t want = std::min<std::size_t>(out.size() - used, std::size_t(1) << 24);
        if (!limit) want = std::min(want, IMAGES_HEADER - used);  // the header first
        const int got = gzread(f, out.data() + used, static_cast<unsigned>(want));
        if (got < 0) {
            int code = 0;
            const std::string why = gz_message(f, path, code);
            gzclose(f);
            detail::fail("MnistDataset: '", path.string(), "': corrupt or truncated gzip data (",
                         why, ")");
        }
        if (got == 0) break;
        used += static_cast<std::size_t>(got);
    }
    // A stream cut short is not an error for gzread, which returns what it could decompress and
    // notes Z_BUF_ERROR ("unexpected end of file"), checksum and size trailer unchecked.
    int code = Z_OK;
    const std::string why = gz_message(f, path, code);
    gzclose(f);
    BURN_CHECK(result.cut || code == Z_OK, "MnistDataset: '", path.string(),
               "': corrupt or truncated gzip data (", why, ")");
    out.resize(used);
    return result;
}

// The whole content of an IDX file, plain or gzip (told by its first two bytes, not its name).
IdxBytes read_idx(const fs::path& path) {
    std::vector<std::uint8_t> bytes = read_plain(path);
    if (bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) return read_gzip(path, bytes);
    return {std::move(bytes), false, false};
}

std::string describe_size(const IdxBytes& f) {
    return (f.cut ? "more than " + std::to_string(f.bytes.size() - 1)
                  : std::to_string(f.bytes.size())) +
           (f.gzip ? " bytes once decompressed" : " bytes");
}

// Checks an IDX3 image file; returns its item count.
std::size_t check_images(const fs::path& path, const IdxBytes& f) {
    const auto& b = f.bytes;
    const std::string name = "MnistDataset: '" + path.string() + "': ";
    BURN_CHECK(b.size() >= 4, name, "too short for an IDX3 image file (", describe_size(f),
               ", expected a 16-byte header)");
    const std::uint32_t magic = be32(b, 0);
    BURN_CHECK(magic == IDX3_MAGIC, name, "not an IDX3 image file: magic number ", magic,
               ", expected ", IDX3_MAGIC,
               magic == IDX1_MAGIC ? " (this is an IDX1 label file)" : "");
    BURN_CHECK(b.size() >= IMAGES_HEADER, name, "too short for an IDX3 image file (",
               describe_size(f), ", expected a 16-byte header)");
    const std::size_t count = be32(b, 4);
    const std::uint32_t rows = be32(b, 8), cols = be32(b, 12);
    BURN_CHECK(rows == MNIST_HEIGHT && cols == MNIST_WIDTH, name, "images are ", rows, "x", cols,
               ", expected ", MNIST_HEIGHT, "x", MNIST_WIDTH);
    const std::size_t expected = IMAGES_HEADER + count * IMAGE_SIZE;
    BURN_CHECK(b.size() == expected, name, b.size() < expected ? "truncated" : "trailing data",
               ": ", describe_size(f), ", expected ", expected, " for ", count, " images of 28x28");
    return count;
}

// Checks an IDX1 label file; returns its item count.
std::size_t check_labels(const fs::path& path, const IdxBytes& f) {
    const auto& b = f.bytes;
    const std::string name = "MnistDataset: '" + path.string() + "': ";
    BURN_CHECK(b.size() >= 4, name, "too short for an IDX1 label file (", describe_size(f),
               ", expected an 8-byte header)");
    const std::uint32_t magic = be32(b, 0);
    BURN_CHECK(magic == IDX1_MAGIC, name, "not an IDX1 label file: magic number ", magic,
               ", expected ", IDX1_MAGIC,
               magic == IDX3_MAGIC ? " (this is an IDX3 image file)" : "");
    BURN_CHECK(b.size() >= LABELS_HEADER, name, "too short for an IDX1 label file (",
               describe_size(f), ", expected an 8-byte header)");
    const std::size_t count = be32(b, 4);
    const std::size_t expected = LABELS_HEADER + count;
    BURN_CHECK(b.size() == expected, name, b.size() < expected ? "truncated" : "trailing data",
               ": ", describe_size(f), ", expected ", expected, " for ", count, " labels");
    for (std::size_t i = 0; i < count; ++i) {
        const unsigned v = b[LABELS_HEADER + i];
        BURN_CHECK(v < MNIST_CLASSES, name, "label ", v, " of item ", i,
                   " is out of range, expected 0..", MNIST_CLASSES - 1);
    }
    return count;
}

// The file `name` or `name.gz` in `dir`, if either exists.
std::optional<fs::path> find_file(const fs::path& dir, const std::string& name) {
    std::error_code ec;
    for (const fs::path& p : {dir / name, dir / (name + ".gz")})
        if (fs::is_regular_file(p, ec)) return p;
    return std::nullopt;
}

const char* kind_title(MnistKind kind) {
    return kind == MnistKind::Fashion ? "Fashion-MNIST" : "MNIST";
}

const char* split_title(MnistSplit split) { return split == MnistSplit::Train ? "train" : "test"; }

const char* env_or_null(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? v : nullptr;
}

// The directories of a split in the lookup order: for MNIST, each search directory and then its
// train/ or test/ sub-directory (Burn's own cache layout).
std::vector<fs::path> split_dirs(MnistKind kind, MnistSplit split) {
    std::vector<fs::path> dirs;
    for (const fs::path& dir : MnistDataset::search_dirs(kind)) {
        dirs.push_back(dir);
        if (kind == MnistKind::Mnist && dir != fs::path(DEBIAN_FASHION_DIR))
            dirs.push_back(dir / split_title(split));
    }
    return dirs;
}

// "MnistDataset: MNIST train split not found. Searched: ... Put ... in one of these directories"
// (`after_download`: a download failed; say how to use another mirror).
std::string not_found_message(MnistKind kind, MnistSplit split, const std::string& reason,
                              bool after_download) {
    const auto names = MnistDataset::file_names(split);
    std::ostringstream os;
    os << "MnistDataset: " << kind_title(kind) << " " << split_title(split) << " split not found"
       << reason << ". Searched:";
    if (env_or_null("BURN_DATASET_DIR") == nullptr)
        os << "\n  ($BURN_DATASET_DIR/" << MnistDataset::dir_name(kind)
           << ": BURN_DATASET_DIR is not set)";
    if (env_or_null("HOME") == nullptr)
        os << "\n  (~/.cache/burn-dataset/" << MnistDataset::dir_name(kind) << ": HOME is not set)";
    for (const fs::path& dir : MnistDataset::search_dirs(kind)) os << "\n  " << dir.string();
    os << "\nPut " << names[0] << "[.gz] and " << names[1] << "[.gz] in one of these directories"
       << " (or in $BURN_DATASET_DIR/" << MnistDataset::dir_name(kind) << ", or pass a directory)";
    const std::string url = MnistDataset::download_url(kind);
    os << "; download them from " << url << names[0] << ".gz and " << url << names[1] << ".gz";
    if (after_download)
        os << ", or set $"
           << (kind == MnistKind::Fashion ? "BURN_FASHION_MNIST_URL" : "BURN_MNIST_URL")
           << " to a mirror holding them";
    if (kind == MnistKind::Fashion)
        os << " (on Debian/Ubuntu: apt install fashion-mnist, which installs them in "
           << DEBIAN_FASHION_DIR << ")";
    return os.str();
}

// ---------------------------------------------------------------------------- downloading

void curl_init_once() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string human_size(curl_off_t bytes) {
    char buf[32];
    if (bytes >= 1'000'000) std::snprintf(buf, sizeof buf, "%.1f MB", double(bytes) / 1e6);
    else if (bytes >= 1'000) std::snprintf(buf, sizeof buf, "%.1f kB", double(bytes) / 1e3);
    else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    return buf;
}

struct Transfer {
    std::FILE* out = nullptr;
    bool write_failed = false;
    bool tty = false;
    std::string name;  // the file name shown in the progress line
    int last_percent = -1;
    curl_off_t last_bytes = 0;
    bool printed = false;  // a progress line is open
};

size_t burn_mnist_write(char* data, size_t size, size_t count, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::size_t n = size * count;
    if (std::fwrite(data, 1, n, t->out) != n) {
        t->write_failed = true;
        return 0;  // makes curl fail with CURLE_WRITE_ERROR
    }
    return n;
}

int burn_mnist_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(user);
    if (!t->tty) return 0;
    if (total > 0) {
        const int percent = static_cast<int>(now * 100 / total);
        if (percent == t->last_percent) return 0;
        t->last_percent = percent;
        std::fprintf(stderr, "\r  %s: %3d%% (%s / %s)", t->name.c_str(), percent,
                     human_size(now).c_str(), human_size(total).c_str());
    } else {
        if (now == 0 || now - t->last_bytes < 65536) return 0;
        t->last_bytes = now;
        std::fprintf(stderr, "\r  %s: %s", t->name.c_str(), human_size(now).c_str());
    }
    std::fflush(stderr);
    t->printed = true;
    return 0;
}

// Downloads `url` into `dest` through a temporary file next to it, renamed when complete.
// Throws burn::Error naming the URL and curl's error; the temporary file is removed on failure.
void download_file(const std::string& url, const fs::path& dest, bool tty) {
    static std::atomic<unsigned> counter{0};
    const fs::path part = dest.string() + ".part-" + std::to_string(::getpid()) + "-" +
                          std::to_string(counter.fetch_add(1));
    Transfer t;
    t.tty = tty;
    t.name = dest.filename().string();
    t.out = std::fopen(part.string().c_str(), "wb");
    if (t.out == nullptr) {
        const int err = errno;
        detail::fail("cannot download ", url, ": cannot create '", part.string(),
                     "': ", std::strerror(err));
    }
    curl_init_once();
    CURL* curl = curl_easy_init();
    char errbuf[CURL_ERROR_SIZE] = {0};
    CURLcode rc = CURLE_FAILED_INIT;
    if (curl != nullptr) {
        curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
        curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);  // HTTP >= 400 is an error
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
        curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);  // abort when stalled for a minute
        curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
        curl_easy_setopt(curl, CURLOPT_USERAGENT, "burn-cpp");
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, burn_mnist_write);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, burn_mnist_progress);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
        rc = curl_easy_perform(curl);
        curl_easy_cleanup(curl);
    }
    if (t.printed) std::fputc('\n', stderr);
    const bool closed = std::fclose(t.out) == 0;
    std::error_code ec;
    if (rc != CURLE_OK || t.write_failed || !closed) {
        fs::remove(part, ec);
        std::string why = curl_easy_strerror(rc);
        if (errbuf[0] != '\0' && why != errbuf) why += " (" + std::string(errbuf) + ")";
        if (t.write_failed || (rc == CURLE_OK && !closed))
            why = "cannot write '" + part.string() + "' (disk full?)";
        detail::fail("cannot download ", url, ": ", why);
    }
    fs::rename(part, dest, ec);
    if (ec) {
        std::error_code ec2;
        fs::remove(part, ec2);
        detail::fail("cannot download ", url, ": cannot rename '", part.string(), "' to '",
                     dest.string(), "': ", ec.message());
    }
}

}  // namespace

std::string MnistDataset::dir_name(MnistKind kind) {
    return kind == MnistKind::Fashion ? "fashion-mnist" : "mnist";
}

std::array<std::string, 2> MnistDataset::file_names(MnistSplit split) {
    const std::string prefix = split == MnistSplit::Train ? "train" : "t10k";
    return {prefix + "-images-idx3-ubyte", prefix + "-labels-idx1-ubyte"};
}

std::vector<std::filesystem::path> MnistDataset::search_dirs(MnistKind kind) {
    std::vector<fs::path> dirs;
    const std::string name = dir_name(kind);
    if (const char* root = std::getenv("BURN_DATASET_DIR"); root != nullptr && *root != '\0')
        dirs.push_back(fs::path(root) / name);
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
        dirs.push_back(fs::path(home) / ".cache" / "burn-dataset" / name);
    if (kind == MnistKind::Fashion) dirs.emplace_back(DEBIAN_FASHION_DIR);
    return dirs;
}

MnistDataset MnistDataset::from_files(const std::filesystem::path& images,
                                      const std::filesystem::path& labels) {
    auto image_bytes = read_idx(images);
    const std::size_t n_images = check_images(images, image_bytes);
    auto label_bytes = read_idx(labels);
    const std::size_t n_labels = check_labels(labels, label_bytes);
    BURN_CHECK(n_images == n_labels, "MnistDataset: '", images.string(), "' has ", n_images,
               " images but '", labels.string(), "' has ", n_labels,
               " labels, expected the same count");
    MnistDataset ds;
    ds.images_ = std::make_shared<const std::vector<std::uint8_t>>(std::move(image_bytes.bytes));
    ds.labels_ = std::make_shared<const std::vector<std::uint8_t>>(std::move(label_bytes.bytes));
    ds.count_ = n_images;
    ds.images_path_ = images;
    ds.labels_path_ = labels;
    return ds;
}

MnistDataset MnistDataset::load(const std::filesystem::path& dir, MnistSplit split) {
    const auto names = file_names(split);
    const auto images = find_file(dir, names[0]);
    const auto labels = find_file(dir, names[1]);
    BURN_CHECK(images && labels, "MnistDataset: the ", split_title(split), " split is not in '",
               dir.string(), "': expected ", names[0], "[.gz] and ", names[1], "[.gz]",
               images ? "" : " (images missing)", labels ? "" : " (labels missing)");
    return from_files(*images, *labels);
}

std::string MnistDataset::download_url(MnistKind kind) {
    const char* env =
        env_or_null(kind == MnistKind::Fashion ? "BURN_FASHION_MNIST_URL" : "BURN_MNIST_URL");
    std::string url = env != nullptr ? env : (kind == MnistKind::Fashion ? FASHION_URL : MNIST_URL);
    if (url.back() != '/') url += '/';
    return url;
}

std::filesystem::path MnistDataset::download_dir(MnistKind kind) {
    if (const char* root = env_or_null("BURN_DATASET_DIR")) return fs::path(root) / dir_name(kind);
    const char* home = env_or_null("HOME");
    BURN_CHECK(home != nullptr, "MnistDataset: nowhere to download ", kind_title(kind),
               ": neither BURN_DATASET_DIR nor HOME is set");
    return fs::path(home) / ".cache" / "burn-dataset" / dir_name(kind);
}

bool MnistDataset::download_enabled() {
    const char* offline = env_or_null("BURN_DATASET_OFFLINE");
    return offline == nullptr || std::string(offline) == "0";
}

namespace {

// Downloads the files of `kind` missing from `dir`, those of `first` first; appends the paths
// written to `written`.
void download_missing(MnistKind kind, const fs::path& dir, MnistSplit first,
                      std::vector<fs::path>& written) {
    const MnistSplit second = first == MnistSplit::Train ? MnistSplit::Test : MnistSplit::Train;
    std::vector<std::string> missing;
    for (MnistSplit split : {first, second})
        for (const std::string& name : MnistDataset::file_names(split))
            if (!find_file(dir, name)) missing.push_back(name + ".gz");
    if (missing.empty()) return;
    std::error_code ec;
    fs::create_directories(dir, ec);
    BURN_CHECK(!ec, "cannot create '", dir.string(), "': ", ec.message());
    const std::string base = MnistDataset::download_url(kind);
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    std::fprintf(stderr, "Downloading %s (%zu file%s) from %s into %s\n", kind_title(kind),
                 missing.size(), missing.size() == 1 ? "" : "s", base.c_str(),
                 dir.string().c_str());
    for (const std::string& name : missing) {
        download_file(base + name, dir / name, tty);
        written.push_back(dir / name);
    }
}

}  // namespace

std::filesystem::path MnistDataset::download(MnistKind kind, const std::filesystem::path& dir) {
    try {
        std::vector<fs::path> written;
        download_missing(kind, dir, MnistSplit::Train, written);
    } catch (const Error& e) {
        detail::fail("MnistDataset::download: ", kind_title(kind), ": ", e.what());
    }
    return dir;
}

MnistDataset MnistDataset::load(MnistKind kind, MnistSplit split) {
    const auto names = file_names(split);
    for (const fs::path& dir : split_dirs(kind, split)) {
        const auto images = find_file(dir, names[0]);
        const auto labels = find_file(dir, names[1]);
        if (images && labels) return from_files(*images, *labels);
    }
    if (!download_enabled())
        throw Error(not_found_message(kind, split,
                                      " (downloading is off: BURN_DATASET_OFFLINE is set)", false));
    if (env_or_null("BURN_DATASET_DIR") == nullptr && env_or_null("HOME") == nullptr)
        throw Error(not_found_message(
            kind, split, " (nowhere to download it: neither BURN_DATASET_DIR nor HOME is set)",
            false));
    const fs::path dir = download_dir(kind);
    std::vector<fs::path> written;
    try {
        download_missing(kind, dir, split, written);
    } catch (const Error& e) {
        // The files of the other split are fetched last: their failure does not stop this one.
        if (!(find_file(dir, names[0]) && find_file(dir, names[1])))
            throw Error(not_found_message(
                kind, split, std::string(", and downloading it failed: ") + e.what(), true));
        std::fprintf(stderr, "MnistDataset: warning: %s\n", e.what());
    }
    try {
        return load(dir, split);
    } catch (const Error& e) {
        // A download that is not MNIST (an HTML error page, a truncated file...) must not stay
        // in the cache, where it would be found again next time.
        std::error_code ec;
        for (const fs::path& p : written) fs::remove(p, ec);
        detail::fail(e.what(), " (the files just downloaded from ", download_url(kind),
                     written.empty() ? "" : " were removed", ")");
    }
}

MnistDataset MnistDataset::train() { return load(MnistKind::Mnist, MnistSplit::Train); }
MnistDataset MnistDataset::test() { return load(MnistKind::Mnist, MnistSplit::Test); }
MnistDataset MnistDataset::fashion_train() { return load(MnistKind::Fashion, MnistSplit::Train); }
MnistDataset MnistDataset::fashion_test() { return load(MnistKind::Fashion, MnistSplit::Test); }
MnistDataset MnistDataset::train(const std::filesystem::path& dir) {
    return load(dir, MnistSplit::Train);
}
MnistDataset MnistDataset::test(const std::filesystem::path& dir) {
    return load(dir, MnistSplit::Test);
}

std::uint8_t MnistDataset::label(std::size_t index) const {
    BURN_CHECK(index < count_, "MnistDataset::label: index ", index, " out of range for ", count_,
               " items");
    return (*labels_)[LABELS_HEADER + index];
}

const std::uint8_t* MnistDataset::image_bytes(std::size_t index) const {
    BURN_CHECK(index < count_, "MnistDataset::image_bytes: index ", index, " out of range for ",
               count_, " items");
    return images_->data() + IMAGES_HEADER + index * IMAGE_SIZE;
}

std::optional<MnistItem> MnistDataset::get(std::size_t index) const {
    if (index >= count_) return std::nullopt;
    MnistItem item;
    const std::uint8_t* src = images_->data() + IMAGES_HEADER + index * IMAGE_SIZE;
    for (std::size_t i = 0; i < IMAGE_SIZE; ++i) item.image[i] = static_cast<float>(src[i]);
    item.label = (*labels_)[LABELS_HEADER + index];
    return item;
}

}  // namespace burn::data

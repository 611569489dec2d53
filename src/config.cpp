// SPDX-License-Identifier: MIT OR Apache-2.0
// The compiled part of the config system: JSON text in and out, and file IO.
#include "burn/config/config.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define BURN_CONFIG_POSIX 1
#endif

namespace burn::config::detail {

namespace {

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

}  // namespace

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

Json parse_json(std::string_view text, std::string_view context) {
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

}  // namespace burn::config::detail

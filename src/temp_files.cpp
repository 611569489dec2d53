// SPDX-License-Identifier: MIT OR Apache-2.0
#include "temp_files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string_view>
#include <system_error>

namespace burn::detail {

namespace fs = std::filesystem;

std::string temp_file_suffix() {
    static std::atomic<std::uint64_t> counter{0};
    static const std::uint64_t base = [] {
        std::random_device rd;
        return (std::uint64_t(rd()) << 32) ^ rd();
    }();
    std::uint64_t x = base + 0x9E3779B97F4A7C15ULL * (counter.fetch_add(1) + 1);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    static constexpr char digits[] = "0123456789abcdef";
    std::string s = ".tmp-" + std::to_string(::getpid()) + "-";
    for (int i = 0; i < 12; ++i) s += digits[(x >> (4 * i)) & 15];
    return s;
}

void remove_stale_temporaries(const fs::path& target,
                              std::initializer_list<const char*> side_suffixes) {
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const std::string prefix = target.filename().string() + ".tmp-";
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with(prefix)) continue;
        std::string_view rest = std::string_view(name).substr(prefix.size());
        for (const char* side : side_suffixes)
            if (rest.ends_with(side)) rest.remove_suffix(std::strlen(side));
        const auto dash = rest.find('-');
        if (dash == std::string_view::npos || dash == 0 || rest.size() - dash - 1 != 12) continue;
        long long pid = 0;
        bool digits = true;
        for (const char c : rest.substr(0, dash)) {
            if (c < '0' || c > '9' || pid > (1LL << 40)) digits = false;
            else pid = pid * 10 + (c - '0');
        }
        if (!digits || pid <= 0 || pid == ::getpid()) continue;
        if (rest.substr(dash + 1).find_first_not_of("0123456789abcdef") != std::string_view::npos)
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running
        std::error_code ignored;
        fs::remove(it->path(), ignored);
    }
}

void sync_path(const fs::path& path, bool directory) {
    const int fd = ::open(path.empty() ? "." : path.c_str(),
                          (directory ? O_RDONLY | O_DIRECTORY : O_RDWR) | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);
    ::close(fd);
}

}  // namespace burn::detail

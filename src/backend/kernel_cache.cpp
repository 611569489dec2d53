// SPDX-License-Identifier: MIT OR Apache-2.0
// The on-disk kernel cache's files (burn/backend/kernel_cache.hpp).
#include "burn/backend/kernel_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <system_error>

namespace burn::backend {

std::filesystem::path kernel_cache_dir(const char* env, std::string_view sub) {
    if (const char* v = std::getenv(env)) {
        if (std::string_view(v) == "off" || std::string_view(v) == "0") return {};
        if (*v) return v;
    }
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::filesystem::path(x) / "burn-cpp" / sub;
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::filesystem::path(h) / ".cache" / "burn-cpp" / sub;
    return {};
}

std::vector<char> read_cache_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return {};
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void write_cache_file(const std::filesystem::path& file, std::span<const char> data) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) return;
    std::random_device rd;
    auto tmp = file;
    tmp += ".tmp" + std::to_string(rd());
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out) return;
        out.write(data.data(), static_cast<std::streamsize>(data.size()));
        if (!out) {
            out.close();
            std::filesystem::remove(tmp, ec);
            return;
        }
    }
    std::filesystem::rename(tmp, file, ec);
    if (ec) std::filesystem::remove(tmp, ec);
}

std::uint64_t fnv1a(std::uint64_t h, std::string_view s) {
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string hex16(std::uint64_t h) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

}  // namespace burn::backend

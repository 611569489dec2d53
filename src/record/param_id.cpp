// SPDX-License-Identifier: MIT OR Apache-2.0
#include "burn/record/param_id.hpp"

#include <atomic>
#include <charconv>
#include <random>

#include "burn/tensor/error.hpp"

namespace burn::record {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

}  // namespace

ParamId::ParamId() {
    // A random per-process base mixed with a counter: unique within a process (splitmix64 is a
    // bijection) and unlikely to collide with ids loaded from records of other runs.
    static const std::uint64_t base = [] {
        std::random_device rd;
        return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }();
    static std::atomic<std::uint64_t> counter{0};
    value_ = splitmix64(base + counter.fetch_add(1, std::memory_order_relaxed));
}

std::string ParamId::to_string() const {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i)
        s[static_cast<std::size_t>(i)] = digits[(value_ >> (4 * (15 - i))) & 0xF];
    return s;
}

ParamId ParamId::from_string(std::string_view s) {
    std::uint64_t v = 0;
    const auto* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, v, 16);
    BURN_CHECK(!s.empty() && s.size() <= 16 && r.ec == std::errc{} && r.ptr == end,
               "ParamId::from_string: expected up to 16 hex digits, got \"", s, "\"");
    return ParamId(v);
}

}  // namespace burn::record

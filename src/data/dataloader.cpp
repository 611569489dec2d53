// SPDX-License-Identifier: MIT OR Apache-2.0
// The DataLoader's portable shuffling (per-epoch seeds and seeded permutations) and sharding.
#include "burn/data/dataloader.hpp"

namespace burn::data {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// A uniform draw in [0, bound) (bound > 0), without modulo bias.
std::uint64_t bounded(std::uint64_t& state, std::uint64_t bound) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;  // multiple of bound
    for (;;) {
        const std::uint64_t r = splitmix64(state);
        if (r < limit) return r % bound;
    }
}

}  // namespace

std::uint64_t epoch_seed(std::uint64_t seed, std::uint64_t epoch) {
    std::uint64_t state = seed;
    const std::uint64_t a = splitmix64(state);
    state = a ^ (epoch * 0xD1B54A32D192ED03ULL + 0x2545F4914F6CDD1DULL);
    return splitmix64(state);
}

std::vector<std::size_t> seeded_permutation(std::size_t n, std::uint64_t seed) {
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    std::uint64_t state = seed;
    for (std::size_t i = n; i > 1; --i) {
        const auto j = static_cast<std::size_t>(bounded(state, static_cast<std::uint64_t>(i)));
        std::swap(perm[i - 1], perm[j]);
    }
    return perm;
}

namespace detail {

std::vector<std::size_t> epoch_indices(std::size_t len, std::optional<std::uint64_t> seed,
                                       std::uint64_t epoch, std::size_t shard,
                                       std::size_t num_shards) {
    std::vector<std::size_t> order;
    if (seed) order = seeded_permutation(len, epoch_seed(*seed, epoch));
    if (num_shards <= 1 || len == 0) return order;
    const std::size_t n = shard_len(len, num_shards);
    std::vector<std::size_t> out(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = (shard + k * num_shards) % len;  // past the end: wrap around
        out[k] = order.empty() ? i : order[i];
    }
    return out;
}

}  // namespace detail
}  // namespace burn::data

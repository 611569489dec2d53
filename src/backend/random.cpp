// SPDX-License-Identifier: MIT OR Apache-2.0
// The Philox stream position shared by the kit's backends (burn/backend/random.hpp).
#include "burn/backend/random.hpp"

#include <random>

namespace burn::backend {

void PhiloxState::seed(std::uint64_t seed) {
    std::lock_guard lock(mu_);
    key_ = seed;
    offset_ = 0;
    seeded_ = true;
}

PhiloxState::Reservation PhiloxState::reserve(std::uint64_t blocks) {
    std::lock_guard lock(mu_);
    if (!seeded_) {
        std::random_device rd;
        key_ = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
        offset_ = 0;
        seeded_ = true;
    }
    const Reservation r{static_cast<std::uint32_t>(key_), static_cast<std::uint32_t>(key_ >> 32),
                        offset_};
    offset_ += blocks;
    return r;
}

}  // namespace burn::backend

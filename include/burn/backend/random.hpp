// SPDX-License-Identifier: MIT OR Apache-2.0
// The generator state of the Philox4x32-10 stream that every kit backend reproduces (the stream
// is specified in backends/cpu/src/random.cpp): a 64-bit key (the seed) and a 64-bit offset
// counting the blocks handed out so far. Each backend owns one PhiloxState, so seeding one
// backend leaves the others' streams alone; the code is this one (src/backend/random.cpp).
#pragma once

#include <cstdint>
#include <mutex>

namespace burn::backend {

/// A backend's position in its Philox stream. Thread-safe: concurrent reservations get disjoint
/// runs of blocks.
class PhiloxState {
public:
    /// A run of consecutive blocks of the stream: blocks first_block, first_block + 1, ... of
    /// the key (k0 = low half, k1 = high half of the seed).
    struct Reservation {
        std::uint32_t k0 = 0, k1 = 0;
        std::uint64_t first_block = 0;
    };

    /// Restarts the stream: key = seed, offset = 0.
    void seed(std::uint64_t seed);
    /// Reserves the next `blocks` blocks. Without an earlier seed(), the first reservation seeds
    /// the stream from std::random_device (like Burn, which seeds from the clock when unseeded).
    Reservation reserve(std::uint64_t blocks);

private:
    std::mutex mu_;
    bool seeded_ = false;
    std::uint64_t key_ = 0;
    std::uint64_t offset_ = 0;
};

}  // namespace burn::backend

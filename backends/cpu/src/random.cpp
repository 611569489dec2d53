// SPDX-License-Identifier: MIT OR Apache-2.0
// Random numbers: a counter-based Philox4x32-10 stream, identical whatever the number of threads
// and meant to be reproduced by every backend.
//
// THE STREAM (the contract other backends reproduce)
//   Generator state: key = the 64-bit seed as two 32-bit words (k0 = low half, k1 = high half)
//   and a 64-bit block offset. `seed(s)` sets key = s and offset = 0. Without a call to seed(),
//   the first `random` seeds itself from std::random_device (like Burn, which seeds from the clock
//   when unseeded): unseeded runs differ from each other.
//   Block b is Philox4x32-10(counter = {lo32(b), hi32(b), 0, 0}, key = {k0, k1}), four 32-bit
//   words. A call that fills n elements reads a run of stream words: word j of the call is word
//   (j % 4) of block (offset + j / 4); the call then advances offset by ceil(n * W / 4) blocks.
//   Element i uses words [i*W, i*W + W) of the call, with W per dtype:
//     W = 1 for F32 and Bool     -> u = (w >> 8) * 2^-24                       (24 bits, [0, 1))
//     W = 2 for F64 and ints     -> x = (w0 << 21) | (w1 >> 11), u = x * 2^-53 (53 bits, [0, 1))
//   (w0 is the element's first word.) Normal samples come in pairs: elements 2k and 2k+1 use the
//   words of elements 2k (u1 = 1 - u, in (0, 1]) and 2k+1 (u2 = u); both pairs' words lie in one
//   Philox block. Box-Muller: r = sqrt(-2 ln u1), t = 2 pi u2, element 2k = mean + std * r cos t,
//   element 2k+1 = mean + std * r sin t (dropped when n is odd; its words are still consumed).
//
// VALUES PER DISTRIBUTION
//   Floats (F32, F64):
//     Default          u
//     Uniform(lo, hi)  lo + (hi - lo) * u, computed in f64 and rounded to the dtype; a value that
//                      rounds up to hi is replaced by the largest value below hi.
//     Bernoulli(p)     u < p ? 1 : 0
//     Normal(m, s)     as above; F32 evaluates r, cos, sin in f32, F64 in f64.
//   Ints (I64, I32, and the narrow int types), W = 2:
//     Default          0 or 1 with equal probability (the top bit of x): uniform on [0, 1) would
//                      always give 0, and Burn's full-range integers are of little use.
//     Uniform(lo, hi)  integers in [trunc(lo), trunc(hi)), exactly lo + floor(x * (hi - lo) / 2^53)
//                      in 128-bit integer arithmetic; needs trunc(lo) < trunc(hi).
//     Bernoulli(p)     u < p ? 1 : 0
//     Normal(m, s)     round(m + s * z) (round half away from zero), z from f64 Box-Muller.
//   Bool, W = 1: Default = top bit of w (0/1 with equal probability); Bernoulli(p) = u < p;
//     Uniform/Normal: the F32 value != 0.
// Transcendental functions differ between math libraries, so other backends match the Normal
// values to a few ulps; every other value is bit-exact.
#include "burn/backend/random.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

#include "internal.hpp"

namespace burn::cpu {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// ------------------------------------------------------------------ Philox4x32-10 (Salmon et al.)
constexpr u32 kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
constexpr u32 kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments

/// Writes blocks first .. first+count-1 of key (k0, k1) to out[0 .. 4*count), in stream order.
/// Blocks are computed kLanes at a time in structure-of-arrays form, so that each round is a
/// plain loop over lanes that the compiler vectorises (vpmuludq for the 32x32->64 products).
constexpr std::size_t kLanes = 32;
void philox_blocks(u64 first, std::size_t count, u32 k0, u32 k1, u32* __restrict out) {
    for (std::size_t base = 0; base < count; base += kLanes) {
        alignas(64) u32 c0[kLanes], c1[kLanes], c2[kLanes], c3[kLanes];
        for (std::size_t l = 0; l < kLanes; ++l) {
            const u64 b = first + base + l;
            c0[l] = static_cast<u32>(b);
            c1[l] = static_cast<u32>(b >> 32);
            c2[l] = 0;
            c3[l] = 0;
        }
        u32 key0 = k0, key1 = k1;
        for (int round = 0; round < 10; ++round) {
            for (std::size_t l = 0; l < kLanes; ++l) {
                const u64 p0 = static_cast<u64>(kM0) * c0[l];
                const u64 p1 = static_cast<u64>(kM1) * c2[l];
                const u32 n0 = static_cast<u32>(p1 >> 32) ^ c1[l] ^ key0;
                const u32 n2 = static_cast<u32>(p0 >> 32) ^ c3[l] ^ key1;
                c1[l] = static_cast<u32>(p1);
                c3[l] = static_cast<u32>(p0);
                c0[l] = n0;
                c2[l] = n2;
            }
            key0 += kW0;
            key1 += kW1;
        }
        const std::size_t n = std::min(kLanes, count - base);
        u32* o = out + 4 * base;
        for (std::size_t l = 0; l < n; ++l) {
            o[4 * l + 0] = c0[l];
            o[4 * l + 1] = c1[l];
            o[4 * l + 2] = c2[l];
            o[4 * l + 3] = c3[l];
        }
    }
}

// ------------------------------------------------------------------ generator state
/// The CPU backend's position in its stream (Vulkan keeps its own).
backend::PhiloxState& state() {
    static backend::PhiloxState s;
    return s;
}

// ------------------------------------------------------------------ words -> numbers
inline float u24(u32 w) { return static_cast<float>(w >> 8) * 0x1p-24f; }              // [0, 1)
inline float u24_open0(u32 w) { return static_cast<float>((w >> 8) + 1) * 0x1p-24f; }  // (0, 1]
inline u64 bits53(const u32* w) { return (static_cast<u64>(w[0]) << 21) | (w[1] >> 11); }
inline double u53(const u32* w) { return static_cast<double>(bits53(w)) * 0x1p-53; }
inline double u53_open0(const u32* w) { return static_cast<double>(bits53(w) + 1) * 0x1p-53; }

/// Blocks processed per Philox batch (on the stack: 4 KiB of words).
constexpr std::size_t kBatchBlocks = 256;

/// Runs `body(first_element, count, words)` over the n elements of a call, in parallel, where
/// `words` holds the stream words of elements first_element .. first_element+count-1 (W each).
/// Chunks always start on a block boundary, so a normal pair never straddles two chunks.
template <int W, class Body>
void generate(std::size_t n, Body&& body) {
    constexpr std::size_t per_block = 4 / W;  // elements per Philox block
    const u64 blocks = (n + per_block - 1) / per_block;
    const auto r = state().reserve(blocks);
    const std::size_t grain = std::max<std::size_t>(1, kParallelGrain / per_block);
    parallel_for(blocks, grain, [&](std::size_t b0, std::size_t b1) {
        alignas(64) u32 words[4 * kBatchBlocks];
        for (std::size_t b = b0; b < b1; b += kBatchBlocks) {
            const std::size_t cnt = std::min(kBatchBlocks, b1 - b);
            philox_blocks(r.first_block + b, cnt, r.k0, r.k1, words);
            const std::size_t e0 = b * per_block;
            const std::size_t e1 = std::min(n, (b + cnt) * per_block);
            body(e0, e1 - e0, static_cast<const u32*>(words));
        }
    });
}

/// Element-wise fill: out[e] = f(words of element e).
template <int W, class E, class F>
void fill_each(E* out, std::size_t n, F f) {
    generate<W>(n, [&](std::size_t e0, std::size_t cnt, const u32* w) {
        E* o = out + e0;
        for (std::size_t i = 0; i < cnt; ++i) o[i] = f(w + i * W);
    });
}

/// Pair fill for Box-Muller: g(words of element 2k, words of element 2k+1) -> {z0, z1}.
template <int W, class E, class G>
void fill_pairs(E* out, std::size_t n, G g) {
    generate<W>(n, [&](std::size_t e0, std::size_t cnt, const u32* w) {
        E* o = out + e0;
        std::size_t i = 0;
        for (; i + 1 < cnt; i += 2) {
            const auto [a, b] = g(w + i * W, w + (i + 1) * W);
            o[i] = a;
            o[i + 1] = b;
        }
        if (i < cnt) o[i] = g(w + i * W, w + (i + 1) * W).first;  // the words exist in the block
    });
}

template <class E>
void random_float(E* out, std::size_t n, const Distribution& d) {
    using K = Distribution::Kind;
    constexpr int W = std::is_same_v<E, float> ? 1 : 2;
    auto uniform = [](const u32* w) -> E {
        if constexpr (W == 1) return u24(w[0]);
        else return u53(w);
    };
    switch (d.kind) {
        case K::Default: fill_each<W>(out, n, uniform); return;
        case K::Uniform: {
            const double lo = d.a, range = d.b - d.a;
            const E hi = static_cast<E>(d.b);
            const E below_hi = std::nextafter(hi, static_cast<E>(lo));
            const bool guard = d.a < d.b;
            fill_each<W>(out, n, [=](const u32* w) -> E {
                const E v = static_cast<E>(lo + range * static_cast<double>(uniform(w)));
                return guard && v >= hi ? below_hi : v;
            });
            return;
        }
        case K::Bernoulli: {
            const double p = d.a;
            fill_each<W>(out, n, [=](const u32* w) -> E {
                return static_cast<double>(uniform(w)) < p ? E(1) : E(0);
            });
            return;
        }
        case K::Normal: {
            const double mean = d.a, sd = d.b;
            fill_pairs<W>(out, n, [=](const u32* wa, const u32* wb) -> std::pair<E, E> {
                E u1, u2;
                if constexpr (W == 1) {
                    u1 = u24_open0(wa[0]);
                    u2 = u24(wb[0]);
                } else {
                    u1 = u53_open0(wa);
                    u2 = u53(wb);
                }
                const E r = std::sqrt(E(-2) * std::log(u1));
                const E t = E(2 * std::numbers::pi) * u2;
                const E z0 = r * std::cos(t), z1 = r * std::sin(t);
                return {static_cast<E>(mean + sd * static_cast<double>(z0)),
                        static_cast<E>(mean + sd * static_cast<double>(z1))};
            });
            return;
        }
    }
}

template <class E>
void random_int(E* out, std::size_t n, const Distribution& d) {
    using K = Distribution::Kind;
    switch (d.kind) {
        case K::Default:
            fill_each<2>(out, n, [](const u32* w) -> E { return static_cast<E>(w[0] >> 31); });
            return;
        case K::Uniform: {
            const std::int64_t lo = trunc_to_int64(d.a), hi = trunc_to_int64(d.b);
            assert(lo < hi);  // Tensor::random checked the range
            const u64 range = static_cast<u64>(hi) - static_cast<u64>(lo);
            fill_each<2>(out, n, [=](const u32* w) -> E {
                const u64 off =
                    static_cast<u64>((static_cast<unsigned __int128>(bits53(w)) * range) >> 53);
                return static_cast<E>(static_cast<std::int64_t>(static_cast<u64>(lo) + off));
            });
            return;
        }
        case K::Bernoulli: {
            const double p = d.a;
            fill_each<2>(out, n, [=](const u32* w) -> E { return u53(w) < p ? E(1) : E(0); });
            return;
        }
        case K::Normal: {
            const double mean = d.a, sd = d.b;
            fill_pairs<2>(out, n, [=](const u32* wa, const u32* wb) -> std::pair<E, E> {
                const double r = std::sqrt(-2.0 * std::log(u53_open0(wa)));
                const double t = 2 * std::numbers::pi * u53(wb);
                return {static_cast<E>(trunc_to_int64(std::round(mean + sd * r * std::cos(t)))),
                        static_cast<E>(trunc_to_int64(std::round(mean + sd * r * std::sin(t))))};
            });
            return;
        }
    }
}

void random_bool(std::uint8_t* out, std::size_t n, const Distribution& d) {
    using K = Distribution::Kind;
    switch (d.kind) {
        case K::Default:
            fill_each<1>(out, n,
                         [](const u32* w) { return static_cast<std::uint8_t>(w[0] >> 31); });
            return;
        case K::Bernoulli: {
            const double p = d.a;
            fill_each<1>(out, n, [=](const u32* w) {
                return static_cast<std::uint8_t>(static_cast<double>(u24(w[0])) < p);
            });
            return;
        }
        case K::Uniform:
        case K::Normal: {
            // The F32 values of the same stream, then != 0.
            CpuTensor tmp = alloc(Shape{n}, DType::F32);
            random_float(tmp.data<float>(), n, d);
            const float* t = tmp.data<float>();
            parallel_for(n, kParallelGrain, [&](std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) out[i] = t[i] != 0.0f;
            });
            return;
        }
    }
}

}  // namespace

void Kernels::seed(std::uint64_t s) { state().seed(s); }

CpuTensor Kernels::random(const Shape& shape, const Distribution& dist, DType dtype,
                          const CpuDevice&) {
    CpuTensor out = alloc(shape, dtype);
    const std::size_t n = shape.num_elements();
    if (n == 0) return out;
    switch (dtype) {
        case DType::F32: random_float(out.data<float>(), n, dist); break;
        case DType::F64: random_float(out.data<double>(), n, dist); break;
        case DType::Bool: random_bool(out.data<std::uint8_t>(), n, dist); break;
        case DType::I64: random_int(out.data<std::int64_t>(), n, dist); break;
        case DType::I32: random_int(out.data<std::int32_t>(), n, dist); break;
        case DType::I16: random_int(out.data<std::int16_t>(), n, dist); break;
        case DType::I8: random_int(out.data<std::int8_t>(), n, dist); break;
        case DType::U8: random_int(out.data<std::uint8_t>(), n, dist); break;
        default:
            detail::fail("random: dtype ", dtype_name(dtype),
                         " is not supported by the cpu backend");
    }
    return out;
}

}  // namespace burn::cpu

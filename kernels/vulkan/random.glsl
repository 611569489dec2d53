// SPDX-License-Identifier: MIT OR Apache-2.0
// Random numbers from a Philox4x32-10 stream (the CPU backend's stream layout, random.cpp):
// invocation j computes block (offset + j) of key (k0, k1) and writes the elements that use its
// four words: 4 per block for f32 and bool (one word each), 2 for ints (two words each).
// Normal pairs (elements 2k, 2k + 1) lie in one block. Values are computed in f32 (not
// bit-identical to the CPU backend for ints; deterministic per seed).
// Included by random_<suffix>.comp, which define OUT_T and one of RANDOM_FLOAT, RANDOM_BOOL,
// RANDOM_INT (+ RANDOM_I64 for int64 output). Specialization constant 0: workgroup size (x).
// Binding 0: out. Push constants: see Push (kind: 0 Default, 1 Uniform, 2 Bernoulli, 3 Normal).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0) in;
#include "index.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { OUT_T out_[]; };
layout(push_constant) uniform Push {
    uint n;       // elements
    uint blocks;  // invocations
    uint k0, k1;  // key
    uint off_lo, off_hi;  // first block
    uint kind;
    float a;      // Uniform low, Bernoulli p, Normal mean
    float b;      // Uniform high, Normal std
    float below_hi;  // f32 Uniform: the largest float below high
    uint guard;      // f32 Uniform: low < high
    uint pad;
    uvec2 ilo;    // int Uniform: trunc(low)
    uvec2 irange; // int Uniform: trunc(high) - trunc(low)
} pc;

uvec4 philox(uvec4 c, uvec2 k) {
    for (int r = 0; r < 10; ++r) {
        uint hi0, lo0, hi1, lo1;
        umulExtended(0xD2511F53u, c.x, hi0, lo0);
        umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
        c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
        k += uvec2(0x9E3779B9u, 0xBB67AE85u);
    }
    return c;
}

float u24(uint w) { return float(w >> 8) * (1.0 / 16777216.0); }
float u24_open0(uint w) { return float((w >> 8) + 1u) * (1.0 / 16777216.0); }
const float kTwoPi = 6.28318530717958647692;

void store(uint e, OUT_T v) {
    if (e < pc.n) out_[e] = v;
}

#if defined(RANDOM_FLOAT) || defined(RANDOM_BOOL)
float float_value(uint w) {
    if (pc.kind == 1u) {
        const float v = pc.a + (pc.b - pc.a) * u24(w);
        return pc.guard != 0u && v >= pc.b ? pc.below_hi : v;
    }
    if (pc.kind == 2u) return u24(w) < pc.a ? 1.0 : 0.0;
    return u24(w);
}
#endif

void main() {
    const uint j = burn_flat_index();
    if (j >= pc.blocks) return;
    const uint lo = pc.off_lo + j;
    const uint hi = pc.off_hi + (lo < pc.off_lo ? 1u : 0u);
    const uvec4 w = philox(uvec4(lo, hi, 0u, 0u), uvec2(pc.k0, pc.k1));
#if defined(RANDOM_FLOAT) || defined(RANDOM_BOOL)
    const uint e = 4u * j;
    vec4 v;
    if (pc.kind == 3u) {
        const float r0 = sqrt(-2.0 * log(u24_open0(w.x))), t0 = kTwoPi * u24(w.y);
        const float r1 = sqrt(-2.0 * log(u24_open0(w.z))), t1 = kTwoPi * u24(w.w);
        v = vec4(r0 * cos(t0), r0 * sin(t0), r1 * cos(t1), r1 * sin(t1)) * pc.b + pc.a;
    } else {
        v = vec4(float_value(w.x), float_value(w.y), float_value(w.z), float_value(w.w));
    }
#if defined(RANDOM_BOOL)
    if (pc.kind == 0u) v = vec4(uvec4(w >> 31));
    store(e, uint(v.x != 0.0));
    store(e + 1u, uint(v.y != 0.0));
    store(e + 2u, uint(v.z != 0.0));
    store(e + 3u, uint(v.w != 0.0));
#else
    store(e, v.x);
    store(e + 1u, v.y);
    store(e + 2u, v.z);
    store(e + 3u, v.w);
#endif
#else  // RANDOM_INT: two words per element
    const uint e = 2u * j;
    int64_t v0, v1;
    if (pc.kind == 0u) {
        v0 = int64_t(w.x >> 31);
        v1 = int64_t(w.z >> 31);
    } else if (pc.kind == 1u) {
        // lo + floor(x * range / 2^53), x the 53 bits of the element's words (128-bit product).
        const uint64_t range = pack64(pc.irange);
        const uint64_t base = pack64(pc.ilo);
        uint64_t res[2];
        for (int k = 0; k < 2; ++k) {
            const uint wa = k == 0 ? w.x : w.z, wb = k == 0 ? w.y : w.w;
            const uint64_t x = (uint64_t(wa) << 21) | uint64_t(wb >> 11);
            const uint64_t m = 0xFFFFFFFFul;
            const uint64_t a0 = x & m, a1 = x >> 32, b0 = range & m, b1 = range >> 32;
            const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
            const uint64_t mid = (p00 >> 32) + (p01 & m) + (p10 & m);
            const uint64_t plo = (mid << 32) | (p00 & m);
            const uint64_t phi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
            res[k] = base + ((phi << 11) | (plo >> 53));
        }
        v0 = int64_t(res[0]);
        v1 = int64_t(res[1]);
    } else if (pc.kind == 2u) {
        v0 = u24(w.x) < pc.a ? 1l : 0l;
        v1 = u24(w.z) < pc.a ? 1l : 0l;
    } else {
        const float r = sqrt(-2.0 * log(u24_open0(w.x))), t = kTwoPi * u24(w.z);
        const vec2 z = vec2(r * cos(t), r * sin(t)) * pc.b + pc.a;
        const vec2 rz = clamp(sign(z) * floor(abs(z) + 0.5), -9.2233720e18, 9.223371e18);
        v0 = int64_t(rz.x);
        v1 = int64_t(rz.y);
    }
    store(e, OUT_T(v0));
    store(e + 1u, OUT_T(v1));
#endif
}

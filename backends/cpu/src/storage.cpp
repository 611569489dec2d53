// SPDX-License-Identifier: MIT OR Apache-2.0
// The buffer pool, dense allocation, data in/out, dtype casts and contiguous copies.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#ifdef __F16C__
#include <immintrin.h>
#endif

#include "burn/backend/widen.hpp"
#include "internal.hpp"

namespace burn::cpu {
namespace {

constexpr std::size_t kAlign = 64;
/// Freed blocks kept for reuse, at most this many bytes in total.
constexpr std::size_t kMaxCachedBytes = std::size_t{4} << 30;

/// Size classes: multiples of 64 bytes up to 4 KiB, then four classes per power of two, so a
/// request wastes at most 25%.
std::size_t size_class(std::size_t bytes) {
    if (bytes <= 4096) return (bytes + kAlign - 1) / kAlign * kAlign;
    std::size_t p = std::size_t{1} << (63 - __builtin_clzll(bytes - 1));  // largest pow2 < bytes
    const std::size_t step = p / 4;
    return (bytes + step - 1) / step * step;
}

class Pool {
public:
    std::byte* take(std::size_t cls) {
        {
            std::lock_guard lock(mu_);
            stats_.live_bytes += cls;
            stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, stats_.live_bytes);
            auto it = free_.find(cls);
            if (it != free_.end() && !it->second.empty()) {
                std::byte* p = it->second.back();
                it->second.pop_back();
                stats_.cached_bytes -= cls;
                ++stats_.reused;
                return p;
            }
            ++stats_.system_allocations;
        }
        void* p = std::aligned_alloc(kAlign, std::max(cls, kAlign));
        if (!p) {
            std::lock_guard lock(mu_);
            stats_.live_bytes -= cls;
            detail::fail("cpu backend: out of memory allocating ", cls, " bytes");
        }
        return static_cast<std::byte*>(p);
    }
    void give(std::byte* p, std::size_t cls) {
        {
            std::lock_guard lock(mu_);
            stats_.live_bytes -= cls;
            if (stats_.cached_bytes + cls <= kMaxCachedBytes) {
                free_[cls].push_back(p);
                stats_.cached_bytes += cls;
                return;
            }
        }
        std::free(p);
    }
    PoolStats stats() {
        std::lock_guard lock(mu_);
        return stats_;
    }
    void reset_peak() {
        std::lock_guard lock(mu_);
        stats_.peak_live_bytes = stats_.live_bytes;
    }
    void release() {
        std::lock_guard lock(mu_);
        for (auto& [cls, list] : free_)
            for (auto* p : list) std::free(p);
        free_.clear();
        stats_.cached_bytes = 0;
    }
    ~Pool() { release(); }

private:
    std::mutex mu_;
    std::unordered_map<std::size_t, std::vector<std::byte*>> free_;
    PoolStats stats_;
};

Pool& pool() {
    static Pool* p = new Pool();  // never destroyed: buffers may outlive static destructors
    return *p;
}

}  // namespace

std::shared_ptr<Buffer> Buffer::allocate(std::size_t bytes) {
    const std::size_t cls = size_class(std::max<std::size_t>(bytes, 1));
    return std::shared_ptr<Buffer>(new Buffer(pool().take(cls), cls));
}
Buffer::~Buffer() { pool().give(ptr_, capacity_); }

PoolStats pool_stats() { return pool().stats(); }
void pool_release_cached() { pool().release(); }
void pool_reset_peak() { pool().reset_peak(); }

CpuTensor alloc(const Shape& shape, DType dtype) {
    CpuTensor t;
    t.buffer = Buffer::allocate(shape.num_elements() * dtype_size(dtype));
    t.shape = shape;
    t.strides = contiguous_strides(shape);
    t.dtype = dtype;
    return t;
}

CpuTensor Kernels::empty(const Shape& shape, DType dtype, const CpuDevice&) {
    return alloc(shape, dtype);
}

CpuTensor Kernels::full(const Shape& shape, ScalarArg value, DType dtype, const CpuDevice&) {
    CpuTensor t = alloc(shape, dtype);
    if (is_half(dtype)) {  // the value rounded once, as f32 then to the half type
        const auto v = static_cast<float>(value.f);
        const std::uint16_t bits = dtype == DType::F16 ? f16(v).bits : bf16(v).bits;
        auto* p = t.data<std::uint16_t>();
        parallel_for(shape.num_elements(), kParallelGrain,
                     [&](std::size_t b, std::size_t e) { std::fill(p + b, p + e, bits); });
        return t;
    }
    dispatch(dtype, [&](auto e) {
        using E = decltype(e);
        E v;
        if (dtype == DType::Bool) v = static_cast<E>(value.f != 0.0 || value.i != 0);
        else if constexpr (std::is_floating_point_v<E>) v = static_cast<E>(value.f);
        else v = static_cast<E>(value.i);
        E* p = t.data<E>();
        parallel_for(shape.num_elements(), kParallelGrain,
                     [&](std::size_t b, std::size_t e2) { std::fill(p + b, p + e2, v); });
    });
    return t;
}

namespace {
template <class E>
inline constexpr bool kHalf = std::is_same_v<E, f16> || std::is_same_v<E, bf16>;

/// One value converted between stored types: to 0/1 for a bool target, halves through f32
/// (round to nearest even, as the f16 / bf16 constructors).
template <class To, class From>
inline To elem_cast(From v, bool to_bool) {
    if constexpr (kHalf<From>) {
        return elem_cast<To>(static_cast<float>(v), to_bool);
    } else if constexpr (kHalf<To>) {
        return To(static_cast<float>(v));
    } else {
        return to_bool ? static_cast<To>(v != From(0)) : static_cast<To>(v);
    }
}

/// dispatch() plus the half types, for the kernels that only move and convert values.
template <class F>
decltype(auto) dispatch_storage(DType d, F&& f) {
    if (d == DType::F16) return f(f16{});
    if (d == DType::BF16) return f(bf16{});
    return dispatch(d, std::forward<F>(f));
}

/// Dense f32 <-> half conversions (F16C where the CPU has it; bf16 by integer rounding).
void f32_to_half(const float* s, std::uint16_t* d, std::size_t n, DType half) {
    std::size_t i = 0;
    if (half == DType::F16) {
#ifdef __F16C__
        for (; i + 8 <= n; i += 8)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                             _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
#endif
        for (; i < n; ++i) d[i] = f16(s[i]).bits;
        return;
    }
    for (; i < n; ++i) {
        std::uint32_t u;
        std::memcpy(&u, s + i, 4);
        const std::uint32_t r = u + 0x7fffu + ((u >> 16) & 1u);
        d[i] = (u & 0x7fffffffu) > 0x7f800000u ? std::uint16_t((u >> 16) | 0x40u)
                                               : std::uint16_t(r >> 16);
    }
}
void half_to_f32(const std::uint16_t* s, float* d, std::size_t n, DType half) {
    std::size_t i = 0;
    if (half == DType::F16) {
#ifdef __F16C__
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(
                d + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
#endif
        for (; i < n; ++i) d[i] = f16::to_float(s[i]);
        return;
    }
    for (; i < n; ++i) {
        const std::uint32_t u = std::uint32_t(s[i]) << 16;
        std::memcpy(d + i, &u, 4);
    }
}

/// Converts n dense values of type From into To, with bool targets normalised to 0/1.
template <class To, class From>
void convert_dense(const From* src, To* dst, std::size_t n, bool to_bool) {
    parallel_for(n, kParallelGrain, [&](std::size_t b, std::size_t e) {
        if constexpr (std::is_same_v<To, From>) {
            if (!to_bool) {
                std::memcpy(dst + b, src + b, (e - b) * sizeof(To));
                return;
            }
        }
        if constexpr (std::is_same_v<From, float> && kHalf<To>) {
            f32_to_half(src + b, reinterpret_cast<std::uint16_t*>(dst + b), e - b,
                        std::is_same_v<To, f16> ? DType::F16 : DType::BF16);
        } else if constexpr (kHalf<From> && std::is_same_v<To, float>) {
            half_to_f32(reinterpret_cast<const std::uint16_t*>(src + b), dst + b, e - b,
                        std::is_same_v<From, f16> ? DType::F16 : DType::BF16);
        } else {
            for (std::size_t i = b; i < e; ++i) dst[i] = elem_cast<To>(src[i], to_bool);
        }
    });
}
/// Side of the square tiles of a transposing copy (32 x 32 f32 = 4 KiB read, 4 KiB written).
constexpr std::size_t kTile = 32;

/// Copies a view whose innermost dim is strided in memory while another dim `p` is contiguous (a
/// transposed or permuted view) in kTile x kTile tiles over dims p and the innermost one, so that
/// the reads and the writes both use whole cache lines (a row-by-row copy touches one cache line
/// and one page per element read). Tiles are spread over threads. Returns false, having copied
/// nothing, for any other layout.
template <class Dt, class S>
bool copy_tiled(const CpuTensor& src, Dt* out, bool to_bool) {
    const std::size_t rank = src.shape.rank(), last = rank - 1;
    if (rank < 2 || src.shape[last] < kTile || src.strides[last] == 1 || src.strides[last] == 0)
        return false;
    std::size_t p = rank;
    for (std::size_t d = 0; d < last; ++d)
        if (src.strides[d] == 1 && src.shape[d] >= kTile) p = d;
    if (p == rank) return false;
    const Strides dst_strides = contiguous_strides(src.shape);
    // The other dims, iterated outside the tiles.
    std::array<std::size_t, Shape::max_rank> outer_dims{};
    std::size_t n_outer = 0, outer = 1;
    for (std::size_t d = 0; d < last; ++d)
        if (d != p && src.shape[d] > 1) {
            outer_dims[n_outer++] = d;
            outer *= src.shape[d];
        }
    const std::size_t rows = src.shape[p], cols = src.shape[last];
    const std::int64_t col_stride = src.strides[last], row_out = dst_strides[p];
    const std::size_t row_tiles = (rows + kTile - 1) / kTile;
    const S* in = reinterpret_cast<const S*>(src.buffer->data());
    parallel_for(outer * row_tiles, 1, [&](std::size_t b, std::size_t e) {
        for (std::size_t t = b; t < e; ++t) {
            std::size_t o = t / row_tiles;
            std::int64_t s_off = src.offset, d_off = 0;
            for (std::size_t k = n_outer; k-- > 0;) {
                const std::size_t d = outer_dims[k];
                const auto i = static_cast<std::int64_t>(o % src.shape[d]);
                o /= src.shape[d];
                s_off += i * src.strides[d];
                d_off += i * dst_strides[d];
            }
            const std::size_t r0 = t % row_tiles * kTile, r1 = std::min(rows, r0 + kTile);
            for (std::size_t c0 = 0; c0 < cols; c0 += kTile) {
                const std::size_t c1 = std::min(cols, c0 + kTile);
                for (std::size_t c = c0; c < c1; ++c) {
                    const S* a = in + s_off + static_cast<std::int64_t>(c) * col_stride;
                    Dt* w = out + d_off + static_cast<std::int64_t>(c);
                    for (std::size_t r = r0; r < r1; ++r) {
                        w[static_cast<std::int64_t>(r) * row_out] = elem_cast<Dt>(a[r], to_bool);
                    }
                }
            }
        }
    });
    return true;
}
}  // namespace

void copy_into(const CpuTensor& src, void* dst, DType dst_dtype) {
    const bool to_bool = dst_dtype == DType::Bool && src.dtype != DType::Bool;
    dispatch_storage(src.dtype, [&](auto s) {
        using S = decltype(s);
        dispatch_storage(dst_dtype, [&](auto d) {
            using Dt = decltype(d);
            Dt* out = static_cast<Dt*>(dst);
            if (src.is_contiguous()) {
                convert_dense<Dt, S>(src.data<S>(), out, src.num_elements(), to_bool);
                return;
            }
            if (copy_tiled<Dt, S>(src, out, to_bool)) return;
            const S* in = reinterpret_cast<const S*>(src.buffer->data());
            StridedLoop<2> loop(src.shape, {src.strides, contiguous_strides(src.shape)});
            loop.run({src.offset, 0}, [&](const auto& off, std::size_t len, const auto& inner) {
                const S* a = in + off[0];
                Dt* o = out + off[1];
                for (std::size_t i = 0; i < len; ++i)
                    o[i] = elem_cast<Dt>(a[static_cast<std::int64_t>(i) * inner[0]], to_bool);
            });
        });
    });
}

CpuTensor Kernels::contiguous(CpuTensor t) {
    if (t.is_contiguous()) return t;
    CpuTensor out = alloc(t.shape, t.dtype);
    copy_into(t, out.buffer->data(), t.dtype);
    return out;
}

CpuTensor Kernels::cast(CpuTensor t, DType dtype) {
    if (t.dtype == dtype) return t;
    CpuTensor out = alloc(t.shape, dtype);
    copy_into(t, out.buffer->data(), dtype);
    return out;
}

CpuTensor Kernels::from_data(const TensorData& data, DType target, const CpuDevice& device) {
    // Storage types (f16 and bf16 included) are converted directly; qint8 is dequantized.
    if (data.dtype == DType::QInt8) return from_data(data.convert(DType::F32), target, device);
    CpuTensor out = alloc(data.shape, target);
    if (data.num_elements() == 0) return out;
    const DType sd = data.dtype;
    const bool to_bool = target == DType::Bool && sd != DType::Bool;
    dispatch_storage(sd, [&](auto s) {
        using S = decltype(s);
        dispatch_storage(target, [&](auto d) {
            using Dt = decltype(d);
            convert_dense<Dt, S>(reinterpret_cast<const S*>(data.bytes().data()), out.data<Dt>(),
                                 data.num_elements(), to_bool);
        });
    });
    return out;
}

TensorData Kernels::into_data(const CpuTensor& t) {
    std::vector<std::uint8_t> bytes(t.num_elements() * dtype_size(t.dtype));
    if (!bytes.empty()) copy_into(t, bytes.data(), t.dtype);
    return TensorData(std::move(bytes), t.shape, t.dtype);
}

}  // namespace burn::cpu

// SPDX-License-Identifier: MIT OR Apache-2.0
// The caching allocator (runtime.hpp): BlockPool's segments, blocks, best fit, splitting and
// merging, and the device Allocator over cudaMalloc / cudaFree with its statistics.
#include <cuda_runtime_api.h>

#include <iterator>

#include "runtime.hpp"

namespace burn::cuda {

// ---- BlockPool ----

BlockPool::~BlockPool() {
    // The bookkeeping only: the device memory of the segments goes back with the process (the
    // contexts live until it ends).
    for (auto* set : {&free_small_, &free_large_})
        for (Block* b : *set) delete b;
    for (auto& [ptr, b] : used_) delete b;
}

void* BlockPool::allocate(std::size_t bytes, std::size_t* block_bytes) {
    const std::size_t size = round(bytes);
    const bool small = size <= kSmall;
    auto& free = pool(small);
    Block key;
    key.size = size;
    key.ptr = nullptr;
    Block* block = nullptr;
    if (auto it = free.lower_bound(&key); it != free.end()) {
        block = *it;
        free.erase(it);
    } else {
        const std::size_t seg = small ? kSmallSegment
                                : size <= kMidLimit
                                    ? kMidSegment
                                    : (size + kSmallSegment - 1) / kSmallSegment * kSmallSegment;
        void* p = grow_(seg);
        if (!p) return nullptr;
        block = new Block{static_cast<char*>(p), seg, true, small, nullptr, nullptr};
        reserved_ += seg;
        ++segments_;
    }
    // Split off what is left when it is worth keeping: any block in the small pool, more than
    // kSmall bytes in the large one (smaller remainders stay part of the block).
    const std::size_t rest = block->size - size;
    if (small ? rest >= kRound : rest > kSmall) {
        auto* tail = new Block{block->ptr + size, rest, true, small, block, block->next};
        if (block->next) block->next->prev = tail;
        block->next = tail;
        block->size = size;
        free.insert(tail);
    }
    block->free = false;
    used_.emplace(block->ptr, block);
    allocated_ += block->size;
    *block_bytes = block->size;
    return block->ptr;
}

void BlockPool::release(void* ptr) noexcept {
    const auto it = used_.find(ptr);
    if (it == used_.end()) return;  // not ours: nothing to give back
    Block* block = it->second;
    used_.erase(it);
    allocated_ -= block->size;
    block->free = true;
    auto& free = pool(block->small);
    // Merge with free neighbours of the same segment.
    if (Block* prev = block->prev; prev && prev->free) {
        free.erase(prev);
        prev->size += block->size;
        prev->next = block->next;
        if (block->next) block->next->prev = prev;
        delete block;
        block = prev;
    }
    if (Block* next = block->next; next && next->free) {
        free.erase(next);
        block->size += next->size;
        block->next = next->next;
        if (next->next) next->next->prev = block;
        delete next;
    }
    free.insert(block);
}

std::size_t BlockPool::release_cached() {
    std::size_t freed = 0;
    for (auto* set : {&free_small_, &free_large_}) {
        for (auto it = set->begin(); it != set->end();) {
            Block* b = *it;
            if (b->prev || b->next) {  // part of a segment that has blocks in use
                ++it;
                continue;
            }
            shrink_(b->ptr);
            freed += b->size;
            reserved_ -= b->size;
            --segments_;
            delete b;
            it = set->erase(it);
        }
    }
    return freed;
}

// ---- Allocator ----

Allocator::Allocator(std::size_t device)
    : device_(device),
      pool_(
          [this](std::size_t bytes) -> void* {
              void* p = nullptr;
              if (cudaMalloc(&p, bytes) != cudaSuccess) {
                  (void)cudaGetLastError();
                  return nullptr;
              }
              ++stats_.device_allocations;
              return p;
          },
          [this](void* p) {
              (void)cudaFree(p);
              ++stats_.device_frees;
          }) {}

Allocator::~Allocator() = default;  // contexts live until the process ends (see context())

void* Allocator::allocate(std::size_t bytes, std::size_t* block_bytes) {
    std::lock_guard lock(mutex_);
    void* p = pool_.allocate(bytes, block_bytes);
    if (!p) {
        // Out of memory: wait for the device, give the cached segments back and try once more.
        check(cudaDeviceSynchronize(), "alloc (synchronising before freeing the cache)");
        pool_.release_cached();
        p = pool_.allocate(bytes, block_bytes);
    }
    if (!p) {
        ::burn::detail::fail("Cuda alloc: out of device memory allocating ",
                             BlockPool::round(bytes), " bytes on ", CudaDevice{device_}, " (",
                             pool_.allocated(), " bytes in use, ", pool_.reserved(), " reserved)");
    }
    stats_.allocated = pool_.allocated();
    stats_.reserved = pool_.reserved();
    stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
    stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
    return p;
}

void Allocator::release(void* ptr, std::size_t) noexcept {
    std::lock_guard lock(mutex_);
    pool_.release(ptr);
    stats_.allocated = pool_.allocated();
}

void Allocator::empty_cache() {
    std::lock_guard lock(mutex_);
    pool_.release_cached();
    stats_.reserved = pool_.reserved();
}

CudaMemoryStats Allocator::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

void Allocator::reset_peaks() {
    std::lock_guard lock(mutex_);
    stats_.peak_allocated = stats_.allocated;
    stats_.peak_reserved = stats_.reserved;
}

}  // namespace burn::cuda

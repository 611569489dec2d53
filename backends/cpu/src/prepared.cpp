// SPDX-License-Identifier: MIT OR Apache-2.0
// Values the kernels derive from a weight tensor and keep between calls (internal.hpp:
// prepared()). An entry names the weight by its buffer (a weak reference: the cache never keeps a
// buffer alive, so it never stops a kernel from writing into one in place), its view (offset,
// shape, dtype) and the buffer's write count when the values were derived; a lookup that finds a
// different count derives them again. Kernels only write into a buffer through claim_in_place,
// which counts the write.
#include <algorithm>
#include <mutex>
#include <vector>

#include "internal.hpp"

namespace burn::cpu {
namespace {

struct Entry {
    std::weak_ptr<Buffer> buffer;
    std::int64_t offset = 0;
    Shape shape;
    DType dtype = DType::F32;
    PreparedKind kind{};
    std::uint64_t writes = 0;
    std::shared_ptr<const std::byte[]> data;  // null until the second call finds it unchanged
    std::size_t bytes = 0;
    std::uint64_t last_use = 0;

    bool names(const CpuTensor& w, PreparedKind k) const {
        // The same buffer (owner-based: no lock of the weak reference).
        return !buffer.owner_before(w.buffer) && !w.buffer.owner_before(buffer) &&
               offset == w.offset && shape == w.shape && dtype == w.dtype && kind == k;
    }
};

struct Cache {
    std::mutex mu;
    std::vector<Entry> entries;
    std::size_t bytes = 0;
    std::uint64_t clock = 0;

    /// Drops the entries of buffers that no longer exist (their address may be reused).
    void drop_expired() {
        std::erase_if(entries, [&](const Entry& e) {
            if (!e.buffer.expired()) return false;
            bytes -= e.data ? e.bytes : 0;
            return true;
        });
    }

    Entry* find(const CpuTensor& w, PreparedKind kind) {
        auto it = std::find_if(entries.begin(), entries.end(),
                               [&](const Entry& e) { return e.names(w, kind); });
        return it == entries.end() ? nullptr : &*it;
    }

    /// Frees kept values, least recently used first, until `more` bytes fit.
    void make_room(std::size_t more) {
        while (bytes + more > kPreparedBytes) {
            Entry* lru = nullptr;
            for (Entry& e : entries)
                if (e.data && (!lru || e.last_use < lru->last_use)) lru = &e;
            if (!lru) return;
            bytes -= lru->bytes;
            lru->data.reset();
        }
    }
};

Cache& cache() {
    static Cache* c = new Cache();  // never destroyed: kernels may run during static destruction
    return *c;
}

}  // namespace

std::shared_ptr<const std::byte[]> prepared(const CpuTensor& w, PreparedKind kind,
                                            std::size_t bytes,
                                            const std::function<void(std::byte*)>& make) {
    Cache& c = cache();
    const std::uint64_t writes = w.buffer->writes();
    bool keep = false;
    {
        std::lock_guard lock(c.mu);
        c.drop_expired();
        Entry* it = c.find(w, kind);
        if (!it) {
            Entry e;
            e.buffer = w.buffer;
            e.offset = w.offset;
            e.shape = w.shape;
            e.dtype = w.dtype;
            e.kind = kind;
            e.writes = writes;
            e.last_use = ++c.clock;
            c.entries.push_back(std::move(e));
        } else if (it->writes != writes) {  // written since: seen once with these values
            if (it->data) c.bytes -= it->bytes;
            it->data.reset();
            it->writes = writes;
            it->last_use = ++c.clock;
        } else if (it->data) {
            it->last_use = ++c.clock;
            return it->data;
        } else {
            keep = bytes <= kPreparedBytes;
        }
    }
    // A block of the buffer pool (a fresh allocation of this size would be a new mapping, page
    // faults included, on every call of a training step), owned through the aliasing pointer.
    std::shared_ptr<Buffer> block = Buffer::allocate(bytes);
    std::shared_ptr<const std::byte[]> data(block, block->data());
    make(block->data());
    if (!keep) return data;
    std::lock_guard lock(c.mu);
    Entry* it = c.find(w, kind);
    // Kept only if nothing wrote into the weights meanwhile and no other call kept them first.
    if (it && it->writes == writes && w.buffer->writes() == writes && !it->data) {
        c.make_room(bytes);
        it->data = data;
        it->bytes = bytes;
        it->last_use = ++c.clock;
        c.bytes += bytes;
    }
    return data;
}

PreparedStats prepared_stats() {
    Cache& c = cache();
    std::lock_guard lock(c.mu);
    c.drop_expired();
    PreparedStats s;
    for (const Entry& e : c.entries) s.kept += e.data ? 1 : 0;
    s.bytes = c.bytes;
    return s;
}

void release_prepared() {
    Cache& c = cache();
    std::lock_guard lock(c.mu);
    c.entries.clear();
    c.bytes = 0;
}

}  // namespace burn::cpu

// SPDX-License-Identifier: MIT OR Apache-2.0
// The memory pool: large blocks sub-allocated by size class; staging pools are host-visible.
#include <algorithm>
#include <bit>

#include "runtime.hpp"

namespace burn::vk {

namespace {

std::uint32_t find_memory_type(const VkPhysicalDeviceMemoryProperties& mem, std::uint32_t bits,
                               VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
    int best = -1;
    for (std::uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
        if (!(bits & (1u << i))) continue;
        const auto flags = mem.memoryTypes[i].propertyFlags;
        if ((flags & required) != required) continue;
        if ((flags & preferred) == preferred) return i;
        if (best < 0) best = static_cast<int>(i);
    }
    return best < 0 ? ~0u : static_cast<std::uint32_t>(best);
}

VkDeviceSize round_up(VkDeviceSize x, VkDeviceSize a) { return (x + a - 1) / a * a; }

}  // namespace

Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        reset();
        pool_ = std::move(o.pool_);
        buffer_ = o.buffer_;
        offset_ = o.offset_;
        size_ = o.size_;
        capacity_ = o.capacity_;
        block_ = o.block_;
        mapped_ = o.mapped_;
        o.buffer_ = VK_NULL_HANDLE;
        o.size_ = o.capacity_ = 0;
        o.offset_ = 0;
        o.mapped_ = nullptr;
    }
    return *this;
}

void Buffer::reset() noexcept {
    if (pool_) pool_->release(block_, offset_, capacity_);
    pool_.reset();
    buffer_ = VK_NULL_HANDLE;
    size_ = capacity_ = 0;
    offset_ = 0;
    mapped_ = nullptr;
}

MemoryPool::MemoryPool(std::shared_ptr<DeviceHandle> device, Kind kind, VkDeviceSize block_size)
    : device_(std::move(device)), kind_(kind), block_size_(block_size) {
    const auto& f = device_->physical->info.features;
    alignment_ = std::max<VkDeviceSize>(64, f.min_storage_buffer_offset_alignment);
    alignment_ = std::bit_ceil(alignment_);
    // The memory type is chosen from a probe buffer's requirements (same usage for every block).
    VkBufferCreateInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = 256;
    bi.usage = kind_ == Kind::Device ? (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT)
                                     : (VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer probe = VK_NULL_HANDLE;
    check(vkCreateBuffer(device_->device, &bi, nullptr, &probe), "vkCreateBuffer");
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device_->device, probe, &req);
    vkDestroyBuffer(device_->device, probe, nullptr);
    alignment_ = std::max<VkDeviceSize>(alignment_, std::bit_ceil(req.alignment));
    if (kind_ == Kind::Device) {
        memory_type_ = find_memory_type(device_->memory, req.memoryTypeBits,
                                        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
        if (memory_type_ == ~0u)
            memory_type_ = find_memory_type(device_->memory, req.memoryTypeBits, 0, 0);
    } else {
        memory_type_ = find_memory_type(
            device_->memory, req.memoryTypeBits,
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
            VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    }
    BURN_CHECK(memory_type_ != ~0u, "burn::Vulkan: device '", device_->physical->info.name,
               "' has no suitable memory type for ",
               kind_ == Kind::Device ? "device buffers" : "host-visible staging buffers");
}

MemoryPool::~MemoryPool() {
    if (vulkan_exiting()) return;  // see vulkan_exiting(): the driver may be gone
    for (auto& b : blocks_) destroy_block(b);
}

VkDeviceSize MemoryPool::size_class(VkDeviceSize bytes) const {
    if (bytes <= 256) return round_up(256, alignment_);
    // 4 classes per power of two: 2^k * {1, 1.25, 1.5, 1.75}.
    const VkDeviceSize p = std::bit_floor(bytes);
    const VkDeviceSize step = p / 4;
    return round_up(round_up(bytes, step), alignment_);
}

void MemoryPool::destroy_block(Block& b) noexcept {
    if (b.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device_->device, b.buffer, nullptr);
    if (b.memory != VK_NULL_HANDLE) {
        if (b.mapped) vkUnmapMemory(device_->device, b.memory);
        vkFreeMemory(device_->device, b.memory, nullptr);
        stats_.reserved_bytes -= b.size;
        --stats_.blocks;
    }
    b = Block{};
}

std::uint32_t MemoryPool::create_block(VkDeviceSize size, bool dedicated) {
    Block b;
    b.size = size;
    b.dedicated = dedicated;
    VkBufferCreateInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = size;
    bi.usage = kind_ == Kind::Device ? (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT)
                                     : (VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(device_->device, &bi, nullptr, &b.buffer), "vkCreateBuffer");
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device_->device, b.buffer, &req);
    VkMemoryAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memory_type_;
    VkResult r = vkAllocateMemory(device_->device, &ai, nullptr, &b.memory);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(device_->device, b.buffer, nullptr);
        throw_result("vkAllocateMemory", r);
    }
    r = vkBindBufferMemory(device_->device, b.buffer, b.memory, 0);
    if (r == VK_SUCCESS && kind_ == Kind::Staging) {
        void* p = nullptr;
        r = vkMapMemory(device_->device, b.memory, 0, VK_WHOLE_SIZE, 0, &p);
        b.mapped = static_cast<std::byte*>(p);
    }
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(device_->device, b.buffer, nullptr);
        vkFreeMemory(device_->device, b.memory, nullptr);
        throw_result(kind_ == Kind::Staging ? "vkBindBufferMemory/vkMapMemory"
                                            : "vkBindBufferMemory",
                     r);
    }
    b.size = size;
    stats_.reserved_bytes += size;
    ++stats_.blocks;
    ++stats_.device_allocations;
    // Reuse a hole left by a freed dedicated block.
    for (std::uint32_t i = 0; i < blocks_.size(); ++i) {
        if (blocks_[i].buffer == VK_NULL_HANDLE) {
            blocks_[i] = b;
            return i;
        }
    }
    blocks_.push_back(b);
    return static_cast<std::uint32_t>(blocks_.size() - 1);
}

Buffer MemoryPool::allocate(std::size_t bytes) {
    Buffer out;
    if (bytes == 0) return out;
    const VkDeviceSize cls = size_class(bytes);
    std::lock_guard lock(mutex_);
    Range range{};
    bool found = false;
    if (auto it = free_.find(cls); it != free_.end() && !it->second.empty()) {
        range = it->second.back();
        it->second.pop_back();
        stats_.cached_bytes -= cls;
        ++stats_.reused;
        found = true;
    }
    if (!found && cls > block_size_ / 4) {
        range = {create_block(cls, true), 0};
        found = true;
    }
    if (!found) {
        for (std::uint32_t i = 0; i < blocks_.size() && !found; ++i) {
            Block& b = blocks_[i];
            if (b.buffer == VK_NULL_HANDLE || b.dedicated || b.size - b.used < cls) continue;
            range = {i, b.used};
            b.used += cls;
            found = true;
        }
    }
    if (!found) {
        const std::uint32_t i = create_block(block_size_, false);
        range = {i, 0};
        blocks_[i].used = cls;
    }
    ++stats_.allocations;
    stats_.in_use_bytes += cls;
    const Block& b = blocks_[range.block];
    out.pool_ = shared_from_this();
    out.buffer_ = b.buffer;
    out.offset_ = range.offset;
    out.size_ = bytes;
    out.capacity_ = cls;
    out.block_ = range.block;
    out.mapped_ = b.mapped ? b.mapped + range.offset : nullptr;
    return out;
}

void MemoryPool::release(std::uint32_t block, VkDeviceSize offset, VkDeviceSize capacity) noexcept {
    std::lock_guard lock(mutex_);
    try {
        free_[capacity].push_back({block, offset});
    } catch (...) {  // out of host memory: the range is lost, not corrupted
    }
    stats_.in_use_bytes -= capacity;
    stats_.cached_bytes += capacity;
}

void MemoryPool::release_cached() {
    std::lock_guard lock(mutex_);
    for (auto& [cls, ranges] : free_) {
        std::erase_if(ranges, [&](const Range& r) {
            Block& b = blocks_[r.block];
            if (!b.dedicated) return false;
            stats_.cached_bytes -= cls;
            destroy_block(b);
            return true;
        });
    }
}

PoolStats MemoryPool::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

}  // namespace burn::vk

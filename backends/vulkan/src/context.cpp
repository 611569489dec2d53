// SPDX-License-Identifier: MIT OR Apache-2.0
// Per-device Context: logical device, pools, pipeline cache, batched command recording.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "runtime.hpp"

namespace burn::vk {

namespace {

std::shared_ptr<DeviceHandle> create_device(std::size_t index) {
    auto instance = Instance::get();
    const PhysicalDevice& pd = instance->require(index);
    auto h = std::make_shared<DeviceHandle>();
    h->instance = instance;
    h->physical = &pd;
    vkGetPhysicalDeviceMemoryProperties(pd.handle, &h->memory);

    const auto& f = pd.info.features;
    VkPhysicalDeviceVulkan11Features f11{};
    f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    f11.storageBuffer16BitAccess = f.storage_buffer_16bit;
    VkPhysicalDeviceVulkan12Features f12{};
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f12.shaderFloat16 = f.shader_float16;
    f12.shaderInt8 = f.shader_int8;
    f12.storageBuffer8BitAccess = f.storage_buffer_8bit;
    f11.pNext = &f12;
    VkPhysicalDeviceFeatures2 feats{};
    feats.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    feats.pNext = &f11;
    feats.features.shaderInt64 = f.shader_int64;
    feats.features.shaderFloat64 = f.shader_float64;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{};
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = pd.compute_queue_family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo di{};
    di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    di.pNext = &feats;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    check(vkCreateDevice(pd.handle, &di, nullptr, &h->device), "vkCreateDevice");
    vkGetDeviceQueue(h->device, pd.compute_queue_family, 0, &h->queue);
    return h;
}

}  // namespace

namespace {
std::mutex& registry_mutex() {
    static std::mutex m;
    return m;
}
std::map<std::size_t, std::shared_ptr<Context>>& registry() {
    static std::map<std::size_t, std::shared_ptr<Context>> r;
    return r;
}
/// At exit: discard every context's unsubmitted work (nobody is left to read it), wait for what
/// was submitted, and release the contexts, before the driver's own static state goes.
///
/// Ordering matters with lavapipe: it JIT-compiles a pipeline with LLVM on its queue thread the
/// first time a batch runs it, and LLVM creates some of its static objects lazily, during those
/// compilations; exit destroys them before any handler registered earlier. So (1) no new work is
/// submitted here (it could need a compilation after LLVM's statics are gone), and (2) the
/// handler is registered again after every wait that completed batches with new pipelines
/// (note_pipelines_waited), so that its last registration runs before whatever those
/// compilations registered. Only the first call does anything.
std::atomic<bool> g_released{false};
void release_contexts_at_exit() {
    if (g_released.exchange(true)) return;
    {
        std::lock_guard lock(registry_mutex());
        for (auto& [index, ctx] : registry()) ctx->abandon_pending();
        registry().clear();
    }
    // The instance too: its static holder would otherwise be destroyed after the driver's
    // teardown (it was made before the driver was loaded). Anything still alive after this
    // (tensors in static storage) leaks its Vulkan objects instead of calling into the driver.
    Instance::release();
    mark_vulkan_exiting();
}
std::mutex& hook_mutex() {
    static std::mutex m;
    return m;
}
std::size_t g_hooked_pipelines = static_cast<std::size_t>(-1);
void hook_exit(std::size_t pipelines) {
    std::lock_guard lock(hook_mutex());
    if (pipelines == g_hooked_pipelines || g_released.load()) return;
    g_hooked_pipelines = pipelines;
    std::atexit(&release_contexts_at_exit);
}
}  // namespace

std::shared_ptr<Context> Context::get(const VulkanDevice& device) {
    std::lock_guard lock(registry_mutex());
    auto& slot = registry()[device.index];
    if (!slot) {
        try {
            slot = std::shared_ptr<Context>(new Context(create_device(device.index)));
        } catch (...) {
            registry().erase(device.index);
            throw;
        }
        // Registered after the driver was loaded, so it runs before the driver's teardown.
        hook_exit(0);
    }
    return slot;
}

Context::Context(std::shared_ptr<DeviceHandle> device) : device_(std::move(device)) {
    jit_on_first_run_ = device_->physical->info.type == VulkanDeviceType::Cpu;
    if (const char* e = std::getenv("BURN_VULKAN_SYNC_ERRORS"))
        sync_errors_ = *e != '\0' && std::string_view(e) != "0";
    pool_ = std::make_shared<MemoryPool>(device_, MemoryPool::Kind::Device);
    staging_ = std::make_shared<MemoryPool>(device_, MemoryPool::Kind::Staging);
    VkCommandPoolCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    ci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    ci.queueFamilyIndex = device_->physical->compute_queue_family;
    check(vkCreateCommandPool(device_->device, &ci, nullptr, &command_pool_),
          "vkCreateCommandPool");
}

Context::~Context() {
    if (vulkan_exiting()) return;  // held past the exit hook: leak rather than call the driver
    abandon_pending();
    if (recording_) destroy_batch(*recording_);
    for (auto& b : in_flight_) destroy_batch(b);
    for (auto& b : free_batches_) destroy_batch(b);
    for (auto& [k, p] : pipelines_) {
        vkDestroyPipeline(device_->device, p->pipeline, nullptr);
        vkDestroyPipelineLayout(device_->device, p->layout, nullptr);
        vkDestroyDescriptorSetLayout(device_->device, p->set_layout, nullptr);
    }
    vkDestroyCommandPool(device_->device, command_pool_, nullptr);
}

// ------------------------------------------------------------------------------ pipelines

const Pipeline& Context::pipeline(const PipelineDesc& desc) {
    std::string key = desc.shader;
    key += '|';
    for (auto v : desc.spec) key += std::to_string(v) + ',';
    key += '|' + std::to_string(desc.bindings) + '|' + std::to_string(desc.push_bytes);

    std::lock_guard lock(pipeline_mutex_);
    if (auto it = pipelines_.find(key); it != pipelines_.end()) {
        ++pipeline_hits_;
        return *it->second;
    }
    BURN_CHECK(desc.bindings <= kMaxBindings, "vulkan pipeline '", desc.shader,
               "': ", desc.bindings, " bindings exceed the maximum of ", kMaxBindings);
    BURN_CHECK(desc.push_bytes <= features().max_push_constant_bytes && desc.push_bytes % 4 == 0,
               "vulkan pipeline '", desc.shader, "': push constants of ", desc.push_bytes,
               " bytes (must be a multiple of 4, at most ", features().max_push_constant_bytes,
               ")");
    std::span<const std::uint32_t> words =
        desc.spirv.empty() ? shaders::get(desc.shader) : desc.spirv;
    VkDevice dev = device_->device;
    auto p = std::make_unique<Pipeline>();
    p->bindings = desc.bindings;
    p->push_bytes = desc.push_bytes;
    p->key = key;

    std::vector<VkDescriptorSetLayoutBinding> binds(desc.bindings);
    for (std::uint32_t i = 0; i < desc.bindings; ++i) {
        binds[i].binding = i;
        binds[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        binds[i].descriptorCount = 1;
        binds[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo li{};
    li.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    li.bindingCount = desc.bindings;
    li.pBindings = binds.data();
    check(vkCreateDescriptorSetLayout(dev, &li, nullptr, &p->set_layout),
          "vkCreateDescriptorSetLayout");

    VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, desc.push_bytes};
    VkPipelineLayoutCreateInfo pli{};
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &p->set_layout;
    pli.pushConstantRangeCount = desc.push_bytes ? 1 : 0;
    pli.pPushConstantRanges = desc.push_bytes ? &pr : nullptr;
    VkResult r = vkCreatePipelineLayout(dev, &pli, nullptr, &p->layout);
    if (r != VK_SUCCESS) {
        vkDestroyDescriptorSetLayout(dev, p->set_layout, nullptr);
        throw_result("vkCreatePipelineLayout", r);
    }

    VkShaderModuleCreateInfo mi{};
    mi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    mi.codeSize = words.size() * sizeof(std::uint32_t);
    mi.pCode = words.data();
    VkShaderModule module = VK_NULL_HANDLE;
    r = vkCreateShaderModule(dev, &mi, nullptr, &module);
    if (r == VK_SUCCESS) {
        std::vector<VkSpecializationMapEntry> entries(desc.spec.size());
        for (std::uint32_t i = 0; i < entries.size(); ++i) entries[i] = {i, i * 4u, 4u};
        VkSpecializationInfo si{};
        si.mapEntryCount = static_cast<std::uint32_t>(entries.size());
        si.pMapEntries = entries.data();
        si.dataSize = desc.spec.size() * 4;
        si.pData = desc.spec.data();
        VkComputePipelineCreateInfo ci{};
        ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
        ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = module;
        ci.stage.pName = "main";
        ci.stage.pSpecializationInfo = desc.spec.empty() ? nullptr : &si;
        ci.layout = p->layout;
        r = vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, nullptr, &p->pipeline);
        vkDestroyShaderModule(dev, module, nullptr);
    }
    if (r != VK_SUCCESS) {
        vkDestroyPipelineLayout(dev, p->layout, nullptr);
        vkDestroyDescriptorSetLayout(dev, p->set_layout, nullptr);
        throw Error("Vulkan: creating the compute pipeline of shader '" + desc.shader +
                    "' failed: " + result_name(r));
    }
    ++pipelines_created_;
    ++kernel_counters().pipelines;
    if (!desc.spirv.empty()) ++kernel_counters().generated_pipelines;
    auto& ref = *p;
    pipelines_.emplace(std::move(key), std::move(p));
    return ref;
}

// ------------------------------------------------------------------------------ batches

Context::Batch Context::make_batch() {
    Batch b;
    VkDevice dev = device_->device;
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = command_pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(dev, &ai, &b.cmd), "vkAllocateCommandBuffers");
    VkFenceCreateInfo fi{};
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkResult r = vkCreateFence(dev, &fi, nullptr, &b.fence);
    if (r == VK_SUCCESS) {
        // Enough descriptors for batch_limit_ dispatches of kMaxBindings buffers; a batch that
        // would exceed that is submitted first (see dispatch).
        VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                static_cast<std::uint32_t>(batch_limit_ * kMaxBindings)};
        VkDescriptorPoolCreateInfo pi{};
        pi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
        pi.maxSets = static_cast<std::uint32_t>(batch_limit_);
        pi.poolSizeCount = 1;
        pi.pPoolSizes = &ps;
        r = vkCreateDescriptorPool(dev, &pi, nullptr, &b.descriptors);
    }
    if (r != VK_SUCCESS) {
        destroy_batch(b);
        throw_result("vkCreateFence/vkCreateDescriptorPool", r);
    }
    return b;
}

void Context::destroy_batch(Batch& b) noexcept {
    VkDevice dev = device_->device;
    b.keep_alive.clear();
    if (b.descriptors) vkDestroyDescriptorPool(dev, b.descriptors, nullptr);
    if (b.fence) vkDestroyFence(dev, b.fence, nullptr);
    if (b.cmd) vkFreeCommandBuffers(dev, command_pool_, 1, &b.cmd);
    b = Batch{};
}

Context::Batch& Context::current() {
    if (recording_) return *recording_;
    Batch b;
    // A free batch made for a smaller batch_limit_ has too small a descriptor pool.
    while (!free_batches_.empty()) {
        b = std::move(free_batches_.back());
        free_batches_.pop_back();
        if (b.capacity >= batch_limit_) break;
        destroy_batch(b);
    }
    if (!b.cmd) {
        b = make_batch();
        b.capacity = batch_limit_;
    }
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkResult r = vkBeginCommandBuffer(b.cmd, &bi);
    if (r != VK_SUCCESS) {
        destroy_batch(b);
        throw_result("vkBeginCommandBuffer", r);
    }
    recording_ = std::make_unique<Batch>(std::move(b));
    return *recording_;
}

void Context::barrier(Batch& b) {
    // Orders this command after every earlier one on the queue (in this command buffer and in
    // earlier submissions): writes by shaders and transfers are made visible to both.
    VkMemoryBarrier mb{};
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    const VkPipelineStageFlags stages =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(b.cmd, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
    ++b.commands;
}

void Context::recycle(Batch& b) {
    b.keep_alive.clear();
    check(vkResetFences(device_->device, 1, &b.fence), "vkResetFences");
    check(vkResetDescriptorPool(device_->device, b.descriptors, 0), "vkResetDescriptorPool");
    check(vkResetCommandBuffer(b.cmd, 0), "vkResetCommandBuffer");
    b.dispatches = b.bindings = b.commands = 0;
    b.first_runs = false;
    free_batches_.push_back(std::move(b));
}

void Context::submit_locked() {
    if (!recording_) return;
    Batch b = std::move(*recording_);
    recording_.reset();
    VkResult r = vkEndCommandBuffer(b.cmd);
    if (r == VK_SUCCESS) {
        VkSubmitInfo si{};
        si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &b.cmd;
        r = vkQueueSubmit(device_->queue, 1, &si, b.fence);
    }
    if (r != VK_SUCCESS) {
        destroy_batch(b);
        throw_result("vkQueueSubmit", r);
    }
    ++stats_.submits;
    const bool first_runs = b.first_runs;
    in_flight_.push_back(std::move(b));
    if (first_runs) {  // see jit_on_first_run_: the compilation happens now, not at exit
        wait_locked(0);
        return;
    }
    // Recycle what has finished; bound the work in flight.
    while (!in_flight_.empty() &&
           vkGetFenceStatus(device_->device, in_flight_.front().fence) == VK_SUCCESS) {
        recycle(in_flight_.front());
        in_flight_.pop_front();
    }
    if (in_flight_.size() > kMaxInFlight) wait_locked(kMaxInFlight);
}

void Context::wait_locked(std::size_t keep_in_flight) {
    if (in_flight_.size() <= keep_in_flight) return;
    while (in_flight_.size() > keep_in_flight) {
        Batch& b = in_flight_.front();
        ++stats_.waits;
        check(vkWaitForFences(device_->device, 1, &b.fence, VK_TRUE, UINT64_MAX),
              "vkWaitForFences");
        recycle(b);
        in_flight_.pop_front();
    }
    // Every pipeline created so far has run (or been compiled) by now when nothing is in flight.
    if (in_flight_.empty()) hook_exit(pipelines_created_.load());
}

void Context::abandon_pending() noexcept {
    std::lock_guard lock(mutex_);
    if (recording_) {
        // Never submitted: reset and keep for reuse (destroyed with the context).
        if (vkResetCommandBuffer(recording_->cmd, 0) == VK_SUCCESS &&
            vkResetDescriptorPool(device_->device, recording_->descriptors, 0) == VK_SUCCESS) {
            recording_->keep_alive.clear();
            recording_->dispatches = recording_->bindings = recording_->commands = 0;
            recording_->first_runs = false;
            free_batches_.push_back(std::move(*recording_));
        } else {
            destroy_batch(*recording_);
        }
        recording_.reset();
    }
    try {
        wait_locked(0);
    } catch (...) {  // device lost: nothing left to do but release
    }
}

void Context::flush() {
    std::lock_guard lock(mutex_);
    submit_locked();
}

void Context::sync() {
    std::lock_guard lock(mutex_);
    std::optional<Buffer> staged;
    if (errors_armed_) staged = stage_errors_locked(current());
    submit_locked();
    wait_locked(0);
    raise_errors_locked(staged);
}

// --------------------------------------------------------------------------- device errors

namespace {
constexpr std::size_t kErrorWords = 8;
}

const Buffer& Context::error_buffer() {
    std::lock_guard lock(mutex_);
    if (!errors_) {
        errors_ = pool_->allocate(kErrorWords * 4);
        Batch& b = current();
        barrier(b);
        vkCmdFillBuffer(b.cmd, errors_->handle(), errors_->offset(), kErrorWords * 4, 0u);
    }
    errors_armed_ = true;
    return *errors_;
}

std::uint32_t Context::error_op(std::string_view name) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < error_ops_.size(); ++i)
        if (error_ops_[i] == name) return static_cast<std::uint32_t>(i + 1);
    error_ops_.emplace_back(name);
    return static_cast<std::uint32_t>(error_ops_.size());
}

std::optional<Buffer> Context::stage_errors_locked(Batch& b) {
    if (!errors_armed_ || !errors_) return std::nullopt;
    Buffer staging = staging_->allocate(kErrorWords * 4);
    barrier(b);
    VkBufferCopy region{errors_->offset(), staging.offset(), kErrorWords * 4};
    vkCmdCopyBuffer(b.cmd, errors_->handle(), staging.handle(), 1, &region);
    VkMemoryBarrier mb{};
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(b.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &mb, 0, nullptr, 0, nullptr);
    // Everything armed so far is in this submission: the check is disarmed until the next op
    // binds the buffer.
    errors_armed_ = false;
    return staging;
}

void Context::raise_errors_locked(const std::optional<Buffer>& staged) {
    if (!staged) return;
    std::uint32_t w[kErrorWords];
    std::memcpy(w, staged->mapped(), sizeof w);
    if (w[0] == 0) return;
    // Clear the words for the next ops (recorded: runs before anything recorded later).
    Batch& b = current();
    barrier(b);
    vkCmdFillBuffer(b.cmd, errors_->handle(), errors_->offset(), kErrorWords * 4, 0u);
    const std::string op =
        w[1] >= 1 && w[1] <= error_ops_.size() ? error_ops_[w[1] - 1] : std::string("kernel");
    const char* when = " (reported at the next read: GPU kernels run asynchronously)";
    switch (w[0]) {
        case kErrorIndexOutOfRange:
            detail::fail("Vulkan ", op, ": index ", static_cast<std::int32_t>(w[2]),
                         " out of range for dimension ", w[4], " of size ", w[3], when);
        case kErrorIndexOutsidePlane:
            detail::fail("Vulkan ", op, ": index ", static_cast<std::int32_t>(w[2]),
                         " is outside its plane of ", w[3], " elements", when);
        case kErrorDivisionByZero: detail::fail("Vulkan ", op, ": integer division by zero", when);
        case kErrorRemainderByZero:
            detail::fail("Vulkan ", op, ": integer remainder by zero", when);
        default: detail::fail("Vulkan ", op, ": device error ", w[0], when);
    }
}

void Context::set_batch_limit(std::size_t n) {
    BURN_CHECK(n >= 1, "vulkan Context::set_batch_limit: the limit must be at least 1");
    std::lock_guard lock(mutex_);
    submit_locked();
    batch_limit_ = n;
}

KernelCounters& kernel_counters() noexcept {
    static KernelCounters counters;
    return counters;
}

ContextStats Context::stats() const {
    std::lock_guard lock(mutex_);
    ContextStats s = stats_;
    s.pipelines_created = pipelines_created_;
    s.pipeline_cache_hits = pipeline_hits_;
    return s;
}

// ------------------------------------------------------------------------------ commands

void Context::dispatch(const Pipeline& p, std::span<const Buffer* const> buffers,
                       std::span<const std::byte> push, Groups groups) {
    BURN_CHECK(buffers.size() == p.bindings, "vulkan dispatch '", p.key, "': ", buffers.size(),
               " buffers given, the pipeline has ", p.bindings, " bindings");
    BURN_CHECK(push.size() == p.push_bytes, "vulkan dispatch '", p.key, "': ", push.size(),
               " bytes of push constants given, the pipeline takes ", p.push_bytes);
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        BURN_CHECK(buffers[i] != nullptr && !buffers[i]->empty(), "vulkan dispatch '", p.key,
                   "': buffer ", i, " is empty (a binding needs at least one byte)");
        BURN_CHECK(buffers[i]->size() <= features().max_storage_buffer_range, "vulkan dispatch '",
                   p.key, "': buffer ", i, " of ", buffers[i]->size(),
                   " bytes exceeds the device's storage-buffer range of ",
                   features().max_storage_buffer_range, " bytes");
    }
    if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;

    std::lock_guard lock(mutex_);
    if (recording_ && (recording_->dispatches >= batch_limit_ ||
                       recording_->bindings + p.bindings > recording_->capacity * kMaxBindings))
        submit_locked();
    Batch& b = current();

    VkDescriptorSet set = VK_NULL_HANDLE;
    if (p.bindings > 0) {
        VkDescriptorSetAllocateInfo ai{};
        ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
        ai.descriptorPool = b.descriptors;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &p.set_layout;
        check(vkAllocateDescriptorSets(device_->device, &ai, &set), "vkAllocateDescriptorSets");
        std::array<VkDescriptorBufferInfo, kMaxBindings> infos{};
        std::array<VkWriteDescriptorSet, kMaxBindings> writes{};
        for (std::uint32_t i = 0; i < p.bindings; ++i) {
            infos[i] = {buffers[i]->handle(), buffers[i]->offset(), buffers[i]->size()};
            writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            writes[i].dstSet = set;
            writes[i].dstBinding = i;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[i].pBufferInfo = &infos[i];
        }
        vkUpdateDescriptorSets(device_->device, p.bindings, writes.data(), 0, nullptr);
    }
    barrier(b);
    vkCmdBindPipeline(b.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    if (set != VK_NULL_HANDLE)
        vkCmdBindDescriptorSets(b.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0,
                                nullptr);
    if (!push.empty())
        vkCmdPushConstants(b.cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           static_cast<std::uint32_t>(push.size()), push.data());
    vkCmdDispatch(b.cmd, groups[0], groups[1], groups[2]);
    if (jit_on_first_run_ && ran_.insert(&p).second) b.first_runs = true;
    ++b.dispatches;
    b.bindings += p.bindings;
    ++stats_.dispatches;
    if (b.dispatches >= batch_limit_) submit_locked();
    if (sync_errors_ && errors_) {  // synchronous error mode: check right after the dispatch
        bool checked = false;
        for (const Buffer* buf : buffers) checked = checked || buf == &*errors_;
        if (checked) {
            std::optional<Buffer> staged = stage_errors_locked(current());
            submit_locked();
            wait_locked(0);
            raise_errors_locked(staged);
        }
    }
}

Buffer Context::upload(std::span<const std::byte> bytes) {
    Buffer dst = allocate(bytes.size());
    if (!bytes.empty()) write(dst, bytes);
    return dst;
}

void Context::write(const Buffer& dst, std::span<const std::byte> bytes, std::size_t dst_offset) {
    if (bytes.empty()) return;
    BURN_CHECK(dst_offset + bytes.size() <= dst.size(), "vulkan write: ", bytes.size(),
               " bytes at offset ", dst_offset, " overflow a buffer of ", dst.size(), " bytes");
    Buffer staging = staging_->allocate(bytes.size());
    std::memcpy(staging.mapped(), bytes.data(), bytes.size());
    std::lock_guard lock(mutex_);
    Batch& b = current();
    barrier(b);
    VkBufferCopy region{staging.offset(), dst.offset() + dst_offset, bytes.size()};
    vkCmdCopyBuffer(b.cmd, staging.handle(), dst.handle(), 1, &region);
    // The host write happened before the submit, which makes it visible to the device.
    b.keep_alive.push_back(std::move(staging));
}

void Context::copy(const Buffer& src, const Buffer& dst, std::size_t bytes, std::size_t src_offset,
                   std::size_t dst_offset) {
    if (bytes == 0) return;
    BURN_CHECK(src_offset + bytes <= src.size() && dst_offset + bytes <= dst.size(),
               "vulkan copy: ", bytes, " bytes from offset ", src_offset, " of ", src.size(),
               " to offset ", dst_offset, " of ", dst.size(), " overflow a buffer");
    std::lock_guard lock(mutex_);
    Batch& b = current();
    barrier(b);
    VkBufferCopy region{src.offset() + src_offset, dst.offset() + dst_offset, bytes};
    vkCmdCopyBuffer(b.cmd, src.handle(), dst.handle(), 1, &region);
}

void Context::fill_u32(const Buffer& dst, std::uint32_t pattern, std::size_t bytes,
                       std::size_t offset) {
    if (bytes == 0) return;
    BURN_CHECK(bytes % 4 == 0 && offset % 4 == 0 && offset + bytes <= dst.size(),
               "vulkan fill_u32: ", bytes, " bytes at offset ", offset, " of a buffer of ",
               dst.size(), " (both must be multiples of 4, within the buffer)");
    std::lock_guard lock(mutex_);
    Batch& b = current();
    barrier(b);
    vkCmdFillBuffer(b.cmd, dst.handle(), dst.offset() + offset, bytes, pattern);
}

std::vector<std::byte> Context::read(const Buffer& src, std::size_t offset, std::size_t size) {
    if (size == static_cast<std::size_t>(-1)) size = offset <= src.size() ? src.size() - offset : 0;
    BURN_CHECK(offset + size <= src.size(), "vulkan read: ", size, " bytes at offset ", offset,
               " overflow a buffer of ", src.size(), " bytes");
    std::vector<std::byte> out(size);
    if (size == 0) return out;
    Buffer staging = staging_->allocate(size);
    {
        std::lock_guard lock(mutex_);
        Batch& b = current();
        barrier(b);
        VkBufferCopy region{src.offset() + offset, staging.offset(), size};
        vkCmdCopyBuffer(b.cmd, src.handle(), staging.handle(), 1, &region);
        VkMemoryBarrier mb{};
        mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(b.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                             1, &mb, 0, nullptr, 0, nullptr);
        std::optional<Buffer> staged;
        if (errors_armed_) staged = stage_errors_locked(b);
        submit_locked();
        wait_locked(0);
        raise_errors_locked(staged);
    }
    std::memcpy(out.data(), staging.mapped(), size);
    return out;
}

}  // namespace burn::vk

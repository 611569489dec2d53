// SPDX-License-Identifier: MIT OR Apache-2.0
// Vulkan instance, device enumeration and ordering, error reporting.
#include "runtime.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

namespace burn {

const char* to_string(VulkanDeviceType t) noexcept {
    switch (t) {
        case VulkanDeviceType::DiscreteGpu: return "DiscreteGpu";
        case VulkanDeviceType::IntegratedGpu: return "IntegratedGpu";
        case VulkanDeviceType::VirtualGpu: return "VirtualGpu";
        case VulkanDeviceType::Cpu: return "Cpu";
        case VulkanDeviceType::Other: return "Other";
    }
    return "Other";
}

std::ostream& operator<<(std::ostream& os, const VulkanDeviceInfo& d) {
    return os << "Vulkan(" << d.index << "): " << d.name << " [" << to_string(d.type) << ", Vulkan "
              << d.api_major << "." << d.api_minor << "." << d.api_patch << ", " << d.driver
              << ", ints " << dtype_name(d.int_dtype()) << "]";
}

const std::vector<VulkanDeviceInfo>& vulkan_devices() {
    static const std::vector<VulkanDeviceInfo> list = [] {
        std::vector<VulkanDeviceInfo> v;
        for (const auto& d : vk::Instance::get()->devices()) v.push_back(d.info);
        return v;
    }();
    return list;
}

const VulkanDeviceInfo& vulkan_device_info(const VulkanDevice& device) {
    vk::Instance::get()->require(device.index);  // throws the explanation
    return vulkan_devices()[device.index];
}

void vulkan_sync(const VulkanDevice& device) { vk::Context::get(device)->sync(); }

void vk::Kernels::sync(const VulkanDevice& device) { vulkan_sync(device); }

VulkanKernelStats vulkan_kernel_stats() {
    const auto& c = vk::kernel_counters();
    return {.pipelines = c.pipelines.load(),
            .compiled_shaders = c.compiled_shaders.load(),
            .generated_pipelines = c.generated_pipelines.load()};
}

}  // namespace burn

namespace burn::vk {

const char* result_name(VkResult r) noexcept {
    switch (r) {
#define BURN_VK_CASE(x) \
    case x: return #x;
        BURN_VK_CASE(VK_SUCCESS)
        BURN_VK_CASE(VK_NOT_READY)
        BURN_VK_CASE(VK_TIMEOUT)
        BURN_VK_CASE(VK_EVENT_SET)
        BURN_VK_CASE(VK_EVENT_RESET)
        BURN_VK_CASE(VK_INCOMPLETE)
        BURN_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        BURN_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        BURN_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
        BURN_VK_CASE(VK_ERROR_DEVICE_LOST)
        BURN_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        BURN_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        BURN_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        BURN_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        BURN_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        BURN_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        BURN_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        BURN_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
        BURN_VK_CASE(VK_ERROR_UNKNOWN)
        BURN_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        BURN_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        BURN_VK_CASE(VK_ERROR_FRAGMENTATION)
        BURN_VK_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        BURN_VK_CASE(VK_PIPELINE_COMPILE_REQUIRED)
#undef BURN_VK_CASE
        default: return "VkResult";
    }
}

void throw_result(const char* call, VkResult r) {
    std::ostringstream os;
    os << "Vulkan: " << call << " failed: " << result_name(r) << " (" << static_cast<int>(r) << ")";
    throw Error(os.str());
}

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && (std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0 ||
                            std::strcmp(v, "ON") == 0 || std::strcmp(v, "on") == 0);
}

VulkanDeviceType device_type(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return VulkanDeviceType::DiscreteGpu;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return VulkanDeviceType::IntegratedGpu;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return VulkanDeviceType::VirtualGpu;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return VulkanDeviceType::Cpu;
        default: return VulkanDeviceType::Other;
    }
}

// Fills info for one physical device; false when it is unusable (API < 1.2, no compute queue).
bool describe(VkPhysicalDevice pd, PhysicalDevice& out) {
    VkPhysicalDeviceProperties base{};
    vkGetPhysicalDeviceProperties(pd, &base);
    if (VK_API_VERSION_MAJOR(base.apiVersion) == 1 && VK_API_VERSION_MINOR(base.apiVersion) < 2)
        return false;

    std::uint32_t nfam = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nfam, nullptr);
    std::vector<VkQueueFamilyProperties> fams(nfam);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nfam, fams.data());
    bool found = false;
    for (std::uint32_t i = 0; i < nfam && !found; ++i) {
        if (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            out.compute_queue_family = i;
            found = true;
        }
    }
    if (!found) return false;

    VkPhysicalDeviceVulkan11Properties p11{};
    p11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
    VkPhysicalDeviceVulkan12Properties p12{};
    p12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
    p11.pNext = &p12;
    VkPhysicalDeviceProperties2 props{};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &p11;
    vkGetPhysicalDeviceProperties2(pd, &props);

    VkPhysicalDeviceVulkan11Features f11{};
    f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    VkPhysicalDeviceVulkan12Features f12{};
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f11.pNext = &f12;
    VkPhysicalDeviceFeatures2 feats{};
    feats.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    feats.pNext = &f11;
    vkGetPhysicalDeviceFeatures2(pd, &feats);

    std::uint32_t next = 0;
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &next, nullptr);
    std::vector<VkExtensionProperties> exts(next);
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &next, exts.data());

    VkPhysicalDeviceMemoryProperties mem{};
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);

    const auto& lim = base.limits;
    auto& info = out.info;
    out.handle = pd;
    info.name = base.deviceName;
    info.type = device_type(base.deviceType);
    info.vendor_id = base.vendorID;
    info.device_id = base.deviceID;
    info.api_major = VK_API_VERSION_MAJOR(base.apiVersion);
    info.api_minor = VK_API_VERSION_MINOR(base.apiVersion);
    info.api_patch = VK_API_VERSION_PATCH(base.apiVersion);
    info.driver = std::string(p12.driverName) + " " + p12.driverInfo;
    auto& f = info.features;
    f.shader_int64 = feats.features.shaderInt64;
    f.shader_float64 = feats.features.shaderFloat64;
    f.shader_float16 = f12.shaderFloat16;
    f.shader_int8 = f12.shaderInt8;
    f.storage_buffer_8bit = f12.storageBuffer8BitAccess;
    f.storage_buffer_16bit = f11.storageBuffer16BitAccess;
    f.push_descriptor = std::any_of(exts.begin(), exts.end(), [](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) == 0;
    });
    f.subgroup_size = p11.subgroupSize;
    f.subgroup_in_compute = (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
    const auto ops = p11.subgroupSupportedOperations;
    f.subgroup_basic = ops & VK_SUBGROUP_FEATURE_BASIC_BIT;
    f.subgroup_vote = ops & VK_SUBGROUP_FEATURE_VOTE_BIT;
    f.subgroup_arithmetic = ops & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    f.subgroup_ballot = ops & VK_SUBGROUP_FEATURE_BALLOT_BIT;
    f.subgroup_shuffle = ops & VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    f.subgroup_shuffle_relative = ops & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
    f.subgroup_clustered = ops & VK_SUBGROUP_FEATURE_CLUSTERED_BIT;
    f.subgroup_quad = ops & VK_SUBGROUP_FEATURE_QUAD_BIT;
    for (int i = 0; i < 3; ++i) {
        f.max_workgroup_size[i] = lim.maxComputeWorkGroupSize[i];
        f.max_workgroup_count[i] = lim.maxComputeWorkGroupCount[i];
    }
    f.max_workgroup_invocations = lim.maxComputeWorkGroupInvocations;
    f.max_shared_memory_bytes = lim.maxComputeSharedMemorySize;
    f.max_push_constant_bytes = lim.maxPushConstantsSize;
    f.max_storage_buffer_range = lim.maxStorageBufferRange;
    f.min_storage_buffer_offset_alignment = lim.minStorageBufferOffsetAlignment;
    for (std::uint32_t i = 0; i < mem.memoryHeapCount; ++i)
        if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            f.device_local_bytes =
                std::max<std::uint64_t>(f.device_local_bytes, mem.memoryHeaps[i].size);
    return true;
}

int type_rank(VulkanDeviceType t) {
    switch (t) {
        case VulkanDeviceType::DiscreteGpu: return 0;
        case VulkanDeviceType::IntegratedGpu: return 1;
        case VulkanDeviceType::VirtualGpu: return 2;
        case VulkanDeviceType::Cpu: return 3;
        default: return 4;
    }
}

const char* kInstallHint =
    "Install a Vulkan driver (Debian/Ubuntu: apt-get install mesa-vulkan-drivers provides "
    "lavapipe, a CPU device) or point VK_ICD_FILENAMES at a driver's ICD file, e.g. "
    "VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

}  // namespace

namespace {
std::atomic<bool> g_exiting{false};
std::mutex& instance_mutex() {
    static std::mutex m;
    return m;
}
std::shared_ptr<Instance>& instance_slot() {
    static std::shared_ptr<Instance> inst;
    return inst;
}
}  // namespace

bool vulkan_exiting() noexcept { return g_exiting.load(); }
void mark_vulkan_exiting() noexcept { g_exiting.store(true); }

void Instance::release() {
    std::shared_ptr<Instance> dropped;
    {
        std::lock_guard lock(instance_mutex());
        dropped = std::move(instance_slot());
        instance_slot().reset();
    }
}

std::shared_ptr<Instance> Instance::get() {
    std::lock_guard lock(instance_mutex());
    auto& inst = instance_slot();
    if (inst) return inst;
    inst.reset(new Instance());
    auto& self = *inst;

    std::vector<const char*> layers;
    if (env_flag("BURN_VULKAN_VALIDATION")) {
        std::uint32_t n = 0;
        vkEnumerateInstanceLayerProperties(&n, nullptr);
        std::vector<VkLayerProperties> props(n);
        vkEnumerateInstanceLayerProperties(&n, props.data());
        bool have = std::any_of(props.begin(), props.end(), [](const VkLayerProperties& p) {
            return std::strcmp(p.layerName, kValidationLayer) == 0;
        });
        if (have) {
            layers.push_back(kValidationLayer);
            self.validation_ = true;
        } else {
            std::cerr << "burn vulkan: BURN_VULKAN_VALIDATION is set but " << kValidationLayer
                      << " is not installed (Debian: vulkan-validationlayers); continuing "
                         "without it\n";
        }
    }

    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "burn-cpp";
    app.pEngineName = "burn-cpp";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
    ci.ppEnabledLayerNames = layers.data();
    VkResult r = vkCreateInstance(&ci, nullptr, &self.instance_);
    if (r != VK_SUCCESS) {
        self.instance_ = VK_NULL_HANDLE;
        self.failure_ = std::string("vkCreateInstance failed: ") + result_name(r);
        return inst;
    }

    std::uint32_t n = 0;
    r = vkEnumeratePhysicalDevices(self.instance_, &n, nullptr);
    std::vector<VkPhysicalDevice> pds(n);
    if (r == VK_SUCCESS && n > 0) r = vkEnumeratePhysicalDevices(self.instance_, &n, pds.data());
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        self.failure_ = std::string("vkEnumeratePhysicalDevices failed: ") + result_name(r);
        return inst;
    }
    pds.resize(n);
    std::size_t skipped = 0;
    for (VkPhysicalDevice pd : pds) {
        PhysicalDevice d;
        if (describe(pd, d)) self.devices_.push_back(std::move(d));
        else ++skipped;
    }
    std::stable_sort(self.devices_.begin(), self.devices_.end(),
                     [](const PhysicalDevice& a, const PhysicalDevice& b) {
                         return type_rank(a.info.type) < type_rank(b.info.type);
                     });
    if (const char* e = std::getenv("BURN_VULKAN_DEVICE"); e != nullptr && *e != '\0') {
        char* end = nullptr;
        unsigned long k = std::strtoul(e, &end, 10);
        if (*end != '\0' || k >= self.devices_.size()) {
            std::cerr << "burn vulkan: ignoring BURN_VULKAN_DEVICE=" << e << " (there are "
                      << self.devices_.size() << " devices)\n";
        } else {
            std::rotate(self.devices_.begin(), self.devices_.begin() + static_cast<long>(k),
                        self.devices_.begin() + static_cast<long>(k) + 1);
        }
    }
    for (std::size_t i = 0; i < self.devices_.size(); ++i) self.devices_[i].info.index = i;
    if (self.devices_.empty()) {
        self.failure_ = "vkEnumeratePhysicalDevices found " + std::to_string(pds.size()) +
                        " devices" + (skipped ? ", none with Vulkan 1.2 and a compute queue" : "");
    }
    return inst;
}

Instance::~Instance() {
    if (instance_ != VK_NULL_HANDLE && !vulkan_exiting()) vkDestroyInstance(instance_, nullptr);
}

const PhysicalDevice& Instance::require(std::size_t index) const {
    if (devices_.empty())
        throw Error("burn::Vulkan: no Vulkan device was found (" + failure_ + "). " + kInstallHint);
    if (index >= devices_.size()) {
        std::ostringstream os;
        os << "burn::Vulkan: no device Vulkan(" << index << "): " << devices_.size()
           << (devices_.size() == 1 ? " Vulkan device exists" : " Vulkan devices exist")
           << " (valid indices 0.." << devices_.size() - 1 << ")";
        throw Error(os.str());
    }
    return devices_[index];
}

DeviceHandle::~DeviceHandle() {
    if (device != VK_NULL_HANDLE && !vulkan_exiting()) {
        vkDeviceWaitIdle(device);
        vkDestroyDevice(device, nullptr);
    }
}

Groups grid_1d(std::uint64_t n, std::uint32_t wg, const VulkanFeatures& f) {
    const std::uint64_t groups = (n + wg - 1) / wg;
    if (groups == 0) return {0, 0, 0};
    const std::uint64_t max_x = f.max_workgroup_count[0] ? f.max_workgroup_count[0] : 65535;
    const std::uint64_t x = std::min(groups, max_x);
    const std::uint64_t y = (groups + x - 1) / x;
    BURN_CHECK(y <= (f.max_workgroup_count[1] ? f.max_workgroup_count[1] : 65535),
               "vulkan grid_1d: ", n, " invocations exceed the device's workgroup counts");
    return {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 1};
}

}  // namespace burn::vk

// SPDX-License-Identifier: MIT OR Apache-2.0
// NVRTC: compiles the embedded programs of kernels/cuda, and the programs Fusion<Cuda> generates,
// to cubins for one architecture, with a disk cache keyed by the sources, the options and NVRTC's
// version.
#include <nvrtc.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "burn/backend/kernel_cache.hpp"
#include "runtime.hpp"

namespace burn::cuda {

namespace {

/// The embedded sources, or those of the directory $BURN_CUDA_KERNEL_DIR when it is set (kernel
/// development: edit kernels/cuda and run again without rebuilding the library).
std::span<const KernelSource> sources() {
    static const std::vector<KernelSource> from_dir = [] {
        std::vector<KernelSource> out;
        const char* dir = std::getenv("BURN_CUDA_KERNEL_DIR");
        if (!dir || !*dir) return out;
        static std::vector<std::string> storage;  // names and texts, alive for the process
        std::vector<std::filesystem::path> files;
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
            const auto ext = e.path().extension();
            if (ext == ".cu" || ext == ".cuh") files.push_back(e.path());
        }
        storage.reserve(files.size() * 2);
        for (const auto& f : files) {
            std::ifstream in(f, std::ios::binary);
            storage.push_back(f.filename().string());
            const char* name = storage.back().c_str();
            storage.emplace_back(std::istreambuf_iterator<char>(in),
                                 std::istreambuf_iterator<char>());
            out.push_back({name, storage.back().c_str()});
        }
        return out;
    }();
    if (!from_dir.empty()) return from_dir;
    return kernel_sources();
}

const KernelSource* find_source(std::string_view name) {
    for (const auto& s : sources())
        if (name == s.name) return &s;
    return nullptr;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void check_nvrtc(nvrtcResult r, const char* what, std::string_view program) {
    if (r != NVRTC_SUCCESS)
        ::burn::detail::fail("Cuda: NVRTC ", what, " for ", program,
                             ".cu failed: ", nvrtcGetErrorString(r));
}

std::atomic<std::size_t> compiled_count{0};
std::atomic<std::size_t> disk_hit_count{0};

}  // namespace

std::atomic<std::size_t> generated_kernel_count{0};

CudaKernelStats kernel_stats() {
    CudaKernelStats s;
    s.compiled = compiled_count.load();
    s.disk_cache_hits = disk_hit_count.load();
    s.generated_kernels = generated_kernel_count.load();
    return s;
}

std::vector<std::string> program_names() {
    std::vector<std::string> out;
    for (const auto& s : sources())
        if (ends_with(s.name, ".cu"))
            out.emplace_back(
                std::string_view(s.name).substr(0, std::string_view(s.name).size() - 3));
    return out;
}

std::vector<char> compile_program(std::string_view program, std::string_view arch) {
    const std::string file = std::string(program) + ".cu";
    const KernelSource* src = find_source(file);
    if (!src) ::burn::detail::fail("Cuda: no kernel program kernels/cuda/", file);
    return compile_source(program, src->text, arch);
}

std::vector<char> compile_source(std::string_view program, const char* text,
                                 std::string_view arch) {
    const std::string file = std::string(program) + ".cu";
    std::vector<const char*> header_names, header_texts;
    for (const auto& s : sources())
        if (ends_with(s.name, ".cuh")) {
            header_names.push_back(s.name);
            header_texts.push_back(s.text);
        }
    const std::string arch_opt = "--gpu-architecture=" + std::string(arch);
    // A virtual architecture (compute_XX) has no cubin: its PTX is the result (the driver
    // compiles it when loaded).
    const bool ptx = arch.substr(0, 8) == "compute_";
    const std::vector<const char*> options = {arch_opt.c_str(), "--std=c++17",
                                              "--device-as-default-execution-space"};

    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    using backend::fnv1a;
    std::uint64_t h = backend::kFnvOffset;
    h = fnv1a(h, text);
    for (const char* t : header_texts) h = fnv1a(h, t);
    for (const char* o : options) h = fnv1a(h, o);
    h = fnv1a(h, std::to_string(major) + "." + std::to_string(minor));
    const auto dir = backend::kernel_cache_dir("BURN_CUDA_CACHE", "cuda");
    const auto cached = dir.empty() ? std::filesystem::path{}
                                    : dir / (std::string(program) + "-" + std::string(arch) + "-" +
                                             backend::hex16(h) + (ptx ? ".ptx" : ".cubin"));
    if (!cached.empty()) {
        auto data = backend::read_cache_file(cached);
        if (!data.empty()) {
            ++disk_hit_count;
            return data;
        }
    }

    nvrtcProgram prog = nullptr;
    check_nvrtc(nvrtcCreateProgram(&prog, text, file.c_str(), static_cast<int>(header_names.size()),
                                   header_texts.data(), header_names.data()),
                "program creation", program);
    struct Destroy {
        nvrtcProgram* p;
        ~Destroy() { nvrtcDestroyProgram(p); }
    } destroy{&prog};
    const nvrtcResult r =
        nvrtcCompileProgram(prog, static_cast<int>(options.size()), options.data());
    if (r != NVRTC_SUCCESS) {
        std::size_t log_size = 0;
        nvrtcGetProgramLogSize(prog, &log_size);
        std::string log(log_size, '\0');
        if (log_size) nvrtcGetProgramLog(prog, log.data());
        ::burn::detail::fail("Cuda: NVRTC could not compile ", file, " for ", arch, ": ",
                             nvrtcGetErrorString(r), "\n", log);
    }
    std::size_t size = 0;
    check_nvrtc(ptx ? nvrtcGetPTXSize(prog, &size) : nvrtcGetCUBINSize(prog, &size),
                ptx ? "ptx size" : "cubin size", program);
    std::vector<char> cubin(size);
    check_nvrtc(ptx ? nvrtcGetPTX(prog, cubin.data()) : nvrtcGetCUBIN(prog, cubin.data()),
                ptx ? "ptx" : "cubin", program);
    ++compiled_count;
    if (!cached.empty()) backend::write_cache_file(cached, cubin);
    return cubin;
}

}  // namespace burn::cuda

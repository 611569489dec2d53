// SPDX-License-Identifier: MIT OR Apache-2.0
// Run-time GLSL -> SPIR-V (shaderc, linked statically: see TOOLCHAIN.md).
#include <shaderc/shaderc.h>

#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "burn/backend/kernel_cache.hpp"
#include "runtime.hpp"

namespace burn::vk {

std::vector<std::uint32_t> compile_glsl(std::string_view source, std::string_view name) {
    using Compiler = std::unique_ptr<shaderc_compiler, decltype(&shaderc_compiler_release)>;
    using Options =
        std::unique_ptr<shaderc_compile_options, decltype(&shaderc_compile_options_release)>;
    using Result = std::unique_ptr<shaderc_compilation_result, decltype(&shaderc_result_release)>;
    Compiler compiler(shaderc_compiler_initialize(), &shaderc_compiler_release);
    Options options(shaderc_compile_options_initialize(), &shaderc_compile_options_release);
    BURN_CHECK(compiler && options, "vulkan compile_glsl: shaderc could not be initialised");
    shaderc_compile_options_set_target_env(options.get(), shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_2);
    shaderc_compile_options_set_optimization_level(options.get(),
                                                   shaderc_optimization_level_performance);
    const std::string file(name.empty() ? std::string_view("generated.comp") : name);
    Result result(
        shaderc_compile_into_spv(compiler.get(), source.data(), source.size(),
                                 shaderc_compute_shader, file.c_str(), "main", options.get()),
        &shaderc_result_release);
    BURN_CHECK(result, "vulkan compile_glsl: shaderc returned no result for '", file, "'");
    if (shaderc_result_get_compilation_status(result.get()) != shaderc_compilation_status_success) {
        throw Error("vulkan compile_glsl: '" + file + "' does not compile:\n" +
                    shaderc_result_get_error_message(result.get()));
    }
    const auto* bytes = shaderc_result_get_bytes(result.get());
    const std::size_t n = shaderc_result_get_length(result.get()) / sizeof(std::uint32_t);
    std::vector<std::uint32_t> words(n);
    std::memcpy(words.data(), bytes, n * sizeof(std::uint32_t));
    ++kernel_counters().compiled_shaders;
    return words;
}

std::vector<std::uint32_t> compile_glsl_cached(std::string_view source, std::string_view name) {
    const auto dir = backend::kernel_cache_dir("BURN_VULKAN_CACHE", "vulkan");
    if (dir.empty()) return compile_glsl(source, name);
    // The key: the text, the options of compile_glsl and the compiler's SPIR-V version.
    unsigned int version = 0, revision = 0;
    shaderc_get_spv_version(&version, &revision);
    std::uint64_t h = backend::fnv1a(backend::kFnvOffset, source);
    h = backend::fnv1a(
        h, "vulkan1.2 performance spv " + std::to_string(version) + "." + std::to_string(revision));
    const auto file = dir / ("fused-" + backend::hex16(h) + ".spv");
    const auto bytes = backend::read_cache_file(file);
    if (!bytes.empty() && bytes.size() % sizeof(std::uint32_t) == 0) {
        std::vector<std::uint32_t> words(bytes.size() / sizeof(std::uint32_t));
        std::memcpy(words.data(), bytes.data(), bytes.size());
        if (words[0] == 0x07230203u) return words;  // SPIR-V's magic number
    }
    auto words = compile_glsl(source, name);
    backend::write_cache_file(file,
                              std::span<const char>(reinterpret_cast<const char*>(words.data()),
                                                    words.size() * sizeof(std::uint32_t)));
    return words;
}

}  // namespace burn::vk

// SPDX-License-Identifier: MIT OR Apache-2.0
// Run-time GLSL -> SPIR-V (shaderc, linked statically: see TOOLCHAIN.md).
#include <shaderc/shaderc.h>

#include <cstring>
#include <memory>

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

}  // namespace burn::vk

// SPDX-License-Identifier: MIT OR Apache-2.0
// burn_cuda_nvrtc_check [ARCH [PROGRAM...]]: compiles the CUDA kernel programs (kernels/cuda, as
// embedded in the library, or those of $BURN_CUDA_KERNEL_DIR) with NVRTC for ARCH (default
// sm_90; a virtual architecture such as compute_90 stops at PTX, without ptxas), without a GPU,
// and prints NVRTC's log for each that fails. Exit status 1 if any fails. CI runs it for
// compute_90 (the test cuda_kernels_compile), so kernels that do not compile fail the build's
// tests even on machines without a GPU.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "runtime.hpp"

int main(int argc, char** argv) {
    // Compile, never read or write the disk cache: the check must see NVRTC's verdict.
    setenv("BURN_CUDA_CACHE", "off", 1);
    const std::string arch = argc > 1 ? argv[1] : "sm_90";
    std::vector<std::string> programs;
    for (int i = 2; i < argc; ++i) programs.emplace_back(argv[i]);
    if (programs.empty()) programs = burn::cuda::program_names();
    int failed = 0;
    for (const auto& p : programs) {
        try {
            const auto cubin = burn::cuda::compile_program(p, arch);
            std::cout << "ok     " << p << " (" << cubin.size() << " bytes of " << arch
                      << " code)\n";
        } catch (const std::exception& e) {
            std::cout << "FAILED " << p << ": " << e.what() << "\n";
            ++failed;
        }
    }
    std::cout << programs.size() - failed << " of " << programs.size() << " programs compiled\n";
    return failed ? 1 : 0;
}

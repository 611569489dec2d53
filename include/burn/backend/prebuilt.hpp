// SPDX-License-Identifier: MIT OR Apache-2.0
// The instances that the backends' libraries compile once ("prebuilt"), declared
// `extern template` so that users' files do not instantiate and optimise them again:
//   Autodiff<Cpu<float>>     in libburn_cpu    (backends/cpu/src/prebuilt.cpp)
//   Autodiff<Vulkan<>>       in libburn_vulkan (backends/vulkan/src/prebuilt.cpp)
//   Autodiff<Cuda<>>         in libburn_cuda   (backends/cuda/src/prebuilt.cpp)
// The headers of both templates of an instance include this file at their end (no include
// guard on purpose), so a declaration appears once both are defined, whatever the include order,
// and Autodiff does not depend on any backend.
#if defined(BURN_AUTODIFF_DEFINED) && defined(BURN_CPU_DEFINED) && \
    !defined(BURN_PREBUILT_AUTODIFF_CPU)
#define BURN_PREBUILT_AUTODIFF_CPU
namespace burn {
extern template struct Autodiff<Cpu<float>>;
}  // namespace burn
#endif

#if defined(BURN_AUTODIFF_DEFINED) && defined(BURN_VULKAN_DEFINED) && \
    !defined(BURN_PREBUILT_AUTODIFF_VULKAN)
#define BURN_PREBUILT_AUTODIFF_VULKAN
namespace burn {
extern template struct Autodiff<Vulkan<>>;
}  // namespace burn
#endif

#if defined(BURN_AUTODIFF_DEFINED) && defined(BURN_CUDA_DEFINED) && \
    !defined(BURN_PREBUILT_AUTODIFF_CUDA)
#define BURN_PREBUILT_AUTODIFF_CUDA
namespace burn {
extern template struct Autodiff<Cuda<>>;
}  // namespace burn
#endif

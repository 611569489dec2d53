// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared helpers of the typed conformance suite: the list of backends under test, PyTorch
// fixtures (JSON written by tests/fixtures/gen_fixtures.py) and comparison helpers.
#pragma once

#include <gtest/gtest.h>

#include <burn/backend/cpu.hpp>
#ifdef BURN_TEST_VULKAN
#include <burn/backend/vulkan.hpp>
#endif
#ifdef BURN_TEST_CUDA
#include <burn/backend/cuda.hpp>
#endif
#ifdef BURN_TEST_FUSION
#include <burn/fusion/fusion.hpp>
#endif
#include <array>
#include <burn/burn.hpp>
#include <burn/config/json.hpp>  // opt-in JSON interop: configs <-> nlohmann::json
#include <burn/data/json.hpp>    // opt-in: InMemDataset::from_json_rows
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace burn::testing {

/// Every backend the suite runs on. A new backend adds one line here. The Vulkan and CUDA
/// backends' instances of the suite are separate executables (burn_tensor_tests_vulkan, built
/// with BURN_TEST_VULKAN; burn_tensor_tests_cuda, with BURN_TEST_CUDA), so that the CPU suite
/// does not depend on a GPU driver; so is the instance on Fusion<Cpu<float>>
/// (burn_tensor_tests_fusion, BURN_TEST_FUSION).
#if defined(BURN_TEST_VULKAN) && defined(BURN_TEST_FUSION)
// Fusion<Vulkan<>> (burn_tensor_tests_vulkan_fusion).
using Backends = ::testing::Types<Fusion<Vulkan<>>>;
#elif defined(BURN_TEST_VULKAN)
using Backends = ::testing::Types<Vulkan<>, Autodiff<Vulkan<>>>;
#elif defined(BURN_TEST_CUDA) && defined(BURN_TEST_FUSION)
// Fusion<Cuda<>> (burn_tensor_tests_cuda_fusion; Autodiff over it in the autodiff and nn
// instances).
using Backends = ::testing::Types<Fusion<Cuda<>>>;
#elif defined(BURN_TEST_CUDA) && defined(BURN_TEST_HALF)
// Every op on f16 and bf16 tensors on the GPU (burn_tensor_tests_cuda_half): the kernels that
// read half values themselves and those that run in f32 between casts.
using Backends = ::testing::Types<Cuda<f16>, Cuda<bf16>>;
#elif defined(BURN_TEST_CUDA)
using Backends = ::testing::Types<Cuda<>, Autodiff<Cuda<>>>;
#elif defined(BURN_TEST_FUSION)
// Autodiff over it runs in burn_autodiff_tests_fusion, burn_nn_tests_fusion and the random
// programs' gradient test.
using Backends = ::testing::Types<Fusion<Cpu<float>>>;
#elif defined(BURN_TEST_HALF)
// Every op on f16 and bf16 tensors (burn_tensor_tests_half): the CPU backend with half-precision
// default floats, compared with the f32 references at the dtype's tolerance.
using Backends = ::testing::Types<Cpu<f16>, Cpu<bf16>>;
#elif defined(BURN_TEST_SANITIZE)
// The sanitizer build (the `sanitize` preset, BURN_TEST_SANITIZE): Cpu<double> runs the same
// kernel templates as Cpu<float> and is tested by the default build.
using Backends = ::testing::Types<Cpu<float>, Autodiff<Cpu<float>>>;
#else
using Backends = ::testing::Types<Cpu<float>, Cpu<double>, Autodiff<Cpu<float>>>;
#endif

/// The float backend the module, nn and autodiff suites test (their "B"; `ADF` in gradcheck.hpp is
/// Autodiff<TestFloatBackend>): Cpu<float>, or Vulkan<> in their Vulkan instances (the executables
/// burn_nn_<x>_vulkan, burn_autodiff_tests_vulkan, built with BURN_TEST_VULKAN), or Cuda<> in
/// their CUDA instances (burn_nn_tests_cuda, burn_autodiff_tests_cuda, BURN_TEST_CUDA). Tests about
/// the CPU backend itself (f64 finite differences, its memory pool, its threads) keep Cpu<...>.
#if defined(BURN_TEST_VULKAN) && defined(BURN_TEST_FUSION)
using TestFloatBackend = Fusion<Vulkan<>>;
#elif defined(BURN_TEST_VULKAN)
using TestFloatBackend = Vulkan<>;
#elif defined(BURN_TEST_CUDA) && defined(BURN_TEST_FUSION)
using TestFloatBackend = Fusion<Cuda<>>;
#elif defined(BURN_TEST_CUDA)
using TestFloatBackend = Cuda<>;
#elif defined(BURN_TEST_FUSION)
using TestFloatBackend = Fusion<Cpu<float>>;
#else
using TestFloatBackend = Cpu<float>;
#endif

/// The backend under test with F = double, where its capabilities say it has f64 (a backend
/// template of <F, I>, as Cpu and Vulkan); Cpu<double> otherwise, on which no test runs: the
/// tests that need f64 skip first (BURN_REQUIRE_FLOAT64), so that they still compile.
template <class B>
struct Float64Of {
    using type = Cpu<double>;
};
template <template <class, class> class BK, class F, class I>
requires(capabilities<BK<F, I>>.float64) struct Float64Of<BK<F, I>> {
    using type = BK<double, I>;
};
/// The f64 backend of the finite-difference checks and other f64 references (gradcheck.hpp's AD
/// is Autodiff<F64Backend>).
using F64Backend = typename Float64Of<TestFloatBackend>::type;

/// The capability switches of the suites: a test needing what the backend under test lacks skips
/// with the reason instead of being compiled out per backend.
#define BURN_REQUIRE_CAPABILITY(cap, why)                             \
    if (!::burn::capabilities<::burn::testing::TestFloatBackend>.cap) \
    GTEST_SKIP() << ::burn::testing::TestFloatBackend::name() << " has no " #cap ": " why
/// f64 finite differences and f64 references run where the backend under test has f64.
#define BURN_REQUIRE_FLOAT64() BURN_REQUIRE_CAPABILITY(float64, "the test computes in f64")

#ifdef BURN_TEST_VULKAN
/// Skips every test of a Vulkan executable when there is no Vulkan device (CI without lavapipe),
/// as BURN_REQUIRE_VULKAN() does per test: a global environment whose SetUp skips. Registered
/// once per executable (an inline variable, whatever the number of files including this one).
class RequireVulkanEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        if (vulkan_devices().empty()) GTEST_SKIP() << "no Vulkan device";
    }
};
inline ::testing::Environment* const kRequireVulkanEnvironment =
    ::testing::AddGlobalTestEnvironment(new RequireVulkanEnvironment);
#endif

#ifdef BURN_TEST_CUDA
/// Skips every test of a CUDA executable when there is no usable GPU (CI), with CUDA's reason.
class RequireCudaEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        if (cuda_device_count() == 0) GTEST_SKIP() << cuda_unavailable_reason();
    }
};
inline ::testing::Environment* const kRequireCudaEnvironment =
    ::testing::AddGlobalTestEnvironment(new RequireCudaEnvironment);
#endif

/// Whether the backend's Int tensors hold 64-bit values (Cpu<F>: std::int64_t) or 32-bit ones
/// (Vulkan<>: std::int32_t). Tests of values beyond 32 bits run on 64-bit int backends only, and
/// check the same property at 32 bits (near 2^31) on the others.
template <class B>
inline constexpr bool int64_backend = sizeof(typename B::IntElem) == 8;

/// Whether the backend (or the backend an Autodiff decorator wraps) runs on the CPU. For the few
/// documented CPU-only behaviours (e.g. f32 scans accumulated in f64, as PyTorch's CPU kernels).
template <class B>
inline constexpr bool cpu_backend = std::is_same_v<typename B::Device, CpuDevice>;

/// The device name the tensor printout shows ("Cpu", "Vulkan(0)") for the default device.
template <class B>
std::string device_name() {
    return typename B::Device{}.to_string();
}

/// Readable test names: "cpu<f32>".
struct BackendNames {
    template <class B>
    static std::string GetName(int) {
        std::string n = B::name();
        for (auto& c : n)
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        return n;
    }
};

/// A fixture case: tests/fixtures/<file>.json -> cases[case_name]. Each case is an object
///   {"inputs": {name: TENSOR, ...}, "outputs": {name: TENSOR, ...}, "params": {...}}
/// with TENSOR = {"shape": [..], "dtype": "f32" | "f64" | "i64" | "bool", "data": [flat values]}
/// (NaN/inf written as the strings "nan", "inf", "-inf"). Throws if missing.
const nlohmann::json& fixture(std::string_view file, std::string_view case_name);

/// The path of a file under tests/fixtures ("pytorch/dtypes.pt").
std::string fixture_path(std::string_view relative);

/// The TensorData of one TENSOR object.
TensorData fixture_data(const nlohmann::json& tensor);

/// The input `name` of a case, as a tensor of the backend (values converted to its dtype).
template <class B, std::size_t D, class K = Float>
Tensor<B, D, K> fixture_input(std::string_view file, std::string_view case_name,
                              std::string_view name) {
    return Tensor<B, D, K>::from_data(
        fixture_data(fixture(file, case_name).at("inputs").at(std::string(name))));
}

/// A JSON array of N sizes (a fixture's "params" entry) as a std::array.
template <std::size_t N>
std::array<std::size_t, N> fixture_sizes(const nlohmann::json& j) {
    std::array<std::size_t, N> a{};
    for (std::size_t i = 0; i < N; ++i) a[i] = j.at(i).get<std::size_t>();
    return a;
}

/// The case names listed under params[group] of the case "index" of a fixture file (generators
/// that write many cases of one kind list them there). Throws if the list is missing or empty.
std::vector<std::string> fixture_case_list(std::string_view file, std::string_view group);

/// The output `name` of a case.
inline TensorData fixture_output(std::string_view file, std::string_view case_name,
                                 std::string_view name) {
    return fixture_data(fixture(file, case_name).at("outputs").at(std::string(name)));
}

/// Tolerance suited to the backend's float type (f64, f32, or the half types, whose results
/// also carry the rounding of the f32 reference's inputs to 11 (f16) or 8 (bf16) bits).
template <class B>
Tolerance tolerance() {
    using F = typename B::FloatElem;
    if constexpr (std::is_same_v<F, double>) return {1e-10, 1e-10};
    else if constexpr (std::is_same_v<F, f16>) return {4e-3, 4e-3};
    else if constexpr (std::is_same_v<F, bf16>) return {3e-2, 3e-2};
    else return {1e-5, 1e-5};
}

/// A float element type: float, double, burn::f16 or burn::bf16.
template <class E>
inline constexpr bool float_elem =
    std::is_floating_point_v<E> || std::is_same_v<E, f16> || std::is_same_v<E, bf16>;

/// `f32` on full-precision backends; on half-precision ones, four times the dtype's tolerance at
/// least: for results that sum many products, or whose inputs' rounding is amplified (sin of
/// values up to 10).
template <class B>
Tolerance loose_tolerance(Tolerance f32) {
    if constexpr (std::is_same_v<typename B::FloatElem, f16> ||
                  std::is_same_v<typename B::FloatElem, bf16>) {
        const Tolerance h = tolerance<B>();
        return {std::max(f32.atol, 4 * h.atol), std::max(f32.rtol, 4 * h.rtol)};
    } else {
        return f32;
    }
}

/// Whether the backend's default float type is f16 or bf16.
template <class B>
inline constexpr bool half_backend =
    std::is_same_v<typename B::FloatElem, f16> || std::is_same_v<typename B::FloatElem, bf16>;
/// Skips a test whose values are exact in f32 but not in the backend's half-precision floats
/// (integers above 2^11 / 2^8, sums of many terms, ties that rounding creates).
#define BURN_REQUIRE_FULL_PRECISION(B, why) \
    if constexpr (::burn::testing::half_backend<B>) GTEST_SKIP() << B::name() << ": " why

/// Compares values (as f64) with a tolerance; reports the first mismatch via gtest.
template <class B, std::size_t D, class K>
::testing::AssertionResult close_to(const Tensor<B, D, K>& actual, const TensorData& expected,
                                    Tolerance tol = tolerance<B>()) {
    try {
        actual.to_data().assert_approx_eq(expected, tol);
        return ::testing::AssertionSuccess();
    } catch (const Error& e) {
        return ::testing::AssertionFailure() << e.what();
    }
}

/// Exact comparison of values (dtype not compared), for ints and bools.
template <class B, std::size_t D, class K>
::testing::AssertionResult equal_to(const Tensor<B, D, K>& actual, const TensorData& expected) {
    try {
        actual.to_data().assert_eq(expected, false);
        return ::testing::AssertionSuccess();
    } catch (const Error& e) {
        return ::testing::AssertionFailure() << e.what();
    }
}

/// Expects `stmt` to throw burn::Error whose message contains `needle` (e.g. the op name).
#define EXPECT_BURN_ERROR(stmt, needle)                                              \
    do {                                                                             \
        try {                                                                        \
            stmt;                                                                    \
            ADD_FAILURE() << "expected burn::Error from: " #stmt;                    \
        } catch (const ::burn::Error& e) {                                           \
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)         \
                << "message: " << e.what() << "\nexpected to contain: " << (needle); \
        }                                                                            \
    } while (0)

}  // namespace burn::testing

// SPDX-License-Identifier: MIT OR Apache-2.0
// Light public headers: built without the tests' precompiled header, this file does not compile
// when a public header other than the opt-in JSON ones (burn/config/json.hpp, burn/data/json.hpp)
// includes nlohmann_json. The JSON code of configs is compiled once, in src/config.cpp; the
// safetensors header's JSON in src/record/safetensors.cpp.
#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <burn/record/pytorch.hpp>
#include <string>

#ifdef NLOHMANN_JSON_VERSION_MAJOR
#error "a public burn header includes nlohmann/json.hpp: keep JSON code in src/"
#endif

namespace burn::testing {
/// Configs still save and print with the light headers.
std::string light_headers_config_json() {
    return nn::LinearConfig{.d_input = 2, .d_output = 3}.to_json_string();
}
}  // namespace burn::testing

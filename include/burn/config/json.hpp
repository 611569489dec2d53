// SPDX-License-Identifier: MIT OR Apache-2.0
// nlohmann_json interop for configs (opt-in: the only public header that includes nlohmann):
//
//   #include <burn/config/json.hpp>
//   nlohmann::json j = config;                    // or nlohmann::ordered_json (declaration order)
//   auto same = j.get<MyConfig>();                // throws burn::Error naming the field
//   auto k = burn::config::to_json(config);       // nlohmann::ordered_json
//   auto again = burn::config::from_json<MyConfig>(k);
//
// The conversions are compiled once (src/config.cpp), as the rest of the config JSON code.
#pragma once

#include <nlohmann/json.hpp>
#include <type_traits>

#include "burn/config/config.hpp"

namespace burn::config {
namespace detail {
/// The JSON of the config at `config` (compiled in src/config.cpp).
nlohmann::ordered_json to_json(const TypeInfo& type, const void* config);
/// Merges `j` into the blank config at `out`; throws burn::Error naming the field.
void from_json(const TypeInfo& type, void* out, const nlohmann::ordered_json& j);
}  // namespace detail

/// The config as JSON (fields in declaration order).
template <Config T>
nlohmann::ordered_json to_json(const T& config) {
    return detail::to_json(detail::type_info<T>(), &config);
}

/// A config from JSON (nlohmann::json or nlohmann::ordered_json): absent fields keep their
/// defaults, unknown fields are ignored; throws burn::Error naming the field
/// ("TrainingConfig.model.d_model: missing required field").
template <Config T, class J>
T from_json(const J& j) {
    T out = detail::Access::blank<T>();
    if constexpr (std::is_same_v<J, nlohmann::ordered_json>) {
        detail::from_json(detail::type_info<T>(), &out, j);
    } else {
        detail::from_json(detail::type_info<T>(), &out, nlohmann::ordered_json(j));
    }
    return out;
}

}  // namespace burn::config

/// `nlohmann::json j = config;` and `j.get<MyConfig>()` (which throws burn::Error, not
/// nlohmann's exceptions, naming the field).
namespace nlohmann {
template <class T>
struct adl_serializer<T, std::enable_if_t<burn::config::Config<T>>> {
    template <class J>
    static void to_json(J& j, const T& config) {
        j = J(burn::config::to_json(config));
    }
    template <class J>
    static T from_json(const J& j) {
        return burn::config::from_json<T>(j);
    }
};
}  // namespace nlohmann

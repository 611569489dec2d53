// SPDX-License-Identifier: MIT OR Apache-2.0
// ParamId: the stable identity of a module parameter, kept in records and optimizer states. It
// belongs to the record layer (records store it; modules depend on records, not the reverse);
// burn::module::ParamId names the same class.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace burn::record {

/// Identifies a parameter across saves, loads, device moves and optimizer steps. A new id is
/// random (64 bits); records store it, so a loaded module keeps the ids it was saved with.
class ParamId {
public:
    /// A fresh, process-unique random id.
    ParamId();
    explicit constexpr ParamId(std::uint64_t value) : value_(value) {}
    constexpr std::uint64_t value() const { return value_; }
    /// 16 lowercase hex digits.
    std::string to_string() const;
    /// Parses to_string()'s form; throws burn::Error otherwise.
    static ParamId from_string(std::string_view s);
    friend constexpr auto operator<=>(const ParamId&, const ParamId&) = default;
    friend std::ostream& operator<<(std::ostream& os, const ParamId& id) {
        return os << id.to_string();
    }

private:
    std::uint64_t value_;
};

}  // namespace burn::record

namespace burn::module {
using record::ParamId;
}  // namespace burn::module

template <>
struct std::hash<burn::record::ParamId> {
    std::size_t operator()(const burn::record::ParamId& id) const noexcept {
        return std::hash<std::uint64_t>{}(id.value());
    }
};

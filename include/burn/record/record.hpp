// SPDX-License-Identifier: MIT OR Apache-2.0
// Record: the backend-independent state of a module (or an optimizer, a scheduler): a tree of
// named items. Leaves are tensors (TensorData + ParamId), scalars and strings; inner nodes are
// maps (named fields, in declaration order) and lists. Recorders turn records into bytes.
//
//   linear1            map
//   linear1.weight     tensor [784, 512] f32, id 3fa4...
//   linear1.bias       tensor [512] f32, id 91c0...
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "burn/record/param_id.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/error.hpp"

namespace burn::record {

/// A tensor leaf: its values (any dtype; recorders convert to their precision) and its id.
struct TensorItem {
    TensorData data;
    ParamId id{0};
};

/// One node of a record tree.
class Record {
public:
    using List = std::vector<Record>;
    using Map = std::vector<std::pair<std::string, Record>>;  ///< fields in declaration order
    /// The empty record (an absent optional field, a module with nothing to save).
    struct None {
        friend bool operator==(None, None) = default;
    };
    using Value =
        std::variant<None, TensorItem, double, std::int64_t, bool, std::string, List, Map>;

    Record() = default;
    Record(None) {}                                  // NOLINT(google-explicit-constructor)
    Record(TensorItem t) : value_(std::move(t)) {}   // NOLINT(google-explicit-constructor)
    Record(double v) : value_(v) {}                  // NOLINT
    Record(std::int64_t v) : value_(v) {}            // NOLINT
    Record(bool v) : value_(v) {}                    // NOLINT
    Record(std::string v) : value_(std::move(v)) {}  // NOLINT
    Record(List v) : value_(std::move(v)) {}         // NOLINT
    Record(Map v) : value_(std::move(v)) {}          // NOLINT

    const Value& value() const { return value_; }
    Value& value() { return value_; }

    bool is_none() const { return std::holds_alternative<None>(value_); }
    bool is_tensor() const { return std::holds_alternative<TensorItem>(value_); }
    bool is_map() const { return std::holds_alternative<Map>(value_); }
    bool is_list() const { return std::holds_alternative<List>(value_); }

    /// The alternative T, or burn::Error naming `path` and what was found.
    template <class T>
    const T& as(std::string_view path) const {
        const T* v = std::get_if<T>(&value_);
        BURN_CHECK(v != nullptr, path.empty() ? "record" : path, ": expected ", kind_name<T>(),
                   ", found ", kind());
        return *v;
    }
    template <class T>
    T& as(std::string_view path) {
        return const_cast<T&>(std::as_const(*this).template as<T>(path));
    }

    /// The field `name` of a map record, or nullptr.
    const Record* field(std::string_view name) const {
        if (const auto* m = std::get_if<Map>(&value_))
            for (const auto& [k, v] : *m)
                if (k == name) return &v;
        return nullptr;
    }
    /// Adds a field to a map record (a None record becomes an empty map first).
    Record& add(std::string name, Record value) {
        if (is_none()) value_ = Map{};
        auto& m = std::get<Map>(value_);
        m.emplace_back(std::move(name), std::move(value));
        return m.back().second;
    }

    /// "tensor", "map", ...: for error messages.
    std::string kind() const {
        return std::visit(
            [](const auto& v) { return std::string(kind_name<std::decay_t<decltype(v)>>()); },
            value_);
    }
    template <class T>
    static constexpr std::string_view kind_name() {
        if constexpr (std::is_same_v<T, None>) return "nothing";
        else if constexpr (std::is_same_v<T, TensorItem>) return "a tensor";
        else if constexpr (std::is_same_v<T, double>) return "a float";
        else if constexpr (std::is_same_v<T, std::int64_t>) return "an integer";
        else if constexpr (std::is_same_v<T, bool>) return "a bool";
        else if constexpr (std::is_same_v<T, std::string>) return "a string";
        else if constexpr (std::is_same_v<T, List>) return "a list";
        else return "a map";
    }

    /// Joins a path and a field name with a dot ("" + "linear1" = "linear1").
    static std::string join(std::string_view path, std::string_view name) {
        if (path.empty()) return std::string(name);
        std::string s(path);
        s += '.';
        s += name;
        return s;
    }

private:
    Value value_;
};

}  // namespace burn::record

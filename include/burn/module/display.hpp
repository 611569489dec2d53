// SPDX-License-Identifier: MIT OR Apache-2.0
// Module display: a module's structure at a glance (Burn's ModuleDisplay).
//
//   std::cout << model;                          // or burn::module::to_string(model, settings)
//
//   Net {
//     input: Affine {
//       weight: Param[shape=[4, 3], dtype=f32]
//       bias: Param[shape=[3], dtype=f32]
//       params: 15
//     }
//     scale: Scale
//     params: 15
//   }
//
// Every module prints its simplified type name and one line per field: sub-modules nest, lists of
// modules number their elements, absent optionals show None, parameters, running states and
// constant tensors show their shape and element type, and a module with parameters ends with
// `params: N`. Plain constants are shown when DisplaySettings::show_all_attributes is set.
//
// A module customises its own display (and that of its children) with either or both of
//   burn::module::DisplaySettings display_settings(const burn::module::DisplaySettings&) const;
//   burn::module::DisplaySettings display_settings() const;          // replaces them all
//   void display_content(burn::module::DisplayContent& c) const;     // c.add("name", value)
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <ranges>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#define BURN_DISPLAY_HAS_CXXABI 1
#endif

#include "burn/module/module.hpp"

namespace burn::module {

/// How a module is displayed. Aggregate (designated initialisers work) with Burn's fluent setters.
struct DisplaySettings {
    /// Also show plain constants (ints, doubles, strings, Ignored<T>...), not only the state.
    bool show_all_attributes = false;
    /// One line per field (false: `Name {a: x, b: y, params: N}` on one line).
    bool new_line_after_attribute = true;
    /// End each module (and list of modules) holding parameters with `params: N`.
    bool show_num_parameters = true;
    /// Spaces added per nesting level.
    std::size_t indentation_size = 2;
    /// Show the ParamId of parameters and running states.
    bool show_param_id = false;

    [[nodiscard]] constexpr DisplaySettings with_show_all_attributes(bool v) const {
        DisplaySettings s = *this;
        s.show_all_attributes = v;
        return s;
    }
    [[nodiscard]] constexpr DisplaySettings with_new_line_after_attribute(bool v) const {
        DisplaySettings s = *this;
        s.new_line_after_attribute = v;
        return s;
    }
    [[nodiscard]] constexpr DisplaySettings with_show_num_parameters(bool v) const {
        DisplaySettings s = *this;
        s.show_num_parameters = v;
        return s;
    }
    [[nodiscard]] constexpr DisplaySettings with_indentation_size(std::size_t v) const {
        DisplaySettings s = *this;
        s.indentation_size = v;
        return s;
    }
    [[nodiscard]] constexpr DisplaySettings with_show_param_id(bool v) const {
        DisplaySettings s = *this;
        s.show_param_id = v;
        return s;
    }
    friend constexpr bool operator==(const DisplaySettings&, const DisplaySettings&) = default;
};

class DisplayContent;

namespace detail {

/// "ns::Outer<int>::Inner<burn::Cpu<float> >" -> "Inner": the demangled name without namespaces,
/// enclosing classes or functions, and template arguments.
inline std::string simplify_type_name(std::string_view full) {
    std::string flat;  // the name with every <...> and (...) group removed
    int depth = 0;
    for (char c : full) {
        if (c == '<' || c == '(') ++depth;
        else if (c == '>' || c == ')') depth = depth > 0 ? depth - 1 : 0;
        else if (depth == 0) flat += c;
    }
    const auto colons = flat.rfind("::");
    std::string name = colons == std::string::npos ? flat : flat.substr(colons + 2);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    return name.empty() ? std::string(full) : name;
}

inline std::string demangle(const char* mangled) {
#ifdef BURN_DISPLAY_HAS_CXXABI
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                               std::free);
    if (status == 0 && out) return out.get();
#endif
    return mangled;
}

/// The simplified name of T ("Net" for burn::testing::Net<burn::Cpu<float>>).
template <class T>
const std::string& type_name() {
    static const std::string name = simplify_type_name(demangle(typeid(T).name()));
    return name;
}

template <class T>
struct is_state_field : std::false_type {};

/// Fields displayed as module state (always shown): parameters, running states, constant tensors,
/// sub-modules, and vectors / optionals of those. Everything else is a constant.
template <class T>
inline constexpr bool displays_as_state_v = is_param_v<T> || is_running_state_v<T> || is_tensor_v<T> ||
                                            Module<T> || is_state_field<T>::value;
template <class T, class A>
struct is_state_field<std::vector<T, A>> : std::bool_constant<displays_as_state_v<T>> {};
template <class T>
struct is_state_field<std::optional<T>> : std::bool_constant<displays_as_state_v<T>> {};

// Poison pill: ordinary lookup finds this (never viable); argument-dependent lookup finds the
// function that BURN_CONFIG_ENUM(Type, values...) declares next to the enum.
void burn_config_enum_values() = delete;
/// Enums listed with BURN_CONFIG_ENUM (burn/config/config.hpp): displayed by name.
template <class E>
concept ListedEnum = std::is_enum_v<E> && requires(E e) { burn_config_enum_values(e); };
template <class T>
concept ScopedEnum = std::is_enum_v<T> && !std::is_convertible_v<T, std::underlying_type_t<T>>;
template <class T>
concept Streamable = requires(std::ostream& os, const T& v) { os << v; };

/// A constant's value: strings as they are, enums listed with BURN_CONFIG_ENUM by name, streamable
/// values with operator<<, optionals as their value or None, ranges as [a, b], other enums as
/// Type(n), anything else as its type name.
template <class T>
std::string format_value(const T& v) {
    if constexpr (std::is_convertible_v<const T&, std::string_view>) {
        return std::string(std::string_view(v));
    } else if constexpr (ListedEnum<T>) {
        for (const auto& [value, name] : burn_config_enum_values(v))
            if (value == v) return std::string(name);
        return type_name<T>() + "(" + std::to_string(static_cast<long long>(v)) + ")";
    } else if constexpr (is_ignored_v<T>) {
        return format_value(v.value);
    } else if constexpr (is_optional_v<T>) {
        return v ? format_value(*v) : std::string("None");
    } else if constexpr (std::is_enum_v<T> && !(ScopedEnum<T> && Streamable<T>)) {
        // Unscoped enums stream as their number whether or not they have an operator<<.
        return type_name<T>() + "(" + std::to_string(static_cast<long long>(v)) + ")";
    } else if constexpr (Streamable<T>) {
        std::ostringstream os;
        os << std::boolalpha << v;
        return os.str();
    } else if constexpr (std::ranges::input_range<const T>) {
        std::string s = "[";
        bool first = true;
        for (const auto& e : v) {
            if (!first) s += ", ";
            first = false;
            s += format_value(e);
        }
        return s + "]";
    } else {
        return type_name<T>();
    }
}

/// The parameter count of any field (0 for constants).
template <class F>
std::size_t count_params(const F& field) {
    std::size_t n = 0;
    for_each_leaf(field, "", [&](std::string_view, const auto& leaf) {
        if constexpr (is_param_v<std::decay_t<decltype(leaf)>>) n += leaf.num_elements();
    });
    return n;
}

/// The settings a module uses for itself and its children, given its parent's.
template <class M>
DisplaySettings settings_for(const M& m, const DisplaySettings& inherited) {
    if constexpr (requires { { m.display_settings(inherited) } -> std::convertible_to<DisplaySettings>; })
        return m.display_settings(inherited);
    else if constexpr (requires { { m.display_settings() } -> std::convertible_to<DisplaySettings>; })
        return m.display_settings();
    else
        return inherited;
}

template <class M>
std::string format_module(const M& m, const DisplaySettings& inherited, const std::string& indent);
template <class F>
std::optional<std::string> format_field(const F& field, const DisplaySettings& s, const std::string& indent,
                                        bool show_constants);

}  // namespace detail

/// The entries of one module's display, filled by the module's `display_content` hook (Burn's
/// Content). Values are formatted as fields are: modules nest, parameters show their shape, and
/// constants show their value (always: an entry added here is shown whatever the settings).
class DisplayContent {
public:
    DisplayContent(DisplaySettings settings, std::string indent)
        : settings_(settings),
          indent_(std::move(indent)),
          child_indent_(indent_ + std::string(settings.indentation_size, ' ')) {}

    /// Adds `name: value`.
    template <class T>
    DisplayContent& add(std::string_view name, const T& value) {
        entries_.emplace_back(std::string(name), *detail::format_field(value, settings_, child_indent_, true));
        return *this;
    }
    /// Adds the fields of `module` as they are shown by default (constants only with
    /// show_all_attributes): for a hook that adds entries to the usual list.
    template <Module M>
    DisplayContent& add_fields(const M& module) {
        M::burn_for_each_field(module, [&](std::string_view name, const auto& field) {
            if (auto s = detail::format_field(field, settings_, child_indent_, settings_.show_all_attributes))
                entries_.emplace_back(std::string(name), std::move(*s));
        });
        return *this;
    }
    /// Replaces the name printed before the entries (the module's simplified type name).
    DisplayContent& set_type_name(std::string name) {
        type_name_ = std::move(name);
        return *this;
    }
    /// The settings in force for this module (after its own display_settings()).
    const DisplaySettings& settings() const { return settings_; }

    const std::optional<std::string>& type_name() const { return type_name_; }
    const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

    /// `name {entries}`, one per line or on one line; the name alone without entries.
    std::string render(std::string_view default_name) const {
        std::string out = type_name_ ? *type_name_ : std::string(default_name);
        if (entries_.empty()) return out;
        if (settings_.new_line_after_attribute) {
            out += " {\n";
            for (const auto& [k, v] : entries_) out += child_indent_ + k + ": " + v + "\n";
            out += indent_ + "}";
        } else {
            out += " {";
            for (std::size_t i = 0; i < entries_.size(); ++i) {
                if (i) out += ", ";
                out += entries_[i].first + ": " + entries_[i].second;
            }
            out += "}";
        }
        return out;
    }

    /// Adds `params: n` (when the settings ask for it and n > 0).
    void add_param_count(std::size_t n) {
        if (settings_.show_num_parameters && n > 0) entries_.emplace_back("params", std::to_string(n));
    }

private:
    DisplaySettings settings_;
    std::string indent_;        // indentation of the closing brace
    std::string child_indent_;  // indentation of the entries
    std::optional<std::string> type_name_;
    std::vector<std::pair<std::string, std::string>> entries_;
};

namespace detail {

template <class T>
std::string format_tensor_leaf(std::string_view kind, const T& tensor, const ParamId* id, const DisplaySettings& s) {
    std::ostringstream os;
    os << kind << "[shape=" << tensor.shape() << ", dtype=" << tensor.dtype();
    if (id && s.show_param_id) os << ", id=" << *id;
    os << "]";
    return os.str();
}

/// A field as displayed, or nullopt when hidden (a constant, unless `show_constants`).
template <class F>
std::optional<std::string> format_field(const F& field, const DisplaySettings& s, const std::string& indent,
                                        bool show_constants) {
    if constexpr (is_param_v<F>) {
        return format_tensor_leaf("Param", field.val(), &field.id(), s);
    } else if constexpr (is_running_state_v<F>) {
        const ParamId id = field.id();
        return format_tensor_leaf("RunningState", field.value(), &id, s);
    } else if constexpr (is_tensor_v<F>) {
        return format_tensor_leaf("Tensor", field, nullptr, s);
    } else if constexpr (Module<F>) {
        return format_module(field, s, indent);
    } else if constexpr (is_vector_v<F> && displays_as_state_v<F>) {
        DisplayContent c(s, indent);
        for (std::size_t i = 0; i < field.size(); ++i) c.add(std::to_string(i), field[i]);
        c.add_param_count(count_params(field));
        return c.render("vector[" + std::to_string(field.size()) + "]");
    } else if constexpr (is_optional_v<F> && displays_as_state_v<F>) {
        if (!field) return std::string("None");
        return format_field(*field, s, indent, true);
    } else {
        if (!show_constants) return std::nullopt;
        return format_value(field);
    }
}

template <class M>
std::string format_module(const M& m, const DisplaySettings& inherited, const std::string& indent) {
    DisplayContent c(settings_for(m, inherited), indent);
    if constexpr (requires { m.display_content(c); }) m.display_content(c);
    else c.add_fields(m);
    c.add_param_count(count_params(m));
    return c.render(type_name<M>());
}

}  // namespace detail

/// The module's structure as text (see the top of this header for the layout).
template <Module M>
std::string to_string(const M& module, const DisplaySettings& settings = {}) {
    return detail::format_module(module, settings, std::string{});
}

/// `std::cout << model`: to_string(model) with the default settings. Found by argument-dependent
/// lookup for modules over a burn backend (Net<burn::Cpu<>>) through the using-declaration in
/// namespace burn below; other modules use `using burn::operator<<;` or to_string.
template <Module M>
std::ostream& operator<<(std::ostream& os, const M& module) {
    return os << module::to_string(module);
}

}  // namespace burn::module

namespace burn {
// The same function template (not a second one), so that a module whose associated namespaces
// include both burn and burn::module is not ambiguous.
using module::operator<<;
}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// Configs: plain aggregates with default member initialisers, saved and loaded as JSON.
//
//   struct MyModuleConfig {
//       burn::Required<std::size_t> d_model;     // no default: omitting it does not compile
//       burn::Required<std::size_t> d_ff;
//       double dropout = 0.1;
//       BURN_CONFIG(MyModuleConfig, d_model, d_ff, dropout)
//   };
//   auto c = MyModuleConfig{.d_model = 512, .d_ff = 2048};
//   c.save("config.json");
//   auto same = MyModuleConfig::load("config.json");
//
// BURN_CONFIG(Type, fields...) lists the fields once (all of them, in declaration order) and adds
// save / load / from_json_string / to_json_string / with, operator== and operator<< (the JSON).
// Field types: bool, integers, floating point, std::string, enums (by name with
// BURN_CONFIG_ENUM, otherwise as their integer value), std::optional (null when empty),
// std::vector, std::array, std::map<std::string, T>, nested configs, std::variant of configs,
// and Required<T> of these.
//
// Loading keeps the default of every field the JSON leaves out (files written by an older
// version still load), ignores fields it does not know, and throws burn::Error naming the field
// ("TrainingConfig.model.d_model: missing required field", "TrainingConfig.batch_size: expected
// an unsigned integer, found string \"64\"").
//
// This header holds no JSON code: BURN_CONFIG describes the fields as data (a
// config::detail::TypeInfo per field type: a kind, sizes and a few small function pointers), and
// src/config.cpp, compiled once, turns such descriptions into JSON and back. Conversions to and
// from JSON values of the JSON library (`json j = config`, `j.get<MyConfig>()`) are in the
// opt-in <burn/config/json.hpp>.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "burn/detail/pp.hpp"
#include "burn/detail/traits.hpp"
#include "burn/tensor/error.hpp"

// ---------------------------------------------------------------------------- macros
#define BURN_CONFIG_COUNT_FIELD_(Type, field) +1
#define BURN_CONFIG_VISIT_FIELD_(Type, field) burn_f(#field, burn_self.field);
#define BURN_CONFIG_FIELD_INFO_(Type, field) \
    ::burn::config::detail::field_info<&Type::field>(#field),
#define BURN_CONFIG_ENUM_ENTRY_(Type, value) std::pair<Type, std::string_view>{Type::value, #value},

/// Makes the aggregate `Type` a config. Put it in the struct's body, listing every field in
/// declaration order. Adds:
///   void save(path) const               pretty JSON, written to a temporary file then renamed
///   static Type load(path)
///   static Type from_json_string(text)
///   std::string to_json_string() const  pretty JSON (fields in declaration order)
///   Type with(&Type::field, value) const   a copy with one field changed
///   operator==, operator<< (prints the JSON)
/// The members that read or write JSON call compiled code (src/config.cpp) with the description
/// made by burn_config_info(): including a config instantiates no JSON code.
#define BURN_CONFIG(Type, ...)                                                                    \
    static constexpr std::string_view burn_config_name = #Type;                                   \
    static constexpr std::size_t burn_config_field_count =                                        \
        0 BURN_PP_FOR_EACH(BURN_CONFIG_COUNT_FIELD_, Type, __VA_ARGS__);                          \
    /* f(name, field) for each field; BurnSelf may be const. */                                   \
    template <class BurnSelf, class BurnF>                                                        \
    static void burn_config_for_each_field([[maybe_unused]] BurnSelf& burn_self,                  \
                                           [[maybe_unused]] BurnF&& burn_f) {                     \
        BURN_PP_FOR_EACH(BURN_CONFIG_VISIT_FIELD_, Type, __VA_ARGS__)                             \
    }                                                                                             \
    /* The fields' names, types and places, for the compiled JSON code. */                        \
    static const ::burn::config::detail::TypeInfo& burn_config_info() noexcept {                  \
        static constexpr ::std::array<::burn::config::detail::FieldInfo, burn_config_field_count> \
            burn_fields{{BURN_PP_FOR_EACH(BURN_CONFIG_FIELD_INFO_, Type, __VA_ARGS__)}};          \
        static constexpr ::burn::config::detail::ConfigInfo burn_info{                            \
            {::burn::config::detail::Kind::config},                                               \
            burn_config_name,                                                                     \
            burn_fields.data(),                                                                   \
            burn_fields.size()};                                                                  \
        return burn_info;                                                                         \
    }                                                                                             \
    void save(const std::filesystem::path& burn_path) const {                                     \
        ::burn::config::save(*this, burn_path);                                                   \
    }                                                                                             \
    static Type load(const std::filesystem::path& burn_path) {                                    \
        return ::burn::config::load<Type>(burn_path);                                             \
    }                                                                                             \
    static Type from_json_string(std::string_view burn_text) {                                    \
        return ::burn::config::from_json_string<Type>(burn_text);                                 \
    }                                                                                             \
    std::string to_json_string() const { return ::burn::config::to_json_string(*this); }          \
    template <class BurnField, class BurnValue>                                                   \
    Type with(BurnField Type::*burn_member, BurnValue&& burn_value) const {                       \
        Type burn_copy = *this;                                                                   \
        burn_copy.*burn_member = std::forward<BurnValue>(burn_value);                             \
        return burn_copy;                                                                         \
    }                                                                                             \
    friend bool operator==(const Type&, const Type&) = default;                                   \
    friend std::ostream& operator<<(std::ostream& burn_os, const Type& burn_config) {             \
        return ::burn::config::detail::print(burn_os, Type::burn_config_info(), &burn_config);    \
    }

/// Saves the enum `Type` by the names of its values (at namespace scope, in the enum's
/// namespace; list every value): BURN_CONFIG_ENUM(Activation, relu, gelu, tanh).
/// Without it an enum is saved as its integer value.
#define BURN_CONFIG_ENUM(Type, ...)                                                      \
    [[maybe_unused]] constexpr auto burn_config_enum_values(Type) {                      \
        return std::array{BURN_PP_FOR_EACH(BURN_CONFIG_ENUM_ENTRY_, Type, __VA_ARGS__)}; \
    }

namespace burn {

template <class T>
class Required;

namespace config::detail {
struct Access;

struct NoListElement {};
template <class T>
struct list_element {
    using type = NoListElement;
};
template <class T>
requires requires { typename T::value_type; }
struct list_element<T> {
    using type = typename T::value_type;
};
/// The element type of a container (what `{a, b, c}` holds), or a type nothing converts to.
template <class T>
using list_element_t = typename list_element<T>::type;

/// N for std::array<E, N>, 0 for anything else.
template <class T>
inline constexpr std::size_t std_array_size_v = 0;
template <class E, std::size_t N>
inline constexpr std::size_t std_array_size_v<std::array<E, N>> = N;

/// The integer types std::cmp_equal takes (not bool, not the character types).
template <class T>
concept plain_integer =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
    !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> &&
    !std::is_same_v<T, char32_t>;
}  // namespace config::detail

template <class T>
inline constexpr bool is_required_v = false;
template <class T>
inline constexpr bool is_required_v<Required<T>> = true;

/// A config field without a default: `Required<T>` cannot be default-constructed, so a
/// designated initialiser that leaves the field out does not compile. It is built implicitly from
/// a T (or anything convertible to T) and reads as a `const T&`; `*r`, `r->`, `r.get()` reach the
/// value (use them where an implicit conversion does not happen, e.g. `cfg.model->d_model`).
template <class T>
class Required {
public:
    using value_type = T;

    template <class U = T>
    requires(!std::same_as<std::remove_cvref_t<U>, Required> && std::is_convertible_v<U&&, T>)
        Required(U&& value)  // NOLINT(google-explicit-constructor): `.d_model = 512` must work
        : value_(std::in_place, std::forward<U>(value)) {}

    /// `.layers = {64, 32}` for a Required container.
    Required(std::initializer_list<config::detail::list_element_t<T>> values) requires
        std::constructible_from<T, std::initializer_list<config::detail::list_element_t<T>>>
        : value_(std::in_place, values) {}

    /// `.kernel_size = {3, 3}` for a Required std::array<E, N>: exactly N values.
    template <class... U>
    requires(sizeof...(U) > 1 && sizeof...(U) == config::detail::std_array_size_v<T> &&
             (std::is_convertible_v<U, config::detail::list_element_t<T>> && ...))
        Required(U... values)  // NOLINT(google-explicit-constructor)
        : value_(std::in_place, T{static_cast<config::detail::list_element_t<T>>(values)...}) {}

    const T& get() const { return *value_; }
    T& get() { return *value_; }
    const T& operator*() const { return *value_; }
    T& operator*() { return *value_; }
    const T* operator->() const { return &*value_; }
    T* operator->() { return &*value_; }
    operator const T&() const { return *value_; }  // NOLINT(google-explicit-constructor)

private:
    friend struct config::detail::Access;
    // Unset: only the loader makes these (config::detail::Access). Compilers show the next line
    // when an initializer leaves a Required field out; GCC and Clang name the field with
    // -Wmissing-field-initializers (part of -Wextra).
    Required() = default;  // a burn::Required<T> config field is missing from an initializer
    std::optional<T> value_;
};

// Comparisons and printing are templates outside the class: their first parameter only matches a
// Required (no implicit conversion), so `r == 5u`, `5u == r` and `r1 == r2` pick them over the
// built-in operators, and comparing containers of Required (found by ADL) cannot recurse.
template <class T, class U>
requires(!is_required_v<U> &&
         requires(const T& t, const U& u) {
             { t == u } -> std::convertible_to<bool>;
         }) bool
operator==(const Required<T>& a, const U& b) {
    if constexpr (config::detail::plain_integer<T> && config::detail::plain_integer<U>)
        return std::cmp_equal(a.get(), b);  // `d_model == 512` without a sign-compare warning
    else return a.get() == b;
}
template <class T, class U>
requires requires(const T& t, const U& u) {
    { t == u } -> std::convertible_to<bool>;
}
bool operator==(const Required<T>& a, const Required<U>& b) { return a == b.get(); }
template <class T>
requires requires(std::ostream& os, const T& v) { os << v; }
std::ostream& operator<<(std::ostream& os, const Required<T>& r) { return os << r.get(); }

namespace config {

/// A type with BURN_CONFIG(...).
template <class T>
concept Config = requires {
    { T::burn_config_name } -> std::convertible_to<std::string_view>;
    T::burn_config_field_count;
};

namespace detail {

// Poison pill: ordinary lookup finds this (never viable); ADL finds BURN_CONFIG_ENUM's function.
void burn_config_enum_values() = delete;

template <class E>
concept NamedEnum = std::is_enum_v<E> && requires(E e) {
    burn_config_enum_values(e);
};

using burn::detail::is_optional_v;
using burn::detail::is_vector_v;
template <class T>
inline constexpr bool is_array_v = false;
template <class T, std::size_t N>
inline constexpr bool is_array_v<std::array<T, N>> = true;
template <class T>
inline constexpr bool is_string_map_v = false;
template <class T, class C, class A>
inline constexpr bool is_string_map_v<std::map<std::string, T, C, A>> = true;
template <class T>
inline constexpr bool unsupported_v = false;

/// Configs with alternatives: std::variant<Configs...>, or a class derived from one (as
/// burn::nn::Initializer), saved by the alternative's name: "Ones" for an alternative without
/// fields, {"KaimingUniform": {"gain": 0.57, "fan_out_only": false}} otherwise.
template <class... A>
std::variant<A...> variant_base(const std::variant<A...>&);  // declared only: deduces the base
template <class T>
using variant_base_t = decltype(variant_base(std::declval<const T&>()));
template <class T>
concept ConfigVariant = requires(const T& t) {
    variant_base(t);
};

// ------------------------------------------------------------------ type descriptions
// What the compiled JSON code (src/config.cpp) knows of a field type: a TypeInfo, or a struct
// derived from it that the kind names, with the sizes and small functions it needs. They are
// constant objects made by type_info<T>() below; objects are passed as `void*` next to them.

/// The kinds of field types.
enum class Kind : std::uint8_t {
    boolean,      ///< bool (TypeInfo)
    integer,      ///< integers, and enums not listed with BURN_CONFIG_ENUM (IntegerInfo)
    floating,     ///< float, double, long double (FloatInfo)
    string,       ///< std::string (TypeInfo)
    named_enum,   ///< enums listed with BURN_CONFIG_ENUM (EnumInfo)
    optional,     ///< std::optional<T> (WrapperInfo)
    required,     ///< Required<T> (WrapperInfo)
    bool_vector,  ///< std::vector<bool> (TypeInfo)
    vector,       ///< std::vector<T> (SequenceInfo)
    array,        ///< std::array<T, N> (SequenceInfo)
    string_map,   ///< std::map<std::string, T> (MapInfo)
    config,       ///< a type with BURN_CONFIG (ConfigInfo)
    variant,      ///< std::variant of configs, or a class derived from one (VariantInfo)
};

struct TypeInfo {
    Kind kind;
};

/// How the description of an element type is reached: a function, so that a type may contain
/// itself (a config holding a std::vector of itself).
using TypeOf = const TypeInfo& (*)() noexcept;

struct IntegerInfo : TypeInfo {
    std::uint8_t bytes;  ///< 1, 2, 4 or 8
    bool is_signed;
};

enum class FloatType : std::uint8_t { f32, f64, extended };
struct FloatInfo : TypeInfo {
    FloatType type;  ///< float, double, long double
};

struct EnumName {
    std::int64_t value;  ///< the enum value converted to std::int64_t
    std::string_view name;
};
/// An enum listed with BURN_CONFIG_ENUM: its underlying type (IntegerInfo) and its values.
struct EnumInfo : IntegerInfo {
    const EnumName* names;
    std::size_t count;
};

/// std::optional<T> and Required<T>.
struct WrapperInfo : TypeInfo {
    TypeOf value;
    bool (*has_value)(const void*) noexcept;
    void* (*get)(void*) noexcept;  ///< the value; only when has_value
    /// Sets the value to a blank T (defaults, Required fields unset) and returns it.
    void* (*emplace_blank)(void*);
    void (*reset)(void*) noexcept;  ///< empties an optional; nullptr for Required
};

/// std::vector<T> (not bool) and std::array<T, N>.
struct SequenceInfo : TypeInfo {
    TypeOf value;
    std::size_t (*size)(const void*) noexcept;
    void* (*at)(void*, std::size_t) noexcept;
    void (*clear)(void*) noexcept;  ///< vectors only (nullptr for arrays)
    void* (*append_blank)(void*);   ///< appends a blank T and returns it; vectors only
};

/// std::map<std::string, T>.
struct MapInfo : TypeInfo {
    TypeOf value;
    /// Calls visit(context, key, value) for each entry, in the map's order.
    void (*for_each)(void* map, void* context, void (*visit)(void*, const std::string&, void*));
    void (*clear)(void*) noexcept;
    void* (*insert_blank)(void*, const std::string&);  ///< inserts key -> blank T, returns it
};

/// One field of a config.
struct FieldInfo {
    std::string_view name;
    TypeOf type;
    void* (*get)(void* config) noexcept;
};
/// A config: its name and its fields, in declaration order.
struct ConfigInfo : TypeInfo {
    std::string_view name;
    const FieldInfo* fields;
    std::size_t field_count;
};

/// A std::variant of configs (or a class derived from one).
struct VariantInfo : TypeInfo {
    const TypeOf* alternatives;  ///< each a ConfigInfo
    std::size_t count;
    std::size_t (*index)(const void*) noexcept;  ///< std::variant_npos when valueless
    void* (*get)(void*) noexcept;                ///< the active alternative
    void* (*emplace_blank)(void*, std::size_t);  ///< makes alternative i a blank config
};

/// The config machinery's back door: makes configs whose required fields are still unset (the
/// starting point of a load) and reads/sets those fields. Nothing else can make an unset one.
struct Access {
    template <class T>
    static T blank() {
        return T{};
    }
    template <class T>
    static bool is_set(const Required<T>& r) {
        return r.value_.has_value();
    }
    template <class T>
    static void set(Required<T>& r, T value) {
        r.value_.emplace(std::move(value));
    }
};

template <class T>
const TypeInfo& type_info() noexcept;

/// The VariantInfo of T, a std::variant of configs or a class derived from one (its alternatives
/// are numbered I...).
template <class T, std::size_t... I>
const TypeInfo& variant_info(std::index_sequence<I...>) noexcept {
    using V = variant_base_t<T>;
    static_assert((Config<std::variant_alternative_t<I, V>> && ...),
                  "BURN_CONFIG: the alternatives of a std::variant field must be configs");
    static constexpr std::array<TypeOf, sizeof...(I)> alternatives{
        &type_info<std::variant_alternative_t<I, V>>...};
    static constexpr std::array<void* (*)(void*), sizeof...(I)> emplace{+[](void* p) -> void* {
        using A = std::variant_alternative_t<I, V>;
        return &static_cast<V*>(static_cast<T*>(p))->template emplace<I>(Access::blank<A>());
    }...};
    static constexpr VariantInfo info{
        {Kind::variant},
        alternatives.data(),
        alternatives.size(),
        [](const void* p) noexcept {
            return static_cast<const V*>(static_cast<const T*>(p))->index();
        },
        [](void* p) noexcept {
            V& v = *static_cast<T*>(p);
            void* active = nullptr;
            ((active = active ? active : std::get_if<I>(&v)), ...);
            return active;
        },
        [](void* p, std::size_t i) { return emplace[i](p); }};
    return info;
}

/// The description of the field type T (a static_assert names the supported types).
template <class T>
const TypeInfo& type_info() noexcept {
    if constexpr (Config<T>) {
        return T::burn_config_info();
    } else if constexpr (ConfigVariant<T>) {
        return variant_info<T>(std::make_index_sequence<std::variant_size_v<variant_base_t<T>>>{});
    } else if constexpr (is_required_v<T>) {
        using V = typename T::value_type;
        static constexpr WrapperInfo info{
            {Kind::required},
            &type_info<V>,
            [](const void* p) noexcept { return Access::is_set(*static_cast<const T*>(p)); },
            [](void* p) noexcept -> void* { return &static_cast<T*>(p)->get(); },
            [](void* p) -> void* {
                Access::set(*static_cast<T*>(p), Access::blank<V>());
                return &static_cast<T*>(p)->get();
            },
            nullptr};
        return info;
    } else if constexpr (is_optional_v<T>) {
        using V = typename T::value_type;
        static constexpr WrapperInfo info{
            {Kind::optional},
            &type_info<V>,
            [](const void* p) noexcept { return static_cast<const T*>(p)->has_value(); },
            [](void* p) noexcept -> void* { return &**static_cast<T*>(p); },
            [](void* p) -> void* { return &static_cast<T*>(p)->emplace(Access::blank<V>()); },
            [](void* p) noexcept { static_cast<T*>(p)->reset(); }};
        return info;
    } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
        static constexpr TypeInfo info{Kind::bool_vector};
        return info;
    } else if constexpr (is_vector_v<T>) {
        using V = typename T::value_type;
        static constexpr SequenceInfo info{
            {Kind::vector},
            &type_info<V>,
            [](const void* p) noexcept { return static_cast<const T*>(p)->size(); },
            [](void* p, std::size_t i) noexcept -> void* { return &(*static_cast<T*>(p))[i]; },
            [](void* p) noexcept { static_cast<T*>(p)->clear(); },
            [](void* p) -> void* { return &static_cast<T*>(p)->emplace_back(Access::blank<V>()); }};
        return info;
    } else if constexpr (is_array_v<T>) {
        static constexpr SequenceInfo info{
            {Kind::array},
            &type_info<typename T::value_type>,
            [](const void*) noexcept { return std::tuple_size_v<T>; },
            [](void* p, std::size_t i) noexcept -> void* { return &(*static_cast<T*>(p))[i]; },
            nullptr,
            nullptr};
        return info;
    } else if constexpr (is_string_map_v<T>) {
        using V = typename T::mapped_type;
        static constexpr MapInfo info{
            {Kind::string_map},
            &type_info<V>,
            [](void* p, void* context, void (*visit)(void*, const std::string&, void*)) {
                for (auto& [key, value] : *static_cast<T*>(p)) visit(context, key, &value);
            },
            [](void* p) noexcept { static_cast<T*>(p)->clear(); },
            [](void* p, const std::string& key) -> void* {
                return &static_cast<T*>(p)->emplace(key, Access::blank<V>()).first->second;
            }};
        return info;
    } else if constexpr (std::is_same_v<T, bool>) {
        static constexpr TypeInfo info{Kind::boolean};
        return info;
    } else if constexpr (std::is_integral_v<T>) {
        static_assert(sizeof(T) <= 8, "BURN_CONFIG: integers of more than 64 bits are not saved");
        static constexpr IntegerInfo info{{Kind::integer}, sizeof(T), std::is_signed_v<T>};
        return info;
    } else if constexpr (std::is_floating_point_v<T>) {
        static constexpr FloatInfo info{{Kind::floating},
                                        std::is_same_v<T, float>    ? FloatType::f32
                                        : std::is_same_v<T, double> ? FloatType::f64
                                                                    : FloatType::extended};
        return info;
    } else if constexpr (std::is_same_v<T, std::string>) {
        static constexpr TypeInfo info{Kind::string};
        return info;
    } else if constexpr (NamedEnum<T>) {
        using U = std::underlying_type_t<T>;
        static constexpr auto values = burn_config_enum_values(T{});
        static constexpr auto names = [] {
            std::array<EnumName, values.size()> out{};
            for (std::size_t i = 0; i < values.size(); ++i)
                out[i] = {static_cast<std::int64_t>(values[i].first), values[i].second};
            return out;
        }();
        static constexpr EnumInfo info{
            {{Kind::named_enum}, sizeof(U), std::is_signed_v<U>}, names.data(), names.size()};
        return info;
    } else if constexpr (std::is_enum_v<T>) {
        return type_info<std::underlying_type_t<T>>();
    } else {
        static_assert(unsupported_v<T>,
                      "BURN_CONFIG: unsupported field type (use bool, integers, floating point, "
                      "std::string, enums, std::optional, std::vector, std::array, "
                      "std::map<std::string, T>, configs, std::variant of configs or Required<T> "
                      "of these)");
    }
}

template <class M>
struct member_pointer;
template <class C, class F>
struct member_pointer<F C::*> {
    using config = C;
    using field = F;
};

/// The FieldInfo of the field `Member` (a pointer to member) named `name`.
template <auto Member>
constexpr FieldInfo field_info(std::string_view name) noexcept {
    using M = member_pointer<decltype(Member)>;
    return {name, &type_info<typename M::field>, [](void* config) noexcept -> void* {
                return &(static_cast<typename M::config*>(config)->*Member);
            }};
}

// Compiled once in src/config.cpp. `config` points to an object of the type `type` describes;
// `out` to a blank one (Access::blank), which the JSON is merged into.
std::string to_json_string(const TypeInfo& type, const void* config);
void from_json_string(const TypeInfo& type, void* out, std::string_view text);
void save(const TypeInfo& type, const void* config, const std::filesystem::path& path);
void load(const TypeInfo& type, void* out, const std::filesystem::path& path);
/// Prints the JSON of to_json_string.
std::ostream& print(std::ostream& os, const TypeInfo& type, const void* config);

}  // namespace detail

/// Pretty JSON (2-space indent, no final newline).
template <Config T>
std::string to_json_string(const T& config) {
    return detail::to_json_string(detail::type_info<T>(), &config);
}

/// A config from JSON text: absent fields keep their defaults, unknown fields are ignored; throws
/// burn::Error naming the field ("Config::from_json_string: TrainingConfig.model.d_model: missing
/// required field").
template <Config T>
T from_json_string(std::string_view text) {
    T out = detail::Access::blank<T>();
    detail::from_json_string(detail::type_info<T>(), &out, text);
    return out;
}

/// Writes the pretty JSON to `path` atomically (temporary file in the same directory, flushed,
/// renamed over `path`). The directory must exist.
template <Config T>
void save(const T& config, const std::filesystem::path& path) {
    detail::save(detail::type_info<T>(), &config, path);
}

/// Reads a config saved by save(), as from_json_string does.
template <Config T>
T load(const std::filesystem::path& path) {
    T out = detail::Access::blank<T>();
    detail::load(detail::type_info<T>(), &out, path);
    return out;
}

/// The name of an enum value listed with BURN_CONFIG_ENUM ("relu").
template <detail::NamedEnum E>
std::string_view enum_name(E e) {
    for (const auto& [value, name] : burn_config_enum_values(e))
        if (value == e) return name;
    burn::detail::fail("config::enum_name: value ", static_cast<std::int64_t>(e),
                       " is not listed in its BURN_CONFIG_ENUM");
}

}  // namespace config
}  // namespace burn

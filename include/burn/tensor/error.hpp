// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace burn {

/// The one exception type of burn-cpp. Every message starts with the operation that failed
/// ("Tensor::reshape: ...") and names the shapes, dtypes, files or values involved.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

namespace detail {

template <class C>
concept ErrorChar =
    std::same_as<C, char> || std::same_as<C, signed char> || std::same_as<C, unsigned char>;
template <class I>
concept ErrorInteger = std::integral<I> && !std::same_as<I, bool> && !ErrorChar<I>;
/// Any other value: printed through its operator<<.
template <class T>
concept ErrorStreamed =
    !std::is_arithmetic_v<T> && !std::is_convertible_v<const T&, std::string_view>;

/// One piece of an error message, printed as `std::ostream <<` prints it (numbers in the stream's
/// default format): text, a number, a char, a bool, or any other value through its operator<<.
/// Pieces refer to the arguments of fail(), which outlive the message's construction.
class ErrorArg {
public:
    // Implicit: fail() converts each of its arguments.
    ErrorArg(std::string_view s) : kind_(Kind::Text), text_{s.data(), s.size()} {}  // NOLINT
    ErrorArg(const char* s) : ErrorArg(std::string_view(s)) {}                      // NOLINT
    ErrorArg(const std::string& s) : ErrorArg(std::string_view(s)) {}               // NOLINT
    ErrorArg(bool b) : kind_(Kind::Bool), b_(b) {}                                  // NOLINT
    template <ErrorChar C>
    ErrorArg(C c) : kind_(Kind::Char), c_(static_cast<char>(c)) {}  // NOLINT
    template <ErrorInteger I>
    ErrorArg(I v) : kind_(std::is_signed_v<I> ? Kind::Signed : Kind::Unsigned) {  // NOLINT
        if constexpr (std::is_signed_v<I>) i_ = v;
        else u_ = v;
    }
    template <std::floating_point F>
    ErrorArg(F v) : kind_(Kind::Float), f_(v) {}  // NOLINT
    template <ErrorStreamed T>
    ErrorArg(const T& v)  // NOLINT(google-explicit-constructor)
        : kind_(Kind::Streamed), streamed_{&v, [](std::ostream& os, const void* p) {
                                               os << *static_cast<const T*>(p);
                                           }} {}

    /// Appends the piece to `out`.
    void append_to(std::string& out) const;

private:
    enum class Kind : unsigned char { Text, Bool, Char, Signed, Unsigned, Float, Streamed };
    struct Text {
        const char* data;
        std::size_t size;
    };
    struct Streamed {
        const void* value;
        void (*print)(std::ostream&, const void*);
    };
    Kind kind_;
    union {
        Text text_;
        bool b_;
        char c_;
        long long i_;
        unsigned long long u_;
        long double f_;
        Streamed streamed_;
    };
};

/// Throws burn::Error whose message is the pieces, one after the other (src/error.cpp).
[[noreturn]] void fail_with(std::initializer_list<ErrorArg> pieces);

/// Throws burn::Error whose message is the arguments, printed one after the other. Each call
/// site only packs its arguments: the message is built in the library.
template <class... Args>
[[noreturn, gnu::cold]] inline void fail(const Args&... args) {
    fail_with({ErrorArg(args)...});
}

/// Throws burn::Error "use of a moved-from tensor in <function>" (`function_name`: the op's
/// name, or the name of the function that used the tensor).
[[noreturn, gnu::cold]] void fail_moved_from(const char* function_name);

}  // namespace detail

/// Throws burn::Error built from the streamed arguments when `cond` is false.
#define BURN_CHECK(cond, ...)                           \
    do {                                                \
        if (!(cond)) ::burn::detail::fail(__VA_ARGS__); \
    } while (0)

}  // namespace burn

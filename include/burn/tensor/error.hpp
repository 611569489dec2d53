// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace burn {

/// The one exception type of burn-cpp. Every message starts with the operation that failed
/// ("Tensor::reshape: ...") and names the shapes, dtypes, files or values involved.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

namespace detail {
template <class... Args>
[[noreturn]] void fail(const Args&... args) {
    std::ostringstream os;
    (os << ... << args);
    throw Error(os.str());
}
}  // namespace detail

/// Throws burn::Error built from the streamed arguments when `cond` is false.
#define BURN_CHECK(cond, ...)                                 \
    do {                                                      \
        if (!(cond)) ::burn::detail::fail(__VA_ARGS__);       \
    } while (0)

}  // namespace burn

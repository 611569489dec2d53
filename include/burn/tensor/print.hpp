// SPDX-License-Identifier: MIT OR Apache-2.0
// Printing tensors like Burn's Display: data (summarised past a threshold), shape, device,
// backend, kind and dtype.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

#include "burn/tensor/data.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn {

struct PrintOptions {
    /// Digits after the decimal point for floats; unset prints the shortest exact form.
    std::optional<int> precision;
    /// Above this many elements, only the edges of each dim are shown.
    std::size_t threshold = 1000;
    /// Elements shown at each end of a summarised dim.
    std::size_t edge_items = 3;
};

/// Process-wide defaults used by operator<<.
void set_print_options(const PrintOptions& options);
PrintOptions print_options();

/// The data part: nested brackets, rows aligned, "..." where summarised.
std::string format_data(const TensorData& data, const PrintOptions& options);
/// The whole block, as Burn prints it.
std::string format_tensor(const TensorData& data, std::string_view device, std::string_view backend,
                          std::string_view kind, const PrintOptions& options);

template <BackendTypes B, std::size_t D, class K>
std::string to_string(const Tensor<B, D, K>& t, const PrintOptions& options = print_options()) {
    std::ostringstream dev;
    dev << t.device();
    return format_tensor(t.to_data(), dev.str(), B::name(), K::name, options);
}

template <BackendTypes B, std::size_t D, class K>
std::ostream& operator<<(std::ostream& os, const Tensor<B, D, K>& t) {
    return os << to_string(t);
}

}  // namespace burn

#if __has_include(<format>)
#include <format>
#if defined(__cpp_lib_format)
/// std::format("{}", t) and "{:.2}" (precision) support.
template <burn::BackendTypes B, std::size_t D, class K>
struct std::formatter<burn::Tensor<B, D, K>> {
    std::optional<int> precision;
    constexpr auto parse(std::format_parse_context& ctx) {
        auto it = ctx.begin();
        if (it != ctx.end() && *it == '.') {
            int p = 0;
            for (++it; it != ctx.end() && *it >= '0' && *it <= '9'; ++it) p = p * 10 + (*it - '0');
            precision = p;
        }
        return it;
    }
    auto format(const burn::Tensor<B, D, K>& t, std::format_context& ctx) const {
        auto opts = burn::print_options();
        if (precision) opts.precision = precision;
        return std::format_to(ctx.out(), "{}", burn::to_string(t, opts));
    }
};
#endif
#endif

// SPDX-License-Identifier: MIT OR Apache-2.0
// check_json_text: one pass over a JSON text, tracking strings (with escapes) and the depth of
// brackets outside them. It does not validate the JSON (the parser does that afterwards).
#include "burn/detail/json_limits.hpp"

#include "burn/tensor/error.hpp"

namespace burn::detail {

void check_json_text(std::string_view text, std::string_view context, std::size_t max_depth,
                     std::uint64_t max_string) {
    if (const auto nul = text.find('\0'); nul != std::string_view::npos)
        fail(context, ": a NUL byte at offset ", nul, ": JSON text never contains one");
    std::size_t depth = 0;
    bool in_string = false;
    std::size_t string_start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;  // the escaped character cannot end the string
            else if (c == '"') in_string = false;
            if (i - string_start > max_string)
                fail(context, ": a string longer than the limit of ", max_string,
                     " bytes (JSON at offset ", string_start, ")");
            continue;
        }
        switch (c) {
            case '"':
                in_string = true;
                string_start = i + 1;
                break;
            case '[':
            case '{':
                if (++depth > max_depth)
                    fail(context, ": values nested deeper than ", max_depth,
                         " levels (JSON at offset ", i, ")");
                break;
            case ']':
            case '}':
                if (depth > 0) --depth;
                break;
            default: break;
        }
    }
}

}  // namespace burn::detail

// SPDX-License-Identifier: MIT OR Apache-2.0
// The messages of burn::Error (burn/tensor/error.hpp), built from their pieces as std::ostream
// prints them.
#include "burn/tensor/error.hpp"

#include <sstream>

namespace burn::detail {

void ErrorArg::append_to(std::string& out) const {
    switch (kind_) {
        case Kind::Text: out.append(text_.data, text_.size); return;
        case Kind::Bool: out += b_ ? '1' : '0'; return;
        case Kind::Char: out += c_; return;
        case Kind::Signed: out += std::to_string(i_); return;
        case Kind::Unsigned: out += std::to_string(u_); return;
        case Kind::Float:
        case Kind::Streamed: break;
    }
    // The stream's own formatting: %g with precision 6 for numbers (the same text as `os << v`
    // for float, double and long double), the value's operator<< otherwise.
    std::ostringstream os;
    if (kind_ == Kind::Float) os << f_;
    else streamed_.print(os, streamed_.value);
    out += os.str();
}

void fail_with(std::initializer_list<ErrorArg> pieces) {
    std::string message;
    for (const ErrorArg& piece : pieces) piece.append_to(message);
    throw Error(message);
}

void fail_moved_from(const char* function_name) {
    fail("use of a moved-from tensor in ", function_name,
         " (a tensor passed with std::move is used up; copy it instead to keep using it)");
}

}  // namespace burn::detail

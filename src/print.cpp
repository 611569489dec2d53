// SPDX-License-Identifier: MIT OR Apache-2.0
#include "burn/tensor/print.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace burn {
namespace {

std::mutex g_mu;
PrintOptions g_options;

std::string format_value(const TensorData& d, std::size_t i, const PrintOptions& o) {
    const double v = d.value_as_double(i);
    if (d.dtype == DType::Bool) return v != 0.0 ? "true" : "false";
    if (!is_float(d.dtype) && d.dtype != DType::QInt8) {  // qint8 prints its dequantized f32
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
        return {buf, r.ptr};
    }
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    if (o.precision) {
        std::snprintf(buf, sizeof buf, "%.*f", *o.precision, v);
        return buf;
    }
    // Shortest text that reads back to the same value in the tensor's own precision.
    std::to_chars_result r;
    if (d.dtype == DType::F64) r = std::to_chars(buf, buf + sizeof buf, v);
    else r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

/// Recursively prints dim `d` starting at flat offset `base`.
void format_dim(const TensorData& data, const PrintOptions& o, bool summarize, std::size_t d,
                std::size_t base, std::size_t stride_base, std::string& out) {
    const Shape& s = data.shape;
    const std::size_t n = s[d];
    std::size_t stride = 1;
    for (std::size_t k = d + 1; k < s.rank(); ++k) stride *= s[k];
    (void)stride_base;
    out += '[';
    const bool cut = summarize && n > 2 * o.edge_items;
    for (std::size_t i = 0; i < n; ++i) {
        if (cut && i == o.edge_items) {
            out += "...";
            i = n - o.edge_items - 1;
            if (d + 1 < s.rank()) {
                out += ",\n";
                out.append(d + 1, ' ');
            } else {
                out += ", ";
            }
            continue;
        }
        if (d + 1 == s.rank()) out += format_value(data, base + i, o);
        else format_dim(data, o, summarize, d + 1, base + i * stride, stride, out);
        if (i + 1 < n) {
            if (d + 1 < s.rank()) {
                out += ',';
                out.append(s.rank() - d - 1, '\n');
                out.append(d + 1, ' ');
            } else {
                out += ", ";
            }
        }
    }
    out += ']';
}

}  // namespace

void set_print_options(const PrintOptions& options) {
    std::lock_guard lock(g_mu);
    g_options = options;
}

PrintOptions print_options() {
    std::lock_guard lock(g_mu);
    return g_options;
}

std::string format_data(const TensorData& data, const PrintOptions& options) {
    if (data.rank() == 0) return data.num_elements() ? format_value(data, 0, options) : "[]";
    std::string out;
    const bool summarize = data.num_elements() > options.threshold;
    format_dim(data, options, summarize, 0, 0, 0, out);
    return out;
}

std::string format_tensor(const TensorData& data, std::string_view device, std::string_view backend,
                          std::string_view kind, const PrintOptions& options) {
    std::string out = "Tensor {\n  data:\n";
    out += format_data(data, options);
    out += ",\n  shape:  " + data.shape.to_string();
    out += ",\n  device:  " + std::string(device);
    out += ",\n  backend:  \"" + std::string(backend) + "\"";
    out += ",\n  kind:  \"" + std::string(kind) + "\"";
    out += ",\n  dtype:  \"" + std::string(dtype_name(data.dtype)) + "\"";
    if (data.is_quantized())
        out += ",\n  qscheme:  \"" + data.quantization()->scheme.to_string() + "\"";
    out += ",\n}";
    return out;
}

}  // namespace burn

// SPDX-License-Identifier: MIT OR Apache-2.0
// The ONNX code generator (burn/onnx/codegen.hpp): a loaded ModelDesc -> a C++ header whose
// forward() runs each node through the op registry (burn/onnx/generated.hpp), plus the record of
// its float initializers.
#include "burn/onnx/codegen.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "burn/backend/cpu.hpp"  // before graph.hpp: the prebuilt registry of Cpu<float>
#include "burn/onnx/graph.hpp"
#include "burn/record/recorder.hpp"
#include "burn/tensor/error.hpp"

namespace burn::onnx {

namespace {

using burn::detail::fail;

bool is_identifier(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

// C++ keywords and the names the generated struct defines itself.
const std::set<std::string, std::less<>>& reserved_names() {
    static const std::set<std::string, std::less<>> s = {"alignas",
                                                         "alignof",
                                                         "and",
                                                         "asm",
                                                         "auto",
                                                         "bool",
                                                         "break",
                                                         "case",
                                                         "catch",
                                                         "char",
                                                         "class",
                                                         "const",
                                                         "constexpr",
                                                         "continue",
                                                         "default",
                                                         "delete",
                                                         "do",
                                                         "double",
                                                         "else",
                                                         "enum",
                                                         "explicit",
                                                         "export",
                                                         "extern",
                                                         "false",
                                                         "float",
                                                         "for",
                                                         "friend",
                                                         "goto",
                                                         "if",
                                                         "inline",
                                                         "int",
                                                         "long",
                                                         "mutable",
                                                         "namespace",
                                                         "new",
                                                         "noexcept",
                                                         "not",
                                                         "nullptr",
                                                         "operator",
                                                         "or",
                                                         "private",
                                                         "protected",
                                                         "public",
                                                         "register",
                                                         "return",
                                                         "short",
                                                         "signed",
                                                         "sizeof",
                                                         "static",
                                                         "struct",
                                                         "switch",
                                                         "template",
                                                         "this",
                                                         "throw",
                                                         "true",
                                                         "try",
                                                         "typedef",
                                                         "typename",
                                                         "union",
                                                         "unsigned",
                                                         "using",
                                                         "virtual",
                                                         "void",
                                                         "volatile",
                                                         "while",
                                                         "xor",
                                                         "B",
                                                         "Device",
                                                         "forward",
                                                         "forward_values",
                                                         "from_file",
                                                         "from_embedded",
                                                         "record_file_name",
                                                         "model_source",
                                                         "visit",
                                                         "map",
                                                         "valid",
                                                         "no_grad",
                                                         "fork",
                                                         "to_device",
                                                         "devices",
                                                         "num_params",
                                                         "into_record",
                                                         "load_record",
                                                         "save_file",
                                                         "load_file",
                                                         "quantize_weights",
                                                         "burn_field_count"};
    return s;
}

// A field name from an initializer name: non-identifier characters become '_'.
std::string field_name(std::string_view onnx_name, std::set<std::string>& used) {
    std::string s;
    for (char c : onnx_name) {
        const char o = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        if (o != '_' || s.empty() || s.back() != '_') s += o;  // runs of '_' become one
    }
    while (!s.empty() && s.front() == '_') s.erase(0, 1);
    while (!s.empty() && s.back() == '_') s.pop_back();
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "w_" + s;
    if (reserved_names().count(s) || s.rfind("burn_", 0) == 0) s += "_";
    std::string out = s;
    for (int i = 2; used.count(out); ++i) out = s + "_" + std::to_string(i);
    used.insert(out);
    return out;
}

// A C++ string literal.
std::string quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned char>(c));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

// Text for a comment (no line breaks, no comment terminators).
std::string comment_text(std::string_view s) {
    std::string out;
    for (char c : s) out += (c == '\n' || c == '\r') ? ' ' : c;
    for (auto p = out.find("*/"); p != std::string::npos; p = out.find("*/")) out[p] = '+';
    return out;
}

std::string fmt_double(double v) {
    if (std::isnan(v)) return "burn::onnx::gen::nan";
    if (std::isinf(v)) return v > 0 ? "burn::onnx::gen::inf" : "-burn::onnx::gen::inf";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
}
std::string fmt_float(float v) {
    if (std::isnan(v)) return "std::numeric_limits<float>::quiet_NaN()";
    if (std::isinf(v))
        return v > 0 ? "std::numeric_limits<float>::infinity()"
                     : "-std::numeric_limits<float>::infinity()";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s + "f";
}
std::string fmt_int(std::int64_t v) {
    // INT64_MIN has no literal.
    if (v == std::numeric_limits<std::int64_t>::min())
        return "std::numeric_limits<std::int64_t>::min()";
    return std::to_string(v);
}

template <class T, class F>
std::string join(const std::vector<T>& v, F&& f, std::string_view sep = ", ") {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += sep;
        out += f(v[i]);
    }
    return out;
}

std::string elem_type_expr(ElemType t) {
    static const std::map<ElemType, std::string_view> names = {
        {ElemType::Undefined, "Undefined"}, {ElemType::Float, "Float"},
        {ElemType::UInt8, "UInt8"},         {ElemType::Int8, "Int8"},
        {ElemType::UInt16, "UInt16"},       {ElemType::Int16, "Int16"},
        {ElemType::Int32, "Int32"},         {ElemType::Int64, "Int64"},
        {ElemType::Bool, "Bool"},           {ElemType::Float16, "Float16"},
        {ElemType::Double, "Double"},       {ElemType::UInt32, "UInt32"},
        {ElemType::UInt64, "UInt64"},       {ElemType::BFloat16, "BFloat16"}};
    auto it = names.find(t);
    if (it == names.end()) fail("burn-onnx: element type ", elem_type_name(t), " is not supported");
    return "burn::onnx::ElemType::" + std::string(it->second);
}

// `burn::onnx::gen::value_info(...)`: a subgraph input's or output's declaration.
std::string value_info_expr(const ValueInfo& vi) {
    const std::string type = vi.type == ElemType::Undefined || is_supported_elem_type(vi.type)
                                 ? elem_type_expr(vi.type)
                                 : "static_cast<burn::onnx::ElemType>(" +
                                       std::to_string(static_cast<int>(vi.type)) + ")";
    return "burn::onnx::gen::value_info(" + quote(vi.name) + ", " + type + ", {" +
           join(vi.dims, fmt_int) + "}, " + (vi.has_shape ? "true" : "false") + ")";
}

// `burn::onnx::gen::typed(...)`: host data written into the header.
std::string typed_expr(const TypedData& t, std::size_t indent) {
    const std::string pad(indent, ' ');
    std::string dims =
        join(std::vector<std::size_t>(t.data.shape.dims().begin(), t.data.shape.dims().end()),
             [](std::size_t d) { return std::to_string(d); });
    std::string out = "burn::onnx::gen::typed(" + quote(t.name) + ", " + elem_type_expr(t.type);
    std::string values;
    std::size_t col = 0;
    auto add = [&](const std::string& s) {
        if (col && col + s.size() > 90) {
            values += ",\n" + pad + "    ";
            col = 0;
        } else if (col || !values.empty()) {
            values += ", ";
            col += 2;
        }
        values += s;
        col += s.size();
    };
    if (is_float_type(t.type)) {
        for (double v : t.data.to_vec<double>()) add(fmt_double(v));
        out += ", std::vector<double>{";
    } else {
        for (std::int64_t v : t.data.to_vec<std::int64_t>()) add(fmt_int(v));
        out += ", std::vector<std::int64_t>{";
    }
    return out + values + "}, {" + dims + "})";
}

std::string attr_expr(const std::string& name, const Attribute& a, const Node& n) {
    std::string v;
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::int64_t>) {
                v = "std::int64_t{" + fmt_int(x) + "}";
            } else if constexpr (std::is_same_v<T, float>) {
                v = fmt_float(x);
            } else if constexpr (std::is_same_v<T, std::string>) {
                v = "std::string(" + quote(x) + ")";
            } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
                v = "std::vector<std::int64_t>{" + join(x, fmt_int) + "}";
            } else if constexpr (std::is_same_v<T, std::vector<float>>) {
                v = "std::vector<float>{" + join(x, fmt_float) + "}";
            } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                v = "std::vector<std::string>{" +
                    join(x, [](const std::string& s) { return "std::string(" + quote(s) + ")"; }) +
                    "}";
            } else if constexpr (std::is_same_v<T, TypedData>) {
                v = typed_expr(x, 16);
            } else if constexpr (std::is_same_v<T, GraphAttr>) {
                // The subgraph's nodes are C++ statements of forward_values (a lambda); the node
                // table keeps its signature, which the control-flow ops check and read.
                if (!x.graph)
                    fail("burn-onnx: ", n.describe(), ": attribute '", name,
                         "' is a list of graphs, which generated code cannot hold");
                auto infos = [](const std::vector<ValueInfo>& v) {
                    return "{" + join(v, value_info_expr) + "}";
                };
                v = "burn::onnx::gen::signature(" + quote(x.graph->name) + ", " +
                    infos(x.graph->inputs) + ", " + infos(x.graph->outputs) + ")";
            } else {
                v = "burn::onnx::OpaqueAttr{" + quote(x.type) + "}";
            }
        },
        a.value);
    return "{" + quote(name) + ", " + v + "}";
}

// The C++ type of a model input or output: a Tensor when the rank is known and >= 1, else a
// Value<B>.
struct IoType {
    std::string cpp;
    std::size_t rank = 0;
    std::string kind;  // "burn::Float", "burn::Int", "burn::Bool", or "" for Value<B>
};
IoType io_type(const ValueInfo& vi, const ModelDesc& m) {
    // Sequences and optionals stay values (Value<B>::sequence, Value<B>::none).
    if (vi.category != ValueCategory::Tensor) return {"burn::onnx::Value<B>", 0, ""};
    const ValueInfo* info = &vi;
    if (!vi.has_shape) {
        auto it = m.value_info.find(vi.name);
        if (it != m.value_info.end() && it->second.has_shape) info = &it->second;
    }
    const ElemType t = vi.type != ElemType::Undefined ? vi.type : info->type;
    if (!info->has_shape || info->dims.empty() || info->dims.size() > Shape::max_rank ||
        t == ElemType::Undefined || !is_supported_elem_type(t))
        return {"burn::onnx::Value<B>", 0, ""};
    IoType r;
    r.rank = info->dims.size();
    r.kind = is_float_type(t) ? "burn::Float" : t == ElemType::Bool ? "burn::Bool" : "burn::Int";
    r.cpp = "burn::Tensor<B, " + std::to_string(r.rank) +
            (r.kind == "burn::Float" ? std::string() : ", " + r.kind) + ">";
    return r;
}

std::string dims_list(const ValueInfo& vi) { return "{" + join(vi.dims, fmt_int) + "}"; }

// Writes `record` with the recorder named by type and precision.
template <class S>
std::pair<std::vector<std::uint8_t>, std::string> encode_with(const record::Record& r,
                                                              std::string_view type) {
    using namespace burn::record;
    auto enc = [&](const auto& rec) {
        return std::make_pair(rec.to_bytes(r), std::string(rec.file_extension()));
    };
    if (type == "named-mpk") return enc(NamedMpkFileRecorder<S>());
    if (type == "named-mpk-gz") return enc(NamedMpkGzFileRecorder<S>());
    if (type == "bin") return enc(BinFileRecorder<S>());
    if (type == "bin-gz") return enc(BinGzFileRecorder<S>());
    if (type == "json-gz") return enc(JsonGzFileRecorder<S>());
    if (type == "pretty-json") return enc(PrettyJsonFileRecorder<S>());
    fail("burn-onnx: unknown record type '", type,
         "' (expected named-mpk, named-mpk-gz, bin, bin-gz, json-gz or pretty-json)");
}

std::string recorder_type(std::string_view type, std::string_view precision) {
    static const std::map<std::string_view, std::string_view> rec = {
        {"named-mpk", "NamedMpkFileRecorder"},
        {"named-mpk-gz", "NamedMpkGzFileRecorder"},
        {"bin", "BinFileRecorder"},
        {"bin-gz", "BinGzFileRecorder"},
        {"json-gz", "JsonGzFileRecorder"},
        {"pretty-json", "PrettyJsonFileRecorder"}};
    static const std::map<std::string_view, std::string_view> prec = {
        {"full", "FullPrecisionSettings"},
        {"half", "HalfPrecisionSettings"},
        {"double", "DoublePrecisionSettings"}};
    return "burn::record::" + std::string(rec.at(type)) +
           "<burn::record::" + std::string(prec.at(precision)) + ">";
}

}  // namespace

std::string snake_case(std::string_view name) {
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        if (std::isupper(c)) {
            if (i > 0 && (std::islower(static_cast<unsigned char>(name[i - 1])) ||
                          std::isdigit(static_cast<unsigned char>(name[i - 1]))))
                out += '_';
            out += static_cast<char>(std::tolower(c));
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

GeneratedFiles generate_files(const ModelDesc& m, const CodegenOptions& o) {
    if (!is_identifier(o.name) || reserved_names().count(o.name))
        fail("burn-onnx: --name '", o.name,
             "' is not a valid C++ identifier for the generated struct (letters, digits and '_', "
             "not starting with a digit)");
    if (o.precision != "full" && o.precision != "half" && o.precision != "double")
        fail("burn-onnx: unknown precision '", o.precision, "' (expected full, half or double)");

    // Every node, those of subgraphs included, must be in the op registry: report all that are
    // not, at once; then check the structure of the control-flow nodes.
    check_model_ops(OpRegistry<Cpu<float>>::instance(), m, "burn-onnx: " + m.source);
    for (const auto& vi : m.inputs)
        if (vi.type != ElemType::Undefined && !is_supported_elem_type(vi.type))
            fail("burn-onnx: ", m.source, ": input '", vi.name, "' has type ",
                 elem_type_name(vi.type), ", which is not supported");

    GeneratedFiles f;
    const std::string snake = snake_case(o.name);
    f.header_name = snake + ".hpp";

    // Initializers that nodes or outputs read: float ones of rank >= 1 become Param fields, the
    // rest constants written into the header.

    struct ParamField {
        std::string field;
        const TypedData* data;
    };
    std::vector<ParamField> params;
    std::vector<const TypedData*> constants;
    std::map<std::string, std::string> expr;  // ONNX value name -> C++ expression of a Value<B>
    std::set<std::string> taken_fields;
    // In order of first use (a layer's weight before its bias, as the file's nodes read them).
    std::vector<std::string> order;
    std::set<std::string> seen;
    auto visit_name = [&](const std::string& name) {
        if (!name.empty() && m.initializers.count(name) && seen.insert(name).second)
            order.push_back(name);
    };
    for (const auto& n : m.nodes) {
        for (const auto& in : n.inputs) visit_name(in);
        for (const auto& [_, g] : n.subgraphs())
            for (const auto& name : g->outer_names()) visit_name(name);
    }
    for (const auto& out : m.outputs) visit_name(out.name);
    for (const auto& name : order) {
        const TypedData& t = m.initializers.at(name);
        const std::size_t rank = t.data.shape.rank();
        if (is_float_type(t.type) && rank >= 1 && t.data.num_elements() > 0) {
            params.push_back({field_name(name, taken_fields), &t});
        } else {
            constants.push_back(&t);
        }
    }
    // The subgraphs' initializers (and Constant nodes) are constants too, made once per call of
    // forward_values, as the model's are.
    std::vector<std::pair<const GraphDesc*, const TypedData*>> sub_constants;
    for_each_node(m.nodes, [&](const Node& n, const std::string&) {
        for (const auto& [_, g] : n.subgraphs())
            for (const auto& [name, t] : g->initializers) {
                constants.push_back(&t);
                sub_constants.emplace_back(g, &t);
            }
    });
    f.num_params = params.size();
    f.num_constants = constants.size();

    // The weights record: one tensor per field, in field order.
    record::Record::Map fields;
    for (const auto& p : params)
        fields.emplace_back(p.field,
                            record::Record(record::TensorItem{p.data->data, record::ParamId{}}));
    const record::Record rec(std::move(fields));
    std::pair<std::vector<std::uint8_t>, std::string> enc;
    if (o.precision == "full") enc = encode_with<record::FullPrecisionSettings>(rec, o.record_type);
    else if (o.precision == "half")
        enc = encode_with<record::HalfPrecisionSettings>(rec, o.record_type);
    else enc = encode_with<record::DoublePrecisionSettings>(rec, o.record_type);
    f.record = std::move(enc.first);
    f.record_name = snake + "." + enc.second;

    std::ostringstream h;
    const std::string guard_ns = "burn_onnx_" + snake;
    h << "// Generated by burn-onnx from " << comment_text(m.source) << ": do not edit.\n";
    h << "// Producer: " << comment_text(m.producer.empty() ? "unknown" : m.producer) << ", opset "
      << m.opset << ", " << m.nodes.size() << " nodes, " << params.size() << " parameters (record "
      << f.record_name << "), " << constants.size() << " constants.\n";
    h << "//\n";
    h << "//   auto model = " << o.name << "<burn::Cpu<>>::from_file(\"" << f.record_name
      << "\");\n";
    h << "//   auto y = model.forward(x);\n";
    h << "//\n";
    h << "// Each node runs through burn::onnx's op registry, the functions that\n";
    h << "// burn::onnx::Graph<B> runs (docs/onnx.md, \"Generating code\").\n";
    h << "#pragma once\n\n";
    h << "#include <cstddef>\n#include <cstdint>\n#include <filesystem>\n#include <limits>\n"
         "#include <string>\n#include <tuple>\n#include <utility>\n#include <vector>\n\n";
    h << "#include \"burn/module/module.hpp\"\n#include \"burn/onnx/generated.hpp\"\n"
         "#include \"burn/record/recorder.hpp\"\n#include \"burn/tensor/backend.hpp\"\n"
         "#include \"burn/tensor/tensor.hpp\"\n\n";
    if (o.embed_states) {
        h << "/// The weights in BinBytesRecorder<FullPrecisionSettings> format (" << snake
          << "_states.cpp).\n";
        h << "extern const unsigned char " << guard_ns << "_states[];\n";
        h << "extern const std::size_t " << guard_ns << "_states_size;\n\n";
    }

    h << "template <burn::Backend B>\n";
    h << "struct " << o.name << " {\n";
    h << "    using Device = typename B::Device;\n\n";
    for (const auto& p : params) {
        const auto& s = p.data->data.shape;
        h << "    /// '" << comment_text(p.data->name) << "': " << elem_type_name(p.data->type)
          << s.to_string() << "\n";
        h << "    burn::module::Param<burn::Tensor<B, " << s.rank() << ">> " << p.field << ";\n";
    }
    h << "    BURN_MODULE(" << join(params, [](const ParamField& p) { return p.field; }) << ")\n\n";

    // Constructors: zeros of the right shapes, and field by field (module::map and load_record
    // rebuild the module from its fields).
    h << "    /// Parameters of the right shapes, filled with zeros: load weights with "
         "from_file,\n";
    h << "    /// load_record or load_file.\n";
    h << "    explicit " << o.name << "(const Device& device)";
    if (!params.empty()) {
        h << "\n        : ";
        h << join(
            params,
            [](const ParamField& p) {
                const auto& d = p.data->data.shape.dims();
                std::string dims = join(std::vector<std::size_t>(d.begin(), d.end()),
                                        [](std::size_t x) { return std::to_string(x); });
                return p.field + "(burn::Tensor<B, " + std::to_string(d.size()) + ">::zeros({" +
                       dims + "}, device))";
            },
            ",\n          ");
    } else {
        h << " ";
        h << "{\n        (void)device;\n    }\n";
    }
    if (!params.empty()) h << " {}\n";
    h << "    " << (params.size() == 1 ? "explicit " : "") << o.name << "(";
    h << join(
        params,
        [](const ParamField& p) {
            return "burn::module::Param<burn::Tensor<B, " +
                   std::to_string(p.data->data.shape.rank()) + ">> burn_" + p.field;
        },
        ", ");
    h << ")";
    if (!params.empty())
        h << "\n        : "
          << join(
                 params,
                 [](const ParamField& p) { return p.field + "(std::move(burn_" + p.field + "))"; },
                 ",\n          ");
    h << " {}\n\n";

    const std::string rec_type = recorder_type(o.record_type, o.precision);
    h << "    /// The record file the generator wrote.\n";
    h << "    static constexpr const char* record_file_name = " << quote(f.record_name) << ";\n";
    h << "    /// The model file this header was generated from.\n";
    h << "    static constexpr const char* model_source = " << quote(m.source) << ";\n";
    h << "    using Recorder = " << rec_type << ";\n\n";
    h << "    /// The model with the weights saved by burn-onnx (" << f.record_name << ").\n";
    h << "    static " << o.name
      << " from_file(const std::filesystem::path& path, const Device& device = {}) {\n";
    h << "        return " << o.name << "(device).load_file(path, Recorder{}, device);\n";
    h << "    }\n";
    if (o.embed_states) {
        h << "    /// The model with the weights compiled into the program.\n";
        h << "    static " << o.name << " from_embedded(const Device& device = {}) {\n";
        h << "        const auto record = burn::record::BinBytesRecorder<>().from_bytes(\n";
        h << "            {" << guard_ns << "_states, " << guard_ns << "_states_size});\n";
        h << "        return " << o.name << "(device).load_record(record);\n";
        h << "    }\n";
    }
    h << "\n";

    // forward(): typed inputs and outputs.
    std::vector<IoType> in_types, out_types;
    for (const auto& vi : m.inputs) in_types.push_back(io_type(vi, m));
    for (const auto& vi : m.outputs) out_types.push_back(io_type(vi, m));
    std::set<std::string> arg_names;
    std::vector<std::string> in_args;
    for (const auto& vi : m.inputs) in_args.push_back(field_name(vi.name, arg_names));
    std::string ret;
    if (out_types.size() == 1) {
        ret = out_types[0].cpp;
    } else {
        ret = "std::tuple<" + join(out_types, [](const IoType& t) { return t.cpp; }) + ">";
    }
    h << "    /// Inputs: " << join(m.inputs, [](const ValueInfo& v) {
        return comment_text(v.name) + ": " + comment_text(v.describe());
    }) << ".\n";
    h << "    /// Outputs: " << join(m.outputs, [](const ValueInfo& v) {
        return comment_text(v.name) + ": " + comment_text(v.describe());
    }) << ".\n";
    h << "    " << ret << " forward(";
    for (std::size_t i = 0; i < in_args.size(); ++i)
        h << (i ? ", " : "") << "const " << in_types[i].cpp << "& " << in_args[i];
    h << ") const {\n";
    h << "        auto burn_out = forward_values({";
    for (std::size_t i = 0; i < in_args.size(); ++i) {
        h << (i ? ", " : "");
        if (in_types[i].kind.empty()) h << in_args[i];
        else
            h << "burn::onnx::gen::to_value(" << in_args[i] << ", "
              << elem_type_expr(m.inputs[i].type) << ")";
    }
    h << "});\n";
    auto out_expr = [&](std::size_t i) {
        if (out_types[i].kind.empty()) return "std::move(burn_out[" + std::to_string(i) + "])";
        return "burn::onnx::gen::from_value<B, " + std::to_string(out_types[i].rank) + ", " +
               out_types[i].kind + ">(burn_out[" + std::to_string(i) + "], model_source, " +
               quote(m.outputs[i].name) + ")";
    };
    if (out_types.size() == 1) {
        h << "        return " << out_expr(0) << ";\n";
    } else {
        h << "        return {";
        for (std::size_t i = 0; i < out_types.size(); ++i)
            h << (i ? ",\n                " : "") << out_expr(i);
        h << "};\n";
    }
    h << "    }\n\n";

    // forward_values(): the graph, node by node.
    h << "    /// The graph on burn::onnx::Value<B>s, one per input in order; one per output.\n";
    h << "    std::vector<burn::onnx::Value<B>> forward_values(\n"
         "        std::vector<burn::onnx::Value<B>> burn_inputs) const {\n";
    h << "        using V = burn::onnx::Value<B>;\n";
    h << "        using burn::onnx::ElemType;\n";
    h << "        if (burn_inputs.size() != " << m.inputs.size() << ")\n";
    h << "            burn::detail::fail(\"onnx generated model \", model_source, \": \", "
         "burn_inputs.size(),\n";
    h << "                               \" inputs given, the model has " << m.inputs.size()
      << "\");\n";
    h << "        const auto& burn_nodes = burn_onnx_nodes();\n";
    if (!m.inputs.empty()) {
        h << "        const Device burn_device = burn_inputs[0].device();\n";
    } else if (!params.empty()) {
        h << "        const Device burn_device = " << params[0].field << ".device();\n";
    } else {
        h << "        const Device burn_device{};\n";
    }
    std::size_t next_var = 0;
    auto new_var = [&]() { return "burn_v" + std::to_string(next_var++); };
    // The node table: every node, those of subgraphs included, depth first.
    std::vector<const Node*> table;
    std::map<const Node*, std::size_t> table_index;
    for_each_node(m.nodes, [&](const Node& n, const std::string&) {
        table_index[&n] = table.size();
        table.push_back(&n);
    });
    // The last node that reads each model input or node output: that node takes the value with
    // std::move, so that its memory is released once the node has run (as Graph<B> does) instead
    // of when forward_values returns. Graph outputs are kept to the end.
    auto last_uses = [](const std::vector<Node>& nodes, const std::set<std::string>& keep) {
        std::map<std::string, std::size_t> last_use;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            for (const auto& in : nodes[i].inputs)
                if (!in.empty()) last_use[in] = i;
            for (const auto& [_, g] : nodes[i].subgraphs())
                for (const auto& name : g->outer_names()) last_use[name] = i;
        }
        for (const auto& k : keep) last_use.erase(k);
        return last_use;
    };
    std::set<std::string> model_outputs;
    for (const auto& vi : m.outputs) model_outputs.insert(vi.name);
    const auto top_last_use = last_uses(m.nodes, model_outputs);
    std::set<std::string> movable;  // values declared non-const (model inputs, node outputs)
    for (std::size_t i = 0; i < m.inputs.size(); ++i) {
        const auto& vi = m.inputs[i];
        const std::string v = new_var();
        h << "        // input '" << comment_text(vi.name) << "': " << comment_text(vi.describe())
          << "\n";
        h << "        burn::onnx::gen::check_input(model_source, burn_inputs[" << i << "], "
          << quote(vi.name) << ", "
          << (vi.type == ElemType::Undefined ? "ElemType::Undefined"
                                             : "ElemType::" + elem_type_expr(vi.type).substr(22))
          << ", " << dims_list(vi) << ", " << (vi.has_shape ? "true" : "false") << ",\n"
          << "                                     " << quote(vi.describe())
          << (vi.category == ValueCategory::Tensor     ? ""
              : vi.category == ValueCategory::Sequence ? ", burn::onnx::ValueCategory::Sequence"
              : vi.category == ValueCategory::Optional
                  ? ", burn::onnx::ValueCategory::Optional"
                  : ", burn::onnx::ValueCategory::OptionalSequence")
          << ");\n";
        h << "        " << (top_last_use.count(vi.name) ? "V " : "const V ") << v
          << " = std::move(burn_inputs[" << i << "]);\n";
        expr[vi.name] = v;
        movable.insert(vi.name);
    }
    for (const auto& p : params) {
        const std::string v = new_var();
        h << "        const V " << v << " = burn::onnx::gen::param_value(" << p.field << ", "
          << "ElemType::" << elem_type_expr(p.data->type).substr(22) << ");  // '"
          << comment_text(p.data->name) << "'\n";
        expr[p.data->name] = v;
    }
    // The model's constants, then the subgraphs' (each visible in its subgraph only).
    const std::size_t top_constants = constants.size() - sub_constants.size();
    std::map<const GraphDesc*, std::vector<std::pair<std::string, std::string>>> sub_vars;
    for (std::size_t i = 0; i < constants.size(); ++i) {
        const std::string v = new_var();
        h << "        const V " << v << " = V::from_typed(burn_onnx_constants()[" << i
          << "], burn_device);  // '" << comment_text(constants[i]->name)
          << "': " << elem_type_name(constants[i]->type) << constants[i]->data.shape.to_string();
        if (i < top_constants) {
            expr[constants[i]->name] = v;
        } else {
            const GraphDesc* g = sub_constants[i - top_constants].first;
            sub_vars[g].emplace_back(constants[i]->name, v);
            h << ", of subgraph '" << comment_text(g->name) << "'";
        }
        h << "\n";
    }
    // The statements of `nodes` at indentation `pad`: one call of the op registry per node; the
    // subgraphs of a control-flow node are lambdas (their statements, written the same way),
    // which read the values of enclosing scopes by reference. `scope` maps every value visible
    // there to its variable; `own` holds the scope's own values (non-const: their last reader
    // takes them with std::move; a lambda, which may run many times, never moves an outer
    // value); `keep` the values that outlive the nodes (the graph's outputs).
    std::function<void(const std::vector<Node>&, std::map<std::string, std::string>&,
                       std::set<std::string>&, const std::set<std::string>&, const std::string&)>
        emit_nodes;
    emit_nodes = [&](const std::vector<Node>& nodes, std::map<std::string, std::string>& scope,
                     std::set<std::string>& own, const std::set<std::string>& keep,
                     const std::string& pad) {
        const bool top = &nodes == &m.nodes;
        const auto last_use = last_uses(nodes, keep);
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const Node& n = nodes[i];
            const std::size_t idx = table_index.at(&n);
            const auto subs = n.subgraphs();
            std::set<std::string> captured;  // read by the node's subgraphs: never moved here
            for (const auto& [_, g] : subs)
                for (const auto& name : g->outer_names()) captured.insert(name);
            h << pad << "// node '" << comment_text(n.name) << "' (" << n.op_type << "): "
              << comment_text(join(
                     n.inputs,
                     [](const std::string& s) { return s.empty() ? std::string("<none>") : s; }))
              << " -> " << comment_text(join(n.outputs, [](const std::string& s) { return s; }))
              << "\n";
            std::string args;
            for (std::size_t a = 0; a < n.inputs.size(); ++a) {
                args += a ? ", " : "";
                const std::string& in = n.inputs[a];
                if (in.empty()) {
                    args += "std::nullopt";
                    continue;
                }
                auto it = scope.find(in);
                if (it == scope.end())
                    fail("burn-onnx: ", m.source, ": ", n.describe(), ": input '", in,
                         "' has no value");
                // The last read of a value that dies here moves it (an earlier read of the same
                // value by this node copies: braced lists are evaluated left to right).
                const bool last_here =
                    own.count(in) && last_use.count(in) && last_use.at(in) == i &&
                    !captured.count(in) &&
                    std::find(n.inputs.begin() + a + 1, n.inputs.end(), in) == n.inputs.end();
                args += last_here ? "std::move(" + it->second + ")" : it->second;
            }
            const std::string r = "burn_r" + std::to_string(idx);
            const std::int64_t opset = m.opset_for(n.domain);
            h << pad << "auto " << r << " = burn::onnx::gen::"
              << (top ? "run_node<B>(model_source, " : "run_subgraph_node<B>(") << "burn_nodes["
              << idx << "], " << opset << ", {" << args << "}, burn_device";
            for (std::size_t j = 0; j < subs.size(); ++j) {
                const auto& [key, g] = subs[j];
                const std::string in = "burn_in" + std::to_string(idx) + "_" + std::to_string(j);
                const std::string res = "burn_res" + std::to_string(idx) + "_" + std::to_string(j);
                const std::string ipad = pad + "        ";
                h << (j ? ",\n" + pad + "     " : ",\n" + pad + "    {") << "{" << quote(key)
                  << ", [&](std::vector<V> " << in << ") {  // subgraph '" << comment_text(g->name)
                  << "'\n";
                h << ipad << "burn::onnx::gen::check_subgraph_inputs(" << in << ", "
                  << g->inputs.size() << ", burn_nodes[" << idx << "], " << quote(key) << ");\n";
                auto inner = scope;
                std::set<std::string> inner_own, inner_keep;
                for (const auto& [name, v] : sub_vars[g]) inner[name] = v;
                for (std::size_t k = 0; k < g->inputs.size(); ++k) {
                    const std::string v = new_var();
                    h << ipad << "V " << v << " = std::move(" << in << "[" << k << "]);  // '"
                      << comment_text(g->inputs[k].name) << "'\n";
                    inner[g->inputs[k].name] = v;
                    inner_own.insert(g->inputs[k].name);
                }
                for (const auto& o : g->outputs) inner_keep.insert(o.name);
                emit_nodes(g->nodes, inner, inner_own, inner_keep, ipad);
                h << ipad << "std::vector<V> " << res << ";\n";
                for (std::size_t k = 0; k < g->outputs.size(); ++k) {
                    const std::string& name = g->outputs[k].name;
                    auto it = inner.find(name);
                    if (it == inner.end())
                        fail("burn-onnx: ", m.source, ": output '", name, "' of subgraph '",
                             g->name, "' (", n.describe(), ") is never computed");
                    bool again = false;
                    for (std::size_t l = k + 1; l < g->outputs.size(); ++l)
                        again = again || g->outputs[l].name == name;
                    const bool move = inner_own.count(name) && !again;
                    h << ipad << res << ".push_back("
                      << (move ? "std::move(" + it->second + ")" : it->second) << ");  // output '"
                      << comment_text(name) << "'\n";
                }
                h << ipad << "return " << res << ";\n";
                h << pad << "    }}";
            }
            h << (subs.empty() ? "" : "}") << ");\n";
            // Values of this scope last read by the subgraphs that just ran: released now.
            for (const auto& name : captured)
                if (own.count(name) && last_use.count(name) && last_use.at(name) == i)
                    h << pad << "burn::onnx::gen::release(" << scope.at(name) << ");  // '"
                      << comment_text(name) << "'\n";
            for (std::size_t o = 0; o < n.outputs.size(); ++o) {
                const std::string& out = n.outputs[o];
                if (out.empty()) continue;
                const std::string v = new_var();
                const bool non_const = last_use.count(out) || (!top && keep.count(out));
                h << pad << (non_const ? "V " : "const V ") << v << " = std::move(" << r << "[" << o
                  << "]);\n";
                scope[out] = v;
                own.insert(out);
            }
        }
    };
    emit_nodes(m.nodes, expr, movable, model_outputs, "        ");
    h << "        std::vector<V> burn_out;\n";
    for (const auto& vi : m.outputs) {
        auto it = expr.find(vi.name);
        if (it == expr.end())
            fail("burn-onnx: ", m.source, ": graph output '", vi.name, "' is never computed");
        h << "        burn_out.push_back(" << it->second << ");  // output '"
          << comment_text(vi.name) << "'\n";
    }
    h << "        return burn_out;\n";
    h << "    }\n\n";

    // The node table and constants.
    h << "private:\n";
    h << "    static const std::vector<burn::onnx::Node>& burn_onnx_nodes() {\n";
    h << "        static const std::vector<burn::onnx::Node> nodes = [] {\n";
    h << "            using burn::onnx::gen::node;\n";
    h << "            std::vector<burn::onnx::Node> n;\n";
    for (const Node* np : table) {
        const Node& n = *np;
        h << "            n.push_back(node(" << quote(n.op_type) << ", " << quote(n.name) << ", "
          << quote(n.domain) << ", {" << join(n.inputs, quote) << "}, {" << join(n.outputs, quote)
          << "}";
        if (!n.attributes.empty()) {
            h << ",\n                             {";
            bool first = true;
            for (const auto& [k, a] : n.attributes) {
                h << (first ? "" : ",\n                              ") << attr_expr(k, a, n);
                first = false;
            }
            h << "}";
        }
        h << "));\n";
    }
    h << "            return n;\n";
    h << "        }();\n";
    h << "        return nodes;\n";
    h << "    }\n";
    h << "    static const std::vector<burn::onnx::TypedData>& burn_onnx_constants() {\n";
    h << "        static const std::vector<burn::onnx::TypedData> c = {\n";
    for (const auto* c : constants) h << "            " << typed_expr(*c, 12) << ",\n";
    h << "        };\n";
    h << "        return c;\n";
    h << "    }\n";
    h << "};\n";
    f.header = h.str();

    if (o.embed_states) {
        f.states_source_name = snake + "_states.cpp";
        const auto bytes = record::BinBytesRecorder<record::FullPrecisionSettings>().to_bytes(rec);
        std::string s;
        s += "// Generated by burn-onnx from " + comment_text(m.source) + ": the weights of " +
             o.name + " (BinBytesRecorder<FullPrecisionSettings>).\n";
        s += "#include <cstddef>\n\n";
        s += "extern const unsigned char " + guard_ns + "_states[];\n";
        s += "extern const std::size_t " + guard_ns + "_states_size;\n";
        s += "alignas(16) const unsigned char " + guard_ns + "_states[] = {\n";
        char buf[8];
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            std::snprintf(buf, sizeof buf, "%u,", static_cast<unsigned>(bytes[i]));
            s += (i % 24 == 0) ? "    " : "";
            s += buf;
            s += (i % 24 == 23 || i + 1 == bytes.size()) ? "\n" : "";
        }
        if (bytes.empty()) s += "    0\n";
        s += "};\n";
        s += "const std::size_t " + guard_ns + "_states_size = " + std::to_string(bytes.size()) +
             ";\n";
        f.states_source = std::move(s);
    }
    return f;
}

std::vector<std::filesystem::path> write_generated(const GeneratedFiles& f,
                                                   const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) fail("burn-onnx: cannot create directory ", dir.string(), ": ", ec.message());
    std::vector<std::filesystem::path> written;
    auto put = [&](const std::string& name, const void* data, std::size_t size) {
        const auto path = dir / name;
        const auto tmp = dir / (name + ".tmp");
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out) fail("burn-onnx: cannot write ", tmp.string());
            out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
            if (!out) fail("burn-onnx: error while writing ", tmp.string());
        }
        std::filesystem::rename(tmp, path, ec);
        if (ec)
            fail("burn-onnx: cannot rename ", tmp.string(), " to ", path.string(), ": ",
                 ec.message());
        written.push_back(path);
    };
    put(f.header_name, f.header.data(), f.header.size());
    put(f.record_name, f.record.data(), f.record.size());
    if (!f.states_source_name.empty())
        put(f.states_source_name, f.states_source.data(), f.states_source.size());
    return written;
}

}  // namespace burn::onnx

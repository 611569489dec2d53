// SPDX-License-Identifier: MIT OR Apache-2.0
// An ONNX model as plain C++ data: what src/onnx/model.cpp reads from an `.onnx` file with libonnx
// (protobuf parsing, ONNX shape inference, initializers and Constant nodes turned into TensorData,
// external data resolved) and what burn::onnx::Graph<B> executes. No protobuf or ONNX header is
// included here.
//
//   burn::onnx::ModelDesc m = burn::onnx::load_model("model.onnx");
//   for (const auto& n : m.nodes) std::cout << n.op_type << " " << n.name << "\n";
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "burn/tensor/data.hpp"
#include "burn/tensor/dtype.hpp"

namespace burn::onnx {

/// ONNX element types (TensorProto.DataType, same numbers).
enum class ElemType : int {
    Undefined = 0,
    Float = 1,
    UInt8 = 2,
    Int8 = 3,
    UInt16 = 4,
    Int16 = 5,
    Int32 = 6,
    Int64 = 7,
    String = 8,
    Bool = 9,
    Float16 = 10,
    Double = 11,
    UInt32 = 12,
    UInt64 = 13,
    Complex64 = 14,
    Complex128 = 15,
    BFloat16 = 16,
};

/// "float", "int64", "bool", ...: ONNX's spelling (as in the operator documentation).
std::string_view elem_type_name(ElemType t);
/// Whether the type is one that burn-cpp can hold in a TensorData (not strings or complex).
bool is_supported_elem_type(ElemType t);
/// The DType that holds values of `t` in a TensorData: the same width where burn has one; uint16
/// widens to i32, uint32 and uint64 to i64. Throws burn::Error for strings and complex numbers.
DType storage_dtype(ElemType t);
/// The ONNX type of a DType (F32 -> Float, I64 -> Int64, ...).
ElemType elem_type_of(DType d);
inline bool is_float_type(ElemType t) {
    return t == ElemType::Float || t == ElemType::Double || t == ElemType::Float16 ||
           t == ElemType::BFloat16;
}
inline bool is_int_type(ElemType t) {
    return t == ElemType::UInt8 || t == ElemType::Int8 || t == ElemType::UInt16 ||
           t == ElemType::Int16 || t == ElemType::Int32 || t == ElemType::Int64 ||
           t == ElemType::UInt32 || t == ElemType::UInt64;
}

/// A tensor of the model (an initializer, a Constant's value, an attribute, a test's input):
/// its values (in storage_dtype(type)) and its ONNX element type.
struct TypedData {
    std::string name;
    ElemType type = ElemType::Float;
    TensorData data;
};

struct GraphDesc;

/// A graph-valued attribute: the branches of If, the bodies of Loop and Scan. `graph` is the
/// subgraph as read from the file (shared, never modified); it is null for a list of graphs
/// (AttributeProto GRAPHS, which no supported op uses), of which only the name is kept.
struct GraphAttr {
    std::string name;  ///< the subgraph's name in the file (the attribute's name for a list)
    std::shared_ptr<const GraphDesc> graph;
};

/// An attribute of a type that no supported op reads (TYPE_PROTO of Optional and SequenceEmpty,
/// SPARSE_TENSOR, ...): only the type's name is kept, so that the model still loads and its
/// unsupported ops are reported all at once.
struct OpaqueAttr {
    std::string type;  ///< "TYPE_PROTO", "SPARSE_TENSOR", ...
};

/// One node attribute, converted from AttributeProto.
struct Attribute {
    using Value = std::variant<std::int64_t, float, std::string, std::vector<std::int64_t>,
                               std::vector<float>, std::vector<std::string>, TypedData, GraphAttr,
                               OpaqueAttr>;
    Value value;
    /// "int", "float", "string", "ints", "floats", "strings", "tensor", "graph", or the type of
    /// an OpaqueAttr ("TYPE_PROTO").
    std::string_view kind_name() const;
};

/// One node of the graph, in topological order.
struct Node {
    std::string op_type;
    std::string name;    ///< may be empty in the file; the loader names it "<op_type>_<index>"
    std::string domain;  ///< "" for the default ai.onnx domain
    std::vector<std::string> inputs;  ///< "" for an omitted optional input
    std::vector<std::string> outputs;
    std::map<std::string, Attribute, std::less<>> attributes;

    /// "node 'conv1' (Conv)", for messages.
    std::string describe() const;
    bool has_attr(std::string_view key) const { return attributes.count(key) != 0; }
    /// Typed attribute access: the default when absent; burn::Error naming the node when present
    /// with another type.
    std::int64_t attr_int(std::string_view key, std::int64_t def) const;
    float attr_float(std::string_view key, float def) const;
    std::string attr_string(std::string_view key, std::string_view def) const;
    std::vector<std::int64_t> attr_ints(std::string_view key,
                                        std::vector<std::int64_t> def = {}) const;
    std::vector<float> attr_floats(std::string_view key, std::vector<float> def = {}) const;
    std::vector<std::string> attr_strings(std::string_view key,
                                          std::vector<std::string> def = {}) const;
    const TypedData* attr_tensor(std::string_view key) const;
    /// The subgraph of a graph attribute, or nullptr when absent; burn::Error naming the node when
    /// the attribute has another type or is a list of graphs.
    const GraphDesc* attr_graph(std::string_view key) const;
    /// Every graph attribute of the node (name and subgraph), in attribute-name order.
    std::vector<std::pair<std::string, const GraphDesc*>> subgraphs() const;
    /// Present with the given kind, else burn::Error naming the node.
    std::int64_t require_int(std::string_view key) const;

    /// The i-th input's name, or empty when absent or omitted.
    std::string_view input(std::size_t i) const {
        return i < inputs.size() ? std::string_view(inputs[i]) : std::string_view();
    }
};

/// What a graph input or output holds: a tensor (the usual case), a sequence of tensors, or an
/// optional (empty, or holding a tensor or a sequence).
enum class ValueCategory { Tensor, Sequence, Optional, OptionalSequence };

/// A graph input or output: its name, element type and declared shape (-1 for a symbolic or
/// unknown dim; `dims` empty and `has_shape` false when the shape is not declared). For a
/// sequence or an optional, `type` and the shape are those of its tensors.
struct ValueInfo {
    std::string name;
    ElemType type = ElemType::Undefined;
    std::vector<std::int64_t> dims;
    std::vector<std::string> dim_names;  ///< the symbolic names ("batch"), "" for fixed dims
    bool has_shape = false;
    ValueCategory category = ValueCategory::Tensor;
    /// "float[batch, 3, 224, 224]", "seq(float[?])", "optional(float[2])": for messages.
    std::string describe() const;
};

/// A subgraph (the body of If, Loop or Scan). Its nodes read its inputs, its initializers, the
/// outputs of its earlier nodes and, by name, any value of the enclosing graphs defined before the
/// node that holds the subgraph (lexical scoping; a name defined here hides an outer one).
struct GraphDesc {
    std::string name;
    std::vector<ValueInfo> inputs;  ///< bound by the op at each run (Loop: iteration, cond, ...)
    std::vector<ValueInfo> outputs;
    std::map<std::string, TypedData> initializers;  ///< initializers and Constant nodes' values
    std::vector<Node> nodes;  ///< in topological order, Constant nodes removed
    /// The names the graph reads from enclosing graphs (its nested subgraphs' included), in order
    /// of first use: what an executor must keep alive until the node that holds the graph has run.
    std::vector<std::string> outer_names() const;
};

/// The most deeply subgraphs may be nested (a Loop in an If in a Loop ... counts one level each);
/// deeper files are refused at loading with a burn::Error saying so. Protobuf's own limit of 100
/// nested messages (three per level: graph, node, attribute; a few more inside a graph) refuses
/// files nested about 31 levels deep or more before this check, as files it cannot parse.
inline constexpr std::size_t max_subgraph_depth = 24;

/// A whole model, ready to be executed.
struct ModelDesc {
    std::string source;  ///< the file path, or "<bytes>"
    std::int64_t ir_version = 0;
    std::int64_t opset = 0;                      ///< of the default domain
    std::map<std::string, std::int64_t> opsets;  ///< every imported domain's version
    std::string producer;
    std::vector<ValueInfo> inputs;  ///< the graph's inputs that are not initializers
    std::vector<ValueInfo> outputs;
    std::map<std::string, TypedData> initializers;  ///< initializers and Constant nodes' values
    std::map<std::string, ValueInfo> value_info;    ///< intermediate values (from shape inference)
    std::vector<Node> nodes;                        ///< Constant nodes removed
    /// Empty when ONNX shape inference succeeded, else its message (the model still loads: shapes
    /// are known at run time).
    std::string shape_inference_error;

    /// The opset a node of `domain` runs at: that domain's import, else the default domain's.
    std::int64_t opset_for(std::string_view domain) const {
        auto it = opsets.find(std::string(domain));
        return it != opsets.end() ? it->second : opset;
    }
};

/// Size limit of a model file (protobuf's 2 GiB message limit; larger weights use external data).
inline constexpr std::size_t max_model_bytes = std::size_t(2) << 30;

/// Whether loading runs ONNX shape inference (libonnx) to fill `ModelDesc::value_info`. Off by
/// default: libonnx's inference is not hardened against hostile files (a zero stride divides by
/// zero in it), so it is for models you trust; the code generator turns it on.
enum class ShapeInference { Off, On };

/// Reads and checks an `.onnx` file (burn::Error naming the file when missing, truncated or
/// invalid). External-data tensors are read relative to the model's folder.
ModelDesc load_model(const std::filesystem::path& path,
                     ShapeInference shape_inference = ShapeInference::Off);
/// The same from bytes; external data, if any, is resolved relative to `base_dir`.
ModelDesc parse_model(std::span<const std::uint8_t> bytes,
                      const std::filesystem::path& base_dir = {},
                      std::string_view source = "<bytes>",
                      ShapeInference shape_inference = ShapeInference::Off);

/// Reads a serialized TensorProto (`input_0.pb` of the ONNX test suite).
TypedData load_tensor_proto(const std::filesystem::path& path);

/// Host data of a value that may not be a tensor: a tensor (one item), a sequence of tensors
/// (`elem` their element type), or an empty optional (no items).
struct ValueData {
    enum class Kind { Tensor, Sequence, None };
    Kind kind = Kind::Tensor;
    ElemType elem = ElemType::Undefined;
    std::vector<TypedData> items;
};
/// Reads a value file of the ONNX test suite as `category` declares it: a TensorProto, a
/// SequenceProto of tensors, or an OptionalProto (burn::Error naming the file when it is not one).
ValueData load_value_proto(const std::filesystem::path& path, ValueCategory category);
/// The same from bytes (`source` names them in messages); external data, if any, is resolved
/// relative to `base_dir`.
ValueData parse_value_proto(std::span<const std::uint8_t> bytes, ValueCategory category,
                            std::string_view source = "<bytes>",
                            const std::filesystem::path& base_dir = {});
/// Writes a TensorProto file (raw little-endian data) from `data` typed as `type`.
void save_tensor_proto(const std::filesystem::path& path, const TypedData& data);

}  // namespace burn::onnx

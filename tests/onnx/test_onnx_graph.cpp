// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::onnx::Graph<Cpu<float>> on small models built here with the ONNX protobuf API: results,
// run-time shape chains, types, and the errors of bad files, bad graphs and bad inputs.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "burn/backend/cpu.hpp"
#include "burn/onnx/graph.hpp"

namespace {

using B = burn::Cpu<float>;
using burn::Shape;
using burn::TensorData;
using burn::onnx::ElemType;
using burn::onnx::Graph;
namespace fs = std::filesystem;

::onnx::ModelProto make_model(int opset = 17) {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("burn-cpp test");
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m.mutable_graph()->set_name("test");
    return m;
}

/// A graph input or output; a negative dim is symbolic ("N").
void add_value(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>* list,
               const std::string& name, int elem, const std::vector<std::int64_t>& dims) {
    auto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* s = t->mutable_shape();
    for (auto d : dims) {
        auto* dim = s->add_dim();
        if (d < 0) dim->set_dim_param("N");
        else dim->set_dim_value(d);
    }
}

::onnx::NodeProto* add_node(::onnx::GraphProto* g, const std::string& op,
                            const std::vector<std::string>& in, const std::vector<std::string>& out,
                            const std::string& name = "") {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
}

void add_int_attr(::onnx::NodeProto* n, const std::string& name, std::int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
}

void add_float_init(::onnx::GraphProto* g, const std::string& name, const std::vector<float>& v,
                    const std::vector<std::int64_t>& dims) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    for (auto x : v) t->add_float_data(x);
}

void add_int64_init(::onnx::GraphProto* g, const std::string& name,
                    const std::vector<std::int64_t>& v, const std::vector<std::int64_t>& dims) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (auto x : v) t->add_int64_data(x);
}

std::vector<std::uint8_t> bytes_of(const ::onnx::ModelProto& m) {
    std::string s;
    EXPECT_TRUE(m.SerializeToString(&s));
    return {s.begin(), s.end()};
}

/// Expects `f` to throw burn::Error whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, const std::vector<std::string>& parts) {
    try {
        f();
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        const std::string msg = e.what();
        for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
    }
}

fs::path temp_dir(const std::string& name) {
    const auto d = fs::temp_directory_path() / ("burn_onnx_test_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

/// y = relu(x + b) with x: float[N, 3].
::onnx::ModelProto add_relu_model() {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {-1, 3});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {-1, 3});
    add_float_init(g, "b", {1, -2, 0.5f}, {3});
    add_node(g, "Add", {"x", "b"}, {"s"}, "add");
    add_node(g, "Relu", {"s"}, {"y"}, "relu");
    return m;
}

TEST(OnnxGraph, AddReluFromBytes) {
    auto g = Graph<B>::from_bytes(bytes_of(add_relu_model()));
    EXPECT_EQ(g.input_names(), std::vector<std::string>{"x"});
    EXPECT_EQ(g.output_names(), std::vector<std::string>{"y"});
    EXPECT_EQ(g.inputs()[0].type, ElemType::Float);
    EXPECT_EQ(g.inputs()[0].describe(), "float[N, 3]");
    auto out = g.run({TensorData(std::vector<float>{1, 1, 1, -3, 5, -1}, Shape{2, 3})});
    ASSERT_EQ(out.size(), 1u);
    out[0].assert_approx_eq(TensorData(std::vector<float>{2, 0, 1.5f, 0, 3, 0}, Shape{2, 3}));
}

TEST(OnnxGraph, ShapeChainAtRunTime) {
    // y = reshape(x, concat(shape(x)[0:1], [-1])): flattens whatever the batch size.
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {-1, 2, 3});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {-1, 6});
    add_int64_init(g, "zero", {0}, {1});
    add_int64_init(g, "minus_one", {-1}, {1});
    add_node(g, "Shape", {"x"}, {"shape"});
    auto* gather = add_node(g, "Gather", {"shape", "zero"}, {"batch"});
    add_int_attr(gather, "axis", 0);
    auto* cat = add_node(g, "Concat", {"batch", "minus_one"}, {"target"});
    add_int_attr(cat, "axis", 0);
    add_node(g, "Reshape", {"x", "target"}, {"y"});
    auto graph = Graph<B>::from_bytes(bytes_of(m));
    for (std::size_t n : {1u, 4u}) {
        std::vector<float> v(n * 6);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
        auto out = graph.run({TensorData(v, Shape{n, 2, 3})});
        EXPECT_EQ(out[0].shape, (Shape{n, 6}));
        EXPECT_EQ(out[0].to_vec<float>(), v);
    }
}

TEST(OnnxGraph, OutputKeepsItsOnnxType) {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {3});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::INT32, {3});
    auto* cast = add_node(g, "Cast", {"x"}, {"y"});
    add_int_attr(cast, "to", ::onnx::TensorProto::INT32);
    auto out = Graph<B>::from_bytes(bytes_of(m)).run({TensorData::from<float>({1.7f, -2.5f, 3})});
    EXPECT_EQ(out[0].dtype, burn::DType::I32);
    EXPECT_EQ(out[0].to_vec<std::int32_t>(), (std::vector<std::int32_t>{1, -2, 3}));
}

TEST(OnnxGraph, ConvAndGemm) {
    // conv(ones[1, 1, 3, 3], ones[1, 1, 2, 2], pads 0) = 4 everywhere; flatten; gemm with [4, 1].
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {1, 1, 3, 3});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {1, 1});
    add_float_init(g, "w", {1, 1, 1, 1}, {1, 1, 2, 2});
    add_float_init(g, "fc", {1, 2, 3, 4}, {4, 1});
    add_float_init(g, "bias", {0.5f}, {1});
    add_node(g, "Conv", {"x", "w"}, {"c"}, "conv");
    add_node(g, "Flatten", {"c"}, {"f"}, "flatten");
    add_node(g, "Gemm", {"f", "fc", "bias"}, {"y"}, "fc");
    auto out = Graph<B>::from_bytes(bytes_of(m)).run({TensorData::full(Shape{1, 1, 3, 3}, 1.0f)});
    out[0].assert_approx_eq(TensorData(std::vector<float>{4 * 10 + 0.5f}, Shape{1, 1}));
}

TEST(OnnxGraph, AllUnsupportedOpsInOneError) {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {2});
    add_value(g->mutable_output(), "z", ::onnx::TensorProto::FLOAT, {2});
    add_node(g, "FancyOp", {"x"}, {"a"}, "first_fancy");
    add_node(g, "Relu", {"a"}, {"b"}, "relu");
    add_node(g, "OtherOp", {"b"}, {"z"}, "second_other");
    expect_error(
        [&] { Graph<B>::from_bytes(bytes_of(m)); },
        {"2 nodes use unsupported ops", "FancyOp", "first_fancy", "OtherOp", "second_other"});
}

TEST(OnnxGraph, UndefinedInputIsRejected) {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {2});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {2});
    add_node(g, "Add", {"x", "later"}, {"y"}, "early");
    add_node(g, "Relu", {"x"}, {"later"}, "late");
    expect_error([&] { burn::onnx::parse_model(bytes_of(m)); },
                 {"early", "'later'", "topological order"});
}

TEST(OnnxGraph, InvalidAndTruncatedFiles) {
    const auto dir = temp_dir("files");
    const auto bytes = bytes_of(add_relu_model());
    const auto truncated = dir / "truncated.onnx";
    {
        std::ofstream f(truncated, std::ios::binary);
        f.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size() / 2));
    }
    expect_error([&] { Graph<B>::load(truncated); }, {"truncated.onnx", "protobuf"});
    const auto garbage = dir / "garbage.onnx";
    {
        std::ofstream f(garbage, std::ios::binary);
        f << "this is not an onnx model at all";
    }
    expect_error([&] { Graph<B>::load(garbage); }, {"garbage.onnx"});
    const auto empty = dir / "empty.onnx";
    { std::ofstream f(empty, std::ios::binary); }
    expect_error([&] { Graph<B>::load(empty); }, {"empty.onnx", "empty"});
    expect_error([&] { Graph<B>::load(dir / "missing.onnx"); }, {"missing.onnx", "no such file"});
    // The whole file loads.
    const auto good = dir / "good.onnx";
    {
        std::ofstream f(good, std::ios::binary);
        f.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
    }
    EXPECT_EQ(Graph<B>::load(good).model().nodes.size(), 2u);
    fs::remove_all(dir);
}

TEST(OnnxGraph, ExternalDataIsBoundsChecked) {
    const auto dir = temp_dir("external");
    {
        std::ofstream f(dir / "weights.bin", std::ios::binary);
        const float v[3] = {1, 2, 3};
        f.write(reinterpret_cast<const char*>(v), sizeof v);
    }
    auto make = [&](const std::string& location, std::int64_t offset) {
        auto m = make_model();
        auto* g = m.mutable_graph();
        add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {3});
        add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {3});
        auto* t = g->add_initializer();
        t->set_name("w");
        t->set_data_type(::onnx::TensorProto::FLOAT);
        t->add_dims(3);
        t->set_data_location(::onnx::TensorProto::EXTERNAL);
        auto* kv = t->add_external_data();
        kv->set_key("location");
        kv->set_value(location);
        kv = t->add_external_data();
        kv->set_key("offset");
        kv->set_value(std::to_string(offset));
        kv = t->add_external_data();
        kv->set_key("length");
        kv->set_value("12");
        add_node(g, "Mul", {"x", "w"}, {"y"});
        return bytes_of(m);
    };
    auto g = Graph<B>::from_bytes(make("weights.bin", 0), {}, dir);
    g.run({TensorData::from<float>({1, 1, 2})})[0].assert_approx_eq(
        TensorData::from<float>({1, 2, 6}));
    expect_error([&] { burn::onnx::parse_model(make("weights.bin", 4), dir); }, {"out of bounds"});
    expect_error([&] { burn::onnx::parse_model(make("../weights.bin", 0), dir); },
                 {"must not leave the model's folder"});
    expect_error([&] { burn::onnx::parse_model(make("nothere.bin", 0), dir); }, {"does not exist"});
    fs::remove_all(dir);
}

TEST(OnnxGraph, InputsAreChecked) {
    auto g = Graph<B>::from_bytes(bytes_of(add_relu_model()));
    expect_error([&] { g.run(std::vector<TensorData>{}); }, {"0 inputs given", "has 1"});
    expect_error(
        [&] {
            g.run({TensorData(std::vector<std::int64_t>{1, 2, 3}, Shape{1, 3})});
        },
        {"input 'x'", "float[N, 3]", "i64"});
    expect_error(
        [&] {
            g.run({TensorData(std::vector<float>{1, 2, 3}, Shape{3})});
        },
        {"input 'x'", "float[N, 3]", "[3]"});
    expect_error(
        [&] {
            g.run({TensorData(std::vector<float>{1, 2, 3, 4}, Shape{1, 4})});
        },
        {"input 'x'", "[1, 4]"});
}

TEST(OnnxGraph, OpErrorsNameTheNode) {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {2, 3});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {4, 2});
    add_int64_init(g, "shape", {4, 2}, {2});
    add_node(g, "Reshape", {"x", "shape"}, {"y"}, "bad_reshape");
    auto graph = Graph<B>::from_bytes(bytes_of(m));
    expect_error(
        [&] {
            graph.run({TensorData::full(Shape{2, 3}, 1.0f)});
        },
        {"bad_reshape", "Reshape", "[4, 2]"});
}

TEST(OnnxGraph, SupportedOpsTable) {
    const auto ops = Graph<B>::supported_ops();
    auto has = [&](const std::string& op) {
        for (const auto& o : ops)
            if (o.op_type == op) return true;
        return false;
    };
    for (const char* op :
         {"Conv", "Gemm", "Reshape", "Slice", "Resize", "Einsum", "LayerNormalization"})
        EXPECT_TRUE(has(op)) << op;
    EXPECT_FALSE(has("Loop"));
}

}  // namespace

// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::onnx::Graph<Cpu<float>> on small models built here with the ONNX protobuf API: results,
// run-time shape chains, types, sequences, the errors of bad files, bad graphs and bad inputs, and
// the ops that the ONNX 1.12 suite does not test, against PyTorch fixtures (onnx_ops.json).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "burn/backend/cpu.hpp"
#include "burn/onnx/graph.hpp"
#include "test_support.hpp"

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

void add_ints_attr(::onnx::NodeProto* n, const std::string& name,
                   const std::vector<std::int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
}

/// A graph attribute of `n` (If's branches, the bodies of Loop and Scan), to be filled.
::onnx::GraphProto* add_graph_attr(::onnx::NodeProto* n, const std::string& attr,
                                   const std::string& graph_name) {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(::onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(graph_name);
    return g;
}

void add_bool_init(::onnx::GraphProto* g, const std::string& name, bool v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::BOOL);
    t->add_int32_data(v ? 1 : 0);
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
         {"Conv", "Gemm", "Reshape", "Slice", "Resize", "Einsum", "LayerNormalization", "If",
          "Loop", "Scan", "NonMaxSuppression", "GridSample", "Adam"})
        EXPECT_TRUE(has(op)) << op;
    EXPECT_FALSE(has("StringNormalizer"));
}

// ------------------------------------------------------------------------------- control flow

/// The subgraph of graph attribute `attr` of `n`, to be changed.
::onnx::GraphProto* graph_attr(::onnx::NodeProto* n, const std::string& attr) {
    for (auto& a : *n->mutable_attribute())
        if (a.name() == attr) return a.mutable_g();
    ADD_FAILURE() << "no attribute " << attr;
    return nullptr;
}

TensorData scalar_bool(bool v) { return TensorData(std::vector<bool>{v}, Shape{}); }
TensorData scalar_i64(std::int64_t v) { return TensorData(std::vector<std::int64_t>{v}, Shape{}); }

/// y = If(cond, then: x * x + b, else: x - b): the branches read the outer input x, the outer
/// initializer b and the outer intermediate t = x * x, which only the then branch reads.
::onnx::ModelProto if_model() {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "cond", ::onnx::TensorProto::BOOL, {});
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {3});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {3});
    add_float_init(g, "b", {10, 20, 30}, {3});
    add_node(g, "Mul", {"x", "x"}, {"t"}, "square");
    auto* n = add_node(g, "If", {"cond"}, {"y"}, "if1");
    auto* then_g = add_graph_attr(n, "then_branch", "then_body");
    add_node(then_g, "Add", {"t", "b"}, {"then_y"}, "then_add");
    add_value(then_g->mutable_output(), "then_y", ::onnx::TensorProto::FLOAT, {3});
    auto* else_g = add_graph_attr(n, "else_branch", "else_body");
    add_node(else_g, "Sub", {"x", "b"}, {"else_y"}, "else_sub");
    add_value(else_g->mutable_output(), "else_y", ::onnx::TensorProto::FLOAT, {3});
    return m;
}

TEST(OnnxGraphControlFlow, IfChoosesEachBranchWithOuterReferences) {
    const auto graph = Graph<B>::from_bytes(bytes_of(if_model()));
    const auto x = TensorData::from<float>({1, 2, 3});
    graph.run({scalar_bool(true), x})[0].assert_approx_eq(TensorData::from<float>({11, 24, 39}));
    graph.run({scalar_bool(false), x})[0].assert_approx_eq(TensorData::from<float>({-9, -18, -27}));
    // The subgraph is kept as a nested graph description.
    const auto& node = graph.model().nodes[1];
    ASSERT_NE(node.attr_graph("then_branch"), nullptr);
    EXPECT_EQ(node.attr_graph("then_branch")->name, "then_body");
    EXPECT_EQ(node.attr_graph("then_branch")->outer_names(), (std::vector<std::string>{"t", "b"}));
}

/// (s, scan) = Loop(M, "", s0) with body (i, c, s) -> (false, s + i, s + i): only M counts the
/// iterations (the body's cond output is ignored without a cond input); `stop` is an initializer
/// of the body.
::onnx::ModelProto loop_m_model() {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "M", ::onnx::TensorProto::INT64, {});
    add_value(g->mutable_input(), "s0", ::onnx::TensorProto::FLOAT, {1});
    add_value(g->mutable_output(), "s", ::onnx::TensorProto::FLOAT, {1});
    add_value(g->mutable_output(), "scan", ::onnx::TensorProto::FLOAT, {-1, 1});
    auto* n = add_node(g, "Loop", {"M", "", "s0"}, {"s", "scan"}, "loop1");
    auto* body = add_graph_attr(n, "body", "loop_body");
    add_value(body->mutable_input(), "i", ::onnx::TensorProto::INT64, {});
    add_value(body->mutable_input(), "c", ::onnx::TensorProto::BOOL, {});
    add_value(body->mutable_input(), "s_in", ::onnx::TensorProto::FLOAT, {1});
    add_bool_init(body, "stop", false);
    auto* cast = add_node(body, "Cast", {"i"}, {"fi"}, "cast_i");
    add_int_attr(cast, "to", ::onnx::TensorProto::FLOAT);
    add_node(body, "Add", {"s_in", "fi"}, {"s_out"}, "accumulate");
    add_node(body, "Identity", {"s_out"}, {"s_scan"}, "scan_elem");
    add_value(body->mutable_output(), "stop", ::onnx::TensorProto::BOOL, {});
    add_value(body->mutable_output(), "s_out", ::onnx::TensorProto::FLOAT, {1});
    add_value(body->mutable_output(), "s_scan", ::onnx::TensorProto::FLOAT, {1});
    return m;
}

TEST(OnnxGraphControlFlow, LoopWithOnlyTripCount) {
    const auto graph = Graph<B>::from_bytes(bytes_of(loop_m_model()));
    const auto out = graph.run({scalar_i64(4), TensorData::from<float>({0.5f})});
    out[0].assert_approx_eq(TensorData::from<float>({6.5f}));
    out[1].assert_approx_eq(TensorData(std::vector<float>{0.5f, 1.5f, 3.5f, 6.5f}, Shape{4, 1}));
}

TEST(OnnxGraphControlFlow, LoopWithZeroIterations) {
    const auto graph = Graph<B>::from_bytes(bytes_of(loop_m_model()));
    for (std::int64_t trips : {0, -3}) {
        const auto out = graph.run({scalar_i64(trips), TensorData::from<float>({2})});
        out[0].assert_approx_eq(TensorData::from<float>({2}));
        // The scan output has length 0; the element shape [1] comes from the body's declaration.
        EXPECT_EQ(out[1].shape, (Shape{0, 1}));
        EXPECT_EQ(out[1].dtype, burn::DType::F32);
    }
}

/// (x, iters) = Loop([M], c0, x0) with body (i, c, x) -> (2x < 20, 2x, i); `two` and `limit` are
/// initializers of the outer graph.
::onnx::ModelProto loop_cond_model(bool with_m) {
    auto m = make_model();
    auto* g = m.mutable_graph();
    if (with_m) add_value(g->mutable_input(), "M", ::onnx::TensorProto::INT64, {});
    add_value(g->mutable_input(), "c0", ::onnx::TensorProto::BOOL, {});
    add_value(g->mutable_input(), "x0", ::onnx::TensorProto::INT64, {});
    add_value(g->mutable_output(), "x", ::onnx::TensorProto::INT64, {});
    add_value(g->mutable_output(), "iters", ::onnx::TensorProto::INT64, {-1});
    add_int64_init(g, "two", {2}, {});
    add_int64_init(g, "limit", {20}, {});
    auto* n = add_node(g, "Loop", {with_m ? "M" : "", "c0", "x0"}, {"x", "iters"}, "loop1");
    auto* body = add_graph_attr(n, "body", "doubling");
    add_value(body->mutable_input(), "i", ::onnx::TensorProto::INT64, {});
    add_value(body->mutable_input(), "c", ::onnx::TensorProto::BOOL, {});
    add_value(body->mutable_input(), "x_in", ::onnx::TensorProto::INT64, {});
    add_node(body, "Mul", {"x_in", "two"}, {"x_out"}, "double");
    add_node(body, "Less", {"x_out", "limit"}, {"c_out"}, "below_limit");
    add_node(body, "Identity", {"i"}, {"i_out"}, "iteration");
    add_value(body->mutable_output(), "c_out", ::onnx::TensorProto::BOOL, {});
    add_value(body->mutable_output(), "x_out", ::onnx::TensorProto::INT64, {});
    add_value(body->mutable_output(), "i_out", ::onnx::TensorProto::INT64, {});
    return m;
}

TEST(OnnxGraphControlFlow, LoopWithOnlyCondition) {
    const auto graph = Graph<B>::from_bytes(bytes_of(loop_cond_model(false)));
    // 1 -> 2 -> 4 -> 8 -> 16 -> 32: the body's condition (32 < 20) stops it after 5 iterations.
    auto out = graph.run({scalar_bool(true), scalar_i64(1)});
    EXPECT_EQ(out[0].to_vec<std::int64_t>(), std::vector<std::int64_t>{32});
    EXPECT_EQ(out[1].to_vec<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    // A false initial condition runs no iteration: a scan output of length 0, int64.
    out = graph.run({scalar_bool(false), scalar_i64(1)});
    EXPECT_EQ(out[0].to_vec<std::int64_t>(), std::vector<std::int64_t>{1});
    EXPECT_EQ(out[1].shape, Shape{0});
    EXPECT_EQ(out[1].dtype, burn::DType::I64);
}

TEST(OnnxGraphControlFlow, LoopWithTripCountAndCondition) {
    const auto graph = Graph<B>::from_bytes(bytes_of(loop_cond_model(true)));
    // M stops first.
    auto out = graph.run({scalar_i64(3), scalar_bool(true), scalar_i64(1)});
    EXPECT_EQ(out[0].to_vec<std::int64_t>(), std::vector<std::int64_t>{8});
    EXPECT_EQ(out[1].to_vec<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2}));
    // The condition stops first.
    out = graph.run({scalar_i64(10), scalar_bool(true), scalar_i64(1)});
    EXPECT_EQ(out[0].to_vec<std::int64_t>(), std::vector<std::int64_t>{32});
    EXPECT_EQ(out[1].to_vec<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

/// (s, cols, rows) = Scan(s0, X) over the columns of X (axis -1), last column first; the body
/// adds each column to the state; `cols` stacks the states along axis -1 (appending), `rows`
/// along axis 0 (prepending).
::onnx::ModelProto scan_model() {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "s0", ::onnx::TensorProto::FLOAT, {2});
    add_value(g->mutable_input(), "X", ::onnx::TensorProto::FLOAT, {2, 3});
    add_value(g->mutable_output(), "s", ::onnx::TensorProto::FLOAT, {2});
    add_value(g->mutable_output(), "cols", ::onnx::TensorProto::FLOAT, {2, 3});
    add_value(g->mutable_output(), "rows", ::onnx::TensorProto::FLOAT, {3, 2});
    auto* n = add_node(g, "Scan", {"s0", "X"}, {"s", "cols", "rows"}, "scan1");
    add_int_attr(n, "num_scan_inputs", 1);
    add_ints_attr(n, "scan_input_axes", {-1});
    add_ints_attr(n, "scan_input_directions", {1});
    add_ints_attr(n, "scan_output_axes", {-1, 0});
    add_ints_attr(n, "scan_output_directions", {0, 1});
    auto* body = add_graph_attr(n, "body", "scan_body");
    add_value(body->mutable_input(), "s_in", ::onnx::TensorProto::FLOAT, {2});
    add_value(body->mutable_input(), "col", ::onnx::TensorProto::FLOAT, {2});
    add_node(body, "Add", {"s_in", "col"}, {"s_out"}, "add_col");
    add_node(body, "Identity", {"s_out"}, {"e1"});
    add_node(body, "Identity", {"s_out"}, {"e2"});
    add_value(body->mutable_output(), "s_out", ::onnx::TensorProto::FLOAT, {2});
    add_value(body->mutable_output(), "e1", ::onnx::TensorProto::FLOAT, {2});
    add_value(body->mutable_output(), "e2", ::onnx::TensorProto::FLOAT, {2});
    return m;
}

TEST(OnnxGraphControlFlow, ScanReverseDirectionAndNonZeroAxes) {
    const auto graph = Graph<B>::from_bytes(bytes_of(scan_model()));
    const auto out = graph.run({TensorData::from<float>({0, 0}),
                                TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3})});
    // Columns 2, 1, 0: states [3, 6], [5, 11], [6, 15].
    out[0].assert_approx_eq(TensorData::from<float>({6, 15}));
    out[1].assert_approx_eq(TensorData(std::vector<float>{3, 5, 6, 6, 11, 15}, Shape{2, 3}));
    out[2].assert_approx_eq(TensorData(std::vector<float>{6, 15, 5, 11, 3, 6}, Shape{3, 2}));
}

/// y = If(flag, then: Loop(n, "", x) adding w each iteration, else: x): the Loop reads the outer
/// inputs n and x, its body the initializer w two levels up; the else branch has no node and
/// returns the outer x.
::onnx::ModelProto nested_model() {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "flag", ::onnx::TensorProto::BOOL, {});
    add_value(g->mutable_input(), "n", ::onnx::TensorProto::INT64, {});
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {2});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {2});
    add_float_init(g, "w", {1, 10}, {2});
    auto* n = add_node(g, "If", {"flag"}, {"y"}, "if1");
    auto* then_g = add_graph_attr(n, "then_branch", "then_body");
    auto* loop = add_node(then_g, "Loop", {"n", "", "x"}, {"acc"}, "inner_loop");
    auto* body = add_graph_attr(loop, "body", "inner_body");
    add_value(body->mutable_input(), "i", ::onnx::TensorProto::INT64, {});
    add_value(body->mutable_input(), "c", ::onnx::TensorProto::BOOL, {});
    add_value(body->mutable_input(), "acc_in", ::onnx::TensorProto::FLOAT, {2});
    add_node(body, "Add", {"acc_in", "w"}, {"acc_out"}, "add_w");
    add_node(body, "Identity", {"c"}, {"c_out"});
    add_value(body->mutable_output(), "c_out", ::onnx::TensorProto::BOOL, {});
    add_value(body->mutable_output(), "acc_out", ::onnx::TensorProto::FLOAT, {2});
    add_value(then_g->mutable_output(), "acc", ::onnx::TensorProto::FLOAT, {2});
    auto* else_g = add_graph_attr(n, "else_branch", "else_body");
    add_value(else_g->mutable_output(), "x", ::onnx::TensorProto::FLOAT, {2});
    return m;
}

TEST(OnnxGraphControlFlow, NestedLoopInsideIf) {
    const auto graph = Graph<B>::from_bytes(bytes_of(nested_model()));
    const auto x = TensorData::from<float>({0.5f, -1});
    graph.run({scalar_bool(true), scalar_i64(3), x})[0].assert_approx_eq(
        TensorData::from<float>({3.5f, 29}));
    graph.run({scalar_bool(false), scalar_i64(3), x})[0].assert_approx_eq(x);
    EXPECT_EQ(graph.model().nodes[0].attr_graph("then_branch")->outer_names(),
              (std::vector<std::string>{"n", "x", "w"}));
    // Copies and moves outlive the original (the compiled subgraphs point into the shared model).
    auto original = std::make_unique<Graph<B>>(Graph<B>::from_bytes(bytes_of(nested_model())));
    const Graph<B> copy = *original;
    const Graph<B> moved = std::move(*original);
    original.reset();
    for (const auto* g : {&copy, &moved})
        g->run({scalar_bool(true), scalar_i64(1), x})[0].assert_approx_eq(
            TensorData::from<float>({1.5f, 9}));
}

TEST(OnnxGraphControlFlow, LoopCarriedValueMayChangeShape) {
    // acc = Loop(M, "", [0]) with body acc -> concat(acc, [i]): ONNX lets loop-carried values
    // change shape between iterations (not type).
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "M", ::onnx::TensorProto::INT64, {});
    add_value(g->mutable_output(), "acc", ::onnx::TensorProto::INT64, {-1});
    add_int64_init(g, "start", {7}, {1});
    auto* n = add_node(g, "Loop", {"M", "", "start"}, {"acc"}, "grow");
    auto* body = add_graph_attr(n, "body", "grow_body");
    add_value(body->mutable_input(), "i", ::onnx::TensorProto::INT64, {});
    add_value(body->mutable_input(), "c", ::onnx::TensorProto::BOOL, {});
    add_value(body->mutable_input(), "acc_in", ::onnx::TensorProto::INT64, {-1});
    add_int64_init(body, "axes", {0}, {1});
    add_node(body, "Unsqueeze", {"i", "axes"}, {"i1"});
    auto* cat = add_node(body, "Concat", {"acc_in", "i1"}, {"acc_out"});
    add_int_attr(cat, "axis", 0);
    add_node(body, "Identity", {"c"}, {"c_out"});
    add_value(body->mutable_output(), "c_out", ::onnx::TensorProto::BOOL, {});
    add_value(body->mutable_output(), "acc_out", ::onnx::TensorProto::INT64, {-1});
    const auto out = Graph<B>::from_bytes(bytes_of(m)).run({scalar_i64(3)});
    EXPECT_EQ(out[0].to_vec<std::int64_t>(), (std::vector<std::int64_t>{7, 0, 1, 2}));
}

// ------------------------------------------------------------------------ control-flow errors

TEST(OnnxGraphControlFlow, MissingBranchIsReportedAtLoading) {
    auto m = if_model();
    auto* attrs = m.mutable_graph()->mutable_node(1)->mutable_attribute();
    for (int i = 0; i < attrs->size(); ++i)
        if (attrs->Get(i).name() == "else_branch") attrs->DeleteSubrange(i, 1);
    expect_error([&] { Graph<B>::from_bytes(bytes_of(m)); },
                 {"onnx::Graph", "node 'if1' (If)", "graph attribute 'else_branch' is missing"});
}

TEST(OnnxGraphControlFlow, WrongSubgraphInputAndOutputCounts) {
    {
        auto m = loop_m_model();  // the body takes i, c, s_in: one input more
        auto* body = graph_attr(m.mutable_graph()->mutable_node(0), "body");
        add_value(body->mutable_input(), "extra", ::onnx::TensorProto::FLOAT, {1});
        expect_error([&] { Graph<B>::from_bytes(bytes_of(m)); },
                     {"node 'loop1' (Loop)", "declares 4 inputs, expected 3",
                      "iteration_num, cond and the node's 1 loop-carried values"});
    }
    {
        auto m = if_model();  // a then branch with two outputs for a node with one
        auto* then_g = graph_attr(m.mutable_graph()->mutable_node(1), "then_branch");
        add_value(then_g->mutable_output(), "t", ::onnx::TensorProto::FLOAT, {3});
        expect_error([&] { Graph<B>::from_bytes(bytes_of(m)); },
                     {"node 'if1' (If)", "'then_branch'", "has 2 outputs, the node 1"});
    }
    {
        auto m = scan_model();  // three scan outputs but two output axes
        auto* n = m.mutable_graph()->mutable_node(0);
        for (auto& a : *n->mutable_attribute())
            if (a.name() == "scan_output_axes") a.add_ints(0);
        expect_error([&] { Graph<B>::from_bytes(bytes_of(m)); },
                     {"node 'scan1' (Scan)", "'scan_output_axes' has 3 values, expected 2"});
    }
    {
        auto m = scan_model();
        auto* attrs = m.mutable_graph()->mutable_node(0)->mutable_attribute();
        for (int i = 0; i < attrs->size(); ++i)
            if (attrs->Get(i).name() == "num_scan_inputs") attrs->DeleteSubrange(i, 1);
        expect_error([&] { Graph<B>::from_bytes(bytes_of(m)); },
                     {"node 'scan1' (Scan)", "'num_scan_inputs' is missing"});
    }
    {
        auto m = loop_cond_model(false);  // neither M nor cond
        m.mutable_graph()->mutable_node(0)->set_input(1, "");
        expect_error([&] { Graph<B>::from_bytes(bytes_of(m)); },
                     {"node 'loop1' (Loop)", "neither M", "never end"});
    }
}

TEST(OnnxGraphControlFlow, NonScalarConditionIsAnError) {
    auto m = if_model();
    auto* cond = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type();
    cond->mutable_shape()->add_dim()->set_dim_value(2);
    const auto graph = Graph<B>::from_bytes(bytes_of(m));
    expect_error(
        [&] {
            graph.run({TensorData(std::vector<bool>{true, false}, Shape{2}),
                       TensorData::from<float>({1, 2, 3})});
        },
        {"node 'if1' (If)", "cond must be a bool tensor with exactly one element, got bool[2]"});
    // The body's condition too: compared with a [2] limit, it has two elements.
    auto loop = loop_cond_model(false);
    add_int64_init(loop.mutable_graph(), "limits", {20, 20}, {2});
    auto* body = graph_attr(loop.mutable_graph()->mutable_node(0), "body");
    body->mutable_node(1)->set_input(1, "limits");
    const auto g2 = Graph<B>::from_bytes(bytes_of(loop));
    expect_error(
        [&] {
            g2.run({scalar_bool(true), scalar_i64(1)});
        },
        {"node 'loop1' (Loop)",
         "the body's cond output at iteration 0 must be a bool tensor with exactly one "
         "element, got bool[2]"});
}

TEST(OnnxGraphControlFlow, TypeAndShapeChangesAcrossIterations) {
    {
        // A loop-carried value must keep its type.
        auto m = loop_m_model();
        auto* body = graph_attr(m.mutable_graph()->mutable_node(0), "body");
        auto* cast = add_node(body, "Cast", {"s_out"}, {"s_int"}, "to_int");
        add_int_attr(cast, "to", ::onnx::TensorProto::INT64);
        body->mutable_output(1)->set_name("s_int");
        const auto graph = Graph<B>::from_bytes(bytes_of(m));
        expect_error(
            [&] {
                graph.run({scalar_i64(2), TensorData::from<float>({0})});
            },
            {"node 'loop1' (Loop)", "loop-carried value 0 ('s_int') is int64[1]",
             "after iteration 0", "started as float"});
    }
    {
        // A scan output must keep its shape: the growing loop-carried value as scan output.
        auto m = make_model();
        auto* g = m.mutable_graph();
        add_value(g->mutable_input(), "M", ::onnx::TensorProto::INT64, {});
        add_value(g->mutable_output(), "acc", ::onnx::TensorProto::FLOAT, {-1});
        add_value(g->mutable_output(), "all", ::onnx::TensorProto::FLOAT, {-1, -1});
        add_float_init(g, "start", {1}, {1});
        auto* n = add_node(g, "Loop", {"M", "", "start"}, {"acc", "all"}, "loop1");
        auto* body = add_graph_attr(n, "body", "grow_body");
        add_value(body->mutable_input(), "i", ::onnx::TensorProto::INT64, {});
        add_value(body->mutable_input(), "c", ::onnx::TensorProto::BOOL, {});
        add_value(body->mutable_input(), "acc_in", ::onnx::TensorProto::FLOAT, {-1});
        auto* cat = add_node(body, "Concat", {"acc_in", "start"}, {"acc_out"});
        add_int_attr(cat, "axis", 0);
        add_node(body, "Identity", {"acc_out"}, {"elem"});
        add_node(body, "Identity", {"c"}, {"c_out"});
        add_value(body->mutable_output(), "c_out", ::onnx::TensorProto::BOOL, {});
        add_value(body->mutable_output(), "acc_out", ::onnx::TensorProto::FLOAT, {-1});
        add_value(body->mutable_output(), "elem", ::onnx::TensorProto::FLOAT, {-1});
        const auto graph = Graph<B>::from_bytes(bytes_of(m));
        EXPECT_EQ(graph.run({scalar_i64(1)})[1].shape, (Shape{1, 2}));
        expect_error([&] { graph.run({scalar_i64(3)}); },
                     {"node 'loop1' (Loop)", "scan output 0 ('elem') is float[3] at iteration 1",
                      "float[2] at iteration 0", "must keep their type and shape"});
    }
    {
        // A Scan state must keep its shape.
        auto m = scan_model();
        auto* body = graph_attr(m.mutable_graph()->mutable_node(0), "body");
        auto* add = body->mutable_node(0);
        add->set_op_type("Concat");
        add_int_attr(add, "axis", 0);
        const auto graph = Graph<B>::from_bytes(bytes_of(m));
        expect_error(
            [&] {
                graph.run({TensorData::from<float>({0, 0}), TensorData::full(Shape{2, 3}, 1.0f)});
            },
            {"node 'scan1' (Scan)", "state 0 ('s_out') is float[4] after iteration 0",
             "it was float[2]", "must keep their type and shape"});
    }
    {
        // Scan inputs of different lengths.
        auto m = scan_model();
        auto* n = m.mutable_graph()->mutable_node(0);
        n->add_input("X2");
        add_value(m.mutable_graph()->mutable_input(), "X2", ::onnx::TensorProto::FLOAT, {2, 4});
        for (auto& a : *n->mutable_attribute()) {
            if (a.name() == "num_scan_inputs") a.set_i(2);
            if (a.name() == "scan_input_axes" || a.name() == "scan_input_directions") a.add_ints(1);
            if (a.name() == "body")
                add_value(a.mutable_g()->mutable_input(), "col2", ::onnx::TensorProto::FLOAT, {2});
        }
        const auto graph = Graph<B>::from_bytes(bytes_of(m));
        expect_error(
            [&] {
                graph.run({TensorData::from<float>({0, 0}), TensorData::full(Shape{2, 3}, 1.0f),
                           TensorData::full(Shape{2, 4}, 1.0f)});
            },
            {"node 'scan1' (Scan)", "scan input 1 is float[2, 4]", "length along axis 1 is 4",
             "scan input 0 has 3"});
    }
}

TEST(OnnxGraphControlFlow, UnsupportedOpsInSubgraphsAreReportedWithTheOthers) {
    auto m = nested_model();
    auto* g = m.mutable_graph();
    // An unsupported op in the model's graph and one in the Loop's body, two levels down.
    add_node(g, "FancyOp", {"x"}, {"fancy"}, "top_fancy");
    auto* then_g = graph_attr(g->mutable_node(0), "then_branch");
    auto* body = graph_attr(then_g->mutable_node(0), "body");
    add_node(body, "OtherOp", {"acc_in"}, {"other"}, "deep_other");
    expect_error([&] { Graph<B>::from_bytes(bytes_of(m)); },
                 {"2 nodes use unsupported ops",
                  "OtherOp (node 'deep_other' in attribute 'body' of node 'inner_loop' (Loop) in "
                  "attribute 'then_branch' of node 'if1' (If), opset 17)",
                  "FancyOp (node 'top_fancy', opset 17)"});
}

TEST(OnnxGraphControlFlow, SubgraphNamesAreResolvedAtLoading) {
    // A name that neither the subgraph nor an enclosing graph defines before the node.
    auto m = if_model();
    auto* then_g = graph_attr(m.mutable_graph()->mutable_node(1), "then_branch");
    then_g->mutable_node(0)->set_input(1, "nowhere");
    expect_error([&] { burn::onnx::parse_model(bytes_of(m)); },
                 {"node 'then_add' (Add) in attribute 'then_branch' of node 'if1' (If)",
                  "input 'nowhere'", "enclosing graph"});
    // A value of the outer graph defined after the node that holds the subgraph.
    auto late = if_model();
    auto* g = late.mutable_graph();
    add_node(g, "Relu", {"x"}, {"later"}, "late_relu");
    graph_attr(g->mutable_node(1), "then_branch")->mutable_node(0)->set_input(1, "later");
    expect_error([&] { burn::onnx::parse_model(bytes_of(late)); }, {"input 'later'"});
    // A subgraph output defined nowhere.
    auto bad_out = if_model();
    graph_attr(bad_out.mutable_graph()->mutable_node(1), "then_branch")
        ->mutable_output(0)
        ->set_name("missing_output");
    expect_error([&] { burn::onnx::parse_model(bytes_of(bad_out)); },
                 {"output 'missing_output' of the subgraph"});
}

/// cond ? (cond ? ... x ...) : x, `depth` Ifs deep.
::onnx::ModelProto deep_model(int depth) {
    auto m = make_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "c", ::onnx::TensorProto::BOOL, {});
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {1});
    add_value(g->mutable_output(), "y0", ::onnx::TensorProto::FLOAT, {1});
    ::onnx::GraphProto* at = g;
    for (int d = 0; d < depth; ++d) {
        const std::string y = "y" + std::to_string(d);
        auto* n = add_node(at, "If", {"c"}, {y}, "if" + std::to_string(d));
        auto* else_g = add_graph_attr(n, "else_branch", "else" + std::to_string(d));
        add_value(else_g->mutable_output(), "x", ::onnx::TensorProto::FLOAT, {1});
        at = add_graph_attr(n, "then_branch", "then" + std::to_string(d));
        const std::string inner = d + 1 < depth ? "y" + std::to_string(d + 1) : "x";
        add_value(at->mutable_output(), inner, ::onnx::TensorProto::FLOAT, {1});
    }
    return m;
}

TEST(OnnxGraphControlFlow, NestingDepthIsLimited) {
    const auto x = TensorData::from<float>({4});
    const auto ok = Graph<B>::from_bytes(bytes_of(deep_model(burn::onnx::max_subgraph_depth)));
    ok.run({scalar_bool(true), x})[0].assert_approx_eq(x);
    expect_error(
        [&] { burn::onnx::parse_model(bytes_of(deep_model(burn::onnx::max_subgraph_depth + 1))); },
        {"node 'if24' (If) in attribute 'then_branch' of node 'if23' (If)",
         "subgraphs are nested more than 24 levels deep"});
    // Much deeper files stop at protobuf's own recursion limit, with an error too.
    expect_error([&] { burn::onnx::parse_model(bytes_of(deep_model(200))); },
                 {"protobuf parsing failed", "nested more than protobuf's limit"});
}

}  // namespace

// ---------------------------------------------------------------------------- sequences

/// A graph input or output of type seq(tensor(elem)).
void add_sequence_value(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>* list,
                        const std::string& name, int elem) {
    auto* v = list->Add();
    v->set_name(name);
    v->mutable_type()
        ->mutable_sequence_type()
        ->mutable_elem_type()
        ->mutable_tensor_type()
        ->set_elem_type(elem);
}

// x [6] split into pieces of 2, the pieces counted, stacked and concatenated back; the model's
// own sequence never leaves the graph, so run() on host data works.
TEST(OnnxGraphSequences, SplitCountStackAndConcatenate) {
    auto m = make_model(13);
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {6});
    add_int64_init(g, "two", {2}, {});
    add_node(g, "SplitToSequence", {"x", "two"}, {"seq"});
    add_node(g, "SequenceLength", {"seq"}, {"len"});
    auto* stack = add_node(g, "ConcatFromSequence", {"seq"}, {"stacked"});
    add_int_attr(stack, "axis", 0);
    add_int_attr(stack, "new_axis", 1);
    add_int_attr(add_node(g, "ConcatFromSequence", {"seq"}, {"joined"}), "axis", -1);
    add_value(g->mutable_output(), "len", ::onnx::TensorProto::INT64, {});
    add_value(g->mutable_output(), "stacked", ::onnx::TensorProto::FLOAT, {3, 2});
    add_value(g->mutable_output(), "joined", ::onnx::TensorProto::FLOAT, {6});
    const auto graph = Graph<B>::from_bytes(bytes_of(m));
    const auto out = graph.run({TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{6})});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].to_vec<std::int64_t>(), (std::vector<std::int64_t>{3}));
    EXPECT_EQ(out[1].shape, (Shape{3, 2}));
    EXPECT_EQ(out[1].to_vec<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(out[2].to_vec<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

// A sequence input takes a Value<B>::sequence; host-data run() names it; a tensor op given a
// sequence says so; positions are checked.
TEST(OnnxGraphSequences, SequenceInputsAndErrors) {
    using burn::onnx::Value;
    auto m = make_model(13);
    auto* g = m.mutable_graph();
    add_sequence_value(g->mutable_input(), "s", ::onnx::TensorProto::FLOAT);
    add_value(g->mutable_input(), "pos", ::onnx::TensorProto::INT64, {});
    add_node(g, "SequenceAt", {"s", "pos"}, {"y"});
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {-1});
    const auto graph = Graph<B>::from_bytes(bytes_of(m));
    EXPECT_EQ(graph.inputs()[0].describe(), "seq(float[?])");
    auto tensor = [](std::vector<float> v) {
        const Shape s{v.size()};
        return Value<B>::from_data(TensorData(std::move(v), s), ElemType::Float, {});
    };
    auto pos = [](std::int64_t p) {
        return Value<B>::from_data(TensorData(std::vector<std::int64_t>{p}, Shape{}),
                                   ElemType::Int64, {});
    };
    const auto seq = Value<B>::sequence({tensor({1, 2}), tensor({3, 4, 5})}, ElemType::Float);
    EXPECT_EQ(graph.run({seq, pos(-1)})[0].to_data().to_vec<float>(),
              (std::vector<float>{3, 4, 5}));
    expect_error(
        [&] {
            graph.run({seq, pos(2)});
        },
        {"SequenceAt", "position 2 is out of range for a sequence of 2 tensors"});
    expect_error(
        [&] {
            graph.run({tensor({1}), pos(0)});
        },
        {"input 's' is declared seq(float[?]), got float[1]"});
    expect_error(
        [&] {
            graph.run({TensorData(std::vector<float>{1}, Shape{1}),
                       TensorData(std::vector<std::int64_t>{0}, Shape{})});
        },
        {"'s' is declared seq(float[?]), not a tensor"});
    expect_error(
        [&] {
            Value<B>::sequence({tensor({1}), pos(0)}, ElemType::Float);
        },
        {"a sequence of float tensors cannot hold int64[]"});
    // A tensor op on a sequence.
    auto m2 = make_model(13);
    auto* g2 = m2.mutable_graph();
    add_value(g2->mutable_input(), "x", ::onnx::TensorProto::FLOAT, {2});
    add_node(g2, "SequenceConstruct", {"x", "x"}, {"s"});
    add_node(g2, "Relu", {"s"}, {"y"}, "relu_of_seq");
    add_value(g2->mutable_output(), "y", ::onnx::TensorProto::FLOAT, {2});
    const auto graph2 = Graph<B>::from_bytes(bytes_of(m2));
    expect_error(
        [&] {
            graph2.run({TensorData(std::vector<float>{1, 2}, Shape{2})});
        },
        {"relu_of_seq", "got seq(float) of 2 tensors"});
}

// --------------------------------------------------------- ops outside the ONNX 1.12 suite

// LpPool, GlobalLpPool, LpNormalization, MaxRoiPool, opset 18's GroupNormalization, Col2Im,
// CenterCropPad and Bitwise ops, DeformConv, AffineGrid, GridSample's opset-20 modes and
// RMSNormalization: one-node models built from tests/fixtures/onnx_ops.json (gen_onnx_ops.py:
// outputs from PyTorch and torchvision), run through the registry, outputs compared.
TEST(OnnxGraphFixtures, OpsOutsideTheSuiteMatchPyTorch) {
    const auto names = burn::testing::fixture_case_list("onnx_ops", "cases");
    ASSERT_FALSE(names.empty());
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        const auto& c = burn::testing::fixture("onnx_ops", name);
        const auto& p = c.at("params");
        auto m = make_model(p.at("opset").get<int>());
        auto* g = m.mutable_graph();
        std::vector<std::string> order = p.at("order").get<std::vector<std::string>>();
        std::vector<TensorData> inputs;
        auto* node = add_node(g, p.at("op").get<std::string>(), order, {"y"}, "n");
        for (const auto& in : order) {
            if (in.empty()) continue;  // an omitted optional input
            TensorData d = burn::testing::fixture_data(c.at("inputs").at(in));
            std::string type = d.dtype == burn::DType::F64 ? "float" : "int64";
            if (p.at("types").contains(in)) type = p.at("types").at(in).get<std::string>();
            const std::map<std::string, std::pair<int, burn::DType>> types{
                {"float", {::onnx::TensorProto::FLOAT, burn::DType::F32}},
                {"int64", {::onnx::TensorProto::INT64, burn::DType::I64}},
                {"int32", {::onnx::TensorProto::INT32, burn::DType::I32}},
                {"uint8", {::onnx::TensorProto::UINT8, burn::DType::U8}}};
            const auto& [elem, dtype] = types.at(type);
            std::vector<std::int64_t> dims(d.shape.begin(), d.shape.end());
            add_value(g->mutable_input(), in, elem, dims);
            inputs.push_back(d.convert(dtype));
        }
        for (const auto& [key, v] : p.at("attrs").items()) {
            auto* a = node->add_attribute();
            a->set_name(key);
            if (v.is_array()) {
                a->set_type(::onnx::AttributeProto::INTS);
                for (const auto& e : v) a->add_ints(e.get<std::int64_t>());
            } else if (v.is_number_integer()) {
                a->set_type(::onnx::AttributeProto::INT);
                a->set_i(v.get<std::int64_t>());
            } else if (v.is_string()) {
                a->set_type(::onnx::AttributeProto::STRING);
                a->set_s(v.get<std::string>());
            } else {
                a->set_type(::onnx::AttributeProto::FLOAT);
                a->set_f(v.get<float>());
            }
        }
        const TensorData want = burn::testing::fixture_data(c.at("outputs").at("y"));
        add_value(g->mutable_output(), "y", ::onnx::TensorProto::UNDEFINED, {});
        const auto out = Graph<B>::from_bytes(bytes_of(m)).run(inputs);
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].shape, want.shape);
        const auto got = out[0].to_vec<double>(), exp = want.to_vec<double>();
        ASSERT_EQ(got.size(), exp.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            EXPECT_NEAR(got[i], exp[i], 1e-5 + 1e-5 * std::abs(exp[i])) << "element " << i;
    }
}

// Multinomial draws follow the softmax of its input: 20000 draws per row land in each class
// with the softmax's frequency (within 4 standard deviations); int32 by default.
TEST(OnnxGraphFixtures, MultinomialFollowsTheSoftmax) {
    auto m = make_model(13);
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "logits", ::onnx::TensorProto::FLOAT, {2, 3});
    add_int_attr(add_node(g, "Multinomial", {"logits"}, {"y"}), "sample_size", 20000);
    add_value(g->mutable_output(), "y", ::onnx::TensorProto::INT32, {2, 20000});
    const std::vector<float> logits{0.0f, 1.0f, 2.0f, 3.0f, -1.0f, 3.0f};
    B::seed(7);
    const auto out = Graph<B>::from_bytes(bytes_of(m)).run({TensorData(logits, Shape{2, 3})});
    ASSERT_EQ(out[0].dtype, burn::DType::I32);
    const auto v = out[0].to_vec<std::int64_t>();
    for (std::size_t r = 0; r < 2; ++r) {
        double z = 0;
        for (std::size_t k = 0; k < 3; ++k) z += std::exp(logits[r * 3 + k]);
        for (std::size_t k = 0; k < 3; ++k) {
            const double p = std::exp(logits[r * 3 + k]) / z;
            const auto hits = std::count(v.begin() + static_cast<std::ptrdiff_t>(r * 20000),
                                         v.begin() + static_cast<std::ptrdiff_t>((r + 1) * 20000),
                                         static_cast<std::int64_t>(k));
            EXPECT_NEAR(static_cast<double>(hits) / 20000, p, 4 * std::sqrt(p * (1 - p) / 20000))
                << "row " << r << " class " << k;
        }
    }
}

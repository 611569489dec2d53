// SPDX-License-Identifier: MIT OR Apache-2.0
// The ONNX code generator (burn-onnx, burn_onnx_generate): headers generated at build time from
// models of the ONNX backend test suite (tests/CMakeLists.txt lists them) run every
// test_data_set_* and match the expected outputs and burn::onnx::Graph<B>; the MNIST example's
// model trains under Autodiff<Cpu<float>>, round-trips through every recorder, and the generator
// reports unsupported ops and bad options.
#include <gtest/gtest.h>

#include <burn/autodiff/autodiff.hpp>
#include <burn/backend/cpu.hpp>
#include <burn/nn/loss.hpp>
#include <burn/onnx/codegen.hpp>
#include <burn/onnx/graph.hpp>
#include <burn/optim/grads.hpp>
#include <burn/optim/sgd.hpp>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "codegen_cases.inc"  // #include "<model>.hpp" for every generated model
#include "codegen_check.hpp"
#include "control_flow.hpp"  // tests/fixtures/onnx_control/control_flow.onnx
#include "train_mnist.hpp"   // examples/onnx-inference/mnist.onnx

namespace fs = std::filesystem;
using burn::onnx::TypedData;
using burn::onnx::Value;
using B = burn::Cpu<float>;
using AD = burn::Autodiff<B>;

namespace {
using burn::onnx::testing::check_generated;
using burn::onnx::testing::mismatch;
}  // namespace

TEST(OnnxCodegen, GeneratedModelsMatchTheTestSuite) {
#define BURN_CODEGEN_CASE(NAME, DIR, RECORD) check_generated<B, NAME>(DIR, RECORD);
#include "codegen_cases_run.inc"
#undef BURN_CODEGEN_CASE
}

// A typed forward with several outputs returns a tuple of tensors of the declared ranks.
TEST(OnnxCodegen, TypedForwardWithSeveralOutputs) {
    const auto model =
        NodeSplitEqualParts1d<B>::from_file(BURN_ONNX_NODE_SPLIT_EQUAL_PARTS1D_RECORD);
    const auto x = burn::Tensor<B, 1>::from_data(burn::TensorData::from<float>({1, 2, 3, 4, 5, 6}));
    auto [a, b, c] = model.forward(x);
    EXPECT_EQ(a.to_data().to_vec<float>(), (std::vector<float>{1, 2}));
    EXPECT_EQ(b.to_data().to_vec<float>(), (std::vector<float>{3, 4}));
    EXPECT_EQ(c.to_data().to_vec<float>(), (std::vector<float>{5, 6}));
}

// Control flow in generated code: If, Loop and Scan whose subgraphs are lambdas reading outer
// values (the Loop's body reads the parameter w two levels up; the else branch returns the outer
// input x) give the values computed by hand and those of Graph<B>.
TEST(OnnxCodegen, ControlFlowSubgraphsRunAsLambdas) {
    using burn::Shape;
    using burn::TensorData;
    using burn::onnx::ElemType;
    const auto model = ControlFlow<B>::from_file(BURN_ONNX_CONTROL_FLOW_RECORD);
    EXPECT_EQ(model.num_params(), 5u);  // w [3], read only by the Loop's body, and s0 [2]
    const auto graph = burn::onnx::Graph<B>::load(ControlFlow<B>::model_source);
    const TensorData x(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3});
    struct Case {
        bool flag;
        std::int64_t n;
        std::vector<float> y, s, cums;
    };
    // y = flag ? x + n w : x; cums: running sums of y's columns from the last one.
    const Case cases[] = {
        {true, 2, {3, 22, 203, 6, 25, 206}, {228, 237}, {203, 225, 228, 206, 231, 237}},
        {false, 2, {1, 2, 3, 4, 5, 6}, {6, 15}, {3, 5, 6, 6, 11, 15}},
        {true, 0, {1, 2, 3, 4, 5, 6}, {6, 15}, {3, 5, 6, 6, 11, 15}}};
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string("flag ") + (c.flag ? "true" : "false") + ", n " +
                     std::to_string(c.n));
        const auto flag =
            Value<B>::from_data(TensorData(std::vector<bool>{c.flag}, Shape{}), ElemType::Bool, {});
        const auto n = Value<B>::from_data(TensorData(std::vector<std::int64_t>{c.n}, Shape{}),
                                           ElemType::Int64, {});
        const auto got =
            model.forward_values({flag, n, Value<B>::from_data(x, ElemType::Float, {})});
        const auto ref = graph.run({flag, n, Value<B>::from_data(x, ElemType::Float, {})});
        ASSERT_EQ(got.size(), 3u);
        EXPECT_EQ(got[0].to_data().to_vec<float>(), c.y);
        EXPECT_EQ(got[1].to_data().to_vec<float>(), c.s);
        EXPECT_EQ(got[2].to_data().to_vec<float>(), c.cums);
        EXPECT_EQ(got[2].shape(), (Shape{2, 3}));
        for (std::size_t o = 0; o < got.size(); ++o)
            EXPECT_EQ(got[o].to_data().to_vec<float>(), ref[o].to_data().to_vec<float>())
                << "output " << o << " differs from Graph<B>";
        // The typed forward: flag and n are rank-0, so Value<B>s; the outputs are tensors.
        const auto [y, s, cums] = model.forward(flag, n, burn::Tensor<B, 2>::from_data(x));
        EXPECT_EQ(cums.to_data().to_vec<float>(), c.cums);
    }
    // The header holds the subgraphs as lambdas given to the control-flow nodes.
    burn::onnx::CodegenOptions o;
    o.name = "ControlFlow";
    const auto f = burn::onnx::generate_files(
        burn::onnx::load_model(ControlFlow<B>::model_source, burn::onnx::ShapeInference::On), o);
    EXPECT_NE(f.header.find("{{\"body\", [&](std::vector<V> burn_in"), std::string::npos);
    EXPECT_NE(f.header.find("burn::onnx::gen::run_subgraph_node<B>("), std::string::npos);
    EXPECT_NE(f.header.find("burn::onnx::gen::signature(\"add_w\""), std::string::npos);
}

// Gradients flow through If, Loop and Scan under Autodiff: with flag true and n = 2,
// y = x + 2 w, s = s0 + the row sums of y and cums[r][k] = s0[r] + the last k + 1 columns of y, so
// d(sum(y) + sum(s) + sum(cums)) is 2 * (1 + 1 + k) per column for w (k = 1, 2, 3 from the first
// column: the scan runs from the last), 1 + 3 for s0 and 1 + 1 + k for x. With flag false the
// Loop never runs and w gets no gradient.
TEST(OnnxCodegen, ControlFlowIsDifferentiable) {
    using burn::Shape;
    using burn::TensorData;
    using burn::onnx::ElemType;
    const auto model = ControlFlow<AD>::from_file(BURN_ONNX_CONTROL_FLOW_RECORD);
    const auto n = Value<AD>::from_data(TensorData(std::vector<std::int64_t>{2}, Shape{}),
                                        ElemType::Int64, {});
    for (const bool taken : {true, false}) {
        SCOPED_TRACE(taken ? "then branch" : "else branch");
        const auto x = burn::Tensor<AD, 2>::from_data(
                           TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3}))
                           .require_grad();
        const auto flag =
            Value<AD>::from_data(TensorData(std::vector<bool>{taken}, Shape{}), ElemType::Bool, {});
        const auto [y, s, cums] = model.forward(flag, n, x);
        auto grads = (y.sum() + s.sum() + cums.sum()).backward();
        const auto gw = model.w.val().grad(grads);
        if (taken) {
            ASSERT_TRUE(gw.has_value());
            EXPECT_EQ(gw->to_data().to_vec<float>(), (std::vector<float>{12, 16, 20}));
        } else {
            EXPECT_TRUE(!gw.has_value() || gw->abs().sum().into_scalar() == 0.0f);
        }
        const auto gs0 = model.s0.val().grad(grads);
        ASSERT_TRUE(gs0.has_value());
        EXPECT_EQ(gs0->to_data().to_vec<float>(), (std::vector<float>{4, 4}));
        const auto gx = x.grad(grads);
        ASSERT_TRUE(gx.has_value());
        EXPECT_EQ(gx->to_data().to_vec<float>(), (std::vector<float>{3, 4, 5, 3, 4, 5}));
    }
}

// Input checks: wrong rank or fixed dim, naming the model input.
TEST(OnnxCodegen, ForwardChecksInputs) {
    const auto model = TrainMnist<B>::from_file(BURN_ONNX_TRAIN_MNIST_RECORD);
    try {
        (void)model.forward(burn::Tensor<B, 4>::zeros({1, 1, 27, 28}));
        FAIL() << "no error";
    } catch (const burn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("input 'image' is declared float[batch, 1, 28, 28]"),
                  std::string::npos)
            << e.what();
    }
}

// The imported model fine-tunes: parameters get gradients under Autodiff<Cpu<float>>, one SGD
// step lowers the loss on the batch, and valid() gives the inner-backend model.
TEST(OnnxCodegen, GeneratedModelTrainsUnderAutodiff) {
    auto model = TrainMnist<AD>::from_file(BURN_ONNX_TRAIN_MNIST_RECORD);
    EXPECT_EQ(model.num_params(), 27562u);
    const auto x = burn::Tensor<AD, 4>::random({16, 1, 28, 28}, burn::Distribution::Uniform(0, 1));
    std::vector<std::int64_t> labels(16);
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::int64_t(i % 10);
    const auto y =
        burn::Tensor<AD, 1, burn::Int>::from_data(burn::TensorData(labels, burn::Shape{16}));
    const auto ce = burn::nn::CrossEntropyLossConfig{}.init<AD>();
    const auto loss0 = ce.forward(model.forward(x), y);
    auto grads = loss0.backward();
    const auto g = model.conv1_weight.val().grad(grads);
    ASSERT_TRUE(g.has_value());
    EXPECT_GT(g->abs().sum().into_scalar(), 0.0f);
    ASSERT_TRUE(model.fc2_bias.val().grad(grads).has_value());
    auto optim = burn::optim::SgdConfig{}.init<AD>();
    model = optim.step(0.05, model, burn::optim::GradientsParams<AD>::from_grads(grads, model));
    const float before = loss0.into_scalar();
    const float after = ce.forward(model.forward(x), y).into_scalar();
    EXPECT_LT(after, before);
    const TrainMnist<B> inner = model.valid();
    EXPECT_EQ(inner.num_params(), 27562u);
}

// Saved and loaded with every recorder: the same outputs.
TEST(OnnxCodegen, RoundTripsThroughEveryRecorder) {
    using namespace burn::record;
    const auto model = TrainMnist<B>::from_file(BURN_ONNX_TRAIN_MNIST_RECORD);
    const auto x = burn::Tensor<B, 4>::random({2, 1, 28, 28}, burn::Distribution::Uniform(0, 1));
    const auto want = model.forward(x).to_data().to_vec<float>();
    const fs::path dir = fs::temp_directory_path() / "burn_onnx_codegen_records";
    fs::create_directories(dir);
    auto check = [&](const auto& recorder, float tol) {
        const auto path = model.save_file(dir / "mnist", recorder);
        const auto loaded = TrainMnist<B>(burn::Cpu<>::Device{}).load_file(path, recorder);
        const auto got = loaded.forward(x).to_data().template to_vec<float>();
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            EXPECT_NEAR(got[i], want[i], tol) << path.string();
    };
    check(NamedMpkFileRecorder<FullPrecisionSettings>{}, 0.0f);
    check(NamedMpkGzFileRecorder<FullPrecisionSettings>{}, 0.0f);
    check(BinFileRecorder<FullPrecisionSettings>{}, 0.0f);
    check(BinGzFileRecorder<FullPrecisionSettings>{}, 0.0f);
    check(JsonGzFileRecorder<FullPrecisionSettings>{}, 1e-5f);
    check(PrettyJsonFileRecorder<FullPrecisionSettings>{}, 1e-5f);
    check(NamedMpkFileRecorder<HalfPrecisionSettings>{}, 5e-2f);
    check(BinFileRecorder<DoublePrecisionSettings>{}, 0.0f);
    // The embedded weights (EMBED_STATES) are the same as the record file's.
    const auto embedded = TrainMnist<B>::from_embedded();
    EXPECT_EQ(embedded.forward(x).to_data().to_vec<float>(), want);
    fs::remove_all(dir);
}

// The generator reports every unsupported op at once, and rejects bad names and record types.
TEST(OnnxCodegen, GeneratorErrors) {
    burn::onnx::ModelDesc m;
    m.source = "bad.onnx";
    m.opset = 13;
    m.opsets[""] = 13;
    burn::onnx::ValueInfo in;
    in.name = "x";
    in.type = burn::onnx::ElemType::Float;
    m.inputs.push_back(in);
    for (const char* op : {"StringNormalizer", "Relu", "TfIdfVectorizer"}) {
        burn::onnx::Node n;
        n.op_type = op;
        n.name = std::string("n_") + op;
        n.inputs = {"x"};
        n.outputs = {std::string("y_") + op};
        m.nodes.push_back(n);
    }
    m.outputs.push_back({"y_Relu", burn::onnx::ElemType::Float, {}, {}, false});
    burn::onnx::CodegenOptions o;
    o.name = "Bad";
    try {
        (void)burn::onnx::generate_files(m, o);
        FAIL() << "no error";
    } catch (const burn::Error& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "bad.onnx: 2 nodes use unsupported ops: StringNormalizer (node "
                      "'n_StringNormalizer', opset 13), TfIdfVectorizer (node 'n_TfIdfVectorizer', "
                      "opset 13)"),
                  std::string::npos)
            << e.what();
    }
    m.nodes.erase(m.nodes.begin());
    m.nodes.pop_back();
    // A control-flow node is checked against its subgraphs: a Loop without its body.
    {
        auto bad = m;
        burn::onnx::Node loop;
        loop.op_type = "Loop";
        loop.name = "loop1";
        loop.inputs = {"", "x", "x"};
        loop.outputs = {"z"};
        bad.nodes.push_back(loop);
        try {
            (void)burn::onnx::generate_files(bad, o);
            FAIL() << "no error";
        } catch (const burn::Error& e) {
            EXPECT_NE(
                std::string(e.what()).find("burn-onnx: bad.onnx: node 'loop1' (Loop): onnx::Loop: "
                                           "the required graph attribute 'body' is missing"),
                std::string::npos)
                << e.what();
        }
    }
    o.name = "1bad";
    EXPECT_THROW((void)burn::onnx::generate_files(m, o), burn::Error);
    o.name = "Good";
    o.record_type = "yaml";
    EXPECT_THROW((void)burn::onnx::generate_files(m, o), burn::Error);
    o.record_type = "bin";
    const auto f = burn::onnx::generate_files(m, o);
    EXPECT_EQ(f.header_name, "good.hpp");
    EXPECT_EQ(f.record_name, "good.bin");
    EXPECT_NE(f.header.find("struct Good"), std::string::npos);
    // An input of unknown rank is taken as a Value<B>.
    EXPECT_NE(f.header.find("forward(const burn::onnx::Value<B>& x)"), std::string::npos);
}

// GridSample and DFT run through the backend's ops, so imported spatial transformers and spectral
// layers train: their Autodiff gradients match central finite differences of the op on Cpu<float>
// (the loss is a fixed weighted sum of the outputs; grid points stay away from pixel centres,
// where bilinear sampling has kinks).
TEST(OnnxOps, GridSampleAndDftAreDifferentiable) {
    using burn::Shape;
    using burn::TensorData;
    using burn::onnx::ElemType;
    namespace ops = burn::onnx::ops;
    const Shape xs{1, 2, 3, 4}, gs{1, 2, 3, 2};
    std::vector<float> xv(xs.num_elements()), gv(gs.num_elements());
    for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(0.7f * static_cast<float>(i)) + 1;
    for (std::size_t i = 0; i < gv.size(); ++i)
        gv[i] = 0.93f * std::sin(1.3f * static_cast<float>(i) + 0.2f);
    struct Case {
        const char* name;
        std::function<Value<B>(const Value<B>&, const Value<B>&)> f;
        std::function<Value<AD>(const Value<AD>&, const Value<AD>&)> f_ad;
    };
    auto gsample = [](const char* mode, const char* pad) {
        return Case{mode,
                    [=](const Value<B>& x, const Value<B>& g) {
                        return ops::grid_sample(x, g, mode, pad, false);
                    },
                    [=](const Value<AD>& x, const Value<AD>& g) {
                        return ops::grid_sample(x, g, mode, pad, false);
                    }};
    };
    // DFT along axis 2 of x viewed as [1, 2, 6, 2] (complex), zero-padded to 8; no grid.
    auto dft =
        Case{"dft",
             [](const Value<B>& x, const Value<B>&) {
                 return ops::dft(ops::detail::reshape(x, Shape{1, 2, 6, 2}), 8, 2, false, false);
             },
             [](const Value<AD>& x, const Value<AD>&) {
                 return ops::dft(ops::detail::reshape(x, Shape{1, 2, 6, 2}), 8, 2, false, false);
             }};
    for (const auto& c : {gsample("bilinear", "zeros"), gsample("bicubic", "border"),
                          gsample("bilinear", "reflection"), dft}) {
        SCOPED_TRACE(c.name);
        auto value = [](const std::vector<float>& v, const Shape& s) {
            return Value<B>::from_data(TensorData(v, s), ElemType::Float, {});
        };
        auto loss = [&](const std::vector<float>& x, const std::vector<float>& g) {
            const auto y = c.f(value(x, xs), value(g, gs)).to_data().to_vec<float>();
            double l = 0;
            for (std::size_t i = 0; i < y.size(); ++i) l += y[i] * (0.5 + 0.1 * double(i % 7));
            return l;
        };
        const auto x = burn::Tensor<AD, 4>::from_data(TensorData(xv, xs)).require_grad();
        const auto g = burn::Tensor<AD, 4>::from_data(TensorData(gv, gs)).require_grad();
        const Value<AD> y = c.f_ad(Value<AD>(burn::Float{}, x.primitive(), ElemType::Float),
                                   Value<AD>(burn::Float{}, g.primitive(), ElemType::Float));
        const std::size_t n = y.shape().num_elements();
        std::vector<float> wv(n);
        for (std::size_t i = 0; i < n; ++i) wv[i] = 0.5f + 0.1f * static_cast<float>(i % 7);
        const auto yt =
            burn::Tensor<AD, 1>::from_primitive(AD::float_reshape(y.float_prim(), Shape{n}));
        const auto grads =
            (yt * burn::Tensor<AD, 1>::from_data(TensorData(wv, Shape{n}))).sum().backward();
        auto check = [&](const burn::Tensor<AD, 4>& t, std::vector<float> v, bool is_x) {
            const auto got = t.grad(grads);
            ASSERT_TRUE(got.has_value());
            const auto gd = got->to_data().to_vec<float>();
            for (std::size_t i = 0; i < v.size(); ++i) {
                const float h = 1e-2f, keep = v[i];
                v[i] = keep + h;
                const double up = is_x ? loss(v, gv) : loss(xv, v);
                v[i] = keep - h;
                const double down = is_x ? loss(v, gv) : loss(xv, v);
                v[i] = keep;
                EXPECT_NEAR(gd[i], (up - down) / (2 * h), 2e-2 * (1 + std::abs(gd[i])))
                    << (is_x ? "x[" : "grid[") << i << "]";
            }
        };
        check(x, xv, true);
        if (std::string(c.name) != "dft") check(g, gv, false);
    }
}

// The ops whose output depends on the data, and their errors.
TEST(OnnxOps, NonMaxSuppressionUniqueAndErrors) {
    using burn::Shape;
    using burn::TensorData;
    using burn::onnx::ElemType;
    namespace ops = burn::onnx::ops;
    auto fval = [](std::vector<float> v, Shape s) {
        return Value<B>::from_data(TensorData(std::move(v), s), ElemType::Float, {});
    };
    // Two boxes overlapping with IoU 0.81 (the second suppressed at 0.5, kept at 0.9), a third
    // apart; scores order them 1, 0, 2 and the third is under the score threshold for class 1.
    const auto boxes = fval({0, 0, 1, 1, 0, 0, 0.9f, 0.9f, 5, 5, 6, 6}, Shape{1, 3, 4});
    const auto scores = fval({0.8f, 0.9f, 0.3f, 0.8f, 0.9f, 0.05f}, Shape{1, 2, 3});
    auto sel = ops::non_max_suppression(boxes, scores, 10, 0.5, 0.1, false);
    EXPECT_EQ(sel.to_ints(), (std::vector<std::int64_t>{0, 0, 1, 0, 0, 2, 0, 1, 1}));
    sel = ops::non_max_suppression(boxes, scores, 2, 0.9, std::nullopt, false);
    EXPECT_EQ(sel.to_ints(), (std::vector<std::int64_t>{0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0}));
    EXPECT_EQ(sel.shape(), (Shape{4, 3}));
    EXPECT_THROW(
        ops::non_max_suppression(boxes, fval({1, 2}, Shape{1, 1, 2}), 1, 0.5, std::nullopt, false),
        burn::Error);

    const auto x = Value<B>::from_data(
        TensorData(std::vector<std::int64_t>{3, 1, 3, 2, 1, 3}, Shape{6}), ElemType::Int64, {});
    for (const bool sorted : {true, false}) {
        const auto u = ops::unique(x, std::nullopt, sorted);
        ASSERT_EQ(u.size(), 4u);
        if (sorted) {
            EXPECT_EQ(u[0].to_ints(), (std::vector<std::int64_t>{1, 2, 3}));
            EXPECT_EQ(u[1].to_ints(), (std::vector<std::int64_t>{1, 3, 0}));
            EXPECT_EQ(u[2].to_ints(), (std::vector<std::int64_t>{2, 0, 2, 1, 0, 2}));
            EXPECT_EQ(u[3].to_ints(), (std::vector<std::int64_t>{2, 1, 3}));
        } else {
            EXPECT_EQ(u[0].to_ints(), (std::vector<std::int64_t>{3, 1, 2}));
            EXPECT_EQ(u[2].to_ints(), (std::vector<std::int64_t>{0, 1, 0, 2, 1, 0}));
        }
    }
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const burn::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const auto img = fval(std::vector<float>(12, 1.0f), Shape{1, 1, 3, 4});
    EXPECT_NE(message([&] {
                  ops::grid_sample(img, fval({0, 0}, Shape{1, 2}), "bilinear", "zeros", false);
              }).find("onnx::GridSample: grid must be [N, H_out, W_out, 2] with N = 1"),
              std::string::npos);
    EXPECT_NE(message([&] {
                  ops::grid_sample(img, fval({0, 0}, Shape{1, 1, 1, 2}), "linear", "zeros", false);
              }).find("mode must be bilinear, nearest or bicubic, got 'linear'"),
              std::string::npos);
    EXPECT_NE(message([&] {
                  ops::det(fval({1, 2, 3, 4, 5, 6}, Shape{2, 3}));
              }).find("onnx::Det: input must be [..., M, M], got float[2, 3]"),
              std::string::npos);
    EXPECT_NEAR(ops::det(fval({2, 1, 1, 3, 2, 1, 2, 1, 3}, Shape{3, 3})).to_doubles()[0], 2.0,
                1e-5);
}

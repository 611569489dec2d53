// SPDX-License-Identifier: MIT OR Apache-2.0
// PyTorch and safetensors import: the state dicts written by Debian's PyTorch
// (tests/fixtures/gen_pytorch_import.py -> tests/fixtures/pytorch/*) read with every dtype and
// both torch.save formats, mapped onto burn-cpp modules of the same architecture whose outputs
// must equal PyTorch's (tests/fixtures/pytorch_import.json); safetensors written here read back
// in PyTorch's layout; remaps, top-level keys, partial loads and the errors.
#include <burn/record/pytorch.hpp>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"

// A namespace of its own: the suite is a unity build (tests/CMakeLists.txt).
namespace burn::testing::module_pytorch_import {
namespace {

using B = Cpu<float>;
using record::LoadArgs;
using record::LoadReport;
using record::PyTorchFileRecorder;
using record::SafetensorsFileRecorder;
namespace fs = std::filesystem;

constexpr Tolerance tol{1e-4, 1e-4};

fs::path fixture_file(std::string_view name) { return fs::path(fixture_path("pytorch")) / name; }
constexpr std::string_view json_file = "pytorch_import";

template <std::size_t D>
Tensor<B, D> input(std::string_view c, std::string_view name = "x") {
    return fixture_input<B, D>(json_file, c, name);
}
TensorData output(std::string_view c, std::string_view name = "y") {
    return fixture_output(json_file, c, name);
}

// ---------------------------------------------------------------------------- the models
/// Burn's book example: two convolutions (PyTorch nests them under `conv`).
template <Backend BB>
struct ConvPair {
    nn::Conv2d<BB> conv1, conv2;
    BURN_MODULE(conv1, conv2)
    static ConvPair init() {
        return {nn::Conv2dConfig{.channels = {{2, 2}}, .kernel_size = {{2, 2}}}.init<BB>(),
                nn::Conv2dConfig{.channels = {{2, 2}}, .kernel_size = {{2, 2}}, .bias = false}
                    .init<BB>()};
    }
    Tensor<BB, 4> forward(const Tensor<BB, 4>& x) const { return conv2.forward(conv1.forward(x)); }
};

/// nn.Sequential(Linear, ReLU, Linear, ReLU, Linear) as a vector of Linear layers.
template <Backend BB>
struct Mlp {
    std::vector<nn::Linear<BB>> layers;
    BURN_MODULE(layers)
    static Mlp init(std::vector<std::size_t> sizes = {4, 8, 8, 3}) {
        Mlp m;
        for (std::size_t i = 0; i + 1 < sizes.size(); ++i)
            m.layers.push_back(
                nn::LinearConfig{.d_input = sizes[i], .d_output = sizes[i + 1]}.init<BB>());
        return m;
    }
    Tensor<BB, 2> forward(Tensor<BB, 2> x) const {
        for (std::size_t i = 0; i < layers.size(); ++i) {
            x = layers[i].forward(x);
            if (i + 1 < layers.size()) x = activation::relu(x);
        }
        return x;
    }
};

template <Backend BB>
struct ConvBn {
    nn::Conv2d<BB> conv;
    nn::BatchNorm<BB> bn;
    nn::Linear<BB> fc;
    BURN_MODULE(conv, bn, fc)
    static ConvBn init() {
        return {nn::Conv2dConfig{.channels = {{3, 4}},
                                 .kernel_size = {{3, 3}},
                                 .padding = nn::PaddingConfig2d::Same{}}
                    .init<BB>(),
                nn::BatchNormConfig{.num_features = 4}.init<BB>(),
                nn::LinearConfig{.d_input = 4 * 6 * 6, .d_output = 5}.init<BB>()};
    }
    Tensor<BB, 2> forward(const Tensor<BB, 4>& x) const {
        auto h = activation::relu(bn.forward(conv.forward(x)));
        return fc.forward(h.template flatten<2>(1, 3));
    }
};

template <Backend BB>
struct Norms {
    nn::Embedding<BB> emb;
    nn::LayerNorm<BB> ln;
    nn::GroupNorm<BB> gn;
    BURN_MODULE(emb, ln, gn)
    static Norms init() {
        return {nn::EmbeddingConfig{.n_embedding = 10, .d_model = 6}.init<BB>(),
                nn::LayerNormConfig{.d_model = 6}.init<BB>(),
                nn::GroupNormConfig{.num_groups = 2, .num_channels = 6}.init<BB>()};
    }
};

template <Backend BB>
struct Rnns {
    nn::Lstm<BB> lstm;
    nn::BiLstm<BB> bilstm;
    nn::Gru<BB> gru;
    BURN_MODULE(lstm, bilstm, gru)
    static Rnns init() {
        return {nn::LstmConfig{.d_input = 3, .d_hidden = 4, .bias = true}.init<BB>(),
                nn::BiLstmConfig{.d_input = 3, .d_hidden = 4, .bias = true}.init<BB>(),
                nn::GruConfig{.d_input = 3, .d_hidden = 4, .bias = true}.init<BB>()};
    }
};

template <Backend BB>
struct Transformers {
    nn::TransformerEncoder<BB> enc, enc_nf;
    BURN_MODULE(enc, enc_nf)
    static Transformers init() {
        auto config = [](bool norm_first) {
            return nn::TransformerEncoderConfig{.d_model = 8,
                                                .d_ff = 16,
                                                .n_heads = 2,
                                                .n_layers = 2,
                                                .dropout = 0.0,
                                                .norm_first = norm_first};
        };
        return {config(false).template init<BB>(), config(true).template init<BB>()};
    }
};

/// The encoder half of encoder_decoder.pt: nn.Sequential(Linear, ReLU, Linear).
template <Backend BB>
struct EncoderOnly {
    std::vector<nn::Linear<BB>> encoder;
    BURN_MODULE(encoder)
    Tensor<BB, 2> forward(const Tensor<BB, 2>& x) const {
        return encoder[1].forward(activation::relu(encoder[0].forward(x)));
    }
};

template <class M>
M load_pt(const M& model, std::string_view file, LoadArgs args = LoadArgs(""),
          LoadReport* report = nullptr) {
    if (args.file().empty()) args = LoadArgs(fixture_file(file));
    return model.load_record(PyTorchFileRecorder<>{}.load(args, model, report));
}

// ---------------------------------------------------------------------------- raw readers
/// The values gen_pytorch_import.py stores under each dtype's key.
void expect_dtypes(const record::StateDict& dict, std::string_view file) {
    SCOPED_TRACE(std::string(file));
    const std::vector<std::pair<std::string, DType>> want = {
        {"f64", DType::F64}, {"f32", DType::F32},  {"f16", DType::F16}, {"bf16", DType::BF16},
        {"i64", DType::I64}, {"i32", DType::I32},  {"i16", DType::I16}, {"i8", DType::I8},
        {"u8", DType::U8},   {"bool", DType::Bool}};
    ASSERT_EQ(dict.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const auto& [key, data] = dict[i];
        EXPECT_EQ(key, want[i].first);
        EXPECT_EQ(data.dtype, want[i].second) << key;
        EXPECT_EQ(data.shape, (Shape{2, 3})) << key;
        const auto v = data.to_vec<double>();
        std::vector<double> expected;
        if (is_float(data.dtype)) expected = {-2.5, -1, 0, 0.5, 1.25, 3};
        else if (data.dtype == DType::U8) expected = {0, 1, 2, 3, 250, 255};
        else if (data.dtype == DType::Bool) expected = {1, 0, 1, 1, 0, 0};
        else expected = {-2, -1, 0, 1, 2, 3};
        EXPECT_EQ(v, expected) << key;
    }
}

TEST(PyTorchImport, ReadsEveryDtypeFromBothFormatsAndSafetensors) {
    expect_dtypes(record::read_pytorch_file(fixture_file("dtypes.pt")), "dtypes.pt");
    expect_dtypes(record::read_pytorch_file(fixture_file("dtypes_legacy.pt")), "dtypes_legacy.pt");
    const auto st = record::read_safetensors_file(fixture_file("dtypes.safetensors"));
    expect_dtypes(st.tensors, "dtypes.safetensors");
    EXPECT_EQ(st.metadata, (record::SafetensorsMetadata{{"format", "pt"}}));
}

TEST(PyTorchImport, ViewsSharingAStorageAreReadAsCopies) {
    for (const char* file : {"views.pt", "views_legacy.pt"}) {
        SCOPED_TRACE(file);
        const auto dict = record::read_pytorch_file(fixture_file(file));
        ASSERT_EQ(dict.size(), 5u);
        for (const auto& [key, data] : dict) {
            const TensorData want = output("views", key);
            EXPECT_EQ(data.shape, want.shape) << key;
            EXPECT_NO_THROW(data.assert_approx_eq(want, tol)) << key;
        }
    }
}

TEST(PyTorchImport, TruncatedOrCorruptFilesGiveErrors) {
    for (const char* file : {"dtypes.pt", "dtypes_legacy.pt", "dtypes.safetensors"}) {
        std::ifstream in(fixture_file(file), std::ios::binary);
        const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
        ASSERT_GT(bytes.size(), 64u);
        const bool st = std::string_view(file).ends_with(".safetensors");
        auto read = [&](std::span<const std::uint8_t> b) {
            if (st) (void)record::read_safetensors_bytes(b, file);
            else (void)record::read_pytorch_bytes(b, {}, file);
        };
        EXPECT_NO_THROW(read(bytes)) << file;
        for (std::size_t cut = 0; cut < bytes.size(); cut += 1 + cut / 8) {
            SCOPED_TRACE(cut);
            EXPECT_THROW(read(std::span(bytes).first(cut)), Error) << file;
        }
        // Flipped bytes: an error or a successful read, never a crash (ASan runs this too).
        for (std::size_t at = 0; at < bytes.size(); at += 7) {
            auto copy = bytes;
            copy[at] ^= 0x5a;
            try {
                read(copy);
            } catch (const Error&) {
            }
        }
    }
}

TEST(PyTorchImport, RefusesForeignFilesWithTheirName) {
    const std::vector<std::uint8_t> junk = {'h', 'e', 'l', 'l', 'o', 0, 1, 2, 3, 4, 5, 6};
    EXPECT_BURN_ERROR((void)record::read_pytorch_bytes(junk, {}, "junk.pt"), "junk.pt");
    EXPECT_BURN_ERROR((void)record::read_safetensors_bytes(junk, "junk.safetensors"),
                      "junk.safetensors");
    EXPECT_BURN_ERROR((void)record::read_pytorch_file(fixture_file("no_such_file.pt")),
                      "no_such_file.pt");
}

TEST(PyTorchImport, RefusesHostileFiles) {
    // gen_pytorch_import.py crafts them: a pickle calling os.system (both formats), a tensor
    // larger than its storage, an offset past its end, a storage larger than its data.
    for (const char* file : {"hostile_global.pt", "hostile_global_legacy.pt"}) {
        SCOPED_TRACE(file);
        EXPECT_BURN_ERROR((void)record::read_pytorch_file(fixture_file(file)), "system");
        EXPECT_BURN_ERROR((void)record::read_pytorch_file(fixture_file(file)), file);
    }
    for (const char* file : {"hostile_size.pt", "hostile_offset.pt", "hostile_storage.pt"}) {
        SCOPED_TRACE(file);
        EXPECT_BURN_ERROR((void)record::read_pytorch_file(fixture_file(file)), "storage");
    }
}

// ---------------------------------------------------------------------------- modules
TEST(PyTorchImport, KeyRemapAsInBurnsBook) {
    const auto fresh = ConvPair<B>::init();
    // Without the remap the module's conv1 is not found, and the message says what to do.
    EXPECT_BURN_ERROR(load_pt(fresh, "key_remap.pt"), "conv1.weight");
    EXPECT_BURN_ERROR(load_pt(fresh, "key_remap.pt"), "with_key_remap");
    const auto model = load_pt(
        fresh, "", LoadArgs(fixture_file("key_remap.pt")).with_key_remap("conv\\.(.*)", "$1"));
    EXPECT_TRUE(close_to(model.forward(input<4>("key_remap")), output("key_remap"), tol));
}

TEST(PyTorchImport, DebugPrintListsOriginalAndRemappedKeys) {
    ::testing::internal::CaptureStdout();
    (void)load_pt(ConvPair<B>::init(), "",
                  LoadArgs(fixture_file("key_remap.pt"))
                      .with_key_remap("conv\\.(.*)", "$1")
                      .with_debug_print());
    const std::string printed = ::testing::internal::GetCapturedStdout();
    EXPECT_NE(printed.find("Original Key: conv.conv1.bias"), std::string::npos) << printed;
    EXPECT_NE(printed.find("Remapped Key: conv1.bias"), std::string::npos) << printed;
    EXPECT_NE(printed.find("Shape: [2, 2, 2, 2]"), std::string::npos) << printed;
}

TEST(PyTorchImport, SequentialIndicesAreRenumbered) {
    const auto model = load_pt(Mlp<B>::init(), "mlp_sequential.pt");
    EXPECT_TRUE(close_to(model.forward(input<2>("mlp_sequential")), output("mlp_sequential"), tol));
}

TEST(PyTorchImport, ConvBatchNormLinear) {
    LoadReport report;
    const auto model = load_pt(ConvBn<B>::init(), "conv_bn.pt", LoadArgs(""), &report);
    EXPECT_TRUE(close_to(model.forward(input<4>("conv_bn")), output("conv_bn"), tol));
    // num_batches_tracked has no counterpart in burn's BatchNorm.
    EXPECT_EQ(report.unused, std::vector<std::string>{"bn.num_batches_tracked"});
    EXPECT_TRUE(report.missing.empty());
    EXPECT_EQ(report.loaded.size(), 8u);
}

TEST(PyTorchImport, EmbeddingLayerNormGroupNorm) {
    const auto model = load_pt(Norms<B>::init(), "norms.pt");
    const auto idx = fixture_input<B, 2, Int>(json_file, "norms", "idx");
    const auto e = model.emb.forward(idx);
    EXPECT_TRUE(close_to(model.ln.forward(e), output("norms", "y_ln"), tol));
    EXPECT_TRUE(close_to(model.gn.forward(e.swap_dims(1, 2)), output("norms", "y_gn"), tol));
}

TEST(PyTorchImport, LstmBidirectionalLstmAndGruGateBlocks) {
    const auto model = load_pt(Rnns<B>::init(), "rnn.pt");
    const auto x = input<3>("rnn");
    EXPECT_TRUE(close_to(model.lstm.forward(x).first, output("rnn", "y_lstm"), tol));
    EXPECT_TRUE(close_to(model.bilstm.forward(x).first, output("rnn", "y_bilstm"), tol));
    EXPECT_TRUE(close_to(model.gru.forward(x), output("rnn", "y_gru"), tol));
}

TEST(PyTorchImport, TransformerEncoderPostAndPreNorm) {
    const auto model = load_pt(Transformers<B>::init(), "transformer.pt");
    const auto x = input<3>("transformer");
    EXPECT_TRUE(close_to(model.enc.forward(nn::TransformerEncoderInput<B>{x}),
                         output("transformer", "y"), tol));
    EXPECT_TRUE(close_to(model.enc_nf.forward(nn::TransformerEncoderInput<B>{x}),
                         output("transformer", "y_nf"), tol));
}

TEST(PyTorchImport, PartialModelLeavesTheRestUnused) {
    LoadReport report;
    const auto model = load_pt(EncoderOnly<B>{Mlp<B>::init({4, 6, 6}).layers}, "encoder_decoder.pt",
                               LoadArgs(""), &report);
    EXPECT_TRUE(close_to(model.forward(input<2>("encoder_decoder")),
                         output("encoder_decoder", "y_enc"), tol));
    EXPECT_EQ(report.unused, (std::vector<std::string>{"decoder.weight", "decoder.bias"}));
}

TEST(PyTorchImport, AllowMissingKeepsTheModulesValues) {
    // A fourth layer that the file lacks: an error by default, kept with allow_missing.
    const auto fresh = Mlp<B>::init({4, 8, 8, 3, 2});
    EXPECT_BURN_ERROR(load_pt(fresh, "mlp_sequential.pt"), "layers.3.weight");
    LoadReport report;
    const auto model = load_pt(
        fresh, "", LoadArgs(fixture_file("mlp_sequential.pt")).with_allow_missing(), &report);
    EXPECT_EQ(report.missing, (std::vector<std::string>{"layers.3.weight", "layers.3.bias"}));
    EXPECT_TRUE(close_to(model.layers[3].weight.val(), fresh.layers[3].weight.val().to_data()));
    EXPECT_EQ(model.layers[3].weight.id(), fresh.layers[3].weight.id());
}

TEST(PyTorchImport, CheckpointTopLevelKeyInBothFormats) {
    for (const char* file : {"checkpoint.pt", "checkpoint_legacy.pt"}) {
        SCOPED_TRACE(file);
        const auto model =
            load_pt(Mlp<B>::init(), "",
                    LoadArgs(fixture_file(file)).with_top_level_key("model_state_dict"));
        EXPECT_TRUE(close_to(model.forward(input<2>("mlp_sequential")), output("checkpoint"), tol));
        EXPECT_BURN_ERROR(
            load_pt(Mlp<B>::init(), "", LoadArgs(fixture_file(file)).with_top_level_key("weights")),
            "weights");
    }
}

TEST(PyTorchImport, ShapeAndKindMismatchesNameThePath) {
    EXPECT_BURN_ERROR(load_pt(Mlp<B>::init({4, 9, 8, 3}), "mlp_sequential.pt"),
                      "'layers.0.weight' from 'layers.0.weight' transposed: expected shape [4, 9]");
    EXPECT_BURN_ERROR((void)LoadArgs("x").with_key_remap("(unclosed", "$1"), "with_key_remap");
    EXPECT_BURN_ERROR(load_pt(Mlp<B>::init(), "",
                              LoadArgs(fixture_file("mlp_sequential.pt"))
                                  .with_key_remap("layers\\.[0-9]+\\.", "layers.0.")),
                      "after remapping");
}

TEST(PyTorchImport, PrecisionSettingsConvertTheRecord) {
    const auto model = Mlp<B>::init();
    const auto args = LoadArgs(fixture_file("mlp_sequential.pt"));
    const auto half = PyTorchFileRecorder<record::HalfPrecisionSettings>{}.load(args, model);
    const auto& w = half.field("layers")
                        ->as<record::Record::List>("layers")[0]
                        .field("weight")
                        ->as<record::TensorItem>("w");
    EXPECT_EQ(w.data.dtype, DType::F16);
    const auto loaded = model.load_record(half);
    EXPECT_TRUE(close_to(loaded.forward(input<2>("mlp_sequential")), output("mlp_sequential"),
                         {1e-2, 1e-2}));
}

TEST(PyTorchImport, TheRecordSavesWithAnyRecorder) {
    const auto model = Mlp<B>::init();
    const auto record =
        PyTorchFileRecorder<>{}.load(LoadArgs(fixture_file("mlp_sequential.pt")), model);
    const record::BinBytesRecorder<> bin;
    const auto again = model.load_record(bin.from_bytes(bin.to_bytes(record)));
    EXPECT_TRUE(close_to(again.forward(input<2>("mlp_sequential")), output("mlp_sequential"), tol));
}

// ---------------------------------------------------------------------------- safetensors
TEST(SafetensorsImport, LoadsAStateDictWrittenForPyTorch) {
    const auto model = Mlp<B>::init();
    const auto loaded = model.load_record(
        SafetensorsFileRecorder<>{}.load(LoadArgs(fixture_file("mlp.safetensors")), model));
    EXPECT_TRUE(
        close_to(loaded.forward(input<2>("mlp_sequential")), output("mlp_safetensors"), tol));
}

class SafetensorsRoundTrip : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("burn_safetensors_" +
                std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST_F(SafetensorsRoundTrip, SavedInPyTorchsLayoutAndLoadedBack) {
    const auto model = load_pt(Mlp<B>::init(), "mlp_sequential.pt");
    const SafetensorsFileRecorder<> recorder;
    const auto path = recorder.save(model, dir_ / "mlp");
    EXPECT_EQ(path.filename(), "mlp.safetensors");
    const auto st = record::read_safetensors_file(path);
    ASSERT_EQ(st.tensors.size(), 6u);
    EXPECT_EQ(st.tensors[0].key, "layers.0.weight");
    EXPECT_EQ(st.tensors[0].data.shape, (Shape{8, 4}));  // PyTorch's [out, in]
    EXPECT_EQ(st.metadata, (record::SafetensorsMetadata{{"format", "pt"}}));
    // The file's tensors equal the .pt file's (the same PyTorch state dict).
    const auto pt = record::read_pytorch_file(fixture_file("mlp_sequential.pt"));
    for (std::size_t i = 0; i < pt.size(); ++i)
        EXPECT_NO_THROW(st.tensors[i].data.assert_approx_eq(pt[i].data, {0, 0})) << pt[i].key;
    const auto again = Mlp<B>::init().load_record(recorder.load(LoadArgs(path), Mlp<B>::init()));
    EXPECT_TRUE(close_to(again.forward(input<2>("mlp_sequential")), output("mlp_sequential"), tol));
}

TEST_F(SafetensorsRoundTrip, AttentionNormsAndGatesAreRepacked) {
    const auto trans = load_pt(Transformers<B>::init(), "transformer.pt");
    const auto rnn = load_pt(Rnns<B>::init(), "rnn.pt");
    const SafetensorsFileRecorder<> recorder;
    const auto tpath = recorder.save(trans, dir_ / "transformer.safetensors");
    const auto rpath = recorder.save(rnn, dir_ / "rnn.safetensors");
    // Key for key, the same tensors as the PyTorch files.
    for (const auto& [saved, original] : {std::pair{tpath, fixture_file("transformer.pt")},
                                          std::pair{rpath, fixture_file("rnn.pt")}}) {
        const auto st = record::read_safetensors_file(saved).tensors;
        const auto pt = record::read_pytorch_file(original);
        ASSERT_EQ(st.size(), pt.size()) << original;
        for (const auto& [key, data] : pt) {
            const auto it =
                std::find_if(st.begin(), st.end(), [&](const auto& t) { return t.key == key; });
            ASSERT_NE(it, st.end()) << key;
            EXPECT_NO_THROW(it->data.assert_approx_eq(data, {0, 0})) << key;
        }
    }
    const auto back = Transformers<B>::init().load_record(
        recorder.load(LoadArgs(tpath), Transformers<B>::init()));
    const auto x = input<3>("transformer");
    EXPECT_TRUE(close_to(back.enc_nf.forward(nn::TransformerEncoderInput<B>{x}),
                         output("transformer", "y_nf"), tol));
}

TEST_F(SafetensorsRoundTrip, TopLevelKeyIsAPrefix) {
    record::StateDict dict;
    for (const auto& t : record::read_pytorch_file(fixture_file("mlp_sequential.pt")))
        dict.push_back({"model." + t.key, t.data});
    dict.push_back({"other.scale", TensorData::from<float>({1.f})});
    const auto path = dir_ / "prefixed.safetensors";
    record::write_safetensors_file(path, dict);
    const auto model = Mlp<B>::init().load_record(SafetensorsFileRecorder<>{}.load(
        LoadArgs(path).with_top_level_key("model"), Mlp<B>::init()));
    EXPECT_TRUE(close_to(model.forward(input<2>("mlp_sequential")), output("mlp_sequential"), tol));
    EXPECT_BURN_ERROR((void)SafetensorsFileRecorder<>{}.load(
                          LoadArgs(path).with_top_level_key("encoder"), Mlp<B>::init()),
                      "encoder.");
}

}  // namespace
}  // namespace burn::testing::module_pytorch_import

// SPDX-License-Identifier: MIT OR Apache-2.0
// Recorders: round trips of every recorder x precision (files and bytes), extensions, precision
// conversion, BinBytesRecorder reading BinFileRecorder's files.
#include <burn/record/recorder.hpp>

#include "recorder_helpers.hpp"

// A namespace of its own: the suite is a unity build (tests/CMakeLists.txt).
namespace burn::testing::module_recorder {
namespace {

using namespace rec;
using record::BinBytesRecorder;
using record::BinFileRecorder;
using record::BinGzFileRecorder;
using record::DoublePrecisionSettings;
using record::FullPrecisionSettings;
using record::HalfPrecisionSettings;
using record::JsonGzFileRecorder;
using record::NamedMpkFileRecorder;
using record::NamedMpkGzFileRecorder;
using record::PrettyJsonFileRecorder;

static_assert(record::FileRecorder<NamedMpkFileRecorder<>>);
static_assert(record::FileRecorder<NamedMpkGzFileRecorder<HalfPrecisionSettings>>);
static_assert(record::FileRecorder<BinFileRecorder<DoublePrecisionSettings>>);
static_assert(record::FileRecorder<BinGzFileRecorder<>>);
static_assert(record::FileRecorder<JsonGzFileRecorder<>>);
static_assert(record::FileRecorder<PrettyJsonFileRecorder<>>);
static_assert(record::BytesRecorder<BinBytesRecorder<>>);
static_assert(!record::FileRecorder<BinBytesRecorder<>>);
static_assert(
    std::is_same_v<record::DefaultFileRecorder, NamedMpkFileRecorder<FullPrecisionSettings>>);
static_assert(
    std::is_same_v<record::CompactRecorder, NamedMpkGzFileRecorder<HalfPrecisionSettings>>);
static_assert(record::PrecisionSettings<HalfPrecisionSettings>);
struct NotSettings {
    static constexpr DType float_dtype = DType::I32;  // not a float type
    static constexpr DType int_dtype = DType::I32;
    static constexpr std::string_view name = "bad";
};
static_assert(!record::PrecisionSettings<NotSettings>);

/// Files and bytes of recorder R round-trip the sample record.
template <class R>
void check_round_trip(std::string_view extension) {
    using S = typename R::Settings;
    SCOPED_TRACE(std::string(R().spec().recorder) + "<" + std::string(S::name) + ">");
    const Record original = sample_record();
    const Record want = expected_after(original, S::float_dtype, S::int_dtype);
    const R recorder;

    // Bytes.
    const auto bytes = recorder.to_bytes(original);
    EXPECT_TRUE(same_record(recorder.from_bytes(bytes), want));

    if constexpr (record::FileRecorder<R>) {
        TempDir dir("roundtrip");
        EXPECT_EQ(recorder.file_extension(), extension);
        const auto written = recorder.record(original, dir / "model");
        EXPECT_EQ(written, dir / ("model." + std::string(extension)));
        EXPECT_TRUE(std::filesystem::is_regular_file(written));
        // Deterministic: the file holds exactly to_bytes' output.
        EXPECT_EQ(read_file(written), bytes);
        // With or without the extension.
        EXPECT_TRUE(same_record(recorder.load(dir / "model"), want));
        EXPECT_TRUE(same_record(recorder.load(written), want));
        // No temporary file is left behind.
        std::size_t files = 0;
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path()))
            ++files;
        EXPECT_EQ(files, 1u);
    }
}

template <template <class> class R>
void check_all_precisions(std::string_view extension) {
    check_round_trip<R<FullPrecisionSettings>>(extension);
    check_round_trip<R<HalfPrecisionSettings>>(extension);
    check_round_trip<R<DoublePrecisionSettings>>(extension);
}

TEST(Recorder, NamedMpkRoundTrip) { check_all_precisions<NamedMpkFileRecorder>("mpk"); }
TEST(Recorder, NamedMpkGzRoundTrip) { check_all_precisions<NamedMpkGzFileRecorder>("mpk.gz"); }
TEST(Recorder, BinRoundTrip) { check_all_precisions<BinFileRecorder>("bin"); }
TEST(Recorder, BinGzRoundTrip) { check_all_precisions<BinGzFileRecorder>("bin.gz"); }
TEST(Recorder, JsonGzRoundTrip) { check_all_precisions<JsonGzFileRecorder>("json.gz"); }
TEST(Recorder, PrettyJsonRoundTrip) { check_all_precisions<PrettyJsonFileRecorder>("json"); }
TEST(Recorder, BinBytesRoundTrip) { check_all_precisions<BinBytesRecorder>(""); }

TEST(Recorder, RootsOtherThanMaps) {
    const BinBytesRecorder<> bin;
    const NamedMpkFileRecorder<> mpk;
    const PrettyJsonFileRecorder<> json;
    const std::vector<Record> roots = {
        Record{},
        Record(1.5),
        Record(std::int64_t{-7}),
        Record(true),
        Record(std::string("x")),
        Record(Record::List{Record(1.0), Record{}}),
        tensor(TensorData(std::vector<float>{1, 2, 3}, Shape{3}), 5)};
    for (const auto& r : roots) {
        SCOPED_TRACE(r.kind());
        EXPECT_TRUE(same_record(bin.from_bytes(bin.to_bytes(r)), r));
        EXPECT_TRUE(same_record(mpk.from_bytes(mpk.to_bytes(r)), r));
        EXPECT_TRUE(same_record(json.from_bytes(json.to_bytes(r)), r));
    }
}

TEST(Recorder, FullAndDoubleAreExactForTheirDtypes) {
    // f32 data through Full and f64 data through Double keep every bit.
    const auto w = random_floats(1000, 3);
    std::vector<double> d(w.begin(), w.end());
    for (auto& x : d) x = x / 3.0;
    Record r;
    r.add("f", tensor(TensorData(w, Shape{10, 100}), 1));
    r.add("d", tensor(TensorData(d, Shape{1000}), 2));
    const auto full = NamedMpkFileRecorder<FullPrecisionSettings>().from_bytes(
        NamedMpkFileRecorder<FullPrecisionSettings>().to_bytes(r));
    EXPECT_EQ(full.field("f")->as<TensorItem>("f").data, TensorData(w, Shape{10, 100}));
    const auto dbl = BinBytesRecorder<DoublePrecisionSettings>().from_bytes(
        BinBytesRecorder<DoublePrecisionSettings>().to_bytes(r));
    EXPECT_EQ(dbl.field("d")->as<TensorItem>("d").data, TensorData(d, Shape{1000}));
    const auto json = PrettyJsonFileRecorder<DoublePrecisionSettings>().from_bytes(
        PrettyJsonFileRecorder<DoublePrecisionSettings>().to_bytes(r));
    EXPECT_EQ(json.field("d")->as<TensorItem>("d").data, TensorData(d, Shape{1000}));
}

TEST(Recorder, HalfPrecisionWithinF16Rounding) {
    const auto w = random_floats(4096, 4);
    Record r;
    r.add("w", tensor(TensorData(w, Shape{64, 64}), 1));
    for (const auto& loaded :
         {record::CompactRecorder().from_bytes(record::CompactRecorder().to_bytes(r)),
          BinBytesRecorder<HalfPrecisionSettings>().from_bytes(
              BinBytesRecorder<HalfPrecisionSettings>().to_bytes(r))}) {
        const auto& data = loaded.field("w")->as<TensorItem>("w").data;
        EXPECT_EQ(data.dtype, DType::F16);
        // Relative error of round-to-nearest f16: at most 2^-11 (normal range).
        EXPECT_NO_THROW(
            data.assert_approx_eq(TensorData(w, Shape{64, 64}), Tolerance{6.1e-5, 0x1p-11}));
        // Exactly the round-to-nearest-even value.
        EXPECT_EQ(data, TensorData(w, Shape{64, 64}).convert(DType::F16));
    }
}

TEST(Recorder, HalfPrecisionRejectsIntsOutsideI16) {
    Record inner;
    inner.add("index", tensor(TensorData(std::vector<std::int64_t>{1, 2, 40000}, Shape{3}), 1));
    Record root;
    root.add("layer", std::move(inner));
    EXPECT_BURN_ERROR(BinBytesRecorder<HalfPrecisionSettings>().to_bytes(root),
                      "layer.index: value 40000 (index 2) does not fit i16");
    EXPECT_BURN_ERROR(
        NamedMpkFileRecorder<FullPrecisionSettings>().to_bytes(Record(
            tensor(TensorData(std::vector<std::int64_t>{std::int64_t(1) << 40}, Shape{1}), 1))),
        "does not fit i32, the int type of full precision");
    // i64 keeps it.
    EXPECT_NO_THROW(BinBytesRecorder<DoublePrecisionSettings>().to_bytes(root));
}

TEST(Recorder, HalfFilesAreSmaller) {
    Record r;
    r.add("w", tensor(TensorData(random_floats(100000, 5), Shape{100000}), 1));
    const auto full = BinBytesRecorder<FullPrecisionSettings>().to_bytes(r).size();
    const auto half = BinBytesRecorder<HalfPrecisionSettings>().to_bytes(r).size();
    const auto dbl = BinBytesRecorder<DoublePrecisionSettings>().to_bytes(r).size();
    EXPECT_GT(full, 400000u);
    EXPECT_LT(full, 400200u);
    EXPECT_LT(half, full / 2 + 200);
    EXPECT_GT(dbl, 2 * full - 200);
}

TEST(Recorder, Extensions) {
    TempDir dir("ext");
    const NamedMpkGzFileRecorder<> gz;
    EXPECT_EQ(gz.file_path(dir / "m"), dir / "m.mpk.gz");
    EXPECT_EQ(gz.file_path(dir / "m.mpk.gz"), dir / "m.mpk.gz");
    EXPECT_EQ(gz.file_path(dir / "epoch.3"), dir / "epoch.3.mpk.gz");  // not replaced
    EXPECT_EQ(gz.file_path(dir / "m.mpk"), dir / "m.mpk.mpk.gz");
    EXPECT_EQ(BinFileRecorder<>().file_path("a/b"), std::filesystem::path("a/b.bin"));
    EXPECT_EQ(PrettyJsonFileRecorder<>().file_path("x.json"), std::filesystem::path("x.json"));
    EXPECT_EQ(JsonGzFileRecorder<>().file_path("x.json"), std::filesystem::path("x.json.json.gz"));

    Record r;
    r.add("v", Record(1.0));
    EXPECT_EQ(gz.record(r, dir / "epoch.3"), dir / "epoch.3.mpk.gz");
    EXPECT_TRUE(same_record(gz.load(dir / "epoch.3"), r));
    // A file renamed without its extension still loads from its exact path.
    std::filesystem::rename(dir / "epoch.3.mpk.gz", dir / "renamed");
    EXPECT_TRUE(same_record(gz.load(dir / "renamed"), r));
}

TEST(Recorder, BinBytesReadsBinFiles) {
    // The embedding workflow: save with BinFileRecorder, ship the bytes, load with
    // BinBytesRecorder.
    TempDir dir("embed");
    const Record r = sample_record();
    const auto path = BinFileRecorder<HalfPrecisionSettings>().record(r, dir / "model");
    const auto file = read_file(path);
    EXPECT_EQ(file, BinBytesRecorder<HalfPrecisionSettings>().to_bytes(r));
    EXPECT_TRUE(same_record(BinBytesRecorder<HalfPrecisionSettings>().from_bytes(file),
                            expected_after(r, DType::F16, DType::I16)));
    // A static array works the same (what xxd -i produces).
    static const unsigned char embedded[] = {
        0x89, 'B', 'U', 'R', 'N', 0x0D, 0x0A, 0x1A,         // magic
        3,    'B', 'i', 'n',                                // format
        1,    0,                                            // version
        4,    'f', 'u', 'l', 'l',                           // precision
        1,    5,                                            // f32, i32
        9,    0,   0,   0,   0,   0,    0,    0,            // body: 9 bytes
        2,    0,   0,   0,   0,   0,    0,    0xf8, 0x3f};  // a float: 1.5
    EXPECT_TRUE(same_record(BinBytesRecorder<>().from_bytes(embedded), Record(1.5)));
}

TEST(Recorder, ParamIdsAndOrderSurvive) {
    Record r;
    for (int i = 0; i < 50; ++i)
        r.add("p" + std::to_string(49 - i),
              tensor(TensorData(std::vector<float>{float(i)}, Shape{1}), ParamId().value()));
    for (const auto& bytes :
         {NamedMpkFileRecorder<>().to_bytes(r), BinBytesRecorder<>().to_bytes(r)}) {
        const Record back = bytes[0] == 0x82 ? NamedMpkFileRecorder<>().from_bytes(bytes)
                                             : BinBytesRecorder<>().from_bytes(bytes);
        EXPECT_TRUE(same_record(back, r));
    }
    const auto json = JsonGzFileRecorder<>().from_bytes(JsonGzFileRecorder<>().to_bytes(r));
    EXPECT_TRUE(same_record(json, r));
}

TEST(Recorder, GzipLevels) {
    Record r;
    r.add("w", tensor(TensorData(std::vector<float>(10000, 1.0f), Shape{10000}), 1));
    const auto fast = BinGzFileRecorder<>(1).to_bytes(r);
    const auto stored = BinGzFileRecorder<>(0).to_bytes(r);
    EXPECT_LT(fast.size(), 1000u);  // constant data compresses
    EXPECT_GT(stored.size(), 40000u);
    EXPECT_TRUE(same_record(BinGzFileRecorder<>().from_bytes(stored), r));
    EXPECT_BURN_ERROR(NamedMpkGzFileRecorder<>(10),
                      "NamedMpkGzFileRecorder: gzip level must be in 0..9, got 10");
}

TEST(Recorder, PrettyJsonIsReadableText) {
    Record r;
    r.add("w", tensor(TensorData(std::vector<float>{0.5f, -2.0f}, Shape{2}), 0xabc));
    r.add("lr", Record(0.01));
    const auto bytes = PrettyJsonFileRecorder<>().to_bytes(r);
    const std::string text(bytes.begin(), bytes.end());
    EXPECT_EQ(text.rfind("{\n  \"burn_record\": {", 0), 0u) << text;
    EXPECT_NE(text.find("\"precision\": \"full\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"id\": \"0000000000000abc\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"lr\": 0.01"), std::string::npos) << text;
    EXPECT_NE(text.find("-2.0"), std::string::npos) << text;
}

}  // namespace
}  // namespace burn::testing::module_recorder

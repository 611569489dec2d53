// SPDX-License-Identifier: MIT OR Apache-2.0
// Recorder failures: wrong recorder or precision, truncated files, corrupt gzip streams, foreign
// files, arbitrary bytes (never a crash, always burn::Error), failed saves that leave nothing
// behind, and a save killed mid-way that leaves the previous file intact.
#include <signal.h>
#include <sys/wait.h>

#include <burn/record/recorder.hpp>
#include <chrono>
#include <thread>

#include "recorder_helpers.hpp"

// A namespace of its own: the suite is a unity build (tests/CMakeLists.txt).
namespace burn::testing::module_recorder_errors {
namespace {

using namespace rec;
using record::BinBytesRecorder;
using record::BinFileRecorder;
using record::BinGzFileRecorder;
using record::FullPrecisionSettings;
using record::HalfPrecisionSettings;
using record::JsonGzFileRecorder;
using record::NamedMpkFileRecorder;
using record::NamedMpkGzFileRecorder;
using record::PrettyJsonFileRecorder;
namespace fs = std::filesystem;

Record small_record() {
    Record r;
    Record lin;
    lin.add("weight", tensor(TensorData(random_floats(64, 9), Shape{8, 8}), 1));
    lin.add("bias", tensor(TensorData(std::vector<std::int64_t>{1, 2, 3}, Shape{3}), 2));
    r.add("linear", std::move(lin));
    r.add("step", Record(std::int64_t{3}));
    r.add("tag", Record(std::string("hello")));
    return r;
}

TEST(RecorderErrors, WrongRecorder) {
    TempDir dir("wrong");
    const Record r = small_record();
    const auto bin = BinFileRecorder<>().record(r, dir / "m");
    const auto mpk = NamedMpkFileRecorder<>().record(r, dir / "m");
    const auto mpkgz = NamedMpkGzFileRecorder<>().record(r, dir / "m");
    const auto json = PrettyJsonFileRecorder<>().record(r, dir / "m");
    const auto jsongz = JsonGzFileRecorder<>().record(r, dir / "m");

    // The message names the recorder, the file, what was expected and what was found.
    EXPECT_BURN_ERROR(NamedMpkFileRecorder<>().load(bin),
                      "NamedMpkFileRecorder::load: " + bin.string() +
                          ": expected a NamedMpk record of full precision, found a Bin record of "
                          "full precision; load it with BinFileRecorder");
    EXPECT_BURN_ERROR(BinFileRecorder<>().load(mpk),
                      "expected a Bin record of full precision, found a NamedMpk record; load it "
                      "with NamedMpkFileRecorder");
    EXPECT_BURN_ERROR(BinFileRecorder<>().load(json),
                      "found a Json record; load it with PrettyJsonFileRecorder");
    EXPECT_BURN_ERROR(BinFileRecorder<>().load(mpkgz),
                      "found gzip-compressed data; load it with BinGzFileRecorder");
    EXPECT_BURN_ERROR(BinGzFileRecorder<>().load(bin),
                      "BinGzFileRecorder::load: " + bin.string() +
                          ": expected a gzip-compressed Bin record of full precision, found a Bin "
                          "record of full precision; load it with BinFileRecorder");
    EXPECT_BURN_ERROR(BinGzFileRecorder<>().load(mpkgz),
                      "expected a gzip-compressed Bin record of full precision, found "
                      "gzip-compressed data holding a NamedMpk record; load it with "
                      "NamedMpkGzFileRecorder");
    EXPECT_BURN_ERROR(JsonGzFileRecorder<>().load(json),
                      "expected a gzip-compressed Json record of full precision, found a Json "
                      "record; load it with PrettyJsonFileRecorder");
    EXPECT_BURN_ERROR(PrettyJsonFileRecorder<>().load(jsongz),
                      "found gzip-compressed data; load it with JsonGzFileRecorder");
    EXPECT_BURN_ERROR(BinBytesRecorder<>().from_bytes(read_file(mpk)),
                      "BinBytesRecorder::from_bytes: expected a Bin record");
}

TEST(RecorderErrors, WrongPrecision) {
    TempDir dir("precision");
    const Record r = small_record();
    const auto bin = BinFileRecorder<FullPrecisionSettings>().record(r, dir / "m");
    const auto mpk = NamedMpkGzFileRecorder<HalfPrecisionSettings>().record(r, dir / "m");
    const auto json =
        PrettyJsonFileRecorder<record::DoublePrecisionSettings>().record(r, dir / "m");
    EXPECT_BURN_ERROR(
        BinFileRecorder<HalfPrecisionSettings>().load(bin),
        bin.string() +
            ": expected a Bin record of half precision (f16/i16), found "
            "full precision (f32/i32); load it with BinFileRecorder<FullPrecisionSettings>");
    EXPECT_BURN_ERROR(
        NamedMpkGzFileRecorder<FullPrecisionSettings>().load(mpk),
        "expected a NamedMpk record of full precision (f32/i32), found half "
        "precision (f16/i16); load it with NamedMpkGzFileRecorder<HalfPrecisionSettings>");
    EXPECT_BURN_ERROR(PrettyJsonFileRecorder<FullPrecisionSettings>().load(json),
                      "found double precision (f64/i64)");
}

TEST(RecorderErrors, MissingFile) {
    TempDir dir("missing");
    EXPECT_BURN_ERROR(NamedMpkFileRecorder<>().load(dir / "nope"),
                      "NamedMpkFileRecorder::load: " + (dir / "nope.mpk").string() +
                          ": cannot open the file: No such file or directory");
    fs::create_directories(dir / "adir.bin");
    EXPECT_BURN_ERROR(BinFileRecorder<>().load(dir / "adir"), "not a regular file");
}

/// Every recorder x every truncation point given: burn::Error saying "truncated".
template <class R>
void check_truncations(const R& recorder, std::vector<std::size_t> keep,
                       const std::string& needle) {
    TempDir dir("trunc");
    const auto path = recorder.record(small_record(), dir / "m");
    const auto full = read_file(path);
    for (std::size_t n : keep) {
        if (n >= full.size()) continue;
        SCOPED_TRACE(std::string(recorder.spec().recorder) + " truncated to " + std::to_string(n) +
                     " of " + std::to_string(full.size()) + " bytes");
        write_file(path, std::span(full).first(n));
        EXPECT_BURN_ERROR(recorder.load(path), needle);
    }
}

TEST(RecorderErrors, TruncatedFiles) {
    const std::vector<std::size_t> keep = {40, 100, 200, 300, 400};
    auto with_end = [&](std::size_t size) {
        auto k = keep;
        k.push_back(size / 2);
        k.push_back(size - 1);
        return k;
    };
    const auto size_of = [](const auto& rec) { return rec.to_bytes(small_record()).size(); };
    check_truncations(BinFileRecorder<>(), with_end(size_of(BinFileRecorder<>())), "(truncated)");
    check_truncations(NamedMpkFileRecorder<>(), with_end(size_of(NamedMpkFileRecorder<>())),
                      "(truncated)");
    check_truncations(BinGzFileRecorder<>(), with_end(size_of(BinGzFileRecorder<>())),
                      "(truncated)");
    check_truncations(NamedMpkGzFileRecorder<>(), with_end(size_of(NamedMpkGzFileRecorder<>())),
                      "(truncated)");
    check_truncations(JsonGzFileRecorder<>(), with_end(size_of(JsonGzFileRecorder<>())),
                      "(truncated)");
    // Pretty JSON minus its final newline is still complete: cut one byte more.
    const auto json_size = size_of(PrettyJsonFileRecorder<>());
    check_truncations(PrettyJsonFileRecorder<>(), {40, 100, json_size / 2, json_size - 2},
                      "(truncated)");
}

TEST(RecorderErrors, EmptyAndForeignFiles) {
    TempDir dir("foreign");
    write_file(dir / "empty.bin", std::vector<std::uint8_t>{});
    EXPECT_BURN_ERROR(BinFileRecorder<>().load(dir / "empty"),
                      "expected a Bin record of full precision, found an empty file");
    EXPECT_BURN_ERROR(BinBytesRecorder<>().from_bytes(std::vector<std::uint8_t>{}),
                      "found no bytes");

    const std::vector<std::uint8_t> elf = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const std::string text = "{\"weights\": [1, 2, 3]}\n";
    const std::vector<std::uint8_t> json(text.begin(), text.end());
    const std::vector<std::uint8_t> foreign_mpk = {0x81, 0xa1, 'a', 0x01};  // {"a": 1}
    for (const auto* ext : {"mpk", "mpk.gz", "bin", "bin.gz", "json.gz", "json"}) {
        for (const auto& [name, bytes] :
             {std::pair{"elf", elf}, std::pair{"json", json}, std::pair{"mpk", foreign_mpk}}) {
            const auto path = dir / (std::string(name) + "." + ext);
            write_file(path, bytes);
        }
    }
    EXPECT_BURN_ERROR(NamedMpkFileRecorder<>().load(dir / "elf"),
                      "expected a NamedMpk record of full precision, found unknown data (first "
                      "bytes 7f 45 4c 46");
    EXPECT_BURN_ERROR(NamedMpkFileRecorder<>().load(dir / "mpk"),
                      "found unknown data (first bytes 81 a1 61 01)");
    EXPECT_BURN_ERROR(
        NamedMpkGzFileRecorder<>().load(dir / "elf"),
        "expected a gzip-compressed NamedMpk record of full precision, found unknown data");
    EXPECT_BURN_ERROR(BinFileRecorder<>().load(dir / "json"),
                      "found unknown data (first bytes 7b 22 77");
    EXPECT_BURN_ERROR(BinGzFileRecorder<>().load(dir / "mpk"), "found unknown data");
    EXPECT_BURN_ERROR(JsonGzFileRecorder<>().load(dir / "json"),
                      "found unknown data (first bytes 7b");
    EXPECT_BURN_ERROR(PrettyJsonFileRecorder<>().load(dir / "json"),
                      "PrettyJsonFileRecorder::load: " + (dir / "json.json").string() +
                          ": expected a Json record of full precision, found unknown data");

    // A gzip stream of a foreign file.
    Record r;
    r.add("x", Record(1.0));
    auto gz_json = JsonGzFileRecorder<>().to_bytes(r);
    EXPECT_BURN_ERROR(
        NamedMpkGzFileRecorder<>().from_bytes(gz_json),
        "NamedMpkGzFileRecorder::from_bytes: expected a gzip-compressed NamedMpk record "
        "of full precision, found gzip-compressed data holding a Json record; load it "
        "with JsonGzFileRecorder");
}

TEST(RecorderErrors, CorruptGzip) {
    const Record r = small_record();
    auto check = [&](const auto& recorder) {
        SCOPED_TRACE(recorder.spec().recorder);
        const auto good = recorder.to_bytes(r);
        ASSERT_TRUE(
            same_record(recorder.from_bytes(good), expected_after(r, DType::F32, DType::I32)));
        // The CRC-32 of the trailer.
        auto bad = good;
        bad[bad.size() - 6] ^= 0x40;
        EXPECT_BURN_ERROR(recorder.from_bytes(bad),
                          "corrupt gzip stream (zlib: incorrect data check)");
        // The uncompressed length of the trailer.
        bad = good;
        bad[bad.size() - 2] ^= 0x01;
        EXPECT_BURN_ERROR(recorder.from_bytes(bad),
                          "corrupt gzip stream (zlib: incorrect length check)");
        // Reserved header flags.
        bad = good;
        bad[3] |= 0xe0;
        EXPECT_BURN_ERROR(recorder.from_bytes(bad),
                          "corrupt gzip stream (zlib: unknown header flags set)");
        // Compression method other than deflate.
        bad = good;
        bad[2] = 7;
        EXPECT_BURN_ERROR(recorder.from_bytes(bad), "corrupt gzip stream");
        // Data after the stream.
        bad = good;
        bad.push_back(0);
        EXPECT_BURN_ERROR(recorder.from_bytes(bad),
                          "unexpected data after the end of the gzip stream");
        // A second gzip member.
        bad = good;
        bad.insert(bad.end(), good.begin(), good.end());
        EXPECT_BURN_ERROR(recorder.from_bytes(bad),
                          "unexpected data after the end of the gzip stream");
    };
    check(NamedMpkGzFileRecorder<>());
    check(BinGzFileRecorder<>());
    check(JsonGzFileRecorder<>());

    // Damage inside the deflate data of formats inflated completely before parsing: zlib sees it
    // (a bad code or the CRC) before the parser does.
    for (int seed = 0; seed < 20; ++seed) {
        auto bytes = NamedMpkGzFileRecorder<>().to_bytes(r);
        std::mt19937 gen(seed);
        const std::size_t at = 20 + gen() % (bytes.size() - 40);
        bytes[at] ^= static_cast<std::uint8_t>(1 + gen() % 255);
        EXPECT_BURN_ERROR(NamedMpkGzFileRecorder<>().from_bytes(bytes), "gzip stream");
    }
}

TEST(RecorderErrors, CorruptRecordsName) {
    // Damage that keeps the framing intact is reported with the path of the item.
    Record r;
    Record layer;
    layer.add("weight", tensor(TensorData(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}), 1));
    r.add("layer", std::move(layer));
    auto bin = BinBytesRecorder<>().to_bytes(r);
    // Header: 8 magic + 4 format + 2 version + 5 precision + 2 dtypes + 8 body = 29; then map tag
    // (1) + count (8) + key length (8) + "layer" (5) + map tag + count + key length + "weight" (6)
    // + tensor tag (1): the dtype code follows.
    const std::size_t dtype_at = 29 + 1 + 8 + 8 + 5 + 1 + 8 + 8 + 6 + 1;
    ASSERT_EQ(bin[dtype_at], 1);  // f32
    auto bad = bin;
    bad[dtype_at] = 99;
    EXPECT_BURN_ERROR(BinBytesRecorder<>().from_bytes(bad),
                      "layer.weight: corrupt data: unknown dtype code 99");
    bad = bin;
    bad[dtype_at] = 0;  // f64: the byte count no longer matches
    EXPECT_BURN_ERROR(BinBytesRecorder<>().from_bytes(bad),
                      "layer.weight: corrupt data: 16 bytes for shape [2, 2] of f64 (32 expected)");
    bad = bin;
    bad[dtype_at + 1] = 9;  // rank 9
    EXPECT_BURN_ERROR(BinBytesRecorder<>().from_bytes(bad),
                      "layer.weight: corrupt data: tensor of rank 9");

    // A format version from the future.
    bad = bin;
    bad[12] = 2;
    EXPECT_BURN_ERROR(BinBytesRecorder<>().from_bytes(bad),
                      "of format version 1, found format version 2 (written by a newer burn-cpp)");
}

/// Arbitrary bytes never crash a loader and never raise anything but burn::Error.
template <class R>
void fuzz(const R& recorder, unsigned seed) {
    SCOPED_TRACE(recorder.spec().recorder);
    Record r = small_record();
    r.add("nested", Record(Record::List{Record(Record::List{Record{}}), Record(2.5)}));
    QuantizationInfo q{QuantizationScheme::PerTensorSymmetric(QuantizationType::QInt8), {0.1f}, {}};
    r.add("q", tensor(TensorData::quantized({1, -2, 3}, Shape{3}, q), 3));
    const auto good = recorder.to_bytes(r);
    std::mt19937 gen(seed);
    std::size_t loaded = 0, rejected = 0;
    auto attempt = [&](const std::vector<std::uint8_t>& bytes) {
        try {
            (void)recorder.from_bytes(bytes);
            ++loaded;
        } catch (const Error&) {
            ++rejected;
        } catch (const std::exception& e) {
            ADD_FAILURE() << "non-burn exception: " << e.what();
        }
    };
    for (std::size_t n = 0; n < good.size(); n += 1 + good.size() / 300) {
        attempt(
            std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)));
    }
    for (int i = 0; i < 1500; ++i) {
        auto bytes = good;
        const int edits = 1 + static_cast<int>(gen() % 4);
        for (int e = 0; e < edits; ++e) {
            const std::size_t at = gen() % bytes.size();
            switch (gen() % 4) {
                case 0: bytes[at] ^= static_cast<std::uint8_t>(1u << (gen() % 8)); break;
                case 1: bytes[at] = static_cast<std::uint8_t>(gen()); break;
                case 2: bytes[at] = 0xff; break;
                default: bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at)); break;
            }
        }
        attempt(bytes);
    }
    // Pure noise.
    for (int i = 0; i < 200; ++i) {
        std::vector<std::uint8_t> noise(gen() % 512);
        for (auto& b : noise) b = static_cast<std::uint8_t>(gen());
        attempt(noise);
    }
    EXPECT_GT(rejected, 200u);
    ::testing::Test::RecordProperty(std::string(recorder.spec().recorder) + "_loaded",
                                    static_cast<int>(loaded));
}

TEST(RecorderErrors, ArbitraryBytesNeverCrash) {
    fuzz(BinBytesRecorder<>(), 1);
    fuzz(NamedMpkFileRecorder<>(), 2);
    fuzz(BinGzFileRecorder<>(), 3);
    fuzz(NamedMpkGzFileRecorder<>(), 4);
    fuzz(PrettyJsonFileRecorder<>(), 5);
    fuzz(JsonGzFileRecorder<>(), 6);
}

TEST(RecorderErrors, HostileLengthsAreRejectedBeforeAllocating) {
    // A Bin header announcing a 2^60-byte string: refused without trying to allocate it.
    std::vector<std::uint8_t> b = {0x89, 'B', 'U', 'R', 'N', 0x0D, 0x0A, 0x1A, 3, 'B', 'i', 'n', 1,
                                   0,    4,   'f', 'u', 'l', 'l',  1,    5,    9, 0,   0,   0,   0,
                                   0,    0,   0,   5,   0,   0,    0,    0,    0, 0,   0,   0x10};
    EXPECT_BURN_ERROR(BinBytesRecorder<>().from_bytes(b),
                      "record: corrupt data: a string length of 1152921504606846976");
    // MessagePack: an array header claiming 2^32 - 1 elements.
    auto mpk = NamedMpkFileRecorder<>().to_bytes(Record(Record::List{}));
    ASSERT_EQ(mpk.back(), 0x90);  // fixarray 0
    mpk.back() = 0xdd;
    mpk.insert(mpk.end(), {0xff, 0xff, 0xff, 0xff});
    EXPECT_BURN_ERROR(NamedMpkFileRecorder<>().from_bytes(mpk), "corrupt MessagePack data");
    // Nesting deeper than 256 levels.
    Record deep(1.0);
    for (int i = 0; i < 300; ++i) deep = Record(Record::List{std::move(deep)});
    EXPECT_BURN_ERROR(BinBytesRecorder<>().to_bytes(deep), "records nest deeper than 256 levels");
}

TEST(RecorderErrors, FailedSavesLeaveNothing) {
    TempDir dir("failsave");
    const Record r = small_record();
    // The target is a directory: the rename fails, the temporary file is removed.
    fs::create_directories(dir / "model.bin");
    EXPECT_BURN_ERROR(
        BinFileRecorder<>().record(r, dir / "model"),
        "BinFileRecorder::record: " + (dir / "model.bin").string() + ": cannot rename");
    // An int that does not fit the precision: the encoder fails mid-way.
    Record bad;
    bad.add("w", tensor(TensorData(random_floats(100000, 1), Shape{100000}), 1));
    bad.add("i", tensor(TensorData(std::vector<std::int64_t>{1 << 20}, Shape{1}), 2));
    EXPECT_BURN_ERROR(NamedMpkFileRecorder<HalfPrecisionSettings>().record(bad, dir / "half"),
                      "i: value 1048576 (index 0) does not fit i16");
    // A path that names a directory.
    EXPECT_BURN_ERROR(BinFileRecorder<>().record(r, dir.path() / ""),
                      "names a directory, not a file");
    // A missing directory.
    EXPECT_BURN_ERROR(NamedMpkFileRecorder<>().record(r, dir / "no" / "such" / "m"),
                      "cannot create the temporary file");
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir.path()))
        names.push_back(e.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"model.bin"});
    EXPECT_TRUE(fs::is_directory(dir / "model.bin"));
}

// ---------------------------------------------------------------------------- kill mid-save
/// Version k of a large record: every value is k, and "version" says k.
Record versioned(std::int64_t k, std::size_t n) {
    Record r;
    r.add("version", Record(k));
    Record layer;
    layer.add("weight", tensor(TensorData(std::vector<float>(n, float(k)), Shape{n}), 77));
    r.add("layer", std::move(layer));
    return r;
}

/// The record is some complete version: returns it.
std::int64_t check_version(const Record& r, std::size_t n) {
    const std::int64_t k = r.field("version")->as<std::int64_t>("version");
    const auto& data = r.field("layer")->field("weight")->as<TensorItem>("layer.weight").data;
    EXPECT_EQ(data.num_elements(), n);
    const auto v = data.as_span<float>();
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [&](float x) { return x == float(k); }))
        << "version " << k << " has mixed values";
    return k;
}

TEST(RecorderAtomicSave, KillMidSaveKeepsThePreviousFile) {
    TempDir dir("kill");
    const std::size_t n = std::size_t(1) << 23;  // 32 MiB of f32
    const NamedMpkFileRecorder<> recorder;
    const auto target = recorder.record(versioned(0, n), dir / "model");
    std::int64_t last = 0;
    std::size_t kills_mid_write = 0;
    for (int round = 0; round < 3; ++round) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            // Save newer versions until killed.
            try {
                for (std::int64_t k = last + 1; k < last + 1000; ++k)
                    recorder.record(versioned(k, n), dir / "model");
            } catch (...) {
                ::_exit(2);
            }
            ::_exit(3);
        }
        // Wait until a temporary file exists and has data (the child is mid-save), then kill.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        const std::string prefix =
            target.filename().string() + ".tmp-" + std::to_string(child) + "-";
        const std::uintmax_t min_size =
            (round + 1) * (n * 4 / 5);  // deeper into the file each round
        bool mid_write = false;
        while (!mid_write && std::chrono::steady_clock::now() < deadline) {
            std::error_code ec;
            for (const auto& e : fs::directory_iterator(dir.path(), ec)) {
                const auto name = e.path().filename().string();
                if (name.rfind(prefix, 0) == 0 &&
                    e.file_size(ec) >= std::min<std::uintmax_t>(min_size, 4 * n - 1))
                    mid_write = true;
            }
            if (!mid_write) std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status)) << "the child ended by itself (status " << status << ")";
        kills_mid_write += mid_write;

        // The target is a complete record, as new as or newer than before; temporary files are
        // never taken for it.
        const Record loaded = recorder.load(dir / "model");
        const std::int64_t k = check_version(loaded, n);
        EXPECT_GE(k, last);
        last = k;
        for (const auto& e : fs::directory_iterator(dir.path())) {
            const auto name = e.path().filename().string();
            if (name == target.filename().string()) continue;
            EXPECT_EQ(name.rfind(target.filename().string() + ".tmp-", 0), 0u) << name;
            // A partial temporary file is refused as truncated when loaded explicitly.
            if (e.file_size() < fs::file_size(target))
                EXPECT_BURN_ERROR(recorder.load(e.path()), "truncated");
            fs::remove(e.path());
        }
    }
    EXPECT_GE(kills_mid_write, 2u) << "the kills should land while a temporary file is written";
}

}  // namespace
}  // namespace burn::testing::module_recorder_errors

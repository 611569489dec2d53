// SPDX-License-Identifier: MIT OR Apache-2.0
// Regression tests of the hostile-input defects: deeply nested JSON (configs, JSON records, JSON
// lines) and JSON with a NUL byte in the middle; shapes whose element count overflows; a NaN,
// infinite or negative learning rate; unsqueeze_dim's message; use of moved-from tensors; gzip
// records with data after their end; the string limit; stale temporary files of killed saves;
// incomplete Learner checkpoints.
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#include <burn/data/json.hpp>
#include <burn/optim.hpp>
#include <burn/record/recorder.hpp>
#include <burn/train/learner.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "test_support.hpp"

// A namespace of its own: the suite is a unity build (tests/CMakeLists.txt).
namespace burn::testing::module_hostile_input {
namespace {

using B = Cpu<float>;
using AD = Autodiff<B>;

struct SmallConfig {
    std::size_t width = 4;
    BURN_CONFIG(SmallConfig, width)
};

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(HostileInput, DeeplyNestedConfigJsonIsRefused) {
    // 200,000 levels used to overflow the stack inside the JSON library.
    EXPECT_BURN_ERROR(SmallConfig::from_json_string("{\"width\": " + nested(200000) + "}"),
                      "values nested deeper than 128 levels");
}

TEST(HostileInput, NulBytesInJsonAreRefused) {
    std::string text = "{\"width\": 3}";
    text += '\0';
    text += "{\"evil\": 1} garbage";
    EXPECT_BURN_ERROR(SmallConfig::from_json_string(text), "NUL byte at offset 12");
    EXPECT_EQ(SmallConfig::from_json_string("{\"width\": 3}").width, 3u);
}

TEST(HostileInput, DeeplyNestedOrNulJsonRecordsAreRefused) {
    const record::PrettyJsonFileRecorder<> json;
    const std::string deep = "{\"burn_record\": " + nested(100000) + "}";
    EXPECT_BURN_ERROR((void)json.from_bytes(std::span(
                          reinterpret_cast<const std::uint8_t*>(deep.data()), deep.size())),
                      "nested deeper than");
    record::Record r;
    r.add("x", record::Record(std::int64_t{3}));
    auto bytes = json.to_bytes(r);
    EXPECT_NO_THROW((void)json.from_bytes(bytes));
    bytes.push_back(0);
    for (char c : std::string("{\"evil\": 1}")) bytes.push_back(static_cast<std::uint8_t>(c));
    EXPECT_BURN_ERROR((void)json.from_bytes(bytes), "NUL byte");
}

TEST(HostileInput, DeeplyNestedJsonLinesAreRefused) {
    const auto path =
        std::filesystem::temp_directory_path() /
        ("burn_hostile_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         ".jsonl");
    {
        std::ofstream out(path);
        out << "[1, 2]\n" << nested(100000) << "\n";
    }
    EXPECT_BURN_ERROR((void)data::InMemDataset<std::vector<int>>::from_json_rows(path), ":2: line");
    std::filesystem::remove(path);
}

TEST(HostileInput, ElementCountsThatOverflowAreRefused) {
    constexpr std::size_t big = std::size_t(1) << 32;
    EXPECT_BURN_ERROR((Tensor<B, 2>::ones({big, big})), "more than 2^60 elements");
    EXPECT_BURN_ERROR((Tensor<B, 1>::zeros({std::size_t(1) << 62})), "more than 2^60 elements");
    EXPECT_BURN_ERROR((Tensor<B, 3>::zeros({big, big, 0})), "more than 2^60 elements");
    EXPECT_BURN_ERROR((void)(Shape{big, big}.num_elements()), "Shape [4294967296, 4294967296]");
    EXPECT_EQ((Shape{big, 0}.num_elements()), 0u);
    EXPECT_EQ((Tensor<B, 2>::zeros({big, 0}).shape()), (Shape{big, 0}));
}

TEST(HostileInput, NanOrNegativeLearningRatesAreRefused) {
    auto linear = nn::LinearConfig{.d_input = 2, .d_output = 2}.init<AD>();
    auto optim = optim::SgdConfig{}.init<AD>();
    const auto x = Tensor<AD, 2>::ones({1, 2});
    for (double lr : {std::nan(""), -1e-3, std::numeric_limits<double>::infinity()}) {
        auto grads = linear.forward(x).sum().backward();
        auto gp = optim::GradientsParams<AD>::from_grads(grads, linear);
        EXPECT_BURN_ERROR((void)optim.step(lr, linear, gp),
                          "learning rate must be finite and >= 0");
    }
}

TEST(HostileInput, UnsqueezeDimNamesTheInputRank) {
    const auto t = Tensor<B, 2>::ones({2, 3});
    EXPECT_BURN_ERROR((void)t.unsqueeze_dim<3>(4), "for a tensor of rank 2");
    EXPECT_EQ(t.unsqueeze_dim<3>(-1).shape(), (Shape{2, 3, 1}));
    EXPECT_EQ(t.unsqueeze_dim<3>(-3).shape(), (Shape{1, 2, 3}));
    EXPECT_EQ(t.unsqueeze_dim<3>(2).shape(), (Shape{2, 3, 1}));
}

template <class Backend>
void check_moved_from_tensors() {
    using T = Tensor<Backend, 2>;
    T a = T::from_floats({{1, 2}, {3, 4}});
    T b = a;  // a copy shares the values and stays usable
    T c = std::move(a) + b;
    EXPECT_BURN_ERROR(a + b, "use of a moved-from tensor in Tensor::add");
    EXPECT_BURN_ERROR(b + a, "use of a moved-from tensor");
    EXPECT_BURN_ERROR(a.matmul(b), "use of a moved-from tensor in matmul");
    EXPECT_BURN_ERROR(a.shape(), "use of a moved-from tensor");
    EXPECT_BURN_ERROR(a.to_data(), "use of a moved-from tensor in to_data");
    EXPECT_BURN_ERROR(activation::relu(a), "use of a moved-from tensor");
    const auto cat_moved = [&] {
        return Tensor<Backend, 1>::cat({b.template flatten<1>(0, 1), a.template flatten<1>(0, 1)},
                                       0);
    };
    EXPECT_BURN_ERROR(cat_moved(), "use of a moved-from tensor");
    // A tensor used up by an rvalue method is marked too.
    T d = b;
    T e = std::move(d).neg();
    EXPECT_BURN_ERROR(d.sum(), "use of a moved-from tensor");
    // Assigning a value makes the name usable again.
    a = c;
    EXPECT_EQ(a.to_data().template to_vec<float>(), (std::vector<float>{2, 4, 6, 8}));
    EXPECT_EQ(e.to_data().template to_vec<float>(), (std::vector<float>{-1, -2, -3, -4}));
}

TEST(HostileInput, MovedFromTensorsThrow) {
    check_moved_from_tensors<B>();
    check_moved_from_tensors<AD>();
}

using Bytes = std::vector<std::uint8_t>;

/// `plain` compressed as one gzip stream (real deflate, so zeros shrink ~1000x).
Bytes gzip(const Bytes& plain) {
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    Bytes out(deflateBound(&z, static_cast<uLong>(plain.size())));
    z.next_in = const_cast<Bytef*>(plain.data());
    z.avail_in = static_cast<uInt>(plain.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

record::Record small_record() {
    record::Record r;
    r.add("name", record::Record(std::string("layer")));
    r.add("w", record::Record(
                   record::TensorItem{TensorData::from<float>({1, 2, 3}), record::ParamId(7)}));
    return r;
}

/// Restores the process-wide read limits at the end of a test.
struct LimitsGuard {
    record::ReadLimits saved = record::read_limits();
    ~LimitsGuard() { record::set_read_limits(saved); }
};

TEST(HostileInput, GzipRecordsStopAtTheirEnd) {
    LimitsGuard guard;
    // A decompression limit far below the trailing data: the readers must refuse the data
    // after the record without inflating it (else the limit would trip first).
    record::ReadLimits limits;
    limits.max_decompressed_bytes = 1 << 20;
    limits.max_trailing_whitespace = 4096;
    record::set_read_limits(limits);
    const Bytes zeros(64 << 20, 0);
    const auto with_tail = [&](Bytes plain, const Bytes& tail) {
        plain.insert(plain.end(), tail.begin(), tail.end());
        return gzip(plain);
    };
    const Bytes mpk = record::NamedMpkFileRecorder<>().to_bytes(small_record());
    const Bytes json = record::PrettyJsonFileRecorder<>().to_bytes(small_record());
    const record::NamedMpkGzFileRecorder<> mpkgz;
    const record::JsonGzFileRecorder<> jsongz;
    EXPECT_NO_THROW((void)mpkgz.from_bytes(gzip(mpk)));
    EXPECT_NO_THROW((void)jsongz.from_bytes(gzip(json)));
    EXPECT_BURN_ERROR((void)mpkgz.from_bytes(with_tail(mpk, zeros)),
                      "unexpected data after the record (at decompressed offset " +
                          std::to_string(mpk.size()) + ")");
    EXPECT_BURN_ERROR((void)jsongz.from_bytes(with_tail(json, zeros)),
                      "unexpected data after the record (at decompressed offset " +
                          std::to_string(json.size()) + ")");
    // Whitespace after JSON is fine, but not without bound.
    EXPECT_NO_THROW((void)jsongz.from_bytes(with_tail(json, Bytes(1000, ' '))));
    EXPECT_BURN_ERROR((void)jsongz.from_bytes(with_tail(json, Bytes(8192, ' '))),
                      "more than 4096 bytes of whitespace after the record");
    // Content beyond the decompression limit itself.
    limits.max_decompressed_bytes = 100;
    record::set_read_limits(limits);
    EXPECT_BURN_ERROR((void)record::BinGzFileRecorder<>().from_bytes(
                          record::BinGzFileRecorder<>().to_bytes(small_record())),
                      "inflates to more than the limit of 100 bytes");
}

TEST(HostileInput, LongStringsAreRefused) {
    LimitsGuard guard;
    record::ReadLimits limits;
    limits.max_string_bytes = 4;
    record::set_read_limits(limits);
    const record::Record r = small_record();  // holds "layer": 5 bytes
    const std::string limit_text = "longer than the limit of 4 bytes";
    EXPECT_BURN_ERROR(
        (void)record::BinBytesRecorder<>().from_bytes(record::BinBytesRecorder<>().to_bytes(r)),
        "exceeds the limit of 4 bytes; burn::record::set_read_limits raises");
    EXPECT_BURN_ERROR(
        (void)record::BinGzFileRecorder<>().from_bytes(record::BinGzFileRecorder<>().to_bytes(r)),
        "exceeds the limit of 4 bytes");
    EXPECT_BURN_ERROR((void)record::NamedMpkFileRecorder<>().from_bytes(
                          record::NamedMpkFileRecorder<>().to_bytes(r)),
                      "a string longer than the limit of 4 bytes");
    EXPECT_BURN_ERROR((void)record::PrettyJsonFileRecorder<>().from_bytes(
                          record::PrettyJsonFileRecorder<>().to_bytes(r)),
                      "a string longer than the limit of 4 bytes");
    limits.max_string_bytes = 64;
    record::set_read_limits(limits);
    EXPECT_NO_THROW(
        (void)record::BinBytesRecorder<>().from_bytes(record::BinBytesRecorder<>().to_bytes(r)));
}

TEST(HostileInput, SavesRemoveStaleTemporaries) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("burn_hostile_tmp_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto touch = [](const std::filesystem::path& p) { std::ofstream(p) << "partial"; };
    // No process has pid 999999999 (above any pid_max): a killed save. The parent is alive:
    // a save in progress, left alone; so are unrelated names.
    const auto stale = dir / "model.mpk.tmp-999999999-0123456789ab";
    const auto running = dir / ("model.mpk.tmp-" + std::to_string(::getppid()) + "-0123456789ab");
    const auto other = dir / "model.mpk.tmp-notes";
    const auto other_file = dir / "optim.mpk.tmp-999999999-0123456789ab";
    for (const auto& p : {stale, running, other, other_file}) touch(p);
    record::NamedMpkFileRecorder<>().record(small_record(), dir / "model");
    EXPECT_TRUE(std::filesystem::exists(dir / "model.mpk"));
    EXPECT_FALSE(std::filesystem::exists(stale));
    EXPECT_TRUE(std::filesystem::exists(running));
    EXPECT_TRUE(std::filesystem::exists(other));
    EXPECT_TRUE(std::filesystem::exists(other_file));
    std::filesystem::remove_all(dir);
}

TEST(HostileInput, IncompleteCheckpointsAreNotResumed) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("burn_hostile_ckpt_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const train::detail::RecorderCheckpointStore store(record::NamedMpkFileRecorder<>(), dir);
    const auto save_all = [&](std::size_t epoch) {
        train::detail::begin_checkpoint(store, epoch);
        for (const char* kind : {"model", "optim", "scheduler"})
            store.save(kind, epoch, small_record());
        train::detail::finish_checkpoint(store, epoch);
    };
    save_all(1);
    EXPECT_NO_THROW(train::detail::check_checkpoint_complete(store, 1));
    // Killed between the files of epoch 2.
    train::detail::begin_checkpoint(store, 2);
    store.save("model", 2, small_record());
    EXPECT_BURN_ERROR(train::detail::check_checkpoint_complete(store, 2),
                      "the checkpoint of epoch 2 is incomplete: missing");
    EXPECT_BURN_ERROR(train::detail::check_checkpoint_complete(store, 2),
                      "complete checkpoints: epochs 1");
    // Killed after the files, before the marker (or while rewriting an epoch).
    store.save("optim", 2, small_record());
    store.save("scheduler", 2, small_record());
    EXPECT_BURN_ERROR(train::detail::check_checkpoint_complete(store, 2), "marker");
    train::detail::finish_checkpoint(store, 2);
    EXPECT_NO_THROW(train::detail::check_checkpoint_complete(store, 2));
    // Removing a checkpoint removes its marker first.
    train::detail::remove_checkpoint(store, 1);
    EXPECT_FALSE(std::filesystem::exists(dir / "complete-1"));
    EXPECT_TRUE(std::filesystem::exists(dir / "complete-2"));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace burn::testing::module_hostile_input

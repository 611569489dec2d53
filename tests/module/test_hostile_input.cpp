// SPDX-License-Identifier: MIT OR Apache-2.0
// Regression tests of the hostile-input defects: deeply nested JSON (configs, JSON records, JSON
// lines) and JSON with a NUL byte in the middle; shapes whose element count overflows; a NaN,
// infinite or negative learning rate; unsqueeze_dim's message.
#include <burn/data/json.hpp>
#include <burn/optim.hpp>
#include <burn/record/recorder.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "test_support.hpp"

namespace burn::testing {
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

}  // namespace
}  // namespace burn::testing

// SPDX-License-Identifier: MIT OR Apache-2.0
// Regression tests of the hostile-input defects: deeply nested JSON (configs, JSON records) and
// JSON with a NUL byte in the middle.
#include <burn/record/recorder.hpp>
#include <string>

#include "test_support.hpp"

namespace burn::testing {
namespace {

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

}  // namespace
}  // namespace burn::testing

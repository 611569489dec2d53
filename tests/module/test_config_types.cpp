// SPDX-License-Identifier: MIT OR Apache-2.0
// The config system's less common field types (every integer width, long double, enums over
// unsigned 64-bit integers, std::vector<bool>, a config that contains itself), the nesting bound,
// error messages that quote non-ASCII text, and the description BURN_CONFIG makes for the
// compiled JSON code.
#include <gtest/gtest.h>

#include <burn/config/config.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace cfgtypes {

using burn::Required;

enum class Big : std::uint64_t { small = 1, huge = 0xFFFF'FFFF'FFFF'FFF0 };
BURN_CONFIG_ENUM(Big, small, huge)

enum class Code : std::uint64_t { zero = 0, top = std::numeric_limits<std::uint64_t>::max() };

struct Widths {
    std::int8_t i8 = -8;
    std::uint8_t u8 = 8;
    std::int16_t i16 = -16;
    std::uint16_t u16 = 16;
    std::int32_t i32 = -32;
    std::uint32_t u32 = 32;
    std::int64_t i64 = -64;
    std::uint64_t u64 = 64;
    char c = 'c';
    long double wide = 0.5L;
    Big big = Big::huge;
    Code code = Code::top;
    std::vector<bool> flags = {true, false, true};
    BURN_CONFIG(Widths, i8, u8, i16, u16, i32, u32, i64, u64, c, wide, big, code, flags)
};

/// A config that contains itself: the only way values nest without bound.
struct Tree {
    std::string label = "";
    std::vector<Tree> children = {};
    BURN_CONFIG(Tree, label, children)
};

struct Text {
    Required<int> count;
    BURN_CONFIG(Text, count)
};

Widths extremes() {
    return {.i8 = std::numeric_limits<std::int8_t>::min(),
            .u8 = std::numeric_limits<std::uint8_t>::max(),
            .i16 = std::numeric_limits<std::int16_t>::min(),
            .u16 = std::numeric_limits<std::uint16_t>::max(),
            .i32 = std::numeric_limits<std::int32_t>::min(),
            .u32 = std::numeric_limits<std::uint32_t>::max(),
            .i64 = std::numeric_limits<std::int64_t>::min(),
            .u64 = std::numeric_limits<std::uint64_t>::max(),
            .c = 'z',
            .wide = -2.25L,
            .big = Big::small,
            .code = Code::zero,
            .flags = {false}};
}

TEST(ConfigTypes, IntegerWidthsRoundTrip) {
    const auto w = extremes();
    const auto text = w.to_json_string();
    EXPECT_NE(text.find("\"i64\": -9223372036854775808"), std::string::npos) << text;
    EXPECT_NE(text.find("\"u64\": 18446744073709551615"), std::string::npos) << text;
    EXPECT_NE(text.find("\"i32\": -2147483648"), std::string::npos) << text;
    EXPECT_NE(text.find("\"c\": 122"), std::string::npos) << text;
    EXPECT_EQ(Widths::from_json_string(text), w);

    // Enums over uint64: by name when listed, else by value (all 64 bits of it).
    const auto d = Widths{}.to_json_string();
    EXPECT_NE(d.find("\"big\": \"huge\""), std::string::npos) << d;
    EXPECT_NE(d.find("\"code\": 18446744073709551615"), std::string::npos) << d;
    EXPECT_NE(d.find("\"flags\": [\n    true,\n    false,\n    true\n  ]"), std::string::npos) << d;
    EXPECT_EQ(Widths::from_json_string(d), Widths{});
    EXPECT_EQ(Widths::from_json_string(R"({"big": "small"})").big, Big::small);
}

TEST(ConfigTypes, IntegerRanges) {
    EXPECT_BURN_ERROR(Widths::from_json_string(R"({"u16": 65536})"),
                      "Widths.u16: integer 65536 out of range for u16");
    EXPECT_BURN_ERROR(Widths::from_json_string(R"({"i16": -32769})"),
                      "Widths.i16: integer -32769 out of range for i16");
    EXPECT_BURN_ERROR(Widths::from_json_string(R"({"u32": -1})"),
                      "Widths.u32: expected an unsigned integer, found integer -1");
    EXPECT_BURN_ERROR(Widths::from_json_string(R"({"i64": 9223372036854775808})"),
                      "Widths.i64: integer 9223372036854775808 out of range for i64");
    EXPECT_BURN_ERROR(Widths::from_json_string(R"({"big": "medium"})"),
                      R"(Widths.big: expected one of "small", "huge", found string "medium")");
    EXPECT_BURN_ERROR(Widths::from_json_string(R"({"flags": [true, 1]})"),
                      "Widths.flags[1]: expected a boolean, found integer 1");
    EXPECT_BURN_ERROR(Widths::from_json_string(R"({"flags": {}})"),
                      "Widths.flags: expected an array, found object");
}

TEST(ConfigTypes, UnlistedEnumValue) {
    auto w = Widths{};
    w.big = static_cast<Big>(5);
    EXPECT_BURN_ERROR(w.to_json_string(),
                      "Config: enum value 5 is not listed in its BURN_CONFIG_ENUM");
}

TEST(ConfigTypes, SelfContainingConfig) {
    const auto t = Tree{
        .label = "root",
        .children = {Tree{.label = "a"}, Tree{.label = "b", .children = {Tree{.label = "c"}}}}};
    const auto back = Tree::from_json_string(t.to_json_string());
    EXPECT_EQ(back, t);
    ASSERT_EQ(back.children.size(), 2u);
    EXPECT_EQ(back.children[1].children[0].label, "c");
    EXPECT_BURN_ERROR(Tree::from_json_string(R"({"children": [{"children": [{"label": 1}]}]})"),
                      "Tree.children[0].children[0].label: expected a string, found integer 1");
}

/// {"children": [{"children": [ ... ]}]}, `depth` configs deep.
std::string nested_trees(int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += R"({"children": [)";
    for (int i = 0; i < depth; ++i) text += "]}";
    return text;
}

TEST(ConfigTypes, NestingIsBounded) {
    // Each tree level is two levels of values (the config and its vector): 64 trees fit in 128.
    EXPECT_NO_THROW(Tree::from_json_string(nested_trees(64)));
    EXPECT_BURN_ERROR(Tree::from_json_string(nested_trees(10000)),
                      "values nested deeper than 128 levels");
    // Saving refuses what loading would refuse.
    Tree deep;
    for (int i = 0; i < 100; ++i) deep = Tree{.children = {deep}};
    EXPECT_BURN_ERROR(deep.to_json_string(), "Config: values nested deeper than 128 levels");
}

TEST(ConfigTypes, MessagesQuoteNonAsciiText) {
    // A long string is cut to 37 bytes in messages: never inside a UTF-8 sequence (the message
    // is JSON text, which must stay valid).
    std::string value(36, 'a');
    for (int i = 0; i < 5; ++i) value += "\xC3\xA9";
    EXPECT_BURN_ERROR(
        Text::from_json_string("{\"count\": \"" + value + "\"}"),
        "Text.count: expected an integer, found string \"" + std::string(36, 'a') + "...\"");
    // Invalid UTF-8 is rejected by the parser with a burn::Error, as any other bad byte.
    EXPECT_BURN_ERROR(Text::from_json_string("{\"count\": \"\xFF\"}"),
                      "Config::from_json_string: invalid JSON");
    EXPECT_BURN_ERROR(Text::from_json_string(std::string("{\"count\"\0: 1}", 13)),
                      "Config::from_json_string: a NUL byte at offset 8");
}

TEST(ConfigTypes, Description) {
    // What BURN_CONFIG hands to the compiled JSON code.
    namespace d = burn::config::detail;
    const auto& info = static_cast<const d::ConfigInfo&>(d::type_info<Widths>());
    EXPECT_EQ(info.kind, d::Kind::config);
    EXPECT_EQ(info.name, "Widths");
    ASSERT_EQ(info.field_count, Widths::burn_config_field_count);
    EXPECT_EQ(info.fields[0].name, "i8");
    EXPECT_EQ(info.fields[12].name, "flags");
    EXPECT_EQ(info.fields[12].type().kind, d::Kind::bool_vector);
    const auto& i16 = static_cast<const d::IntegerInfo&>(info.fields[2].type());
    EXPECT_EQ(i16.kind, d::Kind::integer);
    EXPECT_EQ(i16.bytes, 2);
    EXPECT_TRUE(i16.is_signed);
    EXPECT_EQ(info.fields[11].type().kind, d::Kind::integer);  // an enum not listed
    const auto& big = static_cast<const d::EnumInfo&>(info.fields[10].type());
    ASSERT_EQ(big.count, 2u);
    EXPECT_EQ(big.names[1].name, "huge");
    // Fields are reached through the description.
    Widths w;
    EXPECT_EQ(info.fields[1].get(&w), static_cast<void*>(&w.u8));
    const auto& tree = static_cast<const d::ConfigInfo&>(d::type_info<Tree>());
    const auto& children = static_cast<const d::SequenceInfo&>(tree.fields[1].type());
    EXPECT_EQ(&children.value(), &tree);  // the vector's element is Tree itself
}

}  // namespace cfgtypes

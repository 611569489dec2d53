// SPDX-License-Identifier: MIT OR Apache-2.0
// The config system: designated initialisers, Required fields, JSON save/load with errors that
// name the field, nested configs, equality and printing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <burn/backend/cpu.hpp>
#include <burn/config/config.hpp>
#include <burn/module/param.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace cfgtest {

using burn::Required;

enum class Activation { relu, gelu, tanh };
BURN_CONFIG_ENUM(Activation, relu, gelu, tanh)

// Not listed with BURN_CONFIG_ENUM: saved as its integer value.
enum class Reduction : std::int8_t { mean = 1, sum = 7 };

struct MyModuleConfig {
    Required<std::size_t> d_model;
    Required<std::size_t> d_ff;
    double dropout = 0.1;
    BURN_CONFIG(MyModuleConfig, d_model, d_ff, dropout)
};

struct ModelConfig {
    Required<std::size_t> num_classes;
    std::size_t hidden_size = 512;
    double dropout = 0.5;
    Activation activation = Activation::relu;
    std::vector<std::size_t> channels = {8, 16};
    BURN_CONFIG(ModelConfig, num_classes, hidden_size, dropout, activation, channels)
};

struct AdamConfig {
    double beta_1 = 0.9;
    double beta_2 = 0.999;
    double epsilon = 1e-5;
    std::optional<double> weight_decay = std::nullopt;
    std::optional<double> grad_clipping = 1.0;
    BURN_CONFIG(AdamConfig, beta_1, beta_2, epsilon, weight_decay, grad_clipping)
};

struct TrainingConfig {
    ModelConfig model;  // ModelConfig has a required field, so this one is required too
    AdamConfig optimizer = {.beta_2 = 0.99};
    std::size_t num_epochs = 10;
    std::size_t batch_size = 64;
    std::size_t num_workers = 4;
    std::uint64_t seed = 42;
    double learning_rate = 1.0e-4;
    std::string name = "mnist";
    std::optional<std::string> checkpoint_dir = std::nullopt;
    std::array<float, 3> mean = {0.1f, 0.2f, 0.3f};
    std::map<std::string, std::int32_t> tags = {};
    Reduction reduction = Reduction::mean;
    bool shuffle = true;
    std::int8_t offset = -3;
    std::vector<AdamConfig> schedule = {};
    BURN_CONFIG(TrainingConfig, model, optimizer, num_epochs, batch_size, num_workers, seed,
                learning_rate, name, checkpoint_dir, mean, tags, reduction, shuffle, offset,
                schedule)
};

// Required wrapping strings, vectors and configs.
struct ExperimentConfig {
    Required<std::string> name;
    Required<std::vector<std::int64_t>> layers;
    Required<AdamConfig> optimizer;
    std::optional<ModelConfig> model = std::nullopt;
    std::vector<ModelConfig> heads = {};
    float scale = 1.0f;
    BURN_CONFIG(ExperimentConfig, name, layers, optimizer, model, heads, scale)
};

// A config template and an empty config.
template <class T>
struct RangeConfig {
    T low = T(0);
    T high = T(1);
    std::array<std::optional<T>, 2> clamp = {};
    BURN_CONFIG(RangeConfig, low, high, clamp)
};
struct EmptyConfig {
    BURN_CONFIG(EmptyConfig)
};

// ------------------------------------------------------------------ compile-time checks
template <class C>
concept OmitsDModel = requires {
    C{.d_ff = 1};
};
template <class C>
concept SetsBoth = requires {
    C{.d_model = 1, .d_ff = 2};
};
template <class C>
concept OmitsModel = requires {
    C{.num_epochs = 1};
};
template <class C>
concept SetsModel = requires {
    C{.model = {.num_classes = 10}};
};

static_assert(!OmitsDModel<MyModuleConfig>, "leaving out a Required field must not compile");
static_assert(SetsBoth<MyModuleConfig>);
static_assert(!std::is_default_constructible_v<MyModuleConfig>);
static_assert(!std::is_default_constructible_v<Required<int>>);
static_assert(!std::is_default_constructible_v<Required<std::string>>);
static_assert(!OmitsModel<TrainingConfig>, "a nested config with required fields is required");
static_assert(SetsModel<TrainingConfig>);
static_assert(std::is_default_constructible_v<AdamConfig>);
static_assert(burn::config::Config<TrainingConfig>);
static_assert(!burn::config::Config<int>);
static_assert(!burn::config::Config<Required<AdamConfig>>);
static_assert(TrainingConfig::burn_config_field_count == 15);
static_assert(std::is_convertible_v<int, Required<std::size_t>>);
static_assert(std::is_convertible_v<const char*, Required<std::string>>);
static_assert(!std::is_convertible_v<std::string, Required<int>>);

// ------------------------------------------------------------------ helpers
TrainingConfig full_config() {
    return TrainingConfig{
        .model = {.num_classes = 10,
                  .hidden_size = 256,
                  .dropout = 0.25,
                  .activation = Activation::gelu,
                  .channels = {32, 64, 128}},
        .optimizer = {.beta_1 = 0.8, .weight_decay = 5e-4, .grad_clipping = std::nullopt},
        .num_epochs = 3,
        .batch_size = 128,
        .num_workers = 2,
        .seed = std::numeric_limits<std::uint64_t>::max(),
        .learning_rate = 3e-3,
        .name = "fashion \"mnist\" \xC3\xA9",
        .checkpoint_dir = "/tmp/ckpt",
        .mean = {0.5f, -0.25f, 0.1f},
        .tags = {{"b", 2}, {"a", -1}},
        .reduction = Reduction::sum,
        .shuffle = false,
        .offset = -128,
        .schedule = {AdamConfig{.epsilon = 1e-8}, AdamConfig{.weight_decay = 0.0}},
    };
}

/// A fresh empty directory, removed at the end of the test.
class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = std::filesystem::temp_directory_path() /
                ("burn_config_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path& path() const { return path_; }
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(path_))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

private:
    std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

void write_file(const std::filesystem::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

// ------------------------------------------------------------------ construction
TEST(Config, DefaultsAndDesignatedInit) {
    const auto c = MyModuleConfig{.d_model = 512, .d_ff = 2048};
    EXPECT_EQ(c.d_model, 512u);
    EXPECT_EQ(c.d_ff, 2048u);
    EXPECT_EQ(c.dropout, 0.1);
    const std::size_t d = c.d_model;  // reads as const size_t&
    EXPECT_EQ(d * 2, 1024u);
    EXPECT_EQ(*c.d_ff + 1, 2049u);
    EXPECT_EQ(c.d_ff.get(), 2048u);

    const auto t = TrainingConfig{.model = {.num_classes = 10}};
    EXPECT_EQ(t.model.num_classes, 10u);
    EXPECT_EQ(t.model.hidden_size, 512u);
    EXPECT_EQ(t.model.channels, (std::vector<std::size_t>{8, 16}));
    EXPECT_EQ(t.optimizer.beta_1, 0.9);
    EXPECT_EQ(t.optimizer.beta_2, 0.99);  // the outer default member initialiser
    EXPECT_FALSE(t.optimizer.weight_decay.has_value());
    EXPECT_EQ(t.optimizer.grad_clipping, 1.0);
    EXPECT_EQ(t.num_epochs, 10u);
    EXPECT_EQ(t.name, "mnist");
    EXPECT_EQ(t.reduction, Reduction::mean);

    const auto e = ExperimentConfig{.name = "exp", .layers = {1, 2, 3}, .optimizer = AdamConfig{}};
    EXPECT_EQ(e.name, std::string("exp"));
    EXPECT_TRUE(e.name == "exp");
    EXPECT_TRUE("exp" == e.name);
    EXPECT_EQ(e.name->size(), 3u);
    EXPECT_EQ(e.layers->size(), 3u);
    EXPECT_EQ(e.optimizer->beta_1, 0.9);
}

TEST(Config, RequiredAssignAndCompare) {
    auto c = MyModuleConfig{.d_model = 512, .d_ff = 2048};
    c.d_model = 256;
    EXPECT_EQ(c.d_model, 256u);
    EXPECT_TRUE(c.d_model == Required<std::size_t>(256u));
    EXPECT_FALSE(c.d_model == c.d_ff);
    EXPECT_TRUE(2048u == c.d_ff);
    std::ostringstream os;
    os << c.d_model;
    EXPECT_EQ(os.str(), "256");
}

TEST(Config, With) {
    const auto c = MyModuleConfig{.d_model = 512, .d_ff = 2048};
    const auto d = c.with(&MyModuleConfig::dropout, 0.2).with(&MyModuleConfig::d_model, 64);
    EXPECT_EQ(d.dropout, 0.2);
    EXPECT_EQ(d.d_model, 64u);
    EXPECT_EQ(d.d_ff, 2048u);
    EXPECT_EQ(c.dropout, 0.1);  // unchanged
}

TEST(Config, Equality) {
    const auto a = full_config();
    auto b = full_config();
    EXPECT_EQ(a, b);
    b.model.channels.push_back(1);
    EXPECT_NE(a, b);
    b = full_config();
    b.optimizer.weight_decay.reset();
    EXPECT_NE(a, b);
    b = full_config();
    b.model.num_classes = 11;
    EXPECT_NE(a, b);
    EXPECT_EQ(MyModuleConfig({.d_model = 1, .d_ff = 2}), MyModuleConfig({.d_model = 1, .d_ff = 2}));
    EXPECT_NE(MyModuleConfig({.d_model = 1, .d_ff = 2}),
              MyModuleConfig({.d_model = 1, .d_ff = 2, .dropout = 0.3}));
}

// ------------------------------------------------------------------ JSON
TEST(Config, JsonFormat) {
    const auto c = MyModuleConfig{.d_model = 512, .d_ff = 2048};
    EXPECT_EQ(c.to_json_string(),
              "{\n  \"d_model\": 512,\n  \"d_ff\": 2048,\n  \"dropout\": 0.1\n}");

    // Fields in declaration order; enums by name (or value); optionals as null; floats short.
    const auto t = TrainingConfig{.model = {.num_classes = 10}};
    const auto j = nlohmann::ordered_json::parse(t.to_json_string());
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"model", "optimizer", "num_epochs", "batch_size",
                                              "num_workers", "seed", "learning_rate", "name",
                                              "checkpoint_dir", "mean", "tags", "reduction",
                                              "shuffle", "offset", "schedule"}));
    EXPECT_EQ(j["model"]["activation"], "relu");
    EXPECT_EQ(j["reduction"], 1);
    EXPECT_TRUE(j["checkpoint_dir"].is_null());
    EXPECT_TRUE(j["optimizer"]["weight_decay"].is_null());
    EXPECT_EQ(j["optimizer"]["grad_clipping"], 1.0);
    EXPECT_TRUE(j["tags"].is_object());
    EXPECT_TRUE(j["schedule"].is_array());
    EXPECT_NE(t.to_json_string().find("\"mean\": [\n    0.1,\n    0.2,\n    0.3\n  ]"),
              std::string::npos)
        << t.to_json_string();
}

TEST(Config, JsonStringRoundTrip) {
    const auto c = full_config();
    const auto text = c.to_json_string();
    const auto back = TrainingConfig::from_json_string(text);
    EXPECT_EQ(back, c);
    EXPECT_EQ(back.to_json_string(), text);
    EXPECT_EQ(back.seed, std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(back.offset, -128);
    EXPECT_EQ(back.model.activation, Activation::gelu);
    EXPECT_EQ(back.reduction, Reduction::sum);
    EXPECT_EQ(back.schedule.size(), 2u);
    EXPECT_EQ(back.schedule[0].epsilon, 1e-8);
    EXPECT_EQ(back.tags.at("a"), -1);

    const auto e = ExperimentConfig{
        .name = "exp",
        .layers = {-1, 0, 1LL << 40},
        .optimizer = AdamConfig{.beta_1 = 0.5},
        .model = ModelConfig{.num_classes = 3},
        .heads = {ModelConfig{.num_classes = 1}, ModelConfig{.num_classes = 2, .dropout = 0.0}},
        .scale = 0.1f};
    const auto e2 = ExperimentConfig::from_json_string(e.to_json_string());
    EXPECT_EQ(e2, e);
    EXPECT_EQ(e2.scale, 0.1f);
}

TEST(Config, TemplateAndEmptyConfigs) {
    const auto r = RangeConfig<float>{.high = 2.5f, .clamp = {std::nullopt, 3.0f}};
    EXPECT_EQ(r.to_json_string(),
              "{\n  \"low\": 0.0,\n  \"high\": 2.5,\n  \"clamp\": [\n    null,\n    3.0\n  ]\n}");
    EXPECT_EQ(RangeConfig<float>::from_json_string(r.to_json_string()), r);
    EXPECT_BURN_ERROR(RangeConfig<int>::from_json_string(R"({"clamp": [1, 0.5]})"),
                      "RangeConfig.clamp[1]: expected an integer, found number 0.5");
    EXPECT_EQ(EmptyConfig{}.to_json_string(), "{}");
    EXPECT_EQ(EmptyConfig::from_json_string(R"({"anything": 1})"), EmptyConfig{});
    EXPECT_BURN_ERROR(EmptyConfig::from_json_string("null"),
                      "EmptyConfig: expected an object, found null");
}

TEST(Config, NlohmannInterop) {
    const auto c = full_config();
    const nlohmann::json j = c;  // adl_serializer
    EXPECT_EQ(j["model"]["num_classes"], 10);
    EXPECT_EQ(j.get<TrainingConfig>(), c);
    const nlohmann::ordered_json oj = c;
    EXPECT_EQ(oj.get<TrainingConfig>(), c);
    EXPECT_EQ(burn::config::from_json<TrainingConfig>(burn::config::to_json(c)), c);
    nlohmann::json bad = j;
    bad["model"].erase("num_classes");
    EXPECT_BURN_ERROR(bad.get<TrainingConfig>(),
                      "TrainingConfig.model.num_classes: missing required field");
}

TEST(Config, NonFiniteFloats) {
    auto c = full_config();
    c.learning_rate = std::numeric_limits<double>::infinity();
    c.mean = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity(),
              0.0f};
    c.optimizer.weight_decay = -std::numeric_limits<double>::infinity();
    const auto text = c.to_json_string();
    EXPECT_NE(text.find("\"learning_rate\": \"inf\""), std::string::npos) << text;
    const auto back = TrainingConfig::from_json_string(text);
    EXPECT_TRUE(std::isinf(back.learning_rate) && back.learning_rate > 0);
    EXPECT_TRUE(std::isnan(back.mean[0]));
    EXPECT_TRUE(std::isinf(back.mean[1]) && back.mean[1] < 0);
    EXPECT_EQ(back.optimizer.weight_decay, -std::numeric_limits<double>::infinity());
}

TEST(Config, MissingFieldsKeepDefaults) {
    // A file from an older version: only some fields, plus one this version does not know.
    const auto c = TrainingConfig::from_json_string(R"({
        "model": {"num_classes": 7, "channels": [1]},
        "optimizer": {"epsilon": 1e-8},
        "batch_size": 32,
        "removed_option": [1, 2, 3]
    })");
    EXPECT_EQ(c.model.num_classes, 7u);
    EXPECT_EQ(c.model.hidden_size, 512u);
    EXPECT_EQ(c.model.channels, (std::vector<std::size_t>{1}));
    EXPECT_EQ(c.optimizer.epsilon, 1e-8);
    EXPECT_EQ(c.optimizer.beta_2, 0.99);  // TrainingConfig's default for its optimizer
    EXPECT_EQ(c.optimizer.grad_clipping, 1.0);
    EXPECT_EQ(c.batch_size, 32u);
    EXPECT_EQ(c.num_epochs, 10u);
    EXPECT_EQ(c.name, "mnist");
    EXPECT_EQ(c.mean, (std::array<float, 3>{0.1f, 0.2f, 0.3f}));
    EXPECT_EQ(c, TrainingConfig({.model = {.num_classes = 7, .channels = {1}},
                                 .optimizer = {.beta_2 = 0.99, .epsilon = 1e-8},
                                 .batch_size = 32}));

    // An explicit null clears an optional with a default.
    const auto d = TrainingConfig::from_json_string(
        R"({"model": {"num_classes": 7}, "optimizer": {"grad_clipping": null}})");
    EXPECT_FALSE(d.optimizer.grad_clipping.has_value());
    // Comments are allowed.
    const auto m =
        MyModuleConfig::from_json_string("// saved by hand\n{\"d_model\": 1, /* x */ \"d_ff\": 2}");
    EXPECT_EQ(m, MyModuleConfig({.d_model = 1, .d_ff = 2}));
}

TEST(Config, MissingRequiredField) {
    EXPECT_BURN_ERROR(MyModuleConfig::from_json_string(R"({"d_model": 512})"),
                      "Config::from_json_string: MyModuleConfig.d_ff: missing required field");
    EXPECT_BURN_ERROR(TrainingConfig::from_json_string(R"({"model": {"hidden_size": 3}})"),
                      "TrainingConfig.model.num_classes: missing required field");
    // The whole nested config left out: its required field is reported.
    EXPECT_BURN_ERROR(TrainingConfig::from_json_string(R"({"batch_size": 3})"),
                      "TrainingConfig.model.num_classes: missing required field");
    EXPECT_BURN_ERROR(ExperimentConfig::from_json_string(R"({"name": "x", "layers": []})"),
                      "ExperimentConfig.optimizer: missing required field");
    EXPECT_BURN_ERROR(
        ExperimentConfig::from_json_string(
            R"({"name": "x", "layers": [], "optimizer": {}, "heads": [{"num_classes": 1}, {}]})"),
        "ExperimentConfig.heads[1].num_classes: missing required field");
    EXPECT_BURN_ERROR(
        ExperimentConfig::from_json_string(
            R"({"name": "x", "layers": [], "optimizer": {}, "model": {"dropout": 0.1}})"),
        "ExperimentConfig.model.num_classes: missing required field");
    // A required field given as null is a wrong type, not a missing field.
    EXPECT_BURN_ERROR(MyModuleConfig::from_json_string(R"({"d_model": null, "d_ff": 1})"),
                      "MyModuleConfig.d_model: expected an unsigned integer, found null");
}

TEST(Config, WrongTypes) {
    auto expect = [](const char* json, const char* message) {
        EXPECT_BURN_ERROR(TrainingConfig::from_json_string(json), message);
    };
    expect(R"({"model": {"num_classes": "ten"}})",
           R"(TrainingConfig.model.num_classes: expected an unsigned integer, found string "ten")");
    expect(R"({"model": {"num_classes": -1}})",
           "TrainingConfig.model.num_classes: expected an unsigned integer, found integer -1");
    expect(R"({"model": {"num_classes": 2.5}})",
           "TrainingConfig.model.num_classes: expected an unsigned integer, found number 2.5");
    expect(R"({"model": {"num_classes": 1, "channels": [1, true]}})",
           "TrainingConfig.model.channels[1]: expected an unsigned integer, found boolean true");
    expect(R"({"model": {"num_classes": 1, "channels": 4}})",
           "TrainingConfig.model.channels: expected an array, found integer 4");
    expect(
        R"({"model": {"num_classes": 1, "activation": "swish"}})",
        R"(TrainingConfig.model.activation: expected one of "relu", "gelu", "tanh", found string "swish")");
    expect(
        R"({"model": {"num_classes": 1, "activation": 0}})",
        R"(TrainingConfig.model.activation: expected one of "relu", "gelu", "tanh", found integer 0)");
    expect(R"({"model": [1]})", "TrainingConfig.model: expected an object, found array");
    expect(R"({"model": {"num_classes": 1}, "offset": 200})",
           "TrainingConfig.offset: integer 200 out of range for i8");
    expect(R"({"model": {"num_classes": 1}, "offset": -129})",
           "TrainingConfig.offset: integer -129 out of range for i8");
    expect(R"({"model": {"num_classes": 1}, "reduction": "sum"})",
           R"(TrainingConfig.reduction: expected an integer, found string "sum")");
    expect(R"({"model": {"num_classes": 1}, "shuffle": 1})",
           "TrainingConfig.shuffle: expected a boolean, found integer 1");
    expect(R"({"model": {"num_classes": 1}, "name": 3})",
           "TrainingConfig.name: expected a string, found integer 3");
    expect(R"({"model": {"num_classes": 1}, "learning_rate": "fast"})",
           R"(TrainingConfig.learning_rate: expected a number, found string "fast")");
    expect(R"({"model": {"num_classes": 1}, "mean": [1, 2]})",
           "TrainingConfig.mean: expected an array of 3 elements, found array");
    expect(R"({"model": {"num_classes": 1}, "mean": [1, 2, 1e300]})",
           "TrainingConfig.mean[2]: number 1e+300 out of range for f32");
    expect(R"({"model": {"num_classes": 1}, "tags": {"a": 1.5}})",
           "TrainingConfig.tags.a: expected an integer, found number 1.5");
    expect(R"({"model": {"num_classes": 1}, "checkpoint_dir": false})",
           "TrainingConfig.checkpoint_dir: expected a string, found boolean false");
    expect(R"({"model": {"num_classes": 1}, "schedule": [{"beta_1": {}}]})",
           "TrainingConfig.schedule[0].beta_1: expected a number, found object");
    expect(R"([1, 2])", "TrainingConfig: expected an object, found array");
    expect(R"({"model": {"num_classes": 1}, "seed": 18446744073709551616})",
           "TrainingConfig.seed: expected an unsigned integer, found number");
    expect(R"({"model": )", "Config::from_json_string: invalid JSON: parse error at line 1");
}

TEST(Config, Printing) {
    const auto c = full_config();
    std::ostringstream os;
    os << c;
    EXPECT_EQ(os.str(), c.to_json_string());
    std::ostringstream m;
    m << MyModuleConfig{.d_model = 512, .d_ff = 2048};
    EXPECT_EQ(m.str(), "{\n  \"d_model\": 512,\n  \"d_ff\": 2048,\n  \"dropout\": 0.1\n}");
    EXPECT_EQ(burn::config::enum_name(Activation::tanh), "tanh");
}

// ------------------------------------------------------------------ files
TEST(Config, SaveLoadNestedRoundTrip) {
    TempDir dir;
    const auto path = dir.path() / "config.json";
    const auto c = full_config();
    c.save(path);
    EXPECT_EQ(read_file(path), c.to_json_string() + "\n");
    const auto back = TrainingConfig::load(path);
    EXPECT_EQ(back, c);
    EXPECT_EQ(back.model.channels, (std::vector<std::size_t>{32, 64, 128}));
    EXPECT_EQ(back.optimizer.weight_decay, 5e-4);
    EXPECT_FALSE(back.optimizer.grad_clipping.has_value());
    EXPECT_EQ(back.checkpoint_dir, "/tmp/ckpt");
    EXPECT_EQ(back.name, c.name);
    // Free-function forms.
    burn::config::save(MyModuleConfig{.d_model = 1, .d_ff = 2}, dir.path() / "m.json");
    EXPECT_EQ(burn::config::load<MyModuleConfig>(dir.path() / "m.json"),
              MyModuleConfig({.d_model = 1, .d_ff = 2}));
}

TEST(Config, AtomicSave) {
    TempDir dir;
    const auto path = dir.path() / "config.json";
    // Replacing a longer file leaves exactly the new contents, and no temporary file.
    write_file(path, std::string(10000, 'x'));
    std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                           std::filesystem::perms::owner_write |
                                           std::filesystem::perms::group_read);
    const auto c = MyModuleConfig{.d_model = 512, .d_ff = 2048};
    c.save(path);
    EXPECT_EQ(read_file(path), c.to_json_string() + "\n");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"config.json"});
    // The permissions of the replaced file are kept.
    EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                  std::filesystem::perms::group_read);
    for (int i = 0; i < 20; ++i) c.with(&MyModuleConfig::d_ff, i).save(path);
    EXPECT_EQ(MyModuleConfig::load(path).d_ff, 19u);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"config.json"});

    // A failed save (directory missing) names the path and leaves nothing behind.
    EXPECT_BURN_ERROR(c.save(dir.path() / "missing" / "config.json"),
                      "Config::save: cannot write '");
    EXPECT_BURN_ERROR(c.save(dir.path() / "missing" / "config.json"), "missing/config.json");
    // Saving over a directory fails at the rename and removes the temporary file.
    std::filesystem::create_directory(dir.path() / "sub");
    EXPECT_BURN_ERROR(c.save(dir.path() / "sub"), "rename");
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"config.json", "sub"}));
}

TEST(Config, LoadErrors) {
    TempDir dir;
    const auto missing = dir.path() / "nope.json";
    EXPECT_BURN_ERROR(MyModuleConfig::load(missing),
                      "Config::load: cannot open '" + missing.string() + "': No such file");
    EXPECT_BURN_ERROR(MyModuleConfig::load(dir.path()), "it is a directory");

    const auto bad = dir.path() / "bad.json";
    write_file(bad, "{\"d_model\": 1,\n \"d_ff\": }");
    EXPECT_BURN_ERROR(MyModuleConfig::load(bad),
                      "Config::load: '" + bad.string() + "': invalid JSON: parse error at line 2");

    const auto partial = dir.path() / "partial.json";
    write_file(partial, R"({"model": {"hidden_size": 3}})");
    EXPECT_BURN_ERROR(TrainingConfig::load(partial),
                      "Config::load: '" + partial.string() +
                          "': TrainingConfig.model.num_classes: missing required field");
    write_file(partial, R"({"model": {"num_classes": 3}, "batch_size": "64"})");
    EXPECT_BURN_ERROR(
        TrainingConfig::load(partial),
        R"(TrainingConfig.batch_size: expected an unsigned integer, found string "64")");
}

// ------------------------------------------------------------------ init<B>(device) convention
template <burn::Backend B>
struct TinyLinear {
    burn::module::Param<burn::Tensor<B, 2>> weight;
    burn::module::Param<burn::Tensor<B, 1>> bias;
};

struct TinyLinearConfig {
    Required<std::size_t> d_input;
    Required<std::size_t> d_output;
    double init_value = 0.5;
    BURN_CONFIG(TinyLinearConfig, d_input, d_output, init_value)

    template <burn::Backend B>
    TinyLinear<B> init(const typename B::Device& device) const {
        return {burn::Tensor<B, 2>::full({*d_input, *d_output}, init_value, device),
                burn::Tensor<B, 1>::zeros({*d_output}, device)};
    }
};

TEST(Config, InitConvention) {
    using B = burn::Cpu<float>;
    const auto config = TinyLinearConfig{.d_input = 3, .d_output = 2};
    const auto layer = config.init<B>(B::Device{});
    EXPECT_EQ(layer.weight.shape(), burn::Shape({3, 2}));
    EXPECT_EQ(layer.bias.shape(), burn::Shape({2}));
    EXPECT_EQ(layer.weight.val().sum().into_scalar(), 3.0f);
    EXPECT_TRUE(layer.weight.is_require_grad());
    // The same layer from a saved config.
    const auto again = TinyLinearConfig::from_json_string(config.to_json_string()).init<B>({});
    EXPECT_EQ(again.weight.shape(), layer.weight.shape());
}

}  // namespace cfgtest

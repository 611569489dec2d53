// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target for the config loader (burn/config/config.hpp, src/config.cpp): arbitrary text
// given to from_json_string must either load or throw burn::Error; it must never crash, hang,
// read out of bounds (ASan) or trigger undefined behaviour (UBSan). The config below has a field
// of every kind the loader handles (numbers of each width, strings, bools, enums by name and by
// value, optionals, Required, vectors (of bool, numbers, configs), arrays, maps, a variant of
// configs, nested configs and a config that contains itself). A config that loads must write
// JSON that loads back to an equal config and the same JSON, through a file (save / load) as
// well as in memory. Run with tests/fuzz/run.sh.
#include <unistd.h>

#include <burn/config/config.hpp>
#include <burn/tensor/error.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fuzz_config {

enum class Activation { relu, gelu, tanh };
BURN_CONFIG_ENUM(Activation, relu, gelu, tanh)
enum class Level : std::int16_t { low = -1, high = 7 };  // not listed: saved as its integer

struct Constant {
    double value = 0.0;
    BURN_CONFIG(Constant, value)
};
struct Ones {
    BURN_CONFIG(Ones)
};
struct Uniform {
    float min = -1.0f;
    float max = 1.0f;
    BURN_CONFIG(Uniform, min, max)
};
using Init = std::variant<Ones, Constant, Uniform>;

struct LayerConfig {
    burn::Required<std::size_t> d_model;
    double dropout = 0.1;
    float eps = 1e-5f;
    long double scale = 1.0L;
    Activation activation = Activation::relu;
    std::optional<std::string> name;
    Init init = Ones{};
    BURN_CONFIG(LayerConfig, d_model, dropout, eps, scale, activation, name, init)
};

/// A config that contains itself: only its nesting depth bounds a file.
struct Node {
    std::string label;
    std::vector<Node> children;
    std::optional<std::int32_t> weight;
    BURN_CONFIG(Node, label, children, weight)
};

struct FuzzConfig {
    burn::Required<LayerConfig> model;
    bool shuffle = true;
    std::int8_t i8 = -3;
    std::uint8_t u8 = 200;
    std::int16_t i16 = 0;
    std::uint16_t u16 = 1;
    std::int32_t i32 = -7;
    std::uint32_t u32 = 7;
    std::int64_t i64 = 0;
    std::uint64_t u64 = 64;
    float learning_rate = 1e-3f;
    double momentum = 0.9;
    Level level = Level::low;
    std::string optimizer = "adam";
    std::optional<std::uint32_t> seed;
    std::optional<LayerConfig> head;
    std::vector<bool> mask{true, false};
    std::vector<std::size_t> layers{64, 32};
    std::vector<std::string> tags;
    std::vector<LayerConfig> blocks;
    std::array<float, 3> mean{0.485f, 0.456f, 0.406f};
    std::map<std::string, double> weights;
    std::map<std::string, std::vector<std::string>> groups;
    std::vector<Init> inits;
    Node tree;
    BURN_CONFIG(FuzzConfig, model, shuffle, i8, u8, i16, u16, i32, u32, i64, u64, learning_rate,
                momentum, level, optimizer, seed, head, mask, layers, tags, blocks, mean, weights,
                groups, inits, tree)
};

[[noreturn]] void die(const char* what, const std::string& detail) {
    std::fprintf(stderr, "fuzz_config: %s\n%s\n", what, detail.c_str());
    std::abort();
}

/// A directory of this process for the save / load round trip (in /dev/shm when it exists).
const std::filesystem::path& temp_dir() {
    static const std::filesystem::path dir = [] {
        std::error_code ec;
        const std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec)
                                               ? "/dev/shm"
                                               : std::filesystem::temp_directory_path();
        auto d = base / ("burn_fuzz_config_" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(temp_dir(), ignored);
        });
        return d;
    }();
    return dir;
}

void check(std::string_view text) {
    FuzzConfig config = burn::config::detail::Access::blank<FuzzConfig>();
    try {
        config = FuzzConfig::from_json_string(text);
    } catch (const burn::Error& e) {
        // Rejected with a message: the expected outcome for most inputs. BURN_FUZZ_VERBOSE=1
        // prints it (to check the seeds).
        static const bool verbose = std::getenv("BURN_FUZZ_VERBOSE") != nullptr;
        if (verbose) std::fprintf(stderr, "fuzz_config: rejected: %s\n", e.what());
        return;
    }
    std::string json;
    FuzzConfig again = burn::config::detail::Access::blank<FuzzConfig>();
    FuzzConfig from_file = burn::config::detail::Access::blank<FuzzConfig>();
    const auto path = temp_dir() / "config.json";
    try {
        json = config.to_json_string();
        again = FuzzConfig::from_json_string(json);
        config.save(path);
        from_file = FuzzConfig::load(path);
    } catch (const burn::Error& e) {
        die("a loaded config cannot be written and loaded back", e.what());
    }
    if (again.to_json_string() != json) die("a loaded config does not survive a round trip", json);
    if (from_file.to_json_string() != json)
        die("a loaded config does not survive save / load", json);
    // NaN != NaN: compare the values only when no float is NaN (written as "NaN").
    if (json.find("\"NaN\"") == std::string::npos && !(again == config && from_file == config))
        die("a loaded config differs from the config it writes", json);
}

}  // namespace fuzz_config

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz_config::check(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}

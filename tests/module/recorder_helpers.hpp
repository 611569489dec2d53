// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by the recorder tests: a record tree with every kind of item, the record a recorder is
// expected to give back (tensors in the precision's dtypes), a NaN-aware deep comparison and a
// scratch directory.
#pragma once

#include <burn/record/recorder.hpp>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace burn::testing::rec {

using record::Record;
using record::TensorItem;
using module::ParamId;

/// A fresh directory under the system temp dir, removed with its contents at scope exit.
class TempDir {
public:
    explicit TempDir(const std::string& tag) {
        static int counter = 0;
        path_ = std::filesystem::temp_directory_path() /
                ("burn_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

inline std::vector<std::uint8_t> read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& p, std::span<const std::uint8_t> bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

inline Record tensor(TensorData d, std::uint64_t id) { return Record(TensorItem{std::move(d), ParamId(id)}); }

/// Every kind of item: nested maps and lists, None, tensors of each dtype family (f32 with
/// NaN/inf/-0, f64, bf16, i64, i8, u8, bool, qint8, rank 0, empty), scalars and strings.
inline Record sample_record() {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> w = random_floats(12, 1);
    w[1] = std::numeric_limits<float>::quiet_NaN();
    w[2] = inf;
    w[3] = -inf;
    w[4] = -0.0f;
    w[5] = 1e-7f;      // an f16 subnormal
    w[6] = 65504.0f;   // the largest f16
    std::vector<double> b = {0.5, -1.25, 3.141592653589793, 1e-3};

    Record r;
    Record linear1;
    linear1.add("weight", tensor(TensorData(w, Shape{3, 4}), 0x0123456789abcdefULL));
    linear1.add("bias", tensor(TensorData(b, Shape{4}), 0xfedcba9876543210ULL));
    r.add("linear1", std::move(linear1));

    Record::List blocks;
    Record block0;
    Record conv;
    conv.add("weight", tensor(TensorData(random_floats(8, 2), Shape{2, 1, 2, 2}), 42));
    block0.add("conv", std::move(conv));
    block0.add("norm", Record{});
    blocks.push_back(std::move(block0));
    blocks.push_back(Record{});
    Record block2;
    block2.add("scale", tensor(TensorData(std::vector<float>{2.5f}, Shape{}), 7));  // rank 0
    block2.add("empty", tensor(TensorData(std::vector<float>{}, Shape{0, 3}), 8));
    blocks.push_back(std::move(block2));
    r.add("blocks", Record(std::move(blocks)));

    r.add("ids", tensor(TensorData(std::vector<std::int64_t>{-3, 0, 7, 30000, -30000}, Shape{5}), 9));
    r.add("small", tensor(TensorData(std::vector<std::int8_t>{-128, 0, 127}, Shape{3}), 10));
    r.add("bytes", tensor(TensorData(std::vector<std::uint8_t>{0, 200, 255}, Shape{3}), 11));
    r.add("mask", tensor(TensorData(std::vector<bool>{true, false, true, true, false, false},
                                    Shape{2, 3}), 12));
    r.add("brain", tensor(TensorData(std::vector<bf16>{bf16(1.5f), bf16(-0.333f)}, Shape{2}), 13));
    QuantizationInfo q{QuantizationScheme::PerChannelAffine(QuantizationType::QInt8, 0),
                       {0.5f, 0.25f}, {-3, 4}};
    r.add("quantized", tensor(TensorData::quantized({-128, -1, 0, 1, 2, 127}, Shape{2, 3}, q), 14));

    r.add("step", Record(std::int64_t{123456789012}));
    r.add("negative", Record(std::int64_t{-5}));
    r.add("lr", Record(1e-3));
    r.add("whole", Record(2.0));  // a float with an integral value stays a float
    r.add("nan", Record(std::numeric_limits<double>::quiet_NaN()));
    r.add("neg_inf", Record(-std::numeric_limits<double>::infinity()));
    r.add("flag", Record(true));
    r.add("off", Record(false));
    r.add("name", Record(std::string("mnist \"model\"\n\xc3\xbcnic\xc3\xb6" "de")));
    r.add("$dollar", Record(std::string("a key with a leading $")));
    r.add("empty_map", Record(Record::Map{}));
    r.add("empty_list", Record(Record::List{}));
    r.add("nothing", Record{});
    return r;
}

/// `r` with every tensor as the recorder saves it: floats in `f`, ints in `i`.
inline Record expected_after(const Record& r, DType f, DType i) {
    return std::visit(
        [&](const auto& v) -> Record {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, TensorItem>) {
                const DType d = v.data.dtype;
                if (d == DType::Bool || d == DType::QInt8) return Record(v);
                return Record(TensorItem{v.data.convert(is_float(d) ? f : i), v.id});
            } else if constexpr (std::is_same_v<V, Record::List>) {
                Record::List out;
                for (const auto& x : v) out.push_back(expected_after(x, f, i));
                return Record(std::move(out));
            } else if constexpr (std::is_same_v<V, Record::Map>) {
                Record::Map out;
                for (const auto& [k, x] : v) out.emplace_back(k, expected_after(x, f, i));
                return Record(std::move(out));
            } else {
                return Record(v);
            }
        },
        r.value());
}

/// Same value, NaN == NaN, and the sign of zeros and infinities kept.
inline bool same_double(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

/// Deep comparison; the first difference is reported with its dotted path.
inline ::testing::AssertionResult same_record(const Record& got, const Record& want,
                                              const std::string& path = "") {
    const std::string where = path.empty() ? "<root>" : path;
    if (got.value().index() != want.value().index())
        return ::testing::AssertionFailure() << where << ": got " << got.kind() << ", want " << want.kind();
    if (const auto* w = std::get_if<TensorItem>(&want.value())) {
        const auto& g = std::get<TensorItem>(got.value());
        if (g.id != w->id) return ::testing::AssertionFailure() << where << ": id " << g.id << " vs " << w->id;
        if (g.data.dtype != w->data.dtype)
            return ::testing::AssertionFailure() << where << ": dtype " << g.data.dtype << " vs " << w->data.dtype;
        if (g.data.shape != w->data.shape)
            return ::testing::AssertionFailure() << where << ": shape " << g.data.shape << " vs " << w->data.shape;
        if (g.data.quantization() != w->data.quantization())
            return ::testing::AssertionFailure() << where << ": quantization parameters differ";
        for (std::size_t i = 0; i < w->data.num_elements(); ++i)
            if (!same_double(g.data.value_as_double(i), w->data.value_as_double(i)))
                return ::testing::AssertionFailure() << where << "[" << i << "]: " << g.data.value_as_double(i)
                                                     << " vs " << w->data.value_as_double(i);
        return ::testing::AssertionSuccess();
    }
    if (const auto* w = std::get_if<double>(&want.value())) {
        if (!same_double(std::get<double>(got.value()), *w))
            return ::testing::AssertionFailure() << where << ": " << std::get<double>(got.value()) << " vs " << *w;
        return ::testing::AssertionSuccess();
    }
    if (const auto* w = std::get_if<Record::List>(&want.value())) {
        const auto& g = std::get<Record::List>(got.value());
        if (g.size() != w->size()) return ::testing::AssertionFailure() << where << ": list of " << g.size() << " vs " << w->size();
        for (std::size_t i = 0; i < w->size(); ++i)
            if (auto res = same_record(g[i], (*w)[i], Record::join(path, std::to_string(i))); !res) return res;
        return ::testing::AssertionSuccess();
    }
    if (const auto* w = std::get_if<Record::Map>(&want.value())) {
        const auto& g = std::get<Record::Map>(got.value());
        if (g.size() != w->size()) return ::testing::AssertionFailure() << where << ": map of " << g.size() << " vs " << w->size();
        for (std::size_t i = 0; i < w->size(); ++i) {
            if (g[i].first != (*w)[i].first)
                return ::testing::AssertionFailure() << where << ": field " << i << " is \"" << g[i].first
                                                     << "\", want \"" << (*w)[i].first << "\"";
            if (auto res = same_record(g[i].second, (*w)[i].second, Record::join(path, g[i].first)); !res) return res;
        }
        return ::testing::AssertionSuccess();
    }
    const bool equal = std::visit(
        [&](const auto& w) {
            using V = std::decay_t<decltype(w)>;
            if constexpr (std::is_same_v<V, std::int64_t> || std::is_same_v<V, bool> ||
                          std::is_same_v<V, std::string> || std::is_same_v<V, Record::None>)
                return std::get<V>(got.value()) == w;
            else
                return false;
        },
        want.value());
    if (!equal) return ::testing::AssertionFailure() << where << ": " << want.kind() << " differs";
    return ::testing::AssertionSuccess();
}

}  // namespace burn::testing::rec

// SPDX-License-Identifier: MIT OR Apache-2.0
#include "test_support.hpp"

#include <fstream>
#include <limits>
#include <map>
#include <mutex>

#ifndef BURN_FIXTURE_DIR
#error "BURN_FIXTURE_DIR must point at tests/fixtures"
#endif

namespace burn::testing {
namespace {

double json_number(const nlohmann::json& v) {
    if (v.is_string()) {
        const auto s = v.get<std::string>();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
        throw Error("fixture: unexpected string value " + s);
    }
    if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
    return v.get<double>();
}

}  // namespace

std::string fixture_path(std::string_view relative) {
    return std::string(BURN_FIXTURE_DIR) + "/" + std::string(relative);
}

const nlohmann::json& fixture(std::string_view file, std::string_view case_name) {
    static std::mutex mu;
    static std::map<std::string, nlohmann::json, std::less<>> files;
    std::lock_guard lock(mu);
    auto it = files.find(file);
    if (it == files.end()) {
        const std::string path = std::string(BURN_FIXTURE_DIR) + "/" + std::string(file) + ".json";
        std::ifstream in(path);
        if (!in) throw Error("fixture: cannot open " + path);
        it = files.emplace(std::string(file), nlohmann::json::parse(in)).first;
    }
    const auto& cases = it->second.at("cases");
    auto c = cases.find(std::string(case_name));
    if (c == cases.end())
        throw Error("fixture: case '" + std::string(case_name) + "' missing from " +
                    std::string(file));
    return *c;
}

TensorData fixture_data(const nlohmann::json& t) {
    Shape shape(t.at("shape").get<std::vector<std::size_t>>());
    const auto dtype = t.at("dtype").get<std::string>();
    const auto& data = t.at("data");
    if (dtype == "f32" || dtype == "f64") {
        std::vector<double> v;
        for (const auto& x : data) v.push_back(json_number(x));
        if (dtype == "f32") return TensorData(std::vector<float>(v.begin(), v.end()), shape);
        return TensorData(std::move(v), shape);
    }
    if (dtype == "i64" || dtype == "i32") {
        std::vector<std::int64_t> v;
        for (const auto& x : data) v.push_back(x.get<std::int64_t>());
        return TensorData(std::move(v), shape);
    }
    if (dtype == "bool") {
        std::vector<bool> v;
        for (const auto& x : data) v.push_back(x.is_boolean() ? x.get<bool>() : x.get<int>() != 0);
        return TensorData(std::move(v), shape);
    }
    throw Error("fixture: unknown dtype " + dtype);
}

std::vector<std::string> fixture_case_list(std::string_view file, std::string_view group) {
    auto v =
        fixture(file, "index").at("params").at(std::string(group)).get<std::vector<std::string>>();
    if (v.empty())
        throw Error("fixture " + std::string(file) + ": no cases listed for " + std::string(group));
    return v;
}

}  // namespace burn::testing

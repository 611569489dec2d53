// SPDX-License-Identifier: MIT OR Apache-2.0
// JSON lines for InMemDataset<I>::from_json_rows, read with nlohmann_json (opt-in: the other data
// headers include no JSON library). I needs a from_json (e.g. NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE)
// or must be a type nlohmann converts (numbers, strings, vectors, maps...):
//
//   #include <burn/data/json.hpp>
//   auto points = InMemDataset<Point>::from_json_rows("points.jsonl");
#pragma once

#include <burn/data/in_memory.hpp>
#include <burn/tensor/error.hpp>
#include <concepts>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "burn/detail/json_limits.hpp"
#include "burn/record/limits.hpp"

namespace burn::data::detail {

template <class I>
struct JsonRows {
    /// The items of the non-empty lines of `path`, each parsed and given to `convert`; errors
    /// (of the parser or of `convert`) throw burn::Error naming the file and the line.
    template <class Convert>
    static std::vector<I> read(const std::filesystem::path& path, Convert& convert) {
        static_assert(std::invocable<Convert&, const nlohmann::json&>,
                      "InMemDataset::from_json_rows: convert must take a const nlohmann::json&");
        const std::string file = path.string();
        std::ifstream in(path, std::ios::binary);
        BURN_CHECK(in.good(), "InMemDataset::from_json_rows: cannot open '", file, "'");
        std::vector<I> items;
        std::string line;
        std::size_t line_no = 0;
        while (std::getline(in, line)) {
            ++line_no;
            if (line.find_first_not_of(" \t\r\n") == std::string::npos) continue;
            try {
                ::burn::detail::check_json_text(line, "line", ::burn::detail::max_json_depth,
                                                ::burn::record::read_limits().max_string_bytes);
                const auto value = nlohmann::json::parse(line);
                items.push_back(convert(value));
            } catch (const std::exception& e) {
                ::burn::detail::fail("InMemDataset::from_json_rows: ", file, ":", line_no, ": ",
                                     e.what());
            }
        }
        BURN_CHECK(!in.bad(), "InMemDataset::from_json_rows: error reading '", file, "'");
        return items;
    }

    /// As above, converting with nlohmann's `get<I>()`.
    static std::vector<I> read(const std::filesystem::path& path) {
        auto get = [](const nlohmann::json& j) { return j.template get<I>(); };
        return read(path, get);
    }
};

}  // namespace burn::data::detail

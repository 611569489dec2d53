// SPDX-License-Identifier: MIT OR Apache-2.0
// InMemDataset (Burn's burn_dataset::InMemDataset): items held in a std::vector, built from a
// vector, a CSV file (one item per record, through a row parser) or a JSON-lines file (one JSON
// value per line; the JSON parsing is in <burn/data/json.hpp>, which from_json_rows needs). Parse
// errors throw burn::Error naming the file and the line.
#pragma once

#include <burn/data/dataset.hpp>
#include <burn/tensor/error.hpp>
#include <charconv>
#include <concepts>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace burn::data {

/// How from_csv reads a file (Burn passes a csv::ReaderBuilder).
struct CsvOptions {
    char delimiter = ',';     ///< field separator (',' or '\t' ...)
    bool has_headers = true;  ///< the first record names the columns (the csv crate's default)
    char quote = '"';         ///< fields may be quoted; a doubled quote inside is one quote
    bool flexible = false;    ///< allow records with a different number of fields
};

/// One CSV record, handed to from_csv's row parser. Fields are views valid during the call.
class CsvRow {
public:
    CsvRow(const std::vector<std::string_view>& fields, const std::vector<std::string>* headers,
           const std::string& path, std::size_t line)
        : fields_(fields), headers_(headers), path_(path), line_(line) {}

    std::size_t size() const { return fields_.size(); }
    std::string_view operator[](std::size_t column) const { return field(column); }
    const std::vector<std::string_view>& fields() const { return fields_; }
    std::size_t line() const { return line_; }  ///< 1-based line in the file
    const std::string& path() const { return path_; }

    /// The field of a column; throws naming the file, the line and the column when missing.
    std::string_view field(std::size_t column) const {
        if (column >= fields_.size())
            fail("column ", column, " out of range (the record has ", fields_.size(), " fields)");
        return fields_[column];
    }
    /// The field of the column named `name` in the header.
    std::string_view field(std::string_view name) const { return field(column(name)); }

    /// The index of the column named `name` (needs has_headers).
    std::size_t column(std::string_view name) const {
        if (headers_ == nullptr)
            fail("no header to look up column '", name, "' (has_headers is false)");
        for (std::size_t i = 0; i < headers_->size(); ++i)
            if ((*headers_)[i] == name) return i;
        fail("no column named '", name, "'");
    }

    /// The field of a column (index or header name) parsed as T: a string, a bool ("true",
    /// "false", "1", "0") or an arithmetic type (the whole field, surrounding spaces allowed).
    template <class T, class Key>
    T get(const Key& key) const {
        std::string_view text;
        std::string where;
        if constexpr (std::is_convertible_v<const Key&, std::string_view>) {
            const std::string_view name = key;
            text = field(name);
            where = "column '" + std::string(name) + "'";
        } else {
            const auto index = static_cast<std::size_t>(key);
            text = field(index);
            where = "column " + std::to_string(index);
        }
        return parse<T>(text, where);
    }

    /// Throws burn::Error "<path>:<line>: <message>".
    template <class... Args>
    [[noreturn]] void fail(const Args&... args) const {
        ::burn::detail::fail("InMemDataset::from_csv: ", path_, ":", line_, ": ", args...);
    }

private:
    template <class T>
    T parse(std::string_view text, const std::string& where) const {
        if constexpr (std::is_same_v<T, std::string>) {
            return std::string(text);
        } else if constexpr (std::is_same_v<T, std::string_view>) {
            return text;
        } else {
            while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
                text.remove_prefix(1);
            while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
                text.remove_suffix(1);
            if constexpr (std::is_same_v<T, bool>) {
                if (text == "true" || text == "1") return true;
                if (text == "false" || text == "0") return false;
                fail(where, ": expected a bool, got '", text, "'");
            } else {
                static_assert(std::is_arithmetic_v<T>,
                              "CsvRow::get: T must be arithmetic or a string");
                T value{};
                const char* first = text.data();
                const char* last = text.data() + text.size();
                // from_chars takes no '+': skip one, unless a sign follows ("+-5" is no number).
                if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+')
                    ++first;
                const auto [ptr, ec] = std::from_chars(first, last, value);
                if (text.empty() || ec != std::errc{} || ptr != last)
                    fail(where, ": expected a number, got '", text, "'");
                return value;
            }
        }
    }

    const std::vector<std::string_view>& fields_;
    const std::vector<std::string>* headers_;
    const std::string& path_;
    std::size_t line_;
};

namespace detail {

/// Reads the records of a CSV text one by one (RFC 4180 with a configurable delimiter and
/// quote; "\n" or "\r\n" line ends; empty lines skipped).
struct CsvCursor {
    const std::string& text;
    const CsvOptions& options;
    const std::string& file;
    std::size_t pos = 0;
    std::size_t line = 1;

    /// The next record's fields into `out` and its first line into `record_line`; false at the end.
    bool next(std::vector<std::string>& out, std::size_t& record_line) {
        const std::size_t n = text.size();
        // Skip empty lines.
        while (pos < n &&
               (text[pos] == '\n' || (text[pos] == '\r' && pos + 1 < n && text[pos + 1] == '\n'))) {
            pos += text[pos] == '\r' ? 2 : 1;
            ++line;
        }
        if (pos >= n) return false;
        record_line = line;
        out.clear();
        std::string field;
        while (true) {
            field.clear();
            if (pos < n && text[pos] == options.quote) {
                ++pos;
                bool closed = false;
                while (pos < n) {
                    const char c = text[pos];
                    if (c == options.quote) {
                        if (pos + 1 < n && text[pos + 1] == options.quote) {
                            field.push_back(c);
                            pos += 2;
                        } else {
                            ++pos;
                            closed = true;
                            break;
                        }
                    } else {
                        if (c == '\n') ++line;
                        field.push_back(c);
                        ++pos;
                    }
                }
                if (!closed)
                    ::burn::detail::fail("InMemDataset::from_csv: ", file, ":", record_line,
                                         ": unterminated quoted field");
                if (pos < n && text[pos] == '\r' && pos + 1 < n && text[pos + 1] == '\n') ++pos;
                if (pos < n && text[pos] != options.delimiter && text[pos] != '\n')
                    ::burn::detail::fail("InMemDataset::from_csv: ", file, ":", line,
                                         ": unexpected character '", text[pos],
                                         "' after a quoted field");
            } else {
                while (pos < n && text[pos] != options.delimiter && text[pos] != '\n')
                    field.push_back(text[pos++]);
                if (pos < n && text[pos] == '\n' && !field.empty() && field.back() == '\r')
                    field.pop_back();
                if (pos >= n && !field.empty() && field.back() == '\r') field.pop_back();
            }
            out.push_back(field);
            if (pos >= n) return true;
            if (text[pos] == '\n') {
                ++pos;
                ++line;
                return true;
            }
            ++pos;  // the delimiter
            if (pos >= n || text[pos] == '\n' ||
                (text[pos] == '\r' && pos + 1 < n && text[pos + 1] == '\n')) {
                out.emplace_back();  // a trailing delimiter: one last empty field
                if (pos < n) {
                    pos += text[pos] == '\r' ? 2 : 1;
                    ++line;
                }
                return true;
            }
        }
    }
};

/// Reads JSON-lines files for InMemDataset<I>::from_json_rows: defined in <burn/data/json.hpp>
/// (include it to call from_json_rows), so that this header needs no JSON library.
template <class I>
struct JsonRows;

}  // namespace detail

/// A dataset of items kept in memory (Burn's InMemDataset; in PyTorch, a map-style Dataset over
/// a list, or TensorDataset). get copies the item out.
template <class I>
class InMemDataset {
public:
    using Item = I;

    InMemDataset() = default;
    explicit InMemDataset(std::vector<I> items) : items_(std::move(items)) {}

    std::optional<I> get(std::size_t index) const {
        if (index >= items_.size()) return std::nullopt;
        return items_[index];
    }
    std::size_t len() const { return items_.size(); }
    const std::vector<I>& items() const { return items_; }

    /// Every item a Dataset holds, in order (Burn's InMemDataset::from_dataset).
    template <Dataset D>
    requires std::same_as<typename D::Item, I>
    static InMemDataset from_dataset(const D& dataset) {
        std::vector<I> items;
        const auto n = static_cast<std::size_t>(dataset.len());
        items.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            auto item = dataset.get(i);
            BURN_CHECK(item.has_value(), "InMemDataset::from_dataset: no item at index ", i,
                       " of a dataset of length ", n);
            items.push_back(std::move(*item));
        }
        return InMemDataset(std::move(items));
    }

    /// One item per CSV record: `parser(const CsvRow&)` (or `parser(const
    /// std::vector<std::string_view>&)`) returns the item. Empty lines are skipped; quoted
    /// fields may hold the delimiter, doubled quotes and line breaks. A missing file, a malformed
    /// record, a record with the wrong number of fields or an exception from the parser throws
    /// burn::Error naming the file and the line (where the record starts).
    template <class Parser>
    static InMemDataset from_csv(const std::filesystem::path& path, Parser&& parser,
                                 const CsvOptions& options = {}) {
        const std::string file = path.string();
        std::ifstream in(path, std::ios::binary);
        BURN_CHECK(in.good(), "InMemDataset::from_csv: cannot open '", file, "'");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        BURN_CHECK(!in.bad(), "InMemDataset::from_csv: error reading '", file, "'");
        if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // UTF-8 byte order mark

        detail::CsvCursor cursor{text, options, file};
        std::vector<std::string> headers;
        bool headers_read = false;
        std::optional<std::size_t> width;
        std::vector<std::string> storage;
        std::vector<std::string_view> fields;
        std::vector<I> items;
        std::size_t line_no = 0;
        while (cursor.next(storage, line_no)) {
            if (options.has_headers && !headers_read) {
                headers = storage;
                headers_read = true;
                width = headers.size();
                continue;
            }
            if (!width) width = storage.size();
            if (!options.flexible && storage.size() != *width)
                ::burn::detail::fail("InMemDataset::from_csv: ", file, ":", line_no, ": expected ",
                                     *width, " fields, found ", storage.size());
            fields.assign(storage.begin(), storage.end());
            const CsvRow row(fields, options.has_headers ? &headers : nullptr, file, line_no);
            try {
                if constexpr (std::invocable<Parser&, const CsvRow&>) items.push_back(parser(row));
                else items.push_back(parser(std::as_const(fields)));
            } catch (const ::burn::Error& e) {
                const std::string what = e.what();
                if (what.rfind("InMemDataset::from_csv: ", 0) == 0) throw;
                ::burn::detail::fail("InMemDataset::from_csv: ", file, ":", line_no, ": ", what);
            } catch (const std::exception& e) {
                ::burn::detail::fail("InMemDataset::from_csv: ", file, ":", line_no, ": ",
                                     e.what());
            }
        }
        return InMemDataset(std::move(items));
    }

    /// One item per line of a JSON-lines file (Burn's InMemDataset::from_json_rows): each
    /// non-empty line is a JSON value converted with the JSON library's `get<I>()`. Needs
    /// <burn/data/json.hpp> (which says what I needs).
    static InMemDataset from_json_rows(const std::filesystem::path& path) {
        return InMemDataset(detail::JsonRows<I>::read(path));
    }

    /// As above, converting each JSON value with `convert(const json&) -> I`.
    template <class Convert>
    static InMemDataset from_json_rows(const std::filesystem::path& path, Convert&& convert) {
        return InMemDataset(detail::JsonRows<I>::read(path, convert));
    }

private:
    std::vector<I> items_;
};

}  // namespace burn::data

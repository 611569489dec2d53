// SPDX-License-Identifier: MIT OR Apache-2.0
// SQLite datasets (Burn's SqliteDataset and SqliteDatasetWriter): items stored as the rows of a
// table named after the split ("train", "test", ...) in an SQLite database file, read by index
// with random access. Opt-in, like <burn/data/json.hpp>: this header includes nlohmann_json (an
// item is converted through its nlohmann `to_json` / `from_json`); the SQLite calls are compiled
// in src/data/sqlite.cpp, so no sqlite3.h reaches the user.
//
//   #include <burn/data/sqlite.hpp>
//   write_sqlite_dataset(items, "data.db", "train");               // any Dataset of Item
//   SqliteDataset<Item> train("data.db", "train");                 // a Dataset of Item
//
// Schema: table <split> with `row_id INTEGER PRIMARY KEY`, row_id = index + 1 (1..len, no gap),
// and either one column `item BLOB` holding the item's MessagePack (SqliteStorage::Serialized,
// Burn's writer's layout) or one column per field of the item's JSON object
// (SqliteStorage::Columns, the layout of Burn's Hugging Face importer). docs/datasets.md tells
// the mapping of values, the threading, the atomicity of writes and the errors.
#pragma once

#include <burn/data/dataset.hpp>
#include <burn/tensor/error.hpp>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace burn::data {

/// How a writer stores the items of a split.
enum class SqliteStorage {
    /// One column `item BLOB`: the MessagePack encoding of the item's JSON value (any item).
    Serialized,
    /// One column per key of the item's JSON object: numbers and booleans as INTEGER, REAL or
    /// BOOLEAN, strings as TEXT, binary values as BLOB, arrays and objects as MessagePack in a
    /// column declared MSGPACK. Readable by other SQLite tools column by column.
    Columns,
};

/// What a writer does when the database file exists already.
enum class SqliteExisting {
    /// Refuse (burn::Error at construction): Burn's `overwrite = false`.
    Fail,
    /// Replace the whole file when the writer completes: Burn's `overwrite = true`.
    Overwrite,
    /// Keep the file's tables: the writer starts from a copy of the file, and a split it writes
    /// replaces the table of the same name.
    KeepSplits,
};

/// Options of SqliteDatasetWriter and write_sqlite_dataset.
struct SqliteWriterOptions {
    SqliteStorage storage = SqliteStorage::Serialized;
    SqliteExisting existing = SqliteExisting::Fail;
};

namespace detail {

/// One column value of a row (SQLite's storage classes).
struct SqlValue {
    enum class Type : unsigned char { Null, Integer, Real, Text, Blob };
    Type type = Type::Null;
    std::int64_t integer = 0;
    double real = 0;
    std::string bytes;  ///< Text (as stored, not checked for UTF-8) or Blob
};

/// How a column's values turn into JSON, from its declared type: MSGPACK (a BLOB holding
/// MessagePack), BOOLEAN or BOOL, then SQLite's affinity rules (INT -> Integer; CHAR, CLOB, TEXT
/// -> Text; BLOB -> Blob; REAL, FLOA, DOUB -> Real; no type or anything else -> Numeric).
enum class SqlColumnKind : unsigned char { Integer, Boolean, Real, Text, Blob, MsgPack, Numeric };

struct SqlColumn {
    std::string name;
    std::string declared_type;
    SqlColumnKind kind = SqlColumnKind::Blob;
};

/// The name of a column kind for messages ("INTEGER", "MSGPACK", ...).
const char* sql_kind_name(SqlColumnKind kind);
/// The name of a value's storage class for messages ("NULL", "INTEGER", "REAL", "TEXT", "BLOB").
const char* sql_type_name(SqlValue::Type type);

/// Why `bytes` is not one well-formed MessagePack value nested at most `max_depth` deep (empty
/// when it is). Checked before nlohmann's recursive decoder sees untrusted bytes.
std::string msgpack_problem(std::span<const std::uint8_t> bytes, std::size_t max_depth);

/// One split of a database, opened read-only (src/data/sqlite.cpp). Thread-safe: read() takes a
/// connection from a pool (one per thread reading at once), so DataLoader workers read in
/// parallel.
class SqliteSplitReader {
public:
    /// Opens `file` and checks the table `split` (throws burn::Error naming the file, the split
    /// and what was expected).
    SqliteSplitReader(const std::filesystem::path& file, std::string split);
    ~SqliteSplitReader();
    SqliteSplitReader(const SqliteSplitReader&) = delete;
    SqliteSplitReader& operator=(const SqliteSplitReader&) = delete;

    std::size_t len() const;
    /// Whether the table is `row_id` + `item BLOB` (SqliteStorage::Serialized).
    bool row_serialized() const;
    /// The item columns, in table order (row_id excluded).
    const std::vector<SqlColumn>& columns() const;
    const std::filesystem::path& file() const;
    const std::string& split() const;
    /// The values of the row of index `index` (row_id index + 1), one per column; false when
    /// `index >= len()`. Throws burn::Error when the row is missing (a row_id gap) or unreadable.
    bool read(std::size_t index, std::vector<SqlValue>& row) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Builds a database in a temporary file next to the target (`<name>.tmp-<pid>-<hex>`), in one
/// transaction, and renames it over the target in finish() (src/data/sqlite.cpp). Thread-safe.
class SqliteWriterCore {
public:
    SqliteWriterCore(const std::filesystem::path& file, SqliteExisting existing);
    /// Removes the temporary file unless finish() succeeded.
    ~SqliteWriterCore();
    SqliteWriterCore(const SqliteWriterCore&) = delete;
    SqliteWriterCore& operator=(const SqliteWriterCore&) = delete;

    /// Whether this writer created the table of `split`.
    bool has_split(const std::string& split) const;
    /// The columns of a split this writer created.
    const std::vector<SqlColumn>& split_columns(const std::string& split) const;
    /// Creates the table `split` (dropping a table of that name copied from the existing file):
    /// `row_id INTEGER PRIMARY KEY` and the columns.
    void create_split(const std::string& split, const std::vector<SqlColumn>& columns);
    /// Appends a row to a created split; returns its index (row_id - 1).
    std::size_t append(const std::string& split, std::span<const SqlValue> row);
    /// Commits, flushes the file to disk and renames it over the target.
    void finish();
    bool finished() const;
    const std::filesystem::path& file() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// ------------------------------------------------------------------ item <-> row (nlohmann)

inline std::vector<std::uint8_t> msgpack_of(const nlohmann::json& j) {
    return nlohmann::json::to_msgpack(j);
}

/// Decodes a MessagePack blob (depth-checked first). Throws std::runtime_error on failure.
inline nlohmann::json json_of_msgpack(const std::string& blob) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(blob.data());
    const std::span<const std::uint8_t> bytes(data, blob.size());
    const std::string problem = msgpack_problem(bytes, 512);
    if (!problem.empty()) throw std::runtime_error(problem);
    return nlohmann::json::from_msgpack(bytes.begin(), bytes.end());
}

/// The JSON value of a column value, as SqliteDataset reads it.
inline nlohmann::json json_of_value(const SqlValue& v, const SqlColumn& column) {
    using T = SqlValue::Type;
    if (column.kind == SqlColumnKind::MsgPack && v.type == T::Blob) return json_of_msgpack(v.bytes);
    switch (v.type) {
        case T::Null:
            // SQLite stores a NaN as NULL.
            if (column.kind == SqlColumnKind::Real) return std::numeric_limits<double>::quiet_NaN();
            return nullptr;
        case T::Integer:
            if (column.kind == SqlColumnKind::Boolean) return v.integer != 0;
            return v.integer;
        case T::Real: return v.real;
        case T::Text: return v.bytes;
        case T::Blob:
            return nlohmann::json::binary(
                std::vector<std::uint8_t>(v.bytes.begin(), v.bytes.end()));
    }
    return nullptr;
}

/// The kind of JSON value (for messages): "a string", "a number", ...
inline const char* json_kind(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::null: return "null";
        case nlohmann::json::value_t::boolean: return "a boolean";
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
        case nlohmann::json::value_t::number_float: return "a number";
        case nlohmann::json::value_t::string: return "a string";
        case nlohmann::json::value_t::binary: return "binary";
        case nlohmann::json::value_t::array: return "an array";
        case nlohmann::json::value_t::object: return "an object";
        default: return "a value";
    }
}

/// The column kind a writer declares for a field, from the first item's value.
inline SqlColumnKind column_kind_of(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::boolean: return SqlColumnKind::Boolean;
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned: return SqlColumnKind::Integer;
        case nlohmann::json::value_t::number_float: return SqlColumnKind::Real;
        case nlohmann::json::value_t::string: return SqlColumnKind::Text;
        case nlohmann::json::value_t::binary: return SqlColumnKind::Blob;
        case nlohmann::json::value_t::array:
        case nlohmann::json::value_t::object: return SqlColumnKind::MsgPack;
        default: return SqlColumnKind::Numeric;  // null: no type known, any value accepted
    }
}

/// Whether a column of `kind` can hold the field value `j` (null always can).
inline bool column_accepts(SqlColumnKind kind, const nlohmann::json& j) {
    if (j.is_null() || kind == SqlColumnKind::MsgPack || kind == SqlColumnKind::Numeric)
        return true;
    switch (kind) {
        case SqlColumnKind::Integer:
        case SqlColumnKind::Real: return j.is_number() || j.is_boolean();
        case SqlColumnKind::Boolean: return j.is_boolean();
        case SqlColumnKind::Text: return j.is_string();
        case SqlColumnKind::Blob: return j.is_binary();
        default: return true;
    }
}

/// Whether an item field like `field` (from a default-constructed item) can be read from a
/// column declared as `kind`: only clear contradictions are refused.
inline bool field_readable_from(const nlohmann::json& field, SqlColumnKind kind) {
    if (kind == SqlColumnKind::Numeric || field.is_null()) return true;
    if (field.is_string()) return kind == SqlColumnKind::Text;
    if (field.is_number() || field.is_boolean())
        return kind == SqlColumnKind::Integer || kind == SqlColumnKind::Real ||
               kind == SqlColumnKind::Boolean;
    if (field.is_binary()) return kind == SqlColumnKind::Blob;
    return kind == SqlColumnKind::MsgPack;  // arrays and objects
}

/// The SqlValue a writer stores for `j` in a column of `kind`. Throws std::runtime_error.
inline SqlValue value_of_json(const nlohmann::json& j, SqlColumnKind kind) {
    SqlValue v;
    using T = SqlValue::Type;
    if (j.is_null()) return v;
    if (kind == SqlColumnKind::MsgPack) {
        const auto bytes = msgpack_of(j);
        v.type = T::Blob;
        v.bytes.assign(bytes.begin(), bytes.end());
        return v;
    }
    switch (j.type()) {
        case nlohmann::json::value_t::boolean:
            v.type = T::Integer;
            v.integer = j.get<bool>() ? 1 : 0;
            break;
        case nlohmann::json::value_t::number_integer:
            v.type = T::Integer;
            v.integer = j.get<std::int64_t>();
            break;
        case nlohmann::json::value_t::number_unsigned: {
            const auto u = j.get<std::uint64_t>();
            if (u > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
                throw std::runtime_error(std::to_string(u) +
                                         " does not fit an SQLite INTEGER (64-bit signed)");
            v.type = T::Integer;
            v.integer = static_cast<std::int64_t>(u);
            break;
        }
        case nlohmann::json::value_t::number_float:
            // SQLite turns a NaN into NULL, which the reader gives back as NaN in a REAL column.
            if (std::isnan(j.get<double>())) return v;
            v.type = T::Real;
            v.real = j.get<double>();
            break;
        case nlohmann::json::value_t::string:
            v.type = T::Text;
            v.bytes = j.get_ref<const std::string&>();
            break;
        case nlohmann::json::value_t::binary: {
            const auto& b = j.get_binary();
            v.type = T::Blob;
            v.bytes.assign(b.begin(), b.end());
            break;
        }
        default:
            throw std::runtime_error(std::string("cannot store ") + json_kind(j) +
                                     " in a column that is not MSGPACK");
    }
    return v;
}

/// The JSON of a default-constructed item when it is an object (used to name missing or
/// mistyped columns), or null.
template <class I>
nlohmann::json reference_json() {
    if constexpr (std::is_default_constructible_v<I>) {
        try {
            nlohmann::json j = I{};
            if (j.is_object()) return j;
        } catch (...) {
        }
    }
    return nullptr;
}

}  // namespace detail

/// A dataset of items stored in a table of an SQLite database (Burn's SqliteDataset). A cheap
/// handle: copies share the open database. get() is thread-safe (each reading thread gets its
/// own read-only connection), so the DataLoader's workers read in parallel.
///
/// The table of the split has a column `row_id` that is its INTEGER PRIMARY KEY, with row_id =
/// index + 1 for every index in 0..len()-1, and either one column `item BLOB` (a MessagePack
/// item) or one column per field. len() is the number of rows, checked at open to be
/// MAX(row_id) with MIN(row_id) = 1. `I` converts from JSON through nlohmann (a `from_json`, e.g.
/// NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE); in the column layout it is given the JSON object of
/// the row's columns. Every failure throws burn::Error naming the file and the split.
template <class I>
class SqliteDataset {
public:
    using Item = I;

    /// Opens split `split` of the database `db_file` read-only (Burn's from_db_file).
    SqliteDataset(const std::filesystem::path& db_file, const std::string& split)
        : reader_(std::make_shared<const detail::SqliteSplitReader>(db_file, split)) {
        check_fields();
    }
    /// Burn's spelling of the constructor.
    static SqliteDataset from_db_file(const std::filesystem::path& db_file,
                                      const std::string& split) {
        return SqliteDataset(db_file, split);
    }

    /// Item `index` (row_id index + 1), or nullopt past the end. Thread-safe.
    std::optional<I> get(std::size_t index) const {
        std::vector<detail::SqlValue> row;
        if (!reader_->read(index, row)) return std::nullopt;
        const auto& columns = reader_->columns();
        nlohmann::json j;
        try {
            if (reader_->row_serialized()) {
                if (row[0].type != detail::SqlValue::Type::Blob)
                    fail_at(index, "column 'item' holds ", detail::sql_type_name(row[0].type),
                            ", expected a BLOB of MessagePack");
                try {
                    j = detail::json_of_msgpack(row[0].bytes);
                } catch (const std::exception& e) {
                    fail_at(index, "the BLOB of column 'item' is not MessagePack: ", e.what());
                }
            } else {
                j = nlohmann::json::object();
                for (std::size_t c = 0; c < columns.size(); ++c) {
                    try {
                        j[columns[c].name] = detail::json_of_value(row[c], columns[c]);
                    } catch (const std::exception& e) {
                        fail_at(index, "the BLOB of column '", columns[c].name,
                                "' (declared MSGPACK) is not MessagePack: ", e.what());
                    }
                }
            }
            return j.template get<I>();
        } catch (const ::burn::Error&) {
            throw;
        } catch (const std::exception& e) {
            fail_at(index, "the row does not convert to the item", column_hint(j), ": ", e.what());
        }
    }

    std::size_t len() const { return reader_->len(); }
    /// The database file (Burn's db_file()).
    const std::filesystem::path& db_file() const { return reader_->file(); }
    /// The split, i.e. the table (Burn's split()).
    const std::string& split() const { return reader_->split(); }
    /// Whether the items are stored serialized in one `item` column (else one column per field).
    bool row_serialized() const { return reader_->row_serialized(); }
    /// The names of the item columns (row_id excluded), in table order.
    std::vector<std::string> columns() const {
        std::vector<std::string> out;
        for (const auto& c : reader_->columns()) out.push_back(c.name);
        return out;
    }

private:
    template <class... Args>
    [[noreturn]] void fail_at(std::size_t index, const Args&... args) const {
        ::burn::detail::fail("SqliteDataset::get: '", reader_->file().string(), "', split '",
                             reader_->split(), "', index ", index, " (row_id ", index + 1,
                             "): ", args...);
    }

    /// In the column layout, with an item whose default value is a JSON object: the table must
    /// have a column for every field that is not null by default, of a compatible type.
    void check_fields() const {
        if (reader_->row_serialized() || reader_->len() == 0) return;
        const nlohmann::json ref = detail::reference_json<I>();
        if (!ref.is_object()) return;
        const auto& columns = reader_->columns();
        for (const auto& [key, field] : ref.items()) {
            if (field.is_null()) continue;
            const detail::SqlColumn* column = nullptr;
            for (const auto& c : columns)
                if (c.name == key) column = &c;
            if (column == nullptr) {
                std::string names;
                for (const auto& c : columns) names += (names.empty() ? "" : ", ") + c.name;
                ::burn::detail::fail(
                    "SqliteDataset: '", reader_->file().string(), "', split '", reader_->split(),
                    "': no column '", key,
                    "' for the item's field of that name (the table's columns: ",
                    names.empty() ? std::string("none") : names,
                    (reader_->columns().size() == 1 && reader_->columns()[0].name == "item")
                        ? "; a serialized split has exactly row_id and item BLOB"
                        : "",
                    ")");
            }
            if (!detail::field_readable_from(field, column->kind))
                ::burn::detail::fail("SqliteDataset: '", reader_->file().string(), "', split '",
                                     reader_->split(), "': column '", key, "' is declared ",
                                     column->declared_type.empty() ? std::string("without type")
                                                                   : column->declared_type,
                                     " (", detail::sql_kind_name(column->kind),
                                     "), but the item's field '", key, "' is ",
                                     detail::json_kind(field));
        }
    }

    /// Names the first column whose value contradicts the item's field (for conversion errors).
    std::string column_hint(const nlohmann::json& j) const {
        if (!j.is_object()) return "";
        const nlohmann::json ref = detail::reference_json<I>();
        if (!ref.is_object()) return "";
        for (const auto& [key, field] : ref.items()) {
            const auto it = j.find(key);
            if (it == j.end() || field.is_null()) continue;
            const bool both_numbers =
                (field.is_number() || field.is_boolean()) && (it->is_number() || it->is_boolean());
            if (field.type() != it->type() && !both_numbers)
                return std::string(" (column '") + key + "' holds " + detail::json_kind(*it) +
                       ", the item's field is " + detail::json_kind(field) + ")";
        }
        return "";
    }

    std::shared_ptr<const detail::SqliteSplitReader> reader_;
};

/// Builds an SQLite dataset file (Burn's SqliteDatasetWriter): items appended one by one with
/// write(split, item), or whole datasets with write_dataset; several splits per file. Nothing
/// appears under the final name before set_completed(): the database is built in a temporary
/// file next to it (one transaction, no journal) which set_completed() flushes to disk and
/// renames over the target. A writer destroyed before set_completed() (an exception, a return)
/// removes its temporary file; a killed one leaves it behind, and the next writer to the same
/// target removes it. Thread-safe.
template <class I>
class SqliteDatasetWriter {
public:
    /// Burn's SqliteDatasetWriter::new(db_file, overwrite): an existing file is an error unless
    /// `overwrite` (it is then replaced by set_completed(), not before).
    SqliteDatasetWriter(const std::filesystem::path& db_file, bool overwrite,
                        SqliteStorage storage = SqliteStorage::Serialized)
        : SqliteDatasetWriter(db_file,
                              SqliteWriterOptions{storage, overwrite ? SqliteExisting::Overwrite
                                                                     : SqliteExisting::Fail}) {}
    SqliteDatasetWriter(const std::filesystem::path& db_file, SqliteWriterOptions options)
        : core_(std::make_unique<detail::SqliteWriterCore>(db_file, options.existing)),
          storage_(options.storage) {}

    /// Appends `item` to the table of `split` (created on first use); returns its index.
    std::size_t write(const std::string& split, const I& item) {
        std::lock_guard lock(mutex_);
        check_open("write");
        nlohmann::json j;
        try {
            j = item;
        } catch (const std::exception& e) {
            fail("write", "split '", split, "': the item does not convert to JSON: ", e.what());
        }
        const std::size_t index = counts_[split];
        const std::size_t written = append_item(split, j, index);
        ++counts_[split];
        return written;
    }

private:
    /// The table of a split without items: in the column layout, the columns of a
    /// default-constructed item when it has some (else none: readers need no columns then).
    void create_empty_split(const std::string& split) {
        std::vector<detail::SqlColumn> columns;
        if (storage_ == SqliteStorage::Serialized) {
            columns.push_back({"item", "BLOB", detail::SqlColumnKind::Blob});
        } else {
            const nlohmann::json ref = detail::reference_json<I>();
            if (ref.is_object())
                for (const auto& [key, value] : ref.items()) {
                    const auto kind = detail::column_kind_of(value);
                    columns.push_back({key, declared(kind), kind});
                }
        }
        core_->create_split(split, columns);
    }

    std::size_t append_item(const std::string& split, const nlohmann::json& j, std::size_t index) {
        if (storage_ == SqliteStorage::Serialized) {
            if (!core_->has_split(split))
                core_->create_split(split, {{"item", "BLOB", detail::SqlColumnKind::Blob}});
            detail::SqlValue v;
            v.type = detail::SqlValue::Type::Blob;
            const auto bytes = detail::msgpack_of(j);
            v.bytes.assign(bytes.begin(), bytes.end());
            return core_->append(split, std::span<const detail::SqlValue>(&v, 1));
        }
        if (!j.is_object())
            fail("write", "split '", split, "', item ", index,
                 ": the column layout needs an item whose JSON is an object (one column per "
                 "key), got ",
                 detail::json_kind(j), "; use SqliteStorage::Serialized");
        if (!core_->has_split(split)) {
            std::vector<detail::SqlColumn> columns;
            for (const auto& [key, value] : j.items()) {
                if (key == "row_id" || key == "ROW_ID")
                    fail("write", "split '", split,
                         "': the item has a field 'row_id', the name of the key column");
                const auto kind = detail::column_kind_of(value);
                columns.push_back({key, declared(kind), kind});
            }
            core_->create_split(split, columns);
        }
        const auto& columns = core_->split_columns(split);
        std::vector<detail::SqlValue> row(columns.size());
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const auto it = j.find(columns[c].name);
            if (it == j.end())
                fail("write", "split '", split, "', item ", index, ": no field '", columns[c].name,
                     "' (every item needs the fields of the first one)");
            if (!detail::column_accepts(columns[c].kind, *it))
                fail("write", "split '", split, "', item ", index, ": field '", columns[c].name,
                     "' is ", detail::json_kind(*it), ", but its column is ",
                     detail::sql_kind_name(columns[c].kind), " (from the first item)");
            try {
                row[c] = detail::value_of_json(*it, columns[c].kind);
            } catch (const std::exception& e) {
                fail("write", "split '", split, "', item ", index, ": field '", columns[c].name,
                     "': ", e.what());
            }
        }
        if (j.size() != columns.size())
            for (const auto& [key, value] : j.items()) {
                bool known = false;
                for (const auto& c : columns) known = known || c.name == key;
                if (!known)
                    fail("write", "split '", split, "', item ", index, ": field '", key,
                         "' is not a column (every item needs the fields of the first one)");
            }
        return core_->append(split, row);
    }

public:
    /// Appends every item of `dataset` to `split`, in order (an empty dataset still creates the
    /// table). Throws burn::Error when an item is missing; an exception of dataset.get passes
    /// through. Either way nothing is renamed: the writer can only be abandoned then.
    template <Dataset D>
    requires std::convertible_to<typename D::Item, I>
    void write_dataset(const std::string& split, const D& dataset) {
        {
            std::lock_guard lock(mutex_);
            check_open("write_dataset");
            if (!core_->has_split(split) && dataset.len() == 0) create_empty_split(split);
        }
        const std::size_t n = dataset.len();
        for (std::size_t i = 0; i < n; ++i) {
            auto item = dataset.get(i);
            if (!item)
                fail("write_dataset", "split '", split, "': the dataset has no item at index ", i,
                     " below its length ", n);
            write(split, static_cast<const I&>(*item));
        }
    }

    /// Commits the database and renames it to db_file() (Burn's set_completed). Afterwards the
    /// writer takes no more items.
    void set_completed() {
        std::lock_guard lock(mutex_);
        check_open("set_completed");
        core_->finish();
    }
    bool is_completed() const { return core_->finished(); }
    const std::filesystem::path& db_file() const { return core_->file(); }

private:
    static const char* declared(detail::SqlColumnKind kind) {
        using K = detail::SqlColumnKind;
        switch (kind) {
            case K::Integer: return "INTEGER";
            case K::Boolean: return "BOOLEAN";
            case K::Real: return "REAL";
            case K::Text: return "TEXT";
            case K::Blob: return "BLOB";
            case K::MsgPack: return "MSGPACK";
            default: return "";
        }
    }
    void check_open(const char* op) const {
        if (core_->finished())
            fail(op,
                 "the writer is completed: it takes no more items (open a new writer with "
                 "SqliteExisting::KeepSplits to add splits)");
    }
    template <class... Args>
    [[noreturn]] void fail(const char* op, const Args&... args) const {
        ::burn::detail::fail("SqliteDatasetWriter::", op, ": '", core_->file().string(),
                             "': ", args...);
    }

    std::unique_ptr<detail::SqliteWriterCore> core_;
    SqliteStorage storage_;
    std::map<std::string, std::size_t> counts_;
    std::mutex mutex_;
};

/// Writes every item of `dataset` as split `split` of the database `db_file`, atomically: the
/// file is built in a temporary next to it and renamed over it at the end. By default
/// (SqliteExisting::KeepSplits) the other splits of an existing file are kept (the file is
/// copied first) and a split of the same name is replaced; a failure leaves the file as it was.
template <Dataset D>
void write_sqlite_dataset(const D& dataset, const std::filesystem::path& db_file,
                          const std::string& split,
                          SqliteWriterOptions options = {SqliteStorage::Serialized,
                                                         SqliteExisting::KeepSplits}) {
    SqliteDatasetWriter<typename D::Item> writer(db_file, options);
    writer.write_dataset(split, dataset);
    writer.set_completed();
}

}  // namespace burn::data

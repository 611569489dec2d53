// SPDX-License-Identifier: MIT OR Apache-2.0
// The SQLite side of burn/data/sqlite.hpp: reading one split through a pool of read-only
// connections, and writing a database into a temporary file renamed at the end. Every SQLite
// failure becomes a burn::Error naming the operation, the file, the split and SQLite's message.
#include "burn/data/sqlite.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <random>
#include <system_error>

#include "../temp_files.hpp"

namespace burn::data::detail {
namespace {

namespace fs = std::filesystem;

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

bool same_name(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

/// An SQL identifier in double quotes ("a""b" for a"b).
std::string sql_name(std::string_view name) {
    std::string out = "\"";
    for (const char c : name) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

/// SQLite's affinity rules, with MSGPACK and BOOLEAN/BOOL recognised first; a column without
/// declared type (any value) counts as Numeric, not Blob, for the checks against item fields.
SqlColumnKind kind_of_declared(const std::string& declared) {
    const std::string t = upper(declared);
    if (t == "MSGPACK") return SqlColumnKind::MsgPack;
    if (t == "BOOLEAN" || t == "BOOL") return SqlColumnKind::Boolean;
    if (t.find("INT") != std::string::npos) return SqlColumnKind::Integer;
    if (t.find("CHAR") != std::string::npos || t.find("CLOB") != std::string::npos ||
        t.find("TEXT") != std::string::npos)
        return SqlColumnKind::Text;
    if (t.empty()) return SqlColumnKind::Numeric;
    if (t.find("BLOB") != std::string::npos) return SqlColumnKind::Blob;
    if (t.find("REAL") != std::string::npos || t.find("FLOA") != std::string::npos ||
        t.find("DOUB") != std::string::npos)
        return SqlColumnKind::Real;
    return SqlColumnKind::Numeric;
}

/// A prepared statement, finalized at scope exit.
struct Statement {
    sqlite3_stmt* stmt = nullptr;
    Statement() = default;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement() { sqlite3_finalize(stmt); }
};

/// A connection, closed at scope exit.
struct Connection {
    sqlite3* db = nullptr;
    sqlite3_stmt* select = nullptr;  // the reader's row query
    Connection() = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() {
        sqlite3_finalize(select);
        sqlite3_close_v2(db);
    }
};

/// Settings for reading files that may be hostile (SQLite's advice for untrusted databases): no
/// views or triggers, no functions with side effects in the schema, defensive mode, and cells
/// checked for consistency.
void harden(sqlite3* db) {
    sqlite3_extended_result_codes(db, 1);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
#endif
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
#endif
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_exec(db, "PRAGMA cell_size_check = ON", nullptr, nullptr, nullptr);
    sqlite3_busy_timeout(db, 10000);
}

/// A reading connection keeps its shared lock after the first read (no lock, unlock and cache
/// check around every row: 3-4 system calls per get otherwise). Writers never write to the
/// final file (they rename a new one over it), so the lock blocks none of ours.
void hold_read_lock(sqlite3* db) {
    sqlite3_exec(db, "PRAGMA locking_mode = EXCLUSIVE", nullptr, nullptr, nullptr);
}

}  // namespace

const char* sql_kind_name(SqlColumnKind kind) {
    switch (kind) {
        case SqlColumnKind::Integer: return "INTEGER";
        case SqlColumnKind::Boolean: return "BOOLEAN";
        case SqlColumnKind::Real: return "REAL";
        case SqlColumnKind::Text: return "TEXT";
        case SqlColumnKind::Blob: return "BLOB";
        case SqlColumnKind::MsgPack: return "MSGPACK";
        case SqlColumnKind::Numeric: return "NUMERIC";
    }
    return "?";
}

const char* sql_type_name(SqlValue::Type type) {
    switch (type) {
        case SqlValue::Type::Null: return "NULL";
        case SqlValue::Type::Integer: return "an INTEGER";
        case SqlValue::Type::Real: return "a REAL";
        case SqlValue::Type::Text: return "TEXT";
        case SqlValue::Type::Blob: return "a BLOB";
    }
    return "?";
}

// ---------------------------------------------------------------------------- MessagePack
std::string msgpack_problem(std::span<const std::uint8_t> bytes, std::size_t max_depth) {
    const std::size_t n = bytes.size();
    std::size_t pos = 0;
    // Values still to read at each open level; the bottom entry is the top-level value.
    std::vector<std::uint64_t> pending{1};
    auto be = [&](std::size_t at, int len) {
        std::uint64_t v = 0;
        for (int i = 0; i < len; ++i) v = (v << 8) | bytes[at + i];
        return v;
    };
    auto at = [&](std::size_t p) { return " at byte " + std::to_string(p); };
    while (!pending.empty()) {
        if (pending.back() == 0) {
            pending.pop_back();
            continue;
        }
        --pending.back();
        if (pos >= n) return "MessagePack value truncated" + at(pos);
        const std::size_t start = pos;
        const std::uint8_t b = bytes[pos++];
        std::uint64_t skip = 0;      // payload bytes after the header
        std::uint64_t children = 0;  // values inside a container
        int len_bytes = 0;           // size field of str/bin/ext/array/map
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
        } else if (b >= 0x80 && b <= 0x8f) {
            children = 2 * std::uint64_t(b & 0x0f);
        } else if (b >= 0x90 && b <= 0x9f) {
            children = b & 0x0f;
        } else if (b >= 0xa0 && b <= 0xbf) {
            skip = b & 0x1f;
        } else {
            switch (b) {
                case 0xc4:
                case 0xd9: len_bytes = 1; break;  // bin8, str8
                case 0xc5:
                case 0xda: len_bytes = 2; break;  // bin16, str16
                case 0xc6:
                case 0xdb: len_bytes = 4; break;  // bin32, str32
                case 0xc7:
                    len_bytes = 1;
                    skip = 1;
                    break;  // ext8 (+ type)
                case 0xc8:
                    len_bytes = 2;
                    skip = 1;
                    break;  // ext16
                case 0xc9:
                    len_bytes = 4;
                    skip = 1;
                    break;  // ext32
                case 0xca: skip = 4; break;
                case 0xcb: skip = 8; break;
                case 0xcc:
                case 0xd0: skip = 1; break;
                case 0xcd:
                case 0xd1: skip = 2; break;
                case 0xce:
                case 0xd2: skip = 4; break;
                case 0xcf:
                case 0xd3: skip = 8; break;
                case 0xd4: skip = 2; break;
                case 0xd5: skip = 3; break;
                case 0xd6: skip = 5; break;
                case 0xd7: skip = 9; break;
                case 0xd8: skip = 17; break;
                case 0xdc:
                case 0xde: len_bytes = 2; break;  // array16, map16
                case 0xdd:
                case 0xdf: len_bytes = 4; break;  // array32, map32
                default: return "invalid MessagePack byte 0xc1" + at(start);
            }
            if (len_bytes > 0) {
                if (n - pos < std::size_t(len_bytes))
                    return "MessagePack value truncated" + at(pos);
                const std::uint64_t size = be(pos, len_bytes);
                pos += len_bytes;
                if (b >= 0xdc) children = b >= 0xde ? 2 * size : size;
                else skip += size;
            }
        }
        if (skip > n - pos) return "MessagePack value truncated" + at(start);
        pos += skip;
        if (children > 0) {
            if (children > n - pos) return "MessagePack container truncated" + at(start);
            if (pending.size() > max_depth)
                return "MessagePack values nested deeper than " + std::to_string(max_depth) +
                       " levels" + at(start);
            pending.push_back(children);
        }
    }
    if (pos != n) return std::to_string(n - pos) + " bytes after the MessagePack value" + at(pos);
    return "";
}

// -------------------------------------------------------------------------------- reader
struct SqliteSplitReader::Impl {
    fs::path file;
    std::string split;
    std::vector<SqlColumn> columns;
    bool serialized = false;
    std::size_t len = 0;
    std::string select_sql;
    mutable std::mutex mutex;
    mutable std::vector<std::unique_ptr<Connection>> idle;

    template <class... Args>
    [[noreturn]] void fail(const Args&... args) const {
        ::burn::detail::fail("SqliteDataset: '", file.string(), "', split '", split,
                             "': ", args...);
    }
    [[noreturn]] void fail_sql(sqlite3* db, const char* what) const {
        fail(what, ": ", sqlite3_errmsg(db));
    }

    std::unique_ptr<Connection> open_connection() const {
        auto c = std::make_unique<Connection>();
        const int rc = sqlite3_open_v2(file.c_str(), &c->db,
                                       SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
        if (rc != SQLITE_OK) {
            ::burn::detail::fail("SqliteDataset: cannot open '", file.string(),
                                 "': ", c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
        }
        harden(c->db);
        hold_read_lock(c->db);
        return c;
    }

    /// Checks the table and reads its layout and length.
    void describe(Connection& c) {
        // The split must be an ordinary table.
        {
            Statement s;
            if (sqlite3_prepare_v2(c.db,
                                   "SELECT type, sql FROM sqlite_master WHERE name = ?1 "
                                   "COLLATE NOCASE",
                                   -1, &s.stmt, nullptr) != SQLITE_OK)
                ::burn::detail::fail(
                    "SqliteDataset: '", file.string(),
                    "' cannot be read as an SQLite database: ", sqlite3_errmsg(c.db));
            sqlite3_bind_text(s.stmt, 1, split.data(), int(split.size()), SQLITE_TRANSIENT);
            bool found = false;
            int rc;
            while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW) {
                const auto* type = sqlite3_column_text(s.stmt, 0);
                const auto* sql = sqlite3_column_text(s.stmt, 1);
                const std::string t = type ? reinterpret_cast<const char*>(type) : "";
                if (t == "view") fail("it is a view; a split must be a table");
                if (t != "table") continue;
                const std::string text = upper(sql ? reinterpret_cast<const char*>(sql) : "");
                if (text.rfind("CREATE VIRTUAL", 0) == 0)
                    fail("it is a virtual table; a split must be an ordinary table");
                found = true;
            }
            if (rc != SQLITE_DONE)
                ::burn::detail::fail(
                    "SqliteDataset: '", file.string(),
                    "' cannot be read as an SQLite database: ", sqlite3_errmsg(c.db));
            if (!found) {
                std::string names;
                Statement all;
                if (sqlite3_prepare_v2(c.db,
                                       "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                       "name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY name",
                                       -1, &all.stmt, nullptr) == SQLITE_OK)
                    while (sqlite3_step(all.stmt) == SQLITE_ROW) {
                        const auto* name = sqlite3_column_text(all.stmt, 0);
                        names += (names.empty() ? "" : ", ") +
                                 std::string(name ? reinterpret_cast<const char*>(name) : "");
                    }
                ::burn::detail::fail("SqliteDataset: '", file.string(), "' has no split '", split,
                                     "' (no table of that name; its tables: ",
                                     names.empty() ? std::string("none") : names, ")");
            }
        }
        // Columns: row_id must be the primary key; generated or hidden columns are refused.
        {
            Statement s;
            if (sqlite3_prepare_v2(c.db,
                                   "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1)", -1,
                                   &s.stmt, nullptr) != SQLITE_OK)
                fail_sql(c.db, "cannot list the columns");
            sqlite3_bind_text(s.stmt, 1, split.data(), int(split.size()), SQLITE_TRANSIENT);
            bool has_row_id = false, row_id_pk = false;
            std::string row_id_type;
            int pk_columns = 0;
            int rc;
            while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW) {
                const auto* name = sqlite3_column_text(s.stmt, 0);
                const auto* type = sqlite3_column_text(s.stmt, 1);
                SqlColumn col;
                col.name = name ? reinterpret_cast<const char*>(name) : "";
                col.declared_type = type ? reinterpret_cast<const char*>(type) : "";
                col.kind = kind_of_declared(col.declared_type);
                const int pk = sqlite3_column_int(s.stmt, 2);
                const int hidden = sqlite3_column_int(s.stmt, 3);
                if (pk > 0) ++pk_columns;
                if (hidden != 0)
                    fail("column '", col.name,
                         "' is generated or hidden; only stored columns are supported");
                if (same_name(col.name, "row_id")) {
                    has_row_id = true;
                    row_id_pk = pk > 0;
                    row_id_type = col.declared_type;
                } else {
                    columns.push_back(std::move(col));
                }
            }
            if (rc != SQLITE_DONE) fail_sql(c.db, "cannot list the columns");
            if (!has_row_id)
                fail(
                    "no column 'row_id' (expected `row_id INTEGER PRIMARY KEY`, row_id = index "
                    "+ 1)");
            if (!row_id_pk || pk_columns != 1)
                fail("column 'row_id' (", row_id_type.empty() ? "no type" : row_id_type,
                     ") is not the table's primary key (expected `row_id INTEGER PRIMARY KEY`, "
                     "row_id = index + 1)");
        }
        serialized = columns.size() == 1 && same_name(columns[0].name, "item") &&
                     columns[0].kind == SqlColumnKind::Blob &&
                     upper(columns[0].declared_type) == "BLOB";
        // Length: rows 1..N, no gap (a rowid table's INTEGER PRIMARY KEY is unique).
        {
            Statement s;
            const std::string sql =
                "SELECT COUNT(*), MIN(row_id), MAX(row_id) FROM " + sql_name(split);
            if (sqlite3_prepare_v2(c.db, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK)
                fail_sql(c.db, "cannot count the rows");
            if (sqlite3_step(s.stmt) != SQLITE_ROW) fail_sql(c.db, "cannot count the rows");
            const std::int64_t count = sqlite3_column_int64(s.stmt, 0);
            if (count > 0) {
                auto describe_id = [&](int col) -> std::string {
                    if (sqlite3_column_type(s.stmt, col) != SQLITE_INTEGER)
                        return "a non-integer value";
                    return std::to_string(sqlite3_column_int64(s.stmt, col));
                };
                const bool ints = sqlite3_column_type(s.stmt, 1) == SQLITE_INTEGER &&
                                  sqlite3_column_type(s.stmt, 2) == SQLITE_INTEGER;
                if (!ints || sqlite3_column_int64(s.stmt, 1) != 1 ||
                    sqlite3_column_int64(s.stmt, 2) != count)
                    fail("the row ids are not 1..", count, " (", count, " rows, row_id from ",
                         describe_id(1), " to ", describe_id(2),
                         "); expected row_id = index + 1 for every index, with no gap");
            }
            len = static_cast<std::size_t>(count);
        }
        select_sql = "SELECT ";
        for (std::size_t i = 0; i < columns.size(); ++i)
            select_sql += (i ? ", " : "") + sql_name(columns[i].name);
        if (columns.empty()) select_sql += "row_id";
        select_sql += " FROM " + sql_name(split) + " WHERE row_id = ?1";
        prepare_select(c);
    }

    void prepare_select(Connection& c) const {
        if (sqlite3_prepare_v3(c.db, select_sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &c.select,
                               nullptr) != SQLITE_OK)
            fail_sql(c.db, "cannot prepare the row query");
    }

    /// A pooled connection, or a new one checked against the layout read at open (the file
    /// may have been replaced since).
    std::unique_ptr<Connection> acquire() const {
        {
            std::lock_guard lock(mutex);
            if (!idle.empty()) {
                auto c = std::move(idle.back());
                idle.pop_back();
                return c;
            }
        }
        auto c = open_connection();
        prepare_select(*c);
        Statement s;
        // MAX(row_id) is a lookup in the b-tree (COUNT(*) would read every page again).
        const std::string sql = "SELECT MAX(row_id) FROM " + sql_name(split);
        if (sqlite3_prepare_v2(c->db, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK ||
            sqlite3_step(s.stmt) != SQLITE_ROW)
            fail_sql(c->db, "cannot read the last row_id");
        const bool same =
            len == 0 ? sqlite3_column_type(s.stmt, 0) == SQLITE_NULL
                     : sqlite3_column_type(s.stmt, 0) == SQLITE_INTEGER &&
                           sqlite3_column_int64(s.stmt, 0) == static_cast<sqlite3_int64>(len);
        if (!same)
            fail("the table changed since the dataset was opened (", len,
                 " rows then, last row_id ",
                 sqlite3_column_type(s.stmt, 0) == SQLITE_INTEGER
                     ? std::to_string(sqlite3_column_int64(s.stmt, 0))
                     : std::string("none"),
                 " now); open it again");
        return c;
    }

    void release(std::unique_ptr<Connection> c) const {
        std::lock_guard lock(mutex);
        idle.push_back(std::move(c));
    }
};

SqliteSplitReader::SqliteSplitReader(const fs::path& file, std::string split)
    : impl_(std::make_unique<Impl>()) {
    impl_->file = file;
    impl_->split = std::move(split);
    std::error_code ec;
    const auto status = fs::status(file, ec);
    if (!fs::exists(status))
        ::burn::detail::fail("SqliteDataset: cannot open '", file.string(), "': no such file");
    if (fs::is_directory(status))
        ::burn::detail::fail("SqliteDataset: cannot open '", file.string(),
                             "': it is a directory, expected an SQLite database file");
    if (impl_->split.empty()) impl_->fail("the split name is empty");
    auto c = impl_->open_connection();
    impl_->describe(*c);
    impl_->release(std::move(c));
}

SqliteSplitReader::~SqliteSplitReader() = default;

std::size_t SqliteSplitReader::len() const { return impl_->len; }
bool SqliteSplitReader::row_serialized() const { return impl_->serialized; }
const std::vector<SqlColumn>& SqliteSplitReader::columns() const { return impl_->columns; }
const fs::path& SqliteSplitReader::file() const { return impl_->file; }
const std::string& SqliteSplitReader::split() const { return impl_->split; }

bool SqliteSplitReader::read(std::size_t index, std::vector<SqlValue>& row) const {
    if (index >= impl_->len) return false;
    auto c = impl_->acquire();
    sqlite3_stmt* st = c->select;
    const std::size_t ncol = impl_->columns.size();
    row.assign(ncol, SqlValue{});
    sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(index) + 1);
    const int rc = sqlite3_step(st);
    std::string error;
    if (rc == SQLITE_ROW) {
        for (std::size_t i = 0; i < ncol; ++i) {
            const int col = static_cast<int>(i);
            SqlValue& v = row[i];
            switch (sqlite3_column_type(st, col)) {
                case SQLITE_INTEGER:
                    v.type = SqlValue::Type::Integer;
                    v.integer = sqlite3_column_int64(st, col);
                    break;
                case SQLITE_FLOAT:
                    v.type = SqlValue::Type::Real;
                    v.real = sqlite3_column_double(st, col);
                    break;
                case SQLITE_TEXT: {
                    v.type = SqlValue::Type::Text;
                    const auto* p = sqlite3_column_text(st, col);
                    const int n = sqlite3_column_bytes(st, col);
                    if (p) v.bytes.assign(reinterpret_cast<const char*>(p), std::size_t(n));
                    break;
                }
                case SQLITE_BLOB: {
                    v.type = SqlValue::Type::Blob;
                    const void* p = sqlite3_column_blob(st, col);
                    const int n = sqlite3_column_bytes(st, col);
                    if (p) v.bytes.assign(static_cast<const char*>(p), std::size_t(n));
                    break;
                }
                default: break;
            }
        }
        if (sqlite3_errcode(c->db) == SQLITE_NOMEM) error = sqlite3_errmsg(c->db);
    } else if (rc != SQLITE_DONE) {
        error = sqlite3_errmsg(c->db);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    impl_->release(std::move(c));
    if (!error.empty())
        ::burn::detail::fail("SqliteDataset::get: '", impl_->file.string(), "', split '",
                             impl_->split, "', index ", index, " (row_id ", index + 1,
                             "): cannot read the row: ", error);
    if (rc == SQLITE_DONE)
        ::burn::detail::fail("SqliteDataset::get: '", impl_->file.string(), "', split '",
                             impl_->split, "', index ", index, ": no row with row_id ", index + 1,
                             " (expected row_id = index + 1 for every index below ", impl_->len,
                             ", with no gap)");
    return true;
}

// -------------------------------------------------------------------------------- writer
struct SqliteWriterCore::Impl {
    struct Split {
        std::vector<SqlColumn> columns;
        sqlite3_stmt* insert = nullptr;
        std::int64_t rows = 0;
    };
    fs::path target;
    fs::path tmp;
    sqlite3* db = nullptr;
    std::map<std::string, Split> splits;
    bool finished = false;
    mutable std::mutex mutex;

    template <class... Args>
    [[noreturn]] void fail(const char* op, const Args&... args) const {
        ::burn::detail::fail("SqliteDatasetWriter::", op, ": '", target.string(), "': ", args...);
    }
    void exec(const char* op, const std::string& sql) {
        char* message = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
            const std::string text = message ? message : sqlite3_errmsg(db);
            sqlite3_free(message);
            fail(op, text, " (in: ", sql, ")");
        }
    }
    void close() {
        for (auto& [name, s] : splits) {
            sqlite3_finalize(s.insert);
            s.insert = nullptr;
        }
        if (db) sqlite3_close_v2(db);
        db = nullptr;
    }
    void remove_temporary() {
        std::error_code ignored;
        if (!tmp.empty()) {
            fs::remove(tmp, ignored);
            fs::path journal = tmp;
            journal += "-journal";
            fs::remove(journal, ignored);
        }
    }
};

SqliteWriterCore::SqliteWriterCore(const fs::path& file, SqliteExisting existing)
    : impl_(std::make_unique<Impl>()) {
    Impl& w = *impl_;
    w.target = file;
    if (file.filename().empty()) w.fail("new", "names a directory, expected a database file");
    std::error_code ec;
    const bool exists = fs::exists(file, ec);
    if (exists && fs::is_directory(file, ec))
        w.fail("new", "is a directory, expected a database file");
    if (exists && existing == SqliteExisting::Fail)
        w.fail("new",
               "the file exists (pass overwrite = true to replace it, or "
               "SqliteExisting::KeepSplits to add splits to it)");
    if (file.has_parent_path()) {
        fs::create_directories(file.parent_path(), ec);
        if (ec)
            w.fail("new", "cannot create the directory '", file.parent_path().string(),
                   "': ", ec.message());
    }
    ::burn::detail::remove_stale_temporaries(file, {"-journal", "-wal", "-shm"});
    w.tmp = file;
    w.tmp += ::burn::detail::temp_file_suffix();
    try {
        if (exists && existing == SqliteExisting::KeepSplits) {
            fs::copy_file(file, w.tmp, ec);
            if (ec)
                w.fail("new", "cannot copy it to the temporary file '", w.tmp.string(),
                       "': ", ec.message());
        }
        const int rc = sqlite3_open_v2(
            w.tmp.c_str(), &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
            nullptr);
        if (rc != SQLITE_OK)
            w.fail("new", "cannot create the temporary file '", w.tmp.string(),
                   "': ", w.db ? sqlite3_errmsg(w.db) : sqlite3_errstr(rc));
        harden(w.db);
        if (exists && existing == SqliteExisting::KeepSplits) {
            Statement s;
            if (sqlite3_prepare_v2(w.db, "SELECT COUNT(*) FROM sqlite_master", -1, &s.stmt,
                                   nullptr) != SQLITE_OK ||
                sqlite3_step(s.stmt) != SQLITE_ROW)
                w.fail("new", "cannot keep its splits: it is not a readable SQLite database (",
                       sqlite3_errmsg(w.db), ")");
        }
        // A temporary file: no journal, no syncs while building (finish() syncs once).
        w.exec("new", "PRAGMA journal_mode = OFF");
        w.exec("new", "PRAGMA synchronous = OFF");
        w.exec("new", "PRAGMA cache_size = -32768");
        w.exec("new", "BEGIN");
    } catch (...) {
        w.close();
        w.remove_temporary();
        throw;
    }
}

SqliteWriterCore::~SqliteWriterCore() {
    if (!impl_->finished) {
        impl_->close();
        impl_->remove_temporary();
    }
}

bool SqliteWriterCore::has_split(const std::string& split) const {
    std::lock_guard lock(impl_->mutex);
    return impl_->splits.count(split) != 0;
}

const std::vector<SqlColumn>& SqliteWriterCore::split_columns(const std::string& split) const {
    std::lock_guard lock(impl_->mutex);
    const auto it = impl_->splits.find(split);
    if (it == impl_->splits.end()) impl_->fail("write", "no split '", split, "' was created");
    return it->second.columns;
}

void SqliteWriterCore::create_split(const std::string& split,
                                    const std::vector<SqlColumn>& columns) {
    std::lock_guard lock(impl_->mutex);
    Impl& w = *impl_;
    if (w.finished) w.fail("write", "the writer is completed");
    if (split.empty()) w.fail("write", "the split name is empty");
    if (split.find('\0') != std::string::npos) w.fail("write", "the split name holds a NUL byte");
    if (same_name(split.substr(0, std::min<std::size_t>(split.size(), 7)), "sqlite_"))
        w.fail("write", "split '", split, "': names starting with 'sqlite_' are SQLite's own");
    if (w.splits.count(split)) w.fail("write", "split '", split, "' was created already");
    std::string sql = "CREATE TABLE " + sql_name(split) + " (row_id INTEGER PRIMARY KEY NOT NULL";
    for (const auto& c : columns) {
        if (c.name.find('\0') != std::string::npos)
            w.fail("write", "split '", split, "': a field name holds a NUL byte");
        sql += ", " + sql_name(c.name);
        if (!c.declared_type.empty()) sql += " " + c.declared_type;
    }
    sql += ")";
    w.exec("write", "DROP TABLE IF EXISTS " + sql_name(split));
    w.exec("write", sql);
    Impl::Split s;
    s.columns = columns;
    std::string insert = "INSERT INTO " + sql_name(split) + " (row_id";
    for (const auto& c : columns) insert += ", " + sql_name(c.name);
    insert += ") VALUES (?1";
    for (std::size_t i = 0; i < columns.size(); ++i) insert += ", ?" + std::to_string(i + 2);
    insert += ")";
    if (sqlite3_prepare_v3(w.db, insert.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s.insert,
                           nullptr) != SQLITE_OK)
        w.fail("write", "split '", split, "': ", sqlite3_errmsg(w.db));
    w.splits.emplace(split, std::move(s));
}

std::size_t SqliteWriterCore::append(const std::string& split, std::span<const SqlValue> row) {
    std::lock_guard lock(impl_->mutex);
    Impl& w = *impl_;
    if (w.finished) w.fail("write", "the writer is completed");
    const auto it = w.splits.find(split);
    if (it == w.splits.end()) w.fail("write", "no split '", split, "' was created");
    Impl::Split& s = it->second;
    if (row.size() != s.columns.size())
        w.fail("write", "split '", split, "': ", row.size(), " values for ", s.columns.size(),
               " columns");
    sqlite3_stmt* st = s.insert;
    sqlite3_bind_int64(st, 1, s.rows + 1);
    for (std::size_t i = 0; i < row.size(); ++i) {
        const int p = static_cast<int>(i) + 2;
        const SqlValue& v = row[i];
        switch (v.type) {
            case SqlValue::Type::Null: sqlite3_bind_null(st, p); break;
            case SqlValue::Type::Integer: sqlite3_bind_int64(st, p, v.integer); break;
            case SqlValue::Type::Real: sqlite3_bind_double(st, p, v.real); break;
            case SqlValue::Type::Text:
                sqlite3_bind_text64(st, p, v.bytes.data(), v.bytes.size(), SQLITE_STATIC,
                                    SQLITE_UTF8);
                break;
            case SqlValue::Type::Blob:
                sqlite3_bind_blob64(st, p, v.bytes.data(), v.bytes.size(), SQLITE_STATIC);
                break;
        }
    }
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        w.fail("write", "split '", split, "', item ", s.rows, ": ", sqlite3_errmsg(w.db));
    return static_cast<std::size_t>(s.rows++);
}

void SqliteWriterCore::finish() {
    std::lock_guard lock(impl_->mutex);
    Impl& w = *impl_;
    if (w.finished) w.fail("set_completed", "the writer is completed already");
    w.exec("set_completed", "COMMIT");
    w.close();
    ::burn::detail::sync_path(w.tmp, false);
    if (::rename(w.tmp.c_str(), w.target.c_str()) != 0)
        w.fail("set_completed", "cannot rename the temporary file '", w.tmp.string(),
               "' over it: ", std::strerror(errno));
    w.finished = true;
    ::burn::detail::sync_path(w.target.parent_path(), true);
}

bool SqliteWriterCore::finished() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->finished;
}

const fs::path& SqliteWriterCore::file() const { return impl_->target; }

}  // namespace burn::data::detail

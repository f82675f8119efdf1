// Internal to corpus/: a thin RAII wrapper over sqlite3_stmt.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "umwelt/corpus.h"
#include "umwelt/status.h"

namespace umwelt::corpus_internal {

// Runs `sql` (one or more statements, no results). The error names `context`.
Status Exec(sqlite3* db, const char* sql, const std::string& context);

// Prepared statements kept for the life of a connection, keyed by SQL text.
// Not thread-safe (neither is the connection). A statement is borrowed by one
// Stmt at a time; code never nests two Stmts of the same SQL.
class StmtCache {
 public:
  explicit StmtCache(sqlite3* db) : db_(db) {}
  ~StmtCache() {
    for (auto& [sql, st] : cache_) sqlite3_finalize(st);
  }
  StmtCache(const StmtCache&) = delete;
  StmtCache& operator=(const StmtCache&) = delete;
  sqlite3* db() const { return db_; }
  // The prepared statement for `sql`, or nullptr when it does not prepare.
  sqlite3_stmt* Get(const char* sql) {
    auto it = cache_.find(sql);
    if (it != cache_.end()) return it->second;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr) != SQLITE_OK) return nullptr;
    cache_.emplace(sql, st);
    return st;
  }

 private:
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

class Stmt {
 public:
  // Prepares `sql` for this Stmt alone.
  Stmt(sqlite3* db, const char* sql);
  // Borrows the cached statement for `sql`; it is reset, not finalized, after.
  Stmt(StmtCache& cache, const char* sql) : db_(cache.db()), stmt_(cache.Get(sql)), owned_(false) {}
  ~Stmt() {
    if (owned_) {
      sqlite3_finalize(stmt_);
    } else if (stmt_) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
    }
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  Status PrepareStatus(const std::string& context) const;

  Stmt& Bind(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& Bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Stmt& Bind(int i, int v) { return Bind(i, static_cast<int64_t>(v)); }

  // SQLITE_ROW, SQLITE_DONE or an error code, remembered for Finished().
  int Step() { return last_ = sqlite3_step(stmt_); }
  // How the last Step() ended, as a Status: ok for SQLITE_DONE (the scan is
  // complete) and SQLITE_ROW (a lookup that read the row it wanted), else
  // the error (SQLITE_BUSY, SQLITE_IOERR, SQLITE_CORRUPT …) naming
  // `context`. Every reader checks it, so a scan cut short is an error,
  // never a short answer.
  Status Finished(const std::string& context) const;
  // Steps to completion; a non-DONE result is an error naming `context`.
  Status Run(const std::string& context);
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::string Text(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, sqlite3_column_bytes(stmt_, col)) : std::string();
  }
  std::string_view View(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string_view(p, sqlite3_column_bytes(stmt_, col)) : std::string_view();
  }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  int Columns() const { return sqlite3_column_count(stmt_); }
  sqlite3_stmt* get() { return stmt_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  bool owned_ = true;
  int last_ = SQLITE_DONE;
};

// Maps an SQLite error to a Status naming `context`.
Status SqliteError(sqlite3* db, int rc, const std::string& context);

// Schema: creates a fresh corpus or migrates an older one to `target`
// (kSchemaVersion, or an earlier version to compare a file with).
Status CreateOrMigrate(sqlite3* db, const std::string& path, int target = kSchemaVersion);

}  // namespace umwelt::corpus_internal

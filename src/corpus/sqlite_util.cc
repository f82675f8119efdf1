#include "sqlite_util.h"

namespace umwelt::corpus_internal {

Status SqliteError(sqlite3* db, int rc, const std::string& context) {
  std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB) return Status::Corrupt(context + ": not an SQLite database");
  if (primary == SQLITE_CORRUPT) return Status::Corrupt(context + ": database is corrupt: " + msg);
  return Status::Io(context + ": " + msg);
}

Status Exec(sqlite3* db, const char* sql, const std::string& context) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string msg = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB) return Status::Corrupt(context + ": not an SQLite database");
  return Status::Io(context + ": " + msg);
}

Stmt::Stmt(sqlite3* db, const char* sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
}

Status Stmt::PrepareStatus(const std::string& context) const {
  if (stmt_) return Status::Ok();
  return SqliteError(db_, sqlite3_errcode(db_), context);
}

Status Stmt::Finished(const std::string& context) const {
  if (last_ == SQLITE_DONE || last_ == SQLITE_ROW) return Status::Ok();
  return SqliteError(db_, last_, context);
}

Status Stmt::Run(const std::string& context) {
  int rc = Step();
  Reset();
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return Status::Ok();
  return SqliteError(db_, rc, context);
}

}  // namespace umwelt::corpus_internal

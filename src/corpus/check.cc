// Checking a corpus file that came from elsewhere (refresh): its schema is
// this umwelt's, and reading it takes bounded time.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <utility>
#include <vector>

#include "sqlite_util.h"
#include "umwelt/corpus.h"
#include "umwelt/text.h"

namespace umwelt {

namespace {

using corpus_internal::Stmt;
using Clock = std::chrono::steady_clock;

// type, name -> sql, as a fresh corpus of this version has them.
using Schema = std::map<std::pair<std::string, std::string>, std::string>;

Result<Schema> SchemaOf(sqlite3* db, const std::string& where) {
  Schema out;
  Stmt q(db, "SELECT type, name, coalesce(sql, '') FROM sqlite_schema");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(where));
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) out[{q.Text(0), q.Text(1)}] = CollapseWhitespace(q.Text(2));
  if (rc != SQLITE_DONE) return Status::Corrupt(where + ": cannot read its schema: " + sqlite3_errmsg(db));
  return out;
}

// The schema a fresh corpus of `version` has (empty if it cannot be made).
Schema SchemaAt(int version) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  Schema s;
  if (corpus_internal::CreateOrMigrate(db, "expected schema", version).ok()) {
    if (auto r = SchemaOf(db, "expected schema"); r.ok()) s = std::move(*r);
  }
  sqlite3_close_v2(db);
  return s;
}

const Schema& Expected() {
  static const Schema schema = SchemaAt(kSchemaVersion);
  return schema;
}

// Each trigger's text in every schema version: a file from an umwelt of an
// earlier version carries that version's (the first write migrates them).
const std::map<std::string, std::vector<std::string>>& KnownTriggers() {
  static const auto triggers = [] {
    std::map<std::string, std::vector<std::string>> out;
    for (int v = 1; v <= kSchemaVersion; ++v) {
      for (const auto& [key, sql] : SchemaAt(v)) {
        if (key.first == "trigger") out[key.second].push_back(sql);
      }
    }
    return out;
  }();
  return triggers;
}

bool KnownTrigger(const std::string& name, const std::string& sql) {
  auto it = KnownTriggers().find(name);
  return it != KnownTriggers().end() && std::find(it->second.begin(), it->second.end(), sql) != it->second.end();
}

bool StartsWith(const std::string& s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// What is wrong with one entry of the downloaded file's schema, or "".
std::string Unexpected(const std::pair<std::string, std::string>& key, const std::string& sql) {
  const auto& [type, name] = key;
  if (type == "view") return "a view (" + name + ")";
  // SQLite's own: the indexes behind UNIQUE and PRIMARY KEY, ANALYZE's tables.
  if ((type == "index" && StartsWith(name, "sqlite_autoindex_")) ||
      (type == "table" && (name == "sqlite_stat1" || name == "sqlite_stat4" || name == "sqlite_sequence"))) {
    return "";
  }
  auto it = Expected().find(key);
  if (it == Expected().end()) return "a " + type + " this umwelt does not make (" + name + ")";
  // A trigger runs on every later write: it must be exactly ours (of this
  // version or an earlier one). A table must be of the same kind (a virtual
  // table's module runs on every read); its columns may differ by what
  // migrations added.
  if (type == "trigger" && !KnownTrigger(name, sql)) return "a trigger that is not this umwelt's (" + name + ")";
  if (StartsWith(sql, "CREATE VIRTUAL TABLE") != StartsWith(it->second, "CREATE VIRTUAL TABLE")) {
    return "a table of another kind (" + name + ")";
  }
  if (StartsWith(it->second, "CREATE VIRTUAL TABLE") && sql != it->second) {
    return "a virtual table that is not this umwelt's (" + name + ")";
  }
  return "";
}

// A read-only connection that trusts nothing in the file's schema and
// interrupts any statement running past `deadline`.
struct Guarded {
  sqlite3* db = nullptr;
  Clock::time_point deadline;
  ~Guarded() { sqlite3_close_v2(db); }
};

int Interrupt(void* arg) { return Clock::now() > static_cast<Guarded*>(arg)->deadline ? 1 : 0; }

Status OpenGuarded(const std::string& path, std::chrono::seconds budget, Guarded* g) {
  int rc = sqlite3_open_v2(path.c_str(), &g->db, SQLITE_OPEN_READONLY, nullptr);
  if (rc != SQLITE_OK) return Status::Corrupt(path + ": cannot be opened as SQLite: " + sqlite3_errstr(rc));
  sqlite3_db_config(g->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(g->db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  g->deadline = Clock::now() + budget;
  sqlite3_progress_handler(g->db, 10000, &Interrupt, g);
  return Status::Ok();
}

Status Timed(Guarded& g, const std::string& path, const std::string& what, int rc) {
  if (rc == SQLITE_INTERRUPT) return Status::Corrupt(path + ": " + what + " took longer than allowed");
  return Status::Corrupt(path + ": " + what + " failed: " + sqlite3_errmsg(g.db));
}

}  // namespace

Status CheckForeignCorpus(const std::string& path, std::chrono::seconds budget) {
  if (Expected().empty()) return Status::Io("the corpus schema could not be built to compare with");
  Guarded g;
  UMWELT_RETURN_IF_ERROR(OpenGuarded(path, budget, &g));
  UMWELT_ASSIGN_OR_RETURN(Schema got, SchemaOf(g.db, path));
  for (const auto& [key, sql] : got) {
    if (std::string why = Unexpected(key, sql); !why.empty()) {
      return Status::Corrupt(path + ": not an umwelt corpus of this version: it holds " + why);
    }
  }
  for (const char* table : {"chunks", "threads", "meta"}) {
    if (!got.count({"table", table})) return Status::Corrupt(path + ": not an umwelt corpus: no `" + std::string(table) + "` table");
  }
  Stmt check(g.db, "PRAGMA quick_check");
  int rc = check.Step();
  if (rc != SQLITE_ROW) return Timed(g, path, "the integrity check", rc);
  if (check.Text(0) != "ok") return Status::Corrupt(path + ": the database is damaged: " + check.Text(0));
  return Status::Ok();
}

Status AnswersASearch(const std::string& path, std::chrono::seconds budget) {
  Guarded g;
  UMWELT_RETURN_IF_ERROR(OpenGuarded(path, budget, &g));
  // A word of the first chunk's title, or any word: the index must answer.
  Stmt first(g.db, "SELECT title FROM chunks ORDER BY rowid LIMIT 1");
  int rc = first.Step();
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Timed(g, path, "reading a chunk", rc);
  std::string word = "the";
  if (rc == SQLITE_ROW) {
    for (const auto& w : SplitIdentifier(first.Text(0))) {
      if (w.size() >= 3) {
        word = w;
        break;
      }
    }
  }
  Stmt search(g.db, "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT 10");
  search.Bind(1, std::string_view("\"" + word + "\""));
  while ((rc = search.Step()) == SQLITE_ROW) {
  }
  if (rc != SQLITE_DONE) return Timed(g, path, "a search", rc);
  return Status::Ok();
}

}  // namespace umwelt

// The corpus schema and its migrations. docs/CORPUS.md describes each table.
// A migration is appended, never edited: migration i takes schema_version i-1
// to i.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include "sqlite_util.h"
#include "umwelt/corpus.h"

namespace umwelt::corpus_internal {
namespace {

// Version 1: the reference system's core (meta, chunks, chunks_fts) plus
// umwelt's threads, links and sync_state.
const char* kMigration1 = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL, parent TEXT,
  title TEXT, author TEXT, date TEXT, url TEXT, text TEXT,
  part INTEGER DEFAULT 0, n_parts INTEGER DEFAULT 1, syms TEXT,
  embed_space TEXT, embedding BLOB);
CREATE UNIQUE INDEX IF NOT EXISTS chunks_ref ON chunks(ref);
CREATE INDEX IF NOT EXISTS chunks_parent ON chunks(parent, date);
CREATE INDEX IF NOT EXISTS chunks_url ON chunks(url);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  text, title, syms, content='chunks', content_rowid='id');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, text, title, syms) VALUES (new.id, new.text, new.title, new.syms);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text, title, syms)
    VALUES ('delete', old.id, old.text, old.title, old.syms);
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF text, title, syms ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text, title, syms)
    VALUES ('delete', old.id, old.text, old.title, old.syms);
  INSERT INTO chunks_fts(rowid, text, title, syms) VALUES (new.id, new.text, new.title, new.syms);
END;
CREATE TABLE IF NOT EXISTS threads(
  ref TEXT PRIMARY KEY, source TEXT, kind TEXT, state TEXT, state_reason TEXT,
  title TEXT, author TEXT, author_association TEXT, url TEXT,
  labels TEXT, assignees TEXT,
  created TEXT, updated TEXT, closed TEXT, merged TEXT,
  parent TEXT, children TEXT, description TEXT);
CREATE INDEX IF NOT EXISTS threads_url ON threads(url);
CREATE TABLE IF NOT EXISTS links(
  from_ref TEXT NOT NULL, to_ref TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'mention',
  PRIMARY KEY(from_ref, to_ref, kind)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS links_to ON links(to_ref);
CREATE TABLE IF NOT EXISTS record_versions(ref TEXT PRIMARY KEY, updated TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_state(
  source TEXT PRIMARY KEY, cursor TEXT, last_success TEXT, last_error TEXT, error_since TEXT);
)sql";

// Digests read a period's chunks and the threads that changed in it.
const char* kMigration2 = R"sql(
CREATE INDEX IF NOT EXISTS chunks_date ON chunks(date);
CREATE INDEX IF NOT EXISTS threads_source ON threads(source, kind);
)sql";

// Structured facts of a thread, as the source gives them (threads.facts).
// W&B runs stored before carry none: the next W&B sync reads every run
// again (its cursor starts over; unchanged records stay as they are).
const char* kMigration3 = R"sql(
ALTER TABLE threads ADD COLUMN facts TEXT;
UPDATE sync_state SET cursor = NULL WHERE source LIKE 'wandb:%';
)sql";

// Structured facts of a chunk (chunks.facts): a commit's or pull request's
// size, which the digest read from the text before. The git source's next
// sync reads the whole history again to fill them in (unchanged records stay
// as they are); GitHub pull requests gain theirs when next updated.
const char* kMigration4 = R"sql(
ALTER TABLE chunks ADD COLUMN facts TEXT;
UPDATE sync_state SET cursor = NULL WHERE source LIKE 'git:%';
)sql";

// Which chunks changed, in order (chunk_log): every insert, delete, and
// change of a field the keyword index or a vector file reads appends the
// chunk's id, so a side index built at log position S is brought up to date
// by indexing the chunks logged after S (docs/CORPUS.md, "Change log"). A writer keeps the
// newest kChangeLogKeep entries. The log starts empty: an index built before
// it existed is rebuilt once.
const char* kMigration5 = R"sql(
CREATE TABLE IF NOT EXISTS chunk_log(seq INTEGER PRIMARY KEY AUTOINCREMENT, id INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS chunk_log_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunk_log(id) VALUES (new.id);
END;
CREATE TRIGGER IF NOT EXISTS chunk_log_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunk_log(id) VALUES (old.id);
END;
CREATE TRIGGER IF NOT EXISTS chunk_log_au
  AFTER UPDATE OF source, kind, ref, parent, title, author, date, url, text, syms, embed_space, embedding
  ON chunks BEGIN
  INSERT INTO chunk_log(id) VALUES (new.id);
END;
)sql";

// FTS5 indexed a batch's rows one by one through the triggers: 2-3x the
// time of indexing them in one statement at the batch's end (a large import
// spent most of its time there). A write batch now sets meta
// `fts_pending_after` to the largest chunk id it started with; the triggers
// leave chunks past it to the batch, which indexes them in one statement and
// removes the key before it commits. The key lives only inside a batch's
// transaction: another connection, and any other writer, never sees it, and
// the triggers act on every row as before.
const char* kMigration6 = R"sql(
DROP TRIGGER IF EXISTS chunks_ai;
DROP TRIGGER IF EXISTS chunks_ad;
DROP TRIGGER IF EXISTS chunks_au;
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks
  WHEN new.id <= coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key='fts_pending_after'), new.id) BEGIN
  INSERT INTO chunks_fts(rowid, text, title, syms) VALUES (new.id, new.text, new.title, new.syms);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks
  WHEN old.id <= coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key='fts_pending_after'), old.id) BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text, title, syms)
    VALUES ('delete', old.id, old.text, old.title, old.syms);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF text, title, syms ON chunks
  WHEN old.id <= coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key='fts_pending_after'), old.id) BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text, title, syms)
    VALUES ('delete', old.id, old.text, old.title, old.syms);
  INSERT INTO chunks_fts(rowid, text, title, syms) VALUES (new.id, new.text, new.title, new.syms);
END;
)sql";

const char* kMigrations[] = {kMigration1, kMigration2, kMigration3, kMigration4, kMigration5, kMigration6};
constexpr int kNumMigrations = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kNumMigrations == kSchemaVersion, "one migration per schema version");

}  // namespace

Status CreateOrMigrate(sqlite3* db, const std::string& path, int target) {
  UMWELT_RETURN_IF_ERROR(Exec(db, "BEGIN IMMEDIATE", path));
  int version = 0;
  {
    Stmt has_meta(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'");
    UMWELT_RETURN_IF_ERROR(has_meta.PrepareStatus(path));
    if (has_meta.Step() == SQLITE_ROW) {
      Stmt q(db, "SELECT value FROM meta WHERE key='schema_version'");
      UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path));
      if (q.Step() == SQLITE_ROW) version = std::atoi(q.Text(0).c_str());
    }
  }
  if (version > kSchemaVersion) {
    (void)Exec(db, "ROLLBACK", path);
    return Status::Unsupported(path + ": corpus has schema_version " + std::to_string(version) +
                               "; this umwelt understands up to " +
                               std::to_string(kSchemaVersion) + " (upgrade umwelt)");
  }
  for (int v = version; v < target; ++v) {
    Status s = Exec(db, kMigrations[v], path + ": migration to schema_version " + std::to_string(v + 1));
    if (!s.ok()) {
      (void)Exec(db, "ROLLBACK", path);
      return s;
    }
  }
  {
    // Tells this corpus apart from any other at the same path, for side
    // indexes; older files get one the first time they are opened to write.
    std::random_device rd;
    char id[40];
    std::snprintf(id, sizeof id, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
    Stmt set_id(db, "INSERT OR IGNORE INTO meta(key, value) VALUES ('corpus_id', ?1)");
    set_id.Bind(1, std::string_view(id));
    Status s = set_id.Run(path);
    if (!s.ok()) {
      (void)Exec(db, "ROLLBACK", path);
      return s;
    }
  }
  Stmt set(db, "INSERT INTO meta(key, value) VALUES ('schema_version', ?1) "
               "ON CONFLICT(key) DO UPDATE SET value=excluded.value");
  set.Bind(1, std::to_string(std::max(version, target)));
  Status s = set.Run(path);
  if (!s.ok()) {
    (void)Exec(db, "ROLLBACK", path);
    return s;
  }
  return Exec(db, "COMMIT", path);
}

}  // namespace umwelt::corpus_internal

#include "umwelt/corpus.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "sqlite_util.h"
#include "umwelt/redact.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt {

using corpus_internal::Exec;
using corpus_internal::SqliteError;
using corpus_internal::Stmt;

namespace {

constexpr const char* kChunkColumns =
    "id, source, kind, ref, parent, title, author, date, url, text, part, n_parts, syms";

Chunk ReadChunk(const Stmt& q) {
  Chunk c;
  c.id = q.Int(0);
  c.source = q.Text(1);
  c.kind = q.Text(2);
  c.ref = q.Text(3);
  c.parent = q.Text(4);
  c.title = q.Text(5);
  c.author = q.Text(6);
  c.date = q.Text(7);
  c.url = q.Text(8);
  c.text = q.Text(9);
  c.part = static_cast<int>(q.Int(10));
  c.n_parts = static_cast<int>(q.Int(11));
  c.syms = q.Text(12);
  if (q.Columns() > 13) c.facts = q.Text(13);
  return c;
}

constexpr const char* kThreadColumns =
    "ref, source, kind, state, state_reason, title, author, author_association, url,"
    " labels, assignees, created, updated, closed, merged, parent, children, description";

std::vector<std::string> JsonList(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  auto j = nlohmann::json::parse(s, nullptr, false);
  if (!j.is_array()) return out;
  for (auto& e : j) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

Thread ReadThread(const Stmt& q) {
  Thread t;
  t.ref = q.Text(0);
  t.source = q.Text(1);
  t.kind = q.Text(2);
  t.state = q.Text(3);
  t.state_reason = q.Text(4);
  t.title = q.Text(5);
  t.author = q.Text(6);
  t.author_association = q.Text(7);
  t.url = q.Text(8);
  t.labels = JsonList(q.Text(9));
  t.assignees = JsonList(q.Text(10));
  t.created = q.Text(11);
  t.updated = q.Text(12);
  t.closed = q.Text(13);
  t.merged = q.Text(14);
  t.parent = q.Text(15);
  t.children = JsonList(q.Text(16));
  t.description = q.Text(17);
  t.facts = q.Text(18);
  return t;
}

bool TableExists(sqlite3* db, const char* name) {
  Stmt q(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1");
  if (!q.ok()) return false;
  q.Bind(1, std::string_view(name));
  return q.Step() == SQLITE_ROW;
}

// FTS5 merges a level's segments once it holds `automerge` of them (4 by
// default), and all of them at once at `crisismerge` (16). A writer's
// batches each add a segment of thousands of chunks, so at millions of
// chunks every posting was rewritten once per level of four: merging
// sixteen at a time halves the levels, and a million-chunk import took
// 60 s instead of 72-77 (README, "Benchmarks"). FTS5 queries read a few
// more segments; the answers are the same. Set when a writer opens the
// file (another program's too), unless they are already these.
Status TuneFullTextMerges(sqlite3* db, const std::string& path) {
  if (!TableExists(db, "chunks_fts_config")) return Status::Ok();
  Stmt q(db, "SELECT count(*) FROM chunks_fts_config WHERE (k='automerge' AND v=16) OR (k='crisismerge' AND v=64)");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path));
  if (q.Step() == SQLITE_ROW && q.Int(0) == 2) return Status::Ok();
  return Exec(db,
              "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 16);"
              "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('crisismerge', 64);",
              path + ": setting the full-text index's merges");
}

}  // namespace

Corpus::~Corpus() {
  cache_.reset();
  sqlite3_close_v2(db_);
}

namespace {

// `path` as an SQLite URI that opens it immutable (percent-encoding what a
// URI path cannot hold).
std::string ImmutableUri(const std::string& path) {
  std::string out = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "?immutable=1";
}

}  // namespace

Result<std::unique_ptr<Corpus>> Corpus::Open(const std::string& path, Mode mode) {
  if (path.empty()) return Status::Invalid("no corpus path given");
  std::unique_ptr<Corpus> c(new Corpus());
  c->path_ = path;
  c->read_only_ = mode == Mode::kReadOnly;
  UMWELT_RETURN_IF_ERROR(c->Init(mode));
  return c;
}

Status Corpus::Init(Mode mode) {
  struct stat st;
  if (mode == Mode::kReadOnly && ::stat(path_.c_str(), &st) != 0) {
    return Status::NotFound(path_ + ": no such corpus (run `umwelt init` or an import first)");
  }
  int flags = mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY
                                      : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path_.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, path_);
  sqlite3_busy_timeout(db_, 10000);
  // Touching the schema is the first read; a non-database fails here.
  Status first = Exec(db_, "SELECT count(*) FROM sqlite_master", path_);
  if (!first.ok() && mode == Mode::kReadOnly && (sqlite3_errcode(db_) & 0xff) == SQLITE_READONLY) {
    // A WAL corpus in a folder this user cannot write: its -shm file cannot
    // be made, so SQLite cannot coordinate with writers. No one can write
    // there either, so it is read as an immutable file.
    sqlite3_close_v2(db_);
    db_ = nullptr;
    rc = sqlite3_open_v2(ImmutableUri(path_).c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                         nullptr);
    if (rc != SQLITE_OK) return SqliteError(db_, rc, path_);
    first = Exec(db_, "SELECT count(*) FROM sqlite_master", path_);
  }
  UMWELT_RETURN_IF_ERROR(first);
  cache_ = std::make_unique<corpus_internal::StmtCache>(db_);
  if (mode == Mode::kReadWrite) {
    UMWELT_RETURN_IF_ERROR(Exec(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", path_));
    UMWELT_RETURN_IF_ERROR(corpus_internal::CreateOrMigrate(db_, path_));
    UMWELT_RETURN_IF_ERROR(TuneFullTextMerges(db_, path_));
    // Schema 6's triggers leave a batch's new chunks to its Commit.
    Stmt fts(db_, "SELECT 1 FROM sqlite_schema WHERE type='trigger' AND name='chunks_ai'"
                  " AND sql LIKE '%fts_pending_after%'");
    defer_fts_ = fts.ok() && fts.Step() == SQLITE_ROW;
  } else {
    if (!TableExists(db_, "chunks")) {
      return Status::Corrupt(path_ + ": no `chunks` table: not an umwelt or reference corpus");
    }
    Stmt q(db_, "SELECT value FROM meta WHERE key='schema_version'");
    if (q.ok() && q.Step() == SQLITE_ROW) {
      int v = std::atoi(q.Text(0).c_str());
      if (v > kSchemaVersion && TableExists(db_, "threads")) {
        return Status::Unsupported(path_ + ": corpus has schema_version " + std::to_string(v) +
                                   "; this umwelt understands up to " +
                                   std::to_string(kSchemaVersion) + " (upgrade umwelt)");
      }
    }
  }
  // A writer's pages: 256 MB, as an import of a million chunks into the
  // four indexes on chunks ran 25 % faster than with a reader's 64 MB.
  UMWELT_RETURN_IF_ERROR(Exec(db_,
                              mode == Mode::kReadWrite ? "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-262144;"
                                                       : "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;",
                              path_));
  native_ = TableExists(db_, "threads") && TableExists(db_, "links") && TableExists(db_, "sync_state");
  // A corpus of schema 2, opened read-only (not migrated), has no facts.
  bool facts = false;
  if (native_) {
    Stmt cols(db_, "SELECT 1 FROM pragma_table_info('threads') WHERE name='facts'");
    facts = cols.ok() && cols.Step() == SQLITE_ROW;
  }
  thread_select_ = std::string("SELECT ") + kThreadColumns + (facts ? ", facts" : ", NULL");
  // Nor has a corpus of schema 3, or a reference corpus, facts of chunks.
  Stmt chunk_cols(db_, "SELECT 1 FROM pragma_table_info('chunks') WHERE name='facts'");
  bool chunk_facts = chunk_cols.ok() && chunk_cols.Step() == SQLITE_ROW;
  chunk_select_ = std::string("SELECT ") + kChunkColumns + (chunk_facts ? ", facts" : "");
  return Status::Ok();
}

Result<std::unique_ptr<WriteBatch>> Corpus::BeginWrite() {
  if (read_only_) return Status::Invalid(path_ + ": corpus is open read-only");
  if (batch_open_) return Status::Invalid(path_ + ": a write batch is already open");
  UMWELT_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE", path_));
  batch_open_ = true;
  return std::unique_ptr<WriteBatch>(new WriteBatch(this));
}

Result<std::optional<Chunk>> Corpus::ChunkByRef(const std::string& ref) {
  Stmt q(db_, (chunk_select_ + " FROM chunks WHERE ref=?1").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, ref);
  if (q.Step() == SQLITE_ROW) return std::optional<Chunk>(ReadChunk(q));
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return std::optional<Chunk>();
}

Result<std::optional<Chunk>> Corpus::ChunkByUrl(const std::string& url) {
  Stmt q(db_, (chunk_select_ +
               " FROM chunks WHERE url=?1 ORDER BY part LIMIT 1").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, url);
  if (q.Step() == SQLITE_ROW) return std::optional<Chunk>(ReadChunk(q));
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return std::optional<Chunk>();
}

Result<std::vector<Chunk>> Corpus::ThreadChunks(const std::string& parent) {
  // The thread's own body (its opening post) first, then everything else in
  // time order.
  static const std::string opening = [] {
    std::string in;
    for (const auto& k : KindsWithRole(Role::kOpening)) in += (in.empty() ? "'" : ",'") + k + "'";
    return in.empty() ? std::string("0") : "kind IN (" + in + ")";
  }();
  Stmt q(db_, (chunk_select_ + " FROM chunks WHERE parent=?1 OR ref=?1 OR (ref>=?2 AND ref<?3) ORDER BY (" + opening +
               ") DESC, date, ref, part").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  // A range, not LIKE, for the parts: each arm of the OR then uses an index
  // (LIKE made this a scan of the whole table).
  q.Bind(1, parent).Bind(2, parent + ":p").Bind(3, parent + ":q");
  std::vector<Chunk> out;
  while (q.Step() == SQLITE_ROW) out.push_back(ReadChunk(q));
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Result<std::vector<Chunk>> Corpus::ChunksAround(const std::string& parent, const std::string& date,
                                                const std::string& ref, int n) {
  // (date, ref) orders a channel's messages; parts follow their record.
  Stmt before(db_, (chunk_select_ +
                    " FROM chunks WHERE parent=?1 AND (date<?2 OR (date=?2 AND ref<?3))"
                    " ORDER BY date DESC, ref DESC, part DESC LIMIT ?4").c_str());
  Stmt after(db_, (chunk_select_ +
                   " FROM chunks WHERE parent=?1 AND (date>?2 OR (date=?2 AND ref>=?3))"
                   " ORDER BY date, ref, part LIMIT ?4").c_str());
  UMWELT_RETURN_IF_ERROR(before.PrepareStatus(path_));
  UMWELT_RETURN_IF_ERROR(after.PrepareStatus(path_));
  before.Bind(1, parent).Bind(2, date).Bind(3, ref).Bind(4, int64_t{n});
  after.Bind(1, parent).Bind(2, date).Bind(3, ref).Bind(4, int64_t{n} + 1);
  std::vector<Chunk> out;
  while (before.Step() == SQLITE_ROW) out.push_back(ReadChunk(before));
  UMWELT_RETURN_IF_ERROR(before.Finished(path_));
  std::reverse(out.begin(), out.end());
  while (after.Step() == SQLITE_ROW) out.push_back(ReadChunk(after));
  UMWELT_RETURN_IF_ERROR(after.Finished(path_));
  return out;
}

Result<std::vector<Chunk>> Corpus::ChunksById(const std::vector<int64_t>& ids) {
  std::vector<Chunk> out;
  if (ids.empty()) return out;
  // One statement over a JSON array of the ids: one read transaction and one
  // lock for the lot (a statement per id took a shared lock, and checked the
  // WAL, once per id: a third of a served search's time).
  std::string list = "[";
  for (int64_t id : ids) list += std::to_string(id) + ",";
  list.back() = ']';
  const std::string sql = chunk_select_ + " FROM chunks WHERE id IN (SELECT value FROM json_each(?1))";
  Stmt q(*cache_, sql.c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, list);
  std::unordered_map<int64_t, Chunk> found;
  found.reserve(ids.size());
  while (q.Step() == SQLITE_ROW) {
    Chunk c = ReadChunk(q);
    found.emplace(c.id, std::move(c));
  }
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  // In the order asked, each id as often as it was asked.
  out.reserve(ids.size());
  std::unordered_map<int64_t, size_t> placed;
  for (int64_t id : ids) {
    auto it = found.find(id);
    if (it == found.end()) continue;
    auto [at, first] = placed.emplace(id, out.size());
    out.push_back(first ? std::move(it->second) : Chunk(out[at->second]));
  }
  return out;
}

Result<std::optional<Thread>> Corpus::GetThread(const std::string& ref) {
  if (!native_) return std::optional<Thread>();
  Stmt q(db_, (thread_select_ + " FROM threads WHERE ref=?1").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, ref);
  if (q.Step() != SQLITE_ROW) return std::optional<Thread>();
  return std::optional<Thread>(ReadThread(q));
}

Result<std::optional<Thread>> Corpus::ThreadByUrl(const std::string& url) {
  if (!native_) return std::optional<Thread>();
  Stmt q(db_, "SELECT ref FROM threads WHERE url=?1 LIMIT 1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, url);
  if (q.Step() != SQLITE_ROW) return std::optional<Thread>();
  return GetThread(q.Text(0));
}

Result<std::vector<std::string>> Corpus::ThreadRefsByUrlPrefix(const std::string& prefix, int limit) {
  std::vector<std::string> out;
  if (!native_ || prefix.empty()) return out;
  // A range on the url index: every url that begins with `prefix` sorts at
  // or after it and before the prefix with its last byte one higher.
  std::string end = prefix;
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  Stmt q(db_, "SELECT ref FROM threads WHERE url>=?1 AND url<?2 ORDER BY url LIMIT ?3");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, prefix).Bind(2, end).Bind(3, limit);
  while (q.Step() == SQLITE_ROW) out.push_back(q.Text(0));
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Result<std::vector<Chunk>> Corpus::LinkedFrom(const std::string& ref, int limit) {
  std::vector<Chunk> out;
  if (!native_) return out;
  Stmt q(db_, (std::string("SELECT c.id, c.source, c.kind, c.ref, c.parent, c.title, c.author,"
                           " c.date, c.url, '', c.part, c.n_parts, ''"
                           " FROM links l JOIN chunks c ON c.ref IN (l.from_ref, l.from_ref || ':p0')"
                           " WHERE l.to_ref=?1 AND (c.parent IS NULL OR c.parent<>?1)"
                           " ORDER BY c.date DESC LIMIT ?2")).c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, ref).Bind(2, limit);
  while (q.Step() == SQLITE_ROW) out.push_back(ReadChunk(q));
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Result<std::vector<SyncState>> Corpus::SyncStates() {
  std::vector<SyncState> out;
  if (!native_) return out;
  Stmt ss(db_, "SELECT source, cursor, last_success, last_error, error_since FROM sync_state ORDER BY source");
  UMWELT_RETURN_IF_ERROR(ss.PrepareStatus(path_));
  while (ss.Step() == SQLITE_ROW) out.push_back({ss.Text(0), ss.Text(1), ss.Text(2), ss.Text(3), ss.Text(4)});
  UMWELT_RETURN_IF_ERROR(ss.Finished(path_));
  return out;
}

Result<std::optional<SyncState>> Corpus::GetSyncState(const std::string& source) {
  if (!native_) return std::optional<SyncState>();
  Stmt q(db_, "SELECT source, cursor, last_success, last_error, error_since FROM sync_state"
              " WHERE source=?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, source);
  if (q.Step() != SQLITE_ROW) return std::optional<SyncState>();
  return std::optional<SyncState>(
      SyncState{q.Text(0), q.Text(1), q.Text(2), q.Text(3), q.Text(4)});
}

Result<std::vector<std::string>> Corpus::RecordRefs(const std::string& parent, const std::string& kind,
                                                    const std::string& since) {
  Stmt q(db_, "SELECT ref FROM chunks WHERE parent=?1 AND kind=?2 AND date>=?3 ORDER BY ref");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, parent).Bind(2, kind).Bind(3, since);
  std::vector<std::string> out;
  while (q.Step() == SQLITE_ROW) {
    std::string base = BaseRef(q.Text(0));
    if (out.empty() || out.back() != base) out.push_back(std::move(base));
  }
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Result<std::vector<Chunk>> Corpus::ChunksInPeriod(const std::string& from, const std::string& to) {
  Stmt q(db_, (chunk_select_ +
               " FROM chunks WHERE date>=?1 AND date<?2 ORDER BY date, ref, part").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, from).Bind(2, to);
  std::vector<Chunk> out;
  while (q.Step() == SQLITE_ROW) out.push_back(ReadChunk(q));
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Result<std::vector<Thread>> Corpus::ThreadsChangedIn(const std::string& from, const std::string& to) {
  std::vector<Thread> out;
  if (!native_) return out;
  Stmt q(db_, (thread_select_ +
               " FROM threads WHERE (created>=?1 AND created<?2) OR (closed>=?1 AND closed<?2)"
               " OR (merged>=?1 AND merged<?2) OR (updated>=?1 AND updated<?2) ORDER BY ref").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, from).Bind(2, to);
  while (q.Step() == SQLITE_ROW) out.push_back(ReadThread(q));
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Result<std::vector<Link>> Corpus::LinksFrom(const std::vector<std::string>& from_refs) {
  std::vector<Link> out;
  if (!native_) return out;
  Stmt q(db_, "SELECT from_ref, to_ref, kind FROM links WHERE from_ref=?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  for (const auto& ref : from_refs) {
    q.Bind(1, ref);
    while (q.Step() == SQLITE_ROW) out.push_back({q.Text(0), q.Text(1), q.Text(2)});
    UMWELT_RETURN_IF_ERROR(q.Finished(path_));
    q.Reset();
  }
  return out;
}

Result<std::vector<Thread>> Corpus::ThreadsWithRefSuffix(const std::string& source, const std::string& suffix,
                                                         int limit) {
  std::vector<Thread> out;
  if (!native_) return out;
  std::string pattern = "%";
  for (char c : suffix) pattern += (c == '%' || c == '_' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  Stmt q(db_, (thread_select_ + " FROM threads WHERE source=?1 AND ref LIKE ?2 ESCAPE '\\' ORDER BY ref LIMIT ?3").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, source).Bind(2, pattern).Bind(3, static_cast<int64_t>(limit));
  while (q.Step() == SQLITE_ROW) {
    Thread t = ReadThread(q);
    // LIKE ignores ASCII case: the suffix must match exactly.
    if (t.ref.size() >= suffix.size() && t.ref.compare(t.ref.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(std::move(t));
    }
  }
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Result<std::optional<Thread>> Corpus::CommitBySha(const std::string& sha_prefix) {
  std::optional<Thread> found;
  bool hex = sha_prefix.size() >= 7 && sha_prefix.size() <= 40 &&
             sha_prefix.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!native_ || !hex) return found;
  Stmt q(db_, (thread_select_ + " FROM threads WHERE source='git' AND kind='commit' AND ref GLOB ?1 LIMIT 2").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, "*/commit/" + sha_prefix + "*");
  int n = 0;
  while (q.Step() == SQLITE_ROW) {
    if (n++ == 0) found = ReadThread(q);
  }
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  if (n > 1) found.reset();
  return found;
}

Result<std::vector<Thread>> Corpus::ThreadsOf(const std::string& source, const std::string& kind) {
  std::vector<Thread> out;
  if (!native_) return out;
  Stmt q(db_, (thread_select_ +
               " FROM threads WHERE source=?1 AND (?2='' OR kind=?2) ORDER BY ref").c_str());
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, source).Bind(2, kind);
  while (q.Step() == SQLITE_ROW) out.push_back(ReadThread(q));
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Status Corpus::QuickCheck() {
  Stmt q(db_, "PRAGMA quick_check");
  if (!q.ok()) return SqliteError(db_, sqlite3_errcode(db_), path_);
  int rc = q.Step();
  if (rc != SQLITE_ROW) return SqliteError(db_, rc, path_);
  std::string first = q.Text(0);
  if (first != "ok") return Status::Corrupt(path_ + ": the database is damaged: " + first);
  return Status::Ok();
}

namespace {

// The snapshot's sync states without secrets or this machine's paths.
int ScrubSyncStates(sqlite3* db) {
  std::vector<std::array<std::string, 3>> rows;
  {
    Stmt q(db, "SELECT source, cursor, last_error FROM sync_state");
    if (!q.ok()) return SQLITE_DONE;  // an older file without the table
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) rows.push_back({q.Text(0), q.Text(1), q.Text(2)});
    if (rc != SQLITE_DONE) return rc;
  }
  for (const auto& [source, cursor, error] : rows) {
    Stmt u(db, "UPDATE sync_state SET cursor = ?2, last_error = ?3 WHERE source = ?1");
    u.Bind(1, source).Bind(2, StripLocalPaths(RedactSecrets(cursor))).Bind(3, StripLocalPaths(RedactSecrets(error)));
    if (int rc = u.Step(); rc != SQLITE_DONE) return rc;
  }
  return SQLITE_OK;
}

// Leaves the vector spaces `drop` out of a snapshot: their vectors, their
// meta.spaces entries, and the pages they held.
int DropSpaces(sqlite3* db, const std::vector<std::string>& drop) {
  if (drop.empty()) return SQLITE_OK;
  for (const auto& space : drop) {
    Stmt u(db, "UPDATE chunks SET embedding=NULL, embed_space=NULL WHERE embed_space=?1");
    u.Bind(1, space);
    if (int rc = u.Step(); rc != SQLITE_DONE) return rc;
  }
  std::string spaces;
  {
    Stmt q(db, "SELECT value FROM meta WHERE key='spaces'");
    if (q.ok() && q.Step() == SQLITE_ROW) spaces = q.Text(0);
  }
  nlohmann::json j = nlohmann::json::parse(spaces, nullptr, false);
  if (j.is_object()) {
    for (const auto& space : drop) j.erase(space);
    Stmt u(db, "UPDATE meta SET value=?1 WHERE key='spaces'");
    u.Bind(1, j.dump());
    if (int rc = u.Step(); rc != SQLITE_DONE) return rc;
  }
  return sqlite3_exec(db, "VACUUM", nullptr, nullptr, nullptr);
}

}  // namespace

Status Corpus::Snapshot(const std::string& dest, const std::vector<std::string>& drop_spaces) {
  std::string tmp = dest + ".tmp";
  std::remove(tmp.c_str());
  sqlite3* out = nullptr;
  if (sqlite3_open_v2(tmp.c_str(), &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    std::string msg = out ? sqlite3_errmsg(out) : "out of memory";
    sqlite3_close(out);
    return Status::Io(dest + ": cannot create the snapshot: " + msg);
  }
  sqlite3_backup* b = sqlite3_backup_init(out, "main", db_, "main");
  int rc = SQLITE_ERROR;
  if (b) {
    // One step holds one read transaction: the copy is of one committed state.
    while ((rc = sqlite3_backup_step(b, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(5);
    sqlite3_backup_finish(b);
  }
  if (rc == SQLITE_DONE) rc = ScrubSyncStates(out);
  if (rc == SQLITE_OK || rc == SQLITE_DONE) rc = DropSpaces(out, drop_spaces);
  if (rc == SQLITE_OK) rc = sqlite3_exec(out, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
  std::string msg = sqlite3_errmsg(out);
  sqlite3_close(out);
  if (rc != SQLITE_OK && rc != SQLITE_DONE) {
    std::remove(tmp.c_str());
    return Status::Io(path_ + ": snapshot failed: " + msg);
  }
  if (std::rename(tmp.c_str(), dest.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::Io(dest + ": cannot replace: " + std::strerror(errno));
  }
  return Status::Ok();
}

Result<std::string> Corpus::GetMeta(const std::string& key) {
  Stmt q(db_, "SELECT value FROM meta WHERE key=?1");
  if (!q.ok()) return std::string();  // a reference file may lack meta
  q.Bind(1, key);
  std::string value = q.Step() == SQLITE_ROW ? q.Text(0) : std::string();
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return value;
}

Result<CorpusStats> Corpus::Stats() {
  CorpusStats s;
  Stmt q(db_, "SELECT source, kind, count(*) FROM chunks GROUP BY source, kind ORDER BY source, kind");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  while (q.Step() == SQLITE_ROW) {
    s.counts.push_back({q.Text(0), q.Text(1), q.Int(2)});
    s.total_chunks += q.Int(2);
  }
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  UMWELT_ASSIGN_OR_RETURN(s.schema_version, GetMeta("schema_version"));
  UMWELT_ASSIGN_OR_RETURN(s.spaces_json, GetMeta("spaces"));
  UMWELT_ASSIGN_OR_RETURN(std::string built, GetMeta("built_at_epoch"));
  if (!built.empty()) s.built_at = FormatIsoTime(std::atoll(built.c_str()));
  if (native_) {
    Stmt t(db_, "SELECT (SELECT count(*) FROM threads), (SELECT count(*) FROM links)");
    UMWELT_RETURN_IF_ERROR(t.PrepareStatus(path_));
    if (t.Step() == SQLITE_ROW) {
      s.threads = t.Int(0);
      s.links = t.Int(1);
    }
    UMWELT_RETURN_IF_ERROR(t.Finished(path_));
    UMWELT_ASSIGN_OR_RETURN(s.sync, SyncStates());
  }
  return s;
}

Status Corpus::ForEachChunk(const std::function<void(const IndexRow&)>& visit) {
  Stmt q(db_, "SELECT id, source, kind, author, date, url, title, text, syms, parent FROM chunks ORDER BY id");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    visit(IndexRow{q.Int(0), q.View(1), q.View(2), q.View(3), q.View(4), q.View(5), q.View(6),
                   q.View(7), q.View(8), q.View(9)});
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_);
  return Status::Ok();
}

Status Corpus::ForEachChunkIn(const std::vector<int64_t>& ids, const std::function<void(const IndexRow&)>& visit) {
  Stmt q(db_, "SELECT id, source, kind, author, date, url, title, text, syms, parent FROM chunks WHERE id=?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  for (int64_t id : ids) {
    q.Reset();
    q.Bind(1, id);
    int rc = q.Step();
    if (rc == SQLITE_ROW) {
      visit(IndexRow{q.Int(0), q.View(1), q.View(2), q.View(3), q.View(4), q.View(5), q.View(6),
                     q.View(7), q.View(8), q.View(9)});
    } else if (rc != SQLITE_DONE) {
      return SqliteError(db_, rc, path_);
    }
  }
  return Status::Ok();
}

Result<std::optional<Corpus::LogPoint>> Corpus::ChangeLogPoint() {
  if (!TableExists(db_, "chunk_log")) return std::optional<LogPoint>();
  Stmt q(db_, "SELECT seq, id FROM chunk_log ORDER BY seq DESC LIMIT 1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  int rc = q.Step();
  if (rc == SQLITE_DONE) return std::optional<LogPoint>(LogPoint{});
  if (rc != SQLITE_ROW) return SqliteError(db_, rc, path_);
  return std::optional<LogPoint>(LogPoint{q.Int(0), q.Int(1)});
}

Result<std::optional<std::vector<int64_t>>> Corpus::ChangedSince(const LogPoint& since, size_t limit) {
  using Ids = std::optional<std::vector<int64_t>>;
  if (!TableExists(db_, "chunk_log")) return Ids();
  if (since.seq > 0) {  // the entry the caller stopped at is still there, unchanged
    Stmt at(db_, "SELECT id FROM chunk_log WHERE seq=?1");
    UMWELT_RETURN_IF_ERROR(at.PrepareStatus(path_));
    at.Bind(1, since.seq);
    if (at.Step() != SQLITE_ROW || at.Int(0) != since.id) return Ids();
  } else {  // from the start: nothing trimmed yet
    Stmt first(db_, "SELECT coalesce(min(seq), 1) FROM chunk_log");
    UMWELT_RETURN_IF_ERROR(first.PrepareStatus(path_));
    if (first.Step() != SQLITE_ROW || first.Int(0) != 1) return Ids();
  }
  Stmt count(db_, "SELECT count(*) FROM (SELECT 1 FROM chunk_log WHERE seq>?1 LIMIT ?2)");
  UMWELT_RETURN_IF_ERROR(count.PrepareStatus(path_));
  count.Bind(1, since.seq);
  count.Bind(2, static_cast<int64_t>(limit) + 1);
  if (count.Step() != SQLITE_ROW) return SqliteError(db_, sqlite3_errcode(db_), path_);
  if (static_cast<size_t>(count.Int(0)) > limit) return Ids();
  Stmt q(db_, "SELECT DISTINCT id FROM chunk_log WHERE seq>?1 ORDER BY id");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, since.seq);
  std::vector<int64_t> ids;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) ids.push_back(q.Int(0));
  if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_);
  return Ids(std::move(ids));
}

Result<std::string> Corpus::VectorKey(const std::string& space) {
  UMWELT_ASSIGN_OR_RETURN(std::string base, ContentKey());
  UMWELT_ASSIGN_OR_RETURN(std::string gen, GetMeta("vec_generation"));
  UMWELT_ASSIGN_OR_RETURN(std::string spaces, GetMeta("spaces"));
  return base + ";space=" + space + ";vgen=" + gen + ";spaces=" + spaces;
}

Status Corpus::ForEachText(const std::string& space, bool only_missing,
                           const std::function<bool(std::string_view)>& covers,
                           const std::function<void(const TextRow&)>& visit) {
  Stmt q(db_, only_missing ? "SELECT id, source, title, text FROM chunks"
                             " WHERE embedding IS NULL OR embed_space IS NOT ?1 ORDER BY id"
                           : "SELECT id, source, title, text FROM chunks WHERE ?1 IS NOT NULL ORDER BY id");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, space);
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    std::string_view source = q.View(1);
    if (covers(source)) visit(TextRow{q.Int(0), source, q.View(2), q.View(3)});
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_);
  return Status::Ok();
}

Result<std::vector<Chunk>> Corpus::NextToEmbed(const std::string& space, int64_t after, size_t limit,
                                               const std::function<bool(std::string_view)>& covers,
                                               int64_t* scanned) {
  Stmt q(*cache_, "SELECT id, source, title, text FROM chunks"
                  " WHERE id > ?2 AND (embedding IS NULL OR embed_space IS NOT ?1) ORDER BY id");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, space).Bind(2, after);
  std::vector<Chunk> out;
  *scanned = after;
  while (out.size() < limit && q.Step() == SQLITE_ROW) {
    *scanned = q.Int(0);
    if (!covers(q.View(1))) continue;
    Chunk c;
    c.id = q.Int(0);
    c.source = q.Text(1);
    c.title = q.Text(2);
    c.text = q.Text(3);
    out.push_back(std::move(c));
  }
  UMWELT_RETURN_IF_ERROR(q.Finished(path_));
  return out;
}

Result<int64_t> Corpus::MaxChunkId() {
  Stmt q(db_, "SELECT coalesce(max(id), 0) FROM chunks");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  if (q.Step() != SQLITE_ROW) return SqliteError(db_, sqlite3_errcode(db_), path_);
  return q.Int(0);
}

namespace {
// Visits the vector in column 1 of `q`'s row (id in column 0); a blob that
// is not whole floats is skipped.
void VisitVector(Stmt& q, std::vector<float>& v, const std::function<void(int64_t, const float*, int)>& visit) {
  const void* blob = sqlite3_column_blob(q.get(), 1);
  int bytes = sqlite3_column_bytes(q.get(), 1);
  if (!blob || bytes % 4 != 0) return;
  v.resize(static_cast<size_t>(bytes) / 4);
  std::memcpy(v.data(), blob, static_cast<size_t>(bytes));
  visit(q.Int(0), v.data(), static_cast<int>(v.size()));
}
}  // namespace

Status Corpus::ForEachVector(const std::string& space,
                             const std::function<void(int64_t, const float*, int)>& visit) {
  Stmt q(db_, "SELECT id, embedding FROM chunks WHERE embed_space=?1 AND embedding IS NOT NULL ORDER BY id");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, space);
  std::vector<float> v;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) VisitVector(q, v, visit);
  if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_);
  return Status::Ok();
}

Status Corpus::ForEachVectorIn(const std::string& space, const std::vector<int64_t>& ids,
                               const std::function<void(int64_t, const float*, int)>& visit) {
  Stmt q(db_, "SELECT id, embedding FROM chunks WHERE id=?1 AND embed_space=?2 AND embedding IS NOT NULL");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  std::vector<float> v;
  for (int64_t id : ids) {
    q.Reset();
    q.Bind(1, id);
    q.Bind(2, space);
    int rc = q.Step();
    if (rc == SQLITE_ROW) VisitVector(q, v, visit);
    else if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_);
  }
  return Status::Ok();
}

Result<std::vector<int64_t>> Corpus::Fts5Rank(const std::vector<std::string>& words, int limit) {
  std::string match;
  for (const auto& w : words) {
    std::string quoted;
    for (char c : w) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    match += (match.empty() ? "\"" : " OR \"") + quoted + "\"";
  }
  std::vector<int64_t> out;
  if (match.empty()) return out;
  Stmt q(db_, "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY bm25(chunks_fts) LIMIT ?2");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, match).Bind(2, limit);
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) out.push_back(q.Int(0));
  if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_ + ": FTS5 query");
  return out;
}

Result<std::string> Corpus::ContentKey() {
  // max(id) is one b-tree descent; count(*) would scan the table.
  UMWELT_ASSIGN_OR_RETURN(int64_t max_id, MaxChunkId());
  std::string key = "max=" + std::to_string(max_id);
  UMWELT_ASSIGN_OR_RETURN(std::string gen, GetMeta("generation"));
  UMWELT_ASSIGN_OR_RETURN(std::string id, GetMeta("corpus_id"));
  if (native_ && !id.empty()) {
    key += ";id=" + id + ";gen=" + (gen.empty() ? "0" : gen);
  } else {
    // A file written by another program: its size and mtime stand in for a
    // generation counter.
    struct stat st;
    if (::stat(path_.c_str(), &st) == 0) {
      key += ";size=" + std::to_string(st.st_size) + ";mtime=" + std::to_string(st.st_mtim.tv_sec) +
             "." + std::to_string(st.st_mtim.tv_nsec);
    }
  }
  return key;
}

std::string ChangeFacts(const ChangeSize& c) {
  return nlohmann::json{{"changed", {{"files", c.files}, {"added", c.added}, {"removed", c.removed}}}}.dump();
}

std::optional<ChangeSize> ChangeOf(const std::string& facts) {
  if (facts.empty()) return std::nullopt;
  auto j = nlohmann::json::parse(facts, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  auto it = j.find("changed");
  if (it == j.end() || !it->is_object()) return std::nullopt;
  ChangeSize c;
  for (auto [key, field] : {std::pair{"files", &c.files}, {"added", &c.added}, {"removed", &c.removed}}) {
    auto v = it->find(key);
    if (v == it->end() || !v->is_number_integer() || v->get<int64_t>() < 0) return std::nullopt;
    *field = v->get<int64_t>();
  }
  return c;
}

}  // namespace umwelt

#include <nlohmann/json.hpp>

#include "sqlite_util.h"
#include "umwelt/corpus.h"
#include "umwelt/redact.h"
#include "umwelt/text.h"

namespace umwelt {

using corpus_internal::Exec;
using corpus_internal::Stmt;

namespace {

// Titles past this are cut at a character boundary with an ellipsis.
constexpr size_t kMaxTitleBytes = 1000;

std::string ShortTitle(const std::string& title) {
  if (title.size() <= kMaxTitleBytes) return title;
  return std::string(TruncateUtf8(title, kMaxTitleBytes - 3)) + "\xE2\x80\xA6";
}

std::string JsonArray(const std::vector<std::string>& v) {
  nlohmann::json j = nlohmann::json::array();
  for (auto& s : v) j.push_back(s);
  return j.dump();
}

// The range of refs holding a record's parts: "<ref>:p0" ... "<ref>:p~".
std::string PartLow(const std::string& ref) { return ref + ":p"; }
std::string PartHigh(const std::string& ref) { return ref + ":q"; }

bool SameChunk(const Chunk& a, const Chunk& b) {
  return a.ref == b.ref && a.source == b.source && a.kind == b.kind && a.parent == b.parent &&
         a.title == b.title && a.author == b.author && a.date == b.date && a.url == b.url &&
         a.text == b.text && a.part == b.part && a.n_parts == b.n_parts && a.syms == b.syms && a.facts == b.facts;
}

}  // namespace

WriteBatch::~WriteBatch() {
  if (!done_) {
    (void)Exec(corpus_->db_, "ROLLBACK", corpus_->path_);
    corpus_->batch_open_ = false;
  }
}

Result<bool> WriteBatch::PutRecord(const std::vector<Chunk>& in) {
  if (in.empty()) return false;
  const std::string& path = corpus_->path_;
  std::string base = BaseRef(in[0].ref);
  std::vector<Chunk> parts;
  parts.reserve(in.size());
  for (const auto& c : in) {
    if (c.ref.empty()) return Status::Invalid(path + ": record with an empty ref");
    Chunk s = c;
    if (!IsValidUtf8(s.text)) s.text = SanitizeUtf8(s.text);
    // A title is a line to show: a commit whose first line is a megabyte
    // keeps its text whole, and a title cut to a line's length (each part
    // of the record carries the title).
    s.title = ShortTitle(s.title);
    if (!IsValidUtf8(s.title)) s.title = SanitizeUtf8(s.title);
    if (!IsValidUtf8(s.author)) s.author = SanitizeUtf8(s.author);
    if (s.syms.empty()) s.syms = IdentifierSymbols(s.text);
    parts.push_back(std::move(s));
  }

  const std::string& updated = parts[0].updated;
  if (!updated.empty()) {
    Stmt version(*corpus_->cache_, "SELECT updated FROM record_versions WHERE ref=?1");
    UMWELT_RETURN_IF_ERROR(version.PrepareStatus(path));
    version.Bind(1, base);
    // Same or older stamp: the stored copy stands (re-imports are idempotent,
    // and two recordings of one version cannot flip-flop).
    if (version.Step() == SQLITE_ROW && version.Text(0) >= updated) return false;
    UMWELT_RETURN_IF_ERROR(version.Finished(path));
    Stmt set(*corpus_->cache_, "INSERT INTO record_versions(ref, updated) VALUES (?1, ?2)"
                 " ON CONFLICT(ref) DO UPDATE SET updated=excluded.updated");
    UMWELT_RETURN_IF_ERROR(set.PrepareStatus(path));
    set.Bind(1, base).Bind(2, updated);
    UMWELT_RETURN_IF_ERROR(set.Run(path + ": versioning " + base));
  }

  Stmt existing(*corpus_->cache_, "SELECT id, source, kind, ref, parent, title, author, date, url, text, part,"
                    " n_parts, syms, coalesce(facts,'') FROM chunks WHERE ref=?1 OR (ref>=?2 AND ref<?3) ORDER BY part");
  UMWELT_RETURN_IF_ERROR(existing.PrepareStatus(path));
  existing.Bind(1, base).Bind(2, PartLow(base)).Bind(3, PartHigh(base));
  std::vector<Chunk> old;
  while (existing.Step() == SQLITE_ROW) {
    Chunk c;
    c.id = existing.Int(0);
    c.source = existing.Text(1);
    c.kind = existing.Text(2);
    c.ref = existing.Text(3);
    c.parent = existing.Text(4);
    c.title = existing.Text(5);
    c.author = existing.Text(6);
    c.date = existing.Text(7);
    c.url = existing.Text(8);
    c.text = existing.Text(9);
    c.part = static_cast<int>(existing.Int(10));
    c.n_parts = static_cast<int>(existing.Int(11));
    c.syms = existing.Text(12);
    c.facts = existing.Text(13);
    old.push_back(std::move(c));
  }
  UMWELT_RETURN_IF_ERROR(existing.Finished(path));
  if (old.size() == parts.size()) {
    bool same = true;
    for (size_t i = 0; i < old.size() && same; ++i) same = SameChunk(old[i], parts[i]);
    if (same) return false;
  }

  UMWELT_RETURN_IF_ERROR(DeferFullText());
  if (!old.empty()) {
    Stmt del(*corpus_->cache_, "DELETE FROM chunks WHERE ref=?1 OR (ref>=?2 AND ref<?3)");
    UMWELT_RETURN_IF_ERROR(del.PrepareStatus(path));
    del.Bind(1, base).Bind(2, PartLow(base)).Bind(3, PartHigh(base));
    UMWELT_RETURN_IF_ERROR(del.Run(path + ": replacing " + base));
    chunk_delta_ -= sqlite3_changes(corpus_->db_);
  }

  Stmt ins(*corpus_->cache_, "INSERT INTO chunks(source, kind, ref, parent, title, author, date, url, text, part,"
               " n_parts, syms, facts) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,nullif(?13,''))");
  UMWELT_RETURN_IF_ERROR(ins.PrepareStatus(path));
  for (const auto& c : parts) {
    ins.Bind(1, c.source).Bind(2, c.kind).Bind(3, c.ref).Bind(4, c.parent).Bind(5, c.title);
    ins.Bind(6, c.author).Bind(7, c.date).Bind(8, c.url).Bind(9, c.text).Bind(10, c.part);
    ins.Bind(11, c.n_parts).Bind(12, c.syms).Bind(13, c.facts);
    UMWELT_RETURN_IF_ERROR(ins.Run(path + ": storing " + c.ref));
    ++chunk_delta_;
  }
  ++changed_;
  return true;
}

Status WriteBatch::DeleteRecord(const std::string& ref) {
  sqlite3* db = corpus_->db_;
  const std::string& path = corpus_->path_;
  std::string base = BaseRef(ref);
  Stmt dl(*corpus_->cache_, "DELETE FROM links WHERE from_ref=?1 OR (from_ref>=?2 AND from_ref<?3)");
  UMWELT_RETURN_IF_ERROR(dl.PrepareStatus(path));
  dl.Bind(1, base).Bind(2, PartLow(base)).Bind(3, PartHigh(base));
  UMWELT_RETURN_IF_ERROR(dl.Run(path + ": deleting links of " + base));
  Stmt dv(*corpus_->cache_, "DELETE FROM record_versions WHERE ref=?1");
  UMWELT_RETURN_IF_ERROR(dv.PrepareStatus(path));
  dv.Bind(1, base);
  UMWELT_RETURN_IF_ERROR(dv.Run(path + ": deleting the version of " + base));
  Stmt del(*corpus_->cache_, "DELETE FROM chunks WHERE ref=?1 OR (ref>=?2 AND ref<?3)");
  UMWELT_RETURN_IF_ERROR(del.PrepareStatus(path));
  del.Bind(1, base).Bind(2, PartLow(base)).Bind(3, PartHigh(base));
  UMWELT_RETURN_IF_ERROR(del.Run(path + ": deleting " + base));
  int deleted = sqlite3_changes(db);
  chunk_delta_ -= deleted;
  if (deleted > 0) ++changed_;
  return Status::Ok();
}

Status WriteBatch::DeferFullText() {
  if (fts_pending_after_ >= 0 || !corpus_->defer_fts_) return Status::Ok();
  const std::string& path = corpus_->path_;
  Stmt last(*corpus_->cache_, "SELECT coalesce(max(id), 0) FROM chunks");
  UMWELT_RETURN_IF_ERROR(last.PrepareStatus(path));
  if (last.Step() != SQLITE_ROW) return last.Finished(path + ": reading the last chunk id");
  int64_t after = last.Int(0);
  UMWELT_RETURN_IF_ERROR(last.Finished(path));
  UMWELT_RETURN_IF_ERROR(PutMeta("fts_pending_after", std::to_string(after)));
  fts_pending_after_ = after;
  return Status::Ok();
}

Status WriteBatch::DeleteThread(const std::string& ref) {
  Stmt q(*corpus_->cache_, "DELETE FROM threads WHERE ref=?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(corpus_->path_));
  q.Bind(1, ref);
  UMWELT_RETURN_IF_ERROR(q.Run(corpus_->path_ + ": deleting thread " + ref));
  if (sqlite3_changes(corpus_->db_) > 0) ++changed_;
  return Status::Ok();
}

Status WriteBatch::JoinThread(const std::string& ref, const std::string& thread) {
  Stmt q(*corpus_->cache_, "UPDATE chunks SET parent=?2 WHERE (ref=?1 OR ref LIKE ?1 || ':p%') AND parent=?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(corpus_->path_));
  q.Bind(1, ref).Bind(2, thread);
  UMWELT_RETURN_IF_ERROR(q.Run(corpus_->path_ + ": moving " + ref + " into " + thread));
  if (sqlite3_changes(corpus_->db_) == 0) return Status::Ok();
  ++changed_;
  return DeleteThread(ref);
}

Status WriteBatch::PutThread(const Thread& t) {
  const std::string title = ShortTitle(t.title);
  // Whether the title changes (or the row is new): only then are the
  // thread's chunks retitled — a channel of a million messages is not
  // rescanned for every batch that touches it.
  bool retitle = true;
  {
    Stmt old(*corpus_->cache_, "SELECT coalesce(title,'') FROM threads WHERE ref=?1");
    UMWELT_RETURN_IF_ERROR(old.PrepareStatus(corpus_->path_));
    old.Bind(1, t.ref);
    if (old.Step() == SQLITE_ROW) retitle = old.Text(0) != title;
    UMWELT_RETURN_IF_ERROR(old.Finished(corpus_->path_));
  }
  Stmt q(*corpus_->cache_,
         "INSERT INTO threads(ref, source, kind, state, state_reason, title, author,"
         " author_association, url, labels, assignees, created, updated, closed, merged, parent,"
         " children, description, facts) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,"
         " nullif(?16,''), nullif(?17,'[]'), ?18, nullif(?19,''))"
         " ON CONFLICT(ref) DO UPDATE SET source=excluded.source, kind=excluded.kind,"
         " state=excluded.state, state_reason=excluded.state_reason, title=excluded.title,"
         " author=excluded.author, author_association=excluded.author_association,"
         " url=excluded.url, labels=excluded.labels, assignees=excluded.assignees,"
         " created=excluded.created, updated=excluded.updated, closed=excluded.closed,"
         " merged=excluded.merged, parent=coalesce(excluded.parent, threads.parent),"
         " children=coalesce(excluded.children, threads.children),"
         " description=excluded.description, facts=excluded.facts"
         " WHERE excluded.updated='' OR coalesce(threads.updated,'')<=excluded.updated");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(corpus_->path_));
  q.Bind(1, t.ref).Bind(2, t.source).Bind(3, t.kind).Bind(4, t.state).Bind(5, t.state_reason);
  q.Bind(6, title).Bind(7, t.author).Bind(8, t.author_association).Bind(9, t.url);
  q.Bind(10, JsonArray(t.labels)).Bind(11, JsonArray(t.assignees)).Bind(12, t.created);
  q.Bind(13, t.updated).Bind(14, t.closed).Bind(15, t.merged).Bind(16, t.parent);
  q.Bind(17, JsonArray(t.children)).Bind(18, t.description).Bind(19, t.facts);
  UMWELT_RETURN_IF_ERROR(q.Run(corpus_->path_ + ": storing thread " + t.ref));
  if (title.empty() || t.titled_kinds.empty() || !retitle || sqlite3_changes(corpus_->db_) == 0) {
    return Status::Ok();
  }
  // The chunks the source says show their thread's title (not the parts of
  // the opening post, which has its own).
  Stmt titles(*corpus_->cache_, "UPDATE chunks SET title=?2 WHERE parent=?1 AND ref<>?1"
                            " AND kind IN (SELECT value FROM json_each(?3))"
                            " AND ref NOT LIKE ?1 || ':p%' AND coalesce(title,'')<>?2");
  UMWELT_RETURN_IF_ERROR(titles.PrepareStatus(corpus_->path_));
  titles.Bind(1, t.ref).Bind(2, title).Bind(3, JsonArray(t.titled_kinds));
  UMWELT_RETURN_IF_ERROR(titles.Run(corpus_->path_ + ": titling chunks of " + t.ref));
  if (sqlite3_changes(corpus_->db_) > 0) ++changed_;
  return Status::Ok();
}

Status WriteBatch::LinkChildThread(const std::string& source, const std::string& parent, const std::string& child) {
  const std::string& path = corpus_->path_;
  // Rows may not exist yet (the sub-issue listing can come before the issue).
  Stmt ensure(*corpus_->cache_, "INSERT OR IGNORE INTO threads(ref, source) VALUES (?1, ?2)");
  UMWELT_RETURN_IF_ERROR(ensure.PrepareStatus(path));
  ensure.Bind(1, parent).Bind(2, source);
  UMWELT_RETURN_IF_ERROR(ensure.Run(path));
  ensure.Bind(1, child).Bind(2, source);
  UMWELT_RETURN_IF_ERROR(ensure.Run(path));
  Stmt set_parent(*corpus_->cache_, "UPDATE threads SET parent=?2 WHERE ref=?1");
  UMWELT_RETURN_IF_ERROR(set_parent.PrepareStatus(path));
  set_parent.Bind(1, child).Bind(2, parent);
  UMWELT_RETURN_IF_ERROR(set_parent.Run(path));
  Stmt get(*corpus_->cache_, "SELECT children FROM threads WHERE ref=?1");
  UMWELT_RETURN_IF_ERROR(get.PrepareStatus(path));
  get.Bind(1, parent);
  std::vector<std::string> children;
  if (get.Step() == SQLITE_ROW) {
    auto j = nlohmann::json::parse(get.Text(0), nullptr, false);
    if (j.is_array()) {
      for (auto& e : j) {
        if (e.is_string()) children.push_back(e.get<std::string>());
      }
    }
  }
  UMWELT_RETURN_IF_ERROR(get.Finished(path));
  get.Reset();
  for (auto& c : children) {
    if (c == child) return Status::Ok();
  }
  children.push_back(child);
  Stmt set_children(*corpus_->cache_, "UPDATE threads SET children=?2 WHERE ref=?1");
  UMWELT_RETURN_IF_ERROR(set_children.PrepareStatus(path));
  set_children.Bind(1, parent).Bind(2, JsonArray(children));
  UMWELT_RETURN_IF_ERROR(set_children.Run(path));
  return AddLink({child, parent, "sub-issue"});
}

Status WriteBatch::PutLinks(const std::string& from_ref, const std::vector<Link>& links) {
  Stmt del(*corpus_->cache_, "DELETE FROM links WHERE from_ref=?1 AND kind='mention'");
  UMWELT_RETURN_IF_ERROR(del.PrepareStatus(corpus_->path_));
  del.Bind(1, from_ref);
  UMWELT_RETURN_IF_ERROR(del.Run(corpus_->path_));
  for (const auto& l : links) UMWELT_RETURN_IF_ERROR(AddLink(l));
  return Status::Ok();
}

Status WriteBatch::AddLink(const Link& l) {
  Stmt q(*corpus_->cache_, "INSERT OR IGNORE INTO links(from_ref, to_ref, kind) VALUES (?1, ?2, ?3)");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(corpus_->path_));
  q.Bind(1, l.from_ref).Bind(2, l.to_ref).Bind(3, l.kind);
  return q.Run(corpus_->path_ + ": storing link " + l.from_ref + " -> " + l.to_ref);
}

Status WriteBatch::PutSyncState(const SyncState& s) {
  Stmt q(*corpus_->cache_,
         "INSERT INTO sync_state(source, cursor, last_success, last_error, error_since)"
         " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(source) DO UPDATE SET cursor=excluded.cursor,"
         " last_success=excluded.last_success, last_error=excluded.last_error,"
         " error_since=excluded.error_since");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(corpus_->path_));
  // A source's error may echo its credentials; the corpus never keeps them.
  q.Bind(1, s.source).Bind(2, s.cursor).Bind(3, s.last_success).Bind(4, RedactSecrets(s.last_error));
  q.Bind(5, s.error_since);
  return q.Run(corpus_->path_ + ": storing sync state of " + s.source);
}

Status WriteBatch::PutMeta(const std::string& key, const std::string& value) {
  Stmt q(*corpus_->cache_, "INSERT INTO meta(key, value) VALUES (?1, ?2)"
                           " ON CONFLICT(key) DO UPDATE SET value=excluded.value");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(corpus_->path_));
  q.Bind(1, key).Bind(2, value);
  return q.Run(corpus_->path_ + ": storing meta " + key);
}

Status WriteBatch::PutEmbedding(int64_t id, const std::string& space, const std::vector<float>& v) {
  Stmt q(*corpus_->cache_, "UPDATE chunks SET embed_space=?2, embedding=?3 WHERE id=?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(corpus_->path_));
  q.Bind(1, id).Bind(2, space);
  sqlite3_bind_blob(q.get(), 3, v.data(), static_cast<int>(v.size() * sizeof(float)), SQLITE_TRANSIENT);
  UMWELT_RETURN_IF_ERROR(q.Run(corpus_->path_ + ": storing the vector of chunk " + std::to_string(id)));
  ++vectors_changed_;
  return Status::Ok();
}

Status WriteBatch::ClearSpace(const std::string& space) {
  Stmt q(*corpus_->cache_, "UPDATE chunks SET embed_space=NULL, embedding=NULL WHERE embed_space=?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(corpus_->path_));
  q.Bind(1, space);
  UMWELT_RETURN_IF_ERROR(q.Run(corpus_->path_ + ": clearing space " + space));
  ++vectors_changed_;
  return Status::Ok();
}

Status WriteBatch::Commit() {
  sqlite3* db = corpus_->db_;
  const std::string& path = corpus_->path_;
  Status s = Status::Ok();
  if (fts_pending_after_ >= 0) {
    // The chunks this batch added, indexed in one statement (see DeferFullText).
    Stmt fts(*corpus_->cache_, "INSERT INTO chunks_fts(rowid, text, title, syms)"
                               " SELECT id, text, title, syms FROM chunks WHERE id > ?1");
    s = fts.PrepareStatus(path);
    if (s.ok()) s = fts.Bind(1, fts_pending_after_).Run(path + ": indexing the batch's text");
    if (s.ok()) s = Exec(db, "DELETE FROM meta WHERE key='fts_pending_after'", path);
  }
  if (s.ok() && changed_ > 0) {
    s = Exec(db,
             "INSERT INTO meta(key, value) VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE"
             " SET value = CAST(value AS INTEGER) + 1",
             path);
    // The count kept by what the batch added and removed: counting a corpus
    // of millions of chunks at every commit made a large import quadratic.
    if (s.ok()) {
      Stmt add(*corpus_->cache_, "UPDATE meta SET value = CAST(value AS INTEGER) + ?1 WHERE key='chunks'");
      s = add.PrepareStatus(path);
      if (s.ok()) s = add.Bind(1, chunk_delta_).Run(path + ": counting chunks");
      if (s.ok() && sqlite3_changes(db) == 0) {
        s = Exec(db, "INSERT INTO meta(key, value) VALUES ('chunks', (SELECT count(*) FROM chunks))", path);
      }
    }

    if (s.ok()) {
      Stmt built(*corpus_->cache_, "INSERT INTO meta(key, value) VALUES ('built_at_epoch', ?1)"
                     " ON CONFLICT(key) DO UPDATE SET value=excluded.value");
      s = built.PrepareStatus(path);
      if (s.ok()) s = built.Bind(1, std::to_string(NowEpoch())).Run(path);
    }
  }
  if (s.ok() && (vectors_changed_ > 0 || changed_ > 0)) {
    s = Exec(db,
             "INSERT INTO meta(key, value) VALUES ('vec_generation', '1') ON CONFLICT(key) DO UPDATE"
             " SET value = CAST(value AS INTEGER) + 1;",
             path);
  }
  // The change log keeps its newest entries; an index older than those
  // reads every chunk again.
  if (s.ok() && (vectors_changed_ > 0 || changed_ > 0)) {
    Stmt trim(*corpus_->cache_, "DELETE FROM chunk_log WHERE seq <= (SELECT max(seq) FROM chunk_log) - ?1");
    s = trim.PrepareStatus(path);
    if (s.ok()) s = trim.Bind(1, kChangeLogKeep).Run(path + ": trimming the change log");
  }
  if (s.ok()) s = Exec(db, "COMMIT", path + ": commit");
  if (!s.ok()) (void)Exec(db, "ROLLBACK", path);
  done_ = true;
  corpus_->batch_open_ = false;
  return s;
}

void MarkSyncSuccess(SyncState* s, int64_t now) {
  s->last_success = FormatIsoTime(now);
  s->last_error.clear();
  s->error_since.clear();
}

void MarkSyncFailure(SyncState* s, const std::string& error, int64_t now) {
  s->last_error = error;
  if (s->error_since.empty()) s->error_since = FormatIsoTime(now);
}

void RecordSyncFailure(Corpus& corpus, const std::string& source, const std::string& error, int64_t now) {
  auto stored = corpus.GetSyncState(source);
  SyncState s = stored.ok() && *stored ? **stored : SyncState{};
  s.source = source;
  MarkSyncFailure(&s, error, now);
  auto batch = corpus.BeginWrite();
  if (batch.ok() && (*batch)->PutSyncState(s).ok()) (void)(*batch)->Commit();
}

}  // namespace umwelt

// umwelt/corpus.h — the corpus file: one SQLite database holding every chunk
// of a project's record, the threads they belong to, the links between them,
// and each source's sync state. docs/CORPUS.md documents the format.
//
// Contract:
// - Only this module speaks SQL. Sources hand it records; readers ask it
//   questions through the methods below.
// - One writer, many readers. A Corpus opened kReadWrite may hand out one
//   WriteBatch at a time; a batch is one transaction and either commits whole
//   or leaves the file as it was. Readers in other processes see the last
//   committed state (WAL mode).
// - A Corpus object is not safe for concurrent use from several threads; open
//   one per thread (opening is cheap).
// - A file in the reference system's schema (meta, chunks, chunks_fts only)
//   opens read-only; thread metadata is then simply absent.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/params.h"
#include "umwelt/status.h"

struct sqlite3;

namespace umwelt {
namespace corpus_internal {
class StmtCache;
}

inline constexpr int kSchemaVersion = 6;
// How many of the newest change-log entries a writer keeps (chunk_log).
inline constexpr int64_t kChangeLogKeep = 200000;

// One row of `chunks`: a message, comment, issue body, commit, window, ...
struct Chunk {
  int64_t id = 0;         // assigned by the corpus
  std::string source;     // github, discord, code, wandb, web, narrative
  std::string kind;       // issue, pr, comment, review, review-comment, ...
  std::string ref;        // unique; parts of a long record are "<ref>:p<i>"
  std::string parent;     // the thread ref this chunk belongs to
  std::string title;
  std::string author;
  std::string date;       // ISO-8601 UTC
  std::string url;        // canonical permalink; parts share it
  std::string text;
  int part = 0;
  int n_parts = 1;
  std::string syms;       // split words of identifiers in text
  // The source's structured facts about the record as one JSON object ("" =
  // none), for readers that must not parse its text. Shared keys:
  // "changed": {"files", "added", "removed"} for a change whose size is
  // known (a commit, a landing, a pull request fetched whole).
  std::string facts;
  // The source's last-modified time (ISO). Not a chunks column: kept in
  // record_versions so an older copy of a record never replaces a newer one.
  std::string updated;
};

// One row of `threads`: an issue, PR, channel, file, run or page — what a
// hover card shows.
struct Thread {
  std::string ref;        // "owner/repo#123"
  std::string source;
  std::string kind;       // issue, pr, ...
  std::string state;      // open, closed, merged, draft
  std::string state_reason;  // completed, not_planned, reopened, ...
  std::string title;
  std::string author;
  std::string author_association;
  std::string url;
  std::vector<std::string> labels;
  std::vector<std::string> assignees;
  std::string created, updated, closed, merged;
  std::string parent;                 // epic / parent issue ref, or ""
  std::vector<std::string> children;  // sub-issue refs
  std::string description;            // one line
  // The source's structured facts as one JSON object ("" = none): a W&B
  // run's config and summary, say. Read by the source that wrote them.
  std::string facts;
  // The kinds of this thread's chunks that carry its title rather than one
  // of their own (GitHub's comments and reviews, Discord's messages): when
  // the title changes, PutThread retitles them. The source says which.
  std::vector<std::string> titled_kinds;
};

// A cross-reference from a chunk to a thread (`#1234`, an issue url, ...).
struct Link {
  std::string from_ref;  // chunk ref
  std::string to_ref;    // thread ref
  std::string kind = "mention";  // mention, cross-reference, sub-issue, kLandedIn, ...
};
// The kind of link from a change (a commit) to the proposal it landed
// through (the PR its message names).
inline constexpr std::string_view kLandedIn = "commit";

struct SyncState {
  std::string source;        // "github:owner/repo"
  std::string cursor;        // opaque to the corpus
  std::string last_success;  // ISO time or ""
  std::string last_error;
  std::string error_since;   // when the current run of failures began
};

// How a sync run ended, marked the one way every source marks it: success
// stamps last_success and clears the error; failure sets last_error and,
// at the first failure of a run of them, error_since. `now`: epoch seconds.
void MarkSyncSuccess(SyncState* state, int64_t now);
void MarkSyncFailure(SyncState* state, const std::string& error, int64_t now);

struct CorpusStats {
  struct Count {
    std::string source, kind;
    int64_t chunks = 0;
  };
  std::vector<Count> counts;
  int64_t total_chunks = 0;
  int64_t threads = 0;
  int64_t links = 0;
  std::string built_at;      // ISO time of the last committed write
  std::string schema_version;
  std::string spaces_json;   // meta.spaces, "" when none
  std::vector<SyncState> sync;
};

// Splits `c` into parts at paragraph boundaries once its text passes
// `max_chars` (then at line, sentence or space boundaries for huge paragraphs).
// Parts get refs "<ref>:p<i>" and share the url. A short chunk is returned as is.
std::vector<Chunk> SplitIntoParts(const Chunk& c, size_t max_chars = 4000);
// The record ref of a part ref: "o/r#1/c5:p2" -> "o/r#1/c5"; other refs as given.
std::string BaseRef(const std::string& ref);

// A change's size, as chunk and thread facts carry it ("changed"): written by
// the sources that know it (git, GitHub), read by the digest.
struct ChangeSize {
  int64_t files = 0, added = 0, removed = 0;
};
// {"changed": {"files": F, "added": A, "removed": R}}
std::string ChangeFacts(const ChangeSize& c);
// The size in `facts`, or none (no facts, no "changed", or not numbers).
std::optional<ChangeSize> ChangeOf(const std::string& facts);

// The cross-references in the text of chunk `from_ref`, as mention links:
// `#N` (resolved against `default_repo`; skipped when it is empty),
// `owner/repo#N` and GitHub issue and pull urls (to "owner/repo#N"),
// Discord message urls (to the channel, "discord:G/C"), W&B run urls
// ("wandb:E/P/R"), and other http(s) urls (to the page, "web:<url>"). Links to
// `self` are left out; at most 64 web links per text.
std::vector<Link> FindLinks(const std::string& from_ref, std::string_view text, const std::string& default_repo,
                            const std::string& self = "");
// Every source a corpus's records come from (a chunk's `source`): github,
// discord, git, code, wandb, web, narrative.
const std::vector<std::string>& CorpusSources();

// The thread ref of a url: what FindLinks links it to ("" for none).
std::string ThreadRefForUrl(std::string_view url);

class WriteBatch;
class Corpus;

// A thread read for display (`show`, the server's thread page): found by a
// permalink or a ref; a chat message is read in its conversation (`around`
// messages either side), anything else whole.
struct ThreadView {
  std::string thread_ref, focus_ref;
  std::optional<Thread> thread;
  std::vector<Chunk> chunks;
  std::vector<Chunk> linked;  // chunks elsewhere that link to the thread
  bool window = false;        // chunks are a window around focus_ref
  int around = 0;
  // The corpus does not mirror the thread, but these records (`chunks`)
  // name it: commits whose subject says "(#1373)", say.
  bool named_only = false;
};
// NotFound naming `target` when the corpus holds nothing for it, nor
// anything that names it.
Result<ThreadView> ViewThread(Corpus& corpus, const std::string& target, int around);
// show's parameters (umwelt/params.h): what to show and how much of it.
struct ShowRequest {
  std::string target;  // a permalink or ref
  int tail = 0;        // > 0: only the last N records
  bool toc = false;    // one line per record
  int around = 10;     // a chat message: messages either side (-1: the whole channel)
};
const ParamTable<ShowRequest>& ShowParams();
// The linked SQLite library's version ("3.40.1").
const char* SqliteVersion();
// `show --json`'s object, from the `first`-th chunk on; `toc` leaves texts out.
nlohmann::json ThreadViewValue(const ThreadView& v, size_t first = 0, bool toc = false);
std::string ThreadViewJson(const ThreadView& v, size_t first = 0, bool toc = false);
// The one JSON shape of a thread (show, /api/threads/{ref}), and of a record
// that links to one (show's and /api/threads' `linked_from`, MCP's
// linked_from).
nlohmann::json ThreadJson(const Thread& t);
nlohmann::json LinkedFromJson(const Chunk& c);

// A corpus file from elsewhere (a downloaded snapshot), checked before it
// replaces one: opened read-only with the schema trusted for nothing
// (trusted_schema off, defensive), its schema exactly this umwelt's tables,
// indexes and triggers (no view, no trigger or virtual table of its own:
// those run on every read or write), and PRAGMA quick_check clean. Every
// statement is interrupted once `budget` has passed. Corrupt naming `path`
// and what is wrong.
Status CheckForeignCorpus(const std::string& path, std::chrono::seconds budget);
// The file at `path` answers a keyword search within `budget`.
Status AnswersASearch(const std::string& path, std::chrono::seconds budget);

class Corpus {
 public:
  enum class Mode { kReadWrite, kReadOnly };

  // Opens (and with kReadWrite, creates or migrates) the corpus at `path`.
  // Fails with a message naming `path` when it is not SQLite, carries a newer
  // schema_version, or cannot be opened.
  static Result<std::unique_ptr<Corpus>> Open(const std::string& path, Mode mode);

  ~Corpus();
  Corpus(const Corpus&) = delete;
  Corpus& operator=(const Corpus&) = delete;

  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  // True when the file has umwelt's own tables (threads, links, sync_state).
  bool native() const { return native_; }

  // Starts the one transaction of a batch. REQUIRES: !read_only() and no other
  // batch of this Corpus is open.
  Result<std::unique_ptr<WriteBatch>> BeginWrite();

  // Readers. Each returns the last committed state.
  Result<std::optional<Chunk>> ChunkByRef(const std::string& ref);
  Result<std::optional<Chunk>> ChunkByUrl(const std::string& url);
  // The chunks of one thread (parent), in date then part order.
  Result<std::vector<Chunk>> ThreadChunks(const std::string& parent);
  Result<std::vector<Chunk>> ChunksById(const std::vector<int64_t>& ids);
  Result<std::optional<Thread>> GetThread(const std::string& ref);
  // The thread whose own url is `url` (no fragment).
  Result<std::optional<Thread>> ThreadByUrl(const std::string& url);
  // The refs of up to `limit` threads whose permalink begins with `prefix`
  // (a commit's permalink with its sha abbreviated), in url order.
  Result<std::vector<std::string>> ThreadRefsByUrlPrefix(const std::string& prefix, int limit);
  // Refs of chunks that link to thread `ref`, with their urls, newest first.
  Result<std::vector<Chunk>> LinkedFrom(const std::string& ref, int limit = 50);
  Result<std::optional<SyncState>> GetSyncState(const std::string& source);
  // Every source's sync state (cheap: Stats() counts the chunks too).
  Result<std::vector<SyncState>> SyncStates();
  // Refs of the records (not parts) whose parent is `parent` and kind `kind`
  // (dated at or after `since` when it is given).
  Result<std::vector<std::string>> RecordRefs(const std::string& parent, const std::string& kind,
                                              const std::string& since = "");
  // The chunks of thread `parent` around the one dated `date` with ref `ref`:
  // up to `n` before it, it, and up to `n` after, in date order (a Discord
  // message in its channel's conversation).
  Result<std::vector<Chunk>> ChunksAround(const std::string& parent, const std::string& date, const std::string& ref,
                                          int n);
  // The chunks dated in [from, to) (ISO times), in date order, all sources.
  // Uses the date index where the file has one (umwelt's own files do).
  Result<std::vector<Chunk>> ChunksInPeriod(const std::string& from, const std::string& to);
  // The threads created, closed, merged or updated in [from, to).
  Result<std::vector<Thread>> ThreadsChangedIn(const std::string& from, const std::string& to);
  // The links from the records `from_refs` (record refs, not parts).
  Result<std::vector<Link>> LinksFrom(const std::vector<std::string>& from_refs);
  // The threads of one source (and kind, when given), by ref.
  Result<std::vector<Thread>> ThreadsOf(const std::string& source, const std::string& kind = "");
  // Threads of `source` whose ref ends with `suffix` (exactly), at most `limit`.
  Result<std::vector<Thread>> ThreadsWithRefSuffix(const std::string& source, const std::string& suffix, int limit);
  // The one mirrored commit whose sha starts with `sha_prefix` (7 to 40
  // lower-case hex digits); none when no commit or several match.
  Result<std::optional<Thread>> CommitBySha(const std::string& sha_prefix);
  Result<CorpusStats> Stats();
  Result<std::string> GetMeta(const std::string& key);

  // Visits every chunk in id order with the fields the keyword index needs.
  struct IndexRow {
    int64_t id;
    std::string_view source, kind, author, date, url, title, text, syms, parent;
  };
  Status ForEachChunk(const std::function<void(const IndexRow&)>& visit);
  // The same for the chunks among `ids` (sorted, distinct) that exist.
  Status ForEachChunkIn(const std::vector<int64_t>& ids, const std::function<void(const IndexRow&)>& visit);

  // A position in the change log (chunk_log): its newest entry's sequence
  // number and the chunk id it names; {0, 0} when the log is empty. None
  // when the corpus keeps no log (a file another program wrote, or one not
  // yet migrated).
  struct LogPoint {
    int64_t seq = 0, id = 0;
  };
  Result<std::optional<LogPoint>> ChangeLogPoint();
  // The ids of the chunks inserted, deleted or changed after `since`, sorted
  // and distinct, when the log still reaches back to it (its entry is kept
  // and names the same chunk) and lists at most `limit` changes after it;
  // none otherwise (the caller then reads every chunk).
  Result<std::optional<std::vector<int64_t>>> ChangedSince(const LogPoint& since, size_t limit);

  // A string that changes whenever the chunks change: the key side indexes
  // are cached under.
  Result<std::string> ContentKey();
  // The same for the vectors of one space.
  Result<std::string> VectorKey(const std::string& space);

  // Visits, in id order, the chunks whose source `covers` accepts and that
  // have no vector in `space` (all of them when `only_missing` is false).
  struct TextRow {
    int64_t id;
    std::string_view source, title, text;
  };
  Status ForEachText(const std::string& space, bool only_missing,
                     const std::function<bool(std::string_view source)>& covers,
                     const std::function<void(const TextRow&)>& visit);
  // The next chunks to embed in `space`, in id order: those after id
  // `after` that have no vector of it and whose source `covers` accepts, at
  // most `limit` (id, source, title and text filled). `*scanned` is the last
  // id read, skipped rows included: the next call goes on from there. One
  // statement reads each row once (finding the ids first and reading their
  // rows again read a large corpus twice).
  Result<std::vector<Chunk>> NextToEmbed(const std::string& space, int64_t after, size_t limit,
                                         const std::function<bool(std::string_view source)>& covers,
                                         int64_t* scanned);
  // The largest chunk id, 0 when there are none (one b-tree descent).
  Result<int64_t> MaxChunkId();
  // Visits every vector of `space` in id order.
  Status ForEachVector(const std::string& space,
                       const std::function<void(int64_t id, const float* v, int dim)>& visit);
  // The same for the chunks among `ids` (sorted) that have one.
  Status ForEachVectorIn(const std::string& space, const std::vector<int64_t>& ids,
                         const std::function<void(int64_t id, const float* v, int dim)>& visit);

  // SQLite FTS5's own ranking, default bm25(), of an OR of `words`: chunk
  // ids, best first (the baseline evaluations compare against).
  Result<std::vector<int64_t>> Fts5Rank(const std::vector<std::string>& words, int limit);

  // Writes a consistent copy of the last committed state to `dest` (SQLite's
  // online backup API, in one step; the writer and other readers go on),
  // as one self-contained file (rollback journal, no WAL), replaced
  // atomically. The copy is for other machines: its sync states carry no
  // secrets and no local paths (RedactSecrets, StripLocalPaths). The
  // vector spaces in `drop_spaces` are left out (their vectors and their
  // meta.spaces entries), the file compacted.
  Status Snapshot(const std::string& dest, const std::vector<std::string>& drop_spaces = {});

  // SQLite's PRAGMA quick_check over the whole file: Corrupt naming the
  // path and the first problem when the file is damaged.
  Status QuickCheck();

  // The raw handle, for benchmarks comparing against FTS5 directly.
  sqlite3* raw_handle() { return db_; }

 private:
  friend class WriteBatch;
  Corpus() = default;
  Status Init(Mode mode);

  std::string path_;
  sqlite3* db_ = nullptr;
  std::unique_ptr<corpus_internal::StmtCache> cache_;  // finalized before db_ closes
  bool read_only_ = false;
  bool native_ = false;
  std::string thread_select_;  // "SELECT <thread columns>, facts" (NULL in a schema-2 file)
  std::string chunk_select_;   // "SELECT <chunk columns>[, facts]" (no facts before schema 4)
  bool batch_open_ = false;
  bool defer_fts_ = false;  // the triggers are schema 6's: a batch indexes its new chunks at Commit
};

// One write transaction. Destroying it without Commit() rolls back.
class WriteBatch {
 public:
  ~WriteBatch();
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  // Stores one record given as its parts (all sharing a base ref, as
  // SplitIntoParts makes them), replacing whatever the record held before —
  // unless the stored copy has a newer `updated` stamp, in which case nothing
  // changes. Returns true when anything changed. Text is stored as valid UTF-8.
  Result<bool> PutRecord(const std::vector<Chunk>& parts);
  // Removes a record and all its parts, and the links from them.
  Status DeleteRecord(const std::string& ref);
  // Removes a thread row (a deleted file, a branch gone stale). Its chunks
  // are the caller's to delete.
  Status DeleteThread(const std::string& ref);
  // Moves record `ref` (all its parts) into thread `thread` when it is still
  // its own thread (a commit learned to belong to a pull request), dropping
  // its own thread row; a record already in another thread, or absent, is
  // left as it is.
  Status JoinThread(const std::string& ref, const std::string& thread);
  // Upserts a thread. Empty parent / children in `t` keep the stored ones; a
  // `t` whose `updated` is older than the stored row's changes nothing. When
  // the title is new or changed, the thread's comments, reviews and messages
  // take it (code windows and pages keep their own titles).
  Status PutThread(const Thread& t);
  // Records that thread `child` belongs under `parent` (a sub-issue under
  // its epic), both threads of `source`; rows not stored yet are started.
  Status LinkChildThread(const std::string& source, const std::string& parent, const std::string& child);
  // Replaces the links from chunk `from_ref`.
  Status PutLinks(const std::string& from_ref, const std::vector<Link>& links);
  Status AddLink(const Link& link);
  Status PutSyncState(const SyncState& s);
  Status PutMeta(const std::string& key, const std::string& value);
  // Stores chunk `id`'s vector in `space` (float32, little-endian).
  Status PutEmbedding(int64_t id, const std::string& space, const std::vector<float>& v);
  // Drops every vector of `space` (its model changed).
  Status ClearSpace(const std::string& space);

  // Makes the batch durable. After an error the batch is rolled back.
  Status Commit();

  int64_t changed() const { return changed_; }

 private:
  friend class Corpus;
  explicit WriteBatch(Corpus* c) : corpus_(c) {}
  Corpus* corpus_;
  // Chunks past this id are FTS5-indexed at Commit, in one statement
  // (schema 6's triggers leave them; docs/CORPUS.md); -1: not set yet.
  Status DeferFullText();
  bool done_ = false;
  int64_t changed_ = 0;
  int64_t vectors_changed_ = 0;
  int64_t fts_pending_after_ = -1;
  int64_t chunk_delta_ = 0;  // chunks added less chunks removed
};

// Records that a sync of `source` failed without touching its cursor or its
// data: the stored state, marked (MarkSyncFailure), written in a batch of its
// own. Best effort: the sync's own error is what the caller reports.
void RecordSyncFailure(Corpus& corpus, const std::string& source, const std::string& error, int64_t now);

}  // namespace umwelt

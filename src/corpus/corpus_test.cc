#include "umwelt/corpus.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <set>

#include "corpus/sqlite_util.h"
#include "corpus_fixtures.h"
#include "test_util.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

Chunk Make(const std::string& ref, const std::string& text, const std::string& parent = "o/r#1") {
  Chunk c;
  c.source = "github";
  c.kind = ref == parent ? "issue" : "comment";
  c.ref = ref;
  c.parent = parent;
  c.title = "A title";
  c.author = "alice";
  c.date = "2024-05-01T00:00:00Z";
  c.url = "https://github.com/o/r/issues/1#" + ref;
  c.text = text;
  return c;
}

int64_t FtsCount(Corpus& c, const char* match) {
  sqlite3_stmt* st;
  sqlite3_prepare_v2(c.raw_handle(), "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?1", -1, &st, nullptr);
  sqlite3_bind_text(st, 1, match, -1, SQLITE_TRANSIENT);
  sqlite3_step(st);
  int64_t n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

class CorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok()) << c.status().message();
    corpus_ = std::move(c).value();
  }
  void Put(const std::vector<Chunk>& parts) {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE((*b)->PutRecord(parts).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
};

TEST_F(CorpusTest, UpsertReplacesEditedTextAndReindexesFts) {
  Put({Make("o/r#1/c1", "the original wording")});
  EXPECT_EQ(FtsCount(*corpus_, "original"), 1);
  Put({Make("o/r#1/c1", "an edited wording")});
  auto c = corpus_->ChunkByRef("o/r#1/c1");
  ASSERT_TRUE(c.ok() && c->has_value());
  EXPECT_EQ((*c)->text, "an edited wording");
  EXPECT_EQ(FtsCount(*corpus_, "original"), 0);
  EXPECT_EQ(FtsCount(*corpus_, "edited"), 1);
  auto stats = corpus_->Stats();
  EXPECT_EQ(stats->total_chunks, 1);
}

// The change log lists the chunks each write inserted, deleted or changed,
// and answers only while it still reaches back to the point asked about.
TEST_F(CorpusTest, ChunksByIdKeepTheOrderAskedAndSkipWhatIsGone) {
  Put({Make("o/r#1/c1", "first words")});
  Put({Make("o/r#1/c2", "second words")});
  Put({Make("o/r#1/c3", "third words")});
  auto c1 = corpus_->ChunkByRef("o/r#1/c1"), c3 = corpus_->ChunkByRef("o/r#1/c3");
  ASSERT_TRUE(c1.ok() && *c1 && c3.ok() && *c3);
  int64_t a = (*c1)->id, b = (*c3)->id;
  auto got = corpus_->ChunksById({b, 999999, a, b});
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->size(), 3u);  // the unknown id is skipped, the repeated one repeated
  EXPECT_EQ((*got)[0].text, "third words");
  EXPECT_EQ((*got)[1].text, "first words");
  EXPECT_EQ((*got)[2].text, "third words");
  auto none = corpus_->ChunksById({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(CorpusTest, ChangeLogListsWhatChangedSinceAPoint) {
  auto point = [&] {
    auto p = corpus_->ChangeLogPoint();
    EXPECT_TRUE(p.ok() && p->has_value());
    return p.ok() && *p ? **p : Corpus::LogPoint{-1, -1};
  };
  auto since = [&](Corpus::LogPoint p, size_t limit = 100) {
    auto ids = corpus_->ChangedSince(p, limit);
    EXPECT_TRUE(ids.ok()) << ids.status().message();
    return ids.ok() ? *ids : std::nullopt;
  };
  const Corpus::LogPoint start = point();
  EXPECT_EQ(start.seq, 0);
  Put({Make("o/r#1/c1", "first")});
  Put({Make("o/r#1/c2", "second")});
  const Corpus::LogPoint two = point();
  EXPECT_EQ(since(start), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(since(two), std::vector<int64_t>{});
  Put({Make("o/r#1/c1", "first, edited")});  // the old chunk goes, a new one comes
  int64_t edited = (*corpus_->ChunkByRef("o/r#1/c1"))->id;
  EXPECT_EQ(since(two), (std::vector<int64_t>{1, edited}));
  {  // a new vector is a change too (the vector files read it)
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutEmbedding(2, "s", {1.0f, 0.0f}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  EXPECT_EQ(since(two), (std::vector<int64_t>{1, 2, edited}));
  EXPECT_EQ(since(start, 4), std::nullopt);                            // more changes than asked for
  EXPECT_EQ(since({two.seq, two.id + 1}), std::nullopt);              // not this log's point
  EXPECT_EQ(since({two.seq + 100, 0}), std::nullopt);                 // past its end
  ASSERT_EQ(sqlite3_exec(corpus_->raw_handle(), "DELETE FROM chunk_log WHERE seq <= 1", nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_EQ(since(start), std::nullopt);  // trimmed past the point
  EXPECT_EQ(since(two), (std::vector<int64_t>{1, 2, edited}));
}

TEST_F(CorpusTest, ChunksToEmbedAreReadOnceInIdOrderSkippingOtherSourcesAndDoneOnes) {
  for (int i = 1; i <= 9; ++i) {
    Chunk c = Make("o/r#1/c" + std::to_string(i), "text " + std::to_string(i));
    if (i % 3 == 0) c.source = "code";  // not this space's
    Put({c});
  }
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutEmbedding(2, "s", {1.0f, 0.0f}).ok());      // done
    ASSERT_TRUE((*b)->PutEmbedding(4, "other", {1.0f, 0.0f}).ok());  // another space's: to do again
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto github = [](std::string_view source) { return source == "github"; };
  std::vector<int64_t> seen;
  std::vector<size_t> sizes;
  int64_t scanned = 0;
  for (int call = 0; call < 10; ++call) {
    auto next = corpus_->NextToEmbed("s", scanned, 2, github, &scanned);
    ASSERT_TRUE(next.ok()) << next.status().message();
    sizes.push_back(next->size());
    for (const auto& c : *next) {
      seen.push_back(c.id);
      EXPECT_EQ(c.text, "text " + std::to_string(c.id));
      EXPECT_EQ(c.title, "A title");
    }
    if (next->size() < 2) break;
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 4, 5, 7, 8}));
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
  EXPECT_EQ(scanned, 9);  // the last row was read, though skipped
  EXPECT_EQ(corpus_->MaxChunkId().value(), 9);
  auto none = corpus_->NextToEmbed("s", 9, 2, github, &scanned);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(scanned, 9);
}

TEST_F(CorpusTest, SameRecordTwiceChangesNothing) {
  auto b = corpus_->BeginWrite();
  ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c1", "x")}).value());
  ASSERT_TRUE((*b)->Commit().ok());
  auto gen1 = corpus_->GetMeta("generation").value();
  auto b2 = corpus_->BeginWrite();
  EXPECT_FALSE((*b2)->PutRecord({Make("o/r#1/c1", "x")}).value());
  ASSERT_TRUE((*b2)->Commit().ok());
  EXPECT_EQ(corpus_->GetMeta("generation").value(), gen1);
}

TEST_F(CorpusTest, LongBodiesSplitIntoPartsAndShrinkCleanly) {
  std::string para(1500, 'a');
  std::string text = para + "\n\n" + para + "\n\n" + para + "\n\n" + para;
  auto parts = SplitIntoParts(Make("o/r#1", text, "o/r#1"));
  ASSERT_GE(parts.size(), 2u);
  EXPECT_EQ(parts[0].ref, "o/r#1:p0");
  for (const auto& p : parts) {
    EXPECT_LE(p.text.size(), 4000u);
    EXPECT_EQ(p.url, parts[0].url);
    EXPECT_EQ(p.n_parts, static_cast<int>(parts.size()));
  }
  Put(parts);
  EXPECT_EQ(corpus_->Stats()->total_chunks, static_cast<int64_t>(parts.size()));
  Put({Make("o/r#1", "now short", "o/r#1")});  // the old parts go
  EXPECT_EQ(corpus_->Stats()->total_chunks, 1);
  auto thread = corpus_->ThreadChunks("o/r#1");
  ASSERT_EQ(thread->size(), 1u);
  EXPECT_EQ((*thread)[0].text, "now short");
}

TEST_F(CorpusTest, LinksFromLongRecordsAndFromOtherSourcesAreFound) {
  std::string para(1500, 'a');
  Put(SplitIntoParts(Make("o/r#1/c9", para + "\n\n" + para + "\n\n" + para + "\n\nsee #2")));
  Chunk msg = Make("discord:1/2/3", "about #2");
  msg.source = "discord";
  msg.kind = "message";
  msg.parent = "discord:1/2";
  msg.url = "https://discord.com/channels/1/2/3";
  Put({msg});
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutLinks("o/r#1/c9", FindLinks("o/r#1/c9", "see #2", "o/r")).ok());
    ASSERT_TRUE((*b)->PutLinks("discord:1/2/3", FindLinks("discord:1/2/3", "about #2", "o/r")).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto from = corpus_->LinkedFrom("o/r#2");
  ASSERT_TRUE(from.ok());
  ASSERT_EQ(from->size(), 2u);
  std::set<std::string> sources = {(*from)[0].source, (*from)[1].source};
  EXPECT_EQ(sources, (std::set<std::string>{"github", "discord"}));
}

TEST(CorpusLinks, FindLinksAcrossSources) {
  auto links = FindLinks("x", "#5, o/r#6, https://github.com/a/b/pull/7, https://discord.com/channels/1/2/3, "
                              "https://wandb.ai/e/p/runs/r1?workspace=u, (https://arxiv.org/abs/2401.1), "
                              "https://github.com/a/b/blob/main/x.py, https://en.wikipedia.org/wiki/A_(b).",
                         "o/r", "o/r#6");
  std::vector<std::string> to;
  for (const auto& l : links) to.push_back(l.to_ref);
  EXPECT_EQ(to, (std::vector<std::string>{"o/r#5", "a/b#7", "discord:1/2", "wandb:e/p/r1", "web:https://arxiv.org/abs/2401.1",
                                          "web:https://en.wikipedia.org/wiki/A_(b)"}));
  EXPECT_TRUE(FindLinks("x", "#5", "").empty());  // a bare #N needs a repository
}

TEST_F(CorpusTest, DeleteRemovesRecordAndLinks) {
  Put({Make("o/r#1/c1", "mentions #2")});
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->AddLink({"o/r#1/c1", "o/r#2"}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  EXPECT_EQ(corpus_->Stats()->links, 1);
  auto b = corpus_->BeginWrite();
  ASSERT_TRUE((*b)->DeleteRecord("o/r#1/c1").ok());
  ASSERT_TRUE((*b)->Commit().ok());
  EXPECT_EQ(corpus_->Stats()->total_chunks, 0);
  EXPECT_EQ(corpus_->Stats()->links, 0);
  EXPECT_EQ(FtsCount(*corpus_, "mentions"), 0);
}

TEST_F(CorpusTest, UncommittedBatchRollsBack) {
  Put({Make("o/r#1/c1", "kept")});
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c2", "lost")}).ok());
    ASSERT_TRUE((*b)->DeleteRecord("o/r#1/c1").ok());
  }  // destroyed without Commit
  EXPECT_EQ(corpus_->Stats()->total_chunks, 1);
  EXPECT_TRUE(corpus_->ChunkByRef("o/r#1/c1")->has_value());
  EXPECT_TRUE(corpus_->BeginWrite().ok());  // and a new batch can start
}

TEST_F(CorpusTest, ThreadUpsertKeepsRelationsAndMergedState) {
  auto b = corpus_->BeginWrite();
  Thread pr;
  pr.ref = "o/r#5";
  pr.kind = "pr";
  pr.state = "merged";
  pr.merged = "2024-01-02T00:00:00Z";
  ASSERT_TRUE((*b)->PutThread(pr).ok());
  ASSERT_TRUE((*b)->LinkChildThread("github", "o/r#1", "o/r#5").ok());
  ASSERT_TRUE((*b)->LinkChildThread("github", "o/r#1", "o/r#5").ok());  // idempotent
  Thread again = pr;
  again.title = "renamed";
  ASSERT_TRUE((*b)->PutThread(again).ok());
  ASSERT_TRUE((*b)->Commit().ok());
  auto t = corpus_->GetThread("o/r#5").value();
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->title, "renamed");
  EXPECT_EQ(t->parent, "o/r#1");
  auto parent = corpus_->GetThread("o/r#1").value();
  ASSERT_TRUE(parent.has_value());
  EXPECT_EQ(parent->children, std::vector<std::string>{"o/r#5"});
}

// A renamed thread retitles the chunks its source says carry its title, and
// no others: a thread that names no such kinds keeps its chunks' titles.
TEST_F(CorpusTest, RenamedThreadRetitlesTheKindsItsSourceNames) {
  auto put = [&](const Thread& t, const std::vector<Chunk>& chunks) {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutThread(t).ok());
    for (const auto& c : chunks) ASSERT_TRUE((*b)->PutRecord({c}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  };
  auto chunk = [](const std::string& ref, const std::string& parent, const std::string& kind) {
    Chunk c = testing::GithubChunk(ref, parent, kind, "https://github.com/o/r/issues/7#" + ref, "text of " + ref);
    c.title = "old";
    return c;
  };
  Thread issue;
  issue.ref = "o/r#7";
  issue.source = "github";
  issue.kind = "issue";
  issue.title = "old";
  issue.titled_kinds = {"comment"};
  put(issue, {chunk("o/r#7/c1", "o/r#7", "comment"), chunk("o/r#7/x1", "o/r#7", "commit")});
  Thread other = issue;
  other.ref = "o/r#8";
  other.titled_kinds.clear();
  put(other, {chunk("o/r#8/c1", "o/r#8", "comment")});
  issue.title = "new";
  other.title = "new";
  put(issue, {});
  put(other, {});
  EXPECT_EQ((*corpus_->ChunkByRef("o/r#7/c1"))->title, "new");
  EXPECT_EQ((*corpus_->ChunkByRef("o/r#7/x1"))->title, "old");  // not a kind the source named
  EXPECT_EQ((*corpus_->ChunkByRef("o/r#8/c1"))->title, "old");  // its source named none
}

TEST(CorpusOpen, RejectsAFileThatIsNotSqlite) {
  testing::TempDir dir;
  testing::WriteFile(dir.File("notes.db"), std::string(4096, 'x'));
  auto c = Corpus::Open(dir.File("notes.db"), Corpus::Mode::kReadWrite);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("notes.db"), std::string::npos);
  EXPECT_NE(c.status().message().find("not an SQLite database"), std::string::npos);
  EXPECT_EQ(testing::ReadFileOrEmpty(dir.File("notes.db")), std::string(4096, 'x'));  // untouched
}

TEST(CorpusOpen, RejectsANewerSchemaVersionAndKeepsData) {
  testing::TempDir dir;
  std::string path = dir.File("future.db");
  {
    auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c1", "precious")}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
    ASSERT_EQ(sqlite3_exec((*c)->raw_handle(), "UPDATE meta SET value='99' WHERE key='schema_version'",
                           nullptr, nullptr, nullptr), SQLITE_OK);
  }
  for (auto mode : {Corpus::Mode::kReadWrite, Corpus::Mode::kReadOnly}) {
    auto c = Corpus::Open(path, mode);
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.status().message().find("schema_version 99"), std::string::npos) << c.status().message();
    EXPECT_EQ(c.status().code(), Code::kUnsupported);
  }
  sqlite3* db;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st;
  sqlite3_prepare_v2(db, "SELECT text FROM chunks", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "precious");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(CorpusOpen, ReadOnlyMissingFileSaysSo) {
  auto c = Corpus::Open("/nonexistent/dir/c.db", Corpus::Mode::kReadOnly);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kNotFound);
}

TEST(CorpusSchema, MatchesTheReferenceCore) {
  testing::TempDir dir;
  auto c = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok());
  sqlite3* db = (*c)->raw_handle();
  auto columns = [&](const char* table) {
    std::vector<std::string> cols;
    sqlite3_stmt* st;
    sqlite3_prepare_v2(db, (std::string("SELECT name FROM pragma_table_info('") + table + "')").c_str(), -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) cols.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    return cols;
  };
  // The reference core's columns, in its order; umwelt's own follow them.
  EXPECT_EQ(columns("chunks"),
            (std::vector<std::string>{"id", "source", "kind", "ref", "parent", "title", "author", "date",
                                      "url", "text", "part", "n_parts", "syms", "embed_space", "embedding", "facts"}));
  EXPECT_EQ(columns("meta"), (std::vector<std::string>{"key", "value"}));
  EXPECT_EQ(columns("chunks_fts"), (std::vector<std::string>{"text", "title", "syms"}));
  EXPECT_EQ((*c)->GetMeta("schema_version").value(), std::to_string(kSchemaVersion));
  EXPECT_TRUE((*c)->native());
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 15: one way to record how a sync ended, whichever source ran it.
TEST(SyncOutcome, FailuresKeepTheCursorAndTheirFirstTimeSuccessClearsThem) {
  testing::TempDir dir;
  auto corpus = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(corpus.ok());
  SyncState s{"github:a/b", "cursor-1", "", "", ""};
  MarkSyncSuccess(&s, 1000);
  {
    auto b = (*corpus)->BeginWrite();
    ASSERT_TRUE((*b)->PutSyncState(s).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  RecordSyncFailure(**corpus, "github:a/b", "HTTP 502", 2000);
  RecordSyncFailure(**corpus, "github:a/b", "HTTP 503", 3000);
  auto stored = (*corpus)->GetSyncState("github:a/b");
  ASSERT_TRUE(stored.ok() && *stored);
  EXPECT_EQ((*stored)->cursor, "cursor-1");
  EXPECT_EQ((*stored)->last_success, FormatIsoTime(1000));
  EXPECT_EQ((*stored)->last_error, "HTTP 503");
  EXPECT_EQ((*stored)->error_since, FormatIsoTime(2000));  // when the run of failures began
  SyncState again = **stored;
  MarkSyncSuccess(&again, 4000);
  EXPECT_EQ(again.last_success, FormatIsoTime(4000));
  EXPECT_TRUE(again.last_error.empty());
  EXPECT_TRUE(again.error_since.empty());
  // A source never synced gets a row of its own.
  RecordSyncFailure(**corpus, "wandb:e/p", "the API key was refused", 5000);
  EXPECT_EQ((*(*corpus)->GetSyncState("wandb:e/p"))->error_since, FormatIsoTime(5000));
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Rewrites a corpus file behind umwelt's back, as an older version left it.
void Downgrade(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  std::string error = sqlite3_errmsg(db);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << error;
}

// Schema 3 adds threads.facts: a schema-2 file reads (read-only, unmigrated)
// and migrates on the first write, its W&B cursors reset so the next sync
// fills in the runs' facts.
TEST(CorpusSchema, Version2ReadsThenMigratesToFacts) {
  testing::TempDir dir;
  std::string path = dir.File("c.db");
  {
    auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto b = (*c)->BeginWrite();
    Thread t;
    t.ref = "wandb:e/p/r1";
    t.source = "wandb";
    t.kind = "run";
    t.title = "r1";
    t.facts = R"({"name":"r1"})";
    ASSERT_TRUE((*b)->PutThread(t).ok());
    ASSERT_TRUE((*b)->PutSyncState({"wandb:e/p", "2026-11-01T00:00:00Z", "", "", ""}).ok());
    ASSERT_TRUE((*b)->PutSyncState({"github:o/r", "{\"issues\":{}}", "", "", ""}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
    EXPECT_EQ((*(*c)->GetThread("wandb:e/p/r1"))->facts, R"({"name":"r1"})");
  }
  ASSERT_NO_FATAL_FAILURE(Downgrade(path,
                                    "ALTER TABLE threads DROP COLUMN facts; ALTER TABLE chunks DROP COLUMN facts;"
                                    " UPDATE meta SET value='2' WHERE key='schema_version';"));
  {
    auto c = Corpus::Open(path, Corpus::Mode::kReadOnly);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto t = (*c)->GetThread("wandb:e/p/r1");
    ASSERT_TRUE(t.ok() && *t) << t.status().message();
    EXPECT_EQ((*t)->title, "r1");
    EXPECT_EQ((*t)->facts, "");
  }
  auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)->GetMeta("schema_version").value(), std::to_string(kSchemaVersion));
  EXPECT_EQ((*(*c)->GetSyncState("wandb:e/p"))->cursor, "");
  EXPECT_EQ((*(*c)->GetSyncState("github:o/r"))->cursor, "{\"issues\":{}}");
  auto b = (*c)->BeginWrite();
  Thread t = **(*c)->GetThread("wandb:e/p/r1");
  t.facts = R"({"name":"r1","config":{}})";
  ASSERT_TRUE((*b)->PutThread(t).ok());
  ASSERT_TRUE((*b)->Commit().ok());
  EXPECT_EQ((*(*c)->GetThread("wandb:e/p/r1"))->facts, R"({"name":"r1","config":{}})");
}

// Schema 4 adds chunks.facts: a schema-3 file reads its chunks (read-only,
// unmigrated, no facts) and migrates on the first write, its git cursors
// reset so the next sync fills in the commits' sizes; a record whose facts
// change is rewritten.
TEST(CorpusSchema, Version3ReadsThenMigratesToChunkFacts) {
  testing::TempDir dir;
  std::string path = dir.File("c.db");
  Chunk ch;
  ch.source = "git";
  ch.kind = "commit";
  ch.ref = "o/r/commit/abc";
  ch.parent = ch.ref;
  ch.title = "Fix it";
  ch.text = "Fix it";
  ch.date = "2026-11-02T00:00:00Z";
  {
    auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({ch}).ok());
    ASSERT_TRUE((*b)->PutSyncState({"git:o/r", "{\"head\":\"abc\"}", "", "", ""}).ok());
    ASSERT_TRUE((*b)->PutSyncState({"github:o/r", "{\"issues\":{}}", "", "", ""}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  ASSERT_NO_FATAL_FAILURE(
      Downgrade(path, "ALTER TABLE chunks DROP COLUMN facts; UPDATE meta SET value='3' WHERE key='schema_version';"));
  {
    auto c = Corpus::Open(path, Corpus::Mode::kReadOnly);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto got = (*c)->ChunkByRef(ch.ref);
    ASSERT_TRUE(got.ok() && *got) << got.status().message();
    EXPECT_EQ((*got)->title, "Fix it");
    EXPECT_EQ((*got)->facts, "");
  }
  auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)->GetMeta("schema_version").value(), std::to_string(kSchemaVersion));
  EXPECT_EQ((*(*c)->GetSyncState("git:o/r"))->cursor, "");
  EXPECT_EQ((*(*c)->GetSyncState("github:o/r"))->cursor, "{\"issues\":{}}");
  ch.facts = ChangeFacts({3, 25, 66});
  auto b = (*c)->BeginWrite();
  auto put = (*b)->PutRecord({ch});
  ASSERT_TRUE(put.ok());
  EXPECT_TRUE(*put);  // the same record with facts is a change
  ASSERT_TRUE((*b)->Commit().ok());
  auto got = (*c)->ChunkByRef(ch.ref);
  ASSERT_TRUE(got.ok() && *got);
  auto size = ChangeOf((*got)->facts);
  ASSERT_TRUE(size.has_value()) << (*got)->facts;
  EXPECT_EQ(size->files, 3);
  EXPECT_EQ(size->added, 25);
  EXPECT_EQ(size->removed, 66);
}

// Facts come from a file anyone may have written: anything but a size of
// non-negative integers is no size.
TEST(CorpusFacts, ChangeOfReadsOnlyAWholeSize) {
  EXPECT_EQ(ChangeOf(ChangeFacts({1, 2, 3}))->removed, 3);
  for (const char* bad : {"", "not json", "[]", "{}", R"({"changed": 3})", R"({"changed": {"files": 1, "added": 2}})",
                          R"({"changed": {"files": 1, "added": 2, "removed": "3"}})",
                          R"({"changed": {"files": -1, "added": 2, "removed": 3}})",
                          R"({"changed": {"files": 1.5, "added": 2, "removed": 3}})",
                          R"({"changed": {"files": 18446744073709551615, "added": 2, "removed": 3}})"}) {
    EXPECT_FALSE(ChangeOf(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

int64_t Count(sqlite3* db, const char* sql) {
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
  int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return n;
}

// FTS5's external-content check: the index holds exactly the rows of chunks.
bool FtsIntact(sqlite3* db) {
  return sqlite3_exec(db, "INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')", nullptr, nullptr, nullptr) ==
         SQLITE_OK;
}

// A batch's new chunks reach the full-text index when it commits, in one
// statement; chunks stored before it are kept in step by the triggers. Any
// mix of adding, replacing and deleting leaves the index exactly the table.
TEST_F(CorpusTest, ABatchIndexesItsNewChunksWhenItCommits) {
  sqlite3* db = corpus_->raw_handle();
  Put({Make("o/r#1/c1", "an older wording of zebras")});
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c2", "giraffes arrive")}).ok());
    ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c1", "a newer wording of okapis")}).ok());
    ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c3", "lemurs for a moment")}).ok());
    ASSERT_TRUE((*b)->DeleteRecord("o/r#1/c3").ok());
    ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c2", "giraffes leave")}).ok());
    // Not yet: the batch indexes them when it commits.
    EXPECT_EQ(FtsCount(*corpus_, "giraffes"), 0);
    EXPECT_EQ(FtsCount(*corpus_, "zebras"), 0);  // a stored chunk's replacement left the index at once
    ASSERT_TRUE((*b)->Commit().ok());
  }
  EXPECT_EQ(FtsCount(*corpus_, "giraffes"), 1);
  EXPECT_EQ(FtsCount(*corpus_, "leave"), 1);
  EXPECT_EQ(FtsCount(*corpus_, "arrive"), 0);
  EXPECT_EQ(FtsCount(*corpus_, "okapis"), 1);
  EXPECT_EQ(FtsCount(*corpus_, "zebras OR lemurs"), 0);
  EXPECT_TRUE(FtsIntact(db)) << sqlite3_errmsg(db);
  EXPECT_EQ(corpus_->GetMeta("fts_pending_after").value(), "");
  // Rolled back: neither the chunks nor the mark stay.
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c4", "pangolins")}).ok());
  }
  EXPECT_EQ(FtsCount(*corpus_, "pangolins"), 0);
  EXPECT_EQ(corpus_->GetMeta("fts_pending_after").value(), "");
  EXPECT_TRUE(FtsIntact(db));
  // Another writer (no mark in its transaction) is indexed row by row.
  ASSERT_EQ(sqlite3_exec(db,
                         "INSERT INTO chunks(source, kind, ref, parent, text) VALUES "
                         "('github', 'comment', 'o/r#1/c9', 'o/r#1', 'wombats')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_EQ(FtsCount(*corpus_, "wombats"), 1);
  EXPECT_TRUE(FtsIntact(db));
}

// meta.chunks is kept by what each batch adds and removes, not by counting
// the table at every commit.
TEST_F(CorpusTest, TheChunkCountFollowsEveryBatch) {
  sqlite3* db = corpus_->raw_handle();
  std::vector<Chunk> parts;
  for (int i = 0; i < 3; ++i) {
    parts.push_back(Make("o/r#1/c1:p" + std::to_string(i), "part " + std::to_string(i)));
    parts.back().part = i;
    parts.back().n_parts = 3;
  }
  Put(parts);
  Put({Make("o/r#1/c2", "two")});
  EXPECT_EQ(corpus_->GetMeta("chunks").value(), "4");
  parts.resize(1);
  parts[0].n_parts = 1;
  Put(parts);  // three parts become one
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->DeleteRecord("o/r#1/c2").ok());
    ASSERT_TRUE((*b)->DeleteRecord("o/r#1/absent").ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  EXPECT_EQ(corpus_->GetMeta("chunks").value(), "1");
  EXPECT_EQ(Count(db, "SELECT count(*) FROM chunks"), 1);
  // A file without the count (another writer's) is counted once.
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM meta WHERE key='chunks'", nullptr, nullptr, nullptr), SQLITE_OK);
  Put({Make("o/r#1/c3", "three")});
  EXPECT_EQ(corpus_->GetMeta("chunks").value(), "2");
}

// A corpus file an umwelt of schema 5 wrote (its triggers index every row)
// passes the downloaded-file check, and its first write migrates it.
TEST(CorpusSchema, Version5TriggersPassTheCheckAndMigrate) {
  testing::TempDir dir;
  std::string path = dir.File("v5.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_TRUE(corpus_internal::CreateOrMigrate(db, path, 5).ok());
    ASSERT_EQ(sqlite3_exec(db,
                           "PRAGMA journal_mode=WAL; INSERT INTO chunks(source, kind, ref, parent, text) VALUES "
                           "('github', 'comment', 'o/r#1/c1', 'o/r#1', 'aardvarks')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(Count(db, "SELECT value FROM meta WHERE key='schema_version'"), 5);
    EXPECT_EQ(Count(db, "SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%fts_pending_after%'"), 0);
    sqlite3_close(db);
  }
  EXPECT_TRUE(CheckForeignCorpus(path, std::chrono::seconds(10)).ok());
  {
    // A trigger of no version's text is still refused.
    testing::TempDir other;
    std::string copy = other.File("odd.db");
    std::filesystem::copy_file(path, copy);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(copy.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "DROP TRIGGER chunks_ai; CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN "
                           "DELETE FROM threads; END;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    auto odd = CheckForeignCorpus(copy, std::chrono::seconds(10));
    ASSERT_FALSE(odd.ok());
    EXPECT_NE(odd.message().find("a trigger that is not this umwelt's (chunks_ai)"), std::string::npos) << odd.message();
  }
  auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)->GetMeta("schema_version").value(), std::to_string(kSchemaVersion));
  auto b = (*c)->BeginWrite();
  ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/c2", "anteaters")}).ok());
  ASSERT_TRUE((*b)->Commit().ok());
  EXPECT_EQ(FtsCount(**c, "aardvarks OR anteaters"), 2);
  EXPECT_TRUE(FtsIntact((*c)->raw_handle()));
}

// A writer sets FTS5 to merge sixteen segments at a time (sixty-four at
// once), on its own files and on another program's, which kept the
// defaults; the index stays whole and answers as before.
TEST(CorpusOpen, AWriterMergesTheFullTextIndexSixteenSegmentsAtATime) {
  testing::TempDir dir;
  std::string path = dir.File("other.db");
  const char* settings =
      "SELECT group_concat(k || '=' || v, ',') FROM (SELECT k, v FROM chunks_fts_config "
      "WHERE k IN ('automerge', 'crisismerge') ORDER BY k)";
  auto read = [&](sqlite3* db) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, settings, -1, &st, nullptr);
    std::string out = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)
                          ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0))
                          : "";
    sqlite3_finalize(st);
    return out;
  };
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_TRUE(corpus_internal::CreateOrMigrate(db, path).ok());
    ASSERT_EQ(sqlite3_exec(db,
                           "INSERT INTO chunks(source, kind, ref, parent, text) VALUES "
                           "('github', 'comment', 'o/r#1/c1', 'o/r#1', 'aardvarks')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(read(db), "");  // FTS5's defaults: 4 and 16
    sqlite3_close(db);
  }
  {
    auto reader = Corpus::Open(path, Corpus::Mode::kReadOnly);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ(read((*reader)->raw_handle()), "");  // a reader changes nothing
  }
  auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(read((*c)->raw_handle()), "automerge=16,crisismerge=64");
  for (int i = 0; i < 40; ++i) {
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({Make("o/r#1/n" + std::to_string(i), "anteaters number " + std::to_string(i))}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  EXPECT_EQ(FtsCount(**c, "aardvarks OR anteaters"), 41);
  EXPECT_TRUE(FtsIntact((*c)->raw_handle()));
  c->reset();
  auto fresh = Corpus::Open(dir.File("fresh.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(read((*fresh)->raw_handle()), "automerge=16,crisismerge=64");
}

}  // namespace
}  // namespace umwelt

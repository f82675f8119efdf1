#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>
#include <set>

#include "example_project.h"
#include "index/index_format.h"
#include "test_util.h"
#include "umwelt/search.h"

namespace umwelt {
namespace {

struct Doc {
  std::string ref, kind, title, text, date, author = "alice", url = "";
};

class KeywordTest : public ::testing::Test {
 protected:
  void Load(const std::vector<Doc>& docs) {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
    auto b = corpus_->BeginWrite();
    for (const auto& d : docs) {
      Chunk c;
      c.source = d.kind == "message" ? "discord" : "github";
      c.kind = d.kind;
      c.ref = d.ref;
      c.parent = d.ref;
      c.title = d.title;
      c.text = d.text;
      c.date = d.date;
      c.author = d.author;
      c.url = d.url.empty() ? "https://x/" + d.ref : d.url;
      ASSERT_TRUE((*b)->PutRecord({c}).ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
    auto idx = KeywordIndex::Open(*corpus_);
    ASSERT_TRUE(idx.ok()) << idx.status().message();
    index_ = std::move(idx).value();
  }
  std::vector<std::string> Refs(const SearchOptions& o) {
    auto hits = Search(*corpus_, *index_, o);
    EXPECT_TRUE(hits.ok()) << hits.status().message();
    std::vector<std::string> out;
    if (hits.ok()) for (auto& h : *hits) out.push_back(h.ref);
    return out;
  }
  // One comment chunk, written in a batch of its own.
  void PutComment(const std::string& ref, const std::string& text) {
    auto b = corpus_->BeginWrite();
    Chunk c;
    c.source = "github";
    c.kind = "comment";
    c.ref = ref;
    c.parent = ref;
    c.text = text;
    c.url = "https://x/" + ref;
    ASSERT_TRUE((*b)->PutRecord({c}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
  std::unique_ptr<KeywordIndex> index_;
};

// `n` chunks r100, r101, ... of six words in pairs, every third an issue
// with a title; `extra` is appended to the text of chunk i.
std::vector<Doc> NumberedDocs(int n, const std::function<std::string(int)>& extra = nullptr) {
  std::vector<Doc> docs;
  const char* words[] = {"checkpoint", "tokenizer", "gradient", "throughput", "scheduler", "z-loss"};
  for (int i = 0; i < n; ++i) {
    docs.push_back({"r" + std::to_string(100 + i), i % 3 ? "comment" : "issue", i % 3 ? "" : "Title " + std::string(words[i % 6]),
                    std::string(words[i % 6]) + " and " + words[(i + 1) % 6] + " in chunk number " + std::to_string(i) +
                        (extra ? extra(i) : ""),
                    "2024-01-" + std::to_string(10 + i % 20), i % 2 ? "alice" : "bob"});
  }
  return docs;
}

TEST_F(KeywordTest, RanksByBm25WithTitleWeight) {
  Load({{"a", "issue", "Checkpoint loading is slow", "we should look at it", "2024-01-01"},
        {"b", "comment", "", "checkpoint checkpoint mentioned twice in a long comment about many other things entirely", "2024-01-02"},
        {"c", "comment", "", "nothing relevant here", "2024-01-03"}});
  auto refs = Refs({.query = "checkpoint"});
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0], "a");  // the title match wins
}

TEST_F(KeywordTest, ExactWordsRankStrictlyAboveIdentifierExpansion) {
  Load({{"exact", "comment", "", "the max score was low", "2024-01-01"},
        {"ident", "comment", "", "MaxScore MaxScore MaxScore pruning code", "2024-01-02"},
        {"snake", "comment", "", "see flop_utils for details", "2024-01-03"}});
  auto refs = Refs({.query = "max score"});
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0], "exact");
  EXPECT_EQ(refs[1], "ident");  // found through syms, below the exact hit
  auto hits = Search(*corpus_, *index_, {.query = "max score"});
  EXPECT_EQ((*hits)[0].via, std::vector<std::string>{"keyword"});
  EXPECT_EQ((*hits)[1].via, std::vector<std::string>{"keyword-expanded"});
  // A camelCase query matches the identifier exactly and, through its parts,
  // the words apart — strictly below.
  EXPECT_EQ(Refs({.query = "maxScore"}), (std::vector<std::string>{"ident", "exact"}));
  EXPECT_EQ(Refs({.query = "flop_utils"}), std::vector<std::string>{"snake"});
  EXPECT_EQ(Refs({.query = "flop"}), std::vector<std::string>{"snake"});
}

TEST_F(KeywordTest, FiltersAndOneHitPerUrl) {
  Load({{"g1", "issue", "", "tokenizer bug", "2024-01-01", "alice"},
        {"g2", "comment", "", "tokenizer fix", "2024-02-15", "bob"},
        {"d1", "message", "", "tokenizer chat", "2024-03-01", "carol"},
        {"p0", "issue", "", "tokenizer part one", "2024-04-01", "dan", "https://x/shared"},
        {"p1", "issue", "", "tokenizer part two tokenizer", "2024-04-01", "dan", "https://x/shared"}});
  EXPECT_EQ(Refs({.query = "tokenizer", .sources = {"discord"}}), std::vector<std::string>{"d1"});
  EXPECT_EQ(Refs({.query = "tokenizer", .kinds = {"comment"}}), std::vector<std::string>{"g2"});
  EXPECT_EQ(Refs({.query = "tokenizer", .author = "bob"}), std::vector<std::string>{"g2"});
  EXPECT_TRUE(Refs({.query = "tokenizer", .author = "nobody"}).empty());
  auto window = Refs({.query = "tokenizer", .since = "2024-02-01", .until = "2024-03-01"});
  std::sort(window.begin(), window.end());
  EXPECT_EQ(window, (std::vector<std::string>{"d1", "g2"}));
  auto all = Refs({.query = "tokenizer"});
  EXPECT_EQ(all.size(), 4u);  // p0 and p1 share a url
  EXPECT_EQ(Refs({.query = "tokenizer", .k = 2}).size(), 2u);
}

TEST_F(KeywordTest, BadQueriesGetClearErrors) {
  Load({{"a", "issue", "", "text", "2024-01-01"}});
  for (const char* q : {"", "   ", "!!! ??? ..."}) {
    auto r = Search(*corpus_, *index_, {.query = q});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("no searchable words"), std::string::npos);
  }
  auto bad_date = Search(*corpus_, *index_, {.query = "text", .since = "last tuesday"});
  ASSERT_FALSE(bad_date.ok());
  EXPECT_NE(bad_date.status().message().find("since must be an ISO-8601 date"), std::string::npos);
  std::string huge(100000, 'a');
  for (size_t i = 50; i < huge.size(); i += 51) huge[i] = ' ';
  EXPECT_TRUE(Search(*corpus_, *index_, {.query = huge}).ok());
}

// The build keeps postings varint-coded: counts past a byte, saturated
// counts and gaps of thousands of documents come back as they went in.
TEST_F(KeywordTest, LargeCountsAndGapsSurviveTheBuild) {
  std::vector<Doc> docs;
  std::string flood;
  for (int i = 0; i < 70000; ++i) flood += "flood ";
  std::string loud_title;
  for (int i = 0; i < 300; ++i) loud_title += "banner ";
  docs.push_back({"first", "comment", "", "needle once", "2024-01-01", "alice", "https://x/first"});
  docs.push_back({"flooded", "comment", "", flood + "needle", "2024-01-01", "alice", "https://x/flooded"});
  docs.push_back({"titled", "issue", loud_title, "banner and needle", "2024-01-01", "alice", "https://x/titled"});
  for (int i = 0; i < 3000; ++i) {
    docs.push_back({"f" + std::to_string(i), "comment", "", "filler text " + std::to_string(i), "2024-01-02", "bob",
                    "https://x/f" + std::to_string(i)});
  }
  docs.push_back({"last", "comment", "", "needle at the end", "2024-01-03", "alice", "https://x/last"});
  docs.push_back({"quiet", "comment", "", "flood banner", "2024-01-03", "alice", "https://x/quiet"});
  Load(docs);
  auto needles = Refs({.query = "needle"});
  std::sort(needles.begin(), needles.end());
  EXPECT_EQ(needles, (std::vector<std::string>{"first", "flooded", "last", "titled"}));
  EXPECT_EQ(Refs({.query = "flood"}), (std::vector<std::string>{"flooded", "quiet"}));
  EXPECT_EQ(Refs({.query = "banner"}), (std::vector<std::string>{"titled", "quiet"}));
  EXPECT_EQ(Refs({.query = "filler 2999"}).front(), "f2999");
}

// Chunks are tokenized in batches of thousands on other threads and filed
// in document order: each chunk's terms and length land on that chunk in
// every batch, the last (partial) one too.
TEST_F(KeywordTest, EveryBatchOfABuildFilesItsChunksOwnTermsAndLengths) {
  std::vector<Doc> docs;
  const int n = 10000;  // two whole batches and a part
  for (int i = 0; i < n; ++i) {
    std::string pad;
    for (int k = 0; k < i % 5; ++k) pad += " pad";
    docs.push_back({"f" + std::to_string(i), "comment", i % 7 ? "" : "Heading " + std::to_string(i),
                    "filler text " + std::to_string(i) + pad, "2024-01-02", "bob", "https://x/f" + std::to_string(i)});
  }
  Load(docs);
  for (int i : {0, 1, 4095, 4096, 4097, 8191, 8192, 8193, 9999}) {
    EXPECT_EQ(Refs({.query = "filler " + std::to_string(i)}).front(), "f" + std::to_string(i)) << i;
  }
  EXPECT_EQ(Refs({.query = "heading 8197"}).front(), "f8197");  // a title, in the third batch
  // Every chunk holds "filler" once; the shortest (i % 5 == 0) rank first.
  auto top = Refs({.query = "filler", .k = 50});
  ASSERT_EQ(top.size(), 50u);
  for (const auto& ref : top) EXPECT_EQ(std::stoi(ref.substr(1)) % 5, 0) << ref;
  EXPECT_EQ(Refs({.query = "filler", .k = 1000}).size(), 1000u);
}

TEST_F(KeywordTest, SnippetsCenterOnTheMatch) {
  std::string text(600, 'x');  // appended, not `+`: GCC 12 warns falsely (-Warray-bounds) on the temporaries
  text.append(" the needle is here ").append(600, 'y');
  Load({{"a", "comment", "", text, "2024-01-01"}});
  auto hits = Search(*corpus_, *index_, {.query = "needle"});
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_NE((*hits)[0].snippet.find("needle"), std::string::npos);
  EXPECT_LE((*hits)[0].snippet.size(), 260u);
}

TEST_F(KeywordTest, StaleIndexIsRebuiltAfterAWrite) {
  Load({{"a", "issue", "", "alpha", "2024-01-01"}});
  EXPECT_TRUE(Refs({.query = "beta"}).empty());
  auto b = corpus_->BeginWrite();
  Chunk c;
  c.source = "github";
  c.kind = "comment";
  c.ref = "b";
  c.text = "beta";
  c.url = "https://x/b";
  ASSERT_TRUE((*b)->PutRecord({c}).ok());
  ASSERT_TRUE((*b)->Commit().ok());
  auto idx = KeywordIndex::Open(*corpus_);
  ASSERT_TRUE(idx.ok());
  index_ = std::move(idx).value();
  EXPECT_EQ(Refs({.query = "beta"}), std::vector<std::string>{"b"});
}

// A rebuild takes the unchanged chunks' postings from the file it replaces
// and tokenizes the rest: new chunks, replaced ones, one whose title changed
// in place, and one that took a removed chunk's id. The file it writes is
// the one a build from nothing writes, and a damaged base is not trusted.
TEST_F(KeywordTest, RebuildReusesUnchangedChunksAndMatchesABuildFromNothing) {
  Load(NumberedDocs(40));
  const std::string path = KeywordIndex::PathFor(*corpus_);
  auto put = [&](const std::string& ref, const std::string& text) { ASSERT_NO_FATAL_FAILURE(PutComment(ref, text)); };
  put("r105", "replaced wholly: a new word, sesquipedalian");  // a new id
  put("r200", "a fresh chunk about gradient checkpoint");
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->DeleteRecord("r200").ok());  // the highest id, given again next
    ASSERT_TRUE((*b)->DeleteRecord("r110").ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  put("r201", "another chunk entirely, about throughput");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.File("c.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE chunks SET title='Retitled scheduler' WHERE ref='r120'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  KeywordIndex::BuildReport incremental, scratch;
  ASSERT_TRUE(KeywordIndex::Build(*corpus_, path, &incremental).ok());
  ASSERT_TRUE(KeywordIndex::Build(*corpus_, dir_.File("scratch.kwidx"), &scratch).ok());
  EXPECT_EQ(incremental.docs, 40u);
  EXPECT_EQ(scratch.reused, 0u);
  // 40 loaded, 2 gone (r105's old chunk, r110), r120 retitled: 37 unchanged.
  EXPECT_EQ(incremental.reused, 37u);
  std::string built = testing::ReadFileOrEmpty(path);
  ASSERT_FALSE(built.empty());
  EXPECT_TRUE(built == testing::ReadFileOrEmpty(dir_.File("scratch.kwidx")));
  auto idx = KeywordIndex::Open(*corpus_);
  ASSERT_TRUE(idx.ok());
  index_ = std::move(idx).value();
  EXPECT_EQ(Refs({.query = "sesquipedalian"}), std::vector<std::string>{"r105"});
  EXPECT_EQ(Refs({.query = "retitled"}), std::vector<std::string>{"r120"});
  EXPECT_TRUE(Refs({.query = "fresh"}).empty());

  // A base whose postings point past its documents is rebuilt from nothing.
  index_.reset();
  index_internal::Header h;
  std::memcpy(&h, built.data(), sizeof h);
  const uint32_t bad = 1u << 30;
  std::memcpy(built.data() + h.offset[index_internal::kPostDocs], &bad, sizeof bad);
  testing::WriteFile(path, built);
  put("r202", "one more");
  ASSERT_TRUE(KeywordIndex::Build(*corpus_, path, &incremental).ok());
  ASSERT_TRUE(KeywordIndex::Build(*corpus_, dir_.File("scratch.kwidx"), &scratch).ok());
  EXPECT_EQ(incremental.reused, 0u);
  EXPECT_TRUE(testing::ReadFileOrEmpty(path) == testing::ReadFileOrEmpty(dir_.File("scratch.kwidx")));
}

// The chunks changed since the index was built (the corpus's change log
// lists them) go into a small delta segment beside it, and the base's
// copies of changed and deleted chunks are masked: the base file is not
// rewritten, and searches find what a rebuilt index finds.
TEST_F(KeywordTest, ChangesSinceTheIndexAreSearchedInADeltaSegment) {
  // A delta holds at most a sixteenth of the base: room for the changes below.
  Load(NumberedDocs(128, [](int i) { return i == 10 ? " with quixotic" : ""; }));
  const std::string path = KeywordIndex::PathFor(*corpus_);
  const std::string delta = KeywordIndex::DeltaPathFor(path);
  const std::string base_bytes = testing::ReadFileOrEmpty(path);
  ASSERT_FALSE(base_bytes.empty());
  EXPECT_FALSE(std::filesystem::exists(delta));
  auto put = [&](const std::string& ref, const std::string& text) { ASSERT_NO_FATAL_FAILURE(PutComment(ref, text)); };
  auto reopen = [&] {
    index_.reset();
    auto idx = KeywordIndex::Open(*corpus_);
    ASSERT_TRUE(idx.ok()) << idx.status().message();
    index_ = std::move(idx).value();
  };
  auto id_of = [&](const std::string& ref) {
    auto c = corpus_->ChunkByRef(ref);
    return c.ok() && *c ? (**c).id : int64_t{-1};
  };
  const int64_t replaced = id_of("r105");
  put("r105", "replaced wholly: a new word, sesquipedalian, and gradient");
  put("s200", "a fresh chunk about gradient checkpoint");
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->DeleteRecord("r110").ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.File("c.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE chunks SET title='Retitled scheduler' WHERE ref='r120'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  reopen();
  EXPECT_TRUE(testing::ReadFileOrEmpty(path) == base_bytes);  // the base stands
  ASSERT_TRUE(std::filesystem::exists(delta));
  EXPECT_EQ(index_->num_docs(), 128u);  // 128, less r110, r105's old chunk replaced, plus s200
  EXPECT_EQ(Refs({.query = "sesquipedalian"}), std::vector<std::string>{"r105"});
  EXPECT_EQ(Refs({.query = "retitled"}), std::vector<std::string>{"r120"});
  EXPECT_EQ(Refs({.query = "fresh"}), std::vector<std::string>{"s200"});
  EXPECT_TRUE(Refs({.query = "quixotic"}).empty());                 // deleted
  for (const auto& ref : Refs({.query = "number 5", .k = 100})) EXPECT_NE(ref, "r105");  // its old text is masked

  // The same chunks as an index built from nothing, and the pruned ranking
  // is the exhaustive one.
  auto scratch_corpus = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadOnly);
  ASSERT_TRUE(scratch_corpus.ok());
  auto scratch = KeywordIndex::Open(**scratch_corpus, dir_.File("scratch"));
  ASSERT_TRUE(scratch.ok());
  for (const char* q : {"gradient", "checkpoint and", "scheduler title", "z-loss", "chunk number", "tokenizer throughput"}) {
    SearchOptions o{.query = q};
    auto seg = index_->Rank(o, 100), full = (*scratch)->Rank(o, 100), exhaustive = index_->RankExhaustive(o, 100);
    ASSERT_TRUE(seg.ok() && full.ok() && exhaustive.ok()) << q;
    std::set<int64_t> a, b;
    for (const auto& d : *seg) a.insert(d.chunk_id);
    for (const auto& d : *full) b.insert(d.chunk_id);
    EXPECT_EQ(a, b) << q;
    ASSERT_EQ(seg->size(), exhaustive->size()) << q;
    for (size_t i = 0; i < seg->size(); ++i) {
      EXPECT_EQ((*seg)[i].chunk_id, (*exhaustive)[i].chunk_id) << q << " #" << i;
      EXPECT_NEAR((*seg)[i].score, (*exhaustive)[i].score, 1e-4) << q << " #" << i;
    }
    // Top 3 as a merge of two top-3 lists: the first three of the whole.
    auto top3 = index_->Rank(o, 3);
    ASSERT_TRUE(top3.ok());
    ASSERT_EQ(top3->size(), std::min<size_t>(3, seg->size())) << q;
    for (size_t i = 0; i < top3->size(); ++i) EXPECT_EQ((*top3)[i].chunk_id, (*seg)[i].chunk_id) << q;
  }
  // The vector legs' filter: a deleted chunk, and the old version of a
  // replaced one, pass no more; a new one does.
  auto filter = index_->Filter({.query = "x"});
  ASSERT_TRUE(filter.ok());
  EXPECT_GE((*filter)(id_of("s200")), 0);
  EXPECT_GE((*filter)(id_of("r120")), 0);
  EXPECT_NE(replaced, id_of("r105"));
  EXPECT_EQ((*filter)(replaced), -1);
  auto kinds = index_->Filter({.query = "x", .kinds = {"issue"}});
  EXPECT_EQ((*kinds)(id_of("s200")), -1);

  // The next change extends the delta (the base still stands); a second
  // process opens the same files without writing.
  put("s201", "another chunk entirely, about wombats");
  reopen();
  EXPECT_TRUE(testing::ReadFileOrEmpty(path) == base_bytes);
  EXPECT_EQ(Refs({.query = "wombats"}), std::vector<std::string>{"s201"});
  EXPECT_EQ(Refs({.query = "sesquipedalian"}), std::vector<std::string>{"r105"});
  auto mtime = std::filesystem::last_write_time(delta);
  auto again = KeywordIndex::Open(**scratch_corpus);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(std::filesystem::last_write_time(delta), mtime);

  // A delta whose mask is damaged is not trusted: it is written again.
  {
    std::string bytes = testing::ReadFileOrEmpty(delta);
    index_internal::Header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    ASSERT_GT(h.size[index_internal::kMasked], 0u);
    const uint32_t bad = 1u << 30;
    std::memcpy(bytes.data() + h.offset[index_internal::kMasked], &bad, sizeof bad);
    testing::WriteFile(delta, bytes);
  }
  reopen();
  EXPECT_EQ(Refs({.query = "sesquipedalian"}), std::vector<std::string>{"r105"});
  EXPECT_TRUE(Refs({.query = "quixotic"}).empty());

  // Another corpus's log, however its numbers line up, says nothing about
  // this index: rebuilt whole.
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value='0123456789abcdef' WHERE key='corpus_id'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  put("s203", "a chunk about okapis");
  reopen();
  EXPECT_FALSE(testing::ReadFileOrEmpty(path) == base_bytes);
  EXPECT_FALSE(std::filesystem::exists(delta));
  EXPECT_EQ(Refs({.query = "okapis"}), std::vector<std::string>{"s203"});
  const std::string rebuilt = testing::ReadFileOrEmpty(path);
  put("s204", "and one about narwhals");
  reopen();
  EXPECT_TRUE(testing::ReadFileOrEmpty(path) == rebuilt);  // the next change is a delta again
  EXPECT_TRUE(std::filesystem::exists(delta));

  // A log that no longer reaches back to the base's point (trimmed): the
  // index is rebuilt whole, and the delta goes.
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM chunk_log", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  put("s202", "yet another about capybaras");
  reopen();
  EXPECT_FALSE(testing::ReadFileOrEmpty(path) == rebuilt);
  EXPECT_FALSE(std::filesystem::exists(delta));
  EXPECT_EQ(Refs({.query = "narwhals"}), std::vector<std::string>{"s204"});

  // More changes than a sixteenth of the base: rebuilt whole, not a delta.
  const std::string before_many = testing::ReadFileOrEmpty(path);
  {
    auto b = corpus_->BeginWrite();
    for (int i = 0; i < 9; ++i) {
      Chunk c;
      c.source = "github";
      c.kind = "comment";
      c.ref = "m" + std::to_string(i);
      c.parent = c.ref;
      c.text = "many changes at once, about pangolins";
      c.url = "https://x/" + c.ref;
      ASSERT_TRUE((*b)->PutRecord({c}).ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
  }
  reopen();
  EXPECT_FALSE(testing::ReadFileOrEmpty(path) == before_many);
  EXPECT_FALSE(std::filesystem::exists(delta));
  EXPECT_EQ(Refs({.query = "pangolins"}).size(), 9u);
  EXPECT_EQ(Refs({.query = "capybaras"}), std::vector<std::string>{"s202"});
  EXPECT_EQ(Refs({.query = "wombats"}), std::vector<std::string>{"s201"});
  EXPECT_TRUE(Refs({.query = "quixotic"}).empty());
}

// A term whose postings point past the file (a damaged entry in a file of
// the right size) finds nothing; it is never read past the file's end.
TEST_F(KeywordTest, ADamagedTermEntryFindsNothingAndReadsNothingPastTheFile) {
  Load({{"a", "comment", "", "wombats dig burrows", "2024-01-01"}, {"b", "comment", "", "capybaras swim", "2024-01-02"}});
  ASSERT_EQ(Refs({.query = "wombats"}), std::vector<std::string>{"a"});
  const std::string path = KeywordIndex::PathFor(*corpus_);
  index_.reset();
  std::string bytes = testing::ReadFileOrEmpty(path);
  index_internal::Header h;
  ASSERT_GE(bytes.size(), sizeof h);
  std::memcpy(&h, bytes.data(), sizeof h);
  for (uint32_t t = 0; t < h.n_terms; ++t) {
    index_internal::TermEntry e;
    const size_t at = h.offset[index_internal::kTermPostings] + t * sizeof e;
    std::memcpy(&e, bytes.data() + at, sizeof e);
    e.exact_off = e.syms_off = uint64_t{1} << 40;
    std::memcpy(bytes.data() + at, &e, sizeof e);
  }
  testing::WriteFile(path, bytes);
  auto idx = KeywordIndex::Open(*corpus_);
  ASSERT_TRUE(idx.ok()) << idx.status().message();
  index_ = std::move(idx).value();
  EXPECT_TRUE(Refs({.query = "wombats"}).empty());
  EXPECT_TRUE(Refs({.query = "capybaras swim"}).empty());
}

TEST(KeywordIndexFile, CorruptCacheIsRebuilt) {
  testing::TempDir dir;
  auto c = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok());
  std::string path = KeywordIndex::PathFor(**c);
  testing::WriteFile(path, std::string(5000, '\x7f'));
  auto idx = KeywordIndex::Open(**c);
  ASSERT_TRUE(idx.ok()) << idx.status().message();
  EXPECT_EQ((*idx)->num_docs(), 0u);
}

// A file in the reference system's schema: chunks, meta and chunks_fts only.
TEST(ReferenceSchema, OpensReadOnlyAndSearchesWithACachedIndex) {
  testing::TempDir dir;
  std::string path = dir.File("corpus-index.db");
  testing::WriteReferenceCorpus(
      path, "('schema_version','3'),('chunks','2'),('built_at_epoch','1784034137')",
      "('github','comment','marin#5/c1','marin#5','MFU on H100','ann','2026-07-01T00:00:00Z',"
      "'https://github.com/m/m/issues/5#issuecomment-1','we measured 38% MFU on the hero run',0,1,''),"
      "('discord','message','d/1','d','','bo','2026-07-02T00:00:00Z','https://discord.com/channels/1/2/3',"
      "'MFU dropped after the upgrade',0,1,'')");

  auto corpus = Corpus::Open(path, Corpus::Mode::kReadOnly);
  ASSERT_TRUE(corpus.ok()) << corpus.status().message();
  EXPECT_FALSE((*corpus)->native());
  auto idx = KeywordIndex::Open(**corpus, dir.File("cache"));
  ASSERT_TRUE(idx.ok()) << idx.status().message();
  auto hits = Search(**corpus, **idx, {.query = "mfu hero"});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_EQ((*hits)[0].url, "https://github.com/m/m/issues/5#issuecomment-1");
  // The second open finds the cached index instead of rebuilding it.
  std::string cached = KeywordIndex::PathFor(**corpus, dir.File("cache"));
  auto mtime = std::filesystem::last_write_time(cached);
  auto again = KeywordIndex::Open(**corpus, dir.File("cache"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(std::filesystem::last_write_time(cached), mtime);
  EXPECT_FALSE((*corpus)->BeginWrite().ok());
  EXPECT_TRUE((*corpus)->GetThread("marin#5").value() == std::nullopt);
}

TEST(StemWord, StemsPlainWordsAndLeavesIdentifiersAlone) {
  EXPECT_EQ(StemWord("retries"), StemWord("retrying"));
  EXPECT_EQ(StemWord("ranking"), "rank");
  EXPECT_EQ(StemWord("checkpoints"), "checkpoint");
  EXPECT_EQ(StemWord("flop_utils"), "flop_utils");  // an identifier
  EXPECT_EQ(StemWord("v2"), "v2");
  EXPECT_EQ(StemWord("0.238"), "0.238");
  EXPECT_EQ(StemWord("is"), "is");  // too short to stem
  EXPECT_EQ(StemWord("caf\xc3\xa9s"), "caf\xc3\xa9s");  // not ASCII: as written
}

TEST_F(KeywordTest, MatchesOtherFormsOfAWord) {
  Load({{"a", "comment", "", "the job kept retrying after the preemption", "2024-01-01"},
        {"b", "comment", "", "nothing relevant here", "2024-01-02"}});
  EXPECT_EQ(Refs({.query = "retries"}), std::vector<std::string>{"a"});
  auto hits = Search(*corpus_, *index_, {.query = "retries"});
  EXPECT_EQ((*hits)[0].via, std::vector<std::string>{"keyword"});  // a form of the word is an exact match
}

TEST_F(KeywordTest, ALinksSchemeIsNotAWordTheTextSays) {
  Load({{"a", "comment", "", "see https://docs.example.org/tls and HTTP://other.example/x for the details", "2024-01-01"},
        {"b", "comment", "", "put a reverse proxy in front so the UI is served over HTTPS", "2024-01-02"},
        {"c", "comment", "", "plain http is refused; the docs at https://docs.example.org say why", "2024-01-03"}});
  EXPECT_EQ(Refs({.query = "https"}), std::vector<std::string>{"b"});
  EXPECT_EQ(Refs({.query = "http"}), std::vector<std::string>{"c"});
  EXPECT_EQ(Refs({.query = "docs.example.org"}).size(), 2u);  // the rest of a link is still searchable
  EXPECT_EQ(Tokenize("HTTPS://a.b https: http//x"), (std::vector<std::string>{"a", "b", "https", "http", "x"}));
}

TEST_F(KeywordTest, RepeatedQueryWordsWeighMore) {
  // Each chunk matches one of the two words once; the word the query says
  // twice decides.
  Load({{"a", "comment", "", "notes on tokenizer speed", "2024-01-01"},
        {"b", "comment", "", "notes on shuffle speed", "2024-01-02"},
        {"c", "comment", "", "unrelated words entirely", "2024-01-03"}});
  EXPECT_EQ(Refs({.query = "shuffle tokenizer shuffle"})[0], "b");
  EXPECT_EQ(Refs({.query = "tokenizer shuffle tokenizer"})[0], "a");
}

TEST_F(KeywordTest, TitleAndBodyAreFieldsOfTheirOwn) {
  Load({{"title", "issue", "Checkpoint resume", "we should look at this soon", "2024-01-01"},
        {"body", "comment", "", "checkpoint saved", "2024-01-02"}});
  // With the title weighing three body words the title match wins; with the
  // title weighing nothing the short body wins. Both are one index.
  EXPECT_EQ(Refs({.query = "checkpoint"})[0], "title");
  SearchOptions o{.query = "checkpoint"};
  o.tuning.title_weight = 0;
  EXPECT_EQ(Refs(o)[0], "body");
}

TEST(KeywordTuning, ParsesNamedValuesAndNamesTheBadOne) {
  auto t = ParseKeywordTuning("k1=0.9,b=0.4,title=2,prf=10,prf_lambda=0.6");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_DOUBLE_EQ(t->k1, 0.9);
  EXPECT_DOUBLE_EQ(t->b, 0.4);
  EXPECT_DOUBLE_EQ(t->title_weight, 2);
  EXPECT_EQ(t->prf_docs, 10);
  EXPECT_DOUBLE_EQ(t->prf_lambda, 0.6);
  EXPECT_DOUBLE_EQ(t->title_b, KeywordTuning{}.title_b);  // unnamed: the default
  EXPECT_TRUE(ParseKeywordTuning("").ok());
  for (const char* bad : {"k1", "k1=", "k1=x", "k1=-1", "b=2", "speed=3", "k1=nan", "prf=1e9", "k1=1,,b=0.5x"}) {
    auto r = ParseKeywordTuning(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
  }
}

TEST_F(KeywordTest, FeedbackFindsWhatTheTopChunksTalkAbout) {
  // The query's word is in two chunks that also talk about "preemption"; a
  // third chunk talks only about preemption and is found only through them.
  Load({{"a", "comment", "", "the spot instance was preempted; preemption restarts the spot job", "2024-01-01"},
        {"b", "comment", "", "spot capacity ran out, preemption again", "2024-01-02"},
        {"c", "comment", "", "preemption handling needs a backoff", "2024-01-03"},
        {"d", "comment", "", "unrelated words about tokenizers", "2024-01-04"},
        {"e", "comment", "", "more unrelated words about datasets", "2024-01-05"},
        {"f", "comment", "", "learning rate schedule", "2024-01-06"},
        {"g", "comment", "", "evaluation harness notes", "2024-01-07"},
        {"h", "comment", "", "mixture weights for data", "2024-01-08"},
        {"i", "comment", "", "profiling attention kernels", "2024-01-09"},
        {"j", "comment", "", "documentation fixes", "2024-01-10"},
        {"k", "comment", "", "release notes draft", "2024-01-11"},
        {"l", "comment", "", "tokenizer merges", "2024-01-12"}});
  EXPECT_EQ(Refs({.query = "spot"}), (std::vector<std::string>{"a", "b"}));
  SearchOptions o{.query = "spot"};
  o.tuning.prf_docs = 2;
  auto hits = Search(*corpus_, *index_, o);
  ASSERT_TRUE(hits.ok()) << hits.status().message();
  std::string refs;
  for (const auto& h : *hits) refs += h.ref + " ";
  ASSERT_EQ(hits->size(), 3u) << refs;
  EXPECT_EQ((*hits)[2].ref, "c");
  EXPECT_EQ((*hits)[2].via, std::vector<std::string>{"keyword-expanded"});  // below every exact match
  // Off, the same query finds only the two.
  o.tuning.prf_docs = 0;
  EXPECT_EQ(Refs(o).size(), 2u);
}

TEST(GroupByThread, AThreadThatMatchesThriceOutranksOneHitAbove) {
  auto hit = [](const char* ref, const char* parent, const char* url) {
    Hit h;
    h.ref = ref;
    h.parent = parent;
    h.url = url;
    h.title = std::string("title of ") + (*parent ? parent : ref);
    return h;
  };
  std::vector<Hit> ranking = {hit("o/r#1/c1", "o/r#1", "https://x/1#c1"), hit("o/r#2", "o/r#2", "https://x/2"),
                              hit("o/r#2/c1", "o/r#2", "https://x/2#c1"), hit("o/r#2/c2", "o/r#2", "https://x/2#c2"),
                              hit("o/r#2/c3", "o/r#2", "https://x/2#c3"), hit("page", "", "https://x/page")};
  auto groups = GroupByThread(ranking, 10, 3);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].thread, "o/r#2");  // four matches from rank 2 on beat one at rank 1
  EXPECT_EQ(groups[0].url, "https://x/2");  // the opening post's url
  ASSERT_EQ(groups[0].hits.size(), 3u);  // at most per_thread, best first
  EXPECT_EQ(groups[0].hits[0].ref, "o/r#2");
  EXPECT_EQ(groups[1].thread, "o/r#1");
  EXPECT_EQ(groups[1].url, "https://x/1");  // no opening post among the hits: the anchor cut
  EXPECT_EQ(groups[2].thread, "page");  // no parent: a thread of its own
  EXPECT_GT(groups[0].score, groups[1].score);
  EXPECT_EQ(GroupByThread(ranking, 1, 3).size(), 1u);
  EXPECT_TRUE(GroupByThread({}, 5, 3).empty());
}

TEST_F(KeywordTest, ProximityPutsWordsThatStandTogetherFirst) {
  // The same words, as often, in texts of the same length: only how close
  // they stand differs.
  Load({{"apart", "comment", "", "restore went fine but later the checkpoint broke", "2024-01-01"},
        {"together", "comment", "", "checkpoint restore went fine but later all broke", "2024-01-02"},
        {"x1", "comment", "", "unrelated text one", "2024-01-03"},
        {"x2", "comment", "", "unrelated text two", "2024-01-04"},
        {"x3", "comment", "", "unrelated text three", "2024-01-05"}});
  SearchOptions o{.query = "checkpoint restore"};
  o.tuning.prox_docs = 10;
  EXPECT_EQ(Refs(o), (std::vector<std::string>{"together", "apart"}));
  // A one-word query has no pairs: the ranking is BM25F's.
  o.query = "checkpoint";
  EXPECT_EQ(Refs(o).size(), 2u);
  EXPECT_TRUE(ParseKeywordTuning("prox=50,prox_weight=0.3").ok());
  EXPECT_EQ(ParseKeywordTuning("compound_part=0.25")->compound_part, 0.25);
  EXPECT_FALSE(ParseKeywordTuning("compound_part=2").ok()) << "a part never outweighs its compound";
}

// Issue 34, item 1: the spellings of a compound find each other.
TEST(CompoundTerms, JoinTwoOrThreePartsAndLeaveDatesAndPathsAlone) {
  EXPECT_EQ(CompoundTerms("add z-loss and Z_Loss"), (std::vector<std::string>{"zloss", "zloss"}));
  EXPECT_EQ(CompoundTerms("Mixture-of-Experts (MoE)"), std::vector<std::string>{"mixtureofexperts"});
  EXPECT_EQ(CompoundTerms("gpt-4 and llama-3"), (std::vector<std::string>{"gpt4", "llama3"}));
  EXPECT_TRUE(CompoundTerms("on 2024-01-15 at 10-20").empty());
  EXPECT_TRUE(CompoundTerms("src/z-loss/x.py and a-b-c-d").empty());
  EXPECT_TRUE(CompoundTerms("zloss ZLoss").empty());
}

TEST(GlobbedNames, AGlobOfInitialsIsEachName) {
  EXPECT_EQ(GlobbedNames("Add [GS]etOutputPrimary and [RW]lock_t"),
            (std::vector<std::string>{"getoutputprimary", "setoutputprimary", "rlock_t", "wlock_t"}));
  for (const char* none : {"see [1]", "a [ab] b", "[x]y", "[GS]et", "[abcde]fgh", "[GS] etFoo", "list[ij]"}) {
    EXPECT_TRUE(GlobbedNames(none).empty()) << none;
  }
  EXPECT_EQ(WithoutNamePrefix("XRRGetScreenInfo"), "getscreeninfo");
  EXPECT_EQ(WithoutNamePrefix("XIAllowTouchEvents"), "allowtouchevents");
  EXPECT_EQ(WithoutNamePrefix("XDamageAdd"), "damageadd");
  EXPECT_EQ(WithoutNamePrefix("XCompositeGetOverlayWindow"), "compositegetoverlaywindow");
  for (const char* none : {"HTTPServer", "GetScreenInfo", "XRRSet", "MFU", "XRRGet_Info", "xrrGetScreenInfo",
                           "DBusMessage", "QApplication", "XFree86", "XDamage"}) {
    EXPECT_EQ(WithoutNamePrefix(none), "") << none;
  }
}

// A library's records name its functions without the prefix ("Add
// GetScreenResourcesCurrent") or as a glob ("Add [GS]etOutputPrimary"); a
// question names them whole, and finds them as exact matches.
TEST_F(KeywordTest, ANameFindsItsRecordWithoutItsPrefixOrAsAGlob) {
  Load({{"current", "commit", "Add GetScreenResourcesCurrent", "", "2008-11-24"},
        {"primary", "commit", "Add [GS]etOutputPrimary", "", "2008-12-08"},
        {"screen", "commit", "Screen resources are read at start", "the current output is kept", "2008-01-01"},
        {"f1", "comment", "", "the tokenizer drops accents", "2024-01-06"},
        {"f2", "comment", "", "throughput doubled on the new nodes", "2024-01-07"}});
  SearchOptions o{.query = "XRRGetScreenResourcesCurrent"};
  EXPECT_EQ(Refs(o).at(0), "current");
  o.query = "XRRSetOutputPrimary";
  EXPECT_EQ(Refs(o).at(0), "primary");
  o.query = "GetOutputPrimary";
  EXPECT_EQ(Refs(o).at(0), "primary");
}

TEST_F(KeywordTest, EverySpellingOfACompoundFindsTheOthers) {
  Load({{"pr", "issue", "add zloss", "a small auxiliary loss on the logits", "2024-01-01"},
        {"code", "comment", "", "loss = ce + 1e-4 * z_loss(logits)", "2024-01-02"},
        {"doc", "comment", "", "Z-Loss keeps the logits from drifting", "2024-01-03"},
        {"camel", "comment", "", "class ZLoss applies the penalty", "2024-01-04"},
        {"noise", "issue", "fix normalization in loss", "the loss was normalized twice", "2024-01-05"},
        // Most of a corpus is about something else: zloss is a rare word.
        {"f1", "comment", "", "the tokenizer drops accents", "2024-01-06"},
        {"f2", "comment", "", "throughput doubled on the new nodes", "2024-01-07"},
        {"f3", "comment", "", "the scheduler restarts failed jobs", "2024-01-08"},
        {"f4", "comment", "", "checkpoints are written every hour", "2024-01-09"},
        {"f5", "comment", "", "gradient clipping at one", "2024-01-10"},
        {"f6", "comment", "", "eval harness moved to its own repository", "2024-01-11"}});
  for (const char* q : {"z-loss", "zloss", "z_loss", "ZLoss"}) {
    auto refs = Refs({.query = q});
    ASSERT_GE(refs.size(), 4u) << q;
    // Every spelling is found before a title about "loss" alone: a query
    // compound's parts weigh half its joined form.
    std::set<std::string> top4(refs.begin(), refs.begin() + 4);
    for (const char* spelling : {"pr", "code", "doc", "camel"}) {
      EXPECT_TRUE(top4.count(spelling)) << q << " " << spelling;
    }
  }
  // With the parts weighing as much as the compound, the "loss" title
  // comes before the class.
  auto whole_parts = Refs({.query = "z-loss", .tuning = {.compound_part = 1.0}});
  auto noise = std::find(whole_parts.begin(), whole_parts.end(), "noise");
  auto camel = std::find(whole_parts.begin(), whole_parts.end(), "camel");
  EXPECT_LT(noise, camel);
}

// "Qt 6" finds what says Qt6 (as "Python 3" python3): a name and a small
// number after it are as often written as one word.
TEST_F(KeywordTest, ANameAndItsNumberFindTheirJoinedSpelling) {
  Load({{"joined", "issue", "Qt6 frontend", "the first version of the new bindings", "2024-01-01"},
        {"other", "issue", "Qt5 frontend", "port the old bindings", "2024-01-02"},
        {"f1", "comment", "", "the tokenizer drops accents", "2024-01-03"},
        {"f2", "comment", "", "throughput doubled on the new nodes", "2024-01-04"},
        {"f3", "comment", "", "step 2 of the scheduler restarts failed jobs", "2024-01-05"}});
  auto refs = Refs({.query = "Qt 6 frontend"});
  ASSERT_FALSE(refs.empty());
  EXPECT_EQ(refs.front(), "joined");
  EXPECT_EQ(Refs({.query = "Qt 6"}), std::vector<std::string>{"joined"});
}

// "R600" finds what says R6xx: a chip's model number also names its
// family, as hardware projects write a generation ("R6xx/R7xx EXA").
TEST_F(KeywordTest, AModelNumberFindsItsFamily) {
  EXPECT_EQ(FamilyNames("R600/R700, NV50, RV770 and GM200"),
            (std::vector<std::string>{"r6xx", "r7xx", "nv5x", "rv77x", "gm2xx"}));
  EXPECT_TRUE(FamilyNames("x86 v2 h100a 2010 r605 0100 a0").empty());
  Load({{"family", "commit", "Initial R6xx/R7xx EXA and textured video support", "", "2009-02-03"},
        {"other", "commit", "Fix EXA on R300", "", "2008-01-02"},
        {"f1", "comment", "", "the tokenizer drops accents", "2024-01-03"},
        {"f2", "comment", "", "throughput doubled on the new nodes", "2024-01-04"}});
  // Found as the words themselves are: above what says EXA alone.
  EXPECT_EQ(Refs({.query = "R600 R700 EXA"}), (std::vector<std::string>{"family", "other"}));
}

// "page flipping" finds what says pageflip: two words a space apart are as
// often one in titles and code.
TEST_F(KeywordTest, TwoWordsFindTheirJoinedSpelling) {
  Load({{"joined", "commit", "dri2: Add pageflip/exchange support", "", "2010-10-21"},
        {"f1", "comment", "", "the tokenizer drops accents", "2024-01-03"},
        {"f2", "comment", "", "throughput doubled on the new nodes", "2024-01-04"},
        {"f3", "comment", "", "the man page lists every option", "2024-01-05"}});
  // Found as an expansion is: below the words themselves.
  EXPECT_EQ(Refs({.query = "page flipping"}), (std::vector<std::string>{"f3", "joined"}));
  auto hits = Search(*corpus_, *index_, {.query = "page flipping"});
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_EQ((*hits)[1].via, std::vector<std::string>{"keyword-expanded"});
}

// The chunk-id search starts where an even spread of the ids puts the one
// sought; whatever the spread (dense, gappy, one huge gap, a single id), it
// answers as std::lower_bound does.
TEST(KeywordIndexTest, TheDenseIdSearchAnswersAsLowerBound) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<int64_t> ids;
    const size_t n = rng() % (trial < 10 ? 3 : 2000);
    int64_t id = static_cast<int64_t>(rng() % 100) - 50;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t kind = rng() % 100;
      id += kind < 80 ? 1 : kind < 98 ? 1 + static_cast<int64_t>(rng() % 50) : 1 + static_cast<int64_t>(rng() % (1LL << 40));
      ids.push_back(id);
    }
    const int64_t low = ids.empty() ? -5 : ids.front() - 3, high = ids.empty() ? 5 : ids.back() + 3;
    std::vector<int64_t> probes = {low, high, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    for (int64_t x : ids) probes.insert(probes.end(), {x - 1, x, x + 1});
    for (int k = 0; k < 50; ++k) probes.push_back(low + static_cast<int64_t>(rng() % static_cast<uint64_t>(high - low + 1)));
    for (int64_t x : probes) {
      const auto want = std::lower_bound(ids.begin(), ids.end(), x) - ids.begin();
      ASSERT_EQ(index_internal::LowerBoundDense(ids.data(), ids.size(), x) - ids.data(), want)
          << "trial " << trial << ", n " << n << ", id " << x;
    }
  }
}

}  // namespace
}  // namespace umwelt

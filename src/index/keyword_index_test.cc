#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "example_project.h"
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
  std::vector<std::string> Refs(SearchOptions o) {
    auto hits = Search(*corpus_, *index_, o);
    EXPECT_TRUE(hits.ok()) << hits.status().message();
    std::vector<std::string> out;
    if (hits.ok()) for (auto& h : *hits) out.push_back(h.ref);
    return out;
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
  std::unique_ptr<KeywordIndex> index_;
};

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
  EXPECT_NE(bad_date.status().message().find("--since"), std::string::npos);
  std::string huge(100000, 'a');
  for (size_t i = 50; i < huge.size(); i += 51) huge[i] = ' ';
  EXPECT_TRUE(Search(*corpus_, *index_, {.query = huge}).ok());
}

TEST_F(KeywordTest, SnippetsCenterOnTheMatch) {
  std::string text = std::string(600, 'x') + " the needle is here " + std::string(600, 'y');
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

}  // namespace
}  // namespace umwelt

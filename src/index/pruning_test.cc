// The pruned keyword ranking (MaxScore) against the exhaustive one: the same
// documents in the same order with the same scores, on generated text and on
// the real test collections, for every k, filter and feedback term.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "test_util.h"
#include "umwelt/eval.h"
#include "umwelt/search.h"

namespace umwelt {
namespace {

class PruningTest : public ::testing::Test {
 protected:
  void Open() {
    auto idx = KeywordIndex::Open(*corpus_);
    ASSERT_TRUE(idx.ok()) << idx.status().message();
    index_ = std::move(idx).value();
  }
  void Create() {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok()) << c.status().message();
    corpus_ = std::move(c).value();
  }
  // Every field of every result the same; returns how many queries differed.
  int Compare(const SearchOptions& o, size_t limit) {
    auto pruned = index_->Rank(o, limit);
    auto full = index_->RankExhaustive(o, limit);
    EXPECT_EQ(pruned.ok(), full.ok()) << o.query;
    if (!pruned.ok() || !full.ok()) return pruned.ok() != full.ok();
    bool same = pruned->size() == full->size();
    for (size_t i = 0; same && i < full->size(); ++i) {
      same = (*pruned)[i].chunk_id == (*full)[i].chunk_id && (*pruned)[i].score == (*full)[i].score &&
             (*pruned)[i].exact == (*full)[i].exact;
    }
    EXPECT_TRUE(same) << "`" << o.query << "` k=" << limit << ": " << Show(*pruned) << " vs " << Show(*full);
    return !same;
  }
  static std::string Show(const std::vector<ScoredDoc>& v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 12; ++i) {
      s += std::to_string(v[i].chunk_id) + (v[i].exact ? "" : "x") + ":" + std::to_string(v[i].score) + " ";
    }
    return s + "(" + std::to_string(v.size()) + ")";
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
  std::unique_ptr<KeywordIndex> index_;
};

// Zipf-distributed words over a small vocabulary (so common words are in
// most chunks), identifiers for the expanded channel, records in parts that
// share a url, two sources, kinds and dates for the filters.
TEST_F(PruningTest, AgreesWithExhaustiveScoringOnGeneratedText) {
  Create();
  std::mt19937 rng(33);
  std::vector<std::string> vocab;
  for (int i = 0; i < 400; ++i) vocab.push_back("w" + std::to_string(i) + (i % 7 == 0 ? "ing" : ""));
  std::vector<std::string> idents = {"loadCheckpoint", "save_state", "parseHTTPResponse", "w3_helper", "w12Manager"};
  std::vector<double> weights;
  for (int i = 0; i < 400; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  auto b = corpus_->BeginWrite();
  ASSERT_TRUE(b.ok());
  for (int r = 0; r < 3000; ++r) {
    Chunk c;
    c.source = r % 3 == 0 ? "discord" : "github";
    c.kind = r % 3 == 0 ? "message" : r % 5 == 0 ? "issue" : "comment";
    c.ref = "o/r#" + std::to_string(r / 4) + "/c" + std::to_string(r);
    c.parent = "o/r#" + std::to_string(r / 4);
    c.author = "u" + std::to_string(r % 13);
    c.date = "2026-0" + std::to_string(1 + r % 9) + "-1" + std::to_string(r % 10) + "T00:00:00Z";
    c.url = "https://x/" + std::to_string(r / 2);  // pairs share a url
    int len = 3 + static_cast<int>(rng() % 60);
    for (int w = 0; w < len; ++w) c.text += vocab[zipf(rng)] + (w % 11 == 10 ? "\n" : " ");
    if (r % 4 == 0) c.text += " " + idents[rng() % idents.size()];
    if (r % 6 == 0) c.title = vocab[zipf(rng)] + " " + vocab[zipf(rng)];
    ASSERT_TRUE((*b)->PutRecord({c}).ok());
  }
  ASSERT_TRUE((*b)->Commit().ok());
  Open();
  int differed = 0;
  for (int q = 0; q < 400; ++q) {
    SearchOptions o;
    int words = 1 + static_cast<int>(rng() % 6);
    for (int w = 0; w < words; ++w) o.query += (rng() % 9 == 0 ? idents[rng() % idents.size()] : vocab[zipf(rng)]) + " ";
    if (q % 5 == 1) o.sources = {"github"};
    if (q % 7 == 2) o.kinds = {"comment", "message"};
    if (q % 11 == 3) o.since = "2026-03-01", o.until = "2026-06-30";
    if (q % 13 == 4) o.author = "u3";
    if (q % 4 == 0) o.extra_terms = {{vocab[rng() % 50], 0.3}, {vocab[rng() % 400], 0.1}};
    // Other scoring than the default (which the index's stored bounds are
    // for): scores run higher than those bounds.
    if (q % 3 == 0) o.tuning.k1 = 2.4, o.tuning.title_weight = 9, o.tuning.b = 0.9;
    for (size_t k : {1, 10, 50}) differed += Compare(o, k);
  }
  EXPECT_EQ(differed, 0);
  // A word in every chunk, many words, k past the corpus, nothing at all.
  differed += Compare({.query = "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15"}, 1000);
  differed += Compare({.query = "w0"}, 5000);
  differed += Compare({.query = "w0"}, 0);
  differed += Compare({.query = "nowhere"}, 10);
  differed += Compare({.query = "loadCheckpoint"}, 10);
  EXPECT_EQ(differed, 0);
}

// The real collections, their queries and a thousand random ones from their
// own words, at the k's search uses.
TEST_F(PruningTest, AgreesWithExhaustiveScoringOnTheTestCollections) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  for (const char* name : {"cranfield", "cisi"}) {
    auto c = std::string(name) == "cranfield" ? LoadCranfield(data + "/cranfield") : LoadCisi(data + "/cisi");
    ASSERT_TRUE(c.ok()) << c.status().message();
    testing::TempDir dir;
    auto corpus = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(corpus.ok());
    corpus_ = std::move(corpus).value();
    auto b = corpus_->BeginWrite();
    std::vector<std::string> words;
    for (const auto& d : c->docs) {
      Chunk ch;
      ch.source = "web";
      ch.kind = "page";
      ch.ref = ch.parent = std::string(name) + ":" + d.id;
      ch.title = d.title;
      ch.text = d.text;
      ch.url = "https://eval.invalid/" + d.id;
      ASSERT_TRUE((*b)->PutRecord({ch}).ok());
      for (auto& w : Tokenize(d.text)) {
        if (words.size() < 200000) words.push_back(w);
      }
    }
    ASSERT_TRUE((*b)->Commit().ok());
    Open();
    int differed = 0;
    for (const auto& q : c->queries) {
      for (size_t k : {10, 100}) differed += Compare({.query = q.text}, k);
    }
    std::mt19937 rng(1000);
    for (int q = 0; q < 1000; ++q) {
      SearchOptions o;
      int n = 1 + static_cast<int>(rng() % 8);
      for (int w = 0; w < n; ++w) o.query += words[rng() % words.size()] + " ";
      differed += Compare(o, q % 2 ? 10 : 50);
    }
    EXPECT_EQ(differed, 0) << name;
    index_.reset();
    corpus_.reset();
  }
}

}  // namespace
}  // namespace umwelt

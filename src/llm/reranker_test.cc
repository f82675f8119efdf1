#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "umwelt/rerank.h"
#include "umwelt/searcher.h"

namespace umwelt {
namespace {

using json = nlohmann::json;

// A scripted /v1/rerank: scores each document by how often it says the
// query's last word, in the Cohere shape or (tei_) TEI's, after any scripted
// failures.
class FakeRerank {
 public:
  FakeRerank() {
    server_.server().Post("/v1/rerank", [this](const httplib::Request& req, httplib::Response& res) {
      ++calls_;
      if (!failures_.empty()) {
        res.status = failures_.front();
        failures_.erase(failures_.begin());
        res.set_content("{\"error\":\"scripted\"}", "application/json");
        return;
      }
      auto body = json::parse(req.body);
      model_ = body["model"];
      std::string query = body["query"];
      std::string word = query.substr(query.rfind(' ') + 1);
      json results = json::array();
      for (size_t i = 0; i < body["documents"].size(); ++i) {
        std::string d = body["documents"][i];
        int n = 0;
        for (size_t p = d.find(word); p != std::string::npos; p = d.find(word, p + 1)) ++n;
        results.push_back(tei_ ? json{{"index", i}, {"score", n}} : json{{"index", i}, {"relevance_score", n}});
      }
      if (garbage_) return res.set_content("{\"results\": [{\"index\": 99, \"relevance_score\": 1}]}", "application/json");
      res.set_content(tei_ ? results.dump() : json{{"results", results}}.dump(), "application/json");
    });
  }
  std::string spec() { return "openai-compatible:" + server_.base() + "/v1#bge-reranker-base"; }
  testing::TestServer server_;
  std::atomic<int> calls_{0};
  std::vector<int> failures_;
  bool tei_ = false, garbage_ = false;
  std::string model_;
};

std::shared_ptr<Reranker> Make(FakeRerank& fake) {
  auto o = ParseRerankSpec(fake.spec());
  EXPECT_TRUE(o.ok()) << o.status().message();
  o->backoff_seconds = 0.01;
  return std::make_shared<Reranker>(*o);
}

TEST(Reranker, ReadsBothAnswerShapesAndCaches) {
  FakeRerank fake;
  auto owner = Make(fake);
  Reranker& r = *owner;
  auto s = r.Score("about restore", {"restore restore", "nothing", "restore"});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(*s, (std::vector<double>{2, 0, 1}));
  EXPECT_EQ(fake.model_, "bge-reranker-base");
  // The same pairs again: from the cache, no request; a new one asks for it alone.
  ASSERT_TRUE(r.Score("about restore", {"restore", "restore restore"}).ok());
  EXPECT_EQ(fake.calls_, 1);
  auto mixed = r.Score("about restore", {"restore", "restore x restore x restore"});
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(*mixed, (std::vector<double>{1, 3}));
  EXPECT_EQ(fake.calls_, 2);
  fake.tei_ = true;
  auto tei = r.Score("about kernel", {"kernel", "kernel kernel"});
  ASSERT_TRUE(tei.ok()) << tei.status().message();
  EXPECT_EQ(*tei, (std::vector<double>{1, 2}));
}

TEST(Reranker, BadSpecsAndAnswersAreOneClearError) {
  for (const char* bad : {"cohere:x#m", "openai-compatible:http://h/v1", "openai-compatible:http://h/v1#",
                          "openai-compatible:ftp://h#m"}) {
    auto o = ParseRerankSpec(bad);
    EXPECT_FALSE(o.ok()) << bad;
    EXPECT_EQ(o.status().code(), Code::kInvalidArgument) << bad;
  }
  FakeRerank fake;
  auto owner = Make(fake);
  Reranker& r = *owner;
  fake.garbage_ = true;
  auto g = r.Score("q x", {"x", "y"});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("index"), std::string::npos) << g.status().message();
  fake.garbage_ = false;
  fake.failures_ = {503, 503, 503};
  auto down = r.Score("q x", {"x", "y"});
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.status().message().find("503"), std::string::npos) << down.status().message();
  auto gone = ParseRerankSpec("openai-compatible:http://127.0.0.1:1/v1#m");
  ASSERT_TRUE(gone.ok());
  gone->max_retries = 0;
  EXPECT_FALSE(Reranker(*gone).Score("q", {"a", "b"}).ok());
}

TEST(Reranker, ReordersTheSearchersTopHitsOrLeavesThemWithANote) {
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  {
    auto c = Corpus::Open(db, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE(b.ok());
    // Keyword ranks "a" first (the query words in its title); the reranker
    // prefers the chunk that says "kernel" most.
    const std::vector<std::pair<std::string, std::string>> docs = {
        {"a", "fused attention kernel"}, {"b", "attention notes: kernel kernel kernel"}, {"c", "attention"}};
    for (const auto& [ref, text] : docs) {
      Chunk ch;
      ch.source = "github";
      ch.kind = "comment";
      ch.ref = ch.parent = ref;
      ch.title = ref == "a" ? "fused attention kernel" : "";
      ch.text = text;
      ch.url = "https://x/" + ref;
      ASSERT_TRUE((*b)->PutRecord({ch}).ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
  }
  FakeRerank fake;
  Searcher s(db, {}, {.keyword_only = true});
  ASSERT_TRUE(s.Refresh().ok());
  SearchRequest r;
  r.search.query = "attention kernel";
  r.fts_only = true;
  auto plain = s.Search(r);
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(plain->result.hits[0].ref, "a");
  s.SetReranker(Make(fake));
  auto reranked = s.Search(r);
  ASSERT_TRUE(reranked.ok()) << reranked.status().message();
  EXPECT_EQ(reranked->result.hits[0].ref, "b");
  EXPECT_EQ(reranked->result.hits[0].via.back(), "rerank");
  EXPECT_TRUE(reranked->result.notes.empty());
  // Only the top N move.
  r.rerank_top = 1;
  EXPECT_EQ(s.Search(r)->result.hits[0].ref, "a");
  r.rerank_top = 50;
  // The server down: the keyword ranking stands, with a note saying why.
  fake.failures_ = {500, 500, 500, 500};
  r.search.query = "attention kernel fused";  // not cached
  auto down = s.Search(r);
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(down->result.hits[0].ref, "a");
  ASSERT_EQ(down->result.notes.size(), 1u);
  EXPECT_NE(down->result.notes[0].find("rerank skipped"), std::string::npos) << down->result.notes[0];
}

}  // namespace
}  // namespace umwelt

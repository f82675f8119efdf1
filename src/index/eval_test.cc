#include "umwelt/eval.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace umwelt {
namespace {

TEST(Evaluate, KnownValues) {
  std::map<std::string, std::map<std::string, int>> qrels = {{"1", {{"a", 1}, {"b", 1}}}, {"2", {{"x", 1}}}};
  std::map<std::string, std::vector<std::string>> run = {{"1", {"a", "z", "b"}}, {"2", {"y"}}};
  RetrievalMetrics m = Evaluate(run, qrels);
  EXPECT_EQ(m.queries, 2);
  // q1: AP = (1/1 + 2/3) / 2; q2: 0.
  EXPECT_NEAR(m.map, (1.0 + 2.0 / 3.0) / 2 / 2, 1e-9);
  EXPECT_NEAR(m.recall100, 0.5, 1e-9);
  double dcg = 1.0 + 1.0 / std::log2(4.0), idcg = 1.0 + 1.0 / std::log2(3.0);
  EXPECT_NEAR(m.ndcg10, dcg / idcg / 2, 1e-9);
  EXPECT_NEAR(CitationRecall({"#5", "#7", "#9"}, {"#7", "#11"}, 2), 0.5, 1e-9);
  EXPECT_NEAR(CitationRecall({"#5", "#7", "#9"}, {"#7", "#11"}, 1), 0.0, 1e-9);
  EXPECT_NEAR(CitationRecall({"#5"}, {}, 1), 1.0, 1e-9);
  // Each thread as a citation list names it.
  EXPECT_EQ(CitationOfThread("o/r#12"), "#12");
  EXPECT_EQ(CitationOfThread("local/umwelt/commit/3C1DE7703427a6de88525d4b3248c4169f38c6ad"), "commit:3c1de77");
  EXPECT_EQ(CitationOfThread("o/r/commit/nothex1"), "o/r/commit/nothex1");
  EXPECT_EQ(CitationOfThread("discord:1/2"), "discord:1/2");
}

TEST(Collections, LoadTheRealOnes) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  auto cran = LoadCranfield(data + "/cranfield");
  ASSERT_TRUE(cran.ok()) << cran.status().message();
  EXPECT_EQ(cran->docs.size(), 1400u);
  EXPECT_EQ(cran->queries.size(), 225u);
  EXPECT_EQ(cran->qrels.size(), 225u);
  auto cisi = LoadCisi(data + "/cisi");
  ASSERT_TRUE(cisi.ok()) << cisi.status().message();
  EXPECT_EQ(cisi->docs.size(), 1460u);
  EXPECT_EQ(cisi->queries.size(), 76u);
  auto questions = LoadQuestions(data + "/mumwelt-evals/evals/questions");
  ASSERT_TRUE(questions.ok()) << questions.status().message();
  EXPECT_EQ(questions->size(), 9u);
  size_t with_citations = 0;
  for (const auto& q : *questions) with_citations += !q.must_cite.empty();
  EXPECT_GT(with_citations, 5u);
  EXPECT_FALSE(LoadCranfield(data + "/cisi").ok());
}

TEST(Questions, BadFilesAreNamed) {
  testing::TempDir dir;
  testing::WriteFile(dir.File("q.json"), "{\"id\": 3}");
  auto r = LoadQuestions(dir.File("q.json"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("q.json"), std::string::npos);
}

// Issue 14: citation lists in every form the reference files use, and
// wrong types read as absent, never as a crash or a wrong number.
TEST(Questions, CitationFormsAndOddValues) {
  auto q = ParseQuestion(R"({"question": "why?", "answerable": "no",
      "citations": {"must_have": ["#12", "o/r#30", 41, "99999999999999999999", "#-3", null, ["#5"], "discord:1/2",
                                   "commit:3C1DE770ab", "commit:3c1de77", "commit:abc12", "commit:xyz1234",
                                   "commit:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                                   "commit:ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"],
                    "nice_to_have": "#7", "forbidden": ["9"]},
      "trap_checks": {"a": {"forbid_cite": ["#8"]}, "b": 3},
      "facts": {"must_have": [{"match": "0\\.02"}, {"match": 5}, "x"]}})",
                         "dir/why.json");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->id, "why");
  EXPECT_TRUE(q->answerable);  // a non-boolean reads as the default
  // A numberless thread by its ref; a commit by its sha's first 7 digits (no
  // short, long or non-hex one).
  EXPECT_EQ(q->must_cite, (std::set<std::string>{"#12", "#30", "#41", "discord:1/2", "commit:3c1de77",
                                                 "commit:bbbbbbb"}));  // a SHA-256 commit too
  EXPECT_TRUE(q->nice_cite.empty());
  EXPECT_EQ(q->forbid_cite, (std::set<std::string>{"#8", "#9"}));
  EXPECT_EQ(q->facts, (std::vector<std::string>{"0\\.02", "5"}));  // a number matches its digits
  for (const char* bad : {"", "[]", R"({"question": 7})", R"({"question": null})"}) {
    auto r = ParseQuestion(bad, "dir/bad.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("dir/bad.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace umwelt

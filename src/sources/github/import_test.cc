#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "umwelt/github.h"

namespace umwelt::github {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

json Issue(int n, const std::string& body, const std::string& updated = "2024-05-02T10:00:00Z") {
  return {{"number", n}, {"title", "Issue " + std::to_string(n)}, {"body", body}, {"state", "open"},
          {"user", {{"login", "alice"}}}, {"created_at", "2024-05-01T10:00:00Z"}, {"updated_at", updated},
          {"html_url", "https://github.com/o/r/issues/" + std::to_string(n)}};
}

std::unique_ptr<Corpus> OpenRw(const std::string& path) {
  auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

TEST(Import, PaginateOutputDuplicatesAndOutOfOrderPages) {
  testing::TempDir dir;
  // Two pages as `gh api --paginate` writes them, page 2 first, one record on both.
  std::string pages = json::array({Issue(3, "three"), Issue(2, "two")}).dump() + "\n" +
                      json::array({Issue(2, "two"), Issue(1, "one refers to #3")}).dump() + "\n";
  testing::WriteFile(dir.File("issues.json"), pages);
  auto corpus = OpenRw(dir.File("c.db"));
  ImportReport report;
  ASSERT_TRUE(ImportFiles(*corpus, {dir.File("issues.json")}, &report).ok());
  EXPECT_EQ(report.records, 4);
  EXPECT_EQ(report.changed, 3);
  EXPECT_EQ(corpus->Stats()->total_chunks, 3);
  // Importing the same file again changes nothing.
  ImportReport again;
  ASSERT_TRUE(ImportFiles(*corpus, {dir.File("issues.json")}, &again).ok());
  EXPECT_EQ(again.changed, 0);
  EXPECT_EQ(corpus->Stats()->total_chunks, 3);
  auto linked = corpus->LinkedFrom("o/r#3");
  ASSERT_EQ(linked->size(), 1u);
  EXPECT_EQ((*linked)[0].ref, "o/r#1");
}

TEST(Import, AnOlderPageNeverOverwritesANewerRecord) {
  testing::TempDir dir;
  testing::WriteFile(dir.File("new.json"), json::array({Issue(1, "edited text", "2024-06-01T00:00:00Z")}).dump());
  testing::WriteFile(dir.File("old.json"), json::array({Issue(1, "original text", "2024-05-01T00:00:00Z")}).dump());
  auto corpus = OpenRw(dir.File("c.db"));
  ImportReport r;
  ASSERT_TRUE(ImportFiles(*corpus, {dir.File("new.json"), dir.File("old.json")}, &r).ok());
  EXPECT_EQ(r.changed, 1);
  EXPECT_EQ((*corpus->ChunkByRef("o/r#1"))->text, "edited text");
  EXPECT_EQ((*corpus->GetThread("o/r#1").value()).updated, "2024-06-01T00:00:00Z");
}

TEST(Import, AFailingFileLeavesTheCorpusAsItWas) {
  testing::TempDir dir;
  testing::WriteFile(dir.File("good.json"), json::array({Issue(1, "kept")}).dump());
  json bad_record = Issue(2, "x");
  bad_record["number"] = "two";
  // The bad record comes after a good one in the same file: neither may land.
  testing::WriteFile(dir.File("bad.json"), json::array({Issue(5, "would be new"), bad_record}).dump());
  testing::WriteFile(dir.File("truncated.json"), "[{\"number\": 1, \"ti");
  auto corpus = OpenRw(dir.File("c.db"));
  ImportReport r1;
  ASSERT_TRUE(ImportFiles(*corpus, {dir.File("good.json")}, &r1).ok());
  for (const char* f : {"bad.json", "truncated.json"}) {
    ImportReport r;
    Status s = ImportFiles(*corpus, {dir.File(f)}, &r);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(f), std::string::npos) << s.message();
    EXPECT_EQ(corpus->Stats()->total_chunks, 1);
    EXPECT_EQ((*corpus->ChunkByRef("o/r#1"))->text, "kept");
  }
  ImportReport r;
  EXPECT_FALSE(ImportFiles(*corpus, {dir.File("missing.json")}, &r).ok());
}

TEST(Import, EditedAndJsonLinesRecords) {
  testing::TempDir dir;
  json c1 = {{"id", 10}, {"body", "first take"}, {"user", {{"login", "bo"}}}, {"created_at", "2024-05-02T00:00:00Z"},
             {"issue_url", "https://api.github.com/repos/o/r/issues/1"},
             {"html_url", "https://github.com/o/r/issues/1#issuecomment-10"}};
  testing::WriteFile(dir.File("a.jsonl"), Issue(1, "body").dump() + "\n" + c1.dump() + "\n");
  auto corpus = OpenRw(dir.File("c.db"));
  ImportReport r;
  ASSERT_TRUE(ImportFiles(*corpus, {dir.File("a.jsonl")}, &r).ok());
  c1["body"] = "second take";
  testing::WriteFile(dir.File("b.jsonl"), c1.dump() + "\n");
  ASSERT_TRUE(ImportFiles(*corpus, {dir.File("b.jsonl")}, &r).ok());
  auto chunk = corpus->ChunkByRef("o/r#1/c10");
  ASSERT_TRUE(chunk->has_value());
  EXPECT_EQ((*chunk)->text, "second take");
  EXPECT_EQ((*chunk)->title, "Issue 1");  // taken from the thread
  EXPECT_EQ(corpus->Stats()->total_chunks, 2);
}

// The real recordings in ../shared/data: every file imports, and the records
// land where their permalinks say.
TEST(Import, RealRecordings) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(data + "/github-api-recordings/pygithub-replaydata")) {
    files.push_back(e.path());
  }
  for (const auto& e : fs::recursive_directory_iterator(data + "/github-api-recordings/octokit-fixtures")) {
    if (e.path().filename() == "raw-fixture.json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 40u);
  testing::TempDir dir;
  auto corpus = OpenRw(dir.File("c.db"));
  ImportReport r;
  Status s = ImportFiles(*corpus, files, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.files, static_cast<int>(files.size()));
  auto stats = corpus->Stats().value();
  std::map<std::string, int64_t> by_kind;
  for (const auto& c : stats.counts) by_kind[c.kind] += c.chunks;
  EXPECT_GT(by_kind["comment"], 50);
  EXPECT_GT(by_kind["pr"], 5);
  EXPECT_GT(by_kind["review"], 0);
  EXPECT_GT(by_kind["review-comment"], 0);
  auto issue28 = corpus->GetThread("PyGithub/PyGithub#28").value();
  ASSERT_TRUE(issue28.has_value());
  EXPECT_EQ(issue28->state, "closed");
  auto epic = corpus->GetThread("PyGithub/PyGithub#5").value();
  ASSERT_TRUE(epic.has_value());
  EXPECT_GE(epic->children.size(), 2u);
  auto review = corpus->ChunkByUrl("https://github.com/PyGithub/PyGithub/pull/538#pullrequestreview-28482091");
  ASSERT_TRUE(review.ok() && review->has_value());
  EXPECT_EQ((*review)->kind, "review");
  // Importing everything twice adds nothing.
  ImportReport again;
  ASSERT_TRUE(ImportFiles(*corpus, files, &again).ok());
  EXPECT_EQ(again.changed, 0);
  EXPECT_EQ(corpus->Stats()->total_chunks, stats.total_chunks);
}

}  // namespace
}  // namespace umwelt::github

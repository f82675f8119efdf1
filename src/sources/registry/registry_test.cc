#include "umwelt/sources.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace umwelt {
namespace {

TEST(Sources, EveryRecordedSourceBelongsToOneSource) {
  for (const char* name : {"github", "git", "discord", "wandb"}) {
    const Source* s = SourceOf(std::string(name) + ":some/id");
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->name(), name);
  }
  EXPECT_EQ(SourceOf("mystery:x"), nullptr);
  EXPECT_EQ(SourceOf(""), nullptr);
  EXPECT_EQ(AllSources().size(), 4u);
  // Only the git source's cursor says what a sync left out.
  EXPECT_EQ(SourceOf("git:a/b")->DescribeCursor(R"({"skipped": {"lfs": 2}, "shallow": true})"),
            "2 Git LFS pointers; a shallow clone (history from its grafted commits)");
  EXPECT_EQ(SourceOf("git:a/b")->DescribeCursor("not json"), "");
  EXPECT_EQ(SourceOf("github:a/b")->CursorFactsJson("{}"), "");
}

// A source that cannot sync says why on its line; the others go on, and a
// source this umwelt does not know is left alone.
TEST(Sources, RefreshGoesOnPastAFailingSource) {
  testing::TempDir dir;
  auto corpus = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(corpus.ok());
  {
    auto b = (*corpus)->BeginWrite();
    ASSERT_TRUE((*b)->PutSyncState({"git:acme/gone", "{}", "", "", ""}).ok());
    ASSERT_TRUE((*b)->PutSyncState({"mystery:x", "", "", "", ""}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto http = NewCurlHttpClient();
  std::vector<std::string> lines;
  bool changed = false;
  Status s = RefreshRecordedSources(**corpus, *http, {}, [&](const std::string& l) { lines.push_back(l); }, &changed);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "git:acme/gone: no recorded path (sync it once with `umwelt sync git PATH`)");
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace umwelt

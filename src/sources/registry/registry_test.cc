#include "umwelt/sources.h"

#include <gtest/gtest.h>

#include <set>

#include "test_util.h"
#include "umwelt/permalinks.h"

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

// Each permalink scheme belongs to a registered source, no host is claimed
// twice, and each names its threads, its non-thread pages and the urls it
// does not own.
TEST(Sources, PermalinkSchemesBelongToSources) {
  std::set<std::string_view> hosts;
  for (const auto& scheme : PermalinkSchemes()) {
    const Source* s = SourceOf(std::string(scheme.source) + ":x");
    ASSERT_NE(s, nullptr) << scheme.source;
    EXPECT_EQ(s->name(), scheme.source);
    for (auto h : scheme.hosts) EXPECT_TRUE(hosts.insert(h).second) << h << " claimed twice";
  }
  EXPECT_EQ(SourceThreadRef("https://github.com/a/b/issues/7#issuecomment-9"), "a/b#7");
  EXPECT_EQ(SourceThreadRef("https://GitHub.com/a/b/pull/8/files"), "a/b#8");
  EXPECT_EQ(SourceThreadRef("https://github.com/a/b/blob/0123abc/x.cc"), "");  // GitHub's, but no thread
  EXPECT_EQ(SourceThreadRef("https://discord.com/channels/1/2/3"), "discord:1/2");
  EXPECT_EQ(SourceThreadRef("https://discordapp.com/channels/1/2"), "discord:1/2");
  EXPECT_EQ(SourceThreadRef("https://discord.com/invite/abc"), std::nullopt);  // a web page
  EXPECT_EQ(SourceThreadRef("https://wandb.ai/e/p/runs/r1?workspace=x"), "wandb:e/p/r1");
  EXPECT_EQ(SourceThreadRef("https://wandb.ai/e/p/reports/x"), std::nullopt);
  EXPECT_EQ(SourceThreadRef("https://example.com/channels/1/2/3"), std::nullopt);
  EXPECT_EQ(SourceThreadRef("not a url"), std::nullopt);
  UrlParts parts = SplitUrl("https://Host.Example/a//b/?q=1#f");
  EXPECT_EQ(parts.host, "host.example");
  EXPECT_EQ(parts.path, (std::vector<std::string_view>{"a", "b"}));
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

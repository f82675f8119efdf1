#include "umwelt/sources.h"

#include <gtest/gtest.h>

#include <set>

#include "test_util.h"
#include "umwelt/permalinks.h"
#include "umwelt/source_traits.h"

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
// Every source that syncs, and every permalink scheme, has traits; names and
// ref prefixes are claimed once; the corpus's sources are the traits'.
TEST(SourceTraits, EverySourceDeclaresItsOwn) {
  std::set<std::string_view> names, prefixes;
  for (const auto& t : AllSourceTraits()) {
    EXPECT_TRUE(names.insert(t.name).second) << t.name << " declared twice";
    if (!t.ref_prefix.empty()) {
      EXPECT_TRUE(prefixes.insert(t.ref_prefix).second) << t.ref_prefix;
    }
    EXPECT_TRUE(t.space == "prose" || t.space == "code") << t.name;
    EXPECT_FALSE(t.label.empty()) << t.name;
  }
  for (const Source* s : AllSources()) EXPECT_NE(TraitsOf(s->name()), nullptr) << s->name();
  for (const auto& scheme : PermalinkSchemes()) EXPECT_NE(TraitsOf(scheme.source), nullptr) << scheme.source;
  EXPECT_EQ(CorpusSources().size(), AllSourceTraits().size());
  EXPECT_EQ(TraitsOf("mystery"), nullptr);
  EXPECT_EQ(RoleOf("mystery", "issue"), Role::kOther);
  EXPECT_EQ(RoleOf("github", "mystery"), Role::kOther);
  EXPECT_EQ(SpaceOf("mystery"), "prose");
  EXPECT_EQ(SourcesInSpace("code"), std::vector<std::string>{"code"});
  EXPECT_EQ(CodeKinds(false), std::vector<std::string>{"window"});
  EXPECT_EQ(CodeKinds(true), std::vector<std::string>{"branch-window"});
  // Each activity category counts in words.
  // The strip's categories keep their published order.
  EXPECT_EQ(ActivityCategories(), (std::vector<std::string>{"issues", "PRs", "comments", "commits", "Discord", "runs"}));
  EXPECT_EQ(ActivityCount(4, 1), "1 Discord message");
  EXPECT_EQ(ActivityCount(2, 4), "4 comments");
}

// What a source reads out of its own records' text, for everyone else.
TEST(SourceTraits, SourcesReadTheirOwnText) {
  EXPECT_EQ(ChangedFiles("git", "Fix eval\n\nbody\nFiles: src/eval.py, docs/a b.md, and 3 more"),
            (std::vector<std::string>{"src/eval.py", "docs/a b.md"}));
  EXPECT_TRUE(ChangedFiles("git", "no files line").empty());
  EXPECT_TRUE(ChangedFiles("github", "Files: a.py").empty());  // a source without files
  EXPECT_EQ(Reactions("discord", "ship it\nReactions: fire 3, thumbs up 2"), 5);
  EXPECT_EQ(Reactions("github", "ship it\nReactions: fire 3"), 0);
  EXPECT_EQ(Reported("wandb", "run 7\nConfig: lr 3e-4\nSummary: loss 2.1, mfu 0.41\nState: finished"),
            "Summary: loss 2.1, mfu 0.41");
  EXPECT_EQ(Reported("github", "Summary: not a run"), "");
  EXPECT_TRUE(Ended("wandb", "crashed"));
  EXPECT_FALSE(Ended("wandb", "running"));
  EXPECT_TRUE(LandedThrough("git", "commit", "acme/tinylm#12"));
  EXPECT_FALSE(LandedThrough("git", "commit", "acme/tinylm/commit/abc123"));
  EXPECT_FALSE(LandedThrough("github", "comment", "acme/tinylm#12"));
  EXPECT_EQ(RepoOf("github", "acme/tinylm#12/c5"), "acme/tinylm");
  EXPECT_EQ(RepoOf("git", "acme/tinylm/commit/abc123"), "acme/tinylm");
  EXPECT_EQ(RepoOf("discord", "discord:1/2"), "");
  EXPECT_TRUE(Proposal("github", "pr"));
  EXPECT_FALSE(Proposal("github", "issue"));
  EXPECT_EQ(PageUrlOf(PageRef("https://example.org/paper#s2")), "https://example.org/paper");
  EXPECT_EQ(PageUrlOf("discord:1/2"), "");
  EXPECT_EQ(TraitsOfRef(NarrativeRef("2026-11-23_2026-11-29"))->name, kNarrativeSource);
}

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

#include "umwelt/publish.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "corpus_fixtures.h"
#include "test_util.h"

namespace umwelt {
namespace {

class PublishTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
    auto b = corpus_->BeginWrite();
    using testing::GithubChunk;
    using testing::GithubThread;
    Thread t = GithubThread("o/r#7", "issue", "closed", "Loss spike at step 2k", "ann", "The loss jumps at step 2000.");
    ASSERT_TRUE((*b)->PutThread(t).ok());
    ASSERT_TRUE((*b)->PutThread(GithubThread("o/r#8", "issue", "open", "<img src=x onerror=alert(1)>", "ann",
                                             "\"><script>alert(2)</script>")).ok());
    ASSERT_TRUE((*b)->PutRecord({GithubChunk("o/r#7", "o/r#7", "issue", t.url, "The loss jumps.")}).ok());
    ASSERT_TRUE((*b)->PutRecord({GithubChunk("o/r#7/c1", "o/r#7", "comment", t.url + "#issuecomment-1",
                                             "Fixed by lowering the learning rate to 3e-4.", "bo",
                                             "2024-03-02T00:00:00Z")}).ok());
    ASSERT_TRUE((*b)->PutRecord({GithubChunk("o/r#8", "o/r#8", "issue", "https://github.com/o/r/issues/8", "x")}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
    // A fixed corpus time, so the golden page does not depend on the clock.
    ASSERT_EQ(sqlite3_exec(corpus_->raw_handle(), "UPDATE meta SET value='1699990000' WHERE key='built_at_epoch'",
                           nullptr, nullptr, nullptr), SQLITE_OK);
  }
  PublishResult Run(const std::string& md, PublishOptions o = {}) {
    o.generated_at = 1700000000;  // 2023-11-14 22:13 UTC
    auto r = Publish(md, o, corpus_.get());
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : PublishResult{};
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
};

const char* kReport = R"md(---
author: ann
question: Why did the loss spike?
---
# Loss spike report

## Short answer

**The learning rate was too high**; lowering it to 3e-4 fixed it ([#7](https://github.com/o/r/issues/7#issuecomment-1)).

| lr | result |
|---|---:|
| 1e-3 | spike |
| 3e-4 | stable |

## Evidence

The spike appeared at step 2000 in two runs[^1].

::: sidenote
Seen before in [#7](https://github.com/o/r/issues/7).
:::

## Short answer

A repeated heading gets its own id.

[^1]: [Loss spike at step 2k](https://github.com/o/r/issues/7)

<!--provenance-->
> Data: test corpus — 3 chunks

Query: "why did the loss spike"
)md";

TEST_F(PublishTest, PageStructure) {
  PublishResult r = Run(kReport);
  const std::string& h = r.html;
  EXPECT_FALSE(r.has_errors());
  EXPECT_NE(h.find("<h1 class=\"title\">Loss spike report</h1>"), std::string::npos);
  EXPECT_NE(h.find("Posed by <em>ann</em>, answered by <em>umwelt</em>"), std::string::npos);
  EXPECT_NE(h.find("title=\"Generated 2023-11-14 22:13 UTC\">Published 2023-11-14</time>"), std::string::npos);
  EXPECT_NE(h.find("<div class=\"prompt\"><p>Why did the loss spike?</p></div>"), std::string::npos);
  EXPECT_NE(h.find("<h2 id=\"short-answer\">"), std::string::npos);
  EXPECT_NE(h.find("<h2 id=\"short-answer-2\">"), std::string::npos);
  EXPECT_NE(h.find("<h2 id=\"evidence\">"), std::string::npos);
  EXPECT_NE(h.find("<table>"), std::string::npos);
  // Cards: the comment permalink shows its thread's title, state and the comment's author.
  EXPECT_NE(h.find("<span class=\"badge badge-done\">closed</span>"), std::string::npos);
  EXPECT_NE(h.find("<span class=\"card-title\">Loss spike at step 2k</span>"), std::string::npos);
  EXPECT_NE(h.find("comment by bo, 2024-03-02"), std::string::npos);
  // ... and that comment's words, not the issue's opening text.
  size_t card = h.find("comment by bo, 2024-03-02");
  size_t end = h.find("</span></span>", card);
  ASSERT_NE(end, std::string::npos);
  std::string comment_card = h.substr(h.rfind("<span class=\"card\"", card), end - h.rfind("<span class=\"card\"", card));
  EXPECT_NE(comment_card.find("Fixed by lowering the learning rate to 3e-4."), std::string::npos) << comment_card;
  EXPECT_EQ(comment_card.find("The loss jumps at step 2000."), std::string::npos) << comment_card;
  EXPECT_EQ(r.cards, r.links);
  // Footnote -> numbered citation with a card, and a references list.
  EXPECT_NE(h.find("<sup class=\"cite-ref\"><span class=\"cite\"><a href=\"#fn-1\""), std::string::npos);
  EXPECT_NE(h.find(">[1]</a>"), std::string::npos);
  EXPECT_NE(h.find("<section class=\"references\" id=\"references\"><h2>References</h2>"), std::string::npos);
  EXPECT_NE(h.find("<span class=\"ref-url\">https://github.com/o/r/issues/7</span>"), std::string::npos);
  // Sidenote with its narrow-screen toggle.
  EXPECT_NE(h.find("<label for=\"sn-1\" class=\"sidenote-toggle\">"), std::string::npos);
  EXPECT_NE(h.find("<aside class=\"sidenote\"><p>Seen before in"), std::string::npos);
  // Footer.
  EXPECT_NE(h.find("<footer class=\"provenance\">"), std::string::npos);
  EXPECT_NE(h.find("Viewing: <span id=\"viewing\">"), std::string::npos);
  EXPECT_NE(h.find("<blockquote>\n<p>Data: test corpus"), std::string::npos);
  // Self-contained: no external fetches.
  EXPECT_EQ(h.find("<link"), std::string::npos);
  EXPECT_EQ(h.find("src=\"http"), std::string::npos);
  EXPECT_EQ(h.find("@import"), std::string::npos);
}

TEST_F(PublishTest, Golden) {
  PublishResult r = Run(kReport);
  std::string path = UMWELT_SOURCE_DIR "/tests/golden/report.html";
  if (std::getenv("UMWELT_UPDATE_GOLDEN")) testing::WriteFile(path, r.html);
  std::string golden = testing::ReadFileOrEmpty(path);
  ASSERT_FALSE(golden.empty()) << "missing " << path << " (run with UMWELT_UPDATE_GOLDEN=1)";
  EXPECT_EQ(r.html, golden) << "the page changed; review, then rerun with UMWELT_UPDATE_GOLDEN=1";
}

TEST_F(PublishTest, RawHtmlAndScriptUrlsAreFiltered) {
  PublishResult r = Run(
      "# T\n\n<script>alert(1)</script>\n\n<iframe src=\"https://evil\"></iframe>\n\n"
      "<style>body{display:none}</style>\n\nText <img src=x onerror=alert(1)> and "
      "[click](javascript:alert(1)) and <a href=\"#\" onclick=\"alert(1)\">x</a>.\n",
      {});
  std::string body = r.html.substr(r.html.find("<article"), r.html.find("</article>") - r.html.find("<article"));
  for (const char* bad : {"<script", "<iframe", "<style", "onerror", "javascript:", "onclick"}) {
    EXPECT_EQ(body.find(bad), std::string::npos) << bad;
  }
}

TEST_F(PublishTest, CorpusTextIsEscapedInCards) {
  PublishResult r = Run("# T\n\nSee [#8](https://github.com/o/r/issues/8).\n");
  EXPECT_EQ(r.cards, 1);
  EXPECT_NE(r.html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  // The description is Markdown shown as plain text: its tags are dropped,
  // what is left is escaped.
  EXPECT_NE(r.html.find("<span class=\"card-desc\">&quot;&gt;alert(2)</span>"), std::string::npos);
  EXPECT_EQ(r.html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(r.html.find("<script>alert(2)"), std::string::npos);
}

TEST_F(PublishTest, CheckCatchesBadLinksAndUncitedClaims) {
  std::string md =
      "# T\n"                                                                    // 1
      "\n"                                                                       // 2
      "Known ([#7](https://github.com/o/r/issues/7#issuecomment-1)).\n"          // 3
      "\n"                                                                       // 4
      "Planted ([#99](https://github.com/o/r/issues/99)).\n"                     // 5
      "\n"                                                                       // 6
      "Thread known, comment not ([c](https://github.com/o/r/issues/7#issuecomment-42)).\n"  // 7
      "\n"                                                                       // 8
      "The run reached 41% MFU on 64 GPUs last week.\n"                          // 9
      "\n"                                                                       // 10
      "A paper ([p](https://arxiv.org/abs/1234.5678)) and a listed one ([q](https://example.org/post)).\n"  // 11
      "\n"                                                                       // 12
      "## Caveats\n"                                                             // 13
      "\n"                                                                       // 14
      "Numbers from 2 runs only.\n"                                              // 15
      "<!--provenance-->\n"
      "Web sources: https://example.org/post\n";
  auto problems = CheckCitations(md, corpus_.get());
  auto find = [&](int line, CheckProblem::Severity s) {
    for (const auto& p : problems) {
      if (p.line == line && p.severity == s) return true;
    }
    return false;
  };
  using S = CheckProblem::Severity;
  EXPECT_TRUE(find(5, S::kError));    // not in the corpus
  EXPECT_TRUE(find(7, S::kWarning));  // thread only
  EXPECT_TRUE(find(9, S::kWarning));  // uncited claim
  EXPECT_TRUE(find(11, S::kError));   // arxiv: not fetched, not listed
  EXPECT_FALSE(find(3, S::kError) || find(3, S::kWarning));
  EXPECT_FALSE(find(15, S::kWarning));  // caveats are judgement
  EXPECT_EQ(problems.size(), 4u);
  for (const auto& p : problems) EXPECT_FALSE(p.message.empty());
  PublishResult r = Run(md);
  EXPECT_TRUE(r.has_errors());
}

// Issue 34, item 5: a measure must be stated by a record the sentence
// cites: the same unit, within rounding.
TEST_F(PublishTest, NumbersMustBeStatedByWhatTheyCite) {
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk("o/r#7/c2", "o/r#7", "comment",
                                                      "https://github.com/o/r/issues/7#issuecomment-2",
                                                      "After the fix MFU went to 38.5% on 64 H100s, and a step takes 410 ms.",
                                                      "cy", "2024-03-03T00:00:00Z")})
                    .ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  const std::string cite = "([cy](https://github.com/o/r/issues/7#issuecomment-2))";
  auto flagged = [&](const std::string& sentence) {
    for (const auto& p : CheckCitations(sentence + " " + cite + "\n", corpus_.get())) {
      if (p.message.find("which no record it cites states") != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(flagged("MFU went to 45% after the fix."));
  EXPECT_TRUE(flagged("A step takes 410 s now."));  // another unit
  EXPECT_TRUE(flagged("MFU reached 38.7% after the fix."));  // more precise than what it cites
  EXPECT_FALSE(flagged("MFU went to 38.5% after the fix."));
  EXPECT_FALSE(flagged("MFU is about 38% after the fix."));  // rounded
  EXPECT_FALSE(flagged("It ran on 64 H100s with 410 ms steps."));
  EXPECT_FALSE(flagged("The target is 45% MFU."));  // a target, not a result
  EXPECT_FALSE(flagged("At that rate the rest takes about 20 days."));  // an estimate says so
  // A paragraph citing only what the corpus lacks fails on that link, not this.
  for (const auto& p : CheckCitations("MFU went to 45% after the fix ([x](https://github.com/o/r/issues/99)).\n", corpus_.get())) {
    EXPECT_EQ(p.message.find("which no record it cites states"), std::string::npos) << p.message;
  }
  // Through publish: a warning among the page's problems (which --strict fails on).
  PublishResult r = Run("# T\n\nMFU went to 45% after the fix " + cite + ".\n");
  bool warned = false;
  for (const auto& p : r.problems) warned |= p.severity == CheckProblem::Severity::kWarning && p.message.find("45%") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST_F(PublishTest, WithoutACorpusCorpusLinksAreErrors) {
  auto problems = CheckCitations("See [#7](https://github.com/o/r/issues/7).\n", nullptr);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].severity, CheckProblem::Severity::kError);
}

// Which links must be in the corpus comes from the sources' permalink
// schemes: a W&B report is a web page (listed here, so fine), a message on
// discordapp.com is a Discord record the corpus must hold.
TEST_F(PublishTest, SourceRecordsAreTheLinksTheCorpusMustHold) {
  std::string md =
      "# T\n\nA report ([r](https://wandb.ai/e/p/reports/loss)).\n\n"
      "A message ([m](https://discordapp.com/channels/1/2/3)).\n"
      "<!--provenance-->\nWeb sources: https://wandb.ai/e/p/reports/loss\n";
  auto problems = CheckCitations(md, corpus_.get());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].url, "https://discordapp.com/channels/1/2/3");
  EXPECT_EQ(problems[0].message, "not in the corpus");
}

TEST_F(PublishTest, MathRendersWithKatexOrFallsBackToCode) {
  std::string md = "# T\n\nThe cost is $O(n^2)$ but $5 and $10 stay text.\n\n$$\n\\sum_i x_i\n$$\n\n`$not math$`\n";
  PublishOptions missing;
  missing.node = "/nonexistent/node";
  PublishResult fallback = Run(md, missing);
  EXPECT_NE(fallback.html.find("<code class=\"math\">O(n^2)</code>"), std::string::npos);
  EXPECT_NE(fallback.html.find("$5 and $10 stay text"), std::string::npos);
  EXPECT_NE(fallback.html.find("<code>$not math$</code>"), std::string::npos);
  bool warned = false;
  for (const auto& p : fallback.problems) warned |= p.message.find("math left as code") != std::string::npos;
  EXPECT_TRUE(warned);
  if (std::system("node -e \"require('/usr/share/nodejs/katex')\" >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "KaTeX (Debian package katex) is not installed";
  }
  PublishResult r = Run(md);
  EXPECT_NE(r.html.find("<span class=\"math\"><span class=\"katex\"><math"), std::string::npos);
  EXPECT_NE(r.html.find("<div class=\"math-display\">"), std::string::npos);
  EXPECT_NE(r.html.find("$5 and $10 stay text"), std::string::npos);
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 13, item 7: a record of a source on a host that is not the
// source's own is not a fetched page, whatever the corpus holds.
TEST_F(PublishTest, ARePointedRecordIsNotAFetchedPage) {
  auto b = corpus_->BeginWrite();
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk("o/r#9", "o/r#9", "issue", "https://evil.example.net/o/r/issues/9",
                                                    "Planted.")}).ok());
  ASSERT_TRUE((*b)->Commit().ok());
  auto problems = CheckCitations("See [#9](https://evil.example.net/o/r/issues/9).\n", corpus_.get());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].severity, CheckProblem::Severity::kError);
  EXPECT_NE(problems[0].message.find("not github's"), std::string::npos) << problems[0].message;
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 32: a page opened as a file has no server's CSP; its own loads
// nothing from another host (an image there would tell that host who reads)
// unless asked, and the check says which images will not show.
TEST_F(PublishTest, PagesLoadNothingFromOtherHosts) {
  const std::string md = "# T\n\nA chart ![c](https://tracker.example/pixel.png) of #7.\n";
  PublishResult page = Run(md);
  size_t meta = page.html.find("<meta http-equiv=\"Content-Security-Policy\"");
  ASSERT_NE(meta, std::string::npos);
  std::string csp = page.html.substr(meta, page.html.find('>', meta) - meta);
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("script-src 'sha256-"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("https:"), std::string::npos) << csp;
  PublishOptions remote;
  remote.allow_remote = true;
  EXPECT_NE(Run(md, remote).html.find("img-src 'self' data: https:"), std::string::npos);
  bool warned = false;
  for (const auto& p : CheckCitations(md, corpus_.get())) {
    warned = warned || (p.url == "https://tracker.example/pixel.png" && p.message.find("another host") != std::string::npos);
  }
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

std::string Linker(RefKind kind, const std::string& value) {
  switch (kind) {
    case RefKind::kIssue: return value == "#404" ? "" : "/thread?ref=" + value;
    case RefKind::kUser: return "https://github.com/" + value;
    case RefKind::kCommit: return "/commit/" + value;
  }
  return "";
}

TEST(SourceMarkdown, RendersMarkdownAndLinksReferencesOutsideCode) {
  std::string html = RenderSourceMarkdown(
      "Fixed in #12 and o/r#7 by @ann-b, see 3f2a9c1d.\nNext line `#13 @bob` and [#14](https://x.example/14).\n\n"
      "```\n#15 deadbee1\n```\nNot a ref: a#16, mail@host.example, 1234567, #404.",
      Linker);
  EXPECT_NE(html.find("<a href=\"/thread?ref=#12\">#12</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("<a href=\"/thread?ref=o/r#7\">o/r#7</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("<a href=\"https://github.com/ann-b\">@ann-b</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("<a href=\"/commit/3f2a9c1d\">3f2a9c1d</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("<br />"), std::string::npos) << "a newline in a comment is a line break";
  EXPECT_NE(html.find("<code>#13 @bob</code>"), std::string::npos) << html;
  EXPECT_NE(html.find("<a href=\"https://x.example/14\">#14</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("#15 deadbee1\n</code></pre>"), std::string::npos) << html;
  EXPECT_EQ(html.find("github.com/host"), std::string::npos) << "an address is not a login";
  for (const char* not_linked : {"#16", "bob\"", "/commit/1234567", "ref=#404"}) {
    EXPECT_EQ(html.find(std::string("\">") + not_linked), std::string::npos) << not_linked << ": " << html;
  }
  EXPECT_EQ(html.find("ref=#404"), std::string::npos);
}

TEST(SourceMarkdown, HostileTextStaysInert) {
  std::string html = RenderSourceMarkdown(
      "Text <script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3))\n\n"
      "<style>body{display:none}</style>\n\n[y](data:text/html,hi) evil\u202Etxt.exe",
      Linker);
  for (const char* bad : {"<script", "<img", "onerror", "javascript:", "<style", "data:text", "\u202E"}) {
    EXPECT_EQ(html.find(bad), std::string::npos) << bad << ": " << html;
  }
  EXPECT_NE(html.find("evil"), std::string::npos);
  // A dropped url leaves no anchor (an empty href would reload the page),
  // only its text.
  EXPECT_EQ(html.find("<a href=\"\""), std::string::npos) << html;
  EXPECT_NE(RenderSourceMarkdown("[click me](javascript:alert(3))").find("<p>click me</p>"), std::string::npos);
}

}  // namespace
}  // namespace umwelt

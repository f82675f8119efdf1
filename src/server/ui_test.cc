// The web UI's page bodies, rendered directly: hostile record text stays
// inert, references link, long threads and files paginate, search pages
// highlight, count and page.
#include "ui.h"

#include <gtest/gtest.h>

#include "corpus_fixtures.h"
#include "test_util.h"
#include "umwelt/text.h"

namespace umwelt::server_internal {
namespace {

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

class UiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutThread(testing::GithubThread("o/r#7", "issue", "open", "Loss spike", "ann", "x")).ok());
    ASSERT_TRUE((*b)->Commit().ok());
    view_.corpus = corpus_.get();
    view_.now = *ParseIsoTime("2026-12-03T12:00:00Z");
  }
  Chunk Comment(int i, const std::string& text) {
    Chunk c = testing::GithubChunk("o/r#9/c" + std::to_string(i), "o/r#9", "comment",
                                   "https://github.com/o/r/issues/9#issuecomment-" + std::to_string(i), text, "bo",
                                   "2026-12-01T09:30:00Z");
    return c;
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
  View view_;
};

TEST_F(UiTest, RecordTextIsMarkdownWithReferencesLinkedAndHostileTextInert) {
  ThreadView v;
  v.thread_ref = "o/r#9";
  v.thread = testing::GithubThread("o/r#9", "issue", "open", "t", "ann", "d");
  v.chunks = {Comment(1, "Same as #7 and #8, see `code` and **bold**; cc @kai.\n"
                         "<script>alert(1)</script><img src=x onerror=alert(2)>\n\n"
                         "[click](javascript:alert(3)) <a href=\"javascript:alert(4)\">a</a> "
                         "<style>*{display:none}</style> evil\u202Egnp.exe")};
  std::string h = ThreadBody(v, view_, 0);
  EXPECT_NE(h.find("<a href=\"/thread?ref=o%2Fr%237\">#7</a>"), std::string::npos) << "a mirrored thread opens here";
  EXPECT_NE(h.find("<a href=\"https://github.com/o/r/issues/8\">#8</a>"), std::string::npos) << "else on GitHub";
  EXPECT_NE(h.find("<a href=\"https://github.com/kai\">@kai</a>"), std::string::npos);
  EXPECT_NE(h.find("<code>code</code>"), std::string::npos);
  EXPECT_NE(h.find("<strong>bold</strong>"), std::string::npos);
  for (const char* bad : {"<script", "<img", "onerror", "javascript:", "<style", "\u202E", "`code`", "**bold**"}) {
    EXPECT_EQ(h.find(bad), std::string::npos) << bad;
  }
  EXPECT_NE(h.find("<time datetime=\"2026-12-01T09:30:00Z\" title=\"2026-12-01 09:30 UTC\">2 days ago</time>"),
            std::string::npos) << h;
}

TEST_F(UiTest, TenThousandCommentsArePagedAndTheFocusedOneIsOnItsPage) {
  ThreadView v;
  v.thread_ref = "o/r#9";
  v.thread = testing::GithubThread("o/r#9", "issue", "open", "t", "ann", "d");
  for (int i = 0; i < 10000; ++i) v.chunks.push_back(Comment(i, "comment number " + std::to_string(i)));
  v.focus_ref = "o/r#9/c4321";
  std::string first = ThreadBody(v, view_, 1);
  EXPECT_EQ(Count(first, "class=\"chunk"), static_cast<size_t>(kPageRecords));
  EXPECT_NE(first.find("records page 1 of 100"), std::string::npos);
  EXPECT_NE(first.find("href=\"/thread?ref=o%2Fr%239&amp;page=2\""), std::string::npos);
  std::string focused = ThreadBody(v, view_, 0);
  EXPECT_NE(focused.find("records page 44 of 100"), std::string::npos);
  EXPECT_NE(focused.find("class=\"chunk focus\" id=\"o/r#9/c4321\""), std::string::npos);
  EXPECT_LT(focused.size(), 200000u);
}

TEST_F(UiTest, CodeFileIsOneNumberedListingWithTheHitMarked) {
  ThreadView v;
  v.thread_ref = "local/r/blob/big.py";
  Thread t;
  t.ref = v.thread_ref;
  t.source = "code";
  t.kind = "file";
  t.title = "big.py";
  v.thread = t;
  // Windows of 60 lines every 45, as sync git cuts them, over 1,000 lines.
  for (int first = 1; first <= 1000; first += 45) {
    int last = std::min(1000, first + 59);
    Chunk c;
    c.source = "code";
    c.kind = "code";
    c.ref = v.thread_ref + "#L" + std::to_string(first) + "-L" + std::to_string(last);
    c.parent = v.thread_ref;
    for (int l = first; l <= last; ++l) c.text += (l > first ? "\n" : "") + std::string("x = ") + std::to_string(l) + " # <b>";
    if (first == 451) v.focus_ref = c.ref;
    v.chunks.push_back(c);
  }
  std::string h = ThreadBody(v, view_, 0);
  EXPECT_EQ(Count(h, "<div class=\"l"), static_cast<size_t>(kPageLines)) << "each line once, a page of them";
  EXPECT_NE(h.find("lines page 2 of 3"), std::string::npos);
  EXPECT_NE(h.find("<div class=\"l hit\" id=\"L451\"><a class=\"n\" href=\"#L451\">451</a><span class=\"t\">x = 451 # &lt;b&gt;</span>"),
            std::string::npos);
  EXPECT_EQ(Count(h, "class=\"l hit\""), 60u);
  EXPECT_EQ(h.find("<b>"), std::string::npos);
}

TEST_F(UiTest, SearchPageHighlightsCountsFacetsAndPages) {
  HybridResult r;
  for (int i = 0; i < 120; ++i) {
    Hit h;
    h.source = i % 3 ? "github" : "discord";
    h.kind = i % 3 ? "comment" : "message";
    h.ref = "o/r#" + std::to_string(i);
    h.url = "https://github.com/o/r/issues/" + std::to_string(i);
    h.title = "Hit " + std::to_string(i);
    h.snippet = "## Loss spikes [at step 2k](https://x.example/a) with **retries** `<b>`";
    r.hits.push_back(h);
  }
  SearchForm f;
  f.q = "retrying loss";
  f.page = 2;
  std::string h = SearchBody(f, &r, false, "", view_);
  EXPECT_NE(h.find("51–100 of 120 results"), std::string::npos) << "all 120 were read: the count is exact";
  EXPECT_NE(h.find("keyword only: this corpus has no vector index"), std::string::npos);
  EXPECT_NE(h.find("<ol class=\"hits\" start=\"51\">"), std::string::npos);
  EXPECT_EQ(Count(h, "<li>"), 50u);
  EXPECT_NE(h.find("<mark>Loss</mark> spikes at step 2k with <mark>retries</mark> &lt;b&gt;"), std::string::npos) << h;
  EXPECT_NE(h.find("discord<span class=\"n\">40</span>"), std::string::npos);
  EXPECT_NE(h.find("href=\"/?q=retrying%20loss&amp;source=github\""), std::string::npos) << "a facet narrows from page 1";
  EXPECT_NE(h.find("rel=\"prev\" href=\"/?q=retrying%20loss\""), std::string::npos);
  EXPECT_NE(h.find("rel=\"next\" href=\"/?q=retrying%20loss&amp;page=3\""), std::string::npos);
  f.page = 3;
  EXPECT_EQ(SearchBody(f, &r, false, "", view_).find("rel=\"next\""), std::string::npos);
}

TEST_F(UiTest, NavigationOffersOnlyWhatExists) {
  Chrome c;
  std::string bare = NavHtml(c);
  EXPECT_EQ(bare.find("Summaries"), std::string::npos);
  EXPECT_EQ(bare.find("Sign in"), std::string::npos);
  c.summaries = c.auth = true;
  EXPECT_NE(NavHtml(c).find("Summaries"), std::string::npos);
  EXPECT_NE(NavHtml(c).find("Sign in"), std::string::npos);
  c.user = "<ann>";
  EXPECT_NE(NavHtml(c).find("&lt;ann&gt; · <a href=\"/logout\">sign out</a>"), std::string::npos);
}

}  // namespace
}  // namespace umwelt::server_internal

#include "umwelt/pattern.h"
#include "umwelt/digest.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "corpus_fixtures.h"
#include "example_project.h"
#include "test_util.h"
#include "umwelt/publish.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
using testing::GithubChunk;
using testing::GithubThread;

const char* kWeek = "2026-11-16";  // Monday; the week runs to Sunday 2026-11-22

std::string Url(const std::string& ref) {
  size_t hash = ref.find('#');
  return "https://github.com/" + ref.substr(0, hash) + "/issues/" + ref.substr(hash + 1);
}

// A week of a small project: an epic with two sub-issues and a PR that fixes
// one, a dependency bump, an outside contributor's PR, two issues sharing a
// label, a PR closed unmerged, Discord chat (with reactions, a paper and an
// introduction), a finished run, and activity outside the week.
class DigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("c.db");
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto b = (*c)->BeginWrite();
    WriteBatch& w = **b;
    auto thread = [&](const std::string& ref, const std::string& kind, const std::string& state,
                      const std::string& title, const std::string& created, std::vector<std::string> labels = {},
                      const std::string& author = "ann", const std::string& assoc = "MEMBER") {
      Thread t = GithubThread(ref, kind, state, title, author);
      t.created = created;
      t.updated = created;
      t.labels = std::move(labels);
      t.author_association = assoc;
      return t;
    };
    auto put = [&](const Thread& t) { ASSERT_TRUE(w.PutThread(t).ok()); };
    auto chunk = [&](const std::string& ref, const std::string& parent, const std::string& kind,
                     const std::string& url, const std::string& text, const std::string& author,
                     const std::string& date) {
      Chunk ch = GithubChunk(ref, parent, kind, url, text, author, date);
      ch.title = "t";
      ASSERT_TRUE(w.PutRecord({ch}).ok());
      ASSERT_TRUE(w.PutLinks(ref, FindLinks(ref, text, "acme/widget", parent)).ok());
    };
    Thread epic = thread("acme/widget#1", "issue", "open", "Epic: faster inference", "2026-10-01T00:00:00Z", {"epic"});
    put(epic);
    Thread sub2 = thread("acme/widget#2", "issue", "closed", "Batch decode kernel", "2026-10-02T00:00:00Z");
    sub2.closed = "2026-11-19T10:00:00Z";
    sub2.state_reason = "completed";
    sub2.parent = "acme/widget#1";
    put(sub2);
    Thread sub3 = thread("acme/widget#3", "issue", "open", "KV cache paging", "2026-10-03T00:00:00Z");
    sub3.parent = "acme/widget#1";
    put(sub3);
    ASSERT_TRUE(w.LinkChildThread("github", "acme/widget#1", "acme/widget#2").ok());
    ASSERT_TRUE(w.LinkChildThread("github", "acme/widget#1", "acme/widget#3").ok());
    chunk("acme/widget#2/c1", "acme/widget#2", "comment", Url("acme/widget#2") + "#issuecomment-1",
          "Benchmarked the batch kernel: 2.5x faster decode at batch 32.", "bo", "2026-11-17T09:00:00Z");
    chunk("acme/widget#2/c2", "acme/widget#2", "comment", Url("acme/widget#2") + "#issuecomment-2",
          "We decided to ship the batch kernel as the default; closing.", "ann", "2026-11-19T09:59:00Z");
    chunk("acme/widget#3/c1", "acme/widget#3", "comment", Url("acme/widget#3") + "#issuecomment-3",
          "Paging prototype holds 4096 sequences in 80 GB.", "cy", "2026-11-18T12:00:00Z");
    Thread pr4 = thread("acme/widget#4", "pr", "merged", "Batch decode kernel", "2026-11-16T08:00:00Z");
    pr4.url = "https://github.com/acme/widget/pull/4";
    pr4.merged = pr4.closed = "2026-11-18T15:00:00Z";
    put(pr4);
    chunk("acme/widget#4", "acme/widget#4", "pr", "https://github.com/acme/widget/pull/4",
          "Fixes #2. Adds the batch decode kernel.", "bo", "2026-11-16T08:00:00Z");
    Thread bump = thread("acme/widget#5", "pr", "merged", "Bump requests from 2.31.0 to 2.32.0", "2026-11-17T00:00:00Z",
                         {}, "dependabot[bot]", "NONE");
    bump.url = "https://github.com/acme/widget/pull/5";
    bump.merged = bump.closed = "2026-11-17T05:00:00Z";
    put(bump);
    chunk("acme/widget#5", "acme/widget#5", "pr", bump.url, "Bumps requests from 2.31.0 to 2.32.0.",
          "dependabot[bot]", "2026-11-17T00:00:00Z");
    Thread out = thread("acme/widget#6", "pr", "open", "Add Windows support", "2026-11-20T00:00:00Z", {}, "zed",
                        "FIRST_TIME_CONTRIBUTOR");
    out.url = "https://github.com/acme/widget/pull/6";
    put(out);
    chunk("acme/widget#6", "acme/widget#6", "pr", out.url, "This adds Windows builds with MSVC.", "zed",
          "2026-11-20T00:00:00Z");
    Thread tok7 = thread("acme/widget#7", "issue", "closed", "Tokenizer drops emoji", "2026-11-01T00:00:00Z",
                         {"tokenizer"});
    tok7.closed = "2026-11-21T00:00:00Z";
    tok7.state_reason = "not_planned";
    put(tok7);
    chunk("acme/widget#7/c1", "acme/widget#7", "comment", Url("acme/widget#7") + "#issuecomment-7",
          "Upstream owns this; not something we will patch here.", "ann", "2026-11-20T23:00:00Z");
    Thread tok8 = thread("acme/widget#8", "issue", "open", "Tokenizer is slow on long inputs", "2026-11-02T00:00:00Z",
                         {"tokenizer"});
    put(tok8);
    chunk("acme/widget#8/c1", "acme/widget#8", "comment", Url("acme/widget#8") + "#issuecomment-8",
          "Profiling shows 40% of time in normalization.", "bo", "2026-11-21T10:00:00Z");
    Thread pr9 = thread("acme/widget#9", "pr", "closed", "Try a different allocator", "2026-11-10T00:00:00Z");
    pr9.url = "https://github.com/acme/widget/pull/9";
    pr9.closed = "2026-11-22T20:00:00Z";
    put(pr9);
    chunk("acme/widget#9/c1", "acme/widget#9", "comment", pr9.url + "#issuecomment-9",
          "No gain on our benchmarks, closing this experiment.", "cy", "2026-11-22T19:00:00Z");
    // Outside the week.
    chunk("acme/widget#3/c0", "acme/widget#3", "comment", Url("acme/widget#3") + "#issuecomment-0",
          "An early note from October.", "cy", "2026-10-20T00:00:00Z");
    // Discord.
    for (const char* ch : {"general", "introductions"}) {
      Thread t;
      t.ref = std::string("discord:1/") + (ch[0] == 'g' ? "10" : "20");
      t.source = "discord";
      t.kind = "text";
      t.title = std::string("#") + ch;
      t.url = "https://discord.com/channels/1/" + std::string(ch[0] == 'g' ? "10" : "20");
      put(t);
    }
    auto message = [&](const std::string& channel, const std::string& id, const std::string& text,
                       const std::string& author, const std::string& date) {
      Chunk m;
      m.source = "discord";
      m.kind = "message";
      m.ref = "discord:1/" + channel + "/" + id;
      m.parent = "discord:1/" + channel;
      m.title = channel == "10" ? "#general" : "#introductions";
      m.url = "https://discord.com/channels/1/" + channel + "/" + id;
      m.text = text;
      m.author = author;
      m.date = date;
      ASSERT_TRUE(w.PutRecord({m}).ok());
      ASSERT_TRUE(w.PutLinks(m.ref, FindLinks(m.ref, text, "acme/widget", m.parent)).ok());
    };
    message("10", "100", "Has anyone tried speculative decoding with the new kernel?", "dee", "2026-11-17T10:00:00Z");
    message("10", "101", "Good read on paged attention: https://arxiv.org/abs/2309.06180\nReactions: 🔥 7, 👍 2",
            "eve", "2026-11-18T10:00:00Z");
    message("10", "102", "The tokenizer slowness in #8 bites us too.", "dee", "2026-11-21T11:00:00Z");
    message("20", "200", "Hi all, I work on compilers and want to help with kernels.", "fay", "2026-11-19T10:00:00Z");
    // A finished run.
    Chunk run;
    run.source = "wandb";
    run.kind = "run";
    run.ref = run.parent = "wandb:acme/widget/bench-7";
    run.title = "bench-7";
    run.url = "https://wandb.ai/acme/widget/runs/bench-7";
    run.text = "Run bench-7, finished\nSummary: decode_tokens_per_s 5120, latency_ms 41";
    run.author = "bo";
    run.date = "2026-11-18T00:00:00Z";
    ASSERT_TRUE(w.PutRecord({run}).ok());
    Thread rt;
    rt.ref = run.ref;
    rt.source = "wandb";
    rt.kind = "run";
    rt.state = "finished";
    rt.title = "bench-7";
    rt.url = run.url;
    rt.author = "bo";
    rt.created = run.date;
    rt.updated = "2026-11-18T06:00:00Z";
    put(rt);
    ASSERT_TRUE(w.Commit().ok());
  }

  DigestOptions Options(const std::string& week = kWeek) {
    DigestOptions o;
    o.corpus_path = path_;
    o.period = *WeekOf(week);
    o.now = *ParseIsoTime("2026-11-30T12:00:00Z");
    return o;
  }

  const DigestSection* Find(const Digest& d, const std::string& kind) {
    for (const auto& s : d.sections) {
      if (s.kind == kind) return &s;
    }
    return nullptr;
  }

  testing::TempDir dir_;
  std::string path_;
};

// The strip draws one bar colour per category the sources declare.
TEST(DigestStrip, OneCategoryPerColour) { EXPECT_EQ(ActivityCategories().size(), static_cast<size_t>(kActivityKinds)); }

TEST_F(DigestTest, WeeksRunMondayToSunday) {
  EXPECT_EQ(WeekOf("2026-11-19")->id(), "2026-11-16_2026-11-22");
  EXPECT_EQ(WeekOf("2026-11-22")->id(), "2026-11-16_2026-11-22");
  EXPECT_EQ(WeekOf("2026-11-23")->id(), "2026-11-23_2026-11-29");
  EXPECT_EQ(LastCompleteWeek(*ParseIsoTime("2026-11-30T08:00:00Z")).id(), "2026-11-23_2026-11-29");
  EXPECT_EQ(LastCompleteWeek(*ParseIsoTime("2026-11-29T23:00:00Z")).id(), "2026-11-16_2026-11-22");
  EXPECT_FALSE(WeekOf("2026-02-30").ok());
  EXPECT_FALSE(WeekOf("next week").ok());
  EXPECT_FALSE(ParsePeriod("2026-11-20", "2026-11-10").ok());
  EXPECT_EQ(ParsePeriod("2026-11-01_2026-11-30", "")->days(), 30);
}

// A landed change's size comes from the facts of the chunk that knows it,
// never from text: a comment that pastes a "Changed:" line sizes nothing.
TEST_F(DigestTest, LandedSizesComeFromFactsNotText) {
  {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto body = (*c)->ChunkByRef("acme/widget#4");
    ASSERT_TRUE(body.ok() && *body);
    Chunk pr = **body;
    pr.facts = ChangeFacts({2, 10, 5});
    pr.updated = "2026-11-20T00:00:00Z";
    Chunk pasted = GithubChunk("acme/widget#4/c900", "acme/widget#4", "comment",
                               "https://github.com/acme/widget/pull/4#issuecomment-900",
                               "From the other repo:\nChanged: 900 file(s), +9000 \xE2\x88\x92" "1", "cy",
                               "2026-11-17T10:00:00Z");
    pasted.title = "t";
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({pasted}).ok());
    ASSERT_TRUE((*b)->PutRecord({pr}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto d = BuildDigest(Options());
  ASSERT_TRUE(d.ok()) << d.status().message();
  const LandedChange* four = nullptr;
  for (const auto& s : d->sections) {
    for (const auto& l : s.landed) {
      if (l.label == "#4") four = &l;
    }
  }
  ASSERT_NE(four, nullptr);
  EXPECT_EQ(four->files, 2);
  EXPECT_EQ(four->added, 10);
  EXPECT_EQ(four->removed, 5);
}

TEST_F(DigestTest, ExtractiveWeekGroupsWorkstreamsAndPassesTheChecks) {
  auto d = BuildDigest(Options());
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(d->extractive);
  EXPECT_FALSE(d->quiet);
  EXPECT_FALSE(d->partial);
  EXPECT_EQ(d->project, "acme/widget");
  // The epic leads, with its sub-issues and the PR that fixes one.
  ASSERT_FALSE(d->sections.empty());
  const DigestSection& epic = d->sections[0];
  EXPECT_EQ(epic.kind, "epic");
  EXPECT_EQ(epic.heading, "Epic: faster inference");
  std::set<std::string> refs;
  for (const auto& t : epic.threads) refs.insert(t.ref);
  EXPECT_TRUE(refs.count("acme/widget#2") && refs.count("acme/widget#3") && refs.count("acme/widget#4"));
  EXPECT_NE(epic.body.find("closed"), std::string::npos);
  EXPECT_NE(epic.body.find("Landed:\n\n- [\\#4](https://github.com/acme/widget/pull/4) Batch decode kernel"), std::string::npos)
      << epic.body;
  EXPECT_NE(epic.body.find("the thread's close-out"), std::string::npos);
  EXPECT_EQ(epic.body.find("An early note"), std::string::npos);  // outside the week
  // The two tokenizer issues are one workstream; #7 closed as not planned.
  const DigestSection* tok = nullptr;
  for (const auto& s : d->sections) {
    if (s.kind == "workstream" && s.body.find("Tokenizer") != std::string::npos) tok = &s;
  }
  ASSERT_NE(tok, nullptr);
  EXPECT_NE(tok->body.find("closed as not planned"), std::string::npos);
  EXPECT_EQ(tok->threads.size(), 3u) << "#7, #8 and the #general channel that links #8";
  // Fixed sections.
  ASSERT_NE(Find(*d, "maintenance"), nullptr);
  EXPECT_NE(Find(*d, "maintenance")->body.find("#5"), std::string::npos);
  ASSERT_NE(Find(*d, "outside"), nullptr);
  EXPECT_NE(Find(*d, "outside")->body.find("opened by zed"), std::string::npos);
  ASSERT_NE(Find(*d, "chat"), nullptr);
  EXPECT_NE(Find(*d, "chat")->body.find("Most reacted (9)"), std::string::npos) << Find(*d, "chat")->body;
  EXPECT_EQ(Find(*d, "chat")->heading, "Discord");
  ASSERT_NE(Find(*d, "introductions"), nullptr);
  EXPECT_NE(Find(*d, "introductions")->body.find("compilers"), std::string::npos);
  ASSERT_NE(Find(*d, "reading"), nullptr);
  EXPECT_NE(Find(*d, "reading")->body.find("https://arxiv.org/abs/2309.06180"), std::string::npos);
  ASSERT_NE(Find(*d, "runs"), nullptr);
  EXPECT_NE(Find(*d, "runs")->body.find("5120"), std::string::npos) << Find(*d, "runs")->body;
  bool closed_unmerged = false;
  for (const auto& s : d->sections) closed_unmerged |= s.body.find("closed without merge") != std::string::npos;
  EXPECT_TRUE(closed_unmerged);
  // Activity strips: one slot per day.
  EXPECT_EQ(epic.days.size(), 7u);
  EXPECT_EQ(epic.days[1][2], 1);  // Tuesday: one comment (#2)
  // Tiers and checks.
  EXPECT_LE(d->xs.size(), 280u);
  EXPECT_EQ(d->xs.find('\n'), std::string::npos);
  auto corpus = Corpus::Open(path_, Corpus::Mode::kReadOnly);
  auto check = CheckDigest(*d, **corpus);
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->bad_links.empty()) << check->bad_links[0];
  EXPECT_GT(check->links, 10);
  EXPECT_EQ(check->covered, check->notable) << (check->missed.empty() ? "" : check->missed[0]);
  EXPECT_GE(check->notable, 4);
  EXPECT_TRUE(check->xs_ok);
  EXPECT_TRUE(check->s_ok);
  EXPECT_EQ(check->s_bullets, check->m_sections);
  std::string s = DigestS(*d);
  EXPECT_EQ(static_cast<size_t>(std::count(s.begin(), s.end(), '\n')), d->sections.size());
  // A short comment that states a measure is quoted whole (measures left
  // unquoted are listed by their quantity: DigestWeekTest).
  std::string all_bodies;
  for (const auto& s : d->sections) all_bodies += s.body;
  EXPECT_NE(all_bodies.find("> Profiling shows 40% of time in normalization. — [bo, "), std::string::npos) << all_bodies;
}

TEST_F(DigestTest, SiteFeedAndCorpusRoundTrip) {
  std::string site = dir_.File("site");
  for (const char* week : {"2026-11-09", "2026-11-16", "2026-11-23"}) {
    auto d = BuildDigest(Options(week));
    ASSERT_TRUE(d.ok()) << d.status().message();
    auto corpus = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    auto page = WriteDigestSite(*d, {site, "https://digest.example/acme", 0}, corpus->get());
    ASSERT_TRUE(page.ok()) << page.status().message();
    ASSERT_TRUE(StoreDigest(**corpus, *d, "https://digest.example/acme/" + SitePagePath(d->period.id())).ok());
  }
  std::string html = testing::ReadFileOrEmpty(site + "/summaries/summary-2026-11-16_2026-11-22.html");
  ASSERT_FALSE(html.empty());
  // Previous and next, the strips, hover cards, nothing unescaped.
  EXPECT_NE(html.find("href=\"summary-2026-11-09_2026-11-15.html\""), std::string::npos);
  EXPECT_NE(html.find("href=\"summary-2026-11-23_2026-11-29.html\""), std::string::npos);
  EXPECT_NE(html.find("<figure class=\"activity\" id=\"s-epic-acme-widget-1\"><svg"), std::string::npos);
  EXPECT_NE(html.find("role=\"img\""), std::string::npos);
  EXPECT_NE(html.find("class=\"card\""), std::string::npos);
  EXPECT_EQ(html.find("UMWELTFIGURE"), std::string::npos);
  EXPECT_EQ(html.find("UMWELTPERIODNAV"), std::string::npos);
  // The first page learned of its next neighbour after it was written.
  std::string first = testing::ReadFileOrEmpty(site + "/summaries/summary-2026-11-09_2026-11-15.html");
  EXPECT_NE(first.find("href=\"summary-2026-11-16_2026-11-22.html\""), std::string::npos);
  // Neighbours are linked only when they exist: the first page has no arrow back.
  EXPECT_EQ(first.find("\xE2\x86\x90"), std::string::npos) << "a bare left arrow on the first page";
  std::string last = testing::ReadFileOrEmpty(site + "/summaries/summary-2026-11-23_2026-11-29.html");
  EXPECT_EQ(last.find("\xE2\x86\x92"), std::string::npos) << "a bare right arrow on the last page";
  for (const char* f : {".md", ".s.md", ".xs.md", ".json"}) {
    EXPECT_TRUE(std::filesystem::exists(site + "/summaries/summary-2026-11-16_2026-11-22" + f)) << f;
  }
  EXPECT_NE(html.find("href=\"../index.html\""), std::string::npos);
  // Index: newest first, with the chart, linking the pages the way the
  // reference client looks for them; the feed names each period.
  std::string index = testing::ReadFileOrEmpty(site + "/index.html");
  size_t newest = index.find("href=\"summaries/summary-2026-11-23_2026-11-29.html\""),
         oldest = index.find("href=\"summaries/summary-2026-11-09_2026-11-15.html\"");
  ASSERT_NE(newest, std::string::npos);
  ASSERT_NE(oldest, std::string::npos);
  EXPECT_LT(newest, oldest);
  EXPECT_NE(index.find("<figure class=\"chart\"><svg"), std::string::npos);
  std::string feed = testing::ReadFileOrEmpty(site + "/feed.xml");
  EXPECT_NE(feed.find("<feed xmlns=\"http://www.w3.org/2005/Atom\">"), std::string::npos);
  EXPECT_NE(feed.find("<link href=\"https://digest.example/acme/summaries/summary-2026-11-16_2026-11-22.html\"/>"), std::string::npos);
  EXPECT_EQ(std::count(feed.begin(), feed.end(), '\n') > 10, true);
  // Fed back: listed newest first, shown, links in order, searchable rows.
  auto corpus = Corpus::Open(path_, Corpus::Mode::kReadOnly);
  auto list = ListSummaries(**corpus);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].period, "2026-11-23_2026-11-29");
  EXPECT_EQ((*list)[1].xs.substr(0, 3), (*list)[1].xs.substr(0, 3));
  auto text = SummaryText(**corpus, "2026-11-19");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("## Epic: faster inference"), std::string::npos);
  auto links = SummaryLinks(**corpus, "2026-11-16_2026-11-22");
  ASSERT_TRUE(links.ok());
  std::set<std::string> unique(links->begin(), links->end());
  EXPECT_EQ(unique.size(), links->size());
  EXPECT_NE(std::find(links->begin(), links->end(), "https://github.com/acme/widget/pull/4"), links->end());
  auto sections = (*corpus)->RecordRefs("narrative:2026-11-16_2026-11-22", "summary");
  ASSERT_TRUE(sections.ok());
  EXPECT_GE(sections->size(), 8u);
  auto row = (*corpus)->ChunkByRef("narrative:2026-11-16_2026-11-22/01-epic-acme-widget-1");
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->source, "narrative");
  EXPECT_EQ((*row)->url, "https://digest.example/acme/summaries/summary-2026-11-16_2026-11-22.html#s-epic-acme-widget-1");
  auto linked = (*corpus)->LinkedFrom("acme/widget#4");
  ASSERT_TRUE(linked.ok());
  bool from_digest = false;
  for (const auto& c : *linked) from_digest |= c.source == "narrative";
  EXPECT_TRUE(from_digest);
  EXPECT_FALSE(SummaryText(**corpus, "2020-01-01_2020-01-07").ok());
}

// A site an older umwelt wrote flat (pages beside the index) moves into the
// reference layout on the next run; nothing it held is lost, and the moved
// pages link the index where it now is.
TEST_F(DigestTest, AFlatSiteMovesIntoTheReferenceLayout) {
  std::string site = dir_.File("site");
  auto corpus = Corpus::Open(path_, Corpus::Mode::kReadWrite);
  auto first = BuildDigest(Options("2026-11-09"));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(WriteDigestSite(*first, {site, "", 0}, corpus->get()).ok());
  // Make it the old layout: the period's files beside the index.
  for (const auto& e : std::filesystem::directory_iterator(site + "/summaries")) {
    std::filesystem::rename(e.path(), site + "/" + e.path().filename().string());
  }
  testing::WriteFile(site + "/notes.txt", "the operator's own file");
  auto second = BuildDigest(Options("2026-11-16"));
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(WriteDigestSite(*second, {site, "", 0}, corpus->get()).ok());
  for (const char* f : {".html", ".json", ".md", ".s.md", ".xs.md"}) {
    EXPECT_TRUE(std::filesystem::exists(site + "/summaries/summary-2026-11-09_2026-11-15" + f)) << f;
    EXPECT_FALSE(std::filesystem::exists(site + "/summary-2026-11-09_2026-11-15" + f)) << f;
  }
  EXPECT_EQ(testing::ReadFileOrEmpty(site + "/notes.txt"), "the operator's own file");
  std::string moved = testing::ReadFileOrEmpty(site + "/summaries/summary-2026-11-09_2026-11-15.html");
  EXPECT_NE(moved.find("href=\"../index.html\""), std::string::npos);
  EXPECT_NE(moved.find("href=\"summary-2026-11-16_2026-11-22.html\""), std::string::npos);
  std::string index = testing::ReadFileOrEmpty(site + "/index.html");
  EXPECT_NE(index.find("href=\"summaries/summary-2026-11-09_2026-11-15.html\""), std::string::npos);
  EXPECT_NE(index.find("href=\"summaries/summary-2026-11-16_2026-11-22.html\""), std::string::npos);
}

TEST_F(DigestTest, NextWeekContinuesFromLastWeeksSection) {
  // Store this week's digest, then add activity on the epic a week later.
  auto d = BuildDigest(Options());
  ASSERT_TRUE(d.ok());
  {
    auto corpus = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(StoreDigest(**corpus, *d, "https://digest.example/x.html").ok());
    auto b = (*corpus)->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({GithubChunk("acme/widget#3/c9", "acme/widget#3", "comment",
                                             Url("acme/widget#3") + "#issuecomment-9",
                                             "Paging now holds 8192 sequences.", "cy", "2026-11-24T00:00:00Z")})
                    .ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto next = BuildDigest(Options("2026-11-23"));
  ASSERT_TRUE(next.ok());
  ASSERT_FALSE(next->sections.empty());
  EXPECT_EQ(next->sections[0].slug, "epic-acme-widget-1");
  EXPECT_FALSE(next->sections[0].previous.empty());
  size_t at = next->sections[0].body.find("Last week: ");
  ASSERT_NE(at, std::string::npos);
  // Last week's words as a reader saw them, not its Markdown source.
  std::string line = next->sections[0].body.substr(at, next->sections[0].body.find('\n', at) - at);
  EXPECT_EQ(line.find("]("), std::string::npos) << line;
}

TEST_F(DigestTest, QuietFutureAndPartialWeeks) {
  auto quiet = BuildDigest(Options("2026-06-01"));
  ASSERT_TRUE(quiet.ok());
  EXPECT_TRUE(quiet->quiet);
  EXPECT_TRUE(quiet->sections.empty());
  EXPECT_NE(quiet->xs.find("Quiet week"), std::string::npos);
  auto corpus = Corpus::Open(path_, Corpus::Mode::kReadOnly);
  auto page = WriteDigestSite(*quiet, {dir_.File("quiet"), "", 0}, corpus->get());
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_NE(testing::ReadFileOrEmpty(*page).find("Quiet week"), std::string::npos);

  auto future = BuildDigest(Options("2027-01-04"));
  ASSERT_FALSE(future.ok());
  EXPECT_EQ(future.status().code(), Code::kInvalidArgument);
  EXPECT_NE(future.status().message().find("has not begun"), std::string::npos);

  DigestOptions o = Options();
  o.now = *ParseIsoTime("2026-11-19T12:00:00Z");
  auto partial = BuildDigest(o);
  ASSERT_TRUE(partial.ok());
  EXPECT_TRUE(partial->partial);
}

TEST_F(DigestTest, HundredsOfSubIssuesAndParentCyclesMakeOneSection) {
  {
    auto corpus = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    auto b = (*corpus)->BeginWrite();
    Thread big = GithubThread("acme/widget#1000", "issue", "open", "Epic: port everything");
    big.labels = {"epic"};
    ASSERT_TRUE((*b)->PutThread(big).ok());
    for (int i = 1; i <= 300; ++i) {
      std::string ref = "acme/widget#" + std::to_string(1000 + i);
      Thread t = GithubThread(ref, "issue", "open", "Port module " + std::to_string(i));
      t.parent = "acme/widget#1000";
      ASSERT_TRUE((*b)->PutThread(t).ok());
      ASSERT_TRUE((*b)->LinkChildThread("github", "acme/widget#1000", ref).ok());
      ASSERT_TRUE((*b)->PutRecord({GithubChunk(ref + "/c1", ref, "comment", Url(ref) + "#issuecomment-" + std::to_string(5000 + i),
                                               "Ported module " + std::to_string(i) + ".", "gus", "2026-11-18T00:00:00Z")})
                      .ok());
    }
    // A parent cycle with no epic label: #2001 -> #2002 -> #2001.
    Thread a = GithubThread("acme/widget#2001", "issue", "open", "Cycle A");
    a.parent = "acme/widget#2002";
    Thread c = GithubThread("acme/widget#2002", "issue", "open", "Cycle B");
    c.parent = "acme/widget#2001";
    ASSERT_TRUE((*b)->PutThread(a).ok());
    ASSERT_TRUE((*b)->PutThread(c).ok());
    ASSERT_TRUE((*b)->PutRecord({GithubChunk("acme/widget#2001/c1", "acme/widget#2001", "comment",
                                             Url("acme/widget#2001") + "#issuecomment-77", "Cycle note one.", "gus",
                                             "2026-11-18T00:00:00Z")})
                    .ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto d = BuildDigest(Options());
  ASSERT_TRUE(d.ok()) << d.status().message();
  int port_sections = 0;
  for (const auto& s : d->sections) {
    if (s.heading == "Epic: port everything") {
      ++port_sections;
      EXPECT_EQ(s.threads.size(), 301u);
      EXPECT_LE(std::count(s.body.begin(), s.body.end(), '>'), 3 * 4 + 2);  // three quotes, not 300
    }
  }
  EXPECT_EQ(port_sections, 1);
  EXPECT_LE(d->xs.size(), 280u);
}

// The reference system's schema: chunks only, no threads, states or links.
TEST(DigestReferenceSchema, SummarizesChunksWithoutThreadMetadata) {
  testing::TempDir dir;
  std::string path = dir.File("corpus-index.db");
  testing::WriteReferenceCorpus(
      path, "('schema_version','3')",
      "('github','comment','m/m#5/c1','m/m#5','MFU on H100','ann','2026-11-17T00:00:00Z',"
      "'https://github.com/m/m/issues/5#issuecomment-1','we measured 38% MFU on the hero run',0,1,''),"
      "('github','comment','m/m#5/c2','m/m#5','MFU on H100','bo','2026-11-18T00:00:00Z',"
      "'https://github.com/m/m/issues/5#issuecomment-2','and 41% after the fix landed',0,1,'')");
  DigestOptions o;
  o.corpus_path = path;
  o.period = *WeekOf(kWeek);
  o.now = *ParseIsoTime("2026-11-30T00:00:00Z");
  auto d = BuildDigest(o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->sections.size(), 1u);
  EXPECT_NE(d->sections[0].body.find("41%"), std::string::npos);
  EXPECT_FALSE(d->notes.empty());
  auto corpus = Corpus::Open(path, Corpus::Mode::kReadOnly);
  auto page = WriteDigestSite(*d, {dir.File("site"), "", 0}, corpus->get());
  EXPECT_TRUE(page.ok()) << page.status().message();
}

// A scripted OpenAI-compatible model: each section's answer cites one real
// url and one invented one, states an invented number and an unknown #N.
class DigestLlmTest : public DigestTest {
 protected:
  void Serve(std::atomic<int>* fail_from = nullptr) {
    server_.server().Post("/v1/chat/completions", [this, fail_from](const httplib::Request& req, httplib::Response& res) {
      json body = json::parse(req.body);
      std::string system = body["messages"][0]["content"];
      std::string user = body["messages"].back()["content"];
      int n = ++calls_;
      if (fail_from && n >= fail_from->load()) {
        res.status = 500;
        res.set_content("{\"error\":\"down\"}", "application/json");
        return;
      }
      std::string content;
      if (system.find("one section of a weekly summary") != std::string::npos) {
        if (user.find("What landed this period, biggest first") != std::string::npos) ++landed_packs_;
        Groups m;
        static const Pattern url(R"re(url="([^"]+)")re");
        std::string first = url.Search(user, &m) ? std::string(m[1]) : "";
        content = json{{"heading", "Model heading"},
                       {"body", "Work moved forward ([source](" + first + ")).\n\n"
                                "It also fixed everything ([made up](https://github.com/acme/widget/issues/999)).\n\n"
                                "Throughput rose 97% ([source](" + first + ")).\n\n"
                                "See #31337 for more ([source](" + first + "))."}}
                      .dump();
      } else if (system.find("into bullets") != std::string::npos) {
        int sections = 0;
        for (size_t p = 0; (p = user.find("Section ", p)) != std::string::npos; ++p) ++sections;
        json bullets = json::array();
        for (int i = 0; i < sections; ++i) bullets.push_back("Work moved forward");
        content = json{{"bullets", bullets}}.dump();
      } else {
        content = json{{"xs", "A week of steady work across the project."}}.dump();
      }
      res.set_content(json{{"choices", json::array({{{"message", {{"role", "assistant"}, {"content", content}}}}})},
                           {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 20}}}}
                          .dump(),
                      "application/json");
    });
  }
  std::unique_ptr<ChatModel> Model(bool replay = false) {
    LlmOptions lo;
    lo.spec = "openai:" + server_.base() + "/v1#scripted";
    lo.cache_dir = dir_.File("llm-cache");
    lo.max_retries = 1;
    lo.backoff_seconds = 0;
    lo.replay = replay;
    lo.sleep = [](double) {};
    return std::move(*ChatModel::Open(lo));
  }
  testing::TestServer server_;
  std::atomic<int> calls_{0};
  std::atomic<int> landed_packs_{0};  // section requests that carried the landed list
};

TEST_F(DigestLlmTest, ModelSectionsAreCheckedAndCachedRerunsAreFree) {
  Serve();
  auto llm = Model();
  DigestOptions o = Options();
  o.llm = llm.get();
  auto d = BuildDigest(o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->extractive);
  int written = 0;
  for (const auto& s : d->sections) written += s.kind != "reading";
  EXPECT_EQ(calls_.load(), written + 2);  // one per section, then S and XS
  EXPECT_GE(landed_packs_.load(), 1);     // the section with the merged PR leads with what landed
  for (const auto& s : d->sections) {
    if (s.kind == "reading") continue;
    EXPECT_NE(s.body.find("Work moved forward"), std::string::npos);
    EXPECT_EQ(s.body.find("issues/999"), std::string::npos);
    EXPECT_EQ(s.body.find("97%"), std::string::npos);
    EXPECT_EQ(s.body.find("#31337"), std::string::npos);
    EXPECT_EQ(s.bullet, "Work moved forward");
  }
  EXPECT_EQ(d->xs, "A week of steady work across the project.");
  bool invented_url = false, invented_number = false, invented_ref = false;
  for (const auto& r : d->removed) {
    invented_url |= r.find("issues/999") != std::string::npos;
    invented_number |= r.find("97%") != std::string::npos;
    invented_ref |= r.find("#31337") != std::string::npos;
  }
  EXPECT_TRUE(invented_url && invented_number && invented_ref);
  auto corpus = Corpus::Open(path_, Corpus::Mode::kReadOnly);
  auto check = CheckDigest(*d, **corpus);
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->bad_links.empty());
  EXPECT_TRUE(check->s_ok && check->xs_ok);
  // The rerun is answered from the cache, even in replay mode.
  int before = calls_.load();
  auto replay = Model(true);
  o.llm = replay.get();
  auto again = BuildDigest(o);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(calls_.load(), before);
  EXPECT_EQ(DigestM(*again), DigestM(*d));
}

TEST_F(DigestLlmTest, ProviderFailureMidDigestKeepsWrittenSectionsForTheRerun) {
  std::atomic<int> fail_from{4};  // the 4th request onwards fails
  Serve(&fail_from);
  auto llm = Model();
  DigestOptions o = Options();
  o.llm = llm.get();
  auto d = BuildDigest(o);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("rerun to resume"), std::string::npos) << d.status().message();
  EXPECT_NE(d.status().message().find("the model failed on section"), std::string::npos);
  // The provider recovers; the rerun asks only for what was not written.
  int failed_calls = calls_.load();
  fail_from = 1 << 30;
  calls_ = 0;
  auto llm2 = Model();
  o.llm = llm2.get();
  auto rerun = BuildDigest(o);
  ASSERT_TRUE(rerun.ok()) << rerun.status().message();
  int sections = 0;
  for (const auto& s : rerun->sections) sections += s.kind != "reading";
  EXPECT_GT(failed_calls, 3);
  EXPECT_EQ(calls_.load(), sections + 2 - 3);  // three sections came from the cache
}

TEST_F(DigestTest, PostsTiersToDiscordAndSlackWebhooks) {
  testing::TestServer hook;
  std::vector<json> posted;
  std::mutex mu;
  int limited = 1;  // the first post is rate limited (Discord's body says for how long): posted again once
  hook.server().Post(R"(/api/webhooks/(\d+)/(\w+))", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    if (limited-- > 0) {
      res.status = 429;
      res.set_content("{\"message\":\"You are being rate limited.\",\"retry_after\":0.05,\"global\":false}",
                      "application/json");
      return;
    }
    posted.push_back(json::parse(req.body));
    res.set_content("{\"id\":\"1\"}", "application/json");
  });
  hook.server().Post("/services/T0/B0/secret", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    posted.push_back(json::parse(req.body));
    res.set_content("ok", "text/plain");
  });
  auto d = BuildDigest(Options());
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(PostDigest(*d, "discord", hook.base() + "/api/webhooks/123/tok3n").ok());
  ASSERT_GE(posted.size(), 2u + d->sections.size() - 1);
  EXPECT_NE(posted[0]["content"].get<std::string>().find(d->xs), std::string::npos);
  for (const auto& p : posted) EXPECT_LE(p["content"].get<std::string>().size(), 2000u);
  EXPECT_EQ(hook.requests()[0], "/api/webhooks/123/tok3n?wait=true");
  EXPECT_EQ(hook.requests().size(), posted.size() + 1);  // the limited one, once more
  size_t discord = posted.size();
  ASSERT_TRUE(PostDigest(*d, "slack", hook.base() + "/services/T0/B0/secret").ok());
  ASSERT_GT(posted.size(), discord);
  EXPECT_TRUE(posted[discord].contains("text"));
  // A failing hook names the status, never the url's secret.
  auto bad = PostDigest(*d, "slack", hook.base() + "/services/T0/B0/wrong-secret");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("HTTP 404"), std::string::npos);
  EXPECT_EQ(bad.message().find("wrong-secret"), std::string::npos);
  EXPECT_FALSE(PostDigest(*d, "teams", "https://x.example").ok());
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 16, item 9: shared reading lists public pages only, without
// credentials, and leaves review-tool mirrors of the project's PRs out.
TEST_F(DigestTest, SharedReadingIsPublicAndCarriesNoCredentials) {
  {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE(b.ok());
    Chunk m;
    m.source = "discord";
    m.kind = "message";
    m.ref = "discord:1/10/190";
    m.parent = "discord:1/10";
    m.url = "https://discord.com/channels/1/10/190";
    m.text = "Links: http://localhost:29510/ https://10.0.0.5/dash http://intranet/wiki https://box.internal/x "
             "https://report.example.org/r?accessToken=abc123&page=2 https://bob:hunter2@files.example.com/p "
             "https://app.graphite.dev/github/pr/acme/widget/4 https://bucket.example.net/o?X-Amz-Signature=ff&v=1 "
             "https://blog.example.org/post-on-kv-caches";
    m.author = "gus";
    m.date = "2026-11-20T10:00:00Z";
    ASSERT_TRUE((*b)->PutRecord({m}).ok());
    ASSERT_TRUE((*b)->PutLinks(m.ref, FindLinks(m.ref, m.text, "acme/widget", m.parent)).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto d = BuildDigest(Options());
  ASSERT_TRUE(d.ok()) << d.status().message();
  std::set<std::string> links(d->shared_links.begin(), d->shared_links.end());
  EXPECT_TRUE(links.count("https://blog.example.org/post-on-kv-caches"));
  EXPECT_TRUE(links.count("https://report.example.org/r?page=2"));
  EXPECT_TRUE(links.count("https://files.example.com/p"));
  EXPECT_TRUE(links.count("https://bucket.example.net/o?v=1"));
  EXPECT_TRUE(links.count("https://arxiv.org/abs/2309.06180"));
  const DigestSection* reading = nullptr;
  for (const auto& s : d->sections) {
    if (s.kind == "reading") reading = &s;
  }
  ASSERT_NE(reading, nullptr);
  std::string all = reading->body;
  for (const char* bad : {"localhost", "10.0.0.5", "intranet", "box.internal", "accessToken", "abc123", "hunter2",
                          "graphite.dev", "X-Amz"}) {
    EXPECT_EQ(all.find(bad), std::string::npos) << bad;
    for (const auto& l : d->shared_links) EXPECT_EQ(l.find(bad), std::string::npos) << l;
  }
  // Nor does a quote of the message republish its credentials.
  std::string everything;
  for (const auto& s : d->sections) everything += s.body + "\n";
  for (const char* secret : {"abc123", "hunter2"}) EXPECT_EQ(everything.find(secret), std::string::npos) << secret;
}

}  // namespace
}  // namespace umwelt

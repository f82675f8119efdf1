#include <gtest/gtest.h>

#include <chrono>

#include <filesystem>

#include "github_fake.h"
#include "umwelt/github.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt::github {
namespace {

using testing::GithubFake;

class SyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
    http_ = NewCurlHttpClient();
  }
  SyncOptions Options() {
    SyncOptions o;
    o.repo = "o/r";
    o.api_base = fake_.base();
    o.token = "tok-secret-123";
    o.backoff_seconds = 0.01;
    o.sleep = [this](double s) { sleeps_.push_back(s); };
    return o;
  }
  Status RunSync(SyncReport* report = nullptr) {
    SyncReport local;
    return Sync(*corpus_, *http_, Options(), report ? report : &local);
  }
  int64_t Chunks() { return corpus_->Stats()->total_chunks; }

  testing::TempDir dir_;
  GithubFake fake_;
  std::unique_ptr<Corpus> corpus_;
  std::unique_ptr<HttpClient> http_;
  std::vector<double> sleeps_;
};

TEST_F(SyncTest, FullThenIncrementalWithPaginationAndFollowUps) {
  fake_.set_per_page_cap(2);  // forces Link pagination
  for (int n = 1; n <= 5; ++n) fake_.PutIssue(n, "body " + std::to_string(n), "2024-01-0" + std::to_string(n) + "T00:00:00Z");
  fake_.PutIssue(6, "a pull request", "2024-01-06T00:00:00Z", /*pr=*/true);
  fake_.PutReview(6, 900, "approve with a note");
  fake_.PutReviewComment(6, 901, "rename this", "2024-01-06T01:00:00Z");
  fake_.PutComment(1, 100, "first comment", "2024-01-07T00:00:00Z");
  fake_.PutIssue(7, "epic body", "2024-01-08T00:00:00Z", false, /*sub_issue_total=*/2);
  fake_.AddSubIssue(7, 2);
  fake_.AddSubIssue(7, 3);
  SyncReport r1;
  ASSERT_TRUE(RunSync(&r1).ok());
  EXPECT_EQ(Chunks(), 7 + 1 + 1 + 1);  // bodies, comment, review, review comment
  auto epic = corpus_->GetThread("o/r#7").value();
  ASSERT_TRUE(epic.has_value());
  EXPECT_EQ(epic->children, (std::vector<std::string>{"o/r#2", "o/r#3"}));
  EXPECT_TRUE(corpus_->ChunkByRef("o/r#6/r900")->has_value());
  // The token went in the Authorization header.
  for (const auto& h : fake_.server().auth_headers()) EXPECT_EQ(h, "Bearer tok-secret-123");
  auto state = corpus_->GetSyncState("github:o/r").value();
  ASSERT_TRUE(state.has_value());
  EXPECT_FALSE(state->last_success.empty());
  EXPECT_NE(state->cursor.find("2024-01-08T00:00:00Z"), std::string::npos);

  // A comment added to an old thread is caught by the since-listing.
  fake_.PutComment(2, 101, "late reply to an old thread", "2024-03-01T00:00:00Z");
  size_t before = fake_.server().requests().size();
  SyncReport r2;
  ASSERT_TRUE(RunSync(&r2).ok());
  EXPECT_EQ(Chunks(), 11);
  EXPECT_TRUE(corpus_->ChunkByRef("o/r#2/c101")->has_value());
  auto reqs = fake_.server().requests();
  bool used_since = false;
  for (size_t i = before; i < reqs.size(); ++i) used_since |= reqs[i].find("since=2024-01-08") != std::string::npos;
  EXPECT_TRUE(used_since);
}

TEST_F(SyncTest, UnchangedListingCostsA304) {
  fake_.PutIssue(1, "only", "2024-01-01T00:00:00Z");
  ASSERT_TRUE(RunSync().ok());
  // The second sync asks from the new cursor; from then on nothing changes.
  ASSERT_TRUE(RunSync().ok());
  SyncReport r;
  ASSERT_TRUE(RunSync(&r).ok());
  EXPECT_EQ(r.not_modified, 3);  // issues, comments, review comments
  EXPECT_EQ(r.requests, 3);
  EXPECT_EQ(r.changed, 0);
}

TEST_F(SyncTest, EditsAndDeletionsAreApplied) {
  fake_.PutIssue(1, "thread", "2024-01-01T00:00:00Z");
  fake_.PutComment(1, 10, "keep me", "2024-01-02T00:00:00Z");
  fake_.PutComment(1, 11, "delete me", "2024-01-03T00:00:00Z");
  ASSERT_TRUE(RunSync().ok());
  EXPECT_EQ(Chunks(), 3);
  fake_.PutComment(1, 10, "keep me, edited", "2024-02-01T00:00:00Z");
  fake_.DeleteComment(1, 11, "2024-02-02T00:00:00Z");
  SyncReport r;
  ASSERT_TRUE(RunSync(&r).ok());
  EXPECT_EQ(r.deleted, 1);
  EXPECT_EQ(Chunks(), 2);
  EXPECT_EQ((*corpus_->ChunkByRef("o/r#1/c10"))->text, "keep me, edited");
  EXPECT_FALSE(corpus_->ChunkByRef("o/r#1/c11")->has_value());
}

TEST_F(SyncTest, RetriesServerErrorsDroppedConnectionsAndRateLimits) {
  fake_.PutIssue(1, "x", "2024-01-01T00:00:00Z");
  fake_.AddFault({"/repos/o/r/issues", 502});
  fake_.AddFault({"/repos/o/r/issues", 0});  // dropped connection
  std::string reset = std::to_string(NowEpoch() + 30);
  fake_.AddFault({"/repos/o/r/issues", 403, {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", reset}}});
  fake_.AddFault({"/repos/o/r/issues", 403, {{"Retry-After", "7"}}, "{\"message\":\"secondary rate limit\"}"});
  SyncReport r;
  Status s = RunSync(&r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.retries, 4);
  ASSERT_EQ(sleeps_.size(), 4u);
  EXPECT_GE(sleeps_[2], 25.0);  // waited for the reset
  EXPECT_LE(sleeps_[2], 32.0);
  EXPECT_EQ(sleeps_[3], 7.0);   // honoured Retry-After
  EXPECT_EQ(Chunks(), 1);
}

// Issue 15's clock seam: with the process's clock a ManualClock, a sync that
// must wait for GitHub's rate limit to reset moves the clock, not the test;
// the sync state is stamped with the clock's time.
TEST_F(SyncTest, WaitsOnTheProcessClock) {
  ManualClock clock(*ParseIsoTime("2026-11-30T12:00:00Z"));
  fake_.PutIssue(1, "x", "2024-01-01T00:00:00Z");
  fake_.AddFault({"/repos/o/r/issues", 403,
                  {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", std::to_string(clock.now() + 600)}}});
  SyncOptions o = Options();
  o.sleep = nullptr;  // the default: SleepSeconds
  SyncReport r;
  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(Sync(*corpus_, *http_, o, &r).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(clock.slept(), 601);
  EXPECT_EQ((*corpus_->GetSyncState("github:o/r").value()).last_success, "2026-11-30T12:10:01Z");
}

TEST_F(SyncTest, HardErrorsKeepCorpusAndCursorAndAreRecorded) {
  fake_.PutIssue(1, "x", "2024-01-01T00:00:00Z");
  ASSERT_TRUE(RunSync().ok());
  std::string cursor = (*corpus_->GetSyncState("github:o/r").value()).cursor;
  fake_.PutIssue(2, "y", "2024-02-01T00:00:00Z");
  for (int code : {404, 422, 401, 403}) {  // 403 without rate-limit headers: forbidden
    fake_.AddFault({"/repos/o/r/issues", code});
    Status s = RunSync();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("HTTP " + std::to_string(code)), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(fake_.base() + "/repos/o/r/issues"), std::string::npos);
    EXPECT_EQ(s.message().find("tok-secret-123"), std::string::npos);
    auto st = corpus_->GetSyncState("github:o/r").value();
    EXPECT_EQ(st->cursor, cursor);
    EXPECT_FALSE(st->last_error.empty());
    EXPECT_FALSE(st->error_since.empty());
    EXPECT_EQ(Chunks(), 1);
  }
  // Endless 5xx gives up after the retry budget.
  for (int i = 0; i < 10; ++i) fake_.AddFault({"/repos/o/r/issues", 500});
  Status s = RunSync();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("gave up after 6 attempts"), std::string::npos) << s.message();
  // Recovery clears the error.
  ASSERT_TRUE(RunSync().ok());
  EXPECT_EQ(Chunks(), 2);
  EXPECT_TRUE((*corpus_->GetSyncState("github:o/r").value()).last_error.empty());
}

TEST_F(SyncTest, ALongRateLimitWaitIsRefusedNotSlept) {
  fake_.PutIssue(1, "x", "2024-01-01T00:00:00Z");
  fake_.AddFault({"/repos/o/r/issues", 403,
                  {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", std::to_string(NowEpoch() + 86400)}}});
  Status s = RunSync();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rate limit"), std::string::npos);
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(SyncTest, RejectsBadRepoNames) {
  SyncOptions o = Options();
  for (const char* bad : {"", "norepo", "/x", "x/"}) {
    o.repo = bad;
    SyncReport r;
    Status s = Sync(*corpus_, *http_, o, &r);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
  }
}

// Replays the real recorded exchanges (issues and the paginated comments
// listing of PyGithub) through a local server.
TEST(SyncReplay, RealRecordedExchanges) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  std::string dir = data + "/github-api-recordings/pygithub-replaydata/";
  std::map<std::string, std::pair<std::string, std::string>> pages;  // path?page -> (body, link)
  for (const char* f : {"Repository.testGetIssues.txt", "Repository.testGetIssuesComments.txt",
                        "Repository.testGetPullsComments.txt"}) {
    auto ex = ParsePyGithubReplay(testing::ReadFileOrEmpty(dir + f), f);
    ASSERT_TRUE(ex.ok());
    for (const auto& e : *ex) {
      std::string path = e.path.substr(0, e.path.find('?'));
      std::string page = e.path.find("page=2") != std::string::npos ? "2" : "1";
      bool plain = e.path.find("sort=") == std::string::npos && e.path.find("since=") == std::string::npos;
      if (!plain) continue;
      std::string link;
      for (const auto& [k, v] : e.headers) {
        if (k == "link") link = v;
      }
      pages.emplace(path + "?" + page, std::make_pair(e.body, link));
    }
  }
  ASSERT_TRUE(pages.count("/repos/PyGithub/PyGithub/issues/comments?2"));
  testing::TestServer server;
  server.server().Get(R"(/repos/PyGithub/PyGithub/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    std::string page = req.has_param("page") ? req.get_param_value("page") : "1";
    auto it = pages.find(req.path + "?" + page);
    if (it == pages.end()) {
      res.set_content("[]", "application/json");  // reviews, sub-issues: none recorded
      return;
    }
    std::string link = it->second.second;
    // Point the recorded next-page links at this server; drop links past the recording.
    size_t p;
    while ((p = link.find("https://api.github.com")) != std::string::npos) link.replace(p, 22, server.base());
    std::string next = FindLinkRel(link, "next");
    if (!next.empty() && pages.count(req.path + "?" + next.substr(next.find("page=") + 5, 1))) {
      res.set_header("Link", "<" + next + ">; rel=\"next\"");
    }
    res.set_content(it->second.first, "application/json");
  });
  testing::TempDir tmp;
  auto corpus = Corpus::Open(tmp.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(corpus.ok());
  auto http = NewCurlHttpClient();
  SyncOptions o;
  o.repo = "PyGithub/PyGithub";
  o.api_base = server.base();
  o.sleep = [](double) {};
  SyncReport r;
  Status s = Sync(**corpus, *http, o, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  auto stats = (*corpus)->Stats().value();
  std::map<std::string, int64_t> by_kind;
  for (const auto& c : stats.counts) by_kind[c.kind] += c.chunks;
  EXPECT_EQ(by_kind["comment"], 60);  // two recorded pages of 30
  EXPECT_GT(by_kind["issue"] + by_kind["pr"], 10);
  EXPECT_EQ(by_kind["review-comment"], 1);
}

}  // namespace
}  // namespace umwelt::github

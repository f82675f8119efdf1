#include <gtest/gtest.h>

#include "github_fake.h"
#include "github_hooks.h"
#include "test_util.h"
#include "umwelt/github.h"
#include "umwelt/http.h"

namespace umwelt::github {
namespace {

using testing::HookComment;
using testing::HookIssue;
using testing::HookPayload;
using testing::HookPull;
using testing::HookRelease;
using testing::HookReview;
using testing::HookReviewComment;
using testing::json;

class WebhookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
  }
  // Parses and applies one delivery; the number of changes.
  int64_t Apply(const std::string& event, const std::string& body) {
    auto change = ParseWebhook(event, body);
    EXPECT_TRUE(change.ok()) << change.status().message();
    if (!change.ok()) return -1;
    int64_t n = 0;
    Status s = ApplyWebhook(*corpus_, *change, &n);
    EXPECT_TRUE(s.ok()) << s.message();
    return n;
  }
  std::string Text(const std::string& ref) {
    auto v = ViewThread(*corpus_, ref, 10);
    if (!v.ok()) return "";
    std::string all;
    for (const auto& c : v->chunks) all += c.ref + ": " + c.text + "\n";
    return all;
  }
  int64_t Chunks() { return corpus_->Stats()->total_chunks; }

  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
};

TEST_F(WebhookTest, EachEventCreatesEditsAndDeletesWhatItShould) {
  const std::string t0 = "2026-12-01T09:00:00Z", t1 = "2026-12-01T09:05:00Z", t2 = "2026-12-01T09:10:00Z";
  // issues: opened, edited, then a comment created, edited and deleted.
  EXPECT_GT(Apply("issues", HookPayload("opened", {{"issue", HookIssue(7, "Loader drops the last shard", "It skips shard 9.", t0)}})), 0);
  auto th = corpus_->GetThread("acme/tinylm#7");
  ASSERT_TRUE(th.ok() && th->has_value());
  EXPECT_EQ((*th)->title, "Loader drops the last shard");
  EXPECT_EQ((*th)->labels, std::vector<std::string>{"bug"});
  Apply("issues", HookPayload("edited", {{"issue", HookIssue(7, "Loader drops the last shard", "It skips shard 9 of 10.", t1)}}));
  EXPECT_NE(Text("acme/tinylm#7").find("shard 9 of 10"), std::string::npos);

  json issue = HookIssue(7, "Loader drops the last shard", "It skips shard 9 of 10.", t1);
  Apply("issue_comment", HookPayload("created", {{"issue", issue}, {"comment", HookComment(7, 91, "Reproduced on main.", t1)}}));
  EXPECT_NE(Text("acme/tinylm#7").find("acme/tinylm#7/c91: Reproduced on main."), std::string::npos);
  Apply("issue_comment", HookPayload("edited", {{"issue", issue}, {"comment", HookComment(7, 91, "Reproduced on main and v0.3.", t2)}}));
  EXPECT_NE(Text("acme/tinylm#7").find("main and v0.3"), std::string::npos);
  // An edit older than what is stored changes nothing (deliveries can cross).
  Apply("issue_comment", HookPayload("edited", {{"issue", issue}, {"comment", HookComment(7, 91, "stale text", t0)}}));
  EXPECT_EQ(Text("acme/tinylm#7").find("stale text"), std::string::npos);
  Apply("issue_comment", HookPayload("deleted", {{"issue", issue}, {"comment", HookComment(7, 91, "", t2)}}));
  EXPECT_EQ(Text("acme/tinylm#7").find("/c91"), std::string::npos);

  // pull_request, a review, a review comment (created, then deleted).
  Apply("pull_request", HookPayload("opened", {{"pull_request", HookPull(8, "Fix the loader", "Fixes #7.", t0)}}));
  auto pr = corpus_->GetThread("acme/tinylm#8");
  ASSERT_TRUE(pr.ok() && pr->has_value());
  EXPECT_EQ((*pr)->kind, "pr");
  EXPECT_NE(Text("acme/tinylm#8").find("+40"), std::string::npos) << "the PR's size, as a sync writes it";
  json pull = HookPull(8, "Fix the loader", "Fixes #7.", t0);
  Apply("pull_request_review", HookPayload("submitted", {{"pull_request", pull}, {"review", HookReview(8, 501, "APPROVED", "Looks right.")}}));
  EXPECT_NE(Text("acme/tinylm#8").find("[approved] Looks right."), std::string::npos);
  Apply("pull_request_review_comment", HookPayload("created", {{"pull_request", pull}, {"comment", HookReviewComment(8, 601, "Off by one here.", t1)}}));
  EXPECT_NE(Text("acme/tinylm#8").find("On src/loader.py:12: Off by one here."), std::string::npos);
  Apply("pull_request_review_comment", HookPayload("deleted", {{"pull_request", pull}, {"comment", HookReviewComment(8, 601, "", t1)}}));
  EXPECT_EQ(Text("acme/tinylm#8").find("Off by one"), std::string::npos);
  // A review with no text (the container of inline comments) stores nothing.
  EXPECT_TRUE(ParseWebhook("pull_request_review", HookPayload("submitted", {{"pull_request", pull}, {"review", HookReview(8, 502, "COMMENTED", "")}})).ok());

  // A release: a thread of its own; deleted, it is gone.
  Apply("release", HookPayload("published", {{"release", HookRelease(31, "v0.4.0", "v0.4.0", "Faster loader; fixes #7.")}}));
  auto rel = corpus_->GetThread("acme/tinylm/releases/31");
  ASSERT_TRUE(rel.ok() && rel->has_value());
  EXPECT_EQ((*rel)->kind, "release");
  EXPECT_EQ((*rel)->url, "https://github.com/acme/tinylm/releases/tag/v0.4.0");
  int64_t before = Chunks();
  Apply("release", HookPayload("deleted", {{"release", HookRelease(31, "v0.4.0", "v0.4.0", "")}}));
  EXPECT_EQ(Chunks(), before - 1);
  EXPECT_FALSE(corpus_->GetThread("acme/tinylm/releases/31")->has_value());

  // issues deleted: the thread and every record in it.
  Apply("issue_comment", HookPayload("created", {{"issue", issue}, {"comment", HookComment(7, 92, "Another.", t2)}}));
  Apply("issues", HookPayload("deleted", {{"issue", issue}}));
  EXPECT_FALSE(corpus_->GetThread("acme/tinylm#7")->has_value());
  EXPECT_TRUE(corpus_->ThreadChunks("acme/tinylm#7")->empty());
}

// What a delivery cannot carry (a merged pull request's commits, an issue's
// sub-issues) joins the sync cursor's per-thread lists, and the next sync
// fetches it for that thread, though no listing shows the thread as changed.
TEST_F(WebhookTest, AMergedPullRequestsCommitsAreFetchedByTheNextSync) {
  testing::GithubFake fake("acme/tinylm");
  fake.PutIssue(1, "an older issue", "2026-12-01T08:00:00Z");
  SyncOptions o;
  o.repo = "acme/tinylm";
  o.api_base = fake.base();
  o.sleep = [](double) {};
  SyncReport first;
  ASSERT_TRUE(Sync(*corpus_, *NewCurlHttpClient(), o, &first).ok());
  // Merged upstream; the listings (since 08:00) do not show it.
  const std::string sha = std::string(39, 'a') + "9";
  fake.MergePr(9, {sha}, "2026-11-01T00:00:00Z");

  json pr = HookPull(9, "Shard the loader", "Splits it.", "2026-12-01T09:00:00Z");
  pr["state"] = "closed";
  pr["merged"] = true;
  pr["merged_at"] = "2026-12-01T09:00:00Z";
  auto change = ParseWebhook("pull_request", HookPayload("closed", {{"pull_request", pr}}));
  ASSERT_TRUE(change.ok()) << change.status().message();
  EXPECT_EQ(change->follow_ups, std::vector<std::string>{"pending_commits"});
  EXPECT_EQ(change->number, 9);
  int64_t n = 0;
  ASSERT_TRUE(ApplyWebhook(*corpus_, *change, &n).ok());
  ASSERT_TRUE(ApplyWebhook(*corpus_, *change, &n).ok());  // GitHub's retry: queued once
  auto state = corpus_->GetSyncState("github:acme/tinylm");
  ASSERT_TRUE(state.ok() && state->has_value());
  json cursor = json::parse((*state)->cursor);
  EXPECT_EQ(cursor["pending_commits"], json::array({9})) << cursor.dump();
  EXPECT_TRUE(cursor.contains("issues")) << "the listings' cursors stay";

  SyncReport second;
  ASSERT_TRUE(Sync(*corpus_, *NewCurlHttpClient(), o, &second).ok());
  auto links = corpus_->LinksFrom({"acme/tinylm/commit/" + sha});
  ASSERT_TRUE(links.ok());
  ASSERT_EQ(links->size(), 1u);
  EXPECT_EQ((*links)[0].to_ref, "acme/tinylm#9");
  EXPECT_EQ((*links)[0].kind, "pr-commit");
  state = corpus_->GetSyncState("github:acme/tinylm");
  EXPECT_FALSE(json::parse((*state)->cursor).contains("pending_commits")) << (*state)->cursor;

  // An issue with sub-issues queues them; an open pull request queues
  // nothing; a corpus that does not sync the repository gets no cursor.
  json issue = HookIssue(12, "Epic: the loader", "Tracks the work.", "2026-12-01T09:10:00Z");
  issue["sub_issues_summary"] = {{"total", 2}, {"completed", 0}, {"percent_completed", 0}};
  change = ParseWebhook("issues", HookPayload("edited", {{"issue", issue}}));
  ASSERT_TRUE(change.ok());
  EXPECT_EQ(change->follow_ups, std::vector<std::string>{"pending_sub_issues"});
  change = ParseWebhook("pull_request", HookPayload("opened", {{"pull_request", HookPull(13, "x", "y", "2026-12-01T09:20:00Z")}}));
  ASSERT_TRUE(change.ok());
  EXPECT_TRUE(change->follow_ups.empty());
  testing::TempDir other;
  auto bare = Corpus::Open(other.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(bare.ok());
  change = ParseWebhook("pull_request", HookPayload("closed", {{"pull_request", pr}}));
  ASSERT_TRUE(ApplyWebhook(**bare, *change, &n).ok());
  auto none = (*bare)->GetSyncState("github:acme/tinylm");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST_F(WebhookTest, PushPingAndOtherEventsStoreNothing) {
  json push = {{"ref", "refs/heads/main"}, {"before", std::string(40, '0')}, {"after", std::string(40, '1')}};
  auto p = ParseWebhook("push", HookPayload("", push));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->pushed_branch, "main");
  EXPECT_TRUE(p->pushed_default);
  push["ref"] = "refs/tags/v1";
  p = ParseWebhook("push", HookPayload("", push));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->pushed_branch, "");
  auto ping = ParseWebhook("ping", R"({"zen":"Keep it logically awesome.","hook_id":1})");
  ASSERT_TRUE(ping.ok());
  EXPECT_TRUE(ping->ping);
  auto star = ParseWebhook("star", HookPayload("created", {}));
  ASSERT_TRUE(star.ok());
  EXPECT_TRUE(star->records.records.empty());
  EXPECT_FALSE(WebhookEventMirrored("star"));
}

TEST_F(WebhookTest, PayloadsOfTheWrongShapeAreRefusedNamingTheField) {
  const std::string t = "2026-12-01T09:00:00Z";
  json issue = HookIssue(7, "T", "B", t);
  struct Case {
    std::string event, body, says;
  };
  json numbered_as_text = issue;
  numbered_as_text["number"] = "7";
  json no_url = HookComment(7, 91, "x", t);
  no_url.erase("html_url");
  no_url.erase("issue_url");
  json repo_as_number = json::parse(HookPayload("opened", {{"issue", issue}}));
  repo_as_number["repository"]["full_name"] = 12;
  std::string full = HookPayload("opened", {{"issue", issue}});
  std::vector<Case> cases = {
      {"issues", full.substr(0, full.size() / 2), "not JSON"},
      {"issues", "[1,2]", "should be a JSON object"},
      {"issues", std::string(200, '[') + std::string(200, ']'), "nested"},
      {"issues", "{\"action\":\"opened\",\"issue\":{}}", "`repository` is missing"},
      {"issues", repo_as_number.dump(), "`repository.full_name`"},
      {"issues", HookPayload("opened", {{"issue", numbered_as_text}}), "number"},
      {"issues", HookPayload("opened", {{"issue", "a string"}}), "`issue` should be an object"},
      {"issues", HookPayload("", {{"issue", issue}}), "`action` is missing"},
      {"issue_comment", HookPayload("created", {{"issue", issue}, {"comment", no_url}}), "`comment` is not a GitHub comment"},
      {"issue_comment", HookPayload("created", {{"issue", issue}}), "`comment` is missing"},
      {"release", HookPayload("published", {{"release", {{"id", "31"}, {"tag_name", "v1"}}}}), "`release.id`"},
      {"push", HookPayload("", {}), "`ref` is missing"},
      // A payload for acme/tinylm whose issue belongs to another repository.
      {"issues", HookPayload("opened", {{"issue", HookIssue(7, "T", "B", t, "evil/repo")}}), "is not in acme/tinylm"},
      {"issues", std::string("{\"action\":\"opened\",\"x\":\"\xff\"}"), "not UTF-8"},
  };
  for (const auto& c : cases) {
    auto r = ParseWebhook(c.event, c.body);
    ASSERT_FALSE(r.ok()) << c.event << " " << c.body.substr(0, 120);
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().message();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
  EXPECT_EQ(Chunks(), 0);
}

}  // namespace
}  // namespace umwelt::github

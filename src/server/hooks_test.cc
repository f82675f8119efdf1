// POST /hooks/github against a real server: signed deliveries become
// searchable within seconds; every bad one gets its status and writes nothing.
#include "hooks.h"

#include <atomic>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "github_hooks.h"
#include "serve_process.h"
#include "server_fixtures.h"
#include "umwelt/clock.h"

namespace umwelt {
namespace {

using testing::HookComment;
using testing::HookIssue;
using testing::HookPayload;
using testing::HookPull;
using testing::HookSignature;
using testing::json;

constexpr const char* kSecret = "It's a Secret to Everybody";

// Records `source` ("github:acme/tinylm") as synced into the corpus at `db`:
// the corpus mirrors it.
void Mirror(const std::string& db, const std::string& source) {
  auto c = Corpus::Open(db, Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok());
  auto b = (*c)->BeginWrite();
  ASSERT_TRUE(b.ok());
  SyncState st;
  st.source = source;
  ASSERT_TRUE((*b)->PutSyncState(st).ok());
  ASSERT_TRUE((*b)->Commit().ok());
}

class HooksTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    Mirror(path_, "github:acme/tinylm");
  }
  void Start(ServeOptions o = {}) {
    o.github_webhook_secret = kSecret;
    StartServer(o);
  }
  httplib::Result Deliver(const std::string& event, const std::string& body, const std::string& id,
                          const std::string& signature) {
    httplib::Headers h = {{"X-GitHub-Event", event}, {"X-GitHub-Delivery", id}, {"User-Agent", "GitHub-Hookshot/1"}};
    if (!signature.empty()) h.emplace("X-Hub-Signature-256", signature);
    return client_->Post("/hooks/github", h, body, "application/json");
  }
  httplib::Result Deliver(const std::string& event, const std::string& body, const std::string& id) {
    return Deliver(event, body, id, HookSignature(kSecret, body));
  }
  // Whether a keyword search finds `word` within `seconds`; how long it took.
  bool Searchable(const std::string& word, double seconds, double* took = nullptr) {
    auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::duration<double>(seconds)) {
      if (Hits(word) > 0) {
        if (took) *took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // How many hits a keyword search for `word` has.
  size_t Hits(const std::string& word) {
    auto r = client_->Get("/api/search?fts_only=1&k=50&q=" + word);
    if (!r || r->status != 200) return 0;
    json j = json::parse(r->body, nullptr, false);
    return j.is_object() && j["hits"].is_array() ? j["hits"].size() : 0;
  }
  int64_t Chunks() { return Json(client_->Get("/api/status"))["chunks"].get<int64_t>(); }
  json Hooks() { return Json(client_->Get("/api/status"))["hooks"]["github"]; }
};

TEST_F(HooksTest, SignedDeliveriesBecomeSearchableWithinSeconds) {
  Start();
  auto ping = Deliver("ping", R"({"zen":"Design for failure.","hook_id":12})", "d-ping");
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200) << ping->body;

  std::string opened = HookPayload("opened", {{"issue", HookIssue(301, "Checkpoint upload stalls", "The zanzibarquux uploader hangs at 99%.", "2026-12-01T09:00:00Z")}});
  auto r = Deliver("issues", opened, "d-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202) << r->body;
  double took = 0;
  EXPECT_TRUE(Searchable("zanzibarquux", 10, &took));
  std::printf("issue opened -> searchable in %.2f s\n", took);

  json issue = HookIssue(301, "Checkpoint upload stalls", "The zanzibarquux uploader hangs at 99%.", "2026-12-01T09:00:00Z");
  r = Deliver("issue_comment", HookPayload("created", {{"issue", issue}, {"comment", HookComment(301, 9001, "Fixed by retrying with quokkaflange backoff.", "2026-12-01T09:01:00Z")}}), "d-2");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  EXPECT_TRUE(Searchable("quokkaflange", 10));
  auto thread = client_->Get("/api/show?target=acme%2Ftinylm%23301");
  ASSERT_TRUE(thread);
  EXPECT_NE(thread->body.find("quokkaflange"), std::string::npos) << thread->body.substr(0, 500);

  // A deletion removes it from search.
  r = Deliver("issue_comment", HookPayload("deleted", {{"issue", issue}, {"comment", HookComment(301, 9001, "", "2026-12-01T09:02:00Z")}}), "d-3");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = Hits("quokkaflange") == 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(gone);

  json hooks;
  for (int i = 0; i < 100; ++i) {  // searchable first, then marked applied
    hooks = Hooks();
    if (hooks["pending"] == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(hooks["applied"], 3) << hooks.dump();
  EXPECT_EQ(hooks["pending"], 0);
  EXPECT_EQ(hooks["received"], 4);  // the ping too
  EXPECT_NE(hooks["last_applied"], "");
  EXPECT_GE(hooks["last_lag_ms"].get<int64_t>(), 0);
}

TEST_F(HooksTest, BadDeliveriesGetTheirStatusAndWriteNothing) {
  Start();
  int64_t before = Chunks();
  std::string body = HookPayload("opened", {{"issue", HookIssue(302, "Bad", "wombatgrist", "2026-12-01T09:00:00Z")}});
  struct Case {
    const char* what;
    std::string event, body, id, signature;
    int status;
  };
  std::string half = body.substr(0, body.size() / 2);
  json wrong = json::parse(body);
  wrong["issue"]["number"] = "302";
  std::string other = HookPayload("opened", {{"issue", HookIssue(5, "Elsewhere", "wombatgrist", "2026-12-01T09:00:00Z", "someone/else")}}, "someone/else");
  std::vector<Case> cases = {
      {"unsigned", "issues", body, "b-1", "", 401},
      {"signed with another secret", "issues", body, "b-2", HookSignature("guess", body), 401},
      {"a signature of another body", "issues", body, "b-3", HookSignature(kSecret, body + " "), 401},
      {"a malformed signature", "issues", body, "b-4", "sha1=" + std::string(40, 'a'), 401},
      {"no delivery id", "issues", body, "", HookSignature(kSecret, body), 400},
      {"a delivery id that is no id", "issues", body, "../../x", HookSignature(kSecret, body), 400},
      {"a truncated body", "issues", half, "b-5", HookSignature(kSecret, half), 400},
      {"a number as a string", "issues", wrong.dump(), "b-6", HookSignature(kSecret, wrong.dump()), 400},
      {"another repository", "issues", other, "b-7", HookSignature(kSecret, other), 200},
      {"an event this corpus does not keep", "star", body, "b-8", HookSignature(kSecret, body), 200},
      {"an event name with an escape", "issues\x1b[2J", body, "b-10", HookSignature(kSecret, body), 400},
  };
  for (const auto& c : cases) {
    auto r = Deliver(c.event, c.body, c.id, c.signature);
    ASSERT_TRUE(r) << c.what;
    EXPECT_EQ(r->status, c.status) << c.what << ": " << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << c.what;
  }
  // A replay: the same delivery again is refused, and applied once.
  auto first = Deliver("issues", body, "b-9");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 202);
  auto replay = Deliver("issues", body, "b-9");
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->status, 409) << replay->body;
  EXPECT_NE(replay->body.find("replay"), std::string::npos);
  EXPECT_TRUE(Searchable("wombatgrist", 10));
  EXPECT_EQ(Chunks(), before + 1) << "only b-9 wrote";

  // Over GitHub's own cap: refused before any of it is read.
  int fd = testing::Connect(server_->port());
  ASSERT_GE(fd, 0);
  testing::SendAll(fd, "POST /hooks/github HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GitHub-Event: issues\r\n"
                       "Content-Type: application/json\r\nContent-Length: " +
                           std::to_string(github::kMaxWebhookBytes + 1) + "\r\n\r\n");
  std::string answer = testing::ReadAll(fd, 5);
  ::close(fd);
  EXPECT_EQ(answer.substr(0, 13), "HTTP/1.1 413 ") << answer.substr(0, 200);
  // Elsewhere the server's own limit (1 MiB) still holds. (A raw socket: a
  // client still writing when the 413 closes the connection gets SIGPIPE.)
  fd = testing::Connect(server_->port());
  ASSERT_GE(fd, 0);
  testing::SendAll(fd, "POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       "Content-Length: " + std::to_string(2 << 20) + "\r\n\r\n");
  answer = testing::ReadAll(fd, 5);
  ::close(fd);
  EXPECT_EQ(answer.substr(0, 13), "HTTP/1.1 413 ") << answer.substr(0, 200);
}

// Bodies larger than the server's limit hold one of a few slots: an attacker
// who opens many such uploads gets 413 past them, and memory stays bounded.
TEST_F(HooksTest, LargeBodiesAreReceivedAFewAtATime) {
  Start();
  std::string head = "POST /hooks/github HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GitHub-Event: issues\r\n"
                     "Content-Type: application/json\r\nContent-Length: " + std::to_string(3 << 20) + "\r\n\r\n";
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    int fd = testing::Connect(server_->port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(testing::SendAll(fd, head + std::string(1 << 20, ' ')));
    held.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int fifth = testing::Connect(server_->port());
  ASSERT_GE(fifth, 0);
  testing::SendAll(fifth, head);
  std::string answer = testing::ReadAll(fifth, 3);
  ::close(fifth);
  EXPECT_EQ(answer.substr(0, 13), "HTTP/1.1 413 ") << answer.substr(0, 200);
  for (int fd : held) ::close(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Slots free again: a large signed delivery is read whole and queued.
  std::string large = HookPayload("opened", {{"issue", HookIssue(303, "Large", std::string(2 << 20, 'a'), "2026-12-01T09:00:00Z")}, {"padding", std::string(1 << 20, 'b')}});
  auto r = Deliver("issues", large, "l-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202) << r->body.substr(0, 200);
}

TEST_F(HooksTest, ADeliveryLeftWaitingIsAppliedAfterRestart) {
  {
    auto spool = server_internal::HookSpool::Open(path_ + ".hooks");
    ASSERT_TRUE(spool.ok());
    server_internal::Delivery d;
    d.id = "w-1";
    d.source = "github";
    d.event = "issues";
    d.repo = "acme/tinylm";
    d.body = HookPayload("opened", {{"issue", HookIssue(304, "Left waiting", "The platypuszither run.", "2026-12-01T09:00:00Z")}});
    d.received_ms = NowEpochMs();
    ASSERT_TRUE((*spool)->Receive(d, true).ok());
  }
  Start();
  EXPECT_TRUE(Searchable("platypuszither", 10));
  auto again = Deliver("issues", HookPayload("opened", {{"issue", HookIssue(304, "x", "y", "2026-12-01T09:00:00Z")}}), "w-1");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409) << "a delivery id is remembered across restarts";
}

// Deliveries arriving one after another are applied in batches a second
// apart, not each with its own index update and searcher reload (which
// disturb the readers), and none is lost.
TEST_F(HooksTest, AStreamOfDeliveriesIsAppliedInBatchesASecondApart) {
  Start();
  const int n = 24;
  for (int i = 0; i < n; ++i) {
    std::string word = std::string("batchword") + static_cast<char>('a' + i);
    auto r = Deliver("issues", HookPayload("opened", {{"issue", HookIssue(500 + i, "Stream", "The " + word + " run.", "2026-12-01T09:00:00Z")}}),
                     "b-" + std::to_string(i));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 202);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (int i = 0; i < 100 && Hooks()["applied"] != n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(Hooks()["applied"], n);
  std::string log = Log();
  int batches = 0;
  for (size_t at = log.find("deliveries applied"); at != std::string::npos; at = log.find("deliveries applied", at + 1)) {
    ++batches;
  }
  // 2.4 s of deliveries: a batch at once, then one a second.
  EXPECT_GE(batches, 2);
  EXPECT_LE(batches, 5) << log;
}

// A merged pull request's commits are not in its payload: the delivery
// queues them for the sync and brings the next round forward.
TEST_F(HooksTest, AFollowUpBringsTheNextSyncRoundForward) {
  ServeOptions o;
  o.sync_every_seconds = 3600;
  std::atomic<int> rounds{0};
  o.sync = [&] {
    ++rounds;
    return Status::Ok();
  };
  Start(o);
  auto r = Deliver("pull_request", HookPayload("opened", {{"pull_request", HookPull(40, "Shard it", "a", "2026-12-01T09:00:00Z")}}), "p-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  for (int i = 0; i < 100 && Hooks()["applied"] != 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(Hooks()["applied"], 1);
  EXPECT_EQ(rounds.load(), 0) << "an open pull request needs no follow-up";
  json pr = HookPull(40, "Shard it", "a", "2026-12-01T09:05:00Z");
  pr["merged"] = true;
  pr["merged_at"] = "2026-12-01T09:05:00Z";
  pr["state"] = "closed";
  r = Deliver("pull_request", HookPayload("closed", {{"pull_request", pr}}), "p-2");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  for (int i = 0; i < 100 && rounds.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(rounds.load(), 1) << "one round, not the hour's wait";
  auto c = Corpus::Open(path_, Corpus::Mode::kReadOnly);
  ASSERT_TRUE(c.ok());
  auto state = (*c)->GetSyncState("github:acme/tinylm");
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_NE((*state)->cursor.find("\"pending_commits\":[40]"), std::string::npos) << (*state)->cursor;
}

TEST_F(HooksTest, AFailingDeliveryIsRetriedAndShownInStatus) {
  Mirror(path_, "git:acme/tinylm");
  ServeOptions o;
  std::atomic<int> calls{0};
  o.sync_source = [&](const std::string& recorded, bool* changed) {
    ++calls;
    *changed = false;
    return Status::Io(recorded + ": the clone at /home/ops/clones/tinylm is gone");
  };
  Start(o);
  json push = {{"ref", "refs/heads/main"}, {"before", std::string(40, '0')}, {"after", std::string(40, '1')}};
  auto r = Deliver("push", HookPayload("", push), "f-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202) << r->body;
  json hooks;
  for (int i = 0; i < 100; ++i) {
    hooks = Hooks();
    if (!hooks["failures"].empty() && hooks["failures"][0]["attempts"].get<int>() >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(hooks["failures"].empty()) << hooks.dump();
  EXPECT_EQ(hooks["failures"][0]["delivery"], "f-1");
  EXPECT_GE(hooks["failures"][0]["attempts"].get<int>(), 2) << "retried after a backoff";
  EXPECT_EQ(hooks["pending"], 1);
  std::string error = hooks["failures"][0]["error"];
  EXPECT_NE(error.find("is gone"), std::string::npos);
  EXPECT_EQ(error.find("/home/ops"), std::string::npos) << "no local paths: " << error;
  EXPECT_GE(calls.load(), 2);
  // A tag push is acknowledged and ignored.
  push["ref"] = "refs/tags/v1";
  r = Deliver("push", HookPayload("", push), "f-2");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("ignored"), std::string::npos);
}

class HooksAuthTest : public testing::AuthTest {};

TEST_F(HooksAuthTest, TheHookRouteIsSignedNotSignedIn) {
  ServeOptions o;
  o.auth_file = auth_file_;
  o.github_webhook_secret = kSecret;
  StartServer(o);
  std::string body = R"({"zen":"Approachable is better than simple.","hook_id":3})";
  httplib::Headers h = {{"X-GitHub-Event", "ping"}, {"X-GitHub-Delivery", "a-1"},
                        {"X-Hub-Signature-256", HookSignature(kSecret, body)}};
  auto r = client_->Post("/hooks/github", h, body, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  h = {{"X-GitHub-Event", "ping"}, {"X-GitHub-Delivery", "a-2"}};
  r = client_->Post("/hooks/github", h, body, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  auto status = client_->Get("/api/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 401) << "the rest stays behind sign-in";
}

// The real program, killed with SIGKILL right after it acknowledged a
// delivery: started again, it applies what it acknowledged.
TEST(HooksProcessTest, AKilledServerLosesNoAcknowledgedDelivery) {
  testing::TempDir dir;
  std::string db = testing::ExampleCorpus(dir);
  Mirror(db, "github:acme/tinylm");
  std::string secret_file = dir.File("hook-secret");
  testing::WriteFile(secret_file, std::string(kSecret) + "\n");
  ::chmod(secret_file.c_str(), 0644);
  auto refused = testing::Umwelt({"--corpus", db, "serve", "--port", "0", "--github-webhook-secret-file", secret_file});
  EXPECT_NE(refused.code, 0);
  EXPECT_NE(refused.err.find("readable by others"), std::string::npos) << refused.err;
  ::chmod(secret_file.c_str(), 0600);
  std::vector<std::string> args = {"--corpus", db, "serve", "--port", "0", "--github-webhook-secret-file", secret_file};
  std::string body;
  {
    testing::ServeProcess serve(args, dir.File("serve1.log"));
    int port = serve.WaitForPort();
    ASSERT_GT(port, 0) << testing::ReadFileOrEmpty(dir.File("serve1.log"));
    httplib::Client client("127.0.0.1", port);
    for (int i = 0; i < 20; ++i) {
      body = HookPayload("opened", {{"issue", HookIssue(400 + i, "Burst " + std::to_string(i), "echidnafold " + std::to_string(i), "2026-12-01T09:00:00Z")}});
      httplib::Headers h = {{"X-GitHub-Event", "issues"}, {"X-GitHub-Delivery", "k-" + std::to_string(i)},
                            {"X-Hub-Signature-256", HookSignature(kSecret, body)}};
      auto r = client.Post("/hooks/github", h, body, "application/json");
      ASSERT_TRUE(r);
      ASSERT_EQ(r->status, 202) << r->body;
    }
    serve.Signal(SIGKILL);
    serve.Wait(10);
  }
  testing::ServeProcess serve(args, dir.File("serve2.log"));
  int port = serve.WaitForPort();
  ASSERT_GT(port, 0);
  httplib::Client client("127.0.0.1", port);
  int found = 0;
  for (int i = 0; i < 200 && found < 20; ++i) {
    auto r = client.Get("/api/search?fts_only=1&k=50&q=echidnafold");
    found = r && r->status == 200 ? static_cast<int>(json::parse(r->body)["hits"].size()) : 0;
    if (found < 20) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(found, 20) << testing::ReadFileOrEmpty(dir.File("serve2.log"));
  // Searchable comes a moment before the batch is marked applied.
  json status;
  for (int i = 0; i < 100; ++i) {
    status = json::parse(client.Get("/api/status")->body);
    if (status["hooks"]["github"]["applied"] == 20) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(status["hooks"]["github"]["applied"], 20) << status["hooks"].dump();
  serve.Signal(SIGTERM);
  EXPECT_EQ(serve.Wait(30), 0);
  // `status` reads the spool too.
  auto text = testing::Umwelt({"--corpus", db, "status"});
  EXPECT_NE(text.out.find("webhooks github: 20 received · 20 applied · 0 ignored · 0 waiting"), std::string::npos)
      << text.out;
  auto as_json = json::parse(testing::Umwelt({"--corpus", db, "status", "--json"}).out, nullptr, false);
  EXPECT_EQ(as_json["hooks"]["github"]["applied"], 20);
}

}  // namespace
}  // namespace umwelt

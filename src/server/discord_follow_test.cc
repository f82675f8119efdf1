// `serve --discord-follow`: a real server follows a scripted Discord gateway
// (tests/discord_gateway_fake.h); its events go through the delivery spool
// and are searchable within seconds, a new session catches up over REST,
// and status shows the source.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "discord_gateway_fake.h"
#include "server_fixtures.h"
#include "umwelt/discord.h"

namespace umwelt {
namespace {

using testing::FakeDiscordRest;
using testing::FakeGateway;
using testing::json;

constexpr char kToken[] = "srv-gw-s3cret";

json Channels() { return json::array({{{"id", "200"}, {"type", 0}, {"guild_id", "100"}, {"name", "general"}}}); }

json Message(uint64_t id, const std::string& content) {
  return FakeGateway::Message(std::to_string(id), "100", "200", content);
}

class DiscordFollowServerTest : public testing::ServerTest {
 protected:
  void Start() {
    ServeOptions o;
    o.discord_follow = "100";
    o.discord_token = kToken;
    o.discord_api_base = rest_.base();
    o.discord_allow_loopback = true;
    StartServer(o);
  }
  size_t Hits(const std::string& word) {
    auto r = client_->Get("/api/search?fts_only=1&k=50&q=" + word);
    if (!r || r->status != 200) return 0;
    json j = json::parse(r->body, nullptr, false);
    return j.is_object() && j["hits"].is_array() ? j["hits"].size() : 0;
  }
  bool Searchable(const std::string& word, double seconds, double* took = nullptr) {
    auto t0 = std::chrono::steady_clock::now();
    bool ok = FakeGateway::WaitUntil([&] { return Hits(word) > 0; }, seconds);
    if (took) *took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return ok;
  }
  std::string Log() {
    std::lock_guard<std::mutex> lock(log_mu_);
    std::string out;
    for (const auto& l : log_) out += l + "\n";
    return out;
  }

  FakeGateway gw_{kToken, "100", Channels()};
  FakeDiscordRest rest_{kToken, "100", Channels(), gw_};
};

TEST_F(DiscordFollowServerTest, EventsAreSearchableInSecondsAndANewSessionCatchesUp) {
  // Posted before the server followed: only the REST catch-up can bring it.
  const uint64_t kBefore = (uint64_t{1763632800000} - 1420070400000) << 22;  // a snowflake of 2025-11-20
  rest_.AddMessage("200", kBefore, Message(kBefore, "quokkahistory from before the session"));
  Start();
  ASSERT_TRUE(Searchable("quokkahistory", 20)) << Log();
  EXPECT_EQ(gw_.identifies(), 1);
  // A message posted now is searchable within seconds.
  double took = 0;
  gw_.Dispatch("MESSAGE_CREATE", Message(kBefore + 1, "wombatlive the loss spiked at step 9000"));
  ASSERT_TRUE(Searchable("wombatlive", 10, &took)) << Log();
  EXPECT_LT(took, 10);
  gw_.Dispatch("MESSAGE_DELETE", {{"id", std::to_string(kBefore + 1)}, {"channel_id", "200"}, {"guild_id", "100"}});
  ASSERT_TRUE(FakeGateway::WaitUntil([&] { return Hits("wombatlive") == 0; }, 10)) << Log();
  // A dropped link resumes; what was sent meanwhile arrives once.
  gw_.Drop();
  ASSERT_TRUE(FakeGateway::WaitUntil([&] { return !gw_.connected() || gw_.connections() >= 2; }));
  gw_.Dispatch("MESSAGE_CREATE", Message(kBefore + 2, "platypusaway sent while the link was down"));
  ASSERT_TRUE(Searchable("platypusaway", 10)) << Log();
  EXPECT_EQ(gw_.resumes(), 1);
  EXPECT_EQ(gw_.identifies(), 1) << "resumed, not identified again";
  // Status shows the source: events received and applied, none failed. A
  // batch is searchable a moment before it is marked applied (applied means
  // searchable), so the status is read once nothing is pending.
  json st;
  FakeGateway::WaitUntil([&] {
    st = Json(client_->Get("/api/status"));
    return st["hooks"].contains("discord") && st["hooks"]["discord"]["pending"] == 0;
  }, 10);
  ASSERT_TRUE(st["hooks"].contains("discord")) << st.dump();
  const json& d = st["hooks"]["discord"];
  EXPECT_GE(d["received"].get<int>(), 4) << d.dump();  // the catch-up and three events
  EXPECT_EQ(d["received"], d["applied"]) << d.dump();
  EXPECT_EQ(d["failed"], 0);
  EXPECT_FALSE(d["last_applied"].get<std::string>().empty());
  // The token reaches neither the log nor the status.
  EXPECT_EQ(Log().find(kToken), std::string::npos);
  EXPECT_EQ(st.dump().find(kToken), std::string::npos);
  // No GitHub hook route without its secret.
  auto r = client_->Post("/hooks/github", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_NE(r->status, 202);
}

TEST_F(DiscordFollowServerTest, ARefusedTokenIsShownInStatus) {
  gw_.RefuseToken(true);
  Start();
  ASSERT_TRUE(FakeGateway::WaitUntil([&] {
    json st = Json(client_->Get("/api/status"));
    return st["hooks"].contains("discord") && !st["hooks"]["discord"]["failures"].empty();
  }, 20)) << Log();
  json f = Json(client_->Get("/api/status"))["hooks"]["discord"]["failures"][0];
  EXPECT_NE(f["error"].get<std::string>().find("refused the bot token"), std::string::npos) << f.dump();
  EXPECT_TRUE(f["given_up"].get<bool>());
  // The server still serves.
  EXPECT_GT(Hits("loss"), 0u);
}

TEST(DiscordFollowServer, BadOptionsAreRefusedAtStart) {
  testing::TempDir dir;
  ServeOptions o;
  o.corpus_path = dir.File("c.db");
  { ASSERT_TRUE(Corpus::Open(o.corpus_path, Corpus::Mode::kReadWrite).ok()); }
  o.port = 0;
  o.discord_follow = "100";
  auto s = Server::Start(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("DISCORD_TOKEN"), std::string::npos);
  o.discord_token = "t";
  o.discord_follow = "general";
  s = Server::Start(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("not a guild id"), std::string::npos);
}

}  // namespace
}  // namespace umwelt

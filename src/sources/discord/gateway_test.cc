// The Discord gateway: the protocol frame by frame, then Follow against a
// scripted gateway on loopback (tests/discord_gateway_fake.h) with the events
// applied to a real corpus.
#include "gateway.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "discord_gateway_fake.h"
#include "test_util.h"
#include "umwelt/discord.h"

namespace umwelt::discord {
namespace {

using json = nlohmann::json;
using testing::FakeGateway;

constexpr char kToken[] = "gw-s3cret-token";

json Frame(const std::string& s) { return json::parse(s); }

TEST(DiscordGateway, UrlsAreWssOrALoopbackTestsOwn) {
  auto g = ParseGatewayUrl("wss://gateway.discord.gg", false);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_TRUE(g->tls);
  EXPECT_EQ(g->host, "gateway.discord.gg");
  EXPECT_EQ(g->port, 443);
  EXPECT_EQ(g->path, "/?v=10&encoding=json");
  g = ParseGatewayUrl("wss://gateway-us-east1-b.discord.gg:8443/x?a=1", false);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->port, 8443);
  EXPECT_EQ(g->path, "/x?a=1&v=10&encoding=json");
  g = ParseGatewayUrl("ws://[::1]:9000", true);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->host, "::1");
  EXPECT_EQ(g->port, 9000);
  // The token never goes out in clear, and a URL is not a place to hide a host.
  for (const char* bad : {"ws://gateway.discord.gg", "http://gateway.discord.gg", "ws://127.0.0.1:9000",
                          "wss://", "wss://a:0", "wss://a:99999", "wss://a:x", "wss://user@evil.example",
                          "wss://[::1", "ws://10.0.0.1"}) {
    EXPECT_FALSE(ParseGatewayUrl(bad, std::string_view(bad) == "ws://127.0.0.1:9000" ? false : true).ok()) << bad;
  }
}

TEST(DiscordGateway, TheProtocolFrameByFrame) {
  GatewaySession s(kToken, "100", kFollowIntents, /*seed=*/1);
  s.Connected(0);
  EXPECT_TRUE(s.OnTick(1000).send.empty());  // nothing before HELLO
  auto step = s.OnFrame(R"({"op":10,"d":{"heartbeat_interval":1000}})", 0);
  ASSERT_EQ(step.send.size(), 1u);
  json identify = Frame(step.send[0]);
  EXPECT_EQ(identify["op"], 2);
  EXPECT_EQ(identify["d"]["token"], kToken);
  EXPECT_EQ(identify["d"]["intents"], kFollowIntents);
  step = s.OnFrame(R"({"op":0,"t":"READY","s":1,"d":{"session_id":"abc","resume_gateway_url":"wss://r.example"}})", 10);
  EXPECT_TRUE(step.new_session);
  EXPECT_EQ(s.session_id(), "abc");
  // A message in the guild is an event; one in another guild is not.
  step = s.OnFrame(R"({"op":0,"t":"GUILD_CREATE","s":2,"d":{"id":"100","channels":[{"id":"200","name":"general","type":0}]}})",
                   20);
  EXPECT_TRUE(step.events.empty());
  step = s.OnFrame(
      R"({"op":0,"t":"MESSAGE_CREATE","s":3,"d":{"id":"900","channel_id":"200","guild_id":"100","content":"hi"}})", 30);
  ASSERT_EQ(step.events.size(), 1u);
  EXPECT_EQ(step.events[0].seq, 3);
  EXPECT_EQ(step.events[0].channel, "discord:100/200");
  EXPECT_EQ(Frame(step.events[0].body)["channel"]["name"], "general");
  EXPECT_EQ(s.seq(), 2) << "an event counts once it is kept";
  s.Handled(3);
  step = s.OnFrame(R"({"op":0,"t":"MESSAGE_CREATE","s":4,"d":{"id":"901","channel_id":"5","guild_id":"999"}})", 40);
  EXPECT_TRUE(step.events.empty());
  EXPECT_EQ(s.seq(), 4);
  // Heartbeats carry the sequence number; one never acknowledged ends the link.
  step = s.OnTick(2000);
  ASSERT_EQ(step.send.size(), 1u);
  EXPECT_EQ(Frame(step.send[0]), Frame(R"({"op":1,"d":4})"));
  EXPECT_FALSE(s.OnTick(2500).close);
  step = s.OnTick(3100);
  EXPECT_TRUE(step.close) << "no ACK came";
  EXPECT_EQ(s.AfterClose(0, nullptr), GatewaySession::Next::kResume);
  // The next connection resumes where the last event was kept.
  s.Connected(4000);
  step = s.OnFrame(R"({"op":10,"d":{"heartbeat_interval":1000}})", 4000);
  json resume = Frame(step.send.at(0));
  EXPECT_EQ(resume["op"], 6);
  EXPECT_EQ(resume["d"]["session_id"], "abc");
  EXPECT_EQ(resume["d"]["seq"], 4);
  EXPECT_TRUE(s.OnFrame(R"({"op":11})", 4100).send.empty());
  EXPECT_EQ(s.OnFrame(R"({"op":1,"d":null})", 4200).send.size(), 1u) << "asked for a beat, it beats";
  EXPECT_TRUE(s.OnFrame(R"({"op":7,"d":null})", 4300).close);
  // A session that cannot be resumed is forgotten, and identifying waits 1–5 s.
  step = s.OnFrame(R"({"op":9,"d":false})", 4400);
  EXPECT_TRUE(step.close);
  EXPECT_FALSE(s.can_resume());
  EXPECT_GE(s.reconnect_delay_seconds(), 1);
  EXPECT_LE(s.reconnect_delay_seconds(), 5);
  EXPECT_EQ(s.AfterClose(4000, nullptr), GatewaySession::Next::kIdentify);
  // Frames that are not the protocol close the link; they never throw.
  for (const char* bad : {"", "null", "[]", R"({"op":"10"})", R"({"op":10,"d":{"heartbeat_interval":-5}})",
                          R"({"op":10,"d":{"heartbeat_interval":1e12}})", R"({"op":0,"t":"READY","s":1,"d":{}})",
                          "{\"op\":0,\"t\":\"MESSAGE_CREATE\",\"s\":9,\"d\":7}"}) {
    s.Connected(5000);
    EXPECT_NO_THROW(s.OnFrame(bad, 5000)) << bad;
  }
  // What retrying cannot fix stops, saying what to do.
  std::string why;
  EXPECT_EQ(s.AfterClose(4004, &why), GatewaySession::Next::kStop);
  EXPECT_NE(why.find("token"), std::string::npos);
  EXPECT_EQ(s.AfterClose(4014, &why), GatewaySession::Next::kStop);
  EXPECT_NE(why.find("Message Content intent"), std::string::npos);
}

// --- Follow against the scripted gateway ---------------------------------------

json Channels() {
  return json::array({{{"id", "200"}, {"type", 0}, {"guild_id", "100"}, {"name", "general"}},
                      {{"id", "210"}, {"type", 15}, {"guild_id", "100"}, {"name", "questions"}}});
}

json Message(const std::string& id, const std::string& channel, const std::string& content) {
  return FakeGateway::Message(id, "100", channel, content);
}

class DiscordFollowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
  }
  void TearDown() override { Stop(); }

  // Follows the fake gateway in a thread, applying each event to the corpus.
  void Start() {
    FollowOptions o;
    o.guild = "100";
    o.token = kToken;
    o.gateway_url = gw_.url();
    o.allow_loopback = true;
    o.backoff_seconds = 0.05;
    o.max_backoff_seconds = 0.2;
    o.stopping = [this] { return stop_.load(); };
    o.on_new_session = [this] { new_sessions_++; };
    o.on_event = [this](const GatewayEvent& e) {
      std::lock_guard<std::mutex> lock(mu_);
      if (fail_next_) {
        fail_next_ = false;
        return Status::Io("the corpus is busy");
      }
      seqs_.push_back({e.session, e.seq});
      int64_t n = 0;
      return ApplyEvent(*corpus_, e.body, "100", "acme/tinylm", &n);
    };
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      log_ += line + "\n";
    };
    thread_ = std::thread([this, o] { status_ = Follow(*http_, o, &report_); });
  }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  bool Ready(int identifies, int resumes = 0) {
    return FakeGateway::WaitUntil([&] {
      std::lock_guard<std::mutex> lock(mu_);
      return gw_.identifies() >= identifies && gw_.resumes() >= resumes && true &&
             gw_.connected();
    });
  }
  std::optional<std::string> Text(const std::string& ref) {
    std::lock_guard<std::mutex> lock(mu_);
    auto r = corpus_->ChunkByRef(ref);
    if (!r.ok() || !r->has_value()) return std::nullopt;
    return (*r)->text;
  }
  bool WaitText(const std::string& ref, const std::string& want) {
    return FakeGateway::WaitUntil([&] {
      auto t = Text(ref);
      return want.empty() ? !t.has_value() : t && t->find(want) != std::string::npos;
    });
  }

  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
  FakeGateway gw_{kToken, "100", Channels()};
  std::unique_ptr<HttpClient> http_ = NewCurlHttpClient();
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> new_sessions_{0};
  Status status_;
  FollowReport report_;
  std::mutex mu_;
  std::vector<std::pair<std::string, int64_t>> seqs_;  // the events kept, in order
  bool fail_next_ = false;
  std::string log_;
};

TEST_F(DiscordFollowTest, MessagesAppearEditsReplaceDeletesRemoveAndThreadsFollow) {
  Start();
  ASSERT_TRUE(Ready(1));
  EXPECT_EQ(gw_.last_hello()["d"]["intents"], kFollowIntents) << "the minimum intents";
  EXPECT_NE(gw_.last_path().find("v=10&encoding=json"), std::string::npos) << gw_.last_path();
  gw_.Dispatch("MESSAGE_CREATE", Message("1000", "200", "the eval loop is slower since the merge"));
  ASSERT_TRUE(WaitText("discord:100/200/1000", "eval loop is slower"));
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto row = corpus_->GetThread("discord:100/200");
    ASSERT_TRUE(row.ok() && row->has_value());
    EXPECT_EQ((*row)->title, "#general") << "the channel's name, from GUILD_CREATE";
  }
  json edited = Message("1000", "200", "the eval loop is faster again");
  edited["edited_timestamp"] = "2026-11-20T10:05:00.000000+00:00";
  gw_.Dispatch("MESSAGE_UPDATE", edited);
  ASSERT_TRUE(WaitText("discord:100/200/1000", "faster again"));
  // A partial update (an embed unfurled) leaves the message as it was.
  gw_.Dispatch("MESSAGE_UPDATE", {{"id", "1000"}, {"channel_id", "200"}, {"guild_id", "100"}, {"embeds", json::array()}});
  gw_.Dispatch("MESSAGE_DELETE", {{"id", "1000"}, {"channel_id", "200"}, {"guild_id", "100"}});
  ASSERT_TRUE(WaitText("discord:100/200/1000", ""));
  // A new forum thread, a message in it, a rename, then the thread deleted.
  gw_.Dispatch("THREAD_CREATE", {{"id", "300"}, {"type", 11}, {"guild_id", "100"}, {"parent_id", "210"},
                                 {"name", "OOM at step 4000"}, {"newly_created", true}});
  gw_.Dispatch("MESSAGE_CREATE", Message("1001", "300", "halving the batch fixed it"));
  ASSERT_TRUE(WaitText("discord:100/300/1001", "halving the batch"));
  gw_.Dispatch("THREAD_UPDATE", {{"id", "300"}, {"type", 11}, {"guild_id", "100"}, {"parent_id", "210"},
                                 {"name", "OOM at step 4000 (solved)"}});
  ASSERT_TRUE(FakeGateway::WaitUntil([&] {
    std::lock_guard<std::mutex> lock(mu_);
    auto row = corpus_->GetThread("discord:100/300");
    return row.ok() && row->has_value() && (*row)->title == "OOM at step 4000 (solved)";
  }));
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto row = corpus_->GetThread("discord:100/300");
    EXPECT_EQ((*row)->parent, "discord:100/210");
    EXPECT_FALSE((*row)->created.empty()) << "a rename keeps what the messages made of the row";
  }
  // Another guild's message changes nothing.
  json other = Message("1002", "200", "elsewhere");
  other["guild_id"] = "555";
  gw_.Dispatch("MESSAGE_CREATE", other);
  gw_.Dispatch("THREAD_DELETE", {{"id", "300"}, {"type", 11}, {"guild_id", "100"}, {"parent_id", "210"}});
  ASSERT_TRUE(WaitText("discord:100/300/1001", ""));
  EXPECT_FALSE(Text("discord:100/200/1002").has_value());
  Stop();
  EXPECT_TRUE(status_.ok()) << status_.message();
  EXPECT_EQ(new_sessions_, 1);
}

TEST_F(DiscordFollowTest, ADroppedLinkResumesWithoutGapsOrDuplicates) {
  Start();
  ASSERT_TRUE(Ready(1));
  gw_.Dispatch("MESSAGE_CREATE", Message("2000", "200", "before the drop"));
  ASSERT_TRUE(WaitText("discord:100/200/2000", "before the drop"));
  gw_.Drop();
  ASSERT_TRUE(FakeGateway::WaitUntil([&] { return gw_.connections() >= 2 || !gw_.connected(); }));
  // Sent while the link is down: replayed by the resume.
  for (int i = 1; i <= 5; ++i) gw_.Dispatch("MESSAGE_CREATE", Message(std::to_string(2000 + i), "200", "while away"));
  ASSERT_TRUE(Ready(1, 1));
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE(WaitText("discord:100/200/" + std::to_string(2000 + i), "while away"));
  // The gateway asks for a reconnect; an event not kept is sent again.
  gw_.AskReconnect();
  ASSERT_TRUE(Ready(1, 2));
  {
    std::lock_guard<std::mutex> lock(mu_);
    fail_next_ = true;
  }
  gw_.Dispatch("MESSAGE_CREATE", Message("2010", "200", "kept on the second try"));
  // Right behind it, an event nothing keeps: read after the failure, it
  // would move the sequence number past the message, and the resume would
  // skip it.
  gw_.Dispatch("TYPING_START", {{"channel_id", "200"}, {"guild_id", "100"}, {"user_id", "7"}});
  ASSERT_TRUE(WaitText("discord:100/200/2010", "second try"));
  ASSERT_TRUE(Ready(1, 3));
  // A dead link (no ACK) is noticed and resumed.
  gw_.AckHeartbeats(false);
  ASSERT_TRUE(FakeGateway::WaitUntil([&] { return gw_.resumes() >= 4; }));
  gw_.AckHeartbeats(true);
  gw_.Dispatch("MESSAGE_CREATE", Message("2011", "200", "after the dead link"));
  ASSERT_TRUE(WaitText("discord:100/200/2011", "after the dead link"));
  Stop();
  EXPECT_TRUE(status_.ok()) << status_.message();
  EXPECT_EQ(gw_.identifies(), 1) << log_;
  EXPECT_EQ(new_sessions_, 1);
  // Every event kept once, in order, none skipped.
  std::lock_guard<std::mutex> lock(mu_);
  std::set<int64_t> seen;
  for (size_t i = 0; i < seqs_.size(); ++i) {
    EXPECT_TRUE(seen.insert(seqs_[i].second).second) << "event " << seqs_[i].second << " kept twice\n" << log_;
    if (i > 0) {
      EXPECT_GT(seqs_[i].second, seqs_[i - 1].second);
    }
  }
  EXPECT_EQ(seqs_.size(), 8u) << log_;
}

TEST_F(DiscordFollowTest, ALostSessionIdentifiesAgainAndAsksForACatchUp) {
  Start();
  ASSERT_TRUE(Ready(1));
  gw_.InvalidateSession();
  ASSERT_TRUE(Ready(2));
  EXPECT_EQ(new_sessions_, 2) << "what happened in between is the REST catch-up's";
  gw_.Dispatch("MESSAGE_CREATE", Message("3000", "200", "in the new session"));
  ASSERT_TRUE(WaitText("discord:100/200/3000", "new session"));
  // A close that invalidates the session (4009: timed out) identifies too.
  gw_.CloseWith(4009);
  ASSERT_TRUE(Ready(3));
  Stop();
  EXPECT_TRUE(status_.ok()) << status_.message();
}

TEST_F(DiscordFollowTest, ARefusedTokenStopsWithOneClearErrorThatHidesIt) {
  gw_.RefuseToken(true);
  Start();
  ASSERT_TRUE(FakeGateway::WaitUntil([&] { return !thread_.joinable() || gw_.connections() >= 1; }));
  thread_.join();
  EXPECT_EQ(status_.code(), Code::kPermissionDenied);
  EXPECT_NE(status_.message().find("refused the bot token"), std::string::npos) << status_.message();
  EXPECT_EQ(status_.message().find(kToken), std::string::npos);
  EXPECT_EQ(gw_.connections(), 1) << "a refused token is not retried";
}

TEST(DiscordFollow, BadOptionsAreRefusedBeforeConnecting) {
  auto http = NewCurlHttpClient();
  FollowReport r;
  FollowOptions o;
  o.guild = "100";
  EXPECT_EQ(Follow(*http, o, &r).code(), Code::kInvalidArgument) << "no token";
  o.token = kToken;
  o.guild = "1; DROP";
  EXPECT_EQ(Follow(*http, o, &r).code(), Code::kInvalidArgument);
  o.guild = "100";
  o.gateway_url = "ws://gateway.example";  // clear text to a real host
  auto s = Follow(*http, o, &r);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.message();
  EXPECT_EQ(r.connections, 0);
}

// A gateway URL (the API's, or a READY's resume URL) that names or resolves
// to an address inside the network is refused before any connection: the
// token would otherwise go to whatever listens there.
TEST(DiscordFollow, PrivateGatewayAddressesAreRefusedBeforeConnecting) {
  auto http = NewCurlHttpClient();
  for (const char* url : {"wss://127.0.0.1:9", "wss://localhost:9", "wss://10.1.2.3/", "wss://[::1]:9",
                          "wss://[::ffff:192.168.0.1]", "wss://169.254.169.254/latest"}) {
    FollowReport r;
    FollowOptions o;
    o.guild = "100";
    o.token = kToken;
    o.gateway_url = url;
    o.backoff_seconds = 0.05;  // without the check it would connect, fail and retry: stop it after 2 s
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    o.stopping = [until] { return std::chrono::steady_clock::now() > until; };
    auto s = Follow(*http, o, &r);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << url << ": " << s.message();
    EXPECT_NE(s.message().find("refused"), std::string::npos) << s.message();
    EXPECT_EQ(r.connections, 0) << url;
  }
}

TEST(DiscordApplyEvent, BodiesOfTheWrongShapeAreRefusedAndChangeNothing) {
  testing::TempDir dir;
  auto corpus = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(corpus.ok());
  int64_t n = 0;
  for (const char* bad : {"", "[]", R"({"t":"MESSAGE_CREATE"})", R"({"t":"MESSAGE_CREATE","d":[]})"}) {
    EXPECT_EQ(ApplyEvent(**corpus, bad, "100", "", &n).code(), Code::kCorrupt) << bad;
  }
  for (const char* bad : {R"({"t":"MESSAGE_CREATE","d":{"guild_id":"100","id":"1","channel_id":"../x"}})",
                          R"({"t":"MESSAGE_DELETE","d":{"guild_id":"100","id":"1"}})",
                          R"({"t":"THREAD_UPDATE","d":{"guild_id":"100","id":{"x":1}}})"}) {
    EXPECT_EQ(ApplyEvent(**corpus, bad, "100", "", &n).code(), Code::kCorrupt) << bad;
  }
  // A deleted message never stored: no error, no change.
  EXPECT_TRUE(ApplyEvent(**corpus, R"({"t":"MESSAGE_DELETE","d":{"guild_id":"100","id":"5","channel_id":"6"}})", "100",
                         "", &n)
                  .ok());
  auto stats = (*corpus)->Stats();
  for (const auto& k : stats->counts) EXPECT_NE(k.source, "discord");
  // Fields of the wrong type are read as sync reads them: the message is kept.
  json m = Message("7", "200", "typeswapped author");
  m["author"] = "not an object";
  m["mentions"] = 5;
  EXPECT_TRUE(ApplyEvent(**corpus, json{{"t", "MESSAGE_CREATE"}, {"d", m}}.dump(), "100", "", &n).ok());
  auto kept = (*corpus)->ChunkByRef("discord:100/200/7");
  ASSERT_TRUE(kept.ok() && kept->has_value());
  EXPECT_NE((*kept)->text.find("typeswapped author"), std::string::npos);
}

}  // namespace
}  // namespace umwelt::discord

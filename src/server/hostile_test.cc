// Outside input cannot kill the server or take it from others: long and
// pathological requests, ambiguous framing, floods from a few addresses,
// other logins' sessions, revocation, and what the log and errors show.
// Each test fails on the code before its fix.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "auth.h"
#include "engine.h"
#include "http_server.h"
#include "server_fixtures.h"
#include "server_impl.h"
#include "test_util.h"
#include "umwelt/mcp.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
using testing::AuthTest;
using testing::Connect;
using testing::Probe;
using testing::ReadAll;
using testing::SendAll;
using testing::ServerTest;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The status line of a raw request sent as is.
std::string Raw(int port, const std::string& request) {
  int fd = Connect(port);
  if (fd < 0) return "no connection";
  SendAll(fd, request);
  std::string r = ReadAll(fd, 3);
  ::close(fd);
  return r.substr(0, r.find("\r\n"));
}

// An MCP session over HTTP: its id, or "" when initialize failed.
std::string McpInitialize(httplib::Client& c, const httplib::Headers& auth = {}) {
  json init = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
               {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                           {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
  auto r = c.Post("/mcp", auth, init.dump(), "application/json");
  return r && r->status == 200 ? r->get_header_value("Mcp-Session-Id") : "";
}

httplib::Result McpCall(httplib::Client& c, const std::string& session, const json& msg, httplib::Headers h = {}) {
  h.emplace("Mcp-Session-Id", session);
  return c.Post("/mcp", h, msg.dump(), "application/json");
}

TEST_F(ServerTest, LongPathsCookiesRangesAndArgumentNamesAreAnsweredNotFatal) {
  StartServer();
  auto path = client_->Get("/summaries/" + std::string(30000, 'A'));
  ASSERT_TRUE(path);
  EXPECT_EQ(path->status, 404);
  auto cookie = client_->Get("/api/status", {{"Cookie", std::string(30000, ' ') + "x"}});
  ASSERT_TRUE(cookie);
  EXPECT_EQ(cookie->status, 200);
  auto range = client_->Get("/corpus-index.db", {{"Range", "bytes=" + std::string(30000, ' ') + "0-0"}});
  ASSERT_TRUE(range);
  EXPECT_LT(range->status, 500);
  std::string session = McpInitialize(*client_);
  ASSERT_FALSE(session.empty());
  json call = {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
               {"params", {{"name", "search"}, {"arguments", {{std::string(100000, ' '), 1}, {"query", "x"}}}}}};
  auto tool = McpCall(*client_, session, call);
  ASSERT_TRUE(tool);
  EXPECT_NE(tool->body.find("unknown argument"), std::string::npos) << tool->body.substr(0, 300);
  EXPECT_LT(tool->body.size(), 2000u);
  EXPECT_EQ(Probe(server_->port(), "127.0.0.1"), "HTTP/1.1 200 OK");
}

TEST_F(ServerTest, TheAccessLogShowsPathsEncodedAndWithoutSecrets) {
  StartServer();
  client_->Get("/x%0aGET%20/forged%20200%1b]52;c;QUFB%07%00end");
  client_->Get("/ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa");
  std::string log = Log();
  EXPECT_EQ(log.find('\x1b'), std::string::npos);
  EXPECT_EQ(log.find('\x07'), std::string::npos);
  EXPECT_EQ(log.find('\0'), std::string::npos);
  EXPECT_NE(log.find("/x%0AGET%20/forged%20200%1B]52;c;QUFB%07%00end"), std::string::npos) << log;
  EXPECT_EQ(log.find("Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"), std::string::npos) << log;
  // One line per request: none forged.
  EXPECT_EQ(log.find("\nGET /forged"), std::string::npos) << log;
}

TEST(LoggedPath, EncodesWhatATerminalOrALogReaderWouldAct) {
  EXPECT_EQ(server_internal::LoggedPath("/a b\n\x1b%"), "/a%20b%0A%1B%25");
  EXPECT_EQ(server_internal::LoggedPath("/caf\xc3\xa9"), "/caf%C3%A9");
  EXPECT_EQ(server_internal::LoggedPath(std::string(300, 'a')).size(), 203u);
}

TEST_F(ServerTest, NoAnswerCarriesThePathOfTheServedCorpus) {
  StartServer();
  std::string dir = std::filesystem::path(path_).parent_path().string();
  for (const char* target : {"/api/show?url=https%3A%2F%2Fgithub.com%2Fnobody%2Fnothing%2Fissues%2F1", "/thread?ref=nope-1",
                             "/api/threads/nope-1", "/api/show?url=x"}) {
    auto r = client_->Get(target);
    ASSERT_TRUE(r) << target;
    EXPECT_GE(r->status, 400) << target;
    EXPECT_EQ(r->body.find(dir), std::string::npos) << target << ": " << r->body;
  }
  std::string session = McpInitialize(*client_);
  json read = {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "resources/read"}, {"params", {{"uri", "umwelt://thread/nope-1"}}}};
  auto r = McpCall(*client_, session, read);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.find(dir), std::string::npos) << r->body;
}

TEST_F(ServerTest, HostHeadersAreReadExactly) {
  StartServer();
  std::string port = std::to_string(server_->port());
  for (const std::string& host : std::vector<std::string>{"[::1].evil.example", "[::1].evil.example:" + port, "localhost:80@evil.example",
                                  "localhost:" + port + "@evil.example", "localhost:x", "127.0.0.1:1:2", "localhost.",
                                  "127.0.0.1 evil.example"}) {
    auto r = client_->Get("/api/status", {{"Host", host}});
    ASSERT_TRUE(r) << host;
    EXPECT_EQ(r->status, 421) << host;
  }
  std::string host;
  std::string p;
  ASSERT_TRUE(server_internal::SplitHostPort("[::1]:8080", &host, &p));
  EXPECT_EQ(host, "[::1]");
  EXPECT_EQ(p, "8080");
  EXPECT_FALSE(server_internal::SplitHostPort("[::1]x", &host, &p));
  EXPECT_FALSE(server_internal::SplitHostPort("", &host, &p));
  EXPECT_FALSE(server_internal::SplitHostPort("a:123456", &host, &p));
}

TEST_F(ServerTest, AmbiguousFramingIsRefusedAndTheConnectionClosed) {
  StartServer();
  int port = server_->port();
  const std::string head = "POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  EXPECT_EQ(Raw(port, head + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(Raw(port, head + "Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}"), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(Raw(port, head + "Content-Length: +2\r\n\r\n{}"), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(Raw(port, "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n"),
            "HTTP/1.1 400 Bad Request");
  std::string nul = Raw(port, std::string("GET /api/st\0atus HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 44));
  EXPECT_TRUE(nul.rfind("HTTP/1.1 400", 0) == 0 || nul.empty()) << nul;
  // The same length twice is one length.
  EXPECT_EQ(Raw(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n"
                      "Connection: close\r\n\r\n"),
            "HTTP/1.1 200 OK");
  EXPECT_EQ(Probe(port, "127.0.0.1"), "HTTP/1.1 200 OK");
}

// Slow clients from four addresses hold every connection they may; one
// that sends its request at once is still served within a second.
TEST_F(ServerTest, SlowClientsFromFewAddressesCannotKeepOthersOut) {
  ServeOptions o;
  o.threads = 64;
  o.max_connections_per_client = 16;
  o.read_timeout_seconds = 30;
  StartServer(o);
  int port = server_->port();
  std::vector<int> slow;
  for (const char* from : {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}) {
    for (int i = 0; i < 16; ++i) {
      int fd = Connect(port, from);
      if (fd < 0) continue;
      SendAll(fd, "GET /api/status HTTP/1.1\r\n");
      slow.push_back(fd);
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  for (int round = 0; round < 5; ++round) {
    auto t0 = Clock::now();
    EXPECT_EQ(Probe(port, "127.0.0.9"), "HTTP/1.1 200 OK") << round;
    EXPECT_LT(Since(t0), 1.0) << round;
    for (int fd : slow) SendAll(fd, "X-Slow: 1\r\n");
  }
  for (int fd : slow) ::close(fd);
}

TEST(ClientKey, AnIpv6SlashSixtyFourIsOneClient) {
  using server_internal::ClientKey;
  EXPECT_EQ(ClientKey("2001:db8:1:2::1"), ClientKey("2001:db8:1:2:ffff:ffff:ffff:fffe"));
  EXPECT_NE(ClientKey("2001:db8:1:2::1"), ClientKey("2001:db8:1:3::1"));
  EXPECT_EQ(ClientKey("::ffff:192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(ClientKey("192.0.2.7"), "192.0.2.7");
}

// One address flooding the search pool delays another's search by about
// one task, and is refused past its share instead of queueing without end.
TEST(SearchPoolFairness, EachClientTakesItsTurn) {
  server_internal::SearchPool pool(1, std::chrono::milliseconds(10000), 8);
  auto slow = [] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); };
  std::vector<std::thread> flood;
  std::atomic<int> refused{0};
  for (int i = 0; i < 12; ++i) {
    flood.emplace_back([&] {
      if (!pool.RunAll({slow}, "10.0.0.1").ok()) ++refused;
    });
  }
  // The flood is in: its queue was full three times (one runs, eight wait).
  ASSERT_TRUE(testing::WaitUntil([&] { return refused.load() >= 3 && pool.queued() > 0; }));
  auto t0 = Clock::now();
  ASSERT_TRUE(pool.RunAll({[] {}}, "10.0.0.2").ok());
  double waited = Since(t0);
  for (auto& t : flood) t.join();
  EXPECT_LT(waited, 0.35);  // the task running, then this one: not the eight queued before it
  EXPECT_GE(refused.load(), 3);  // 12 asked, 1 running and 8 waiting allowed
}

TEST_F(AuthTest, AFileThatGrantsNoOneRefusesEveryoneAndRevocationAlwaysWins) {
  ServeOptions o;
  o.auth_file = auth_file_;
  StartServer(o);
  ASSERT_EQ(Get("/api/status", "Bearer static-ok")->status, 200);
  // Revoking the last token: a file that names no one is valid.
  testing::WriteFile(auth_file_ + ".tmp", json{{"tokens", json::array()}, {"revoked", {Sha256Hex("static-ok")}}}.dump());
  std::filesystem::rename(auth_file_ + ".tmp", auth_file_);
  auto revoked = Get("/api/status", "Bearer static-ok");
  ASSERT_TRUE(revoked);
  EXPECT_EQ(revoked->status, 401);
  EXPECT_EQ(Get("/api/status", "Bearer tok-alice")->status, 401);
  // A broken file keeps the last good settings, but what it revokes is
  // revoked, and status says why the file was not taken.
  WriteAuth({});
  ASSERT_EQ(Get("/api/status", "Bearer static-ok")->status, 200);
  testing::WriteFile(auth_file_ + ".tmp",
                     json{{"org", 7}, {"revoked", {Sha256Hex("static-ok")}}}.dump());
  std::filesystem::rename(auth_file_ + ".tmp", auth_file_);
  EXPECT_EQ(Get("/api/status", "Bearer static-ok")->status, 401);
  auto status = Get("/api/status", "Bearer tok-alice");
  ASSERT_TRUE(status);
  ASSERT_EQ(status->status, 200);
  std::string why = json::parse(status->body)["auth_reload_error"];
  EXPECT_NE(why.find("\"org\" must be a string"), std::string::npos) << why;
  EXPECT_EQ(why.find(dir_.path()), std::string::npos) << why;
  EXPECT_NE(Log().find("still using the last good auth file"), std::string::npos);
}

TEST_F(AuthTest, UnknownStaticTokensAreLimitedPerAddress) {
  testing::WriteFile(auth_file_, json{{"tokens", {{{"sha256", Sha256Hex("static-ok")}, {"login", "ci"}}}}}.dump());
  ServeOptions o;
  o.auth_file = auth_file_;
  StartServer(o);
  int limited = 0;
  for (int i = 0; i < server_internal::Auth::kChecksPerMinute + 5; ++i) {
    auto r = Get("/api/status", "Bearer guess-" + std::to_string(i));
    ASSERT_TRUE(r);
    limited += r->status == 429;
  }
  EXPECT_EQ(limited, 5);
  EXPECT_EQ(Get("/api/status", "Bearer static-ok")->status, 200);  // the right token still works
}

TEST_F(AuthTest, JobsAndMcpSessionsBelongToTheLoginThatMadeThem) {
  ServeOptions o;
  o.auth_file = auth_file_;
  StartServer(o);
  httplib::Headers alice = {{"Authorization", "Bearer tok-alice"}};
  httplib::Headers bob = {{"Authorization", "Bearer tok-bob"}};
  auto ask = client_->Post("/api/ask", alice, json{{"question", "What is MFU?"}}.dump(), "application/json");
  ASSERT_TRUE(ask);
  ASSERT_EQ(ask->status, 202);
  std::string job = json::parse(ask->body)["id"];
  EXPECT_EQ(client_->Get("/api/jobs/" + job, bob)->status, 404);
  EXPECT_EQ(client_->Get("/api/jobs/" + job + "/events", bob)->status, 404);
  EXPECT_EQ(client_->Get("/api/jobs/" + job, alice)->status, 200);
  std::string session = McpInitialize(*client_, alice);
  ASSERT_FALSE(session.empty());
  json ping = {{"jsonrpc", "2.0"}, {"id", 5}, {"method", "ping"}};
  EXPECT_EQ(McpCall(*client_, session, ping, bob)->status, 404);
  EXPECT_EQ(client_->Delete("/mcp", {{"Authorization", "Bearer tok-bob"}, {"Mcp-Session-Id", session}})->status, 404);
  EXPECT_EQ(McpCall(*client_, session, ping, alice)->status, 200);
  // Bob's flood of initialize calls evicts his own sessions, not Alice's.
  for (int i = 0; i < 300; ++i) ASSERT_FALSE(McpInitialize(*client_, bob).empty());
  EXPECT_EQ(McpCall(*client_, session, ping, alice)->status, 200);
}

TEST_F(AuthTest, SignInSessionsAreCappedOldestFirst) {
  ServeOptions o;
  o.auth_file = auth_file_;
  StartServer(o);
  std::vector<std::string> cookies;
  for (int i = 0; i < 70; ++i) {
    auto r = client_->Post("/login", "token=static-ok&next=%2F", "application/x-www-form-urlencoded");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 303);
    std::string c = r->get_header_value("Set-Cookie");
    cookies.push_back(c.substr(0, c.find(';')));
  }
  EXPECT_EQ(client_->Get("/api/status", {{"Cookie", cookies.front()}})->status, 401);
  EXPECT_EQ(client_->Get("/api/status", {{"Cookie", cookies.back()}})->status, 200);
}

TEST(McpSessionMemory, CancellationsAndIdsAreBoundedInBytes) {
  mcp::Options o;
  mcp::Session s(o);
  std::string big(1 << 20, 'x');
  (void)s.Handle(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", big}}}}.dump(),
                 nullptr);
  EXPECT_FALSE(s.Cancelled(json(big).dump()));
  for (int i = 0; i < 1000; ++i) {
    (void)s.Handle(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", i}}}}.dump(),
                   nullptr);
  }
  EXPECT_FALSE(s.Cancelled("0"));  // forgotten: only the newest are kept
  EXPECT_TRUE(s.Cancelled("999"));
  std::string reply = s.Handle(json{{"jsonrpc", "2.0"}, {"id", std::string(1000, 'i')}, {"method", "ping"}}.dump(), nullptr);
  EXPECT_NE(reply.find("id is longer than"), std::string::npos) << reply.substr(0, 200);
  EXPECT_LT(reply.size(), 500u);
}

}  // namespace
}  // namespace umwelt

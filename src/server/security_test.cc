// Issue 13: each attack on `umwelt serve` and `umwelt refresh`, reproduced
// against a real server on loopback, refused.
#include <gtest/gtest.h>
#include <httplib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "auth.h"
#include "engine.h"
#include "server_fixtures.h"
#include "test_util.h"
#include "umwelt/corpus.h"
#include "umwelt/file.h"
#include "umwelt/http.h"
#include "umwelt/publish.h"
#include "umwelt/server.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
using testing::AuthTest;
using testing::ServerTest;
using testing::Connect;
using testing::SendAll;
using testing::ReadAll;
using testing::Probe;

int64_t RssKb() {
  auto s = ReadWholeFile("/proc/self/status");
  if (!s.ok()) return 0;
  size_t p = s->find("VmRSS:");
  return p == std::string::npos ? 0 : std::atoll(s->c_str() + p + 6);
}

std::string CookieOf(const httplib::Result& login) {
  std::string c = login->get_header_value("Set-Cookie");
  return c.substr(0, c.find(';'));
}

// Item 1: a session is bound to the token it came from.
TEST_F(AuthTest, SessionEndsWhenItsTokenIsRevokedOrNoLongerAllowed) {
  ServeOptions o;
  o.auth_file = auth_file_;
  StartServer(o);
  auto login = client_->Post("/login", "token=static-ok&next=%2F", "application/x-www-form-urlencoded");
  ASSERT_TRUE(login);
  ASSERT_EQ(login->status, 303);
  httplib::Headers cookie = {{"Cookie", CookieOf(login)}};
  EXPECT_EQ(client_->Get("/api/status", cookie)->status, 200);
  EXPECT_EQ(client_->Get("/corpus-index.db", cookie)->status, 200);
  WriteAuth({Sha256Hex("static-ok")});
  auto after = client_->Get("/api/status", cookie);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 401);
  EXPECT_NE(Json(after)["detail"].get<std::string>().find("revoked"), std::string::npos);
  EXPECT_EQ(client_->Get("/corpus-index.db", cookie)->status, 401);
  // Unrevoked, the session is still gone: sign in again.
  WriteAuth({});
  EXPECT_EQ(client_->Get("/api/status", cookie)->status, 401);

  // A GitHub login dropped from the allowlist loses its session at once.
  auto alice = client_->Post("/login", "token=tok-alice&next=%2F", "application/x-www-form-urlencoded");
  ASSERT_TRUE(alice);
  ASSERT_EQ(alice->status, 303);
  httplib::Headers alice_cookie = {{"Cookie", CookieOf(alice)}};
  EXPECT_EQ(client_->Get("/api/status", alice_cookie)->status, 200);
  json a = {{"github_api", github_.base()}, {"org", "acme"}, {"allow", json::array()},
            {"tokens", {{{"sha256", Sha256Hex("static-ok")}, {"login", "ci"}}}}};
  testing::WriteFile(auth_file_ + ".tmp", a.dump());
  std::filesystem::rename(auth_file_ + ".tmp", auth_file_);
  auto dropped = client_->Get("/api/status", alice_cookie);
  ASSERT_TRUE(dropped);
  EXPECT_EQ(dropped->status, 403);
}

// Item 5: no open redirect after sign-in, and no cross-site sign-in.
TEST_F(AuthTest, SignInRedirectsOnlyToThisOriginAndRefusesCrossSitePosts) {
  ServeOptions o;
  o.auth_file = auth_file_;
  StartServer(o);
  for (const char* next : {"%2F%09%2Fevil.example", "%2F%0A%2Fevil.example", "%2F%5Cevil.example", "%2F%2Fevil.example",
                           "https%3A%2F%2Fevil.example%2F", "%2F%00x", "javascript%3Aalert(1)", "%2F%7F%2Fx"}) {
    auto r = client_->Post("/login", std::string("token=static-ok&next=") + next, "application/x-www-form-urlencoded");
    ASSERT_TRUE(r) << next;
    EXPECT_EQ(r->status, 303) << next;
    EXPECT_EQ(r->get_header_value("Location"), "/") << next;
  }
  auto ok = client_->Post("/login", "token=static-ok&next=%2Fthread%3Fref%3Dtinylm-102", "application/x-www-form-urlencoded");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->get_header_value("Location"), "/thread?ref=tinylm-102");
  // The sign-in form never carries a hostile next either.
  auto form = client_->Get("/login?next=%2F%09%2Fevil.example");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->body.find("evil.example"), std::string::npos);
  // Login CSRF: a form on another site cannot sign a browser in.
  httplib::Headers cross = {{"Origin", "https://evil.example"}};
  auto csrf = client_->Post("/login", cross, "token=static-ok&next=%2F", "application/x-www-form-urlencoded");
  ASSERT_TRUE(csrf);
  EXPECT_EQ(csrf->status, 403);
  EXPECT_TRUE(csrf->get_header_value("Set-Cookie").empty());
  httplib::Headers fetch_site = {{"Sec-Fetch-Site", "cross-site"}};
  EXPECT_EQ(client_->Post("/login", fetch_site, "token=static-ok", "application/x-www-form-urlencoded")->status, 403);
  httplib::Headers same = {{"Origin", "http://127.0.0.1:" + std::to_string(server_->port())}};
  EXPECT_EQ(client_->Post("/login", same, "token=static-ok&next=%2F", "application/x-www-form-urlencoded")->status, 303);
}

// Item 6: without auth, only requests addressed to this machine by name,
// and no cross-origin state changes.
TEST_F(ServerTest, UnauthenticatedServerRefusesRebindingAndCrossOriginPosts) {
  ServeOptions o;
  o.public_url = "https://umwelt.example.org";
  StartServer(o);
  std::string port = std::to_string(server_->port());
  for (const std::string& host : std::vector<std::string>{"rebind.attacker.example:" + port, "rebind.attacker.example", "10.0.0.5:" + port,
                                  "127.0.0.1.attacker.example:" + port}) {
    auto r = client_->Get("/corpus-index.db", {{"Host", host}});
    ASSERT_TRUE(r) << host;
    EXPECT_EQ(r->status, 421) << host;
    EXPECT_LT(r->body.size(), 1000u) << host;
  }
  for (const std::string& host : std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "[::1]:" + port,
                                  std::string("umwelt.example.org")}) {
    auto r = client_->Get("/api/status", {{"Host", host}});
    ASSERT_TRUE(r) << host;
    EXPECT_EQ(r->status, 200) << host;
  }
  // A cross-site text/plain POST (no preflight) starts no job.
  auto cross = client_->Post("/api/ask", {{"Origin", "https://evil.example"}}, "{\"question\":\"MFU?\"}", "text/plain");
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->status, 403);
  auto null_origin = client_->Post("/api/ask", {{"Origin", "null"}}, "{\"question\":\"MFU?\"}", "text/plain");
  ASSERT_TRUE(null_origin);
  EXPECT_EQ(null_origin->status, 403);
  auto same = client_->Post("/api/ask", {{"Origin", "http://127.0.0.1:" + port}}, "{\"question\":\"MFU?\"}",
                            "application/json");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 202);
  auto proxied = client_->Post("/api/ask", {{"Origin", "https://umwelt.example.org"}, {"Host", "umwelt.example.org"}},
                               "{\"question\":\"MFU?\"}", "application/json");
  ASSERT_TRUE(proxied);
  EXPECT_EQ(proxied->status, 202);
  ServeOptions bad;
  bad.corpus_path = path_;
  bad.public_url = "javascript:alert(1)";
  EXPECT_FALSE(Server::Start(bad).ok());
}

// Item 8: one range at most, 416 past the end.
TEST_F(ServerTest, RangeListsCannotAmplifyAndPastTheEndIs416) {
  StartServer();
  auto whole = client_->Get("/corpus-index.db");
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->status, 200);
  size_t size = whole->body.size();
  std::string many = "bytes=0-";
  for (int i = 0; i < 700; ++i) many += ",0-";
  auto amplified = client_->Get("/corpus-index.db", {{"Range", many}});
  ASSERT_TRUE(amplified);
  EXPECT_LE(amplified->body.size(), size);
  auto one = client_->Get("/corpus-index.db", {{"Range", "bytes=100-199"}});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 206);
  EXPECT_EQ(one->body, whole->body.substr(100, 100));
  auto past = client_->Get("/corpus-index.db", {{"Range", "bytes=99999999999-"}});
  ASSERT_TRUE(past);
  EXPECT_EQ(past->status, 416);
  EXPECT_EQ(past->get_header_value("Content-Range"), "bytes */" + std::to_string(size));
  // Other routes ignore Range.
  auto status = client_->Get("/api/status", {{"Range", "bytes=0-0,0-0,0-0"}});
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
  EXPECT_TRUE(json::parse(status->body, nullptr, false).is_object());
}

// Item 9: what the corpus stores and serves carries no token and no path.
TEST_F(ServerTest, SnapshotsAndStatusCarryNoTokensOrLocalPaths) {
  const std::string token = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";
  {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE(b.ok());
    SyncState st;
    st.source = "git:local/tinylm";
    st.cursor = "{\"head\":\"abc\",\"path\":\"/home/operator/private/tinylm\"}";
    st.last_error = "HTTP 401 echo: Authorization: Bearer " + token + " at /home/operator/private/corpus.db";
    st.error_since = "2026-11-01T00:00:00Z";
    ASSERT_TRUE((*b)->PutSyncState(st).ok());
    ASSERT_TRUE((*b)->Commit().ok());
    auto stored = (*c)->GetSyncState("git:local/tinylm");
    ASSERT_TRUE(stored.ok() && *stored);
    EXPECT_EQ((*stored)->last_error.find(token), std::string::npos) << (*stored)->last_error;
  }
  StartServer();
  for (const char* path : {"/api/status", "/manifest.json"}) {
    auto r = client_->Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->body.find(token), std::string::npos) << path;
    EXPECT_EQ(r->body.find("/home/operator"), std::string::npos) << path << r->body;
  }
  auto db = client_->Get("/corpus-index.db");
  ASSERT_TRUE(db);
  EXPECT_EQ(db->body.find(token), std::string::npos);
  EXPECT_EQ(db->body.find("/home/operator"), std::string::npos);
  testing::WriteFile(dir_.File("copy.db"), db->body);
  auto copy = Corpus::Open(dir_.File("copy.db"), Corpus::Mode::kReadOnly);
  ASSERT_TRUE(copy.ok());
  auto st = (*copy)->GetSyncState("git:local/tinylm");
  ASSERT_TRUE(st.ok() && *st);
  EXPECT_NE((*st)->cursor.find("\"path\":\"tinylm\""), std::string::npos) << (*st)->cursor;
  EXPECT_NE((*st)->last_error.find("HTTP 401"), std::string::npos);
}

// Item 2: no request can make the server buffer without bound.
TEST_F(ServerTest, HeaderFloodsAndHugeOrChunkedBodiesAreRefusedWithoutBuffering) {
  StartServer();
  int port = server_->port();
  int64_t before = RssKb();
  // Hundreds of megabytes of 8 KB header lines.
  int fd = Connect(port);
  ASSERT_GE(fd, 0);
  std::string line = "X-Flood: " + std::string(8000, 'a') + "\r\n";
  bool sent = SendAll(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  size_t total = 0;
  for (int i = 0; sent && i < 40000; ++i, total += line.size()) sent = SendAll(fd, line);
  std::string answer = ReadAll(fd, 2);
  ::close(fd);
  EXPECT_FALSE(sent) << "the server read " << total << " bytes of headers";
  EXPECT_TRUE(answer.empty() || answer.find(" 431 ") != std::string::npos) << answer.substr(0, 200);
  // A declared body over the limit: refused before any of it is sent.
  fd = Connect(port);
  SendAll(fd, "POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              "Content-Length: 1500000000\r\n\r\n");
  answer = ReadAll(fd, 2);
  ::close(fd);
  EXPECT_NE(answer.find(" 413 "), std::string::npos) << answer.substr(0, 200);
  // Chunked bodies to the API and to the open sign-in form: answered 413
  // once over the limit, the rest never read.
  for (const char* path : {"/api/ask", "/login"}) {
    fd = Connect(port);
    sent = SendAll(fd, std::string("POST ") + path +
                           " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n");
    std::string chunk = "10000\r\n" + std::string(0x10000, 'b') + "\r\n";
    size_t body = 0;
    for (int i = 0; sent && i < 3000; ++i, body += 0x10000) sent = SendAll(fd, chunk);  // up to 196 MB
    answer = ReadAll(fd, 2);
    ::close(fd);
    EXPECT_FALSE(sent) << path << ": the server read " << body << " bytes of body";
    EXPECT_TRUE(answer.empty() || answer.find(" 413 ") != std::string::npos) << path << answer.substr(0, 200);
  }
  EXPECT_LT(RssKb() - before, 64 * 1024) << "RSS grew by " << (RssKb() - before) << " kB";
  EXPECT_EQ(Probe(port, "127.0.0.1"), "HTTP/1.1 200 OK");
}

// Item 3: slow clients, many clients, and token floods do not starve
// everyone else.
TEST_F(ServerTest, SlowClientsAreCutOffAndOthersStillServed) {
  ServeOptions o;
  o.read_timeout_seconds = 3;
  o.threads = 400;
  o.max_connections_per_client = 200;
  StartServer(o);
  int port = server_->port();
  std::vector<int> slow;
  for (int i = 0; i < 120; ++i) {
    int fd = Connect(port);
    ASSERT_GE(fd, 0);
    SendAll(fd, "GET /api/status HTTP/1.1\r\n");
    slow.push_back(fd);
  }
  // One header line a second each, under any per-read timeout.
  auto t0 = std::chrono::steady_clock::now();
  int answered = 0;
  for (int round = 0; round < 5; ++round) {
    for (int fd : slow) SendAll(fd, "X-Slow: 1\r\n");
    auto p0 = std::chrono::steady_clock::now();
    std::string probe = Probe(port, "127.0.0.1");
    answered += probe == "HTTP/1.1 200 OK";
    EXPECT_EQ(probe, "HTTP/1.1 200 OK") << round;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count(), 1.0) << round;
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
  }
  EXPECT_EQ(answered, 5);
  EXPECT_GT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.5);
  // Past the whole-request limit every slow connection was closed.
  int closed = 0;
  for (int fd : slow) {
    char c;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 1000) > 0 && ::recv(fd, &c, 1, MSG_DONTWAIT) <= 0) ++closed;
    ::close(fd);
  }
  EXPECT_EQ(closed, 120);
}

TEST_F(ServerTest, ConnectionsPerClientAreBoundedAndTheBacklogIsTheSystems) {
  ServeOptions o;
  o.max_connections_per_client = 10;
  StartServer(o);
  int port = server_->port();
  std::vector<int> held;
  for (int i = 0; i < 30; ++i) held.push_back(Connect(port));
  auto refused = [&] {  // connections the server closed at once
    int n = 0;
    for (int fd : held) {
      char c;
      pollfd p{fd, POLLIN, 0};
      n += fd < 0 || (::poll(&p, 1, 0) > 0 && ::recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK) <= 0);
    }
    return n;
  };
  EXPECT_TRUE(testing::WaitUntil([&] { return refused() >= 20; }, 10)) << refused();
  // Another client is served while this one holds its ten.
  EXPECT_EQ(Probe(port, "127.0.0.2"), "HTTP/1.1 200 OK");
  for (int fd : held) {
    if (fd >= 0) ::close(fd);
  }
  // The listen backlog is the system's maximum, not 5.
  FILE* ss = ::popen(("ss -ltnH 'sport = :" + std::to_string(port) + "'").c_str(), "r");
  ASSERT_NE(ss, nullptr);
  char buf[512] = {};
  size_t n = std::fread(buf, 1, sizeof buf - 1, ss);
  ::pclose(ss);
  std::string row(buf, n);
  int backlog = 0;
  std::sscanf(row.c_str(), "%*s %*d %d", &backlog);
  EXPECT_GE(backlog, 128) << row;
}

TEST_F(AuthTest, TokenFloodsAreBoundedAndTheirFailuresCached) {
  unknown_delay_ms_ = 1000;  // every unknown token takes GitHub a second to fail
  ServeOptions o;
  o.auth_file = auth_file_;
  o.threads = 200;
  StartServer(o);
  // A verdict GitHub could not give is kept briefly: asking again costs nothing.
  auto first = Get("/api/status", "Bearer cached-failure");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 503);
  EXPECT_FALSE(first->get_header_value("Retry-After").empty());
  EXPECT_EQ(unknown_calls_.load(), 1);
  EXPECT_EQ(Get("/api/status", "Bearer cached-failure")->status, 503);
  EXPECT_EQ(unknown_calls_.load(), 1);
  // Sixty random tokens at once from one address.
  std::vector<std::thread> flood;
  std::atomic<int> limited{0};
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 60; ++i) {
    flood.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", server_->port());
      c.set_read_timeout(30, 0);
      auto r = c.Get("/api/status", {{"Authorization", "Bearer random-" + std::to_string(i)}});
      if (r && (r->status == 429 || r->status == 503) && !r->get_header_value("Retry-After").empty()) ++limited;
      else ADD_FAILURE() << (r ? std::to_string(r->status) + " " + r->body : "no response");
    });
  }
  ASSERT_TRUE(testing::WaitUntil([&] { return unknown_calls_.load() > 1; }));  // the flood reached GitHub
  // Everyone else is still served at once: a known token, and health.
  auto p0 = std::chrono::steady_clock::now();
  httplib::Client other("127.0.0.1", server_->port());
  auto ok = other.Get("/api/status", {{"Authorization", "Bearer static-ok"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(Probe(server_->port(), "127.0.0.3"), "HTTP/1.1 200 OK");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count(), 1.0);
  for (auto& t : flood) t.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
  EXPECT_EQ(limited.load(), 60);  // each refused, with a time to come back
  EXPECT_LE(unknown_calls_.load(), server_internal::Auth::kChecksPerMinute);
}

// Item 4: refresh never replaces a corpus with what is not one.
class RefreshAttack : public ServerTest {
 protected:
  void Serve(const std::string& body, int64_t announced, int stall_after = -1) {
    body_ = body;
    server_fake_.server().Get("/manifest.json", [this, announced](const httplib::Request&, httplib::Response& res) {
      res.set_content(json{{"corpus_index", {{"sha256", Sha256Hex(body_)}, {"bytes", announced}, {"url", "/corpus-index.db"}}}}.dump(),
                      "application/json");
    });
    server_fake_.server().Get("/corpus-index.db", [this, stall_after](const httplib::Request&, httplib::Response& res) {
      res.set_content_provider(body_.size(), "application/octet-stream",
                               [this, stall_after](size_t offset, size_t length, httplib::DataSink& sink) {
                                 size_t n = std::min<size_t>(length, 64 << 10);
                                 if (stall_after >= 0 && offset >= static_cast<size_t>(stall_after)) {
                                   std::this_thread::sleep_for(std::chrono::seconds(4));
                                   return false;
                                 }
                                 if (stall_after >= 0) n = std::min(n, static_cast<size_t>(stall_after) - offset);
                                 return sink.write(body_.data() + offset, n);
                               });
    });
  }
  std::string Local() { return *ReadWholeFile(path_); }
  testing::TestServer server_fake_;
  std::string body_;
};

TEST_F(RefreshAttack, AFileThatIsNotACorpusNeverReplacesOne) {
  std::string before = Local();
  Serve(std::string(100000, 'x'), 100000);
  auto r = RefreshFrom(server_fake_.base(), path_, "", true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a usable corpus"), std::string::npos) << r.status().message();
  EXPECT_EQ(Local(), before);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".part"));
  EXPECT_TRUE(Corpus::Open(path_, Corpus::Mode::kReadOnly).ok());
}

TEST_F(RefreshAttack, NoMoreThanTheManifestsBytesAreWritten) {
  std::string before = Local();
  Serve(std::string(3 << 20, 'y'), 10);
  auto r = RefreshFrom(server_fake_.base(), path_, "", true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than the 10 bytes"), std::string::npos) << r.status().message();
  EXPECT_EQ(Local(), before);
  std::error_code ec;
  EXPECT_TRUE(!std::filesystem::exists(path_ + ".part") || std::filesystem::file_size(path_ + ".part", ec) <= 10u);
}

TEST_F(RefreshAttack, AStalledDownloadFailsAndKeepsThePartForResume) {
  std::string before = Local();
  Serve(std::string(1 << 20, 'z'), 1 << 20, 300000);
  auto t0 = std::chrono::steady_clock::now();
  RefreshLimits limits;
  limits.stall_seconds = 2;
  auto r = RefreshFrom(server_fake_.base(), path_, "", true, limits);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.ok());
  EXPECT_LT(took, 20.0);
  EXPECT_NE(r.status().message().find("run refresh again to resume"), std::string::npos) << r.status().message();
  EXPECT_EQ(Local(), before);
  std::error_code ec;
  EXPECT_GT(std::filesystem::file_size(path_ + ".part", ec), 0u);
}

TEST_F(ServerTest, RefreshKeepsTheOldCorpusUntilTheNewOneOpens) {
  // A real snapshot replaces the corpus; no .bak is left once it opens.
  StartServer();
  testing::TempDir other;
  std::string mine = other.File("mine.db");
  {
    auto c = Corpus::Open(mine, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
  }
  auto r = RefreshFrom("http://127.0.0.1:" + std::to_string(server_->port()), mine, "", true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->updated);
  EXPECT_FALSE(std::filesystem::exists(mine + ".bak"));
  auto c = Corpus::Open(mine, Corpus::Mode::kReadOnly);
  ASSERT_TRUE(c.ok());
  EXPECT_GT((*c)->Stats()->total_chunks, 20);
}

// Issue 32, item 4: refresh sets its own limits; nothing the server says
// about sizes is trusted.
TEST_F(RefreshAttack, AnEndlessOrCompressedManifestIsCutAtOneMebibyte) {
  std::string before = Local();
  server_fake_.server().Get("/manifest.json", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      std::string piece(64 << 10, ' ');
      return sink.write(piece.data(), piece.size());
    });
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = RefreshFrom(server_fake_.base(), path_, "", true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("larger than 1048576"), std::string::npos) << r.status().message();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  EXPECT_EQ(Local(), before);
}

TEST_F(RefreshAttack, AGzipBombManifestIsCutAtOneMebibyteDecoded) {
  testing::TestServer gz;
  gz.server().Get("/manifest.json", [](const httplib::Request& req, httplib::Response& res) {
    ASSERT_NE(req.get_header_value("Accept-Encoding").find("gzip"), std::string::npos);
    res.set_content("{\"corpus_index\": " + std::string(64 << 20, ' ') + "}", "application/json");  // sent gzipped
  });
  auto r = RefreshFrom(gz.base(), path_, "", true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("larger than 1048576"), std::string::npos) << r.status().message();
}

TEST_F(RefreshAttack, AnErrorBodyIsReadToSixtyFourKibibytes) {
  server_fake_.server().Get("/manifest.json", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"corpus_index", {{"sha256", std::string(64, 'a')}, {"bytes", 1000}}}}.dump(), "application/json");
  });
  server_fake_.server().Get("/corpus-index.db", [](const httplib::Request&, httplib::Response& res) {
    res.status = 500;
    res.set_chunked_content_provider("text/plain", [](size_t, httplib::DataSink& sink) {
      std::string piece(64 << 10, 'e');
      return sink.write(piece.data(), piece.size());
    });
  });
  auto r = RefreshFrom(server_fake_.base(), path_, "", true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("larger than 65536"), std::string::npos) << r.status().message();
}

TEST_F(RefreshAttack, AHugeAnnouncedSizeIsRefusedBeforeAnyByteIsWritten) {
  std::string before = Local();
  Serve(std::string(1000, 'x'), int64_t{60} << 30);
  auto r = RefreshFrom(server_fake_.base(), path_, "", true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("over this client's limit"), std::string::npos) << r.status().message();
  EXPECT_FALSE(std::filesystem::exists(path_ + ".part"));
  RefreshLimits small;
  small.max_bytes = 500;
  testing::TestServer other;
  other.server().Get("/manifest.json", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"corpus_index", {{"sha256", std::string(64, 'a')}, {"bytes", 1000}}}}.dump(), "application/json");
  });
  auto r2 = RefreshFrom(other.base(), path_, "", true, small);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("limit of 500"), std::string::npos) << r2.status().message();
  EXPECT_EQ(Local(), before);
}

TEST_F(RefreshAttack, ATrickleBelowTheMinimumRateFails) {
  std::string body(1 << 20, 't');
  server_fake_.server().Get("/manifest.json", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"corpus_index", {{"sha256", Sha256Hex(body)}, {"bytes", body.size()}}}}.dump(), "application/json");
  });
  server_fake_.server().Get("/corpus-index.db", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content_provider(body.size(), "application/octet-stream", [&](size_t offset, size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // ten bytes a second
      return sink.write(body.data() + offset, 1);
    });
  });
  RefreshLimits limits;
  limits.stall_seconds = 2;
  auto t0 = std::chrono::steady_clock::now();
  auto r = RefreshFrom(server_fake_.base(), path_, "", true, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
  EXPECT_NE(r.status().message().find("run refresh again to resume"), std::string::npos) << r.status().message();
}

// A file that is SQLite and passes quick_check but carries a view or a
// trigger of its own never replaces the corpus.
TEST_F(RefreshAttack, ACorpusWithAViewOrATriggerOfItsOwnIsRefused) {
  std::string before = Local();
  for (const char* sql : {"DROP TABLE links; CREATE VIEW links AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
                          "SELECT x AS from_ref, x AS to_ref, x AS kind FROM r;",
                          "CREATE TRIGGER evil AFTER INSERT ON chunks BEGIN DELETE FROM threads; END;",
                          "CREATE TABLE extra(x);"}) {
    testing::TempDir tmp;
    std::string copy = tmp.File("evil.db");
    std::filesystem::copy_file(path_, copy);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(copy.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
    std::string evil = *ReadWholeFile(copy);
    testing::TestServer host;
    host.server().Get("/manifest.json", [&](const httplib::Request&, httplib::Response& res) {
      res.set_content(json{{"corpus_index", {{"sha256", Sha256Hex(evil)}, {"bytes", evil.size()}}}}.dump(), "application/json");
    });
    host.server().Get("/corpus-index.db", [&](const httplib::Request&, httplib::Response& res) {
      res.set_content(evil, "application/octet-stream");
    });
    auto r = RefreshFrom(host.base(), path_, "", true);
    ASSERT_FALSE(r.ok()) << sql;
    EXPECT_NE(r.status().message().find("not an umwelt corpus of this version"), std::string::npos) << r.status().message();
    EXPECT_EQ(Local(), before);
    EXPECT_FALSE(std::filesystem::exists(path_ + ".part"));
  }
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// No inline script runs on the server's pages but the published pages' own,
// pinned by its hash; malformed requests are answered nosniff and closed.
TEST_F(ServerTest, PagesRunNoInlineScriptAndBadRequestsAreClosed) {
  StartServer();
  auto page = client_->Get("/?q=MFU");
  ASSERT_TRUE(page);
  std::string csp = page->get_header_value("Content-Security-Policy");
  EXPECT_EQ(csp.find("'unsafe-inline'; img"), std::string::npos) << csp;
  size_t script = csp.find("script-src");
  ASSERT_NE(script, std::string::npos);
  EXPECT_EQ(csp.substr(script, csp.find(';', script) - script).find("unsafe-inline"), std::string::npos) << csp;
  EXPECT_EQ(page->body.find("<script>"), std::string::npos);
  EXPECT_NE(page->body.find("<script src=\"/ui.js\"></script>"), std::string::npos);
  auto js = client_->Get("/ui.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_NE(client_->Get("/ask")->body.find("<script src=\"/ask.js\"></script>"), std::string::npos);
  // The one inline script a published page carries is the one the hash names.
  std::string raw;
  std::string hex = Sha256Hex(PageScript());
  for (size_t i = 0; i + 1 < hex.size(); i += 2) raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  EXPECT_NE(csp.find("'sha256-" + Base64(raw) + "'"), std::string::npos) << csp;
  auto bad = client_->Get("/api/search?q=%ff%fe");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(bad->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(bad->get_header_value("Connection"), "close");
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Item 3: under overload a search that cannot start within the wait is
// refused at once (the route answers 503 with Retry-After), not queued for
// seconds; searches run on the pool's threads only.
TEST(SearchPool, RefusesWhatCannotStartInTime) {
  server_internal::SearchPool pool(1, std::chrono::milliseconds(100));
  testing::Notification taken, release;
  std::thread busy([&] {
    std::function<void()> hold = [&] {
      taken.Notify();
      release.Wait();
    };
    EXPECT_TRUE(pool.RunAll({hold}).ok());
  });
  taken.Wait();  // the one thread is taken
  auto t0 = std::chrono::steady_clock::now();
  int ran = 0;
  std::function<void()> work = [&] { ++ran; };
  Status s = pool.RunAll({work});
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_NE(s.message().find("busy"), std::string::npos) << s.message();
  EXPECT_LT(waited, 1.0);
  EXPECT_EQ(ran, 0);
  release.Notify();
  busy.join();
  EXPECT_TRUE(pool.RunAll({work}).ok());  // free again: it runs
  EXPECT_EQ(ran, 1);
}

// Issue 15: a search-multi's sub-queries run on the pool concurrently (two
// threads take two tasks at once), and when some cannot start in time the
// rest are dropped and the call fails, after the started ones finish.
TEST(SearchPool, RunsSubQueriesConcurrently) {
  server_internal::SearchPool pool(2, std::chrono::milliseconds(2000));
  std::mutex mu;
  std::condition_variable cv;
  int inside = 0, most = 0;
  std::function<void()> task = [&] {  // waits (a while at most) for a second task inside with it
    std::unique_lock<std::mutex> lock(mu);
    most = std::max(most, ++inside);
    cv.notify_all();
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return most >= 2; });
    --inside;
  };
  ASSERT_TRUE(pool.RunAll({task, task, task, task}).ok());
  EXPECT_EQ(most, 2);

  server_internal::SearchPool narrow(1, std::chrono::milliseconds(100));
  std::atomic<int> ran{0};
  std::function<void()> slow = [&] {
    ++ran;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  };
  Status s = narrow.RunAll({slow, slow, slow});
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.message();
  EXPECT_EQ(ran.load(), 1);  // the one that started finished; the others never ran
  EXPECT_TRUE(narrow.RunAll({task}).ok());
}

// Issue 14: a manifest and an auth file in wrong shapes are one error naming
// them; a number past int's range is refused, not wrapped.
TEST(ServedFiles, ManifestsAndAuthFilesWithOddValues) {
  const std::string sha(64, 'a');
  auto m = ParseManifest(R"({"corpus_index": {"sha256": ")" + sha + R"(", "bytes": 12}})", "m.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->bytes, 12);
  for (std::string bad : {std::string("[]"), std::string(R"({"corpus_index": []})"),
                          R"({"corpus_index": {"sha256": ")" + sha + R"(", "bytes": -1}})",
                          R"({"corpus_index": {"sha256": ")" + sha + R"(", "bytes": 1e300}})",
                          R"({"corpus_index": {"sha256": ")" + sha + R"(", "bytes": "12"}})",
                          R"({"corpus_index": {"sha256": ")" + std::string(64, 'G') + R"(", "bytes": 1}})",
                          std::string(R"({"corpus_index": {"sha256": 5, "bytes": 1}})"), std::string(100000, '[')}) {
    auto r = ParseManifest(bad, "https://c.example/manifest.json");
    ASSERT_FALSE(r.ok()) << bad.substr(0, 80);
    EXPECT_NE(r.status().message().find("https://c.example/manifest.json"), std::string::npos);
  }
  using server_internal::Auth;
  auto a = Auth::ParseConfig(R"({"allow": ["ana"], "cache_seconds": 60})", "auth.json");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->cache_seconds, 60);
  for (const char* bad : {R"({"allow": ["ana"], "cache_seconds": 4294967356})", R"({"allow": ["ana"], "cache_seconds": 1.5})",
                          R"({"allow": "ana"})", R"({"allow": [7]})", R"({"tokens": [{"sha256": 5}]})", R"({"org": null})",
                          "[]", ""}) {
    auto r = Auth::ParseConfig(bad, "auth.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("auth.json"), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace umwelt

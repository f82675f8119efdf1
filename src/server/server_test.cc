#include "umwelt/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <set>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "corpus_fixtures.h"
#include "server_fixtures.h"
#include "example_project.h"
#include "fake_embeddings.h"
#include "test_util.h"
#include "umwelt/digest.h"
#include "umwelt/discord.h"
#include "umwelt/file.h"
#include "umwelt/github.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"
#include "umwelt/wandb.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
using testing::AuthTest;
using testing::ServerTest;

TEST_F(ServerTest, JsonAnswersCarryNoMarkupCharacters) {
  StartServer();
  auto r = client_->Get("/api/search?q=%3Cscript%3E%26MFU%3C%2Fscript%3E&fts_only=1");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->body.find_first_of("<>&"), std::string::npos) << r->body.substr(0, 300);
  EXPECT_EQ(Json(r)["query"], "<script>&MFU</script>");  // escaped as \u003c …, read back as they were
}

TEST_F(ServerTest, ApiSearchShowThreadsStatus) {
  StartServer();
  auto r = client_->Get("/api/search?q=MFU%20H100&k=5");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json j = Json(r);
  EXPECT_EQ(j["mode"], "keyword");
  ASSERT_FALSE(j["hits"].empty());
  EXPECT_LE(j["hits"].size(), 5u);
  EXPECT_EQ(j["hits"][0]["url"].get<std::string>().rfind("https://", 0), 0u);
  // The same parameters as `search`: a source filter.
  json d = Json(client_->Get("/api/search?q=MFU&source=discord&fts_only=1"));
  ASSERT_FALSE(d["hits"].empty());
  for (const auto& h : d["hits"]) EXPECT_EQ(h["source"], "discord");
  // Grouped by thread: at most k threads, each thread once, each hit of a
  // group from that thread, the groups' hits also as the flat list.
  json grouped = Json(client_->Get("/api/search?q=checkpoint%20restore&k=3&group=thread&fts_only=1"));
  EXPECT_EQ(grouped["group"], "thread");
  ASSERT_FALSE(grouped["threads"].empty());
  EXPECT_LE(grouped["threads"].size(), 3u);
  std::set<std::string> seen_threads;
  size_t grouped_hits = 0;
  for (const auto& g : grouped["threads"]) {
    EXPECT_TRUE(seen_threads.insert(g["thread"].get<std::string>()).second) << g["thread"];
    ASSERT_FALSE(g["hits"].empty());
    for (const auto& h : g["hits"]) {
      std::string parent = h["parent"].get<std::string>().empty() ? h["ref"].get<std::string>() : h["parent"].get<std::string>();
      EXPECT_EQ(parent, g["thread"]);
      ++grouped_hits;
    }
  }
  EXPECT_EQ(grouped["hits"].size(), grouped_hits);
  EXPECT_FALSE(Json(client_->Get("/api/search?q=checkpoint&group=none")).contains("threads"));
  // The UI groups the same way.
  auto page = client_->Get("/?q=checkpoint%20restore&group=thread");
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("threads · "), std::string::npos);
  EXPECT_NE(page->body.find("name=\"group\" value=\"thread\" checked"), std::string::npos);
  json multi = Json(client_->Get("/api/search-multi?q=MFU&q=checkpoint%20restore&total=7"));
  EXPECT_EQ(multi["queries"].size(), 2u);
  EXPECT_LE(multi["hits"].size(), 7u);
  json show = Json(client_->Get("/api/show?target=https%3A%2F%2Fgithub.com%2Facme%2Ftinylm%2Fissues%2F102%23issuecomment-5104&tail=1"));
  EXPECT_EQ(show["ref"], "acme/tinylm#102");
  EXPECT_EQ(show["chunks"].size(), 1u);
  json thread = Json(client_->Get("/api/threads/acme%2Ftinylm%23102"));
  EXPECT_EQ(thread["state"], "closed");
  EXPECT_FALSE(thread["title"].get<std::string>().empty());
  EXPECT_FALSE(thread["linked_from"].empty());
  auto missing = client_->Get("/api/threads/acme%2Ftinylm%23999");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(Json(missing)["detail"].get<std::string>().find("acme/tinylm#999"), std::string::npos);
  json status = Json(client_->Get("/api/status"));
  EXPECT_GT(status["chunks"].get<int>(), 20);
  EXPECT_EQ(status["auth"], false);
  // Bad parameters: one clear error each, as JSON.
  for (const char* bad : {"/api/search", "/api/search?q=", "/api/search?q=x&k=abc", "/api/search?q=x&k=0",
                          "/api/search?q=x&since=yesterday", "/api/search?q=x&fts_only=1&vec_only=1",
                          "/api/search?q=x&group=author", "/api/search-multi?total=3", "/api/show"}) {
    auto b = client_->Get(bad);
    ASSERT_TRUE(b) << bad;
    EXPECT_EQ(b->status, 400) << bad << " " << b->body;
    EXPECT_TRUE(Json(b).contains("detail")) << bad;
  }
  auto none = client_->Get("/api/nothing-here");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
  EXPECT_TRUE(Json(none).contains("detail"));
}

TEST_F(ServerTest, HostileInputIsRefusedOrEscaped) {
  ServeOptions o;
  o.read_timeout_seconds = 1;
  o.max_body_bytes = 64 * 1024;
  std::string site = dir_.File("site");
  std::filesystem::create_directories(site);
  testing::WriteFile(site + "/index.html", "<p>summaries</p>");
  testing::WriteFile(dir_.File("secret.txt"), "do not serve");
  std::filesystem::create_symlink(dir_.File("secret.txt"), site + "/link.html");
  o.summaries_dir = site;
  StartServer(o);
  // Reflected input never comes back live: JSON escapes <, the UI escapes HTML.
  auto j = client_->Get("/api/threads/%3Cscript%3Ealert(1)%3C%2Fscript%3E");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->body.find("<script>"), std::string::npos) << j->body;
  EXPECT_EQ(j->get_header_value("X-Content-Type-Options"), "nosniff");
  auto page = client_->Get("/?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E%22%3E");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->body.find("<script>alert"), std::string::npos);
  EXPECT_NE(page->body.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;"), std::string::npos);
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("frame-ancestors 'none'"), std::string::npos);
  auto thread = client_->Get("/thread?ref=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E");
  ASSERT_TRUE(thread);
  EXPECT_EQ(thread->status, 404);
  EXPECT_EQ(thread->body.find("<img src=x"), std::string::npos);
  // Invalid UTF-8 and malformed query strings.
  auto utf = client_->Get("/api/search?q=%ff%fe%fd");
  ASSERT_TRUE(utf);
  EXPECT_EQ(utf->status, 400);
  EXPECT_NE(Json(utf)["detail"].get<std::string>().find("UTF-8"), std::string::npos);
  for (const char* odd : {"/api/search?q=%zz&&=&k", "/api/search?&&&", "/api/search?q=a%", "/api/search?q=%00x"}) {
    auto r = client_->Get(odd);
    ASSERT_TRUE(r) << odd;
    EXPECT_TRUE(r->status == 200 || r->status == 400) << odd << " " << r->status;
    EXPECT_TRUE(Json(r).is_object()) << odd;
  }
  // Path traversal, hidden files and links out of the folder.
  for (const char* path : {"/summaries/..%2F..%2Fetc%2Fpasswd", "/summaries/%2e%2e", "/summaries/.hidden",
                           "/summaries/link.html", "/reports/index.html", "/summaries/..%2Fsecret.txt"}) {
    auto r = client_->Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_EQ(r->body.find("do not serve"), std::string::npos) << path;
  }
  auto ok = client_->Get("/summaries/");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  // A body over the limit.
  auto big = client_->Post("/api/ask", std::string(200 * 1024, 'x'), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_TRUE(Json(big).contains("detail"));
  // A client that sends half a request and stalls is cut off.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  std::string half = "GET /api/status HTTP/1.1\r\nHost: x\r\n";
  ASSERT_EQ(::send(fd, half.data(), half.size(), 0), static_cast<ssize_t>(half.size()));
  auto t0 = std::chrono::steady_clock::now();
  char buf[512];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);  // the server closes (or answers 4xx) after its read timeout
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(fd);
  EXPECT_LE(n, static_cast<ssize_t>(sizeof buf));
  EXPECT_LT(waited, 5.0);
  // The server still answers.
  auto after = client_->Get("/healthz");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

TEST_F(AuthTest, BearerTokensGithubOrgAllowlistExpiryRevocation) {
  ServeOptions o;
  o.auth_file = auth_file_;
  std::string site = dir_.File("site");
  std::filesystem::create_directories(site);
  testing::WriteFile(site + "/index.html", "<p>open summaries</p>");
  o.summaries_dir = site;
  StartServer(o);
  struct Case {
    const char* header;
    int status;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{{"", 401, "no credentials"},
                                         {"Basic YWxpY2U6eA==", 401, "not a bearer token"},
                                         {"Bearer", 401, "not a bearer token"},
                                         {"Bearer a b", 401, "malformed"},
                                         {"Bearer tok-nobody", 401, "GitHub does not accept"},
                                         {"Bearer static-old", 401, "expired"},
                                         {"Bearer tok-carol", 403, "carol is not a member of acme"},
                                         {"Bearer static-ok", 200, ""},
                                         {"Bearer tok-alice", 200, ""},
                                         {"bearer tok-bob", 200, ""}}) {
    auto r = Get("/api/search?q=MFU", c.header);
    ASSERT_TRUE(r) << c.header;
    EXPECT_EQ(r->status, c.status) << c.header << " " << r->body;
    if (c.status != 200) {
      std::string detail = Json(r)["detail"];
      EXPECT_NE(detail.find(c.says), std::string::npos) << detail;
      EXPECT_NE(detail.find("ask in #infra"), std::string::npos) << detail;
      if (c.status == 401) {
        EXPECT_EQ(r->get_header_value("WWW-Authenticate"), "Bearer realm=\"umwelt\"");
      }
    }
  }
  // The snapshot is behind auth too; summaries and health are open.
  EXPECT_EQ(Get("/manifest.json", "")->status, 401);
  EXPECT_EQ(Get("/corpus-index.db", "Bearer tok-carol")->status, 403);
  EXPECT_EQ(Get("/summaries/", "")->status, 200);
  EXPECT_EQ(Get("/api/summaries", "")->status, 200);
  EXPECT_EQ(Get("/healthz", "")->status, 200);
  // A browser without a token is sent to sign in; signing in sets a session.
  auto page = Get("/?q=MFU", "");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 303);
  EXPECT_EQ(page->get_header_value("Location"), "/login?next=/");
  auto bad_login = client_->Post("/login", "token=tok-carol&next=%2F", "application/x-www-form-urlencoded");
  ASSERT_TRUE(bad_login);
  EXPECT_EQ(bad_login->status, 403);
  EXPECT_NE(bad_login->body.find("not a member"), std::string::npos);
  auto login = client_->Post("/login", "token=tok-alice&next=%2F%2Fevil.example", "application/x-www-form-urlencoded");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 303);
  EXPECT_EQ(login->get_header_value("Location"), "/");  // no open redirect
  std::string cookie = login->get_header_value("Set-Cookie");
  ASSERT_NE(cookie.find("HttpOnly"), std::string::npos);
  std::string session = cookie.substr(0, cookie.find(';'));
  httplib::Headers with_cookie = {{"Cookie", session}};
  auto signed_in = client_->Get("/?q=MFU", with_cookie);
  ASSERT_TRUE(signed_in);
  EXPECT_EQ(signed_in->status, 200);
  EXPECT_NE(signed_in->body.find("alice"), std::string::npos);
  EXPECT_EQ(client_->Get("/api/status", {{"Cookie", "umwelt_session=0123456789abcdef0123456789abcdef"}})->status, 401);
  // Verdicts are cached: alice's token reached GitHub once.
  size_t user_calls = 0;
  for (const auto& p : github_.requests()) user_calls += p == "/user";
  EXPECT_EQ(Get("/api/status", "Bearer tok-alice")->status, 200);
  size_t after = 0;
  for (const auto& p : github_.requests()) after += p == "/user";
  EXPECT_EQ(after, user_calls);
  // Revoking takes effect without a restart.
  WriteAuth({Sha256Hex("tok-alice")});
  auto revoked = Get("/api/status", "Bearer tok-alice");
  ASSERT_TRUE(revoked);
  EXPECT_EQ(revoked->status, 401);
  EXPECT_NE(Json(revoked)["detail"].get<std::string>().find("revoked"), std::string::npos);
  // No token ever reaches the log.
  std::string log = Log();
  EXPECT_NE(log.find("GET /api/search 200"), std::string::npos);
  for (const char* secret : {"tok-alice", "tok-bob", "tok-carol", "static-ok", "YWxpY2U6eA"}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << secret;
  }
}

TEST_F(AuthTest, BadAuthFilesAndOpenNetworkAreRefused) {
  testing::WriteFile(dir_.File("bad.json"), "{\"org\": 3}");
  ServeOptions o;
  o.corpus_path = path_;
  o.port = 0;
  o.auth_file = dir_.File("bad.json");
  auto s = Server::Start(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("\"org\" must be a string"), std::string::npos);
  // A file that names no one is valid: everyone is refused (issue 32).
  testing::WriteFile(dir_.File("nobody.json"), "{}");
  o.auth_file = dir_.File("nobody.json");
  EXPECT_TRUE(Server::Start(o).ok());
  testing::WriteFile(dir_.File("plain.json"), "{\"revoked\": [\"a-token\"], \"allow\": [\"x\"]}");
  o.auth_file = dir_.File("plain.json");
  EXPECT_NE(Server::Start(o).status().message().find("SHA-256"), std::string::npos);
  o.auth_file.clear();
  o.bind = "0.0.0.0";
  auto open = Server::Start(o);
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.status().message().find("--auth"), std::string::npos);
}

// With only issued tokens (no org, no allowlist) an unknown token is refused
// without asking GitHub: no outbound call for a stranger's guess.
TEST_F(AuthTest, TokensOnlyNeverAsksGithub) {
  testing::WriteFile(auth_file_, json{{"github_api", github_.base()},
                                      {"tokens", {{{"sha256", Sha256Hex("issued")}, {"login", "ann"}}}}}.dump());
  ServeOptions o;
  o.auth_file = auth_file_;
  StartServer(o);
  auto in = client_->Get("/api/status", {{"Authorization", "Bearer issued"}});
  EXPECT_EQ(in->status, 200);
  auto out = client_->Get("/api/status", {{"Authorization", "Bearer tok-alice"}});
  EXPECT_EQ(out->status, 401);
  EXPECT_NE(out->body.find("ask the operator for a token"), std::string::npos) << out->body;
  EXPECT_TRUE(github_.requests().empty());
}

TEST_F(ServerTest, WandbRunConfigInTheReferenceShape) {
  {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    wandb::ImportReport rep;
    ASSERT_TRUE(wandb::ImportFiles(**c, {UMWELT_SOURCE_DIR "/examples/wandb/runs.json"}, "", "acme/tinylm", &rep).ok());
  }
  StartServer();
  auto r = client_->Get("/wandb/tinylm/h100-prefetch-2/config");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json j = Json(r);
  EXPECT_EQ(j["name"], "h100-prefetch-2");
  EXPECT_EQ(j["project"], "tinylm");
  EXPECT_EQ(j["entity"], "acme");
  EXPECT_EQ(j["state"], "finished");
  EXPECT_EQ(j["url"], "https://wandb.ai/acme/tinylm/runs/h100-prefetch-2");
  // Config values unwrapped from W&B's {"value": …}; the summary as logged.
  EXPECT_EQ(j["config"]["gpus"], 64);
  EXPECT_EQ(j["config"]["model"]["layers"], 24);
  EXPECT_EQ(j["summary"]["mfu"], 0.381);
  EXPECT_EQ(j["summary"]["_step"], 20000);
  // With the entity, too; a run the corpus does not mirror is a 404 naming it.
  EXPECT_EQ(client_->Get("/wandb/acme%2Ftinylm/h100-prefetch-2/config")->status, 200);
  auto missing = client_->Get("/wandb/tinylm/no-such-run/config");
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(Json(missing)["detail"].get<std::string>().find("tinylm/no-such-run"), std::string::npos);
  // LIKE's wildcards are literal.
  EXPECT_EQ(client_->Get("/wandb/tiny%25/h100-prefetch-2/config")->status, 404);
  EXPECT_EQ(client_->Get("/wandb/tinylm/h100_prefetch-2/config")->status, 404);
}

TEST_F(ServerTest, SnapshotManifestRangeAndRefreshRoundTrip) {
  StartServer();
  json m = Json(client_->Get("/manifest.json"));
  ASSERT_TRUE(m["corpus_index"].is_object());
  std::string sha = m["corpus_index"]["sha256"];
  int64_t bytes = m["corpus_index"]["bytes"];
  EXPECT_GT(m["built_at_epoch"].get<int64_t>(), 0);
  EXPECT_TRUE(m.contains("sources"));
  EXPECT_TRUE(m.contains("embed_spaces"));
  auto whole = client_->Get("/corpus-index.db");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->status, 200);
  EXPECT_EQ(static_cast<int64_t>(whole->body.size()), bytes);
  EXPECT_EQ(whole->get_header_value("Content-Length"), std::to_string(bytes));
  EXPECT_EQ(Sha256Hex(whole->body), sha);
  auto part = client_->Get("/corpus-index.db", {{"Range", "bytes=100-199"}});
  ASSERT_TRUE(part);
  EXPECT_EQ(part->status, 206);
  EXPECT_EQ(part->body, whole->body.substr(100, 100));
  // refresh: a fresh copy, then up to date.
  std::string base = "http://127.0.0.1:" + std::to_string(server_->port());
  std::string copy = dir_.File("copy.db");
  auto r = RefreshFrom(base, copy, "", true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->updated);
  EXPECT_EQ(*Sha256File(copy), sha);
  {
    auto c = Corpus::Open(copy, Corpus::Mode::kReadOnly);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ((*c)->Stats()->total_chunks, Corpus::Open(path_, Corpus::Mode::kReadOnly).value()->Stats()->total_chunks);
  }
  auto again = RefreshFrom(base, copy, "", true);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->updated);
  // Loopback is refused unless asked.
  EXPECT_FALSE(RefreshFrom(base, dir_.File("x.db"), "", false).ok());
  // The corpus changes: a new snapshot; a broken download resumes.
  {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk("acme/tinylm#102/c77", "acme/tinylm#102", "comment",
                                                      "https://github.com/acme/tinylm/issues/102#issuecomment-77",
                                                      "A late note on MFU.", "zoe", "2026-11-29T00:00:00Z")})
                    .ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  json m2 = Json(client_->Get("/manifest.json"));
  std::string sha2 = m2["corpus_index"]["sha256"];
  EXPECT_NE(sha2, sha);
  auto fresh = client_->Get("/corpus-index.db");
  ASSERT_TRUE(fresh);
  testing::WriteFile(copy + ".part", fresh->body.substr(0, fresh->body.size() / 2));
  testing::WriteFile(copy + ".part.sha256", sha2 + "\n");
  auto resumed = RefreshFrom(base, copy, "", true);
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_TRUE(resumed->updated);
  EXPECT_EQ(resumed->resumed_from, static_cast<int64_t>(fresh->body.size() / 2));
  EXPECT_EQ(*Sha256File(copy), sha2);
  EXPECT_FALSE(std::filesystem::exists(copy + ".part"));
  // A damaged partial download is caught by the checksum and removed; the
  // next refresh starts over and succeeds; the corpus was never replaced.
  std::string damaged = fresh->body.substr(0, 1000);
  damaged[500] ^= 0x55;
  std::string third = dir_.File("third.db");
  testing::WriteFile(third + ".part", damaged);
  testing::WriteFile(third + ".part.sha256", sha2 + "\n");
  auto bad = RefreshFrom(base, third, "", true);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sha256"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(third));
  EXPECT_FALSE(std::filesystem::exists(third + ".part"));
  ASSERT_TRUE(RefreshFrom(base, third, "", true).ok());
  EXPECT_EQ(*Sha256File(third), sha2);
}

// Issue 17: /mcp's transport limits, each attacked: a cross-origin POST, a
// request without or with an unknown session, an unsupported protocol
// version, an oversized body, and more sessions than the server keeps.
TEST_F(ServerTest, McpOverHttpRefusesWhatItMust) {
  ServeOptions o;
  o.max_body_bytes = 64 * 1024;
  o.max_jobs = 0;
  StartServer(o);
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
  auto first = client_->Post("/mcp", init, "application/json");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  std::string session = first->get_header_value("Mcp-Session-Id");
  ASSERT_EQ(session.size(), 32u);
  EXPECT_EQ(Json(first)["result"]["protocolVersion"], "2025-06-18");
  const std::string call = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"MFU"}}})";
  auto ok = client_->Post("/mcp", {{"Mcp-Session-Id", session}}, call, "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_FALSE(Json(ok)["result"]["structuredContent"]["hits"].empty());
  auto note = client_->Post("/mcp", {{"Mcp-Session-Id", session}}, R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                            "application/json");
  EXPECT_EQ(note->status, 202);
  EXPECT_EQ(client_->Post("/mcp", {{"Origin", "https://evil.example"}, {"Mcp-Session-Id", session}}, call, "application/json")->status, 403);
  EXPECT_EQ(client_->Post("/mcp", call, "application/json")->status, 400);
  EXPECT_EQ(client_->Post("/mcp", {{"Mcp-Session-Id", std::string(32, 'a')}}, call, "application/json")->status, 404);
  EXPECT_EQ(client_->Post("/mcp", {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "1999-01-01"}}, call,
                          "application/json")->status, 400);
  EXPECT_EQ(client_->Post("/mcp", {{"Mcp-Session-Id", session}}, std::string(200 * 1024, ' '), "application/json")->status, 413);
  EXPECT_EQ(client_->Get("/mcp")->status, 405);
  // MCP's ask shares /api/ask's bound on questions at once (here none).
  auto ask = client_->Post("/mcp", {{"Mcp-Session-Id", session}},
                           R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"question":"What MFU?"}}})",
                           "application/json");
  ASSERT_TRUE(ask);
  EXPECT_TRUE(Json(ask)["result"]["isError"].get<bool>()) << ask->body;
  EXPECT_NE(ask->body.find("too many questions in progress"), std::string::npos) << ask->body;
  // Sessions are bounded: after 1,000 newer ones the first is gone.
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(client_->Post("/mcp", init, "application/json")->status, 200);
  EXPECT_EQ(client_->Post("/mcp", {{"Mcp-Session-Id", session}}, call, "application/json")->status, 404);
  // A session ends on DELETE.
  std::string last = client_->Post("/mcp", init, "application/json")->get_header_value("Mcp-Session-Id");
  EXPECT_EQ(client_->Delete("/mcp", {{"Mcp-Session-Id", last}})->status, 204);
  EXPECT_EQ(client_->Post("/mcp", {{"Mcp-Session-Id", last}}, call, "application/json")->status, 404);
}

TEST_F(ServerTest, AskJobStreamsProgressAndPublishesTheReport) {
  StartServer();
  auto r = client_->Post("/api/ask", json{{"question", "What MFU do we get on H100s?"}}.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  std::string id = Json(r)["id"];
  // The event stream ends with the job.
  auto events = client_->Get("/api/jobs/" + id + "/events");
  ASSERT_TRUE(events);
  EXPECT_EQ(events->get_header_value("Content-Type"), "text/event-stream");
  EXPECT_NE(events->body.find("event: progress"), std::string::npos);
  EXPECT_NE(events->body.find("event: done\ndata: {\"error\":\"\",\"state\":\"done\"}"), std::string::npos) << events->body;
  json job = Json(client_->Get("/api/jobs/" + id));
  EXPECT_EQ(job["state"], "done");
  EXPECT_NE(job["markdown"].get<std::string>().find("38.5%"), std::string::npos);
  auto page = client_->Get(job["report_url"].get<std::string>());
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<article class=\"report\">"), std::string::npos);
  EXPECT_EQ(client_->Get("/api/jobs/0123456789abcdef0123456789abcdef")->status, 404);
  EXPECT_EQ(client_->Post("/api/ask", "{}", "application/json")->status, 400);
  EXPECT_EQ(client_->Post("/api/ask", json{{"question", std::string(5000, 'q')}}.dump(), "application/json")->status, 400);
}

// Issue 15: ask jobs run on max_jobs long-lived workers (threads named
// umwelt-ask, as are the threads a job's own fan-out starts); a question
// never starts a worker of its own, and stopping joins them.
std::set<std::string> AskThreads() {
  std::set<std::string> tids;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name) && name == "umwelt-ask") tids.insert(task.path().filename().string());
  }
  return tids;
}

TEST_F(ServerTest, AskJobsRunOnAFixedPoolOfWorkers) {
  if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc/self/task to read threads from";
  ServeOptions o;
  o.max_jobs = 2;
  StartServer(o);
  std::set<std::string> pool;
  testing::WaitUntil([&] { return (pool = AskThreads()).size() >= 2; }, 5);  // they name themselves as they start
  ASSERT_EQ(pool.size(), 2u) << "no ask workers before the first question";
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(AskAndWait("What MFU do we get on H100s?")["state"], "done");
    EXPECT_EQ(AskThreads(), pool) << "after question " << i;  // the same two threads, no more
  }
  StopServer();
  EXPECT_TRUE(AskThreads().empty());
}

// Issue 19: the snapshot carries the vectors of a model the reference
// client can load, with meta.spaces as it reads it (sources a list); the
// builtin space's vectors stay here, and the manifest says so.
TEST_F(ServerTest, SnapshotCarriesOnlyPortableVectorSpaces) {
  auto index = [this](const std::string& spec) {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto configs = ParseSpaceConfigs({spec});
    ASSERT_TRUE(configs.ok()) << configs.status().message();
    IndexReport report;
    Status s = IndexSpaces(**c, *configs, IndexOptions{}, &report);
    ASSERT_TRUE(s.ok()) << s.message();
  };
  auto snapshot_spaces = [this](const std::string& file) {
    testing::WriteFile(file, client_->Get("/corpus-index.db")->body);
    auto c = Corpus::Open(file, Corpus::Mode::kReadOnly);
    int64_t vectors = 0;
    EXPECT_TRUE((*c)->ForEachVector("prose", [&](int64_t, const float*, int) { ++vectors; }).ok());
    return std::make_pair(json::parse((*c)->GetMeta("spaces").value(), nullptr, false), vectors);
  };
  index("prose=builtin");
  StartServer();
  json m = Json(client_->Get("/manifest.json"));
  EXPECT_TRUE(m["embed_spaces"].empty()) << m.dump();
  ASSERT_TRUE(m["embed_spaces_left_out"].contains("prose")) << m.dump();
  auto [left, left_vectors] = snapshot_spaces(dir_.File("builtin.db"));
  EXPECT_FALSE(left.contains("prose")) << left.dump();
  EXPECT_EQ(left_vectors, 0);
  StopServer();

  testing::FakeEmbeddings fake;
  index("prose=openai:" + fake.base() + "#BAAI/bge-small-en-v1.5");
  StartServer();
  m = Json(client_->Get("/manifest.json"));
  EXPECT_EQ(m["embed_spaces"]["prose"], "BAAI/bge-small-en-v1.5") << m.dump();
  EXPECT_TRUE(m["embed_spaces_left_out"].empty());
  auto [kept, kept_vectors] = snapshot_spaces(dir_.File("portable.db"));
  EXPECT_EQ(kept["prose"]["model"], "BAAI/bge-small-en-v1.5");
  EXPECT_EQ(kept["prose"]["dim"], 3);
  EXPECT_EQ(kept["prose"]["sources"], json::array({"discord", "github"})) << kept.dump();
  EXPECT_EQ(kept_vectors, Corpus::Open(path_, Corpus::Mode::kReadOnly).value()->Stats()->total_chunks);
}

// Issue 15: /api/ask searches the vector spaces /api/search does (it once
// left the server's embedders out, so a space served by an OpenAI-compatible
// model was skipped): the ask's facets embed through the configured server.
TEST_F(ServerTest, AskJobsSearchTheSpacesSearchUses) {
  testing::FakeEmbeddings fake;
  std::string spec = "prose=openai:" + fake.base() + "#BAAI/bge-small-en-v1.5";
  {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto configs = ParseSpaceConfigs({spec});
    ASSERT_TRUE(configs.ok()) << configs.status().message();
    IndexReport report;
    ASSERT_TRUE(IndexSpaces(**c, *configs, IndexOptions{}, &report).ok());
  }
  ServeOptions o;
  o.embedders = {spec};
  StartServer(o);
  int indexed = fake.calls_.load();
  json hits = Json(client_->Get("/api/search?q=MFU"));
  EXPECT_EQ(hits["mode"], "hybrid");
  int after_search = fake.calls_.load();
  EXPECT_GT(after_search, indexed);
  json job = AskAndWait("What MFU do we get on H100s?");
  EXPECT_EQ(job["state"], "done") << job.dump();
  EXPECT_GT(fake.calls_.load(), after_search) << "the ask's facets never reached the space's embedder";
}

TEST_F(ServerTest, ReadersKeepServingWhileTheCorpusIsWritten) {
  StartServer();
  std::atomic<bool> done{false};
  std::atomic<int> ok{0}, failed{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      httplib::Client c("127.0.0.1", server_->port());
      while (!done) {
        auto r = c.Get("/api/search?q=MFU&fts_only=1&k=5");
        if (r && r->status == 200 && json::parse(r->body)["hits"].size() > 0) ++ok;
        else ++failed;
      }
    });
  }
  // One writer adds 40 batches while the server reloads its index between them.
  for (int i = 0; i < 40; ++i) {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    auto b = (*c)->BeginWrite();
    std::string n = std::to_string(1000 + i);
    ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk("acme/tinylm#105/c" + n, "acme/tinylm#105", "comment",
                                                      "https://github.com/acme/tinylm/issues/105#issuecomment-" + n,
                                                      "zanzibar measurement " + n, "zoe", "2026-11-29T00:00:00Z")})
                    .ok());
    ASSERT_TRUE((*b)->Commit().ok());
    if (i % 10 == 9) {
      ASSERT_TRUE(server_->SyncNow().ok());
    }
  }
  ASSERT_TRUE(server_->SyncNow().ok());
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_GT(ok.load(), 20);
  EXPECT_EQ(failed.load(), 0);
  // (The scheduler's digest of last week quotes some of them too: source=github.)
  json found = Json(client_->Get("/api/search?q=zanzibar&k=100&source=github"));
  EXPECT_EQ(found["hits"].size(), 40u);
}

TEST_F(ServerTest, SchedulerWritesTheClosedWeeksDigestAndReportsFailures) {
  ServeOptions o;
  std::string site = dir_.File("site");
  o.summaries_dir = site;
  int calls = 0;
  o.sync = [&calls] { return ++calls == 2 ? Status::Unavailable("github: HTTP 502") : Status::Ok(); };
  StartServer(o);
  ASSERT_TRUE(server_->SyncNow().ok());
  Period week = LastCompleteWeek(NowEpoch());
  EXPECT_TRUE(std::filesystem::exists(site + "/" + SitePagePath(week.id())));
  json list = Json(client_->Get("/api/summaries"));
  ASSERT_FALSE(list.empty());
  EXPECT_EQ(list[0]["period"], week.id());
  EXPECT_EQ(client_->Get("/summaries/" + SitePagePath(week.id()))->status, 200);
  EXPECT_NE(client_->Get("/summaries/")->body.find("href=\"" + SitePagePath(week.id()) + "\""), std::string::npos);
  // The address a page had before the reference layout moves there.
  auto old = client_->Get("/summaries/summary-" + week.id() + ".html");
  EXPECT_EQ(old->status, 301);
  EXPECT_EQ(old->get_header_value("Location"), "/summaries/" + SitePagePath(week.id()));
  json one = Json(client_->Get("/api/summaries/latest"));
  EXPECT_NE(one["text"].get<std::string>().find("week of"), std::string::npos);
  // A failing sync shows in the status and the manifest, with its age.
  EXPECT_FALSE(server_->SyncNow().ok());
  json status = Json(client_->Get("/api/status"));
  EXPECT_EQ(status["scheduler"]["last_error"], "github: HTTP 502");
  EXPECT_TRUE(status["scheduler"].contains("error_age_seconds"));
  json m = Json(client_->Get("/manifest.json"));
  EXPECT_EQ(m["scheduler"]["last_error"], "github: HTTP 502");
  ASSERT_TRUE(server_->SyncNow().ok());
  EXPECT_EQ(Json(client_->Get("/api/status"))["scheduler"]["last_error"], "");
}

TEST_F(ServerTest, StopFinishesTheRequestsInFlight) {
  StartServer();
  // A slow reader of the snapshot is mid-download when the server stops.
  std::atomic<size_t> got{0};
  std::atomic<int> status{0};
  std::thread slow([&] {
    httplib::Client c("127.0.0.1", server_->port());
    auto r = c.Get("/corpus-index.db", [&](const char*, size_t n) {
      got += n;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return true;
    });
    if (r) status = r->status;
  });
  EXPECT_TRUE(testing::WaitUntil([&] { return got.load() > 0; }));
  server_->Stop();
  slow.join();
  thread_.join();
  json m;
  EXPECT_EQ(status.load(), 200);
  EXPECT_EQ(static_cast<int64_t>(got.load()), static_cast<int64_t>(std::filesystem::file_size(path_ + ".snapshot")));
  server_.reset();
}

}  // namespace
}  // namespace umwelt

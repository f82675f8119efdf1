#include "umwelt/http.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "test_util.h"
#include "umwelt/redact.h"

namespace umwelt {
namespace {

TEST(LinkHeader, ParsesGithubStyle) {
  std::string h =
      "<https://api.github.com/x?page=2>; rel=\"next\", <https://api.github.com/x?page=7>; rel=\"last\"";
  auto links = ParseLinkHeader(h);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(FindLinkRel(h, "next"), "https://api.github.com/x?page=2");
  EXPECT_EQ(FindLinkRel(h, "last"), "https://api.github.com/x?page=7");
  EXPECT_EQ(FindLinkRel(h, "prev"), "");
}

TEST(LinkHeader, ToleratesGarbage) {
  EXPECT_TRUE(ParseLinkHeader("").empty());
  EXPECT_TRUE(ParseLinkHeader("<unterminated").empty());
  EXPECT_TRUE(ParseLinkHeader("no brackets; rel=next").empty());
  EXPECT_EQ(FindLinkRel("<u>; rel=next", "next"), "u");
  EXPECT_EQ(FindLinkRel("<u>; rel=\"prev next\"", "next"), "u");
}

TEST(Redact, HidesSecrets) {
  EXPECT_EQ(Redact("Bearer ghp_secret123 used", {"ghp_secret123"}), "Bearer *** used");
}

// A search makes its embedder's client while it opens the corpus and sends
// the query on a thread beside the keyword legs: libcurl and its thirty
// libraries load there, at the first request, not when the client is made.
TEST(CurlClient, LoadsLibcurlAtItsFirstRequest) {
  auto loaded = [] {
    void* handle = ::dlopen(UMWELT_SONAME_CURL, RTLD_LAZY | RTLD_NOLOAD);
    if (handle) ::dlclose(handle);
    return handle != nullptr;
  };
  if (loaded()) GTEST_SKIP() << UMWELT_SONAME_CURL << " was loaded before this test (run it alone)";
  testing::TestServer server;
  server.server().Get("/ok", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  auto client = NewCurlHttpClient();
  EXPECT_FALSE(loaded());
  auto ok = client->Send({"GET", server.base() + "/ok", {}, "", 10});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->body, "ok");
  EXPECT_TRUE(loaded());
}

TEST(CurlClient, TalksToLoopbackAndReportsStatus) {
  testing::TestServer server;
  server.server().Get("/ok", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("ETag", "\"abc\"");
    res.set_content("{\"a\":1}", "application/json");
  });
  server.server().Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("{\"message\":\"Not Found\"}", "application/json");
  });
  auto client = NewCurlHttpClient();
  auto ok = client->Send({"GET", server.base() + "/ok", {}, "", 10});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->Header("etag"), "\"abc\"");
  EXPECT_EQ(ok->body, "{\"a\":1}");
  auto missing = client->Send({"GET", server.base() + "/missing", {}, "", 10});
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  HttpRequest big{"GET", server.base() + "/ok", {}, "", 10, 3};
  EXPECT_FALSE(client->Send(big).ok());  // over max_body_bytes
  auto refused = client->Send({"GET", "http://127.0.0.1:1/", {}, "", 5});
  EXPECT_FALSE(refused.ok());
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 13, item 9: every token shape and every configured secret, by value.
TEST(Redact, HidesTokenShapesAndConfiguredValues) {
  std::string echoed =
      "HTTP 401: {\"message\":\"Bad credentials\",\"echo\":\"Authorization: Bearer ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\"}";
  std::string r = RedactSecrets(echoed);
  EXPECT_EQ(r.find("ghp_A1b2"), std::string::npos) << r;
  EXPECT_NE(r.find("Bad credentials"), std::string::npos) << r;
  for (const char* secret : {"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
                             "gho_16C7e42F292c6912E7710c838347Ae178B4a", "sk-proj-abcdefghijklmnop1234567890",
                             "sk-ant-api03-abcdefghijklmnopqrstuv", "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123"}) {
    std::string out = RedactSecrets(std::string("failed with ") + secret + " here");
    EXPECT_EQ(out.find(secret), std::string::npos) << out;
    EXPECT_NE(out.find("failed with"), std::string::npos) << out;
  }
  EXPECT_EQ(RedactSecrets("url?api_key=0123456789abcdef&x=1").find("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(RedactSecrets("Authorization: Bot abcdefghijklmnop").find("abcdefghijklmnop"), std::string::npos);
  EXPECT_EQ(RedactSecrets("curl -H 'Basic dXNlcjpwYXNzd29yZA'").find("dXNlcjpw"), std::string::npos);
  EXPECT_EQ(RedactSecrets("sent Bearer 3f9a8b7c6d5e4f3a"), "sent Bearer ***");
  // Prose that happens to follow one of those words is not a credential.
  EXPECT_EQ(RedactSecrets("MIPS: DSPr2: Basic infrastructure for MIPS architecture"),
            "MIPS: DSPr2: Basic infrastructure for MIPS architecture");
  EXPECT_EQ(RedactSecrets("the bot responds to mentions"), "the bot responds to mentions");
  // A W&B key has no shape of its own: it is hidden by value.
  // Registered for the rest of the process: not the sha the W&B test expects
  // to read as a sha (Redact.WandbKeysInWandbContexts, in this binary too).
  std::string key = "fedcba9876543210fedcba9876543210fedcba98";
  AddSecret(key);
  EXPECT_EQ(RedactSecrets("GraphQL said: bad key " + key), "GraphQL said: bad key ***");
  ::setenv("DISCORD_TOKEN", "plain-discord-value", 1);
  EXPECT_EQ(RedactSecrets("echo plain-discord-value"), "echo ***");
  ::unsetenv("DISCORD_TOKEN");
  EXPECT_EQ(RedactSecrets("see https://bob:hunter2@files.example.com/p"), "see https://***@files.example.com/p");
  // Commit shas and ordinary words stay.
  EXPECT_EQ(RedactSecrets("commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (token budget)"),
            "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (token budget)");
}

// Found by fuzz_discord_api: a 200 KB token-like run (a channel id in a
// stored cursor) made the old backtracking matcher recurse once per character and overflow
// the stack. Runs that long are replaced whole; the words around them stay.
TEST(Redact, SurvivesHugeTokensAndKeepsTheRest) {
  std::string huge(200000, 'a');
  std::string out = RedactSecrets("cursor {\"" + huge + "\": \"1\"} and token=" + std::string(5000, '7') + " done");
  EXPECT_EQ(out.find("aaaa"), std::string::npos);
  EXPECT_EQ(out.find("7777"), std::string::npos);
  EXPECT_NE(out.find("cursor"), std::string::npos) << out.substr(0, 200);
  EXPECT_NE(out.find(" done"), std::string::npos);
  EXPECT_LT(out.size(), 100u);
}

TEST(StripLocalPaths, KeepsUrlsAndNames) {
  EXPECT_EQ(StripLocalPaths("/home/me/work/corpus.db: disk I/O error"), "corpus.db: disk I/O error");
  EXPECT_EQ(StripLocalPaths("cannot open \"/srv/umwelt/repos/tinylm/\""), "cannot open \"tinylm\"");
  EXPECT_EQ(StripLocalPaths("{\"path\":\"/home/me/src/tinylm\",\"head\":\"ab\"}"), "{\"path\":\"tinylm\",\"head\":\"ab\"}");
  EXPECT_EQ(StripLocalPaths("https://github.com/acme/tinylm/issues/1 failed"), "https://github.com/acme/tinylm/issues/1 failed");
  EXPECT_EQ(StripLocalPaths("5/10 pages and/or more"), "5/10 pages and/or more");
}

// Issue 15: one retry policy for every client of an HTTP API, against a
// real server on loopback: transient answers are retried with the backoff or
// the answer's Retry-After (capped), the rest are returned at once.
TEST(SendWithRetry, WaitsBacksOffAndGivesUp) {
  testing::TestServer server;
  std::vector<std::pair<int, std::string>> script;  // status, Retry-After
  std::atomic<size_t> served{0};
  std::mutex mu;
  server.server().Get("/x", [&](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    size_t i = served++;
    auto [status, after] = i < script.size() ? script[i] : std::make_pair(200, std::string());
    res.status = status;
    if (!after.empty()) res.set_header("Retry-After", after);
    res.set_content("answer " + std::to_string(i), "text/plain");
  });
  auto http = NewCurlHttpClient();
  HttpRequest req;
  req.url = server.base() + "/x";
  std::vector<double> waits;
  int retries = 0;
  RetryPolicy p;
  p.max_retries = 4;
  p.backoff_seconds = 0.5;
  p.sleep = [&](double s) { waits.push_back(s); };
  p.on_retry = [&](const Result<HttpResponse>&, double) { ++retries; };
  script = {{503, ""}, {429, "7"}, {500, "Wed, 21 Oct 2015 07:28:00 GMT"}, {529, "100000"}};
  int attempts = 0;
  auto r = SendWithRetry(*http, req, p, &attempts);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(attempts, 5);
  EXPECT_EQ(retries, 4);
  // The backoff, Retry-After's seconds, the backoff again (a date is not
  // seconds), and a huge Retry-After capped.
  EXPECT_EQ(waits, (std::vector<double>{0.5, 7, 2, 120}));
  // Retries run out: the last answer comes back.
  served = 0;
  waits.clear();
  script = {{503, ""}, {503, ""}, {503, ""}};
  p.max_retries = 1;
  r = SendWithRetry(*http, req, p, &attempts);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(attempts, 2);
  // An answer not to retry comes back at once; a caller's rule decides.
  served = 0;
  script = {{404, ""}};
  r = SendWithRetry(*http, req, p, &attempts);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(attempts, 1);
  served = 0;
  script = {{200, ""}};
  p.retry_on = [](const HttpResponse& a) { return a.body == "answer 0"; };
  r = SendWithRetry(*http, req, p, &attempts);
  EXPECT_EQ(r->body, "answer 1");
  // A provider's own rule for the wait (Discord's body retry_after) comes
  // before Retry-After; a negative answer leaves Retry-After and the backoff.
  served = 0;
  waits.clear();
  script = {{429, "9"}, {503, "3"}, {200, ""}};
  p.retry_on = nullptr;
  p.max_retries = 4;
  p.wait_of = [](const HttpResponse& a) { return a.status == 429 ? 0.25 : -1.0; };
  r = SendWithRetry(*http, req, p, &attempts);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(waits, (std::vector<double>{0.25, 3}));
  // A refused connection is retried, then reported.
  p.max_retries = 1;
  HttpRequest dead;
  dead.url = "http://127.0.0.1:1/";
  r = SendWithRetry(*http, dead, p, &attempts);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(attempts, 2);
  // Unless a POST that may have arrived must not be sent twice.
  p.retry_transport = false;
  r = SendWithRetry(*http, dead, p, &attempts);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(attempts, 1);
  // Discord's body retry_after: only on a 429, only a finite number.
  HttpResponse limited;
  limited.status = 429;
  limited.body = R"({"retry_after": 1.5, "global": false})";
  EXPECT_EQ(RetryAfterInBody(limited), 1.5);
  limited.body = R"({"retry_after": "soon"})";
  EXPECT_EQ(RetryAfterInBody(limited), -1);
  limited.body = "not json";
  EXPECT_EQ(RetryAfterInBody(limited), -1);
  limited.status = 503;
  limited.body = R"({"retry_after": 2})";
  EXPECT_EQ(RetryAfterInBody(limited), -1);
}

}  // namespace
}  // namespace umwelt

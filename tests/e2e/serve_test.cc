// `umwelt serve` as a process: graceful shutdown on SIGTERM, kill -9 in the
// middle of a scheduled sync and a restart, and a real browser driving the
// UI over the DevTools protocol (DOM dumps and screenshots kept under
// build/test-artifacts/).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "corpus_fixtures.h"
#include "discord_gateway_fake.h"
#include "serve_process.h"
#include "test_util.h"
#include "umwelt/file.h"
#include "umwelt/http.h"

namespace umwelt {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::RunResult;
using testing::Umwelt;

using testing::ExampleCorpus;
using testing::ServeProcess;

TEST(Serve, SigtermFinishesTheDownloadInFlightAndExitsZero) {
  testing::TempDir dir;
  std::string db = ExampleCorpus(dir);
  ServeProcess serve({"--corpus", db, "serve", "--port", "0"}, dir.File("serve.log"));
  int port = serve.WaitForPort();
  ASSERT_GT(port, 0) << testing::ReadFileOrEmpty(dir.File("serve.log"));
  httplib::Client c("127.0.0.1", port);
  auto m = c.Get("/manifest.json");
  ASSERT_TRUE(m);
  int64_t bytes = json::parse(m->body)["corpus_index"]["bytes"];
  std::atomic<int64_t> got{0};
  std::atomic<int> status{0};
  std::thread slow([&] {
    httplib::Client d("127.0.0.1", port);
    auto r = d.Get("/corpus-index.db", [&](const char*, size_t n) {
      got += static_cast<int64_t>(n);
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      return true;
    });
    if (r) status = r->status;
  });
  EXPECT_TRUE(testing::WaitUntil([&] { return got.load() > 0; }));
  serve.Signal(SIGTERM);
  slow.join();
  EXPECT_EQ(serve.Wait(30), 0);
  EXPECT_EQ(status.load(), 200);
  EXPECT_EQ(got.load(), bytes);
  std::string log = testing::ReadFileOrEmpty(dir.File("serve.log"));
  EXPECT_NE(log.find("shutting down"), std::string::npos) << log;
}

TEST(Serve, KillNineDuringAScheduledSyncThenRestart) {
  testing::TempDir dir;
  // A repository the corpus mirrors; 4,000 more commits arrive before the
  // server's first scheduled sync, which is killed mid-way.
  std::string repo = dir.File("repo");
  fs::create_directories(repo);
  auto git = [&](const std::string& args) {
    return std::system(("cd " + testing::Quote(repo) + " && git -c user.name=t -c user.email=t@example.com " + args +
                        " >/dev/null 2>&1").c_str());
  };
  ASSERT_EQ(git("init -q -b main ."), 0);
  testing::WriteFile(repo + "/a.txt", "one\n");
  ASSERT_EQ(git("add a.txt"), 0);
  ASSERT_EQ(git("commit -q -m first"), 0);
  std::string db = dir.File("c.db");
  ASSERT_EQ(Umwelt({"--corpus", db, "sync", "git", repo}).code, 0);
  {
    std::ofstream fi(dir.File("stream"));
    for (int i = 1; i <= 4000; ++i) {
      std::string body = "line " + std::to_string(i) + "\n";
      std::string msg = "Change " + std::to_string(i) + " to the throughput zorblat\n";
      fi << "commit refs/heads/main\ncommitter t <t@example.com> " << 1790000000 + i << " +0000\ndata " << msg.size()
         << "\n" << msg;
      if (i == 1) fi << "from refs/heads/main^0\n";
      fi << "M 644 inline f" << (i % 50) << ".txt\ndata " << body.size() << "\n" << body << "\n";
    }
  }
  ASSERT_EQ(git("fast-import --quiet < " + testing::Quote(dir.File("stream"))), 0);
  ServeProcess serve({"--corpus", db, "serve", "--port", "0", "--sync-every", "10s"}, dir.File("serve.log"));
  int port = serve.WaitForPort();
  ASSERT_GT(port, 0) << testing::ReadFileOrEmpty(dir.File("serve.log"));
  httplib::Client c("127.0.0.1", port);
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto s = c.Get("/api/status");
    return s && json::parse(s->body)["scheduler"]["running"].get<bool>();
  })) << "the scheduled sync never started";
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  serve.Signal(SIGKILL);
  EXPECT_EQ(serve.Wait(10), 128 + SIGKILL);
  // The file is whole, the last committed state opens, and a restart serves
  // and finishes the sync.
  RunResult integrity = testing::RunShell("sqlite3 " + testing::Quote(db) + " 'PRAGMA integrity_check'");
  EXPECT_EQ(integrity.out, "ok\n") << integrity.err;
  EXPECT_EQ(Umwelt({"--corpus", db, "status"}).code, 0);
  ServeProcess again({"--corpus", db, "serve", "--port", "0", "--sync-every", "10s"}, dir.File("serve2.log"));
  int port2 = again.WaitForPort();
  ASSERT_GT(port2, 0) << testing::ReadFileOrEmpty(dir.File("serve2.log"));
  httplib::Client c2("127.0.0.1", port2);
  c2.set_read_timeout(30, 0);
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto s = c2.Get("/api/status");
    return s && !json::parse(s->body)["scheduler"]["last_ok"].get<std::string>().empty();
  }, 60)) << testing::ReadFileOrEmpty(dir.File("serve2.log"));
  auto hits = c2.Get("/api/search?q=zorblat&k=5&source=git");
  ASSERT_TRUE(hits);
  EXPECT_EQ(json::parse(hits->body)["hits"].size(), 5u) << hits->body;
  again.Signal(SIGTERM);
  EXPECT_EQ(again.Wait(30), 0);
}

// A small repository with a 150-line file, synced into `db`, and an issue
// whose text is an attack on the page that shows it (acme/tinylm#666).
void AddCodeAndHostileText(testing::TempDir& dir, const std::string& db) {
  std::string repo = dir.File("repo");
  fs::create_directories(repo + "/src");
  std::string code;
  for (int i = 1; i <= 150; ++i) code += "def step_" + std::to_string(i) + "():  # `tick` <b>" + std::to_string(i) + "</b>\n";
  testing::WriteFile(repo + "/src/loop.py", code);
  RunResult git = testing::RunShell(
      "cd " + testing::Quote(repo) + " && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 && git init -q -b main . && "
      "git add -A && git -c user.name=T -c user.email=t@example.com commit -q -m 'Add the training loop' "
      "-m 'Follows acme/tinylm#102 (see **the trace**).'");
  ASSERT_EQ(git.code, 0) << git.err;
  ASSERT_EQ(Umwelt({"--corpus", db, "sync", "git", repo}).code, 0);
  auto corpus = Corpus::Open(db, Corpus::Mode::kReadWrite);
  ASSERT_TRUE(corpus.ok());
  auto b = (*corpus)->BeginWrite();
  Thread t = testing::GithubThread("acme/tinylm#666", "issue", "open", "Hostile <b>title</b>", "mallory",
                                   "<script>window.__pwned = 1</script>");
  ASSERT_TRUE((*b)->PutThread(t).ok());
  ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk(
      "acme/tinylm#666", "acme/tinylm#666", "issue", t.url,
      "Fixes #102 averyveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryverylongwordwithoutanybreak."
      "\n<script>window.__pwned = 2</script><img src=x onerror=\"window.__pwned = 3\">\n\n"
      "[click me](javascript:window.__pwned=4) <a href=\"javascript:window.__pwned=5\" onclick=\"window.__pwned=6\">x</a>\n\n"
      "<style>main{display:none}</style><iframe src=\"/\"></iframe> \u202Egnp.exe")}).ok());
  ASSERT_TRUE((*b)->Commit().ok());
}

TEST(Serve, BrowserTypesAQueryOpensAThreadAndASummary) {
  std::string chromium;
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (fs::exists(p)) chromium = p;
  }
  if (const char* c = std::getenv("UMWELT_CHROMIUM"); c && *c) chromium = c;
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium); browser test skipped";
  if (std::system("node --experimental-websocket -e 'process.exit(typeof WebSocket === \"function\" ? 0 : 1)' 2>/dev/null") != 0) {
    GTEST_SKIP() << "node with WebSocket (node >= 20 --experimental-websocket) is not installed; browser test skipped";
  }
  testing::TempDir dir;
  std::string db = ExampleCorpus(dir);
  AddCodeAndHostileText(dir, db);
  std::string site = dir.File("site");
  ASSERT_EQ(Umwelt({"--corpus", db, "digest", "--week", "2026-11-16", "--out", site}).code, 0);
  RunResult code_hit = Umwelt({"--corpus", db, "search", "step_120", "--source", "code", "--json", "--fts-only"});
  json code_json = json::parse(code_hit.out, nullptr, false);
  ASSERT_TRUE(code_json.is_object() && !code_json["hits"].empty()) << code_hit.out << code_hit.err;
  std::string code_path = "/thread?url=" + UrlEncode(code_json["hits"][0]["url"].get<std::string>());
  // Each page the UI has, with what it is for; the audit runs them at 1280 and 390 px.
  json pages = json::array({
      {{"path", "/"}, {"need", {"#q", "nav.site-nav a[href='/summaries/']"}}},
      {{"path", "/?q=MFU+H100"}, {"need", {"ol.hits li", "mark", ".facets a", "#mode", "time[title]"}}},
      {{"path", "/?q=MFU+H100&group=thread"}, {"need", {"ol.threads li"}}},
      {{"path", "/thread?ref=acme/tinylm%23102"}, {"need", {".chunk .body p", "time[title]", ".body a[href^='/thread']"}}},
      {{"path", "/thread?ref=acme/tinylm%23666"}, {"need", {".chunk .body"}}},
      {{"path", code_path}, {"need", {".code .l.hit", ".code a.n"}}},
      {{"path", "/summaries/"}, {"need", {"nav.site-nav a[href='/']"}}},
      {{"path", "/summaries/summaries/summary-2026-11-16_2026-11-22.html"}, {"need", {"figure.activity svg", "nav.site-nav"}}},
      {{"path", "/ask"}, {"ask", "What MFU do we get on H100s?"}, {"need", {".answer-part .report", ".answer-part h2.title"}}},
  });
  testing::WriteFile(dir.File("pages.json"), pages.dump());
  ServeProcess serve({"--corpus", db, "serve", "--port", "0", "--summaries", site}, dir.File("serve.log"));
  int port = serve.WaitForPort();
  ASSERT_GT(port, 0);
  // A second server with auth, for the sign-in redirect (issue 13, item 5).
  testing::WriteFile(dir.File("auth.json"), json{{"tokens", {{{"sha256", Sha256Hex("browser-token")}, {"login", "ann"}}}}}.dump());
  ServeProcess authed({"--corpus", db, "serve", "--port", "0", "--auth", dir.File("auth.json")}, dir.File("serve-auth.log"));
  int auth_port = authed.WaitForPort();
  ASSERT_GT(auth_port, 0);
  std::string artifacts = UMWELT_ARTIFACT_DIR;
  fs::create_directories(artifacts);
  RunResult r = testing::RunShell("PAGES_FILE=" + testing::Quote(dir.File("pages.json")) + " timeout 280 node --experimental-websocket " +
                                  testing::Quote(UMWELT_SOURCE_DIR "/tests/e2e/cdp.mjs") + " " + testing::Quote(chromium) +
                                  " http://127.0.0.1:" + std::to_string(port) +
                                  " /summaries/summaries/summary-2026-11-16_2026-11-22.html " + testing::Quote(artifacts) +
                                  " http://127.0.0.1:" + std::to_string(auth_port) + " browser-token");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["focused"], "q");
  EXPECT_EQ(j["search_url"], "/?q=MFU+H100&source=&kind=&since=&until=");
  EXPECT_GT(j["hits"].get<int>(), 3);
  EXPECT_GT(j["cards"].get<int>(), 0);
  EXPECT_NE(j["result_count"].get<std::string>().find("results"), std::string::npos);
  EXPECT_FALSE(j["thread_title"].get<std::string>().empty());
  EXPECT_GT(j["thread_chunks"].get<int>(), 0);
  EXPECT_EQ(j["summary_title"], "acme/tinylm: week of November 16, 2026");
  EXPECT_GT(j["summary_strips"].get<int>(), 0);
  EXPECT_TRUE(j["console_errors"].empty()) << j["console_errors"].dump();
  EXPECT_EQ(j["login_origin"], "http://127.0.0.1:" + std::to_string(auth_port));
  EXPECT_EQ(j["login_path"], "/");
  // The audit: every page at both widths.
  ASSERT_EQ(j["pages"].size(), 2 * pages.size()) << r.out;
  for (const auto& p : j["pages"]) {
    std::string where = p["path"].get<std::string>() + " at " + std::to_string(p["width"].get<int>()) + " px";
    EXPECT_LE(p["page_width"].get<int>(), p["screen"].get<int>()) << where << ": the page scrolls sideways";
    EXPECT_TRUE(p["raw"].empty()) << where << ": Markdown shown raw: " << p["raw"].dump();
    EXPECT_TRUE(p["missing"].empty()) << where << ": missing " << p["missing"].dump();
    EXPECT_TRUE(p["broken"].empty()) << where << ": links that do not answer: " << p["broken"].dump();
    EXPECT_EQ(p["live"], 0) << where << ": hostile markup came alive";
    EXPECT_FALSE(p["pwned"].get<bool>()) << where << ": hostile script ran";
  }
  EXPECT_GT(j["links_checked"].get<int>(), 20);
  for (const char* f : {"serve-search.html", "serve-search.png", "serve-thread.png", "serve-summary.png"}) {
    EXPECT_TRUE(fs::exists(artifacts + "/" + f)) << f;
  }
}

// `sync discord GUILD --follow` as a process: it catches up over REST when
// the gateway session begins, applies messages as they are posted (a
// search finds them), and stops cleanly on SIGINT.
TEST(SyncDiscordFollow, CatchesUpFollowsAndStopsOnSigint) {
  testing::TempDir dir;
  const std::string db = dir.File("c.db");
  json channels = json::array({{{"id", "200"}, {"type", 0}, {"guild_id", "100"}, {"name", "general"}}});
  testing::FakeGateway gw("cli-gw-s3cret", "100", channels);
  testing::FakeDiscordRest rest("cli-gw-s3cret", "100", channels, gw);
  auto message = [](uint64_t id, const std::string& content) {
    return testing::FakeGateway::Message(std::to_string(id), "100", "200", content);
  };
  const uint64_t kId = (uint64_t{1763632800000} - 1420070400000) << 22;
  rest.AddMessage("200", kId, message(kId, "numbathistory posted before following"));
  ::setenv("DISCORD_TOKEN", "cli-gw-s3cret", 1);
  ServeProcess follow({"--corpus", db, "sync", "discord", "100", "--api-base", rest.base(), "--follow"},
                      dir.File("follow.log"));
  ::unsetenv("DISCORD_TOKEN");
  auto found = [&](const std::string& word) {
    RunResult r = Umwelt({"--corpus", db, "search", word, "--fts-only", "--json"});
    return r.code == 0 && r.out.find("discord.com/channels/100/200/") != std::string::npos;
  };
  ASSERT_TRUE(testing::FakeGateway::WaitUntil([&] { return found("numbathistory"); }, 30))
      << testing::ReadFileOrEmpty(dir.File("follow.log"));
  gw.Dispatch("MESSAGE_CREATE", message(kId + 1, "bilbyfresh the eval finished"));
  ASSERT_TRUE(testing::FakeGateway::WaitUntil([&] { return found("bilbyfresh"); }, 15))
      << testing::ReadFileOrEmpty(dir.File("follow.log"));
  follow.Signal(SIGINT);
  EXPECT_EQ(follow.Wait(20), 0) << testing::ReadFileOrEmpty(dir.File("follow.log"));
  std::string log = testing::ReadFileOrEmpty(dir.File("follow.log"));
  EXPECT_NE(log.find("1 event(s) applied (MESSAGE_CREATE 1)"), std::string::npos) << log;
  EXPECT_NE(log.find("stopped after 1 connection(s)"), std::string::npos) << log;
  EXPECT_EQ(log.find("cli-gw-s3cret"), std::string::npos) << "the token never reaches the output";
}

}  // namespace
}  // namespace umwelt

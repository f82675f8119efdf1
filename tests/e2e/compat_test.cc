// Issue 19: the reference system's own client (../shared/peers/mumwelt, run,
// never copied) against a real `umwelt serve` on loopback with auth; and
// umwelt against a corpus in the reference layout with vectors.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fake_embeddings.h"
#include "serve_process.h"
#include "test_util.h"
#include "umwelt/file.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using testing::Quote;
using testing::RunResult;
using testing::Umwelt;

std::string Peers() {
  std::string dir = UMWELT_SOURCE_DIR "/../shared/peers/mumwelt";
  if (const char* e = std::getenv("UMWELT_SHARED_PEERS"); e && *e) dir = std::string(e) + "/mumwelt";
  struct stat st;
  return ::stat((dir + "/mumwelt/cli.py").c_str(), &st) == 0 ? dir : "";
}

// Debian's python3 (a pyenv shim on PATH may lack numpy).
std::string Python() { return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

class ReferenceClient : public ::testing::Test {
 protected:
  void SetUp() override {
    peers_ = Peers();
    if (peers_.empty()) GTEST_SKIP() << "../shared/peers/mumwelt is absent: the reference client cannot be run";
    RunResult numpy = testing::RunShell(Python() + " -c 'import numpy'");
    ASSERT_EQ(numpy.code, 0) << "the reference client needs python3 and python3-numpy (scripts/install-deps.sh)";
    db_ = testing::ExampleCorpus(dir_);
    // A vector space the reference client can load (an OpenAI-compatible
    // server serving BAAI/bge-small-en-v1.5's name; here a scripted one).
    ASSERT_EQ(Umwelt({"--corpus", db_, "index", "--embedder", "prose=openai:" + fake_.base() + "#BAAI/bge-small-en-v1.5"},
                     "OPENAI_API_KEY=x")
                  .code,
              0);
    site_ = dir_.File("site");
    RunResult digest = Umwelt({"--corpus", db_, "digest", "--week", "2026-11-23", "--weeks", "2", "--out", site_});
    ASSERT_EQ(digest.code, 0) << digest.err;
    // A source whose last sync failed: the client warns of it from the manifest.
    testing::RecordFailingSource(db_);
    testing::WriteFile(dir_.File("auth.json"), json{{"tokens", {{{"sha256", Sha256Hex("mum-token")}, {"login", "ann"}}}}}.dump());
    serve_ = std::make_unique<testing::ServeProcess>(
        std::vector<std::string>{"--corpus", db_, "serve", "--port", "0", "--auth", dir_.File("auth.json"), "--summaries", site_},
        dir_.File("serve.log"));
    port_ = serve_->WaitForPort();
    ASSERT_GT(port_, 0) << testing::ReadFileOrEmpty(dir_.File("serve.log"));
  }

  // `mum ARGS` against the server, with its cache in the test's folder.
  RunResult Mum(const std::string& args, const std::string& token = "mum-token") {
    return Py("-m mumwelt.cli " + args, token);
  }
  // python3 ARGS with the client's package and settings.
  RunResult Py(const std::string& args, const std::string& token = "mum-token") {
    std::string base = "http://127.0.0.1:" + std::to_string(port_);
    std::string env = "env -i PATH=/usr/bin:/bin HOME=" + Quote(dir_.path()) + " PYTHONPATH=" + Quote(peers_) +
                      " MARINMIRROR_URL=" + base + " MARINMIRROR_TOKEN=" + Quote(token) + " MARIN_MWS_URL=" + base +
                      "/summaries MARIN_CACHE=" + Quote(dir_.File("cache"));
    return testing::RunShell("cd " + Quote(dir_.path()) + " && " + env + " timeout 120 " + Python() + " " + args);
  }

  testing::TempDir dir_;
  testing::FakeEmbeddings fake_;
  std::string peers_, db_, site_;
  std::unique_ptr<testing::ServeProcess> serve_;
  int port_ = 0;
};

TEST_F(ReferenceClient, EveryVerbWorksAgainstAnUmweltServer) {
  // refresh: the corpus snapshot (sha256 checked by the client) and the summaries.
  RunResult refresh = Mum("refresh");
  ASSERT_EQ(refresh.code, 0) << refresh.out << refresh.err;
  EXPECT_NE(refresh.out.find("corpus:    updated"), std::string::npos) << refresh.out;
  EXPECT_NE(refresh.err.find("summaries: 2 published, +2 new"), std::string::npos) << refresh.err;
  RunResult status = Mum("status");
  ASSERT_EQ(status.code, 0) << status.err;
  EXPECT_NE(status.out.find("prose 3d (BAAI/bge-small-en-v1.5)"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("summaries: 2 weeks, latest 2026-11-23_2026-11-29"), std::string::npos) << status.out;
  EXPECT_NE(status.err.find("1 source(s) FAILING"), std::string::npos) << status.err;
  EXPECT_NE(status.err.find("wandb:acme/tinylm: "), std::string::npos) << status.err;

  RunResult search = Mum("search 'MFU stuck' -k 3");
  ASSERT_EQ(search.code, 0) << search.err;
  EXPECT_NE(search.out.find("https://github.com/acme/tinylm/issues/102"), std::string::npos) << search.out;
  RunResult multi = Mum("search-multi MFU 'checkpoint restore'");
  ASSERT_EQ(multi.code, 0) << multi.err;
  EXPECT_NE(multi.out.find("https://github.com/acme/tinylm/issues/104"), std::string::npos) << multi.out;
  RunResult show = Mum("show https://github.com/acme/tinylm/issues/102");
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("Closing: #110 brought MFU to 38.5%"), std::string::npos) << show.out;
  RunResult context = Mum("context 'checkpoint restore' --expand 2");
  ASSERT_EQ(context.code, 0) << context.err;
  EXPECT_NE(context.out.find("=== Checkpoint restore takes 14 minutes"), std::string::npos) << context.out;

  // run: the W&B route, behind the same auth.
  RunResult run = Mum("run tinylm/h100-baseline");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("h100-baseline  [tinylm]  state=finished"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("loss = 2.42"), std::string::npos) << run.out;
  RunResult by_url = Mum("run https://wandb.ai/acme/tinylm/runs/h100-prefetch-2 --json");
  ASSERT_EQ(by_url.code, 0) << by_url.err;
  EXPECT_EQ(json::parse(by_url.out)["config"]["fsdp_prefetch"], true) << by_url.out;
  RunResult missing = Mum("run tinylm/no-such-run");
  EXPECT_NE(missing.code, 0);
  EXPECT_NE((missing.out + missing.err).find("tinylm/no-such-run is not mirrored"), std::string::npos) << missing.err;
  RunResult refused = Mum("run tinylm/h100-baseline", "wrong-token");
  EXPECT_NE(refused.code, 0);
  EXPECT_NE((refused.out + refused.err).find("401"), std::string::npos) << refused.out << refused.err;

  // summaries: list, show, links, from the pages the client found by the index's links.
  RunResult list = Mum("summaries list");
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("2026-11-23_2026-11-29"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("2026-11-16_2026-11-22"), std::string::npos) << list.out;
  RunResult text = Mum("summaries show 2026-11-16_2026-11-22");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("week of November 16, 2026"), std::string::npos) << text.out;
  RunResult links = Mum("summaries links 2026-11-16_2026-11-22");
  ASSERT_EQ(links.code, 0) << links.err;
  EXPECT_NE(links.out.find("https://github.com/acme/tinylm/"), std::string::npos) << links.out;

  // The snapshot's vectors, read by the client's own vector leg: only the
  // model is stood in for (fastembed is not installable here) by one that
  // embeds as the scripted server did, so the cosine ranking is real.
  testing::WriteFile(dir_.File("vec.py"),
                     "import json\n"
                     "from mumwelt import corpus\n"
                     "class Model:\n"
                     "    def embed(self, texts):\n"
                     "        return [[float(len(t)), 1.0, 0.0] for t in texts]\n"
                     "corpus._model = lambda name: Model()\n"
                     "hits = corpus.search('MFU', k=5)\n"
                     "print(json.dumps({'spaces': corpus.spaces(), 'via': [h['via'] for h in hits]}))\n");
  RunResult vec = Py(Quote(dir_.File("vec.py")));
  ASSERT_EQ(vec.code, 0) << vec.out << vec.err;
  json v = json::parse(vec.out, nullptr, false);
  ASSERT_TRUE(v.is_object()) << vec.out;
  EXPECT_EQ(v["spaces"]["prose"]["model"], "BAAI/bge-small-en-v1.5");
  EXPECT_EQ(v["spaces"]["prose"]["sources"], json::array({"discord", "github", "wandb"}));
  bool vector_leg = false;
  for (const auto& via : v["via"]) vector_leg |= via.get<std::string>().find("vec") != std::string::npos;
  EXPECT_TRUE(vector_leg) << vec.out;
  // The token never reaches the server's log.
  EXPECT_EQ(testing::ReadFileOrEmpty(dir_.File("serve.log")).find("mum-token"), std::string::npos);
}

// The other direction: umwelt reads a corpus in the reference layout (no
// thread, link or sync tables) and searches its vectors.
TEST_F(ReferenceClient, UmweltSearchesAReferenceLayoutCorpusWithVectors) {
  ASSERT_EQ(Mum("refresh").code, 0);
  std::string ref = dir_.File("reference.db");
  fs::copy_file(dir_.File("cache/corpus-index.db"), ref);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(ref.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE threads; DROP TABLE links; DROP TABLE sync_state; DROP TABLE record_versions;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  RunResult status = Umwelt({"--corpus", ref, "status"});
  ASSERT_EQ(status.code, 0) << status.err;
  EXPECT_NE(status.out.find("(reference schema, read-only)"), std::string::npos) << status.out;
  RunResult r = Umwelt({"--corpus", ref, "search", "MFU", "-k", "5", "--json", "--embedder",
                        "prose=openai:" + fake_.base() + "#BAAI/bge-small-en-v1.5"},
                       "OPENAI_API_KEY=x");
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["mode"], "hybrid") << r.out;
  bool prose = false;
  for (const auto& h : j["hits"]) {
    for (const auto& via : h["via"]) prose |= via == "prose";
  }
  EXPECT_TRUE(prose) << r.out;
  RunResult context = Umwelt({"--corpus", ref, "context", "checkpoint restore", "--expand", "1", "--fts-only"});
  ASSERT_EQ(context.code, 0) << context.err;
  EXPECT_NE(context.out.find("=== "), std::string::npos) << context.out;
}

}  // namespace
}  // namespace umwelt

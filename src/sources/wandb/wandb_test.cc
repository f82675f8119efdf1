#include <gtest/gtest.h>

#include <mutex>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "umwelt/wandb.h"

namespace umwelt::wandb {
namespace {

using json = nlohmann::json;

json RunNode(const std::string& name, const std::string& state, const std::string& updated, const std::string& summary) {
  return {{"id", "UnVu" + name},
          {"name", name},
          {"displayName", "tiny-" + name},
          {"state", state},
          {"config", R"({"lr": {"value": 0.0003, "desc": null}, "model": {"value": {"layers": 12, "hidden": 768}},
                         "_wandb": {"value": {"cli_version": "0.16"}}, "notes_pr": {"value": "see #44"}})"},
          {"summaryMetrics", summary},
          {"tags", json::array({"hero", "h100"})},
          {"group", "sweep-1"},
          {"notes", "Checks the fix in https://github.com/acme/tinylm/pull/41"},
          {"createdAt", "2026-11-01T10:00:00"},
          {"updatedAt", updated},
          {"heartbeatAt", updated},
          {"user", {{"username", "ann"}}},
          {"project", {{"name", "tinylm"}, {"entity", {{"name", "acme"}}}}}};
}

// A W&B GraphQL endpoint: pages of `first` runs after a cursor, filtered by
// updated_at, behind basic auth, with a scripted 429.
class FakeWandb {
 public:
  FakeWandb() {
    server_.server().Post("/graphql", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      bodies_.push_back(req.body);
      if (req.get_header_value("Authorization") != "Basic " + Base64("api:k3y")) {
        res.status = 401;
        res.set_content(R"({"errors": [{"message": "unauthorized"}]})", "application/json");
        return;
      }
      if (throttle_ > 0) {
        --throttle_;
        res.status = 429;
        res.set_header("Retry-After", "2");
        return;
      }
      json body = json::parse(req.body);
      json vars = body["variables"];
      if (vars["entity"] != "acme" || vars["project"] != "tinylm") {
        res.set_content(R"({"data": {"project": null}})", "application/json");
        return;
      }
      json filters = json::parse(vars["filters"].get<std::string>());
      std::string since = filters.contains("updated_at") ? filters["updated_at"]["$gt"].get<std::string>() : "";
      std::vector<json> match;
      for (const auto& r : runs_) {
        if (r["updatedAt"].get<std::string>() > since) match.push_back(r);
      }
      std::sort(match.begin(), match.end(), [](const json& a, const json& b) { return a["updatedAt"] < b["updatedAt"]; });
      size_t start = vars.contains("cursor") ? std::stoul(vars["cursor"].get<std::string>()) : 0;
      size_t first = vars["perPage"].get<size_t>();
      json edges = json::array();
      for (size_t i = start; i < match.size() && i < start + first; ++i) edges.push_back({{"node", match[i]}, {"cursor", "c"}});
      bool more = start + first < match.size();
      json out = {{"data", {{"project", {{"runs", {{"edges", edges},
                                                  {"pageInfo", {{"endCursor", std::to_string(start + first)},
                                                                {"hasNextPage", more}}}}}}}}}};
      res.set_content(out.dump(), "application/json");
    });
  }
  std::vector<json> runs_;
  int throttle_ = 0;
  std::vector<std::string> bodies_;
  testing::TestServer server_;
  std::mutex mu_;
};

TEST(WandbSync, PagesIncrementallyWithFinalNumbersAsText) {
  testing::TempDir dir;
  auto corpus = std::move(Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite)).value();
  FakeWandb api;
  auto http = NewCurlHttpClient();
  api.runs_ = {RunNode("r1", "finished", "2026-11-02T00:00:00", R"({"mfu": 0.238, "tokens_per_second": 362000, "_step": 9})"),
               RunNode("r2", "crashed", "2026-11-03T00:00:00", R"({"loss": NaN, "grad_norm": Infinity})"),
               RunNode("r3", "running", "2026-11-04T00:00:00", R"({"mfu": 0.2})")};
  api.throttle_ = 1;
  SyncOptions o;
  o.project = "acme/tinylm";
  o.api_base = api.server_.base();
  o.api_key = "k3y";
  o.repo = "acme/tinylm";
  o.per_page = 2;
  std::vector<double> sleeps;
  o.sleep = [&](double s) { sleeps.push_back(s); };
  SyncReport r;
  Status s = Sync(*corpus, *http, o, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.runs, 3);
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(sleeps, std::vector<double>{2.0});
  auto run = corpus->ChunkByRef("wandb:acme/tinylm/r1");
  ASSERT_TRUE(run.ok() && *run);
  EXPECT_EQ((*run)->url, "https://wandb.ai/acme/tinylm/runs/r1");
  EXPECT_EQ((*run)->title, "tiny-r1");
  EXPECT_NE((*run)->text.find("mfu 0.238"), std::string::npos) << (*run)->text;
  EXPECT_NE((*run)->text.find("tokens_per_second 362000"), std::string::npos);
  EXPECT_NE((*run)->text.find("lr 0.0003"), std::string::npos);
  EXPECT_NE((*run)->text.find("model.layers 12"), std::string::npos);
  EXPECT_EQ((*run)->text.find("_wandb"), std::string::npos);
  EXPECT_EQ((*run)->text.find("_step"), std::string::npos);
  auto crashed = corpus->ChunkByRef("wandb:acme/tinylm/r2");
  EXPECT_NE((*crashed)->text.find("grad_norm Infinity, loss NaN"), std::string::npos) << (*crashed)->text;
  auto thread = corpus->GetThread("wandb:acme/tinylm/r2");
  ASSERT_TRUE(thread.ok() && *thread);
  EXPECT_EQ((*thread)->state, "crashed");
  // The run links the PR its notes name and the issue its config names.
  EXPECT_EQ(corpus->LinkedFrom("acme/tinylm#41")->size(), 3u);
  EXPECT_EQ(corpus->LinkedFrom("acme/tinylm#44")->size(), 3u);

  // Incremental: only runs updated since the newest one stored are asked for.
  api.runs_[2] = RunNode("r3", "finished", "2026-11-05T00:00:00", R"({"mfu": 0.241})");
  SyncReport r2;
  s = Sync(*corpus, *http, o, &r2);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r2.runs, 1);
  EXPECT_EQ(r2.changed, 1);
  EXPECT_NE(api.bodies_.back().find(R"(\"$gt\":\"2026-11-04T00:00:00Z\")"), std::string::npos) << api.bodies_.back();
  EXPECT_NE((*corpus->ChunkByRef("wandb:acme/tinylm/r3"))->text.find("mfu 0.241"), std::string::npos);

  // Bad input: a wrong key, an unknown project, a malformed name.
  o.api_key = "nope";
  s = Sync(*corpus, *http, o, &r2);
  EXPECT_NE(s.message().find("API key was refused"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("nope"), std::string::npos);
  o.api_key = "k3y";
  o.project = "acme/other";
  s = Sync(*corpus, *http, o, &r2);
  EXPECT_NE(s.message().find("acme/other does not exist"), std::string::npos) << s.message();
  o.project = "acme";
  EXPECT_EQ(Sync(*corpus, *http, o, &r2).code(), Code::kInvalidArgument);
  auto stats = corpus->Stats();
  int64_t runs = 0;
  for (const auto& c : stats->counts) runs += c.source == "wandb" ? c.chunks : 0;
  EXPECT_EQ(runs, 3);  // nothing lost
}

TEST(WandbImport, SavedResponsesAndRunObjects) {
  testing::TempDir dir;
  auto corpus = std::move(Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite)).value();
  json page = {{"data", {{"project", {{"runs", {{"edges", json::array({{{"node", RunNode("a1", "finished", "2026-11-02T00:00:00",
                                                                                       R"({"mfu": 0.3})")}}})}}}}}}}};
  testing::WriteFile(dir.File("page.json"), page.dump());
  json bare = RunNode("b1", "failed", "2026-11-02T00:00:00", "{}");
  bare.erase("project");
  bare["config"] = "{\"huge\": \"" + std::string(100000, 'x') + "\"}";
  testing::WriteFile(dir.File("runs.jsonl"), bare.dump() + "\n\n");
  ImportReport r;
  Status s = ImportFiles(*corpus, {dir.File("page.json"), dir.File("runs.jsonl")}, "acme/tinylm", "", &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.runs, 2);
  auto b1 = corpus->ThreadChunks("wandb:acme/tinylm/b1");
  ASSERT_TRUE(b1.ok());
  ASSERT_FALSE(b1->empty());
  std::string text;
  for (const auto& c : *b1) text += c.text;
  EXPECT_LT(text.size(), 20000u);  // a huge config is cut, and said so
  EXPECT_NE(text.find("(truncated)"), std::string::npos);

  testing::WriteFile(dir.File("none.json"), R"({"hello": "world"})");
  s = ImportFiles(*corpus, {dir.File("none.json")}, "acme/tinylm", "", &r);
  EXPECT_NE(s.message().find("none.json: no W&B runs found"), std::string::npos) << s.message();
  ImportReport r2;
  s = ImportFiles(*corpus, {dir.File("runs.jsonl")}, "", "", &r2);
  EXPECT_NE(s.message().find("--project"), std::string::npos) << s.message();
  EXPECT_EQ(QuoteNonFinite(R"({"a": NaN, "b": "NaN", "c": -Infinity})"),
            R"({"a": "NaN", "b": "NaN", "c": "-Infinity"})");
}

// Issue 14: odd values in a page or a file are errors or skipped runs, never
// a crash; a list nested 300,000 deep (walked recursively before) is refused.
TEST(WandbParse, HostileShapesAreErrorsOrSkips) {
  std::vector<std::string> warnings;
  std::string deep = std::string(300000, '[') + std::string(300000, ']');
  auto r = ParseRunFile(deep, "deep.json", "e/p", "", &warnings);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("deep.json"), std::string::npos) << r.status().message();

  auto page = ParseRunsPage(R"({"errors": [{"message": "quota"}]})", "e/p", "", &warnings);
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.status().message().find("quota"), std::string::npos);
  page = ParseRunsPage(R"({"errors": [7], "data": null})", "e/p", "", &warnings);
  EXPECT_FALSE(page.ok());
  page = ParseRunsPage(R"({"data": {"project": null}})", "e/p", "", &warnings);
  EXPECT_EQ(page.status().code(), Code::kNotFound);
  page = ParseRunsPage(R"({"data": {"project": {"runs": [1, 2]}}})", "e/p", "", &warnings);
  EXPECT_FALSE(page.ok());
  // One good run among runs with a numeric name, a null node and a string
  // config that is not JSON; pageInfo with a wrong type reads as "no more".
  page = ParseRunsPage(R"({"data": {"project": {"runs": {"edges": [
      {"node": {"name": 12}}, {"node": null}, {"node": {"name": "ok", "config": "{nope", "tags": "x",
       "summaryMetrics": {"loss": 1e308, "deep": {"a": {"b": [1, {"c": null}]}}}, "user": "ana"}}],
      "pageInfo": {"hasNextPage": "yes", "endCursor": 5}}}}})",
                        "e/p", "", &warnings);
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->runs.size(), 1u);
  EXPECT_EQ(page->runs[0].chunk.ref, "wandb:e/p/ok");
  EXPECT_FALSE(page->more);
  EXPECT_EQ(page->end_cursor, "5");  // an id written as a number reads as its digits
}

}  // namespace
}  // namespace umwelt::wandb

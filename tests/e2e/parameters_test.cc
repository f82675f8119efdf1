// One declaration per parameter (umwelt/params.h): the CLI, the HTTP API and
// MCP read a capability's parameters through the same table, so the same bad
// parameter gets the same words from each, and the same kind of failure
// (exit 2, HTTP 400, an isError tool result).
#include <httplib.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "serve_process.h"
#include "test_util.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
using testing::ServeProcess;
using testing::Umwelt;

// A new MCP session over the server's /mcp: its id ("" when refused).
std::string McpSession(httplib::Client& http) {
  auto init = http.Post("/mcp",
                        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                        R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
                        "application/json");
  return init && init->status == 200 ? init->get_header_value("Mcp-Session-Id") : "";
}

struct BadParameter {
  std::vector<std::string> cli;  // after --corpus DB
  std::string http_get;          // a GET path; empty: http_post
  std::string http_post;         // a POST path, with the MCP arguments as its JSON body
  std::string tool;
  json arguments;
  std::string message;
};

TEST(Parameters, EveryFrontDoorRefusesABadOneInTheSameWords) {
  testing::TempDir dir;
  std::string db = testing::ExampleCorpus(dir);
  ServeProcess serve({"--corpus", db, "serve", "--port", "0"}, dir.File("serve.log"));
  int port = serve.WaitForPort();
  ASSERT_GT(port, 0) << testing::ReadFileOrEmpty(dir.File("serve.log"));
  httplib::Client http("127.0.0.1", port);
  std::string session = McpSession(http);
  ASSERT_FALSE(session.empty());

  std::string question(5000, 'q');
  for (size_t i = 9; i < question.size(); i += 10) question[i] = ' ';
  const std::vector<BadParameter> cases = {
      {{"search", "loss", "-k", "0"}, "/api/search?q=loss&k=0", "", "search", {{"query", "loss"}, {"k", 0}},
       "k must be a whole number from 1 to 1,000"},
      {{"search", "loss", "--source", "gihub"}, "/api/search?q=loss&source=gihub", "", "search",
       {{"query", "loss"}, {"source", "gihub"}},
       "unknown source `gihub`: one of github, git, discord, code, wandb, web, narrative; did you mean `github`?"},
      {{"search", "loss", "--since", "last tuesday"}, "/api/search?q=loss&since=last%20tuesday", "", "search",
       {{"query", "loss"}, {"since", "last tuesday"}},
       "since must be an ISO-8601 date (2024-05-01 or 2024-05-01T10:00:00Z), not `last tuesday`"},
      {{"search", "loss", "--fts-only", "--vec-only"}, "/api/search?q=loss&fts_only=1&vec_only=1", "", "search",
       {{"query", "loss"}, {"fts_only", true}, {"vec_only", true}}, "fts_only and vec_only exclude each other"},
      {{"search-multi", "loss", "eval", "--total", "0"}, "/api/search-multi?q=loss&q=eval&total=0", "", "search_multi",
       {{"queries", {"loss", "eval"}}, {"total", 0}}, "total must be a whole number from 1 to 1,000"},
      {{"show", "acme/tinylm#1", "--around", "5000"}, "/api/show?target=acme/tinylm%231&around=5000", "", "show",
       {{"target", "acme/tinylm#1"}, {"around", 5000}}, "around must be a whole number from -1 to 1,000"},
      {{"ask", question}, "", "/api/ask", "ask", {{"question", question}}, "question is longer than 4,000 bytes (5,000)"},
  };
  int id = 10;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    std::vector<std::string> argv = {"--corpus", db};
    argv.insert(argv.end(), c.cli.begin(), c.cli.end());
    testing::RunResult cli = Umwelt(argv);
    EXPECT_EQ(cli.code, 2);
    EXPECT_EQ(cli.err, "umwelt: error: " + c.message + "\n");

    auto res = c.http_get.empty() ? http.Post(c.http_post, c.arguments.dump(), "application/json") : http.Get(c.http_get);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400);
    EXPECT_EQ(json::parse(res->body, nullptr, false).value("detail", ""), c.message) << res->body;

    json call = {{"jsonrpc", "2.0"},
                 {"id", ++id},
                 {"method", "tools/call"},
                 {"params", {{"name", c.tool}, {"arguments", c.arguments}}}};
    auto mcp = http.Post("/mcp", {{"Mcp-Session-Id", session}}, call.dump(), "application/json");
    ASSERT_TRUE(mcp);
    json result = json::parse(mcp->body, nullptr, false)["result"];
    EXPECT_TRUE(result.value("isError", false)) << mcp->body;
    EXPECT_EQ(result["content"][0].value("text", ""), c.message) << mcp->body;
  }
}

// The corpus's status is one shape at every front door: `status --json`,
// /api/status and MCP's status tool carry the same members with the same
// values (each front door adds its own: where the corpus is, the server's
// scheduler and sign-in).
TEST(Parameters, StatusIsOneShapeAtEveryFrontDoor) {
  testing::TempDir dir;
  std::string db = testing::ExampleCorpus(dir);
  testing::RecordFailingSource(db);
  testing::RunResult cli = Umwelt({"--corpus", db, "status", "--json"});
  ASSERT_EQ(cli.code, 0) << cli.err;
  json from_cli = json::parse(cli.out);
  ServeProcess serve({"--corpus", db, "serve", "--port", "0"}, dir.File("serve.log"));
  int port = serve.WaitForPort();
  ASSERT_GT(port, 0) << testing::ReadFileOrEmpty(dir.File("serve.log"));
  httplib::Client http("127.0.0.1", port);
  auto api = http.Get("/api/status");
  ASSERT_TRUE(api);
  json from_api = json::parse(api->body);
  json call = {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", {{"name", "status"}, {"arguments", json::object()}}}};
  auto mcp = http.Post("/mcp", {{"Mcp-Session-Id", McpSession(http)}}, call.dump(), "application/json");
  ASSERT_TRUE(mcp);
  json from_mcp = json::parse(mcp->body)["result"]["structuredContent"];
  for (const char* key : {"chunks", "threads", "links", "built_at", "schema_version", "counts", "spaces"}) {
    EXPECT_EQ(from_cli[key], from_mcp[key]) << key;
    EXPECT_EQ(from_api[key], from_mcp[key]) << key;
  }
  // The sources: one list, the failing one named with its error; ages move
  // with the clock, so they are compared without them.
  auto without_age = [](json sources) {
    for (auto& s : sources) s.erase("age_seconds");
    return sources;
  };
  ASSERT_TRUE(from_mcp["sources"].is_array());
  EXPECT_EQ(without_age(from_cli["sources"]), without_age(from_mcp["sources"]));
  EXPECT_EQ(without_age(from_api["sources"]), without_age(from_mcp["sources"]));
  bool failing = false;
  for (const auto& s : from_mcp["sources"]) {
    if (s["source"] == "wandb:acme/tinylm") failing = s["ok"] == false && !s["last_error"].get<std::string>().empty();
  }
  EXPECT_TRUE(failing) << from_mcp["sources"].dump();
  EXPECT_EQ(from_cli["corpus"], db);
  EXPECT_TRUE(from_api.contains("scheduler"));
}

}  // namespace
}  // namespace umwelt

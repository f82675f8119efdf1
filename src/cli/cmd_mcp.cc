// `umwelt mcp`: the MCP server on stdio, for agent tools (Claude Code,
// Cursor, VS Code, Codex, Zed, …). The protocol lives in the library
// (umwelt/mcp.h); this file wires flags to it.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/mcp.h"

namespace umwelt::cli {

Status CmdMcp(const std::string& path, const McpArgs& a) {
  std::vector<std::string> specs = a.embedders;
  if (specs.empty()) {
    if (const char* env = std::getenv("UMWELT_EMBEDDERS"); env && *env) specs.push_back(env);
  }
  UMWELT_ASSIGN_OR_RETURN(auto configs, ParseSpaceConfigs(specs));
  std::unique_ptr<ChatModel> llm;
  if (!a.llm.empty() || std::getenv("UMWELT_LLM")) {
    UMWELT_ASSIGN_OR_RETURN(llm, OpenModel(a.llm, false));
  }
  Searcher searcher(path, std::move(configs));
  UMWELT_RETURN_IF_ERROR(searcher.Refresh());  // a missing corpus fails here, before any client waits
  mcp::Options o;
  o.corpus_path = path;
  o.searcher = &searcher;
  o.llm = llm.get();
  o.extractive_ask = a.extractive;
  o.server_version = kVersion;
  return mcp::ServeStdio(std::move(o), stdin, stdout, [](const std::string& line) {
    std::fprintf(stderr, "umwelt: %s\n", line.c_str());
  });
}

void AddMcp(const VerbContext& v) {
  auto args = std::make_shared<McpArgs>();
  auto* cmd = v.app.add_subcommand("mcp", "Serve MCP (the Model Context Protocol) on stdio for agent tools: search, "
                                          "search_multi, show, linked_from, status, summaries, ask");
  cmd->add_option("--llm", args->llm, "Offer `ask` with this model: openai:<base-url>#<model> or anthropic:<model> (else $UMWELT_LLM)");
  cmd->add_flag("--extractive", args->extractive, "Offer `ask` without a model (extractive reports)");
  cmd->add_option("--embedder", args->embedders, "SPACE=PROVIDER (repeatable; else $UMWELT_EMBEDDERS)");
  cmd->callback([v, args] { *v.run = [v, args] { return CmdMcp(v.corpus, *args); }; });
}

}  // namespace umwelt::cli

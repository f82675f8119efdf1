// `ask` and `skills`.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "params_cli.h"
#include "umwelt/file.h"
#include "umwelt/research.h"
#include "umwelt/web.h"

namespace umwelt::cli {
namespace {

// The options every asking verb shares: corpus, embedders, the model.
Status Setup(const std::string& path, const AskArgs& a, AskOptions* o, std::unique_ptr<ChatModel>* llm) {
  o->corpus_path = path;
  o->question = a.question;
  o->facets = a.facets;
  std::vector<std::string> specs = a.embedders;
  if (specs.empty()) {
    if (const char* env = std::getenv("UMWELT_EMBEDDERS"); env && *env) specs.push_back(env);
  }
  UMWELT_ASSIGN_OR_RETURN(o->embedders, ParseSpaceConfigs(specs));
  UMWELT_ASSIGN_OR_RETURN(*llm, OpenModel(a.llm, a.replay));
  o->llm = llm->get();
  // The corpus must exist: asking never creates one.
  UMWELT_ASSIGN_OR_RETURN(auto probe, OpenCorpus(path, Corpus::Mode::kReadOnly));
  return Status::Ok();
}

}  // namespace

Status CmdAsk(const std::string& path, const AskArgs& a) {
  AskOptions o;
  std::unique_ptr<ChatModel> llm;
  UMWELT_RETURN_IF_ERROR(Setup(path, a, &o, &llm));
  if (a.refresh) UMWELT_RETURN_IF_ERROR(RefreshSources(path));
  if (a.fetch_linked) {
    o.fetch_linked = [path, allow = a.allow_private](const std::vector<std::string>& urls) -> Status {
      UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
      auto http = NewCurlHttpClient();
      web::FetchOptions fo;
      fo.allow_private = allow;
      web::FetchReport r;
      Status s = web::Fetch(*corpus, *http, urls, fo, &r);
      if (r.pages > 0) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
      return s;
    };
  }
  bool tty = ::isatty(2) && !a.quiet;
  if (tty) {
    o.progress = [](const std::string& stage, const std::string& detail) {
      std::fprintf(stderr, "\r\033[Kask: %s: %s", stage.c_str(), detail.c_str());
    };
  }
  // With --out, the page is published (and checked) by the same call the
  // server's jobs make.
  Result<PublishedAnswer> r = Status::Unavailable("not asked");
  if (a.out.empty()) {
    auto report = Ask(o);
    r = report.ok() ? Result<PublishedAnswer>(PublishedAnswer{std::move(report).value(), "", {}})
                    : Result<PublishedAnswer>(report.status());
  } else {
    r = AskAndPublish(o);
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  UMWELT_RETURN_IF_ERROR(r.status());
  const AskResult& report = r->report;
  PrintNotes(path, report.notes);
  for (const auto& x : report.removed) std::fprintf(stderr, "umwelt: removed by verify: %s\n", x.c_str());
  if (!a.trace.empty()) UMWELT_RETURN_IF_ERROR(WriteText(a.trace, report.trace_json));
  if (a.md.empty() && a.out.empty()) {
    std::fputs(report.markdown.c_str(), stdout);
  } else if (!a.md.empty()) {
    UMWELT_RETURN_IF_ERROR(WriteText(a.md, report.markdown));
  }
  if (!a.out.empty()) UMWELT_RETURN_IF_ERROR(WriteText(a.out, r->html));
  std::fprintf(stderr, "ask: %s, %zu facets, %zu evidence, %zu removed by verify, %.2f s (%d LLM calls, %lld in / %lld out tokens, $%.4f)%s\n",
               report.extractive ? "extractive" : "llm", report.facets.size(), report.evidence.size(), report.removed.size(), report.seconds,
               report.usage.calls, static_cast<long long>(report.usage.input_tokens),
               static_cast<long long>(report.usage.output_tokens), report.usage.cost_usd,
               report.found ? "" : "; nothing in the corpus answers it");
  if (!a.out.empty() && !a.quiet) std::printf("published %s\n", a.out.c_str());
  return Status::Ok();
}

Status CmdEvalAnswers(const std::string& path, const std::string& questions, const AskArgs& a, bool as_json) {
  AskOptions o;
  std::unique_ptr<ChatModel> llm;
  UMWELT_RETURN_IF_ERROR(Setup(path, a, &o, &llm));
  UMWELT_ASSIGN_OR_RETURN(auto scores, EvalAnswers(questions, o));
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : scores) {
      out.push_back({{"id", s.id}, {"answerable", s.answerable}, {"must_have", s.must_have},
                     {"must_have_cited", s.must_have_cited}, {"must_have_retrieved", s.must_have_retrieved},
                     {"junk", s.junk}, {"check_problems", s.check_problems}, {"nice_to_have_cited", s.nice_to_have_cited},
                     {"forbidden_cited", s.forbidden_cited}, {"hallucinated", s.hallucinated}, {"facts", s.facts},
                     {"facts_found", s.facts_found}, {"abstained", s.abstained}, {"llm_calls", s.llm_calls},
                     {"input_tokens", s.input_tokens}, {"output_tokens", s.output_tokens}, {"cost_usd", s.cost_usd},
                     {"seconds", s.seconds}, {"error", s.error}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return Status::Ok();
  }
  std::printf("| question | must-have cited | retrieved | forbidden cited | hallucinated | junk | check | facts | abstained | LLM calls | tokens in/out | cost | seconds |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
  int cited = 0, retrieved = 0, right = 0, asked = 0, junk = 0, problems = 0;
  for (const auto& s : scores) {
    if (!s.error.empty()) {
      std::printf("| %s | error: %s ||||||||||||\n", s.id.c_str(), s.error.c_str());
      continue;
    }
    ++asked;
    cited += s.must_have_cited;
    retrieved += s.must_have_retrieved;
    right += s.abstained != s.answerable;
    junk += s.junk;
    problems += s.check_problems;
    std::printf("| %s | %d/%d | %d/%d | %d | %d | %d | %d | %d/%d | %s | %d | %lld/%lld | $%.4f | %.2f |\n", s.id.c_str(),
                s.must_have_cited, s.must_have, s.must_have_retrieved, s.must_have, s.forbidden_cited, s.hallucinated,
                s.junk, s.check_problems, s.facts_found, s.facts,
                s.abstained ? (s.answerable ? "yes (wrongly)" : "yes") : (s.answerable ? "no" : "no (wrongly)"), s.llm_calls,
                static_cast<long long>(s.input_tokens), static_cast<long long>(s.output_tokens), s.cost_usd, s.seconds);
  }
  std::printf("\n%d questions: must-haves cited %d of the %d retrieved (%.2f); abstention right %d/%d; %d junk "
              "statements; %d check problems\n",
              asked, cited, retrieved, retrieved ? static_cast<double>(cited) / retrieved : 1.0, right, asked, junk, problems);
  return Status::Ok();
}

namespace {

// The command agents start: `umwelt` when it is on PATH, else this binary.
std::string UmweltCommand() {
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (size_t i = 0; i <= p.size();) {
      size_t e = p.find(':', i);
      if (e == std::string::npos) e = p.size();
      std::string dir = p.substr(i, e - i);
      if (!dir.empty() && ::access((dir + "/umwelt").c_str(), X_OK) == 0) return "umwelt";
      i = e + 1;
    }
  }
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "umwelt" : self.string();
}

// Adds (or replaces) the umwelt server in an MCP client's configuration
// file, keeping every other server in it; a file that is not a JSON object
// is an error, never overwritten.
Status AddMcpServer(const std::string& path, const char* servers_key, const nlohmann::json& server) {
  nlohmann::json config = nlohmann::json::object();
  if (std::filesystem::exists(path)) {
    UMWELT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
    config = nlohmann::json::parse(text, nullptr, false);
    if (!config.is_object() || (config.contains(servers_key) && !config[servers_key].is_object())) {
      return Status::Invalid(path + ": not an MCP configuration (a JSON object with \"" + servers_key +
                             "\"); left as it is");
    }
  }
  config[servers_key]["umwelt"] = server;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  return WriteText(path, config.dump(2) + "\n");
}

}  // namespace

Status CmdSkills(const std::string& action, const std::string& dir, const std::string& corpus) {
  if (action == "print") {
    std::printf("%s\n\n---\n\n%s", SkillMarkdown().c_str(), AgentsMarkdown().c_str());
    return Status::Ok();
  }
  std::error_code ec;
  std::filesystem::create_directories(dir + "/.claude/skills/umwelt-research", ec);
  UMWELT_RETURN_IF_ERROR(WriteText(dir + "/.claude/skills/umwelt-research/SKILL.md", SkillMarkdown()));
  UMWELT_RETURN_IF_ERROR(WriteText(dir + "/AGENTS.md", AgentsMarkdown()));
  // MCP: Claude Code (.mcp.json), Cursor (.cursor/mcp.json), VS Code (.vscode/mcp.json).
  std::string absolute = std::filesystem::absolute(corpus, ec).string();
  nlohmann::json args = {"--corpus", ec ? corpus : absolute, "mcp"};
  nlohmann::json server = {{"command", UmweltCommand()}, {"args", args}};
  UMWELT_RETURN_IF_ERROR(AddMcpServer(dir + "/.mcp.json", "mcpServers", server));
  UMWELT_RETURN_IF_ERROR(AddMcpServer(dir + "/.cursor/mcp.json", "mcpServers", server));
  nlohmann::json vscode = server;
  vscode["type"] = "stdio";
  UMWELT_RETURN_IF_ERROR(AddMcpServer(dir + "/.vscode/mcp.json", "servers", vscode));
  std::printf("wrote %s/.claude/skills/umwelt-research/SKILL.md, %s/AGENTS.md and the MCP configuration for Claude "
              "Code (.mcp.json), Cursor (.cursor/mcp.json) and VS Code (.vscode/mcp.json)\n",
              dir.c_str(), dir.c_str());
  return Status::Ok();
}

void AddAskVerbs(const VerbContext& v, CLI::App& eval) {
  struct Args {
    AskArgs ask_args;
    std::shared_ptr<ParamTexts> ask_texts = std::make_shared<ParamTexts>();
    std::string skills_action;
    std::string skills_dir = ".";
    AskArgs eval_ask;
    std::string answers_path;
    bool answers_json = false;
  };
  auto args = std::make_shared<Args>();
  AskArgs& ask_args = args->ask_args;
  std::string& skills_action = args->skills_action;
  std::string& skills_dir = args->skills_dir;
  AskArgs& eval_ask = args->eval_ask;
  std::string& answers_path = args->answers_path;
  bool& answers_json = args->answers_json;
  auto* ask = v.app.add_subcommand("ask", "Research a question over the corpus: a report where every claim cites a permalink");
  AddParamFlags(ask, AskParams(), args->ask_texts);
  ask->add_option("--llm", ask_args.llm, "openai:<base-url>#<model> or anthropic:<model> (else $UMWELT_LLM; none: extractive)");
  ask->add_flag("--replay", ask_args.replay, "Answer only from the LLM cache; a miss is an error");
  ask->add_option("--embedder", ask_args.embedders, "SPACE=PROVIDER (repeatable; else $UMWELT_EMBEDDERS)");
  ask->add_option("--md", ask_args.md, "Write the Markdown here (default: stdout)");
  ask->add_option("--out,-o", ask_args.out, "Also publish the report as an HTML page here");
  ask->add_option("--trace", ask_args.trace, "Write the trace (facets, searches, evidence, LLM calls) as JSON here");
  ask->add_option("--facets", ask_args.facets, "Facets to research")->default_val(10)->check(CLI::Range(2, 20));
  ask->add_flag("--refresh", ask_args.refresh, "Sync every recorded source before asking");
  ask->add_flag("--fetch-linked", ask_args.fetch_linked, "Fetch the web pages the evidence links, and cite them");
  ask->add_flag("--allow-private", ask_args.allow_private, "--fetch-linked may fetch private addresses");

  auto* skills = v.app.add_subcommand("skills", "The research method as agent instructions (SKILL.md, AGENTS.md) and MCP client configuration");
  skills->add_option("action", skills_action, "print or install")->required()->check(CLI::IsMember({"print", "install"}));
  skills->add_option("dir", skills_dir, "install: where to write SKILL.md, AGENTS.md and the MCP configuration (.mcp.json, .cursor/, .vscode/)")->default_val(".");
  auto* eval_answers = eval.add_subcommand("answers", "Ask each question of reference-format files and score the reports");
  eval_answers->add_option("--questions", answers_path, "Question files (a folder or one file)")->required();
  eval_answers->add_option("--llm", eval_ask.llm, "openai:<base-url>#<model> or anthropic:<model> (else $UMWELT_LLM)");
  eval_answers->add_flag("--replay", eval_ask.replay, "Answer only from the LLM cache");
  eval_answers->add_option("--embedder", eval_ask.embedders, "SPACE=PROVIDER (repeatable)");
  eval_answers->add_flag("--json", answers_json, "Emit JSON");
  ask->callback([v, args] {
    *v.run = [v, args]() -> Status {
      args->ask_args.quiet = v.quiet;
      UMWELT_ASSIGN_OR_RETURN(AskOptions asked, AskParams().FromTexts(TextsOf(args->ask_texts)));
      args->ask_args.question = asked.question;
      return CmdAsk(v.corpus, args->ask_args);
    };
  });
  skills->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdSkills(args->skills_action, args->skills_dir, v.corpus);
    };
  });
  eval_answers->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdEvalAnswers(v.corpus, args->answers_path, args->eval_ask, args->answers_json);
    };
  });
}

}  // namespace umwelt::cli

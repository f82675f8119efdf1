// The `umwelt` command. Exit codes (umwelt/status.h's CodeInfoOf): 0 success,
// 1 failure, 2 usage error, 3 a report failed its citation check.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "umwelt/log.h"
#include "umwelt/redact.h"
#include "umwelt/suggest.h"
#include "umwelt/text.h"

namespace {

int ExitCode(const umwelt::Status& s) {
  if (s.ok()) return 0;
  std::fprintf(stderr, "umwelt: error: %s\n", umwelt::TerminalSafe(umwelt::RedactSecrets(s.message())).c_str());
  return umwelt::CodeInfoOf(s.code()).exit_code;
}

}  // namespace

namespace {

// One group of verbs: the top-level names it registers and how. Only the
// group of the verb given is registered (a process pays for building one
// verb's flags, not twenty); help, no verb or a name missing here registers
// every group, so the table only decides speed, never behaviour.
struct VerbGroup {
  std::vector<std::string> names;
  void (*add)(const umwelt::cli::VerbContext&, CLI::App& eval);
};

const std::vector<VerbGroup>& VerbGroups() {
  using namespace umwelt::cli;
  using V = const VerbContext&;
  static const std::vector<VerbGroup> groups = {
      {{"init"}, [](V v, CLI::App&) { AddInitVerb(v); }},
      {{"import", "sync", "fetch"}, [](V v, CLI::App&) { AddIngestVerbs(v); }},
      {{"search", "search-multi", "context", "index"}, [](V v, CLI::App&) { AddSearchVerbs(v); }},
      {{"show"}, [](V v, CLI::App&) { AddShowVerb(v); }},
      {{"run"}, [](V v, CLI::App&) { AddRunVerb(v); }},
      {{"ask", "skills", "eval"}, [](V v, CLI::App& eval) { AddAskVerbs(v, eval); }},
      {{"status"}, [](V v, CLI::App&) { AddStatusVerb(v); }},
      {{"publish"}, [](V v, CLI::App&) { AddPublishVerb(v); }},
      {{"eval"}, [](V v, CLI::App& eval) { AddEvalRetrievalVerb(v, eval); }},
      {{"digest", "summaries", "eval"}, [](V v, CLI::App& eval) { AddDigestVerbs(v, eval); }},
      {{"serve", "refresh"}, [](V v, CLI::App&) { AddServeVerbs(v); }},
      {{"mcp"}, [](V v, CLI::App&) { AddMcp(v); }},
  };
  return groups;
}

// The verb named on the command line: the first word after the global
// options, or "" when there is none (then every verb is registered).
std::string VerbOf(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--corpus") {
      ++i;
      continue;
    }
    if (a.rfind('-', 0) == 0) {
      if (a == "-h" || a == "--help") return "";
      continue;
    }
    return a;
  }
  return "";
}

// The global options and the app they are parsed into.
struct Cli {
  std::unique_ptr<CLI::App> app;
  std::string corpus = umwelt::cli::DefaultCorpusPath();
  bool verbose = false, quiet = false;
  std::function<umwelt::Status()> run;
};

// Registers the global options and the groups that name `verb` (all of them
// when verb is "" or no group names it).
std::unique_ptr<Cli> BuildCli(const std::string& verb) {
  using namespace umwelt;
  auto c = std::make_unique<Cli>();
  c->app = std::make_unique<CLI::App>("umwelt — a searchable, citable memory of an open-source project");
  CLI::App& app = *c->app;
  app.require_subcommand(1);
  app.footer("Exit codes: 0 success, 1 failure, 2 usage error, 3 a report failed its citation check.\n"
             "The corpus is --corpus, else $UMWELT_CORPUS, else " + cli::DefaultCorpusPath() + ".");
  app.add_option("--corpus", c->corpus, "Corpus file (SQLite)");
  app.add_flag("-v,--verbose", c->verbose, "Log progress to stderr");
  app.add_flag("-q,--quiet", c->quiet, "Log only errors");
  bool known = false;
  for (const auto& g : VerbGroups()) known |= std::find(g.names.begin(), g.names.end(), verb) != g.names.end();
  // Each verb registers itself (cmd_<verb>.cc) and, when given, sets `run`.
  cli::VerbContext verbs{app, c->corpus, c->quiet, &c->run};
  CLI::App* eval = nullptr;
  for (const auto& g : VerbGroups()) {
    if (known && std::find(g.names.begin(), g.names.end(), verb) == g.names.end()) continue;
    bool has_eval = std::find(g.names.begin(), g.names.end(), "eval") != g.names.end();
    if (has_eval && !eval) {
      eval = app.add_subcommand("eval", "Measure quality");
      eval->require_subcommand(1);
    }
    g.add(verbs, eval ? *eval : app);
  }
  app.set_version_flag("--version", cli::VersionText(), "Print the version, the build's commit and the libraries' versions");
  return c;
}

// The verbs by task: what bare `umwelt` and an unknown verb print. A verb
// the table misses is listed under "Other", so none goes unseen.
std::string VerbList(CLI::App& app) {
  static const std::vector<std::pair<const char*, std::vector<std::string>>> tasks = {
      {"Start", {"init", "status"}},
      {"Bring records in", {"import", "sync", "fetch", "index"}},
      {"Find", {"search", "search-multi", "context", "show", "run"}},
      {"Write from them", {"ask", "digest", "summaries", "publish"}},
      {"Serve a team and its agents", {"serve", "refresh", "mcp", "skills"}},
      {"Measure", {"eval"}},
  };
  std::vector<CLI::App*> all = app.get_subcommands([](CLI::App*) { return true; });
  auto line = [](CLI::App* s) {
    const std::string& name = s->get_name();
    return "  " + name + std::string(name.size() < 14 ? 14 - name.size() : 1, ' ') + s->get_description() + "\n";
  };
  std::string out;
  std::vector<std::string> listed;
  for (const auto& [task, names] : tasks) {
    out += std::string(task) + ":\n";
    for (const auto& n : names) {
      for (CLI::App* s : all) {
        if (s->get_name() == n) out += line(s), listed.push_back(n);
      }
    }
  }
  std::string other;
  for (CLI::App* s : all) {
    if (std::find(listed.begin(), listed.end(), s->get_name()) == listed.end()) other += line(s);
  }
  if (!other.empty()) out += "Other:\n" + other;
  return out;
}

// Every name a command (and the commands above it) takes as a flag.
std::vector<std::string> FlagNames(CLI::App* cmd) {
  std::vector<std::string> out;
  for (; cmd; cmd = cmd->get_parent()) {
    for (const CLI::Option* o : cmd->get_options()) {
      for (const auto& l : o->get_lnames()) out.push_back("--" + l);
      for (const auto& s : o->get_snames()) out.push_back("-" + s);
    }
  }
  return out;
}

// The deepest command the parse reached.
CLI::App* Deepest(CLI::App* app) {
  for (;;) {
    auto parsed = app->get_subcommands();
    if (parsed.empty()) return app;
    app = parsed.front();
  }
}

}  // namespace

static int RunCli(int argc, char** argv) {
  using namespace umwelt;
  if (argc == 2 && std::string(argv[1]) == "--version") {  // before building any verb
    std::printf("%s\n", cli::VersionText().c_str());
    return 0;
  }
  std::string verb = VerbOf(argc, argv);
  bool asks_help = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    asks_help |= a == "-h" || a == "--help" || a == "--version";
  }
  auto c = BuildCli(verb);
  auto registered = [&](const std::string& name) {
    return !c->app->get_subcommands([&](CLI::App* s) { return s->get_name() == name; }).empty();
  };
  if (!verb.empty() && !registered(verb)) c = BuildCli("");  // a name the table lacks: let the whole CLI answer
  if (verb.empty() && !asks_help) {  // bare `umwelt`: what it can do
    std::printf("umwelt — a searchable, citable memory of an open-source project.\n\n%s\n"
                "`umwelt VERB --help` for a verb's flags; the corpus is --corpus, else $UMWELT_CORPUS, else %s.\n",
                VerbList(*c->app).c_str(), cli::DefaultCorpusPath().c_str());
    return 2;
  }
  if (!verb.empty() && !registered(verb)) {
    std::vector<std::string> names;
    for (CLI::App* s : c->app->get_subcommands([](CLI::App*) { return true; })) names.push_back(s->get_name());
    std::fprintf(stderr, "umwelt: error: unknown verb `%s`%s\n\n%s", TerminalSafe(verb.substr(0, 64)).c_str(),
                 TerminalSafe(DidYouMean(verb, names)).c_str(), VerbList(*c->app).c_str());
    return 2;
  }
  try {
    c->app->parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    // An unknown flag: the nearest the command takes.
    std::string msg = e.what();
    std::vector<std::string> flags = FlagNames(Deepest(c->app.get()));
    std::string hint;
    size_t colon = msg.find(": ");
    std::string words = colon == std::string::npos ? "" : msg.substr(colon + 2);
    for (size_t at = 0; at < words.size() && hint.empty();) {
      size_t end = std::min(words.find(' ', at), words.size());
      std::string word = words.substr(at, end - at);
      if (word.rfind('-', 0) == 0) hint = DidYouMean(word.substr(0, word.find('=')), flags);
      at = end + 1;
    }
    std::fprintf(stderr, "%s%s\nRun with --help for more information.\n", TerminalSafe(e.what()).c_str(),
                 TerminalSafe(hint).c_str());
    return 2;
  } catch (const CLI::ParseError& e) {
    int code = c->app->exit(e);  // prints help or the usage error
    return code == 0 ? 0 : 2;    // documented: 2 for every usage error
  }
  SetLogLevel(c->quiet ? LogLevel::kError : c->verbose ? LogLevel::kInfo : LogLevel::kWarn);
  cli::GuardStdout();
  return ExitCode(c->run ? c->run() : Status::Ok());
}

// The last resort: an exception that escaped a verb (a bug: readers of
// outside input answer with a Status) ends the process with one line and
// exit code 1, never an abort.
int main(int argc, char** argv) {
  try {
    return RunCli(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "umwelt: error: internal error: %s\n",
                 umwelt::TerminalSafe(umwelt::RedactSecrets(e.what())).c_str());
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "umwelt: error: internal error (an unknown exception)\n");
  }
  return 1;
}

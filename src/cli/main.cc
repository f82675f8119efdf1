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

}  // namespace

static int RunCli(int argc, char** argv) {
  using namespace umwelt;
  if (argc == 2 && std::string(argv[1]) == "--version") {  // before building any verb
    std::printf("%s\n", cli::VersionText().c_str());
    return 0;
  }
  std::string verb = VerbOf(argc, argv);
  auto c = BuildCli(verb);
  if (!verb.empty() && c->app->get_subcommands([&](CLI::App* s) { return s->get_name() == verb; }).empty()) {
    c = BuildCli("");  // a name the table lacks: let the whole CLI answer
  }
  try {
    c->app->parse(argc, argv);
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

// The `umwelt` command. Exit codes: 0 success, 1 failure, 2 usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>

#include "cli.h"
#include "umwelt/log.h"
#include "umwelt/redact.h"
#include "umwelt/text.h"

namespace {

int ExitCode(const umwelt::Status& s) {
  if (s.ok()) return 0;
  std::fprintf(stderr, "umwelt: error: %s\n", umwelt::TerminalSafe(umwelt::RedactSecrets(s.message())).c_str());
  return s.code() == umwelt::Code::kInvalidArgument ? 2 : 1;
}

}  // namespace

static int RunCli(int argc, char** argv) {
  using namespace umwelt;
  CLI::App app{"umwelt — a searchable, citable memory of an open-source project"};
  app.require_subcommand(1);
  app.footer("Exit codes: 0 success, 1 failure, 2 usage error.\n"
             "The corpus is --corpus, else $UMWELT_CORPUS, else " + cli::DefaultCorpusPath() + ".");
  std::string corpus = cli::DefaultCorpusPath();
  app.add_option("--corpus", corpus, "Corpus file (SQLite)");
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "Log progress to stderr");
  app.add_flag("-q,--quiet", quiet, "Log only errors");

  // Each verb registers itself (cmd_<verb>.cc) and, when given, sets `run`.
  std::function<Status()> run;
  cli::VerbContext verbs{app, corpus, quiet, &run};
  cli::AddInitVerb(verbs);
  cli::AddIngestVerbs(verbs);
  cli::AddSearchVerbs(verbs);
  cli::AddShowVerb(verbs);
  cli::AddRunVerb(verbs);
  auto* eval = app.add_subcommand("eval", "Measure quality");
  eval->require_subcommand(1);
  cli::AddAskVerbs(verbs, *eval);
  cli::AddStatusVerb(verbs);
  cli::AddPublishVerb(verbs);
  cli::AddEvalRetrievalVerb(verbs, *eval);
  cli::AddDigestVerbs(verbs, *eval);
  cli::AddServeVerbs(verbs);
  cli::AddMcp(verbs);
  app.set_version_flag("--version", cli::VersionText(), "Print the version, the build's commit and SQLite's version");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);     // prints help or the usage error
    return code == 0 ? 0 : 2;   // documented: 2 for every usage error
  }
  SetLogLevel(quiet ? LogLevel::kError : verbose ? LogLevel::kInfo : LogLevel::kWarn);
  cli::GuardStdout();



  return ExitCode(run ? run() : Status::Ok());
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
